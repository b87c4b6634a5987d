//! Targets per player ("solipsistic"): each player's own decisions form its
//! trajectory, and the game's result closes it, whoever's move ended the
//! game (the reference's rule: the result is copied back to the player's
//! last decision).
//!
//! With V_i the predicted (loss, draw, win) at decision i and z the one-hot
//! result, the next-state estimate is `next_i = V_{i+1}` (and `z` after the
//! last decision). Undiscounted:
//! - value targets are TD(lambda) returns on the 3-vectors:
//!   `delta_i = next_i - V_i`, `R_i = V_i + sum_k lambda^k delta_{i+k}`;
//! - advantages are GAE(lambda) on the scalar
//!   `v = P(win) - P(loss) + draw_score * P(draw)`, the player's expected
//!   score with a draw worth `draw_score` (0 in the reference). A negative
//!   `draw_score` ("contempt", as chess engines call it) makes a draw worse
//!   than nothing for both players in the policy's update only: the value
//!   head still learns the true (loss, draw, win) chances. It is meant
//!   against a policy that learns to shuffle to the battleless cap when
//!   ahead (docs/JOURNAL.md, "Four hours": alone, it did not revive a
//!   collapsed one, and at -0.25 it did not keep a 3-hour run from settling
//!   into the shuffle).
//!
//! **The leaf's share** (`learner.leaf_target`, 0 by default): a value target
//! may be pulled towards the hand-written leaf that `netrollout` scores its
//! rollouts with, `(1 - w) R + w leaf`, the leaf read as an expected result
//! (loss `(1 - x) / 2`, win `(1 + x) / 2` for the leaf `x` in [-1, 1]).
//! Why: the results alone teach a small network the setups it trained on,
//! not material (EVALUATION.md, "What the heads know": below the leaf
//! wherever the setups are not the recipe's); the leaf is material under the
//! counting prior, the same on any setup, and dense where a result is one
//! bit at the end of a long game. This is distillation from the leaf, as
//! issue 50 proposes.

use stratego_engine::{Color, Outcome};
use stratego_model::{DRAW, LOSS, WIN};

/// One player's targets at each of its decisions.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerTargets {
    pub value: Vec<[f32; 3]>,
    pub advantage: Vec<f32>,
}

/// The index (`LOSS`, `DRAW` or `WIN`, the value head's order) of the
/// result for `player`.
pub fn result_index(outcome: &Outcome, player: Color) -> usize {
    match outcome.winner {
        None => DRAW,
        Some(w) if w == player => WIN,
        Some(_) => LOSS,
    }
}

/// The one-hot (loss, draw, win) result for `player`.
pub fn result_for(outcome: &Outcome, player: Color) -> [f32; 3] {
    let mut z = [0.0; 3];
    z[result_index(outcome, player)] = 1.0;
    z
}

/// The leaf `x` (a share of a won game, in [-1, 1]) as a (loss, draw, win)
/// vector with the expected score `x` and no draw.
pub fn leaf_scores(x: f64) -> [f32; 3] {
    let x = x.clamp(-1.0, 1.0) as f32;
    let mut v = [0.0; 3];
    v[LOSS] = (1.0 - x) / 2.0;
    v[WIN] = (1.0 + x) / 2.0;
    v
}

/// The value target `target` with the leaf `x` given the weight `weight`
/// (`learner.leaf_target`; 0 leaves it as it is).
pub fn with_leaf(target: [f32; 3], x: f64, weight: f32) -> [f32; 3] {
    let leaf = leaf_scores(x);
    std::array::from_fn(|k| (1.0 - weight) * target[k] + weight * leaf[k])
}

/// The expected score of a (loss, draw, win) vector with a draw worth
/// `draw_score` (a win 1, a loss -1).
fn scalar(v: &[f32; 3], draw_score: f32) -> f32 {
    v[WIN] - v[LOSS] + draw_score * v[DRAW]
}

