//! Players only return legal moves, decide from public information only, and
//! the expectimax search's pruning changes no decision.

use rand::SeedableRng;
use stratego_baselines::expectimax::{ExpectimaxConfig, ExpectimaxPlayer};
use stratego_baselines::heuristic::{leaf_value, terminal_score, LeafTerms, DEFAULT_SCALE};
use stratego_engine::{Color, CountingPrior, Move, PieceSet, PieceType, Ruleset, Setup, Square, State};
use stratego_players::determinize::with_hidden_type;
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::view::{public_history, InfoView, PublicPly};
use stratego_players::{AgentRng, Player};

const SPECS: [&str; 6] = [
    "random",
    "greedy",
    "expectimax:depth=2,nodes=400",
    "random:setup=handcrafted",
    "greedy:setup=handcrafted",
    "expectimax:depth=3,nodes=300,setup=handcrafted",
];

fn player(spec: &str) -> Box<dyn Player> {
    stratego_baselines::factory_of(spec).unwrap().make()
}

/// The built-in specs and the n-tuple players (the afterstate player and
/// the expectimax leaf) over a table file with seeded random weights.
fn specs() -> Vec<String> {
    use rand::Rng;
    use stratego_baselines::ntuple::{layout, Layout, NTupleNet};
    // Written once per test process: the tests run in parallel, and two
    // saving the same file at once raced on its rename (a flaky CI failure).
    static TABLES: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let path = TABLES.get_or_init(|| {
        let path = stratego_testkit::scratch_path("players-ntuple.safetensors");
        let mut net = NTupleNet::new(Layout::preset(layout::DEFAULT).unwrap(), Ruleset::classic(), false).unwrap();
        let mut rng = AgentRng::seed_from_u64(99);
        for k in 0..net.layout().tables() {
            net.table_mut(k).iter_mut().for_each(|w| *w = rng.random_range(-0.1..0.1));
        }
        net.material_tables_mut().iter_mut().for_each(|w| *w = rng.random_range(-0.1..0.1));
        net.save(&path, None).unwrap();
        path
    });
    let mut all: Vec<String> = SPECS.iter().map(|s| s.to_string()).collect();
    all.push(format!("ntuple:{}", path.display()));
    all.push(format!("expectimax:depth=2,nodes=300,leaf=ntuple:{},setup=handcrafted", path.display()));
    all
}

#[test]
fn every_player_returns_only_legal_moves_and_valid_setups() {
    let specs = specs();
    for (i, spec) in specs.iter().enumerate() {
        for rules in [Ruleset::barrage(), Ruleset { max_plies: 300, ..Ruleset::classic() }] {
            let mut rng = AgentRng::seed_from_u64(i as u64);
            let (mut red, mut blue) = (player(spec), player(&specs[(i + 1) % specs.len()]));
            let red_setup = red.choose_setup(rules.piece_set, &mut rng);
            let blue_setup = blue.choose_setup(rules.piece_set, &mut rng);
            red_setup.validate(rules.piece_set).unwrap();
            blue_setup.validate(rules.piece_set).unwrap();
            let mut state = State::from_setups(rules, &red_setup, &blue_setup).unwrap();
            let mut history: Vec<PublicPly> = Vec::new();
            while !state.is_terminal() {
                let view = InfoView::new(&state, &history);
                let who = if state.to_move() == Color::Red { &mut red } else { &mut blue };
                let mv = who.choose_move(&view, &mut rng).unwrap();
                assert!(
                    view.legal_moves.contains(&mv),
                    "{} chose {mv}, not legal in {}",
                    who.name(),
                    state.serialize()
                );
                state.apply_move(mv).unwrap();
                history.push(PublicPly::of(state.history().last().unwrap()));
            }
        }
    }
}

