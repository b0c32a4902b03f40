//! The four ordinary specs a comparison runs, as TOML text: `tune` (the bandwidth and the
//! learner's penalty by cross-validation, on a subsample, with one map), `pilot` (every cell's
//! cost at two values of D on the same subsample), `compare` (the sweep) and `gram` (each map's
//! Gram-matrix error at the sweep's D on a few training rows). Each is written to the output
//! folder, so the user can read, edit and rerun it with `rfbench reproduce`.

use std::fmt::Write as _;

use super::budget::Sweep;
use super::setup::{list, Setup, PILOT_ROWS};

/// The values the tuning run chose, used as constants by the pilot and the sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuned {
    pub sigma: Option<f64>,
    pub penalty: f64,
    /// The exact machine's penalty (the same as `penalty` when both are `C` or `lambda`).
    pub exact_penalty: f64,
}

/// The learner whose cross-validated `C` the exact kernel SVM takes when the learner on the
/// features is ridge (its `lambda` is no `C`).
pub const EXACT_TUNER: &str = "linear-svm";

/// The map the tuning run uses: the first of the comparison's in the registry's order of
/// preference (plain random Fourier features or Tensor Sketch), at D = 512 or the ladder's top.
fn tuning_map(setup: &Setup) -> &'static str {
    ["rff", "tensor-sketch"]
        .into_iter()
        .find(|m| setup.maps.contains(m))
        .unwrap_or(setup.maps[0])
}

fn header(out: &mut String, name: &str, title: &str, setup: &Setup, what: &str) {
    header_of_kind(out, name, title, setup, what, "learning");
}

fn header_of_kind(
    out: &mut String,
    name: &str,
    title: &str,
    setup: &Setup,
    what: &str,
    kind: &str,
) {
    let _ = writeln!(out, "# Written by `rfbench compare`: {what}");
    let _ = writeln!(out, "#");
    for line in setup.decisions() {
        let _ = writeln!(out, "# - {line}");
    }
    let _ = writeln!(out, "name = {name:?}");
    let _ = writeln!(out, "title = {title:?}");
    let _ = writeln!(out, "paper = \"none (rfbench compare)\"");
    let _ = writeln!(out, "kind = {kind:?}\n");
}

fn data(out: &mut String, setup: &Setup, subsample: Option<usize>, repetitions: usize) {
    data_with(out, setup, subsample, repetitions, "");
}

/// `[data]`, `[seeds]` and `[run]`, with `run_params` (the kind's, as TOML lines) in `[run]`.
fn data_with(
    out: &mut String,
    setup: &Setup,
    subsample: Option<usize>,
    repetitions: usize,
    run_params: &str,
) {
    let _ = writeln!(out, "[data]\ndataset = {:?}", setup.dataset);
    let _ = writeln!(out, "preprocess = {}\n", setup.preprocess(subsample));
    if !setup.has_test {
        // A new split in every repetition: the data seed follows the repetition.
        let _ = writeln!(out, "[seeds]\ndata_seed = [\"repetition\"]\n");
    }
    let _ = writeln!(
        out,
        "[run]\nmaster_seed = {}\nrepetitions = {repetitions}\n{run_params}",
        setup.seed
    );
}

fn kernel(out: &mut String, setup: &Setup, sigma: &str) {
    let _ = writeln!(out, "[kernel]\nname = {:?}", setup.kernel);
    if setup.has_bandwidth() {
        let _ = writeln!(out, "sigma = {sigma}");
    } else {
        let _ = writeln!(out, "degree = {}", setup.degree);
    }
    out.push('\n');
}

fn embedded(out: &mut String, setup: &Setup) {
    if let Some(table) = &setup.embedded {
        let _ = writeln!(
            out,
            "# The data file, as a registry entry of this spec's own."
        );
        let _ = writeln!(out, "{table}");
    }
}

fn check(out: &mut String, setup: &Setup) {
    let metric = if setup.classification() {
        "accuracy"
    } else {
        "rmse"
    };
    let _ = writeln!(out, "[check]\ncolumns = [\"{metric}\"]\nrtol = 1e-9\n");
}

