//! `rfbench check`: a regenerated result against the committed reference, in one of two modes.
//!
//! **Same master seed** (the reference's `master_seed` column equals the run's): every number is
//! determined by the code, so the comparison is exact. Every reference row (cell and repetition)
//! must be regenerated, no row may be added, the status must agree, and every checked metric must
//! agree to `rtol` (relative; the default 0 means bit for bit). A hand edit of one value, a
//! deleted cell or a changed seed derivation all fail.
//!
//! **Another master seed**: the numbers are a new draw, so the comparison is a statistical test
//! per cell and metric, with a stated false-alarm probability `alpha` (default 1 %) for the whole
//! file: Student's two-sample t test, `t = (mean(r) - mean(x)) / (s sqrt(1/m + 1/n))` with the
//! pooled spread `s` of the reference's `m` and the rerun's `n` repetitions, `m + n - 2` degrees
//! of freedom (t quantiles, not normal ones: with 3 repetitions a normal quantile would alarm far
//! too often). Each of the `K` comparisons fails when its two-sided p-value is below `alpha / K`
//! (Bonferroni), so a correct rerun fails anywhere with probability at most `alpha` (for normal
//! repetitions; measured on tensor-sketch-fig1, see `scripts/studies/false_alarm.sh`).
//!
//! Only the metrics of `[check] statistical` (default: all of `columns`) are tested this way: a
//! metric whose repetitions take few distinct values (tensor-sketch-fig1's median relative error
//! sits on a lattice such as 1/16 or 3/49, so three repetitions are often identical) has no
//! spread to speak of, and the t test's model fails for it; it stays in the exact comparison.
//!
//! Why the pooled spread: a first version used the rerun's spread alone, so that a wrong
//! reference value could not widen its own band; with 3 repetitions that spread is itself so
//! uncertain (2 degrees of freedom) that heavy-tailed cells (Tensor Sketch's per-repetition
//! error, where one unlucky sketch moves every pair) alarmed in 1 of the first 17 reruns of
//! tensor-sketch-fig1's quick profile. A wrong reference value is what the same-seed comparison
//! catches, exactly; this mode asks whether another draw agrees with a verified reference.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::outputs::claims_file;
use crate::spec::Plan;
use crate::stats;

/// How the two files were compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    SameSeed {
        rtol: f64,
    },
    OtherSeed {
        false_alarm: f64,
        comparisons: usize,
        /// Cell metrics left untested: one repetition on each side (no spread to test).
        single_run: usize,
    },
}

/// One failed comparison, or a structural problem (a missing or extra row).
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The cell (`column=value` pairs), with `rep=R` in the same-seed mode.
    pub cell: String,
    /// The metric, or "row" for a structural problem.
    pub column: String,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    pub mode: Mode,
    /// Comparisons made (metric values or cell means).
    pub compared: usize,
    pub failures: Vec<Failure>,
}

impl CheckReport {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// What failed, counted apart: values against the comparisons made, and the problems with
    /// whole rows (missing, added, another status; nothing compared), which are no comparison.
    pub fn failure_summary(&self) -> String {
        let rows = self
            .failures
            .iter()
            .filter(|f| f.column == "row" || f.cell == "every cell")
            .count();
        let values = self.failures.len() - rows;
        let mut parts = Vec::new();
        if values > 0 || rows == 0 {
            parts.push(format!("{values} of {} comparisons failed", self.compared));
        }
        if rows > 0 {
            parts.push(format!(
                "{rows} row problem(s) (a row missing or added, another status, nothing compared)"
            ));
        }
        parts.join("; ")
    }
}

type Rows = (Vec<String>, Vec<Vec<String>>);

fn index_of(header: &[String], name: &str, path: &Path) -> Result<usize> {
    header
        .iter()
        .position(|h| h == name)
        .ok_or_else(|| Error::Results {
            path: path.to_path_buf(),
            message: format!("missing column {name:?}"),
        })
}

fn value(text: &str) -> Option<f64> {
    if text.is_empty() {
        None
    } else {
        text.parse().ok()
    }
}

/// Rows by cell key (coordinates) and repetition.
struct Keyed {
    rows: BTreeMap<(String, usize), Vec<String>>,
    status: usize,
    columns: BTreeMap<String, usize>,
    seeds: BTreeMap<String, usize>,
    master_seed: Option<u64>,
}

