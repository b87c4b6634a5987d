//! Rule-by-rule tests of CoToan (`cotoan-rules v1`, docs/COTOAN.md).
//!
//! Each test builds a small hand-made position whose answer is known (both
//! zeros on their home squares e2 and e10 unless the test says otherwise)
//! and checks the engine's verdict: exact move sets, witnesses, successors,
//! outcomes, and typed errors for bad input.
//!
//! Sections:
//!  1. The seed's examples
//!  2. Ordinary moves
//!  3. Arithmetic captures
//!  4. Scores and the ordered end checks
//!  5. Snapshots, task identity and well-formedness
//!  6. Symmetries, determinism and the state API
//!  7. Diagnostics (RQ2, RQ3)

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_contract::{Color, GameState};
use stratego_cotoan::diagnostics::{
    horizon_pair, horizon_rule_pair, rq2_fixtures, threshold_pair, witness_sampling, AliasedPair, Fraction, Line,
};
use stratego_cotoan::fixtures::{random_trajectory, synthetic_state};
use stratego_cotoan::observation::{self, OBSERVATION_LEN};
use stratego_cotoan::{
    Board, CoToanError, CoToanState, EndReason, HorizonRule, Move, Operator, OperatorMask, Outcome, Piece, Settings,
    SettingsError, Square, Witness, NUM_ACTIONS,
};

// ---- helpers ---------------------------------------------------------------

fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("bad square in test: {e}"))
}

fn mv(text: &str) -> Move {
    text.parse().unwrap_or_else(|e| panic!("bad move in test: {e}"))
}

/// A piece token: `r8` is Red's 8, `b0` Blue's 0.
fn piece(token: &str) -> Piece {
    let side = if token.starts_with('r') { Color::Red } else { Color::Blue };
    Piece::new(side, token[1..].parse().unwrap()).unwrap()
}

/// The listed pieces plus both zeros at home (unless `zeros` is false).
fn board_with(pieces: &[(&str, &str)], zeros: bool) -> Board {
    let mut all: Vec<(Square, Piece)> = pieces.iter().map(|&(s, t)| (sq(s), piece(t))).collect();
    if zeros {
        all.push((sq("e2"), piece("r0")));
        all.push((sq("e10"), piece("b0")));
    }
    Board::from_pieces(&all).unwrap()
}

/// A well-formed state: `to_move` plays at `ply` (parity fixed by the starter).
fn state_at(settings: Settings, pieces: &[(&str, &str)], to_move: Color, ply: u32) -> CoToanState {
    CoToanState::from_parts(settings, board_with(pieces, true), to_move, ply).unwrap()
}

/// Red to move at ply 0 under the default settings.
fn red_to_move(pieces: &[(&str, &str)]) -> CoToanState {
    state_at(Settings::default(), pieces, Color::Red, 0)
}

fn with_ops(ops: &[Operator]) -> Settings {
    let operators = ops.iter().fold(OperatorMask::NONE, |m, &op| m.with(op));
    Settings { operators, ..Settings::default() }
}

fn witnesses(state: &CoToanState, m: &str) -> Vec<Witness> {
    state.capture_witnesses(mv(m).action())
}

fn w(op: Operator, support: &str) -> Witness {
    Witness { operator: op, support: sq(support) }
}

fn illegal_reason(state: &CoToanState, m: &str) -> String {
    match state.clone().apply_move(mv(m)) {
        Err(CoToanError::IllegalMove { why, .. }) => why,
        other => panic!("{m} should be illegal, got {other:?}"),
    }
}

fn moves_from(state: &CoToanState, from: &str) -> Vec<String> {
    let mut v: Vec<String> =
        state.legal_moves().into_iter().filter(|m| m.from == sq(from)).map(|m| m.to.to_string()).collect();
    v.sort();
    v
}

// ---- 1. The seed's examples ------------------------------------------------

#[test]
fn seed_movement_examples_distinguish_range_from_obstruction() {
    // Fig. 2: red 2 on c4, red 1 on d4.
    let s = red_to_move(&[("c4", "r2"), ("d4", "r1"), ("f4", "b4")]);
    assert!(s.is_legal(mv("c4-e6")), "two squares diagonally over an empty d5");
    let range = illegal_reason(&s, "c4-f7");
    assert!(range.contains("out of range") && range.contains("at most 2"), "{range}");
    let blocked = illegal_reason(&s, "c4-e4");
    assert!(blocked.contains("blocked by the piece on d4"), "{blocked}");
}

