//! End to end, one spec per experiment kind on small data (a LIBSVM file reachable only through
//! the mirror, with its checksum, and the synthetic sources): spec -> dataset -> cells -> CSV ->
//! figure -> table -> claims -> check, with a skipped cell (a dataset that cannot be downloaded)
//! and zipped axes; then the check failing for every reason it should.

use std::path::{Path, PathBuf};

use rfbench::run::{check, reproduce, RunOptions};
use rfbench::spec::{load_plan, Profile};
use rfbench_data::FetchOptions;

mod common;
use common::*;

#[test]
fn kernel_error_end_to_end_with_a_skipped_dataset_and_zipped_axes() {
    let (_dir, options) = workspace();
    let outcome = reproduce("kernel-error-demo", &Profile::Full, &options).unwrap();
    // 2 datasets x (TS, RM: 2 offsets; RFF, Nystroem: 1) x 2 D x 3 repetitions.
    let status = column(&outcome.csv, "status");
    assert_eq!(status.len(), 2 * 6 * 2 * 3);
    let reasons = column(&outcome.csv, "skip_reason");
    let datasets = column(&outcome.csv, "dataset");
    for ((s, r), d) in status.iter().zip(&reasons).zip(&datasets) {
        match d.as_str() {
            "offline" => assert!(s == "skipped" && r.contains("cannot download"), "{s} {r}"),
            _ => assert!(s == "ok" && r.is_empty(), "{s} {r}"),
        }
    }
    // The bandwidth rule's value is written; the polynomial cells have none.
    let used = column(&outcome.csv, "sigma_used");
    let kernels = column(&outcome.csv, "kernel");
    for ((u, k), s) in used.iter().zip(&kernels).zip(&status) {
        assert_eq!(!u.is_empty(), k == "gaussian" && s == "ok", "{u} {k}");
    }
    // The exact Gaussian at the median distance is 0.5 at that distance: estimates are close.
    let errors = column(&outcome.csv, "relative_error");
    for ((e, k), s) in errors.iter().zip(&kernels).zip(&status) {
        if s == "ok" && k == "gaussian" {
            let e: f64 = e.parse().unwrap();
            assert!(e > 0.0 && e < 1.0, "{e}");
        }
    }
    assert_eq!(outcome.rendered.figures.len(), 1);
    assert_png(&outcome.rendered.figures[0]);
    assert_eq!(outcome.rendered.tables.len(), 1);
    let table = std::fs::read_to_string(&outcome.rendered.tables[0]).unwrap();
    assert!(table.contains("| TS"), "{table}");
    // The spec's own label for a dataset.
    assert!(table.contains("| Tiny (test data) |"), "{table}");
    // Every output is an ordinary, world-readable file (temporary files start private).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let outputs = std::iter::once(&outcome.csv)
            .chain(&outcome.rendered.figures)
            .chain(&outcome.rendered.tables);
        for path in outputs {
            let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644, "{}", path.display());
        }
    }
    assert!(
        outcome.rendered.report.contains("TS below RM"),
        "{}",
        outcome.rendered.report
    );
    // TS's error is below RM's in every pair's means, but three repetitions of four pairs
    // cannot separate them after Holm's correction: indistinguishable, not a failure.
    assert!(
        outcome.rendered.claims.iter().all(|c| c.verdict
            == rfbench::outputs::Verdict::Indistinguishable
            && c.pairs.iter().all(|p| p.margin > 0.0)),
        "{:?}",
        outcome.rendered.claims
    );

    let (report, _) = check("kernel-error-demo", &Profile::Full, &options).unwrap();
    assert!(report.passed(), "{:?}", report.failures);
    // Every row (skipped ones too: empty equals empty) times the two checked columns and the
    // three seed columns, and the claims file's one claim.
    assert_eq!(report.compared, 2 * 6 * 2 * 3 * (2 + 3) + 1);

    // `render` redraws the figure and the table from the committed CSV alone, the same table.
    std::fs::remove_file(&outcome.rendered.figures[0]).unwrap();
    std::fs::remove_file(&outcome.rendered.tables[0]).unwrap();
    let rendered = rfbench::run::render("kernel-error-demo", &Profile::Full, &options).unwrap();
    assert_png(&rendered.figures[0]);
    assert_eq!(std::fs::read_to_string(&rendered.tables[0]).unwrap(), table);
    assert_eq!(rendered.report, outcome.rendered.report);
}

/// `rfbench schedule`: every run of the committed CSV is matched to its run of the plan, and on
/// one worker every order takes the runs' total.
#[test]
fn a_results_file_replays_through_the_scheduler() {
    let (_dir, options) = workspace();
    let outcome = reproduce("learning-demo", &Profile::Full, &options).unwrap();
    let report =
        rfbench::replay::replay("learning-demo", &Profile::Full, &options, &[1, 3]).unwrap();
    assert_eq!(report.runs + report.unmeasured, outcome.rows.len());
    assert_eq!(report.runs, outcome.rows.len() - outcome.skipped);
    assert!(report.runs > 3, "{report}");
    let one = &report.lines[0];
    for m in [one.plan_order, one.estimated, one.measured, one.lower_bound] {
        assert!(
            (m - report.total_seconds).abs() <= 1e-9 * report.total_seconds,
            "{report}"
        );
    }
    let three = &report.lines[1];
    assert!(three.estimated >= three.lower_bound && three.estimated <= report.total_seconds);
    assert_eq!(report.longest.len(), report.runs.min(5));
    assert_eq!(report.longest[0].1, report.longest_seconds);
}

/// A deadline already past cuts every run that has not started, each row saying so; the rows
/// an earlier run measured are kept, and a run without a deadline measures them all.
#[test]
fn no_run_starts_past_the_deadline() {
    let (_dir, options) = workspace();
    let full = reproduce("learning-demo", &Profile::Full, &options).unwrap();
    let done = full.rows.iter().filter(|r| r.not_run().is_none()).count();
    assert!(done > 3, "{} rows, {done} ran", full.rows.len());
    assert!(full.rows.iter().all(|r| !r.is_cut()));
    let cut = RunOptions {
        deadline: Some(std::time::Instant::now()),
        ..options.clone()
    };
    let outcome = reproduce("learning-demo", &Profile::Full, &cut).unwrap();
    assert_eq!(outcome.rows.len(), full.rows.len());
    for row in &outcome.rows {
        assert!(row.is_cut(), "{:?}", row.outcome);
        assert_eq!(
            row.not_run().as_deref(),
            Some(rfbench::results::CUT_BY_DEADLINE)
        );
    }
    // With the full run's rows as earlier ones, nothing is cut: they are taken, not run.
    let earlier =
        rfbench::run::reproduce_reusing("learning-demo", &Profile::Full, &cut, &full.rows).unwrap();
    let kept = earlier
        .rows
        .iter()
        .filter(|r| r.not_run().is_none())
        .count();
    assert_eq!(kept, done);
}

