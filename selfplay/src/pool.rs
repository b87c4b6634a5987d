//! Past versions of the network being trained, as opponents (a "pool of
//! past selves"): the run adds its network every `selfplay.pool_every`
//! iterations and keeps the newest `selfplay.pool_size`; in a share of the
//! games an actor seats one of them against the current network.
//!
//! The sampling rule is recency-biased: the k-th newest (k = 1 for the
//! newest) is drawn with probability proportional to 1/k. The newest
//! versions are the likeliest, as the network's strength is near theirs and
//! their games teach the most, while every older version still comes back
//! now and then, so that a weakness the network once had and lost does not
//! quietly return.

use std::sync::{Arc, RwLock};

use rand::Rng;
use stratego_players::{AgentRng, PlayerFactory};

/// The pool, shared by the learner (which adds) and the actors (which draw).
pub struct Pool {
    size: usize,
    /// Oldest first.
    entries: RwLock<Vec<(u64, Arc<dyn PlayerFactory>)>>,
}

impl Pool {
    /// An empty pool that keeps at most `size` versions (at least one).
    pub fn new(size: usize) -> Arc<Pool> {
        Arc::new(Pool { size: size.max(1), entries: RwLock::new(Vec::new()) })
    }

    /// Adds the player of policy version `version`; the oldest leaves when
    /// the pool is full. Returns the versions that left.
    pub fn add(&self, version: u64, player: Arc<dyn PlayerFactory>) -> Vec<u64> {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        entries.push((version, player));
        let excess = entries.len().saturating_sub(self.size);
        entries.drain(..excess).map(|(v, _)| v).collect()
    }

    /// The versions in the pool, oldest first.
    pub fn versions(&self) -> Vec<u64> {
        self.entries.read().unwrap_or_else(|e| e.into_inner()).iter().map(|(v, _)| *v).collect()
    }

    /// The chance of each version in the pool (oldest first) under the
    /// sampling rule: the k-th newest in proportion to 1/k.
    pub fn chances(&self) -> Vec<f64> {
        chances(self.entries.read().unwrap_or_else(|e| e.into_inner()).len())
    }

    /// A past self drawn by the sampling rule (`None` while the pool is
    /// empty): its version and player.
    pub fn draw(&self, rng: &mut AgentRng) -> Option<(u64, Arc<dyn PlayerFactory>)> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        if entries.is_empty() {
            return None;
        }
        let mut left = rng.random::<f64>();
        let weights = chances(entries.len());
        let last = entries.len() - 1;
        let index = weights
            .iter()
            .position(|&p| {
                left -= p;
                left < 0.0
            })
            .unwrap_or(last);
        let (version, player) = &entries[index];
        Some((*version, player.clone()))
    }
}

/// Oldest first: entry i of n is the (n - i)-th newest, weighted 1/(n - i).
fn chances(n: usize) -> Vec<f64> {
    let weights: Vec<f64> = (0..n).map(|i| 1.0 / (n - i) as f64).collect();
    let total: f64 = weights.iter().sum();
    weights.into_iter().map(|w| w / total).collect()
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use stratego_players::FnFactory;

    use super::*;

    fn player(name: &str) -> Arc<dyn PlayerFactory> {
        Arc::new(FnFactory::new(name, || Box::new(crate::First) as Box<dyn stratego_players::Player>))
    }

    #[test]
    fn the_pool_keeps_the_newest_and_draws_them_in_proportion_to_one_over_their_rank() {
        let pool = Pool::new(3);
        let mut rng = AgentRng::seed_from_u64(1);
        assert!(pool.draw(&mut rng).is_none(), "an empty pool seats nobody");
        for v in [4, 8, 12] {
            assert!(pool.add(v, player(&format!("v{v}"))).is_empty());
        }
        assert_eq!(pool.add(16, player("v16")), vec![4]);
        assert_eq!(pool.versions(), vec![8, 12, 16]);
        // 1/3 : 1/2 : 1, normalised.
        let expected = [2.0 / 11.0, 3.0 / 11.0, 6.0 / 11.0];
        for (p, e) in pool.chances().iter().zip(expected) {
            assert!((p - e).abs() < 1e-12, "{p} {e}");
        }
        let draws = 30_000;
        let mut counts = [0usize; 3];
        for _ in 0..draws {
            let (version, _) = pool.draw(&mut rng).unwrap();
            counts[[8, 12, 16].iter().position(|&v| v == version).unwrap()] += 1;
        }
        for (count, e) in counts.iter().zip(expected) {
            let share = *count as f64 / draws as f64;
            // Five standard errors of a share near 0.5 over 30,000 draws.
            assert!((share - e).abs() < 0.015, "{counts:?}");
        }
    }
}
