//! Move generation by the movement rules (the two-square and chasing rules
//! are applied on top, in `State`).
//!
//! A piece steps one square orthogonally onto an empty square or an enemy
//! piece, never into a lake, off the board or onto an own piece. A Scout runs
//! any distance over empty squares in a straight line and may strike the
//! first enemy piece it reaches. Bombs and the Flag never move.
//!
//! One-step pieces are handled a direction at a time on bit masks (bit =
//! cell): shifting the mask of movers by one step gives all their targets at
//! once. `Mobility` holds those masks and each Scout's run lengths, which is
//! enough to count the moves, list them, or pick the k-th without listing.

use crate::action::Move;
use crate::piece::Color;
use crate::position::{squares_of, Board};
use crate::square::{Direction, Square, LAKE_MASK};

/// The 92 squares a piece may stand on.
const PLAYABLE: u128 = ((1u128 << 100) - 1) & !LAKE_MASK;
const RANK_1: u128 = (1 << 10) - 1;
const RANK_10: u128 = RANK_1 << 90;
const FILE_A: u128 = {
    let mut mask = 0;
    let mut row = 0;
    while row < 10 {
        mask |= 1u128 << (row * 10);
        row += 1;
    }
    mask
};
const FILE_J: u128 = FILE_A << 9;

/// The cell offset from a step's target back to its source, per direction.
const STEP_BACK: [i8; 4] = [-10, 10, -1, 1];

/// Most Scouts one side can have (classic army).
const MAX_SCOUTS: usize = 8;

/// Every move one side could make by the movement rules, in compact form.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Mobility {
    /// For each direction (north, south, east, west): the mask of target
    /// squares of one-step pieces.
    steps: [u128; 4],
    /// Each Scout with the number of moves it has in each direction.
    scouts: [(Square, [u8; 4]); MAX_SCOUTS],
    scout_count: usize,
    total: usize,
}

impl Mobility {
    pub(crate) fn new(board: &Board, player: Color) -> Mobility {
        let own = board.occupied_by(player);
        let movers = board.movers(player);
        let steppers = movers & !board.scouts();
        let open = PLAYABLE & !own;
        let steps = [
            ((steppers & !RANK_10) << 10) & open,
            ((steppers & !RANK_1) >> 10) & open,
            ((steppers & !FILE_J) << 1) & open,
            ((steppers & !FILE_A) >> 1) & open,
        ];
        let mut total = steps.iter().map(|m| m.count_ones() as usize).sum::<usize>();
        let mut scouts = [(Square::new(0).expect("a1 is a square"), [0u8; 4]); MAX_SCOUTS];
        let mut scout_count = 0;
        for from in squares_of(movers & board.scouts()).take(MAX_SCOUTS) {
            let runs = [
                scout_run(board, player, from, Direction::North),
                scout_run(board, player, from, Direction::South),
                scout_run(board, player, from, Direction::East),
                scout_run(board, player, from, Direction::West),
            ];
            total += runs.iter().map(|&r| r as usize).sum::<usize>();
            scouts[scout_count] = (from, runs);
            scout_count += 1;
        }
        Mobility { steps, scouts, scout_count, total }
    }

    /// How many moves there are.
    pub(crate) fn count(&self) -> usize {
        self.total
    }

    /// Appends every move: one-step moves by direction then target cell,
    /// then each Scout's moves by direction and distance.
    pub(crate) fn push_all(&self, out: &mut Vec<Move>) {
        out.reserve(self.total);
        for (&targets, back) in self.steps.iter().zip(STEP_BACK) {
            out.extend(squares_of(targets).map(|to| Move::new(step_source(to, back), to)));
        }
        for &(from, runs) in &self.scouts[..self.scout_count] {
            for (dir, run) in Direction::ALL.into_iter().zip(runs) {
                let mut at = from;
                for _ in 0..run {
                    at = at.step(dir).expect("a counted run stays on the board");
                    out.push(Move::new(from, at));
                }
            }
        }
    }

    /// The `k`-th move of `push_all`'s order, without listing the others.
    pub(crate) fn nth(&self, mut k: usize) -> Option<Move> {
        for (&targets, back) in self.steps.iter().zip(STEP_BACK) {
            let n = targets.count_ones() as usize;
            if k < n {
                let to = squares_of(targets).nth(k)?;
                return Some(Move::new(step_source(to, back), to));
            }
            k -= n;
        }
        for &(from, runs) in &self.scouts[..self.scout_count] {
            for (dir, run) in Direction::ALL.into_iter().zip(runs) {
                let run = run as usize;
                if k < run {
                    let mut at = from;
                    for _ in 0..=k {
                        at = at.step(dir)?;
                    }
                    return Some(Move::new(from, at));
                }
                k -= run;
            }
        }
        None
    }
}

/// How many moves a Scout on `from` has in `dir`: the empty squares up to
/// the first blocker (a piece, a lake or the edge), plus one if that blocker
/// is an enemy piece. The rank or file through `from` is a line of blocker
/// bits; with sentinel bits for both edges, the gap is one bit scan.
#[inline(always)]
fn scout_run(board: &Board, player: Color, from: Square, dir: Direction) -> u8 {
    let (rank, file) = board.lines_through(from);
    let (line, pos) = match dir {
        Direction::North | Direction::South => (file, from.row()),
        Direction::East | Direction::West => (rank, from.col()),
    };
    // Bit i + 1 stands for square i of the line; bits 0 and 11 are the edges.
    let line = (u32::from(line) << 1) | 1 | (1 << 11);
    let (gap, blocker) = match dir {
        Direction::North | Direction::East => {
            let gap = (line >> (pos + 2)).trailing_zeros() as u8;
            (gap, pos as i8 + 1 + gap as i8)
        }
        Direction::South | Direction::West => {
            let highest = 31 - (line & ((1 << (pos + 1)) - 1)).leading_zeros() as u8;
            (pos - highest, highest as i8 - 1)
        }
    };
    if !(0..10).contains(&blocker) {
        return gap;
    }
    let blocker = blocker as u8;
    let cell = match dir {
        Direction::North | Direction::South => Square::from_row_col(blocker, from.col()),
        Direction::East | Direction::West => Square::from_row_col(from.row(), blocker),
    };
    let strikes = cell.and_then(|sq| board[sq]).is_some_and(|p| p.color != player);
    gap + u8::from(strikes)
}

fn step_source(to: Square, back: i8) -> Square {
    Square::new((to.cell() as i8 + back) as u8).expect("a step comes from the board")
}

/// Whether `player` may make `mv` by the movement rules alone.
pub(crate) fn is_movement_legal(board: &Board, player: Color, mv: Move) -> bool {
    let Some(piece) = board[mv.from] else { return false };
    if piece.color != player || !piece.kind.is_movable() || mv.to.is_lake() {
        return false;
    }
    if board[mv.to].is_some_and(|p| p.color == player) {
        return false;
    }
    let (from, to) = (mv.from, mv.to);
    let dir = match () {
        _ if from.col() == to.col() && to.row() > from.row() => Direction::North,
        _ if from.col() == to.col() && to.row() < from.row() => Direction::South,
        _ if from.row() == to.row() && to.col() > from.col() => Direction::East,
        _ if from.row() == to.row() && to.col() < from.col() => Direction::West,
        _ => return false,
    };
    if mv.distance() > 1 && piece.kind != crate::piece::PieceType::Scout {
        return false;
    }
    // Every square before the target must be empty and not a lake.
    let mut at = from;
    loop {
        let Some(next) = at.step(dir) else { return false };
        if next == to {
            return true;
        }
        if board[next].is_some() {
            return false;
        }
        at = next;
    }
}
