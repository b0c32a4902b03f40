//! `[[figures]]`: a metric against a numeric coordinate, one curve per series, one panel per value
//! of a panel coordinate, error bars over repetitions. This file arranges the cells
//! ([`FigureData`]); `plot.rs` draws them to PNG.
//!
//! A cell whose x is empty (the exact kernel machine has no D) is kept as a point with an empty x;
//! it is drawn as a horizontal line across its panel: the baseline the curves approach.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::paper::RawPaperValue;
use super::results::{CellStats, CellValue, Coordinates, Results, Stats};
use super::validate::{parse_template, Checker, Piece, RawSelector};
use super::{describe, describe_selector, selects, CellProblem, Labels};
use crate::error::{Error, Result};

/// One `[[figures]]` entry as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawFigure {
    /// `figures/SPEC/PROFILE.NAME.png`; without a name `PROFILE.png` (one figure at most).
    pub name: Option<Spanned<String>>,
    /// The figure's own title (the paper's figure it reproduces); default: the spec's title.
    pub title: Option<String>,
    /// A numeric coordinate.
    pub x: Spanned<String>,
    /// A metric.
    pub y: Spanned<String>,
    /// Coordinates that tell curves apart; default: every coordinate that varies in the selected
    /// cells, except x and panels.
    pub series: Option<Vec<Spanned<String>>>,
    /// One panel per value of this coordinate, side by side.
    pub panels: Option<Spanned<String>>,
    /// Only the cells with these coordinate values.
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "RawSelector::is_empty"
    )]
    pub filter: RawSelector,
    #[serde(default)]
    pub log_x: bool,
    #[serde(default)]
    pub log_y: bool,
    /// "ci" (default: the 95 % t-interval of the mean, n - 1 degrees of freedom), "sd", "se" or
    /// "none".
    pub error_bars: Option<Spanned<String>>,
    /// Default: the column name.
    pub x_label: Option<String>,
    pub y_label: Option<String>,
    /// `{column}` -> the label of the curve's value of that column; default: the series'
    /// labels joined by ", ".
    pub series_label: Option<Spanned<String>>,
    /// The profiles that draw this output (`"full"`, `"quick"`, a named one); default: every
    /// profile.
    #[serde(default)]
    pub profiles: Option<Spanned<Vec<String>>>,
}

/// Why the plan's cells leave the figure empty: a `where` that matches no cell (a typo, a
/// value of another profile). (The figure's [`Output`] implementation is in `plot.rs`, which
/// draws it.)
pub(super) fn cell_problem(
    f: &RawFigure,
    cells: &[Coordinates],
    profile: &str,
) -> Option<CellProblem> {
    if f.filter.is_empty() || cells.iter().any(|k| selects(k, &f.filter)) {
        return None;
    }
    Some(CellProblem {
        field: "where".into(),
        span: f.filter.keys().next().map_or(f.x.span(), |k| k.span()),
        message: format!(
            "{} matches no cell of the {profile} profile's grid",
            describe_selector(&f.filter)
        ),
    })
}

/// "ci" (the default): the 95 % Student-t interval of the mean over the repetitions.
pub(super) const ERROR_BARS: [&str; 4] = ["ci", "sd", "se", "none"];

