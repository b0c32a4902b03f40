//! Stage 4b: every distinct map configuration of the plan is built from its parameters and its
//! kernel, and every distinct learner configuration from its parameters, and put through the
//! library's own `check()`, before any data is read. A rule that
//! only the library knows (the paired Fourier form's even D, the sketches' gamma = 1, a width
//! that overflows the column index) fails here, with the key that sets the map, instead of in the
//! middle of a run. A bandwidth still to be computed from the data ("median", a percentile, a
//! cross-validated search) is stood in for by 1, a valid value: only the data can check the real
//! one.

use std::collections::BTreeSet;

use crate::spec_error::{Checker, SpecResult};
use rfbench_registry::learners::wiring;
use rfbench_registry::{Features, ParamValues, Value};

use super::cells::Cell;
use super::grid::Group;

/// Checks each distinct (map, its parameters, kernel, its parameters) and each distinct
/// (learner, its parameters) of `cells`.
pub(crate) fn check(c: Checker<'_>, groups: &[Group], cells: &[Cell]) -> SpecResult<()> {
    check_learners(c, groups, cells)?;
    let mut seen = BTreeSet::new();
    for cell in cells {
        let (Features::Map(construct), Some(info)) = (cell.map.features, cell.kernel) else {
            continue;
        };
        let kernel_params = stand_in_bandwidths(&cell.kernel_params);
        if !seen.insert(format!(
            "{}|{:?}|{}|{:?}",
            cell.map.name, cell.map_params, info.name, kernel_params
        )) {
            continue;
        }
        let checked = (info.build)(&kernel_params)
            .and_then(|kernel| construct(&cell.map_params, &kernel))
            .and_then(|config| config.check());
        if let Err(e) = checked {
            let message = e.to_string();
            let (key, line) = named_in(groups, &message, &[&cell.map_params, &kernel_params])
                .unwrap_or_else(|| key_of(groups, &cell.map_params, "map"));
            return Err(c.fail(
                &key,
                line,
                format!(
                    "map {} ({}) with kernel {}: {e}",
                    cell.map.name,
                    listed(&cell.map_params),
                    info.name
                ),
            ));
        }
    }
    Ok(())
}

fn check_learners(c: Checker<'_>, groups: &[Group], cells: &[Cell]) -> SpecResult<()> {
    let mut seen = BTreeSet::new();
    for cell in cells {
        let Some(learner) = cell.learner else {
            continue;
        };
        if !seen.insert(format!("{}|{:?}", learner.name, cell.learner_params)) {
            continue;
        }
        if let Err(e) = (wiring(learner).check)(&cell.learner_params) {
            let (key, line) = key_of(groups, &cell.learner_params, "learner");
            return Err(c.fail(
                &key,
                line,
                format!(
                    "learner {} ({}): {e}",
                    learner.name,
                    listed(&cell.learner_params)
                ),
            ));
        }
    }
    Ok(())
}

/// `name = value, ...`.
fn listed(params: &ParamValues) -> String {
    params
        .0
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kernel's parameters with every bandwidth the data decides replaced by 1.
fn stand_in_bandwidths(params: &ParamValues) -> ParamValues {
    let mut out = params.clone();
    for value in out.0.values_mut() {
        if matches!(value, Value::Rule(_) | Value::Search(_)) {
            *value = Value::Float(1.0);
        }
    }
    out
}

/// The key (and line) that sets the parameter an error names (`gamma = 2 is out of range`
/// blames `kernel.gamma`, not the grid key that happens to set the map).
fn named_in(groups: &[Group], message: &str, params: &[&ParamValues]) -> Option<(String, usize)> {
    let name = params
        .iter()
        .flat_map(|p| p.0.keys())
        .find(|name| message.contains(&format!("{name} =")))?;
    groups
        .iter()
        .find(|g| g.names.iter().any(|n| n == name))
        .map(|g| (g.key.clone(), g.line))
}

/// The key (and line) to blame: the first that sets one of the component's parameters, else
/// the one that names the component (`map`, `learner`).
fn key_of(groups: &[Group], params: &ParamValues, component: &str) -> (String, usize) {
    let names = |g: &&Group| g.names.iter().any(|n| params.0.contains_key(n));
    groups
        .iter()
        .find(names)
        .or_else(|| {
            groups
                .iter()
                .find(|g| g.names.iter().any(|n| n == component))
        })
        .map_or((component.to_string(), 0), |g| (g.key.clone(), g.line))
}
