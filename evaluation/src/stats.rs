//! The arena's statistics: Elo from pentanomial pair results, likelihood of
//! superiority, a GSPRT for early stopping, and Bradley-Terry ratings.
//!
//! **Pairs.** Games are played in pairs with the same setups and the seats
//! swapped, so the unit of evidence is the pair: A scores 0, 1/2, 1, 3/2 or 2
//! points in it (the *pentanomial* count `counts[k]` is the number of pairs in
//! which A scored `k/2` points). The per-pair mean score per game is
//! `x = k/4`; the estimate of A's expected score is the mean `s` of `x` over
//! the `N` pairs, its standard error `sqrt(var(x) / N)` with the variance over
//! pairs (the pair correlation from shared setups is thereby accounted for,
//! which the trinomial W/D/L model ignores).
//!
//! **A variance floor.** Few pairs that all came out alike have a variance
//! of 0, and would give a zero-width interval and a certain LOS (two games
//! once gave `+190.8 [+190.8, +190.8]`, LOS 1.0). The standard error
//! therefore uses the pairs' squared deviations from `s` plus those of one
//! pseudo-pair at each extreme (scores 0 and 1), over `N + 2`: a floor that
//! vanishes as pairs accumulate (at 200 pairs, score 1/2 and a per-pair
//! variance of 0.1: 1.5 % more variance), like the
//! pseudo-counts of the Agresti-Coull interval. With one pair the interval
//! is all of [0, 1]; ten won games in a row give a lower end of about +120
//! Elo, close to the exact binomial bound.
//!
//! **Elo** is the logistic Elo of the score, `-400 log10(1/s - 1)`; its 95 %
//! interval maps the score interval `s +- 1.96 se` through the same function
//! (infinite at scores 0 and 1). **LOS** (likelihood of superiority) is
//! `Phi((s - 1/2) / se)`, the probability under the same normal approximation
//! that A's true score exceeds 1/2.
//!
//! **SPRT.** A generalized SPRT on the pentanomial pair results, with bounds
//! in **logistic Elo** (not normalized Elo): H0 says A's expected score is
//! `L(elo0)`, H1 `L(elo1)`, `L(e) = 1 / (1 + 10^(-e/400))`. For each
//! hypothesis the pentanomial distribution is its maximum-likelihood estimate
//! under the constraint that its mean is the hypothesised score (a one-
//! dimensional root find for the Lagrange multiplier); the log-likelihood
//! ratio is `sum_k n_k ln(p1_k / p0_k)`. As in Stockfish's fishtest, empty
//! categories count as `1e-3` pairs, so the constrained estimate always
//! exists. The match stops when the LLR leaves `(ln(beta / (1 - alpha)),
//! ln((1 - beta) / alpha))`: below, H0 is accepted; above, H1.
//!
//! **Bradley-Terry.** `P(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400))`, a
//! draw counting half a win to each. Ratings are the maximum-likelihood
//! estimate with one virtual draw added to every pairing (a weak prior that
//! keeps the estimate finite when a player wins or loses every game, as
//! BayesElo's prior does), found by Hunter's MM iteration, and reported
//! relative to the first player. Intervals come from a seeded bootstrap that
//! resamples the pairs of every pairing (the 2.5 and 97.5 percentiles of
//! 1000 refits).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The two-sided 95 % quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The logistic Elo difference of an expected score (infinite at 0 and 1).
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of a logistic Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' Chebyshev fit,
/// fractional error below 1.2e-7 everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// An Elo difference with its 95 % interval.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct EloInterval {
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
}

impl std::fmt::Display for EloInterval {
    /// `+123.4 [+56.7, +inf]`, as the reports print it: an infinite end (a
    /// score of 0 or 1 there) is `-inf` or `+inf`, and an even match `+0.0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let signed = |x: f64| {
            if x.is_finite() {
                // `+ 0.0` turns -0.0 into 0.0.
                format!("{:+.1}", x + 0.0)
            } else {
                format!("{}inf", if x > 0.0 { '+' } else { '-' })
            }
        };
        write!(f, "{} [{}, {}]", signed(self.elo), signed(self.lower), signed(self.upper))
    }
}

