//! The move-network objective of one minibatch (the reference's recipe):
//!
//! ```text
//! loss = L_clip + tau_t * L_magnet + c_v * L_value + c_kl * L_behaviour + c_b * L_belief
//! ```
//!
//! - `L_clip`: PPO's clipped surrogate, ratio = pi(a) / pi_behaviour(a), with
//!   the filtered advantages as they are (no normalisation);
//! - `L_magnet = KL(pi || magnet)`, a reverse KL to the uniform policy over
//!   legal actions (the reference code's default magnet);
//! - `L_value`: cross-entropy of the value head against the TD(lambda)
//!   win/draw/loss targets;
//! - `L_behaviour = KL(pi || pi_behaviour)` over legal actions;
//! - `L_belief`: cross-entropy of the belief head on hidden opponent squares.
//!
//! The value and belief losses are the model crate's (`stratego_model::loss`),
//! computed with their accuracies in [`heads`], which the warm start by
//! imitation shares.

use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use stratego_engine::NUM_ACTIONS;
use stratego_model::{belief_fit, input_tensors, value_cross_entropy, StrategoNet};

use crate::config::LearnerConfig;
use crate::diagnostics::Term;
use crate::ppo::samples::{Batch, PpoBatch};

/// The loss terms of one minibatch, as scalar (`[1]`) tensors by [`Term`]:
/// means over the minibatch, and sums (`Term::is_sum`) for the diagnostics.
/// Both objectives are written into it, the RL one here and the warm
/// start's imitation (`distill.rs`), so one step (`step.rs`) and one
/// diagnostics table serve both.
pub struct Terms {
    /// The minibatch size the means are over.
    pub size: usize,
    values: Vec<(Term, Tensor<1>)>,
}

impl Terms {
    /// The terms of a minibatch of `size`, `Term::Total` among them.
    pub fn new(size: usize, values: Vec<(Term, Tensor<1>)>) -> Terms {
        assert!(values.iter().any(|(t, _)| *t == Term::Total), "an objective has a total");
        Terms { size, values }
    }

    /// The loss to differentiate.
    pub fn total(&self) -> Tensor<1> {
        self[Term::Total].clone()
    }

    /// The minibatch's terms stacked in `Term::ALL` order (means times the
    /// minibatch size, so that they add up across minibatches; terms this
    /// objective does not have are zero), with the gradient norm
    /// `grad_norm`; off the autodiff graph, on the device.
    pub fn sums(&self, grad_norm: Tensor<1>) -> Tensor<1> {
        let n = self.size as f32;
        let device = grad_norm.device();
        let stacked = Term::ALL.map(|term| {
            let value = if term == Term::GradNorm { Some(&grad_norm) } else { self.get(term) };
            match value {
                Some(t) if term.is_sum() => t.clone().inner(),
                Some(t) => t.clone().inner().mul_scalar(n),
                None => Tensor::zeros([1], &device).inner(),
            }
        });
        Tensor::cat(stacked.to_vec(), 0)
    }

    fn get(&self, term: Term) -> Option<&Tensor<1>> {
        self.values.iter().find(|(t, _)| *t == term).map(|(_, v)| v)
    }
}

impl std::ops::Index<Term> for Terms {
    type Output = Tensor<1>;

    /// A term the objective has; panics for one it does not.
    fn index(&self, term: Term) -> &Tensor<1> {
        self.get(term).unwrap_or_else(|| panic!("this objective has no {term:?} term"))
    }
}

/// The network's pass over a batch and the terms of its value and belief
/// heads, with their accuracies: what the RL objective and the warm start by
/// imitation (`distill.rs`) share, defined here once.
pub struct Heads {
    /// log pi over all actions; illegal ones get exactly zero probability,
    /// so their (finite) log-probabilities never enter a sum with weight.
    pub log_pi: Tensor<2>,
    /// The policy's raw logits, for its accuracy.
    pub policy_logits: Tensor<2>,
    /// L_value: cross-entropy against the batch's win/draw/loss targets.
    pub value: Tensor<1>,
    /// Samples whose value head's most likely result was the actual one.
    pub value_correct: Tensor<1>,
    /// L_belief: the mean over hidden squares of -log p(true type).
    pub belief: Tensor<1>,
    pub belief_correct: Tensor<1>,
    pub belief_log_likelihood: Tensor<1>,
}

impl Heads {
    /// The value and belief heads' terms, for an objective's [`Terms`].
    pub fn terms(&self) -> [(Term, Tensor<1>); 5] {
        [
            (Term::Value, self.value.clone()),
            (Term::Belief, self.belief.clone()),
            (Term::ValueCorrect, self.value_correct.clone()),
            (Term::BeliefCorrect, self.belief_correct.clone()),
            (Term::BeliefLogLikelihood, self.belief_log_likelihood.clone()),
        ]
    }
}

