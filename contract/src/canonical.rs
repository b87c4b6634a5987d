//! Canonical settings texts, shared by every ruleset on the contract.
//!
//! A settings text is `<name>-v<version>:key=value,key=value,...`, e.g.
//! `stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200`.
//! The canonical text lists every key of the family once, in the family's
//! order, so equal settings have equal texts and equal short ids (the first
//! 4 bytes of the SHA-256 of the text, `short_id`). Reading accepts the keys
//! in any order but requires each exactly once, refuses unknown keys and any
//! other version, and leaves each value to the settings type that owns it.
//!
//! One error type, `SettingsError<S>`, serves every family (Stratego's
//! `RulesError` is `SettingsError<Ruleset>`); its messages use the family's
//! own words (`ruleset`, or `settings` with `task` ids).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::str::FromStr;

use crate::short_id;

/// What tells one family of settings texts from another: the name and
/// version of its prefix and the words its messages use.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SettingsFamily {
    /// The text's name before `-v<version>`: `stratego-rules`.
    pub name: &'static str,
    /// The rules version this code implements.
    pub version: u32,
    /// What one text is called in messages: `ruleset` (`malformed ruleset`).
    pub noun: &'static str,
    /// What its short id names: `ruleset` (`ruleset id`, `ruleset mismatch`).
    pub id_noun: &'static str,
}

impl SettingsFamily {
    /// `stratego-rules-v1`: what comes before the `:`.
    pub fn prefix(&self) -> String {
        format!("{}-v{}", self.name, self.version)
    }
}

/// Settings with a canonical text: a Stratego `Ruleset`, CoToan's
/// `Settings`. Implementors give their family, keys, how each value is
/// written and read, and their checks across values; the text, the
/// parameters, the short id, reading and the mismatch check follow.
pub trait CanonicalSettings: Clone + PartialEq + fmt::Debug {
    const FAMILY: SettingsFamily;
    /// Every key, in canonical order.
    const KEYS: &'static [&'static str];

    /// The value of every key of `KEYS`, in that order.
    fn values(&self) -> Vec<String>;

    /// Stores the `value` of `key` (one of `KEYS`), read from a settings
    /// text, or says what is wrong with it (`is not on or off`; see
    /// `read_canonical`).
    fn read_value(&mut self, key: &'static str, value: &str) -> Result<(), &'static str>;

    /// What the values must satisfy together (ranges), checked once a text
    /// is read.
    fn check(&self) -> Result<(), SettingsError<Self>>;

    /// Reads a settings text of this family: starting from `start`, every
    /// key's value through `read_value` (`read_canonical`: the prefix, each
    /// key once, no other), then `check`.
    fn from_canonical(text: &str, start: Self) -> Result<Self, SettingsError<Self>> {
        let mut settings = start;
        Self::read_canonical(text, |key, value| settings.read_value(key, value))?;
        settings.check()?;
        Ok(settings)
    }

    /// The canonical text: every key, in `KEYS` order.
    fn canonical_text(&self) -> String {
        let fields: Vec<String> = Self::KEYS.iter().zip(self.values()).map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}:{}", Self::FAMILY.prefix(), fields.join(","))
    }

    /// The keys and values of the canonical text (a game's parameters).
    fn parameters(&self) -> Vec<(String, String)> {
        Self::KEYS.iter().map(|k| k.to_string()).zip(self.values()).collect()
    }

    /// The first 4 bytes of the SHA-256 of the canonical text.
    fn short_id(&self) -> [u8; 4] {
        short_id::of(&self.canonical_text())
    }

    /// `<short id> (<canonical text>)`, as mismatch errors name settings.
    fn identity_text(&self) -> String {
        format!("{} ({})", short_id::to_hex(&self.short_id()), self.canonical_text())
    }

    /// Fails with an error naming both unless `other` is the same.
    fn ensure_same(&self, other: &Self) -> Result<(), SettingsError<Self>> {
        if self == other {
            Ok(())
        } else {
            Err(SettingsError::Mismatch { expected: self.clone(), found: other.clone() })
        }
    }

    /// Reads a short id (8 hex digits).
    fn parse_short_id(text: &str) -> Result<[u8; 4], SettingsError<Self>> {
        short_id::parse_hex(text).ok_or_else(|| SettingsError::BadId(text.to_string()))
    }

    /// Reads a settings text of this family: checks the prefix and version,
    /// then hands each `key=value` field, in the text's order, to `read`,
    /// which stores the value or says what is wrong with it (`is not on or
    /// off`, reported as ``Invalid { key, why: "`maybe` is not on or off" }``).
    /// A field that is not `key=value`, an unknown key, a key given twice
    /// (noticed after its value is read) and, at the end, the first missing
    /// key in `KEYS` order are `Malformed`. Range checks across fields are
    /// the caller's, after this.
    fn read_canonical<'t>(
        text: &'t str,
        mut read: impl FnMut(&'static str, &'t str) -> Result<(), &'static str>,
    ) -> Result<(), SettingsError<Self>> {
        let (family, keys) = (Self::FAMILY, Self::KEYS);
        let noun = family.noun;
        // A settings text is one line of printable characters; refusing the
        // rest first keeps every message below on one line.
        if let Some(c) = text.chars().find(|c| c.is_control()) {
            return Err(SettingsError::Malformed(format!("{text:?} contains the control character {c:?}")));
        }
        let (version, fields) = text
            .split_once(':')
            .ok_or_else(|| SettingsError::Malformed(format!("`{text}` has no `{}-vN:` prefix", family.name)))?;
        let expected = family.prefix();
        if version != expected {
            return Err(SettingsError::Version { found: version.to_string(), expected });
        }
        let mut seen = vec![false; keys.len()];
        for field in fields.split(',') {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| SettingsError::Malformed(format!("field `{field}` is not key=value")))?;
            let Some(k) = keys.iter().position(|&known| known == key) else {
                return Err(SettingsError::Malformed(format!("unknown {noun} key `{key}`")));
            };
            read(keys[k], value)
                .map_err(|why| SettingsError::Invalid { key: keys[k], why: format!("`{value}` {why}") })?;
            if std::mem::replace(&mut seen[k], true) {
                return Err(SettingsError::Malformed(format!("{noun} key `{key}` appears twice")));
            }
        }
        match seen.iter().position(|&s| !s) {
            Some(k) => Err(SettingsError::Malformed(format!("{noun} key `{}` is missing", keys[k]))),
            None => Ok(()),
        }
    }
}

