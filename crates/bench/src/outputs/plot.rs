//! Drawing a [`FigureData`] with plotters: panels side by side, one colour and marker per series
//! (the same in every panel), error bars, log axes, and a dashed line with a band for a series
//! without x (the exact baseline). Text is rendered from a font compiled into the binary, so a
//! machine without system fonts (CI) draws the same picture. The PNG is written to a uniquely
//! named temporary file in the target directory and renamed into place.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;
use std::sync::Once;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use toml::Spanned;

use super::axis::{log_ticks, padded, tick};
use super::figure::{self, FigureData, Hue, Panel, PaperPoint, RawFigure, Style};
use super::legend::{self, Entry, Glyph, Marker};
use super::results::{CellStats, CellValue, Coordinates, Results};
use super::validate::Checker;
use super::{name, selects, CellProblem, Drawing, Output, RenderContext};
use crate::error::{Error, Result};
use crate::staging::Staged;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

pub(crate) fn register_embedded_font() {
    REGISTER.call_once(|| {
        // The font is compiled in and known to parse; a failure would be a build defect.
        register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("embedded font does not parse"));
    });
}

/// Fourteen distinguishable colours (Tableau 10 without its grey, then darker ones): one per map of the
/// registry ([`super::figure`] gives a map series its registry position). None is grey or
/// black: those are the baselines'.
const COLORS: [RGBColor; 14] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(0, 110, 90),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 128),
    RGBColor(170, 110, 40),
    RGBColor(100, 40, 140),
    RGBColor(96, 96, 0),
];

/// The exact kernel machine's colour: neutral, beside no map's.
const EXACT: RGBColor = RGBColor(120, 120, 120);
/// The linear model on the raw inputs.
const RAW: RGBColor = RGBColor(0, 0, 0);

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
];

/// The colour of a map (by registry name) for figures drawn outside this module (`rfbench
/// compare`'s): the same as in the catalogue's; `fallback` numbers a name the registry does not
/// have.
pub(crate) fn map_color(name: &str, fallback: usize) -> RGBColor {
    let hue = figure::map_hue(name).unwrap_or(Hue::Series(fallback));
    style(Style { hue, marker: 0 }).0
}

/// Colour and marker of a style: beyond fourteen series of their own the colours repeat with
/// another marker.
fn style(style: Style) -> (RGBColor, Marker) {
    let (color, turn) = match style.hue {
        Hue::Map(i) | Hue::Series(i) => (COLORS[i % COLORS.len()], i / COLORS.len()),
        Hue::Exact => (EXACT, 0),
        Hue::Raw => (RAW, 0),
    };
    (color, MARKERS[(style.marker + turn) % MARKERS.len()])
}

/// A mean and its error bar, in data coordinates, and the runs it is the mean of.
struct Point {
    x: f64,
    mean: f64,
    low: f64,
    high: f64,
    count: usize,
}

/// A series of a panel: a curve over x, or (x empty) a horizontal line with a band.
struct Line {
    series: usize,
    style: Style,
    label: String,
    points: Vec<Point>,
}

/// What a panel draws.
struct Drawable {
    curves: Vec<Line>,
    baselines: Vec<Line>,
    x_range: (f64, f64),
    y_range: (f64, f64),
    /// A bar reached zero or below on the log y axis and was cut at a tenth of its mean.
    cut: bool,
    /// The paper's values on this panel's curves: (x, value, the curve's style).
    paper: Vec<(f64, f64, Style)>,
}

