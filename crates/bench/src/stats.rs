//! The tests that decide whether two sets of repetitions differ: Student's t on paired
//! differences (when both sides share a random draw per repetition), Welch's t otherwise, and
//! Holm's step-down correction over a family of such tests. One place for the claims, the
//! check and `rfbench compare`.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A t test's statistic, degrees of freedom, two-sided p value and the standard error of the
/// difference it tests (what the smallest detectable effect scales with).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TTest {
    pub t: f64,
    pub df: f64,
    pub p: f64,
    pub se: f64,
}

impl TTest {
    /// The one-sided p value of "the difference is positive".
    pub fn p_positive(&self) -> f64 {
        match self.t {
            t if t.is_nan() => 1.0,
            t if t > 0.0 => self.p / 2.0,
            _ => 1.0 - self.p / 2.0,
        }
    }

    /// The smallest true difference this test detects with probability `power` at one-sided
    /// level `alpha`: (t_{1-alpha} + t_{power}) times the standard error.
    pub fn detectable(&self, alpha: f64, power: f64) -> f64 {
        match StudentsT::new(0.0, 1.0, self.df) {
            Ok(dist) => (dist.inverse_cdf(1.0 - alpha) + dist.inverse_cdf(power)) * self.se,
            Err(_) => f64::NAN,
        }
    }
}

fn mean_var(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// Two-sided p of `t` under Student's t with `df` degrees of freedom; a zero spread (`t`
/// infinite or NaN) gives p = 0 when the means differ and 1 when they are equal. A NaN or
/// infinite value among the samples (the standard error is NaN) gives no p (NaN): it is no
/// evidence either way, where "the means differ" would have read as p = 0.
fn test(t: f64, df: f64, differ: bool, se: f64) -> TTest {
    if se.is_nan() {
        return TTest {
            t,
            df,
            p: f64::NAN,
            se,
        };
    }
    if !t.is_finite() {
        let p = if differ { 0.0 } else { 1.0 };
        return TTest { t, df, p, se };
    }
    let p = match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => 2.0 * (1.0 - dist.cdf(t.abs())),
        Err(_) => f64::NAN,
    };
    TTest { t, df, p, se }
}

/// The paired t test of differences `diffs` against 0; `None` for fewer than two.
pub fn paired(diffs: &[f64]) -> Option<TTest> {
    if diffs.len() < 2 {
        return None;
    }
    let n = diffs.len() as f64;
    let (mean, var) = mean_var(diffs);
    let se = (var / n).sqrt();
    Some(test(mean / se, n - 1.0, mean != 0.0, se))
}

/// Welch's unequal-variance t test of `a` against `b`; `None` when a side has fewer than two.
pub fn welch(a: &[f64], b: &[f64]) -> Option<TTest> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (m, n) = (a.len() as f64, b.len() as f64);
    let ((mean_a, var_a), (mean_b, var_b)) = (mean_var(a), mean_var(b));
    let (sa, sb) = (var_a / m, var_b / n);
    let se = (sa + sb).sqrt();
    let t = (mean_a - mean_b) / se;
    // Welch-Satterthwaite; with no spread at all the statistic is infinite or NaN anyway.
    let df = (sa + sb).powi(2) / (sa * sa / (m - 1.0) + sb * sb / (n - 1.0));
    Some(test(t, df, mean_a != mean_b, se))
}

/// Student's pooled-variance two-sample t test of `a` against `b`; `None` when a side has fewer
/// than two values.
pub fn pooled(a: &[f64], b: &[f64]) -> Option<TTest> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (m, n) = (a.len() as f64, b.len() as f64);
    let ((mean_a, var_a), (mean_b, var_b)) = (mean_var(a), mean_var(b));
    let df = m + n - 2.0;
    let sd = (((m - 1.0) * var_a + (n - 1.0) * var_b) / df).sqrt();
    let se = sd * (1.0 / m + 1.0 / n).sqrt();
    let t = (mean_a - mean_b) / se;
    Some(test(t, df, mean_a != mean_b, se))
}

/// The mean of `values` and its one-sided confidence bounds at level `1 - alpha` each (together
/// the two-sided `1 - 2 alpha` interval of a TOST equivalence test); `None` for fewer than two
/// values. Identical values give bounds equal to their mean.
pub fn bounds(values: &[f64], alpha: f64) -> Option<Bounds> {
    if values.len() < 2 {
        return None;
    }
    let n = values.len() as f64;
    let (mean, var) = mean_var(values);
    let quantile = StudentsT::new(0.0, 1.0, n - 1.0)
        .ok()?
        .inverse_cdf(1.0 - alpha);
    let half = quantile * (var / n).sqrt();
    Some(Bounds {
        mean,
        lower: mean - half,
        upper: mean + half,
    })
}

/// The half-width of the two-sided `level` Student-t confidence interval of a mean of `n` values
/// with sample standard deviation `sd` (n - 1 degrees of freedom); `None` for fewer than two
/// values, where there is no interval.
pub fn mean_interval_half_width(sd: f64, n: usize, level: f64) -> Option<f64> {
    if n < 2 {
        return None;
    }
    let quantile = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()?
        .inverse_cdf(0.5 + level / 2.0);
    Some(quantile * sd / (n as f64).sqrt())
}

