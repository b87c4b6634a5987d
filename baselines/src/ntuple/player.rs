//! The afterstate player (`ntuple:PATH`): it values the afterstate of every
//! legal move with the tables and plays the best one, without search; under
//! rules that do not end shuffling it presses when ahead (`press`).

use std::path::Path;
use std::sync::Arc;

use rand::Rng;
use stratego_engine::{Move, PieceSet, Ruleset, Setup};

use super::net::NTupleNet;
use super::LEAF_SCALE;
use crate::press::{Press, ViewPress, TABLES_PRESS_SCALE};
use stratego_players::player::{AgentRng, Player, PlayerError, PlayerFactory};
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::view::InfoView;
use stratego_players::{Naming, PlayerSpec, SpecError};

/// The tables' value of one point of the press's pull (`crate::press`).
const PRESS_PER_POINT: f64 = TABLES_PRESS_SCALE / LEAF_SCALE;

/// Values closer than this are ties.
const TIE: f64 = 1e-9;

/// The index of the best value; ties are broken by `rng`. `None` when no
/// value is a number (the tables' bound at load keeps sums finite, so this
/// is a defect elsewhere, reported rather than panicked on).
pub fn pick_best(values: &[f64], rng: &mut AgentRng) -> Option<usize> {
    // `f64::max` passes over NaN, so a NaN value is never the best.
    let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = (0..values.len()).filter(|&i| values[i] >= best - TIE).collect();
    (!ties.is_empty()).then(|| ties[rng.random_range(0..ties.len())])
}

#[derive(Clone, Debug)]
pub struct NTuplePlayer {
    pub net: Arc<NTupleNet>,
    /// The spec that names this player (`ntuple:PATH`).
    pub name: String,
    pub setup: SetupPolicy,
    /// Whether it presses when ahead in a stalled game (`crate::press`).
    pub press: Press,
}

impl Player for NTuplePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.setup.choose(set, rng)
    }

    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        let mut values = self.net.move_values(view);
        if let Some(press) = ViewPress::new(self.press, view) {
            for (value, &mv) in values.iter_mut().zip(&view.legal_moves) {
                *value += press.pull(view, mv) * PRESS_PER_POINT;
            }
        }
        let best = pick_best(&values, rng)
            .ok_or_else(|| PlayerError::Failed(format!("{}: no legal move has a numeric value", self.name)))?;
        Ok(view.legal_moves[best])
    }
}

/// Makes afterstate players that share one set of tables: copies of one
/// player (the tables are shared, not copied).
pub struct NTupleFactory(pub NTuplePlayer);

impl PlayerFactory for NTupleFactory {
    fn name(&self) -> String {
        self.0.name.clone()
    }

    /// The name's table path with every option named; a player named
    /// otherwise (a trainer's `ntuple:current`, a test's) by its name.
    fn resolved_name(&self) -> String {
        match self.0.name.parse::<PlayerSpec>() {
            Ok(PlayerSpec { name, path: Some(path), .. }) if name == "ntuple" => {
                ntuple_spec(&path, self.0.press, self.0.setup, Naming::Resolved).to_string()
            }
            _ => self.0.name.clone(),
        }
    }

    fn make(&self) -> Box<dyn Player> {
        Box::new(self.0.clone())
    }

    fn check_rules(&self, rules: &Ruleset) -> Result<(), stratego_players::RulesRefused> {
        stratego_players::player::same_rules("its tables were", self.0.net.rules(), rules)
    }

    fn trained_rules(&self) -> Option<Ruleset> {
        Some(*self.0.net.rules())
    }
}

/// The options an `ntuple` spec takes.
pub const NTUPLE_OPTIONS: &str = concat!("press=auto|on|off, ", stratego_players::setup_option!());

/// `ntuple:PATH[,press=P][,setup=S]`.
pub fn ntuple_spec(path: &str, press: Press, setup: SetupPolicy, naming: Naming) -> PlayerSpec {
    let spec = PlayerSpec::named("ntuple").with_path(path).with_default(
        naming,
        "press",
        press.name(),
        Press::default().name(),
    );
    spec.with_setup(setup, naming)
}

/// Reads n-tuple tables for a spec (any ruleset: the arena checks it
/// against the match's through `PlayerFactory::check_rules`).
pub fn load_tables(path: &str, spec: &PlayerSpec) -> Result<Arc<NTupleNet>, SpecError> {
    NTupleNet::load(Path::new(path), None)
        .map(Arc::new)
        .map_err(|e| SpecError::Load { spec: spec.to_string(), why: e.to_string() })
}
