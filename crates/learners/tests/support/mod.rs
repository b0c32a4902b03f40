//! Shared by the LIBLINEAR comparison test and timing example: LIBSVM-format files read by the
//! dataset crate's parser (a dev-dependency: `rfbench-data` does not depend on this crate), the
//! Adult file locations, and the LIBLINEAR command-line tools.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use rfbench_maps::CsrMatrix;

/// Adult as LIBSVM distributes it (a9a): 123 binary features, 1-based indices.
pub const ADULT_DIM: usize = 123;

/// Rows and integer labels of a LIBSVM-format file with at most `n_cols` columns.
pub fn read_libsvm(path: &Path, n_cols: usize) -> (CsrMatrix, Vec<i64>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (x, labels) = rfbench_data::parse_libsvm(std::io::BufReader::new(file), path, Some(n_cols))
        .unwrap_or_else(|e| panic!("{e}"));
    (x, labels.into_iter().map(|l| l as i64).collect())
}

/// The directory holding `a9a` and `a9a.t`: `RFBENCH_MIRROR` if it has them, else
/// `shared/datasets/adult` beside the repository (where CI mirrors it).
pub fn adult_dir() -> Option<PathBuf> {
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/adult");
    std::env::var_os("RFBENCH_MIRROR")
        .map(PathBuf::from)
        .into_iter()
        .chain([beside])
        .find(|d| d.join("a9a").is_file() && d.join("a9a.t").is_file())
}

/// LIBLINEAR's training and prediction programs: `LIBLINEAR_TRAIN` / `LIBLINEAR_PREDICT`, else
/// the Debian names `liblinear-train` / `liblinear-predict`, if they run.
pub fn liblinear_tools() -> Option<(String, String)> {
    let train = std::env::var("LIBLINEAR_TRAIN").unwrap_or_else(|_| "liblinear-train".into());
    let predict = std::env::var("LIBLINEAR_PREDICT").unwrap_or_else(|_| "liblinear-predict".into());
    // Without arguments both print their usage; failing to start means not installed.
    let runs = |p: &str| Command::new(p).output().is_ok();
    (runs(&train) && runs(&predict)).then_some((train, predict))
}

/// The number after `key` on the first line of `text` that contains it.
pub fn number_after(text: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(key)? + key.len()..];
    let token: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || "+-.eE".contains(*c))
        .collect();
    token.parse().ok()
}