/// Checks one figure's columns, panels, series, `where`, error bars and label template.
pub(super) fn validate(c: &Checker, key: &str, f: &RawFigure) -> Result<()> {
    c.coordinate(&format!("{key}.x"), &f.x)?;
    c.metric(&format!("{key}.y"), &f.y)?;
    if let Some(panels) = &f.panels {
        c.coordinate(&format!("{key}.panels"), panels)?;
        if panels.get_ref() == f.x.get_ref() {
            return Err(c.error(
                &format!("{key}.panels"),
                &panels.span(),
                format!("{:?} is already the x axis", panels.get_ref()),
            ));
        }
    }
    for (j, s) in f.series.iter().flatten().enumerate() {
        let k = format!("{key}.series[{j}]");
        c.coordinate(&k, s)?;
        let other = if s.get_ref() == f.x.get_ref() {
            Some("the x axis")
        } else if f.panels.as_ref().map(|p| p.get_ref()) == Some(s.get_ref()) {
            Some("the panels")
        } else {
            None
        };
        if let Some(other) = other {
            return Err(c.error(
                &k,
                &s.span(),
                format!("{:?} is already {other}", s.get_ref()),
            ));
        }
    }
    c.selector(&format!("{key}.where"), &f.filter)?;
    if let Some(bars) = &f.error_bars {
        c.one_of(
            &format!("{key}.error_bars"),
            bars,
            "error_bars",
            &ERROR_BARS,
        )?;
    }
    if let Some(template) = &f.series_label {
        let k = format!("{key}.series_label");
        let pieces =
            parse_template(template.get_ref()).map_err(|e| c.error(&k, &template.span(), e))?;
        for piece in pieces {
            if let Piece::Field { name, precision } = piece {
                if precision.is_some() || !c.columns.is_coordinate(&name) {
                    return Err(c.error(
                        &k,
                        &template.span(),
                        format!(
                            "unknown placeholder {{{name}}}: write {{COLUMN}} with a \
                             coordinate; known: {:?}",
                            c.columns.coordinates
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// What tells a curve's colour: its map's (the same in every figure of the catalogue), a neutral
/// one for the baselines every paper draws (the exact kernel machine, a linear model on the raw
/// inputs), or, in a figure whose series are not maps, its place among the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Hue {
    /// The map's place in the registry.
    Map(usize),
    /// No features: the learner on the exact kernel (grey).
    Exact,
    /// The raw inputs: a linear model on them (black).
    Raw,
    /// The series' place among the results' series.
    Series(usize),
}

/// A curve's colour and marker: series of one map share its colour and differ by marker (TS at
/// two offsets; one map at four training-set sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Style {
    pub hue: Hue,
    pub marker: usize,
}

/// One curve of one panel: its points sorted by x (an empty x last).
#[derive(Debug, Clone)]
pub(super) struct Curve {
    /// Index of the curve's series among the results' (sorted): the legend's order, and one
    /// legend entry per series.
    pub series: usize,
    pub style: Style,
    pub label: String,
    pub points: Vec<(CellValue, Stats)>,
}

#[derive(Debug, Clone)]
pub(super) struct Panel {
    /// `degree = 2`; empty without panels.
    pub caption: String,
    pub curves: Vec<Curve>,
}

/// A panel value with nothing to draw: every cell of it was skipped here (its data needs the
/// network), or none has a value of the metric (a regression dataset in an accuracy figure).
/// It gets no panel: one note line under the figure lists these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NotDrawn {
    /// The panel's value, as its caption would have shown it.
    pub value: String,
    pub reason: String,
}

/// A number the paper gives for one point of a curve (a `[[paper_values]]` entry whose `select`
/// picks cells of one panel, one series and one x, with the figure's metric and "mean").
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PaperPoint {
    /// Index into [`FigureData::panels`].
    pub panel: usize,
    pub style: Style,
    pub x: CellValue,
    pub value: f64,
}

/// A figure's cells, arranged: what [`draw`] draws and the report prints.
#[derive(Debug, Clone)]
pub(super) struct FigureData {
    pub series_columns: Vec<String>,
    /// The panel coordinate, if any.
    pub panel_column: Option<String>,
    /// The panels that have a curve.
    pub panels: Vec<Panel>,
    pub not_drawn: Vec<NotDrawn>,
}

impl FigureData {
    /// The figure's cells that ran, grouped by panel and series. Two cells on the same point (a
    /// coordinate varies that is neither x, a series nor the panel) are an error naming it.
    pub fn collect(
        results: &Results,
        spec: &RawFigure,
        labels: &Labels,
        key: &str,
    ) -> Result<FigureData> {
        let x = spec.x.get_ref();
        let panel_column = spec.panels.as_ref().map(|p| p.get_ref().clone());
        let selected: Vec<CellStats> = results
            .summarise(spec.y.get_ref())
            .into_iter()
            .filter(|c| selects(&c.coordinates, &spec.filter))
            .collect();
        let cells: Vec<(Coordinates, Stats)> = selected
            .iter()
            .filter_map(|c| c.stats.map(|s| (c.coordinates.clone(), s)))
            .collect();
        let series_columns = match &spec.series {
            Some(list) => list.iter().map(|s| s.get_ref().clone()).collect(),
            None => varying_columns(results, &cells, x, panel_column.as_ref()),
        };
        let series_of = |k: &Coordinates| series_key(&series_columns, k);
        let series = all_series(results, &series_columns);
        let styles = styles(cells.iter().map(|(k, _)| k), &series, &series_of);
        let template = spec
            .series_label
            .as_ref()
            .and_then(|t| parse_template(t.get_ref()).ok());
        let mut panels = Vec::new();
        let mut not_drawn = Vec::new();
        for panel_value in &panel_values(&selected, panel_column.as_ref()) {
            let in_panel: Vec<&(Coordinates, Stats)> = cells
                .iter()
                .filter(|(k, _)| match (&panel_column, panel_value) {
                    (Some(p), Some(v)) => value_of(k, p) == *v,
                    _ => true,
                })
                .collect();
            let mut curves = Vec::new();
            for (index, values) in series.iter().enumerate() {
                let members: Vec<&(Coordinates, Stats)> = in_panel
                    .iter()
                    .copied()
                    .filter(|(k, _)| series_of(k) == *values)
                    .collect();
                if members.is_empty() {
                    continue;
                }
                let points = curve_points(&members, x).map_err(|[k, other]| {
                    let point_columns = series_columns.iter().chain([x]).chain(&panel_column);
                    two_cells_on_one_point(results, key, point_columns, k, other)
                })?;
                let label = curve_label(
                    template.as_deref(),
                    &series_columns,
                    &members,
                    labels,
                    spec.y.get_ref(),
                );
                curves.push(Curve {
                    series: index,
                    style: styles[index],
                    label,
                    points,
                });
            }
            match (&panel_column, panel_value) {
                (Some(p), Some(v)) if curves.is_empty() => not_drawn.push(NotDrawn {
                    value: labels.label(p, v),
                    reason: not_drawn_reason(&selected, p, v, spec.y.get_ref()),
                }),
                (Some(p), Some(v)) => panels.push(Panel {
                    caption: format!("{p} = {}", labels.label(p, v)),
                    curves,
                }),
                _ => panels.push(Panel {
                    caption: String::new(),
                    curves,
                }),
            }
        }
        Ok(FigureData {
            series_columns,
            panel_column,
            panels,
            not_drawn,
        })
    }

    /// The paper values that give a point of one of this figure's curves: the figure's metric,
    /// statistic "mean", and a `select` whose cells that ran here are all on one point (one
    /// panel, one series, one x). Others (a maximum over an axis, a point in no panel drawn)
    /// stay in the report only.
    pub fn paper_points(
        &self,
        results: &Results,
        spec: &RawFigure,
        labels: &Labels,
        paper: &[RawPaperValue],
        default_metric: Option<&str>,
    ) -> Vec<PaperPoint> {
        let y = spec.y.get_ref();
        let series_of = |k: &Coordinates| series_key(&self.series_columns, k);
        // Numbered as in `collect`: over every row of the results.
        let series = all_series(results, &self.series_columns);
        let cells: Vec<Coordinates> = results
            .summarise(y)
            .into_iter()
            .filter(|c| c.stats.is_some() && selects(&c.coordinates, &spec.filter))
            .map(|c| c.coordinates)
            .collect();
        let mut points = Vec::new();
        for value in paper {
            let metric = value.metric.as_ref().map(|m| m.get_ref().as_str());
            if metric.or(default_metric) != Some(y.as_str()) || value.statistic.get_ref() != "mean"
            {
                continue;
            }
            let matched: Vec<&Coordinates> =
                cells.iter().filter(|k| selects(k, &value.select)).collect();
            let one = |f: &dyn Fn(&Coordinates) -> Vec<CellValue>| {
                let set: BTreeSet<Vec<CellValue>> = matched.iter().map(|k| f(k)).collect();
                (set.len() == 1).then(|| set.into_iter().next().unwrap_or_default())
            };
            let x = one(&|k| vec![value_of(k, spec.x.get_ref())]);
            let key = one(&series_of);
            let captions: BTreeSet<String> = matched
                .iter()
                .map(|k| match &self.panel_column {
                    Some(p) => format!("{p} = {}", labels.label(p, &value_of(k, p))),
                    None => String::new(),
                })
                .collect();
            let (Some(x), Some(key), [caption]) =
                (x, key, &captions.into_iter().collect::<Vec<_>>()[..])
            else {
                continue;
            };
            let Ok(index) = series.binary_search(&key) else {
                continue;
            };
            let found = self.panels.iter().enumerate().find_map(|(p, panel)| {
                (panel.caption == *caption)
                    .then(|| panel.curves.iter().find(|c| c.series == index))
                    .flatten()
                    .map(|curve| (p, curve.style))
            });
            if let (Some((panel, style)), [x]) = (found, &x[..]) {
                points.push(PaperPoint {
                    panel,
                    style,
                    x: x.clone(),
                    value: value.value,
                });
            }
        }
        points
    }

    /// The x values of a panel, sorted, an empty value last.
    pub fn xs(panel: &Panel) -> Vec<CellValue> {
        let mut xs: Vec<CellValue> = panel
            .curves
            .iter()
            .flat_map(|c| c.points.iter().map(|(x, _)| x.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        xs.sort_by_key(|x| *x == CellValue::Empty);
        xs
    }
}

/// The value of coordinate `c` in `k` (empty where `k` has no such column).
fn value_of(k: &Coordinates, c: &str) -> CellValue {
    k.get(c).cloned().unwrap_or(CellValue::Empty)
}

/// A cell's series: its values of the series columns.
fn series_key(series_columns: &[String], k: &Coordinates) -> Vec<CellValue> {
    series_columns.iter().map(|c| value_of(k, c)).collect()
}

/// The default series columns: every coordinate, except x and the panels, with more than one
/// value among the cells.
fn varying_columns(
    results: &Results,
    cells: &[(Coordinates, Stats)],
    x: &String,
    panel_column: Option<&String>,
) -> Vec<String> {
    results
        .columns
        .coordinates
        .iter()
        .filter(|c| *c != x && Some(*c) != panel_column)
        .filter(|c| {
            let values: BTreeSet<&CellValue> = cells.iter().map(|(k, _)| &k[*c]).collect();
            values.len() > 1
        })
        .cloned()
        .collect()
}

/// Every series, sorted. Series are numbered over every row of the results, not only one
/// figure's cells: a series keeps its colour in every figure of the spec with the same series
/// columns (RM is the same colour in the accuracy figure, with the kernel SVM, and in the timing
/// figure, without it).
fn all_series(results: &Results, series_columns: &[String]) -> Vec<Vec<CellValue>> {
    results
        .rows
        .iter()
        .map(|r| series_key(series_columns, &r.coordinates))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Every panel value of the selected cells (those whose cells were all skipped too), sorted;
/// one `None` without panels.
fn panel_values(selected: &[CellStats], panel_column: Option<&String>) -> Vec<Option<CellValue>> {
    match panel_column {
        Some(p) => selected
            .iter()
            .map(|c| Some(value_of(&c.coordinates, p)))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        None => vec![None],
    }
}

/// A curve's points by x, an empty x (a baseline without this coordinate) after the numbers; or
/// the first cell on a point taken and the one before it there.
fn curve_points<'a>(
    members: &[&'a (Coordinates, Stats)],
    x: &str,
) -> std::result::Result<Vec<(CellValue, Stats)>, [&'a Coordinates; 2]> {
    let mut points: BTreeMap<CellValue, (&Coordinates, Stats)> = BTreeMap::new();
    for (k, s) in members.iter().copied() {
        if let Some((other, _)) = points.insert(value_of(k, x), (k, *s)) {
            return Err([k, other]);
        }
    }
    let mut points: Vec<(CellValue, Stats)> =
        points.into_iter().map(|(x, (_, s))| (x, s)).collect();
    points.sort_by_key(|(x, _)| *x == CellValue::Empty);
    Ok(points)
}

/// The error for two cells `k` and `other` on one point of figure `key`, naming the coordinates
/// they differ in.
fn two_cells_on_one_point<'a>(
    results: &Results,
    key: &str,
    point_columns: impl IntoIterator<Item = &'a String>,
    k: &Coordinates,
    other: &Coordinates,
) -> Error {
    let differing: Vec<&String> = k
        .iter()
        .filter(|(c, v)| other.get(*c) != Some(*v))
        .map(|(c, _)| c)
        .collect();
    Error::Results {
        path: results.path.clone(),
        message: format!(
            "{key}: two cells on one point ({}), differing in {differing:?}; \
             add those columns to `series` or fix them with `where`",
            describe(point_columns, k)
        ),
    }
}

/// Why a panel value has no curve: the first skip reason among its cells, else that none has a
/// value of the metric.
fn not_drawn_reason(selected: &[CellStats], p: &str, v: &CellValue, metric: &str) -> String {
    selected
        .iter()
        .filter(|c| value_of(&c.coordinates, p) == *v)
        .find_map(|c| c.skipped.as_ref().map(|s| super::short_reason(&s.reason)))
        .unwrap_or_else(|| format!("no cell has a value of {metric}"))
}

/// The hue of a map of the registry: its place there, or neutral for the exact kernel machine and
/// the raw inputs; `None` for a name the registry does not have.
pub(crate) fn map_hue(name: &str) -> Option<Hue> {
    let maps = rfbench_registry::MAPS;
    let place = maps.iter().position(|m| m.name == name)?;
    Some(match maps[place].features {
        rfbench_registry::Features::Exact => Hue::Exact,
        rfbench_registry::Features::Raw => Hue::Raw,
        rfbench_registry::Features::Map(_) => Hue::Map(place),
    })
}

/// The style of each series (sorted keys). When every series of the figure's cells has one map
/// (a `map` series column, or a map all its cells share) and they are not all one map, the hue
/// is the map's: a map keeps its colour across the whole catalogue, the exact kernel machine and
/// the raw-input baseline are neutral, and the series of one hue are told apart by marker and
/// dash. Else (series of other columns, or several series of a single map: one map at four
/// training-set sizes) each series has a hue of its own.
fn styles<'a>(
    cells: impl Iterator<Item = &'a Coordinates>,
    series: &[Vec<CellValue>],
    series_of: impl Fn(&Coordinates) -> Vec<CellValue>,
) -> Vec<Style> {
    // The maps of each series among the figure's cells; empty for a series it does not draw.
    let mut maps: Vec<BTreeSet<CellValue>> = vec![BTreeSet::new(); series.len()];
    for k in cells {
        if let Ok(index) = series.binary_search(&series_of(k)) {
            maps[index].insert(k.get("map").cloned().unwrap_or(CellValue::Empty));
        }
    }
    let hue = |maps: &BTreeSet<CellValue>| match &maps.iter().collect::<Vec<_>>()[..] {
        [CellValue::Text(m)] => map_hue(m),
        _ => None,
    };
    let drawn: BTreeSet<Option<Hue>> = maps.iter().filter(|m| !m.is_empty()).map(hue).collect();
    let one_map_many_series = drawn.len() == 1 && maps.iter().filter(|m| !m.is_empty()).count() > 1;
    let by_map = maps.iter().all(|m| m.is_empty() || hue(m).is_some()) && !one_map_many_series;
    let hues: Vec<Hue> = maps
        .iter()
        .enumerate()
        .map(|(index, m)| match hue(m) {
            Some(h) if by_map => h,
            _ => Hue::Series(index),
        })
        .collect();
    hues.iter()
        .enumerate()
        .map(|(index, hue)| Style {
            hue: *hue,
            marker: hues[..index].iter().filter(|h| *h == hue).count(),
        })
        .collect()
}

#[cfg(test)]
mod style_tests {
    use super::*;

    fn cell(map: &str, size: i64) -> Coordinates {
        let mut k = Coordinates::default();
        k.insert("map".into(), CellValue::Text(map.into()));
        k.insert("train_size".into(), CellValue::Int(size));
        k
    }

    /// random-features-fig3's error against P: one map at four training-set sizes were four
    /// curves of one colour told apart by small markers; they get a colour each. Two maps at two
    /// offsets keep their maps' colours, the second of each map dashed (its marker's pattern).
    #[test]
    fn series_of_a_single_map_get_hues_of_their_own() {
        let cells: Vec<Coordinates> = [1000, 4000, 16000]
            .map(|n| cell("random-binning", n))
            .into();
        let series_of = |k: &Coordinates| vec![k.get("train_size").cloned().unwrap()];
        let mut series: Vec<Vec<CellValue>> = cells.iter().map(series_of).collect();
        series.sort();
        let drawn = styles(cells.iter(), &series, series_of);
        let hues: BTreeSet<Hue> = drawn.iter().map(|s| s.hue).collect();
        assert_eq!(hues.len(), 3, "{drawn:?}");

        let cells = [
            cell("rff", 1),
            cell("rff", 2),
            cell("orf", 1),
            cell("orf", 2),
        ];
        let series_of = |k: &Coordinates| {
            vec![
                k.get("map").cloned().unwrap(),
                k.get("train_size").cloned().unwrap(),
            ]
        };
        let mut series: Vec<Vec<CellValue>> = cells.iter().map(series_of).collect();
        series.sort();
        let drawn = styles(cells.iter(), &series, series_of);
        assert_eq!(drawn[0].hue, map_hue("orf").unwrap());
        assert_eq!([drawn[0].marker, drawn[1].marker], [0, 1]);
        assert_eq!(drawn[2].hue, map_hue("rff").unwrap());
    }
}

/// A curve's legend text: the template with each `{column}` replaced by the label of the curve's
/// value of it (several values joined by "/"), or the series' labels joined by ", ".
fn curve_label(
    template: Option<&[Piece]>,
    series_columns: &[String],
    members: &[&(Coordinates, Stats)],
    labels: &Labels,
    metric: &str,
) -> String {
    let Some(template) = template else {
        if series_columns.is_empty() {
            return metric.to_string();
        }
        return labels.join(series_columns, &members[0].0);
    };
    template
        .iter()
        .map(|piece| match piece {
            Piece::Literal(text) => text.clone(),
            Piece::Field { name, .. } => members
                .iter()
                .map(|(k, _)| k.get(name).cloned().unwrap_or(CellValue::Empty))
                .collect::<BTreeSet<_>>()
                .iter()
                .map(|v| labels.label(name, v))
                .collect::<Vec<_>>()
                .join("/"),
        })
        .collect()
}
