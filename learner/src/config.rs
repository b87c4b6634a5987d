//! The training configuration: every coefficient of the recipe, with the
//! reference (Ataraxos) value as its default. A config file names only what
//! it changes; unknown keys and invalid values are errors that name the key.
//!
//! Names become types as the file is read: the ruleset text a `Ruleset`,
//! the layout a `Layout`, the setups a `SetupPolicy` (the players' own
//! names, one table), the preset and device enums. A bad name
//! is a deserialisation error, which toml reports with its key path.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use stratego_engine::{Layout, PieceSet, Ruleset, SetupSource, State, NUM_ACTIONS};
use stratego_model::{ModelConfig, PRESETS};
use stratego_players::setup_policy::{PairedSetups, PolicySetups};
use stratego_players::SetupPolicy;

use crate::config_keys::{not_a_number, section, Accepts, Key};
use crate::stage::{frozen_reference, Stage};
use crate::TrainError;

/// The backend a run trains on (`stratego_model::device` of its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceName {
    /// The default CPU backend.
    Cpu,
    Flex,
    Ndarray,
    Wgpu,
}

impl DeviceName {
    pub fn name(self) -> &'static str {
        match self {
            DeviceName::Cpu => "cpu",
            DeviceName::Flex => "flex",
            DeviceName::Ndarray => "ndarray",
            DeviceName::Wgpu => "wgpu",
        }
    }
}

/// A network size of the model crate (`ModelConfig::preset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    Tiny,
    Small,
    Ataraxos,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Tiny, Preset::Small, Preset::Ataraxos];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Tiny => "tiny",
            Preset::Small => "small",
            Preset::Ataraxos => "ataraxos",
        }
    }

    /// The network's sizes.
    pub fn model(self) -> ModelConfig {
        ModelConfig::preset(self.name()).expect("every preset is one of the model crate's")
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = String;

    fn from_str(name: &str) -> Result<Preset, String> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| format!("unknown preset `{name}` (expected one of {})", PRESETS.join(", ")))
    }
}

/// `game.layout` by its name (`compact`, `full`).
pub(crate) mod setup_name {
    use super::*;

