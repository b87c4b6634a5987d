//! Colours, piece types, the two piece sets and the battle table.

use std::fmt;

use crate::square::Square;

pub use stratego_contract::Color;

/// Piece types, numbered as in the Ataraxos engine and the observation planes:
/// the movable ranks 0-9 in battle order, then Flag and Bomb.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum PieceType {
    Spy = 0,
    Scout = 1,
    Miner = 2,
    Sergeant = 3,
    Lieutenant = 4,
    Captain = 5,
    Major = 6,
    Colonel = 7,
    General = 8,
    Marshal = 9,
    Flag = 10,
    Bomb = 11,
}

/// One row per type, in type order: the letter used in setups and position
/// texts, the name, and the ISF rank printed on the piece. This is the only
/// place the letters are defined.
const TYPE_TABLE: [(PieceType, char, &str, &str); 12] = [
    (PieceType::Spy, 'S', "spy", "1"),
    (PieceType::Scout, 'O', "scout", "2"),
    (PieceType::Miner, 'N', "miner", "3"),
    (PieceType::Sergeant, 'E', "sergeant", "4"),
    (PieceType::Lieutenant, 'L', "lieutenant", "5"),
    (PieceType::Captain, 'P', "captain", "6"),
    (PieceType::Major, 'J', "major", "7"),
    (PieceType::Colonel, 'C', "colonel", "8"),
    (PieceType::General, 'G', "general", "9"),
    (PieceType::Marshal, 'M', "marshal", "10"),
    (PieceType::Flag, 'F', "flag", "F"),
    (PieceType::Bomb, 'B', "bomb", "B"),
];

impl PieceType {
    pub const COUNT: usize = 12;
    pub const ALL: [PieceType; 12] = [
        PieceType::Spy,
        PieceType::Scout,
        PieceType::Miner,
        PieceType::Sergeant,
        PieceType::Lieutenant,
        PieceType::Captain,
        PieceType::Major,
        PieceType::Colonel,
        PieceType::General,
        PieceType::Marshal,
        PieceType::Flag,
        PieceType::Bomb,
    ];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(i: usize) -> Option<PieceType> {
        PieceType::ALL.get(i).copied()
    }

    /// Bombs and the Flag never move.
    pub const fn is_movable(self) -> bool {
        !matches!(self, PieceType::Flag | PieceType::Bomb)
    }

    /// The upper-case letter of this type in setups and position texts.
    pub fn letter(self) -> char {
        TYPE_TABLE[self.index()].1
    }

    pub fn name(self) -> &'static str {
        TYPE_TABLE[self.index()].2
    }

    /// The rank printed on the piece (ISF numbering: Marshal 10 ... Spy 1).
    pub fn rank_label(self) -> &'static str {
        TYPE_TABLE[self.index()].3
    }

    /// The type of an upper- or lower-case letter.
    pub fn from_letter(c: char) -> Option<PieceType> {
        let upper = c.to_ascii_uppercase();
        TYPE_TABLE.iter().find(|row| row.1 == upper).map(|row| row.0)
    }
}

impl fmt::Display for PieceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What happens when `attacker` strikes `defender`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BattleResult {
    /// The defender is removed and the attacker moves onto its square.
    AttackerWins,
    /// The attacker is removed; the defender stays (a Bomb stays too).
    DefenderWins,
    /// Equal ranks: both are removed.
    BothRemoved,
}

/// The battle table, the single source of truth for every fight.
///
/// Higher rank wins and equal ranks both die; the Spy wins only when it
/// attacks the Marshal; only a Miner defeats a Bomb; anything that attacks the
/// Flag takes it. Flags and Bombs never attack, so they only appear as
/// defenders (an attacking Flag or Bomb is reported as a loss).
pub fn battle(attacker: PieceType, defender: PieceType) -> BattleResult {
    use BattleResult::*;
    use PieceType::*;
    match (attacker, defender) {
        (Flag | Bomb, _) => DefenderWins,
        (_, Flag) => AttackerWins,
        (Miner, Bomb) => AttackerWins,
        (_, Bomb) => DefenderWins,
        (Spy, Marshal) => AttackerWins,
        (a, d) if a == d => BothRemoved,
        (a, d) if a > d => AttackerWins,
        _ => DefenderWins,
    }
}

/// The two armies this ruleset version knows.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum PieceSet {
    /// 40 pieces: Marshal 1, General 1, Colonel 2, Major 3, Captain 4,
    /// Lieutenant 4, Sergeant 4, Miner 5, Scout 8, Spy 1, Bomb 6, Flag 1.
    Classic,
    /// 8 pieces: Marshal, General, Miner, Scout x2, Spy, Bomb, Flag.
    Barrage,
}

