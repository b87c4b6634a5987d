//! Player specs: the command-line names of players.
//!
//! A spec is a player name, optionally followed by `:` and comma-separated
//! `key=value` options: `random`, `greedy:setup=handcrafted`,
//! `expectimax:depth=3,nodes=20000`. `net:PATH` names a network checkpoint;
//! its players live in the model crate, which plugs in through
//! [`NetworkLoader`] (this crate never depends on it). `ntuple:PATH` names
//! an n-tuple table file (the afterstate player), and
//! `expectimax:leaf=ntuple:PATH` puts the same tables at the leaves of the
//! search; their files are read by [`build`]. Every malformed spec is a
//! [`SpecError`] that says what is wrong.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::expectimax::{ExpectimaxConfig, ExpectimaxPlayer, Leaf};
use crate::greedy::GreedyPlayer;
use crate::ntuple::{NTupleFactory, NTupleNet};
use crate::player::{Player, PlayerFactory};
use crate::random::RandomPlayer;
use crate::setup_policy::SetupPolicy;

/// A parsed player spec.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PlayerSpec {
    Random {
        setup: SetupPolicy,
    },
    Greedy {
        setup: SetupPolicy,
    },
    Expectimax {
        config: ExpectimaxConfig,
        setup: SetupPolicy,
        leaf: LeafSpec,
    },
    /// The n-tuple afterstate player with the tables of a file (`ntuple:PATH[,setup=...]`).
    NTuple {
        path: String,
        setup: SetupPolicy,
    },
    /// A network checkpoint and the options after it (`net:PATH[,key=value...]`),
    /// interpreted by the model crate.
    Net {
        path: String,
        options: Vec<(String, String)>,
    },
}

/// What scores the leaves of an expectimax search (`leaf=` option).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum LeafSpec {
    /// The hand-written evaluation (`eval`), the default.
    #[default]
    Handwritten,
    /// An n-tuple table file (`leaf=ntuple:PATH`).
    NTuple { path: String },
}

impl fmt::Display for LeafSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeafSpec::Handwritten => f.write_str("handwritten"),
            LeafSpec::NTuple { path } => write!(f, "ntuple:{path}"),
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum SpecError {
    #[error("empty player spec; expected random, greedy, expectimax[:depth=N], ntuple:PATH or net:PATH")]
    Empty,
    #[error("unknown player `{0}`; expected random, greedy, expectimax[:depth=N], ntuple:PATH or net:PATH")]
    UnknownPlayer(String),
    #[error("option `{option}` in player spec `{spec}` is not of the form key=value")]
    Malformed { spec: String, option: String },
    #[error("player `{player}` has no option `{key}`; its options are: {allowed}")]
    UnknownOption { player: &'static str, key: String, allowed: &'static str },
    #[error("option `{key}` is given twice in player spec `{spec}`")]
    Repeated { spec: String, key: String },
    #[error("bad value `{value}` for option `{key}`: {why}")]
    BadValue { key: String, value: String, why: String },
    #[error("`net:` needs a checkpoint path, e.g. net:runs/x/ckpt.safetensors")]
    MissingPath,
    #[error("network player `net:{path}` needs the model crate's checkpoint loader, and none was given here")]
    NetworkUnavailable { path: String },
    #[error("cannot load network player `{path}`: {why}")]
    NetworkLoad { path: String, why: String },
    #[error("`ntuple:` needs a table file path, e.g. ntuple:registrations/ntuple-td.safetensors")]
    MissingTablePath,
    #[error("{0}")]
    NTupleLoad(String),
}

const NO_OPTIONS_BUT_SETUP: &str = "setup=random|handcrafted";
const EXPECTIMAX_OPTIONS: &str =
    "depth=N (1-20), nodes=N, time=MS, leaf=handwritten|ntuple:PATH, setup=random|handcrafted";

