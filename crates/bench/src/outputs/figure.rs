//! `[[figures]]`: a metric against a numeric coordinate, one curve per series, one panel per value
//! of a panel coordinate, error bars over repetitions, drawn with plotters to PNG.
//!
//! Text is rendered from a font compiled into the binary, so a machine without system fonts (CI)
//! draws the same picture. A cell whose x is empty (the exact kernel machine has no D) is drawn as a
//! horizontal line across its panel: it is the baseline the curves approach.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Once;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use serde::Deserialize;
use toml::Spanned;

use super::results::{CellValue, Coordinates, Results, Stats};
use super::validate::{parse_template, Checker, Piece, RawSelector};
use super::{describe, selects, Labels, RenderContext};
use crate::error::{Error, Result};

/// One `[[figures]]` entry as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFigure {
    /// `figures/STEM-NAME.png`; without a name `figures/STEM.png` (one figure at most).
    pub name: Option<Spanned<String>>,
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
    #[serde(default, rename = "where")]
    pub filter: RawSelector,
    #[serde(default)]
    pub log_x: bool,
    #[serde(default)]
    pub log_y: bool,
    /// "sd" (default), "se" or "none".
    pub error_bars: Option<Spanned<String>>,
    /// Default: the column name.
    pub x_label: Option<String>,
    pub y_label: Option<String>,
    /// `{column}` -> the label of the curve's value of that column; default: the series'
    /// labels joined by ", ".
    pub series_label: Option<Spanned<String>>,
}

const ERROR_BARS: [&str; 3] = ["sd", "se", "none"];

pub(super) fn validate(c: &Checker, figures: &[RawFigure]) -> Result<()> {
    let mut names = BTreeMap::new();
    let mut unnamed: Option<usize> = None;
    for (i, f) in figures.iter().enumerate() {
        let key = format!("figures[{i}]");
        match &f.name {
            Some(name) => {
                c.file_name(&format!("{key}.name"), name)?;
                if let Some(first) = names.insert(name.get_ref().clone(), i) {
                    return Err(c.error(
                        &format!("{key}.name"),
                        &name.span(),
                        format!("figures[{first}] already has the name {:?}", name.get_ref()),
                    ));
                }
            }
            None => {
                if let Some(first) = unnamed {
                    return Err(c.error(
                        &key,
                        &f.x.span(),
                        format!(
                            "figures[{first}] already has no name; every other figure needs \
                             `name = \"...\"` (it is the file name's suffix)"
                        ),
                    ));
                }
                unnamed = Some(i);
            }
        }
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
    }
    Ok(())
}

/// One curve of one panel: its points sorted by x (an empty x last).
#[derive(Debug, Clone)]
pub(super) struct Curve {
    /// Index of the curve's series among the figure's (sorted): the same series has the same
    /// colour in every panel.
    pub series: usize,
    pub label: String,
    pub points: Vec<(CellValue, Stats)>,
}

#[derive(Debug, Clone)]
pub(super) struct Panel {
    /// `degree = 2`; empty without panels.
    pub caption: String,
    pub curves: Vec<Curve>,
}

