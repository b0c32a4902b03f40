//! The picture of the answer: every (map, D) of the sweep as a point of score against total time
//! (log scale), each point labelled with its D, each map in its catalogue colour and legend
//! label (the registry's), the exact kernel machine and the linear baseline as labelled points,
//! and the Pareto front (no other point both better and faster) joined by a line. Regression
//! plots the RMSE in the targets' units (lower is better). Drawn by outputs' scatter figure.

use std::path::Path;

use super::lines::{pareto, Line};
use crate::error::{Error, Result};
use crate::outputs::{map_color, Marker, Scatter, ScatterPoint, ScatterSeries};
use rfbench_data::atomic::replace_file;

/// Draws the figure to `path` (replaced whole); `regression` puts the RMSE on the y axis.
pub fn draw(lines: &[Line], regression: bool, path: &Path) -> Result<()> {
    if lines.iter().all(|l| l.scores.is_empty()) {
        return Ok(());
    }
    let png = crate::outputs::scatter_png(&figure(lines, regression))
        .map_err(|e| Error::Experiment(format!("{}: {e}", path.display())))?;
    replace_file(path, &png).map_err(|e| Error::io(path, e))
}

/// The figure of `lines`: one series per map (or variant), baseline and exact machine, in the
/// order they first appear.
pub fn figure(lines: &[Line], regression: bool) -> Scatter {
    let time = |l: &Line| l.seconds.max(1e-3);
    let ran: Vec<&Line> = lines.iter().filter(|l| !l.scores.is_empty()).collect();
    let mut series: Vec<ScatterSeries> = Vec::new();
    for l in &ran {
        let (label, color, marker) = style(l);
        let point = ScatterPoint {
            x: time(l),
            y: l.plotted(),
            label: (l.d > 0).then(|| l.d.to_string()),
        };
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push(point),
            None => series.push(ScatterSeries {
                label,
                color,
                marker,
                points: vec![point],
            }),
        }
    }
    let front = lines
        .iter()
        .zip(pareto(lines))
        .filter(|(_, f)| *f)
        .map(|(l, _)| (time(l), l.plotted()))
        .collect();
    Scatter {
        title: "Score against time, labelled with D; the Pareto front joined".into(),
        x_label: "Map + train + predict (s), mean".into(),
        y_label: score_label(regression).into(),
        series,
        front,
        front_label: "Pareto front".into(),
    }
}

/// The score axis: the RMSE in the targets' units for regression, else the accuracy.
pub(super) fn score_label(regression: bool) -> &'static str {
    match regression {
        true => "Test RMSE (targets' units, lower is better)",
        false => "Test accuracy (%)",
    }
}

/// A series' legend text, its colour (the map's across the catalogue: its place in the
/// registry, as the catalogue's figures number a map series) and marker (a triangle for a
/// variant of its map, RFF's phase form, in the map's colour).
pub(super) fn style(line: &Line) -> (String, plotters::style::RGBColor, Marker) {
    let found = line.registry_series();
    let label = match (line.is_map(), found) {
        (true, Some(series)) => series.label().to_string(),
        _ => line.series(),
    };
    let map = found.map_or(line.map.as_str(), |s| s.map.name);
    let marker = match found.is_some_and(|s| s.variant.is_some()) {
        true => Marker::Triangle,
        false => Marker::Circle,
    };
    let color = map_color(map, rfbench_registry::map_names().len());
    (label, color, marker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::lines::tests::{exact_and_a_map, line};

    /// One series a map (or machine), each point labelled with its D (none for the exact
    /// machine), and the front through the points nothing beats on both score and time.
    #[test]
    fn the_figure_has_a_series_per_map_and_the_front() {
        let mut lines = exact_and_a_map();
        // A second D of map-a, slower and worse than D = 64: off the front.
        lines.push(line("map-a", 128, &[89.0, 90.0, 88.0, 89.0], 2.0));
        let figure = figure(&lines, false);
        let exact = figure.series.iter().find(|s| s.points.len() == 1).unwrap();
        assert_eq!(exact.points[0].label, None);
        assert_eq!((exact.points[0].x, exact.points[0].y), (50.0, 90.0));
        let map = figure.series.iter().find(|s| s.points.len() == 2).unwrap();
        let labels: Vec<_> = map.points.iter().map(|p| p.label.as_deref()).collect();
        assert_eq!(labels, [Some("64"), Some("128")]);
        assert_eq!(figure.series.len(), 2);
        let front: Vec<(f64, f64)> = figure.front.iter().map(|&(x, y)| (x, y.round())).collect();
        assert_eq!(front, [(50.0, 90.0), (1.0, 90.0)], "{:?}", figure.front);
    }
}
