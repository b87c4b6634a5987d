//! The game state: a root position plus the moves played from it, with
//! everything later observations need (piece identities, revealed and moved
//! flags, how and where each piece died, the move history).

use std::fmt;

use crate::action::{ActionId, Move, NUM_ACTIONS};
use crate::chase::ChaseTracker;
use crate::error::{Error, Refusal};
use crate::movegen::{is_movement_legal, Mobility};
use crate::piece::{battle, BattleResult, Color, Piece, PieceType};
use crate::position::{Board, Position, POSITION_FIELDS};
use crate::rules::Ruleset;
use crate::setup::Setup;
use crate::square::Square;
use crate::two_square::ShuttleTracker;
use crate::zobrist;
use stratego_contract::snapshot;

stratego_contract::end_reasons! {
    /// Why a game ended. The checks run in this order after every ply.
    pub enum EndReason {
        /// A Flag was attacked; the attacker's side wins.
        FlagCaptured => "flag-captured",
        /// The side to move had no legal move (and the other side could move); it loses.
        NoLegalMove => "no-legal-move",
        /// The side to move had no legal move and the other side could not move either: draw.
        NeitherCanMove => "neither-can-move",
        /// The total-ply cap was reached: draw.
        PlyCap => "ply-cap",
        /// The battleless-ply cap was reached: draw.
        BattlelessCap => "battleless-cap",
        /// Not a rule of play but a referee's decision (`State::forfeit`): a
        /// player resigned, or lost the game by failing to play it (an
        /// illegal or unreadable reply, a timeout, a crash). The other side wins.
        Forfeit => "forfeit",
    }
}

/// The result of a finished game of Stratego (`red-wins flag-captured`).
pub type Outcome = stratego_contract::api::Outcome<EndReason>;

/// A battle as it happened.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct BattleRecord {
    pub defender: PieceType,
    pub result: BattleResult,
    /// Whether each side's type was already known before the battle.
    pub attacker_was_revealed: bool,
    pub defender_was_revealed: bool,
}

/// One ply of the history.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct PlyRecord {
    pub player: Color,
    pub mv: Move,
    /// The moving piece: its type and its identity (starting square).
    pub piece: PieceType,
    pub origin: Square,
    /// Whether the move revealed the mover by a Scout's run of 2+ squares.
    pub scout_run: bool,
    pub battle: Option<BattleRecord>,
}

/// How and where a piece died.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Death {
    /// The piece as it stood just before the fatal move (flags included).
    pub piece: Piece,
    /// The square of the battle (the defender's square).
    pub square: Square,
    /// The ply (total count after the battle) on which it died.
    pub ply: u32,
    /// It died attacking (true) or defending (false).
    pub as_attacker: bool,
    /// The type of the piece it fought, and whether that one was revealed before.
    pub opponent: PieceType,
    pub opponent_was_revealed: bool,
}

/// A game in progress or finished.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct State {
    root: Position,
    pos: Position,
    history: Vec<PlyRecord>,
    deaths: Vec<Death>,
    shuttles: [ShuttleTracker; 2],
    chase: ChaseTracker,
    /// `hashes[n]` is the placement hash after `n` plies from the root.
    hashes: Vec<u64>,
    outcome: Option<Outcome>,
    /// The side to move's moves by the movement rules (derived, cached).
    mobility: Mobility,
}

fn placement_hash(board: &Board) -> u64 {
    board.pieces().fold(0, |h, (sq, p)| h ^ zobrist::key(p.color, p.kind, sq))
}

impl State {
    /// A new game from a root position (validated first).
    pub fn from_position(root: Position) -> Result<State, Error> {
        root.validate()?;
        let hash = placement_hash(&root.board);
        let mobility = Mobility::new(&root.board, root.to_move);
        let mut state = State {
            pos: root.clone(),
            root,
            history: Vec::new(),
            deaths: Vec::new(),
            shuttles: Default::default(),
            chase: ChaseTracker::default(),
            hashes: vec![hash],
            outcome: None,
            mobility,
        };
        state.refresh();
        Ok(state)
    }

    /// A new game from two setups, Red to move.
    pub fn from_setups(rules: Ruleset, red: &Setup, blue: &Setup) -> Result<State, Error> {
        State::from_position(Position::from_setups(rules, red, blue)?)
    }

    pub fn rules(&self) -> &Ruleset {
        &self.pos.rules
    }

    /// The current position (board, side to move, counters).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The position the game was started from.
    pub fn root(&self) -> &Position {
        &self.root
    }

