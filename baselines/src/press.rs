//! Pressing when ahead: one room for the players that press.
//!
//! Where a referee applies neither the two-square nor the more-squares rule,
//! a player that is ahead on material and finds no move better than keeping
//! its lead shuffles until a cap draws the game. The press pulls it towards
//! the win instead, once the game has stalled:
//! - it applies when the player leads by at least `PRESS_LEAD` (a Scout's
//!   worth) and the game has gone `PRESS_AFTER_BATTLELESS` plies without a
//!   battle: a stalled game, not every quiet move;
//! - each of the player's movable pieces gains `PRESS_WEIGHT` per square it
//!   stands closer to the nearest of its [`Targets`]: the hidden enemy pieces
//!   (the unexplored squares: the Flag is among them), and for a Miner also
//!   the revealed Bombs, which only Miners clear;
//! - the pull grows with the stall, up to `PRESS_STALL_MAX` times ([`stall`]).
//!
//! Three kinds of player press, each in its own units:
//! - `expectimax`'s hand-written leaves (`heuristic::evaluate_pressing`), which
//!   also count the lead `TRADE_WEIGHT` more as material leaves the board;
//! - `expectimax`'s learned leaves (`leaf=ntuple:PATH`), which add the same
//!   term (`heuristic::press_term`) times `TABLES_PRESS_SCALE`;
//! - the afterstate player `ntuple:PATH` ([`ViewPress`]): its tables learned
//!   under the lab's progress rules and have no notion of a stall, so the
//!   pull of each move is added to its afterstate value, in the tables'
//!   units (`TABLES_PRESS_SCALE / ntuple::LEAF_SCALE` per point).

use stratego_engine::{Color, Move, PieceType, ProgressRules, Ruleset, Square, State};
use stratego_players::view::{Cell, InfoView};
use stratego_players::{PlayerSpec, SpecError};

use crate::greedy::type_distribution;
use crate::values::{expected_value, value};

/// The material lead from which a player presses: a Scout's worth.
pub const PRESS_LEAD: f64 = 10.0;
/// Weight of one square closer to a target, per movable piece, when ahead ...
pub const PRESS_WEIGHT: f64 = 5.0;
/// ... once the game has gone this many plies without a battle ...
pub const PRESS_AFTER_BATTLELESS: u32 = 20;
/// ... and up to this many times harder as the stall goes on (the weight
/// grows with the battleless plies, in units of `PRESS_AFTER_BATTLELESS`).
pub const PRESS_STALL_MAX: f64 = 4.0;
/// Extra weight of the lead per unit share of the armies' material gone,
/// when ahead (expectimax's leaves only: a one-ply player sees a trade as
/// the tables value it).
pub const TRADE_WEIGHT: f64 = 0.5;

/// How much harder the press pulls a player whose values are the n-tuple
/// tables' than the hand-written evaluation's points say: `ntuple::LEAF_SCALE`
/// puts the tables on the points' scale, but at that weight the tables'
/// small preferences kept the afterstate player shuffling (it cannot see
/// where a step leads). Measured against greedy under a referee's rules
/// (EVALUATION.md, seed 777, 100 games; share of games capped with it
/// ahead): 14 % at 1, 8 % at 4, 3 % at 16, 1 % at 32 and at 64. At 32 one
/// square towards a target at the first stalled ply is worth 0.016 of the
/// tables' [-1, 1].
pub const TABLES_PRESS_SCALE: f64 = 32.0;

/// When a player presses (the spec option `press=auto|on|off`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Press {
    /// Exactly when the game's rules lack the lab's progress rules (the
    /// two-square and more-squares rules), which otherwise end shuffling;
    /// so play under the lab's rules, and every result registered under
    /// them, is unchanged.
    #[default]
    Auto,
    On,
    Off,
}

impl Press {
    /// The `press=` option of a spec.
    pub fn option(spec: &PlayerSpec) -> Result<Press, SpecError> {
        match spec.option("press") {
            None => Ok(Press::default()),
            Some(text) => {
                Press::from_name(text).ok_or_else(|| SpecError::bad_value("press", text, "expected auto, on or off"))
            }
        }
    }

    /// The spec option as the registry lists it.
    pub const OPTION: &'static str = "press=auto|on|off";

    pub const fn name(self) -> &'static str {
        match self {
            Press::Auto => "auto",
            Press::On => "on",
            Press::Off => "off",
        }
    }

    pub fn from_name(name: &str) -> Option<Press> {
        [Press::Auto, Press::On, Press::Off].into_iter().find(|p| p.name() == name)
    }

    /// Whether to press in a game under `rules`.
    pub fn applies(self, rules: &Ruleset) -> bool {
        match self {
            Press::Auto => ProgressRules::LAB.stricter_than(rules),
            Press::On => true,
            Press::Off => false,
        }
    }

    /// Whether to press now: under `rules`, `battleless` plies after the
    /// last battle (the lead is the caller's to check).
    pub fn applies_after(self, rules: &Ruleset, battleless: u32) -> bool {
        self.applies(rules) && battleless >= PRESS_AFTER_BATTLELESS
    }
}

