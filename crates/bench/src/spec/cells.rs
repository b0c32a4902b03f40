//! Stage 4: cells. The groups are expanded into the grid (see [`super::grid`]); each raw cell
//! is then typed into a [`Cell`] by [`super::typing`].

use std::collections::BTreeSet;

use super::grid::{self, Group, RawCell, Scope};
use crate::spec_error::{Checker, SpecResult};
use rfbench_registry::KindInfo;
use rfbench_registry::{
    GeneratorInfo, KernelInfo, LearnerInfo, MapInfo, ParamSpec, ParamValues, TaskKind, Value,
};

/// The columns that name components; every other grid name is a component's parameter.
pub(crate) const COMPONENTS: [&str; 4] = ["dataset", "map", "learner", "kernel"];

/// Where a cell's rows come from.
#[derive(Debug, Clone, Copy)]
pub enum DatasetSource {
    /// An entry of `datasets.toml`.
    Registry,
    Synthetic(&'static GeneratorInfo),
}

/// One cell of the grid (every repetition of it shares these coordinates).
#[derive(Debug, Clone)]
pub struct Cell {
    /// The cell's coordinates, in the plan's column order (absent: not applicable).
    pub coordinates: Vec<(String, Value)>,
    pub dataset: String,
    pub source: DatasetSource,
    pub task: TaskKind,
    pub map: &'static MapInfo,
    pub learner: Option<&'static LearnerInfo>,
    pub kernel: Option<&'static KernelInfo>,
    pub map_params: ParamValues,
    pub learner_params: ParamValues,
    pub kernel_params: ParamValues,
    pub data_params: ParamValues,
    pub kind_params: ParamValues,
    /// Repetitions of this cell: `[run] repetitions`, or fewer where a component's table says so.
    pub repetitions: usize,
}

impl Cell {
    /// Whether the cell's `column` ("map" or "learner") is `name`.
    pub fn has_component(&self, column: &str, name: &str) -> bool {
        match column {
            "map" => self.map.name == name,
            "learner" => self.learner.is_some_and(|l| l.name == name),
            _ => false,
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.coordinates
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// The coordinates that identify the dataset (its name and a generator's parameters).
    pub fn data_key(&self) -> String {
        let mut key = format!("dataset={}", self.dataset);
        for (name, value) in &self.data_params.0 {
            key.push_str(&format!("|{name}={value}"));
        }
        key
    }
}

/// The components a raw cell names (absent where it names none or an unknown one).
pub(crate) struct Components {
    pub generator: Option<&'static GeneratorInfo>,
    pub map: Option<&'static MapInfo>,
    pub learner: Option<&'static LearnerInfo>,
    pub kernel: Option<&'static KernelInfo>,
}

impl Components {
    pub fn of(cell: &RawCell) -> Components {
        let text = |n: &str| cell.get(n).and_then(|v| v.as_str());
        Components {
            generator: text("dataset").and_then(rfbench_registry::generator),
            map: text("map").and_then(rfbench_registry::map),
            learner: text("learner").and_then(rfbench_registry::learner),
            kernel: text("kernel").and_then(rfbench_registry::kernel),
        }
    }

    /// The parameter tables of the kind and of these components, in column order.
    pub fn param_lists(&self, kind: &KindInfo) -> Vec<&'static [ParamSpec]> {
        let mut lists: Vec<&'static [ParamSpec]> = vec![kind.params];
        lists.extend(self.generator.map(|g| g.params));
        lists.extend(self.kernel.map(|k| k.params));
        lists.extend(self.map.map(|m| m.params));
        lists.extend(self.learner.map(|l| l.params));
        lists
    }
}

/// The grid expanded: each cell takes the names its components declare.
///
/// `in_profile`: a profile may run fewer maps or learners than the spec, and then ignores the
/// tables (`[maps.NAME]`) of those it drops; in the spec itself such a table is an error.
pub(crate) fn expand(
    c: Checker<'_>,
    kind: &KindInfo,
    groups: &[Group],
    in_profile: bool,
) -> SpecResult<Vec<RawCell>> {
    let applicable = |cell: &RawCell, name: &str| {
        COMPONENTS.contains(&name)
            || Components::of(cell)
                .param_lists(kind)
                .iter()
                .any(|l| l.iter().any(|p| p.name == name))
    };
    let raw_cells = grid::expand(groups, &COMPONENTS, applicable).map_err(|too_many| {
        let g = &groups[too_many.group];
        c.fail(
            &g.key,
            g.line,
            format!(
                "with this axis ({} values) the grid passes {} cells, the most a spec may plan: \
                 split the sweep into several specs or use fewer values",
                g.rows.len(),
                grid::MAX_CELLS
            ),
        )
    })?;
    // A name no cell takes is a typo or a parameter of a component the spec does not use.
    for g in groups {
        if let Scope::Component { column, name } = &g.scope {
            let runs = |cell: &RawCell| cell.get(column).and_then(|v| v.as_str()) == Some(name);
            if !raw_cells.iter().any(runs) {
                if in_profile {
                    continue;
                }
                return Err(c.fail(
                    &g.key,
                    g.line,
                    format!(
                        "sets a parameter of the {column} `{name}`, which no cell runs: add \
                         {name:?} to the `{column}` axis or remove the table"
                    ),
                ));
            }
        }
        for name in &g.names {
            let used = raw_cells.iter().any(|cell| {
                cell.get(name).is_some() && cell.groups.iter().any(|&i| std::ptr::eq(&groups[i], g))
            });
            if !used {
                let known: BTreeSet<&str> = raw_cells
                    .iter()
                    .flat_map(|cell| Components::of(cell).param_lists(kind))
                    .flat_map(|list| list.iter().map(|p| p.name))
                    .collect();
                let problem = if g.scope == Scope::Global && known.contains(name.as_str()) {
                    // A global value a cell's component takes, so every cell takes it from a
                    // table nearer the cell (the component's own) instead.
                    format!(
                        "every cell takes `{name}` from a more specific table (a component's \
                         own), so this value is never used: remove it"
                    )
                } else {
                    format!(
                        "no component of this spec takes a parameter `{name}`; the spec's \
                         components take: {known:?}"
                    )
                };
                return Err(c.fail(&g.key, g.line, problem));
            }
        }
    }
    Ok(raw_cells)
}
