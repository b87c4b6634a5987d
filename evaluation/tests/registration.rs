//! Registered comparisons append their results and never rewrite the file.

use std::path::{Path, PathBuf};

use stratego_evaluation::registration::{prepare, run, Registration, RegistrationError, RunOutcome};

fn scratch(name: &str) -> PathBuf {
    stratego_testkit::scratch_dir(&format!("registration-{name}"))
}

/// A scratch directory holding the registration `text` as `r.toml`: the
/// directory and the file.
fn registered(name: &str, text: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let file = dir.join("r.toml");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

/// Prepares the registration in `dir` and runs it once, its output under `dir/out`.
fn run_in(dir: &Path, file: &Path) -> Result<RunOutcome, RegistrationError> {
    run(&prepare(file, &stratego_baselines::registry()).unwrap(), &dir.join("out"), &|_| {})
}

const BARRAGE: &str = "stratego-rules-v1:pieces=barrage,two-square=3,chase=on,max-plies=4000,max-battleless=200";

fn registration_text(seed: u64) -> String {
    format!(
        "# Registered before running: greedy beats random at Barrage.\n\
         title = \"greedy vs random (test)\"\n\
         a = \"greedy\"\n\
         b = \"random\"\n\
         games = 20\n\
         seed = {seed}\n\
         rules = \"{BARRAGE}\"\n\
         \n\
         [decision]\n\
         rule = \"elo-interval\"\n\
         margin = 0.0\n"
    )
}

#[test]
fn running_appends_results_and_never_rewrites_earlier_bytes() {
    let original = registration_text(4);
    let (dir, file) = registered("append", &original);

    let first = run_in(&dir, &file).unwrap();
    let after_first = std::fs::read_to_string(&file).unwrap();
    assert!(after_first.starts_with(&original), "the registration itself is untouched");
    assert_eq!(first.logged.run, 1);
    assert!(first.output.ends_with("r/run-1"));
    assert!(first.output.join("results.json").exists());

    let second = run_in(&dir, &file).unwrap();
    let after_second = std::fs::read_to_string(&file).unwrap();
    assert!(after_second.starts_with(&after_first), "the first result is untouched");
    assert_eq!(second.logged.run, 2);

    let parsed: Registration = toml::from_str(&after_second).unwrap();
    assert_eq!(parsed.results.len(), 2);
    assert_eq!(parsed.results[0], first.logged);
    assert_eq!(parsed.results[1], second.logged);
    // Same seed, same games: the reproduction agrees.
    let outcome =
        |r: &stratego_evaluation::registration::LoggedResult| (r.a_wins, r.draws, r.a_losses, r.decision.clone());
    assert_eq!(outcome(&parsed.results[0]), outcome(&parsed.results[1]));
    assert_eq!(parsed.results[0].games_played, 20);
    assert!(parsed.results[0].rule.contains("lower end of the 95% interval"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_registration_edited_after_a_result_is_refused() {
    let (dir, file) = registered("edited", &registration_text(4));
    run_in(&dir, &file).unwrap();
    let text = std::fs::read_to_string(&file).unwrap().replacen("seed = 4", "seed = 5", 1);
    std::fs::write(&file, text).unwrap();
    let err = prepare(&file, &stratego_baselines::registry()).err().unwrap();
    assert!(matches!(err, RegistrationError::Edited { run: 1, .. }), "{err}");
    assert!(err.to_string().contains("seed is now `5`, the result was for `4`"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_registrations_are_clear_errors() {
    let dir = scratch("malformed");
    let file = dir.join("bad.toml");
    let cases = [
        (registration_text(1).replace("a = \"greedy\"", "a = \"alphazero\""), "unknown player `alphazero`"),
        (registration_text(1).replace("games = 20", "games = 20\nplayers = 3"), "unknown field `players`"),
        (registration_text(1).replace("elo-interval", "coin-flip"), "coin-flip"),
        (registration_text(1).replace("seed = 1\n", ""), "missing field `seed`"),
        (
            registration_text(1).replace(
                "[decision]\nrule = \"elo-interval\"\nmargin = 0.0\n",
                "[decision]\nrule = \"sprt\"\nelo0 = 10.0\nelo1 = 0.0\nalpha = 0.05\nbeta = 0.05\n",
            ),
            "elo0 < elo1",
        ),
        // A sample that decides nothing, and a margin that decides backwards.
        (registration_text(1).replace("games = 20", "games = 2"), "games must be an even number in [20, "),
        (registration_text(1).replace("games = 20", "games = 21"), "games must be an even number"),
        (registration_text(1).replace("games = 20", "games = 4294967294"), "games must be an even number"),
        (registration_text(1).replace("margin = 0.0", "margin = -1000.0"), "margin must be in [0, 1000] Elo"),
        (registration_text(1).replace("margin = 0.0", "margin = 1e9"), "margin must be in [0, 1000] Elo"),
    ];
    for (text, needle) in cases {
        std::fs::write(&file, text).unwrap();
        let err = prepare(&file, &stratego_baselines::registry()).err().unwrap().to_string();
        assert!(err.contains(needle), "`{needle}` in: {err}");
    }
    let missing = prepare(&dir.join("nothing.toml"), &stratego_baselines::registry()).err().unwrap().to_string();
    assert!(missing.contains("cannot read"), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_sprt_registration_stops_early_and_logs_its_llr() {
    let text = registration_text(2).replace("games = 20", "games = 400").replace(
        "rule = \"elo-interval\"\nmargin = 0.0\n",
        "rule = \"sprt\"\nelo0 = 0.0\nelo1 = 150.0\nalpha = 0.05\nbeta = 0.05\n",
    );
    let (dir, file) = registered("sprt", &text);
    let outcome = run_in(&dir, &file).unwrap();
    assert!(outcome.logged.games_played < 400);
    assert!(outcome.logged.sprt_llr.unwrap() >= (19f64).ln());
    assert_eq!(outcome.logged.decision, "A is better: the SPRT accepted H1");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_left_by_an_unlogged_run_is_not_overwritten() {
    let (dir, file) = registered("leftover", &registration_text(4));
    let leftover = dir.join("out").join("r").join("run-1");
    std::fs::create_dir_all(&leftover).unwrap();
    std::fs::write(leftover.join("note.txt"), "keep me").unwrap();
    let err = run_in(&dir, &file).err().unwrap();
    assert!(matches!(err, RegistrationError::OutputExists(..)), "{err}");
    assert!(err.to_string().contains("move it away"), "{err}");
    assert_eq!(std::fs::read_to_string(leftover.join("note.txt")).unwrap(), "keep me");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), registration_text(4), "nothing was logged");
    std::fs::remove_dir_all(&dir).unwrap();
}
