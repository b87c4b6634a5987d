//! CoToan's settings: the switches that make one task differ from another
//! (threshold, horizon, horizon rule, operators, starting player), with a
//! canonical text and a short task id that every snapshot carries.
//!
//! The mechanics (board, moves, capture geometry) are fixed by the rules
//! version; the settings only decide which operators capture, who starts and
//! how a game is adjudicated. Two games under different settings are two
//! different tasks, so the id changes whenever any field does.

use std::fmt;
use std::str::FromStr;

use crate::error::SettingsError;
use stratego_contract::canonical::{CanonicalSettings, SettingsFamily, ShortId};
use stratego_contract::Color;

/// The version of the CoToan rules this code implements (docs/COTOAN.md,
/// `cotoan-rules v1`). Bump it whenever a rule's behaviour changes.
pub const RULES_VERSION: u32 = 1;

/// The largest threshold: a side can capture at most 1 + 2 + ... + 9 = 45.
pub const MAX_THRESHOLD: u8 = 45;

/// The largest horizon. The GDL description counts plies with a finite
/// successor relation that stops here.
pub const MAX_HORIZON: u32 = 1000;

/// The paper's default horizon, in plies.
pub const DEFAULT_HORIZON: u32 = 300;

/// An arithmetic operator that can justify a capture.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Operator {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Mod = 4,
}

impl Operator {
    pub const ALL: [Operator; 5] = [Operator::Add, Operator::Sub, Operator::Mul, Operator::Div, Operator::Mod];

    /// The operator's bit in an `OperatorMask`.
    pub const fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The name used in settings texts, witnesses and the GDL description.
    pub const fn name(self) -> &'static str {
        match self {
            Operator::Add => "add",
            Operator::Sub => "sub",
            Operator::Mul => "mul",
            Operator::Div => "div",
            Operator::Mod => "mod",
        }
    }

    pub const fn symbol(self) -> &'static str {
        match self {
            Operator::Add => "+",
            Operator::Sub => "-",
            Operator::Mul => "*",
            Operator::Div => "/",
            Operator::Mod => "mod",
        }
    }

    pub fn from_name(name: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|op| op.name() == name)
    }

    /// `attacker op support` on whole numbers: floored division and its
    /// remainder (the values are never negative, so floor = truncation);
    /// division and remainder by zero give no result.
    pub const fn apply(self, attacker: u8, support: u8) -> Option<i16> {
        let (a, s) = (attacker as i16, support as i16);
        match self {
            Operator::Add => Some(a + s),
            Operator::Sub => Some(a - s),
            Operator::Mul => Some(a * s),
            Operator::Div if s == 0 => None,
            Operator::Div => Some(a / s),
            Operator::Mod if s == 0 => None,
            Operator::Mod => Some(a % s),
        }
    }

    /// The capture distance the operator gives, when its result is positive.
    pub const fn capture_distance(self, attacker: u8, support: u8) -> Option<u8> {
        match self.apply(attacker, support) {
            Some(r) if r > 0 && r <= u8::MAX as i16 => Some(r as u8),
            _ => None,
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which operators are enabled: one bit per operator in `Operator` order
/// (add = 1, sub = 2, mul = 4, div = 8, mod = 16), so 32 masks.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct OperatorMask(u8);

impl OperatorMask {
    pub const ALL: OperatorMask = OperatorMask(0b11111);
    pub const NONE: OperatorMask = OperatorMask(0);

    /// The mask of these bits, or `None` above 31.
    pub const fn from_bits(bits: u8) -> Option<OperatorMask> {
        if bits <= 0b11111 {
            Some(OperatorMask(bits))
        } else {
            None
        }
    }

    pub const fn bits(self) -> u8 {
        self.0
    }

    pub const fn contains(self, op: Operator) -> bool {
        self.0 & op.bit() != 0
    }

    pub const fn with(self, op: Operator) -> OperatorMask {
        OperatorMask(self.0 | op.bit())
    }

    /// The enabled operators in `Operator` order.
    pub fn iter(self) -> impl Iterator<Item = Operator> {
        Operator::ALL.into_iter().filter(move |&op| self.contains(op))
    }

    /// `add+sub+mul+div+mod`, the enabled names joined by `+` in operator
    /// order, or `none`.
    pub fn to_text(self) -> String {
        if self.0 == 0 {
            return "none".to_string();
        }
        self.iter().map(Operator::name).collect::<Vec<_>>().join("+")
    }

    /// Parses `to_text`'s form; names may come in any order but not twice.
    pub fn parse(text: &str) -> Option<OperatorMask> {
        if text == "none" {
            return Some(OperatorMask::NONE);
        }
        let mut mask = OperatorMask::NONE;
        for name in text.split('+') {
            let op = Operator::from_name(name)?;
            if mask.contains(op) {
                return None;
            }
            mask = mask.with(op);
        }
        Some(mask)
    }
}

/// What happens when the horizon is reached.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum HorizonRule {
    /// The higher score wins; equal scores draw (the default).
    Score,
    /// Unconditional draw.
    Draw,
}

impl HorizonRule {
    pub const fn name(self) -> &'static str {
        match self {
            HorizonRule::Score => "score",
            HorizonRule::Draw => "draw",
        }
    }

    pub fn from_name(name: &str) -> Option<HorizonRule> {
        match name {
            "score" => Some(HorizonRule::Score),
            "draw" => Some(HorizonRule::Draw),
            _ => None,
        }
    }
}

