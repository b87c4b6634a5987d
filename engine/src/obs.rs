//! Observation planes: the 58-plane compact set and the 488-plane full set.
//!
//! Each layout is one table of plane groups (`COMPACT`, `FULL`). A row of a
//! table is the whole definition of a group: its name, the labels of its
//! planes (and so their number), its meaning, and the function that writes
//! it. Everything else is computed from the tables: the plane counts
//! (`Layout::channels`, a const fn), each group's planes (`Layout::group`),
//! the layout's identity (`Layout::identity`: an explicit version and a hash
//! of the table, stored in every checkpoint) and docs/OBSERVATIONS.md, which
//! a test regenerates and compares, so the code and the docs cannot drift.
//!
//! All planes are 10x10 f32, cell-major (`plane * 100 + cell`), in the
//! acting player's frame: Blue's view is rotated 180 degrees, so each side
//! sees its home rows at the bottom (cell 0 = its own back-left corner). An
//! observation is a function of the acting player's information only: the
//! type of a hidden opponent piece never enters it.
//!
//! An observation is written dense (`Encoder::write`, every value) or sparse
//! (`Encoder::write_sparse`, the values set, by index), by the same writers.

use std::cell::OnceCell;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use sha2::{Digest, Sha256};

use crate::belief::CountingPrior;
use crate::error::Error;
use crate::history::{DeathCause, HistoryFeatures, PieceHistory, EMPTY, UNKNOWN};
use crate::piece::{Color, Piece, PieceType};
use crate::position::squares_of;
use crate::square::{Square, LAKES, LAKE_MASK};
use crate::state::{Death, State};

/// Planes in the full set's move history.
pub const MOVE_HISTORY: usize = 32;

/// The two observation layouts.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Layout {
    /// 58 planes: board, counting-prior beliefs, counters, last move.
    Compact,
    /// 488 planes: the Ataraxos board planes (0-354), the starting square of
    /// each piece (355-455) and the last 32 moves (456-487).
    Full,
}

/// One layout: its name, version and plane table.
struct Table {
    name: &'static str,
    /// The layout's version. Bump it whenever what a plane holds changes
    /// (its values, not only its name: the hash in the identity already
    /// follows names, order and counts). A pinned test of the identities
    /// and of the planes of fixed games fails until it is bumped.
    version: u32,
    /// The group that holds the counting prior of each hidden opponent
    /// piece (12 planes, `PieceType::index` order).
    prior: &'static str,
    /// Whether the writers read the game's piece histories.
    needs_history: bool,
    groups: &'static [Group],
}

const COMPACT_TABLE: Table =
    Table { name: "compact", version: 1, prior: "belief", needs_history: false, groups: COMPACT };
const FULL_TABLE: Table = Table { name: "full", version: 1, prior: "opponent", needs_history: true, groups: FULL };

impl Layout {
    pub const ALL: [Layout; 2] = [Layout::Compact, Layout::Full];

