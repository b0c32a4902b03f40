//! A comparison's [`Setup`] as [`Setup::decide`] makes it, without reading data, for the unit
//! tests of `compare`'s modules. Components are found through the registry, never named.

use super::setup::Setup;
use rfbench_data::Task;
use rfbench_registry::{LearnerInfo, Needs, Series, TaskKind};

const ENTRY: &str = r#"
name = "toy"
description = "a file of the user's"
task = "binary"
format = "libsvm"
n = 600
d = 4

[[files]]
role = "train"
file = "toy.svm"
local = [{ path = "toy.svm" }]
"#;

pub fn default_learner(task: TaskKind, needs: Needs) -> &'static LearnerInfo {
    rfbench_registry::compare_default_learner(task, needs).unwrap()
}

/// 600 rows (450 training rows, no test rows), 4 features, the kernel's default maps (and their
/// variants), ladder
/// 64, 128, 256, three repetitions, seed 7; bandwidth candidates 0.5, 1, 2 around a median of 1.
pub fn setup(kernel: &str, task: Task, learner: Option<&str>) -> Setup {
    let kernel = rfbench_registry::kernel(kernel).unwrap();
    let kind = TaskKind::from(task);
    let learner = learner.map_or_else(
        || default_learner(kind, Needs::Features),
        |l| rfbench_registry::learner(l).unwrap(),
    );
    let exact_learner = default_learner(kind, Needs::Kernel);
    let mut entry: toml::Value = toml::from_str(ENTRY).unwrap();
    let table = entry.as_table_mut().unwrap();
    table.insert("task".into(), rfbench_data::task_name(task).into());
    let bandwidth = kernel.bandwidth_param().is_some();
    Setup {
        dataset: "toy".into(),
        embedded: Some(entry),
        task,
        n: 600,
        n_train: 450,
        d: 4,
        has_test: false,
        test_fraction: 0.25,
        kernel,
        degree: 2,
        sigmas: if bandwidth {
            vec![0.5, 1.0, 2.0]
        } else {
            vec![]
        },
        median: bandwidth.then_some(1.0),
        normalise: kernel.normalisation,
        maps: rfbench_registry::MAPS
            .iter()
            .filter(|m| m.is_feature_map() && m.in_default_comparison)
            .filter(|m| m.kernels.contains(&kernel.name))
            .flat_map(rfbench_registry::series::of_map)
            .collect(),
        ladder: vec![64, 128, 256],
        learner,
        exact_learner,
        penalty: learner.penalty.unwrap(),
        exact_penalty: exact_learner.penalty.unwrap(),
        repetitions: 3,
        seed: 7,
        guesses: vec!["a guess".into()],
        labels: (0..100).map(|i| f64::from(i % 2)).collect(),
    }
}

/// A Gaussian-kernel classification setup comparing two maps whose components are not training
/// rows, then (when `with_rows`) one whose components are (Nystroem's landmarks).
pub fn two_maps(with_rows: bool) -> Setup {
    let mut s = setup("gaussian", Task::Binary, None);
    let plain: Vec<Series> = s
        .maps
        .iter()
        .copied()
        .filter(|m| !m.map.components_are_rows && m.variant.is_none())
        .take(2)
        .collect();
    let rows = s.maps.iter().copied().find(|m| m.map.components_are_rows);
    s.maps = plain;
    s.maps.extend(rows.filter(|_| with_rows));
    assert_eq!(s.maps.len(), 2 + usize::from(with_rows), "{:?}", s.maps);
    s
}
