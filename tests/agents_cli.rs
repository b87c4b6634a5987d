//! End-to-end tests of `stratego arena`, `ladder`, `register run`,
//! `ucc-bot` and `bench agents`.

mod common;
use common::*;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

#[test]
fn arena_reports_and_writes_results_and_records_and_never_overwrites() {
    let dir = scratch("arena");
    let out = dir.join("match");
    let args =
        arena_args("greedy", "random", "8", &["--seed", "3", "--pieces", "barrage", "--out", out.to_str().unwrap()]);
    let first = stratego(&args);
    let text = succeeded(&first);
    assert_contains_all(
        &text,
        &["W/D/L (A): ", "score (A): ", "elo (A - B): ", "LOS (A > B): ", "draws by reason: ", "average game length: "],
    );
    assert!(out.join("results.json").exists());
    assert_eq!(std::fs::read_dir(out.join("games")).unwrap().count(), 8);
    stratego_ok(&["replay", out.join("games/00000.txt").to_str().unwrap()]);
    assert!(stderr(&first).is_empty(), "no progress bar when stderr is not a terminal: {}", stderr(&first));

    let results = std::fs::read_to_string(out.join("results.json")).unwrap();
    assert_one_line_error(&stratego(&args), "already exists");
    assert_eq!(std::fs::read_to_string(out.join("results.json")).unwrap(), results, "nothing was overwritten");
    let again = [&args[..], &["--overwrite", "--threads", "1"]].concat();
    assert_eq!(stratego_ok(&again), text, "the same seed gives the same match on one thread");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An SPRT can stop a match long before `--games`: its default directory
/// names the games it played, and a rerun that finds that directory taken
/// still prints the match's summary before its one error line.
#[test]
fn an_sprt_stopped_arena_names_its_directory_by_the_games_played() {
    let dir = scratch("sprt");
    let args =
        arena_args("greedy", "random", "400", &["--seed", "5", "--pieces", "barrage", "--sprt", "0,400,0.05,0.05"]);
    let text = succeeded(&stratego_in(&dir, &[], &args));
    let played: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("records: ").and_then(|r| r.rsplit_once(" (")).map(|(_, n)| n))
        .and_then(|n| n.trim_end_matches(" games)").parse().ok())
        .unwrap_or_else(|| panic!("a records line in {text}"));
    assert!(played < 400, "the SPRT stopped the match: {played} games");
    let names = listed(&dir.join("runs"));
    assert_eq!(names, vec![format!("arena-greedy-vs-random-seed5-{played}games-sprt")]);
    assert_eq!(std::fs::read_dir(dir.join("runs").join(&names[0]).join("games")).unwrap().count(), played);

    let again = stratego_in(&dir, &[], &args);
    assert_one_line_error(&again, "already exists");
    assert!(stdout(&again).contains("W/D/L (A): "), "the summary is not lost: {}", stdout(&again));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With stderr a pipe or a log file (no bar drawn), long commands print a
/// progress line at a steady rate (`STRATEGO_PROGRESS_SECONDS`).
#[test]
fn long_commands_write_progress_lines_to_a_log() {
    let dir = scratch("progress");
    let env = [("STRATEGO_PROGRESS_SECONDS", "0.05")];
    let (o, _) =
        ladder(&dir, &env, &["expectimax:depth=2", "greedy"], &["--games", "4", "--seed", "1", "--threads", "1"]);
    succeeded(&o);
    let log = stderr(&o);
    let lines: Vec<&str> = log.lines().filter(|l| l.starts_with("ladder: ")).collect();
    assert!(lines.len() >= 2, "progress lines: {}", stderr(&o));
    let played: Vec<u64> = lines
        .iter()
        .map(|l| l["ladder: ".len()..].split('/').next().unwrap().parse().unwrap_or_else(|_| panic!("{l}")))
        .collect();
    assert!(played.windows(2).all(|w| w[0] <= w[1]) && played.iter().all(|&n| n <= 4), "{lines:?}");
    assert!(lines.iter().all(|l| l.contains("/4 games") && l.contains(" elapsed")), "{lines:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--overwrite` replaces an earlier match's output, never a directory that
/// holds anything else, and says so before playing.
#[test]
fn overwrite_replaces_only_an_earlier_output() {
    let dir = scratch("overwrite");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "keep me").unwrap();
    let overwrite = |out: &Path| arena("greedy", "random", "2", &["--out", out.to_str().unwrap(), "--overwrite"]);
    assert_one_line_error(&overwrite(&dir), "is not the output of an earlier match or ladder (it holds `notes.txt`)");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me");
    let out = dir.join("m");
    succeeded(&overwrite(&out));
    assert!(overwrite(&out).status.success(), "an earlier output is replaced");
    std::fs::write(out.join("games/readme.md"), "mine").unwrap();
    assert_one_line_error(&overwrite(&out), "it holds `games/readme.md`");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two won games are no evidence: the interval spans everything and the
/// likelihood of superiority stays far from certain.
#[test]
fn two_games_give_no_confident_rating() {
    let dir = scratch("two-games");
    let out = dir.join("m");
    let text = succeeded(&arena("greedy", "random", "2", &["--seed", "4", "--out", out.to_str().unwrap()]));
    assert!(text.contains("elo (A - B): +inf [-inf, +inf]"), "A won both games, and the interval says nothing: {text}");
    let los: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("LOS (A > B): "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(los < 0.9, "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_specs_and_settings_are_one_error_line() {
    for (a, games, setting, needle) in [
        ("alphazero", "2", &[][..], "unknown player `alphazero`"),
        ("expectimax:depth=x", "2", &[], "bad value `x` for option `depth`"),
        ("net:runs/x/ckpt.safetensors", "2", &[], "cannot load player `net:runs/x/ckpt.safetensors`: cannot read"),
        ("greedy", "3", &[], "must be even"),
        ("greedy", "2", &["--sprt", "0,5"], "four numbers"),
        ("greedy", "2", &["--setups", "mine"], "unknown setup mode"),
    ] {
        let extra = [&["--pieces", "barrage", "--out", "/nonexistent/x"][..], setting].concat();
        assert_refused(&arena_args(a, "random", games, &extra), needle);
    }
}

#[test]
fn network_checkpoints_play_in_the_arena_and_refuse_other_rules() {
    let dir = scratch("net");
    let checkpoint = dir.join("ckpt.safetensors");
    stratego_ok(&["model", "init", "--out", checkpoint.to_str().unwrap()]);
    let net = format!("net:{}", checkpoint.display());
    let out = dir.join("match");
    let text = succeeded(&arena(&net, "random", "2", &["--seed", "1", "--out", out.to_str().unwrap()]));
    assert!(text.contains(&format!("A = {net}, B = random")), "{text}");
    assert_eq!(std::fs::read_dir(out.join("games")).unwrap().count(), 2);

    // `model init` writes classic checkpoints: a Barrage match is refused
    // before anything is written.
    let barrage = dir.join("barrage");
    let other = arena(&net, "random", "2", &["--seed", "1", "--pieces", "barrage", "--out", barrage.to_str().unwrap()]);
    assert_one_line_error(&other, "cannot play under the match's rules");
    assert!(!barrage.exists());
    // ... and a checkpoint written for the Barrage rules plays it.
    let barrage_checkpoint = dir.join("barrage.safetensors");
    let rules = "stratego-rules-v1:pieces=barrage,two-square=3,chase=on,max-plies=4000,max-battleless=200";
    stratego_ok(&["model", "init", "--rules", rules, "--out", barrage_checkpoint.to_str().unwrap()]);
    let barrage_net = format!("net:{}", barrage_checkpoint.display());
    let barrage_out = dir.join("barrage-match");
    succeeded(&arena(&barrage_net, "random", "2", &["--pieces", "barrage", "--out", barrage_out.to_str().unwrap()]));
    assert_refused(
        &["model", "init", "--rules", "nonsense", "--out", "x.safetensors"],
        "malformed ruleset: `nonsense` has no `stratego-rules-vN:` prefix",
    );

    let missing = format!("net:{}", dir.join("missing.safetensors").display());
    assert_one_line_error(
        &arena(&missing, "random", "2", &[]),
        &format!("cannot load player `{missing}`: cannot read"),
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ladder_prints_ratings_and_draws_a_png() {
    let dir = scratch("ladder");
    let players = ["random", "greedy", "greedy:setup=handcrafted"];
    let (o, out) = ladder(&dir, &[], &players, &["--games", "6", "--seed", "2", "--pieces", "barrage"]);
    let text = succeeded(&o);
    assert!(text.contains("Bradley-Terry ratings (Elo relative to random"), "{text}");
    assert!(text.contains("greedy:setup=handcrafted"), "{text}");
    let png = std::fs::read(out.join("ladder.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(out.join("ladder.json").exists() && out.join("pairing-0-1/results.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn register_run_appends_to_the_file() {
    let dir = scratch("register");
    let file = dir.join("reg.toml");
    let registration = "a = \"greedy\"\nb = \"random\"\ngames = 20\nseed = 1\n\
        rules = \"stratego-rules-v1:pieces=barrage,two-square=3,chase=on,max-plies=4000,max-battleless=200\"\n\
        \n[decision]\nrule = \"elo-interval\"\nmargin = 0.0\n";
    std::fs::write(&file, registration).unwrap();
    let text = succeeded(&register_run(&file, &dir.join("out"), &[]));
    assert!(text.contains("decision: ") && text.contains("machine speed (random playout plies/s"), "{text}");
    assert!(text.contains("A resolves to greedy:setup=random\nB resolves to random:setup=random\n"), "{text}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(registration) && text.contains("[[results]]\nrun = 1\n"), "{text}");
    // The machine's speed beside the result, before and after the match:
    // a positive number of plies per second each.
    let logged: toml::Table = text.parse().unwrap();
    let result = &logged["results"].as_array().unwrap()[0];
    for key in ["playout_plies_per_second_before", "playout_plies_per_second_after"] {
        let speed = result[key].as_float().unwrap_or_else(|| panic!("{key} in {text}"));
        assert!(speed > 1_000.0, "{key} = {speed}");
    }
    // What the specs meant, every option named; printed and logged.
    assert_eq!(result["a_resolved"].as_str(), Some("greedy:setup=random"), "{text}");
    assert_eq!(result["b_resolved"].as_str(), Some("random:setup=random"), "{text}");
    // A spec that now resolves to another player than a logged result
    // played (as after a changed default) is refused before any game, and
    // the file keeps every byte.
    let changed = text.replace("b_resolved = \"random:setup=random\"", "b_resolved = \"random:setup=handcrafted\"");
    std::fs::write(&file, &changed).unwrap();
    let refused = register_run(&file, &dir.join("out"), &[]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.starts_with("error: ")
            && stderr.contains("`random` names another player than result 1 played")
            && stderr.contains("then `random:setup=handcrafted`, now `random:setup=random`")
            && stderr.trim_end().lines().count() == 1,
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), changed);
    assert!(!dir.join("out/reg/run-2").exists());
    assert_refused(&["register", "run", dir.join("none.toml").to_str().unwrap()], "cannot read");
    std::fs::remove_dir_all(&dir).unwrap();
}

const REGISTRATION: &str = "a = \"greedy\"\nb = \"random\"\ngames = 200\nseed = 1\n\
    rules = \"stratego-rules-v1:pieces=barrage,two-square=3,chase=on,max-plies=4000,max-battleless=200\"\n\
    \n[decision]\nrule = \"elo-interval\"\nmargin = 0.0\n";

/// Runs `stratego register run FILE --out-root ROOT EXTRA...`.
fn register_run(file: &Path, root: &Path, extra: &[&str]) -> Output {
    stratego(&[&["register", "run", file.to_str().unwrap(), "--out-root", root.to_str().unwrap()][..], extra].concat())
}

/// Runs `stratego ladder PLAYERS... SETTINGS... --out DIR/ladder` in `dir`
/// with the extra environment variables `env`: its output, and the ladder's
/// directory.
fn ladder(dir: &Path, env: &[(&str, &str)], players: &[&str], settings: &[&str]) -> (Output, PathBuf) {
    let out = dir.join("ladder");
    let args = [&["ladder"][..], players, settings, &["--out", out.to_str().unwrap()]].concat();
    (stratego_in(dir, env, &args), out)
}

/// The run numbers logged in a registration file, in order (the file must
/// still parse).
fn logged_runs(file: &Path) -> Vec<i64> {
    let table: toml::Table = std::fs::read_to_string(file).unwrap().parse().unwrap();
    let results = table.get("results").and_then(|r| r.as_array()).cloned().unwrap_or_default();
    results.iter().map(|r| r["run"].as_integer().unwrap()).collect()
}

/// Two runs of one registration file at once, with different output roots,
/// used to write the same `.partial` file and could log one run number
/// twice. The file's own lock (`<file>.lock`) admits one writer from
/// choosing the run number until the result is appended; the other is
/// refused with one line naming the holder.
#[test]
fn register_runs_of_one_file_at_once_append_one_result_each_or_are_refused() {
    let dir = scratch("register-race");
    let file = dir.join("reg.toml");
    std::fs::write(&file, REGISTRATION).unwrap();
    let run = |root: &str| register_run(&file, &dir.join(root), &["--threads", "1"]);
    // Held by this process: refused, and nothing is written.
    let held = stratego_runlog::DirLock::acquire_file(&file, "test").unwrap();
    assert_one_line_error(&run("held"), &format!("is in use by process {}", std::process::id()));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), REGISTRATION);
    assert!(!dir.join("held").exists());
    drop(held);
    // Two processes at once: each appends its own run, or is refused.
    let outcomes: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = ["one", "two"].map(|root| s.spawn(move || run(root))).into_iter().collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut appended = 0;
    for o in &outcomes {
        if o.status.success() {
            appended += 1;
        } else {
            // Names the holder's pid, or "another process" when the holder
            // had not yet written it.
            assert_one_line_error(o, "is in use by");
        }
    }
    assert_eq!(logged_runs(&file), (1..=appended).collect::<Vec<_>>(), "{}", std::fs::read_to_string(&file).unwrap());
    succeeded(&run("three"));
    assert_eq!(logged_runs(&file), (1..=appended + 1).collect::<Vec<_>>());
    assert!(dir.join(format!("three/reg/run-{}/results.json", appended + 1)).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Everything a registration run writes is under
/// `<out-root>/<file stem>/run-<K>/`: a stem of `..` (a file named
/// `...toml`) used to put the outputs and a lock beside the root.
#[test]
fn register_run_writes_only_under_its_output_root() {
    let dir = scratch("register-root");
    let root = dir.join("x").join("root");
    for name in ["...toml", "..toml"] {
        let file = dir.join(name);
        std::fs::write(&file, REGISTRATION).unwrap();
        assert_one_line_error(&register_run(&file, &root, &[]), "cannot name a directory under the output root");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), REGISTRATION);
    }
    assert!(!dir.join("x").exists());
    let file = dir.join("reg.toml");
    std::fs::write(&file, REGISTRATION).unwrap();
    let text = succeeded(&register_run(&file, &root, &["--threads", "1", "--keep-games", "2"]));
    assert_eq!(listed(&dir.join("x")), ["root"]);
    assert_eq!(listed(&root), ["reg"]);
    assert_eq!(listed(&root.join("reg")), ["run-1"]);
    // Two pages of A's worst games beside the records.
    assert!(text.contains("(2 games, A's losses first)"), "{text}");
    assert_eq!(listed(&root.join("reg/run-1/pages")).len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ucc_bot_sets_up_moves_and_quits_on_the_referees_word() {
    let dir = scratch("ucc");
    let record = dir.join("game.txt");
    let (child, mut to_bot, mut from_bot) =
        spawn_ucc_bot(&["--agent", "greedy", "--seed", "5", "--record", record.to_str().unwrap()]);
    writeln!(to_bot, "RED ./blue 10 10").unwrap();
    let setup: Vec<String> = (0..4).map(|_| read_line(&mut from_bot)).collect();
    assert!(setup.iter().all(|l| l.len() == 11 && l.ends_with('\n')), "{setup:?}");
    writeln!(to_bot, "START").unwrap();
    for line in &setup {
        write!(to_bot, "{line}").unwrap();
    }
    for row in ["..++..++..", "..++..++..", "##########", "##########", "##########", "##########"] {
        writeln!(to_bot, "{row}").unwrap();
    }
    let mv = read_line(&mut from_bot);
    let words: Vec<&str> = mv.split_whitespace().collect();
    assert!(words.len() >= 3 && ["UP", "DOWN", "LEFT", "RIGHT"].contains(&words[2]), "{mv}");
    writeln!(to_bot, "QUIT ./blue BLUE SURRENDER 1 148 148").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = std::fs::read_to_string(&record).unwrap();
    assert!(log.starts_with("stratego-ucc-log v1\n") && log.contains("seed 5\n"), "{log}");
    assert!(log.ends_with("end QUIT ./blue BLUE SURRENDER 1 148 148\n"), "{log}");
    // The record is never overwritten.
    assert_refused(&["ucc-bot", "--agent", "greedy", "--record", record.to_str().unwrap()], "cannot create the record");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// N-tuple tables trained under the classic rules used
/// to exit before sending a setup, since the referee's rules differ. Now the
/// bot plays, saying in one stderr line that it keeps its own progress rules.
#[test]
fn ucc_bot_plays_tables_trained_under_other_progress_rules_and_says_so() {
    let dir = scratch("ucc-ntuple");
    let record = dir.join("game.txt");
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/registrations/ntuple-td.safetensors");
    let agent = format!("ntuple:{tables}");
    let (child, mut to_bot, mut from_bot) =
        spawn_ucc_bot(&["--agent", &agent, "--seed", "2", "--record", record.to_str().unwrap()]);
    writeln!(to_bot, "BLUE ./red 10 10").unwrap();
    let setup: Vec<String> = (0..4).map(|_| read_line(&mut from_bot)).collect();
    assert!(setup.iter().all(|l| l.len() == 11), "the bot sent its setup: {setup:?}");
    writeln!(to_bot, "QUIT ./red RED SURRENDER 0 0 0").unwrap();
    drop(to_bot);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("holds itself to the progress rules two-square=3,chase=on"), "{err}");
    assert!(std::fs::read_to_string(&record).unwrap().contains("self-restriction two-square=3,chase=on"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_agents_prints_one_figure_per_line() {
    let text = stratego_ok(&["bench", "agents", "--games", "4", "--positions", "2"]);
    assert_contains_all(&text, &["agents arena random vs random", "agents expectimax search"]);
    assert_figure_lines(&text);
}

/// A network trained under the classic caps plays an arena match under other
/// caps (it stopped at its first move before), and under the referee's rules
/// by name (`--rules referee`); another piece set is refused before any
/// output is made.
#[test]
fn arena_plays_a_network_under_other_caps_and_the_referees_rules() {
    let dir = scratch("arena-net-caps");
    let net = concat!("net:", env!("CARGO_MANIFEST_DIR"), "/registrations/cpu-tiny.safetensors");
    for (i, (rules, expected)) in
        [(["--max-plies", "100"], "max-plies=100"), (["--rules", "referee"], "two-square=0,chase=off,max-plies=1998")]
            .into_iter()
            .enumerate()
    {
        let out = dir.join(format!("m{i}"));
        let args = arena_args(net, "random", "2", &[rules[0], rules[1], "--out", out.to_str().unwrap()]);
        let text = stratego_ok(&args);
        assert!(text.contains("W/D/L (A): "), "{text}");
        let results = std::fs::read_to_string(out.join("results.json")).unwrap();
        assert!(results.contains(expected), "{results}");
    }
    let refused = dir.join("refused");
    let o = arena(net, "random", "2", &["--pieces", "barrage", "--out", refused.to_str().unwrap()]);
    assert_one_line_error(&o, "another piece set");
    assert!(!refused.exists());
    assert_one_line_error(&arena("random", "random", "2", &["--rules", "referees"]), "referee");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `setups search` writes the armies it found as a file that any player
/// deals from (`setup=file:PATH`), the same file from the same seed on any
/// thread count, and refuses bad settings and an existing file in one line
/// each, leaving that file as it was.
#[test]
fn setups_search_writes_armies_any_player_deals_from() {
    let dir = scratch("setups-search");
    let file = dir.join("armies.txt");
    let path = file.to_str().unwrap();
    // The search's arguments: these defaults, each unless `extra` names it.
    let search = |extra: &[&str]| -> Vec<String> {
        let defaults: [&[&str]; 3] =
            [&["--player", "random"], &["--against", "greedy", "random"], &["--population", "4"]];
        let mut args = vec!["setups", "search"];
        for default in defaults {
            if !extra.contains(&default[0]) {
                args.extend(default);
            }
        }
        let rest = ["--generations", "2", "--games", "2", "--max-plies", "200", "--seed", "3", "--out", path];
        [&args[..], &rest[..], extra].concat().iter().map(|s| s.to_string()).collect()
    };
    let args = search(&[]);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let text = stratego_ok(&args);
    assert_contains_all(&text, &["generation 1: score ", "generation 2: score ", "2 armies written to "]);
    let written = std::fs::read_to_string(&file).unwrap();
    let armies: Vec<&str> =
        written.lines().filter(|l| !l.starts_with('#')).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(armies.len(), 2, "{written}");
    assert!(written.contains("# player: random") && written.contains("seed 3"), "{written}");

    // Any player deals from the file: A's army in the first game is one of them.
    let out = dir.join("match");
    let spec = format!("greedy:setup=file:{path}");
    stratego_ok(&arena_args(&spec, "random", "2", &["--setups", "own", "--out", out.to_str().unwrap()]));
    let record = std::fs::read_to_string(out.join("games/00000.txt")).unwrap();
    assert!(armies.iter().any(|a| record.contains(a)), "{record}");

    assert_one_line_error(&stratego(&args), "use --overwrite");
    for (extra, needle) in [
        (&["--population", "3"][..], "population must be an even number"),
        (&["--from", "file:/no/such/armies.txt"][..], "cannot read /no/such/armies.txt"),
        (&["--against", "clever"][..], "clever"),
        (&["--player", "ucc:cat"][..], "brings its own setups"),
    ] {
        let bad = search(&[extra, &["--overwrite"][..]].concat());
        let bad: Vec<&str> = bad.iter().map(|s| s.as_str()).collect();
        assert_one_line_error(&stratego(&bad), needle);
    }
    let nowhere = dir.join("no/such/folder/armies.txt");
    let bad = search(&[]);
    let mut bad: Vec<&str> = bad.iter().map(|s| s.as_str()).collect();
    *bad.last_mut().unwrap() = nowhere.to_str().unwrap(); // the `--out` given last
    assert_one_line_error(&stratego(&bad), "no folder");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written, "nothing was overwritten");
    let again = search(&["--overwrite", "--threads", "1"]);
    let again: Vec<&str> = again.iter().map(|s| s.as_str()).collect();
    assert_eq!(stratego_ok(&again), text, "the same seed gives the same search on one thread");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);
    std::fs::remove_dir_all(&dir).unwrap();
}
