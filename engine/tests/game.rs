//! Stratego on the game contract: the game object `StrategoGame`, the state
//! API's observation, the shared outcome type, the shared square notation,
//! and OpenSpiel's random simulation test (`conformance::random_sim_test`)
//! for classic and Barrage.

use stratego_contract::api::{ChanceMode, Dynamics, Game, GameState, Information, Reason, RewardModel, Utility};
use stratego_contract::conformance::{check_outcomes, check_parameters, check_square_names, random_sim_test};
use stratego_engine::square::GRID;
use stratego_engine::{observe, Color, EndReason, Layout, Outcome, Ruleset, Square, State, StrategoGame, NUM_ACTIONS};

#[test]
fn the_game_object_describes_stratego() {
    let game = StrategoGame::new(Ruleset::classic()).unwrap();
    let t = game.game_type();
    assert_eq!((t.short_name, t.long_name), ("stratego", "Stratego"));
    assert_eq!(t.dynamics, Dynamics::Sequential);
    assert_eq!(t.chance_mode, ChanceMode::SampledStochastic, "setups are drawn when a game starts");
    assert_eq!(t.information, Information::ImperfectInformation);
    assert_eq!((t.utility, t.reward_model), (Utility::ZeroSum, RewardModel::Terminal));
    assert_eq!((t.min_num_players, t.max_num_players, game.num_players()), (2, 2, 2));
    assert_eq!(game.num_distinct_actions(), NUM_ACTIONS);
    assert_eq!(game.max_game_length(), 4000);
    assert_eq!((game.min_utility(), game.max_utility()), (-1.0, 1.0));
    assert_eq!(game.observation_shape(), vec![Layout::Compact.channels(), 10, 10]);
    assert_eq!(game.observation_size(), Layout::Compact.size());
    check_parameters(&game, &Ruleset::classic()).unwrap();
    let capped = Ruleset { max_plies: 321, ..Ruleset::barrage() };
    assert_eq!(StrategoGame::new(capped).unwrap().max_game_length(), 321);
    assert!(StrategoGame::new(Ruleset { max_plies: 0, ..Ruleset::classic() }).is_err());
}

#[test]
fn ruleset_texts_and_ids_are_pinned() {
    // Records, checkpoints and registered results carry these: the shared
    // settings-text code must write them byte for byte as before.
    for (rules, text, id) in [
        (
            Ruleset::classic(),
            "stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200",
            "e7857812",
        ),
        (
            Ruleset::barrage(),
            "stratego-rules-v1:pieces=barrage,two-square=3,chase=on,max-plies=4000,max-battleless=200",
            "586a573a",
        ),
    ] {
        assert_eq!(rules.canonical(), text);
        assert_eq!(rules.id().to_string(), id);
        assert_eq!(text.parse::<Ruleset>().unwrap(), rules);
    }
    let a = Ruleset::classic();
    let b = Ruleset { chase_rule: false, ..a };
    assert_eq!(
        a.expect_same(&b).unwrap_err().to_string(),
        format!("ruleset mismatch: expected {} ({a}), found {} ({b})", a.id(), b.id())
    );
    assert_eq!(
        "nothex".parse::<stratego_engine::RulesetId>().unwrap_err().to_string(),
        "`nothex` is not a ruleset id (expected 8 hex digits)"
    );
    assert_eq!(
        "pieces=classic".parse::<Ruleset>().unwrap_err().to_string(),
        "malformed ruleset: `pieces=classic` has no `stratego-rules-vN:` prefix"
    );
}

#[test]
fn initial_states_are_seeded_and_states_of_other_rulesets_are_refused() {
    let game = StrategoGame::new(Ruleset::barrage()).unwrap();
    let a = game.new_initial_state(7).unwrap();
    assert_eq!(game.new_initial_state(7).unwrap(), a);
    assert_ne!(game.new_initial_state(8).unwrap(), a, "another seed, other setups");
    assert_eq!((a.ply(), a.to_move(), a.rules()), (0, Color::Red, &Ruleset::barrage()));
    assert_eq!(game.deserialize_state(&a.serialize()).unwrap(), a);
    let classic = StrategoGame::new(Ruleset::classic()).unwrap().new_initial_state(7).unwrap();
    let err = game.deserialize_state(&classic.serialize()).unwrap_err();
    assert!(err.to_string().contains("ruleset mismatch"), "{err}");
}

