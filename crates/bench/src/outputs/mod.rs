//! Everything drawn from a results CSV after a run: figures (PNG), tables (Markdown), the paper's
//! qualitative claims checked on our numbers, the paper's numbers beside ours, and the text report
//! that prints all of it.
//!
//! Nothing here knows a particular experiment: the spec names columns, and the runner says which
//! columns are coordinates and which metrics ([`Columns`]). Every name is checked at plan time by
//! [`validate`], before anything runs, so a typo is an error with its key and line, never an empty
//! figure or a silent "n/a". At render time a selection that matches nothing is reported as such.

mod axis;
mod claim;
pub mod claims_file;
mod figure;
mod legend;
pub mod markdown;
mod paper;
mod plot;
mod report;
mod results;
mod scatter;
mod slope;
mod table;
mod validate;
mod verdict;

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

pub use claim::{ClaimOutcome, PairRow, RawClaim};
pub use figure::RawFigure;
pub use legend::Marker;
pub use paper::{PaperOutcome, RawPaperValue};
pub(crate) use plot::map_color;
pub use results::{
    CellStats, CellValue, Columns, Coordinates, ResultRow, Results, Sample, Skipped, Stats,
};
pub use scatter::{png as scatter_png, Scatter, ScatterPoint, ScatterSeries};
pub use table::{RawPaperCell, RawTable};
pub use validate::{Checker, RawSelector};
pub use verdict::{shared_draw, PairVerdict, Verdict};

use crate::error::Result;
use crate::files::SpecFiles;

use crate::staging::Staged;

// The four kinds of output a spec declares (figures, tables, claims, paper values) behind one
// trait, in one list on the plan ([`Outputs::list`]): the plan-time checks (the columns each
// names, the cells each selects) and the drawing loop are written once, for every kind, and a
// fifth kind is one more implementation. (Here, not in a module of its own: the kinds' modules
// use it, and a child may use its parent but not a sibling that uses it back.)

/// One entry of a spec's output sections.
pub trait Output {
    /// The spec's section it is an entry of: `figures`, `tables`, `claims` or `paper_values`.
    fn section(&self) -> &'static str;

    /// Where the entry is in the spec's text: tells it apart from the section's other entries
    /// (a profile draws some of them only, so its index in the plan is not the spec's).
    fn span(&self) -> Range<usize>;

    /// The profiles that draw it (`None`: every profile).
    fn profiles(&self) -> Option<&Spanned<Vec<String>>>;

    /// Checks the columns it names against the results' (`key`: `section[i]`, for messages).
    fn validate(&self, c: &Checker, key: &str) -> Result<()>;

    /// Why the plan's `cells` (in the profile `profile`) do not let it draw anything, if they do
    /// not: a selection that matches no cell, two cells that fall in one table cell.
    fn cell_problem(&self, cells: &[Coordinates], profile: &str) -> Option<CellProblem>;

    /// Draws it from `results` into `drawing` (`key` as for [`Output::validate`]).
    fn render(
        &self,
        key: &str,
        results: &Results,
        ctx: &RenderContext,
        drawing: &mut Drawing<'_>,
    ) -> Result<()>;
}

/// What [`Output::cell_problem`] found: the key's last part (`where`, `rows`, `left`), where to
/// point in the spec, and the message.
#[derive(Debug, Clone, PartialEq)]
pub struct CellProblem {
    pub field: String,
    pub span: Range<usize>,
    pub message: String,
}

/// A spec's outputs, by kind; [`Outputs::list`] is the one list the checks and the drawing go
/// through, in the report's order.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    pub figures: Vec<RawFigure>,
    pub tables: Vec<RawTable>,
    pub claims: Vec<RawClaim>,
    pub paper_values: Vec<RawPaperValue>,
}

