//! `stratego setups search`: armies searched against a field
//! (`stratego_evaluation::setup_search`), written as a file that any
//! player's `setup=file:PATH` deals from.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Subcommand};
use stratego_evaluation::setup_search::{search, Candidate, Generation, SearchConfig};
use stratego_players::{PlayerFactory, SetupPolicy};
use stratego_support::files::write_atomically;

use crate::players;
use crate::{output, CliError, RulesArgs};

#[derive(Subcommand)]
pub enum SetupsCommand {
    /// Search one player's armies against a field (an evolutionary search over swaps of squares, common opponents
    /// and seeds per generation) and write the best as a file for `setup=file:PATH`.
    Search(SearchArgs),
}

#[derive(Args)]
pub struct SearchArgs {
    #[arg(long, help = players::spec_help("The player that plays the armies (its own setup= is not used)"))]
    player: String,
    /// The opponents, each with its own setups: player specs or fields (`lab-field`, `ucc-field`), games dealt
    /// among them in turn.
    #[arg(long, required = true, num_args = 1..)]
    against: Vec<String>,
    /// The family the first generation is drawn from (a `setup=` value: `handcrafted-v2`, `file:PATH`, ...).
    #[arg(long, default_value = "handcrafted-v2")]
    from: String,
    /// Armies per generation (even). [2 to 10,000]
    #[arg(long, default_value_t = 24, value_parser = crate::count::<usize>(2, 10_000))]
    population: usize,
    /// Generations (the last one only plays). [1 to 10,000]
    #[arg(long, default_value_t = 6, value_parser = crate::count::<u32>(1, 10_000))]
    generations: u32,
    /// Games each army plays per generation (even: both colours). [2 to 1,000,000]
    #[arg(long, default_value_t = 24, value_parser = crate::count::<u32>(2, 1_000_000))]
    games: u32,
    /// Armies written, best first (default: the better half of the last population). [1 to 10,000]
    #[arg(long, value_parser = crate::count::<usize>(1, 10_000))]
    keep: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: every core). Results do not depend on it. [1 to 1,024]
    #[arg(long, value_parser = crate::count::<usize>(1, 1_024))]
    threads: Option<usize>,
    /// The file of armies (rewritten after every generation, so a stopped search keeps what it found).
    #[arg(long)]
    out: PathBuf,
    /// Replace the file if it exists.
    #[arg(long)]
    overwrite: bool,
    #[command(flatten)]
    rules: RulesArgs,
}

pub fn run(out: &mut impl Write, what: SetupsCommand) -> Result<(), CliError> {
    match what {
        SetupsCommand::Search(args) => search_command(out, args),
    }
}

