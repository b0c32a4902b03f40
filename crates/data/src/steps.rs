//! Preprocessing steps by name: the one vocabulary that experiment specs (`[data] preprocess`)
//! and registry entries (their `preprocess` defaults) write, and its application to a loaded
//! dataset, in the order listed.
//!
//! A step is a string when it has no parameters, or an inline table naming it with `step`:
//!
//! ```toml
//! preprocess = [
//!     "unit-norm",                                  # rows scaled to unit L2 norm
//!     "standardize",                                # columns: train mean 0, train sd 1
//!     "min-max",                                    # columns: train range to [0, 1]
//!     { step = "min-max", lower = -1.0, upper = 1.0 }, # LIBSVM's svm-scale: train range to [-1, 1]
//!     "max-row-norm",                               # every row / the largest train row norm
//!     { step = "subsample", n = 5000, seed = 1 },   # keep 5,000 rows drawn with seed 1
//!     { step = "split", test_fraction = 0.25 },     # new train/test split, stratified
//! ]
//! ```
//!
//! Why these rules:
//! - Column statistics (standardize, min-max) come from the training rows only and are applied
//!   unchanged to the test rows, so nothing about the test set leaks into training.
//! - A kernel's bandwidth is not a step: it is a kernel parameter of the spec, a number or a rule
//!   on the training rows (`sigma = { percentile = 5.0, pairs = 10000 }`, PRFF's rule), resolved
//!   by the runner after these steps, so one vocabulary says what the kernel is.
//! - Every random choice takes an explicit seed; there is no default seed to forget about. The
//!   one exception is `split`, which draws with the cell's `data_seed` so that a spec can give
//!   every repetition its own split (`[seeds] data_seed = ["dataset", "repetition"]`): one
//!   train/test split moves a verdict by points on small data.
//! - Parameters are range-checked when the list is read, so a bad value is an error naming the
//!   file and line of the list before any data is loaded.

use rfbench_maps::CsrMatrix;

use super::error::{DataError, Result};
use super::preprocess::{max_row_norm, split_rows, subsample_indices, unit_norm, ColumnScaler};
use super::Dataset;

/// One preprocessing step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Scale every row to unit Euclidean norm.
    UnitNorm,
    /// Per column: subtract the training mean, divide by the training standard deviation.
    Standardize,
    /// Per column: map the training range to [lower, upper] ([0, 1] unless the spec says;
    /// LIBSVM's `svm-scale` maps to [-1, 1] by default). A column constant on the training rows
    /// maps to 0, as `svm-scale` leaves it out.
    MinMax { lower: f64, upper: f64 },
    /// Divide every row by one number, the largest Euclidean norm of a training row: a global
    /// scale, so `<x, y>` of training rows lies in [-1, 1] as after `unit-norm`, but the rows
    /// keep their relative lengths (Pham & Pagh's Adult rows, issue 41).
    MaxRowNorm,
    /// Keep `n` rows drawn without replacement with `seed`, in their original order (train
    /// rows stay train rows).
    Subsample { n: usize, seed: u64 },
    /// Pool every row (train and test) and draw a new split with the data seed:
    /// `test_fraction` of the rows go to the test set, per class when `stratify` (the rows of
    /// each label value split in that proportion, so a rare class appears on both sides).
    Split { test_fraction: f64, stratify: bool },
    /// Keep the training rows only, dropping the test rows: a `split` after it draws a
    /// validation split from the training rows, which never sees the test rows (a tuning run on
    /// data with its own test file).
    TrainRows,
}

/// The step names, for error messages.
pub const STEP_NAMES: [&str; 7] = [
    "unit-norm",
    "standardize",
    "min-max",
    "max-row-norm",
    "subsample",
    "split",
    "train-rows",
];

