//! TD(lambda) self-play: two copies of the evaluator (one set of weights)
//! play each other, and after every move the weights of the mover's
//! previous afterstates move toward the value of its new afterstate.
//!
//! **Afterstates.** A player's afterstate is the position just after its
//! move (battle resolved), seen from its side (`encode_state`). Each player
//! has its own sequence `a_1, a_2, ...`; the TD error of move `t` is
//! `V(a_t) - V(a_{t-1})` (with the current weights), and at the end of the
//! game `r - V(a_last)` with `r` the player's result (+1 win, 0 draw, -1
//! loss). A move that ends the game has no afterstate of its own: the result
//! is the target of the mover's previous one.
//!
//! **Traces.** Accumulating eligibility traces over the mover's own
//! afterstates: the error updates afterstate `a_{t-1-k}` with weight
//! `lambda^k * (1 - V(a_{t-1-k})^2)` (the derivative of `tanh` at the
//! visit). Traces are truncated where `lambda^k` drops below
//! [`TRACE_CUTOFF`] (at most [`MAX_TRACE`] afterstates).
//!
//! **Steps.** Without temporal coherence, an update with error `e` changes
//! the sum before squashing by exactly `alpha * e` (each of the weights
//! read moves by `alpha * e / sum m^2`; see `NTupleNet::update`). With
//! temporal coherence (Beal & Smith) each weight's step is further scaled
//! by `|sum of its recommended changes| / sum of their magnitudes`, which
//! starts at 1 and shrinks for weights whose updates keep changing sign;
//! `alpha` then usually stays 1.
//!
//! **Exploration.** With probability `epsilon` a player makes a uniform
//! random legal move instead of the best afterstate. Exploratory moves are
//! not learned from: the mover's traces are cut (its earlier afterstates are
//! not moved toward the value of a move its policy would not make), and its
//! new afterstate starts a fresh trace.
//!
//! **Schedules.** `alpha`, `lambda` and `epsilon` move linearly from their
//! start to their `-final` value over the configured games (constant if no
//! final value is given).
//!
//! **Determinism.** Game `g` draws everything (setups, exploration,
//! tie-breaks) from a generator seeded by `(seed, g)`, and the training
//! runs on one thread, so the weights after `n` games are a function of
//! the config and `n`. A run resumed from a checkpoint after game `n`
//! continues exactly as if it had not stopped.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use stratego_engine::{Color, EndReason, Ruleset, State};

use stratego_baselines::ntuple::alphabet::encode_state;
use stratego_baselines::ntuple::net::{Features, NTupleNet};
use stratego_baselines::ntuple::player::pick_best;
use stratego_baselines::ntuple::Layout;
use stratego_contract::seed::derive_seed;
use stratego_players::player::AgentRng;
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::view::{InfoView, PublicPly};

use crate::config_keys::{section, Accepts};

/// Trace weights below this are dropped.
pub const TRACE_CUTOFF: f64 = 1e-3;
/// The longest trace kept, in afterstates.
pub const MAX_TRACE: usize = 200;

section! {
    /// The learning settings (the `[td]` table of a training config). Keys
    /// are snake_case, as in the network trainer's configs; the kebab-case
    /// of the first n-tuple configs (`epsilon-final`) is still read. Each
    /// `_final` key, where set, is where its schedule ends at the last game
    /// (linear from the start value); unset, the start value holds
    /// throughout.
    pub struct TdConfig in "td" {
        /// Step size: the share of the (squash-scaled) TD error one update removes.
        pub alpha: f64 = 1.0, Accepts::Step;
        /// The step size at the last game.
        #[serde(alias = "alpha-final")]
        pub alpha_final: Option<f64> = None, Accepts::Step;
        /// Trace decay, 0 (TD(0)) to 0.99.
        pub lambda: f64 = 0.8, Accepts::Within(0.0, 0.99);
        /// The trace decay at the last game.
        #[serde(alias = "lambda-final")]
        pub lambda_final: Option<f64> = None, Accepts::Within(0.0, 0.99);
        /// Probability of a random exploratory move.
        pub epsilon: f64 = 0.05, Accepts::Unit;
        /// The exploration at the last game.
        #[serde(alias = "epsilon-final")]
        pub epsilon_final: Option<f64> = None, Accepts::Unit;
        /// Beal & Smith's temporal-coherence step sizes.
        #[serde(alias = "temporal-coherence")]
        pub temporal_coherence: bool = false, Accepts::Rule("true or false");
        /// The target of both players' last afterstates after a draw (0: the
        /// value of a draw; below 0 makes both sides avoid draws, a contempt).
        #[serde(alias = "draw-value")]
        pub draw_value: f64 = 0.0, Accepts::Score;
    }
}

