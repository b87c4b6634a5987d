//! Evaluation of the current weights against the configured opponents:
//! arena matches in colour-swapped pairs with the same setups, the network
//! playing its policy's most likely legal move and drawing its setups with
//! the policy it trains with (so a network trained on handcrafted armies is
//! not measured on random ones), each score with its 95 % interval from the
//! pairs; and what the value and belief heads know about those games
//! (`probe.rs`: games the network did not train on).

use burn::module::Module;
use stratego_engine::EndReason;
use stratego_evaluation::arena::{play_match, MatchConfig};
use stratego_evaluation::report::MatchSummary;
use stratego_model::{CheckpointMeta, StrategoNet};
use stratego_netplayer::{NetOptions, NetPlayerFactory};
use stratego_players::SetupPolicy;

use crate::config::EvalConfig;
use crate::probe::{probe, ProbeGame, ProbeOptions, ProbeReport};
use crate::TrainError;

/// The network's score against one opponent: mean points per game (wins +
/// draws / 2) and the 95 % interval from the colour-swapped pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// The opponent, named as in the config.
    pub opponent: String,
    pub score: f64,
    pub low: f64,
    pub high: f64,
    /// The share of the games drawn at the battleless cap: a network that
    /// shuffles when it could press shows here first.
    pub cap_draws: f64,
}

/// An evaluation: the scores, the probe of the heads on its games, and a
/// few of the games to look at.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub scores: Vec<Score>,
    /// `None` when no game had a position to look at.
    pub probe: Option<ProbeReport>,
    /// [`KEPT_PER_OPPONENT`] games against each opponent, the network's
    /// worst first.
    pub kept: Vec<KeptGame>,
}

/// A game of an evaluation kept for people to look at.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptGame {
    pub opponent: String,
    /// Its index in that opponent's match.
    pub index: u32,
    /// The network's points (1 won, 1/2 drawn, 0 lost).
    pub points: f64,
    /// The network's side.
    pub network: stratego_engine::Color,
    pub record: stratego_engine::GameRecord,
}

/// Games kept per opponent and evaluation: enough to see how it loses,
/// few enough to keep every evaluation's.
pub const KEPT_PER_OPPONENT: usize = 2;

/// Positions the probe looks at per evaluation: a few seconds of inference
/// beside the games' minutes.
const PROBE_POSITIONS: usize = 2_000;

/// The network's [`Score`] against each opponent, in the config's order;
/// its setups are drawn by `setups` (the run's training setups). An
/// opponent's `@N` network is the run's in `run` (`stage.rs`).
pub fn evaluate(
    net: &StrategoNet,
    meta: &CheckpointMeta,
    config: &EvalConfig,
    setups: SetupPolicy,
    seed: u64,
    run: Option<&std::path::Path>,
) -> Result<Evaluation, TrainError> {
    let options = NetOptions { setup: setups, ..NetOptions::default() };
    let network = NetPlayerFactory::from_network(net.clone(), meta.layout, meta.rules, options)
        .named(format!("net:step-{}", meta.step));
    let mut scores = Vec::new();
    let mut games = Vec::new();
    let mut kept = Vec::new();
    for opponent in &config.opponents {
        let baseline = crate::stage::factory(opponent, run).map_err(|e| TrainError::config("eval.opponents", e))?;
        let match_config = MatchConfig::new(meta.rules, config.games, seed);
        let result = play_match(&network, baseline.as_ref(), &match_config, &|_| {})
            .map_err(|e| TrainError::Data(format!("evaluation against {opponent}: {e}")))?;
        games.extend(result.games.iter().filter_map(|g| g.record.as_ref()).filter_map(ProbeGame::of_record));
        let mut worst: Vec<_> = result.games.iter().filter(|g| g.record.is_some()).collect();
        worst.sort_by(|a, b| a.a_points().total_cmp(&b.a_points()).then(a.index.cmp(&b.index)));
        kept.extend(worst.into_iter().take(KEPT_PER_OPPONENT).map(|g| KeptGame {
            opponent: opponent.clone(),
            index: g.index,
            points: g.a_points(),
            network: if g.a_is_red { stratego_engine::Color::Red } else { stratego_engine::Color::Blue },
            record: g.record.clone().expect("kept only with a record"),
        }));
        let summary = MatchSummary::of(&result);
        let capped = summary.draws_by_reason.get(EndReason::BattlelessCap.name()).copied().unwrap_or(0);
        scores.push(Score {
            opponent: opponent.clone(),
            score: summary.score,
            low: summary.score_lower,
            high: summary.score_upper,
            cap_draws: f64::from(capped) / f64::from(summary.games.max(1)),
        });
    }
    let options = ProbeOptions { stride: 1, max_positions: PROBE_POSITIONS, pool_weight: None };
    let device = net.devices().into_iter().next().expect("a network has parameters").without_autodiff();
    let probe = match probe(net, meta.layout, meta.rules.piece_set, &device, &games, options) {
        Ok(report) => Some(report),
        Err(crate::probe::ProbeError::Empty(_)) => None,
        Err(e) => return Err(TrainError::Data(format!("probing the evaluation's games: {e}"))),
    };
    Ok(Evaluation { scores, probe, kept })
}

