//! A scatter figure: points in series (each its colour and marker), each point labelled, and a
//! front joined by a line, over a log x axis. compare's Pareto figure (score against time) is
//! one. Drawn as the spec figures are ([`super::plot`]): the legend in a strip of its own under
//! the plot, never over a point; log ticks inside a decade too ([`super::axis::log_ticks`]);
//! PNG bytes from a private temporary file, so that the caller replaces the output whole.

use plotters::prelude::*;

use super::axis::{log_ticks, padded, tick};
use super::legend::{self, Entry, Glyph, Marker};

/// One point, and the text written beside it (compare's: the point's D).
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPoint {
    pub x: f64,
    pub y: f64,
    pub label: Option<String>,
}

/// One series of points.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterSeries {
    pub label: String,
    pub color: RGBColor,
    pub marker: Marker,
    pub points: Vec<ScatterPoint>,
}

/// The figure: its title, axes' labels, series and front (joined in increasing x; empty: none).
#[derive(Debug, Clone, PartialEq)]
pub struct Scatter {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<ScatterSeries>,
    pub front: Vec<(f64, f64)>,
    pub front_label: String,
}

const WIDTH: u32 = 760;
const HEIGHT: u32 = 580;

/// The figure as PNG bytes (`Err`: what plotters or the temporary file said).
pub fn png(scatter: &Scatter) -> Result<Vec<u8>, String> {
    super::plot::register_embedded_font();
    let tmp = tempfile::Builder::new()
        .prefix("rfbench-scatter-")
        .suffix(".png")
        .tempfile()
        .map_err(|e| format!("{}: {e}", std::env::temp_dir().display()))?;
    draw(scatter, tmp.path())?;
    std::fs::read(tmp.path()).map_err(|e| format!("{}: {e}", tmp.path().display()))
}

/// The legend's entries: each series' marker, then the front's line.
fn entries(scatter: &Scatter) -> Vec<Entry> {
    let mut out: Vec<Entry> = scatter
        .series
        .iter()
        .map(|s| Entry {
            label: s.label.clone(),
            color: s.color,
            glyph: Glyph::Point(s.marker),
        })
        .collect();
    if !scatter.front.is_empty() {
        out.push(Entry {
            label: scatter.front_label.clone(),
            color: BLACK,
            glyph: Glyph::Line,
        });
    }
    out
}

fn draw(scatter: &Scatter, file: &std::path::Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let points = || scatter.series.iter().flat_map(|s| &s.points);
    let xs: Vec<f64> = points().map(|p| p.x).collect();
    let ys: Vec<f64> = points().map(|p| p.y).collect();
    let (x0, x1) = padded(&xs, true);
    let (y0, y1) = padded(&ys, false);
    let root = BitMapBackend::new(file, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(&scatter.title, ("sans-serif", 20))
        .map_err(|e| err(&e))?;
    let entries = entries(scatter);
    let font = legend::font();
    let measure = |text: &str| {
        root.estimate_text_size(text, &font)
            .map_or(8 * text.len() as u32, |(w, _)| w)
    };
    let rows = legend::rows(&entries, WIDTH, measure);
    let (_, height) = root.dim_in_pixel();
    let (plot, strip) = root.split_vertically(height - legend::height(rows.len()));
    legend::draw(&strip, &entries, &rows, measure)?;
    let x_range = (x0..x1).log_scale().with_key_points(log_ticks(x0, x1));
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, y0..y1)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(scatter.x_label.as_str())
        .y_desc(scatter.y_label.as_str())
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    let mut front = scatter.front.clone();
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    chart
        .draw_series(LineSeries::new(front, BLACK.stroke_width(1)))
        .map_err(|e| err(&e))?;
    for series in &scatter.series {
        let (color, marker) = (series.color, series.marker);
        chart
            .draw_series(series.points.iter().map(|p| {
                let at = (p.x, p.y);
                let text = p.label.clone().unwrap_or_default();
                EmptyElement::at(at)
                    + point_marker(marker, color)
                    + Text::new(text, (6, -14), ("sans-serif", 11))
            }))
            .map_err(|e| err(&e))?;
    }
    plot.present().map_err(|e| err(&e))
}

/// A point's marker, drawn relative to the point.
fn point_marker<DB: DrawingBackend>(
    marker: Marker,
    color: RGBColor,
) -> DynElement<'static, DB, (i32, i32)> {
    match marker {
        Marker::Triangle => TriangleMarker::new((0, 0), 7, color.filled()).into_dyn(),
        Marker::Square => Rectangle::new([(-4, -4), (4, 4)], color.filled()).into_dyn(),
        Marker::Cross => Cross::new((0, 0), 5, color.stroke_width(2)).into_dyn(),
        Marker::Circle => Circle::new((0, 0), 5, color.filled()).into_dyn(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scatter(front: Vec<(f64, f64)>) -> Scatter {
        let point = |x: f64, y: f64, d: &str| ScatterPoint {
            x,
            y,
            label: Some(d.to_string()),
        };
        Scatter {
            title: "score against time".into(),
            x_label: "s".into(),
            y_label: "%".into(),
            series: vec![ScatterSeries {
                label: "a".into(),
                color: RGBColor(200, 0, 0),
                marker: Marker::Circle,
                points: vec![point(0.5, 80.0, "64"), point(2.0, 90.0, "256")],
            }],
            front,
            front_label: "front".into(),
        }
    }

    /// The legend lists the front only when there is one.
    #[test]
    fn the_legend_has_each_series_and_the_front() {
        let labels =
            |s: &Scatter| -> Vec<String> { entries(s).into_iter().map(|e| e.label).collect() };
        assert_eq!(labels(&scatter(vec![(0.5, 80.0)])), ["a", "front"]);
        assert_eq!(labels(&scatter(Vec::new())), ["a"]);
    }

    /// A drawn figure is a PNG of the figure's size.
    #[test]
    fn the_figure_is_a_png() {
        let bytes = png(&scatter(vec![(0.5, 80.0), (2.0, 90.0)])).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), (WIDTH, HEIGHT));
    }
}
