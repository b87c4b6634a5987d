//! The training work units a Ray cluster holds (python/stratego_lab/cluster.py):
//! `Learner`, the learner of `stratego train` on its run directory, and
//! `SelfPlayWorker`, the actor threads of `stratego train` in a process of
//! their own. Between them travel checkpoint bytes (weights, with their
//! policy version) one way and trajectory bytes
//! (`stratego_selfplay::encode_trajectories`) the other.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use stratego_learner::{NetworkRun, TrainConfig, TrainOptions};
use stratego_selfplay::{decode_trajectories, encode_trajectories};

use crate::value_error;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Learner>()?;
    m.add_class::<SelfPlayWorker>()?;
    Ok(())
}

/// Locks a work unit: a Ray actor calls one method at a time, but a thread
/// of the caller's may not, and it waits instead of racing.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The learner of a run directory.
#[pyclass(module = "stratego_lab._core")]
pub struct Learner {
    // Boxed: the learner holds 64-byte-aligned parts (crossbeam's padded
    // counters, burn's buffers), and Python allocates a class's object
    // with no more than 16-byte alignment.
    inner: Mutex<Box<stratego_learner::Learner>>,
    config: TrainConfig,
}

#[pymethods]
impl Learner {
    /// A new run at `run` from the config file `config`, or, with
    /// `resume=True`, the run at `run` continued from its newest complete
    /// checkpoint (as `stratego train --resume`). `iterations` overrides
    /// `run.iterations`; `device` overrides `run.device` (the package is
    /// built with the CPU backends).
    #[new]
    #[pyo3(signature = (run, config = None, resume = false, iterations = None, device = None))]
    fn new(
        py: Python<'_>,
        run: PathBuf,
        config: Option<PathBuf>,
        resume: bool,
        iterations: Option<u64>,
        device: Option<String>,
    ) -> PyResult<Learner> {
        py.detach(|| {
            let (dir, mut config) = match (config, resume) {
                (Some(path), false) => {
                    let config = TrainConfig::load(&path)?;
                    stratego_model::device(device.as_deref().unwrap_or(config.run.device.name()))?;
                    (NetworkRun::create(&run, &config)?, config)
                }
                (None, true) => NetworkRun::open(&run)?,
                (Some(_), true) => {
                    return Err(stratego_learner::TrainError::config_text(
                        "give a config for a new run, or resume=True for an existing one, not both",
                    ))
                }
                (None, false) => {
                    return Err(stratego_learner::TrainError::config_text(
                        "a new run needs a config file (or resume=True)",
                    ))
                }
            };
            if let Some(n) = iterations {
                config.run.iterations = n;
            }
            let options = TrainOptions { device, progress: false };
            let inner = stratego_learner::Learner::open(&config, dir, resume, &options)?;
            Ok(Learner { inner: Mutex::new(Box::new(inner)), config })
        })
        .map_err(value_error)
    }

    /// The run's config, resolved (every key), as the workers parse it.
    #[getter]
    fn config_text(&self) -> String {
        self.config.to_toml()
    }

    /// The policy version of the current weights (iterations done).
    #[getter]
    fn version(&self) -> u64 {
        lock(&self.inner).version()
    }

    /// Whether `run.iterations` (or `run.max_minutes`) is reached.
    #[getter]
    fn finished(&self) -> bool {
        lock(&self.inner).finished()
    }

    /// Decisions an iteration learns from (`learner.samples_per_iteration`).
    #[getter]
    fn samples_per_iteration(&self) -> usize {
        self.config.learner.samples_per_iteration
    }

    /// The current weights as checkpoint bytes.
    fn weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| lock(&self.inner).policy_bytes()).map_err(value_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// One iteration on the games of `batches` (trajectory bytes from
    /// `SelfPlayWorker.play`); `waited` is the seconds spent waiting for
    /// them. Returns the new version, every value logged and the
    /// iteration's progress line (`stratego train`'s).
    #[pyo3(signature = (batches, waited = 0.0))]
    fn learn<'py>(
        &self,
        py: Python<'py>,
        batches: Vec<Vec<u8>>,
        waited: f64,
    ) -> PyResult<(u64, Bound<'py, PyDict>, String)> {
        let learned = py
            .detach(|| {
                let mut games = Vec::new();
                for batch in &batches {
                    games.extend(decode_trajectories(batch).map_err(|e| e.to_string())?);
                }
                lock(&self.inner).learn(&games, waited).map_err(|e| e.to_string())
            })
            .map_err(value_error)?;
        let values = PyDict::new(py);
        for (tag, value) in learned.values {
            values.set_item(tag, value)?;
        }
        Ok((learned.step, values, learned.line))
    }

    /// Where the run stands: iterations, games, plies, samples, seconds,
    /// the run directory and its newest checkpoint.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let summary = lock(&self.inner).summary();
        let d = PyDict::new(py);
        let c = &summary.counters;
        d.set_item("iterations", c.iteration)?;
        d.set_item("games", c.games)?;
        d.set_item("plies", c.plies)?;
        d.set_item("samples", c.samples)?;
        d.set_item("seconds", c.seconds)?;
        d.set_item("run", summary.run)?;
        d.set_item("last_checkpoint", summary.last_checkpoint.map(|p| p.join("model.safetensors")))?;
        Ok(d)
    }
}

/// The self-play actors of a run, in a process of their own.
#[pyclass(module = "stratego_lab._core")]
pub struct SelfPlayWorker {
    // Boxed, as `Learner`'s.
    inner: Mutex<Box<stratego_learner::SelfPlayWorker>>,
}

#[pymethods]
impl SelfPlayWorker {
    /// Worker `index` of `workers` of a run whose resolved config is
    /// `config_text` (`Learner.config_text`), inferring on `device`; the
    /// workers together play the config's games in flight.
    #[new]
    #[pyo3(signature = (config_text, index, device = "cpu", workers = 1))]
    fn new(config_text: &str, index: u64, device: &str, workers: usize) -> PyResult<SelfPlayWorker> {
        if workers == 0 {
            return Err(value_error("workers must be at least 1"));
        }
        let config = TrainConfig::parse(config_text).map_err(value_error)?;
        let worker = stratego_learner::SelfPlayWorker::new(config, index, workers, device).map_err(value_error)?;
        Ok(SelfPlayWorker { inner: Mutex::new(Box::new(worker)) })
    }

    /// Plays with `weights` (policy `version`) until the games hold
    /// `decisions` recent decisions; returns `(trajectory bytes, games,
    /// decisions)`.
    fn play<'py>(
        &self,
        py: Python<'py>,
        weights: Vec<u8>,
        version: u64,
        decisions: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, usize, usize)> {
        let (bytes, games, count) = py
            .detach(|| {
                let games = lock(&self.inner).play(&weights, version, decisions)?;
                let count = games.iter().map(|g| g.decisions.len()).sum::<usize>();
                Ok::<_, stratego_learner::TrainError>((encode_trajectories(&games), games.len(), count))
            })
            .map_err(value_error)?;
        Ok((PyBytes::new(py, &bytes), games, count))
    }

    /// Stops the actor threads (they also stop when the worker is dropped).
    fn stop(&self) -> PyResult<()> {
        lock(&self.inner).stop().map_err(value_error)
    }
}
