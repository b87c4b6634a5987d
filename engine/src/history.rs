//! Per-piece interaction histories for the full observation set: whom each
//! piece threatened, evaded and stood actively next to, and the protection
//! relations it took part in (the Ataraxos board planes 43-108 and 251-354).
//!
//! A history is a set of *codes* of the other pieces involved, as the public
//! saw them at the time: a revealed piece by its type, a hidden one as
//! `UNKNOWN`, an empty square as `EMPTY`. Histories are derived from the
//! game's plies only (the engine state keeps the move history); `update`
//! extends them by one ply, `from_state` replays a whole game.
//!
//! The events, for a ply of player P moving a piece from `s` to `d`:
//! - *actively adjacent* (evaluated on the board before the move, i.e.
//!   during P's turn): P's pieces next to the opponent's last moved piece
//!   (if it survived) record its code; P's piece on P's previous
//!   destination, if still there, records the codes of every enemy next to
//!   it; if instead a revealed enemy stands there (it took P's piece), P's
//!   pieces next to it record its type.
//! - *threatened*: a non-attacking move records on the moving piece the codes
//!   of every enemy next to `d`.
//! - *evaded*: if the opponent's last moved piece E survived next to `s`, and
//!   P's piece moves (without attacking E) to a square not next to E's
//!   square, the moving piece records E's code.
//! - *protection*: a triple (protector R, protectee E, aggressor A) where E
//!   is next to A, R is next to E and R is not A; A is an enemy of P, E is
//!   P's piece or an empty square, R is P's piece. R records E's code in
//!   `protected` and A's in `protected_against`; E (if a piece) records R's
//!   code in `was_protected_by` and A's in `was_protected_against`. After
//!   each ply the triples are looked for around five centres: the opponent's
//!   last moved piece as A; P's moved piece (if it survived) as R; `d` as E
//!   unless the defender won; `d` as A if the defender won; `s` as E.

use crate::piece::{BattleResult, Color, Piece};
use crate::position::Board;
use crate::square::Square;
use crate::state::{PlyRecord, State};

/// Code of an empty square in the protection sets.
pub const EMPTY: u8 = 12;
/// Code of a hidden piece.
pub const UNKNOWN: u8 = 13;

/// The code of what stands on a square, as the public sees it now.
pub fn code_of(piece: Option<Piece>) -> u8 {
    match piece {
        None => EMPTY,
        Some(p) if p.revealed => p.kind.index() as u8,
        Some(_) => UNKNOWN,
    }
}

/// One piece's histories, each a bit set over codes (bit `c` = code `c`).
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct PieceHistory {
    pub threatened: u16,
    pub evaded: u16,
    pub actively_adjacent: u16,
    pub protected: u16,
    pub protected_against: u16,
    pub was_protected_by: u16,
    pub was_protected_against: u16,
}

impl PieceHistory {
    pub fn has(set: u16, code: u8) -> bool {
        set & (1 << code) != 0
    }
}

/// The histories of every piece of a game, keyed by the piece's identity
/// (its starting square: the two armies never share one).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HistoryFeatures {
    pieces: [PieceHistory; Square::COUNT],
    /// Plies of the game already folded in.
    plies: usize,
}

impl Default for HistoryFeatures {
    fn default() -> Self {
        HistoryFeatures { pieces: [PieceHistory::default(); Square::COUNT], plies: 0 }
    }
}

impl HistoryFeatures {
    /// The histories of a game, by replaying it from its root.
    pub fn from_state(state: &State) -> HistoryFeatures {
        let mut features = HistoryFeatures::default();
        let mut replay = State::from_position(state.root().clone()).expect("a state's root is valid");
        for record in state.history() {
            let before = replay.board().clone();
            replay.apply_move(record.mv).expect("a state's history is legal");
            features.update(&replay, &before);
        }
        features
    }

    /// Folds in the last ply of `state`, given the board before it. Plies
    /// must be folded in one at a time, in order.
    pub fn update(&mut self, state: &State, before: &Board) {
        let history = state.history();
        debug_assert_eq!(history.len(), self.plies + 1, "one ply at a time");
        self.plies = history.len();
        let Some(ply) = history.last() else { return };
        let n = history.len();
        let opponent_last = if n >= 2 { Some(&history[n - 2]) } else { None };
        let own_previous = if n >= 3 { Some(&history[n - 3]) } else { None };
        self.actively_adjacent(before, ply.player, opponent_last, own_previous);
        self.after_move(state.board(), before, ply, opponent_last);
    }

    /// The histories of `piece`.
    pub fn of(&self, piece: &Piece) -> &PieceHistory {
        &self.pieces[piece.origin.index()]
    }

    fn entry(&mut self, piece: Piece) -> &mut PieceHistory {
        &mut self.pieces[piece.origin.index()]
    }

    /// The opponent's last moved piece, where it stands, if it survived.
    fn survivor(board: &Board, record: Option<&PlyRecord>) -> Option<(Square, Piece)> {
        let record = record?;
        let piece = board[record.mv.to]?;
        (piece.origin == record.origin).then_some((record.mv.to, piece))
    }

