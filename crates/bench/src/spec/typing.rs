//! Stage 4, each cell: a raw cell typed against the registry. Each component's parameters are
//! parsed by its own table (defaults filled), then the components are checked against each
//! other: the kind needs features, the map approximates the kernel, the learner takes what the
//! map gives and does the dataset's task. Then the components' repetition caps are applied.

use super::cells::{Cell, DatasetSource};
use super::grid::{Group, RawCell};
use super::groups::ComponentRepetitions;
use crate::spec_error::{Checker, SpecError, SpecResult};
use rfbench_data::Registry;
use rfbench_registry::{
    Features, KernelInfo, KindInfo, LearnerInfo, MapInfo, Needs, ParamSpec, ParamValues, TaskKind,
    Value,
};

/// What typing a raw cell needs besides the cell.
pub(crate) struct CellTyping<'a> {
    pub c: Checker<'a>,
    pub kind: &'static KindInfo,
    pub groups: &'a [Group],
    pub columns: &'a [String],
    pub datasets: &'a Registry,
}

/// Typed cells with their repetitions; a repetition cap that no cell uses is an error in the
/// spec itself, and ignored in a profile (`in_profile`) that drops the component.
pub(crate) fn typed_cells(
    t: &CellTyping<'_>,
    raw_cells: &[RawCell],
    repetitions: usize,
    caps: &[ComponentRepetitions],
    in_profile: bool,
) -> SpecResult<Vec<Cell>> {
    let mut cells = Vec::with_capacity(raw_cells.len());
    for raw in raw_cells {
        let mut cell = cell(t, raw)?;
        cell.repetitions = caps
            .iter()
            .filter(|cap| cell.has_component(cap.column, &cap.component))
            .map(|cap| cap.repetitions)
            .fold(repetitions, usize::min);
        cells.push(cell);
    }
    for cap in caps.iter().filter(|_| !in_profile) {
        if !cells
            .iter()
            .any(|cell| cell.has_component(cap.column, &cap.component))
        {
            return Err(t.c.at_span(
                &cap.key,
                &cap.span,
                format!(
                    "no cell of this spec has {} {:?}",
                    cap.column, cap.component
                ),
            ));
        }
    }
    if cells.is_empty() {
        return Err(t.c.whole("the grid has no cells"));
    }
    Ok(cells)
}

/// The task of a dataset: a generator's, or the registry entry's.
pub(crate) fn source_and_task(
    c: Checker<'_>,
    dataset: &str,
    datasets: &Registry,
) -> SpecResult<(DatasetSource, TaskKind)> {
    Ok(match rfbench_registry::generator(dataset) {
        Some(g) => (DatasetSource::Synthetic(g), g.task),
        None => {
            // Known: the dataset names were checked with the groups.
            let entry = datasets.get(dataset).map_err(|e| c.whole(e))?;
            (DatasetSource::Registry, TaskKind::from(entry.task))
        }
    })
}

/// The spec key and line that gave a raw cell its value of `name`.
fn origin(t: &CellTyping<'_>, raw: &RawCell, name: &str) -> (String, usize) {
    raw.groups
        .iter()
        .map(|&i| &t.groups[i])
        .find(|g| g.names.iter().any(|n| n == name))
        .map(|g| (g.key.clone(), g.line))
        .unwrap_or_else(|| (name.to_string(), 0))
}

fn fail_at(t: &CellTyping<'_>, raw: &RawCell, name: &str, problem: String) -> SpecError {
    let (key, line) = origin(t, raw, name);
    t.c.fail(&key, line, problem)
}

/// `params` read from the raw cell, defaults filled; `who` names the component in errors.
fn typed(
    t: &CellTyping<'_>,
    raw: &RawCell,
    params: &'static [ParamSpec],
    who: &str,
) -> SpecResult<ParamValues> {
    let mut out = ParamValues::default();
    for p in params {
        let value = match (raw.get(p.name), p.default) {
            (Some(value), _) => p
                .parse(value)
                .map_err(|problem| fail_at(t, raw, p.name, format!("{who}: {problem}")))?,
            (None, Some(d)) => d.value(),
            (None, None) => {
                return Err(t.c.whole(format!(
                    "{who} needs `{}` ({}): set it in [run], [data], [kernel] or [grid]",
                    p.name, p.doc
                )))
            }
        };
        out.0.insert(p.name.to_string(), value);
    }
    Ok(out)
}

