//! The settings `rfbench compare` decides before anything runs: the data (a registry name or a
//! file described on the spot), the preprocessing, the maps that approximate the kernel, the
//! ladder of D, the learners, and the bandwidth's scale. Each decision is written down
//! ([`Setup::decisions`]) for the report.

use std::path::Path;

use super::data::resolve_data;
use super::options::CompareOptions;
use crate::error::{Error, Result};
use rfbench_data::{Norm, Prepared, Step, Task};
use rfbench_registry::params::MAX_COUNT;
use rfbench_registry::{KernelInfo, LearnerInfo, Needs, Series, TaskKind};

/// Rows of the tuning and pilot runs (a subsample of the data when it has more).
pub const PILOT_ROWS: usize = 2000;

/// Rows per class the tuning run takes where the data has them, whatever the time: a bandwidth
/// chosen on about 30 rows a class (766 rows of a 26-class set, sized by the time a busy machine
/// measured) was 2.7 times scikit-learn's and cost the exact machine 1.9 points.
pub const TUNING_ROWS_PER_CLASS: usize = 100;

/// The fewest test rows a drawn split may leave: below it a score is a handful of coin flips.
pub const MIN_TEST_ROWS: usize = 10;

/// The exact machine's penalty values the tuning run tries when the machine cannot choose its
/// own by cross-validation (the kernel SVM's C): every other power of 2 from 2^-3 to 2^11, the
/// middle of LIBSVM's `grid.py` range (2^-5..2^15), in increasing order so that a tie goes to the
/// smaller cost, the smoother fit. A choice at either end is reported as at an edge.
pub const EXACT_PENALTIES: [f64; 8] = [0.125, 0.5, 2.0, 8.0, 32.0, 128.0, 512.0, 2048.0];

/// Everything the specs of a comparison are written from.
#[derive(Debug, Clone)]
pub struct Setup {
    pub dataset: String,
    /// The `[[dataset]]` table of a described file (`None`: the root's registry has it).
    pub embedded: Option<toml::Value>,
    pub task: Task,
    pub n: usize,
    pub n_train: usize,
    pub d: usize,
    /// Whether the data has its own test rows (else every repetition draws a split).
    pub has_test: bool,
    pub test_fraction: f64,
    pub kernel: &'static KernelInfo,
    pub degree: u32,
    /// Candidate bandwidths (empty for the polynomial kernel; one when given by `--sigma`).
    pub sigmas: Vec<f64>,
    /// The median distance the candidates are multiples of (`None`: no candidates, or one given).
    pub median: Option<f64>,
    pub normalise: Step,
    /// The series compared: each map, and the variants the registry has compare sweep beside
    /// it (RFF's phase form), each with its own ladder, penalty and decisions.
    pub maps: Vec<Series>,
    pub ladder: Vec<usize>,
    /// The learner on the features and on the raw inputs.
    pub learner: &'static LearnerInfo,
    /// The learner on the exact kernel: the learner's exact counterpart where it does the task,
    /// else the registry's default for the task.
    pub exact_learner: &'static LearnerInfo,
    /// The learner's regularisation parameter (`C`, `lambda`).
    pub penalty: &'static str,
    /// The exact machine's.
    pub exact_penalty: &'static str,
    pub repetitions: usize,
    pub seed: u64,
    /// What was guessed about the data file, for the report.
    pub guesses: Vec<String>,
    /// The data's labels in file order: what the split of each repetition is drawn from
    /// ([`super::splits`]).
    pub labels: Vec<f64>,
}

