//! What the network players' tests share: scratch directories, tiny
//! checkpoints, the registry with the network entries, short matches.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stratego_engine::{Layout, Ruleset};
use stratego_evaluation::arena::{play_match, MatchConfig, MatchResult, SelfRestriction, SetupMode};
use stratego_model::{device, save, CheckpointMeta, ModelConfig, StrategoNet};
use stratego_players::{PlayerFactory, Registry, SpecError};

/// Short games keep the debug build of burn fast: Barrage, capped at 40 plies.
pub fn short_barrage() -> Ruleset {
    Ruleset { max_plies: 40, ..Ruleset::barrage() }
}

/// A directory of this test process, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = stratego_testkit::scratch_dir(&format!("netplayer-{name}"));
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn tiny_net(layout: Layout, seed: u64) -> StrategoNet {
    let dev = device("cpu").unwrap();
    dev.seed(seed);
    StrategoNet::tiny(layout, &dev)
}

/// A fresh tiny checkpoint for `layout` and `rules` at `path`.
pub fn checkpoint(path: &Path, layout: Layout, rules: Ruleset) {
    let meta = CheckpointMeta { config: ModelConfig::preset("tiny").unwrap(), layout, rules, step: 0 };
    save(&tiny_net(layout, 3), &meta, path).unwrap();
}

/// The baselines and networks on the CPU device made here.
pub fn players() -> Registry {
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, Some(device("cpu").unwrap()));
    registry
}

pub fn build(text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    players().factory(text)
}

/// `games` games (swapped pairs) of `a` against `b`.
pub fn match_of(a: &dyn PlayerFactory, b: &dyn PlayerFactory, rules: Ruleset, games: u32, seed: u64) -> MatchResult {
    let config = MatchConfig {
        rules,
        games,
        seed,
        setups: SetupMode::Swap,
        sprt: None,
        self_restriction: SelfRestriction::Both,
    };
    play_match(a, b, &config, &|_| {}).unwrap()
}

/// One swapped pair of `a` against `b`.
pub fn short_match(a: &dyn PlayerFactory, b: &dyn PlayerFactory, rules: Ruleset, seed: u64) -> MatchResult {
    match_of(a, b, rules, 2, seed)
}

/// Games as comparable text: every record and result.
pub fn transcript(result: &MatchResult) -> Vec<String> {
    result
        .games
        .iter()
        .map(|g| format!("{} {:?} {:?}", g.a_is_red, g.outcome, g.record.as_ref().map(|r| &r.moves)))
        .collect()
}