fn parse_number<T: FromStr>(key: &str, value: &str, check: impl Fn(&T) -> bool, why: &str) -> Result<T, SpecError> {
    value.parse::<T>().ok().filter(|n| check(n)).ok_or_else(|| SpecError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        why: why.to_string(),
    })
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Self, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        if name == "net" {
            let mut parts = rest.split(',');
            let path = parts.next().unwrap_or("").trim().to_string();
            if path.is_empty() {
                return Err(SpecError::MissingPath);
            }
            let options = parse_options(text, &parts.collect::<Vec<_>>().join(","))?;
            return Ok(PlayerSpec::Net { path, options });
        }
        if name == "ntuple" {
            let mut parts = rest.split(',');
            let path = parts.next().unwrap_or("").trim().to_string();
            if path.is_empty() {
                return Err(SpecError::MissingTablePath);
            }
            let mut setup = SetupPolicy::Random;
            for (key, value) in parse_options(text, &parts.collect::<Vec<_>>().join(","))? {
                if key != "setup" {
                    return Err(SpecError::UnknownOption { player: "ntuple", key, allowed: NO_OPTIONS_BUT_SETUP });
                }
                setup = value.parse().map_err(|why| SpecError::BadValue { key, value, why })?;
            }
            return Ok(PlayerSpec::NTuple { path, setup });
        }
        let options = parse_options(text, rest)?;
        let mut setup = SetupPolicy::Random;
        let mut config = ExpectimaxConfig::default();
        let mut leaf = LeafSpec::Handwritten;
        let (player, allowed) = match name {
            "random" => ("random", NO_OPTIONS_BUT_SETUP),
            "greedy" => ("greedy", NO_OPTIONS_BUT_SETUP),
            "expectimax" => ("expectimax", EXPECTIMAX_OPTIONS),
            _ => return Err(SpecError::UnknownPlayer(name.to_string())),
        };
        for (key, value) in &options {
            match (player, key.as_str()) {
                (_, "setup") => {
                    setup = value.parse().map_err(|why| SpecError::BadValue {
                        key: key.clone(),
                        value: value.clone(),
                        why,
                    })?
                }
                ("expectimax", "depth") => {
                    config.depth = parse_number(
                        key,
                        value,
                        |d: &u32| (1..=ExpectimaxConfig::MAX_DEPTH).contains(d),
                        "expected a whole number of plies from 1 to 20",
                    )?
                }
                ("expectimax", "nodes") => {
                    config.nodes = parse_number(key, value, |n: &u64| *n >= 1, "expected a positive whole number")?
                }
                ("expectimax", "time") => {
                    let ms: u64 = parse_number(key, value, |n: &u64| *n >= 1, "expected milliseconds, at least 1")?;
                    config.time = Some(Duration::from_millis(ms));
                }
                ("expectimax", "leaf") => {
                    leaf = match value.split_once(':') {
                        None if value == "handwritten" => LeafSpec::Handwritten,
                        Some(("ntuple", path)) if !path.trim().is_empty() => {
                            LeafSpec::NTuple { path: path.trim().to_string() }
                        }
                        _ => {
                            return Err(SpecError::BadValue {
                                key: key.clone(),
                                value: value.clone(),
                                why: "expected `handwritten` or `ntuple:PATH`".into(),
                            })
                        }
                    }
                }
                _ => return Err(SpecError::UnknownOption { player, key: key.clone(), allowed }),
            }
        }
        Ok(match player {
            "random" => PlayerSpec::Random { setup },
            "greedy" => PlayerSpec::Greedy { setup },
            _ => PlayerSpec::Expectimax { config, setup, leaf },
        })
    }
}

/// `key=value` pairs separated by commas; each key at most once.
fn parse_options(spec: &str, text: &str) -> Result<Vec<(String, String)>, SpecError> {
    let mut options: Vec<(String, String)> = Vec::new();
    if text.trim().is_empty() {
        return Ok(options);
    }
    for option in text.split(',') {
        let (key, value) = option
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| SpecError::Malformed { spec: spec.to_string(), option: option.to_string() })?;
        if options.iter().any(|(k, _)| k == key) {
            return Err(SpecError::Repeated { spec: spec.to_string(), key: key.to_string() });
        }
        options.push((key.to_string(), value.to_string()));
    }
    Ok(options)
}