#[test]
fn seed_capture_two_times_one() {
    // Red 2 on c4 uses red 1 on d4 to take f4: 2 x 1 = 2 (and floor(2/1) = 2).
    let only_mul = state_at(with_ops(&[Operator::Mul]), &[("c4", "r2"), ("d4", "r1"), ("f4", "b4")], Color::Red, 0);
    assert_eq!(witnesses(&only_mul, "c4xf4"), vec![w(Operator::Mul, "d4")]);
    let all = red_to_move(&[("c4", "r2"), ("d4", "r1"), ("f4", "b4")]);
    assert_eq!(witnesses(&all, "c4xf4"), vec![w(Operator::Mul, "d4"), w(Operator::Div, "d4")]);
    assert_eq!(all.action_to_string(mv("c4xf4").action()), "c4xf4");
    // In full armies, the score counts exactly the captured 4.
    let armies = CoToanState::from_parts(
        Settings::default(),
        armies_with(&[("c4", "r2"), ("d4", "r1"), ("f4", "b4")]),
        Color::Red,
        0,
    )
    .unwrap();
    let after = armies.child(mv("c4xf4")).unwrap();
    let board = after.board();
    assert_eq!(board[sq("f4")], Some(piece("r2")), "the attacker lands on the target's square");
    assert_eq!(board[sq("d4")], Some(piece("r1")), "the support stays");
    assert_eq!(board[sq("c4")], None);
    assert_eq!(after.scores(), [4, 0], "Red captured a 4");
    assert_eq!(after.to_move(), Color::Blue);
    assert_eq!(after.ply(), 1);
}

#[test]
fn seed_two_witnesses_make_one_action() {
    // floor(8/3) = 8 mod 3 = 2: one action c4xf4 with two witnesses.
    let s = red_to_move(&[("c4", "r8"), ("d4", "r3"), ("f4", "b5")]);
    assert_eq!(witnesses(&s, "c4xf4"), vec![w(Operator::Div, "d4"), w(Operator::Mod, "d4")]);
    let ids = s.legal_actions();
    assert_eq!(ids.iter().filter(|&&a| a == mv("c4xf4").action()).count(), 1);
    let mut sorted = ids.clone();
    sorted.dedup();
    assert_eq!(sorted, ids, "legal actions are distinct and sorted");
    let only_div = state_at(with_ops(&[Operator::Div]), &[("c4", "r8"), ("d4", "r3"), ("f4", "b5")], Color::Red, 0);
    assert_eq!(
        only_div.child(mv("c4xf4")).unwrap().board(),
        s.child(mv("c4xf4")).unwrap().board(),
        "either witness gives the same successor"
    );
}

#[test]
fn seed_blocker_on_e4_is_itself_capturable_with_two_minus_one() {
    let s = red_to_move(&[("c4", "r2"), ("d4", "r1"), ("e4", "b6"), ("f4", "b4")]);
    assert!(!s.is_legal(mv("c4xf4")), "e4 blocks the line to f4");
    assert!(illegal_reason(&s, "c4xf4").contains("no enabled operator"));
    assert_eq!(witnesses(&s, "c4xe4"), vec![w(Operator::Sub, "d4")]);
    let armies = armies_with(&[("c4", "r2"), ("d4", "r1"), ("e4", "b6"), ("f4", "b4")]);
    let armies = CoToanState::from_parts(Settings::default(), armies, Color::Red, 0).unwrap();
    assert_eq!(armies.child(mv("c4xe4")).unwrap().scores(), [6, 0]);
}

// ---- 2. Ordinary moves -----------------------------------------------------

#[test]
fn a_piece_moves_up_to_its_value_in_eight_directions() {
    let s = red_to_move(&[("e6", "r2")]);
    let expected = ["c4", "c6", "c8", "d5", "d6", "d7", "e4", "e5", "e7", "e8", "f5", "f6", "f7", "g4", "g6", "g8"];
    assert_eq!(moves_from(&s, "e6"), expected);
    let one = red_to_move(&[("a1", "r1")]);
    assert_eq!(moves_from(&one, "a1"), ["a2", "b1", "b2"], "the corner leaves three squares");
    let nine = red_to_move(&[("a5", "r9")]);
    // North 6 (a6-a11), south 4 (a1-a4), east 8, NE 6, SE 4.
    assert_eq!(moves_from(&nine, "a5").len(), 6 + 4 + 8 + 6 + 4);
}

#[test]
fn zeros_never_move_and_sliding_never_captures() {
    let s = red_to_move(&[("c4", "r3"), ("c6", "b7"), ("c5", "b8")]);
    assert_eq!(illegal_reason(&s, "e2-e3"), "a 0 never moves");
    assert!(moves_from(&s, "e2").is_empty());
    // c5 is an enemy next to c4, but an ordinary move never captures.
    assert!(illegal_reason(&s, "c4xc5").contains("ordinary moves never capture"));
    assert!(!moves_from(&s, "c4").contains(&"c6".to_string()), "no jumping over c5");
    let own = red_to_move(&[("c4", "r3"), ("c5", "r4")]);
    assert_eq!(illegal_reason(&own, "c4-c5"), "c5 holds an own piece");
    assert!(illegal_reason(&own, "c4-d6").contains("not on one straight or diagonal line"));
    assert!(illegal_reason(&own, "d4-d5").contains("no piece on d4"));
    assert!(illegal_reason(&own, "e10-e9").contains("not red's"));
}

