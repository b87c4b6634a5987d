//! `VecEnv` for Python: the engine's batched environment, writing each
//! step's observations, legal masks, rewards, done flags and end reasons
//! straight into numpy arrays it owns, with the GIL released while the
//! engine steps.

use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use stratego_engine::speed::{measure_vecenv, measure_vecenv_sparse};
use stratego_engine::vecenv::{FinishedGame, SparseBatch, VecEnv as Engine};
use stratego_engine::{ActionId, Layout, Ruleset, NUM_ACTIONS};
use stratego_players::setup_policy::PolicySetups;
use stratego_players::SetupPolicy;

use crate::stratego::{parse_layout, parse_setup_policy, rules_arg, StrategoState};
use crate::value_error;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<VecEnv>()?;
    m.add_function(wrap_pyfunction!(rust_vecenv_steps_per_second, m)?)?;
    Ok(())
}

/// The engine's own figure for the same loop as a Python `VecEnv` run
/// (sample + step + observe + legal mask, classic rules), in game steps per
/// second on the threads of the current rayon pool: the anchor of the
/// Python benchmark, measured in the same process.
#[pyfunction]
#[pyo3(signature = (layout, batch, steps, seed, observations = "dense"))]
fn rust_vecenv_steps_per_second(
    py: Python<'_>,
    layout: &str,
    batch: usize,
    steps: usize,
    seed: u64,
    observations: &str,
) -> PyResult<f64> {
    let layout = parse_layout(layout)?;
    if batch == 0 || steps == 0 {
        return Err(value_error("batch and steps must be at least 1"));
    }
    let measure = match parse_observations(observations)? {
        None => measure_vecenv,
        Some(_) => measure_vecenv_sparse,
    };
    Ok(py.detach(|| measure(layout, batch, steps, seed)))
}

/// `"dense"` (no sparse batch) or `"sparse"`.
fn parse_observations(observations: &str) -> PyResult<Option<SparseBatch>> {
    match observations {
        "dense" => Ok(None),
        "sparse" => Ok(Some(SparseBatch::new())),
        other => Err(value_error(format!("observations {other:?} is neither \"dense\" nor \"sparse\""))),
    }
}

/// The actions as a contiguous int64 array: taken as they are when they
/// already are one (no copy), converted from any other integer array or a
/// list; anything else (floats above all) is a `ValueError`.
fn int64_actions<'py>(py: Python<'py>, actions: &Bound<'py, PyAny>) -> PyResult<PyReadonlyArray1<'py, i64>> {
    if let Ok(array) = actions.extract::<PyReadonlyArray1<'py, i64>>() {
        if array.is_contiguous() {
            return Ok(array);
        }
    }
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (actions,))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        let dtype = array.getattr("dtype")?.str()?.to_string();
        return Err(value_error(format!("actions must be integers, not {dtype}")));
    }
    let array = numpy.call_method1("ascontiguousarray", (array, numpy.getattr("int64")?))?;
    array.extract::<PyReadonlyArray1<'py, i64>>().map_err(|_| value_error("the actions must be one id per game"))
}

/// The arrays a step writes, allocated once.
struct Buffers {
    /// The dense observations; `[B, 0, 10, 10]` when they are sparse.
    obs: Py<PyArray4<f32>>,
    legal: Py<PyArray2<bool>>,
    rewards: Py<PyArray1<f32>>,
    done: Py<PyArray1<bool>>,
    reason: Py<PyArray1<i8>>,
    to_play: Py<PyArray1<u8>>,
}

/// The most memory the arrays of one `VecEnv` may take. numpy's failure to
/// allocate surfaces inside the array constructors as a panic, not as an
/// exception, so sizes are refused before allocating: 4 GiB holds the
/// compact layout at the largest batch (about 1.6 GB) and the full layout up
/// to about 21,800 games.
const MAX_BUFFER_BYTES: usize = 4 << 30;

/// The bytes of the arrays `step` writes for `batch` games in `layout`
/// (dense: sparse observations take a small share of that).
fn buffer_bytes(batch: usize, layout: Layout) -> usize {
    let per_game = layout.channels() * 100 * size_of::<f32>()
        + NUM_ACTIONS * size_of::<bool>()
        + size_of::<f32>()
        + size_of::<bool>()
        + size_of::<i8>()
        + size_of::<u8>();
    batch * per_game
}

