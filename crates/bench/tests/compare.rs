//! `rfbench compare` end to end on small written files: a CSV with a header and text labels, a
//! headerless whitespace file, a LIBSVM file with its own test file, a regression file. Each
//! writes its specs, results (the maps' Gram errors among them), figures and report, recommends
//! a (map, D), and the sweep's spec it wrote reruns with `rfbench reproduce` to the same numbers.

use std::path::{Path, PathBuf};
use std::process::Command;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Rows of two noisy rings: a label that no linear model of the raw inputs separates.
fn rings(n: usize, seed: u64) -> Vec<(Vec<f64>, bool)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let x: Vec<f64> = (0..4).map(|_| rng.random_range(-2.0..2.0)).collect();
            let inside = x[0] * x[0] + x[1] * x[1] < 1.6 + rng.random_range(-0.3..0.3);
            (x, inside)
        })
        .collect()
}

/// [`rings`] as a headerless CSV, the label 0 or 1 last.
fn rings_csv(n: usize, seed: u64) -> String {
    let mut text = String::new();
    for (x, inside) in rings(n, seed) {
        let row: Vec<String> = x.iter().map(|v| format!("{v:.4}")).collect();
        text += &format!("{},{}\n", row.join(","), u8::from(inside));
    }
    text
}

fn write(dir: &Path, name: &str, text: String) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn rfbench(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .current_dir(dir)
        .args(args)
        .env("RFBENCH_CACHE", dir.join("cache"))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn column(path: &Path, name: &str) -> Vec<String> {
    let (header, rows) = rfbench::results::read_records(path).unwrap();
    let k = header.iter().position(|h| h == name).unwrap();
    rows.iter().map(|r| r[k].clone()).collect()
}

/// `rfbench compare rings.csv --out out --quick` with the given maps, budget and largest D.
fn quick_compare(dir: &Path, maps: &str, budget: &str, max_d: &str) -> (bool, String, String) {
    let args = [
        "compare",
        "rings.csv",
        "--out",
        "out",
        "--quick",
        "--maps",
        maps,
    ];
    let args = [&args[..], &["--budget", budget, "--max-components", max_d]].concat();
    rfbench(dir, &args)
}

/// The options of every comparison here: small and quick; both Fourier forms of RFF (the
/// phase form a series of its own), so that every rerun below covers a map with a variant.
const SMALL: [&str; 9] = [
    "--out",
    "out",
    "--quick",
    "--max-components",
    "256",
    "--maps",
    "rff,rff:phase,nystroem",
    "--budget",
    "120s",
];

/// Runs compare on `data` into `out`, checks what it wrote, reruns the sweep's spec and compares
/// `metric` bit for bit.
fn compare_and_rerun(dir: &Path, data: &str, extra: &[&str], metric: &str) -> String {
    let mut args = vec!["compare", data];
    args.extend(SMALL);
    args.extend(extra);
    let (ok, stdout, stderr) = rfbench(dir, &args);
    assert!(ok, "{stderr}");
    let out = dir.join("out");
    for file in [
        "tune.toml",
        "pilot.toml",
        "compare.toml",
        "gram.toml",
        "results/gram/full.csv",
        "report.md",
        "results/compare/full.csv",
        "figures/compare/full.score.png",
        "figures/compare/full.time.png",
        "figures/compare/full.pareto.png",
    ] {
        assert!(out.join(file).is_file(), "{file} missing: {stderr}");
    }
    assert!(stdout.contains("## Recommendation"), "{stdout}");
    assert!(stdout.contains("within 1 points:"), "{stdout}");
    // The answer opens the report and ends the output; answer.json has it with every cell.
    let answer = stdout.lines().last().unwrap_or_default();
    assert!(answer.starts_with("answer: use "), "{stdout}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains(&format!("**Answer:** {}", &answer["answer: ".len()..])));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("answer.json")).unwrap()).unwrap();
    assert_eq!(json["answer"].as_str(), Some(&answer["answer: ".len()..]));
    assert_eq!(json["recommendations"].as_array().map(Vec::len), Some(3));
    let cells = json["cells"].as_array().unwrap();
    assert!(cells.iter().any(|c| c["map"] == "exact"), "{json}");
    // Every repetition's test rows, unless the data brings its own.
    let splits = out.join("splits.json");
    if extra.contains(&"--test") {
        assert!(!splits.exists());
    } else {
        let text = std::fs::read_to_string(&splits).unwrap();
        let splits: serde_json::Value = serde_json::from_str(&text).unwrap();
        let most = cells
            .iter()
            .filter_map(|c| {
                c["repetitions"]
                    .as_array()?
                    .iter()
                    .filter_map(|r| r.as_u64())
                    .max()
            })
            .max()
            .unwrap();
        let listed = splits["splits"].as_array().unwrap();
        assert_eq!(listed.len() as u64, most + 1, "{text}");
        assert!(listed
            .iter()
            .all(|s| !s["test_rows"].as_array().unwrap().is_empty()));
    }
    let gram = column(&out.join("results/gram/full.csv"), "relative_frobenius");
    assert!(
        gram.iter()
            .all(|g| g.parse::<f64>().is_ok_and(|g| g > 0.0 && g < 1.0)),
        "{gram:?}"
    );
    let csv = out.join("results/compare/full.csv");
    let first = column(&csv, metric);
    assert!(first.iter().any(|v| !v.is_empty()), "{metric}: {first:?}");
    // Into compare's own folder the rerun is refused: the report was drawn from these rows.
    let before = std::fs::read(&csv).unwrap();
    let (ok, _, stderr) = rfbench(dir, &["reproduce", "out/compare.toml"]);
    assert!(!ok && stderr.contains("--out-dir OTHER"), "{stderr}");
    assert_eq!(
        std::fs::read(&csv).unwrap(),
        before,
        "the refused rerun wrote"
    );
    let (ok, _, stderr) = rfbench(
        dir,
        &["reproduce", "out/compare.toml", "--out-dir", "again"],
    );
    assert!(ok, "{stderr}");
    assert_eq!(
        column(&dir.join("again/results/compare/full.csv"), metric),
        first,
        "the written spec reproduces {metric}"
    );
    stdout
}

#[test]
fn a_csv_with_a_header_and_text_labels() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("a,b,c,d,kind\n");
    for (x, inside) in rings(400, 1) {
        let row: Vec<String> = x.iter().map(|v| format!("{v:.4}")).collect();
        text += &format!("{},{}\n", row.join(","), if inside { "in" } else { "out" });
    }
    write(dir.path(), "rings.csv", text);
    let report = compare_and_rerun(dir.path(), "rings.csv", &[], "accuracy");
    assert!(report.contains("header row"), "{report}");
    assert!(report.contains("binary (2 classes"), "{report}");
    // The rings need the kernel: the exact machine is far above the linear baseline.
    let csv = dir.path().join("out/results/compare/full.csv");
    let (maps, accuracy) = (column(&csv, "map"), column(&csv, "accuracy"));
    let mean = |m: &str| {
        let v: Vec<f64> = maps
            .iter()
            .zip(&accuracy)
            .filter(|(map, _)| *map == m)
            .map(|(_, a)| a.parse::<f64>().unwrap())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(
        mean("exact") > mean("none") + 15.0,
        "{} {}",
        mean("exact"),
        mean("none")
    );
    both_forms_are_series_of_their_own(dir.path());
    // A rerun with the same options replaces the files it wrote; an edited spec is kept.
    let rerun: Vec<&str> = ["compare", "rings.csv"].into_iter().chain(SMALL).collect();
    let (ok, _, stderr) = rfbench(dir.path(), &rerun);
    assert!(ok, "{stderr}");
    let spec = dir.path().join("out/tune.toml");
    let edited = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("folds = 3", "folds = 4");
    std::fs::write(&spec, &edited).unwrap();
    let (ok, _, stderr) = rfbench(dir.path(), &["compare", "rings.csv", "--out", "out"]);
    assert!(!ok && stderr.contains("edited?"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), edited);
}

/// A Parquet file (written with polars' writer): described by its schema, compared, and the
/// spec written for it reruns to the same numbers; the kernel still beats the linear baseline.
#[test]
fn a_parquet_file() {
    use polars::prelude::{DataFrame, NamedFrom, ParquetWriter, Series};
    let dir = tempfile::tempdir().unwrap();
    let rows = rings(400, 3);
    let mut columns: Vec<polars::prelude::Column> = (0..4)
        .map(|j| {
            let values: Vec<f64> = rows.iter().map(|(x, _)| x[j]).collect();
            Series::new(["a", "b", "c", "d"][j].into(), values).into()
        })
        .collect();
    let kind: Vec<&str> = rows
        .iter()
        .map(|(_, inside)| if *inside { "in" } else { "out" })
        .collect();
    columns.push(Series::new("kind".into(), kind).into());
    let mut frame = DataFrame::new_infer_height(columns).unwrap();
    let file = std::fs::File::create(dir.path().join("rings.parquet")).unwrap();
    ParquetWriter::new(file).finish(&mut frame).unwrap();
    let report = compare_and_rerun(dir.path(), "rings.parquet", &[], "accuracy");
    assert!(
        report.contains(
            "format: parquet, 400 rows x 5 columns named by its schema, label column -1 ('kind')"
        ),
        "{report}"
    );
    assert!(report.contains("binary (2 classes"), "{report}");
    let spec = std::fs::read_to_string(dir.path().join("out/compare.toml")).unwrap();
    assert!(spec.contains("format = \"parquet\""), "{spec}");
    let csv = dir.path().join("out/results/compare/full.csv");
    let (maps, accuracy) = (column(&csv, "map"), column(&csv, "accuracy"));
    let best = |m: &str| {
        maps.iter()
            .zip(&accuracy)
            .filter(|(map, _)| *map == m)
            .map(|(_, a)| a.parse::<f64>().unwrap())
            .fold(f64::NEG_INFINITY, f64::max)
    };
    assert!(
        best("exact") > best("none") + 10.0,
        "{} {}",
        best("exact"),
        best("none")
    );
}

#[test]
fn whitespace_without_header_libsvm_with_a_test_file_and_regression() {
    let dir = tempfile::tempdir().unwrap();
    let rows = rings(300, 2);
    let plain: String = rows
        .iter()
        .map(|(x, inside)| {
            format!(
                "{} {:.4} {:.4} {:.4} {:.4}\n",
                u8::from(*inside),
                x[0],
                x[1],
                x[2],
                x[3]
            )
        })
        .collect();
    write(dir.path(), "plain.txt", plain);
    // A given bandwidth and the ridge classifier: the tuning run chooses lambda, and C for the
    // exact kernel SVM through the linear SVM.
    let report = compare_and_rerun(
        dir.path(),
        "plain.txt",
        &[
            "--label-column",
            "0",
            "--sigma",
            "1.5",
            "--learner",
            "ridge",
        ],
        "accuracy",
    );
    assert!(report.contains("no header row"), "{report}");
    assert!(report.contains("sigma = 1.5 (given)"), "{report}");
    let spec = std::fs::read_to_string(dir.path().join("out/compare.toml")).unwrap();
    for wanted in [
        "sigma = 1.5\n",
        // Each cell's lambda is a column of its map's table: the series' own, each D's.
        "\"map, learner, train_size\" = [",
        "[maps.nystroem]\n\"n_components, lambda\" = [[64, ",
        "[maps.rff]\n\"form, n_components, lambda\" = [[\"paired\", 64, ",
        "[maps.none]\nlambda = [",
        "[learners.kernel-svm]\nC = ",
    ] {
        assert!(spec.contains(wanted), "{wanted:?} not in {spec}");
    }
    let tune = std::fs::read_to_string(dir.path().join("out/tune.toml")).unwrap();
    // The exact SVM tunes itself: one cell per C tried, beside the maps' tuning.
    for wanted in [
        r#"[["rff", "ridge"], ["exact", "kernel-svm"]]"#,
        "[learners.kernel-svm]\nC = [0.125, 0.5, 2.0, 8.0, 32.0, 128.0, 512.0, 2048.0]",
    ] {
        assert!(tune.contains(wanted), "{wanted:?} not in {tune}");
    }
    assert!(
        report.contains("for the exact machine (kernel-svm), its own "),
        "{report}"
    );

    let svm = |rows: &[(Vec<f64>, bool)]| -> String {
        rows.iter()
            .map(|(x, inside)| {
                let features: Vec<String> = x
                    .iter()
                    .enumerate()
                    .map(|(j, v)| format!("{}:{v:.4}", j + 1))
                    .collect();
                format!(
                    "{} {}\n",
                    if *inside { "+1" } else { "-1" },
                    features.join(" ")
                )
            })
            .collect()
    };
    write(dir.path(), "train.svm", svm(&rows[..220]));
    write(dir.path(), "test.svm", svm(&rows[220..]));
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    let report = compare_and_rerun(dir.path(), "train.svm", &["--test", "test.svm"], "accuracy");
    assert!(report.contains("its own test rows"), "{report}");

    let regression: String = rows
        .iter()
        .map(|(x, _)| {
            format!(
                "{:.4},{:.4},{:.4},{:.5}\n",
                x[0],
                x[1],
                x[2],
                (x[0] * x[1]).sin() + 0.1 * x[2]
            )
        })
        .collect();
    write(dir.path(), "target.csv", regression);
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    let report = compare_and_rerun(dir.path(), "target.csv", &[], "rmse");
    assert!(report.contains("task: regression"), "{report}");
    assert!(report.contains("kernel-ridge"), "{report}");
}

#[test]
fn bad_input_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "one.csv", "1,2,7\n3,4,7\n5,6,7\n".repeat(10));
    let gap = "1,2,0\n3,4,1\n".repeat(10) + "5,6,\n";
    // 40 sparse rows, one feature index near 10^9: dense, far more than any machine here.
    write(
        dir.path(),
        "wide.svm",
        "+1 1:1\n-1 999999999:1\n".repeat(20),
    );
    write(dir.path(), "gap.csv", gap);
    write(
        dir.path(),
        "ok.csv",
        "1,2,0\n3,4,1\n5,6,0\n7,8,1\n".repeat(10),
    );
    std::fs::create_dir_all(dir.path().join("mine")).unwrap();
    write(&dir.path().join("mine"), "report.md", "my own notes".into());
    for (args, problem) in [
        (vec!["compare", "one.csv"], "every row has the label \"7\""),
        (
            vec!["compare", "ok.csv", "--label-column", "9"],
            "label column 9 does not exist",
        ),
        (
            vec!["compare", "ok.csv", "--kernel", "cosine"],
            "unknown kernel \"cosine\"",
        ),
        (
            vec!["compare", "ok.csv", "--maps", "tensor-sketch"],
            "does not approximate the gaussian",
        ),
        (
            vec!["compare", "ok.csv", "--budget", "soon"],
            "unknown unit \"soon\"",
        ),
        (
            vec!["compare", "ok.csv", "--budget", "0s"],
            "a positive duration",
        ),
        (vec!["compare", "missing.csv"], "missing.csv: no such file"),
        (vec!["compare", "gap.csv"], ":21: the label is empty"),
        (
            vec!["compare", "wide.svm"],
            "40 rows x 999999999 features; scaling the columns makes every value explicit",
        ),
        (
            vec!["compare", "ok.csv", "--maps", "rff,rff"],
            "--maps: rff is named twice",
        ),
        (
            vec!["compare", "ok.csv", "--kernel", "linear"],
            "--kernel linear: the kernel needs no approximation",
        ),
        (
            vec![
                "compare",
                "ok.csv",
                "--kernel",
                "polynomial",
                "--degree",
                "0",
            ],
            "--degree 0: the polynomial kernel's degree is 1 to 64",
        ),
        (
            vec!["compare", "ok.csv", "--test-size", "0.01"],
            "--test-size 0.01: 0 of 40 rows would be test rows",
        ),
        (
            vec![
                "compare",
                "ok.csv",
                "--max-components",
                "9223372036854775808",
            ],
            "--max-components 9223372036854775808: at most 1048576",
        ),
        (
            vec!["compare", "ok.csv", "--seed", "18446744073709551615"],
            "at most 9223372036854775807",
        ),
        (
            vec!["compare", "ok.csv", "--budget", "1e20"],
            "at most 30 days",
        ),
        (
            vec!["compare", "ok.csv", "--out", "mine"],
            "holds files compare did not write (report.md)",
        ),
        (
            vec!["compare", "ok.csv", "--budget", "0.05s"],
            "leaves no time for any map",
        ),
        (
            vec!["compare", "ok.csv", "--sigma", "-1"],
            "--sigma -1: a bandwidth is a positive number",
        ),
        (
            vec![
                "compare",
                "ok.csv",
                "--sigma",
                "1",
                "--kernel",
                "polynomial",
            ],
            "the polynomial kernel has no bandwidth",
        ),
        (
            vec!["compare", "ok.csv", "--learner", "lasso"],
            "--learner lasso: linear-svm or ridge",
        ),
        (
            vec![
                "compare",
                "ok.csv",
                "--task",
                "regression",
                "--learner",
                "linear-svm",
            ],
            "ridge (a regression task)",
        ),
    ] {
        let (ok, _, stderr) = rfbench(dir.path(), &args);
        assert!(!ok && stderr.contains(problem), "{args:?}: {stderr}");
    }
    let mine = std::fs::read_to_string(dir.path().join("mine/report.md")).unwrap();
    assert_eq!(mine, "my own notes");
}

