//! The ruleset: every switch that changes the game, with a canonical text form
//! and a stable short id that snapshots, records and checkpoints carry.

use std::fmt;
use std::str::FromStr;

use crate::error::RulesError;
use crate::piece::PieceSet;

/// The version of the rules this code implements (docs/RULES.md). Bump it
/// whenever a rule's behaviour changes, so old records and checkpoints are
/// refused instead of silently reinterpreted.
pub const RULES_VERSION: u32 = 1;

/// The largest two-square limit the engine tracks.
pub const MAX_TWO_SQUARE_LIMIT: u8 = 15;

/// All the switches of a game of Stratego.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ruleset {
    pub piece_set: PieceSet,
    /// A piece may not cross the same square border more than this many
    /// times in a row; 0 disables the rule.
    pub two_square_limit: u8,
    /// ISF article 11 (more-squares / continuous chasing).
    pub chase_rule: bool,
    /// The game is drawn once this many plies have been played.
    pub max_plies: u32,
    /// The game is drawn once this many plies in a row had no battle.
    pub max_battleless_plies: u32,
}

impl Default for Ruleset {
    fn default() -> Self {
        Ruleset::classic()
    }
}

/// A short, stable identity of a ruleset: the first 4 bytes of the SHA-256
/// of its canonical text, written as 8 hex digits.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct RulesetId(pub [u8; 4]);

impl fmt::Display for RulesetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::short_id::write_hex(&self.0, f)
    }
}

impl FromStr for RulesetId {
    type Err = RulesError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::short_id::parse_hex(s).map(RulesetId).ok_or_else(|| RulesError::BadId(s.to_string()))
    }
}

impl Ruleset {
    /// Classic Stratego with the defaults of docs/RULES.md: two-square limit 3,
    /// chasing rule on, 4000 plies, 200 plies without a battle.
    pub const fn classic() -> Ruleset {
        Ruleset {
            piece_set: PieceSet::Classic,
            two_square_limit: 3,
            chase_rule: true,
            max_plies: 4000,
            max_battleless_plies: 200,
        }
    }

    /// Barrage (8 pieces a side) with the same rule switches as `classic`.
    pub const fn barrage() -> Ruleset {
        Ruleset { piece_set: PieceSet::Barrage, ..Ruleset::classic() }
    }

    /// Checks that the switches are within what the engine supports.
    pub fn validate(&self) -> Result<(), RulesError> {
        if self.two_square_limit > MAX_TWO_SQUARE_LIMIT {
            return Err(RulesError::Invalid {
                key: "two-square",
                why: format!("{} is above the largest supported limit {MAX_TWO_SQUARE_LIMIT}", self.two_square_limit),
            });
        }
        if self.max_plies == 0 {
            return Err(RulesError::Invalid { key: "max-plies", why: "must be at least 1".into() });
        }
        if self.max_battleless_plies == 0 {
            return Err(RulesError::Invalid { key: "max-battleless", why: "must be at least 1".into() });
        }
        Ok(())
    }

    /// The canonical text, e.g.
    /// `stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200`.
    /// Every field is always written, in this order, so equal rulesets have
    /// equal texts and equal ids.
    pub fn canonical(&self) -> String {
        format!(
            "stratego-rules-v{RULES_VERSION}:pieces={},two-square={},chase={},max-plies={},max-battleless={}",
            self.piece_set.name(),
            self.two_square_limit,
            if self.chase_rule { "on" } else { "off" },
            self.max_plies,
            self.max_battleless_plies,
        )
    }

    pub fn id(&self) -> RulesetId {
        RulesetId(crate::short_id::of(&self.canonical()))
    }

