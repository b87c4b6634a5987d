//! The hand-written evaluation of the expectimax player.
//!
//! From the searching player's side, using only what that player knows:
//! - **material**: its own pieces at their values, the opponent's revealed
//!   pieces at theirs, and each hidden opponent piece at its expected value
//!   under the counting prior at that node;
//! - **Marshal and Spy danger**: a revealed Marshal while the enemy Spy may
//!   still live costs a small share of the Marshal's value, and a large share
//!   when a piece that may be the Spy stands next to it with its side to move
//!   (the Spy strikes next ply, often beyond the search horizon); the same
//!   bonus the other way round;
//! - **mobility**: free squares next to movable pieces (a hidden opponent
//!   piece counts with its probability of being movable), a small weight;
//! - **advance**: rows gained towards the enemy's back row by movable pieces,
//!   the same small weight per row as the greedy player's bonus. Without it
//!   quiet positions tie and the search shuffles, while the side that makes
//!   contact first gets the first chances at the enemy's unmoved pieces (with
//!   random setups, often the Flag).
//!
//! - **press** (`evaluate_pressing`, issue 16; the rules of it in
//!   [`press`](crate::press)): when the player is ahead on material by at
//!   least `PRESS_LEAD`, a bonus for turning the lead into a win instead of
//!   keeping it: each of its movable pieces gains `PRESS_WEIGHT` per square
//!   it stands closer to its nearest target, more the longer the game has
//!   gone without a battle, and the lead counts `TRADE_WEIGHT` more for each
//!   unit share of the armies' material gone (even trades help the side that
//!   is ahead). Without it a search that is ahead finds no move better than
//!   any other and shuffles until a cap draws the game, where the rules do
//!   not forbid shuffling.
//!
//! The value is clamped to `±EVAL_LIMIT`, strictly inside the terminal
//! scores `±WIN`, so every value in a search lies in `[-WIN, WIN]`: the
//! bounds Star1 pruning relies on.

use stratego_engine::{Color, CountingPrior, Piece, PieceType, Square, State};

use crate::press::{stall, Targets, PRESS_LEAD, PRESS_WEIGHT, TRADE_WEIGHT};
use crate::values::{expected_value, value};

/// The score of a won game (less one per ply to get there, so quicker wins
/// score higher); a loss scores the negative.
pub const WIN: f64 = 100_000.0;
/// Evaluations never leave `[-EVAL_LIMIT, EVAL_LIMIT]`.
pub const EVAL_LIMIT: f64 = 50_000.0;
/// Weight of one free square next to a movable piece.
pub const MOBILITY_WEIGHT: f64 = 0.5;
/// Weight of one row advanced by a movable piece (towards the enemy's back row).
pub const ADVANCE_WEIGHT: f64 = 1.0;
/// Share of the Marshal's value at stake while it is revealed and the enemy Spy lives ...
pub const MARSHAL_EXPOSED: f64 = 0.05;
/// ... and the extra share per unit probability that a piece next to it is the Spy, that side to move.
pub const SPY_NEXT_TO_MARSHAL: f64 = 0.6;

/// The value of a finished game for `me`, `plies` plies below the root.
pub fn terminal_score(state: &State, me: Color, plies: u32) -> f64 {
    match state.outcome().and_then(|o| o.winner) {
        Some(winner) if winner == me => WIN - plies as f64,
        Some(_) => -WIN + plies as f64,
        None => 0.0,
    }
}

/// The probability, from `me`'s side, that `piece` (of either side) is of type `kind`.
fn chance_of(piece: &Piece, kind: PieceType, me: Color, prior: &CountingPrior) -> f64 {
    if piece.color == me || piece.revealed {
        (piece.kind == kind) as u8 as f64
    } else {
        prior.of(piece)[kind.index()] as f64
    }
}

fn free_neighbours(state: &State, sq: Square) -> f64 {
    sq.neighbours().filter(|n| !n.is_lake() && state.board()[*n].is_none()).count() as f64
}

