//! `stratego arena`, `stratego ladder`, `stratego register run` and
//! `stratego bench agents`: thin wrappers over the evaluation crate.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use clap::{Args, Subcommand};
use stratego_baselines::bench::expectimax_nodes_per_second;
use stratego_baselines::expectimax::ExpectimaxConfig;
use stratego_baselines::values::value;
use stratego_engine::{Color, EndReason, PieceType};
use stratego_evaluation::arena::{
    play_match_streaming, ArenaError, GameResult, MatchConfig, SelfRestriction, SetupMode,
};
use stratego_evaluation::bench::arena_games_per_second;
use stratego_evaluation::ladder::{play_ladder, write_ladder};
use stratego_evaluation::registration;
use stratego_evaluation::report::{
    check_output_dir, match_dir_name, slug, write_output_dir, MatchSummary, StreamedOutput,
};
use stratego_evaluation::stats::Sprt;
use stratego_players::player::rules_note;
use stratego_players::PlayerFactory;

use crate::players;
use crate::{output, CliError, RulesArgs};

/// The settings every match command shares.
#[derive(Args)]
pub struct MatchArgs {
    /// Games per match (an even number: games are played in pairs with the seats swapped). [2 to 10,000,000]
    #[arg(long, default_value_t = 100, value_parser = crate::count::<u32>(2, 10_000_000))]
    games: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// `swap`: setups belong to the seats and the players swap both (setup luck cancels in a pair);
    /// `own`: each player keeps its own setup.
    #[arg(long, default_value = "swap")]
    setups: String,
    /// Worker threads (default: every core). Results do not depend on it. [1 to 1,024]
    #[arg(long, value_parser = crate::count::<usize>(1, 1_024))]
    threads: Option<usize>,
    /// Output directory (default under runs/); an existing one is refused.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replace the output directory if it exists.
    #[arg(long)]
    overwrite: bool,
    /// Which players hold their own moves to their progress rules (those they
    /// were trained under, else the lab's) where the match's rules lack them:
    /// `both`, `a`, `b` or `none` (the match's rules alone). A restricted
    /// player's opponent still moves by the match's rules.
    #[arg(long, default_value = "both")]
    self_restriction: String,
    #[command(flatten)]
    rules: RulesArgs,
}

#[derive(Args)]
pub struct ArenaArgs {
    #[arg(long, help = players::spec_help("Player A"))]
    a: String,
    #[arg(long, help = players::spec_help("Player B"))]
    b: String,
    /// Stop as soon as an SPRT decides: `elo0,elo1,alpha,beta` (logistic Elo, GSPRT on pentanomial pairs).
    #[arg(long)]
    sprt: Option<String>,
    /// Also write N of the games as `stratego view` pages (`pages/NNNNN.html` beside the records), A's losses
    /// first. [0 to 10,000,000]
    #[arg(long, default_value_t = 0, value_parser = crate::count::<usize>(0, 10_000_000))]
    keep_games: usize,
    #[command(flatten)]
    settings: MatchArgs,
}

#[derive(Args)]
pub struct LadderArgs {
    /// Two or more player specs, or fields: `ucc-field` (the five bots of shared/ucc) or `lab-field`.
    #[arg(required = true, num_args = 2..)]
    specs: Vec<String>,
    #[command(flatten)]
    settings: MatchArgs,
}

#[derive(Subcommand)]
pub enum RegisterCommand {
    /// Play a registered comparison and append its outcome and decision to the file's results log.
    Run {
        file: PathBuf,
        /// Where match outputs go: <DIR>/<file stem>/run-<K>/.
        #[arg(long, default_value = "runs/registrations")]
        out_root: PathBuf,
        /// Worker threads (default: every core). Results do not depend on it. [1 to 1,024]
        #[arg(long, value_parser = crate::count::<usize>(1, 1_024))]
        threads: Option<usize>,
        /// Also write N of the games as `stratego view` pages (`pages/NNNNN.html` beside the records), A's losses
        /// first. [0 to 10,000,000]
        #[arg(long, default_value_t = 0, value_parser = crate::count::<usize>(0, 10_000_000))]
        keep_games: usize,
    },
}