#[test]
fn the_observation_is_the_compact_planes_of_the_players_frame() {
    let game = StrategoGame::new(Ruleset::classic()).unwrap();
    let mut state = game.new_initial_state(3).unwrap();
    for _ in 0..6 {
        let viewer = state.to_move().index();
        let obs = GameState::observation(&state, viewer);
        assert_eq!(obs.len(), game.observation_size());
        assert_eq!(obs, observe(&state, Layout::Compact), "the side to move sees what `observe` writes");
        let other = GameState::observation(&state, 1 - viewer);
        assert_eq!(other.len(), obs.len());
        assert_ne!(other, obs, "the two sides see different things");
        let action = state.legal_actions()[0];
        state.apply_action(action).unwrap();
    }
}

#[test]
#[should_panic(expected = "players 0 and 1")]
fn the_observation_of_a_third_player_is_a_panic() {
    let state = StrategoGame::new(Ruleset::classic()).unwrap().new_initial_state(1).unwrap();
    GameState::observation(&state, 2);
}

#[test]
fn outcomes_print_and_parse_through_the_shared_type() {
    check_outcomes::<EndReason>().unwrap();
    assert_eq!(
        Outcome { winner: Some(Color::Red), reason: EndReason::FlagCaptured }.to_text(),
        "red-wins flag-captured"
    );
    assert_eq!(Outcome { winner: None, reason: EndReason::PlyCap }.to_text(), "draw ply-cap");
    assert_eq!(<EndReason as Reason>::ALL, &EndReason::ALL[..]);
    assert_eq!(EndReason::from_name("battleless-cap"), Some(EndReason::BattlelessCap));
    assert_eq!(EndReason::from_name("threshold"), None);
    for bad in ["", "red-wins", "green-wins flag-captured", "draw nothing"] {
        assert_eq!(Outcome::parse(bad), None, "{bad}");
    }
}

fn sim(rules: Ruleset, games: usize, seed: u64) {
    let game = StrategoGame::new(rules).unwrap();
    let stats = random_sim_test(&game, games, seed).unwrap_or_else(|e| panic!("{rules}: {e}"));
    assert_eq!(stats.games, games);
    assert!(stats.longest <= rules.max_plies as usize);
}

#[test]
fn random_sim_test_classic() {
    sim(Ruleset::classic(), 6, 1);
    // Short caps: games end by the caps too.
    sim(Ruleset { max_plies: 150, ..Ruleset::classic() }, 4, 2);
    sim(Ruleset { max_battleless_plies: 20, two_square_limit: 2, ..Ruleset::classic() }, 4, 3);
}

#[test]
fn random_sim_test_barrage() {
    sim(Ruleset::barrage(), 10, 4);
    sim(Ruleset { chase_rule: false, two_square_limit: 0, max_plies: 200, ..Ruleset::barrage() }, 4, 5);
}

#[test]
fn position_texts_enter_through_the_generic_trait() {
    // A position text through the generic trait: a lone Scout each side.
    let text = "stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200 \
                f........./........../........../........../..~~..~~../.e~~..~~../........../........../.O..F...../.......... red 0 0";
    let state = <State as GameState>::deserialize(text).unwrap();
    assert_eq!(GameState::current_player(&state), Some(0));
    assert_eq!(GameState::observation(&state, 0).len(), Layout::Compact.size());
}

/// Squares are named on the contract's grid, `a1`..`j10`, in cell order
/// (rank by rank from `a1`, lakes included), and other names are refused.
#[test]
fn square_names_are_the_contracts_notation() {
    check_square_names(GRID, Square::all()).unwrap();
    let cell = |name: &str| name.parse::<Square>().unwrap().cell();
    assert_eq!([cell("a1"), cell("c5"), cell("j10")], [0, 42, 99]);
}
