//! The generic arena, search and bots on a toy game whose answers are
//! known: Nim with one pile, take 1 to 3 stones, who takes the last stone
//! wins. A player facing a pile that is not a multiple of 4 wins by taking
//! `pile % 4`; facing a multiple of 4 it loses against perfect play.

use std::fmt;

use stratego_contract::api::{ActionId, ChanceMode, Game, GameState, GameType, Information};
use stratego_contract::arena::{play_game, play_match, ArenaError, Bot};
use stratego_contract::bots::{BotSpec, RandomBot};
use stratego_contract::conformance::random_sim_test;
use stratego_contract::mcts::{Mcts, MctsConfig, SearchError};

/// Action `a` takes `a + 1` stones.
#[derive(Clone, Debug, PartialEq)]
struct Nim {
    pile: u32,
    player: usize,
    /// The winner, once the pile is empty.
    winner: Option<usize>,
}

#[derive(Debug)]
struct NimError(String);

impl fmt::Display for NimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NimError {}

impl Nim {
    fn new(pile: u32) -> Nim {
        Nim { pile, player: 0, winner: None }
    }
}

impl GameState for Nim {
    type Error = NimError;

    fn num_distinct_actions(&self) -> usize {
        3
    }
    fn current_player(&self) -> Option<usize> {
        self.winner.is_none().then_some(self.player)
    }
    fn legal_actions(&self) -> Vec<ActionId> {
        if self.winner.is_some() {
            return Vec::new();
        }
        (0..3).filter(|&a| (a as u32) < self.pile).collect()
    }
    fn apply_action(&mut self, action: ActionId) -> Result<(), NimError> {
        if !self.legal_actions().contains(&action) {
            return Err(NimError(format!("cannot take {} from {}", action as u32 + 1, self.pile)));
        }
        self.pile -= action as u32 + 1;
        if self.pile == 0 {
            self.winner = Some(self.player);
        }
        self.player = 1 - self.player;
        Ok(())
    }
    fn is_terminal(&self) -> bool {
        self.winner.is_some()
    }
    fn returns(&self) -> Vec<f32> {
        match self.winner {
            Some(0) => vec![1.0, -1.0],
            Some(_) => vec![-1.0, 1.0],
            None => vec![0.0, 0.0],
        }
    }
    fn action_to_string(&self, action: ActionId) -> String {
        format!("take {}", action + 1)
    }
    fn serialize(&self) -> String {
        format!("{} {} {}", self.pile, self.player, self.winner.map_or(-1, |w| w as i64))
    }
    fn deserialize(text: &str) -> Result<Nim, NimError> {
        let bad = || NimError(format!("not a nim state: {text}"));
        let fields: Vec<i64> = text.split(' ').map(|f| f.parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
        match fields[..] {
            [pile, player @ 0..=1, winner @ -1..=1] if pile >= 0 => {
                Ok(Nim { pile: pile as u32, player: player as usize, winner: (winner >= 0).then_some(winner as usize) })
            }
            _ => Err(bad()),
        }
    }
    fn observation(&self, player: usize) -> Vec<f32> {
        assert!(player < 2);
        vec![self.pile as f32, (self.player == player) as u8 as f32]
    }
}

/// Nim from a pile of `base + seed % 4` stones: the seed is a chance event
/// at the start, so that a pair's two games are seen to share it.
struct NimGame {
    base: u32,
    /// `max_game_length`, set below the pile to see truncation.
    max_length: usize,
    information: Information,
}

impl NimGame {
    fn new(base: u32) -> NimGame {
        NimGame { base, max_length: base as usize + 3, information: Information::PerfectInformation }
    }
}

impl Game for NimGame {
    type State = Nim;

