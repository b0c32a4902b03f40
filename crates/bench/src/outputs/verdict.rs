//! How a claim is decided: each pair of cells by a t test on the repetitions (paired when the
//! two cells shared a random draw at every repetition, Welch's otherwise), Holm-corrected over
//! the claim's pairs at level [`ALPHA`]; each pair "holds", "does not hold" or is
//! "indistinguishable", and the claim is the tally. A claim about the means themselves
//! (`test = "means"`) and a pair with a single repetition are decided on the means, and say so.
//!
//! The claim holds when every pair holds; it does not hold when a pair holds the other way
//! significantly (or, on the means, at all); otherwise it is indistinguishable: the numbers
//! cannot tell the paper's statement from its opposite at some pair, and contradict it nowhere.

use super::results::{Coordinates, Sample, Stats};
use crate::stats::{self, TTest};

/// The family-wise level of a claim's tests.
pub const ALPHA: f64 = 0.05;

/// A claim's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    DoesNotHold,
    /// No pair contradicts the claim, and at least one cannot be told apart.
    Indistinguishable,
    /// Every cell it compares was skipped (its data needs the network, say).
    NotChecked,
}

impl Verdict {
    /// As the report and the claims file print it: the outcomes that need a reader's eye in
    /// capitals.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "DOES NOT HOLD",
            Verdict::Indistinguishable => "INDISTINGUISHABLE",
            Verdict::NotChecked => "NOT CHECKED",
        }
    }
}

/// One pair's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairVerdict {
    Holds,
    Against,
    Tie,
}

impl PairVerdict {
    pub fn label(self) -> &'static str {
        match self {
            PairVerdict::Holds => "holds",
            PairVerdict::Against => "does not hold",
            PairVerdict::Tie => "indistinguishable",
        }
    }
}

/// Two cells the claim compares, with the values of each repetition.
#[derive(Debug, Clone)]
pub struct Pair {
    /// The coordinates they share.
    pub at: Coordinates,
    pub left: Vec<Sample>,
    pub right: Vec<Sample>,
    pub l: Stats,
    pub r: Stats,
}

/// The relation a claim states: `left * factor < right` ("less") or `left > right * factor`.
#[derive(Debug, Clone, Copy)]
pub struct Relation {
    pub less: bool,
    pub factor: f64,
}

impl Relation {
    /// How far a left and a right value are on the claim's side: positive when they agree
    /// with it.
    pub fn margin(self, l: f64, r: f64) -> f64 {
        if self.less {
            r - l * self.factor
        } else {
            l - r * self.factor
        }
    }
}

/// A pair decided.
#[derive(Debug, Clone)]
pub struct Decided {
    pub verdict: PairVerdict,
    /// The mean margin (difference of the means on the claim's side, factor applied).
    pub margin: f64,
    /// "paired t", "Welch t", "means" or "means (1 repetition)".
    pub test: &'static str,
    /// Holm-adjusted p value; `None` when decided on the means.
    pub p: Option<f64>,
}

/// Whether the two cells shared a random draw at every repetition: the same repetitions (at
/// least two), and a seed column equal on both sides at each of them that is not one value at
/// all of them.
pub fn shared_draw(left: &[Sample], right: &[Sample]) -> bool {
    let reps = |s: &[Sample]| s.iter().map(|x| x.repetition).collect::<Vec<_>>();
    if left.len() < 2 || reps(left) != reps(right) {
        return false;
    }
    let Some(first) = left.first() else {
        return false;
    };
    first.seeds.iter().any(|(column, _)| {
        let value = |s: &Sample| s.seeds.iter().find(|(c, _)| c == column).map(|(_, v)| *v);
        let same = left
            .iter()
            .zip(right)
            .all(|(a, b)| value(a).is_some() && value(a) == value(b));
        let varies = left.iter().any(|s| value(s) != value(first));
        same && varies
    })
}

