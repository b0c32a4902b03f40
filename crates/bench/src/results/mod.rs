//! The results model: one row type for a cell at one repetition, whether just measured or read
//! back from a file, with its coordinates ([`CellValue`]), seeds, outcome and metrics
//! ([`Metrics`], filled through a [`MetricsBuilder`] checked against the plan's columns); one
//! writer and one reader of the CSV ([`csv`]); the provenance written on every row.

pub mod csv;
mod metrics;
mod provenance;
mod value;

use std::collections::BTreeMap;

pub use self::csv::{read_records, record_line, to_csv, write_records, Layout};
pub use metrics::{Metrics, MetricsBuilder};
pub use provenance::Provenance;
pub use value::CellValue;

/// A cell's coordinates, by column name.
pub type Coordinates = BTreeMap<String, CellValue>;

/// A cell's measurements, or why it has none.
#[derive(Debug, Clone, PartialEq)]
pub enum CellOutcome {
    Done(Metrics),
    /// The cell could not run on this machine (its data is missing, a learner's size cap).
    Skipped(String),
    /// The cell ran and failed with this error; the run goes on and reports it at the end.
    Failed(String),
}

/// One cell at one repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    pub coordinates: Coordinates,
    pub repetition: usize,
    /// Seeds by column, in the plan's seed order (empty when read back without them).
    pub seeds: Vec<(String, u64)>,
    pub outcome: CellOutcome,
}

/// The reason a run the deadline cut gives ([`crate::run::RunOptions::deadline`]).
pub const CUT_BY_DEADLINE: &str = "cut: the time budget ran out before this run started";

impl ResultRow {
    /// The value of `metric`, if the row ran and has one.
    pub fn metric(&self, metric: &str) -> Option<f64> {
        match &self.outcome {
            CellOutcome::Done(metrics) => metrics.get(metric),
            _ => None,
        }
    }

    /// Whether the run never started because the time budget ran out ([`CUT_BY_DEADLINE`]).
    pub fn is_cut(&self) -> bool {
        matches!(&self.outcome, CellOutcome::Skipped(r) if r == CUT_BY_DEADLINE)
    }

    /// Why the row has no numbers: the reason it was skipped, or `failed: ERROR`.
    pub fn not_run(&self) -> Option<String> {
        match &self.outcome {
            CellOutcome::Done(_) => None,
            CellOutcome::Skipped(reason) => Some(reason.clone()),
            CellOutcome::Failed(error) => Some(format!("failed: {error}")),
        }
    }

    /// `name = value` for each of `columns` the row has a value for, for messages.
    pub fn describe(&self, columns: &[String]) -> String {
        columns
            .iter()
            .filter_map(|c| match self.coordinates.get(c) {
                None | Some(CellValue::Empty) => None,
                Some(v) => Some(format!("{c} = {v}")),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}
