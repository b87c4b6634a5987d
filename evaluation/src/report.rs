//! What a match produced, as numbers, text, a results JSON and a directory
//! of replayable game records.
//!
//! The output directory holds `results.json` (settings, summary, every
//! game's result) and `games/NNNNN.txt`, one engine `GameRecord` per game
//! (`stratego replay` reads them). A directory that exists is never written
//! into unless the caller asks to replace it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::arena::{GameResult, MatchResult, SetupMode};
use crate::stats::{EloInterval, Pentanomial, Sprt, SprtDecision};

/// The numbers of a match, from A's side.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct MatchSummary {
    pub a: String,
    pub b: String,
    pub games: u32,
    pub pairs: u64,
    pub a_wins: u32,
    pub draws: u32,
    pub a_losses: u32,
    /// A's mean points per game, with the 95 % interval from the pairs.
    pub score: f64,
    pub score_lower: f64,
    pub score_upper: f64,
    /// A's Elo advantage with its 95 % interval; `None` where infinite (a
    /// score of 0 or 1 at that end).
    pub elo: Option<f64>,
    pub elo_lower: Option<f64>,
    pub elo_upper: Option<f64>,
    /// Likelihood of superiority of A.
    pub los: f64,
    /// Pairs in which A scored 0, 1/2, 1, 3/2, 2 points.
    pub pentanomial: [u64; 5],
    pub draws_by_reason: BTreeMap<String, u32>,
    pub wins_by_reason: BTreeMap<String, u32>,
    /// Why each forfeited game was given up, by game index (a resignation,
    /// an outside program's timeout, crash or illegal reply).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub forfeits: BTreeMap<u32, String>,
    pub average_plies: f64,
    pub sprt: Option<SprtSummary>,
}

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct SprtSummary {
    #[serde(flatten)]
    pub test: Sprt,
    /// Always logistic Elo (see `stats`).
    pub elo_kind: &'static str,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    pub decision: SprtDecision,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl MatchSummary {
    pub fn of(result: &MatchResult) -> MatchSummary {
        let penta: Pentanomial = result.pentanomial();
        let mut s = MatchSummary {
            a: result.a.clone(),
            b: result.b.clone(),
            games: result.games.len() as u32,
            pairs: penta.pairs(),
            a_wins: 0,
            draws: 0,
            a_losses: 0,
            score: penta.score(),
            score_lower: penta.score_interval().0,
            score_upper: penta.score_interval().1,
            elo: finite(penta.elo().elo),
            elo_lower: finite(penta.elo().lower),
            elo_upper: finite(penta.elo().upper),
            los: penta.los(),
            pentanomial: penta.counts,
            draws_by_reason: BTreeMap::new(),
            wins_by_reason: BTreeMap::new(),
            forfeits: result.games.iter().filter_map(|g| Some((g.index, g.forfeit.clone()?))).collect(),
            average_plies: result.games.iter().map(|g| g.plies as f64).sum::<f64>() / result.games.len().max(1) as f64,
            sprt: None,
        };
        for g in &result.games {
            let reason = g.outcome.reason.name().to_string();
            let points = g.a_points();
            if points == 1.0 {
                s.a_wins += 1;
            } else if points == 0.0 {
                s.a_losses += 1;
            } else {
                s.draws += 1;
            }
            let tally = if g.outcome.winner.is_some() { &mut s.wins_by_reason } else { &mut s.draws_by_reason };
            *tally.entry(reason).or_default() += 1;
        }
        if let (Some(test), Some(decision)) = (result.config.sprt, result.sprt_decision) {
            let (lower_bound, upper_bound) = test.bounds();
            s.sprt = Some(SprtSummary {
                test,
                elo_kind: "logistic",
                llr: test.llr(&penta),
                lower_bound,
                upper_bound,
                decision,
            });
        }
        s
    }

    /// The human-readable report the CLI prints.
    pub fn to_text(&self) -> String {
        let tally = |m: &BTreeMap<String, u32>| {
            if m.is_empty() {
                "none".to_string()
            } else {
                m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
            }
        };
        let mut t = String::new();
        let _ = writeln!(t, "A = {}, B = {}: {} games in {} pairs", self.a, self.b, self.games, self.pairs);
        let _ = writeln!(t, "W/D/L (A): {} / {} / {}", self.a_wins, self.draws, self.a_losses);
        let _ = writeln!(t, "score (A): {:.4} [{:.4}, {:.4}] (95%)", self.score, self.score_lower, self.score_upper);
        let elo = EloInterval {
            elo: self.elo.unwrap_or(if self.score >= 1.0 { f64::INFINITY } else { f64::NEG_INFINITY }),
            lower: self.elo_lower.unwrap_or(f64::NEG_INFINITY),
            upper: self.elo_upper.unwrap_or(f64::INFINITY),
        };
        let _ = writeln!(t, "elo (A - B): {elo} (95%, from the pentanomial pair results)");
        let _ = writeln!(t, "LOS (A > B): {:.4}", self.los);
        let p = self.pentanomial;
        let _ = writeln!(t, "pairs by A's points 0/0.5/1/1.5/2: {} {} {} {} {}", p[0], p[1], p[2], p[3], p[4]);
        let _ = writeln!(t, "wins by reason: {}", tally(&self.wins_by_reason));
        let _ = writeln!(t, "draws by reason: {}", tally(&self.draws_by_reason));
        for (game, why) in &self.forfeits {
            let _ = writeln!(t, "game {game}: {why}");
        }
        let _ = writeln!(t, "average game length: {:.1} plies", self.average_plies);
        if let Some(s) = &self.sprt {
            let verdict = match s.decision {
                SprtDecision::AcceptH1 => "H1 accepted (A is stronger by elo1 or more)",
                SprtDecision::AcceptH0 => "H0 accepted (A is not stronger by elo1)",
                SprtDecision::Continue => "undecided at the game limit",
            };
            let _ = writeln!(
                t,
                "SPRT (logistic elo0 {}, elo1 {}, alpha {}, beta {}): LLR {:.3} in [{:.3}, {:.3}]: {verdict}",
                s.test.elo0, s.test.elo1, s.test.alpha, s.test.beta, s.llr, s.lower_bound, s.upper_bound
            );
        }
        t
    }
}

