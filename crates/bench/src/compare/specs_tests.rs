//! Tests of [`super`] and of the specs each stage writes with it: every spec plans, for every
//! kernel and task, and says what it was written from.

use super::*;
use crate::compare::setup::EXACT_PENALTIES;
use crate::compare::stages::{confirm, gram, own_penalty, pilot, sweep, tune};
use crate::compare::test_support::{default_learner, setup};
use rfbench_data::{Registry, Step, Task};
use rfbench_registry::{Needs, TaskKind};

/// The regression learner on features (ridge), which also classifies: its penalty is not
/// the exact SVM's, so the exact machine needs a tuner.
fn regression_learner() -> &'static str {
    default_learner(TaskKind::Regression, Needs::Features).name
}

fn tuned() -> Tuned {
    Tuned::new(Some(1.25), 0.5, Some(2.5), 2.0)
}

fn sweep_of(setup: &Setup) -> Sweep {
    Sweep {
        per_map: setup
            .maps
            .iter()
            .map(|m| (m.name(), vec![64, 128]))
            .collect(),
        exact_train_size: Some(0),
        skipped: vec!["a map at D >= 256: over the budget".into()],
    }
}

/// The text reads back to the same spec, and the runner plans it.
pub(crate) fn plans(written: &Written) -> crate::spec::Plan {
    let path = Path::new("out/spec.toml");
    let text = written.text();
    let raw = RawSpec::parse(&text, path).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(raw.to_toml(), written.spec.to_toml(), "{text}");
    let datasets = Registry::parse_embedded(&text, path).unwrap();
    raw.plan(&text, path, &Profile::Full, &datasets)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn every_spec_plans_for_every_kernel_and_task() {
    let cases = [
        ("gaussian", Task::Binary, None),
        ("laplacian", Task::Binary, None),
        ("matern", Task::Regression, None),
        ("polynomial", Task::Multiclass, Some(regression_learner())),
    ];
    for (kernel, task, learner) in cases {
        let s = setup(kernel, task, learner);
        let t = tuned();
        let tune_plan = plans(&tune::spec(&s, "tune", s.tuning_rows()).unwrap());
        // The tuning map's cell, and the exact machine's: one that cross-validates its
        // penalty, or one per value tried.
        let exact_cells = if s.exact_learner.tunes_penalty() {
            1
        } else {
            EXACT_PENALTIES.len()
        };
        assert_eq!(tune_plan.cells.len(), 1 + exact_cells, "{kernel}");
        let pilot = plans(&pilot::spec(&s, t, 128).unwrap());
        // Every map at two D, the raw baseline and the exact machine on all the pilot's
        // training rows and on half of them.
        let half = pilot::exact_half(pilot::pilot_train(&s));
        assert!(half.is_some(), "{kernel}");
        assert_eq!(pilot.cells.len(), 2 * s.maps.len() + 3, "{kernel}");
        let sweep_plan = plans(&sweep::spec(&s, t, &sweep_of(&s)).unwrap());
        assert_eq!(sweep_plan.cells.len(), 2 * s.maps.len() + 2, "{kernel}");
        // The exact machine with its own bandwidth, the maps with theirs.
        if let Some(param) = s.kernel.bandwidth_param() {
            let exact = rfbench_registry::exact_map().name;
            for cell in &sweep_plan.cells {
                let own = if cell.map.name == exact { 2.5 } else { 1.25 };
                let sigma = cell.kernel_params.get(param.name).and_then(|v| v.as_f64());
                assert_eq!(sigma, Some(own), "{kernel}, {}", cell.map.name);
            }
        }
        // Left out by the budget: no exact cell, and no table for its learner either.
        let without = Sweep {
            exact_train_size: None,
            ..sweep_of(&s)
        };
        let sweep_plan = plans(&sweep::spec(&s, t, &without).unwrap());
        assert_eq!(sweep_plan.cells.len(), 2 * s.maps.len() + 1, "{kernel}");
        // A confirmation round: one map's cell and the exact machine, 12 repetitions.
        let one = Sweep {
            per_map: vec![(s.maps[0].name(), vec![128])],
            exact_train_size: Some(0),
            skipped: Vec::new(),
        };
        let confirm_plan = plans(&confirm::spec("confirm-1", &s, t, &one, false, 12).unwrap());
        assert_eq!(confirm_plan.cells.len(), 2, "{kernel}");
        assert!(
            confirm_plan.cells.iter().all(|c| c.repetitions == 12),
            "{kernel}"
        );
        // The exact machine's learning-curve sizes confirmed alone: its own bandwidth.
        let exact_alone = Sweep {
            per_map: s.maps.iter().map(|m| (m.name(), Vec::new())).collect(),
            exact_train_size: Some(3000),
            skipped: Vec::new(),
        };
        let alone = plans(&confirm::spec("confirm-2", &s, t, &exact_alone, false, 6).unwrap());
        assert_eq!(alone.cells.len(), 1, "{kernel}");
        if let Some(param) = s.kernel.bandwidth_param() {
            let sigma = alone.cells[0].kernel_params.get(param.name);
            assert_eq!(sigma.and_then(|v| v.as_f64()), t.exact_sigma, "{kernel}");
        }
        let gram_plan = plans(&gram::spec(&s, t, &sweep_of(&s)).unwrap());
        assert_eq!(gram_plan.cells.len(), 2 * s.maps.len(), "{kernel}");
        per_map_penalties_reach_their_cells(&s, kernel);
    }
}

/// The planned cells of `map` (all its series): series, D and the learner's `penalty`.
fn series_cells(
    plan: &crate::spec::Plan,
    map: &str,
    penalty: &str,
) -> Vec<(&'static str, usize, f64)> {
    plan.cells
        .iter()
        .filter(|c| c.map.name == map)
        .map(|c| {
            let d = c
                .map_params
                .get(N_COMPONENTS.name)
                .and_then(|v| v.as_usize());
            let value = c.learner_params.get(penalty).and_then(|v| v.as_f64());
            (series_of(c), d.unwrap(), value.unwrap())
        })
        .collect()
}

/// The series of a planned cell: its map, and its variant's parameters.
fn series_of(cell: &crate::spec::Cell) -> &'static str {
    let text = |p: &str| cell.map_params.get(p).and_then(|v| v.as_str());
    Series::of(cell.map.name, text).map_or(cell.map.name, |s| s.name())
}