    pub fn board(&self) -> &Board {
        &self.pos.board
    }

    pub fn to_move(&self) -> Color {
        self.pos.to_move
    }

    /// Total plies played (the root's count included).
    pub fn ply(&self) -> u32 {
        self.pos.ply
    }

    /// Plies since the last battle.
    pub fn battleless(&self) -> u32 {
        self.pos.battleless
    }

    pub fn history(&self) -> &[PlyRecord] {
        &self.history
    }

    pub fn deaths(&self) -> &[Death] {
        &self.deaths
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// How many pieces of each type `color` has lost (army count minus those
    /// on the board: a root position's missing pieces count as lost).
    pub fn lost(&self, color: Color) -> [u8; PieceType::COUNT] {
        let on_board = self.pos.board.counts(color);
        let army = self.pos.rules.piece_set.counts();
        std::array::from_fn(|i| army[i] - on_board[i])
    }

    /// The side to move's legal moves (empty once the game is over), in
    /// generation order: one-step moves by direction and target, then each
    /// Scout's runs. `legal_actions` gives them sorted as action ids.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        self.legal_moves_unchecked()
    }

    /// A legal move drawn uniformly at random, without listing the moves:
    /// a move drawn uniformly from the movement-rule moves is kept if the
    /// two-square and chasing rules allow it and drawn again otherwise, which
    /// is uniform over the legal moves. `None` once the game is over.
    pub fn sample_legal_move(&self, rng: &mut impl rand::Rng) -> Option<Move> {
        if self.outcome.is_some() {
            return None;
        }
        let count = self.mobility.count();
        let check = self.move_rules_active();
        loop {
            let mv = self.mobility.nth(rng.random_range(0..count))?;
            if !check || !self.move_rules_forbid(mv) {
                return Some(mv);
            }
        }
    }

    /// Whether `mv` is legal now.
    pub fn is_legal(&self, mv: Move) -> bool {
        let player = self.pos.to_move;
        self.outcome.is_none() && is_movement_legal(&self.pos.board, player, mv) && !self.move_rules_forbid(mv)
    }

    /// OpenSpiel's `current_player`: `None` once the game is over.
    pub fn current_player(&self) -> Option<Color> {
        self.outcome.is_none().then_some(self.pos.to_move)
    }

    pub fn is_terminal(&self) -> bool {
        self.outcome.is_some()
    }

    /// Per player (Red, Blue): +1 win, -1 loss, 0 draw or not finished.
    pub fn returns(&self) -> [f32; 2] {
        self.outcome.map_or([0.0, 0.0], |o| o.returns())
    }

    /// The legal action ids in the acting player's frame, sorted.
    pub fn legal_actions(&self) -> Vec<ActionId> {
        let player = self.pos.to_move;
        let mut ids: Vec<ActionId> =
            self.legal_moves().iter().map(|m| m.to_action(player).expect("legal moves lie on a line")).collect();
        ids.sort_unstable();
        ids
    }

