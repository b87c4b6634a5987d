//! `stratego train` end to end on the smoke config: checkpoints that load,
//! TensorBoard files with the documented tags (read back by our reader and
//! by TensorBoard itself), finite metrics, learning that beats the counting
//! prior, resume, and a SIGKILL in the middle of a run.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::{
    assert_one_line_error, command, listed, scratch, stderr, stdout, stratego, stratego_in, stratego_ok, succeeded,
};
use serde_json::Value;

/// The tags docs/TRAINING.md promises for every iteration: the learner's
/// table of diagnostics, from which that part of the docs is generated.
fn tags() -> Vec<&'static str> {
    stratego_learner::diagnostics::DIAGNOSTICS.iter().map(|d| d.tag).collect()
}

fn metrics(run: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

/// The RL iterations' lines: not events, not the warm start's epochs.
fn iterations(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l.get("event").is_none() && l.get("pretrain/epoch").is_none()).collect()
}

fn checkpoint_steps(run: &Path) -> Vec<u64> {
    let Ok(entries) = std::fs::read_dir(run.join("checkpoints")) else { return Vec::new() };
    let mut steps: Vec<u64> =
        entries.filter_map(|e| e.unwrap().file_name().to_str().and_then(|n| n.parse().ok())).collect();
    steps.sort();
    steps
}

/// The last evaluation's score against random: its interval's lower end,
/// the score, and the games it is over (checked to be at least 100).
fn final_score_vs_random(its: &[&Value], config: &stratego_learner::TrainConfig) -> (f64, f64, u32) {
    let last = its.last().expect("an iteration");
    assert_eq!(last["step"].as_u64(), Some(config.run.iterations), "{last}");
    let (low, score) = (last["eval/score_vs_random_low"].as_f64(), last["eval/score_vs_random"].as_f64());
    let (Some(low), Some(score)) = (low, score) else { panic!("the last iteration evaluated against random: {last}") };
    assert!(config.eval.games >= 100, "the play check needs at least 100 games, not {}", config.eval.games);
    (low, score, config.eval.games)
}