#[test]
fn gram_error_end_to_end_on_synthetic_data() {
    let (_dir, options) = workspace();
    let outcome = reproduce("gram-error-demo", &Profile::Full, &options).unwrap();
    let maps = column(&outcome.csv, "map");
    // d in {3, 6} x (prff, rff, orf, nystroem: 2 D; binning: 2 grids; rff laplacian: 2 D) x 2 reps.
    assert_eq!(maps.len(), 2 * (4 * 2 + 2 + 2) * 2);
    let mse: Vec<f64> = column(&outcome.csv, "gram_mse")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(mse.iter().all(|&m| m > 0.0 && m < 0.5), "{mse:?}");
    // Binning has no n_components; the Fourier maps have no n_grids.
    let (d, grids) = (
        column(&outcome.csv, "n_components"),
        column(&outcome.csv, "n_grids"),
    );
    for ((m, d), g) in maps.iter().zip(&d).zip(&grids) {
        assert_eq!(
            m == "random-binning",
            d.is_empty() && !g.is_empty(),
            "{m} {d} {g}"
        );
    }
    assert_png(&outcome.rendered.figures[0]);
    let (report, _) = check("gram-error-demo", &Profile::Full, &options).unwrap();
    assert!(report.passed(), "{:?}", report.failures);
}

#[test]
fn timing_end_to_end() {
    let (_dir, options) = workspace();
    let outcome = reproduce("timing-demo", &Profile::Full, &options).unwrap();
    let threads = column(&outcome.csv, "threads_used");
    assert_eq!(threads.len(), 4 * 2 * 2);
    assert!(threads.iter().all(|t| t == "1.0"), "{threads:?}");
    let memory: Vec<f64> = column(&outcome.csv, "memory_bytes")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let maps = column(&outcome.csv, "map");
    // Fastfood stores O(D) numbers, RFF a d x D matrix: at the same D and d = 16, Fastfood's
    // fitted map is the smaller.
    let (kernels, ds) = (
        column(&outcome.csv, "kernel"),
        column(&outcome.csv, "n_components"),
    );
    let memory_of = |map: &str, d: &str| {
        (0..maps.len())
            .find(|&i| maps[i] == map && kernels[i] == "gaussian" && ds[i] == d)
            .map(|i| memory[i])
            .unwrap()
    };
    for d in ["64", "128"] {
        let (fastfood, rff) = (memory_of("fastfood", d), memory_of("rff", d));
        assert!(
            fastfood > 0.0 && fastfood < rff,
            "D = {d}: Fastfood {fastfood} B, RFF {rff} B"
        );
    }
    assert_png(&outcome.rendered.figures[0]);
    // Timings differ run to run; the memory of the fitted maps does not.
    let (report, _) = check("timing-demo", &Profile::Full, &options).unwrap();
    assert!(report.passed(), "{:?}", report.failures);
}

#[test]
fn learning_end_to_end() {
    let (_dir, options) = workspace();
    let outcome = reproduce("learning-demo", &Profile::Full, &options).unwrap();
    let maps = column(&outcome.csv, "map");
    // TS, RM (2 C each), RFF (2 lambdas): 2 D each; none (2 C); x 2 repetitions; and the exact
    // kernel SVM once (`[learners.kernel-svm] repetitions = 1`).
    assert_eq!(maps.len(), (3 * 2 * 2 + 2) * 2 + 1);
    let repetitions = column(&outcome.csv, "repetition");
    let exact: Vec<&String> = maps
        .iter()
        .zip(&repetitions)
        .filter(|(m, _)| *m == "exact")
        .map(|(_, r)| r)
        .collect();
    assert_eq!(exact, ["0"]);
    let accuracy: Vec<f64> = column(&outcome.csv, "accuracy")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    // make_classification with 2 informative dimensions is well above chance for every method.
    assert!(
        accuracy.iter().all(|&a| a > 60.0 && a <= 100.0),
        "{accuracy:?}"
    );
    let lambdas = column(&outcome.csv, "lambda");
    let learners = column(&outcome.csv, "learner");
    for (l, learner) in lambdas.iter().zip(&learners) {
        assert_eq!(learner == "ridge", !l.is_empty(), "{learner} {l}");
    }
    // A cross-validated C is reported with the value chosen and whether it sits at an edge.
    let (c, chosen, edge) = (
        column(&outcome.csv, "C"),
        column(&outcome.csv, "C_chosen"),
        column(&outcome.csv, "C_at_edge"),
    );
    for (((c, chosen), edge), learner) in c.iter().zip(&chosen).zip(&edge).zip(&learners) {
        if learner != "linear-svm" {
            // kernel-svm has a C of its own (no cross-validation), ridge none.
            assert_eq!(c.is_empty(), learner == "ridge", "{learner}: {c}");
            assert!(chosen.is_empty(), "{learner}: {chosen}");
        } else if c == "cv" {
            let chosen: f64 = chosen.parse().unwrap();
            assert!(
                chosen > 0.0 && (edge == "0.0" || edge == "1.0"),
                "{chosen} {edge}"
            );
        } else {
            assert_eq!((chosen.as_str(), edge.as_str()), ("1.0", "NaN"));
        }
    }
    assert_png(&outcome.rendered.figures[0]);
    // The `[sums]` metric is drawn from the CSV, which does not hold it.
    assert!(!csv(&outcome.csv).0.iter().any(|c| c == "fit_seconds"));
    assert!(outcome.rendered.figures[1].ends_with("learning-demo/full.fit-time.png"));
    assert_png(&outcome.rendered.figures[1]);
    let (report, _) = check("learning-demo", &Profile::Full, &options).unwrap();
    assert!(report.passed(), "{:?}", report.failures);
    // Another master seed: the exact cell's one run is counted, not t-tested (no spread).
    let (report, _) = check(
        "learning-demo",
        &Profile::Full,
        &RunOptions {
            master_seed: Some(11),
            ..options.clone()
        },
    )
    .unwrap();
    assert!(
        matches!(
            report.mode,
            rfbench::check::Mode::OtherSeed { single_run: 1, .. }
        ),
        "{:?}",
        report.mode
    );
}

#[test]
fn a_bandwidth_chosen_from_a_list_by_cross_validation() {
    let (_dir, options) = workspace();
    let outcome = reproduce("bandwidth-cv-demo", &Profile::Full, &options).unwrap();
    let (sigma, used, edge, accuracy) = (
        column(&outcome.csv, "sigma"),
        column(&outcome.csv, "sigma_used"),
        column(&outcome.csv, "sigma_at_edge"),
        column(&outcome.csv, "accuracy"),
    );
    assert_eq!(sigma.len(), 2 * 2 * 2);
    for (((sigma, used), edge), accuracy) in sigma.iter().zip(&used).zip(&edge).zip(&accuracy) {
        let (used, accuracy): (f64, f64) = (used.parse().unwrap(), accuracy.parse().unwrap());
        if sigma.contains("1000") {
            // 0.01 (every point its own island) and 1000 (a linear kernel on 2 informative
            // directions of 6) lose to a bandwidth of the data's scale.
            assert!(used == 2.0 || used == 4.0, "{sigma}: {used}");
            assert_eq!(edge, "0.0");
            assert!(accuracy > 70.0, "{sigma}: {accuracy}");
        } else {
            // Both candidates too narrow (every point its own island): their scores differ by
            // noise only, so either may win (which one moved when issue 27 changed the
            // generator's rows); whichever it is sits at an edge of the list, and says so.
            assert!(used == 0.01 || used == 0.02, "{sigma}: {used}");
            assert_eq!(edge, "1.0", "{sigma}: {used}");
        }
    }
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("sigma") && w.contains("edge")),
        "{:?}",
        outcome.warnings
    );
    let (report, _) = check("bandwidth-cv-demo", &Profile::Full, &options).unwrap();
    assert!(report.passed(), "{:?}", report.failures);

    // Only a learning cell can score a bandwidth.
    let path = options.root.join("experiments/kernel-error-demo.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let sigma = text.lines().find(|l| l.starts_with("sigma = ")).unwrap();
    std::fs::write(
        &path,
        text.replacen(sigma, "sigma = { cv = [1.0, 2.0] }", 1),
    )
    .unwrap();
    let err = load_plan(&options.root, "kernel-error-demo", &Profile::Full)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("needs a learner") && err.contains("line"),
        "{err}"
    );
}