/// `tune-maps` plans one cell per series searched; in the sweep each series' cells take
/// its own penalty, the others and the baseline the tuning map's, the exact machine its own.
fn per_map_penalties_reach_their_cells(s: &Setup, kernel: &str) {
    let maps: Vec<&str> = s.maps.iter().skip(1).map(|m| m.name()).collect();
    let at: Vec<(&str, usize)> = maps.iter().map(|m| (*m, 128)).collect();
    let written = own_penalty::spec(s, tuned(), "tune-maps", &at, s.tuning_rows()).unwrap();
    let plan = plans(&written);
    assert_eq!(plan.cells.len(), maps.len(), "{kernel}");
    let planned: Vec<&str> = plan.cells.iter().map(series_of).collect();
    assert_eq!(planned.len(), maps.len(), "{kernel}");
    assert!(
        maps.iter().all(|m| planned.contains(m)),
        "{kernel}: {planned:?}"
    );
    for own in s.maps.iter().skip(1).map(|m| m.name()) {
        let mut t = tuned();
        t.set_penalty(own, 8.0, 128);
        let sweep_plan = plans(&sweep::spec(s, t, &sweep_of(s)).unwrap());
        for cell in &sweep_plan.cells {
            let name = series_of(cell);
            let param = match cell.learner.map(|l| l.name) {
                Some(l) if l == s.exact_learner.name => s.exact_penalty,
                _ => s.penalty,
            };
            let want = match name {
                _ if name == rfbench_registry::exact_map().name => t.exact_penalty,
                _ if name == own => 8.0,
                _ => t.penalty,
            };
            let got = cell.learner_params.get(param).and_then(|v| v.as_f64());
            assert_eq!(got, Some(want), "{kernel}, {name}");
        }
    }
}

