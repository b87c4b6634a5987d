//! Determinization: a full engine state consistent with a player's view, for
//! search players that need to simulate moves.
//!
//! The engine plays only with known pieces, so a search first gives every
//! hidden opponent piece a concrete type. The assignment is drawn uniformly
//! among those consistent with the view: the unknown Bombs and Flag go to
//! hidden pieces that never moved, and the unknown movable pieces are
//! shuffled over the remaining hidden pieces. The marginal distribution of
//! each hidden piece under this draw is exactly the counting prior (moved:
//! `unknown[t] / U`; unmoved: `unknown[Bomb] / n_unmoved`, ...), so sampling
//! adds no knowledge the view does not have.
//!
//! The determinized state is a root position (no history): the two-square
//! and chasing rules start afresh in it, so the searcher takes its own legal
//! moves from the view, which has the exact ones. [`crate::reconstruct`]
//! builds a state with the whole game's history instead, for consumers of
//! the engine's observation planes.

use rand::seq::SliceRandom;
use rand::Rng;
use stratego_engine::{Board, Piece, PieceType, Position, Square, State};

use crate::player::AgentRng;
use crate::view::{Cell, InfoView};

/// A state consistent with `view`, hidden opponent types drawn with `rng`.
pub fn determinize(view: &InfoView<'_>, rng: &mut AgentRng) -> State {
    let opponent = view.opponent();
    let mut board = Board::default();
    for (i, cell) in view.cells.iter().enumerate() {
        let sq = Square::new(i as u8).expect("board cells are below 100");
        match *cell {
            Cell::Empty => {}
            Cell::Own(piece) => board.set(sq, Some(piece)),
            Cell::Opponent(o) => {
                if let Some(kind) = o.known {
                    board.set(
                        sq,
                        Some(Piece { color: opponent, kind, origin: o.origin, revealed: true, moved: o.moved }),
                    )
                }
            }
        }
    }
    for (sq, kind) in draw_hidden_types(view, rng) {
        let Cell::Opponent(o) = view.cell(sq) else { unreachable!("drawn types are for opponent pieces") };
        board.set(sq, Some(Piece { color: opponent, kind, origin: o.origin, revealed: false, moved: o.moved }));
    }
    let position = Position { rules: view.rules, board, to_move: view.me, ply: view.ply, battleless: view.battleless };
    State::from_position(position).expect("a determinized view is a valid position")
}

/// A type for every hidden opponent piece of `view` (by the square it stands
/// on now), drawn uniformly among the assignments the view allows: the
/// unknown Bombs and Flag on pieces that never moved, the unknown movable
/// types shuffled over the rest. Shared by [`determinize`] and
/// [`crate::reconstruct`], so both draw from the counting prior and nothing
/// else.
pub fn draw_hidden_types(view: &InfoView<'_>, rng: &mut AgentRng) -> Vec<(Square, PieceType)> {
    let (mut hidden_moved, mut hidden_unmoved) = (Vec::new(), Vec::new());
    for (sq, o) in view.opponent_pieces().filter(|(_, o)| o.known.is_none()) {
        if o.moved {
            hidden_moved.push(sq);
        } else {
            hidden_unmoved.push(sq);
        }
    }
    let unknown = view.unknown_opponent_counts();
    let pool = |movable: bool| {
        PieceType::ALL
            .iter()
            .filter(move |t| t.is_movable() == movable)
            .flat_map(move |&t| std::iter::repeat_n(t, unknown[t.index()] as usize))
    };
    let immovable: Vec<PieceType> = pool(false).collect();
    let mut movable: Vec<PieceType> = pool(true).collect();
    assert!(
        immovable.len() <= hidden_unmoved.len()
            && movable.len() + immovable.len() == hidden_moved.len() + hidden_unmoved.len(),
        "a view from a real game always has a consistent assignment"
    );
    // The order of the two shuffles is part of the seeded behaviour of the
    // search players: keep it.
    hidden_unmoved.shuffle(rng);
    movable.shuffle(rng);
    let kinds = immovable.into_iter().chain(movable);
    hidden_unmoved.into_iter().chain(hidden_moved).zip(kinds).collect()
}

