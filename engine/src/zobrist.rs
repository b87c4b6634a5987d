//! Zobrist keys for the placement of pieces, used by the chasing rule to spot
//! a repeated position in O(1) before confirming it square by square.

use crate::piece::{Color, PieceType};
use crate::square::Square;

/// splitmix64: fixed keys, the same in every build and on every machine.
const fn splitmix64(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

static KEYS: [[[u64; Square::COUNT]; PieceType::COUNT]; 2] = {
    let mut keys = [[[0; Square::COUNT]; PieceType::COUNT]; 2];
    let mut state = 0x5354_5241_5445_474F; // "STRATEGO"
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < PieceType::COUNT {
            let mut s = 0;
            while s < Square::COUNT {
                let (next, key) = splitmix64(state);
                state = next;
                keys[c][k][s] = key;
                s += 1;
            }
            k += 1;
        }
        c += 1;
    }
    keys
};

/// The key of a piece of `color` and `kind` standing on `sq`.
pub fn key(color: Color, kind: PieceType, sq: Square) -> u64 {
    KEYS[color.index()][kind.index()][sq.index()]
}