/// Refuses a batch whose arrays would pass `MAX_BUFFER_BYTES`, naming the
/// memory they would need and the largest batch the layout allows.
fn check_buffer_bytes(batch: usize, layout: Layout) -> PyResult<()> {
    let bytes = buffer_bytes(batch, layout);
    if bytes <= MAX_BUFFER_BYTES {
        return Ok(());
    }
    let gib = |b: usize| b as f64 / (1u64 << 30) as f64;
    Err(value_error(format!(
        "batch {batch} in the {} layout needs {:.1} GiB of arrays ({bytes} bytes), above the {:.0} GiB a VecEnv may \
         allocate: at most {} games in this layout",
        layout.name(),
        gib(bytes),
        gib(MAX_BUFFER_BYTES),
        MAX_BUFFER_BYTES / buffer_bytes(1, layout)
    )))
}

/// Writes the observations into the dense array, or sparse when `sparse`
/// is there.
fn observe(
    env: &Engine,
    layout: Layout,
    sparse: &mut Option<SparseBatch>,
    obs: &mut [f32],
) -> Result<(), stratego_engine::Error> {
    match sparse {
        Some(batch) => env.observe_sparse(layout, batch),
        None => env.observe(layout, obs),
    }
}

/// B games of Stratego stepped together (see python/stratego_lab/vecenv.py
/// for the Python face).
#[pyclass(module = "stratego_lab._core")]
pub struct VecEnv {
    rules: Ruleset,
    layout: Layout,
    policy: SetupPolicy,
    batch: usize,
    seed: u64,
    env: Engine,
    buffers: Buffers,
    /// Where the observations go when they are sparse (`observations="sparse"`).
    sparse: Option<SparseBatch>,
    finished: Vec<FinishedGame>,
    actions: Vec<ActionId>,
}

impl VecEnv {
    fn engine(rules: Ruleset, policy: SetupPolicy, batch: usize, seed: u64) -> PyResult<Engine> {
        Engine::with_setups(rules, batch, seed, Box::new(PolicySetups { policy, set: rules.piece_set }))
            .map_err(value_error)
    }

    /// Observations, masks and players of the games as they stand.
    fn write_views(&mut self, py: Python<'_>) -> PyResult<()> {
        let b = &self.buffers;
        let mut obs = b.obs.bind(py).readwrite();
        let mut legal = b.legal.bind(py).readwrite();
        let mut to_play = b.to_play.bind(py).readwrite();
        let (obs, legal, to_play) = (
            obs.as_slice_mut().expect("our arrays are contiguous"),
            legal.as_slice_mut().expect("our arrays are contiguous"),
            to_play.as_slice_mut().expect("our arrays are contiguous"),
        );
        let (env, layout, sparse) = (&self.env, self.layout, &mut self.sparse);
        py.detach(|| {
            observe(env, layout, sparse, obs)?;
            env.legal_mask(legal)?;
            env.current_players(to_play)
        })
        .map_err(value_error)
    }

    /// The observations as `step` returns them: the dense array, or a tuple
    /// `(offsets, indices, values)` of new arrays.
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match &self.sparse {
            None => self.buffers.obs.bind(py).clone().into_any(),
            Some(batch) => {
                let offsets = PyArray1::<i64>::zeros(py, batch.offsets().len(), false);
                let indices = PyArray1::<i32>::zeros(py, batch.entries().len(), false);
                let values = PyArray1::<f32>::zeros(py, batch.entries().len(), false);
                {
                    let (mut o, mut i, mut v) = (offsets.readwrite(), indices.readwrite(), values.readwrite());
                    let (o, i, v) = (
                        o.as_slice_mut().expect("a new array is contiguous"),
                        i.as_slice_mut().expect("a new array is contiguous"),
                        v.as_slice_mut().expect("a new array is contiguous"),
                    );
                    // Filled without the GIL: a full batch of 256 games is
                    // about 300,000 values.
                    py.detach(|| {
                        o.iter_mut().zip(batch.offsets()).for_each(|(o, &offset)| *o = offset as i64);
                        for ((i, v), &(index, value)) in i.iter_mut().zip(v.iter_mut()).zip(batch.entries()) {
                            // A layout has fewer than 2^31 values.
                            (*i, *v) = (index as i32, value);
                        }
                    });
                }
                pyo3::types::PyTuple::new(py, [offsets.as_any(), indices.as_any(), values.as_any()])
                    .expect("a tuple of three arrays")
                    .into_any()
            }
        }
    }

    fn outputs<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyTuple> {
        let b = &self.buffers;
        pyo3::types::PyTuple::new(
            py,
            [
                &self.observations(py),
                b.legal.bind(py).as_any(),
                b.rewards.bind(py).as_any(),
                b.done.bind(py).as_any(),
                b.reason.bind(py).as_any(),
            ],
        )
        .expect("a tuple of five arrays")
    }
}

