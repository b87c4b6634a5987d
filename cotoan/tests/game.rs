//! CoToan on the game contract: the game object `CoToanGame`, the state
//! API's observation, the shared outcome type, the shared square notation,
//! and OpenSpiel's random simulation test
//! (`stratego_contract::conformance::random_sim_test`) over several tasks.

use stratego_contract::api::{ChanceMode, Dynamics, Game, GameState, Information, Reason, RewardModel, Utility};
use stratego_contract::conformance::{check_outcomes, check_parameters, check_square_names, random_sim_test};
use stratego_contract::Color;
use stratego_cotoan::square::GRID;
use stratego_cotoan::{CoToanGame, CoToanState, EndReason, HorizonRule, OperatorMask, Outcome, Settings, Square};

#[test]
fn the_game_object_describes_cotoan() {
    let game = CoToanGame::new(Settings::default()).unwrap();
    let t = game.game_type();
    assert_eq!(t.short_name, "cotoan");
    assert_eq!(t.dynamics, Dynamics::Sequential);
    assert_eq!(t.chance_mode, ChanceMode::Deterministic);
    assert_eq!(t.information, Information::PerfectInformation);
    assert_eq!((t.utility, t.reward_model), (Utility::ZeroSum, RewardModel::Terminal));
    assert_eq!((t.min_num_players, t.max_num_players, game.num_players()), (2, 2, 2));
    assert_eq!(game.num_distinct_actions(), 9801);
    assert_eq!(game.max_game_length(), 300);
    assert_eq!(game.observation_shape(), vec![1993]);
    check_parameters(&game, &Settings::default()).unwrap();
    let short = Settings { horizon: 40, ..Settings::default() };
    assert_eq!(CoToanGame::new(short).unwrap().max_game_length(), 40);
    assert!(CoToanGame::new(Settings { horizon: 0, ..Settings::default() }).is_err());
}

#[test]
fn settings_texts_and_task_ids_are_pinned() {
    // Snapshots, the GDL checker and docs/COTOAN.md carry these: the shared
    // settings-text code must write them byte for byte as before.
    let default = Settings::default();
    let nine = Settings { threshold: 9, ..default };
    assert_eq!(
        default.canonical(),
        "cotoan-rules-v1:threshold=0,horizon=300,horizon-rule=score,operators=add+sub+mul+div+mod,start=red"
    );
    assert_eq!((default.task_id().to_string(), nine.task_id().to_string()), ("54c422e7".into(), "3fd0bb31".into()));
    assert_eq!(
        default.expect_same(&nine).unwrap_err().to_string(),
        format!("task mismatch: expected 54c422e7 ({default}), found 3fd0bb31 ({nine})")
    );
    assert_eq!(
        "nothex".parse::<stratego_cotoan::TaskId>().unwrap_err().to_string(),
        "`nothex` is not a task id (expected 8 hex digits)"
    );
    for (text, message) in [
        ("threshold=0", "malformed settings: `threshold=0` has no `cotoan-rules-vN:` prefix"),
        (
            "cotoan-rules-v2:x",
            "settings version `cotoan-rules-v2` is not supported (this engine implements `cotoan-rules-v1`)",
        ),
        ("cotoan-rules-v1:threshold=x", "settings key `threshold`: `x` is not a number 0-45"),
        ("cotoan-rules-v1:clock=on", "malformed settings: unknown settings key `clock`"),
        ("cotoan-rules-v1:threshold=0", "malformed settings: settings key `horizon` is missing"),
    ] {
        assert_eq!(text.parse::<Settings>().unwrap_err().to_string(), message, "{text}");
    }
}

#[test]
fn every_initial_state_is_the_start_and_other_tasks_are_refused() {
    let settings = Settings { threshold: 9, ..Settings::default() };
    let game = CoToanGame::new(settings).unwrap();
    let start = CoToanState::new(settings).unwrap();
    assert_eq!(game.new_initial_state(1).unwrap(), start);
    assert_eq!(game.new_initial_state(2).unwrap(), start, "no chance: the seed is not used");
    assert_eq!(game.deserialize_state(&start.serialize()).unwrap(), start);
    let other = CoToanState::new(Settings::default()).unwrap();
    let err = game.deserialize_state(&other.serialize()).unwrap_err();
    assert!(err.to_string().contains("task mismatch"), "{err}");
}

#[test]
fn both_players_observe_the_same_absolute_vector() {
    let game = CoToanGame::new(Settings::default()).unwrap();
    let mut state = game.new_initial_state(0).unwrap();
    for _ in 0..5 {
        let red = GameState::observation(&state, 0);
        assert_eq!(red.len(), game.observation_size());
        assert_eq!(red, state.observation(), "perfect information: the flat observation");
        assert_eq!(GameState::observation(&state, 1), red);
        let action = *state.legal_actions().last().unwrap();
        state.apply_action(action).unwrap();
    }
}

#[test]
fn outcomes_print_and_parse_through_the_shared_type() {
    check_outcomes::<EndReason>().unwrap();
    assert_eq!(Outcome { winner: Some(Color::Blue), reason: EndReason::Threshold }.to_string(), "blue-wins threshold");
    assert_eq!(Outcome { winner: None, reason: EndReason::Horizon }.to_string(), "draw horizon");
    assert_eq!(EndReason::from_name("zero-captured"), Some(EndReason::ZeroCaptured));
    assert_eq!(EndReason::from_name("flag-captured"), None, "Stratego's reasons are not CoToan's");
}

/// Thresholds on and off, both horizon rules, both starting players and
/// operator subsets (none, one, several, all).
fn tasks() -> Vec<Settings> {
    let ops = |bits| OperatorMask::from_bits(bits).unwrap();
    let base = Settings { horizon: 60, ..Settings::default() };
    vec![
        Settings::default(),
        base,
        Settings { threshold: 9, ..base },
        Settings { threshold: 45, horizon_rule: HorizonRule::Draw, ..base },
        Settings { horizon_rule: HorizonRule::Draw, starting_player: Color::Blue, ..base },
        Settings { threshold: 5, starting_player: Color::Blue, ..base },
        Settings { operators: OperatorMask::NONE, ..base },
        Settings { operators: ops(0b00001), threshold: 3, ..base },
        Settings { operators: ops(0b11000), horizon: 25, ..base },
        Settings { operators: ops(0b00110), horizon_rule: HorizonRule::Draw, threshold: 12, ..base },
        Settings { horizon: 1, ..base },
    ]
}

#[test]
fn random_sim_test_over_tasks() {
    for (i, settings) in tasks().into_iter().enumerate() {
        let game = CoToanGame::new(settings).unwrap();
        let stats = random_sim_test(&game, 10, 100 + i as u64).unwrap_or_else(|e| panic!("{settings}: {e}"));
        assert_eq!(stats.games, 10);
        assert!(stats.longest <= settings.horizon as usize, "{settings}: {stats:?}");
    }
}

/// Squares are named on the contract's grid, `a1`..`i11`, in index order
/// (rank by rank from `a1`), and other names are refused.
#[test]
fn square_names_are_the_contracts_notation() {
    check_square_names(GRID, Square::all()).unwrap();
    let index = |name: &str| name.parse::<Square>().unwrap().index();
    assert_eq!([index("a1"), index("e2"), index("c4"), index("i11")], [0, 13, 29, 98]);
}
