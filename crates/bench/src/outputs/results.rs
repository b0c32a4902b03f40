//! A results CSV read back as rows of coordinates and metrics, and summarised per cell.
//!
//! Every column is read as text and parsed here rather than by polars' type inference: the
//! coordinates mix numbers, names and empty cells ("not applicable to this row"), seeds span the
//! whole u64 range, and a column whose first rows are integers may hold floats further down. Doing
//! the parsing ourselves gives one rule for all of them (see [`CellValue::parse`]).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::error::{Error, Result};

/// Which columns of a results CSV are a cell's coordinates and which are its metrics, in CSV
/// order. `dataset` is a coordinate like any other grid axis.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    pub coordinates: Vec<String>,
    pub metrics: Vec<String>,
}

impl Columns {
    pub fn is_coordinate(&self, name: &str) -> bool {
        self.coordinates.iter().any(|c| c == name)
    }

    pub fn is_metric(&self, name: &str) -> bool {
        self.metrics.iter().any(|c| c == name)
    }
}

/// One coordinate of a row: empty (not applicable to this row), a number or a name.
///
/// Ordered Empty < numbers (by value) < texts, so sorting cells gives the order a reader expects
/// (D = 500 before D = 1000). Numbers are finite; `-0` is stored as `0` so they group together.
#[derive(Debug, Clone)]
pub enum CellValue {
    Empty,
    Number(f64),
    Text(String),
}

impl CellValue {
    /// A CSV field: empty -> `Empty`, a finite number -> `Number`, anything else -> `Text`.
    pub fn parse(field: &str) -> CellValue {
        let field = field.trim();
        if field.is_empty() {
            return CellValue::Empty;
        }
        match field.parse::<f64>() {
            Ok(v) if v.is_finite() => CellValue::number(v),
            _ => CellValue::Text(field.to_string()),
        }
    }

    pub fn number(v: f64) -> CellValue {
        CellValue::Number(if v == 0.0 { 0.0 } else { v })
    }

    /// The value as a number: a `Number`, or a `Text` that parses as one.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            CellValue::Empty => None,
            CellValue::Number(v) => Some(*v),
            CellValue::Text(t) => t.parse::<f64>().ok(),
        }
    }

    /// Whether a TOML selector value names this value: equal as numbers (1 = 1.0 = "1") or, failing
    /// that, as texts. Only an empty string selects an empty cell.
    pub fn matches(&self, selector: &toml::Value) -> bool {
        let (number, text) = match selector {
            toml::Value::Integer(i) => (Some(*i as f64), i.to_string()),
            toml::Value::Float(f) => (Some(*f), f.to_string()),
            toml::Value::String(s) => (s.trim().parse::<f64>().ok(), s.clone()),
            _ => return false,
        };
        if let (Some(a), Some(b)) = (self.as_number(), number) {
            if a == b {
                return true;
            }
        }
        self.to_string() == text
    }

    /// The value a selector names, for a table row or column the results do not have.
    pub fn from_selector(selector: &toml::Value) -> CellValue {
        match selector {
            toml::Value::Integer(i) => CellValue::number(*i as f64),
            toml::Value::Float(f) => CellValue::number(*f),
            toml::Value::String(s) => CellValue::parse(s),
            other => CellValue::Text(other.to_string()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            CellValue::Empty => 0,
            CellValue::Number(_) => 1,
            CellValue::Text(_) => 2,
        }
    }
}

/// `""`, the shortest text that reads back as the same f64 (`0`, `0.5`, `1000`), or the text.
impl fmt::Display for CellValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CellValue::Empty => Ok(()),
            CellValue::Number(v) => write!(f, "{v}"),
            CellValue::Text(t) => f.write_str(t),
        }
    }
}

