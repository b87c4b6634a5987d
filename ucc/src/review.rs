//! How a game against an outside bot was won or lost, read from the real
//! referee's log: replayed in our engine (which knows both armies, as the
//! log does), it says whether the Flag fell and to what piece, how long that
//! piece's type had been known to the loser, which pieces died attacking
//! Bombs, and whether a Spy took a Marshal. These are the blunder classes
//! that decide games against the outside field (EVALUATION.md).

use std::fmt;

use stratego_engine::{BattleResult, Color, PieceType, Ruleset, Square, State};

use crate::protocol::RefereeLog;

/// The piece that took a Flag.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct FlagCapture {
    pub by: PieceType,
    /// Plies between the capturer's type becoming known to the Flag's owner
    /// (a battle or a Scout's run) and the capture; `None` if it never was.
    pub known_for: Option<u32>,
}

/// What happened in one game, for both sides (indexed by `Color::index`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Review {
    pub winner: Option<Color>,
    /// The referee's words: `Captured the flag`, `Destroyed all mobile enemy pieces`, ...
    pub reason: String,
    pub plies: u32,
    /// The side's Flag was taken.
    pub flag_lost: [Option<FlagCapture>; 2],
    /// The side's pieces that died attacking a Bomb, in order.
    pub died_on_bombs: [Vec<PieceType>; 2],
    /// The side's Marshal was taken by an attacking Spy.
    pub marshal_to_spy: [bool; 2],
}

impl Review {
    /// Reviews a referee log; the text says why one cannot be read.
    pub fn of_log(text: &str) -> Result<Review, String> {
        let log = RefereeLog::parse(text)?;
        let rules = Ruleset { max_plies: u32::MAX, ..Ruleset::referee() };
        let mut state = State::from_setups(rules, &log.red, &log.blue).map_err(|e| e.to_string())?;
        // When each piece (by its origin) became known to its opponent.
        let mut revealed_at: std::collections::HashMap<Square, u32> = Default::default();
        for (i, (mv, _)) in log.moves.iter().enumerate() {
            state.apply_move(*mv).map_err(|e| format!("move {} ({mv}): {e}", i + 1))?;
            for (_, piece) in state.board().pieces() {
                if piece.revealed {
                    revealed_at.entry(piece.origin).or_insert(state.ply());
                }
            }
        }
        let mut review = Review {
            winner: log.winner(),
            reason: log.reason.clone(),
            plies: state.ply(),
            flag_lost: [None, None],
            died_on_bombs: [Vec::new(), Vec::new()],
            marshal_to_spy: [false, false],
        };
        for death in state.deaths() {
            let side = death.piece.color.index();
            if death.as_attacker && death.opponent == PieceType::Bomb {
                review.died_on_bombs[side].push(death.piece.kind);
            }
            if death.piece.kind == PieceType::Marshal && death.opponent == PieceType::Spy && !death.as_attacker {
                review.marshal_to_spy[side] = true;
            }
        }
        if let Some(last) = state.history().last() {
            let took_flag =
                last.battle.is_some_and(|b| b.defender == PieceType::Flag && b.result == BattleResult::AttackerWins);
            if took_flag {
                let known_for = revealed_at.get(&last.origin).map(|&at| state.ply().saturating_sub(at));
                review.flag_lost[last.player.opponent().index()] = Some(FlagCapture { by: last.piece, known_for });
            }
        }
        Ok(review)
    }

    /// Why `side` lost (or `None` if it did not), in words:
    /// `Flag taken by a Miner known for 6 plies; 3 died on Bombs (Colonel, Major, Captain)`.
    pub fn loss(&self, side: Color) -> Option<String> {
        if self.winner != Some(side.opponent()) {
            return None;
        }
        let mut parts = vec![match self.flag_lost[side.index()] {
            Some(FlagCapture { by, known_for: Some(k) }) => format!("Flag taken by a {by} known for {k} plies"),
            Some(FlagCapture { by, known_for: None }) => format!("Flag taken by an unknown {by}"),
            None => self.reason.to_lowercase(),
        }];
        parts.extend(self.blunders(side));
        Some(parts.join("; "))
    }

    /// The side's blunders on the way, whatever the result.
    pub fn blunders(&self, side: Color) -> Vec<String> {
        let mut parts = Vec::new();
        let bombs = &self.died_on_bombs[side.index()];
        if !bombs.is_empty() {
            let names: Vec<String> = bombs.iter().map(|t| t.to_string()).collect();
            parts.push(format!("{} died on Bombs ({})", bombs.len(), names.join(", ")));
        }
        if self.marshal_to_spy[side.index()] {
            parts.push("the Spy took the Marshal".into());
        }
        parts
    }

    /// Whether `side` lost its Flag to a Miner known for at least `plies`.
    pub fn flag_lost_to_known_miner(&self, side: Color, plies: u32) -> bool {
        matches!(self.flag_lost[side.index()], Some(FlagCapture { by: PieceType::Miner, known_for: Some(k) }) if k >= plies)
    }
}

impl fmt::Display for Review {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(w) => write!(f, "{w} wins ({}) at ply {}", self.reason, self.plies),
            None => write!(f, "draw ({}) at ply {}", self.reason, self.plies),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three plies and a surrender, as the referee writes them (at ply 3
    /// a Red and a Blue Scout meet, and both die).
    const LOG: &str = include_str!("../../tests/fixtures/ucc/three-plies-surrender.log");

    #[test]
    fn a_log_is_reviewed_by_replaying_it() {
        let review = Review::of_log(LOG).unwrap();
        assert_eq!(review.plies, 3);
        assert_eq!(review.winner, Some(Color::Red));
        assert_eq!(review.flag_lost, [None, None]);
        assert_eq!(review.loss(Color::Blue).unwrap(), "test");
        assert_eq!(review.loss(Color::Red), None);
        assert!(Review::of_log("nonsense").is_err());
    }
}
