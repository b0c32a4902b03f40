//! Tests of [`super`]: the decisions made from small files written on the spot, what the user
//! reads of them, and bad input refused with an error that names it.

use std::path::{Path, PathBuf};

use super::*;
use crate::compare::data::plain_name;
use crate::compare::test_support::{default_learner, setup};
use rfbench_registry::KERNELS;

/// The first kernel with a bandwidth (its candidates are multiples of the median distance).
fn bandwidth_kernel() -> &'static KernelInfo {
    KERNELS
        .iter()
        .find(|k| k.bandwidth_param().is_some())
        .unwrap()
}

/// A kernel with a degree and no bandwidth (the polynomial kernel).
fn degree_kernel() -> &'static KernelInfo {
    KERNELS
        .iter()
        .find(|k| k.degree_param().is_some() && k.bandwidth_param().is_none())
        .unwrap()
}

fn options(data: &Path) -> CompareOptions {
    CompareOptions {
        data: data.to_string_lossy().into_owned(),
        test: None,
        test_size: 0.25,
        kernel: bandwidth_kernel().name.into(),
        degree: 2,
        maps: None,
        max_components: 256,
        sigma: None,
        learner: None,
        budget: 60.0,
        out: data.with_file_name("out"),
        quick: false,
        label_column: None,
        task: None,
        repetitions: 3,
        seed: 7,
    }
}

