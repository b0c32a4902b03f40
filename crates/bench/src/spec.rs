//! Experiment specs: TOML files in `experiments/`, parsed in two stages.
//!
//! 1. [`RawSpec`] mirrors the TOML with serde, unknown top-level keys denied, every value kept
//!    with its span so that an error names the key and its line.
//! 2. [`Plan`] is the validated form: the profile applied, every component and parameter checked
//!    against the registry, the grid expanded into [`Cell`]s, seed scopes resolved, the outputs'
//!    column names checked against the columns the run will write.
//!
//! Experiments are data, not code (benchopt's rule): a user writes a sweep by editing lists.
//! The full reference, generated from the registry, is `docs/spec.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::data::{Registry, Step, Task};
use crate::error::{Error, Result};
use crate::grid::{self, Group, RawCell, Scope};
use crate::kinds::{KindInfo, SeedScope, SeedSpec};
use crate::outputs::{self, Columns, RawClaim, RawFigure, RawPaperValue, RawTable};
use crate::registry::{
    self, GeneratorInfo, KernelInfo, LearnerInfo, MapInfo, Needs, ParamSpec, ParamValues, TaskKind,
    Value,
};

type Table = BTreeMap<String, Spanned<toml::Value>>;

/// The TOML file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub name: String,
    pub title: String,
    /// Which source document and item the experiment reproduces, e.g. "000 Fig. 1".
    pub paper: String,
    /// The experiment kind (see `rfbench` docs/spec.md): kernel-error, gram-error, timing, learning.
    pub kind: Spanned<String>,
    /// `dataset` (a name or a list), `preprocess`, and a synthetic source's parameters.
    pub data: Table,
    /// `master_seed`, `repetitions`, and the kind's parameters.
    pub run: Table,
    /// `name` and the kernel's parameters (lists are axes).
    #[serde(default)]
    pub kernel: Table,
    /// Global axes and constants.
    #[serde(default)]
    pub grid: Table,
    /// Axes of one map: `[maps.rff] form = ["paired", "phase"]`.
    #[serde(default)]
    pub maps: BTreeMap<String, Table>,
    /// Axes of one learner: `[learners.linear-svm] C = [0.1, 1]`.
    #[serde(default)]
    pub learners: BTreeMap<String, Table>,
    /// Seed scopes that replace the kind's defaults: `pair_seed = ["dataset", "repetition"]`.
    #[serde(default)]
    pub seeds: BTreeMap<String, Spanned<Vec<String>>>,
    #[serde(default)]
    pub profiles: BTreeMap<String, Table>,
    #[serde(default)]
    pub figures: Vec<RawFigure>,
    #[serde(default)]
    pub tables: Vec<RawTable>,
    #[serde(default)]
    pub claims: Vec<RawClaim>,
    #[serde(default)]
    pub paper_values: Vec<RawPaperValue>,
    /// Labels of coordinate values in figures, tables and the report, replacing the registry's:
    /// `[labels.dataset] "fashion-mnist" = "Fashion-MNIST (stand-in for MNIST)"`.
    #[serde(default)]
    pub labels: BTreeMap<String, Spanned<BTreeMap<String, String>>>,
    /// Metrics that are the sum of others in the same row, for quantities a paper reports as one
    /// number and the runner measures in parts: `[sums] fit_seconds = ["map_seconds",
    /// "train_seconds"]`. Computed when the results are read (never written to the CSV, so they
    /// always agree with it); figures, tables, claims and paper values may name them.
    #[serde(default)]
    pub sums: BTreeMap<String, Spanned<Vec<String>>>,
    pub check: RawCheck,
}

/// How `rfbench check` compares a regenerated result with the committed reference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Metric columns compared.
    pub columns: Spanned<Vec<String>>,
    /// Same master seed: largest relative difference allowed (0 = bit for bit).
    #[serde(default)]
    pub rtol: Option<Spanned<f64>>,
    /// Other master seed: the probability, over the whole file, that a correct rerun fails.
    #[serde(default)]
    pub false_alarm: Option<Spanned<f64>>,
    /// Other master seed: the metrics tested statistically (default: `columns`). A metric whose
    /// repetitions take few distinct values (a median of lattice-valued errors) breaks the t
    /// test's model and belongs in `columns` only.
    #[serde(default)]
    pub statistical: Option<Spanned<Vec<String>>>,
}

/// Which grid cells to run: the spec's own lists or its quick profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Full,
    Quick,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Full => "full",
            Profile::Quick => "quick",
        }
    }

    /// File stem of this profile's results: `NAME` or `NAME.quick`.
    pub fn stem(self, experiment: &str) -> String {
        match self {
            Profile::Full => experiment.to_string(),
            Profile::Quick => format!("{experiment}.quick"),
        }
    }
}

/// A preprocessing step of the spec and the line it is written on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannedStep {
    pub step: Step,
    pub line: usize,
}

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

