use super::*;
use crate::compare::lines::tests::line;
use crate::compare::python::WIDTH;
use crate::compare::test_support::setup;
use rfbench_data::Task;
use rfbench_registry::params::{ParamValues, Value as ParamValue};

/// The maps' values: sigma 0.1 + 0.2 (a double whose shortest form has 17 digits), C or lambda
/// 0.75; the exact machine's own sigma 2.5 and penalty 32.
fn tuned() -> Tuned {
    Tuned::new(Some(0.1 + 0.2), 0.75, Some(2.5), 32.0)
}

fn pick(setup: &Setup, map: &str, d: usize) -> Pipeline {
    let line = line(map, d, &[90.0, 91.0], 1.0);
    pipeline(setup, &line, &tuned()).unwrap()
}

fn exact() -> &'static str {
    rfbench_registry::exact_map().name
}

fn raw() -> &'static str {
    rfbench_registry::raw_map().name
}

fn step<'a>(p: &'a Pipeline, name: &str) -> &'a PipelineStep {
    p.steps.iter().find(|s| s.name == name).unwrap()
}

fn param<'a>(object: &'a Object, name: &str) -> &'a Py {
    let found = object.params.iter().find(|(n, _)| n == name);
    &found
        .unwrap_or_else(|| panic!("{object:?} has no {name}"))
        .1
}

/// The series of `setup` that scikit-learn has the same map for, by the registry's text.
fn with_sklearn(setup: &Setup) -> Vec<Series> {
    let has = |s: &&Series| sklearn_map(setup, **s, 64, Some(1.0)).is_some();
    setup.maps.iter().filter(has).copied().collect()
}

/// A map's pick, classification: the column scaling compare applied, the package's map at
/// this D with the series' own parameters and the tuned sigma as it is, the linear SVM with
/// the series' penalty; scikit-learn's RBFSampler where the series is its map, with
/// gamma = 1 / (2 sigma^2).
#[test]
fn a_maps_pick_is_the_scaler_the_map_and_the_linear_learner() {
    let s = setup("gaussian", Task::Binary, None);
    let phase = s.maps.iter().find(|m| m.variant.is_some()).unwrap();
    let p = pick(&s, phase.name(), 256);
    assert_eq!(p.kind, PickKind::Map);
    let names: Vec<&str> = p.steps.iter().map(|s| s.name).collect();
    assert_eq!(names, ["scale", "map", "learner"]);
    assert_eq!(step(&p, "scale").object.class, "StandardScaler");
    let map = &step(&p, "map").object;
    assert_eq!(
        (map.module, map.class),
        ("rfbench", "RandomFourierFeatures")
    );
    assert_eq!(param(map, "n_components"), &Py::Int(256));
    assert_eq!(
        param(map, "form"),
        &Py::Text(phase.variant.unwrap().value.into())
    );
    assert_eq!(param(map, "sigma"), &Py::Float(0.1 + 0.2));
    assert_eq!(param(map, "random_state"), &Py::Int(7));
    let sklearn = step(&p, "map").scikit_learn.as_ref().unwrap();
    assert_eq!(sklearn.class, "RBFSampler");
    let gamma = 0.5 / ((0.1 + 0.2) * (0.1 + 0.2));
    assert_eq!(param(sklearn, "gamma"), &Py::Float(gamma));
    let learner = &step(&p, "learner").object;
    assert_eq!(learner.class, "LinearSVC");
    assert_eq!(param(learner, "C"), &Py::Float(0.75));
    let own = p.rfbench_code().unwrap();
    assert!(
        own.contains("from rfbench import RandomFourierFeatures\n"),
        "{own}"
    );
    assert!(own.contains("sigma=0.30000000000000004"), "{own}");
    let theirs = p.scikit_learn_code().unwrap();
    assert!(!theirs.contains("rfbench import"), "{theirs}");
    assert!(theirs.contains(&format!("gamma={gamma:?}")), "{theirs}");
    // The paired form is not scikit-learn's map: no scikit-learn code.
    let paired = pick(&s, phase.map.name, 256);
    assert_eq!(paired.scikit_learn_code(), None);
    assert!(paired.rfbench_code().unwrap().contains("form=\"paired\""));
}