/// `rows` lines `x,y,label` under a header: two classes (`yes`, `no`) or, with `numeric`,
/// targets such as 0.35.
fn write_csv(dir: &Path, name: &str, rows: usize, numeric: bool) -> PathBuf {
    let mut text = String::from("x,y,label\n");
    for i in 0..rows {
        let label = match (numeric, i % 2) {
            (true, _) => format!("{:.2}", i as f64 / 20.0),
            (false, 0) => "yes".into(),
            (false, _) => "no".into(),
        };
        text += &format!("{:.2},{},{label}\n", i as f64 / 10.0, i % 7);
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn decide(options: &CompareOptions) -> Result<Setup> {
    Setup::decide(options, Path::new(&options.data).parent().unwrap())
}

#[test]
fn a_csv_file_is_described_and_the_task_chooses_the_learners() {
    let dir = tempfile::tempdir().unwrap();
    let s = decide(&options(&write_csv(dir.path(), "points.v2.csv", 40, false))).unwrap();
    assert_eq!((s.dataset.as_str(), s.task), ("points", Task::Binary));
    // No test rows: a quarter of the 40 is held out in every repetition.
    assert_eq!((s.n, s.d, s.n_train, s.has_test), (40, 2, 30, false));
    let entry = s.embedded.as_ref().unwrap();
    assert_eq!(entry.get("name").and_then(|v| v.as_str()), Some("points"));
    let classification = default_learner(TaskKind::Classification, Needs::Features);
    assert_eq!(s.learner.name, classification.name);
    // The linear SVM's exact counterpart, the kernel SVM.
    assert_eq!(Some(s.exact_learner.name), classification.exact_counterpart);
    assert_eq!((s.penalty, s.exact_penalty), ("C", "C"));
    assert_eq!(s.ladder, vec![64, 128, 256]);
    // 0.25 to 4 times the median distance.
    let m = s.median.unwrap();
    assert!(m > 0.0);
    assert_eq!(s.sigmas, vec![0.25 * m, 0.5 * m, m, 2.0 * m, 4.0 * m]);
    // What was guessed comes first in the decisions, as the data crate said it.
    let decisions = s.decisions();
    assert_eq!(decisions[..s.guesses.len()], s.guesses[..]);
    assert!(
        s.guesses.iter().any(|g| g.contains("header row")),
        "{:?}",
        s.guesses
    );
    assert!(s
        .guesses
        .contains(&"task: binary (2 classes, from the labels)".to_string()));
    assert_eq!(
        decisions[s.guesses.len()],
        "data: points (40 rows, 2 features); no test rows: every repetition draws a new \
         stratified train/test split, 25 % test"
    );
}

#[test]
fn numeric_targets_make_a_regression_and_a_test_file_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(&write_csv(dir.path(), "targets.csv", 40, true));
    o.test = Some(write_csv(dir.path(), "held-out.csv", 12, true));
    let s = decide(&o).unwrap();
    assert_eq!(s.task, Task::Regression);
    assert_eq!((s.n, s.n_train, s.has_test), (52, 40, true));
    let regression = default_learner(TaskKind::Regression, Needs::Features);
    assert_eq!(s.learner.name, regression.name);
    // Kernel ridge tunes its own lambda.
    assert_eq!(Some(s.exact_learner.name), regression.exact_counterpart);
    assert!(s.exact_learner.tunes_penalty());
    // The test rows are the same in every repetition: no split.
    assert_eq!(s.preprocess(None), vec![s.normalise]);
    // The tuning run never sees them: its validation rows are drawn from the training rows.
    let validation = Step::Split {
        test_fraction: o.test_size,
        stratify: false,
    };
    assert_eq!(
        s.tuning_preprocess(s.tuning_rows()),
        vec![Step::TrainRows, validation, s.normalise]
    );
    let decisions = s.decisions();
    let data = &decisions[s.guesses.len()];
    assert_eq!(
        data,
        "data: targets (40 training rows and 12 test rows, 2 features); its own test rows, the \
         same in every repetition"
    );
}

#[test]
fn the_exact_machine_is_the_counterpart_or_the_tasks_default_and_tunes_itself() {
    let classification = TaskKind::Classification;
    let svm = default_learner(classification, Needs::Features);
    let ridge = default_learner(TaskKind::Regression, Needs::Features);
    let kernel_svm = default_learner(classification, Needs::Kernel);
    assert_eq!(
        exact_learner(svm, classification).unwrap().name,
        kernel_svm.name
    );
    // Ridge classifies, but its exact counterpart (kernel ridge) does not: the exact machine is
    // the default for the task, and it chooses its own C (and bandwidth), whatever the
    // learner on the features tunes.
    assert_eq!(
        exact_learner(ridge, classification).unwrap().name,
        kernel_svm.name
    );
    let s = setup(bandwidth_kernel().name, Task::Binary, Some(ridge.name));
    let learners = s
        .decisions()
        .into_iter()
        .find(|d| d.starts_with("learners"))
        .unwrap();
    let bandwidth = bandwidth_kernel().bandwidth_param().unwrap().name;
    let want = format!(
        "learners: {} on the features and on the raw inputs (the linear baseline), {} on the \
         exact kernel; lambda by 3-fold cross-validation on the training rows of the tuning \
         run; the exact machine's own {bandwidth} by the same cross-validation and its C among \
         [0.125, 0.5, 2.0, 8.0, 32.0, 128.0, 512.0, 2048.0] by the score on the tuning run's \
         held-out rows (two splits)",
        ridge.name, kernel_svm.name
    );
    assert_eq!(learners, want);
}

#[test]
fn the_decisions_say_every_default() {
    let kernel = bandwidth_kernel();
    let s = setup(kernel.name, Task::Binary, None);
    let d = s.decisions();
    let norm = kernel.bandwidth_norm.unwrap().name();
    let expected = [
        "a guess".to_string(),
        "data: toy (600 rows, 4 features); no test rows: every repetition draws a new stratified \
         train/test split, 25 % test"
            .into(),
        "preprocessing: standardize (column statistics of the training rows)".into(),
        format!(
            "kernel: {}, sigma chosen by 3-fold cross-validation from [0.5, 1.0, 2.0] (0.5 to 2 \
             times the median {norm} distance 1.0000 of 1,000 random pairs of training rows)",
            kernel.name
        ),
        format!("maps: {}", s.map_names().join(", ")),
        "D: 64, 128, 256 (doubling; Nystroem's capped at the training rows)".into(),
    ];
    assert_eq!(d[..expected.len()], expected);
    assert_eq!(d.last().unwrap(), "repetitions: 3, master seed 7");
    // A bandwidth given, and a kernel with none.
    let mut given = s.clone();
    (given.sigmas, given.median) = (vec![0.7], None);
    assert_eq!(given.kernel_note(), ", sigma = 0.7 (given)");
    let poly = setup(degree_kernel().name, Task::Binary, None);
    assert_eq!(
        poly.kernel_note(),
        ", degree 2, offset 0, rows scaled to unit norm"
    );
    let preprocessing = format!("preprocessing: {}", poly.normalise.name());
    assert!(poly.decisions().contains(&preprocessing));
}

#[test]
fn preprocessing_subsamples_splits_then_normalises() {
    let s = setup(bandwidth_kernel().name, Task::Binary, None);
    let split = |stratify| Step::Split {
        test_fraction: 0.25,
        stratify,
    };
    assert_eq!(
        s.preprocess(Some(100)),
        vec![
            Step::Subsample { n: 100, seed: 7 },
            split(true),
            s.normalise
        ]
    );
    // A subsample of all the rows (or more) is no subsample.
    assert_eq!(s.preprocess(Some(600)), vec![split(true), s.normalise]);
    let r = setup(bandwidth_kernel().name, Task::Regression, None);
    assert_eq!(r.preprocess(None), vec![split(false), r.normalise]);
    assert!(!r.classification() && s.classification());
}

#[test]
fn the_ladder_doubles_from_64_to_the_maximum() {
    let cases: [(usize, bool, &[usize]); 7] = [
        (64, false, &[64]),
        (100, false, &[64, 100]),
        (1000, false, &[64, 128, 256, 512, 1000]),
        (1024, false, &[64, 128, 256, 512, 1024]),
        (4096, true, &[64, 512, 4096]),
        (100, true, &[64, 100]),
        (64, true, &[64]),
    ];
    for (max, quick, rungs) in cases {
        assert_eq!(ladder(max, quick).unwrap(), rungs, "{max} {quick}");
    }
    let err = ladder(63, false).unwrap_err().to_string();
    assert_eq!(err, "--max-components 63: the ladder starts at 64");
    // Past the largest count a spec takes: an error, not an overflow.
    let err = ladder(usize::MAX, false).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("--max-components {}: at most {MAX_COUNT}", usize::MAX)
    );
    assert_eq!(
        ladder(MAX_COUNT as usize, true).unwrap().last(),
        Some(&(1 << 31))
    );
}

