//! docs/ARCHITECTURE.md cannot drift from the workspace: its crate list and
//! its dependency picture are generated from the members' Cargo.toml files
//! (`UPDATE_ARCH_DOCS=1 cargo test --test architecture` rewrites them), and
//! the layering rules the document states are checked here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- generated: crate graph -->\n";
const END: &str = "<!-- end generated -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Member folder -> (package name, the workspace crates it depends on, its
/// other normal dependencies).
struct Member {
    package: String,
    ours: Vec<String>,
    external: Vec<String>,
}

fn members() -> BTreeMap<String, Member> {
    let workspace: toml::Table = toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let folders = workspace["workspace"]["members"].as_array().unwrap();
    let mut out = BTreeMap::new();
    for folder in folders {
        let folder = folder.as_str().unwrap();
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap()).unwrap();
        let package = manifest["package"]["name"].as_str().unwrap().to_string();
        let deps = manifest.get("dependencies").and_then(|d| d.as_table()).cloned().unwrap_or_default();
        let (ours, external): (Vec<String>, Vec<String>) =
            deps.keys().cloned().partition(|k| k.starts_with("stratego-"));
        out.insert(folder.to_string(), Member { package, ours, external });
    }
    out
}

fn short(package: &str) -> &str {
    package.strip_prefix("stratego-").unwrap_or(package)
}

/// The generated part: a Mermaid graph (GitHub draws it as a picture) and a
/// table of folders, packages and what each may depend on.
fn generated() -> String {
    let members = members();
    let mut text = String::from("```mermaid\ngraph BT\n");
    for m in members.values() {
        let name = short(&m.package);
        let name = if name == "stratego" { "cli" } else { name };
        for dep in &m.ours {
            text.push_str(&format!("    {name} --> {}\n", short(dep)));
        }
        if m.ours.is_empty() {
            text.push_str(&format!("    {name}\n"));
        }
    }
    text.push_str("```\n\n| folder | package | depends on (ours) |\n|---|---|---|\n");
    for (folder, m) in &members {
        let folder = if folder == "." { "(root) `src/`".to_string() } else { format!("`{folder}/`") };
        let deps: Vec<&str> = m.ours.iter().map(|d| short(d)).collect();
        let deps = if deps.is_empty() { "none".to_string() } else { deps.join(", ") };
        text.push_str(&format!("| {folder} | `{}` | {deps} |\n", m.package));
    }
    text
}

#[test]
fn the_architecture_doc_matches_the_workspace() {
    let path = root().join("docs/ARCHITECTURE.md");
    let path = path.to_str().unwrap();
    let test = "cargo test --test architecture";
    stratego_support::generated_docs::check(path, BEGIN, END, &generated(), "UPDATE_ARCH_DOCS", test)
        .unwrap_or_else(|e| panic!("{e}"));
    let doc = std::fs::read_to_string(path).unwrap();
    // Every crate has its paragraph, headed by its folder.
    for folder in members().keys().filter(|f| *f != ".") {
        assert!(doc.contains(&format!("### `{folder}/`")), "docs/ARCHITECTURE.md has no paragraph for {folder}/");
    }
}

/// The layers, bottom first: a crate may depend only on crates of lower
/// layers (the rule the document states).
const LAYERS: &[&[&str]] = &[
    // The tests' shared support depends on nothing (and is only ever a
    // dev-dependency, checked below); nor do the files and docs helpers
    // every crate reaches for, nor the game contract.
    &["support", "contract", "testkit"],
    // The two games, on the contract.
    &["engine", "cotoan"],
    &["players", "model", "runlog"],
    // What plays, measures and meets the outside on the player interface:
    // the baselines, the arena and statistics, self-play's actors, and the
    // UCC protocol both ways (our players as bots, outside programs as players).
    &["baselines", "evaluation", "selfplay", "ucc"],
    // The network players, above the hand-written ones: the guided search
    // (`netexpectimax`) runs the baselines' expectimax. The viewer, beside
    // them: it reads the referee's logs (ucc) and weighs material (baselines).
    &["netplayer", "viewer"],
    // The one list of players, below everything that names players by spec.
    &["roster"],
    &["learner"],
    // The two front ends: the command line and the Python package.
    &["stratego", "python"],
];