    const fn table(self) -> &'static Table {
        match self {
            Layout::Compact => &COMPACT_TABLE,
            Layout::Full => &FULL_TABLE,
        }
    }

    pub const fn name(self) -> &'static str {
        self.table().name
    }

    /// The layout's version (part of its identity).
    pub const fn version(self) -> u32 {
        self.table().version
    }

    pub fn from_name(name: &str) -> Result<Layout, Error> {
        Layout::ALL.into_iter().find(|l| l.name() == name).ok_or_else(|| Error::UnknownLayout(name.to_string()))
    }

    /// Planes (channels) per observation, summed over the table.
    pub const fn channels(self) -> usize {
        let groups = self.table().groups;
        let mut total = 0;
        let mut i = 0;
        while i < groups.len() {
            total += groups[i].labels.len();
            i += 1;
        }
        total
    }

    /// f32 values per observation.
    pub const fn size(self) -> usize {
        self.channels() * Square::COUNT
    }

    /// Whether writing this layout needs the game's piece histories
    /// (`HistoryFeatures`).
    pub const fn needs_history(self) -> bool {
        self.table().needs_history
    }

    /// The planes of the group named `name` (`own`, `belief`, `move`, ...),
    /// if the layout has it.
    pub fn group(self, name: &str) -> Option<Range<usize>> {
        let mut start = 0;
        for g in self.table().groups {
            if g.name == name {
                return Some(start..start + g.labels.len());
            }
            start += g.labels.len();
        }
        None
    }

    /// The layout with this many planes.
    pub fn from_channels(channels: usize) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.channels() == channels)
    }

    /// The 12 planes (one per type, `PieceType::index` order) that hold the
    /// acting player's counting prior on each hidden opponent piece: the
    /// network's belief head refines them. Compact: the `belief` group;
    /// full: the `opponent` group.
    pub fn prior_planes(self) -> Range<usize> {
        let table = self.table();
        let planes = self.group(table.prior).expect("a layout's prior group is in its table");
        debug_assert_eq!(planes.len(), PieceType::COUNT);
        planes
    }

    /// Every plane with its index, name and meaning.
    pub fn planes(self) -> Vec<PlaneInfo> {
        let mut planes = Vec::with_capacity(self.channels());
        for g in self.table().groups {
            for label in g.labels.names() {
                planes.push(PlaneInfo {
                    index: planes.len(),
                    name: format!("{}{}", g.name, if label.is_empty() { String::new() } else { format!("_{label}") }),
                    meaning: g.meaning.replace("{}", &label),
                });
            }
        }
        planes
    }

    /// The text the identity's hash is taken over: one line per row of the
    /// table, `group<TAB>planes<TAB>label,label,...` (labels are empty for a
    /// one-plane group). Meanings are left out, so rewording a description
    /// keeps the identity; the plane names, their order and counts are in.
    pub fn canonical_table(self) -> String {
        let mut text = String::new();
        for g in self.table().groups {
            text.push_str(&format!("{}\t{}\t{}\n", g.name, g.labels.len(), g.labels.names().join(",")));
        }
        text
    }

    /// The layout's identity: name, version and the first 8 hex digits of
    /// the SHA-256 of `canonical_table`, written `compact-v1:1a2b3c4d`.
    /// Checkpoints store it, and a network is loaded only by an engine whose
    /// layout has the same identity.
    pub fn identity(self) -> LayoutId {
        let digest = Sha256::digest(self.canonical_table().as_bytes());
        let hash = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
        LayoutId { name: self.name().to_string(), version: self.version(), hash }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// What identifies the planes a layout writes: `NAME-vVERSION:HASH`, e.g.
/// `compact-v1:1a2b3c4d` (`Layout::identity`). Parsed back from checkpoints,
/// so the name need not be one this engine knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LayoutId {
    pub name: String,
    pub version: u32,
    /// 8 lower-case hex digits.
    pub hash: String,
}

impl fmt::Display for LayoutId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-v{}:{}", self.name, self.version, self.hash)
    }
}

/// A text that is not a layout identity.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a layout identity (expected NAME-vVERSION:HASH, like compact-v1:1a2b3c4d)")]
pub struct ParseLayoutIdError(pub String);

impl FromStr for LayoutId {
    type Err = ParseLayoutIdError;

    fn from_str(text: &str) -> Result<LayoutId, ParseLayoutIdError> {
        let bad = || ParseLayoutIdError(text.to_string());
        let (head, hash) = text.rsplit_once(':').ok_or_else(bad)?;
        let (name, version) = head.rsplit_once("-v").ok_or_else(bad)?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let hex = hash.len() == 8 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if name.is_empty() || !digits(version) || !hex {
            return Err(bad());
        }
        Ok(LayoutId { name: name.to_string(), version: version.parse().map_err(|_| bad())?, hash: hash.to_string() })
    }
}

/// One plane of a layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaneInfo {
    pub index: usize,
    pub name: String,
    pub meaning: String,
}

/// What the planes of a group stand for, one label each.
#[derive(Copy, Clone, Debug)]
enum Labels {
    /// One plane.
    One,
    /// One plane per code (piece type codes 0-11, `EMPTY`, `UNKNOWN`).
    Codes(&'static [u8]),
    /// One plane per death cause and movable type.
    Causes,
    /// 100 starting squares and one plane for "no piece".
    StartSquares,
    /// The last 32 moves, oldest first.
    Moves,
}

impl Labels {
    const fn len(self) -> usize {
        match self {
            Labels::One => 1,
            Labels::Codes(codes) => codes.len(),
            Labels::Causes => DeathCause::COUNT * T10.len(),
            Labels::StartSquares => Square::COUNT + 1,
            Labels::Moves => MOVE_HISTORY,
        }
    }

    fn names(self) -> Vec<String> {
        match self {
            Labels::One => vec![String::new()],
            Labels::Codes(codes) => codes.iter().map(|&c| code_name(c).to_string()).collect(),
            Labels::Causes => (0..DeathCause::COUNT)
                .flat_map(|cause| T10.iter().map(move |&t| format!("cause{cause}_{}", code_name(t))))
                .collect(),
            Labels::StartSquares => {
                Square::all().map(|s| format!("{}", s.cell())).chain(std::iter::once("none".to_string())).collect()
            }
            Labels::Moves => (0..MOVE_HISTORY).map(|i| format!("t-{}", MOVE_HISTORY - i)).collect(),
        }
    }
}

fn code_name(code: u8) -> &'static str {
    match code {
        EMPTY => "empty",
        UNKNOWN => "unknown",
        c => PieceType::from_index(c as usize).expect("codes below 12 are types").name(),
    }
}

