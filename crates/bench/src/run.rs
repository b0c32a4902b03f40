//! `reproduce` and `check`: a spec end to end (data, cells, CSV, figures, tables, report) and a
//! regenerated run compared with the committed reference.
//!
//! The pipeline is spec -> plan -> cells -> CSV -> everything else read back from the CSV, so
//! what the figures, tables and report show is what the written file says.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rfbench_maps::Kernel;

use crate::check::{self, CheckReport};
use crate::error::{Error, Result};
use crate::files::SpecFiles;
use crate::kinds::{self, CellContext, KernelSearch};
use crate::memory;
use crate::outputs::{self, Labels, RenderContext, Rendered, Results};
use crate::partial::{self, Partial};
use crate::results::{self, CellOutcome, CellValue, Coordinates, Provenance, ResultRow};
use crate::run_id::RunId;
use crate::schedule;
use crate::seeds::derive_seed;
use crate::shard::{self, Manifest, Shard};
use crate::spec::{load_plan, Cell, DatasetSource, Plan, Profile, SpecError};
use crate::staging::{self, Staged};
use rfbench_data::{distance_percentile_among, DataError, Norm, Prepared, Step};
use rfbench_registry::generators::generate;
use rfbench_registry::{BandwidthSearch, ChosenBy, ParamValues, Tuned, Value};

/// Where a run reads its inputs and writes its outputs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The workspace root: `experiments/`, `datasets.toml`, and the committed `results/`.
    pub root: PathBuf,
    /// Where `results/` and `figures/` are written (the root itself for `reproduce`).
    pub out_dir: PathBuf,
    /// Replaces the spec's master seed (to test that another draw agrees statistically).
    pub master_seed: Option<u64>,
    /// Progress: a bar on a terminal, a line every few seconds otherwise, or nothing.
    pub progress: Progress,
    /// Cache and mirror directories for the datasets.
    pub fetch: rfbench_data::FetchOptions,
    /// Bytes a cell may be estimated to need before the plan is refused ([`memory`]); `None`:
    /// the machine's memory.
    pub memory_limit: Option<u64>,
    /// Replace a results file even where rows that ran in it are skipped in this run (their
    /// data is missing on this machine); otherwise such a run writes nothing and says so.
    pub allow_skipped: bool,
    /// Run only this shard's share of the runs, into `results/SPEC/PROFILE.shard-I-of-N.csv` ([`shard`]).
    pub shard: Option<Shard>,
    /// Take the rows a killed run of the same spec finished ([`partial`]) instead of starting
    /// over.
    pub resume: bool,
    /// No run starts after this instant: the runs not yet started are skipped, each saying so
    /// ([`crate::results::CUT_BY_DEADLINE`]; compare's time budget). Runs already started
    /// finish.
    pub deadline: Option<Instant>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Bar,
    Lines,
    Quiet,
}

