//! The baselines' entries in the player registry.
//!
//! Each entry reads its own options from a generic spec; a canonical name
//! leaves defaults out and lists options in a fixed order, so a spec and its
//! canonical form make the same player and the arena's tables name players
//! one way. Each player's spec (its options, its name, how a spec reads
//! back) lives beside the player (`random_spec` in `random.rs`,
//! `expectimax_spec` and `expectimax_config` in `expectimax.rs`, ...); this
//! file only lists them, so no player calls back into it.

use std::sync::Arc;

use stratego_players::{Entry, FnFactory, Naming, Player, PlayerFactory, PlayerSpec, Registry, SetupPolicy, SpecError};

use crate::expectimax::{expectimax_config, expectimax_leaf, expectimax_spec, ExpectimaxPlayer, EXPECTIMAX_OPTIONS};
use crate::greedy::{greedy_spec, GreedyPlayer};
use crate::ntuple::{load_tables, ntuple_spec, NTupleFactory, NTuplePlayer, NTUPLE_OPTIONS};
use crate::press::Press;
use crate::random::{random_spec, RandomPlayer};

const SETUP_ONLY: &str = stratego_players::setup_policy::SETUP_OPTION;

fn factory<F: Fn() -> Box<dyn Player> + Send + Sync + 'static>(
    spec: impl Fn(Naming) -> PlayerSpec,
    make: F,
) -> Arc<dyn PlayerFactory> {
    let players =
        FnFactory::new(spec(Naming::Canonical).to_string(), make).resolved(spec(Naming::Resolved).to_string());
    Arc::new(players)
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
            Ok(Arc::new(leaf.factory_of(FnFactory::new(name, make).resolved(resolved))))
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
            let (setup, press) = (spec.setup()?, Press::option(spec)?);
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
    use crate::expectimax::ExpectimaxConfig;

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
