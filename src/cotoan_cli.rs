//! `stratego cotoan ...`: play, inspect and diagnose CoToan (docs/COTOAN.md),
//! and dump engine verdicts for the GDL conformance checker
//! (tools/cotoan_conformance.py).

use std::io::{self, Write};

use clap::{Args, Subcommand, ValueEnum};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;
use stratego_cotoan::diagnostics::{
    horizon_pair, horizon_rule_pair, rq2_fixtures, threshold_pair, witness_sampling, AliasedPair,
};
use stratego_cotoan::fixtures::{random_trajectory, synthetic_state};
use stratego_cotoan::observation::entry_name;
use stratego_cotoan::{CoToanState, HorizonRule, OperatorMask, Outcome, Settings};
use stratego_engine::{ActionId, Color};

use crate::{output, CliError};

#[derive(Subcommand)]
pub enum CotoanCommand {
    /// Play a seeded game between two uniform random players and print it.
    Play {
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        settings: SettingsArgs,
        /// Print every move as it is played.
        #[arg(long)]
        moves: bool,
    },
    /// List the legal actions of a snapshot with their witnesses, one per line.
    Legal {
        /// `<settings> <board> <side> <ply>`, or `-` to read it from stdin.
        snapshot: String,
        /// Refuse the snapshot unless it belongs to this task (settings text).
        #[arg(long)]
        settings: Option<String>,
    },
    /// Print the RQ1-RQ3 diagnostics of docs/COTOAN.md.
    Diagnose {
        /// Synthetic fixtures added to the hand-built ones for the RQ2 counts. [1 to 100,000]
        #[arg(long, default_value_t = 60, value_parser = crate::count::<usize>(1, 100_000))]
        fixtures: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Print engine verdicts as JSON lines for tools/cotoan_conformance.py:
    /// every state of seeded random games and seeded synthetic states, with
    /// legal actions, witnesses, outcome and every successor.
    #[command(hide = true)]
    Dump {
        /// A settings text (repeatable); the default task when absent.
        #[arg(long = "settings")]
        settings: Vec<String>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Random games per settings. [0 to 1,000,000]
        #[arg(long, default_value_t = 2, value_parser = crate::count::<usize>(0, 1_000_000))]
        games: usize,
        /// Plies per random game at most. [0 to 100,000]
        #[arg(long, default_value_t = 30, value_parser = crate::count::<u32>(0, 100_000))]
        plies: u32,
        /// Synthetic states per settings. [0 to 100,000]
        #[arg(long, default_value_t = 10, value_parser = crate::count::<usize>(0, 100_000))]
        synthetic: usize,
    },
}

#[derive(Copy, Clone, ValueEnum)]
pub enum HorizonRuleArg {
    Score,
    Draw,
}

#[derive(Copy, Clone, ValueEnum)]
pub enum SideArg {
    Red,
    Blue,
}

/// The settings switches, defaulting to docs/COTOAN.md's defaults.
#[derive(Args)]
pub struct SettingsArgs {
    /// Captured value that wins at once (0 disables threshold victory).
    #[arg(long, default_value_t = 0)]
    threshold: u8,
    /// Plies before adjudication.
    #[arg(long, default_value_t = 300)]
    horizon: u32,
    #[arg(long, value_enum, default_value = "score")]
    horizon_rule: HorizonRuleArg,
    /// Enabled operators: names from add, sub, mul, div, mod joined by `+`, or `none`.
    #[arg(long, default_value = "add+sub+mul+div+mod")]
    operators: String,
    #[arg(long, value_enum, default_value = "red")]
    start: SideArg,
}

impl SettingsArgs {
    fn settings(&self) -> Result<Settings, CliError> {
        let operators = OperatorMask::parse(&self.operators).ok_or_else(|| {
            format!(
                "--operators `{}` is not `none` or distinct names from add, sub, mul, div, mod joined by `+`",
                self.operators
            )
        })?;
        let settings = Settings {
            threshold: self.threshold,
            horizon: self.horizon,
            horizon_rule: match self.horizon_rule {
                HorizonRuleArg::Score => HorizonRule::Score,
                HorizonRuleArg::Draw => HorizonRule::Draw,
            },
            operators,
            starting_player: match self.start {
                SideArg::Red => Color::Red,
                SideArg::Blue => Color::Blue,
            },
        };
        settings.validate()?;
        Ok(settings)
    }
}

pub fn run(command: CotoanCommand, out: &mut impl Write) -> Result<(), CliError> {
    match command {
        CotoanCommand::Play { seed, settings, moves } => play(out, seed, settings.settings()?, moves),
        CotoanCommand::Legal { snapshot, settings } => legal(out, &snapshot, settings.as_deref()),
        CotoanCommand::Diagnose { fixtures, seed } => diagnose(out, fixtures, seed),
        CotoanCommand::Dump { settings, seed, games, plies, synthetic } => {
            let tasks = if settings.is_empty() {
                vec![Settings::default()]
            } else {
                settings.iter().map(|t| t.parse::<Settings>()).collect::<Result<Vec<_>, _>>()?
            };
            dump(out, &tasks, seed, games, plies, synthetic)
        }
    }
}

fn play(out: &mut impl Write, seed: u64, settings: Settings, print_moves: bool) -> Result<(), CliError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut state = CoToanState::new(settings)?;
    writeln!(out, "settings {settings} (task {})\n\n{}", settings.task_id(), state.board().pretty()).map_err(output)?;
    while !state.is_terminal() {
        let legal = state.legal_actions();
        let action = legal[rand::Rng::random_range(&mut rng, 0..legal.len())];
        let name = state.action_to_string(action);
        let side = state.to_move();
        state.apply_action(action)?;
        if print_moves {
            writeln!(out, "{:>5}. {:<4} {name}", state.ply(), side.name()).map_err(output)?;
        }
    }
    writeln!(out, "\n{state}").map_err(output)
}

