//! How a claim is decided: each pair of cells by t tests on the repetitions (paired when the
//! two cells shared a random draw at every repetition, Welch's otherwise), Holm-corrected over
//! the claim's pairs at level [`ALPHA`]; each pair "holds", "does not hold" or is
//! "indistinguishable", and the claim is the tally. The test follows the statement's wording
//! ([`Statement`]): better or worse (a two-sided test, then the sign), not worse (a one-sided
//! non-inferiority test against a stated margin), similar (two one-sided tests, TOST, against a
//! stated margin). A claim about the means themselves (`test = "means"`) and a pair with a single
//! repetition are decided on the means, and say so.
//!
//! The claim holds when every pair holds; it does not hold when a pair contradicts it
//! significantly (or, on the means, at all); otherwise it is indistinguishable: the numbers
//! cannot tell the paper's statement from its opposite at some pair, and contradict it nowhere.

use super::results::{Coordinates, Sample, Stats};
use crate::stats::{self, TTest};

/// The family-wise level of a claim's tests.
pub const ALPHA: f64 = 0.05;

/// The power at which a claim states the smallest effect its tests could detect.
pub const POWER: f64 = 0.8;

/// A claim's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    /// Every pair that could be compared holds, but some of the claim's cells were skipped
    /// (their data is missing here): not a plain "holds".
    HoldsWhereChecked,
    DoesNotHold,
    /// No pair contradicts the claim, and at least one cannot be told apart.
    Indistinguishable,
    /// Every cell it compares was skipped (its data needs the network, say).
    NotChecked,
    /// No pair contradicts the claim, and at least one has a NaN or infinite value: no test
    /// can decide it (a "holds" or a p = 0 there would be made up).
    Undecided,
}

impl Verdict {
    /// As the report and the claims file print it: the outcomes that need a reader's eye in
    /// capitals.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::HoldsWhereChecked => "HOLDS WHERE CHECKED",
            Verdict::DoesNotHold => "DOES NOT HOLD",
            Verdict::Indistinguishable => "INDISTINGUISHABLE",
            Verdict::NotChecked => "NOT CHECKED",
            Verdict::Undecided => "UNDECIDED (NaN values)",
        }
    }
}

/// One pair's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairVerdict {
    Holds,
    Against,
    Tie,
    /// A side has a NaN or infinite value: no test, no p.
    Undecided,
}

impl PairVerdict {
    pub fn label(self) -> &'static str {
        match self {
            PairVerdict::Holds => "holds",
            PairVerdict::Against => "does not hold",
            PairVerdict::Tie => "indistinguishable",
            PairVerdict::Undecided => "undecided: NaN or infinite values",
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

/// What a claim states of its left side against its right, as the paper words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statement {
    /// Left below right ("lower error", "k times faster"): a two-sided test, then the sign.
    Less,
    /// Left above right.
    Greater,
    /// Left not above right by more than the margin ("not worse", on a lower-is-better metric):
    /// non-inferiority, one-sided; contradicted where left is significantly above right.
    NotGreater,
    /// Left not below right by more than the margin.
    NotLess,
    /// Left within the margin of right ("similar"): two one-sided tests (TOST); contradicted
    /// where the difference is significantly beyond the margin.
    Similar,
}

impl Statement {
    pub fn parse(text: &str) -> Option<Statement> {
        Some(match text {
            "less" => Statement::Less,
            "greater" => Statement::Greater,
            "not-greater" => Statement::NotGreater,
            "not-less" => Statement::NotLess,
            "similar" => Statement::Similar,
            _ => return None,
        })
    }

    /// Whether the statement needs a margin (and takes no factor).
    pub fn needs_margin(self) -> bool {
        !matches!(self, Statement::Less | Statement::Greater)
    }

    /// "left < right", as the claims file says it.
    pub fn describe(self) -> &'static str {
        match self {
            Statement::Less => "left < right",
            Statement::Greater => "left > right",
            Statement::NotGreater => "left not above right + margin",
            Statement::NotLess => "left not below right - margin",
            Statement::Similar => "|left - right| < margin",
        }
    }

    /// The test that decides it: "two-sided t, then the sign".
    pub fn test(self) -> &'static str {
        match self {
            Statement::Less | Statement::Greater => "two-sided t, then the sign",
            Statement::NotGreater | Statement::NotLess => "non-inferiority, one-sided t",
            Statement::Similar => "equivalence, two one-sided t tests (TOST)",
        }
    }
}