    fn game_type(&self) -> GameType {
        GameType::two_player_zero_sum("nim", "Nim", ChanceMode::SampledStochastic, self.information)
    }
    fn num_distinct_actions(&self) -> usize {
        3
    }
    fn max_game_length(&self) -> usize {
        self.max_length
    }
    fn parameters(&self) -> Vec<(String, String)> {
        vec![("pile".into(), self.base.to_string())]
    }
    fn observation_shape(&self) -> Vec<usize> {
        vec![2]
    }
    fn new_initial_state(&self, seed: u64) -> Result<Nim, NimError> {
        Ok(Nim::new(self.base + (seed % 4) as u32))
    }
    fn deserialize_state(&self, text: &str) -> Result<Nim, NimError> {
        Nim::deserialize(text)
    }
}

fn mcts(simulations: usize) -> Mcts<Nim> {
    let config = MctsConfig { simulations, ..MctsConfig::default() };
    Mcts::new(&NimGame::new(10), config).unwrap()
}

#[test]
fn the_toy_game_keeps_the_contract() {
    random_sim_test(&NimGame::new(12), 50, 1).unwrap();
}

#[test]
fn mcts_finds_the_winning_move() {
    // Random rollouts value Nim's positions near evenly, so the tree must
    // reach the end: 2000 simulations found the move from every pile up to
    // 14 on 10 seeds out of 10 (15 and more need 5000 and more); the test
    // keeps a margin.
    for pile in (2..=13).filter(|p| p % 4 != 0) {
        for seed in 0..5 {
            let mut bot = mcts(2000);
            Bot::<Nim>::new_game(&mut bot, seed);
            let (action, visits) = bot.search(&Nim::new(pile));
            assert_eq!(action as u32 + 1, pile % 4, "pile {pile}, seed {seed}: visits {visits:?}");
        }
    }
}

#[test]
fn random_play_does_not_always_find_it() {
    let mut bot = RandomBot::new();
    let mut chosen = [0; 3];
    for seed in 0..60 {
        Bot::<Nim>::new_game(&mut bot, seed);
        chosen[bot.step(&Nim::new(10)) as usize] += 1;
    }
    assert!(chosen.iter().all(|&n| n > 0), "{chosen:?}");
}

#[test]
fn mcts_beats_random_and_matches_itself() {
    let game = NimGame::new(13);
    let (mut search, mut random) = (mcts(300), RandomBot::new());
    let score = play_match(&game, &mut search, &mut random, 20, 3).unwrap();
    assert_eq!((score.games, score.a_wins + score.draws + score.b_wins), (20, 20));
    assert!(score.a_wins >= 18, "{score:?}");
    assert_eq!(score.pairs.iter().sum::<usize>(), 10);
    // Perfect play against perfect play (piles 9 to 12): the starting pile
    // decides, and the pair's swapped game gives it to the other bot.
    let (mut strong, mut other) = (mcts(2000), mcts(2000));
    let even = play_match(&NimGame::new(9), &mut strong, &mut other, 8, 5).unwrap();
    assert_eq!(even.pairs, [0, 0, 4, 0, 0], "{even:?}");
}

#[test]
fn the_same_seed_replays_the_same_games() {
    let game = NimGame::new(30);
    let play = |seed| {
        let (mut a, mut b) = (mcts(50), RandomBot::new());
        let games: Vec<_> = (0..6).map(|g| play_game(&game, [&mut a, &mut b], seed + g).unwrap()).collect();
        let score = play_match(&game, &mut a, &mut b, 10, seed).unwrap();
        (games, score)
    };
    assert_eq!(play(7), play(7));
    assert_ne!(play(7).0, play(8).0);
}

/// Records each game's seed and the players it was asked to move for.
struct Recorder {
    log: Vec<(u64, Vec<usize>, u32)>,
}

impl Bot<Nim> for Recorder {
    fn name(&self) -> String {
        "recorder".into()
    }
    fn new_game(&mut self, seed: u64) {
        self.log.push((seed, Vec::new(), 0));
    }
    fn step(&mut self, state: &Nim) -> ActionId {
        let game = self.log.last_mut().unwrap();
        if game.1.is_empty() {
            game.2 = state.pile;
        }
        game.1.push(state.current_player().unwrap());
        0
    }
}

#[test]
fn a_pair_swaps_the_seats_on_the_same_start() {
    let game = NimGame::new(10);
    let (mut a, mut b) = (Recorder { log: Vec::new() }, Recorder { log: Vec::new() });
    let score = play_match(&game, &mut a, &mut b, 8, 11).unwrap();
    assert_eq!(score.games, 8);
    for (k, ((a_seed, a_players, a_pile), (b_seed, b_players, b_pile))) in a.log.iter().zip(&b.log).enumerate() {
        let a_seat = k % 2;
        assert!(a_players.iter().all(|&p| p == a_seat), "game {k}: {a_players:?}");
        assert!(b_players.iter().all(|&p| p == 1 - a_seat), "game {k}: {b_players:?}");
        assert_ne!(a_seed, b_seed, "the two bots draw from their own seeds");
        // Both took 1 stone a ply, so the first mover saw the whole pile.
        let start = if a_seat == 0 { a_pile } else { b_pile };
        let paired = if k % 2 == 0 { &b.log[k + 1] } else { &a.log[k - 1] };
        assert_eq!(*start, paired.2, "game {k} and its pair start from the same pile");
    }
    assert_ne!(a.log[0].0, a.log[1].0, "a bot draws from a new stream in the pair's second game");
    let piles: Vec<u32> = a.log.iter().step_by(2).map(|g| g.2).collect();
    assert!(piles.windows(2).any(|w| w[0] != w[1]), "pairs start from different seeds: {piles:?}");
}

/// Takes three stones whatever the pile.
struct Greedy;

impl Bot<Nim> for Greedy {
    fn name(&self) -> String {
        "take-three".into()
    }
    fn new_game(&mut self, _seed: u64) {}
    fn step(&mut self, _state: &Nim) -> ActionId {
        2
    }
}

#[test]
fn an_illegal_action_is_an_error_naming_the_bot() {
    let game = NimGame::new(5);
    // Pile 5: take-three leaves 2, random takes 1 or 2; take-three then faces 1 or 0.
    let (mut greedy, mut random) = (Greedy, RandomBot::new());
    let error = (0..20)
        .find_map(|seed| play_game(&game, [&mut greedy, &mut random], seed * 4).err())
        .expect("take-three meets a pile of 1 or 2");
    match &error {
        ArenaError::IllegalAction { bot, player, action, .. } => {
            assert_eq!((bot.as_str(), *player, *action), ("take-three", 0, 2));
        }
        other => panic!("{other:?}"),
    }
    let text = error.to_string();
    assert!(text.contains("`take-three`") && text.contains("action 2") && text.contains("cannot take 3"), "{text}");
    assert!(!text.contains('\n'));
}

#[test]
fn a_game_past_its_length_is_truncated_with_zero_returns() {
    let game = NimGame { max_length: 3, ..NimGame::new(20) };
    let (mut a, mut b) = (RandomBot::new(), RandomBot::new());
    let result = play_game(&game, [&mut a, &mut b], 0).unwrap();
    assert_eq!((result.plies, result.truncated, result.returns), (3, true, [0.0, 0.0]));
    assert_eq!(result.actions.len(), 3);
    let score = play_match(&game, &mut a, &mut b, 4, 0).unwrap();
    assert_eq!((score.draws, score.truncated, score.pairs), (4, 4, [0, 0, 2, 0, 0]));
    assert_eq!(score.a_points(), 2.0);
}

#[test]
fn a_match_is_pairs_of_games() {
    let game = NimGame::new(10);
    let (mut a, mut b) = (RandomBot::new(), RandomBot::new());
    for games in [0, 1, 7] {
        let error = play_match(&game, &mut a, &mut b, games, 0).unwrap_err();
        assert_eq!(error, ArenaError::Games(games));
    }
}

#[test]
fn the_search_refuses_a_game_of_imperfect_information() {
    let hidden = NimGame { information: Information::ImperfectInformation, ..NimGame::new(10) };
    let error = Mcts::new(&hidden, MctsConfig::default()).err().unwrap();
    assert_eq!(error, SearchError::ImperfectInformation("nim"));
    assert!(error.to_string().contains("perfect-information games only"));
    let spec: BotSpec = "mcts:sims=10".parse().unwrap();
    assert!(spec.build(&hidden).is_err());
    assert!(BotSpec::Random.build(&hidden).is_ok());
    assert_eq!(spec.build(&NimGame::new(10)).unwrap().name(), "mcts:sims=10,c=1.4,rollout=200");
}
