//! End-to-end tests of `stratego ntuple train` (run directory, checkpoints,
//! TensorBoard, exact resumption, config errors) and `stratego bench ntuple`.

mod common;
use common::*;

use std::path::Path;

use stratego_baselines::ntuple::NTupleNet;

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/ntuple-tiny.toml");

fn train(args: &[&str]) -> std::process::Output {
    let mut all = vec!["ntuple", "train"];
    all.extend(args);
    stratego(&all)
}

/// Trains the tiny config into `run`, which must succeed: its stdout.
fn train_tiny(run: &Path) -> String {
    succeeded(&train(&["--config", TINY, "--run", run.to_str().unwrap()]))
}

fn weights(path: &Path) -> Vec<f32> {
    NTupleNet::load(path, None).unwrap().weights().to_vec()
}

#[test]
fn a_short_run_writes_checkpoints_and_curves_and_resumes_exactly() {
    let dir = scratch("ntuple-train");
    let whole = dir.join("whole");
    let text = train_tiny(&whole);
    assert!(text.contains("12 of 12 games done") && text.contains("last score vs greedy: "), "{text}");
    // Checkpoints every 4 games, the last 2 kept; the final tables.
    let names = listed(&whole);
    assert!(
        names.contains(&"ntuple-00000008.safetensors".into()) && names.contains(&"ntuple-00000012.safetensors".into())
    );
    assert!(!names.contains(&"ntuple-00000004.safetensors".into()), "pruned: {names:?}");
    assert!(names.contains(&"final.safetensors".into()) && names.contains(&"config.toml".into()), "{names:?}");
    let net = NTupleNet::load(&whole.join("final.safetensors"), None).unwrap();
    assert_eq!(net.games, 12);
    assert_eq!(weights(&whole.join("final.safetensors")), weights(&whole.join("ntuple-00000012.safetensors")));
    // TensorBoard: the TD error every 2 games, the score every 4.
    let scalars = stratego_runlog::read_scalars(&whole).unwrap();
    let steps = |tag: &str| scalars.iter().filter(|s| s.tag == tag).map(|s| s.step).collect::<Vec<_>>();
    assert_eq!(steps("td/error"), vec![2, 4, 6, 8, 10, 12]);
    assert_eq!(steps("eval/score"), vec![4, 8, 12]);
    let metrics = std::fs::read_to_string(whole.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics.lines().count(), 9);
    // The curves as a picture, redrawn at each evaluation and at the end.
    assert!(text.contains("curves: "), "{text}");
    let png = std::fs::read(whole.join("curves.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());
    assert!(!names.iter().any(|n| n.contains("partial")), "{names:?}");

    // The same run stopped after 5 games (as if killed) and resumed ends
    // with the same tables.
    let parts = dir.join("parts");
    let text = succeeded(&train(&["--config", TINY, "--run", parts.to_str().unwrap(), "--stop-after", "5"]));
    assert!(text.contains("stopped; continue with --resume"), "{text}");
    assert!(!parts.join("final.safetensors").exists());
    let text = succeeded(&train(&["--resume", parts.to_str().unwrap()]));
    assert!(text.contains("(resumed)") && text.contains("5 of 12 games played"), "{text}");
    assert_eq!(weights(&parts.join("final.safetensors")), weights(&whole.join("final.safetensors")));
    assert!(std::fs::read_to_string(parts.join("metrics.jsonl")).unwrap().contains(r#""event":"resumed""#));
    let scalars = stratego_runlog::read_scalars(&parts).unwrap();
    assert!(scalars.iter().any(|s| s.tag == "eval/score" && s.step == 12));

    // A run directory is never reused. One whose start was cut off before
    // its first checkpoint (only its config is there) resumes from the
    // start, saying so, and ends with the whole run's tables.
    assert_one_line_error(&train(&["--config", TINY, "--run", whole.to_str().unwrap()]), "already exists");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::copy(whole.join("config.toml"), empty.join("config.toml")).unwrap();
    let o = train(&["--resume", empty.to_str().unwrap()]);
    succeeded(&o);
    assert!(stderr(&o).contains("no checkpoint (ntuple-<games>.safetensors) yet: starting from the untrained tables"));
    assert_eq!(weights(&empty.join("final.safetensors")), weights(&whole.join("final.safetensors")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_configs_are_one_error_line_naming_the_key() {
    let dir = scratch("ntuple-config");
    let tiny = std::fs::read_to_string(TINY).unwrap();
    let check = |name: &str, text: &str, needle: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let run = dir.join(format!("run-{name}"));
        assert_one_line_error(&train(&["--config", path.to_str().unwrap(), "--run", run.to_str().unwrap()]), needle);
        assert!(!run.exists(), "nothing is created for a bad config");
    };
    check("unknown.toml", &tiny.replace("[td]\n", "[td]\nmomentum = 0.9\n"), "unknown field `momentum`");
    check("alpha.toml", &tiny.replace("alpha = 0.1", "alpha = 2.0"), "`td.alpha`");
    check("layout.toml", &tiny.replace("layout = \"lines2+material\"", "layout = \"snakes\""), "`layout`");
    check("pieces.toml", &tiny.replace("pieces=barrage", "pieces=mini"), "`rules`");
    check("games.toml", &tiny.replace("games = 4\n", "games = 3\n"), "`eval.games`");
    check("keep.toml", &tiny.replace("keep = 2", "keep = 0"), "`checkpoint.keep`");
    check("opponent.toml", &tiny.replace("[eval]\n", "[eval]\nopponent = \"alphazero\"\n"), "`eval.opponent`");
    assert_one_line_error(&train(&["--config", "/nonexistent/c.toml"]), "cannot read /nonexistent/c.toml");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ntuple_players_play_in_the_arena_and_bad_tables_are_errors() {
    let dir = scratch("ntuple-arena");
    let run = dir.join("run");
    train_tiny(&run);
    let tables = run.join("final.safetensors");
    let spec = format!("ntuple:{}", tables.display());
    let leaf = format!("expectimax:depth=2,nodes=300,leaf=ntuple:{}", tables.display());
    let play = |a: &str, b: &str, pieces: &str, out: &str| {
        let out = dir.join(out);
        arena(a, b, "2", &["--seed", "1", "--pieces", pieces, "--max-plies", "200", "--out", out.to_str().unwrap()])
    };
    let text = succeeded(&play(&spec, &leaf, "barrage", "match"));
    assert!(text.contains("W/D/L (A): "), "{text}");
    // Tables trained for Barrage refuse a classic match.
    assert_one_line_error(&play(&spec, "greedy", "classic", "m2"), "but the match plays");
    // With no ruleset switch, the match plays the rules the tables were trained for.
    let text = succeeded(&arena(&spec, "greedy", "2", &["--out", dir.join("m5").to_str().unwrap()]));
    assert!(text.contains("pieces=barrage,two-square=3,chase=on,max-plies=200"), "{text}");
    assert_one_line_error(&play("ntuple:/nonexistent/t.safetensors", "greedy", "barrage", "m3"), "cannot read");
    std::fs::write(dir.join("junk.safetensors"), b"junk").unwrap();
    let junk = format!("expectimax:leaf=ntuple:{}", dir.join("junk.safetensors").display());
    assert_one_line_error(&play(&junk, "greedy", "barrage", "m4"), "not a safetensors file");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_ntuple_prints_name_number_unit_lines() {
    let text =
        stratego_ok(&["bench", "ntuple", "--positions", "10", "--repeat", "2", "--rounds", "1", "--train-games", "2"]);
    assert_contains_all(
        &text,
        &[
            "ntuple full evaluation (singles+lines2+material, 258 tuples): ",
            "ntuple afterstate evaluation",
            "ntuple anchor greedy move score: ",
            "ntuple anchor expectimax hand-written evaluation: ",
            "ntuple self-play training: ",
        ],
    );
    assert_figure_lines(&text);
}
