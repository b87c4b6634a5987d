//! Setups searched against a field (issue 49, item 5): an evolutionary
//! search over one player's starting armies, scored by the games that
//! player wins with them against a field of opponents.
//!
//! **The search.** A population of armies is drawn from a start family.
//! Each generation every army plays the same games: game `j` seats the
//! field's player `(j / 2) % field` against ours, ours Red when `j` is even,
//! with the same opponent army and the same move generators for every
//! candidate (common random numbers: two armies of one generation differ
//! only by their squares, so a small difference in score is a difference of
//! armies, not of luck). Then the better half (by mean points over every
//! game it has played, fewer Flags lost breaking ties) survives, and each
//! survivor makes one child by one to three swaps of two squares that hold
//! different pieces; a child that walls a movable piece in, cannot move or
//! is already in the population is made again. Survivors keep their games,
//! so an army that stays long is judged on many. The last generation only
//! plays.
//!
//! **What it is not.** The scores it reports are in-sample: the best of
//! many noisy armies is better on its own games than it will be on new ones
//! (the winner's curse), and it is tuned to the field it met. A searched
//! family is judged like any other claim: a registered comparison and
//! games against players that were not in its field.
//!
//! **Reproducibility.** Every draw comes from generators seeded from the
//! search seed, the generation, the game and the role, so the result does
//! not depend on the thread count.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use stratego_engine::setup::SETUP_SQUARES;
use stratego_engine::{Color, EndReason, PieceSet, Ruleset, Setup};
use stratego_players::player::self_restriction;
use stratego_players::setup_policy::walled_in;
use stratego_players::{AgentRng, PlayerFactory, SetupPolicy};

use crate::arena::{derive_seed, play_game, ArenaError, PlayedGame};

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// A setting it cannot run with, named.
    #[error("{0}")]
    Settings(String),
    /// A game failed (a player's error, not a loss).
    #[error(transparent)]
    Game(#[from] ArenaError),
    /// The caller stopped it after a generation (it could not keep the
    /// generation's armies).
    #[error("{0}")]
    Stopped(String),
}

/// A search's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    pub rules: Ruleset,
    /// The family the first population is drawn from.
    pub start: SetupPolicy,
    /// Armies per generation: an even number, at least 2.
    pub population: usize,
    /// Generations played, at least 1 (the last one only plays).
    pub generations: u32,
    /// Games each army plays per generation: an even number (both colours).
    pub games: u32,
    pub seed: u64,
}

impl SearchConfig {
    /// Refuses settings the search cannot run with, naming the setting.
    pub fn check(&self) -> Result<(), SearchError> {
        let refuse = |why: String| Err(SearchError::Settings(why));
        if self.population < 2 || self.population % 2 == 1 {
            return refuse(format!("the population must be an even number of at least 2, got {}", self.population));
        }
        if self.generations == 0 {
            return refuse("the search needs at least 1 generation".into());
        }
        if self.games == 0 || self.games % 2 == 1 {
            return refuse(format!("games per army must be even (both colours) and positive, got {}", self.games));
        }
        Ok(())
    }
}

/// One army of the population and what it has scored so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub setup: Setup,
    /// Points over `games` (1 a win, 1/2 a draw).
    pub points: f64,
    pub games: u32,
    /// Games lost by the Flag.
    pub flags_lost: u32,
    /// The generation that made it (0: drawn from the start family).
    pub born: u32,
}

impl Candidate {
    fn new(setup: Setup, born: u32) -> Candidate {
        Candidate { setup, points: 0.0, games: 0, flags_lost: 0, born }
    }

    /// Mean points per game.
    pub fn score(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.points / f64::from(self.games)
        }
    }

    /// Better first: the higher score, then fewer Flags lost per game, then
    /// the older (judged on more games).
    fn rank(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
        let flags = |c: &Candidate| f64::from(c.flags_lost) / f64::from(c.games.max(1));
        b.score().total_cmp(&a.score()).then(flags(a).total_cmp(&flags(b))).then(a.born.cmp(&b.born))
    }
}

