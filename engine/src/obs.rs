//! Observation planes: the 58-plane compact set and the 488-plane full set.
//!
//! Each layout is one table of plane groups (`COMPACT`, `FULL`). The encoder
//! finds every group's first plane in the table, and docs/OBSERVATIONS.md is
//! generated from the same table (a test fails if the committed file
//! differs), so the code and the docs cannot drift.
//!
//! All planes are 10x10 f32, cell-major (`plane * 100 + cell`), in the
//! acting player's frame: Blue's view is rotated 180 degrees, so each side
//! sees its home rows at the bottom (cell 0 = its own back-left corner). An
//! observation is a function of the acting player's information only: the
//! type of a hidden opponent piece never enters it.

use std::fmt;

use crate::belief::CountingPrior;
use crate::error::Error;
use crate::history::{DeathCause, HistoryFeatures, PieceHistory, EMPTY, UNKNOWN};
use crate::piece::{Color, PieceType};
use crate::square::Square;
use crate::state::State;

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

impl Layout {
    pub const ALL: [Layout; 2] = [Layout::Compact, Layout::Full];

    pub fn name(self) -> &'static str {
        match self {
            Layout::Compact => "compact",
            Layout::Full => "full",
        }
    }

    pub fn from_name(name: &str) -> Result<Layout, Error> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == name)
            .ok_or_else(|| Error::Layout(format!("unknown observation layout `{name}` (expected compact or full)")))
    }

    fn groups(self) -> &'static [Group] {
        match self {
            Layout::Compact => COMPACT,
            Layout::Full => FULL,
        }
    }

    /// Planes (channels) per observation.
    pub fn channels(self) -> usize {
        self.groups().iter().map(|g| g.labels.len()).sum()
    }

    /// f32 values per observation.
    pub fn size(self) -> usize {
        self.channels() * Square::COUNT
    }

    /// The first plane of a group.
    fn offset(self, id: G) -> usize {
        let mut offset = 0;
        for g in self.groups() {
            if g.id == id {
                return offset;
            }
            offset += g.labels.len();
        }
        unreachable!("group {id:?} is not in the {} layout", self.name())
    }

    /// The layout with this many planes.
    pub fn from_channels(channels: usize) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.channels() == channels)
    }

    /// The 12 planes (one per type, `PieceType::index` order) that hold the
    /// acting player's counting prior on each hidden opponent piece: the
    /// network's belief head refines them.
    pub fn prior_planes(self) -> std::ops::Range<usize> {
        let start = self.offset(match self {
            Layout::Compact => G::Belief,
            Layout::Full => G::OpponentProbability,
        });
        start..start + PieceType::COUNT
    }

    /// Every plane with its index, name and meaning.
    pub fn planes(self) -> Vec<PlaneInfo> {
        let mut planes = Vec::with_capacity(self.channels());
        for g in self.groups() {
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
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// One plane of a layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaneInfo {
    pub index: usize,
    pub name: String,
    pub meaning: String,
}

/// The plane groups. Each group's planes are contiguous.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum G {
    Own,
    RevealedOpponent,
    HiddenUnmoved,
    HiddenMoved,
    Empty,
    Lakes,
    Belief,
    OwnMoved,
    OwnRevealed,
    PlyFraction,
    BattlelessFraction,
    LastSource,
    LastDestination,
    OwnRemaining,
    OpponentProbability,
    OwnSeenByOpponent,
    OwnHidden,
    OpponentHidden,
    OpponentMoved,
    WeThreatened,
    WeEvaded,
    WeActivelyAdjacent,
    TheyThreatened,
    TheyEvaded,
    TheyActivelyAdjacent,
    OwnDead,
    OpponentDead,
    OwnDeathCause,
    OpponentDeathCause,
    OurProtected,
    OurProtectedAgainst,
    OurWasProtectedBy,
    OurWasProtectedAgainst,
    TheirProtected,
    TheirProtectedAgainst,
    TheirWasProtectedBy,
    TheirWasProtectedAgainst,
    StartSquare,
    LastMoves,
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
    fn len(self) -> usize {
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

struct Group {
    id: G,
    name: &'static str,
    labels: Labels,
    /// `{}` stands for the plane's label.
    meaning: &'static str,
}

const T12: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const T10: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const T11U: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, UNKNOWN];
const T11B: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11];
const T13: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, EMPTY, UNKNOWN];