/// Rewrites one field of the committed CSV.
fn edit(path: &Path, row: usize, column_name: &str, f: impl Fn(&str) -> String) {
    let (header, mut rows) = csv(path);
    let i = header.iter().position(|h| h == column_name).unwrap();
    rows[row][i] = f(&rows[row][i]);
    let mut text = header.join(",") + "\n";
    for r in rows {
        let quoted: Vec<String> = r
            .iter()
            .map(|v| {
                if v.contains(',') {
                    format!("\"{v}\"")
                } else {
                    v.clone()
                }
            })
            .collect();
        text.push_str(&(quoted.join(",") + "\n"));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn check_fails_for_an_edited_value_a_deleted_row_and_passes_another_seed() {
    let (_dir, options) = workspace();
    let outcome = reproduce("kernel-error-demo", &Profile::quick(), &options).unwrap();
    let path = outcome.csv.clone();
    let pristine = std::fs::read_to_string(&path).unwrap();

    // One repetition edited from 0.25 to 1000.25: the exact comparison sees it.
    edit(&path, 0, "relative_error", |v| {
        (v.parse::<f64>().unwrap() + 1000.0).to_string()
    });
    let (report, _) = check("kernel-error-demo", &Profile::quick(), &options).unwrap();
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert_eq!(report.failures[0].column, "relative_error");

    // The last digit of one value.
    std::fs::write(&path, &pristine).unwrap();
    edit(&path, 1, "median_relative_error", |v| {
        let x: f64 = v.parse().unwrap();
        f64::from_bits(x.to_bits() + 1).to_string()
    });
    let (report, _) = check("kernel-error-demo", &Profile::quick(), &options).unwrap();
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);

    // An edited seed: a row is documented as re-runnable from its seeds (issue 24).
    std::fs::write(&path, &pristine).unwrap();
    edit(&path, 2, "seed", |v| {
        (v.parse::<u64>().unwrap() ^ 1).to_string()
    });
    let (report, _) = check("kernel-error-demo", &Profile::quick(), &options).unwrap();
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert_eq!(report.failures[0].column, "seed");

    // An edited master seed, in a middle row or the last: not one run any more, an error
    // naming the row (not a silent switch to the statistical comparison).
    let rows = pristine.lines().count() - 1;
    for row in [1, rows - 1] {
        std::fs::write(&path, &pristine).unwrap();
        edit(&path, row, "master_seed", |v| {
            (v.parse::<u64>().unwrap() + 1).to_string()
        });
        let err = check("kernel-error-demo", &Profile::quick(), &options)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("row {}: master_seed", row + 2)),
            "{err}"
        );
    }

    // A deleted row.
    let mut lines: Vec<&str> = pristine.lines().collect();
    lines.remove(3);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (report, _) = check("kernel-error-demo", &Profile::quick(), &options).unwrap();
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.column == "row" && f.detail.contains("not in the reference")),
        "{:?}",
        report.failures
    );

    // A truncated file is an error naming the row, not a silent pass.
    std::fs::write(&path, &pristine[..pristine.len() - 40]).unwrap();
    let err = check("kernel-error-demo", &Profile::quick(), &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("fields"), "{err}");

    // Another master seed: a correct rerun passes the statistical test.
    std::fs::write(&path, &pristine).unwrap();
    for seed in [1, 2, 3] {
        let (report, _) = check(
            "kernel-error-demo",
            &Profile::quick(),
            &RunOptions {
                master_seed: Some(seed),
                ..options.clone()
            },
        )
        .unwrap();
        assert!(report.passed(), "seed {seed}: {:?}", report.failures);
        assert!(matches!(
            report.mode,
            rfbench::check::Mode::OtherSeed { .. }
        ));
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (_dir, options) = workspace();
    let run_with = |threads: usize, name: &str, out: PathBuf| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let options = RunOptions {
            out_dir: out,
            ..options.clone()
        };
        pool.install(|| reproduce(name, &Profile::quick(), &options).unwrap())
            .csv
    };
    let one = run_with(1, "kernel-error-demo", options.root.join("one"));
    let three = run_with(3, "kernel-error-demo", options.root.join("three"));
    assert_eq!(
        column(&one, "relative_error"),
        column(&three, "relative_error")
    );
    for (name, metric) in [
        ("gram-error-demo", "gram_mse"),
        ("learning-demo", "accuracy"),
    ] {
        std::fs::write(
            options.root.join(format!("experiments/{name}.toml")),
            std::fs::read_to_string(options.root.join(format!("experiments/{name}.toml")))
                .unwrap()
                .replace("[check]", "[profiles.quick]\nrepetitions = 2\n\n[check]"),
        )
        .unwrap();
        let one = run_with(1, name, options.root.join("one"));
        let three = run_with(3, name, options.root.join("three"));
        assert_eq!(column(&one, metric), column(&three, metric), "{name}");
    }
}