#[test]
fn a_file_name_becomes_a_dataset_name() {
    for (path, name) in [
        ("dir/my data.v2.csv", "my-data"),
        ("plain", "plain"),
        ("under_score-dash.svm.bz2", "under_score-dash"),
        ("dir/.hidden", "data"),
        ("café.csv", "caf-"),
    ] {
        assert_eq!(plain_name(Path::new(path)), name, "{path}");
    }
    assert_eq!(list(&[0.5, 1.0, 2.0]), "[0.5, 1.0, 2.0]");
}

#[test]
fn maps_are_the_kernels_default_ones_or_those_named() {
    // A feature map left out of the default comparison (random binning) runs when named.
    let optional = rfbench_registry::MAPS
        .iter()
        .find(|m| m.is_feature_map() && !m.in_default_comparison)
        .unwrap();
    let kernel = rfbench_registry::kernel(optional.kernels[0]).unwrap();
    let defaults = choose_maps(kernel, None).unwrap();
    assert!(!defaults.is_empty());
    for m in &defaults {
        assert!(
            m.map.in_default_comparison && m.map.kernels.contains(&kernel.name),
            "{m:?}"
        );
    }
    assert!(!defaults.iter().any(|m| m.name() == optional.name));
    // Named maps come in the order given.
    let named = [optional.name.to_string(), defaults[0].name().to_string()];
    let chosen: Vec<_> = choose_maps(kernel, Some(&named)).unwrap();
    assert_eq!(chosen.iter().map(|m| m.name()).collect::<Vec<_>>(), named);
    let err = choose_maps(kernel, Some(&["no-such-map".to_string()]))
        .unwrap_err()
        .to_string();
    let want = format!(
        "map \"no-such-map\" is not a map of the registry; maps for the {} kernel: ",
        kernel.name
    );
    assert!(
        err.starts_with(&want) && err.contains(optional.name),
        "{err}"
    );
}