fn legal(out: &mut impl Write, snapshot: &str, settings: Option<&str>) -> Result<(), CliError> {
    let text = if snapshot == "-" {
        stratego_support::files::read_text_from(io::stdin()).map_err(|e| format!("cannot read stdin: {e}"))?
    } else {
        snapshot.to_string()
    };
    let state = match settings {
        Some(expected) => CoToanState::deserialize_under(&expected.parse::<Settings>()?, &text)?,
        None => CoToanState::deserialize(&text)?,
    };
    for m in state.legal_moves_with_witnesses() {
        let name = state.action_to_string(m.action());
        let witnesses = m.witnesses().iter().map(|w| format!(" {w}")).collect::<String>();
        writeln!(out, "{name} {}{witnesses}", m.action()).map_err(output)?;
    }
    if let Some(outcome) = state.outcome() {
        writeln!(out, "{outcome}").map_err(output)?;
    }
    Ok(())
}

// ---- diagnose ----------------------------------------------------------------

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn outcome_text(state: &CoToanState) -> String {
    match state.outcome() {
        Some(o) => o.to_string(),
        None => "nonterminal".to_string(),
    }
}

fn diagnose(out: &mut impl Write, synthetic: usize, seed: u64) -> Result<(), CliError> {
    let mut w = |line: String| writeln!(out, "{line}").map_err(output);
    w("RQ1 cross-representation conformance (GDL description gdl/cotoan.kif vs this engine)".into())?;
    w("  run: python3 tools/cotoan_conformance.py   (needs `python3 -m pip install clingo`; see docs/COTOAN.md section 9)"
        .into())?;
    w("  it compares legal actions, witnesses, every successor and terminal outcomes on reachable and synthetic"
        .into())?;
    w("  states across settings combinations and all 32 operator masks, and reports states and mismatches.".into())?;

    let fixtures = rq2_fixtures(synthetic, seed);
    let rq2 = witness_sampling(&fixtures);
    let ex = &rq2.example;
    w(String::new())?;
    w(format!(
        "RQ2 witness sampling ({} fixtures: the seed's 3 positions, the start, {synthetic} synthetic with seed {seed})",
        fixtures.len()
    ))?;
    w(format!("  nonterminal fixtures: {}", rq2.fixtures))?;
    w(format!("  endpoint actions: {}", rq2.endpoint_actions))?;
    w(format!("  witness-labelled actions: {}", rq2.witness_labelled_actions))?;
    w(format!("  fixtures with a capture of two or more witnesses: {}", rq2.fixtures_with_duplicates))?;
    w(format!("  two-witness position: {}", ex.state.serialize()))?;
    for line in ex.state.board().pretty().lines() {
        w(format!("    {line}"))?;
    }
    let witnesses: Vec<String> = ex.witnesses.iter().map(|x| x.to_string()).collect();
    w(format!(
        "  {}x{} witnesses: {} (floor(8/3) = 8 mod 3 = 2); same successor for each: {}",
        ex.capture.from,
        ex.capture.to,
        witnesses.join(", "),
        yes(ex.same_successor)
    ))?;
    w(format!(
        "  endpoint actions: {}, witness-labelled actions: {}",
        ex.endpoint_actions, ex.witness_labelled_actions
    ))?;
    w(format!(
        "  P(c4xf4) uniform over endpoint actions: {} = {:.4}",
        ex.endpoint_probability,
        ex.endpoint_probability.value()
    ))?;
    w(format!(
        "  P(c4xf4) uniform over witness-labelled actions: {} = {:.4}",
        ex.witness_probability,
        ex.witness_probability.value()
    ))?;
    let ratio = ex.witness_probability.ratio(ex.endpoint_probability);
    w(format!(
        "  ratio: {ratio} = {:.3} (the witness count {} times {}/{})",
        ratio.value(),
        ex.witnesses.len(),
        ex.endpoint_actions,
        ex.witness_labelled_actions
    ))?;

    w(String::new())?;
    w("RQ3 aliasing: occupancy and side to move do not fix the outcome (states reached by replaying legal moves from the start)".into())?;
    for pair in [horizon_pair()?, horizon_rule_pair()?, threshold_pair()?] {
        print_pair(&mut w, &pair)?;
    }
    Ok(())
}