/// The relation a claim states: its statement, with `left * factor + offset` in place of left
/// (a factor on the linear scale; on the log scale the values are logs and `ln k` is an offset),
/// and the margin of a non-inferiority or equivalence statement.
#[derive(Debug, Clone, Copy)]
pub struct Relation {
    pub statement: Statement,
    pub factor: f64,
    pub offset: f64,
    pub margin: f64,
}

impl Relation {
    /// A directional relation (`less` or greater) with a factor, on the linear scale.
    #[cfg(test)]
    pub fn directional(less: bool, factor: f64) -> Relation {
        Relation {
            statement: if less {
                Statement::Less
            } else {
                Statement::Greater
            },
            factor,
            offset: 0.0,
            margin: 0.0,
        }
    }

    /// `right - (left * factor + offset) - shift` (`less`) or `left - (right * factor + offset)
    /// - shift`: positive when the values are on that side by more than `shift`.
    fn diff(self, less: bool, shift: f64, l: f64, r: f64) -> f64 {
        if less {
            r - l * self.factor - self.offset - shift
        } else {
            l - r * self.factor - self.offset - shift
        }
    }

    /// How far a left and a right value are on the claim's side: positive when they agree
    /// with it (for a margin statement, by how much they are inside the margin).
    pub fn margin(self, l: f64, r: f64) -> f64 {
        let m = self.margin;
        match self.statement {
            Statement::Less => self.diff(true, 0.0, l, r),
            Statement::Greater => self.diff(false, 0.0, l, r),
            Statement::NotGreater => self.diff(true, -m, l, r),
            Statement::NotLess => self.diff(false, -m, l, r),
            Statement::Similar => self.diff(true, -m, l, r).min(self.diff(false, -m, l, r)),
        }
    }