/// A row of a table: one plane group, defined here and nowhere else.
struct Group {
    name: &'static str,
    labels: Labels,
    /// `{}` stands for the plane's label.
    meaning: &'static str,
    /// The row's writer, which writes the group's planes (`set`, `fill`:
    /// plane `k` of the group), compiled for each kind of output (`group!`).
    dense: fn(&View, &mut DensePlanes<'_>),
    sparse: fn(&View, &mut SparsePlanes<'_>),
}

const T12: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const T10: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const T11U: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, UNKNOWN];
const T11B: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11];
const T13: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, EMPTY, UNKNOWN];

/// A row: the writer is written once and compiled for dense and for
/// sparse output, so that neither pays for the other at each value.
macro_rules! group {
    ($name:expr, $labels:expr, $meaning:expr, |$v:ident, $out:ident| $body:expr $(,)?) => {
        Group { name: $name, labels: $labels, meaning: $meaning, dense: |$v, $out| $body, sparse: |$v, $out| $body }
    };
    ($name:expr, $labels:expr, $meaning:expr, $write:ident $(,)?) => {
        group!($name, $labels, $meaning, |v, out| $write(v, out))
    };
}

/// The groups both sets have, one definition each.
const OWN: Group = group!("own", Labels::Codes(T12), "1 where an own {} stands", write_own);
const EMPTY_SQUARES: Group = group!("empty", Labels::One, "1 on empty squares (not lakes)", write_empty);
const OWN_MOVED: Group =
    group!("own_moved", Labels::One, "1 where an own piece that has moved stands", write_own_moved);
const PLY_FRACTION: Group =
    group!("ply_fraction", Labels::One, "plies played / total-ply cap, on every square", write_ply_fraction);
const BATTLELESS_FRACTION: Group = group!(
    "battleless_fraction",
    Labels::One,
    "plies since the last battle / battleless cap, on every square",
    write_battleless_fraction,
);

/// The compact set, 58 planes.
const COMPACT: &[Group] = &[
    OWN,
    group!("revealed_opponent", Labels::Codes(T12), "1 where a revealed opponent {} stands", |v, out| {
        for (cell, p) in v.pieces(Side::Opponent).filter(|(_, p)| p.revealed) {
            set(out, p.kind.index(), cell, 1.0);
        }
    }),
    group!("hidden_unmoved", Labels::One, "1 where a hidden opponent piece that never moved stands", |v, out| {
        v.mark(out, Side::Opponent, |p| !p.revealed && !p.moved)
    }),
    group!("hidden_moved", Labels::One, "1 where a hidden opponent piece that has moved stands", |v, out| {
        v.mark(out, Side::Opponent, |p| !p.revealed && p.moved)
    }),
    EMPTY_SQUARES,
    group!("lake", Labels::One, "1 on the eight lake squares", |v, out| {
        for sq in LAKES {
            set(out, 0, v.cell(sq), 1.0);
        }
    }),
    group!(
        "belief",
        Labels::Codes(T12),
        "counting-prior probability that the hidden opponent piece on the square is a {} (0 elsewhere)",
        |v, out| {
            for (cell, p) in v.pieces(Side::Opponent).filter(|(_, p)| !p.revealed) {
                for (t, &prob) in v.prior().of(&p).iter().enumerate() {
                    set(out, t, cell, prob);
                }
            }
        },
    ),
    OWN_MOVED,
    group!("own_revealed", Labels::One, "1 where an own piece the opponent has seen stands", |v, out| {
        v.mark(out, Side::Own, |p| p.revealed)
    }),
    PLY_FRACTION,
    BATTLELESS_FRACTION,
    group!("last_move_source", Labels::One, "1 on the source square of the last ply's move", |v, out| {
        if let Some(last) = v.state.history().last() {
            set(out, 0, v.cell(last.mv.from), 1.0);
        }
    }),
    group!("last_move_destination", Labels::One, "1 on the destination square of the last ply's move", |v, out| {
        if let Some(last) = v.state.history().last() {
            set(out, 0, v.cell(last.mv.to), 1.0);
        }
    }),
    group!(
        "own_remaining",
        Labels::Codes(T12),
        "own {} pieces still on the board / own {} pieces at the start (0 if the army has none), on every square",
        |v, out| {
            let army = v.state.rules().piece_set.counts();
            let on_board = v.state.board().counts(v.viewer);
            for t in 0..PieceType::COUNT {
                let fraction = if army[t] == 0 { 0.0 } else { on_board[t] as f32 / army[t] as f32 };
                fill(out, t, fraction);
            }
        },
    ),
];

