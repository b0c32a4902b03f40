//! The settings `rfbench compare` decides before anything runs: the data (a registry name or a
//! file described on the spot), the preprocessing, the maps that approximate the kernel, the
//! ladder of D, the learners, and the bandwidth's scale. Each decision is written down
//! ([`Setup::decisions`]) for the report.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::CompareOptions;
use crate::data::{self, DatasetEntry, Prepared, Step, Task};
use crate::error::{Error, Result};
use crate::registry;

/// Maps left out unless named: random binning's D is a number of grids whose features are
/// `width` times as many, so its ladder would not compare with the others'.
const NOT_BY_DEFAULT: &[&str] = &["random-binning"];

/// Rows of the tuning and pilot runs (a subsample of the data when it has more).
pub const PILOT_ROWS: usize = 2000;

/// Everything the specs of a comparison are written from.
#[derive(Debug, Clone)]
pub struct Setup {
    pub dataset: String,
    /// The `[[dataset]]` table of a described file (`None`: the root's registry has it).
    pub embedded: Option<String>,
    pub task: Task,
    pub n: usize,
    pub n_train: usize,
    pub d: usize,
    /// Whether the data has its own test rows (else every repetition draws a split).
    pub has_test: bool,
    pub test_fraction: f64,
    pub kernel: String,
    pub degree: u32,
    /// Candidate bandwidths (empty for the polynomial kernel; one when given by `--sigma`).
    pub sigmas: Vec<f64>,
    /// The median distance the candidates are multiples of (`None`: no candidates, or one given).
    pub median: Option<f64>,
    pub normalise: Step,
    pub maps: Vec<&'static str>,
    pub ladder: Vec<usize>,
    pub learner: &'static str,
    pub exact_learner: &'static str,
    /// The learner's regularisation parameter: `C` or `lambda`.
    pub penalty: &'static str,
    /// The exact machine's: `C` (kernel SVM) or `lambda` (kernel ridge).
    pub exact_penalty: &'static str,
    pub repetitions: usize,
    pub seed: u64,
    /// What was guessed about the data file, for the report.
    pub guesses: Vec<String>,
}

impl Setup {
    pub fn decide(options: &CompareOptions, root: &Path) -> Result<Setup> {
        let (entry, embedded, guesses) = resolve_data(options, root)?;
        let fetch = data::FetchOptions::from_env();
        let dataset = data::load(&entry, &fetch)?;
        let (n, d) = (dataset.x.n_rows(), dataset.x.n_cols());
        let has_test = dataset.n_train < n;
        let n_train = if has_test {
            dataset.n_train
        } else {
            n - ((n as f64) * options.test_size).round() as usize
        };
        let classification = entry.task != Task::Regression;
        let kernel = options.kernel.clone();
        let Some(info) = registry::kernel(&kernel) else {
            return Err(Error::Experiment(format!(
                "unknown kernel {kernel:?}; known: {:?}",
                registry::kernel_names()
            )));
        };
        let normalise = if info.name == "polynomial" {
            Step::UnitNorm
        } else {
            Step::Standardize
        };
        let maps = choose_maps(&kernel, options.maps.as_deref())?;
        let (sigmas, median) = bandwidths(options, info.name, dataset, normalise)?;
        let learner = learner(options.learner.as_deref(), classification)?;
        let ladder = ladder(options.max_components, options.quick)?;
        if n_train < 10 {
            return Err(Error::Experiment(format!(
                "{} has {n_train} training rows: too few for 3-fold cross-validation",
                entry.name
            )));
        }
        Ok(Setup {
            dataset: entry.name.clone(),
            embedded,
            task: entry.task,
            n,
            n_train,
            d,
            has_test,
            test_fraction: options.test_size,
            kernel,
            degree: options.degree,
            sigmas,
            median,
            normalise,
            maps,
            ladder,
            learner,
            exact_learner: if classification {
                "kernel-svm"
            } else {
                "kernel-ridge"
            },
            penalty: penalty_of(learner),
            exact_penalty: if classification { "C" } else { "lambda" },
            repetitions: options.repetitions,
            seed: options.seed,
            guesses,
        })
    }

    pub fn classification(&self) -> bool {
        self.task != Task::Regression
    }

    /// Whether the kernel has a bandwidth (all but the polynomial kernel).
    pub fn has_bandwidth(&self) -> bool {
        !self.sigmas.is_empty()
    }