/// One game's line in the results JSON.
#[derive(Serialize)]
struct GameLine {
    index: u32,
    pair: u32,
    red: &'static str,
    result: String,
    a_points: f64,
    plies: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    forfeit: Option<String>,
    record: String,
}

#[derive(Serialize)]
struct ResultsFile<'a> {
    format: &'static str,
    a: &'a str,
    b: &'a str,
    games_requested: u32,
    seed: u64,
    setups: SetupMode,
    rules: String,
    rules_id: String,
    summary: &'a MatchSummary,
    games: Vec<GameLine>,
}

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{0} already exists; not writing into it (choose another --out or pass --overwrite)")]
    Exists(PathBuf),
    #[error("{0} is not the output of an earlier match or ladder (it holds `{1}`); --overwrite replaces only those")]
    NotOurs(PathBuf, String),
    #[error("cannot write {path}: {why}")]
    Io { path: PathBuf, why: String },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> OutputError + '_ {
    move |e| OutputError::Io { path: path.to_path_buf(), why: e.to_string() }
}

/// Creates `dir` (and its parents); an existing one is an error unless
/// `replace`, which removes it first, and only when it holds nothing but
/// what a match or a ladder writes (`--out ~ --overwrite` must not delete a
/// home directory).
pub fn create_output_dir(dir: &Path, replace: bool) -> Result<(), OutputError> {
    check_output_dir(dir, replace)?;
    if dir.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::create_dir_all(dir).map_err(io(dir))
}

/// Whether `create_output_dir(dir, replace)` may go ahead: checked before a
/// match too, so that a refusal costs no games.
pub fn check_output_dir(dir: &Path, replace: bool) -> Result<(), OutputError> {
    if dir.symlink_metadata().is_err() {
        return Ok(());
    }
    if !replace {
        return Err(OutputError::Exists(dir.to_path_buf()));
    }
    match foreign_entry(dir) {
        Some(stranger) => Err(OutputError::NotOurs(dir.to_path_buf(), stranger)),
        None => Ok(()),
    }
}

/// Writes an output directory whole or not at all: `dir` is created (as
/// `create_output_dir` does) and filled by `write`; if that fails (a full
/// disk), the directory is removed again, so that the rerun is not refused
/// by what the failure left.
pub fn write_output_dir<T, E: From<OutputError>>(
    dir: &Path,
    replace: bool,
    write: impl FnOnce(&Path) -> Result<T, E>,
) -> Result<T, E> {
    create_output_dir(dir, replace)?;
    let written = write(dir);
    if written.is_err() {
        let _ = std::fs::remove_dir_all(dir);
    }
    written
}