/// The full set, 488 planes (the Ataraxos numbering).
const FULL: &[Group] = &[
    OWN,
    group!(
        "opponent",
        Labels::Codes(T12),
        "probability that the opponent piece on the square is a {}: one-hot if revealed, the counting prior if hidden",
        |v, out| v.type_probabilities(out, Side::Opponent, v.prior()),
    ),
    group!(
        "own_seen_by_opponent",
        Labels::Codes(T12),
        "what the opponent can infer: probability, under its counting prior, that the own piece on the square is a {}",
        |v, out| v.type_probabilities(out, Side::Own, v.opponent_prior()),
    ),
    group!("own_hidden", Labels::One, "1 where an own piece the opponent has not seen stands", |v, out| v.mark(out, Side::Own, |p| !p.revealed)),
    group!("opponent_hidden", Labels::One, "1 where a hidden opponent piece stands", |v, out| v.mark(out, Side::Opponent, |p| !p.revealed)),
    EMPTY_SQUARES,
    OWN_MOVED,
    group!("opponent_moved", Labels::One, "1 where an opponent piece that has moved stands", |v, out| v.mark(out, Side::Opponent, |p| p.moved)),
    PLY_FRACTION,
    BATTLELESS_FRACTION,
    group!(
        "we_threatened",
        Labels::Codes(T11U),
        "on each own hidden piece: 1 if it once ended a move next to an opponent piece seen as {}",
        |v, out| v.history_codes(out, Side::Own, T11U, |h| h.threatened),
    ),
    group!(
        "we_evaded",
        Labels::Codes(T11U),
        "on each own hidden piece: 1 if it once moved away from an opponent piece seen as {} that had just moved next to it",
        |v, out| v.history_codes(out, Side::Own, T11U, |h| h.evaded),
    ),
    group!(
        "we_actively_adjacent",
        Labels::Codes(T11U),
        "on each own hidden piece: 1 if it once stood, during our turn, next to an opponent piece seen as {}",
        |v, out| v.history_codes(out, Side::Own, T11U, |h| h.actively_adjacent),
    ),
    group!(
        "they_threatened",
        Labels::Codes(T11U),
        "the same as we_threatened for opponent hidden pieces (own pieces as the opponent saw them: {})",
        |v, out| v.history_codes(out, Side::Opponent, T11U, |h| h.threatened),
    ),
    group!(
        "they_evaded",
        Labels::Codes(T11U),
        "the same as we_evaded for opponent hidden pieces ({})",
        |v, out| v.history_codes(out, Side::Opponent, T11U, |h| h.evaded),
    ),
    group!(
        "they_actively_adjacent",
        Labels::Codes(T11U),
        "the same as we_actively_adjacent for opponent hidden pieces ({})",
        |v, out| v.history_codes(out, Side::Opponent, T11U, |h| h.actively_adjacent),
    ),
    group!("own_dead", Labels::Codes(T11B), "1 on the starting square of each own dead {}", |v, out| {
        v.dead(out, Side::Own)
    }),
    group!("opponent_dead", Labels::Codes(T11B), "1 on the starting square of each opponent dead {}", |v, out| {
        v.dead(out, Side::Opponent)
    }),
    group!(
        "own_death",
        Labels::Causes,
        "1 on the square where an own piece died, by cause (0-5, see the death causes) and type: {}",
        |v, out| v.death_causes(out, Side::Own),
    ),
    group!("opponent_death", Labels::Causes, "the same for opponent pieces: {}", |v, out| {
        v.death_causes(out, Side::Opponent)
    }),
    group!(
        "our_protected",
        Labels::Codes(T13),
        "on each own hidden piece: 1 if it once protected a {}",
        |v, out| v.history_codes(out, Side::Own, T13, |h| h.protected),
    ),
    group!(
        "our_protected_against",
        Labels::Codes(T13),
        "on each own hidden piece: 1 if it once protected something against a {}",
        |v, out| v.history_codes(out, Side::Own, T13, |h| h.protected_against),
    ),
    group!(
        "our_was_protected_by",
        Labels::Codes(T13),
        "on each own hidden piece: 1 if it was once protected by a {}",
        |v, out| v.history_codes(out, Side::Own, T13, |h| h.was_protected_by),
    ),
    group!(
        "our_was_protected_against",
        Labels::Codes(T13),
        "on each own hidden piece: 1 if it was once protected against a {}",
        |v, out| v.history_codes(out, Side::Own, T13, |h| h.was_protected_against),
    ),
    group!(
        "their_protected",
        Labels::Codes(T13),
        "the same as our_protected for opponent hidden pieces ({})",
        |v, out| v.history_codes(out, Side::Opponent, T13, |h| h.protected),
    ),
    group!(
        "their_protected_against",
        Labels::Codes(T13),
        "the same as our_protected_against for opponent hidden pieces ({})",
        |v, out| v.history_codes(out, Side::Opponent, T13, |h| h.protected_against),
    ),
    group!(
        "their_was_protected_by",
        Labels::Codes(T13),
        "the same as our_was_protected_by for opponent hidden pieces ({})",
        |v, out| v.history_codes(out, Side::Opponent, T13, |h| h.was_protected_by),
    ),
    group!(
        "their_was_protected_against",
        Labels::Codes(T13),
        "the same as our_was_protected_against for opponent hidden pieces ({})",
        |v, out| v.history_codes(out, Side::Opponent, T13, |h| h.was_protected_against),
    ),
    group!(
        "start_square",
        Labels::StartSquares,
        "1 where the piece standing on the square started on cell {} (acting player's frame; `none`: no piece)",
        |v, out| {
            for sq in Square::all() {
                let plane = match v.state.board()[sq] {
                    Some(p) => v.cell(p.origin),
                    None => Square::COUNT,
                };
                set(out, plane, v.cell(sq), 1.0);
            }
        },
    ),
    group!(
        "move",
        Labels::Moves,
        "the move {} plies ago: -1 on its source, +1 on its destination (0 before the game began)",
        |v, out| {
            for (i, record) in v.state.history().iter().rev().take(MOVE_HISTORY).enumerate() {
                let plane = MOVE_HISTORY - 1 - i;
                set(out, plane, v.cell(record.mv.from), -1.0);
                set(out, plane, v.cell(record.mv.to), 1.0);
            }
        },
    ),
];