fn layer(package: &str) -> usize {
    LAYERS.iter().position(|l| l.contains(&short(package))).unwrap_or_else(|| panic!("{package} has no layer"))
}

#[test]
fn dependencies_point_down_the_pipeline() {
    let members = members();
    for m in members.values() {
        for dep in &m.ours {
            assert!(layer(dep) < layer(&m.package), "{} depends on {dep}, which is not below it", m.package);
        }
    }
    let by_name: BTreeMap<&str, &Member> = members.values().map(|m| (short(&m.package), m)).collect();
    // Test support is for tests: no crate's own code depends on it.
    for m in members.values() {
        assert!(!m.ours.iter().any(|d| d == "stratego-testkit"), "{} depends on the test kit", m.package);
    }
    // The contract depends on no crate of ours; each game on the contract
    // only (CoToan not on the Stratego engine); the model on the engine only
    // (and the support crate, which knows no game).
    assert!(by_name["contract"].ours.is_empty());
    assert_eq!(by_name["engine"].ours, ["stratego-contract"]);
    assert_eq!(by_name["cotoan"].ours, ["stratego-contract"]);
    assert_eq!(by_name["model"].ours, ["stratego-engine", "stratego-support"]);
    assert!(by_name["support"].ours.is_empty());
    // Nothing that plays, infers or learns below the evaluation layer reaches it;
    // the baselines and the player interface never do.
    for name in ["engine", "players", "baselines", "model", "netplayer", "selfplay", "cotoan", "ucc"] {
        assert!(!by_name[name].ours.iter().any(|d| d == "stratego-evaluation"), "{name} depends on evaluation");
    }
    // Only the crates that draw depend on the chart library, and no burn below
    // the model.
    for m in members.values() {
        let draws = ["stratego-evaluation"].contains(&m.package.as_str());
        assert_eq!(m.external.iter().any(|d| d == "plotters"), draws, "{} and plotters", m.package);
    }
    for name in ["contract", "engine", "players", "baselines", "evaluation", "cotoan", "runlog", "ucc", "viewer"] {
        assert!(!by_name[name].external.iter().any(|d| d == "burn"), "{name} depends on burn");
    }
}

/// The contract names no game: its code (comments aside, which may use
/// Stratego as an example) mentions none of Stratego's or CoToan's types
/// and no crate of ours, so a third game finds nothing of the other two in it.
#[test]
fn the_contract_is_beneath_both_games_and_names_neither() {
    let banned = [
        "stratego_",
        "Ruleset",
        "PieceType",
        "PieceSet",
        "Piece ",
        "Square",
        "Setup",
        "Layout",
        "Marshal",
        "Bomb",
        "CoToan",
        "Settings {",
    ];
    for file in rust_files(&root().join("contract/src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            for word in banned {
                assert!(!code.contains(word), "{}:{}: `{word}` in the contract: {line}", file.display(), n + 1);
            }
        }
    }
}