/// How hard the pull is after `battleless` plies without a battle: 1 at
/// `PRESS_AFTER_BATTLELESS`, growing linearly to `PRESS_STALL_MAX`.
pub fn stall(battleless: u32) -> f64 {
    (battleless as f64 / PRESS_AFTER_BATTLELESS as f64).clamp(1.0, PRESS_STALL_MAX)
}

/// The squares a pressing player's pieces are drawn to.
pub struct Targets {
    /// The opponent's hidden pieces: every attacker's targets.
    hidden: Vec<Square>,
    /// The opponent's revealed Bombs: a Miner's targets too (a Flag walled
    /// in by Bombs is won only through them).
    bombs: Vec<Square>,
}

impl Targets {
    /// `me`'s targets in `state` (public information only).
    pub fn of_state(state: &State, me: Color) -> Targets {
        let enemy = || state.board().pieces().filter(move |(_, p)| p.color != me);
        Targets {
            hidden: enemy().filter(|(_, p)| !p.revealed).map(|(sq, _)| sq).collect(),
            bombs: enemy().filter(|(_, p)| p.revealed && p.kind == PieceType::Bomb).map(|(sq, _)| sq).collect(),
        }
    }

    /// The acting player's targets in `view`.
    pub fn of_view(view: &InfoView<'_>) -> Targets {
        let enemy = || view.opponent_pieces();
        Targets {
            hidden: enemy().filter(|(_, p)| p.known.is_none()).map(|(sq, _)| sq).collect(),
            bombs: enemy().filter(|(_, p)| p.known == Some(PieceType::Bomb)).map(|(sq, _)| sq).collect(),
        }
    }

    /// Whether a piece of type `kind` is drawn to `sq`.
    pub fn is_target(&self, sq: Square, kind: PieceType) -> bool {
        self.hidden.contains(&sq) || (kind == PieceType::Miner && self.bombs.contains(&sq))
    }

    /// The distance (in squares, lakes ignored) from `sq` to the nearest
    /// target of a piece of type `kind`; `None` when it has none.
    pub fn distance(&self, sq: Square, kind: PieceType) -> Option<u32> {
        let bombs = self.bombs.iter().filter(|_| kind == PieceType::Miner);
        self.hidden.iter().chain(bombs).map(|t| sq.manhattan(*t) as u32).min()
    }

    /// Minus the summed distances of `pieces` (movable ones, with their
    /// squares) to their nearest targets: higher is closer.
    pub fn approach(&self, pieces: impl Iterator<Item = (Square, PieceType)>) -> f64 {
        pieces.filter_map(|(sq, kind)| self.distance(sq, kind)).map(|d| -(d as f64)).sum()
    }
}

/// The acting player's material lead in `view`, as `heuristic` counts it: its
/// own pieces at their values, the opponent's revealed ones at theirs and
/// each hidden one at its expected value under the counting prior, the
/// Flags left out on both sides.
pub fn view_lead(view: &InfoView<'_>) -> f64 {
    let flagless = |kind: PieceType| if kind == PieceType::Flag { 0.0 } else { value(kind) };
    let own: f64 = view.own_pieces().map(|(_, p)| flagless(p.kind)).sum();
    let prior = view.prior();
    let opponent: f64 = view
        .opponent_pieces()
        .map(|(_, p)| match p.known {
            Some(kind) => flagless(kind),
            None => {
                let dist = type_distribution(&p, &prior);
                expected_value(&dist) - dist[PieceType::Flag.index()] as f64 * value(PieceType::Flag)
            }
        })
        .sum();
    own - opponent
}

/// The press of the afterstate player in one position: the pull of each
/// legal move, in points (the caller scales them to its values).
pub struct ViewPress {
    targets: Targets,
    stall: f64,
}

impl ViewPress {
    /// The press in `view`, or `None` where `press` does not press now:
    /// rules with the lab's progress rules (under `auto`), a game that has
    /// not stalled, or a lead under `PRESS_LEAD`.
    pub fn new(press: Press, view: &InfoView<'_>) -> Option<ViewPress> {
        (press.applies_after(&view.rules, view.battleless) && view_lead(view) >= PRESS_LEAD)
            .then(|| ViewPress { targets: Targets::of_view(view), stall: stall(view.battleless) })
    }