// The writers of the groups that both layouts share.

fn write_own(v: &View, out: &mut impl Planes) {
    for (cell, p) in v.pieces(Side::Own) {
        set(out, p.kind.index(), cell, 1.0);
    }
}

fn write_empty(v: &View, out: &mut impl Planes) {
    const BOARD: u128 = (1 << Square::COUNT) - 1;
    let board = v.state.board();
    let occupied = board.occupied_by(Color::Red) | board.occupied_by(Color::Blue);
    for sq in squares_of(BOARD & !occupied & !LAKE_MASK) {
        set(out, 0, v.cell(sq), 1.0);
    }
}

fn write_own_moved(v: &View, out: &mut impl Planes) {
    v.mark(out, Side::Own, |p| p.moved);
}

fn write_ply_fraction(v: &View, out: &mut impl Planes) {
    fill(out, 0, v.state.ply() as f32 / v.state.rules().max_plies as f32);
}

fn write_battleless_fraction(v: &View, out: &mut impl Planes) {
    fill(out, 0, v.state.battleless() as f32 / v.state.rules().max_battleless_plies as f32);
}

/// Plane `k`, cell `cell` of a group's planes.
#[inline(always)]
fn set(out: &mut impl Planes, k: usize, cell: usize, value: f32) {
    out.set(k * Square::COUNT + cell, value);
}

/// Every cell of a group's plane `k`.
fn fill(out: &mut impl Planes, k: usize, value: f32) {
    out.fill(k * Square::COUNT..(k + 1) * Square::COUNT, value);
}

/// Where a group's writer puts its values. Either way a writer reaches
/// only its group's values (an index past them panics, as a slice would).
trait Planes {
    /// Value `i` of the group.
    fn set(&mut self, i: usize, value: f32);

    /// Values `range` of the group.
    fn fill(&mut self, range: Range<usize>, value: f32);

    /// Cell `cell` of several planes: (plane, value) each, values not 0.
    fn set_planes(&mut self, cell: usize, planes: &[(usize, f32)]) {
        for &(k, value) in planes {
            self.set(k * Square::COUNT + cell, value);
        }
    }
}

/// The group's own slice of a zeroed dense observation.
struct DensePlanes<'o>(&'o mut [f32]);

impl Planes for DensePlanes<'_> {
    #[inline(always)]
    fn set(&mut self, i: usize, value: f32) {
        self.0[i] = value;
    }

    fn fill(&mut self, range: Range<usize>, value: f32) {
        self.0[range].fill(value);
    }
}

/// The entries of a sparse observation; the group's values are
/// `base..base + len` of the observation.
struct SparsePlanes<'o> {
    out: &'o mut SparseObservation,
    base: usize,
    len: usize,
}

