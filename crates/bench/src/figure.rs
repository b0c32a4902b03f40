//! Figures drawn from a results table with plotters: one panel per value of the panel column
//! (Fig. 1 of Pham & Pagh: p = 2, 3, 4), one curve per map and kernel, error bars of one standard
//! deviation over repetitions. Text is rendered from a font compiled into the binary, so a machine
//! without system fonts (CI) draws the same picture.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::error::{Error, Result};
use crate::summary::Summary;

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register() {
    REGISTER.call_once(|| {
        // The font is compiled in and known to parse; a failure would be a build defect.
        register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("embedded font does not parse"));
    });
}

/// Legend text of a curve: the map's abbreviation and the kernel, as in the paper's legends.
pub fn series_label(map_short: &str, degree: u32, offset: f64) -> String {
    if offset == 0.0 {
        format!("{map_short}, <x,y>^{degree}")
    } else {
        format!("{map_short}, ({offset} + <x,y>)^{degree}")
    }
}

fn short(map: &str) -> &str {
    crate::spec::MapKind::parse(map)
        .map(|m| m.short())
        .unwrap_or(map)
}

// Series are sorted (random-maclaurin before tensor-sketch, c = 0 before c = 1): blues for RM,
// reds for TS, darker for the homogeneous kernel.
const COLORS: [RGBColor; 6] = [
    RGBColor(31, 80, 180),
    RGBColor(100, 170, 230),
    RGBColor(200, 30, 30),
    RGBColor(255, 140, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Draws `summary` (metric by cell) to a PNG at `path`, written atomically.
pub fn draw(
    summary: &Summary,
    title: &str,
    x_label: &str,
    y_label: &str,
    path: &Path,
) -> Result<()> {
    register();
    let fail = |message: String| Error::Figure {
        path: path.to_path_buf(),
        message,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let tmp = dir.join(format!(
        ".{}.tmp.png",
        path.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("figure")
    ));

    let mut degrees: Vec<u32> = summary.cells.iter().map(|(k, _)| k.degree).collect();
    degrees.dedup();
    degrees.sort_unstable();
    degrees.dedup();
    let mut series: Vec<(String, u64)> = summary
        .cells
        .iter()
        .map(|(k, _)| (k.map.clone(), k.offset.to_bits()))
        .collect();
    series.sort();
    series.dedup();
    if degrees.is_empty() {
        return Err(fail("the results table has no rows".into()));
    }
    let x_max = summary
        .cells
        .iter()
        .map(|(k, _)| k.n_components)
        .max()
        .unwrap_or(1) as f64;

    {
        let root = BitMapBackend::new(&tmp, (600 * degrees.len() as u32, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        let root = root
            .titled(title, ("sans-serif", 24))
            .map_err(|e| fail(e.to_string()))?;
        for (area, &degree) in root.split_evenly((1, degrees.len())).iter().zip(&degrees) {
            let cells: Vec<_> = summary
                .cells
                .iter()
                .filter(|(k, _)| k.degree == degree)
                .collect();
            let y_max = cells
                .iter()
                .map(|(_, s)| s.mean + s.sd.max(0.0))
                .fold(0.0f64, f64::max)
                * 1.08;
            let mut chart = ChartBuilder::on(area)
                .caption(format!("p = {degree}"), ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d(0.0..x_max * 1.05, 0.0..y_max.max(1e-12))
                .map_err(|e| fail(e.to_string()))?;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_desc(y_label)
                .label_style(("sans-serif", 14))
                .draw()
                .map_err(|e| fail(e.to_string()))?;
            for (i, (map, offset_bits)) in series.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let offset = f64::from_bits(*offset_bits);
                let points: Vec<(f64, f64, f64)> = cells
                    .iter()
                    .filter(|(k, _)| &k.map == map && k.offset.to_bits() == *offset_bits)
                    .map(|(k, s)| {
                        (
                            k.n_components as f64,
                            s.mean,
                            if s.sd.is_finite() { s.sd } else { 0.0 },
                        )
                    })
                    .collect();
                if points.is_empty() {
                    continue;
                }
                chart
                    .draw_series(LineSeries::new(
                        points.iter().map(|p| (p.0, p.1)),
                        color.stroke_width(2),
                    ))
                    .map_err(|e| fail(e.to_string()))?
                    .label(series_label(short(map), degree, offset))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(points.iter().map(|p| {
                        ErrorBar::new_vertical(p.0, p.1 - p.2, p.1, p.1 + p.2, color.filled(), 8)
                    }))
                    .map_err(|e| fail(e.to_string()))?;
                chart
                    .draw_series(
                        points
                            .iter()
                            .map(|p| Circle::new((p.0, p.1), 3, color.filled())),
                    )
                    .map_err(|e| fail(e.to_string()))?;
            }
            chart
                .configure_series_labels()
                .label_font(("sans-serif", 14))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(|e| fail(e.to_string()))?;
        }
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
    Ok(())
}
