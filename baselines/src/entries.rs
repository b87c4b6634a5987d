//! The baselines' entries in the player registry, and their canonical names.
//!
//! Each entry reads its own options from a generic spec; a canonical name
//! leaves defaults out and lists options in a fixed order, so a spec and its
//! canonical form make the same player and the arena's tables name players
//! one way.

use std::path::Path;
use std::sync::Arc;

use stratego_players::{Entry, FnFactory, Naming, Player, PlayerFactory, PlayerSpec, Registry, SetupPolicy, SpecError};

use crate::expectimax::{ExpectimaxConfig, ExpectimaxPlayer, Leaf};
use crate::greedy::GreedyPlayer;
use crate::ntuple::{NTupleFactory, NTupleNet, NTuplePlayer};
use crate::press::Press;
use crate::random::RandomPlayer;

const SETUP_ONLY: &str = stratego_players::setup_policy::SETUP_OPTION;
const NTUPLE_OPTIONS: &str = concat!("press=auto|on|off, ", stratego_players::setup_option!());
const EXPECTIMAX_OPTIONS: &str = concat!(
    "depth=N (1-20), nodes=N, time=MS, leaf=handwritten|ntuple:PATH, press=auto|on|off, \
     scale=N (material points; 0 = linear), guard=on|off, defend=on|off, informed=on|off, ",
    stratego_players::setup_option!()
);

/// Adds `setup=` when it is not the default, or always when resolved.
fn with_setup(spec: PlayerSpec, setup: SetupPolicy, naming: Naming) -> PlayerSpec {
    spec.with_default(naming, "setup", setup, SetupPolicy::default())
}

pub fn random_spec(setup: SetupPolicy, naming: Naming) -> PlayerSpec {
    with_setup(PlayerSpec::named("random"), setup, naming)
}

pub fn greedy_spec(setup: SetupPolicy, naming: Naming) -> PlayerSpec {
    with_setup(PlayerSpec::named("greedy"), setup, naming)
}

/// `expectimax:depth=D[,nodes=N][,time=MS][,leaf=ntuple:PATH][,press=P]
/// [,scale=N][,guard=..][,informed=..][,setup=S]`: the depth always (it is
/// what a reader looks for), the rest when not the default (every one when
/// resolved); `expectimax:time=MS` when the clock alone decides the depth
/// (resolved too: naming a depth would hand the decision back to it).
/// `leaf: None` for a kind that has no `leaf` option (the guided search,
/// whose leaf is always the hand-written one).
pub fn expectimax_spec(
    config: &ExpectimaxConfig,
    setup: SetupPolicy,
    leaf: Option<&Leaf>,
    naming: Naming,
) -> PlayerSpec {
    let timed = config.time.is_some() && config.clock_decides;
    let defaults = ExpectimaxConfig::default();
    let mut spec = PlayerSpec::named("expectimax");
    // A timed search whose depth the clock decides is named by its clock.
    if !timed {
        spec = spec.with("depth", config.depth).with_default(naming, "nodes", config.nodes, defaults.nodes);
    }
    spec = spec.with_some("time", config.time.map(|t| t.as_millis()));
    if let Some(leaf) = leaf {
        let leaf = match leaf {
            Leaf::NTuple { path, .. } => format!("ntuple:{path}"),
            Leaf::Handwritten => "handwritten".to_string(),
        };
        spec = spec.with_default(naming, "leaf", leaf, "handwritten".to_string());
    }
    let switch = |on: bool| if on { "on" } else { "off" };
    let spec = spec
        .with_default(naming, "press", config.press.name(), Press::default().name())
        .with_default(naming, "scale", config.scale, defaults.scale)
        .with_default(naming, "guard", switch(config.guard), switch(defaults.guard))
        // Named only when on, in both namings: the names of players
        // registered before the option existed stay theirs.
        .with_some("defend", config.defend.then_some("on"))
        .with_default(naming, "informed", switch(config.informed), switch(defaults.informed));
    with_setup(spec, setup, naming)
}

