//! `rfbench compare DATA`: which map, at what D, on this data, in one command.
//!
//! Four steps, each an ordinary spec written to the output folder and run by the runner, so
//! that every number of the answer can be rerun and edited by hand:
//! 1. [`setup`]: the data (a registry name, or a file described on the spot), the defaults a
//!    careful researcher would choose, every one written down;
//! 2. `tune.toml`: the bandwidth (multiples of the median distance) and the learner's penalty by
//!    cross-validation, on a subsample, with one map;
//! 3. `pilot.toml`: every map's cost at two values of D on the subsample; [`budget`]
//!    extrapolates it to the whole sweep and keeps the cells that fit the time budget;
//! 4. `compare.toml`: the sweep, in [`rounds`] up the ladder of D (a map stops once it has
//!    plateaued); `gram.toml`: each map's Gram-matrix error at the sweep's D on
//!    a few training rows; then [`report`]: the recommendation, the table, the figures.

pub mod budget;
pub mod pareto;
pub mod report;
pub mod rounds;
pub mod setup;
pub mod specs;
#[cfg(test)]
mod test_support;
mod tuning;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::error::{Error, Result};
use crate::outputs::Results;
use crate::results::ResultRow;
use crate::run::{self, Outcome, RunOptions};
use crate::spec::Profile;
use rfbench_data::atomic::replace_file;
use rfbench_data::Task;

use setup::{Setup, PILOT_ROWS};
use specs::Tuned;

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
    pub report: String,
    pub report_path: PathBuf,
    pub spec: PathBuf,
    /// The budget model's estimate of the sweep, and the seconds everything took.
    pub estimate: f64,
    pub seconds: f64,
    pub outcome: Outcome,
}

/// The first line of every file `compare` writes, and the digest line that ends it: a file
/// whose digest still matches was not edited and may be replaced by a rerun.
const MARK: &str = "# rfbench-compare-digest: ";

pub fn compare(options: &CompareOptions, run: &RunOptions) -> Result<Compared> {
    let start = Instant::now();
    if !(options.test_size > 0.0 && options.test_size < 1.0) {
        return Err(Error::Experiment(format!(
            "--test-size {}: a fraction in (0, 1)",
            options.test_size
        )));
    }
    if options.repetitions < 2 {
        return Err(Error::Experiment(format!(
            "--repetitions {}: at least 2, to tell a difference from noise",
            options.repetitions
        )));
    }
    let setup = Setup::decide(options, &run.root)?;
    std::fs::create_dir_all(&options.out).map_err(|e| Error::io(&options.out, e))?;
    let run = RunOptions {
        out_dir: options.out.clone(),
        ..run.clone()
    };

    eprintln!(
        "compare: tuning the maps' and the exact machine's values on a subsample of at most \
         {PILOT_ROWS} rows"
    );
    let tune = run_spec(&options.out, "tune", &specs::tune(&setup)?, &run, &[])?;
    let chosen = tuning::chosen(&setup, &read(&tune)?.rows)?;
    let tuned = chosen.tuned;
    eprintln!("compare: {}", tuned_line(&setup, &tuned));
    for warning in &chosen.warnings {
        eprintln!("compare: warning: {warning}");
    }
    let pilot_train = pilot_train_rows(&setup);
    let pilot_d = budget::pilot_d(&setup, pilot_train);
    eprintln!(
        "compare: pilot run (every map at D = {} and {pilot_d})",
        setup.ladder[0]
    );
    let pilot = run_spec(
        &options.out,
        "pilot",
        &specs::pilot(&setup, tuned, pilot_d)?,
        &run,
        &[],
    )?;
    let scale = setup.n_train as f64 / pilot_train as f64;
    let estimates = budget::estimate(&setup, &read(&pilot)?.rows, pilot_d, scale);
    let remaining = options.budget - start.elapsed().as_secs_f64();
    // A tenth of what is left is kept for the Gram errors, measured after the sweep.
    let sweep = budget::fit(&setup, &estimates, 0.9 * remaining.max(0.0));
    let estimate = budget::total(&setup, &estimates, &sweep);
    let plan_note = plan_note(&sweep, estimate, remaining, options.budget);
    eprintln!("compare: {plan_note}");

    let sweep_start = Instant::now();
    let clock = rounds::Clock {
        estimates: &estimates,
        deadline: sweep_start + std::time::Duration::from_secs_f64(0.9 * remaining.max(0.0)),
        repetitions: setup.repetitions as f64,
    };
    let (outcome, sweep) = rounds::run(&options.out, &setup, tuned, &sweep, &run, &clock)?;
    let sweep_seconds = sweep_start.elapsed().as_secs_f64();
    let results = read(&outcome)?;
    let mut lines = report::lines(&setup, &results, &estimates);
    report::add_memory(&mut lines, &outcome.plan, setup.n, setup.d);
    if sweep.per_map.iter().any(|(_, ds)| !ds.is_empty()) {
        eprintln!(
            "compare: the maps' Gram-matrix errors on {} training rows",
            specs::GRAM_ROWS
        );
        let gram = run_spec(
            &options.out,
            "gram",
            &specs::gram(&setup, tuned, &sweep)?,
            &run,
            &[],
        )?;
        report::add_gram_errors(&mut lines, &read(&gram)?);
    }
    let seconds = start.elapsed().as_secs_f64();
    let mut note = format!(
        "{} {plan_note} The sweep took {sweep_seconds:.0} s; everything, tuning and pilot \
         included, {seconds:.0} s.",
        tuned_line(&setup, &tuned)
    );
    for warning in &chosen.warnings {
        note.push_str(&format!("\n\nWarning: {warning}."));
    }
    let score_label = if setup.classification() {
        "Test accuracy (%)"
    } else {
        "-normalised RMSE (% of the targets' sd)"
    };
    pareto::draw(
        &lines,
        score_label,
        &specs::files(&options.out, "compare").figure(Some(report::PARETO)),
    )?;
    let report = report::markdown(&setup, &lines, &note, &sweep.skipped);
    let report_path = options.out.join("report.md");
    replace_file(&report_path, report.as_bytes()).map_err(|e| Error::io(&report_path, e))?;
    Ok(Compared {
        report,
        report_path,
        spec: options.out.join("compare.toml"),
        estimate,
        seconds,
        outcome,
    })
}

