//! OpenSpiel's random simulation test, for any game on the contract: plays
//! seeded uniform random games through `Game` and `GameState` alone and
//! checks, at every state, what the contract promises. Beside it, the
//! checks of what every game shares through the contract: its outcomes
//! (`check_outcomes`), square names (`check_square_names`) and parameters
//! (`check_parameters`).

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::api::{ActionId, Game, GameState, Outcome, Reason, Utility};
use crate::canonical::CanonicalSettings;
use crate::notation::Grid;
use crate::Color;

/// What `random_sim_test` played.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    pub games: usize,
    /// Plies over all games.
    pub plies: usize,
    /// The longest game, in plies.
    pub longest: usize,
    /// Games won by player 0, won by player 1, drawn.
    pub wins: [usize; 2],
    pub draws: usize,
}

/// A broken promise: where (game and ply) and what, with the state's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {game}, ply {ply}: {why}\n  state: {state}")]
pub struct ConformanceError {
    pub game: usize,
    pub ply: usize,
    pub why: String,
    pub state: String,
}

/// Plays `num_games` uniform random games of `game` (seeded by `seed`) and
/// checks:
///
/// - the game: two players, as many as its type says; a nonempty
///   observation shape; distinct parameter keys; every state's
///   `num_distinct_actions` is the game's; `new_initial_state` gives equal
///   states for equal seeds;
/// - at every state: the player to act is `None` exactly at the end and
///   otherwise 0 or 1; the legal actions are sorted, distinct, below
///   `num_distinct_actions`, nonempty exactly before the end, with distinct
///   nonempty names, and the legal mask has the right length and marks
///   exactly them; `serialize` / `deserialize` (and `Game::deserialize_state`)
///   round-trip to an equal state with the same text; a clone is equal; both
///   players' observations have the shape's size and finite entries; returns
///   have one entry per player and are all zero before the end;
/// - refusals: some random non-legal ids and the first id past the action
///   space are refused, and a refused action leaves the state unchanged;
///   at the end every action is refused;
/// - at the end: the returns lie within the utility range and sum to zero
///   (for a zero-sum game), and the game lasted at most `max_game_length`
///   plies.
pub fn random_sim_test<G: Game>(game: &G, num_games: usize, seed: u64) -> Result<SimStats, ConformanceError> {
    let fail = |game: usize, ply: usize, state: &G::State, why: String| ConformanceError {
        game,
        ply,
        why,
        state: state.serialize(),
    };
    let game_type = game.game_type();
    let players = game.num_players();
    let actions = game.num_distinct_actions();
    let obs_size = game.observation_size();
    let max_length = game.max_game_length();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut stats = SimStats::default();
    let mut keys: Vec<String> = game.parameters().into_iter().map(|(k, _)| k).collect();
    let parameter_count = keys.len();
    keys.sort();
    keys.dedup();
    for g in 0..num_games {
        let state_seed = rng.random::<u64>();
        let new_state = |s| game.new_initial_state(s).map_err(|e| e.to_string());
        let mut state = match new_state(state_seed) {
            Ok(state) => state,
            Err(e) => {
                return Err(ConformanceError {
                    game: g,
                    ply: 0,
                    why: format!("new_initial_state({state_seed}) failed: {e}"),
                    state: String::new(),
                })
            }
        };
        let at_start = |why: String| Err(fail(g, 0, &state, why));
        if players != 2 || game_type.min_num_players > players || game_type.max_num_players < players {
            return at_start(format!(
                "{players} players (the type says {}-{})",
                game_type.min_num_players, game_type.max_num_players
            ));
        }
        if obs_size == 0 {
            return at_start("the observation shape is empty".into());
        }
        if keys.len() != parameter_count {
            return at_start("the parameters repeat a key".into());
        }
        if new_state(state_seed).ok().as_ref() != Some(&state) {
            return at_start(format!("new_initial_state({state_seed}) is not deterministic"));
        }
        let mut ply = 0;
        loop {
            check_state(game, &state).map_err(|why| fail(g, ply, &state, why))?;
            check_refusals(&state, actions, &mut rng).map_err(|why| fail(g, ply, &state, why))?;
            if state.is_terminal() {
                break;
            }
            if ply >= max_length {
                return Err(fail(
                    g,
                    ply,
                    &state,
                    format!("the game is not over after max_game_length = {max_length} plies"),
                ));
            }
            let legal = state.legal_actions();
            let action = legal[rng.random_range(0..legal.len())];
            if let Err(e) = state.apply_action(action) {
                return Err(fail(g, ply, &state, format!("legal action {action} was refused: {e}")));
            }
            ply += 1;
        }
        let returns = state.returns();
        if returns.iter().any(|&r| r < game.min_utility() || r > game.max_utility()) {
            return Err(fail(g, ply, &state, format!("returns {returns:?} outside the utility range")));
        }
        if game_type.utility == Utility::ZeroSum && returns.iter().sum::<f32>() != 0.0 {
            return Err(fail(g, ply, &state, format!("returns {returns:?} of a zero-sum game do not sum to 0")));
        }
        stats.games += 1;
        stats.plies += ply;
        stats.longest = stats.longest.max(ply);
        match returns.iter().position(|&r| r > 0.0) {
            Some(winner) => stats.wins[winner] += 1,
            None => stats.draws += 1,
        }
    }
    Ok(stats)
}

