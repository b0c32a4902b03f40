//! The experiment kinds a spec can name (`kind = "..."`): what each measures, its parameters,
//! metric columns and seeds, as data. The measurement itself is in the runner's `kinds` module, which pairs
//! each declaration here with its function; the spec pipeline plans from these declarations
//! alone, so it never imports the code that runs a cell.

use super::params::{count, Default, ParamKind, ParamSpec};

/// Which coordinates a seed's key is built from, unless the spec's `[seeds]` says otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SeedScope {
    /// Every axis of the cell, and the repetition.
    AllAxes,
    /// Only the dataset's axes (its name and a generator's parameters), and the repetition if
    /// `repetition`: the same rows or pairs for every map of the sweep.
    Data { repetition: bool },
}

/// A seed column.
#[derive(Debug, Clone, Copy)]
pub struct SeedSpec {
    pub column: &'static str,
    /// Prefix of the seed key (so two seeds of the same scope differ).
    pub prefix: Option<&'static str>,
    pub scope: SeedScope,
    pub doc: &'static str,
}

/// The map's (and learner's) randomness: every axis and the repetition.
pub const MAP_SEED: SeedSpec = SeedSpec {
    column: "seed",
    prefix: None,
    scope: SeedScope::AllAxes,
    doc: "the map's and learner's randomness: every axis and the repetition",
};

/// The synthetic data's seed: its own axes only, so every cell sees the same rows.
pub const DATA_SEED: SeedSpec = SeedSpec {
    column: "data_seed",
    prefix: Some("data"),
    scope: SeedScope::Data { repetition: false },
    doc: "a synthetic dataset's rows: the dataset's axes only (the same data for every cell)",
};

/// A registry entry for a kind.
#[derive(Clone, Copy)]
pub struct KindInfo {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: &'static [ParamSpec],
    pub metrics: &'static [&'static str],
    pub seeds: &'static [SeedSpec],
    pub uses_learner: bool,
    /// Whether the map must produce features (`exact` and `none` make no sense here).
    pub needs_feature_map: bool,
    /// Whether runs may overlap (several at once on the runner's threads).
    pub overlap: Overlap,
    /// The metrics read off the clock: when runs overlap they are taken while other runs share
    /// the cores, so they are no longer results an output may read.
    pub clock_metrics: &'static [&'static str],
}

/// Whether a kind's runs may overlap: start as threads free up, several at a time, instead of
/// one after another with every thread inside each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// Always: what the kind measures does not depend on what else runs (`kernel-error`).
    Always,
    /// When the spec asks (`[run] overlap_runs = true`) and none of its outputs reads a clock
    /// metric: the metrics that are results do not depend on the schedule, the clock ones do.
    OnRequest,
    /// Never: the clock metrics are the kind's results (`timing`).
    Never,
}

impl std::fmt::Debug for KindInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "kind {:?}", self.name)
    }
}

/// Every kind, in the order `rfbench kinds` lists them.
pub const KINDS: &[KindInfo] = &[KERNEL_ERROR, GRAM_ERROR, TIMING, LEARNING];

/// Columns that front ends read back by name (`rfbench compare`'s budget and report), written
/// once here and used by the kinds' metric lists below.
pub mod column {
    pub const ACCURACY: &str = "accuracy";
    pub const RMSE: &str = "rmse";
    pub const MAP_SECONDS: &str = "map_seconds";
    pub const TRAIN_SECONDS: &str = "train_seconds";
    pub const PREDICT_SECONDS: &str = "predict_seconds";
    pub const RELATIVE_FROBENIUS: &str = "relative_frobenius";
}

/// The learning kind's training-set size (`train_size`; 0: every training row).
pub const TRAIN_SIZE: ParamSpec = ParamSpec {
    name: "train_size",
    kind: ParamKind::Int {
        min: 0,
        max: 1 << 31,
    },
    default: Some(Default::Int(0)),
    doc: "train on this many training rows drawn with data_seed (0: all)",
};

pub const KERNEL_ERROR: KindInfo = KindInfo {
    name: "kernel-error",
    doc: "Kernel estimates <z(x), z(y)> on random pairs of rows against the exact kernel k(x, y): \
          mean and median relative error, mean absolute error, bias (Pham & Pagh Fig. 1).",
    params: &[count("pairs", None, "random pairs of rows per repetition")],
    metrics: &[
        "pairs_excluded",
        "relative_error",
        "median_relative_error",
        "mean_absolute_error",
        "bias",
        "map_seconds",
    ],
    seeds: &[
        MAP_SEED,
        SeedSpec {
            column: "pair_seed",
            prefix: Some("pairs"),
            scope: SeedScope::Data { repetition: true },
            doc:
                "which pairs: the dataset's axes and the repetition (the same pairs for every map)",
        },
        DATA_SEED,
    ],
    uses_learner: false,
    needs_feature_map: true,
    overlap: Overlap::Always,
    clock_metrics: &[column::MAP_SECONDS],
};

