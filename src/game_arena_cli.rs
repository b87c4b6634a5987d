//! `stratego game-arena`: a match between two generic bots in any
//! registered game (src/games.rs), through the contract's generic arena.

use std::io::Write;

use clap::Args;
use stratego_contract::api::Game;
use stratego_contract::arena::{play_match, MatchScore};
use stratego_contract::bots::BotSpec;
use stratego_evaluation::stats::Pentanomial;

use crate::games::{self, GameVisitor};
use crate::{output, CliError};

#[derive(Args)]
pub struct GameArenaArgs {
    #[arg(long, help = games::help())]
    game: String,
    /// The game's settings, as its canonical text (`cotoan-rules-v1:...`,
    /// `stratego-rules-v1:...` or a ruleset name). [default: the game's defaults]
    #[arg(long)]
    params: Option<String>,
    /// Bot A: `random`, `mcts` or `mcts:sims=N,c=X,rollout=N` (defaults 200, 1.4, 200).
    #[arg(long)]
    a: String,
    /// Bot B, as for --a.
    #[arg(long)]
    b: String,
    /// Games (an even number: games are played in pairs with the seats swapped). [2 to 1,000,000]
    #[arg(long, default_value_t = 20, value_parser = crate::count::<usize>(2, 1_000_000))]
    games: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// A match of two specs, for whichever game the registry hands over.
struct Match {
    a: BotSpec,
    b: BotSpec,
    games: usize,
    seed: u64,
}

/// What a match gives: the game's description, the bots' names, the score.
struct Report {
    game: String,
    a: String,
    b: String,
    score: MatchScore,
}

impl GameVisitor for Match {
    type Output = Report;

    fn visit<G: Game>(self, game: G) -> Result<Report, CliError>
    where
        G::State: 'static,
    {
        let mut a = self.a.build(&game).map_err(|e| format!("--a: {e}"))?;
        let mut b = self.b.build(&game).map_err(|e| format!("--b: {e}"))?;
        let score = play_match(&game, &mut *a, &mut *b, self.games, self.seed)?;
        let parameters: Vec<String> = game.parameters().iter().map(|(k, v)| format!("{k}={v}")).collect();
        let game = format!("{} ({})", game.game_type().short_name, parameters.join(","));
        Ok(Report { game, a: a.name(), b: b.name(), score })
    }
}

pub fn game_arena(out: &mut impl Write, args: GameArenaArgs) -> Result<(), CliError> {
    let spec = |flag: &str, text: &str| text.parse::<BotSpec>().map_err(|e| format!("{flag}: {e}"));
    let (a, b) = (spec("--a", &args.a)?, spec("--b", &args.b)?);
    if args.games % 2 == 1 {
        return Err(format!("--games must be even (games are played in pairs), got {}", args.games).into());
    }
    let visitor = Match { a, b, games: args.games, seed: args.seed };
    let report = games::with_game(&args.game, args.params.as_deref(), visitor)?;
    write!(out, "{}", report.to_text()).map_err(output)
}

impl Report {
    fn to_text(&self) -> String {
        let s = &self.score;
        let pairs = Pentanomial { counts: s.pairs.map(|n| n as u64) };
        let pair_word = if pairs.pairs() == 1 { "pair" } else { "pairs" };
        let mut lines = vec![
            format!("game: {}", self.game),
            format!("A = {}, B = {}: {} games in {} {pair_word}", self.a, self.b, s.games, pairs.pairs()),
            format!("A wins / draws / B wins: {} / {} / {}", s.a_wins, s.draws, s.b_wins),
            format!("points (A): {} of {} (score {:.4})", s.a_points(), s.games, pairs.score()),
            format!("elo (A - B): {} (95%, from the pentanomial pair results)", pairs.elo()),
            format!("average game length: {:.1} plies", s.plies as f64 / s.games as f64),
        ];
        if s.truncated > 0 {
            lines.push(format!("games stopped at the game's length cap: {}", s.truncated));
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }
}