// ---- 3. Arithmetic captures ------------------------------------------------

#[test]
fn the_target_stands_exactly_r_squares_beyond_the_support() {
    // 3 + 1 = 4 from d4 is h4; g4 and i4 are not.
    for (target, legal) in [("g4", false), ("h4", true), ("i4", false)] {
        let s = state_at(with_ops(&[Operator::Add]), &[("c4", "r3"), ("d4", "r1"), (target, "b5")], Color::Red, 0);
        assert_eq!(s.is_legal(Move::new(sq("c4"), sq(target))), legal, "{target}");
    }
    // A result that runs off the board captures nothing.
    let off = state_at(with_ops(&[Operator::Mul]), &[("c4", "r9"), ("d4", "r8"), ("i4", "b5")], Color::Red, 0);
    assert!(!off.legal_moves().iter().any(|m| m.to == sq("i4")));
}

#[test]
fn the_squares_between_support_and_target_must_be_empty() {
    let open = state_at(with_ops(&[Operator::Add]), &[("a1", "r1"), ("b2", "r3"), ("f6", "b7")], Color::Red, 0);
    assert_eq!(witnesses(&open, "a1xf6"), vec![w(Operator::Add, "b2")], "1 + 3 = 4 along the diagonal");
    for blocker in ["c3", "d4", "e5"] {
        for token in ["r4", "b4"] {
            let s = state_at(
                with_ops(&[Operator::Add]),
                &[("a1", "r1"), ("b2", "r3"), ("f6", "b7"), (blocker, token)],
                Color::Red,
                0,
            );
            assert!(!s.is_legal(mv("a1xf6")), "{token} on {blocker} blocks");
        }
    }
}

#[test]
fn the_support_is_an_adjacent_own_piece_and_may_be_the_zero() {
    // Red's 0 on e2 supports the 4 on d1 (a north-east line): 4 + 0 = 4 squares
    // beyond e2 is i6.
    let s = state_at(with_ops(&[Operator::Add]), &[("d1", "r4"), ("i6", "b3")], Color::Red, 0);
    assert_eq!(witnesses(&s, "d1xi6"), vec![w(Operator::Add, "e2")]);
    // 4 * 0 = 0, 4 / 0 and 4 mod 0 give nothing; 4 - 0 = 4 works too.
    let all = red_to_move(&[("d1", "r4"), ("i6", "b3")]);
    assert_eq!(witnesses(&all, "d1xi6"), vec![w(Operator::Add, "e2"), w(Operator::Sub, "e2")]);
    let zero_ops = state_at(
        with_ops(&[Operator::Mul, Operator::Div, Operator::Mod]),
        &[("d1", "r4"), ("i6", "b3")],
        Color::Red,
        0,
    );
    assert!(!zero_ops.is_legal(mv("d1xi6")), "x0, /0 and mod 0 give no positive distance");
    // A support two squares away, or an enemy "support", does not count.
    let far = red_to_move(&[("b4", "r2"), ("d4", "r1"), ("f4", "b4")]);
    assert!(!far.is_legal(mv("b4xf4")));
    let enemy = red_to_move(&[("c4", "r2"), ("d4", "b1"), ("f4", "b4")]);
    assert!(!enemy.is_legal(mv("c4xf4")));
    // An own piece is never a target.
    let own = red_to_move(&[("c4", "r2"), ("d4", "r1"), ("f4", "r4")]);
    assert!(!own.is_legal(mv("c4xf4")));
}

#[test]
fn each_operator_is_enabled_by_its_own_bit() {
    // Attacker 7 on a5, support 2 on b5, line east: 7+2 = 9 (off), 7-2 = 5 -> g5,
    // 7*2 = 14 (off), floor(7/2) = 3 -> e5, 7 mod 2 = 1 -> c5.
    let targets = [(Operator::Sub, "g5"), (Operator::Div, "e5"), (Operator::Mod, "c5")];
    for bits in 0..32u8 {
        let mask = OperatorMask::from_bits(bits).unwrap();
        for (op, target) in targets {
            let s = state_at(
                Settings { operators: mask, ..Settings::default() },
                &[("a5", "r7"), ("b5", "r2"), (target, "b6")],
                Color::Red,
                0,
            );
            let capture = Move::new(sq("a5"), sq(target));
            assert_eq!(s.is_legal(capture), mask.contains(op), "mask {bits:05b}, {op}");
            if mask.contains(op) {
                assert_eq!(s.capture_witnesses(capture.action()), vec![w(op, "b5")]);
            }
        }
    }
}

