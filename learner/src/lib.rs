//! The learner: trains the policy, value and belief heads on self-play
//! games with the Ataraxos recipe (PPO + magnet KL, TD(lambda) values,
//! GAE advantages with filtering), and manages the run directory.
//!
//! Read `train.rs` top to bottom for the algorithm; `objective.rs` holds the
//! loss, `step.rs` one gradient step, `targets.rs` the returns and
//! advantages, `diagnostics.rs` the table of everything an iteration logs.
//! `distill.rs` is the warm start by imitation: supervised training on a
//! teacher player's games (`[pretrain]`, `stratego distill`).
//!
//! `ntuple/` is the other trainer's run: TD(lambda) self-play of the n-tuple
//! tables (`stratego_baselines::ntuple`) on the same run-directory code
//! (`stratego_runlog`), the same ruleset reader (`rules_config.rs`) and
//! the same curves (`curves.rs`).

pub mod bench;
pub mod collect;
pub mod config;
pub mod config_keys;
pub mod curves;
pub mod diagnostics;
pub mod distill;
pub mod error;
pub mod evaluate;
pub mod ntuple;
pub mod pool_files;
pub mod ppo;
pub mod probe;
pub mod recipe;
pub mod rules_config;
pub mod run;
pub mod stage;
pub mod train;
pub mod weights;
pub mod worker;

pub use config::TrainConfig;
pub use error::TrainError;
pub use run::NetworkRun;
pub use train::{train, Learned, Learner, TrainOptions, TrainSummary};
pub use worker::SelfPlayWorker;

/// One line on stderr: progress, or what a run repaired or skipped. A stderr that
/// cannot be written must not stop the run (or turn into a panic).
pub(crate) fn say(line: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
}

/// Says on stderr that a resumed log lost a torn last line (what a kill in
/// mid-write leaves), and how many of its lines are not metrics lines
/// (kept, but skipped when the curves are drawn), so neither repair is
/// silent.
pub(crate) fn say_torn(metrics: &stratego_runlog::MetricsLog) {
    if let Some(bytes) = metrics.torn() {
        say(&format!("metrics.jsonl: cut off a torn last line ({bytes} bytes, left by an interrupted write)"));
    }
    if let Some(bad) = metrics.unreadable() {
        say(&format!(
            "metrics.jsonl: skipping {} unreadable line(s), the first line {} ({}); they stay in the file",
            bad.lines, bad.first, bad.why
        ));
    }
}