    /// The preprocessing list of the specs: a new split per repetition where the data has no
    /// test rows, then the kernel's normalisation.
    pub fn preprocess(&self, subsample: Option<usize>) -> String {
        let mut steps = Vec::new();
        if let Some(n) = subsample.filter(|&n| n < self.n) {
            steps.push(format!(
                "{{ step = \"subsample\", n = {n}, seed = {} }}",
                self.seed
            ));
        }
        if !self.has_test {
            steps.push(format!(
                "{{ step = \"split\", test_fraction = {:?}, stratify = {} }}",
                self.test_fraction,
                self.classification()
            ));
        }
        steps.push(format!("\"{}\"", self.normalise.name()));
        format!("[{}]", steps.join(", "))
    }

    /// One line per default chosen, for the report and the spec's header.
    pub fn decisions(&self) -> Vec<String> {
        let mut out = self.guesses.clone();
        out.push(format!(
            "data: {} ({} rows, {} features); {}",
            self.dataset,
            self.n,
            self.d,
            if self.has_test {
                "its own test rows, the same in every repetition".to_string()
            } else {
                format!(
                    "no test rows: every repetition draws a new {}train/test split, {:.0} % test",
                    if self.classification() {
                        "stratified "
                    } else {
                        ""
                    },
                    100.0 * self.test_fraction
                )
            }
        ));
        out.push(match self.normalise {
            Step::Standardize => {
                "preprocessing: standardize (column statistics of the training rows)".into()
            }
            step => format!("preprocessing: {}", step.name()),
        });
        out.push(format!("kernel: {}{}", self.kernel, self.kernel_note()));
        out.push(format!("maps: {}", self.maps.join(", ")));
        out.push(format!(
            "D: {} (doubling; Nystroem's capped at the training rows)",
            self.ladder
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        out.push(format!(
            "learners: {} on the features and on the raw inputs (the linear baseline), {} on the \
             exact kernel; {} by 3-fold cross-validation on the training rows of the tuning run{}",
            self.learner,
            self.exact_learner,
            self.penalty,
            if self.exact_penalty == self.penalty {
                String::new()
            } else {
                format!(
                    ", the exact machine's {} by linear-svm's in the same run",
                    self.exact_penalty
                )
            }
        ));
        out.push(format!(
            "repetitions: {}, master seed {}",
            self.repetitions, self.seed
        ));
        out
    }

    fn kernel_note(&self) -> String {
        match (self.median, self.sigmas.as_slice()) {
            (None, [sigma]) => format!(", sigma = {sigma} (given)"),
            (Some(m), _) => format!(
                ", sigma chosen by 3-fold cross-validation from {} (0.25 to 4 times the median \
                 distance {m:.4} of 1,000 random pairs of training rows)",
                list(&self.sigmas)
            ),
            _ => format!(
                ", degree {}, offset 0, rows scaled to unit norm",
                self.degree
            ),
        }
    }
}

/// The candidate bandwidths and the median distance they are multiples of: 0.25 to 4 times the
/// median, one value given by `--sigma`, or none (the polynomial kernel).
fn bandwidths(
    options: &CompareOptions,
    kernel: &str,
    dataset: data::Dataset,
    normalise: Step,
) -> Result<(Vec<f64>, Option<f64>)> {
    match (kernel, options.sigma) {
        ("polynomial", None) => Ok((Vec::new(), None)),
        ("polynomial", Some(_)) => Err(Error::Experiment(
            "--sigma: the polynomial kernel has no bandwidth".into(),
        )),
        (_, Some(sigma)) if !(sigma.is_finite() && sigma > 0.0) => Err(Error::Experiment(format!(
            "--sigma {sigma}: a bandwidth is a positive number"
        ))),
        (_, Some(sigma)) => Ok((vec![sigma], None)),
        (_, None) => {
            let m = median_distance(dataset, normalise, kernel, options.seed)?;
            let sigmas = [0.25, 0.5, 1.0, 2.0, 4.0].iter().map(|f| f * m).collect();
            Ok((sigmas, Some(m)))
        }
    }
}

/// The learner on the features: `--learner`, or the linear SVM (classification) or ridge.
fn learner(named: Option<&str>, classification: bool) -> Result<&'static str> {
    match (named, classification) {
        (None, true) | (Some("linear-svm"), true) => Ok("linear-svm"),
        (None, false) | (Some("ridge"), _) => Ok("ridge"),
        (Some(other), _) => Err(Error::Experiment(format!(
            "--learner {other}: {} for this data",
            if classification {
                "linear-svm or ridge"
            } else {
                "ridge (a regression task)"
            }
        ))),
    }
}

/// The regularisation parameter of a learner on the features.
fn penalty_of(learner: &str) -> &'static str {
    if learner == "linear-svm" {
        "C"
    } else {
        "lambda"
    }
}

/// Numbers as a TOML list.
pub fn list(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[{}]", items.join(", "))
}

