//! The fuzz suite: every parser and loader of the lab gets at least 10,000
//! mutated and generated inputs, seeded and reproducible, and must answer
//! each with a value or an error, never a panic, a hang or an abort; every
//! rejection is one line of text (the command line prints it as
//! `error: ...`). The corpora start from valid inputs and from the cases
//! reported against earlier versions (NaN and huge weights, absurd sizes, truncated files),
//! which stay here as regression seeds. docs/RELIABILITY.md lists what is
//! promised and which test proves it.
//!
//! A failing case is printed with its parser, seed and index and written to
//! `target/fuzz-failures/`, so it can be replayed and kept as a seed.
//! `FUZZ_CASES=N` changes the number of cases per parser (default 10,000).

mod common;

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;

use common::{assert_refused, command, stderr};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::{GameRecord, PieceSet, Position, Ruleset, Setup, State};

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Silences the panic message while a case runs (a caught panic is
/// reported by the harness, with its input); other panics print as usual.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                default(info);
            }
        }));
    });
}

fn cases() -> usize {
    std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

/// Tokens that make parsers take unusual paths.
const DICTIONARY: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "255",
    "256",
    "65536",
    "4294967296",
    "18446744073709551616",
    "4611686018427387904",
    "1e30",
    "-1e30",
    "3e38",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "0.5",
    "=",
    ",",
    ":",
    ";",
    "\n",
    " ",
    "\t",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "#",
    "..",
    "x",
    "~",
    "+",
    "-",
    "/",
    "\\",
    "\u{0}",
    "\u{feff}",
    "é",
    "true",
    "false",
    "classic",
    "barrage",
    "on",
    "off",
    "net:",
    "ntuple:",
    "expectimax:",
    "depth=",
    "setup=",
    "RED",
    "BLUE",
    "OK",
    "KILLS",
    "DIES",
    "BOTHDIE",
    "QUIT",
    "START",
    "UP",
    "DOWN",
    "LEFT",
    "RIGHT",
    "[[results]]",
];

/// One seeded mutation of `seed`: 1 to 4 edits (flip, delete, duplicate,
/// insert a byte or a dictionary token, truncate, splice another seed).
fn mutate(rng: &mut Xoshiro256PlusPlus, seed: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let len = out.len();
        let at = if len == 0 { 0 } else { rng.random_range(0..len) };
        match rng.random_range(0..8) {
            0 if len > 0 => out[at] ^= 1 << rng.random_range(0..8),
            1 if len > 0 => {
                let end = (at + rng.random_range(1..=16)).min(len);
                out.drain(at..end);
            }
            2 if len > 0 => {
                let end = (at + rng.random_range(1..=16)).min(len);
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            3 => out.insert(at.min(len), rng.random()),
            4 | 5 => {
                let token = DICTIONARY[rng.random_range(0..DICTIONARY.len())].as_bytes();
                // Replace the number or word at `at` about half the time.
                let end =
                    if rng.random() { (at..len).find(|&i| !out[i].is_ascii_alphanumeric()).unwrap_or(len) } else { at };
                out.splice(at.min(len)..end.max(at.min(len)), token.iter().copied());
            }
            6 if len > 0 => out.truncate(at),
            _ if !others.is_empty() => {
                let other = &others[rng.random_range(0..others.len())];
                if !other.is_empty() {
                    let from = rng.random_range(0..other.len());
                    let end = (from + rng.random_range(1..=64)).min(other.len());
                    out.splice(at.min(len)..at.min(len), other[from..end].iter().copied());
                }
            }
            _ => {}
        }
    }
    out
}

/// Where failing cases are written.
fn failures_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures")
}

/// Runs `check` on every seed and on `cases()` mutations of them. `check`
/// returns `Err(message)` for a rejected input; it must not panic, and
/// each message must be one non-empty line.
fn fuzz(name: &str, seed: u64, seeds: &[Vec<u8>], check: impl Fn(&[u8]) -> Result<(), String>) {
    fuzz_with(name, seed, seeds, mutate, check)
}

