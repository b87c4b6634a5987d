//! Hand-checked lookups, mirror symmetry, the TD step, table files and the
//! trainer's determinism.

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use safetensors::tensor::{SafeTensors, TensorView};
use stratego_engine::{Board, Color, Piece, Position, Ruleset, Square, State};

use super::alphabet::*;
use super::net::NTupleNet;
use super::*;
use stratego_players::player::AgentRng;
use stratego_players::view::{public_history, InfoView};

const RULES: &str = "stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200";

fn state(board: &str, side: &str) -> State {
    State::deserialize(&format!("{RULES} {board} {side} 10 3")).unwrap()
}

/// A network with small seeded random weights.
fn random_net(layout: &str, seed: u64, coherence: bool) -> NTupleNet {
    let mut net = NTupleNet::new(Layout::preset(layout).unwrap(), Ruleset::classic(), coherence).unwrap();
    let mut rng = AgentRng::seed_from_u64(seed);
    for k in 0..net.layout().tables() {
        for w in net.table_mut(k) {
            *w = rng.random_range(-0.05..0.05);
        }
    }
    for w in net.material_tables_mut() {
        *w = rng.random_range(-0.05..0.05);
    }
    net
}

fn midgame(seed: u64, plies: usize) -> State {
    stratego_engine::playout::random_position(Ruleset::classic(), plies, &mut AgentRng::seed_from_u64(seed))
}

// Red: Flag a1, Scout b1, Spy h1, Miner a5, a hidden Sergeant on i10.
// Blue: revealed Miner c1, hidden moved Scout j1, revealed General b5,
// hidden unmoved Bomb b6, Marshal h10, Flag j10.
const HAND: &str =
    ".......mEf/........../........../........../.b~~..~~../Ng^+~~..~~../........../........../........../FOn^+....S.o+";

#[test]
fn lookups_match_hand_computed_indices() {
    let net = NTupleNet::new(Layout::preset("lines3+mouths").unwrap(), Ruleset::classic(), false).unwrap();
    let tuples = &net.layout().tuples;
    let s = state(HAND, "red");
    let red_position = encode_state(&s, Color::Red);
    let red = red_position.board;
    // Tuple 0 reads a1 b1 c1, its mirror (tuple 1, same table) j1 i1 h1.
    assert_eq!(tuples[0].cells, vec![0, 1, 2]);
    assert_eq!(tuples[1].cells, vec![9, 8, 7]);
    assert_eq!((tuples[0].table, tuples[1].table), (0, 0));
    // own-immovable (2) + own-weak (5) * 16 + opp-miner (10) * 256
    assert_eq!(net.index(0, &red), 2 + 5 * 16 + 10 * 256);
    // opp-hidden-moved (14) + empty * 16 + own-spy (3) * 256
    assert_eq!(net.index(1, &red), 14 + 3 * 256);
    // The side lane's mouth a5 b5 a6 b6: own-miner, opp-strong, empty, opp-hidden-unmoved.
    assert_eq!(tuples[128].cells, vec![40, 41, 50, 51]);
    assert_eq!(net.index(128, &red), 4 + 13 * 16 + 15 * 4096);
    // Blue's frame is rotated: its cells 0, 1, 2 are j10, i10, h10: own
    // Flag, a hidden unmoved Red piece, own Marshal.
    let blue = encode_state(&s, Color::Blue).board;
    assert_eq!(net.index(0, &blue), 2 + 15 * 16 + 7 * 256);
    // Blue sees Red's a5 Miner (its frame cell 99 - 40 = 59) as hidden, unmoved.
    assert_eq!(blue[59], HIDDEN_UNMOVED);
    assert_eq!(blue[99 - 41], own(stratego_engine::PieceType::General));
    // The value is the sum of one entry per tuple.
    let mut net = net;
    net.table_mut(0)[2 + 5 * 16 + 10 * 256] = 0.25;
    net.table_mut(0)[14 + 3 * 256] = -0.5;
    assert!((net.raw(&red_position) + 0.25).abs() < 1e-7);
    assert!((net.value(&red_position) - (-0.25f32).tanh()).abs() < 1e-7);
}