/// A figure's cells, arranged: what [`draw`] draws and the report prints.
#[derive(Debug, Clone)]
pub(super) struct FigureData {
    pub series_columns: Vec<String>,
    pub panels: Vec<Panel>,
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
        let cells: Vec<(Coordinates, Stats)> = results
            .summarise(spec.y.get_ref())
            .into_iter()
            .filter(|c| selects(&c.coordinates, &spec.filter))
            .filter_map(|c| c.stats.map(|s| (c.coordinates, s)))
            .collect();
        let series_columns: Vec<String> = match &spec.series {
            Some(list) => list.iter().map(|s| s.get_ref().clone()).collect(),
            None => results
                .columns
                .coordinates
                .iter()
                .filter(|c| *c != x && Some(*c) != panel_column.as_ref())
                .filter(|c| {
                    let values: BTreeSet<&CellValue> = cells.iter().map(|(k, _)| &k[*c]).collect();
                    values.len() > 1
                })
                .cloned()
                .collect(),
        };
        let value_of = |k: &Coordinates, c: &str| k.get(c).cloned().unwrap_or(CellValue::Empty);
        let series_of = |k: &Coordinates| -> Vec<CellValue> {
            series_columns.iter().map(|c| value_of(k, c)).collect()
        };
        let series: Vec<Vec<CellValue>> = cells
            .iter()
            .map(|(k, _)| series_of(k))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let panel_values: Vec<Option<CellValue>> = match &panel_column {
            Some(p) => cells
                .iter()
                .map(|(k, _)| Some(value_of(k, p)))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
            None => vec![None],
        };
        let template = spec
            .series_label
            .as_ref()
            .and_then(|t| parse_template(t.get_ref()).ok());
        let mut panels = Vec::new();
        for panel_value in &panel_values {
            let in_panel: Vec<&(Coordinates, Stats)> = cells
                .iter()
                .filter(|(k, _)| match (&panel_column, panel_value) {
                    (Some(p), Some(v)) => value_of(k, p) == *v,
                    _ => true,
                })
                .collect();
            let mut curves = Vec::new();
            for (index, series_key) in series.iter().enumerate() {
                let members: Vec<&(Coordinates, Stats)> = in_panel
                    .iter()
                    .copied()
                    .filter(|(k, _)| series_of(k) == *series_key)
                    .collect();
                if members.is_empty() {
                    continue;
                }
                let mut points: BTreeMap<CellValue, (&Coordinates, Stats)> = BTreeMap::new();
                for (k, s) in &members {
                    if let Some((other, _)) = points.insert(value_of(k, x), (k, *s)) {
                        let differing: Vec<&String> = k
                            .iter()
                            .filter(|(c, v)| other.get(*c) != Some(*v))
                            .map(|(c, _)| c)
                            .collect();
                        return Err(Error::Results {
                            path: results.path.clone(),
                            message: format!(
                                "{key}: two cells on one point ({}), differing in {differing:?}; \
                                 add those columns to `series` or fix them with `where`",
                                describe(series_columns.iter().chain([x]).chain(&panel_column), k)
                            ),
                        });
                    }
                }
                let label = curve_label(
                    template.as_deref(),
                    &series_columns,
                    &members,
                    labels,
                    spec.y.get_ref(),
                );
                let mut points: Vec<(CellValue, Stats)> =
                    points.into_iter().map(|(x, (_, s))| (x, s)).collect();
                // Empty x (a baseline without this coordinate) after the numbers.
                points.sort_by_key(|(x, _)| *x == CellValue::Empty);
                curves.push(Curve {
                    series: index,
                    label,
                    points,
                });
            }
            let caption = match (&panel_column, panel_value) {
                (Some(p), Some(v)) => format!("{p} = {}", labels.label(p, v)),
                _ => String::new(),
            };
            panels.push(Panel { caption, curves });
        }
        Ok(FigureData {
            series_columns,
            panels,
        })
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

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_embedded_font() {
    REGISTER.call_once(|| {
        // The font is compiled in and known to parse; a failure would be a build defect.
        register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("embedded font does not parse"));
    });
}

/// Twelve distinguishable colours (Tableau 10, then two darker ones).
const COLORS: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 128),
    RGBColor(128, 0, 0),
];

#[derive(Clone, Copy)]
enum Marker {
    Circle,
    Triangle,
    Square,
    Cross,
}

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
];

/// Colour and marker of series `i`: beyond twelve series the colours repeat with another marker.
fn style(i: usize) -> (RGBColor, Marker) {
    (
        COLORS[i % COLORS.len()],
        MARKERS[(i + i / COLORS.len()) % MARKERS.len()],
    )
}

/// A mean and its error bar, in data coordinates.
struct Point {
    x: f64,
    mean: f64,
    low: f64,
    high: f64,
}

/// A series of a panel: a curve over x, or (x empty) a horizontal line with a band.
struct Line {
    series: usize,
    label: String,
    points: Vec<Point>,
}

/// What a panel draws.
struct Drawable {
    curves: Vec<Line>,
    baselines: Vec<Line>,
    x_range: (f64, f64),
    y_range: (f64, f64),
}