#[derive(Args)]
pub struct BenchAgentsArgs {
    /// Games per arena throughput measurement. [2 to 10,000,000]
    #[arg(long, default_value_t = 1000, value_parser = crate::count::<u32>(2, 10_000_000))]
    games: u32,
    /// Positions searched for the expectimax figure. [1 to 1,000,000]
    #[arg(long, default_value_t = 40, value_parser = crate::count::<usize>(1, 1_000_000))]
    positions: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl MatchArgs {
    /// The match's settings. With no ruleset switch given, a match of
    /// players trained under one ruleset (`net:`, `ntuple:`) plays that
    /// ruleset (the first such player's), so a trained player's match works
    /// without restating its rules; otherwise docs/RULES.md's defaults.
    fn config(&self, sprt: Option<Sprt>, players: &[&Arc<dyn PlayerFactory>]) -> Result<MatchConfig, CliError> {
        let setups: SetupMode = self.setups.parse()?;
        // Positive by its parser; pairs need an even count.
        if self.games % 2 == 1 {
            return Err(format!("--games must be even (games are played in pairs), got {}", self.games).into());
        }
        let trained = players.iter().find_map(|p| p.trained_rules());
        let rules = match trained {
            Some(base) if !self.rules.given() => self.rules.over(base)?,
            _ => self.rules.ruleset()?,
        };
        let self_restriction: SelfRestriction = self.self_restriction.parse()?;
        Ok(MatchConfig { rules, games: self.games, seed: self.seed, setups, sprt, self_restriction })
    }

    /// Runs `work` on a pool of `--threads` workers (or the global pool).
    fn with_threads<T: Send>(&self, work: impl FnOnce() -> T + Send) -> Result<T, CliError> {
        with_threads(self.threads, work)
    }

    /// The output directory, checked but not yet made: it is created (and
    /// an old one replaced under `--overwrite`) only once the match has
    /// been played, so a match that fails leaves nothing behind and loses
    /// nothing already there.
    fn output_dir(&self, default_name: &str) -> Result<PathBuf, CliError> {
        let dir = self.path(default_name);
        check_output_dir(&dir, self.overwrite)?;
        Ok(dir)
    }

    /// `--out`, or `runs/<default_name>`.
    fn path(&self, default_name: &str) -> PathBuf {
        self.out.clone().unwrap_or_else(|| Path::new("runs").join(default_name))
    }
}

/// Runs `work` on a pool of `threads` workers (or the global pool).
pub(crate) fn with_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> Result<T, CliError> {
    // `--threads` is at least 1 by its parser (`crate::count`).
    match threads {
        Some(n) => Ok(rayon::ThreadPoolBuilder::new().num_threads(n).build().map_err(|e| e.to_string())?.install(work)),
        None => Ok(work()),
    }
}

fn parse_sprt(text: &str) -> Result<Sprt, CliError> {
    let numbers: Vec<f64> = text
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("--sprt expects four numbers elo0,elo1,alpha,beta, got `{text}`"))?;
    match numbers[..] {
        [elo0, elo1, alpha, beta] => Ok(Sprt::new(elo0, elo1, alpha, beta)?),
        _ => Err(format!("--sprt expects four numbers elo0,elo1,alpha,beta, got `{text}`").into()),
    }
}

