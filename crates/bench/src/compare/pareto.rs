//! The picture of the answer: every (map, D) of the sweep as a point of score against total time
//! (log scale), one colour per map, the exact kernel machine and the linear baseline as labelled
//! points, and the Pareto front (no other point both better and faster) joined by a line.

use std::path::Path;

use plotters::prelude::*;

use super::lines::{pareto, Line};
use crate::error::{Error, Result};
use crate::outputs::{color, register_embedded_font};
use rfbench_data::atomic::replace_file;

/// Draws the figure to `path` (replaced whole).
pub fn draw(lines: &[Line], score_label: &str, path: &Path) -> Result<()> {
    let fail = |e: String| Error::Experiment(format!("{}: {e}", path.display()));
    let ran: Vec<&Line> = lines.iter().filter(|l| !l.scores.is_empty()).collect();
    if ran.is_empty() {
        return Ok(());
    }
    register_embedded_font();
    let tmp = tempfile::Builder::new()
        .prefix("rfbench-pareto-")
        .suffix(".png")
        .tempfile()
        .map_err(|e| fail(e.to_string()))?;
    plot(lines, score_label, tmp.path()).map_err(fail)?;
    let png = std::fs::read(tmp.path()).map_err(|e| Error::io(tmp.path(), e))?;
    replace_file(path, &png).map_err(|e| Error::io(path, e))
}

fn plot(lines: &[Line], score_label: &str, file: &Path) -> std::result::Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let ran: Vec<&Line> = lines.iter().filter(|l| !l.scores.is_empty()).collect();
    let time = |l: &Line| l.seconds.max(1e-3);
    let (t0, t1) = ran.iter().fold((f64::MAX, 0f64), |(a, b), l| {
        (a.min(time(l)), b.max(time(l)))
    });
    let (s0, s1) = ran.iter().fold((f64::MAX, f64::MIN), |(a, b), l| {
        (a.min(l.mean()), b.max(l.mean()))
    });
    let pad = ((s1 - s0) * 0.05).max(0.1);
    let root = BitMapBackend::new(file, (720, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Score against time: the Pareto front joined",
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
        .y_desc(score_label)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    let mut names: Vec<String> = Vec::new();
    for l in &ran {
        if !names.contains(&l.series()) {
            names.push(l.series());
        }
    }
    for (k, label) in names.into_iter().enumerate() {
        let c = color(k);
        let points: Vec<(f64, f64)> = ran
            .iter()
            .filter(|l| l.series() == label)
            .map(|l| (time(l), l.mean()))
            .collect();
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 5, c.filled())))
            .map_err(|e| err(&e))?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, c.filled()));
    }
    let front = pareto(lines);
    let mut on_front: Vec<(f64, f64)> = lines
        .iter()
        .zip(front)
        .filter(|(_, f)| *f)
        .map(|(l, _)| (time(l), l.mean()))
        .collect();
    on_front.sort_by(|a, b| a.0.total_cmp(&b.0));
    chart
        .draw_series(LineSeries::new(on_front, BLACK.stroke_width(1)))
        .map_err(|e| err(&e))?
        .label("Pareto front")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
