//! Batched environments: B independent games stepped together, writing
//! observations, legal masks and belief targets into caller-owned buffers.
//!
//! Each game has its own seeded generator (derived from the batch seed and
//! its index), so a batch is reproducible whatever the number of threads.
//! Finished games are reset at once from a setup source; `step` reports
//! them. Work is spread over cores with rayon.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::action::{ActionId, NUM_ACTIONS};
use crate::error::{Error, Refusal};
use crate::history::HistoryFeatures;
use crate::obs::{Encoder, Layout, SparseObservation};
use crate::piece::{Color, PieceSet};
use crate::position::Board;
use crate::record::GameRecord;
use crate::rules::Ruleset;
use crate::setup::Setup;
use crate::square::Square;
use crate::state::{Outcome, State};

/// The belief target of a square that holds no hidden opponent piece.
pub const BELIEF_IGNORE: i32 = -1;

/// The belief targets of one state (see `VecEnv::belief_targets`) into
/// `out[..100]`: the learner rebuilds them from game records with this.
pub fn write_belief_targets(state: &State, out: &mut [i32]) {
    out[..Square::COUNT].fill(BELIEF_IGNORE);
    let viewer = state.to_move();
    for (sq, p) in state.board().pieces() {
        if p.color != viewer && !p.revealed {
            out[sq.in_frame(viewer).index()] = p.kind.index() as i32;
        }
    }
}

/// A batch of observations stored sparse, as compressed rows: observation
/// `b`'s values are `entries[offsets[b]..offsets[b + 1]]`, each an index into
/// its `size` values (`plane * 100 + cell`) and the value there, each index
/// at most once per observation; every other value is 0.
/// `VecEnv::observe_sparse` writes it; reuse it to avoid allocating.
#[derive(Clone, Debug, Default)]
pub struct SparseBatch {
    layout: Option<Layout>,
    offsets: Vec<usize>,
    entries: Vec<(u32, f32)>,
    /// Each game's observation, written in parallel, then gathered.
    rows: Vec<SparseObservation>,
}

impl SparseBatch {
    pub fn new() -> SparseBatch {
        SparseBatch::default()
    }

    /// The layout of the last observations written (none before the first).
    pub fn layout(&self) -> Option<Layout> {
        self.layout
    }

    /// B + 1 offsets into `entries`, from 0 to its length.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// (index, value) of every observation, one after the other.
    pub fn entries(&self) -> &[(u32, f32)] {
        &self.entries
    }

    /// The dense batch, `[B, C, 10, 10]`, written into `out`.
    pub fn to_dense(&self, out: &mut [f32]) -> Result<(), Error> {
        let size = self.layout.map_or(0, Layout::size);
        VecEnv::check_len("observation", out, self.rows.len() * size)?;
        out.par_chunks_mut(size.max(1)).zip(self.rows.par_iter()).try_for_each(|(chunk, row)| row.to_dense(chunk))
    }

    /// Concatenates the rows.
    fn gather(&mut self, layout: Layout) {
        self.layout = Some(layout);
        self.offsets.clear();
        self.entries.clear();
        self.offsets.push(0);
        for row in &self.rows {
            self.entries.extend_from_slice(row.entries());
            self.offsets.push(self.entries.len());
        }
    }
}

/// Where new games' setups come from.
pub trait SetupSource: Send + Sync {
    /// Red's and Blue's setups for a new game, drawn with the game's generator.
    fn setups(&self, rng: &mut Xoshiro256PlusPlus) -> (Setup, Setup);
}

/// Uniform random setups (among those that can move) for a piece set.
pub struct RandomSetups(pub PieceSet);

impl SetupSource for RandomSetups {
    fn setups(&self, rng: &mut Xoshiro256PlusPlus) -> (Setup, Setup) {
        (Setup::random(self.0, rng), Setup::random(self.0, rng))
    }
}

/// A game that ended during a `step`.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// Which game of the batch.
    pub env: usize,
    pub outcome: Outcome,
    /// The whole game, replayable.
    pub record: GameRecord,
}

struct Env {
    state: State,
    history: HistoryFeatures,
    /// The board before the last ply, for folding it into the histories.
    before: Board,
    red: Setup,
    blue: Setup,
    rng: Xoshiro256PlusPlus,
    finished: Option<FinishedGame>,
}

impl Env {
    fn new(rules: Ruleset, source: &dyn SetupSource, mut rng: Xoshiro256PlusPlus) -> Result<Env, Error> {
        let (red, blue) = source.setups(&mut rng);
        let state = State::from_setups(rules, &red, &blue)?;
        Ok(Env {
            before: state.board().clone(),
            state,
            history: HistoryFeatures::default(),
            red,
            blue,
            rng,
            finished: None,
        })
    }