/// Refuses players that cannot play under the match's rules (a network
/// trained for other rules) before any output directory is made; the arena
/// would refuse them too, but later.
fn check_rules<'a>(
    players: impl IntoIterator<Item = &'a Arc<dyn PlayerFactory>>,
    config: &MatchConfig,
) -> Result<(), CliError> {
    for (i, p) in players.into_iter().enumerate() {
        p.check_rules(&config.rules).map_err(|why| ArenaError::Rules { player: p.name(), why })?;
        // One line per player that plays under rules it was not trained for
        // or holds itself to progress rules the match lacks.
        // A ladder's players are each A in some pairings and B in others:
        // only `both` and `none` apply to all of them alike.
        let restriction = config.restriction_of(p.as_ref(), i == 0);
        if let Some(note) = rules_note(p.as_ref(), &config.rules, restriction) {
            crate::report(&note);
        }
    }
    Ok(())
}

/// Games played and A's running score: a bar on a terminal, steady lines in
/// a log (`stratego_runlog::Progress`).
struct Progress {
    bar: stratego_runlog::Progress,
    half_points: AtomicU64,
    games: AtomicU64,
}

impl Progress {
    fn new(label: &str, total: u64) -> Progress {
        let bar = stratego_runlog::Progress::new(label, "games", total, true);
        Progress { bar, half_points: AtomicU64::new(0), games: AtomicU64::new(0) }
    }

    fn game(&self, label: &str, g: &GameResult) {
        let half =
            self.half_points.fetch_add((2.0 * g.a_points()) as u64, Ordering::Relaxed) + (2.0 * g.a_points()) as u64;
        let games = self.games.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.inc(1);
        self.bar.set_message(format!("{label} score {:.3}", half as f64 / 2.0 / games as f64));
    }
}

pub fn arena(out: &mut impl Write, args: ArenaArgs) -> Result<(), CliError> {
    let a = players::factory(&args.a)?;
    let b = players::factory(&args.b)?;
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let settings = &args.settings;
    let config = settings.config(sprt, &[&a, &b])?;
    check_rules([&a, &b], &config)?;
    // The default directory names the games played. An SPRT can stop the
    // match early, so its directory is named (and checked) when it stops,
    // `...-16games-sprt`; any other match's is checked before it starts.
    let name = |games: u64| match_dir_name(&a.name(), &b.name(), config.seed, games, sprt.is_some());
    let known = sprt.is_none() || settings.out.is_some();
    let dir = if known { Some(settings.output_dir(&name(u64::from(config.games)))?) } else { None };
    // The records go to disk as the games end (`<dir>.partial/`, named
    // when whole): a match of millions of games keeps none in memory.
    let streamed = StreamedOutput::start(&settings.path(&name(u64::from(config.games))))?;
    let progress = Progress::new("arena", config.games as u64);
    let caps = CapReport::default();
    let on_game = |g: &GameResult| {
        progress.game("A", g);
        caps.note(g);
    };
    let sink = |g: &GameResult| streamed.record(g);
    let result = settings.with_threads(|| play_match_streaming(a.as_ref(), b.as_ref(), &config, &on_game, &sink))??;
    progress.bar.finish_and_clear();
    let summary = MatchSummary::of(&result);
    let dir = match dir.map_or_else(|| settings.output_dir(&name(result.games.len() as u64)), Ok) {
        Ok(dir) => dir,
        Err(e) => {
            // The games are not lost: their summary goes to stdout first.
            write!(out, "{}", summary.to_text()).map_err(output)?;
            return Err(e);
        }
    };
    let results = streamed.finish(&dir, settings.overwrite, &result, &summary)?;
    writeln!(out, "rules {} (id {}), seed {}, setups {}", config.rules, config.rules.id(), config.seed, config.setups)
        .map_err(output)?;
    write!(out, "{}", summary.to_text()).map_err(output)?;
    writeln!(out, "{}", caps.line(result.games.len())?).map_err(output)?;
    writeln!(
        out,
        "results: {}\nrecords: {} ({} games)",
        results.display(),
        dir.join("games").display(),
        result.games.len()
    )
    .map_err(output)?;
    let scored: Vec<(u32, f64)> = result.games.iter().map(|g| (g.index, g.a_points())).collect();
    let pages = crate::keep_games::write_pages(&dir, &scored, args.keep_games)?;
    if pages > 0 {
        writeln!(out, "pages: {} ({pages} games, A's losses first)", dir.join("pages").display()).map_err(output)?;
    }
    Ok(())
}