/// TD(lambda) value targets and GAE(lambda) advantages of one player's
/// trajectory of predicted values, closed by the result `z`; the advantages
/// score a draw `draw_score`.
pub fn player_targets(
    values: &[[f32; 3]],
    z: [f32; 3],
    td_lambda: f32,
    gae_lambda: f32,
    draw_score: f32,
) -> PlayerTargets {
    let n = values.len();
    let mut value = vec![[0.0; 3]; n];
    let mut advantage = vec![0.0; n];
    let (mut trace, mut gae) = ([0.0f32; 3], 0.0f32);
    for i in (0..n).rev() {
        let next = if i + 1 < n { values[i + 1] } else { z };
        for k in 0..3 {
            trace[k] = (next[k] - values[i][k]) + td_lambda * trace[k];
            value[i][k] = values[i][k] + trace[k];
        }
        gae = (scalar(&next, draw_score) - scalar(&values[i], draw_score)) + gae_lambda * gae;
        advantage[i] = gae;
    }
    PlayerTargets { value, advantage }
}

/// The threshold of advantage filtering: the `quantile` of |A|, and at
/// least `minimum` (keeps about the top quarter at the reference 0.75).
pub fn keep_threshold(advantages: &[f32], quantile: f32, minimum: f32) -> f32 {
    if advantages.is_empty() {
        return minimum;
    }
    let mut magnitudes: Vec<f32> = advantages.iter().map(|a| a.abs()).collect();
    magnitudes.sort_by(f32::total_cmp);
    let index = ((magnitudes.len() - 1) as f32 * quantile).round() as usize;
    magnitudes[index].max(minimum)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WON: [f32; 3] = [0.0, 0.0, 1.0];

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn the_leafs_share_moves_a_target_towards_its_expected_result() {
        let won = [0.0, 0.0, 1.0];
        assert_eq!(with_leaf(won, 0.6, 0.0), won, "weight 0 leaves the target");
        assert_eq!(with_leaf(won, 0.6, 1.0), leaf_scores(0.6));
        let half = with_leaf(won, -1.0, 0.5);
        assert_eq!(half, [0.5, 0.0, 0.5], "a leaf that says lost, half weight, against a win");
        for x in [-1.0, -0.3, 0.0, 0.8, 1.0, 7.0] {
            let v = with_leaf([0.2, 0.5, 0.3], x, 0.3);
            assert!((v.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{v:?}");
            assert!(v.iter().all(|p| (0.0..=1.0).contains(p)), "{v:?}");
        }
        let l = leaf_scores(0.5);
        assert!((l[WIN] - l[LOSS] - 0.5).abs() < 1e-6 && l[DRAW] == 0.0, "the expected score is the leaf");
    }

    #[test]
    fn lambda_one_gives_the_result_and_lambda_zero_the_next_value() {
        let values = [[0.2, 0.5, 0.3], [0.1, 0.6, 0.3], [0.3, 0.3, 0.4]];
        let mc = player_targets(&values, WON, 1.0, 1.0, 0.0);
        for v in &mc.value {
            assert!(v.iter().zip(WON).all(|(a, b)| close(*a, b)), "{v:?}");
        }
        // GAE(1) = z - V_i on the scalar.
        assert!(close(mc.advantage[0], 1.0 - 0.1));
        let td0 = player_targets(&values, WON, 0.0, 0.0, 0.0);
        assert_eq!(td0.value[0], values[1]);
        assert_eq!(td0.value[2], WON);
        assert!(close(td0.advantage[1], (0.4 - 0.3) - (0.3 - 0.1)));
    }

    #[test]
    fn hand_computed_lambda_returns() {
        // Two decisions, V0 = (0.5, 0, 0.5) (scalar 0), V1 = (0, 0, 1) (scalar 1), result: loss.
        let values = [[0.5, 0.0, 0.5], [0.0, 0.0, 1.0]];
        let t = player_targets(&values, [1.0, 0.0, 0.0], 0.8, 0.5, 0.0);
        // delta1 = z - V1 = (1, 0, -1): R1 = z.
        assert_eq!(t.value[1], [1.0, 0.0, 0.0]);
        // delta0 = V1 - V0 = (-0.5, 0, 0.5); R0 = V0 + delta0 + 0.8 delta1 = (0.8, 0, 0.2).
        assert!(t.value[0].iter().zip([0.8, 0.0, 0.2]).all(|(a, b)| close(*a, b)), "{:?}", t.value[0]);
        // Scalar: delta1 = -1 - 1 = -2, delta0 = 1 - 0 = 1; A0 = 1 + 0.5 * -2 = 0.
        assert!(close(t.advantage[1], -2.0));
        assert!(close(t.advantage[0], 0.0));
    }

    #[test]
    fn a_draw_score_moves_the_advantages_but_not_the_value_targets() {
        // Two decisions, V0 = (0.2, 0.6, 0.2), V1 = (0.1, 0.8, 0.1); the game is drawn.
        let values = [[0.2, 0.6, 0.2], [0.1, 0.8, 0.1]];
        let drawn = [0.0, 1.0, 0.0];
        let neutral = player_targets(&values, drawn, 0.8, 0.5, 0.0);
        let contempt = player_targets(&values, drawn, 0.8, 0.5, -0.5);
        assert_eq!(neutral.value, contempt.value, "the value head learns the true chances");
        // Scalars at -0.5: V0 = -0.3, V1 = -0.4, z = -0.5: delta1 = -0.1, delta0 = -0.1,
        // A1 = -0.1, A0 = -0.1 + 0.5 * -0.1 = -0.15; at 0 every scalar is 0.
        assert!(close(contempt.advantage[1], -0.1) && close(contempt.advantage[0], -0.15), "{:?}", contempt.advantage);
        assert!(neutral.advantage.iter().all(|a| close(*a, 0.0)), "{:?}", neutral.advantage);
        // A win from the same values is worth more under contempt (the draws it escaped cost).
        let won = player_targets(&values, WON, 0.8, 0.5, -0.5);
        assert!(close(won.advantage[1], 1.0 + 0.4));
        // A draw score of -1 makes a draw a loss for the advantages.
        let as_loss = player_targets(&values, [1.0, 0.0, 0.0], 0.8, 0.5, -1.0);
        let drawn_as_loss = player_targets(&values, drawn, 0.8, 0.5, -1.0);
        assert_eq!(as_loss.advantage, drawn_as_loss.advantage);
    }

    #[test]
    fn the_filter_keeps_the_top_quarter_and_at_least_the_minimum() {
        let advantages: Vec<f32> = (0..100).map(|i| if i % 2 == 0 { i as f32 } else { -(i as f32) }).collect();
        let threshold = keep_threshold(&advantages, 0.75, 0.01);
        let kept = advantages.iter().filter(|a| a.abs() >= threshold).count();
        assert!((24..=26).contains(&kept), "{kept}");
        assert_eq!(keep_threshold(&[0.001, -0.002, 0.0], 0.75, 0.01), 0.01);
    }

    #[test]
    fn results_are_per_player() {
        let outcome = Outcome { winner: Some(Color::Blue), reason: stratego_engine::EndReason::FlagCaptured };
        assert_eq!(result_for(&outcome, Color::Blue), WON);
        assert_eq!(result_for(&outcome, Color::Red), [1.0, 0.0, 0.0]);
        assert_eq!((result_index(&outcome, Color::Blue), result_index(&outcome, Color::Red)), (WIN, LOSS));
        let drawn = Outcome { winner: None, reason: stratego_engine::EndReason::PlyCap };
        assert_eq!(result_for(&drawn, Color::Red), [0.0, 1.0, 0.0]);
        assert_eq!(result_index(&drawn, Color::Blue), DRAW);
    }
}
