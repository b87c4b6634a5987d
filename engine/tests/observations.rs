//! Observation planes: the tables, the docs generated from them, and the
//! properties every observation must have (no hidden information, frame
//! symmetry), checked over many random states.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::obs::plane_tables_markdown;
use stratego_engine::{
    observe, Color, Encoder, Error, HistoryFeatures, Layout, Move, Position, Refusal, Ruleset, State, VecEnv,
    BELIEF_IGNORE, NUM_ACTIONS,
};

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/OBSERVATIONS.md");

/// docs/OBSERVATIONS.md holds the plane tables exactly as the code defines
/// them. Run with `UPDATE_OBS_DOCS=1` to rewrite the generated part.
#[test]
fn docs_match_the_plane_tables() {
    let test = "cargo test -p stratego-engine --test observations";
    stratego_support::generated_docs::check_section(
        DOC,
        "PLANE TABLES",
        &plane_tables_markdown(),
        "UPDATE_OBS_DOCS",
        test,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn layouts_have_the_documented_sizes_and_unique_names() {
    assert_eq!(Layout::Compact.channels(), 58);
    assert_eq!(Layout::Full.channels(), 488);
    for layout in Layout::ALL {
        let planes = layout.planes();
        assert_eq!(planes.len(), layout.channels());
        let mut names: Vec<&str> = planes.iter().map(|p| p.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), planes.len(), "{layout} plane names are unique");
        assert!(planes.iter().enumerate().all(|(i, p)| p.index == i));
        assert_eq!(Layout::from_name(layout.name()).unwrap(), layout);
    }
    // The paper's numbering of the full set's landmarks.
    let full = Layout::Full.planes();
    assert_eq!(full[43].name, "we_threatened_spy");
    assert_eq!(full[109].name, "own_dead_spy");
    assert_eq!(full[131].name, "own_death_cause0_spy");
    assert_eq!(full[251].name, "our_protected_spy");
    assert_eq!(full[354].name, "their_was_protected_against_unknown");
    assert_eq!(full[355].name, "start_square_0");
    assert_eq!(full[455].name, "start_square_none");
    assert_eq!(full[456].name, "move_t-32");
    assert_eq!(full[487].name, "move_t-1");
    let compact = Layout::Compact.planes();
    assert_eq!(compact[24].name, "hidden_unmoved");
    assert_eq!(compact[28].name, "belief_spy");
    assert_eq!(compact[46].name, "own_remaining_spy");
}

#[test]
fn bad_layouts_and_buffers_are_errors() {
    assert!(matches!(Layout::from_name("huge"), Err(Error::UnknownLayout(ref name)) if name == "huge"));
    assert_eq!(
        Layout::from_name("huge").unwrap_err().to_string(),
        "unknown observation layout `huge` (expected compact or full)"
    );
    let state = random_state(1, 10);
    let mut small = vec![0.0; 100];
    let err = Encoder::new(&state, Color::Red, None).write(Layout::Compact, &mut small).unwrap_err();
    assert!(err.to_string().contains("5800"), "{err}");
    assert_eq!(err, Error::BufferLength { what: "observation", found: 100, expected: 5800 });
    let mut full = vec![0.0; Layout::Full.size()];
    assert!(Encoder::new(&state, Color::Red, None).write(Layout::Full, &mut full).is_err(), "full needs histories");
    assert!(matches!(
        Encoder::new(&state, Color::Red, None).write(Layout::Full, &mut full),
        Err(Error::Layout(ref why)) if why.contains("histories")
    ));
    let env = VecEnv::new(Ruleset::classic(), 3, 1).unwrap();
    assert!(env.observe(Layout::Compact, &mut vec![0.0; 2 * Layout::Compact.size()]).is_err());
    assert_eq!(
        env.observe(Layout::Compact, &mut vec![0.0; 2 * Layout::Compact.size()]),
        Err(Error::BufferLength {
            what: "observation",
            found: 2 * Layout::Compact.size(),
            expected: 3 * Layout::Compact.size()
        })
    );
    assert!(env.legal_mask(&mut [false; 10]).is_err());
    assert_eq!(
        env.legal_mask(&mut [false; 10]),
        Err(Error::BufferLength { what: "legal mask", found: 10, expected: 3 * 1800 })
    );
    assert_eq!(
        env.belief_targets(&mut [0; 1]),
        Err(Error::BufferLength { what: "belief target", found: 1, expected: 300 })
    );
    assert_eq!(env.current_players(&mut [0; 4]), Err(Error::BufferLength { what: "player", found: 4, expected: 3 }));
    assert!(VecEnv::new(Ruleset::classic(), 0, 1).is_err());
    assert!(matches!(VecEnv::new(Ruleset::classic(), 0, 1), Err(Error::EmptyBatch)));
}

/// A random game's state after `plies` plies (or at its end).
fn random_state(seed: u64, plies: usize) -> State {
    stratego_engine::playout::random_position(Ruleset::classic(), plies, &mut Xoshiro256PlusPlus::seed_from_u64(seed))
}

/// The same game with the types of two hidden opponent pieces (of the side
/// to move) exchanged at the root: pieces that never fought or ran stay
/// hidden, and if both moved or both never moved, every move of the game is
/// still legal. `None` if there is no such pair of different types.
fn with_hidden_types_swapped(state: &State, rng: &mut impl Rng) -> Option<State> {
    let viewer = state.to_move();
    let hidden: Vec<_> =
        state.board().pieces().filter(|(_, p)| p.color != viewer && !p.revealed).map(|(_, p)| p).collect();
    let mut pairs = Vec::new();
    for (i, a) in hidden.iter().enumerate() {
        for b in &hidden[i + 1..] {
            if a.kind != b.kind && a.moved == b.moved {
                pairs.push((*a, *b));
            }
        }
    }
    if pairs.is_empty() {
        return None;
    }
    let (a, b) = pairs[rng.random_range(0..pairs.len())];
    let mut root: Position = state.root().clone();
    let (pa, pb) = (root.board[a.origin].unwrap(), root.board[b.origin].unwrap());
    root.board.set(a.origin, Some(stratego_engine::Piece { kind: pb.kind, ..pa }));
    root.board.set(b.origin, Some(stratego_engine::Piece { kind: pa.kind, ..pb }));
    let mut other = State::from_position(root).unwrap();
    for r in state.history() {
        other.apply_move(r.mv).unwrap();
    }
    Some(other)
}

/// No leak: two states that differ only in the identities of the
/// opponent's hidden pieces look the same to the side to move.
#[test]
fn observations_never_reveal_hidden_opponent_types() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    let mut compared = 0;
    for seed in 0..60 {
        let plies = rng.random_range(0..400);
        let state = random_state(seed, plies);
        if state.is_terminal() {
            continue;
        }
        let Some(other) = with_hidden_types_swapped(&state, &mut rng) else { continue };
        assert_ne!(state, other, "the swap changed the hidden truth");
        assert_eq!(state.legal_actions(), other.legal_actions());
        for layout in Layout::ALL {
            assert!(observe(&state, layout) == observe(&other, layout), "{layout} leaks a hidden type (seed {seed})");
        }
        compared += 1;
    }
    assert!(compared > 40, "enough states compared ({compared})");
}

