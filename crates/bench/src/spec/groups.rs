//! Stage 3: component groups. Every value of `[data]`, `[run]`, `[kernel]`, `[grid]`,
//! `[maps.NAME]` and `[learners.NAME]` (after the profile's replacements) becomes a [`Group`] of
//! the grid: a list is an axis, a list of lists a zipped axis, anything else a constant. Names
//! of components and datasets are checked here, before the grid is expanded.

use std::collections::BTreeSet;
use std::ops::Range;

use rfbench_data::{Registry, Step};
use toml::Spanned;

use super::grid::{Group, Scope};
use super::profile::Overlay;
use super::raw::RawSpec;
use crate::spec_error::{line_of, Checker, SpecResult};
use rfbench_registry::KindInfo;

/// A preprocessing step of the spec and the line it is written on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannedStep {
    pub step: Step,
    pub line: usize,
}

/// `[maps.NAME] repetitions = R` / `[learners.NAME] repetitions = R`: the cells with that
/// component run at most R repetitions (an exact, seed-free method needs one).
#[derive(Debug, Clone)]
pub(crate) struct ComponentRepetitions {
    /// `map` or `learner`.
    pub column: &'static str,
    pub component: String,
    pub repetitions: usize,
    pub key: String,
    pub span: Range<usize>,
}

/// `[run]`'s fixed settings (its other keys are the kind's parameters).
pub(crate) struct RunSettings {
    pub master_seed: u64,
    pub repetitions: usize,
    /// `overlap_runs = true`: its key and span (for the error when the kind or the outputs do
    /// not allow it); `None` when absent or false.
    pub overlap_runs: Option<(String, Range<usize>)>,
}

/// The keys of `[run]` that are settings of the run, not parameters of its cells.
const RUN_SETTINGS: [&str; 3] = ["master_seed", "repetitions", "overlap_runs"];

/// What stage 3 hands on.
pub(crate) struct Grouped {
    pub groups: Vec<Group>,
    /// `None`: the registry entry's default steps.
    pub preprocess: Option<Vec<PlannedStep>>,
    pub component_repetitions: Vec<ComponentRepetitions>,
}

pub(crate) fn run_settings(raw: &RawSpec, c: Checker<'_>, o: &Overlay) -> SpecResult<RunSettings> {
    let master_seed = match raw.run.get("master_seed").map(|v| (v, v.get_ref())) {
        Some((_, toml::Value::Integer(s))) if *s >= 0 => *s as u64,
        Some((v, other)) => {
            return Err(c.at_span(
                "run.master_seed",
                &v.span(),
                format!("must be an integer >= 0, got {other}"),
            ))
        }
        None => return Err(missing(c, "run", &raw.run, "master_seed")),
    };
    let Some(value) = raw.run.get("repetitions") else {
        return Err(missing(c, "run", &raw.run, "repetitions"));
    };
    let (key, v) = o.pick("run", "repetitions", value);
    let repetitions = match v.get_ref() {
        toml::Value::Integer(r) if (2..=10_000).contains(r) => *r as usize,
        other => {
            return Err(c.at_span(
                &key,
                &v.span(),
                format!(
                    "must be an integer in 2..=10000 (error bars and checks need 2), got {other}"
                ),
            ))
        }
    };
    Ok(RunSettings {
        master_seed,
        repetitions,
        overlap_runs: overlap_runs(raw, c, o)?,
    })
}

/// `[run] overlap_runs`: a boolean.
fn overlap_runs(
    raw: &RawSpec,
    c: Checker<'_>,
    o: &Overlay,
) -> SpecResult<Option<(String, Range<usize>)>> {
    let Some(value) = raw.run.get("overlap_runs") else {
        return Ok(None);
    };
    let (key, v) = o.pick("run", "overlap_runs", value);
    match v.get_ref() {
        toml::Value::Boolean(true) => Ok(Some((key, v.span()))),
        toml::Value::Boolean(false) => Ok(None),
        other => Err(c.at_span(
            &key,
            &v.span(),
            format!("must be true or false, got {other}"),
        )),
    }
}

/// `[table] needs `key``, or, when the table has a key one or two letters away from it (a
/// misspelling alone in its table, issue 24), that key named at its line.
fn missing(
    c: Checker<'_>,
    table: &str,
    keys: &super::raw::Table,
    wanted: &str,
) -> crate::spec_error::SpecError {
    misspelt(c, table, keys, wanted)
        .unwrap_or_else(|| c.whole(format!("[{table}] needs `{wanted}`")))
}

/// The error for a key of `[table]` one or two edits from `wanted` (which it lacks).
fn misspelt(
    c: Checker<'_>,
    table: &str,
    keys: &super::raw::Table,
    wanted: &str,
) -> Option<crate::spec_error::SpecError> {
    let (key, value) = keys
        .iter()
        .find(|(k, _)| k.as_str() != wanted && edit_distance(k, wanted) <= 2)?;
    Some(c.at_span(
        &format!("{table}.{key}"),
        &value.span(),
        format!("`{key}` is not a key of [{table}]: did you mean `{wanted}`? ([{table}] needs it)"),
    ))
}

