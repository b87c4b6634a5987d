//! One game of the play page: a person against a lab player, the server the
//! referee. Kept apart from the web server so that its rules are plain
//! functions: what the person may do, what the page is told (only what the
//! person's side knows), and the agent's reply under its clock.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use stratego_engine::{Color, GameRecord, Move, PieceSet, Ruleset, Setup, State};
use stratego_players::view::PublicPly;
use stratego_players::{AgentRng, InfoView, Player, PlayerError};
use stratego_viewer::game::{board_codes, frames, side_name, Frame, Perspective};
use stratego_viewer::{Game as ViewedGame, GameSource};

/// What the page sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Request {
    /// A setup to start from (uniformly random), for the page to arrange.
    Propose,
    /// Start the game: the person's colour and setup (40 letters, its own
    /// home rows from its back row's left, as `stratego play` writes them).
    Start { color: String, setup: String },
    /// The person's move, `b4-b5`.
    Move { mv: String },
    /// The person resigns.
    Resign,
}

/// What the page is told.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Reply {
    Proposal {
        setup: String,
        /// Each type's label on a piece, by letter.
        labels: Vec<(char, &'static str)>,
    },
    State(Box<Seen>),
    Error {
        why: String,
    },
}

/// The game as the person's side sees it.
#[derive(Debug, Serialize)]
pub struct Seen {
    pub you: &'static str,
    pub to_move: &'static str,
    pub ply: u32,
    /// 100 cells (`stratego_viewer::game::piece_code` from the person's
    /// side: the other side's unseen types are `?`).
    pub board: Vec<Option<String>>,
    /// The plies since the page last heard, as the viewer describes them.
    pub plies: Vec<Frame>,
    /// The person's legal moves when it is its turn.
    pub legal: Vec<String>,
    /// How long the agent took over its last move, in milliseconds.
    pub agent_ms: Option<u64>,
    /// The result in words once the game is over, and its record.
    pub result: Option<String>,
    pub record: Option<String>,
}

/// A game in progress.
pub struct Session {
    rules: Ruleset,
    human: Color,
    setups: [Setup; 2],
    state: State,
    history: Vec<PublicPly>,
    agent: Option<Box<dyn Player>>,
    rng: AgentRng,
    /// Plies the page has been told of.
    told: usize,
    agent_ms: Option<u64>,
}

/// A uniformly random setup of `set`, as the page arranges it.
pub fn proposal(set: PieceSet, rng: &mut AgentRng) -> Reply {
    Reply::Proposal {
        setup: Setup::random(set, rng).to_string(),
        labels: stratego_engine::PieceType::ALL.iter().map(|t| (t.letter(), t.rank_label())).collect(),
    }
}

impl Session {
    /// Starts a game: the person plays `color` from `setup`; the agent
    /// chooses its own setup (and takes its seat, as in the arena).
    pub fn start(
        rules: Ruleset,
        color: &str,
        setup: &str,
        mut agent: Box<dyn Player>,
        mut rng: AgentRng,
    ) -> Result<Session, String> {
        let human = match color {
            "red" => Color::Red,
            "blue" => Color::Blue,
            other => return Err(format!("a colour is red or blue, not `{other}`")),
        };
        let mine = Setup::parse(setup, rules.piece_set).map_err(|e| format!("your setup: {e}"))?;
        let theirs = match agent.take_seat(human.opponent(), "a person", rules.piece_set) {
            Ok(Some(own)) => own,
            Ok(None) => agent.choose_setup(rules.piece_set, &mut rng),
            Err(e) => return Err(format!("the agent cannot take its seat: {e}")),
        };
        let setups = if human == Color::Red { [mine, theirs] } else { [theirs, mine] };
        let state = State::from_setups(rules, &setups[0], &setups[1]).map_err(|e| e.to_string())?;
        Ok(Session {
            rules,
            human,
            setups,
            state,
            history: Vec::new(),
            agent: Some(agent),
            rng,
            told: 0,
            agent_ms: None,
        })
    }

