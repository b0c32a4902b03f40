//! What compare's stages share: [`State`], filled in stage by stage (each stage reads what the
//! stages before it left there and adds its own), and running one spec of a stage in the output
//! folder.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::budget::{Estimates, Sweep};
use super::folder::write_marked;
use super::lines::Line;
use super::options::Compared;
use super::pipeline::Stage;
use super::progress::Progress;
use super::setup::Setup;
use super::specs::{self, Tuned};
use crate::error::{Error, Result};
use crate::outputs::Results;
use crate::results::ResultRow;
use crate::run::{self, Outcome, RunOptions};
use crate::spec::Profile;

/// The state of a comparison between stages.
pub struct State {
    pub out: PathBuf,
    pub setup: Setup,
    /// The runner's options, writing into [`State::out`].
    pub run: RunOptions,
    pub progress: Progress,
    /// Seconds.
    pub budget: f64,
    pub start: Instant,
    /// The seconds the comparison took up to its answer.
    pub seconds: f64,
    /// The seconds each stage took, in the order they ran.
    pub times: Vec<(Stage, f64)>,
    /// `tune`: the values chosen (and, later, each series' own penalties), the warnings on
    /// them, the tuning rows and a sentence on how many.
    pub tuned: Tuned,
    pub warnings: Vec<String>,
    pub tuning_rows: usize,
    pub tuning_how: String,
    /// `pilot`: its second D, and every cell's estimate.
    pub pilot_d: usize,
    pub estimates: Estimates,
    /// Sentences for the report: the maps' own penalties and the last rungs'.
    pub penalty_notes: Vec<String>,
    /// `sweep`: the cells planned, the sweep's estimate and its sentence, its deadline and
    /// start, the seconds it left for after it, and the cells that ran (with their outcome).
    pub planned: Sweep,
    pub estimate: f64,
    pub plan_note: String,
    /// Why no map ran, when none fit the budget (the answer then says so).
    pub no_maps: Option<String>,
    pub sweep_start: Instant,
    pub deadline: Instant,
    pub after_sweep: f64,
    pub swept: Sweep,
    pub outcome: Option<Outcome>,
    /// `confirm`: the sweep's lines (every repetition run), the confirmation rounds' sentences,
    /// and the sweep's seconds (rounds, last rungs and confirmation).
    pub lines: Vec<Line>,
    /// The exact machine's learning curve: its sizes below the sweep's ([`super::curve`]).
    pub curve: Vec<Line>,
    pub confirm_notes: Vec<String>,
    /// `same_rows`: each map's last D on the exact machine's rows, where those are fewer than
    /// all ([`super::stages::same_rows`]).
    pub same_rows: Vec<Line>,
    pub sweep_seconds: f64,
    /// Cells left out, with the reason (the sweep's and the Gram step's).
    pub skipped: Vec<String>,
    /// `answer`: the one-line answer, and the report's opening.
    pub answer: String,
    pub opening: String,
    /// `report`: its text.
    pub report: String,
}

impl State {
    /// A comparison about to start its second stage, `setup` decided, writing into `out`; its
    /// clock started now (the read stage sets the command's own start).
    pub fn new(
        setup: Setup,
        out: &Path,
        run: RunOptions,
        budget: f64,
        progress: Progress,
    ) -> State {
        let (sweep, start) = (Sweep::default(), Instant::now());
        State {
            out: out.to_path_buf(),
            setup,
            run,
            progress,
            budget,
            start,
            seconds: 0.0,
            times: Vec::new(),
            // Until `tune` chooses them: no bandwidth, and a penalty of 1 (LIBLINEAR's and
            // LIBSVM's default C); no stage reads them before.
            tuned: Tuned::new(None, 1.0, None, 1.0),
            warnings: Vec::new(),
            tuning_rows: 0,
            tuning_how: String::new(),
            pilot_d: 0,
            estimates: Estimates::default(),
            penalty_notes: Vec::new(),
            planned: sweep.clone(),
            estimate: 0.0,
            plan_note: String::new(),
            no_maps: None,
            sweep_start: start,
            deadline: start,
            after_sweep: 0.0,
            swept: sweep,
            outcome: None,
            lines: Vec::new(),
            curve: Vec::new(),
            confirm_notes: Vec::new(),
            same_rows: Vec::new(),
            sweep_seconds: 0.0,
            skipped: Vec::new(),
            answer: String::new(),
            opening: String::new(),
            report: String::new(),
        }
    }

