//! `[[tables]]`: a metric as a Markdown table, rows and columns made of coordinate values, each
//! cell formatted from its statistics (`{mean:.2} ± {sd:.2}`, `{train_seconds.mean:.1}`), the
//! paper's number beside ours where the spec records it.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::markdown;
use super::results::{CellStats, CellValue, Coordinates, Results, Skipped, Stats};
use super::validate::{parse_template, Checker, Piece, RawSelector};
use super::{describe, name, selects, CellProblem, Drawing, Labels, Output, RenderContext};
use crate::error::{Error, Result};

/// One `[[tables]]` entry as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawTable {
    /// `results/SPEC/PROFILE.NAME.md`; without a name `PROFILE.md` (one table at most).
    pub name: Option<Spanned<String>>,
    /// Coordinates whose values make the rows (one leading column each).
    pub rows: Spanned<Vec<Spanned<String>>>,
    /// Coordinates whose values make the columns; none: a single column.
    #[serde(default)]
    pub columns: Vec<Spanned<String>>,
    /// The metric in the cells.
    pub value: Spanned<String>,
    /// Cell template; default [`DEFAULT_FORMAT`].
    pub format: Option<Spanned<String>>,
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "RawSelector::is_empty"
    )]
    pub filter: RawSelector,
    pub title: Option<String>,
    #[serde(default)]
    pub paper: Vec<RawPaperCell>,
    /// The profiles that draw this output (`"full"`, `"quick"`, a named one); default: every
    /// profile.
    #[serde(default)]
    pub profiles: Option<Spanned<Vec<String>>>,
}

impl Output for RawTable {
    fn section(&self) -> &'static str {
        "tables"
    }

    fn span(&self) -> Range<usize> {
        self.rows.span()
    }

    fn profiles(&self) -> Option<&Spanned<Vec<String>>> {
        self.profiles.as_ref()
    }

    fn validate(&self, c: &Checker, key: &str) -> Result<()> {
        validate(c, key, self)
    }

    /// A coordinate that varies but is in none of `rows`, `columns` and `where`: two cells
    /// would fall in one table cell (it cost a 67-minute run once, found after it).
    fn cell_problem(&self, cells: &[Coordinates], profile: &str) -> Option<CellProblem> {
        let (cell, differing) = colliding_cell(self, cells)?;
        let placed: Vec<&String> = self
            .rows
            .get_ref()
            .iter()
            .chain(&self.columns)
            .map(|n| n.get_ref())
            .collect();
        Some(CellProblem {
            field: "rows".into(),
            span: self.rows.span(),
            message: format!(
                "two cells of the {profile} profile's grid fall in one table cell ({}), \
                 differing in {differing:?}; add those to `rows` or `columns`, or fix them with \
                 `where`",
                describe(placed.into_iter(), cell)
            ),
        })
    }

    fn render(
        &self,
        key: &str,
        results: &Results,
        ctx: &RenderContext,
        drawing: &mut Drawing<'_>,
    ) -> Result<()> {
        let markdown = render(results, self, ctx, key)?;
        let path = ctx.files.table(name(&self.name));
        drawing.out.write(&path, markdown.as_bytes())?;
        drawing.report.table(&path, &markdown);
        drawing.tables.push(path);
        Ok(())
    }
}

/// The paper's number for one cell of a table.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawPaperCell {
    /// A value for each of the table's `rows` coordinates.
    pub row: Spanned<RawSelector>,
    /// A value for each of the table's `columns` coordinates (none without `columns`).
    pub column: Option<Spanned<RawSelector>>,
    /// As the paper prints it: a string ("84.33 ± 0.12") or a number.
    pub value: Spanned<toml::Value>,
}

pub const DEFAULT_FORMAT: &str = "{mean:.4} ± {sd:.4}";

/// Statistics a cell template can name.
pub const STATISTICS: [&str; 6] = ["mean", "sd", "se", "count", "min", "max"];

