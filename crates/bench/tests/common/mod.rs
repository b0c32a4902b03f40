//! The workspace the end-to-end and shard tests share: one small spec per experiment kind, a
//! registry of two LIBSVM datasets (one mirrored, one reachable nowhere), and CSV helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench::run::{Progress, RunOptions};
use rfbench_data::FetchOptions;
use sha2::{Digest, Sha256};

pub const KERNEL_ERROR: &str = r#"
name = "kernel-error-demo"
title = "Kernel estimates of four maps, two kernels"
paper = "none"
kind = "kernel-error"

[data]
dataset = ["tiny", "offline"]
preprocess = ["unit-norm"]

[run]
master_seed = 11
repetitions = 3
pairs = 300

[kernel]
degree = 2
offset = [0.0, 1.0]
sigma = { percentile = 50, pairs = 500 }

[grid]
"map, kernel" = [["tensor-sketch", "polynomial"], ["random-maclaurin", "polynomial"], ["rff", "gaussian"], ["nystroem", "gaussian"]]
n_components = [64, 128]

[profiles.quick]
repetitions = 2
n_components = [64]

[[figures]]
x = "n_components"
y = "relative_error"
panels = "kernel"
x_label = "D"
y_label = "relative error"

[[tables]]
name = "errors"
rows = ["dataset", "map", "offset"]
columns = ["n_components"]
value = "relative_error"
format = "{mean:.3} ± {sd:.3}"

[[claims]]
text = "TS below RM"
metric = "relative_error"
left = { map = "tensor-sketch" }
right = { map = "random-maclaurin" }
relation = "less"

[labels.dataset]
tiny = "Tiny (test data)"

[check]
columns = ["relative_error", "median_relative_error"]
"#;

pub const GRAM_ERROR: &str = r#"
name = "gram-error-demo"
title = "Gram error of PRFF, RFF, ORF, Nystroem and binning"
paper = "none"
kind = "gram-error"

[data]
dataset = "gaussian"
n = 300
d = [3, 6]

[run]
master_seed = 5
repetitions = 2
n_samples = 200

[kernel]
sigma = { percentile = 5.0, pairs = 2000 }

[grid]
"map, kernel" = [["prff", "gaussian"], ["rff", "gaussian"], ["orf", "gaussian"], ["nystroem", "gaussian"], ["random-binning", "laplacian"], ["rff", "laplacian"]]
n_components = [20, 80]

[maps.random-binning]
n_grids = [5, 20]
width = 4096

[maps.prff]
max_iterations = 5

[[figures]]
x = "n_components"
y = "gram_mse"
panels = "d"
log_y = true
x_label = "M"
y_label = "Gram MSE"

[check]
columns = ["gram_mse"]
"#;

pub const TIMING: &str = r#"
name = "timing-demo"
title = "Fastfood vs RFF vs ORF"
paper = "none"
kind = "timing"

[data]
dataset = "gaussian"
n = 64
d = 16

[run]
master_seed = 3
repetitions = 2
n_rows = 32
repeats = 3
threads = 1

[grid]
"map, kernel" = [["fastfood", "gaussian"], ["rff", "gaussian"], ["orf", "matern"], ["fastfood", "matern"]]
n_components = [64, 128]

[kernel]
sigma = 2.0
length_scale = 2.0

[[figures]]
x = "n_components"
y = "seconds_per_row"
x_label = "D"
y_label = "s per row"

[check]
columns = ["memory_bytes"]
"#;

pub const LEARNING: &str = r#"
name = "learning-demo"
title = "TS + linear SVM against the exact kernel SVM"
paper = "none"
kind = "learning"

[data]
dataset = "make-classification"
n = 500
d = 8
n_test = 150
preprocess = ["standardize"]

[run]
master_seed = 7
repetitions = 2

[kernel]
degree = 2
offset = 1.0
sigma = "median"

[grid]
"map, kernel, learner" = [["tensor-sketch", "polynomial", "linear-svm"], ["random-maclaurin", "polynomial", "linear-svm"], ["exact", "polynomial", "kernel-svm"], ["rff", "gaussian", "ridge"], ["none", "polynomial", "linear-svm"]]
n_components = [50, 200]

[learners.ridge]
lambda = [0.1, "cv"]