fn keyed(data: &Rows, plan: &Plan, path: &Path) -> Result<Keyed> {
    let (header, rows) = data;
    let coords: Vec<usize> = plan
        .columns
        .iter()
        .map(|c| index_of(header, c, path))
        .collect::<Result<_>>()?;
    let rep = index_of(header, "repetition", path)?;
    let status = index_of(header, "status", path)?;
    let mut columns = BTreeMap::new();
    for c in &plan.check_columns {
        columns.insert(c.clone(), index_of(header, c, path)?);
    }
    // The seed columns: a row is documented as re-runnable from them, so they must agree too.
    let mut seeds = BTreeMap::new();
    for s in &plan.seeds {
        let name = s.spec.column;
        if let Some(k) = header.iter().position(|h| h == name) {
            seeds.insert(name.to_string(), k);
        }
    }
    let seed_col = header.iter().position(|h| h == "master_seed");
    let mut master_seed = None;
    let mut out = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        let key: Vec<String> = plan
            .columns
            .iter()
            .zip(&coords)
            .map(|(c, &k)| format!("{c}={}", row[k]))
            .collect();
        let repetition: usize = row[rep].parse().map_err(|_| Error::Results {
            path: path.to_path_buf(),
            message: format!("row {}: repetition {:?} is not a number", i + 2, row[rep]),
        })?;
        // One file is one run: every row has its master seed, which decides the check's mode.
        if let Some(s) = seed_col {
            let seed: u64 = row[s].parse().map_err(|_| Error::Results {
                path: path.to_path_buf(),
                message: format!("row {}: master_seed {:?} is not a seed", i + 2, row[s]),
            })?;
            if master_seed.is_some_and(|m| m != seed) {
                return Err(Error::Results {
                    path: path.to_path_buf(),
                    message: format!(
                        "row {}: master_seed {seed}, the rows above {}: a results file holds \
                         one run, under one master seed",
                        i + 2,
                        master_seed.unwrap_or_default()
                    ),
                });
            }
            master_seed = Some(seed);
        }
        if out
            .insert((key.join(", "), repetition), row.clone())
            .is_some()
        {
            return Err(Error::Results {
                path: path.to_path_buf(),
                message: format!("row {}: the same cell and repetition twice", i + 2),
            });
        }
    }
    Ok(Keyed {
        rows: out,
        status,
        columns,
        seeds,
        master_seed,
    })
}

/// Compares `regenerated` with `reference` under the plan's check settings; the mode follows
/// from the two files' master seeds (a reference without the column is taken to use the spec's).
/// Refuses a reference file `compare` would refuse whatever the regenerated one holds (a
/// column of the plan missing, a repetition or master seed that is not a number, two master
/// seeds): checked before the run is regenerated, which may take hours.
pub fn check_reference(plan: &Plan, reference: &Rows, path: &Path) -> Result<()> {
    keyed(reference, plan, path).map(|_| ())
}

