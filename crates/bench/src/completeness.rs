//! Whether a results file holds a row for every run of its plan (every cell at every
//! repetition; a skipped or failed run has its row too). A row missing from a file cut short or
//! edited by hand would leave its cell out of every figure, table and claim without a word,
//! and a claim tested on the cells left can read "holds" where the whole grid does not: the
//! figures and claims are drawn only from a complete file.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::{Error, Result};
use crate::run_id::RunId;
use crate::spec::Plan;

/// Refuses `csv` when a run of `plan` has no row in it, naming how many and the first.
pub fn require_every_run(plan: &Plan, csv: &Path) -> Result<()> {
    let rows = plan.layout().read_rows(csv)?;
    let present: BTreeSet<RunId> = rows
        .iter()
        .map(|row| RunId::new(&row.coordinates, row.repetition))
        .collect();
    let missing: Vec<RunId> = planned_runs(plan)
        .filter(|id| !present.contains(id))
        .collect();
    let Some(first) = missing.first() else {
        return Ok(());
    };
    Err(Error::Results {
        path: csv.to_path_buf(),
        message: format!(
            "{} of the plan's {} runs have no row (the first: {first}): the figures, tables \
             and claims would be drawn from the cells left, as if the grid were complete; \
             nothing was drawn. Restore the file, or rerun `rfbench reproduce {}` (with \
             --resume after a killed run)",
            missing.len(),
            planned_runs(plan).count(),
            plan.name
        ),
    })
}

/// Every run of the plan: each cell at each of its repetitions.
fn planned_runs(plan: &Plan) -> impl Iterator<Item = RunId> + '_ {
    plan.cells.iter().flat_map(move |cell| {
        let coordinates = plan.coordinates(cell);
        (0..cell.repetitions).map(move |r| RunId::new(&coordinates, r))
    })
}
