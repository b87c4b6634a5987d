//! Measurements of the engine's hot paths, printed by `stratego bench`.
//! Each returns plain numbers; the command formats them as
//! `NAME: NUMBER UNIT` lines.

use std::time::Instant;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::action::ActionId;
use crate::history::HistoryFeatures;
use crate::obs::{Encoder, Layout, SparseObservation};
use crate::playout::{play_randomly, random_playouts, random_position, PlayoutStats};
use crate::rules::Ruleset;
use crate::state::State;
use crate::vecenv::{SparseBatch, VecEnv};

/// Speed of random playouts under one ruleset, over several rounds.
#[derive(Clone, Debug)]
pub struct PlayoutSpeed {
    pub name: &'static str,
    pub rules: Ruleset,
    /// Plies per second on one core: the best round (interference from the
    /// rest of the machine only ever slows a round down) ...
    pub plies_per_second: f64,
    /// ... and the median round.
    pub median: f64,
    /// Every round's figure, in the order measured.
    pub rounds: Vec<f64>,
    /// The games of the first round.
    pub stats: PlayoutStats,
}

/// Measures random playouts (uniform random setups, then a uniform random
/// legal move each ply) under the full rules, without the chasing rule,
/// and without both move rules, so the rules' costs can be read off.
/// Rounds interleave the variants so a slow spell of the machine hits all
/// of them; every round of a variant replays the same seeded games.
pub fn measure_playout_speed(plies_per_round: u64, rounds: usize, seed: u64) -> Vec<PlayoutSpeed> {
    let full = Ruleset::classic();
    let mut speeds: Vec<PlayoutSpeed> = [
        ("full rules", full),
        ("chasing rule off", Ruleset { chase_rule: false, ..full }),
        ("chasing and two-square rules off", Ruleset { chase_rule: false, two_square_limit: 0, ..full }),
    ]
    .into_iter()
    .map(|(name, rules)| PlayoutSpeed {
        name,
        rules,
        plies_per_second: 0.0,
        median: 0.0,
        rounds: Vec::new(),
        stats: PlayoutStats::default(),
    })
    .collect();
    for round in 0..rounds.max(1) {
        for speed in &mut speeds {
            let (rate, stats) = timed_playouts(speed.rules, plies_per_round, seed);
            speed.rounds.push(rate);
            if round == 0 {
                speed.stats = stats;
            }
        }
    }
    for speed in &mut speeds {
        let mut sorted = speed.rounds.clone();
        sorted.sort_by(f64::total_cmp);
        speed.median = sorted[sorted.len() / 2];
        speed.plies_per_second = sorted[sorted.len() - 1];
    }
    speeds
}

/// One round of seeded random playouts of at least `plies` plies: plies
/// per second on this thread, and the games' statistics.
fn timed_playouts(rules: Ruleset, plies: u64, seed: u64) -> (f64, PlayoutStats) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let start = Instant::now();
    let stats = random_playouts(rules, plies, &mut rng);
    (stats.plies as f64 / start.elapsed().as_secs_f64().max(1e-9), stats)
}

/// The machine's speed as one figure: random playout plies per second on
/// this thread under the classic rules, the best of `rounds` rounds of
/// `plies` plies (a busy spell slows the best round least). Logged beside
/// timed results, whose players are as strong as the machine lets them
/// search.
pub fn machine_speed(plies: u64, rounds: usize) -> f64 {
    (0..rounds.max(1)).map(|_| timed_playouts(Ruleset::classic(), plies, 1).0).fold(0.0, f64::max)
}

/// What a rule costs, from rounds measured alternately with and without
/// it: per round, the time per ply with the rule over the time per ply
/// without it. A difference of two noisy best rounds can come out negative;
/// a ratio per alternating round pairs rounds that ran under the same load,
/// and its spread across rounds says how far to trust it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RuleCost {
    /// Median over rounds of (time per ply with) / (time per ply without).
    pub median_ratio: f64,
    /// The smallest and the largest round's ratio.
    pub low: f64,
    pub high: f64,
    /// The median ratio as nanoseconds per ply at the rule-free variant's
    /// median speed (negative when the rule measured cheaper than nothing:
    /// noise, which `low`..`high` then spans).
    pub ns_per_ply: f64,
    pub rounds: usize,
}

impl RuleCost {
    /// `with` and `without` must come from one `measure_playout_speed` call
    /// (the same rounds, alternated).
    pub fn between(with: &PlayoutSpeed, without: &PlayoutSpeed) -> RuleCost {
        let mut ratios: Vec<f64> =
            with.rounds.iter().zip(&without.rounds).map(|(&w, &wo)| wo / w.max(f64::MIN_POSITIVE)).collect();
        ratios.sort_by(f64::total_cmp);
        let median_ratio = ratios.get(ratios.len() / 2).copied().unwrap_or(1.0);
        RuleCost {
            median_ratio,
            low: ratios.first().copied().unwrap_or(1.0),
            high: ratios.last().copied().unwrap_or(1.0),
            ns_per_ply: (median_ratio - 1.0) * 1e9 / without.median.max(f64::MIN_POSITIVE),
            rounds: ratios.len(),
        }
    }
}

/// Random playouts under the full rules on `threads` threads at once, each
/// with its own seeded generator: total plies per second of the machine.
pub fn measure_parallel_playouts(threads: usize, plies_per_thread: u64, seed: u64) -> f64 {
    let start = Instant::now();
    let plies: u64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1) as u64)
            .map(|t| {
                scope.spawn(move || {
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed.wrapping_add(t));
                    random_playouts(Ruleset::classic(), plies_per_thread, &mut rng).plies
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a playout thread does not panic")).sum()
    });
    plies as f64 / start.elapsed().as_secs_f64()
}

