//! `stratego`: a thin command line over the lab's crates.
//!
//! Every failure prints one line, `error: ...`, on stderr and exits with
//! status 1; a closed stdout (say, piped into `head`) ends the program quietly.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::speed::{measure_parallel_playouts, measure_playout_speed, RuleCost};
mod arena_cli;
mod cotoan_cli;
mod distill_cli;
mod doctor_cli;
mod game_arena_cli;
mod games;
mod keep_games;
mod model_cli;
mod ntuple_cli;
mod obs_cli;
mod players;
mod probe_cli;
mod run_args;
mod serve;
mod setups_cli;
mod train_cli;
mod ucc_cli;
mod ucc_review_cli;
mod view_cli;

use stratego_engine::{GameRecord, PieceSet, Ruleset, Setup, State};

/// mimalloc keeps freed memory for reuse; see Cargo.toml for why.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its header, `mimalloc.h`, enum
/// `mi_option_e`: the sixteenth option; `libmimalloc-sys` names no constant
/// for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc never to hand freed pages back to the kernel. By default
/// it purges them after a second, and burn frees and allocates a tensor's
/// worth of pages per operation, so each training step faulted its memory
/// in again and the kernel zeroed it: on this project's 2-core machine
/// (2026-12-07) 2,900 `madvise` calls and 120,000 page faults in a short
/// `bench model`, a third of the train step's time in the kernel's
/// `clear_page`. Without purging, the smoke training run took 10.7 s of
/// system time instead of 24.9 s and its imitation learned 444 samples/s
/// instead of 333 (BENCHMARKS.md, "Network on the CPU"). The cost is that
/// the process keeps its peak memory until it exits (the smoke run's peak
/// resident memory 200 MB instead of 175 MB).
fn keep_freed_memory() {
    // SAFETY: sets one of mimalloc's options by its index; called first in
    // main, before any thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

#[derive(Parser)]
#[command(name = "stratego", version, about = "Stratego AI lab: rules engine, play, replay and benchmarks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a seeded game between two uniform random players and print it.
    Play {
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        rules: RulesArgs,
        /// Print every move as it is played.
        #[arg(long)]
        moves: bool,
        /// Write the game record to this file (refuses to overwrite one).
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// List the legal moves of a position (or of a serialized state), one per line.
    Legal {
        /// `<ruleset> <board> <side> <ply> <battleless> [moves ...]`, or `-` to read it from stdin.
        position: String,
    },
    /// Replay a game record, check it, and print the final board and result.
    Replay {
        record: PathBuf,
        /// Refuse the record unless it was played under this ruleset (canonical text).
        #[arg(long)]
        rules: Option<String>,
        /// Print every move.
        #[arg(long)]
        moves: bool,
    },
    /// Print the observation planes of a position for its side to move.
    Obs {
        /// A position or serialized state (as for `legal`), or `-` to read it from stdin.
        position: String,
        /// compact (58 planes) or full (488 planes).
        #[arg(long, default_value = "compact")]
        layout: String,
        /// Print only this plane (otherwise every plane that is not all zero).
        #[arg(long)]
        plane: Option<usize>,
    },
    /// CoToan (docs/COTOAN.md): play, legal actions with witnesses, diagnostics.
    Cotoan {
        #[command(subcommand)]
        what: cotoan_cli::CotoanCommand,
    },
    /// A match between the generic bots (random, mcts) in any registered game (src/games.rs).
    GameArena(game_arena_cli::GameArenaArgs),
    /// Network presets, new checkpoints and checkpoint metadata.
    Model {
        #[command(subcommand)]
        what: model_cli::ModelCommand,
    },
    /// Play a match between two players: paired games, Elo with a 95% interval, LOS, records.
    Arena(arena_cli::ArenaArgs),
    /// A round robin with Bradley-Terry ratings, printed as a table and drawn as a PNG chart.
    Ladder(arena_cli::LadderArgs),
    /// Registered comparisons (registrations/*.toml).
    Register {
        #[command(subcommand)]
        what: arena_cli::RegisterCommand,
    },
    /// Starting armies searched against a field, written for a player's `setup=file:PATH`.
    Setups {
        #[command(subcommand)]
        what: setups_cli::SetupsCommand,
    },
    /// Train the network by self-play (configs/*.toml), or resume a run.
    Train(train_cli::TrainArgs),
    /// Train a network by imitation of a teacher player's games (a config's [pretrain]) and write its checkpoint.
    Distill(distill_cli::DistillArgs),
    /// N-tuple tables trained by TD(lambda) self-play (docs/NTUPLE.md).
    Ntuple {
        #[command(subcommand)]
        what: ntuple_cli::NTupleCommand,
    },
    /// List the players that specs can name, with their options.
    Players,
    /// Play as a bot of the UCC 2012 Stratego referee, on stdin and stdout.
    UccBot(ucc_cli::UccBotArgs),
    /// How our player's games through the real UCC referee went: W/L/D per opponent and how each game was lost (match.sh log directories).
    UccReview(ucc_review_cli::UccReviewArgs),
    /// What a checkpoint's value and belief heads know about finished games (lab records, UCC referee logs), beside the hand-written leaf and the counting prior.
    Probe(probe_cli::ProbeArgs),
    /// One self-contained HTML page of a game (a lab record or a UCC referee log): the board to step through from
    /// either side, the moves and battles, the material over the game; with --net, what a network made of each ply.
    View(view_cli::ViewArgs),
    /// A local web server where a person plays a whole game against a player in the browser (setup, moves, battles,
    /// the record to download).
    Serve(serve::ServeArgs),
    /// What this program can run on this machine: the backends built in, the devices each finds, a small
    /// forward pass and training step on each (speed and memory), and what to do where one is missing.
    Doctor {
        /// Positions per forward pass and training step [1 to 65,536].
        #[arg(long, default_value_t = 64, value_parser = crate::count::<usize>(1, 65_536))]
        batch: usize,
        /// Timed repetitions (after one warm-up); the median is printed. [1 to 10,000]
        #[arg(long, default_value_t = 3, value_parser = crate::count::<usize>(1, 10_000))]
        iterations: usize,
    },
    /// Measure speed.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Arena games per second (random and greedy self-play, all cores) and expectimax nodes per second.
    Agents(arena_cli::BenchAgentsArgs),
    /// N-tuple evaluations per second per core (with the greedy and expectimax evaluations as anchors) and training games per hour.
    Ntuple(ntuple_cli::BenchNTupleArgs),
    /// Random playouts: plies per second on one core with the full rules (best and median of the rounds), the cost of each move rule, and all cores together.
    Engine {
        /// Plies per measurement. [1 to 10,000,000,000]
        #[arg(long, default_value_t = 1_000_000, value_parser = crate::count::<u64>(1, 10_000_000_000))]
        plies: u64,
        /// Measurements per variant; the best and the median are printed. [1 to 1,000]
        #[arg(long, default_value_t = 9, value_parser = crate::count::<usize>(1, 1_000))]
        rounds: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Forward and training-step samples per second of the tiny and small networks.
    Model {
        /// cpu, flex, ndarray or wgpu.
        #[arg(long, default_value = "cpu")]
        device: String,
        /// Positions per forward pass and training step [1 to 65,536].
        #[arg(long, default_value_t = 64, value_parser = crate::count::<usize>(1, 65_536))]
        batch: usize,
        /// Timed repetitions (after one warm-up); the median is printed. [1 to 10,000]
        #[arg(long, default_value_t = 5, value_parser = crate::count::<usize>(1, 10_000))]
        iterations: usize,
        /// The presets measured, in order (tiny, small, ataraxos).
        #[arg(long, value_delimiter = ',', default_value = "tiny,small")]
        presets: Vec<String>,
    },
    /// Training pipeline: self-play plies per second and learner samples per second, measured apart.
    Train(train_cli::BenchTrainArgs),
    /// Observations per second per core for each layout, and VecEnv step+observe.
    Obs {
        /// Observations per layout measurement. [1 to 1,000,000,000]
        #[arg(long, default_value_t = 200_000, value_parser = crate::count::<usize>(1, 1_000_000_000))]
        observations: usize,
        /// Games in the VecEnv batch. [1 to 65,536]
        #[arg(long, default_value_t = 256, value_parser = crate::count::<usize>(1, 65_536))]
        batch: usize,
        /// VecEnv steps per measurement. [1 to 1,000,000]
        #[arg(long, default_value_t = 40, value_parser = crate::count::<usize>(1, 1_000_000))]
        steps: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Copy, Clone, ValueEnum)]
enum PiecesArg {
    Classic,
    Barrage,
}

#[derive(Copy, Clone, ValueEnum)]
enum Switch {
    On,
    Off,
}

/// The default of every switch below: docs/RULES.md's, written once in the engine.
const DEFAULT_RULES: Ruleset = Ruleset::classic();

/// The ruleset switches. A switch not given takes its value from the base
/// ruleset: docs/RULES.md's defaults (`Ruleset::classic()`), or for a match
/// of players trained under one ruleset (`net:`, `ntuple:`), that one.
#[derive(Args)]
struct RulesArgs {
    /// The ruleset the switches below change: a name (`classic`, `barrage`,
    /// or `referee`: the UCC 2012 referee's rules, no two-square or
    /// more-squares rule and its 1000-turn cap, as outside bots play) or a
    /// canonical ruleset text. [default: classic; in a match of trained
    /// players, their ruleset]
    #[arg(long, value_parser = parse_ruleset)]
    rules: Option<Ruleset>,
    #[arg(long, value_enum, help = rules_help("Piece set", DEFAULT_RULES.piece_set.name()))]
    pieces: Option<PiecesArg>,
    #[arg(long, help = rules_help("Two-square limit (0 disables the rule; 5 is ISF article 10.1)", DEFAULT_RULES.two_square_limit))]
    two_square: Option<u8>,
    #[arg(long, value_enum, help = rules_help("The more-squares (continuous chasing) rule", if DEFAULT_RULES.chase_rule { "on" } else { "off" }))]
    chase: Option<Switch>,
    #[arg(long, help = rules_help("Ply cap", DEFAULT_RULES.max_plies))]
    max_plies: Option<u32>,
    #[arg(long, help = rules_help("Cap on plies without a battle", DEFAULT_RULES.max_battleless_plies))]
    max_battleless: Option<u32>,
}

/// A ruleset switch's help, with its default from the engine's one table.
fn rules_help(what: &str, default: impl std::fmt::Display) -> String {
    format!("{what} [default: {default}; in a match of trained players, their ruleset's]")
}

impl RulesArgs {
    /// The switches over docs/RULES.md's defaults.
    fn ruleset(&self) -> Result<Ruleset, CliError> {
        self.over(self.rules.unwrap_or(DEFAULT_RULES))
    }

    /// Whether any switch was given.
    fn given(&self) -> bool {
        self.rules.is_some()
            || self.pieces.is_some()
            || self.two_square.is_some()
            || self.chase.is_some()
            || self.max_plies.is_some()
            || self.max_battleless.is_some()
    }

    /// The switches given, over `base`.
    fn over(&self, base: Ruleset) -> Result<Ruleset, CliError> {
        let rules = Ruleset {
            piece_set: match self.pieces {
                Some(PiecesArg::Classic) => PieceSet::Classic,
                Some(PiecesArg::Barrage) => PieceSet::Barrage,
                None => base.piece_set,
            },
            two_square_limit: self.two_square.unwrap_or(base.two_square_limit),
            chase_rule: self.chase.map_or(base.chase_rule, |c| matches!(c, Switch::On)),
            max_plies: self.max_plies.unwrap_or(base.max_plies),
            max_battleless_plies: self.max_battleless.unwrap_or(base.max_battleless_plies),
        };
        rules.validate()?;
        Ok(rules)
    }
}

/// `--rules`: a named ruleset or a canonical text.
fn parse_ruleset(text: &str) -> Result<Ruleset, String> {
    text.parse::<Ruleset>().map_err(|e| {
        let names: Vec<&str> = stratego_engine::NAMED_RULESETS.iter().map(|(n, _)| *n).collect();
        format!("{e} (a ruleset is one of {} or a canonical text)", names.join(", "))
    })
}

/// A count flag's parser, `lo..=hi`: zero or an absurd size is a usage
/// error naming the flag, not a panic, a NaN or an hour-long run.
pub(crate) fn count<T>(lo: u64, hi: u64) -> clap::builder::RangedU64ValueParser<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: std::error::Error + Send + Sync + 'static,
{
    clap::builder::RangedU64ValueParser::<T>::new().range(lo..=hi)
}

/// A duration flag in seconds: a finite number in (0, one day].
pub(crate) fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!("`{text}` is not a number of seconds in (0, 86400]")),
    }
}