/// The checks of one state that need no randomness.
fn check_state<G: Game>(game: &G, state: &G::State) -> Result<(), String> {
    let actions = game.num_distinct_actions();
    if state.num_distinct_actions() != actions {
        return Err(format!("the state has {} distinct actions, the game {actions}", state.num_distinct_actions()));
    }
    let terminal = state.is_terminal();
    match state.current_player() {
        None if !terminal => return Err("no player to act before the end".into()),
        Some(p) if terminal => return Err(format!("player {p} to act after the end")),
        Some(p) if p >= game.num_players() => return Err(format!("player {p} to act in a 2-player game")),
        _ => {}
    }
    let legal = state.legal_actions();
    if legal.is_empty() != terminal {
        return Err(format!("{} legal actions, terminal: {terminal}", legal.len()));
    }
    if legal.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!("legal actions are not sorted and distinct: {legal:?}"));
    }
    if let Some(&a) = legal.iter().find(|&&a| a as usize >= actions) {
        return Err(format!("legal action {a} is not below {actions}"));
    }
    let mask = state.legal_action_mask();
    let from_mask: Vec<usize> = mask.iter().enumerate().filter(|(_, &m)| m).map(|(i, _)| i).collect();
    if mask.len() != actions || from_mask != legal.iter().map(|&a| a as usize).collect::<Vec<_>>() {
        return Err(format!(
            "the legal mask ({} entries, set: {from_mask:?}) disagrees with legal actions {legal:?}",
            mask.len()
        ));
    }
    let mut names: Vec<String> = legal.iter().map(|&a| state.action_to_string(a)).collect();
    if names.iter().any(String::is_empty) {
        return Err("a legal action has an empty name".into());
    }
    names.sort();
    names.dedup();
    if names.len() != legal.len() {
        return Err("two legal actions have the same name".into());
    }
    let text = state.serialize();
    match G::State::deserialize(&text) {
        Ok(back) if back == *state && back.serialize() == text => {}
        Ok(back) => return Err(format!("serialize/deserialize does not round-trip: read back `{}`", back.serialize())),
        Err(e) => return Err(format!("its own text does not deserialize: {e}")),
    }
    match game.deserialize_state(&text) {
        Ok(back) if back == *state => {}
        Ok(_) => return Err("Game::deserialize_state gives another state".into()),
        Err(e) => return Err(format!("Game::deserialize_state refuses its text: {e}")),
    }
    if state.clone() != *state {
        return Err("a clone is not equal".into());
    }
    for player in 0..game.num_players() {
        let obs = state.observation(player);
        if obs.len() != game.observation_size() {
            return Err(format!(
                "player {player}'s observation has {} entries, the shape {}",
                obs.len(),
                game.observation_size()
            ));
        }
        if let Some(i) = obs.iter().position(|x| !x.is_finite()) {
            return Err(format!("player {player}'s observation entry {i} is {}", obs[i]));
        }
    }
    let returns = state.returns();
    if returns.len() != game.num_players() {
        return Err(format!("{} returns for {} players", returns.len(), game.num_players()));
    }
    if !terminal && returns.iter().any(|&r| r != 0.0) {
        return Err(format!("returns {returns:?} before the end"));
    }
    Ok(())
}