/// A figure is the one output drawn here, so its [`Output`] implementation is too.
impl Output for RawFigure {
    fn section(&self) -> &'static str {
        "figures"
    }

    fn span(&self) -> Range<usize> {
        self.x.span()
    }

    fn profiles(&self) -> Option<&Spanned<Vec<String>>> {
        self.profiles.as_ref()
    }

    fn validate(&self, c: &Checker, key: &str) -> Result<()> {
        figure::validate(c, key, self)
    }

    fn cell_problem(&self, cells: &[Coordinates], profile: &str) -> Option<CellProblem> {
        figure::cell_problem(self, cells, profile)
    }

    /// Every selected cell skipped (its data needs the network, say): no figure, and no figure
    /// of an earlier run left beside this run's results; the report says why. A selection that
    /// matches no cell at all stays an error (a typo in `where`).
    fn render(
        &self,
        key: &str,
        results: &Results,
        ctx: &RenderContext,
        drawing: &mut Drawing<'_>,
    ) -> Result<()> {
        let path = ctx.files.figure(name(&self.name));
        let selected: Vec<CellStats> = results
            .summarise(self.y.get_ref())
            .into_iter()
            .filter(|c| selects(&c.coordinates, &self.filter))
            .collect();
        if !selected.is_empty()
            && selected
                .iter()
                .all(|c| c.stats.is_none() && c.skipped.is_some())
        {
            drawing.out.remove(&path)?;
            drawing.report.figure_skipped(&path, selected.len());
            return Ok(());
        }
        let data = FigureData::collect(results, self, &ctx.labels, key)?;
        let paper = data.paper_points(
            results,
            self,
            &ctx.labels,
            drawing.paper,
            drawing.default_metric.as_deref(),
        );
        let notes = draw(&data, &paper, self, ctx, &path, drawing.out)?;
        drawing.report.figure(self, &data, &path, &notes);
        drawing.figures.push(path);
        Ok(())
    }
}

/// Draws `data` to a PNG for `path`, staged in `out` with the run's other outputs. Returns notes
/// for the report (points a log axis cannot show).
pub(super) fn draw(
    data: &FigureData,
    paper: &[PaperPoint],
    spec: &RawFigure,
    ctx: &RenderContext,
    path: &Path,
    out: &mut Staged,
) -> Result<Vec<String>> {
    register_embedded_font();
    let fail = |message: String| Error::Figure {
        path: path.to_path_buf(),
        message,
    };
    let mut notes = Vec::new();
    let mut panels = Vec::new();
    for (index, panel) in data.panels.iter().enumerate() {
        let on_panel = paper.iter().filter(|p| p.panel == index);
        panels.push(drawable(panel, on_panel, spec, &mut notes).map_err(fail)?);
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

    let png = render_png(data, spec, ctx, &panels).map_err(fail)?;
    out.write(path, &png)?;
    Ok(notes)
}

/// The figure's error bars: its `error_bars`, by default "ci".
fn bars(spec: &RawFigure) -> &str {
    spec.error_bars
        .as_ref()
        .map_or(figure::ERROR_BARS[0], |b| b.get_ref().as_str())
}

/// A panel's curves (over x) and baselines (no x: drawn across), with their error bars and
/// ranges; points a log axis cannot show are left out with a note.
fn drawable<'a>(
    panel: &Panel,
    paper: impl Iterator<Item = &'a PaperPoint>,
    spec: &RawFigure,
    notes: &mut Vec<String>,
) -> std::result::Result<Drawable, String> {
    let fail = |message: String| message;
    let x_name = spec.x.get_ref();
    let bars = bars(spec);
    let mut curves = Vec::new();
    let mut baselines = Vec::new();
    let mut cut = false;
    for curve in &panel.curves {
        let mut points = Vec::new();
        let mut flat = Vec::new();
        for (x, s) in &curve.points {
            let half = match bars {
                "sd" => s.sd,
                "se" => s.se(),
                "none" => 0.0,
                _ => crate::stats::mean_interval_half_width(s.sd, s.count, 0.95).unwrap_or(0.0),
            };
            // One run: no spread, no bar (the footnote says so).
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
                    cut = true;
                }
            }
            match x {
                CellValue::Empty => flat.push(Point {
                    x: f64::NAN,
                    mean: s.mean,
                    low,
                    high,
                    count: s.count,
                }),
                CellValue::Int(_) | CellValue::Float(_) => {
                    let v = x.as_number().unwrap_or(f64::NAN);
                    if spec.log_x && v <= 0.0 {
                        return Err(fail(format!(
                            "log_x, but {x_name} = {x} ({}) is not positive",
                            curve.label
                        )));
                    }
                    points.push(Point {
                        x: v,
                        mean: s.mean,
                        low,
                        high,
                        count: s.count,
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
                style: curve.style,
                label: curve.label.clone(),
                points,
            });
        }
        if !flat.is_empty() {
            baselines.push(Line {
                series: curve.series,
                style: curve.style,
                label: curve.label.clone(),
                points: flat,
            });
        }
    }
    // The paper's values at a numeric x (one the log axis can show); a value for a baseline
    // (no x) stays in the report.
    let paper: Vec<(f64, f64, Style)> = paper
        .filter_map(|p| Some((p.x.as_number()?, p.value, p.style)))
        .filter(|(_, v, _)| v.is_finite() && (!spec.log_y || *v > 0.0))
        .collect();
    let xs: Vec<f64> = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|q| q.x))
        .collect();
    let ys: Vec<f64> = curves
        .iter()
        .chain(&baselines)
        .flat_map(|c| c.points.iter().flat_map(|q| [q.low, q.high]))
        .chain(paper.iter().map(|(_, v, _)| *v))
        .filter(|v| v.is_finite())
        .collect();
    Ok(Drawable {
        curves,
        baselines,
        x_range: padded(&xs, spec.log_x),
        y_range: padded(&ys, spec.log_y),
        cut,
        paper,
    })
}