/// A map swept with its variants (RFF and its phase form) is one zipped axis of its table:
/// each series its own D and penalty, the form in the cells, and the figures' series.
#[test]
fn a_variant_has_its_own_ladder_penalty_and_figure_series() {
    let s = setup("gaussian", Task::Binary, None);
    let variant = s.maps.iter().find(|m| m.variant.is_some()).unwrap();
    let plain = Series::plain(variant.map);
    let param = variant.variant.unwrap().param;
    let mut t = tuned();
    t.set_penalty(variant.name(), 8.0, 128);
    let sweep = Sweep {
        per_map: vec![
            (plain.name(), vec![64, 128, 256]),
            (variant.name(), vec![64]),
        ],
        exact_train_size: None,
        skipped: Vec::new(),
    };
    let w = sweep::spec(&s, t, &sweep).unwrap();
    let plan = plans(&w);
    let cells = series_cells(&plan, plain.map.name, s.penalty);
    assert_eq!(
        cells,
        [
            (plain.name(), 64, 0.5),
            (plain.name(), 128, 0.5),
            (plain.name(), 256, 0.5),
            (variant.name(), 64, 8.0)
        ]
    );
    for figure in &w.spec.figures {
        let series: Vec<&str> = figure
            .series
            .iter()
            .flatten()
            .map(|c| c.get_ref().as_str())
            .collect();
        assert_eq!(series, ["map", param]);
    }
    // The variant alone: still its parameter in every cell.
    let alone = Sweep {
        per_map: vec![(variant.name(), vec![64, 128])],
        ..sweep.clone()
    };
    let plan = plans(&sweep::spec(&s, t, &alone).unwrap());
    let variants = plan
        .cells
        .iter()
        .filter(|c| series_of(c) == variant.name())
        .count();
    assert_eq!(variants, 2);
    // The map alone: no parameter written, the figures' series the map only.
    let only = Sweep {
        per_map: vec![(plain.name(), vec![64])],
        ..sweep.clone()
    };
    let w = sweep::spec(&s, t, &only).unwrap();
    let keys: Vec<&String> = w.spec.maps[plain.map.name].keys().collect();
    assert_eq!(keys, [&format!("{}, {}", N_COMPONENTS.name, s.penalty)]);
    assert_eq!(w.spec.figures[0].series.as_ref().map(Vec::len), Some(1));
    let gram = plans(&gram::spec(&s, t, &sweep).unwrap());
    let grams: Vec<&str> = gram.cells.iter().map(series_of).collect();
    assert_eq!(
        grams,
        [plain.name(), plain.name(), plain.name(), variant.name()]
    );
}

/// A last rung's penalty reaches that cell only; `tune-last` searches each series at its
/// own D (a map with variants: each at its own, in its table).
#[test]
fn a_last_rungs_penalty_is_its_cells_and_each_series_is_searched_at_its_d() {
    let s = setup("gaussian", Task::Binary, None);
    let variant = s.maps.iter().find(|m| m.variant.is_some()).unwrap();
    let plain = Series::plain(variant.map);
    let mut t = tuned();
    t.set_last_rung(variant.name(), 8.0, 256);
    let sweep = Sweep {
        per_map: vec![
            (plain.name(), vec![64, 256]),
            (variant.name(), vec![64, 256]),
        ],
        ..Sweep::default()
    };
    let plan = plans(&sweep::spec(&s, t, &sweep).unwrap());
    let cells = series_cells(&plan, plain.map.name, s.penalty);
    let want = [
        (plain.name(), 64, 0.5),
        (plain.name(), 256, 0.5),
        (variant.name(), 64, 0.5),
        (variant.name(), 256, 8.0),
    ];
    assert_eq!(cells, want);
    let at = [(plain.name(), 1024), (variant.name(), 256)];
    let plan = plans(&own_penalty::spec(&s, t, "tune-last", &at, s.tuning_rows()).unwrap());
    let searched: Vec<(&str, usize)> = plan
        .cells
        .iter()
        .map(|c| {
            let d = c
                .map_params
                .get(N_COMPONENTS.name)
                .and_then(|v| v.as_usize());
            (series_of(c), d.unwrap())
        })
        .collect();
    assert_eq!(searched, at);
}

#[test]
fn the_tuning_run_names_the_kernels_bandwidth_and_the_tuner() {
    // Matern's bandwidth is `length_scale`, not `sigma`.
    let matern = setup("matern", Task::Regression, None);
    let written = tune::spec(&matern, "tune", matern.tuning_rows()).unwrap();
    let kernel = &written.spec.kernel;
    assert!(kernel.contains_key("length_scale") && !kernel.contains_key("sigma"));
    assert!(!kernel.contains_key("degree"));
    // The ridge classifier's lambda is no C: the exact SVM tries each of its C values,
    // each cell choosing its own bandwidth by cross-validation; its lambda is cross-validated.
    let ridge = setup("gaussian", Task::Binary, Some(regression_learner()));
    let written = tune::spec(&ridge, "tune", ridge.tuning_rows()).unwrap();
    let learners = &written.spec.learners;
    assert_eq!(
        learners[ridge.learner.name][ridge.penalty].get_ref(),
        &Value::from("cv")
    );
    let tried = learners[ridge.exact_learner.name][ridge.exact_penalty].get_ref();
    assert_eq!(tried, &numbers(&EXACT_PENALTIES));
    let bandwidth = ridge.kernel.bandwidth_param().unwrap().name;
    assert!(written.spec.kernel[bandwidth].get_ref().is_table());
    // A validation split in every repetition, drawn from the training rows.
    assert_eq!(
        written.spec.seeds["data_seed"].get_ref(),
        &vec!["repetition".to_string()]
    );
    // The polynomial kernel: a degree, no bandwidth; the sketch tunes.
    let poly = setup("polynomial", Task::Binary, None);
    let written = tune::spec(&poly, "tune", poly.tuning_rows()).unwrap();
    assert!(written.spec.kernel.contains_key("degree"));
    assert_eq!(tuning_map(&poly), poly.kernel.tuning_map.unwrap());
}