/// Frame: a state and its colour-swapped 180-degree mirror give identical
/// observations to their sides to move.
#[test]
fn a_state_and_its_colour_swapped_mirror_look_the_same() {
    for seed in 0..40 {
        let state = random_state(seed, (seed as usize * 37) % 500);
        let mirror = state.color_swapped();
        for layout in Layout::ALL {
            assert!(observe(&state, layout) == observe(&mirror, layout), "{layout} differs (seed {seed})");
        }
    }
}

/// Incremental histories (as `VecEnv` keeps them) equal a replay from the root.
#[test]
fn incremental_histories_match_a_replay() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut state = random_state(3, 0);
    let mut features = HistoryFeatures::default();
    for _ in 0..300 {
        let Some(mv) = state.sample_legal_move(&mut rng) else { break };
        let before = state.board().clone();
        state.apply_move(mv).unwrap();
        features.update(&state, &before);
    }
    assert_eq!(features, HistoryFeatures::from_state(&state));
}

#[test]
fn compact_planes_hold_their_invariants() {
    for seed in 0..30 {
        let state = random_state(seed, 50 + seed as usize * 13);
        let obs = observe(&state, Layout::Compact);
        let plane = |k: usize| &obs[k * 100..(k + 1) * 100];
        for cell in 0..100 {
            // Every square is exactly one of: own piece, revealed opponent,
            // hidden opponent (unmoved or moved), empty, lake.
            let covered: f32 = (0..28).map(|k| plane(k)[cell]).sum();
            assert_eq!(covered, 1.0, "seed {seed} cell {cell}");
            let belief: f32 = (28..40).map(|k| plane(k)[cell]).sum();
            let hidden = plane(24)[cell] + plane(25)[cell];
            assert!((belief - hidden).abs() < 1e-5, "beliefs sum to 1 exactly on hidden squares");
        }
        // Broadcast planes are constant.
        for k in [42, 43].into_iter().chain(46..58) {
            assert!(plane(k).iter().all(|&v| v == plane(k)[0]));
        }
        assert_eq!(plane(42)[0], state.ply() as f32 / 4000.0);
    }
}