#[pymethods]
impl VecEnv {
    /// `batch` games under `rules` (canonical text or `classic`/`barrage`),
    /// observed in `layout` (`compact` or `full`), with setups from `setups`
    /// (`random` or `handcrafted`), seeded: the same seed gives the same
    /// games. `observations="sparse"` returns each step's observations as
    /// `(offsets, indices, values)` instead of the dense `[B, C, 10, 10]`
    /// array: game `b`'s non-zero values are `values[offsets[b]:offsets[b + 1]]`
    /// at the flat indices (`plane * 100 + cell`) beside them; every other
    /// value is 0. The same values, without writing (or moving) the zeros.
    #[new]
    #[pyo3(signature = (batch, rules = None, layout = "compact", setups = "random", seed = 0, observations = "dense"))]
    fn new(
        py: Python<'_>,
        batch: usize,
        rules: Option<&Bound<'_, PyAny>>,
        layout: &str,
        setups: &str,
        seed: u64,
        observations: &str,
    ) -> PyResult<VecEnv> {
        const MAX_BATCH: usize = 1 << 16;
        if !(1..=MAX_BATCH).contains(&batch) {
            return Err(value_error(format!("batch {batch} is not in 1-{MAX_BATCH}")));
        }
        let rules = rules.map(rules_arg).transpose()?.unwrap_or_else(stratego_engine::Ruleset::classic);
        let layout = parse_layout(layout)?;
        let policy = parse_setup_policy(setups)?;
        let sparse = parse_observations(observations)?;
        check_buffer_bytes(batch, layout)?;
        let env = VecEnv::engine(rules, policy, batch, seed)?;
        let channels = if sparse.is_some() { 0 } else { layout.channels() };
        let buffers = Buffers {
            obs: PyArray4::<f32>::zeros(py, [batch, channels, 10, 10], false).unbind(),
            legal: PyArray2::<bool>::zeros(py, [batch, NUM_ACTIONS], false).unbind(),
            rewards: PyArray1::<f32>::zeros(py, batch, false).unbind(),
            done: PyArray1::<bool>::zeros(py, batch, false).unbind(),
            reason: PyArray1::<i8>::zeros(py, batch, false).unbind(),
            to_play: PyArray1::<u8>::zeros(py, batch, false).unbind(),
        };
        let mut this = VecEnv {
            rules,
            layout,
            policy,
            batch,
            seed,
            env,
            buffers,
            sparse,
            finished: Vec::with_capacity(batch),
            actions: vec![0; batch],
        };
        this.write_views(py)?;
        Ok(this)
    }