/// Everything a training run depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct TdTrainConfig {
    pub rules: Ruleset,
    pub seed: u64,
    /// Self-play games to train for.
    pub games: u64,
    /// The tuple layout preset.
    pub layout: String,
    /// Where both armies of each self-play game come from (each drawn
    /// apart, from the game's generator).
    pub setups: SetupPolicy,
    pub td: TdConfig,
}

/// Why the trainer cannot start or go on. Its caller acts on the kind: a
/// setting is the config's to fix, tables that do not fit are a resume with
/// another config, and a diverged run keeps its last checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NTupleTrainError {
    /// A setting out of its range (`key` as in the config).
    #[error("config `{key}`: {why}")]
    Setting { key: &'static str, why: String },
    /// The tables (loaded or fresh) do not fit the config; the text says how.
    #[error("{0}")]
    Mismatch(String),
    /// No legal move has a numeric value any more.
    #[error("training diverged: no legal move has a numeric value at ply {ply} of game {game}")]
    Diverged { ply: u32, game: u64 },
}

impl TdConfig {
    /// Checks every value; an error names the key (as in the `[td]` table).
    pub fn validate(&self) -> Result<(), NTupleTrainError> {
        self.out_of_range().map_or(Ok(()), |(key, why)| Err(NTupleTrainError::Setting { key, why }))
    }
}

impl TdTrainConfig {
    pub fn validate(&self) -> Result<(), NTupleTrainError> {
        if self.games == 0 {
            return Err(NTupleTrainError::Setting { key: "games", why: "0: expected at least one game".into() });
        }
        self.layout()?;
        self.td.validate()
    }

    /// The layout preset the config names.
    fn layout(&self) -> Result<Layout, NTupleTrainError> {
        Layout::preset(&self.layout).map_err(|why| self.bad_layout(why))
    }

    fn bad_layout(&self, why: String) -> NTupleTrainError {
        NTupleTrainError::Setting { key: "layout", why: format!("`{}`: {why}", self.layout) }
    }

    /// A network with every weight zero, for a fresh run.
    pub fn fresh_net(&self) -> Result<NTupleNet, NTupleTrainError> {
        NTupleNet::new(self.layout()?, self.rules, self.td.temporal_coherence).map_err(|why| self.bad_layout(why))
    }

    fn scheduled(&self, start: f64, end: Option<f64>, game: u64) -> f64 {
        let progress = game as f64 / (self.games.max(2) - 1) as f64;
        start + (end.unwrap_or(start) - start) * progress.min(1.0)
    }

    /// `(alpha, lambda, epsilon)` for game `game`.
    pub fn schedule(&self, game: u64) -> (f64, f64, f64) {
        let td = &self.td;
        (
            self.scheduled(td.alpha, td.alpha_final, game),
            self.scheduled(td.lambda, td.lambda_final, game),
            self.scheduled(td.epsilon, td.epsilon_final, game),
        )
    }
}

/// What one self-play game did.
#[derive(Clone, Debug, PartialEq)]
pub struct GameStats {
    /// 0-based index of the game.
    pub index: u64,
    pub plies: u32,
    pub winner: Option<Color>,
    pub reason: EndReason,
    /// Mean absolute TD error over the game's updates.
    pub td_error: f64,
    pub updates: u32,
    /// Exploratory moves played.
    pub explored: u32,
    pub alpha: f64,
    pub lambda: f64,
    pub epsilon: f64,
}

/// A training run in memory: the config and the network (whose `games`
/// counts the games played).
pub struct Trainer {
    config: TdTrainConfig,
    net: NTupleNet,
}

/// One visited afterstate on a trace.
struct Visit {
    features: Features,
    /// `1 - V^2` at the visit.
    slope: f32,
}