fn search_command(out: &mut impl Write, args: SearchArgs) -> Result<(), CliError> {
    let player = players::factory(&args.player)?;
    if player.brings_own_setup() {
        return Err(
            format!("--player `{}` brings its own setups: it has no armies of ours to search", player.name()).into()
        );
    }
    let field: Vec<Arc<dyn PlayerFactory>> =
        stratego_roster::expand(&args.against).iter().map(|spec| players::factory(spec)).collect::<Result<_, _>>()?;
    let start: SetupPolicy = args.from.parse().map_err(|why: String| format!("--from `{}`: {why}", args.from))?;
    let trained = std::iter::once(&player).chain(&field).find_map(|p| p.trained_rules());
    let rules = match trained {
        Some(base) if !args.rules.given() => args.rules.over(base)?,
        _ => args.rules.ruleset()?,
    };
    for p in std::iter::once(&player).chain(&field) {
        p.check_rules(&rules).map_err(|why| format!("player `{}` cannot play under {rules}: {why}", p.name()))?;
    }
    let config = SearchConfig {
        rules,
        start,
        population: args.population,
        generations: args.generations,
        games: args.games,
        seed: args.seed,
    };
    config.check()?;
    let keep = args.keep.unwrap_or(config.population / 2).min(config.population);
    if args.out.exists() && !args.out.is_file() {
        return Err(format!("--out {} exists and is not a file", args.out.display()).into());
    }
    if args.out.exists() && !args.overwrite {
        return Err(format!("{} exists; use --overwrite to replace it", args.out.display()).into());
    }
    // Found out now, not when the first generation's armies are written.
    let parent = args.out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(format!("--out {}: no folder {}", args.out.display(), parent.display()).into());
    }
    let header = header(&args, &config, &field);
    let total = u64::from(config.generations) * config.population as u64 * u64::from(config.games);
    let bar = stratego_runlog::Progress::new("setups", "games", total, true);
    let field_refs: Vec<&dyn PlayerFactory> = field.iter().map(|f| f.as_ref()).collect();
    let mut lines = Vec::new();
    // Each generation's better armies go to the file as it ends: a search
    // stopped later keeps what it found.
    let mut on_generation = |g: &Generation| {
        let best = g.best();
        let line = format!(
            "generation {}: score {:.3}, Flags lost in {:.1} % of games; best army {:.3} over {} games ({} Flags lost)",
            g.index + 1,
            g.score,
            100.0 * g.flags_lost,
            best.score(),
            best.games,
            best.flags_lost
        );
        bar.set_message(format!("generation {} best {:.3}", g.index + 1, best.score()));
        crate::report(&line);
        lines.push(line);
        write_armies(&args.out, &header, &lines, &g.population[..keep])
    };
    let on_game = || bar.inc(1);
    let population = crate::arena_cli::with_threads(args.threads, || {
        search(player.as_ref(), &field_refs, &config, &on_game, &mut on_generation)
    })??;
    bar.finish_and_clear();
    for line in &lines {
        writeln!(out, "{line}").map_err(output)?;
    }
    writeln!(out, "{keep} armies written to {} (best first; scores are in-sample):", args.out.display())
        .map_err(output)?;
    for (rank, c) in population.iter().take(3.min(keep)).enumerate() {
        writeln!(out, "\n{}. {}", rank + 1, describe(c)).map_err(output)?;
        write!(out, "{}", board(&c.setup)).map_err(output)?;
    }
    Ok(())
}

fn header(args: &SearchArgs, config: &SearchConfig, field: &[Arc<dyn PlayerFactory>]) -> String {
    let names: Vec<String> = field.iter().map(|f| f.resolved_name()).collect();
    let mut text =
        String::from("# Armies searched by `stratego setups search`, best first: one per line, 40 squares in\n");
    text.push_str("# the owner's frame (the back row first), for a player's `setup=file:PATH`.\n");
    let _ = writeln!(text, "# player: {}", args.player);
    let _ = writeln!(text, "# against: {}", names.join("; "));
    let _ = writeln!(text, "# rules: {}", config.rules);
    let _ = writeln!(
        text,
        "# from {}, population {}, {} generations, {} games per army per generation, seed {}",
        config.start, config.population, config.generations, config.games, config.seed
    );
    text.push_str("# Scores are in-sample: the best of many noisy armies does better on its own games than it will on new ones.\n");
    text
}

fn describe(c: &Candidate) -> String {
    format!(
        "score {:.3} over {} games, Flags lost {}, born in generation {}",
        c.score(),
        c.games,
        c.flags_lost,
        c.born + 1
    )
}

fn write_armies(path: &Path, header: &str, lines: &[String], armies: &[Candidate]) -> Result<(), String> {
    let mut text = header.to_string();
    for line in lines {
        let _ = writeln!(text, "# {line}");
    }
    for c in armies {
        let _ = writeln!(text, "{}  # {}", c.setup, describe(c));
    }
    write_atomically(path, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// An army as four rows, the front row on top (as its owner sees it from
/// behind the army).
fn board(setup: &stratego_engine::Setup) -> String {
    let text = setup.to_string();
    let rows: Vec<&str> = (0..4).rev().map(|r| &text[10 * r..10 * r + 10]).collect();
    rows.iter().map(|r| format!("    {}\n", r.chars().map(|c| c.to_string()).collect::<Vec<_>>().join(" "))).collect()
}
