//! The generic bots, which play any game on the contract, and their specs:
//! `random`, and `mcts` with options (`mcts:sims=200,c=1.4,rollout=200`).

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::api::{ActionId, Game, GameState};
use crate::arena::Bot;
use crate::mcts::{Mcts, MctsConfig, SearchError};

/// Plays an action drawn uniformly from the legal actions.
pub struct RandomBot {
    rng: Xoshiro256PlusPlus,
}

impl RandomBot {
    pub fn new() -> RandomBot {
        RandomBot { rng: Xoshiro256PlusPlus::seed_from_u64(0) }
    }
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot::new()
    }
}

impl<S: GameState> Bot<S> for RandomBot {
    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    }

    /// Panics on a state with no legal action (a game that is over).
    fn step(&mut self, state: &S) -> ActionId {
        let legal = state.legal_actions();
        assert!(!legal.is_empty(), "random: a step on a state with no legal action");
        legal[self.rng.random_range(0..legal.len())]
    }
}

/// A generic bot, as a spec names it. `Display` writes the canonical spec,
/// every option included.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum BotSpec {
    Random,
    Mcts(MctsConfig),
}

/// The limits of the options: beyond them a step would take hours.
const MAX_SIMULATIONS: usize = 1_000_000;
const MAX_ROLLOUT: usize = 1_000_000;
const MAX_EXPLORATION: f64 = 1000.0;

/// A spec that names no generic bot; each message is one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown bot `{0}`: the generic bots are `random` and `mcts` (options: sims, c, rollout)")]
    UnknownBot(String),
    #[error("`random` takes no options, got `{0}`")]
    RandomOptions(String),
    #[error("mcts option `{0}` is not key=value")]
    NotKeyValue(String),
    #[error("unknown mcts option `{0}` (the options are sims, c, rollout)")]
    UnknownOption(String),
    #[error("mcts option `{0}` is given twice")]
    Repeated(String),
    #[error("mcts option {key}={value}: not {expected}")]
    BadValue { key: &'static str, value: String, expected: String },
}

impl FromStr for BotSpec {
    type Err = SpecError;

    /// `random`, `mcts`, or `mcts:` and comma-separated `key=value` options,
    /// each at most once: `sims` (1 to 1,000,000), `c` (a number 0 to 1000),
    /// `rollout` (0 to 1,000,000 plies). An option left out takes its default.
    fn from_str(spec: &str) -> Result<BotSpec, SpecError> {
        let (kind, options) = match spec.split_once(':') {
            Some((kind, options)) => (kind, Some(options)),
            None => (spec, None),
        };
        match (kind, options) {
            ("random", None) => Ok(BotSpec::Random),
            ("random", Some(options)) => Err(SpecError::RandomOptions(options.into())),
            ("mcts", None) => Ok(BotSpec::Mcts(MctsConfig::default())),
            ("mcts", Some(options)) => parse_mcts(options).map(BotSpec::Mcts),
            _ => Err(SpecError::UnknownBot(spec.into())),
        }
    }
}

fn parse_mcts(options: &str) -> Result<MctsConfig, SpecError> {
    let mut config = MctsConfig::default();
    let mut seen: Vec<&str> = Vec::new();
    for item in options.split(',') {
        let (key, value) = item.split_once('=').ok_or_else(|| SpecError::NotKeyValue(item.into()))?;
        if seen.contains(&key) {
            return Err(SpecError::Repeated(key.into()));
        }
        seen.push(key);
        let bad = |key: &'static str, expected: String| SpecError::BadValue { key, value: value.into(), expected };
        match key {
            "sims" => {
                config.simulations = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_SIMULATIONS).contains(n))
                    .ok_or_else(|| bad("sims", format!("a whole number 1 to {MAX_SIMULATIONS}")))?
            }
            "c" => {
                config.exploration = value
                    .parse()
                    .ok()
                    .filter(|c: &f64| (0.0..=MAX_EXPLORATION).contains(c))
                    .ok_or_else(|| bad("c", format!("a number 0 to {MAX_EXPLORATION}")))?
            }
            "rollout" => {
                config.rollout_cap = value
                    .parse()
                    .ok()
                    .filter(|n| *n <= MAX_ROLLOUT)
                    .ok_or_else(|| bad("rollout", format!("a whole number 0 to {MAX_ROLLOUT}")))?
            }
            _ => return Err(SpecError::UnknownOption(key.into())),
        }
    }
    Ok(config)
}

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotSpec::Random => f.write_str("random"),
            BotSpec::Mcts(config) => config.fmt(f),
        }
    }
}

