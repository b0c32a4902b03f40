//! The component registry's data: every map, learner, kernel, synthetic data source, experiment
//! kind and preprocessing step a spec can name, each with its parameters as data.
//!
//! This is the only place that knows component names. The runner's spec validator, grid and
//! kinds, `rfbench compare`, `rfbench maps|learners|kernels`, the generated spec reference
//! (`docs/spec.md`) and the Python package all read these tables, so adding a map is one entry
//! here and a parameter's range or default is written once.
//!
//! It is the registry without its wiring: what a learner's entry trains and checks and what a
//! synthetic source's entry generates are in `rfbench-registry`, which re-exports everything here
//! at the same paths and adds that code. The split is by dependency: this crate needs only
//! rfbench-maps and `toml`, so the Python extension reads the tables without linking the learners
//! or rfbench-data (with its downloads and decompressors). A map's or kernel's constructor stays
//! with its entry, since it needs only rfbench-maps, whose parameter types it builds and whose
//! intervals bound the parameters. rfbench-data takes its preprocessing vocabulary ([`Step`],
//! [`Norm`]) from here.

pub mod generators;
pub mod kernels;
pub mod kinds;
pub mod learners;
#[cfg(any(test, feature = "test-helpers"))]
#[doc(hidden)]
pub mod library_defaults;
pub mod maps;
pub mod params;
pub mod python;
pub mod series;
pub mod steps;
pub mod tuned;

use std::fmt::Write as _;

pub use generators::{GeneratorInfo, GENERATORS};
pub use kernels::{KernelInfo, Norm, KERNELS};
pub use kinds::{KindInfo, Overlap, SeedScope, SeedSpec, KINDS};
pub use learners::{LearnerInfo, Needs, TaskKind, LEARNERS};
pub use maps::{CompareVariant, Features, MapInfo, MAPS};
pub use params::{
    seed_label, BandwidthRule, BandwidthSearch, ParamKind, ParamSpec, ParamValues, Value,
};
pub use series::Series;
pub use steps::{Step, STEP_NAMES};
pub use tuned::{ChosenBy, Tuned, TunedColumns};

pub fn map(name: &str) -> Option<&'static MapInfo> {
    MAPS.iter().find(|m| m.name == name)
}

pub fn learner(name: &str) -> Option<&'static LearnerInfo> {
    LEARNERS.iter().find(|l| l.name == name)
}

pub fn kernel(name: &str) -> Option<&'static KernelInfo> {
    KERNELS.iter().find(|k| k.name == name)
}

pub fn generator(name: &str) -> Option<&'static GeneratorInfo> {
    GENERATORS.iter().find(|g| g.name == name)
}

pub fn kind(name: &str) -> Option<&'static KindInfo> {
    KINDS.iter().find(|k| k.name == name)
}

/// The entry for "no features: the learner works on the exact kernel" ([`Features::Exact`]).
pub fn exact_map() -> &'static MapInfo {
    MAPS.iter()
        .find(|m| matches!(m.features, Features::Exact))
        .expect("the registry has an exact-kernel entry")
}

/// The entry for "the raw inputs" ([`Features::Raw`]): a linear model on them.
pub fn raw_map() -> &'static MapInfo {
    MAPS.iter()
        .find(|m| matches!(m.features, Features::Raw))
        .expect("the registry has a raw-inputs entry")
}

/// The learner `rfbench compare` uses by default for `task` on features
/// ([`Needs::Features`]) or on the exact kernel ([`Needs::Kernel`]).
pub fn compare_default_learner(task: TaskKind, needs: Needs) -> Option<&'static LearnerInfo> {
    LEARNERS
        .iter()
        .find(|l| l.needs == needs && l.compare_default_for.contains(&task))
}

pub fn map_names() -> Vec<&'static str> {
    MAPS.iter().map(|m| m.name).collect()
}

pub fn learner_names() -> Vec<&'static str> {
    LEARNERS.iter().map(|l| l.name).collect()
}

pub fn kernel_names() -> Vec<&'static str> {
    KERNELS.iter().map(|k| k.name).collect()
}

pub fn kind_names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}

/// Legend labels of component values: `(column, value) -> label`.
pub fn labels() -> Vec<((String, String), String)> {
    let maps = MAPS
        .iter()
        .map(|m| (("map".to_string(), m.name.to_string()), m.label.to_string()));
    let learners = LEARNERS.iter().map(|l| {
        (
            ("learner".to_string(), l.name.to_string()),
            l.label.to_string(),
        )
    });
    maps.chain(learners).collect()
}

