//! The repository's registrations: every one parses, builds its players
//! (network checkpoints included, so this test lives where every player is
//! registered) and has been run.

use std::path::PathBuf;

use stratego_evaluation::registration::prepare;

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