/// A spec's mistakes are errors naming the key and the line.
#[test]
fn bad_specs_name_key_and_line() {
    let (_dir, options) = workspace();
    // (spec, text replaced, replacement, line offset of the key from the replaced text's line,
    // words the error must contain)
    let cases: &[(&str, &str, &str, usize, &[&str])] = &[
        (
            "learning-demo",
            "\"tensor-sketch\", \"polynomial\", \"linear-svm\"",
            "\"tensor-sketch\", \"polynomial\", \"linear-svn\"",
            0,
            &["unknown learner", "linear-svn"],
        ),
        (
            "kernel-error-demo",
            "[\"rff\", \"gaussian\"]",
            "[\"rff\", \"polynomial\"]",
            0,
            &["cannot approximate", "rff", "polynomial"],
        ),
        (
            "kernel-error-demo",
            "n_components = [64, 128]",
            "n_components = [64, 0]",
            0,
            &["n_components", "got 0"],
        ),
        (
            "learning-demo",
            "[learners.kernel-svm]\nrepetitions = 1",
            "[learners.kernel-svm]\nrepetitions = 0",
            1,
            &["learners.kernel-svm.repetitions", "got 0"],
        ),
        (
            "learning-demo",
            "[learners.kernel-svm]\nrepetitions = 1",
            "[learners.kernel-ridge]\nrepetitions = 1",
            1,
            &["no cell", "kernel-ridge"],
        ),
        (
            "kernel-error-demo",
            "n_components = [64, 128]",
            "n_components = [64, 128]\n\"dataset, pairs\" = [[\"tiny\", 100]]",
            1,
            &["`dataset` is also set by `data.dataset` (line 8)"],
        ),
        (
            "learning-demo",
            "fit_seconds = [\"map_seconds\", \"train_seconds\"]",
            "fit_seconds = [\"map_seconds\", \"train_second\"]",
            0,
            &["sums.fit_seconds", "unknown metric", "train_second"],
        ),
        (
            "learning-demo",
            "fit_seconds = [\"map_seconds\", \"train_seconds\"]",
            "accuracy = [\"map_seconds\", \"train_seconds\"]",
            0,
            &["sums.accuracy", "already a column"],
        ),
        (
            "kernel-error-demo",
            "[labels.dataset]\ntiny = \"Tiny (test data)\"",
            "[labels.dataset]\ntinny = \"Tiny (test data)\"",
            0,
            &["labels.dataset", "no cell has dataset = \"tinny\""],
        ),
        (
            "kernel-error-demo",
            "pairs = 300",
            "pairs = 5000000000",
            0,
            &["pairs", "5000000000"],
        ),
        (
            "kernel-error-demo",
            "y = \"relative_error\"",
            "y = \"relative_eror\"",
            0,
            &["figures", "relative_eror"],
        ),
        (
            "kernel-error-demo",
            "[\"nystroem\", \"gaussian\"]]",
            "[\"nystroem\"]]",
            0,
            &["zipped", "entry 4 has 1 values"],
        ),
        (
            "kernel-error-demo",
            "n_components = [64, 128]",
            "n_components = [64, 64]",
            0,
            &["twice"],
        ),
        (
            "kernel-error-demo",
            "n_components = [64, 128]",
            "n_components = [64, 128]\nwidth = 3",
            1,
            &["no component", "width"],
        ),
        (
            "kernel-error-demo",
            "dataset = [\"tiny\", \"offline\"]",
            "dataset = [\"tiny\", \"huge\"]",
            0,
            &["unknown dataset", "huge"],
        ),
        (
            "timing-demo",
            "repeats = 3",
            "repeats = 3\nrepeat = 2",
            1,
            &["no component", "repeat"],
        ),
        (
            "learning-demo",
            "[\"exact\", \"polynomial\", \"kernel-svm\"]",
            "[\"exact\", \"polynomial\", \"linear-svm\"]",
            0,
            &["trains on features"],
        ),
        (
            "kernel-error-demo",
            "columns = [\"relative_error\", \"median_relative_error\"]",
            "columns = [\"relative\"]",
            0,
            &["check.columns", "relative"],
        ),
        (
            "kernel-error-demo",
            "degree = 2",
            "degree = 0",
            0,
            &["degree", "got 0"],
        ),
        (
            "gram-error-demo",
            "[\"random-binning\", \"laplacian\"]",
            "[\"random-binning\", \"gaussian\"]",
            0,
            &["cannot approximate", "random-binning", "gaussian"],
        ),
        (
            "timing-demo",
            "[\"orf\", \"matern\"]",
            "[\"exact\", \"matern\"]",
            0,
            &["measures a feature map", "exact"],
        ),
        (
            "learning-demo",
            "lambda = [0.1, \"cv\"]",
            "lambda = [0.1, \"auto\"]",
            0,
            &["lambda", "\"auto\""],
        ),
        (
            "gram-error-demo",
            "n_grids = [5, 20]",
            "n_grids = [5, 20]\nform = \"phase\"",
            1,
            &["no component", "form"],
        ),
        // A bad value in a profile the run does not use still fails, naming key and line.
        (
            "kernel-error-demo",
            "repetitions = 2\nn_components = [64]",
            "repetitions = 2\nn_components = [0]",
            1,
            &["got 0", "in profile \"quick\""],
        ),
        // A claim's side that selects no cell of the grid is refused when the spec is planned.
        (
            "kernel-error-demo",
            "left = { map = \"tensor-sketch\" }",
            "left = { map = \"orf\" }",
            0,
            &[
                "claims[0].left",
                "matches no cell of the full profile's grid",
            ],
        ),
        // A library rule about a kernel parameter blames the key that sets it.
        (
            "kernel-error-demo",
            "degree = 2\noffset",
            "degree = 2\ngamma = 2.0\noffset",
            1,
            &["kernel.gamma", "gamma = 2 is out of range"],
        ),
    ];
    for (name, from, to, offset, needles) in cases {
        let path = options.root.join(format!("experiments/{name}.toml"));
        let original = std::fs::read_to_string(&path).unwrap();
        assert!(original.contains(from), "{name}: {from}");
        let line = original[..original.find(from).unwrap()]
            .matches('\n')
            .count()
            + 1
            + offset;
        let line = format!("(line {line})");
        std::fs::write(&path, original.replacen(from, to, 1)).unwrap();
        let err = load_plan(&options.root, name, &Profile::Full)
            .unwrap_err()
            .to_string();
        for needle in needles.iter().chain([&line.as_str()]) {
            assert!(
                err.contains(needle),
                "{name}: {to}: expected {needle:?} in: {err}"
            );
        }
        std::fs::write(&path, original).unwrap();
    }
}

/// Values that cannot fit in memory are refused before anything runs or is written, naming the
/// key, its line, the value and the estimate; `--memory-limit` moves the limit both ways. (A
/// degree in the billions is refused earlier, by its range: 1..=64.)
#[test]
fn cells_that_cannot_fit_in_memory_are_refused_before_running() {
    let (_dir, options) = workspace();
    let path = options.root.join("experiments/kernel-error-demo.toml");
    let original = std::fs::read_to_string(&path).unwrap();
    for (from, to, needles) in [
        (
            "n_components = [64, 128]",
            "n_components = [64, 200000000]",
            ["(line 23): `n_components = 200000000`", "features"],
        ),
        (
            "pairs = 300",
            "pairs = 2000000000",
            [
                "(line 14): `pairs = 2000000000`",
                "features (4000000000 rows",
            ],
        ),
    ] {
        assert!(original.contains(from), "{from}");
        std::fs::write(&path, original.replacen(from, to, 1)).unwrap();
        let err = reproduce("kernel-error-demo", &Profile::Full, &options)
            .unwrap_err()
            .to_string();
        for needle in needles
            .iter()
            .chain(&["above the memory limit", "--memory-limit"])
        {
            assert!(err.contains(needle), "{to}: expected {needle:?} in: {err}");
        }
        assert!(!options.root.join("results").exists(), "nothing written");
    }
    std::fs::write(&path, &original).unwrap();
    // The ordinary spec needs well under a megabyte per cell: refused under 0.1 MB, run under
    // the default.
    let tight = RunOptions {
        memory_limit: Some(100_000),
        ..options.clone()
    };
    let err = reproduce("kernel-error-demo", &Profile::quick(), &tight)
        .unwrap_err()
        .to_string();
    assert!(err.contains("above the memory limit of 0.1 MB"), "{err}");
    reproduce("kernel-error-demo", &Profile::quick(), &options).unwrap();
}

/// Random binning's features are `n_grids x width` dense columns (the registry entry says so),
/// so its default width of 2^20 is refused on the width, with ridge's `Z'Z` of
/// (30 x 2^20)^2 values: the allocation the run would make (7.9 PB). A small width passes.
#[test]
fn random_binning_is_estimated_on_its_width() {
    let (_dir, options) = workspace();
    let path = options.root.join("experiments/bandwidth-cv-demo.toml");
    let original = std::fs::read_to_string(&path).unwrap();
    let binning = original
        .replace(
            "name = \"gaussian\"\nsigma = [{ cv = [0.01, 2.0, 4.0, 1000.0], folds = 3 }, { cv = [0.01, 0.02], folds = 3 }]",
            "name = \"laplacian\"\nsigma = 2.0",
        )
        .replace(
            "\"map, learner\" = [[\"rff\", \"ridge\"], [\"exact\", \"kernel-svm\"]]\nn_components = 200",
            "map = \"random-binning\"\nlearner = \"ridge\"\nn_grids = 30",
        )
        .replace("columns = [\"accuracy\", \"sigma_used\", \"sigma_at_edge\"]", "columns = [\"accuracy\"]");
    assert!(binning.contains("random-binning") && binning.contains("laplacian"));
    std::fs::write(&path, &binning).unwrap();
    let err = reproduce("bandwidth-cv-demo", &Profile::Full, &options)
        .unwrap_err()
        .to_string();
    let d = 30u128 << 20;
    let term = format!(
        "{:.1} GB features in blocks of 4096 rows x {d}, and Z'Z",
        (8 * 4096 * d + 8 * d * d) as f64 / 1e9
    );
    for needle in ["`width = 1048576`", &term[..]] {
        assert!(err.contains(needle), "expected {needle:?} in: {err}");
    }
    std::fs::write(
        &path,
        binning.replace("n_grids = 30", "n_grids = 30\nwidth = 16"),
    )
    .unwrap();
    reproduce("bandwidth-cv-demo", &Profile::Full, &options).unwrap();
    std::fs::write(&path, &original).unwrap();
}

