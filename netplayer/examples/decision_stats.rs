//! What the searching players do in real games, decision by decision: for
//! `netrollout` how often its rollouts overrule the policy and how many
//! worlds it rolls out, for `netexpectimax` and `expectimax` how deep the
//! search gets (and for `netexpectimax` how often several moves lie within
//! its margin, the policy's to choose from), for every kind how long a decision takes; and the games'
//! results. A diagnostic behind the pilots of EVALUATION.md, not a measure
//! of strength (the arena's registered comparisons are that).
//!
//! `cargo run --release -p stratego-netplayer --example decision_stats --
//! A B GAMES SEED [RULES]`: A and B are player specs (statistics for the
//! kinds above, the result for any); the games are played one after the
//! other on one thread, colours alternating, each player keeping its own
//! progress rules for its own moves (as the arena does by default), under
//! `RULES` (a ruleset name or identity; the referee's by default).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use stratego_baselines::expectimax::{ExpectimaxConfig, ExpectimaxPlayer};
use stratego_engine::{Color, Move, Outcome, PieceSet, Ruleset, Setup};
use stratego_evaluation::arena::{play_game, MatchConfig};
use stratego_netplayer::guided::{GuidedFactory, GuidedOptions, GuidedPlayer};
use stratego_netplayer::rollout::{RolloutFactory, RolloutOptions, RolloutPlayer};
use stratego_netplayer::NetworkPlayerKind;
use stratego_players::{AgentRng, InfoView, Player, PlayerError, PlayerFactory, PlayerSpec, Registry, SetupPolicy};

// The `stratego` command's allocator, so that the times are the arena's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One decision with a choice (more than one legal move).
#[derive(Default)]
struct Decision {
    elapsed: Duration,
    /// The search's deepest completed iteration (expectimax kinds).
    depth: Option<u32>,
    /// Worlds rolled out, whether the rollouts overruled, moves vetoed and
    /// whether the favourite was (netrollout).
    worlds: Option<usize>,
    overruled: bool,
    /// The moves within the margin of the search's best (netexpectimax):
    /// the policy's to choose from.
    near_best: Option<usize>,
    vetoed: usize,
    favourite_vetoed: bool,
}

/// A player of one of the kinds with statistics, or any other.
enum Kind {
    Rollout(RolloutPlayer),
    Guided(GuidedPlayer),
    Expectimax(ExpectimaxPlayer),
    Other(Box<dyn Player>),
}

struct Recording {
    kind: Kind,
    log: Vec<Decision>,
}

impl Recording {
    fn player(&mut self) -> &mut dyn Player {
        match &mut self.kind {
            Kind::Rollout(p) => p,
            Kind::Guided(p) => p,
            Kind::Expectimax(p) => p,
            Kind::Other(p) => p.as_mut(),
        }
    }
}

impl Player for Recording {
    fn name(&self) -> String {
        match &self.kind {
            Kind::Rollout(p) => p.name(),
            Kind::Guided(p) => p.name(),
            Kind::Expectimax(p) => p.name(),
            Kind::Other(p) => p.name(),
        }
    }
    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.player().choose_setup(set, rng)
    }
    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        let start = Instant::now();
        let mv = self.player().choose_move(view, rng)?;
        if view.legal_moves.len() > 1 {
            let mut d = Decision { elapsed: start.elapsed(), ..Decision::default() };
            match &self.kind {
                Kind::Rollout(p) => {
                    d.worlds = Some(p.last.worlds);
                    d.overruled = p.last.overruled;
                    d.vetoed = p.last.vetoed;
                    d.favourite_vetoed = p.last.veto_first;
                    d.depth = (p.last.veto_depth > 0).then_some(p.last.veto_depth);
                }
                Kind::Guided(p) => {
                    d.depth = Some(p.last.depth);
                    d.overruled = p.last.overruled;
                    d.near_best = Some(p.last.near_best);
                }
                Kind::Expectimax(p) => d.depth = Some(p.last.depth),
                Kind::Other(_) => {}
            }
            self.log.push(d);
        }
        Ok(mv)
    }
}

/// Makes fresh recording players of one spec: the kinds with statistics
/// from their concrete factories (which are also the match's factory, so a
/// checkpoint is loaded once), the others from the registry.
struct Maker {
    factory: Arc<dyn PlayerFactory>,
    kind: MakerKind,
}

enum MakerKind {
    Rollout(RolloutFactory),
    Guided(GuidedFactory),
    Expectimax(ExpectimaxConfig, SetupPolicy),
    Other,
}

impl Maker {
    fn new(text: &str, registry: &Registry, device: &burn::tensor::Device) -> Result<Maker, String> {
        let spec: PlayerSpec = text.parse().map_err(|e| format!("{e}"))?;
        let path = || spec.path.clone().map(std::path::PathBuf::from).ok_or("a network kind needs a path");
        let error = |e: &dyn std::fmt::Display| e.to_string();
        let kind = match spec.name.as_str() {
            "netrollout" => {
                let options = RolloutOptions::parse(&spec).map_err(|e| error(&e))?;
                MakerKind::Rollout(RolloutFactory::load(&path()?, options, device).map_err(|e| error(&e))?)
            }
            "netexpectimax" => {
                let options = GuidedOptions::parse(&spec).map_err(|e| error(&e))?;
                MakerKind::Guided(GuidedFactory::load(&path()?, options, device).map_err(|e| error(&e))?)
            }
            "expectimax" => MakerKind::Expectimax(
                stratego_baselines::expectimax::expectimax_config(&spec).map_err(|e| error(&e))?,
                spec.setup().map_err(|e| error(&e))?,
            ),
            _ => MakerKind::Other,
        };
        let factory: Arc<dyn PlayerFactory> = match &kind {
            MakerKind::Rollout(f) => Arc::new(f.clone()),
            MakerKind::Guided(f) => Arc::new(f.clone()),
            MakerKind::Expectimax(..) | MakerKind::Other => registry.factory(text).map_err(|e| error(&e))?,
        };
        Ok(Maker { factory, kind })
    }

