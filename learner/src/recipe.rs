//! The recipe of a run: its config and the config of each of its stages
//! (`[[stage]]`, `stage.rs`), as one object that answers the three
//! questions the run keeping asks of it: which config iteration `t` runs,
//! from which iteration its schedules count, and whether a stage begins at
//! a version. Nothing else computes them.

use crate::config::TrainConfig;
use crate::stage::Stage;
use crate::TrainError;

#[derive(Clone, Debug)]
pub struct Recipe {
    config: TrainConfig,
    /// The config each stage runs (`TrainConfig::stages`): the base first.
    stages: Vec<TrainConfig>,
}

impl Recipe {
    /// The recipe of `config` (each stage's config applied over the one
    /// before, and checked).
    pub fn new(config: &TrainConfig) -> Result<Recipe, TrainError> {
        Ok(Recipe { config: config.clone(), stages: config.stages()? })
    }

    /// The config as written, its stages included.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// The index of the stage iteration `t` is in (0: before any stage).
    pub fn stage_index(&self, t: u64) -> usize {
        self.config.stage.iter().take_while(|s| s.from <= t).count()
    }

    /// How many configs the recipe runs: the base and one a stage.
    pub fn stage_count(&self) -> usize {
        self.stages.len()
    }

    /// The config iteration `t` runs: its stage's.
    pub fn at(&self, t: u64) -> &TrainConfig {
        &self.stages[self.stage_index(t)]
    }

    /// The iteration from which the schedules of iteration `t` count: the
    /// `from` of the last stage so far that restarted, else 0.
    pub fn schedule_origin(&self, t: u64) -> u64 {
        self.config.stage.iter().rev().find(|s| s.restart && s.from <= t).map_or(0, |s| s.from)
    }

    /// The stage that begins at version `step` (its `from`), if one does.
    pub fn stage_beginning_at(&self, step: u64) -> Option<&Stage> {
        self.config.stage.iter().find(|s| s.from == step)
    }
}
