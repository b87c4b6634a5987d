//! The `[rules]` table of a training config: the ruleset switches, named as
//! for `stratego play`, each defaulting to the engine's `Ruleset::classic()`
//! (docs/RULES.md), so the default ruleset is written once, in the engine.
//!
//! ```toml
//! [rules]
//! pieces = "barrage"     # classic | barrage
//! two-square = 3
//! chase = "on"           # on | off
//! max-plies = 200
//! max-battleless = 200
//! ```
//!
//! The network trainer names its ruleset by canonical text instead
//! (`game.rules = "stratego-rules-v1:..."`, default
//! `Ruleset::classic().canonical()`); both resolve to the same `Ruleset`.

use serde::{Deserialize, Serialize};
use stratego_engine::{PieceSet, Ruleset};

/// The ruleset switches of a config; a missing key takes the classic value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
pub struct RulesConfig {
    /// `classic` or `barrage`.
    pub pieces: String,
    /// The two-square limit (0 turns the rule off).
    pub two_square: u8,
    /// The more-squares (chasing) rule: `on` or `off`.
    pub chase: String,
    pub max_plies: u32,
    pub max_battleless: u32,
}

impl Default for RulesConfig {
    fn default() -> Self {
        RulesConfig::from(&Ruleset::classic())
    }
}

impl From<&Ruleset> for RulesConfig {
    fn from(rules: &Ruleset) -> Self {
        RulesConfig {
            pieces: rules.piece_set.name().into(),
            two_square: rules.two_square_limit,
            chase: if rules.chase_rule { "on" } else { "off" }.into(),
            max_plies: rules.max_plies,
            max_battleless: rules.max_battleless_plies,
        }
    }
}

impl RulesConfig {
    /// The ruleset, checked; an error names the key (`rules.pieces`, ...).
    pub fn ruleset(&self) -> Result<Ruleset, String> {
        let piece_set = PieceSet::from_name(&self.pieces).ok_or_else(|| {
            format!("invalid value `{}` for `rules.pieces`: expected `classic` or `barrage`", self.pieces)
        })?;
        let chase_rule = match self.chase.as_str() {
            "on" => true,
            "off" => false,
            other => return Err(format!("invalid value `{other}` for `rules.chase`: expected `on` or `off`")),
        };
        let rules = Ruleset {
            piece_set,
            two_square_limit: self.two_square,
            chase_rule,
            max_plies: self.max_plies,
            max_battleless_plies: self.max_battleless,
        };
        rules.validate().map_err(|e| format!("invalid `[rules]`: {e}"))?;
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Holder {
        #[serde(default)]
        rules: RulesConfig,
    }

    fn parse(text: &str) -> Result<Ruleset, String> {
        toml::from_str::<Holder>(text).map_err(|e| e.to_string())?.rules.ruleset()
    }

    #[test]
    fn the_defaults_are_the_classic_rules_and_a_key_changes_only_itself() {
        assert_eq!(RulesConfig::default().ruleset().unwrap(), Ruleset::classic());
        assert_eq!(parse("").unwrap(), Ruleset::classic());
        assert_eq!(parse("[rules]\npieces = \"barrage\"\n").unwrap(), Ruleset::barrage());
        let short = parse("[rules]\nmax-plies = 200\nchase = \"off\"\n").unwrap();
        assert_eq!(short, Ruleset { max_plies: 200, chase_rule: false, ..Ruleset::classic() });
        for rules in [Ruleset::classic(), Ruleset::barrage(), short] {
            assert_eq!(RulesConfig::from(&rules).ruleset().unwrap(), rules);
        }
    }

    #[test]
    fn bad_values_name_their_key() {
        for (text, key) in [
            ("[rules]\npieces = \"mini\"\n", "`rules.pieces`"),
            ("[rules]\nchase = \"sometimes\"\n", "`rules.chase`"),
            ("[rules]\ntwo-square = 99\n", "`[rules]`"),
            ("[rules]\ntwo_square = 3\n", "unknown field `two_square`"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(key), "{text:?} gave {e}");
        }
    }
}
