//! A full engine `State` (root, history and all) rebuilt from a player's
//! view, for players that feed the engine's observation planes to a network.
//!
//! The planes are computed from a `State` with its history: the full layout
//! follows each piece's interactions and deaths through the game, the
//! compact one shows the last move. A player has only its [`InfoView`]. But
//! every plane is a function of the public information (the engine's "no
//! leak" test swaps hidden types and compares the planes), so any state that
//! agrees with the view on everything public gives the same planes as the
//! true one. [`public_replay`] builds such a state:
//!
//! 1. It walks the public history backwards from the current board, moving
//!    piece tokens back: a plain move takes its piece from `to` back to
//!    `from`; a battle also puts back the fighter(s) it removed, whose types
//!    it made public. Once the first ply is undone every token stands on its
//!    starting square (identities are public, so this is checked for every
//!    piece still on the board). This works for any army, including Barrage
//!    setups that leave home squares empty.
//! 2. It gives the opponent's hidden pieces types drawn as
//!    [`determinize`](crate::determinize) does (the unknown Bombs and Flag
//!    only on pieces that never moved), from the view's unknown counts.
//! 3. It sets up that root position and replays the public moves with the
//!    engine, so the counters, the two-square and chasing records, the
//!    deaths and the revealed flags come out exactly as in the real game.
//!
//! The chasing rule compares whole placements, types included, so in a rare
//! corner a drawn assignment makes a played move look illegal or changes the
//! acting player's legal moves. The draw is then repeated. Every result is
//! checked against the view: the rebuilt state's view equals the given one,
//! except that the view may list only some of the legal moves (a player
//! that keeps its own progress rules under laxer ones sees only those they
//! allow).

use stratego_engine::{BattleResult, Board, Color, Piece, PieceType, Position, Square, State};

use crate::determinize::{draw_hidden_types, draw_hidden_types_weighted, TypeWeights};
use crate::player::AgentRng;
use crate::view::{Cell, InfoView, PublicPly};

/// Draws of the hidden types tried before giving up. One almost always
/// suffices: only the chasing rule's placement comparison can refuse one.
pub const ATTEMPTS: u32 = 16;

/// Why no state could be rebuilt from a view.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ReconstructError {
    #[error(
        "the view is at ply {ply} but its public history has {plies} plies: \
         only games started from two setups can be replayed"
    )]
    NotFromSetups { ply: u32, plies: usize },
    #[error("the public history does not lead to the board of the view: {0}")]
    Inconsistent(String),
    #[error("no draw of the opponent's hidden types replays the public history ({attempts} tried): {why}")]
    NoAssignment { attempts: u32, why: String },
}

/// A piece followed backwards through the game.
#[derive(Copy, Clone, Debug)]
struct Token {
    color: Color,
    /// Known for own pieces, revealed ones and the fallen (a battle shows
    /// both fighters); `None` for the opponent's hidden pieces.
    kind: Option<PieceType>,
    /// The starting square the view shows (pieces still on the board).
    origin: Option<Square>,
    /// Where the piece stands in the view (pieces still on the board): the
    /// key of its drawn type.
    now: Option<Square>,
}

/// A state whose root and whole history agree with everything `view`
/// knows, the opponent's hidden types drawn with `rng` (see the module
/// documentation). Its observation planes equal the true state's.
pub fn public_replay(view: &InfoView<'_>, rng: &mut AgentRng) -> Result<State, ReconstructError> {
    rebuild(view, None, rng)
}

/// [`public_replay`] with the hidden types drawn from `weight`
/// ([`draw_hidden_types_weighted`]: a belief model's), not the counting prior.
pub fn public_replay_weighted(
    view: &InfoView<'_>,
    weight: TypeWeights<'_>,
    rng: &mut AgentRng,
) -> Result<State, ReconstructError> {
    rebuild(view, Some(weight), rng)
}

fn rebuild(
    view: &InfoView<'_>,
    weight: Option<TypeWeights<'_>>,
    rng: &mut AgentRng,
) -> Result<State, ReconstructError> {
    let root = root_tokens(view)?;
    let hidden = root.iter().flatten().any(|t| t.kind.is_none());
    // Without hidden pieces every draw is the same: one attempt decides.
    let attempts = if hidden { ATTEMPTS } else { 1 };
    let mut why = String::new();
    for _ in 0..attempts {
        match replay(view, &root, weight, rng) {
            Ok(state) => return Ok(state),
            Err(Failure::Fatal(e)) => return Err(e),
            Err(Failure::Draw(reason)) => why = reason,
        }
    }
    Err(ReconstructError::NoAssignment { attempts, why })
}

/// The tokens on their starting squares: the view's board with the public
/// history undone.
fn root_tokens(view: &InfoView<'_>) -> Result<[Option<Token>; Square::COUNT], ReconstructError> {
    let history = view.history;
    if view.ply as usize != history.len() {
        return Err(ReconstructError::NotFromSetups { ply: view.ply, plies: history.len() });
    }
    let mut board: [Option<Token>; Square::COUNT] = [None; Square::COUNT];
    for (i, cell) in view.cells.iter().enumerate() {
        let now = Some(square(i));
        board[i] = match *cell {
            Cell::Empty => None,
            Cell::Own(p) => Some(Token { color: p.color, kind: Some(p.kind), origin: Some(p.origin), now }),
            Cell::Opponent(o) => Some(Token { color: view.opponent(), kind: o.known, origin: Some(o.origin), now }),
        };
    }
    for (i, ply) in history.iter().enumerate().rev() {
        undo(&mut board, ply).map_err(|what| {
            ReconstructError::Inconsistent(format!("ply {} ({} {}): {what}", i + 1, ply.player, ply.mv))
        })?;
        let expected = if i % 2 == 0 { Color::Red } else { Color::Blue };
        if ply.player != expected {
            return Err(ReconstructError::Inconsistent(format!(
                "ply {} is {}'s, but {expected} was to move",
                i + 1,
                ply.player
            )));
        }
    }
    for (i, token) in board.iter().enumerate() {
        if let Some(origin) = token.and_then(|t| t.origin).filter(|o| o.index() != i) {
            return Err(ReconstructError::Inconsistent(format!(
                "the piece that started on {origin} stands on {} before the first move",
                square(i)
            )));
        }
    }
    Ok(board)
}