impl PieceSet {
    /// How many of each type (indexed by `PieceType::index`) one side starts with.
    pub const fn counts(self) -> [u8; 12] {
        match self {
            //                    Sp Sc Mi Se Li Ca Ma Co Ge Mr Fl Bo
            PieceSet::Classic => [1, 8, 5, 4, 4, 4, 3, 2, 1, 1, 1, 6],
            PieceSet::Barrage => [1, 2, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1],
        }
    }

    pub fn count(self, kind: PieceType) -> u8 {
        self.counts()[kind.index()]
    }

    /// Pieces per side.
    pub fn army_size(self) -> usize {
        self.counts().iter().map(|&c| c as usize).sum()
    }

    pub const fn name(self) -> &'static str {
        match self {
            PieceSet::Classic => "classic",
            PieceSet::Barrage => "barrage",
        }
    }

    pub fn from_name(name: &str) -> Option<PieceSet> {
        match name {
            "classic" => Some(PieceSet::Classic),
            "barrage" => Some(PieceSet::Barrage),
            _ => None,
        }
    }
}

/// A piece on the board, with what the state must remember about it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceType,
    /// The square it started the game on (absolute): the piece's identity.
    pub origin: Square,
    /// Its type is known to the opponent (it fought, or a Scout ran).
    pub revealed: bool,
    /// It has moved at least once (so it is neither a Bomb nor the Flag).
    pub moved: bool,
}

impl Piece {
    /// A fresh, hidden, unmoved piece that starts on `origin`.
    pub fn new(color: Color, kind: PieceType, origin: Square) -> Piece {
        Piece { color, kind, origin, revealed: false, moved: false }
    }

    /// The letter of the piece on a board: upper case for Red, lower for Blue.
    pub fn letter(&self) -> char {
        match self.color {
            Color::Red => self.kind.letter(),
            Color::Blue => self.kind.letter().to_ascii_lowercase(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_are_unique_and_round_trip() {
        for kind in PieceType::ALL {
            assert_eq!(PieceType::from_letter(kind.letter()), Some(kind));
            assert_eq!(PieceType::from_letter(kind.letter().to_ascii_lowercase()), Some(kind));
            assert_eq!(PieceType::from_index(kind.index()), Some(kind));
        }
        let mut letters: Vec<char> = PieceType::ALL.iter().map(|k| k.letter()).collect();
        letters.sort();
        letters.dedup();
        assert_eq!(letters.len(), 12);
    }

    #[test]
    fn army_sizes() {
        assert_eq!(PieceSet::Classic.army_size(), 40);
        assert_eq!(PieceSet::Barrage.army_size(), 8);
        assert_eq!(PieceSet::Classic.count(PieceType::Scout), 8);
        assert_eq!(PieceSet::Classic.count(PieceType::Bomb), 6);
    }

    /// The whole table, spelled out by hand (rows: attacker, columns: defender,
    /// in type order Sp Sc Mi Se Li Ca Ma Co Ge Mr Fl Bo).
    #[test]
    fn battle_table_matches_the_rules() {
        let expected = [
            "-<<<<<<<<>><", // Spy attacks: wins only vs Marshal and Flag
            ">=<<<<<<<<><", // Scout
            ">>=<<<<<<<>>", // Miner: defuses bombs
            ">>>=<<<<<<><",
            ">>>>=<<<<<><",
            ">>>>>=<<<<><",
            ">>>>>>=<<<><",
            ">>>>>>>=<<><",
            ">>>>>>>>=<><",
            ">>>>>>>>>=><", // Marshal: ties Marshal, dies on a Bomb
        ];
        for (a, row) in expected.iter().enumerate() {
            for (d, c) in row.chars().enumerate() {
                let attacker = PieceType::from_index(a).unwrap();
                let defender = PieceType::from_index(d).unwrap();
                let want = match c {
                    '>' => BattleResult::AttackerWins,
                    '<' => BattleResult::DefenderWins,
                    '=' | '-' => BattleResult::BothRemoved,
                    _ => unreachable!(),
                };
                assert_eq!(battle(attacker, defender), want, "{attacker} attacks {defender}");
            }
        }
        // Spy defending against the Marshal loses: the Spy only wins as attacker.
        assert_eq!(battle(PieceType::Marshal, PieceType::Spy), BattleResult::AttackerWins);
    }
}