impl Outputs {
    /// Every output with its key (`figures[0]`, ..., `paper_values[2]`): figures, tables,
    /// claims, then paper values.
    pub fn list(&self) -> Vec<(String, &dyn Output)> {
        fn keyed<'a, T: Output>(items: &'a [T]) -> impl Iterator<Item = (String, &'a dyn Output)> {
            items
                .iter()
                .enumerate()
                .map(|(i, x)| (format!("{}[{i}]", x.section()), x as &dyn Output))
        }
        keyed(&self.figures)
            .chain(keyed(&self.tables))
            .chain(keyed(&self.claims))
            .chain(keyed(&self.paper_values))
            .collect()
    }

    /// The key `section[i]` of `output` among these outputs (a plan's output among its spec's),
    /// found by its place in the text.
    pub fn key_of(&self, output: &dyn Output) -> Option<String> {
        self.list()
            .into_iter()
            .find(|(_, o)| o.section() == output.section() && o.span() == output.span())
            .map(|(key, _)| key)
    }

    /// The metric of a paper value that names none: the first figure's y.
    pub fn default_metric(&self) -> Option<&str> {
        self.figures.first().map(|f| f.y.get_ref().as_str())
    }
}

/// What the outputs drew so far, while [`super::render_staged`] goes through them.
pub struct Drawing<'a> {
    out: &'a mut Staged,
    /// The spec's paper values (this profile's), which figures overlay where they give a point.
    paper: &'a [RawPaperValue],
    report: report::Report,
    default_metric: Option<String>,
    figures: Vec<PathBuf>,
    tables: Vec<PathBuf>,
    claims: Vec<ClaimOutcome>,
    paper_values: Vec<PaperOutcome>,
}

/// Legend and table labels of coordinate values: `("map", "tensor-sketch") -> "TS"`. A value
/// without an entry is its own label.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels(pub BTreeMap<(String, String), String>);

impl Labels {
    pub fn label(&self, column: &str, value: &CellValue) -> String {
        let text = value.to_string();
        self.0
            .get(&(column.to_string(), text.clone()))
            .cloned()
            .unwrap_or(text)
    }

