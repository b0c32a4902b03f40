//! Synthetic data sources, usable wherever a dataset name is: `dataset = "gaussian"` with axes
//! `n` and `d` is a spec, not code. The data's seed is the cell's `data_seed` (scoped, by default,
//! to the dataset's own coordinates, so every map of a sweep sees the same rows). The rows
//! themselves come from rfbench-data's generators, through the entry's wiring
//! (`rfbench_registry::generators::generate`).

use super::learners::TaskKind;
use super::params::{count, non_negative, positive, Default, ParamKind, ParamSpec};

#[derive(Clone, Copy)]
pub struct GeneratorInfo {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: &'static [ParamSpec],
    pub task: TaskKind,
}

const N_TEST: ParamSpec = ParamSpec {
    name: "n_test",
    kind: ParamKind::Int {
        min: 0,
        max: 1 << 31,
    },
    default: Some(Default::Int(0)),
    doc: "the last n_test rows are the test rows",
};

const fn small(name: &'static str, default: i64, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Int {
            min: 0,
            max: 1 << 20,
        },
        default: Some(Default::Int(default)),
        doc,
    }
}

/// Every synthetic source, in the order `rfbench kernels` lists them.
pub const GENERATORS: &[GeneratorInfo] = &[GAUSSIAN, MAKE_CLASSIFICATION];

pub const GAUSSIAN: GeneratorInfo = GeneratorInfo {
    name: "gaussian",
    doc: "n rows of i.i.d. N(0, 1) coordinates in d dimensions (labels 0)",
    params: &[
        count("n", None, "rows"),
        count("d", None, "dimension"),
        N_TEST,
    ],
    task: TaskKind::Regression,
};

pub const MAKE_CLASSIFICATION: GeneratorInfo = GeneratorInfo {
    name: "make-classification",
    doc: "scikit-learn's make_classification: informative clusters on hypercube vertices, \
          redundant combinations, noise, flipped labels",
    params: &[
        count("n", Some(100), "rows"),
        count("d", Some(20), "features"),
        small("n_informative", 2, "informative features"),
        small(
            "n_redundant",
            2,
            "linear combinations of the informative ones",
        ),
        count("n_classes", Some(2), "classes"),
        count(
            "n_clusters_per_class",
            Some(2),
            "Gaussian clusters per class",
        ),
        positive("class_sep", Some(1.0), "half the side of the hypercube"),
        non_negative("flip_y", 0.01, "fraction of labels flipped at random"),
        N_TEST,
    ],
    task: TaskKind::Classification,
};

impl std::fmt::Debug for GeneratorInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "generator {:?}", self.name)
    }
}
