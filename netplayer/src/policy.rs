//! The network's policy as a player: `net:PATH[,temperature=T][,veto=M]
//! [,time=MS][,setup=S]`.
//!
//! The network's policy over the legal actions (in the acting player's
//! frame) picks the move: the most likely one by default, or a draw at
//! `temperature=T`. With `veto=M` it chooses only among the moves
//! expectimax keeps ([`veto`](crate::veto)).

use std::time::Duration;

use stratego_engine::Move;
use stratego_model::choose_action;
use stratego_players::{AgentRng, InfoView, PlayerSpec, SpecError};

use crate::kind::named::{clock, resolved, some};
use crate::kind::options::{time, veto};
use crate::kind::{from_the_table, kind_options, Decision, NetworkPlayer, NetworkPlayerKind};
use crate::network::{action_of, NetworkFactory};
use crate::NetPlayerError;

kind_options! {
    /// The options of a network player, after the path in its spec.
    #[derive(Copy, Clone, PartialEq, Debug)]
    pub struct NetOptions {
        /// 0 plays the most likely legal action; above 0 draws from
        /// `p^(1/temperature)` with the player's generator.
        temperature: f32 = 0.0, read temperature, named resolved, "temperature=T (0 = the most likely move)";
        /// With `Some(m)`, the policy chooses among the moves expectimax keeps
        /// ([`veto`](crate::veto)).
        veto: Option<f64> = None, read veto, named some,
            "veto=M (0-2: expectimax first searches every root move and vetoes those it values more than M of a won \
             game below its best)";
        /// A wall-clock limit per decision, for the veto's search (the caller's
        /// clock; without one the search has its default fixed size).
        time: Option<Duration> = None, read time, named clock, "time=MS (the veto's clock)";
    }
}

/// `temperature=T`: a finite number, at least 0.
fn temperature(spec: &PlayerSpec, key: &str, default: f32) -> Result<f32, SpecError> {
    spec.parse_option(key, default, |t: &f32| t.is_finite() && *t >= 0.0, "expected a number, at least 0")
}

/// Makes [`NetPlayer`]s.
pub type NetPlayerFactory = NetworkFactory<NetOptions>;

/// Plays the move its network's policy prefers.
pub type NetPlayer = NetworkPlayer<NetOptions>;

impl NetworkPlayerKind for NetOptions {
    type Stats = ();
    const NAME: &'static str = "net";
    const ABOUT: &'static str = "a network checkpoint's policy";
    const DECIDES_FORCED_MOVES: bool = true;

    // Only the veto's search uses the clock.
    from_the_table!();

    fn decide(&self, decision: Decision<'_, '_, ()>) -> Result<Move, NetPlayerError> {
        let Decision { network, view, rng, start, deadline, .. } = decision;
        let mut policy = network.policy(view, rng)?;
        if let (Some(margin), true) = (self.veto, view.legal_moves.len() > 1) {
            // The veto's search has most of the clock: the policy costs one
            // inference.
            let clock = deadline.map(|d| d - start);
            let (kept, _) = crate::veto::kept(view, &view.legal_moves, margin, clock, self.setup, rng)?;
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