impl Trainer {
    /// A trainer continuing from `net` (fresh or loaded from a checkpoint).
    pub fn new(config: TdTrainConfig, net: NTupleNet) -> Result<Trainer, NTupleTrainError> {
        config.validate()?;
        config
            .rules
            .expect_same(net.rules())
            .map_err(|e| NTupleTrainError::Mismatch(format!("the tables do not fit the config: {e}")))?;
        if net.layout() != &config.layout()? {
            return Err(NTupleTrainError::Mismatch(format!(
                "the tables have layout `{}`, the config asks for `{}`",
                net.layout().name,
                config.layout
            )));
        }
        if config.td.temporal_coherence != net.coherence().is_some() {
            return Err(NTupleTrainError::Mismatch(
                "`td.temporal_coherence` differs from the tables (which keep temporal-coherence accumulators only when it is on)"
                    .into(),
            ));
        }
        Ok(Trainer { config, net })
    }

    pub fn config(&self) -> &TdTrainConfig {
        &self.config
    }

    pub fn net(&self) -> &NTupleNet {
        &self.net
    }

    pub fn into_net(self) -> NTupleNet {
        self.net
    }

    pub fn games_played(&self) -> u64 {
        self.net.games
    }

    /// Moves the trace's afterstates (newest first) by the TD error `delta`.
    fn learn(&mut self, trace: &VecDeque<Visit>, delta: f64, alpha: f64, lambda: f64) {
        let mut decay = 1.0;
        for visit in trace {
            if decay < TRACE_CUTOFF {
                break;
            }
            self.net.update(&visit.features, (delta * decay * visit.slope as f64) as f32, alpha as f32);
            decay *= lambda;
        }
    }

    /// Plays and learns from the next self-play game. `Err` when the tables
    /// no longer give any move a numeric value (training diverged).
    pub fn play_game(&mut self) -> Result<GameStats, NTupleTrainError> {
        let index = self.net.games;
        let (alpha, lambda, epsilon) = self.config.schedule(index);
        let max_trace =
            if lambda <= 0.0 { 1 } else { ((TRACE_CUTOFF.ln() / lambda.ln()).ceil() as usize + 1).clamp(1, MAX_TRACE) };
        let mut rng = AgentRng::seed_from_u64(derive_seed(self.config.seed, index));
        let rules = self.config.rules;
        let red = self.config.setups.choose(rules.piece_set, &mut rng);
        let blue = self.config.setups.choose(rules.piece_set, &mut rng);
        let mut state = State::from_setups(rules, &red, &blue).expect("setup policies make valid setups");
        let mut history: Vec<PublicPly> = Vec::new();
        let mut traces: [VecDeque<Visit>; 2] = [VecDeque::new(), VecDeque::new()];
        let (mut error_sum, mut updates, mut explored) = (0.0, 0u32, 0u32);
        while !state.is_terminal() {
            let mover = state.to_move();
            let explore = rng.random::<f64>() < epsilon;
            let mv = {
                let view = InfoView::new(&state, &history);
                if explore {
                    view.legal_moves[rng.random_range(0..view.legal_moves.len())]
                } else {
                    let best = pick_best(&self.net.move_values(&view), &mut rng)
                        .ok_or(NTupleTrainError::Diverged { ply: state.ply(), game: index })?;
                    view.legal_moves[best]
                }
            };
            explored += explore as u32;
            state.apply_move(mv).expect("chosen moves are legal");
            history.push(PublicPly::of(state.history().last().expect("a move was just played")));
            if state.is_terminal() {
                break;
            }
            let features = self.net.features(&encode_state(&state, mover));
            let value = self.net.raw_of(&features.indices).tanh() as f64;
            let mut trace = std::mem::take(&mut traces[mover.index()]);
            if explore {
                trace.clear();
            } else if let Some(last) = trace.front() {
                let delta = value - self.net.raw_of(&last.features.indices).tanh() as f64;
                self.learn(&trace, delta, alpha, lambda);
                error_sum += delta.abs();
                updates += 1;
            }
            trace.push_front(Visit { features, slope: (1.0 - value * value) as f32 });
            trace.truncate(max_trace);
            traces[mover.index()] = trace;
        }
        let returns = match state.outcome().and_then(|o| o.winner) {
            Some(_) => state.returns().map(f64::from),
            None => [self.config.td.draw_value; 2],
        };
        for color in Color::BOTH {
            let trace = std::mem::take(&mut traces[color.index()]);
            if let Some(last) = trace.front() {
                let delta = returns[color.index()] - self.net.raw_of(&last.features.indices).tanh() as f64;
                self.learn(&trace, delta, alpha, lambda);
                error_sum += delta.abs();
                updates += 1;
            }
        }
        self.net.games += 1;
        let outcome = state.outcome().expect("the game is over");
        Ok(GameStats {
            index,
            plies: state.ply(),
            winner: outcome.winner,
            reason: outcome.reason,
            td_error: if updates > 0 { error_sum / updates as f64 } else { 0.0 },
            updates,
            explored,
            alpha,
            lambda,
            epsilon,
        })
    }
}

