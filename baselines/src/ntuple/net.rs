//! The evaluator: tables of weights, one lookup per tuple, summed and squashed.

use std::fmt;

use stratego_engine::{battle, BattleResult, Color, CountingPrior, Move, PieceType, Ruleset, State};

use super::alphabet::{encode_state, encode_view, frame_cell, opponent, own, Encoded, Material, Symbols, EMPTY};
use super::layout::{Layout, MATERIAL_ENTRIES, MATERIAL_TABLES, MAX_TUPLE};
use crate::greedy::type_distribution;
use stratego_players::view::{Cell, InfoView};

/// A tuple as the lookups use it.
#[derive(Copy, Clone, PartialEq, Eq)]
struct Packed {
    /// The offset of its table in the weights.
    offset: u32,
    len: u8,
    cells: [u8; MAX_TUPLE],
}

/// Temporal-coherence accumulators (Beal & Smith): per weight, the sum of
/// the changes TD recommended and the sum of their magnitudes.
#[derive(Clone, PartialEq)]
pub struct Coherence {
    pub accumulated: Vec<f32>,
    pub absolute: Vec<f32>,
}

/// An n-tuple network: a layout, its tables and the ruleset it is for.
#[derive(Clone, PartialEq)]
pub struct NTupleNet {
    layout: Layout,
    rules: Ruleset,
    /// Self-play games trained so far (for the file's metadata).
    pub games: u64,
    /// Each tuple's cells, length and table offset, packed together (one
    /// cache line holds five tuples).
    tuples: Vec<Packed>,
    /// Offset of each square table, and the start of the material tables
    /// (or the total) at the end.
    table_offsets: Vec<usize>,
    /// First tuple of each table, and the tuple count at the end.
    table_tuples: Vec<usize>,
    weights: Vec<f32>,
    /// The tuples that hold each frame cell.
    touching: Vec<Vec<u16>>,
    coherence: Option<Coherence>,
}

impl fmt::Debug for NTupleNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NTupleNet")
            .field("layout", &self.layout.name)
            .field("tuples", &self.layout.tuples.len())
            .field("weights", &self.weights.len())
            .field("rules", &self.rules.canonical())
            .field("games", &self.games)
            .field("temporal_coherence", &self.coherence.is_some())
            .finish()
    }
}

/// One afterstate as TD learning keeps it: the weights it read, and what a
/// change of its value costs.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// Indices into the weights, one per tuple.
    pub indices: Vec<u32>,
    /// `sum_j m_j^2` over the distinct indices (`m_j` = how often index `j`
    /// is read): an update that adds `x / norm` to each read weight changes
    /// the sum by exactly `x`.
    pub norm: f32,
}

/// `sum_k board[cell_k] * 16^k`, unrolled for the usual lengths.
#[inline(always)]
fn packed_index(p: &Packed, board: &Symbols) -> usize {
    let s = |k: usize| board[p.cells[k] as usize] as usize;
    match p.len {
        1 => s(0),
        2 => s(0) | s(1) << 4,
        3 => s(0) | s(1) << 4 | s(2) << 8,
        4 => s(0) | s(1) << 4 | s(2) << 8 | s(3) << 12,
        n => (0..n as usize).rev().fold(0, |index, k| (index << 4) | s(k)),
    }
}

fn material_size(layout: &Layout) -> usize {
    if layout.material {
        MATERIAL_TABLES * MATERIAL_ENTRIES
    } else {
        0
    }
}

impl NTupleNet {
    /// A network with every weight zero (value 0 everywhere). With
    /// `temporal_coherence` it also keeps the TC accumulators.
    pub fn new(layout: Layout, rules: Ruleset, temporal_coherence: bool) -> Result<NTupleNet, String> {
        let total = layout.table_sizes().iter().sum::<usize>() + material_size(&layout);
        let coherence =
            temporal_coherence.then(|| Coherence { accumulated: vec![0.0; total], absolute: vec![0.0; total] });
        NTupleNet::from_parts(layout, rules, vec![0.0; total], coherence, 0)
    }

