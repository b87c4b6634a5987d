//! What every iteration logs: one table, [`DIAGNOSTICS`], that is the only
//! list of the quantities. It names the keys of metrics.jsonl and the
//! TensorBoard tags (the same strings), says what each measures, and says how
//! its value is computed from the iteration's [`Iteration`] record. The tag
//! table of docs/TRAINING.md is generated from it (a test fails when the two
//! drift apart), and the end-to-end test checks its tags in a real run.
//!
//! The per-minibatch quantities ([`Term`]) are summed on the device across
//! the iteration's minibatches, stacked in one tensor, and read back to the
//! host once per iteration: a GPU never waits for the host in between.
//!
//! The warm start by imitation (`distill.rs`) has its own table,
//! [`PRETRAIN_DIAGNOSTICS`], one row per quantity of a pretraining epoch
//! ([`PretrainEpoch`], its device sums [`Term`]), tags under
//! `pretrain/`; docs/TRAINING.md holds it generated too.

use stratego_engine::EndReason;

/// A quantity summed on the device over minibatches, in the order of the
/// stacked tensor ([`Term::ALL`]): the one table of both objectives, the
/// RL one (`objective.rs`) and the warm start's imitation (`distill.rs`),
/// each of which fills the terms it has (the others stay zero). The loss
/// terms, the entropy, the clip fraction and the gradient norm are
/// minibatch means weighted by the minibatch's size; the correct-guess
/// counts and the log-likelihood are plain sums over samples (policy,
/// value) or hidden squares (belief).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    Total,
    Clip,
    Magnet,
    Value,
    BehaviourKl,
    Belief,
    Entropy,
    ClipFraction,
    GradNorm,
    ValueCorrect,
    BeliefCorrect,
    BeliefLogLikelihood,
    /// The imitation's policy cross-entropy against the teacher's move.
    Policy,
    /// Decisions whose most likely move is the teacher's.
    PolicyCorrect,
}

impl Term {
    pub const ALL: [Term; 14] = [
        Term::Total,
        Term::Clip,
        Term::Magnet,
        Term::Value,
        Term::BehaviourKl,
        Term::Belief,
        Term::Entropy,
        Term::ClipFraction,
        Term::GradNorm,
        Term::ValueCorrect,
        Term::BeliefCorrect,
        Term::BeliefLogLikelihood,
        Term::Policy,
        Term::PolicyCorrect,
    ];
    pub const COUNT: usize = Term::ALL.len();

    /// The term's position in the stacked tensor.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether the term is a plain sum over samples or squares (a count or
    /// a log-likelihood) rather than a minibatch mean.
    pub fn is_sum(self) -> bool {
        matches!(self, Term::ValueCorrect | Term::BeliefCorrect | Term::BeliefLogLikelihood | Term::PolicyCorrect)
    }
}

/// How many decisions an iteration saw and kept (`ppo::samples::select`
/// fills it; it is logged here, so it is declared here: the algorithm's
/// folder reports to the diagnostics, never the other way).
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection {
    pub decisions: usize,
    pub stale: usize,
    pub kept: usize,
    pub threshold: f32,
}

/// Everything one iteration measured, from which each diagnostic is formed.
#[derive(Clone, Debug, Default)]
pub struct Iteration {
    /// The device sums of [`Term::ALL`], read back once.
    pub sums: [f64; Term::COUNT],
    /// Samples trained on (each epoch counts its samples again).
    pub samples: f64,
    /// Hidden opponent squares in those samples...
    pub hidden_squares: f64,
    /// ... and the counting prior on them (computed while encoding, on the host).
    pub prior_log_likelihood: f64,
    pub prior_correct: f64,
    pub selection: Selection,
    pub games: usize,
    pub plies: u64,
    /// Games ended, by reason, in the order of `EndReason::ALL`.
    pub ended: [u64; EndReason::ALL.len()],
    /// Wall time of the iteration before its checkpoint and evaluation...
    pub seconds: f64,
    /// ... of which waiting for games.
    pub waited: f64,
    /// Seconds this process's inference service spent in the network over
    /// the iteration (beside the actors and the learner, not a part of
    /// either); NaN where the service runs elsewhere (a cluster's actors).
    pub inference: f64,
    pub learning_rate: f64,
    pub magnet_weight: f64,
    /// The run's wall time so far (its pretraining and earlier evaluations
    /// included), and its self-play plies so far, at the end of
    /// the iteration: the x axes a run's scores are drawn against beside
    /// the iteration.
    pub run_seconds: f64,
    pub run_plies: u64,
}