/// Trains until the config's number of games, calling `on_game` after every
/// game (for metrics, checkpoints and evaluations; an error stops the run).
pub fn train<E: From<NTupleTrainError>>(
    trainer: &mut Trainer,
    mut on_game: impl FnMut(&Trainer, &GameStats) -> Result<(), E>,
) -> Result<(), E> {
    while trainer.games_played() < trainer.config.games {
        let stats = trainer.play_game()?;
        on_game(trainer, &stats)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_config(games: u64) -> TdTrainConfig {
        TdTrainConfig {
            rules: Ruleset { max_plies: 300, ..Ruleset::barrage() },
            seed: 7,
            games,
            layout: "lines2+material".into(),
            setups: SetupPolicy::Mixed,
            td: TdConfig {
                alpha: 0.2,
                alpha_final: Some(0.1),
                lambda: 0.6,
                lambda_final: None,
                epsilon: 0.1,
                epsilon_final: Some(0.0),
                temporal_coherence: false,
                draw_value: 0.0,
            },
        }
    }

    #[test]
    fn training_is_deterministic_and_resumes_exactly() {
        let config = tiny_config(6);
        let run = |config: &TdTrainConfig| {
            let mut trainer = Trainer::new(config.clone(), config.fresh_net().unwrap()).unwrap();
            let mut stats = Vec::new();
            train(&mut trainer, |_, s| {
                stats.push(s.clone());
                Ok::<(), NTupleTrainError>(())
            })
            .unwrap();
            (trainer.into_net(), stats)
        };
        let (a, stats) = run(&config);
        let (b, _) = run(&config);
        assert_eq!(a, b, "same config, same weights");
        assert_eq!(a.games, 6);
        assert!(a.weights().iter().any(|&w| w != 0.0), "it learned something");
        assert!(stats.iter().all(|s| s.updates > 0 && s.td_error.is_finite()));
        assert_eq!((stats[0].alpha, stats[5].alpha, stats[5].epsilon), (0.2, 0.1, 0.0));
        // Stop after 3 games, save, load, continue: the same weights as without the stop.
        let mut first = Trainer::new(config.clone(), config.fresh_net().unwrap()).unwrap();
        for _ in 0..3 {
            first.play_game().unwrap();
        }
        let bytes = first.into_net().to_bytes(None);
        let mut resumed = Trainer::new(config.clone(), NTupleNet::from_bytes(&bytes, None).unwrap()).unwrap();
        train(&mut resumed, |_, _| Ok::<(), NTupleTrainError>(())).unwrap();
        assert_eq!(resumed.into_net(), a);
        // A config that does not fit the tables is refused.
        let mut other = config.clone();
        other.td.temporal_coherence = true;
        let refused = Trainer::new(other, config.fresh_net().unwrap()).err().unwrap();
        assert!(refused.to_string().contains("temporal-coherence"));
        assert!(matches!(refused, NTupleTrainError::Mismatch(_)), "a resume with another config: {refused:?}");
        let mut other = config.clone();
        other.td.lambda = 1.5;
        let refused = other.validate().unwrap_err();
        assert!(refused.to_string().contains("`td.lambda`"));
        assert!(matches!(refused, NTupleTrainError::Setting { key: "td.lambda", .. }), "{refused:?}");
    }
}