impl fmt::Display for PlayerSpec {
    /// The canonical spec: defaults left out, options in a fixed order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let setup_option = |setup: &SetupPolicy| match setup {
            SetupPolicy::Random => None,
            other => Some(format!("setup={other}")),
        };
        let (name, options): (&str, Vec<String>) = match self {
            PlayerSpec::Random { setup } => ("random", setup_option(setup).into_iter().collect()),
            PlayerSpec::Greedy { setup } => ("greedy", setup_option(setup).into_iter().collect()),
            PlayerSpec::Expectimax { config, setup, leaf } => {
                let defaults = ExpectimaxConfig::default();
                let mut options = vec![format!("depth={}", config.depth)];
                if config.nodes != defaults.nodes {
                    options.push(format!("nodes={}", config.nodes));
                }
                if let Some(t) = config.time {
                    options.push(format!("time={}", t.as_millis()));
                }
                if *leaf != LeafSpec::Handwritten {
                    options.push(format!("leaf={leaf}"));
                }
                options.extend(setup_option(setup));
                ("expectimax", options)
            }
            PlayerSpec::Net { path, options } => {
                let mut parts = vec![path.clone()];
                parts.extend(options.iter().map(|(k, v)| format!("{k}={v}")));
                return write!(f, "net:{}", parts.join(","));
            }
            PlayerSpec::NTuple { path, setup } => {
                let mut parts = vec![path.clone()];
                parts.extend(setup_option(setup));
                return write!(f, "ntuple:{}", parts.join(","));
            }
        };
        if options.is_empty() {
            f.write_str(name)
        } else {
            write!(f, "{name}:{}", options.join(","))
        }
    }
}

impl PlayerSpec {
    /// A fresh built-in player; `None` for a spec that needs a file (a
    /// network or n-tuple tables; see `build`).
    pub fn builtin(&self) -> Option<Box<dyn Player>> {
        Some(match self {
            PlayerSpec::Random { setup } => Box::new(RandomPlayer { setup: *setup }),
            PlayerSpec::Greedy { setup } => Box::new(GreedyPlayer { setup: *setup }),
            PlayerSpec::Expectimax { config, setup, leaf: LeafSpec::Handwritten } => {
                Box::new(ExpectimaxPlayer::new(*config, *setup))
            }
            PlayerSpec::Expectimax { .. } | PlayerSpec::NTuple { .. } | PlayerSpec::Net { .. } => return None,
        })
    }
}

/// Turns `net:PATH` specs into players. The model crate implements it (it
/// depends on this crate, never the reverse) and passes it to `build`.
pub trait NetworkLoader {
    fn load(&self, path: &str, options: &[(String, String)]) -> Result<Arc<dyn PlayerFactory>, SpecError>;
}

/// Makes the built-in players of a spec.
struct BuiltinFactory(PlayerSpec);

impl PlayerFactory for BuiltinFactory {
    fn name(&self) -> String {
        self.0.to_string()
    }

    fn make(&self) -> Box<dyn Player> {
        self.0.builtin().expect("a builtin factory holds a builtin spec")
    }
}

/// Reads n-tuple tables for a spec (any ruleset: the arena checks it
/// against the match's through `PlayerFactory::check_rules`).
pub fn load_tables(path: &str) -> Result<Arc<NTupleNet>, SpecError> {
    NTupleNet::load(std::path::Path::new(path), None).map(Arc::new).map_err(|e| SpecError::NTupleLoad(e.to_string()))
}

/// Makes expectimax players whose leaves are valued by n-tuple tables.
struct NTupleLeafFactory {
    spec: PlayerSpec,
    leaf: Leaf,
}

impl PlayerFactory for NTupleLeafFactory {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn make(&self) -> Box<dyn Player> {
        let PlayerSpec::Expectimax { config, setup, .. } = &self.spec else { unreachable!("an expectimax spec") };
        Box::new(ExpectimaxPlayer::new(*config, *setup).with_leaf(self.leaf.clone()))
    }

    fn check_rules(&self, rules: &stratego_engine::Ruleset) -> Result<(), String> {
        self.leaf.check_rules(rules)
    }
}