/// `sum / count`, or NaN for nothing counted (a metric of no samples is
/// missing, not zero).
fn mean(sum: f64, count: f64) -> f64 {
    if count > 0.0 {
        sum / count
    } else {
        f64::NAN
    }
}

impl Iteration {
    /// A per-sample term's mean over the samples trained on.
    pub fn per_sample(&self, term: Term) -> f64 {
        mean(self.sums[term.index()], self.samples)
    }

    /// A sum over hidden opponent squares, per square.
    pub fn per_hidden_square(&self, sum: f64) -> f64 {
        mean(sum, self.hidden_squares)
    }

    fn share_of_decisions(&self, count: usize) -> f64 {
        count as f64 / self.selection.decisions.max(1) as f64
    }

    fn per_second(&self, count: f64) -> f64 {
        count / self.seconds.max(1e-9)
    }

    /// The share of the iteration's games that ended for `reason`.
    pub fn share_ended(&self, reason: EndReason) -> f64 {
        let i = EndReason::ALL.iter().position(|&r| r == reason).expect("every reason is in EndReason::ALL");
        self.ended[i] as f64 / self.games.max(1) as f64
    }

    /// Counts a finished game's end.
    pub fn count_end(&mut self, reason: EndReason) {
        let i = EndReason::ALL.iter().position(|&r| r == reason).expect("every reason is in EndReason::ALL");
        self.ended[i] += 1;
    }
}

/// How a diagnostic's iteration value is formed (the docs' last column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    PerSample,
    PerHeldOutSample,
    PerHeldOutHiddenSquare,
    Count,
    PerHiddenSquare,
    ShareOfDecisions,
    ShareOfGames,
    PerSecond,
    Seconds,
    PliesPerGame,
    Value,
    Total,
}

impl Unit {
    pub fn describe(self) -> &'static str {
        match self {
            Unit::PerSample => "mean over the samples trained on",
            Unit::PerHeldOutSample => "mean over the held-out decisions",
            Unit::PerHeldOutHiddenSquare => "mean over their hidden opponent squares",
            Unit::Count => "count",
            Unit::PerHiddenSquare => "mean over their hidden opponent squares",
            Unit::ShareOfDecisions => "share of the decisions received",
            Unit::ShareOfGames => "share of the games received",
            Unit::PerSecond => "per second of the iteration",
            Unit::Seconds => "seconds",
            Unit::PliesPerGame => "plies per game",
            Unit::Value => "its value this iteration",
            Unit::Total => "total at the end of the iteration",
        }
    }
}

/// One logged quantity of a record `R` (an RL [`Iteration`], or a
/// [`PretrainEpoch`]).
pub struct Diagnostic<R: 'static = Iteration> {
    /// The metrics.jsonl key and TensorBoard tag.
    pub tag: &'static str,
    /// What it measures.
    pub what: &'static str,
    pub unit: Unit,
    /// Its value for a record.
    pub value: fn(&R) -> f64,
}

