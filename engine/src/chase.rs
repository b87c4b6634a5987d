//! Bookkeeping for the more-squares (continuous chasing) rule, ISF article 11.
//!
//! A move *threatens* when it does not attack and ends next to an enemy piece.
//! A move *evades* when it does not attack and moves the piece that stands
//! next to the opponent's previous move's destination, that move having been
//! a threat. A player is a *continuous chaser* while each of its moves
//! threatens and each reply evades; `len` counts the plies of that chase.
//! The legality test itself lives in `State`, which owns the position history.

use crate::action::Move;
use crate::piece::Color;

#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct ChaseTracker {
    /// Plies in the ongoing chase in which this colour is the chaser: odd
    /// right after its threat, even (>= 2) when it is to move again after an
    /// evasion, 0 when it is not chasing. Any battle resets both.
    pub(crate) len: [u32; 2],
    /// Each colour's previous move.
    pub(crate) last: [Option<Move>; 2],
}

impl ChaseTracker {
    pub(crate) fn record(&mut self, mover: Color, mv: Move, battle: bool, threatens: bool) {
        let (p, q) = (mover.index(), mover.opponent().index());
        if battle {
            self.len = [0, 0];
        } else {
            let evades = self.len[q] % 2 == 1 && self.last[q].is_some_and(|m| m.to.is_adjacent(mv.from));
            self.len[q] = if evades { self.len[q] + 1 } else { 0 };
            self.len[p] = if threatens { self.len[p] + 1 } else { 0 };
        }
        self.last[p] = Some(mv);
    }

    /// The number of earlier moves of `player` in its current chase (each
    /// produced a position that its next chasing move may not recreate).
    pub(crate) fn chasing_moves(&self, player: Color) -> u32 {
        let len = self.len[player.index()];
        if len >= 2 && len.is_multiple_of(2) {
            len / 2
        } else {
            0
        }
    }
}