/// Plays seeded random moves in two games that differ only in the hidden
/// identities of two of `hidden`'s pieces, never moving or attacking them,
/// and returns the pairs of states at which `hidden`'s opponent is to move.
fn information_equal_states(seed: u64, hidden: Color) -> Vec<(State, State)> {
    let mut rng = AgentRng::seed_from_u64(seed);
    let red = Setup::random(PieceSet::Classic, &mut rng);
    let blue = Setup::random(PieceSet::Classic, &mut rng);
    // Two back-row pieces of different types trade places in the second game.
    let original = if hidden == Color::Red { &red } else { &blue };
    let (i, j) = (0..10)
        .flat_map(|i| (i + 1..10).map(move |j| (i, j)))
        .find(|&(i, j)| original.get(i) != original.get(j))
        .unwrap();
    let mut slots = *original.slots();
    slots.swap(i, j);
    let swapped = Setup::from_slots(slots, PieceSet::Classic).unwrap();
    let untouchable = [i, j].map(|c| Square::new(c as u8).unwrap().in_frame(hidden));
    let (red2, blue2) = if hidden == Color::Red { (swapped, blue.clone()) } else { (red.clone(), swapped) };
    let mut a = State::from_setups(Ruleset::classic(), &red, &blue).unwrap();
    let mut b = State::from_setups(Ruleset::classic(), &red2, &blue2).unwrap();
    assert_ne!(a, b);
    let mut pairs = Vec::new();
    for _ in 0..160 {
        if a.is_terminal() {
            break;
        }
        if a.to_move() != hidden {
            pairs.push((a.clone(), b.clone()));
        }
        let moves: Vec<Move> = a
            .legal_moves()
            .into_iter()
            .filter(|m| !untouchable.contains(&m.from) && !untouchable.contains(&m.to) && b.is_legal(*m))
            .collect();
        if moves.is_empty() {
            break;
        }
        let mv = moves[rand::Rng::random_range(&mut rng, 0..moves.len())];
        a.apply_move(mv).unwrap();
        b.apply_move(mv).unwrap();
    }
    pairs
}

