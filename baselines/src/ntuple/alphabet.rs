//! The alphabet: what one player sees on one square, as one of 16 symbols.
//!
//! Squares are read in the viewer's frame (Blue's view is the 180-degree
//! rotation, `cell -> 99 - cell`, so row 0 is always the viewer's back
//! row), which lets the same tables serve both sides. Piece types collapse
//! into six rank classes, the same for the viewer's own pieces and for the
//! opponent's revealed ones:
//!
//! | class | types | why together |
//! |---|---|---|
//! | immovable | Bomb, Flag | never move; what a Miner or the capture of the game is for |
//! | spy | Spy | the one piece that takes the Marshal |
//! | miner | Miner | the one piece that clears Bombs |
//! | weak | Scout, Sergeant, Lieutenant | cheap attackers and scouts |
//! | middle | Captain, Major, Colonel | the bulk of the fighting strength |
//! | strong | General, Marshal | beaten only by each other (and the Spy) |
//!
//! A hidden opponent piece is only "moved" (so neither Bomb nor Flag) or
//! "unmoved". The symbols, in index order (the order is part of the file
//! format, see [`ALPHABET`]):
//!
//! ```text
//!  0 empty            4 own-miner     8 opp-immovable   12 opp-middle
//!  1 lake             5 own-weak      9 opp-spy         13 opp-strong
//!  2 own-immovable    6 own-middle   10 opp-miner       14 opp-hidden-moved
//!  3 own-spy          7 own-strong   11 opp-weak        15 opp-hidden-unmoved
//! ```
//!
//! Beside the board, an encoding carries the **material** one player knows
//! exactly: its own pieces of each type, and the opponent's pieces of each
//! type still alive (the army less its losses: every loss is public). The
//! classes above lose the difference between, say, a Marshal and a General;
//! the material tables (`layout`) see it.
//!
//! Everything here reads public information only: the viewer's own pieces,
//! of the opponent's pieces the revealed type or the moved flag, and the
//! losses of both sides.

use stratego_engine::{Color, PieceType, Square, State};

use stratego_players::view::{Cell, InfoView};

/// Symbols per square; table indices are base-16 numbers (4 bits a square).
pub const ALPHABET_SIZE: usize = 16;

/// The symbol names in index order. A table file stores this list and is
/// refused unless it matches exactly.
pub const ALPHABET: [&str; ALPHABET_SIZE] = [
    "empty",
    "lake",
    "own-immovable",
    "own-spy",
    "own-miner",
    "own-weak",
    "own-middle",
    "own-strong",
    "opp-immovable",
    "opp-spy",
    "opp-miner",
    "opp-weak",
    "opp-middle",
    "opp-strong",
    "opp-hidden-moved",
    "opp-hidden-unmoved",
];

pub const EMPTY: u8 = 0;
pub const LAKE: u8 = 1;
const OWN: u8 = 2;
const OPPONENT: u8 = 8;
pub const HIDDEN_MOVED: u8 = 14;
pub const HIDDEN_UNMOVED: u8 = 15;

/// The rank class of a type (0..6): immovable, spy, miner, weak, middle, strong.
pub const fn class(kind: PieceType) -> u8 {
    match kind {
        PieceType::Bomb | PieceType::Flag => 0,
        PieceType::Spy => 1,
        PieceType::Miner => 2,
        PieceType::Scout | PieceType::Sergeant | PieceType::Lieutenant => 3,
        PieceType::Captain | PieceType::Major | PieceType::Colonel => 4,
        PieceType::General | PieceType::Marshal => 5,
    }
}

/// The symbol of one of the viewer's own pieces.
pub const fn own(kind: PieceType) -> u8 {
    OWN + class(kind)
}

/// The symbol of a revealed opponent piece.
pub const fn opponent(kind: PieceType) -> u8 {
    OPPONENT + class(kind)
}

/// The symbol of a hidden opponent piece.
pub const fn hidden(moved: bool) -> u8 {
    if moved {
        HIDDEN_MOVED
    } else {
        HIDDEN_UNMOVED
    }
}

/// The alphabet as one line, as stored in table files.
pub fn alphabet_text() -> String {
    ALPHABET.join(",")
}

/// A board in one player's frame: a symbol per frame cell (0..100).
pub type Symbols = [u8; Square::COUNT];

/// Piece counts per type (`PieceType::index`) as one player knows them.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Material {
    /// The viewer's own pieces on the board.
    pub own: [u8; PieceType::COUNT],
    /// The opponent's pieces not lost yet (on the board, hidden or not).
    pub opp: [u8; PieceType::COUNT],
}

/// A position as one player sees it: the board in its frame and the material.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Encoded {
    pub board: Symbols,
    pub material: Material,
}