/// A seed column and the axes its key is built from.
#[derive(Debug, Clone)]
pub struct PlannedSeed {
    pub spec: &'static SeedSpec,
    /// Axis names in column order; `repetition` is separate.
    pub axes: Vec<String>,
    pub with_repetition: bool,
}

/// The validated experiment, with a profile applied.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    pub title: String,
    pub paper: String,
    pub source: PathBuf,
    pub profile: Profile,
    pub kind: &'static KindInfo,
    /// `None`: the registry entry's default steps.
    pub preprocess: Option<Vec<PlannedStep>>,
    pub master_seed: u64,
    pub repetitions: usize,
    pub cells: Vec<Cell>,
    /// Coordinate columns of the results, in order.
    pub columns: Vec<String>,
    /// The names written as lists (they enter seed keys).
    pub axes: BTreeSet<String>,
    pub seeds: Vec<PlannedSeed>,
    /// Metric columns of the results, in order.
    pub metrics: Vec<String>,
    pub figures: Vec<RawFigure>,
    pub tables: Vec<RawTable>,
    pub claims: Vec<RawClaim>,
    pub paper_values: Vec<RawPaperValue>,
    pub check_columns: Vec<String>,
    /// The metrics the other-seed mode tests (a subset of `check_columns`).
    pub check_statistical: Vec<String>,
    pub check_rtol: f64,
    pub check_false_alarm: f64,
    /// The spec's `[labels]`: ((column, value), label).
    pub labels: Vec<((String, String), String)>,
    /// The spec's `[sums]`: (metric, the metrics it adds up).
    pub sums: Vec<(String, Vec<String>)>,
}

impl Plan {
    /// The key a seed of `cell` at `repetition` is derived from: the seed's prefix, then
    /// `name=value` for every axis in its scope (`n_components` written `D`, as the papers do),
    /// then `rep=R`. Pinned by tests: changing it changes every committed result.
    pub fn seed_key(&self, seed: &PlannedSeed, cell: &Cell, repetition: usize) -> String {
        let mut parts: Vec<String> = seed.spec.prefix.iter().map(|p| p.to_string()).collect();
        for axis in &seed.axes {
            if let Some(value) = cell.get(axis) {
                let label = if axis == "n_components" { "D" } else { axis };
                parts.push(format!("{label}={value}"));
            }
        }
        if seed.with_repetition {
            parts.push(format!("rep={repetition}"));
        }
        parts.join("|")
    }

    pub fn seed(&self, column: &str, cell: &Cell, repetition: usize) -> Option<u64> {
        self.seeds
            .iter()
            .find(|s| s.spec.column == column)
            .map(|s| {
                crate::seeds::derive_seed(self.master_seed, &self.seed_key(s, cell, repetition))
            })
    }

    /// The columns of the results CSV (without the `[sums]`, which are computed when it is read).
    pub fn output_columns(&self) -> Columns {
        Columns {
            coordinates: self.columns.clone(),
            metrics: self.metrics.clone(),
        }
    }
}

/// Line (1-based) of a byte offset in `text`.
pub fn line_of(text: &str, span: &Range<usize>) -> usize {
    text[..span.start.min(text.len())].matches('\n').count() + 1
}

struct Checker<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Checker<'_> {
    fn fail(&self, key: &str, line: usize, message: impl std::fmt::Display) -> Error {
        Error::Spec {
            path: self.path.to_path_buf(),
            message: format!("key `{key}` (line {line}): {message}"),
        }
    }

    fn error<T>(
        &self,
        key: &str,
        span: &Range<usize>,
        message: impl std::fmt::Display,
    ) -> Result<T> {
        Err(self.fail(key, line_of(self.text, span), message))
    }
}

const COMPONENTS: [&str; 4] = ["dataset", "map", "learner", "kernel"];

/// The values of a group: a list is an axis (a list of lists when zipped), anything else a
/// constant; duplicates in an axis are an error (they would narrow error bars and tolerances).
fn group_of(
    c: &Checker<'_>,
    key: &str,
    name: &str,
    value: &Spanned<toml::Value>,
    scope: Scope,
) -> Result<Group> {
    let line = line_of(c.text, &value.span());
    let names: Vec<String> = name.split(',').map(|n| n.trim().to_string()).collect();
    if names.iter().any(|n| n.is_empty()) {
        return Err(c.fail(key, line, "an empty name in a zipped axis"));
    }
    let (rows, is_axis) = match (value.get_ref(), names.len()) {
        (toml::Value::Array(items), 1) => {
            if items.is_empty() {
                return Err(c.fail(key, line, "the list is empty"));
            }
            (
                items.iter().map(|v| vec![v.clone()]).collect::<Vec<_>>(),
                true,
            )
        }
        (other, 1) => (vec![vec![other.clone()]], false),
        (toml::Value::Array(items), n) => {
            let mut rows = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item {
                    toml::Value::Array(row) if row.len() == n => rows.push(row.clone()),
                    toml::Value::Array(row) => {
                        return Err(c.fail(
                            key,
                            line,
                            format!(
                                "zipped axis of {n} names: entry {} has {} values",
                                i + 1,
                                row.len()
                            ),
                        ))
                    }
                    other => {
                        return Err(c.fail(
                            key,
                            line,
                            format!(
                                "zipped axis: entry {} must be a list of {n} values, got {other}",
                                i + 1
                            ),
                        ))
                    }
                }
            }
            if rows.is_empty() {
                return Err(c.fail(key, line, "the list is empty"));
            }
            (rows, true)
        }
        (other, n) => {
            return Err(c.fail(
                key,
                line,
                format!("a zipped axis of {n} names needs a list of lists, got {other}"),
            ))
        }
    };
    let mut seen = BTreeSet::new();
    for row in &rows {
        let shown = format!("{row:?}");
        if !seen.insert(shown) {
            let values: Vec<String> = row.iter().map(|v| v.to_string()).collect();
            return Err(c.fail(
                key,
                line,
                format!("the value {} is listed twice", values.join(", ")),
            ));
        }
    }
    Ok(Group {
        names,
        rows,
        is_axis,
        scope,
        key: key.to_string(),
        line,
    })
}