fn default_text(p: &ParamSpec) -> String {
    match p.default {
        Some(d) => d.value().to_string(),
        None => "required".to_string(),
    }
}

fn params_table(out: &mut String, params: &[ParamSpec]) {
    if params.is_empty() {
        let _ = writeln!(out, "No parameters.\n");
        return;
    }
    let _ = writeln!(out, "| parameter | accepts | default | meaning |");
    let _ = writeln!(out, "|---|---|---|---|");
    for p in params {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            p.name,
            p.kind,
            default_text(p),
            p.doc
        );
    }
    let _ = writeln!(out);
}

fn params_lines(out: &mut String, params: &[ParamSpec]) {
    for p in params {
        let _ = writeln!(
            out,
            "    {:<20} {} (default: {}): {}",
            p.name,
            p.kind,
            default_text(p),
            p.doc
        );
    }
}

/// `rfbench maps`.
pub fn describe_maps() -> String {
    let mut s = String::new();
    for m in MAPS {
        let _ = writeln!(s, "{} ({}): {}", m.name, m.label, m.doc);
        if !m.paper.is_empty() {
            let _ = writeln!(s, "    paper: {}", m.paper);
        }
        if !m.kernels.is_empty() {
            let _ = writeln!(s, "    kernels: {}", m.kernels.join(", "));
        }
        if m.fits_on_data {
            let _ = writeln!(s, "    fitted on the training rows");
        }
        for v in m.compare_variants {
            let _ = writeln!(
                s,
                "    rfbench compare also sweeps {} ({} = {:?}) as a series of its own",
                v.name, v.param, v.value
            );
        }
        params_lines(&mut s, m.params);
    }
    s
}

/// `rfbench learners`.
pub fn describe_learners() -> String {
    let mut s = String::new();
    for l in LEARNERS {
        let _ = writeln!(s, "{} ({}): {}", l.name, l.label, l.doc);
        params_lines(&mut s, l.params);
    }
    s
}

/// `rfbench kernels`.
pub fn describe_kernels() -> String {
    let mut s = String::new();
    for k in KERNELS {
        let _ = writeln!(s, "{}: k(x, y) = {}", k.name, k.formula);
        params_lines(&mut s, k.params);
    }
    for g in GENERATORS {
        let _ = writeln!(s, "dataset \"{}\" (synthetic): {}", g.name, g.doc);
        params_lines(&mut s, g.params);
    }
    s
}

