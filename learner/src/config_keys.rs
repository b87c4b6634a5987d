//! The table of the network trainer's config keys: each key is declared
//! once, in its section's [`section!`] list, with its type, its default,
//! what values it accepts and its documentation. From that one line come
//! the section's struct (what serde reads and writes), its `Default`, the
//! range checks and their error messages, the size bounds, and the key
//! table of docs/TRAINING.md (a drift test keeps the document in step).
//!
//! Adding a key is one line in its section's list (docs/ARCHITECTURE.md,
//! "Where a change goes"), plus the code that uses it. Checks that involve
//! several keys, or files, stay in `config.rs` and are named here in words
//! ([`Accepts::Rule`]).

use std::path::PathBuf;

use stratego_engine::{Layout, Ruleset};
use stratego_players::SetupPolicy;

use crate::TrainError;

/// What values a key accepts. Every variant but `Rule` is checked where the
/// config is parsed, with the message `Accepts::check` gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Accepts {
    /// A size, 1 to the bound: below 1 a run cannot make progress, and past
    /// the bound it would not finish an iteration in any sensible time (or
    /// would exhaust memory) instead of failing at parse time.
    Size(u64),
    /// A count that may be 0: 0 to the bound.
    AtMost(u64),
    /// A share or a decay: [0, 1].
    Unit,
    /// [0, 1): a share that must leave something over.
    UnitBelowOne,
    /// (0, 1).
    OpenUnit,
    /// A score for both players: [-1, 1].
    Score,
    /// A weight or a rate: finite and >= 0.
    NonNegative,
    /// Finite and > 0.
    Positive,
    /// A step size: (0, 1].
    Step,
    /// [low, high].
    Within(f64, f64),
    /// A table of keys of its own (listed apart), not a value.
    Section,
    /// Checked in code that sees more than the key (another key, the
    /// roster of players, a file); the words say what it accepts.
    Rule(&'static str),
}

impl Accepts {
    /// `value` within what the key accepts; the error names the key.
    pub fn check(&self, key: &str, value: &impl KeyValue) -> Result<(), TrainError> {
        self.judge(value).map_err(|why| TrainError::config(key, why))
    }

    /// `value` within what the key accepts; `Err` says why not. A key left
    /// unset (an `Option` that is `None`) has nothing to judge.
    pub fn judge(&self, value: &impl KeyValue) -> Result<(), String> {
        if !value.is_set() {
            return Ok(());
        }
        let Some(v) = value.number() else {
            // Only numbers have ranges; a table line that gives one to any
            // other type is a mistake the tests catch.
            return match self {
                Accepts::Rule(_) | Accepts::Section => Ok(()),
                _ => Err("has a range but is not a number".into()),
            };
        };
        let shown = value.shown();
        let why = match *self {
            Accepts::Size(max) if !(v >= 1.0 && v <= max as f64) => format!("{shown} is not in 1..={max}"),
            Accepts::AtMost(max) if !(v >= 0.0 && v <= max as f64) => format!("{shown} is above {max}"),
            Accepts::Unit if !(0.0..=1.0).contains(&v) => format!("{shown} is not in [0, 1]"),
            Accepts::UnitBelowOne if !(0.0..1.0).contains(&v) => format!("{shown} is not in [0, 1)"),
            Accepts::OpenUnit if !(v > 0.0 && v < 1.0) => format!("{shown} is not in (0, 1)"),
            Accepts::Score if !(-1.0..=1.0).contains(&v) => format!("{shown} is not in [-1, 1]"),
            Accepts::NonNegative if !(v.is_finite() && v >= 0.0) => format!("{shown} must be a finite number >= 0"),
            Accepts::Positive if !(v.is_finite() && v > 0.0) => format!("{shown} must be > 0"),
            Accepts::Step if !(v > 0.0 && v <= 1.0) => format!("{shown} is not in (0, 1]"),
            Accepts::Within(low, high) if !(v >= low && v <= high) => format!("{shown} is not in [{low}, {high}]"),
            _ => return Ok(()),
        };
        Err(why)
    }

    /// What the docs' table says the key accepts.
    pub fn words(&self) -> String {
        match self {
            Accepts::Size(max) => format!("1 to {max}"),
            Accepts::AtMost(max) => format!("0 to {max}"),
            Accepts::Unit => "0 to 1".into(),
            Accepts::UnitBelowOne => "0 to 1, below 1".into(),
            Accepts::OpenUnit => "between 0 and 1, both excluded".into(),
            Accepts::Score => "-1 to 1".into(),
            Accepts::NonNegative => "a finite number >= 0".into(),
            Accepts::Positive => "a finite number > 0".into(),
            Accepts::Step => "above 0, at most 1".into(),
            Accepts::Within(low, high) => format!("{low} to {high}"),
            Accepts::Section => "a table of keys (below)".into(),
            Accepts::Rule(words) => (*words).into(),
        }
    }
}