impl Planes for SparsePlanes<'_> {
    #[inline(always)]
    fn set(&mut self, i: usize, value: f32) {
        assert!(i < self.len, "value {i} is outside its group of {}", self.len);
        self.out.set(self.base + i, value);
    }

    fn fill(&mut self, range: Range<usize>, value: f32) {
        assert!(range.end <= self.len, "values {range:?} are outside their group of {}", self.len);
        self.out.fill(self.base + range.start..self.base + range.end, value);
    }

    fn set_planes(&mut self, cell: usize, planes: &[(usize, f32)]) {
        let i = |k: usize| k * Square::COUNT + cell;
        assert!(planes.iter().all(|&(k, _)| i(k) < self.len), "a value is outside its group of {}", self.len);
        // One reservation for the lot: these are most of the full layout's values.
        let base = self.base;
        self.out.entries.extend(planes.iter().map(|&(k, value)| ((base + i(k)) as u32, value)));
    }
}

/// One observation stored sparse: the values a layout's writers set, by
/// index (`plane * 100 + cell`), each index once, in the order written;
/// every value not listed is 0. It holds exactly what the dense
/// observation holds (`to_dense`), without the dense buffer's 4 bytes for
/// each of the full layout's 48,800 values, most of them 0: a batch of
/// these is what the full layout costs to write and to move when only its
/// non-zero values travel (to an accelerator that scatters them, say).
/// `Encoder::write_sparse` fills it; reuse it to avoid allocating.
#[derive(Clone, Debug, Default)]
pub struct SparseObservation {
    /// (index, value), in the order written: one vector, so that each value
    /// costs one push.
    entries: Vec<(u32, f32)>,
    /// The layout's number of values.
    size: usize,
}

impl SparseObservation {
    pub fn new() -> SparseObservation {
        SparseObservation::default()
    }

    /// The values held as (index, value), each index once.
    pub fn entries(&self) -> &[(u32, f32)] {
        &self.entries
    }

    /// The number of values the dense observation has (the layout's size).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The dense observation, written into `out` (`size()` floats).
    pub fn to_dense(&self, out: &mut [f32]) -> Result<(), Error> {
        if out.len() != self.size {
            return Err(Error::BufferLength { what: "observation", found: out.len(), expected: self.size });
        }
        out.fill(0.0);
        for &(i, value) in &self.entries {
            out[i as usize] = value;
        }
        Ok(())
    }

    /// Forgets the last observation and starts one of `size` values.
    fn begin(&mut self, size: usize) {
        self.entries.clear();
        self.size = size;
    }

    /// Sets value `i`, which no writer sets twice (`View::death_causes`
    /// sees to the one group that could); a 0 stays implicit.
    #[inline(always)]
    fn set(&mut self, i: usize, value: f32) {
        if value != 0.0 {
            self.entries.push((i as u32, value));
        }
    }

    /// Sets values `range` to `value`, as `set` does each.
    fn fill(&mut self, range: Range<usize>, value: f32) {
        if value != 0.0 {
            self.entries.extend(range.map(|i| (i as u32, value)));
        }
    }
}

/// Whose pieces, from the viewer's side.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Side {
    Own,
    Opponent,
}

/// What the writers read: one state seen by one side, with the counting
/// priors computed once, on first use.
struct View<'a> {
    state: &'a State,
    viewer: Color,
    history: Option<&'a HistoryFeatures>,
    /// Each side's pieces with their cells in the viewer's frame (own,
    /// opponent), gathered once: most groups walk one side's pieces.
    pieces: [Vec<(usize, Piece)>; 2],
    /// Each side's hidden pieces that have any interaction history, with
    /// their cells and histories (own, opponent), gathered once: the 14
    /// history groups walk these alone, and most pieces have none.
    storied: OnceCell<[Vec<(usize, PieceHistory)>; 2]>,
    /// Each side's deaths (own, opponent), sorted out once for the four
    /// death groups (the colours of a game's deaths alternate unpredictably).
    deaths: OnceCell<[Vec<&'a Death>; 2]>,
    /// The viewer's prior about the opponent's hidden pieces.
    prior: OnceCell<CountingPrior>,
    /// The opponent's prior about the viewer's hidden pieces.
    opponent_prior: OnceCell<CountingPrior>,
}

impl<'a> View<'a> {
    /// The cell of an absolute square in the viewer's frame.
    fn cell(&self, sq: Square) -> usize {
        sq.in_frame(self.viewer).index()
    }