/// `ntuple:PATH[,press=P][,setup=S]`.
pub fn ntuple_spec(path: &str, press: Press, setup: SetupPolicy, naming: Naming) -> PlayerSpec {
    let spec = PlayerSpec::named("ntuple").with_path(path).with_default(
        naming,
        "press",
        press.name(),
        Press::default().name(),
    );
    with_setup(spec, setup, naming)
}

/// The `press=` option of a spec.
fn press_option(spec: &PlayerSpec) -> Result<Press, SpecError> {
    match spec.option("press") {
        None => Ok(Press::default()),
        Some(text) => {
            Press::from_name(text).ok_or_else(|| SpecError::bad_value("press", text, "expected auto, on or off"))
        }
    }
}

/// An `on|off` option of a spec.
fn switch_option(spec: &PlayerSpec, key: &str, default: bool) -> Result<bool, SpecError> {
    match spec.option(key) {
        None => Ok(default),
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        Some(text) => Err(SpecError::bad_value(key, text, "expected on or off")),
    }
}

/// The search limits of an `expectimax` spec.
pub fn expectimax_config(spec: &PlayerSpec) -> Result<ExpectimaxConfig, SpecError> {
    let defaults = ExpectimaxConfig::default();
    let depth = spec.parse_option(
        "depth",
        defaults.depth,
        |d: &u32| (1..=ExpectimaxConfig::MAX_DEPTH).contains(d),
        "expected a whole number of plies from 1 to 20",
    )?;
    let nodes = spec.parse_option("nodes", defaults.nodes, |n: &u64| *n >= 1, "expected a positive whole number")?;
    let time = match spec.option("time") {
        None => None,
        Some(_) => {
            let ms = spec.parse_option("time", 0u64, |n: &u64| *n >= 1, "expected milliseconds, at least 1")?;
            Some(std::time::Duration::from_millis(ms))
        }
    };
    let clock_decides = spec.option("depth").is_none() && spec.option("nodes").is_none();
    let press = press_option(spec)?;
    let scale =
        spec.parse_option("scale", defaults.scale, |_: &u32| true, "expected a whole number of material points")?;
    let guard = switch_option(spec, "guard", defaults.guard)?;
    let defend = switch_option(spec, "defend", defaults.defend)?;
    let informed = switch_option(spec, "informed", defaults.informed)?;
    let config = ExpectimaxConfig { depth, nodes, time, clock_decides, press, scale, guard, defend, informed };
    Ok(match time {
        Some(limit) => config.under_clock(limit),
        None => config,
    })
}

/// The leaf of an `expectimax` spec, its tables read.
fn expectimax_leaf(spec: &PlayerSpec) -> Result<Leaf, SpecError> {
    match spec.option("leaf") {
        None | Some("handwritten") => Ok(Leaf::Handwritten),
        Some(value) => match value.split_once(':') {
            Some(("ntuple", path)) if !path.trim().is_empty() => {
                let path = path.trim().to_string();
                Ok(Leaf::NTuple { net: load_tables(&path, spec)?, path })
            }
            _ => Err(SpecError::bad_value("leaf", value, "expected `handwritten` or `ntuple:PATH`")),
        },
    }
}

/// Reads n-tuple tables for a spec (any ruleset: the arena checks it
/// against the match's through `PlayerFactory::check_rules`).
pub fn load_tables(path: &str, spec: &PlayerSpec) -> Result<Arc<NTupleNet>, SpecError> {
    NTupleNet::load(Path::new(path), None)
        .map(Arc::new)
        .map_err(|e| SpecError::Load { spec: spec.to_string(), why: e.to_string() })
}

/// Makes players of one kind from a closure, with their leaf evaluation.
/// Only an n-tuple leaf knows a ruleset, so the leaf (hand-written for
/// every player but a learned-leaf expectimax) answers `check_rules`.
pub struct LeafFactory<F> {
    players: FnFactory<F>,
    leaf: Leaf,
}

impl<F: Fn() -> Box<dyn Player> + Send + Sync> PlayerFactory for LeafFactory<F> {
    fn name(&self) -> String {
        self.players.name()
    }