/// Levenshtein distance between two short names.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// The groups of every section, checked: one dataset at least, no name set twice in a scope,
/// known component and dataset names.
pub(crate) fn collect(
    raw: &RawSpec,
    c: Checker<'_>,
    o: &Overlay,
    kind: &KindInfo,
    datasets: &Registry,
) -> SpecResult<Grouped> {
    let mut groups: Vec<Group> = Vec::new();
    let mut preprocess = None;
    for (name, value) in &raw.data {
        let (key, value) = o.pick("data", name, value);
        if name == "preprocess" {
            preprocess = Some(steps(c, &key, &value)?);
            continue;
        }
        groups.push(group_of(c, &key, name, &value, Scope::Global)?);
    }
    for (name, value) in &raw.run {
        if RUN_SETTINGS.contains(&name.as_str()) {
            continue;
        }
        let (key, value) = o.pick("run", name, value);
        groups.push(group_of(c, &key, name, &value, Scope::Global)?);
    }
    for (name, value) in &raw.kernel {
        let (key, value) = o.pick("kernel", name, value);
        let column = if name == "name" { "kernel" } else { name };
        groups.push(group_of(c, &key, column, &value, Scope::Global)?);
    }
    for (name, value) in &raw.grid {
        let (key, value) = o.pick("grid", name, value);
        groups.push(group_of(c, &key, name, &value, Scope::Global)?);
    }
    let component_repetitions = component_groups(raw, c, &mut groups)?;
    if !groups
        .iter()
        .any(|g| g.names.iter().any(|n| n == "dataset"))
    {
        if let Some(e) = misspelt(c, "data", &raw.data, "dataset") {
            return Err(e);
        }
        return Err(c.whole(
            "no dataset: name one in [data] (`dataset = ...`, a list, or a zipped axis such as \
             `\"dataset, n_components\" = [...]`)",
        ));
    }
    check_set_once(c, &groups)?;
    check_names(c, &groups, kind, datasets)?;
    Ok(Grouped {
        groups,
        preprocess,
        component_repetitions,
    })
}

/// The groups of `[maps.NAME]` and `[learners.NAME]`, and their `repetitions` caps.
fn component_groups(
    raw: &RawSpec,
    c: Checker<'_>,
    groups: &mut Vec<Group>,
) -> SpecResult<Vec<ComponentRepetitions>> {
    let mut caps = Vec::new();
    for (section, column, tables) in [
        ("maps", "map", &raw.maps),
        ("learners", "learner", &raw.learners),
    ] {
        for (component, table) in tables {
            let known = if column == "map" {
                rfbench_registry::map(component).is_some()
            } else {
                rfbench_registry::learner(component).is_some()
            };
            if !known {
                let names = if column == "map" {
                    rfbench_registry::map_names()
                } else {
                    rfbench_registry::learner_names()
                };
                let line = table
                    .values()
                    .next()
                    .map_or(0, |v| line_of(c.text, &v.span()));
                return Err(c.fail(
                    &format!("{section}.{component}"),
                    line,
                    format!("unknown {column} {component:?}; known: {names:?}"),
                ));
            }
            for (name, value) in table {
                let key = format!("{section}.{component}.{name}");
                if name == "repetitions" {
                    caps.push(repetitions_cap(c, column, component, key, value)?);
                    continue;
                }
                let scope = Scope::Component {
                    column,
                    name: component.clone(),
                };
                groups.push(group_of(c, &key, name, value, scope)?);
            }
        }
    }
    Ok(caps)
}

fn repetitions_cap(
    c: Checker<'_>,
    column: &'static str,
    component: &str,
    key: String,
    value: &Spanned<toml::Value>,
) -> SpecResult<ComponentRepetitions> {
    match value.get_ref() {
        toml::Value::Integer(r) if (1..=10_000).contains(r) => Ok(ComponentRepetitions {
            column,
            component: component.to_string(),
            repetitions: *r as usize,
            key,
            span: value.span(),
        }),
        other => Err(c.at_span(
            &key,
            &value.span(),
            format!(
                "must be an integer in 1..=10000 (the cells with this {column} run at most this \
                 many repetitions), got {other}"
            ),
        )),
    }
}

/// A name set twice in the same scope (`[data] dataset` and a zipped `"dataset, D"` in
/// `[grid]`) would let one silently replace the other.
fn check_set_once(c: Checker<'_>, groups: &[Group]) -> SpecResult<()> {
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
    Ok(())
}

