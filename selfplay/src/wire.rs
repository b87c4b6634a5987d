//! Trajectories as bytes, for games played in another process (a self-play
//! worker of a Ray cluster) and learned from here. Little-endian, in order:
//!
//! ```text
//! "stratego-trajectories v1\n"  u32 games
//! per game:      u32 n, the record's text (n bytes, with its result)
//!                u8 0 (self-play) | 1 then u32 opponent index, u8 its colour (0 Red, 1 Blue)
//!                u32 decisions
//! per decision:  u32 ply, u8 player, u64 version, u16 action, u16 n,
//!                n x u16 legal actions, n x f32 behaviour, 3 x f32 value
//! ```
//!
//! The record rebuilds every observation (as in the channel of one process,
//! `trajectory.rs`), so a game costs about its moves and its policies.
//! Decoding checks every length against what is left: bytes from anywhere
//! give a game or an error, never a panic or an allocation they do not hold.

use stratego_engine::{ActionId, Color, GameRecord, NUM_ACTIONS};

use crate::{Decision, GameTrajectory, OpponentSeat};

const MAGIC: &[u8] = b"stratego-trajectories v1\n";

/// The bytes of `games`.
pub fn encode_trajectories(games: &[GameTrajectory]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((games.len() as u32).to_le_bytes());
    for game in games {
        let text = game.record.to_text();
        out.extend((text.len() as u32).to_le_bytes());
        out.extend(text.as_bytes());
        match game.opponent {
            None => out.push(0),
            Some(seat) => {
                out.push(1);
                out.extend((seat.index as u32).to_le_bytes());
                out.push(seat.color.index() as u8);
            }
        }
        out.extend((game.decisions.len() as u32).to_le_bytes());
        for d in &game.decisions {
            out.extend((d.ply as u32).to_le_bytes());
            out.push(d.player.index() as u8);
            out.extend(d.version.to_le_bytes());
            out.extend(d.action.to_le_bytes());
            out.extend((d.legal.len() as u16).to_le_bytes());
            d.legal.iter().for_each(|a| out.extend(a.to_le_bytes()));
            d.behaviour.iter().for_each(|p| out.extend(p.to_le_bytes()));
            d.value.iter().for_each(|v| out.extend(v.to_le_bytes()));
        }
    }
    out
}

/// What is wrong with bytes that should hold trajectories.
#[derive(Debug, thiserror::Error)]
#[error("not trajectories of this lab: {0}")]
pub struct WireError(String);

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], WireError> {
        if self.bytes.len() < n {
            return Err(WireError(format!("cut off in {what}")));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn u8(&mut self, what: &str) -> Result<u8, WireError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, WireError> {
        Ok(u16::from_le_bytes(self.take(2, what)?.try_into().expect("two bytes")))
    }
    fn u32(&mut self, what: &str) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("four bytes")))
    }
    fn u64(&mut self, what: &str) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().expect("eight bytes")))
    }
    fn f32(&mut self, what: &str) -> Result<f32, WireError> {
        Ok(f32::from_le_bytes(self.take(4, what)?.try_into().expect("four bytes")))
    }
    fn color(&mut self, what: &str) -> Result<Color, WireError> {
        match self.u8(what)? {
            0 => Ok(Color::Red),
            1 => Ok(Color::Blue),
            other => Err(WireError(format!("{what}: colour {other}"))),
        }
    }
    /// A count of items of at least `item` bytes each, refused when the
    /// bytes left cannot hold that many.
    fn count(&mut self, item: usize, what: &str) -> Result<usize, WireError> {
        let n = self.u32(what)? as usize;
        if n.saturating_mul(item) > self.bytes.len() {
            return Err(WireError(format!("{what}: {n} do not fit in the {} bytes left", self.bytes.len())));
        }
        Ok(n)
    }
}

