//! What the network players' tests share: scratch directories, tiny
//! checkpoints, the registry with the network entries, short matches.

#![allow(dead_code)]

use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use stratego_engine::{Board, Color, Layout, Move, Piece, PieceSet, PieceType, Position, Ruleset, Square, State};
use stratego_evaluation::arena::{play_match, MatchConfig, MatchResult};
use stratego_model::{device, save, CheckpointMeta, ModelConfig, StrategoNet};
use stratego_players::view::{public_history, InfoView};
use stratego_players::{AgentRng, PlayerFactory, Registry, SpecError};

/// Short games keep the debug build of burn fast: Barrage, capped at 40 plies.
pub fn short_barrage() -> Ruleset {
    Ruleset { max_plies: 40, ..Ruleset::barrage() }
}

/// A directory of this test process, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = stratego_testkit::scratch_dir(&format!("netplayer-{name}"));
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn tiny_net(layout: Layout, seed: u64) -> StrategoNet {
    let dev = device("cpu").unwrap();
    dev.seed(seed);
    StrategoNet::tiny(layout, &dev)
}

/// A fresh tiny checkpoint for `layout` and `rules` at `path`.
pub fn checkpoint(path: &Path, layout: Layout, rules: Ruleset) {
    let meta = CheckpointMeta { config: ModelConfig::preset("tiny").unwrap(), layout, rules, step: 0 };
    save(&tiny_net(layout, 3), &meta, path).unwrap();
}

/// The baselines and networks on the CPU device made here.
pub fn players() -> Registry {
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, Some(device("cpu").unwrap()));
    registry
}

pub fn build(text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    players().factory(text)
}

/// `games` games (swapped pairs) of `a` against `b`.
pub fn match_of(a: &dyn PlayerFactory, b: &dyn PlayerFactory, rules: Ruleset, games: u32, seed: u64) -> MatchResult {
    let config = MatchConfig::new(rules, games, seed);
    play_match(a, b, &config, &|_| {}).unwrap()
}

/// One swapped pair of `a` against `b`.
pub fn short_match(a: &dyn PlayerFactory, b: &dyn PlayerFactory, rules: Ruleset, seed: u64) -> MatchResult {
    match_of(a, b, rules, 2, seed)
}

/// The network players of `kind` (`net`, `netsearch`) with each of
/// `options` after `kind:PATH`, on a tiny checkpoint of each layout trained
/// under the short Barrage rules: the canonical spec names the player, a
/// pair of games against `random` (seat swapped) finishes, which is the
/// legality check (the arena refuses illegal moves), and the same seed
/// replays the same games. `also` checks what is the kind's own of each player.
pub fn play_legal_reproducible_pairs(kind: &str, options: &[&str], seed: u64, also: impl Fn(&dyn PlayerFactory)) {
    let scratch = Scratch::new(&format!("{kind}-pairs"));
    let rules = short_barrage();
    let random = build("random").unwrap();
    for layout in Layout::ALL {
        let path = scratch.0.join(format!("{layout}.safetensors"));
        checkpoint(&path, layout, rules);
        for options in options {
            let text = format!("{kind}:{}{options}", path.display());
            let player = build(&text).unwrap();
            assert_eq!(player.name(), text, "the canonical spec names the player");
            let first = short_match(player.as_ref(), random.as_ref(), rules, seed);
            assert_eq!(first.games.len(), 2);
            assert!(first.games.iter().any(|g| g.a_is_red) && first.games.iter().any(|g| !g.a_is_red));
            assert!(first.games.iter().all(|g| g.plies > 0));
            also(player.as_ref());
            let again = short_match(build(&text).unwrap().as_ref(), random.as_ref(), rules, seed);
            assert_eq!(transcript(&first), transcript(&again), "{text}: the same seed gives the same games");
        }
    }
}

/// Games as comparable text: every record and result.
pub fn transcript(result: &MatchResult) -> Vec<String> {
    result
        .games
        .iter()
        .map(|g| format!("{} {:?} {:?}", g.a_is_red, g.outcome, g.record.as_ref().map(|r| &r.moves)))
        .collect()
}

/// Trained on classic rules (registrations/cpu-continue.toml).
pub const TRAINED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../registrations/cpu-continue.safetensors");

