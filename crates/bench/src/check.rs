//! `rfbench check`: a regenerated result against the committed reference.
//!
//! For every cell and every checked metric, the two per-cell means over repetitions must agree
//! within `z` standard errors of their difference, `sqrt(se_ref^2 + se_new^2)`, each standard
//! error measured from that run's own spread over repetitions. The tolerance therefore comes from
//! the measured run-to-run variability, not from a number picked to pass: a cell whose estimates
//! scatter a lot gets a wide band, a stable cell a narrow one. With the same seeds the regenerated
//! numbers are identical and the check guards against code changes; with `--master-seed` it tests
//! that another draw of the randomness agrees statistically.

use std::path::Path;

use polars::prelude::DataFrame;

use crate::error::Result;
use crate::summary::{CellKey, Summary};

/// One comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRow {
    pub key: CellKey,
    pub column: String,
    pub reference: f64,
    pub regenerated: Option<f64>,
    pub tolerance: f64,
    pub pass: bool,
}

/// All comparisons of a check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    pub rows: Vec<CheckRow>,
}

impl CheckReport {
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|r| r.pass)
    }

    pub fn failures(&self) -> impl Iterator<Item = &CheckRow> {
        self.rows.iter().filter(|r| !r.pass)
    }
}

/// Compares `regenerated` with `reference` on `columns`, allowing `z` standard errors.
pub fn compare(
    reference: &DataFrame,
    reference_path: &Path,
    regenerated: &DataFrame,
    regenerated_path: &Path,
    columns: &[String],
    z: f64,
) -> Result<CheckReport> {
    let mut rows = Vec::new();
    for column in columns {
        let old = Summary::from_frame(reference, column, reference_path)?;
        let new = Summary::from_frame(regenerated, column, regenerated_path)?;
        for (key, r) in &old.cells {
            let row = match new.get(key) {
                Some(n) => {
                    let tolerance =
                        z * (r.standard_error().powi(2) + n.standard_error().powi(2)).sqrt();
                    let pass = (n.mean - r.mean).abs() <= tolerance;
                    CheckRow {
                        key: key.clone(),
                        column: column.clone(),
                        reference: r.mean,
                        regenerated: Some(n.mean),
                        tolerance,
                        pass,
                    }
                }
                None => CheckRow {
                    key: key.clone(),
                    column: column.clone(),
                    reference: r.mean,
                    regenerated: None,
                    tolerance: 0.0,
                    pass: false,
                },
            };
            rows.push(row);
        }
    }
    Ok(CheckReport { rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::*;

    fn frame(values: [f64; 6]) -> DataFrame {
        df!(
            "map" => ["ts", "ts", "ts", "rm", "rm", "rm"],
            "degree" => [2u32; 6],
            "offset" => [0.0; 6],
            "n_components" => [100u64; 6],
            "relative_error" => values,
        )
        .unwrap()
    }

    fn run(a: [f64; 6], b: [f64; 6]) -> CheckReport {
        let cols = vec!["relative_error".to_string()];
        compare(
            &frame(a),
            Path::new("ref.csv"),
            &frame(b),
            Path::new("new.csv"),
            &cols,
            4.0,
        )
        .unwrap()
    }

    #[test]
    fn identical_and_noisy_results_pass() {
        let base = [1.0, 1.2, 0.8, 5.0, 6.0, 4.0];
        assert!(run(base, base).passed());
        // Shifted by one standard error of the difference: passes at z = 4.
        assert!(run(base, [1.1, 1.3, 0.9, 5.5, 6.5, 4.5]).passed());
    }

    #[test]
    fn shifted_or_missing_results_fail() {
        let base = [1.0, 1.2, 0.8, 5.0, 6.0, 4.0];
        // se of each mean is 0.2/sqrt(3) = 0.115 (ts): tolerance 4 * 0.163 = 0.65; shift by 0.8.
        let report = run(base, [1.8, 2.0, 1.6, 5.0, 6.0, 4.0]);
        assert!(!report.passed());
        assert_eq!(report.failures().count(), 1);
        assert_eq!(report.failures().next().unwrap().key.map, "ts");
        let cols = vec!["relative_error".to_string()];
        let fewer = frame(base).head(Some(3));
        let report = compare(
            &frame(base),
            Path::new("r"),
            &fewer,
            Path::new("n"),
            &cols,
            4.0,
        )
        .unwrap();
        assert!(!report.passed() && report.failures().all(|r| r.regenerated.is_none()));
    }
}
