//! Squares of CoToan's 9x11 board and the eight directions of movement.
//!
//! A square's index is `9 * row + col`: row 0 is Red's back row (rank 1),
//! column 0 is file `a`, so `a1` = 0, `i1` = 8, `c4` = 29, `i11` = 98. The
//! index is the `SRC`/`DST` of the action id `99 * SRC + DST` and the `N` of
//! the GDL square constant `sN`. There is no per-player frame: squares and
//! action ids are absolute, and the colour swap is the 180-degree rotation
//! `index -> 98 - index`.

use std::fmt;
use std::str::FromStr;

use crate::error::CoToanError;
use stratego_contract::notation::Grid;

/// Files a..i.
pub const COLS: u8 = 9;
/// Ranks 1..11.
pub const ROWS: u8 = 11;
/// 99 squares.
pub const NUM_SQUARES: usize = COLS as usize * ROWS as usize;
/// The board's files and ranks, for square names (`stratego_contract::notation`).
pub const GRID: Grid = Grid { files: COLS, ranks: ROWS };

/// One of the 99 squares.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

/// The eight directions a piece moves and a capture line runs in.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Direction {
    North,
    NorthEast,
    East,
    SouthEast,
    South,
    SouthWest,
    West,
    NorthWest,
}

impl Direction {
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];

    /// (column step, row step); north is towards rank 11.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::NorthEast => (1, 1),
            Direction::East => (1, 0),
            Direction::SouthEast => (1, -1),
            Direction::South => (0, -1),
            Direction::SouthWest => (-1, -1),
            Direction::West => (-1, 0),
            Direction::NorthWest => (-1, 1),
        }
    }

    /// The GDL constant of the direction.
    pub const fn name(self) -> &'static str {
        match self {
            Direction::North => "n",
            Direction::NorthEast => "ne",
            Direction::East => "e",
            Direction::SouthEast => "se",
            Direction::South => "s",
            Direction::SouthWest => "sw",
            Direction::West => "w",
            Direction::NorthWest => "nw",
        }
    }

    /// The reverse direction.
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::North => Direction::South,
            Direction::NorthEast => Direction::SouthWest,
            Direction::East => Direction::West,
            Direction::SouthEast => Direction::NorthWest,
            Direction::South => Direction::North,
            Direction::SouthWest => Direction::NorthEast,
            Direction::West => Direction::East,
            Direction::NorthWest => Direction::SouthEast,
        }
    }

    /// The direction from `(dc, dr)`, each in -1..=1 and not both zero.
    const fn from_delta(dc: i8, dr: i8) -> Option<Direction> {
        Some(match (dc, dr) {
            (0, 1) => Direction::North,
            (1, 1) => Direction::NorthEast,
            (1, 0) => Direction::East,
            (1, -1) => Direction::SouthEast,
            (0, -1) => Direction::South,
            (-1, -1) => Direction::SouthWest,
            (-1, 0) => Direction::West,
            (-1, 1) => Direction::NorthWest,
            _ => return None,
        })
    }
}

impl Square {
    pub const fn new(index: u8) -> Option<Square> {
        if (index as usize) < NUM_SQUARES {
            Some(Square(index))
        } else {
            None
        }
    }

    pub const fn from_col_row(col: u8, row: u8) -> Option<Square> {
        if col < COLS && row < ROWS {
            Some(Square(row * COLS + col))
        } else {
            None
        }
    }

    /// All squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..NUM_SQUARES as u8).map(Square)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0 = file a.
    pub const fn col(self) -> u8 {
        self.0 % COLS
    }

    /// 0 = rank 1, Red's back row.
    pub const fn row(self) -> u8 {
        self.0 / COLS
    }

    /// The square seen from the other side: the 180-degree rotation, which
    /// maps each side's home squares onto the other's.
    pub const fn rotated(self) -> Square {
        Square(NUM_SQUARES as u8 - 1 - self.0)
    }

    /// The left-right mirror image (file a <-> file i), a symmetry of the
    /// rules (though not of the starting setup).
    pub const fn mirrored(self) -> Square {
        Square(self.row() * COLS + (COLS - 1 - self.col()))
    }

    /// The neighbour in `dir`, or `None` off the board.
    pub const fn step(self, dir: Direction) -> Option<Square> {
        self.offset(dir, 1)
    }

    /// The square `distance` steps away in `dir`, or `None` off the board.
    pub const fn offset(self, dir: Direction, distance: u8) -> Option<Square> {
        let (dc, dr) = dir.delta();
        let col = self.col() as i32 + dc as i32 * distance as i32;
        let row = self.row() as i32 + dr as i32 * distance as i32;
        if col < 0 || col >= COLS as i32 || row < 0 || row >= ROWS as i32 {
            None
        } else {
            Some(Square((row * COLS as i32 + col) as u8))
        }
    }

    /// The direction and distance from `self` to `other` when they lie on
    /// one straight or diagonal line (and differ).
    pub fn line_to(self, other: Square) -> Option<(Direction, u8)> {
        let dc = other.col() as i8 - self.col() as i8;
        let dr = other.row() as i8 - self.row() as i8;
        let distance = dc.unsigned_abs().max(dr.unsigned_abs());
        if distance == 0 || (dc != 0 && dr != 0 && dc.abs() != dr.abs()) {
            return None;
        }
        Direction::from_delta(dc.signum(), dr.signum()).map(|dir| (dir, distance))
    }
}

impl fmt::Display for Square {
    /// `a1` .. `i11`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        GRID.write_square(f, self.col(), self.row())
    }
}

impl FromStr for Square {
    type Err = CoToanError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || CoToanError::SquareSyntax(s.to_string());
        let (col, row) = GRID.parse_square(s).ok_or_else(bad)?;
        Square::from_col_row(col, row).ok_or_else(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_and_mirror_are_involutions() {
        for sq in Square::all() {
            assert_eq!(sq.rotated().rotated(), sq);
            assert_eq!(sq.mirrored().mirrored(), sq);
            assert_eq!(sq.rotated().col(), COLS - 1 - sq.col());
            assert_eq!(sq.rotated().row(), ROWS - 1 - sq.row());
        }
    }

    #[test]
    fn lines_and_offsets_agree() {
        let c4: Square = "c4".parse().unwrap();
        assert_eq!(c4.line_to("e6".parse().unwrap()), Some((Direction::NorthEast, 2)));
        assert_eq!(c4.line_to("f4".parse().unwrap()), Some((Direction::East, 3)));
        assert_eq!(c4.line_to("d6".parse().unwrap()), None);
        assert_eq!(c4.line_to(c4), None);
        for from in Square::all() {
            for dir in Direction::ALL {
                for k in 1..=10 {
                    if let Some(to) = from.offset(dir, k) {
                        assert_eq!(from.line_to(to), Some((dir, k)));
                    }
                }
            }
        }
    }
}