/// A failure: a message for the user, or stdout going away.
pub(crate) enum CliError {
    Message(String),
    Output(io::Error),
}

impl<E: fmt::Display> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError::Message(e.to_string())
    }
}

pub(crate) fn output(e: io::Error) -> CliError {
    CliError::Output(e)
}

/// Writes one line to stderr. A stderr that cannot be written (a closed
/// pipe, a full disk) must not turn an error into a panic: the exit status
/// still says what happened.
pub(crate) fn report(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Parses the command line. A usage error is one `error: ...` line and exit
/// status 1 like every other error (docs/RELIABILITY.md), naming what is
/// wrong (the missing argument, the subcommands to choose from); only
/// `--help` and `--version` print as clap renders them.
fn parse() -> Result<Cli, ExitCode> {
    Cli::try_parse().map_err(|e| {
        use clap::error::ErrorKind;
        match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let _ = e.print();
                ExitCode::SUCCESS
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                report(&missing_subcommand(std::env::args_os().skip(1)));
                ExitCode::FAILURE
            }
            _ => {
                report(&usage_error(&e.render().to_string()));
                ExitCode::FAILURE
            }
        }
    })
}

/// clap's message as one line: its lines up to the usage block, so that a
/// list on the lines after a colon (the missing arguments) stays in it.
fn usage_error(rendered: &str) -> String {
    let mut line = String::new();
    let lines = rendered.lines().map(str::trim).take_while(|l| !l.starts_with("Usage:"));
    for part in lines.filter(|l| !l.is_empty() && !l.starts_with("For more information")) {
        let part = part.strip_prefix("error: ").unwrap_or(part);
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    if line.is_empty() {
        line.push_str("invalid arguments");
    }
    format!("error: {line} (see --help)")
}

/// The line for a command given without its subcommand (`stratego model`):
/// the command as typed and the subcommands it takes.
fn missing_subcommand(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    use clap::CommandFactory;
    let mut command = Cli::command();
    let mut path = vec![command.get_name().to_string()];
    for arg in args {
        let Some(sub) = arg.to_str().and_then(|a| command.find_subcommand(a)).cloned() else { break };
        path.push(sub.get_name().to_string());
        command = sub;
    }
    let path = path.join(" ");
    let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).filter(|&n| n != "help").collect();
    if names.is_empty() {
        format!("error: `{path}` needs arguments (see `{path} --help`)")
    } else {
        format!("error: `{path}` needs a subcommand, one of: {} (see `{path} --help`)", names.join(", "))
    }
}