/// The games a cap ended, and who was ahead on material then: a player
/// that is ahead should win rather than shuffle into the cap
/// (EVALUATION.md). Material is the true value of the pieces left
/// (`stratego_baselines::values`, the Flag left out). Counted as each game
/// ends, while its record is at hand.
#[derive(Default)]
struct CapReport {
    capped: AtomicU64,
    a_ahead: AtomicU64,
    b_ahead: AtomicU64,
    error: std::sync::Mutex<Option<String>>,
}

impl CapReport {
    fn note(&self, game: &GameResult) {
        if !matches!(game.outcome.reason, EndReason::PlyCap | EndReason::BattlelessCap) {
            return;
        }
        self.capped.fetch_add(1, Ordering::Relaxed);
        let Some(record) = &game.record else { return };
        let state = match record.replay() {
            Ok(state) => state,
            Err(e) => {
                if let Ok(mut first) = self.error.lock() {
                    first.get_or_insert(format!("game {}: {e}", game.index));
                }
                return;
            }
        };
        let material = |side: Color| -> f64 {
            let pieces = state.board().pieces().filter(|(_, p)| p.color == side && p.kind != PieceType::Flag);
            pieces.map(|(_, p)| value(p.kind)).sum()
        };
        let a = if game.a_is_red { Color::Red } else { Color::Blue };
        match material(a).total_cmp(&material(a.opponent())) {
            std::cmp::Ordering::Greater => self.a_ahead.fetch_add(1, Ordering::Relaxed),
            std::cmp::Ordering::Less => self.b_ahead.fetch_add(1, Ordering::Relaxed),
            std::cmp::Ordering::Equal => 0,
        };
    }

    fn line(&self, games: usize) -> Result<String, CliError> {
        if let Some(e) = self.error.lock().ok().and_then(|e| e.clone()) {
            return Err(e.into());
        }
        let (capped, a_ahead, b_ahead) =
            [&self.capped, &self.a_ahead, &self.b_ahead].map(|n| n.load(Ordering::Relaxed)).into();
        let share = |n: u64| 100.0 * n as f64 / games.max(1) as f64;
        Ok(format!(
            "games ended at a cap: {capped} of {games}; A ahead on material in {a_ahead} ({:.1} % of the games), B \
             ahead in {b_ahead} ({:.1} %)",
            share(a_ahead),
            share(b_ahead)
        ))
    }
}

pub fn ladder(out: &mut impl Write, args: LadderArgs) -> Result<(), CliError> {
    let specs = stratego_roster::expand(&args.specs);
    let players: Vec<Arc<dyn PlayerFactory>> = specs.iter().map(|s| players::factory(s)).collect::<Result<_, _>>()?;
    let settings = &args.settings;
    let config = settings.config(None, &players.iter().collect::<Vec<_>>())?;
    if !matches!(config.self_restriction, SelfRestriction::Both | SelfRestriction::Neither) {
        return Err(
            "--self-restriction: a ladder's players are A in some pairings and B in others; give both or none".into()
        );
    }
    check_rules(&players, &config)?;
    let names: Vec<String> = players.iter().map(|p| slug(&p.name())).collect();
    let dir = settings.output_dir(&format!("ladder-{}-seed{}-{}games", names.join("-"), config.seed, config.games))?;
    let pairings = players.len() * (players.len() - 1) / 2;
    let progress = Progress::new("ladder", (pairings as u64) * config.games as u64);
    let result = settings.with_threads(|| play_ladder(&players, &config, &|_, g| progress.game("pairing A", g)))??;
    progress.bar.finish_and_clear();
    let title = format!("Ladder: {} games per pairing, seed {}", config.games, config.seed);
    let (json, png) = write_output_dir(&dir, settings.overwrite, |dir| write_ladder(dir, &result, &title))?;
    write!(out, "{}", result.to_text()).map_err(output)?;
    writeln!(out, "ratings: {}\nchart: {}\nmatches: {}/pairing-*/", json.display(), png.display(), dir.display())
        .map_err(output)?;
    Ok(())
}