    fn resolved_name(&self) -> String {
        self.players.resolved_name()
    }

    fn make(&self) -> Box<dyn Player> {
        self.players.make()
    }

    fn check_rules(&self, rules: &stratego_engine::Ruleset) -> Result<(), stratego_players::RulesRefused> {
        self.leaf.check_rules(rules)
    }

    fn trained_rules(&self) -> Option<stratego_engine::Ruleset> {
        self.leaf.trained_rules()
    }
}

fn factory<F: Fn() -> Box<dyn Player> + Send + Sync + 'static>(
    spec: impl Fn(Naming) -> PlayerSpec,
    make: F,
) -> Arc<dyn PlayerFactory> {
    let players =
        FnFactory::new(spec(Naming::Canonical).to_string(), make).resolved(spec(Naming::Resolved).to_string());
    Arc::new(LeafFactory { players, leaf: Leaf::Handwritten })
}

/// The entry of a player whose one option is its setup policy: `spec`
/// names it, `make` makes one.
fn setup_only(
    name: &'static str,
    about: &'static str,
    spec: fn(SetupPolicy, Naming) -> PlayerSpec,
    make: fn(SetupPolicy) -> Box<dyn Player>,
) -> Entry {
    Entry {
        name,
        path: None,
        options: SETUP_ONLY,
        about,
        build: Box::new(move |text, _| {
            text.check_keys(SETUP_ONLY)?;
            let setup = text.setup()?;
            Ok(factory(move |naming| spec(setup, naming), move || make(setup)))
        }),
    }
}

/// Adds `random`, `greedy`, `expectimax` and `ntuple` to a registry.
pub fn register(registry: &mut Registry) {
    registry.register(setup_only("random", "a uniformly random legal move", random_spec, |setup| {
        Box::new(RandomPlayer { setup })
    }));
    registry.register(setup_only(
        "greedy",
        "one ply: the best material change under the counting prior",
        greedy_spec,
        |setup| Box::new(GreedyPlayer { setup }),
    ));
    registry.register(Entry {
        name: "expectimax",
        path: None,
        options: EXPECTIMAX_OPTIONS,
        about: "search with chance nodes over hidden types (depth 3 by default; with time=MS alone, or under ucc-bot's clock, the clock decides the depth)",
        build: Box::new(|spec, _| {
            spec.check_keys(EXPECTIMAX_OPTIONS)?;
            let (config, setup, leaf) = (expectimax_config(spec)?, spec.setup()?, expectimax_leaf(spec)?);
            let name = |naming| expectimax_spec(&config, setup, Some(&leaf), naming).to_string();
            let (name, resolved) = (name(Naming::Canonical), name(Naming::Resolved));
            let player_leaf = leaf.clone();
            let make = move || {
                Box::new(ExpectimaxPlayer::new(config, setup).with_leaf(player_leaf.clone())) as Box<dyn Player>
            };
            Ok(Arc::new(LeafFactory { players: FnFactory::new(name, make).resolved(resolved), leaf }))
        }),
    });
    registry.register(Entry {
        name: "ntuple",
        path: Some("a table file path, e.g. ntuple:registrations/ntuple-td.safetensors"),
        options: NTUPLE_OPTIONS,
        about: "the n-tuple afterstate player with the tables of a file (press=auto presses when ahead under rules that do not end shuffling)",
        build: Box::new(|spec, _| {
            spec.check_keys(NTUPLE_OPTIONS)?;
            let path = spec.path.as_deref().expect("the registry checked the path");
            let (setup, press) = (spec.setup()?, press_option(spec)?);
            let net = load_tables(path, spec)?;
            let name = ntuple_spec(path, press, setup, Naming::Canonical).to_string();
            Ok(Arc::new(NTupleFactory(NTuplePlayer { net, name, setup, press })))
        }),
    });
}

/// A registry of the baselines alone (tests, benchmarks).
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    register(&mut registry);
    registry
}