/// Pentanomial pair results: `counts[k]` pairs in which A scored `k/2` points.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Pentanomial {
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Records a pair in which A scored `half_points / 2` points (0..=4).
    pub fn add(&mut self, half_points: u8) {
        self.counts[half_points as usize] += 1;
    }

    pub fn from_pairs(half_points: impl IntoIterator<Item = u8>) -> Pentanomial {
        let mut p = Pentanomial::default();
        half_points.into_iter().for_each(|h| p.add(h));
        p
    }

    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// A's mean score per game.
    pub fn score(&self) -> f64 {
        let n = self.pairs() as f64;
        self.counts.iter().enumerate().map(|(k, &c)| c as f64 * k as f64 / 4.0).sum::<f64>() / n
    }

    /// The variance of the per-pair mean score over the pairs.
    pub fn variance(&self) -> f64 {
        let (n, s) = (self.pairs() as f64, self.score());
        self.counts.iter().enumerate().map(|(k, &c)| c as f64 * (k as f64 / 4.0 - s).powi(2)).sum::<f64>() / n
    }

    /// The variance behind the intervals: `variance` with one pseudo-pair
    /// at each extreme (the floor of the module documentation).
    pub fn floored_variance(&self) -> f64 {
        let (n, s) = (self.pairs() as f64, self.score());
        (n * self.variance() + s * s + (1.0 - s) * (1.0 - s)) / (n + 2.0)
    }

    /// The standard error of `score` (from the floored variance).
    pub fn std_error(&self) -> f64 {
        (self.floored_variance() / self.pairs() as f64).sqrt()
    }

    /// The 95 % interval of A's score, within [0, 1].
    pub fn score_interval(&self) -> (f64, f64) {
        let (s, half) = (self.score(), Z95 * self.std_error());
        ((s - half).max(0.0), (s + half).min(1.0))
    }

    /// A's Elo advantage over B with its 95 % interval.
    pub fn elo(&self) -> EloInterval {
        let (lo, hi) = self.score_interval();
        EloInterval { elo: score_to_elo(self.score()), lower: score_to_elo(lo), upper: score_to_elo(hi) }
    }

    /// Likelihood of superiority: the probability that A's true score is above 1/2.
    pub fn los(&self) -> f64 {
        let (s, se) = (self.score(), self.std_error());
        if se == 0.0 {
            return if s > 0.5 {
                1.0
            } else if s < 0.5 {
                0.0
            } else {
                0.5
            };
        }
        normal_cdf((s - 0.5) / se)
    }
}

/// The 95 % normal interval of a score from its wins, draws and losses
/// with each game taken as independent (scored 1, 1/2 or 0; the trinomial
/// model, which ignores the pair correlation the pentanomial accounts for),
/// within [0, 1]; `(0, 1)` without games. For curves logged as W/D/L.
pub fn trinomial_score_interval(wins: u64, draws: u64, losses: u64) -> (f64, f64) {
    let n = (wins + draws + losses) as f64;
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let (w, d, l) = (wins as f64, draws as f64, losses as f64);
    let mean = (w + 0.5 * d) / n;
    let variance = (w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * mean.powi(2)) / n;
    let half = Z95 * (variance / n).sqrt();
    ((mean - half).max(0.0), (mean + half).min(1.0))
}

/// A sequential probability ratio test on pentanomial pairs (see the module documentation).
#[derive(Copy, Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtDecision {
    /// Neither bound reached yet.
    Continue,
    /// H0 accepted: A is not `elo1` stronger (its Elo advantage is about `elo0` or less).
    AcceptH0,
    /// H1 accepted: A is at least about `elo1` stronger.
    AcceptH1,
}

/// Categories with no pair count as this many, so that constrained
/// estimates always exist (fishtest's regularisation).
const EMPTY_CATEGORY: f64 = 1e-3;

