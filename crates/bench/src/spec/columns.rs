//! Stage 5: columns and seeds. The results' coordinate columns are ordered (components, then the
//! parameters of the data source, kernel, map, learner and kind, each in registry order), the
//! seeds' scopes resolved (the kind's defaults or the spec's `[seeds]`), and the metric columns
//! gathered (the kind's, the learners' diagnostics, the values bandwidth rules chose, the
//! spec's `[sums]`).

use std::collections::{BTreeMap, BTreeSet};

use toml::Spanned;

use super::cells::{Cell, Components};
use super::grid::{Group, RawCell};
use crate::spec_error::{Checker, SpecResult};
use rfbench_registry::{ChosenBy, KindInfo, SeedScope, SeedSpec, TunedColumns};
use rfbench_registry::{ParamSpec, Value};

/// A seed column and the axes its key is built from.
#[derive(Debug, Clone)]
pub struct PlannedSeed {
    pub spec: &'static SeedSpec,
    /// Axis names in column order; `repetition` is separate.
    pub axes: Vec<String>,
    pub with_repetition: bool,
}

/// The coordinate columns of the raw cells, in order, and which of them are a data source's.
pub(crate) fn coordinate_columns(
    kind: &KindInfo,
    raw_cells: &[RawCell],
) -> (Vec<String>, Vec<String>) {
    let mut columns: Vec<String> = vec!["dataset".to_string()];
    let mut add = |name: &str| {
        if !columns.iter().any(|c| c == name) {
            columns.push(name.to_string());
        }
    };
    let mut order: Vec<Vec<&'static [ParamSpec]>> = vec![Vec::new(); 5];
    for cell in raw_cells {
        let components = Components::of(cell);
        order[0].extend(components.generator.map(|g| g.params));
        order[1].extend(components.kernel.map(|k| k.params));
        order[2].extend(components.map.map(|m| m.params));
        order[3].extend(components.learner.map(|l| l.params));
    }
    order[4].push(kind.params);
    for name in ["map", "learner", "kernel"] {
        if raw_cells.iter().any(|cell| cell.get(name).is_some()) {
            add(name);
        }
    }
    for p in order.iter().flatten().flat_map(|list| list.iter()) {
        add(p.name);
    }
    // A generator's parameters come right after the dataset.
    let data_params: Vec<String> = order[0]
        .iter()
        .flat_map(|l| l.iter().map(|p| p.name.to_string()))
        .collect();
    columns.sort_by_key(|c| {
        if c == "dataset" {
            0
        } else if data_params.contains(c) {
            1
        } else {
            2
        }
    });
    (columns, data_params)
}

/// The names written as lists (they enter seed keys).
pub(crate) fn axes(groups: &[Group]) -> BTreeSet<String> {
    groups
        .iter()
        .filter(|g| g.is_axis)
        .flat_map(|g| g.names.clone())
        .collect()
}

/// The kind's seeds, each scoped by the spec's `[seeds]` or the kind's default.
pub(crate) fn seeds(
    c: Checker<'_>,
    kind: &'static KindInfo,
    scopes: &BTreeMap<String, Spanned<Vec<String>>>,
    columns: &[String],
    data_params: &[String],
    axes: &BTreeSet<String>,
) -> SpecResult<Vec<PlannedSeed>> {
    for (name, scope) in scopes {
        if !kind.seeds.iter().any(|s| s.column == name) {
            let known: Vec<&str> = kind.seeds.iter().map(|s| s.column).collect();
            return Err(c.at_span(
                &format!("seeds.{name}"),
                &scope.span(),
                format!("unknown seed; kind {:?} has {known:?}", kind.name),
            ));
        }
        for axis in scope.get_ref() {
            if axis != "repetition" && !axes.contains(axis) {
                return Err(c.at_span(
                    &format!("seeds.{name}"),
                    &scope.span(),
                    format!(
                        "`{axis}` is not an axis of this spec (axes: {axes:?}, and \"repetition\")"
                    ),
                ));
            }
        }
    }
    let in_order = |keep: &dyn Fn(&String) -> bool| -> Vec<String> {
        columns.iter().filter(|col| keep(col)).cloned().collect()
    };
    let data_axes =
        in_order(&|col| (col == "dataset" || data_params.contains(col)) && axes.contains(col));
    Ok(kind
        .seeds
        .iter()
        .map(|spec| match scopes.get(spec.column) {
            Some(scope) => PlannedSeed {
                spec,
                axes: in_order(&|col| scope.get_ref().contains(col)),
                with_repetition: scope.get_ref().iter().any(|a| a == "repetition"),
            },
            None => match spec.scope {
                SeedScope::AllAxes => PlannedSeed {
                    spec,
                    axes: in_order(&|col| axes.contains(col)),
                    with_repetition: true,
                },
                SeedScope::Data { repetition } => PlannedSeed {
                    spec,
                    axes: data_axes.clone(),
                    with_repetition: repetition,
                },
            },
        })
        .collect())
}