/// Runs `net` on `batch` and computes the [`Heads`].
pub fn heads(net: &StrategoNet, batch: &Batch, device: &Device) -> Heads {
    let b = batch.size;
    let (planes, legal) = input_tensors(&batch.planes, &batch.legal, device);
    let output = net.forward(planes, legal);
    let log_pi = log_softmax(output.policy_logits.clone(), 1);

    let targets = Tensor::<2>::from_data(TensorData::new(batch.value_targets.clone(), [b, 3]), device);
    let value = value_cross_entropy(&output, targets);
    let results: Vec<i64> = batch.results.iter().map(|&r| r as i64).collect();
    let results = Tensor::<1, Int>::from_data(TensorData::new(results, [b]), device);
    let value_correct = output.value_logits.clone().argmax(1).reshape([b]).equal(results).float().sum();

    let fit = belief_fit(&output, &batch.belief_targets);
    let hidden = fit.mask.clone().sum();
    let belief_log_likelihood = fit.log_likelihood.sum();
    let belief = belief_log_likelihood.clone().neg() / hidden.clamp_min(1.0);
    let [_, squares, _] = output.belief_logits.dims();
    let guess = output.belief_logits.argmax(2).reshape([b, squares]);
    let belief_correct = (guess.equal(fit.types).float() * fit.mask).sum();

    Heads {
        log_pi,
        policy_logits: output.policy_logits,
        value,
        value_correct,
        belief,
        belief_correct,
        belief_log_likelihood,
    }
}

/// Runs `net` on `batch` and builds the objective with magnet weight `tau`.
pub fn objective(net: &StrategoNet, batch: &PpoBatch, tau: f32, c: &LearnerConfig, device: &Device) -> Terms {
    let b = batch.size;
    let floats2 = |v: &[f32], width: usize| Tensor::<2>::from_data(TensorData::new(v.to_vec(), [b, width]), device);
    let heads = heads(net, batch, device);
    let log_pi = heads.log_pi.clone();
    let pi = log_pi.clone().exp();
    let actions = Tensor::<2, Int>::from_data(TensorData::new(batch.actions.clone(), [b, 1]), device);
    let log_pi_action = log_pi.clone().gather(1, actions).reshape([b]);

    // L_clip
    let behaviour_log_prob = Tensor::<1>::from_data(TensorData::new(batch.behaviour_log_prob.clone(), [b]), device);
    let advantage = Tensor::<1>::from_data(TensorData::new(batch.advantages.clone(), [b]), device);
    let ratio = (log_pi_action - behaviour_log_prob).exp();
    let unclipped = ratio.clone() * advantage.clone();
    let clipped = ratio.clone().clamp(1.0 - c.ppo_clip, 1.0 + c.ppo_clip) * advantage;
    let clip = unclipped.min_pair(clipped).mean().neg();
    let clip_fraction = (ratio - 1.0).abs().greater_elem(c.ppo_clip).float().mean();

    // L_magnet = KL(pi || uniform over legal actions)
    let magnet_log = floats2(&batch.magnet_log, NUM_ACTIONS);
    let magnet = (pi.clone() * (log_pi.clone() - magnet_log)).sum_dim(1).mean();

    // L_behaviour = KL(pi || pi_behaviour)
    let behaviour_log = floats2(&batch.behaviour_log, NUM_ACTIONS);
    let behaviour_kl = (pi.clone() * (log_pi.clone() - behaviour_log)).sum_dim(1).mean();

    let entropy = (pi * log_pi).sum_dim(1).mean().neg();

    // L_value (against the TD(lambda) targets) and L_belief: `heads`.
    let total = clip.clone()
        + magnet.clone().mul_scalar(tau)
        + heads.value.clone().mul_scalar(c.value_weight)
        + behaviour_kl.clone().mul_scalar(c.behaviour_kl)
        + heads.belief.clone().mul_scalar(c.belief_weight);
    let mut terms = vec![
        (Term::Total, total),
        (Term::Clip, clip),
        (Term::Magnet, magnet),
        (Term::BehaviourKl, behaviour_kl),
        (Term::Entropy, entropy),
        (Term::ClipFraction, clip_fraction),
    ];
    terms.extend(heads.terms());
    Terms::new(b, terms)
}