/// The figure as PNG bytes: the title (wrapped), one panel per column, the legend, then the
/// footnotes (what the bars are; the panel values with no panel, and why).
fn render_png(
    data: &FigureData,
    spec: &RawFigure,
    ctx: &RenderContext,
    panels: &[Drawable],
) -> std::result::Result<Vec<u8>, String> {
    let fail = |e: String| e;
    let x_name = spec.x.get_ref();
    // plotters draws to a path: a private file in the system's temporary directory, so that a
    // killed run leaves nothing among the outputs.
    let tmp = tempfile::Builder::new()
        .prefix("rfbench-figure-")
        .suffix(".png")
        .tempfile()
        .map_err(|e| format!("{}: {e}", std::env::temp_dir().display()))?;
    {
        let width = 600 * panels.len() as u32;
        let note_font: TextStyle = ("sans-serif", FOOTNOTE_SIZE).into();
        let measure_note = |line: &str| {
            note_font
                .font
                .box_size(line)
                .map_or(8 * line.len() as u32, |(w, _)| w)
        };
        let notes: Vec<String> = footnotes(data, spec, panels)
            .iter()
            .flat_map(|note| wrap_words(note, |line: &str| measure_note(line) + 30 <= width))
            .collect();
        let notes_height = FOOTNOTE_LINE * notes.len() as u32 + 8;
        let root = BitMapBackend::new(tmp.path(), (width, 560 + notes_height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        let (_, height) = root.dim_in_pixel();
        let (root, notes_area) = root.split_vertically(height - notes_height);
        for (i, line) in notes.iter().enumerate() {
            notes_area
                .draw_text(line, &note_font, (16, FOOTNOTE_LINE as i32 * i as i32))
                .map_err(|e| fail(e.to_string()))?;
        }
        let title = spec.title.as_deref().unwrap_or(&ctx.title);
        let title = if ctx.profile_note.is_empty() {
            title.to_string()
        } else {
            format!("{title} ({})", ctx.profile_note)
        };
        // A title wider than the figure is wrapped at spaces, one `titled` line under another.
        let font: TextStyle = ("sans-serif", 22).into();
        let lines = wrap_words(&title, |line: &str| {
            root.estimate_text_size(line, &font)
                .map_or(true, |(w, _)| w + 20 <= width)
        });
        let mut root = root;
        for line in lines {
            root = root
                .titled(&line, font.clone())
                .map_err(|e| fail(e.to_string()))?;
        }
        let x_label = spec.x_label.as_deref().unwrap_or(x_name);
        let y_label = spec.y_label.as_deref().unwrap_or(spec.y.get_ref());
        // The legend in a strip of its own under the panels, never over a point: one for the
        // figure, or one under each panel when a series is labelled by its panel.
        let legend_font = legend::font();
        let measure = |text: &str| {
            root.estimate_text_size(text, &legend_font)
                .map_or(8 * text.len() as u32, |(w, _)| w)
        };
        let groups = legend_groups(panels);
        let group_width = width / groups.len().max(1) as u32;
        let rows: Vec<Vec<Vec<usize>>> = groups
            .iter()
            .map(|entries| legend::rows(entries, group_width, measure))
            .collect();
        let strip_rows = rows.iter().map(Vec::len).max().unwrap_or(0);
        let (_, height) = root.dim_in_pixel();
        let (root, strip) = root.split_vertically(height - legend::height(strip_rows));
        let strips = strip.split_evenly((1, groups.len().max(1)));
        for ((area, entries), rows) in strips.iter().zip(&groups).zip(&rows) {
            legend::draw(area, entries, rows, measure)?;
        }
        let areas = root.split_evenly((1, panels.len()));
        for ((area, panel), drawable) in areas.iter().zip(&data.panels).zip(panels) {
            let labels = AxisLabels {
                caption: &panel.caption,
                x: x_label,
                y: y_label,
            };
            let (x0, x1) = drawable.x_range;
            let (y0, y1) = drawable.y_range;
            // Log axes carry their own ticks: plotters labels powers of ten only, none at all
            // inside one decade.
            let log_x = || (x0..x1).log_scale().with_key_points(log_ticks(x0, x1));
            let log_y = || (y0..y1).log_scale().with_key_points(log_ticks(y0, y1));
            let result = match (spec.log_x, spec.log_y) {
                (false, false) => draw_panel(area, x0..x1, y0..y1, drawable, &labels),
                (true, false) => draw_panel(area, log_x(), y0..y1, drawable, &labels),
                (false, true) => draw_panel(area, x0..x1, log_y(), drawable, &labels),
                (true, true) => draw_panel(area, log_x(), log_y(), drawable, &labels),
            };
            result?;
        }
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    // Drawn to a private temporary file (plotters writes to a path), then staged like every
    // other output: the same file mode, renamed with the rest of the run's outputs.
    std::fs::read(tmp.path()).map_err(|e| format!("{}: {e}", tmp.path().display()))
}

const FOOTNOTE_SIZE: u32 = 14;
const FOOTNOTE_LINE: u32 = 19;

/// The figure's footnotes, before wrapping: what its error bars (and the baselines' bands) are
/// and over how many runs, then which panel values got no panel and why.
fn footnotes(data: &FigureData, spec: &RawFigure, panels: &[Drawable]) -> Vec<String> {
    let lines = || {
        panels
            .iter()
            .flat_map(|p| p.curves.iter().chain(&p.baselines))
    };
    let counts: BTreeSet<usize> = lines()
        .flat_map(|l| l.points.iter().map(|p| p.count))
        .collect();
    let several: Vec<usize> = counts.iter().copied().filter(|n| *n > 1).collect();
    let bands = panels.iter().any(|p| !p.baselines.is_empty());
    let what = if bands {
        "Bars (and the dashed lines' bands)"
    } else {
        "Bars"
    };
    let runs = match (several.first(), several.last()) {
        (Some(a), Some(b)) if a == b => format!("n = {a} runs"),
        (Some(a), Some(b)) => format!("n = {a} to {b} runs"),
        _ => String::new(),
    };
    let mut bar = match (bars(spec), several.is_empty()) {
        ("none", _) => "No error bars: points are means over the runs.".to_string(),
        (_, true) => "One run per point: no error bars.".to_string(),
        ("sd", _) => format!("{what}: ±1 standard deviation over {runs}."),
        ("se", _) => format!("{what}: ±1 standard error of the mean over {runs}."),
        _ => format!(
            "{what}: 95 % t-interval of the mean over {runs} (Student t, n - 1 degrees of \
             freedom)."
        ),
    };
    if bars(spec) != "none" && !several.is_empty() && counts.contains(&1) {
        bar.push_str(" Points of one run have no bar.");
    }
    if panels.iter().any(|p| p.cut) {
        bar.push_str(
            " A bar reaching zero or below is cut at a tenth of its mean on the log axis.",
        );
    }
    let mut notes = vec![bar];
    let paper: usize = panels.iter().map(|p| p.paper.len()).sum();
    if paper > 0 {
        notes.push(format!(
            "Rings: the paper's values ({paper}), each in the colour of the curve it belongs to."
        ));
    }
    if let (Some(column), false) = (&data.panel_column, data.not_drawn.is_empty()) {
        // Panel values grouped by the head of their reason ("its data needs the network"), in
        // the panels' order; a value alone keeps its whole reason (which file it needs). The
        // report lists every skipped cell with its whole reason.
        let head = |reason: &str| reason.split(" (").next().unwrap_or(reason).to_string();
        let mut reasons: Vec<(String, Vec<&figure::NotDrawn>)> = Vec::new();
        for n in &data.not_drawn {
            match reasons.iter_mut().find(|(r, _)| *r == head(&n.reason)) {
                Some((_, values)) => values.push(n),
                None => reasons.push((head(&n.reason), vec![n])),
            }
        }
        let groups: Vec<String> = reasons
            .iter()
            .map(|(head, values)| match &values[..] {
                [one] => format!("{} ({})", one.value, one.reason),
                _ => {
                    let names: Vec<&str> = values.iter().map(|n| n.value.as_str()).collect();
                    format!("{} ({head})", names.join(", "))
                }
            })
            .collect();
        notes.push(format!("No panel for {column} = {}.", groups.join("; ")));
    }
    notes
}

/// The legend's entries: one group for the figure, or one per panel when a series is labelled
/// differently in two panels (its label names the panel's value: the degree of its kernel).
fn legend_groups(panels: &[Drawable]) -> Vec<Vec<Entry>> {
    let mut groups = series_groups(panels);
    if panels.iter().any(|p| !p.paper.is_empty()) {
        if let Some(last) = groups.last_mut() {
            last.push(Entry {
                label: "paper".into(),
                color: RAW,
                glyph: Glyph::Paper,
            });
        }
    }
    groups
}

/// [`legend_groups`] without the paper's entry.
fn series_groups(panels: &[Drawable]) -> Vec<Vec<Entry>> {
    let each: Vec<Vec<(usize, Entry)>> = panels.iter().map(panel_entries).collect();
    let differs = each.iter().flatten().any(|(series, entry)| {
        each.iter()
            .flatten()
            .any(|(s, e)| s == series && e.label != entry.label)
    });
    if differs {
        return each
            .into_iter()
            .map(|entries| entries.into_iter().map(|(_, e)| e).collect())
            .collect();
    }
    let mut shared: Vec<(usize, Entry)> = Vec::new();
    for (series, entry) in each.into_iter().flatten() {
        if !shared.iter().any(|(s, _)| *s == series) {
            shared.push((series, entry));
        }
    }
    shared.sort_by_key(|(s, _)| *s);
    if shared.len() == 1 && shared[0].1.label.is_empty() {
        return vec![Vec::new()];
    }
    vec![shared.into_iter().map(|(_, e)| e).collect()]
}

/// One legend entry per series of a panel (in series order), with its series index.
fn panel_entries(panel: &Drawable) -> Vec<(usize, Entry)> {
    let mut seen: Vec<(usize, Entry)> = Vec::new();
    let lines = panel.curves.iter().map(|l| (l, false));
    for (line, baseline) in lines.chain(panel.baselines.iter().map(|l| (l, true))) {
        if seen.iter().any(|(s, _)| *s == line.series) {
            continue;
        }
        let (color, marker) = style(line.style);
        let glyph = if baseline {
            Glyph::Baseline(legend::baseline_dash(line.style.hue == Hue::Exact))
        } else {
            Glyph::Curve(marker)
        };
        seen.push((
            line.series,
            Entry {
                label: line.label.clone(),
                color,
                glyph,
            },
        ));
    }
    seen.sort_by_key(|(s, _)| *s);
    seen
}

struct AxisLabels<'a> {
    caption: &'a str,
    x: &'a str,
    y: &'a str,
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
    for line in &d.curves {
        let (color, marker) = style(line.style);
        let points = &line.points;
        let path = points.iter().map(|p| (p.x, p.mean));
        match legend::curve_dash(marker) {
            None => chart.draw_series(LineSeries::new(path, color.stroke_width(2))),
            Some((dash, gap)) => chart.draw_series(DashedLineSeries::new(
                path,
                dash,
                gap,
                color.stroke_width(2),
            )),
        }
        .map_err(|e| err(&e))?;
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
            Marker::Circle => chart.draw_series(at.map(|q| Circle::new(q, 5, color.filled()))),
            Marker::Triangle => {
                chart.draw_series(at.map(|q| TriangleMarker::new(q, 7, color.filled())))
            }
            Marker::Square => {
                chart.draw_series(at.map(|q| {
                    EmptyElement::at(q) + Rectangle::new([(-5, -5), (5, 5)], color.filled())
                }))
            }
            Marker::Cross => chart.draw_series(at.map(|q| Cross::new(q, 6, color.stroke_width(2)))),
        }
        .map_err(|e| err(&e))?;
    }
    // Baselines over the curves: a curve at the baseline's value would hide it.
    let (x0, x1) = d.x_range;
    for line in &d.baselines {
        let (color, _) = style(line.style);
        for p in &line.points {
            // The band (error bars across the panel) first, so the line stays visible over it.
            if p.low != p.high {
                let band = color.mix(0.15).filled();
                chart
                    .draw_series([Rectangle::new([(x0, p.low), (x1, p.high)], band)])
                    .map_err(|e| err(&e))?;
            }
            let (dash, gap) = legend::baseline_dash(line.style.hue == Hue::Exact).unwrap_or((8, 5));
            chart
                .draw_series(DashedLineSeries::new(
                    [(x0, p.mean), (x1, p.mean)],
                    dash,
                    gap,
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?;
        }
    }
    for (x, value, style) in &d.paper {
        let (color, _) = self::style(*style);
        chart
            .draw_series([Circle::new((*x, *value), 7, color.stroke_width(2))])
            .map_err(|e| err(&e))?;
    }
    Ok(())
}

/// `text` in lines of whole words, each as long as `fits` allows; a word that does not fit alone
/// is a line of its own.
fn wrap_words(text: &str, fits: impl Fn(&str) -> bool) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let longer = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if line.is_empty() || fits(&longer) {
            line = longer;
        } else {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(series: usize, label: &str, counts: &[usize]) -> Line {
        Line {
            series,
            style: Style {
                hue: Hue::Map(series),
                marker: 0,
            },
            label: label.into(),
            points: counts
                .iter()
                .map(|&count| Point {
                    x: 1.0,
                    mean: 1.0,
                    low: 1.0,
                    high: 1.0,
                    count,
                })
                .collect(),
        }
    }

    fn panel(curves: Vec<Line>, baselines: Vec<Line>) -> Drawable {
        Drawable {
            curves,
            baselines,
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            cut: false,
            paper: Vec::new(),
        }
    }

    fn figure(text: &str) -> RawFigure {
        toml::from_str(&format!("x = \"n_components\"\ny = \"accuracy\"\n{text}")).unwrap()
    }

    fn data(not_drawn: &[(&str, &str)]) -> FigureData {
        FigureData {
            series_columns: vec!["map".into()],
            panel_column: Some("dataset".into()),
            panels: Vec::new(),
            not_drawn: not_drawn
                .iter()
                .map(|(value, reason)| figure::NotDrawn {
                    value: value.to_string(),
                    reason: reason.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn every_figure_says_what_its_bars_are_and_which_panels_it_left_out() {
        let three = [panel(vec![line(0, "RFF", &[3, 3])], Vec::new())];
        assert_eq!(
            footnotes(&data(&[]), &figure(""), &three),
            [
                "Bars: 95 % t-interval of the mean over n = 3 runs (Student t, n - 1 degrees of \
              freedom)."
            ]
        );
        // Mixed counts, a baseline's band, and a point of one run.
        let mixed = [panel(
            vec![line(0, "RFF", &[2, 5, 1])],
            vec![line(1, "exact", &[3])],
        )];
        assert_eq!(
            footnotes(&data(&[]), &figure(""), &mixed),
            [
                "Bars (and the dashed lines' bands): 95 % t-interval of the mean over n = 2 to 5 \
              runs (Student t, n - 1 degrees of freedom). Points of one run have no bar."
            ]
        );
        // The paper's values: a footnote and a legend entry.
        let mut with_paper = panel(vec![line(0, "RFF", &[3])], Vec::new());
        with_paper.paper = vec![(1.0, 2.0, with_paper.curves[0].style)];
        let with_paper = [with_paper];
        assert_eq!(
            footnotes(&data(&[]), &figure(""), &with_paper)[1],
            "Rings: the paper's values (1), each in the colour of the curve it belongs to."
        );
        let legend = legend_groups(&with_paper);
        assert_eq!(legend[0].last().map(|e| e.glyph), Some(Glyph::Paper));
        // A bar cut on a log axis is said to be cut.
        let mut cut = panel(vec![line(0, "RFF", &[3])], Vec::new());
        cut.cut = true;
        assert!(footnotes(&data(&[]), &figure(""), &[cut])[0].ends_with(
            "freedom). A bar reaching zero or below is cut at a tenth of its mean on the log axis."
        ));
        let single = [panel(vec![line(0, "RFF", &[1, 1])], Vec::new())];
        assert_eq!(
            footnotes(&data(&[]), &figure(""), &single),
            ["One run per point: no error bars."]
        );
        assert_eq!(
            footnotes(&data(&[]), &figure("error_bars = \"sd\""), &three)[0],
            "Bars: ±1 standard deviation over n = 3 runs."
        );
        // Panel values with nothing to draw: one line, grouped by reason.
        let notes = footnotes(
            &data(&[
                (
                    "cadata",
                    "its data needs the network (cannot download cadata here)",
                ),
                (
                    "cpu",
                    "its data needs the network (cannot download compact.tar.gz here)",
                ),
                ("wine", "no cell has a value of accuracy"),
            ]),
            &figure(""),
            &three,
        );
        assert_eq!(
            notes[1],
            "No panel for dataset = cadata, cpu (its data needs the network); wine (no cell has \
             a value of accuracy)."
        );
        let notes = footnotes(
            &data(&[(
                "forest",
                "its data needs the network (cannot download covtype here)",
            )]),
            &figure(""),
            &three,
        );
        assert_eq!(
            notes[1],
            "No panel for dataset = forest (its data needs the network (cannot download covtype \
             here))."
        );
    }

    #[test]
    fn a_series_labelled_by_its_panel_gets_a_legend_under_each_panel() {
        let labels = |groups: Vec<Vec<Entry>>| -> Vec<Vec<String>> {
            groups
                .iter()
                .map(|g| g.iter().map(|e| e.label.clone()).collect())
                .collect()
        };
        // The same labels in every panel: one legend, each series once, in series order.
        let shared = [
            panel(vec![line(1, "RM", &[3]), line(0, "TS", &[3])], Vec::new()),
            panel(vec![line(0, "TS", &[3])], vec![line(2, "exact", &[3])]),
        ];
        assert_eq!(
            labels(legend_groups(&shared)),
            [["TS", "RM", "exact"].map(String::from).to_vec()]
        );
        // Tensor Sketch Fig. 1: the label names the panel's degree, so each panel has its own.
        let by_degree = [
            panel(vec![line(0, "TS, <x,y>^2", &[3])], Vec::new()),
            panel(vec![line(0, "TS, <x,y>^3", &[3])], Vec::new()),
        ];
        assert_eq!(
            labels(legend_groups(&by_degree)),
            [
                vec!["TS, <x,y>^2".to_string()],
                vec!["TS, <x,y>^3".to_string()]
            ]
        );
    }

    #[test]
    fn long_titles_wrap_at_spaces() {
        let fits = |line: &str| line.len() <= 12;
        assert_eq!(wrap_words("short title", fits), ["short title"]);
        assert_eq!(
            wrap_words("a title that is too long, with averyveryverylongword", fits),
            [
                "a title that",
                "is too long,",
                "with",
                "averyveryverylongword"
            ]
        );
        assert_eq!(wrap_words("", fits), [""]);
    }
}