/// The values tuned, the maps' and the exact machine's own, in one sentence.
fn tuned_line(setup: &Setup, tuned: &Tuned) -> String {
    let bandwidth = setup.kernel.bandwidth_param().map(|p| p.name);
    let with_sigma = |sigma: Option<f64>| match (bandwidth, sigma) {
        (Some(name), Some(s)) => format!("{name} = {s:.4}, "),
        _ => String::new(),
    };
    format!(
        "Tuned on the tuning run's training rows: for the maps (with {} on {}), {}{} = {:.4}; \
         for the exact machine ({}), its own {}{} = {:.4}.",
        setup.learner.name,
        specs::tuning_map(setup),
        with_sigma(tuned.sigma),
        setup.penalty,
        tuned.penalty,
        setup.exact_learner.name,
        with_sigma(tuned.exact_sigma),
        setup.exact_penalty,
        tuned.exact_penalty
    )
}

fn plan_note(sweep: &budget::Sweep, estimate: f64, remaining: f64, budget: f64) -> String {
    let cells: usize = sweep.per_map.iter().map(|(_, ds)| ds.len()).sum();
    format!(
        "The sweep planned: {cells} (map, D) cells (fewer where a map plateaued), the linear \
         baseline{}; estimated {estimate:.0} s of the {remaining:.0} s left of the {budget:.0} s budget after tuning and the pilot.",
        match sweep.exact_train_size {
            Some(0) => " and the exact kernel machine".to_string(),
            Some(m) => format!(" and the exact kernel machine on {m} training rows"),
            None => String::new(),
        }
    )
}

/// The pilot's training rows: the subsample's share of the training rows.
fn pilot_train_rows(setup: &Setup) -> usize {
    let rows = setup.n.min(PILOT_ROWS);
    ((rows as f64) * setup.n_train as f64 / setup.n as f64)
        .round()
        .max(1.0) as usize
}

/// Writes `NAME.toml` into `dir` (refusing to replace a file the user edited) and runs it,
/// taking `earlier`'s rows for the cells they measured. A failed cell of the pilot or the sweep
/// is reported and left out (the report says why); the tuning run must succeed.
fn run_spec(
    dir: &Path,
    name: &str,
    spec: &specs::Written,
    run: &RunOptions,
    earlier: &[ResultRow],
) -> Result<Outcome> {
    let path = dir.join(format!("{name}.toml"));
    write_marked(&path, &spec.text())?;
    let spec = path.to_string_lossy().into_owned();
    let outcome = run::reproduce_reusing(&spec, &Profile::Full, run, earlier)?;
    for failed in &outcome.failed {
        eprintln!("compare: {name}: failed: {failed}");
    }
    if name == "tune" && !outcome.failed.is_empty() {
        return Err(Error::Experiment(format!(
            "{}: {} run(s) failed:\n  {}",
            path.display(),
            outcome.failed.len(),
            outcome.failed.join("\n  ")
        )));
    }
    Ok(outcome)
}

fn read(outcome: &Outcome) -> Result<Results> {
    Ok(
        Results::from_csv(&outcome.csv, &outcome.plan.output_columns())?
            .with_sums(&outcome.plan.sums),
    )
}

/// The bandwidth and penalties the tuning run chose: the bandwidth and penalty of the learner
/// on the features, and the exact machine's penalty (by linear-svm's row when the learner's
/// penalty is another).

/// A 64-bit hash of `text` (the seeds' FNV-1a derivation): enough to tell whether a file was
/// edited since it was written.
fn digest(text: &str) -> String {
    format!("{:016x}", crate::seeds::derive_seed(0, text))
}

/// Writes `text` with a digest line, atomically; a file already there is replaced only when it
/// is one of ours that nobody edited.
fn write_marked(path: &Path, text: &str) -> Result<()> {
    if let Ok(old) = std::fs::read_to_string(path) {
        let edited = match old.rsplit_once(MARK) {
            Some((body, tail)) => digest(body) != tail.trim(),
            None => true,
        };
        if edited {
            return Err(Error::Experiment(format!(
                "{} exists and was not written by this command as it is now (edited?): rerun \
                 it with `rfbench reproduce {}`, or give compare another --out",
                path.display(),
                path.display()
            )));
        }
    }
    let marked = format!("{text}{MARK}{}\n", digest(text));
    replace_file(path, marked.as_bytes()).map_err(|e| Error::io(path, e))
}
