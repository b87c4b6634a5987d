//! The CoToan game state: settings, board, side to move and elapsed plies.
//!
//! Nothing else is needed: every rule looks only at the board, the side to
//! move, the ply count and the settings, and the scores follow from the
//! board (captures remove pieces and no rule creates them). So the state is
//! exactly its snapshot, and two states are equal when their snapshots are.

use std::fmt;

use crate::board::{zero_home, Board, Piece, TOTAL_VALUE};
use crate::error::CoToanError;
use crate::moves::{generate, LegalMove, Move, Witness, NUM_ACTIONS};
use crate::observation;
use crate::settings::{HorizonRule, Settings};
use stratego_contract::snapshot;
use stratego_contract::ActionId;
use stratego_contract::Color;

stratego_contract::end_reasons! {
    /// Why a game ended. The checks run in this order at the root and after
    /// every ply.
    pub enum EndReason {
        /// A side's 0 was captured; the capturer wins.
        ZeroCaptured => "zero-captured",
        /// A side's score reached the (positive) threshold; it wins.
        Threshold => "threshold",
        /// The horizon was reached: adjudicated by the horizon rule.
        Horizon => "horizon",
        /// The side to move has no legal move; it loses.
        NoLegalMove => "no-legal-move",
    }
}

/// The result of a finished game: `red-wins threshold`, `draw horizon`.
pub type Outcome = stratego_contract::api::Outcome<EndReason>;

/// A CoToan game at one moment.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct CoToanState {
    settings: Settings,
    board: Board,
    to_move: Color,
    ply: u32,
    /// Derived from the four fields above (cached).
    outcome: Option<Outcome>,
    /// The side to move's candidate moves, sorted by action id (derived,
    /// cached; empty when the game is over).
    legal: Vec<LegalMove>,
}

impl CoToanState {
    /// The starting position of a task.
    pub fn new(settings: Settings) -> Result<CoToanState, CoToanError> {
        CoToanState::from_parts(settings, Board::initial(), settings.starting_player, 0)
    }

