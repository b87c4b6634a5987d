//! Stages of a recipe (`[[stage]]` in a config, KataGo-style): one run, one
//! command, a recipe that changes part way, checked whole before the run
//! starts. From iteration `from` on, the keys a stage names in its
//! `selfplay`, `learner` and `eval` tables replace the stage before's, each
//! key whole (`lr = { ... }` replaces the whole schedule); what it does not
//! name it keeps.
//!
//! When the run's network reaches version `from` (the iteration that ends
//! there is the last of the stage before), the learner
//! - keeps that network, `RUN/stages/NNNNNNNN.safetensors`, which a player
//!   spec of this stage or a later one names as `@N`: `net:@2000,temperature=0`
//!   is the run's own network as it was at iteration 2000, frozen (a
//!   sparring partner, the first member of a league);
//! - with `restart = true`, goes on as a new run from that network by
//!   `run.init` would: fresh optimizer moments, the average of the weights
//!   restarted at them, and the learning-rate and magnet schedules counted
//!   from 0 at `from`;
//! - writes a checkpoint, so that a resume at or past `from` starts inside
//!   the stage, and the actors start again with the stage's settings.
//!
//! This is what carries a two-run recipe (configs/cpu.toml, then
//! configs/cpu-4h-spar.toml from its network) as one config
//! (configs/gpu.toml).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use stratego_players::PlayerFactory;
use toml::Table;

use crate::TrainError;

/// One `[[stage]]` of a config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    /// The first iteration of the stage (at least 1; each stage's above the
    /// one before).
    pub from: u64,
    /// Begin as a run from `run.init` of the network at `from` would.
    #[serde(default)]
    pub restart: bool,
    /// Keys of `[selfplay]` this stage replaces.
    #[serde(default, skip_serializing_if = "Table::is_empty")]
    pub selfplay: Table,
    /// Keys of `[learner]` this stage replaces.
    #[serde(default, skip_serializing_if = "Table::is_empty")]
    pub learner: Table,
    /// Keys of `[eval]` this stage replaces.
    #[serde(default, skip_serializing_if = "Table::is_empty")]
    pub eval: Table,
}

impl Stage {
    /// `section` with this stage's `keys` of it in place; an error names
    /// the first key it refuses (`stage.NAME.KEY`), else the section.
    pub(crate) fn replace<T>(&self, section: &T, keys: &Table, name: &str) -> Result<T, TrainError>
    where
        T: Clone + Serialize + DeserializeOwned,
    {
        let with = |keys: &mut dyn Iterator<Item = (&String, &toml::Value)>| {
            let mut table = Table::try_from(section).expect("a config section serializes");
            table.extend(keys.map(|(key, value)| (key.clone(), value.clone())));
            toml::Value::Table(table).try_into::<T>()
        };
        with(&mut keys.iter()).map_err(|e| {
            // The key to name: the first that the section refuses alone (an
            // unknown key, a value of the wrong type), else the section.
            let key = keys.iter().find(|(k, v)| with(&mut std::iter::once((*k, *v))).is_err()).map(|(k, _)| k);
            let key = key.map_or(format!("stage.{name}"), |k| format!("stage.{name}.{k}"));
            self.error(&key, e.message().replace('\n', " ").trim_end())
        })
    }

    /// `why` said of this stage.
    fn within(&self, why: impl std::fmt::Display) -> String {
        format!("in the stage from iteration {}: {why}", self.from)
    }

    /// An error of this stage's key `key`.
    pub(crate) fn error(&self, key: &str, why: impl std::fmt::Display) -> TrainError {
        TrainError::config(key, self.within(why))
    }

    /// The same error as one of this stage's: its key under `stage.`.
    pub(crate) fn rekey(&self, e: TrainError) -> TrainError {
        match e {
            TrainError::Config { file, key, why } => {
                TrainError::Config { file, key: format!("stage.{key}"), why: self.within(why) }
            }
            TrainError::RulesMismatch { key, why } => {
                TrainError::RulesMismatch { key: format!("stage.{key}"), why: self.within(why) }
            }
            other => other,
        }
    }
}

/// The network of a player spec that names one as `@N` (`net:@2000`): `N`,
/// the iteration whose stage froze it. `None` for any other spec; an `@`
/// without an iteration is an error.
pub fn frozen_reference(spec: &str) -> Result<Option<u64>, String> {
    let Some((_, rest)) = spec.split_once(':') else { return Ok(None) };
    let Some(after) = rest.strip_prefix('@') else { return Ok(None) };
    let digits = after.split(',').next().unwrap_or_default();
    match digits.parse::<u64>() {
        Ok(n) if !digits.starts_with('+') => Ok(Some(n)),
        _ => Err(format!(
            "`{spec}`: `@{digits}` is not an iteration (`@2000` is the run's network when its stage from iteration \
             2000 began)"
        )),
    }
}

/// The file of the run's network frozen when the stage from `from` began.
pub fn frozen_file(run: &Path, from: u64) -> PathBuf {
    run.join("stages").join(format!("{from:08}.safetensors"))
}

/// `spec` with an `@N` network replaced by its file in `run`.
pub fn resolve(spec: &str, run: &Path) -> String {
    match frozen_reference(spec) {
        Ok(Some(n)) => {
            let (kind, rest) = spec.split_once(':').expect("a reference follows a kind");
            let options = rest.find(',').map_or("", |i| &rest[i..]);
            format!("{kind}:{}{options}", frozen_file(run, n).display())
        }
        _ => spec.to_string(),
    }
}

/// The player of `spec`, its `@N` network (if any) read from the run in
/// `run`: a run's self-play and evaluation build their opponents here.
pub fn factory(spec: &str, run: Option<&Path>) -> Result<Arc<dyn PlayerFactory>, String> {
    let resolved = match (frozen_reference(spec)?, run) {
        (Some(_), Some(run)) => resolve(spec, run),
        (Some(n), None) => return Err(format!("`{spec}`: `@{n}` names a run's own network, and there is no run here")),
        (None, _) => spec.to_string(),
    };
    stratego_roster::players().factory(&resolved).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_names_an_iteration_and_resolves_to_its_file() {
        assert_eq!(frozen_reference("net:@2000,temperature=0"), Ok(Some(2000)));
        assert_eq!(frozen_reference("netrollout:@40"), Ok(Some(40)));
        for plain in ["greedy", "net:runs/a.safetensors", "expectimax:depth=2,press=auto", "net:a@3"] {
            assert_eq!(frozen_reference(plain), Ok(None), "{plain}");
        }
        for bad in ["net:@", "net:@x,temperature=0", "net:@+4", "net:@-1"] {
            assert!(frozen_reference(bad).unwrap_err().contains("is not an iteration"), "{bad}");
        }
        let run = Path::new("runs/r");
        assert_eq!(resolve("net:@2000,temperature=0", run), "net:runs/r/stages/00002000.safetensors,temperature=0");
        assert_eq!(resolve("net:@7", run), "net:runs/r/stages/00000007.safetensors");
        assert_eq!(resolve("greedy", run), "greedy");
        assert!(factory("net:@7", None).err().unwrap().contains("no run here"));
        assert!(factory("greedy", None).is_ok());
    }
}
