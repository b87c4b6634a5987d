//! The state API every agent and tool speaks, with OpenSpiel's names.
//!
//! Stratego implements it here; other games on the same contract (CoToan)
//! implement it beside it, so random and search players and the arena can
//! play any of them.

use crate::action::ActionId;

pub trait GameState: Clone + PartialEq {
    type Error: std::error::Error;

    /// Size of the fixed action space (every id is below it).
    fn num_distinct_actions(&self) -> usize;
    /// The player to act (0 or 1), or `None` once the game is over.
    fn current_player(&self) -> Option<usize>;
    /// Legal action ids of the player to act, sorted ascending; empty at the end.
    fn legal_actions(&self) -> Vec<ActionId>;
    /// A `num_distinct_actions`-long mask of `legal_actions`.
    fn legal_action_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.num_distinct_actions()];
        for a in self.legal_actions() {
            mask[a as usize] = true;
        }
        mask
    }
    /// Plays an action of the player to act; an illegal one is an error and
    /// leaves the state unchanged.
    fn apply_action(&mut self, action: ActionId) -> Result<(), Self::Error>;
    fn is_terminal(&self) -> bool;
    /// Final returns per player (zero-sum); zeros before the end.
    fn returns(&self) -> Vec<f32>;
    /// A readable name of an action of the player to act.
    fn action_to_string(&self, action: ActionId) -> String;
    /// An exact text form; `deserialize` of it gives an equal state.
    fn serialize(&self) -> String;
    fn deserialize(text: &str) -> Result<Self, Self::Error>;
}

impl GameState for crate::State {
    type Error = crate::Error;

    fn num_distinct_actions(&self) -> usize {
        crate::NUM_ACTIONS
    }
    fn current_player(&self) -> Option<usize> {
        crate::State::current_player(self).map(|c| c.index())
    }
    fn legal_actions(&self) -> Vec<ActionId> {
        crate::State::legal_actions(self)
    }
    fn legal_action_mask(&self) -> Vec<bool> {
        crate::State::legal_action_mask(self)
    }
    fn apply_action(&mut self, action: ActionId) -> Result<(), crate::Error> {
        crate::State::apply_action(self, action)
    }
    fn is_terminal(&self) -> bool {
        crate::State::is_terminal(self)
    }
    fn returns(&self) -> Vec<f32> {
        crate::State::returns(self).to_vec()
    }
    fn action_to_string(&self, action: ActionId) -> String {
        crate::State::action_to_string(self, action)
    }
    fn serialize(&self) -> String {
        crate::State::serialize(self)
    }
    fn deserialize(text: &str) -> Result<Self, crate::Error> {
        crate::State::deserialize(text)
    }
}