/// Every quantity each iteration logs, in logging order.
pub const DIAGNOSTICS: &[Diagnostic] = &[
    Diagnostic {
        tag: "loss/total",
        what: "the loss L that the gradient steps descend",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::Total),
    },
    Diagnostic {
        tag: "loss/clip",
        what: "`L_clip`, PPO's clipped surrogate",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::Clip),
    },
    Diagnostic {
        tag: "loss/magnet",
        what: "KL(π‖magnet), before its weight τ_t",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::Magnet),
    },
    Diagnostic {
        tag: "loss/value",
        what: "the value head's cross-entropy against the TD(λ) targets",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::Value),
    },
    Diagnostic {
        tag: "loss/behaviour_kl",
        what: "KL(π‖π_behaviour), before its weight: how far the policy has moved from the one that played",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::BehaviourKl),
    },
    Diagnostic {
        tag: "loss/belief",
        what: "the belief head's cross-entropy on hidden opponent squares",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::Belief),
    },
    Diagnostic {
        tag: "policy/entropy",
        what: "the policy's entropy (nats)",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::Entropy),
    },
    Diagnostic {
        tag: "policy/clip_fraction",
        what: "the share of ratios π/π_behaviour outside 1 ± ε",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::ClipFraction),
    },
    Diagnostic {
        tag: "policy/grad_norm",
        what: "the global gradient norm before clipping",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::GradNorm),
    },
    Diagnostic {
        tag: "samples/kept_fraction",
        what: "decisions kept by both filters",
        unit: Unit::ShareOfDecisions,
        value: |it| it.share_of_decisions(it.selection.kept),
    },
    Diagnostic {
        tag: "samples/stale_fraction",
        what: "decisions dropped as more than `max_staleness` versions old",
        unit: Unit::ShareOfDecisions,
        value: |it| it.share_of_decisions(it.selection.stale),
    },
    Diagnostic {
        tag: "samples/advantage_threshold",
        what: "the \\|A\\| a decision needed to be kept",
        unit: Unit::Value,
        value: |it| it.selection.threshold as f64,
    },
    Diagnostic {
        tag: "value/accuracy",
        what: "the value head's most likely result is the game's actual result",
        unit: Unit::PerSample,
        value: |it| it.per_sample(Term::ValueCorrect),
    },
    Diagnostic {
        tag: "belief/accuracy",
        what: "the belief head's most likely type is the true one",
        unit: Unit::PerHiddenSquare,
        value: |it| it.per_hidden_square(it.sums[Term::BeliefCorrect.index()]),
    },
    Diagnostic {
        tag: "belief/log_likelihood",
        what: "the belief head's log-probability of the true type",
        unit: Unit::PerHiddenSquare,
        value: |it| it.per_hidden_square(it.sums[Term::BeliefLogLikelihood.index()]),
    },
    Diagnostic {
        tag: "belief/prior_accuracy",
        what: "the counting prior's most likely type is the true one",
        unit: Unit::PerHiddenSquare,
        value: |it| it.per_hidden_square(it.prior_correct),
    },
    Diagnostic {
        tag: "belief/prior_log_likelihood",
        what: "the counting prior's log-probability of the true type",
        unit: Unit::PerHiddenSquare,
        value: |it| it.per_hidden_square(it.prior_log_likelihood),
    },
    Diagnostic {
        tag: "speed/plies_per_second",
        what: "self-play plies received",
        unit: Unit::PerSecond,
        value: |it| it.per_second(it.plies as f64),
    },
    Diagnostic {
        tag: "speed/games_per_second",
        what: "games received",
        unit: Unit::PerSecond,
        value: |it| it.per_second(it.games as f64),
    },
    Diagnostic {
        tag: "speed/samples_per_second",
        what: "samples trained on",
        unit: Unit::PerSecond,
        value: |it| it.per_second(it.samples),
    },
    Diagnostic {
        tag: "speed/wait_seconds",
        what: "time the learner waited for games (most of the iteration when self-play is the bottleneck)",
        unit: Unit::Seconds,
        value: |it| it.waited,
    },
    Diagnostic {
        tag: "speed/learn_seconds",
        what: "time it spent on targets, encoding and gradient steps (most of it when the learner is)",
        unit: Unit::Seconds,
        value: |it| it.seconds - it.waited,
    },
    Diagnostic {
        tag: "speed/inference_seconds",
        what: "time the self-play inference service spent in the network over the iteration, while the actors played and the learner learned (missing on a cluster, whose actors infer in their own processes)",
        unit: Unit::Seconds,
        value: |it| it.inference,
    },
    Diagnostic {
        tag: "games/average_length",
        what: "the length of the games received",
        unit: Unit::PliesPerGame,
        value: |it| it.plies as f64 / it.games.max(1) as f64,
    },
    Diagnostic {
        tag: "games/end_flag",
        what: "games ended by a captured Flag",
        unit: Unit::ShareOfGames,
        value: |it| it.share_ended(EndReason::FlagCaptured),
    },
    Diagnostic {
        tag: "games/end_no_move",
        what: "games ended because the side to move had no legal move",
        unit: Unit::ShareOfGames,
        value: |it| it.share_ended(EndReason::NoLegalMove),
    },
    Diagnostic {
        tag: "games/end_neither_moves",
        what: "games drawn because neither side could move",
        unit: Unit::ShareOfGames,
        value: |it| it.share_ended(EndReason::NeitherCanMove),
    },
    Diagnostic {
        tag: "games/end_ply_cap",
        what: "games drawn at the ply cap",
        unit: Unit::ShareOfGames,
        value: |it| it.share_ended(EndReason::PlyCap),
    },
    Diagnostic {
        tag: "games/end_battleless_cap",
        what: "games drawn at the battleless-ply cap",
        unit: Unit::ShareOfGames,
        value: |it| it.share_ended(EndReason::BattlelessCap),
    },
    Diagnostic {
        tag: "games/end_forfeit",
        what: "games a player forfeited (an outside program that broke the protocol)",
        unit: Unit::ShareOfGames,
        value: |it| it.share_ended(EndReason::Forfeit),
    },
    Diagnostic {
        tag: RUN_SECONDS,
        what: "the run's wall time so far, its pretraining and earlier evaluations included",
        unit: Unit::Total,
        value: |it| it.run_seconds,
    },
    Diagnostic {
        tag: RUN_PLIES,
        what: "the run's self-play plies so far",
        unit: Unit::Total,
        value: |it| it.run_plies as f64,
    },
    Diagnostic {
        tag: "schedule/learning_rate",
        what: "the learning rate of the schedule `lr`",
        unit: Unit::Value,
        value: |it| it.learning_rate,
    },
    Diagnostic {
        tag: "schedule/magnet_weight",
        what: "τ_t, the magnet weight: the schedule `magnet`'s, or under `entropy_target` the one that follows the entropy",
        unit: Unit::Value,
        value: |it| it.magnet_weight,
    },
];

