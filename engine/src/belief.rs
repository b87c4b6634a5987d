//! The counting prior: what one side can say about the other's hidden pieces
//! from public information alone.
//!
//! For the opponent's army, `unknown[type] = starting count - revealed on the
//! board - lost`. Every hidden opponent piece is one of the unknown ones. A
//! hidden piece that has moved is none of the Bombs and the Flag, and takes
//! the movable types in proportion to their unknown counts. A hidden piece
//! that never moved takes an equal share of the unknown Bombs and Flag, and
//! of what the moved pieces leave of each movable type, so that over all
//! hidden squares the expected count of each type equals its unknown count:
//!
//! ```text
//! moved:   P(t) = unknown[t] / U                        (t movable; U = sum of movable unknowns)
//! unmoved: P(t) = unknown[t] * (U - n_moved) / (U * n_unmoved)   (t movable)
//!          P(Bomb) = unknown[Bomb] / n_unmoved, P(Flag) = unknown[Flag] / n_unmoved
//! ```
//!
//! The prior ignores how the opponent plays; it is the baseline the belief
//! network replaces, and the one prior the observation planes, the greedy
//! player and the n-tuple player share.

use crate::piece::{Color, Piece, PieceType};
use crate::state::State;

/// A distribution over the 12 piece types, indexed by `PieceType::index`.
pub type TypeDistribution = [f32; PieceType::COUNT];

/// The counting prior of `viewer` about its opponent's hidden pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct CountingPrior {
    /// Opponent pieces of each type that are neither revealed on the board nor lost.
    pub unknown: [u8; PieceType::COUNT],
    /// Hidden opponent pieces that have moved, and that have not.
    pub hidden_moved: u32,
    pub hidden_unmoved: u32,
    moved: TypeDistribution,
    unmoved: TypeDistribution,
}

impl CountingPrior {
    /// The prior of `viewer` in `state`, from public information only: the
    /// opponent's starting army, its revealed pieces on the board, its lost
    /// pieces (every loss is public: battles reveal both sides), and which of
    /// its hidden pieces have moved.
    pub fn new(state: &State, viewer: Color) -> CountingPrior {
        let opponent = viewer.opponent();
        let pieces = state.board().pieces().filter(|(_, p)| p.color == opponent).map(|(_, p)| p);
        CountingPrior::from_pieces(state.rules().piece_set.counts(), pieces)
    }

    /// `new` from the opponent's starting army and its pieces on the board
    /// (all of them), in one pass: for callers that have gathered them.
    pub fn from_pieces(army: [u8; PieceType::COUNT], pieces: impl IntoIterator<Item = Piece>) -> CountingPrior {
        let mut on_board = [0u8; PieceType::COUNT];
        let mut revealed = [0u8; PieceType::COUNT];
        let (mut hidden_moved, mut hidden_unmoved) = (0u32, 0u32);
        for p in pieces {
            on_board[p.kind.index()] += 1;
            if p.revealed {
                revealed[p.kind.index()] += 1;
            } else if p.moved {
                hidden_moved += 1;
            } else {
                hidden_unmoved += 1;
            }
        }
        // Every loss is public (battles reveal both sides): the lost pieces
        // are the army less those on the board.
        let lost: [u8; PieceType::COUNT] = std::array::from_fn(|t| army[t] - on_board[t]);
        let unknown: [u8; PieceType::COUNT] = std::array::from_fn(|t| army[t] - revealed[t] - lost[t]);
        CountingPrior::from_counts(unknown, hidden_moved, hidden_unmoved)
    }

    /// The prior from the unknown counts and the numbers of hidden moved and
    /// unmoved pieces (which must add up to the unknown total).
    pub fn from_counts(unknown: [u8; PieceType::COUNT], hidden_moved: u32, hidden_unmoved: u32) -> CountingPrior {
        let movable_unknown: u32 =
            PieceType::ALL.iter().filter(|t| t.is_movable()).map(|t| unknown[t.index()] as u32).sum();
        let mut moved = [0.0f32; PieceType::COUNT];
        let mut unmoved = [0.0f32; PieceType::COUNT];
        if movable_unknown > 0 {
            let u = movable_unknown as f64;
            let left_for_unmoved = (movable_unknown.saturating_sub(hidden_moved)) as f64;
            for t in PieceType::ALL.iter().filter(|t| t.is_movable()) {
                let n = unknown[t.index()] as f64;
                moved[t.index()] = (n / u) as f32;
                if hidden_unmoved > 0 {
                    unmoved[t.index()] = (n * left_for_unmoved / (u * hidden_unmoved as f64)) as f32;
                }
            }
        }
        if hidden_unmoved > 0 {
            for t in [PieceType::Bomb, PieceType::Flag] {
                unmoved[t.index()] = unknown[t.index()] as f32 / hidden_unmoved as f32;
            }
        }
        CountingPrior { unknown, hidden_moved, hidden_unmoved, moved, unmoved }
    }