/// A spec value of a component name, as text.
fn name_of(v: &toml::Value) -> Option<&str> {
    v.as_str()
}

impl RawSpec {
    /// Parses TOML text; `path` is only used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<RawSpec> {
        toml::from_str(text).map_err(|e| Error::Spec {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Validates the spec against the registry and `datasets` and applies `profile`.
    pub fn plan(
        &self,
        text: &str,
        path: &Path,
        profile: Profile,
        datasets: &Registry,
    ) -> Result<Plan> {
        let c = Checker { text, path };
        let kind = match registry::kind(self.kind.get_ref()) {
            Some(k) => k,
            None => {
                return c.error(
                    "kind",
                    &self.kind.span(),
                    format!(
                        "unknown kind {:?}; known: {:?}",
                        self.kind.get_ref(),
                        registry::kind_names()
                    ),
                )
            }
        };

        // The profile replaces values of [run], [data], [kernel] and [grid] by name.
        let overrides: Table = match profile {
            Profile::Full => Table::new(),
            Profile::Quick => match self.profiles.get("quick") {
                Some(t) => t.clone(),
                None => {
                    return Err(Error::Spec {
                        path: path.to_path_buf(),
                        message: "`--quick` needs a [profiles.quick] table".into(),
                    })
                }
            },
        };
        for name in self.profiles.keys() {
            if name != "quick" {
                return Err(Error::Spec {
                    path: path.to_path_buf(),
                    message: format!("[profiles.{name}]: unknown profile; known: [\"quick\"]"),
                });
            }
        }
        for (name, value) in &overrides {
            let known = self.run.contains_key(name)
                || self.data.contains_key(name)
                || self.kernel.contains_key(name)
                || self.grid.contains_key(name);
            if !known {
                return c.error(
                    &format!("profiles.quick.{name}"),
                    &value.span(),
                    "a profile may only replace a key of [run], [data], [kernel] or [grid] that the spec sets",
                );
            }
        }
        let pick = |section: &str,
                    name: &str,
                    value: &Spanned<toml::Value>|
         -> (String, Spanned<toml::Value>) {
            match overrides.get(name) {
                Some(v) => (format!("profiles.quick.{name}"), v.clone()),
                None => (format!("{section}.{name}"), value.clone()),
            }
        };

        // [run]: the seed, the repetitions, the kind's parameters.
        let master_seed = match self.run.get("master_seed").map(|v| (v, v.get_ref())) {
            Some((_, toml::Value::Integer(s))) if *s >= 0 => *s as u64,
            Some((v, other)) => {
                return c.error(
                    "run.master_seed",
                    &v.span(),
                    format!("must be an integer >= 0, got {other}"),
                )
            }
            None => {
                return Err(Error::Spec {
                    path: path.to_path_buf(),
                    message: "[run] needs `master_seed`".into(),
                })
            }
        };
        let repetitions = match self.run.get("repetitions") {
            Some(v) => {
                let (key, v) = pick("run", "repetitions", v);
                match v.get_ref() {
                    toml::Value::Integer(r) if (2..=10_000).contains(r) => *r as usize,
                    other => return c.error(&key, &v.span(), format!("must be an integer in 2..=10000 (error bars and checks need 2), got {other}")),
                }
            }
            None => {
                return Err(Error::Spec {
                    path: path.to_path_buf(),
                    message: "[run] needs `repetitions`".into(),
                })
            }
        };

        let mut groups: Vec<Group> = Vec::new();
        let mut preprocess = None;
        for (name, value) in &self.data {
            let (key, value) = pick("data", name, value);
            if name == "preprocess" {
                preprocess = Some(self.preprocess(&c, &key, &value)?);
                continue;
            }
            groups.push(group_of(&c, &key, name, &value, Scope::Global)?);
        }
        for (name, value) in &self.run {
            if name == "master_seed" || name == "repetitions" {
                continue;
            }
            let (key, value) = pick("run", name, value);
            groups.push(group_of(&c, &key, name, &value, Scope::Global)?);
        }
        for (name, value) in &self.kernel {
            let (key, value) = pick("kernel", name, value);
            let column = if name == "name" {
                "kernel"
            } else {
                name.as_str()
            };
            groups.push(group_of(&c, &key, column, &value, Scope::Global)?);
        }
        for (name, value) in &self.grid {
            let (key, value) = pick("grid", name, value);
            groups.push(group_of(&c, &key, name, &value, Scope::Global)?);
        }
        // `[maps.NAME] repetitions = R` / `[learners.NAME] repetitions = R`: the cells with that
        // component run at most R repetitions (an exact, seed-free method needs one).
        let mut component_repetitions: Vec<(&str, String, usize, String, std::ops::Range<usize>)> =
            Vec::new();
        for (section, column, tables) in [
            ("maps", "map", &self.maps),
            ("learners", "learner", &self.learners),
        ] {
            for (component, table) in tables {
                let known = if column == "map" {
                    registry::map(component).is_some()
                } else {
                    registry::learner(component).is_some()
                };
                if !known {
                    let names = if column == "map" {
                        registry::map_names()
                    } else {
                        registry::learner_names()
                    };
                    let line = table
                        .values()
                        .next()
                        .map(|v| line_of(text, &v.span()))
                        .unwrap_or(0);
                    return Err(c.fail(
                        &format!("{section}.{component}"),
                        line,
                        format!("unknown {column} {component:?}; known: {names:?}"),
                    ));
                }
                for (name, value) in table {
                    if name == "repetitions" {
                        let key = format!("{section}.{component}.repetitions");
                        match value.get_ref() {
                            toml::Value::Integer(r) if (1..=10_000).contains(r) => {
                                component_repetitions.push((column, component.clone(), *r as usize, key, value.span()))
                            }
                            other => return c.error(&key, &value.span(), format!("must be an integer in 1..=10000 (the cells with this {column} run at most this many repetitions), got {other}")),
                        }
                        continue;
                    }
                    let scope = Scope::Component {
                        column,
                        name: component.clone(),
                    };
                    groups.push(group_of(
                        &c,
                        &format!("{section}.{component}.{name}"),
                        name,
                        value,
                        scope,
                    )?);
                }
            }
        }

        if !groups
            .iter()
            .any(|g| g.names.iter().any(|n| n == "dataset"))
        {
            return Err(Error::Spec {
                path: path.to_path_buf(),
                message: "no dataset: name one in [data] (`dataset = ...`, a list, or a zipped \
                          axis such as `\"dataset, n_components\" = [...]`)"
                    .into(),
            });
        }

        // A name set twice in the same scope (`[data] dataset` and a zipped `"dataset, D"` in
        // `[grid]`) would let one silently replace the other.
        for (i, g) in groups.iter().enumerate() {
            for earlier in &groups[..i] {
                if earlier.scope != g.scope {
                    continue;
                }
                if let Some(name) = g.names.iter().find(|n| earlier.names.contains(n)) {
                    return Err(c.fail(
                        &g.key,
                        g.line,
                        format!(
                            "`{name}` is also set by `{}` (line {}): set it in one place",
                            earlier.key, earlier.line
                        ),
                    ));
                }
            }
        }

        // Component names, checked before the grid is expanded.
        for g in &groups {
            for (k, name) in g.names.iter().enumerate() {
                let check: Option<(Vec<&str>, &str)> = match name.as_str() {
                    "map" => Some((registry::map_names(), "map")),
                    "learner" => Some((registry::learner_names(), "learner")),
                    "kernel" => Some((registry::kernel_names(), "kernel")),
                    _ => None,
                };
                for row in &g.rows {
                    let value = &row[k];
                    if name == "dataset" {
                        let Some(ds) = name_of(value) else {
                            return Err(c.fail(
                                &g.key,
                                g.line,
                                format!("a dataset is a name, got {value}"),
                            ));
                        };
                        if registry::generator(ds).is_none() && datasets.get(ds).is_err() {
                            let mut known: Vec<String> =
                                datasets.entries().iter().map(|e| e.name.clone()).collect();
                            known.extend(registry::GENERATORS.iter().map(|g| g.name.to_string()));
                            return Err(c.fail(
                                &g.key,
                                g.line,
                                format!("unknown dataset {ds:?}; known: {known:?}"),
                            ));
                        }
                    }
                    if let Some((known, what)) = &check {
                        match name_of(value) {
                            Some(n) if known.contains(&n) => {}
                            _ => {
                                return Err(c.fail(
                                    &g.key,
                                    g.line,
                                    format!("unknown {what} {value}; known: {known:?}"),
                                ))
                            }
                        }
                    }
                }
                if name == "learner" && !kind.uses_learner {
                    return Err(c.fail(
                        &g.key,
                        g.line,
                        format!("kind {:?} trains no learner", kind.name),
                    ));
                }
            }
        }

        // Which names a cell takes, from its components.
        let components_of = |cell: &RawCell| {
            let text = |n: &str| cell.get(n).and_then(|v| v.as_str());
            (
                text("dataset").and_then(registry::generator),
                text("map").and_then(registry::map),
                text("learner").and_then(registry::learner),
                text("kernel").and_then(registry::kernel),
            )
        };
        let param_lists = |cell: &RawCell| -> Vec<&'static [ParamSpec]> {
            let (generator, map, learner, kernel) = components_of(cell);
            let mut lists: Vec<&'static [ParamSpec]> = vec![kind.params];
            lists.extend(generator.map(|g| g.params));
            lists.extend(kernel.map(|k| k.params));
            lists.extend(map.map(|m| m.params));
            lists.extend(learner.map(|l| l.params));
            lists
        };
        let applicable = |cell: &RawCell, name: &str| {
            COMPONENTS.contains(&name)
                || param_lists(cell)
                    .iter()
                    .any(|l| l.iter().any(|p| p.name == name))
        };
        let raw_cells = grid::expand(&groups, &COMPONENTS, applicable);

        // A name no cell takes is a typo or a parameter of a component the spec does not use.
        for g in &groups {
            for name in &g.names {
                let used = raw_cells.iter().any(|cell| {
                    cell.get(name).is_some()
                        && cell.groups.iter().any(|&i| std::ptr::eq(&groups[i], g))
                });
                if !used {
                    let mut known: BTreeSet<&str> = BTreeSet::new();
                    for cell in &raw_cells {
                        for list in param_lists(cell) {
                            known.extend(list.iter().map(|p| p.name));
                        }
                    }
                    return Err(c.fail(&g.key, g.line, format!(
                        "no component of this spec takes a parameter `{name}`; the spec's components take: {:?}",
                        known
                    )));
                }
            }
        }

        // Column order: components, then the parameters of the data source, kernel, map, learner
        // and kind, each in registry order.
        let mut columns: Vec<String> = Vec::new();
        let mut add = |name: &str| {
            if !columns.iter().any(|c| c == name) {
                columns.push(name.to_string());
            }
        };
        add("dataset");
        let mut order: Vec<Vec<&'static [ParamSpec]>> = vec![Vec::new(); 5];
        for cell in &raw_cells {
            let (generator, map, learner, kernel) = components_of(cell);
            order[0].extend(generator.map(|g| g.params));
            order[1].extend(kernel.map(|k| k.params));
            order[2].extend(map.map(|m| m.params));
            order[3].extend(learner.map(|l| l.params));
        }
        order[4].push(kind.params);
        for name in ["map", "learner", "kernel"] {
            if raw_cells.iter().any(|cell| cell.get(name).is_some()) {
                add(name);
            }
        }
        for lists in &order {
            for list in lists {
                for p in list.iter() {
                    add(p.name);
                }
            }
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

        let axes: BTreeSet<String> = groups
            .iter()
            .filter(|g| g.is_axis)
            .flat_map(|g| g.names.clone())
            .collect();

        // Typed, defaulted cells.
        let mut cells = Vec::with_capacity(raw_cells.len());
        for raw in &raw_cells {
            let mut cell = self.cell(&c, kind, raw, &groups, &columns, datasets)?;
            cell.repetitions = component_repetitions
                .iter()
                .filter(|(column, component, ..)| cell.has_component(column, component))
                .map(|(_, _, r, ..)| *r)
                .fold(repetitions, usize::min);
            cells.push(cell);
        }
        for (column, component, _, key, span) in &component_repetitions {
            if !cells
                .iter()
                .any(|cell| cell.has_component(column, component))
            {
                return c.error(
                    key,
                    span,
                    format!("no cell of this spec has {column} {component:?}"),
                );
            }
        }
        if cells.is_empty() {
            return Err(Error::Spec {
                path: path.to_path_buf(),
                message: "the grid has no cells".into(),
            });
        }
        // Columns no cell fills (a parameter of no component used) are dropped.
        columns.retain(|col| cells.iter().any(|cell| cell.get(col).is_some()));

        // Seeds: the kind's defaults, or the spec's scopes.
        let data_axes: Vec<String> = columns
            .iter()
            .filter(|col| (*col == "dataset" || data_params.contains(col)) && axes.contains(*col))
            .cloned()
            .collect();
        for (name, scope) in &self.seeds {
            if !kind.seeds.iter().any(|s| s.column == name) {
                let known: Vec<&str> = kind.seeds.iter().map(|s| s.column).collect();
                return c.error(
                    &format!("seeds.{name}"),
                    &scope.span(),
                    format!("unknown seed; kind {:?} has {known:?}", kind.name),
                );
            }
            for axis in scope.get_ref() {
                if axis != "repetition" && !axes.contains(axis) {
                    return c.error(&format!("seeds.{name}"), &scope.span(), format!("`{axis}` is not an axis of this spec (axes: {axes:?}, and \"repetition\")"));
                }
            }
        }
        let seeds = kind
            .seeds
            .iter()
            .map(|spec| match self.seeds.get(spec.column) {
                Some(scope) => PlannedSeed {
                    spec,
                    axes: columns
                        .iter()
                        .filter(|col| scope.get_ref().contains(col))
                        .cloned()
                        .collect(),
                    with_repetition: scope.get_ref().iter().any(|a| a == "repetition"),
                },
                None => match spec.scope {
                    SeedScope::AllAxes => PlannedSeed {
                        spec,
                        axes: columns
                            .iter()
                            .filter(|col| axes.contains(*col))
                            .cloned()
                            .collect(),
                        with_repetition: true,
                    },
                    SeedScope::Data { repetition } => PlannedSeed {
                        spec,
                        axes: data_axes.clone(),
                        with_repetition: repetition,
                    },
                },
            })
            .collect();

        let mut metrics: Vec<String> = kind.metrics.iter().map(|m| m.to_string()).collect();
        for learner in registry::LEARNERS {
            if cells
                .iter()
                .any(|cell| cell.learner.is_some_and(|l| l.name == learner.name))
            {
                for extra in learner.extras {
                    if !metrics.iter().any(|m| m == extra) {
                        metrics.push(extra.to_string());
                    }
                }
            }
        }

        // A bandwidth computed by a rule is written beside the rule: `sigma_used`.
        for cell in &cells {
            for (name, value) in &cell.kernel_params.0 {
                let used = format!("{name}_used");
                if matches!(value, Value::Rule(_) | Value::Search(_)) && !metrics.contains(&used) {
                    metrics.push(used);
                }
                let edge = format!("{name}_at_edge");
                if matches!(value, Value::Search(_)) && !metrics.contains(&edge) {
                    metrics.push(edge);
                }
            }
        }

        if let Some(clash) = metrics.iter().find(|m| columns.contains(m)) {
            return Err(Error::Spec {
                path: path.to_path_buf(),
                message: format!("`{clash}` is both a parameter and a metric of this spec's components (a registry defect)"),
            });
        }

        let mut sums = Vec::new();
        for (name, parts) in &self.sums {
            let key = format!("sums.{name}");
            if columns.contains(name) || metrics.contains(name) {
                return c.error(
                    &key,
                    &parts.span(),
                    format!("`{name}` is already a column of the results; a sum needs a new name"),
                );
            }
            if parts.get_ref().len() < 2 {
                return c.error(&key, &parts.span(), "a sum needs at least two metrics");
            }
            if let Some(unknown) = parts.get_ref().iter().find(|p| !metrics.contains(p)) {
                return c.error(
                    &key,
                    &parts.span(),
                    format!("unknown metric {unknown:?}; this spec's metrics: {metrics:?}"),
                );
            }
            sums.push((name.clone(), parts.get_ref().clone()));
        }

        let columns_for_outputs = Columns {
            coordinates: columns.clone(),
            metrics: metrics
                .iter()
                .cloned()
                .chain(sums.iter().map(|(name, _)| name.clone()))
                .collect(),
        };
        outputs::validate(
            &self.figures,
            &self.tables,
            &self.claims,
            &self.paper_values,
            &columns_for_outputs,
            text,
            path,
        )?;

        // Labels are checked against the full grid (a quick profile may leave a labelled value
        // or column out).
        let mut labels = Vec::new();
        for (column, table) in &self.labels {
            let key = format!("labels.{column}");
            if profile == Profile::Full && !columns.contains(column) {
                return c.error(
                    &key,
                    &table.span(),
                    format!(
                        "`{column}` is not a coordinate of this spec; coordinates: {columns:?}"
                    ),
                );
            }
            for (value, label) in table.get_ref() {
                let used = cells
                    .iter()
                    .any(|cell| cell.get(column).is_some_and(|v| v.to_string() == *value));
                if profile == Profile::Full && !used {
                    return c.error(
                        &key,
                        &table.span(),
                        format!("no cell has {column} = {value:?}"),
                    );
                }
                labels.push(((column.clone(), value.clone()), label.clone()));
            }
        }

        let check_columns = self.check.columns.get_ref().clone();
        for column in &check_columns {
            if !metrics.contains(column) {
                return c.error(
                    "check.columns",
                    &self.check.columns.span(),
                    format!("unknown metric {column:?}; known: {metrics:?}"),
                );
            }
        }
        let check_statistical = match &self.check.statistical {
            None => check_columns.clone(),
            Some(list) => {
                for column in list.get_ref() {
                    if !check_columns.contains(column) {
                        return c.error(
                            "check.statistical",
                            &list.span(),
                            format!("{column:?} is not in check.columns {check_columns:?}"),
                        );
                    }
                }
                list.get_ref().clone()
            }
        };
        let check_rtol = match &self.check.rtol {
            Some(r) if r.get_ref().is_finite() && *r.get_ref() >= 0.0 && *r.get_ref() < 1.0 => {
                *r.get_ref()
            }
            Some(r) => {
                return c.error(
                    "check.rtol",
                    &r.span(),
                    format!("must be in [0, 1), got {}", r.get_ref()),
                )
            }
            None => 0.0,
        };
        let check_false_alarm = match &self.check.false_alarm {
            Some(a) if *a.get_ref() > 0.0 && *a.get_ref() <= 0.1 => *a.get_ref(),
            Some(a) => {
                return c.error(
                    "check.false_alarm",
                    &a.span(),
                    format!("must be in (0, 0.1], got {}", a.get_ref()),
                )
            }
            None => 0.01,
        };

        Ok(Plan {
            name: self.name.clone(),
            title: self.title.clone(),
            paper: self.paper.clone(),
            source: path.to_path_buf(),
            profile,
            kind,
            preprocess,
            master_seed,
            repetitions,
            cells,
            columns,
            axes,
            seeds,
            metrics,
            figures: self.figures.clone(),
            tables: self.tables.clone(),
            claims: self.claims.clone(),
            paper_values: self.paper_values.clone(),
            check_columns,
            check_statistical,
            check_rtol,
            check_false_alarm,
            labels,
            sums,
        })
    }

    fn preprocess(
        &self,
        c: &Checker<'_>,
        key: &str,
        value: &Spanned<toml::Value>,
    ) -> Result<Vec<PlannedStep>> {
        let toml::Value::Array(items) = value.get_ref() else {
            return c.error(
                key,
                &value.span(),
                format!("a list of steps, got {}", value.get_ref()),
            );
        };
        let line = line_of(c.text, &value.span());
        let mut steps = Vec::with_capacity(items.len());
        for item in items {
            match Step::from_toml(item) {
                Ok(step) => steps.push(PlannedStep { step, line }),
                Err(problem) => return Err(c.fail(key, line, problem)),
            }
        }
        Ok(steps)
    }

    /// One expanded cell, typed against the registry, defaults filled, compatibility checked.
    fn cell(
        &self,
        c: &Checker<'_>,
        kind: &'static KindInfo,
        raw: &RawCell,
        groups: &[Group],
        columns: &[String],
        datasets: &Registry,
    ) -> Result<Cell> {
        let origin = |name: &str| -> (String, usize) {
            raw.groups
                .iter()
                .map(|&i| &groups[i])
                .find(|g| g.names.iter().any(|n| n == name))
                .map(|g| (g.key.clone(), g.line))
                .unwrap_or_else(|| (name.to_string(), 0))
        };
        let text = |name: &str| raw.get(name).and_then(|v| v.as_str());
        let dataset = text("dataset").unwrap_or_default().to_string();
        let generator = registry::generator(&dataset);
        let (source, task) = match generator {
            Some(g) => (DatasetSource::Synthetic(g), g.task),
            None => {
                let entry = datasets.get(&dataset)?;
                let task = match entry.task {
                    Task::Regression => TaskKind::Regression,
                    _ => TaskKind::Classification,
                };
                (DatasetSource::Registry, task)
            }
        };
        let map = match text("map") {
            Some(m) => registry::map(m).expect("checked above"),
            None => {
                return Err(Error::Spec {
                    path: c.path.to_path_buf(),
                    message: "the spec names no map: set `map` in [grid]".into(),
                })
            }
        };
        let learner = text("learner").map(|l| registry::learner(l).expect("checked above"));
        if kind.uses_learner && learner.is_none() {
            return Err(Error::Spec {
                path: c.path.to_path_buf(),
                message: format!(
                    "kind {:?} needs a learner: set `learner` in [grid]",
                    kind.name
                ),
            });
        }
        let kernel = text("kernel").map(|k| registry::kernel(k).expect("checked above"));

        let typed = |params: &'static [ParamSpec], who: &str| -> Result<ParamValues> {
            let mut out = ParamValues::default();
            for p in params {
                match raw.get(p.name) {
                    Some(value) => {
                        let (key, line) = origin(p.name);
                        let v = p.parse(value).map_err(|problem| c.fail(&key, line, format!("{who}: {problem}")))?;
                        out.0.insert(p.name.to_string(), v);
                    }
                    None => match p.default {
                        Some(d) => {
                            out.0.insert(p.name.to_string(), d.value());
                        }
                        None => {
                            return Err(Error::Spec {
                                path: c.path.to_path_buf(),
                                message: format!("{who} needs `{}` ({}): set it in [run], [data], [kernel] or [grid]", p.name, p.doc),
                            })
                        }
                    },
                }
            }
            Ok(out)
        };
        let kind_params = typed(kind.params, &format!("kind {:?}", kind.name))?;
        let data_params = match generator {
            Some(g) => typed(g.params, &format!("dataset {:?}", g.name))?,
            None => ParamValues::default(),
        };
        let kernel_params = match kernel {
            Some(k) => typed(k.params, &format!("kernel {:?}", k.name))?,
            None => ParamValues::default(),
        };
        let map_params = typed(map.params, &format!("map {:?}", map.name))?;
        let learner_params = match learner {
            Some(l) => typed(l.params, &format!("learner {:?}", l.name))?,
            None => ParamValues::default(),
        };

        // Compatibility of the components.
        let (map_key, map_line) = origin("map");
        if kind.needs_feature_map && !matches!(map.features, registry::Features::Map(_)) {
            return Err(c.fail(
                &map_key,
                map_line,
                format!(
                    "kind {:?} measures a feature map; {:?} has no features",
                    kind.name, map.name
                ),
            ));
        }
        match kernel {
            Some(k) if !map.kernels.is_empty() && !map.kernels.contains(&k.name) => {
                return Err(c.fail(
                    &map_key,
                    map_line,
                    format!(
                        "map {:?} cannot approximate the {:?} kernel; it approximates {:?}",
                        map.name, k.name, map.kernels
                    ),
                ))
            }
            None if !map.kernels.is_empty() => {
                return Err(c.fail(
                    &map_key,
                    map_line,
                    format!(
                        "map {:?} approximates a kernel: name it in [kernel]",
                        map.name
                    ),
                ))
            }
            _ => {}
        }
        if let Some(k) = kernel {
            // A kernel parameter the kernel itself refuses (e.g. a gamma the sketches cannot
            // take) is caught here, before anything runs, unless it is a rule on the data.
            for (name, value) in &kernel_params.0 {
                if matches!(value, Value::Search(_)) && kind.name != "learning" {
                    let (key, line) = origin(name);
                    return Err(c.fail(
                        &key,
                        line,
                        format!(
                            "`{name}` chosen by cross-validation needs a learner to score it: \
                             kind \"learning\", not {:?}",
                            kind.name
                        ),
                    ));
                }
            }
            let resolved = kernel_params
                .0
                .values()
                .all(|v| !matches!(v, Value::Rule(_) | Value::Search(_)));
            if resolved {
                if let Err(e) = (k.build)(&kernel_params) {
                    return Err(c.fail(&origin("kernel").0, origin("kernel").1, e));
                }
            }
        }
        if let Some(l) = learner {
            let needs = match map.features {
                registry::Features::Exact => Needs::Kernel,
                _ => Needs::Features,
            };
            if l.needs != needs {
                let (key, line) = origin("learner");
                let why = match l.needs {
                    Needs::Kernel => "works on the exact kernel: pair it with map \"exact\"",
                    Needs::Features => {
                        "trains on features: pair it with a feature map or \"none\", not \"exact\""
                    }
                };
                return Err(c.fail(
                    &key,
                    line,
                    format!("learner {:?} {why} (got map {:?})", l.name, map.name),
                ));
            }
            if !l.tasks.contains(&task) {
                let (key, line) = origin("learner");
                return Err(c.fail(
                    &key,
                    line,
                    format!(
                        "learner {:?} does not do {task:?} (dataset {dataset:?})",
                        l.name
                    ),
                ));
            }
        }

        let mut coordinates = Vec::new();
        for col in columns {
            let value = match col.as_str() {
                "dataset" => Some(Value::Text(dataset.clone())),
                "map" => Some(Value::Text(map.name.to_string())),
                "learner" => learner.map(|l| Value::Text(l.name.to_string())),
                "kernel" => kernel.map(|k| Value::Text(k.name.to_string())),
                name => [
                    &data_params,
                    &kernel_params,
                    &map_params,
                    &learner_params,
                    &kind_params,
                ]
                .iter()
                .find_map(|p| p.get(name).cloned()),
            };
            if let Some(v) = value {
                coordinates.push((col.clone(), v));
            }
        }
        Ok(Cell {
            coordinates,
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
        })
    }
}

/// The names of the specs in `root/experiments`, sorted.
pub fn list_experiments(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("experiments");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
        let path = entry.map_err(|e| Error::io(&dir, e))?.path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Reads and validates `root/experiments/NAME.toml` (datasets from `root/datasets.toml`).
pub fn load_plan(root: &Path, name: &str, profile: Profile) -> Result<Plan> {
    let path = root.join("experiments").join(format!("{name}.toml"));
    if !path.is_file() {
        return Err(Error::UnknownExperiment {
            name: name.to_string(),
            known: list_experiments(root).unwrap_or_default(),
        });
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let raw = RawSpec::parse(&text, &path)?;
    let datasets = Registry::from_file(&root.join("datasets.toml"))?;
    let plan = raw.plan(&text, &path, profile, &datasets)?;
    if plan.name != name {
        return Err(Error::Spec {
            path,
            message: format!(
                "`name = {:?}` differs from the file name {name:?}",
                plan.name
            ),
        });
    }
    Ok(plan)
}