/// Checks one table's rows and columns, value, format, `where` and paper cells.
fn validate(c: &Checker, key: &str, t: &RawTable) -> Result<()> {
    if t.rows.get_ref().is_empty() {
        return Err(c.error(&format!("{key}.rows"), &t.rows.span(), "the list is empty"));
    }
    let mut seen = BTreeSet::new();
    let listed = t
        .rows
        .get_ref()
        .iter()
        .enumerate()
        .map(|(j, r)| (format!("{key}.rows[{j}]"), r))
        .chain(
            t.columns
                .iter()
                .enumerate()
                .map(|(j, r)| (format!("{key}.columns[{j}]"), r)),
        );
    for (k, column) in listed {
        c.coordinate(&k, column)?;
        if !seen.insert(column.get_ref()) {
            return Err(c.error(
                &k,
                &column.span(),
                format!("{:?} is listed twice in rows and columns", column.get_ref()),
            ));
        }
    }
    c.metric(&format!("{key}.value"), &t.value)?;
    if let Some(format) = &t.format {
        check_format(c, &format!("{key}.format"), format)?;
    }
    c.selector(&format!("{key}.where"), &t.filter)?;
    let row_columns: BTreeSet<&String> = t.rows.get_ref().iter().map(|r| r.get_ref()).collect();
    let column_columns: BTreeSet<&String> = t.columns.iter().map(|r| r.get_ref()).collect();
    for (j, p) in t.paper.iter().enumerate() {
        let k = format!("{key}.paper[{j}]");
        for (part, selector, wanted) in [
            ("row", Some(&p.row), &row_columns),
            ("column", p.column.as_ref(), &column_columns),
        ] {
            let k = format!("{k}.{part}");
            let empty = RawSelector::new();
            let (selector, span) = match selector {
                Some(s) => (s.get_ref(), s.span()),
                None => (&empty, p.row.span()),
            };
            c.selector(&k, selector)?;
            let named: BTreeSet<&String> = selector.keys().map(|k| k.get_ref()).collect();
            if named != *wanted {
                return Err(c.error(
                    &k,
                    &span,
                    format!(
                        "names the columns {named:?}; the table's {part}s are made of \
                         {wanted:?}: give a value for each"
                    ),
                ));
            }
        }
        if !matches!(
            p.value.get_ref(),
            toml::Value::String(_) | toml::Value::Integer(_) | toml::Value::Float(_)
        ) {
            return Err(c.error(
                &format!("{k}.value"),
                &p.value.span(),
                "the paper's value is a string or a number",
            ));
        }
    }
    Ok(())
}

fn check_format(c: &Checker, key: &str, format: &Spanned<String>) -> Result<()> {
    let pieces = parse_template(format.get_ref()).map_err(|e| c.error(key, &format.span(), e))?;
    for piece in pieces {
        let Piece::Field { name, .. } = piece else {
            continue;
        };
        let (metric, statistic) = match name.rsplit_once('.') {
            Some((m, s)) => (Some(m), s),
            None => (None, name.as_str()),
        };
        let known_metric = metric.is_none_or(|m| c.columns.is_metric(m));
        if !known_metric || !STATISTICS.contains(&statistic) {
            return Err(c.error(
                key,
                &format.span(),
                format!(
                    "unknown placeholder {{{name}}}; known: {{STATISTIC}} or \
                     {{METRIC.STATISTIC}} with STATISTIC one of {STATISTICS:?} and METRIC one \
                     of {:?}",
                    c.columns.metrics
                ),
            ));
        }
    }
    Ok(())
}

/// One table cell's statistics: the table's metric and the others its format names.
struct Cell<'a> {
    coordinates: &'a Coordinates,
    stats: Option<Stats>,
    skipped: Option<&'a Skipped>,
}

fn statistic(stats: &Stats, name: &str) -> f64 {
    match name {
        "mean" => stats.mean,
        "sd" => stats.sd,
        "se" => stats.se(),
        "count" => stats.count as f64,
        "min" => stats.min,
        "max" => stats.max,
        _ => f64::NAN,
    }
}