/// A map's variants (RFF's phase form) are series of their own: in the default comparison
/// right after their map, and selectable alone by `--maps`, by their registry name.
#[test]
fn a_maps_variants_are_compared_beside_it_and_can_be_named_alone() {
    let (map, variant) = rfbench_registry::MAPS
        .iter()
        .find_map(|m| Some((m, m.compare_variants.first()?)))
        .unwrap();
    let kernel = rfbench_registry::kernel(map.kernels[0]).unwrap();
    let defaults: Vec<&str> = choose_maps(kernel, None)
        .unwrap()
        .iter()
        .map(Series::name)
        .collect();
    let at = defaults.iter().position(|n| *n == map.name).unwrap();
    assert_eq!(defaults.get(at + 1), Some(&variant.name), "{defaults:?}");
    let alone = choose_maps(kernel, Some(&[variant.name.to_string()])).unwrap();
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].variant, Some(variant));
    assert_eq!(alone[0].map.name, map.name);
    // Named twice, or for a kernel its map does not approximate: refused, by name.
    let twice = [variant.name.to_string(), variant.name.to_string()];
    let err = choose_maps(kernel, Some(&twice)).unwrap_err().to_string();
    assert!(
        err.contains(&format!("{} is named twice", variant.name)),
        "{err}"
    );
    let other = rfbench_registry::KERNELS
        .iter()
        .find(|k| !map.kernels.contains(&k.name))
        .unwrap();
    let err = choose_maps(other, Some(&[variant.name.to_string()]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not approximate"), "{err}");
}

#[test]
fn a_learner_that_cannot_tune_its_penalty_is_refused() {
    let task = TaskKind::Classification;
    let fixed = rfbench_registry::LEARNERS
        .iter()
        .find(|l| l.needs == Needs::Features && l.does(task) && !l.tunes_penalty())
        .unwrap();
    let tuning: Vec<&str> = feature_learners(task).map(|l| l.name).collect();
    assert!(tuning.len() >= 2, "{tuning:?}");
    let err = learner(Some(fixed.name), task).unwrap_err().to_string();
    let want = format!(
        "--learner {}: {} (a classification task)",
        fixed.name,
        tuning.join(" or ")
    );
    assert_eq!(err, want);
    let svm = default_learner(task, Needs::Features);
    assert!(learner(Some(svm.name), TaskKind::Regression).is_err());
    assert_eq!(learner(None, task).unwrap().name, svm.name);
}

/// Every refusal is an error that names the option or the file, never a panic.
#[test]
fn bad_options_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write_csv(dir.path(), "points.csv", 40, false);
    let with = |change: &dyn Fn(&mut CompareOptions)| {
        let mut o = options(&csv);
        change(&mut o);
        decide(&o).unwrap_err().to_string()
    };
    let kernels = format!("{:?}", rfbench_registry::kernel_names());
    let cases: Vec<(String, String)> = vec![
        (
            with(&|o: &mut CompareOptions| o.kernel = "cosine".into()),
            format!("unknown kernel \"cosine\"; known: {kernels}"),
        ),
        (
            with(&|o: &mut CompareOptions| o.sigma = Some(0.0)),
            "--sigma 0: a bandwidth is a positive number".into(),
        ),
        (
            with(&|o: &mut CompareOptions| o.sigma = Some(f64::NAN)),
            "--sigma NaN: a bandwidth is a positive number".into(),
        ),
        (
            with(&|o: &mut CompareOptions| {
                o.kernel = degree_kernel().name.into();
                o.sigma = Some(1.0);
            }),
            format!(
                "--sigma: the {} kernel has no bandwidth",
                degree_kernel().name
            ),
        ),
        (
            with(&|o: &mut CompareOptions| o.max_components = 32),
            "--max-components 32: the ladder starts at 64".into(),
        ),
    ];
    for (err, want) in cases {
        assert_eq!(err, want);
    }
}

#[test]
fn data_that_is_not_there_or_too_small_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing.csv");
    let err = decide(&options(&missing)).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}: no such file", missing.display())),
        "{err}"
    );
    let registry = dir.path().join("datasets.toml");
    let err = decide(&options(Path::new("nothing")))
        .unwrap_err()
        .to_string();
    let want =
        "\"nothing\" is not a file, and there is no registry (datasets.toml) to look it up in";
    assert_eq!(err, want);
    // A registry name takes no file options.
    std::fs::write(&registry, "").unwrap();
    let mut o = options(Path::new("some-dataset"));
    o.label_column = Some("label".into());
    let err = Setup::decide(&o, dir.path()).unwrap_err().to_string();
    assert!(err.contains("is a registry dataset: --test and --label-column are for files"));
    // 12 rows, 3 held out: 9 cannot make three folds.
    let small = write_csv(dir.path(), "small.csv", 12, false);
    let err = decide(&options(&small)).unwrap_err().to_string();
    assert_eq!(
        err,
        "small has 9 training rows: too few for 3-fold cross-validation"
    );
}

/// Features that do not vary leave no bandwidth to choose: an error saying so, not one about
/// `kernel.sigma` in a spec the user never wrote.
#[test]
fn constant_features_are_refused_in_the_users_words() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = std::iter::once("a,b,y\n".to_string())
        .chain((0..40).map(|i| format!("1,2,{}\n", i % 2)))
        .collect();
    let path = dir.path().join("flat.csv");
    std::fs::write(&path, text).unwrap();
    let err = decide(&options(&path)).unwrap_err().to_string();
    assert!(err.contains("median distance between rows is 0"), "{err}");
    assert!(!err.contains("kernel.sigma"), "{err}");
}

/// The tuning rows: at most 2,000 or 100 per class, the larger, and the data's; the time may cut
/// them to 100 per class, no fewer.
#[test]
fn the_tuning_rows_come_from_the_classes() {
    let mut s = crate::compare::test_support::setup("gaussian", Task::Binary, None);
    s.n = 20_000;
    assert_eq!(s.classes(), 2);
    assert_eq!((s.tuning_rows(), s.fewest_tuning_rows()), (2000, 200));
    s.task = Task::Multiclass;
    s.labels = (0..20_000).map(|i| f64::from(i % 26)).collect();
    assert_eq!(s.classes(), 26);
    assert_eq!((s.tuning_rows(), s.fewest_tuning_rows()), (2600, 2600));
    s.n = 1500;
    assert_eq!((s.tuning_rows(), s.fewest_tuning_rows()), (1500, 1500));
    s.task = Task::Regression;
    s.n = 20_000;
    assert_eq!((s.tuning_rows(), s.fewest_tuning_rows()), (2000, 0));
}