#[cfg(test)]
mod tests {
    use stratego_engine::{Layout, Ruleset};
    use stratego_model::ModelConfig;

    use super::*;

    #[test]
    fn scores_come_with_their_interval_under_the_training_setups() {
        let device = stratego_model::device("cpu").unwrap();
        let config = ModelConfig::preset("tiny").unwrap();
        let net = StrategoNet::new(&config, Layout::Compact, &device);
        let rules = Ruleset { max_plies: 30, ..Ruleset::barrage() };
        let meta = CheckpointMeta { config, layout: Layout::Compact, rules, step: 3 };
        let eval = EvalConfig { every: 1, games: 4, opponents: vec!["random".into(), "greedy".into()] };
        let evaluation = evaluate(&net, &meta, &eval, SetupPolicy::Handcrafted, 7, None).unwrap();
        // The probe of the heads on the same games: at most its share of
        // positions, with the scores of both heads and of what they must beat.
        let report = evaluation.probe.expect("the games have positions");
        assert_eq!(report.games, 8, "every game of both matches");
        assert!(report.positions > 0 && report.positions <= PROBE_POSITIONS + report.games, "{report:?}");
        let (value, belief) = (report.all(), report.all_pieces());
        assert!(value.net_log_loss > 0.0 && value.leaf_log_loss.is_some_and(|l| l > 0.0), "{value:?}");
        assert!(belief.count > 0 && belief.net < 0.0 && belief.counting < 0.0, "{belief:?}");
        // Every probe tag is logged from these games (the pool fitted on two folds).
        let logged = crate::probe::scalars(&report);
        for (tag, _, _) in crate::diagnostics::probe_tags::TABLE {
            assert!(logged.get(tag).is_some_and(|x| x.is_finite()), "{tag} in {logged:?}");
        }
        // Two games of each match kept, the network's worst first.
        assert_eq!(evaluation.kept.len(), 2 * KEPT_PER_OPPONENT);
        for pair in evaluation.kept.chunks(KEPT_PER_OPPONENT) {
            assert_eq!(pair[0].opponent, pair[1].opponent);
            assert!(pair[0].points <= pair[1].points);
            assert!(pair[0].record.result.is_some());
        }
        let scores = evaluation.scores;
        assert_eq!(scores.iter().map(|s| s.opponent.as_str()).collect::<Vec<_>>(), ["random", "greedy"]);
        for s in &scores {
            assert!(0.0 <= s.low && s.low <= s.score && s.score <= s.high && s.high <= 1.0, "{s:?}");
            assert!(s.cap_draws <= 1.0 - (s.score - 0.5).abs() * 2.0 + 1e-9, "cap draws are draws: {s:?}");
        }
        // No battle can happen on the first ply, so a cap of one battleless
        // ply draws every game there, and the share says so.
        let capped = CheckpointMeta { rules: Ruleset { max_battleless_plies: 1, ..rules }, ..meta };
        for s in evaluate(&net, &capped, &eval, SetupPolicy::Handcrafted, 7, None).unwrap().scores {
            assert_eq!((s.cap_draws, s.score), (1.0, 0.5), "{s:?}");
        }
    }
}
