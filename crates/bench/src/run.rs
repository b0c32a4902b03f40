//! `reproduce` and `check`: a spec end to end (data, sweep, CSV, figure, report) and a regenerated
//! run compared with the committed reference.

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::check::{self, CheckReport};
use crate::data::{self, Prepared, Step};
use crate::error::{Error, Result};
use crate::experiment;
use crate::figure;
use crate::report;
use crate::results::{self, Provenance};
use crate::spec::{check_step_for_maps, load_plan, Plan, Profile};
use crate::summary::Summary;

/// Where a run reads its inputs and writes its outputs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The workspace root: `experiments/`, `datasets.toml`, and the committed `results/`.
    pub root: PathBuf,
    /// Where `results/` and `figures/` are written (the root itself for `reproduce`).
    pub out_dir: PathBuf,
    /// Replaces the spec's master seed (to test that another draw agrees within tolerance).
    pub master_seed: Option<u64>,
    pub progress: bool,
    /// Cache and mirror directories for the datasets.
    pub fetch: data::FetchOptions,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub plan: Plan,
    pub csv: PathBuf,
    pub figure: PathBuf,
    pub report: String,
    pub seconds: f64,
}

/// The dataset, preprocessed as the spec says: its `[data] preprocess` steps in order, or the
/// registry entry's defaults when the spec names none. The steps are checked against the
/// entry's published size and the spec's maps before anything is downloaded; every error names
/// the spec's line (or the registry entry, for its defaults).
pub fn prepare_data(plan: &Plan, root: &Path, fetch: &data::FetchOptions) -> Result<Prepared> {
    let registry_path = root.join("datasets.toml");
    let registry = data::Registry::from_file(&registry_path)?;
    let entry = registry.get(&plan.dataset)?;
    let steps: Vec<(Step, Option<usize>)> = match &plan.preprocess {
        Some(list) => list.iter().map(|p| (p.step, Some(p.line))).collect(),
        None => entry.preprocess.iter().map(|&s| (s, None)).collect(),
    };
    let fail = |line: Option<usize>, problem: String| match line {
        Some(line) => Error::Spec {
            path: plan.source.clone(),
            message: format!("key `data.preprocess` (line {line}): {problem}"),
        },
        None => Error::Experiment(format!(
            "{}: dataset '{}': default preprocess: {problem}",
            registry_path.display(),
            entry.name
        )),
    };
    let mut rows = entry.loaded_rows();
    for &(step, line) in &steps {
        check_step_for_maps(&step, &plan.maps).map_err(|p| fail(line, p))?;
        rows = step.rows_after(rows).map_err(|p| fail(line, p))?;
    }
    let mut prepared = Prepared::from(data::load(entry, fetch)?);
    for &(step, line) in &steps {
        step.apply(&mut prepared)
            .map_err(|e| fail(line, format!("step {:?}: {e}", step.name())))?;
    }
    Ok(prepared)
}

fn progress_bar(len: usize, visible: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len as u64),
        if visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} cells, eta {eta}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs experiment `name` under `profile`: writes `results/STEM.csv` and `figures/STEM.png`
/// under `out_dir` (STEM is the name, plus `.quick` for the quick profile).
pub fn reproduce(name: &str, profile: Profile, options: &RunOptions) -> Result<Outcome> {
    let start = Instant::now();
    let mut plan = load_plan(&options.root, name, profile)?;
    if let Some(seed) = options.master_seed {
        plan.master_seed = seed;
    }
    let x = prepare_data(&plan, &options.root, &options.fetch)?.x;
    let n_cells = experiment::cells(&plan).len();
    let bar = progress_bar(n_cells, options.progress);
    let rows = experiment::run(&plan, &x, || bar.inc(1))?;
    bar.finish_and_clear();

    let stem = profile.stem(&plan.name);
    let csv = options.out_dir.join("results").join(format!("{stem}.csv"));
    let mut frame = results::to_frame(&plan, &rows, &Provenance::collect(&options.root))?;
    results::write_csv(&mut frame, &csv)?;

    // Everything below is drawn from the file just written, as a later `rfbench figure` would.
    let written = results::read_csv(&csv)?;
    let summary = Summary::from_frame(&written, &plan.figure.y, &csv)?;
    let figure_path = options.out_dir.join("figures").join(format!("{stem}.png"));
    let title = format!("{} [{} profile]", plan.title, profile.name());
    figure::draw(
        &summary,
        &title,
        &plan.figure.x_label,
        &plan.figure.y_label,
        &figure_path,
    )?;
    let report = report::render(&summary, &plan.paper_values);
    Ok(Outcome {
        plan,
        csv,
        figure: figure_path,
        report,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Regenerates experiment `name` into a temporary directory and compares it with the committed
/// `results/STEM.csv` under the spec's tolerances.
pub fn check(name: &str, profile: Profile, options: &RunOptions) -> Result<(CheckReport, Outcome)> {
    let reference_path = options
        .root
        .join("results")
        .join(format!("{}.csv", profile.stem(name)));
    let reference = results::read_csv(&reference_path)?;
    let scratch =
        tempfile::tempdir().map_err(|e| Error::io(Path::new("temporary directory"), e))?;
    let outcome = reproduce(
        name,
        profile,
        &RunOptions {
            out_dir: scratch.path().to_path_buf(),
            ..options.clone()
        },
    )?;
    let regenerated = results::read_csv(&outcome.csv)?;
    let report = check::compare(
        &reference,
        &reference_path,
        &regenerated,
        &outcome.csv,
        &outcome.plan.check_columns,
        outcome.plan.check_z,
    )?;
    Ok((report, outcome))
}