impl Sprt {
    /// Checks the parameters: `elo0 < elo1`, error rates strictly between 0 and 1/2.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!("SPRT needs finite elo0 < elo1, got {elo0} and {elo1}"));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("SPRT {name} must be between 0 and 0.5, got {p}"));
            }
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// The stopping bounds of the LLR: (accept H0 at or below, accept H1 at or above).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The generalized log-likelihood ratio of H1 against H0.
    pub fn llr(&self, results: &Pentanomial) -> f64 {
        let counts: [f64; 5] = results.counts.map(|c| (c as f64).max(EMPTY_CATEGORY));
        let total: f64 = counts.iter().sum();
        let freqs = counts.map(|c| c / total);
        let p0 = mle_with_mean(&freqs, elo_to_score(self.elo0));
        let p1 = mle_with_mean(&freqs, elo_to_score(self.elo1));
        (0..5).map(|k| counts[k] * (p1[k] / p0[k]).ln()).sum()
    }

    pub fn decide(&self, results: &Pentanomial) -> SprtDecision {
        let (lower, upper) = self.bounds();
        let llr = self.llr(results);
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

/// The maximum-likelihood pentanomial distribution with mean score `mean`
/// for observed frequencies `freqs` (all positive): `p_k = f_k / (1 + l (a_k -
/// mean))` with `a_k = k/4` and the multiplier `l` chosen so that the `p_k` sum
/// to 1. `g(l) = sum f_k (a_k - mean) / (1 + l (a_k - mean))` is decreasing on
/// the interval where every denominator is positive, so bisection finds it.
fn mle_with_mean(freqs: &[f64; 5], mean: f64) -> [f64; 5] {
    let d: [f64; 5] = std::array::from_fn(|k| k as f64 / 4.0 - mean);
    let g = |l: f64| (0..5).map(|k| freqs[k] * d[k] / (1.0 + l * d[k])).sum::<f64>();
    let (d_min, d_max) = (d[0], d[4]); // d_min < 0 < d_max for 0 < mean < 1
    let (mut lo, mut hi) = (-1.0 / d_max, -1.0 / d_min);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let l = 0.5 * (lo + hi);
    std::array::from_fn(|k| freqs[k] / (1.0 + l * d[k]))
}

/// The results of one pairing of a round robin: player `a`'s points in each
/// pair of games against player `b`, in half points (0..=4).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PairingResults {
    pub a: usize,
    pub b: usize,
    pub pairs: Vec<u8>,
}

/// A player's rating with its 95 % bootstrap interval (relative to player 0).
#[derive(Copy, Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Rating {
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
}

/// Bradley-Terry maximum-likelihood ratings (one virtual draw per pairing),
/// in Elo relative to player 0.
pub fn bradley_terry(players: usize, pairings: &[PairingResults]) -> Vec<f64> {
    // games[i][j]: games between i and j; won[i]: i's total score.
    let mut games = vec![vec![0.0f64; players]; players];
    let mut won = vec![0.0f64; players];
    for p in pairings {
        let n = 2.0 * p.pairs.len() as f64 + 1.0;
        let a_points = p.pairs.iter().map(|&h| h as f64 / 2.0).sum::<f64>() + 0.5;
        games[p.a][p.b] += n;
        games[p.b][p.a] += n;
        won[p.a] += a_points;
        won[p.b] += n - a_points;
    }
    let mut gamma = vec![1.0f64; players];
    for _ in 0..100_000 {
        let next: Vec<f64> = (0..players)
            .map(|i| {
                let denominator: f64 =
                    (0..players).filter(|&j| games[i][j] > 0.0).map(|j| games[i][j] / (gamma[i] + gamma[j])).sum();
                if denominator > 0.0 {
                    won[i] / denominator
                } else {
                    gamma[i]
                }
            })
            .collect();
        let scale = next.iter().map(|g| g.ln()).sum::<f64>() / players as f64;
        let next: Vec<f64> = next.iter().map(|g| (g.ln() - scale).exp()).collect();
        let change = next.iter().zip(&gamma).map(|(a, b)| (a / b).ln().abs()).fold(0.0, f64::max);
        gamma = next;
        if change < 1e-13 {
            break;
        }
    }
    let anchor = gamma[0].log10();
    gamma.iter().map(|g| 400.0 * (g.log10() - anchor)).collect()
}

