//! The two-square rule: a piece may not cross the same square border more
//! than N times in a row.
//!
//! A player's consecutive moves with one piece along one line are spans of
//! squares on that line. Moves that all cross a common border are spans with
//! a common edge; such a run alternates direction by construction. The rule
//! forbids the move that would make the run N + 1 long. For a one-step piece
//! that is the N+1-th shuttle between two squares; for a Scout it forbids
//! only the part of the reversing run that goes past the earlier turning
//! point, so it may still move part of the way back (Ataraxos, section 1.5).

use crate::action::Move;
use crate::rules::MAX_TWO_SQUARE_LIMIT;
use crate::square::Square;

const CAPACITY: usize = MAX_TWO_SQUARE_LIMIT as usize + 1;

/// One player's run of moves with the piece it moved last.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct ShuttleTracker {
    /// Where the tracked piece stands now, if it survived its last move.
    piece_at: Option<Square>,
    /// Whether the run is along a column (rows change) or along a row.
    vertical: bool,
    /// The run's spans as (low, high) coordinates on the line, newest last;
    /// only the longest suffix with a common edge is kept.
    spans: [(u8, u8); CAPACITY],
    len: u8,
    /// The edge interval every kept span crosses.
    common: (u8, u8),
}

/// The span of a straight move on its line and whether the line is a column.
fn span(mv: Move) -> (bool, (u8, u8)) {
    if mv.from.col() == mv.to.col() {
        let (a, b) = (mv.from.row(), mv.to.row());
        (true, (a.min(b), a.max(b)))
    } else {
        let (a, b) = (mv.from.col(), mv.to.col());
        (false, (a.min(b), a.max(b)))
    }
}

/// The edges two spans share, if any.
fn overlap(a: (u8, u8), b: (u8, u8)) -> Option<(u8, u8)> {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    (lo < hi).then_some((lo, hi))
}

impl ShuttleTracker {
    /// Records a move of this player. `survived` is false when the moving
    /// piece died in the battle, which ends its run.
    pub(crate) fn record(&mut self, mv: Move, survived: bool, limit: u8) {
        if limit == 0 {
            return;
        }
        if !survived {
            *self = ShuttleTracker::default();
            return;
        }
        let (vertical, new_span) = span(mv);
        let continues = self.piece_at == Some(mv.from) && self.vertical == vertical && self.len > 0;
        if !continues {
            self.len = 0;
        }
        self.piece_at = Some(mv.to);
        self.vertical = vertical;
        // Walk back from the new span while the spans still share an edge.
        let mut common = new_span;
        let mut keep = 1usize;
        for i in (0..self.len as usize).rev() {
            if keep == limit as usize {
                break;
            }
            match overlap(common, self.spans[i]) {
                Some(c) => {
                    common = c;
                    keep += 1;
                }
                None => break,
            }
        }
        let old_len = self.len as usize;
        let first_kept = old_len + 1 - keep;
        self.spans.copy_within(first_kept..old_len, 0);
        self.spans[keep - 1] = new_span;
        self.len = keep as u8;
        self.common = common;
    }

    /// Whether the run is long enough for the rule to forbid some move.
    pub(crate) fn is_active(&self, limit: u8) -> bool {
        limit > 0 && self.len >= limit
    }

    /// Whether the rule forbids this move of this player now.
    pub(crate) fn forbids(&self, mv: Move, limit: u8) -> bool {
        if limit == 0 || self.len < limit || self.piece_at != Some(mv.from) {
            return false;
        }
        let (vertical, s) = span(mv);
        vertical == self.vertical && overlap(s, self.common).is_some()
    }
}
