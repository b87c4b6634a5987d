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

use stratego_engine::EndReason;

use crate::samples::Selection;

/// A quantity summed on the device over an iteration's minibatches, in the
/// order of the stacked tensor ([`Term::ALL`]). The loss terms, the entropy,
/// the clip fraction and the gradient norm are minibatch means weighted by
/// the minibatch's size; the correct-guess counts and the log-likelihood
/// are plain sums over samples (value) or hidden squares (belief).
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
}

impl Term {
    pub const ALL: [Term; 12] = [
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
    ];
    pub const COUNT: usize = Term::ALL.len();

    /// The term's position in the stacked tensor.
    pub fn index(self) -> usize {
        self as usize
    }
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
    pub learning_rate: f64,
    pub magnet_weight: f64,
}

impl Iteration {
    /// A per-sample term's mean over the samples trained on.
    pub fn per_sample(&self, term: Term) -> f64 {
        if self.samples > 0.0 {
            self.sums[term.index()] / self.samples
        } else {
            f64::NAN
        }
    }

    /// A sum over hidden opponent squares, per square.
    pub fn per_hidden_square(&self, sum: f64) -> f64 {
        if self.hidden_squares > 0.0 {
            sum / self.hidden_squares
        } else {
            f64::NAN
        }
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
    PerHiddenSquare,
    ShareOfDecisions,
    ShareOfGames,
    PerSecond,
    Seconds,
    PliesPerGame,
    Value,
}

impl Unit {
    pub fn describe(self) -> &'static str {
        match self {
            Unit::PerSample => "mean over the samples trained on",
            Unit::PerHiddenSquare => "mean over their hidden opponent squares",
            Unit::ShareOfDecisions => "share of the decisions received",
            Unit::ShareOfGames => "share of the games received",
            Unit::PerSecond => "per second of the iteration",
            Unit::Seconds => "seconds",
            Unit::PliesPerGame => "plies per game",
            Unit::Value => "its value this iteration",
        }
    }
}

/// One logged quantity.
pub struct Diagnostic {
    /// The metrics.jsonl key and TensorBoard tag.
    pub tag: &'static str,
    /// What it measures.
    pub what: &'static str,
    pub unit: Unit,
    /// Its value for an iteration.
    pub value: fn(&Iteration) -> f64,
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
        tag: "schedule/learning_rate",
        what: "the learning rate of the schedule `lr`",
        unit: Unit::Value,
        value: |it| it.learning_rate,
    },
    Diagnostic {
        tag: "schedule/magnet_weight",
        what: "τ_t, the magnet weight of the schedule `magnet`",
        unit: Unit::Value,
        value: |it| it.magnet_weight,
    },
];

/// The evaluation's tags, `eval/score_vs_<opponent>`, logged only on the
/// iterations that evaluate.
pub const EVAL_SCORE_PREFIX: &str = "eval/score_vs_";

/// Every diagnostic's value for `iteration`, in table order.
pub fn values(iteration: &Iteration) -> Vec<(&'static str, f64)> {
    DIAGNOSTICS.iter().map(|d| (d.tag, (d.value)(iteration))).collect()
}

/// The tag table of docs/TRAINING.md.
pub fn tags_markdown() -> String {
    let mut text = String::from("| tag | what | per iteration |\n|---|---|---|\n");
    for d in DIAGNOSTICS {
        text.push_str(&format!("| `{}` | {} | {} |\n", d.tag, d.what, d.unit.describe()));
    }
    text.push_str(&format!(
        "| `{EVAL_SCORE_PREFIX}<opponent>` | every `eval.every` iterations: the network's arena score (wins + draws / 2, \
         per game) against each of `eval.opponents` | its value this iteration |\n"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/TRAINING.md");
    const BEGIN: &str = "<!-- BEGIN GENERATED TAG TABLE (cargo test -p stratego-learner diagnostics) -->\n";
    const END: &str = "<!-- END GENERATED TAG TABLE -->";

    /// docs/TRAINING.md holds the tag table exactly as [`DIAGNOSTICS`]
    /// defines it. Run with `UPDATE_TRAINING_DOCS=1` to rewrite it.
    #[test]
    fn docs_match_the_diagnostics_table() {
        let test = "cargo test -p stratego-learner diagnostics";
        stratego_engine::generated_docs::check(DOC, BEGIN, END, &tags_markdown(), "UPDATE_TRAINING_DOCS", test)
            .unwrap_or_else(|e| panic!("{e}"));
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
            assert_eq!(changed(&it).len(), 1, "{term:?} moves {:?}", changed(&it));
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
