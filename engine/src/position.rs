//! The board and a position: everything on the board plus whose turn it is and
//! the two counters, with a one-line text form that round-trips.
//!
//! Position text: `<ruleset> <board> <side> <ply> <battleless>`, e.g.
//! `stratego-rules-v1:pieces=classic,... 10 rows/.../ red 0 0`. The board lists
//! rank 10 first and rank 1 last (Red at the bottom, as printed), rows
//! separated by `/`, ten squares each: `.` empty, `~` lake, or a piece letter
//! (upper case Red, lower case Blue) followed by `^` if it is revealed and `+`
//! if it has moved. A position is a root: it has no history, and each piece's
//! identity (starting square) is the square it stands on.

use std::fmt;
use std::ops::Index;

use crate::error::Error;
use crate::piece::{Color, Piece, PieceSet, PieceType};
use crate::rules::Ruleset;
use crate::setup::{Setup, SETUP_SQUARES};
use crate::square::Square;
use stratego_contract::snapshot;

/// What stands on each of the 100 cells (lakes are always empty).
///
/// Beside the cells it keeps bit masks (bit = cell index) of each colour's
/// pieces, of the pieces that never move and of the Scouts, so that move
/// generation visits only the pieces that can move, and for each rank and
/// file a 10-bit line of the squares a Scout cannot run through (pieces and
/// lakes). `set` and `take` keep all of them in step with the cells; nothing
/// else writes them.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    cells: [Option<Piece>; Square::COUNT],
    occupied: [u128; 2],
    immovable: u128,
    scouts: u128,
    /// `rank_lines[row]` has bit `col` set, `file_lines[col]` bit `row`.
    rank_lines: [u16; 10],
    file_lines: [u16; 10],
}

impl Default for Board {
    fn default() -> Self {
        let mut board = Board {
            cells: [None; Square::COUNT],
            occupied: [0; 2],
            immovable: 0,
            scouts: 0,
            rank_lines: [0; 10],
            file_lines: [0; 10],
        };
        for lake in crate::square::LAKES {
            board.toggle_lines(lake);
        }
        board
    }
}

impl Index<Square> for Board {
    type Output = Option<Piece>;

    fn index(&self, sq: Square) -> &Option<Piece> {
        &self.cells[sq.index()]
    }
}

/// `BIT[cell]` is the mask of one cell (a table load is cheaper than a
/// variable 128-bit shift).
const BIT: [u128; Square::COUNT] = {
    let mut bits = [0; Square::COUNT];
    let mut i = 0;
    while i < Square::COUNT {
        bits[i] = 1 << i;
        i += 1;
    }
    bits
};

/// `ADJACENT[cell]`: the mask of the orthogonal neighbours of a cell.
const ADJACENT: [u128; Square::COUNT] = {
    let mut masks = [0; Square::COUNT];
    let mut i = 0;
    while i < Square::COUNT {
        let (row, col) = (i / 10, i % 10);
        if row > 0 {
            masks[i] |= 1 << (i - 10);
        }
        if row < 9 {
            masks[i] |= 1 << (i + 10);
        }
        if col > 0 {
            masks[i] |= 1 << (i - 1);
        }
        if col < 9 {
            masks[i] |= 1 << (i + 1);
        }
        i += 1;
    }
    masks
};

/// The squares of the set bits of a mask, in cell order.
pub(crate) fn squares_of(mut mask: u128) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let cell = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            Square::new(cell).expect("masks only hold cells below 100")
        })
    })
}

impl Board {
    fn toggle_lines(&mut self, sq: Square) {
        self.rank_lines[sq.row() as usize] ^= 1 << sq.col();
        self.file_lines[sq.col() as usize] ^= 1 << sq.row();
    }