#[test]
fn material_lookups_count_own_pieces_and_the_opponents_not_lost() {
    let mut net = NTupleNet::new(Layout::preset("singles+material").unwrap(), Ruleset::classic(), false).unwrap();
    let s = state(HAND, "red");
    let red = encode_state(&s, Color::Red);
    use stratego_engine::PieceType::*;
    // Red has one each of Flag, Scout, Spy, Miner, Sergeant on the board;
    // Blue has lost nothing (a position's missing pieces count as lost, so
    // Blue's alive count is what stands on the board: 6 pieces).
    assert_eq!(red.material.own[Scout.index()], 1);
    assert_eq!(red.material.own[Marshal.index()], 0);
    assert_eq!(red.material.opp[General.index()], 1);
    assert_eq!(red.material.opp[Sergeant.index()], 0);
    // Table t's entry own + 16 * opp: the General's is 0 + 16 * 1.
    assert_eq!(NTupleNet::material_index(General.index(), &red.material), General.index() * 256 + 16);
    net.material_tables_mut()[General.index() * 256 + 16] = 0.5;
    assert!((net.raw(&red) - 0.5).abs() < 1e-7);
}

#[test]
fn the_view_and_the_state_encode_alike() {
    for seed in 0..6 {
        let s = midgame(seed, 40 + 20 * seed as usize);
        if s.is_terminal() {
            continue;
        }
        let history = public_history(&s);
        let view = InfoView::new(&s, &history);
        assert_eq!(encode_view(&view), encode_state(&s, s.to_move()));
        assert_eq!(
            encode_view(&view).material.opp,
            std::array::from_fn(|t| { s.rules().piece_set.counts()[t] - s.lost(s.to_move().opponent())[t] })
        );
    }
}

/// `state` with every piece moved to its left-right mirror square.
fn mirrored_state(s: &State) -> State {
    let mut board = Board::default();
    for (sq, p) in s.board().pieces() {
        let m = Square::from_row_col(sq.row(), 9 - sq.col()).unwrap();
        board.set(m, Some(Piece { origin: m, ..p }));
    }
    let p = s.position();
    State::from_position(Position { rules: p.rules, board, to_move: p.to_move, ply: p.ply, battleless: p.battleless })
        .unwrap()
}

#[test]
fn a_position_and_its_mirror_image_have_the_same_value() {
    for layout in ["lines3+mouths", "singles+lines2+squares+material", layout::DEFAULT] {
        let net = random_net(layout, 3, false);
        for seed in 0..8 {
            let s = midgame(seed, 30 * seed as usize);
            let m = mirrored_state(&s);
            for viewer in Color::BOTH {
                let (a, b) = (encode_state(&s, viewer), encode_state(&m, viewer));
                assert_eq!(b, mirror(&a), "mirroring the board mirrors the encoding in either frame");
                let (va, vb) = (net.value(&a), net.value(&b));
                assert!((va - vb).abs() < 1e-5, "{layout} seed {seed} {viewer}: {va} vs {vb}");
                assert!(va != 0.0);
            }
        }
    }
}

#[test]
fn incremental_afterstates_equal_full_evaluations() {
    use stratego_engine::PieceType::{Major, Scout};
    let net = random_net(layout::DEFAULT, 5, false);
    for seed in 0..5 {
        let s = midgame(seed + 10, 60);
        let position = encode_state(&s, s.to_move());
        let base = net.raw(&position);
        let mut scratch = position;
        for (a, b) in [(3usize, 13usize), (44, 45), (0, 99), (50, 51)] {
            let changes = [(a, EMPTY), (b, own(Major))];
            let losses = [(true, Scout), (false, Major)];
            let mut full = position;
            full.board[a] = EMPTY;
            full.board[b] = own(Major);
            full.material.own[Scout.index()] = full.material.own[Scout.index()].saturating_sub(1);
            full.material.opp[Major.index()] -= 1;
            let fast = net.raw_after(&mut scratch, base, &changes, &losses);
            assert!((fast - net.raw(&full)).abs() < 1e-5);
            assert_eq!(scratch, position, "restored");
        }
    }
}

