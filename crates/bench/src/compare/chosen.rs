//! What a tuning spec chose, read from its rows: the maps' bandwidth and penalty (the
//! tuning map's row), and the exact machine's own, chosen for itself, so that the reference every
//! "within X points" is measured against is as good as the data allows (a reference tuned for
//! the maps scored 1 to 3 points below one tuned for itself on four data sets, and once made
//! "no kernel is needed" the answer).

use std::collections::BTreeMap;

use super::setup::{Setup, EXACT_PENALTIES};
use super::tuned::Tuned;
use crate::error::{Error, Result};
use crate::results::{CellValue, ResultRow};
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::{ChosenBy, TunedColumns};

/// The penalty a search (`tune-maps`, `tune-last`) chose for `series` on its own features: the
/// geometric mean over its repetitions, the D it searched at, and a note for each choice at an
/// edge of the range searched; `None` when its rows did not run.
pub fn own_penalty(
    setup: &Setup,
    results: &[ResultRow],
    series: &str,
) -> Option<(f64, usize, Vec<String>)> {
    let columns = TunedColumns::new(setup.penalty, ChosenBy::Learner, true);
    let rows: Vec<&ResultRow> = results
        .iter()
        .filter(|r| super::series::series_name(r).as_deref() == Some(series))
        .collect();
    let penalty = geometric_mean(&rows, &columns.chosen).ok()?;
    let d = rows
        .iter()
        .find_map(|r| match r.coordinates.get(N_COMPONENTS.name) {
            Some(CellValue::Int(d)) => Some(*d as usize),
            _ => None,
        })?;
    let notes = rows
        .iter()
        .flat_map(|row| edges(row, series, &None, &columns))
        .collect();
    Some((penalty, d, notes))
}

/// What the tuning run chose, and what the report should warn about (a choice at an edge of
/// the values searched, where the best may lie beyond).
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    pub tuned: Tuned,
    pub warnings: Vec<String>,
}

/// Reads the tuning run's rows.
pub fn chosen(setup: &Setup, results: &[ResultRow]) -> Result<Chosen> {
    let mut warnings = Vec::new();
    let features = rows_of(results, setup.learner.name)?;
    let bandwidth = bandwidth_columns(setup);
    let sigma = match (&bandwidth, setup.sigmas.as_slice()) {
        (Some(columns), _) => Some(value(features[0], &columns.chosen)?),
        (None, [given]) => Some(*given),
        (None, _) => None,
    };
    let penalty_columns = TunedColumns::new(setup.penalty, ChosenBy::Learner, true);
    let penalty = value(features[0], &penalty_columns.chosen)?;
    warnings.extend(edges(
        features[0],
        setup.learner.name,
        &bandwidth,
        &penalty_columns,
    ));
    let exact = rows_of(results, setup.exact_learner.name)?;
    let (exact_sigma, exact_penalty) = if setup.exact_learner.tunes_penalty() {
        let columns = TunedColumns::new(setup.exact_penalty, ChosenBy::Learner, true);
        for row in &exact {
            warnings.extend(edges(row, setup.exact_learner.name, &bandwidth, &columns));
        }
        (
            own_bandwidth(&exact, &bandwidth, sigma)?,
            geometric_mean(&exact, &columns.chosen)?,
        )
    } else {
        let (best, rows) = best_penalty(setup, &exact, &EXACT_PENALTIES)?;
        if best == EXACT_PENALTIES[0] || best == EXACT_PENALTIES[EXACT_PENALTIES.len() - 1] {
            warnings.push(format!(
                "the exact machine's {} = {best:?} is at an edge of the values tried ({:?} to \
                 {:?}): its best may lie beyond",
                setup.exact_penalty,
                EXACT_PENALTIES[0],
                EXACT_PENALTIES[EXACT_PENALTIES.len() - 1]
            ));
        }
        let none = TunedColumns::new(setup.exact_penalty, ChosenBy::Learner, false);
        for row in &rows {
            warnings.extend(edges(row, setup.exact_learner.name, &bandwidth, &none));
        }
        (own_bandwidth(&rows, &bandwidth, sigma)?, best)
    };
    warnings.dedup();
    Ok(Chosen {
        tuned: Tuned::new(sigma, penalty, exact_sigma, exact_penalty),
        warnings,
    })
}

