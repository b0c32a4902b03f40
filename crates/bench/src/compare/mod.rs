//! `rfbench compare DATA`: which map, at what D, on this data, in one command.
//!
//! A pipeline of stages, each a module of [`stages`] that reads what the stages before it left
//! in one [`state::State`] and writes its own ordinary spec into the output folder, run by the
//! runner, so that every number of the answer can be rerun and edited by hand. In the order
//! they run, with what each writes and its share of the time budget ([`pipeline::STAGES`], from
//! which the report's "How it was run" is written too):
//!
//! 1. `read` (-; as measured): reads the data (a registry name, or a file described on the spot)
//!    and decides the defaults a careful researcher would choose, every one written down.
//! 2. `tune` (tune-probe.toml, tune.toml; at most 25 % of the budget): chooses the bandwidth
//!    (multiples of the median distance) and the learner's penalty by cross-validation on a
//!    subsample with one map, and the exact machine's own.
//! 3. `pilot` (pilot.toml; as measured): times every map at two values of D on the subsample, and
//!    the exact machine on all and half of its rows, for the budget model.
//! 4. `own_penalty` (tune-maps.toml; at most 10 % of the budget): chooses each other map's penalty
//!    on its own features at the pilot's D.
//! 5. `sweep` (compare.toml; 90 % of what is left): runs the linear baseline, then the exact
//!    machine on the rows that fit, then the maps in rounds up the ladder of D, each planned from
//!    the last round's times, a map stopping once it has plateaued; no run starts past the
//!    sweep's time.
//! 6. `last_rungs` (tune-last.toml, compare.toml; at most 10 % of the budget and 50 % of the
//!    sweep's time left): chooses each series' penalty again at its last D, and reruns the cells
//!    whose penalty changed.
//! 7. `confirm` (confirm-N.toml; within the sweep's time): runs more repetitions of the cheapest
//!    cells the sweep's could not decide.
//! 8. `same_rows` (same-rows.toml; 50 % of what is left): where the exact machine trained on
//!    fewer than all rows, trains each map's last D on those same rows.
//! 9. `gram` (gram.toml; what is left): measures each map's Gram-matrix error at the sweep's D on
//!    a few training rows.
//! 10. `answer` (answer.json, splits.json; as measured): decides the recommendation at each
//!    tolerance, with the noise in view.
//! 11. `report` (report.md, its figures; as measured): writes the answer, the table of every
//!    cell, the figures and how it was run.
//!
//! Beside the stages: [`setup`] (the settings decided, with [`data`]), [`specs`] (what every
//! spec is built from), [`budget`] (the estimates and the cells that fit), [`lines`] (the
//! sweep's cells read back), [`curve`] (the exact machine on nested subsamples) with
//! [`curve_figure`] (its picture), [`decide`]
//! (which cell at each tolerance), [`chosen`] (what a tuning spec chose), [`tuned`],
//! [`pareto`], [`splits`], [`folder`], [`progress`], and [`code`] with [`python`] (the pick as
//! Python code).

pub mod budget;
pub mod chosen;
pub mod code;
pub mod curve;
pub mod curve_figure;
pub mod data;
pub mod decide;
pub mod folder;
pub mod lines;
pub mod options;
pub mod pareto;
pub mod pipeline;
pub mod progress;
pub mod python;
pub mod series;
pub mod setup;
pub mod specs;
pub mod splits;
pub mod stages;
pub mod state;
#[cfg(test)]
mod test_support;
pub mod tuned;

use crate::error::Result;
use crate::run::RunOptions;
use pipeline::{
    Stage, ANSWER, CONFIRM, GRAM, LAST_RUNGS, OWN_PENALTY, PILOT, REPORT, SAME_ROWS, SWEEP, TUNE,
};
use state::State;

pub use folder::refuse_own_folder;
pub use options::{CompareOptions, Compared};

/// The stages after `read`, in the order they run, each with its module's `run`.
const PIPELINE: [(Stage, fn(&mut State) -> Result<()>); 10] = [
    (TUNE, stages::tune::run),
    (PILOT, stages::pilot::run),
    (OWN_PENALTY, stages::own_penalty::run),
    (SWEEP, stages::sweep::run),
    (LAST_RUNGS, stages::last_rungs::run),
    (CONFIRM, stages::confirm::run),
    (SAME_ROWS, stages::same_rows::run),
    (GRAM, stages::gram::run),
    (ANSWER, stages::answer::run),
    (REPORT, stages::report::run),
];

/// Runs the stages in order: `read` makes the state, each later stage adds to it.
pub fn compare(options: &CompareOptions, run: &RunOptions) -> Result<Compared> {
    let mut state = stages::read::run(options, run)?;
    for (stage, run) in PIPELINE {
        state.run_stage(stage, run)?;
    }
    state.compared()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `compare` runs every stage of [`pipeline::STAGES`], in its order.
    #[test]
    fn the_pipeline_runs_the_stages_in_order() {
        let ran: Vec<&str> = std::iter::once(pipeline::READ.name)
            .chain(PIPELINE.iter().map(|(s, _)| s.name))
            .collect();
        let listed: Vec<&str> = pipeline::STAGES.iter().map(|s| s.name).collect();
        assert_eq!(ran, listed);
    }
}
