// Temporary: digest of many observations, to compare two engine versions (deleted afterwards).
use rand::SeedableRng;
use sha2::{Digest, Sha256};
use stratego_engine::*;
fn main() {
    for layout in Layout::ALL {
        let mut hasher = Sha256::new();
        let mut n = 0;
        for seed in 0..300u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let set = if seed % 3 == 0 { PieceSet::Barrage } else { PieceSet::Classic };
            let rules = Ruleset { piece_set: set, max_plies: 500, ..Ruleset::classic() };
            let red = Setup::random(set, &mut rng);
            let blue = Setup::random(set, &mut rng);
            let mut state = State::from_setups(rules, &red, &blue).unwrap();
            let mut history = HistoryFeatures::from_state(&state);
            let mut out = vec![0.0f32; layout.size()];
            for _ in 0..600 {
                for viewer in [Color::Red, Color::Blue] {
                    Encoder::new(&state, viewer, Some(&history)).write(layout, &mut out).unwrap();
                    for v in &out { hasher.update(v.to_bits().to_le_bytes()); }
                    n += 1;
                }
                let Some(mv) = state.sample_legal_move(&mut rng) else { break };
                let before = state.board().clone();
                state.apply_move(mv).unwrap();
                history.update(&state, &before);
            }
        }
        let d = hasher.finalize();
        println!("{layout}: {n} observations, digest {:02x?}", &d[..8]);
    }
}