/// The list of players is put together in one crate, below the learner:
/// the command line, the Python package and the learner take it from there,
/// and no other crate assembles a registry of the baselines and the network
/// players itself.
#[test]
fn the_players_list_is_one_crate_below_the_learner() {
    let members = members();
    let by_name: BTreeMap<&str, &Member> = members.values().map(|m| (short(&m.package), m)).collect();
    assert!(layer("stratego-roster") < layer("stratego-learner"));
    let mut roster = by_name["roster"].ours.clone();
    roster.sort();
    assert_eq!(roster, ["stratego-baselines", "stratego-netplayer", "stratego-players", "stratego-ucc"]);
    for user in ["learner", "stratego", "python"] {
        assert!(by_name[user].ours.iter().any(|d| d == "stratego-roster"), "{user} does not use the roster");
    }
    for folder in ["src", "python/src", "learner/src", "evaluation/src", "selfplay/src", "ucc/src"] {
        for file in rust_files(&root().join(folder)) {
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(
                !text.contains("stratego_netplayer::register("),
                "{} assembles a player list of its own; use stratego_roster::players()",
                file.display()
            );
        }
    }
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

#[test]
fn the_members_are_the_crate_folders() {
    // A crate folder that is not a member (or the reverse) would escape both tests.
    let members = members();
    for entry in std::fs::read_dir(root()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.join("Cargo.toml").is_file() && Path::new(&name) != Path::new("target") {
            assert!(members.contains_key(&name), "{name}/ has a Cargo.toml but is not a workspace member");
        }
    }
}

/// The units (package, features, mode, kind, host or target) one cargo
/// command would compile, from cargo's unit graph. `--unit-graph` is
/// unstable; RUSTC_BOOTSTRAP lets stable cargo print it. A separate target
/// folder: the graph is computed, nothing is built, and the outer
/// `cargo test` keeps its own folder locked.
fn compiled_units(args: &[&str]) -> std::collections::BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(args)
        .args(["--unit-graph", "-Z", "unstable-options", "--offline", "--target-dir"])
        .arg(std::env::temp_dir().join("stratego-unit-graph"))
        .current_dir(root())
        .env("RUSTC_BOOTSTRAP", "1")
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo {args:?} --unit-graph: {}", String::from_utf8_lossy(&out.stderr));
    let graph: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a unit graph");
    graph["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|unit| {
            format!(
                "{} {} {} {} {} opt-level {}",
                unit["pkg_id"],
                unit["features"],
                unit["mode"],
                unit["target"]["kind"],
                unit["platform"],
                unit["profile"]["opt_level"]
            )
        })
        .collect()
}

/// `pip install ./python` builds the Python package alone; the workspace's
/// tests build every member with its dev-dependencies. Cargo resolves
/// features per command, so unless python/Cargo.toml names the features the
/// workspace turns on, the crates below them (burn and everything above it)
/// compile twice, once per command: 8 minutes of CI's 2 cores. Every unit of
/// the package's build but the Python bindings themselves must be one the
/// workspace's test build compiles too.
#[test]
fn the_python_package_reuses_the_workspaces_build() {
    let workspace = compiled_units(&["test", "--workspace", "--no-run"]);
    let python = compiled_units(&["build", "-p", "stratego-python", "--lib"]);
    let bindings = [
        "pyo3",
        "numpy",
        "target-lexicon",
        "inventory",
        "matrixmultiply",
        "ndarray",
        "rawpointer",
        "rustc-hash",
        "stratego-python",
    ];
    let extra: Vec<&String> = python
        .difference(&workspace)
        .filter(|unit| {
            !bindings.iter().any(|name| {
                unit.contains(&format!("#{name}@"))
                    || unit.contains(&format!("/{name}@"))
                    || unit.contains(&format!("#{name}-"))
            })
        })
        .collect();
    assert!(
        extra.is_empty(),
        "the Python package's build compiles units the workspace's test build does not (name the features in \
         python/Cargo.toml's unification section):\n{}",
        extra.iter().map(|u| u.as_str()).collect::<Vec<_>>().join("\n")
    );
}

/// Whether `line` opens a fenced block that rustdoc runs as a test: a doc
/// comment's fence with no language or a Rust one (`ignore` and `text` are not run).
fn opens_a_doc_example(line: &str, inside: &mut bool) -> bool {
    let line = line.trim_start();
    let Some(doc) = line.strip_prefix("///").or_else(|| line.strip_prefix("//!")) else { return false };
    let Some(info) = doc.trim_start().strip_prefix("```") else { return false };
    *inside = !*inside;
    let runs = |word: &str| {
        matches!(word, "" | "rust" | "no_run" | "should_panic" | "compile_fail") || word.starts_with("edition")
    };
    *inside && info.split(',').map(str::trim).all(runs)
}

