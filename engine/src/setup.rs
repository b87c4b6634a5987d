//! Setups: a side's starting army on its four home rows.
//!
//! A setup is a 40-letter string in the owner's frame: letter `i` stands on
//! owner-relative cell `i`, so letters 0-9 fill the owner's back row from its
//! left (Red: a1..j1; Blue: j10..a10) and letters 30-39 its front row
//! (Red: a4..j4; Blue: j7..a7). Letters are the piece letters of
//! `PieceType::letter`; `.` is an empty home square (Barrage).

use std::fmt;

use rand::Rng;

use crate::error::SetupError;
use crate::piece::{PieceSet, PieceType};
use crate::square::{Direction, Square};

/// Home squares per side.
pub const SETUP_SQUARES: usize = 40;

/// One side's starting army, indexed by owner-relative cell 0..40.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Setup([Option<PieceType>; SETUP_SQUARES]);

impl Setup {
    /// Parses and validates a setup for `set`.
    pub fn parse(text: &str, set: PieceSet) -> Result<Setup, SetupError> {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() != SETUP_SQUARES {
            return Err(SetupError::WrongLength(chars.len()));
        }
        let mut slots = [None; SETUP_SQUARES];
        for (index, (&letter, slot)) in chars.iter().zip(slots.iter_mut()).enumerate() {
            *slot = match letter {
                '.' => None,
                c if c.is_ascii_uppercase() => {
                    Some(PieceType::from_letter(c).ok_or(SetupError::BadLetter { letter, index })?)
                }
                _ => return Err(SetupError::BadLetter { letter, index }),
            };
        }
        let setup = Setup(slots);
        setup.validate(set)?;
        Ok(setup)
    }

    /// Builds a setup from slots, checking the army against `set`.
    pub fn from_slots(slots: [Option<PieceType>; SETUP_SQUARES], set: PieceSet) -> Result<Setup, SetupError> {
        let setup = Setup(slots);
        setup.validate(set)?;
        Ok(setup)
    }

    /// Checks that the army is exactly `set`'s.
    pub fn validate(&self, set: PieceSet) -> Result<(), SetupError> {
        let mut counts = [0usize; PieceType::COUNT];
        for kind in self.0.iter().flatten() {
            counts[kind.index()] += 1;
        }
        for kind in PieceType::ALL {
            let expected = set.count(kind) as usize;
            if counts[kind.index()] != expected {
                return Err(SetupError::WrongCount { kind, found: counts[kind.index()], expected, set: set.name() });
            }
        }
        let empties = self.0.iter().filter(|s| s.is_none()).count();
        let expected = SETUP_SQUARES - set.army_size();
        if empties != expected {
            return Err(SetupError::WrongEmpties { found: empties, expected, set: set.name() });
        }
        Ok(())
    }

    /// The piece on owner-relative home cell `index` (0..40).
    pub fn get(&self, index: usize) -> Option<PieceType> {
        self.0.get(index).copied().flatten()
    }

    pub fn slots(&self) -> &[Option<PieceType>; SETUP_SQUARES] {
        &self.0
    }

    /// Whether the army could make a move on an otherwise empty far half:
    /// some movable piece has a free neighbour (an empty home square or the
    /// open squares beyond the front row). An army that cannot move would
    /// lose on its first turn, so random setups never produce one.
    pub fn can_move(&self) -> bool {
        (0..SETUP_SQUARES).any(|i| {
            let Some(kind) = self.0[i] else { return false };
            kind.is_movable()
                && Direction::ALL.iter().any(|&dir| {
                    Square::new(i as u8)
                        .and_then(|sq| sq.step(dir))
                        .is_some_and(|n| n.index() >= SETUP_SQUARES || self.0[n.index()].is_none())
                })
        })
    }

    /// A uniformly random setup among those that can move.
    ///
    /// A Fisher-Yates shuffle of the army (with empties for Barrage) gives
    /// every arrangement the same probability; immobile ones are redrawn.
    pub fn random(set: PieceSet, rng: &mut impl Rng) -> Setup {
        let mut slots = [None; SETUP_SQUARES];
        let mut next = 0;
        for kind in PieceType::ALL {
            for _ in 0..set.count(kind) {
                slots[next] = Some(kind);
                next += 1;
            }
        }
        loop {
            for i in (1..SETUP_SQUARES).rev() {
                slots.swap(i, rng.random_range(0..=i));
            }
            let setup = Setup(slots);
            if setup.can_move() {
                return setup;
            }
        }
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for slot in &self.0 {
            let c = slot.map_or('.', |k| k.letter());
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn random_setups_are_valid_and_reproducible() {
        for set in [PieceSet::Classic, PieceSet::Barrage] {
            let mut a = Xoshiro256PlusPlus::seed_from_u64(5);
            let mut b = Xoshiro256PlusPlus::seed_from_u64(5);
            for _ in 0..200 {
                let s = Setup::random(set, &mut a);
                assert_eq!(s, Setup::random(set, &mut b));
                s.validate(set).unwrap();
                assert!(s.can_move());
                assert_eq!(Setup::parse(&s.to_string(), set).unwrap(), s);
            }
        }
    }

    #[test]
    fn bad_setups_are_typed_errors() {
        let good = Setup::random(PieceSet::Classic, &mut Xoshiro256PlusPlus::seed_from_u64(1)).to_string();
        let set = PieceSet::Classic;
        assert_eq!(Setup::parse(&good[..39], set), Err(SetupError::WrongLength(39)));
        let mut swapped = good.clone();
        swapped.replace_range(0..1, "x");
        assert!(matches!(Setup::parse(&swapped, set), Err(SetupError::BadLetter { index: 0, .. })));
        let too_many_marshals = good.replacen('B', "M", 1);
        assert!(matches!(
            Setup::parse(&too_many_marshals, set),
            Err(SetupError::WrongCount { kind: PieceType::Marshal, found: 2, .. })
        ));
        // A Barrage army written as classic fails on counts, and the other way round.
        assert!(Setup::parse(&good, PieceSet::Barrage).is_err());
    }

    #[test]
    fn a_walled_in_army_cannot_move() {
        // Front row: bombs and the flag in front of every open square; movable
        // pieces only behind them or facing the lakes with bombs beside them.
        let mut text = String::new();
        text.push_str("OOOOOOOONN"); // row 0
        text.push_str("NNNEEEELLL"); // row 1
        text.push_str("LPPPPJJJCC"); // row 2
        text.push_str("BBGMBBSFBB"); // row 3: G,M face lakes c5,d5; S,F face lakes g5,h5
        let setup = Setup::parse(&text, PieceSet::Classic).unwrap();
        assert!(!setup.can_move());
    }
}