impl Progress {
    /// A bar on a terminal, lines otherwise (CI, `nohup`, a pipe).
    pub fn detect() -> Progress {
        if std::io::stderr().is_terminal() {
            Progress::Bar
        } else {
            Progress::Lines
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub plan: Plan,
    pub csv: PathBuf,
    pub rendered: Rendered,
    pub seconds: f64,
    /// CPU seconds the process spent over the same span, every thread's (user and system):
    /// divided by `seconds` and the threads, how busy the run kept the cores.
    pub cpu_seconds: f64,
    pub skipped: usize,
    /// The runs that failed (recorded with status `failed` and their error), described.
    pub failed: Vec<String>,
    /// Cells whose cross-validated hyper-parameter sits at an edge of the range searched.
    pub warnings: Vec<String>,
    /// Every row, as written to the CSV.
    pub rows: Vec<ResultRow>,
}

/// The dataset of `cell`, preprocessed as the spec says (its steps, or the registry entry's
/// defaults). `Ok(Err(reason))` when the data cannot be had on this machine (a download
/// without network): its cells are skipped with that reason.
pub(crate) fn prepare_data(
    plan: &Plan,
    cell: &Cell,
    data_seed: u64,
    fetch: &rfbench_data::FetchOptions,
) -> Result<std::result::Result<Prepared, String>> {
    let (dataset, defaults) = match cell.source {
        DatasetSource::Synthetic(generator) => (
            generate(generator, &cell.data_params, data_seed)?,
            Vec::new(),
        ),
        DatasetSource::Registry => {
            let entry = plan.datasets.get(&cell.dataset)?;
            let dataset = match rfbench_data::load(entry, fetch) {
                Ok(d) => d,
                // Data this machine cannot get (no network, a user's own file not here): the
                // cell is skipped with the reason; anything else (a wrong file) is an error.
                Err(e @ (DataError::Download { .. } | DataError::NoSource { .. })) => {
                    return Ok(Err(e.to_string()))
                }
                Err(e) => return Err(e.into()),
            };
            (dataset, entry.preprocess.clone())
        }
    };
    let steps: Vec<(Step, Option<usize>)> = match &plan.preprocess {
        Some(list) => list.iter().map(|p| (p.step, Some(p.line))).collect(),
        None => defaults.into_iter().map(|s| (s, None)).collect(),
    };
    let fail = |line: Option<usize>, problem: String| match line {
        Some(line) => SpecError::at(&plan.source, "data.preprocess", line, problem).into(),
        None => Error::Experiment(format!(
            "{}: dataset '{}': default preprocess: {problem}",
            plan.datasets.path().display(),
            cell.dataset
        )),
    };
    let mut rows = dataset.x.n_rows();
    for &(step, line) in &steps {
        rows = step.rows_after(rows).map_err(|p| fail(line, p))?;
    }
    let mut prepared = Prepared::from(dataset);
    for &(step, line) in &steps {
        prepared
            .apply(&step, data_seed)
            .map_err(|e| fail(line, format!("step {:?}: {e}", step.name())))?;
    }
    Ok(Ok(prepared))
}

/// A kernel, the values its bandwidth rules gave (`sigma_used`, ...), and a bandwidth left for
/// the learning kind to choose by cross-validation (then the kernel is `None`).
type ResolvedKernel = (Option<Kernel>, Vec<Tuned>, Option<KernelSearch>);

/// The cell's kernel with every bandwidth rule resolved on the training rows, and the values
/// used (written to `{param}_used`).
fn resolve_kernel(plan: &Plan, cell: &Cell, data: &Prepared) -> Result<ResolvedKernel> {
    let Some(info) = cell.kernel else {
        return Ok((None, Vec::new(), None));
    };
    let mut params = ParamValues::default();
    let mut used = Vec::new();
    let mut search: Option<(String, BandwidthSearch)> = None;
    for (name, value) in &cell.kernel_params.0 {
        let resolved = match value {
            Value::Rule(rule) => {
                let seed = derive_seed(plan.master_seed, &format!("bandwidth|{}", cell.data_key()));
                // Distances in the norm the kernel's bandwidth scales (the Laplacian's L1).
                let norm = info.bandwidth_norm.unwrap_or(Norm::L2);
                // Pairs of training rows (they come first), read in place.
                let sigma = distance_percentile_among(
                    &data.x,
                    data.n_train,
                    norm,
                    rule.percentile,
                    rule.pairs,
                    seed,
                )?;
                if !(sigma.is_finite() && sigma > 0.0) {
                    return Err(Error::Experiment(format!(
                        "dataset {:?}: the bandwidth rule ({rule}) gives {sigma}: the sampled rows coincide",
                        cell.dataset
                    )));
                }
                used.push(Tuned {
                    param: name.clone(),
                    by: ChosenBy::Kernel,
                    chosen: sigma,
                    at_edge: None,
                });
                Value::Float(sigma)
            }
            Value::Search(candidates) => {
                if let Some((first, _)) = &search {
                    return Err(Error::Experiment(format!(
                        "kernel {:?}: `{first}` and `{name}` are both chosen by cross-validation; \
                         choose one at a time",
                        info.name
                    )));
                }
                search = Some((name.clone(), candidates.clone()));
                continue;
            }
            other => other.clone(),
        };
        params.0.insert(name.clone(), resolved);
    }
    match search {
        None => Ok((Some((info.build)(&params)?), used, None)),
        Some((param, search)) => Ok((
            None,
            used,
            Some(KernelSearch {
                info,
                param,
                search,
                params,
            }),
        )),
    }
}

struct Reporter {
    bar: Option<ProgressBar>,
    lines: bool,
    total: usize,
    done: AtomicUsize,
    start: Instant,
    last: Mutex<Instant>,
}

impl Reporter {
    fn new(total: usize, progress: Progress) -> Reporter {
        let bar = (progress == Progress::Bar).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} runs, eta {eta}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Reporter {
            bar,
            lines: progress == Progress::Lines,
            total,
            done: AtomicUsize::new(0),
            start: Instant::now(),
            last: Mutex::new(Instant::now()),
        }
    }

    fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        if self.lines {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed().as_secs_f64() >= 10.0 || done == self.total {
                *last = Instant::now();
                let elapsed = self.start.elapsed().as_secs_f64();
                let remaining = elapsed / done as f64 * (self.total - done) as f64;
                eprintln!(
                    "{done}/{} runs, {elapsed:.0} s elapsed, about {remaining:.0} s remaining",
                    self.total
                );
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A row's identity for reuse: the run and the seeds it drew.
type RowKey = (RunId, Vec<(String, u64)>);

/// The identity `row` (of this spec or another: compare's confirmation rounds hold a few of its
/// sweep's cells) has among this plan's runs: its coordinates on this plan's columns (empty
/// where it has none); `None` when it has a value in a column this plan does not have, so that
/// it cannot be one of its runs.
fn reuse_key(plan: &Plan, row: &ResultRow) -> Option<RowKey> {
    let foreign = row
        .coordinates
        .iter()
        .any(|(c, v)| *v != CellValue::Empty && !plan.columns.contains(c));
    if foreign {
        return None;
    }
    let coordinates: Coordinates = plan
        .columns
        .iter()
        .map(|c| {
            let value = row.coordinates.get(c).cloned();
            (c.clone(), value.unwrap_or(CellValue::Empty))
        })
        .collect();
    Some(RunId::new(&coordinates, row.repetition).with_seeds(&row.seeds))
}

/// A job: cell index, repetition, and its row's coordinates and seeds.
type Job = (usize, usize, Coordinates, Vec<(String, u64)>);

/// Runs every cell of `plan` at every repetition (only `options.shard`'s share, when sharded),
/// except those `earlier` has a row for that ran (same coordinates, repetition and seeds:
/// compare's rounds rerun a grown spec, `--resume` a killed run). Each row measured goes to
/// `partial` as it finishes. Runs overlap when the plan says so ([`Plan::overlap_runs`]),
/// longest first by [`schedule::cost`]; results come back in (cell, repetition) order whatever
/// the schedule.
pub fn run_cells(
    plan: &Plan,
    options: &RunOptions,
    earlier: &[ResultRow],
    partial: Option<&Partial>,
) -> Result<Vec<ResultRow>> {
    let reusable: BTreeMap<RowKey, &ResultRow> = earlier
        .iter()
        .filter(|r| matches!(r.outcome, CellOutcome::Done(_)))
        .filter_map(|r| Some((reuse_key(plan, r)?, r)))
        .collect();
    // Each job with its row's identity, and the row an earlier run measured for it.
    let jobs: Vec<Job> = (0..plan.cells.len())
        .flat_map(|c| (0..plan.cells[c].repetitions).map(move |r| (c, r)))
        .map(|(c, r)| {
            (
                c,
                r,
                plan.coordinates(&plan.cells[c]),
                seeds_of(plan, &plan.cells[c], r),
            )
        })
        .filter(|job| {
            options
                .shard
                .is_none_or(|s| s.owns(&RunId::new(&job.2, job.1)))
        })
        .collect();
    let done = |job: &Job| {
        let key = RunId::new(&job.2, job.1).with_seeds(&job.3);
        reusable.get(&key).copied()
    };
    // Each dataset is loaded once per data seed (one for every repetition when the spec
    // scopes `data_seed` by repetition, e.g. for a redrawn `split`), and only for cells to run.
    let data_seed = |cell: &Cell, repetition: usize| data_seed(plan, cell, repetition);
    let mut data: BTreeMap<(String, u64), PreparedOrSkipped> = BTreeMap::new();
    for job in jobs.iter().filter(|j| done(j).is_none()) {
        let (cell, seed) = (&plan.cells[job.0], data_seed(&plan.cells[job.0], job.1));
        if let Entry::Vacant(slot) = data.entry((cell.data_key(), seed)) {
            slot.insert(prepare_data(plan, cell, seed, &options.fetch)?);
        }
    }
    if !options.allow_skipped {
        // Refused before any cell runs, rather than after all of them.
        let skipped: Vec<ResultRow> = jobs
            .iter()
            .filter(|job| done(job).is_none())
            .filter_map(|job| {
                let cell = &plan.cells[job.0];
                let reason = data[&(cell.data_key(), data_seed(cell, job.1))]
                    .as_ref()
                    .err()?;
                Some(ResultRow {
                    coordinates: job.2.clone(),
                    repetition: job.1,
                    seeds: job.3.clone(),
                    outcome: CellOutcome::Skipped(reason.clone()),
                })
            })
            .collect();
        keep_what_ran(&results_csv(plan, options), plan, &skipped)?;
    }
    let todo = jobs.iter().filter(|j| done(j).is_none()).count();
    let reporter = Reporter::new(todo, options.progress);
    let run_one = |job: &Job| -> ResultRow {
        if let Some(row) = done(job) {
            return row.clone();
        }
        let (cell, repetition) = (&plan.cells[job.0], job.1);
        let cut = options.deadline.is_some_and(|d| Instant::now() >= d);
        let outcome = match &data[&(cell.data_key(), data_seed(cell, repetition))] {
            _ if cut => CellOutcome::Skipped(crate::results::CUT_BY_DEADLINE.to_string()),
            Err(reason) => CellOutcome::Skipped(reason.clone()),
            // A cell's own error fails that cell only: the run goes on, and says so at the end.
            Ok(prepared) => measure(plan, cell, repetition, &job.3, prepared)
                .unwrap_or_else(|e| CellOutcome::Failed(e.to_string())),
        };
        reporter.tick();
        let row = ResultRow {
            coordinates: job.2.clone(),
            repetition,
            seeds: job.3.clone(),
            outcome,
        };
        if let Some(partial) = partial {
            partial.append(&row);
        }
        row
    };
    // Each run's estimated cost (none for a row already measured or a cell skipped): the order
    // overlapping runs start in. Runs one at a time ignore it and keep the plan's order.
    let costs: Vec<f64> = jobs
        .iter()
        .map(|job| {
            let cell = &plan.cells[job.0];
            match (
                done(job),
                &data.get(&(cell.data_key(), data_seed(cell, job.1))),
            ) {
                (None, Some(Ok(prepared))) => schedule::cost(cell, data_size(prepared)),
                _ => 0.0,
            }
        })
        .collect();
    let rows = schedule::run_jobs(&costs, plan.overlap_runs, |i| run_one(&jobs[i]));
    reporter.finish();
    Ok(rows)
}

/// The seed `cell`'s data is drawn and split with at `repetition`: the plan's `data_seed`, or
/// the master seed where the kind has none.
pub(crate) fn data_seed(plan: &Plan, cell: &Cell, repetition: usize) -> u64 {
    plan.seed("data_seed", cell, repetition)
        .unwrap_or(plan.master_seed)
}

/// A dataset prepared for its cells, or the reason its cells are skipped.
type PreparedOrSkipped = std::result::Result<Prepared, String>;

/// The sizes [`schedule::cost`] orders runs by.
pub(crate) fn data_size(prepared: &Prepared) -> schedule::DataSize {
    let rows = prepared.x.n_rows();
    schedule::DataSize {
        train_rows: prepared.n_train,
        test_rows: rows - prepared.n_train,
        values_per_row: prepared.x.nnz() as f64 / rows.max(1) as f64,
    }
}

/// The seeds of `cell` at `repetition`, by column, in the plan's order.
pub(crate) fn seeds_of(plan: &Plan, cell: &Cell, repetition: usize) -> Vec<(String, u64)> {
    plan.seeds
        .iter()
        .map(|s| {
            (
                s.spec.column.to_string(),
                derive_seed(plan.master_seed, &plan.seed_key(s, cell, repetition)),
            )
        })
        .collect()
}

/// One cell at one repetition on its prepared data: the kernel resolved (the bandwidths its
/// rules gave go to the metrics through the context), then the kind's measurement.
fn measure(
    plan: &Plan,
    cell: &Cell,
    repetition: usize,
    seeds: &[(String, u64)],
    prepared: &Prepared,
) -> Result<CellOutcome> {
    let (kernel, tuned, kernel_search) = resolve_kernel(plan, cell, prepared)?;
    let by_column: BTreeMap<String, u64> = seeds.iter().cloned().collect();
    let ctx = CellContext {
        plan,
        cell,
        repetition,
        seeds: &by_column,
        data: prepared,
        kernel,
        kernel_search,
        tuned: &tuned,
    };
    kinds::runner(plan.kind)(&ctx)
}

/// "cell (map = nystroem, n_components = 400), repetition 1: ERROR" for each failed row.
pub(crate) fn failed_cells(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|row| {
            let CellOutcome::Failed(error) = &row.outcome else {
                return None;
            };
            Some(format!(
                "cell ({}), repetition {}: {error}",
                row.describe(&plan.columns),
                row.repetition
            ))
        })
        .collect()
}

/// Runs experiment `spec` (a name in `experiments/` or a path to a spec file) under `profile`:
/// writes `results/SPEC/PROFILE.csv`, its figures and tables under `out_dir` ([`crate::files`]),
/// all replaced together when the run ends ([`staging`]).
pub fn reproduce(spec: &str, profile: &Profile, options: &RunOptions) -> Result<Outcome> {
    reproduce_reusing(spec, profile, options, &[])
}

/// [`reproduce`], taking the rows of `earlier` (a run of the same spec, grown since) for the
/// cells they measured instead of running them again ([`run_cells`]).
pub fn reproduce_reusing(
    spec: &str,
    profile: &Profile,
    options: &RunOptions,
    earlier: &[ResultRow],
) -> Result<Outcome> {
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let plan = planned(spec, profile, options)?;
    // Outputs of runs killed during their renames are completed, temporaries of runs killed
    // before them removed, with a note.
    for note in staging::prepare(&options.out_dir)? {
        eprintln!("{note}");
    }
    let files = plan.files(&options.out_dir);
    staging::refuse_linked_folders(&files)?;
    let provenance = Provenance::collect(&options.root);
    let (spec_sha256, datasets_sha256) = shard::digests(&plan, &options.root)?;
    let stamp = partial::Stamp {
        spec_sha256,
        datasets_sha256,
        code: shard::Code::current(&provenance),
    };
    let opened = Partial::open(
        &files.partial(options.shard.map(|s| (s.index, s.count))),
        &plan.layout(),
        &provenance,
        &stamp,
        options.resume,
    )?;
    for note in &opened.notes {
        eprintln!("{note}");
    }
    let earlier: Vec<ResultRow> = earlier.iter().cloned().chain(opened.resumed).collect();
    let rows = match run_cells(&plan, options, &earlier, opened.partial.as_ref()) {
        Ok(rows) => rows,
        // Refused before any cell ran: a fresh run leaves no partial file behind (a resumed
        // one keeps the rows it had).
        Err(e) => {
            if let (false, Some(partial)) = (options.resume, opened.partial) {
                partial.finish()?;
            }
            return Err(e);
        }
    };
    let skipped = rows
        .iter()
        .filter(|r| matches!(r.outcome, CellOutcome::Skipped(_)))
        .count();
    let failed = failed_cells(&plan, &rows);
    let warnings = edge_warnings(&plan, &rows);

    let csv = results_csv(&plan, options);
    let text = results::to_csv(&plan.layout(), &rows, &provenance)?;
    let mut out = Staged::new(&options.out_dir);
    out.write(&csv, text.as_bytes())?;
    let rendered = match options.shard {
        Some(shard) => stage_manifest(&plan, shard, &rows, &stamp, options, &mut out)?,
        None => {
            // Drawn from the file just written (still under its temporary name).
            let written = out.staged_path(&csv).map(Path::to_path_buf);
            render_csv(
                &plan,
                written.as_deref().unwrap_or(&csv),
                &options.out_dir,
                &mut out,
            )?
        }
    };
    out.commit()?;
    if let Some(partial) = opened.partial {
        partial.finish()?;
    }
    Ok(Outcome {
        plan,
        csv,
        rendered,
        seconds: start.elapsed().as_secs_f64(),
        cpu_seconds: cpu_seconds() - cpu_start,
        skipped,
        failed,
        warnings,
        rows,
    })
}

/// The most memory this process has held resident so far, in bytes (`getrusage`'s maxrss); 0
/// where the call fails.
pub fn peak_resident_bytes() -> u64 {
    // SAFETY: getrusage writes into the zeroed struct it is given and reads nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    // Linux reports kilobytes.
    (usage.ru_maxrss.max(0) as u64) * 1024
}

/// The CPU time this process has used, all threads, user and system (`getrusage`); 0 where
/// the call fails.
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given and reads nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The plan of `spec` under `profile`, with the run's master seed, refused before anything is
/// allocated when a cell cannot fit in memory.
fn planned(spec: &str, profile: &Profile, options: &RunOptions) -> Result<Plan> {
    let mut plan = load_plan(&options.root, spec, profile)?;
    if let Some(seed) = options.master_seed {
        plan.master_seed = seed;
    }
    // Runs that overlap share the memory: each gets the limit over the runs at once.
    let at_once = if plan.overlap_runs {
        rayon::current_num_threads()
    } else {
        1
    };
    memory::check(
        &plan,
        &plan.datasets,
        options.memory_limit.unwrap_or_else(memory::default_limit),
        at_once,
    )?;
    Ok(plan)
}

/// A shard's manifest, staged beside its CSV; what the shard run reports.
fn stage_manifest(
    plan: &Plan,
    shard: Shard,
    rows: &[ResultRow],
    stamp: &partial::Stamp,
    options: &RunOptions,
    out: &mut Staged,
) -> Result<Rendered> {
    // The digests and code the run started under (its partial file's): an edit during the run
    // cannot pass for the version its first rows ran.
    let partial::Stamp {
        spec_sha256,
        datasets_sha256,
        code,
    } = stamp.clone();
    let manifest = Manifest {
        experiment: plan.name.clone(),
        profile: plan.profile.name().to_string(),
        shard: shard.index,
        shards: shard.count,
        master_seed: plan.master_seed,
        spec_sha256,
        datasets_sha256,
        rfbench_version: code.rfbench_version,
        git_commit: code.git_commit,
        // Recorded whatever the commit, as before the stamp carried it.
        binary_sha256: match code.binary_sha256.is_empty() {
            true => shard::executable_sha256(),
            false => code.binary_sha256,
        },
        runs: rows.len(),
        runs_planned: plan.cells.iter().map(|c| c.repetitions).sum(),
    };
    let path = plan
        .files(&options.out_dir)
        .shard_manifest((shard.index, shard.count));
    out.write(&path, manifest.to_text()?.as_bytes())?;
    let flag = match &plan.profile {
        Profile::Full => String::new(),
        Profile::Named(name) => format!(" --profile {name}"),
    };
    Ok(Rendered {
        figures: Vec::new(),
        tables: Vec::new(),
        report: format!(
            "shard {shard}: {} of the plan's {} runs; when every shard has run, `rfbench merge \
             {}{flag}` writes the results, figures and report",
            manifest.runs, manifest.runs_planned, plan.name
        ),
        claims: Vec::new(),
        claims_file: None,
    })
}

/// The figures, tables and report of `plan` drawn from the results file `csv`; figures and
/// tables staged in `out` for `out_dir`.
pub(crate) fn render_csv(
    plan: &Plan,
    csv: &Path,
    out_dir: &Path,
    out: &mut Staged,
) -> Result<Rendered> {
    rows_belong(plan, csv)?;
    crate::completeness::require_every_run(plan, csv)?;
    let written = Results::from_csv(csv, &plan.output_columns())?.with_sums(&plan.sums);
    let ctx = RenderContext {
        files: plan.files(out_dir),
        title: plan.title.clone(),
        profile_note: format!("{} profile", plan.profile.name()),
        labels: Labels(
            rfbench_registry::labels()
                .into_iter()
                .chain(plan.labels.iter().cloned())
                .collect(),
        ),
    };
    outputs::render_staged(&written, &plan.outputs, &ctx, out)
}

/// Every row of `csv` is the plan's experiment and profile: a file with rows of another (two
/// results files joined by hand, a file copied under another name) is refused, naming the first
/// such row, rather than drawn as if they were this one's (issue 24).
fn rows_belong(plan: &Plan, csv: &Path) -> Result<()> {
    let (header, records) = results::read_records(csv)?;
    let at = |name: &str| header.iter().position(|h| h == name);
    let (Some(experiment), Some(profile)) = (at("experiment"), at("profile")) else {
        return Ok(());
    };
    let wanted = (plan.name.as_str(), plan.profile.name());
    let stray = records
        .iter()
        .position(|r| (r[experiment].as_str(), r[profile].as_str()) != wanted);
    match stray {
        None => Ok(()),
        Some(i) => Err(Error::Results {
            path: csv.to_path_buf(),
            message: format!(
                "row {} is experiment {:?}, profile {:?}, not {:?}, profile {:?}: this file \
                 holds another run's rows",
                i + 2,
                records[i][experiment],
                records[i][profile],
                wanted.0,
                wanted.1
            ),
        }),
    }
}

/// The results file a run writes: the plan's CSV, or its shard's.
fn results_csv(plan: &Plan, options: &RunOptions) -> PathBuf {
    let files = plan.files(&options.out_dir);
    match options.shard {
        Some(shard) => files.shard_csv((shard.index, shard.count)),
        None => files.csv(),
    }
}

/// Refuses to replace `path` when rows that ran in it would become skipped ones (an offline
/// rerun of a committed result, its data missing here): nothing committed is lost quietly. Called before any cell runs.
pub(crate) fn keep_what_ran(path: &Path, plan: &Plan, rows: &[ResultRow]) -> Result<()> {
    let Ok((header, records)) = results::read_records(path) else {
        // No file (or not one of ours): nothing that ran is lost.
        return Ok(());
    };
    let index = |name: &str| header.iter().position(|h| h == name);
    let (Some(status), Some(rep)) = (index("status"), index("repetition")) else {
        return Ok(());
    };
    let columns: Option<Vec<usize>> = plan.columns.iter().map(|c| index(c)).collect();
    let Some(columns) = columns else {
        return Ok(());
    };
    let ran: std::collections::BTreeSet<(Vec<&str>, &str)> = records
        .iter()
        .filter(|r| r[status] == "ok")
        .map(|r| {
            (
                columns.iter().map(|&i| r[i].as_str()).collect(),
                r[rep].as_str(),
            )
        })
        .collect();
    let lost: Vec<&ResultRow> = rows
        .iter()
        .filter(|row| matches!(row.outcome, CellOutcome::Skipped(_)))
        .filter(|row| {
            let fields: Vec<String> = plan
                .columns
                .iter()
                .map(|c| {
                    row.coordinates
                        .get(c)
                        .map_or(String::new(), CellValue::to_field)
                })
                .collect();
            let key = (
                fields.iter().map(String::as_str).collect(),
                row.repetition.to_string(),
            );
            ran.contains(&(key.0, key.1.as_str()))
        })
        .collect();
    let Some(first) = lost.first() else {
        return Ok(());
    };
    Err(Error::Experiment(format!(
        "{} row(s) that ran in {} are skipped in this run (e.g. {}, repetition {}: {}); nothing \
         was written. Give the runner the data (network, or RFBENCH_MIRROR), or pass \
         --allow-skipped to replace them anyway",
        lost.len(),
        path.display(),
        first.describe(&plan.columns),
        first.repetition,
        first.not_run().unwrap_or_default()
    )))
}

/// Redraws experiment `spec`'s figures, tables and report from its `results/SPEC/PROFILE.csv` under
/// `out_dir`, without running anything: after a change to a figure or a table of the spec, or
/// of the code that draws them. The CSV must match the spec's plan (its columns).
pub fn render(spec: &str, profile: &Profile, options: &RunOptions) -> Result<Rendered> {
    let plan = load_plan(&options.root, spec, profile)?;
    let csv = plan.files(&options.out_dir).csv();
    if !csv.exists() {
        let flag = match profile {
            Profile::Full => String::new(),
            Profile::Named(name) => format!(" --profile {name}"),
        };
        return Err(Error::Experiment(format!(
            "{}: no results to render; run `rfbench reproduce {spec}{flag}` first",
            csv.display(),
        )));
    }
    for note in staging::prepare(&options.out_dir)? {
        eprintln!("{note}");
    }
    let mut out = Staged::new(&options.out_dir);
    let rendered = render_csv(&plan, &csv, &options.out_dir, &mut out)?;
    out.commit()?;
    Ok(rendered)
}

/// A cross-validated choice at the edge of the range searched means the optimum may lie beyond
/// it, and the method is reported worse than it is: say so for every such cell.
fn edge_warnings(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let axes: Vec<String> = plan
        .columns
        .iter()
        .filter(|c| plan.axes.contains(*c))
        .cloned()
        .collect();
    let mut out = Vec::new();
    for row in rows {
        for tuned in &plan.tuned {
            let Some(at_edge) = &tuned.at_edge else {
                continue;
            };
            if row.metric(at_edge) == Some(1.0) {
                out.push(format!(
                    "{}, rep={}: {} chosen by cross-validation ({}) is at an edge of the range searched",
                    row.describe(&axes),
                    row.repetition,
                    tuned.param,
                    row.metric(&tuned.chosen).unwrap_or(f64::NAN)
                ));
            }
        }
    }
    out
}

/// Regenerates experiment `spec` into a temporary directory and compares it with the committed
/// `results/SPEC/PROFILE.csv` under `out_dir` (exactly with the same master seed, statistically with
/// another).
pub fn check(
    spec: &str,
    profile: &Profile,
    options: &RunOptions,
) -> Result<(CheckReport, Outcome)> {
    let name = crate::spec::spec_name(&options.root, spec)?;
    let files = SpecFiles::new(&options.out_dir, &name, profile.name());
    let reference_path = files.csv();
    let reference = results::read_records(&reference_path)?;
    // What reading the reference can refuse is refused before the (long) regeneration.
    check::check_reference(
        &load_plan(&options.root, spec, profile)?,
        &reference,
        &reference_path,
    )?;
    let scratch =
        tempfile::tempdir().map_err(|e| Error::io(Path::new("temporary directory"), e))?;
    let outcome = reproduce(
        spec,
        profile,
        &RunOptions {
            out_dir: scratch.path().to_path_buf(),
            ..options.clone()
        },
    )?;
    let regenerated = results::read_records(&outcome.csv)?;
    let mut report = check::compare(
        &outcome.plan,
        &reference,
        &reference_path,
        &regenerated,
        &outcome.csv,
    )?;
    if matches!(report.mode, check::Mode::SameSeed { .. }) {
        check::claims_files(
            &outcome.plan,
            &files.claims(),
            &files.under(scratch.path()).claims(),
            &mut report,
        )?;
    }
    Ok((report, outcome))
}
