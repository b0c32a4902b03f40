//! The grid: named axes expanded into cells (benchopt's model).
//!
//! - A list is an axis, a scalar a constant. Only axes enter seed keys, so turning a constant
//!   into a one-element list changes seeds, and adding a value to a list changes no other cell.
//! - A zipped axis (`"dataset, n_components" = [["adult", 200], ["mnist", 1000]]`) steps its
//!   names together.
//! - An axis is global (`[grid]`, `[kernel]`, `[data] dataset`) or belongs to one component
//!   (`[maps.rff]`, `[learners.ridge]`). A cell takes only the parameters its own components
//!   declare: the exact kernel machine has no `n_components`, so a global `n_components` axis
//!   does not multiply it. Cells that end up with the same coordinates are kept once.
//!
//! This module only expands; which names a component takes comes from the registry, through
//! the `applicable` callback.

use std::collections::BTreeSet;

/// Where a group of axes was written, for errors and for per-component scoping.
#[derive(Debug, Clone, PartialEq)]
pub enum Scope {
    Global,
    /// Applies only to cells whose `component` column (`map` or `learner`) equals `name`.
    Component {
        column: &'static str,
        name: String,
    },
}

/// Names stepping together (one name for a plain axis or constant).
#[derive(Debug, Clone)]
pub struct Group {
    pub names: Vec<String>,
    /// One entry per step; each entry has one value per name.
    pub rows: Vec<Vec<toml::Value>>,
    /// Whether the names are axes (written as lists) rather than constants.
    pub is_axis: bool,
    pub scope: Scope,
    /// The spec key it was written under, and its line, for errors.
    pub key: String,
    pub line: usize,
}

/// A partially or fully expanded cell: raw values by name, in expansion order, plus which groups
/// supplied them.
#[derive(Debug, Clone, Default)]
pub struct RawCell {
    pub values: Vec<(String, toml::Value)>,
    /// Indices (into the group list) of the groups that contributed, for error lines.
    pub groups: Vec<usize>,
}

impl RawCell {
    pub fn get(&self, name: &str) -> Option<&toml::Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// The most cells a spec may plan: a grid of millions of values is refused, naming the axis
/// that passes the limit, before memory for it is asked for (issue 24: it aborted).
pub const MAX_CELLS: usize = 1_000_000;

/// The grid passes [`MAX_CELLS`] when group `group` is multiplied in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooMany {
    pub group: usize,
}

fn product(
    cells: Vec<RawCell>,
    group: &Group,
    index: usize,
    keep: &[usize],
) -> Result<Vec<RawCell>, TooMany> {
    if cells.len().saturating_mul(group.rows.len()) > MAX_CELLS {
        return Err(TooMany { group: index });
    }
    let mut out = Vec::with_capacity(cells.len() * group.rows.len());
    for cell in cells {
        for row in &group.rows {
            let mut next = cell.clone();
            for &k in keep {
                next.values.push((group.names[k].clone(), row[k].clone()));
            }
            next.groups.push(index);
            out.push(next);
        }
    }
    Ok(out)
}