    fn new(state: &'a State, viewer: Color, history: Option<&'a HistoryFeatures>) -> View<'a> {
        let mut pieces = [Vec::with_capacity(40), Vec::with_capacity(40)];
        for (sq, p) in state.board().pieces() {
            let side = if p.color == viewer { Side::Own } else { Side::Opponent };
            pieces[side as usize].push((sq.in_frame(viewer).index(), p));
        }
        View {
            state,
            viewer,
            history,
            pieces,
            storied: OnceCell::new(),
            deaths: OnceCell::new(),
            prior: OnceCell::new(),
            opponent_prior: OnceCell::new(),
        }
    }

    /// One side's pieces with their cells in the viewer's frame.
    fn pieces(&self, side: Side) -> impl Iterator<Item = (usize, Piece)> + '_ {
        self.pieces[side as usize].iter().copied()
    }

    /// 1 (on the group's one plane) where a piece of `side` for which `which`
    /// holds stands.
    fn mark(&self, out: &mut impl Planes, side: Side, which: fn(&Piece) -> bool) {
        for (cell, _) in self.pieces(side).filter(|(_, p)| which(p)) {
            set(out, 0, cell, 1.0);
        }
    }

    /// On each piece of `side`, by type: one-hot if it is revealed, else
    /// `prior`'s distribution for it (the prior of the side that does not
    /// own it).
    fn type_probabilities(&self, out: &mut impl Planes, side: Side, prior: &CountingPrior) {
        // The buffer is zeroed: only the types a piece may be, listed once
        // for hidden pieces that have moved and once for those that have not.
        let may_be = [prior.unmoved(), prior.moved()].map(|distribution| {
            let mut types = [(0, 0.0); PieceType::COUNT];
            let mut n = 0;
            for (t, &prob) in distribution.iter().enumerate().filter(|(_, &prob)| prob != 0.0) {
                types[n] = (t, prob);
                n += 1;
            }
            (types, n)
        });
        for (cell, p) in self.pieces(side) {
            if p.revealed {
                set(out, p.kind.index(), cell, 1.0);
            } else {
                let (types, n) = &may_be[p.moved as usize];
                out.set_planes(cell, &types[..*n]);
            }
        }
    }

    fn prior(&self) -> &CountingPrior {
        self.prior.get_or_init(|| self.prior_about(Side::Opponent))
    }

    fn opponent_prior(&self) -> &CountingPrior {
        self.opponent_prior.get_or_init(|| self.prior_about(Side::Own))
    }

    /// `CountingPrior::new` about `side`'s pieces, from the pieces gathered.
    fn prior_about(&self, side: Side) -> CountingPrior {
        CountingPrior::from_pieces(self.state.rules().piece_set.counts(), self.pieces(side).map(|(_, p)| p))
    }

    fn history(&self) -> &HistoryFeatures {
        self.history.expect("the encoder checks that a layout that needs histories has them")
    }

    /// `side`'s hidden pieces that have any interaction history.
    fn storied(&self, side: Side) -> &[(usize, PieceHistory)] {
        &self.storied.get_or_init(|| {
            let history = self.history();
            [Side::Own, Side::Opponent].map(|side| {
                self.pieces(side)
                    .filter(|(_, p)| !p.revealed)
                    .map(|(cell, p)| (cell, *history.of(&p)))
                    .filter(|(_, h)| *h != PieceHistory::default())
                    .collect()
            })
        })[side as usize]
    }

    /// On each hidden piece of `side`, the codes of one of its interaction
    /// histories. Interaction histories are shown only for pieces still
    /// hidden: a revealed piece's type says more than its history.
    fn history_codes(&self, out: &mut impl Planes, side: Side, codes: &[u8], set_of: fn(&PieceHistory) -> u16) {
        // `codes` ascend, so a code's plane is the number of the group's
        // codes below it: walk the set bits alone.
        let group: u16 = codes.iter().fold(0, |set, &code| set | 1 << code);
        for (cell, h) in self.storied(side) {
            let (cell, mut seen) = (*cell, set_of(h) & group);
            while seen != 0 {
                let code = seen.trailing_zeros();
                set(out, (group & ((1 << code) - 1)).count_ones() as usize, cell, 1.0);
                seen &= seen - 1;
            }
        }
    }

    /// `side`'s deaths.
    fn deaths(&self, side: Side) -> &[&'a Death] {
        &self.deaths.get_or_init(|| {
            let mut deaths = [Vec::new(), Vec::new()];
            for death in self.state.deaths() {
                deaths[(death.piece.color != self.viewer) as usize].push(death);
            }
            deaths
        })[side as usize]
    }

    /// `side`'s dead pieces by type (T11B) on their starting squares.
    fn dead(&self, out: &mut impl Planes, side: Side) {
        for death in self.deaths(side) {
            let code = death.piece.kind.index() as u8;
            if let Some(k) = T11B.iter().position(|&c| c == code) {
                set(out, k, self.cell(death.piece.origin), 1.0);
            }
        }
    }

    /// `side`'s deaths of movable pieces by cause and type, on the square of the battle.
    fn death_causes(&self, out: &mut impl Planes, side: Side) {
        // Two pieces of one type can die by one cause on one square: each
        // value is set once all the same, since a sparse observation lists
        // what is set. One bit per value of the group.
        let mut done = [0u64; (DeathCause::COUNT * T10.len() * Square::COUNT).div_ceil(64)];
        for death in self.deaths(side) {
            let code = death.piece.kind.index() as u8;
            if let Some(t) = T10.iter().position(|&c| c == code) {
                let (plane, cell) = (DeathCause::of(death) as usize * T10.len() + t, self.cell(death.square));
                let i = plane * Square::COUNT + cell;
                if done[i / 64] & 1 << (i % 64) == 0 {
                    done[i / 64] |= 1 << (i % 64);
                    set(out, plane, cell, 1.0);
                }
            }
        }
    }
}