/// Observations per second on one thread: `layout` written for each of a set
/// of mid-game states (random games cut at random plies), into one reused
/// buffer. Returns (observations per second, bytes per observation).
pub fn measure_observations(layout: Layout, observations: usize, seed: u64) -> (f64, usize) {
    let states = mid_game_states(seed);
    let mut out = vec![0.0f32; layout.size()];
    let start = Instant::now();
    for i in 0..observations {
        let (state, history) = &states[i % states.len()];
        Encoder::new(state, state.to_move(), Some(history)).write(layout, &mut out).expect("the buffer fits");
        std::hint::black_box(&out);
    }
    (observations as f64 / start.elapsed().as_secs_f64(), layout.size() * 4)
}

/// `measure_observations` written sparse (`Encoder::write_sparse`) into one
/// reused `SparseObservation`. Returns (observations per second, the mean
/// number of values listed: 8 bytes each).
pub fn measure_sparse_observations(layout: Layout, observations: usize, seed: u64) -> (f64, f64) {
    let states = mid_game_states(seed);
    let mut out = SparseObservation::new();
    let mut listed = 0;
    let start = Instant::now();
    for i in 0..observations {
        let (state, history) = &states[i % states.len()];
        Encoder::new(state, state.to_move(), Some(history)).write_sparse(layout, &mut out).expect("a valid layout");
        listed += std::hint::black_box(&out).entries().len();
    }
    (observations as f64 / start.elapsed().as_secs_f64(), listed as f64 / observations.max(1) as f64)
}

/// 64 mid-game states (random games cut at random plies) with their
/// histories.
fn mid_game_states(seed: u64) -> Vec<(State, HistoryFeatures)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..64)
        .map(|_| {
            let mut state = random_position(Ruleset::classic(), 0, &mut rng);
            let plies = rand::Rng::random_range(&mut rng, 0..300);
            play_randomly(&mut state, plies, &mut rng);
            let history = HistoryFeatures::from_state(&state);
            (state, history)
        })
        .collect()
}

/// A `VecEnv` of `batch` games doing `steps` rounds of: sample an action per
/// game, step, observe all in `layout`, write the legal masks. Returns game
/// steps (one action in one game) per second, with rayon's current threads.
pub fn measure_vecenv(layout: Layout, batch: usize, steps: usize, seed: u64) -> f64 {
    let mut obs = vec![0.0f32; batch * layout.size()];
    timed_vecenv(batch, steps, seed, |env| env.observe(layout, &mut obs).expect("the buffer fits"))
}

/// `measure_vecenv` with the observations written sparse
/// (`VecEnv::observe_sparse`).
pub fn measure_vecenv_sparse(layout: Layout, batch: usize, steps: usize, seed: u64) -> f64 {
    let mut obs = SparseBatch::new();
    timed_vecenv(batch, steps, seed, |env| env.observe_sparse(layout, &mut obs).expect("a valid layout"))
}

/// The loop of `measure_vecenv`, observing with `observe`.
fn timed_vecenv(batch: usize, steps: usize, seed: u64, mut observe: impl FnMut(&VecEnv)) -> f64 {
    let mut env = VecEnv::new(Ruleset::classic(), batch, seed).expect("a valid batch");
    let mut actions: Vec<ActionId> = vec![0; batch];
    let mut mask = vec![false; batch * crate::action::NUM_ACTIONS];
    let mut finished = Vec::with_capacity(batch);
    let start = Instant::now();
    for _ in 0..steps {
        env.sample_actions(&mut actions).expect("the buffer fits");
        env.step(&actions, &mut finished).expect("sampled actions are legal");
        observe(&env);
        env.legal_mask(&mut mask).expect("the buffer fits");
    }
    (batch * steps) as f64 / start.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speed(rounds: &[f64]) -> PlayoutSpeed {
        let mut sorted = rounds.to_vec();
        sorted.sort_by(f64::total_cmp);
        PlayoutSpeed {
            name: "test",
            rules: Ruleset::classic(),
            plies_per_second: sorted[sorted.len() - 1],
            median: sorted[sorted.len() / 2],
            rounds: rounds.to_vec(),
            stats: PlayoutStats::default(),
        }
    }

    #[test]
    fn a_rule_cost_pairs_alternating_rounds() {
        // The rule costs 5 % in every round while the machine's load moves
        // both variants together, except in the last round, where the
        // rule-free variant was slowed down alone: its ratio is the spread.
        let without = speed(&[1.0e6, 2.0e6, 1.5e6, 0.5e6]);
        let with = speed(&[1.0e6 / 1.05, 2.0e6 / 1.05, 1.5e6 / 1.05, 1.0e6]);
        let cost = RuleCost::between(&with, &without);
        assert!((cost.median_ratio - 1.05).abs() < 1e-9, "{cost:?}");
        assert!((cost.low - 0.5).abs() < 1e-9 && (cost.high - 1.05).abs() < 1e-9, "{cost:?}");
        assert_eq!(cost.rounds, 4);
        // At the rule-free variant's median round (1.5e6 plies/s).
        assert!((cost.ns_per_ply - 0.05 * 1e9 / 1.5e6).abs() < 1e-6, "{cost:?}");
    }
}
