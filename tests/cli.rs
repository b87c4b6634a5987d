//! End-to-end tests of the `stratego` command.

mod common;
use common::*;

use std::io::Write;
use std::process::Stdio;

const CLASSIC: &str = "stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=4000,max-battleless=200";

/// Red Scout on b2, red Flag on e2, a Blue Sergeant on b5; Red to move.
fn scout_position() -> String {
    let board =
        "f........./........../........../........../..~~..~~../.e~~..~~../........../........../.O..F...../..........";
    format!("{CLASSIC} {board} red 0 0")
}

#[test]
fn play_is_seeded_and_prints_boards_and_result() {
    let text = stratego_ok(&["play", "--seed", "7"]);
    assert!(text.contains("a  b  c  d  e  f  g  h  i  j"), "board footer: {text}");
    assert!(text.contains("rules stratego-rules-v1:pieces=classic"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("ply ") && (last.contains("-wins ") || last.contains(": draw ")), "{last}");
    assert_eq!(stdout(&stratego(&["play", "--seed", "7"])), text, "same seed, same game");
    assert_ne!(stdout(&stratego(&["play", "--seed", "8"])), text, "another seed, another game");
}

#[test]
fn played_records_replay_to_the_same_result_and_refuse_other_rules() {
    let dir = scratch("record");
    let path = dir.join("game.txt");
    let p = path.to_str().unwrap();
    let played = stratego_ok(&["play", "--seed", "11", "--pieces", "barrage", "--record", p]);
    let result_line = played.lines().rfind(|l| l.starts_with("ply ")).unwrap().to_string();

    let replayed = stratego_ok(&["replay", p]);
    assert_eq!(replayed.lines().last().unwrap(), result_line);

    let barrage = CLASSIC.replace("classic", "barrage");
    stratego_ok(&["replay", p, "--rules", &barrage]);
    let refused = assert_refused(&["replay", p, "--rules", CLASSIC], "ruleset mismatch");
    let err = stderr(&refused);
    let ids = err.matches(|c: char| c.is_ascii_hexdigit()).count();
    assert!(ids >= 16, "both 8-hex ids are named: {err}");

    // An existing file is never overwritten.
    assert_refused(&["play", "--seed", "12", "--record", p], "already exists");
    assert_eq!(stdout(&stratego(&["replay", p])).lines().last().unwrap(), result_line);

    // Neither a symlink nor a file under the temporary name is written
    // through: the record's own files are created new.
    let elsewhere = dir.join("elsewhere.txt");
    std::fs::write(&elsewhere, "not a record").unwrap();
    let fresh = dir.join("fresh.txt");
    std::os::unix::fs::symlink(&elsewhere, dir.join("fresh.txt.partial")).unwrap();
    assert_refused(&["play", "--seed", "13", "--record", fresh.to_str().unwrap()], "cannot write");
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "not a record");
    assert!(!fresh.exists());
    std::os::unix::fs::symlink(&elsewhere, dir.join("linked.txt")).unwrap();
    assert_refused(&["play", "--seed", "13", "--record", dir.join("linked.txt").to_str().unwrap()], "already exists");
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "not a record");

    // A tampered record fails on the first illegal move, naming its ply.
    let text = std::fs::read_to_string(&path).unwrap();
    let tampered = dir.join("tampered.txt");
    let moves_line = text.lines().find(|l| l.starts_with("moves ")).unwrap();
    let first_move = moves_line.split_whitespace().nth(1).unwrap();
    std::fs::write(&tampered, text.replacen(first_move, "e5-e6", 1)).unwrap();
    assert_refused(&["replay", tampered.to_str().unwrap()], "ply 1");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn legal_lists_moves_in_absolute_squares() {
    // Red Scout on b2 with a Blue piece on b5: it runs to b3, b4 and strikes
    // b5; sideways a2 and c2..j2 would be on rank 2, where the red Flag on
    // e2 blocks the way east after d2.
    let position = scout_position();
    let mut moves: Vec<String> = stratego_ok(&["legal", &position]).lines().map(String::from).collect();
    moves.sort();
    let mut expected = vec!["b2-a2", "b2-b1", "b2-b3", "b2-b4", "b2-b5", "b2-c2", "b2-d2"];
    expected.sort();
    assert_eq!(moves, expected);

    // The same position with moves after it, read from stdin.
    let mut child = command(&["legal", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(format!("{position} moves b2-b5").as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    // The Scout died striking the Sergeant, who now has Blue's only moves.
    let listed = succeeded(&o);
    let mut moves: Vec<&str> = listed.lines().collect();
    moves.sort();
    assert_eq!(moves, vec!["b5-a5", "b5-b4", "b5-b6"]);
}

#[test]
fn bad_input_is_one_error_line_and_status_1() {
    assert_refused(&["legal", "nonsense"], "malformed position");
    let on_lake = format!("{CLASSIC} f........./........../........../........../..~~..~~../..M~..~~../........../........../........../....F..... red 0 0");
    let v2 = format!("{} x red 0 0", CLASSIC.replace("-v1:", "-v2:"));
    let dir = scratch("bad-record");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "stratego-record v1\nrules x\n").unwrap();
    for (args, needle) in [
        (&["legal", &on_lake][..], "lake"),
        (&["legal", &v2], "not supported"),
        (&["replay", "/nonexistent/game.txt"], "cannot read"),
        (&["play", "--max-plies", "0"], "max-plies"),
        (&["play", "--two-square", "99"], "two-square"),
        (&["replay", bad.to_str().unwrap()], "ruleset"),
    ] {
        assert_refused(args, needle);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_prints_one_figure_per_line() {
    let text = stratego_ok(&["bench", "engine", "--plies", "20000", "--rounds", "3"]);
    assert!(text.contains("engine random playout (full rules): "), "{text}");
    // A rule's cost is a ratio of alternating rounds with its spread, not a
    // difference of two noisy timings (which came out as a negative cost).
    for rule in ["chasing", "two-square"] {
        let line = text.lines().find(|l| l.starts_with(&format!("engine {rule} rule cost: "))).expect("a cost line");
        assert!(line.contains("x the time per ply without it (median of 3 alternating rounds, range "), "{line}");
        let numbers: Vec<f64> =
            line.split(|c: char| !(c.is_ascii_digit() || c == '.')).filter_map(|t| t.parse().ok()).collect();
        let (median, low, high) = (numbers[0], numbers[2], numbers[3]);
        assert!(low > 0.0 && low <= median && median <= high, "{line}");
    }
    assert_figure_lines(&text);
}

/// `doctor` as CI runs it on the CPU: the machine, its memory limit, the GPU
/// files it shows, one line for every backend (working with its speed and
/// memory, or not built with what to do), and which device to train on;
/// and under a shell's address-space limit, that limit.
#[test]
fn doctor_says_what_runs_here_and_what_to_do_about_the_rest() {
    let text = stratego_ok(&["doctor", "--batch", "4", "--iterations", "1"]);
    let line =
        |prefix: &str| text.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {text}"));
    assert!(line("machine: ").contains(" cores"), "{text}");
    assert!(line("memory: ").contains(" GiB"), "{text}");
    line("GPU: ");
    let flex = line("flex: ok: the tiny network (compact, batch 4): forward ");
    assert!(flex.contains("samples/s, train step ") && flex.contains("peak resident memory"), "{flex}");
    // The default build (`.ci/run`'s): flex alone.
    if !cfg!(feature = "ndarray") {
        assert!(line("ndarray: not built into this program: ").contains("--features ndarray"), "{text}");
    }
    if !cfg!(feature = "wgpu") {
        let wgpu = line("wgpu: not built into this program: ");
        assert!(wgpu.contains("--features wgpu") && wgpu.contains("Vulkan"), "{wgpu}");
        assert_eq!(line("use: "), "use: train with --device cpu (flex)");
    }
    line("cuda: ");
    assert_eq!(text.lines().count(), 8, "{text}");

    let script =
        format!("ulimit -v 4000000 && exec '{}' doctor --batch 4 --iterations 1", env!("CARGO_BIN_EXE_stratego"));
    let o = std::process::Command::new("sh").arg("-c").arg(&script).output().unwrap();
    let text = succeeded(&o);
    assert!(text.contains("memory: the address space left under this process's limit (ulimit -v),"), "{text}");
}

#[test]
fn obs_prints_planes_and_refuses_bad_layouts() {
    let position = scout_position();
    let text = stratego_ok(&["obs", &position, "--layout", "compact", "--plane", "1"]);
    assert!(text.contains("plane 1 own_scout"), "{text}");
    // Red's Scout on b2: frame row 1, column 1.
    let row1 = text.lines().find(|l| l.starts_with("  1 ")).unwrap();
    assert_eq!(row1.split_whitespace().collect::<Vec<_>>(), ["1", ".", "1", ".", ".", ".", ".", ".", ".", ".", "."]);
    assert!(
        stratego_ok(&["obs", &position, "--layout", "full"]).contains("start_square_"),
        "non-zero planes are listed"
    );
    assert_refused(&["obs", &position, "--layout", "huge"], "unknown observation layout");
    let past = stratego_engine::Layout::Compact.channels().to_string();
    assert_refused(&["obs", &position, "--plane", &past], &format!("plane {past} does not exist"));
}

/// Every bounded count flag documents its range in its help, and the
/// documented range is the one its parser checks (the two stand on
/// adjacent lines of the source; this keeps them from drifting apart).
#[test]
fn count_flags_document_the_range_they_check() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // The command's sources, its modules' folders included.
    let mut files = Vec::new();
    let mut folders = vec![src];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut checked = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(at) = line.find("value_parser = crate::count::<") else { continue };
            let args = &line[at..];
            let inner = &args[args.find('(').unwrap() + 1..args.find(')').unwrap()];
            let (lo, hi) = inner.split_once(", ").unwrap();
            let readable = |n: &str| n.replace('_', ",");
            let range = format!("[{} to {}]", readable(lo), readable(hi));
            assert!(
                lines[i - 1].contains(&range),
                "{}:{}: the doc line above should say {range}",
                path.display(),
                i + 1
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked}");
}

#[test]
fn a_missing_argument_or_subcommand_is_named_in_one_line() {
    // The arguments clap found missing are named, not only "(see --help)".
    assert_refused(&["model", "info"], "<CHECKPOINT>");
    assert_refused(&["model", "init"], "--out <OUT>");
    // A command without its subcommand is one line listing the choices,
    // never a usage screen.
    for (args, path, choices) in [
        (&[][..], "stratego", &["play", "arena", "train", "register"][..]),
        (&["register"][..], "stratego register", &["run"][..]),
        (&["model"][..], "stratego model", &["presets", "init", "info"][..]),
        (&["cotoan"][..], "stratego cotoan", &[][..]),
        (&["bench"][..], "stratego bench", &["engine", "agents", "model"][..]),
        (&["ntuple"][..], "stratego ntuple", &["train"][..]),
    ] {
        let o = assert_refused(args, &format!("`{path}` needs a subcommand, one of: "));
        for choice in choices {
            assert!(stderr(&o).contains(choice), "{args:?}: {}", stderr(&o));
        }
        assert!(!stderr(&o).contains("help,") && !stderr(&o).contains("Usage"), "{}", stderr(&o));
    }
}