/// The run's totals at each iteration (rows of [`DIAGNOSTICS`]).
pub const RUN_SECONDS: &str = "run/seconds";
pub const RUN_PLIES: &str = "run/plies";

/// The evaluation's tags, `eval/score_vs_<opponent>`, logged only on the
/// iterations that evaluate.
pub const EVAL_SCORE_PREFIX: &str = "eval/score_vs_";
/// Beside each score, the ends of its 95 % interval:
/// `eval/score_vs_<opponent>_low` and `_high`.
pub const EVAL_LOW_SUFFIX: &str = "_low";
pub const EVAL_HIGH_SUFFIX: &str = "_high";
/// Beside each score, the share of its games drawn at the battleless cap:
/// `eval/cap_draws_vs_<opponent>`.
pub const EVAL_CAP_DRAWS_PREFIX: &str = "eval/cap_draws_vs_";
/// The network's score (wins + draws / 2, per game) in the games of the
/// iteration against each of `selfplay.opponents`:
/// `selfplay/score_vs_<opponent>`, logged when the iteration had such games.
pub const SELFPLAY_SCORE_PREFIX: &str = "selfplay/score_vs_";
/// The wall time of an evaluation, apart from the iteration's learning time
/// (`time/...`), on the iterations that evaluate.
pub const EVAL_SECONDS: &str = "eval/seconds";
/// An image, not a scalar: the last position of the evaluation's worst
/// game (TensorBoard's Images tab), whose record and page are kept in the
/// run's `eval-games/<iteration>/`.
pub const EVAL_BOARD: &str = "eval/board";

/// The probe of the heads on the evaluation's games (`probe.rs`, issue 50),
/// logged on the iterations that evaluate: each tag once, with what it means.
pub mod probe_tags {
    pub const VALUE_LOG_LOSS: &str = "probe/value_log_loss";
    pub const LEAF_LOG_LOSS: &str = "probe/leaf_log_loss";
    pub const VALUE_BRIER: &str = "probe/value_brier";
    pub const LEAF_BRIER: &str = "probe/leaf_brier";
    pub const BELIEF_LOG_LIKELIHOOD: &str = "probe/belief_log_likelihood";
    pub const COUNTING_LOG_LIKELIHOOD: &str = "probe/counting_log_likelihood";
    pub const POOLED_LOG_LIKELIHOOD: &str = "probe/pooled_log_likelihood";