/// How much a draw favours a type for a hidden opponent piece, by the square
/// it stands on now: any weights `>= 0` (a belief model's probabilities).
pub type TypeWeights<'a> = &'a dyn Fn(Square, PieceType) -> f64;

/// A type for every hidden opponent piece of `view`, as
/// [`draw_hidden_types`] but drawn from `weight` instead of uniformly: one
/// piece at a time in a random order, each a type the view still allows it
/// with probability proportional to its weight. Allowed: a type not yet
/// used up by the view's unknown counts, a Bomb or the Flag only on a piece
/// that never moved, and a movable type on a piece that never moved only
/// while the pieces that never moved and are not drawn yet can still take
/// every unknown Bomb and the Flag. So every draw is an army the view
/// allows, whatever the weights; a piece whose allowed types all weigh 0
/// (or a weight that is not a number) draws by the counts left. A belief
/// model's marginals drawn this way are its per-piece beliefs, the counts
/// keeping the army whole (as a belief network's masked draws do).
pub fn draw_hidden_types_weighted(
    view: &InfoView<'_>,
    weight: TypeWeights<'_>,
    rng: &mut AgentRng,
) -> Vec<(Square, PieceType)> {
    let mut hidden: Vec<(Square, bool)> =
        view.opponent_pieces().filter(|(_, o)| o.known.is_none()).map(|(sq, o)| (sq, o.moved)).collect();
    hidden.shuffle(rng);
    let mut left = view.unknown_opponent_counts();
    let immovable_left = |left: &[u8; PieceType::COUNT]| {
        PieceType::ALL.iter().filter(|t| !t.is_movable()).map(|t| left[t.index()] as usize).sum::<usize>()
    };
    let mut unmoved_left = hidden.iter().filter(|(_, moved)| !moved).count();
    let mut drawn = Vec::with_capacity(hidden.len());
    for (sq, moved) in hidden {
        if !moved {
            unmoved_left -= 1;
        }
        let room_for_movable = moved || immovable_left(&left) <= unmoved_left;
        let allowed: Vec<PieceType> = PieceType::ALL
            .into_iter()
            .filter(|t| left[t.index()] > 0 && if t.is_movable() { room_for_movable } else { !moved })
            .collect();
        assert!(!allowed.is_empty(), "a view from a real game always has a consistent assignment");
        let weights: Vec<f64> =
            allowed.iter().map(|&t| weight(sq, t)).map(|w| if w.is_finite() && w > 0.0 { w } else { 0.0 }).collect();
        // No weight for any allowed type: the counts left decide.
        let weights: Vec<f64> = if weights.iter().sum::<f64>() > 0.0 {
            weights
        } else {
            allowed.iter().map(|t| f64::from(left[t.index()])).collect()
        };
        let mut x = rng.random::<f64>() * weights.iter().sum::<f64>();
        let mut kind = allowed[allowed.len() - 1];
        for (t, w) in allowed.iter().zip(&weights) {
            if x < *w {
                kind = *t;
                break;
            }
            x -= w;
        }
        left[kind.index()] -= 1;
        drawn.push((sq, kind));
    }
    drawn
}