/// Both tests train on every core: one at a time keeps each within its
/// time (and CI's two cores).
static ONE_RUN_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What a test that trains starts with: its turn (`ONE_RUN_AT_A_TIME`,
/// held while the guard lives), a fresh scratch directory, and the run
/// directory in it.
fn training(name: &str) -> (MutexGuard<'static, ()>, PathBuf, PathBuf) {
    let turn = ONE_RUN_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch(name);
    let run = dir.join("run");
    (turn, dir, run)
}

/// `stratego ARGS...` for a run: without its progress lines, which a slow
/// iteration would put before the one `error:` line these tests read (the
/// smoke run checks the progress lines themselves).
fn quiet(args: &[&str]) -> Output {
    command(args).env("STRATEGO_PROGRESS_SECONDS", "86400").output().expect("the binary runs")
}

/// Runs `stratego train --config CONFIG --run RUN EXTRA...`.
fn train(config: &Path, run: &Path, extra: &[&str]) -> Output {
    let args = ["train", "--config", config.to_str().unwrap(), "--run", run.to_str().unwrap()];
    quiet(&[&args[..], extra].concat())
}

/// Runs `stratego train --resume RUN --iterations ITERATIONS`.
fn resume(run: &Path, iterations: u64) -> Output {
    quiet(&["train", "--resume", run.to_str().unwrap(), "--iterations", &iterations.to_string()])
}

#[test]
fn smoke_run_logs_learns_checkpoints_and_resumes() {
    let (_turn, dir, run) = training("train-smoke");
    let run_arg = run.to_str().unwrap();
    // stderr is a pipe, as in a log: progress comes as steady lines.
    let here = std::env::current_dir().unwrap();
    let env = [("STRATEGO_PROGRESS_SECONDS", "0.5")];
    let o = stratego_in(&here, &env, &["train", "--config", "configs/smoke.toml", "--run", run_arg]);
    succeeded(&o);
    let config = stratego_learner::TrainConfig::load(Path::new("configs/smoke.toml")).unwrap();
    let n = config.run.iterations;
    let log = stderr(&o);
    assert!(log.lines().any(|l| l.starts_with("teacher games: ") || l.starts_with("imitation: ")), "{log}");
    assert!(log.lines().any(|l| l.starts_with("train: ") && l.contains(&format!("/{n} iterations"))), "{log}");

    // Checkpoints: the newest `keep`, each loading under the run's ruleset.
    let steps = checkpoint_steps(&run);
    assert_eq!(*steps.last().unwrap(), n, "{steps:?}");
    assert!(steps.len() <= config.checkpoint.keep);
    let rules = config.game.rules;
    let device = stratego_model::device("cpu").unwrap();
    for file in ["model.safetensors", "ema.safetensors"] {
        let path = run.join(format!("checkpoints/{n:08}/{file}"));
        let (_, meta) = stratego_model::load(&path, None, Some(&rules), &device).unwrap();
        assert_eq!(meta.step, n);
    }

    // Metrics: one line per iteration, every documented value finite.
    let lines = metrics(&run);
    let its = iterations(&lines);
    assert_eq!(its.len() as u64, n);
    let tags = tags();
    for line in &its {
        for tag in &tags {
            assert!(line[*tag].as_f64().is_some_and(f64::is_finite), "{tag} in {line}");
        }
    }
    // One tag per quantity: the KL to the behaviour policy is `loss/behaviour_kl` only.
    assert!(its[0].get("policy/kl_behaviour").is_none(), "{}", its[0]);
    assert!(its.iter().any(|l| l["eval/score_vs_random"].as_f64().is_some()), "an evaluation ran");
    // The fixed opponents of `selfplay.opponents` played, and their scores are logged.
    for opponent in &config.selfplay.opponents {
        let tag = format!("selfplay/score_vs_{opponent}");
        let scores: Vec<f64> = its.iter().filter_map(|l| l[tag.as_str()].as_f64()).collect();
        assert!(!scores.is_empty() && scores.iter().all(|s| (0.0..=1.0).contains(s)), "{tag}: {scores:?}");
    }
    // Each evaluated score comes with its interval, and the evaluation's time apart.
    for l in its.iter().filter(|l| l["eval/score_vs_random"].is_f64()) {
        let (lo, score, hi) = (
            l["eval/score_vs_random_low"].as_f64().unwrap(),
            l["eval/score_vs_random"].as_f64().unwrap(),
            l["eval/score_vs_random_high"].as_f64().unwrap(),
        );
        assert!((0.0..=score).contains(&lo) && (score..=1.0).contains(&hi), "{lo} {score} {hi}");
        assert!(l["eval/seconds"].as_f64().unwrap() > 0.0);
    }
    // The curves as a picture at the end of the run.
    assert!(stdout(&o).contains("curves: "), "{}", stdout(&o));
    let png = std::fs::read(run.join("curves.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());

    // TensorBoard: our reader, then TensorBoard's.
    let scalars = stratego_runlog::read_scalars(&run).unwrap();
    for tag in &tags {
        let points = scalars.iter().filter(|s| s.tag == *tag).count() as u64;
        assert_eq!(points, n, "{tag}");
    }
    // Each evaluation's worst game as a picture, and its games kept as
    // records that `view` reads.
    let images = stratego_runlog::read_images(&run).unwrap();
    let evaluated: Vec<u64> =
        its.iter().filter(|l| l["eval/score_vs_random"].is_f64()).map(|l| l["step"].as_u64().unwrap()).collect();
    assert_eq!(
        images.iter().map(|(tag, step, _)| (tag.as_str(), *step)).collect::<Vec<_>>(),
        evaluated.iter().map(|&s| ("eval/board", s)).collect::<Vec<_>>()
    );
    for &step in &evaluated {
        let dir = run.join("eval-games").join(format!("{step:08}"));
        let mut files = listed(&dir);
        files.sort();
        assert_eq!(files.len(), 3, "two games and the picture: {files:?}");
        assert!(files.contains(&"board.png".to_string()));
        let game = dir.join(files.iter().find(|f| f.starts_with("random-")).unwrap());
        assert!(stratego_ok(&["view", game.to_str().unwrap()]).contains("plies"));
    }
    let check = Command::new("python3")
        .arg("tests/check_tensorboard.py")
        .arg(&run)
        .args(&tags)
        .args(["--images", "eval/board"])
        .output()
        .expect("python3 runs (pip install tensorboard)");
    assert!(check.status.success(), "{}{}", stdout(&check), stderr(&check));

    // Learning, on play: the final network beats random in the last
    // evaluation (its games, with the lower end of the 95 % interval above
    // an even score). `smoke_without_learning_does_not_beat_random` is the
    // same check failing with the learning rates at 0.
    let (low, score, games) = final_score_vs_random(&its, &config);
    assert!(low > 0.5, "the smoke network scored {score:.3} (lower end {low:.3}) against random in {games} games");
    // And on beliefs: over the last iterations, the belief head's
    // log-likelihood of the true hidden types beats the counting prior's on
    // the same samples (measured before each gradient step, on games not yet
    // trained on).
    let mean =
        |tag: &str, lines: &[&Value]| lines.iter().map(|l| l[tag].as_f64().unwrap()).sum::<f64>() / lines.len() as f64;
    let last = &its[its.len() - 3..];
    let (belief, prior) = (mean("belief/log_likelihood", last), mean("belief/prior_log_likelihood", last));
    assert!(belief > prior, "belief head {belief:.4} vs counting prior {prior:.4}");

    // Resume: two more iterations continue from the last step.
    succeeded(&resume(&run, n + 2));
    let lines = metrics(&run);
    let resumed = lines.iter().position(|l| l["event"] == "resumed").expect("a resumed line");
    assert_eq!(lines[resumed]["step"], n);
    let after: Vec<u64> = lines[resumed + 1..].iter().map(|l| l["step"].as_u64().unwrap()).collect();
    assert_eq!(after, vec![n + 1, n + 2]);
    assert_eq!(*checkpoint_steps(&run).last().unwrap(), n + 2);

    // A second start into the same directory is refused; so is a bad config.
    let smoke = Path::new("configs/smoke.toml");
    assert_one_line_error(&train(smoke, &run, &[]), "--resume");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[learner]\nppo_clip = 2.0\n").unwrap();
    assert_one_line_error(&train(&bad, &dir.join("bad"), &[]), "learner.ppo_clip");
    assert!(!dir.join("bad").exists(), "nothing is created for a bad config");
    // A device this build lacks fails before the run directory exists.
    if stratego_model::device("wgpu").is_err() {
        assert_one_line_error(&train(smoke, &dir.join("gpu"), &["--device", "wgpu"]), "wgpu");
        assert!(!dir.join("gpu").exists(), "nothing is created for a missing device");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The negative control of the smoke run's play check: the same config
/// with every learning rate at 0 (the warm start's and the learner's)
/// leaves the untrained network, which does not beat random. If it did, the
/// check would not be measuring learning.
///
/// With every rate at 0 no weight moves (AdamW's decay is scaled by the
/// rate too), so the warm start's teacher games and all but one iteration
/// would only spend time: the control trains one iteration without them and
/// evaluates after it, in the smoke run's evaluation (its games, opponents
/// and rules). That is the same untrained network in the same check
/// (measured alone on the 2-core machine: 240 s before, 24 s after).
#[test]
fn smoke_without_learning_does_not_beat_random() {
    let (_turn, dir, run) = training("train-no-learning");
    let smoke = std::fs::read_to_string("configs/smoke.toml").unwrap();
    let mut config = stratego_learner::TrainConfig::parse(&smoke).unwrap();
    config.pretrain.lr = 0.0;
    config.learner.lr = stratego_learner::config::PowerSchedule { c: 0.0, k: 0.0, floor: 0.0, ceiling: 0.0 };
    config.pretrain.enabled = false;
    config.run.iterations = 1;
    config.eval.every = 1;
    let path = dir.join("no-learning.toml");
    std::fs::write(&path, config.to_toml()).unwrap();
    succeeded(&train(&path, &run, &[]));
    let lines = metrics(&run);
    let (low, score, games) = final_score_vs_random(&iterations(&lines), &config);
    assert!(low <= 0.5, "without learning the network scored {score:.3} (lower end {low:.3}) in {games} games");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_killed_mid_iteration_resumes_from_its_last_checkpoint() {
    let (_turn, dir, run) = training("train-kill");
    let run_arg = run.to_str().unwrap();
    // The RL loop with a checkpoint after every iteration.
    let config = rl_only_smoke(&dir, "every-iteration", |config| config.checkpoint.every = 1);
    let child = command(&["train", "--config", config.to_str().unwrap(), "--run", run_arg, "--iterations", "1000"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed on drop too, so a failing assertion leaves no run behind.
    struct KillOnDrop(std::process::Child);
    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = KillOnDrop(child);
    // Kill it as soon as the first checkpoint is complete (mid-iteration of the next).
    let start = Instant::now();
    while !checkpoint_steps(&run).iter().any(|&s| s > 0) {
        assert!(start.elapsed() < Duration::from_secs(600), "no checkpoint after 10 minutes");
        std::thread::sleep(Duration::from_millis(100));
    }
    // A second writer while the run goes is refused, naming the holder.
    let second = stratego(&["train", "--resume", run_arg]);
    assert_one_line_error(&second, &format!("in use by process {}", child.0.id()));
    // Kill it while it writes a checkpoint if we catch one in the act (a
    // `.partial` directory), else mid-iteration after at most 20 s.
    let partial = || {
        std::fs::read_dir(run.join("checkpoints"))
            .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().ends_with(".partial")))
            .unwrap_or(false)
    };
    let watch = Instant::now();
    while !partial() && watch.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.0.kill().unwrap(); // SIGKILL
    child.0.wait().unwrap();

    // What the killed run left is valid: every metrics line parses, every
    // complete checkpoint loads.
    let killed_at = *checkpoint_steps(&run).last().unwrap();
    let lines = metrics(&run);
    assert!(lines.len() as u64 >= killed_at);
    let device = stratego_model::device("cpu").unwrap();
    stratego_model::load(&run.join(format!("checkpoints/{killed_at:08}/model.safetensors")), None, None, &device)
        .unwrap();

    let target = killed_at + 1;
    succeeded(&resume(&run, target));
    assert_eq!(*checkpoint_steps(&run).last().unwrap(), target);
    let lines = metrics(&run);
    assert_eq!(lines.last().unwrap()["step"], target);
    assert!(std::fs::read_dir(run.join("checkpoints")).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".partial")));

    // A torn last line of metrics.jsonl (a kill in mid-write) is cut off
    // at resume, and stderr says so; a corrupt newest checkpoint is skipped
    // for the one before it, and does not count as done: resuming to its
    // own iteration trains that iteration again.
    let mut log = std::fs::OpenOptions::new().append(true).open(run.join("metrics.jsonl")).unwrap();
    std::io::Write::write_all(&mut log, b"{\"step\":999,\"loss/to").unwrap();
    drop(log);
    let newest = run.join(format!("checkpoints/{target:08}/model.safetensors"));
    let mut bytes = std::fs::read(&newest).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(&newest, bytes).unwrap();
    let o = resume(&run, target);
    assert!(o.status.success() && !stdout(&o).contains("already at"), "{}\n{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("torn last line"), "{err}");
    assert_eq!(err.matches("skipped: model.safetensors does not match its checksum").count(), 1, "said once: {err}");
    assert_eq!(*checkpoint_steps(&run).last().unwrap(), target);
    assert!(stratego_learner::run::verify_checkpoint(newest.parent().unwrap()).is_ok(), "rewritten whole");
    let lines = metrics(&run); // every line parses again
    let resumed: Vec<&Value> = lines.iter().filter(|l| l["event"] == "resumed").collect();
    assert_eq!(resumed.last().unwrap()["step"], target - 1, "resumed from the checkpoint before the corrupt one");

    // A finished run says so and trains nothing.
    let o = resume(&run, target);
    assert!(o.status.success() && stdout(&o).contains("already at"), "{}\n{}", stdout(&o), stderr(&o));
    // A config.toml cut short resolves to other values (the defaults): refused, naming the key.
    let config_path = run.join("config.toml");
    let full = std::fs::read_to_string(&config_path).unwrap();
    let cut = &full[..full.find("[learner]").unwrap()];
    std::fs::write(&config_path, cut).unwrap();
    let o = resume(&run, target + 2);
    // Keys are compared in sorted order: the first one the cut removed.
    assert_one_line_error(&o, "`checkpoint.every` differs");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An iteration's log line is written before its checkpoint. Here the
/// checkpoint cannot be written (a file stands where it goes): the run
/// stops with an error and its line stays, past the newest checkpoint,
/// until a resume from the checkpoint before drops it and plays the
/// iteration again. (Written after the checkpoint, the line was lost for
/// good by a kill between the two: the resumed run starts past it.)
#[test]
fn an_iterations_log_line_is_written_before_its_checkpoint() {
    let (_turn, dir, run) = training("train-line-first");
    let path = rl_only_smoke(&dir, "line-first", |config| config.checkpoint.every = 1);
    succeeded(&train(&path, &run, &["--iterations", "1"]));
    let blocker = run.join("checkpoints/00000002");
    std::fs::write(&blocker, b"not a checkpoint").unwrap();
    let o = resume(&run, 2);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let last = err.lines().last().unwrap_or("");
    assert!(last.starts_with("error: ") && last.contains("00000002") && !err.contains("panicked"), "{err}");
    let steps = |lines: &[Value]| iterations(lines).iter().map(|l| l["step"].as_u64().unwrap()).collect::<Vec<_>>();
    assert_eq!(steps(&metrics(&run)), [1, 2], "the line of the iteration whose checkpoint failed");
    // Without the blocker, a resume from checkpoint 1 drops that line and
    // writes the iteration's line again: one point per step.
    std::fs::remove_file(&blocker).unwrap();
    succeeded(&resume(&run, 2));
    assert_eq!(checkpoint_steps(&run).last(), Some(&2));
    assert_eq!(steps(&metrics(&run)), [1, 2, 2]);
    let series = stratego_runlog::read_metrics(&run.join("metrics.jsonl")).unwrap();
    let points = &series["loss/total"];
    assert_eq!(points.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 2], "{points:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `dir/NAME.toml`: the smoke config without its warm start and its
/// evaluations, and with iterations half its size (these tests are about
/// the RL loop and its files, not about learning), changed by `edit`.
fn rl_only_smoke(dir: &Path, name: &str, edit: impl FnOnce(&mut stratego_learner::TrainConfig)) -> PathBuf {
    let mut config = stratego_learner::TrainConfig::load(Path::new("configs/smoke.toml")).unwrap();
    config.pretrain.enabled = false;
    config.eval.every = 0;
    config.selfplay.games_per_actor = 8;
    config.learner.samples_per_iteration = 512;
    edit(&mut config);
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, config.to_toml()).unwrap();
    path
}

/// A run whose loss stops being a number (a learning rate of 1e30) stops
/// with one error line before anything of that iteration is saved, and
/// its log records the event.
#[test]
fn a_diverging_run_stops_with_one_line_and_saves_nothing_of_it() {
    let (_turn, dir, run) = training("train-diverge");
    let path = rl_only_smoke(&dir, "diverge", |config| {
        config.checkpoint.every = 2;
        let huge = 1e30;
        (config.learner.lr.c, config.learner.lr.floor, config.learner.lr.ceiling) = (huge, huge, huge);
    });
    assert_one_line_error(&train(&path, &run, &["--iterations", "3"]), "training diverged at iteration");
    assert!(checkpoint_steps(&run).is_empty(), "nothing of the diverged iteration is saved");
    let lines = metrics(&run);
    assert!(lines.iter().any(|l| l["event"] == "diverged"), "{lines:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run's own files are never followed through a symbolic link, and one
/// damaged line of its log does not poison it: a bad line in the middle of
/// `metrics.jsonl` used to make every later resume train, save and then
/// exit 1 (drawing the curves read the log strictly); now it is kept,
/// skipped and named in one stderr line. A `metrics.jsonl` or `run.lock`
/// that is a link is refused with one line, and its target keeps its bytes.
#[cfg(unix)]
#[test]
fn a_bad_metrics_line_is_skipped_and_linked_run_files_are_refused() {
    let (_turn, dir, run) = training("train-own-files");
    let path = rl_only_smoke(&dir, "own", |config| config.checkpoint.every = 1);
    succeeded(&train(&path, &run, &["--iterations", "1"]));
    let log = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let damaged = format!("{{\"step\": 0}}\nnot json\n{text}");
    std::fs::write(&log, &damaged).unwrap();
    let o = resume(&run, 2);
    succeeded(&o);
    assert!(stderr(&o).contains("metrics.jsonl: skipping 1 unreadable line(s), the first line 2"), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&log).unwrap().starts_with(&damaged), "the bad line stays");
    assert_eq!(checkpoint_steps(&run), vec![1, 2]);
    let target = dir.join("precious.txt");
    for name in ["metrics.jsonl", "run.lock"] {
        std::fs::write(&target, "precious, no newline").unwrap();
        let file = run.join(name);
        let _ = std::fs::rename(&file, dir.join(format!("{name}.saved")));
        std::os::unix::fs::symlink(&target, &file).unwrap();
        assert_one_line_error(&resume(&run, 3), "is a symbolic link");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious, no newline", "{name}");
        std::fs::remove_file(&file).unwrap();
        let _ = std::fs::rename(dir.join(format!("{name}.saved")), &file);
    }
    assert_eq!(checkpoint_steps(&run), vec![1, 2], "nothing ran");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `run.max_minutes` ends a run at the first iteration past the budget,
/// with that iteration's checkpoint, long before `run.iterations`.
#[test]
fn a_wall_clock_budget_stops_the_run_with_a_checkpoint() {
    let (_turn, dir, run) = training("train-budget");
    let path = rl_only_smoke(&dir, "budget", |config| {
        config.run.iterations = 1000;
        config.run.max_minutes = Some(0.001);
    });
    succeeded(&train(&path, &run, &[]));
    assert_eq!(checkpoint_steps(&run), vec![1]);
    let lines = metrics(&run);
    let its = iterations(&lines);
    assert_eq!(its.len(), 1);
    assert!(its[0]["run/seconds"].as_f64().unwrap() >= 0.06, "{}", its[0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `run.reproducible`: two runs of the same config and seed, started
/// together so that they share (and disturb) the machine, write the same
/// checkpoints byte for byte, with two actors and fixed opponents in play.
/// (Without it the actors run ahead of the learner, and how far depends on
/// the machine's load: docs/TRAINING.md, "Reproducible runs".)
#[test]
fn a_reproducible_run_is_a_function_of_its_seed() {
    let (_turn, dir, _) = training("train-reproducible");
    let path = rl_only_smoke(&dir, "reproducible", |config| {
        config.run.reproducible = true;
        config.run.iterations = 4;
        config.checkpoint.every = 2;
        config.selfplay.actors = 2;
        config.selfplay.games_per_actor = 16;
        config.learner.samples_per_iteration = 512;
    });
    let runs = [dir.join("a"), dir.join("b")];
    let started: Vec<_> = runs
        .iter()
        .map(|run| {
            let mut train = command(&["train", "--config", path.to_str().unwrap(), "--run", run.to_str().unwrap()]);
            train.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
        })
        .collect();
    for child in started {
        succeeded(&child.wait_with_output().unwrap());
    }
    for step in ["00000002", "00000004"] {
        for file in ["model.safetensors", "ema.safetensors"] {
            let [a, b] = runs.clone().map(|run| std::fs::read(run.join("checkpoints").join(step).join(file)).unwrap());
            assert!(a == b, "{step}/{file} differs between two runs of the same seed");
        }
    }
    let logged = |run: &Path| {
        let lines = metrics(run);
        iterations(&lines)
            .iter()
            .map(|l| (l["loss/total"].as_f64(), l["games/average_length"].as_f64()))
            .collect::<Vec<_>>()
    };
    assert_eq!(logged(&runs[0]), logged(&runs[1]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `selfplay.paced`: the actors play rounds granted by the learner, at most
/// about two iterations ahead of it, so with games shorter than a round no
/// decision is older than `max_staleness` (4) versions when it is learned from
/// (free actors fill the channel with games of old policies when the
/// learner is the bottleneck; BENCHMARKS.md, "Stale samples").
#[test]
fn paced_actors_leave_no_stale_samples() {
    let (_turn, dir, run) = training("train-paced");
    let path = rl_only_smoke(&dir, "paced", |config| {
        config.run.iterations = 8;
        config.selfplay.paced = true;
        // Rounds of 256 / 8 = 32 steps: a game of at most 30 plies spans
        // two rounds at most. Free actors (`selfplay.paced = false`) fill
        // the channel's 64 games, about six iterations of decisions: with
        // them this check failed (62 % of iteration 6's samples stale).
        config.selfplay.games_per_actor = 8;
        config.learner.samples_per_iteration = 256;
        // A slow learner, as on the machines where staleness was measured.
        config.learner.epochs = 4;
        config.game.rules.max_plies = 30;
    });
    succeeded(&train(&path, &run, &[]));
    let lines = metrics(&run);
    let stale: Vec<f64> = iterations(&lines).iter().map(|l| l["samples/stale_fraction"].as_f64().unwrap()).collect();
    assert_eq!(stale, vec![0.0; 8]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `selfplay.pool_size`: every `pool_every` iterations the network joins a
/// pool of its past selves (files in `RUN/pool`, the newest `pool_size`),
/// which it meets in `pool_share` of its games, logged as
/// `selfplay/score_vs_pool`; a resumed run takes the pool back.
#[test]
fn past_selves_join_the_pool_play_from_it_and_come_back_on_resume() {
    let (_turn, dir, run) = training("train-pool");
    let path = rl_only_smoke(&dir, "pool", |config| {
        config.run.reproducible = true;
        config.run.iterations = 4;
        config.selfplay.opponent_share = 0.25;
        config.selfplay.pool_size = 2;
        config.selfplay.pool_every = 1;
        config.selfplay.pool_share = 0.5;
        config.selfplay.games_per_actor = 8;
        config.learner.samples_per_iteration = 256;
        // Short games, so that games started after the pool fills end within the run.
        config.game.rules.max_plies = 60;
    });
    let pool = |run: &Path| {
        let mut files: Vec<String> = std::fs::read_dir(run.join("pool"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        files
    };
    succeeded(&train(&path, &run, &[]));
    assert_eq!(pool(&run), ["00000003.safetensors", "00000004.safetensors"]);
    let pooled = |run: &Path| {
        let lines = metrics(run);
        iterations(&lines).iter().filter_map(|l| l["selfplay/score_vs_pool"].as_f64()).collect::<Vec<_>>()
    };
    let scores = pooled(&run);
    assert!(!scores.is_empty() && scores.iter().all(|s| (0.0..=1.0).contains(s)), "{scores:?}");
    // Each pool file is a network checkpoint of its version.
    let rules = stratego_learner::TrainConfig::load(&path).unwrap().game.rules;
    let device = stratego_model::device("cpu").unwrap();
    let (_, meta) = stratego_model::load(&run.join("pool/00000004.safetensors"), None, Some(&rules), &device).unwrap();
    assert_eq!(meta.step, 4);

    succeeded(&resume(&run, 6));
    assert_eq!(pool(&run), ["00000005.safetensors", "00000006.safetensors"]);
    assert!(pooled(&run).len() > scores.len(), "the resumed run met its pool again");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `[[stage]]`: when the run reaches a stage's `from` it keeps its network
/// (`RUN/stages/`), restarts the optimizer, the average and the schedules
/// if asked, writes a checkpoint, and plays the stage's opponents, the kept
/// network among them (`net:@N`), logged under the spec as written. A run
/// resumed inside the stage plays them again.
#[test]
fn a_stage_keeps_the_network_and_changes_the_recipe_part_way() {
    let (_turn, dir, run) = training("train-stage");
    let base = rl_only_smoke(&dir, "base", |config| {
        config.run.reproducible = true;
        config.run.iterations = 4;
        config.selfplay.games_per_actor = 8;
        config.learner.samples_per_iteration = 256;
        config.game.rules.max_plies = 60;
        config.checkpoint.every = 100;
        config.checkpoint.keep = 10;
    });
    let spar = "net:@2,temperature=0";
    let stage = format!(
        "\n[[stage]]\nfrom = 2\nrestart = true\n[stage.selfplay]\nopponents = [\"{spar}\"]\nopponent_share = 0.5\n\
         [stage.learner]\nlr = {{ c = 1e-3, k = 1.0, floor = 0.0, ceiling = 1e-3 }}\n"
    );
    let path = dir.join("staged.toml");
    std::fs::write(&path, std::fs::read_to_string(&base).unwrap() + &stage).unwrap();
    let trained = train(&path, &run, &[]);
    succeeded(&trained);
    assert!(stderr(&trained).contains("iteration 2: stage 2 of 2 begins; its network is "), "{}", stderr(&trained));

    // The stage's first network is kept, and checkpoint 2 (written because
    // the stage began there) holds it, with the average restarted at it.
    assert_eq!(checkpoint_steps(&run), [2, 4]);
    let kept = std::fs::read(run.join("stages/00000002.safetensors")).unwrap();
    assert_eq!(kept, std::fs::read(run.join("checkpoints/00000002/model.safetensors")).unwrap());
    assert_eq!(kept, std::fs::read(run.join("checkpoints/00000002/ema.safetensors")).unwrap());
    let lines = metrics(&run);
    assert!(lines.iter().any(|l| l["event"] == "stage begins, restarted" && l["step"] == 2), "{lines:?}");
    let its = iterations(&lines);
    let value = |step: u64, tag: &str| its.iter().find(|l| l["step"] == step).and_then(|l| l[tag].as_f64());
    // The base's opponents before, the stage's after; its rate counted
    // from 0 at iteration 2 (logged at step 3), 1e-3 / (t + 1).
    let tag = format!("selfplay/score_vs_{spar}");
    assert!(value(1, "selfplay/score_vs_random").is_some() || value(2, "selfplay/score_vs_greedy").is_some());
    assert!([1, 2].iter().all(|&step| value(step, &tag).is_none()));
    assert!([3, 4].iter().all(|&step| value(step, "selfplay/score_vs_random").is_none()));
    assert!(value(3, &tag).is_some() || value(4, &tag).is_some(), "{its:?}");
    let smoke_lr = stratego_learner::TrainConfig::load(&base).unwrap().learner.lr;
    assert_eq!(value(2, "schedule/learning_rate"), Some(smoke_lr.at(1)));
    assert_eq!(value(3, "schedule/learning_rate"), Some(1e-3));
    assert_eq!(value(4, "schedule/learning_rate"), Some(5e-4));

    // Resumed inside the stage, the run plays the kept network again.
    std::fs::remove_dir_all(run.join("checkpoints/00000004")).unwrap();
    succeeded(&resume(&run, 6));
    let lines = metrics(&run);
    let resumed = lines.iter().position(|l| l["event"] == "resumed").expect("a resumed line");
    assert_eq!(lines[resumed]["step"], 2);
    let after: Vec<&Value> = iterations(&lines[resumed..]);
    assert!(after.iter().any(|l| l[&tag].as_f64().is_some()), "{after:?}");
    assert_eq!(
        after.iter().find(|l| l["step"] == 5).and_then(|l| l["schedule/learning_rate"].as_f64()),
        Some(1e-3 / 3.0)
    );
    // Without its kept network, a resume inside the stage is refused.
    std::fs::remove_file(run.join("stages/00000002.safetensors")).unwrap();
    assert_one_line_error(&resume(&run, 8), "stages/00000002.safetensors");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every network config of the repository (all but the n-tuple ones)
/// parses and validates as it stands, its players included, and
/// `run.init` refuses a network of another shape before anything runs.
#[test]
fn every_network_config_is_valid() {
    let mut checked = Vec::new();
    for entry in std::fs::read_dir("configs").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.extension().is_some_and(|e| e == "toml") && !name.starts_with("ntuple") {
            // A config that names the outside field's bots needs the field
            // built (shared/ucc/setup.sh DIR, UCC_DIR=DIR); CI builds it and
            // sets STRATEGO_REQUIRE_UCC_FIELD, where a missing field fails.
            let outside = std::fs::read_to_string(&path).unwrap().contains("\"ucc-field\"");
            if outside && std::env::var_os("UCC_DIR").is_none() {
                assert!(std::env::var_os("STRATEGO_REQUIRE_UCC_FIELD").is_none(), "{name} needs UCC_DIR");
                eprintln!("skipped {name}: UCC_DIR does not name the field of shared/ucc");
                continue;
            }
            let config =
                stratego_learner::TrainConfig::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // What a start checks before it creates anything: every player
            // it names builds and plays its rules, `run.init` fits.
            config.check_before_run().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            checked.push(name);
        }
    }
    for named in ["smoke", "cpu", "cpu-4h", "gpu"] {
        assert!(checked.iter().any(|c| c == named), "{named} in {checked:?}");
    }
    // gpu.toml carries the whole four-hour recipe: the hour's, then a stage
    // that spars with the network the hour made, checked above with it.
    let gpu = stratego_learner::TrainConfig::load(Path::new("configs/gpu.toml")).unwrap();
    let stages = gpu.stages().unwrap();
    assert_eq!(stages.len(), 2);
    let spar = format!("net:@{},temperature=0", gpu.stage[0].from);
    assert!(gpu.stage[0].restart && stages[1].selfplay.opponents.contains(&spar), "{:?}", stages[1].selfplay);
    let dir = scratch("train-init");
    let small = dir.join("small.safetensors");
    succeeded(&stratego(&["model", "init", "--preset", "small", "--out", small.to_str().unwrap()]));
    let config = dir.join("init.toml");
    std::fs::write(&config, format!("[run]\ninit = \"{}\"\n[model]\npreset = \"tiny\"\n", small.display())).unwrap();
    let run = dir.join("run");
    assert_one_line_error(
        &train(&config, &run, &[]),
        "is a small network on the compact layout, the config trains tiny",
    );
    assert!(!run.exists(), "nothing is created for a refused init");
    // A network of the same piece set trained under other progress rules
    // and caps (the referee's: none) is a warm start, as it is an
    // opponent; one of another piece set is refused before the run exists.
    let referee = dir.join("referee.safetensors");
    succeeded(&stratego(&["model", "init", "--rules", "referee", "--out", referee.to_str().unwrap()]));
    let config = |init: &Path| {
        let text =
            format!("[run]\ninit = \"{}\"\n[game]\nrules = \"classic\"\n[model]\npreset = \"tiny\"\n", init.display());
        stratego_learner::TrainConfig::parse(&text).unwrap().check_before_run()
    };
    config(&referee).unwrap_or_else(|e| panic!("the referee's rules, the classic pieces: {e}"));
    let barrage = dir.join("barrage.safetensors");
    succeeded(&stratego(&["model", "init", "--rules", "barrage", "--out", barrage.to_str().unwrap()]));
    let refused = config(&barrage).expect_err("another piece set").to_string();
    assert!(refused.contains("run.init") && refused.contains("barrage"), "{refused}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `net:` opponent trained under other progress rules and caps than the
/// run's (cpu-tiny: the classic caps; the smoke run: 300 plies) plays its
/// share of the self-play games, and the run trains. One trained for another
/// piece set is refused before the run directory exists.
#[test]
fn a_network_opponent_trained_under_other_caps_trains_and_another_piece_set_is_refused_at_start() {
    let (_turn, dir, run) = training("train-net-opponent");
    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/registrations/cpu-tiny.safetensors");
    let path = rl_only_smoke(&dir, "net-opponent", |config| {
        config.selfplay.opponents = vec![format!("net:{net}")];
        config.selfplay.opponent_share = 1.0;
    });
    succeeded(&train(&path, &run, &["--iterations", "1"]));
    let lines = metrics(&run);
    assert_eq!(iterations(&lines).len(), 1, "{lines:?}");

    let barrage = rl_only_smoke(&dir, "barrage", |config| {
        config.game.rules = stratego_engine::Ruleset { max_plies: 300, ..stratego_engine::Ruleset::barrage() };
        config.selfplay.opponents = vec![format!("net:{net}")];
    });
    let refused = dir.join("refused");
    assert_one_line_error(&train(&barrage, &refused, &[]), "another piece set");
    assert!(!refused.exists(), "nothing is made for a refused config");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Outside programs are self-play opponents (issue 49): a UCC program (our
/// own `ucc-bot`, playing greedy behind the protocol) sits in its seat with
/// the setup it chose, and one that sends nonsense forfeits its games, which
/// end there and are logged (`games/end_forfeit`), while the run goes on.
#[cfg(unix)]
#[test]
fn outside_programs_are_self_play_opponents_and_their_forfeits_end_only_their_games() {
    let (_turn, dir, run) = training("train-ucc-opponent");
    let bot = format!("ucc:{} ucc-bot --agent greedy,timeout=20", env!("CARGO_BIN_EXE_stratego"));
    let nonsense = dir.join("nonsense");
    std::fs::write(
        &nonsense,
        "#!/bin/sh\nread colour rest\necho FB8sB479B8; echo BB31555583; echo 6724898974; echo 967B669999\n\
         while read line; do case \"$line\" in ??????????) echo nonsense ;; esac; done\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&nonsense, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = rl_only_smoke(&dir, "ucc-opponent", |config| {
        config.game.rules = stratego_engine::Ruleset { max_plies: 200, ..stratego_engine::Ruleset::referee() };
        config.selfplay.opponents = vec![bot.clone(), format!("ucc:{},timeout=5", nonsense.display())];
        (config.selfplay.games_per_actor, config.selfplay.opponent_share) = (4, 1.0);
        config.learner.samples_per_iteration = 256;
    });
    succeeded(&train(&path, &run, &["--iterations", "2"]));
    let lines = metrics(&run);
    let its = iterations(&lines);
    assert_eq!(its.len(), 2, "{lines:?}");
    let forfeits: f64 = its.iter().map(|it| it["games/end_forfeit"].as_f64().unwrap()).sum();
    assert!(forfeits > 0.0, "the nonsense program's games end by forfeit: {its:?}");
    let played: Vec<&str> = its.iter().flat_map(|it| it.as_object().unwrap().keys()).map(|k| k.as_str()).collect();
    assert!(played.iter().any(|k| k.starts_with("selfplay/score_vs_") && k.contains("ucc-bot")), "{played:?}");
    // No program outlives the run.
    let alive = std::process::Command::new("pgrep").args(["-f", &nonsense.display().to_string()]).output().unwrap();
    assert!(alive.stdout.is_empty(), "{}", String::from_utf8_lossy(&alive.stdout));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Under a shell's address-space limit (`ulimit -v`, as in a container), a
/// config whose buffers do not fit is one error line naming the keys and
/// the limit, before a run directory exists: 65,536 games an actor passed
/// the check against the machine's memory, trained its warm start and
/// aborted with "memory allocation of 760217600 bytes failed".
#[test]
fn a_config_too_large_for_the_process_limit_is_one_error_line_before_the_run() {
    let dir = scratch("train-ulimit");
    let mut big =
        stratego_learner::TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    big.selfplay.games_per_actor = 65536;
    let config = dir.join("big.toml");
    std::fs::write(&config, big.to_toml()).unwrap();
    let run = dir.join("run");
    let script = format!(
        "ulimit -v 4000000 && exec '{}' train --config '{}' --run '{}'",
        env!("CARGO_BIN_EXE_stratego"),
        config.display(),
        run.display()
    );
    let o = Command::new("sh").arg("-c").arg(&script).output().unwrap();
    assert_one_line_error(&o, "`selfplay.games_per_actor` = 65536 games");
    assert!(stderr(&o).contains("ulimit -v"), "{}", stderr(&o));
    assert!(!run.exists(), "no run directory");
}

/// `tools/gpu-check.sh`, the one command that proves a GPU box, end to end on
/// the CPU as CI runs it (`--device cpu --quick`, this build's binary carried
/// in as on a box without network): doctor, the model benches, configs/gpu.toml's
/// RL scaled down for a few seconds, and a report with the figures it promises.
/// Bad arguments are one `error:` line, before anything runs.
#[test]
fn the_gpu_check_script_runs_end_to_end_on_the_cpu() {
    let (_turn, dir, _) = training("gpu-check");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/gpu-check.sh");
    let check = |args: &[&str]| {
        Command::new("bash")
            .arg(&script)
            .args(args)
            .env("STRATEGO_BIN", env!("CARGO_BIN_EXE_stratego"))
            .env("STRATEGO_PROGRESS_SECONDS", "86400")
            .output()
            .expect("bash runs")
    };
    let out = dir.join("report");
    let o = check(&["--device", "cpu", "--quick", "--minutes", "0.2", "--out", out.to_str().unwrap()]);
    let report = succeeded(&o);
    for row in [
        "| device | cpu |",
        "| end-to-end self-play | ",
        " plies/s (median over iterations) |",
        "| learner | ",
        " samples/s of learning time (median) |",
        "| time waiting for self-play | ",
        "| time learning | ",
        "| time in inference | the self-play inference service was in the network ",
        "| stale decisions dropped | ",
        "| GPU | ",
        "model tiny compact train step (cpu, batch 64): ",
        "model small compact train step (cpu, batch 64): ",
        "flex: ok: ",
    ] {
        assert!(report.contains(row), "{row}: {report}");
    }
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap().trim(), report.trim());
    // The run is a real run of the scaled config: a checkpoint that resumes.
    assert!(!checkpoint_steps(&out.join("run")).is_empty(), "{report}");
    let config = std::fs::read_to_string(out.join("gpu-check.toml")).unwrap();
    assert!(config.contains("max_minutes = 0.2") && config.contains("device = \"cpu\""), "{config}");

    for (args, needle) in [
        (vec!["--device", "tpu"], "--device is wgpu or cpu"),
        (vec!["--minutes", "soon"], "--minutes takes a positive number"),
        (vec!["--fast"], "unknown argument --fast"),
        (vec!["--device", "cpu", "--quick", "--out", out.to_str().unwrap()], "already holds a report"),
    ] {
        assert_one_line_error(&check(&args), needle);
    }
}
