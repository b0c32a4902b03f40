//! A results CSV read back as typed rows ([`crate::results::ResultRow`]) and summarised per
//! cell. The file is read by the one reader ([`crate::results::read_records`]) as text, and every
//! field parsed here with one rule per column type: coordinates by [`CellValue::parse`] (they
//! mix numbers, names and empty cells, "not applicable to this row"), metrics as f64.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::results::{read_records, CellOutcome, Metrics};
pub use crate::results::{CellValue, Coordinates, ResultRow};

/// Which columns of a results CSV are a cell's coordinates and which are its metrics, in CSV
/// order. `dataset` is a coordinate like any other grid axis.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    pub coordinates: Vec<String>,
    pub metrics: Vec<String>,
    /// The seed columns, read when the file has them: two cells whose rows share a seed value
    /// at each repetition shared that random draw, and their claims are tested paired.
    pub seeds: Vec<String>,
}

impl Columns {
    pub fn is_coordinate(&self, name: &str) -> bool {
        self.coordinates.iter().any(|c| c == name)
    }

    pub fn is_metric(&self, name: &str) -> bool {
        self.metrics.iter().any(|c| c == name)
    }
}

/// A results CSV, read back.
#[derive(Debug, Clone)]
pub struct Results {
    pub path: PathBuf,
    pub columns: Columns,
    pub rows: Vec<ResultRow>,
}

/// Mean, sample standard deviation, count, minimum and maximum of a metric over repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub mean: f64,
    /// NaN for a single repetition.
    pub sd: f64,
    pub count: usize,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    /// `None` for no values.
    pub fn of(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        let count = values.len();
        let mean = values.iter().sum::<f64>() / count as f64;
        let sd = if count > 1 {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (count - 1) as f64).sqrt()
        } else {
            f64::NAN
        };
        Some(Stats {
            mean,
            sd,
            count,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// Standard error of the mean.
    pub fn se(&self) -> f64 {
        self.sd / (self.count as f64).sqrt()
    }
}

/// Repetitions of a cell that did not run, and why (distinct reasons joined by "; ").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub reason: String,
    pub repetitions: usize,
}

/// One repetition's value of a metric, with the seeds its row was drawn with.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub repetition: usize,
    pub value: f64,
    pub seeds: Vec<(String, u64)>,
}

/// One cell (all coordinates, every repetition) and one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct CellStats {
    pub coordinates: Coordinates,
    /// Over the rows that ran and have a value; `None` if there are none.
    pub stats: Option<Stats>,
    pub skipped: Option<Skipped>,
    /// The values behind `stats`, in the file's order.
    pub samples: Vec<Sample>,
}