/// `state` with the hidden piece on `sq` given type `kind`, the other hidden
/// pieces of its side trading types so that the side's army stays the same
/// (the engine's lost counts and the counting prior depend on it). A piece
/// that moved never receives a Bomb or the Flag. The swap partner exists
/// whenever the counting prior gives `kind` a positive probability on `sq`.
pub fn with_hidden_type(state: &State, sq: Square, kind: PieceType) -> State {
    let mut position = state.position().clone();
    let piece = position.board[sq].expect("a chance node is about a piece");
    if piece.kind == kind {
        return state.clone();
    }
    let old = piece.kind;
    let hidden = |p: &Piece| p.color == piece.color && !p.revealed;
    let cells: Vec<(Square, Piece)> = position.board.pieces().filter(|(s, p)| *s != sq && hidden(p)).collect();
    let set_kind = |board: &mut Board, at: Square, kind: PieceType| {
        let p = board[at].expect("a listed piece");
        board.set(at, Some(Piece { kind, ..p }));
    };
    let direct = cells.iter().find(|(_, p)| p.kind == kind && (old.is_movable() || !p.moved));
    match direct {
        Some(&(partner, _)) => {
            set_kind(&mut position.board, partner, old);
        }
        None => {
            // `old` is a Bomb or the Flag (so `sq` never moved) and every hidden
            // piece of type `kind` has moved: pass `old` on to an unmoved hidden
            // piece with a movable type, which takes over the moved piece's slot.
            let (partner, _) =
                *cells.iter().find(|(_, p)| p.kind == kind).expect("the prior gave this type a positive probability");
            let (third, third_piece) = *cells
                .iter()
                .find(|(_, p)| !p.moved && p.kind.is_movable())
                .expect("an unmoved piece can be movable, so one holds a movable type");
            set_kind(&mut position.board, partner, third_piece.kind);
            set_kind(&mut position.board, third, old);
        }
    }
    set_kind(&mut position.board, sq, kind);
    State::from_position(position).expect("trading hidden types keeps the position valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::public_history;
    use rand::SeedableRng;
    use stratego_engine::{Color, CountingPrior, PieceSet, Ruleset, Setup};

    fn midgame(seed: u64) -> State {
        let mut rng = AgentRng::seed_from_u64(seed);
        let red = Setup::random(PieceSet::Classic, &mut rng);
        let blue = Setup::random(PieceSet::Classic, &mut rng);
        let mut state = State::from_setups(Ruleset::classic(), &red, &blue).unwrap();
        for _ in 0..150 {
            match state.sample_legal_move(&mut rng) {
                Some(mv) => state.apply_move(mv).unwrap(),
                None => break,
            }
        }
        state
    }

    #[test]
    fn determinized_states_keep_the_public_information_and_the_armies() {
        for seed in 0..20 {
            let state = midgame(seed);
            if state.is_terminal() {
                continue;
            }
            let history = public_history(&state);
            let view = InfoView::new(&state, &history);
            let mut rng = AgentRng::seed_from_u64(seed);
            let det = determinize(&view, &mut rng);
            let det_history = public_history(&det);
            let mut det_view = InfoView::new(&det, &det_history);
            // The root has no history, and its moves are unrestricted by the
            // two-square rule; everything else matches.
            det_view.history = view.history;
            det_view.legal_moves.clone_from(&view.legal_moves);
            assert_eq!(det_view, view, "seed {seed}");
            for color in Color::BOTH {
                assert_eq!(det.lost(color), state.lost(color));
            }
            for mv in &view.legal_moves {
                assert!(det.is_legal(*mv));
            }
        }
    }

    #[test]
    fn forcing_a_hidden_type_keeps_the_army_and_the_prior_consistent() {
        let mut forced = 0;
        for seed in 0..20 {
            let state = midgame(seed + 100);
            if state.is_terminal() {
                continue;
            }
            let me = state.to_move();
            let prior = CountingPrior::new(&state, me);
            for (sq, piece) in state.board().pieces().filter(|(_, p)| p.color != me && !p.revealed) {
                for kind in PieceType::ALL.into_iter().filter(|t| prior.of(&piece)[t.index()] > 0.0) {
                    let after = with_hidden_type(&state, sq, kind);
                    assert_eq!(after.board()[sq].unwrap().kind, kind);
                    assert_eq!(after.lost(me.opponent()), state.lost(me.opponent()));
                    assert_eq!(CountingPrior::new(&after, me), prior, "public information is unchanged");
                    forced += 1;
                }
            }
        }
        assert!(forced > 500, "{forced}");
    }
}