/// Bradley-Terry ratings with 95 % intervals from `resamples` bootstrap refits.
pub fn bradley_terry_with_intervals(
    players: usize,
    pairings: &[PairingResults],
    resamples: usize,
    seed: u64,
) -> Vec<Rating> {
    let point = bradley_terry(players, pairings);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); players];
    for _ in 0..resamples {
        let resampled: Vec<PairingResults> = pairings
            .iter()
            .map(|p| PairingResults {
                a: p.a,
                b: p.b,
                pairs: (0..p.pairs.len()).map(|_| p.pairs[rng.random_range(0..p.pairs.len())]).collect(),
            })
            .collect();
        for (i, r) in bradley_terry(players, &resampled).into_iter().enumerate() {
            samples[i].push(r);
        }
    }
    point
        .into_iter()
        .zip(samples)
        .map(|(elo, mut s)| {
            s.sort_by(f64::total_cmp);
            let at = |q: f64| if s.is_empty() { elo } else { s[((s.len() - 1) as f64 * q).round() as usize] };
            Rating { elo, lower: at(0.025), upper: at(0.975) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn an_elo_interval_prints_signed_with_infinite_ends() {
        let text = |elo, lower, upper| EloInterval { elo, lower, upper }.to_string();
        assert_eq!(text(123.44, -5.06, f64::INFINITY), "+123.4 [-5.1, +inf]");
        assert_eq!(text(f64::NEG_INFINITY, f64::NEG_INFINITY, -300.0), "-inf [-inf, -300.0]");
        assert_eq!(text(-0.0, -12.0, 12.0), "+0.0 [-12.0, +12.0]");
    }

    #[test]
    fn trinomial_interval_is_the_normal_interval_of_the_game_scores() {
        // 6 wins, 2 draws, 2 losses: mean 0.7, variance (6*0.09 + 2*0.04 + 2*0.49)/10 = 0.16.
        let (lo, hi) = trinomial_score_interval(6, 2, 2);
        let half = Z95 * (0.16f64 / 10.0).sqrt();
        close(lo, 0.7 - half, 1e-12);
        close(hi, 0.7 + half, 1e-12);
        assert_eq!(trinomial_score_interval(5, 0, 0), (1.0, 1.0));
        assert_eq!(trinomial_score_interval(0, 0, 0), (0.0, 1.0));
        let (lo, _) = trinomial_score_interval(1, 0, 9);
        assert_eq!(lo, 0.0, "clamped at 0");
    }

    /// 10 pairs: A scored 0 once, 1/2 twice, 1 three times, 3/2 twice and 2 twice.
    fn example() -> Pentanomial {
        Pentanomial { counts: [1, 2, 3, 2, 2] }
    }

    #[test]
    fn pentanomial_score_elo_and_interval_by_hand() {
        let p = example();
        // s = (0*1 + .25*2 + .5*3 + .75*2 + 1*2) / 10 = 5.5 / 10
        close(p.score(), 0.55, 1e-12);
        // var = (1*.55^2 + 2*.3^2 + 3*.05^2 + 2*.2^2 + 2*.45^2) / 10 = 0.975 / 10
        close(p.variance(), 0.0975, 1e-12);
        // floored: (0.975 + .55^2 + .45^2) / 12 = 1.48 / 12
        close(p.floored_variance(), 1.48 / 12.0, 1e-12);
        // se = sqrt(0.1233333 / 10) = 0.1110555; 1.96 se = 0.2176648
        close(p.std_error(), 0.111_055_5, 1e-7);
        let (lo, hi) = p.score_interval();
        close(lo, 0.332_335_2, 1e-6);
        close(hi, 0.767_664_8, 1e-6);
        // Elo: -400 log10(1/0.55 - 1) = 34.860; bounds at 0.3323352 and 0.7676648
        let e = p.elo();
        close(e.elo, 34.860_070, 1e-5);
        close(e.lower, -121.192_9, 1e-3);
        close(e.upper, 207.622_7, 1e-3);
        // LOS = Phi(0.05 / 0.1110555) = Phi(0.450225) = 0.673726
        close(p.los(), 0.673_726, 1e-5);
    }

    #[test]
    fn results_all_alike_give_no_certainty_from_few_pairs() {
        let all_wins = Pentanomial { counts: [0, 0, 0, 0, 5] };
        assert_eq!(all_wins.score(), 1.0);
        assert_eq!(all_wins.elo().elo, f64::INFINITY);
        // Ten wins: floored variance 1/7, se = 0.169, lower end 0.669.
        let e = all_wins.elo();
        assert!(e.lower.is_finite() && (100.0..140.0).contains(&e.lower), "{e:?}");
        assert!(all_wins.los() > 0.998 && all_wins.los() < 1.0, "{}", all_wins.los());
        // One pair (two games) says nothing: the interval is everything.
        let one_pair = Pentanomial { counts: [0, 0, 0, 0, 1] };
        assert_eq!(one_pair.score_interval(), (0.0, 1.0));
        assert_eq!(one_pair.elo().lower, f64::NEG_INFINITY);
        assert!(one_pair.los() < 0.9, "{}", one_pair.los());
        let even = Pentanomial { counts: [0, 0, 4, 0, 0] };
        assert_eq!(even.elo().elo, 0.0);
        close(even.los(), 0.5, 1e-6);
        let e = even.elo();
        assert!(e.lower < -100.0 && e.upper > 100.0, "4 drawn pairs: {e:?}");
    }

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-600.0, -35.0, 0.0, 12.5, 400.0] {
            close(score_to_elo(elo_to_score(elo)), elo, 1e-9);
        }
        close(elo_to_score(400.0), 10.0 / 11.0, 1e-12);
        close(normal_cdf(1.959_963_984_540_054), 0.975, 1e-7);
        close(normal_cdf(0.0), 0.5, 1e-7);
    }

    #[test]
    fn sprt_llr_by_hand() {
        // elo0 = 0, elo1 = 50: s0 = 0.5, s1 = 1 / (1 + 10^(-1/8)) = 0.571463.
        let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let (lower, upper) = sprt.bounds();
        close(lower, -(19f64.ln()), 1e-12);
        close(upper, 19f64.ln(), 1e-12);
        // For the example, worked with an independent script: the constrained
        // MLEs have multipliers l0 = 0.50618 (mean 0.5) and l1 = -0.22125 (mean
        // 0.571463), and LLR = sum n_k ln(p1_k / p0_k) = 0.103424.
        close(sprt.llr(&example()), 0.103_424, 1e-5);
        assert_eq!(sprt.decide(&example()), SprtDecision::Continue);
        // The same frequencies ten times over: the LLR grows ten times.
        let ten = Pentanomial { counts: example().counts.map(|c| 10 * c) };
        close(sprt.llr(&ten), 1.034_244, 1e-4);
        // 100 pairs scoring 0.78 decide H1 (LLR 12.26 > ln 19); the mirror image H0 (-14.52).
        let strong = Pentanomial { counts: [2, 4, 20, 30, 44] };
        close(sprt.llr(&strong), 12.255_954, 1e-4);
        assert_eq!(sprt.decide(&strong), SprtDecision::AcceptH1);
        let weak = Pentanomial { counts: [44, 30, 20, 4, 2] };
        assert_eq!(sprt.decide(&weak), SprtDecision::AcceptH0);
        assert!(Sprt::new(10.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 10.0, 0.0, 0.05).is_err());
    }

    #[test]
    fn sprt_llr_matches_the_normal_approximation_on_large_samples() {
        // GSPRT's LLR ~ N (s1 - s0)(2 s - s0 - s1) / (2 var) for small Elo differences.
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let p = Pentanomial { counts: [300, 2000, 4000, 2300, 400] };
        let (s0, s1) = (elo_to_score(0.0), elo_to_score(10.0));
        let approx = p.pairs() as f64 * (s1 - s0) * (2.0 * p.score() - s0 - s1) / (2.0 * p.variance());
        close(sprt.llr(&p), approx, 0.02 * approx.abs());
    }

    #[test]
    fn bradley_terry_on_a_tiny_tournament_by_hand() {
        // With the virtual draw per pairing the score ratios are exactly
        // 2:1 (A-B), 4:1 (A-C) and 2:1 (B-C), which the strengths 4 : 2 : 1
        // fit exactly, so the MLE is 400 log10 of them: A 240.82, B 120.41, C 0.
        let pairings = vec![
            // A vs B: one pair, A 1.5 of 2 -> with the virtual draw 2 of 3.
            PairingResults { a: 0, b: 1, pairs: vec![3] },
            // A vs C: two pairs, A 3.5 of 4 -> 4 of 5.
            PairingResults { a: 0, b: 2, pairs: vec![4, 3] },
            // B vs C: one pair, B 1.5 of 2 -> 2 of 3.
            PairingResults { a: 1, b: 2, pairs: vec![3] },
        ];
        let r = bradley_terry(3, &pairings);
        let log4 = 400.0 * 4f64.log10();
        close(r[0], 0.0, 1e-9);
        close(r[1], -log4 / 2.0, 1e-6);
        close(r[2], -log4, 1e-6);
        let rated = bradley_terry_with_intervals(3, &pairings, 200, 7);
        for (rating, point) in rated.iter().zip(&r) {
            close(rating.elo, *point, 1e-12);
            assert!(rating.lower <= rating.elo + 1e-9 && rating.elo <= rating.upper + 1e-9, "{rating:?}");
        }
        assert_eq!(rated, bradley_terry_with_intervals(3, &pairings, 200, 7), "the bootstrap is seeded");
    }

    #[test]
    fn bradley_terry_of_two_players_is_the_log_score_ratio() {
        // A scores 3 of 4 games; with the virtual draw 3.5 to 1.5.
        let r = bradley_terry(2, &[PairingResults { a: 0, b: 1, pairs: vec![4, 2] }]);
        close(r[1], -400.0 * (3.5f64 / 1.5).log10(), 1e-6);
    }
}