/// What one generation's games showed.
#[derive(Clone, Debug, PartialEq)]
pub struct Generation {
    pub index: u32,
    /// Mean points of every game this generation played.
    pub score: f64,
    /// The share of this generation's games lost by the Flag.
    pub flags_lost: f64,
    /// The population after it, best first (by every game each army has
    /// played): what the next generation keeps half of.
    pub population: Vec<Candidate>,
}

impl Generation {
    pub fn best(&self) -> &Candidate {
        &self.population[0]
    }
}

/// Generator streams of one game, or of one candidate's mutation.
#[derive(Copy, Clone)]
enum Stream {
    OpponentSetup,
    Ours,
    Theirs,
    Mutation,
}

fn rng(seed: u64, generation: u32, index: u64, stream: Stream) -> AgentRng {
    let round = derive_seed(derive_seed(seed, u64::from(generation)), index);
    AgentRng::seed_from_u64(derive_seed(round, stream as u64))
}

/// Runs the search: `player` plays the armies, `field` the opponents (each
/// with its own setups). `on_game` is called from the worker threads as each
/// game ends; `on_generation` after each generation, and an error it
/// returns stops the search. Returns the last population, best first.
pub fn search(
    player: &dyn PlayerFactory,
    field: &[&dyn PlayerFactory],
    config: &SearchConfig,
    on_game: &(dyn Fn() + Sync),
    on_generation: &mut dyn FnMut(&Generation) -> Result<(), String>,
) -> Result<Vec<Candidate>, SearchError> {
    config.check()?;
    if field.is_empty() {
        return Err(SearchError::Settings("the search needs at least one opponent".into()));
    }
    let set = config.rules.piece_set;
    let mut start = AgentRng::seed_from_u64(derive_seed(config.seed, u64::MAX));
    let mut population: Vec<Candidate> = Vec::with_capacity(config.population);
    let mut draws = 0;
    while population.len() < config.population {
        let setup = config.start.choose(set, &mut start);
        draws += 1;
        // A family may deal the same army twice (a file of few armies):
        // the population keeps distinct ones while it finds them easily,
        // and mutations soon make the copies differ.
        if !population.iter().any(|c| c.setup == setup) || draws > 8 * config.population {
            population.push(Candidate::new(setup, 0));
        }
    }
    let ours = self_restriction(player, &config.rules);
    for g in 0..config.generations {
        let games = config.games as usize;
        let played: Vec<(f64, bool)> = (0..population.len() * games)
            .into_par_iter()
            .map(|k| {
                let (candidate, j) = (&population[k / games], (k % games) as u64);
                let opponent = field[(j as usize / 2) % field.len()];
                let theirs = opponent.make().choose_setup(set, &mut rng(config.seed, g, j, Stream::OpponentSetup));
                let (mut us, mut them) = (player.make(), opponent.make());
                let (mut ours_rng, mut theirs_rng) =
                    (rng(config.seed, g, j, Stream::Ours), rng(config.seed, g, j, Stream::Theirs));
                let theirs_restriction = self_restriction(opponent, &config.rules);
                let we_are_red = j % 2 == 0;
                let mut seats = [
                    (&candidate.setup, us.as_mut(), &mut ours_rng, ours),
                    (&theirs, them.as_mut(), &mut theirs_rng, theirs_restriction),
                ];
                if !we_are_red {
                    seats.swap(0, 1);
                }
                let [(red_setup, red, red_rng, red_rules), (blue_setup, blue, blue_rng, blue_rules)] = seats;
                let index = u32::try_from(k).unwrap_or(u32::MAX);
                let PlayedGame { record, .. } = play_game(
                    config.rules,
                    [red_setup, blue_setup],
                    [red, blue],
                    [red_rng, blue_rng],
                    [red_rules, blue_rules],
                    index,
                )?;
                on_game();
                let outcome = record.result.expect("a finished game has a result");
                let us_colour = if we_are_red { Color::Red } else { Color::Blue };
                // Returns are +1, 0 or -1: points 1, 1/2 or 0.
                let points = (f64::from(outcome.returns()[us_colour.index()]) + 1.0) / 2.0;
                Ok((points, outcome.winner == Some(us_colour.opponent()) && outcome.reason == EndReason::FlagCaptured))
            })
            .collect::<Result<_, ArenaError>>()?;
        for (candidate, games) in population.iter_mut().zip(played.chunks(games)) {
            candidate.points += games.iter().map(|(p, _)| p).sum::<f64>();
            candidate.games += games.len() as u32;
            candidate.flags_lost += games.iter().filter(|(_, flag)| *flag).count() as u32;
        }
        population.sort_by(Candidate::rank);
        on_generation(&Generation {
            index: g,
            score: played.iter().map(|(p, _)| p).sum::<f64>() / played.len() as f64,
            flags_lost: played.iter().filter(|(_, flag)| *flag).count() as f64 / played.len() as f64,
            population: population.clone(),
        })
        .map_err(SearchError::Stopped)?;
        if g + 1 < config.generations {
            population.truncate(config.population / 2);
            for i in 0..config.population / 2 {
                let mut mutation = rng(config.seed, g, i as u64, Stream::Mutation);
                let child = loop {
                    let child = mutate(&population[i].setup, set, &mut mutation);
                    if !population.iter().any(|c| c.setup == child) {
                        break child;
                    }
                };
                population.push(Candidate::new(child, g + 1));
            }
        }
    }
    Ok(population)
}