fn print_pair(w: &mut impl FnMut(String) -> Result<(), CliError>, pair: &AliasedPair) -> Result<(), CliError> {
    let (l, r) = (&pair.left.state, &pair.right.state);
    w(format!("  [{}]", pair.name))?;
    for (tag, line) in [("left ", &pair.left), ("right", &pair.right)] {
        w(format!(
            "    {tag}: task {} ({}), {} plies played, {}",
            line.settings.task_id(),
            line.settings,
            line.moves.len(),
            outcome_text(&line.state)
        ))?;
        w(format!("           {}", line.state.serialize()))?;
    }
    w(format!(
        "    same occupancy: {}, same side to move: {}, same ply: {}, same legal actions: {} ({} vs {})",
        yes(l.board() == r.board()),
        yes(l.to_move() == r.to_move()),
        yes(l.ply() == r.ply()),
        yes(l.legal_actions() == r.legal_actions()),
        l.legal_actions().len(),
        r.legal_actions().len()
    ))?;
    if let Some((probe, after_l, after_r)) = &pair.probe {
        w(format!(
            "    same move {probe}: left -> ply {} {}; right -> ply {} {}",
            after_l.ply(),
            outcome_text(after_l),
            after_r.ply(),
            outcome_text(after_r)
        ))?;
    } else {
        w(format!("    outcomes: left {}; right {}", outcome_text(l), outcome_text(r)))?;
    }
    let diffs = pair.observation_differences();
    let shown: Vec<String> = diffs.iter().map(|(i, a, b)| format!("{} [{i}] {a} vs {b}", entry_name(*i))).collect();
    let entries = if diffs.len() == 1 { "entry" } else { "entries" };
    w(format!(
        "    observation separates them: {} ({} {entries}: {})",
        yes(!diffs.is_empty()),
        diffs.len(),
        shown.join(", ")
    ))
}

// ---- dump --------------------------------------------------------------------

/// `terminal`, `winner`, `reason` of a state (winner and reason null while
/// the game goes on, winner null for a draw).
#[derive(Serialize)]
struct OutcomeJson {
    terminal: bool,
    winner: Option<&'static str>,
    reason: Option<&'static str>,
}

impl OutcomeJson {
    fn of(outcome: Option<Outcome>) -> OutcomeJson {
        OutcomeJson {
            terminal: outcome.is_some(),
            winner: outcome.and_then(|o| o.winner).map(Color::name),
            reason: outcome.map(|o| o.reason.name()),
        }
    }
}

/// One successor: the action, the child's snapshot and its outcome.
#[derive(Serialize)]
struct SuccessorJson {
    action: ActionId,
    snapshot: String,
    #[serde(flatten)]
    outcome: OutcomeJson,
}

/// One line of `dump`, in the key order tools/cotoan_conformance.py reads.
#[derive(Serialize)]
struct StateJson<'a> {
    source: &'a str,
    game: usize,
    task: String,
    settings: String,
    snapshot: String,
    #[serde(flatten)]
    outcome: OutcomeJson,
    scores: [u8; 2],
    legal: Vec<ActionId>,
    /// `[action, operator, support square]` per witness.
    witnesses: Vec<(ActionId, &'static str, usize)>,
    successors: Vec<SuccessorJson>,
}

fn json_state(source: &str, game: usize, state: &CoToanState) -> String {
    let settings = state.settings();
    let witnesses = state
        .legal_moves_with_witnesses()
        .iter()
        .flat_map(|m| m.witnesses().into_iter().map(move |w| (m.action(), w.operator.name(), w.support.index())))
        .collect();
    let successors = state
        .legal_moves()
        .iter()
        .map(|&mv| {
            let child = state.child(mv).expect("a legal move applies");
            SuccessorJson {
                action: mv.action(),
                snapshot: child.serialize(),
                outcome: OutcomeJson::of(child.outcome()),
            }
        })
        .collect();
    let line = StateJson {
        source,
        game,
        task: settings.task_id().to_string(),
        settings: settings.canonical(),
        snapshot: state.serialize(),
        outcome: OutcomeJson::of(state.outcome()),
        scores: state.scores(),
        legal: state.legal_actions(),
        witnesses,
        successors,
    };
    serde_json::to_string(&line).expect("the dump's records are plain strings and numbers")
}

fn dump(
    out: &mut impl Write,
    tasks: &[Settings],
    seed: u64,
    games: usize,
    plies: u32,
    synthetic: usize,
) -> Result<(), CliError> {
    for (t, &settings) in tasks.iter().enumerate() {
        // One generator per task, so adding a task leaves the others' states alone.
        let mut rng =
            Xoshiro256PlusPlus::seed_from_u64(stratego_contract::seed::stream_seed(seed, "cotoan-task", t as u64));
        for game in 0..games {
            for state in random_trajectory(settings, plies, &mut rng) {
                writeln!(out, "{}", json_state("reachable", game, &state)).map_err(output)?;
            }
        }
        for i in 0..synthetic {
            let state = synthetic_state(settings, &mut rng);
            writeln!(out, "{}", json_state("synthetic", i, &state)).map_err(output)?;
        }
    }
    Ok(())
}
