//! The network's inputs from the engine's buffers: one definition of how
//! planes and legal masks become tensors (inference, the learner's
//! objective, the benchmarks and the tests all build them here), and a
//! batch of observations taken from a `VecEnv`.

use burn::tensor::{Bool, Device, Tensor, TensorData};
use stratego_engine::{Layout, Ruleset, Square, VecEnv, NUM_ACTIONS};

/// `[B, C, 100]` planes and the `[B, 1800]` legal mask as the network's
/// input tensors on `device`; `B` is the mask's length over 1800 and `C`
/// follows from the planes' length.
pub fn input_tensors(planes: &[f32], legal: &[bool], device: &Device) -> (Tensor<3>, Tensor<2, Bool>) {
    let batch = legal.len() / NUM_ACTIONS;
    let channels = planes.len() / (batch * Square::COUNT).max(1);
    let x = Tensor::<3>::from_data(TensorData::new(planes.to_vec(), [batch, channels, Square::COUNT]), device);
    let mask = Tensor::<2, Bool>::from_data(TensorData::new(legal.to_vec(), [batch, NUM_ACTIONS]), device);
    (x, mask)
}

/// What a `VecEnv`'s games observe now, as flat buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// `[B, C, 100]` in the layout asked for.
    pub planes: Vec<f32>,
    /// `[B, 1800]`.
    pub legal: Vec<bool>,
    /// `[B, 100]` true hidden types (the belief head's targets).
    pub belief_targets: Vec<i32>,
}

impl Observed {
    /// The observations of `env`'s games for their players to move.
    pub fn of(env: &VecEnv, layout: Layout) -> Observed {
        let games = env.batch_size();
        let mut planes = vec![0.0; games * layout.size()];
        let mut legal = vec![false; games * NUM_ACTIONS];
        let mut belief_targets = vec![0; games * Square::COUNT];
        env.observe(layout, &mut planes).expect("buffers sized for the batch");
        env.legal_mask(&mut legal).expect("buffers sized for the batch");
        env.belief_targets(&mut belief_targets).expect("buffers sized for the batch");
        Observed { planes, legal, belief_targets }
    }

    /// The observations of `games` games of `rules` (seeded `seed`) after
    /// `plies` uniformly random plies each (a game that ends starts anew).
    pub fn after_random_plies(rules: Ruleset, games: usize, seed: u64, plies: usize, layout: Layout) -> Observed {
        let mut env = VecEnv::new(rules, games, seed).expect("a batch of at least one game");
        let mut actions = vec![0u16; games];
        let mut finished = Vec::new();
        for _ in 0..plies {
            env.sample_actions(&mut actions).expect("sized for the batch");
            env.step(&actions, &mut finished).expect("sampled actions are legal");
        }
        Observed::of(&env, layout)
    }

    /// The network's input tensors on `device`.
    pub fn tensors(&self, device: &Device) -> (Tensor<3>, Tensor<2, Bool>) {
        input_tensors(&self.planes, &self.legal, device)
    }

    /// `[B, 1800]`: the uniform policy over each game's legal actions, a
    /// fixed policy target for tests and benchmarks.
    pub fn uniform_policy(&self) -> Vec<f32> {
        self.legal
            .chunks(NUM_ACTIONS)
            .flat_map(|row| {
                let n = row.iter().filter(|&&l| l).count() as f32;
                row.iter().map(move |&l| if l { 1.0 / n } else { 0.0 })
            })
            .collect()
    }
}
