//! Stratego's information state for OpenSpiel: everything one player has
//! observed since the game began, as a text and as a fixed-size tensor.
//!
//! Both are written from one record (`Recall`), so they hold the same
//! information: two states give a player equal texts exactly when they give
//! it equal tensors. The lab's observation layouts (58 compact, 488 full
//! planes) summarise the past in windows and counters, so two different
//! histories can meet in one set of planes; they are OpenSpiel observations,
//! and this encoding is the information state.
//!
//! The tensor, in the player's own frame (Blue's squares rotated), is five
//! sections in this order (`sections`):
//! - `player` `[2]`: one-hot, Red then Blue;
//! - `dealt` `[2]`: whether Red's and Blue's setups have been dealt;
//! - `outcome` `[3 + 6]`: game over, the player won, the opponent won, then
//!   the end reason one-hot in `EndReason::ALL` order (zeros until the end);
//! - `setup` `[12, 10, 10]`: the player's own pieces at the start, one plane
//!   per type in `PieceType::ALL` order (zeros until its setup is dealt);
//! - `plies` `[max-plies, 24]`: one row per ply played, zeros after the
//!   last: played (1), the mover is the player (1), the from square and the
//!   to square (7 bits each, least significant first), and the types a
//!   battle revealed, attacker then defender (4 bits each, type index + 1,
//!   0 when there was no battle). A battle's result is not stored: the two
//!   types decide it (`stratego_engine::battle`).

use std::fmt::Write as _;

use stratego_engine::{Color, EndReason, Outcome, PieceType, Setup, Square, State};
use stratego_players::view::{public_history, PublicPly};

use crate::value_error;

/// The longest game (`max-plies`) whose tensor is provided: its `plies`
/// section grows with the cap, 24 values a ply (classic, 4,000 plies: 97,213
/// values in all). A longer cap makes the game declare no information-state
/// tensor.
pub(crate) const MAX_TENSOR_PLIES: u32 = 20_000;

const SQUARE_BITS: usize = 7;
const TYPE_BITS: usize = 4;
/// Values per ply: played, mover, two squares, two type codes.
const PLY_FIELDS: usize = 2 + 2 * SQUARE_BITS + 2 * TYPE_BITS;
const OUTCOME_FIELDS: usize = 3 + EndReason::ALL.len();
const SETUP_PLANES: usize = PieceType::COUNT;

/// The tensor's sections, in order: names and shapes (the observer's dict).
pub(crate) fn sections(max_plies: u32) -> Vec<(&'static str, Vec<usize>)> {
    vec![
        ("player", vec![2]),
        ("dealt", vec![2]),
        ("outcome", vec![OUTCOME_FIELDS]),
        ("setup", vec![SETUP_PLANES, 10, 10]),
        ("plies", vec![max_plies as usize, PLY_FIELDS]),
    ]
}

/// The tensor's length for a ply cap.
pub(crate) fn tensor_len(max_plies: u32) -> usize {
    sections(max_plies).iter().map(|(_, shape)| shape.iter().product::<usize>()).sum()
}

/// What one player has observed: its identity, which setups have been
/// dealt, its own starting pieces once dealt, the public record of every
/// ply, and the outcome once the game is over.
pub(crate) struct Recall {
    me: Color,
    dealt: [bool; 2],
    /// Own pieces at the start, absolute squares.
    setup: Option<Vec<(Square, PieceType)>>,
    plies: Vec<PublicPly>,
    outcome: Option<Outcome>,
}

impl Recall {
    /// Before play: no setup dealt yet (`red` None), or Red's only.
    pub(crate) fn dealing(me: Color, red: Option<&Setup>) -> Recall {
        let setup = red.filter(|_| me == Color::Red).map(|setup| {
            let slots = setup.slots().iter().enumerate();
            slots
                .filter_map(|(i, kind)| {
                    Some((Square::new(i as u8).expect("setup index is a cell").in_frame(Color::Red), (*kind)?))
                })
                .collect()
        });
        Recall { me, dealt: [red.is_some(), false], setup, plies: Vec::new(), outcome: None }
    }

    /// Once both setups are dealt: the game so far.
    pub(crate) fn of(state: &State, me: Color) -> Recall {
        let setup = state.root().board.pieces().filter(|(_, p)| p.color == me).map(|(sq, p)| (sq, p.kind)).collect();
        Recall { me, dealt: [true, true], setup: Some(setup), plies: public_history(state), outcome: state.outcome() }
    }