/// Every switch of a CoToan task.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Settings {
    /// A side that has captured at least this much wins at once; 0 disables
    /// threshold victory.
    pub threshold: u8,
    /// The game is adjudicated once this many plies have been played.
    pub horizon: u32,
    pub horizon_rule: HorizonRule,
    pub operators: OperatorMask,
    pub starting_player: Color,
}

impl Default for Settings {
    /// Threshold off, 300 plies with score adjudication, all five operators,
    /// Red first.
    fn default() -> Self {
        Settings {
            threshold: 0,
            horizon: DEFAULT_HORIZON,
            horizon_rule: HorizonRule::Score,
            operators: OperatorMask::ALL,
            starting_player: Color::Red,
        }
    }
}

/// A short, stable identity of a task: the first 4 bytes of the SHA-256 of
/// the settings' canonical text, as 8 hex digits.
pub type TaskId = ShortId<Settings>;

impl Settings {
    /// Checks the ranges: threshold 0-45, horizon 1-1000.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if self.threshold > MAX_THRESHOLD {
            return Err(SettingsError::Invalid {
                key: "threshold",
                why: format!("{} is above {MAX_THRESHOLD}, the most a side can capture", self.threshold),
            });
        }
        if self.horizon == 0 || self.horizon > MAX_HORIZON {
            return Err(SettingsError::Invalid {
                key: "horizon",
                why: format!("{} is not in 1-{MAX_HORIZON}", self.horizon),
            });
        }
        Ok(())
    }

    /// The canonical text, e.g.
    /// `cotoan-rules-v1:threshold=0,horizon=300,horizon-rule=score,operators=add+sub+mul+div+mod,start=red`.
    /// Every field is always written, in this order, so equal settings have
    /// equal texts and equal task ids.
    pub fn canonical(&self) -> String {
        self.canonical_text()
    }

    pub fn task_id(&self) -> TaskId {
        TaskId::new(self.short_id())
    }

    /// Fails with an error naming both tasks unless `other` is this one.
    pub fn expect_same(&self, other: &Settings) -> Result<(), SettingsError> {
        self.ensure_same(other)
    }

    /// The side to move after `ply` plies: plies alternate from the starter.
    pub const fn player_at(&self, ply: u32) -> Color {
        if ply % 2 == 1 {
            self.starting_player.opponent()
        } else {
            self.starting_player
        }
    }

    /// The same task with the colours exchanged: only the starting player
    /// changes, since every other switch is colour-blind.
    pub fn color_swapped(&self) -> Settings {
        Settings { starting_player: self.starting_player.opponent(), ..*self }
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl FromStr for Settings {
    type Err = SettingsError;

    /// Parses the canonical text. Fields may come in any order but every one
    /// must be present exactly once, and the version must be this engine's.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Settings::from_canonical(s, Settings::default())
    }
}

