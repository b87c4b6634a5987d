//! Registered comparisons: a TOML file states, before anything is run, the
//! two players, the games, the seed and the decision rule; running it plays
//! the match and *appends* the outcome and the decision to the file's
//! results log. Earlier bytes of the file are never rewritten (the file is
//! opened for appending only), and a file whose stated comparison no longer
//! matches its logged results is refused, so a registration cannot be
//! quietly edited after the fact.
//!
//! ```toml
//! a = "greedy"
//! b = "random"
//! games = 200
//! seed = 1
//! # optional: setups = "swap" | "own", rules = "<canonical ruleset text>"
//!
//! [decision]
//! rule = "elo-interval"   # or "sprt" with elo0, elo1, alpha, beta
//! margin = 0.0
//!
//! [[results]]             # appended by `stratego register run`
//! ...
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use stratego_engine::Ruleset;

use crate::arena::{
    play_match_streaming, ArenaError, GameResult, MatchConfig, MatchResult, SelfRestriction, SetupMode,
};
use stratego_players::{PlayerFactory, Registry, SpecError};

use crate::report::{MatchSummary, OutputError, StreamedOutput};
use crate::stats::{Sprt, SprtDecision};

/// How a registration decides.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
pub enum DecisionRule {
    /// A is better if the lower end of the 95 % interval of Elo(A) - Elo(B)
    /// is above `margin`; B is better if the upper end is below `-margin`;
    /// otherwise no decision.
    EloInterval { margin: f64 },
    /// The match runs with this SPRT (logistic Elo, pentanomial pairs) and
    /// stops when it decides: H1 means A is better.
    Sprt { elo0: f64, elo1: f64, alpha: f64, beta: f64 },
}

impl DecisionRule {
    /// The rule in words, as logged with every result.
    pub fn describe(&self) -> String {
        match self {
            DecisionRule::EloInterval { margin } => format!(
                "A is better if the lower end of the 95% interval of Elo(A) - Elo(B) is above {margin}; \
                 B is better if its upper end is below {}; otherwise no decision",
                -margin
            ),
            DecisionRule::Sprt { elo0, elo1, alpha, beta } => format!(
                "SPRT on pentanomial pairs, logistic Elo, H0: elo = {elo0}, H1: elo = {elo1}, alpha {alpha}, beta {beta}; \
                 A is better if H1 is accepted"
            ),
        }
    }
}

/// A registration file: what is stated before running, and the results log.
#[derive(Clone, PartialEq, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    #[serde(default)]
    pub title: Option<String>,
    pub a: String,
    pub b: String,
    pub games: u32,
    pub seed: u64,
    #[serde(default)]
    pub setups: Option<String>,
    #[serde(default)]
    pub rules: Option<String>,
    pub decision: DecisionRule,
    #[serde(default)]
    pub results: Vec<LoggedResult>,
}

/// One entry of the results log.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoggedResult {
    pub run: u32,
    pub recorded_at: String,
    /// The comparison as registered when this result was produced.
    pub a: String,
    pub b: String,
    /// The players' resolved names (every option named, defaults
    /// included, `PlayerFactory::resolved_name`): what `a` and `b` meant
    /// when this result was produced. A later run whose specs resolve to
    /// other players is refused. Absent from results logged before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_resolved: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_resolved: Option<String>,
    pub games: u32,
    pub seed: u64,
    pub rules: String,
    /// Entries logged before this field existed were all `swap` matches.
    #[serde(default = "swap_mode")]
    pub setups: String,
    pub rule: String,
    pub games_played: u32,
    pub a_wins: u32,
    pub draws: u32,
    pub a_losses: u32,
    pub score: f64,
    /// Elo(A) - Elo(B) and its 95 % interval (`inf` where unbounded).
    pub elo: f64,
    pub elo_lower: f64,
    pub elo_upper: f64,
    pub los: f64,
    #[serde(default)]
    pub sprt_llr: Option<f64>,
    pub decision: String,
    pub output: String,
    pub agents_version: String,
    /// The machine's speed just before and just after the match
    /// ([`machine_speed`]): a player under a clock is as strong as the
    /// machine lets it search, so two runs of a timed registration compare
    /// only with these beside them. Absent from results logged before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playout_plies_per_second_before: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playout_plies_per_second_after: Option<f64>,
}

/// The machine's speed beside a result: random playout plies per second
/// on one core, the best of three rounds of about a tenth of a second
/// (`stratego_engine::speed::machine_speed`).
fn machine_speed() -> f64 {
    stratego_engine::speed::machine_speed(200_000, 3)
}