impl BotSpec {
    /// The bot for `game`; the search refuses a game of imperfect information.
    pub fn build<G: Game>(&self, game: &G) -> Result<Box<dyn Bot<G::State>>, SearchError>
    where
        G::State: 'static,
    {
        Ok(match self {
            BotSpec::Random => Box::new(RandomBot::new()),
            BotSpec::Mcts(config) => Box::new(Mcts::new(game, *config)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_and_print_canonically() {
        let default = MctsConfig::default();
        for (spec, parsed) in [
            ("random", BotSpec::Random),
            ("mcts", BotSpec::Mcts(default)),
            ("mcts:sims=50", BotSpec::Mcts(MctsConfig { simulations: 50, ..default })),
            ("mcts:rollout=0,c=2", BotSpec::Mcts(MctsConfig { exploration: 2.0, rollout_cap: 0, ..default })),
            (
                "mcts:sims=300,c=1.4,rollout=200",
                BotSpec::Mcts(MctsConfig { simulations: 300, exploration: 1.4, rollout_cap: 200 }),
            ),
        ] {
            assert_eq!(spec.parse::<BotSpec>(), Ok(parsed), "{spec}");
            let canonical = parsed.to_string();
            assert_eq!(canonical.parse::<BotSpec>(), Ok(parsed), "{canonical}");
        }
        assert_eq!(BotSpec::Mcts(default).to_string(), "mcts:sims=200,c=1.4,rollout=200");
    }

    #[test]
    fn bad_specs_are_one_line_errors() {
        for (spec, expected) in [
            ("", SpecError::UnknownBot("".into())),
            ("greedy", SpecError::UnknownBot("greedy".into())),
            ("mcts2:sims=3", SpecError::UnknownBot("mcts2:sims=3".into())),
            ("random:seed=1", SpecError::RandomOptions("seed=1".into())),
            ("mcts:", SpecError::NotKeyValue("".into())),
            ("mcts:sims", SpecError::NotKeyValue("sims".into())),
            ("mcts:depth=3", SpecError::UnknownOption("depth".into())),
            ("mcts:sims=3,sims=4", SpecError::Repeated("sims".into())),
            ("mcts:c=1,c=1", SpecError::Repeated("c".into())),
        ] {
            assert_eq!(spec.parse::<BotSpec>(), Err(expected), "{spec}");
        }
        for (spec, key) in [
            ("mcts:sims=0", "sims"),
            ("mcts:sims=-1", "sims"),
            ("mcts:sims=ten", "sims"),
            ("mcts:sims=1000001", "sims"),
            ("mcts:c=nan", "c"),
            ("mcts:c=-0.5", "c"),
            ("mcts:c=inf", "c"),
            ("mcts:c=", "c"),
            ("mcts:rollout=1.5", "rollout"),
            ("mcts:rollout=1000001", "rollout"),
        ] {
            match spec.parse::<BotSpec>() {
                Err(e @ SpecError::BadValue { key: k, .. }) if k == key => {
                    let text = e.to_string();
                    assert!(text.starts_with(&format!("mcts option {key}=")) && !text.contains('\n'), "{text}");
                }
                other => panic!("{spec}: {other:?}"),
            }
        }
    }
}