    /// The type distribution of a hidden opponent piece. (A revealed piece's
    /// type is known; callers use a one-hot for it.)
    pub fn of(&self, piece: &Piece) -> &TypeDistribution {
        if piece.moved {
            &self.moved
        } else {
            &self.unmoved
        }
    }

    /// The distribution of a hidden piece that has moved.
    pub fn moved(&self) -> &TypeDistribution {
        &self.moved
    }

    /// The distribution of a hidden piece that has not moved.
    pub fn unmoved(&self) -> &TypeDistribution {
        &self.unmoved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PieceSet, Ruleset, Setup};
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn check(prior: &CountingPrior) {
        let n = (prior.hidden_moved + prior.hidden_unmoved) as f32;
        assert_eq!(n as u32, prior.unknown.iter().map(|&u| u as u32).sum::<u32>());
        for (count, dist) in [(prior.hidden_moved, prior.moved()), (prior.hidden_unmoved, prior.unmoved())] {
            if count > 0 {
                assert!((dist.iter().sum::<f32>() - 1.0).abs() < 1e-5, "sums to 1: {dist:?}");
                assert!(dist.iter().all(|&p| (0.0..=1.0 + 1e-6).contains(&p)));
            }
        }
        assert_eq!(prior.moved()[PieceType::Bomb.index()], 0.0);
        assert_eq!(prior.moved()[PieceType::Flag.index()], 0.0);
        for t in 0..PieceType::COUNT {
            let expected =
                prior.hidden_moved as f32 * prior.moved()[t] + prior.hidden_unmoved as f32 * prior.unmoved()[t];
            assert!((expected - prior.unknown[t] as f32).abs() < 1e-4, "type {t}: {expected} vs {}", prior.unknown[t]);
        }
    }

    #[test]
    fn at_the_start_every_hidden_piece_has_the_army_distribution() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let red = Setup::random(PieceSet::Classic, &mut rng);
        let blue = Setup::random(PieceSet::Classic, &mut rng);
        let state = State::from_setups(Ruleset::classic(), &red, &blue).unwrap();
        let prior = CountingPrior::new(&state, Color::Red);
        check(&prior);
        assert_eq!(prior.hidden_unmoved, 40);
        assert!((prior.unmoved()[PieceType::Bomb.index()] - 6.0 / 40.0).abs() < 1e-6);
        assert!((prior.unmoved()[PieceType::Scout.index()] - 8.0 / 40.0).abs() < 1e-6);
    }

    #[test]
    fn moved_pieces_shift_the_bombs_onto_the_unmoved_ones() {
        // 7 unknown: 3 Scouts, the Marshal, 2 Bombs and the Flag.
        let mut unknown = [0u8; 12];
        unknown[PieceType::Scout.index()] = 3;
        unknown[PieceType::Marshal.index()] = 1;
        unknown[PieceType::Bomb.index()] = 2;
        unknown[PieceType::Flag.index()] = 1;
        // 7 hidden: 2 moved, 5 unmoved.
        let prior = CountingPrior::from_counts(unknown, 2, 5);
        check(&prior);
        assert!((prior.moved()[PieceType::Scout.index()] - 0.75).abs() < 1e-6);
        assert!((prior.unmoved()[PieceType::Bomb.index()] - 0.4).abs() < 1e-6);
        assert!((prior.unmoved()[PieceType::Flag.index()] - 0.2).abs() < 1e-6);
        // 4 movable unknown, 2 of them moved: the 5 unmoved hold the other 2.
        assert!((prior.unmoved()[PieceType::Scout.index()] - 3.0 * 2.0 / (4.0 * 5.0)).abs() < 1e-6);
    }

    #[test]
    fn the_prior_holds_its_invariants_through_random_games() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        for _ in 0..40 {
            let red = Setup::random(PieceSet::Classic, &mut rng);
            let blue = Setup::random(PieceSet::Classic, &mut rng);
            let mut state = State::from_setups(Ruleset::classic(), &red, &blue).unwrap();
            while let Some(mv) = state.sample_legal_move(&mut rng) {
                state.apply_move(mv).unwrap();
                for viewer in Color::BOTH {
                    check(&CountingPrior::new(&state, viewer));
                }
            }
        }
    }
}