/// The component part of `docs/spec.md`, generated from the tables (a test keeps the committed
/// file equal to it).
pub fn reference_markdown() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Spec reference\n\n\
         Every experiment kind, map, learner, kernel and synthetic dataset a spec can name, with its \
         parameters. Generated from the component registry (`crates/registry-data`) by \
         `rfbench reference > docs/spec.md`; a test keeps this file equal to it. How to write a \
         spec: [spec-guide.md](spec-guide.md).\n"
    );
    let _ = writeln!(s, "## Experiment kinds\n");
    for k in KINDS {
        let _ = writeln!(s, "### `{}`\n\n{}\n", k.name, k.doc);
        params_table(&mut s, k.params);
        let _ = writeln!(
            s,
            "Metrics: {}.\n",
            k.metrics
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let clock = k.clock_metrics.iter().map(|m| format!("`{m}`"));
        let clock = clock.collect::<Vec<_>>().join(", ");
        let overlap = match k.overlap {
            Overlap::Always => "always (what it measures does not depend on what else runs)",
            Overlap::OnRequest => {
                "with `[run] overlap_runs = true`, when no figure, table, claim or paper value \
                 reads a clock metric"
            }
            Overlap::Never => "never (its clock metrics are its results)",
        };
        let _ = writeln!(s, "Clock metrics: {clock}. Runs overlap: {overlap}.\n");
        let _ = writeln!(s, "Seeds (CSV column: default scope):\n");
        for seed in k.seeds {
            let _ = writeln!(s, "- `{}`: {}", seed.column, seed.doc);
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "## Maps (`map = ...`)\n");
    for m in MAPS {
        let _ = writeln!(s, "### `{}` ({})\n\n{}\n", m.name, m.label, m.doc);
        if !m.paper.is_empty() {
            let _ = writeln!(s, "Paper: {}.", m.paper);
        }
        if !m.kernels.is_empty() {
            let _ = writeln!(
                s,
                "Kernels: {}.",
                m.kernels
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if m.fits_on_data {
            let _ = writeln!(s, "Fitted on the training rows.");
        }
        let _ = writeln!(s);
        params_table(&mut s, m.params);
    }
    let _ = writeln!(s, "## Learners (`learner = ...`)\n");
    for l in LEARNERS {
        let _ = writeln!(s, "### `{}`\n\n{}\n", l.name, l.doc);
        params_table(&mut s, l.params);
        let _ = writeln!(
            s,
            "Diagnostic columns: {}.\n",
            l.columns()
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let _ = writeln!(s, "## Kernels (`[kernel] name = ...`)\n");
    for k in KERNELS {
        let _ = writeln!(s, "### `{}`: `{}`\n", k.name, k.formula);
        params_table(&mut s, k.params);
    }
    let _ = writeln!(s, "## Synthetic datasets (`dataset = ...`)\n");
    for g in GENERATORS {
        let _ = writeln!(s, "### `{}`\n\n{}\n", g.name, g.doc);
        params_table(&mut s, g.params);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every clock metric is one of its kind's metrics, every kind has one, and timing runs,
    /// whose clock metrics are the results, never overlap.
    #[test]
    fn clock_metrics_are_metrics_of_their_kind() {
        for k in KINDS {
            for m in k.clock_metrics {
                assert!(k.metrics.contains(m), "{}: {m} is not a metric", k.name);
            }
            assert!(!k.clock_metrics.is_empty(), "{}: no clock metric", k.name);
        }
        assert_eq!(kind("timing").map(|k| k.overlap), Some(Overlap::Never));
    }

    /// docs/spec.md is generated: a parameter added or a range changed here must reach it.
    #[test]
    fn the_committed_spec_reference_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/spec.md");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == reference_markdown(),
            "docs/spec.md is out of date: run `rfbench reference > docs/spec.md`"
        );
    }

    #[test]
    fn names_are_unique_and_parameters_documented() {
        for names in [map_names(), learner_names(), kernel_names(), kind_names()] {
            let mut sorted = names.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), names.len(), "{names:?}");
        }
        let all = MAPS
            .iter()
            .flat_map(|m| m.params)
            .chain(LEARNERS.iter().flat_map(|l| l.params))
            .chain(KERNELS.iter().flat_map(|k| k.params));
        for p in all {
            assert!(!p.doc.is_empty(), "{} has no doc", p.name);
        }
        // Every kernel a map names exists.
        for m in MAPS {
            for k in m.kernels {
                assert!(kernel(k).is_some(), "{}: unknown kernel {k}", m.name);
            }
        }
    }

    /// The facts front ends read are consistent with the entries they name.
    #[test]
    fn kernel_facts_name_real_parameters_and_maps() {
        for k in KERNELS {
            assert_eq!(
                k.bandwidth_norm.is_some(),
                k.bandwidth_param().is_some(),
                "kernel {}: a norm exactly when there is a bandwidth",
                k.name
            );
            if let Some(name) = k.tuning_map {
                let m = map(name).unwrap_or_else(|| panic!("kernel {}: no map {name}", k.name));
                assert!(
                    m.is_feature_map() && m.kernels.contains(&k.name),
                    "{name}, {}",
                    k.name
                );
            }
        }
    }

    #[test]
    fn learner_facts_are_consistent() {
        for l in LEARNERS {
            if let Some(p) = l.penalty {
                assert!(l.params.iter().any(|q| q.name == p), "{}: no {p}", l.name);
            }
            if let Some(name) = l.exact_counterpart {
                let exact = learner(name).unwrap_or_else(|| panic!("{}: no {name}", l.name));
                assert_eq!((l.needs, exact.needs), (Needs::Features, Needs::Kernel));
                assert_eq!(l.penalty, exact.penalty, "{} and {name}", l.name);
            }
            for &task in l.compare_default_for {
                assert!(l.does(task) && l.tunes_penalty() || l.needs == Needs::Kernel);
            }
        }
        for task in [TaskKind::Classification, TaskKind::Regression] {
            for needs in [Needs::Features, Needs::Kernel] {
                let n = LEARNERS
                    .iter()
                    .filter(|l| l.needs == needs && l.compare_default_for.contains(&task))
                    .count();
                assert_eq!(n, 1, "{task:?} {needs:?}: one default learner");
            }
        }
        assert!(!exact_map().is_feature_map() && !raw_map().is_feature_map());
    }
}