/// Random non-legal ids, the first id past the action space, and at the
/// end any id, must be refused and leave the state unchanged.
fn check_refusals<S: GameState>(state: &S, actions: usize, rng: &mut impl Rng) -> Result<(), String> {
    let legal = state.legal_actions();
    let mut probes: Vec<usize> = (0..8).map(|_| rng.random_range(0..actions)).collect();
    probes.push(actions);
    for id in probes {
        let Ok(action) = ActionId::try_from(id) else { continue };
        if legal.binary_search(&action).is_ok() {
            continue;
        }
        let mut probe = state.clone();
        if probe.apply_action(action).is_ok() {
            return Err(format!("action {action} is not legal but was applied"));
        }
        if probe != *state {
            return Err(format!("refusing action {action} changed the state"));
        }
    }
    Ok(())
}

/// Checks a game's end reasons through the shared outcome type: the
/// reasons have distinct, nonempty names that `Reason::from_name` reads
/// back, and every outcome (each reason with each winner and with none) is
/// written `red-wins <reason>` / `blue-wins <reason>` / `draw <reason>`, by
/// `to_text` and `Display` alike, and read back by `Outcome::parse`.
pub fn check_outcomes<R: Reason>() -> Result<(), String> {
    let mut names: Vec<&str> = R::ALL.iter().map(|r| r.name()).collect();
    for &reason in R::ALL {
        if reason.name().is_empty() || R::from_name(reason.name()) != Some(reason) {
            return Err(format!("{reason:?}'s name `{}` does not read back", reason.name()));
        }
        for winner in [None, Some(Color::Red), Some(Color::Blue)] {
            let outcome = Outcome { winner, reason };
            let text = match winner {
                Some(c) => format!("{c}-wins {}", reason.name()),
                None => format!("draw {}", reason.name()),
            };
            if outcome.to_text() != text || outcome.to_string() != text || Outcome::parse(&text) != Some(outcome) {
                return Err(format!("{outcome:?} is not written and read as `{text}`"));
            }
        }
    }
    names.sort_unstable();
    names.dedup();
    if names.len() != R::ALL.len() {
        return Err("two reasons have the same name".into());
    }
    Ok(())
}

/// Checks a game's square names against its board's grid: `all` lists every
/// square once, in index order (rank 1 from file `a`, then rank 2, ...), and
/// the `i`-th is named as the grid names column `i % files`, row
/// `i / files` (`Grid::write_square`); every name reads back to its square;
/// and names off the grid or malformed (no rank, rank 0, a rank past the
/// last, a file past the last, an upper-case file, a leading zero, a
/// trailing separator, the rank first) are refused.
pub fn check_square_names<S>(grid: Grid, all: impl IntoIterator<Item = S>) -> Result<(), String>
where
    S: fmt::Display + FromStr + PartialEq + fmt::Debug,
{
    let files = usize::from(grid.files);
    let mut count = 0;
    for (i, point) in all.into_iter().enumerate() {
        let name = point.to_string();
        let (col, row) = ((i % files) as u8, (i / files) as u8);
        if grid.parse_square(&name) != Some((col, row)) {
            return Err(format!("square {i} ({point:?}) is named `{name}`, not as column {col}, row {row}"));
        }
        if name.parse::<S>().ok().as_ref() != Some(&point) {
            return Err(format!("`{name}` does not read back to {point:?}"));
        }
        count += 1;
    }
    if count != files * usize::from(grid.ranks) {
        return Err(format!("{count} squares on a grid of {} files and {} ranks", grid.files, grid.ranks));
    }
    let past_file = format!("{}1", (b'a' + grid.files) as char);
    let past_rank = format!("a{}", u16::from(grid.ranks) + 1);
    for bad in ["", "a", "c", "a0", "A1", "a01", "b2x", "c4x", "1a", &past_file, &past_rank] {
        if bad.parse::<S>().is_ok() {
            return Err(format!("`{bad}` is not a square name but reads as one"));
        }
    }
    Ok(())
}

