//! `splits.json`: the test rows of every repetition's split, so that anyone can score another
//! learner on exactly the rows compare used (an outside check had to re-implement the split
//! from the seeds). Drawn by the function the runner's `split` step uses, from the seed it
//! derives for each repetition.

use serde_json::{json, Value};

use super::setup::Setup;
use crate::error::{Error, Result};
use crate::spec::Plan;

/// The splits of repetitions `0..repetitions` of `plan`'s data (`None`: the data has its own
/// test rows, the same in every repetition).
pub fn json(setup: &Setup, plan: &Plan, repetitions: usize) -> Result<Option<Value>> {
    let Some(cell) = plan.cells.first().filter(|_| !setup.has_test) else {
        return Ok(None);
    };
    let stratify = setup.classification();
    let mut splits = Vec::with_capacity(repetitions);
    for repetition in 0..repetitions {
        let seed = plan
            .seed("data_seed", cell, repetition)
            .unwrap_or(plan.master_seed);
        let (_, test) =
            rfbench_data::split_rows(&setup.labels, setup.test_fraction, stratify, seed).map_err(
                |e| Error::Experiment(format!("the split of repetition {repetition}: {e}")),
            )?;
        splits.push(json!({ "repetition": repetition, "data_seed": seed, "test_rows": test }));
    }
    Ok(Some(json!({
        "data": setup.dataset,
        "rows": setup.labels.len(),
        "rows_are": "0-based, in the data file's order (a header line not counted); the training \
                     rows are the others",
        "stratified": stratify,
        "test_fraction": setup.test_fraction,
        "splits": splits,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::stages::sweep;
    use crate::compare::test_support::setup;
    use crate::compare::tuned::Tuned;
    use rfbench_data::Task;
    use std::path::Path;

    #[test]
    fn each_repetition_has_the_split_the_runner_draws_and_a_test_file_has_none() {
        let s = setup("gaussian", Task::Binary, None);
        let tuned = Tuned::new(Some(1.0), 1.0, Some(1.0), 1.0);
        let sweep = crate::compare::budget::Sweep {
            per_map: vec![(s.maps[0].name(), vec![64])],
            exact_train_size: Some(0),
            skipped: Vec::new(),
        };
        let text = sweep::spec(&s, tuned, &sweep).unwrap().text();
        let path = Path::new("out/compare.toml");
        let raw = crate::spec::raw::RawSpec::parse(&text, path).unwrap();
        let datasets = rfbench_data::Registry::parse_embedded(&text, path).unwrap();
        let plan = raw
            .plan(&text, path, &crate::spec::Profile::Full, &datasets)
            .unwrap();
        let value = json(&s, &plan, 3).unwrap().unwrap();
        let splits = value["splits"].as_array().unwrap();
        assert_eq!(splits.len(), 3);
        for (r, split) in splits.iter().enumerate() {
            let seed = plan.seed("data_seed", &plan.cells[0], r).unwrap();
            assert_eq!(split["data_seed"], seed);
            let (_, test) =
                rfbench_data::split_rows(&s.labels, s.test_fraction, true, seed).unwrap();
            assert_eq!(split["test_rows"], json!(test));
        }
        // A new split in every repetition.
        assert_ne!(splits[0]["test_rows"], splits[1]["test_rows"]);
        let mut fixed = s.clone();
        fixed.has_test = true;
        assert!(json(&fixed, &plan, 3).unwrap().is_none());
    }
}