    fn actively_adjacent(
        &mut self,
        before: &Board,
        player: Color,
        opponent_last: Option<&PlyRecord>,
        own_previous: Option<&PlyRecord>,
    ) {
        if let Some((at, enemy)) = HistoryFeatures::survivor(before, opponent_last) {
            let code = code_of(Some(enemy));
            for n in at.neighbours() {
                if let Some(p) = before[n].filter(|p| p.color == player) {
                    self.entry(p).actively_adjacent |= 1 << code;
                }
            }
        }
        if let Some(record) = own_previous {
            let here = record.mv.to;
            match before[here] {
                Some(mine) if mine.color == player => {
                    for n in here.neighbours() {
                        if let Some(enemy) = before[n].filter(|p| p.color != player) {
                            self.entry(mine).actively_adjacent |= 1 << code_of(Some(enemy));
                        }
                    }
                }
                Some(enemy) if enemy.revealed => {
                    for n in here.neighbours() {
                        if let Some(p) = before[n].filter(|p| p.color == player) {
                            self.entry(p).actively_adjacent |= 1 << enemy.kind.index();
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn after_move(&mut self, after: &Board, before: &Board, ply: &PlyRecord, opponent_last: Option<&PlyRecord>) {
        let player = ply.player;
        let (s, d) = (ply.mv.from, ply.mv.to);
        let mover = after[d].filter(|p| p.color == player && p.origin == ply.origin);
        let defender_won = ply.battle.is_some_and(|b| b.result == BattleResult::DefenderWins);

        if let Some(m) = mover {
            if ply.battle.is_none() {
                for n in d.neighbours() {
                    if let Some(enemy) = after[n].filter(|p| p.color != player) {
                        self.entry(m).threatened |= 1 << code_of(Some(enemy));
                    }
                }
            }
            if let Some((e_at, enemy)) = HistoryFeatures::survivor(before, opponent_last) {
                if e_at != d && s.is_adjacent(e_at) && !d.is_adjacent(e_at) {
                    self.entry(m).evaded |= 1 << code_of(Some(enemy));
                }
            }
        }

        if let Some(record) = opponent_last {
            if HistoryFeatures::survivor(before, Some(record)).is_some() {
                self.protections_around_aggressor(after, player, record.mv.to);
            }
        }
        if mover.is_some() {
            for e in d.neighbours() {
                for a in e.neighbours().filter(|&a| a != d) {
                    self.protect(after, player, d, e, a);
                }
            }
        }
        if defender_won {
            self.protections_around_aggressor(after, player, d);
        } else {
            self.protections_around_protectee(after, player, d);
        }
        self.protections_around_protectee(after, player, s);
    }

    fn protections_around_aggressor(&mut self, board: &Board, player: Color, a: Square) {
        for e in a.neighbours() {
            for r in e.neighbours().filter(|&r| r != a) {
                self.protect(board, player, r, e, a);
            }
        }
    }

    fn protections_around_protectee(&mut self, board: &Board, player: Color, e: Square) {
        for a in e.neighbours() {
            for r in e.neighbours().filter(|&r| r != a) {
                self.protect(board, player, r, e, a);
            }
        }
    }

    /// Records the triple if its pieces fit the pattern (see the module docs).
    fn protect(&mut self, board: &Board, player: Color, r: Square, e: Square, a: Square) {
        let (Some(protector), Some(aggressor)) = (board[r], board[a]) else { return };
        if protector.color != player || aggressor.color == player {
            return;
        }
        let protectee = board[e];
        if protectee.is_some_and(|p| p.color != player) {
            return;
        }
        let (r_code, e_code, a_code) = (code_of(Some(protector)), code_of(protectee), code_of(Some(aggressor)));
        let pr = self.entry(protector);
        pr.protected |= 1 << e_code;
        pr.protected_against |= 1 << a_code;
        if let Some(p) = protectee {
            let pe = self.entry(p);
            pe.was_protected_by |= 1 << r_code;
            pe.was_protected_against |= 1 << a_code;
        }
    }
}

/// The death causes of the full observation set, for a dead piece.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DeathCause {
    /// Attacked a revealed stronger piece (or a revealed Bomb).
    AttackedRevealedStronger = 0,
    /// Attacked a revealed equal piece (both died).
    AttackedRevealedEqual = 1,
    /// Attacked a hidden piece and lost or tied.
    AttackedHidden = 2,
    /// Was revealed, was attacked, and lost.
    RevealedDefenderLost = 3,
    /// Was revealed, was attacked, and tied.
    RevealedDefenderTied = 4,
    /// Was hidden, was attacked, and lost or tied.
    HiddenDefender = 5,
}

impl DeathCause {
    pub const COUNT: usize = 6;

    pub fn of(death: &crate::state::Death) -> DeathCause {
        let tie = death.opponent == death.piece.kind;
        match (death.as_attacker, tie) {
            (true, _) if !death.opponent_was_revealed => DeathCause::AttackedHidden,
            (true, true) => DeathCause::AttackedRevealedEqual,
            (true, false) => DeathCause::AttackedRevealedStronger,
            (false, _) if !death.piece.revealed => DeathCause::HiddenDefender,
            (false, true) => DeathCause::RevealedDefenderTied,
            (false, false) => DeathCause::RevealedDefenderLost,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            DeathCause::AttackedRevealedStronger => "attacked a revealed stronger piece",
            DeathCause::AttackedRevealedEqual => "attacked a revealed equal piece",
            DeathCause::AttackedHidden => "attacked a hidden piece and lost or tied",
            DeathCause::RevealedDefenderLost => "was attacked while revealed and weaker",
            DeathCause::RevealedDefenderTied => "was attacked while revealed and equal",
            DeathCause::HiddenDefender => "was attacked while hidden and lost or tied",
        }
    }
}
