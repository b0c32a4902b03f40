//! The loaded dataset every source produces (files, the parsed cache, the synthetic
//! generators) and every preprocessing step takes: one sparse matrix, train rows first.

use std::collections::BTreeMap;

use rfbench_maps::CsrMatrix;

/// A loaded dataset: the train rows first, then the test rows.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub name: String,
    /// `n` rows by the registry's `d` columns.
    pub x: CsrMatrix,
    /// One label per row: a class label (e.g. +1/-1) or a regression target.
    pub y: Vec<f64>,
    /// The first `n_train` rows are the training set, the rest the test set.
    pub n_train: usize,
}

/// What `rfbench datasets info` prints about a loaded dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub d: usize,
    pub n_train: usize,
    pub nnz: usize,
    /// Non-zeros over n * d.
    pub density: f64,
    /// Rows per label value, when there are at most 100 distinct labels (classification).
    pub classes: Option<Vec<(f64, usize)>>,
    /// Smallest and largest label.
    pub label_range: (f64, f64),
}

impl Dataset {
    pub fn summary(&self) -> Summary {
        let (n, d) = (self.x.n_rows(), self.x.n_cols());
        let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
        for y in &self.y {
            *counts.entry(y.to_bits()).or_default() += 1;
            if counts.len() > 100 {
                break;
            }
        }
        let classes = (counts.len() <= 100).then(|| {
            let mut c: Vec<(f64, usize)> = counts
                .into_iter()
                .map(|(b, k)| (f64::from_bits(b), k))
                .collect();
            c.sort_by(|a, b| a.0.total_cmp(&b.0));
            c
        });
        let label_range = self
            .y
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
                (lo.min(y), hi.max(y))
            });
        Summary {
            n,
            d,
            n_train: self.n_train,
            nnz: self.x.nnz(),
            density: if n * d > 0 {
                self.x.nnz() as f64 / (n as f64 * d as f64)
            } else {
                0.0
            },
            classes,
            label_range,
        }
    }
}
