//! Self-imposed progress rules: the two-square and more-squares rules held
//! by one player for its own moves, in a game whose ruleset has them off
//! (or laxer), while the opponent moves by the game's rules.
//!
//! Referees outside the lab often apply neither rule. A player that keeps to
//! them anyway cannot shuffle one piece back and forth for ever, which is
//! how games against such referees used to run into the turn cap. The rules are public-information rules: they depend on the
//! moves, the squares and whether battles happened, never on hidden
//! identities, so a player may track them from what it sees.
//!
//! `ProgressTracker` keeps, beside a game's `State`, the bookkeeping the
//! engine keeps for its own progress rules (the same trackers, fed the same
//! plies), under the limits of a `ProgressRules`. `refusal` then says
//! whether those rules forbid a move of the side to move, and `restrict`
//! removes such moves from a list of legal ones, never down to none: a player
//! whose every move its own rules forbid still moves rather than lose on
//! moves the game allows.

use crate::action::Move;
use crate::chase::ChaseTracker;
use crate::error::Refusal;
use crate::piece::{BattleResult, Color};
use crate::rules::Ruleset;
use crate::state::State;
use crate::two_square::ShuttleTracker;

/// The two progress rules' switches: a ruleset's, or a player's own.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ProgressRules {
    /// The two-square limit; 0 turns the rule off.
    pub two_square_limit: u8,
    /// The more-squares rule (ISF article 11).
    pub chase_rule: bool,
}

impl ProgressRules {
    /// The lab's progress rules: those of `Ruleset::classic()` (two-square
    /// limit 3, more-squares rule on), which strong bots keep to as well.
    pub const LAB: ProgressRules = ProgressRules::of(&Ruleset::classic());

    /// The progress rules of a ruleset.
    pub const fn of(rules: &Ruleset) -> ProgressRules {
        ProgressRules { two_square_limit: rules.two_square_limit, chase_rule: rules.chase_rule }
    }

    /// Whether these rules forbid some move that `rules` allows: a two-square
    /// limit where `rules` has none or a higher one, or the more-squares rule
    /// where `rules` lacks it.
    pub fn stricter_than(&self, rules: &Ruleset) -> bool {
        let tighter_limit = self.two_square_limit > 0
            && (rules.two_square_limit == 0 || self.two_square_limit < rules.two_square_limit);
        tighter_limit || (self.chase_rule && !rules.chase_rule)
    }
}

impl std::fmt::Display for ProgressRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "two-square={},chase={}", self.two_square_limit, if self.chase_rule { "on" } else { "off" })
    }
}

/// The bookkeeping of a `ProgressRules` for one game, ply by ply.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProgressTracker {
    rules: ProgressRules,
    shuttles: [ShuttleTracker; 2],
    chase: ChaseTracker,
    /// Plies of the game folded in.
    plies: usize,
}

impl ProgressTracker {
    /// A tracker for a game that has not started (no ply played yet).
    pub fn new(rules: ProgressRules) -> ProgressTracker {
        ProgressTracker { rules, shuttles: Default::default(), chase: ChaseTracker::default(), plies: 0 }
    }

    /// A tracker for `state`'s game so far: its plies replayed from the root.
    pub fn from_state(rules: ProgressRules, state: &State) -> ProgressTracker {
        let mut tracker = ProgressTracker::new(rules);
        let mut replay = State::from_position(state.root().clone()).expect("a state's root is valid");
        for record in state.history() {
            replay.apply_move(record.mv).expect("a played move replays");
            tracker.record_last(&replay);
        }
        tracker
    }

    pub fn rules(&self) -> ProgressRules {
        self.rules
    }

    /// Folds in the plies of `state` played since the last call: call it after
    /// every ply (it reads the board after the ply). If plies were skipped, it
    /// replays the game from the root instead.
    pub fn update(&mut self, state: &State) {
        let played = state.history().len();
        if played == self.plies + 1 {
            self.record_last(state);
        } else if played != self.plies {
            *self = ProgressTracker::from_state(self.rules, state);
        }
    }

    /// Records `state`'s last ply, as the engine records its own.
    fn record_last(&mut self, state: &State) {
        let record = state.history().last().expect("a ply was played");
        let (player, mv) = (record.player, record.mv);
        let battle = record.battle.is_some();
        let survived = record.battle.is_none_or(|b| b.result == BattleResult::AttackerWins);
        let threatens = !battle && state.ends_next_to_enemy(mv.to, player);
        self.shuttles[player.index()].record(mv, survived, self.rules.two_square_limit);
        self.chase.record(player, mv, battle, threatens);
        self.plies += 1;
    }