/// A mean with its lower and upper one-sided confidence bounds ([`bounds`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub mean: f64,
    pub lower: f64,
    pub upper: f64,
}

/// Holm's step-down adjusted p values of a family (in the input's order): the k-th smallest
/// p times (m - k + 1), made monotone, capped at 1. Rejecting where adjusted p < alpha keeps
/// the family-wise error rate at alpha under any dependence between the tests.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        running = running.max(((m - k) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    #[test]
    fn mean_intervals_use_students_quantile_with_n_minus_one_degrees_of_freedom() {
        // t(0.975; 2) = 4.3027 and t(0.975; 4) = 2.7764 (any t table): three values with sd 1
        // give 4.3027 / sqrt(3), five give 2.7764 / sqrt(5).
        let three = super::mean_interval_half_width(1.0, 3, 0.95).unwrap();
        assert!((three - 4.302653 / 3f64.sqrt()).abs() < 1e-5, "{three}");
        let five = super::mean_interval_half_width(2.0, 5, 0.95).unwrap();
        assert!((five - 2.0 * 2.776445 / 5f64.sqrt()).abs() < 1e-5, "{five}");
        assert_eq!(super::mean_interval_half_width(1.0, 1, 0.95), None);
    }

    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn the_tests_agree_with_tabulated_values() {
        // Reference values computed apart (Python: the statistics by hand, p by Simpson's rule
        // on Student's density). Paired: differences 1, 2, 3, 4: t = 3.872983 on 3 df,
        // p = 0.030466.
        let t = paired(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(close(t.t, 3.872983, 1e-5) && t.df == 3.0, "{t:?}");
        assert!(close(t.p, 0.030466, 1e-5), "{t:?}");
        // Welch: [1, 2, 3] against [2, 4, 6, 8]: t = -2.121320 on 4.075472 df, p = 0.099913.
        let t = welch(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert!(close(t.t, -2.121320, 1e-5), "{t:?}");
        assert!(close(t.df, 4.075472, 1e-5), "{t:?}");
        assert!(close(t.p, 0.099913, 1e-5), "{t:?}");
        // Pooled: the same samples, t = -1.872563 on 5 df, p = 0.120018.
        let t = pooled(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert!(close(t.t, -1.872563, 1e-5) && t.df == 5.0, "{t:?}");
        assert!(close(t.p, 0.120018, 1e-5), "{t:?}");
    }

    #[test]
    fn degenerate_samples_are_decided_without_a_spread() {
        assert_eq!(paired(&[0.5, 0.5]).unwrap().p, 0.0);
        assert_eq!(paired(&[0.0, 0.0]).unwrap().p, 1.0);
        assert_eq!(welch(&[1.0, 1.0], &[1.0, 1.0]).unwrap().p, 1.0);
        assert_eq!(welch(&[1.0, 1.0], &[2.0, 2.0]).unwrap().p, 0.0);
        assert!(paired(&[1.0]).is_none() && welch(&[1.0], &[1.0, 2.0]).is_none());
    }

    #[test]
    fn one_sided_bounds_use_students_quantile() {
        // 1, 2, 3, 4: mean 2.5, sd 1.290994, t(0.95; 3 df) = 2.353363: half-width 1.519090.
        let b = bounds(&[1.0, 2.0, 3.0, 4.0], 0.05).unwrap();
        assert!(close(b.mean, 2.5, 1e-12), "{b:?}");
        assert!(
            close(b.lower, 0.980910, 1e-5) && close(b.upper, 4.019090, 1e-5),
            "{b:?}"
        );
        let flat = bounds(&[0.5, 0.5, 0.5], 0.05).unwrap();
        assert_eq!((flat.lower, flat.upper), (0.5, 0.5));
        assert!(bounds(&[1.0], 0.05).is_none());
    }

    /// A NaN or infinite value gives no p value, not p = 0 (issue 68 #8); a real zero spread
    /// still does.
    #[test]
    fn a_nan_value_gives_no_p_value() {
        for p in [
            super::welch(&[1.0, f64::NAN, 2.0], &[3.0, 4.0, 5.0])
                .unwrap()
                .p,
            super::pooled(&[1.0, 2.0], &[f64::INFINITY, 4.0]).unwrap().p,
            super::paired(&[f64::NAN, 1.0, 2.0]).unwrap().p,
        ] {
            assert!(p.is_nan(), "p = {p}");
        }
        assert_eq!(super::welch(&[1.0, 1.0], &[2.0, 2.0]).unwrap().p, 0.0);
    }

    #[test]
    fn holm_adjusts_step_down_and_stays_monotone() {
        // m = 4: sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.06, 0.06 (monotone), 0.5.
        let adjusted = holm(&[0.03, 0.5, 0.01, 0.02]);
        let expected = [0.06, 0.5, 0.04, 0.06];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!(close(*a, e, 1e-12), "{adjusted:?}");
        }
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }
}
