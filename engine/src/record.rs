//! Game records: the ruleset, both setups and the moves. Replaying one is
//! deterministic, and a record names its ruleset by canonical text and id so
//! that it is never replayed under other rules.
//!
//! ```text
//! stratego-record v1
//! rules stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200
//! rules-id 1a2b3c4d
//! red <40 letters>
//! blue <40 letters>
//! moves a4-a5 j7-j6 ...
//! result red-wins flag-captured
//! ```
//! `result` is optional; when present, replay checks it. A game that a side
//! forfeited (`result red-wins forfeit`) ends after its moves by the loser's
//! forfeit, which replay applies (`State::forfeit`).

use crate::action::Move;
use crate::error::Error;
use crate::piece::Color;
use crate::rules::{Ruleset, RulesetId};
use crate::setup::Setup;
use crate::state::{EndReason, Outcome, State};

const HEADER: &str = "stratego-record v1";

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GameRecord {
    pub rules: Ruleset,
    pub red: Setup,
    pub blue: Setup,
    pub moves: Vec<Move>,
    pub result: Option<Outcome>,
}

impl GameRecord {
    /// The record of a game that started from setups.
    pub fn new(rules: Ruleset, red: Setup, blue: Setup, state: &State) -> GameRecord {
        GameRecord { rules, red, blue, moves: state.history().iter().map(|r| r.mv).collect(), result: state.outcome() }
    }

    pub fn to_text(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
        let mut text = format!(
            "{HEADER}\nrules {}\nrules-id {}\nred {}\nblue {}\nmoves {}\n",
            self.rules,
            self.rules.id(),
            self.red,
            self.blue,
            moves.join(" ")
        );
        if let Some(result) = self.result {
            text.push_str(&format!("result {result}\n"));
        }
        text
    }

    pub fn parse(text: &str) -> Result<GameRecord, Error> {
        let bad = |msg: String| Error::Record(msg);
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        if lines.next() != Some(HEADER) {
            return Err(bad(format!("the first line must be `{HEADER}`")));
        }
        let mut fields = std::collections::BTreeMap::new();
        for line in lines {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            if !["rules", "rules-id", "red", "blue", "moves", "result"].contains(&key) {
                return Err(bad(format!("unknown line `{key}`")));
            }
            if fields.insert(key, value.trim()).is_some() {
                return Err(bad(format!("line `{key}` appears twice")));
            }
        }
        let field = |key: &str| fields.get(key).copied().ok_or_else(|| bad(format!("line `{key}` is missing")));
        let rules: Ruleset = field("rules")?.parse()?;
        let id: RulesetId = field("rules-id")?.parse()?;
        if id != rules.id() {
            return Err(bad(format!(
                "rules-id {id} does not match the ruleset text, whose id is {} ({rules})",
                rules.id()
            )));
        }
        let setup = |color: Color| {
            Setup::parse(field(color.name())?, rules.piece_set).map_err(|source| Error::Setup { color, source })
        };
        let (red, blue) = (setup(Color::Red)?, setup(Color::Blue)?);
        let moves = field("moves")?
            .split_whitespace()
            .enumerate()
            .map(|(i, m)| m.parse().map_err(|e| Error::AtPly { ply: i + 1, source: Box::new(Error::from(e)) }))
            .collect::<Result<Vec<Move>, Error>>()?;
        let result = match fields.get("result") {
            None => None,
            Some(text) => Some(Outcome::parse(text).ok_or_else(|| bad(format!("`{text}` is not a result")))?),
        };
        Ok(GameRecord { rules, red, blue, moves, result })
    }

    /// Replays the moves; fails on the first illegal one, or if the recorded
    /// result differs from the replayed one.
    pub fn replay(&self) -> Result<State, Error> {
        let mut state = State::from_setups(self.rules, &self.red, &self.blue)?;
        for (i, &mv) in self.moves.iter().enumerate() {
            state.apply_move(mv).map_err(|e| Error::AtPly { ply: i + 1, source: Box::new(e) })?;
        }
        if let Some(Outcome { winner: Some(winner), reason: EndReason::Forfeit }) = self.result {
            state.forfeit(winner.opponent()).map_err(|_| {
                Error::Record(format!(
                    "recorded result `{winner}-wins forfeit`, but the game was already over after its moves"
                ))
            })?;
        }
        if let Some(expected) = self.result {
            let found = state.outcome();
            if found != Some(expected) {
                let found = found.map_or("unfinished".to_string(), |o| o.to_string());
                return Err(Error::Record(format!("recorded result `{expected}` but the replay gives `{found}`")));
            }
        }
        Ok(state)
    }

    /// `replay`, refusing a record written under another ruleset.
    pub fn replay_under(&self, expected: &Ruleset) -> Result<State, Error> {
        expected.expect_same(&self.rules)?;
        self.replay()
    }
}