    /// Fails with an error naming both rulesets unless `other` is this one.
    pub fn expect_same(&self, other: &Ruleset) -> Result<(), RulesError> {
        if self == other {
            Ok(())
        } else {
            Err(RulesError::Mismatch {
                expected: format!("{} ({})", self.id(), self.canonical()),
                found: format!("{} ({})", other.id(), other.canonical()),
            })
        }
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl FromStr for Ruleset {
    type Err = RulesError;

    /// Parses the canonical text. Fields may come in any order but every one
    /// must be present exactly once, and the version must be this engine's.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (version, fields) = s
            .split_once(':')
            .ok_or_else(|| RulesError::Malformed(format!("`{s}` has no `stratego-rules-vN:` prefix")))?;
        let expected_version = format!("stratego-rules-v{RULES_VERSION}");
        if version != expected_version {
            return Err(RulesError::Version { found: version.to_string(), expected: expected_version });
        }
        let mut piece_set = None;
        let mut two_square = None;
        let mut chase = None;
        let mut max_plies = None;
        let mut max_battleless = None;
        for field in fields.split(',') {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| RulesError::Malformed(format!("field `{field}` is not key=value")))?;
            let invalid = |why: &str| RulesError::Invalid { key: static_key(key), why: format!("`{value}` {why}") };
            let slot_taken = match key {
                "pieces" => piece_set
                    .replace(PieceSet::from_name(value).ok_or_else(|| invalid("is not classic or barrage"))?)
                    .is_some(),
                "two-square" => {
                    two_square.replace(value.parse::<u8>().map_err(|_| invalid("is not a number 0-15"))?).is_some()
                }
                "chase" => chase
                    .replace(match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(invalid("is not on or off")),
                    })
                    .is_some(),
                "max-plies" => {
                    max_plies.replace(value.parse::<u32>().map_err(|_| invalid("is not a whole number"))?).is_some()
                }
                "max-battleless" => max_battleless
                    .replace(value.parse::<u32>().map_err(|_| invalid("is not a whole number"))?)
                    .is_some(),
                other => return Err(RulesError::Malformed(format!("unknown ruleset key `{other}`"))),
            };
            if slot_taken {
                return Err(RulesError::Malformed(format!("ruleset key `{key}` appears twice")));
            }
        }
        let missing = |key: &str| RulesError::Malformed(format!("ruleset key `{key}` is missing"));
        let rules = Ruleset {
            piece_set: piece_set.ok_or_else(|| missing("pieces"))?,
            two_square_limit: two_square.ok_or_else(|| missing("two-square"))?,
            chase_rule: chase.ok_or_else(|| missing("chase"))?,
            max_plies: max_plies.ok_or_else(|| missing("max-plies"))?,
            max_battleless_plies: max_battleless.ok_or_else(|| missing("max-battleless"))?,
        };
        rules.validate()?;
        Ok(rules)
    }
}

fn static_key(key: &str) -> &'static str {
    match key {
        "pieces" => "pieces",
        "two-square" => "two-square",
        "chase" => "chase",
        "max-plies" => "max-plies",
        "max-battleless" => "max-battleless",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_text_round_trips() {
        for rules in [
            Ruleset::classic(),
            Ruleset::barrage(),
            Ruleset { two_square_limit: 5, chase_rule: false, max_plies: 2000, ..Ruleset::classic() },
        ] {
            let text = rules.canonical();
            assert_eq!(text.parse::<Ruleset>().unwrap(), rules);
            assert_eq!(rules.id().to_string().parse::<RulesetId>().unwrap(), rules.id());
        }
        assert_eq!(
            Ruleset::classic().canonical(),
            "stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200"
        );
    }

    #[test]
    fn ids_differ_when_any_switch_differs() {
        let base = Ruleset::classic();
        let variants = [
            Ruleset::barrage(),
            Ruleset { two_square_limit: 5, ..base },
            Ruleset { chase_rule: false, ..base },
            Ruleset { max_plies: 3999, ..base },
            Ruleset { max_battleless_plies: 100, ..base },
        ];
        for v in variants {
            assert_ne!(v.id(), base.id(), "{v}");
        }
    }

    #[test]
    fn malformed_rulesets_are_errors() {
        let good = Ruleset::classic().canonical();
        for bad in [
            "".to_string(),
            "stratego-rules-v2:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200".into(),
            good.replace("classic", "huge"),
            good.replace("two-square=3", "two-square=99"),
            good.replace("chase=on", "chase=maybe"),
            good.replace(",max-battleless=200", ""),
            good.replace("max-plies=4000", "max-plies=0"),
            format!("{good},pieces=classic"),
            format!("{good},colour=red"),
        ] {
            let err = bad.parse::<Ruleset>().unwrap_err();
            assert!(!err.to_string().is_empty());
        }
    }

    #[test]
    fn mismatch_names_both() {
        let a = Ruleset::classic();
        let b = Ruleset { chase_rule: false, ..a };
        let msg = a.expect_same(&b).unwrap_err().to_string();
        assert!(msg.contains(&a.id().to_string()) && msg.contains(&b.id().to_string()), "{msg}");
    }
}
