//! The n-tuple trainer's config file (docs/NTUPLE.md section 5, "Config
//! keys"): what a run plays and learns, how often it evaluates, checkpoints
//! and logs. Unknown keys and invalid values are errors naming the key.
//!
//! Spelled as the network trainer's configs are: snake_case keys and the
//! sections `[eval]` and `[checkpoint]` (one `CheckpointConfig` for both
//! trainers). The first spellings (`[evaluation]`, `[checkpoints]`,
//! `epsilon-final`, ...) are still read, so that the run directories and
//! table notes written before keep resuming; what is written back is the
//! one spelling.

use std::path::Path;
use std::sync::Arc;

use super::td::{TdConfig, TdTrainConfig};
use serde::{Deserialize, Serialize};
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::PlayerFactory;

use crate::config::CheckpointConfig;
use crate::TrainError;
use stratego_engine::Ruleset;

/// A training config file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NTupleConfig {
    pub seed: u64,
    pub games: u64,
    #[serde(default = "default_layout")]
    pub layout: String,
    /// Where both armies of each self-play game come from (a setup family's
    /// name, as player specs name it).
    #[serde(with = "crate::config::setup_name", default)]
    pub setups: SetupPolicy,
    /// The ruleset (`rules_config`: its canonical text, or a `[rules]`
    /// table of its switches).
    #[serde(with = "crate::rules_config", default = "Ruleset::classic")]
    pub rules: Ruleset,
    pub td: TdConfig,
    #[serde(alias = "evaluation")]
    pub eval: NTupleEvalConfig,
    #[serde(alias = "checkpoints")]
    pub checkpoint: CheckpointConfig,
    pub log: LogConfig,
}

/// Games against an opponent while training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NTupleEvalConfig {
    /// Every this many training games (and at the end); 0 turns evaluation off.
    pub every: u64,
    /// Games per evaluation (even: paired games with the seats swapped).
    pub games: u32,
    /// The seed of the evaluation match (the same match every time).
    #[serde(default = "default_eval_seed")]
    pub seed: u64,
    /// The opponent's spec.
    #[serde(default = "default_opponent")]
    pub opponent: String,
    /// The n-tuple player's setup family.
    #[serde(with = "crate::config::setup_name", default)]
    pub setup: SetupPolicy,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// Games per TensorBoard / metrics.jsonl point (averages over them).
    pub every: u64,
}

fn default_layout() -> String {
    stratego_baselines::ntuple::layout::DEFAULT.into()
}
fn default_eval_seed() -> u64 {
    9001
}
fn default_opponent() -> String {
    "greedy".into()
}

impl NTupleConfig {
    /// Reads and checks a config file; an error names the file and the key.
    pub fn load(path: &Path) -> Result<NTupleConfig, TrainError> {
        let text = stratego_support::files::read_text(path)
            .map_err(|e| TrainError::config_text(format!("cannot read {}: {e}", path.display())))?;
        NTupleConfig::parse(&text).map_err(|e| e.in_file(path))
    }

    /// Parses and checks a config text; an error names the key.
    pub fn parse(text: &str) -> Result<NTupleConfig, TrainError> {
        let config: NTupleConfig = toml::from_str(text)
            .map_err(|e| TrainError::config_text(stratego_support::toml_line::one_line(text, e)))?;
        config.validate()?;
        Ok(config)
    }

