//! Rule-by-rule integration tests of the Stratego engine.
//!
//! Every test builds a small hand-made position (one-line position text, see
//! `position.rs`) whose answer is known, plays a few moves and checks the
//! engine's verdict: exact legal-move sets, battle results, outcomes and the
//! ply on which they happen, and typed errors for bad input.
//!
//! Sections:
//!  1. Scout runs and strikes
//!  2. Blocked paths and immovable pieces
//!  3. Battles
//!  4. Flag capture
//!  5. No legal move
//!  6. Two-square rule
//!  7. Chasing (more-squares) rule
//!  8. Ply and battleless caps, order of the end checks
//!  9. Action ids
//! 10. Bad input is a typed error

use stratego_engine::{
    BattleResult, Color, EndReason, Error, Move, Outcome, Piece, PieceSet, PieceType, Position, Refusal, Ruleset,
    Setup, SetupError, Square, State, NUM_ACTIONS,
};

// ---- helpers ---------------------------------------------------------------

/// A board text from a list of (square, token): the token is a piece letter
/// (upper case Red, lower case Blue) optionally followed by `^` (revealed) and
/// `+` (moved). Unlisted squares are `.` or, on lakes, `~`. The token is
/// written verbatim, so tests of bad input can also put a piece (or `.`) on a
/// lake.
fn board(pieces: &[(&str, &str)]) -> String {
    let mut cells: Vec<Vec<String>> = (0..10u8)
        .map(|row| {
            (0..10u8)
                .map(|col| {
                    let sq = Square::from_row_col(row, col).unwrap();
                    if sq.is_lake() { "~" } else { "." }.to_string()
                })
                .collect()
        })
        .collect();
    for &(name, token) in pieces {
        let sq: Square = name.parse().unwrap_or_else(|e| panic!("bad square in test: {e}"));
        cells[sq.row() as usize][sq.col() as usize] = token.to_string();
    }
    (0..10).rev().map(|row| cells[row].concat()).collect::<Vec<_>>().join("/")
}

/// A full position text.
fn text(rules: &Ruleset, pieces: &[(&str, &str)], side: &str, ply: u32, battleless: u32) -> String {
    format!("{} {} {side} {ply} {battleless}", rules.canonical(), board(pieces))
}

/// A state from a position under `rules` with the given counters.
fn state_at(rules: &Ruleset, pieces: &[(&str, &str)], side: &str, ply: u32, battleless: u32) -> State {
    let t = text(rules, pieces, side, ply, battleless);
    State::deserialize(&t).unwrap_or_else(|e| panic!("test position must parse: {e}\n{t}"))
}

/// A state under `rules` at ply 0.
fn state_with(rules: &Ruleset, pieces: &[(&str, &str)], side: &str) -> State {
    state_at(rules, pieces, side, 0, 0)
}

/// A state under the classic ruleset at ply 0.
fn state(pieces: &[(&str, &str)], side: &str) -> State {
    state_with(&Ruleset::classic(), pieces, side)
}

