//! What a `netrollout` player does in real games: how often its rollouts
//! overrule the policy, how much a veto removes, how many worlds and
//! how much time a decision takes, and the games' results. A diagnostic
//! behind the pilots of EVALUATION.md, not a measure of strength (the
//! arena's registered comparisons are that).
//!
//! `cargo run --release -p stratego-netplayer --example rollout_stats --
//! 'netrollout:PATH,...' 'OPPONENT' GAMES SEED [RULES]`: the games are
//! played one after the other on one thread, colours alternating, each
//! player keeping its own progress rules for its own moves (as the arena
//! does by default), under `RULES` (a ruleset name or identity; the
//! referee's by default).

use std::time::Duration;

use rand::{Rng, SeedableRng};
use stratego_engine::{Color, Move, Outcome, Ruleset};
use stratego_evaluation::arena::{play_game, MatchConfig, SelfRestriction, SetupMode};
use stratego_netplayer::rollout::{RolloutFactory, RolloutOptions, RolloutPlayer, RolloutStats};
use stratego_players::{AgentRng, InfoView, Player, PlayerError, PlayerFactory, PlayerSpec};

// The `stratego` command's allocator, so that the times are the arena's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The rollout player, remembering every decision's statistics.
struct Recording {
    inner: RolloutPlayer,
    log: Vec<RolloutStats>,
}

impl Player for Recording {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn choose_setup(&mut self, set: stratego_engine::PieceSet, rng: &mut AgentRng) -> stratego_engine::Setup {
        self.inner.choose_setup(set, rng)
    }
    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        let mv = self.inner.choose_move(view, rng)?;
        if view.legal_moves.len() > 1 {
            self.log.push(self.inner.last.clone());
        }
        Ok(mv)
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
        return Err("usage: rollout_stats 'netrollout:PATH,...' OPPONENT GAMES SEED [RULES]".into());
    }
    let spec: PlayerSpec = args[0].parse().map_err(|e| format!("{e}"))?;
    let options = RolloutOptions::parse(&spec).map_err(|e| e.to_string())?;
    let path = spec.path.clone().ok_or("netrollout needs a checkpoint path")?;
    let device = stratego_model::device("cpu").map_err(|e| e.to_string())?;
    let factory = RolloutFactory::load(std::path::Path::new(&path), options, &device).map_err(|e| e.to_string())?;
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, Some(device));
    let opponent = registry.factory(&args[1]).map_err(|e| e.to_string())?;
    let games: u32 = args[2].parse().map_err(|_| "GAMES: expected a whole number")?;
    let seed: u64 = args[3].parse().map_err(|_| "SEED: expected a whole number")?;
    let rules: Ruleset = args.get(4).map_or("referee", |s| s.as_str()).parse().map_err(|e| format!("{e}"))?;
    let config = MatchConfig {
        rules,
        games,
        seed,
        setups: SetupMode::Swap,
        sprt: None,
        self_restriction: SelfRestriction::Both,
    };
    let restrict = [config.restriction_of(&factory, true), config.restriction_of(opponent.as_ref(), false)];

    let (mut wins, mut draws, mut plies) = (0, 0, 0);
    let mut log: Vec<RolloutStats> = Vec::new();
    for game in 0..games {
        let mut rng = AgentRng::seed_from_u64(seed.wrapping_mul(1_000_003).wrapping_add(game as u64));
        let mut us = Recording { inner: factory.player(), log: Vec::new() };
        let mut them = opponent.make();
        let setup_us = us.choose_setup(rules.piece_set, &mut rng);
        let setup_them = them.choose_setup(rules.piece_set, &mut rng);
        let (mut r0, mut r1) = (AgentRng::seed_from_u64(rng.random()), AgentRng::seed_from_u64(rng.random()));
        let we_are_red = game % 2 == 0;
        let record = if we_are_red {
            play_game(rules, [&setup_us, &setup_them], [&mut us, them.as_mut()], [&mut r0, &mut r1], restrict, game)
        } else {
            let seats = [restrict[1], restrict[0]];
            play_game(rules, [&setup_them, &setup_us], [them.as_mut(), &mut us], [&mut r1, &mut r0], seats, game)
        }
        .map_err(|e| e.to_string())?;
        let us_colour = if we_are_red { Color::Red } else { Color::Blue };
        match record.result {
            Some(Outcome { winner: Some(w), .. }) if w == us_colour => wins += 1,
            Some(Outcome { winner: None, .. }) => draws += 1,
            _ => {}
        }
        plies += record.moves.len();
        log.extend(us.log);
        eprintln!("game {game}: {:?} after {} plies", record.result.map(|o| o.winner), record.moves.len());
    }
    let n = log.len().max(1) as f64;
    let overruled = log.iter().filter(|s| s.overruled).count();
    let vetoed = log.iter().map(|s| s.vetoed).sum::<usize>() as f64 / n;
    let first_vetoed = log.iter().filter(|s| s.veto_first).count();
    let worlds = log.iter().map(|s| s.worlds).sum::<usize>() as f64 / n;
    let mut times: Vec<Duration> = log.iter().map(|s| s.elapsed).collect();
    times.sort();
    let at = |q: f64| times.get(((times.len() as f64 - 1.0) * q) as usize).copied().unwrap_or_default();
    let veto_depth = log.iter().filter(|s| s.veto_depth > 0).map(|s| s.veto_depth as f64).sum::<f64>()
        / log.iter().filter(|s| s.veto_depth > 0).count().max(1) as f64;
    println!("{}  against  {}", factory.name(), opponent.name());
    println!("games {games}: {wins} won, {draws} drawn, {} lost; {plies} plies", games - wins - draws);
    println!(
        "decisions {}: overruled {overruled} ({:.1} %), moves vetoed {vetoed:.1} a decision, the favourite \
         {first_vetoed} times, veto depth {veto_depth:.1}, mean worlds {worlds:.1}",
        log.len(),
        100.0 * overruled as f64 / n
    );
    println!("time per decision: median {:?}, 90 % {:?}, slowest {:?}", at(0.5), at(0.9), at(1.0));
    Ok(())
}