/// The first entry of `dir` (as a path relative to it) that a match or
/// ladder output does not hold, if any: only `results.json`, `games/` of
/// `NNNNN.txt` records, `ladder.json`, `ladder.png` and `pairing-*/` match
/// outputs. Not a directory at all counts as foreign.
fn foreign_entry(dir: &Path) -> Option<String> {
    fn check(dir: &Path, prefix: &str, top: bool) -> Result<(), String> {
        let meta = dir.symlink_metadata().map_err(|_| prefix.to_string())?;
        if !meta.is_dir() {
            return Err(if prefix.is_empty() { dir.display().to_string() } else { prefix.to_string() });
        }
        let entries = std::fs::read_dir(dir).map_err(|_| prefix.to_string())?;
        for entry in entries {
            let entry = entry.map_err(|_| prefix.to_string())?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{prefix}{name}");
            let kind = entry.file_type().map_err(|_| path.clone())?;
            let ours = match name.as_str() {
                "results.json" => kind.is_file(),
                "ladder.json" | "ladder.png" => top && kind.is_file(),
                "games" if kind.is_dir() => {
                    let records = std::fs::read_dir(entry.path()).map_err(|_| path.clone())?;
                    for record in records {
                        let record = record.map_err(|_| path.clone())?;
                        let file = record.file_name().to_string_lossy().into_owned();
                        let digits = file.strip_suffix(".txt").unwrap_or("");
                        let is_record = digits.len() >= 5
                            && digits.bytes().all(|b| b.is_ascii_digit())
                            && record.file_type().is_ok_and(|t| t.is_file());
                        if !is_record {
                            return Err(format!("{path}/{file}"));
                        }
                    }
                    true
                }
                _ if top && name.starts_with("pairing-") && kind.is_dir() => {
                    check(&entry.path(), &format!("{path}/"), false)?;
                    true
                }
                _ => false,
            };
            if !ours {
                return Err(path);
            }
        }
        Ok(())
    }
    check(dir, "", true).err()
}

/// A file-name-safe version of a spec (`expectimax:depth=3` -> `expectimax-depth3`).
pub fn slug(text: &str) -> String {
    let mut s: String = text
        .chars()
        .filter_map(|c| match c {
            c if c.is_ascii_alphanumeric() => Some(c),
            '=' => None,
            _ => Some('-'),
        })
        .collect();
    s.truncate(60);
    s
}

/// The default name of a match's output directory (under `runs/`), naming
/// the games played: `arena-<a>-vs-<b>-seed<seed>-<games>games`, with
/// `-sprt` when an SPRT stopped it. The command line and the cluster driver
/// (python/stratego_lab/cluster.py) name their outputs alike.
pub fn match_dir_name(a: &str, b: &str, seed: u64, games: u64, sprt: bool) -> String {
    format!("arena-{}-vs-{}-seed{seed}-{games}games{}", slug(a), slug(b), if sprt { "-sprt" } else { "" })
}

/// The path of game `index`'s record inside an output directory.
pub fn record_path(index: u32) -> String {
    format!("games/{index:05}.txt")
}

/// Writes `results.json` and every game's record into `dir`, which
/// `create_output_dir` made.
pub fn write_match(dir: &Path, result: &MatchResult, summary: &MatchSummary) -> Result<PathBuf, OutputError> {
    let games_dir = dir.join("games");
    std::fs::create_dir_all(&games_dir).map_err(io(&games_dir))?;
    for g in &result.games {
        write_record(dir, g)?;
    }
    write_results(dir, result, summary)
}

/// Writes a game's record into `dir/games/` (nothing for a game whose
/// record went to a sink already).
fn write_record(dir: &Path, g: &GameResult) -> Result<(), OutputError> {
    let Some(record) = &g.record else { return Ok(()) };
    let path = dir.join(record_path(g.index));
    std::fs::write(&path, record.to_text()).map_err(io(&path))
}

/// A match's output written while the match is played
/// (`play_match_streaming`): each record goes into `<dir>.partial/games/`
/// as its game ends, `results.json` last, and the directory takes its name
/// only when whole (`finish`). Dropped unfinished (the match failed), it
/// removes what it wrote, so nothing blocks a rerun.
pub struct StreamedOutput {
    staging: PathBuf,
    finished: bool,
}