#[test]
fn an_attack_on_a_hidden_piece_averages_its_afterstates_over_the_prior() {
    // Red Miner a4 against a hidden unmoved Blue piece on a5; Blue has only
    // a Bomb and its Flag left, so each is 1/2 likely.
    let s = state(
        "f........./........../........../........../..~~..~~../b.~~..~~../N........./........../........../.........F",
        "red",
    );
    let net = random_net(layout::DEFAULT, 8, false);
    let history = public_history(&s);
    let view = InfoView::new(&s, &history);
    let values = net.move_values(&view);
    let attack = view.legal_moves.iter().position(|m| m.to_string() == "a4-a5").unwrap();
    // Flag: the game is won (+1). Bomb: the Miner clears it and stands on
    // a5, and Blue has lost a Bomb.
    let mut after = encode_state(&s, Color::Red);
    after.board[30] = EMPTY;
    after.board[40] = own(stratego_engine::PieceType::Miner);
    after.material.opp[stratego_engine::PieceType::Bomb.index()] -= 1;
    let expected = 0.5 * 1.0 + 0.5 * net.value(&after) as f64;
    assert!((values[attack] - expected).abs() < 1e-5, "{} vs {expected}", values[attack]);
    // A quiet move has one afterstate.
    let quiet = view.legal_moves.iter().position(|m| m.to_string() == "a4-b4").unwrap();
    let mut after = encode_state(&s, Color::Red);
    after.board[30] = EMPTY;
    after.board[31] = own(stratego_engine::PieceType::Miner);
    assert!((values[quiet] - net.value(&after) as f64).abs() < 1e-5);
}

#[test]
fn one_td_step_moves_the_value_toward_the_target_by_the_expected_amount() {
    for coherence in [false, true] {
        let mut net = random_net(layout::DEFAULT, 9, coherence);
        let s = midgame(4, 80);
        let board = encode_state(&s, Color::Red);
        let features = net.features(&board);
        // Empty stretches read the same entry through a tuple and its
        // mirror: the norm counts such an entry with its multiplicity squared.
        assert!(features.norm > features.indices.len() as f32);
        let before = net.raw(&board);
        let v = before.tanh();
        let target = 1.0f32;
        let (alpha, delta) = (0.1f32, target - v);
        let error = delta * (1.0 - v * v);
        net.update(&features, error, alpha);
        let after = net.raw(&board);
        // Without TC the sum moves by exactly alpha * error; TC's factors
        // start at 1, so the first step is the same.
        assert!((after - before - alpha * error).abs() < 1e-5, "{coherence}: {} vs {}", after - before, alpha * error);
        assert!((target - after.tanh()).abs() < (target - v).abs());
    }
}

#[test]
fn temporal_coherence_slows_weights_whose_updates_change_sign() {
    let mut net = random_net("lines2", 1, true);
    let s = midgame(2, 50);
    let features = net.features(&encode_state(&s, Color::Red));
    let start = net.raw_of(&features.indices);
    net.update(&features, 1.0, 1.0);
    net.update(&features, -1.0, 1.0);
    // The factors start at 1: both steps were full, and cancel.
    assert!((net.raw_of(&features.indices) - start).abs() < 1e-5);
    // Every weight has now seen +e then -e: |sum| / sum |.| = 0, so a third step does nothing.
    net.update(&features, 1.0, 1.0);
    assert!((net.raw_of(&features.indices) - start).abs() < 1e-5);
}

