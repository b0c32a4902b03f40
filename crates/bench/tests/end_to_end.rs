//! End to end on a small dataset written by the test: spec -> dataset (through the mirror, with
//! checksum) -> sweep -> CSV -> figure -> report -> check, and the check failing when the
//! committed reference is wrong.

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench::data::{self, FetchOptions, Registry, Step};
use rfbench::run::{check, prepare_data, reproduce, RunOptions};
use rfbench::spec::{load_plan, Profile};
use sha2::{Digest, Sha256};

const SPEC: &str = r#"
name = "demo"
title = "Demo"
paper = "none"
kind = "kernel-error"

[data]
dataset = "tiny"
preprocess = ["unit-norm"]

[run]
master_seed = 11
repetitions = 3
pairs = 300
metric = "mean-relative-error"

[grid]
map = ["tensor-sketch", "random-maclaurin"]
degree = [2, 3]
offset = [0.0, 1.0]
n_components = [64, 256]

[profiles.quick]
repetitions = 2
n_components = [64]

[figure]
x = "n_components"
y = "relative_error"
x_label = "D"
y_label = "relative error"
panels = "degree"

[check]
columns = ["relative_error"]
z = 4.0

[[paper_values]]
select = { degree = 2, offset = 0.0, map = "random-maclaurin" }
statistic = "max"
value = 1.0
note = "made up"
"#;

/// A workspace root with a spec, a registry and a LIBSVM file of 200 sparse binary rows, d = 20,
/// reachable only through the mirror (the URL points at a closed port).
fn workspace() -> (tempfile::TempDir, RunOptions) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let mirror = root.join("mirror");
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::create_dir_all(&mirror).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut text = String::new();
    for _ in 0..200 {
        text.push_str(if rng.random::<bool>() { "+1" } else { "-1" });
        for j in 1..=20 {
            if rng.random::<f64>() < 0.4 {
                text.push_str(&format!(" {j}:1"));
            }
        }
        text.push('\n');
    }
    std::fs::write(mirror.join("tiny.svm"), &text).unwrap();
    let digest: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let registry = format!(
        "[[dataset]]\nname = \"tiny\"\ndescription = \"test data\"\ntask = \"binary\"\nformat = \"libsvm\"\nn = 200\nd = 20\n\n\
         [[dataset.files]]\nrole = \"train\"\nfile = \"tiny.svm\"\nurl = \"http://127.0.0.1:9/tiny.svm\"\nsha256 = \"{digest}\"\n"
    );
    std::fs::write(root.join("datasets.toml"), registry).unwrap();
    std::fs::write(root.join("experiments/demo.toml"), SPEC).unwrap();
    let options = RunOptions {
        root: root.clone(),
        out_dir: root.clone(),
        master_seed: None,
        progress: false,
        fetch: FetchOptions {
            cache_dir: root.join("cache"),
            mirrors: vec![mirror],
            progress: false,
        },
    };
    (dir, options)
}

fn metric_column(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "relative_error").unwrap();
    lines
        .map(|l| l.split(',').nth(col).unwrap().to_string())
        .collect()
}

#[test]
fn reproduce_writes_csv_figure_and_report_and_check_passes() {
    let (_dir, options) = workspace();
    let outcome = reproduce("demo", Profile::Full, &options).unwrap();
    assert_eq!(outcome.csv, options.root.join("results/demo.csv"));
    // 2 maps x 2 degrees x 2 offsets x 2 D x 3 repetitions.
    assert_eq!(metric_column(&outcome.csv).len(), 48);
    let png = std::fs::read(&outcome.figure).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert!(
        outcome.report.contains("TS, <x,y>^2") && outcome.report.contains("paper"),
        "{}",
        outcome.report
    );
    let header = std::fs::read_to_string(&outcome.csv)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    for column in [
        "seed",
        "pair_seed",
        "git_commit",
        "threads",
        "cpu",
        "date",
        "rfbench_version",
    ] {
        assert!(
            header.split(',').any(|h| h == column),
            "missing {column} in {header}"
        );
    }

    let (report, _) = check("demo", Profile::Full, &options).unwrap();
    assert!(report.passed());
    assert_eq!(report.rows.len(), 16);
    // Another draw of the randomness agrees within the statistical tolerance.
    let (report, _) = check(
        "demo",
        Profile::Full,
        &RunOptions {
            master_seed: Some(99),
            ..options.clone()
        },
    )
    .unwrap();
    let failures = report.failures().count();
    assert!(
        failures <= 1,
        "{failures} of 16 cells outside 4 standard errors with another seed"
    );
}

