//! `stratego probe NET SET...`: what a checkpoint's value and belief heads
//! know about finished games (`stratego_learner::probe`, issue 50). A set is
//! a game file or a directory searched for them: lab records (`stratego-record
//! v1`, as `arena --records` and registrations write them) and the real UCC
//! referee's logs (both setups and every move, so every hidden type is
//! known), each recognised by its content.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use stratego_engine::Ruleset;
use stratego_learner::probe::{markdown, probe, ProbeError, ProbeGame, ProbeOptions, ProbeReport};
use stratego_support::files::read_text;
use stratego_ucc::protocol::ucc_rules;

use crate::{output, write_new_file, CliError};

#[derive(Args)]
pub struct ProbeArgs {
    /// The checkpoint (.safetensors).
    net: PathBuf,
    /// `[LABEL=]PATH`: a game file, or a directory searched (recursively) for game files; one block of rows each.
    #[arg(required = true)]
    sets: Vec<String>,
    /// Every N-th ply of each game (an even N is made odd, so that the samples alternate between the sides).
    #[arg(long, default_value_t = ProbeOptions::default().stride)]
    stride: usize,
    /// At most this many positions per set (the stride grows until the games fit).
    #[arg(long, default_value_t = ProbeOptions::default().max_positions)]
    max_positions: usize,
    /// Also write the reports as JSON to this new file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Replay the UCC referee's logs with this ply cap, so that the counter planes show how near the referee's
    /// turn limit a game is (its default of 1000 turns ends a game after 1998 plies, as `--rules referee` does in
    /// the lab). By default they are replayed as the UCC bot tracks its games, without a cap (the planes stay near
    /// 0): what the heads saw in play.
    #[arg(long)]
    referee_plies: Option<u32>,
    /// The weight of the belief head in its pool with the counting prior (`prior^(1-W) * head^W`), the same for
    /// every piece. By default each fold's weights, for moved and unmoved pieces, are fitted on the other fold. [0 to 1]
    #[arg(long)]
    pool_weight: Option<f64>,
    /// `cpu` (default), or a GPU backend compiled in.
    #[arg(long, default_value = "cpu")]
    device: String,
}

/// What a file holds, by its content.
fn game_of(text: &str, referee: Ruleset) -> Result<Option<ProbeGame>, String> {
    // One reader of both kinds of file, the viewer's; an unfinished game
    // has nothing to score against.
    let game = stratego_viewer::read_game(text, referee).map_err(|e| e.to_string())?;
    if game.own_side.is_some() {
        // Its opponent's army is a guess: nothing to score a belief against.
        return Err("a ucc-bot log holds one side's game only; probe the referee's log of it".into());
    }
    Ok(game.result.is_some().then_some(ProbeGame {
        rules: game.rules,
        red: game.red,
        blue: game.blue,
        moves: game.moves,
        winner: game.winner,
    }))
}

fn files_under(path: &Path, found: &mut Vec<PathBuf>) -> Result<(), CliError> {
    if !path.is_dir() {
        found.push(path.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    // A linked directory is not entered (a link to an ancestor would never
    // end); linked files are read.
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| !(e.file_type().is_ok_and(|t| t.is_symlink()) && e.path().is_dir()))
        .map(|e| e.path())
        .collect();
    paths.sort();
    for p in paths {
        files_under(&p, found)?;
    }
    Ok(())
}

/// The games of one set, each with its file. A file named on its own must be
/// a finished game; in a directory, other files (results, `.res` lines,
/// pictures) and unfinished games are passed over, and said so on stderr.
fn load_set(path: &Path, referee: Ruleset) -> Result<Vec<(PathBuf, ProbeGame)>, CliError> {
    if !path.exists() {
        return Err(format!("{} does not exist", path.display()).into());
    }
    let named = !path.is_dir();
    let mut files = Vec::new();
    files_under(path, &mut files)?;
    let mut games = Vec::new();
    let mut passed: Vec<String> = Vec::new();
    for file in files {
        let read = read_text(&file).map_err(|e| format!("cannot read it ({e})"));
        match read.and_then(|text| game_of(&text, referee)) {
            Ok(Some(game)) => games.push((file, game)),
            Ok(None) if named => return Err(format!("{}: the game has no result", file.display()).into()),
            Err(why) if named => return Err(format!("{}: {why}", file.display()).into()),
            Ok(None) => passed.push(format!("{}: no result", file.display())),
            Err(why) => passed.push(format!("{}: {why}", file.display())),
        }
    }
    if let Some(first) = passed.first() {
        eprintln!(
            "{}: passed over {} file(s) that are not finished games (the first: {first})",
            path.display(),
            passed.len()
        );
    }
    if games.is_empty() {
        return Err(format!("{} holds no finished game (lab records or UCC referee logs)", path.display()).into());
    }
    Ok(games)
}

pub fn run(out: &mut impl Write, args: ProbeArgs) -> Result<(), CliError> {
    if args.stride == 0 || args.max_positions == 0 {
        return Err("--stride and --max-positions must be at least 1".into());
    }
    if let Some(path) = args.json.as_ref().filter(|p| p.exists()) {
        return Err(format!("{} exists; the probe writes a new file", path.display()).into());
    }
    let device = stratego_model::device(&args.device)?;
    let (net, meta) = stratego_model::load(&args.net, None, None, &device)?;
    let referee = match args.referee_plies {
        Some(0) => return Err("--referee-plies must be at least 1".into()),
        Some(plies) => Ruleset { max_plies: plies, ..ucc_rules() },
        None => ucc_rules(),
    };
    // Read every set before the first inference: a bad path fails at once.
    let mut sets = Vec::new();
    for set in &args.sets {
        let (label, path) = match set.split_once('=') {
            Some((label, path)) if !label.is_empty() => (label.to_string(), PathBuf::from(path)),
            _ => (set.clone(), PathBuf::from(set)),
        };
        sets.push((label, load_set(&path, referee)?));
    }
    if args.pool_weight.is_some_and(|w| !(0.0..=1.0).contains(&w)) {
        return Err("--pool-weight must be a number from 0 to 1".into());
    }
    let options =
        ProbeOptions { stride: args.stride, max_positions: args.max_positions, pool_weight: args.pool_weight };
    let mut reports: Vec<(String, ProbeReport)> = Vec::new();
    for (label, games) in sets {
        let (files, games): (Vec<PathBuf>, Vec<ProbeGame>) = games.into_iter().unzip();
        let report = probe(&net, meta.layout, meta.rules.piece_set, &device, &games, options).map_err(|e| match e {
            // Name the file, not its place in the set.
            ProbeError::Replay { game, ply, why } => format!("{}, ply {ply}: {why}", files[game - 1].display()),
            ProbeError::PieceSet { game, found, expected } => format!(
                "{}: played with the {found} piece set, the network knows the {expected} set",
                files[game - 1].display()
            ),
            e => format!("{label}: {e}"),
        })?;
        writeln!(
            out,
            "{label}: {} games, {} positions (every {} plies)",
            report.games, report.positions, report.stride
        )
        .map_err(output)?;
        reports.push((label, report));
    }
    writeln!(out, "\n{}", markdown(&reports)).map_err(output)?;
    if let Some(path) = &args.json {
        let json: Vec<serde_json::Value> =
            reports.iter().map(|(label, r)| serde_json::json!({ "set": label, "report": r })).collect();
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        write_new_file(path, &format!("{text}\n"))?;
    }
    Ok(())
}