#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    #[error("cannot read {path}: {why}")]
    Read { path: PathBuf, why: String },
    #[error("{path} is not a valid registration: {why}")]
    Invalid { path: PathBuf, why: String },
    #[error("{path} was changed after result {run} was logged ({what}); register a new file instead")]
    Edited { path: PathBuf, run: u32, what: String },
    #[error(
        "{path}: `{spec}` names another player than result {run} played (a default changed?): then `{then}`, now \
         `{now}`; register a new file that names the options"
    )]
    PlayerChanged { path: PathBuf, run: u32, spec: String, then: String, now: String },
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Arena(#[from] ArenaError),
    #[error(
        "{0} already exists but {1} logs no result for it (left by an interrupted run?); move it away and run again"
    )]
    OutputExists(PathBuf, PathBuf),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("cannot append to {path}: {why}")]
    Append { path: PathBuf, why: String },
    /// Another `register run` of the same file is going, or its lock file
    /// is not one the lab could have written.
    #[error(transparent)]
    Busy(#[from] stratego_runlog::RunLogError),
}

/// A registration, checked and ready to run.
pub struct Prepared {
    pub path: PathBuf,
    pub registration: Registration,
    pub a: Arc<dyn PlayerFactory>,
    pub b: Arc<dyn PlayerFactory>,
    pub config: MatchConfig,
}

fn swap_mode() -> String {
    SetupMode::Swap.to_string()
}

/// Reads a registration file: its statement and results log, as written,
/// before any player is built (a pending registration names a network
/// that does not exist yet).
pub fn read(path: &Path) -> Result<Registration, RegistrationError> {
    let text = stratego_support::files::read_text(path)
        .map_err(|e| RegistrationError::Read { path: path.to_path_buf(), why: e.to_string() })?;
    toml::from_str(&text).map_err(|e| RegistrationError::Invalid {
        path: path.to_path_buf(),
        why: stratego_support::toml_line::one_line(&text, e),
    })
}

/// Reads and checks a registration file; `players` turns its specs into
/// factories (the command line's registry knows every player).
pub fn prepare(path: &Path, players: &Registry) -> Result<Prepared, RegistrationError> {
    let registration = read(path)?;
    let invalid = |why: String| RegistrationError::Invalid { path: path.to_path_buf(), why };
    let a = players.factory(&registration.a)?;
    let b = players.factory(&registration.b)?;
    let rules: Ruleset = match &registration.rules {
        Some(text) => text.parse().map_err(|e| invalid(format!("rules: {e}")))?,
        None => Ruleset::classic(),
    };
    let setups: SetupMode = match &registration.setups {
        Some(text) => text.parse().map_err(invalid)?,
        None => SetupMode::Swap,
    };
    let sprt = match registration.decision {
        DecisionRule::Sprt { elo0, elo1, alpha, beta } => Some(Sprt::new(elo0, elo1, alpha, beta).map_err(invalid)?),
        DecisionRule::EloInterval { margin } if !(0.0..=MAX_MARGIN).contains(&margin) => {
            // A negative margin would call A better at an interval wholly
            // below 0; past 1000 Elo no interval of a finite match clears it.
            return Err(invalid(format!("margin must be in [0, {MAX_MARGIN}] Elo, got {margin}")));
        }
        DecisionRule::EloInterval { .. } => None,
    };
    if !(MIN_GAMES..=MAX_GAMES).contains(&registration.games) || registration.games % 2 == 1 {
        return Err(invalid(format!(
            "games must be an even number in [{MIN_GAMES}, {MAX_GAMES}] (pairs with the seats swapped; fewer \
             decide nothing), got {}",
            registration.games
        )));
    }
    let config = MatchConfig {
        rules,
        games: registration.games,
        seed: registration.seed,
        setups,
        sprt,
        self_restriction: SelfRestriction::Both,
    };
    for logged in &registration.results {
        let stated = [
            ("a", registration.a.clone(), logged.a.clone()),
            ("b", registration.b.clone(), logged.b.clone()),
            ("games", registration.games.to_string(), logged.games.to_string()),
            ("seed", registration.seed.to_string(), logged.seed.to_string()),
            ("rules", rules.canonical(), logged.rules.clone()),
            ("setups", setups.to_string(), logged.setups.clone()),
            ("decision rule", registration.decision.describe(), logged.rule.clone()),
        ];
        if let Some((field, now, then)) = stated.into_iter().find(|(_, now, then)| now != then) {
            return Err(RegistrationError::Edited {
                path: path.to_path_buf(),
                run: logged.run,
                what: format!("{field} is now `{now}`, the result was for `{then}`"),
            });
        }
        // The same text may name another player than it did: a default
        // that changed since (a margin, a search's mechanisms).
        for (spec, factory, then) in
            [(&registration.a, &a, &logged.a_resolved), (&registration.b, &b, &logged.b_resolved)]
        {
            let now = factory.resolved_name();
            if let Some(then) = then.as_ref().filter(|then| **then != now) {
                return Err(RegistrationError::PlayerChanged {
                    path: path.to_path_buf(),
                    run: logged.run,
                    spec: spec.clone(),
                    then: then.clone(),
                    now,
                });
            }
        }
    }
    Ok(Prepared { path: path.to_path_buf(), registration, a, b, config })
}