    /// The one-sided tests that support the statement and those that contradict it, as
    /// `(less, shift)`: "diff(less, shift) > 0". A directional statement has one two-sided test
    /// instead ([`decide`]).
    fn one_sided(self) -> (Vec<(bool, f64)>, Vec<(bool, f64)>) {
        let m = self.margin;
        match self.statement {
            Statement::Less | Statement::Greater => (Vec::new(), Vec::new()),
            Statement::NotGreater => (vec![(true, -m)], vec![(false, 0.0)]),
            Statement::NotLess => (vec![(false, -m)], vec![(true, 0.0)]),
            Statement::Similar => (vec![(true, -m), (false, -m)], vec![(false, m), (true, m)]),
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
    /// Holm-adjusted p value of the statement; `None` when decided on the means.
    pub p: Option<f64>,
    /// The smallest effect the pair's test detects at [`POWER`] (Holm's first step, the
    /// strictest), in the metric's units (logs on the log scale); `None` on the means.
    pub detectable: Option<f64>,
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

/// The test of "diff(less, shift) > 0" on a pair: on the per-repetition differences when the
/// cells shared their draws, else Welch's on the two sides; `None` with a single repetition.
fn test_pair(
    pair: &Pair,
    relation: Relation,
    less: bool,
    shift: f64,
) -> Option<(TTest, &'static str)> {
    if shared_draw(&pair.left, &pair.right) {
        let diffs: Vec<f64> = pair
            .left
            .iter()
            .zip(&pair.right)
            .map(|(a, b)| relation.diff(less, shift, a.value, b.value))
            .collect();
        return stats::paired(&diffs).map(|t| (t, "paired t"));
    }
    // diff = a - b with a, b below: Welch's t of a against b has the difference's sign.
    let side = |samples: &[Sample], scale: f64, add: f64| -> Vec<f64> {
        samples.iter().map(|s| s.value * scale + add).collect()
    };
    let add = relation.offset + shift;
    let (a, b) = if less {
        (
            side(&pair.right, 1.0, 0.0),
            side(&pair.left, relation.factor, add),
        )
    } else {
        (
            side(&pair.left, 1.0, 0.0),
            side(&pair.right, relation.factor, add),
        )
    };
    stats::welch(&a, &b).map(|t| (t, "Welch t"))
}

/// A pair's evidence: the p value for the statement, the p value against it, the test's name
/// and its smallest detectable effect at one-sided level `alpha`.
struct Evidence {
    support: f64,
    against: f64,
    name: &'static str,
    test: TTest,
}

/// The pair's evidence, `None` with a single repetition. A directional statement's two-sided
/// p serves both ways (its sign decides); a margin statement's one-sided tests are combined:
/// all must reject to support it (TOST), any to contradict it (Bonferroni over the two).
fn evidence(pair: &Pair, relation: Relation) -> Option<Evidence> {
    let (support, against) = relation.one_sided();
    if support.is_empty() {
        let less = relation.statement == Statement::Less;
        let (test, name) = test_pair(pair, relation, less, 0.0)?;
        return Some(Evidence {
            support: test.p,
            against: test.p,
            name,
            test,
        });
    }
    let run = |tests: &[(bool, f64)]| -> Option<Vec<(TTest, &'static str)>> {
        tests
            .iter()
            .map(|&(less, shift)| test_pair(pair, relation, less, shift))
            .collect()
    };
    let (pro, con) = (run(&support)?, run(&against)?);
    let p_pro = pro.iter().map(|(t, _)| t.p_positive()).fold(0.0, f64::max);
    let p_con = con.iter().map(|(t, _)| t.p_positive()).fold(1.0, f64::min) * con.len() as f64;
    Some(Evidence {
        support: p_pro,
        against: p_con.min(1.0),
        name: pro[0].1,
        test: pro[0].0,
    })
}

/// Every pair decided; `means_only` for a claim about the means themselves.
pub fn decide(pairs: &[Pair], relation: Relation, means_only: bool) -> Vec<Decided> {
    // A NaN or infinite value decides nothing: such a pair is not tested, nor counted by Holm.
    let finite = |p: &Pair| {
        p.left.iter().chain(&p.right).all(|s| s.value.is_finite())
            && p.l.mean.is_finite()
            && p.r.mean.is_finite()
    };
    let evidence: Vec<Option<Evidence>> = pairs
        .iter()
        .map(|p| {
            (!means_only && finite(p))
                .then(|| evidence(p, relation))
                .flatten()
        })
        .collect();
    let tested = evidence.iter().flatten().count().max(1) as f64;
    let holm = |f: &dyn Fn(&Evidence) -> f64| {
        stats::holm(&evidence.iter().flatten().map(f).collect::<Vec<_>>()).into_iter()
    };
    let (mut support, mut against) = (holm(&|e| e.support), holm(&|e| e.against));
    let directional = !relation.statement.needs_margin();
    // One-sided level of Holm's first step: a two-sided test spends half of it on each side.
    let level = if directional { ALPHA / 2.0 } else { ALPHA } / tested;
    pairs
        .iter()
        .zip(evidence)
        .map(|(pair, evidence)| {
            let margin = relation.margin(pair.l.mean, pair.r.mean);
            let on_means = if margin > 0.0 {
                PairVerdict::Holds
            } else {
                PairVerdict::Against
            };
            if !finite(pair) {
                return Decided {
                    verdict: PairVerdict::Undecided,
                    margin,
                    test: "no test (NaN or infinite values)",
                    p: None,
                    detectable: None,
                };
            }
            let Some(e) = evidence else {
                return Decided {
                    verdict: on_means,
                    margin,
                    test: if means_only {
                        "means"
                    } else {
                        "means (1 repetition)"
                    },
                    p: None,
                    detectable: None,
                };
            };
            let (p_pro, p_con) = (
                support.next().unwrap_or(f64::NAN),
                against.next().unwrap_or(f64::NAN),
            );
            // NaN (no p) is no evidence: a tie.
            let verdict = match directional {
                true if p_pro < ALPHA => on_means,
                false if p_pro < ALPHA => PairVerdict::Holds,
                false if p_con < ALPHA => PairVerdict::Against,
                _ => PairVerdict::Tie,
            };
            Decided {
                verdict,
                margin,
                test: e.name,
                p: Some(p_pro),
                detectable: Some(e.test.detectable(level, POWER)),
            }
        })
        .collect()
}

/// The claim's verdict from its pairs'.
pub fn verdict(decided: &[Decided]) -> Verdict {
    let count = |v: PairVerdict| decided.iter().filter(|d| d.verdict == v).count();
    if count(PairVerdict::Against) > 0 {
        Verdict::DoesNotHold
    } else if count(PairVerdict::Undecided) > 0 {
        Verdict::Undecided
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
    let undecided = match count(PairVerdict::Undecided) {
        0 => String::new(),
        n => format!(", undecided (NaN or infinite values) at {n}"),
    };
    format!(
        "holds at {}, indistinguishable at {}, does not hold at {}{undecided} of {} pairs \
         ({}{corrected})",
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
        statement: Statement::Less,
        factor: 1.0,
        offset: 0.0,
        margin: 0.0,
    };

    /// A pair with a NaN value is undecided with no p value, not "holds" at p = 0 (issue 68
    /// #8), and the claim says so unless another pair contradicts it.
    #[test]
    fn a_nan_metric_leaves_its_pair_undecided_without_a_p_value() {
        let pairs = [
            pair(&[1.0, f64::NAN, 1.1], &[5.0, 5.1, 4.9], Some(1)),
            pair(&[1.0, 1.1, 0.9], &[5.0, 5.1, 4.9], Some(1)),
        ];
        let decided = decide(&pairs, LESS, false);
        assert_eq!(decided[0].verdict, PairVerdict::Undecided);
        assert_eq!(decided[0].p, None);
        assert_eq!(decided[1].verdict, PairVerdict::Holds);
        assert_eq!(verdict(&decided), Verdict::Undecided);
        assert!(tally(&decided).contains("undecided"), "{}", tally(&decided));
        let means = decide(&pairs[..1], LESS, true);
        assert_eq!(verdict(&means), Verdict::Undecided);
    }

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
        let tripled = Relation::directional(true, 3.0);
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

    fn with_margin(statement: Statement, margin: f64) -> Relation {
        Relation {
            statement,
            factor: 1.0,
            offset: 0.0,
            margin,
        }
    }

    #[test]
    fn not_worse_is_a_non_inferiority_test_against_its_margin() {
        let orf = [0.100, 0.102, 0.098, 0.101, 0.099];
        let rff = [0.104, 0.106, 0.102, 0.105, 0.103];
        let worse = [0.200, 0.202, 0.198, 0.201, 0.199];
        let noisy = [0.05, 0.15, 0.10, 0.02, 0.18];
        let not_greater = with_margin(Statement::NotGreater, 0.01);
        // Slightly better, tightly measured: shown not worse by more than 0.01.
        let shown = decide(&[pair(&orf, &rff, None)], not_greater, false);
        assert_eq!(shown[0].verdict, PairVerdict::Holds, "{shown:?}");
        // Significantly worse: contradicted.
        let against = decide(&[pair(&worse, &rff, None)], not_greater, false);
        assert_eq!(against[0].verdict, PairVerdict::Against, "{against:?}");
        // Too noisy to show either: a tie, with a detectable effect larger than the margin.
        let tie = decide(&[pair(&noisy, &rff, None)], not_greater, false);
        assert_eq!(tie[0].verdict, PairVerdict::Tie, "{tie:?}");
        assert!(tie[0].detectable.unwrap() > 0.01, "{tie:?}");
        // The mirror statement on a higher-is-better metric.
        let not_less = with_margin(Statement::NotLess, 0.01);
        let mirrored = decide(&[pair(&rff, &orf, None)], not_less, false);
        assert_eq!(mirrored[0].verdict, PairVerdict::Holds, "{mirrored:?}");
    }

    #[test]
    fn similar_is_two_one_sided_tests() {
        let a = [0.100, 0.102, 0.098, 0.101, 0.099];
        let b = [0.101, 0.103, 0.099, 0.100, 0.100];
        let far = [0.150, 0.152, 0.148, 0.151, 0.149];
        let similar = with_margin(Statement::Similar, 0.01);
        let close = decide(&[pair(&a, &b, None)], similar, false);
        assert_eq!(close[0].verdict, PairVerdict::Holds, "{close:?}");
        let apart = decide(&[pair(&a, &far, None)], similar, false);
        assert_eq!(apart[0].verdict, PairVerdict::Against, "{apart:?}");
        // A margin too small for the spread to show: indistinguishable, not "similar".
        let tight = with_margin(Statement::Similar, 0.0001);
        let unknown = decide(&[pair(&a, &b, None)], tight, false);
        assert_eq!(unknown[0].verdict, PairVerdict::Tie, "{unknown:?}");
    }

    #[test]
    fn k_times_is_tested_on_the_log_ratio() {
        // Right is about 1.84 times left (tensor-sketch-table1's RM/TS training time): on the
        // log scale "left 8 times below right" does not hold, "below" does.
        let left: Vec<f64> = [1.00, 1.05, 0.95, 1.02, 0.98]
            .iter()
            .map(|v: &f64| v.ln())
            .collect();
        let right: Vec<f64> = [1.84, 1.90, 1.80, 1.86, 1.82]
            .iter()
            .map(|v: &f64| v.ln())
            .collect();
        let eight = Relation {
            statement: Statement::Less,
            factor: 1.0,
            offset: 8f64.ln(),
            margin: 0.0,
        };
        let decided = decide(&[pair(&left, &right, None)], eight, false);
        assert_eq!(decided[0].verdict, PairVerdict::Against, "{decided:?}");
        let faster = decide(&[pair(&left, &right, None)], LESS, false);
        assert_eq!(faster[0].verdict, PairVerdict::Holds, "{faster:?}");
    }
}