/// `cargo test` runs rustdoc over every library for its examples, seconds a
/// crate even where it has none: a library without examples says
/// `doctest = false`, and one with examples must not, so that no example
/// goes untested.
#[test]
fn only_libraries_with_doc_examples_run_rustdoc() {
    for (folder, member) in members() {
        let src = root().join(&folder).join("src");
        if !src.join("lib.rs").is_file() {
            continue;
        }
        let examples: Vec<String> = rust_files(&src)
            .iter()
            .flat_map(|file| {
                let mut inside = false;
                let text = std::fs::read_to_string(file).unwrap();
                let lines: Vec<usize> = text
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| opens_a_doc_example(line, &mut inside))
                    .map(|(i, _)| i + 1)
                    .collect();
                lines.into_iter().map(move |n| format!("{}:{n}", file.display()))
            })
            .collect();
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(root().join(&folder).join("Cargo.toml")).unwrap()).unwrap();
        let lib = manifest.get("lib").and_then(|l| l.as_table());
        let doctest = lib.and_then(|l| l.get("doctest")).and_then(|d| d.as_bool()).unwrap_or(true);
        // The Python bindings are not tested by cargo at all (`test = false`).
        let tested = lib.and_then(|l| l.get("test")).and_then(|t| t.as_bool()).unwrap_or(true);
        if !tested {
            continue;
        }
        if examples.is_empty() {
            assert!(
                !doctest,
                "{} has no doc examples: add `[lib] doctest = false` to {folder}/Cargo.toml",
                member.package
            );
        } else {
            assert!(
                doctest,
                "{} has doc examples that would not run ({}): remove `doctest = false`",
                member.package,
                examples.join(", ")
            );
        }
    }
}

/// The top-level modules of a crate (a file `src/x.rs` or a folder
/// `src/x/`) that each module names through `crate::` outside its tests.
fn module_imports(krate: &str) -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let src = root().join(krate).join("src");
    let module_of = |path: &Path| -> String {
        let rel = path.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_str().unwrap();
        first.trim_end_matches(".rs").to_string()
    };
    let files = rust_files(&src);
    let modules: std::collections::BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut imports: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file);
        let text = std::fs::read_to_string(file).unwrap();
        // A module's own tests may reach anywhere; the circle that matters
        // is in the code a change has to understand.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let named = imports.entry(module.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name != module && modules.contains(&name) {
                named.insert(name);
            }
        }
    }
    imports
}

/// The import circles among a crate's modules: each strongly connected
/// set of more than one module, sorted.
fn import_circles(krate: &str) -> Vec<Vec<String>> {
    let imports = module_imports(krate);
    let reaches = |from: &str| {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for next in imports.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, _> = imports.keys().map(|m| (m, reaches(m))).collect();
    let mut circles: Vec<Vec<String>> = Vec::new();
    for m in imports.keys() {
        let circle: Vec<String> =
            imports.keys().filter(|n| reach[m].contains(*n) && reach[*n].contains(m)).cloned().collect();
        if circle.len() > 1 && !circles.contains(&circle) {
            circles.push(circle);
        }
    }
    circles
}

/// No file of the learner, the engine or the baselines imports, through
/// others, a file that imports it: each can be read (and changed) knowing
/// only what is below it (issue 52). A crate listed with circles would
/// name them as they stand, so that a new one fails and a broken one is
/// taken off the list.
#[test]
fn no_import_circles_among_a_crates_files() {
    let known: [(&str, &[&[&str]]); 3] = [("learner", &[]), ("engine", &[]), ("baselines", &[])];
    for (krate, circles) in known {
        let expected: Vec<Vec<String>> = circles.iter().map(|c| c.iter().map(|m| m.to_string()).collect()).collect();
        assert_eq!(import_circles(krate), expected, "the import circles among {krate}/src's modules");
    }
}