/// The fewest games a registration may state: 10 pairs. Fewer cannot clear
/// even a margin of 0 unless nearly every game goes one way, and a decision
/// stated in advance should be able to come out either way.
pub const MIN_GAMES: u32 = 20;
/// The most: the arena's own limit (`stratego arena --games`).
pub const MAX_GAMES: u32 = 10_000_000;
/// The widest Elo margin a registration may state.
pub const MAX_MARGIN: f64 = 1000.0;

/// The decision of `rule` on a match.
pub fn decide(rule: &DecisionRule, summary: &MatchSummary, result: &MatchResult) -> String {
    match rule {
        DecisionRule::EloInterval { margin } => {
            let lower = summary.elo_lower.unwrap_or(f64::NEG_INFINITY);
            let upper = summary.elo_upper.unwrap_or(f64::INFINITY);
            if lower > *margin {
                format!("A is better: the 95% interval's lower end {lower:+.1} is above {margin}")
            } else if upper < -margin {
                format!("B is better: the 95% interval's upper end {upper:+.1} is below {}", -margin)
            } else if *margin == 0.0 {
                format!("no decision: the 95% interval [{lower:+.1}, {upper:+.1}] contains 0")
            } else {
                format!("no decision: the 95% interval [{lower:+.1}, {upper:+.1}] reaches into [{}, {margin}]", -margin)
            }
        }
        DecisionRule::Sprt { .. } => match result.sprt_decision {
            Some(SprtDecision::AcceptH1) => "A is better: the SPRT accepted H1".to_string(),
            Some(SprtDecision::AcceptH0) => "A is not better by elo1: the SPRT accepted H0".to_string(),
            _ => "no decision: the SPRT reached the game limit undecided".to_string(),
        },
    }
}