    /// The agent's time a move.
    pub fn limit_agent(&mut self, limit: Duration) {
        if let Some(agent) = self.agent.as_mut() {
            agent.limit_move_time(limit);
        }
    }

    /// Whether the agent is to move.
    pub fn agent_to_move(&self) -> bool {
        !self.state.is_terminal() && self.state.to_move() != self.human
    }

    #[cfg(test)]
    pub fn is_over(&self) -> bool {
        self.state.is_terminal()
    }

    /// Plays the person's move, or says why it cannot be played.
    pub fn person_moves(&mut self, text: &str) -> Result<(), String> {
        if self.state.is_terminal() {
            return Err("the game is over".into());
        }
        if self.state.to_move() != self.human {
            return Err("it is not your turn".into());
        }
        let mv: Move = text.parse().map_err(|_| format!("`{text}` is not a move (write it as b4-b5)"))?;
        self.play(mv)
    }

    pub fn resign(&mut self) -> Result<(), String> {
        self.state.forfeit(self.human).map_err(|e| e.to_string())
    }

    fn play(&mut self, mv: Move) -> Result<(), String> {
        self.state.apply_move(mv).map_err(|e| match e {
            stratego_engine::Error::IllegalMove { reason, .. } => format!("{mv} is not legal: {reason}"),
            other => other.to_string(),
        })?;
        self.history.push(PublicPly::of(self.state.history().last().expect("a move was just played")));
        Ok(())
    }

    /// The agent and what it decides from: taken out so that it can think
    /// on a blocking thread while the server goes on.
    pub fn agent_turn(&mut self) -> Option<AgentTurn> {
        if !self.agent_to_move() {
            return None;
        }
        Some(AgentTurn {
            agent: self.agent.take()?,
            rng: self.rng.clone(),
            state: self.state.clone(),
            history: self.history.clone(),
        })
    }

    /// The agent's decision, played (a failure of the agent forfeits its
    /// game: the person wins, with the reason in the record's result).
    pub fn agent_moved(&mut self, turn: AgentTurn, decided: Decided) {
        self.agent = Some(turn.agent);
        self.rng = turn.rng;
        self.agent_ms = Some(decided.took.as_millis() as u64);
        let played = match decided.result {
            Ok(mv) => self.play(mv).map_err(|why| format!("the agent's move {mv}: {why}")),
            Err(e) => Err(e.to_string()),
        };
        if played.is_err() {
            let _ = self.state.forfeit(self.human.opponent());
        }
    }

    /// The agent was lost while it thought: it forfeits.
    pub fn agent_lost(&mut self) {
        let _ = self.state.forfeit(self.human.opponent());
    }

    /// What the page is told now: the board from the person's side and the
    /// plies it has not heard of.
    pub fn seen(&mut self) -> Seen {
        let perspective = Perspective::Side(self.human);
        let viewed = ViewedGame {
            source: GameSource::LabRecord,
            rules: self.rules,
            red: self.setups[0].clone(),
            blue: self.setups[1].clone(),
            moves: self.state.history().iter().map(|p| p.mv).collect(),
            winner: None,
            result: None,
            own_side: None,
        };
        let all = frames(&viewed, perspective, |_| {}).unwrap_or_default();
        let plies = all.get(self.told..).map(<[Frame]>::to_vec).unwrap_or_default();
        self.told = all.len();
        let board = board_codes(&self.state, perspective);
        let over = self.state.outcome();
        let legal = if over.is_none() && self.state.to_move() == self.human {
            self.state.legal_moves().iter().map(|m| m.to_string()).collect()
        } else {
            Vec::new()
        };
        Seen {
            you: side_name(self.human),
            to_move: side_name(self.state.to_move()),
            ply: self.state.ply(),
            board,
            plies,
            legal,
            agent_ms: self.agent_ms,
            result: over.map(|o| match o.winner {
                Some(w) if w == self.human => format!("you win ({})", o.reason.name()),
                Some(_) => format!("the agent wins ({})", o.reason.name()),
                None => format!("a draw ({})", o.reason.name()),
            }),
            record: over.map(|_| {
                GameRecord::new(self.rules, self.setups[0].clone(), self.setups[1].clone(), &self.state).to_text()
            }),
        }
    }
}

