//! Pieces and the board, with the board's one-line text form.
//!
//! A piece's identity is its side and value: each side has one piece of each
//! value 0-9, so a board holds every identity at most once, and the board
//! alone fixes every score.

use std::fmt;
use std::ops::Index;

use crate::error::CoToanError;
use crate::square::{Square, COLS, NUM_SQUARES, ROWS};
use stratego_contract::Color;

/// The values 0-9; each side has one piece of each.
pub const NUM_VALUES: usize = 10;

/// The total of a side's values, 0 + 1 + ... + 9: what the opponent scores
/// by capturing all of them.
pub const TOTAL_VALUE: u8 = 45;

/// A piece: its side and its value (0-9), which is also its identity.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub side: Color,
    pub value: u8,
}

impl Piece {
    /// A piece, or `None` for a value above 9.
    pub const fn new(side: Color, value: u8) -> Option<Piece> {
        if (value as usize) < NUM_VALUES {
            Some(Piece { side, value })
        } else {
            None
        }
    }

    /// `r5` for Red's 5, `b0` for Blue's 0: the board text's token.
    pub fn token(self) -> String {
        let letter = match self.side {
            Color::Red => 'r',
            Color::Blue => 'b',
        };
        format!("{letter}{}", self.value)
    }
}

/// The square a side's 0 stands on for the whole game: the fifth square of
/// its second row (e2 for Red, e10 for Blue).
pub const fn zero_home(side: Color) -> Square {
    let red_home = match Square::from_col_row(4, 1) {
        Some(sq) => sq,
        None => panic!("e2 is on the board"),
    };
    match side {
        Color::Red => red_home,
        Color::Blue => red_home.rotated(),
    }
}

/// The square a side's nonzero piece `value` starts on: its back row, 1-9
/// in ascending order from its own left (a1..i1 for Red, i11..a11 for Blue).
pub fn start_square(side: Color, value: u8) -> Option<Square> {
    if !(1..=9).contains(&value) {
        return None;
    }
    let red = Square::from_col_row(value - 1, 0)?;
    Some(match side {
        Color::Red => red,
        Color::Blue => red.rotated(),
    })
}

/// What stands on each of the 99 squares.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    cells: [Option<Piece>; NUM_SQUARES],
}

impl Index<Square> for Board {
    type Output = Option<Piece>;

    fn index(&self, sq: Square) -> &Option<Piece> {
        &self.cells[sq.index()]
    }
}

impl Board {
    pub fn empty() -> Board {
        Board { cells: [None; NUM_SQUARES] }
    }

    /// The starting position: each side's 1-9 on its back row and its 0 on
    /// its home square.
    pub fn initial() -> Board {
        let mut board = Board::empty();
        for side in Color::BOTH {
            board.cells[zero_home(side).index()] = Some(Piece { side, value: 0 });
            for value in 1..=9 {
                let sq = start_square(side, value).expect("values 1-9 have start squares");
                board.cells[sq.index()] = Some(Piece { side, value });
            }
        }
        board
    }

    /// A board holding these pieces; an identity twice or a square twice is
    /// an error.
    pub fn from_pieces(pieces: &[(Square, Piece)]) -> Result<Board, CoToanError> {
        let mut board = Board::empty();
        for &(sq, piece) in pieces {
            if piece.value as usize >= NUM_VALUES {
                return Err(CoToanError::Board(format!("{} {} is not a value 0-9", piece.side, piece.value)));
            }
            if let Some(other) = board[sq] {
                return Err(CoToanError::Board(format!(
                    "{sq} holds two pieces ({} {} and {} {})",
                    other.side, other.value, piece.side, piece.value
                )));
            }
            if let Some(at) = board.find(piece) {
                return Err(CoToanError::Board(format!(
                    "{} {} stands on both {at} and {sq}; each side has one piece of each value",
                    piece.side, piece.value
                )));
            }
            board.cells[sq.index()] = Some(piece);
        }
        Ok(board)
    }

    /// Moves the piece on `from` to `to`, removing whatever stood on `to`.
    pub(crate) fn relocate(&mut self, from: Square, to: Square) {
        self.cells[to.index()] = self.cells[from.index()].take();
    }