pub fn compare(
    plan: &Plan,
    reference: &Rows,
    reference_path: &Path,
    regenerated: &Rows,
    regenerated_path: &Path,
) -> Result<CheckReport> {
    let r = keyed(reference, plan, reference_path)?;
    let g = keyed(regenerated, plan, regenerated_path)?;
    let mut failures = Vec::new();
    let structural = |failures: &mut Vec<Failure>, cell: &str, detail: String| {
        failures.push(Failure {
            cell: cell.to_string(),
            column: "row".into(),
            detail,
        })
    };
    for (key, row) in &r.rows {
        let cell = format!("{}, rep={}", key.0, key.1);
        match g.rows.get(key) {
            None => structural(
                &mut failures,
                &cell,
                "in the reference, not regenerated".into(),
            ),
            Some(new) if new[g.status] != row[r.status] => structural(
                &mut failures,
                &cell,
                format!(
                    "status {:?} in the reference, {:?} regenerated",
                    row[r.status], new[g.status]
                ),
            ),
            Some(_) => {}
        }
    }
    for key in g.rows.keys() {
        if !r.rows.contains_key(key) {
            structural(
                &mut failures,
                &format!("{}, rep={}", key.0, key.1),
                "regenerated, not in the reference".into(),
            );
        }
    }
    let same_seed =
        r.master_seed.unwrap_or(plan.master_seed) == g.master_seed.unwrap_or(plan.master_seed);
    if same_seed {
        return Ok(same_seed_report(plan, &r, &g, failures));
    }

    // Other seed: per cell (all repetitions) and metric.
    type Samples = BTreeMap<(String, String), (Vec<f64>, Vec<f64>)>;
    let mut samples: Samples = BTreeMap::new();
    for (source, keyed) in [(0, &r), (1, &g)] {
        for ((cell, _), row) in &keyed.rows {
            if row[keyed.status] != "ok" {
                continue;
            }
            for (column, &i) in &keyed.columns {
                if !plan.check_statistical.contains(column) {
                    continue;
                }
                if let Some(v) = value(&row[i]) {
                    let entry = samples.entry((cell.clone(), column.clone())).or_default();
                    if source == 0 {
                        entry.0.push(v);
                    } else {
                        entry.1.push(v);
                    }
                }
            }
        }
    }
    // A cell run once (`repetitions = 1` of an exact method) has no spread to test against: it
    // is counted, not tested; its same-seed comparison is exact.
    let before = samples.len();
    samples.retain(|_, (reference, rerun)| reference.len() > 1 || rerun.len() > 1);
    let single_run = before - samples.len();
    let alpha = plan.check_false_alarm;
    let comparisons = samples.len().max(1);
    let per_test = alpha / comparisons as f64;
    for ((cell, column), (reference, rerun)) in &samples {
        if let Some(detail) = two_sample_failure(reference, rerun, per_test) {
            failures.push(Failure {
                cell: cell.clone(),
                column: column.clone(),
                detail,
            });
        }
    }
    Ok(CheckReport {
        mode: Mode::OtherSeed {
            false_alarm: alpha,
            comparisons,
            single_run,
        },
        compared: samples.len(),
        failures,
    })
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// The same-seed comparison: every check column within rtol, every seed column exactly, and at
/// least one value compared.
fn same_seed_report(plan: &Plan, r: &Keyed, g: &Keyed, mut failures: Vec<Failure>) -> CheckReport {
    let rtol = plan.check_rtol;
    let mut compared = 0;
    let mut with_values = 0;
    for (key, row) in &r.rows {
        let Some(new) = g.rows.get(key) else { continue };
        for (column, &ri) in &r.seeds {
            let Some(&gi) = g.seeds.get(column) else {
                continue;
            };
            compared += 1;
            if row[ri] != new[gi] {
                failures.push(Failure {
                    cell: format!("{}, rep={}", key.0, key.1),
                    column: column.clone(),
                    detail: format!("reference seed {:?}, regenerated {:?}", row[ri], new[gi]),
                });
            }
        }
        for (column, &ri) in &r.columns {
            let gi = g.columns[column];
            compared += 1;
            let (a, b) = (value(&row[ri]), value(&new[gi]));
            with_values += usize::from(a.is_some() || b.is_some());
            let equal = match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) if a.is_nan() && b.is_nan() => true,
                (Some(a), Some(b)) => a == b || (a - b).abs() <= rtol * a.abs().max(b.abs()),
                _ => false,
            };
            if !equal {
                failures.push(Failure {
                    cell: format!("{}, rep={}", key.0, key.1),
                    column: column.clone(),
                    detail: format!(
                        "reference {:?}, regenerated {:?} (rtol {rtol})",
                        row[ri], new[gi]
                    ),
                });
            }
        }
    }
    if with_values == 0 {
        // A reference of skipped cells (its data was missing) proves nothing.
        failures.push(Failure {
            cell: "every cell".into(),
            column: plan.check_columns.join(", "),
            detail: "nothing compared: every value is empty in both files (skipped cells?)".into(),
        });
    }
    CheckReport {
        mode: Mode::SameSeed { rtol },
        compared,
        failures,
    }
}

/// The test of the module doc at level `per_test`; `Some(why)` when it rejects.
pub fn two_sample_failure(reference: &[f64], rerun: &[f64], per_test: f64) -> Option<String> {
    let (m, n) = (reference.len(), rerun.len());
    let Some(test) = stats::pooled(reference, rerun) else {
        return Some(format!(
            "{m} reference and {n} regenerated values: at least 2 each are needed"
        ));
    };
    let (mean_r, sd_r) = mean_sd(reference);
    let (mean_x, sd_x) = mean_sd(rerun);
    if !test.t.is_finite() {
        // A metric without spread (a count that does not depend on the seed) must agree.
        let close = (mean_r - mean_x).abs() <= 1e-12 * mean_r.abs().max(mean_x.abs());
        return (!close).then(|| format!("no spread and means differ: {mean_r} vs {mean_x}"));
    }
    let (t, p) = (test.t, test.p);
    (p < per_test).then(|| {
        format!(
            "reference mean {mean_r:.6} ± {sd_r:.6} (n = {m}), regenerated {mean_x:.6} ± {sd_x:.6} (n = {n}): t = {t:.2}, p = {p:.2e} < {per_test:.2e}"
        )
    })
}

