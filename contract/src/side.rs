//! The two sides of a two-player game on the contract.

use std::fmt;

/// The two players: Red is player 0, Blue player 1 (in Stratego and CoToan
/// Red moves first by default).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    Red = 0,
    Blue = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Red, Color::Blue];

    pub const fn opponent(self) -> Color {
        match self {
            Color::Red => Color::Blue,
            Color::Blue => Color::Red,
        }
    }

    /// The OpenSpiel player id: Red 0, Blue 1.
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Blue => "blue",
        }
    }

    pub fn from_name(name: &str) -> Option<Color> {
        match name {
            "red" | "r" => Some(Color::Red),
            "blue" | "b" => Some(Color::Blue),
            _ => None,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