/// Draws `data` to a PNG at `path`, written atomically. Returns notes for the report (points a log
/// axis cannot show).
pub(super) fn draw(
    data: &FigureData,
    spec: &RawFigure,
    ctx: &RenderContext,
    path: &Path,
) -> Result<Vec<String>> {
    register_embedded_font();
    let fail = |message: String| Error::Figure {
        path: path.to_path_buf(),
        message,
    };
    let x_name = spec.x.get_ref();
    let bars = spec
        .error_bars
        .as_ref()
        .map_or("sd", |b| b.get_ref().as_str());
    let mut notes = Vec::new();
    let mut panels = Vec::new();
    for panel in &data.panels {
        let mut curves = Vec::new();
        let mut baselines = Vec::new();
        for curve in &panel.curves {
            let mut points = Vec::new();
            let mut flat = Vec::new();
            for (x, s) in &curve.points {
                let half = match bars {
                    "se" => s.se(),
                    "none" => 0.0,
                    _ => s.sd,
                };
                let half = if half.is_finite() { half } else { 0.0 };
                let (mut low, high) = (s.mean - half, s.mean + half);
                if spec.log_y {
                    if s.mean <= 0.0 || !s.mean.is_finite() {
                        notes.push(format!(
                            "{} at {x_name} = {x}{}: mean {} not drawn on the log y axis",
                            curve.label,
                            if panel.caption.is_empty() {
                                String::new()
                            } else {
                                format!(", {}", panel.caption)
                            },
                            s.mean
                        ));
                        continue;
                    }
                    if low <= 0.0 {
                        low = s.mean / 10.0;
                    }
                }
                match x {
                    CellValue::Empty => flat.push(Point {
                        x: f64::NAN,
                        mean: s.mean,
                        low,
                        high,
                    }),
                    CellValue::Number(v) => {
                        if spec.log_x && *v <= 0.0 {
                            return Err(fail(format!(
                                "log_x, but {x_name} = {v} ({}) is not positive",
                                curve.label
                            )));
                        }
                        points.push(Point {
                            x: *v,
                            mean: s.mean,
                            low,
                            high,
                        });
                    }
                    CellValue::Text(t) => {
                        return Err(fail(format!(
                            "x = {x_name:?} must be numeric, found the value {t:?}"
                        )))
                    }
                }
            }
            if !points.is_empty() {
                curves.push(Line {
                    series: curve.series,
                    label: curve.label.clone(),
                    points,
                });
            }
            if !flat.is_empty() {
                baselines.push(Line {
                    series: curve.series,
                    label: curve.label.clone(),
                    points: flat,
                });
            }
        }
        let xs: Vec<f64> = curves
            .iter()
            .flat_map(|c| c.points.iter().map(|q| q.x))
            .collect();
        let ys: Vec<f64> = curves
            .iter()
            .chain(&baselines)
            .flat_map(|c| c.points.iter().flat_map(|q| [q.low, q.high]))
            .filter(|v| v.is_finite())
            .collect();
        panels.push(Drawable {
            curves,
            baselines,
            x_range: padded(&xs, spec.log_x),
            y_range: padded(&ys, spec.log_y),
        });
    }
    if panels
        .iter()
        .all(|p| p.curves.is_empty() && p.baselines.is_empty())
    {
        return Err(fail(format!(
            "no cells to draw: no cell that ran matches{}",
            if spec.filter.is_empty() {
                String::new()
            } else {
                format!(" where {}", super::describe_selector(&spec.filter))
            }
        )));
    }

    let dir = super::parent_dir(path)?;
    let tmp = tempfile::Builder::new()
        .prefix(".figure-")
        .suffix(".png")
        .tempfile_in(&dir)
        .map_err(|e| Error::io(&dir, e))?;
    {
        let width = 600 * panels.len() as u32;
        let root = BitMapBackend::new(tmp.path(), (width, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        let title = if ctx.profile_note.is_empty() {
            ctx.title.clone()
        } else {
            format!("{} ({})", ctx.title, ctx.profile_note)
        };
        let root = root
            .titled(&title, ("sans-serif", 22))
            .map_err(|e| fail(e.to_string()))?;
        let x_label = spec.x_label.as_deref().unwrap_or(x_name);
        let y_label = spec.y_label.as_deref().unwrap_or(spec.y.get_ref());
        let areas = root.split_evenly((1, panels.len()));
        for ((area, panel), drawable) in areas.iter().zip(&data.panels).zip(&panels) {
            let labels = AxisLabels {
                caption: &panel.caption,
                x: x_label,
                y: y_label,
            };
            let (x0, x1) = drawable.x_range;
            let (y0, y1) = drawable.y_range;
            let result = match (spec.log_x, spec.log_y) {
                (false, false) => draw_panel(area, x0..x1, y0..y1, drawable, &labels),
                (true, false) => draw_panel(area, (x0..x1).log_scale(), y0..y1, drawable, &labels),
                (false, true) => draw_panel(area, x0..x1, (y0..y1).log_scale(), drawable, &labels),
                (true, true) => draw_panel(
                    area,
                    (x0..x1).log_scale(),
                    (y0..y1).log_scale(),
                    drawable,
                    &labels,
                ),
            };
            result.map_err(fail)?;
        }
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(notes)
}

/// The data range widened by 5% each side (multiplicatively on a log axis); a single value gets
/// a range around it.
fn padded(values: &[f64], log: bool) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        let (lo, hi) = (lo.max(f64::MIN_POSITIVE), hi.max(f64::MIN_POSITIVE));
        if lo == hi {
            return (lo / 2.0, hi * 2.0);
        }
        let pad = (hi / lo).powf(0.05);
        return (lo / pad, hi * pad);
    }
    if lo == hi {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - pad, hi + pad);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

struct AxisLabels<'a> {
    caption: &'a str,
    x: &'a str,
    y: &'a str,
}

fn tick(v: &f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{v:.0e}")
    } else {
        // Enough decimals to tell ticks apart, trailing zeros trimmed.
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".to_string()
        } else {
            s.to_string()
        }
    }
}