#[test]
fn a_batch_overwrites_whatever_its_buffer_held() {
    // A caller reuses one buffer for every step: each observation must be
    // written whole, whatever the buffer held (NaN here, then the previous
    // step's planes), on more than one thread.
    let batch = 16;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let mut env = VecEnv::new(Ruleset::classic(), batch, 11).unwrap();
        let mut actions = vec![0u16; batch];
        let mut finished = Vec::new();
        let mut obs = vec![f32::NAN; batch * Layout::Full.size()];
        for round in 0..3 {
            for _ in 0..40 {
                env.sample_actions(&mut actions).unwrap();
                env.step(&actions, &mut finished).unwrap();
            }
            env.observe(Layout::Full, &mut obs).unwrap();
            for (i, state) in env.states().enumerate() {
                let own = &obs[i * Layout::Full.size()..][..Layout::Full.size()];
                assert!(own == observe(state, Layout::Full).as_slice(), "game {i}, round {round}");
            }
        }
    });
}

/// Whether two pieces of one colour and type died by one cause on one
/// square: the full layout's death planes then set one value twice.
fn has_a_repeated_death(state: &State) -> bool {
    let key = |d: &stratego_engine::state::Death| {
        (d.piece.color, d.piece.kind, stratego_engine::history::DeathCause::of(d) as usize, d.square)
    };
    let deaths: Vec<_> = state.deaths().iter().map(key).collect();
    deaths.iter().enumerate().any(|(i, k)| deaths[..i].contains(k))
}

#[test]
fn sparse_observations_hold_exactly_the_dense_values() {
    // One reused sparse observation for every state, layout and viewer: each
    // write forgets the last one. Early and late states, so that the death
    // planes meet a value set twice.
    let mut sparse = stratego_engine::SparseObservation::new();
    let mut repeated = 0;
    for seed in 0..60u64 {
        let state = random_state(seed, [0, 5, 150, 600, 2000][seed as usize % 5]);
        repeated += has_a_repeated_death(&state) as usize;
        let history = HistoryFeatures::from_state(&state);
        for layout in Layout::ALL {
            for viewer in Color::BOTH {
                let encoder = Encoder::new(&state, viewer, Some(&history));
                let mut dense = vec![f32::NAN; layout.size()];
                encoder.write(layout, &mut dense).unwrap();
                encoder.write_sparse(layout, &mut sparse).unwrap();
                assert_eq!(sparse.size(), layout.size());
                let mut seen = vec![false; layout.size()];
                for &(i, value) in sparse.entries() {
                    assert!(!std::mem::replace(&mut seen[i as usize], true), "index {i} listed twice");
                    assert_eq!(value.to_bits(), dense[i as usize].to_bits(), "seed {seed}, {layout}, value {i}");
                }
                let unlisted_nonzero = dense.iter().zip(&seen).filter(|(v, s)| **v != 0.0 && !**s).count();
                assert_eq!(unlisted_nonzero, 0, "seed {seed}, {layout}: every non-zero value is listed");
                let mut back = vec![f32::NAN; layout.size()];
                sparse.to_dense(&mut back).unwrap();
                assert!(back.iter().zip(&dense).all(|(a, b)| a.to_bits() == b.to_bits()), "seed {seed}, {layout}");
            }
        }
    }
    assert!(repeated > 0, "some state sets a death value twice");
    // The same refusals as the dense writer.
    let state = random_state(1, 10);
    assert!(Encoder::new(&state, Color::Red, None).write_sparse(Layout::Full, &mut sparse).is_err());
    assert!(Encoder::new(&state, Color::Red, None).write_sparse(Layout::Compact, &mut sparse).is_ok());
    assert!(matches!(sparse.to_dense(&mut [0.0; 10]), Err(Error::BufferLength { found: 10, .. })));
}

