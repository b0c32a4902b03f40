//! What `rfbench compare` is asked ([`CompareOptions`]) and what it gives back ([`Compared`]).

use std::path::PathBuf;

use crate::run::Outcome;
use rfbench_data::Task;

/// The command's options (see `rfbench compare --help`).
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// A registry name or a path to a data file.
    pub data: String,
    /// A test file with the same columns.
    pub test: Option<PathBuf>,
    /// The test share of a split drawn in every repetition (data without test rows).
    pub test_size: f64,
    pub kernel: String,
    /// The polynomial kernel's degree.
    pub degree: u32,
    pub maps: Option<Vec<String>>,
    pub max_components: usize,
    /// A bandwidth instead of the median heuristic refined by cross-validation.
    pub sigma: Option<f64>,
    /// The learner on the features (`linear-svm` or `ridge`; default by task).
    pub learner: Option<String>,
    /// Seconds.
    pub budget: f64,
    pub out: PathBuf,
    pub quick: bool,
    pub label_column: Option<String>,
    pub task: Option<Task>,
    pub repetitions: usize,
    pub seed: u64,
}

/// What a comparison did.
#[derive(Debug)]
pub struct Compared {
    /// The one-line answer ([`super::stages::answer::sentence`]).
    pub answer: String,
    pub report: String,
    pub report_path: PathBuf,
    pub spec: PathBuf,
    /// The budget model's estimate of the sweep, and the seconds everything took.
    pub estimate: f64,
    pub seconds: f64,
    pub outcome: Outcome,
}