type Mutator = fn(&mut Xoshiro256PlusPlus, &[u8], &[Vec<u8>]) -> Vec<u8>;

/// A mutation of a safetensors file that mostly reaches past its framing:
/// the JSON header is mutated as text and, most of the time, the length
/// prefix is made to match again; otherwise any byte may change.
fn mutate_safetensors(rng: &mut Xoshiro256PlusPlus, seed: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let framed = seed.len() >= 8 && {
        let n = u64::from_le_bytes(seed[..8].try_into().unwrap()) as usize;
        n <= seed.len() - 8
    };
    if !framed || rng.random_range(0..10) < 3 {
        return mutate(rng, seed, others);
    }
    let n = 8 + u64::from_le_bytes(seed[..8].try_into().unwrap()) as usize;
    let header = mutate(rng, &seed[8..n], &[]);
    let prefix = if rng.random_range(0..10) < 8 { header.len() as u64 } else { (n - 8) as u64 };
    let mut out = prefix.to_le_bytes().to_vec();
    out.extend_from_slice(&header);
    out.extend_from_slice(&seed[n..]);
    out
}

fn fuzz_with(name: &str, seed: u64, seeds: &[Vec<u8>], mutator: Mutator, check: impl Fn(&[u8]) -> Result<(), String>) {
    install_quiet_hook();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let total = cases();
    let (mut rejected, mut failures) = (0usize, Vec::new());
    for index in 0..seeds.len() + total {
        let input = if index < seeds.len() {
            seeds[index].clone()
        } else {
            let pick = rng.random_range(0..seeds.len());
            mutator(&mut rng, &seeds[pick], seeds)
        };
        QUIET.with(|q| q.set(true));
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&input)));
        QUIET.with(|q| q.set(false));
        let problem = match outcome {
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("panicked: {what}"))
            }
            Ok(Err(message)) => {
                rejected += 1;
                let message = message.trim_end();
                if message.is_empty() {
                    Some("rejected with an empty message".to_string())
                } else if message.contains('\n') {
                    Some(format!("rejected with a message of several lines: {message:?}"))
                } else {
                    None
                }
            }
            Ok(Ok(())) => None,
        };
        if let Some(problem) = problem {
            let dir = failures_dir();
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(format!("{name}-{seed}-{index}"));
            let _ = std::fs::write(&file, &input);
            failures.push(format!("case {index} ({}): {problem}", file.display()));
        }
    }
    assert!(failures.is_empty(), "{name}: {} of {} cases failed:\n{}", failures.len(), total, failures.join("\n"));
    // A corpus that every mutation passes, or that nothing passes, tests little.
    assert!(rejected > 0 && rejected < seeds.len() + total, "{name}: {rejected} rejections of {total}");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Some positions of random games, as state texts.
fn played_states(rules: Ruleset, games: u64, plies: usize) -> Vec<(State, GameRecord)> {
    let mut out = Vec::new();
    for g in 0..games {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(g);
        let (red, blue) = (Setup::random(rules.piece_set, &mut rng), Setup::random(rules.piece_set, &mut rng));
        let mut state = State::from_setups(rules, &red, &blue).unwrap();
        for _ in 0..rng.random_range(0..plies) {
            let moves = state.legal_moves();
            if state.is_terminal() || moves.is_empty() {
                break;
            }
            state.apply_move(moves[rng.random_range(0..moves.len())]).unwrap();
        }
        let record = GameRecord::new(rules, red, blue, &state);
        out.push((state, record));
    }
    out
}

fn rulesets() -> Vec<Ruleset> {
    ["classic", "barrage"]
        .iter()
        .flat_map(|p| {
            [
                format!("stratego-rules-v1:pieces={p},two-square=3,chase=on,max-plies=4000,max-battleless=200"),
                format!("stratego-rules-v1:pieces={p},two-square=0,chase=off,max-plies=300,max-battleless=100"),
            ]
        })
        .map(|t| t.parse().unwrap())
        .collect()
}

