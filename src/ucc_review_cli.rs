//! `stratego ucc-review DIR...`: what the real UCC referee's games of a
//! match say about our player, read from `shared/ucc/match.sh`'s log
//! directories (`gameN.log`, the referee's log; `gameN.res`, whose second
//! field is player A's colour): per directory (one opponent) A's wins, losses
//! and draws, and for each game A lost, how (the Flag to a piece known for
//! how long, pieces that died on Bombs, the Marshal to the Spy).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use stratego_engine::Color;
use stratego_ucc::review::Review;

use crate::{output, CliError};

#[derive(Args)]
pub struct UccReviewArgs {
    /// Log directories of `shared/ucc/match.sh -o DIR` (player A is ours).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Print one Markdown table row per directory (for EVALUATION.md).
    #[arg(long)]
    markdown: bool,
    /// A lost Flag counts against the bar when the capturing Miner was known this many plies before.
    #[arg(long, default_value_t = 4)]
    known_plies: u32,
}

/// One directory's games.
#[derive(Default)]
struct Tally {
    wins: u32,
    losses: u32,
    draws: u32,
    errors: u32,
    /// Flags lost to a Miner known for `known_plies` or more.
    known_miner_flags: u32,
    flags_lost: u32,
    on_bombs: usize,
    marshal_to_spy: u32,
    lost: Vec<String>,
}

fn game_files(dir: &Path) -> Result<Vec<(u32, PathBuf)>, CliError> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut games: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| {
            let path = e.ok()?.path();
            let n = path.file_name()?.to_str()?.strip_prefix("game")?.strip_suffix(".log")?.parse().ok()?;
            Some((n, path))
        })
        .collect();
    if games.is_empty() {
        return Err(
            format!("{} holds no gameN.log (a log directory of shared/ucc/match.sh -o DIR)", dir.display()).into()
        );
    }
    games.sort();
    Ok(games)
}

fn review_dir(dir: &Path, known_plies: u32) -> Result<Tally, CliError> {
    let mut tally = Tally::default();
    for (n, log) in game_files(dir)? {
        let res = log.with_extension("res");
        let res_text = std::fs::read_to_string(&res).map_err(|e| format!("cannot read {}: {e}", res.display()))?;
        let ours = match res_text.split_whitespace().nth(1) {
            Some("RED") => Color::Red,
            Some("BLUE") => Color::Blue,
            _ => return Err(format!("{}: expected `N RED|BLUE ...` (match.sh's result line)", res.display()).into()),
        };
        let text = std::fs::read_to_string(&log).map_err(|e| format!("cannot read {}: {e}", log.display()))?;
        let review = match Review::of_log(&text) {
            Ok(review) => review,
            Err(why) => {
                tally.errors += 1;
                tally.lost.push(format!("game {n}: no result ({why})"));
                continue;
            }
        };
        let blunders = review.blunders(ours);
        tally.on_bombs += review.died_on_bombs[ours.index()].len();
        tally.marshal_to_spy += review.marshal_to_spy[ours.index()] as u32;
        match review.winner {
            Some(w) if w == ours => tally.wins += 1,
            None => {
                tally.draws += 1;
                let mut why = vec![review.reason.to_lowercase()];
                why.extend(blunders);
                tally.lost.push(format!("game {n} (draw, as {ours}): {}", why.join("; ")));
            }
            Some(_) => {
                tally.losses += 1;
                tally.flags_lost += review.flag_lost[ours.index()].is_some() as u32;
                tally.known_miner_flags += review.flag_lost_to_known_miner(ours, known_plies) as u32;
                let why = review.loss(ours).unwrap_or_default();
                tally.lost.push(format!("game {n} (lost as {ours}, ply {}): {why}", review.plies));
            }
        }
    }
    Ok(tally)
}

pub fn run(out_stream: &mut impl Write, args: &UccReviewArgs) -> Result<(), CliError> {
    let mut total = Tally::default();
    let mut out = String::new();
    if args.markdown {
        out.push_str("| opponent | W-L-D | Flags lost (to a Miner known 4+ plies) | died on Bombs | Marshal to the Spy | games not won |\n");
        out.push_str("|---|---|---|---|---|---|\n");
    }
    for dir in &args.dirs {
        let t = review_dir(dir, args.known_plies)?;
        let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
        if args.markdown {
            out.push_str(&format!(
                "| {name} | {}-{}-{} | {} ({}) | {} | {} | {} |\n",
                t.wins,
                t.losses,
                t.draws,
                t.flags_lost,
                t.known_miner_flags,
                t.on_bombs,
                t.marshal_to_spy,
                if t.lost.is_empty() { "-".to_string() } else { t.lost.join("<br>") }
            ));
        } else {
            out.push_str(&format!(
                "{name}: W {} L {} D {}{}; Flags lost {} (to a Miner known {}+ plies: {}); {} pieces died on Bombs; Marshal to the Spy {}\n",
                t.wins,
                t.losses,
                t.draws,
                if t.errors > 0 { format!(" (unreadable {})", t.errors) } else { String::new() },
                t.flags_lost,
                args.known_plies,
                t.known_miner_flags,
                t.on_bombs,
                t.marshal_to_spy
            ));
            for line in &t.lost {
                out.push_str(&format!("  {line}\n"));
            }
        }
        total.wins += t.wins;
        total.losses += t.losses;
        total.draws += t.draws;
        total.flags_lost += t.flags_lost;
        total.known_miner_flags += t.known_miner_flags;
        total.on_bombs += t.on_bombs;
        total.marshal_to_spy += t.marshal_to_spy;
    }
    let games = total.wins + total.losses + total.draws;
    let score = if games > 0 { (total.wins as f64 + 0.5 * total.draws as f64) / games as f64 } else { 0.0 };
    let line = format!(
        "all: W {} L {} D {} of {games} (score {:.1} %); Flags lost {} (to a Miner known {}+ plies: {}); {} pieces died on Bombs; Marshal to the Spy {}",
        total.wins,
        total.losses,
        total.draws,
        100.0 * score,
        total.flags_lost,
        args.known_plies,
        total.known_miner_flags,
        total.on_bombs,
        total.marshal_to_spy
    );
    if args.markdown {
        out.push_str(&format!("\n{line}\n"));
    } else {
        out.push_str(&line);
        out.push('\n');
    }
    out_stream.write_all(out.as_bytes()).map_err(output)
}