const fn group(id: G, name: &'static str, labels: Labels, meaning: &'static str) -> Group {
    Group { id, name, labels, meaning }
}

/// The compact set, 58 planes.
const COMPACT: &[Group] = &[
    group(G::Own, "own", Labels::Codes(T12), "1 where an own {} stands"),
    group(G::RevealedOpponent, "revealed_opponent", Labels::Codes(T12), "1 where a revealed opponent {} stands"),
    group(G::HiddenUnmoved, "hidden_unmoved", Labels::One, "1 where a hidden opponent piece that never moved stands"),
    group(G::HiddenMoved, "hidden_moved", Labels::One, "1 where a hidden opponent piece that has moved stands"),
    group(G::Empty, "empty", Labels::One, "1 on empty squares (not lakes)"),
    group(G::Lakes, "lake", Labels::One, "1 on the eight lake squares"),
    group(
        G::Belief,
        "belief",
        Labels::Codes(T12),
        "counting-prior probability that the hidden opponent piece on the square is a {} (0 elsewhere)",
    ),
    group(G::OwnMoved, "own_moved", Labels::One, "1 where an own piece that has moved stands"),
    group(G::OwnRevealed, "own_revealed", Labels::One, "1 where an own piece the opponent has seen stands"),
    group(G::PlyFraction, "ply_fraction", Labels::One, "plies played / total-ply cap, on every square"),
    group(
        G::BattlelessFraction,
        "battleless_fraction",
        Labels::One,
        "plies since the last battle / battleless cap, on every square",
    ),
    group(G::LastSource, "last_move_source", Labels::One, "1 on the source square of the last ply's move"),
    group(
        G::LastDestination,
        "last_move_destination",
        Labels::One,
        "1 on the destination square of the last ply's move",
    ),
    group(
        G::OwnRemaining,
        "own_remaining",
        Labels::Codes(T12),
        "own {} pieces still on the board / own {} pieces at the start (0 if the army has none), on every square",
    ),
];

