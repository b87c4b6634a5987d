//! The blunders seen against outside bots (EVALUATION.md, "Outside-style
//! play"), each in a hand-built position under the referee's rules: the
//! expectimax player as it was (`scale=0,guard=off,informed=off`) makes the
//! mistake, the default one does not, at every fixed depth from 2 to 4.
//! Each position names the mechanism that fixes it, and the other two alone
//! do not (so a test fails if its mechanism is broken).

#[path = "support/runner.rs"]
mod runner;

use rand::SeedableRng;
use stratego_engine::{Color, Move, Ruleset, Square, State};
use stratego_players::view::{public_history, InfoView};
use stratego_players::AgentRng;

/// The player as it was before these mechanisms.
const OLD: &str = "scale=0,guard=off,informed=off";
/// Each mechanism alone, on top of the old player.
const SCALE_ONLY: &str = "guard=off,informed=off";
const GUARD_ONLY: &str = "scale=0,informed=off";
const INFORMED_ONLY: &str = "scale=0,guard=off";

fn position(board: &str) -> State {
    State::deserialize(&format!("{} {board} red 100 10", Ruleset::referee())).unwrap()
}

fn choice(state: &State, depth: u32, options: &str) -> Move {
    let spec = if options.is_empty() {
        format!("expectimax:depth={depth},nodes=1000000")
    } else {
        format!("expectimax:depth={depth},nodes=1000000,{options}")
    };
    let mut player = stratego_baselines::factory_of(&spec).unwrap().make();
    let history = public_history(state);
    player.choose_move(&InfoView::new(state, &history), &mut AgentRng::seed_from_u64(1)).unwrap()
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// Blunder 1: Red's revealed Marshal (b8) next to a never-moved Blue piece (b9). Of
/// Blue's ten never-moved pieces three are Bombs and one the Flag, and
/// Blue's revealed Marshal lives. On the material scale the attack's 1 in 10
/// chance of the Flag (`WIN / 10`) outweighs its 3 in 10 chance of losing
/// the Marshal, and the old player dives; on the result's scale the Marshal
/// is worth much of the game, and the player keeps it.
#[test]
fn an_officer_does_not_attack_a_never_moved_piece_that_may_be_a_bomb() {
    let state = position(
        "bfbel.nbe./.p....j.../.M^+......../.........m^+/..~~..~~../..~~..~~../....o+...../........../B...N..GC./FB....S..O",
    );
    let dive = Move::new(sq("b8"), sq("b9"));
    for depth in 2..=4 {
        assert_eq!(choice(&state, depth, OLD), dive, "depth {depth}: the old player dives");
        assert_ne!(choice(&state, depth, ""), dive, "depth {depth}");
        assert_ne!(choice(&state, depth, SCALE_ONLY), dive, "depth {depth}: the scale alone fixes it");
        assert_eq!(choice(&state, depth, GUARD_ONLY), dive, "depth {depth}");
        assert_eq!(choice(&state, depth, INFORMED_ONLY), dive, "depth {depth}");
    }
}

/// Blunder 2: Red's revealed Marshal (e7) next to a moved hidden Blue piece (e8)
/// that is the Spy with probability 1/5 (Blue's moved pieces are its Spy,
/// General, Colonel, Major and Captain). Red's General can take Blue's
/// revealed Colonel (h4). On average Blue's attack on the Marshal loses,
/// so a search that lets Blue choose before its piece's type is drawn
/// never sees it made, and the old player takes the Colonel, leaving the
/// Marshal where the Spy can strike. Blue knows which piece is its Spy: the
/// informed search deals with the Marshal first (it takes the suspect,
/// which it beats whatever it is).
#[test]
fn a_revealed_marshal_does_not_stay_next_to_a_piece_that_may_be_the_spy() {
    let state = position(
        "bfb......./m+.......g+./....s+....c+/j+...M^+...../..~~..~~../..~~..~~../.......c^+../.......G../B...N....O/FB.......O",
    );
    let marshal = sq("e7");
    for depth in 2..=4 {
        assert_ne!(choice(&state, depth, OLD).from, marshal, "depth {depth}: the old player leaves the Marshal");
        assert_eq!(choice(&state, depth, "").from, marshal, "depth {depth}");
        assert_eq!(choice(&state, depth, INFORMED_ONLY).from, marshal, "depth {depth}: informed alone fixes it");
        assert_ne!(choice(&state, depth, SCALE_ONLY).from, marshal, "depth {depth}");
        assert_ne!(choice(&state, depth, GUARD_ONLY).from, marshal, "depth {depth}");
    }
}

/// Blunder 3: Blue is down to its Flag, two Bombs and two moved hidden pieces, a
/// Miner and a Spy; the one on c2 is three moves from Red's Flag (a1),
/// bombed in on b1 and a2. Red is far ahead. The old player takes a
/// revealed Major or runs a Scout at Blue's last pieces; against a Blue
/// whose Miner walks to the Flag it loses the game. With the Flag's guard
/// the player takes the suspect at once and wins.
#[test]
fn a_miner_breaking_through_to_the_flag_is_stopped() {
    let state = position(
        "fb......../b........s+/........../........j^+./..~~..~~G./..~~..~~../....M...../.........O/B.n+P....../FB...C....",
    );
    let take_the_suspect = Move::new(sq("d2"), sq("c2"));
    for depth in 2..=4 {
        assert_ne!(choice(&state, depth, OLD), take_the_suspect, "depth {depth}");
        assert_eq!(choice(&state, depth, ""), take_the_suspect, "depth {depth}");
        assert_eq!(runner_game(&state, depth, OLD), Some(Color::Blue), "depth {depth}: the old player loses its Flag");
        assert_eq!(runner_game(&state, depth, ""), Some(Color::Red), "depth {depth}");
    }
}

/// Plays Red (the spec's player) from `state` against the Miner runner
/// (`support/runner.rs`); the winner after at most 40 plies.
fn runner_game(state: &State, depth: u32, options: &str) -> Option<Color> {
    runner::runner_game(state, 40, |s, _| choice(s, depth, options))
}

/// Blunder 4, from a real loss (`celsius`, through the UCC referee, as Red,
/// EVALUATION.md "The outside field"): far ahead, Red hunts Blue's last
/// Scouts with its Marshal while Blue's Miner, known for 65 plies, walks
/// from b5 through the Bombs around Red's Flag on c1 and takes it 13 plies
/// later. The Flag's guard as it was halved a known Miner's threat for
/// every move it still needed (3 % five moves away) and ignored our
/// pieces; with `defend=on` a known attacker's threat fades slowly and a
/// defender that can reach it in time lowers it, so the search sends one.
#[test]
fn a_known_miner_walking_through_our_bombs_is_met() {
    let state = position(
        "fb..b^o.ob./bb...M^+..G^+./........../b^...P+...../l^+.~~..~~.L+/.n^+~~..~~../......P.E+./....N+N+.E../..B^B..NBL./BBFB......",
    );
    for depth in 2..=3 {
        assert_eq!(runner_game(&state, depth, ""), Some(Color::Blue), "depth {depth}: the Flag falls");
        assert_ne!(runner_game(&state, depth, "defend=on"), Some(Color::Blue), "depth {depth}: the Flag holds");
    }
}

/// Blunder 5, from a real loss (`celsius`, through the UCC referee, as Red):
/// Red's last movable piece, its Marshal (i7), against Blue's Miner (b2),
/// known since it took a Bomb, on its way along the second row to Red's
/// Flag in the corner (j1), which has no Bomb left beside it. Red's Marshal
/// followed the Miner instead of standing where it must pass, and the Flag
/// fell 22 plies later. With `defend=on` the Marshal covers both squares next
/// to the Flag by the time the Miner can reach them.
#[test]
fn a_lone_defender_guards_the_flag_where_the_miner_must_pass() {
    let state = position(
        "fb.sb^.eobn/bb^......../........../........M^+./..~~..~~../..~~..~~../........../.....B^..../.n^+....B.../.........F",
    );
    for depth in 2..=3 {
        assert_eq!(runner_game(&state, depth, ""), Some(Color::Blue), "depth {depth}: the Flag falls");
        assert_ne!(runner_game(&state, depth, "defend=on"), Some(Color::Blue), "depth {depth}: the Flag holds");
    }
}
