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
use stratego_contract::canonical::CanonicalSettings;

/// The Python methods the two engine-state classes (`StrategoState`,
/// `CoToanState`) share, written once: a second `#[pymethods]` block for
/// `$class` (pyo3's `multiple-pymethods` feature). `$class` is a `Clone`
/// struct whose field `state` is its game's engine state (both engines'
/// states have these methods, as the game contract names them), with a
/// static `deserialize` reading `serialize`'s text; `$num_actions` is the
/// size of the game's action space.
macro_rules! engine_state_methods {
    ($class:ident, $num_actions:expr) => {
        #[::pyo3::pymethods]
        impl $class {
            /// The exact text form: Stratego's ruleset, setups and every move,
            /// CoToan's `<settings> <board> <side> <ply>` (`deserialize`
            /// gives an equal state, Stratego's piece histories included).
            fn serialize(&self) -> String {
                self.state.serialize()
            }

            /// Pickling goes through the exact text form (OpenSpiel serializes a
            /// Python game's state by pickling it).
            fn __reduce__<'py>(
                &self,
                py: ::pyo3::Python<'py>,
            ) -> ::pyo3::PyResult<(::pyo3::Bound<'py, ::pyo3::PyAny>, ::pyo3::Bound<'py, ::pyo3::types::PyTuple>)> {
                use ::pyo3::types::PyAnyMethods as _;
                let restore = py.get_type::<$class>().getattr("deserialize")?;
                Ok((restore, ::pyo3::types::PyTuple::new(py, [self.state.serialize()])?))
            }

            fn clone(&self) -> $class {
                Clone::clone(self)
            }

            fn __copy__(&self) -> $class {
                Clone::clone(self)
            }

            fn __deepcopy__(&self, _memo: &::pyo3::Bound<'_, ::pyo3::PyAny>) -> $class {
                Clone::clone(self)
            }

            fn __eq__(&self, other: &$class) -> bool {
                self.state == other.state
            }

            /// 0 (Red) or 1 (Blue), or `None` once the game is over.
            fn current_player(&self) -> Option<usize> {
                self.state.current_player().map(|c| c.index())
            }

            fn ply(&self) -> u32 {
                self.state.ply()
            }

            fn legal_actions(&self) -> Vec<u16> {
                self.state.legal_actions()
            }

            fn legal_mask<'py>(&self, py: ::pyo3::Python<'py>) -> ::pyo3::Bound<'py, ::numpy::PyArray1<bool>> {
                ::numpy::PyArray1::from_vec(py, self.state.legal_action_mask())
            }

            fn is_terminal(&self) -> bool {
                self.state.is_terminal()
            }

            /// Red's and Blue's returns: +1 win, -1 loss, 0 draw or unfinished.
            fn returns(&self) -> [f32; 2] {
                self.state.returns()
            }

            /// The outcome's text (Stratego's `red-wins flag-captured`, `draw
            /// ply-cap`), or `None` before the end.
            fn outcome(&self) -> Option<String> {
                self.state.outcome().map(|o| o.to_text())
            }

            /// The text of an action of the side to move: Stratego's `b2-b5`, in
            /// absolute squares, CoToan's `c4-e6`.
            fn action_to_string(&self, action: i64) -> ::pyo3::PyResult<String> {
                Ok(self.state.action_to_string($crate::action_id(action, $num_actions)?))
            }
        }
    };
}

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
