//! A `ucc-bot --record` log read back (`stratego-ucc-log v1`): the bot's
//! own side of a referee game, its setup and every ply with the referee's
//! words, but not the opponent's setup, which the bot never saw. Replayed
//! through the bot's own [`Tracker`], the opponent's army becomes a guess
//! that agrees with everything the referee told (each battle's types, each
//! piece that moved, each Scout's run): enough to replay the game exactly,
//! and to show it as the bot saw it, never as everything shown.

use stratego_engine::{Color, Move, Ruleset, Setup, State};

use crate::bot::Tracker;
use crate::protocol::parse_move_line;

/// The first line of a bot's log.
pub const BOT_LOG_HEADER: &str = "stratego-ucc-log v1";

/// A bot's log, replayed.
#[derive(Clone, Debug)]
pub struct BotLog {
    /// The bot's side: the only side the log knows.
    pub me: Color,
    /// The rules the bot tracked the game under at its end (the cap lifted
    /// where the referee played past it).
    pub rules: Ruleset,
    /// Red's and Blue's setups: the bot's, and the guess at the opponent's.
    pub red: Setup,
    pub blue: Setup,
    pub moves: Vec<Move>,
    /// The bot's player and the opponent's name, as the log gives them.
    pub agent: String,
    pub opponent: String,
    /// The log's last line where it says how the session ended (`end QUIT
    /// ...`), without the `end`.
    pub end: Option<String>,
    /// The game's state after the last ply.
    pub state: State,
}

impl BotLog {
    /// Reads and replays a bot's log; the text says what is wrong where.
    pub fn parse(text: &str) -> Result<BotLog, String> {
        let mut lines = text.lines().map(|l| l.trim_end_matches('\r')).enumerate();
        match lines.next() {
            Some((_, BOT_LOG_HEADER)) => {}
            _ => return Err(format!("not a ucc-bot log (its first line is `{BOT_LOG_HEADER}`)")),
        }
        let (mut rules, mut me, mut setup, mut agent, mut opponent) = (None, None, None, String::new(), String::new());
        let mut end = None;
        let mut tracker: Option<Tracker> = None;
        for (i, line) in lines {
            let at = |why: String| format!("line {}: {why}", i + 1);
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                // A later `rules` line only notes the cap the tracker lifts itself.
                "rules" if rules.is_none() => {
                    rules = Some(rest.parse::<Ruleset>().map_err(|e| at(e.to_string()))?);
                }
                "colour" => me = Some(Color::from_name(rest).ok_or_else(|| at(format!("no colour `{rest}`")))?),
                "agent" => agent = rest.to_string(),
                "opponent" => opponent = rest.to_string(),
                "end" => end = Some(rest.to_string()),
                "setup" => {
                    let set = rules.ok_or_else(|| at("the setup comes before the rules".into()))?.piece_set;
                    setup = Some(Setup::parse(rest, set).map_err(|e| at(e.to_string()))?);
                }
                "ply" => {
                    if tracker.is_none() {
                        let (Some(me), Some(setup), Some(rules)) = (me, setup.clone(), rules) else {
                            return Err(at("a ply before the rules, colour and setup".into()));
                        };
                        tracker = Some(Tracker::new(me, setup, rules).map_err(|e| at(e.to_string()))?);
                    }
                    let tracker = tracker.as_mut().expect("made above");
                    // `ply N COLOUR MOVE | the referee's line`
                    let (_, said) =
                        rest.split_once(" | ").ok_or_else(|| at("expected `ply N COLOUR MOVE | LINE`".into()))?;
                    let (mv, outcome) = parse_move_line(said).map_err(|e| at(e.to_string()))?;
                    tracker.apply(mv, outcome, said).map_err(|e| at(e.to_string()))?;
                }
                _ => {}
            }
        }
        let (Some(me), Some(setup), Some(rules)) = (me, setup, rules) else {
            return Err("the log has no rules, colour or setup".into());
        };
        let tracker = match tracker {
            Some(t) => t,
            None => Tracker::new(me, setup, rules).map_err(|e| e.to_string())?,
        };
        let (red, blue) = tracker.setups();
        Ok(BotLog {
            me,
            rules: tracker.rules(),
            red: red.clone(),
            blue: blue.clone(),
            moves: tracker.moves().to_vec(),
            agent,
            opponent,
            end,
            state: tracker.state().clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = include_str!("../../tests/fixtures/ucc/celsius-bot-record.txt");

    #[test]
    fn a_bots_log_replays_with_an_opponent_army_that_fits_every_battle() {
        let log = BotLog::parse(RECORD).unwrap();
        assert_eq!((log.me, log.moves.len()), (Color::Red, 248));
        assert_eq!(log.state.ply(), 248);
        assert_eq!(log.agent, "expectimax:depth=2,time=1000,setup=handcrafted-v2");
        assert!(log.end.as_deref().unwrap().starts_with("QUIT ./red.sh RED VICTORY"));
        // Our setup is the log's; the replay of the guess fits the
        // referee's words at every battle (the tracker checks each).
        assert_eq!(log.red.to_string(), "PNOENJBBFBGSMPNPOLBBOOCEECPJNBLLLOOOJNOE");
        let mut state = State::from_setups(log.rules, &log.red, &log.blue).unwrap();
        for mv in &log.moves {
            state.apply_move(*mv).unwrap();
        }
        assert_eq!(state.board(), log.state.board());
    }

    #[test]
    fn a_broken_log_says_where() {
        assert!(BotLog::parse("hello\n").unwrap_err().contains("not a ucc-bot log"));
        let lines: Vec<&str> = RECORD.lines().collect();
        let first_ply = lines.iter().position(|l| l.starts_with("ply ")).unwrap();
        let mut broken = lines.clone();
        broken[first_ply] = "ply 1 red a1-a2 | 0 0 UP OK";
        let e = BotLog::parse(&broken.join("\n")).unwrap_err();
        assert!(e.starts_with(&format!("line {}:", first_ply + 1)), "{e}");
        let no_setup: Vec<&str> = lines.iter().copied().filter(|l| !l.starts_with("setup ")).collect();
        assert!(BotLog::parse(&no_setup.join("\n")).is_err());
    }
}