/// The short id of settings of the family of `S` (Stratego's `RulesetId`,
/// CoToan's `TaskId`): the first 4 bytes of the SHA-256 of the canonical
/// text (`CanonicalSettings::short_id`), written and read as 8 hex digits.
pub struct ShortId<S>(pub [u8; 4], PhantomData<fn() -> S>);

impl<S> ShortId<S> {
    pub const fn new(bytes: [u8; 4]) -> ShortId<S> {
        ShortId(bytes, PhantomData)
    }
}

// By hand, so that an id is `Copy`, `Eq`, ... whatever its family's type is.
impl<S> Clone for ShortId<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for ShortId<S> {}

impl<S> PartialEq for ShortId<S> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<S> Eq for ShortId<S> {}

impl<S> Hash for ShortId<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}

impl<S> fmt::Debug for ShortId<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ShortId").field(&self.0).finish()
    }
}

impl<S> fmt::Display for ShortId<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        short_id::write_hex(&self.0, f)
    }
}

impl<S: CanonicalSettings> FromStr for ShortId<S> {
    type Err = SettingsError<S>;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        S::parse_short_id(s).map(ShortId::new)
    }
}

/// A settings text or short id of the family of `S` that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingsError<S> {
    /// Not of the form `<prefix>:key=value,...` with every key once.
    Malformed(String),
    /// Another rules version (or another game's prefix).
    Version { found: String, expected: String },
    /// A value out of range or of the wrong form for `key`.
    Invalid { key: &'static str, why: String },
    /// Not 8 hex digits.
    BadId(String),
    /// An artefact of other settings than the expected ones.
    Mismatch { expected: S, found: S },
}

impl<S: CanonicalSettings> fmt::Display for SettingsError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let SettingsFamily { noun, id_noun, .. } = S::FAMILY;
        match self {
            SettingsError::Malformed(why) => write!(f, "malformed {noun}: {why}"),
            SettingsError::Version { found, expected } => {
                write!(f, "{noun} version `{found}` is not supported (this engine implements `{expected}`)")
            }
            SettingsError::Invalid { key, why } => write!(f, "{noun} key `{key}`: {why}"),
            SettingsError::BadId(text) => write!(f, "`{text}` is not a {id_noun} id (expected 8 hex digits)"),
            SettingsError::Mismatch { expected, found } => {
                write!(f, "{id_noun} mismatch: expected {}, found {}", expected.identity_text(), found.identity_text())
            }
        }
    }
}

