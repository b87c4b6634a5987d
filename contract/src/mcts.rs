//! A generic Monte Carlo tree search bot (UCT with uniformly random
//! rollouts), for any perfect-information game on the contract: the
//! reference opponent a new game gets before it has players of its own.
//!
//! Each step grows a fresh tree from the state it is given. A simulation
//! descends by UCB1 (`mean + c * sqrt(ln N / n)`, the mean from the view of
//! the player who chose the edge), adds one untried action, plays uniformly
//! random actions from there for at most `rollout_cap` plies, and backs the
//! state's returns up the path, each node taking the return of the player
//! who moved into it. The action played is the root's most visited.

use std::fmt;
use std::marker::PhantomData;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::api::{ActionId, Game, GameState, Information};
use crate::arena::Bot;

/// The search's settings: its spec text is `mcts:sims=N,c=X,rollout=N`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Simulations per step (at least one is run).
    pub simulations: usize,
    /// The exploration constant `c` of UCB1.
    pub exploration: f64,
    /// Random plies per rollout at most; a rollout cut short scores the
    /// state's returns there, which the contract makes zeros (a draw).
    pub rollout_cap: usize,
}

impl Default for MctsConfig {
    /// 200 simulations, `c` = 1.4 (about UCB1's sqrt 2 for returns in
    /// [-1, 1]), rollouts of at most 200 plies.
    fn default() -> Self {
        MctsConfig { simulations: 200, exploration: 1.4, rollout_cap: 200 }
    }
}

impl fmt::Display for MctsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mcts:sims={},c={},rollout={}", self.simulations, self.exploration, self.rollout_cap)
    }
}

/// A game the search cannot play.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error(
        "mcts plays perfect-information games only: it searches the whole state, and `{0}` hides part of it from each player"
    )]
    ImperfectInformation(&'static str),
}

/// UCT search over the states `S` of one perfect-information game.
pub struct Mcts<S> {
    config: MctsConfig,
    rng: Xoshiro256PlusPlus,
    game: PhantomData<fn(&S)>,
}

impl<S: GameState> Mcts<S> {
    /// A search for `game`'s states. A game of imperfect information is
    /// refused: the search would read what the player to act cannot see
    /// (the state holds both sides' hidden pieces).
    pub fn new<G: Game<State = S>>(game: &G, config: MctsConfig) -> Result<Mcts<S>, SearchError> {
        let game_type = game.game_type();
        if game_type.information != Information::PerfectInformation {
            return Err(SearchError::ImperfectInformation(game_type.short_name));
        }
        Ok(Mcts { config, rng: Xoshiro256PlusPlus::seed_from_u64(0), game: PhantomData })
    }

    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// The most visited action at the root after the simulations, with
    /// every root action's visit count (ties go to the higher mean, then to
    /// the lower id). Panics on a state whose game is over.
    pub fn search(&mut self, root: &S) -> (ActionId, Vec<(ActionId, u32)>) {
        let legal = root.legal_actions();
        assert!(!legal.is_empty(), "mcts: a step on a state with no legal action");
        if legal.len() == 1 {
            return (legal[0], vec![(legal[0], 0)]);
        }
        let mut tree = vec![Node::root(legal)];
        for _ in 0..self.config.simulations.max(1) {
            self.simulate(&mut tree, root);
        }
        let children = &tree[0].children;
        let best = children
            .iter()
            .map(|&c| &tree[c])
            .max_by(|x, y| x.visits.cmp(&y.visits).then(x.mean().total_cmp(&y.mean())).then(y.action.cmp(&x.action)))
            .expect("the root was expanded");
        let visits = children.iter().map(|&c| (tree[c].action, tree[c].visits)).collect();
        (best.action, visits)
    }

    /// One simulation: select, expand, roll out, back up.
    fn simulate(&mut self, tree: &mut Vec<Node>, root: &S) {
        let mut state = root.clone();
        let mut path = vec![0];
        let mut node = 0;
        while !state.is_terminal() {
            let untried = tree[node].untried.get_or_insert_with(|| state.legal_actions());
            if !untried.is_empty() {
                let action = untried.swap_remove(self.rng.random_range(0..untried.len()));
                let mover = play(&mut state, action);
                tree.push(Node::new(action, mover));
                let child = tree.len() - 1;
                tree[node].children.push(child);
                path.push(child);
                break;
            }
            node = self.select(tree, node);
            play(&mut state, tree[node].action);
            path.push(node);
        }
        let returns = self.rollout(state);
        for &n in &path {
            let node = &mut tree[n];
            node.visits += 1;
            // The root's mover is nobody's: its value is never read.
            node.value += node.mover.map_or(0.0, |p| returns[p] as f64);
        }
    }

    /// The child of `node` with the highest UCB1 score.
    fn select(&self, tree: &[Node], node: usize) -> usize {
        let log_parent = (tree[node].visits.max(1) as f64).ln();
        let c = self.config.exploration;
        let ucb = |child: usize| {
            let n = tree[child].visits.max(1) as f64;
            tree[child].mean() + c * (log_parent / n).sqrt()
        };
        let children = &tree[node].children;
        *children.iter().max_by(|&&x, &&y| ucb(x).total_cmp(&ucb(y))).expect("an expanded node has children")
    }

    /// Uniformly random play to the end or the cap; the returns there.
    fn rollout(&mut self, mut state: S) -> Vec<f32> {
        for _ in 0..self.config.rollout_cap {
            if state.is_terminal() {
                break;
            }
            let legal = state.legal_actions();
            if legal.is_empty() {
                break;
            }
            play(&mut state, legal[self.rng.random_range(0..legal.len())]);
        }
        state.returns()
    }
}

impl<S: GameState> Bot<S> for Mcts<S> {
    fn name(&self) -> String {
        self.config.to_string()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    }

    fn step(&mut self, state: &S) -> ActionId {
        self.search(state).0
    }
}

/// Plays a legal action and returns who played it. The contract promises
/// that a listed action is accepted; a game that breaks it is a bug there.
fn play<S: GameState>(state: &mut S, action: ActionId) -> usize {
    let mover = state.current_player().expect("a state that is not over has a player to act");
    if let Err(e) = state.apply_action(action) {
        panic!("mcts: legal action {action} was refused: {e}");
    }
    mover
}

/// A node of the search tree: the state reached by `action` from its parent.
struct Node {
    action: ActionId,
    /// The player who played `action` (`None` at the root).
    mover: Option<usize>,
    visits: u32,
    /// The sum of the mover's returns over the simulations through here.
    value: f64,
    children: Vec<usize>,
    /// The legal actions not yet added as children; listed on the first
    /// simulation that passes through the node.
    untried: Option<Vec<ActionId>>,
}

impl Node {
    fn root(legal: Vec<ActionId>) -> Node {
        Node { action: 0, mover: None, visits: 0, value: 0.0, children: Vec::new(), untried: Some(legal) }
    }

    fn new(action: ActionId, mover: usize) -> Node {
        Node { action, mover: Some(mover), visits: 0, value: 0.0, children: Vec::new(), untried: None }
    }

    fn mean(&self) -> f64 {
        self.value / self.visits.max(1) as f64
    }
}
