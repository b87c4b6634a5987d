//! `stratego_lab._core`: the Rust half of the lab's Python package.
//!
//! The Python package (python/stratego_lab) registers Stratego and CoToan
//! with OpenSpiel and wraps what is here: the engines' states (`stratego`,
//! `cotoan`), Stratego's information state for OpenSpiel (`infostate`), the
//! batched environment writing straight into numpy arrays (`vecenv`) and the
//! lab's players (`bots`). Everything a Python caller can
//! get wrong comes back as a `ValueError` carrying the engine's own message
//! (`value_error`); nothing here panics on input.

use std::collections::BTreeMap;
use std::str::FromStr;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use stratego_engine::canonical::CanonicalSettings;

mod arena;
mod bots;
mod cotoan;
mod infostate;
mod stratego;
mod training;
mod vecenv;

/// A Python `ValueError` with the engine's message.
pub(crate) fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// An action id from Python: any integer, refused unless it fits the game's
/// action space (a negative or huge id is a `ValueError`, not an
/// `OverflowError` deep inside a conversion).
pub(crate) fn action_id(action: i64, num_actions: usize) -> PyResult<u16> {
    if (0..num_actions as i64).contains(&action) {
        Ok(action as u16)
    } else {
        Err(value_error(format!("action id {action} is outside the action space 0-{}", num_actions - 1)))
    }
}

/// Settings of a family from OpenSpiel parameters (settings keys to
/// values; a key not given keeps its value in `defaults`), read by the
/// family's own parser so every message is the engine's.
pub(crate) fn settings_from<S>(defaults: S, params: &BTreeMap<String, String>) -> PyResult<S>
where
    S: CanonicalSettings + FromStr,
    S::Err: std::fmt::Display,
{
    let mut values: BTreeMap<String, String> = defaults.parameters().into_iter().collect();
    for (key, value) in params {
        if !values.contains_key(key) {
            return Err(value_error(format!(
                "unknown {} key `{key}` (the keys are {})",
                S::FAMILY.noun,
                S::KEYS.join(", ")
            )));
        }
        values.insert(key.clone(), value.clone());
    }
    let fields: Vec<String> = S::KEYS.iter().map(|k| format!("{k}={}", values[*k])).collect();
    S::from_str(&format!("{}:{}", S::FAMILY.prefix(), fields.join(","))).map_err(value_error)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    stratego::register(m)?;
    cotoan::register(m)?;
    vecenv::register(m)?;
    bots::register(m)?;
    arena::register(m)?;
    training::register(m)?;
    Ok(())
}