/// A map's pick in a series with its own penalty at its last rung takes that cell's.
#[test]
fn a_maps_pick_takes_its_cells_own_penalty() {
    let s = setup("gaussian", Task::Multiclass, None);
    let series = s.maps[0].name();
    let mut t = tuned();
    t.set_penalty(series, 4.0, 128);
    t.set_last_rung(series, 16.0, 256);
    let at = |d| {
        let p = pipeline(&s, &line(series, d, &[90.0], 1.0), &t).unwrap();
        param(&step(&p, "learner").object, "C").clone()
    };
    assert_eq!((at(128), at(256)), (Py::Float(4.0), Py::Float(16.0)));
}

/// Regression with ridge on a map: `Ridge(alpha = lambda)`; the polynomial kernel's maps take
/// its degree, gamma and offset (as coef0), after rows scaled to unit norm.
#[test]
fn a_polynomial_regression_pick_is_normalizer_the_sketch_and_ridge() {
    let s = setup("polynomial", Task::Regression, None);
    let sketch = with_sklearn(&s);
    assert!(!sketch.is_empty());
    for series in sketch {
        let p = pick(&s, series.name(), 128);
        assert_eq!(step(&p, "scale").object.class, "Normalizer");
        let map = &step(&p, "map").object;
        assert_eq!(param(map, "degree"), &Py::Int(2));
        assert_eq!(param(map, "gamma"), &Py::Float(1.0));
        assert_eq!(param(map, "coef0"), &Py::Float(0.0));
        let learner = &step(&p, "learner").object;
        assert_eq!(
            (learner.class, param(learner, "alpha")),
            ("Ridge", &Py::Float(0.75))
        );
        let theirs = step(&p, "map").scikit_learn.as_ref().unwrap();
        assert_eq!(param(theirs, "coef0"), &Py::Float(0.0));
        // Nystroem's gamma would default to 1 / n_features: it is given.
        assert_eq!(param(theirs, "gamma"), &Py::Float(1.0));
    }
}

/// The linear baseline: the scaler and the learner on the raw inputs, with the tuning map's
/// penalty; scikit-learn's code only.
#[test]
fn the_baseline_is_the_scaler_and_the_learner() {
    for (task, learner, class) in [
        (Task::Binary, None, "LinearSVC"),
        (Task::Regression, None, "Ridge"),
        (Task::Multiclass, Some("ridge"), "RidgeClassifier"),
    ] {
        let s = setup("gaussian", task, learner);
        let p = pick(&s, raw(), 0);
        assert_eq!(p.kind, PickKind::Baseline);
        let names: Vec<&str> = p.steps.iter().map(|s| s.name).collect();
        assert_eq!(names, ["scale", "learner"]);
        assert_eq!(step(&p, "learner").object.class, class);
        assert_eq!(p.rfbench_code(), None);
        let code = p.scikit_learn_code().unwrap();
        assert!(code.contains(&format!("(\"learner\", {class}(")), "{code}");
    }
}