/// A key's value as the range checks see it: its number, if it is one, and
/// its text as the error shows it (an `f32` as written, not widened).
pub trait KeyValue {
    fn number(&self) -> Option<f64>;
    fn shown(&self) -> String;
    /// Whether the key has a value to judge (an unset optional key has not).
    fn is_set(&self) -> bool {
        true
    }
}

/// An optional number: judged when it is set.
impl KeyValue for Option<f64> {
    fn number(&self) -> Option<f64> {
        *self
    }
    fn shown(&self) -> String {
        self.map(|v| v.to_string()).unwrap_or_default()
    }
    fn is_set(&self) -> bool {
        self.is_some()
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl KeyValue for $t {
            fn number(&self) -> Option<f64> {
                Some(*self as f64)
            }
            fn shown(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
numbers!(u32, u64, usize, f32, f64);

/// A type whose keys have no range (their values are names, tables or
/// lists): `not_a_number!(Type, ...)` beside the type.
macro_rules! not_a_number {
    ($($t:ty),*) => {$(
        impl $crate::config_keys::KeyValue for $t {
            fn number(&self) -> Option<f64> {
                None
            }
            fn shown(&self) -> String {
                String::new()
            }
        }
    )*};
}
not_a_number!(bool, String, Vec<String>, Option<PathBuf>, Option<SetupPolicy>, SetupPolicy, Ruleset, Layout);

/// One key of the table.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// `section.key`, as the file and the errors write it.
    pub path: &'static str,
    pub accepts: Accepts,
    /// The field's attributes as written (`#[doc = "..."]`, `#[serde(...)]`),
    /// from which [`Key::doc`] reads the documentation.
    pub attributes: &'static [&'static str],
}

impl Key {
    /// The key's documentation: its doc comment, as one line.
    pub fn doc(&self) -> String {
        let lines: Vec<String> = self
            .attributes
            .iter()
            .filter_map(|a| {
                let inner = a.trim().strip_prefix('#')?.trim_start().strip_prefix('[')?.strip_suffix(']')?.trim();
                let text = inner.strip_prefix("doc")?.trim_start().strip_prefix('=')?.trim();
                // A doc comment arrives as a raw string (`r" ..."`, or with
                // hashes when it holds a quote), a written `#[doc]` as a
                // plain one with escapes.
                if let Some(raw) = text.strip_prefix('r') {
                    let hashes = raw.len() - raw.trim_start_matches('#').len();
                    let fence = "#".repeat(hashes);
                    let body = raw.strip_prefix(&fence)?.strip_prefix('"')?.strip_suffix(&fence)?.strip_suffix('"')?;
                    return Some(body.trim().to_string());
                }
                let text = text.strip_prefix('"')?.strip_suffix('"')?;
                Some(text.replace("\\\"", "\"").replace("\\'", "'").replace("\\\\", "\\").trim().to_string())
            })
            .collect();
        lines.join(" ").trim().to_string()
    }
}

/// A key's path: `section.key`, or `key` in the section `""` (a config's
/// top level, as the n-tuple trainer's `seed` and `games`).
macro_rules! key_path {
    ("", $field:ident) => {
        stringify!($field)
    };
    ($section:literal, $field:ident) => {
        concat!($section, ".", stringify!($field))
    };
}

/// A config section from its table of keys: `field: Type = default,
/// accepts;` a line, each with its doc comment (and any serde attribute).
macro_rules! section {
    (
        $(#[$meta:meta])*
        pub struct $name:ident in $section:tt {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident : $ty:ty = $default:expr, $accepts:expr;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $(
                $(#[$field_meta])*
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $name {
            /// The section's keys, in the order of the file.
            pub const KEYS: &'static [$crate::config_keys::Key] = &[$(
                $crate::config_keys::Key {
                    path: $crate::config_keys::key_path!($section, $field),
                    accepts: $accepts,
                    attributes: &[$(stringify!(#[$field_meta])),*],
                },
            )*];

            /// The first key outside what it accepts, and why (the `Rule`s
            /// aside: the code that knows them checks them).
            pub fn out_of_range(&self) -> Option<(&'static str, String)> {
                $(
                    if let Err(why) = ($accepts).judge(&self.$field) {
                        return Some(($crate::config_keys::key_path!($section, $field), why));
                    }
                )*
                None
            }

            /// Every key within what it accepts; the error names the key.
            pub fn check_keys(&self) -> Result<(), $crate::TrainError> {
                self.out_of_range().map_or(Ok(()), |(key, why)| Err($crate::TrainError::config(key, why)))
            }
        }
    };
}

pub(crate) use key_path;
pub(crate) use not_a_number;
pub(crate) use section;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_say_what_is_wrong_as_the_config_errors_always_did() {
        let err = |a: Accepts, v: &dyn Fn() -> Result<(), TrainError>| (a, v().unwrap_err().to_string());
        for (accepts, text) in [
            err(Accepts::Size(256), &|| Accepts::Size(256).check("selfplay.actors", &0usize)),
            err(Accepts::Unit, &|| Accepts::Unit.check("learner.td_lambda", &1.5f32)),
            err(Accepts::NonNegative, &|| Accepts::NonNegative.check("learner.value_weight", &f32::NAN)),
            err(Accepts::OpenUnit, &|| Accepts::OpenUnit.check("learner.ppo_clip", &1.0f32)),
            err(Accepts::Positive, &|| Accepts::Positive.check("learner.grad_clip", &0.0f32)),
            err(Accepts::Score, &|| Accepts::Score.check("learner.draw_score", &-1.5f32)),
            err(Accepts::UnitBelowOne, &|| Accepts::UnitBelowOne.check("pretrain.holdout", &1.0f64)),
            err(Accepts::AtMost(64), &|| Accepts::AtMost(64).check("selfplay.pool_size", &65usize)),
        ] {
            let expected = match accepts {
                Accepts::Size(_) => "config `selfplay.actors`: 0 is not in 1..=256",
                Accepts::Unit => "config `learner.td_lambda`: 1.5 is not in [0, 1]",
                Accepts::NonNegative => "config `learner.value_weight`: NaN must be a finite number >= 0",
                Accepts::OpenUnit => "config `learner.ppo_clip`: 1 is not in (0, 1)",
                Accepts::Positive => "config `learner.grad_clip`: 0 must be > 0",
                Accepts::Score => "config `learner.draw_score`: -1.5 is not in [-1, 1]",
                Accepts::UnitBelowOne => "config `pretrain.holdout`: 1 is not in [0, 1)",
                Accepts::AtMost(_) => "config `selfplay.pool_size`: 65 is above 64",
                Accepts::Rule(_) | Accepts::Step | Accepts::Within(..) | Accepts::Section => unreachable!(),
            };
            assert_eq!(text, expected);
        }
        // An f32 is shown as written, not as its widened f64.
        let e = Accepts::Unit.check("learner.gae_lambda", &1.1f32).unwrap_err().to_string();
        assert!(e.ends_with(": 1.1 is not in [0, 1]"), "{e}");
        assert!(Accepts::Size(256).check("selfplay.actors", &256usize).is_ok());
        assert!(Accepts::Rule("anything").check("eval.opponents", &Vec::<String>::new()).is_ok());
        assert!(Accepts::Unit.check("run.device", &true).is_err());
        // The n-tuple trainer's ranges, and an optional key judged only when set.
        let e = Accepts::Step.check("td.alpha", &0.0f64).unwrap_err().to_string();
        assert_eq!(e, "config `td.alpha`: 0 is not in (0, 1]");
        let e = Accepts::Within(0.0, 0.99).check("td.lambda_final", &Some(1.5f64)).unwrap_err().to_string();
        assert_eq!(e, "config `td.lambda_final`: 1.5 is not in [0, 0.99]");
        assert!(Accepts::Within(0.0, 0.99).check("td.lambda_final", &None::<f64>).is_ok());
        assert!(Accepts::Step.check("td.alpha", &1.0f64).is_ok());
    }

    #[test]
    fn a_doc_comment_reads_back_as_one_line() {
        let key = Key {
            path: "x.y",
            accepts: Accepts::Unit,
            attributes: &["#[doc = \" The \\\"first\\\" line\"]", "#[doc = \" and the second.\"]", "#[serde(default)]"],
        };
        assert_eq!(key.doc(), "The \"first\" line and the second.");
        // As the compiler hands a doc comment to the macro: raw strings.
        let key = Key {
            path: "x.y",
            accepts: Accepts::Unit,
            attributes: &["#[doc = r\" The first\"]", "#[doc = r#\" \"and\" the second.\"#]"],
        };
        assert_eq!(key.doc(), "The first \"and\" the second.");
    }
}