/// Takes one ply back on the token board.
fn undo(board: &mut [Option<Token>; Square::COUNT], ply: &PublicPly) -> Result<(), String> {
    let (from, to) = (ply.mv.from.index(), ply.mv.to.index());
    let (player, opponent) = (ply.player, ply.player.opponent());
    if board[from].is_some() {
        return Err(format!("{} is occupied after the move", ply.mv.from));
    }
    let fallen = |color: Color, kind: PieceType| Some(Token { color, kind: Some(kind), origin: None, now: None });
    // The token on `to`, which must be `color`'s and, when the ply shows its
    // type (a battle, or a Scout's run), of that type.
    let survivor = |board: &[Option<Token>; Square::COUNT], color: Color, shown: Option<PieceType>| {
        let token =
            board[to].filter(|t| t.color == color).ok_or_else(|| format!("no {color} piece on {}", ply.mv.to))?;
        match (shown, token.kind) {
            (Some(seen), Some(kind)) if seen != kind => {
                Err(format!("the piece on {} is a {kind}, the ply shows a {seen}", ply.mv.to))
            }
            // Battles and runs reveal for good, so the view must know it.
            (Some(seen), None) => Err(format!("the {seen} on {} is not revealed in the view", ply.mv.to)),
            _ => Ok(token),
        }
    };
    let run = (ply.mv.distance() > 1).then_some(PieceType::Scout);
    match ply.battle {
        None => {
            let mover = survivor(board, player, run)?;
            board[from] = Some(mover);
            board[to] = None;
        }
        Some(b) => match b.result {
            BattleResult::AttackerWins => {
                let mover = survivor(board, player, Some(b.attacker))?;
                board[from] = Some(mover);
                board[to] = fallen(opponent, b.defender);
            }
            BattleResult::DefenderWins => {
                survivor(board, opponent, Some(b.defender))?;
                board[from] = fallen(player, b.attacker);
            }
            BattleResult::BothRemoved => {
                if board[to].is_some() {
                    return Err(format!("both fighters died, yet {} is occupied", ply.mv.to));
                }
                board[to] = fallen(opponent, b.defender);
                board[from] = fallen(player, b.attacker);
            }
        },
    }
    Ok(())
}

/// Why one replay failed: a bad draw (try another) or a view that no draw
/// can fit.
enum Failure {
    Draw(String),
    Fatal(ReconstructError),
}

/// Draws the hidden types, sets up the root and replays the public history.
fn replay(
    view: &InfoView<'_>,
    root: &[Option<Token>; Square::COUNT],
    weight: Option<TypeWeights<'_>>,
    rng: &mut AgentRng,
) -> Result<State, Failure> {
    let mut drawn = [None; Square::COUNT];
    let types = match weight {
        Some(weight) => draw_hidden_types_weighted(view, weight, rng),
        None => draw_hidden_types(view, rng),
    };
    for (sq, kind) in types {
        drawn[sq.index()] = Some(kind);
    }
    let mut board = Board::default();
    for (i, token) in root.iter().enumerate() {
        let Some(t) = token else { continue };
        let kind =
            t.kind.or_else(|| t.now.and_then(|now| drawn[now.index()])).expect("every hidden piece is drawn a type");
        board.set(square(i), Some(Piece::new(t.color, kind, square(i))));
    }
    let position = Position { rules: view.rules, board, to_move: Color::Red, ply: 0, battleless: 0 };
    let fatal = |why: String| Failure::Fatal(ReconstructError::Inconsistent(why));
    let mut state =
        State::from_position(position).map_err(|e| fatal(format!("the starting position is invalid: {e}")))?;
    for (i, ply) in view.history.iter().enumerate() {
        // A refusal can only come from the chasing rule's comparison of
        // placements with drawn types (everything else the ply shows is
        // public), so another draw may pass.
        state.apply_move(ply.mv).map_err(|e| Failure::Draw(format!("ply {} refused: {e}", i + 1)))?;
        let played = PublicPly::of(state.history().last().expect("a move was just played"));
        if played != *ply {
            return Err(fatal(format!("ply {} replays as {played:?}, the view has {ply:?}", i + 1)));
        }
    }
    let replayed = InfoView::new(&state, view.history);
    if replayed == *view {
        return Ok(state);
    }
    let rules_allow = replayed.legal_moves.clone();
    if (InfoView { legal_moves: view.legal_moves.clone(), ..replayed }) == *view {
        // A player that keeps its own progress rules under laxer ones sees
        // only the moves they allow (`ProgressTracker::restrict`): fewer than
        // the rules allow, never others.
        if view.legal_moves.iter().all(|mv| rules_allow.contains(mv)) {
            return Ok(state);
        }
        // The acting player's chase compares placements with drawn types.
        return Err(Failure::Draw("the replayed legal moves differ from the view's".into()));
    }
    Err(fatal("the replayed board, side to move or counters differ from the view".into()))
}

fn square(index: usize) -> Square {
    Square::new(index as u8).expect("board cells are below 100")
}
