//! A scripted opponent for positions from real losses: Blue walks its
//! Miners towards Red's Flag whenever one can step closer (it knows where
//! the Flag is: the outside bots' Miners find it through its Bombs) and
//! plays its first legal move otherwise. Shared by the tests of expectimax's
//! blunders (`baselines/tests/blunders.rs`) and of the network players'
//! (`netplayer/tests/outside.rs`).

use stratego_engine::{Color, Move, PieceType, Square, State};

/// Plays Red with `red` from `state` against the runner for at most
/// `plies` plies; the winner, if the game ended.
pub fn runner_game(state: &State, plies: u32, mut red: impl FnMut(&State, u32) -> Move) -> Option<Color> {
    let mut s = state.clone();
    let flag = s.board().pieces().find(|(_, p)| p.color == Color::Red && p.kind == PieceType::Flag).unwrap().0;
    let distance = |q: Square| (q.row() as i32 - flag.row() as i32).abs() + (q.col() as i32 - flag.col() as i32).abs();
    for ply in 0..plies {
        if s.is_terminal() {
            break;
        }
        let moves = s.legal_moves();
        let mv = if s.to_move() == Color::Red {
            red(&s, ply)
        } else {
            let board = s.board();
            moves
                .iter()
                .copied()
                .find(|m| board[m.from].unwrap().kind == PieceType::Miner && distance(m.to) < distance(m.from))
                .unwrap_or(moves[0])
        };
        s.apply_move(mv).unwrap();
    }
    s.outcome().and_then(|o| o.winner)
}