    /// A 1800-long mask of the legal action ids.
    pub fn legal_action_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; NUM_ACTIONS];
        let player = self.pos.to_move;
        for m in &self.legal_moves() {
            mask[m.to_action(player).expect("legal moves lie on a line") as usize] = true;
        }
        mask
    }

    /// Ends the game against `loser`, who resigned or failed to play (an
    /// outside program's illegal reply, timeout or crash): the other side
    /// wins by `EndReason::Forfeit`. Either side may forfeit at any time,
    /// since a referee learns of a crash whenever it happens.
    pub fn forfeit(&mut self, loser: Color) -> Result<(), Error> {
        if self.outcome.is_some() {
            return Err(Error::GameOver);
        }
        self.outcome = Some(Outcome { winner: Some(loser.opponent()), reason: EndReason::Forfeit });
        Ok(())
    }

    /// Applies an action id of the side to move.
    pub fn apply_action(&mut self, action: ActionId) -> Result<(), Error> {
        if self.outcome.is_some() {
            return Err(Error::GameOver);
        }
        let mv = Move::from_action(action, self.pos.to_move).ok_or(Error::BadAction(action as u32))?;
        self.apply_move(mv)
    }

    /// Applies an absolute move of the side to move.
    pub fn apply_move(&mut self, mv: Move) -> Result<(), Error> {
        if self.outcome.is_some() {
            return Err(Error::GameOver);
        }
        if let Some(reason) = self.refusal(mv) {
            return Err(Error::IllegalMove { mv, reason });
        }
        self.play(mv);
        Ok(())
    }

    /// `b2-b5` for an action of the side to move.
    pub fn action_to_string(&self, action: ActionId) -> String {
        match Move::from_action(action, self.pos.to_move) {
            Some(mv) => mv.to_string(),
            None => format!("invalid-action-{action}"),
        }
    }

    /// The full state as one line: the root position, then `moves` and every
    /// move played, then `forfeit COLOUR` if a side forfeited. `deserialize`
    /// replays it to an equal state.
    pub fn serialize(&self) -> String {
        let mut text = self.root.to_text();
        if !self.history.is_empty() {
            text.push_str(" moves");
            for r in &self.history {
                text.push(' ');
                text.push_str(&r.mv.to_string());
            }
        }
        if let Some(Outcome { winner: Some(winner), reason: EndReason::Forfeit }) = self.outcome {
            text.push_str(&format!(" forfeit {}", winner.opponent()));
        }
        text
    }

    /// Rebuilds a state from `serialize`'s text.
    pub fn deserialize(text: &str) -> Result<State, Error> {
        let fields = snapshot::leading_fields(text, &POSITION_FIELDS).map_err(Error::Position)?;
        let mut state = State::from_position(Position::from_fields(&fields[..5])?)?;
        let mut rest = &fields[5..];
        if let Some((&"moves", after)) = rest.split_first() {
            let count = after.iter().position(|t| *t == "forfeit").unwrap_or(after.len());
            for (i, text) in after[..count].iter().enumerate() {
                let played = text.parse::<Move>().map_err(Error::from).and_then(|mv| state.apply_move(mv));
                played.map_err(|e| Error::AtPly { ply: i + 1, source: Box::new(e) })?;
            }
            rest = &after[count..];
        }
        match rest {
            [] => {}
            ["forfeit", colour] => {
                let loser = Color::from_name(colour)
                    .ok_or_else(|| Error::Position(format!("`forfeit {colour}`: expected red or blue")))?;
                state.forfeit(loser)?;
            }
            [other, ..] => {
                return Err(Error::Position(format!(
                    "expected `moves` or `forfeit COLOUR` after the position, found `{other}`"
                )))
            }
        }
        Ok(state)
    }

    /// `deserialize`, refusing a text written under another ruleset.
    pub fn deserialize_under(expected: &Ruleset, text: &str) -> Result<State, Error> {
        snapshot::ensure_under(expected, text)?;
        State::deserialize(text)
    }

    /// The same game seen with the colours swapped: the root rotated with
    /// Red and Blue exchanged, and every move rotated. The side to move's
    /// legal action ids are the same in both.
    pub fn color_swapped(&self) -> State {
        let mut swapped = State::from_position(self.root.color_swapped()).expect("a swapped valid root is valid");
        for r in &self.history {
            swapped.apply_move(r.mv.rotated()).expect("a swapped legal move is legal");
        }
        swapped
    }

    // ---- rules ----------------------------------------------------------

    /// Whether a non-attacking move of the side to move to `to` would end
    /// next to an enemy piece.
    pub(crate) fn ends_next_to_enemy(&self, to: Square, player: Color) -> bool {
        self.pos.board.enemy_adjacent(to, player)
    }

    /// The more-squares rule for the side to move: a continuous chaser may not
    /// make a chasing move that recreates a position from its chase, except
    /// the move straight back to the square it just left.
    fn chase_forbids(&self, mv: Move) -> bool {
        self.chase_forbids_by(&self.chase, self.pos.rules.chase_rule, mv)
    }

    /// `chase_forbids` with the chase bookkeeping of `chase` (the state's own,
    /// or a self-imposed rule's: `progress::ProgressTracker`), the rule on
    /// when `on`.
    pub(crate) fn chase_forbids_by(&self, chase: &ChaseTracker, on: bool, mv: Move) -> bool {
        let player = self.pos.to_move;
        let chasing_moves = if on { chase.chasing_moves(player) } else { 0 };
        let board = &self.pos.board;
        if chasing_moves < 2 || board[mv.to].is_some() || !self.ends_next_to_enemy(mv.to, player) {
            return false; // attacks and non-threatening moves are never chasing moves
        }
        if chase.last[player.index()] == Some(Move::new(mv.to, mv.from)) {
            return false; // ISF 11.2: back to the square it came from
        }
        let piece = board[mv.from].expect("a move starts on a piece");
        let current = *self.hashes.last().expect("hashes start with the root");
        let after = current ^ zobrist::key(player, piece.kind, mv.from) ^ zobrist::key(player, piece.kind, mv.to);
        let n = self.hashes.len() - 1;
        // The chaser's earlier chasing moves produced hashes[n-1], hashes[n-3], ...
        (1..chasing_moves as usize).any(|i| {
            let earlier = n - 1 - 2 * i;
            self.hashes[earlier] == after && self.same_placement_after(mv, earlier)
        })
    }

    /// Confirms a hash match: the board after `mv` equals the board after
    /// `earlier` plies, square by square. The chase window holds no battle,
    /// so undoing its moves one by one rebuilds the earlier board.
    fn same_placement_after(&self, mv: Move, earlier: usize) -> bool {
        let code = |p: Option<Piece>| p.map_or(0u8, |p| 1 + p.color as u8 * 12 + p.kind as u8);
        let mut then: [u8; Square::COUNT] =
            std::array::from_fn(|i| code(self.pos.board[Square::new(i as u8).unwrap()]));
        let mut after = then;
        after.swap(mv.from.index(), mv.to.index());
        for r in self.history[earlier..].iter().rev() {
            debug_assert!(r.battle.is_none(), "the chase window holds no battle");
            then.swap(r.mv.from.index(), r.mv.to.index());
        }
        then == after
    }

    /// Earlier moves of the side to move's ongoing chase (0 if it is not a
    /// continuous chaser or the chasing rule is off).
    fn chasing_moves(&self) -> u32 {
        if self.pos.rules.chase_rule {
            self.chase.chasing_moves(self.pos.to_move)
        } else {
            0
        }
    }

    /// Whether the two-square or chasing rule may forbid a move now.
    fn move_rules_active(&self) -> bool {
        self.shuttles[self.pos.to_move.index()].is_active(self.pos.rules.two_square_limit) || self.chasing_moves() >= 2
    }

    /// Whether the two-square or chasing rule forbids a movement-rule move.
    fn move_rules_forbid(&self, mv: Move) -> bool {
        self.shuttles[self.pos.to_move.index()].forbids(mv, self.pos.rules.two_square_limit) || self.chase_forbids(mv)
    }

    /// Removes the moves the two-square and chasing rules forbid.
    fn apply_move_rules(&self, moves: &mut Vec<Move>) {
        if self.move_rules_active() {
            moves.retain(|&mv| !self.move_rules_forbid(mv));
        }
    }

    /// Decides whether the game is over, after a ply or at the root. The
    /// checks run in the documented order: flag captured, no legal move,
    /// total-ply cap, battleless cap.
    fn refresh(&mut self) {
        let player = self.pos.to_move;
        let rules = self.pos.rules;
        let flag_taken = self
            .history
            .last()
            .and_then(|r| (r.battle.map(|b| b.defender) == Some(PieceType::Flag)).then_some(r.player));
        self.mobility = Mobility::new(&self.pos.board, player);
        let has_move = || {
            let candidates = (0..self.mobility.count()).filter_map(|k| self.mobility.nth(k));
            if self.move_rules_active() {
                candidates.into_iter().any(|mv| !self.move_rules_forbid(mv))
            } else {
                self.mobility.count() > 0
            }
        };
        self.outcome = if let Some(capturer) = flag_taken {
            Some(Outcome { winner: Some(capturer), reason: EndReason::FlagCaptured })
        } else if !has_move() {
            let other = player.opponent();
            Some(if Mobility::new(&self.pos.board, other).count() > 0 {
                Outcome { winner: Some(other), reason: EndReason::NoLegalMove }
            } else {
                Outcome { winner: None, reason: EndReason::NeitherCanMove }
            })
        } else if self.pos.ply >= rules.max_plies {
            Some(Outcome { winner: None, reason: EndReason::PlyCap })
        } else if self.pos.battleless >= rules.max_battleless_plies {
            Some(Outcome { winner: None, reason: EndReason::BattlelessCap })
        } else {
            None
        };
    }

    /// The legal moves, ignoring whether the game is already decided.
    fn legal_moves_unchecked(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.mobility.push_all(&mut moves);
        self.apply_move_rules(&mut moves);
        moves
    }

    /// Plays a legal move.
    fn play(&mut self, mv: Move) {
        let player = self.pos.to_move;
        let ply = self.pos.ply + 1;
        let board = &mut self.pos.board;
        let mut hash = *self.hashes.last().expect("hashes start with the root");
        let before = board.take(mv.from).expect("a legal move starts on a piece");
        hash ^= zobrist::key(player, before.kind, mv.from);
        let scout_run = mv.distance() > 1;
        let mut mover = Piece { moved: true, revealed: before.revealed || scout_run, ..before };
        let battle_record = match board.take(mv.to) {
            None => {
                board.set(mv.to, Some(mover));
                hash ^= zobrist::key(player, mover.kind, mv.to);
                None
            }
            Some(defender) => {
                hash ^= zobrist::key(defender.color, defender.kind, mv.to);
                let result = battle(mover.kind, defender.kind);
                let record = BattleRecord {
                    defender: defender.kind,
                    result,
                    attacker_was_revealed: before.revealed,
                    defender_was_revealed: defender.revealed,
                };
                mover.revealed = true;
                let revealed_defender = Piece { revealed: true, ..defender };
                let death = |piece: Piece, as_attacker: bool, opponent: Piece| Death {
                    piece,
                    square: mv.to,
                    ply,
                    as_attacker,
                    opponent: opponent.kind,
                    opponent_was_revealed: if as_attacker { defender.revealed } else { before.revealed },
                };
                match result {
                    BattleResult::AttackerWins => {
                        self.deaths.push(death(defender, false, before));
                        board.set(mv.to, Some(mover));
                        hash ^= zobrist::key(player, mover.kind, mv.to);
                    }
                    BattleResult::DefenderWins => {
                        self.deaths.push(death(before, true, defender));
                        board.set(mv.to, Some(revealed_defender));
                        hash ^= zobrist::key(defender.color, defender.kind, mv.to);
                    }
                    BattleResult::BothRemoved => {
                        self.deaths.push(death(before, true, defender));
                        self.deaths.push(death(defender, false, before));
                    }
                }
                Some(record)
            }
        };
        let survived = battle_record.is_none_or(|b| b.result == BattleResult::AttackerWins);
        let threatens = battle_record.is_none() && self.ends_next_to_enemy(mv.to, player);
        self.pos.ply = ply;
        self.pos.battleless = if battle_record.is_some() { 0 } else { self.pos.battleless + 1 };
        self.shuttles[player.index()].record(mv, survived, self.pos.rules.two_square_limit);
        self.chase.record(player, mv, battle_record.is_some(), threatens);
        self.history.push(PlyRecord {
            player,
            mv,
            piece: before.kind,
            origin: before.origin,
            scout_run,
            battle: battle_record,
        });
        self.hashes.push(hash);
        self.pos.to_move = player.opponent();
        self.refresh();
    }

    /// Why the side to move may not make `mv`, or `None` if it is legal
    /// (exactly when `is_legal` holds). The reasons are checked in the order
    /// of `Refusal`'s variants: game over, the origin square, the
    /// destination and path, then the two-square and more-squares rules.
    pub fn refusal(&self, mv: Move) -> Option<Refusal> {
        if self.outcome.is_some() {
            return Some(Refusal::GameOver);
        }
        let player = self.pos.to_move;
        let board = &self.pos.board;
        match board[mv.from] {
            None => return Some(Refusal::NoPiece { square: mv.from }),
            Some(p) if p.color != player => return Some(Refusal::NotYourPiece { square: mv.from, player }),
            Some(p) if !p.kind.is_movable() => return Some(Refusal::Immovable { piece: p.kind }),
            Some(_) => {}
        }
        if !is_movement_legal(board, player, mv) {
            // A move onto its own origin goes nowhere: unreachable, not an own piece.
            return Some(if mv.to == mv.from {
                Refusal::Unreachable
            } else if mv.to.is_lake() {
                Refusal::Lake { square: mv.to }
            } else if board[mv.to].is_some_and(|p| p.color == player) {
                Refusal::OwnPiece { square: mv.to }
            } else {
                Refusal::Unreachable
            });
        }
        let limit = self.pos.rules.two_square_limit;
        if self.shuttles[player.index()].forbids(mv, limit) {
            return Some(Refusal::TwoSquare { limit });
        }
        if self.chase_forbids(mv) {
            return Some(Refusal::MoreSquares);
        }
        None
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.pos.board.pretty())?;
        match self.outcome {
            Some(o) => write!(f, "ply {}: {o}", self.pos.ply),
            None => write!(f, "ply {}: {} to move", self.pos.ply, self.pos.to_move),
        }
    }
}
