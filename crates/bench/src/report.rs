//! The text printed after a run: our numbers, the paper's beside them where the spec records them,
//! and the qualitative claims of the paper checked on our numbers.

use std::fmt::Write;

use crate::spec::{MapKind, RawPaperValue};
use crate::summary::{CellKey, Summary};

fn matches(key: &CellKey, select: &toml::Table) -> bool {
    select.iter().all(|(column, value)| match column.as_str() {
        "map" => value.as_str() == Some(key.map.as_str()),
        "degree" => value.as_integer() == Some(key.degree as i64),
        "offset" => value.as_float().or(value.as_integer().map(|v| v as f64)) == Some(key.offset),
        "n_components" => value.as_integer() == Some(key.n_components as i64),
        _ => false,
    })
}

/// Our value for a paper value: `statistic` ("max" or "mean") over the selected cells' means.
pub fn ours_for(summary: &Summary, paper: &RawPaperValue) -> Option<f64> {
    let means: Vec<f64> = summary
        .cells
        .iter()
        .filter(|(k, _)| matches(k, &paper.select))
        .map(|(_, s)| s.mean)
        .collect();
    if means.is_empty() {
        return None;
    }
    match paper.statistic.as_str() {
        "max" => Some(means.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        "mean" => Some(means.iter().sum::<f64>() / means.len() as f64),
        _ => None,
    }
}

/// For each (degree, offset): is Tensor Sketch's error below Random Maclaurin's at every D, and by
/// what factor at the smallest and largest D.
pub fn ts_below_rm(summary: &Summary) -> Vec<(u32, f64, bool, f64, f64)> {
    let mut out = Vec::new();
    let mut groups: Vec<(u32, u64)> = summary
        .cells
        .iter()
        .map(|(k, _)| (k.degree, k.offset.to_bits()))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    for (degree, bits) in groups {
        let curve = |map: MapKind| -> Vec<(usize, f64)> {
            summary
                .cells
                .iter()
                .filter(|(k, _)| {
                    k.degree == degree && k.offset.to_bits() == bits && k.map == map.name()
                })
                .map(|(k, s)| (k.n_components, s.mean))
                .collect()
        };
        let (ts, rm) = (
            curve(MapKind::TensorSketch),
            curve(MapKind::RandomMaclaurin),
        );
        if ts.is_empty() || ts.len() != rm.len() {
            continue;
        }
        let below = ts.iter().zip(&rm).all(|(t, r)| t.0 == r.0 && t.1 < r.1);
        let first = rm[0].1 / ts[0].1;
        let last = rm[rm.len() - 1].1 / ts[ts.len() - 1].1;
        out.push((degree, f64::from_bits(bits), below, first, last));
    }
    out
}

/// The whole report as text.
pub fn render(summary: &Summary, paper_values: &[RawPaperValue]) -> String {
    let mut s = String::new();
    let mut ds: Vec<usize> = summary.cells.iter().map(|(k, _)| k.n_components).collect();
    ds.sort_unstable();
    ds.dedup();
    let _ = writeln!(s, "\n{} (mean ± s.d. over repetitions)", summary.metric);
    let _ = write!(s, "{:<34}", "map, kernel");
    for d in &ds {
        let _ = write!(s, "{:>17}", format!("D={d}"));
    }
    let _ = writeln!(s);
    let mut last_series = None;
    for (key, _) in &summary.cells {
        let series = (key.degree, key.map.clone(), key.offset.to_bits());
        if last_series.as_ref() == Some(&series) {
            continue;
        }
        last_series = Some(series);
        let short = MapKind::parse(&key.map)
            .map(|m| m.short())
            .unwrap_or(&key.map);
        let _ = write!(
            s,
            "{:<34}",
            crate::figure::series_label(short, key.degree, key.offset)
        );
        for &d in &ds {
            let cell = CellKey {
                n_components: d,
                ..key.clone()
            };
            match summary.get(&cell) {
                Some(st) => {
                    let _ = write!(s, "{:>17}", format!("{:.4} ± {:.4}", st.mean, st.sd));
                }
                None => {
                    let _ = write!(s, "{:>17}", "-");
                }
            }
        }
        let _ = writeln!(s);
    }
    let claims = ts_below_rm(summary);
    if !claims.is_empty() {
        let _ = writeln!(s, "\nPaper's claim: TS error below RM's at every D, by a wide margin on homogeneous kernels.");
        for (degree, offset, below, first, last) in claims {
            let _ = writeln!(
                s,
                "  p = {degree}, c = {offset}: TS below RM at every D: {}; RM/TS error ratio {first:.1}x at the smallest D, {last:.1}x at the largest",
                if below { "yes" } else { "NO" }
            );
        }
    }
    if !paper_values.is_empty() {
        let _ = writeln!(
            s,
            "\nBeside the paper (only where its numbers are legible):"
        );
        for p in paper_values {
            let ours = ours_for(summary, p)
                .map(|v| format!("{v:.3}"))
                .unwrap_or_else(|| "n/a (not in this run)".into());
            let _ = writeln!(
                s,
                "  paper {:>8}  ours {:>8}  {} (ours: {} over {})",
                p.value,
                ours,
                p.note,
                p.statistic,
                p.select
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    s
}
