//! The greedy player: one ply of lookahead, no search.
//!
//! Each legal move is scored by the material it is expected to win or lose
//! in the battle it starts (none for a move onto an empty square). When the
//! defender's type is hidden, the expectation runs over the counting prior
//! (a hidden piece that never moved may be a Bomb or the Flag; one that moved
//! cannot), using the single battle table. A small bonus rewards attacking a
//! hidden piece (the battle reveals it) and each row advanced towards the
//! opponent, so the player makes progress when nothing can be taken. Equal
//! scores are broken by the seeded generator.

use rand::Rng;
use stratego_engine::{battle, BattleResult, CountingPrior, Move, PieceSet, PieceType, Setup, TypeDistribution};

use crate::values::value;
use stratego_players::player::{AgentRng, Player, PlayerError};
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::view::{Cell, InfoView, OpponentPiece};
use stratego_players::{Naming, PlayerSpec};

/// Bonus for a battle that reveals a hidden opponent piece.
pub const REVEAL_BONUS: f64 = 2.0;
/// Bonus per row moved towards the opponent's back row (a retreat costs the same).
pub const ADVANCE_BONUS: f64 = 1.0;
/// Scores closer than this are ties.
const TIE: f64 = 1e-9;

#[derive(Clone, Debug, Default)]
pub struct GreedyPlayer {
    pub setup: SetupPolicy,
}

/// The material change, for the attacker's side, of `attacker` striking a
/// piece of type `defender`.
pub fn material_change(attacker: PieceType, defender: PieceType) -> f64 {
    match battle(attacker, defender) {
        BattleResult::AttackerWins => value(defender),
        BattleResult::DefenderWins => -value(attacker),
        BattleResult::BothRemoved => value(defender) - value(attacker),
    }
}

/// The type distribution of an opponent piece: one-hot if revealed, the
/// counting prior otherwise.
pub fn type_distribution(piece: &OpponentPiece, prior: &CountingPrior) -> TypeDistribution {
    match piece.known {
        Some(t) => {
            let mut d = [0.0; PieceType::COUNT];
            d[t.index()] = 1.0;
            d
        }
        None if piece.moved => *prior.moved(),
        None => *prior.unmoved(),
    }
}

/// The greedy score of one legal move.
pub fn score(view: &InfoView<'_>, prior: &CountingPrior, mv: Move) -> f64 {
    let Cell::Own(mover) = view.cell(mv.from) else { panic!("a legal move starts on an own piece") };
    let mut total = ADVANCE_BONUS * (view.forwardness(mv.to) as f64 - view.forwardness(mv.from) as f64);
    if let Cell::Opponent(defender) = view.cell(mv.to) {
        let dist = type_distribution(&defender, prior);
        total += PieceType::ALL
            .iter()
            .filter(|t| dist[t.index()] > 0.0)
            .map(|&t| dist[t.index()] as f64 * material_change(mover.kind, t))
            .sum::<f64>();
        if defender.known.is_none() {
            total += REVEAL_BONUS;
        }
    }
    total
}

/// `greedy[:setup=S]`.
pub fn greedy_spec(setup: SetupPolicy, naming: Naming) -> PlayerSpec {
    PlayerSpec::named("greedy").with_setup(setup, naming)
}

impl Player for GreedyPlayer {
    fn name(&self) -> String {
        greedy_spec(self.setup, Naming::Canonical).to_string()
    }

    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        self.setup.choose(set, rng)
    }

    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError> {
        let prior = view.prior();
        let scores: Vec<f64> = view.legal_moves.iter().map(|&mv| score(view, &prior, mv)).collect();
        let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<Move> =
            view.legal_moves.iter().zip(&scores).filter(|(_, &s)| s >= best - TIE).map(|(&mv, _)| mv).collect();
        Ok(ties[rng.random_range(0..ties.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use stratego_engine::State;
    use stratego_players::view::{public_history, InfoView};

    /// Red's view of the classic-rules position `board`, Red to move.
    fn with_view<T>(board: &str, decide: impl FnOnce(&InfoView<'_>) -> T) -> T {
        let state =
            State::deserialize(&format!("{} {board} red 10 3", stratego_engine::Ruleset::classic().canonical()))
                .unwrap();
        let history = public_history(&state);
        decide(&InfoView::new(&state, &history))
    }

    #[test]
    fn takes_a_revealed_weaker_piece_and_avoids_a_revealed_stronger_one() {
        // Red Captain on e4; a revealed Blue Lieutenant on e5 and a revealed
        // Blue Major on d4; the Flags far away.
        let board = "f........./........../........../........../..~~..~~../..~~l^+.~~../...j^+P...../........../........../F.........";
        with_view(board, |view| {
            let prior = view.prior();
            let take = "e4-e5".parse().unwrap();
            let suicide = "e4-d4".parse().unwrap();
            assert_eq!(score(view, &prior, take), value(PieceType::Lieutenant) + ADVANCE_BONUS);
            assert_eq!(score(view, &prior, suicide), -value(PieceType::Captain));
            let mut player = GreedyPlayer::default();
            for seed in 0..5 {
                assert_eq!(player.choose_move(view, &mut AgentRng::seed_from_u64(seed)).unwrap(), take);
            }
        })
    }

    #[test]
    fn a_hidden_defender_is_scored_by_the_counting_prior() {
        // Red Miner on a4 facing a hidden, unmoved Blue piece on a5. Blue has
        // only a Bomb and the Flag left, both unmoved: each is 1/2 likely.
        let board = "f........./........../........../........../..~~..~~../b.~~..~~../N........./........../........../.........F";
        with_view(board, |view| {
            let prior = view.prior();
            let attack = "a4-a5".parse().unwrap();
            let expected = 0.5 * value(PieceType::Bomb) + 0.5 * value(PieceType::Flag) + REVEAL_BONUS + ADVANCE_BONUS;
            assert!((score(view, &prior, attack) - expected).abs() < 1e-9);
            assert_eq!(score(view, &prior, "a4-b4".parse().unwrap()), 0.0);
            assert_eq!(score(view, &prior, "a4-a3".parse().unwrap()), -ADVANCE_BONUS);
        })
    }

    #[test]
    fn ties_are_broken_by_the_seeded_generator() {
        // A Red Lieutenant on e2 behind its own Bomb: e2-d2 and e2-f2 tie,
        // e2-e1 (a retreat) scores less.
        let board = "f........./........../........../........../..~~..~~../..~~..~~../........../....B...../....L...../F.........";
        with_view(board, |view| {
            let mut player = GreedyPlayer::default();
            let picks: std::collections::BTreeSet<String> = (0..40)
                .map(|seed| player.choose_move(view, &mut AgentRng::seed_from_u64(seed)).unwrap().to_string())
                .collect();
            assert_eq!(picks.into_iter().collect::<Vec<_>>(), vec!["e2-d2", "e2-f2"]);
            let again = player.choose_move(view, &mut AgentRng::seed_from_u64(7));
            assert_eq!(again, player.choose_move(view, &mut AgentRng::seed_from_u64(7)), "same seed, same pick");
        })
    }
}