/// `pieces` filled from `stats` (the table's metric) and `others` (by metric); "—" for a metric
/// this cell lacks. A spread of a single repetition (an exact method run once) is left out with
/// the "±" before it: "84.33", not "84.33 ± NaN".
fn format_cell(
    pieces: &[Piece],
    stats: &Stats,
    others: &BTreeMap<String, Option<Stats>>,
) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Field { name, precision } => {
                let (stats, stat) = match name.rsplit_once('.') {
                    Some((metric, stat)) => (others.get(metric).copied().flatten(), stat),
                    None => (Some(*stats), name.as_str()),
                };
                match (stats, stat) {
                    (None, _) => out.push('—'),
                    (Some(s), "count") => out.push_str(&s.count.to_string()),
                    (Some(s), "sd" | "se") if s.count < 2 => {
                        let kept = out.trim_end().strip_suffix('±').map(|t| t.trim_end().len());
                        if let Some(len) = kept {
                            out.truncate(len);
                        } else {
                            out.push('—');
                        }
                    }
                    (Some(s), stat) => {
                        let v = statistic(&s, stat);
                        match precision {
                            Some(p) => out.push_str(&format!("{v:.*}", p)),
                            None => out.push_str(&format!("{v}")),
                        }
                    }
                }
            }
        }
    }
    out
}

/// A cell's place: its values of the `rows` coordinates, then of the `columns` coordinates.
type At = (Vec<CellValue>, Vec<CellValue>);

/// The table before it is written: our cells and the paper's, by place, and the row and column
/// keys in order (ours plus any the paper has and we do not).
struct Layout<'a> {
    row_columns: Vec<String>,
    column_columns: Vec<String>,
    cells: BTreeMap<At, Cell<'a>>,
    paper: BTreeMap<At, String>,
    row_keys: BTreeSet<Vec<CellValue>>,
    column_keys: BTreeSet<Vec<CellValue>>,
}

/// The table as Markdown: a heading, the profile note, then the table.
pub(super) fn render(
    results: &Results,
    spec: &RawTable,
    ctx: &RenderContext,
    key: &str,
) -> Result<String> {
    let pieces = parse_template(
        spec.format
            .as_ref()
            .map_or(DEFAULT_FORMAT, |f| f.get_ref().as_str()),
    )
    .map_err(|e| Error::Results {
        path: results.path.clone(),
        message: format!("{key}.format: {e}"),
    })?;
    let summary = results.summarise(spec.value.get_ref());
    let others = other_metrics(results, &pieces);
    let mut layout = place_ours(results, spec, &summary, key)?;
    layout.place_paper(spec);
    Ok(layout.markdown(spec, ctx, &pieces, &others))
}

/// The statistics, by metric and cell, of the other metrics the cell template names
/// (`{train_seconds.mean:.1}`).
fn other_metrics(
    results: &Results,
    pieces: &[Piece],
) -> BTreeMap<String, BTreeMap<Coordinates, Option<Stats>>> {
    let names: BTreeSet<String> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Field { name, .. } => name.rsplit_once('.').map(|(m, _)| m.to_string()),
            Piece::Literal(_) => None,
        })
        .collect();
    names
        .into_iter()
        .map(|m| {
            let by_cell = results
                .summarise(&m)
                .into_iter()
                .map(|c| (c.coordinates, c.stats))
                .collect();
            (m, by_cell)
        })
        .collect()
}

/// The first of `cells` (the table's `where` applied) that lands in the place of an earlier one,
/// with the coordinates the two differ in: the plan refuses such a table before anything runs,
/// since after the run the table could not be drawn (a coordinate left out of `rows`, `columns`
/// and `where`).
fn colliding_cell<'a>(
    spec: &RawTable,
    cells: &'a [Coordinates],
) -> Option<(&'a Coordinates, Vec<&'a String>)> {
    let (rows, columns) = place_columns(spec);
    let mut placed: BTreeMap<At, &Coordinates> = BTreeMap::new();
    for cell in cells.iter().filter(|k| selects(k, &spec.filter)) {
        let at = (values(cell, &rows), values(cell, &columns));
        if let Some(other) = placed.insert(at, cell) {
            return Some((cell, differing(cell, other)));
        }
    }
    None
}