/// A classic position with both armies: Blue's Captain has just taken a
/// Red Scout on e5 (so it is revealed) and stands next to Red's Marshal,
/// which takes it for nothing (no Blue piece can reach e5 and beat a
/// Marshal), and next to Red's Lieutenant, which would die attacking it.
pub fn free_captain() -> (State, Vec<stratego_players::view::PublicPly>) {
    let rules = Ruleset::classic();
    let mut board = Board::default();
    let at = |row, col| Square::from_row_col(row, col).unwrap();
    use PieceType::*;
    let fixed = [
        (Color::Red, Marshal, at(3, 4)),
        (Color::Red, Lieutenant, at(4, 5)),
        (Color::Red, Scout, at(4, 4)),
        (Color::Blue, Captain, at(5, 4)),
    ];
    for (color, kind, sq) in fixed {
        board.set(sq, Some(Piece::new(color, kind, sq)));
    }
    // The rest of each army fills its four home rows, the Flag and the
    // Bombs at the back.
    for (color, rows) in [(Color::Red, [0u8, 1, 2, 3]), (Color::Blue, [9, 8, 7, 6])] {
        let mut rest: Vec<PieceType> = Vec::new();
        for kind in [Flag, Bomb, Marshal, General, Colonel, Major, Captain, Lieutenant, Sergeant, Miner, Scout, Spy] {
            let placed = fixed.iter().filter(|f| f.0 == color && f.1 == kind).count() as u8;
            rest.extend(std::iter::repeat_n(kind, (PieceSet::Classic.count(kind) - placed) as usize));
        }
        let free: Vec<Square> =
            rows.iter().flat_map(|&r| (0..10).map(move |c| at(r, c))).filter(|&sq| board[sq].is_none()).collect();
        for (sq, kind) in free.into_iter().zip(rest) {
            board.set(sq, Some(Piece::new(color, kind, sq)));
        }
    }
    let position = Position { rules, board, to_move: Color::Red, ply: 0, battleless: 0 };
    let mut state = State::from_position(position).unwrap();
    state.apply_move(Move { from: at(3, 0), to: at(4, 0) }).unwrap();
    state.apply_move(Move { from: at(5, 4), to: at(4, 4) }).unwrap();
    let captain = state.board()[at(4, 4)].unwrap();
    assert!(captain.kind == Captain && captain.color == Color::Blue && captain.revealed);
    let history = public_history(&state);
    (state, history)
}

/// In [`free_captain`]: Red's Marshal takes the Captain for nothing.
pub fn take_the_captain() -> Move {
    let at = |row, col| Square::from_row_col(row, col).unwrap();
    Move { from: at(3, 4), to: at(4, 4) }
}

/// The player of `spec` (a network kind on the classic checkpoint) accepts
/// other caps of its piece set and refuses another piece set at start-up;
/// a Barrage view given to it anyway is an error that names `kind` and the
/// piece set, not a panic.
pub fn another_piece_set_is_refused(spec: &str, kind: &str) {
    let factory = build(spec).unwrap();
    assert!(factory.check_rules(&Ruleset::classic()).is_ok());
    assert!(factory.check_rules(&Ruleset { max_plies: 100, ..Ruleset::classic() }).is_ok());
    assert!(factory.check_rules(&Ruleset::barrage()).is_err());
    // The kind a caller acts on: the player plays the rules it was trained for.
    let refused = factory.check_rules(&Ruleset::barrage()).unwrap_err();
    assert!(
        matches!(refused, stratego_players::RulesRefused::OtherPieceSet { trained, .. } if Some(trained) == factory.trained_rules()),
        "{refused:?}"
    );
    let rules = Ruleset::barrage();
    let mut rng = stratego_players::AgentRng::seed_from_u64(2);
    let red = stratego_engine::Setup::random(rules.piece_set, &mut rng);
    let blue = stratego_engine::Setup::random(rules.piece_set, &mut rng);
    let state = State::from_setups(rules, &red, &blue).unwrap();
    let history = public_history(&state);
    let view = stratego_players::view::InfoView::new(&state, &history);
    let err = factory.make().choose_move(&view, &mut rng).unwrap_err().to_string();
    assert!(err.contains(kind) && err.contains("piece set"), "{err}");
}

/// Through the registry: `kind:{TRAINED},{options}` builds under its own
/// canonical name, and a missing checkpoint or a missing path is an error
/// that names the spec.
pub fn registry_names_and_load_errors(kind: &str, options: &str) {
    let spec = format!("{kind}:{TRAINED},{options}");
    assert_eq!(build(&spec).unwrap().name(), spec);
    let missing = format!("{kind}:/nonexistent/x.safetensors");
    let err = build(&missing).err().unwrap().to_string();
    assert!(err.contains(&format!("cannot load player `{missing}`")), "{err}");
    assert!(build(&format!("{kind}:")).is_err());
}

/// Each bad option of `kind`, given through the registry as a user gives it,
/// is an error that contains its needle.
pub fn bad_options_are_errors(kind: &str, cases: &[(&str, &str)]) {
    for (bad, needle) in cases {
        let err = build(&format!("{kind}:{TRAINED},{bad}")).err().unwrap().to_string();
        assert!(err.contains(needle), "{bad}: {err}");
    }
}

/// A game from random setups of `rules`' piece set, drawn from a generator
/// seeded with `seed`: Red's moves chosen by `red` from its view with that
/// generator, Blue's drawn from it at random, to the game's end or `plies`.
pub fn red_against_random(
    rules: Ruleset,
    seed: u64,
    plies: u32,
    mut red: impl FnMut(&InfoView<'_>, &mut AgentRng) -> Move,
) {
    let mut rng = AgentRng::seed_from_u64(seed);
    let red_setup = stratego_engine::Setup::random(rules.piece_set, &mut rng);
    let blue_setup = stratego_engine::Setup::random(rules.piece_set, &mut rng);
    let mut state = State::from_setups(rules, &red_setup, &blue_setup).unwrap();
    while !state.is_terminal() && state.ply() < plies {
        let mv = if state.to_move() == Color::Red {
            let history = public_history(&state);
            red(&InfoView::new(&state, &history), &mut rng)
        } else {
            state.sample_legal_move(&mut rng).unwrap()
        };
        state.apply_move(mv).unwrap();
    }
}