    fn make(&self) -> Recording {
        let kind = match &self.kind {
            MakerKind::Rollout(f) => Kind::Rollout(f.player()),
            MakerKind::Guided(f) => Kind::Guided(f.player()),
            MakerKind::Expectimax(config, setup) => Kind::Expectimax(ExpectimaxPlayer::new(*config, *setup)),
            MakerKind::Other => Kind::Other(self.factory.make()),
        };
        Recording { kind, log: Vec::new() }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        return Err("usage: decision_stats A B GAMES SEED [RULES]".into());
    }
    let device = stratego_model::device("cpu").map_err(|e| e.to_string())?;
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, Some(device.clone()));
    let makers = [Maker::new(&args[0], &registry, &device)?, Maker::new(&args[1], &registry, &device)?];
    let games: u32 = args[2].parse().map_err(|_| "GAMES: expected a whole number")?;
    let seed: u64 = args[3].parse().map_err(|_| "SEED: expected a whole number")?;
    let rules: Ruleset = args.get(4).map_or("referee", |s| s.as_str()).parse().map_err(|e| format!("{e}"))?;
    let config = MatchConfig::new(rules, games, seed);
    let restrict = [
        config.restriction_of(makers[0].factory.as_ref(), true),
        config.restriction_of(makers[1].factory.as_ref(), false),
    ];

    let (mut wins, mut draws) = (0, 0);
    let mut logs: [Vec<Decision>; 2] = [Vec::new(), Vec::new()];
    for game in 0..games {
        let mut rng = AgentRng::seed_from_u64(seed.wrapping_mul(1_000_003).wrapping_add(game as u64));
        let (mut a, mut b) = (makers[0].make(), makers[1].make());
        let setup_a = a.choose_setup(rules.piece_set, &mut rng);
        let setup_b = b.choose_setup(rules.piece_set, &mut rng);
        let (mut ra, mut rb) = (AgentRng::seed_from_u64(rng.random()), AgentRng::seed_from_u64(rng.random()));
        let a_is_red = game % 2 == 0;
        let record = if a_is_red {
            play_game(rules, [&setup_a, &setup_b], [&mut a, &mut b], [&mut ra, &mut rb], restrict, game)
        } else {
            let seats = [restrict[1], restrict[0]];
            play_game(rules, [&setup_b, &setup_a], [&mut b, &mut a], [&mut rb, &mut ra], seats, game)
        }
        .map_err(|e| e.to_string())?
        .record;
        let a_colour = if a_is_red { Color::Red } else { Color::Blue };
        match record.result {
            Some(Outcome { winner: Some(w), .. }) if w == a_colour => wins += 1,
            Some(Outcome { winner: None, .. }) => draws += 1,
            _ => {}
        }
        eprintln!("game {game}: {:?} after {} plies", record.result.map(|o| o.winner), record.moves.len());
        logs[0].extend(a.log);
        logs[1].extend(b.log);
    }
    println!("games {games}: A won {wins}, drew {draws}, lost {}", games - wins - draws);
    for (seat, (maker, log)) in ["A", "B"].iter().zip(makers.iter().zip(&logs)) {
        println!("{seat} = {}", maker.factory.name());
        summarise(log);
    }
    Ok(())
}

fn summarise(log: &[Decision]) {
    let n = log.len().max(1) as f64;
    let mut times: Vec<Duration> = log.iter().map(|d| d.elapsed).collect();
    times.sort();
    let at = |q: f64| times.get(((times.len() as f64 - 1.0) * q) as usize).copied().unwrap_or_default();
    println!(
        "  {} decisions; time per decision: median {:?}, 90 % {:?}, slowest {:?}",
        log.len(),
        at(0.5),
        at(0.9),
        at(1.0)
    );
    let depths: Vec<u32> = log.iter().filter_map(|d| d.depth).collect();
    if !depths.is_empty() {
        let mut histogram = std::collections::BTreeMap::new();
        for &d in &depths {
            *histogram.entry(d).or_insert(0u32) += 1;
        }
        let mean = depths.iter().map(|&d| d as f64).sum::<f64>() / depths.len() as f64;
        println!("  search depth: mean {mean:.2}, decisions by depth {histogram:?}");
    }
    let overruled = log.iter().filter(|d| d.overruled).count();
    // netrollout: the rollouts played another than the policy's favourite;
    // netexpectimax: the policy chose another than the search's best.
    println!("  overruled: {overruled} ({:.1} %)", 100.0 * overruled as f64 / n);
    let near: Vec<usize> = log.iter().filter_map(|d| d.near_best).collect();
    if !near.is_empty() {
        let several: Vec<usize> = near.iter().copied().filter(|&k| k > 1).collect();
        let mean = several.iter().sum::<usize>() as f64 / several.len().max(1) as f64;
        println!(
            "  several moves within the margin: {} decisions ({:.1} %), {mean:.1} moves on average there",
            several.len(),
            100.0 * several.len() as f64 / n
        );
    }
    let rolled: Vec<usize> = log.iter().filter_map(|d| d.worlds).collect();
    if !rolled.is_empty() {
        let worlds = rolled.iter().sum::<usize>() as f64 / rolled.len() as f64;
        let vetoed = log.iter().map(|d| d.vetoed).sum::<usize>() as f64 / n;
        let favourite = log.iter().filter(|d| d.favourite_vetoed).count();
        println!("  mean worlds {worlds:.1}; moves vetoed {vetoed:.2} a decision, the favourite {favourite} times");
    }
}