/// A cell that fails at run time (Nystroem with more landmarks than the 350 training rows: known
/// only once the data is split) is recorded with status `failed` and its error; the cell before
/// it keeps its numbers, the CSV is written, and the command exits non-zero naming the cell.
#[test]
fn a_failing_cell_is_recorded_and_the_run_goes_on() {
    let (_dir, options) = workspace();
    let spec = r#"
name = "failing-demo"
title = "Nystroem + ridge, the second D above the training rows"
paper = "none"
kind = "learning"

[data]
dataset = "make-classification"
n = 500
d = 8
n_test = 150

[run]
master_seed = 7
repetitions = 2

[kernel]
name = "gaussian"
sigma = "median"

[grid]
map = "nystroem"
learner = "ridge"
n_components = [50, 400]

[learners.ridge]
lambda = 0.1

[[figures]]
x = "n_components"
y = "accuracy"

[check]
columns = ["accuracy"]
"#;
    let path = options.root.join("experiments/failing-demo.toml");
    std::fs::write(&path, spec).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .arg("--root")
        .arg(&options.root)
        .args(["reproduce", "failing-demo"])
        .env("RFBENCH_CACHE", options.root.join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "exit status {:?}: {stderr}",
        out.status
    );
    assert!(
        stderr.contains("2 run(s) failed")
            && stderr.contains("n_components = 400")
            && stderr.contains("landmarks"),
        "{stderr}"
    );
    let csv = options.root.join("results/failing-demo/full.csv");
    let d = column(&csv, "n_components");
    let status = column(&csv, "status");
    let reasons = column(&csv, "skip_reason");
    let accuracy = column(&csv, "accuracy");
    assert_eq!(status.len(), 4, "2 cells x 2 repetitions");
    for i in 0..4 {
        if d[i] == "50" {
            assert_eq!(status[i], "ok");
            assert!(
                accuracy[i].parse::<f64>().unwrap() > 50.0,
                "{}",
                accuracy[i]
            );
        } else {
            assert_eq!((d[i].as_str(), status[i].as_str()), ("400", "failed"));
            assert!(reasons[i].contains("landmarks"), "{}", reasons[i]);
            assert!(accuracy[i].is_empty());
        }
    }
    assert!(options.root.join("figures/failing-demo/full.png").exists());
}