    /// The information-state string: `player 0: setups being dealt`, then
    /// the own setup (`red setup: Fa1 Bb1 ...`), one line per ply
    /// (`12: blue j7-j6`, `13: red b4-b5 E attacks P: DefenderWins`) and
    /// at the end `game over: red-wins flag-captured`.
    pub(crate) fn text(&self) -> String {
        if !self.dealt[0] {
            return format!("player {}: setups being dealt", self.me.index());
        }
        let mut text = match &self.setup {
            None => format!("player {}: Red's setup dealt, Blue's being dealt", self.me.index()),
            Some(pieces) => {
                let mut text = format!("{} setup:", self.me);
                for (sq, kind) in pieces {
                    let _ = write!(text, " {}{sq}", kind.letter());
                }
                if !self.dealt[1] {
                    text.push_str("\nBlue's setup being dealt");
                }
                text
            }
        };
        for (ply, public) in self.plies.iter().enumerate() {
            let _ = write!(text, "\n{}: {}", ply + 1, ply_text(public));
        }
        if let Some(outcome) = self.outcome {
            let _ = write!(text, "\ngame over: {}", outcome.to_text());
        }
        text
    }

    /// Writes the tensor (module docs) for a game of at most `max_plies`
    /// plies into `out`, which must hold `tensor_len(max_plies)` values.
    pub(crate) fn write(&self, max_plies: u32, out: &mut [f32]) -> Result<(), String> {
        let len = tensor_len(max_plies);
        if out.len() != len {
            return Err(format!("the information-state buffer holds {} values, the tensor has {len}", out.len()));
        }
        if self.plies.len() > max_plies as usize {
            return Err(format!(
                "{} plies played, more than the {max_plies} the tensor has rows for",
                self.plies.len()
            ));
        }
        out.fill(0.0);
        let (player, rest) = out.split_at_mut(2);
        let (dealt, rest) = rest.split_at_mut(2);
        let (outcome, rest) = rest.split_at_mut(OUTCOME_FIELDS);
        let (setup, plies) = rest.split_at_mut(SETUP_PLANES * Square::COUNT);
        player[self.me.index()] = 1.0;
        for (flag, &done) in dealt.iter_mut().zip(&self.dealt) {
            *flag = f32::from(u8::from(done));
        }
        if let Some(o) = self.outcome {
            outcome[0] = 1.0;
            match o.winner {
                Some(c) if c == self.me => outcome[1] = 1.0,
                Some(_) => outcome[2] = 1.0,
                None => {}
            }
            let reason = EndReason::ALL.iter().position(|&r| r == o.reason).expect("every reason is listed");
            outcome[3 + reason] = 1.0;
        }
        for &(sq, kind) in self.setup.iter().flatten() {
            setup[kind.index() * Square::COUNT + sq.in_frame(self.me).index()] = 1.0;
        }
        for (public, row) in self.plies.iter().zip(plies.chunks_exact_mut(PLY_FIELDS)) {
            row[0] = 1.0;
            row[1] = f32::from(u8::from(public.player == self.me));
            let (from, rest) = row[2..].split_at_mut(SQUARE_BITS);
            let (to, rest) = rest.split_at_mut(SQUARE_BITS);
            let (attacker, defender) = rest.split_at_mut(TYPE_BITS);
            write_bits(from, public.mv.from.in_frame(self.me).index());
            write_bits(to, public.mv.to.in_frame(self.me).index());
            if let Some(b) = public.battle {
                write_bits(attacker, b.attacker.index() + 1);
                write_bits(defender, b.defender.index() + 1);
            }
        }
        Ok(())
    }
}

/// `value` in binary over `out`, least significant bit first.
fn write_bits(out: &mut [f32], value: usize) {
    debug_assert!(value < 1 << out.len(), "{value} does not fit {} bits", out.len());
    for (bit, slot) in out.iter_mut().enumerate() {
        *slot = f32::from(u8::from((value >> bit) & 1 == 1));
    }
}

/// One public ply: `red b4-b5`, or `red b4-b5 E attacks P: DefenderWins`.
fn ply_text(ply: &PublicPly) -> String {
    match ply.battle {
        None => format!("{} {}", ply.player, ply.mv),
        Some(b) => {
            format!("{} {} {} attacks {}: {:?}", ply.player, ply.mv, b.attacker.letter(), b.defender.letter(), b.result)
        }
    }
}

/// A ply cap's tensor, or the error that names why it is not provided.
pub(crate) fn check_cap(max_plies: u32) -> pyo3::PyResult<()> {
    if max_plies > MAX_TENSOR_PLIES {
        return Err(value_error(format!(
            "no information-state tensor for max-plies={max_plies}: it is provided up to max-plies={MAX_TENSOR_PLIES} \
             ({} values; it grows by {PLY_FIELDS} a ply)",
            tensor_len(MAX_TENSOR_PLIES)
        )));
    }
    Ok(())
}