#[test]
fn state_and_position_texts() {
    let mut seeds = Vec::new();
    for rules in rulesets() {
        for (state, _) in played_states(rules, 4, 200) {
            seeds.push(state.serialize().into_bytes());
        }
    }
    fuzz("state", 1501, &seeds, |b| State::deserialize(&text(b)).map(drop).map_err(|e| e.to_string()));
    let positions: Vec<Vec<u8>> = played_states(Ruleset::classic(), 6, 200)
        .iter()
        .map(|(s, r)| Position::from_setups(r.rules, &r.red, &r.blue).map(|p| p.to_text()).unwrap_or(s.serialize()))
        .map(String::into_bytes)
        .collect();
    fuzz("position", 1502, &positions, |b| Position::parse(&text(b)).map(drop).map_err(|e| e.to_string()));
}

#[test]
fn game_records() {
    let seeds: Vec<Vec<u8>> =
        rulesets().into_iter().flat_map(|r| played_states(r, 3, 120)).map(|(_, r)| r.to_text().into_bytes()).collect();
    fuzz("record", 1503, &seeds, |b| GameRecord::parse(&text(b)).map(drop).map_err(|e| e.to_string()));
}

#[test]
fn ruleset_texts_and_setups() {
    let seeds: Vec<Vec<u8>> = rulesets().iter().map(|r| r.canonical().into_bytes()).collect();
    fuzz("ruleset", 1504, &seeds, |b| text(b).parse::<Ruleset>().map(drop).map_err(|e| e.to_string()));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let setups: Vec<Vec<u8>> = [PieceSet::Classic, PieceSet::Barrage]
        .into_iter()
        .flat_map(|set| (0..3).map(move |_| set))
        .map(|set| Setup::random(set, &mut rng).to_string().into_bytes())
        .collect();
    fuzz("setup", 1505, &setups, |b| {
        let t = text(b);
        Setup::parse(&t, PieceSet::Classic)
            .or_else(|_| Setup::parse(&t, PieceSet::Barrage))
            .map(drop)
            .map_err(|e| e.to_string())
    });
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
fn training_configs() {
    let mut seeds: Vec<Vec<u8>> = ["smoke", "cpu", "gpu", "distill-tiny"]
        .iter()
        .map(|n| std::fs::read(repo(&format!("configs/{n}.toml"))).unwrap())
        .collect();
    // Reported cases: sizes that never finish, a truncated file.
    seeds.push(b"[learner]\nsamples_per_iteration = 4611686018427387904\n".to_vec());
    seeds.push(b"[selfplay]\ngames_per_actor = 100000\n".to_vec());
    seeds.push(b"[run]\nseed = 1\niterations = 12\n[game]\nrules = \"stratego-rules".to_vec());
    // The working directory of a test is the package root, so the configs'
    // relative paths (run.init) resolve as they do for the command.
    fuzz("train-config", 1506, &seeds, |b| {
        stratego_learner::TrainConfig::parse(&text(b)).map(drop).map_err(|e| e.to_string())
    });
    let ntuple: Vec<Vec<u8>> =
        ["ntuple", "ntuple-tiny"].iter().map(|n| std::fs::read(repo(&format!("configs/{n}.toml"))).unwrap()).collect();
    fuzz("ntuple-config", 1507, &ntuple, |b| {
        stratego_learner::ntuple::NTupleConfig::parse(&text(b))
            .map(|c| drop(c.train_config()))
            .map_err(|e| e.to_string())
    });
}

#[test]
fn player_specs() {
    let seeds: Vec<Vec<u8>> = [
        "random",
        "greedy:setup=handcrafted",
        "expectimax:depth=2,setup=handcrafted",
        "expectimax:depth=1,leaf=ntuple:registrations/ntuple-td.safetensors",
        "ntuple:registrations/ntuple-td.safetensors,setup=handcrafted",
        "net:registrations/distill-expectimax2.safetensors,setup=handcrafted",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let registry = stratego_roster::players();
    fuzz("player-spec", 1508, &seeds, |b| registry.factory(&text(b)).map(drop).map_err(|e| e.to_string()));
}

/// A scratch path per case (the loaders take paths), one per name: the
/// fuzz tests run in parallel.
fn scratch_file(name: &str) -> PathBuf {
    stratego_testkit::scratch_path(&format!("fuzz-{name}"))
}

/// A small but real network checkpoint (and its NaN and huge-weight twins).
fn checkpoint_seeds() -> Vec<Vec<u8>> {
    let good = std::fs::read(repo("registrations/distill-expectimax2.safetensors")).unwrap();
    let header = 8 + u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
    let with = |value: f32| {
        let mut bytes = good.clone();
        for chunk in bytes[header..].chunks_exact_mut(4) {
            chunk.copy_from_slice(&value.to_le_bytes());
        }
        bytes
    };
    vec![good.clone(), with(f32::NAN), with(1e30), good[..header + 100].to_vec()]
}

#[test]
fn network_checkpoints() {
    let seeds = checkpoint_seeds();
    let path = scratch_file("net.safetensors");
    let device = stratego_model::device("cpu").unwrap();
    let state = played_states(Ruleset::classic(), 1, 1).remove(0).0; // no moves: the view needs no history
    fuzz_with("checkpoint", 1509, &seeds, mutate_safetensors, |b| {
        std::fs::write(&path, b).unwrap();
        stratego_model::load(&path, None, None, &device).map(drop).map_err(|e| e.to_string())
    });
    // The huge-weight network loads (its weights are finite) and then
    // fails at its first move with one line, as `arena` reports it.
    let player = stratego_roster::players();
    std::fs::write(&path, &seeds[2]).unwrap();
    let spec = format!("net:{}", path.display());
    let factory = player.factory(&spec).unwrap();
    let mut p = factory.make();
    let view = stratego_players::view::InfoView::new(&state, &[]);
    let err = p.choose_move(&view, &mut stratego_players::player::AgentRng::seed_from_u64(1)).unwrap_err().to_string();
    assert!(!err.contains('\n') && err.contains("positive probability"), "{err}");
    let _ = std::fs::remove_file(&path);
}

/// Sizes for a checkpoint's model config: zero, the presets' sizes, each
/// side of every stated maximum, and counts whose products wrap a 64-bit
/// integer.
const CHECKPOINT_SIZES: &[u64] = &[
    0,
    1,
    2,
    3,
    8,
    32,
    64,
    384,
    1_024,
    1_025,
    1_536,
    16_384,
    16_385,
    65_536,
    65_537,
    1 << 31,
    1 << 32,
    1_000_000_000_000,
    1 << 53,
    1 << 63,
    u64::MAX,
];

/// A checkpoint whose metadata claims other sizes: each of `d_model`,
/// `layers`, `heads` and `ffn` is kept or replaced by one of
/// [`CHECKPOINT_SIZES`] or a random number; the tensors stay those of the
/// seed, so most claims are of a network the file does not hold.
fn with_random_sizes(rng: &mut Xoshiro256PlusPlus, seed: &[u8], _: &[Vec<u8>]) -> Vec<u8> {
    let n = 8 + u64::from_le_bytes(seed[..8].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&seed[8..n]).unwrap();
    let model = header["__metadata__"]["stratego.model"].as_str().unwrap().to_string();
    let mut config: serde_json::Value = serde_json::from_str(&model).unwrap();
    for key in ["d_model", "layers", "heads", "ffn"] {
        let size = match rng.random_range(0..10) {
            0..=2 => continue,
            3..=7 => CHECKPOINT_SIZES[rng.random_range(0..CHECKPOINT_SIZES.len())],
            8 => rng.random_range(0..100_000),
            _ => rng.random(),
        };
        config[key] = serde_json::Value::from(size);
    }
    header["__metadata__"]["stratego.model"] = serde_json::Value::from(config.to_string());
    let header = serde_json::to_vec(&header).unwrap();
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&header);
    out.extend_from_slice(&seed[n..]);
    out
}

#[test]
fn checkpoint_metadata_sizes() {
    let seeds = vec![checkpoint_seeds().remove(0)];
    let path = scratch_file("sizes.safetensors");
    let device = stratego_model::device("cpu").unwrap();
    fuzz_with("checkpoint-sizes", 1516, &seeds, with_random_sizes, |b| {
        std::fs::write(&path, b).unwrap();
        // Each claim is refused (or, when it happens to be the file's own,
        // loaded) at once: the time bound stands for "before allocating".
        let start = std::time::Instant::now();
        let meta = stratego_model::read_meta(&path).map_err(|e| e.to_string());
        let loaded = stratego_model::load(&path, None, None, &device).map(drop).map_err(|e| e.to_string());
        assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
        if let Ok(meta) = &meta {
            let count = meta.config.parameter_count(meta.layout.channels());
            assert!(count * 4 <= b.len(), "read_meta accepted {count} parameters from {} bytes", b.len());
        }
        meta.and(loaded)
    });
    let _ = std::fs::remove_file(&path);
}

/// Run directories whose own files are symbolic links (to a file that must
/// keep its bytes, to nothing, to a directory, to `/dev/zero` or
/// `/dev/null`), or devices: every writer of the run (`train`, `ntuple
/// train`, `register run`: the lock, the metrics log, the config's atomic
/// write) either works on a file of its own or refuses with one line, and
/// nothing is written through a link.
#[cfg(unix)]
#[test]
fn symlinked_run_files() {
    use stratego_runlog::{atomic_write, read_metrics, DirLock, MetricsLog, RunDir};
    const NAMES: [&str; 5] = ["run.lock", "metrics.jsonl", "config.toml", "config.toml.partial", "reg.toml.lock"];
    let base = scratch_file("links");
    let _ = std::fs::remove_dir_all(&base);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1517);
    let one_line = |what: &str, r: Result<(), String>| {
        if let Err(e) = r {
            assert!(!e.is_empty() && !e.contains('\n'), "{what}: {e:?}");
        }
    };
    for case in 0..cases() / 10 {
        let dir = base.join(format!("{case}"));
        let run = dir.join("run");
        std::fs::create_dir_all(&run).unwrap();
        let precious = dir.join("precious.txt");
        std::fs::write(&precious, "precious, no newline").unwrap();
        std::fs::create_dir_all(dir.join("a-directory")).unwrap();
        let mut linked = Vec::new();
        for name in NAMES {
            let path = run.join(name);
            match rng.random_range(0..8) {
                0 => std::os::unix::fs::symlink(&precious, &path).unwrap(),
                1 => std::os::unix::fs::symlink(dir.join("nothing"), &path).unwrap(),
                2 => std::os::unix::fs::symlink(dir.join("a-directory"), &path).unwrap(),
                3 => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
                4 => std::os::unix::fs::symlink("/dev/null", &path).unwrap(),
                5 if name == "config.toml" => std::fs::write(&path, "seed = 1\n").unwrap(),
                _ => continue,
            }
            linked.push(name);
        }
        let what = format!("case {case} with {linked:?}");
        one_line(&what, RunDir::open(&run).map(drop).map_err(|e| e.to_string()));
        one_line(&what, RunDir::create(&run, "seed = 2\n").map(drop).map_err(|e| e.to_string()));
        one_line(&what, MetricsLog::append(&run.join("metrics.jsonl")).map(drop).map_err(|e| e.to_string()));
        one_line(&what, read_metrics(&run.join("metrics.jsonl")).map(drop).map_err(|e| e.to_string()));
        one_line(&what, DirLock::acquire_file(&run.join("reg.toml"), "test").map(drop).map_err(|e| e.to_string()));
        one_line(&what, atomic_write(&run.join("config.toml"), b"seed = 3\n").map_err(|e| e.to_string()));
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious, no newline", "{what}");
        assert!(!dir.join("nothing").exists(), "{what}: created through a dangling link");
        assert_eq!(std::fs::read_dir(dir.join("a-directory")).unwrap().count(), 0, "{what}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn ntuple_tables() {
    let config = stratego_learner::ntuple::NTupleConfig::parse(
        &std::fs::read_to_string(repo("configs/ntuple-tiny.toml")).unwrap(),
    )
    .unwrap();
    let good = config.train_config().fresh_net().unwrap().to_bytes(None);
    let header = 8 + u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
    let mut huge = good.clone();
    for (i, chunk) in huge[header..].chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&(if i % 2 == 0 { 3e38f32 } else { -3e38 }).to_le_bytes());
    }
    let seeds = vec![good.clone(), huge, good[..header].to_vec()];
    let state = played_states(Ruleset::classic(), 1, 1).remove(0).0; // no moves: the view needs no history
    fuzz_with("ntuple-table", 1510, &seeds, mutate_safetensors, |b| {
        let net = stratego_baselines::ntuple::NTupleNet::from_bytes(b, None)?;
        // Whatever loads must value moves with numbers.
        let view = stratego_players::view::InfoView::new(&state, &[]);
        let values = net.move_values(&view);
        if values.iter().any(|v| v.is_nan()) {
            panic!("a loaded table valued a move as NaN");
        }
        Ok(())
    });
}