impl CanonicalSettings for Settings {
    const FAMILY: SettingsFamily =
        SettingsFamily { name: "cotoan-rules", version: RULES_VERSION, noun: "settings", id_noun: "task" };
    const KEYS: &'static [&'static str] = &["threshold", "horizon", "horizon-rule", "operators", "start"];

    fn values(&self) -> Vec<String> {
        vec![
            self.threshold.to_string(),
            self.horizon.to_string(),
            self.horizon_rule.name().to_string(),
            self.operators.to_text(),
            self.starting_player.name().to_string(),
        ]
    }

    fn read_value(&mut self, key: &'static str, value: &str) -> Result<(), &'static str> {
        match key {
            "threshold" => self.threshold = value.parse().map_err(|_| "is not a number 0-45")?,
            "horizon" => self.horizon = value.parse().map_err(|_| "is not a whole number")?,
            "horizon-rule" => self.horizon_rule = HorizonRule::from_name(value).ok_or("is not score or draw")?,
            "operators" => {
                self.operators = OperatorMask::parse(value)
                    .ok_or("is not `none` or distinct names from add, sub, mul, div, mod joined by `+`")?
            }
            _ => {
                self.starting_player = match value {
                    "red" => Color::Red,
                    "blue" => Color::Blue,
                    _ => return Err("is not red or blue"),
                }
            }
        }
        Ok(())
    }

    fn check(&self) -> Result<(), SettingsError> {
        self.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_follow_the_documented_arithmetic() {
        assert_eq!(Operator::Mul.capture_distance(2, 1), Some(2));
        assert_eq!(Operator::Div.capture_distance(8, 3), Some(2));
        assert_eq!(Operator::Mod.capture_distance(8, 3), Some(2));
        assert_eq!(Operator::Sub.capture_distance(2, 1), Some(1));
        assert_eq!(Operator::Sub.capture_distance(1, 2), None, "negative results give nothing");
        assert_eq!(Operator::Sub.capture_distance(3, 3), None, "zero gives nothing");
        assert_eq!(Operator::Div.apply(5, 0), None);
        assert_eq!(Operator::Mod.apply(5, 0), None);
        assert_eq!(Operator::Div.capture_distance(2, 3), None, "floor(2/3) = 0");
        assert_eq!(Operator::Add.capture_distance(9, 9), Some(18));
    }

    #[test]
    fn all_32_masks_round_trip() {
        for bits in 0..32 {
            let mask = OperatorMask::from_bits(bits).unwrap();
            assert_eq!(OperatorMask::parse(&mask.to_text()), Some(mask));
            assert_eq!(mask.iter().count(), bits.count_ones() as usize);
        }
        assert_eq!(OperatorMask::from_bits(32), None);
        assert_eq!(OperatorMask::ALL.to_text(), "add+sub+mul+div+mod");
        assert_eq!(OperatorMask::parse("mod+add"), Some(OperatorMask::NONE.with(Operator::Add).with(Operator::Mod)));
        for bad in ["", "add+add", "pow", "add+", "none+add"] {
            assert_eq!(OperatorMask::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn canonical_text_round_trips_and_ids_differ() {
        let base = Settings::default();
        assert_eq!(
            base.canonical(),
            "cotoan-rules-v1:threshold=0,horizon=300,horizon-rule=score,operators=add+sub+mul+div+mod,start=red"
        );
        let variants = [
            Settings { threshold: 9, ..base },
            Settings { horizon: 299, ..base },
            Settings { horizon_rule: HorizonRule::Draw, ..base },
            Settings { operators: OperatorMask::from_bits(15).unwrap(), ..base },
            Settings { starting_player: Color::Blue, ..base },
        ];
        for s in [base].iter().chain(&variants) {
            assert_eq!(s.canonical().parse::<Settings>().unwrap(), *s);
            assert_eq!(s.task_id().to_string().parse::<TaskId>().unwrap(), s.task_id());
        }
        for v in variants {
            assert_ne!(v.task_id(), base.task_id(), "{v}");
        }
        let shuffled =
            "cotoan-rules-v1:start=red,operators=add+sub+mul+div+mod,horizon-rule=score,horizon=300,threshold=0";
        assert_eq!(shuffled.parse::<Settings>().unwrap(), base);
    }

    #[test]
    fn malformed_settings_are_errors_that_say_why() {
        let good = Settings::default().canonical();
        for (bad, needle) in [
            (String::new(), "prefix"),
            (good.replace("v1", "v2"), "version"),
            (good.replace("threshold=0", "threshold=46"), "threshold"),
            (good.replace("threshold=0", "threshold=x"), "threshold"),
            (good.replace("horizon=300", "horizon=0"), "horizon"),
            (good.replace("horizon=300", "horizon=1001"), "horizon"),
            (good.replace("score", "coin"), "horizon-rule"),
            (good.replace("add+sub", "add+pow"), "operators"),
            (good.replace("start=red", "start=green"), "start"),
            (good.replace(",start=red", ""), "missing"),
            (format!("{good},threshold=3"), "twice"),
            (format!("{good},clock=on"), "unknown"),
        ] {
            let err = bad.parse::<Settings>().unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }

    #[test]
    fn mismatch_names_both_ids() {
        let a = Settings::default();
        let b = Settings { threshold: 9, ..a };
        let msg = a.expect_same(&b).unwrap_err().to_string();
        assert!(msg.contains(&a.task_id().to_string()) && msg.contains(&b.task_id().to_string()), "{msg}");
    }
}