/// One expanded cell, typed against the registry, defaults filled, compatibility checked.
pub(crate) fn cell(t: &CellTyping<'_>, raw: &RawCell) -> SpecResult<Cell> {
    let kind = t.kind;
    let text = |name: &str| raw.get(name).and_then(|v| v.as_str());
    let dataset = text("dataset").unwrap_or_default().to_string();
    let generator = rfbench_registry::generator(&dataset);
    let (source, task) = source_and_task(t.c, &dataset, t.datasets)?;
    // Names were checked with the groups: a name here is known.
    let Some(map) = text("map").and_then(rfbench_registry::map) else {
        return Err(t.c.whole("the spec names no map: set `map` in [grid]"));
    };
    let learner = text("learner").and_then(rfbench_registry::learner);
    if kind.uses_learner && learner.is_none() {
        return Err(t.c.whole(format!(
            "kind {:?} needs a learner: set `learner` in [grid]",
            kind.name
        )));
    }
    let kernel = text("kernel").and_then(rfbench_registry::kernel);

    let kind_params = typed(t, raw, kind.params, &format!("kind {:?}", kind.name))?;
    let data_params = match generator {
        Some(g) => typed(t, raw, g.params, &format!("dataset {:?}", g.name))?,
        None => ParamValues::default(),
    };
    let kernel_params = match kernel {
        Some(k) => typed(t, raw, k.params, &format!("kernel {:?}", k.name))?,
        None => ParamValues::default(),
    };
    let map_params = typed(t, raw, map.params, &format!("map {:?}", map.name))?;
    let learner_params = match learner {
        Some(l) => typed(t, raw, l.params, &format!("learner {:?}", l.name))?,
        None => ParamValues::default(),
    };

    check_map(t, raw, map, kernel)?;
    if let Some(k) = kernel {
        check_kernel(t, raw, k, &kernel_params)?;
    }
    if let Some(l) = learner {
        check_learner(t, raw, l, map, task, &dataset)?;
    }

    let mut cell = Cell {
        coordinates: Vec::new(),
        dataset,
        source,
        task,
        map,
        learner,
        kernel,
        map_params,
        learner_params,
        kernel_params,
        data_params,
        kind_params,
        repetitions: 0,
    };
    cell.coordinates = coordinates(&cell, t.columns);
    Ok(cell)
}

/// The map gives what the kind measures and approximates the cell's kernel.
fn check_map(
    t: &CellTyping<'_>,
    raw: &RawCell,
    map: &MapInfo,
    kernel: Option<&KernelInfo>,
) -> SpecResult<()> {
    let kind = t.kind;
    if kind.needs_feature_map && !matches!(map.features, Features::Map(_)) {
        return Err(fail_at(
            t,
            raw,
            "map",
            format!(
                "kind {:?} measures a feature map; {:?} has no features",
                kind.name, map.name
            ),
        ));
    }
    match kernel {
        Some(k) if !map.kernels.is_empty() && !map.kernels.contains(&k.name) => Err(fail_at(
            t,
            raw,
            "map",
            format!(
                "map {:?} cannot approximate the {:?} kernel; it approximates {:?}",
                map.name, k.name, map.kernels
            ),
        )),
        None if !map.kernels.is_empty() => Err(fail_at(
            t,
            raw,
            "map",
            format!(
                "map {:?} approximates a kernel: name it in [kernel]",
                map.name
            ),
        )),
        _ => Ok(()),
    }
}

/// A kernel parameter the kernel itself refuses (e.g. a gamma the sketches cannot take) is
/// caught here, before anything runs, unless it is a rule on the data; a bandwidth chosen by
/// cross-validation needs a learner to score it.
fn check_kernel(
    t: &CellTyping<'_>,
    raw: &RawCell,
    k: &KernelInfo,
    kernel_params: &ParamValues,
) -> SpecResult<()> {
    for (name, value) in &kernel_params.0 {
        if matches!(value, Value::Search(_)) && !t.kind.uses_learner {
            return Err(fail_at(
                t,
                raw,
                name,
                format!(
                    "`{name}` chosen by cross-validation needs a learner to score it: kind \
                     \"learning\", not {:?}",
                    t.kind.name
                ),
            ));
        }
    }
    let resolved = kernel_params
        .0
        .values()
        .all(|v| !matches!(v, Value::Rule(_) | Value::Search(_)));
    if resolved {
        if let Err(e) = (k.build)(kernel_params) {
            return Err(fail_at(t, raw, "kernel", e.to_string()));
        }
    }
    Ok(())
}

/// The learner takes what the map gives (features or the exact kernel) and does the task.
fn check_learner(
    t: &CellTyping<'_>,
    raw: &RawCell,
    l: &LearnerInfo,
    map: &MapInfo,
    task: TaskKind,
    dataset: &str,
) -> SpecResult<()> {
    let needs = match map.features {
        Features::Exact => Needs::Kernel,
        _ => Needs::Features,
    };
    if l.needs != needs {
        let why = match l.needs {
            Needs::Kernel => "works on the exact kernel: pair it with map \"exact\"",
            Needs::Features => {
                "trains on features: pair it with a feature map or \"none\", not \"exact\""
            }
        };
        return Err(fail_at(
            t,
            raw,
            "learner",
            format!("learner {:?} {why} (got map {:?})", l.name, map.name),
        ));
    }
    if !l.tasks.contains(&task) {
        return Err(fail_at(
            t,
            raw,
            "learner",
            format!(
                "learner {:?} does not do {task:?} (dataset {dataset:?})",
                l.name
            ),
        ));
    }
    Ok(())
}

/// The cell's value of each column it has, in column order.
fn coordinates(cell: &Cell, columns: &[String]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for col in columns {
        let value = match col.as_str() {
            "dataset" => Some(Value::Text(cell.dataset.clone())),
            "map" => Some(Value::Text(cell.map.name.to_string())),
            "learner" => cell.learner.map(|l| Value::Text(l.name.to_string())),
            "kernel" => cell.kernel.map(|k| Value::Text(k.name.to_string())),
            name => [
                &cell.data_params,
                &cell.kernel_params,
                &cell.map_params,
                &cell.learner_params,
                &cell.kind_params,
            ]
            .iter()
            .find_map(|p| p.get(name).cloned()),
        };
        if let Some(v) = value {
            out.push((col.clone(), v));
        }
    }
    out
}