pub fn register(out: &mut impl Write, command: RegisterCommand) -> Result<(), CliError> {
    let RegisterCommand::Run { file, out_root, threads, keep_games } = command;
    let prepared = registration::prepare(&file, &players::registry())?;
    check_rules([&prepared.a, &prepared.b], &prepared.config)?;
    let progress = Progress::new("register run", prepared.config.games as u64);
    // Each game's index and A's points, for the pages of `--keep-games`.
    let scored = std::sync::Mutex::new(Vec::new());
    let on_game = |g: &GameResult| {
        progress.game("A", g);
        scored.lock().expect("no panic while held").push((g.index, g.a_points()));
    };
    let outcome = with_threads(threads, || registration::run(&prepared, &out_root, &on_game))??;
    progress.bar.finish_and_clear();
    write!(out, "{}", outcome.summary.to_text()).map_err(output)?;
    writeln!(out, "decision: {}", outcome.logged.decision).map_err(output)?;
    let logged = &outcome.logged;
    // What the specs meant in this run, every option named.
    for (side, resolved) in [("A", &logged.a_resolved), ("B", &logged.b_resolved)] {
        if let Some(resolved) = resolved {
            writeln!(out, "{side} resolves to {resolved}").map_err(output)?;
        }
    }
    if let (Some(before), Some(after)) = (logged.playout_plies_per_second_before, logged.playout_plies_per_second_after)
    {
        writeln!(out, "machine speed (random playout plies/s on one core): {before:.0} before, {after:.0} after")
            .map_err(output)?;
    }
    writeln!(
        out,
        "appended result {} to {}; match output in {}",
        outcome.logged.run,
        file.display(),
        outcome.output.display()
    )
    .map_err(output)?;
    let scored = scored.into_inner().expect("no panic while held");
    let pages = crate::keep_games::write_pages(&outcome.output, &scored, keep_games)?;
    if pages > 0 {
        writeln!(out, "pages: {} ({pages} games, A's losses first)", outcome.output.join("pages").display())
            .map_err(output)?;
    }
    Ok(())
}

pub fn bench_agents(out: &mut impl Write, args: BenchAgentsArgs) -> Result<(), CliError> {
    let threads = rayon::current_num_threads();
    for spec in ["random", "greedy"] {
        let (rate, length) = arena_games_per_second(players::factory(spec)?.as_ref(), args.games, args.seed)?;
        writeln!(out, "agents arena {spec} vs {spec} ({threads} threads): {rate:.1} games/s").map_err(output)?;
        writeln!(out, "agents arena {spec} vs {spec} game length: {length:.1} plies").map_err(output)?;
    }
    // The anchor, measured in the same run: the search without the leaves'
    // guards and scale and without the informed opponent (as it was before
    // them), so the cost of those is a ratio of two figures of one run.
    let config = ExpectimaxConfig::default();
    let anchor = ExpectimaxConfig { scale: 0, guard: false, informed: false, ..config };
    let (rate, depth) = expectimax_nodes_per_second(config, args.positions, args.seed);
    let (anchor_rate, _) = expectimax_nodes_per_second(anchor, args.positions, args.seed);
    writeln!(
        out,
        "agents expectimax search (depth {}, {} nodes): {rate:.0} nodes/s per core",
        config.depth, config.nodes
    )
    .map_err(output)?;
    writeln!(out, "agents expectimax anchor without guards or informed opponent: {anchor_rate:.0} nodes/s per core")
        .map_err(output)?;
    writeln!(out, "agents expectimax completed depth: {depth:.2} plies").map_err(output)?;
    Ok(())
}
