//! `public_replay` rebuilds, from a player's view alone, a state whose
//! observation planes (both layouts) and legal moves are the true state's.

use rand::{Rng, SeedableRng};
use stratego_engine::{observe, Layout, PieceSet, Ruleset, Setup, State};
use stratego_players::reconstruct::{public_replay, ReconstructError};
use stratego_players::view::{public_history, InfoView, PublicPly};
use stratego_players::AgentRng;

/// Rulesets that change what the replay must reproduce: both armies, both
/// switches of the chasing rule, a stricter and a looser two-square limit.
fn rulesets() -> Vec<Ruleset> {
    let classic = Ruleset::classic();
    let barrage = Ruleset::barrage();
    vec![
        classic,
        barrage,
        Ruleset { chase_rule: false, two_square_limit: 5, ..classic },
        Ruleset { two_square_limit: 1, ..barrage },
        Ruleset { chase_rule: false, ..barrage },
        Ruleset { two_square_limit: 2, ..classic },
    ]
}

/// What the comparisons covered, so that a test cannot pass vacuously.
#[derive(Default, Debug)]
struct Coverage {
    views: usize,
    barrage_views: usize,
    battles: usize,
    /// Views where the rebuilt board differs from the true one (the hidden
    /// types were drawn, not copied).
    drawn_differently: usize,
}

/// Plays a seeded random game and checks `public_replay` at several plies.
fn check_game(seed: u64, rules: Ruleset, coverage: &mut Coverage) {
    let mut rng = AgentRng::seed_from_u64(seed);
    let red = Setup::random(rules.piece_set, &mut rng);
    let blue = Setup::random(rules.piece_set, &mut rng);
    let mut state = State::from_setups(rules, &red, &blue).unwrap();
    let mut history: Vec<PublicPly> = Vec::new();
    let plies: u32 = rng.random_range(1..1500);
    let step = plies / 7 + 1;
    let mut agent_rng = AgentRng::seed_from_u64(seed ^ 0xabcd);
    loop {
        let last = state.ply() == plies || state.is_terminal();
        if !state.is_terminal() && (state.ply().is_multiple_of(step) || last) {
            let view = InfoView::new(&state, &history);
            let rebuilt = public_replay(&view, &mut agent_rng)
                .unwrap_or_else(|e| panic!("seed {seed}, {rules}, ply {}: {e}", state.ply()));
            let context = format!("seed {seed}, {rules}, ply {}", state.ply());
            assert_eq!(rebuilt.legal_moves(), state.legal_moves(), "{context}");
            assert_eq!(rebuilt.to_move(), state.to_move(), "{context}");
            assert_eq!(rebuilt.deaths().len(), state.deaths().len(), "{context}");
            for layout in Layout::ALL {
                assert!(observe(&rebuilt, layout) == observe(&state, layout), "{layout} planes differ: {context}");
            }
            // The same public game: the same root squares and moves.
            assert_eq!(public_history(&rebuilt), history, "{context}");
            let squares = |s: &State| s.root().board.pieces().map(|(sq, p)| (sq, p.color)).collect::<Vec<_>>();
            assert_eq!(squares(&rebuilt), squares(&state), "{context}");
            coverage.views += 1;
            coverage.barrage_views += usize::from(rules.piece_set == PieceSet::Barrage);
            coverage.battles += history.iter().filter(|p| p.battle.is_some()).count();
            coverage.drawn_differently += usize::from(rebuilt.board() != state.board());
        }
        if last {
            break;
        }
        let mv = state.sample_legal_move(&mut rng).expect("the game is not over");
        state.apply_move(mv).unwrap();
        history.push(PublicPly::of(state.history().last().unwrap()));
    }
}

#[test]
fn rebuilt_states_observe_and_move_like_the_true_ones() {
    let rules = rulesets();
    let mut coverage = Coverage::default();
    for seed in 0..400u64 {
        check_game(seed, rules[seed as usize % rules.len()], &mut coverage);
    }
    eprintln!("{coverage:?}");
    assert!(coverage.views > 1000, "{coverage:?}");
    assert!(coverage.barrage_views > 300, "{coverage:?}");
    assert!(coverage.battles > 5000, "{coverage:?}");
    assert!(coverage.drawn_differently > coverage.views / 2, "{coverage:?}");
}

/// A midgame of `rules` with its public history.
fn midgame(seed: u64, rules: Ruleset, plies: u32) -> (State, Vec<PublicPly>) {
    let mut rng = AgentRng::seed_from_u64(seed);
    let red = Setup::random(rules.piece_set, &mut rng);
    let blue = Setup::random(rules.piece_set, &mut rng);
    let mut state = State::from_setups(rules, &red, &blue).unwrap();
    while state.ply() < plies {
        let mv = state.sample_legal_move(&mut rng).expect("a long enough game");
        state.apply_move(mv).unwrap();
    }
    let history = public_history(&state);
    (state, history)
}