/// RFF's two forms ran as two series: the CSV's `form` column tells their rows apart, each has
/// cells with scores in `answer.json` (under `series`, its map `rff`), the report names both in
/// its tables and says what D means for each.
fn both_forms_are_series_of_their_own(dir: &Path) {
    let out = dir.join("out");
    let csv = out.join("results/compare/full.csv");
    let (maps, forms) = (column(&csv, "map"), column(&csv, "form"));
    let rff_forms: Vec<&str> = maps
        .iter()
        .zip(&forms)
        .filter(|(m, _)| *m == "rff")
        .map(|(_, f)| f.as_str())
        .collect();
    assert!(
        rff_forms.contains(&"paired") && rff_forms.contains(&"phase"),
        "{rff_forms:?}"
    );
    let text = std::fs::read_to_string(out.join("answer.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    for series in ["rff", "rff:phase"] {
        let scored = json["cells"].as_array().unwrap().iter().filter(|c| {
            c["series"] == series
                && c["map"] == "rff"
                && !c["scores"].as_array().unwrap().is_empty()
        });
        assert!(scored.count() >= 2, "{series}: {text}");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("| rff:phase, D = 64 |"), "{report}");
    assert!(report.contains("| rff:phase |"), "{report}");
    assert!(
        report.contains("- rff:phase (RFF (phase)): sklearn.kernel_approximation.RBFSampler"),
        "{report}"
    );
    let spec = std::fs::read_to_string(out.join("compare.toml")).unwrap();
    assert!(spec.contains("\"form, n_components, C\" = "), "{spec}");
}

/// `--maps rff:phase`: the phase form alone, every rff row in that form, no paired one.
#[test]
fn the_phase_form_alone() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "rings.csv", rings_csv(300, 6));
    let (ok, stdout, stderr) = quick_compare(dir.path(), "rff:phase", "30s", "128");
    assert!(ok && stdout.contains("answer: "), "{stderr}");
    let csv = dir.path().join("out/results/compare/full.csv");
    let (maps, forms) = (column(&csv, "map"), column(&csv, "form"));
    let rff: Vec<&String> = maps
        .iter()
        .zip(&forms)
        .filter(|(m, _)| *m == "rff")
        .map(|(_, f)| f)
        .collect();
    assert!(
        !rff.is_empty() && rff.iter().all(|f| *f == "phase"),
        "{rff:?}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/answer.json")).unwrap())
            .unwrap();
    let series: Vec<&str> = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["map"] == "rff")
        .map(|c| c["series"].as_str().unwrap())
        .collect();
    assert!(
        !series.is_empty() && series.iter().all(|s| *s == "rff:phase"),
        "{series:?}"
    );
}

