//! A round robin: every pair of players plays an arena match, and the pair
//! results give Bradley-Terry ratings with bootstrap intervals (see `stats`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::arena::{derive_seed, play_match, ArenaError, GameResult, MatchConfig, MatchResult};
use crate::chart::{draw_ratings, ChartError};
use crate::report::{create_output_dir, write_match, MatchSummary, OutputError};
use crate::stats::{bradley_terry_with_intervals, PairingResults, Rating};
use stratego_players::PlayerFactory;

/// Bootstrap resamples for the rating intervals.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// The outcome of a round robin.
#[derive(Clone, Debug, Serialize)]
pub struct LadderResult {
    pub players: Vec<String>,
    /// Elo relative to `players[0]`, with 95 % bootstrap intervals.
    pub ratings: Vec<Rating>,
    pub pairings: Vec<PairingResults>,
    pub summaries: Vec<MatchSummary>,
    #[serde(skip)]
    pub matches: Vec<MatchResult>,
}

/// Plays every pairing `i < j` with `config` (its `games` per pairing),
/// pairing `k` seeded by `derive_seed(config.seed, k)`. `on_game` sees every
/// finished game with its pairing's index.
pub fn play_ladder(
    players: &[Arc<dyn PlayerFactory>],
    config: &MatchConfig,
    on_game: &(dyn Fn(usize, &GameResult) + Sync),
) -> Result<LadderResult, ArenaError> {
    let mut pairings = Vec::new();
    let mut summaries = Vec::new();
    let mut matches = Vec::new();
    let pairs: Vec<(usize, usize)> =
        (0..players.len()).flat_map(|i| (i + 1..players.len()).map(move |j| (i, j))).collect();
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let match_config = MatchConfig { seed: derive_seed(config.seed, k as u64), ..config.clone() };
        let result = play_match(players[i].as_ref(), players[j].as_ref(), &match_config, &|g| on_game(k, g))?;
        pairings.push(PairingResults { a: i, b: j, pairs: result.pentanomial_pairs() });
        summaries.push(MatchSummary::of(&result));
        matches.push(result);
    }
    let ratings = bradley_terry_with_intervals(players.len(), &pairings, BOOTSTRAP_RESAMPLES, config.seed);
    Ok(LadderResult { players: players.iter().map(|p| p.name()).collect(), ratings, pairings, summaries, matches })
}

impl LadderResult {
    /// The ratings table, strongest first, and the pairings' scores.
    pub fn to_text(&self) -> String {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by(|&a, &b| self.ratings[b].elo.total_cmp(&self.ratings[a].elo));
        let width = self.players.iter().map(|p| p.len()).max().unwrap_or(6).max(6);
        let mut t = String::new();
        let _ = writeln!(t, "Bradley-Terry ratings (Elo relative to {}; 95% bootstrap intervals)", self.players[0]);
        let _ = writeln!(t, "{:>4}  {:<width$}  {:>8}  {:>20}", "rank", "player", "elo", "95% interval");
        for (rank, &i) in order.iter().enumerate() {
            let r = self.ratings[i];
            let interval = format!("[{:+.1}, {:+.1}]", r.lower, r.upper);
            let _ = writeln!(t, "{:>4}  {:<width$}  {:>+8.1}  {:>20}", rank + 1, self.players[i], r.elo, interval);
        }
        let _ = writeln!(t, "pairings (A vs B: A's score, W/D/L of A):");
        for (p, s) in self.pairings.iter().zip(&self.summaries) {
            let _ = writeln!(
                t,
                "  {} vs {}: {:.3} ({} / {} / {}) in {} games",
                self.players[p.a], self.players[p.b], s.score, s.a_wins, s.draws, s.a_losses, s.games
            );
        }
        t
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LadderOutputError {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(transparent)]
    Chart(#[from] ChartError),
}

/// Writes a ladder into `dir` (made by `create_output_dir`): `ladder.json`
/// (players, ratings, pair results, match summaries), `ladder.png` and each
/// pairing's match output in `pairing-<i>-<j>/`. Returns the JSON and PNG paths.
pub fn write_ladder(dir: &Path, result: &LadderResult, title: &str) -> Result<(PathBuf, PathBuf), LadderOutputError> {
    for ((pairing, m), s) in result.pairings.iter().zip(&result.matches).zip(&result.summaries) {
        let sub = dir.join(format!("pairing-{}-{}", pairing.a, pairing.b));
        create_output_dir(&sub, false)?;
        write_match(&sub, m, s)?;
    }
    let json = dir.join("ladder.json");
    let text = serde_json::to_string_pretty(result).expect("ladder results serialise");
    std::fs::write(&json, text + "\n").map_err(|e| OutputError::Io { path: json.clone(), why: e.to_string() })?;
    let png = dir.join("ladder.png");
    draw_ratings(&png, title, &result.players, &result.ratings)?;
    Ok((json, png))
}