/// The exact machine with its own bandwidth and penalty: SVC at gamma = 1 / (2 sigma^2) for the
/// Gaussian, a callable for the Laplacian and the Matern kernel; kernel ridge on centred targets.
#[test]
fn the_exact_machine_is_svc_or_kernel_ridge_with_its_own_values() {
    let s = setup("gaussian", Task::Binary, None);
    let p = pick(&s, exact(), 0);
    assert_eq!(p.kind, PickKind::Exact);
    let svc = &step(&p, "learner").object;
    assert_eq!(svc.class, "SVC");
    assert_eq!(param(svc, "C"), &Py::Float(32.0));
    assert_eq!(param(svc, "kernel"), &Py::Text("rbf".into()));
    assert_eq!(param(svc, "gamma"), &Py::Float(0.08));
    let code = p.scikit_learn_code().unwrap();
    assert!(
        code.contains("SVC(C=32.0, kernel=\"rbf\", gamma=0.08)"),
        "{code}"
    );
    let laplacian = setup("laplacian", Task::Binary, None);
    let code = pick(&laplacian, exact(), 0).scikit_learn_code().unwrap();
    assert!(
        code.contains("from sklearn.metrics.pairwise import laplacian_kernel\n"),
        "{code}"
    );
    assert!(
        code.contains("kernel=partial(laplacian_kernel, gamma=0.4)"),
        "{code}"
    );
    let regression = setup("laplacian", Task::Regression, None);
    let p = pick(&regression, exact(), 0);
    let wrapper = &step(&p, "learner").object;
    assert_eq!(wrapper.class, "TransformedTargetRegressor");
    let Py::Object(ridge) = param(wrapper, "regressor") else {
        panic!("{wrapper:?}")
    };
    assert_eq!(ridge.class, "KernelRidge");
    assert_eq!(param(ridge, "alpha"), &Py::Float(32.0));
    assert_eq!(param(ridge, "gamma"), &Py::Float(0.4));
    let matern = setup("matern", Task::Regression, None);
    let code = pick(&matern, exact(), 0).scikit_learn_code().unwrap();
    assert!(code.contains("GaussianProcessRegressor("), "{code}");
    assert!(code.contains("Matern(length_scale=2.5, nu=1.5"), "{code}");
    assert!(code.contains("optimizer=None"), "{code}");
    // A subsample's exact machine says so.
    let mut sub = line(exact(), 0, &[90.0], 1.0);
    sub.train_size = 300;
    let p = pipeline(&s, &sub, &tuned()).unwrap();
    assert!(p
        .comments
        .iter()
        .any(|c| c.contains("on 300 of the training rows")));
}

/// scikit-learn's Laplacian gamma gives the kernel's own value: exp(-gamma |x - y|_1) against
/// the built kernel (to 1e-12, rounding only).
#[test]
fn the_laplacian_gamma_gives_the_kernels_values() {
    let info = rfbench_registry::kernel("laplacian").unwrap();
    let (x, y): ([f64; 3], [f64; 3]) = ([0.5, -1.0, 2.0], [1.5, 0.0, 1.25]);
    let l1: f64 = x.iter().zip(&y).map(|(a, b)| (a - b).abs()).sum();
    for sigma in [0.3, 1.0, 4.0] {
        let param = info.bandwidth_param().unwrap().name;
        let values = ParamValues([(param.to_string(), ParamValue::Float(sigma))].into());
        let kernel = (info.build)(&values).unwrap();
        let ours = kernel.eval(
            &rfbench_maps::Row::Dense(ndarray::ArrayView1::from(&x)),
            &rfbench_maps::Row::Dense(ndarray::ArrayView1::from(&y)),
        );
        let theirs = (-sklearn_gamma(info, sigma).unwrap() * l1).exp();
        assert!((ours - theirs).abs() <= 1e-12, "{ours} != {theirs}");
    }
}

/// Every series compare sweeps for every kernel has code with the package's class, and every
/// class and selection is the package's (its `_registry_maps`, read from its source).
#[test]
fn every_series_compare_sweeps_has_the_packages_class() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/python/rfbench");
    // The sources only: a built extension (`maturin develop`) may sit beside them.
    let source: String = std::fs::read_dir(root)
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for (map, python) in rfbench_registry::MAPS
        .iter()
        .filter_map(|m| Some((m.name, m.python_class?)))
    {
        let (class, selects) = (python.class, python.selects);
        assert!(source.contains(&format!("class {class}(")), "{class}");
        let selection: Vec<String> = selects
            .iter()
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        let entry = format!("\"{map}\": {{{}}}", selection.join(", "));
        assert!(source.contains(&entry), "{entry}");
    }
    for kernel in rfbench_registry::KERNELS
        .iter()
        .filter(|k| k.tuning_map.is_some())
    {
        let s = setup(kernel.name, Task::Binary, None);
        for series in &s.maps {
            let p = pick(&s, series.name(), 64);
            let code = p.rfbench_code().unwrap_or_else(|| panic!("{series:?}"));
            assert!(code.contains("model = Pipeline("), "{code}");
        }
    }
}