#[test]
fn players_never_read_hidden_truth() {
    let mut compared = 0;
    for (seed, hidden) in [(1, Color::Blue), (2, Color::Red), (3, Color::Blue)] {
        for (n, (a, b)) in information_equal_states(seed, hidden).into_iter().enumerate() {
            if n % 10 != 0 {
                continue;
            }
            assert_ne!(a.board(), b.board(), "the hidden identities differ");
            let (ha, hb) = (public_history(&a), public_history(&b));
            let (va, vb) = (InfoView::new(&a, &ha), InfoView::new(&b, &hb));
            assert_eq!(va, vb, "the same public information gives the same view");
            for spec in &specs() {
                for player_seed in 0..2 {
                    let ma = player(spec).choose_move(&va, &mut AgentRng::seed_from_u64(player_seed)).unwrap();
                    let mb = player(spec).choose_move(&vb, &mut AgentRng::seed_from_u64(player_seed)).unwrap();
                    assert_eq!(ma, mb, "{spec} chose differently in information-equal states");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn the_view_prior_is_the_engine_counting_prior() {
    for (a, _) in information_equal_states(5, Color::Blue).into_iter().step_by(7) {
        let history = public_history(&a);
        let view = InfoView::new(&a, &history);
        assert_eq!(view.prior(), CountingPrior::new(&a, a.to_move()));
    }
}

/// Plain expectiminimax without any pruning, with the same chance nodes,
/// informed opponent and leaves as the default player: the reference the
/// pruned search must agree with.
fn plain(state: &State, me: Color, depth: u32, from_root: u32) -> f64 {
    if state.is_terminal() {
        return terminal_score(state, me, from_root);
    }
    if depth == 0 {
        // The default leaves; the press does not apply under these rules.
        return leaf_value(state, me, LeafTerms { press: false, guard: true, defend: false, scale: DEFAULT_SCALE });
    }
    let moves = state.legal_moves();
    if state.to_move() == me {
        return moves
            .into_iter()
            .map(|mv| plain_move(state, me, mv, depth, from_root))
            .fold(f64::NEG_INFINITY, f64::max);
    }
    // The opponent attacks with a hidden piece knowing its type: each type's
    // value is capped by the best of its other moves.
    let (hidden, other): (Vec<Move>, Vec<Move>) =
        moves.into_iter().partition(|&mv| hidden_battle(state, me, mv).is_some());
    let best_other =
        other.into_iter().map(|mv| plain_move(state, me, mv, depth, from_root)).fold(f64::INFINITY, f64::min);
    hidden
        .into_iter()
        .map(|mv| {
            outcomes(state, me, mv, depth, from_root).into_iter().map(|(v, p)| p * v.min(best_other)).sum::<f64>()
        })
        .fold(best_other, f64::min)
}

/// If `mv` starts a battle with a piece hidden from `me`: its square, the
/// piece, and whether it attacks.
fn hidden_battle(state: &State, me: Color, mv: Move) -> Option<(Square, stratego_engine::Piece, bool)> {
    let board = state.board();
    let (mover, target) = (board[mv.from].unwrap(), board[mv.to]);
    match target {
        Some(t) if mover.color == me && !t.revealed => Some((mv.to, t, false)),
        Some(_) if mover.color != me && !mover.revealed => Some((mv.from, mover, true)),
        _ => None,
    }
}

/// The values of a hidden battle's outcomes with their probabilities.
fn outcomes(state: &State, me: Color, mv: Move, depth: u32, from_root: u32) -> Vec<(f64, f64)> {
    let (sq, piece, attacking) = hidden_battle(state, me, mv).unwrap();
    let dist = *CountingPrior::new(state, me).of(&piece);
    let allowed = |t: PieceType| !attacking || (t.is_movable() && (mv.distance() == 1 || t == PieceType::Scout));
    let outcomes: Vec<(PieceType, f64)> = PieceType::ALL
        .into_iter()
        .filter(|&t| allowed(t) && dist[t.index()] > 0.0)
        .map(|t| (t, dist[t.index()] as f64))
        .collect();
    let total: f64 = outcomes.iter().map(|o| o.1).sum();
    outcomes
        .into_iter()
        .map(|(t, p)| {
            let mut child = with_hidden_type(state, sq, t);
            child.apply_move(mv).unwrap();
            (plain(&child, me, depth - 1, from_root + 1), p / total)
        })
        .collect()
}

fn plain_move(state: &State, me: Color, mv: Move, depth: u32, from_root: u32) -> f64 {
    if hidden_battle(state, me, mv).is_none() {
        let mut child = state.clone();
        child.apply_move(mv).unwrap();
        return plain(&child, me, depth - 1, from_root + 1);
    }
    outcomes(state, me, mv, depth, from_root).into_iter().map(|(v, p)| p * v).sum()
}

fn midgame(rules: Ruleset, seed: u64, plies: usize) -> Option<State> {
    let mut rng = AgentRng::seed_from_u64(seed);
    let red = Setup::random(rules.piece_set, &mut rng);
    let blue = Setup::random(rules.piece_set, &mut rng);
    let mut state = State::from_setups(rules, &red, &blue).unwrap();
    for _ in 0..plies {
        let mv = state.sample_legal_move(&mut rng)?;
        state.apply_move(mv).unwrap();
    }
    (!state.is_terminal()).then_some(state)
}

#[test]
fn star1_pruning_gives_the_unpruned_best_value_and_best_moves() {
    let mut checked = 0;
    for (rules, depth, plies) in [(Ruleset::barrage(), 3, 30), (Ruleset::classic(), 2, 120)] {
        for seed in 0..6 {
            let Some(state) = midgame(rules, seed, plies + seed as usize) else { continue };
            let me = state.to_move();
            let config =
                ExpectimaxConfig { depth, nodes: u64::MAX, time: None, clock_decides: false, ..Default::default() };
            let mut player = ExpectimaxPlayer::new(config, SetupPolicy::Random);
            let legal = state.legal_moves();
            let pruned = player.root_values(&state, &legal);
            let exact: Vec<(Move, f64)> = legal.iter().map(|&mv| (mv, plain_move(&state, me, mv, depth, 0))).collect();
            let best = exact.iter().map(|e| e.1).fold(f64::NEG_INFINITY, f64::max);
            let pruned_best = pruned.iter().map(|e| e.1).fold(f64::NEG_INFINITY, f64::max);
            assert!((best - pruned_best).abs() < 1e-6, "seed {seed}: {best} vs {pruned_best}");
            let argmax = |vals: &[(Move, f64)]| {
                let mut m: Vec<Move> = vals.iter().filter(|v| v.1 >= best - 1e-6).map(|v| v.0).collect();
                m.sort_by_key(|m| (m.from, m.to));
                m
            };
            assert_eq!(argmax(&pruned), argmax(&exact), "seed {seed}: the same best moves");
            assert_eq!(player.last.depth, depth);
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked}");
}

#[test]
fn within_a_window_every_root_value_is_exact_and_below_it_a_bound_outside_the_window() {
    // A veto keeps the moves within a margin of the best: their values must
    // be exact, and a move left out must truly lie further below.
    let (mut exact_inside, mut bounded_outside) = (0, 0);
    for (rules, depth, plies) in [(Ruleset::barrage(), 3, 30), (Ruleset::classic(), 2, 120)] {
        for seed in 0..6 {
            let Some(state) = midgame(rules, seed, plies + seed as usize) else { continue };
            let me = state.to_move();
            let legal = state.legal_moves();
            let exact: Vec<(Move, f64)> = legal.iter().map(|&mv| (mv, plain_move(&state, me, mv, depth, 0))).collect();
            let best = exact.iter().map(|e| e.1).fold(f64::NEG_INFINITY, f64::max);
            // A window that splits the moves: the median's distance below the best.
            let mut gaps: Vec<f64> = exact.iter().map(|e| best - e.1).collect();
            gaps.sort_by(f64::total_cmp);
            let window = gaps[gaps.len() / 2].max(1.0);
            let config =
                ExpectimaxConfig { depth, nodes: u64::MAX, time: None, clock_decides: false, ..Default::default() };
            let mut player = ExpectimaxPlayer::new(config, SetupPolicy::Random);
            let within = player.root_values_within(&state, &legal, window);
            for (mv, v) in within {
                let truth = exact.iter().find(|e| e.0 == mv).unwrap().1;
                if truth >= best - window {
                    assert!((v - truth).abs() < 1e-6, "seed {seed} {mv}: {v} is not the exact {truth}");
                    exact_inside += 1;
                } else {
                    assert!(v < best - window && v >= truth - 1e-6, "seed {seed} {mv}: {v} bounds {truth} badly");
                    bounded_outside += 1;
                }
            }
        }
    }
    assert!(exact_inside >= 40 && bounded_outside >= 20, "{exact_inside} inside, {bounded_outside} outside");
}

fn position(board: &str, side: &str) -> State {
    State::deserialize(&format!("{} {board} {side} 20 5", Ruleset::classic().canonical())).unwrap()
}

#[test]
fn expectimax_saves_a_threatened_piece_that_greedy_leaves_en_prise() {
    // Red's revealed General on e4, Blue's revealed Marshal on e5 next to it;
    // a Red Scout on a1 could run forward. Greedy runs with the Scout (it
    // gains rows); two plies of search see the Marshal take the General.
    let s = position(
        ".........f/........../........../........../..~~..~~../..~~m^+.~~../....G^...../........../........../O........F",
        "red",
    );
    let history = public_history(&s);
    let view = InfoView::new(&s, &history);
    let general: Square = "e4".parse().unwrap();
    let mut rng = AgentRng::seed_from_u64(1);
    let searched = player("expectimax:depth=2").choose_move(&view, &mut rng).unwrap();
    assert_eq!(searched.from, general, "expectimax moves the General: {searched}");
    assert_ne!(searched.to, "e5".parse::<Square>().unwrap(), "and not into the Marshal");
    let greedy = player("greedy").choose_move(&view, &mut rng).unwrap();
    assert_ne!(greedy.from, general, "greedy does not see the threat: {greedy}");
}

#[test]
fn the_node_budget_limits_the_iterations() {
    let state = midgame(Ruleset::classic(), 11, 100).unwrap();
    let legal = state.legal_moves();
    let mut tight = ExpectimaxPlayer::new(
        ExpectimaxConfig { depth: 4, nodes: 1, time: None, clock_decides: false, ..Default::default() },
        SetupPolicy::Random,
    );
    tight.root_values(&state, &legal);
    assert_eq!(tight.last.depth, 1, "depth 1 always completes; depth 2 needs more than one node");
    let mut roomy = ExpectimaxPlayer::new(
        ExpectimaxConfig { depth: 2, nodes: 1_000_000, time: None, clock_decides: false, ..Default::default() },
        SetupPolicy::Random,
    );
    roomy.root_values(&state, &legal);
    assert_eq!(roomy.last.depth, 2);
    assert!(roomy.last.nodes > legal.len() as u64);
}
