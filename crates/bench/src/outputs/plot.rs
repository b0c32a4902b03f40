//! Drawing a [`FigureData`] with plotters: panels side by side, one colour and marker per series
//! (the same in every panel), error bars, log axes, and a dashed line with a band for a series
//! without x (the exact baseline). Text is rendered from a font compiled into the binary, so a
//! machine without system fonts (CI) draws the same picture. The PNG is written to a uniquely
//! named temporary file in the target directory and renamed into place.

use std::ops::Range;
use std::path::Path;
use std::sync::Once;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use toml::Spanned;

use super::figure::{self, FigureData, Panel, RawFigure, PALETTE};
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

/// Fourteen distinguishable colours (Tableau 10, then four darker ones): one per map of the
/// registry ([`super::figure`] numbers a `map` series by its registry position).
const COLORS: [RGBColor; PALETTE] = [
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
    RGBColor(0, 0, 0),
    RGBColor(96, 96, 0),
];

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
];

/// The colour of series `i`, for figures drawn outside this module (`rfbench compare`'s).
pub(crate) fn color(i: usize) -> RGBColor {
    style(i).0
}

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
        let notes = draw(&data, self, ctx, &path, drawing.out)?;
        drawing.report.figure(self, &data, &path, &notes);
        drawing.figures.push(path);
        Ok(())
    }
}

/// Draws `data` to a PNG for `path`, staged in `out` with the run's other outputs. Returns notes
/// for the report (points a log axis cannot show).
pub(super) fn draw(
    data: &FigureData,
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
    for panel in &data.panels {
        panels.push(drawable(panel, spec, &mut notes).map_err(fail)?);
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

/// A panel's curves (over x) and baselines (no x: drawn across), with their error bars and
/// ranges; points a log axis cannot show are left out with a note.
fn drawable(
    panel: &Panel,
    spec: &RawFigure,
    notes: &mut Vec<String>,
) -> std::result::Result<Drawable, String> {
    let fail = |message: String| message;
    let x_name = spec.x.get_ref();
    let bars = spec
        .error_bars
        .as_ref()
        .map_or("sd", |b| b.get_ref().as_str());
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
    Ok(Drawable {
        curves,
        baselines,
        x_range: padded(&xs, spec.log_x),
        y_range: padded(&ys, spec.log_y),
    })
}

/// The figure as PNG bytes: the title (wrapped), then one panel per column.
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
        let root = BitMapBackend::new(tmp.path(), (width, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
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
        // The legend in a strip of its own under the panels, never over a point.
        let entries = legend_entries(panels);
        let legend_font = legend::font();
        let measure = |text: &str| {
            root.estimate_text_size(text, &legend_font)
                .map_or(8 * text.len() as u32, |(w, _)| w)
        };
        let rows = legend::rows(&entries, width, measure);
        let (_, height) = root.dim_in_pixel();
        let (root, strip) = root.split_vertically(height - legend::height(rows.len()));
        legend::draw(&strip, &entries, &rows, measure)?;
        let areas = root.split_evenly((1, panels.len()));
        for ((area, panel), drawable) in areas.iter().zip(&data.panels).zip(panels) {
            if let Some(reason) = &panel.skipped {
                skipped_panel(area, &panel.caption, reason)?;
                continue;
            }
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

/// A panel whose cells were all skipped: its caption, and why in place of its curves.
fn skipped_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    caption: &str,
    reason: &str,
) -> std::result::Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let (width, height) = area.dim_in_pixel();
    let title: TextStyle = ("sans-serif", 20).into();
    // Centred, as plotters centres the captions of the panels that have curves.
    let caption_width = area
        .estimate_text_size(caption, &title)
        .map_or(0, |(w, _)| w);
    let left = (width.saturating_sub(caption_width) / 2) as i32;
    area.draw_text(caption, &title, (left, 12))
        .map_err(|e| err(&e))?;
    let body: TextStyle = ("sans-serif", 16).into();
    let text = format!("Not run here: {}", super::short_reason(reason));
    let lines = wrap_words(&text, |line: &str| {
        area.estimate_text_size(line, &body)
            .map_or(true, |(w, _)| w + 60 <= width)
    });
    let top = height as i32 / 2 - 10 * lines.len() as i32;
    for (i, line) in lines.iter().enumerate() {
        area.draw_text(line, &body, (30, top + 22 * i as i32))
            .map_err(|e| err(&e))?;
    }
    area.draw(&Rectangle::new(
        [(10, 45), (width as i32 - 10, height as i32 - 10)],
        ShapeStyle::from(&RGBColor(190, 190, 190)).stroke_width(1),
    ))
    .map_err(|e| err(&e))
}

/// One legend entry per series of the figure (in series order), none for a single unlabelled
/// curve.
fn legend_entries(panels: &[Drawable]) -> Vec<Entry> {
    let mut seen: Vec<(usize, Entry)> = Vec::new();
    for p in panels {
        let lines = p.curves.iter().map(|l| (l, false));
        for (line, baseline) in lines.chain(p.baselines.iter().map(|l| (l, true))) {
            if seen.iter().any(|(s, _)| *s == line.series) {
                continue;
            }
            let (color, marker) = style(line.series);
            let glyph = if baseline {
                Glyph::Baseline
            } else {
                Glyph::Curve(marker)
            };
            let label = line.label.clone();
            seen.push((
                line.series,
                Entry {
                    label,
                    color,
                    glyph,
                },
            ));
        }
    }
    seen.sort_by_key(|(s, _)| *s);
    if seen.len() == 1 && seen[0].1.label.is_empty() {
        return Vec::new();
    }
    seen.into_iter().map(|(_, e)| e).collect()
}

/// Ticks of a log axis over `[lo, hi]`: 1, 2 and 5 times the powers of ten in it, or every
/// digit times them when that gives fewer than three (a range inside one decade), thinned to
/// at most twelve.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let ticks = |mantissas: &[f64]| -> Vec<f64> {
        let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        (first..=last)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| *v >= lo && *v <= hi)
            .collect()
    };
    let mut out = ticks(&[1.0, 2.0, 5.0]);
    if out.len() < 3 {
        out = ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    }
    let step = out.len().div_ceil(12).max(1);
    out.into_iter().step_by(step).collect()
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
                .map_err(|e| err(&e))?;
        }
    }
    for line in &d.curves {
        let (color, marker) = style(line.series);
        let points = &line.points;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.x, p.mean)),
                color.stroke_width(2),
            ))
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

    #[test]
    fn log_axes_get_ticks_even_inside_one_decade() {
        assert_eq!(log_ticks(1.0, 1000.0).len(), 10);
        assert_eq!(log_ticks(90.0, 1100.0), vec![100.0, 200.0, 500.0, 1000.0]);
        // Inside one decade: every digit.
        assert_eq!(
            log_ticks(1500.0, 9000.0),
            vec![2000.0, 3000.0, 4000.0, 5000.0, 6000.0, 7000.0, 8000.0, 9000.0]
        );
        // Many decades: at most twelve.
        assert!(log_ticks(1e-6, 1e6).len() <= 12);
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