/// One panel on linear or logarithmic axes (plotters gives each its own coordinate type).
fn draw_panel<X, Y>(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    x_range: X,
    y_range: Y,
    d: &Drawable,
    labels: &AxisLabels,
) -> std::result::Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70);
    if !labels.caption.is_empty() {
        builder.caption(labels.caption, ("sans-serif", 20));
    }
    let mut chart = builder
        .build_cartesian_2d(x_range, y_range)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(labels.x)
        .y_desc(labels.y)
        .x_labels(8)
        .y_labels(10)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    let (x0, x1) = d.x_range;
    for line in &d.baselines {
        let (color, _) = style(line.series);
        for p in &line.points {
            // The band (error bars across the panel) first, so the line stays visible over it.
            if p.low != p.high {
                let band = color.mix(0.15).filled();
                chart
                    .draw_series([Rectangle::new([(x0, p.low), (x1, p.high)], band)])
                    .map_err(|e| err(&e))?;
            }
            chart
                .draw_series(DashedLineSeries::new(
                    [(x0, p.mean), (x1, p.mean)],
                    8,
                    5,
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(line.label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
    }
    for line in &d.curves {
        let (color, marker) = style(line.series);
        let points = &line.points;
        let annotation = chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.x, p.mean)),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?;
        annotation.label(line.label.clone());
        let stroke = move |(x, y): (i32, i32)| {
            EmptyElement::at((x + 10, y))
                + PathElement::new(vec![(-10, 0), (10, 0)], color.stroke_width(2))
        };
        // Each marker is its own element type, hence one arm per marker.
        match marker {
            Marker::Circle => {
                annotation.legend(move |p| stroke(p) + Circle::new((0, 0), 4, color.filled()));
            }
            Marker::Triangle => {
                annotation
                    .legend(move |p| stroke(p) + TriangleMarker::new((0, 0), 5, color.filled()));
            }
            Marker::Square => {
                annotation.legend(move |p| {
                    stroke(p) + Rectangle::new([(-4, -4), (4, 4)], color.filled())
                });
            }
            Marker::Cross => {
                annotation
                    .legend(move |p| stroke(p) + Cross::new((0, 0), 4, color.stroke_width(2)));
            }
        }
        chart
            .draw_series(
                points
                    .iter()
                    .filter(|p| p.low != p.high)
                    .map(|p| ErrorBar::new_vertical(p.x, p.low, p.mean, p.high, color.filled(), 8)),
            )
            .map_err(|e| err(&e))?;
        let at = points.iter().map(|p| (p.x, p.mean));
        match marker {
            Marker::Circle => chart.draw_series(at.map(|q| Circle::new(q, 4, color.filled()))),
            Marker::Triangle => {
                chart.draw_series(at.map(|q| TriangleMarker::new(q, 5, color.filled())))
            }
            Marker::Square => {
                chart.draw_series(at.map(|q| {
                    EmptyElement::at(q) + Rectangle::new([(-4, -4), (4, 4)], color.filled())
                }))
            }
            Marker::Cross => chart.draw_series(at.map(|q| Cross::new(q, 4, color.stroke_width(2)))),
        }
        .map_err(|e| err(&e))?;
    }
    if d.curves.len() + d.baselines.len() > 1 || d.curves.iter().any(|c| !c.label.is_empty()) {
        chart
            .configure_series_labels()
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| err(&e))?;
    }
    Ok(())
}
