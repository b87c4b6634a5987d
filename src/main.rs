//! `stratego`: a thin command line over the lab's crates.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::playout::random_playouts;
use stratego_engine::{GameRecord, PieceSet, Ruleset, Setup, State};

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
        /// Write the game record to this file.
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// List the legal moves of a position (or a serialized state), one per line.
    Legal {
        /// A position text (`<ruleset> <board> <side> <ply> <battleless>`), optionally followed by `moves ...`.
        position: String,
    },
    /// Replay a game record, check it, and print the final board and result.
    Replay {
        record: PathBuf,
        /// Refuse the record unless it was played under this ruleset (canonical text).
        #[arg(long)]
        rules: Option<String>,
    },
    /// Measure speed.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Random playouts with the full rules: plies per second per core, and the chasing rule's cost.
    Engine {
        /// Plies per measurement.
        #[arg(long, default_value_t = 2_000_000)]
        plies: u64,
        /// Measurements per variant; the median is printed.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
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

/// The ruleset switches, defaulting to docs/RULES.md's defaults.
#[derive(Args)]
struct RulesArgs {
    #[arg(long, value_enum, default_value = "classic")]
    pieces: PiecesArg,
    /// Two-square limit (0 disables the rule; 5 is ISF article 10.1).
    #[arg(long, default_value_t = 3)]
    two_square: u8,
    /// The more-squares (continuous chasing) rule.
    #[arg(long, value_enum, default_value = "on")]
    chase: Switch,
    #[arg(long, default_value_t = 4000)]
    max_plies: u32,
    #[arg(long, default_value_t = 200)]
    max_battleless: u32,
}

impl RulesArgs {
    fn ruleset(&self) -> Result<Ruleset, String> {
        let rules = Ruleset {
            piece_set: match self.pieces {
                PiecesArg::Classic => PieceSet::Classic,
                PiecesArg::Barrage => PieceSet::Barrage,
            },
            two_square_limit: self.two_square,
            chase_rule: matches!(self.chase, Switch::On),
            max_plies: self.max_plies,
            max_battleless_plies: self.max_battleless,
        };
        rules.validate().map_err(|e| e.to_string())?;
        Ok(rules)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {}", message.lines().collect::<Vec<_>>().join("; "));
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Play { seed, rules, moves, record } => play(seed, rules.ruleset()?, moves, record),
        Command::Legal { position } => {
            let state = State::deserialize(&position).map_err(|e| e.to_string())?;
            for mv in state.legal_moves() {
                println!("{mv}");
            }
            Ok(())
        }
        Command::Replay { record, rules } => replay(&record, rules.as_deref()),
        Command::Bench { what: BenchCommand::Engine { plies, seed, rounds } } => {
            bench_engine(plies, seed, rounds);
            Ok(())
        }
    }
}

fn play(seed: u64, rules: Ruleset, print_moves: bool, record_path: Option<PathBuf>) -> Result<(), String> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let red = Setup::random(rules.piece_set, &mut rng);
    let blue = Setup::random(rules.piece_set, &mut rng);
    let mut state = State::from_setups(rules, &red, &blue).map_err(|e| e.to_string())?;
    println!("rules {} (id {})", rules, rules.id());
    println!("red setup  {red}\nblue setup {blue}\n");
    println!("{}", state.board().pretty());
    while !state.is_terminal() {
        let mv = state.sample_legal_move(&mut rng).ok_or("no legal move in an unfinished game")?;
        let player = state.to_move();
        state.apply_move(mv).map_err(|e| e.to_string())?;
        if print_moves {
            let fight = state.history().last().and_then(|r| r.battle).map_or(String::new(), |b| {
                format!(" ({} vs {}: {:?})", state.history().last().unwrap().piece, b.defender, b.result)
            });
            println!("{:>4}. {player:<4} {mv}{fight}", state.ply());
        }
    }
    println!("\n{state}");
    let record = GameRecord::new(rules, red, blue, &state);
    if let Some(path) = record_path {
        std::fs::write(&path, record.to_text()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("record written to {}", path.display());
    }
    Ok(())
}

fn replay(path: &PathBuf, rules: Option<&str>) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let record = GameRecord::parse(&text).map_err(|e| e.to_string())?;
    let state = match rules {
        Some(rules_text) => {
            let expected: Ruleset = rules_text.parse().map_err(|e: stratego_engine::RulesError| e.to_string())?;
            record.replay_under(&expected)
        }
        None => record.replay(),
    }
    .map_err(|e| e.to_string())?;
    println!("rules {} (id {})", record.rules, record.rules.id());
    println!("{state}");
    Ok(())
}

fn bench_engine(plies: u64, seed: u64, rounds: usize) {
    let full = Ruleset::classic();
    let variants = [
        ("full rules", full),
        ("chasing rule off", Ruleset { chase_rule: false, ..full }),
        ("chasing and two-square rules off", Ruleset { chase_rule: false, two_square_limit: 0, ..full }),
    ];
    // Rounds interleave the variants so that a slow spell of the machine
    // hits all of them; each figure is the median over the rounds.
    let mut rates = vec![Vec::new(); variants.len()];
    let mut full_stats = None;
    for _ in 0..rounds.max(1) {
        for (i, (_, rules)) in variants.iter().enumerate() {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let start = Instant::now();
            let stats = random_playouts(*rules, plies, &mut rng);
            rates[i].push(stats.plies as f64 / start.elapsed().as_secs_f64());
            if i == 0 {
                full_stats = Some(stats);
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let medians: Vec<f64> = rates.iter_mut().map(median).collect();
    for ((name, _), rate) in variants.iter().zip(&medians) {
        println!("engine random playout ({name}): {rate:.0} plies/s per core");
    }
    println!("engine chasing rule cost: {:.1} ns/ply", 1e9 / medians[0] - 1e9 / medians[1]);
    println!("engine two-square rule cost: {:.1} ns/ply", 1e9 / medians[1] - 1e9 / medians[2]);
    let stats = full_stats.expect("at least one round");
    let games = stats.games as f64;
    println!("engine random game length: {:.1} plies", stats.plies as f64 / games);
    println!("engine random games won by red: {:.3} fraction", stats.red_wins as f64 / games);
    println!("engine random games won by blue: {:.3} fraction", stats.blue_wins as f64 / games);
    println!("engine random games drawn: {:.3} fraction", stats.draws as f64 / games);
}