/// What a spec that still names the old `bandwidth` step is told.
const BANDWIDTH_MOVED: &str = "\"bandwidth\" is not a preprocessing step: the bandwidth is a kernel \
    parameter, e.g. `sigma = { percentile = 5.0, pairs = 10000 }` or `sigma = \"median\"` in [kernel]";

impl Step {
    /// `"min-max"` without bounds: the training range to [0, 1].
    pub const MIN_MAX: Step = Step::MinMax {
        lower: 0.0,
        upper: 1.0,
    };

    pub fn name(&self) -> &'static str {
        match self {
            Step::UnitNorm => "unit-norm",
            Step::Standardize => "standardize",
            Step::MinMax { .. } => "min-max",
            Step::MaxRowNorm => "max-row-norm",
            Step::Subsample { .. } => "subsample",
            Step::Split { .. } => "split",
            Step::TrainRows => "train-rows",
        }
    }

    /// Reads one element of a `preprocess` list. The error says what is wrong without saying
    /// where; the caller adds the file, key and line.
    pub fn from_toml(value: &toml::Value) -> std::result::Result<Step, String> {
        match value {
            toml::Value::String(name) => match name.as_str() {
                "unit-norm" => Ok(Step::UnitNorm),
                // Both spellings: the issue text and the papers use the British one.
                "standardize" | "standardise" => Ok(Step::Standardize),
                "min-max" => Ok(Step::MIN_MAX),
                "max-row-norm" => Ok(Step::MaxRowNorm),
                "train-rows" => Ok(Step::TrainRows),
                "bandwidth" => Err(BANDWIDTH_MOVED.into()),
                "subsample" => Err(
                    "step \"subsample\" needs a size and a seed: write { step = \"subsample\", \
                     n = ..., seed = ... }"
                        .into(),
                ),
                "split" => Err(
                    "step \"split\" needs a test fraction: write { step = \"split\", \
                     test_fraction = 0.25 }"
                        .into(),
                ),
                other => Err(unknown(other)),
            },
            toml::Value::Table(table) => from_table(table),
            other => Err(format!(
                "a step is a name or a table with `step = \"...\"`, got the {} {other}",
                other.type_str()
            )),
        }
    }

    /// The step as one element of a `preprocess` list, read back by [`Step::from_toml`] to the
    /// same step. Fails only for a seed TOML cannot hold (above `i64::MAX`).
    pub fn to_toml(&self) -> std::result::Result<toml::Value, String> {
        let mut table = toml::Table::new();
        table.insert("step".into(), self.name().into());
        match *self {
            Step::UnitNorm | Step::Standardize | Step::MaxRowNorm | Step::TrainRows => {
                return Ok(self.name().into())
            }
            Step::MinMax { .. } if *self == Step::MIN_MAX => return Ok(self.name().into()),
            Step::MinMax { lower, upper } => {
                table.insert("lower".into(), lower.into());
                table.insert("upper".into(), upper.into());
            }
            Step::Subsample { n, seed } => {
                let integer = |v: u64, what: &str| {
                    i64::try_from(v).map_err(|_| {
                        format!("step \"subsample\": {what} {v} is above TOML's largest integer")
                    })
                };
                table.insert("n".into(), integer(n as u64, "n")?.into());
                table.insert("seed".into(), integer(seed, "seed")?.into());
            }
            Step::Split {
                test_fraction,
                stratify,
            } => {
                table.insert("test_fraction".into(), test_fraction.into());
                table.insert("stratify".into(), stratify.into());
            }
        }
        Ok(toml::Value::Table(table))
    }

    /// Applies the step to `data` in place; `data_seed` draws a `split`.
    pub fn apply(&self, data: &mut Prepared, data_seed: u64) -> Result<()> {
        match *self {
            Step::UnitNorm => unit_norm(&mut data.x),
            Step::Standardize => {
                let scaler = ColumnScaler::standardize(&data.x, 0..data.n_train)?;
                data.x = dense_to_csr(scaler.transform(&data.x)?, "standardize")?;
            }
            Step::MinMax { lower, upper } => {
                let scaler = ColumnScaler::min_max(&data.x, 0..data.n_train, lower..=upper)?;
                data.x = dense_to_csr(scaler.transform(&data.x)?, "min-max")?;
            }
            Step::MaxRowNorm => max_row_norm(&mut data.x, data.n_train)?,
            Step::Subsample { n, seed } => {
                let keep = subsample_indices(data.x.n_rows(), n, seed)?;
                data.x = data.x.select_rows(&keep);
                data.y = keep.iter().map(|&i| data.y[i]).collect();
                data.n_train = keep.iter().filter(|&&i| i < data.n_train).count();
            }
            Step::Split {
                test_fraction,
                stratify,
            } => {
                let (train, test) = split_rows(&data.y, test_fraction, stratify, data_seed)?;
                let order: Vec<usize> = train.iter().chain(&test).copied().collect();
                data.x = data.x.select_rows(&order);
                data.y = order.iter().map(|&i| data.y[i]).collect();
                data.n_train = train.len();
            }
            Step::TrainRows => {
                let keep: Vec<usize> = (0..data.n_train).collect();
                data.x = data.x.select_rows(&keep);
                data.y.truncate(data.n_train);
            }
        }
        Ok(())
    }

    /// The number of rows after this step, given `rows` before it; an error when the step
    /// cannot take that many (a subsample larger than the data). Lets a list be checked against
    /// a registry entry's published size before anything is downloaded. (`train-rows` keeps a
    /// number of rows known only once the data is read: `rows` stands for it, an upper bound,
    /// and a later step that wants more is refused when applied.)
    pub fn rows_after(&self, rows: usize) -> std::result::Result<usize, String> {
        match *self {
            Step::Subsample { n, .. } if n > rows => Err(format!(
                "step \"subsample\": n = {n} is more than the {rows} rows the data has at this step"
            )),
            Step::Subsample { n, .. } => Ok(n),
            _ => Ok(rows),
        }
    }
}