    /// Every probe tag with its description and what it averages over, in
    /// the order of the docs.
    pub const TABLE: [(&str, &str, &str); 7] = [
        (
            VALUE_LOG_LOSS,
            "the value head's expected score (P(win) + P(draw) / 2) against each evaluation game's result for the \
             side to move, as a cross-entropy, over positions of those games (lower is better)",
            POSITIONS,
        ),
        (
            LEAF_LOG_LOSS,
            "the same of the hand-written leaf that `netrollout` scores rollouts with, mapped to a probability by a \
             logistic fit on the other half of the games: the value head must get below it",
            POSITIONS,
        ),
        (VALUE_BRIER, "the value head's squared error of the expected score on the same positions", POSITIONS),
        (LEAF_BRIER, "the leaf's squared error, through the same fit", POSITIONS),
        (
            BELIEF_LOG_LIKELIHOOD,
            "the mean log-likelihood of each hidden opponent piece's true type under the belief head, restricted to \
             the counting prior's support (as the searches use it; higher is better)",
            PIECES,
        ),
        (COUNTING_LOG_LIKELIHOOD, "the same under the counting prior: the belief head must get above it", PIECES),
        (
            POOLED_LOG_LIKELIHOOD,
            "the same under the belief head pooled with the counting prior (`prior^(1-w) * head^w`, w fitted on the \
             other half of the games for moved and unmoved pieces): how much of the head is worth trusting",
            PIECES,
        ),
    ];

    const POSITIONS: &str = "mean over the positions";
    const PIECES: &str = "mean over the hidden opponent pieces of those positions";
}

/// Every diagnostic's value for `iteration`, in table order.
pub fn values(iteration: &Iteration) -> Vec<(&'static str, f64)> {
    table_values(DIAGNOSTICS, iteration)
}

/// Every value of a table for `record`, in table order.
pub fn table_values<R>(table: &[Diagnostic<R>], record: &R) -> Vec<(&'static str, f64)> {
    table.iter().map(|d| (d.tag, (d.value)(record))).collect()
}

fn table_markdown<R>(table: &[Diagnostic<R>], per: &str) -> String {
    let mut text = format!("| tag | what | {per} |\n|---|---|---|\n");
    for d in table {
        text.push_str(&format!("| `{}` | {} | {} |\n", d.tag, d.what, d.unit.describe()));
    }
    text
}

/// The pretraining tag table of docs/TRAINING.md.
pub fn pretrain_tags_markdown() -> String {
    table_markdown(PRETRAIN_DIAGNOSTICS, "per epoch")
}

/// The tag table of docs/TRAINING.md.
pub fn tags_markdown() -> String {
    let mut text = table_markdown(DIAGNOSTICS, "per iteration");
    text.push_str(&format!(
        "| `{SELFPLAY_SCORE_PREFIX}<opponent>` | the network's score (wins + draws / 2, per game) in the iteration's \
         games against each of `selfplay.opponents` (a training signal, not an evaluation: the network samples its \
         policy) | mean over those games |\n"
    ));
    text.push_str(&format!(
        "| `{EVAL_SCORE_PREFIX}<opponent>` | every `eval.every` iterations: the network's arena score (wins + draws / 2, \
         per game) against each of `eval.opponents`, the network drawing its setups with `game.setups` | its value \
         this iteration |\n"
    ));
    text.push_str(&format!(
        "| `{EVAL_SCORE_PREFIX}<opponent>{EVAL_LOW_SUFFIX}`, `..{EVAL_HIGH_SUFFIX}` | the ends of that score's 95 % \
         interval, from the colour-swapped pairs (pentanomial) | score |\n"
    ));
    text.push_str(&format!(
        "| `{EVAL_CAP_DRAWS_PREFIX}<opponent>` | the share of those evaluation games drawn at the battleless cap (a \
         network that shuffles when it could press shows here) | share of games |\n"
    ));
    text.push_str(&format!(
        "| `{EVAL_SECONDS}` | the evaluation's wall time, apart from the iteration's learning time | seconds |\n"
    ));
    for (tag, what, per) in probe_tags::TABLE {
        text.push_str(&format!("| `{tag}` | every evaluation: {what} | {per} |\n"));
    }
    text.push_str(&format!(
        "| `{EVAL_BOARD}` | every evaluation, an image (the Images tab): the last position of its worst game, everything \
         shown; that game and the next worst against each opponent are kept in `eval-games/<iteration>/` | picture |\n"
    ));
    text
}