    /// The pull of `mv`: `PRESS_WEIGHT` (times the stall) per square the
    /// mover comes closer to its nearest target. An attack on a target
    /// reaches it (distance 0): the battle it starts is the progress the
    /// press is after, whatever the tables make of its outcome.
    pub fn pull(&self, view: &InfoView<'_>, mv: Move) -> f64 {
        let Cell::Own(mover) = view.cell(mv.from) else { return 0.0 };
        let Some(before) = self.targets.distance(mv.from, mover.kind) else { return 0.0 };
        let after = if self.targets.is_target(mv.to, mover.kind) {
            0
        } else {
            self.targets.distance(mv.to, mover.kind).unwrap_or(before)
        };
        self.stall * PRESS_WEIGHT * (before as f64 - after as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratego_players::view::public_history;

    fn state(board: &str, side: &str, battleless: u32) -> State {
        let rules = "stratego-rules-v1:pieces=classic,two-square=0,chase=off,max-plies=1000,max-battleless=4294967295";
        State::deserialize(&format!("{rules} {board} {side} 40 {battleless}")).unwrap()
    }

    /// Red: its Flag (j1) and a Colonel on e6; Blue: its Flag and a Bomb,
    /// hidden and unmoved (a10, c10), and a revealed Bomb on j5.
    const AHEAD: &str =
        "f.b......./........../........../........../..~~C.~~../..~~..~~.b^/........../........../........../.........F";

    #[test]
    fn the_view_lead_counts_hidden_pieces_at_their_expected_value() {
        let s = state(AHEAD, "red", 30);
        let history = public_history(&s);
        let view = InfoView::new(&s, &history);
        // Red: a Colonel (120); Blue: a revealed Bomb (15) and two hidden
        // unmoved pieces, a Flag and a Bomb, worth 15/2 each without the Flag.
        let expected = 120.0 - 15.0 - 2.0 * 7.5;
        assert!((view_lead(&view) - expected).abs() < 1e-3, "{}", view_lead(&view));
    }

    #[test]
    fn the_pull_rewards_steps_towards_the_targets_and_attacks_on_them() {
        let s = state(AHEAD, "red", 40);
        let history = public_history(&s);
        let view = InfoView::new(&s, &history);
        let press = ViewPress::new(Press::Auto, &view).expect("ahead after a stall");
        let pull = |from: &str, to: &str| {
            let mv = Move::new(from.parse().unwrap(), to.parse().unwrap());
            assert!(view.legal_moves.contains(&mv), "{mv} is legal");
            press.pull(&view, mv)
        };
        // 40 battleless plies: twice the weight of the first stalled ply.
        let step = 2.0 * PRESS_WEIGHT;
        assert_eq!(pull("e6", "e7"), step, "one square towards c10");
        assert_eq!(pull("e6", "e5"), -step, "one square away");
        assert_eq!(pull("e6", "f6"), -step, "sideways, away from c10");
        // The press never applies where the lab's rules hold, or when not stalled.
        let classic = State::deserialize(&s.serialize().replace("two-square=0,chase=off", "two-square=3,chase=on"));
        let classic = classic.unwrap();
        let history = public_history(&classic);
        assert!(ViewPress::new(Press::Auto, &InfoView::new(&classic, &history)).is_none());
        assert!(ViewPress::new(Press::On, &InfoView::new(&classic, &history)).is_some());
        let early = state(AHEAD, "red", PRESS_AFTER_BATTLELESS - 1);
        let history = public_history(&early);
        assert!(ViewPress::new(Press::On, &InfoView::new(&early, &history)).is_none());
    }

    #[test]
    fn an_attack_on_a_target_reaches_it() {
        // The Colonel stands next to the hidden Bomb on c10.
        let board =
            "f.b......./..C......./........../........../..~~..~~../..~~..~~.b^/........../........../........../.........F";
        let s = state(board, "red", 20);
        let history = public_history(&s);
        let view = InfoView::new(&s, &history);
        let press = ViewPress::new(Press::Auto, &view).unwrap();
        let attack = Move::new("c9".parse().unwrap(), "c10".parse().unwrap());
        assert_eq!(press.pull(&view, attack), PRESS_WEIGHT, "from one square away to the target itself");
    }

    #[test]
    fn a_miner_is_drawn_to_revealed_bombs_and_others_are_not() {
        let targets = Targets::of_state(&state(AHEAD, "red", 20), Color::Red);
        let j4: Square = "j4".parse().unwrap();
        assert_eq!(targets.distance(j4, PieceType::Miner), Some(1), "j5's revealed Bomb");
        assert_eq!(targets.distance(j4, PieceType::Colonel), Some(7 + 6), "c10's hidden piece");
        assert!(!targets.is_target("j5".parse().unwrap(), PieceType::Colonel));
    }

    /// `press=auto` presses only where the lab's progress rules are off, so
    /// every match under them (every registered result) plays as before.
    #[test]
    fn auto_presses_only_under_rules_without_the_progress_rules() {
        assert!(!Press::Auto.applies(&Ruleset::classic()));
        assert!(!Press::Auto.applies(&Ruleset::barrage()));
        assert!(Press::Auto.applies(&Ruleset { two_square_limit: 0, chase_rule: false, ..Ruleset::classic() }));
        assert!(Press::On.applies(&Ruleset::classic()));
        assert!(!Press::Off.applies(&Ruleset { two_square_limit: 0, ..Ruleset::classic() }));
    }

    #[test]
    fn the_stall_grows_to_its_cap() {
        assert_eq!(stall(0), 1.0);
        assert_eq!(stall(PRESS_AFTER_BATTLELESS), 1.0);
        assert_eq!(stall(2 * PRESS_AFTER_BATTLELESS), 2.0);
        assert_eq!(stall(1000), PRESS_STALL_MAX);
        for p in [Press::Auto, Press::On, Press::Off] {
            assert_eq!(Press::from_name(p.name()), Some(p));
        }
    }
}