/// Component and dataset names, checked before the grid is expanded.
fn check_names(
    c: Checker<'_>,
    groups: &[Group],
    kind: &KindInfo,
    datasets: &Registry,
) -> SpecResult<()> {
    for g in groups {
        for (k, name) in g.names.iter().enumerate() {
            let known: Option<(Vec<&str>, &str)> = match name.as_str() {
                "map" => Some((rfbench_registry::map_names(), "map")),
                "learner" => Some((rfbench_registry::learner_names(), "learner")),
                "kernel" => Some((rfbench_registry::kernel_names(), "kernel")),
                _ => None,
            };
            for row in &g.rows {
                let value = &row[k];
                if name == "dataset" {
                    check_dataset(c, g, value, datasets)?;
                }
                if let Some((known, what)) = &known {
                    if !value.as_str().is_some_and(|n| known.contains(&n)) {
                        return Err(c.fail(
                            &g.key,
                            g.line,
                            format!("unknown {what} {value}; known: {known:?}"),
                        ));
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
    Ok(())
}

fn check_dataset(
    c: Checker<'_>,
    g: &Group,
    value: &toml::Value,
    datasets: &Registry,
) -> SpecResult<()> {
    let Some(ds) = value.as_str() else {
        return Err(c.fail(&g.key, g.line, format!("a dataset is a name, got {value}")));
    };
    if rfbench_registry::generator(ds).is_none() && datasets.get(ds).is_err() {
        let mut known: Vec<String> = datasets.entries().iter().map(|e| e.name.clone()).collect();
        known.extend(
            rfbench_registry::GENERATORS
                .iter()
                .map(|g| g.name.to_string()),
        );
        return Err(c.fail(
            &g.key,
            g.line,
            format!("unknown dataset {ds:?}; known: {known:?}"),
        ));
    }
    Ok(())
}

fn steps(c: Checker<'_>, key: &str, value: &Spanned<toml::Value>) -> SpecResult<Vec<PlannedStep>> {
    let toml::Value::Array(items) = value.get_ref() else {
        return Err(c.at_span(
            key,
            &value.span(),
            format!("a list of steps, got {}", value.get_ref()),
        ));
    };
    let line = line_of(c.text, &value.span());
    items
        .iter()
        .map(|item| match Step::from_toml(item) {
            Ok(step) => Ok(PlannedStep { step, line }),
            Err(problem) => Err(c.fail(key, line, problem)),
        })
        .collect()
}

/// The values of a group: a list is an axis (a list of lists when zipped), anything else a
/// constant; duplicates in an axis are an error (they would narrow error bars and tolerances).
fn group_of(
    c: Checker<'_>,
    key: &str,
    name: &str,
    value: &Spanned<toml::Value>,
    scope: Scope,
) -> SpecResult<Group> {
    let line = line_of(c.text, &value.span());
    let names: Vec<String> = name.split(',').map(|n| n.trim().to_string()).collect();
    if names.iter().any(|n| n.is_empty()) {
        return Err(c.fail(key, line, "an empty name in a zipped axis"));
    }
    let fail = |problem: String| c.fail(key, line, problem);
    let (rows, is_axis) = match (value.get_ref(), names.len()) {
        (toml::Value::Array(items), 1) if items.is_empty() => {
            return Err(fail("the list is empty".into()))
        }
        (toml::Value::Array(items), 1) => (items.iter().map(|v| vec![v.clone()]).collect(), true),
        (other, 1) => (vec![vec![other.clone()]], false),
        (toml::Value::Array(items), n) => (zipped_rows(items, n).map_err(fail)?, true),
        (other, n) => {
            return Err(fail(format!(
                "a zipped axis of {n} names needs a list of lists, got {other}"
            )))
        }
    };
    // Floats compared as values: 0.0 and -0.0 are one (issue 24).
    let value_key = |row: &Vec<toml::Value>| -> String {
        let parts: Vec<String> = row
            .iter()
            .map(|v| match v {
                toml::Value::Float(f) => format!("{:?}", f + 0.0),
                other => format!("{other:?}"),
            })
            .collect();
        parts.join("|")
    };
    let mut seen = BTreeSet::new();
    for row in &rows {
        if !seen.insert(value_key(row)) {
            let values: Vec<String> = row.iter().map(|v| v.to_string()).collect();
            return Err(fail(format!(
                "the value {} is listed twice",
                values.join(", ")
            )));
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

/// The entries of a zipped axis of `n` names, each a list of `n` values.
fn zipped_rows(items: &[toml::Value], n: usize) -> Result<Vec<Vec<toml::Value>>, String> {
    let mut rows = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item {
            toml::Value::Array(row) if row.len() == n => rows.push(row.clone()),
            toml::Value::Array(row) => {
                return Err(format!(
                    "zipped axis of {n} names: entry {} has {} values",
                    i + 1,
                    row.len()
                ))
            }
            other => {
                return Err(format!(
                    "zipped axis: entry {} must be a list of {n} values, got {other}",
                    i + 1
                ))
            }
        }
    }
    if rows.is_empty() {
        return Err("the list is empty".into());
    }
    Ok(rows)
}
