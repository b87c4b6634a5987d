//! Matches between two players: games in pairs, in parallel, reproducible.
//!
//! **Pairs.** Pair `p` plays two games with the same two setups and the seats
//! swapped. In the default `swap` mode the setups belong to the seats: the
//! Red setup is chosen by A's setup policy and the Blue one by B's, and in
//! the second game B takes Red with the Red setup and A Blue with the Blue
//! one, so both the first move and the setups' luck cancel within a pair (the
//! Stratego analogue of "same opening, both colours"). In `own` mode each
//! player keeps its own setup in both games and only the seats swap, which
//! measures setup policies together with play.
//!
//! **Reproducibility.** Every random draw of a game comes from generators
//! seeded from the match seed, the pair index and the game's role
//! (`derive_seed`), and every game gets fresh players from the factories, so
//! a game's result depends on nothing but the seed and its index, never on
//! the thread that played it or on the other games. Results are collected in
//! pair order. With an SPRT, pairs run in parallel batches and the test is
//! applied pair by pair in index order; the match ends at the first pair at
//! which it is decided and later pairs are discarded, so the stopping point
//! is also independent of the thread count.

use rand::SeedableRng;
use rayon::prelude::*;
use stratego_engine::{Color, GameRecord, Outcome, PieceSet, ProgressRules, ProgressTracker, Ruleset, Setup, State};

use stratego_players::player::self_restriction;
use stratego_players::view::PublicPly;
use stratego_players::{AgentRng, InfoView, Player, PlayerError, PlayerFactory};

use crate::stats::{Pentanomial, Sprt, SprtDecision};

/// Where the setups of a pair come from (see the module documentation).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SetupMode {
    /// Setups belong to the seats; the players swap seats and setups.
    #[default]
    Swap,
    /// Each player keeps its own setup; only the seats swap.
    Own,
}

impl std::fmt::Display for SetupMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SetupMode::Swap => "swap",
            SetupMode::Own => "own",
        })
    }
}

impl std::str::FromStr for SetupMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "swap" => Ok(SetupMode::Swap),
            "own" => Ok(SetupMode::Own),
            _ => Err(format!("unknown setup mode `{s}`; expected `swap` or `own`")),
        }
    }
}

/// A match's settings.
#[derive(Clone, PartialEq, Debug)]
pub struct MatchConfig {
    pub rules: Ruleset,
    /// Games to play (an even number: whole pairs), unless the SPRT stops first.
    pub games: u32,
    pub seed: u64,
    pub setups: SetupMode,
    pub sprt: Option<Sprt>,
    /// Which players hold themselves to their own progress rules where the
    /// match's are laxer (`stratego_players::player::self_restriction`).
    pub self_restriction: SelfRestriction,
}

/// Which players of a match keep to their own progress rules (a bot of an
/// outside field keeps none).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum SelfRestriction {
    /// Both: the default.
    #[default]
    Both,
    /// Only player A; B moves by the match's rules alone, as a bot of an
    /// outside field would (for measuring what the restriction does to A).
    A,
    /// Only player B.
    B,
    /// Neither: the match's rules alone.
    Neither,
}

impl SelfRestriction {
    pub const ALL: [SelfRestriction; 4] =
        [SelfRestriction::Both, SelfRestriction::A, SelfRestriction::B, SelfRestriction::Neither];

    pub const fn name(self) -> &'static str {
        match self {
            SelfRestriction::Both => "both",
            SelfRestriction::A => "a",
            SelfRestriction::B => "b",
            SelfRestriction::Neither => "none",
        }
    }

    /// Whether player A (`true`) or B (`false`) restricts itself.
    pub const fn applies_to(self, a: bool) -> bool {
        matches!((self, a), (SelfRestriction::Both, _) | (SelfRestriction::A, true) | (SelfRestriction::B, false))
    }
}

impl MatchConfig {
    /// A match with the arena's defaults: setups swapped within each pair,
    /// no sequential test, and every player keeping its own progress rules.
    pub fn new(rules: Ruleset, games: u32, seed: u64) -> MatchConfig {
        MatchConfig { rules, games, seed, setups: SetupMode::Swap, sprt: None, self_restriction: SelfRestriction::Both }
    }

