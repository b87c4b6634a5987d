//! The information view: what the player to act may know, and nothing else.
//!
//! Players decide from an [`InfoView`], never from the engine's `State`,
//! because the state holds the hidden truth (the types of the opponent's
//! unrevealed pieces). The view keeps the acting player's own pieces in full,
//! the opponent's pieces as a revealed type or "hidden" with a moved flag, the
//! counters, the lost pieces of both sides (every loss is public: battles
//! reveal both fighters), the legal moves and the public move history. Two
//! states that differ only in hidden identities give equal views, which the
//! tests check for every player.

use stratego_engine::{BattleResult, Color, CountingPrior, Move, Piece, PieceType, PlyRecord, Ruleset, Square, State};

/// What the acting player sees on one square.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Cell {
    #[default]
    Empty,
    /// One of the acting player's pieces, known in full.
    Own(Piece),
    /// An opponent piece: its type if revealed, otherwise only whether it moved.
    Opponent(OpponentPiece),
}

/// An opponent piece as the acting player sees it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct OpponentPiece {
    /// Where it started: identities are public, anyone can follow a piece.
    pub origin: Square,
    /// It has moved, so it is neither a Bomb nor the Flag.
    pub moved: bool,
    /// Its type once a battle or a Scout's run revealed it.
    pub known: Option<PieceType>,
}

/// A battle as both players saw it: both fighters are revealed by it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PublicBattle {
    pub attacker: PieceType,
    pub defender: PieceType,
    pub result: BattleResult,
}

/// One ply as both players saw it. The mover's type is not part of it
/// unless a battle or a Scout's run (a move of two or more squares) showed it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PublicPly {
    pub player: Color,
    pub mv: Move,
    pub battle: Option<PublicBattle>,
}

impl PublicPly {
    /// The public part of an engine ply record.
    pub fn of(record: &PlyRecord) -> PublicPly {
        PublicPly {
            player: record.player,
            mv: record.mv,
            battle: record.battle.map(|b| PublicBattle {
                attacker: record.piece,
                defender: b.defender,
                result: b.result,
            }),
        }
    }
}

/// The public history of a whole game (for one-off views; the arena keeps
/// it incrementally).
pub fn public_history(state: &State) -> Vec<PublicPly> {
    state.history().iter().map(PublicPly::of).collect()
}

/// Everything the player to move may base its decision on.
#[derive(Clone, PartialEq, Debug)]
pub struct InfoView<'a> {
    pub rules: Ruleset,
    /// The acting player.
    pub me: Color,
    /// Plies played and plies since the last battle (the caps are public).
    pub ply: u32,
    pub battleless: u32,
    /// The board, indexed by absolute cell.
    pub cells: [Cell; Square::COUNT],
    /// Pieces lost by each side, per type, indexed by `Color::index`.
    pub lost: [[u8; PieceType::COUNT]; 2],
    /// The legal moves of the acting player (absolute squares), in the
    /// engine's generation order: what a referee would allow it. They depend
    /// on public information only, except in one corner of the more-squares
    /// rule, which compares placements including piece types (two hidden
    /// pieces trading squares during a chase); a real player learns that
    /// from the referee too.
    pub legal_moves: Vec<Move>,
    /// Every ply played so far, as both players saw it.
    pub history: &'a [PublicPly],
}

impl<'a> InfoView<'a> {
    /// The view of the player to move in `state`. `history` must be the
    /// state's public history (`public_history`), kept by the caller so that
    /// a game loop does not rebuild it every ply.
    pub fn new(state: &State, history: &'a [PublicPly]) -> InfoView<'a> {
        debug_assert_eq!(history.len(), state.history().len(), "the public history belongs to this state");
        let me = state.to_move();
        let mut cells = [Cell::Empty; Square::COUNT];
        for (sq, piece) in state.board().pieces() {
            cells[sq.index()] = if piece.color == me {
                Cell::Own(piece)
            } else {
                Cell::Opponent(OpponentPiece {
                    origin: piece.origin,
                    moved: piece.moved,
                    known: piece.revealed.then_some(piece.kind),
                })
            };
        }
        InfoView {
            rules: *state.rules(),
            me,
            ply: state.ply(),
            battleless: state.battleless(),
            cells,
            lost: [state.lost(Color::Red), state.lost(Color::Blue)],
            legal_moves: state.legal_moves(),
            history,
        }
    }

    pub fn opponent(&self) -> Color {
        self.me.opponent()
    }

    pub fn cell(&self, sq: Square) -> Cell {
        self.cells[sq.index()]
    }

    /// The acting player's pieces with their squares.
    pub fn own_pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.cells.iter().enumerate().filter_map(|(i, c)| match c {
            Cell::Own(p) => Some((square(i), *p)),
            _ => None,
        })
    }

    /// The opponent's pieces with their squares.
    pub fn opponent_pieces(&self) -> impl Iterator<Item = (Square, OpponentPiece)> + '_ {
        self.cells.iter().enumerate().filter_map(|(i, c)| match c {
            Cell::Opponent(p) => Some((square(i), *p)),
            _ => None,
        })
    }

    /// The opponent's pieces whose type is not known, per type: the starting
    /// army less the revealed pieces on the board and the lost ones.
    pub fn unknown_opponent_counts(&self) -> [u8; PieceType::COUNT] {
        let army = self.rules.piece_set.counts();
        let mut revealed = [0u8; PieceType::COUNT];
        for (_, p) in self.opponent_pieces() {
            if let Some(t) = p.known {
                revealed[t.index()] += 1;
            }
        }
        let lost = self.lost[self.opponent().index()];
        std::array::from_fn(|t| army[t] - revealed[t] - lost[t])
    }

    /// The counting prior over the opponent's hidden pieces, computed from
    /// this view alone (it equals the engine's `CountingPrior::new` for the
    /// acting player, which the tests check).
    pub fn prior(&self) -> CountingPrior {
        let hidden = self.opponent_pieces().filter(|(_, p)| p.known.is_none());
        let (moved, unmoved) = hidden.fold((0, 0), |(m, u), (_, p)| if p.moved { (m + 1, u) } else { (m, u + 1) });
        CountingPrior::from_counts(self.unknown_opponent_counts(), moved, unmoved)
    }

    /// The rank of `sq` counted from the acting player's back row (0) to the
    /// opponent's back row (9): how far forward a square is.
    pub fn forwardness(&self, sq: Square) -> u8 {
        sq.in_frame(self.me).row()
    }
}

fn square(index: usize) -> Square {
    Square::new(index as u8).expect("board cells are below 100")
}