/// UTC date and time of a Unix timestamp, `YYYY-MM-DDTHH:MM:SSZ` (civil
/// calendar from days, after Howard Hinnant's algorithm).
pub fn utc_timestamp(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

/// What a run produced.
pub struct RunOutcome {
    pub summary: MatchSummary,
    pub logged: LoggedResult,
    pub output: PathBuf,
}

/// Plays a prepared registration, writes its match output under
/// `output_root/<file stem>/run-<K>/`, and appends the result to the file.
pub fn run(
    prepared: &Prepared,
    output_root: &Path,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<RunOutcome, RegistrationError> {
    let stem = output_stem(&prepared.path)?;
    // One writer per registration file, from choosing the run number until
    // the result is appended: the lock sits beside the file, so two runs of
    // it with different output roots contend for it too.
    let _lock = stratego_runlog::DirLock::acquire_file(&prepared.path, "`register run` of this registration")?;
    // Read again under the lock: a run that finished since `prepare` has
    // appended its result, and this one is the next.
    let reg = &reread(prepared)?;
    let run = reg.results.len() as u32 + 1;
    let parent = output_root.join(&stem);
    let output = parent.join(format!("run-{run}"));
    if output.exists() {
        return Err(RegistrationError::OutputExists(output, prepared.path.clone()));
    }
    // The records go to `run-K.partial/` as the games end (a long match
    // keeps none in memory); the directory takes its name when whole, and a
    // match that fails removes it, leaving nothing to block a rerun.
    let streamed = StreamedOutput::start(&output)?;
    let speed_before = machine_speed();
    let sink = |g: &GameResult| streamed.record(g);
    let (a, b) = (prepared.a.as_ref(), prepared.b.as_ref());
    let result = play_match_streaming(a, b, &prepared.config, on_game, &sink)?;
    let speed_after = machine_speed();
    let summary = MatchSummary::of(&result);
    streamed.finish(&output, false, &result, &summary).map_err(|e| match e {
        OutputError::Exists(dir) => RegistrationError::OutputExists(dir, prepared.path.clone()),
        other => other.into(),
    })?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let logged = LoggedResult {
        run,
        recorded_at: utc_timestamp(now),
        a: reg.a.clone(),
        b: reg.b.clone(),
        a_resolved: Some(a.resolved_name()),
        b_resolved: Some(b.resolved_name()),
        games: reg.games,
        seed: reg.seed,
        rules: prepared.config.rules.canonical(),
        setups: prepared.config.setups.to_string(),
        rule: reg.decision.describe(),
        games_played: summary.games,
        a_wins: summary.a_wins,
        draws: summary.draws,
        a_losses: summary.a_losses,
        score: summary.score,
        elo: summary.elo.unwrap_or(if summary.score >= 0.5 { f64::INFINITY } else { f64::NEG_INFINITY }),
        elo_lower: summary.elo_lower.unwrap_or(f64::NEG_INFINITY),
        elo_upper: summary.elo_upper.unwrap_or(f64::INFINITY),
        los: summary.los,
        sprt_llr: summary.sprt.as_ref().map(|s| s.llr),
        decision: decide(&reg.decision, &summary, &result),
        output: output.display().to_string(),
        agents_version: env!("CARGO_PKG_VERSION").to_string(),
        playout_plies_per_second_before: Some(speed_before.round()),
        playout_plies_per_second_after: Some(speed_after.round()),
    };
    append_result(&prepared.path, &logged)?;
    Ok(RunOutcome { summary, logged, output })
}

/// The directory name of a registration's outputs under the output root:
/// its file stem, which must be a plain name (a file named `...toml` has
/// the stem `..`, which would put the outputs beside the root, not in it).
fn output_stem(path: &Path) -> Result<String, RegistrationError> {
    let stem = path.file_stem().map_or("registration".into(), |s| s.to_string_lossy().into_owned());
    if stem.is_empty() || stem == "." || stem == ".." {
        return Err(RegistrationError::Invalid {
            path: path.to_path_buf(),
            why: format!("its file stem `{stem}` cannot name a directory under the output root; rename the file"),
        });
    }
    Ok(stem)
}

/// The registration as the file holds it now; refused if what it states
/// changed since `prepare` checked it.
fn reread(prepared: &Prepared) -> Result<Registration, RegistrationError> {
    let path = &prepared.path;
    let text = stratego_support::files::read_text(path)
        .map_err(|e| RegistrationError::Read { path: path.clone(), why: e.to_string() })?;
    let now: Registration = toml::from_str(&text).map_err(|e| RegistrationError::Invalid {
        path: path.clone(),
        why: stratego_support::toml_line::one_line(&text, e),
    })?;
    let stated = |r: &Registration| Registration { results: Vec::new(), ..r.clone() };
    if stated(&now) != stated(&prepared.registration) || now.results.len() < prepared.registration.results.len() {
        return Err(RegistrationError::Invalid {
            path: path.clone(),
            why: "the file changed while this run waited to start; run it again".into(),
        });
    }
    Ok(now)
}

/// Appends one `[[results]]` table to the file, atomically: the new text is
/// written and synced beside it, then renamed over it, so a full disk or a
/// kill leaves either the old file or the new one, never a torn table that
/// would stop the file from parsing.
fn append_result(path: &Path, logged: &LoggedResult) -> Result<(), RegistrationError> {
    #[derive(Serialize)]
    struct Log<'a> {
        results: [&'a LoggedResult; 1],
    }
    let fail = |e: std::io::Error| RegistrationError::Append { path: path.to_path_buf(), why: e.to_string() };
    let table = toml::to_string(&Log { results: [logged] }).expect("a result serialises");
    let mut text = stratego_support::files::read_text(path).map_err(fail)?.into_bytes();
    let separator = if text.last().is_none_or(|&b| b == b'\n') { "\n" } else { "\n\n" };
    text.extend_from_slice(format!("{separator}{table}").as_bytes());
    stratego_runlog::atomic_write(path, &text).map_err(|e| match e {
        stratego_runlog::RunLogError::Io { source, .. } => fail(source),
        other => RegistrationError::Append { path: path.to_path_buf(), why: other.to_string() },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn rules_describe_themselves() {
        assert!(DecisionRule::EloInterval { margin: 0.0 }.describe().contains("lower end of the 95% interval"));
        let sprt = DecisionRule::Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        assert!(sprt.describe().contains("logistic Elo"));
    }
}
