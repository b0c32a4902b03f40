//! The synthetic sources' wiring: the rows each entry of `rfbench_registry_data::generators`
//! (re-exported here) names, from rfbench-data's generators.

use rfbench_data::{DataError, Dataset, MakeClassification};
pub use rfbench_registry_data::generators::*;
use rfbench_registry_data::params::ParamValues;

/// A source's rows from a cell's parameters and its data seed.
pub type Generate = fn(&ParamValues, u64) -> Result<Dataset, DataError>;

/// Each source's generator, by its registry entry.
const WIRING: &[(&GeneratorInfo, Generate)] = &[
    (&GAUSSIAN, gaussian),
    (&MAKE_CLASSIFICATION, make_classification),
];

/// The rows of `generator` for a cell's parameters and data seed (every registered source has a
/// generator: tested).
pub fn generate(
    generator: &GeneratorInfo,
    params: &ParamValues,
    seed: u64,
) -> Result<Dataset, DataError> {
    let generate = WIRING
        .iter()
        .find(|(g, _)| g.name == generator.name)
        .map(|(_, generate)| generate)
        .unwrap_or_else(|| panic!("{generator:?} has no generator in rfbench-registry"));
    generate(params, seed)
}

fn gaussian(p: &ParamValues, seed: u64) -> Result<Dataset, DataError> {
    rfbench_data::gaussian(p.usize("n"), p.usize("d"), p.usize("n_test"), seed)
}

fn make_classification(p: &ParamValues, seed: u64) -> Result<Dataset, DataError> {
    let params = MakeClassification {
        n: p.usize("n"),
        d: p.usize("d"),
        n_informative: p.usize("n_informative"),
        n_redundant: p.usize("n_redundant"),
        n_classes: p.usize("n_classes"),
        n_clusters_per_class: p.usize("n_clusters_per_class"),
        class_sep: p.f64("class_sep"),
        flip_y: p.f64("flip_y"),
        n_test: p.usize("n_test"),
    };
    rfbench_data::make_classification(&params, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rfbench_registry_data::params::defaults;

    /// Every registered source has exactly one generator, every generator is a registered
    /// source's, and each makes the rows its entry's defaults ask for.
    #[test]
    fn every_source_is_wired_once_and_generates() {
        for info in GENERATORS {
            let n = WIRING.iter().filter(|(g, _)| g.name == info.name).count();
            assert_eq!(n, 1, "{info:?}: {n} generators");
            let params = defaults(info.params);
            let data = generate(info, &params, 3).unwrap();
            assert_eq!(data.x.n_rows(), params.usize("n"), "{info:?}");
        }
        for (wired, _) in WIRING {
            assert!(GENERATORS.iter().any(|g| g.name == wired.name), "{wired:?}");
        }
    }
}