fn main() -> ExitCode {
    keep_freed_memory();
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let mut out = io::stdout().lock();
    match run(cli.command, &mut out).and_then(|()| out.flush().map_err(output)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(CliError::Output(e)) => {
            report(&format!("error: cannot write output: {e}"));
            ExitCode::FAILURE
        }
        Err(CliError::Message(message)) => {
            report(&format!("error: {}", message.lines().collect::<Vec<_>>().join("; ")));
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command, out: &mut impl Write) -> Result<(), CliError> {
    match command {
        Command::Play { seed, rules, moves, record } => play(out, seed, rules.ruleset()?, moves, record.as_deref()),
        Command::Legal { position } => {
            let state = State::deserialize(&read_position(position)?)?;
            for mv in state.legal_moves() {
                writeln!(out, "{mv}").map_err(output)?;
            }
            Ok(())
        }
        Command::Replay { record, rules, moves } => replay(out, &record, rules.as_deref(), moves),
        Command::Obs { position, layout, plane } => obs_cli::print_planes(out, position, &layout, plane),
        Command::Model { what } => model_cli::run(what, out),
        Command::Bench { what: BenchCommand::Model { device, batch, iterations, presets } } => {
            model_cli::bench(out, &device, batch, iterations, &presets)
        }
        Command::Cotoan { what } => cotoan_cli::run(what, out),
        Command::GameArena(args) => game_arena_cli::game_arena(out, args),
        Command::Arena(args) => arena_cli::arena(out, args),
        Command::Ladder(args) => arena_cli::ladder(out, args),
        Command::Register { what } => arena_cli::register(out, what),
        Command::Setups { what } => setups_cli::run(out, what),
        Command::Train(args) => train_cli::train_command(out, args),
        Command::Distill(args) => distill_cli::distill_command(out, args),
        Command::Bench { what: BenchCommand::Train(args) } => train_cli::bench_train(out, args),
        Command::Ntuple { what } => ntuple_cli::run(what, out),
        Command::Bench { what: BenchCommand::Ntuple(args) } => ntuple_cli::bench(out, args),
        Command::UccBot(args) => ucc_cli::ucc_bot(out, args),
        Command::UccReview(args) => ucc_review_cli::run(out, &args),
        Command::Probe(args) => probe_cli::run(out, args),
        Command::View(args) => view_cli::run(out, args),
        Command::Serve(args) => serve::run(out, args),
        Command::Doctor { batch, iterations } => doctor_cli::doctor(out, batch, iterations),
        Command::Players => write!(out, "{}", players::registry().help()).map_err(output),
        Command::Bench { what: BenchCommand::Agents(args) } => arena_cli::bench_agents(out, args),
        Command::Bench { what: BenchCommand::Engine { plies, rounds, seed } } => bench_engine(out, plies, rounds, seed),
        Command::Bench { what: BenchCommand::Obs { observations, batch, steps, seed } } => {
            obs_cli::bench_obs(out, observations, batch, steps, seed)
        }
    }
}

/// A position argument, or stdin for `-`.
fn read_position(position: String) -> Result<String, CliError> {
    if position != "-" {
        return Ok(position);
    }
    stratego_support::files::read_text_from(io::stdin()).map_err(|e| format!("cannot read stdin: {e}").into())
}

/// One line per ply: number, side, move, and the battle if there was one.
fn write_move(out: &mut impl Write, state: &State, index: usize) -> Result<(), CliError> {
    let r = &state.history()[index];
    let fight = r.battle.map_or(String::new(), |b| format!("  {} attacks {}: {:?}", r.piece, b.defender, b.result));
    writeln!(out, "{:>5}. {:<4} {}{fight}", index + 1, r.player.name(), r.mv).map_err(output)
}

fn play(
    out: &mut impl Write,
    seed: u64,
    rules: Ruleset,
    print_moves: bool,
    record_path: Option<&Path>,
) -> Result<(), CliError> {
    if let Some(path) = record_path.filter(|p| p.symlink_metadata().is_ok()) {
        return Err(format!("{} already exists; not overwriting it", path.display()).into());
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let red = Setup::random(rules.piece_set, &mut rng);
    let blue = Setup::random(rules.piece_set, &mut rng);
    let mut state = State::from_setups(rules, &red, &blue)?;
    writeln!(out, "rules {rules} (id {})\nred setup  {red}\nblue setup {blue}\n", rules.id()).map_err(output)?;
    writeln!(out, "{}", state.board().pretty()).map_err(output)?;
    while let Some(mv) = state.sample_legal_move(&mut rng) {
        state.apply_move(mv)?;
        if print_moves {
            write_move(out, &state, state.history().len() - 1)?;
        }
    }
    writeln!(out, "\n{state}").map_err(output)?;
    if let Some(path) = record_path {
        let record = GameRecord::new(rules, red, blue, &state);
        write_new_file(path, &record.to_text())?;
        writeln!(out, "record written to {}", path.display()).map_err(output)?;
    }
    Ok(())
}

/// Writes a file that must not exist yet, through a temporary file, so an
/// interrupted write never leaves half a file behind. The temporary file is
/// created new (an existing file or a symlink under its name is refused,
/// never written through), and moved into place by a hard link, which,
/// unlike a rename, refuses a name that exists by then.
fn write_new_file(path: &Path, text: &str) -> Result<(), CliError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = std::path::PathBuf::from(tmp);
    let written = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).and_then(|mut file| {
        let written = file.write_all(text.as_bytes()).and_then(|()| file.sync_all());
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    });
    written.map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    linked.map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

fn replay(out: &mut impl Write, path: &Path, rules: Option<&str>, print_moves: bool) -> Result<(), CliError> {
    let text = stratego_support::files::read_text(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let record = GameRecord::parse(&text)?;
    let state = match rules {
        Some(rules_text) => record.replay_under(&rules_text.parse::<Ruleset>()?)?,
        None => record.replay()?,
    };
    writeln!(out, "rules {} (id {})", record.rules, record.rules.id()).map_err(output)?;
    if print_moves {
        for i in 0..state.history().len() {
            write_move(out, &state, i)?;
        }
    }
    writeln!(out, "{state}").map_err(output)?;
    Ok(())
}

fn bench_engine(out: &mut impl Write, plies: u64, rounds: usize, seed: u64) -> Result<(), CliError> {
    let speeds = measure_playout_speed(plies, rounds, seed);
    for s in &speeds {
        writeln!(out, "engine random playout ({}): {:.0} plies/s per core", s.name, s.plies_per_second)
            .map_err(output)?;
        writeln!(out, "engine random playout ({}, median round): {:.0} plies/s per core", s.name, s.median)
            .map_err(output)?;
    }
    for (name, with, without) in [("chasing", 0, 1), ("two-square", 1, 2)] {
        let cost = RuleCost::between(&speeds[with], &speeds[without]);
        writeln!(
            out,
            "engine {name} rule cost: {:.3} x the time per ply without it (median of {} alternating rounds, range {:.3} to {:.3}; {:+.1} ns/ply)",
            cost.median_ratio, cost.rounds, cost.low, cost.high, cost.ns_per_ply
        )
        .map_err(output)?;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let total = measure_parallel_playouts(threads, plies, seed);
    writeln!(out, "engine random playout (full rules, {threads} threads): {total:.0} plies/s").map_err(output)?;
    let stats = speeds[0].stats;
    let games = stats.games as f64;
    writeln!(out, "engine random game length: {:.1} plies", stats.plies as f64 / games).map_err(output)?;
    writeln!(out, "engine random games won by red: {:.3} fraction", stats.red_wins as f64 / games).map_err(output)?;
    writeln!(out, "engine random games won by blue: {:.3} fraction", stats.blue_wins as f64 / games).map_err(output)?;
    writeln!(out, "engine random games drawn: {:.3} fraction", stats.draws as f64 / games).map_err(output)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index `keep_freed_memory` sets is mimalloc's purge delay: a
    /// child of this test binary started with `MIMALLOC_PURGE_DELAY` (which
    /// mimalloc reads at start) reads that value at the index, and after
    /// `keep_freed_memory` reads -1 (never purge).
    #[test]
    fn the_option_kept_is_mimallocs_purge_delay() {
        let get = || unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        if let Ok(expected) = std::env::var("STRATEGO_TEST_PURGE_DELAY") {
            assert_eq!(get().to_string(), expected);
            keep_freed_memory();
            assert_eq!(get(), -1);
            return;
        }
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "tests::the_option_kept_is_mimallocs_purge_delay", "--test-threads", "1"])
            .env("MIMALLOC_PURGE_DELAY", "1234")
            .env("STRATEGO_TEST_PURGE_DELAY", "1234")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&child.stdout);
        assert!(child.status.success() && out.contains("1 passed"), "{out}{}", String::from_utf8_lossy(&child.stderr));
    }
}
