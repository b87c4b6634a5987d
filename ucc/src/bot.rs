//! Our player as a bot of the UCC 2012 referee (`stratego ucc-bot`), so that
//! any of our players can meet that competition's bots under their referee.
//! The protocol (`shared/reference/ucc-protocol.md`), in short:
//!
//! - the referee sends `RED|BLUE <opponent> 10 10`; the bot answers four
//!   10-character setup lines in board order (rows 0-3 for Red, 6-9 for Blue);
//! - before each move the bot reads `START` (Red's first turn) or the
//!   opponent's move with its outcome, then the 10 board rows, and answers
//!   `X Y DIR [N]` or `SURRENDER`; the referee echoes the move with its
//!   outcome (`OK`, `KILLS a d`, `DIES a d`, `BOTHDIE a d`);
//! - `QUIT ...` may replace any line; the bot then stops.
//!
//! **Tracking.** The bot keeps the game in our engine under the referee's
//! rules (two-square rule off, chasing rule off, no battleless cap: the
//! referee enforces none of them), so every move it sends is legal for the
//! referee. The turn cap is the referee's `-m` as the bot was told it
//! ([`BotOptions::referee_turns`]), so that a player sees how far the game
//! is from the draw the referee will declare (a network reads it in its
//! counter planes; with no cap they told it the game had just begun, and
//! its value head was confident and wrong late in referee games). The
//! referee ends the game with its own QUIT line; should it go on past the
//! cap the bot was told (a longer `-m`), the bot lifts its cap and plays on. The
//! opponent's hidden types are unknown, but the engine needs some: the
//! tracker gives the opponent a *determinized* setup consistent with all it
//! learnt (types from battles and Scout runs, "movable" from moves). When a
//! new fact contradicts the current guess — a guessed Bomb moves, a battle
//! reveals another type — it re-assigns the unknown types and replays the
//! game from the setups, which reproduces every earlier battle because every
//! piece that fought has its revealed type. Players only ever see the
//! information view of the tracked state, in which hidden pieces are hidden,
//! so the guess never reaches a decision.
//!
//! **Limitations.** With the referee's `-i` switch an illegal move is skipped
//! and the same side moves again; the engine cannot pass a turn, so a
//! skipped opponent move ends the bot with an error (our own moves are never
//! illegal).

use std::io::{BufRead, Write};
use std::time::Duration;

use stratego_engine::{
    Color, EndReason, Move, PieceSet, PieceType, ProgressRules, ProgressTracker, Ruleset, Setup, Square, State,
};

use stratego_players::view::PublicPly;
use stratego_players::{AgentRng, InfoView, Player};

use crate::protocol::{move_line, parse_move_line, protocol, setup_lines, ucc_char, ucc_rules, UccError, UccOutcome};

/// What the tracker knows about one opponent piece, by its starting square.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Knowledge {
    Nothing,
    /// It moved: neither a Bomb nor the Flag.
    Movable,
    Known(PieceType),
}

/// The game as the bot tracks it (see the module documentation).
pub struct Tracker {
    me: Color,
    my_setup: Setup,
    /// The opponent's determinized setup (in its own frame).
    guess: Setup,
    /// Indexed by the opponent's relative home cell (its pieces' origins).
    knowledge: [Knowledge; 40],
    moves: Vec<Move>,
    /// The rules of the tracked game: the referee's, with the cap the bot
    /// was told (lifted if the referee plays past it).
    rules: Ruleset,
    state: State,
    history: Vec<PublicPly>,
}

impl Tracker {
    /// A tracker of a game under `rules` (the referee's: [`tracked_rules`]).
    pub fn new(me: Color, my_setup: Setup, rules: Ruleset) -> Result<Tracker, UccError> {
        let knowledge = [Knowledge::Nothing; 40];
        let guess = assign(&knowledge)?;
        let mut tracker = Tracker {
            me,
            my_setup,
            guess,
            knowledge,
            moves: Vec::new(),
            rules,
            state: placeholder(),
            history: Vec::new(),
        };
        tracker.replay()?;
        Ok(tracker)
    }

