//! Everything drawn from a results CSV after a run: figures (PNG), tables (Markdown), the paper's
//! qualitative claims checked on our numbers, the paper's numbers beside ours, and the text report
//! that prints all of it.
//!
//! Nothing here knows a particular experiment: the spec names columns, and the runner says which
//! columns are coordinates and which metrics ([`Columns`]). Every name is checked at plan time by
//! [`validate`], before anything runs, so a typo is an error with its key and line, never an empty
//! figure or a silent "n/a". At render time a selection that matches nothing is reported as such.

mod claim;
pub mod claims_file;
mod figure;
mod legend;
mod paper;
mod plot;
mod report;
mod results;
mod table;
mod validate;
mod verdict;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use claim::{ClaimOutcome, PairRow, RawClaim};
pub use figure::RawFigure;
pub use paper::{PaperOutcome, RawPaperValue};
pub(crate) use plot::{color, register_embedded_font};
pub use results::{
    CellStats, CellValue, Columns, Coordinates, ResultRow, Results, Sample, Skipped, Stats,
};
pub(crate) use table::colliding_cell;
pub use table::{RawPaperCell, RawTable};
pub use validate::RawSelector;
pub use verdict::{shared_draw, PairVerdict, Verdict};

use crate::error::Result;
use crate::files::SpecFiles;

/// An output a spec may draw in some of its profiles only (its `profiles` list): a stand-in
/// dataset's table in that profile, the paper's tables in the others.
pub trait PerProfile: Clone {
    fn profiles(&self) -> Option<&toml::Spanned<Vec<String>>>;
}
use crate::staging::Staged;
use validate::Checker;

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
pub fn validate(
    figures: &[RawFigure],
    tables: &[RawTable],
    claims: &[RawClaim],
    paper_values: &[RawPaperValue],
    columns: &Columns,
    text: &str,
    spec_path: &Path,
) -> Result<()> {
    let c = Checker {
        text,
        path: spec_path,
        columns,
    };
    figure::validate(&c, figures)?;
    table::validate(&c, tables)?;
    for (i, claim) in claims.iter().enumerate() {
        claim.validate(&c, &format!("claims[{i}]"))?;
    }
    let default_metric = figures.first().map(|f| f.y.get_ref().as_str());
    for (i, value) in paper_values.iter().enumerate() {
        value.validate(&c, &format!("paper_values[{i}]"), default_metric)?;
    }
    Ok(())
}

/// Draws the figures, writes the tables, checks the claims and compares the paper values, all from
/// `results`; returns the files written and the report text. Expects sections that passed
/// [`validate`] against `results.columns`.
pub fn render(
    results: &Results,
    figures: &[RawFigure],
    tables: &[RawTable],
    claims: &[RawClaim],
    paper_values: &[RawPaperValue],
    ctx: &RenderContext,
) -> Result<Rendered> {
    let mut out = Staged::new(ctx.files.out_dir());
    let rendered = render_staged(
        results,
        figures,
        tables,
        claims,
        paper_values,
        ctx,
        &mut out,
    )?;
    out.commit()?;
    Ok(rendered)
}

/// [`render`], with the figures and tables staged in `out` (committed by the caller with the
/// results file they come from) instead of written.
pub fn render_staged(
    results: &Results,
    figures: &[RawFigure],
    tables: &[RawTable],
    claims: &[RawClaim],
    paper_values: &[RawPaperValue],
    ctx: &RenderContext,
    out: &mut Staged,
) -> Result<Rendered> {
    let mut report = report::Report::new(ctx);
    let mut figure_paths = Vec::new();
    for (i, spec) in figures.iter().enumerate() {
        let key = format!("figures[{i}]");
        let path = ctx.files.figure(name(&spec.name));
        // Every selected cell skipped (its data needs the network, say): no figure, and no
        // figure of an earlier run left beside this run's results; the report says why. A
        // selection that matches no cell at all stays an error (a typo in `where`).
        let selected: Vec<CellStats> = results
            .summarise(spec.y.get_ref())
            .into_iter()
            .filter(|c| selects(&c.coordinates, &spec.filter))
            .collect();
        if !selected.is_empty()
            && selected
                .iter()
                .all(|c| c.stats.is_none() && c.skipped.is_some())
        {
            out.remove(&path)?;
            report.figure_skipped(&path, selected.len());
            continue;
        }
        let data = figure::FigureData::collect(results, spec, &ctx.labels, &key)?;
        let notes = plot::draw(&data, spec, ctx, &path, out)?;
        report.figure(spec, &data, &path, &notes);
        figure_paths.push(path);
    }
    let mut table_paths = Vec::new();
    for (i, spec) in tables.iter().enumerate() {
        let key = format!("tables[{i}]");
        let markdown = table::render(results, spec, ctx, &key)?;
        let path = ctx.files.table(name(&spec.name));
        out.write(&path, markdown.as_bytes())?;
        report.table(&path, &markdown);
        table_paths.push(path);
    }
    let outcomes: Vec<ClaimOutcome> = claims
        .iter()
        .map(|c| c.evaluate(results, &ctx.labels))
        .collect();
    report.claims(&outcomes);
    let claims_path = ctx.files.claims();
    let claims_file = if outcomes.is_empty() {
        out.remove(&claims_path)?;
        None
    } else {
        let text = claims_file::markdown(&ctx.title, &ctx.files.csv_relative(), &outcomes);
        out.write(&claims_path, text.as_bytes())?;
        Some(claims_path)
    };
    let default_metric = figures.first().map(|f| f.y.get_ref().as_str());
    let papers: Vec<PaperOutcome> = paper_values
        .iter()
        .enumerate()
        .map(|(i, p)| p.evaluate(results, default_metric, &format!("paper_values[{i}]")))
        .collect::<Result<_>>()?;
    report.paper_values(&papers);
    report.skipped(results);
    Ok(Rendered {
        figures: figure_paths,
        tables: table_paths,
        report: report.finish(),
        claims: outcomes,
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
