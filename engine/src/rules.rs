//! The ruleset: every switch that changes the game, with a canonical text form
//! and a stable short id that snapshots, records and checkpoints carry.

use std::fmt;
use std::str::FromStr;

use crate::piece::PieceSet;
use stratego_contract::canonical::{CanonicalSettings, SettingsFamily, ShortId};

/// A ruleset text or id that cannot be used: the contract's settings-text
/// error (`canonical::SettingsError`) for Stratego's rulesets, whose
/// messages say `ruleset` (`malformed ruleset: ...`, `ruleset mismatch: ...`).
pub type RulesError = stratego_contract::canonical::SettingsError<Ruleset>;

/// The version of the rules this code implements (docs/RULES.md). Bump it
/// whenever a rule's behaviour changes, so old records and checkpoints are
/// refused instead of silently reinterpreted.
pub const RULES_VERSION: u32 = 1;

/// The largest two-square limit the engine tracks.
pub const MAX_TWO_SQUARE_LIMIT: u8 = 15;

/// The UCC 2012 referee's game length with `-m 1000`, as outside matches are
/// played: a draw after 999 full turns of two plies.
pub const REFEREE_MAX_PLIES: u32 = 1998;

/// The rulesets with a name, which every parser of a ruleset text accepts
/// in place of the canonical text (one table: the CLI's `--rules`, configs,
/// registrations).
pub const NAMED_RULESETS: [(&str, Ruleset); 3] =
    [("classic", Ruleset::classic()), ("barrage", Ruleset::barrage()), ("referee", Ruleset::referee())];

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
pub type RulesetId = ShortId<Ruleset>;

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

    /// Play as under the UCC 2012 referee, the one outside bot tournaments
    /// use: classic pieces, no two-square or more-squares rule (the referee
    /// enforces neither, so an opponent may shuffle), no cap on plies
    /// without a battle, and the referee's turn cap `-m 1000` (999 full
    /// turns, [`REFEREE_MAX_PLIES`]). A lab match under these rules meets
    /// what our players meet outside; players keep their own progress rules
    /// for their own moves (the self-restriction).
    pub const fn referee() -> Ruleset {
        Ruleset {
            piece_set: PieceSet::Classic,
            two_square_limit: 0,
            chase_rule: false,
            max_plies: REFEREE_MAX_PLIES,
            max_battleless_plies: u32::MAX,
        }
    }

    /// A named ruleset ([`NAMED_RULESETS`]), or `None`.
    pub fn named(name: &str) -> Option<Ruleset> {
        NAMED_RULESETS.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
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
        self.canonical_text()
    }

    pub fn id(&self) -> RulesetId {
        RulesetId::new(self.short_id())
    }

    /// Fails with an error naming both rulesets unless `other` is this one.
    pub fn expect_same(&self, other: &Ruleset) -> Result<(), RulesError> {
        self.ensure_same(other)
    }
}

impl CanonicalSettings for Ruleset {
    const FAMILY: SettingsFamily =
        SettingsFamily { name: "stratego-rules", version: RULES_VERSION, noun: "ruleset", id_noun: "ruleset" };
    const KEYS: &'static [&'static str] = &["pieces", "two-square", "chase", "max-plies", "max-battleless"];

    fn values(&self) -> Vec<String> {
        vec![
            self.piece_set.name().to_string(),
            self.two_square_limit.to_string(),
            if self.chase_rule { "on" } else { "off" }.to_string(),
            self.max_plies.to_string(),
            self.max_battleless_plies.to_string(),
        ]
    }

    fn read_value(&mut self, key: &'static str, value: &str) -> Result<(), &'static str> {
        match key {
            "pieces" => self.piece_set = PieceSet::from_name(value).ok_or("is not classic or barrage")?,
            "two-square" => self.two_square_limit = value.parse().map_err(|_| "is not a number 0-15")?,
            "chase" => {
                self.chase_rule = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err("is not on or off"),
                }
            }
            "max-plies" => self.max_plies = value.parse().map_err(|_| "is not a whole number")?,
            _ => self.max_battleless_plies = value.parse().map_err(|_| "is not a whole number")?,
        }
        Ok(())
    }

    fn check(&self) -> Result<(), RulesError> {
        self.validate()
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl FromStr for Ruleset {
    type Err = RulesError;

    /// Parses the canonical text, or the name of a ruleset in
    /// [`NAMED_RULESETS`]. Fields may come in any order but every one must
    /// be present exactly once, and the version must be this engine's.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match Ruleset::named(s) {
            Some(named) => Ok(named),
            None => Ruleset::from_canonical(s, Ruleset::classic()),
        }
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
        let malformed = |why: &str| RulesError::Malformed(why.to_string());
        let invalid = |key, why: &str| RulesError::Invalid { key, why: why.to_string() };
        for (bad, expected) in [
            ("".to_string(), malformed("`` has no `stratego-rules-vN:` prefix")),
            (
                "stratego-rules-v2:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200".into(),
                RulesError::Version { found: "stratego-rules-v2".into(), expected: "stratego-rules-v1".into() },
            ),
            (good.replace("classic", "huge"), invalid("pieces", "`huge` is not classic or barrage")),
            (
                good.replace("two-square=3", "two-square=99"),
                invalid("two-square", "99 is above the largest supported limit 15"),
            ),
            (good.replace("chase=on", "chase=maybe"), invalid("chase", "`maybe` is not on or off")),
            (good.replace(",max-battleless=200", ""), malformed("ruleset key `max-battleless` is missing")),
            (good.replace("max-plies=4000", "max-plies=0"), invalid("max-plies", "must be at least 1")),
            (format!("{good},pieces=classic"), malformed("ruleset key `pieces` appears twice")),
            (format!("{good},colour=red"), malformed("unknown ruleset key `colour`")),
        ] {
            assert_eq!(bad.parse::<Ruleset>(), Err(expected), "{bad}");
        }
    }

    #[test]
    fn named_rulesets_parse_and_the_referees_has_no_progress_rules() {
        for (name, rules) in NAMED_RULESETS {
            assert_eq!(name.parse::<Ruleset>().unwrap(), rules);
            assert_eq!(rules.canonical().parse::<Ruleset>().unwrap(), rules);
            rules.validate().unwrap();
        }
        assert_eq!(
            Ruleset::referee().canonical(),
            "stratego-rules-v1:pieces=classic,two-square=0,chase=off,max-plies=1998,max-battleless=4294967295"
        );
        assert!("referees".parse::<Ruleset>().is_err());
    }

    #[test]
    fn mismatch_names_both() {
        let a = Ruleset::classic();
        let b = Ruleset { chase_rule: false, ..a };
        let msg = a.expect_same(&b).unwrap_err().to_string();
        assert!(msg.contains(&a.id().to_string()) && msg.contains(&b.id().to_string()), "{msg}");
    }
}