    /// Starts every game again from the seed (or a new seed) and returns
    /// `(obs, legal)`.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        if let Some(seed) = seed {
            self.seed = seed;
        }
        self.env = VecEnv::engine(self.rules, self.policy, self.batch, self.seed)?;
        self.write_views(py)?;
        let b = &self.buffers;
        b.rewards.bind(py).readwrite().as_slice_mut().expect("contiguous").fill(0.0);
        b.done.bind(py).readwrite().as_slice_mut().expect("contiguous").fill(false);
        b.reason.bind(py).readwrite().as_slice_mut().expect("contiguous").fill(-1);
        Ok((self.observations(py), b.legal.bind(py).clone().into_any()))
    }

    /// Plays one action per game (ids in each mover's frame) and returns
    /// `(obs, legal, rewards, done, reason)`, the same arrays every step,
    /// overwritten in place. `rewards[b]` is the finished game's return to
    /// the player who made that last move (0 while it goes on); `reason[b]`
    /// indexes `END_REASONS` (-1 while it goes on). A finished game starts
    /// again at once, so `obs` and `legal` are the new game's. An illegal
    /// action is a `ValueError` naming its game, and nothing is played.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let actions = int64_actions(py, actions)?;
        let actions = actions.as_slice().map_err(|_| value_error("the actions are not a contiguous array"))?;
        if actions.len() != self.batch {
            return Err(value_error(format!("{} actions for {} games", actions.len(), self.batch)));
        }
        for (game, (&a, slot)) in actions.iter().zip(self.actions.iter_mut()).enumerate() {
            *slot = crate::action_id(a, NUM_ACTIONS).map_err(|e| value_error(format!("game {game}: {e}")))?;
        }
        let b = &self.buffers;
        let mut obs = b.obs.bind(py).readwrite();
        let mut legal = b.legal.bind(py).readwrite();
        let mut rewards = b.rewards.bind(py).readwrite();
        let mut done = b.done.bind(py).readwrite();
        let mut reason = b.reason.bind(py).readwrite();
        let mut to_play = b.to_play.bind(py).readwrite();
        let (obs, legal, rewards, done, reason, to_play) = (
            obs.as_slice_mut().expect("our arrays are contiguous"),
            legal.as_slice_mut().expect("our arrays are contiguous"),
            rewards.as_slice_mut().expect("our arrays are contiguous"),
            done.as_slice_mut().expect("our arrays are contiguous"),
            reason.as_slice_mut().expect("our arrays are contiguous"),
            to_play.as_slice_mut().expect("our arrays are contiguous"),
        );
        let (env, layout, finished, actions, sparse) =
            (&mut self.env, self.layout, &mut self.finished, &self.actions, &mut self.sparse);
        py.detach(|| {
            env.step(actions, finished)?;
            rewards.fill(0.0);
            done.fill(false);
            reason.fill(-1);
            for game in finished.iter() {
                // `to_play` still holds who made this step's move.
                let mover = to_play[game.env] as usize;
                rewards[game.env] = game.outcome.returns()[mover];
                done[game.env] = true;
                reason[game.env] = stratego_engine::state::EndReason::ALL
                    .iter()
                    .position(|&r| r == game.outcome.reason)
                    .expect("every reason is listed") as i8;
            }
            observe(env, layout, sparse, obs)?;
            env.legal_mask(legal)?;
            env.current_players(to_play)
        })
        .map_err(value_error)?;
        Ok(self.outputs(py))
    }

    /// A uniformly random legal action per game, from each game's own seeded
    /// generator.
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let (env, actions) = (&mut self.env, &mut self.actions);
        py.detach(|| env.sample_actions(actions)).map_err(value_error)?;
        Ok(PyArray1::from_iter(py, self.actions.iter().map(|&a| a as i64)))
    }

    /// The side to move of each game (0 Red, 1 Blue): the same array every
    /// step.
    #[getter]
    fn to_play<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.buffers.to_play.bind(py).clone()
    }

    #[getter]
    fn batch_size(&self) -> usize {
        self.batch
    }

    #[getter]
    fn layout(&self) -> &'static str {
        self.layout.name()
    }

    /// `"dense"` or `"sparse"`: how `step` and `reset` return observations.
    #[getter]
    fn observations_kind(&self) -> &'static str {
        if self.sparse.is_some() {
            "sparse"
        } else {
            "dense"
        }
    }

    #[getter]
    fn rules(&self) -> String {
        self.rules.canonical()
    }

    /// Game `env` as a `StrategoState` (a copy, for inspection).
    fn state(&self, env: usize) -> PyResult<StrategoState> {
        let state =
            self.env.state(env).ok_or_else(|| value_error(format!("game {env} is not in 0-{}", self.batch - 1)))?;
        Ok(StrategoState::new(state.clone()))
    }

    fn __len__(&self) -> usize {
        self.batch
    }
}