fn results_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Results {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The metrics of a row that ran: every non-empty field of `columns.metrics`, as a number.
fn read_metrics(
    record: &[String],
    columns: &Columns,
    index: &BTreeMap<&str, usize>,
    line: usize,
    path: &Path,
) -> Result<Metrics> {
    let mut values = BTreeMap::new();
    for name in &columns.metrics {
        let field = record[index[name.as_str()]].trim();
        if field.is_empty() {
            continue;
        }
        let value = field.parse::<f64>().map_err(|_| {
            results_error(
                path,
                format!("line {line}: metric {name:?}: {field:?} is not a number"),
            )
        })?;
        values.insert(name.clone(), value);
    }
    Ok(Metrics::read(values))
}

impl Results {
    /// Reads a results CSV written by the runner. Every column of `columns`, and `repetition`, must
    /// be present (the error names the first missing one). `status` ("ok" / "skipped" / "failed"),
    /// `skip_reason` and the seed columns `seeds` are read when present; without `status` every
    /// row counts as having run.
    pub fn from_csv(path: &Path, columns: &Columns) -> Result<Results> {
        let (header, records) = read_records(path)?;
        let index = |name: &str| header.iter().position(|h| h == name);
        let mut required = BTreeMap::new();
        for name in columns
            .coordinates
            .iter()
            .chain(&columns.metrics)
            .map(String::as_str)
            .chain(["repetition"])
        {
            let Some(i) = index(name) else {
                return Err(results_error(
                    path,
                    format!("missing column {name:?}; the file has {header:?}"),
                ));
            };
            required.insert(name, i);
        }
        let at = |record: &[String], name: &str| record[required[name]].trim().to_string();
        let (status, reason) = (index("status"), index("skip_reason"));
        let seed_columns: Vec<(&String, usize)> = columns
            .seeds
            .iter()
            .filter_map(|c| index(c).map(|i| (c, i)))
            .collect();
        let mut rows = Vec::with_capacity(records.len());
        for (i, record) in records.iter().enumerate() {
            // Line i + 2 of the file: the header is line 1.
            let line = i + 2;
            let repetition = at(record, "repetition").parse::<usize>().map_err(|_| {
                results_error(
                    path,
                    format!(
                        "line {line}: column \"repetition\": {:?} is not a repetition number",
                        at(record, "repetition")
                    ),
                )
            })?;
            let reason = reason.map_or(String::new(), |r| record[r].trim().to_string());
            let outcome = match status.map_or("ok", |s| record[s].trim()) {
                "ok" => CellOutcome::Done(read_metrics(record, columns, &required, line, path)?),
                "skipped" if reason.is_empty() => {
                    CellOutcome::Skipped("no reason recorded".to_string())
                }
                "skipped" => CellOutcome::Skipped(reason),
                "failed" => CellOutcome::Failed(reason),
                other => {
                    return Err(results_error(
                        path,
                        format!(
                            "line {line}: column \"status\": {other:?}; known: [\"ok\", \
                             \"skipped\", \"failed\"]"
                        ),
                    ))
                }
            };
            rows.push(ResultRow {
                coordinates: columns
                    .coordinates
                    .iter()
                    .map(|c| (c.clone(), CellValue::parse(&record[required[c.as_str()]])))
                    .collect(),
                repetition,
                seeds: seed_columns
                    .iter()
                    .filter_map(|&(c, i)| {
                        record[i].trim().parse::<u64>().ok().map(|v| (c.clone(), v))
                    })
                    .collect(),
                outcome,
            });
        }
        Ok(Results {
            path: path.to_path_buf(),
            columns: columns.clone(),
            rows,
        })
    }

    /// Adds each `(name, parts)` of a spec's `[sums]` as a metric: in every row that has all of
    /// `parts`, their sum (added in the order given); a row missing a part has no value, as a
    /// metric left empty in the CSV.
    pub fn with_sums(mut self, sums: &[(String, Vec<String>)]) -> Results {
        for (name, parts) in sums {
            for row in &mut self.rows {
                let CellOutcome::Done(metrics) = &mut row.outcome else {
                    continue;
                };
                let sum: Option<f64> = parts.iter().map(|p| metrics.get(p)).sum();
                if let Some(sum) = sum {
                    metrics.add_derived(name, sum);
                }
            }
            if !self.columns.is_metric(name) {
                self.columns.metrics.push(name.clone());
            }
        }
        self
    }

    /// The coordinates of `row` in CSV column order: the sort key of cells.
    fn key(&self, coordinates: &Coordinates) -> Vec<CellValue> {
        self.columns
            .coordinates
            .iter()
            .map(|c| coordinates.get(c).cloned().unwrap_or(CellValue::Empty))
            .collect()
    }

    /// Every cell (rows grouped by all coordinates), sorted by its coordinates in CSV column order:
    /// the statistics of `metric` over the rows that ran, and the repetitions that were skipped.
    pub fn summarise(&self, metric: &str) -> Vec<CellStats> {
        struct Group {
            coordinates: Coordinates,
            samples: Vec<Sample>,
            skipped: usize,
            reasons: Vec<String>,
        }
        let mut groups: BTreeMap<Vec<CellValue>, Group> = BTreeMap::new();
        for row in &self.rows {
            let group = groups
                .entry(self.key(&row.coordinates))
                .or_insert_with(|| Group {
                    coordinates: row.coordinates.clone(),
                    samples: Vec::new(),
                    skipped: 0,
                    reasons: Vec::new(),
                });
            match row.not_run() {
                Some(reason) => {
                    group.skipped += 1;
                    if !group.reasons.contains(&reason) {
                        group.reasons.push(reason);
                    }
                }
                None => group.samples.extend(row.metric(metric).map(|value| Sample {
                    repetition: row.repetition,
                    value,
                    seeds: row.seeds.clone(),
                })),
            }
        }
        groups
            .into_values()
            .map(|g| CellStats {
                coordinates: g.coordinates,
                stats: Stats::of(&g.samples.iter().map(|s| s.value).collect::<Vec<_>>()),
                samples: g.samples,
                skipped: (g.skipped > 0).then(|| Skipped {
                    reason: g.reasons.join("; "),
                    repetitions: g.skipped,
                }),
            })
            .collect()
    }

    /// The cells with at least one skipped repetition, each once, sorted.
    pub fn skipped_cells(&self) -> Vec<(Coordinates, Skipped)> {
        // Skipping is per row, not per metric: the summary of any name gives the same cells.
        self.summarise("")
            .into_iter()
            .filter_map(|c| c.skipped.map(|s| (c.coordinates, s)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn write(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("r.csv");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn columns(coordinates: &[&str], metrics: &[&str]) -> Columns {
        Columns {
            seeds: vec!["seed".into()],
            coordinates: coordinates.iter().map(|s| s.to_string()).collect(),
            metrics: metrics.iter().map(|s| s.to_string()).collect(),
        }
    }

    const CSV: &str = "\
experiment,dataset,map,n_components,repetition,seed,status,skip_reason,accuracy,train_seconds
e,adult,rff,100,0,18446744073709551615,ok,,0.5,1.0
e,adult,rff,100,1,1,ok,,0.7,3.0
e,adult,rff,100,2,2,ok,,0.9,
e,adult,exact,,0,3,ok,,0.8,10
e,adult,exact,,1,4,skipped,out of memory,,
e,mnist,exact,,0,5,skipped,out of memory,,
e,adult,rff,1000.0,0,6,ok,,0.95,2
";

    #[test]
    fn sums_add_the_parts_of_each_row_that_has_them_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), CSV);
        let cols = columns(
            &["dataset", "map", "n_components"],
            &["accuracy", "train_seconds"],
        );
        let results = Results::from_csv(&path, &cols).unwrap().with_sums(&[(
            "both".to_string(),
            vec!["accuracy".to_string(), "train_seconds".to_string()],
        )]);
        assert!(results.columns.is_metric("both"));
        let sums: Vec<Option<f64>> = results.rows.iter().map(|r| r.metric("both")).collect();
        // Row 3 has no train_seconds; rows 5 and 6 were skipped.
        assert_eq!(
            sums,
            [
                Some(1.5),
                Some(3.7),
                None,
                Some(10.8),
                None,
                None,
                Some(2.95)
            ]
        );
        let cell = &results.summarise("both")[0];
        assert_eq!(cell.stats.unwrap().count, 1);
    }

    #[test]
    fn summarise_groups_by_cell_and_skips_skipped_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), CSV);
        let cols = columns(
            &["dataset", "map", "n_components"],
            &["accuracy", "train_seconds"],
        );
        let results = Results::from_csv(&path, &cols).unwrap();
        assert_eq!(results.rows.len(), 7);
        assert_eq!(results.rows[4].not_run().as_deref(), Some("out of memory"));
        let cells = results.summarise("accuracy");
        // Sorted by dataset, then map, then D (empty first, numbers by value).
        let keys: Vec<String> = cells
            .iter()
            .map(|c| {
                format!(
                    "{}/{}/{}",
                    c.coordinates["dataset"], c.coordinates["map"], c.coordinates["n_components"]
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                "adult/exact/",
                "adult/rff/100",
                "adult/rff/1000",
                "mnist/exact/"
            ]
        );
        let exact = &cells[0];
        assert_eq!(exact.coordinates["n_components"], CellValue::Empty);
        let s = exact.stats.unwrap();
        assert_eq!((s.mean, s.count), (0.8, 1));
        assert!(s.sd.is_nan());
        assert_eq!(
            exact.skipped,
            Some(Skipped {
                reason: "out of memory".into(),
                repetitions: 1
            })
        );
        let rff = cells[1].stats.unwrap();
        assert!((rff.mean - 0.7).abs() < 1e-12);
        assert!((rff.sd - 0.2).abs() < 1e-12);
        assert_eq!((rff.count, rff.min, rff.max), (3, 0.5, 0.9));
        assert!((rff.se() - 0.2 / 3f64.sqrt()).abs() < 1e-12);
        assert!(cells[1].skipped.is_none());
        assert!(cells[3].stats.is_none());
        // A metric missing in one row counts only the rows that have it.
        let time = results.summarise("train_seconds");
        assert_eq!(time[1].stats.unwrap().count, 2);
        assert_eq!(results.skipped_cells().len(), 2);
    }

    #[test]
    fn a_missing_column_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), CSV);
        let err = Results::from_csv(&path, &columns(&["dataset", "kernel"], &["accuracy"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing column \"kernel\""), "{err}");
        let err = Results::from_csv(&path, &columns(&["dataset"], &["acuracy"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing column \"acuracy\""), "{err}");
    }

    #[test]
    fn a_bad_status_or_metric_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "dataset,repetition,status,skip_reason,accuracy\na,0,ok,,x\n",
        );
        let err = Results::from_csv(&path, &columns(&["dataset"], &["accuracy"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2") && err.contains("\"x\""), "{err}");
        let path = write(
            dir.path(),
            "dataset,repetition,status,skip_reason,accuracy\na,0,crashed,,1\n",
        );
        let err = Results::from_csv(&path, &columns(&["dataset"], &["accuracy"]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"crashed\"") && err.contains("line 2"),
            "{err}"
        );
    }

    #[test]
    fn a_failed_row_reads_as_a_skipped_one_with_its_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "dataset,repetition,status,skip_reason,accuracy\na,0,ok,,0.5\na,1,failed,too many landmarks,\n",
        );
        let results = Results::from_csv(&path, &columns(&["dataset"], &["accuracy"])).unwrap();
        let skipped = results.skipped_cells();
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].1.reason, "failed: too many landmarks");
        let stats = results.summarise("accuracy");
        assert_eq!(stats[0].stats.unwrap().count, 1);
    }
}