/// The full set, 488 planes (the Ataraxos numbering).
const FULL: &[Group] = &[
    group(G::Own, "own", Labels::Codes(T12), "1 where an own {} stands"),
    group(
        G::OpponentProbability,
        "opponent",
        Labels::Codes(T12),
        "probability that the opponent piece on the square is a {}: one-hot if revealed, the counting prior if hidden",
    ),
    group(
        G::OwnSeenByOpponent,
        "own_seen_by_opponent",
        Labels::Codes(T12),
        "what the opponent can infer: probability, under its counting prior, that the own piece on the square is a {}",
    ),
    group(G::OwnHidden, "own_hidden", Labels::One, "1 where an own piece the opponent has not seen stands"),
    group(G::OpponentHidden, "opponent_hidden", Labels::One, "1 where a hidden opponent piece stands"),
    group(G::Empty, "empty", Labels::One, "1 on empty squares (not lakes)"),
    group(G::OwnMoved, "own_moved", Labels::One, "1 where an own piece that has moved stands"),
    group(G::OpponentMoved, "opponent_moved", Labels::One, "1 where an opponent piece that has moved stands"),
    group(G::PlyFraction, "ply_fraction", Labels::One, "plies played / total-ply cap, on every square"),
    group(
        G::BattlelessFraction,
        "battleless_fraction",
        Labels::One,
        "plies since the last battle / battleless cap, on every square",
    ),
    group(
        G::WeThreatened,
        "we_threatened",
        Labels::Codes(T11U),
        "on each own hidden piece: 1 if it once ended a move next to an opponent piece seen as {}",
    ),
    group(
        G::WeEvaded,
        "we_evaded",
        Labels::Codes(T11U),
        "on each own hidden piece: 1 if it once moved away from an opponent piece seen as {} that had just moved next to it",
    ),
    group(
        G::WeActivelyAdjacent,
        "we_actively_adjacent",
        Labels::Codes(T11U),
        "on each own hidden piece: 1 if it once stood, during our turn, next to an opponent piece seen as {}",
    ),
    group(G::TheyThreatened, "they_threatened", Labels::Codes(T11U), "the same as we_threatened for opponent hidden pieces (own pieces as the opponent saw them: {})"),
    group(G::TheyEvaded, "they_evaded", Labels::Codes(T11U), "the same as we_evaded for opponent hidden pieces ({})"),
    group(
        G::TheyActivelyAdjacent,
        "they_actively_adjacent",
        Labels::Codes(T11U),
        "the same as we_actively_adjacent for opponent hidden pieces ({})",
    ),
    group(G::OwnDead, "own_dead", Labels::Codes(T11B), "1 on the starting square of each own dead {}"),
    group(G::OpponentDead, "opponent_dead", Labels::Codes(T11B), "1 on the starting square of each opponent dead {}"),
    group(
        G::OwnDeathCause,
        "own_death",
        Labels::Causes,
        "1 on the square where an own piece died, by cause (0-5, see the death causes) and type: {}",
    ),
    group(G::OpponentDeathCause, "opponent_death", Labels::Causes, "the same for opponent pieces: {}"),
    group(G::OurProtected, "our_protected", Labels::Codes(T13), "on each own hidden piece: 1 if it once protected a {}"),
    group(
        G::OurProtectedAgainst,
        "our_protected_against",
        Labels::Codes(T13),
        "on each own hidden piece: 1 if it once protected something against a {}",
    ),
    group(
        G::OurWasProtectedBy,
        "our_was_protected_by",
        Labels::Codes(T13),
        "on each own hidden piece: 1 if it was once protected by a {}",
    ),
    group(
        G::OurWasProtectedAgainst,
        "our_was_protected_against",
        Labels::Codes(T13),
        "on each own hidden piece: 1 if it was once protected against a {}",
    ),
    group(G::TheirProtected, "their_protected", Labels::Codes(T13), "the same as our_protected for opponent hidden pieces ({})"),
    group(
        G::TheirProtectedAgainst,
        "their_protected_against",
        Labels::Codes(T13),
        "the same as our_protected_against for opponent hidden pieces ({})",
    ),
    group(
        G::TheirWasProtectedBy,
        "their_was_protected_by",
        Labels::Codes(T13),
        "the same as our_was_protected_by for opponent hidden pieces ({})",
    ),
    group(
        G::TheirWasProtectedAgainst,
        "their_was_protected_against",
        Labels::Codes(T13),
        "the same as our_was_protected_against for opponent hidden pieces ({})",
    ),
    group(
        G::StartSquare,
        "start_square",
        Labels::StartSquares,
        "1 where the piece standing on the square started on cell {} (acting player's frame; `none`: no piece)",
    ),
    group(
        G::LastMoves,
        "move",
        Labels::Moves,
        "the move {} plies ago: -1 on its source, +1 on its destination (0 before the game began)",
    ),
];

/// Writes observations of one state into a caller-owned slice.
pub struct Encoder<'a> {
    state: &'a State,
    viewer: Color,
    /// Histories are needed only by the full layout.
    history: Option<&'a HistoryFeatures>,
}