/// The README's main command: `rfbench reproduce NAME` from inside the root (root and output
/// folder "."), which the tests above, all on absolute paths, do not exercise.
#[test]
fn reproduce_by_name_from_inside_the_root() {
    let (_dir, options) = workspace();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .current_dir(&options.root)
        .args(["reproduce", "gram-error-demo"])
        .env("RFBENCH_CACHE", options.root.join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let csv = options.root.join("results/gram-error-demo/full.csv");
    assert!(!column(&csv, "status").is_empty());
    // The spec named by its path in experiments/ is the same run: results/ of the root, not
    // an experiments/results/ beside the spec.
    std::fs::remove_file(&csv).unwrap();
    let by_path = std::process::Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .current_dir(&options.root)
        .args(["reproduce", "experiments/gram-error-demo.toml"])
        .env("RFBENCH_CACHE", options.root.join("cache"))
        .output()
        .unwrap();
    assert!(by_path.status.success(), "{by_path:?}");
    assert!(csv.is_file() && !options.root.join("experiments/results").exists());
    assert!(column(&csv, "status").iter().all(|s| s == "ok"));
    let leftovers: Vec<_> = std::fs::read_dir(options.root.join("results/gram-error-demo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") || n.ends_with(".journal"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A reference whose every cell was skipped (its data was missing) compares nothing, and a check
/// against it fails instead of passing (issue 24).
#[test]
fn a_check_with_nothing_compared_fails() {
    let (_dir, options) = workspace();
    let spec = r#"
name = "offline-demo"
title = "Every cell skipped: the data is nowhere"
paper = "none"
kind = "kernel-error"

[data]
dataset = "offline"

[run]
master_seed = 3
repetitions = 2
pairs = 100

[kernel]
name = "polynomial"
degree = 2

[grid]
map = "tensor-sketch"
n_components = 64

[check]
columns = ["relative_error"]
"#;
    std::fs::write(options.root.join("experiments/offline-demo.toml"), spec).unwrap();
    let outcome = reproduce("offline-demo", &Profile::Full, &options).unwrap();
    assert_eq!(outcome.skipped, 2);
    let (report, _) = check("offline-demo", &Profile::Full, &options).unwrap();
    assert!(!report.passed());
    assert!(
        report.failures[0].detail.contains("nothing compared"),
        "{:?}",
        report.failures
    );
}

/// `--threads` out of range is refused at once (issue 24: 100,000 threads hung a 0.1 s run).
#[test]
fn an_absurd_thread_count_is_refused() {
    for threads in ["0", "100000"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rfbench"))
            .args(["--threads", threads, "maps"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{threads}");
        assert!(stderr.contains("between 1 and 1024"), "{stderr}");
    }
}

/// Sets `row`'s gram_mse to 42, a value no run measures: a row that comes back with it was
/// taken, not measured again.
fn mark_gram_mse(row: &mut rfbench::results::ResultRow) {
    use rfbench::results::{CellOutcome, MetricsBuilder};
    let CellOutcome::Done(metrics) = &row.outcome else {
        panic!("{row:?}")
    };
    let names: Vec<String> = metrics.iter().map(|(n, _)| n.to_string()).collect();
    let mut marked = MetricsBuilder::new(&names);
    for (name, value) in metrics.iter() {
        let value = if name == "gram_mse" { 42.0 } else { value };
        marked.set(name, value).unwrap();
    }
    row.outcome = CellOutcome::Done(marked.finish());
}

/// A smaller spec with fewer columns (compare's confirmation rounds: a few of its sweep's cells)
/// takes the earlier rows of its cells, whose other columns are empty; a row with a value in a
/// column the smaller spec does not have is another run, measured again.
#[test]
fn a_smaller_spec_takes_the_rows_of_its_cells_from_a_wider_one() {
    use rfbench::results::{CellValue, ResultRow};
    let (dir, options) = workspace();
    let first = reproduce("gram-error-demo", &Profile::Full, &options).unwrap();
    let rff = |row: &&ResultRow| row.coordinates.get("map") == Some(&CellValue::Text("rff".into()));
    let gaussian = |row: &&ResultRow| {
        row.coordinates.get("kernel") == Some(&CellValue::Text("gaussian".into()))
    };
    let mut earlier = first.rows.clone();
    let k = earlier
        .iter()
        .position(|r| rff(&r) && gaussian(&r))
        .unwrap();
    mark_gram_mse(&mut earlier[k]);
    // The same rff run, but with a value in PRFF's max_iterations column: not this spec's run.
    let j = earlier
        .iter()
        .enumerate()
        .position(|(i, r)| i != k && rff(&r) && gaussian(&r))
        .unwrap();
    mark_gram_mse(&mut earlier[j]);
    earlier[j]
        .coordinates
        .insert("max_iterations".into(), CellValue::Int(5));
    let spec = dir.path().join("experiments/gram-error-demo.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let grid = text
        .lines()
        .find(|l| l.starts_with("\"map, kernel\""))
        .unwrap();
    let smaller = text
        .replace(grid, "\"map, kernel\" = [[\"rff\", \"gaussian\"]]")
        .replace(
            "[maps.random-binning]\nn_grids = [5, 20]\nwidth = 4096\n",
            "",
        )
        .replace("[maps.prff]\nmax_iterations = 5\n", "");
    std::fs::write(&spec, smaller).unwrap();
    let second =
        rfbench::run::reproduce_reusing("gram-error-demo", &Profile::Full, &options, &earlier)
            .unwrap();
    assert!(!second.plan.columns.contains(&"max_iterations".to_string()));
    let found = |row: &ResultRow| {
        second
            .rows
            .iter()
            .find(|r| {
                r.repetition == row.repetition
                    && r.coordinates.get("d") == row.coordinates.get("d")
                    && r.coordinates.get("n_components") == row.coordinates.get("n_components")
            })
            .unwrap()
    };
    assert_eq!(found(&earlier[k]).metric("gram_mse"), Some(42.0), "taken");
    assert_eq!(
        found(&earlier[j]).metric("gram_mse"),
        first.rows[j].metric("gram_mse"),
        "a value in another column: measured again"
    );
}

/// A run of a grown spec takes the rows an earlier run measured (same coordinates, repetition
/// and seeds) instead of running their cells again, and runs the rest: `rfbench compare`'s
/// rounds up the ladder of D.
#[test]
fn a_grown_spec_takes_the_rows_an_earlier_run_measured() {
    use rfbench::results::{CellValue, ResultRow};
    let (dir, options) = workspace();
    let first = reproduce("gram-error-demo", &Profile::Full, &options).unwrap();
    // Two rows marked: one kept as it is (the mark must come back), one with another seed (it
    // must be measured again).
    let mut earlier = first.rows.clone();
    mark_gram_mse(&mut earlier[0]);
    mark_gram_mse(&mut earlier[1]);
    earlier[1].seeds[0].1 ^= 1;
    let spec = dir.path().join("experiments/gram-error-demo.toml");
    let grown = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("n_components = [20, 80]", "n_components = [20, 80, 160]");
    std::fs::write(&spec, grown).unwrap();
    let second =
        rfbench::run::reproduce_reusing("gram-error-demo", &Profile::Full, &options, &earlier)
            .unwrap();
    let mse = column(&second.csv, "gram_mse");
    // d in {3, 6} x (4 maps x 3 D + binning's 2 grids + rff laplacian's 3 D) x 2 repetitions.
    assert_eq!(mse.len(), 2 * (4 * 3 + 2 + 3) * 2);
    let at = |row: &ResultRow| {
        second
            .rows
            .iter()
            .position(|r| r.coordinates == row.coordinates && r.repetition == row.repetition)
            .unwrap()
    };
    assert_eq!(mse[at(&earlier[0])], "42.0", "the earlier row is taken");
    let remeasured = &second.rows[at(&earlier[1])];
    assert_eq!(
        remeasured.metric("gram_mse"),
        first.rows[1].metric("gram_mse"),
        "another seed: measured again"
    );
    // Every other earlier row comes back as it was; the new value of D was measured.
    for row in &first.rows[2..] {
        assert_eq!(&second.rows[at(row)], row);
    }
    let d160 = second
        .rows
        .iter()
        .filter(|r| r.coordinates.get("n_components") == Some(&CellValue::Int(160)))
        .count();
    assert_eq!(d160, 2 * 5 * 2);
}

/// Every run writes `results/SPEC/PROFILE.claims.md` (each claim's verdict and the pairs that decide
/// it); the same-seed check compares it with the committed one.
#[test]
fn the_claims_file_is_written_and_checked() {
    let (dir, options) = workspace();
    reproduce("kernel-error-demo", &Profile::Full, &options).unwrap();
    let path = dir.path().join("results/kernel-error-demo/full.claims.md");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\n## 1. TS below RM\n"), "{text}");
    assert!(
        text.contains("metric: `relative_error` · **INDISTINGUISHABLE** · holds at 0, "),
        "{text}"
    );
    assert!(text.contains("| paired t |"), "{text}");
    let (report, _) = check("kernel-error-demo", &Profile::Full, &options).unwrap();
    assert!(report.passed(), "{:?}", report.failures);
    // A verdict edited by hand fails the check, naming the claim.
    let edited = text.replacen("**INDISTINGUISHABLE**", "**holds**", 1);
    std::fs::write(&path, edited).unwrap();
    let (report, _) = check("kernel-error-demo", &Profile::Full, &options).unwrap();
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.column == "claims" && f.cell == "1. TS below RM"),
        "{:?}",
        report.failures
    );
    // So does a missing one.
    std::fs::remove_file(&path).unwrap();
    let (report, _) = check("kernel-error-demo", &Profile::Full, &options).unwrap();
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.column == "claims" && f.detail.contains("no committed claims file")),
        "{:?}",
        report.failures
    );
}

/// An offline rerun does not replace rows that ran with skipped ones: it writes nothing and says
/// why, unless asked to (`--allow-skipped`).
#[test]
fn an_offline_rerun_keeps_the_rows_that_ran() {
    let (dir, options) = workspace();
    let first = reproduce("kernel-error-demo", &Profile::Full, &options).unwrap();
    let committed = std::fs::read_to_string(&first.csv).unwrap();
    let figure = std::fs::read(&first.rendered.figures[0]).unwrap();
    let offline = RunOptions {
        fetch: FetchOptions {
            cache_dir: dir.path().join("empty-cache"),
            mirrors: Vec::new(),
            progress: false,
        },
        ..options.clone()
    };
    let err = reproduce("kernel-error-demo", &Profile::Full, &offline)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("row(s) that ran in") && err.contains("--allow-skipped"),
        "{err}"
    );
    assert!(err.contains("dataset = tiny"), "{err}");
    assert_eq!(std::fs::read_to_string(&first.csv).unwrap(), committed);
    assert_eq!(std::fs::read(&first.rendered.figures[0]).unwrap(), figure);
    // Asked to, it replaces them.
    let allowed = RunOptions {
        allow_skipped: true,
        ..offline
    };
    let outcome = reproduce("kernel-error-demo", &Profile::Full, &allowed).unwrap();
    assert!(column(&outcome.csv, "status")
        .iter()
        .all(|s| s == "skipped"));
}

/// The refusal comes before any cell runs, not after all of them, and leaves no partial file:
/// a data set that was there for the first run is gone for the second, while the other one is
/// still there (its cells could run).
#[test]
fn an_offline_rerun_is_refused_before_any_cell_runs() {
    let (dir, options) = workspace();
    let mirror = dir.path().join("mirror");
    std::fs::copy(mirror.join("tiny.svm"), mirror.join("offline.svm")).unwrap();
    let first = reproduce("kernel-error-demo", &Profile::Full, &options).unwrap();
    assert_eq!(first.skipped, 0);
    std::fs::remove_file(mirror.join("offline.svm")).unwrap();
    let _ = std::fs::remove_dir_all(dir.path().join("cache"));
    let err = reproduce("kernel-error-demo", &Profile::Full, &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("dataset = offline"), "{err}");
    let partial = first.csv.with_file_name(".full.partial.csv");
    assert!(!partial.exists(), "{} left behind", partial.display());
    // Resumed, the partial file stays, and holds no row: no cell of `tiny` ran.
    let resumed = RunOptions {
        resume: true,
        ..options.clone()
    };
    assert!(reproduce("kernel-error-demo", &Profile::Full, &resumed).is_err());
    let text = std::fs::read_to_string(&partial).unwrap();
    assert_eq!(
        text.lines().count(),
        2,
        "the stamp and the header only:\n{text}"
    );
}

/// A figure whose `where` selects no cell of the profile's grid is refused when the spec is
/// planned, naming the key and its line, before anything runs.
#[test]
fn a_figure_selecting_nothing_is_refused_before_the_run() {
    let (dir, options) = workspace();
    let spec = dir.path().join("experiments/kernel-error-demo.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replacen(
        "panels = \"kernel\"",
        "panels = \"kernel\"\nwhere = { offset = 5.0 }",
        1,
    );
    std::fs::write(&spec, text).unwrap();
    let err = load_plan(&options.root, "kernel-error-demo", &Profile::Full)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("key `figures[0].where` (line 33)") && err.contains("matches no cell"),
        "{err}"
    );
    assert!(!dir.path().join("results").exists());
}

/// A table that leaves a varying coordinate out of its rows, columns and `where` is refused
/// when the spec is planned, naming the coordinate, before anything runs (not after the run, when
/// its cells could not be placed).
#[test]
fn a_table_with_two_cells_in_one_place_is_refused_before_the_run() {
    let (dir, options) = workspace();
    let spec = dir.path().join("experiments/kernel-error-demo.toml");
    let text = std::fs::read_to_string(&spec).unwrap().replacen(
        "rows = [\"dataset\", \"map\", \"offset\"]",
        "rows = [\"dataset\", \"map\"]",
        1,
    );
    std::fs::write(&spec, text).unwrap();
    let err = load_plan(&options.root, "kernel-error-demo", &Profile::Full)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("key `tables[0].rows`") && err.contains("differing in [\"offset\"]"),
        "{err}"
    );
    assert!(!dir.path().join("results").exists());
}