/// The trajectories in `bytes` (from [`encode_trajectories`]).
pub fn decode_trajectories(bytes: &[u8]) -> Result<Vec<GameTrajectory>, WireError> {
    let mut r = Reader { bytes };
    if r.take(MAGIC.len(), "the header").ok() != Some(MAGIC) {
        return Err(WireError("the header is not `stratego-trajectories v1`".into()));
    }
    let games = r.count(9, "the game count")?;
    let mut out = Vec::with_capacity(games);
    for g in 0..games {
        let n = r.count(1, "a record's length")?;
        let text = std::str::from_utf8(r.take(n, "a record")?).map_err(|e| WireError(format!("game {g}: {e}")))?;
        let record = GameRecord::parse(text).map_err(|e| WireError(format!("game {g}: {e}")))?;
        let outcome = record.result.ok_or_else(|| WireError(format!("game {g}: the record has no result")))?;
        let opponent = match r.u8("an opponent flag")? {
            0 => None,
            1 => Some(OpponentSeat { index: r.u32("an opponent")? as usize, color: r.color("an opponent's colour")? }),
            other => return Err(WireError(format!("game {g}: opponent flag {other}"))),
        };
        let count = r.count(31, "a decision count")?;
        let mut decisions = Vec::with_capacity(count);
        for _ in 0..count {
            let ply = r.u32("a ply")? as usize;
            let player = r.color("a player")?;
            let version = r.u64("a version")?;
            let action: ActionId = r.u16("an action")?;
            let legal_count = r.u16("a legal count")? as usize;
            let legal = (0..legal_count).map(|_| r.u16("a legal action")).collect::<Result<Vec<_>, _>>()?;
            let behaviour = (0..legal_count).map(|_| r.f32("a probability")).collect::<Result<Vec<_>, _>>()?;
            let value = [r.f32("a value")?, r.f32("a value")?, r.f32("a value")?];
            if ply >= record.moves.len() || legal.iter().any(|&a| a as usize >= NUM_ACTIONS) || !legal.contains(&action)
            {
                return Err(WireError(format!("game {g}: a decision at ply {ply} does not fit its game")));
            }
            decisions.push(Decision { ply, player, version, action, legal, behaviour, value });
        }
        out.push(GameTrajectory { record, outcome, decisions, opponent });
    }
    if !r.bytes.is_empty() {
        return Err(WireError(format!("{} bytes after the last game", r.bytes.len())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use stratego_engine::{Color, GameRecord, Ruleset, State};

    use super::*;

    /// A short finished game and decisions for some of its plies.
    fn game(opponent: Option<OpponentSeat>) -> GameTrajectory {
        let rules = Ruleset { max_plies: 6, ..Ruleset::classic() };
        let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(3);
        let (red, blue) =
            stratego_engine::SetupSource::setups(&stratego_engine::RandomSetups(rules.piece_set), &mut rng);
        let mut state = State::from_setups(rules, &red, &blue).unwrap();
        let mut decisions = Vec::new();
        while !state.is_terminal() {
            let legal: Vec<ActionId> = state.legal_actions();
            let player = state.to_move();
            decisions.push(Decision {
                ply: state.ply() as usize,
                player,
                version: 7 + state.ply() as u64,
                action: legal[0],
                behaviour: vec![1.0 / legal.len() as f32; legal.len()],
                legal: legal.clone(),
                value: [0.25, 0.5, 0.25],
            });
            state.apply_action(legal[0]).unwrap();
        }
        let record = GameRecord::new(rules, red, blue, &state);
        GameTrajectory { outcome: record.result.unwrap(), record, decisions, opponent }
    }

    #[test]
    fn trajectories_round_trip_exactly() {
        let games = vec![game(None), game(Some(OpponentSeat { index: 2, color: Color::Blue }))];
        let bytes = encode_trajectories(&games);
        let back = decode_trajectories(&bytes).unwrap();
        assert_eq!(back.len(), 2);
        for (a, b) in games.iter().zip(&back) {
            assert_eq!(a.record, b.record);
            assert_eq!(a.outcome, b.outcome);
            assert_eq!(a.decisions, b.decisions);
            assert_eq!(a.opponent, b.opponent);
        }
        assert!(decode_trajectories(&encode_trajectories(&[])).unwrap().is_empty());
    }

    /// Every cut, a count that the bytes cannot hold, trailing bytes and
    /// another header are errors, never a panic or a huge allocation.
    #[test]
    fn bad_bytes_are_errors() {
        let bytes = encode_trajectories(&[game(None)]);
        for cut in 0..bytes.len() {
            assert!(decode_trajectories(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_trajectories(&longer).unwrap_err().to_string().contains("after the last game"));
        let mut huge = bytes.clone();
        huge[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_trajectories(&huge).unwrap_err().to_string().contains("do not fit"));
        assert!(decode_trajectories(b"hello").is_err());
        // A decision whose action is not among its legal ones.
        let mut wrong = game(None);
        wrong.decisions[0].action = wrong.decisions[0].legal.iter().max().unwrap() + 1;
        let wrong = encode_trajectories(&[wrong]);
        assert!(decode_trajectories(&wrong).unwrap_err().to_string().contains("does not fit its game"));
    }
}