impl<'a> Encoder<'a> {
    /// An encoder for `viewer`'s observation of `state`. The full layout
    /// needs the game's piece histories.
    pub fn new(state: &'a State, viewer: Color, history: Option<&'a HistoryFeatures>) -> Encoder<'a> {
        Encoder { state, viewer, history }
    }

    /// Writes the observation of `layout` into `out` (`layout.size()` floats).
    pub fn write(&self, layout: Layout, out: &mut [f32]) -> Result<(), Error> {
        if out.len() != layout.size() {
            return Err(Error::Layout(format!(
                "a {layout} observation needs a buffer of {} floats ({} planes x 100), got {}",
                layout.size(),
                layout.channels(),
                out.len()
            )));
        }
        out.fill(0.0);
        match layout {
            Layout::Compact => self.compact(out),
            Layout::Full => {
                let history = self.history.ok_or_else(|| {
                    Error::Layout("the full layout needs the game's piece histories (HistoryFeatures)".into())
                })?;
                self.full(history, out)
            }
        }
        Ok(())
    }

    /// The cell of an absolute square in the viewer's frame.
    fn cell(&self, sq: Square) -> usize {
        sq.in_frame(self.viewer).index()
    }

    fn fill_plane(out: &mut [f32], plane: usize, value: f32) {
        out[plane * Square::COUNT..(plane + 1) * Square::COUNT].fill(value);
    }

    fn counters(&self, layout: Layout, out: &mut [f32]) {
        let rules = self.state.rules();
        let ply = self.state.ply() as f32 / rules.max_plies as f32;
        let battleless = self.state.battleless() as f32 / rules.max_battleless_plies as f32;
        Encoder::fill_plane(out, layout.offset(G::PlyFraction), ply);
        Encoder::fill_plane(out, layout.offset(G::BattlelessFraction), battleless);
    }

    fn compact(&self, out: &mut [f32]) {
        let l = Layout::Compact;
        let at = |group: G, k: usize, cell: usize| (l.offset(group) + k) * Square::COUNT + cell;
        let prior = CountingPrior::new(self.state, self.viewer);
        for sq in Square::all() {
            let cell = self.cell(sq);
            match self.state.board()[sq] {
                None if sq.is_lake() => out[at(G::Lakes, 0, cell)] = 1.0,
                None => out[at(G::Empty, 0, cell)] = 1.0,
                Some(p) if p.color == self.viewer => {
                    out[at(G::Own, p.kind.index(), cell)] = 1.0;
                    if p.moved {
                        out[at(G::OwnMoved, 0, cell)] = 1.0;
                    }
                    if p.revealed {
                        out[at(G::OwnRevealed, 0, cell)] = 1.0;
                    }
                }
                Some(p) if p.revealed => out[at(G::RevealedOpponent, p.kind.index(), cell)] = 1.0,
                Some(p) => {
                    out[at(if p.moved { G::HiddenMoved } else { G::HiddenUnmoved }, 0, cell)] = 1.0;
                    for (t, &prob) in prior.of(&p).iter().enumerate() {
                        out[at(G::Belief, t, cell)] = prob;
                    }
                }
            }
        }
        self.counters(l, out);
        if let Some(last) = self.state.history().last() {
            out[at(G::LastSource, 0, self.cell(last.mv.from))] = 1.0;
            out[at(G::LastDestination, 0, self.cell(last.mv.to))] = 1.0;
        }
        let army = self.state.rules().piece_set.counts();
        let on_board = self.state.board().counts(self.viewer);
        for t in 0..PieceType::COUNT {
            let fraction = if army[t] == 0 { 0.0 } else { on_board[t] as f32 / army[t] as f32 };
            Encoder::fill_plane(out, l.offset(G::OwnRemaining) + t, fraction);
        }
    }

    fn full(&self, history: &HistoryFeatures, out: &mut [f32]) {
        let l = Layout::Full;
        let at = |group: G, k: usize, cell: usize| (l.offset(group) + k) * Square::COUNT + cell;
        let my_prior = CountingPrior::new(self.state, self.viewer);
        let their_prior = CountingPrior::new(self.state, self.viewer.opponent());
        let set_codes = |out: &mut [f32], group: G, codes: &[u8], set: u16, cell: usize| {
            for (k, &code) in codes.iter().enumerate() {
                if PieceHistory::has(set, code) {
                    out[at(group, k, cell)] = 1.0;
                }
            }
        };
        for sq in Square::all() {
            let cell = self.cell(sq);
            let Some(p) = self.state.board()[sq] else {
                if !sq.is_lake() {
                    out[at(G::Empty, 0, cell)] = 1.0;
                }
                out[at(G::StartSquare, Square::COUNT, cell)] = 1.0;
                continue;
            };
            out[at(G::StartSquare, self.cell(p.origin), cell)] = 1.0;
            let mine = p.color == self.viewer;
            if mine {
                out[at(G::Own, p.kind.index(), cell)] = 1.0;
                if p.revealed {
                    out[at(G::OwnSeenByOpponent, p.kind.index(), cell)] = 1.0;
                } else {
                    for (t, &prob) in their_prior.of(&p).iter().enumerate() {
                        out[at(G::OwnSeenByOpponent, t, cell)] = prob;
                    }
                    out[at(G::OwnHidden, 0, cell)] = 1.0;
                }
                if p.moved {
                    out[at(G::OwnMoved, 0, cell)] = 1.0;
                }
            } else {
                if p.revealed {
                    out[at(G::OpponentProbability, p.kind.index(), cell)] = 1.0;
                } else {
                    for (t, &prob) in my_prior.of(&p).iter().enumerate() {
                        out[at(G::OpponentProbability, t, cell)] = prob;
                    }
                    out[at(G::OpponentHidden, 0, cell)] = 1.0;
                }
                if p.moved {
                    out[at(G::OpponentMoved, 0, cell)] = 1.0;
                }
            }
            // Interaction histories are shown only for pieces still hidden:
            // a revealed piece's type says more than its history.
            if !p.revealed {
                let h = history.of(&p);
                let (threat, evade, adjacent, groups) = if mine {
                    (
                        G::WeThreatened,
                        G::WeEvaded,
                        G::WeActivelyAdjacent,
                        [G::OurProtected, G::OurProtectedAgainst, G::OurWasProtectedBy, G::OurWasProtectedAgainst],
                    )
                } else {
                    (
                        G::TheyThreatened,
                        G::TheyEvaded,
                        G::TheyActivelyAdjacent,
                        [
                            G::TheirProtected,
                            G::TheirProtectedAgainst,
                            G::TheirWasProtectedBy,
                            G::TheirWasProtectedAgainst,
                        ],
                    )
                };
                set_codes(out, threat, T11U, h.threatened, cell);
                set_codes(out, evade, T11U, h.evaded, cell);
                set_codes(out, adjacent, T11U, h.actively_adjacent, cell);
                let sets = [h.protected, h.protected_against, h.was_protected_by, h.was_protected_against];
                for (group, set) in groups.into_iter().zip(sets) {
                    set_codes(out, group, T13, set, cell);
                }
            }
        }
        self.counters(l, out);
        for death in self.state.deaths() {
            let mine = death.piece.color == self.viewer;
            let code = death.piece.kind.index() as u8;
            if let Some(k) = T11B.iter().position(|&c| c == code) {
                let group = if mine { G::OwnDead } else { G::OpponentDead };
                out[at(group, k, self.cell(death.piece.origin))] = 1.0;
            }
            if let Some(t) = T10.iter().position(|&c| c == code) {
                let group = if mine { G::OwnDeathCause } else { G::OpponentDeathCause };
                let cause = DeathCause::of(death) as usize;
                out[at(group, cause * T10.len() + t, self.cell(death.square))] = 1.0;
            }
        }
        for (i, record) in self.state.history().iter().rev().take(MOVE_HISTORY).enumerate() {
            let plane = MOVE_HISTORY - 1 - i;
            out[at(G::LastMoves, plane, self.cell(record.mv.from))] = -1.0;
            out[at(G::LastMoves, plane, self.cell(record.mv.to))] = 1.0;
        }
    }
}

/// The observation of `state` for the side to move (after the end: the side
/// that would have moved next), in a new vector. For batches use `VecEnv`, which writes into
/// caller-owned buffers.
pub fn observe(state: &State, layout: Layout) -> Vec<f32> {
    let viewer = state.to_move();
    let history = (layout == Layout::Full).then(|| HistoryFeatures::from_state(state));
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
        text.push_str("| index | name | meaning |\n|---|---|---|\n");
        for p in layout.planes() {
            text.push_str(&format!("| {} | `{}` | {} |\n", p.index, p.name, p.meaning));
        }
        text.push('\n');
    }
    text
}