/// The factory of a spec. Network specs need a loader; without one they are
/// a clear error. N-tuple tables are read here, once per factory.
pub fn build(spec: &PlayerSpec, networks: Option<&dyn NetworkLoader>) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    match spec {
        PlayerSpec::Net { path, options } => match networks {
            Some(loader) => loader.load(path, options),
            None => Err(SpecError::NetworkUnavailable { path: path.clone() }),
        },
        PlayerSpec::NTuple { path, setup } => {
            Ok(Arc::new(NTupleFactory { net: load_tables(path)?, name: spec.to_string(), setup: *setup }))
        }
        PlayerSpec::Expectimax { leaf: LeafSpec::NTuple { path }, .. } => {
            let leaf = Leaf::NTuple { path: path.clone(), net: load_tables(path)? };
            Ok(Arc::new(NTupleLeafFactory { spec: spec.clone(), leaf }))
        }
        builtin => Ok(Arc::new(BuiltinFactory(builtin.clone()))),
    }
}

/// Parses and builds a spec in one step (built-in players only).
pub fn factory(text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    build(&text.parse()?, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_canonically() {
        for (text, canonical) in [
            ("random", "random"),
            ("greedy", "greedy"),
            ("greedy:setup=handcrafted", "greedy:setup=handcrafted"),
            ("expectimax", "expectimax:depth=3"),
            ("expectimax:depth=3", "expectimax:depth=3"),
            (" expectimax:nodes=500, depth=2 ", "expectimax:depth=2,nodes=500"),
            ("expectimax:depth=4,time=250,setup=handcrafted", "expectimax:depth=4,time=250,setup=handcrafted"),
            ("net:runs/x/ckpt.safetensors", "net:runs/x/ckpt.safetensors"),
            ("net:a.safetensors,temperature=0.5", "net:a.safetensors,temperature=0.5"),
        ] {
            let spec: PlayerSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(spec.to_string(), canonical);
            assert_eq!(canonical.parse::<PlayerSpec>().unwrap(), spec, "round trip of {canonical}");
        }
        let PlayerSpec::Expectimax { config, .. } = "expectimax:depth=2,nodes=500".parse().unwrap() else { panic!() };
        assert_eq!((config.depth, config.nodes), (2, 500));
    }

    #[test]
    fn malformed_specs_are_clear_errors() {
        let err = |text: &str| text.parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(err("").contains("empty player spec"));
        assert!(err("alphazero").contains("unknown player `alphazero`"));
        assert!(err("greedy:depth=3").contains("player `greedy` has no option `depth`"));
        assert!(err("expectimax:depth").contains("is not of the form key=value"));
        assert!(err("expectimax:depth=").contains("is not of the form key=value"));
        assert!(err("expectimax:depth=0").contains("bad value `0` for option `depth`"));
        assert!(err("expectimax:depth=three").contains("bad value `three`"));
        assert!(err("expectimax:depth=2,depth=3").contains("given twice"));
        assert!(err("random:setup=clever").contains("expected `random` or `handcrafted`"));
        assert!(err("net:").contains("needs a checkpoint path"));
        assert!(err("expectimax:nodes=-5").contains("bad value `-5`"));
    }

    #[test]
    fn network_specs_need_the_model_crate() {
        let spec: PlayerSpec = "net:runs/x/ckpt.safetensors".parse().unwrap();
        let err = build(&spec, None).err().unwrap();
        assert_eq!(err, SpecError::NetworkUnavailable { path: "runs/x/ckpt.safetensors".into() });
        assert!(err.to_string().contains("needs the model crate's checkpoint loader"));

        // A loader (as the model crate will provide) receives the path and options.
        struct Fake;
        impl NetworkLoader for Fake {
            fn load(&self, path: &str, options: &[(String, String)]) -> Result<Arc<dyn PlayerFactory>, SpecError> {
                assert_eq!(options, [("temperature".to_string(), "0.5".to_string())]);
                Err(SpecError::NetworkLoad { path: path.into(), why: "no such file".into() })
            }
        }
        let spec: PlayerSpec = "net:missing.safetensors,temperature=0.5".parse().unwrap();
        let err = build(&spec, Some(&Fake)).err().unwrap();
        assert!(err.to_string().contains("cannot load network player `missing.safetensors`: no such file"));
    }

    #[test]
    fn factories_make_players_named_by_their_canonical_spec() {
        for text in ["random", "greedy:setup=handcrafted", "expectimax:depth=2,nodes=500"] {
            let f = factory(text).unwrap();
            assert_eq!(f.name(), text);
            assert_eq!(f.make().name(), text);
        }
    }
}