/// The ladder 64, 256, 1,024 (`--quick`) never holds the tuning run's D, 512: the last rung's
/// penalty is always searched again (`tune-last.toml`), the report says at which D each
/// series' penalty was chosen, and the sweep's spec, each cell's penalty in it, reruns to the
/// same scores.
#[test]
fn the_last_rungs_penalty_is_chosen_there_and_the_sweep_reproduces() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "rings.csv", rings_csv(400, 7));
    let (ok, _, stderr) = quick_compare(dir.path(), "rff", "90s", "1024");
    assert!(ok, "{stderr}");
    let out = dir.path().join("out");
    assert!(out.join("tune-last.toml").is_file(), "{stderr}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("rff ") && report.contains("at D = 512 (tune.toml, with the bandwidth)"),
        "{report}"
    );
    assert!(report.contains("chosen there (tune-last.toml)"), "{report}");
    let csv = out.join("results/compare/full.csv");
    let (ok, _, stderr) = rfbench(
        dir.path(),
        &["reproduce", "out/compare.toml", "--out-dir", "again"],
    );
    assert!(ok, "{stderr}");
    let again = dir.path().join("again/results/compare/full.csv");
    for name in ["accuracy", "C", "n_components"] {
        assert_eq!(column(&again, name), column(&csv, name), "{name}");
    }
}