/// One to three swaps of two squares holding different pieces, drawn again
/// until the army can move and walls none of its pieces in.
pub fn mutate(setup: &Setup, set: PieceSet, rng: &mut AgentRng) -> Setup {
    let cells: Vec<usize> = (0..SETUP_SQUARES).collect();
    loop {
        let mut slots = *setup.slots();
        for _ in 0..rng.random_range(1..=3) {
            let a = *cells.choose(rng).expect("a setup has squares");
            let b = *cells.choose(rng).expect("a setup has squares");
            slots.swap(a, b);
        }
        if slots == *setup.slots() {
            continue;
        }
        let child = Setup::from_slots(slots, set).expect("a swap keeps the army");
        if child.can_move() && walled_in(&child).is_none() {
            return child;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratego_baselines::factory_of;

    #[test]
    fn mutations_keep_the_army_and_never_wall_a_piece_in() {
        let mut rng = AgentRng::seed_from_u64(1);
        let parent = SetupPolicy::HandcraftedV2.choose(PieceSet::Classic, &mut rng);
        for _ in 0..500 {
            let child = mutate(&parent, PieceSet::Classic, &mut rng);
            assert_ne!(child, parent);
            child.validate(PieceSet::Classic).unwrap();
            assert!(child.can_move() && walled_in(&child).is_none(), "{child}");
            let moved = (0..SETUP_SQUARES).filter(|&i| child.get(i) != parent.get(i)).count();
            assert!((2..=6).contains(&moved), "{moved} squares changed");
        }
    }

    fn tiny_search(seed: u64) -> (Vec<Candidate>, Vec<Generation>) {
        let player = factory_of("random").unwrap();
        let opponent = factory_of("greedy").unwrap();
        let rules = Ruleset { max_plies: 200, ..Ruleset::default() };
        let config =
            SearchConfig { rules, start: SetupPolicy::HandcraftedV2, population: 4, generations: 3, games: 2, seed };
        let mut generations = Vec::new();
        let played = std::sync::atomic::AtomicU32::new(0);
        let on_game = || {
            played.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let last = search(player.as_ref(), &[opponent.as_ref()], &config, &on_game, &mut |g| {
            generations.push(g.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(played.into_inner(), 3 * 4 * 2);
        (last, generations)
    }

    #[test]
    fn the_search_keeps_the_better_half_and_is_reproducible() {
        let (last, generations) = tiny_search(7);
        assert_eq!(generations.len(), 3);
        assert_eq!(last.len(), 4);
        // Sorted best first; survivors carry the games of every generation
        // they lived through.
        assert!(last.windows(2).all(|w| Candidate::rank(&w[0], &w[1]).is_le()));
        for c in &last {
            assert_eq!(c.games, 2 * (3 - c.born), "{c:?}");
        }
        assert!(last.iter().any(|c| c.born > 0), "children were made");
        let distinct: std::collections::HashSet<String> = last.iter().map(|c| c.setup.to_string()).collect();
        assert_eq!(distinct.len(), 4);
        assert_eq!(generations[2].population, last);
        assert_eq!(tiny_search(7), (last, generations));
    }

    /// A player that resigns at its first move unless its Flag stands on an
    /// edge file, and otherwise plays its first legal move: a fitness the
    /// search can only find by selecting and mutating armies.
    struct EdgeFlagOrResign;

    impl stratego_players::Player for EdgeFlagOrResign {
        fn name(&self) -> String {
            "edge-flag-or-resign".into()
        }

        fn choose_move(
            &mut self,
            view: &stratego_players::InfoView<'_>,
            _: &mut AgentRng,
        ) -> Result<stratego_engine::Move, stratego_players::PlayerError> {
            let flag = view.own_pieces().find(|(_, p)| p.kind == stratego_engine::PieceType::Flag);
            match flag {
                Some((square, _)) if matches!(square.col(), 0 | 9) => Ok(view.legal_moves[0]),
                _ => Err(stratego_players::PlayerError::Forfeit("the Flag is not on an edge file".into())),
            }
        }
    }

    #[test]
    fn selection_finds_what_the_games_reward() {
        let player = stratego_players::FnFactory::new("edge-flag-or-resign", || Box::new(EdgeFlagOrResign));
        let opponent = factory_of("random").unwrap();
        let rules = Ruleset { max_plies: 60, ..Ruleset::default() };
        let config =
            SearchConfig { rules, start: SetupPolicy::HandcraftedV2, population: 8, generations: 8, games: 2, seed: 3 };
        let on_edge = |c: &Candidate| {
            let flag = (0..SETUP_SQUARES).find(|&i| c.setup.get(i) == Some(stratego_engine::PieceType::Flag));
            matches!(flag.map(|i| i % 10), Some(0 | 9))
        };
        let mut generations = Vec::new();
        let last = search(&player, &[opponent.as_ref()], &config, &|| {}, &mut |g| {
            generations.push(g.clone());
            Ok(())
        })
        .unwrap();
        let share = |armies: &[Candidate]| armies.iter().filter(|c| on_edge(c)).count() as f64 / armies.len() as f64;
        // The recipe puts the Flag on any back-row file: about a fifth on an edge.
        assert!(share(&generations[0].population) < 0.5, "{}", share(&generations[0].population));
        assert!(share(&last[..4]) == 1.0, "the survivors all keep their Flag on an edge file");
        assert!(last[0].score() > 0.0 && generations[7].score > generations[0].score);
    }

    #[test]
    fn bad_settings_are_refused_by_name() {
        let base = SearchConfig {
            rules: Ruleset::default(),
            start: SetupPolicy::Random,
            population: 4,
            generations: 1,
            games: 2,
            seed: 1,
        };
        assert!(base.check().is_ok());
        assert!(SearchConfig { population: 3, ..base.clone() }.check().unwrap_err().to_string().contains("population"));
        assert!(SearchConfig { generations: 0, ..base.clone() }
            .check()
            .unwrap_err()
            .to_string()
            .contains("generation"));
        assert!(SearchConfig { games: 3, ..base.clone() }.check().unwrap_err().to_string().contains("games"));
        let player = factory_of("random").unwrap();
        let none: [&dyn PlayerFactory; 0] = [];
        let err = search(player.as_ref(), &none, &base, &|| {}, &mut |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("at least one opponent"), "{err}");
    }
}