impl Ord for CellValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (CellValue::Number(a), CellValue::Number(b)) => a.total_cmp(b),
            (CellValue::Text(a), CellValue::Text(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for CellValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for CellValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for CellValue {}

/// A cell's coordinates, by column name.
pub type Coordinates = BTreeMap<String, CellValue>;

/// One row of the CSV: one repetition of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    pub coordinates: Coordinates,
    pub repetition: usize,
    /// `Some(reason)` when the cell could not run.
    pub skipped: Option<String>,
    /// The metrics with a value in this row (empty on skipped rows).
    pub metrics: BTreeMap<String, f64>,
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

/// One cell (all coordinates, every repetition) and one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct CellStats {
    pub coordinates: Coordinates,
    /// Over the rows that ran and have a value; `None` if there are none.
    pub stats: Option<Stats>,
    pub skipped: Option<Skipped>,
}

fn results_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Results {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The text of every field of `name` (nulls as "").
fn text_column(frame: &DataFrame, name: &str, path: &Path) -> Result<Vec<String>> {
    let column = frame
        .column(name)
        .map_err(|_| results_error(path, format!("missing column {name:?}")))?;
    let cast = column
        .cast(&DataType::String)
        .map_err(|e| results_error(path, format!("column {name:?}: {e}")))?;
    let values = cast
        .str()
        .map_err(|e| results_error(path, format!("column {name:?}: {e}")))?;
    Ok(values
        .iter()
        .map(|v| v.unwrap_or_default().to_string())
        .collect())
}

impl Results {
    /// Reads a results CSV written by the runner. Every column of `columns`, and `repetition`, must
    /// be present (the error names the first missing one). `status` ("ok" / "skipped" / "failed") and
    /// `skip_reason` are read when present; without `status` every row counts as having run.
    pub fn from_csv(path: &Path, columns: &Columns) -> Result<Results> {
        if !path.is_file() {
            return Err(results_error(path, "no such file"));
        }
        // No type inference: every column as text, parsed below.
        let frame = CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(0))
            .try_into_reader_with_file_path(Some(path.to_path_buf()))
            .and_then(|r| r.finish())
            .map_err(|e| results_error(path, e.to_string()))?;
        let has = |name: &str| frame.column(name).is_ok();
        for name in columns
            .coordinates
            .iter()
            .chain(&columns.metrics)
            .map(String::as_str)
            .chain(["repetition"])
        {
            if !has(name) {
                let present: Vec<String> = frame
                    .get_column_names()
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                return Err(results_error(
                    path,
                    format!("missing column {name:?}; the file has {present:?}"),
                ));
            }
        }
        let n = frame.height();
        let coordinates: Vec<Vec<String>> = columns
            .coordinates
            .iter()
            .map(|c| text_column(&frame, c, path))
            .collect::<Result<_>>()?;
        let metrics: Vec<Vec<String>> = columns
            .metrics
            .iter()
            .map(|c| text_column(&frame, c, path))
            .collect::<Result<_>>()?;
        let repetitions = text_column(&frame, "repetition", path)?;
        let status = if has("status") {
            text_column(&frame, "status", path)?
        } else {
            vec!["ok".to_string(); n]
        };
        let reasons = if has("skip_reason") {
            text_column(&frame, "skip_reason", path)?
        } else {
            vec![String::new(); n]
        };
        let mut rows = Vec::with_capacity(n);
        for i in 0..n {
            // Line i + 2 of the file: the header is line 1.
            let line = i + 2;
            let repetition = repetitions[i].trim().parse::<usize>().map_err(|_| {
                results_error(
                    path,
                    format!(
                        "line {line}: column \"repetition\": {:?} is not a repetition number",
                        repetitions[i]
                    ),
                )
            })?;
            let skipped = match status[i].trim() {
                "ok" => None,
                "skipped" => Some(match reasons[i].trim() {
                    "" => "no reason recorded".to_string(),
                    r => r.to_string(),
                }),
                // A failed run has no numbers either: outputs show it like a skipped one, its
                // error as the reason.
                "failed" => Some(format!("failed: {}", reasons[i].trim())),
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
            let mut row_metrics = BTreeMap::new();
            for (name, values) in columns.metrics.iter().zip(&metrics) {
                let field = values[i].trim();
                if field.is_empty() {
                    continue;
                }
                let value = field.parse::<f64>().map_err(|_| {
                    results_error(
                        path,
                        format!("line {line}: metric {name:?}: {field:?} is not a number"),
                    )
                })?;
                if skipped.is_none() {
                    row_metrics.insert(name.clone(), value);
                }
            }
            rows.push(ResultRow {
                coordinates: columns
                    .coordinates
                    .iter()
                    .zip(&coordinates)
                    .map(|(name, values)| (name.clone(), CellValue::parse(&values[i])))
                    .collect(),
                repetition,
                skipped,
                metrics: row_metrics,
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
                let sum: Option<f64> = parts.iter().map(|p| row.metrics.get(p)).sum();
                if let Some(sum) = sum {
                    row.metrics.insert(name.clone(), sum);
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
            values: Vec<f64>,
            skipped: usize,
            reasons: Vec<String>,
        }
        let mut groups: BTreeMap<Vec<CellValue>, Group> = BTreeMap::new();
        for row in &self.rows {
            let group = groups
                .entry(self.key(&row.coordinates))
                .or_insert_with(|| Group {
                    coordinates: row.coordinates.clone(),
                    values: Vec::new(),
                    skipped: 0,
                    reasons: Vec::new(),
                });
            match &row.skipped {
                Some(reason) => {
                    group.skipped += 1;
                    if !group.reasons.contains(reason) {
                        group.reasons.push(reason.clone());
                    }
                }
                None => group.values.extend(row.metrics.get(metric)),
            }
        }
        groups
            .into_values()
            .map(|g| CellStats {
                coordinates: g.coordinates,
                stats: Stats::of(&g.values),
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
        let sums: Vec<Option<f64>> = results
            .rows
            .iter()
            .map(|r| r.metrics.get("both").copied())
            .collect();
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
        assert_eq!(results.rows[4].skipped.as_deref(), Some("out of memory"));
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

    #[test]
    fn cell_values_display_order_and_match() {
        assert_eq!(CellValue::parse("1000.0").to_string(), "1000");
        assert_eq!(CellValue::parse("0.50").to_string(), "0.5");
        assert_eq!(CellValue::parse("-0.0").to_string(), "0");
        assert_eq!(CellValue::parse("").to_string(), "");
        assert_eq!(
            CellValue::parse("tensor-sketch"),
            CellValue::Text("tensor-sketch".into())
        );
        assert_eq!(CellValue::parse("nan"), CellValue::Text("nan".into()));
        let mut v = [
            CellValue::parse("b"),
            CellValue::parse("1000"),
            CellValue::parse(""),
            CellValue::parse("500"),
            CellValue::parse("a"),
        ];
        v.sort();
        let shown: Vec<String> = v.iter().map(|c| c.to_string()).collect();
        assert_eq!(shown, ["", "500", "1000", "a", "b"]);

        let one = CellValue::parse("1");
        assert!(one.matches(&toml::Value::Integer(1)));
        assert!(one.matches(&toml::Value::Float(1.0)));
        assert!(one.matches(&toml::Value::String("1".into())));
        assert!(one.matches(&toml::Value::String("1.0".into())));
        assert!(!one.matches(&toml::Value::Integer(2)));
        assert!(!one.matches(&toml::Value::Boolean(true)));
        assert!(CellValue::parse("0.5").matches(&toml::Value::Float(0.5)));
        assert!(!CellValue::parse("0.5").matches(&toml::Value::Integer(0)));
        let adult = CellValue::parse("adult");
        assert!(adult.matches(&toml::Value::String("adult".into())));
        assert!(!adult.matches(&toml::Value::Integer(1)));
        assert!(CellValue::Empty.matches(&toml::Value::String(String::new())));
        assert!(!CellValue::Empty.matches(&toml::Value::Integer(0)));
    }
}