    /// The resolved config (every default filled in), as `config.toml` and
    /// the table files' `ntuple.training` note hold it.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a config always serializes")
    }

    /// The evaluation opponent, built (reading any file its spec names).
    pub fn opponent(&self) -> Result<Arc<dyn PlayerFactory>, TrainError> {
        stratego_roster::players().factory(&self.eval.opponent).map_err(|e| TrainError::config("eval.opponent", e))
    }

    /// Checks what serde cannot, reading no file; every error names its key.
    pub fn validate(&self) -> Result<(), TrainError> {
        self.check().map_err(TrainError::config_text)
    }

    fn check(&self) -> Result<(), String> {
        self.train_config().validate().map_err(|e| e.to_string())?;
        let e = &self.eval;
        if e.every > 0 && (e.games == 0 || !e.games.is_multiple_of(2)) {
            return Err(format!("invalid value {} for `eval.games`: expected an even number above 0", e.games));
        }
        // Parsed only: the file a spec names is read by `opponent`, when a
        // run starts.
        stratego_roster::players()
            .parse(&e.opponent)
            .map_err(|err| format!("invalid value `{}` for `eval.opponent`: {err}", e.opponent))?;
        // Each size in 1..=max (games per run: a billion is weeks of one core).
        let mut sizes = vec![
            ("games", self.games, 1_000_000_000),
            ("checkpoint.every", self.checkpoint.every, 1_000_000_000),
            ("checkpoint.keep", self.checkpoint.keep as u64, 100_000),
            ("log.every", self.log.every, 1_000_000_000),
        ];
        if e.every > 0 {
            sizes.push(("eval.games", e.games as u64, 1_000_000));
        }
        for (key, value, max) in sizes {
            if !(1..=max).contains(&value) {
                return Err(format!("invalid value {value} for `{key}`: expected 1 to {max}"));
            }
        }
        Ok(())
    }

    /// What the self-play trainer needs (the ruleset resolved).
    pub fn train_config(&self) -> TdTrainConfig {
        TdTrainConfig {
            rules: self.rules,
            seed: self.seed,
            games: self.games,
            layout: self.layout.clone(),
            setups: self.setups,
            td: self.td.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = include_str!("../../../configs/ntuple-tiny.toml");
    const REGISTERED: &str = include_str!("../../../configs/ntuple.toml");

    #[test]
    fn the_configs_parse_and_their_resolved_text_reads_back_the_same() {
        for text in [TINY, REGISTERED] {
            let config = NTupleConfig::parse(text).unwrap();
            assert_eq!(NTupleConfig::parse(&config.to_toml()).unwrap(), config);
        }
        // Every setup source is spelled as the player specs spell it.
        for setups in SetupPolicy::ALL {
            let name = setups.name();
            let text = TINY.replace("setups = \"mixed\"", &format!("setups = \"{name}\""));
            let config = NTupleConfig::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(config.setups, setups);
            assert_eq!(NTupleConfig::parse(&config.to_toml()).unwrap(), config);
        }
        // A config written with a `[rules]` table, as n-tuple configs first
        // were (and a run directory of then holds), reads as the same config.
        let text =
            "rules = \"stratego-rules-v1:pieces=barrage,two-square=3,chase=on,max-plies=200,max-battleless=200\"\n";
        assert!(TINY.contains(text));
        let table =
            TINY.replace(text, "").replace("[td]\n", "[rules]\npieces = \"barrage\"\nmax-plies = 200\n\n[td]\n");
        assert_eq!(NTupleConfig::parse(&table).unwrap(), NTupleConfig::parse(TINY).unwrap());
        let registered = NTupleConfig::parse(REGISTERED).unwrap();
        assert_eq!(registered.rules, Ruleset::classic());
        assert_eq!(registered.eval.seed, 9001);
    }

    #[test]
    fn bad_values_name_the_key() {
        for (from, to, key) in [
            ("[td]\n", "[td]\nmomentum = 0.9\n", "unknown field `momentum`"),
            ("alpha = 0.1", "alpha = 2.0", "`td.alpha`"),
            ("layout = \"lines2+material\"", "layout = \"snakes\"", "`layout`"),
            ("pieces=barrage", "pieces=mini", "`rules`"),
            ("games = 4\n", "games = 3\n", "`eval.games`"),
            ("keep = 2", "keep = 0", "`checkpoint.keep`"),
            ("[eval]\n", "[eval]\nopponent = \"alphazero\"\n", "`eval.opponent`"),
            ("[log]\nevery = 2", "[log]\nevery = 0", "`log.every`"),
        ] {
            assert!(TINY.contains(from), "{from:?}");
            let e = NTupleConfig::parse(&TINY.replace(from, to)).unwrap_err();
            assert!(e.to_string().contains(key), "{to:?} gave {e}");
        }
    }

    /// The spelling of the first n-tuple configs (kebab-case keys,
    /// `[evaluation]` and `[checkpoints]`), as a run directory of then
    /// holds it (tests/fixtures/ntuple-run-v1), reads as today's config and
    /// is written back in today's spelling; a file that names a section in
    /// both spellings is refused.
    #[test]
    fn the_first_spelling_still_reads() {
        let old = include_str!("../../../tests/fixtures/ntuple-run-v1/config.toml");
        assert!(old.contains("[evaluation]") && old.contains("epsilon-final"));
        let config = NTupleConfig::parse(old).unwrap();
        assert_eq!(config, NTupleConfig::parse(TINY).unwrap());
        let written = config.to_toml();
        assert!(written.contains("[eval]") && written.contains("[checkpoint]") && written.contains("epsilon_final"));
        for line in written.lines().filter(|l| l.contains(" = ")) {
            let key = line.split(" = ").next().unwrap();
            assert!(!key.contains('-'), "{line}");
        }
        assert!(!written.contains("[evaluation]") && !written.contains("[checkpoints]"), "{written}");
        let both = format!("{TINY}\n[evaluation]\nevery = 4\ngames = 4\n");
        assert!(NTupleConfig::parse(&both).unwrap_err().to_string().contains("duplicate"), "{both}");
    }
}