/// The tuning run: sigma from the candidates and the penalty by 3-fold cross-validation
/// (nested: each bandwidth's folds choose their own penalty), one map, one repetition.
pub fn tune(setup: &Setup) -> String {
    let mut out = String::new();
    let what = "the bandwidth and the penalty by cross-validation on a subsample";
    header(
        &mut out,
        "tune",
        "Tuning run of rfbench compare",
        setup,
        what,
    );
    data(&mut out, setup, Some(PILOT_ROWS), 2);
    let sigma = match setup.sigmas.as_slice() {
        [given] => format!("{given:?}"),
        candidates => format!("{{ cv = {}, folds = 3 }}", list(candidates)),
    };
    kernel(&mut out, setup, &sigma);
    let d = 512.min(*setup.ladder.last().unwrap_or(&512));
    let mut learners = vec![(setup.learner, setup.penalty)];
    if setup.exact_penalty != setup.penalty {
        learners.push((EXACT_TUNER, setup.exact_penalty));
    }
    let map = tuning_map(setup);
    let tuples: Vec<String> = learners
        .iter()
        .map(|(learner, _)| format!("[{map:?}, {learner:?}]"))
        .collect();
    let _ = writeln!(
        out,
        "[grid]\n\"map, learner\" = [{}]\nn_components = {d}\n",
        tuples.join(", ")
    );
    for (learner, penalty) in learners {
        let _ = writeln!(
            out,
            "[learners.{learner}]\n{penalty} = \"cv\"\nfolds = 3\n{ONCE}\n"
        );
    }
    embedded(&mut out, setup);
    check(&mut out, setup);
    out
}

/// The tuning and pilot runs need one repetition; `[run]` asks for at least two, so every
/// cell is capped through its learner.
const ONCE: &str = "repetitions = 1";

/// The learners' tables: the tuned penalty, and the repetition cap of the learner on the
/// features and of the exact one.
fn constants(out: &mut String, setup: &Setup, tuned: Tuned, once: bool, exact_once: bool) {
    let tables = [
        (setup.learner, setup.penalty, tuned.penalty, once),
        (
            setup.exact_learner,
            setup.exact_penalty,
            tuned.exact_penalty,
            exact_once,
        ),
    ];
    for (learner, penalty, value, once) in tables {
        let _ = writeln!(
            out,
            "[learners.{learner}]\n{penalty} = {value:?}\n{}",
            if once {
                format!("{ONCE}\n")
            } else {
                String::new()
            }
        );
    }
}

fn sigma_text(tuned: Tuned) -> String {
    tuned.sigma.map_or_else(String::new, |s| format!("{s:?}"))
}

/// The pilot: every map at the sweep's smallest D and at `pilot_d`, the linear baseline and the
/// exact machine, once, on the subsample.
pub fn pilot(setup: &Setup, tuned: Tuned, pilot_d: usize) -> String {
    let mut out = String::new();
    let what = "each cell's cost at two values of D, on a subsample, for the budget";
    header(
        &mut out,
        "pilot",
        "Pilot run of rfbench compare",
        setup,
        what,
    );
    data(&mut out, setup, Some(PILOT_ROWS), 2);
    kernel(&mut out, setup, &sigma_text(tuned));
    let sweep = Sweep {
        per_map: setup
            .maps
            .iter()
            .map(|&m| {
                let mut ds = vec![setup.ladder[0], pilot_d];
                ds.dedup();
                (m, ds)
            })
            .collect(),
        exact_train_size: Some(0),
        skipped: Vec::new(),
    };
    grid(&mut out, setup, &sweep);
    constants(&mut out, setup, tuned, true, true);
    embedded(&mut out, setup);
    check(&mut out, setup);
    out
}