fn unknown(name: &str) -> String {
    format!("unknown step {name:?}; known: {STEP_NAMES:?}")
}

fn from_table(table: &toml::Table) -> std::result::Result<Step, String> {
    let name = match table.get("step") {
        Some(toml::Value::String(s)) => s.as_str(),
        Some(other) => return Err(format!("`step` must be a string, got {other}")),
        None => return Err("a step table needs `step = \"...\"` naming the step".into()),
    };
    let allowed: &[&str] = match name {
        "unit-norm" | "standardize" | "standardise" | "max-row-norm" | "train-rows" => &["step"],
        "min-max" => &["step", "lower", "upper"],
        "bandwidth" => return Err(BANDWIDTH_MOVED.into()),
        "subsample" => &["step", "n", "seed"],
        "split" => &["step", "test_fraction", "stratify"],
        other => return Err(unknown(other)),
    };
    if let Some(key) = table.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "step {name:?}: unknown key `{key}`; known: {:?}",
            &allowed[1..]
        ));
    }
    let count = |key: &str| -> std::result::Result<Option<u64>, String> {
        match table.get(key) {
            None => Ok(None),
            Some(toml::Value::Integer(v)) if *v >= 0 => Ok(Some(*v as u64)),
            Some(other) => Err(format!(
                "step {name:?}: `{key}` must be a non-negative integer, got {other}"
            )),
        }
    };
    let required = |key: &str| -> std::result::Result<u64, String> {
        count(key)?.ok_or_else(|| format!("step {name:?} needs `{key}`"))
    };
    match name {
        "subsample" => {
            let n = required("n")? as usize;
            if n == 0 {
                return Err("step \"subsample\": n must be at least 1, got 0".into());
            }
            Ok(Step::Subsample {
                n,
                seed: required("seed")?,
            })
        }
        "split" => split_from(table),
        "min-max" => min_max_from(table),
        plain => Step::from_toml(&toml::Value::String(plain.into())),
    }
}