    /// The blockers of `sq`'s rank (bit = column) and file (bit = row).
    pub(crate) fn lines_through(&self, sq: Square) -> (u16, u16) {
        (self.rank_lines[sq.row() as usize], self.file_lines[sq.col() as usize])
    }

    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        let bit = BIT[sq.index()];
        let old = self.cells[sq.index()];
        if old.is_some() != piece.is_some() {
            self.toggle_lines(sq);
        }
        for (p, on) in [(old, false), (piece, true)] {
            let Some(p) = p else { continue };
            let flip = |mask: &mut u128| if on { *mask |= bit } else { *mask &= !bit };
            flip(&mut self.occupied[p.color.index()]);
            if !p.kind.is_movable() {
                flip(&mut self.immovable);
            }
            if p.kind == PieceType::Scout {
                flip(&mut self.scouts);
            }
        }
        self.cells[sq.index()] = piece;
    }

    /// Whether a piece of `color`'s opponent stands next to `sq`.
    pub(crate) fn enemy_adjacent(&self, sq: Square, color: Color) -> bool {
        ADJACENT[sq.index()] & self.occupied[color.opponent().index()] != 0
    }

    pub fn take(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.cells[sq.index()];
        if piece.is_some() {
            self.set(sq, None);
        }
        piece
    }

    /// Mask of `color`'s pieces.
    pub(crate) fn occupied_by(&self, color: Color) -> u128 {
        self.occupied[color.index()]
    }

    /// Mask of `color`'s pieces that can move (all but Bombs and the Flag).
    pub(crate) fn movers(&self, color: Color) -> u128 {
        self.occupied[color.index()] & !self.immovable
    }

    /// Mask of the Scouts of both colours.
    pub(crate) fn scouts(&self) -> u128 {
        self.scouts
    }

    /// Every piece with its square, in cell order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        squares_of(self.occupied[0] | self.occupied[1]).map(move |sq| (sq, self[sq].expect("masks match cells")))
    }

    /// How many pieces of each type `color` has on the board.
    pub fn counts(&self, color: Color) -> [u8; PieceType::COUNT] {
        let mut counts = [0; PieceType::COUNT];
        for (_, p) in self.pieces().filter(|(_, p)| p.color == color) {
            counts[p.kind.index()] += 1;
        }
        counts
    }

    /// The board seen from the other side with the colours swapped: Red's
    /// pieces become Blue's on the rotated squares and vice versa.
    pub fn color_swapped(&self) -> Board {
        let mut out = Board::default();
        for (sq, p) in self.pieces() {
            let swapped = Piece { color: p.color.opponent(), origin: p.origin.rotated(), ..p };
            out.set(sq.rotated(), Some(swapped));
        }
        out
    }

    /// A picture for people: ranks 10 to 1 down the page, files a-j across.
    /// Red is upper case, Blue lower case, `~` marks lakes; a revealed piece
    /// is followed by `'`.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        for row in (0..10).rev() {
            out.push_str(&format!("{:>3} ", row + 1));
            for col in 0..10 {
                let sq = Square::from_row_col(row, col).expect("row and col are in range");
                let (c, mark) = match self[sq] {
                    _ if sq.is_lake() => ('~', ' '),
                    None => ('.', ' '),
                    Some(p) => (p.letter(), if p.revealed { '\'' } else { ' ' }),
                };
                out.push(' ');
                out.push(c);
                out.push(mark);
            }
            out.push('\n');
        }
        out.push_str("     a  b  c  d  e  f  g  h  i  j\n");
        out
    }
}

/// The fields of a position text, in order (a state's text adds its moves).
pub(crate) const POSITION_FIELDS: [&str; 5] = ["ruleset", "board", "side", "ply", "battleless"];

/// A position without history: the board, the side to move and the counters.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub rules: Ruleset,
    pub board: Board,
    pub to_move: Color,
    /// Plies played so far.
    pub ply: u32,
    /// Plies since the last battle.
    pub battleless: u32,
}

impl Position {
    /// The starting position: Red's setup on rows 1-4, Blue's rotated onto
    /// rows 7-10, Red to move.
    pub fn from_setups(rules: Ruleset, red: &Setup, blue: &Setup) -> Result<Position, Error> {
        rules.validate()?;
        let mut board = Board::default();
        for (color, setup) in [(Color::Red, red), (Color::Blue, blue)] {
            setup.validate(rules.piece_set).map_err(|source| Error::Setup { color, source })?;
            for i in 0..SETUP_SQUARES {
                if let Some(kind) = setup.get(i) {
                    let sq = Square::new(i as u8).expect("setup index is a cell").in_frame(color);
                    board.set(sq, Some(Piece::new(color, kind, sq)));
                }
            }
        }
        Ok(Position { rules, board, to_move: Color::Red, ply: 0, battleless: 0 })
    }

    /// Checks everything a position text cannot enforce by its syntax.
    pub fn validate(&self) -> Result<(), Error> {
        self.rules.validate()?;
        let bad = |msg: String| Err(Error::Position(msg));
        for (sq, p) in self.board.pieces() {
            if sq.is_lake() {
                return bad(format!("a piece stands on the lake {sq}"));
            }
            if p.moved && !p.kind.is_movable() {
                return bad(format!("the {} {} on {sq} is marked as moved, but it cannot move", p.color, p.kind));
            }
        }
        let set: PieceSet = self.rules.piece_set;
        for color in Color::BOTH {
            let counts = self.board.counts(color);
            for kind in PieceType::ALL {
                let (have, max) = (counts[kind.index()], set.count(kind));
                if have > max {
                    return bad(format!("{color} has {have} {kind}(s), the {} army has only {max}", set.name()));
                }
            }
            if counts[PieceType::Flag.index()] != 1 {
                return bad(format!("{color} must have exactly one flag on the board"));
            }
        }
        if self.battleless > self.ply {
            return bad(format!("{} plies without a battle but only {} plies played", self.battleless, self.ply));
        }
        Ok(())
    }

