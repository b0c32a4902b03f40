//! Experiment kinds: how a cell is measured. Each kind's declaration (parameters, metric columns,
//! seeds with their default scopes, whether its cells may run concurrently) is data in
//! [`rfbench_registry::kinds`]; this module pairs each with its measurement ([`runner`]), and the
//! runner does the rest (data, grid, CSV, outputs, check) the same way for all of them.
//!
//! - `kernel-error`: kernel estimates on random pairs against the exact kernel (Pham & Pagh Fig. 1).
//! - `gram-error`: the Gram matrix of a sample against the exact one, block-wise (PRFF Figs. 1-2).
//! - `timing`: map construction and transform time, time per vector, memory (TS Fig. 2,
//!   Fastfood Table 1); cells one at a time.
//! - `learning`: map + learner trained on the training rows, scored on the test rows.

mod gram_error;
mod kernel_error;
mod learning;
mod timing;

use std::collections::BTreeMap;

use rfbench_maps::{DynFeatureMap, Kernel, Rows};

use crate::error::{Error, Result};
use crate::results::{CellOutcome, MetricsBuilder};
use crate::spec::{Cell, Plan};
use rfbench_data::Prepared;
use rfbench_registry::kernels::KernelInfo;
use rfbench_registry::kinds::{self, KindInfo};
use rfbench_registry::{BandwidthSearch, Features, ParamValues, Tuned, Value};

pub use kernel_error::{sample_pairs, ErrorSummary};
pub use learning::STREAM_ABOVE_BYTES;

/// Everything a kind's cell function sees.
pub struct CellContext<'a> {
    pub plan: &'a Plan,
    pub cell: &'a Cell,
    pub repetition: usize,
    /// Seeds by column.
    pub seeds: &'a BTreeMap<String, u64>,
    /// The prepared dataset: training rows first.
    pub data: &'a Prepared,
    /// The kernel, its bandwidth resolved; `None` when the spec names none, or when its
    /// bandwidth is chosen by cross-validation (`kernel_search`).
    pub kernel: Option<Kernel>,
    /// A bandwidth the cell chooses by cross-validation (kind `learning` only: checked by the
    /// spec).
    pub kernel_search: Option<KernelSearch>,
    /// The values the kernel's bandwidth rules gave (`sigma_used`).
    pub tuned: &'a [Tuned],
}

/// A kernel whose bandwidth `param` is chosen from `search`'s candidates.
pub struct KernelSearch {
    pub info: &'static KernelInfo,
    pub param: String,
    pub search: BandwidthSearch,
    /// The kernel's other parameters, resolved.
    pub params: ParamValues,
}

impl KernelSearch {
    /// The kernel with `param = value`.
    pub fn kernel(&self, value: f64) -> Result<Kernel> {
        let mut params = self.params.clone();
        params.0.insert(self.param.clone(), Value::Float(value));
        Ok((self.info.build)(&params)?)
    }
}

impl CellContext<'_> {
    /// The builder of this cell's metrics, checked against the plan's metric columns, with the
    /// bandwidth rules' values already in.
    pub fn metrics(&self) -> Result<MetricsBuilder<'_>> {
        let mut metrics = MetricsBuilder::new(&self.plan.metrics);
        for tuned in self.tuned {
            metrics.tuned(tuned)?;
        }
        Ok(metrics)
    }

    pub fn seed(&self, column: &str) -> u64 {
        *self
            .seeds
            .get(column)
            .unwrap_or_else(|| panic!("kind declared no seed {column:?}"))
    }

    /// The cell's kernel (present whenever its map approximates one: checked by the spec).
    pub fn kernel(&self) -> Result<Kernel> {
        self.kernel.ok_or_else(|| {
            Error::Experiment(format!(
                "map {:?} needs a kernel and the spec names none",
                self.cell.map.name
            ))
        })
    }

    /// The cell's feature map, fitted on `train` with the cell's seed.
    pub fn build_map(&self, train: Rows<'_>) -> Result<Box<dyn DynFeatureMap>> {
        self.build_map_for(self.kernel()?, train)
    }

    /// The cell's feature map for `kernel` (a candidate bandwidth), fitted on `train`.
    pub fn build_map_for(&self, kernel: Kernel, train: Rows<'_>) -> Result<Box<dyn DynFeatureMap>> {
        let Features::Map(construct) = self.cell.map.features else {
            return Err(Error::Experiment(format!(
                "kind {:?} needs a feature map, and {:?} has none",
                self.plan.kind.name, self.cell.map.name
            )));
        };
        let config = construct(&self.cell.map_params, &kernel)?;
        Ok(config.fit(self.seed("seed"), train)?)
    }
}

pub type RunCell = fn(&CellContext<'_>) -> Result<CellOutcome>;

/// Each kind's measurement, by its registry declaration.
const RUNNERS: &[(&KindInfo, RunCell)] = &[
    (&kinds::KERNEL_ERROR, kernel_error::run),
    (&kinds::GRAM_ERROR, gram_error::run),
    (&kinds::TIMING, timing::run),
    (&kinds::LEARNING, learning::run),
];

/// The function that measures a cell of `kind` (every registered kind has one: tested).
pub fn runner(kind: &KindInfo) -> RunCell {
    RUNNERS
        .iter()
        .find(|(k, _)| k.name == kind.name)
        .map(|(_, run)| *run)
        .unwrap_or_else(|| panic!("kind {:?} has no measurement in crate::kinds", kind.name))
}

/// The median of a non-empty sample (the mean of the two middle values for an even count).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let m = values.len();
    if m % 2 == 1 {
        values[m / 2]
    } else {
        0.5 * (values[m / 2 - 1] + values[m / 2])
    }
}

/// Training rows of the prepared data (all rows when it has no test split).
pub fn train_rows(data: &Prepared) -> rfbench_maps::CsrMatrix {
    let rows: Vec<usize> = (0..data.n_train).collect();
    data.x.select_rows(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_kind_has_exactly_one_measurement() {
        for kind in kinds::KINDS {
            let n = RUNNERS.iter().filter(|(k, _)| k.name == kind.name).count();
            assert_eq!(n, 1, "{kind:?}");
        }
        assert_eq!(RUNNERS.len(), kinds::KINDS.len());
    }
}
