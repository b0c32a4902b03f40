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
//!    plateaued); `confirm-N.toml`: more repetitions of the cheapest cells the sweep's could not
//!    decide ([`confirm`], [`decide`]); `gram.toml`: each map's Gram-matrix error at the sweep's
//!    D on a few training rows; then the [`answer`] (one line, and `answer.json`) and the
//!    [`report`]: the recommendation, the table, the figures.

pub mod answer;
pub mod budget;
pub mod confirm;
pub mod decide;
pub mod last_rungs;
pub mod lines;
pub mod pareto;
pub mod report;
pub mod rounds;
pub mod series;
pub mod setup;
pub mod specs;
pub mod splits;
mod steps;
#[cfg(test)]
mod test_support;
mod tuning;

use std::path::PathBuf;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::run::{Outcome, RunOptions};
use rfbench_data::atomic::replace_file;
use rfbench_data::Task;

use setup::Setup;
use specs::Tuned;
pub use steps::refuse_own_folder;
use steps::{read, run_spec, Context, Progress};

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
    /// The one-line answer ([`answer::sentence`]).
    pub answer: String,
    pub report: String,
    pub report_path: PathBuf,
    pub spec: PathBuf,
    /// The budget model's estimate of the sweep, and the seconds everything took.
    pub estimate: f64,
    pub seconds: f64,
    pub outcome: Outcome,
}

pub fn compare(options: &CompareOptions, run: &RunOptions) -> Result<Compared> {
    let start = Instant::now();
    let progress = Progress::new(options.budget);
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
    steps::claim_folder(&options.out)?;
    let run = RunOptions {
        out_dir: options.out.clone(),
        ..run.clone()
    };

    let (chosen, rows, tuning_rows) =
        tuning::run(&options.out, &setup, &run, &progress, options.budget)?;
    let mut tuned = chosen.tuned;
    progress.say(&tuned_line(&setup, &tuned));
    for warning in &chosen.warnings {
        progress.say(&format!("warning: {warning}"));
    }
    let pilot_train = budget::pilot_train(&setup);
    let pilot_d = budget::pilot_d(&setup, pilot_train);
    let pilot_ds = match pilot_d == setup.ladder[0] {
        true => format!("D = {pilot_d}"),
        false => format!("D = {} and {pilot_d}", setup.ladder[0]),
    };
    progress.say(&format!("pilot run (every map at {pilot_ds})"));
    let pilot = run_spec(
        &options.out,
        "pilot",
        &specs::pilot(&setup, tuned, pilot_d)?,
        &run,
        &[],
    )?;
    let scale = setup.n_train as f64 / pilot_train as f64;
    let estimates = budget::estimate(&setup, &read(&pilot)?.rows, pilot_d, pilot_train, scale);
    let own = Context {
        out: &options.out,
        setup: &setup,
        tuned,
        run: &run,
        progress: &progress,
    };
    let own_notes = tuning::per_map(&own, &mut tuned, &estimates, pilot_d, rows, options.budget)?;
    for note in &own_notes {
        progress.say(note);
    }
    let remaining = options.budget - start.elapsed().as_secs_f64();
    // A tenth of what is left is kept for the Gram errors, measured after the sweep.
    let sweep = budget::fit(&setup, &estimates, 0.9 * remaining.max(0.0));
    if sweep.per_map.iter().all(|(_, ds)| ds.is_empty()) {
        return Err(too_small(&setup, &estimates, options.budget, &progress));
    }
    let estimate = budget::total(&setup, &estimates, &sweep);
    let plan_note = plan_note(&sweep, estimate, remaining, options.budget);
    progress.expect_end(progress.elapsed() + estimate / 0.9);
    progress.say(&plan_note);

    let sweep_start = Instant::now();
    let clock = rounds::Clock {
        estimates: &estimates,
        deadline: sweep_start + std::time::Duration::from_secs_f64(0.9 * remaining.max(0.0)),
        repetitions: setup.repetitions as f64,
        after: estimate / 0.9 - estimate,
    };
    let context = Context {
        out: &options.out,
        setup: &setup,
        tuned,
        run: &run,
        progress: &progress,
    };
    let (outcome, sweep) = rounds::run(&context, &sweep, &clock)?;
    let left = clock
        .deadline
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    let allowance = (last_rungs::LAST_SHARE * options.budget).min(0.5 * left);
    let (outcome, last_notes) = settle_penalties(
        &context, &mut tuned, &sweep, &estimates, rows, allowance, outcome,
    )?;
    let context = Context { tuned, ..context };
    let results = read(&outcome)?;
    let mut lines = lines::lines(&setup, &results, &estimates);
    lines::add_memory(&mut lines, &outcome.plan, setup.n, setup.d);
    let confirmed = confirm::run(&context, &mut lines, outcome.rows.clone(), clock.deadline)?;
    let sweep_seconds = sweep_start.elapsed().as_secs_f64();
    let mut skipped = sweep.skipped.clone();
    skipped.extend(gram_errors(&context, &sweep, &mut lines, options.budget)?);
    let seconds = start.elapsed().as_secs_f64();
    let mut note = format!(
        "{} {plan_note} The sweep took {sweep_seconds:.0} s; everything, tuning and pilot \
         included, {seconds:.0} s.",
        tuned_line(&setup, &tuned)
    );
    note.push_str(&format!(" The tuning ran {tuning_rows}."));
    note.push_str(&last_rungs::sentence(&setup, &tuned));
    for sentence in own_notes.iter().chain(&last_notes) {
        note.push_str(&format!(" {sentence}."));
    }
    for sentence in &confirmed.notes {
        note.push_str(&format!(" Confirmation: {sentence}."));
    }
    for warning in &chosen.warnings {
        note.push_str(&format!("\n\nWarning: {warning}."));
    }
    pareto::draw(
        &lines,
        !setup.classification(),
        &specs::files(&options.out, "compare").figure(Some(report::PARETO)),
    )?;
    let answer = answer::sentence(&lines);
    let json = answer::json(&setup, &lines, &tuned, &chosen.warnings);
    write_json(&options.out.join("answer.json"), &json)?;
    let repetitions = lines.iter().filter_map(|l| l.scores.keys().max()).max();
    let splits = splits::json(&setup, &outcome.plan, repetitions.map_or(0, |r| r + 1))?;
    if let Some(splits) = splits {
        write_json(&options.out.join("splits.json"), &splits)?;
    }
    let opening = match answer::counterpart(&setup, &lines, &tuned) {
        Some(sklearn) => format!("{answer}\n\n{sklearn}"),
        None => answer.clone(),
    };
    let report = report::markdown(&setup, &lines, &opening, &note, &skipped);
    let report_path = options.out.join("report.md");
    replace_file(&report_path, report.as_bytes()).map_err(|e| Error::io(&report_path, e))?;
    Ok(Compared {
        answer,
        report,
        report_path,
        spec: options.out.join("compare.toml"),
        estimate,
        seconds,
        outcome,
    })
}