    /// Runs `stage` (its module's `run`) and records the seconds it took.
    pub fn run_stage(&mut self, stage: Stage, run: fn(&mut State) -> Result<()>) -> Result<()> {
        let start = Instant::now();
        run(self)?;
        self.times.push((stage, start.elapsed().as_secs_f64()));
        Ok(())
    }

    /// The seconds `stage` took, once it ran.
    /// The instant the budget ends.
    pub fn end(&self) -> Instant {
        self.start + std::time::Duration::from_secs_f64(self.budget.max(0.0))
    }

    pub fn took(&self, stage: &Stage) -> Option<f64> {
        self.times.iter().find(|(s, _)| s == stage).map(|(_, t)| *t)
    }

    /// The sweep's outcome (its last round's, or the last rungs' rerun).
    pub fn outcome(&self) -> Result<&Outcome> {
        self.outcome
            .as_ref()
            .ok_or_else(|| Error::Experiment("compare: the sweep has not run".to_string()))
    }

    /// The sweep's outcome, taken out to be replaced (by the last rungs' rerun).
    pub fn take_outcome(&mut self) -> Result<Outcome> {
        self.outcome
            .take()
            .ok_or_else(|| Error::Experiment("compare: the sweep has not run".to_string()))
    }

    /// What the comparison gives back, once every stage ran.
    pub fn compared(mut self) -> Result<Compared> {
        let outcome = self.take_outcome()?;
        Ok(Compared {
            answer: self.answer,
            report: self.report,
            report_path: self.out.join("report.md"),
            spec: self.out.join("compare.toml"),
            estimate: self.estimate,
            seconds: self.seconds,
            outcome,
        })
    }

    /// What running a spec needs, with the values tuned so far.
    pub fn context(&self) -> Context<'_> {
        Context {
            out: &self.out,
            setup: &self.setup,
            tuned: self.tuned,
            run: &self.run,
            progress: &self.progress,
            deadline: None,
        }
    }
}

/// What every step after tuning runs with: the output folder, the settings, the tuned values,
/// the runner's options and the command's clock.
pub struct Context<'a> {
    pub out: &'a Path,
    pub setup: &'a Setup,
    pub tuned: Tuned,
    pub run: &'a RunOptions,
    pub progress: &'a Progress,
    /// No run of its specs starts past this instant ([`RunOptions::deadline`]).
    pub deadline: Option<Instant>,
}

impl Context<'_> {
    /// The same, with no run starting past `deadline`.
    pub fn until(self, deadline: Instant) -> Self {
        Context {
            deadline: Some(deadline),
            ..self
        }
    }

    /// Writes and runs the spec `name` in the output folder ([`run_spec`]).
    pub fn run_spec(
        &self,
        name: &str,
        spec: &specs::Written,
        earlier: &[ResultRow],
    ) -> Result<Outcome> {
        let run = RunOptions {
            deadline: self.deadline,
            ..self.run.clone()
        };
        run_spec(self.out, name, spec, &run, earlier)
    }
}

/// Writes `NAME.toml` into `dir` (refusing to replace a file the user edited) and runs it,
/// taking `earlier`'s rows for the cells they measured. A failed cell of the pilot or the sweep
/// is reported and left out (the report says why); the tuning run must succeed.
pub fn run_spec(
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

pub fn read(outcome: &Outcome) -> Result<Results> {
    Ok(
        Results::from_csv(&outcome.csv, &outcome.plan.output_columns())?
            .with_sums(&outcome.plan.sums),
    )
}