#[test]
fn the_sweep_says_what_was_chosen_and_left_out_and_steps_read_back() {
    let s = setup("gaussian", Task::Binary, None);
    let w = sweep::spec(&s, tuned(), &sweep_of(&s)).unwrap();
    let text = w.text();
    assert!(text.starts_with("# Written by `rfbench compare`"), "{text}");
    assert!(text.contains("# - a guess\n"), "{text}");
    assert!(text.contains("# - left out: a map at D >= 256"), "{text}");
    let preprocess = w.spec.data["preprocess"].get_ref().as_array().unwrap();
    let steps: Vec<Step> = preprocess
        .iter()
        .map(|v| Step::from_toml(v).unwrap())
        .collect();
    assert_eq!(steps, s.preprocess(None));
    assert_eq!(w.spec.figures.len(), 2);
}

/// `tune-edge.toml`: the exact machine alone, at the top of the range and past it, on the
/// tuning run's rows, splits and bandwidth candidates.
#[test]
fn the_search_past_the_edge_runs_the_exact_machine_alone() {
    for kernel in ["polynomial", "gaussian"] {
        let s = setup(kernel, Task::Binary, None);
        assert!(!s.exact_learner.tunes_penalty());
        let values = [2048.0, 8192.0, 32768.0];
        let written = tune::edge_spec(&s, s.tuning_rows(), &values).unwrap();
        let plan = plans(&written);
        assert_eq!(plan.cells.len(), values.len(), "{kernel}");
        let tried = written.spec.learners[s.exact_learner.name][s.exact_penalty].get_ref();
        assert_eq!(tried, &numbers(&values));
        assert_eq!(written.spec.learners.len(), 1);
        let tune = tune::spec(&s, "tune", s.tuning_rows()).unwrap();
        assert_eq!(written.spec.kernel, tune.spec.kernel, "{kernel}");
        assert_eq!(written.spec.data, tune.spec.data, "{kernel}");
        assert_eq!(written.spec.seeds, tune.spec.seeds, "{kernel}");
    }
}

#[test]
fn a_seed_toml_cannot_hold_is_an_error_not_a_wrapped_number() {
    let mut s = setup("gaussian", Task::Binary, None);
    s.seed = u64::MAX;
    let err = tune::spec(&s, "tune", s.tuning_rows())
        .unwrap_err()
        .to_string();
    assert!(err.contains("largest integer"), "{err}");
}

/// Round 0 runs the baseline and the exact machine alone (`compare.toml` without maps, or
/// `exact-N.toml`), and the rounds after take their rows only if the full sweep's spec gives
/// those cells the same seeds: with the maps' penalties an axis, it does.
#[test]
fn round_zeros_cells_have_the_full_sweeps_seeds() {
    let s = setup("gaussian", Task::Binary, None);
    let full = sweep_of(&s);
    for size in [Some(0), Some(3000)] {
        let alone = Sweep {
            per_map: s.maps.iter().map(|m| (m.name(), Vec::new())).collect(),
            exact_train_size: size,
            skipped: Vec::new(),
        };
        let grown = Sweep {
            exact_train_size: size,
            ..full.clone()
        };
        let seeds = |plan: &crate::spec::Plan| {
            let references = plan
                .cells
                .iter()
                .filter(|c| c.learner.is_some())
                .filter(|c| {
                    let map = c.map.name;
                    map == rfbench_registry::raw_map().name
                        || map == rfbench_registry::exact_map().name
                });
            references
                .flat_map(|c| (0..c.repetitions).map(move |r| crate::run::seeds_of(plan, c, r)))
                .collect::<Vec<_>>()
        };
        let before = plans(&sweep::spec_named("exact-1", &s, tuned(), &alone).unwrap());
        let after = plans(&sweep::spec(&s, tuned(), &grown).unwrap());
        assert_eq!(
            seeds(&before).len(),
            6,
            "two cells, three repetitions: {size:?}"
        );
        assert_eq!(seeds(&before), seeds(&after), "{size:?}");
    }
}