/// Sums of [`Term::ALL`] (the imitation's terms) over a set of decisions, with their
/// counts and the counting prior on their hidden squares.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PretrainSums {
    pub sums: [f64; Term::COUNT],
    pub samples: f64,
    pub hidden_squares: f64,
    pub prior_log_likelihood: f64,
}

impl PretrainSums {
    /// A per-decision term's mean.
    pub fn per_sample(&self, term: Term) -> f64 {
        mean(self.sums[term.index()], self.samples)
    }

    /// A sum over hidden opponent squares, per square.
    pub fn per_hidden_square(&self, sum: f64) -> f64 {
        mean(sum, self.hidden_squares)
    }
}

/// Everything one pretraining epoch measured. Epoch 0 is the untrained
/// network on the held-out decisions (its training figures are NaN and are
/// not logged).
#[derive(Clone, Debug, Default)]
pub struct PretrainEpoch {
    pub epoch: usize,
    /// On the training decisions, during the epoch (each minibatch before its step).
    pub train: PretrainSums,
    /// On the held-out decisions, after the epoch.
    pub heldout: PretrainSums,
    /// Seconds of the epoch's gradient steps (encoding included).
    pub seconds: f64,
    pub learning_rate: f64,
    /// The teacher games: how many (held-out ones included), the teacher
    /// decisions in the training games, and the seconds it took to play all.
    pub games: usize,
    pub decisions: usize,
    pub generation_seconds: f64,
    /// Teacher decisions in all games (held-out ones included), for the speed.
    pub all_decisions: usize,
}

/// Every quantity a pretraining epoch logs, in logging order.
pub const PRETRAIN_DIAGNOSTICS: &[Diagnostic<PretrainEpoch>] = &[
    Diagnostic {
        tag: "pretrain/loss_total",
        what: "the imitation loss the gradient steps descend: policy + value_weight·value + belief_weight·belief",
        unit: Unit::PerSample,
        value: |e| e.train.per_sample(Term::Total),
    },
    Diagnostic {
        tag: "pretrain/loss_policy",
        what: "the policy's cross-entropy against the teacher's move, −log π(teacher's action)",
        unit: Unit::PerSample,
        value: |e| e.train.per_sample(Term::Policy),
    },
    Diagnostic {
        tag: "pretrain/loss_value",
        what: "the value head's cross-entropy against the game's result for the mover",
        unit: Unit::PerSample,
        value: |e| e.train.per_sample(Term::Value),
    },
    Diagnostic {
        tag: "pretrain/loss_belief",
        what: "the belief head's cross-entropy on hidden opponent squares",
        unit: Unit::PerSample,
        value: |e| e.train.per_sample(Term::Belief),
    },
    Diagnostic {
        tag: "pretrain/policy_accuracy",
        what: "the policy's most likely move is the teacher's (each minibatch before its step)",
        unit: Unit::PerSample,
        value: |e| e.train.per_sample(Term::PolicyCorrect),
    },
    Diagnostic {
        tag: "pretrain/grad_norm",
        what: "the global gradient norm before clipping",
        unit: Unit::PerSample,
        value: |e| e.train.per_sample(Term::GradNorm),
    },
    Diagnostic {
        tag: "pretrain/heldout_policy_accuracy",
        what: "teacher agreement: the policy's most likely move is the teacher's, on the held-out games",
        unit: Unit::PerHeldOutSample,
        value: |e| e.heldout.per_sample(Term::PolicyCorrect),
    },
    Diagnostic {
        tag: "pretrain/heldout_policy_loss",
        what: "the policy's cross-entropy against the teacher's move, on the held-out games",
        unit: Unit::PerHeldOutSample,
        value: |e| e.heldout.per_sample(Term::Policy),
    },
    Diagnostic {
        tag: "pretrain/heldout_value_loss",
        what: "the value head's cross-entropy against the result, on the held-out games",
        unit: Unit::PerHeldOutSample,
        value: |e| e.heldout.per_sample(Term::Value),
    },
    Diagnostic {
        tag: "pretrain/heldout_value_accuracy",
        what: "the value head's most likely result is the actual one, on the held-out games",
        unit: Unit::PerHeldOutSample,
        value: |e| e.heldout.per_sample(Term::ValueCorrect),
    },
    Diagnostic {
        tag: "pretrain/heldout_belief_log_likelihood",
        what: "the belief head's log-probability of the true type, on the held-out games",
        unit: Unit::PerHeldOutHiddenSquare,
        value: |e| e.heldout.per_hidden_square(e.heldout.sums[Term::BeliefLogLikelihood.index()]),
    },
    Diagnostic {
        tag: "pretrain/heldout_prior_log_likelihood",
        what: "the counting prior's log-probability of the true type, on the same squares",
        unit: Unit::PerHeldOutHiddenSquare,
        value: |e| e.heldout.per_hidden_square(e.heldout.prior_log_likelihood),
    },
    Diagnostic {
        tag: "pretrain/samples_per_second",
        what: "decisions trained on (encoding and gradient steps)",
        unit: Unit::PerSecond,
        value: |e| if e.train.samples > 0.0 { e.train.samples / e.seconds.max(1e-9) } else { f64::NAN },
    },
    Diagnostic {
        tag: "pretrain/teacher_decisions_per_second",
        what: "teacher decisions made while playing the games (all cores)",
        unit: Unit::PerSecond,
        value: |e| e.all_decisions as f64 / e.generation_seconds.max(1e-9),
    },
    Diagnostic {
        tag: "pretrain/games",
        what: "teacher games played, the held-out ones included",
        unit: Unit::Count,
        value: |e| e.games as f64,
    },
    Diagnostic {
        tag: "pretrain/decisions",
        what: "teacher decisions in the training games",
        unit: Unit::Count,
        value: |e| e.decisions as f64,
    },
    Diagnostic {
        tag: "pretrain/learning_rate",
        what: "the learning rate `pretrain.lr`",
        unit: Unit::Value,
        value: |e| e.learning_rate,
    },
];