#[test]
fn witnesses_are_metadata_not_actions() {
    let s = red_to_move(&[("c4", "r8"), ("d4", "r3"), ("f4", "b5")]);
    assert!(witnesses(&s, "c4-c5").is_empty(), "ordinary moves have no witness");
    assert!(witnesses(&s, "c4-i10").is_empty(), "illegal actions have no witness");
    let labelled: usize = s.legal_moves_with_witnesses().iter().map(|m| m.witness_labelled_count()).sum();
    assert_eq!(labelled, s.legal_actions().len() + 1, "one capture has two witnesses");
}

// ---- 4. Scores and the ordered end checks ----------------------------------

#[test]
fn capturing_the_zero_wins_at_once() {
    let s = red_to_move(&[("e7", "r3"), ("e8", "r1")]);
    // 3 - 1 = 2 beyond e8 along north is e10, Blue's 0.
    assert_eq!(witnesses(&s, "e7xe10"), vec![w(Operator::Sub, "e8")]);
    let after = s.child(mv("e7xe10")).unwrap();
    assert_eq!(after.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::ZeroCaptured }));
    assert_eq!(after.returns(), [1.0, -1.0]);
    assert!(after.legal_actions().is_empty());
    assert_eq!(after.current_player(), None);
    assert_eq!(after.clone().apply_move(mv("e10-e9")), Err(CoToanError::GameOver));
}

#[test]
fn threshold_victory_needs_a_positive_threshold() {
    let board = armies_with(&[("c4", "r2"), ("d4", "r1"), ("f4", "b9")]);
    let after = |threshold| {
        let settings = Settings { threshold, ..Settings::default() };
        let s = CoToanState::from_parts(settings, board.clone(), Color::Red, 0).unwrap();
        s.child(mv("c4xf4")).unwrap()
    };
    assert_eq!(after(0).scores(), [9, 0]);
    assert_eq!(after(0).outcome(), None, "threshold 0 is off");
    assert_eq!(after(9).outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::Threshold }));
    assert_eq!(after(10).outcome(), None, "9 < 10");
}

#[test]
fn the_horizon_is_adjudicated_by_the_horizon_rule() {
    let settings = Settings { horizon: 10, ..Settings::default() };
    // Blue to move at ply 9; Red has captured 3 (Blue's 3 is missing).
    let pieces = [("a1", "r1"), ("i11", "b1")];
    let before = state_at(settings, &pieces, Color::Blue, 9);
    assert_eq!(before.remaining_plies(), 1);
    let after = before.child(mv("i11-i10")).unwrap();
    // Each side has captured all of the other's pieces but the 0 and the 1: 44-44.
    assert_eq!(after.scores(), [44, 44]);
    assert_eq!(after.outcome(), Some(Outcome { winner: None, reason: EndReason::Horizon }));
    let lead = state_at(settings, &[("a1", "r1"), ("a2", "r2"), ("i11", "b1")], Color::Blue, 9);
    let after = lead.child(mv("i11-i10")).unwrap();
    assert_eq!(after.scores(), [44, 42]);
    assert_eq!(after.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::Horizon }));
    let draw_rule = Settings { horizon_rule: HorizonRule::Draw, ..settings };
    let lead = state_at(draw_rule, &[("a1", "r1"), ("a2", "r2"), ("i11", "b1")], Color::Blue, 9);
    let after = lead.child(mv("i11-i10")).unwrap();
    assert_eq!(after.outcome(), Some(Outcome { winner: None, reason: EndReason::Horizon }));
}

/// Both full armies, with the listed identities moved to the listed squares.
fn armies_with(placements: &[(&str, &str)]) -> Board {
    let moved: Vec<(Square, Piece)> = placements.iter().map(|&(s, t)| (sq(s), piece(t))).collect();
    let mut all: Vec<(Square, Piece)> =
        Board::initial().pieces().filter(|(_, p)| !moved.iter().any(|(_, q)| q == p)).collect();
    all.extend(moved);
    Board::from_pieces(&all).unwrap()
}