    pub fn serialize<S: Serializer>(setups: &SetupPolicy, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(setups.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SetupPolicy, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

mod opponent_setup_name {
    use super::*;

    pub fn serialize<S: Serializer>(setups: &Option<SetupPolicy>, s: S) -> Result<S::Ok, S::Error> {
        match setups {
            Some(setups) => s.serialize_str(setups.name()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SetupPolicy>, D::Error> {
        super::setup_name::deserialize(d).map(Some)
    }
}

mod layout_name {
    use super::*;

    pub fn serialize<S: Serializer>(layout: &Layout, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(layout.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Layout, D::Error> {
        Layout::from_name(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    pub run: RunConfig,
    pub game: GameConfig,
    pub model: ModelChoice,
    pub selfplay: SelfPlayConfig,
    pub learner: LearnerConfig,
    pub checkpoint: CheckpointConfig,
    pub eval: EvalConfig,
    pub pretrain: PretrainConfig,
    /// The recipe's later stages (`[[stage]]`, `stage.rs`): from an
    /// iteration on, keys of `selfplay`, `learner` and `eval` replaced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stage: Vec<Stage>,
}

section! {
    pub struct RunConfig in "run" {
        /// The seed every random draw of the run derives from (the initial weights, the games of
        /// self-play, of the warm start and of the evaluations, the minibatches).
        pub seed: u64 = 1, Accepts::Rule("a whole number");
        /// Learner iterations (policy versions) to reach; a resumed run stops there too.
        pub iterations: u64 = 100, Accepts::Size(100_000_000);
        /// `cpu` (the default CPU backend), `flex`, `ndarray` or `wgpu`.
        pub device: DeviceName = DeviceName::Cpu, Accepts::Rule("`cpu`, `flex`, `ndarray` or `wgpu` (a GPU backend compiled in)");
        /// A network checkpoint (from `stratego distill`, or any run's
        /// `model.safetensors`) that a new run starts from instead of fresh
        /// weights: its model, layout and rules must be the config's. With
        /// `pretrain.enabled` (and for `stratego distill`) the imitation starts
        /// from it: a round of expert iteration, a searching player of this
        /// network as the teacher (docs/TRAINING.md, "Expert iteration").
        #[serde(skip_serializing_if = "Option::is_none")]
        pub init: Option<PathBuf> = None, Accepts::Rule("a network file of the config's model, layout and piece set (read before a run starts)");
        /// A wall-clock budget: the run stops (with a checkpoint) after the
        /// first iteration that ends past this many minutes of the run's time
        /// (`counters.seconds`, its warm start included), even before
        /// `iterations`. For comparisons at equal wall time.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub max_minutes: Option<f64> = None, Accepts::Rule("a number above 0, at most 525600 (a year)");
        /// Makes the run a function of its seed: the actors play in lockstep
        /// with the learner, one actor at a time, so the same config and seed
        /// write the same checkpoints (docs/TRAINING.md, "Reproducible runs").
        /// Self-play then no longer overlaps learning: slower.
        pub reproducible: bool = false, Accepts::Rule("`true` or `false`");
    }
}

section! {
    pub struct GameConfig in "game" {
        /// The ruleset, written as its canonical text (`stratego-rules-v1:...`).
        #[serde(with = "crate::rules_config")]
        pub rules: Ruleset = Ruleset::classic(), Accepts::Rule("a ruleset's canonical text, or a `[game.rules]` table of its switches");
        /// `compact` (58 planes) or `full` (488).
        #[serde(with = "layout_name")]
        pub layout: Layout = Layout::Compact, Accepts::Rule("`compact` or `full`");
        /// The setup family of the network's armies (a `setup=` name of the
        /// player specs: `random`, `handcrafted`, `handcrafted-v2`, `mixed`,
        /// `structured`, `wide`, ...), in the actors' games, the warm start's
        /// teacher games and its evaluations.
        #[serde(with = "setup_name")]
        pub setups: SetupPolicy = SetupPolicy::Random, Accepts::Rule("a setup family's name");
        /// Where set, each game deals one army from `setups` and the other from
        /// this family, either colour (`PairedSetups`): the network plays its
        /// own recipe against opponents who set up otherwise (issue 49, item 5).
        #[serde(with = "opponent_setup_name", skip_serializing_if = "Option::is_none")]
        pub opponent_setups: Option<SetupPolicy> = None, Accepts::Rule("a setup family's name; unset: both armies from `setups`");
    }
}

impl GameConfig {
    /// The games' setups: both armies from `setups`, or one from it and the
    /// other from `opponent_setups` (either colour, per game).
    pub fn setup_source(&self, set: PieceSet) -> Box<dyn SetupSource> {
        match self.opponent_setups {
            None => Box::new(PolicySetups { policy: self.setups, set }),
            Some(opponent) => Box::new(PairedSetups { own: self.setups, opponent, set }),
        }
    }
}

section! {
    pub struct ModelChoice in "model" {
        /// The network's size: `tiny`, `small` or `ataraxos`.
        pub preset: Preset = Preset::Small, Accepts::Rule("`tiny`, `small` or `ataraxos`");
    }
}

section! {
    pub struct SelfPlayConfig in "selfplay" {
        /// Actor threads, each playing its games in lockstep batches.
        pub actors: usize = 2, Accepts::Size(256);
        /// Games each actor keeps in flight.
        pub games_per_actor: usize = 64, Accepts::Size(65_536);
        /// Sampling temperature of both seats (1 = the policy as it is).
        pub temperature: f32 = 1.0, Accepts::NonNegative;
        /// Largest batch the inference service runs at once.
        pub max_inference_batch: usize = 4096, Accepts::Size(65_536);
        /// Finished games the channel holds before actors block.
        pub channel_capacity: usize = 256, Accepts::Size(1_048_576);
        /// Decisions made by a policy more than this many versions old are dropped.
        pub max_staleness: u64 = 4, Accepts::Rule("a whole number");
        /// Fixed players (specs: `greedy`, `expectimax:depth=1`, `net:PATH` of
        /// a past checkpoint, a field such as `ucc-field`, ...) the network
        /// meets in `opponent_share` of its games.
        pub opponents: Vec<String> = Vec::new(), Accepts::Rule("player specs that can play the run's rules");
        /// The share of games against `opponents`, drawn per game (the opponent
        /// and its seat uniformly); only the network's seat gives decisions. 0
        /// is pure self-play, the reference's recipe; above 0 needs `opponents`.
        pub opponent_share: f64 = 0.0, Accepts::Unit;
        /// Past selves: every `pool_every` iterations the network joins a pool
        /// of at most this many past versions (the newest; 0: no pool).
        pub pool_size: usize = 0, Accepts::AtMost(MAX_POOL as u64);
        /// Iterations between two past selves joining the pool.
        pub pool_every: u64 = 10, Accepts::Size(100_000_000);
        /// The share of games against the pool, drawn per game, the k-th newest
        /// version with a chance in proportion to 1/k (`stratego_selfplay::Pool`);
        /// with `opponent_share` at most 1, and above 0 only with a pool.
        pub pool_share: f64 = 0.0, Accepts::Unit;
        /// Paces the actors: each plays rounds of about one iteration's steps,
        /// granted while the learner wants decisions, plus one round ahead, so
        /// that the games waiting for the learner are recent (docs/TRAINING.md,
        /// "Paced actors"). Off: they play as fast as inference lets them.
        pub paced: bool = false, Accepts::Rule("`true` or `false`");
    }
}

/// `clip(c / (t + 1)^k, floor, ceiling)` of the iteration t.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerSchedule {
    pub c: f64,
    pub k: f64,
    pub floor: f64,
    pub ceiling: f64,
}

impl PowerSchedule {
    pub fn at(&self, iteration: u64) -> f64 {
        (self.c / ((iteration + 1) as f64).powf(self.k)).clamp(self.floor, self.ceiling)
    }
}

not_a_number!(DeviceName, Preset, PowerSchedule);

/// A schedule's parts: finite, `>= 0`, `floor <= ceiling`.
const SCHEDULE: Accepts = Accepts::Rule("`{ c, k, floor, ceiling }`, each finite and >= 0, with floor <= ceiling");

section! {
    /// The learner's coefficients, with the reference's values as defaults
    /// (shared/reference/ataraxos.md, section 5).
    pub struct LearnerConfig in "learner" {
        /// Decisions gathered per iteration (before advantage filtering).
        pub samples_per_iteration: usize = 16384, Accepts::Size(16_777_216);
        /// Samples per gradient step.
        pub minibatch: usize = 400, Accepts::Size(65_536);
        /// Passes over an iteration's samples.
        pub epochs: usize = 1, Accepts::Size(1_000);
        /// TD(lambda) of the win/draw/loss value targets.
        pub td_lambda: f32 = 0.8, Accepts::Unit;
        /// The hand-written leaf's share of every value target, in the warm
        /// start and in RL (`targets::with_leaf`: distillation from the leaf
        /// that `netrollout` scores with). 0, the default, is the results alone.
        pub leaf_target: f32 = 0.0, Accepts::Unit;
        /// GAE lambda of the advantages on P(win) - P(loss) + draw_score P(draw).
        pub gae_lambda: f32 = 0.5, Accepts::Unit;
        /// The worth of a draw to both players in the advantages (a win 1, a
        /// loss -1; the reference's 0). Below 0, a draw is worse than nothing,
        /// against a policy that shuffles to the battleless cap. The value
        /// targets are not changed.
        pub draw_score: f32 = 0.0, Accepts::Score;
        /// Keep samples with |A| at or above this quantile of |A| (and at
        /// least `min_advantage`).
        pub keep_quantile: f32 = 0.75, Accepts::Unit;
        /// The smallest |A| a kept sample has, beside `keep_quantile`.
        pub min_advantage: f32 = 0.01, Accepts::NonNegative;
        /// PPO's clip of the probability ratio.
        pub ppo_clip: f32 = 0.2, Accepts::OpenUnit;
        /// Weight of KL(pi || behaviour).
        pub behaviour_kl: f32 = 0.1, Accepts::NonNegative;
        /// Weight of the value loss.
        pub value_weight: f32 = 1.0, Accepts::NonNegative;
        /// Weight of the belief cross-entropy on hidden opponent squares.
        pub belief_weight: f32 = 1.0, Accepts::NonNegative;
        /// Global gradient-norm clip (as torch's clip_grad_norm_).
        pub grad_clip: f32 = 0.267, Accepts::Positive;
        /// AdamW's decoupled weight decay.
        pub weight_decay: f32 = 0.0, Accepts::NonNegative;
        /// Decay of the exponential moving average of the weights.
        pub ema_decay: f32 = 0.999, Accepts::Unit;
        /// The learning rate's schedule.
        pub lr: PowerSchedule = PowerSchedule { c: 0.5, k: 1.1, floor: 5e-6, ceiling: 1e-4 }, SCHEDULE;
        /// tau_t, the weight of KL(pi || magnet); the magnet is uniform over legal actions.
        pub magnet: PowerSchedule = PowerSchedule { c: 0.05, k: 0.3, floor: 0.001, ceiling: 0.1 }, SCHEDULE;
        /// A policy entropy to hold (nats; 0, the reference's, leaves the magnet
        /// to its schedule). Above 0 the magnet weight is not the schedule's:
        /// each iteration it is `entropy_gain` times how far the last
        /// iteration's mean entropy fell short of this, clamped to the
        /// schedule's [floor, ceiling], so the magnet pushes only while the
        /// policy is collapsing (docs/JOURNAL.md, "Four hours").
        pub entropy_target: f32 = 0.0, Accepts::NonNegative;
        /// The magnet weight per nat of entropy short of `entropy_target`.
        pub entropy_gain: f32 = 0.02, Accepts::NonNegative;
    }
}

impl LearnerConfig {
    /// The magnet weight tau of iteration `t`, the last iteration's mean
    /// policy entropy being `last_entropy` (none before the first).
    pub fn magnet_weight(&self, t: u64, last_entropy: Option<f64>) -> f64 {
        if self.entropy_target <= 0.0 {
            return self.magnet.at(t);
        }
        let short = last_entropy.map_or(0.0, |h| (f64::from(self.entropy_target) - h).max(0.0));
        (f64::from(self.entropy_gain) * short).clamp(self.magnet.floor, self.magnet.ceiling)
    }
}

section! {
    pub struct CheckpointConfig in "checkpoint" {
        /// Iterations (the network trainer) or games (the n-tuple trainer)
        /// between checkpoints; the last always writes one.
        pub every: u64 = 100, Accepts::Size(100_000_000);
        /// Checkpoints kept; older ones are deleted.
        pub keep: usize = 5, Accepts::Size(100_000);
    }
}

section! {
    /// Its keys are checked when evaluations run (`every` above 0).
    pub struct EvalConfig in "eval" {
        /// Iterations between evaluations (0 turns them off).
        pub every: u64 = 100, Accepts::Rule("a whole number; 0: no evaluations");
        /// Games per opponent, played in colour-swapped pairs: an even number.
        pub games: u32 = 20, Accepts::Size(1_000_000);
        /// The players the network is evaluated against (any player spec; the
        /// network draws its setups with `game.setups`, the opponents with their
        /// own `setup=` option).
        pub opponents: Vec<String> = vec!["random".into(), "greedy".into()], Accepts::Rule("player specs");
    }
}

section! {
    /// The warm start by imitation (`distill.rs`): supervised training of the
    /// policy, value and belief heads on games of a teacher player, before RL.
    /// `stratego distill` uses this section whether or not `enabled` is set.
    pub struct PretrainConfig in "pretrain" {
        /// Pretrain when `stratego train` starts a run that has no checkpoint
        /// yet; the result is the run's first checkpoint (and `pretrain.safetensors`).
        pub enabled: bool = false, Accepts::Rule("`true` or `false`");
        /// The teacher, a player spec (`greedy`, `expectimax:depth=2`,
        /// `ntuple:registrations/ntuple-td.safetensors`, `net:PATH`).
        pub teacher: String = "greedy".into(), Accepts::Rule("a player spec");
        /// Teacher games to play (the held-out ones included).
        pub games: usize = 500, Accepts::Size(10_000_000);
        /// Passes over the training decisions.
        pub epochs: usize = 2, Accepts::Size(1_000);
        /// Minibatch size.
        pub batch: usize = 64, Accepts::Size(65_536);
        /// AdamW's learning rate, constant (the optimizer is the learner's:
        /// `learner.weight_decay`, `learner.grad_clip`; the loss weighs value
        /// and belief by `learner.value_weight` and `learner.belief_weight`).
        /// 0 is allowed: the control run of a test that learning shows.
        pub lr: f64 = 1e-3, Accepts::NonNegative;
        /// Share of the games held out of training, to measure teacher
        /// agreement and value loss on games the network has not seen; at
        /// least one game must be left to train on.
        pub holdout: f64 = 0.05, Accepts::UnitBelowOne;
        /// Players the teacher also meets (specs); only the teacher's moves are
        /// learned from in those games.
        pub opponents: Vec<String> = Vec::new(), Accepts::Rule("player specs that can play the run's rules");
        /// Share of the games played against `opponents` (the rest are the
        /// teacher against itself); above 0 needs `opponents`.
        pub opponent_share: f64 = 0.0, Accepts::Unit;
    }
}

impl PretrainConfig {
    /// Games held out of training: `holdout` of them, rounded up.
    pub fn holdout_games(&self) -> usize {
        (self.games as f64 * self.holdout).ceil() as usize
    }
}

/// Every key of the config, section by section, in the file's order.
pub fn keys() -> impl Iterator<Item = &'static Key> {
    [
        RunConfig::KEYS,
        GameConfig::KEYS,
        ModelChoice::KEYS,
        SelfPlayConfig::KEYS,
        LearnerConfig::KEYS,
        CheckpointConfig::KEYS,
        EvalConfig::KEYS,
        PretrainConfig::KEYS,
    ]
    .into_iter()
    .flatten()
}

/// The range every size key accepts (`Accepts::Size` in the key table).
pub fn size_bounds() -> Vec<(&'static str, u64)> {
    keys()
        .filter_map(|k| match k.accepts {
            Accepts::Size(max) => Some((k.path, max)),
            _ => None,
        })
        .collect()
}

/// The most past selves a pool keeps (each is a network in memory).
pub const MAX_POOL: usize = 64;

/// `run.max_minutes` at most a year.
pub const MAX_MINUTES: f64 = 525_600.0;

/// The first dotted key (in sorted order) whose value differs between two
/// resolved config texts, for the message that refuses a resume.
pub(crate) fn first_difference(a: &str, b: &str) -> String {
    fn walk(a: &toml::Table, b: &toml::Table, prefix: &str) -> Option<String> {
        let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
        keys.sort();
        keys.dedup();
        keys.into_iter().find_map(|k| {
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match (a.get(k), b.get(k)) {
                (Some(toml::Value::Table(x)), Some(toml::Value::Table(y))) => walk(x, y, &key),
                (x, y) if x == y => None,
                _ => Some(key),
            }
        })
    }
    let parse = |t: &str| t.parse::<toml::Table>().unwrap_or_default();
    walk(&parse(a), &parse(b), "").unwrap_or_else(|| "?".into())
}

/// The most memory a run may use, and what sets it (for the error message:
/// "more than {what} {bytes}").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub what: &'static str,
}

/// The smallest of the limits this process lives under, where any is
/// known: the machine's memory (`MemTotal`), the container's (cgroup v2
/// `memory.max`, or v1 `memory.limit_in_bytes`), and the address space left
/// under the process's own limit (`ulimit -v`, `RLIMIT_AS` in
/// /proc/self/limits, less the `VmSize` it maps already). A container or a
/// shell limit is what an allocation meets first: checked against the
/// machine alone, a config that fits the machine aborted on an allocation.
pub fn memory_limit() -> Option<MemoryLimit> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let field = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line[key.len()..].split_whitespace().next()?.parse().ok()
    };
    let machine = read("/proc/meminfo")
        .and_then(|t| field(&t, "MemTotal:"))
        .and_then(|kib| kib.checked_mul(1024))
        .map(|bytes| MemoryLimit { bytes, what: "this machine's" });
    // "max" (v2) or a page-rounded huge number (v1) mean no limit.
    let container = read("/sys/fs/cgroup/memory.max")
        .or_else(|| read("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
        .and_then(|t| t.trim().parse::<u64>().ok())
        .filter(|&b| b < 1 << 60)
        .map(|bytes| MemoryLimit { bytes, what: "the container's limit (cgroup) of" });
    let address_space = read("/proc/self/limits").and_then(|t| field(&t, "Max address space")).map(|limit| {
        let mapped = read("/proc/self/status").and_then(|t| field(&t, "VmSize:")).unwrap_or(0).saturating_mul(1024);
        MemoryLimit {
            bytes: limit.saturating_sub(mapped),
            what: "the address space left under this process's limit (ulimit -v),",
        }
    });
    [machine, container, address_space].into_iter().flatten().min_by_key(|l| l.bytes)
}

/// docs/TRAINING.md's table of every key: its default, what it accepts and
/// what it means, all from the key table (`config_keys`).
pub fn keys_markdown() -> String {
    key_table(keys(), &toml::Table::try_from(TrainConfig::default()).expect("the defaults serialize"))
}

/// The docs' table of `keys` (either trainer's), each with its default
/// as the resolved `defaults` hold it.
pub fn key_table<'a>(keys: impl Iterator<Item = &'a Key>, defaults: &toml::Table) -> String {
    // A table cell cannot hold a bare `|`.
    let cell = |t: String| t.replace('|', "\\|");
    let mut text = String::from("| key | default | accepts | meaning |\n|---|---|---|---|\n");
    for key in keys {
        let default = match key.path.split_once('.') {
            Some((section, name)) => defaults.get(section).and_then(|t| t.get(name)),
            None => defaults.get(key.path),
        }
        .map_or("unset".to_string(), |v| cell(format!("`{}`", shown(v))));
        text.push_str(&format!(
            "| `{}` | {default} | {} | {} |\n",
            key.path,
            cell(key.accepts.words()),
            cell(key.doc())
        ));
    }
    text
}

/// A default as the docs show it: an `f32` key's value as written (`0.8`),
/// not widened as TOML writes it (`0.800000011920929`).
fn shown(value: &toml::Value) -> String {
    match value {
        toml::Value::Float(v) if f64::from(*v as f32) == *v => format!("{:?}", *v as f32),
        other => other.to_string(),
    }
}

/// `value` within `key`'s bound (`Accepts::Size` in the key table).
#[cfg(test)]
fn check_size(key: &str, value: u64) -> Result<(), TrainError> {
    let max = size_bounds().into_iter().find(|(k, _)| *k == key).map(|(_, m)| m).expect("every size key has a bound");
    Accepts::Size(max).check(key, &value)
}

fn invalid(key: &str, why: impl std::fmt::Display) -> TrainError {
    TrainError::config(key, why)
}

/// A toml error on one line, naming the key: "`run.device`: unknown
/// variant `tpu`, expected one of `cpu`, ... (line 2)".
fn toml_error(text: &str, e: toml::de::Error) -> TrainError {
    TrainError::config_text(stratego_support::toml_line::one_line(text, e))
}

impl TrainConfig {
    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<TrainConfig, TrainError> {
        let text = stratego_support::files::read_text(path)
            .map_err(|e| TrainError::config_text(format!("cannot read {}: {e}", path.display())))?;
        let config = TrainConfig::parse(&text).map_err(|e| e.in_file(path))?;
        Ok(config)
    }

    /// Parses and checks a config text.
    pub fn parse(text: &str) -> Result<TrainConfig, TrainError> {
        let mut config: TrainConfig = toml::from_str(text).map_err(|e| toml_error(text, e))?;
        config.expand_fields();
        config.validate()?;
        Ok(config)
    }

    /// Every field named among the opponents (`ucc-field`, `lab-field`:
    /// `stratego_roster::FIELDS`) replaced by its players.
    pub fn expand_fields(&mut self) {
        self.selfplay.opponents = stratego_roster::expand(&self.selfplay.opponents);
        self.eval.opponents = stratego_roster::expand(&self.eval.opponents);
        self.pretrain.opponents = stratego_roster::expand(&self.pretrain.opponents);
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a config always serializes")
    }

    /// Checks the values the types do not (ranges, counts, the opponents),
    /// and the config of every stage; errors name the key.
    pub fn validate(&self) -> Result<(), TrainError> {
        self.validate_values()?;
        self.validate_stages()
    }

    /// The config each stage of the recipe runs: the config itself (without
    /// its stages) first, then one per `[[stage]]`, each over the one before.
    pub fn stages(&self) -> Result<Vec<TrainConfig>, TrainError> {
        let mut configs = vec![TrainConfig { stage: Vec::new(), ..self.clone() }];
        for stage in &self.stage {
            let next = configs.last().expect("the first is there").with_stage(stage)?;
            configs.push(next);
        }
        Ok(configs)
    }

    /// The config a stage runs: this one (the stage before's) with the
    /// stage's keys in place and no stages of its own. Errors name the
    /// section (`stage.selfplay`) and the stage.
    pub fn with_stage(&self, stage: &Stage) -> Result<TrainConfig, TrainError> {
        let mut config = self.clone();
        config.stage.clear();
        config.selfplay = stage.replace(&self.selfplay, &stage.selfplay, "selfplay")?;
        config.learner = stage.replace(&self.learner, &stage.learner, "learner")?;
        config.eval = stage.replace(&self.eval, &stage.eval, "eval")?;
        config.expand_fields();
        Ok(config)
    }

    /// The stages: in order, after iteration 0; each one's config valid,
    /// its `@N` networks frozen by itself or a stage before it, and the
    /// optimizer kept unless the stage restarts. The config before them
    /// names no `@N` network: there is none yet.
    fn validate_stages(&self) -> Result<(), TrainError> {
        for (key, spec) in self.specs().chain(self.pretrain_specs()) {
            if frozen_reference(spec).map_err(|e| invalid(key, &e))?.is_some() {
                return Err(invalid(key, format!("`{spec}` names a network of a stage; only a [[stage]] can")));
            }
        }
        let mut before = 0;
        for stage in &self.stage {
            if stage.from <= before {
                let why =
                    format!("{} does not come after {before} (stages begin after iteration 0, in order)", stage.from);
                return Err(stage.error("stage.from", why));
            }
            before = stage.from;
        }
        let configs = self.stages()?;
        for (stage, pair) in self.stage.iter().zip(configs.windows(2)) {
            let (earlier, config) = (&pair[0], &pair[1]);
            config.validate_values().map_err(|e| stage.rekey(e))?;
            if !stage.restart && config.learner.weight_decay != earlier.learner.weight_decay {
                let why = "changes the optimizer, which only a stage with `restart = true` may";
                return Err(stage.error("stage.learner.weight_decay", why));
            }
            for (key, spec) in config.specs() {
                let frozen = frozen_reference(spec).map_err(|e| stage.error(&format!("stage.{key}"), &e))?;
                if let Some(n) = frozen.filter(|n| !self.stage.iter().any(|s| s.from == *n && s.from <= stage.from)) {
                    let why = format!("`{spec}`: no stage up to this one begins at iteration {n}");
                    return Err(stage.error(&format!("stage.{key}"), why));
                }
            }
        }
        Ok(())
    }

    /// The player specs a stage may change, with their keys.
    fn specs(&self) -> impl Iterator<Item = (&'static str, &String)> {
        (self.selfplay.opponents.iter().map(|o| ("selfplay.opponents", o)))
            .chain(self.eval.opponents.iter().map(|o| ("eval.opponents", o)))
    }

    /// The warm start's player specs, with their keys.
    fn pretrain_specs(&self) -> impl Iterator<Item = (&'static str, &String)> {
        [("pretrain.teacher", &self.pretrain.teacher)]
            .into_iter()
            .chain(self.pretrain.opponents.iter().map(|o| ("pretrain.opponents", o)))
    }

    /// The checks of one config's own values, its stages aside: what
    /// [`Self::validate`] checks of the base and of each stage's config.
    fn validate_values(&self) -> Result<(), TrainError> {
        // Each key within what the key table says it accepts; an
        // evaluation's keys only where evaluations run.
        self.run.check_keys()?;
        self.game.check_keys()?;
        self.model.check_keys()?;
        self.selfplay.check_keys()?;
        self.learner.check_keys()?;
        self.checkpoint.check_keys()?;
        if self.eval.every > 0 {
            self.eval.check_keys()?;
        }
        self.pretrain.check_keys()?;
        let l = &self.learner;
        for (key, s) in [("learner.lr", &l.lr), ("learner.magnet", &l.magnet)] {
            let ok = [s.c, s.k, s.floor, s.ceiling].iter().all(|v| v.is_finite() && *v >= 0.0) && s.floor <= s.ceiling;
            if !ok {
                return Err(invalid(key, "needs finite c, k, floor, ceiling >= 0 with floor <= ceiling"));
            }
        }
        // Parsed only (name, path, syntax): the files a spec names are read
        // by `check_before_run`, not by every parse of a config.
        let players = stratego_roster::players();
        for opponent in &self.eval.opponents {
            players.parse(opponent).map_err(|e| invalid("eval.opponents", e))?;
        }
        if self.eval.every > 0 && (self.eval.games == 0 || !self.eval.games.is_multiple_of(2)) {
            return Err(invalid("eval.games", "must be a positive even number (games are played in pairs)"));
        }
        let s = &self.selfplay;
        self.validate_opponents("selfplay", &s.opponents, s.opponent_share)?;
        self.validate_pool()?;
        if let Some(m) = self.run.max_minutes.filter(|m| !(m.is_finite() && *m > 0.0 && *m <= MAX_MINUTES)) {
            return Err(invalid("run.max_minutes", format!("{m} must be a number in (0, {MAX_MINUTES}]")));
        }
        self.validate_pretrain()
    }

    /// Checks what the config names outside its own text, before a run
    /// starts (or resumes): builds every player it names, reading their
    /// files, and checks that those that play the run's games can play its
    /// rules (a `net:` checkpoint that does not load is an error now, not at
    /// the first evaluation); reads `run.init`'s metadata and checks it
    /// against the model and the rules. [`TrainConfig::parse`] reads no file.
    pub fn check_before_run(&self) -> Result<(), TrainError> {
        // The machine's and the process's limits: here, not in `validate`,
        // so that whether a config parses does not depend on the machine.
        self.validate_memory(memory_limit())?;
        self.check_players(true)?;
        for (stage, config) in self.stage.iter().zip(self.stages()?.iter().skip(1)) {
            config.check_players(false).map_err(|e| stage.rekey(e))?;
        }
        if let Some(init) = &self.run.init {
            let meta = stratego_model::read_meta(init).map_err(|e| invalid("run.init", e))?;
            let (preset, layout) = (self.model.preset, self.game.layout);
            if meta.config != preset.model() || meta.layout != layout {
                let theirs = Preset::ALL.into_iter().find(|p| p.model() == meta.config).map_or("custom", Preset::name);
                return Err(invalid(
                    "run.init",
                    format!(
                        "{} is a {theirs} network on the {} layout, the config trains {preset} on {layout}",
                        init.display(),
                        meta.layout
                    ),
                ));
            }
            // A network trained under other progress rules or caps is a
            // warm start as it is an opponent (`same_rules`): its planes
            // and actions are the piece set's, and the run's checkpoints
            // carry the run's rules. Another piece set is refused.
            stratego_players::player::same_rules("run.init", &meta.rules, &self.game.rules)
                .map_err(|e| invalid("run.init", format!("{}: {e}", init.display())))?;
        }
        Ok(())
    }

    /// Builds the players the config names (the warm start's too with
    /// `pretrain`), reading their files, and checks that those that play
    /// the run's games can play its rules. A stage's `@N` networks are made
    /// by the run: they are checked when the stage begins.
    fn check_players(&self, pretrain: bool) -> Result<(), TrainError> {
        let players = stratego_roster::players();
        let build = |key: &str, spec: &str| players.factory(spec).map_err(|e| invalid(key, e));
        let made_by_the_run = |spec: &str| matches!(frozen_reference(spec), Ok(Some(_)));
        for opponent in self.eval.opponents.iter().filter(|o| !made_by_the_run(o)) {
            build("eval.opponents", opponent)?;
        }
        let rules = &self.game.rules;
        // The pretrain section's players too when it is off: `stratego
        // distill` plays them whatever `pretrain.enabled` says.
        let warm_start = self.pretrain_specs().filter(|_| pretrain);
        let playing = (self.selfplay.opponents.iter().map(|o| ("selfplay.opponents", o))).chain(warm_start);
        for (key, spec) in playing.filter(|(_, spec)| !made_by_the_run(spec)) {
            let factory = build(key, spec)?;
            factory
                .check_rules(rules)
                .map_err(|why| TrainError::RulesMismatch { key: key.to_string(), why: why.to_string() })?;
        }
        Ok(())
    }

    /// The buffers whose sizes are products of keys, each with the bytes it
    /// needs at least: every key can be within its bound while a product
    /// is not (256 actors of 65,536 games would need about 400 GB of
    /// observation planes alone, and aborted on an allocation).
    pub fn memory_parts(&self) -> Vec<(String, u64)> {
        let obs = self.game.layout.size() as u64 * 4;
        let mask = NUM_ACTIONS as u64;
        // Per self-play game, in an actor's step: its observation planes
        // three times (the actor's buffer, the copy it sends to the inference
        // service, the network's input), its legal mask twice, the network's
        // answer (a probability per action and per belief cell, f32) and the
        // state itself (its history grows on the heap besides). Counting the
        // planes once, 65,536 games passed the check under a 4 GB
        // `ulimit -v` and aborted on their first 760 MB copy.
        let belief = (stratego_engine::Square::COUNT * stratego_engine::PieceType::COUNT) as u64;
        let answer = 4 * (NUM_ACTIONS as u64 + belief);
        let per_game = 3 * obs + 2 * mask + answer + std::mem::size_of::<State>() as u64;
        // Per batched decision: the planes in and a logit per action out.
        let per_row = obs + 4 * mask;
        let (s, l, p) = (&self.selfplay, &self.learner, &self.pretrain);
        let games = (s.actors as u64).saturating_mul(s.games_per_actor as u64);
        let layout = self.game.layout;
        vec![
            (
                format!("`selfplay.actors` x `selfplay.games_per_actor` = {games} games at {per_game} bytes each ({layout} layout)"),
                games.saturating_mul(per_game),
            ),
            (format!("`selfplay.max_inference_batch` at {per_row} bytes a row"), (s.max_inference_batch as u64).saturating_mul(per_row)),
            (format!("`learner.minibatch` at {per_row} bytes a row"), (l.minibatch as u64).saturating_mul(per_row)),
            (format!("`pretrain.batch` at {per_row} bytes a row"), (p.batch as u64).saturating_mul(per_row)),
        ]
    }

    /// Refuses a config whose buffers (`memory_parts`) add up to more than
    /// the limit (`memory_limit`; no check where none is known).
    fn validate_memory(&self, limit: Option<MemoryLimit>) -> Result<(), TrainError> {
        let Some(MemoryLimit { bytes: available, what }) = limit else { return Ok(()) };
        let parts = self.memory_parts();
        let total = parts.iter().fold(0u64, |t, (_, b)| t.saturating_add(*b));
        if total <= available {
            return Ok(());
        }
        let (largest, bytes) = parts.iter().max_by_key(|(_, b)| *b).expect("parts");
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        Err(TrainError::config_text(format!(
            "too large: the buffers need at least {:.1} GiB, more than {what} {:.1} GiB: {largest} need {:.1} GiB",
            gib(total),
            gib(available),
            gib(*bytes)
        )))
    }

    fn validate_pretrain(&self) -> Result<(), TrainError> {
        let p = &self.pretrain;
        stratego_roster::players().parse(&p.teacher).map_err(|e| invalid("pretrain.teacher", e))?;
        if p.games == 0 || p.holdout_games() >= p.games {
            return Err(invalid(
                "pretrain.games",
                format!("{} leaves no game to train on after holding out {}", p.games, p.holdout_games()),
            ));
        }
        self.validate_opponents("pretrain", &p.opponents, p.opponent_share)
    }

    /// The pool of past selves: its share a fraction that leaves room for
    /// the fixed opponents' share, and a pool to draw from when it is used.
    fn validate_pool(&self) -> Result<(), TrainError> {
        let s = &self.selfplay;
        if s.pool_share > 0.0 && s.pool_size == 0 {
            return Err(invalid("selfplay.pool_share", "is above 0 but `selfplay.pool_size` is 0"));
        }
        if s.opponent_share + s.pool_share > 1.0 {
            return Err(invalid(
                "selfplay.pool_share",
                format!("{} and `selfplay.opponent_share` {} add up to more than 1", s.pool_share, s.opponent_share),
            ));
        }
        Ok(())
    }

    /// A section's `opponents` (players that can play the run's rules) and
    /// the share of games they play.
    fn validate_opponents(&self, section: &str, opponents: &[String], share: f64) -> Result<(), TrainError> {
        let key = format!("{section}.opponents");
        let players = stratego_roster::players();
        for spec in opponents {
            players.parse(spec).map_err(|e| invalid(&key, e))?;
        }
        let share_key = format!("{section}.opponent_share");
        if share > 0.0 && opponents.is_empty() {
            return Err(invalid(&share_key, format!("is above 0 but `{key}` is empty")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/TRAINING.md lists every key of the key table as defined
    /// (`UPDATE_TRAINING_DOCS=1` rewrites it).
    #[test]
    fn docs_list_every_key() {
        const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/TRAINING.md");
        const BEGIN: &str = "<!-- BEGIN GENERATED CONFIG KEYS (cargo test -p stratego-learner config) -->\n";
        const END: &str = "<!-- END GENERATED CONFIG KEYS -->";
        let test = "cargo test -p stratego-learner config";
        stratego_support::generated_docs::check(DOC, BEGIN, END, &keys_markdown(), "UPDATE_TRAINING_DOCS", test)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    /// The key table is the config: every key a config file holds is in
    /// it (and in no other order), each with its documentation.
    #[test]
    fn the_key_table_holds_every_key_with_its_doc() {
        let mut config = TrainConfig::default();
        // The keys written only when set.
        config.run.init = Some("x.safetensors".into());
        config.run.max_minutes = Some(1.0);
        config.game.opponent_setups = Some(SetupPolicy::Wide);
        let written = toml::Table::try_from(&config).unwrap();
        let mut paths = Vec::new();
        for (section, table) in &written {
            for key in table.as_table().unwrap().keys() {
                paths.push(format!("{section}.{key}"));
            }
        }
        let mut table: Vec<String> = keys().map(|k| k.path.to_string()).collect();
        paths.sort();
        table.sort();
        assert_eq!(paths, table);
        for key in keys() {
            assert!(key.doc().len() > 10 && key.doc().ends_with(['.', ')']), "{}: {:?}", key.path, key.doc());
        }
        let words = keys().find(|k| k.path == "run.max_minutes").unwrap().accepts.words();
        assert!(words.contains(&MAX_MINUTES.to_string()), "{words}");
    }

    #[test]
    fn sizes_past_their_bounds_are_refused_at_parse_time() {
        for (text, key) in [
            ("[learner]\nsamples_per_iteration = 4611686018427387904\n", "learner.samples_per_iteration"),
            ("[selfplay]\ngames_per_actor = 100000\n", "selfplay.games_per_actor"),
            ("[selfplay]\nactors = 0\n", "selfplay.actors"),
            ("[run]\nmax_minutes = 1e9\n", "run.max_minutes"),
        ] {
            let err = TrainConfig::parse(text).unwrap_err().to_string();
            assert!(err.contains(key) && !err.contains('\n'), "{text}: {err}");
        }
        for (key, _) in size_bounds() {
            assert!(check_size(key, 0).is_err() && check_size(key, 1).is_ok(), "{key}");
        }
    }

    /// Keys each within its bound whose product is not: refused with the
    /// product named, before any buffer is allocated.
    #[test]
    fn products_of_sizes_are_checked_against_memory() {
        let mut c = TrainConfig::default();
        (c.selfplay.actors, c.selfplay.games_per_actor) = (256, 65_536);
        let machine = |gib: u64| Some(MemoryLimit { bytes: gib << 30, what: "this machine's" });
        let err = c.validate_memory(machine(128)).unwrap_err().to_string();
        assert!(err.contains("`selfplay.actors` x `selfplay.games_per_actor` = 16777216 games"), "{err}");
        assert!(err.contains("more than this machine's 128.0 GiB") && !err.contains('\n'), "{err}");
        // The same before a run on any machine with less than ~1.5 TB; a
        // config parses whatever the machine.
        assert!(c.check_before_run().unwrap_err().to_string().contains("`selfplay.games_per_actor` = 16777216 games"));
        assert!(c.validate().is_ok());
        // Every config of the repository fits a 24 GiB machine.
        let configs = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs");
        for entry in std::fs::read_dir(configs).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") && !path.to_string_lossy().contains("ntuple") {
                let config: TrainConfig = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                config.validate_memory(machine(24)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
    }

    #[test]
    fn defaults_are_the_reference_values_and_validate() {
        let c = TrainConfig::default();
        assert_eq!((c.learner.td_lambda, c.learner.gae_lambda, c.learner.ppo_clip), (0.8, 0.5, 0.2));
        assert_eq!(c.learner.lr.at(0), 1e-4);
        assert!((c.learner.lr.at(100_000) - 5e-6).abs() < 1e-12);
        assert!((c.learner.magnet.at(42_399) - 0.05 / 42_400f64.powf(0.3)).abs() < 1e-12);
        c.validate().unwrap();
        assert_eq!(TrainConfig::parse(&c.to_toml()).unwrap(), c);
    }

    #[test]
    fn opponent_setups_are_read_written_back_and_left_out_when_unset() {
        let c = TrainConfig::parse("[game]\nsetups = \"handcrafted\"\nopponent_setups = \"wide\"\n").unwrap();
        assert_eq!((c.game.setups, c.game.opponent_setups), (SetupPolicy::Handcrafted, Some(SetupPolicy::Wide)));
        assert!(c.to_toml().contains("opponent_setups = \"wide\""), "{}", c.to_toml());
        assert_eq!(TrainConfig::parse(&c.to_toml()).unwrap(), c);
        let plain = TrainConfig::parse("[game]\nsetups = \"handcrafted\"\n").unwrap();
        assert_eq!(plain.game.opponent_setups, None);
        assert!(!plain.to_toml().contains("opponent_setups"), "{}", plain.to_toml());
        let e = TrainConfig::parse("[game]\nopponent_setups = \"clever\"\n").unwrap_err().to_string();
        assert!(e.contains("`wide`") && e.contains("`decoy`"), "the error lists the names: {e}");
    }

    /// `decoy` is the family kept out of training, so that the lab can
    /// measure its networks against setups they have never met (issue 49,
    /// item 5): no config of the repository deals it or names it.
    #[test]
    fn no_repository_config_trains_on_the_kept_out_family() {
        let configs = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs");
        let mut read = 0;
        for entry in std::fs::read_dir(configs).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Any value, an opponent's or a teacher's spec included (a
            // comment may name the family to say it is kept out).
            fn strings(value: &toml::Value, out: &mut Vec<String>) {
                match value {
                    toml::Value::String(s) => out.push(s.clone()),
                    toml::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
                    toml::Value::Table(table) => table.values().for_each(|v| strings(v, out)),
                    _ => {}
                }
            }
            let mut values = Vec::new();
            strings(&toml::Value::Table(toml::from_str(&text).unwrap()), &mut values);
            assert!(!values.iter().any(|v| v.contains("decoy")), "{} names the kept-out family", path.display());
            read += 1;
        }
        assert!(read > 10, "{read} configs read");
    }

    #[test]
    fn names_are_read_as_types_and_written_back_as_names() {
        let text = "[run]\ndevice = \"ndarray\"\n[game]\nlayout = \"full\"\nsetups = \"handcrafted\"\n\
                    rules = \"stratego-rules-v1:pieces=barrage,two-square=3,chase=off,max-plies=300,max-battleless=100\"\n\
                    [model]\npreset = \"tiny\"\n";
        let c = TrainConfig::parse(text).unwrap();
        assert_eq!(c.run.device, DeviceName::Ndarray);
        assert_eq!(
            (c.game.layout, c.game.setups, c.model.preset),
            (Layout::Full, SetupPolicy::Handcrafted, Preset::Tiny)
        );
        assert_eq!(
            c.game.rules,
            Ruleset { max_plies: 300, max_battleless_plies: 100, chase_rule: false, ..Ruleset::barrage() }
        );
        assert_eq!(c.model.preset.model(), ModelConfig::preset("tiny").unwrap());
        let v2 = TrainConfig::parse(&text.replace("\"handcrafted\"", "\"handcrafted-v2\"")).unwrap();
        assert_eq!(v2.game.setups, SetupPolicy::HandcraftedV2);
        assert!(v2.to_toml().contains("setups = \"handcrafted-v2\""));
        let written = c.to_toml();
        assert!(written.contains("layout = \"full\"") && written.contains("device = \"ndarray\""), "{written}");
        assert_eq!(TrainConfig::parse(&written).unwrap(), c);
        // The presets are exactly the model crate's.
        assert_eq!(Preset::ALL.map(Preset::name), PRESETS);
        for preset in Preset::ALL {
            assert_eq!(preset.name().parse::<Preset>().unwrap(), preset);
        }
        assert!("giant".parse::<Preset>().unwrap_err().contains("tiny, small, ataraxos"));
    }

    #[test]
    fn the_pretrain_section_is_read_with_its_defaults() {
        assert!(!TrainConfig::default().pretrain.enabled);
        let c =
            TrainConfig::parse("[pretrain]\nenabled = true\nteacher = \"expectimax:depth=2\"\ngames = 40\n").unwrap();
        let p = &c.pretrain;
        assert!(p.enabled);
        assert_eq!((p.teacher.as_str(), p.games, p.holdout_games()), ("expectimax:depth=2", 40, 2));
        assert_eq!((p.epochs, p.batch, p.lr), (PretrainConfig::default().epochs, 64, 1e-3));
        assert_eq!(TrainConfig::parse(&c.to_toml()).unwrap(), c);
        let shipped = TrainConfig::parse(include_str!("../../configs/distill-tiny.toml")).unwrap();
        assert!(shipped.pretrain.enabled && shipped.pretrain.teacher.starts_with("expectimax:depth=2,"));
        // A config written before the section existed reads as "off".
        assert_eq!(TrainConfig::parse("[run]\nseed = 3\n").unwrap().pretrain, PretrainConfig::default());
    }

    /// The ruleset as its canonical text or as a table of its switches
    /// (the n-tuple configs' spelling) reads the same; the text is what a
    /// run's `config.toml` holds.
    #[test]
    fn the_ruleset_reads_as_its_text_or_as_a_table() {
        let text = TrainConfig::parse(include_str!("../../configs/smoke.toml")).unwrap();
        let table = TrainConfig::parse(&include_str!("../../configs/smoke.toml").replace(
            "rules = \"stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=300,max-battleless=100\"\n",
            "",
        ).replace("[model]\n", "[game.rules]\nmax-plies = 300\nmax-battleless = 100\n\n[model]\n"))
        .unwrap();
        assert_eq!(table, text);
        assert!(table.to_toml().contains(&format!("rules = \"{}\"", text.game.rules.canonical())));
        let e = TrainConfig::parse("[game.rules]\nchase = \"maybe\"\n").unwrap_err().to_string();
        assert!(e.contains("`game.rules.chase`"), "{e}");
    }

    #[test]
    fn the_magnet_follows_its_schedule_or_the_entropy_it_holds() {
        let scheduled = LearnerConfig::default();
        for t in [0, 10, 1000] {
            assert_eq!(scheduled.magnet_weight(t, Some(0.1)), scheduled.magnet.at(t));
        }
        let held = LearnerConfig {
            entropy_target: 0.9,
            entropy_gain: 0.02,
            magnet: PowerSchedule { c: 0.0, k: 0.0, floor: 0.0, ceiling: 0.01 },
            ..LearnerConfig::default()
        };
        // 0.2 nats short: 0.02 * 0.2; at or above the target: nothing; far
        // short: the ceiling; before any entropy is measured: the floor.
        assert!((held.magnet_weight(5, Some(0.7)) - 0.004).abs() < 1e-9);
        assert_eq!((held.magnet_weight(5, Some(0.9)), held.magnet_weight(5, Some(2.0))), (0.0, 0.0));
        assert_eq!(held.magnet_weight(5, Some(0.0)), 0.01);
        assert_eq!(held.magnet_weight(0, None), 0.0);
        let floored = LearnerConfig { magnet: PowerSchedule { floor: 0.001, ..held.magnet }, ..held };
        assert_eq!((floored.magnet_weight(0, None), floored.magnet_weight(9, Some(1.5))), (0.001, 0.001));
    }

    /// Two stages over a base: each changes only what it names, over the
    /// one before; a stage's `@N` network needs no file before the run.
    const STAGED: &str = r#"
[selfplay]
opponents = ["greedy"]
opponent_share = 0.5
[learner]
lr = { c = 2e-4, k = 0.0, floor = 2e-4, ceiling = 2e-4 }
[[stage]]
from = 10
restart = true
[stage.selfplay]
opponents = ["greedy", "net:@10,temperature=0"]
opponent_share = 0.75
[stage.learner]
draw_score = -0.25
lr = { c = 0.08, k = 1.0, floor = 2e-5, ceiling = 2e-4 }
[[stage]]
from = 20
[stage.eval]
opponents = ["random", "net:@10"]
"#;

    /// A field's name among the opponents is its players; an outside
    /// program, which plays the setup it chooses, may be an evaluation
    /// opponent and a self-play one (the actors seat it with its own setup),
    /// under rules it can know.
    #[test]
    fn fields_expand_and_outside_programs_are_opponents_under_rules_they_know() {
        let c = TrainConfig::parse("[eval]\nopponents = [\"random\", \"ucc-field\"]\n").unwrap();
        assert_eq!(c.eval.opponents.len(), 6);
        assert_eq!(c.eval.opponents[1], "ucc:asmodeus");
        let bot = std::env::temp_dir().join(format!("stratego-config-bot-{}", std::process::id()));
        std::fs::write(&bot, "#!/bin/sh\nexit 0\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
        let rules = "[game]\nrules = \"referee\"\n";
        let eval = format!("{rules}[eval]\nopponents = [\"ucc:{}\"]\n", bot.display());
        TrainConfig::parse(&eval).unwrap().check_before_run().unwrap();
        let selfplay = format!("{rules}[selfplay]\nopponents = [\"ucc:{}\"]\nopponent_share = 0.5\n", bot.display());
        TrainConfig::parse(&selfplay).unwrap().check_before_run().unwrap();
        // The lab's own rules have progress rules no outside program knows.
        let lab = format!("[selfplay]\nopponents = [\"ucc:{}\"]\nopponent_share = 0.5\n", bot.display());
        let err = TrainConfig::parse(&lab).unwrap().check_before_run().unwrap_err().to_string();
        assert!(err.contains("selfplay.opponents"), "{err}");
        let _ = std::fs::remove_file(&bot);
    }

    #[test]
    fn stages_change_what_they_name_from_their_iteration_on() {
        let c = TrainConfig::parse(STAGED).unwrap();
        let stages = c.stages().unwrap();
        assert_eq!(stages.len(), 3);
        assert!(stages.iter().all(|s| s.stage.is_empty()));
        let (base, spar, last) = (&stages[0], &stages[1], &stages[2]);
        assert_eq!((base.selfplay.opponent_share, base.learner.draw_score), (0.5, 0.0));
        assert_eq!(spar.selfplay.opponents, ["greedy", "net:@10,temperature=0"]);
        assert_eq!((spar.selfplay.opponent_share, spar.learner.draw_score), (0.75, -0.25));
        assert_eq!(spar.learner.lr.at(0), 2e-4);
        // Unnamed keys stay: the base's, which are the defaults here.
        assert_eq!((spar.learner.td_lambda, spar.selfplay.actors), (base.learner.td_lambda, base.selfplay.actors));
        assert_eq!(spar.eval, base.eval);
        // The last stage keeps the one before's self-play and learner.
        assert_eq!((&last.selfplay, &last.learner), (&spar.selfplay, &spar.learner));
        assert_eq!(last.eval.opponents, ["random", "net:@10"]);
        let recipe = crate::recipe::Recipe::new(&c).unwrap();
        assert_eq!([0, 9, 10, 19, 20, 99].map(|t| recipe.stage_index(t)), [0, 0, 1, 1, 2, 2]);
        assert_eq!([0, 9, 10, 25].map(|t| recipe.schedule_origin(t)), [0, 0, 10, 10]);
        assert_eq!(
            [9, 10, 20, 21].map(|t| recipe.stage_beginning_at(t).map(|s| s.from)),
            [None, Some(10), Some(20), None]
        );
        assert_eq!([0, 10, 20].map(|t| recipe.at(t)), [&stages[0], &stages[1], &stages[2]]);
        // Written back whole, and read back the same.
        let written = c.to_toml();
        assert!(written.contains("[[stage]]") && written.contains("[stage.learner]"), "{written}");
        assert_eq!(TrainConfig::parse(&written).unwrap(), c);
        // No stage: nothing written, and one config.
        assert!(!TrainConfig::default().to_toml().contains("stage"));
        assert_eq!(TrainConfig::default().stages().unwrap(), [TrainConfig::default()]);
        c.check_before_run().unwrap();
    }

    #[test]
    fn a_bad_stage_is_refused_naming_the_key_and_the_stage() {
        let staged = |edit: &str| STAGED.replace("from = 10\nrestart = true\n", edit);
        let missing = STAGED.replace("net:@10\"]", "net:@10\", \"net:missing.safetensors\"]");
        for (text, wanted) in [
            (staged("from = 0\nrestart = true\n"), "`stage.from`: in the stage from iteration 0"),
            (staged("from = 30\nrestart = true\n"), "`stage.from`: in the stage from iteration 20: 20 does not"),
            (
                STAGED.replace("opponent_share = 0.75", "opponets = []"),
                "`stage.selfplay.opponets`: in the stage from iteration 10: unknown field `opponets`",
            ),
            (
                STAGED.replace("draw_score = -0.25", "draw_score = \"high\""),
                "`stage.learner.draw_score`: in the stage from iteration 10: invalid type",
            ),
            (
                STAGED.replace("draw_score = -0.25", "td_lambda = 1.5"),
                "`stage.learner.td_lambda`: in the stage from iteration 10: 1.5",
            ),
            (STAGED.replace("[stage.eval]", "[stage.run]"), "unknown field `run`"),
            (STAGED.replace("opponents = [\"greedy\"]", "opponents = [\"net:@10\"]"), "only a [[stage]] can"),
            (
                STAGED.replace("\"net:@10\"]", "\"net:@15\"]"),
                "`stage.eval.opponents`: in the stage from iteration 20: `net:@15`: no stage",
            ),
            (
                STAGED.replace("net:@10,", "net:@20,"),
                "`stage.selfplay.opponents`: in the stage from iteration 10: `net:@20,temperature=0`: no stage",
            ),
            (STAGED.replace("net:@10,", "net:@ten,"), "is not an iteration"),
            (
                staged("from = 10\n").replace("draw_score", "weight_decay = 0.1\ndraw_score"),
                "`stage.learner.weight_decay`",
            ),
            (
                STAGED
                    .replace("opponents = [\"greedy\"]\nopponent_share = 0.5", "")
                    .replace("opponents = [\"greedy\", \"net:@10,temperature=0\"]\n", ""),
                "`stage.selfplay.opponent_share`: in the stage from iteration 10: is above 0",
            ),
        ] {
            let e = TrainConfig::parse(&text).unwrap_err().to_string();
            assert!(e.contains(wanted), "{text}\ngave {e}");
            assert_eq!(e.lines().count(), 1, "one line: {e}");
        }
        // A stage's player files are read before a run as the base's are.
        let e = TrainConfig::parse(&missing).unwrap().check_before_run().unwrap_err().to_string();
        assert!(e.contains("`stage.eval.opponents`: in the stage from iteration 20") && e.contains("missing"), "{e}");
        // With `restart`, a stage may change the optimizer.
        TrainConfig::parse(&STAGED.replace("draw_score", "weight_decay = 0.1\ndraw_score")).unwrap();
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        for (text, key) in [
            ("[learner]\ntd_lamda = 0.8\n", "td_lamda"),
            ("[learner]\ntd_lambda = 1.5\n", "learner.td_lambda"),
            ("[learner]\ndraw_score = -1.5\n", "learner.draw_score"),
            ("[learner]\nentropy_target = -0.5\n", "learner.entropy_target"),
            ("[learner]\nentropy_gain = nan\n", "learner.entropy_gain"),
            ("[game]\nlayout = \"huge\"\n", "game.layout"),
            ("[game]\nsetups = \"clever\"\n", "game.setups"),
            ("[game]\nopponent_setups = \"clever\"\n", "game.opponent_setups"),
            ("[game]\nrules = \"stratego-rules-v1:pieces=mini\"\n", "game.rules"),
            ("[run]\ndevice = \"tpu\"\n", "run.device"),
            ("[model]\npreset = \"giant\"\n", "model.preset"),
            ("[selfplay]\nactors = 0\n", "selfplay.actors"),
            ("[eval]\nopponents = [\"net\"]\n", "eval.opponents"),
            ("[learner.lr]\nc = 1.0\nk = 1.0\nfloor = 0.1\nceiling = 0.01\n", "learner.lr"),
            ("[bogus]\n", "bogus"),
            ("[pretrain]\nteachr = \"greedy\"\n", "teachr"),
            ("[pretrain]\nenabled = \"yes\"\n", "pretrain.enabled"),
            ("[pretrain]\nteacher = \"alphazero\"\n", "pretrain.teacher"),
            ("[pretrain]\ngames = 1\n", "pretrain.games"),
            ("[pretrain]\ngames = -3\n", "pretrain.games"),
            ("[pretrain]\nepochs = 0\n", "pretrain.epochs"),
            ("[pretrain]\nbatch = 0\n", "pretrain.batch"),
            ("[pretrain]\nlr = -1.0\n", "pretrain.lr"),
            ("[pretrain]\nholdout = 1.0\n", "pretrain.holdout"),
            ("[pretrain]\nopponents = [\"nobody\"]\n", "pretrain.opponents"),
            ("[pretrain]\nopponent_share = 0.5\n", "pretrain.opponent_share"),
            ("[run]\nmax_minutes = 0.0\n", "run.max_minutes"),
            ("[selfplay]\nopponents = [\"nobody\"]\n", "selfplay.opponents"),
            ("[selfplay]\nopponent_share = 0.5\n", "selfplay.opponent_share"),
            ("[selfplay]\nopponent_share = -0.1\nopponents = [\"greedy\"]\n", "selfplay.opponent_share"),
            ("[selfplay]\npool_share = 0.5\n", "selfplay.pool_share"),
            ("[selfplay]\npool_size = 4\npool_share = 1.5\n", "selfplay.pool_share"),
            (
                "[selfplay]\npool_size = 4\npool_share = 0.6\nopponent_share = 0.5\nopponents = [\"greedy\"]\n",
                "selfplay.pool_share",
            ),
            ("[selfplay]\npool_size = 65\n", "selfplay.pool_size"),
            ("[selfplay]\npool_every = 0\n", "selfplay.pool_every"),
            ("[pretrain]\nopponent_share = 1.5\nopponents = [\"random\"]\n", "pretrain.opponent_share"),
        ] {
            let e = TrainConfig::parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text:?} gave {e}");
            assert_eq!(e.lines().count(), 1, "one line: {e}");
        }
        // A file a spec names is read when a run starts, not by a parse.
        for (text, key) in [
            ("[eval]\nopponents = [\"net:x.safetensors\"]\n", "eval.opponents"),
            ("[pretrain]\nteacher = \"ntuple:missing.safetensors\"\n", "pretrain.teacher"),
            ("[selfplay]\nopponents = [\"net:gone.safetensors\"]\n", "selfplay.opponents"),
            ("[run]\ninit = \"missing.safetensors\"\n", "run.init"),
        ] {
            let config = TrainConfig::parse(text).unwrap_or_else(|e| panic!("{text:?} gave {e}"));
            let e = config.check_before_run().unwrap_err().to_string();
            assert!(e.contains(key), "{text:?} gave {e}");
            assert_eq!(e.lines().count(), 1, "one line: {e}");
        }
        // A bad name says what it was and what would do.
        let e = TrainConfig::parse("[game]\nlayout = \"huge\"\n").unwrap_err().to_string();
        assert!(e.contains("`game.layout`") && e.contains("huge") && e.contains("line 2"), "{e}");
    }
}
