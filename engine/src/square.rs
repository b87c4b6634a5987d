//! Squares, coordinates and the two frames of reference.
//!
//! A cell is `10 * row + col`. Row 0 is Red's back row (rank 1), column 0 is
//! file `a`. Blue's frame is the 180-degree rotation `cell -> 99 - cell`, so
//! each side sees its own home rows at the bottom.

use std::fmt;
use std::str::FromStr;

use stratego_contract::notation::Grid;
use stratego_contract::Color;

/// One of the 100 cells of the board (lakes included).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

/// The eight lake cells: c5, d5, g5, h5, c6, d6, g6, h6. The engine's one
/// definition of the lakes: `Square::is_lake`, `LAKE_MASK`, move generation,
/// the position texts and the observation planes all derive from it.
pub const LAKES: [Square; 8] =
    [Square(42), Square(43), Square(46), Square(47), Square(52), Square(53), Square(56), Square(57)];

/// The lakes as a bit mask over cells (bit `cell` set on a lake).
pub const LAKE_MASK: u128 = {
    let mut mask = 0u128;
    let mut i = 0;
    while i < LAKES.len() {
        mask |= 1u128 << LAKES[i].0;
        i += 1;
    }
    mask
};

/// The four orthogonal directions, as (row step, column step).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Direction {
    North,
    South,
    East,
    West,
}

impl Direction {
    pub const ALL: [Direction; 4] = [Direction::North, Direction::South, Direction::East, Direction::West];
}

const fn is_lake_cell(cell: u8) -> bool {
    cell < 128 && (LAKE_MASK >> cell) & 1 == 1
}

/// `NEIGHBOUR[cell][dir]` is the adjacent cell in that direction, or `NONE`
/// when it is off the board or a lake: both block movement the same way.
const NONE: u8 = u8::MAX;
const NEIGHBOUR: [[u8; 4]; 100] = {
    let mut table = [[NONE; 4]; 100];
    let mut cell = 0;
    while cell < 100 {
        let row = cell / 10;
        let col = cell % 10;
        let candidates: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        let mut d = 0;
        while d < 4 {
            let r = row as i32 + candidates[d].0;
            let c = col as i32 + candidates[d].1;
            if r >= 0 && r < 10 && c >= 0 && c < 10 {
                let n = (r * 10 + c) as u8;
                if !is_lake_cell(n) {
                    table[cell][d] = n;
                }
            }
            d += 1;
        }
        cell += 1;
    }
    table
};

impl Square {
    pub const COUNT: usize = 100;

    /// The square with this cell index, if it is on the board.
    pub const fn new(cell: u8) -> Option<Square> {
        if cell < 100 {
            Some(Square(cell))
        } else {
            None
        }
    }

    /// The square at (row, col); `None` off the board.
    pub const fn from_row_col(row: u8, col: u8) -> Option<Square> {
        if row < 10 && col < 10 {
            Some(Square(row * 10 + col))
        } else {
            None
        }
    }

    /// Every cell, lakes included, in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..100).map(Square)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn cell(self) -> u8 {
        self.0
    }

    pub const fn row(self) -> u8 {
        self.0 / 10
    }

    pub const fn col(self) -> u8 {
        self.0 % 10
    }

    pub const fn is_lake(self) -> bool {
        is_lake_cell(self.0)
    }

    /// The 180-degree rotation (`99 - cell`); an involution.
    pub const fn rotated(self) -> Square {
        Square(99 - self.0)
    }

    /// The same square seen from `player`'s frame. Red's frame is absolute;
    /// Blue's is rotated. Applying it twice gives the square back, so the same
    /// function converts absolute to relative and relative to absolute.
    pub const fn in_frame(self, player: Color) -> Square {
        match player {
            Color::Red => self,
            Color::Blue => self.rotated(),
        }
    }

    /// The adjacent square in `dir`, unless that is off the board or a lake.
    pub fn step(self, dir: Direction) -> Option<Square> {
        let n = NEIGHBOUR[self.index()][dir as usize];
        (n != NONE).then_some(Square(n))
    }

    /// Orthogonally adjacent squares that are on the board and not lakes.
    pub fn neighbours(self) -> impl Iterator<Item = Square> {
        NEIGHBOUR[self.index()].into_iter().filter(|&n| n != NONE).map(Square)
    }

    /// Whether `other` is orthogonally adjacent.
    pub fn is_adjacent(self, other: Square) -> bool {
        self.manhattan(other) == 1
    }

    pub fn manhattan(self, other: Square) -> u8 {
        self.row().abs_diff(other.row()) + self.col().abs_diff(other.col())
    }
}

impl fmt::Display for Square {
    /// Squares are named `a1`..`j10`: file letter from the column, rank from the row.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        GRID.write_square(f, self.col(), self.row())
    }
}

/// The board's 10 files and 10 ranks, for square names (`notation`).
pub const GRID: Grid = Grid { files: 10, ranks: 10 };

/// A square name that is not `a1`..`j10`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a square (expected a file a-j and a rank 1-10, like `b2` or `j10`)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (col, row) = GRID.parse_square(s).ok_or_else(|| ParseSquareError(s.to_string()))?;
        Ok(Square(row * 10 + col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lakes_are_the_eight_documented_cells() {
        let lakes: Vec<u8> = Square::all().filter(|s| s.is_lake()).map(|s| s.cell()).collect();
        assert_eq!(lakes, vec![42, 43, 46, 47, 52, 53, 56, 57]);
        assert_eq!(LAKES.map(|s| s.cell()).to_vec(), lakes);
        assert_eq!(LAKE_MASK.count_ones(), 8);
        assert!(Square::all().all(|s| s.is_lake() == ((LAKE_MASK >> s.cell()) & 1 == 1)));
        // The rotation maps lakes onto lakes, so both frames share the board shape.
        assert!(LAKES.iter().all(|l| l.rotated().is_lake()));
    }

    #[test]
    fn neighbours_skip_lakes_and_edges() {
        let a1: Square = "a1".parse().unwrap();
        assert_eq!(a1.neighbours().count(), 2);
        let c4: Square = "c4".parse().unwrap(); // lake c5 is north of it
        assert!(c4.step(Direction::North).is_none());
        assert_eq!(c4.neighbours().count(), 3);
    }
}
