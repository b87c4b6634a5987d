//! Square and move notation shared by the games on the contract.
//!
//! A square is named as on a chess board: its file letter (`a` for column
//! 0) and its rank number (1 for row 0), `a1` .. `j10` on Stratego's 10x10
//! board, `a1` .. `i11` on CoToan's 9x11. A move is named by its endpoints,
//! `from-to` (`b2-b5`); `fromxto` (`b2xb5`) reads as the same move.

use std::fmt;
use std::str::FromStr;

/// A rectangular board of `files` columns by `ranks` rows, at most 23 files
/// (`a`..`w`, so that `x` stays a move separator) and at most 255 ranks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    pub files: u8,
    pub ranks: u8,
}

impl Grid {
    /// Writes the name of the square at (`col`, `row`): `c4` for (2, 3).
    pub fn write_square(self, f: &mut fmt::Formatter<'_>, col: u8, row: u8) -> fmt::Result {
        debug_assert!(col < self.files && row < self.ranks);
        write!(f, "{}{}", (b'a' + col) as char, row + 1)
    }

    /// Reads a square name into (`col`, `row`): a file letter of the grid,
    /// then the rank in decimal digits without a sign or a leading zero, in
    /// 1..=`ranks`. `None` for anything else.
    pub fn parse_square(self, text: &str) -> Option<(u8, u8)> {
        let file = *text.as_bytes().first()?;
        if !(b'a'..b'a' + self.files).contains(&file) {
            return None;
        }
        let rank_text = &text[1..]; // the file letter is one byte
        if rank_text.is_empty() || rank_text.starts_with('0') || !rank_text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let rank: u8 = rank_text.parse().ok()?;
        (rank <= self.ranks).then_some((file - b'a', rank - 1))
    }
}

/// Writes a move `from-to`.
pub fn write_move(f: &mut fmt::Formatter<'_>, from: impl fmt::Display, to: impl fmt::Display) -> fmt::Result {
    write!(f, "{from}-{to}")
}

/// Reads `from-to` or `fromxto` into its two squares; `None` unless the text
/// is two square names around one separator.
pub fn parse_move<S: FromStr>(text: &str) -> Option<(S, S)> {
    let (from, to) = text.split_once(['-', 'x'])?;
    Some((from.parse().ok()?, to.parse().ok()?))
}

/// Defines a game's move type, a move named by its endpoints:
/// `struct $name { pub from: $point, pub to: $point }` (ordered by `from`,
/// then `to`) with `new`, written `from-to` (`write_move`) and read from
/// `from-to` or `fromxto` (`parse_move`, the separator not checked against
/// the board); other text is the error `$bad(text)` of type `$error`. The
/// game adds what is its own (action ids, symmetries) in its own `impl`.
///
/// ```
/// # #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
/// # struct Point(u8);
/// # impl std::fmt::Display for Point {
/// #     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "p{}", self.0) }
/// # }
/// # impl std::str::FromStr for Point {
/// #     type Err = ();
/// #     fn from_str(s: &str) -> Result<Point, ()> { s.strip_prefix('p').and_then(|n| n.parse().ok()).map(Point).ok_or(()) }
/// # }
/// stratego_contract::endpoint_move! {
///     /// A move of the toy game.
///     pub struct Move(Point);
///     String = |text| text
/// }
/// let mv: Move = "p1xp2".parse().unwrap();
/// assert_eq!((mv, mv.to_string()), (Move::new(Point(1), Point(2)), "p1-p2".to_string()));
/// assert_eq!("p1".parse::<Move>(), Err("p1".to_string()));
/// ```
#[macro_export]
macro_rules! endpoint_move {
    ($(#[$meta:meta])* $vis:vis struct $name:ident($point:ty); $error:ty = $bad:expr) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        $vis struct $name {
            pub from: $point,
            pub to: $point,
        }

        impl $name {
            pub const fn new(from: $point, to: $point) -> $name {
                $name { from, to }
            }
        }

        impl ::std::fmt::Display for $name {
            /// `from-to` (`b2-b5`), whether or not the move captures.
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                $crate::notation::write_move(f, self.from, self.to)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $error;

            /// `from-to` or `fromxto` (`b2-b5`, `b2xb5`).
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                let (from, to) = $crate::notation::parse_move(s).ok_or_else(|| ($bad)(s.to_string()))?;
                Ok($name { from, to })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square of a 9x11 grid, for the tests.
    #[derive(Debug, PartialEq)]
    struct Sq(u8, u8);

    const GRID: Grid = Grid { files: 9, ranks: 11 };

    impl fmt::Display for Sq {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            GRID.write_square(f, self.0, self.1)
        }
    }

    impl FromStr for Sq {
        type Err = ();
        fn from_str(s: &str) -> Result<Sq, ()> {
            GRID.parse_square(s).map(|(c, r)| Sq(c, r)).ok_or(())
        }
    }

    #[test]
    fn squares_round_trip_and_refuse_other_text() {
        for col in 0..9 {
            for row in 0..11 {
                let name = Sq(col, row).to_string();
                assert_eq!(name.parse::<Sq>(), Ok(Sq(col, row)), "{name}");
            }
        }
        assert_eq!(Sq(2, 3).to_string(), "c4");
        assert_eq!(Sq(8, 10).to_string(), "i11");
        for bad in ["", "c", "j1", "a0", "a12", "a01", "A1", "a+1", "a-1", "c4x", "1a", "é1", "a256", "a99999"] {
            assert_eq!(bad.parse::<Sq>(), Err(()), "{bad}");
        }
    }

    /// `Sq`, but also reading a rank with a leading zero (`a01`).
    #[derive(Debug, PartialEq)]
    struct Lax(Sq);

    impl fmt::Display for Lax {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
    }

    impl FromStr for Lax {
        type Err = ();
        fn from_str(s: &str) -> Result<Lax, ()> {
            s.replacen("01", "1", 1).parse().map(Lax)
        }
    }

    #[test]
    fn the_conformance_check_of_square_names_sees_each_flaw() {
        use crate::conformance::check_square_names;
        let row_major = || (0..11).flat_map(|r| (0..9).map(move |c| Sq(c, r)));
        assert_eq!(check_square_names(GRID, row_major()), Ok(()));
        let column_major = (0..9).flat_map(|c| (0..11).map(move |r| Sq(c, r)));
        assert!(check_square_names(GRID, column_major).unwrap_err().contains("square 1 "));
        assert!(check_square_names(GRID, row_major().take(98)).unwrap_err().contains("98 squares"));
        assert!(check_square_names(GRID, row_major().map(Lax)).unwrap_err().contains("`a01`"));
    }

    #[test]
    fn moves_read_either_separator() {
        assert_eq!(parse_move::<Sq>("c4-e6"), Some((Sq(2, 3), Sq(4, 5))));
        assert_eq!(parse_move::<Sq>("c4xe6"), Some((Sq(2, 3), Sq(4, 5))));
        for bad in ["", "c4", "c4e6", "c4-", "c4-e6-e7", "c4xe6xe7", "c4 - e6", "c4-z9"] {
            assert_eq!(parse_move::<Sq>(bad), None, "{bad}");
        }
        struct M;
        impl fmt::Display for M {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_move(f, Sq(1, 1), Sq(1, 4))
            }
        }
        assert_eq!(M.to_string(), "b2-b5");
    }
}