    /// A network from its parts (as read from a file), checked.
    pub fn from_parts(
        layout: Layout,
        rules: Ruleset,
        weights: Vec<f32>,
        coherence: Option<Coherence>,
        games: u64,
    ) -> Result<NTupleNet, String> {
        layout.validate()?;
        let sizes = layout.table_sizes();
        let mut table_offsets = vec![0];
        for s in &sizes {
            table_offsets.push(table_offsets.last().unwrap() + s);
        }
        let total = *table_offsets.last().unwrap() + material_size(&layout);
        if weights.len() != total {
            return Err(format!("the layout needs {total} weights, got {}", weights.len()));
        }
        if let Some(c) = &coherence {
            if c.accumulated.len() != total || c.absolute.len() != total {
                return Err(format!("the temporal-coherence accumulators need {total} entries each"));
            }
        }
        if total > u32::MAX as usize {
            return Err(format!("{total} weights are more than this format indexes"));
        }
        let mut table_tuples = Vec::new();
        let mut tuples = Vec::new();
        let mut touching = vec![Vec::new(); 100];
        for (i, t) in layout.tuples.iter().enumerate() {
            if table_tuples.len() == t.table {
                table_tuples.push(i);
            }
            let mut cells = [0u8; MAX_TUPLE];
            cells[..t.cells.len()].copy_from_slice(&t.cells);
            tuples.push(Packed { offset: table_offsets[t.table] as u32, len: t.cells.len() as u8, cells });
            for &cell in &t.cells {
                touching[cell as usize].push(i as u16);
            }
        }
        table_tuples.push(layout.tuples.len());
        Ok(NTupleNet { layout, rules, games, tuples, table_offsets, table_tuples, weights, touching, coherence })
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The material tables (empty unless the layout has them): table `t`
    /// holds entries `256 t .. 256 (t + 1)`.
    pub fn material_tables(&self) -> &[f32] {
        &self.weights[self.material_offset()..]
    }

    pub fn material_tables_mut(&mut self) -> &mut [f32] {
        let start = self.material_offset();
        &mut self.weights[start..]
    }

    fn material_offset(&self) -> usize {
        *self.table_offsets.last().expect("at least one offset")
    }

    /// The index of type `t`'s material entry in `material_tables`.
    #[inline]
    pub fn material_index(t: usize, material: &Material) -> usize {
        t * MATERIAL_ENTRIES + material.own[t] as usize + 16 * material.opp[t] as usize
    }

    #[inline]
    fn material_sum(&self, material: &Material) -> f32 {
        if !self.layout.material {
            return 0.0;
        }
        let base = self.material_offset();
        (0..MATERIAL_TABLES).map(|t| self.weights[base + Self::material_index(t, material)]).sum()
    }

    /// The weights of square table `k`.
    pub fn table(&self, k: usize) -> &[f32] {
        &self.weights[self.table_offsets[k]..self.table_offsets[k + 1]]
    }

    pub fn table_mut(&mut self, k: usize) -> &mut [f32] {
        let (a, b) = (self.table_offsets[k], self.table_offsets[k + 1]);
        &mut self.weights[a..b]
    }

    pub fn coherence(&self) -> Option<&Coherence> {
        self.coherence.as_ref()
    }

    /// Tuple `t`'s index into its table: `sum_k board[cell_k] * 16^k`.
    pub fn index(&self, t: usize, board: &Symbols) -> usize {
        packed_index(&self.tuples[t], board)
    }

    #[inline]
    fn entry(&self, t: usize, board: &Symbols) -> f32 {
        let p = &self.tuples[t];
        self.weights[p.offset as usize + packed_index(p, board)]
    }

    /// The sum of the looked-up weights, before squashing.
    pub fn raw(&self, position: &Encoded) -> f32 {
        let board = &position.board;
        self.tuples.iter().map(|p| self.weights[p.offset as usize + packed_index(p, board)]).sum::<f32>()
            + self.material_sum(&position.material)
    }

    /// The value of a position for the player whose view it is: `tanh` of
    /// the sum, in [-1, 1] (+1: that player wins).
    pub fn value(&self, position: &Encoded) -> f32 {
        self.raw(position).tanh()
    }

    /// The value of `state` from `viewer`'s side (its view of the board).
    pub fn state_value(&self, state: &State, viewer: Color) -> f32 {
        self.value(&encode_state(state, viewer))
    }

    /// The weights a position reads, for learning.
    pub fn features(&self, position: &Encoded) -> Features {
        let board = &position.board;
        let mut indices: Vec<u32> = self.tuples.iter().map(|p| p.offset + packed_index(p, board) as u32).collect();
        let mut norm = 0.0;
        if self.layout.material {
            let base = self.material_offset();
            indices.extend((0..MATERIAL_TABLES).map(|t| (base + Self::material_index(t, &position.material)) as u32));
            norm += MATERIAL_TABLES as f32; // one read of each material table
        }
        for table in self.table_tuples.windows(2) {
            let group = &indices[table[0]..table[1]];
            for x in group {
                // Each occurrence counts the occurrences of its index: sum m^2.
                norm += group.iter().filter(|y| *y == x).count() as f32;
            }
        }
        Features { indices, norm }
    }

    /// The sum of the weights at `indices`, before squashing.
    pub fn raw_of(&self, indices: &[u32]) -> f32 {
        indices.iter().map(|&i| self.weights[i as usize]).sum()
    }

    /// One TD step on an afterstate: each read weight moves by
    /// `alpha * error / norm` (times its temporal-coherence factor, if on),
    /// so without TC the sum before squashing moves by exactly
    /// `alpha * error`. `error` is the TD error times the trace decay and the
    /// squashing's derivative at the time of the visit.
    pub fn update(&mut self, features: &Features, error: f32, alpha: f32) {
        let step = error / features.norm;
        match &mut self.coherence {
            None => {
                for &i in &features.indices {
                    self.weights[i as usize] += alpha * step;
                }
            }
            Some(tc) => {
                // Every read of a weight in this update uses the factor from
                // before the update; then the accumulators take the changes.
                for &i in &features.indices {
                    let i = i as usize;
                    let rate = if tc.absolute[i] > 0.0 { tc.accumulated[i].abs() / tc.absolute[i] } else { 1.0 };
                    self.weights[i] += alpha * rate * step;
                }
                for &i in &features.indices {
                    tc.accumulated[i as usize] += step;
                    tc.absolute[i as usize] += step.abs();
                }
            }
        }
    }

    /// The sum after changing some cells of the board and losing some
    /// pieces (`(true, t)`: one of the viewer's of type `t`; `(false, t)`:
    /// one of the opponent's), from the sum `base` of the position before
    /// (which is restored on return): only the tuples that hold a changed
    /// cell and the material tables of the lost types are looked up again.
    pub fn raw_after(
        &self,
        position: &mut Encoded,
        base: f32,
        changes: &[(usize, u8)],
        losses: &[(bool, PieceType)],
    ) -> f32 {
        let mut delta = self.board_delta(&mut position.board, changes);
        if self.layout.material && !losses.is_empty() {
            let before = position.material;
            let old = self.material_sum(&before);
            for &(own, kind) in losses {
                let counts = if own { &mut position.material.own } else { &mut position.material.opp };
                counts[kind.index()] = counts[kind.index()].saturating_sub(1);
            }
            delta += self.material_sum(&position.material) - old;
            position.material = before;
        }
        base + delta
    }

    fn board_delta(&self, board: &mut Symbols, changes: &[(usize, u8)]) -> f32 {
        let mut delta = 0.0f32;
        self.visit_changed(changes, |t| delta -= self.entry(t, board));
        let mut saved = [0u8; 4];
        for (j, &(cell, symbol)) in changes.iter().enumerate() {
            saved[j] = board[cell];
            board[cell] = symbol;
        }
        self.visit_changed(changes, |t| delta += self.entry(t, board));
        for (j, &(cell, _)) in changes.iter().enumerate().rev() {
            board[cell] = saved[j];
        }
        delta
    }

    /// Calls `f` once for every tuple that holds one of the changed cells.
    #[inline]
    fn visit_changed(&self, changes: &[(usize, u8)], mut f: impl FnMut(usize)) {
        assert!(changes.len() <= 4, "at most four changed cells");
        for (j, &(cell, _)) in changes.iter().enumerate() {
            for &t in &self.touching[cell] {
                let t = t as usize;
                let p = &self.tuples[t];
                let cells = &p.cells[..p.len as usize];
                if changes[..j].iter().any(|(earlier, _)| cells.contains(&(*earlier as u8))) {
                    continue; // already visited for an earlier cell
                }
                f(t);
            }
        }
    }

    /// The afterstate value of every legal move of the view, from the
    /// acting player's side, in the order of `view.legal_moves`.
    ///
    /// A move to an empty square, or an attack on a revealed piece, has one
    /// afterstate (the battle table decides). An attack on a hidden piece is
    /// the average of the afterstates over the defender's possible types,
    /// weighted by the counting prior (the greedy player's): the attacker
    /// wins and stands on the square, or the defender wins and is revealed,
    /// or both go; capturing the Flag is worth +1, the value of a won game.
    pub fn move_values(&self, view: &InfoView<'_>) -> Vec<f64> {
        let mut position = encode_view(view);
        let base = self.raw(&position);
        let prior = view.prior();
        view.legal_moves.iter().map(|&mv| self.move_value(&mut position, base, view, &prior, mv)).collect()
    }

    fn move_value(
        &self,
        position: &mut Encoded,
        base: f32,
        view: &InfoView<'_>,
        prior: &CountingPrior,
        mv: Move,
    ) -> f64 {
        let Cell::Own(mover) = view.cell(mv.from) else { panic!("a legal move starts on an own piece") };
        let (from, to) = (frame_cell(mv.from, view.me), frame_cell(mv.to, view.me));
        let mut after = |symbol: u8, losses: &[(bool, PieceType)]| {
            self.raw_after(position, base, &[(from, EMPTY), (to, symbol)], losses).tanh() as f64
        };
        match view.cell(mv.to) {
            Cell::Empty => after(own(mover.kind), &[]),
            Cell::Own(_) => panic!("a legal move never ends on an own piece"),
            Cell::Opponent(defender) => {
                let dist = type_distribution(&defender, prior);
                let (mut total, mut mass) = (0.0, 0.0);
                for kind in PieceType::ALL {
                    let p = dist[kind.index()] as f64;
                    if p <= 0.0 {
                        continue;
                    }
                    let v = if kind == PieceType::Flag {
                        1.0
                    } else {
                        match battle(mover.kind, kind) {
                            BattleResult::AttackerWins => after(own(mover.kind), &[(false, kind)]),
                            BattleResult::DefenderWins => after(opponent(kind), &[(true, mover.kind)]),
                            BattleResult::BothRemoved => after(EMPTY, &[(true, mover.kind), (false, kind)]),
                        }
                    };
                    total += p * v;
                    mass += p;
                }
                if mass > 0.0 {
                    total / mass
                } else {
                    0.0
                }
            }
        }
    }

    /// The value of a search leaf for `me`, on the scale of the tables
    /// ([-1, 1]). The tables learned the values of afterstates: positions
    /// just after their owner moved. So a leaf is valued from the side of
    /// the player who made the last move (not the one to move), and
    /// negated when that is the opponent. In a determinized state the
    /// opponent's own hidden pieces carry their drawn types; their
    /// revealed and moved flags, and everything about `me`'s pieces, are
    /// as in the game.
    pub fn leaf_value(&self, state: &State, me: Color) -> f64 {
        let mover = state.to_move().opponent();
        let v = self.state_value(state, mover) as f64;
        if mover == me {
            v
        } else {
            -v
        }
    }
}
