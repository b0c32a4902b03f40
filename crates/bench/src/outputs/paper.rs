//! `[[paper_values]]`: one number the paper reports (a point, or the top of an axis) beside the
//! matching statistic of our cells' means.

use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::results::{Coordinates, Results};
use super::validate::{Checker, RawSelector};
use super::{describe_selector, selects, CellProblem, Drawing, Output, RenderContext};
use crate::error::{Error, Result};

/// One `[[paper_values]]` entry as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawPaperValue {
    /// Which cells: column = value (none: every cell).
    #[serde(default)]
    pub select: RawSelector,
    /// Default: the first figure's y.
    pub metric: Option<Spanned<String>>,
    /// "max", "min" or "mean" of the selected cells' means, or "median": the median of the
    /// selected cells' repetitions (over draws of the data, the typical draw where the paper's
    /// number is one draw).
    pub statistic: Spanned<String>,
    pub value: f64,
    #[serde(default)]
    pub note: String,
    /// The profiles that draw this output (`"full"`, `"quick"`, a named one); default: every
    /// profile.
    #[serde(default)]
    pub profiles: Option<Spanned<Vec<String>>>,
}

impl Output for RawPaperValue {
    fn section(&self) -> &'static str {
        "paper_values"
    }

    fn span(&self) -> Range<usize> {
        self.statistic.span()
    }

    fn profiles(&self) -> Option<&Spanned<Vec<String>>> {
        self.profiles.as_ref()
    }

    fn validate(&self, c: &Checker, key: &str) -> Result<()> {
        self.validate_columns(c, key, c.default_metric)
    }

    /// A `select` that matches no cell (a typo, a value of another profile: limit it with
    /// `profiles`), which would leave the paper's value without ours.
    fn cell_problem(&self, cells: &[Coordinates], profile: &str) -> Option<CellProblem> {
        if cells.iter().any(|k| selects(k, &self.select)) {
            return None;
        }
        Some(CellProblem {
            field: "select".into(),
            span: self
                .select
                .keys()
                .next()
                .map_or(self.statistic.span(), |k| k.span()),
            message: format!(
                "{} matches no cell of the {profile} profile's grid (a paper value of another \
                 profile only: `profiles = [...]`)",
                describe_selector(&self.select)
            ),
        })
    }

    /// Compared here; the report lists every paper value at the end.
    fn render(
        &self,
        key: &str,
        results: &Results,
        _ctx: &RenderContext,
        drawing: &mut Drawing<'_>,
    ) -> Result<()> {
        let outcome = self.evaluate(results, drawing.default_metric.as_deref(), key)?;
        drawing.paper_values.push(outcome);
        Ok(())
    }
}

pub const STATISTICS: [&str; 4] = ["max", "min", "mean", "median"];

/// A paper value beside ours.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperOutcome {
    pub paper: f64,
    /// `None`: no cell selected (or none that ran).
    pub ours: Option<f64>,
    /// How many cells' means went into `ours`.
    pub cells: usize,
    pub metric: String,
    pub statistic: String,
    /// The selector, as written.
    pub select: String,
    pub note: String,
}

impl RawPaperValue {
    fn validate_columns(&self, c: &Checker, key: &str, default_metric: Option<&str>) -> Result<()> {
        c.selector(&format!("{key}.select"), &self.select)?;
        match &self.metric {
            Some(metric) => c.metric(&format!("{key}.metric"), metric)?,
            None if default_metric.is_none() => {
                return Err(c.error(
                    &format!("{key}.metric"),
                    &self.statistic.span(),
                    format!(
                        "missing, and there is no figure whose y would be the default; known \
                         metrics: {:?}",
                        c.columns.metrics
                    ),
                ))
            }
            None => {}
        }
        c.one_of(
            &format!("{key}.statistic"),
            &self.statistic,
            "statistic",
            &STATISTICS,
        )
    }

    /// Our statistic over the selected cells' means.
    pub fn evaluate(
        &self,
        results: &Results,
        default_metric: Option<&str>,
        key: &str,
    ) -> Result<PaperOutcome> {
        let metric = match (&self.metric, default_metric) {
            (Some(m), _) => m.get_ref().as_str(),
            (None, Some(m)) => m,
            (None, None) => {
                return Err(Error::Results {
                    path: results.path.clone(),
                    message: format!("{key}: no metric and no figure to take it from"),
                })
            }
        };
        let cells: Vec<_> = results
            .summarise(metric)
            .into_iter()
            .filter(|c| selects(&c.coordinates, &self.select) && c.stats.is_some())
            .collect();
        let means: Vec<f64> = cells
            .iter()
            .filter_map(|c| c.stats.map(|s| s.mean))
            .collect();
        let statistic = self.statistic.get_ref().as_str();
        let ours = (!means.is_empty()).then(|| match statistic {
            "max" => means.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            "min" => means.iter().copied().fold(f64::INFINITY, f64::min),
            "median" => median(cells.iter().flat_map(|c| &c.samples).map(|s| s.value)),
            _ => means.iter().sum::<f64>() / means.len() as f64,
        });
        Ok(PaperOutcome {
            paper: self.value,
            ours,
            cells: means.len(),
            metric: metric.to_string(),
            statistic: statistic.to_string(),
            select: describe_selector(&self.select),
            note: self.note.clone(),
        })
    }
}

/// The median of `values` (the mean of the middle two for an even count); NaN for none.
fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_of_odd_and_even_counts() {
        assert_eq!(median([3.0, 1.0, 2.0].into_iter()), 2.0);
        assert_eq!(median([4.0, 1.0, 3.0, 2.0].into_iter()), 2.5);
        assert!(median(std::iter::empty()).is_nan());
    }
}