/// The coordinates a table's rows and columns are made of.
fn place_columns(spec: &RawTable) -> (Vec<String>, Vec<String>) {
    let names = |list: &[Spanned<String>]| list.iter().map(|r| r.get_ref().clone()).collect();
    (names(spec.rows.get_ref()), names(&spec.columns))
}

/// The coordinates of `a` whose values `b` does not share.
fn differing<'a>(a: &'a Coordinates, b: &Coordinates) -> Vec<&'a String> {
    a.iter()
        .filter(|(name, v)| b.get(*name) != Some(*v))
        .map(|(name, _)| name)
        .collect()
}

/// Our cells (those the table's `where` selects) by place; two in one place is an error naming
/// the coordinates they differ in.
fn place_ours<'a>(
    results: &Results,
    spec: &RawTable,
    summary: &'a [CellStats],
    key: &str,
) -> Result<Layout<'a>> {
    let (row_columns, column_columns) = place_columns(spec);
    let mut cells: BTreeMap<At, Cell> = BTreeMap::new();
    for c in summary
        .iter()
        .filter(|c| selects(&c.coordinates, &spec.filter))
    {
        let at = (
            values(&c.coordinates, &row_columns),
            values(&c.coordinates, &column_columns),
        );
        let cell = Cell {
            coordinates: &c.coordinates,
            stats: c.stats,
            skipped: c.skipped.as_ref(),
        };
        if let Some(other) = cells.insert(at, cell) {
            let differing = differing(&c.coordinates, other.coordinates);
            return Err(Error::Results {
                path: results.path.clone(),
                message: format!(
                    "{key}: two cells in one table cell ({}), differing in {differing:?}; add \
                     those columns to `rows` or `columns`, or fix them with `where`",
                    describe(row_columns.iter().chain(&column_columns), &c.coordinates)
                ),
            });
        }
    }
    let row_keys = cells.keys().map(|k| k.0.clone()).collect();
    let column_keys = cells.keys().map(|k| k.1.clone()).collect();
    Ok(Layout {
        row_columns,
        column_columns,
        cells,
        paper: BTreeMap::new(),
        row_keys,
        column_keys,
    })
}

/// A cell's values of `columns` (empty where it has none).
fn values(k: &Coordinates, columns: &[String]) -> Vec<CellValue> {
    columns
        .iter()
        .map(|c| k.get(c).cloned().unwrap_or(CellValue::Empty))
        .collect()
}

/// The key among `keys` that `selector` names, or a new one made from the selector's values.
fn resolve(
    keys: &BTreeSet<Vec<CellValue>>,
    columns: &[String],
    selector: &RawSelector,
) -> Vec<CellValue> {
    let named = |c: &String| {
        selector
            .iter()
            .find(|(k, _)| k.get_ref() == c)
            .map(|(_, v)| v.get_ref())
    };
    keys.iter()
        .find(|key| {
            columns
                .iter()
                .zip(key.iter())
                .all(|(c, v)| named(c).is_some_and(|s| v.matches(s)))
        })
        .cloned()
        .unwrap_or_else(|| {
            columns
                .iter()
                .map(|c| named(c).map_or(CellValue::Empty, CellValue::from_selector))
                .collect()
        })
}

