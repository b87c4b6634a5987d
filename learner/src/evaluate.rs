//! Evaluation of the current weights against the baseline players: arena
//! matches in colour-swapped pairs with the same setups, the network playing
//! its policy's most likely legal move.

use stratego_evaluation::arena::{play_match, MatchConfig, SetupMode};
use stratego_model::{CheckpointMeta, StrategoNet};
use stratego_netplayer::{NetOptions, NetPlayerFactory};
use stratego_players::Registry;

use crate::config::EvalConfig;
use crate::TrainError;

/// The players an evaluation may meet: the baselines and network
/// checkpoints (loaded on the CPU).
pub fn players() -> Registry {
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, None);
    registry
}

/// The network's score (wins + draws / 2, per game) against each opponent,
/// named as in the config.
pub fn evaluate(
    net: &StrategoNet,
    meta: &CheckpointMeta,
    config: &EvalConfig,
    seed: u64,
) -> Result<Vec<(String, f64)>, TrainError> {
    let network = NetPlayerFactory::from_network(net.clone(), meta.layout, meta.rules, NetOptions::default())
        .named(format!("net:step-{}", meta.step));
    let mut scores = Vec::new();
    for opponent in &config.opponents {
        let baseline = players().factory(opponent).map_err(|e| TrainError::Config(format!("`eval.opponents`: {e}")))?;
        let match_config =
            MatchConfig { rules: meta.rules, games: config.games, seed, setups: SetupMode::Swap, sprt: None };
        let result = play_match(&network, baseline.as_ref(), &match_config, &|_| {})
            .map_err(|e| TrainError::Data(format!("evaluation against {opponent}: {e}")))?;
        let points: f64 = result.games.iter().map(|g| g.a_points()).sum();
        scores.push((opponent.clone(), points / result.games.len() as f64));
    }
    Ok(scores)
}