impl Setup {
    pub fn decide(options: &CompareOptions, root: &Path) -> Result<Setup> {
        let (entry, embedded, guesses) = resolve_data(options, root)?;
        let fetch = rfbench_data::FetchOptions::from_env();
        let dataset = rfbench_data::load(&entry, &fetch)?;
        let (n, d) = (dataset.x.n_rows(), dataset.x.n_cols());
        let labels = dataset.y.clone();
        let has_test = dataset.n_train < n;
        let n_train = if has_test {
            dataset.n_train
        } else {
            n - ((n as f64) * options.test_size).round() as usize
        };
        let task = TaskKind::from(entry.task);
        let Some(kernel) = rfbench_registry::kernel(&options.kernel) else {
            return Err(Error::Experiment(format!(
                "unknown kernel {:?}; known: {:?}",
                options.kernel,
                rfbench_registry::kernel_names()
            )));
        };
        if kernel.tuning_map.is_none() {
            // The linear kernel: its features are the inputs, and the linear baseline compare
            // always runs is its exact machine.
            return Err(Error::Experiment(format!(
                "--kernel {}: the kernel needs no approximation (the linear baseline compare \
                 always runs is its exact machine); choose gaussian, laplacian, matern or \
                 polynomial",
                kernel.name
            )));
        }
        let has_degree = kernel.params.iter().any(|p| p.name == "degree");
        if has_degree && !(1..=64).contains(&options.degree) {
            return Err(Error::Experiment(format!(
                "--degree {}: the polynomial kernel's degree is 1 to 64",
                options.degree
            )));
        }
        let normalise = kernel.normalisation;
        dense_fits(&entry.name, normalise, n, d)?;
        let maps = choose_maps(kernel, options.maps.as_deref())?;
        let (sigmas, median) = bandwidths(options, kernel, dataset, normalise)?;
        let learner = learner(options.learner.as_deref(), task)?;
        let exact_learner = exact_learner(learner, task)?;
        let ladder = ladder(options.max_components, options.quick)?;
        if n_train < 10 {
            return Err(Error::Experiment(format!(
                "{} has {n_train} training rows: too few for 3-fold cross-validation",
                entry.name
            )));
        }
        if !has_test && (n as f64 * options.test_size) < MIN_TEST_ROWS as f64 {
            return Err(Error::Experiment(format!(
                "--test-size {}: {:.0} of {n} rows would be test rows; at least {MIN_TEST_ROWS} \
                 are needed for a score to mean anything",
                options.test_size,
                (n as f64 * options.test_size).floor()
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
            exact_learner,
            penalty: learner.penalty.unwrap_or_default(),
            exact_penalty: exact_learner.penalty.unwrap_or_default(),
            repetitions: options.repetitions,
            seed: options.seed,
            guesses,
            labels,
        })
    }

    pub fn classification(&self) -> bool {
        self.task != Task::Regression
    }

    pub fn task_kind(&self) -> TaskKind {
        TaskKind::from(self.task)
    }

    /// The names of the series compared (maps, and variants such as `rff:phase`), in the
    /// registry's order.
    pub fn map_names(&self) -> Vec<&'static str> {
        self.maps.iter().map(Series::name).collect()
    }

    /// The preprocessing of the specs: a subsample (tuning and pilot), a new split per
    /// repetition where the data has no test rows, then the kernel's normalisation.
    pub fn preprocess(&self, subsample: Option<usize>) -> Vec<Step> {
        let mut steps = Vec::new();
        if let Some(n) = subsample.filter(|&n| n < self.n) {
            steps.push(Step::Subsample { n, seed: self.seed });
        }
        if !self.has_test {
            steps.push(Step::Split {
                test_fraction: self.test_fraction,
                stratify: self.classification(),
            });
        }
        steps.push(self.normalise);
        steps
    }

    /// How the exact machine's own values are chosen, in the same tuning run.
    fn exact_tuning(&self) -> String {
        let bandwidth = match self.kernel.bandwidth_param() {
            Some(p) if self.median.is_some() => Some(p.name),
            _ => None,
        };
        let penalty = self.exact_penalty;
        match (bandwidth, self.exact_learner.tunes_penalty()) {
            (Some(b), true) => {
                format!("the exact machine's own {b} and {penalty} by the same cross-validation")
            }
            (None, true) => {
                format!("the exact machine's own {penalty} by the same cross-validation")
            }
            (b, false) => {
                format!(
                "the exact machine's own {}{penalty} among {} by the score on the tuning run's \
                 held-out rows (two splits)",
                b.map_or(String::new(), |b| format!("{b} by the same cross-validation and its ")),
                list(&EXACT_PENALTIES)
            )
            }
        }
    }

    /// The tuning run's steps: a subsample with a validation split of it in every repetition.
    /// Data with its own test file gives up its test rows first: nothing is tuned on them.
    pub fn tuning_preprocess(&self, rows: usize) -> Vec<Step> {
        if !self.has_test {
            return self.preprocess(Some(rows));
        }
        let mut steps = vec![Step::TrainRows];
        if self.n_train > rows {
            steps.push(Step::Subsample {
                n: rows,
                seed: self.seed,
            });
        }
        steps.push(Step::Split {
            test_fraction: self.test_fraction,
            stratify: self.classification(),
        });
        steps.push(self.normalise);
        steps
    }

    /// The rows the tuning run takes: the data's (its training rows', with a test file), at most
    /// [`PILOT_ROWS`] or [`TUNING_ROWS_PER_CLASS`] per class, the larger.
    pub fn tuning_rows(&self) -> usize {
        let rows = if self.has_test { self.n_train } else { self.n };
        rows.min(PILOT_ROWS.max(self.per_class_rows()))
    }

    /// [`TUNING_ROWS_PER_CLASS`] for each class (0 for regression).
    fn per_class_rows(&self) -> usize {
        match self.classification() {
            true => TUNING_ROWS_PER_CLASS * self.classes(),
            false => 0,
        }
    }

    /// The number of distinct labels.
    pub fn classes(&self) -> usize {
        let mut values: Vec<u64> = self.labels.iter().map(|y| y.to_bits()).collect();
        values.sort_unstable();
        values.dedup();
        values.len()
    }

    /// The fewest rows the time budget may cut the tuning run to: [`TUNING_ROWS_PER_CLASS`] per
    /// class, at most the tuning run's rows.
    pub fn fewest_tuning_rows(&self) -> usize {
        self.per_class_rows().min(self.tuning_rows())
    }

    /// One line per default chosen, for the report and the spec's header.
    pub fn decisions(&self) -> Vec<String> {
        let mut out = self.guesses.clone();
        let rows = match self.has_test {
            true => format!(
                "{} training rows and {} test rows",
                self.n_train,
                self.n - self.n_train
            ),
            false => format!("{} rows", self.n),
        };
        out.push(format!(
            "data: {} ({rows}, {} features); {}",
            self.dataset,
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
        out.push(format!(
            "kernel: {}{}",
            self.kernel.name,
            self.kernel_note()
        ));
        out.push(format!("maps: {}", self.map_names().join(", ")));
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
             exact kernel; {} by 3-fold cross-validation on the training rows of the tuning \
             run; {}",
            self.learner.name,
            self.exact_learner.name,
            self.penalty,
            self.exact_tuning()
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
            (Some(m), [first, .., last]) => format!(
                ", sigma chosen by 3-fold cross-validation from {} ({} to {} times the median \
                 {} distance {m:.4} of 1,000 random pairs of training rows)",
                list(&self.sigmas),
                first / m,
                last / m,
                self.kernel.bandwidth_norm.unwrap_or(Norm::L2).name()
            ),
            _ => format!(
                ", degree {}, offset 0, rows scaled to unit norm",
                self.degree
            ),
        }
    }
}

/// The candidate bandwidths and the median distance they are multiples of: 0.25 to 4 times the
/// median, one value given by `--sigma`, or none (a kernel without a bandwidth).
fn bandwidths(
    options: &CompareOptions,
    kernel: &KernelInfo,
    dataset: rfbench_data::Dataset,
    normalise: Step,
) -> Result<(Vec<f64>, Option<f64>)> {
    let Some(norm) = kernel.bandwidth_norm else {
        return match options.sigma {
            None => Ok((Vec::new(), None)),
            Some(_) => Err(Error::Experiment(format!(
                "--sigma: the {} kernel has no bandwidth",
                kernel.name
            ))),
        };
    };
    match options.sigma {
        Some(sigma) if !(sigma.is_finite() && sigma > 0.0) => Err(Error::Experiment(format!(
            "--sigma {sigma}: a bandwidth is a positive number"
        ))),
        Some(sigma) => Ok((vec![sigma], None)),
        None => {
            let m = median_distance(dataset, normalise, norm, options.seed)?;
            if !(m.is_finite() && m > 0.0) {
                return Err(Error::Experiment(format!(
                    "the median distance between rows is {m}: (nearly) every row has the same \
                     features, so no bandwidth can be chosen from the data and there is nothing \
                     to learn; check the feature columns (or give --sigma)"
                )));
            }
            let sigmas = [0.25, 0.5, 1.0, 2.0, 4.0].iter().map(|f| f * m).collect();
            Ok((sigmas, Some(m)))
        }
    }
}

/// The learners on features that `compare` can use for `task`: those that do it and choose
/// their penalty by cross-validation.
fn feature_learners(task: TaskKind) -> impl Iterator<Item = &'static LearnerInfo> {
    rfbench_registry::LEARNERS
        .iter()
        .filter(move |l| l.needs == Needs::Features && l.does(task) && l.tunes_penalty())
}

/// The learner on the features: `--learner`, or the registry's default for the task.
fn learner(named: Option<&str>, task: TaskKind) -> Result<&'static LearnerInfo> {
    let found = match named {
        Some(name) => feature_learners(task).find(|l| l.name == name),
        None => rfbench_registry::compare_default_learner(task, Needs::Features),
    };
    found.ok_or_else(|| {
        let names: Vec<&str> = feature_learners(task).map(|l| l.name).collect();
        let task = match task {
            TaskKind::Classification => "a classification task",
            TaskKind::Regression => "a regression task",
        };
        Error::Experiment(format!(
            "--learner {}: {} ({task})",
            named.unwrap_or("(default)"),
            names.join(" or ")
        ))
    })
}

