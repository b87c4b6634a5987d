//! `stratego view GAME`: one self-contained HTML page of a game (a lab
//! record or a UCC referee log, told apart by their content), to step
//! through from either side (`stratego_viewer`). With `--net PATH` each ply
//! also shows what that network made of the position from the mover's
//! side: its likeliest moves, its value, and its likeliest type for each
//! hidden piece, so that a loss can be diagnosed by looking.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use stratego_engine::{observe, CountingPrior, Move, PieceType, Square, State, NUM_ACTIONS};
use stratego_model::{infer, DRAW, WIN};
use stratego_support::files::read_text;
use stratego_ucc::bot::tracked_rules;
use stratego_ucc::protocol::ucc_rules;
use stratego_viewer::game::{frames, side_name};
use stratego_viewer::{read_game, render, Game, GameSource, Notes, Perspective};

use crate::{output, write_new_file, CliError};

#[derive(Args)]
pub struct ViewArgs {
    /// The game: a lab record (`play --record`, `ucc-bot --record`, `arena --records`) or a UCC referee log.
    game: PathBuf,
    /// The page to write, a new file (default: the game's path with `.html` added).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Whose page: `all` (everything shown, switching between the sides' views on the page; the default), or `red` or
    /// `blue`: what that player saw, with no type of the other side's pieces it had not seen anywhere in the file. A
    /// ucc-bot log holds its bot's side only, which is its default.
    #[arg(long)]
    side: Option<String>,
    /// A checkpoint: each ply also shows the network's likeliest moves, its value and its likeliest type for each
    /// hidden piece, from the mover's side.
    #[arg(long)]
    net: Option<PathBuf>,
    /// For a referee log: the referee's turn limit (its `-m`), shown to the network as the lab's `--rules referee`
    /// does; a game longer than it is replayed without a cap. [1 to 1,000,000]
    #[arg(long, default_value_t = 1000, value_parser = crate::count::<u32>(1, 1_000_000))]
    referee_turns: u32,
    /// The network's device (`cpu`, `flex`, `ndarray`, `wgpu`).
    #[arg(long, default_value = "cpu")]
    device: String,
}

/// How many of the policy's moves each ply shows.
const TOP_MOVES: usize = 3;
/// Positions per inference call.
const CHUNK: usize = 64;

pub fn run(out: &mut impl Write, args: ViewArgs) -> Result<(), CliError> {
    let page = match &args.out {
        Some(path) => path.clone(),
        None => {
            let mut path = args.game.clone().into_os_string();
            path.push(".html");
            PathBuf::from(path)
        }
    };
    if page.exists() {
        return Err(format!("{} exists; view writes a new file", page.display()).into());
    }
    let side = args
        .side
        .as_deref()
        .map(|side| Perspective::parse(side).ok_or_else(|| format!("--side is all, red or blue, not `{side}`")));
    let side = side.transpose()?;
    let text = read_text(&args.game).map_err(|e| format!("cannot read {}: {e}", args.game.display()))?;
    let mut game = read_game(&text, tracked_rules(Some(args.referee_turns)))
        .map_err(|e| format!("{}: {e}", args.game.display()))?;
    if game.source == GameSource::RefereeLog && game.moves.len() as u64 > u64::from(game.rules.max_plies) {
        // The referee played past the cap it was told: as the bot does, go on without one.
        game.rules = ucc_rules();
    }
    let perspective = side.unwrap_or(game.own_side.map_or(Perspective::All, Perspective::Side));
    let notes = match &args.net {
        Some(path) => Some(notes(&game, path, &args.device)?),
        None => None,
    };
    let title = args.game.file_name().map_or_else(|| "game".to_string(), |n| n.to_string_lossy().into_owned());
    let html =
        render(&game, &title, perspective, notes.as_deref()).map_err(|e| format!("{}: {e}", args.game.display()))?;
    write_new_file(&page, &html)?;
    writeln!(
        out,
        "{}: {} plies, {}; open it in a browser",
        page.display(),
        game.moves.len(),
        game.result.as_deref().unwrap_or("unfinished")
    )
    .map_err(output)
}

/// The network's view of every position before a ply, from its mover's
/// side.
fn notes(game: &Game, path: &std::path::Path, device: &str) -> Result<Vec<Notes>, CliError> {
    let device = stratego_model::device(device)?;
    let (net, meta) = stratego_model::load(path, None, None, &device)?;
    if meta.rules.piece_set != game.rules.piece_set {
        return Err(format!(
            "the game is played with the {} piece set, the network knows the {} set",
            game.rules.piece_set.name(),
            meta.rules.piece_set.name()
        )
        .into());
    }
    let mut states: Vec<State> = Vec::with_capacity(game.moves.len());
    frames(game, Perspective::All, |state| states.push(state.clone())).map_err(|e| e.to_string())?;
    let mut notes = Vec::with_capacity(states.len());
    for chunk in states.chunks(CHUNK) {
        let mut planes = Vec::with_capacity(chunk.len() * meta.layout.size());
        let mut legal = Vec::with_capacity(chunk.len() * NUM_ACTIONS);
        for state in chunk {
            planes.extend(observe(state, meta.layout));
            legal.extend(state.legal_action_mask());
        }
        let inferred = infer(&net, meta.layout, &planes, &legal, &device)?;
        for (b, state) in chunk.iter().enumerate() {
            let mover = state.to_move();
            let outcome = &inferred.outcome[b * 3..b * 3 + 3];
            let policy = &inferred.policy[b * NUM_ACTIONS..(b + 1) * NUM_ACTIONS];
            let mut ranked: Vec<(usize, f32)> = policy.iter().copied().enumerate().filter(|&(_, p)| p > 0.0).collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
            let top = ranked
                .iter()
                .take(TOP_MOVES)
                .filter_map(|&(a, p)| Move::from_action(a as u16, mover).map(|mv| (mv.to_string(), p)))
                .collect();
            // The likeliest type among those the mover's count allows (the
            // head is not held to the count; the probe scores it the same way).
            let prior = CountingPrior::new(state, mover);
            let belief = state
                .board()
                .pieces()
                .filter(|(_, p)| p.color != mover && !p.revealed)
                .filter_map(|(sq, piece)| {
                    let frame = sq.in_frame(mover).index();
                    let head = &inferred.belief[(b * Square::COUNT + frame) * PieceType::COUNT..][..PieceType::COUNT];
                    let allowed = prior.of(&piece);
                    let support: f32 = (0..PieceType::COUNT).filter(|&k| allowed[k] > 0.0).map(|k| head[k]).sum();
                    let best = (0..PieceType::COUNT)
                        .filter(|&k| allowed[k] > 0.0)
                        .max_by(|&a, &b| head[a].total_cmp(&head[b]))?;
                    let p = if support > 0.0 { head[best] / support } else { allowed[best] };
                    Some((sq.index(), PieceType::from_index(best)?.letter(), p))
                })
                .collect();
            notes.push(Notes { mover: side_name(mover), score: outcome[WIN] + outcome[DRAW] / 2.0, top, belief });
        }
    }
    Ok(notes)
}