impl StreamedOutput {
    /// Starts the output that `finish` will move to `dir`. A leftover
    /// `<dir>.partial` of a killed match is replaced; anything else there
    /// is refused.
    pub fn start(dir: &Path) -> Result<StreamedOutput, OutputError> {
        let mut staging = dir.as_os_str().to_owned();
        staging.push(".partial");
        let staging = PathBuf::from(staging);
        if staging.symlink_metadata().is_ok() {
            if let Some(stranger) = foreign_entry(&staging) {
                return Err(OutputError::NotOurs(staging, stranger));
            }
            std::fs::remove_dir_all(&staging).map_err(io(&staging))?;
        }
        let games = staging.join("games");
        std::fs::create_dir_all(&games).map_err(io(&games))?;
        Ok(StreamedOutput { staging, finished: false })
    }

    /// The record sink of `play_match_streaming`.
    pub fn record(&self, g: &GameResult) -> Result<(), String> {
        write_record(&self.staging, g).map_err(|e| e.to_string())
    }

    /// Writes `results.json` and gives the directory its name `dir`,
    /// replacing an earlier match's output there when `replace`. Returns
    /// the path of `results.json`.
    pub fn finish(
        mut self,
        dir: &Path,
        replace: bool,
        result: &MatchResult,
        summary: &MatchSummary,
    ) -> Result<PathBuf, OutputError> {
        write_results(&self.staging, result, summary)?;
        check_output_dir(dir, replace)?;
        if dir.symlink_metadata().is_ok() {
            std::fs::remove_dir_all(dir).map_err(io(dir))?;
        }
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::rename(&self.staging, dir).map_err(io(dir))?;
        self.finished = true;
        Ok(dir.join("results.json"))
    }
}

impl Drop for StreamedOutput {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Writes `results.json` into `dir`.
fn write_results(dir: &Path, result: &MatchResult, summary: &MatchSummary) -> Result<PathBuf, OutputError> {
    let file = ResultsFile {
        format: "stratego-arena-results v1",
        a: &result.a,
        b: &result.b,
        games_requested: result.config.games,
        seed: result.config.seed,
        setups: result.config.setups,
        rules: result.config.rules.canonical(),
        rules_id: result.config.rules.id().to_string(),
        summary,
        games: result
            .games
            .iter()
            .map(|g| GameLine {
                index: g.index,
                pair: g.pair(),
                red: if g.a_is_red { "A" } else { "B" },
                result: g.outcome.to_string(),
                a_points: g.a_points(),
                plies: g.plies,
                forfeit: g.forfeit.clone(),
                record: record_path(g.index),
            })
            .collect(),
    };
    let path = dir.join("results.json");
    let text = serde_json::to_string_pretty(&file).expect("results serialise");
    std::fs::write(&path, text + "\n").map_err(io(&path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = stratego_testkit::scratch_path(&format!("report-{name}"));
        dir
    }

    /// A write that fails half way (a full disk) leaves no directory that
    /// would refuse the rerun.
    #[test]
    fn a_failed_write_leaves_no_output_behind() {
        let dir = scratch("failed");
        let failed: Result<(), OutputError> = write_output_dir(&dir, false, |d| {
            std::fs::create_dir_all(d.join("games")).unwrap();
            std::fs::write(d.join("games/00000.txt"), "half").unwrap();
            Err(OutputError::Io { path: d.join("results.json"), why: "No space left on device".into() })
        });
        assert!(failed.is_err());
        assert!(!dir.exists(), "the half-written output was removed");
        write_output_dir(&dir, false, |d| std::fs::write(d.join("results.json"), "{}").map_err(io(d))).unwrap();
        assert!(dir.join("results.json").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_match_and_ladder_outputs_count_as_ours() {
        let dir = scratch("ours");
        std::fs::create_dir_all(dir.join("pairing-0-1/games")).unwrap();
        std::fs::write(dir.join("pairing-0-1/games/00001.txt"), "").unwrap();
        std::fs::write(dir.join("ladder.json"), "").unwrap();
        assert_eq!(foreign_entry(&dir), None);
        std::fs::write(dir.join("pairing-0-1/ladder.json"), "").unwrap();
        assert_eq!(foreign_entry(&dir), Some("pairing-0-1/ladder.json".into()));
        std::fs::remove_file(dir.join("pairing-0-1/ladder.json")).unwrap();
        std::fs::create_dir_all(dir.join("games/sub")).unwrap();
        assert_eq!(foreign_entry(&dir), Some("games/sub".into()));
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::write(&dir, "a file").unwrap();
        assert!(foreign_entry(&dir).is_some(), "a file is not an output directory");
        std::fs::remove_file(&dir).unwrap();
    }
}