#[test]
fn the_end_checks_run_in_the_documented_order() {
    // 1 before 2: Blue's 0 is gone and Red is past the threshold: zero-captured.
    let settings = Settings { threshold: 5, ..Settings::default() };
    let board = Board::from_pieces(
        &Board::initial().pieces().filter(|(_, p)| p.side == Color::Red || p.value == 1).collect::<Vec<_>>(),
    )
    .unwrap();
    let s = CoToanState::from_parts(settings, board, Color::Blue, 1).unwrap();
    assert_eq!(s.scores()[0], 44);
    assert_eq!(s.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::ZeroCaptured }));
    // 1 before 3: the 0 taken on the horizon ply.
    let settings = Settings { horizon: 1, ..Settings::default() };
    let s = CoToanState::from_parts(settings, armies_with(&[("e8", "r2"), ("e9", "r1")]), Color::Red, 0).unwrap();
    let after = s.child(mv("e8xe10")).unwrap();
    assert_eq!(after.ply(), 1);
    assert_eq!(after.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::ZeroCaptured }));
    // 2 before 3: the threshold reached on the horizon ply wins, even under the draw rule.
    let settings = Settings { horizon: 1, threshold: 9, horizon_rule: HorizonRule::Draw, ..Settings::default() };
    let board = armies_with(&[("c4", "r2"), ("d4", "r1"), ("f4", "b9")]);
    let s = CoToanState::from_parts(settings, board, Color::Red, 0).unwrap();
    assert_eq!(s.scores(), [0, 0]);
    let after = s.child(mv("c4xf4")).unwrap();
    assert_eq!(after.scores(), [9, 0]);
    assert_eq!(after.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::Threshold }));
    // 3 before 4: Red has nothing that moves, but at the horizon it is adjudicated.
    let only_zero = board_with(&[("i11", "b1")], true);
    let at_horizon =
        CoToanState::from_parts(Settings { horizon: 2, ..Settings::default() }, only_zero.clone(), Color::Red, 2);
    assert_eq!(at_horizon.unwrap().outcome(), Some(Outcome { winner: Some(Color::Blue), reason: EndReason::Horizon }));
    let before = CoToanState::from_parts(Settings { horizon: 4, ..Settings::default() }, only_zero, Color::Red, 2);
    assert_eq!(before.unwrap().outcome(), Some(Outcome { winner: Some(Color::Blue), reason: EndReason::NoLegalMove }));
}

#[test]
fn a_side_without_a_legal_move_loses() {
    // Blue has only its 0 (which never moves): Blue to move loses.
    let s = state_at(Settings::default(), &[("a1", "r1")], Color::Blue, 1);
    assert_eq!(s.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::NoLegalMove }));
    // A blocked piece has no move either: Blue's 1 in the corner, hemmed in by Red.
    let s =
        state_at(Settings::default(), &[("i11", "b1"), ("h11", "r2"), ("h10", "r3"), ("i10", "r4")], Color::Blue, 1);
    assert_eq!(s.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::NoLegalMove }));
}

// ---- 5. Snapshots, task identity and well-formedness -----------------------

fn sample_states(settings: Settings, seed: u64) -> Vec<CoToanState> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut states = random_trajectory(settings, 60, &mut rng);
    states.extend((0..60).map(|_| synthetic_state(settings, &mut rng)));
    states
}

fn settings_variety() -> Vec<Settings> {
    vec![
        Settings::default(),
        Settings { threshold: 9, horizon: 30, ..Settings::default() },
        Settings { horizon_rule: HorizonRule::Draw, starting_player: Color::Blue, horizon: 21, ..Settings::default() },
        Settings { operators: OperatorMask::from_bits(0b10110).unwrap(), threshold: 20, ..Settings::default() },
        Settings { operators: OperatorMask::NONE, horizon: 15, ..Settings::default() },
    ]
}

#[test]
fn snapshots_round_trip_exactly() {
    for (i, settings) in settings_variety().into_iter().enumerate() {
        for state in sample_states(settings, i as u64) {
            let text = state.serialize();
            let back = CoToanState::deserialize(&text).unwrap();
            assert_eq!(back, state, "{text}");
            assert_eq!(back.serialize(), text);
            assert_eq!(CoToanState::deserialize_under(&settings, &text).unwrap(), state);
            assert_eq!(<CoToanState as GameState>::deserialize(&text).unwrap(), state);
        }
    }
    let start = CoToanState::new(Settings::default()).unwrap();
    assert_eq!(
        start.serialize(),
        "cotoan-rules-v1:threshold=0,horizon=300,horizon-rule=score,operators=add+sub+mul+div+mod,start=red \
         b9b8b7b6b5b4b3b2b1/....b0..../........./........./........./........./........./........./........./....r0..../r1r2r3r4r5r6r7r8r9 red 0"
    );
}

#[test]
fn a_snapshot_of_another_task_is_refused_naming_both_ids() {
    let ours = Settings::default();
    for theirs in [
        Settings { threshold: 9, ..ours },
        Settings { horizon: 299, ..ours },
        Settings { horizon_rule: HorizonRule::Draw, ..ours },
        Settings { operators: OperatorMask::from_bits(30).unwrap(), ..ours },
        Settings { starting_player: Color::Blue, ..ours },
    ] {
        let text = CoToanState::new(theirs).unwrap().serialize();
        let err = CoToanState::deserialize_under(&ours, &text).unwrap_err();
        assert!(matches!(err, CoToanError::Settings(SettingsError::Mismatch { .. })), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&ours.task_id().to_string()) && msg.contains(&theirs.task_id().to_string()), "{msg}");
    }
}

