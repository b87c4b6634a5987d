//! The network's policy as a player: `net:PATH[,temperature=T][,veto=M]
//! [,time=MS][,setup=S]`.
//!
//! The network's policy over the legal actions (in the acting player's
//! frame) picks the move: the most likely one by default, or a draw at
//! `temperature=T`. With `veto=M` it chooses only among the moves
//! expectimax keeps ([`veto`]).

use std::time::Duration;

use stratego_engine::Move;
use stratego_model::choose_action;
use stratego_players::{AgentRng, InfoView, Naming, PlayerSpec, SetupPolicy, SpecError};

use crate::kind::{options, time_and_setup_fields, Decision, NetworkPlayer, NetworkPlayerKind};
use crate::network::{action_of, NetworkFactory};
use crate::{veto, NetPlayerError};

/// The options of a network player, after the path in its spec.
#[derive(Copy, Clone, PartialEq, Debug, Default)]
pub struct NetOptions {
    /// 0 plays the most likely legal action; above 0 draws from
    /// `p^(1/temperature)` with the player's generator.
    pub temperature: f32,
    /// With `Some(m)`, the policy chooses among the moves expectimax keeps
    /// ([`veto`]).
    pub veto: Option<f64>,
    /// A wall-clock limit per decision, for the veto's search (the caller's
    /// clock; without one the search has its default fixed size).
    pub time: Option<Duration>,
    pub setup: SetupPolicy,
}

/// Makes [`NetPlayer`]s.
pub type NetPlayerFactory = NetworkFactory<NetOptions>;

/// Plays the move its network's policy prefers.
pub type NetPlayer = NetworkPlayer<NetOptions>;

impl NetworkPlayerKind for NetOptions {
    type Stats = ();
    const NAME: &'static str = "net";
    const OPTIONS: &'static str = concat!(
        "temperature=T (0 = the most likely move), veto=M (0-2: expectimax first searches every \
         root move and vetoes those it values more than M of a won game below its best), time=MS (the veto's clock), \
         ",
        stratego_players::setup_option!()
    );
    const ABOUT: &'static str = "a network checkpoint's policy";
    const DECIDES_FORCED_MOVES: bool = true;

    fn parse(spec: &PlayerSpec) -> Result<NetOptions, SpecError> {
        spec.check_keys(Self::OPTIONS)?;
        Ok(NetOptions {
            temperature: spec.parse_option(
                "temperature",
                0.0,
                |t: &f32| t.is_finite() && *t >= 0.0,
                "expected a number, at least 0",
            )?,
            veto: options::veto(spec)?,
            time: options::time(spec)?,
            setup: spec.setup()?,
        })
    }

    /// `net:PATH` with the options that are not defaults (canonical), or
    /// with all of them (resolved; a veto and a clock only when there is one).
    fn name_options(&self, spec: PlayerSpec, naming: Naming) -> PlayerSpec {
        let d = NetOptions::default();
        spec.with_default(naming, "temperature", self.temperature, d.temperature)
            .with_some("veto", self.veto)
            .with_some("time", self.time.map(|t| t.as_millis()))
    }

    // Only the veto's search uses the clock.
    time_and_setup_fields!();

    fn decide(&self, decision: Decision<'_, '_, ()>) -> Result<Move, NetPlayerError> {
        let Decision { network, view, rng, start, deadline, .. } = decision;
        let mut policy = network.policy(view, rng)?;
        if let (Some(margin), true) = (self.veto, view.legal_moves.len() > 1) {
            // The veto's search has most of the clock: the policy costs one
            // inference.
            let clock = deadline.map(|d| d - start);
            let (kept, _) = veto::kept(view, &view.legal_moves, margin, clock, self.setup, rng)?;
            for mv in &view.legal_moves {
                if !kept.contains(mv) {
                    policy[action_of(*mv, view)] = 0.0;
                }
            }
            // A policy with no mass left on the kept moves: the first kept
            // (the search's order is the view's) rather than no move.
            if kept.iter().all(|mv| policy[action_of(*mv, view)] <= 0.0) {
                return Ok(kept[0]);
            }
        }
        let action = choose_action(&policy, self.temperature, rng).ok_or(NetPlayerError::NoLegalAction)?;
        Move::from_action(action, view.me)
            .filter(|m| view.legal_moves.contains(m))
            .ok_or(NetPlayerError::NotLegal(action))
    }
}

impl NetPlayer {
    /// The network's probabilities of the view's legal moves, in the view's
    /// order. `rng` draws the hidden types of the rebuilt state; the result
    /// does not depend on it (the planes do not).
    pub fn move_probabilities(&self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Vec<f32>, NetPlayerError> {
        self.network().check_rules(&view.rules)?;
        let policy = self.network().policy(view, rng)?;
        Ok(view.legal_moves.iter().map(|m| policy[action_of(*m, view)]).collect())
    }
}