fn alive(army: [u8; PieceType::COUNT], lost: [u8; PieceType::COUNT]) -> [u8; PieceType::COUNT] {
    std::array::from_fn(|t| army[t].saturating_sub(lost[t]))
}

/// An empty board in any frame: lakes and empty squares (lakes map onto
/// lakes under the rotation).
pub const fn empty_board() -> Symbols {
    let mut board = [EMPTY; Square::COUNT];
    let mut i = 0;
    while i < Square::COUNT {
        if let Some(sq) = Square::new(i as u8) {
            if sq.is_lake() {
                board[i] = LAKE;
            }
        }
        i += 1;
    }
    board
}

const EMPTY_BOARD: Symbols = empty_board();

/// The frame cell of an absolute square for `viewer`.
#[inline]
pub fn frame_cell(sq: Square, viewer: Color) -> usize {
    sq.in_frame(viewer).index()
}

/// What `viewer` sees in `state`: its own pieces by class, the opponent's
/// revealed pieces by class, the others as hidden moved/unmoved; and the
/// material.
pub fn encode_state(state: &State, viewer: Color) -> Encoded {
    let mut board = EMPTY_BOARD;
    // The opponent's pieces alive are the ones on the board: one pass counts both sides.
    let mut counts = [[0u8; PieceType::COUNT]; 2];
    for (sq, piece) in state.board().pieces() {
        counts[(piece.color != viewer) as usize][piece.kind.index()] += 1;
        board[frame_cell(sq, viewer)] = if piece.color == viewer {
            own(piece.kind)
        } else if piece.revealed {
            opponent(piece.kind)
        } else {
            hidden(piece.moved)
        };
    }
    let [own_alive, opp_alive] = counts;
    Encoded { board, material: Material { own: own_alive, opp: opp_alive } }
}

/// The acting player's view, encoded (equal to `encode_state` of the state
/// it came from, for the player to move).
pub fn encode_view(view: &InfoView<'_>) -> Encoded {
    let mut board = EMPTY_BOARD;
    let mut own_count = [0u8; PieceType::COUNT];
    for (i, cell) in view.cells.iter().enumerate() {
        let symbol = match cell {
            Cell::Empty => continue,
            Cell::Own(piece) => {
                own_count[piece.kind.index()] += 1;
                own(piece.kind)
            }
            Cell::Opponent(o) => match o.known {
                Some(kind) => opponent(kind),
                None => hidden(o.moved),
            },
        };
        let sq = Square::new(i as u8).expect("board cells are below 100");
        board[frame_cell(sq, view.me)] = symbol;
    }
    let opp = alive(view.rules.piece_set.counts(), view.lost[view.opponent().index()]);
    Encoded { board, material: Material { own: own_count, opp } }
}

/// The left-right mirror of a frame cell (column `c` -> `9 - c`).
pub const fn mirror_cell(cell: usize) -> usize {
    cell - cell % 10 + (9 - cell % 10)
}

/// The left-right mirror image of a board.
pub fn mirror_board(board: &Symbols) -> Symbols {
    std::array::from_fn(|cell| board[mirror_cell(cell)])
}

/// The left-right mirror image of a position (the material is the same).
pub fn mirror(position: &Encoded) -> Encoded {
    Encoded { board: mirror_board(&position.board), material: position.material }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_every_type_and_the_alphabet_has_sixteen_names() {
        assert_eq!(ALPHABET.len(), ALPHABET_SIZE);
        for kind in PieceType::ALL {
            assert!(own(kind) >= 2 && own(kind) <= 7, "{kind}");
            assert!(opponent(kind) >= 8 && opponent(kind) <= 13, "{kind}");
            assert_eq!(
                ALPHABET[own(kind) as usize].strip_prefix("own-"),
                ALPHABET[opponent(kind) as usize].strip_prefix("opp-")
            );
        }
        assert_eq!(ALPHABET[own(PieceType::Marshal) as usize], "own-strong");
        assert_eq!(ALPHABET[opponent(PieceType::Scout) as usize], "opp-weak");
        assert_eq!(ALPHABET[hidden(true) as usize], "opp-hidden-moved");
        assert_eq!(EMPTY_BOARD.iter().filter(|&&s| s == LAKE).count(), 8);
    }

    #[test]
    fn mirror_is_an_involution_that_keeps_lakes() {
        for cell in 0..100 {
            assert_eq!(mirror_cell(mirror_cell(cell)), cell);
            assert_eq!(mirror_cell(cell) / 10, cell / 10);
        }
        assert_eq!(mirror_board(&EMPTY_BOARD), EMPTY_BOARD);
    }
}