/// The exact machine for `learner` on `task`: its exact counterpart where it does the task,
/// else the registry's default exact machine for the task.
fn exact_learner(learner: &LearnerInfo, task: TaskKind) -> Result<&'static LearnerInfo> {
    let counterpart = learner
        .exact_counterpart
        .and_then(rfbench_registry::learner)
        .filter(|l| l.does(task));
    counterpart
        .or_else(|| rfbench_registry::compare_default_learner(task, Needs::Kernel))
        .ok_or_else(|| Error::Experiment(format!("no exact kernel machine does {task:?}")))
}

/// Numbers as a TOML list.
pub fn list(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[{}]", items.join(", "))
}

/// The registry's feature maps that approximate `kernel` and are in the default comparison,
/// each with the variants the registry sweeps beside it (or the series named, each checked: a
/// map's name, or a variant's such as `rff:phase`).
fn choose_maps(kernel: &KernelInfo, named: Option<&[String]>) -> Result<Vec<Series>> {
    let all: Vec<Series> = rfbench_registry::MAPS
        .iter()
        .filter(|m| m.is_feature_map() && m.kernels.contains(&kernel.name))
        .flat_map(rfbench_registry::series::of_map)
        .collect();
    let Some(named) = named else {
        let maps: Vec<_> = all
            .into_iter()
            .filter(|s| s.map.in_default_comparison)
            .collect();
        if maps.is_empty() {
            return Err(Error::Experiment(format!(
                "no map of the registry approximates the {} kernel",
                kernel.name
            )));
        }
        return Ok(maps);
    };
    if let Some(twice) = named
        .iter()
        .enumerate()
        .find(|(k, m)| named[..*k].contains(m))
    {
        return Err(Error::Experiment(format!(
            "--maps: {} is named twice",
            twice.1
        )));
    }
    named
        .iter()
        .map(|m| {
            all.iter().copied().find(|a| a.name() == m).ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(Series::name).collect();
                let what = match rfbench_registry::series::named(m) {
                    Some(_) => format!("does not approximate the {} kernel", kernel.name),
                    None => "is not a map of the registry".to_string(),
                };
                Error::Experiment(format!(
                    "map {m:?} {what}; maps for the {} kernel: {}",
                    kernel.name,
                    names.join(", ")
                ))
            })
        })
        .collect()
}