#[test]
fn registrations() {
    let seeds: Vec<Vec<u8>> = ["greedy-vs-random", "expectimax-vs-greedy-handcrafted"]
        .iter()
        .map(|n| std::fs::read(repo(&format!("registrations/{n}.toml"))).unwrap())
        .collect();
    let path = scratch_file("registration.toml");
    let registry = stratego_roster::players();
    fuzz("registration", 1511, &seeds, |b| {
        std::fs::write(&path, b).unwrap();
        stratego_evaluation::registration::prepare(&path, &registry).map(drop).map_err(|e| e.to_string())
    });
    let _ = std::fs::remove_file(&path);
}

/// Sizes that each pass alone but not together: every `KEY = N` line of the
/// seed whose key is in `keys` gets a value near a bound, a power of two or
/// a random number.
fn with_random_products(rng: &mut Xoshiro256PlusPlus, seed: &[u8], keys: &[&str]) -> Vec<u8> {
    const VALUES: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "19",
        "20",
        "21",
        "256",
        "65536",
        "1000",
        "10000000",
        "10000001",
        "4294967294",
        "-1000",
        "-0.0",
        "1e9",
        "200.0",
    ];
    let text = String::from_utf8_lossy(seed);
    let mut out = String::new();
    for line in text.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        if keys.contains(&key) && rng.random_range(0..10) < 7 {
            let value = if rng.random_range(0..4) == 0 {
                rng.random_range(0..100_000u64).to_string()
            } else {
                VALUES[rng.random_range(0..VALUES.len())].to_string()
            };
            out.push_str(&format!("{key} = {value}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// Registrations and training configs whose sizes multiply: whatever a
/// registration accepts has an even number of games in its range and a
/// margin in its range, and whatever a training config accepts fits the
/// machine's memory.
#[test]
fn registration_and_config_products() {
    let registrations: Vec<Vec<u8>> = ["greedy-vs-random"]
        .iter()
        .map(|n| std::fs::read(repo(&format!("registrations/{n}.toml"))).unwrap())
        .map(|t| String::from_utf8(t).unwrap().split("\n[[results]]").next().unwrap().as_bytes().to_vec())
        .collect();
    let path = scratch_file("products.toml");
    let registry = stratego_roster::players();
    let mutator: Mutator = |rng, seed, _| with_random_products(rng, seed, &["games", "margin"]);
    fuzz_with("registration-products", 1517, &registrations, mutator, |b| {
        std::fs::write(&path, b).unwrap();
        let prepared = stratego_evaluation::registration::prepare(&path, &registry).map_err(|e| e.to_string())?;
        let games = prepared.registration.games;
        assert!((20..=10_000_000).contains(&games) && games % 2 == 0, "accepted games = {games}");
        if let stratego_evaluation::registration::DecisionRule::EloInterval { margin } = prepared.registration.decision
        {
            assert!((0.0..=1000.0).contains(&margin), "accepted margin = {margin}");
        }
        Ok(())
    });
    let configs = vec![std::fs::read(repo("configs/smoke.toml")).unwrap()];
    let mutator: Mutator = |rng, seed, _| {
        with_random_products(rng, seed, &["actors", "games_per_actor", "max_inference_batch", "minibatch", "batch"])
    };
    // Accepted: parsed and checked before a run, where the limits are read.
    let limit = stratego_learner::config::memory_limit();
    fuzz_with("config-products", 1518, &configs, mutator, |b| {
        let config = stratego_learner::TrainConfig::parse(&text(b)).map_err(|e| e.to_string())?;
        config.check_before_run().map_err(|e| e.to_string())?;
        let total: u64 = config.memory_parts().iter().map(|(_, bytes)| bytes).sum();
        if let Some(limit) = limit {
            assert!(total <= limit.bytes, "accepted buffers of {total} bytes under {} {}", limit.what, limit.bytes);
        }
        Ok(())
    });
    let _ = std::fs::remove_file(&path);
}

#[test]
fn ucc_referee_sessions() {
    use stratego_ucc::{bot, protocol};
    let rows = "..++..++..\n..++..++..\n##########\n##########\n##########\n##########\n";
    let seeds: Vec<Vec<u8>> = vec![
        format!("RED ./x 10 10\nSTART\n{rows}QUIT ./x BLUE SURRENDER 1 2 2\n").into_bytes(),
        b"BLUE ./x 10 10\n0 3 DOWN OK\n".to_vec(),
        b"BLUE ./x 10 10\n5 5 DOWN OK\n".to_vec(),
        b"RED ./x 10 10\nSTART\n".to_vec(),
        b"0 3 DOWN KILLS 3 2\n".to_vec(),
    ];
    let factory = stratego_baselines::factory_of("random").unwrap();
    fuzz("ucc-session", 1512, &seeds, |b| {
        let mut player = factory.make();
        bot::play(
            b,
            Vec::new(),
            &mut Vec::new(),
            player.as_mut(),
            &mut stratego_players::player::AgentRng::seed_from_u64(1),
            1,
            &bot::BotOptions::new(std::time::Duration::from_millis(50)),
        )
        .map(drop)
        .map_err(|e| e.to_string())
    });
    let lines: Vec<Vec<u8>> = ["0 3 DOWN OK", "4 6 UP KILLS 3 2", "9 9 LEFT 3 DIES 5 9", "1 1 RIGHT BOTHDIE 4 4"]
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .collect();
    fuzz("ucc-move-line", 1513, &lines, |b| protocol::parse_move_line(&text(b)).map(drop).map_err(|e| e.to_string()));
    // A bot's replies and setups, as the lab referees a `ucc:` program.
    let replies: Vec<Vec<u8>> =
        ["4 6 UP", "0 3 DOWN 3", "SURRENDER", "9 9 LEFT 1 junk"].iter().map(|l| l.as_bytes().to_vec()).collect();
    fuzz("ucc-reply", 1514, &replies, |b| protocol::parse_reply(&text(b)).map(drop));
    let setups: Vec<Vec<u8>> = vec![b"FB8sB479B8\nBB31555583\n6724898974\n967B669999".to_vec()];
    fuzz("ucc-setup", 1515, &setups, |b| {
        let lines: Vec<String> = text(b).lines().map(str::to_string).collect();
        protocol::parse_setup_lines(&lines, stratego_engine::Color::Blue).map(drop)
    });
}

#[test]
fn cotoan_snapshots_and_settings() {
    use stratego_cotoan::{CoToanState, HorizonRule, OperatorMask, Settings};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let base = Settings::default();
    // Threshold on and off, both horizon rules, an operator subset.
    let settings: Vec<Vec<u8>> = [
        base,
        Settings { threshold: 9, ..base },
        Settings { horizon: 40, horizon_rule: HorizonRule::Draw, ..base },
        Settings { operators: OperatorMask::from_bits(5).unwrap(), ..base },
    ]
    .iter()
    .map(|s| s.canonical().into_bytes())
    .collect();
    let mut states = Vec::new();
    for s in &settings {
        let s: Settings = text(s).parse().unwrap();
        for state in stratego_cotoan::fixtures::random_trajectory(s, 30, &mut rng).into_iter().step_by(7) {
            states.push(state.serialize().into_bytes());
        }
    }
    fuzz("cotoan-settings", 1514, &settings, |b| text(b).parse::<Settings>().map(drop).map_err(|e| e.to_string()));
    fuzz("cotoan-state", 1515, &states, |b| CoToanState::deserialize(&text(b)).map(drop).map_err(|e| e.to_string()));
}

/// The same promise at the command line, on a sample of the cases: exit
/// status 1 and exactly one `error: ...` line on stderr, for malformed
/// flags and values as much as for malformed files.
#[test]
fn the_command_line_answers_bad_input_with_one_error_line() {
    let bad: &[&[&str]] = &[
        &["bench", "obs", "--batch", "0"],
        &["bench", "model", "--batch", "0"],
        &["bench", "model", "--iterations", "0"],
        &["bench", "engine", "--plies", "0"],
        &["arena", "--a", "random", "--b", "random", "--threads", "100000"],
        &["arena", "--a", "random", "--b", "random", "--games", "3"],
        &["arena", "--a", "random"],
        &["arena", "--a", "random", "--b", "random", "--rules", "x"],
        &["legal", "not a position"],
        &["no-such-command"],
    ];
    for args in bad {
        assert_refused(args, "");
    }
    // Files without end: a device is refused as a checkpoint or a table
    // file, and read as text only up to its limit (these used to read until
    // memory ran out).
    if Path::new("/dev/zero").exists() {
        let out = stratego_testkit::scratch_path("fuzz-distill.safetensors");
        let out = out.display().to_string();
        let endless: &[&[&str]] = &[
            &["arena", "--a", "net:/dev/zero", "--b", "random"],
            &["arena", "--a", "ntuple:/dev/zero", "--b", "random"],
            &["model", "info", "/dev/zero"],
            &["train", "--config", "/dev/zero"],
            &["distill", "--config", "/dev/zero", "--out", &out],
            &["ntuple", "train", "--config", "/dev/zero"],
            &["replay", "/dev/zero"],
            &["register", "run", "/dev/zero"],
        ];
        for args in endless {
            let err = stderr(&assert_refused(args, ""));
            assert!(err.contains("not a regular file") || err.contains("longer than 64 MiB"), "{args:?}: {err}");
        }
        // The same on stdin, and from a referee whose line never ends.
        for (args, why) in [
            (&["legal", "-"][..], "cannot read stdin: longer than 64 MiB"),
            (&["cotoan", "legal", "-"][..], "cannot read stdin: longer than 64 MiB"),
            (&["ucc-bot", "--agent", "random"][..], "a line longer than 1 MiB"),
        ] {
            let o = command(args).stdin(std::fs::File::open("/dev/zero").unwrap()).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.lines().last().is_some_and(|l| l.starts_with("error: ") && l.contains(why)), "{args:?}: {err}");
        }
    }
    // An unwritable stderr must not turn the error into a panic.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    if let Ok(full) = full {
        let o = command(&["legal", "x"]).stderr(full).output().unwrap();
        assert_eq!(o.status.code(), Some(1));
    }
}