/// The pair's test: on the per-repetition margins when the cells shared their draws, else
/// Welch's on the two sides (scaled by the factor); `None` with a single repetition.
fn test_pair(pair: &Pair, relation: Relation) -> Option<(TTest, &'static str)> {
    if shared_draw(&pair.left, &pair.right) {
        let margins: Vec<f64> = pair
            .left
            .iter()
            .zip(&pair.right)
            .map(|(a, b)| relation.margin(a.value, b.value))
            .collect();
        return stats::paired(&margins).map(|t| (t, "paired t"));
    }
    // margin(l, r) = a - b with a, b below: Welch's t of a against b has the margin's sign.
    let side = |samples: &[Sample], scale: f64| -> Vec<f64> {
        samples.iter().map(|s| s.value * scale).collect()
    };
    let (a, b) = if relation.less {
        (side(&pair.right, 1.0), side(&pair.left, relation.factor))
    } else {
        (side(&pair.left, 1.0), side(&pair.right, relation.factor))
    };
    stats::welch(&a, &b).map(|t| (t, "Welch t"))
}

/// Every pair decided; `means_only` for a claim about the means themselves.
pub fn decide(pairs: &[Pair], relation: Relation, means_only: bool) -> Vec<Decided> {
    let tests: Vec<Option<(TTest, &'static str)>> = pairs
        .iter()
        .map(|p| (!means_only).then(|| test_pair(p, relation)).flatten())
        .collect();
    let raw: Vec<f64> = tests.iter().flatten().map(|(t, _)| t.p).collect();
    let mut adjusted = stats::holm(&raw).into_iter();
    pairs
        .iter()
        .zip(tests)
        .map(|(pair, test)| {
            let margin = relation.margin(pair.l.mean, pair.r.mean);
            let on_means = if margin > 0.0 {
                PairVerdict::Holds
            } else {
                PairVerdict::Against
            };
            match test {
                Some((_, name)) => {
                    let p = adjusted.next().unwrap_or(f64::NAN);
                    Decided {
                        // NaN (no p) is no evidence: a tie.
                        verdict: if p < ALPHA {
                            on_means
                        } else {
                            PairVerdict::Tie
                        },
                        margin,
                        test: name,
                        p: Some(p),
                    }
                }
                None => Decided {
                    verdict: on_means,
                    margin,
                    test: if means_only {
                        "means"
                    } else {
                        "means (1 repetition)"
                    },
                    p: None,
                },
            }
        })
        .collect()
}

/// The claim's verdict from its pairs'.
pub fn verdict(decided: &[Decided]) -> Verdict {
    let count = |v: PairVerdict| decided.iter().filter(|d| d.verdict == v).count();
    if count(PairVerdict::Against) > 0 {
        Verdict::DoesNotHold
    } else if count(PairVerdict::Tie) > 0 {
        Verdict::Indistinguishable
    } else {
        Verdict::Holds
    }
}

/// "holds at 3, indistinguishable at 1, does not hold at 0 of 4 pairs (paired t, Holm-corrected
/// at 0.05)".
pub fn tally(decided: &[Decided]) -> String {
    let count = |v: PairVerdict| decided.iter().filter(|d| d.verdict == v).count();
    let mut tests: Vec<&str> = decided.iter().map(|d| d.test).collect();
    tests.sort_unstable();
    tests.dedup();
    let corrected = if decided.iter().any(|d| d.p.is_some()) {
        format!(", Holm-corrected at {ALPHA}")
    } else {
        String::new()
    };
    format!(
        "holds at {}, indistinguishable at {}, does not hold at {} of {} pairs ({}{corrected})",
        count(PairVerdict::Holds),
        count(PairVerdict::Tie),
        count(PairVerdict::Against),
        decided.len(),
        tests.join(" / ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(values: &[f64], seed_base: Option<u64>) -> Vec<Sample> {
        values
            .iter()
            .enumerate()
            .map(|(r, &value)| Sample {
                repetition: r,
                value,
                seeds: seed_base
                    .map(|b| vec![("data_seed".to_string(), b + r as u64)])
                    .unwrap_or_default(),
            })
            .collect()
    }

    fn pair(l: &[f64], r: &[f64], seeds: Option<u64>) -> Pair {
        let stats = |v: &[f64]| Stats::of(v).unwrap();
        Pair {
            at: Coordinates::new(),
            left: samples(l, seeds),
            right: samples(r, seeds),
            l: stats(l),
            r: stats(r),
        }
    }

    const LESS: Relation = Relation {
        less: true,
        factor: 1.0,
    };

    #[test]
    fn ties_are_indistinguishable_not_failures() {
        // tensor-sketch-fig1 at p = 2, c = 1, D = 500: TS 0.1171 ± 0.064 against RM 0.1167 ±
        // 0.040 (the means' order is against the claim; the spread swamps it).
        let ts = [0.05, 0.1171, 0.1842];
        let rm = [0.0767, 0.1167, 0.1567];
        let decided = decide(&[pair(&ts, &rm, None)], LESS, false);
        assert_eq!(decided[0].verdict, PairVerdict::Tie);
        assert_eq!(decided[0].test, "Welch t");
        assert!(decided[0].p.unwrap() > 0.9, "{decided:?}");
        assert_eq!(verdict(&decided), Verdict::Indistinguishable);
        // On the means alone the same pair fails.
        let strict = decide(&[pair(&ts, &rm, None)], LESS, true);
        assert_eq!(strict[0].verdict, PairVerdict::Against);
        assert_eq!(verdict(&strict), Verdict::DoesNotHold);
    }

    #[test]
    fn significant_differences_hold_or_fail_by_their_sign() {
        let low = [0.10, 0.11, 0.12, 0.10, 0.11];
        let high = [0.30, 0.31, 0.29, 0.30, 0.32];
        let holds = decide(&[pair(&low, &high, None)], LESS, false);
        assert_eq!(holds[0].verdict, PairVerdict::Holds);
        let against = decide(&[pair(&high, &low, None)], LESS, false);
        assert_eq!(against[0].verdict, PairVerdict::Against);
        assert_eq!(verdict(&against), Verdict::DoesNotHold);
        // A factor moves the line: 0.11 * 3 = 0.33 is not below 0.30.
        let tripled = Relation {
            less: true,
            factor: 3.0,
        };
        let decided = decide(&[pair(&low, &high, None)], tripled, false);
        assert_ne!(decided[0].verdict, PairVerdict::Holds);
    }

    #[test]
    fn shared_seeds_pair_the_repetitions() {
        // Each repetition moves both sides together (a shared split): unpaired, the spread
        // hides a constant gap of 0.01; paired, it is plain.
        let l = [0.50, 0.60, 0.70];
        let r = [0.51, 0.61, 0.71];
        let unpaired = decide(&[pair(&l, &r, None)], LESS, false);
        assert_eq!(
            (unpaired[0].test, unpaired[0].verdict),
            ("Welch t", PairVerdict::Tie)
        );
        let mut shared = pair(&l, &r, Some(7));
        // A constant gap with no spread: the paired test decides on its sign.
        let paired = decide(std::slice::from_ref(&shared), LESS, false);
        assert_eq!(
            (paired[0].test, paired[0].verdict),
            ("paired t", PairVerdict::Holds)
        );
        // One seed the same at every repetition is no pairing.
        for s in shared.left.iter_mut().chain(shared.right.iter_mut()) {
            s.seeds[0].1 = 1;
        }
        assert_eq!(decide(&[shared], LESS, false)[0].test, "Welch t");
    }

    #[test]
    fn one_repetition_is_decided_on_the_means_and_says_so() {
        let decided = decide(&[pair(&[0.1], &[0.2], Some(1))], LESS, false);
        assert_eq!(decided[0].verdict, PairVerdict::Holds);
        assert_eq!(decided[0].test, "means (1 repetition)");
        assert_eq!(decided[0].p, None);
        assert!(tally(&decided).contains("(means (1 repetition))"));
    }

    #[test]
    fn holm_corrects_over_the_claims_pairs() {
        // Alone, p = 0.034 holds at 0.05.
        let l = [0.0, 0.1, 0.2, 0.3];
        let r = [0.25, 0.35, 0.45, 0.55];
        let alone = decide(&[pair(&l, &r, None)], LESS, false);
        let p = alone[0].p.unwrap();
        assert!(p < ALPHA && 4.0 * p > ALPHA, "p = {p}");
        assert_eq!(alone[0].verdict, PairVerdict::Holds);
        // Four such pairs: the smallest p is multiplied by 4, and Holm stops there.
        let family = vec![pair(&l, &r, None); 4];
        let decided = decide(&family, LESS, false);
        assert!(
            decided.iter().all(|d| d.verdict == PairVerdict::Tie),
            "{decided:?}"
        );
        assert_eq!(verdict(&decided), Verdict::Indistinguishable);
        assert_eq!(
            tally(&decided),
            "holds at 0, indistinguishable at 4, does not hold at 0 of 4 pairs (Welch t, \
             Holm-corrected at 0.05)"
        );
    }
}