/// Expands `groups`: first the groups holding any of the `component_names` (they decide which
/// components a cell has), then, per cell, the other groups restricted to the names
/// `applicable(cell, name)` accepts. Groups scoped to a component apply only to its cells, and
/// replace a global group of the same single name.
pub fn expand(
    groups: &[Group],
    component_names: &[&str],
    applicable: impl Fn(&RawCell, &str) -> bool,
) -> Result<Vec<RawCell>, TooMany> {
    let is_component = |g: &Group| {
        g.names
            .iter()
            .any(|n| component_names.contains(&n.as_str()))
    };
    let mut cells = vec![RawCell::default()];
    for (i, g) in groups.iter().enumerate() {
        if g.scope == Scope::Global && is_component(g) {
            let keep: Vec<usize> = (0..g.names.len()).collect();
            cells = product(cells, g, i, &keep)?;
        }
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for base in cells {
        let in_scope = |g: &Group| match &g.scope {
            Scope::Global => true,
            Scope::Component { column, name } => {
                base.get(column).and_then(|v| v.as_str()) == Some(name.as_str())
            }
        };
        let overridden: BTreeSet<&str> = groups
            .iter()
            .filter(|g| g.scope != Scope::Global && in_scope(g))
            .flat_map(|g| g.names.iter().map(String::as_str))
            .collect();
        let mut partial = vec![base.clone()];
        for (i, g) in groups.iter().enumerate() {
            if (g.scope == Scope::Global && is_component(g)) || !in_scope(g) {
                continue;
            }
            if g.scope == Scope::Global
                && g.names.len() == 1
                && overridden.contains(g.names[0].as_str())
            {
                continue;
            }
            let keep: Vec<usize> = (0..g.names.len())
                .filter(|&k| applicable(&base, &g.names[k]))
                .collect();
            if keep.is_empty() {
                continue;
            }
            partial = product(partial, g, i, &keep)?;
        }
        for mut cell in partial {
            cell.values
                .retain(|(n, _)| component_names.contains(&n.as_str()) || applicable(&base, n));
            let key: Vec<String> = cell
                .values
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            if seen.insert(key) {
                out.push(cell);
            }
        }
        if out.len() > MAX_CELLS {
            return Err(TooMany {
                group: groups.len().saturating_sub(1),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(names: &[&str], rows: Vec<Vec<toml::Value>>, scope: Scope) -> Group {
        Group {
            names: names.iter().map(|s| s.to_string()).collect(),
            is_axis: true,
            rows,
            scope,
            key: names.join(", "),
            line: 1,
        }
    }

    fn s(v: &str) -> toml::Value {
        toml::Value::String(v.into())
    }

    fn i(v: i64) -> toml::Value {
        toml::Value::Integer(v)
    }

    #[test]
    fn per_component_axes_do_not_multiply_other_components() {
        let groups = vec![
            group(
                &["map"],
                vec![vec![s("rff")], vec![s("exact")]],
                Scope::Global,
            ),
            group(
                &["n_components"],
                vec![vec![i(10)], vec![i(20)]],
                Scope::Global,
            ),
            group(
                &["form"],
                vec![vec![s("paired")], vec![s("phase")]],
                Scope::Component {
                    column: "map",
                    name: "rff".into(),
                },
            ),
        ];
        let cells = expand(&groups, &["map"], |cell, name| {
            cell.get("map").and_then(|v| v.as_str()) == Some("rff") || name == "map"
        })
        .unwrap();
        // rff: 2 D x 2 forms; exact: once.
        assert_eq!(cells.len(), 5);
        assert_eq!(
            cells
                .iter()
                .filter(|c| c.get("map") == Some(&s("exact")))
                .count(),
            1
        );
    }

    #[test]
    fn zipped_axes_step_together_and_duplicates_collapse() {
        let groups = vec![
            group(
                &["dataset", "n_components"],
                vec![vec![s("adult"), i(200)], vec![s("mnist"), i(1000)]],
                Scope::Global,
            ),
            group(
                &["map"],
                vec![vec![s("ts")], vec![s("exact")]],
                Scope::Global,
            ),
        ];
        let cells = expand(&groups, &["dataset", "map"], |cell, name| {
            name != "n_components" || cell.get("map") == Some(&s("ts"))
        })
        .unwrap();
        let shown: Vec<String> = cells
            .iter()
            .map(|c| {
                c.values
                    .iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        assert_eq!(
            shown,
            [
                "dataset=\"adult\",n_components=200,map=\"ts\"",
                "dataset=\"adult\",map=\"exact\"",
                "dataset=\"mnist\",n_components=1000,map=\"ts\"",
                "dataset=\"mnist\",map=\"exact\"",
            ]
        );
    }
}