impl<S: CanonicalSettings> std::error::Error for SettingsError<S> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Toy {
        a: u8,
        b: bool,
    }

    impl CanonicalSettings for Toy {
        const FAMILY: SettingsFamily = SettingsFamily { name: "toy-rules", version: 2, noun: "toy", id_noun: "game" };
        const KEYS: &'static [&'static str] = &["a", "b"];

        fn values(&self) -> Vec<String> {
            vec![self.a.to_string(), if self.b { "on" } else { "off" }.to_string()]
        }

        fn read_value(&mut self, key: &'static str, value: &str) -> Result<(), &'static str> {
            match key {
                "a" => self.a = value.parse().map_err(|_| "is not a number")?,
                _ => self.b = value == "on",
            }
            Ok(())
        }

        fn check(&self) -> Result<(), SettingsError<Toy>> {
            match self.a {
                0..=9 => Ok(()),
                a => Err(SettingsError::Invalid { key: "a", why: format!("{a} is above 9") }),
            }
        }
    }

    fn read(text: &str) -> Result<Toy, SettingsError<Toy>> {
        Toy::from_canonical(text, Toy { a: 0, b: false })
    }

    #[test]
    fn texts_are_written_in_order_and_read_in_any() {
        let toy = Toy { a: 3, b: true };
        assert_eq!(toy.canonical_text(), "toy-rules-v2:a=3,b=on");
        assert_eq!(toy.parameters(), [("a".to_string(), "3".to_string()), ("b".to_string(), "on".to_string())]);
        assert_eq!(read("toy-rules-v2:a=3,b=on"), Ok(toy.clone()));
        assert_eq!(read("toy-rules-v2:b=on,a=3"), Ok(toy.clone()));
        assert_eq!(short_id::to_hex(&toy.short_id()).len(), 8);
        assert_eq!(toy.ensure_same(&toy), Ok(()));
    }

    #[test]
    fn every_error_says_what_and_uses_the_family_words() {
        for (text, message) in [
            ("toy", "malformed toy: `toy` has no `toy-rules-vN:` prefix"),
            (
                "toy-rules-v1:a=3,b=on",
                "toy version `toy-rules-v1` is not supported (this engine implements `toy-rules-v2`)",
            ),
            ("toy-rules-v2:a=3,b", "malformed toy: field `b` is not key=value"),
            ("toy-rules-v2:a=3,c=1", "malformed toy: unknown toy key `c`"),
            ("toy-rules-v2:a=x,b=on", "toy key `a`: `x` is not a number"),
            ("toy-rules-v2:a=3,a=4,b=on", "malformed toy: toy key `a` appears twice"),
            ("toy-rules-v2:b=on", "malformed toy: toy key `a` is missing"),
            // The value is read before the repetition is noticed.
            ("toy-rules-v2:a=3,a=x", "toy key `a`: `x` is not a number"),
            // The checks across values come after the reading.
            ("toy-rules-v2:a=10,b=on", "toy key `a`: 10 is above 9"),
            ("toy-rules-v2:a=10", "malformed toy: toy key `b` is missing"),
        ] {
            assert_eq!(read(text).unwrap_err().to_string(), message, "{text}");
        }
        assert_eq!(Toy::parse_short_id("0123abcd"), Ok([0x01, 0x23, 0xab, 0xcd]));
        assert_eq!(
            Toy::parse_short_id("xyz").unwrap_err().to_string(),
            "`xyz` is not a game id (expected 8 hex digits)"
        );
        let id = ShortId::<Toy>::new(Toy { a: 3, b: true }.short_id());
        assert_eq!(id.to_string().parse::<ShortId<Toy>>(), Ok(id));
        assert_eq!(ShortId::<Toy>::new([0x01, 0x23, 0xab, 0xcd]).to_string(), "0123abcd");
        assert_eq!(
            "xyz".parse::<ShortId<Toy>>().unwrap_err().to_string(),
            "`xyz` is not a game id (expected 8 hex digits)"
        );
        let (x, y) = (Toy { a: 1, b: false }, Toy { a: 2, b: false });
        let message = x.ensure_same(&y).unwrap_err().to_string();
        assert_eq!(message, format!("game mismatch: expected {}, found {}", x.identity_text(), y.identity_text()));
        assert!(message.contains("(toy-rules-v2:a=1,b=off)") && message.contains("(toy-rules-v2:a=2,b=off)"));
    }
}