/// Every pretraining diagnostic's value for `epoch`, in table order; for
/// epoch 0 (the network before any step) only the finite ones: what it measured
/// on the held-out games and the games themselves.
pub fn pretrain_values(epoch: &PretrainEpoch) -> Vec<(&'static str, f64)> {
    let mut values = table_values(PRETRAIN_DIAGNOSTICS, epoch);
    if epoch.epoch == 0 {
        values.retain(|(_, v)| v.is_finite());
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/TRAINING.md");
    const BEGIN: &str = "<!-- BEGIN GENERATED TAG TABLE (cargo test -p stratego-learner diagnostics) -->\n";
    const END: &str = "<!-- END GENERATED TAG TABLE -->";
    const PRETRAIN_BEGIN: &str =
        "<!-- BEGIN GENERATED PRETRAIN TAG TABLE (cargo test -p stratego-learner diagnostics) -->\n";
    const PRETRAIN_END: &str = "<!-- END GENERATED PRETRAIN TAG TABLE -->";

    /// docs/TRAINING.md holds the tag table exactly as [`DIAGNOSTICS`]
    /// defines it. Run with `UPDATE_TRAINING_DOCS=1` to rewrite it.
    #[test]
    fn docs_match_the_diagnostics_table() {
        let test = "cargo test -p stratego-learner diagnostics";
        stratego_support::generated_docs::check(DOC, BEGIN, END, &tags_markdown(), "UPDATE_TRAINING_DOCS", test)
            .unwrap_or_else(|e| panic!("{e}"));
        let pretrain = pretrain_tags_markdown();
        stratego_support::generated_docs::check(
            DOC,
            PRETRAIN_BEGIN,
            PRETRAIN_END,
            &pretrain,
            "UPDATE_TRAINING_DOCS",
            test,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn the_pretrain_table_has_unique_prefixed_tags_and_epoch_zero_logs_only_what_it_measured() {
        let mut tags: Vec<&str> = PRETRAIN_DIAGNOSTICS.iter().map(|d| d.tag).collect();
        assert!(tags.iter().all(|t| t.starts_with("pretrain/")));
        tags.sort();
        tags.dedup();
        assert_eq!(tags.len(), PRETRAIN_DIAGNOSTICS.len());
        let mut heldout =
            PretrainSums { samples: 4.0, hidden_squares: 8.0, prior_log_likelihood: -16.0, ..Default::default() };
        heldout.sums[Term::PolicyCorrect.index()] = 3.0;
        let epoch0 = PretrainEpoch {
            epoch: 0,
            heldout,
            games: 3,
            all_decisions: 10,
            generation_seconds: 2.0,
            ..Default::default()
        };
        let v: std::collections::HashMap<&str, f64> = pretrain_values(&epoch0).into_iter().collect();
        assert_eq!(v["pretrain/heldout_policy_accuracy"], 0.75);
        assert_eq!(v["pretrain/heldout_prior_log_likelihood"], -2.0);
        assert_eq!(v["pretrain/teacher_decisions_per_second"], 5.0);
        assert!(!v.contains_key("pretrain/loss_policy"), "no training figures before training");
        let epoch1 = PretrainEpoch { epoch: 1, ..epoch0 };
        assert_eq!(pretrain_values(&epoch1).len(), PRETRAIN_DIAGNOSTICS.len());
    }

    #[test]
    fn one_tag_per_quantity_and_every_term_and_end_reason_is_logged() {
        let mut tags: Vec<&str> = DIAGNOSTICS.iter().map(|d| d.tag).collect();
        tags.sort();
        tags.dedup();
        assert_eq!(tags.len(), DIAGNOSTICS.len(), "tags are unique");
        assert!(DIAGNOSTICS.iter().all(|d| d.tag.contains('/') && !d.tag.starts_with(EVAL_SCORE_PREFIX)));
        // Each summed term and each end reason moves exactly one diagnostic.
        let base = Iteration { samples: 10.0, hidden_squares: 10.0, games: 10, ..Iteration::default() };
        let changed = |it: &Iteration| -> Vec<&str> {
            let (a, b) = (values(&base), values(it));
            a.iter().zip(&b).filter(|(x, y)| x.1.to_bits() != y.1.to_bits()).map(|(x, _)| x.0).collect()
        };
        for term in Term::ALL {
            let mut it = base.clone();
            it.sums[term.index()] = 5.0;
            // The imitation's own terms are the warm start's, not an iteration's.
            let moves = if matches!(term, Term::Policy | Term::PolicyCorrect) { 0 } else { 1 };
            assert_eq!(changed(&it).len(), moves, "{term:?} moves {:?}", changed(&it));
        }
        for reason in EndReason::ALL {
            let mut it = base.clone();
            it.count_end(reason);
            assert_eq!(changed(&it).len(), 1, "{reason:?} moves {:?}", changed(&it));
            assert_eq!(it.share_ended(reason), 0.1);
        }
    }

    #[test]
    fn values_are_means_shares_and_rates() {
        let mut it = Iteration {
            samples: 4.0,
            hidden_squares: 8.0,
            prior_log_likelihood: -16.0,
            games: 2,
            plies: 30,
            seconds: 3.0,
            waited: 1.0,
            selection: Selection { decisions: 10, stale: 1, kept: 4, threshold: 0.5 },
            ..Iteration::default()
        };
        it.sums[Term::Clip.index()] = 2.0;
        it.sums[Term::BeliefCorrect.index()] = 6.0;
        let v: std::collections::HashMap<&str, f64> = values(&it).into_iter().collect();
        assert_eq!(v["loss/clip"], 0.5);
        assert_eq!(v["belief/accuracy"], 0.75);
        assert_eq!(v["belief/prior_log_likelihood"], -2.0);
        assert_eq!(v["samples/kept_fraction"], 0.4);
        assert_eq!(v["samples/stale_fraction"], 0.1);
        assert_eq!(v["games/average_length"], 15.0);
        assert_eq!(v["speed/plies_per_second"], 10.0);
        assert_eq!(v["speed/learn_seconds"], 2.0);
        // No samples: the per-sample means are NaN, not a division by zero's infinity.
        assert!(Iteration::default().per_sample(Term::Total).is_nan());
    }
}