/// `{ step = "min-max", lower = ..., upper = ... }`: finite bounds, `lower < upper`; each
/// defaults to [0, 1]'s.
fn min_max_from(table: &toml::Table) -> std::result::Result<Step, String> {
    let bound = |key: &str, default: f64| match table.get(key) {
        None => Ok(default),
        Some(toml::Value::Float(v)) if v.is_finite() => Ok(*v),
        Some(toml::Value::Integer(v)) => Ok(*v as f64),
        Some(other) => Err(format!(
            "step \"min-max\": `{key}` must be a finite number, got {other}"
        )),
    };
    let (lower, upper) = (bound("lower", 0.0)?, bound("upper", 1.0)?);
    if lower >= upper {
        return Err(format!(
            "step \"min-max\": `lower` ({lower}) must be below `upper` ({upper})"
        ));
    }
    Ok(Step::MinMax { lower, upper })
}

fn split_from(table: &toml::Table) -> std::result::Result<Step, String> {
    let test_fraction = match table.get("test_fraction") {
        Some(toml::Value::Float(f)) if *f > 0.0 && *f < 1.0 => *f,
        Some(other) => {
            return Err(format!(
                "step \"split\": `test_fraction` must be a number in (0, 1), got {other}"
            ))
        }
        None => return Err("step \"split\" needs `test_fraction`".into()),
    };
    let stratify = match table.get("stratify") {
        None => true,
        Some(toml::Value::Boolean(b)) => *b,
        Some(other) => {
            return Err(format!(
                "step \"split\": `stratify` must be true or false, got {other}"
            ))
        }
    };
    Ok(Step::Split {
        test_fraction,
        stratify,
    })
}

/// The dense result of a column scaling, back in the sparse form the maps take (centring makes
/// most entries non-zero, so this is about as large as the dense matrix).
fn dense_to_csr(dense: ndarray::Array2<f64>, step: &'static str) -> Result<CsrMatrix> {
    CsrMatrix::from_dense(dense.view()).map_err(|e| DataError::Preprocess {
        step,
        problem: e.to_string(),
    })
}

/// A dataset after preprocessing: rows (train first) and labels.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub x: CsrMatrix,
    pub y: Vec<f64>,
    /// The first `n_train` rows are the training set.
    pub n_train: usize,
}

impl From<Dataset> for Prepared {
    fn from(d: Dataset) -> Prepared {
        Prepared {
            x: d.x,
            y: d.y,
            n_train: d.n_train,
        }
    }
}