#[test]
fn ill_formed_states_are_refused_with_reasons() {
    let d = Settings::default();
    let cases: Vec<(Board, Color, u32, Settings, &str)> = vec![
        (board_with(&[("e3", "r0"), ("e10", "b0")], false), Color::Red, 0, d, "never leave e2"),
        (board_with(&[("a1", "r1")], false), Color::Red, 0, d, "missing"),
        (board_with(&[("e2", "r0")], false), Color::Red, 0, d, "blue's 0 is missing but red is to move"),
        (board_with(&[], true), Color::Red, 302, d, "past the horizon"),
        (board_with(&[], true), Color::Blue, 0, d, "cannot be to move at ply 0"),
        (board_with(&[], true), Color::Red, 1, d, "cannot be to move at ply 1"),
        (board_with(&[], true), Color::Blue, 1, Settings { threshold: 9, ..d }, "both sides are past the threshold"),
        (
            board_with(
                &[
                    ("a1", "b1"),
                    ("a2", "b2"),
                    ("a3", "b3"),
                    ("a4", "b4"),
                    ("a5", "b5"),
                    ("a6", "b6"),
                    ("a7", "b7"),
                    ("a8", "b8"),
                ],
                true,
            ),
            Color::Blue,
            1,
            Settings { threshold: 40, ..d },
            "blue is to move but already reached the threshold",
        ),
    ];
    for (board, side, ply, settings, needle) in cases {
        let err = CoToanState::from_parts(settings, board.clone(), side, ply).unwrap_err();
        assert!(matches!(err, CoToanError::IllFormed(_)), "{err:?}");
        let msg = err.to_string();
        assert!(msg.to_lowercase().contains(&needle.to_lowercase()), "{needle}: {msg}");
        // The same through a snapshot text.
        let text = format!("{settings} {} {side} {ply}", board.to_text());
        assert_eq!(CoToanState::deserialize(&text).unwrap_err(), err);
    }
}

#[test]
fn malformed_snapshots_are_typed_errors_never_panics() {
    let good = CoToanState::new(Settings::default()).unwrap().serialize();
    let fields: Vec<&str> = good.split(' ').collect();
    for (bad, needle) in [
        (String::new(), "4 fields"),
        (format!("{good} extra"), "4 fields"),
        (good.replace("red 0", "green 0"), "side `green`"),
        (good.replace("red 0", "red -1"), "ply `-1`"),
        (good.replace("threshold=0", "threshold=99"), "threshold"),
        (good.replace("cotoan-rules-v1", "cotoan-rules-v9"), "version"),
        (good.replace("r1r2", "r1r2r3"), "more than 9"),
        (good.replace("r1r2", "r1z2"), "`z`"),
        (good.replace("r1r2r3", "r1r1r3"), "both"),
        (format!("{} {} {} 0", fields[0], fields[1].replacen('/', "", 1), fields[2]), "11 ranks"),
    ] {
        let err = CoToanState::deserialize(&bad).unwrap_err().to_string();
        assert!(err.contains(needle), "{bad}: {err}");
    }
    // Random damage: every mutation is either a valid snapshot or an error.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let alphabet: Vec<char> = "rb0123456789./ -=:,+abcdefghijklmnopqrstuvwxyz".chars().collect();
    for _ in 0..3000 {
        let mut chars: Vec<char> = good.chars().collect();
        for _ in 0..rng.random_range(1..4) {
            let i = rng.random_range(0..chars.len());
            match rng.random_range(0..3) {
                0 => chars[i] = alphabet[rng.random_range(0..alphabet.len())],
                1 => {
                    chars.remove(i);
                }
                _ => chars.insert(i, alphabet[rng.random_range(0..alphabet.len())]),
            }
        }
        let text: String = chars.into_iter().collect();
        if let Ok(state) = CoToanState::deserialize(&text) {
            assert_eq!(CoToanState::deserialize(&state.serialize()).unwrap(), state);
        }
    }
}

#[test]
fn bad_actions_are_errors_that_leave_the_state_alone() {
    let mut s = CoToanState::new(Settings::default()).unwrap();
    let before = s.clone();
    assert_eq!(s.apply_action(NUM_ACTIONS as u16), Err(CoToanError::BadAction(9801)));
    assert!(matches!(s.apply_action(0), Err(CoToanError::IllegalMove { .. })), "a1-a1");
    assert!(matches!(s.apply_action(mv("e2-e3").action()), Err(CoToanError::IllegalMove { .. })));
    assert_eq!(s, before);
    assert_eq!(s.action_to_string(20_000), "invalid-action-20000");
    assert!("z9".parse::<Square>().unwrap_err().to_string().contains("not a square"));
    assert!("c4".parse::<Move>().unwrap_err().to_string().contains("not a move"));
}

