//! Player specs: the command-line names of players, parsed without knowing
//! any player.
//!
//! A spec is a player name, optionally followed by `:` and comma-separated
//! items: an optional leading path (an item without `=`, for players that
//! read a file) and `key=value` options. `random`,
//! `greedy:setup=handcrafted`, `expectimax:depth=3,nodes=20000`,
//! `ntuple:tables.safetensors`, `net:ckpt.safetensors,temperature=0.5`.
//!
//! This module knows the syntax only; what a name means and which options it
//! takes is the business of the player's entry in the
//! [`Registry`](crate::registry::Registry), which lives in the player's own
//! crate. Every malformed spec is a [`SpecError`] that says what is wrong.

use std::fmt;
use std::str::FromStr;

use crate::setup_policy::SetupPolicy;

/// A parsed player spec: a name, an optional path and options in the order
/// given. Its `Display` is the spec text; a player's canonical name (defaults
/// left out, options in a fixed order) is its factory's `name()`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PlayerSpec {
    pub name: String,
    /// The leading item without `=`, if any (a checkpoint or table file).
    pub path: Option<String>,
    pub options: Vec<(String, String)>,
}

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum SpecError {
    #[error("empty player spec; expected {known}")]
    Empty { known: String },
    #[error("unknown player `{name}`; expected {known}")]
    UnknownPlayer { name: String, known: String },
    #[error("option `{option}` in player spec `{spec}` is not of the form key=value")]
    Malformed { spec: String, option: String },
    #[error("player `{player}` has no option `{key}`; its options are: {allowed}")]
    UnknownOption { player: String, key: String, allowed: String },
    #[error("option `{key}` is given twice in player spec `{spec}`")]
    Repeated { spec: String, key: String },
    #[error("bad value `{value}` for option `{key}`: {why}")]
    BadValue { key: String, value: String, why: String },
    #[error("`{player}:` needs {what}")]
    MissingPath { player: String, what: String },
    #[error("player spec `{spec}` has nothing after `:`; write the name alone, or a path or options after the colon")]
    NothingAfterColon { spec: String },
    #[error("player spec {spec:?} contains a control character")]
    Control { spec: String },
    #[error("cannot load player `{spec}`: {why}")]
    Load { spec: String, why: String },
}

impl SpecError {
    /// A value that does not parse or is out of range.
    pub fn bad_value(key: &str, value: &str, why: impl Into<String>) -> SpecError {
        SpecError::BadValue { key: key.to_string(), value: value.to_string(), why: why.into() }
    }
}

/// How a spec names a player's options. A canonical name leaves the
/// defaults out (the arena's tables and records name players one way); a
/// resolved name names every option with its value, so that it still says
/// which player was played after a default changes. Registrations log the
/// resolved names of their players and refuse a rerun whose specs now
/// resolve to other players (`stratego_evaluation::registration`).
/// Options without a value (no clock) stay absent in both.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Naming {
    Canonical,
    Resolved,
}

impl PlayerSpec {
    /// Adds `key=value`, unless the naming is canonical and `value` is the
    /// option's default (for building canonical and resolved names).
    pub fn with_default<T: PartialEq + fmt::Display>(
        self,
        naming: Naming,
        key: &str,
        value: T,
        default: T,
    ) -> PlayerSpec {
        if naming == Naming::Canonical && value == default {
            self
        } else {
            self.with(key, value)
        }
    }

    /// Adds `key=value` when there is a value (a clock, a veto): an option
    /// without one is absent from canonical and resolved names alike.
    pub fn with_some<T: fmt::Display>(self, key: &str, value: Option<T>) -> PlayerSpec {
        match value {
            Some(value) => self.with(key, value),
            None => self,
        }
    }

    /// A spec with a name and nothing else.
    pub fn named(name: &str) -> PlayerSpec {
        PlayerSpec { name: name.to_string(), path: None, options: Vec::new() }
    }

    /// Adds an option (for building canonical specs).
    pub fn with(mut self, key: &str, value: impl fmt::Display) -> PlayerSpec {
        self.options.push((key.to_string(), value.to_string()));
        self
    }

    /// Sets the path (for building canonical specs).
    pub fn with_path(mut self, path: impl Into<String>) -> PlayerSpec {
        self.path = Some(path.into());
        self
    }

    /// Checks every option key against a player's list, so a typo is an
    /// error and not a silently ignored option. `allowed` is the list as
    /// help text shows it (`depth=N, nodes=N`); the keys are the words
    /// before each `=`.
    pub fn check_keys(&self, allowed: &str) -> Result<(), SpecError> {
        let keys: Vec<&str> = allowed.split(", ").map(|item| item.split('=').next().unwrap_or("").trim()).collect();
        for (key, _) in &self.options {
            if !keys.contains(&key.as_str()) {
                return Err(SpecError::UnknownOption {
                    player: self.name.clone(),
                    key: key.clone(),
                    allowed: allowed.to_string(),
                });
            }
        }
        Ok(())
    }

    /// The value of an option, if given.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// A parsed option, or `default` when it is absent; `check` rejects
    /// values out of range with `why`.
    pub fn parse_option<T: FromStr>(
        &self,
        key: &str,
        default: T,
        check: impl Fn(&T) -> bool,
        why: &str,
    ) -> Result<T, SpecError> {
        match self.option(key) {
            None => Ok(default),
            Some(value) => {
                value.parse::<T>().ok().filter(|v| check(v)).ok_or_else(|| SpecError::bad_value(key, value, why))
            }
        }
    }

