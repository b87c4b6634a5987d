//! The repository's registrations: every one parses, builds its players
//! (network checkpoints included, so this test lives where every player is
//! registered) and has been run.

use std::path::PathBuf;

use stratego_evaluation::registration::{prepare, read};
use stratego_players::PlayerSpec;

#[test]
fn the_repositorys_registrations_are_consistent_with_their_logged_results() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("registrations");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    // Registrations name their files (n-tuple tables, network checkpoints)
    // relative to the repository root, where `stratego register run` is run.
    // No other test of this binary reads a relative path.
    std::env::set_current_dir(dir.parent().unwrap()).unwrap();
    for file in files {
        let prepared = prepare(&file, &stratego_roster::players()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!prepared.registration.results.is_empty(), "{} has been run", file.display());
    }
}

/// Pending registrations (`registrations/pending/`): stated and committed
/// before the networks they compare are trained (a run that spans sessions),
/// so they cannot be prepared yet. Each parses, names players of registered
/// kinds (those without a file build), and has no results: a run one moves
/// beside the others first.
#[test]
fn pending_registrations_parse_and_have_not_been_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("registrations/pending");
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    let players = stratego_roster::players();
    for path in entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")) {
        let registration = read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(registration.results.is_empty(), "{} has been run: move it to registrations/", path.display());
        for text in [&registration.a, &registration.b] {
            let spec = players.parse(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // A player without a file builds now: its options are checked too.
            if spec.path.is_none() {
                players.build(&spec).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
    }
}

/// The option keys of a registry entry's option list (`depth=N (1-20),
/// nodes=N, ...`): the words before each `=`.
fn option_keys(options: &str) -> Vec<&str> {
    options
        .split(", ")
        .filter_map(|item| item.split_once('=').map(|(key, _)| key.trim()))
        .filter(|key| !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase()))
        .collect()
}

/// What a registration logs of its players (`resolved_name`) must say which
/// player was played whatever the defaults become: for every registered
/// kind, the default player's resolved name names every option that has a
/// value (a clock, a veto or the Flag's defenders have none unless given;
/// nor have the options `netrollout` gained after its players were
/// registered: the value head in the leaf, the belief's worlds and the
/// mirror step, named whenever they are set), and a resolved name
/// makes the same player again (the same canonical and resolved names).
#[test]
fn every_player_kind_resolves_to_a_name_of_all_its_options() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let net = root.join("registrations/cpu-continue.safetensors").display().to_string();
    let tables = root.join("registrations/ntuple-td.safetensors").display().to_string();
    let registry = stratego_roster::players();
    let mut kinds = Vec::new();
    for entry in registry.entries() {
        let base = match (entry.path.is_some(), entry.name) {
            (false, name) => name.to_string(),
            (true, "ntuple") => format!("ntuple:{tables}"),
            // A program on the PATH: the command that runs it is its path.
            (true, "ucc") => "ucc:true".to_string(),
            (true, name) => format!("{name}:{net}"),
        };
        let with_options = match entry.name {
            "expectimax" => vec![
                format!("{base}:time=20,guard=off"),
                format!("{base}:depth=2,time=50"),
                format!("{base}:depth=2,leaf=ntuple:{tables}"),
                format!("{base}:defend=on,time=100"),
            ],
            "netexpectimax" => vec![format!("{base},margin=0.01,time=20,scale=0")],
            "netrollout" => vec![
                format!("{base},veto=0.3,time=50,width=2"),
                format!("{base},value=0.5,prior=belief,step=mirror,eta=20"),
            ],
            "netsearch" => vec![format!("{base},time=30,prior=counting")],
            "net" => vec![format!("{base},temperature=0.5,setup=handcrafted-v2"), format!("{base},veto=0.02,time=80")],
            "ucc" => vec!["ucc:true,timeout=2.5".to_string()],
            _ => vec![format!("{base}{}setup=handcrafted", if entry.path.is_some() { "," } else { ":" })],
        };
        let factory = registry.factory(&base).unwrap_or_else(|e| panic!("{base}: {e}"));
        let resolved: PlayerSpec = factory.resolved_name().parse().unwrap();
        let unnamed = |key: &str| {
            ["time", "veto", "defend"].contains(&key)
                || (entry.name == "netrollout" && ["value", "prior", "pool", "step", "eta"].contains(&key))
        };
        for key in option_keys(entry.options).into_iter().filter(|key| !unnamed(key)) {
            assert!(
                resolved.option(key).is_some(),
                "{}: the default player's resolved name {resolved} has no {key}",
                entry.name
            );
        }
        for spec in std::iter::once(base).chain(with_options) {
            let factory = registry.factory(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            let resolved = factory.resolved_name();
            let again = registry.factory(&resolved).unwrap_or_else(|e| panic!("{resolved}: {e}"));
            assert_eq!(again.name(), factory.name(), "{spec} resolves to {resolved}, another player");
            assert_eq!(again.resolved_name(), resolved, "{spec}");
        }
        kinds.push(entry.name);
    }
    kinds.sort();
    assert_eq!(
        kinds,
        ["expectimax", "greedy", "net", "netexpectimax", "netrollout", "netsearch", "ntuple", "random", "ucc"]
    );
}