/// The agent's turn, away from the session.
pub struct AgentTurn {
    agent: Box<dyn Player>,
    rng: AgentRng,
    state: State,
    history: Vec<PublicPly>,
}

/// What the agent decided and how long it took.
pub struct Decided {
    result: Result<Move, PlayerError>,
    took: Duration,
}

impl AgentTurn {
    /// The agent decides (blocking: run it on a blocking thread).
    pub fn decide(&mut self) -> Decided {
        let start = Instant::now();
        let view = InfoView::new(&self.state, &self.history);
        let result = self.agent.choose_move(&view, &mut self.rng);
        Decided { result, took: start.elapsed() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn random_agent() -> Box<dyn Player> {
        stratego_roster::players().factory("random").unwrap().make()
    }

    fn session(color: &str) -> Session {
        let mut rng = AgentRng::seed_from_u64(1);
        let Reply::Proposal { setup, .. } = proposal(PieceSet::Classic, &mut rng) else { panic!() };
        Session::start(Ruleset::default(), color, &setup, random_agent(), AgentRng::seed_from_u64(2)).unwrap()
    }

    fn agent_plays(s: &mut Session) {
        let mut turn = s.agent_turn().expect("the agent's turn");
        let decided = turn.decide();
        s.agent_moved(turn, decided);
    }

    #[test]
    fn a_person_plays_a_whole_game_seeing_only_its_side() {
        let mut s = session("blue");
        // Red, the agent, moves first.
        assert!(s.agent_to_move());
        agent_plays(&mut s);
        let mut told = 0;
        while !s.is_over() {
            let seen = s.seen();
            told += seen.plies.len();
            assert_eq!(told as u32, seen.ply, "every ply is told once");
            // Red's unseen types are not in what the page gets.
            for code in seen.board.iter().flatten().filter(|c| c.starts_with('r')) {
                assert!(code.as_bytes()[2] == b'1' || code.as_bytes()[1] == b'?', "{code}");
            }
            let mv = seen.legal[seen.ply as usize % seen.legal.len()].clone();
            s.person_moves(&mv).unwrap();
            if s.agent_to_move() {
                agent_plays(&mut s);
            }
        }
        let end = s.seen();
        assert!(end.result.is_some() && end.legal.is_empty());
        let record = GameRecord::parse(end.record.as_deref().unwrap()).unwrap();
        assert_eq!(record.moves.len() as u32, end.ply);
    }

    #[test]
    fn what_a_person_may_not_do_is_refused_with_why() {
        let mut s = session("red");
        assert!(s.person_moves("a1-a2").unwrap_err().contains("not legal"));
        assert!(s.person_moves("hello").unwrap_err().contains("not a move"));
        let legal = s.seen().legal;
        s.person_moves(&legal[0]).unwrap();
        assert_eq!(s.person_moves(&legal[0]).unwrap_err(), "it is not your turn");
        agent_plays(&mut s);
        s.resign().unwrap();
        assert!(s.is_over());
        assert_eq!(s.person_moves("a4-a5").unwrap_err(), "the game is over");
        assert!(s.seen().result.unwrap().starts_with("the agent wins"));
        let bad = |color: &str, setup: &str| {
            Session::start(Ruleset::default(), color, setup, random_agent(), AgentRng::seed_from_u64(3)).err().unwrap()
        };
        assert!(bad("green", "x").contains("red or blue"));
        assert!(bad("red", "FBB").starts_with("your setup"));
    }
}