/// A baseline's factory from its spec text (no network players).
pub fn factory_of(text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    registry().factory(text)
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
            ("expectimax:press=auto", "expectimax:depth=3"),
            ("expectimax:press=off,depth=2", "expectimax:depth=2,press=off"),
        ] {
            let f = factory_of(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(f.name(), canonical);
            assert_eq!(factory_of(canonical).unwrap().name(), canonical, "round trip of {canonical}");
        }
        // Network specs are kept as written by the generic parser.
        for text in ["net:runs/x/ckpt.safetensors", "net:a.safetensors,temperature=0.5"] {
            let spec: PlayerSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(text.parse::<PlayerSpec>().unwrap(), spec, "round trip of {text}");
        }
        let spec: PlayerSpec = "expectimax:depth=2,nodes=500".parse().unwrap();
        let config = expectimax_config(&spec).unwrap();
        assert_eq!((config.depth, config.nodes), (2, 500));
    }

    /// In timed play the clock decides the depth unless the spec
    /// names a depth or a node budget (the reproducible fixed-size search).
    #[test]
    fn a_clock_lifts_the_caps_a_spec_did_not_name() {
        let config = |text: &str| expectimax_config(&text.parse().unwrap()).unwrap();
        let timed = config("expectimax:time=100");
        assert_eq!((timed.depth, timed.nodes), (ExpectimaxConfig::MAX_DEPTH, u64::MAX));
        assert_eq!(factory_of("expectimax:time=100").unwrap().name(), "expectimax:time=100");
        let fixed = config("expectimax:depth=3,time=100");
        assert_eq!((fixed.depth, fixed.nodes), (3, ExpectimaxConfig::DEFAULT_NODES));
        let limit = std::time::Duration::from_millis(50);
        let referee = config("expectimax").under_clock(limit);
        assert_eq!((referee.depth, referee.nodes, referee.time), (ExpectimaxConfig::MAX_DEPTH, u64::MAX, Some(limit)));
        let named = config("expectimax:nodes=500").under_clock(limit);
        assert_eq!((named.depth, named.nodes), (ExpectimaxConfig::DEFAULT_DEPTH, 500));
        // Untimed, the default stays the fixed, reproducible search.
        assert_eq!(config("expectimax").depth, ExpectimaxConfig::DEFAULT_DEPTH);
    }

    #[test]
    fn malformed_specs_are_clear_errors() {
        for (text, needle) in [
            ("", "empty player spec"),
            ("alphazero", "unknown player `alphazero`"),
            ("greedy:depth=3", "player `greedy` has no option `depth`"),
            ("expectimax:depth", "is not of the form key=value"),
            ("expectimax:depth=", "is not of the form key=value"),
            ("expectimax:depth=0", "bad value `0` for option `depth`"),
            ("expectimax:depth=three", "bad value `three`"),
            ("expectimax:depth=2,depth=3", "given twice"),
            (
                "random:setup=clever",
                "expected `random`, `handcrafted`, `handcrafted-v2`, `decoy`, `mixed`, `structured` or `wide`",
            ),
            ("ntuple:", "has nothing after `:`"),
            ("ntuple", "needs a table file path"),
            ("expectimax:nodes=-5", "bad value `-5`"),
            // Without the network crate's entry, `net:` is an unknown player.
            ("net:runs/x/ckpt.safetensors", "unknown player `net`"),
        ] {
            let err = factory_of(text).err().unwrap().to_string();
            assert!(err.contains(needle), "{text:?} gave {err}");
        }
    }

    /// The option lists name the shared options as their modules spell them.
    #[test]
    fn option_lists_use_the_shared_options() {
        for options in [NTUPLE_OPTIONS, EXPECTIMAX_OPTIONS] {
            assert!(options.contains(Press::OPTION) && options.ends_with(SETUP_ONLY), "{options}");
        }
    }

    #[test]
    fn factories_make_players_named_by_their_canonical_spec() {
        for text in ["random", "greedy:setup=handcrafted", "expectimax:depth=2,nodes=500"] {
            let f = factory_of(text).unwrap();
            assert_eq!(f.name(), text);
            assert_eq!(f.make().name(), text);
        }
    }
}
