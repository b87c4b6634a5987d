//! CoToan for Python: its settings from OpenSpiel parameters and
//! `CoToanState`, one engine state.

use std::collections::BTreeMap;
use std::str::FromStr;

use numpy::{PyArray1, PyReadwriteArray1};
use pyo3::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_contract::canonical::CanonicalSettings;
use stratego_cotoan::fixtures;
use stratego_cotoan::{CoToanState as State, Move, Settings, NUM_ACTIONS, OBSERVATION_LEN};

use crate::{action_id, value_error};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cotoan_parameters, m)?)?;
    m.add_function(wrap_pyfunction!(cotoan_settings_text, m)?)?;
    m.add_function(wrap_pyfunction!(cotoan_task_id, m)?)?;
    m.add_function(wrap_pyfunction!(cotoan_fixtures, m)?)?;
    m.add_function(wrap_pyfunction!(cotoan_settings_parameters, m)?)?;
    m.add("COTOAN_NUM_ACTIONS", NUM_ACTIONS)?;
    m.add("COTOAN_OBSERVATION_LEN", OBSERVATION_LEN)?;
    m.add("COTOAN_END_REASONS", stratego_cotoan::EndReason::ALL.iter().map(|r| r.name()).collect::<Vec<_>>())?;
    m.add_class::<CoToanState>()?;
    Ok(())
}

/// The settings keys with their default values, in canonical order.
#[pyfunction]
fn cotoan_parameters() -> Vec<(String, String)> {
    Settings::default().parameters()
}

/// The canonical settings text of `params` (a key not given keeps its
/// default); unknown keys and bad values are a `ValueError`.
#[pyfunction]
fn cotoan_settings_text(params: BTreeMap<String, String>) -> PyResult<String> {
    Ok(crate::settings_from(Settings::default(), &params)?.canonical())
}

/// The most fixture states one call may ask for, `games * (plies + 1) +
/// synthetic`: about a second of this machine. The largest call the three
/// counts alone allowed was 100 million states, minutes of work and
/// gigabytes of strings, with the interpreter locked.
const MOST_FIXTURE_STATES: u64 = 200_000;

/// Seeded fixture states of a task, as snapshots: every state of `games`
/// random games of up to `plies` plies from the start, then `synthetic`
/// random well-formed positions (`stratego_cotoan::fixtures`, the source of
/// `stratego cotoan dump` and of the GDL conformance check). Other Python
/// threads run while the states are drawn.
#[pyfunction]
#[pyo3(signature = (settings, seed = 0, games = 2, plies = 30, synthetic = 4))]
fn cotoan_fixtures(
    py: Python<'_>,
    settings: &str,
    seed: u64,
    games: u32,
    plies: u32,
    synthetic: u32,
) -> PyResult<Vec<String>> {
    let states = u64::from(games) * (u64::from(plies) + 1) + u64::from(synthetic);
    if states > MOST_FIXTURE_STATES {
        return Err(value_error(format!(
            "{games} games of up to {plies} plies and {synthetic} synthetic positions are up to {states} states; \
             at most {MOST_FIXTURE_STATES} are drawn in one call"
        )));
    }
    let settings = parse_settings(settings)?;
    Ok(py.detach(|| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut out = Vec::new();
        for _ in 0..games {
            out.extend(fixtures::random_trajectory(settings, plies, &mut rng).iter().map(State::serialize));
        }
        for _ in 0..synthetic {
            out.push(fixtures::synthetic_state(settings, &mut rng).serialize());
        }
        out
    }))
}

/// The keys and values of a settings text, in canonical order.
#[pyfunction]
fn cotoan_settings_parameters(settings: &str) -> PyResult<Vec<(String, String)>> {
    Ok(parse_settings(settings)?.parameters())
}

/// The task id (8 hex digits) of a settings text.
#[pyfunction]
fn cotoan_task_id(settings: &str) -> PyResult<String> {
    Ok(parse_settings(settings)?.task_id().to_string())
}

fn parse_settings(text: &str) -> PyResult<Settings> {
    Settings::from_str(text).map_err(value_error)
}

/// One CoToan position: board, side to move and ply, under its settings.
#[pyclass(module = "stratego_lab._core")]
#[derive(Clone)]
pub struct CoToanState {
    state: State,
}

engine_state_methods!(CoToanState, NUM_ACTIONS);

#[pymethods]
impl CoToanState {
    /// The task's starting position.
    #[new]
    fn new(settings: &str) -> PyResult<CoToanState> {
        Ok(CoToanState { state: State::new(parse_settings(settings)?).map_err(value_error)? })
    }

    /// Reads `serialize`'s snapshot; with `settings`, refuses a snapshot of
    /// another task (naming both task ids).
    #[staticmethod]
    #[pyo3(signature = (text, settings = None))]
    fn deserialize(text: &str, settings: Option<&str>) -> PyResult<CoToanState> {
        let state = match settings {
            Some(settings) => State::deserialize_under(&parse_settings(settings)?, text),
            None => State::deserialize(text),
        }
        .map_err(value_error)?;
        Ok(CoToanState { state })
    }

    fn settings(&self) -> String {
        self.state.settings().canonical()
    }

    fn task_id(&self) -> String {
        self.state.settings().task_id().to_string()
    }

    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        self.state.apply_action(action_id(action, NUM_ACTIONS)?).map_err(value_error)
    }

    fn scores(&self) -> [u8; 2] {
        self.state.scores()
    }

    /// The action id of a legal move written `c4-e6` or `c4xf4`.
    fn string_to_action(&self, text: &str) -> PyResult<u16> {
        let mv = Move::from_str(text).map_err(value_error)?;
        if !self.state.is_legal(mv) {
            return Err(value_error(format!("{text} is not a legal move here")));
        }
        Ok(mv.action())
    }

    /// Writes the observation vector (docs/COTOAN.md, section 7) into
    /// `out`, a contiguous float32 array of its length, in place. CoToan is
    /// a game of perfect information: both players observe the same.
    fn write_observation(&self, mut out: PyReadwriteArray1<'_, f32>) -> PyResult<()> {
        let out = out.as_slice_mut().map_err(|_| value_error("the observation buffer is not contiguous"))?;
        if out.len() != OBSERVATION_LEN {
            return Err(value_error(format!(
                "the observation buffer holds {} values, the observation has {OBSERVATION_LEN}",
                out.len()
            )));
        }
        out.copy_from_slice(&self.state.observation());
        Ok(())
    }

    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_vec(py, self.state.observation())
    }

    fn __str__(&self) -> String {
        self.state.to_string()
    }

    fn __repr__(&self) -> String {
        format!("CoToanState(ply {}, task {})", self.state.ply(), self.state.settings().task_id())
    }
}