    /// The progress rules player A (`is_a`) or B keeps to in this match:
    /// its own where they are stricter than the match's and this config
    /// restricts that player, else none.
    pub fn restriction_of(&self, factory: &dyn PlayerFactory, is_a: bool) -> Option<ProgressRules> {
        if self.self_restriction.applies_to(is_a) {
            self_restriction(factory, &self.rules)
        } else {
            None
        }
    }
}

impl std::str::FromStr for SelfRestriction {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        SelfRestriction::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown self-restriction `{s}`; expected both, a, b or none"))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("games are played in pairs, so the number of games must be even and positive (got {0})")]
    OddGames(u32),
    #[error("player `{player}` cannot play under the match's rules: {why}")]
    Rules { player: String, why: stratego_players::RulesRefused },
    #[error("player `{player}` chose an invalid setup: {why}")]
    BadSetup { player: String, why: String },
    #[error("player `{player}` chose the illegal move {mv} at ply {ply} of game {game}: {why}")]
    IllegalMove { player: String, mv: String, ply: u32, game: u32, why: String },
    #[error("player `{player}` could not choose a move at ply {ply} of game {game}: {source}")]
    NoMove { player: String, ply: u32, game: u32, source: stratego_players::PlayerError },
    /// The place a streamed match writes its records to refused one.
    #[error("cannot keep the record of game {game}: {why}")]
    Record { game: u32, why: String },
    /// Shards of a match that do not make it up: pairs outside the match,
    /// a game missing, or a game given twice.
    #[error("the shards do not make up the match: {0}")]
    Shards(String),
}

/// One finished game.
#[derive(Clone, PartialEq, Debug)]
pub struct GameResult {
    /// 0-based: games `2p` and `2p + 1` form pair `p`.
    pub index: u32,
    /// Whether player A played Red.
    pub a_is_red: bool,
    pub outcome: Outcome,
    pub plies: u32,
    /// Why the loser forfeited (`EndReason::Forfeit`): `blue (ucc:bot)
    /// forfeits: no reply within 10 s`.
    pub forfeit: Option<String>,
    /// The game's record; `None` after `play_match_streaming`, which hands
    /// it to its sink as the game ends instead of keeping it.
    pub record: Option<GameRecord>,
}

impl GameResult {
    pub fn pair(&self) -> u32 {
        self.index / 2
    }

    /// A's points: 1 win, 1/2 draw, 0 loss.
    pub fn a_points(&self) -> f64 {
        let a = if self.a_is_red { Color::Red } else { Color::Blue };
        match self.outcome.winner {
            Some(w) if w == a => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }
}

/// The games of a match, in index order, and its SPRT state.
#[derive(Clone, PartialEq, Debug)]
pub struct MatchResult {
    pub a: String,
    pub b: String,
    pub config: MatchConfig,
    pub games: Vec<GameResult>,
    /// The SPRT's decision after the last pair (`Continue` if it never decided).
    pub sprt_decision: Option<SprtDecision>,
}

impl MatchResult {
    /// A's half points (0..=4) in each pair, in pair order.
    pub fn pentanomial_pairs(&self) -> Vec<u8> {
        self.games.chunks(2).map(|pair| (2.0 * pair.iter().map(|g| g.a_points()).sum::<f64>()) as u8).collect()
    }