/// Checks that a game's parameters are its settings' canonical text: the
/// family's prefix, then the `key=value` of every parameter in order, is
/// `settings.canonical_text()`.
pub fn check_parameters<G: Game, S: CanonicalSettings>(game: &G, settings: &S) -> Result<(), String> {
    let fields: Vec<String> = game.parameters().iter().map(|(k, v)| format!("{k}={v}")).collect();
    let text = format!("{}:{}", S::FAMILY.prefix(), fields.join(","));
    if text == settings.canonical_text() {
        Ok(())
    } else {
        Err(format!("the parameters make `{text}`, the settings are `{}`", settings.canonical_text()))
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::api::{ChanceMode, GameType, Information};

    /// Switches that each break one promise of the contract.
    #[derive(Clone, Copy, Default)]
    struct Flaws {
        general_sum: bool,
        accepts_illegal: bool,
        refusal_changes_state: bool,
        bad_mask: bool,
        lossy_text: bool,
        three_players: bool,
    }

    thread_local! {
        /// The flaws of the game being tested, for `deserialize`.
        static FLAWS: Cell<Flaws> = Cell::new(Flaws::default());
    }

    /// A toy game: players take turns adding 1-3 to a total; whoever reaches
    /// 20 wins. So a game lasts 7 to 20 plies.
    #[derive(Clone)]
    struct Race {
        total: u32,
        ply: u32,
        /// Changed by a flawed refusal.
        noise: u32,
        flaws: Flaws,
    }

    impl PartialEq for Race {
        fn eq(&self, other: &Race) -> bool {
            (self.total, self.ply, self.noise) == (other.total, other.ply, other.noise)
        }
    }

    const GOAL: u32 = 20;

    #[derive(Debug, thiserror::Error)]
    #[error("refused")]
    struct Refused;

    impl GameState for Race {
        type Error = Refused;
        fn num_distinct_actions(&self) -> usize {
            3
        }
        fn current_player(&self) -> Option<usize> {
            (!self.is_terminal()).then_some(self.ply as usize % 2)
        }
        fn legal_actions(&self) -> Vec<ActionId> {
            (0..3).filter(|&a| !self.is_terminal() && self.total + (a as u32) < GOAL).collect()
        }
        fn legal_action_mask(&self) -> Vec<bool> {
            let mut mask = vec![false; 3];
            for a in self.legal_actions() {
                mask[a as usize] = true;
            }
            mask[0] ^= self.flaws.bad_mask;
            mask
        }
        fn apply_action(&mut self, action: ActionId) -> Result<(), Refused> {
            if !self.legal_actions().contains(&action) {
                self.noise += u32::from(self.flaws.refusal_changes_state);
                if !self.flaws.accepts_illegal || self.is_terminal() {
                    return Err(Refused);
                }
            }
            self.total = (self.total + action as u32 + 1).min(GOAL);
            self.ply += 1;
            Ok(())
        }
        fn is_terminal(&self) -> bool {
            self.total >= GOAL
        }
        fn returns(&self) -> Vec<f32> {
            if !self.is_terminal() {
                return vec![0.0, 0.0];
            }
            let winner = (self.ply as usize + 1) % 2;
            let mut r = vec![if self.flaws.general_sum { 0.0 } else { -1.0 }; 2];
            r[winner] = 1.0;
            r
        }
        fn action_to_string(&self, action: ActionId) -> String {
            format!("add-{}", action + 1)
        }
        fn serialize(&self) -> String {
            format!("{} {} {}", self.total, self.ply + u32::from(self.flaws.lossy_text), self.noise)
        }
        fn deserialize(text: &str) -> Result<Race, Refused> {
            let n: Vec<u32> = text.split(' ').map(|t| t.parse().map_err(|_| Refused)).collect::<Result<_, _>>()?;
            Ok(Race { total: n[0], ply: n[1], noise: n[2], flaws: FLAWS.with(Cell::get) })
        }
        fn observation(&self, _player: usize) -> Vec<f32> {
            vec![self.total as f32, GOAL as f32]
        }
    }

    struct RaceGame {
        max_length: usize,
        flaws: Flaws,
    }

    impl Game for RaceGame {
        type State = Race;
        fn game_type(&self) -> GameType {
            let players = if self.flaws.three_players { 3 } else { 2 };
            GameType {
                min_num_players: players,
                max_num_players: players,
                ..GameType::two_player_zero_sum(
                    "race",
                    "Race to 20",
                    ChanceMode::Deterministic,
                    Information::PerfectInformation,
                )
            }
        }
        fn num_distinct_actions(&self) -> usize {
            3
        }
        fn max_game_length(&self) -> usize {
            self.max_length
        }
        fn parameters(&self) -> Vec<(String, String)> {
            vec![("goal".into(), GOAL.to_string())]
        }
        fn observation_shape(&self) -> Vec<usize> {
            vec![2]
        }
        fn new_initial_state(&self, _seed: u64) -> Result<Race, Refused> {
            FLAWS.with(|f| f.set(self.flaws));
            Ok(Race { total: 0, ply: 0, noise: 0, flaws: self.flaws })
        }
        fn deserialize_state(&self, text: &str) -> Result<Race, Refused> {
            Race::deserialize(text)
        }
    }

    #[test]
    fn a_sound_game_passes_and_each_flaw_is_caught() {
        let sound = RaceGame { max_length: 20, flaws: Flaws::default() };
        let stats = random_sim_test(&sound, 50, 1).unwrap();
        assert_eq!((stats.games, stats.wins[0] + stats.wins[1] + stats.draws), (50, 50));
        assert!(stats.longest <= 20 && stats.plies >= 50 * 7, "{stats:?}");
        assert_eq!(random_sim_test(&sound, 50, 1), Ok(stats), "seeded");
        let short = RaceGame { max_length: 6, flaws: Flaws::default() };
        assert!(random_sim_test(&short, 1, 1).unwrap_err().why.contains("max_game_length = 6"));
        for (flaws, needle) in [
            (Flaws { general_sum: true, ..Flaws::default() }, "sum to 0"),
            (Flaws { accepts_illegal: true, ..Flaws::default() }, "not legal but was applied"),
            (Flaws { refusal_changes_state: true, ..Flaws::default() }, "changed the state"),
            (Flaws { bad_mask: true, ..Flaws::default() }, "legal mask"),
            (Flaws { lossy_text: true, ..Flaws::default() }, "round-trip"),
            (Flaws { three_players: true, ..Flaws::default() }, "3 players"),
        ] {
            let err = random_sim_test(&RaceGame { max_length: 20, flaws }, 50, 1).unwrap_err();
            assert!(err.why.contains(needle), "{needle}: {err}");
        }
    }

    crate::end_reasons! {
        /// The toy's end reasons.
        enum RaceEnd {
            /// The total reached the goal.
            Goal => "goal",
            Cap => "ply-cap",
        }
    }

    #[test]
    fn outcomes_of_declared_reasons_pass() {
        assert_eq!(RaceEnd::ALL, [RaceEnd::Goal, RaceEnd::Cap]);
        assert_eq!(check_outcomes::<RaceEnd>(), Ok(()));
    }
}
