//! Stage 1: the TOML file as written, mirrored with serde. Unknown keys are denied, and every
//! value keeps its span so that a later stage can name the key's line.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::outputs::{RawClaim, RawFigure, RawPaperValue, RawTable};
use crate::spec_error::{SpecError, SpecResult};

/// A TOML table with its values' spans.
pub type Table = BTreeMap<String, Spanned<toml::Value>>;

/// The TOML file as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub name: String,
    pub title: String,
    /// Which source document and item the experiment reproduces, e.g. "000 Fig. 1".
    pub paper: String,
    /// The experiment kind (see `rfbench` docs/spec.md): kernel-error, gram-error, timing, learning.
    pub kind: Spanned<String>,
    /// `dataset` (a name or a list), `preprocess`, and a synthetic source's parameters.
    pub data: Table,
    /// `master_seed`, `repetitions`, and the kind's parameters.
    pub run: Table,
    /// `name` and the kernel's parameters (lists are axes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kernel: Table,
    /// Global axes and constants.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub grid: Table,
    /// Axes of one map: `[maps.rff] form = ["paired", "phase"]`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub maps: BTreeMap<String, Table>,
    /// Axes of one learner: `[learners.linear-svm] C = [0.1, 1]`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub learners: BTreeMap<String, Table>,
    /// Seed scopes that replace the kind's defaults: `pair_seed = ["dataset", "repetition"]`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub seeds: BTreeMap<String, Spanned<Vec<String>>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, Table>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<RawFigure>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<RawTable>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<RawClaim>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paper_values: Vec<RawPaperValue>,
    /// Labels of coordinate values in figures, tables and the report, replacing the registry's:
    /// `[labels.dataset] "fashion-mnist" = "Fashion-MNIST (stand-in for MNIST)"`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, Spanned<BTreeMap<String, String>>>,
    /// Metrics that are the sum of others in the same row, for quantities a paper reports as one
    /// number and the runner measures in parts: `[sums] fit_seconds = ["map_seconds",
    /// "train_seconds"]`. Computed when the results are read (never written to the CSV, so they
    /// always agree with it); figures, tables, claims and paper values may name them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sums: BTreeMap<String, Spanned<Vec<String>>>,
    pub check: RawCheck,
    /// The spec's own datasets, in `datasets.toml`'s schema (read by the data registry:
    /// `Registry::parse_embedded`); they come before the root's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dataset: Vec<toml::Value>,
}

/// How `rfbench check` compares a regenerated result with the committed reference.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Metric columns compared.
    pub columns: Spanned<Vec<String>>,
    /// Same master seed: largest relative difference allowed (0 = bit for bit).
    #[serde(default)]
    pub rtol: Option<Spanned<f64>>,
    /// Other master seed: the probability, over the whole file, that a correct rerun fails.
    #[serde(default)]
    pub false_alarm: Option<Spanned<f64>>,
    /// Other master seed: the metrics tested statistically (default: `columns`). A metric whose
    /// repetitions take few distinct values (a median of lattice-valued errors) breaks the t
    /// test's model and belongs in `columns` only.
    #[serde(default)]
    pub statistical: Option<Spanned<Vec<String>>>,
}

impl RawSpec {
    /// Parses TOML text; `path` is only used in error messages.
    pub fn parse(text: &str, path: &Path) -> SpecResult<RawSpec> {
        toml::from_str(text).map_err(|e| SpecError::whole(path, e))
    }

    /// The spec as TOML text that [`RawSpec::parse`] reads back to the same spec (front ends
    /// such as `rfbench compare` build a `RawSpec` and write it with this, never by hand).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a spec of TOML values serialises")
    }
}

/// A value without a place in a file, for specs built in code.
pub fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}

/// A table of values built in code.
pub fn table<K: Into<String>, V: Into<toml::Value>>(
    entries: impl IntoIterator<Item = (K, V)>,
) -> Table {
    entries
        .into_iter()
        .map(|(k, v)| (k.into(), unspanned(v.into())))
        .collect()
}