/// Runs `liblinear-train -s solver -c 1 -e eps -B 1` on `train`, then predicts `test`:
/// (objective value, iterations, test accuracy in percent).
pub fn run_liblinear(
    tools: &(String, String),
    solver: u32,
    eps: f64,
    train: &Path,
    test: &Path,
    work: &Path,
) -> (f64, f64, f64) {
    let model = work.join(format!("model-s{solver}"));
    let out = Command::new(&tools.0)
        .args([
            "-s",
            &solver.to_string(),
            "-c",
            "1",
            "-e",
            &eps.to_string(),
            "-B",
            "1",
        ])
        .arg(train)
        .arg(&model)
        .output()
        .expect("liblinear-train runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "liblinear-train failed: {stdout}");
    let objective = number_after(&stdout, "Objective value =").expect("objective printed");
    let iterations = number_after(&stdout, "#iter =").expect("iterations printed");
    let pred = Command::new(&tools.1)
        .arg(test)
        .arg(&model)
        .arg(work.join(format!("pred-s{solver}")))
        .output()
        .expect("liblinear-predict runs");
    let stdout = String::from_utf8_lossy(&pred.stdout);
    let accuracy = number_after(&stdout, "Accuracy =").expect("accuracy printed");
    (objective, iterations, accuracy)
}

/// LIBSVM's `svm-train` / `svm-predict` (`LIBSVM_TRAIN` / `LIBSVM_PREDICT` override), if they run.
pub fn libsvm_tools() -> Option<(String, String)> {
    let train = std::env::var("LIBSVM_TRAIN").unwrap_or_else(|_| "svm-train".into());
    let predict = std::env::var("LIBSVM_PREDICT").unwrap_or_else(|_| "svm-predict".into());
    let runs = |p: &str| Command::new(p).output().is_ok();
    (runs(&train) && runs(&predict)).then_some((train, predict))
}

/// The first `n` lines of a text file, written to `out`.
pub fn head(path: &Path, n: usize, out: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().take(n).collect();
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

/// A comparison that cannot run here (data or tools missing) is skipped with a message, unless
/// `RFBENCH_REQUIRE_LIBLINEAR=1` (set by CI once it has installed the tools): then it fails.
pub fn skip(why: &str) {
    if std::env::var("RFBENCH_REQUIRE_LIBLINEAR").is_ok_and(|v| v == "1") {
        panic!("RFBENCH_REQUIRE_LIBLINEAR=1 but {why}");
    }
    eprintln!("SKIPPED: {why}");
}

/// The Adult directory and the LIBLINEAR tools, or `None` after [`skip`] says which is missing.
pub fn adult_and_liblinear() -> Option<(PathBuf, (String, String))> {
    let Some(dir) = adult_dir() else {
        skip("Adult (a9a, a9a.t) not found; set RFBENCH_MIRROR to its directory");
        return None;
    };
    let Some(tools) = liblinear_tools() else {
        skip("liblinear-train / liblinear-predict not installed (apt-get install liblinear-tools)");
        return None;
    };
    Some((dir, tools))
}

/// One LIBLINEAR comparison: `train`/`test` are LIBSVM files, `(x, y)`/`(xt, yt)` the same data
/// as read by [`read_libsvm`].
pub struct Comparison<'a> {
    pub label: &'a str,
    pub train: (&'a Path, &'a CsrMatrix, &'a [i64]),
    pub test: (&'a Path, &'a CsrMatrix, &'a [i64]),
    pub work: &'a Path,
}

/// Our dual CD (`C = 1`, `eps = 0.1`, bias 1) against `liblinear-train -s 3` (L1 loss) and
/// `-s 1` (L2 loss) on the same files: for each visiting order in `seeds`, the dual objective must
/// be within 0.1% relative and the test accuracy within 0.2 points (the margins). Both
/// solvers stop at the same projected-gradient tolerance from different random orders, so they
/// stop at slightly different points near the optimum; the printed values show the distance.
pub fn assert_dual_cd_matches_liblinear(
    tools: &(String, String),
    cmp: &Comparison,
    seeds: std::ops::Range<u64>,
) {
    use rfbench_learners::{metrics, LinearSvmParams, SvmLoss};
    let (train_path, x, y) = cmp.train;
    let (test_path, xt, yt) = cmp.test;
    for (loss, solver) in [(SvmLoss::L1, 3), (SvmLoss::L2, 1)] {
        let (their_objective, their_iterations, their_accuracy) =
            run_liblinear(tools, solver, 0.1, train_path, test_path, cmp.work);
        for seed in seeds.clone() {
            let svm = LinearSvmParams::new()
                .loss(loss)
                .c(1.0)
                .eps(0.1)
                .bias(Some(1.0))
                .seed(seed)
                .fit(x, y)
                .unwrap();
            let report = &svm.reports()[0];
            let accuracy = 100.0 * metrics::accuracy(yt, &svm.predict(xt).unwrap()).unwrap();
            let relative = (report.objective - their_objective).abs() / their_objective.abs();
            println!(
                "{} {loss:?} (-s {solver}) seed {seed}: objective ours {:.6} LIBLINEAR \
                 {their_objective:.6} (relative difference {relative:.2e}); iterations ours {} \
                 LIBLINEAR {their_iterations}; final gap {:.4}; test accuracy ours \
                 {accuracy:.4}% LIBLINEAR {their_accuracy:.4}%",
                cmp.label, report.objective, report.iterations, report.gap
            );
            assert!(report.converged, "{report:?}");
            assert!(relative < 1e-3, "objective off by {relative:.2e} relative");
            assert!(
                (accuracy - their_accuracy).abs() < 0.2,
                "accuracy {accuracy} vs {their_accuracy}"
            );
        }
    }
}
