//! The lab's players for Python: a player spec (`random`, `greedy`,
//! `expectimax:...`, `ntuple:PATH`, `net:PATH`) built by the command line's
//! registry, choosing moves for `StrategoState`s from the information view
//! of the side to move, as in the arena.

use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::prelude::*;
use rand::SeedableRng;
use stratego_engine::{ProgressRules, ProgressTracker};
use stratego_players::player::self_restriction;
use stratego_players::view::public_history;
use stratego_players::{AgentRng, InfoView, Player, PlayerFactory};

use crate::stratego::{rules_arg, StrategoState};
use crate::value_error;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Bot>()?;
    m.add_function(wrap_pyfunction!(player_kinds, m)?)?;
    Ok(())
}

/// The names of every registered kind of player (`random`, ..., `net`), in
/// the order `stratego players` lists them.
#[pyfunction]
fn player_kinds() -> Vec<&'static str> {
    stratego_roster::players().entries().iter().map(|e| e.name).collect()
}

/// One player, for games under one ruleset.
#[pyclass(module = "stratego_lab._core")]
pub struct Bot {
    factory: Arc<dyn PlayerFactory>,
    player: Mutex<Box<dyn Player>>,
    rng: Mutex<AgentRng>,
    seed: u64,
    rules: stratego_engine::Ruleset,
    /// The progress rules the player keeps to where the game's are laxer
    /// (as in the arena: `stratego_players::player::self_restriction`).
    restriction: Option<ProgressRules>,
}

#[pymethods]
impl Bot {
    /// The player of `spec` for games under `rules`; a bad spec, a missing
    /// file or a player trained for other rules is a `ValueError`.
    #[new]
    #[pyo3(signature = (spec, rules = None, seed = 0))]
    fn new(py: Python<'_>, spec: &str, rules: Option<&Bound<'_, PyAny>>, seed: u64) -> PyResult<Bot> {
        let rules = rules.map(rules_arg).transpose()?.unwrap_or_else(stratego_engine::Ruleset::classic);
        let factory = py.detach(|| stratego_roster::players().factory(spec)).map_err(value_error)?;
        // Whatever the rules, such a player cannot sit in a game that deals
        // the setups: said first.
        if factory.brings_own_setup() {
            return Err(value_error(format!(
                "{} chooses its own setup, and OpenSpiel's Stratego deals setups by chance: play it in the lab's \
                 arena (`stratego arena`, or stratego_lab._core.ArenaMatch)",
                factory.name()
            )));
        }
        factory.check_rules(&rules).map_err(value_error)?;
        let restriction = self_restriction(factory.as_ref(), &rules);
        let player = factory.make();
        let rng = Mutex::new(AgentRng::seed_from_u64(seed));
        Ok(Bot { factory, player: Mutex::new(player), rng, seed, rules, restriction })
    }

    /// The progress rules the player holds its own moves to in this game
    /// (`two-square=3,chase=on`), or None where the game's rules are as strict.
    #[getter]
    fn self_restriction(&self) -> Option<String> {
        self.restriction.map(|r| r.to_string())
    }

    /// The player's canonical name.
    #[getter]
    fn name(&self) -> String {
        self.factory.name()
    }

    /// The move the player makes in `state` for its side to move, as an
    /// action id in that side's frame.
    fn step(&self, py: Python<'_>, state: &StrategoState) -> PyResult<u16> {
        let state = &state.state;
        if state.rules() != &self.rules {
            return Err(value_error(format!(
                "the bot plays {} ({}), the state is under {} ({})",
                self.rules.id(),
                self.rules,
                state.rules().id(),
                state.rules()
            )));
        }
        let mover =
            state.current_player().ok_or_else(|| value_error("the game is over: there is no move to choose"))?;
        let restriction = self.restriction;
        // The locks are taken with the GIL released: a second Python thread
        // stepping this bot waits for the first one's move without holding
        // the GIL, which the first one needs back to return.
        let mv = py
            .detach(|| {
                let (mut player, mut rng) = self.lock()?;
                let history = public_history(state);
                let mut view = InfoView::new(state, &history);
                if let Some(progress) = restriction {
                    ProgressTracker::from_state(progress, state).restrict(state, &mut view.legal_moves);
                }
                player.choose_move(&view, &mut rng).map_err(|e| e.to_string())
            })
            .map_err(value_error)?;
        mv.to_action(mover).ok_or_else(|| value_error(format!("the player chose {mv}, which is not along a line")))
    }

    /// Forgets the game: a new player, its generator back at the seed.
    fn restart(&self, py: Python<'_>) -> PyResult<()> {
        // As in `step`: wait for a move in progress without holding the GIL.
        py.detach(|| {
            let (mut player, mut rng) = self.lock()?;
            *player = self.factory.make();
            *rng = AgentRng::seed_from_u64(self.seed);
            Ok::<(), String>(())
        })
        .map_err(value_error)
    }
}

type Locked<'a> = (MutexGuard<'a, Box<dyn Player>>, MutexGuard<'a, AgentRng>);

impl Bot {
    /// The player and its generator, locked, always in this order. A lock
    /// poisoned by a panic in an earlier move is an error.
    fn lock(&self) -> Result<Locked<'_>, String> {
        const FAILED: &str = "the bot failed in an earlier move";
        let player = self.player.lock().map_err(|_| FAILED.to_string())?;
        Ok((player, self.rng.lock().map_err(|_| FAILED.to_string())?))
    }
}
