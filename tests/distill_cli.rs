//! `stratego distill` end to end on a tiny budget: the checkpoint it writes
//! is a normal one, an existing output is refused, a bad teacher is a
//! one-line error naming its key, and `run.init` continues a checkpoint.

mod common;

use common::{assert_contains_all, assert_refused, scratch, stratego_ok};

const CONFIG: &str = r#"
[game]
setups = "handcrafted"
[model]
preset = "tiny"
[pretrain]
games = 4
holdout = 0.25
epochs = 1
batch = 32
"#;

#[test]
fn distill_writes_a_checkpoint_and_refuses_bad_input() {
    let dir = scratch("distill");
    let config = dir.join("distill.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let (config, out) = (config.to_str().unwrap(), dir.join("d.safetensors"));
    let out = out.to_str().unwrap();
    let text = stratego_ok(&["distill", "--config", config, "--out", out, "--games", "6"]);
    assert_contains_all(
        &text,
        &[
            "teacher greedy: 6 games (2 held out)",
            "teacher games: 6 games",
            "epoch 0 (before training)",
            "epoch 1:",
            "wrote",
        ],
    );
    let info = stratego_ok(&["model", "info", out]);
    assert!(info.contains("step 0"), "{info}");

    assert_refused(&["distill", "--config", config, "--out", out], "already exists");
    let other = dir.join("e.safetensors");
    let other = other.to_str().unwrap();
    assert_refused(&["distill", "--config", config, "--out", other, "--teacher", "alphazero"], "`pretrain.teacher`");
    assert_refused(&["distill", "--config", config, "--out", other, "--games", "1"], "`pretrain.games`");
    assert!(!std::path::Path::new(other).exists());

    // A round of expert iteration from the checkpoint just written: with
    // `run.init` the imitation starts from it. The same seed plays the same
    // teacher games, so the round's epoch 0 measures, on the same held-out
    // decisions, the network the first distill ended with: its held-out
    // figures are the first distill's after epoch 1 (a fresh start would
    // repeat the first distill's epoch 0). One of another network size is
    // refused naming the key, before any teacher game.
    let round = dir.join("round.toml");
    std::fs::write(&round, format!("[run]\ninit = \"{out}\"\n{CONFIG}")).unwrap();
    let round = round.to_str().unwrap();
    let again = stratego_ok(&["distill", "--config", round, "--out", other, "--games", "6"]);
    assert_contains_all(&again, &["epoch 0 (before training)", "epoch 1:", "wrote"]);
    let (ended, started) = (heldout_figures(&text, "epoch 1:"), heldout_figures(&again, "epoch 0 "));
    assert_eq!(started, ended, "{text}\n{again}");
    assert_ne!(started, heldout_figures(&text, "epoch 0 "), "{text}\n{again}");
    let small = dir.join("small.toml");
    std::fs::write(&small, format!("[run]\ninit = \"{out}\"\n{}", CONFIG.replace("\"tiny\"", "\"small\""))).unwrap();
    let third = dir.join("f.safetensors");
    let args = ["distill", "--config", small.to_str().unwrap(), "--out", third.to_str().unwrap()];
    assert_refused(&args, "`run.init`");
    assert!(!third.exists());
    // An output that cannot be written fails before the teacher's games,
    // not after them.
    for (missing, needle) in [
        (dir.join("no-such-dir/x.safetensors"), "is not a directory"),
        (std::path::PathBuf::from("/proc/x.safetensors"), "cannot write /proc/x.safetensors"),
    ] {
        let started = std::time::Instant::now();
        let args = ["distill", "--config", config, "--out", missing.to_str().unwrap(), "--games", "200"];
        assert_refused(&args, needle);
        assert!(started.elapsed().as_secs_f64() < 5.0, "{:?}", started.elapsed());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The held-out figures ("held out: agreement ..., ...") of the output line
/// that starts with `epoch`.
fn heldout_figures<'a>(text: &'a str, epoch: &str) -> &'a str {
    let line = text.lines().find(|l| l.starts_with(epoch)).unwrap_or_else(|| panic!("no `{epoch}` line in {text}"));
    let figures = &line[line.find("held out: ").unwrap_or_else(|| panic!("no held-out figures in {line}"))..];
    figures.split(';').next().unwrap()
}