fn write_json(path: &std::path::Path, value: &serde_json::Value) -> Result<()> {
    let text = format!("{value:#}\n");
    replace_file(path, text.as_bytes()).map_err(|e| Error::io(path, e))
}

/// Fills the lines' Gram errors (`gram.toml`) for the cells of `sweep` whose estimate fits what
/// is left of `budget`; returns the reasons of those left out.
fn gram_errors(
    context: &Context,
    sweep: &budget::Sweep,
    lines: &mut [lines::Line],
    budget: f64,
) -> Result<Vec<String>> {
    let setup = context.setup;
    let seconds = |map: &str, d: usize| {
        let line = lines
            .iter()
            .find(|l| l.map == map && l.d == d && l.train_size == 0);
        line.map(|l| l.seconds)
    };
    let rows = specs::GRAM_ROWS.min(budget::landmarks(setup.n_train));
    let left = budget - context.progress.elapsed();
    let gram = budget::gram_sweep(sweep, seconds, rows, setup.n_train, setup.repetitions, left);
    if gram.per_map.iter().all(|(_, ds)| ds.is_empty()) {
        return Ok(gram.skipped);
    }
    context.progress.say(&format!(
        "the maps' Gram-matrix errors on {rows} training rows"
    ));
    let spec = specs::gram(setup, context.tuned, &gram)?;
    let outcome = context.run_spec("gram", &spec, &[])?;
    lines::add_gram_errors(lines, &read(&outcome)?);
    Ok(gram.skipped)
}

/// The error when no map fits what tuning and the pilot left of `budget`: what the smallest
/// sweep (the baseline, the exact machine and every map at its first D) is estimated to take.
fn too_small(
    setup: &Setup,
    estimates: &budget::Estimates,
    budget: f64,
    progress: &Progress,
) -> Error {
    let first = setup.ladder[0];
    let smallest = budget::Sweep {
        per_map: setup
            .map_names()
            .into_iter()
            .map(|m| (m, vec![first]))
            .collect(),
        exact_train_size: Some(0),
        skipped: Vec::new(),
    };
    let needed = budget::total(setup, estimates, &smallest) / 0.9;
    let spent = progress.elapsed();
    Error::Experiment(format!(
        "--budget {budget}s leaves no time for any map: tuning and the pilot took {spent:.1} s, \
         and the smallest sweep (the linear baseline, the exact machine and every map at D = \
         {first}, {} repetitions) is estimated at {needed:.1} s more. Give --budget {}s or more, \
         or fewer --maps or --repetitions; nothing was compared",
        setup.repetitions,
        (spent + needed).max(2.0 * budget).ceil()
    ))
}

/// Each series' penalty at its last rung ([`last_rungs`]): the series [`last_rungs::plan`]
/// keeps within `allowance` seconds searched again there, and the cells whose penalty changed
/// rerun. Returns the sweep's outcome and the notes for the report.
fn settle_penalties(
    context: &Context,
    tuned: &mut Tuned,
    sweep: &budget::Sweep,
    estimates: &budget::Estimates,
    rows: usize,
    allowance: f64,
    outcome: Outcome,
) -> Result<(Outcome, Vec<String>)> {
    let before = *tuned;
    let tuning_d = specs::tuning_d(context.setup);
    let chosen = |s: &str| last_rungs::chosen_at(&before, tuning_d, s);
    let (searched, mut notes) =
        last_rungs::plan(context.setup, sweep, estimates, rows, allowance, chosen);
    let (outcome, more) = last_rungs::run(context, tuned, sweep, &searched, rows, outcome)?;
    notes.extend(more);
    Ok((outcome, notes))
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