impl Layout<'_> {
    /// The paper's numbers, each at the place its selectors name (a new row or column where we
    /// have none).
    fn place_paper(&mut self, spec: &RawTable) {
        for p in &spec.paper {
            let row = resolve(&self.row_keys, &self.row_columns, p.row.get_ref());
            let no_columns = RawSelector::new();
            let column_selector = p.column.as_ref().map_or(&no_columns, |c| c.get_ref());
            let column = resolve(&self.column_keys, &self.column_columns, column_selector);
            self.row_keys.insert(row.clone());
            self.column_keys.insert(column.clone());
            let text = match p.value.get_ref() {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            self.paper.insert((row, column), text);
        }
    }

    fn markdown(
        &self,
        spec: &RawTable,
        ctx: &RenderContext,
        pieces: &[Piece],
        others: &BTreeMap<String, BTreeMap<Coordinates, Option<Stats>>>,
    ) -> String {
        let labels: &Labels = &ctx.labels;
        let mut out = String::new();
        let title = spec
            .title
            .clone()
            .unwrap_or_else(|| format!("{}: {}", ctx.title, spec.value.get_ref()));
        out.push_str(&format!("## {title}\n\n"));
        if !ctx.profile_note.is_empty() {
            out.push_str(&format!("_{}_\n\n", ctx.profile_note));
        }
        let mut header: Vec<String> = self.row_columns.clone();
        if self.column_columns.is_empty() {
            header.push(spec.value.get_ref().clone());
        } else {
            header.extend(self.column_keys.iter().map(|k| {
                let coordinates: Coordinates = self
                    .column_columns
                    .iter()
                    .cloned()
                    .zip(k.iter().cloned())
                    .collect();
                labels.join(&self.column_columns, &coordinates)
            }));
        }
        out.push_str(&markdown::header(&header));
        // Skip reasons (long: a URL and what to do) are numbered notes under the table.
        let mut notes = Notes::default();
        for row in &self.row_keys {
            let mut parts: Vec<String> = self
                .row_columns
                .iter()
                .zip(row)
                .map(|(c, v)| match v {
                    CellValue::Empty => "—".to_string(),
                    v => labels.label(c, v),
                })
                .collect();
            for column in &self.column_keys {
                let at = (row.clone(), column.clone());
                let ours = match self.cells.get(&at) {
                    None => "—".to_string(),
                    Some(cell) => cell_text(cell, pieces, others, &mut notes),
                };
                parts.push(match self.paper.get(&at) {
                    Some(p) => format!("{ours} (paper {p})"),
                    None => ours,
                });
            }
            out.push_str(&markdown::row(&parts));
        }
        if !notes.0.is_empty() {
            out.push('\n');
            for (i, reason) in notes.0.iter().enumerate() {
                out.push_str(&format!("[{}] {}\n", i + 1, markdown::escape(reason)));
            }
        }
        out
    }
}

/// Skip reasons in order of first use; a reason's note number is its place, from 1.
#[derive(Default)]
struct Notes(Vec<String>);

impl Notes {
    fn number(&mut self, reason: &str) -> usize {
        match self.0.iter().position(|r| r == reason) {
            Some(i) => i + 1,
            None => {
                self.0.push(reason.to_string());
                self.0.len()
            }
        }
    }
}

/// Our text for one table cell: its statistics formatted, and how many repetitions were
/// skipped with a note number for why.
fn cell_text(
    cell: &Cell,
    pieces: &[Piece],
    others: &BTreeMap<String, BTreeMap<Coordinates, Option<Stats>>>,
    notes: &mut Notes,
) -> String {
    let other_stats: BTreeMap<String, Option<Stats>> = others
        .iter()
        .map(|(m, by_cell)| (m.clone(), by_cell.get(cell.coordinates).copied().flatten()))
        .collect();
    match (&cell.stats, cell.skipped) {
        (Some(s), None) => format_cell(pieces, s, &other_stats),
        (Some(s), Some(skip)) => format!(
            "{} ({} skipped [{}])",
            format_cell(pieces, s, &other_stats),
            skip.repetitions,
            notes.number(&skip.reason)
        ),
        (None, Some(skip)) => format!("skipped [{}]", notes.number(&skip.reason)),
        (None, None) => "—".to_string(),
    }
}