/// A data file named with a space, an accent and a quote, and a test file with the training
/// file's name in another folder: both compare (the entry's file names are made plain and
/// prefixed with their role).
#[test]
fn awkward_file_names_and_a_test_file_of_the_same_name() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "my data é'q.csv", rings_csv(200, 3));
    for folder in ["a", "b"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    write(&dir.path().join("a"), "d.csv", rings_csv(200, 4));
    write(&dir.path().join("b"), "d.csv", rings_csv(100, 5));
    for args in [
        vec!["compare", "my data é'q.csv"],
        vec!["compare", "a/d.csv", "--test", "b/d.csv"],
    ] {
        let out = format!("out-{}", args.len());
        let mut args = args.clone();
        args.extend(["--out", &out, "--quick", "--maps", "rff", "--budget", "20s"]);
        args.extend(["--max-components", "128"]);
        let (ok, stdout, stderr) = rfbench(dir.path(), &args);
        assert!(ok && stdout.contains("answer: "), "{args:?}: {stderr}");
    }
}

/// With more training rows than twice the pilot's (4,500 against 1,500), the exact machine runs
/// on nested subsamples, each its own spec (`exact-1.toml` on 3,000 rows, then all of them while
/// the budget allows): the largest is the sweep's exact cell, the smaller ones are lines of the
/// report's table of every cell.
#[test]
fn the_exact_machine_runs_on_nested_subsamples_beyond_the_pilots_rows() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "rings.csv", rings_csv(6000, 9));
    let (ok, stdout, stderr) = quick_compare(dir.path(), "rff", "90s", "256");
    assert!(ok && stdout.contains("answer: "), "{stderr}");
    let out = dir.path().join("out");
    let first = std::fs::read_to_string(out.join("exact-1.toml")).unwrap();
    assert!(first.contains("name = \"exact-1\""), "{first}");
    assert!(
        stderr.contains("the exact kernel machine on 3000 of the 4500 training rows"),
        "{stderr}"
    );
    let exact_sizes = |csv: &Path| -> Vec<String> {
        column(csv, "map")
            .into_iter()
            .zip(column(csv, "train_size"))
            .filter(|(m, _)| m == "exact")
            .map(|(_, s)| s)
            .collect()
    };
    let sizes = exact_sizes(&out.join("results/exact-1/full.csv"));
    assert!(
        !sizes.is_empty() && sizes.iter().all(|s| s == "3000"),
        "{sizes:?}"
    );
    // The sweep's exact cell is the largest size that ran; a smaller one is in the report.
    let csv = out.join("results/compare/full.csv");
    let exact = exact_sizes(&csv);
    assert!(!exact.is_empty(), "no exact row in compare.csv");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let spec = std::fs::read_to_string(out.join("compare.toml")).unwrap();
    if out.join("exact-2.toml").exists() {
        assert!(
            exact.iter().all(|s| s == "0"),
            "{exact:?}\n{spec}\n{stderr}"
        );
        // The smaller size is a row of the table of every cell, with its score.
        assert!(
            report.contains("| exact kernel (3000 training rows) | "),
            "{report}"
        );
    } else {
        assert!(exact.iter().all(|s| s == "3000"), "{exact:?}");
    }
    assert!(report.contains("GB resident"), "{report}");
}