pub const GRAM_ERROR: KindInfo = KindInfo {
    name: "gram-error",
    doc: "The Gram matrix Z Z' of n_samples training rows against the exact kernel matrix, \
          block-wise: mean squared error over all entries (PRFF Figs. 1-2), relative Frobenius \
          error, max absolute error, bias.",
    params: &[count(
        "n_samples",
        None,
        "rows sampled from the training rows",
    )],
    metrics: &[
        "gram_mse",
        column::RELATIVE_FROBENIUS,
        "max_abs_error",
        "bias",
        column::MAP_SECONDS,
    ],
    seeds: &[
        MAP_SEED,
        SeedSpec {
            column: "sample_seed",
            prefix: Some("sample"),
            scope: SeedScope::Data { repetition: true },
            doc: "which rows: the dataset's axes and the repetition (the same rows for every map)",
        },
        DATA_SEED,
    ],
    uses_learner: false,
    needs_feature_map: true,
    overlap: Overlap::OnRequest,
    clock_metrics: &[column::MAP_SECONDS],
};

pub const TIMING: KindInfo = KindInfo {
    name: "timing",
    doc: "Feature-construction time: fit time, median transform time of n_rows rows over \
          `repeats` runs after `warmup`, seconds per row in a batch and for one row alone, \
          memory of the fitted map; cells one at a time, thread count set and recorded \
          (TS Fig. 2, Fastfood Table 1).",
    params: &[
        count(
            "n_rows",
            None,
            "rows mapped per timed run (sampled from the training rows)",
        ),
        count("repeats", Some(5), "timed runs; the median is reported"),
        ParamSpec {
            name: "warmup",
            kind: ParamKind::Int { min: 0, max: 1000 },
            default: Some(Default::Int(1)),
            doc: "untimed runs first",
        },
        ParamSpec {
            name: "threads",
            kind: ParamKind::Int { min: 0, max: 1024 },
            default: Some(Default::Int(0)),
            doc: "worker threads (0: all cores)",
        },
    ],
    metrics: &[
        "fit_seconds",
        "map_seconds",
        "seconds_per_row",
        "rows_per_second",
        "single_row_seconds",
        "memory_bytes",
        "threads_used",
    ],
    seeds: &[
        MAP_SEED,
        SeedSpec {
            column: "sample_seed",
            prefix: Some("sample"),
            scope: SeedScope::Data { repetition: true },
            doc: "which rows are timed: the dataset's axes and the repetition",
        },
        DATA_SEED,
    ],
    uses_learner: false,
    needs_feature_map: true,
    overlap: Overlap::Never,
    clock_metrics: &[
        "fit_seconds",
        column::MAP_SECONDS,
        "seconds_per_row",
        "rows_per_second",
        "single_row_seconds",
    ],
};

pub const LEARNING: KindInfo = KindInfo {
    name: "learning",
    doc: "Map fitted on the training rows, learner trained on their features, scored on the \
          test rows: accuracy / error % (classification) or RMSE / normalised RMSE \
          (regression), map, training and prediction times (TS Figs. 3-4 and Tables 1-3, \
          Rahimi & Recht Table 1, Fastfood Table 2, PRFF Fig. 3, the tutorial).",
    params: &[TRAIN_SIZE],
    metrics: &[
        column::ACCURACY,
        "error_percent",
        column::RMSE,
        "normalized_rmse",
        "n_features",
        column::MAP_SECONDS,
        column::TRAIN_SECONDS,
        column::PREDICT_SECONDS,
    ],
    seeds: &[
        MAP_SEED,
        SeedSpec {
            column: "split_seed",
            prefix: Some("split"),
            scope: SeedScope::Data { repetition: true },
            doc: "which training rows when train_size > 0: the dataset's axes and the repetition",
        },
        DATA_SEED,
    ],
    uses_learner: true,
    needs_feature_map: false,
    overlap: Overlap::OnRequest,
    clock_metrics: &[
        column::MAP_SECONDS,
        column::TRAIN_SECONDS,
        column::PREDICT_SECONDS,
    ],
};