    pub fn rules(&self) -> Ruleset {
        self.rules
    }

    /// If the tracked game ended at the turn cap the bot was told and the
    /// referee plays on, its `-m` was longer: the cap goes and the game is
    /// replayed without it. Says whether it did.
    pub fn lift_spent_cap(&mut self) -> Result<bool, UccError> {
        if self.state.outcome().is_none_or(|o| o.reason != EndReason::PlyCap) {
            return Ok(false);
        }
        self.rules = ucc_rules();
        self.replay()?;
        Ok(true)
    }

    /// The moves so far, both sides'.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn history(&self) -> &[PublicPly] {
        &self.history
    }

    /// Red's and Blue's setups as tracked: ours, and the opponent's guess,
    /// which agrees with everything the referee has told.
    pub fn setups(&self) -> (&Setup, &Setup) {
        match self.me {
            Color::Red => (&self.my_setup, &self.guess),
            Color::Blue => (&self.guess, &self.my_setup),
        }
    }

    fn replay(&mut self) -> Result<(), UccError> {
        let (red, blue) = self.setups();
        let mut state = State::from_setups(self.rules, red, blue).map_err(|e| UccError::Inconsistent(e.to_string()))?;
        let mut history = Vec::with_capacity(self.moves.len());
        for mv in &self.moves {
            state.apply_move(*mv).map_err(|e| UccError::Inconsistent(format!("replaying {mv}: {e}")))?;
            history.push(PublicPly::of(state.history().last().expect("just played")));
        }
        self.state = state;
        self.history = history;
        Ok(())
    }

    fn learn(&mut self, origin: Square, fact: Knowledge) -> Result<(), UccError> {
        let cell = origin.in_frame(self.me.opponent()).index();
        let slot = &mut self.knowledge[cell];
        *slot = match (*slot, fact) {
            (Knowledge::Known(a), Knowledge::Known(b)) if a != b => {
                return Err(UccError::Inconsistent(format!("the piece from {origin} was a {a} and is now a {b}")))
            }
            (Knowledge::Known(a), _) => Knowledge::Known(a),
            (_, Knowledge::Known(b)) => Knowledge::Known(b),
            (Knowledge::Movable, _) | (_, Knowledge::Movable) => Knowledge::Movable,
            _ => Knowledge::Nothing,
        };
        Ok(())
    }

    /// Applies a move the referee reported (ours from its echo, the
    /// opponent's from its line), with the outcome it reported.
    pub fn apply(&mut self, mv: Move, outcome: UccOutcome, line: &str) -> Result<(), UccError> {
        self.lift_spent_cap()?;
        let board = self.state.board();
        let mover = board[mv.from].ok_or_else(|| protocol(line, format!("no piece on {}", mv.from)))?;
        if mover.color != self.state.to_move() {
            return Err(protocol(line, format!("it is {}'s turn", self.state.to_move())));
        }
        let target = board[mv.to];
        if outcome.battle().is_some() != target.is_some_and(|t| t.color != mover.color) {
            return Err(protocol(line, "a battle must be reported exactly when a piece is attacked"));
        }
        let mut facts = Vec::new();
        if mover.color != self.me {
            facts.push((mover.origin, Knowledge::Movable));
            if mv.distance() > 1 {
                facts.push((mover.origin, Knowledge::Known(PieceType::Scout)));
            }
        }
        if let (Some((_, attacker, defender)), Some(target)) = (outcome.battle(), target) {
            let (mine, theirs, my_kind, their_kind) = if mover.color == self.me {
                (mover, target, attacker, defender)
            } else {
                (target, mover, defender, attacker)
            };
            if mine.kind != my_kind {
                return Err(protocol(line, format!("our piece on that square is a {}, not a {my_kind}", mine.kind)));
            }
            facts.push((theirs.origin, Knowledge::Known(their_kind)));
        }
        for (origin, fact) in facts {
            self.learn(origin, fact)?;
        }
        if !self.guess_fits() {
            self.guess = assign(&self.knowledge)?;
            self.replay()?;
        }
        self.state.apply_move(mv).map_err(|e| protocol(line, format!("our engine refuses it: {e}")))?;
        let record = *self.state.history().last().expect("just played");
        let reported = outcome.battle().map(|(r, _, _)| r);
        if record.battle.map(|b| b.result) != reported {
            return Err(UccError::Inconsistent(format!("`{line}` but our engine's battle gave {:?}", record.battle)));
        }
        self.moves.push(mv);
        self.history.push(PublicPly::of(&record));
        Ok(())
    }

    fn guess_fits(&self) -> bool {
        self.knowledge.iter().enumerate().all(|(cell, k)| {
            let kind = self.guess.get(cell).expect("classic setups are full");
            match k {
                Knowledge::Nothing => true,
                Knowledge::Movable => kind.is_movable(),
                Knowledge::Known(t) => kind == *t,
            }
        })
    }

    /// The referee's board rows as this bot should see them.
    pub fn board_rows(&self) -> Vec<String> {
        (0..10u8)
            .map(|row| {
                (0..10u8)
                    .map(|col| {
                        let sq = Square::from_row_col(row, col).expect("on the board");
                        match self.state.board()[sq] {
                            _ if sq.is_lake() => '+',
                            None => '.',
                            Some(p) if p.color == self.me => ucc_char(p.kind),
                            Some(_) => '#',
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// The rules a bot tracks a referee game under when told the referee's turn
/// cap (`-m TURNS`: a draw after TURNS - 1 full turns); `None` for no cap
/// (`-m inf`). With `-m 1000`, the lab's `Ruleset::referee()`.
pub fn tracked_rules(referee_turns: Option<u32>) -> Ruleset {
    match referee_turns {
        Some(turns) => Ruleset { max_plies: turns.saturating_sub(1).saturating_mul(2).max(1), ..ucc_rules() },
        None => ucc_rules(),
    }
}

/// How the bot plays its game.
#[derive(Copy, Clone, Debug)]
pub struct BotOptions {
    /// The limit on each decision.
    pub move_time: Duration,
    /// With one, our moves keep to those progress rules (the referee's rules
    /// have none); the opponent's are whatever the referee accepts.
    pub restriction: Option<ProgressRules>,
    /// The referee's turn cap (`-m`) as far as the bot knows it; `None`
    /// for none. See the module documentation.
    pub referee_turns: Option<u32>,
}

impl BotOptions {
    /// The turn cap of `shared/ucc/match.sh` and of the lab's referee rules.
    pub const REFEREE_TURNS: u32 = 1000;

    /// No restriction, the default turn cap.
    pub fn new(move_time: Duration) -> BotOptions {
        BotOptions { move_time, restriction: None, referee_turns: Some(Self::REFEREE_TURNS) }
    }
}

/// A throwaway state, replaced at once by `replay`.
fn placeholder() -> State {
    let setup = Setup::random(PieceSet::Classic, &mut <AgentRng as rand::SeedableRng>::seed_from_u64(0));
    State::from_setups(ucc_rules(), &setup, &setup).expect("a random setup is valid")
}

/// A setup for the opponent consistent with what is known: known types in
/// place, movable types on the pieces that moved, the Bombs and the Flag and
/// the remaining types on the others.
fn assign(knowledge: &[Knowledge; 40]) -> Result<Setup, UccError> {
    let mut pool = PieceSet::Classic.counts();
    for k in knowledge {
        if let Knowledge::Known(t) = k {
            if pool[t.index()] == 0 {
                return Err(UccError::Inconsistent(format!("more than the army's {t}s were revealed")));
            }
            pool[t.index()] -= 1;
        }
    }
    let mut take = |movable: bool| {
        let t = PieceType::ALL.into_iter().find(|t| (!movable || t.is_movable()) && pool[t.index()] > 0)?;
        pool[t.index()] -= 1;
        Some(t)
    };
    let mut slots = [None; 40];
    for (cell, k) in knowledge.iter().enumerate() {
        slots[cell] =
            match k {
                Knowledge::Known(t) => Some(*t),
                Knowledge::Movable => Some(take(true).ok_or_else(|| {
                    UccError::Inconsistent("more pieces moved than the army has movable pieces".into())
                })?),
                Knowledge::Nothing => None,
            };
    }
    // Immovable types first, so that they land on pieces that never moved.
    let mut immovable_first: Vec<PieceType> = Vec::new();
    for t in [PieceType::Bomb, PieceType::Flag].into_iter().chain(PieceType::ALL.into_iter().filter(|t| t.is_movable()))
    {
        immovable_first.extend(std::iter::repeat_n(t, pool[t.index()] as usize));
    }
    let mut rest = immovable_first.into_iter();
    for slot in slots.iter_mut().filter(|s| s.is_none()) {
        *slot = rest.next();
    }
    Setup::from_slots(slots, PieceSet::Classic).map_err(|e| UccError::Inconsistent(e.to_string()))
}

/// How the conversation ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum UccEnd {
    /// The referee's `QUIT ...` line.
    Quit(String),
    /// The referee closed our input without a QUIT.
    Closed,
}

enum Line {
    Text(String),
    Quit(String),
    Closed,
}

struct Conversation<'a, R: BufRead, W: Write> {
    input: R,
    output: W,
    record: &'a mut dyn Write,
}

impl<R: BufRead, W: Write> Conversation<'_, R, W> {
    fn read(&mut self) -> Result<Line, UccError> {
        let line =
            stratego_support::files::read_line_from(&mut self.input).map_err(|e| UccError::Read(e.to_string()))?;
        if line.is_empty() {
            return Ok(Line::Closed);
        }
        let line = line.trim_end_matches(['\n', '\r']).to_string();
        Ok(if line.starts_with("QUIT") { Line::Quit(line) } else { Line::Text(line) })
    }

    fn send(&mut self, line: &str) -> Result<(), UccError> {
        writeln!(self.output, "{line}").and_then(|()| self.output.flush()).map_err(|e| UccError::Write(e.to_string()))
    }

    /// Appends a line to the game record and flushes it: the referee kills
    /// the bot right after the game, so nothing may wait in a buffer.
    fn note(&mut self, line: &str) -> Result<(), UccError> {
        writeln!(self.record, "{line}").and_then(|()| self.record.flush()).map_err(|e| UccError::Record(e.to_string()))
    }
}

/// Reads one line; ends the conversation on QUIT or a closed input.
macro_rules! read_or_end {
    ($conv:expr) => {
        match $conv.read()? {
            Line::Text(text) => text,
            Line::Quit(quit) => {
                $conv.note(&format!("end {quit}"))?;
                return Ok(UccEnd::Quit(quit));
            }
            Line::Closed => {
                $conv.note("end input closed")?;
                return Ok(UccEnd::Closed);
            }
        }
    };
}

/// Plays one game against the referee on `input`/`output`, writing the game
/// record to `record` line by line. `rng` was seeded with `seed` (written to
/// the record).
pub fn play(
    input: impl BufRead,
    output: impl Write,
    record: &mut dyn Write,
    player: &mut dyn Player,
    rng: &mut AgentRng,
    seed: u64,
    options: &BotOptions,
) -> Result<UccEnd, UccError> {
    let mut conv = Conversation { input, output, record };
    let BotOptions { move_time, restriction, referee_turns } = *options;
    let mut rules = tracked_rules(referee_turns);
    player.limit_move_time(move_time);
    let first = read_or_end!(conv);
    let words: Vec<&str> = first.split_whitespace().collect();
    let me = match words.first().copied() {
        Some("RED") => Color::Red,
        Some("BLUE") => Color::Blue,
        _ => return Err(protocol(&first, "expected `RED|BLUE <opponent> 10 10`")),
    };
    if words.len() != 4 || words[2] != "10" || words[3] != "10" {
        return Err(protocol(&first, "only the 10 x 10 board is supported"));
    }
    // A player that brings its own setup once it knows its seat (an
    // outside program relayed through this bot) plays that one.
    let setup = match player.take_seat(me, words[1], PieceSet::Classic)? {
        Some(own) => own,
        None => player.choose_setup(PieceSet::Classic, rng),
    };
    conv.note("stratego-ucc-log v1")?;
    conv.note(&format!("rules {rules}"))?;
    conv.note(&format!("agent {}", player.name()))?;
    conv.note(&format!("seed {seed}"))?;
    conv.note(&format!("colour {me}"))?;
    conv.note(&format!("opponent {}", words[1]))?;
    conv.note(&format!("setup {setup}"))?;
    if let Some(progress) = restriction {
        conv.note(&format!("self-restriction {progress}"))?;
    }
    for line in setup_lines(&setup, me) {
        conv.send(&line)?;
    }
    let mut tracker = Tracker::new(me, setup, rules)?;
    let mut progress = restriction.map(ProgressTracker::new);
    loop {
        let happened = read_or_end!(conv);
        // What the referee may say before our turn is fixed by the game:
        // `START` before Red's first move and only then, else the
        // opponent's move. Anything else is a referee out of step with the
        // game, an error, never a resignation (the bot once recorded a
        // move of its own pieces as the opponent's and then had no turn).
        let (ply, to_move) = (tracker.state().ply(), tracker.state().to_move());
        if happened == "START" {
            if me != Color::Red || ply != 0 {
                return Err(protocol(&happened, "`START` comes only before Red's first move"));
            }
        } else if me == Color::Red && ply == 0 {
            return Err(protocol(&happened, "expected `START`: Red moves first"));
        } else if to_move != me.opponent() {
            return Err(protocol(&happened, format!("it is our turn ({me}), not the opponent's")));
        } else {
            let (mv, outcome) = parse_move_line(&happened)?;
            tracker.apply(mv, outcome, &happened)?;
            if let Some(p) = &mut progress {
                p.update(tracker.state());
            }
            conv.note(&format!("ply {} {} {mv} | {happened}", tracker.state().ply(), me.opponent()))?;
        }
        let expected = tracker.board_rows();
        for want in &expected {
            let row = read_or_end!(conv);
            if &row != want {
                let _ = writeln!(std::io::stderr(), "ucc-bot: board row `{row}` differs from our tracked `{want}`");
            }
        }
        // Asked to move after the cap we were told (or told of a move after
        // it, which `apply` lifts the cap for): the referee's is longer.
        tracker.lift_spent_cap()?;
        if tracker.rules() != rules {
            rules = tracker.rules();
            conv.note(&format!("rules {rules} (the referee played past the turn cap)"))?;
        }
        let state = tracker.state();
        if state.is_terminal() {
            conv.send("SURRENDER")?;
            conv.note("surrender (no legal move)")?;
            let _ = read_or_end!(conv);
            continue;
        }
        let mv = {
            let mut view = InfoView::new(state, tracker.history());
            if let Some(p) = &progress {
                p.restrict(state, &mut view.legal_moves);
            }
            player.choose_move(&view, rng)?
        };
        let sent = move_line(mv);
        conv.send(&sent)?;
        let echo = read_or_end!(conv);
        let (echoed, outcome) = parse_move_line(&echo)?;
        if echoed != mv {
            return Err(protocol(&echo, format!("we sent `{sent}`")));
        }
        tracker.apply(mv, outcome, &echo)?;
        if let Some(p) = &mut progress {
            p.update(tracker.state());
        }
        conv.note(&format!("ply {} {me} {mv} | {echo}", tracker.state().ply()))?;
    }
}