/// Applies `steps` in order.
pub fn apply_steps(dataset: Dataset, steps: &[Step], data_seed: u64) -> Result<Prepared> {
    let mut data = Prepared::from(dataset);
    for step in steps {
        step.apply(&mut data, data_seed)?;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn parse(text: &str) -> std::result::Result<Step, String> {
        let table: toml::Table = toml::from_str(&format!("s = {text}")).unwrap();
        Step::from_toml(&table["s"])
    }

    fn dataset() -> Dataset {
        let x = CsrMatrix::from_dense(
            array![
                [1.0, 0.0, 5.0],
                [3.0, 0.0, 5.0],
                [0.0, 4.0, 5.0],
                [10.0, -8.0, 0.0],
                [2.0, 2.0, 2.0]
            ]
            .view(),
        )
        .unwrap();
        Dataset {
            name: "t".into(),
            x,
            y: vec![1.0, 2.0, 3.0, 4.0, 5.0],
            n_train: 3,
        }
    }

    #[test]
    fn names_and_tables_parse() {
        assert_eq!(parse("\"unit-norm\""), Ok(Step::UnitNorm));
        assert_eq!(parse("\"standardise\""), Ok(Step::Standardize));
        assert_eq!(parse("{ step = \"min-max\" }"), Ok(Step::MIN_MAX));
        assert_eq!(parse("\"max-row-norm\""), Ok(Step::MaxRowNorm));
        assert_eq!(
            parse("{ step = \"min-max\", lower = -1.0, upper = 1 }"),
            Ok(Step::MinMax {
                lower: -1.0,
                upper: 1.0
            })
        );
        assert_eq!(
            parse("{ step = \"subsample\", n = 4, seed = 9 }"),
            Ok(Step::Subsample { n: 4, seed: 9 })
        );
        assert_eq!(
            parse("{ step = \"split\", test_fraction = 0.25 }"),
            Ok(Step::Split {
                test_fraction: 0.25,
                stratify: true
            })
        );
        assert_eq!(
            parse("{ step = \"split\", test_fraction = 0.5, stratify = false }"),
            Ok(Step::Split {
                test_fraction: 0.5,
                stratify: false
            })
        );
    }

    /// What a front end writes is what a spec reads back.
    #[test]
    fn every_step_round_trips_through_toml() {
        let steps = [
            Step::UnitNorm,
            Step::Standardize,
            Step::MIN_MAX,
            Step::MinMax {
                lower: -1.0,
                upper: 1.0,
            },
            Step::MaxRowNorm,
            Step::Subsample {
                n: 7,
                seed: 1 << 40,
            },
            Step::Split {
                test_fraction: 0.3,
                stratify: false,
            },
            Step::TrainRows,
        ];
        for step in steps {
            assert_eq!(Step::from_toml(&step.to_toml().unwrap()), Ok(step));
        }
        let too_big = Step::Subsample {
            n: 1,
            seed: u64::MAX,
        };
        assert!(too_big.to_toml().unwrap_err().contains("largest integer"));
    }

    #[test]
    fn bad_steps_say_what_is_wrong() {
        for (text, problem) in [
            ("\"whiten\"", "unknown step \"whiten\""),
            ("{ step = \"whiten\" }", "unknown step \"whiten\""),
            ("\"bandwidth\"", "kernel parameter"),
            ("{ step = \"bandwidth\", seed = 1 }", "kernel parameter"),
            ("\"subsample\"", "needs a size and a seed"),
            ("3", "got the integer 3"),
            ("{ n = 3 }", "needs `step"),
            (
                "{ step = \"subsample\", n = 0, seed = 1 }",
                "n must be at least 1, got 0",
            ),
            ("{ step = \"subsample\", n = 5 }", "needs `seed`"),
            (
                "{ step = \"subsample\", n = -5, seed = 1 }",
                "non-negative integer, got -5",
            ),
            ("{ step = \"unit-norm\", seed = 1 }", "unknown key `seed`"),
            (
                "{ step = \"min-max\", lower = 1.0, upper = 1.0 }",
                "`lower` (1) must be below `upper` (1)",
            ),
            (
                "{ step = \"min-max\", lower = \"a\" }",
                "`lower` must be a finite number",
            ),
            (
                "{ step = \"min-max\", upper = nan }",
                "finite number, got nan",
            ),
            ("\"split\"", "needs a test fraction"),
            ("{ step = \"split\" }", "needs `test_fraction`"),
            (
                "{ step = \"split\", test_fraction = 1.0 }",
                "in (0, 1), got 1.0",
            ),
            (
                "{ step = \"split\", test_fraction = 1 }",
                "in (0, 1), got 1",
            ),
            (
                "{ step = \"split\", test_fraction = 0.2, stratify = 1 }",
                "true or false, got 1",
            ),
            (
                "{ step = \"split\", test_fraction = 0.2, seed = 1 }",
                "unknown key `seed`",
            ),
        ] {
            let message = parse(text).unwrap_err();
            assert!(message.contains(problem), "{text}: {message}");
        }
    }

    #[test]
    fn subsample_keeps_train_rows_first_and_labels_aligned() {
        let steps = [Step::Subsample { n: 3, seed: 4 }];
        let out = apply_steps(dataset(), &steps, 0).unwrap();
        let keep = subsample_indices(5, 3, 4).unwrap();
        assert_eq!(
            out.y,
            keep.iter().map(|&i| (i + 1) as f64).collect::<Vec<_>>()
        );
        assert_eq!(out.n_train, keep.iter().filter(|&&i| i < 3).count());
        let full = dataset().x.to_dense();
        for (row, &i) in keep.iter().enumerate() {
            assert_eq!(out.x.to_dense().row(row), full.row(i));
        }
        let too_many = apply_steps(dataset(), &[Step::Subsample { n: 6, seed: 4 }], 0);
        assert!(too_many
            .unwrap_err()
            .to_string()
            .contains("cannot draw 6 rows out of 5"));
        assert_eq!(steps[0].rows_after(3), Ok(3));
        assert!(steps[0]
            .rows_after(2)
            .unwrap_err()
            .contains("n = 3 is more than the 2"));
    }

    #[test]
    fn standardize_and_min_max_use_train_rows() {
        let z = apply_steps(dataset(), &[Step::Standardize], 0)
            .unwrap()
            .x
            .to_dense();
        // Train column 0 is 1, 3, 0: mean 4/3, population sd sqrt(14/9); test rows use them.
        let (m, s) = (4.0 / 3.0, (14.0f64 / 9.0).sqrt());
        for (i, v) in [1.0, 3.0, 0.0, 10.0, 2.0].into_iter().enumerate() {
            assert!((z[[i, 0]] - (v - m) / s).abs() < 1e-12, "row {i}");
        }
        let z = apply_steps(dataset(), &[Step::MIN_MAX], 0)
            .unwrap()
            .x
            .to_dense();
        assert_eq!(
            z.column(0).to_vec(),
            [1.0 / 3.0, 1.0, 0.0, 10.0 / 3.0, 2.0 / 3.0]
        );
        let no_train = Dataset {
            n_train: 0,
            ..dataset()
        };
        assert!(apply_steps(no_train, &[Step::Standardize], 0).is_err());
    }

    /// svm-scale's default: each column's training range to [-1, 1] (a naive formula for the
    /// reference), a constant column to 0; test rows beyond the range go beyond [-1, 1].
    #[test]
    fn min_max_to_minus_one_one_is_svm_scale() {
        let step = Step::MinMax {
            lower: -1.0,
            upper: 1.0,
        };
        let z = apply_steps(dataset(), &[step], 0).unwrap().x.to_dense();
        let x = dataset().x.to_dense();
        for j in [0, 1] {
            let train = x.column(j).slice(ndarray::s![..3]).to_vec();
            let lo = train.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = train.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for i in 0..5 {
                let want = -1.0 + 2.0 * (x[[i, j]] - lo) / (hi - lo);
                assert!(
                    (z[[i, j]] - want).abs() < 1e-12,
                    "({i}, {j}): {}",
                    z[[i, j]]
                );
            }
        }
        assert_eq!(z[[1, 0]], 1.0);
        assert_eq!(z[[3, 0]], -1.0 + 20.0 / 3.0);
        // Column 2 is 5 on every training row: 0 there, as svm-scale omits it.
        assert_eq!(z.column(2).slice(ndarray::s![..3]).to_vec(), [0.0; 3]);
    }

    /// One factor for every row: the largest training row's norm (row 2's, sqrt(41)), so that row
    /// becomes unit-norm, the others keep their lengths relative to it, and test rows may exceed 1.
    #[test]
    fn max_row_norm_divides_every_row_by_the_largest_training_norm() {
        let z = apply_steps(dataset(), &[Step::MaxRowNorm], 0)
            .unwrap()
            .x
            .to_dense();
        let x = dataset().x.to_dense();
        let norm = |r: ndarray::ArrayView1<f64>| r.dot(&r).sqrt();
        assert!((norm(z.row(2)) - 1.0).abs() < 1e-15);
        for i in 0..5 {
            let want = norm(x.row(i)) / 41f64.sqrt();
            assert!((norm(z.row(i)) - want).abs() < 1e-12, "row {i}");
        }
        assert!(
            norm(z.row(3)) > 2.0 - 1e-12,
            "a test row longer than any training row"
        );
        let zeros = Dataset {
            x: CsrMatrix::from_dense(ndarray::Array2::<f64>::zeros((3, 2)).view()).unwrap(),
            y: vec![0.0; 3],
            n_train: 2,
            name: "zeros".into(),
        };
        let error = apply_steps(zeros, &[Step::MaxRowNorm], 0).unwrap_err();
        assert!(
            error.to_string().contains("largest training row norm is 0"),
            "{error}"
        );
    }

    #[test]
    fn split_pools_the_rows_and_redraws_them_per_class_with_the_data_seed() {
        // 12 rows: labels 0 (8 rows) and 1 (4 rows); feature 0 is the row's index.
        let dense = ndarray::Array2::from_shape_fn((12, 2), |(i, j)| (i * (1 - j)) as f64 + 1.0);
        let data = || Dataset {
            name: "twelve".into(),
            x: CsrMatrix::from_dense(dense.view()).unwrap(),
            y: (0..12).map(|i| f64::from(u8::from(i % 3 == 0))).collect(),
            n_train: 9,
        };
        let step = [Step::Split {
            test_fraction: 0.25,
            stratify: true,
        }];
        let a = apply_steps(data(), &step, 7).unwrap();
        // A quarter of each class: 2 of the 8 zeros, 1 of the 4 ones.
        assert_eq!(a.n_train, 9);
        let test = &a.y[a.n_train..];
        assert_eq!(test.iter().filter(|&&v| v == 1.0).count(), 1, "{test:?}");
        assert_eq!(test.iter().filter(|&&v| v == 0.0).count(), 2, "{test:?}");
        // Labels stay with their rows: row i's label is 1 exactly when i % 3 == 0.
        let x = a.x.to_dense();
        for r in 0..12 {
            let i = x[[r, 0]] as usize - 1;
            assert_eq!(a.y[r], f64::from(u8::from(i % 3 == 0)), "row {r} (was {i})");
        }
        let rows = |p: &Prepared| (0..12).map(|r| p.x.to_dense()[[r, 0]]).collect::<Vec<_>>();
        let again = apply_steps(data(), &step, 7).unwrap();
        assert_eq!(rows(&a), rows(&again), "same seed, same split");
        let other = (8..40)
            .map(|seed| apply_steps(data(), &step, seed).unwrap())
            .filter(|o| rows(o) != rows(&a))
            .count();
        assert!(
            other > 20,
            "another seed draws another split: {other} of 32"
        );
        let plain = [Step::Split {
            test_fraction: 0.5,
            stratify: false,
        }];
        assert_eq!(apply_steps(data(), &plain, 3).unwrap().n_train, 6);
    }

    /// `train-rows` drops the test rows; a `split` after it draws from the training rows only,
    /// so no test row reaches either side of the new split.
    #[test]
    fn train_rows_then_split_never_sees_the_test_rows() {
        let steps = [
            Step::TrainRows,
            Step::Split {
                test_fraction: 0.34,
                stratify: false,
            },
        ];
        for seed in 0..20 {
            let data = apply_steps(dataset(), &steps, seed).unwrap();
            assert_eq!(data.y.len(), 3);
            assert_eq!(data.n_train, 2);
            let mut y = data.y.clone();
            y.sort_by(f64::total_cmp);
            assert_eq!(y, [1.0, 2.0, 3.0], "seed {seed}: the three training rows");
        }
        assert_eq!(parse("\"train-rows\""), Ok(Step::TrainRows));
        assert_eq!(parse("{ step = \"train-rows\" }"), Ok(Step::TrainRows));
    }
}
