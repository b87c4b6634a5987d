//! `stratego ucc-bot`: one of our players as a UCC 2012 referee bot.
//!
//! The referee starts the bot with no arguments, so it is launched through a
//! script that ends in `exec stratego ucc-bot --agent SPEC ...`. Moves go to
//! stdout, diagnostics to stderr, and the game record is written line by line
//! to `--record` (the referee kills the bot as soon as the game ends).

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use rand::SeedableRng;
use stratego_players::player::{rules_note, self_restriction};
use stratego_players::AgentRng;
use stratego_ucc::bot::{self, UccEnd};

use crate::{players, CliError};

#[derive(Args)]
pub struct UccBotArgs {
    #[arg(long, help = crate::players::spec_help("The player"))]
    agent: String,
    /// The game record, written move by move (an existing file is refused).
    /// Default: runs/ucc/<unix seconds>-<process id>.txt.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Time limit per decision in milliseconds (the referee's default limit is 2000). [1 to 3,600,000]
    #[arg(long, default_value_t = 1000, value_parser = crate::count::<u64>(1, 3_600_000))]
    move_time_ms: u64,
    /// Seed of the player's generator (default: from the clock, and written to the record).
    #[arg(long)]
    seed: Option<u64>,
    /// Play by the referee's rules alone. By default the player holds its own
    /// moves to its progress rules (two-square and more-squares: those it was
    /// trained under, else the lab's), which the referee does not apply.
    #[arg(long)]
    no_self_restriction: bool,
    /// The referee's turn cap, its `-m` (`inf` for none): the game is a draw
    /// after TURNS - 1 full turns, and the player sees how near that is. If
    /// the referee plays on past it, the bot lifts its cap. [2 to 1,000,000, or inf]
    #[arg(long, default_value = "1000", value_parser = referee_turns)]
    referee_turns: TurnCap,
}

/// `--referee-turns`: a count, or `inf`.
#[derive(Copy, Clone, Debug)]
struct TurnCap(Option<u32>);

fn referee_turns(text: &str) -> Result<TurnCap, String> {
    if text == "inf" {
        return Ok(TurnCap(None));
    }
    match text.parse::<u32>() {
        Ok(turns) if (2..=1_000_000).contains(&turns) => Ok(TurnCap(Some(turns))),
        _ => Err(format!("`{text}` is not a turn count in [2, 1000000] or `inf`")),
    }
}

pub fn ucc_bot(out: &mut impl Write, args: UccBotArgs) -> Result<(), CliError> {
    let factory = players::factory(&args.agent)?;
    let rules = bot::tracked_rules(args.referee_turns.0);
    factory.check_rules(&rules).map_err(|why| format!("player `{}` cannot play UCC games: {why}", factory.name()))?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let seed = args.seed.unwrap_or(now.as_nanos() as u64);
    let path = args.record.unwrap_or_else(|| {
        PathBuf::from("runs").join("ucc").join(format!("{}-{}.txt", now.as_secs(), std::process::id()))
    });
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let mut record = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("cannot create the record {}: {e}", path.display()))?;
    let restriction = if args.no_self_restriction { None } else { self_restriction(factory.as_ref(), &rules) };
    if let Some(note) = rules_note(factory.as_ref(), &rules, restriction) {
        crate::report(&format!("ucc-bot: {note}"));
    }
    let mut player = factory.make();
    let mut rng = AgentRng::seed_from_u64(seed);
    let stdin = io::stdin().lock();
    let options = bot::BotOptions {
        move_time: Duration::from_millis(args.move_time_ms),
        restriction,
        referee_turns: args.referee_turns.0,
    };
    let end = bot::play(stdin, out, &mut record, player.as_mut(), &mut rng, seed, &options)?;
    if end == UccEnd::Closed {
        crate::report("ucc-bot: the referee closed the input without QUIT");
    }
    Ok(())
}