/// `render` draws only the spec's own rows: a results file holding a row of another experiment
/// or profile (two files joined by hand) is refused, naming the row (issue 24).
#[test]
fn render_refuses_rows_of_another_run() {
    let (_dir, options) = workspace();
    let outcome = reproduce("gram-error-demo", &Profile::Full, &options).unwrap();
    for (column, value) in [("experiment", "kernel-error-demo"), ("profile", "quick")] {
        let (header, mut rows) = csv(&outcome.csv);
        let i = header.iter().position(|h| h == column).unwrap();
        let kept = rows.clone();
        rows[3][i] = value.to_string();
        let text = rfbench::results::write_records(&header, rows).unwrap();
        std::fs::write(&outcome.csv, text).unwrap();
        let err = rfbench::run::render("gram-error-demo", &Profile::Full, &options)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("row 5 is experiment") && err.contains("another run's rows"),
            "{err}"
        );
        let text = rfbench::results::write_records(&header, kept).unwrap();
        std::fs::write(&outcome.csv, text).unwrap();
    }
    rfbench::run::render("gram-error-demo", &Profile::Full, &options).unwrap();
}

/// `--require-clean` (what `just reproduce-all` passes): refused outside a git checkout and on
/// one with a tracked file changed outside results/ and figures/, writing nothing; run on a
/// clean one (a changed committed result does not count), every row names the bare commit.
#[test]
fn require_clean_refuses_a_dirty_checkout() {
    let (_dir, options) = workspace();
    let root = &options.root;
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_rfbench"))
            .arg("--root")
            .arg(root)
            .args(["reproduce", "gram-error-demo", "--require-clean"])
            .env("RFBENCH_CACHE", root.join("cache"))
            .output()
            .unwrap()
    };
    let csv = root.join("results/gram-error-demo/full.csv");
    let refused = |why: &str| {
        let out = run();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(why), "{stderr}");
        assert!(!csv.exists());
    };
    refused("not a git checkout");
    git(&["init", "-q"]);
    std::fs::create_dir_all(root.join("results")).unwrap();
    std::fs::write(root.join("results/committed.csv"), "a\n").unwrap();
    git(&["add", "experiments", "datasets.toml", "results"]);
    git(&["commit", "-qm", "specs"]);
    let spec = root.join("experiments/kernel-error-demo.toml");
    std::fs::write(&spec, format!("{KERNEL_ERROR}\n# edited\n")).unwrap();
    refused("uncommitted changes");
    git(&["checkout", "-q", "--", "experiments"]);
    std::fs::write(root.join("results/committed.csv"), "b\n").unwrap();
    let out = run();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let commits = column(&csv, "git_commit");
    assert!(
        !commits.is_empty() && commits.iter().all(|c| c.len() == 12 && !c.contains('-')),
        "{commits:?}"
    );
}

/// The learning demo named `name`, without its tables (one reads the clock metrics), checked on
/// accuracy.
fn learning_untimed(name: &str) -> String {
    LEARNING
        .split("[[tables]]")
        .next()
        .unwrap()
        .replace("name = \"learning-demo\"", &format!("name = \"{name}\""))
        + "\n[check]\ncolumns = [\"accuracy\"]\n"
}

/// `spec` (the learning demo) with `[run] overlap_runs = true`.
fn with_overlap(spec: &str) -> String {
    spec.replace(
        "repetitions = 2\n",
        "repetitions = 2\noverlap_runs = true\n",
    )
}

