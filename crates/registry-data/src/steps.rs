//! Preprocessing steps by name: the one vocabulary that experiment specs (`[data] preprocess`),
//! dataset registry entries (their `preprocess` defaults) and the kernels' entries (the
//! normalisation `rfbench compare` applies) write. Applying a step to a dataset is rfbench-data's
//! (`rfbench_data::apply_steps`; rfbench-data re-exports [`Step`]).
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
//! - A kernel's bandwidth is not a step: it is a kernel parameter of the spec, a number or a rule
//!   on the training rows (`sigma = { percentile = 5.0, pairs = 10000 }`, PRFF's rule), resolved
//!   by the runner after these steps, so one vocabulary says what the kernel is.
//! - Every random choice takes an explicit seed; there is no default seed to forget about. The
//!   one exception is `split`, which draws with the cell's `data_seed`.
//! - Parameters are range-checked when the list is read, so a bad value is an error naming the
//!   file and line of the list before any data is loaded.

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
    pub fn from_toml(value: &toml::Value) -> Result<Step, String> {
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
    pub fn to_toml(&self) -> Result<toml::Value, String> {
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

    /// The number of rows after this step, given `rows` before it; an error when the step
    /// cannot take that many (a subsample larger than the data). Lets a list be checked against
    /// a registry entry's published size before anything is downloaded. (`train-rows` keeps a
    /// number of rows known only once the data is read: `rows` stands for it, an upper bound,
    /// and a later step that wants more is refused when applied.)
    pub fn rows_after(&self, rows: usize) -> Result<usize, String> {
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

fn from_table(table: &toml::Table) -> Result<Step, String> {
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
    let count = |key: &str| -> Result<Option<u64>, String> {
        match table.get(key) {
            None => Ok(None),
            Some(toml::Value::Integer(v)) if *v >= 0 => Ok(Some(*v as u64)),
            Some(other) => Err(format!(
                "step {name:?}: `{key}` must be a non-negative integer, got {other}"
            )),
        }
    };
    let required = |key: &str| -> Result<u64, String> {
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
fn min_max_from(table: &toml::Table) -> Result<Step, String> {
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

fn split_from(table: &toml::Table) -> Result<Step, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Step, String> {
        let table: toml::Table = toml::from_str(&format!("s = {text}")).unwrap();
        Step::from_toml(&table["s"])
    }

    #[test]
    fn names_and_tables_parse() {
        assert_eq!(parse("\"unit-norm\""), Ok(Step::UnitNorm));
        assert_eq!(parse("\"standardise\""), Ok(Step::Standardize));
        assert_eq!(parse("{ step = \"min-max\" }"), Ok(Step::MIN_MAX));
        assert_eq!(parse("\"max-row-norm\""), Ok(Step::MaxRowNorm));
        assert_eq!(parse("\"train-rows\""), Ok(Step::TrainRows));
        assert_eq!(parse("{ step = \"train-rows\" }"), Ok(Step::TrainRows));
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
}