#[test]
fn check_fails_when_the_reference_is_wrong() {
    let (_dir, options) = workspace();
    let outcome = reproduce("demo", Profile::Quick, &options).unwrap();
    assert_eq!(outcome.csv, options.root.join("results/demo.quick.csv"));
    // Shift every relative error of the committed reference far beyond its spread.
    let text = std::fs::read_to_string(&outcome.csv).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let col = header
        .split(',')
        .position(|h| h == "relative_error")
        .unwrap();
    let mut out = format!("{header}\n");
    for line in lines {
        let mut fields: Vec<String> = line.split(',').map(str::to_string).collect();
        fields[col] = (fields[col].parse::<f64>().unwrap() + 100.0).to_string();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    std::fs::write(&outcome.csv, out).unwrap();
    let (report, _) = check("demo", Profile::Quick, &options).unwrap();
    assert!(!report.passed());
    assert_eq!(report.failures().count(), report.rows.len());
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let (_dir, options) = workspace();
    let run_with = |threads: usize, out: PathBuf| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let options = RunOptions {
            out_dir: out,
            ..options.clone()
        };
        pool.install(|| reproduce("demo", Profile::Quick, &options).unwrap())
            .csv
    };
    let one = run_with(1, options.root.join("one"));
    let three = run_with(3, options.root.join("three"));
    assert_eq!(metric_column(&one), metric_column(&three));
}

#[test]
fn errors_name_the_problem() {
    let (_dir, options) = workspace();
    let err = reproduce("nope", Profile::Full, &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown experiment") && err.contains("demo"),
        "{err}"
    );
    std::fs::write(
        options.root.join("experiments/demo.toml"),
        SPEC.replace("pairs = 300", "pairs = 300\nrepetition = 2"),
    )
    .unwrap();
    let err = reproduce("demo", Profile::Full, &options)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("repetition") && err.contains("line 15"),
        "{err}"
    );
    std::fs::write(
        options.root.join("experiments/demo.toml"),
        SPEC.replace("dataset = \"tiny\"", "dataset = \"huge\""),
    )
    .unwrap();
    let err = reproduce("demo", Profile::Full, &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("huge") && err.contains("tiny"), "{err}");
}

/// The spec's preprocessing steps reach the data in order; without a list the registry entry's
/// defaults apply; a subsample larger than the data fails before any download, naming the line.
#[test]
fn preprocessing_steps_are_applied_as_the_spec_says() {
    let (_dir, options) = workspace();
    let spec_path = options.root.join("experiments/demo.toml");
    let write_spec = |steps: &str| {
        let text = SPEC.replace("preprocess = [\"unit-norm\"]", steps);
        std::fs::write(&spec_path, text).unwrap();
    };
    let prepare = || {
        let plan = load_plan(&options.root, "demo", Profile::Full)?;
        prepare_data(&plan, &options.root, &options.fetch)
    };

    write_spec(
        "preprocess = [{ step = \"subsample\", n = 150, seed = 3 }, \"standardize\", \"unit-norm\"]",
    );
    let prepared = prepare().unwrap();
    let registry = Registry::from_file(&options.root.join("datasets.toml")).unwrap();
    let raw = data::load(registry.get("tiny").unwrap(), &options.fetch).unwrap();
    let by_hand = data::apply_steps(
        raw.clone(),
        &[
            Step::Subsample { n: 150, seed: 3 },
            Step::Standardize,
            Step::UnitNorm,
        ],
    )
    .unwrap();
    assert_eq!(prepared.x.to_dense(), by_hand.x.to_dense());
    assert_eq!((prepared.x.n_rows(), prepared.y.len()), (150, 150));
    assert!(prepared
        .x
        .row_norms()
        .iter()
        .all(|n| (n - 1.0).abs() < 1e-12));
    // Standardised columns: dense rows (the raw data is about 40% non-zero).
    assert!(prepared.x.nnz() > 150 * 20 * 9 / 10, "{}", prepared.x.nnz());

    write_spec("preprocess = [\"unit-norm\", { step = \"subsample\", n = 201, seed = 3 }]");
    let err = prepare().unwrap_err().to_string();
    assert!(
        err.contains("`data.preprocess` (line 9)") && err.contains("n = 201 is more than the 200"),
        "{err}"
    );

    write_spec("");
    let registry_text = std::fs::read_to_string(options.root.join("datasets.toml")).unwrap();
    std::fs::write(
        options.root.join("datasets.toml"),
        registry_text.replace(
            "d = 20\n",
            "d = 20\npreprocess = [\"min-max\", { step = \"subsample\", n = 50, seed = 1 }]\n",
        ),
    )
    .unwrap();
    let defaults = prepare().unwrap();
    let by_hand =
        data::apply_steps(raw, &[Step::MinMax, Step::Subsample { n: 50, seed: 1 }]).unwrap();
    assert_eq!(defaults.x.to_dense(), by_hand.x.to_dense());
    assert_eq!(defaults.y, by_hand.y);
}