/// The sweep.
pub fn sweep(setup: &Setup, tuned: Tuned, sweep: &Sweep) -> String {
    let mut out = String::new();
    let what = "which map, at what D, on this data";
    header(
        &mut out,
        "compare",
        "Which map, at what D (rfbench compare)",
        setup,
        what,
    );
    let mut chosen = Vec::new();
    if let (Some(sigma), Some(_)) = (tuned.sigma, setup.median) {
        chosen.push(format!("sigma = {sigma:?}"));
    }
    chosen.push(format!("{} = {:?}", setup.penalty, tuned.penalty));
    if setup.exact_penalty != setup.penalty {
        chosen.push(format!(
            "the exact machine's {} = {:?}",
            setup.exact_penalty, tuned.exact_penalty
        ));
    }
    let _ = writeln!(out, "# - {}: chosen by results/tune.csv", chosen.join(", "));
    for reason in &sweep.skipped {
        let _ = writeln!(out, "# - left out: {reason}");
    }
    data(&mut out, setup, None, setup.repetitions);
    kernel(&mut out, setup, &sigma_text(tuned));
    grid(&mut out, setup, sweep);
    // With the same rows in every repetition the exact machine (no random draw) runs once.
    constants(&mut out, setup, tuned, false, setup.has_test);
    let metric = if setup.classification() {
        "accuracy"
    } else {
        "rmse"
    };
    let _ = writeln!(
        out,
        "[sums]\ntotal_seconds = [\"map_seconds\", \"train_seconds\", \"predict_seconds\"]\n"
    );
    for (name, y, label) in [
        ("score", metric, metric_label(setup)),
        ("time", "total_seconds", "Map + train + predict (s)"),
    ] {
        let _ = writeln!(
            out,
            "[[figures]]\nname = {name:?}\nx = \"n_components\"\ny = {y:?}\nseries = [\"map\"]\n\
             log_x = true\nx_label = \"Number of features (D)\"\ny_label = {label:?}\n"
        );
    }
    embedded(&mut out, setup);
    check(&mut out, setup);
    out
}

/// Training rows whose Gram matrix the `gram` run compares with the exact kernel's.
pub const GRAM_ROWS: usize = 500;

/// The Gram-matrix error of every map at the sweep's D, on `GRAM_ROWS` training rows.
pub fn gram(setup: &Setup, tuned: Tuned, sweep: &Sweep) -> String {
    let mut out = String::new();
    let what = "each map's Gram-matrix error at the sweep's D";
    let title = "Gram error of rfbench compare's maps";
    header_of_kind(&mut out, "gram", title, setup, what, "gram-error");
    let rows = GRAM_ROWS.min(super::budget::landmarks(setup.n_train));
    let samples = format!("n_samples = {rows}\n");
    data_with(&mut out, setup, None, setup.repetitions, &samples);
    kernel(&mut out, setup, &sigma_text(tuned));
    // A map whose components are rows cannot take more than the rows compared.
    let per_map: Vec<(&str, Vec<usize>)> = sweep
        .per_map
        .iter()
        .map(|(map, ds)| {
            let fits = |d: &&usize| !super::budget::components_are_rows(map) || **d <= rows;
            (*map, ds.iter().filter(fits).copied().collect::<Vec<_>>())
        })
        .filter(|(_, ds)| !ds.is_empty())
        .collect();
    let maps: Vec<&str> = per_map.iter().map(|(m, _)| *m).collect();
    let _ = writeln!(out, "[grid]\nmap = {maps:?}\n");
    for (map, ds) in &per_map {
        let _ = writeln!(out, "[maps.{map}]\nn_components = {ds:?}\n");
    }
    embedded(&mut out, setup);
    let _ = writeln!(
        out,
        "[check]\ncolumns = [\"relative_frobenius\"]\nrtol = 1e-9\n"
    );
    out
}

fn metric_label(setup: &Setup) -> &'static str {
    if setup.classification() {
        "Test accuracy (%)"
    } else {
        "Test RMSE"
    }
}

/// The `[grid]`: the linear baseline, the exact machine (on a subsample of the training rows
/// when `exact_train_size` says so; absent when `None`), every map with its own list of D.
fn grid(out: &mut String, setup: &Setup, sweep: &Sweep) {
    let mut tuples = vec![format!("[\"none\", {:?}, 0]", setup.learner)];
    if let Some(size) = sweep.exact_train_size {
        tuples.push(format!("[\"exact\", {:?}, {size}]", setup.exact_learner));
    }
    for (map, _) in sweep.per_map.iter().filter(|(_, ds)| !ds.is_empty()) {
        tuples.push(format!("[{map:?}, {:?}, 0]", setup.learner));
    }
    let _ = writeln!(
        out,
        "[grid]\n\"map, learner, train_size\" = [{}]\n",
        tuples.join(", ")
    );
    for (map, ds) in sweep.per_map.iter().filter(|(_, ds)| !ds.is_empty()) {
        let _ = writeln!(out, "[maps.{map}]\nn_components = {ds:?}\n");
    }
}
