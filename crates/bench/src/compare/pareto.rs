//! The picture of the answer: every (map, D) of the sweep as a point of score against total time
//! (log scale), each point labelled with its D, each map in its catalogue colour and legend
//! label (the registry's), the exact kernel machine and the linear baseline as labelled points,
//! and the Pareto front (no other point both better and faster) joined by a line. Regression
//! plots the RMSE in the targets' units (lower is better).

use std::path::Path;

use plotters::prelude::*;

use super::lines::{pareto, Line};
use crate::error::{Error, Result};
use crate::outputs::{map_color, register_embedded_font};
use rfbench_data::atomic::replace_file;

/// Draws the figure to `path` (replaced whole); `regression` puts the RMSE on the y axis.
pub fn draw(lines: &[Line], regression: bool, path: &Path) -> Result<()> {
    let fail = |e: String| Error::Experiment(format!("{}: {e}", path.display()));
    if lines.iter().all(|l| l.scores.is_empty()) {
        return Ok(());
    }
    register_embedded_font();
    let tmp = tempfile::Builder::new()
        .prefix("rfbench-pareto-")
        .suffix(".png")
        .tempfile()
        .map_err(|e| fail(e.to_string()))?;
    plot(lines, regression, tmp.path()).map_err(fail)?;
    let png = std::fs::read(tmp.path()).map_err(|e| Error::io(tmp.path(), e))?;
    replace_file(path, &png).map_err(|e| Error::io(path, e))
}

/// A series of the figure: its legend text, its colour (the map's across the catalogue: its
/// place in the registry, as the catalogue's figures number a map series) and whether it is a
/// variant of its map (RFF's phase form: the map's colour, triangles instead of circles).
fn series(line: &Line) -> (String, RGBColor, bool) {
    let found = line.registry_series();
    let label = match (line.is_map(), found) {
        (true, Some(series)) => series.label().to_string(),
        _ => line.series(),
    };
    let map = found.map_or(line.map.as_str(), |s| s.map.name);
    let variant = found.is_some_and(|s| s.variant.is_some());
    (
        label,
        map_color(map, rfbench_registry::map_names().len()),
        variant,
    )
}

/// A point of a series: a circle, or for a map's variant a triangle.
fn marker<DB: DrawingBackend>(
    (x, y): (f64, f64),
    color: RGBColor,
    variant: bool,
) -> DynElement<'static, DB, (f64, f64)> {
    match variant {
        true => TriangleMarker::new((x, y), 7, color.filled()).into_dyn(),
        false => Circle::new((x, y), 5, color.filled()).into_dyn(),
    }
}

fn plot(lines: &[Line], regression: bool, file: &Path) -> std::result::Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let ran: Vec<&Line> = lines.iter().filter(|l| !l.scores.is_empty()).collect();
    let time = |l: &Line| l.seconds.max(1e-3);
    let (t0, t1) = ran.iter().fold((f64::MAX, 0f64), |(a, b), l| {
        (a.min(time(l)), b.max(time(l)))
    });
    let (s0, s1) = ran.iter().fold((f64::MAX, f64::MIN), |(a, b), l| {
        (a.min(l.plotted()), b.max(l.plotted()))
    });
    let pad = ((s1 - s0) * 0.08).max(if regression { 1e-6 } else { 0.1 });
    let y_label = match regression {
        true => "Test RMSE (targets' units, lower is better)",
        false => "Test accuracy (%)",
    };
    let root = BitMapBackend::new(file, (760, 580)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Score against time, labelled with D; the Pareto front joined",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((t0 / 1.5..t1 * 1.5).log_scale(), s0 - pad..s1 + pad)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("Map + train + predict (s), mean")
        .y_desc(y_label)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    let mut drawn: Vec<String> = Vec::new();
    for l in &ran {
        let (label, c, variant) = series(l);
        if drawn.contains(&label) {
            continue;
        }
        let points: Vec<(f64, f64, usize)> = ran
            .iter()
            .filter(|m| series(m).0 == label)
            .map(|m| (time(m), m.plotted(), m.d))
            .collect();
        chart
            .draw_series(points.iter().map(|&(x, y, _)| marker((x, y), c, variant)))
            .map_err(|e| err(&e))?
            .label(label.clone())
            .legend(move |(x, y)| match variant {
                true => TriangleMarker::new((x + 10, y), 7, c.filled()).into_dyn(),
                false => Circle::new((x + 10, y), 5, c.filled()).into_dyn(),
            });
        let numbered = points.iter().filter(|(_, _, d)| *d > 0);
        chart
            .draw_series(numbered.map(|&(x, y, d)| {
                EmptyElement::at((x, y)) + Text::new(d.to_string(), (6, -14), ("sans-serif", 11))
            }))
            .map_err(|e| err(&e))?;
        drawn.push(label);
    }
    let front = pareto(lines);
    let mut on_front: Vec<(f64, f64)> = lines
        .iter()
        .zip(front)
        .filter(|(_, f)| *f)
        .map(|(l, _)| (time(l), l.plotted()))
        .collect();
    on_front.sort_by(|a, b| a.0.total_cmp(&b.0));
    chart
        .draw_series(LineSeries::new(on_front, BLACK.stroke_width(1)))
        .map_err(|e| err(&e))?
        .label("Pareto front")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    chart
        .configure_series_labels()
        .position(match regression {
            true => SeriesLabelPosition::UpperRight,
            false => SeriesLabelPosition::LowerRight,
        })
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