    /// The labels of `columns`' values in `coordinates`, joined by ", ", empty values left out;
    /// "—" if nothing is left.
    pub(crate) fn join(&self, columns: &[String], coordinates: &Coordinates) -> String {
        let parts: Vec<String> = columns
            .iter()
            .filter_map(|c| coordinates.get(c).map(|v| (c, v)))
            .filter(|(_, v)| **v != CellValue::Empty)
            .map(|(c, v)| self.label(c, v))
            .collect();
        if parts.is_empty() {
            "—".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// Where and under what names the outputs of one run are written.
#[derive(Debug, Clone)]
pub struct RenderContext {
    /// Where the figures, tables and claims go.
    pub files: SpecFiles,
    pub title: String,
    /// E.g. "quick profile: 3 repetitions, 3 values of D"; printed under titles when not empty.
    pub profile_note: String,
    pub labels: Labels,
}

/// What [`render`] wrote and printed.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub figures: Vec<PathBuf>,
    pub tables: Vec<PathBuf>,
    /// The text report: figures' numbers, tables, claims, paper values, skipped cells.
    pub report: String,
    pub claims: Vec<ClaimOutcome>,
    /// `results/SPEC/PROFILE.claims.md`, when the spec has claims.
    pub claims_file: Option<PathBuf>,
}

/// Checks the output sections of a spec against the results' columns, before anything runs.
/// `text` is the spec's TOML (for line numbers) and `spec_path` its file (for the error).
pub fn validate(outputs: &Outputs, columns: &Columns, text: &str, spec_path: &Path) -> Result<()> {
    let c = Checker {
        text,
        path: spec_path,
        columns,
        default_metric: outputs.default_metric(),
    };
    // Outputs that are files of their own: one name each, at most one without.
    let figures = outputs.figures.iter();
    c.unique_names(
        "figures",
        "figure",
        figures.map(|f| (f.name.as_ref(), f.x.span())),
    )?;
    let tables = outputs.tables.iter();
    c.unique_names(
        "tables",
        "table",
        tables.map(|t| (t.name.as_ref(), t.value.span())),
    )?;
    for (key, output) in outputs.list() {
        output.validate(&c, &key)?;
    }
    Ok(())
}

/// Draws the figures, writes the tables, checks the claims and compares the paper values, all from
/// `results`; returns the files written and the report text. Expects outputs that passed
/// [`validate`] against `results.columns`.
pub fn render(results: &Results, outputs: &Outputs, ctx: &RenderContext) -> Result<Rendered> {
    let mut out = Staged::new(ctx.files.out_dir());
    let rendered = render_staged(results, outputs, ctx, &mut out)?;
    out.commit()?;
    Ok(rendered)
}

/// [`render`], with the figures and tables staged in `out` (committed by the caller with the
/// results file they come from) instead of written.
pub fn render_staged(
    results: &Results,
    outputs: &Outputs,
    ctx: &RenderContext,
    out: &mut Staged,
) -> Result<Rendered> {
    let mut drawing = Drawing {
        out,
        paper: &outputs.paper_values,
        report: report::Report::new(ctx),
        default_metric: outputs.default_metric().map(str::to_string),
        figures: Vec::new(),
        tables: Vec::new(),
        claims: Vec::new(),
        paper_values: Vec::new(),
    };
    for (key, output) in outputs.list() {
        output.render(&key, results, ctx, &mut drawing)?;
    }
    let Drawing {
        out,
        mut report,
        figures,
        tables,
        claims,
        paper_values,
        ..
    } = drawing;
    report.claims(&claims);
    let claims_path = ctx.files.claims();
    let claims_file = if claims.is_empty() {
        out.remove(&claims_path)?;
        None
    } else {
        let text = claims_file::markdown(&ctx.title, &ctx.files.csv_relative(), &claims);
        out.write(&claims_path, text.as_bytes())?;
        Some(claims_path)
    };
    report.paper_values(&paper_values);
    report.skipped(results);
    Ok(Rendered {
        figures,
        tables,
        report: report.finish(),
        claims,
        claims_file,
    })
}

/// An output's name, as [`SpecFiles`] takes it.
pub(crate) fn name(name: &Option<toml::Spanned<String>>) -> Option<&str> {
    name.as_ref().map(|n| n.get_ref().as_str())
}

/// Whether a cell's coordinates satisfy every `column = value` of `selector`.
pub(crate) fn selects(coordinates: &Coordinates, selector: &RawSelector) -> bool {
    selector.iter().all(|(column, value)| {
        coordinates
            .get(column.get_ref())
            .is_some_and(|v| v.matches(value.get_ref()))
    })
}

/// `a = 1, b = x` for the named columns of `coordinates` (empty values shown as "—").
pub(crate) fn describe<'a>(
    columns: impl IntoIterator<Item = &'a String>,
    coordinates: &Coordinates,
) -> String {
    columns
        .into_iter()
        .map(|c| match coordinates.get(c) {
            Some(CellValue::Empty) | None => format!("{c} = —"),
            Some(v) => format!("{c} = {v}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `a = 1, b = "x"` for a selector, as written in the spec.
pub(crate) fn describe_selector(selector: &RawSelector) -> String {
    selector
        .iter()
        .map(|(k, v)| format!("{} = {}", k.get_ref(), v.get_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A skip reason in a few words: a download that failed becomes "needs the network (FILE)" (the
/// CSV keeps the whole reason); anything else its first line, cut at 160 characters.
pub(crate) fn short_reason(reason: &str) -> String {
    if let Some(rest) = reason.strip_prefix("cannot download ") {
        let file = rest.split(' ').next().unwrap_or(rest);
        return format!("its data needs the network (cannot download {file} here)");
    }
    let first = reason.lines().next().unwrap_or("");
    match first.char_indices().nth(160) {
        Some((i, _)) => format!("{}...", &first[..i]),
        None => first.to_string(),
    }
}

/// A number with four significant digits, without exponent in the usual range.
pub(crate) fn number(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        return "0".to_string();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if (-3..6).contains(&magnitude) {
        format!("{v:.*}", (3 - magnitude).max(0) as usize)
    } else {
        format!("{v:.3e}")
    }
}

#[cfg(test)]
mod tests;
