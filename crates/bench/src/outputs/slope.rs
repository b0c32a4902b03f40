//! A claim about growth (`slope = "COLUMN"` on a `[[claims]]` entry): "RM's time is quadratic in
//! d, TS's is not" is a statement about how the metric grows with a coordinate, which a test at
//! two values of it decides only between those two. Here each side's growth is the slope of the
//! least-squares line of `ln metric` on `ln COLUMN` over every row it selects (every value of the
//! column, every repetition): 1 for linear growth, 2 for quadratic. The sides' slopes are then
//! compared as a claim compares two cells: a two-sided t test of their difference (Welch's, each
//! slope's standard error from its own residuals, Satterthwaite's degrees of freedom), then the
//! sign, at the claims' level.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A least-squares slope of `ln y` on `ln x`, its standard error and how many points it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slope {
    pub slope: f64,
    pub se: f64,
    pub points: usize,
}

impl Slope {
    /// The slope of `ln y` on `ln x` over `points` (x, y); `None` when a value is not positive,
    /// when x takes one value, or for fewer than three points (no residual to estimate the
    /// error from).
    pub fn log_log(points: &[(f64, f64)]) -> Option<Slope> {
        if points.len() < 3 || points.iter().any(|&(x, y)| !(x > 0.0 && y > 0.0)) {
            return None;
        }
        let logs: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
        let n = logs.len() as f64;
        let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
        let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
        if sxx <= 0.0 {
            return None;
        }
        let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let slope = sxy / sxx;
        let residuals: f64 = logs
            .iter()
            .map(|p| (p.1 - my - slope * (p.0 - mx)).powi(2))
            .sum();
        Some(Slope {
            slope,
            se: (residuals / (n - 2.0) / sxx).sqrt(),
            points: logs.len(),
        })
    }

    /// The slope with its 95 % t interval: "1.06 [0.94, 1.18]".
    pub fn describe(&self) -> String {
        let half = StudentsT::new(0.0, 1.0, (self.points - 2) as f64)
            .map_or(f64::NAN, |t| t.inverse_cdf(0.975) * self.se);
        format!(
            "{} [{}, {}] (n = {})",
            super::number(self.slope),
            super::number(self.slope - half),
            super::number(self.slope + half),
            self.points
        )
    }
}

/// The two-sided p value of "`right.slope - left.slope` is not 0" (Welch: each side's own
/// error, Satterthwaite's degrees of freedom); 0 when both errors are 0 and the slopes differ.
pub fn p_value(left: &Slope, right: &Slope) -> f64 {
    let (a, b) = (left.se.powi(2), right.se.powi(2));
    let se = (a + b).sqrt();
    let difference = right.slope - left.slope;
    if se == 0.0 {
        return if difference == 0.0 { 1.0 } else { 0.0 };
    }
    let df = (a + b).powi(2)
        / (a.powi(2) / (left.points - 2) as f64 + b.powi(2) / (right.points - 2) as f64);
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |t| 2.0 * (1.0 - t.cdf((difference / se).abs())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y = 3 x^2 exactly: slope 2, no error; y = x with noise: near 1.
    #[test]
    fn the_slope_of_a_power_law_is_its_exponent() {
        let quadratic: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0]
            .iter()
            .map(|&x| (x, 3.0 * x * x))
            .collect();
        let fit = Slope::log_log(&quadratic).unwrap();
        assert!((fit.slope - 2.0).abs() < 1e-12 && fit.se < 1e-12, "{fit:?}");
        let noisy: Vec<(f64, f64)> =
            [(1.0, 1.1), (2.0, 1.9), (4.0, 4.2), (8.0, 7.7), (16.0, 16.5)].into();
        let linear = Slope::log_log(&noisy).unwrap();
        assert!((linear.slope - 1.0).abs() < 0.05, "{linear:?}");
        assert!(p_value(&linear, &fit) < 0.001);
        assert!(Slope::log_log(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]).is_none());
        assert!(Slope::log_log(&[(1.0, 1.0), (2.0, 0.0), (3.0, 3.0)]).is_none());
    }
}