#[test]
fn views_that_no_game_fits_are_errors_not_panics() {
    let (state, history) = midgame(5, Ruleset::classic(), 120);
    let view = InfoView::new(&state, &history);
    let mut rng = AgentRng::seed_from_u64(1);
    assert!(public_replay(&view, &mut rng).is_ok());

    // A history that is one ply short: the game did not start from setups.
    let short = InfoView { history: &history[1..], ..view.clone() };
    let err = public_replay(&short, &mut rng).unwrap_err();
    assert_eq!(err, ReconstructError::NotFromSetups { ply: 120, plies: 119 });
    assert!(err.to_string().contains("only games started from two setups"), "{err}");

    // A battle whose public types were changed no longer fits the board.
    let battle = history.iter().position(|p| p.battle.is_some()).expect("a battle in 120 random plies");
    let mut tampered = history.clone();
    let b = tampered[battle].battle.as_mut().unwrap();
    b.attacker = if b.attacker == stratego_engine::PieceType::Spy {
        stratego_engine::PieceType::Scout
    } else {
        stratego_engine::PieceType::Spy
    };
    let err = public_replay(&InfoView { history: &tampered, ..view.clone() }, &mut rng).unwrap_err();
    assert!(matches!(err, ReconstructError::Inconsistent(_)), "{err}");

    // A plain move sent to another square: the walk back finds no piece.
    let plain = history.iter().rposition(|p| p.battle.is_none()).unwrap();
    let mut tampered = history.clone();
    let mv = tampered[plain].mv;
    tampered[plain].mv = stratego_engine::Move::new(mv.to, mv.from);
    let err = public_replay(&InfoView { history: &tampered, ..view }, &mut rng).unwrap_err();
    assert!(err.to_string().contains("does not lead to the board"), "{err}");
}

#[test]
fn the_same_seed_rebuilds_the_same_state() {
    let (state, history) = midgame(9, Ruleset::barrage(), 40);
    let view = InfoView::new(&state, &history);
    let rebuild = |seed| public_replay(&view, &mut AgentRng::seed_from_u64(seed)).unwrap();
    assert_eq!(rebuild(3), rebuild(3));
}

/// A player that keeps its own progress rules under laxer ones sees only
/// some of the legal moves (`ProgressTracker::restrict`): such a view is
/// rebuilt, its planes are the true ones; a view that lists a move the rules
/// do not allow fits no game and stays an error.
#[test]
fn views_restricted_to_some_legal_moves_are_rebuilt() {
    let rules = Ruleset { two_square_limit: 0, chase_rule: false, ..Ruleset::classic() };
    let (state, history) = midgame(9, rules, 80);
    let view = InfoView::new(&state, &history);
    assert!(view.legal_moves.len() > 2);
    let mut restricted = view.clone();
    restricted.legal_moves.truncate(view.legal_moves.len() / 2);
    let mut rng = AgentRng::seed_from_u64(2);
    let rebuilt = public_replay(&restricted, &mut rng).unwrap();
    assert_eq!(observe(&rebuilt, Layout::Compact), observe(&state, Layout::Compact));
    let mut foreign = view.clone();
    let illegal = stratego_engine::Move::new(view.legal_moves[0].to, view.legal_moves[0].to);
    foreign.legal_moves.push(illegal);
    assert!(public_replay(&foreign, &mut rng).is_err());
}

/// Worlds drawn from a belief (`public_replay_weighted`) are games the view
/// allows whatever the weights (zeros, NaN, a weight on a type the piece
/// cannot be), with the true planes; and a weight that knows the truth
/// draws it.
#[test]
fn worlds_drawn_from_weights_are_allowed_games_and_follow_the_weights() {
    use stratego_engine::{PieceType, Square};
    use stratego_players::reconstruct::public_replay_weighted;
    for (seed, rules, plies) in
        [(5, Ruleset::classic(), 120), (9, Ruleset::barrage(), 40), (7, Ruleset::classic(), 200)]
    {
        let (state, history) = midgame(seed, rules, plies);
        let view = InfoView::new(&state, &history);
        let truth = |sq: Square| state.board()[sq].map(|p| p.kind);
        let weights: [&dyn Fn(Square, PieceType) -> f64; 4] = [
            &|_, _| 0.0,
            &|_, _| f64::NAN,
            // All mass on the Flag and the Bombs: a moved piece cannot take them.
            &|_, t| if t.is_movable() { 0.0 } else { 1.0 },
            &|sq, t| if truth(sq) == Some(t) { 1.0 } else { 1e-9 },
        ];
        for (w, weight) in weights.iter().enumerate() {
            let mut rng = AgentRng::seed_from_u64(seed * 10 + w as u64);
            let rebuilt = public_replay_weighted(&view, *weight, &mut rng)
                .unwrap_or_else(|e| panic!("seed {seed}, weights {w}: {e}"));
            assert!(observe(&rebuilt, Layout::Full) == observe(&state, Layout::Full), "seed {seed}, weights {w}");
            assert_eq!(rebuilt.legal_moves(), state.legal_moves(), "seed {seed}, weights {w}");
            let hidden = view.opponent_pieces().filter(|(_, o)| o.known.is_none()).count();
            assert!(hidden > 5, "seed {seed}: a view with hidden pieces");
            let right = view
                .opponent_pieces()
                .filter(|(sq, o)| o.known.is_none() && rebuilt.board()[*sq].map(|p| p.kind) == truth(*sq))
                .count();
            if w == 3 {
                assert_eq!(right, hidden, "seed {seed}: the weights knew every hidden type");
            }
        }
    }
}
