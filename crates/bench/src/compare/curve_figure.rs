//! The exact kernel machine's learning curve as a picture: its score against the training rows
//! it trained on (log scale), the sizes joined, and each map's last D on the exact machine's
//! rows and on all rows (labelled with D), so that the gap at equal rows and what the maps gain
//! from the rest of the rows read off one figure. Drawn where the exact machine ran on at least
//! two sizes.

use std::path::Path;

use super::lines::Line;
use super::pareto::{score_label, style};
use crate::error::{Error, Result};
use crate::outputs::{Scatter, ScatterPoint, ScatterSeries};
use rfbench_data::atomic::replace_file;

/// The figure's name among the sweep's figures.
pub const CURVE: &str = "curve";

/// Draws the figure to `path` (replaced whole) when there is a curve to draw.
pub fn draw(
    lines: &[Line],
    same_rows: &[Line],
    n_train: usize,
    regression: bool,
    path: &Path,
) -> Result<()> {
    let Some(scatter) = figure(lines, same_rows, n_train, regression) else {
        return Ok(());
    };
    let png = crate::outputs::scatter_png(&scatter)
        .map_err(|e| Error::Experiment(format!("{}: {e}", path.display())))?;
    replace_file(path, &png).map_err(|e| Error::io(path, e))
}

/// The exact machine's sizes (0: all `n_train` rows) as one series joined by the front line, and
/// each map of `same_rows` at its rows and, from `lines`, on all rows; `None` below two sizes.
pub fn figure(
    lines: &[Line],
    same_rows: &[Line],
    n_train: usize,
    regression: bool,
) -> Option<Scatter> {
    let rows = |l: &Line| if l.train_size == 0 { n_train } else { l.train_size } as f64;
    let exact: Vec<&Line> = lines
        .iter()
        .filter(|l| !l.is_map() && !l.is_baseline() && !l.scores.is_empty())
        .collect();
    if exact.len() < 2 {
        return None;
    }
    let point = |l: &Line, label: Option<String>| ScatterPoint {
        x: rows(l),
        y: l.plotted(),
        label,
    };
    let (label, color, marker) = style(exact[0]);
    let mut series = vec![ScatterSeries {
        label,
        color,
        marker,
        points: exact.iter().map(|l| point(l, None)).collect(),
    }];
    for map in same_rows.iter().filter(|l| !l.scores.is_empty()) {
        let all = lines
            .iter()
            .find(|l| l.map == map.map && l.d == map.d && l.train_size == 0);
        let (label, color, marker) = style(map);
        let label = format!("{label}, D = {}", map.d);
        let points = std::iter::once(map)
            .chain(all.filter(|l| !l.scores.is_empty()))
            .map(|l| point(l, Some(l.d.to_string())))
            .collect();
        series.push(ScatterSeries {
            label,
            color,
            marker,
            points,
        });
    }
    let mut front: Vec<(f64, f64)> = exact.iter().map(|l| (rows(l), l.plotted())).collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(Scatter {
        title: "The exact machine's learning curve; each map on its rows and on all".into(),
        x_label: "Training rows".into(),
        y_label: score_label(regression).into(),
        series,
        front,
        front_label: "exact kernel machine, by training rows".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::lines::tests::line;

    fn at(mut l: Line, size: usize) -> Line {
        l.train_size = size;
        l
    }

    #[test]
    fn the_curve_joins_the_exact_sizes_and_sets_each_map_at_two_sizes() {
        let exact = rfbench_registry::exact_map().name;
        let map = crate::compare::test_support::two_maps(false).maps[0].name();
        let lines = vec![
            at(line(exact, 0, &[91.0, 92.0], 9.0), 2000),
            at(line(exact, 0, &[89.0, 90.0], 2.0), 1000),
            line(map, 256, &[88.0, 89.0], 1.0),
        ];
        let same = vec![at(line(map, 256, &[86.0, 87.0], 0.5), 2000)];
        let figure = figure(&lines, &same, 8000, false).unwrap();
        assert_eq!(figure.front, [(1000.0, 89.5), (2000.0, 91.5)]);
        assert_eq!(figure.series.len(), 2);
        let xy: Vec<(f64, f64)> = figure.series[1].points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(xy, [(2000.0, 86.5), (8000.0, 88.5)]);
        assert!(figure.series[1].label.ends_with("D = 256"));
        // One size is no curve.
        assert!(super::figure(&lines[..1], &same, 8000, false).is_none());
    }
}