    /// A state from its parts, checked to be well formed:
    /// - the settings are valid;
    /// - each side's 0, while on the board, stands on its home square (zeros
    ///   never move), and at most one 0 is missing, the side to move's (its
    ///   capture was the last ply and ended the game);
    /// - the elapsed plies are within the horizon, and the side to move is the
    ///   one the starting player and the ply count's parity give;
    /// - with a positive threshold, at most one side has reached it, and not
    ///   the side to move (reaching it ended the game at once).
    ///
    /// The board itself already holds each identity at most once.
    pub fn from_parts(settings: Settings, board: Board, to_move: Color, ply: u32) -> Result<CoToanState, CoToanError> {
        settings.validate()?;
        let ill = |why: String| Err(CoToanError::IllFormed(why));
        for side in Color::BOTH {
            let zero = Piece { side, value: 0 };
            match board.find(zero) {
                Some(sq) if sq != zero_home(side) => {
                    return ill(format!("{side}'s 0 stands on {sq}, but zeros never leave {}", zero_home(side)))
                }
                None if side != to_move => {
                    return ill(format!(
                        "{side}'s 0 is missing but {to_move} is to move: the side whose 0 was captured moves next"
                    ))
                }
                _ => {}
            }
        }
        if ply > settings.horizon {
            return ill(format!("ply {ply} is past the horizon {}", settings.horizon));
        }
        if to_move != settings.player_at(ply) {
            return ill(format!(
                "{to_move} cannot be to move at ply {ply} when {} starts (plies alternate)",
                settings.starting_player
            ));
        }
        if settings.threshold > 0 {
            let scores = Self::scores_of(&board);
            let reached: Vec<Color> =
                Color::BOTH.into_iter().filter(|c| scores[c.index()] >= settings.threshold).collect();
            if reached.len() == 2 {
                return ill(format!(
                    "both sides are past the threshold {} (red {}, blue {}): a game ends when the first reaches it",
                    settings.threshold, scores[0], scores[1]
                ));
            }
            if reached == [to_move] {
                return ill(format!(
                    "{to_move} is to move but already reached the threshold {}: the game ended when it did",
                    settings.threshold
                ));
            }
        }
        let mut state = CoToanState { settings, board, to_move, ply, outcome: None, legal: Vec::new() };
        state.refresh();
        Ok(state)
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The controller: the side to move (kept at the end too).
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Plies played since the start.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Plies left before the horizon.
    pub fn remaining_plies(&self) -> u32 {
        self.settings.horizon - self.ply
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn is_terminal(&self) -> bool {
        self.outcome.is_some()
    }

    /// OpenSpiel's `current_player`: `None` once the game is over.
    pub fn current_player(&self) -> Option<Color> {
        self.outcome.is_none().then_some(self.to_move)
    }

    /// (Red, Blue): the total value each has captured, 45 minus the
    /// opponent's surviving values.
    pub fn scores(&self) -> [u8; 2] {
        Self::scores_of(&self.board)
    }

    fn scores_of(board: &Board) -> [u8; 2] {
        [TOTAL_VALUE - board.surviving_value(Color::Blue), TOTAL_VALUE - board.surviving_value(Color::Red)]
    }

    /// Per player (Red, Blue): +1 win, -1 loss, 0 draw or not finished.
    pub fn returns(&self) -> [f32; 2] {
        self.outcome.map_or([0.0, 0.0], |o| o.returns())
    }

    /// The legal moves with their witnesses, sorted by action id; empty once
    /// the game is over.
    pub fn legal_moves_with_witnesses(&self) -> &[LegalMove] {
        &self.legal
    }

    /// The legal moves (endpoints), sorted by action id.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.legal.iter().map(|m| m.mv).collect()
    }

    /// The legal action ids, sorted.
    pub fn legal_actions(&self) -> Vec<ActionId> {
        self.legal.iter().map(LegalMove::action).collect()
    }

    /// A 9801-long mask of the legal action ids.
    pub fn legal_action_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; NUM_ACTIONS];
        for m in &self.legal {
            mask[m.action() as usize] = true;
        }
        mask
    }

    /// The arithmetic witnesses of a legal capture, in operator order: empty
    /// for an ordinary move and for an action that is not legal now.
    pub fn capture_witnesses(&self, action: ActionId) -> Vec<Witness> {
        self.find_legal(action).map_or(Vec::new(), |m| m.witnesses())
    }

    fn find_legal(&self, action: ActionId) -> Option<&LegalMove> {
        self.legal.binary_search_by_key(&action, LegalMove::action).ok().map(|i| &self.legal[i])
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        self.find_legal(mv.action()).is_some()
    }

    /// Plays an action id of the side to move; an illegal one is an error
    /// that says why and leaves the state unchanged.
    pub fn apply_action(&mut self, action: ActionId) -> Result<(), CoToanError> {
        let mv = Move::from_action(action).ok_or(CoToanError::BadAction(action as u32))?;
        self.apply_move(mv)
    }

    /// Plays a move of the side to move.
    pub fn apply_move(&mut self, mv: Move) -> Result<(), CoToanError> {
        if self.outcome.is_some() {
            return Err(CoToanError::GameOver);
        }
        if !self.is_legal(mv) {
            return Err(CoToanError::IllegalMove { mv: mv.to_string(), why: self.why_illegal(mv) });
        }
        self.board.relocate(mv.from, mv.to);
        self.ply += 1;
        self.to_move = self.to_move.opponent();
        self.refresh();
        Ok(())
    }

    /// The state after `mv`, leaving this one as it is.
    pub fn child(&self, mv: Move) -> Result<CoToanState, CoToanError> {
        let mut next = self.clone();
        next.apply_move(mv)?;
        Ok(next)
    }

    /// `c4-e6` for an ordinary move, `c4xf4` for a capture, of the side to
    /// move; `invalid-action-N` for an id that names no move.
    pub fn action_to_string(&self, action: ActionId) -> String {
        match Move::from_action(action) {
            Some(mv) if self.board[mv.to].is_some_and(|p| p.side != self.to_move) => {
                format!("{}x{}", mv.from, mv.to)
            }
            Some(mv) => mv.to_string(),
            None => format!("invalid-action-{action}"),
        }
    }

    /// Decides whether the game is over and lists the candidate moves. The
    /// moves come first and do not depend on the end checks; the end checks
    /// run in the documented order: a 0 captured, threshold, horizon, no move.
    fn refresh(&mut self) {
        let moves = generate(&self.board, self.to_move, self.settings.operators);
        let scores = self.scores();
        let zero_missing =
            Color::BOTH.into_iter().find(|&side| self.board[zero_home(side)] != Some(Piece { side, value: 0 }));
        let threshold_reached = (self.settings.threshold > 0)
            .then(|| Color::BOTH.into_iter().find(|c| scores[c.index()] >= self.settings.threshold))
            .flatten();
        self.outcome = if let Some(loser) = zero_missing {
            Some(Outcome { winner: Some(loser.opponent()), reason: EndReason::ZeroCaptured })
        } else if let Some(winner) = threshold_reached {
            Some(Outcome { winner: Some(winner), reason: EndReason::Threshold })
        } else if self.ply >= self.settings.horizon {
            let winner = match self.settings.horizon_rule {
                HorizonRule::Draw => None,
                HorizonRule::Score if scores[0] > scores[1] => Some(Color::Red),
                HorizonRule::Score if scores[1] > scores[0] => Some(Color::Blue),
                HorizonRule::Score => None,
            };
            Some(Outcome { winner, reason: EndReason::Horizon })
        } else if moves.is_empty() {
            Some(Outcome { winner: Some(self.to_move.opponent()), reason: EndReason::NoLegalMove })
        } else {
            None
        };
        self.legal = if self.outcome.is_some() { Vec::new() } else { moves };
    }

    /// Explains why a move the side to move asked for is not legal.
    fn why_illegal(&self, mv: Move) -> String {
        let side = self.to_move;
        let mover = match self.board[mv.from] {
            None => return format!("there is no piece on {}", mv.from),
            Some(p) if p.side != side => return format!("the piece on {} is not {side}'s", mv.from),
            Some(p) if p.value == 0 => return "a 0 never moves".to_string(),
            Some(p) => p,
        };
        let Some((dir, distance)) = mv.from.line_to(mv.to) else {
            return format!("{} and {} are not on one straight or diagonal line", mv.from, mv.to);
        };
        match self.board[mv.to] {
            Some(p) if p.side == side => format!("{} holds an own piece", mv.to),
            None => {
                if let Some(k) =
                    (1..distance).find(|&k| mv.from.offset(dir, k).is_some_and(|sq| self.board[sq].is_some()))
                {
                    let blocker = mv.from.offset(dir, k).expect("k is below the distance to a board square");
                    format!("the path is blocked by the piece on {blocker}")
                } else {
                    format!(
                        "out of range: a {} moves at most {} square(s), {} is {distance} away",
                        mover.value, mover.value, mv.to
                    )
                }
            }
            Some(_) => {
                let support = mv.from.step(dir).expect("the line continues towards the target");
                match self.board[support] {
                    Some(p) if p.side == side && support != mv.to => format!(
                        "no enabled operator ({}) turns {} and the support's {} into the distance {} from {support} to {} with the squares between empty",
                        self.settings.operators.to_text(),
                        mover.value,
                        p.value,
                        distance - 1,
                        mv.to
                    ),
                    _ => format!(
                        "a capture needs an own support on {support}, next to the attacker on the line to the target; ordinary moves never capture"
                    ),
                }
            }
        }
    }

    /// The snapshot: `<settings> <board> <side> <ply>`, e.g.
    /// `cotoan-rules-v1:threshold=0,... b9b8.../.../r1r2... red 0`. It carries
    /// the complete settings; `deserialize` gives an equal state.
    pub fn serialize(&self) -> String {
        format!("{} {} {} {}", self.settings.canonical(), self.board.to_text(), self.to_move, self.ply)
    }

    /// Reads `serialize`'s text, checking that the state is well formed.
    pub fn deserialize(text: &str) -> Result<CoToanState, CoToanError> {
        let fields = snapshot::fields(text, &["settings", "board", "side", "ply"]).map_err(CoToanError::Snapshot)?;
        let settings: Settings = fields[0].parse()?;
        let board = Board::from_text(fields[1])?;
        let to_move = match fields[2] {
            "red" => Color::Red,
            "blue" => Color::Blue,
            other => return Err(CoToanError::Snapshot(format!("side `{other}` is not red or blue"))),
        };
        let ply = fields[3]
            .parse::<u32>()
            .map_err(|_| CoToanError::Snapshot(format!("ply `{}` is not a whole number", fields[3])))?;
        CoToanState::from_parts(settings, board, to_move, ply)
    }

    /// `deserialize`, refusing a snapshot of another task with an error that
    /// names both task ids.
    pub fn deserialize_under(expected: &Settings, text: &str) -> Result<CoToanState, CoToanError> {
        snapshot::ensure_under(expected, text)?;
        CoToanState::deserialize(text)
    }

    /// The same game with the colours exchanged: the board rotated 180
    /// degrees with Red and Blue swapped, the other side to move, and the
    /// other starting player. Its legal moves are the rotated legal moves.
    pub fn color_swapped(&self) -> CoToanState {
        CoToanState::from_parts(
            self.settings.color_swapped(),
            self.board.color_swapped(),
            self.to_move.opponent(),
            self.ply,
        )
        .expect("the colour swap of a well-formed state is well formed")
    }

    /// The left-right mirror image (same colours and settings). Its legal
    /// moves are the mirrored legal moves.
    pub fn mirrored(&self) -> CoToanState {
        CoToanState::from_parts(self.settings, self.board.mirrored(), self.to_move, self.ply)
            .expect("the mirror image of a well-formed state is well formed")
    }

    /// The observation vector (docs/COTOAN.md, section 7).
    pub fn observation(&self) -> Vec<f32> {
        observation::observe(self)
    }
}

impl fmt::Display for CoToanState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.board.pretty())?;
        let [red, blue] = self.scores();
        match self.outcome {
            Some(o) => write!(f, "ply {}: {o} (score red {red}, blue {blue})", self.ply),
            None => write!(f, "ply {}: {} to move (score red {red}, blue {blue})", self.ply, self.to_move),
        }
    }
}

impl stratego_contract::GameState for CoToanState {
    type Error = CoToanError;

    // The state's own API, player ids for colours.
    stratego_contract::forward_game_state!(NUM_ACTIONS);

    /// The flat observation (`observation::observe`): perfect information
    /// in absolute squares, the same for both players.
    fn observation(&self, player: usize) -> Vec<f32> {
        assert!(player < 2, "CoToan has players 0 and 1, not {player}");
        observation::observe(self)
    }
}