/// Long calls break one argument a line, and every line stays within the width.
#[test]
fn long_calls_break_one_argument_a_line() {
    let s = setup("gaussian", Task::Binary, None);
    let series = s.maps.iter().find(|m| m.map.params.len() > 2).unwrap();
    let code = pick(&s, series.name(), 4096).rfbench_code().unwrap();
    assert!(code.contains("            n_components=4096,\n"), "{code}");
    assert!(code.lines().all(|l| l.len() <= WIDTH), "{code}");
}

/// The JSON gives each step's class, module and parameters, scikit-learn's own map beside the
/// package's, and both codes.
#[test]
fn the_json_has_the_steps_and_both_codes() {
    let s = setup("gaussian", Task::Binary, None);
    let series = with_sklearn(&s)[0];
    let value = pick(&s, series.name(), 128).json();
    assert_eq!(value["kind"], "map");
    assert_eq!(value["steps"][1]["name"], "map");
    assert_eq!(value["steps"][1]["module"], "rfbench");
    assert_eq!(value["steps"][1]["params"]["n_components"], 128);
    let own = &value["steps"][1]["scikit_learn"];
    assert_eq!(own["module"], "sklearn.kernel_approximation");
    assert!(value["rfbench"].is_string() && value["scikit_learn"].is_string());
}

/// The snippets of every kind of pick for `crates/python/tests/test_compare_answer.py`, which
/// runs each: the file is rewritten with `RFBENCH_WRITE_SNIPPETS=1`.
#[test]
fn the_python_suites_snippets_are_current() {
    // A bandwidth near the median distance of the suite's standardised rows (about 2.8), where
    // a kernel's values are far from 0 and 1 and a wrong conversion shows.
    let snippets_tuned = Tuned::new(Some(2.2), 0.75, Some(2.5), 32.0);
    let mut cases = serde_json::Map::new();
    let kinds = [
        ("gaussian", Task::Binary, None),
        ("gaussian", Task::Multiclass, Some("ridge")),
        ("gaussian", Task::Regression, None),
        ("laplacian", Task::Binary, None),
        ("laplacian", Task::Regression, None),
        ("matern", Task::Multiclass, None),
        ("matern", Task::Regression, None),
        ("polynomial", Task::Binary, None),
        ("polynomial", Task::Regression, None),
    ];
    for (kernel, task, learner) in kinds {
        let s = setup(kernel, task, learner);
        let picks = s.maps.iter().map(|m| m.name()).chain([raw(), exact()]);
        for map in picks {
            let p = pipeline(&s, &line(map, 64, &[90.0], 1.0), &snippets_tuned).unwrap();
            let key = format!(
                "{kernel} {} {} {map}",
                rfbench_data::task_name(task),
                s.learner.name
            );
            let mut value = p.json();
            value["task"] = rfbench_data::task_name(task).into();
            value["d"] = s.d.into();
            cases.insert(key, value);
        }
    }
    let text = format!("{:#}\n", Value::Object(cases));
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../python/tests/data/compare_snippets.json"
    );
    if std::env::var("RFBENCH_WRITE_SNIPPETS").as_deref() == Ok("1") {
        std::fs::write(path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == text,
        "{path} is not current: rerun with RFBENCH_WRITE_SNIPPETS=1 and commit it"
    );
}
