//! How the board becomes tokens and how token pairs become action ids.
//!
//! One token per non-lake square (92), in cell order, plus one value token
//! at the end. The policy's (source token, destination token) logit matrix is
//! gathered into the engine's 1800 action ids with the engine's own decoder
//! (`stratego_engine::action::decode`), the single definition of the
//! encoding; ids with an end on a lake can never be legal and are masked.

use std::sync::OnceLock;

use stratego_engine::action::decode;
use stratego_engine::{Square, NUM_ACTIONS};

/// Tokens for squares (all but the 8 lakes).
pub const SQUARE_TOKENS: usize = 92;
/// Piece types the belief head predicts.
pub const TYPES: usize = 12;

/// The cell of each square token, in cell order.
pub fn token_cells() -> &'static [usize; SQUARE_TOKENS] {
    static CELLS: OnceLock<[usize; SQUARE_TOKENS]> = OnceLock::new();
    CELLS.get_or_init(|| {
        let cells: Vec<usize> = Square::all().filter(|s| !s.is_lake()).map(|s| s.index()).collect();
        cells.try_into().expect("92 squares are not lakes")
    })
}

/// The token of each cell (`None` for lakes).
pub fn cell_tokens() -> &'static [Option<usize>; Square::COUNT] {
    static TOKENS: OnceLock<[Option<usize>; Square::COUNT]> = OnceLock::new();
    TOKENS.get_or_init(|| {
        let mut tokens = [None; Square::COUNT];
        for (t, &cell) in token_cells().iter().enumerate() {
            tokens[cell] = Some(t);
        }
        tokens
    })
}

/// For each action id: its index in the flattened 92 x 92 logit matrix
/// (`source token * 92 + destination token`), or `None` if an end is a lake.
pub fn action_pairs() -> &'static [Option<usize>; NUM_ACTIONS] {
    static PAIRS: OnceLock<[Option<usize>; NUM_ACTIONS]> = OnceLock::new();
    PAIRS.get_or_init(|| {
        std::array::from_fn(|a| {
            let (from, to) = decode(a as u16).expect("every id below 1800 decodes");
            let tokens = cell_tokens();
            Some(tokens[from.index()]? * SQUARE_TOKENS + tokens[to.index()]?)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_pairs() {
        assert_eq!(token_cells()[0], 0);
        assert_eq!(token_cells()[42], 44, "cells 42 and 43 are lakes");
        assert_eq!(cell_tokens().iter().filter(|t| t.is_none()).count(), 8);
        let valid = action_pairs().iter().filter(|p| p.is_some()).count();
        assert_eq!(valid, 1544, "ids with neither end on a lake");
        let mut seen: Vec<usize> = action_pairs().iter().flatten().copied().collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 1544, "distinct pairs");
    }
}