[learners.linear-svm]
C = [1.0, "cv"]
folds = 3

# The exact kernel SVM has no randomness: one run.
[learners.kernel-svm]
repetitions = 1

[[figures]]
x = "n_components"
y = "accuracy"
x_label = "D"
y_label = "accuracy (%)"

[[tables]]
rows = ["map", "lambda", "C"]
columns = ["n_components"]
value = "accuracy"
format = "{mean:.1} ({train_seconds.mean:.2} s)"

# Mapping and training together, as a paper that times the whole pipeline reports it.
[sums]
fit_seconds = ["map_seconds", "train_seconds"]

[[figures]]
name = "fit-time"
x = "n_components"
y = "fit_seconds"
where = { learner = "linear-svm" }
x_label = "D"
y_label = "map + train (s)"

[check]
columns = ["accuracy"]
"#;

pub const BANDWIDTH_CV: &str = r#"
name = "bandwidth-cv-demo"
title = "RFF + ridge with the bandwidth chosen by cross-validation"
paper = "none"
kind = "learning"

[data]
dataset = "make-classification"
n = 400
d = 6
n_test = 200
preprocess = ["standardize"]

[run]
master_seed = 5
repetitions = 2

[kernel]
name = "gaussian"
sigma = [{ cv = [0.01, 2.0, 4.0, 1000.0], folds = 3 }, { cv = [0.01, 0.02], folds = 3 }]

[grid]
"map, learner" = [["rff", "ridge"], ["exact", "kernel-svm"]]
n_components = 200

[learners.ridge]
lambda = 0.1

[check]
columns = ["accuracy", "sigma_used", "sigma_at_edge"]
rtol = 1e-9
"#;

/// A workspace root with the specs, a registry of two LIBSVM datasets — `tiny` (200 sparse
/// binary rows, d = 20) reachable only through the mirror, and `offline`, reachable nowhere —
/// and the mirror.
pub fn workspace() -> (tempfile::TempDir, RunOptions) {
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
    let digest = hex_sha256(text.as_bytes());
    let registry = format!(
        "[[dataset]]\nname = \"tiny\"\ndescription = \"test data\"\ntask = \"binary\"\nformat = \"libsvm\"\nn = 200\nd = 20\n\n\
         [[dataset.files]]\nrole = \"train\"\nfile = \"tiny.svm\"\nurl = \"http://127.0.0.1:9/tiny.svm\"\nsha256 = \"{digest}\"\n\n\
         [[dataset]]\nname = \"offline\"\ndescription = \"not mirrored\"\ntask = \"binary\"\nformat = \"libsvm\"\nn = 200\nd = 20\n\n\
         [[dataset.files]]\nrole = \"train\"\nfile = \"offline.svm\"\nurl = \"http://127.0.0.1:9/offline.svm\"\n"
    );
    std::fs::write(root.join("datasets.toml"), registry).unwrap();
    for (name, spec) in [
        ("kernel-error-demo", KERNEL_ERROR),
        ("gram-error-demo", GRAM_ERROR),
        ("timing-demo", TIMING),
        ("learning-demo", LEARNING),
        ("bandwidth-cv-demo", BANDWIDTH_CV),
    ] {
        std::fs::write(root.join(format!("experiments/{name}.toml")), spec).unwrap();
    }
    let options = RunOptions {
        root: root.clone(),
        out_dir: root.clone(),
        master_seed: None,
        progress: Progress::Quiet,
        fetch: FetchOptions {
            cache_dir: root.join("cache"),
            mirrors: vec![mirror],
            progress: false,
        },
        memory_limit: None,
        allow_skipped: false,
        shard: None,
        resume: false,
        deadline: None,
    };
    (dir, options)
}

/// The CSV as (header, rows).
pub fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    rfbench::results::read_records(path).unwrap()
}

pub fn column(path: &Path, name: &str) -> Vec<String> {
    let (header, rows) = csv(path);
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    rows.into_iter().map(|r| r[i].clone()).collect()
}

pub fn assert_png(path: &PathBuf) {
    let png = std::fs::read(path).unwrap();
    assert_eq!(&png[1..4], b"PNG", "{}", path.display());
    assert!(png.len() > 5_000, "{}: {} bytes", path.display(), png.len());
}

/// SHA-256 of `bytes`, as lowercase hex.
pub fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
