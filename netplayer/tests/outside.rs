//! Positions from real losses against the outside field (through the UCC
//! referee: EVALUATION.md, "The outside field"), in which a network player
//! as it plays today loses its Flag or an officer, and with the expectimax
//! veto (`veto=M`) does not: every network player kind (`netexpectimax`,
//! which is the veto's own search, with the Flag's guard as it was against
//! `defend=on`). The games are those of the referee's
//! logs in `tests/fixtures/ucc`, replayed to the ply where the loss began.

mod common;
use common::*;

#[path = "../../baselines/tests/support/runner.rs"]
mod runner;

use rand::SeedableRng;
use stratego_engine::{Color, Move, Ruleset, State};
use stratego_players::view::{public_history, InfoView};
use stratego_players::AgentRng;

const NETWORK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../registrations/cpu-4h-spar.safetensors");

/// The game of a real referee log (`tests/fixtures/ucc`) before ply `ply`
/// (1-based), under the referee's rules, with its whole history (a network
/// player replays the game from the setups).
fn from_log(name: &str, ply: usize) -> State {
    let path = format!("{}/../tests/fixtures/ucc/{name}", env!("CARGO_MANIFEST_DIR"));
    let log = stratego_ucc::protocol::RefereeLog::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut state = State::from_setups(Ruleset::referee(), &log.red, &log.blue).unwrap();
    for (mv, _) in &log.moves[..ply - 1] {
        state.apply_move(*mv).unwrap();
    }
    state
}

fn choice(state: &State, spec: &str, seed: u64) -> Move {
    let mut player = build(spec).unwrap().make();
    let history = public_history(state);
    player.choose_move(&InfoView::new(state, &history), &mut AgentRng::seed_from_u64(seed)).unwrap()
}

/// Red (`spec`) from `state` against the Miner runner; the winner after at
/// most 16 plies (the Miner needs 10).
fn runner_game(state: &State, spec: &str) -> Option<Color> {
    runner::runner_game(state, 16, |s, ply| choice(s, spec, ply as u64))
}

/// The veto's margin here: the defence is worth about a fifth of a won
/// game in the search's leaves, and the policy's favourites among moves
/// within 0.1 of the best still let the Miner through.
const VETO: &str = "veto=0.02";

/// The rollout search's options the registered player uses.
const ROLLOUT: &str = "width=4,worlds=8,horizon=8,margin=0.1";

/// Every network kind behind the expectimax veto: `veto` (e.g. `veto=0.02`)
/// for the three with a veto, `margin` for netexpectimax's own, with the
/// Flag's defenders.
fn behind_the_veto(veto: &str, margin: &str) -> [String; 4] {
    [
        format!("net:{NETWORK},{veto}"),
        format!("netsearch:{NETWORK},{veto}"),
        format!("netrollout:{NETWORK},{ROLLOUT},{veto}"),
        format!("netexpectimax:{NETWORK},{margin},defend=on"),
    ]
}

#[test]
fn a_known_miner_walking_through_our_bombs_is_met_by_every_network_player() {
    // `celsius`, ply 283: far ahead, Red hunts with its officers while
    // Blue's Miner, known for 65 plies, walks from b5 through the Bombs
    // around Red's Flag on c1; it took the Flag at ply 296.
    let state = from_log("celsius-known-miner.log", 283);
    for (today, new) in [
        (format!("net:{NETWORK}"), format!("net:{NETWORK},{VETO}")),
        (format!("netsearch:{NETWORK}"), format!("netsearch:{NETWORK},{VETO}")),
        (format!("netrollout:{NETWORK},{ROLLOUT}"), format!("netrollout:{NETWORK},{ROLLOUT},{VETO}")),
        // The veto's own search, with the Flag's guard as it was.
        (format!("netexpectimax:{NETWORK},margin=0.02"), format!("netexpectimax:{NETWORK},margin=0.02,defend=on")),
    ] {
        assert_eq!(runner_game(&state, &today), Some(Color::Blue), "{today}: the Flag falls");
        assert_ne!(runner_game(&state, &new), Some(Color::Blue), "{new}: the Flag holds");
    }
}

#[test]
fn an_officer_does_not_dive_into_a_never_moved_piece() {
    // `celsius`, ply 31: Red's Marshal on a6 next to a never-moved Blue
    // piece on a7 (a Bomb); netrollout attacked it and lost the Marshal.
    let state = from_log("celsius-marshal-on-bomb.log", 31);
    let dive = Move::new("a6".parse().unwrap(), "a7".parse().unwrap());
    assert_eq!(choice(&state, &format!("netrollout:{NETWORK},{ROLLOUT}"), 1), dive, "today's player dives");
    for spec in behind_the_veto(VETO, "margin=0.02") {
        for seed in 0..3 {
            assert_ne!(choice(&state, &spec, seed), dive, "{spec}, seed {seed}");
        }
    }
}

#[test]
fn a_revealed_marshal_does_not_step_next_to_a_piece_that_walked_up_to_it() {
    // `asmodeus`, ply 148: Blue's Marshal, revealed on a5, and a Red piece
    // (the Spy) that walked five squares straight at it and stands on b4.
    // netrollout behind the veto at 0.005 played a5-b5 and lost the Marshal
    // to the Spy next ply: the veto's search had valued the move by the
    // upper bound a root search gives every move below the best (400
    // points under it, inside the 500-point margin), not by its value.
    let state = from_log("asmodeus-spy-walks-to-marshal.log", 148);
    let beside = Move::new("a5".parse().unwrap(), "b5".parse().unwrap());
    let margin = 0.005 * stratego_baselines::heuristic::WIN;
    let view_history = public_history(&state);
    let view = InfoView::new(&state, &view_history);
    let mut bounds_kept = 0;
    for (seed, depth) in [(0, 2), (1, 2), (2, 2), (0, 3), (1, 3), (2, 3)] {
        let root = stratego_players::determinize::determinize(&view, &mut AgentRng::seed_from_u64(seed));
        let search = || {
            let config = stratego_baselines::expectimax::ExpectimaxConfig {
                defend: true,
                depth,
                nodes: u64::MAX,
                ..Default::default()
            };
            stratego_baselines::expectimax::ExpectimaxPlayer::new(config, stratego_players::SetupPolicy::Random)
        };
        let within = |values: &[(Move, f64)]| {
            let best = values.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
            values.iter().any(|&(mv, v)| mv == beside && v >= best - margin)
        };
        bounds_kept += within(&search().root_values(&root, &view.legal_moves)) as u32;
        assert!(!within(&search().root_values_within(&root, &view.legal_moves, margin)), "seed {seed}, depth {depth}");
    }
    assert!(bounds_kept >= 1, "the root's usual window hides the Spy's strike from the margin");
    for spec in behind_the_veto("veto=0.005", "margin=0.005") {
        for seed in 0..3 {
            assert_ne!(choice(&state, &spec, seed), beside, "{spec}, seed {seed}");
        }
    }
}