/// `run_cells` hands the plan's `overlap_runs` to the scheduler. On one thread the order the runs
/// finish in is the order they start in, and the partial file keeps it: with `overlap_runs`, the
/// learning demo's runs start longest first by the runner's cost estimate, so each map's runs at
/// D = 200 finish before its runs at D = 50 with the same C or lambda (the plan has them the
/// other way round); without it, they finish in the plan's order.
#[test]
fn overlapping_runs_start_longest_first_and_the_others_in_the_plans_order() {
    use rfbench::partial::{Partial, Stamp};
    use rfbench::results::Provenance;
    let (dir, options) = workspace();
    let untimed = learning_untimed("order-demo");
    let path = options.root.join("experiments/order-demo.toml");
    // (map with its learner's C and lambda, D) of each row, in the order the rows reached the
    // partial file.
    let finished = |text: &str| -> Vec<(String, String)> {
        std::fs::write(&path, text).unwrap();
        let plan = load_plan(&options.root, "order-demo", &Profile::Full).unwrap();
        let file = dir.path().join("order.partial.csv");
        let provenance = Provenance::collect(&options.root);
        let stamp = Stamp {
            spec_sha256: "spec".into(),
            datasets_sha256: "datasets".into(),
            code: rfbench::shard::Code::current(&provenance),
        };
        let opened = Partial::open(&file, &plan.layout(), &provenance, &stamp, false).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let partial = opened.partial.expect("no other run holds the file");
        pool.install(|| rfbench::run::run_cells(&plan, &options, &[], Some(&partial)))
            .unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        partial.finish().unwrap();
        // The stamp line, then the header and the rows.
        let body = dir.path().join("order.csv");
        std::fs::write(&body, text.split_once('\n').unwrap().1).unwrap();
        let (header, rows) = csv(&body);
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        let (map, d, c, lambda) = (at("map"), at("n_components"), at("C"), at("lambda"));
        let key = |r: &Vec<String>| format!("{} {} {}", r[map], r[c], r[lambda]);
        rows.iter().map(|r| (key(r), r[d].clone())).collect()
    };
    let in_order = finished(&untimed);
    let overlapping = finished(&with_overlap(&untimed));
    // Whether in `rows` both runs (repetitions) of `key` at D = `first` finished before both at
    // D = `then`.
    let before = |rows: &[(String, String)], key: &str, first: &str, then: &str| -> bool {
        let at = |d: &str| -> Vec<usize> {
            (0..rows.len())
                .filter(|&i| rows[i].0 == key && rows[i].1 == d)
                .collect()
        };
        let (a, b) = (at(first), at(then));
        a.len() == 2 && b.len() == 2 && a.iter().max() < b.iter().min()
    };
    let keys: std::collections::BTreeSet<&String> = in_order
        .iter()
        .filter(|(_, d)| d == "200")
        .map(|(key, _)| key)
        .collect();
    assert_eq!(keys.len(), 6, "{in_order:?}");
    for key in keys {
        assert!(before(&in_order, key, "50", "200"), "{key}: {in_order:?}");
        assert!(
            before(&overlapping, key, "200", "50"),
            "{key}: {overlapping:?}"
        );
    }
}

/// `[run] overlap_runs = true` on the learning demo (its outputs that read the clock taken out):
/// the runs overlap and the file says so in its last column; every column but the clock metrics
/// and the provenance is what the runs one at a time wrote, to the bit, on 1 thread and on 3.
#[test]
fn overlapping_learning_runs_give_the_same_results_and_say_so() {
    let (_dir, options) = workspace();
    let untimed = learning_untimed("overlap-demo");
    let path = options.root.join("experiments/overlap-demo.toml");
    let csv_of = |text: &str, threads: usize| {
        std::fs::write(&path, text).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
        let pool = pool.build().unwrap();
        let outcome = pool.install(|| reproduce("overlap-demo", &Profile::Full, &options));
        csv(&outcome.unwrap().csv)
    };
    let (one_header, one) = csv_of(&untimed, 3);
    let overlapping = with_overlap(&untimed);
    assert!(!one_header.iter().any(|h| h == "runs_overlapped"));
    let clock_or_provenance = [
        "map_seconds",
        "train_seconds",
        "predict_seconds",
        "threads",
        "date",
        "git_commit",
    ];
    for threads in [1, 3] {
        let (header, rows) = csv_of(&overlapping, threads);
        assert_eq!(header.last().unwrap(), "runs_overlapped");
        assert_eq!(&header[..header.len() - 1], &one_header[..]);
        assert_eq!(rows.len(), one.len());
        for (a, b) in one.iter().zip(&rows) {
            assert_eq!(b.last().unwrap(), "true");
            for (i, column) in one_header.iter().enumerate() {
                if !clock_or_provenance.contains(&column.as_str()) {
                    assert_eq!(a[i], b[i], "{column} on {threads} thread(s)");
                }
            }
        }
    }
}

/// `render` of a results file with rows missing (cut short, or edited by hand) is refused,
/// naming how many runs have no row, instead of deciding the claims on the cells left (issue
/// 68 #8); the outputs drawn before are left as they were.
#[test]
fn render_refuses_a_results_file_with_rows_missing() {
    let (_dir, options) = workspace();
    let outcome = reproduce("kernel-error-demo", &Profile::quick(), &options).unwrap();
    let drawn = |dir: &str| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> =
            std::fs::read_dir(options.root.join(dir).join("kernel-error-demo"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "md" || x == "png"))
                .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
                .collect();
        files.sort();
        files
    };
    let before = (drawn("results"), drawn("figures"));
    assert!(!before.1.is_empty());
    let text = std::fs::read_to_string(&outcome.csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Without the rows of one cell (its repetitions): the second and third rows.
    let cut: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| ![1, 2].contains(i))
        .map(|(_, l)| *l)
        .collect();
    std::fs::write(&outcome.csv, cut.join("\n") + "\n").unwrap();
    let err = rfbench::run::render("kernel-error-demo", &Profile::quick(), &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("2 of the plan's") && err.contains("no row"),
        "{err}"
    );
    assert!(before == (drawn("results"), drawn("figures")));
}

/// `results/` and `figures/` linked to folders elsewhere (a bigger disk) are the output
/// folders (issue 68 #6): a run commits into them, leaves no journal, and `render` and a
/// second run work; a spec folder linked out of them is refused before anything runs.
#[test]
fn linked_results_and_figures_folders_hold_the_outputs() {
    let (dir, options) = workspace();
    let big = dir.path().join("big");
    for top in ["results", "figures"] {
        std::fs::create_dir_all(big.join(top)).unwrap();
        std::os::unix::fs::symlink(big.join(top), dir.path().join(top)).unwrap();
    }
    for _ in 0..2 {
        let outcome = reproduce("learning-demo", &Profile::Full, &options).unwrap();
        assert!(big.join("results/learning-demo/full.csv").is_file());
        assert_png(&big.join("figures/learning-demo/full.png"));
        assert!(!outcome.rendered.figures.is_empty());
    }
    rfbench::run::render("learning-demo", &Profile::Full, &options).unwrap();
    let journals: Vec<String> = std::fs::read_dir(big.join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".journal"))
        .collect();
    assert!(journals.is_empty(), "{journals:?}");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, big.join("results/gram-error-demo")).unwrap();
    let err = reproduce("gram-error-demo", &Profile::Full, &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// A spec name or path with control characters (a terminal escape sequence) is printed
/// escaped in the error, never raw (issue 68).
#[test]
fn control_characters_in_a_spec_name_are_escaped_in_errors() {
    let (dir, _) = workspace();
    for spec in ["evil\u{1b}[2J\u{7}", "experiments/evil\u{1b}[31m.toml"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rfbench"))
            .arg("--root")
            .arg(dir.path())
            .args(["render", spec])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            !stderr.contains('\u{1b}') && !stderr.contains('\u{7}') && stderr.contains("\\u{1b}"),
            "{stderr:?}"
        );
    }
}

/// `check` refuses a reference file it can refuse by reading it (a master seed edited in one
/// row) before regenerating the run (issue 68): here the regeneration itself would be refused
/// for memory, so only a check that reads the reference first names the reference's row.
#[test]
fn check_refuses_a_bad_reference_before_regenerating() {
    let (_dir, options) = workspace();
    let outcome = reproduce("kernel-error-demo", &Profile::quick(), &options).unwrap();
    edit(&outcome.csv, 1, "master_seed", |v| {
        (v.parse::<u64>().unwrap() + 1).to_string()
    });
    let starved = RunOptions {
        memory_limit: Some(1),
        ..options.clone()
    };
    let err = check("kernel-error-demo", &Profile::quick(), &starved)
        .unwrap_err()
        .to_string();
    assert!(err.contains("row 3: master_seed"), "{err}");
}