    pub fn pentanomial(&self) -> Pentanomial {
        Pentanomial::from_pairs(self.pentanomial_pairs())
    }
}

pub use stratego_contract::seed::derive_seed;

/// Generator streams of one pair.
#[derive(Copy, Clone)]
enum Stream {
    SetupA,
    SetupB,
    /// A player's moves in game 0 or 1 of the pair.
    MovesA(u32),
    MovesB(u32),
}

fn pair_rng(seed: u64, pair: u32, stream: Stream) -> AgentRng {
    let id = match stream {
        Stream::SetupA => 0,
        Stream::SetupB => 1,
        Stream::MovesA(g) => 2 + g as u64,
        Stream::MovesB(g) => 4 + g as u64,
    };
    AgentRng::seed_from_u64(derive_seed(derive_seed(seed, pair as u64), id))
}

fn check_setup(player: &dyn Player, setup: &Setup, set: PieceSet) -> Result<(), ArenaError> {
    setup.validate(set).map_err(|e| ArenaError::BadSetup { player: player.name(), why: e.to_string() })
}

/// A game played to its end: its record, and why a side forfeited it (a
/// resignation, an outside program's timeout, crash or illegal reply), if
/// one did.
#[derive(Clone, PartialEq, Debug)]
pub struct PlayedGame {
    pub record: GameRecord,
    pub forfeit: Option<String>,
}

/// Plays one game to the end. `players`, `rngs` and `restrictions` are
/// indexed by colour; a player with a restriction chooses among the legal
/// moves its own progress rules allow (`ProgressTracker::restrict`).
///
/// Each player first takes its seat (`Player::take_seat`): a player that
/// brings its own setup (an outside program) plays it instead of the one
/// dealt. A player that forfeits (`PlayerError::Forfeit`), in its seat or at
/// a move, loses the game by `EndReason::Forfeit` with its reason; any other
/// failure, and a move outside the legal ones from one of our own players,
/// is an error of the match.
pub fn play_game(
    rules: Ruleset,
    setups: [&Setup; 2],
    mut players: [&mut dyn Player; 2],
    rngs: [&mut AgentRng; 2],
    restrictions: [Option<ProgressRules>; 2],
    game: u32,
) -> Result<PlayedGame, ArenaError> {
    let names = [players[0].name(), players[1].name()];
    let no_move = |side: usize, ply: u32, source| ArenaError::NoMove { player: names[side].clone(), ply, game, source };
    let mut dealt = [setups[0].clone(), setups[1].clone()];
    let mut forfeit = None;
    for (side, player) in players.iter_mut().enumerate() {
        let me = if side == 0 { Color::Red } else { Color::Blue };
        match player.take_seat(me, &names[1 - side], rules.piece_set) {
            Ok(None) => {}
            Ok(Some(own)) => {
                own.validate(rules.piece_set)
                    .map_err(|e| ArenaError::BadSetup { player: names[side].clone(), why: e.to_string() })?;
                dealt[side] = own;
            }
            Err(PlayerError::Forfeit(why)) => {
                // The first to fail loses; the other seat is not taken.
                forfeit = Some((me, why));
                break;
            }
            Err(source) => return Err(no_move(side, 0, source)),
        }
    }
    let mut state = State::from_setups(rules, &dealt[0], &dealt[1])
        .map_err(|e| ArenaError::BadSetup { player: String::from("(a seat)"), why: e.to_string() })?;
    let mut history: Vec<PublicPly> = Vec::new();
    let mut trackers = restrictions.map(|r| r.map(ProgressTracker::new));
    while forfeit.is_none() && !state.is_terminal() {
        let side = state.to_move().index();
        let chosen = {
            let mut view = InfoView::new(&state, &history);
            if let Some(tracker) = &trackers[side] {
                tracker.restrict(&state, &mut view.legal_moves);
            }
            players[side].choose_move(&view, rngs[side])
        };
        let mv = match chosen {
            Ok(mv) => mv,
            Err(PlayerError::Forfeit(why)) => {
                forfeit = Some((state.to_move(), why));
                break;
            }
            Err(source) => return Err(no_move(side, state.ply() + 1, source)),
        };
        state.apply_move(mv).map_err(|e| ArenaError::IllegalMove {
            player: names[side].clone(),
            mv: mv.to_string(),
            ply: state.ply() + 1,
            game,
            why: match e {
                stratego_engine::Error::IllegalMove { reason, .. } => reason.to_string(),
                other => other.to_string(),
            },
        })?;
        history.push(PublicPly::of(state.history().last().expect("a move was just played")));
        for tracker in trackers.iter_mut().flatten() {
            tracker.update(&state);
        }
    }
    let forfeit = forfeit.map(|(loser, why)| {
        state.forfeit(loser).expect("a game a side forfeits is not over");
        format!("{loser} ({}) forfeits: {why}", names[loser.index()])
    });
    let [red, blue] = dealt;
    Ok(PlayedGame { record: GameRecord::new(rules, red, blue, &state), forfeit })
}

/// Plays pair `pair` of a match: its two games.
fn play_pair(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    pair: u32,
) -> Result<[GameResult; 2], ArenaError> {
    let set = config.rules.piece_set;
    let choose_setup = |factory: &dyn PlayerFactory, stream: Stream| {
        let mut player = factory.make();
        let setup = player.choose_setup(set, &mut pair_rng(config.seed, pair, stream));
        check_setup(player.as_ref(), &setup, set).map(|()| setup)
    };
    let setup_a = choose_setup(a, Stream::SetupA)?;
    let setup_b = choose_setup(b, Stream::SetupB)?;
    let (restrict_a, restrict_b) = (config.restriction_of(a, true), config.restriction_of(b, false));
    let play = |g: u32| -> Result<GameResult, ArenaError> {
        let a_is_red = g == 0;
        let (mut pa, mut pb) = (a.make(), b.make());
        let (mut ra, mut rb) =
            (pair_rng(config.seed, pair, Stream::MovesA(g)), pair_rng(config.seed, pair, Stream::MovesB(g)));
        // Setups by seat: in swap mode the Red setup is always A's choice and
        // the Blue one B's; in own mode each player brings its own.
        let (red_setup, blue_setup) = match (config.setups, a_is_red) {
            (SetupMode::Swap, _) | (SetupMode::Own, true) => (&setup_a, &setup_b),
            (SetupMode::Own, false) => (&setup_b, &setup_a),
        };
        let index = 2 * pair + g;
        let (players, rngs, seats): ([&mut dyn Player; 2], _, _) = if a_is_red {
            ([pa.as_mut(), pb.as_mut()], [&mut ra, &mut rb], [restrict_a, restrict_b])
        } else {
            ([pb.as_mut(), pa.as_mut()], [&mut rb, &mut ra], [restrict_b, restrict_a])
        };
        let PlayedGame { record, forfeit } =
            play_game(config.rules, [red_setup, blue_setup], players, rngs, seats, index)?;
        let outcome = record.result.expect("a finished game has a result");
        Ok(GameResult { index, a_is_red, outcome, plies: record.moves.len() as u32, forfeit, record: Some(record) })
    };
    Ok([play(0)?, play(1)?])
}

/// Plays a match. `on_game` is called once per finished game, from the
/// worker threads, in no particular order (for progress displays).
pub fn play_match(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<MatchResult, ArenaError> {
    play(a, b, config, on_game, None)
}

/// Where a streamed match puts each game's record as the game ends (a file
/// in its output directory); an `Err` stops the match.
pub type RecordSink<'a> = &'a (dyn Fn(&GameResult) -> Result<(), String> + Sync);

/// `play_match`, handing every game's record to `sink` (after `on_game`)
/// instead of keeping it: the results keep `record: None`, so a match of
/// millions of games holds a few bytes per game, not its moves.
pub fn play_match_streaming(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    on_game: &(dyn Fn(&GameResult) + Sync),
    sink: RecordSink<'_>,
) -> Result<MatchResult, ArenaError> {
    play(a, b, config, on_game, Some(sink))
}

/// Refuses a match that cannot be played: an odd game count, or a player
/// that cannot play under its rules.
fn check_match(a: &dyn PlayerFactory, b: &dyn PlayerFactory, config: &MatchConfig) -> Result<(), ArenaError> {
    if config.games == 0 || config.games % 2 == 1 {
        return Err(ArenaError::OddGames(config.games));
    }
    for factory in [a, b] {
        factory.check_rules(&config.rules).map_err(|why| ArenaError::Rules { player: factory.name(), why })?;
    }
    Ok(())
}

/// Plays pairs `pairs` of a match (without an SPRT) and returns their games
/// with their records, in index order: a shard. A game depends only on the
/// seed and its index (module documentation), so shards played anywhere
/// (other threads, processes or machines) and put together with
/// [`MatchResult::from_shards`] are exactly the match `play_match` plays.
pub fn play_pairs(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    pairs: std::ops::Range<u32>,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<Vec<GameResult>, ArenaError> {
    check_match(a, b, config)?;
    if config.sprt.is_some() {
        return Err(ArenaError::Shards("a match stopped by an SPRT cannot be split into shards".into()));
    }
    if pairs.start > pairs.end || pairs.end > config.games / 2 {
        return Err(ArenaError::Shards(format!(
            "pairs {}..{} are not within the match's {} pairs",
            pairs.start,
            pairs.end,
            config.games / 2
        )));
    }
    let played: Vec<[GameResult; 2]> = pairs
        .into_par_iter()
        .map(|p| {
            let games = play_pair(a, b, config, p)?;
            games.iter().for_each(on_game);
            Ok::<_, ArenaError>(games)
        })
        .collect::<Result<_, _>>()?;
    Ok(played.into_iter().flatten().collect())
}

impl MatchResult {
    /// The match of `config` between `a` and `b` (their names) made of the
    /// games of its shards, in any order: every game of the match exactly
    /// once, or an error naming the first game missing or repeated.
    pub fn from_shards(
        a: String,
        b: String,
        config: MatchConfig,
        shards: impl IntoIterator<Item = GameResult>,
    ) -> Result<MatchResult, ArenaError> {
        if config.sprt.is_some() {
            return Err(ArenaError::Shards("a match stopped by an SPRT cannot be split into shards".into()));
        }
        let mut games: Vec<GameResult> = shards.into_iter().collect();
        games.sort_by_key(|g| g.index);
        for (expected, game) in (0..config.games).zip(&games) {
            if game.index != expected {
                let why = if game.index < expected { "is given twice" } else { "is missing" };
                let index = if game.index < expected { game.index } else { expected };
                return Err(ArenaError::Shards(format!("game {index} {why}")));
            }
        }
        match games.len().cmp(&(config.games as usize)) {
            std::cmp::Ordering::Less => {
                return Err(ArenaError::Shards(format!("game {} is missing", games.len())));
            }
            std::cmp::Ordering::Greater => {
                let extra = &games[config.games as usize];
                return Err(ArenaError::Shards(format!(
                    "game {} is not in a match of {} games",
                    extra.index, config.games
                )));
            }
            std::cmp::Ordering::Equal => {}
        }
        Ok(MatchResult { a, b, config, games, sprt_decision: None })
    }
}

fn play(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    on_game: &(dyn Fn(&GameResult) + Sync),
    sink: Option<RecordSink<'_>>,
) -> Result<MatchResult, ArenaError> {
    check_match(a, b, config)?;
    let pairs = config.games / 2;
    // A game's record goes to the sink once the game is part of the
    // result: at once without an SPRT; with one, as its batch's pairs are
    // counted (pairs past the stopping point are played, then dropped).
    let hand_over = |game: &mut GameResult| -> Result<(), ArenaError> {
        if let Some(sink) = sink {
            sink(game).map_err(|why| ArenaError::Record { game: game.index, why })?;
            game.record = None;
        }
        Ok(())
    };
    let run_pair = |p: u32| {
        let mut games = play_pair(a, b, config, p)?;
        for game in &mut games {
            on_game(game);
            if config.sprt.is_none() {
                hand_over(game)?;
            }
        }
        Ok::<_, ArenaError>(games)
    };
    // Reserved for a first stretch only: a match of billions of games (or one
    // an SPRT stops early) must not claim their memory before its first game.
    let mut games: Vec<GameResult> = Vec::with_capacity((config.games as usize).min(4096));
    let mut decision = config.sprt.map(|_| SprtDecision::Continue);
    match config.sprt {
        None => {
            let played: Vec<[GameResult; 2]> = (0..pairs).into_par_iter().map(run_pair).collect::<Result<_, _>>()?;
            games.extend(played.into_iter().flatten());
        }
        Some(sprt) => {
            let batch = (4 * rayon::current_num_threads()).max(8) as u32;
            let mut results = Pentanomial::default();
            let mut next = 0;
            'batches: while next < pairs {
                let end = (next + batch).min(pairs);
                let played: Vec<[GameResult; 2]> =
                    (next..end).into_par_iter().map(run_pair).collect::<Result<_, _>>()?;
                for mut pair in played {
                    results.add((2.0 * (pair[0].a_points() + pair[1].a_points())) as u8);
                    pair.iter_mut().try_for_each(hand_over)?;
                    games.extend(pair);
                    let d = sprt.decide(&results);
                    decision = Some(d);
                    if d != SprtDecision::Continue {
                        break 'batches;
                    }
                }
                next = end;
            }
        }
    }
    Ok(MatchResult { a: a.name(), b: b.name(), config: config.clone(), games, sprt_decision: decision })
}