/// 64, 128, ... up to `max` (and `max` itself); `--quick`: three rungs. `max` is at most the
/// largest count a spec accepts, so that the sweep's spec plans (and the doubling cannot
/// overflow).
fn ladder(max: usize, quick: bool) -> Result<Vec<usize>> {
    if max < 64 {
        return Err(Error::Experiment(format!(
            "--max-components {max}: the ladder starts at 64"
        )));
    }
    if max as u128 > MAX_COUNT as u128 {
        return Err(Error::Experiment(format!(
            "--max-components {max}: at most {MAX_COUNT}"
        )));
    }
    let mut rungs: Vec<usize> = std::iter::successors(Some(64usize), |&d| d.checked_mul(2))
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

/// Refuses data whose column scaling (`standardize`, `min-max`: every value made explicit) would
/// take more than half this machine's memory: a dense copy (8 bytes a value) and the sparse
/// matrix it becomes (16). A 637 KB LIBSVM file with a feature index near 10^7 aborted the
/// process building an 8 GB copy.
fn dense_fits(name: &str, normalise: Step, n: usize, d: usize) -> Result<()> {
    if !matches!(normalise, Step::Standardize | Step::MinMax { .. }) {
        return Ok(());
    }
    let bytes = n as u128 * d as u128 * 24;
    let limit = crate::memory::default_limit() as u128 / 2;
    if bytes <= limit {
        return Ok(());
    }
    let gb = |b: u128| b as f64 / 1e9;
    Err(Error::Experiment(format!(
        "{name}: {n} rows x {d} features; scaling the columns makes every value explicit, about \
         {:.1} GB, more than half this machine's memory ({:.1} GB). Give a file with fewer \
         columns, or --kernel polynomial (its rows are scaled to unit norm and stay sparse)",
        gb(bytes),
        gb(2 * limit)
    )))
}

/// The median distance in the kernel's norm (the one its bandwidth scales: L1 for the
/// Laplacian) of 1,000 random pairs of training rows after the normalisation: the runner's
/// `"median"` rule.
fn median_distance(
    dataset: rfbench_data::Dataset,
    normalise: Step,
    norm: Norm,
    seed: u64,
) -> Result<f64> {
    let mut prepared = Prepared::from(dataset);
    prepared.apply(&normalise, seed)?;
    let train = prepared
        .x
        .select_rows(&(0..prepared.n_train).collect::<Vec<_>>());
    Ok(rfbench_data::distance_percentile(
        &train, norm, 50.0, 1000, seed,
    )?)
}

#[cfg(test)]
#[path = "setup_tests.rs"]
mod tests;
