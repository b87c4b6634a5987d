//! CoToan through the contract's generic arena and search: the UCT search
//! beats uniform random play, and matches replay from their seed.

use stratego_contract::arena::{play_game, play_match};
use stratego_contract::bots::{BotSpec, RandomBot};
use stratego_contract::mcts::{Mcts, MctsConfig};
use stratego_cotoan::{CoToanGame, Settings};

/// A 40-ply task: random play rarely captures in 40 plies (of 200 random
/// games, 190 were drawn), so a win needs a plan, and a game is short.
fn short_task() -> CoToanGame {
    CoToanGame::new(Settings { horizon: 40, ..Settings::default() }).unwrap()
}

fn mcts(game: &CoToanGame, simulations: usize) -> Mcts<stratego_cotoan::CoToanState> {
    Mcts::new(game, MctsConfig { simulations, ..MctsConfig::default() }).unwrap()
}

#[test]
fn the_search_beats_random_play() {
    // Measured over seeds 1-12, 8 games each: 100 simulations won 72 of the
    // 96 games and lost none (50 simulations: 61 won, 3 lost); about 3 s
    // for the 8 games.
    let game = short_task();
    let (mut search, mut random) = (mcts(&game, 100), RandomBot::new());
    let score = play_match(&game, &mut search, &mut random, 8, 1).unwrap();
    assert_eq!(score.games, 8);
    assert!(score.b_wins == 0 && score.a_wins >= 5, "{score:?}");
}

#[test]
fn a_match_replays_from_its_seed() {
    let game = short_task();
    let play = |seed| {
        let (mut a, mut b) = (mcts(&game, 10), RandomBot::new());
        let one = play_game(&game, [&mut a, &mut b], seed).unwrap();
        (one, play_match(&game, &mut a, &mut b, 2, seed).unwrap())
    };
    assert_eq!(play(4), play(4));
    // The game has no chance: the bots' seeds make the games differ.
    assert_ne!(play(4).0.actions, play(5).0.actions);
}

#[test]
fn the_generic_specs_build_bots_for_cotoan() {
    let game = short_task();
    for spec in ["random", "mcts:sims=5,c=2,rollout=10"] {
        let spec: BotSpec = spec.parse().unwrap();
        let mut bot = spec.build(&game).unwrap();
        assert_eq!(bot.name(), spec.to_string());
        let mut other = RandomBot::new();
        let result = play_game(&game, [&mut *bot, &mut other], 0).unwrap();
        assert!(!result.truncated && result.plies <= 40);
    }
}