    /// The one-line text form (see the module documentation).
    pub fn to_text(&self) -> String {
        let mut rows = Vec::with_capacity(10);
        for row in (0..10).rev() {
            let mut text = String::new();
            for col in 0..10 {
                let sq = Square::from_row_col(row, col).expect("row and col are in range");
                match self.board[sq] {
                    _ if sq.is_lake() => text.push('~'),
                    None => text.push('.'),
                    Some(p) => {
                        text.push(p.letter());
                        if p.revealed {
                            text.push('^');
                        }
                        if p.moved {
                            text.push('+');
                        }
                    }
                }
            }
            rows.push(text);
        }
        format!("{} {} {} {} {}", self.rules, rows.join("/"), self.to_move, self.ply, self.battleless)
    }

    /// Parses the one-line text form and validates it.
    pub fn parse(text: &str) -> Result<Position, Error> {
        let fields = snapshot::fields(text, &POSITION_FIELDS).map_err(Error::Position)?;
        Position::from_fields(&fields)
    }

    /// Parses the five position fields (used by state texts that append moves).
    pub(crate) fn from_fields(fields: &[&str]) -> Result<Position, Error> {
        let rules: Ruleset = fields[0].parse()?;
        let board = parse_board(fields[1])?;
        let to_move = Color::from_name(fields[2])
            .ok_or_else(|| Error::Position(format!("side to move `{}` is not red or blue", fields[2])))?;
        let number = |name: &str, text: &str| {
            text.parse::<u32>().map_err(|_| Error::Position(format!("{name} `{text}` is not a whole number")))
        };
        let ply = number("ply", fields[3])?;
        let battleless = number("battleless", fields[4])?;
        let position = Position { rules, board, to_move, ply, battleless };
        position.validate()?;
        Ok(position)
    }

    /// The same position with the colours swapped and the board rotated, so
    /// that each side faces what the other faced.
    pub fn color_swapped(&self) -> Position {
        Position { board: self.board.color_swapped(), to_move: self.to_move.opponent(), ..self.clone() }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

fn parse_board(text: &str) -> Result<Board, Error> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != 10 {
        return Err(Error::Position(format!("the board needs 10 rows separated by `/`, found {}", rows.len())));
    }
    let mut board = Board::default();
    for (i, row_text) in rows.iter().enumerate() {
        let row = 9 - i as u8;
        let mut col = 0u8;
        let mut chars = row_text.chars().peekable();
        while let Some(c) = chars.next() {
            let sq = Square::from_row_col(row, col)
                .ok_or_else(|| Error::Position(format!("rank {} has more than 10 squares: `{row_text}`", row + 1)))?;
            match c {
                '.' | '~' => {
                    if (c == '~') != sq.is_lake() {
                        let what = if sq.is_lake() { "is a lake and must be `~`" } else { "is not a lake" };
                        return Err(Error::Position(format!("{sq} {what}")));
                    }
                }
                _ => {
                    let kind = PieceType::from_letter(c)
                        .filter(|_| c.is_ascii_alphabetic())
                        .ok_or_else(|| Error::Position(format!("`{c}` on {sq} is not a piece letter")))?;
                    let color = if c.is_ascii_uppercase() { Color::Red } else { Color::Blue };
                    let mut piece = Piece::new(color, kind, sq);
                    while let Some(&m) = chars.peek() {
                        match m {
                            '^' if !piece.revealed => piece.revealed = true,
                            '+' if !piece.moved => piece.moved = true,
                            '^' | '+' => return Err(Error::Position(format!("`{m}` repeated on {sq}"))),
                            _ => break,
                        }
                        chars.next();
                    }
                    if sq.is_lake() {
                        return Err(Error::Position(format!("a piece stands on the lake {sq}")));
                    }
                    board.set(sq, Some(piece));
                }
            }
            col += 1;
        }
        if col != 10 {
            return Err(Error::Position(format!("rank {} has {col} squares, expected 10: `{row_text}`", row + 1)));
        }
    }
    Ok(board)
}