#[test]
fn table_files_round_trip() {
    for coherence in [false, true] {
        let mut net = random_net(layout::DEFAULT, 11, coherence);
        net.games = 1234;
        if coherence {
            let s = midgame(3, 30);
            let f = net.features(&encode_state(&s, Color::Blue));
            net.update(&f, 0.3, 0.5);
        }
        let bytes = net.to_bytes(Some("seed 1"));
        // The same tables make the same bytes (the metadata in key order,
        // where a HashMap's order used to differ from one write to the next).
        for _ in 0..8 {
            assert_eq!(net.to_bytes(Some("seed 1")), bytes);
        }
        let back = NTupleNet::from_bytes(&bytes, Some(&Ruleset::classic())).unwrap();
        assert_eq!(back, net);
        assert_eq!(back.games, 1234);
        assert_eq!(back.coherence().is_some(), coherence);
    }
    let dir = stratego_testkit::scratch_dir("ntuple-file");
    let path = dir.join("t.safetensors");
    let net = random_net("lines2", 12, false);
    // A symlink planted under the temporary name is not written through.
    let bystander = stratego_testkit::planted_link(&dir, "t.safetensors.partial", "untouched");
    net.save(&path, None).unwrap();
    assert_eq!(std::fs::read_to_string(&bystander).unwrap(), "untouched");
    assert_eq!(NTupleNet::load(&path, None).unwrap(), net);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The bytes of `net`'s file with its metadata changed by `edit` and its
/// tensors by `tensors`.
fn rewritten(
    net: &NTupleNet,
    edit: impl FnOnce(&mut HashMap<String, String>),
    tensors: impl FnOnce(&mut Vec<(String, Vec<usize>, Vec<u8>)>),
) -> Vec<u8> {
    let bytes = net.to_bytes(None);
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
    let mut meta = header.metadata().clone().unwrap();
    edit(&mut meta);
    let mut data: Vec<(String, Vec<usize>, Vec<u8>)> =
        file.tensors().into_iter().map(|(n, t)| (n, t.shape().to_vec(), t.data().to_vec())).collect();
    tensors(&mut data);
    let views: Vec<(String, TensorView<'_>)> = data
        .iter()
        .map(|(n, shape, d)| (n.clone(), TensorView::new(safetensors::Dtype::F32, shape.clone(), d).unwrap()))
        .collect();
    safetensors::serialize(views, Some(meta)).unwrap()
}

#[test]
fn bad_or_mismatched_table_files_are_clear_errors() {
    let net = random_net("lines2+material", 13, false);
    let load = |bytes: &[u8]| NTupleNet::from_bytes(bytes, Some(&Ruleset::classic())).unwrap_err();
    let meta = |key: &'static str, value: &'static str| {
        rewritten(&net, |m| drop(m.insert(key.to_string(), value.to_string())), |_| ())
    };
    assert!(load(b"not a table file").contains("not a safetensors file"));
    let full = net.to_bytes(None);
    assert!(load(&full[..full.len() / 2]).contains("not a safetensors file"));
    assert!(load(&meta("ntuple.format", "stratego-ntuple-v0")).contains("format `stratego-ntuple-v0`"));
    assert!(load(&meta("ntuple.alphabet", "empty,lake")).contains("written for the alphabet `empty,lake`"));
    assert!(load(&meta("ntuple.squash", "sigmoid")).contains("squashing `sigmoid`"));
    assert!(load(&meta("ntuple.tuples", "[[0, [1, 2")).contains("`ntuple.tuples` is malformed"));
    assert!(load(&meta("ntuple.tuples", "[[0, [42, 43]]]")).contains("off the board or a lake"));
    assert!(load(&meta("ntuple.tuples", "[[1, [0, 1]]]")).contains("expected table 0"));
    assert!(load(&meta("stratego.ruleset_id", "00000000")).contains("does not match its ruleset text"));
    let missing = rewritten(&net, |m| drop(m.remove("ntuple.games")), |_| ());
    assert!(load(&missing).contains("metadata `ntuple.games` is missing"));
    // Another ruleset: refused when a ruleset is expected, accepted otherwise.
    let barrage = Ruleset::barrage();
    let other = rewritten(
        &net,
        |m| {
            m.insert("stratego.ruleset".into(), barrage.canonical());
            m.insert("stratego.ruleset_id".into(), barrage.id().to_string());
        },
        |_| (),
    );
    assert!(load(&other).contains("ruleset mismatch"), "{}", load(&other));
    assert!(NTupleNet::from_bytes(&other, None).is_ok());
    // Tensors: missing, of the wrong shape, non-finite, or stray.
    let dropped = rewritten(&net, |_| (), |t| t.retain(|(n, _, _)| n != "table.3"));
    assert!(load(&dropped).contains("tensor `table.3` is missing"));
    // A copy with the tensor `name` (name, shape, bytes) edited.
    let tensor = |name: &str, edit: fn(&mut (String, Vec<usize>, Vec<u8>))| {
        rewritten(&net, |_| (), |t| edit(t.iter_mut().find(|(n, _, _)| n == name).unwrap()))
    };
    let short = tensor("table.0", |(_, shape, bytes)| {
        *shape = vec![255];
        bytes.truncate(255 * 4);
    });
    assert!(load(&short).contains("tensor `table.0` is F32 of shape [255], expected F32 of shape [256]"));
    let nan = tensor("table.1", |(_, _, bytes)| bytes[8..12].copy_from_slice(&f32::NAN.to_le_bytes()));
    assert!(load(&nan).contains("non-finite value at index 2"));
    let stray = rewritten(&net, |_| (), |t| t.push(("extra".into(), vec![1], vec![0; 4])));
    assert!(load(&stray).contains("unexpected tensors [\"extra\"]"));
    let no_material = rewritten(&net, |_| (), |t| t.retain(|(n, _, _)| n != "material"));
    assert!(load(&no_material).contains("tensor `material` is missing"));
    assert!(load(&meta("ntuple.material", "counts")).contains("metadata `ntuple.material` is `counts`"));
    // Through a path, the error names the file.
    let err = NTupleNet::load(std::path::Path::new("/nonexistent/t.safetensors"), None).unwrap_err();
    assert!(err.to_string().starts_with("n-tuple table file /nonexistent/t.safetensors: cannot read"), "{err}");
}

/// A table file changed after it was written (one finite weight) fails its
/// checksum at load; one without a checksum (written before there was one)
/// still loads.
#[test]
fn a_table_file_changed_after_writing_fails_its_checksum() {
    let net = random_net("lines2+material", 17, false);
    let changed = rewritten(&net, |_| (), |data| data[0].2[0] ^= 1);
    let err = NTupleNet::from_bytes(&changed, None).unwrap_err();
    assert!(err.contains("do not match their checksum"), "{err}");
    let unsummed = rewritten(&net, |m| drop(m.remove("ntuple.sha256")), |_| ());
    assert_eq!(NTupleNet::from_bytes(&unsummed, None).unwrap(), net);
}

/// The press: ahead in a stalled game under rules without the
/// lab's progress rules, the afterstate player steps towards the enemy's
/// hidden pieces where its tables see no difference; with `press=off`, or
/// under the lab's rules with `press=auto`, it plays as it always did.
#[test]
fn the_afterstate_player_presses_only_when_ahead_in_a_stalled_lax_game() {
    use crate::press::Press;
    use std::sync::Arc;
    use stratego_players::player::Player;
    use stratego_players::SetupPolicy;
    // Red: its Flag (j1) and a Colonel on e6, whose only step towards
    // Blue's hidden pieces (a10, c10) is e7; Blue: those two and a revealed
    // Bomb on j5.
    let board = "f.b......./........../........../........../..~~C.~~../..~~..~~.b^/........../........../........../.........F";
    let lax = "stratego-rules-v1:pieces=classic,two-square=0,chase=off,max-plies=1000,max-battleless=4294967295";
    let zero = Arc::new(NTupleNet::new(Layout::preset(layout::DEFAULT).unwrap(), Ruleset::classic(), false).unwrap());
    let choices = |rules: &str, battleless: u32, press: Press| {
        let s = State::deserialize(&format!("{rules} {board} red 60 {battleless}")).unwrap();
        let history = public_history(&s);
        let view = InfoView::new(&s, &history);
        let mut player = NTuplePlayer { net: zero.clone(), name: "nt".into(), setup: SetupPolicy::Random, press };
        let mut chosen: Vec<String> = (0..40)
            .map(|seed| player.choose_move(&view, &mut AgentRng::seed_from_u64(seed)).unwrap().to_string())
            .collect();
        chosen.sort();
        chosen.dedup();
        chosen
    };
    // The zero tables tie every move: only the press breaks the tie.
    assert_eq!(choices(lax, 40, Press::Auto), ["e6-e7"]);
    assert_eq!(choices(lax, 40, Press::On), ["e6-e7"]);
    for unpressed in [choices(lax, 40, Press::Off), choices(lax, 10, Press::Auto), choices(RULES, 40, Press::Auto)] {
        assert!(unpressed.len() > 1 && unpressed.contains(&"e6-e5".to_string()), "{unpressed:?}");
    }
}