/// The same-seed comparison of the claims files (`results/SPEC/PROFILE.claims.md`): every claim on a
/// checked metric must read the same in both (verdict, tally, every pair); claims on other
/// metrics (times) are only required to be there. Adds its comparisons and failures to `report`.
pub fn claims_files(
    plan: &Plan,
    reference: &Path,
    regenerated: &Path,
    report: &mut CheckReport,
) -> Result<()> {
    let read = |path: &Path| -> Result<Option<String>> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(path, e)),
        }
    };
    let mut fail = |cell: String, detail: String| {
        report.failures.push(Failure {
            cell,
            column: "claims".into(),
            detail,
        })
    };
    let (old, new) = match (read(reference)?, read(regenerated)?) {
        (None, None) => return Ok(()),
        (Some(old), Some(new)) => (old, new),
        (None, Some(_)) => {
            fail(
                reference.display().to_string(),
                "no committed claims file; `rfbench render` writes it".into(),
            );
            return Ok(());
        }
        (Some(_), None) => {
            fail(
                reference.display().to_string(),
                "committed, but the run has no claims".into(),
            );
            return Ok(());
        }
    };
    let old = claims_file::sections(&old);
    let new = claims_file::sections(&new);
    for (heading, metric, text) in &new {
        let Some((_, _, committed)) = old.iter().find(|(h, _, _)| h == heading) else {
            fail(heading.clone(), "not in the committed claims file".into());
            continue;
        };
        if !plan.check_columns.contains(metric) {
            continue;
        }
        report.compared += 1;
        if let Some((a, b)) = committed.lines().zip(text.lines()).find(|(a, b)| a != b) {
            fail(
                heading.clone(),
                format!("committed {a:?}, regenerated {b:?}"),
            );
        } else if committed.lines().count() != text.lines().count() {
            fail(heading.clone(), "a different number of pairs".into());
        }
    }
    for (heading, _, _) in &old {
        if !new.iter().any(|(h, _, _)| h == heading) {
            fail(heading.clone(), "committed, not regenerated".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Failed values are counted against the comparisons made; row problems apart (issue 24:
    /// "324 failure(s) in 216 comparisons").
    #[test]
    fn the_summary_counts_values_and_rows_apart() {
        use super::{CheckReport, Failure, Mode};
        let failure = |column: &str| Failure {
            cell: "map=rff, rep=0".into(),
            column: column.into(),
            detail: String::new(),
        };
        let report = CheckReport {
            mode: Mode::SameSeed { rtol: 0.0 },
            compared: 4,
            failures: vec![failure("row"), failure("row"), failure("relative_error")],
        };
        assert_eq!(
            report.failure_summary(),
            "1 of 4 comparisons failed; 2 row problem(s) (a row missing or added, another \
             status, nothing compared)"
        );
        let rows_only = CheckReport {
            failures: vec![failure("row")],
            ..report.clone()
        };
        assert!(rows_only.failure_summary().starts_with("1 row problem(s)"));
    }

    use super::*;

    #[test]
    fn the_statistical_test_rejects_what_it_should() {
        // Both samples have sd 0.790569 (so the pooled one too), 5 + 5 values: Student t with 8
        // degrees of freedom, P(|T| > 3.355) = 0.01.
        let rerun = [0.0, 1.0, -1.0, 0.5, -0.5];
        let se = 0.790569 * (1.0f64 / 5.0 + 1.0 / 5.0).sqrt();
        let shifted = |d: f64| rerun.map(|v| v + d * se);
        assert!(two_sample_failure(&shifted(3.3), &rerun, 0.01).is_none());
        assert!(two_sample_failure(&shifted(3.4), &rerun, 0.01).is_some());
        // No spread: exact agreement required.
        assert!(two_sample_failure(&[3.0, 3.0], &[3.0, 3.0], 0.01).is_none());
        assert!(two_sample_failure(&[3.0, 3.0], &[4.0, 4.0], 0.01).is_some());
        assert!(
            two_sample_failure(&[3.0], &[3.0, 3.0], 0.01).is_some(),
            "one value is no sample"
        );
    }

    /// The false-alarm rate of the whole procedure under the null, by simulation: 20 cells x 2
    /// metrics of 3 normal repetitions each, alpha = 0.05; Bonferroni keeps the file-wide rate
    /// at or below alpha (here it is about alpha / 2 or less; 2,000 files, so 5 binomial
    /// standard deviations above 0.05 is 0.075).
    #[test]
    fn file_wide_false_alarm_rate_is_below_alpha() {
        use rand::SeedableRng;
        use rand_chacha::ChaCha8Rng;
        use rand_distr::{Distribution, Normal};
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let normal = Normal::new(1.0, 0.3).unwrap();
        let (files, tests, alpha) = (2000, 40, 0.05);
        let mut alarms = 0;
        for _ in 0..files {
            let failed = (0..tests).any(|_| {
                let a: Vec<f64> = (0..3).map(|_| normal.sample(&mut rng)).collect();
                let b: Vec<f64> = (0..3).map(|_| normal.sample(&mut rng)).collect();
                two_sample_failure(&a, &b, alpha / tests as f64).is_some()
            });
            alarms += usize::from(failed);
        }
        let rate = alarms as f64 / files as f64;
        assert!(rate <= 0.075, "false-alarm rate {rate}");
        assert!(rate > 0.005, "a test that never rejects is no test: {rate}");
    }
}