#[test]
fn a_sparse_batch_matches_the_dense_batch_step_after_step() {
    let batch = 12;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        for layout in Layout::ALL {
            let mut env = VecEnv::new(Ruleset { max_plies: 300, ..Ruleset::classic() }, batch, 5).unwrap();
            let mut actions = vec![0u16; batch];
            let mut finished = Vec::new();
            let mut sparse = stratego_engine::SparseBatch::new();
            assert_eq!(sparse.layout(), None);
            let mut dense = vec![0.0; batch * layout.size()];
            let mut back = vec![f32::NAN; batch * layout.size()];
            for step in 0..400 {
                env.sample_actions(&mut actions).unwrap();
                env.step(&actions, &mut finished).unwrap();
                if step % 40 != 39 {
                    continue;
                }
                env.observe(layout, &mut dense).unwrap();
                env.observe_sparse(layout, &mut sparse).unwrap();
                assert_eq!(sparse.layout(), Some(layout));
                let offsets = sparse.offsets();
                assert_eq!(offsets.len(), batch + 1);
                assert!(offsets[0] == 0 && offsets.windows(2).all(|w| w[0] <= w[1]));
                assert_eq!(offsets[batch], sparse.entries().len());
                for b in 0..batch {
                    let row = &dense[b * layout.size()..][..layout.size()];
                    let (start, end) = (offsets[b], offsets[b + 1]);
                    let nonzero = row.iter().filter(|v| **v != 0.0).count();
                    assert_eq!(end - start, nonzero, "step {step}, game {b}, {layout}");
                    for &(i, value) in &sparse.entries()[start..end] {
                        assert_eq!(value.to_bits(), row[i as usize].to_bits());
                    }
                }
                sparse.to_dense(&mut back).unwrap();
                assert!(back.iter().zip(&dense).all(|(a, b)| a.to_bits() == b.to_bits()), "step {step}, {layout}");
            }
            assert!(sparse.to_dense(&mut back[1..]).is_err(), "a buffer of the wrong length is refused");
        }
    });
}