    /// Why these rules forbid `mv` for `state`'s side to move, if they do.
    /// `mv` is assumed legal under the game's own rules. The tracker must be
    /// up to date with `state` (`update`).
    pub fn refusal(&self, state: &State, mv: Move) -> Option<Refusal> {
        debug_assert_eq!(self.plies, state.history().len(), "the tracker is behind the state");
        let player: Color = state.to_move();
        let limit = self.rules.two_square_limit;
        if self.shuttles[player.index()].forbids(mv, limit) {
            return Some(Refusal::TwoSquare { limit });
        }
        if state.chase_forbids_by(&self.chase, self.rules.chase_rule, mv) {
            return Some(Refusal::MoreSquares);
        }
        None
    }

    /// Removes from `moves` (legal moves of `state`'s side to move) those
    /// these rules forbid, unless that would leave none. Returns how many
    /// were removed.
    pub fn restrict(&self, state: &State, moves: &mut Vec<Move>) -> usize {
        let allowed: Vec<Move> = moves.iter().copied().filter(|&mv| self.refusal(state, mv).is_none()).collect();
        if allowed.is_empty() {
            return 0;
        }
        let removed = moves.len() - allowed.len();
        *moves = allowed;
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use crate::setup::Setup;

    fn lax(rules: Ruleset) -> Ruleset {
        Ruleset { two_square_limit: 0, chase_rule: false, ..rules }
    }

    /// A tracker under the game's own progress rules agrees with the
    /// engine's verdicts move for move, over random games: the same
    /// bookkeeping, fed the same plies.
    #[test]
    fn under_the_games_own_rules_the_tracker_is_the_engine() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(16);
        let mut checked = 0usize;
        let mut forbidden = 0usize;
        for _ in 0..40 {
            let rules = Ruleset::classic();
            let (red, blue) = (Setup::random(rules.piece_set, &mut rng), Setup::random(rules.piece_set, &mut rng));
            // The same game under lax rules, where nothing is forbidden.
            let mut strict = State::from_setups(rules, &red, &blue).unwrap();
            let mut free = State::from_setups(lax(rules), &red, &blue).unwrap();
            let mut tracker = ProgressTracker::new(ProgressRules::of(&rules));
            while !strict.is_terminal() && strict.ply() < 600 {
                for mv in free.legal_moves() {
                    let engine = strict.refusal(mv);
                    assert_eq!(tracker.refusal(&free, mv), engine, "ply {} {mv}", strict.ply());
                    forbidden += engine.is_some() as usize;
                    checked += 1;
                }
                // Shuffle often, so the rules come into play.
                let moves = strict.legal_moves();
                let last = strict.history().last().map(|r| Move::new(r.mv.to, r.mv.from));
                let mv = match last.filter(|_| rng.random_bool(0.7)).and_then(|back| {
                    let prev = strict.history().iter().rev().nth(1).map(|r| Move::new(r.mv.to, r.mv.from));
                    prev.filter(|m| moves.contains(m)).or(moves.contains(&back).then_some(back))
                }) {
                    Some(mv) => mv,
                    None => moves[rng.random_range(0..moves.len())],
                };
                strict.apply_move(mv).unwrap();
                free.apply_move(mv).unwrap();
                tracker.update(&free);
                if free.is_terminal() {
                    break;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        assert!(forbidden > 100, "the rules forbade only {forbidden} moves: the test did not exercise them");
    }

    #[test]
    fn a_replayed_tracker_equals_the_incremental_one() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let rules = lax(Ruleset::classic());
        let mut state = State::from_setups(
            rules,
            &Setup::random(rules.piece_set, &mut rng),
            &Setup::random(rules.piece_set, &mut rng),
        )
        .unwrap();
        let mut tracker = ProgressTracker::new(ProgressRules::LAB);
        for _ in 0..200 {
            let Some(mv) = state.sample_legal_move(&mut rng) else { break };
            state.apply_move(mv).unwrap();
            tracker.update(&state);
            if state.is_terminal() {
                break;
            }
        }
        assert_eq!(ProgressTracker::from_state(ProgressRules::LAB, &state), tracker);
    }

    #[test]
    fn stricter_than_compares_each_rule() {
        let classic = Ruleset::classic();
        assert!(!ProgressRules::LAB.stricter_than(&classic));
        assert!(ProgressRules::LAB.stricter_than(&lax(classic)));
        assert!(ProgressRules::LAB.stricter_than(&Ruleset { two_square_limit: 5, ..classic }));
        assert!(!ProgressRules::LAB.stricter_than(&Ruleset { two_square_limit: 2, ..classic }));
        assert!(ProgressRules::LAB.stricter_than(&Ruleset { chase_rule: false, ..classic }));
        let off = ProgressRules { two_square_limit: 0, chase_rule: false };
        assert!(!off.stricter_than(&lax(classic)));
    }
}