/// The evaluation of a non-terminal `state` for `me` (see the module documentation).
pub fn evaluate(state: &State, me: Color) -> f64 {
    terms(state, me).0.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// `evaluate` with the press towards the win when ahead (see the module
/// documentation).
pub fn evaluate_pressing(state: &State, me: Color) -> f64 {
    let (base, material) = terms(state, me);
    (base + press(state, me, &material)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The press term of `evaluate_pressing` alone, for a leaf valued another
/// way (expectimax's learned leaf adds it to the tables' value).
pub fn press_term(state: &State, me: Color) -> f64 {
    let (_, material) = terms(state, me);
    press(state, me, &material)
}

/// Both sides' material as `me` values it: its own pieces, and the
/// opponent's at their known or expected values (Flags left out).
struct Material {
    own: f64,
    opponent: f64,
}

/// The press term of `evaluate_pressing`: 0 unless `me` leads by `PRESS_LEAD`.
fn press(state: &State, me: Color, material: &Material) -> f64 {
    let lead = material.own - material.opponent;
    if lead < PRESS_LEAD {
        return 0.0;
    }
    let targets = Targets::of_state(state, me);
    let movable = state.board().pieces().filter(|(_, p)| p.color == me && p.kind.is_movable());
    let approach = targets.approach(movable.map(|(sq, p)| (sq, p.kind)));
    let full = 2.0 * army_material(state.rules().piece_set);
    let gone = (1.0 - (material.own + material.opponent) / full).clamp(0.0, 1.0);
    stall(state.battleless()) * PRESS_WEIGHT * approach + TRADE_WEIGHT * lead * gone
}

/// One whole army's material, Flag left out.
fn army_material(set: stratego_engine::PieceSet) -> f64 {
    PieceType::ALL.iter().filter(|&&k| k != PieceType::Flag).map(|&k| set.count(k) as f64 * value(k)).sum()
}

/// The unclamped sum of `evaluate`'s terms, and the material of both sides.
fn terms(state: &State, me: Color) -> (f64, Material) {
    let prior = CountingPrior::new(state, me);
    let board = state.board();
    let mut material = 0.0;
    let mut mobility = 0.0;
    let mut advance = 0.0;
    let mut marshals: [Option<(Square, Piece)>; 2] = [None, None];
    let mut sides = Material { own: 0.0, opponent: 0.0 };
    for (sq, piece) in board.pieces() {
        let sign = if piece.color == me { 1.0 } else { -1.0 };
        // `flag_share`: the part of `worth` that is the Flag's, which the
        // sides' material (the press's lead) leaves out.
        let (worth, movable, flag_share) = if piece.color == me || piece.revealed {
            let flag = if piece.kind == PieceType::Flag { value(PieceType::Flag) } else { 0.0 };
            (value(piece.kind), piece.kind.is_movable() as u8 as f64, flag)
        } else {
            let dist = prior.of(&piece);
            let flag = dist[PieceType::Flag.index()] as f64;
            let immovable = dist[PieceType::Bomb.index()] as f64 + flag;
            (expected_value(dist), 1.0 - immovable, flag * value(PieceType::Flag))
        };
        material += sign * worth;
        let side = if piece.color == me { &mut sides.own } else { &mut sides.opponent };
        *side += worth - flag_share;
        if movable > 0.0 {
            mobility += sign * movable * free_neighbours(state, sq);
            advance += sign * movable * sq.in_frame(piece.color).row() as f64;
        }
        if piece.kind == PieceType::Marshal && (piece.color == me || piece.revealed) {
            marshals[piece.color.index()] = Some((sq, piece));
        }
    }
    let mut danger = 0.0;
    for (sq, marshal) in marshals.into_iter().flatten().filter(|(_, m)| m.revealed) {
        let owner = marshal.color;
        let spy_alive = if owner == me {
            prior.unknown[PieceType::Spy.index()] > 0
                || board.pieces().any(|(_, p)| p.color != me && p.revealed && p.kind == PieceType::Spy)
        } else {
            board.pieces().any(|(_, p)| p.color == me && p.kind == PieceType::Spy)
        };
        if !spy_alive {
            continue;
        }
        let spy_to_move = state.to_move() != owner;
        let adjacent_spy = sq
            .neighbours()
            .filter_map(|n| board[n])
            .filter(|p| p.color != owner)
            .map(|p| chance_of(&p, PieceType::Spy, me, &prior))
            .fold(0.0, f64::max);
        let share = MARSHAL_EXPOSED + if spy_to_move { SPY_NEXT_TO_MARSHAL * adjacent_spy } else { 0.0 };
        let sign = if owner == me { -1.0 } else { 1.0 };
        danger += sign * share * value(PieceType::Marshal);
    }
    (material + MOBILITY_WEIGHT * mobility + ADVANCE_WEIGHT * advance + danger, sides)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(board: &str, side: &str) -> State {
        let rules = "stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200";
        State::deserialize(&format!("{rules} {board} {side} 10 3")).unwrap()
    }

    #[test]
    fn material_counts_hidden_pieces_at_their_expected_value() {
        // Red: Flag, Marshal (hidden). Blue: Flag and a Bomb, both hidden and unmoved.
        let s = state(
            "f.......b./........../........../........../..~~..~~../..~~..~~../........../........../....M...../F.........",
            "red",
        );
        let prior = CountingPrior::new(&s, Color::Red);
        let hidden = expected_value(prior.unmoved());
        assert!((hidden - 0.5 * (value(PieceType::Flag) + value(PieceType::Bomb))).abs() < 1e-3);
        let mobility = 4.0 - 0.0; // the Marshal on e2 has 4 free neighbours; Blue's pieces are immovable
        let advance = 1.0; // the Marshal stands on Red's second row
        let expected = value(PieceType::Flag) + value(PieceType::Marshal) - 2.0 * hidden
            + MOBILITY_WEIGHT * mobility
            + ADVANCE_WEIGHT * advance;
        assert!((evaluate(&s, Color::Red) - expected).abs() < 1e-3);
    }

    #[test]
    fn a_revealed_marshal_next_to_a_possible_spy_is_in_danger() {
        // Red's revealed Marshal on e5; Blue has two hidden moved pieces, its
        // Spy and a Scout, one of them on e6 next to the Marshal.
        let scout_next = "f........s+/........../........../........../..~~o+.~~../..~~M^.~~../........../........../........../F.........";
        let spy_next = "f........o+/........../........../........../..~~s+.~~../..~~M^.~~../........../........../........../F.........";
        // Red cannot tell the two apart, and neither can its evaluation.
        let blue_to_move = evaluate(&state(scout_next, "blue"), Color::Red);
        assert_eq!(blue_to_move, evaluate(&state(spy_next, "blue"), Color::Red));
        // With Blue to move the piece on e6 (a Spy with probability 1/2) may
        // strike next ply: that costs 0.6 * 1/2 of the Marshal's value more
        // than with Red to move.
        let red_to_move = evaluate(&state(scout_next, "red"), Color::Red);
        let extra = SPY_NEXT_TO_MARSHAL * 0.5 * value(PieceType::Marshal);
        assert!((red_to_move - blue_to_move - extra).abs() < 1e-3, "{red_to_move} {blue_to_move}");
    }

    /// The afterstate player's lead (`press::view_lead`, from its view) is
    /// the lead this evaluation presses on (from the state), for the side
    /// to move, over random games with battles and revealed pieces.
    #[test]
    fn the_view_lead_is_the_evaluations_lead() {
        use rand::SeedableRng;
        use stratego_engine::{Ruleset, Setup};
        use stratego_players::view::{public_history, InfoView};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(16);
        let mut compared = 0;
        for _ in 0..20 {
            let rules = Ruleset::classic();
            let (red, blue) = (Setup::random(rules.piece_set, &mut rng), Setup::random(rules.piece_set, &mut rng));
            let mut s = State::from_setups(rules, &red, &blue).unwrap();
            while !s.is_terminal() && s.ply() < 300 {
                if s.ply() % 10 == 0 {
                    let history = public_history(&s);
                    let (_, material) = terms(&s, s.to_move());
                    let view = crate::press::view_lead(&InfoView::new(&s, &history));
                    let lead = material.own - material.opponent;
                    assert!((view - lead).abs() < 1e-3, "ply {}: view {view}, state {lead}", s.ply());
                    compared += 1;
                }
                let mv = s.sample_legal_move(&mut rng).unwrap();
                s.apply_move(mv).unwrap();
            }
        }
        assert!(compared > 200, "{compared}");
    }

    /// The press: nothing when not ahead; when ahead, a step towards the
    /// hidden enemy piece scores higher than the same step away from it.
    #[test]
    fn the_press_pulls_towards_hidden_pieces_only_when_ahead() {
        // Blue: the Flag (hidden, a10) and a hidden Bomb (c10). Red: its
        // Flag and a Colonel on e6, or on e5, one square further from c10.
        let near = "f.b......./........../........../........../..~~C.~~../..~~..~~../........../........../........../.........F";
        let far = "f.b......./........../........../........../..~~..~~../..~~C.~~../........../........../........../.........F";
        let (near, far) = (state(near, "blue"), state(far, "blue"));
        let pressed = evaluate_pressing(&near, Color::Red) - evaluate_pressing(&far, Color::Red);
        let plain = evaluate(&near, Color::Red) - evaluate(&far, Color::Red);
        assert!(
            (pressed - plain - PRESS_WEIGHT).abs() < 1e-9,
            "one square closer is worth PRESS_WEIGHT: {pressed} {plain}"
        );
        // Blue is behind here: for Blue the press is nothing.
        assert_eq!(evaluate_pressing(&near, Color::Blue), evaluate(&near, Color::Blue));
    }
}
