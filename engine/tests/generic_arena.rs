//! Stratego through the contract's generic arena: uniform random bots play
//! it by the state API alone, and the generic search refuses it, since it
//! would read the hidden pieces.

use stratego_contract::api::{Game, GameState};
use stratego_contract::arena::{play_game, play_match};
use stratego_contract::bots::{BotSpec, RandomBot};
use stratego_contract::mcts::{Mcts, MctsConfig, SearchError};
use stratego_engine::{Ruleset, State, StrategoGame};

#[test]
fn random_bots_play_stratego_in_the_generic_arena() {
    let game = StrategoGame::new(Ruleset::classic()).unwrap();
    let (mut a, mut b) = (RandomBot::new(), RandomBot::new());
    let score = play_match(&game, &mut a, &mut b, 4, 1).unwrap();
    assert_eq!((score.games, score.a_wins + score.draws + score.b_wins, score.truncated), (4, 4, 0));
    assert_eq!(score, play_match(&game, &mut a, &mut b, 4, 1).unwrap(), "the same seed replays the match");

    // The record replays through the engine: the same setups (the seed) and
    // the actions give the same end.
    let result = play_game(&game, [&mut a, &mut b], 7).unwrap();
    let mut state: State = game.new_initial_state(7).unwrap();
    for &action in &result.actions {
        state.apply_action(action).unwrap();
    }
    assert!(state.is_terminal());
    assert_eq!(GameState::returns(&state), result.returns.to_vec());
}

#[test]
fn a_ply_cap_ends_the_game_by_the_rules_not_by_truncation() {
    let game = StrategoGame::new(Ruleset { max_plies: 30, ..Ruleset::classic() }).unwrap();
    let (mut a, mut b) = (RandomBot::new(), RandomBot::new());
    let result = play_game(&game, [&mut a, &mut b], 3).unwrap();
    assert!(result.plies <= 30 && !result.truncated, "{result:?}");
}

#[test]
fn the_generic_search_refuses_stratego() {
    let game = StrategoGame::new(Ruleset::classic()).unwrap();
    let error = Mcts::new(&game, MctsConfig::default()).err().unwrap();
    assert_eq!(error, SearchError::ImperfectInformation("stratego"));
    let spec: BotSpec = "mcts:sims=10".parse().unwrap();
    let refused = spec.build(&game).err().unwrap().to_string();
    assert!(refused.contains("perfect-information games only") && refused.contains("`stratego`"), "{refused}");
    assert!(BotSpec::Random.build(&game).is_ok());
}