// ---- 6. Symmetries, determinism and the state API ------------------------------

#[test]
fn colour_swap_and_mirror_commute_with_the_rules() {
    for (i, settings) in settings_variety().into_iter().enumerate() {
        for state in sample_states(settings, 100 + i as u64) {
            for (image, map) in [
                (state.color_swapped(), Move::rotated as fn(Move) -> Move),
                (state.mirrored(), Move::mirrored as fn(Move) -> Move),
            ] {
                let mut expected: Vec<Move> = state.legal_moves().into_iter().map(map).collect();
                expected.sort_by_key(|m| m.action());
                assert_eq!(image.legal_moves(), expected, "{}", state.serialize());
                for m in state.legal_moves_with_witnesses() {
                    let mapped = map(m.mv);
                    let ws: Vec<Witness> = m
                        .witnesses()
                        .into_iter()
                        .map(|x| Witness { operator: x.operator, support: map(Move::new(x.support, x.support)).from })
                        .collect();
                    assert_eq!(image.capture_witnesses(mapped.action()), ws);
                    let child_image = image.child(mapped).unwrap();
                    let image_child = state.child(m.mv).unwrap();
                    let image_child = if image.to_move() == state.to_move() {
                        image_child.mirrored()
                    } else {
                        image_child.color_swapped()
                    };
                    assert_eq!(child_image, image_child);
                }
                let winner = |s: &CoToanState| s.outcome().map(|o| (o.reason, o.winner));
                let swapped_winner = winner(&state)
                    .map(|(r, w)| (r, if image.to_move() == state.to_move() { w } else { w.map(Color::opponent) }));
                assert_eq!(winner(&image), swapped_winner);
            }
            assert_eq!(state.color_swapped().color_swapped(), state);
            assert_eq!(state.mirrored().mirrored(), state);
        }
    }
}

#[test]
fn seeded_games_are_deterministic_and_every_state_is_consistent() {
    let play = |seed: u64| -> Vec<String> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        random_trajectory(Settings { horizon: 120, threshold: 25, ..Settings::default() }, 200, &mut rng)
            .iter()
            .map(CoToanState::serialize)
            .collect()
    };
    assert_eq!(play(9), play(9));
    assert_ne!(play(9), play(10));
    let mut ended = 0;
    for seed in 0..40 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let states = random_trajectory(Settings { horizon: 120, ..Settings::default() }, 200, &mut rng);
        for pair in states.windows(2) {
            let [a, b] = [&pair[0], &pair[1]];
            assert_eq!(b.ply(), a.ply() + 1);
            let gained: u8 = b.scores().iter().sum::<u8>() - a.scores().iter().sum::<u8>();
            let lost = a.board().pieces().count() - b.board().pieces().count();
            assert!(lost <= 1 && (lost == 1 || gained == 0), "a ply removes at most one piece");
        }
        let last = states.last().unwrap();
        ended += usize::from(last.is_terminal());
        assert!(last.is_terminal() || last.ply() == 200);
    }
    assert_eq!(ended, 40, "a 120-ply horizon ends every game");
}

/// A uniform random game through the generic trait only.
fn generic_playout<G: GameState>(mut state: G, rng: &mut impl Rng) -> G {
    while !state.is_terminal() {
        let legal = state.legal_actions();
        let mask = state.legal_action_mask();
        assert_eq!(mask.len(), state.num_distinct_actions());
        assert_eq!(mask.iter().filter(|&&b| b).count(), legal.len());
        state.apply_action(legal[rng.random_range(0..legal.len())]).unwrap();
    }
    state
}

#[test]
fn the_generic_state_api_plays_cotoan() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..5 {
        let end = generic_playout(CoToanState::new(Settings::default()).unwrap(), &mut rng);
        assert!(GameState::returns(&end).iter().sum::<f32>() == 0.0);
        assert_eq!(GameState::current_player(&end), None);
        assert_eq!(end.num_distinct_actions(), 9801);
    }
}

#[test]
fn the_observation_carries_board_controller_budget_and_settings() {
    let a = CoToanState::new(Settings::default()).unwrap();
    let obs = a.observation();
    assert_eq!(obs.len(), OBSERVATION_LEN);
    let b = a.child(mv("a1-a2")).unwrap();
    let names: Vec<String> =
        observation::differences(&obs, &b.observation()).iter().map(|d| observation::entry_name(d.0)).collect();
    assert_eq!(names, ["red-1@a1", "red-1@a2", "red-to-move", "blue-to-move", "remaining-plies", "remaining-fraction"]);
    for (settings, name) in [
        (Settings { threshold: 9, ..Settings::default() }, "threshold"),
        (Settings { horizon: 299, ..Settings::default() }, "horizon"),
        (Settings { horizon_rule: HorizonRule::Draw, ..Settings::default() }, "horizon-rule-draw"),
        (Settings { operators: OperatorMask::from_bits(15).unwrap(), ..Settings::default() }, "operator-mod"),
    ] {
        let other = CoToanState::new(settings).unwrap();
        let names: Vec<String> =
            observation::differences(&obs, &other.observation()).iter().map(|d| observation::entry_name(d.0)).collect();
        assert!(names.contains(&name.to_string()), "{name}: {names:?}");
    }
}