#[test]
fn vecenv_is_reproducible_and_writes_consistent_buffers() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut env = VecEnv::new(Ruleset { max_plies: 120, ..Ruleset::classic() }, 8, 42).unwrap();
            let mut actions = vec![0u16; 8];
            let mut finished = Vec::new();
            let mut results = Vec::new();
            for _ in 0..400 {
                env.sample_actions(&mut actions).unwrap();
                env.step(&actions, &mut finished).unwrap();
                results.extend(finished.iter().map(|f| (f.env, f.outcome, f.record.moves.len())));
            }
            let mut obs = vec![0.0; 8 * Layout::Full.size()];
            env.observe(Layout::Full, &mut obs).unwrap();
            (results, obs)
        })
    };
    let (a, obs_a) = run(1);
    let (b, obs_b) = run(2);
    assert_eq!(a, b, "the same seed gives the same games on 1 and 2 threads");
    assert!(obs_a == obs_b);
    assert!(a.len() >= 16, "games finished and were reset ({})", a.len());

    let env = VecEnv::new(Ruleset::classic(), 4, 7).unwrap();
    let mut mask = vec![false; 4 * NUM_ACTIONS];
    env.legal_mask(&mut mask).unwrap();
    let mut targets = vec![0i32; 400];
    env.belief_targets(&mut targets).unwrap();
    let mut obs = vec![0.0; 4 * Layout::Full.size()];
    env.observe(Layout::Full, &mut obs).unwrap();
    for (i, state) in env.states().enumerate() {
        let ids: Vec<u16> = (0..NUM_ACTIONS).filter(|&a| mask[i * NUM_ACTIONS + a]).map(|a| a as u16).collect();
        assert_eq!(ids, state.legal_actions());
        let own = &obs[i * Layout::Full.size()..][..Layout::Full.size()];
        assert!(own == observe(state, Layout::Full).as_slice(), "batched = single observation");
        for cell in 0..100 {
            let t = targets[i * 100 + cell];
            let hidden_opponent = own[37 * 100 + cell] == 1.0; // opponent_hidden plane
            assert_eq!(t != BELIEF_IGNORE, hidden_opponent, "targets exactly on hidden opponent squares");
            if hidden_opponent {
                let sq = stratego_engine::Square::new(cell as u8).unwrap().in_frame(state.to_move());
                assert_eq!(t, state.board()[sq].unwrap().kind as i32);
            }
        }
    }
    let mut finished = Vec::new();
    let mut env = env;
    assert!(env.step(&[0, 0, 0, 0], &mut finished).is_err(), "illegal actions are refused");
    // The error names the first refused game and why; nothing is played.
    let before: Vec<State> = env.states().cloned().collect();
    let mut actions: Vec<u16> = env.states().map(|s| s.legal_actions()[0]).collect();
    let empty = Move::new("e5".parse().unwrap(), "e6".parse().unwrap());
    actions[2] = empty.to_action(env.state(2).unwrap().to_move()).unwrap();
    actions[3] = NUM_ACTIONS as u16;
    let refused = Error::IllegalMove { mv: empty, reason: Refusal::NoPiece { square: "e5".parse().unwrap() } };
    assert_eq!(env.step(&actions, &mut finished), Err(Error::InGame { game: 2, source: Box::new(refused) }));
    assert_eq!(
        env.step(&actions, &mut finished).unwrap_err().to_string(),
        "game 2: illegal move e5-e6: there is no piece on e5"
    );
    actions[2] = env.state(2).unwrap().legal_actions()[0];
    assert_eq!(
        env.step(&actions, &mut finished),
        Err(Error::InGame { game: 3, source: Box::new(Error::BadAction(NUM_ACTIONS as u32)) })
    );
    assert!(env.states().eq(before.iter()), "a refused step plays nothing");
}

/// `Layout::prior_planes` names the planes that hold the counting prior of
/// every hidden opponent piece, in both layouts (the network adds its belief
/// head to them).
#[test]
fn prior_planes_hold_the_counting_prior_of_hidden_pieces() {
    let state = random_state(11, 150);
    assert!(state.ply() > 20, "a game long enough to have moved and revealed pieces");
    let viewer = state.to_move();
    let prior = stratego_engine::CountingPrior::new(&state, viewer);
    for layout in Layout::ALL {
        assert_eq!(Layout::from_channels(layout.channels()), Some(layout));
        let planes = stratego_engine::observe(&state, layout);
        let range = layout.prior_planes();
        let mut hidden = 0;
        for (sq, piece) in state.board().pieces() {
            if piece.color == viewer || piece.revealed {
                continue;
            }
            hidden += 1;
            let cell = sq.in_frame(viewer).index();
            for (t, plane) in range.clone().enumerate() {
                assert_eq!(planes[plane * 100 + cell], prior.of(&piece)[t], "{layout} plane {plane}");
            }
        }
        assert!(hidden > 0);
    }
}
