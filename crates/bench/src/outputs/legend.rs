//! A figure's legend, drawn in a strip of its own under the panels: never over a point, one
//! legend for every panel (a series has one colour and marker in all of them), entries packed
//! left to right in rows as wide as the figure.

use plotters::coord::Shift;
use plotters::prelude::*;

/// How an entry is drawn: a curve's line and marker, a baseline's dashed line, the ring
/// around a paper's value, a scatter's marker alone, or a plain line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Glyph {
    Curve(Marker),
    /// A baseline, dashed as [`baseline_dash`] says for a neutral colour of its kind.
    Baseline(Dash),
    Paper,
    Point(Marker),
    Line,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Triangle,
    Square,
    Cross,
}

/// A dashed line's pattern in pixels: (dash, gap); `None` is solid.
pub type Dash = Option<(u32, u32)>;

/// The line of a curve with `marker`: the first series of a colour solid, the others of the same
/// colour dashed, each marker its own pattern, so that series of one map differ by more than a
/// small marker.
pub fn curve_dash(marker: Marker) -> Dash {
    match marker {
        Marker::Circle => None,
        Marker::Triangle => Some((10, 6)),
        Marker::Square => Some((3, 4)),
        Marker::Cross => Some((16, 4)),
    }
}

/// A baseline's pattern: long dashes for the exact kernel machine, short ones for the raw
/// inputs' model, so that two baselines at nearly one value stay two lines.
pub fn baseline_dash(exact: bool) -> Dash {
    match exact {
        true => Some((10, 6)),
        false => Some((3, 3)),
    }
}

/// A horizontal sample line in `area` from `x` to `x + SAMPLE` at `y`, solid or dashed.
fn sample<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    dash: Dash,
    color: RGBColor,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (on, off) = dash.map_or((SAMPLE, 0), |(a, b)| (a as i32, b as i32));
    let mut x0 = x;
    while x0 < x + SAMPLE {
        let x1 = (x0 + on).min(x + SAMPLE);
        area.draw(&PathElement::new(
            vec![(x0, y), (x1, y)],
            color.stroke_width(2),
        ))
        .map_err(err)?;
        x0 = x1 + off;
    }
    Ok(())
}

/// One series in the legend.
#[derive(Debug, Clone)]
pub struct Entry {
    pub label: String,
    pub color: RGBColor,
    pub glyph: Glyph,
}

const FONT_SIZE: u32 = 15;
const ROW_HEIGHT: u32 = 24;
/// The line sample's length and the gap before the label.
const SAMPLE: i32 = 30;
const GAP: i32 = 8;
/// Space between two entries of a row.
const SPACING: i32 = 24;

/// Entries packed into rows no wider than `width`, by their text widths (`measure`).
pub fn rows(entries: &[Entry], width: u32, measure: impl Fn(&str) -> u32) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = 0i32;
    for (i, e) in entries.iter().enumerate() {
        let w = SAMPLE + GAP + measure(&e.label) as i32 + SPACING;
        match rows.last_mut() {
            Some(row) if used + w <= width as i32 - 20 => {
                row.push(i);
                used += w;
            }
            _ => {
                rows.push(vec![i]);
                used = w;
            }
        }
    }
    rows
}

/// The strip's height for `rows` rows (none: no strip).
pub fn height(rows: usize) -> u32 {
    if rows == 0 {
        0
    } else {
        rows as u32 * ROW_HEIGHT + 12
    }
}

pub fn font() -> TextStyle<'static> {
    ("sans-serif", FONT_SIZE).into()
}

/// A marker of `glyph` at `at`, in `color`.
pub fn marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    marker: Marker,
    color: RGBColor,
    at: (i32, i32),
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    match marker {
        Marker::Circle => area.draw(&Circle::new(at, 5, color.filled())),
        Marker::Triangle => area.draw(&TriangleMarker::new(at, 7, color.filled())),
        Marker::Square => area.draw(&Rectangle::new(
            [(at.0 - 5, at.1 - 5), (at.0 + 5, at.1 + 5)],
            color.filled(),
        )),
        Marker::Cross => area.draw(&Cross::new(at, 6, color.stroke_width(2))),
    }
    .map_err(err)
}

/// Draws `entries` in `rows` into `area` (the strip under the panels).
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    rows: &[Vec<usize>],
    measure: impl Fn(&str) -> u32,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let font = font();
    for (r, row) in rows.iter().enumerate() {
        let y = 6 + r as i32 * ROW_HEIGHT as i32 + ROW_HEIGHT as i32 / 2;
        let mut x = 16;
        for &i in row {
            let e = &entries[i];
            match e.glyph {
                Glyph::Curve(m) => {
                    sample(area, (x, y), curve_dash(m), e.color)?;
                    marker(area, m, e.color, (x + SAMPLE / 2, y))?;
                }
                Glyph::Paper => {
                    area.draw(&Circle::new(
                        (x + SAMPLE / 2, y),
                        7,
                        e.color.stroke_width(2),
                    ))
                    .map_err(err)?;
                }
                Glyph::Point(m) => marker(area, m, e.color, (x + SAMPLE / 2, y))?,
                Glyph::Line => {
                    area.draw(&PathElement::new(
                        vec![(x, y), (x + SAMPLE, y)],
                        e.color.stroke_width(1),
                    ))
                    .map_err(err)?;
                }
                Glyph::Baseline(dash) => sample(area, (x, y), dash, e.color)?,
            }
            area.draw_text(
                &e.label,
                &font,
                (x + SAMPLE + GAP, y - FONT_SIZE as i32 / 2 - 1),
            )
            .map_err(err)?;
            x += SAMPLE + GAP + measure(&e.label) as i32 + SPACING;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(label: &str) -> Entry {
        Entry {
            label: label.into(),
            color: RGBColor(0, 0, 0),
            glyph: Glyph::Baseline(None),
        }
    }

    #[test]
    fn entries_pack_into_rows_no_wider_than_the_figure() {
        let entries: Vec<Entry> = ["a", "bb", "ccc", "dddd"]
            .iter()
            .map(|l| entry(l))
            .collect();
        // Each entry takes 30 + 8 + 10 x len + 24 pixels; 200 - 20 px fit two short ones.
        let rows = rows(&entries, 200, |t| 10 * t.len() as u32);
        assert_eq!(rows, vec![vec![0, 1], vec![2], vec![3]]);
        assert_eq!(height(rows.len()), 3 * 24 + 12);
        assert_eq!(height(0), 0);
        // A label wider than the figure still gets a row of its own.
        let wide = rows_of(&[entry("x")], 10);
        assert_eq!(wide, vec![vec![0]]);
    }

    fn rows_of(entries: &[Entry], width: u32) -> Vec<Vec<usize>> {
        rows(entries, width, |t| 10 * t.len() as u32)
    }
}
