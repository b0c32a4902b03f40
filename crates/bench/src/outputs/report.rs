//! The plain-text report printed after a run: each figure's numbers (series by x), the tables, the
//! claims, the paper's values beside ours, and the cells that were skipped.

use std::fmt::Write;
use std::path::Path;

use super::claim::ClaimOutcome;
use super::figure::{FigureData, RawFigure};
use super::paper::PaperOutcome;
use super::results::{CellValue, Coordinates, Results, Skipped};
use super::{describe, number, RenderContext};

/// Skipped cells listed one by one in a group without a shared coordinate.
const LISTED_SKIPPED: usize = 10;

pub(super) struct Report {
    text: String,
}

/// Rows of cells as left-aligned columns separated by two spaces.
fn aligned(rows: &[Vec<String>], indent: &str) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|j| {
            rows.iter()
                .filter_map(|r| r.get(j))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = indent.to_string();
        for (j, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if j + 1 < row.len() {
                let pad = widths[j] - cell.chars().count() + 2;
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

impl Report {
    pub fn new(ctx: &RenderContext) -> Report {
        let mut text = format!("{}\n", ctx.title);
        if !ctx.profile_note.is_empty() {
            let _ = writeln!(text, "({})", ctx.profile_note);
        }
        Report { text }
    }

    /// A figure not drawn because every one of its `cells` was skipped (listed at the end).
    pub fn figure_skipped(&mut self, path: &Path, cells: usize) {
        let _ = writeln!(
            self.text,
            "\nFigure {}: not drawn: all {cells} of its cells were skipped (reasons below)",
            path.display()
        );
    }

    pub fn figure(&mut self, spec: &RawFigure, data: &FigureData, path: &Path, notes: &[String]) {
        let x = spec.x.get_ref();
        let _ = writeln!(
            self.text,
            "\nFigure {}: {} by {x}, mean ± sd over repetitions (the figure's bars: {})",
            path.display(),
            spec.y.get_ref(),
            spec.error_bars
                .as_ref()
                .map_or("ci", |b| b.get_ref().as_str())
        );
        for panel in &data.panels {
            if !panel.caption.is_empty() {
                let _ = writeln!(self.text, "  {}", panel.caption);
            }
            let xs = FigureData::xs(panel);
            // Header: "SERIES \ X", then the x values.
            let corner = if data.series_columns.is_empty() {
                x.clone()
            } else {
                format!("{} \\ {x}", data.series_columns.join(", "))
            };
            let mut rows = vec![std::iter::once(corner)
                .chain(xs.iter().map(|v| match v {
                    CellValue::Empty => "—".to_string(),
                    v => v.to_string(),
                }))
                .collect::<Vec<_>>()];
            for curve in &panel.curves {
                let mut row = vec![curve.label.clone()];
                for v in &xs {
                    row.push(match curve.points.iter().find(|(x, _)| x == v) {
                        Some((_, s)) => format!("{} ± {}", number(s.mean), number(s.sd)),
                        None => "-".to_string(),
                    });
                }
                rows.push(row);
            }
            self.text.push_str(&aligned(&rows, "    "));
        }
        for n in &data.not_drawn {
            let column = data.panel_column.as_deref().unwrap_or("");
            let _ = writeln!(
                self.text,
                "  no panel for {column} = {}: {}",
                n.value, n.reason
            );
        }
        for note in notes {
            let _ = writeln!(self.text, "  note: {note}");
        }
    }

    pub fn table(&mut self, path: &Path, markdown: &str) {
        let _ = writeln!(self.text, "\nTable {}:\n", path.display());
        self.text.push_str(markdown);
    }

    pub fn claims(&mut self, outcomes: &[ClaimOutcome]) {
        if outcomes.is_empty() {
            return;
        }
        let _ = writeln!(self.text, "\nThe paper's claims, on our numbers:");
        for o in outcomes {
            let _ = writeln!(
                self.text,
                "  {}: {}\n    {}",
                o.verdict.label(),
                o.text,
                o.detail
            );
        }
    }

    pub fn paper_values(&mut self, outcomes: &[PaperOutcome]) {
        if outcomes.is_empty() {
            return;
        }
        let _ = writeln!(self.text, "\nBeside the paper:");
        let rows: Vec<Vec<String>> = outcomes
            .iter()
            .map(|p| {
                let over = format!(
                    "{} of {} over {}",
                    p.statistic,
                    p.metric,
                    if p.select.is_empty() {
                        "every cell".to_string()
                    } else {
                        p.select.clone()
                    }
                );
                vec![
                    format!("paper {}", p.paper),
                    match p.ours {
                        Some(v) => format!("ours {}", number(v)),
                        None => "ours: no cells selected".to_string(),
                    },
                    {
                        let over = if p.ours.is_some() {
                            format!("({over}, {} cells)", p.cells)
                        } else {
                            format!("({over})")
                        };
                        if p.note.is_empty() {
                            over
                        } else {
                            format!("{} {over}", p.note)
                        }
                    },
                ]
            })
            .collect();
        self.text.push_str(&aligned(&rows, "  "));
    }

    /// Skipped cells grouped by reason (a dataset that needs the network skips every cell it
    /// is in, for one reason): the reason once, then what the group's cells share, or the cells.
    pub fn skipped(&mut self, results: &Results) {
        let skipped = results.skipped_cells();
        if skipped.is_empty() {
            return;
        }
        let _ = writeln!(self.text, "\nSkipped cells ({}):", skipped.len());
        let mut groups: Vec<(&str, Vec<&(Coordinates, Skipped)>)> = Vec::new();
        for item in &skipped {
            match groups.iter_mut().find(|(r, _)| *r == item.1.reason) {
                Some((_, cells)) => cells.push(item),
                None => groups.push((&item.1.reason, vec![item])),
            }
        }
        let columns = &results.columns.coordinates;
        for (reason, cells) in groups {
            let runs: usize = cells.iter().map(|c| c.1.repetitions).sum();
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let shared: Vec<&String> = columns
                .iter()
                .filter(|c| {
                    let first = cells[0].0.get(*c);
                    !matches!(first, None | Some(CellValue::Empty))
                        && cells.iter().all(|cell| cell.0.get(*c) == first)
                })
                .collect();
            let _ = writeln!(
                self.text,
                "  {} cell{} ({runs} repetition{}){}: {reason}",
                cells.len(),
                plural(cells.len()),
                plural(runs),
                if shared.is_empty() || cells.len() == 1 {
                    String::new()
                } else {
                    format!(
                        ", all with {}",
                        describe(shared.iter().copied(), &cells[0].0)
                    )
                }
            );
            if shared.is_empty() || cells.len() == 1 {
                for cell in cells.iter().take(LISTED_SKIPPED) {
                    let _ = writeln!(self.text, "    {}", describe(columns, &cell.0));
                }
                if cells.len() > LISTED_SKIPPED {
                    let _ = writeln!(
                        self.text,
                        "    ... and {} more",
                        cells.len() - LISTED_SKIPPED
                    );
                }
            }
        }
    }

    pub fn finish(self) -> String {
        self.text
    }
}