    fn reset(&mut self, rules: Ruleset, source: &dyn SetupSource) -> Result<(), Error> {
        let (red, blue) = source.setups(&mut self.rng);
        self.state = State::from_setups(rules, &red, &blue)?;
        self.history = HistoryFeatures::default();
        self.red = red;
        self.blue = blue;
        Ok(())
    }
}

/// B games stepped together.
pub struct VecEnv {
    rules: Ruleset,
    envs: Vec<Env>,
    source: Box<dyn SetupSource>,
}

impl VecEnv {
    /// `batch` games under `rules`, with uniform random setups, seeded.
    pub fn new(rules: Ruleset, batch: usize, seed: u64) -> Result<VecEnv, Error> {
        VecEnv::with_setups(rules, batch, seed, Box::new(RandomSetups(rules.piece_set)))
    }

    /// `batch` games whose setups come from `source`.
    pub fn with_setups(rules: Ruleset, batch: usize, seed: u64, source: Box<dyn SetupSource>) -> Result<VecEnv, Error> {
        rules.validate()?;
        if batch == 0 {
            return Err(Error::EmptyBatch);
        }
        let envs = (0..batch)
            .map(|i| {
                // Distinct, reproducible streams per game: the seed picks the
                // batch, `jump` would tie streams to creation order, so mix
                // the index into the seed instead.
                let rng =
                    Xoshiro256PlusPlus::seed_from_u64(stratego_contract::seed::stream_seed(seed, "game", i as u64));
                Env::new(rules, source.as_ref(), rng)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(VecEnv { rules, envs, source })
    }

    pub fn batch_size(&self) -> usize {
        self.envs.len()
    }

    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// The games, in batch order.
    pub fn states(&self) -> impl ExactSizeIterator<Item = &State> {
        self.envs.iter().map(|e| &e.state)
    }

    pub fn state(&self, env: usize) -> Option<&State> {
        self.envs.get(env).map(|e| &e.state)
    }

    /// Game `game` of `envs` (a field of `self`, so that callers may
    /// borrow the setup source beside it).
    fn slot(envs: &mut [Env], game: usize) -> Result<&mut Env, Error> {
        let batch = envs.len();
        envs.get_mut(game).ok_or(Error::NoSuchGame { game, batch })
    }

    /// Seats `setup` on `color`'s side of game `game` in place of the one
    /// dealt, before the game's first ply: a player that must play the setup
    /// it chose (an outside program, `Player::take_seat`) plays against
    /// setups from the batch's source. A game under way is refused
    /// (`Error::GameBegun`), and so is a setup of another piece set.
    pub fn seat_setup(&mut self, game: usize, color: Color, setup: Setup) -> Result<(), Error> {
        let rules = self.rules;
        let env = VecEnv::slot(&mut self.envs, game)?;
        if env.state.ply() != 0 {
            return Err(Error::GameBegun);
        }
        let (red, blue) = match color {
            Color::Red => (setup, env.blue.clone()),
            Color::Blue => (env.red.clone(), setup),
        };
        env.state = State::from_setups(rules, &red, &blue)?;
        env.before = env.state.board().clone();
        (env.red, env.blue) = (red, blue);
        Ok(())
    }

    /// Ends game `game` against `loser`, who forfeits it (an outside
    /// program that failed to play: `State::forfeit`), and starts the next
    /// game in its slot, as `step` does for a game that ends on the board.
    pub fn forfeit(&mut self, game: usize, loser: Color) -> Result<FinishedGame, Error> {
        let rules = self.rules;
        let env = VecEnv::slot(&mut self.envs, game)?;
        let source = self.source.as_ref();
        env.state.forfeit(loser)?;
        let outcome = env.state.outcome().expect("a forfeited game is over");
        let record = GameRecord::new(rules, env.red.clone(), env.blue.clone(), &env.state);
        env.reset(rules, source)?;
        Ok(FinishedGame { env: game, outcome, record })
    }

    fn check_len<T>(what: &'static str, buffer: &[T], expected: usize) -> Result<(), Error> {
        if buffer.len() == expected {
            Ok(())
        } else {
            Err(Error::BufferLength { what, found: buffer.len(), expected })
        }
    }

    /// Each game's observation for its side to move: `[B, C, 10, 10]` f32.
    pub fn observe(&self, layout: Layout, out: &mut [f32]) -> Result<(), Error> {
        VecEnv::check_len("observation", out, self.envs.len() * layout.size())?;
        out.par_chunks_mut(layout.size()).zip(self.envs.par_iter()).try_for_each(|(chunk, env)| {
            Encoder::new(&env.state, env.state.to_move(), Some(&env.history)).write(layout, chunk)
        })
    }

    /// Each game's observation for its side to move, sparse (see
    /// `SparseBatch`): the values `observe` writes, without the dense
    /// batch's zeros.
    pub fn observe_sparse(&self, layout: Layout, out: &mut SparseBatch) -> Result<(), Error> {
        out.rows.resize_with(self.envs.len(), SparseObservation::new);
        out.rows.par_iter_mut().zip(self.envs.par_iter()).try_for_each(|(row, env)| {
            Encoder::new(&env.state, env.state.to_move(), Some(&env.history)).write_sparse(layout, row)
        })?;
        out.gather(layout);
        Ok(())
    }

    /// Each game's legal-action mask: `[B, 1800]`.
    pub fn legal_mask(&self, out: &mut [bool]) -> Result<(), Error> {
        VecEnv::check_len("legal mask", out, self.envs.len() * NUM_ACTIONS)?;
        out.par_chunks_mut(NUM_ACTIONS).zip(self.envs.par_iter()).for_each(|(chunk, env)| {
            chunk.fill(false);
            let player = env.state.to_move();
            for mv in env.state.legal_moves() {
                chunk[mv.to_action(player).expect("legal moves lie on a line") as usize] = true;
            }
        });
        Ok(())
    }

    /// The true type (`PieceType::index`) of each hidden opponent piece, per
    /// square in the side to move's frame: `[B, 100]`, `BELIEF_IGNORE`
    /// elsewhere. These are training targets, never inputs.
    pub fn belief_targets(&self, out: &mut [i32]) -> Result<(), Error> {
        VecEnv::check_len("belief target", out, self.envs.len() * Square::COUNT)?;
        out.par_chunks_mut(Square::COUNT).zip(self.envs.par_iter()).for_each(|(chunk, env)| {
            write_belief_targets(&env.state, chunk);
        });
        Ok(())
    }

    /// The side to move of each game (0 Red, 1 Blue).
    pub fn current_players(&self, out: &mut [u8]) -> Result<(), Error> {
        VecEnv::check_len("player", out, self.envs.len())?;
        for (o, env) in out.iter_mut().zip(&self.envs) {
            *o = env.state.to_move() as u8;
        }
        Ok(())
    }

    /// Plays one action (in the acting player's frame) in every game. All
    /// actions are checked first: if any is illegal, nothing is played and
    /// the error names the first such game (`Error::InGame` around that
    /// game's `BadAction` or `IllegalMove`). Games that end are reset at
    /// once; they are appended to `finished` (cleared first; reuse it to
    /// avoid allocating).
    pub fn step(&mut self, actions: &[ActionId], finished: &mut Vec<FinishedGame>) -> Result<(), Error> {
        VecEnv::check_len("action", actions, self.envs.len())?;
        let illegal = self.envs.par_iter().zip(actions.par_iter()).enumerate().find_map_first(|(game, (env, &a))| {
            let error = match crate::action::Move::from_action(a, env.state.to_move()) {
                None => Error::BadAction(a as u32),
                Some(mv) => match env.state.refusal(mv)? {
                    Refusal::GameOver => Error::GameOver,
                    reason => Error::IllegalMove { mv, reason },
                },
            };
            Some(Error::InGame { game, source: Box::new(error) })
        });
        if let Some(error) = illegal {
            return Err(error);
        }
        let rules = self.rules;
        let source = self.source.as_ref();
        self.envs.par_iter_mut().zip(actions.par_iter()).enumerate().try_for_each(|(i, (env, &a))| {
            env.before.clone_from(env.state.board());
            env.state.apply_action(a)?;
            env.history.update(&env.state, &env.before);
            if let Some(outcome) = env.state.outcome() {
                let record = GameRecord::new(rules, env.red.clone(), env.blue.clone(), &env.state);
                env.finished = Some(FinishedGame { env: i, outcome, record });
                env.reset(rules, source)?;
            }
            Ok::<(), Error>(())
        })?;
        finished.clear();
        finished.extend(self.envs.iter_mut().filter_map(|e| e.finished.take()));
        Ok(())
    }

    /// A uniformly random legal action for each game, from each game's own
    /// generator (for random play and benchmarks).
    pub fn sample_actions(&mut self, out: &mut [ActionId]) -> Result<(), Error> {
        VecEnv::check_len("action", out, self.envs.len())?;
        out.par_iter_mut().zip(self.envs.par_iter_mut()).for_each(|(o, env)| {
            let player = env.state.to_move();
            let mv = env.state.sample_legal_move(&mut env.rng).expect("live games have a legal move");
            *o = mv.to_action(player).expect("legal moves lie on a line");
        });
        Ok(())
    }

    /// The side that acts in game `env`.
    pub fn to_move(&self, env: usize) -> Option<Color> {
        self.envs.get(env).map(|e| e.state.to_move())
    }
}