/// The warm start's objective (`distill.rs`), beside the RL one: runs
/// `net` on `batch` and builds the imitation loss
/// `policy + value_weight·value + belief_weight·belief`.
pub fn imitation_objective(
    net: &StrategoNet,
    batch: &Batch,
    value_weight: f32,
    belief_weight: f32,
    device: &Device,
) -> Terms {
    let b = batch.size;
    let heads = heads(net, batch, device);

    // The policy's cross-entropy against the teacher's one-hot move. The
    // network gives illegal actions a large negative logit, so the softmax
    // is over the legal ones.
    let actions = Tensor::<2, Int>::from_data(TensorData::new(batch.actions.clone(), [b, 1]), device);
    let policy = heads.log_pi.clone().gather(1, actions.clone()).mean().neg();
    let policy_correct = heads.policy_logits.clone().argmax(1).equal(actions).float().sum();

    let total =
        policy.clone() + heads.value.clone().mul_scalar(value_weight) + heads.belief.clone().mul_scalar(belief_weight);
    let mut terms = vec![(Term::Total, total), (Term::Policy, policy), (Term::PolicyCorrect, policy_correct)];
    terms.extend(heads.terms());
    Terms::new(b, terms)
}

#[cfg(test)]
mod tests {
    use stratego_engine::{Layout, Ruleset, Square, VecEnv};
    use stratego_model::{infer, Device, StrategoNet};

    use super::*;

    const GAMES: usize = 4;
    const ADVANTAGES: [f32; GAMES] = [0.5, -0.25, 1.0, -0.1];

    /// A tiny network, four fresh games as a minibatch whose behaviour
    /// policy is the network's own (ratio 1), and the network's inference.
    fn fixture() -> (StrategoNet, PpoBatch, stratego_model::Inference, Device) {
        let device = stratego_model::device("cpu").unwrap();
        let net = StrategoNet::tiny(Layout::Compact, &device);
        let env = VecEnv::new(Ruleset::classic(), GAMES, 21).unwrap();
        let mut batch = PpoBatch { batch: Batch { size: GAMES, ..Batch::default() }, ..PpoBatch::default() };
        batch.planes = vec![0.0; GAMES * Layout::Compact.size()];
        batch.legal = vec![false; GAMES * NUM_ACTIONS];
        batch.belief_targets = vec![0; GAMES * Square::COUNT];
        env.observe(Layout::Compact, &mut batch.planes).unwrap();
        env.legal_mask(&mut batch.legal).unwrap();
        env.belief_targets(&mut batch.belief_targets).unwrap();
        let inference = infer(&net, Layout::Compact, &batch.planes, &batch.legal, &device).unwrap();
        for g in 0..GAMES {
            let probs = inference.policy_of(g);
            let legal = batch.legal[g * NUM_ACTIONS..(g + 1) * NUM_ACTIONS].to_vec();
            let n = legal.iter().filter(|&&l| l).count() as f32;
            let action = (0..NUM_ACTIONS).filter(|&a| legal[a]).nth(g).unwrap();
            batch.actions.push(action as i64);
            batch.behaviour_log_prob.push(probs[action].ln());
            for a in 0..NUM_ACTIONS {
                batch.behaviour_log.push(if legal[a] { probs[a].ln() } else { 0.0 });
                batch.magnet_log.push(if legal[a] { -n.ln() } else { 0.0 });
            }
            let result = [2u8, 0, 1, 2][g];
            batch.results.push(result);
            let mut target = [0.0; 3];
            target[result as usize] = 1.0;
            batch.value_targets.extend_from_slice(&target);
        }
        batch.advantages = ADVANTAGES.to_vec();
        (net, batch, inference, device)
    }

    fn scalar(t: &Tensor<1>) -> f32 {
        t.clone().into_scalar::<f32>()
    }

    fn mean(v: impl IntoIterator<Item = f32>) -> f32 {
        let v: Vec<f32> = v.into_iter().collect();
        v.iter().sum::<f32>() / v.len() as f32
    }

    #[test]
    fn at_ratio_one_the_surrogate_is_the_mean_advantage_and_the_kl_is_zero() {
        let (net, batch, _, device) = fixture();
        let o = objective(&net, &batch, 0.05, &LearnerConfig::default(), &device);
        let expected = -mean(ADVANTAGES);
        assert!((scalar(&o[Term::Clip]) - expected).abs() < 1e-5, "{} vs {expected}", scalar(&o[Term::Clip]));
        assert_eq!(scalar(&o[Term::ClipFraction]), 0.0);
        assert!(scalar(&o[Term::BehaviourKl]).abs() < 1e-5, "{}", scalar(&o[Term::BehaviourKl]));
    }

