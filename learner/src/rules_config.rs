//! How a config names its ruleset, the one reader for both trainers' files
//! (`game.rules` of a network config, `rules` of an n-tuple config):
//!
//! ```toml
//! rules = "stratego-rules-v1:pieces=barrage,two-square=3,chase=on,max-plies=200,max-battleless=200"
//! ```
//!
//! the ruleset's canonical text, the syntax a config is written back with
//! (a run's `config.toml`, a table file's note). A config may also spell it
//! as a table of the switches, as n-tuple configs were first written and
//! `stratego play` names them; each missing key takes the classic value
//! (`Ruleset::classic()`, docs/RULES.md):
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
//! The table is checked as strictly as the text: unknown keys, a piece set
//! or switch that does not exist, and a ruleset the engine refuses are errors
//! naming the key, when the file is read. Use it with
//! `#[serde(with = "crate::rules_config")]` on a `Ruleset` field.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serializer};
use stratego_engine::{PieceSet, Ruleset};

/// Writes the ruleset as its canonical text.
pub fn serialize<S: Serializer>(rules: &Ruleset, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&rules.canonical())
}

/// Reads the canonical text or the table, checked.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Ruleset, D::Error> {
    d.deserialize_any(RulesVisitor)
}

struct RulesVisitor;

impl<'de> Visitor<'de> for RulesVisitor {
    type Value = Ruleset;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a ruleset's canonical text (`stratego-rules-v1:...`) or a table of its switches")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Ruleset, E> {
        let rules: Ruleset = text.parse().map_err(E::custom)?;
        rules.validate().map_err(E::custom)?;
        Ok(rules)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Ruleset, A::Error> {
        let table = RulesTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
        let rules = Ruleset {
            piece_set: table.pieces.0,
            two_square_limit: table.two_square,
            chase_rule: table.chase == Switch::On,
            max_plies: table.max_plies,
            max_battleless_plies: table.max_battleless,
        };
        rules.validate().map_err(de::Error::custom)?;
        Ok(rules)
    }
}

/// The table spelling; a missing key takes the classic value.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default, rename_all = "kebab-case")]
struct RulesTable {
    pieces: Pieces,
    two_square: u8,
    chase: Switch,
    max_plies: u32,
    max_battleless: u32,
}

impl Default for RulesTable {
    fn default() -> Self {
        let classic = Ruleset::classic();
        RulesTable {
            pieces: Pieces(classic.piece_set),
            two_square: classic.two_square_limit,
            chase: if classic.chase_rule { Switch::On } else { Switch::Off },
            max_plies: classic.max_plies,
            max_battleless: classic.max_battleless_plies,
        }
    }
}

/// A piece set by its name (`classic`, `barrage`).
struct Pieces(PieceSet);

impl<'de> Deserialize<'de> for Pieces {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pieces, D::Error> {
        let name = String::deserialize(d)?;
        PieceSet::from_name(&name)
            .map(Pieces)
            .ok_or_else(|| de::Error::custom(format!("unknown piece set `{name}`: expected `classic` or `barrage`")))
    }
}

#[derive(Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Switch {
    On,
    Off,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, serde::Serialize)]
    struct Holder {
        #[serde(with = "super", default = "Ruleset::classic")]
        rules: Ruleset,
    }

    fn parse(text: &str) -> Result<Ruleset, String> {
        toml::from_str::<Holder>(text).map(|h| h.rules).map_err(|e| stratego_support::toml_line::one_line(text, e))
    }

    #[test]
    fn the_table_and_the_text_read_the_same_rules_and_the_text_is_written() {
        assert_eq!(parse("").unwrap(), Ruleset::classic());
        assert_eq!(parse("[rules]\n").unwrap(), Ruleset::classic());
        assert_eq!(parse("[rules]\npieces = \"barrage\"\n").unwrap(), Ruleset::barrage());
        let short = parse("[rules]\nmax-plies = 200\nchase = \"off\"\n").unwrap();
        assert_eq!(short, Ruleset { max_plies: 200, chase_rule: false, ..Ruleset::classic() });
        for rules in [Ruleset::classic(), Ruleset::barrage(), short] {
            let written = toml::to_string(&Holder { rules }).unwrap();
            assert_eq!(written, format!("rules = \"{}\"\n", rules.canonical()));
            assert_eq!(parse(&written).unwrap(), rules);
        }
    }

    #[test]
    fn bad_values_name_their_key() {
        for (text, key) in [
            ("[rules]\npieces = \"mini\"\n", "`rules.pieces`: unknown piece set `mini`"),
            ("[rules]\nchase = \"sometimes\"\n", "`rules.chase`: unknown variant `sometimes`"),
            ("[rules]\ntwo-square = 99\n", "`rules`"),
            ("[rules]\ntwo_square = 3\n", "unknown field `two_square`"),
            ("[rules]\nmax-plies = -1\n", "`rules.max-plies`"),
            ("rules = \"stratego-rules-v1:pieces=mini\"\n", "`rules`"),
            ("rules = 3\n", "`rules`: invalid type: integer `3`, expected a ruleset's canonical text"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(key), "{text:?} gave {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