    /// The occupied squares in index order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self[sq].map(|p| (sq, p)))
    }

    /// Where a piece stands, if it is on the board.
    pub fn find(&self, piece: Piece) -> Option<Square> {
        Square::all().find(|&sq| self[sq] == Some(piece))
    }

    /// The total value of `side`'s pieces still on the board.
    pub fn surviving_value(&self, side: Color) -> u8 {
        self.pieces().filter(|(_, p)| p.side == side).map(|(_, p)| p.value).sum()
    }

    /// The same board seen from the other side: rotated 180 degrees with the
    /// colours exchanged. The initial board maps onto itself.
    pub fn color_swapped(&self) -> Board {
        let mut swapped = Board::empty();
        for (sq, p) in self.pieces() {
            swapped.cells[sq.rotated().index()] = Some(Piece { side: p.side.opponent(), value: p.value });
        }
        swapped
    }

    /// The left-right mirror image, colours unchanged.
    pub fn mirrored(&self) -> Board {
        let mut mirrored = Board::empty();
        for (sq, p) in self.pieces() {
            mirrored.cells[sq.mirrored().index()] = Some(p);
        }
        mirrored
    }

    /// Ranks 11 down to 1 joined by `/`, nine tokens per rank: `.` for an
    /// empty square, `r<value>` for Red, `b<value>` for Blue. The initial
    /// board is `b9b8b7b6b5b4b3b2b1/....b0..../.../....r0..../r1r2r3r4r5r6r7r8r9`.
    pub fn to_text(&self) -> String {
        (0..ROWS)
            .rev()
            .map(|row| {
                (0..COLS)
                    .map(|col| {
                        let sq = Square::from_col_row(col, row).expect("row and col are in range");
                        self[sq].map_or(".".to_string(), Piece::token)
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Parses `to_text`'s form.
    pub fn from_text(text: &str) -> Result<Board, CoToanError> {
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != ROWS as usize {
            return Err(CoToanError::Board(format!("expected 11 ranks separated by `/`, found {}", ranks.len())));
        }
        let mut pieces = Vec::new();
        for (i, rank_text) in ranks.iter().enumerate() {
            let row = ROWS - 1 - i as u8;
            let mut col = 0u8;
            let mut chars = rank_text.chars().peekable();
            while let Some(c) = chars.next() {
                let side = match c {
                    '.' => None,
                    'r' => Some(Color::Red),
                    'b' => Some(Color::Blue),
                    other => {
                        return Err(CoToanError::Board(format!(
                            "rank {}: `{other}` is not `.`, `r<digit>` or `b<digit>`",
                            row + 1
                        )))
                    }
                };
                if col >= COLS {
                    return Err(CoToanError::Board(format!("rank {} has more than 9 squares", row + 1)));
                }
                if let Some(side) = side {
                    let value = chars.next().and_then(|d| d.to_digit(10)).ok_or_else(|| {
                        CoToanError::Board(format!("rank {}: `{c}` must be followed by a digit 0-9", row + 1))
                    })?;
                    let sq = Square::from_col_row(col, row).expect("col and row are in range");
                    pieces.push((sq, Piece { side, value: value as u8 }));
                }
                col += 1;
            }
            if col != COLS {
                return Err(CoToanError::Board(format!("rank {} has {col} squares, expected 9", row + 1)));
            }
        }
        Board::from_pieces(&pieces)
    }

    /// A printable diagram, rank 11 at the top, Red's pieces as `R5`, Blue's
    /// as `b5`.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        for row in (0..ROWS).rev() {
            out.push_str(&format!("{:>3} ", row + 1));
            for col in 0..COLS {
                let sq = Square::from_col_row(col, row).expect("row and col are in range");
                let cell = match self[sq] {
                    None => " .".to_string(),
                    Some(Piece { side: Color::Red, value }) => format!("R{value}"),
                    Some(Piece { side: Color::Blue, value }) => format!("b{value}"),
                };
                out.push(' ');
                out.push_str(&cell);
            }
            out.push('\n');
        }
        out.push_str("      a  b  c  d  e  f  g  h  i\n");
        out
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_board_matches_the_rules() {
        let board = Board::initial();
        assert_eq!(
            board.to_text(),
            "b9b8b7b6b5b4b3b2b1/....b0..../........./........./........./........./........./........./........./....r0..../r1r2r3r4r5r6r7r8r9"
        );
        assert_eq!(zero_home(Color::Red).to_string(), "e2");
        assert_eq!(zero_home(Color::Blue).to_string(), "e10");
        assert_eq!(board.color_swapped(), board, "the two armies are 180-degree symmetric");
        assert_eq!(board.surviving_value(Color::Red), TOTAL_VALUE);
        assert_eq!(board.pieces().count(), 20);
    }

    #[test]
    fn text_round_trips_and_bad_text_says_why() {
        let board = Board::initial();
        assert_eq!(Board::from_text(&board.to_text()).unwrap(), board);
        let good = board.to_text();
        for (bad, needle) in [
            (good.replacen('/', "", 1), "11 ranks"),
            (good.replace("r1r2", "r1r2r2"), "more than 9"),
            (good.replace("....r0....", "...r0...."), "8 squares"),
            (good.replace("r1r2", "r1x2"), "`x`"),
            (good.replace("r1r2", "r1r."), "digit"),
            (good.replace("r1r2", "r1r1"), "both"),
        ] {
            let err = Board::from_text(&bad).unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }
}