fn mv(text: &str) -> Move {
    text.parse().unwrap_or_else(|e| panic!("bad move in test: {e}"))
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// Plays moves that must be legal.
fn play(state: &mut State, moves: &[&str]) {
    for m in moves {
        state.apply_move(mv(m)).unwrap_or_else(|e| panic!("{m} must be legal: {e}\n{state}"));
    }
}

fn sorted(moves: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = moves.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// All legal moves, as sorted strings.
fn legal(state: &State) -> Vec<String> {
    let mut v: Vec<String> = state.legal_moves().iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

/// The legal moves starting on `from`, as sorted strings.
fn legal_from(state: &State, from: &str) -> Vec<String> {
    let from = sq(from);
    let mut v: Vec<String> = state.legal_moves().iter().filter(|m| m.from == from).map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn at(state: &State, name: &str) -> Option<Piece> {
    state.board()[sq(name)]
}

/// Asserts that `m` is refused for `reason` (by `refusal`, `is_legal` and
/// `apply_move`, whose typed error names the move and the reason) and leaves
/// the state as it was.
fn assert_refused(state: &mut State, m: &str, reason: Refusal) -> Error {
    let before = state.clone();
    assert_eq!(state.refusal(mv(m)), Some(reason), "{m}\n{state}");
    assert!(!state.is_legal(mv(m)), "{m}");
    let err = state.apply_move(mv(m)).expect_err(&format!("{m} must be refused"));
    assert_eq!(*state, before, "a refused move must not change the state");
    assert_eq!(err, Error::IllegalMove { mv: mv(m), reason }, "{m}");
    assert_eq!(err.to_string(), format!("illegal move {m}: {reason}"));
    err
}

/// Asserts the game is over with `outcome` and that nothing can be played.
fn assert_over(state: &State, outcome: Outcome) {
    assert_eq!(state.outcome(), Some(outcome), "\n{state}");
    assert!(state.is_terminal());
    assert_eq!(state.current_player(), None);
    assert!(state.legal_moves().is_empty());
    assert!(state.legal_actions().is_empty());
    assert_eq!(state.returns(), outcome.returns());
    let mut copy = state.clone();
    assert_eq!(copy.refusal(mv("a1-a2")), Some(Refusal::GameOver));
    assert!(!copy.is_legal(mv("a1-a2")));
    assert_eq!(copy.apply_move(mv("a1-a2")), Err(Error::GameOver));
    assert_eq!(copy.apply_action(0), Err(Error::GameOver));
}

fn win(winner: Color, reason: EndReason) -> Outcome {
    Outcome { winner: Some(winner), reason }
}

fn draw(reason: EndReason) -> Outcome {
    Outcome { winner: None, reason }
}

/// Blue moves that never interfere with anything on ranks 1-8: two Blue
/// pieces on a10 and c10 step down and back up in turn. Consecutive Blue
/// moves always use different pieces, so Blue's own two-square run never
/// grows. Use together with `BLUE_FILLERS`.
const BLUE_FILLER_MOVES: [&str; 4] = ["a10-a9", "c10-c9", "a9-a10", "c9-c10"];
const BLUE_FILLERS: [(&str, &str); 3] = [("a10", "e"), ("c10", "e"), ("j10", "f")];

fn blue_filler(i: usize) -> &'static str {
    BLUE_FILLER_MOVES[i % BLUE_FILLER_MOVES.len()]
}

/// Plays Red's moves, each answered by a Blue filler move.
fn red_moves_with_fillers(state: &mut State, red: &[&str], filler_start: usize) -> usize {
    let mut k = filler_start;
    for m in red {
        play(state, &[m, blue_filler(k)]);
        k += 1;
    }
    k
}

fn with(
    base: &[(&'static str, &'static str)],
    extra: &[(&'static str, &'static str)],
) -> Vec<(&'static str, &'static str)> {
    base.iter().chain(extra).copied().collect()
}

// ---- 1. Scout runs and strikes ---------------------------------------------

/// A Scout lists every empty square along each line up to the first piece,
/// strikes the first enemy reached (never one behind it) and never lands on
/// its own piece.
#[test]
fn scout_runs_to_the_first_piece_and_strikes_only_it() {
    let s = state(
        &[
            ("a1", "F"),
            ("e2", "O"),
            ("b2", "B"), // own piece: stops the run west after c2
            ("h2", "n"), // enemy: struck, nothing behind it
            ("e7", "s"), // first enemy up the file
            ("e8", "m"), // behind it: out of reach
            ("j10", "f"),
        ],
        "red",
    );
    assert_eq!(
        legal(&s),
        sorted(&["e2-e1", "e2-e3", "e2-e4", "e2-e5", "e2-e6", "e2-e7", "e2-d2", "e2-c2", "e2-f2", "e2-g2", "e2-h2"])
    );
}

/// Lakes stop a Scout like the board edge: it cannot run into or across them.
#[test]
fn scout_runs_stop_at_lakes() {
    let s = state(&[("a1", "F"), ("e5", "O"), ("c4", "O"), ("j10", "f")], "red");
    // e5: d5 west is a lake; east only f5 before the lake g5; the e-file is open.
    assert_eq!(
        legal_from(&s, "e5"),
        sorted(&["e5-f5", "e5-e6", "e5-e7", "e5-e8", "e5-e9", "e5-e10", "e5-e4", "e5-e3", "e5-e2", "e5-e1"])
    );
    // c4: the lake c5 is right above it; d4 is free, and e4 too.
    assert_eq!(
        legal_from(&s, "c4"),
        sorted(&[
            "c4-c3", "c4-c2", "c4-c1", "c4-b4", "c4-a4", "c4-d4", "c4-e4", "c4-f4", "c4-g4", "c4-h4", "c4-i4", "c4-j4",
        ])
    );
}

/// A Scout that runs two or more squares is revealed; a one-square step
/// keeps it hidden. Either way it is marked as moved and keeps its identity.
#[test]
fn scout_run_of_two_or_more_reveals_it_but_a_step_does_not() {
    let base = [("a1", "F"), ("e2", "O"), ("j10", "f"), ("j9", "e")];
    let mut run = state(&base, "red");
    play(&mut run, &["e2-e4"]);
    let p = at(&run, "e4").unwrap();
    assert_eq!((p.kind, p.color, p.revealed, p.moved, p.origin), (PieceType::Scout, Color::Red, true, true, sq("e2")));
    assert!(run.history()[0].scout_run);
    assert!(at(&run, "e2").is_none());

    let mut step = state(&base, "red");
    play(&mut step, &["e2-e3"]);
    let p = at(&step, "e3").unwrap();
    assert_eq!((p.kind, p.revealed, p.moved, p.origin), (PieceType::Scout, false, true, sq("e2")));
    assert!(!step.history()[0].scout_run);
}

/// A Scout's strike from a distance is a battle on the struck square.
#[test]
fn scout_strike_from_a_distance_fights_the_first_enemy() {
    let mut s = state(&[("a1", "F"), ("e2", "O"), ("e7", "s"), ("e8", "m"), ("j10", "f")], "red");
    play(&mut s, &["e2-e7"]);
    let p = at(&s, "e7").unwrap();
    assert_eq!((p.kind, p.color, p.revealed), (PieceType::Scout, Color::Red, true));
    assert_eq!(at(&s, "e8").unwrap().kind, PieceType::Marshal, "the piece behind is untouched");
    let b = s.history()[0].battle.expect("a strike is a battle");
    assert_eq!((b.defender, b.result), (PieceType::Spy, BattleResult::AttackerWins));
    assert_eq!(s.deaths().len(), 1);
    assert_eq!((s.deaths()[0].piece.kind, s.deaths()[0].square), (PieceType::Spy, sq("e7")));
}

// ---- 2. Blocked paths and immovable pieces ---------------------------------

/// Non-Scouts step one square; never into a lake, off the board or onto an
/// own piece; Bombs and the Flag have no moves at all.
#[test]
fn one_step_pieces_lakes_edges_own_pieces_and_immovables() {
    let mut s = state(
        &[
            ("a1", "F"),
            ("e4", "L"), // own bomb below, enemy east, free north and west
            ("e3", "B"),
            ("f4", "e"),
            ("c4", "J"), // lake north, own bomb west
            ("b4", "B"),
            ("j1", "G"), // corner
            ("j10", "f"),
        ],
        "red",
    );
    assert_eq!(legal(&s), sorted(&["e4-e5", "e4-d4", "e4-f4", "c4-c3", "c4-d4", "j1-j2", "j1-i1"]));
    let flag = Refusal::Immovable { piece: PieceType::Flag };
    let bomb = Refusal::Immovable { piece: PieceType::Bomb };
    for (bad, why, reason) in [
        ("a1-a2", "the flag never moves", flag),
        ("a1-b1", "the flag never moves", flag),
        ("b4-a4", "a bomb never moves", bomb),
        ("e3-d3", "a bomb never moves", bomb),
        ("c4-c5", "into a lake", Refusal::Lake { square: sq("c5") }),
        ("c4-c6", "across a lake", Refusal::Lake { square: sq("c6") }),
        ("e4-e6", "two squares", Refusal::Unreachable),
        ("e4-e3", "onto an own piece", Refusal::OwnPiece { square: sq("e3") }),
        ("e4-f5", "not on a line", Refusal::Unreachable),
        ("e4-e4", "nowhere", Refusal::Unreachable),
    ] {
        let err = assert_refused(&mut s, bad, reason);
        assert!(matches!(err, Error::IllegalMove { .. }), "{bad} ({why}): {err:?}");
    }
}

/// The refusals name the reason; a Bomb's or Flag's move is an error, not a panic.
#[test]
fn moving_a_bomb_or_the_flag_is_an_error() {
    let mut s = state(&[("a1", "F"), ("a2", "B"), ("b1", "O"), ("j10", "f"), ("j9", "b"), ("i10", "e")], "red");
    assert!(legal_from(&s, "a1").is_empty());
    assert!(legal_from(&s, "a2").is_empty());
    let (flag, bomb) = (Refusal::Immovable { piece: PieceType::Flag }, Refusal::Immovable { piece: PieceType::Bomb });
    assert!(matches!(assert_refused(&mut s, "a1-a2", flag), Error::IllegalMove { .. }));
    assert!(matches!(assert_refused(&mut s, "a2-a3", bomb), Error::IllegalMove { .. }));
    let mut blue = state(&[("a1", "F"), ("a2", "B"), ("b1", "O"), ("j10", "f"), ("j9", "b"), ("i10", "e")], "blue");
    assert!(legal_from(&blue, "j10").is_empty());
    assert!(legal_from(&blue, "j9").is_empty());
    assert_eq!(legal(&blue), sorted(&["i10-h10", "i10-i9"]));
    assert_refused(&mut blue, "j9-j8", bomb);
    assert_refused(&mut blue, "j10-j9", flag);
}

// ---- 3. Battles ------------------------------------------------------------

/// The far-away pieces every battle position adds so that both sides can
/// still move after the battle.
const BATTLE_BASE: [(&str, &str); 4] = [("a1", "F"), ("j1", "E"), ("a10", "f"), ("j10", "e")];

/// Red attacks e5 from e4 (or Blue attacks e4 from e5) and returns the state.
fn fight(red: &'static str, blue: &'static str, side: &str) -> State {
    let pieces = with(&BATTLE_BASE, &[("e4", red), ("e5", blue)]);
    let mut s = state_at(&Ruleset::classic(), &pieces, side, 10, 5);
    play(&mut s, &[if side == "red" { "e4-e5" } else { "e5-e4" }]);
    assert_eq!((s.ply(), s.battleless()), (11, 0), "a battle resets the battleless count");
    assert_eq!(s.outcome(), None);
    s
}

/// Checks what `fight(.., side)` left in `s`: the battle's `result`; the
/// attacker's square empty; on the battle square the `survivor` (type and
/// colour), revealed, and moved exactly when it is the attacker; and the
/// `dead` (type and colour), each recorded on the battle square at ply 11,
/// as attacker or defender, against the other fighter (the survivor, or
/// the other dead piece).
fn assert_battle(
    s: &State,
    side: &str,
    survivor: Option<(PieceType, Color)>,
    dead: &[(PieceType, Color)],
    result: BattleResult,
) {
    let (from, to, attacker) = if side == "red" { ("e4", "e5", Color::Red) } else { ("e5", "e4", Color::Blue) };
    assert_eq!(s.history()[0].battle.unwrap().result, result, "\n{s}");
    assert!(at(s, from).is_none(), "the attacker has left {from}\n{s}");
    let stands = at(s, to).map(|p| (p.kind, p.color, p.revealed, p.moved));
    assert_eq!(stands, survivor.map(|(kind, color)| (kind, color, true, color == attacker)), "on {to}\n{s}");
    let other = |color: Color| survivor.into_iter().chain(dead.iter().copied()).find(|f| f.1 != color).unwrap().0;
    let mut expected: Vec<_> =
        dead.iter().map(|&(kind, color)| (kind, color, sq(to), 11, color == attacker, other(color))).collect();
    let mut deaths: Vec<_> =
        s.deaths().iter().map(|d| (d.piece.kind, d.piece.color, d.square, d.ply, d.as_attacker, d.opponent)).collect();
    expected.sort();
    deaths.sort();
    assert_eq!(deaths, expected, "\n{s}");
}

/// Battles by rank (`fight`: Red attacks e5 from e4, or Blue e4 from e5).
#[test]
fn battles_follow_the_ranks() {
    use BattleResult::{AttackerWins, BothRemoved, DefenderWins};
    use Color::{Blue, Red};
    use PieceType::{Bomb, Colonel, General, Lieutenant, Marshal, Miner, Scout, Sergeant, Spy};
    for (red, blue, side, survivor, dead, result) in [
        // The Spy wins when it attacks the Marshal.
        ("S", "m", "red", Some((Spy, Red)), &[(Marshal, Blue)][..], AttackerWins),
        // The Marshal wins when it attacks the Spy (the Spy only wins as
        // attacker), whichever side attacks.
        ("M", "s", "red", Some((Marshal, Red)), &[(Spy, Blue)], AttackerWins),
        ("S", "m", "blue", Some((Marshal, Blue)), &[(Spy, Red)], AttackerWins),
        // A Miner defuses a Bomb and moves onto its square.
        ("N", "b", "red", Some((Miner, Red)), &[(Bomb, Blue)], AttackerWins),
        // Any other piece attacking a Bomb dies; the Bomb stays, revealed and unmoved.
        ("M", "b", "red", Some((Bomb, Blue)), &[(Marshal, Red)], DefenderWins),
        ("G", "b", "red", Some((Bomb, Blue)), &[(General, Red)], DefenderWins),
        ("O", "b", "red", Some((Bomb, Blue)), &[(Scout, Red)], DefenderWins),
        ("S", "b", "red", Some((Bomb, Blue)), &[(Spy, Red)], DefenderWins),
        // Equal ranks: both pieces are removed, and both deaths are recorded.
        ("C", "c", "red", None, &[(Colonel, Red), (Colonel, Blue)], BothRemoved),
        // The higher rank wins, whoever attacks; the survivor is revealed
        // (and unmoved if it defended).
        ("G", "c", "red", Some((General, Red)), &[(Colonel, Blue)], AttackerWins),
        ("E", "l", "red", Some((Lieutenant, Blue)), &[(Sergeant, Red)], DefenderWins),
        // A Scout attacking anything but the Spy (or the Flag) loses.
        ("O", "n", "red", Some((Miner, Blue)), &[(Scout, Red)], DefenderWins),
    ] {
        assert_battle(&fight(red, blue, side), side, survivor, dead, result);
    }
}

/// The battle record remembers who was known before the fight.
#[test]
fn battle_record_remembers_prior_revelation() {
    let s = fight("G^+", "c", "red");
    let b = s.history()[0].battle.unwrap();
    assert!(b.attacker_was_revealed && !b.defender_was_revealed);
    let d = s.deaths()[0];
    assert_eq!((d.piece.kind, d.opponent, d.opponent_was_revealed), (PieceType::Colonel, PieceType::General, true));
}

// ---- 4. Flag capture -------------------------------------------------------

/// Taking the Flag ends the game at once: the capturer wins.
#[test]
fn red_capturing_the_flag_wins() {
    let mut s = state(&[("a1", "F"), ("e4", "S"), ("e5", "f"), ("j10", "m"), ("j1", "E")], "red");
    play(&mut s, &["e4-e5"]);
    assert_over(&s, win(Color::Red, EndReason::FlagCaptured));
    assert_eq!(s.returns(), [1.0, -1.0]);
    assert_eq!(s.ply(), 1);
}

#[test]
fn blue_capturing_the_flag_wins() {
    let mut s = state(&[("a1", "F"), ("j1", "M"), ("a2", "o"), ("j10", "f"), ("j9", "m")], "blue");
    play(&mut s, &["a2-a1"]);
    assert_over(&s, win(Color::Blue, EndReason::FlagCaptured));
    assert_eq!(s.returns(), [-1.0, 1.0]);
}

/// A Scout may take the Flag from a distance.
#[test]
fn scout_strike_on_the_flag_wins() {
    let mut s = state(&[("a1", "F"), ("e1", "O"), ("e9", "f"), ("j10", "m")], "red");
    play(&mut s, &["e1-e9"]);
    assert_over(&s, win(Color::Red, EndReason::FlagCaptured));
}

// ---- 5. No legal move ------------------------------------------------------

/// The check is on the side to move after each ply: Red's last movable piece
/// dies on Blue's Bomb, but Blue (to move) can move, so the game goes on;
/// after Blue's ply Red is to move without a move and loses.
#[test]
fn side_to_move_without_moves_loses_after_the_opponents_ply() {
    let mut s = state(&[("a1", "F"), ("e4", "M"), ("e5", "b"), ("j10", "f"), ("j9", "l")], "red");
    play(&mut s, &["e4-e5"]);
    assert_eq!(s.outcome(), None, "Blue is to move and can move");
    assert_eq!(s.current_player(), Some(Color::Blue));
    assert_eq!(legal(&s), sorted(&["j9-j8", "j9-i9"]));
    play(&mut s, &["j9-i9"]);
    assert_over(&s, win(Color::Blue, EndReason::NoLegalMove));
    assert_eq!(s.ply(), 2);
    assert_eq!(s.returns(), [-1.0, 1.0]);
}

/// Blue's ply kills Red's last movable piece: Red, now to move, loses at once.
#[test]
fn losing_the_last_movable_piece_to_an_attack_loses_immediately() {
    let mut s = state(&[("a1", "F"), ("b1", "B"), ("e4", "E"), ("e5", "m"), ("j10", "f")], "blue");
    play(&mut s, &["e5-e4"]);
    assert_over(&s, win(Color::Blue, EndReason::NoLegalMove));
    assert_eq!(s.ply(), 1);
}

/// Red's last mover dies on a Bomb and Blue has only its Bomb and Flag:
/// neither side can move, a draw.
#[test]
fn neither_side_can_move_is_a_draw() {
    let mut s = state(&[("a1", "F"), ("e4", "M"), ("e5", "b"), ("j10", "f")], "red");
    play(&mut s, &["e4-e5"]);
    assert_over(&s, draw(EndReason::NeitherCanMove));
    assert_eq!(s.returns(), [0.0, 0.0]);
    // The same through a tie of the last two movable pieces.
    let mut s = state(&[("a1", "F"), ("e4", "C"), ("e5", "c"), ("j10", "f")], "red");
    play(&mut s, &["e4-e5"]);
    assert_over(&s, draw(EndReason::NeitherCanMove));
}

/// A root whose side to move has no move is terminal at once: only the Flag
/// and Bombs, or a movable piece walled in by own Bombs and a lake.
#[test]
fn root_without_moves_is_terminal() {
    let s = state(&[("a1", "F"), ("b1", "B"), ("j10", "f"), ("j9", "l")], "red");
    assert_over(&s, win(Color::Blue, EndReason::NoLegalMove));
    assert_eq!(s.ply(), 0);
    // d4: lake d5 north, own Bombs west, east and south.
    let s = state(&[("a1", "F"), ("d4", "M"), ("c4", "B"), ("e4", "B"), ("d3", "B"), ("j10", "f"), ("j9", "l")], "red");
    assert_over(&s, win(Color::Blue, EndReason::NoLegalMove));
    // The same for Blue to move.
    let s = state(&[("a1", "F"), ("a2", "L"), ("j10", "f"), ("j9", "b"), ("i10", "b")], "blue");
    assert_over(&s, win(Color::Red, EndReason::NoLegalMove));
    // Nobody can move at all.
    let s = state(&[("a1", "F"), ("j10", "f")], "red");
    assert_over(&s, draw(EndReason::NeitherCanMove));
}

// ---- 6. Two-square rule ----------------------------------------------------

/// Red's Lieutenant on a1 and Blue's fillers.
fn shuttle_position(rules: &Ruleset) -> State {
    state_with(rules, &with(&BLUE_FILLERS, &[("a1", "L"), ("j1", "F")]), "red")
}

/// With the default limit 3, the fourth crossing of the same border in a row
/// is forbidden; other moves of the piece stay legal.
#[test]
fn two_square_forbids_the_fourth_crossing() {
    let mut s = shuttle_position(&Ruleset::classic());
    red_moves_with_fillers(&mut s, &["a1-a2", "a2-a1", "a1-a2"], 0);
    assert_eq!(legal_from(&s, "a2"), sorted(&["a2-a3", "a2-b2"]));
    let err = assert_refused(&mut s, "a2-a1", Refusal::TwoSquare { limit: 3 });
    assert!(err.to_string().contains("two-square"), "{err}");
    // Moving elsewhere is fine, and the piece may then come back.
    play(&mut s, &["a2-a3", blue_filler(3), "a3-a2", blue_filler(4)]);
    assert!(s.is_legal(mv("a2-a1")));
}

/// With limit 5 the sixth crossing is the first forbidden one.
#[test]
fn two_square_limit_five_forbids_the_sixth_crossing() {
    let rules = Ruleset { two_square_limit: 5, ..Ruleset::classic() };
    let mut s = shuttle_position(&rules);
    red_moves_with_fillers(&mut s, &["a1-a2", "a2-a1", "a1-a2"], 0);
    assert!(s.is_legal(mv("a2-a1")), "the fourth crossing is legal under limit 5");
    red_moves_with_fillers(&mut s, &["a2-a1", "a1-a2"], 3);
    assert_eq!(legal_from(&s, "a2"), sorted(&["a2-a3", "a2-b2"]));
}

/// Limit 0 switches the rule off.
#[test]
fn two_square_limit_zero_disables_the_rule() {
    let rules = Ruleset { two_square_limit: 0, ..Ruleset::classic() };
    let mut s = shuttle_position(&rules);
    let shuttle: Vec<&str> = (0..12).map(|i| if i % 2 == 0 { "a1-a2" } else { "a2-a1" }).collect();
    red_moves_with_fillers(&mut s, &shuttle, 0);
    assert_eq!(legal_from(&s, "a1"), sorted(&["a1-a2", "a1-b1"]));
}

/// Moving another piece in between starts the count afresh.
#[test]
fn two_square_count_resets_when_another_piece_moves() {
    let mut s = state(&with(&BLUE_FILLERS, &[("a1", "L"), ("e1", "E"), ("j1", "F")]), "red");
    let k = red_moves_with_fillers(&mut s, &["a1-a2", "a2-a1", "e1-e2", "a1-a2", "a2-a1"], 0);
    // Four crossings of a1|a2 so far, but only two since the Sergeant moved.
    assert!(s.is_legal(mv("a1-a2")));
    red_moves_with_fillers(&mut s, &["a1-a2"], k);
    assert_eq!(legal_from(&s, "a2"), sorted(&["a2-a3", "a2-b2"]));
}

/// A Scout zig-zagging up and down the e-file (e2-e6, e6-e3, e3-e7) has
/// crossed the borders between ranks 3 and 6 three times. Running back down
/// it may stop on e6 (the earlier turning point: that crosses only the e6|e7
/// border, crossed once), but not on e5 or beyond; running on up or sideways
/// is fine.
#[test]
fn two_square_scout_may_only_run_back_to_the_earlier_turning_point() {
    let mut s = state(&with(&BLUE_FILLERS, &[("e2", "O"), ("j1", "F")]), "red");
    red_moves_with_fillers(&mut s, &["e2-e6", "e6-e3", "e3-e7"], 0);
    assert_eq!(
        legal_from(&s, "e7"),
        sorted(&[
            "e7-e6", "e7-e8", "e7-e9", "e7-e10", "e7-d7", "e7-c7", "e7-b7", "e7-a7", "e7-f7", "e7-g7", "e7-h7",
            "e7-i7", "e7-j7",
        ])
    );
    for forbidden in ["e7-e5", "e7-e4", "e7-e3", "e7-e2", "e7-e1"] {
        assert_refused(&mut s, forbidden, Refusal::TwoSquare { limit: 3 });
    }
}

/// The Scout's run resets too when another piece moves in between.
#[test]
fn two_square_scout_run_resets_when_another_piece_moves() {
    let mut s = state(&with(&BLUE_FILLERS, &[("e2", "O"), ("i1", "E"), ("j1", "F")]), "red");
    red_moves_with_fillers(&mut s, &["e2-e6", "e6-e3", "i1-i2", "e3-e7"], 0);
    assert!(s.is_legal(mv("e7-e1")));
}

// ---- 7. Chasing (more-squares) rule ----------------------------------------

/// Red's Marshal on f3 and Blue's General on e4 in the 2x2 block e3/e4/f3/f4.
/// Two-square is off so that only the chasing rule speaks.
fn chase_position(chase_rule: bool) -> State {
    let rules = Ruleset { two_square_limit: 0, chase_rule, ..Ruleset::classic() };
    state_with(&rules, &[("a1", "F"), ("f3", "M"), ("e4", "g"), ("j10", "f")], "red")
}

/// Red chases Blue's General around the block: each Red move ends next to it,
/// each Blue move steps it away. After four rounds the pieces stand as at the
/// start.
const CHASE_ROUNDS: [&str; 8] = [
    "f3-f4", "e4-e3", // Red threatens from f4; the General evades to e3
    "f4-e4", "e3-f3", //
    "e4-e3", "f3-f4", //
    "e3-f3", "f4-e4", // back to the start: Red f3, Blue e4
];

/// After the four rounds of `CHASE_ROUNDS`, Red's next chasing move f3-f4
/// would recreate the position after its first chasing move: forbidden.
/// Going straight back (f3-e3) and the non-threatening moves (f3-f2, f3-g3)
/// stay legal.
#[test]
fn chase_forbids_the_chasing_move_that_repeats_a_chase_position() {
    let mut s = chase_position(true);
    play(&mut s, &CHASE_ROUNDS);
    assert_eq!(at(&s, "f3").unwrap().kind, PieceType::Marshal);
    assert_eq!(at(&s, "e4").unwrap().kind, PieceType::General);
    assert_eq!(legal(&s), sorted(&["f3-e3", "f3-f2", "f3-g3"]));
    let err = assert_refused(&mut s, "f3-f4", Refusal::MoreSquares);
    assert!(err.to_string().contains("more-squares"), "{err}");
    // Each allowed alternative can really be played.
    for ok in ["f3-e3", "f3-f2", "f3-g3"] {
        let mut c = s.clone();
        play(&mut c, &[ok]);
    }
}

/// With the chasing rule off the same move is legal.
#[test]
fn chase_rule_off_allows_the_repeating_move() {
    let mut s = chase_position(false);
    play(&mut s, &CHASE_ROUNDS);
    assert_eq!(legal(&s), sorted(&["f3-e3", "f3-f2", "f3-f4", "f3-g3"]));
    play(&mut s, &["f3-f4"]);
}

/// Before the chase has come round, none of Red's chasing moves repeats a
/// chase position, so nothing is forbidden.
#[test]
fn chase_moves_are_legal_until_a_position_would_repeat() {
    let mut s = chase_position(true);
    for (i, m) in CHASE_ROUNDS.iter().enumerate() {
        assert!(s.is_legal(mv(m)), "ply {}: {m}", i + 1);
        if s.to_move() == Color::Red {
            assert_eq!(legal(&s).len(), 4, "ply {}: all four Marshal moves are legal", i + 1);
        }
        play(&mut s, &[m]);
    }
}

/// Going straight back to the square just left is always allowed, even when
/// it recreates a position of the chase: Red shuttles e3/f3 threatening a
/// Blue Lieutenant that shuttles f4/e4; Red's third f3 arrival repeats the
/// position after its first chasing move but is the move back.
#[test]
fn chase_allows_moving_straight_back() {
    let rules = Ruleset { two_square_limit: 0, ..Ruleset::classic() };
    let mut s = state_with(&rules, &[("a1", "F"), ("e3", "M"), ("f4", "l"), ("j10", "f")], "red");
    // e3-f3 threatens f4; f4-e4 evades; f3-e3 threatens e4 (back); e4-f4 evades.
    play(&mut s, &["e3-f3", "f4-e4", "f3-e3", "e4-f4"]);
    assert!(s.is_legal(mv("e3-f3")), "the move back is exempt\n{s}");
    play(&mut s, &["e3-f3", "f4-e4", "f3-e3", "e4-f4", "e3-f3"]);
}

/// A non-threatening move ends the chase: positions of the broken chase no
/// longer count, only those of the chase in progress do. Red chases the
/// General through two rounds, steps aside (e4-d4), then starts a new chase.
/// Its moves f3-f4 and f4-e4 recreate positions of the broken chase and are
/// legal; e4-e3 would recreate a position of the new chase and is forbidden.
#[test]
fn chase_positions_before_a_break_do_not_count() {
    let mut s = chase_position(true);
    play(
        &mut s,
        &[
            "f3-f4", "e4-e3", "f4-e4", "e3-f3", // the first chase: positions (f4,e4), (e4,e3)
            "e4-d4", "f3-f4", // Red's move threatens nothing: the chase is over
            "d4-e4", "f4-f3", "e4-e3", "f3-f4", "e3-f3", "f4-e4", // a new chase
        ],
    );
    assert!(s.is_legal(mv("f3-f4")), "repeats only a position of the broken chase\n{s}");
    play(&mut s, &["f3-f4", "e4-e3"]);
    assert!(s.is_legal(mv("f4-e4")), "repeats only a position of the broken chase\n{s}");
    play(&mut s, &["f4-e4", "e3-f3"]);
    // e4-e3 would recreate the position after the new chase's e4-e3 (ply 9).
    assert_eq!(legal(&s), sorted(&["e4-f4", "e4-d4", "e4-e5"]));
    assert_refused(&mut s, "e4-e3", Refusal::MoreSquares);
}

// ---- 8. Ply and battleless caps ---------------------------------------------

/// Two movers far apart; two-square off so they can shuttle.
const CAP_PIECES: [(&str, &str); 4] = [("a1", "F"), ("e2", "L"), ("j10", "f"), ("e9", "l")];

/// From the cap pieces with the capped count (read by `count`) two quiet
/// plies short of `cap` (`counters` gives the root's ply and battleless
/// counts for that count): the game goes on after the first ply and is
/// drawn for `reason` right after the second; a root already at the cap is
/// over.
fn assert_cap_draws_exactly_at_the_cap(
    rules: &Ruleset,
    counters: fn(u32) -> (u32, u32),
    count: fn(&State) -> u32,
    cap: u32,
    reason: EndReason,
) {
    let root = |n: u32| {
        let (ply, battleless) = counters(n);
        state_at(rules, &CAP_PIECES, "red", ply, battleless)
    };
    let mut s = root(cap - 2);
    play(&mut s, &["e2-e3"]);
    assert_eq!((count(&s), s.outcome()), (cap - 1, None));
    play(&mut s, &["e9-e8"]);
    assert_eq!(count(&s), cap);
    assert_over(&s, draw(reason));
    assert_over(&root(cap), draw(reason));
}

/// The game is drawn right after ply N, not before.
#[test]
fn ply_cap_draws_exactly_at_ply_n() {
    let rules = Ruleset { max_plies: 10, two_square_limit: 0, ..Ruleset::classic() };
    assert_cap_draws_exactly_at_the_cap(&rules, |n| (n, 0), State::ply, 10, EndReason::PlyCap);
}

/// A Flag capture on the cap ply is still a win: the flag check comes first.
#[test]
fn flag_capture_on_the_cap_ply_wins() {
    let rules = Ruleset { max_plies: 10, ..Ruleset::classic() };
    let mut s = state_at(&rules, &[("a1", "F"), ("j9", "L"), ("j10", "f"), ("e9", "l")], "red", 9, 9);
    play(&mut s, &["j9-j10"]);
    assert_eq!(s.ply(), 10);
    assert_over(&s, win(Color::Red, EndReason::FlagCaptured));
}

/// A side left without moves on the cap ply loses rather than draws.
#[test]
fn no_legal_move_on_the_cap_ply_loses() {
    let rules = Ruleset { max_plies: 10, ..Ruleset::classic() };
    let mut s = state_at(&rules, &[("a1", "F"), ("e4", "M"), ("e5", "e"), ("j10", "f"), ("j9", "b")], "red", 9, 0);
    play(&mut s, &["e4-e5"]);
    assert_eq!(s.ply(), 10);
    assert_over(&s, win(Color::Red, EndReason::NoLegalMove));
    // Likewise at the battleless cap: Red's Marshal is walled in by its own
    // Bombs and Flag; Blue's quiet move is the K-th battleless ply, and Red,
    // to move, loses rather than draws.
    let rules = Ruleset { max_battleless_plies: 4, ..Ruleset::classic() };
    let mut s = state_at(
        &rules,
        &[("a1", "F"), ("a2", "B"), ("b1", "M"), ("c1", "B"), ("b2", "B"), ("j10", "f"), ("j9", "l")],
        "blue",
        3,
        3,
    );
    play(&mut s, &["j9-j8"]);
    assert_eq!(s.battleless(), 4);
    assert_over(&s, win(Color::Blue, EndReason::NoLegalMove));
}

/// The game is drawn right after K battleless plies in a row.
#[test]
fn battleless_cap_draws_exactly_after_k_plies() {
    let rules = Ruleset { max_battleless_plies: 4, two_square_limit: 0, ..Ruleset::classic() };
    assert_cap_draws_exactly_at_the_cap(&rules, |n| (n, n), State::battleless, 4, EndReason::BattlelessCap);
}

/// A battle resets the battleless count: the cap comes K plies after it.
#[test]
fn battle_resets_the_battleless_count() {
    let rules = Ruleset { max_battleless_plies: 4, two_square_limit: 0, ..Ruleset::classic() };
    let pieces = [("a1", "F"), ("e4", "M"), ("e5", "e"), ("j10", "f"), ("e9", "l")];
    let mut s = state_at(&rules, &pieces, "red", 3, 3);
    play(&mut s, &["e4-e5"]); // the battle, on what would have been the capping ply
    assert_eq!((s.battleless(), s.outcome()), (0, None));
    for (i, m) in ["e9-d9", "e5-e4", "d9-c9"].iter().enumerate() {
        play(&mut s, &[m]);
        assert_eq!((s.battleless(), s.outcome()), (i as u32 + 1, None));
    }
    play(&mut s, &["e4-e3"]);
    assert_eq!((s.ply(), s.battleless()), (8, 4));
    assert_over(&s, draw(EndReason::BattlelessCap));
}

/// When both caps are reached on the same ply, the ply cap is the reason.
#[test]
fn ply_cap_comes_before_battleless_cap() {
    let rules = Ruleset { max_plies: 10, max_battleless_plies: 10, two_square_limit: 0, ..Ruleset::classic() };
    let mut s = state_at(&rules, &CAP_PIECES, "red", 8, 8);
    play(&mut s, &["e2-e3", "e9-e8"]);
    assert_over(&s, draw(EndReason::PlyCap));
}

// ---- 9. Action ids ---------------------------------------------------------

/// A position with pieces for both sides and several kinds of move.
fn action_position(side: &str) -> State {
    state(
        &[
            ("a1", "F"),
            ("b2", "O"),
            ("e4", "L"),
            ("d1", "B"),
            ("a10", "f"),
            ("j7", "o"),
            ("e7", "l"),
            ("e5", "s"),
            ("b9", "b"),
        ],
        side,
    )
}

/// Checks that the legal actions are sorted, unique, decode in the acting
/// player's frame to exactly the legal moves, and agree with the mask.
fn check_actions(s: &State) {
    let player = s.current_player().expect("game in progress");
    let ids = s.legal_actions();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "sorted and unique: {ids:?}");
    let mut decoded: Vec<String> =
        ids.iter().map(|&id| Move::from_action(id, player).expect("a legal id decodes").to_string()).collect();
    decoded.sort();
    assert_eq!(decoded, legal(s));
    for m in s.legal_moves() {
        assert!(ids.contains(&m.to_action(player).unwrap()));
    }
    let mask = s.legal_action_mask();
    assert_eq!(mask.len(), NUM_ACTIONS);
    assert_eq!(mask.iter().filter(|&&b| b).count(), ids.len());
    assert!(ids.iter().all(|&id| mask[id as usize]));
    // The colour-swapped game offers the same ids.
    assert_eq!(s.color_swapped().legal_actions(), ids);
}

#[test]
fn red_action_ids_decode_to_the_legal_moves() {
    let s = action_position("red");
    check_actions(&s);
    // b2-b5: cell 11, target row 4 -> channel 3 -> 311.
    assert_eq!(mv("b2-b5").to_action(Color::Red), Some(311));
    assert!(s.legal_actions().contains(&311));
}

/// Blue's ids are in Blue's (rotated) frame: j7-j6 is a4-a5 for Blue, id 330.
#[test]
fn blue_action_ids_are_in_the_rotated_frame() {
    let mut s = action_position("blue");
    check_actions(&s);
    assert_eq!(mv("j7-j6").to_action(Color::Blue), Some(330));
    assert!(s.legal_actions().contains(&330));
    assert_eq!(Move::from_action(330, Color::Blue), Some(mv("j7-j6")));
    assert_eq!(Move::from_action(330, Color::Red), Some(mv("a4-a5")), "the same id means another move for Red");
    assert_eq!(s.action_to_string(330), "j7-j6");
    s.apply_action(330).unwrap();
    assert_eq!(at(&s, "j6").unwrap().kind, PieceType::Scout);
    assert!(at(&s, "j7").is_none());
    check_actions(&s);
}

/// Every id is either legal and applies, or is refused without a panic and
/// without changing the state.
#[test]
fn every_action_id_is_applied_or_refused() {
    for side in ["red", "blue"] {
        let s = action_position(side);
        let ids = s.legal_actions();
        for id in 0..NUM_ACTIONS as u16 + 10 {
            let mut c = s.clone();
            let result = c.apply_action(id);
            assert_eq!(result.is_ok(), ids.contains(&id), "{side} id {id}: {result:?}");
            if result.is_err() {
                assert_eq!(c, s);
            }
            // The error names the reason `refusal` gives, and only legal moves have none.
            match Move::from_action(id, s.to_move()) {
                Some(m) => match s.refusal(m) {
                    None => assert!(result.is_ok(), "{side} {m}: {result:?}"),
                    Some(reason) => assert_eq!(result, Err(Error::IllegalMove { mv: m, reason }), "{side} {m}"),
                },
                None => assert_eq!(result, Err(Error::BadAction(id as u32)), "{side} id {id}"),
            }
        }
        let mut c = s.clone();
        assert_eq!(c.apply_action(1800), Err(Error::BadAction(1800)));
    }
}

/// A played game serialises and replays to an equal state.
#[test]
fn serialize_round_trips_after_moves() {
    let mut s = action_position("red");
    play(&mut s, &["b2-b8", "j7-j2", "e4-e5"]);
    let text = s.serialize();
    assert!(text.contains(" moves b2-b8 j7-j2 e4-e5"), "{text}");
    assert_eq!(State::deserialize(&text).unwrap(), s);
}

// ---- 10. Bad input is a typed error ----------------------------------------

/// Pieces of a valid position used as the base of the malformed ones.
const GOOD: [(&str, &str); 4] = [("a1", "F"), ("e2", "L"), ("j10", "f"), ("e9", "l")];

fn good_text() -> String {
    text(&Ruleset::classic(), &GOOD, "red", 0, 0)
}

/// Both parsers refuse `t` with a typed error of the same kind, a position
/// or ruleset error (and never panic).
fn assert_bad_position(t: &str) -> Error {
    let err = Position::parse(t).expect_err(&format!("must be refused: {t}"));
    assert!(State::deserialize(t).is_err(), "State::deserialize must refuse: {t}");
    assert!(matches!(err, Error::Position(_) | Error::Rules(_)), "{t}: {err:?}");
    let again = State::deserialize(t).unwrap_err();
    assert_eq!(std::mem::discriminant(&again), std::mem::discriminant(&err), "{t}: {err:?} and {again:?}");
    err
}

#[test]
fn the_good_base_position_parses_and_round_trips() {
    let t = good_text();
    let p = Position::parse(&t).unwrap();
    assert_eq!(p.to_text(), t);
    assert_eq!(State::deserialize(&t).unwrap().serialize(), t);
}

#[test]
fn malformed_boards_are_position_errors() {
    let rules = Ruleset::classic();
    let good_board = board(&GOOD);
    let rows: Vec<&str> = good_board.split('/').collect();
    let nine_rows = rows[..9].join("/");
    let eleven_rows = format!("{good_board}/..........");
    let long_row = {
        let mut r: Vec<String> = rows.iter().map(|s| s.to_string()).collect();
        r[3].push('.');
        r.join("/")
    };
    let short_row = {
        let mut r: Vec<String> = rows.iter().map(|s| s.to_string()).collect();
        r[3].pop();
        r.join("/")
    };
    let mut cases: Vec<(&str, String)> = vec![
        ("nine rows", nine_rows),
        ("eleven rows", eleven_rows),
        ("eleven squares in a row", long_row),
        ("nine squares in a row", short_row),
    ];
    let with_board = |extra: &[(&'static str, &'static str)]| board(&with(&GOOD, extra));
    cases.push(("piece on a lake", with_board(&[("c5", "L")])));
    cases.push(("revealed piece on a lake", with_board(&[("h6", "n^")])));
    cases.push(("lake marked as empty", with_board(&[("g6", ".")])));
    cases.push(("lake sign off the lakes", with_board(&[("b3", "~")])));
    cases.push(("two red flags", with_board(&[("b1", "F")])));
    cases.push(("two blue flags", with_board(&[("b10", "f")])));
    cases.push(("no blue flag", board(&[("a1", "F"), ("e2", "L")])));
    cases.push(("two red marshals", with_board(&[("b1", "M"), ("c1", "M")])));
    cases.push((
        "seven blue bombs",
        with_board(&[("a10", "b"), ("b10", "b"), ("c10", "b"), ("d10", "b"), ("e10", "b"), ("f10", "b"), ("g10", "b")]),
    ));
    cases.push(("moved bomb", with_board(&[("b1", "B+")])));
    cases.push(("moved flag", board(&[("a1", "F+"), ("e2", "L"), ("j10", "f"), ("e9", "l")])));
    cases.push(("unknown letter", with_board(&[("b1", "X")])));
    cases.push(("digit", with_board(&[("b1", "1")])));
    cases.push(("marker without piece", with_board(&[("b1", "^")])));
    cases.push(("repeated marker", with_board(&[("b1", "L^^")])));
    cases.push(("non-ascii", with_board(&[("b1", "é")])));
    for (what, b) in cases {
        let t = format!("{} {b} red 0 0", rules.canonical());
        let err = assert_bad_position(&t);
        assert!(matches!(err, Error::Position(_)), "{what}: {err:?}");
    }
}

#[test]
fn malformed_position_fields_are_errors() {
    let rules = Ruleset::classic().canonical();
    let b = board(&GOOD);
    for (what, t) in [
        ("battleless above ply", format!("{rules} {b} red 3 4")),
        ("bad side", format!("{rules} {b} green 0 0")),
        ("negative ply", format!("{rules} {b} red -1 0")),
        ("ply not a number", format!("{rules} {b} red x 0")),
        ("four fields", format!("{rules} {b} red 0")),
        ("no board", rules.clone()),
        ("empty", String::new()),
    ] {
        let err = assert_bad_position(&t);
        assert!(matches!(err, Error::Position(_)), "{what}: {err:?}");
    }
    for (what, t) in [
        ("unknown version", format!("stratego-rules-v2:{} {b} red 0 0", rules.split_once(':').unwrap().1)),
        ("zero ply cap", format!("{} {b} red 0 0", rules.replace("max-plies=4000", "max-plies=0"))),
        ("two-square too big", format!("{} {b} red 0 0", rules.replace("two-square=3", "two-square=99"))),
        ("missing key", format!("{} {b} red 0 0", rules.replace(",chase=on", ""))),
    ] {
        let err = assert_bad_position(&t);
        assert!(matches!(err, Error::Rules(_)), "{what}: {err:?}");
    }
    // State texts: a trailing word that is not `moves`, and bad moves after it.
    let good = good_text();
    assert!(State::deserialize(&format!("{good} extra")).is_err());
    assert!(matches!(State::deserialize(&format!("{good} moves e2-e3 e9-e7")), Err(Error::AtPly { ply: 2, .. })));
    assert!(matches!(State::deserialize(&format!("{good} moves zz")), Err(Error::AtPly { ply: 1, .. })));
    assert!(State::deserialize(&format!("{good} moves e2-e3")).is_ok());
}

/// Illegal moves are typed errors that leave the state unchanged.
#[test]
fn illegal_moves_are_errors() {
    let mut s =
        state(&[("a1", "F"), ("b1", "B"), ("e2", "L"), ("e3", "E"), ("c4", "N"), ("j10", "f"), ("e9", "l")], "red");
    for (what, m, reason) in [
        ("no piece", "f2-f3", Refusal::NoPiece { square: sq("f2") }),
        ("opponent's piece", "e9-e8", Refusal::NotYourPiece { square: sq("e9"), player: Color::Red }),
        ("bomb", "b1-c1", Refusal::Immovable { piece: PieceType::Bomb }),
        ("flag", "a1-a2", Refusal::Immovable { piece: PieceType::Flag }),
        ("lake target", "c4-c5", Refusal::Lake { square: sq("c5") }),
        ("own piece", "e2-e3", Refusal::OwnPiece { square: sq("e3") }),
        ("blocked two-step", "e2-e4", Refusal::Unreachable),
        ("too far", "c4-c2", Refusal::Unreachable),
        ("diagonal", "e3-f4", Refusal::Unreachable),
    ] {
        let err = assert_refused(&mut s, m, reason);
        assert!(matches!(err, Error::IllegalMove { .. }), "{what}: {err:?}");
    }
    for bad in ["b2", "b2-", "b2-k5", "k1-a1", "a0-a1", "a11-a10", "e2e3", ""] {
        assert!(bad.parse::<Move>().is_err(), "{bad}");
    }
}

/// Each refusal reads as the sentence documented in docs/CONTRACT.md.
#[test]
fn refusals_print_their_sentences() {
    let mut s =
        state(&[("a1", "F"), ("b1", "B"), ("e2", "L"), ("e3", "E"), ("c4", "N"), ("j10", "f"), ("e9", "l")], "red");
    for (m, text) in [
        ("f2-f3", "illegal move f2-f3: there is no piece on f2"),
        ("e9-e8", "illegal move e9-e8: the piece on e9 is not red's"),
        ("b1-c1", "illegal move b1-c1: a bomb never moves"),
        ("a1-a2", "illegal move a1-a2: a flag never moves"),
        ("c4-c5", "illegal move c4-c5: c5 is a lake"),
        ("e2-e3", "illegal move e2-e3: e3 holds an own piece"),
        (
            "c4-c2",
            "illegal move c4-c2: the piece cannot reach that square (one step for all but Scouts, who run over \
             empty squares in a straight line)",
        ),
    ] {
        assert_eq!(s.apply_move(mv(m)).unwrap_err().to_string(), text);
    }
    assert_eq!(
        Refusal::TwoSquare { limit: 3 }.to_string(),
        "the two-square rule forbids crossing the same border more than 3 times in a row"
    );
    assert_eq!(
        Refusal::MoreSquares.to_string(),
        "the more-squares rule forbids a chasing move that repeats a position of the chase"
    );
    assert_eq!(Refusal::GameOver.to_string(), Error::GameOver.to_string());
}

/// A text written under another ruleset is refused, naming both ids.
#[test]
fn deserialize_under_another_ruleset_names_both_ids() {
    let expected = Ruleset::classic();
    let other = Ruleset { chase_rule: false, ..Ruleset::classic() };
    let t = text(&other, &GOOD, "red", 0, 0);
    let err = State::deserialize_under(&expected, &t).unwrap_err();
    let msg = err.to_string();
    let (a, b) = (expected.id().to_string(), other.id().to_string());
    assert_eq!((a.len(), b.len()), (8, 8));
    assert_ne!(a, b);
    assert!(msg.contains(&a) && msg.contains(&b), "{msg}");
    assert!(State::deserialize_under(&other, &t).is_ok());
    assert!(State::deserialize_under(&expected, "").is_err());
}

#[test]
fn malformed_setups_are_setup_errors() {
    let good = "FBBBBBBSOOOOOOOONNNNNEEEELLLLPPPPJJJCCGM";
    let set = PieceSet::Classic;
    assert!(Setup::parse(good, set).is_ok());
    assert_eq!(Setup::parse(&good[..39], set), Err(SetupError::WrongLength(39)));
    assert_eq!(Setup::parse(&format!("{good}B"), set), Err(SetupError::WrongLength(41)));
    assert_eq!(Setup::parse("", set), Err(SetupError::WrongLength(0)));
    assert!(matches!(
        Setup::parse(&good.replacen('F', "X", 1), set),
        Err(SetupError::BadLetter { letter: 'X', index: 0 })
    ));
    assert!(matches!(
        Setup::parse(&good.replacen('M', "m", 1), set),
        Err(SetupError::BadLetter { letter: 'm', index: 39 })
    ));
    assert!(matches!(
        Setup::parse(&good.replacen('G', "M", 1), set),
        Err(SetupError::WrongCount { kind: PieceType::General, found: 0, .. }
            | SetupError::WrongCount { kind: PieceType::Marshal, found: 2, .. })
    ));
    assert!(matches!(Setup::parse(&good.replacen('F', ".", 1), set), Err(SetupError::WrongCount { .. })));
    assert!(matches!(Setup::parse(&good.replacen('B', "F", 1), set), Err(SetupError::WrongCount { .. })));
    assert!(Setup::parse(good, PieceSet::Barrage).is_err());
    // A good setup still makes a game.
    let red = Setup::parse(good, set).unwrap();
    let s = State::from_setups(Ruleset::classic(), &red, &red).unwrap();
    assert_eq!(s.current_player(), Some(Color::Red));
}
