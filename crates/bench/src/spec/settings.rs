//! Stage 6: what the outputs and the check need, validated against the columns the run will
//! write: `[labels]` and `[check]` (figures, tables, claims and paper values are validated by
//! [`crate::outputs::validate`]).

use super::cells::Cell;
use super::profile::Profile;
use super::raw::RawSpec;
use crate::spec_error::{Checker, SpecResult};

/// How `rfbench check` compares a regenerated result with the committed reference.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckSettings {
    pub columns: Vec<String>,
    /// The metrics the other-seed mode tests (a subset of `columns`).
    pub statistical: Vec<String>,
    pub rtol: f64,
    pub false_alarm: f64,
}

/// The spec's `[labels]`: ((column, value), label). Checked against the full grid only (a
/// profile may leave a labelled value or column out).
pub(crate) fn labels(
    raw: &RawSpec,
    c: Checker<'_>,
    profile: &Profile,
    columns: &[String],
    cells: &[Cell],
) -> SpecResult<Vec<((String, String), String)>> {
    let full = *profile == Profile::Full;
    let mut labels = Vec::new();
    for (column, table) in &raw.labels {
        let key = format!("labels.{column}");
        if full && !columns.contains(column) {
            return Err(c.at_span(
                &key,
                &table.span(),
                format!("`{column}` is not a coordinate of this spec; coordinates: {columns:?}"),
            ));
        }
        for (value, label) in table.get_ref() {
            // A value only a profile brings (a stand-in dataset) is checked in that profile's
            // plan, where its cells are.
            let used = cells
                .iter()
                .any(|cell| cell.get(column).is_some_and(|v| v.to_string() == *value))
                || profiles_mention(raw, value);
            if full && !used {
                return Err(c.at_span(
                    &key,
                    &table.span(),
                    format!("no cell has {column} = {value:?}"),
                ));
            }
            labels.push(((column.clone(), value.clone()), label.clone()));
        }
    }
    Ok(labels)
}

/// Whether a `[profiles.*]` replacement writes `value` (as a string or a number, at any depth).
fn profiles_mention(raw: &RawSpec, value: &str) -> bool {
    fn mentions(v: &toml::Value, value: &str) -> bool {
        match v {
            toml::Value::String(s) => s == value,
            toml::Value::Integer(i) => i.to_string() == value,
            toml::Value::Float(f) => f.to_string() == value,
            toml::Value::Array(items) => items.iter().any(|i| mentions(i, value)),
            toml::Value::Table(t) => t.values().any(|i| mentions(i, value)),
            _ => false,
        }
    }
    raw.profiles
        .values()
        .flat_map(|t| t.values())
        .any(|v| mentions(v.get_ref(), value))
}

/// `[check]`: the compared columns are metrics of the run, the tolerances in range.
pub(crate) fn check(
    raw: &RawSpec,
    c: Checker<'_>,
    metrics: &[String],
) -> SpecResult<CheckSettings> {
    let check = &raw.check;
    let columns = check.columns.get_ref().clone();
    if let Some(column) = columns.iter().find(|col| !metrics.contains(col)) {
        return Err(c.at_span(
            "check.columns",
            &check.columns.span(),
            format!("unknown metric {column:?}; known: {metrics:?}"),
        ));
    }
    let statistical = match &check.statistical {
        None => columns.clone(),
        Some(list) => {
            if let Some(column) = list.get_ref().iter().find(|col| !columns.contains(col)) {
                return Err(c.at_span(
                    "check.statistical",
                    &list.span(),
                    format!("{column:?} is not in check.columns {columns:?}"),
                ));
            }
            list.get_ref().clone()
        }
    };
    let rtol = match &check.rtol {
        Some(r) if r.get_ref().is_finite() && (0.0..1.0).contains(r.get_ref()) => *r.get_ref(),
        Some(r) => {
            return Err(c.at_span(
                "check.rtol",
                &r.span(),
                format!("must be in [0, 1), got {}", r.get_ref()),
            ))
        }
        None => 0.0,
    };
    let false_alarm = match &check.false_alarm {
        Some(a) if *a.get_ref() > 0.0 && *a.get_ref() <= 0.1 => *a.get_ref(),
        Some(a) => {
            return Err(c.at_span(
                "check.false_alarm",
                &a.span(),
                format!("must be in (0, 0.1], got {}", a.get_ref()),
            ))
        }
        None => 0.01,
    };
    Ok(CheckSettings {
        columns,
        statistical,
        rtol,
        false_alarm,
    })
}
