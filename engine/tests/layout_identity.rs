//! The identity of each observation layout (`Layout::identity`): a version
//! and a hash of the plane table, stored in every checkpoint so a network
//! is never fed planes it was not trained on. These tests pin both
//! identities and the planes of fixed games: changing a layout's table or a
//! writer fails here until the layout's version is bumped (engine/src/obs.rs)
//! and the pins are updated.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sha2::{Digest, Sha256};
use stratego_engine::obs::{LayoutId, ParseLayoutIdError};
use stratego_engine::{Color, Encoder, HistoryFeatures, Layout, PieceSet, Ruleset, Setup, State};

/// The identities of this engine's layouts. A new table changes the hash by
/// itself; a writer that changes values under the same table must bump the
/// version (the digests below catch it).
const IDENTITIES: [(Layout, &str); 2] = [(Layout::Compact, "compact-v1:e9f9c7b6"), (Layout::Full, "full-v1:24b8c193")];

/// SHA-256 (first 8 bytes, hex) of the planes of `fixed_games`, per layout.
const DIGESTS: [(Layout, &str); 2] = [(Layout::Compact, "fbbb85565de74d9c"), (Layout::Full, "d4ec88ffcc09f35a")];

#[test]
fn identities_are_pinned() {
    for (layout, pinned) in IDENTITIES {
        let id = layout.identity();
        assert_eq!(
            id.to_string(),
            pinned,
            "the {layout} plane table changed: bump its version in engine/src/obs.rs (old checkpoints are then \
             refused, as they should be) and update this pin and docs/OBSERVATIONS.md\n{}",
            layout.canonical_table()
        );
        assert_eq!(id.name, layout.name());
        assert_eq!(id.version, layout.version());
        assert_eq!(id.hash.len(), 8);
    }
    assert_ne!(Layout::Compact.identity().hash, Layout::Full.identity().hash);
}

#[test]
fn identities_parse_back() {
    for layout in Layout::ALL {
        let id = layout.identity();
        assert_eq!(id.to_string().parse::<LayoutId>().unwrap(), id);
    }
    let other: LayoutId = "compact-v12:0123abcd".parse().unwrap();
    assert_eq!((other.name.as_str(), other.version, other.hash.as_str()), ("compact", 12, "0123abcd"));
    for bad in [
        "",
        "compact",
        "compact-v1",
        "compact:0123abcd",
        "-v1:0123abcd",
        "compact-v:0123abcd",
        "compact-vx:0123abcd",
        "compact-v1:0123abc",
        "compact-v1:0123ABCD",
        "compact-v1:0123abcde",
    ] {
        assert_eq!(bad.parse::<LayoutId>(), Err(ParseLayoutIdError(bad.to_string())), "{bad}");
    }
    assert!(ParseLayoutIdError("x".into()).to_string().contains("NAME-vVERSION:HASH"));
}

/// The canonical text the hash is taken over follows the table: one line per
/// group, whose plane counts sum to the layout's channels.
#[test]
fn the_hash_covers_every_group_and_plane() {
    for layout in Layout::ALL {
        let text = layout.canonical_table();
        let mut total = 0;
        let planes = layout.planes();
        for line in text.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            let count: usize = fields[1].parse().unwrap();
            let range = layout.group(fields[0]).expect("every group of the text is in the layout");
            assert_eq!(range, total..total + count);
            assert!(planes[range].iter().all(|p| p.name.starts_with(fields[0])));
            total += count;
        }
        assert_eq!(total, layout.channels());
        assert_eq!(layout.size(), layout.channels() * 100);
    }
    assert_eq!(Layout::Compact.group("belief"), Some(Layout::Compact.prior_planes()));
    assert_eq!(Layout::Full.group("opponent"), Some(Layout::Full.prior_planes()));
    assert_eq!(Layout::Compact.group("start_square"), None);
    assert!(!Layout::Compact.needs_history() && Layout::Full.needs_history());
    // The counts are compile-time constants.
    const CHANNELS: [usize; 2] = [Layout::Compact.channels(), Layout::Full.channels()];
    assert_eq!(CHANNELS, [Layout::Compact.planes().len(), Layout::Full.planes().len()]);
}

/// Every observation of a few seeded games (classic and Barrage, both
/// viewers, every ply), as one digest per layout.
fn fixed_games(layout: Layout) -> String {
    let mut hasher = Sha256::new();
    for seed in 0..6u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let set = if seed % 2 == 0 { PieceSet::Classic } else { PieceSet::Barrage };
        let rules = Ruleset { piece_set: set, max_plies: 300, ..Ruleset::classic() };
        let red = Setup::random(set, &mut rng);
        let blue = Setup::random(set, &mut rng);
        let mut state = State::from_setups(rules, &red, &blue).unwrap();
        let mut history = HistoryFeatures::from_state(&state);
        let mut out = vec![0.0f32; layout.size()];
        loop {
            for viewer in [Color::Red, Color::Blue] {
                Encoder::new(&state, viewer, Some(&history)).write(layout, &mut out).unwrap();
                for v in &out {
                    hasher.update(v.to_bits().to_le_bytes());
                }
            }
            let Some(mv) = state.sample_legal_move(&mut rng) else { break };
            let before = state.board().clone();
            state.apply_move(mv).unwrap();
            history.update(&state, &before);
        }
    }
    hasher.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_planes_of_fixed_games_are_pinned() {
    for (layout, pinned) in DIGESTS {
        assert_eq!(
            fixed_games(layout),
            pinned,
            "the {layout} planes of the fixed games changed. If a writer changed what a plane holds, bump the \
             layout's version in engine/src/obs.rs (old checkpoints are then refused) and update the pins; if only \
             the random setups or move sampling changed, update this pin"
        );
    }
}
