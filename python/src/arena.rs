//! An arena match as a work unit that can be split: `ArenaMatch` plays any
//! range of its pairs (a shard) and puts the games of all shards together
//! into the output `stratego arena` writes. A game depends only on the
//! match seed and its index (`stratego_evaluation::arena`), so a match split
//! over the workers of a Ray cluster (python/stratego_lab/cluster.py) writes
//! byte for byte what one process writes.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use stratego_engine::{GameRecord, Ruleset};
use stratego_evaluation::arena::{play_pairs, GameResult, MatchConfig, MatchResult, SelfRestriction, SetupMode};
use stratego_evaluation::report::{check_output_dir, match_dir_name, MatchSummary, StreamedOutput};
use stratego_players::PlayerFactory;

use crate::stratego::rules_arg;
use crate::value_error;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArenaMatch>()
}

/// One game of a shard as it travels between processes: its index, whether
/// A played Red, and its record's text (which holds the result).
type ShardGame = (u32, bool, String);

/// A match between two player specs, playable in shards.
#[pyclass(module = "stratego_lab._core", frozen)]
pub struct ArenaMatch {
    a: Arc<dyn PlayerFactory>,
    b: Arc<dyn PlayerFactory>,
    config: MatchConfig,
}

#[pymethods]
impl ArenaMatch {
    /// The match of `stratego arena --a A --b B --games N --seed S`:
    /// `rules` is a ruleset text, a named ruleset or a dict of ruleset
    /// keys; without it, the rules a trained player was trained under, else
    /// the classic rules (as the command line chooses). Bad specs, counts
    /// or rules, and a player that cannot play under the rules, are
    /// `ValueError`s.
    #[new]
    #[pyo3(signature = (a, b, games = 100, seed = 1, rules = None, setups = "swap", self_restriction = "both"))]
    // The arguments of `stratego arena`, each a keyword in Python.
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        a: &str,
        b: &str,
        games: u32,
        seed: u64,
        rules: Option<&Bound<'_, PyAny>>,
        setups: &str,
        self_restriction: &str,
    ) -> PyResult<ArenaMatch> {
        if games == 0 || games % 2 == 1 || games > 10_000_000 {
            return Err(value_error(format!(
                "games must be even (games are played in pairs) and within 2 to 10,000,000, got {games}"
            )));
        }
        let registry = stratego_roster::players();
        let (a, b) = py.detach(|| (registry.factory(a), registry.factory(b)));
        let (a, b) = (a.map_err(value_error)?, b.map_err(value_error)?);
        let rules = match rules {
            Some(rules) => rules_arg(rules)?,
            None => [&a, &b].iter().find_map(|p| p.trained_rules()).unwrap_or_else(Ruleset::classic),
        };
        let setups: SetupMode = setups.parse().map_err(value_error)?;
        let self_restriction: SelfRestriction = self_restriction.parse().map_err(value_error)?;
        for p in [&a, &b] {
            p.check_rules(&rules).map_err(|why| value_error(format!("player `{}` cannot play: {why}", p.name())))?;
        }
        let config = MatchConfig { rules, games, seed, setups, sprt: None, self_restriction };
        Ok(ArenaMatch { a, b, config })
    }

    /// The number of pairs (games / 2): shards split `range(pairs)`.
    #[getter]
    fn pairs(&self) -> u32 {
        self.config.games / 2
    }

    /// The directory `stratego arena` writes this match to without `--out`
    /// (relative to the working directory).
    #[getter]
    fn default_out(&self) -> PathBuf {
        let name = match_dir_name(&self.a.name(), &self.b.name(), self.config.seed, self.config.games.into(), false);
        PathBuf::from("runs").join(name)
    }

    /// Plays pairs `first..end` on `threads` threads (default: every core)
    /// and returns their games as `(index, a_is_red, record_text)`.
    #[pyo3(signature = (first, end, threads = None))]
    fn play(&self, py: Python<'_>, first: u32, end: u32, threads: Option<usize>) -> PyResult<Vec<ShardGame>> {
        let work = || play_pairs(self.a.as_ref(), self.b.as_ref(), &self.config, first..end, &|_| {});
        let games = py.detach(|| match threads {
            Some(n) if n > 0 => rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| e.to_string())
                .and_then(|pool| pool.install(work).map_err(|e| e.to_string())),
            Some(_) => Err("threads must be at least 1".to_string()),
            None => work().map_err(|e| e.to_string()),
        });
        let games = games.map_err(value_error)?;
        Ok(games
            .into_iter()
            .map(|g| (g.index, g.a_is_red, g.record.expect("a shard keeps records").to_text()))
            .collect())
    }

    /// Writes the match made of `games` (every shard's, in any order) to
    /// `out` (default: `default_out`) exactly as `stratego arena --out`
    /// does: `results.json` and `games/NNNNN.txt`, named only when whole.
    /// An existing directory is refused unless `overwrite` and it holds an
    /// earlier match's output. Returns the summary `stratego arena` prints.
    #[pyo3(signature = (games, out = None, overwrite = false))]
    fn write(&self, games: Vec<ShardGame>, out: Option<PathBuf>, overwrite: bool) -> PyResult<String> {
        let results = games
            .into_iter()
            .map(|(index, a_is_red, text)| {
                let record = GameRecord::parse(&text).map_err(|e| format!("game {index}: {e}"))?;
                self.config.rules.expect_same(&record.rules).map_err(|e| format!("game {index}: {e}"))?;
                let outcome = record.result.ok_or_else(|| format!("game {index}: the record has no result"))?;
                let plies = record.moves.len() as u32;
                // A shard's text record says that a side forfeited, not why.
                let forfeit = (outcome.reason == stratego_engine::EndReason::Forfeit)
                    .then(|| "forfeited (the reason stays with the shard that played it)".to_string());
                Ok(GameResult { index, a_is_red, outcome, plies, forfeit, record: Some(record) })
            })
            .collect::<Result<Vec<_>, String>>()
            .map_err(value_error)?;
        let result = MatchResult::from_shards(self.a.name(), self.b.name(), self.config.clone(), results)
            .map_err(value_error)?;
        let dir = out.unwrap_or_else(|| self.default_out());
        check_output_dir(&dir, overwrite).map_err(value_error)?;
        let summary = MatchSummary::of(&result);
        let streamed = StreamedOutput::start(&dir).map_err(value_error)?;
        for game in &result.games {
            streamed.record(game).map_err(value_error)?;
        }
        let path = streamed.finish(&dir, overwrite, &result, &summary).map_err(value_error)?;
        let rules = &self.config.rules;
        Ok(format!(
            "rules {rules} (id {}), seed {}, setups {}\n{}results: {}\nrecords: {} ({} games)\n",
            rules.id(),
            self.config.seed,
            self.config.setups,
            summary.to_text(),
            path.display(),
            dir.join("games").display(),
            result.games.len()
        ))
    }
}