/// Writes observations of one state into a caller-owned slice.
pub struct Encoder<'a> {
    state: &'a State,
    viewer: Color,
    /// Histories are needed only by layouts that show them (the full one).
    history: Option<&'a HistoryFeatures>,
}

impl<'a> Encoder<'a> {
    /// An encoder for `viewer`'s observation of `state`. The full layout
    /// needs the game's piece histories.
    pub fn new(state: &'a State, viewer: Color, history: Option<&'a HistoryFeatures>) -> Encoder<'a> {
        Encoder { state, viewer, history }
    }

    /// Writes the observation of `layout` into `out` (`layout.size()` floats):
    /// each row of the layout's table writes its own planes, in table order.
    pub fn write(&self, layout: Layout, out: &mut [f32]) -> Result<(), Error> {
        if out.len() != layout.size() {
            return Err(Error::BufferLength { what: "observation", found: out.len(), expected: layout.size() });
        }
        self.check_history(layout)?;
        out.fill(0.0);
        let view = View::new(self.state, self.viewer, self.history);
        let mut rest = out;
        for g in layout.table().groups {
            let (planes, tail) = rest.split_at_mut(g.labels.len() * Square::COUNT);
            (g.dense)(&view, &mut DensePlanes(planes));
            rest = tail;
        }
        Ok(())
    }

    /// Writes the observation of `layout` into `out` sparse: the same values
    /// as `write`, without a dense buffer to clear and fill.
    pub fn write_sparse(&self, layout: Layout, out: &mut SparseObservation) -> Result<(), Error> {
        self.check_history(layout)?;
        out.begin(layout.size());
        let view = View::new(self.state, self.viewer, self.history);
        let mut base = 0;
        for g in layout.table().groups {
            let len = g.labels.len() * Square::COUNT;
            (g.sparse)(&view, &mut SparsePlanes { out: &mut *out, base, len });
            base += len;
        }
        Ok(())
    }

    fn check_history(&self, layout: Layout) -> Result<(), Error> {
        if layout.needs_history() && self.history.is_none() {
            return Err(Error::Layout(format!(
                "the {layout} layout needs the game's piece histories (HistoryFeatures)"
            )));
        }
        Ok(())
    }
}

/// The observation of `state` for the side to move (after the end: the side
/// that would have moved next), in a new vector. For batches use `VecEnv`, which writes into
/// caller-owned buffers.
pub fn observe(state: &State, layout: Layout) -> Vec<f32> {
    let viewer = state.to_move();
    let history = layout.needs_history().then(|| HistoryFeatures::from_state(state));
    let mut out = vec![0.0; layout.size()];
    Encoder::new(state, viewer, history.as_ref()).write(layout, &mut out).expect("the buffer has the layout's size");
    out
}

/// The plane tables of both layouts as Markdown: the generated part of
/// docs/OBSERVATIONS.md.
pub fn plane_tables_markdown() -> String {
    let mut text = String::new();
    for layout in Layout::ALL {
        text.push_str(&format!("### {} layout: {} planes\n\n", layout.name(), layout.channels()));
        text.push_str(&format!("Identity `{}` (`Layout::identity`).\n\n", layout.identity()));
        text.push_str("| index | name | meaning |\n|---|---|---|\n");
        for p in layout.planes() {
            text.push_str(&format!("| {} | `{}` | {} |\n", p.index, p.name, p.meaning));
        }
        text.push('\n');
    }
    text
}
