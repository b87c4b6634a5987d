//! A generic arena: games and matches between bots, for any game on the
//! contract, written against `Game` and `GameState` alone.
//!
//! A match is played in pairs of games from the same initial state (the
//! same seed) with the seats swapped, so that the first player's advantage
//! and the luck of the starting position cancel within a pair. Every random
//! choice comes from the match seed through `seed::stream_seed`: the same
//! seed replays the same games, action for action.

use crate::api::{ActionId, Game, GameState};
use crate::seed::stream_seed;

/// A player of one game, OpenSpiel's `Bot`. Like `Bot::Step` there, `step`
/// is handed the whole state and the bot is trusted to decide from what its
/// player may see: for a game of imperfect information that is a promise
/// the arena cannot check, which is why the generic search (`mcts::Mcts`)
/// refuses such games rather than read the hidden part of the state.
pub trait Bot<S: GameState> {
    /// The bot's name in results: its spec, with every option.
    fn name(&self) -> String;
    /// Called before every game with the game's seed for this bot: a bot
    /// that draws at random reseeds its generator here, so that a game
    /// replays exactly whatever was played before it.
    fn new_game(&mut self, seed: u64);
    /// The action to play in `state`, where this bot's player is to act.
    fn step(&mut self, state: &S) -> ActionId;
}

/// Why a game or match could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArenaError {
    #[error("the game could not start (seed {seed}): {why}")]
    NewGame { seed: u64, why: String },
    #[error("bot `{bot}` (player {player}) chose action {action} at ply {ply}, which the game refused: {why}")]
    IllegalAction { bot: String, player: usize, ply: usize, action: ActionId, why: String },
    #[error("the state at ply {ply} is not over but has no player to act")]
    NoPlayer { ply: usize },
    #[error("a match is an even number of games (they are played in pairs), got {0}")]
    Games(usize),
}

/// One played game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// The final returns of players 0 and 1 (zeros for a truncated game).
    pub returns: [f32; 2],
    pub plies: usize,
    /// Every action played, in order: with the seed, the game's record.
    pub actions: Vec<ActionId>,
    /// Whether the game was stopped at `Game::max_game_length` plies before
    /// its end. A game that keeps its promise never is.
    pub truncated: bool,
}

/// Plays one game of `game` from `new_initial_state(seed)`, `bots[0]` as
/// player 0 and `bots[1]` as player 1. Each bot is first given its own seed,
/// `stream_seed(seed, "bot", player)`.
pub fn play_game<G: Game>(game: &G, bots: [&mut dyn Bot<G::State>; 2], seed: u64) -> Result<GameResult, ArenaError> {
    let bot_seeds = [stream_seed(seed, "bot", 0), stream_seed(seed, "bot", 1)];
    play_seeded(game, bots, seed, bot_seeds)
}

/// `play_game` with the bots' seeds given apart from the state's.
fn play_seeded<G: Game>(
    game: &G,
    mut bots: [&mut dyn Bot<G::State>; 2],
    seed: u64,
    bot_seeds: [u64; 2],
) -> Result<GameResult, ArenaError> {
    let mut state = game.new_initial_state(seed).map_err(|e| ArenaError::NewGame { seed, why: e.to_string() })?;
    for (bot, bot_seed) in bots.iter_mut().zip(bot_seeds) {
        bot.new_game(bot_seed);
    }
    let max_length = game.max_game_length();
    let mut actions = Vec::new();
    while !state.is_terminal() && actions.len() < max_length {
        let ply = actions.len();
        let player = state.current_player().ok_or(ArenaError::NoPlayer { ply })?;
        let bot = &mut bots[player];
        let action = bot.step(&state);
        state.apply_action(action).map_err(|e| ArenaError::IllegalAction {
            bot: bot.name(),
            player,
            ply,
            action,
            why: e.to_string(),
        })?;
        actions.push(action);
    }
    let returns = state.returns();
    Ok(GameResult { returns: [returns[0], returns[1]], plies: actions.len(), truncated: !state.is_terminal(), actions })
}

/// A match's score, from A's side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchScore {
    pub a_wins: usize,
    pub draws: usize,
    pub b_wins: usize,
    pub games: usize,
    /// Pairs by A's points in the pair: `pairs[k]` pairs in which A scored
    /// `k / 2` points (the pentanomial counts, from which the Elo interval
    /// accounts for the correlation of a pair's two games).
    pub pairs: [usize; 5],
    /// Plies over all games.
    pub plies: usize,
    /// Games stopped at the game's length cap.
    pub truncated: usize,
}

impl MatchScore {
    /// A's points: a win 1, a draw 1/2.
    pub fn a_points(&self) -> f64 {
        self.a_wins as f64 + 0.5 * self.draws as f64
    }

    /// Adds a game; `a_half_points` is 2 for A's win, 1 for a draw, 0 for a loss.
    fn add(&mut self, a_half_points: usize, result: &GameResult) {
        match a_half_points {
            2 => self.a_wins += 1,
            1 => self.draws += 1,
            _ => self.b_wins += 1,
        }
        self.games += 1;
        self.plies += result.plies;
        self.truncated += result.truncated as usize;
    }
}

/// Plays `games` games between `a` and `b`, in pairs: pair `k` starts both
/// its games from the seed `stream_seed(seed, "pair", k)`, A as player 0 in
/// the first and as player 1 in the second. Each bot draws from a stream of
/// its own in each game (`stream_seed(pair seed, "a" or "b", game of the
/// pair)`), so that two bots that draw alike do not play a pair's second
/// game as the mirror image of its first. A game is won by the player with
/// the higher return.
pub fn play_match<G: Game>(
    game: &G,
    a: &mut dyn Bot<G::State>,
    b: &mut dyn Bot<G::State>,
    games: usize,
    seed: u64,
) -> Result<MatchScore, ArenaError> {
    if games == 0 || games % 2 == 1 {
        return Err(ArenaError::Games(games));
    }
    let mut score = MatchScore::default();
    for pair in 0..games / 2 {
        let pair_seed = stream_seed(seed, "pair", pair as u64);
        let bot_seeds = |g: u64| (stream_seed(pair_seed, "a", g), stream_seed(pair_seed, "b", g));
        let (a0, b0) = bot_seeds(0);
        let first = play_seeded(game, [&mut *a, &mut *b], pair_seed, [a0, b0])?;
        let (a1, b1) = bot_seeds(1);
        let second = play_seeded(game, [&mut *b, &mut *a], pair_seed, [b1, a1])?;
        let (h1, h2) = (half_points(first.returns, 0), half_points(second.returns, 1));
        score.add(h1, &first);
        score.add(h2, &second);
        score.pairs[h1 + h2] += 1;
    }
    Ok(score)
}

/// The half points of `player` in a game that ended with `returns`.
fn half_points(returns: [f32; 2], player: usize) -> usize {
    let (own, other) = (returns[player], returns[1 - player]);
    if own > other {
        2
    } else if own == other {
        1
    } else {
        0
    }
}