/// A registry entry by name, or a file described as one.
fn resolve_data(
    options: &CompareOptions,
    root: &Path,
) -> Result<(DatasetEntry, Option<String>, Vec<String>)> {
    let path = Path::new(&options.data);
    if path.is_file() {
        let name = plain_name(path);
        let describe = data::DescribeOptions {
            label_column: options.label_column.clone(),
            task: options.task,
        };
        let described = data::describe_files(&name, path, options.test.as_deref(), &describe)?;
        let toml = data::entry_toml(&described.entry);
        return Ok((described.entry, Some(toml), described.guesses));
    }
    let registry = root.join("datasets.toml");
    if !registry.is_file() {
        return Err(Error::Experiment(format!(
            "{:?} is not a file, and there is no registry ({}) to look it up in",
            options.data,
            registry.display()
        )));
    }
    if options.test.is_some() || options.label_column.is_some() {
        return Err(Error::Experiment(format!(
            "{:?} is a registry dataset: --test and --label-column are for files",
            options.data
        )));
    }
    let mut entry = data::Registry::from_file(&registry)?
        .get(&options.data)?
        .clone();
    if let Some(task) = options.task {
        entry.task = task;
    }
    Ok((entry, None, Vec::new()))
}

/// The file's name without its suffixes, as a dataset name (letters, digits, '-', '_').
fn plain_name(path: &Path) -> String {
    let stem = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('.').next())
        .unwrap_or("data");
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        "data".into()
    } else {
        name
    }
}

/// The maps of the registry that approximate `kernel` (or those named, each checked).
fn choose_maps(kernel: &str, named: Option<&[String]>) -> Result<Vec<&'static str>> {
    let approximates = |m: &str| {
        registry::map(m).is_some_and(|info| {
            info.kernels.contains(&kernel) && !matches!(info.name, "exact" | "none")
        })
    };
    let all: Vec<&'static str> = registry::map_names()
        .into_iter()
        .filter(|m| approximates(m))
        .collect();
    let Some(named) = named else {
        let maps: Vec<_> = all
            .into_iter()
            .filter(|m| !NOT_BY_DEFAULT.contains(m))
            .collect();
        if maps.is_empty() {
            return Err(Error::Experiment(format!(
                "no map of the registry approximates the {kernel} kernel"
            )));
        }
        return Ok(maps);
    };
    named
        .iter()
        .map(|m| {
            all.iter().copied().find(|a| a == m).ok_or_else(|| {
                Error::Experiment(format!(
                    "map {m:?} does not approximate the {kernel} kernel; maps that do: {}",
                    all.join(", ")
                ))
            })
        })
        .collect()
}

/// 64, 128, ... up to `max` (and `max` itself); `--quick`: three rungs.
fn ladder(max: usize, quick: bool) -> Result<Vec<usize>> {
    if max < 64 {
        return Err(Error::Experiment(format!(
            "--max-components {max}: the ladder starts at 64"
        )));
    }
    let mut rungs: Vec<usize> = std::iter::successors(Some(64usize), |&d| Some(d * 2))
        .take_while(|&d| d <= max)
        .collect();
    if rungs.last() != Some(&max) {
        rungs.push(max);
    }
    if quick {
        rungs = vec![rungs[0], rungs[rungs.len() / 2], rungs[rungs.len() - 1]];
        rungs.dedup();
    }
    Ok(rungs)
}

/// The median distance of 1,000 random pairs of training rows after the normalisation: the
/// runner's `"median"` rule (Euclidean), or for the Laplacian kernel, whose bandwidth scales L1
/// distances, the median L1 distance.
fn median_distance(
    dataset: data::Dataset,
    normalise: Step,
    kernel: &str,
    seed: u64,
) -> Result<f64> {
    let mut prepared = Prepared::from(dataset);
    normalise.apply(&mut prepared, seed)?;
    let train = prepared
        .x
        .select_rows(&(0..prepared.n_train).collect::<Vec<_>>());
    if kernel != "laplacian" {
        return Ok(data::distance_percentile(&train, 50.0, 1000, seed)?);
    }
    let rows = train.n_rows();
    if rows < 2 {
        return Err(Error::Experiment("fewer than 2 training rows".into()));
    }
    let x = train.to_dense();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut distances: Vec<f64> = (0..1000)
        .map(|_| {
            // Two distinct rows, drawn as the Euclidean rule draws them.
            let i = rng.random_range(0..rows);
            let j = rng.random_range(0..rows - 1);
            let (a, b) = (x.row(i), x.row(j + usize::from(j >= i)));
            a.iter()
                .zip(b.iter())
                .map(|(u, v)| (u - v).abs())
                .sum::<f64>()
        })
        .collect();
    distances.sort_by(f64::total_cmp);
    Ok(distances[distances.len() / 2])
}
