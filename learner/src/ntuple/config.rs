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
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::PlayerFactory;

use crate::config::CheckpointConfig;
use crate::config_keys::{not_a_number, section, Accepts, Key};
use crate::TrainError;
use stratego_engine::Ruleset;

section! {
    /// A training config file: its top-level keys, then its sections.
    pub struct NTupleConfig in "" {
        /// The run's seed: game `g` draws everything from `(seed, g)`.
        pub seed: u64 = 2026, Accepts::Rule("a whole number");
        /// Self-play games to train for.
        pub games: u64 = 120_000, Accepts::Size(1_000_000_000);
        /// The tuple layout (docs/NTUPLE.md, section 2).
        pub layout: String = stratego_baselines::ntuple::layout::DEFAULT.into(),
            Accepts::Rule("a layout preset, e.g. `singles+lines2+material`");
        /// Where both armies of each self-play game come from (a setup
        /// family's name, as player specs name it).
        #[serde(with = "crate::config::setup_name")]
        pub setups: SetupPolicy = SetupPolicy::Random, Accepts::Rule("a setup family (`random`, `handcrafted`, ...)");
        /// The ruleset (`rules_config`: its canonical text, or a `[rules]`
        /// table of its switches, as n-tuple configs were first written).
        /// The tables remember it and refuse another piece set.
        #[serde(with = "crate::rules_config")]
        pub rules: Ruleset = Ruleset::classic(), Accepts::Rule("a ruleset's canonical text (docs/RULES.md)");
        /// The learning settings.
        pub td: TdConfig = TdConfig::default(), Accepts::Section;
        /// Games against an opponent while training.
        #[serde(alias = "evaluation")]
        pub eval: NTupleEvalConfig = NTupleEvalConfig::default(), Accepts::Section;
        /// Checkpoints (the network trainer's section).
        #[serde(alias = "checkpoints")]
        pub checkpoint: CheckpointConfig = CheckpointConfig::default(), Accepts::Section;
        /// TensorBoard and `metrics.jsonl` points.
        pub log: LogConfig = LogConfig::default(), Accepts::Section;
    }
}

section! {
    /// Games against an opponent while training.
    pub struct NTupleEvalConfig in "eval" {
        /// Every this many training games (and at the end); 0 turns evaluation off.
        pub every: u64 = 10_000, Accepts::AtMost(1_000_000_000);
        /// Games per evaluation, played in colour-swapped pairs.
        pub games: u32 = 200, Accepts::Rule("an even number, 2 to 1000000, where `every` is above 0");
        /// The seed of the evaluation match (the same match every time).
        pub seed: u64 = 9001, Accepts::Rule("a whole number");
        /// The opponent's spec.
        pub opponent: String = "greedy".into(), Accepts::Rule("a player spec (`stratego players`)");
        /// The n-tuple player's setup family.
        #[serde(with = "crate::config::setup_name")]
        pub setup: SetupPolicy = SetupPolicy::Random, Accepts::Rule("a setup family");
    }
}

section! {
    pub struct LogConfig in "log" {
        /// Games per TensorBoard / metrics.jsonl point (averages over them).
        pub every: u64 = 500, Accepts::Size(1_000_000_000);
    }
}

not_a_number!(TdConfig, NTupleEvalConfig, LogConfig, CheckpointConfig);

/// Every key of an n-tuple config, the top level's first, then each
/// section's, in the file's order; a section itself is not a key.
pub fn keys() -> impl Iterator<Item = &'static Key> {
    [NTupleConfig::KEYS, TdConfig::KEYS, NTupleEvalConfig::KEYS, CheckpointConfig::KEYS, LogConfig::KEYS]
        .into_iter()
        .flatten()
        .filter(|k| k.accepts != Accepts::Section)
}

/// docs/NTUPLE.md's table of the keys, with their defaults.
pub fn keys_markdown() -> String {
    crate::config::key_table(keys(), &toml::Table::try_from(NTupleConfig::default()).expect("the defaults serialize"))
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
        // The sections' ranges; `[td]`'s and the layout are the trainer's
        // own check (`TdTrainConfig::validate`), which runs them once.
        let ranges =
            [self.out_of_range(), self.eval.out_of_range(), self.checkpoint.out_of_range(), self.log.out_of_range()];
        if let Some((key, why)) = ranges.into_iter().flatten().next() {
            return Err(format!("`{key}`: {why}"));
        }
        self.train_config().validate().map_err(|e| e.to_string())?;
        let e = &self.eval;
        if e.every > 0 && (e.games == 0 || !e.games.is_multiple_of(2) || e.games > 1_000_000) {
            return Err(format!("`eval.games`: {} is not an even number in 2..=1000000", e.games));
        }
        // Parsed only: the file a spec names is read by `opponent`, when a
        // run starts.
        stratego_roster::players()
            .parse(&e.opponent)
            .map_err(|err| format!("`eval.opponent`: `{}`: {err}", e.opponent))?;
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

    #[test]
    fn docs_list_every_key() {
        use stratego_support::generated_docs::check_section;
        let (doc, what) = (concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/NTUPLE.md"), "NTUPLE CONFIG KEYS");
        let checked =
            check_section(doc, what, &keys_markdown(), "UPDATE_NTUPLE_DOCS", "cargo test -p stratego-learner ntuple");
        checked.unwrap_or_else(|e| panic!("{e}"));
    }

    /// The key table is the config: every key a config file holds is in
    /// it, in the file's order, each with its documentation; a key's
    /// default is the table's.
    #[test]
    fn the_key_table_holds_every_key_with_its_doc() {
        let mut config = NTupleConfig::default();
        // The keys written only when set.
        config.td.alpha_final = Some(0.5);
        config.td.lambda_final = Some(0.5);
        config.td.epsilon_final = Some(0.0);
        let written = toml::Table::try_from(&config).unwrap();
        let mut paths = Vec::new();
        for (key, value) in &written {
            match value.as_table() {
                Some(table) => paths.extend(table.keys().map(|k| format!("{key}.{k}"))),
                None => paths.push(key.clone()),
            }
        }
        let mut table: Vec<String> = keys().map(|k| k.path.to_string()).collect();
        paths.sort();
        table.sort();
        assert_eq!(paths, table);
        for key in keys() {
            assert!(!key.doc().is_empty(), "{} has no doc", key.path);
        }
        // A config of nothing is the defaults, and they pass the checks.
        assert_eq!(NTupleConfig::parse("").unwrap(), NTupleConfig::default());
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