/// The kernel's bandwidth columns, when the tuning run searched it.
fn bandwidth_columns(setup: &Setup) -> Option<TunedColumns> {
    let param = setup.kernel.bandwidth_param()?;
    setup.median?;
    Some(TunedColumns::new(param.name, ChosenBy::Kernel, true))
}

/// The rows of `learner` that ran (an error naming the first that did not).
fn rows_of<'a>(results: &'a [ResultRow], learner: &str) -> Result<Vec<&'a ResultRow>> {
    let rows: Vec<&ResultRow> = results
        .iter()
        .filter(|r| r.coordinates.get("learner") == Some(&CellValue::Text(learner.into())))
        .collect();
    if rows.is_empty() {
        return Err(Error::Experiment(format!(
            "the tuning run has no {learner} row"
        )));
    }
    if let Some(reason) = rows.iter().find_map(|r| r.not_run()) {
        return Err(Error::Experiment(format!(
            "the tuning run's {learner} did not run: {reason}"
        )));
    }
    Ok(rows)
}

fn value(row: &ResultRow, column: &str) -> Result<f64> {
    row.metric(column)
        .filter(|v| v.is_finite())
        .ok_or_else(|| Error::Experiment(format!("the tuning run wrote no {column}")))
}

/// The geometric mean of `column` over `rows`: a bandwidth or a penalty is a scale, chosen in
/// each repetition on its own split.
fn geometric_mean(rows: &[&ResultRow], column: &str) -> Result<f64> {
    let logs = rows
        .iter()
        .map(|r| value(r, column).map(f64::ln))
        .collect::<Result<Vec<f64>>>()?;
    Ok((logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The exact machine's own bandwidth, from its rows; the maps' (given or absent) when none was
/// searched.
fn own_bandwidth(
    rows: &[&ResultRow],
    bandwidth: &Option<TunedColumns>,
    maps: Option<f64>,
) -> Result<Option<f64>> {
    match bandwidth {
        Some(columns) => geometric_mean(rows, &columns.chosen).map(Some),
        None => Ok(maps),
    }
}

/// What a search of the exact machine's penalty past the top of [`EXACT_PENALTIES`] chose
/// (`tune-edge`'s rows, `values` its values, the top included): its penalty and bandwidth.
pub fn past_the_edge(
    setup: &Setup,
    results: &[ResultRow],
    values: &[f64],
    maps_sigma: Option<f64>,
) -> Result<(f64, Option<f64>)> {
    let exact = rows_of(results, setup.exact_learner.name)?;
    let (best, rows) = best_penalty(setup, &exact, values)?;
    let sigma = own_bandwidth(&rows, &bandwidth_columns(setup), maps_sigma)?;
    Ok((best, sigma))
}

/// The penalty value of `values` with the best mean score on the held-out rows over the
/// repetitions (ties to the first, the smaller cost), and its rows.
fn best_penalty<'a>(
    setup: &Setup,
    rows: &[&'a ResultRow],
    values: &[f64],
) -> Result<(f64, Vec<&'a ResultRow>)> {
    let metric = setup.task_kind().score_metric();
    let sign = if setup.classification() { 1.0 } else { -1.0 };
    let mut by_value: BTreeMap<usize, Vec<&ResultRow>> = BTreeMap::new();
    for row in rows {
        let Some(CellValue::Float(v)) = row.coordinates.get(setup.exact_penalty) else {
            continue;
        };
        if let Some(i) = values.iter().position(|p| p == v) {
            by_value.entry(i).or_default().push(*row);
        }
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, group) in &by_value {
        let scores = group
            .iter()
            .map(|r| value(r, metric))
            .collect::<Result<Vec<f64>>>()?;
        let mean = sign * scores.iter().sum::<f64>() / scores.len() as f64;
        if best.is_none_or(|(_, b)| mean > b) {
            best = Some((*i, mean));
        }
    }
    let (i, _) = best.ok_or_else(|| {
        Error::Experiment(format!(
            "the tuning run has no {} row with one of the exact machine's {} values",
            setup.exact_learner.name, setup.exact_penalty
        ))
    })?;
    Ok((values[i], by_value.remove(&i).unwrap_or_default()))
}

/// A warning for each tuned value of `row` chosen at an edge of the range searched.
fn edges(
    row: &ResultRow,
    learner: &str,
    bandwidth: &Option<TunedColumns>,
    penalty: &TunedColumns,
) -> Vec<String> {
    let mut out = Vec::new();
    for columns in bandwidth.iter().chain([penalty]) {
        let Some(at_edge) = &columns.at_edge else {
            continue;
        };
        if row.metric(at_edge) == Some(1.0) {
            out.push(format!(
                "{} = {} (with {learner}) was chosen at an edge of the range searched: its best \
                 may lie beyond",
                columns.param,
                row.metric(&columns.chosen).unwrap_or(f64::NAN)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::setup;
    use crate::results::{CellOutcome, MetricsBuilder};
    use rfbench_data::Task;

    /// A row of `learner` with `coordinates` and `metrics` (every name declared).
    fn row(
        learner: &str,
        rep: usize,
        coordinates: &[(&str, f64)],
        metrics: &[(&str, f64)],
    ) -> ResultRow {
        let declared: Vec<String> = metrics.iter().map(|(n, _)| n.to_string()).collect();
        let mut builder = MetricsBuilder::new(&declared);
        builder.extend(metrics.iter().copied()).unwrap();
        let mut coords = BTreeMap::from([("learner".to_string(), CellValue::Text(learner.into()))]);
        for (name, v) in coordinates {
            coords.insert(name.to_string(), CellValue::Float(*v));
        }
        ResultRow {
            coordinates: coords,
            repetition: rep,
            seeds: Vec::new(),
            outcome: CellOutcome::Done(builder.finish()),
        }
    }

    fn names(s: &Setup) -> (String, String, String, String) {
        let bandwidth = s.kernel.bandwidth_param().unwrap().name;
        let sigma = TunedColumns::new(bandwidth, ChosenBy::Kernel, true);
        let penalty = TunedColumns::new(s.penalty, ChosenBy::Learner, true);
        (
            sigma.chosen,
            sigma.at_edge.unwrap(),
            penalty.chosen,
            penalty.at_edge.unwrap(),
        )
    }

    /// The tuning map's row: sigma 1, the penalty 4, neither at an edge.
    fn features_row(s: &Setup) -> ResultRow {
        let (sigma, sigma_edge, penalty, penalty_edge) = names(s);
        let metrics = [
            (sigma.as_str(), 1.0),
            (sigma_edge.as_str(), 0.0),
            (penalty.as_str(), 4.0),
            (penalty_edge.as_str(), 0.0),
        ];
        row(s.learner.name, 0, &[], &metrics)
    }

    /// The exact SVM's rows: each C of [`EXACT_PENALTIES`] at two repetitions, scored by
    /// `score(C, rep)`, its bandwidth `sigma(C, rep)`.
    fn svm_rows(
        s: &Setup,
        score: impl Fn(f64, usize) -> f64,
        sigma: impl Fn(f64, usize) -> f64,
    ) -> Vec<ResultRow> {
        let (sigma_used, sigma_edge, ..) = names(s);
        let metric = s.task_kind().score_metric();
        let mut rows = Vec::new();
        for c in EXACT_PENALTIES {
            for rep in 0..2 {
                let metrics = [
                    (metric, score(c, rep)),
                    (sigma_used.as_str(), sigma(c, rep)),
                    (sigma_edge.as_str(), 0.0),
                ];
                rows.push(row(
                    s.exact_learner.name,
                    rep,
                    &[(s.exact_penalty, c)],
                    &metrics,
                ));
            }
        }
        rows
    }

    /// The kernel SVM cannot cross-validate its C: the C with the best mean held-out score over
    /// the two splits is taken, with the geometric mean of the bandwidths its cells chose.
    #[test]
    fn the_exact_svm_takes_the_c_that_scores_best_and_its_own_bandwidth() {
        let s = setup("gaussian", Task::Binary, None);
        assert!(!s.exact_learner.tunes_penalty());
        // Best at C = 8 on average (90 and 86: 88), though C = 32 wins one split (89 and 85).
        let score = |c: f64, rep: usize| match (c, rep) {
            (8.0, 0) => 90.0,
            (8.0, _) => 86.0,
            (32.0, 0) => 85.0,
            (32.0, _) => 89.0,
            _ => 70.0,
        };
        let sigma = |c: f64, rep: usize| if c == 8.0 { [2.0, 8.0][rep] } else { 1.0 };
        let mut rows = vec![features_row(&s)];
        rows.extend(svm_rows(&s, score, sigma));
        let got = chosen(&s, &rows).unwrap();
        assert_eq!(got.tuned, Tuned::new(Some(1.0), 4.0, Some(4.0), 8.0));
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
    }

    /// A tie goes to the smaller C; a best C at the end of the values tried is a warning.
    #[test]
    fn a_tie_goes_to_the_smaller_c_and_an_edge_is_said() {
        let s = setup("gaussian", Task::Binary, None);
        let mut rows = vec![features_row(&s)];
        rows.extend(svm_rows(
            &s,
            |c, _| if c >= 512.0 { 95.0 } else { 90.0 },
            |_, _| 2.0,
        ));
        let got = chosen(&s, &rows).unwrap();
        assert_eq!(got.tuned.exact_penalty, 512.0);
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
        let mut rows = vec![features_row(&s)];
        rows.extend(svm_rows(&s, |c, _| c.log2(), |_, _| 2.0));
        let got = chosen(&s, &rows).unwrap();
        assert_eq!(got.tuned.exact_penalty, 2048.0);
        assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
        assert!(got.warnings[0].contains("at an edge of the values tried (0.125 to 2048.0)"));
    }

    /// Kernel ridge cross-validates its own lambda (and bandwidth) in each repetition: the
    /// geometric means are taken, and a choice at an edge of its range is a warning.
    #[test]
    fn an_exact_machine_that_cross_validates_takes_the_geometric_means() {
        let s = setup("gaussian", Task::Regression, None);
        assert!(s.exact_learner.tunes_penalty());
        let (sigma, sigma_edge, ..) = names(&s);
        let lambda = TunedColumns::new(s.exact_penalty, ChosenBy::Learner, true);
        let lambda_edge = lambda.at_edge.clone().unwrap();
        let metric = s.task_kind().score_metric();
        let exact = |rep: usize, sigma_v: f64, lambda_v: f64, edge: f64| {
            let metrics = [
                (metric, 0.5),
                (sigma.as_str(), sigma_v),
                (sigma_edge.as_str(), 0.0),
                (lambda.chosen.as_str(), lambda_v),
                (lambda_edge.as_str(), edge),
            ];
            row(s.exact_learner.name, rep, &[], &metrics)
        };
        let rows = [
            features_row(&s),
            exact(0, 0.5, 0.01, 0.0),
            exact(1, 2.0, 1.0, 1.0),
        ];
        let got = chosen(&s, &rows).unwrap();
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
        assert!(close(got.tuned.exact_sigma, 1.0), "{:?}", got.tuned);
        assert!(close(Some(got.tuned.exact_penalty), 0.1), "{:?}", got.tuned);
        assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
        assert!(got.warnings[0].starts_with(&format!(
            "{} = 1 (with {})",
            s.exact_penalty, s.exact_learner.name
        )));
    }

    /// An exact row that did not run is an error naming the learner, not a reference tuned on
    /// what was left.
    #[test]
    fn an_exact_row_that_did_not_run_is_an_error() {
        let s = setup("gaussian", Task::Binary, None);
        let mut rows = vec![features_row(&s)];
        rows.extend(svm_rows(&s, |_, _| 90.0, |_, _| 2.0));
        rows[3].outcome = CellOutcome::Failed("out of memory".into());
        let err = chosen(&s, &rows).unwrap_err().to_string();
        assert!(
            err.contains(s.exact_learner.name) && err.contains("out of memory"),
            "{err}"
        );
        let err = chosen(&s, &rows[..1]).unwrap_err().to_string();
        assert!(
            err.contains(&format!("no {} row", s.exact_learner.name)),
            "{err}"
        );
    }
}
