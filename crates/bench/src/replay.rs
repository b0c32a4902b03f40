//! `rfbench schedule`: a committed result's measured run times replayed through the runner's
//! scheduler ([`schedule`]) on any number of workers, without running anything: how long the
//! spec would take on 16 or 64 cores started in the plan's order, longest first by the runner's
//! estimate, and longest first by the measurements themselves, against the bound no order beats.
//!
//! A run's time is its row's `map_seconds + train_seconds + predict_seconds` (what the kinds
//! time; loading data and writing files are left out, and so are the Gram sums of the
//! gram-error and kernel-error kinds, which time only the map), so the replay says how well the
//! order packs the runs, not the spec's wall time.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::{Error, Result};
use crate::results::{self, CellValue, Coordinates};
use crate::run::{self, RunOptions};
use crate::run_id::RunId;
use crate::schedule::{self, Replay};
use crate::spec::{load_plan, Profile};

/// The columns a run's time is the sum of.
const TIMED: [&str; 3] = ["map_seconds", "train_seconds", "predict_seconds"];

/// What [`replay`] found.
#[derive(Debug, Clone)]
pub struct Report {
    pub spec: String,
    pub profile: String,
    /// Runs with a measured time (status ok), and the plan's runs without one.
    pub runs: usize,
    pub unmeasured: usize,
    pub total_seconds: f64,
    pub longest_seconds: f64,
    pub lines: Vec<Replay>,
    /// The longest runs measured, longest first: each run, its seconds and its place (from 1)
    /// in the estimate's order, which says where the estimate went wrong.
    pub longest: Vec<(RunId, f64, usize)>,
}

/// How many of the longest runs the report places.
const PLACED: usize = 5;

/// Replays `spec`'s committed `results/SPEC/PROFILE.csv` on each of `workers`.
pub fn replay(
    spec: &str,
    profile: &Profile,
    options: &RunOptions,
    workers: &[usize],
) -> Result<Report> {
    let plan = load_plan(&options.root, spec, profile)?;
    let csv = plan.files(&options.out_dir).csv();
    let measured = measured_seconds(&csv, &plan.columns)?;
    let mut data = BTreeMap::new();
    let (mut seconds, mut costs, mut ids, mut unmeasured) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut no_data = None;
    for (cell, repetition) in plan
        .cells
        .iter()
        .flat_map(|c| (0..c.repetitions).map(move |r| (c, r)))
    {
        let id = RunId::new(&plan.coordinates(cell), repetition);
        let Some(&t) = measured.get(&id) else {
            unmeasured += 1;
            continue;
        };
        let seed = run::data_seed(&plan, cell, repetition);
        let key = (cell.data_key(), seed);
        if !data.contains_key(&key) {
            let prepared = run::prepare_data(&plan, cell, seed, &options.fetch)?;
            data.insert(key.clone(), prepared.map(|p| run::data_size(&p)));
        }
        let size = match &data[&key] {
            Ok(size) => size,
            Err(e) => {
                unmeasured += 1;
                no_data.get_or_insert_with(|| e.to_string());
                continue;
            }
        };
        seconds.push(t);
        costs.push(schedule::cost(cell, *size));
        ids.push(id);
    }
    if seconds.is_empty() {
        // The estimate needs each run's data; say why it could not be loaded, if that was it.
        let why = no_data.map_or(String::new(), |e| {
            format!("; its data could not be loaded: {e}")
        });
        return Err(Error::Experiment(format!(
            "{}: no run of the plan has a measured time (status ok and {}){why}",
            csv.display(),
            TIMED.join(", ")
        )));
    }
    Ok(Report {
        spec: plan.name.clone(),
        profile: profile.name().to_string(),
        runs: seconds.len(),
        unmeasured,
        total_seconds: seconds.iter().sum(),
        longest_seconds: seconds.iter().copied().fold(0.0, f64::max),
        lines: schedule::replay(&seconds, &costs, workers),
        longest: placed(&seconds, &costs, &ids),
    })
}

/// The [`PLACED`] longest runs, with their place in the estimate's order.
fn placed(seconds: &[f64], costs: &[f64], ids: &[RunId]) -> Vec<(RunId, f64, usize)> {
    let estimated = schedule::longest_first(costs);
    schedule::longest_first(seconds)
        .into_iter()
        .take(PLACED)
        .map(|i| {
            let place = estimated
                .iter()
                .position(|&j| j == i)
                .expect("a permutation")
                + 1;
            (ids[i].clone(), seconds[i], place)
        })
        .collect()
}

/// Each measured row's run (its values in the plan's `columns`) and its seconds, read by column
/// name, so that a file whose provenance columns are older than the runner's still replays.
fn measured_seconds(csv: &std::path::Path, columns: &[String]) -> Result<BTreeMap<RunId, f64>> {
    let (header, records) = results::read_records(csv)?;
    let at = |name: &str| header.iter().position(|h| h == name);
    let (Some(status), Some(repetition)) = (at("status"), at("repetition")) else {
        return Err(Error::Experiment(format!(
            "{}: no status or repetition column: not a results file",
            csv.display()
        )));
    };
    let timed: Vec<usize> = TIMED.iter().filter_map(|c| at(c)).collect();
    let mut out = BTreeMap::new();
    for record in records.iter().filter(|r| r[status] == "ok") {
        let seconds: f64 = timed
            .iter()
            .filter_map(|&i| record[i].parse::<f64>().ok())
            .sum();
        let Ok(rep) = record[repetition].parse::<usize>() else {
            continue;
        };
        let coordinates: Coordinates = columns
            .iter()
            .map(|c| {
                let value = at(c).map_or(CellValue::Empty, |i| CellValue::parse(&record[i]));
                (c.clone(), value)
            })
            .collect();
        out.insert(RunId::new(&coordinates, rep), seconds);
    }
    Ok(out)
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}/{}: {} runs measured ({} of the plan's without a time), {:.1} s of runs in all, \
             the longest {:.1} s",
            self.spec,
            self.profile,
            self.runs,
            self.unmeasured,
            self.total_seconds,
            self.longest_seconds
        )?;
        writeln!(
            f,
            "makespan in seconds (x the lower bound), runs started by the first free worker:"
        )?;
        writeln!(
            f,
            "{:>8} {:>18} {:>18} {:>18} {:>12}",
            "workers", "plan order", "longest (est.)", "longest (meas.)", "lower bound"
        )?;
        for r in &self.lines {
            let cell = |m: f64| format!("{m:.1} ({:.2}x)", m / r.lower_bound);
            writeln!(
                f,
                "{:>8} {:>18} {:>18} {:>18} {:>12.1}",
                r.workers,
                cell(r.plan_order),
                cell(r.estimated),
                cell(r.measured),
                r.lower_bound
            )?;
        }
        writeln!(
            f,
            "the longest runs, and their place among the {} in the estimate's order:",
            self.runs
        )?;
        for (id, seconds, place) in &self.longest {
            writeln!(f, "{seconds:>10.1} s  #{place:<5} {id}")?;
        }
        Ok(())
    }
}