/// The metric columns: the kind's, the diagnostics and tuned values of the learners the cells
/// use (`C_chosen`, `C_at_edge`), and the values a bandwidth rule or search chose (`sigma_used`,
/// `sigma_at_edge`); with the tuned values' columns on their own, for the runner's warnings.
pub(crate) fn metrics(
    c: Checker<'_>,
    kind: &KindInfo,
    cells: &[Cell],
    columns: &[String],
) -> SpecResult<(Vec<String>, Vec<TunedColumns>)> {
    let mut metrics: Vec<String> = kind.metrics.iter().map(|m| m.to_string()).collect();
    let mut add = |name: &str| {
        if !metrics.iter().any(|m| m == name) {
            metrics.push(name.to_string());
        }
    };
    let mut tuned: Vec<TunedColumns> = Vec::new();
    for learner in rfbench_registry::LEARNERS {
        if cells
            .iter()
            .any(|cell| cell.learner.is_some_and(|l| l.name == learner.name))
        {
            learner.extras.iter().for_each(|e| add(e));
            for t in learner.tuned_columns() {
                t.names().for_each(&mut add);
                if !tuned.contains(&t) {
                    tuned.push(t);
                }
            }
        }
    }
    for cell in cells {
        for (name, value) in &cell.kernel_params.0 {
            let searched = match value {
                Value::Rule(_) => false,
                Value::Search(_) => true,
                _ => continue,
            };
            let t = TunedColumns::new(name, ChosenBy::Kernel, searched);
            t.names().for_each(&mut add);
            // One entry per parameter: the searched one's when some cell searches it.
            match tuned.iter_mut().find(|k| k.chosen == t.chosen) {
                Some(known) if searched => *known = t,
                Some(_) => {}
                None => tuned.push(t),
            }
        }
    }
    if let Some(clash) = metrics.iter().find(|m| columns.contains(m)) {
        return Err(c.whole(format!(
            "`{clash}` is both a parameter and a metric of this spec's components (a registry defect)"
        )));
    }
    Ok((metrics, tuned))
}

/// The spec's `[sums]`: (a new metric, the metrics it adds up).
pub(crate) fn sums(
    c: Checker<'_>,
    raw: &BTreeMap<String, Spanned<Vec<String>>>,
    columns: &[String],
    metrics: &[String],
) -> SpecResult<Vec<(String, Vec<String>)>> {
    let mut sums = Vec::new();
    for (name, parts) in raw {
        let key = format!("sums.{name}");
        let fail = |problem: String| Err(c.at_span(&key, &parts.span(), problem));
        if columns.contains(name) || metrics.contains(name) {
            return fail(format!(
                "`{name}` is already a column of the results; a sum needs a new name"
            ));
        }
        if parts.get_ref().len() < 2 {
            return fail("a sum needs at least two metrics".into());
        }
        if let Some(unknown) = parts.get_ref().iter().find(|p| !metrics.contains(p)) {
            return fail(format!(
                "unknown metric {unknown:?}; this spec's metrics: {metrics:?}"
            ));
        }
        sums.push((name.clone(), parts.get_ref().clone()));
    }
    Ok(sums)
}