// ---- 7. Diagnostics ----------------------------------------------------------

#[test]
fn rq2_witness_sampling_doubles_the_two_witness_capture() {
    let rq2 = witness_sampling(&rq2_fixtures(20, 0));
    assert!(rq2.witness_labelled_actions > rq2.endpoint_actions);
    assert!(rq2.fixtures_with_duplicates >= 2, "the 2x1 and 8/3 fixtures");
    let ex = rq2.example;
    assert_eq!(ex.witnesses, vec![w(Operator::Div, "d4"), w(Operator::Mod, "d4")]);
    assert_eq!(ex.witness_labelled_actions, ex.endpoint_actions + 1);
    assert_eq!(ex.endpoint_probability, Fraction::new(1, ex.endpoint_actions as u64));
    assert_eq!(ex.witness_probability, Fraction::new(2, ex.witness_labelled_actions as u64));
    assert!(ex.same_successor);
    let ratio = ex.witness_probability.ratio(ex.endpoint_probability);
    assert_eq!(ratio, Fraction::new(2 * ex.endpoint_actions as u64, ex.witness_labelled_actions as u64));
}

/// The move list replays from the start, with every move legal, to the state.
fn assert_reachable(line: &Line) {
    let mut state = CoToanState::new(line.settings).unwrap();
    for (i, &m) in line.moves.iter().enumerate() {
        assert!(state.is_legal(m), "ply {}: {m} is not legal", i + 1);
        state.apply_move(m).unwrap();
    }
    assert_eq!(state, line.state);
}

/// The pair's two states, once both are seen to be reachable.
fn reachable_states(pair: &AliasedPair) -> (&CoToanState, &CoToanState) {
    assert_reachable(&pair.left);
    assert_reachable(&pair.right);
    (&pair.left.state, &pair.right.state)
}

/// The names of the observation entries in which the pair's states differ.
fn differing_entries(pair: &AliasedPair) -> Vec<String> {
    pair.observation_differences().iter().map(|d| observation::entry_name(d.0)).collect()
}

#[test]
fn rq3_horizon_pair_is_reachable_aliased_and_separated() {
    let pair = horizon_pair().unwrap();
    let (l, r) = reachable_states(&pair);
    assert_eq!((l.ply(), r.ply()), (3, 299));
    assert_eq!(l.board(), r.board());
    assert_eq!(l.to_move(), r.to_move());
    assert_eq!(l.legal_actions(), r.legal_actions());
    let (probe, after_l, after_r) = pair.probe.clone().unwrap();
    assert!(l.is_legal(probe) && r.is_legal(probe));
    assert_eq!(after_l.ply(), 4);
    assert_eq!(after_l.outcome(), None);
    assert_eq!(after_r.ply(), 300);
    assert_eq!(after_r.outcome(), Some(Outcome { winner: None, reason: EndReason::Horizon }));
    assert_eq!(after_r.scores(), [0, 0], "an equal-score adjudication, not the draw rule");
    assert_eq!(pair.left.settings.horizon_rule, HorizonRule::Score);
    assert_eq!(differing_entries(&pair), ["remaining-plies", "remaining-fraction"]);
    assert_eq!(pair.replay().unwrap(), (l.clone(), r.clone()));
}

#[test]
fn rq3_settings_pairs_are_reachable_and_separated() {
    let rule = horizon_rule_pair().unwrap();
    let (l, r) = reachable_states(&rule);
    assert_eq!((l.board(), l.to_move(), l.ply()), (r.board(), r.to_move(), r.ply()));
    assert_eq!(l.ply(), 300);
    assert_eq!(l.scores(), [9, 0]);
    assert_eq!(l.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::Horizon }));
    assert_eq!(r.outcome(), Some(Outcome { winner: None, reason: EndReason::Horizon }));
    assert_eq!(differing_entries(&rule), ["horizon-rule-draw"]);

    let threshold = threshold_pair().unwrap();
    let (l, r) = reachable_states(&threshold);
    assert_eq!((l.board(), l.to_move(), l.ply()), (r.board(), r.to_move(), r.ply()));
    assert_eq!((l.settings().threshold, r.settings().threshold), (9, 0));
    assert_eq!(l.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::Threshold }));
    assert_eq!(r.outcome(), None);
    assert_eq!(differing_entries(&threshold), ["threshold"]);
}