    #[test]
    fn clipping_engages_past_epsilon() {
        let (net, mut batch, _, device) = fixture();
        let c = LearnerConfig::default();
        let clip_of = |batch: &PpoBatch| scalar(&objective(&net, batch, 0.05, &c, &device)[Term::Clip]);
        let fraction_of = |batch: &PpoBatch| scalar(&objective(&net, batch, 0.05, &c, &device)[Term::ClipFraction]);
        let at_ratio_one = batch.behaviour_log_prob.clone();
        // Ratio 1.5: gains are capped at 1 + eps, losses are not.
        batch.behaviour_log_prob = at_ratio_one.iter().map(|l| l - 1.5f32.ln()).collect();
        let expected = -mean(ADVANTAGES.map(|a| if a > 0.0 { (1.0 + c.ppo_clip) * a } else { 1.5 * a }));
        assert!((clip_of(&batch) - expected).abs() < 1e-4, "{} vs {expected}", clip_of(&batch));
        assert_eq!(fraction_of(&batch), 1.0);
        // Ratio 0.5: losses are floored at 1 - eps, gains are not.
        batch.behaviour_log_prob = at_ratio_one.iter().map(|l| l + 2f32.ln()).collect();
        let expected = -mean(ADVANTAGES.map(|a| if a > 0.0 { 0.5 * a } else { (1.0 - c.ppo_clip) * a }));
        assert!((clip_of(&batch) - expected).abs() < 1e-4, "{} vs {expected}", clip_of(&batch));
        assert_eq!(fraction_of(&batch), 1.0);
        // Inside 1 +- eps nothing is clipped: ratio 1.1.
        batch.behaviour_log_prob = at_ratio_one.iter().map(|l| l - 1.1f32.ln()).collect();
        assert!((clip_of(&batch) + 1.1 * mean(ADVANTAGES)).abs() < 1e-4);
        assert_eq!(fraction_of(&batch), 0.0);
    }

    #[test]
    fn the_total_weighs_the_terms_and_the_magnet_kl_is_log_n_minus_entropy() {
        let (net, batch, _, device) = fixture();
        let c = LearnerConfig { value_weight: 0.7, behaviour_kl: 0.3, belief_weight: 2.0, ..LearnerConfig::default() };
        let tau = 0.05;
        let o = objective(&net, &batch, tau, &c, &device);
        let expected = scalar(&o[Term::Clip])
            + tau * scalar(&o[Term::Magnet])
            + 0.7 * scalar(&o[Term::Value])
            + 0.3 * scalar(&o[Term::BehaviourKl])
            + 2.0 * scalar(&o[Term::Belief]);
        assert!((scalar(&o[Term::Total]) - expected).abs() < 1e-5);
        // KL(pi || uniform over n legal actions) = ln n - H(pi).
        let log_n = mean(batch.legal.chunks(NUM_ACTIONS).map(|row| (row.iter().filter(|&&l| l).count() as f32).ln()));
        assert!((scalar(&o[Term::Magnet]) - (log_n - scalar(&o[Term::Entropy]))).abs() < 1e-4);
        assert!(scalar(&o[Term::Entropy]) > 0.0 && scalar(&o[Term::Magnet]) >= -1e-6);
    }

    /// The device sums agree with the same figures computed on the host
    /// from the network's probabilities (as the learner once did).
    #[test]
    fn the_stacked_sums_are_the_terms_and_the_accuracies() {
        let (net, batch, inference, device) = fixture();
        let o = objective(&net, &batch, 0.05, &LearnerConfig::default(), &device);
        let norm = Tensor::<1>::from_floats([3.0], &device);
        let sums = o.sums(norm).into_data().try_to_vec::<f32>().unwrap();
        assert_eq!(sums.len(), Term::COUNT);
        let n = GAMES as f32;
        assert!((sums[Term::Clip.index()] - n * scalar(&o[Term::Clip])).abs() < 1e-5);
        assert!((sums[Term::Belief.index()] - n * scalar(&o[Term::Belief])).abs() < 1e-4);
        assert_eq!(sums[Term::GradNorm.index()], 3.0 * n);

        let mut value_correct = 0.0;
        for g in 0..GAMES {
            let v = &inference.outcome[g * 3..g * 3 + 3];
            let guess = (0..3).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
            value_correct += f32::from(guess == batch.results[g] as usize);
        }
        assert_eq!(sums[Term::ValueCorrect.index()], value_correct);
        let (mut correct, mut log_likelihood, mut hidden) = (0.0f32, 0.0f32, 0.0f32);
        for g in 0..GAMES {
            for cell in 0..Square::COUNT {
                let target = batch.belief_targets[g * Square::COUNT + cell];
                if target < 0 {
                    continue;
                }
                let p = &inference.belief[(g * Square::COUNT + cell) * 12..][..12];
                let guess = (0..12).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap();
                correct += f32::from(guess == target as usize);
                log_likelihood += p[target as usize].ln();
                hidden += 1.0;
            }
        }
        assert!(hidden > 0.0);
        assert_eq!(sums[Term::BeliefCorrect.index()], correct);
        let ll = sums[Term::BeliefLogLikelihood.index()];
        assert!((ll - log_likelihood).abs() < 1e-3 * hidden, "{ll} vs {log_likelihood}");
        assert!((scalar(&o[Term::Belief]) + log_likelihood / hidden).abs() < 1e-3);
    }
}