    /// `setup=` added when it is not the default, or always when resolved:
    /// the writing side of [`PlayerSpec::setup`], which every player's
    /// name ends with.
    pub fn with_setup(self, setup: SetupPolicy, naming: Naming) -> PlayerSpec {
        self.with_default(naming, "setup", setup, SetupPolicy::default())
    }

    /// The `setup=` option every player takes.
    pub fn setup(&self) -> Result<SetupPolicy, SpecError> {
        match self.option("setup") {
            None => Ok(SetupPolicy::default()),
            Some(value) => value.parse().map_err(|why: String| SpecError::bad_value("setup", value, why)),
        }
    }
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    /// The syntax only; `Registry::parse` also says `Empty` and
    /// `UnknownPlayer` with the list of known players.
    fn from_str(text: &str) -> Result<Self, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty { known: "a player name".into() });
        }
        if text.chars().any(char::is_control) {
            return Err(SpecError::Control { spec: text.to_string() });
        }
        let Some((name, rest)) = text.split_once(':') else {
            return Ok(PlayerSpec::named(text));
        };
        let mut spec = PlayerSpec::named(name.trim());
        // A colon promises a path or options; `random:` would otherwise be
        // read as `random`, hiding whatever the user meant to write there.
        if rest.trim().is_empty() {
            return Err(SpecError::NothingAfterColon { spec: text.to_string() });
        }
        for (i, item) in rest.split(',').enumerate() {
            let item = item.trim();
            if i == 0 && !item.is_empty() && !item.contains('=') {
                spec.path = Some(item.to_string());
                continue;
            }
            let (key, value) = item
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                .ok_or_else(|| SpecError::Malformed { spec: text.to_string(), option: item.to_string() })?;
            if spec.options.iter().any(|(k, _)| k == key) {
                return Err(SpecError::Repeated { spec: text.to_string(), key: key.to_string() });
            }
            spec.options.push((key.to_string(), value.to_string()));
        }
        Ok(spec)
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items: Vec<String> = self.path.iter().cloned().collect();
        items.extend(self.options.iter().map(|(k, v)| format!("{k}={v}")));
        if items.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{}:{}", self.name, items.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_into_name_path_and_options() {
        let spec: PlayerSpec = " expectimax:nodes=500, depth=2 ".parse().unwrap();
        assert_eq!(spec.name, "expectimax");
        assert_eq!(spec.path, None);
        assert_eq!(spec.options, [("nodes".into(), "500".into()), ("depth".into(), "2".into())]);
        assert_eq!(spec.to_string(), "expectimax:nodes=500,depth=2");

        let spec: PlayerSpec = "net:runs/x/ckpt.safetensors,temperature=0.5".parse().unwrap();
        assert_eq!(spec.path.as_deref(), Some("runs/x/ckpt.safetensors"));
        assert_eq!(spec.option("temperature"), Some("0.5"));
        assert_eq!(spec.to_string(), "net:runs/x/ckpt.safetensors,temperature=0.5");

        // An option's value may itself be a spec with a colon.
        let spec: PlayerSpec = "expectimax:leaf=ntuple:a/b.safetensors".parse().unwrap();
        assert_eq!(spec.option("leaf"), Some("ntuple:a/b.safetensors"));
        assert_eq!("random".parse::<PlayerSpec>().unwrap(), PlayerSpec::named("random"));
    }

    #[test]
    fn malformed_syntax_is_a_clear_error() {
        let err = |text: &str| text.parse::<PlayerSpec>().unwrap_err();
        assert!(matches!(err(""), SpecError::Empty { .. }));
        assert!(matches!(err("expectimax:depth=2,depth=3"), SpecError::Repeated { key, .. } if key == "depth"));
        assert!(matches!(err("expectimax:depth=2,nodes"), SpecError::Malformed { option, .. } if option == "nodes"));
        assert!(matches!(err("expectimax:depth="), SpecError::Malformed { .. }));
        assert!(matches!(err("random:"), SpecError::NothingAfterColon { .. }));
        assert!(matches!(err("ntuple: "), SpecError::NothingAfterColon { .. }));
        assert!(matches!(err("expectimax:,depth=2"), SpecError::Malformed { option, .. } if option.is_empty()));
        assert!(err("expectimax:depth=2,depth=3").to_string().contains("given twice"));
    }

    #[test]
    fn options_are_checked_and_parsed() {
        let spec: PlayerSpec = "greedy:depth=3".parse().unwrap();
        let err = spec.check_keys("setup=random|handcrafted").unwrap_err();
        assert!(err.to_string().contains("player `greedy` has no option `depth`"), "{err}");
        let spec: PlayerSpec = "expectimax:depth=0".parse().unwrap();
        let err = spec.parse_option("depth", 3u32, |d| (1..=20).contains(d), "1 to 20").unwrap_err();
        assert_eq!(err, SpecError::bad_value("depth", "0", "1 to 20"));
        assert_eq!(spec.parse_option("nodes", 7u64, |_| true, "").unwrap(), 7);
        let spec: PlayerSpec = "random:setup=clever".parse().unwrap();
        assert!(spec
            .setup()
            .unwrap_err()
            .to_string()
            .contains("expected `random`, `handcrafted`, `handcrafted-v2`, `decoy`, `mixed`, `structured` or `wide`"));
    }
}
