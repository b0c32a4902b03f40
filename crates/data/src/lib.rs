//! rfbench-data: the dataset layer of rfbench, a library of its own so that every front end (the
//! runner, a Python package, a cluster worker) reads the same bytes the same way. The registry,
//! fetching and verifying files, the lock file, the parsed-data cache, parsing, preprocessing and
//! synthetic sources, with one typed error ([`DataError`]).
//!
//! Why it is built this way:
//!
//! - Datasets are data, not code. `datasets.toml` lists each dataset's files with URL and
//!   SHA-256; adding a dataset in a supported format is an edit to that file, and a typo in it is
//!   an error naming the key and line ([`Registry`]).
//! - Results must come from exactly the published bytes, so every file is checked against its
//!   digest before use, whether it comes from a mirror, the cache or the network ([`fetch`]).
//! - Machines without internet (CI, air-gapped clusters) are first-class: mirror directories
//!   named by `RFBENCH_MIRROR` are searched before the network, and a failed download says so.
//! - Downloads are atomic (`.part`, fsync, verify, rename): an interrupted run never leaves a
//!   file that a later run would trust.
//! - Parsers are strict and name the file and line of the first problem ([`parse_libsvm`]),
//!   because a silently repaired row changes the numbers a paper is compared against.
//! - A [`Dataset`] keeps the published train/test split as one sparse matrix with the train rows
//!   first, so a sweep can subsample or re-split without knowing the file layout.

mod adult;
pub mod atomic;
mod cache;
mod cell;
mod columns;
mod csv;
mod dataset;
mod describe;
mod error;
mod fetch;
mod fields;
mod idx;
mod libsvm;
mod lines;
mod lock;
mod preprocess;
#[cfg(test)]
mod proptests;
mod registry;
mod rows;
mod source;
mod steps;
mod synthetic;
mod table;

use std::path::{Path, PathBuf};

use rfbench_maps::CsrMatrix;

pub use adult::{parse_uci_adult, UCI_ADULT_COLUMNS};
pub use csv::parse_csv;
pub use dataset::{Dataset, Summary};
pub use describe::{describe_files, entry_toml, task_name, DescribeOptions, Described};
pub use error::{DataError, Result};
pub use fetch::{
    fetch, fetch_verified, lock_path, record_digests, verify, FetchOptions, FetchedFile, FileStatus,
};
pub use idx::{parse_cifar10, parse_idx, read_idx, IdxTensor, CIFAR10_RECORD};
pub use libsvm::parse_libsvm;
pub use lock::LockFile;
pub use preprocess::{
    distance_percentile, distance_percentile_among, min_max, random_split, split_rows, standardize,
    stratified_split, subsample_indices, unit_norm, ColumnScaler,
};
pub use registry::{
    line_of, Compression, CsvOptions, DatasetEntry, FileEntry, Format, LabelMap, LocalCopy, Part,
    Registry, Role, Split, Subsample, TarCompression, Task,
};
// The preprocessing vocabulary is the component registry's (specs, dataset entries and the
// kernels' entries write it); this crate applies it.
pub use rfbench_registry_data::{Norm, Step, STEP_NAMES};
pub use steps::{apply_steps, Prepared};
pub use synthetic::{gaussian, make_classification, MakeClassification};

/// A load and where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub dataset: Dataset,
    /// The source files used, with their digests.
    pub sources: Vec<FetchedFile>,
    /// The parsed binary cache file.
    pub cache: PathBuf,
    /// Whether the data was read from `cache` rather than parsed.
    pub from_cache: bool,
}

/// Fetches (see [`fetch`]) and parses every file of `entry`, or reads the parsed binary cache
/// when the same sources were parsed before. The row count must equal the registry's
/// published `n` (before any subsample), which catches an entry that lists the wrong files.
pub fn load(entry: &DatasetEntry, opts: &FetchOptions) -> Result<Dataset> {
    load_report(entry, opts).map(|l| l.dataset)
}

/// [`load`], also saying which files and which cache were used.
pub fn load_report(entry: &DatasetEntry, opts: &FetchOptions) -> Result<Loaded> {
    let sources = fetch_verified(entry, opts)?;
    let cache_file = cache::cache_path(&opts.cache_dir, entry, &sources);
    if cache_file.is_file() {
        match cache::read(&cache_file, &entry.name) {
            Ok(dataset) => {
                binary_labels(entry, &dataset.y, &cache_file)?;
                record_digests(entry, opts, &sources)?;
                return Ok(Loaded {
                    dataset,
                    sources,
                    cache: cache_file,
                    from_cache: true,
                });
            }
            // A damaged cache is rebuilt; anything else (no permission) is the user's to fix.
            Err(DataError::Cache { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let paths: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
    let dataset = parse_files(entry, &paths)?;
    // Only files that parsed are pinned: a wrong file is reported, never locked in.
    record_digests(entry, opts, &sources)?;
    cache::write(&cache_file, &dataset)?;
    Ok(Loaded {
        dataset,
        sources,
        cache: cache_file,
        from_cache: false,
    })
}

/// Reads a parsed binary cache file written by [`load`] (named by [`Loaded::cache`]); `name`
/// is the dataset's, for the error messages. Public so that the cache's speed can be measured
/// against parsing (`examples/adult_cache.rs`).
pub fn read_parsed_cache(path: &Path, name: &str) -> Result<Dataset> {
    cache::read(path, name)
}

/// Parses the files of `entry` found at `paths` (entry order), applies the entry's subsample
/// and split, and checks n and d. No cache involved.
pub fn parse_files(entry: &DatasetEntry, paths: &[PathBuf]) -> Result<Dataset> {
    let origin = paths
        .last()
        .cloned()
        .unwrap_or_else(|| entry.name.clone().into());
    let (x, mut y, n_train) = read_rows(entry, paths, &origin)?;
    check_shape(entry, &x)?;
    map_numeric_labels(entry, &mut y, &origin)?;
    binary_labels(entry, &y, &origin)?;
    let data = Dataset {
        name: entry.name.clone(),
        x,
        y,
        n_train,
    };
    subsample_and_split(entry, data)
}

/// The rows and labels of every file of `entry` (train files first), and how many rows are
/// training rows; `origin` names the data in errors that concern no one file.
fn read_rows(
    entry: &DatasetEntry,
    paths: &[PathBuf],
    origin: &Path,
) -> Result<(CsrMatrix, Vec<f64>, usize)> {
    let mut order: Vec<usize> = (0..entry.files.len()).collect();
    order.sort_by_key(|&k| entry.files[k].role != Role::Train);
    let train_files = entry.files.iter().filter(|f| f.role == Role::Train).count();
    let mut n_train = 0;
    let (x, y) = match entry.format {
        Format::Libsvm => {
            let mut reader = libsvm::LibsvmReader::new(Some(entry.d));
            for (k, &f) in order.iter().enumerate() {
                let src = source::open(&paths[f], &entry.files[f])?;
                reader.read(src.reader, &src.origin)?;
                if k + 1 == train_files {
                    n_train = reader.n_rows();
                }
            }
            reader.finish(origin)?
        }
        Format::Csv => {
            let options = entry
                .csv
                .as_ref()
                .ok_or_else(|| DataError::RegistryInvalid {
                    path: origin.to_path_buf(),
                    line: 0,
                    dataset: entry.name.clone(),
                    problem: "format 'csv' needs csv options".into(),
                })?;
            let mut reader = csv::CsvReader::new(options, entry.labels.as_ref());
            for role in [Role::Train, Role::Test] {
                let find = |part| file_index(entry, role, part);
                // The registry allows, per role, whole files or one features + labels pair.
                if let (Some(fx), Some(fy)) = (find(Part::Features), find(Part::Labels)) {
                    let first = reader.n_rows();
                    let sx = source::open(&paths[fx], &entry.files[fx])?;
                    reader.read_features(sx.reader, &sx.origin)?;
                    let sy = source::open(&paths[fy], &entry.files[fy])?;
                    reader.read_labels(sy.reader, &sy.origin, first..reader.n_rows())?;
                } else {
                    for &f in order.iter().filter(|&&f| entry.files[f].role == role) {
                        let src = source::open(&paths[f], &entry.files[f])?;
                        reader.read(src.reader, &src.origin)?;
                    }
                }
                if role == Role::Train {
                    n_train = reader.n_rows();
                }
            }
            reader.finish(origin)?
        }
        Format::Parquet | Format::ArrowIpc => {
            let (x, y, rows) = read_tables(entry, paths, &order, train_files, origin)?;
            n_train = rows;
            (x, y)
        }
        Format::UciAdult | Format::Cifar10 => {
            let mut rows = rows::RowBuilder::new();
            for (k, &f) in order.iter().enumerate() {
                let src = source::open(&paths[f], &entry.files[f])?;
                if entry.format == Format::UciAdult {
                    adult::read_uci_adult(&mut rows, src.reader, &src.origin)?;
                } else {
                    idx::read_cifar10(&mut rows, src.reader, &src.origin)?;
                }
                if k + 1 == train_files {
                    n_train = rows.n_rows();
                }
            }
            let d = if entry.format == Format::UciAdult {
                UCI_ADULT_COLUMNS
            } else {
                CIFAR10_RECORD - 1
            };
            rows.finish(d, origin)?
        }
        Format::Idx => {
            let mut rows = rows::RowBuilder::new();
            for role in [Role::Train, Role::Test] {
                let find = |part| file_index(entry, role, part);
                let (Some(fx), Some(fy)) = (find(Part::Features), find(Part::Labels)) else {
                    continue;
                };
                let sx = source::open(&paths[fx], &entry.files[fx])?;
                let sy = source::open(&paths[fy], &entry.files[fy])?;
                idx::read_idx_pair(
                    &mut rows,
                    (sx.reader, &sx.origin),
                    (sy.reader, &sy.origin),
                    entry.d,
                )?;
                if role == Role::Train {
                    n_train = rows.n_rows();
                }
            }
            rows.finish(entry.d, origin)?
        }
    };
    if train_files == 0 {
        n_train = 0;
    }
    Ok((x, y, n_train))
}

/// The rows and labels of a Parquet or Arrow IPC dataset's files in `order` (train files
/// first), and how many rows the first `train_files` hold; through the CSV reader's column rules.
fn read_tables(
    entry: &DatasetEntry,
    paths: &[PathBuf],
    order: &[usize],
    train_files: usize,
    origin: &Path,
) -> Result<(CsrMatrix, Vec<f64>, usize)> {
    let options = entry.csv.clone().unwrap_or_default();
    let mut reader = csv::CsvReader::new(&options, entry.labels.as_ref());
    let mut n_train = 0;
    for (k, &f) in order.iter().enumerate() {
        if entry.files[f].compression() != Compression::None || entry.files[f].member.is_some() {
            return Err(DataError::TableColumns {
                path: paths[f].clone(),
                problem: format!(
                    "a {} file is read as it is, not compressed or from an archive",
                    entry.format.name()
                ),
            });
        }
        reader.read_table(&table::Table::read(&paths[f], entry.format)?)?;
        if k + 1 == train_files {
            n_train = reader.n_rows();
        }
    }
    let (x, y) = reader.finish(origin)?;
    Ok((x, y, n_train))
}

/// The registry's published `n` and `d` (a one-hot CSV's width is not fixed).
fn check_shape(entry: &DatasetEntry, x: &CsrMatrix) -> Result<()> {
    if x.n_rows() != entry.n {
        return Err(DataError::RowCount {
            dataset: entry.name.clone(),
            expected: entry.n,
            actual: x.n_rows(),
        });
    }
    // One-hot blocks of categories found in the data have no fixed width to check.
    let open_width = entry
        .csv
        .as_ref()
        .is_some_and(|c| !c.categorical_columns.is_empty());
    if x.n_cols() != entry.d && !open_width {
        return Err(DataError::ColumnCount {
            dataset: entry.name.clone(),
            expected: entry.d,
            actual: x.n_cols(),
        });
    }
    Ok(())
}

/// The label map applied to a numeric format's parsed labels (text formats map labels while
/// parsing).
fn map_numeric_labels(entry: &DatasetEntry, y: &mut [f64], origin: &Path) -> Result<()> {
    if let (Some(map), Format::Libsvm | Format::Idx | Format::Cifar10) =
        (&entry.labels, entry.format)
    {
        for (i, label) in y.iter_mut().enumerate() {
            *label = map
                .apply_number(*label)
                .map_err(|problem| DataError::Parse {
                    path: origin.to_path_buf(),
                    line: 0,
                    problem: format!("row {}: {problem}", i + 1),
                })?;
        }
    }
    Ok(())
}

/// The entry's subsample, then its random split, applied to the parsed rows.
fn subsample_and_split(entry: &DatasetEntry, mut data: Dataset) -> Result<Dataset> {
    if let Some(s) = entry.subsample {
        let rows = subsample_indices(data.x.n_rows(), s.n, s.seed)?;
        let n_train = rows.iter().filter(|&&r| r < data.n_train).count();
        data = select(&data, &rows, n_train);
    }
    if let Split::Random { test_size, seed } = entry.split {
        let (train, test) = random_split(data.x.n_rows(), test_size, seed)?;
        let n_train = train.len();
        let rows: Vec<usize> = train.into_iter().chain(test).collect();
        data = select(&data, &rows, n_train);
    }
    Ok(data)
}

/// A `binary` dataset's labels take at most two values (issue 24: a label 3 was trained on).
fn binary_labels(entry: &DatasetEntry, y: &[f64], origin: &Path) -> Result<()> {
    if entry.task != Task::Binary {
        return Ok(());
    }
    let mut values: Vec<f64> = Vec::new();
    for &label in y {
        if !values.contains(&label) {
            values.push(label);
            if values.len() > 2 {
                return Err(DataError::Parse {
                    path: origin.to_path_buf(),
                    line: 0,
                    problem: format!(
                        "dataset '{}' is binary, but its labels take more than two values \
                         ({values:?} at least): fix the labels, add a label map, or make the \
                         task multiclass",
                        entry.name
                    ),
                });
            }
        }
    }
    Ok(())
}

fn select(data: &Dataset, rows: &[usize], n_train: usize) -> Dataset {
    Dataset {
        name: data.name.clone(),
        x: data.x.select_rows(rows),
        y: rows.iter().map(|&r| data.y[r]).collect(),
        n_train,
    }
}

/// The index in `entry.files` of the `part` (features or labels) file of `role`, if any.
fn file_index(entry: &DatasetEntry, role: Role, part: Part) -> Option<usize> {
    entry
        .files
        .iter()
        .position(|f| f.role == role && f.part == Some(part))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};
    use std::io::Write;
    use std::path::Path;

    fn file(role: Role, name: &str, body: &[u8]) -> FileEntry {
        FileEntry {
            role,
            file: name.into(),
            url: Some("http://127.0.0.1:9/unused".into()),
            sha256: Some(format!("{:x}", Sha256::digest(body))),
            member: None,
            part: None,
            local: Vec::new(),
        }
    }

    fn offline(mirror: &Path) -> FetchOptions {
        FetchOptions {
            cache_dir: mirror.join("cache"),
            mirrors: vec![mirror.to_path_buf()],
            progress: false,
        }
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        w.write_all(data).unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn load_puts_train_rows_first_and_checks_n_and_d() {
        let dir = tempfile::tempdir().unwrap();
        let (test, train) = (&b"-1 4:1\n"[..], &b"+1 1:1\n+1 2:1 3:1\n"[..]);
        std::fs::write(dir.path().join("t.test"), test).unwrap();
        std::fs::write(dir.path().join("t.train"), train).unwrap();
        let files = vec![
            file(Role::Test, "t.test", test),
            file(Role::Train, "t.train", train),
        ];
        let mut entry = DatasetEntry::new("t", Task::Binary, Format::Libsvm, 3, 5, files);
        let loaded = load_report(&entry, &offline(dir.path())).unwrap();
        let data = &loaded.dataset;
        assert!(!loaded.from_cache);
        assert_eq!((data.x.n_rows(), data.x.n_cols(), data.n_train), (3, 5, 2));
        assert_eq!(data.y, [1.0, 1.0, -1.0]);
        assert_eq!(data.x.row_parts(2).0, [3]);
        let again = load_report(&entry, &offline(dir.path())).unwrap();
        assert!(again.from_cache && again.cache == loaded.cache);
        assert_eq!((&again.dataset.x, &again.dataset.y), (&data.x, &data.y));

        entry.n = 4;
        let msg = load(&entry, &offline(dir.path())).unwrap_err().to_string();
        assert!(msg.contains("n = 4") && msg.contains("hold 3"), "{msg}");
    }

    #[test]
    fn a_damaged_parsed_cache_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let body = &b"+1 1:1\n-1 2:1\n"[..];
        std::fs::write(dir.path().join("a.svm"), body).unwrap();
        let files = vec![file(Role::Train, "a.svm", body)];
        let entry = DatasetEntry::new("a", Task::Binary, Format::Libsvm, 2, 2, files);
        let first = load_report(&entry, &offline(dir.path())).unwrap();
        std::fs::write(&first.cache, b"RFBDATA\0 truncated").unwrap();
        let second = load_report(&entry, &offline(dir.path())).unwrap();
        assert!(!second.from_cache);
        assert_eq!(second.dataset.y, [1.0, -1.0]);
        assert!(
            load_report(&entry, &offline(dir.path()))
                .unwrap()
                .from_cache
        );
    }

    /// A user adds their own dataset: a gzipped CSV with a header, a seeded split and a label
    /// map, described by a registry in a temporary directory, digest locked on first use.
    #[test]
    fn a_user_registry_entry_for_their_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut csv = String::from("id,colour,size,verdict\n");
        for i in 0..20 {
            let colour = ["red", "blue"][i % 2];
            let verdict = if i % 3 == 0 { "good" } else { "bad" };
            csv.push_str(&format!("{i},{colour},{}.5,{verdict}\n", i % 7));
        }
        std::fs::write(dir.path().join("mine.csv.gz"), gzip(csv.as_bytes())).unwrap();
        let registry_text = r#"
[[dataset]]
name = "mine"
description = "my own data"
task = "binary"
format = "csv"
n = 20
d = 3
split = { test_size = 5, seed = 11 }
labels = { map = { good = 1.0, bad = -1.0 } }
preprocess = ["standardize"]
csv = { header = true, skip_columns = [0], categorical_columns = [1] }

[[dataset.files]]
role = "train"
file = "mine.csv.gz"
url = "https://example.org/mine.csv.gz"
"#;
        let reg_path = dir.path().join("datasets.toml");
        std::fs::write(&reg_path, registry_text).unwrap();
        let registry = Registry::from_file(&reg_path).unwrap();
        let entry = registry.get("mine").unwrap();
        assert_eq!(entry.preprocess, [Step::Standardize]);
        let data = load(entry, &offline(dir.path())).unwrap();
        assert_eq!(
            (data.x.n_rows(), data.x.n_cols(), data.n_train),
            (20, 3, 15)
        );
        let positives = data.y.iter().filter(|&&y| y == 1.0).count();
        assert_eq!(positives, 7, "rows 0, 3, ..., 18 are good");
        // Every row has its size (maybe 0) and exactly one colour.
        for i in 0..20 {
            let (idx, _) = data.x.row_parts(i);
            assert_eq!(idx.iter().filter(|&&c| c >= 1).count(), 1);
        }
        let lock = std::fs::read_to_string(dir.path().join("datasets.lock")).unwrap();
        let digest = format!("{:x}", Sha256::digest(gzip(csv.as_bytes())));
        assert!(
            lock.contains(&format!("{digest} mine/mine.csv.gz")),
            "{lock}"
        );

        // The same file changed: the lock now refuses it.
        std::fs::write(dir.path().join("mine.csv.gz"), gzip(b"id,c,s,v\n")).unwrap();
        let err = load(entry, &offline(dir.path())).unwrap_err();
        assert!(matches!(err, DataError::Checksum { .. }), "{err}");
        // The message names the file, the lock file that pins the digest and the fix.
        let msg = err.to_string();
        assert!(
            msg.contains("mine.csv.gz") && msg.contains("mirrored file"),
            "{msg}"
        );
        assert!(
            msg.contains("datasets.lock") && msg.contains("delete the line 'mine/mine.csv.gz'"),
            "{msg}"
        );
    }

    /// A user's entry naming only a file on their disk: a local path and no URL, no mirror.
    /// A malformed file is an error and is not locked; once fixed it loads, its digest is
    /// locked, a changed file is then refused, and the cache holds only the parsed matrix.
    #[test]
    fn a_user_registry_entry_with_only_a_local_path() {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join("elsewhere");
        std::fs::create_dir(&own).unwrap();
        let file = own.join("my-data.svm");
        std::fs::write(&file, "1.5 1:1 3:2\n-0.5 2:x\n").unwrap();
        let registry_text = format!(
            r#"
[[dataset]]
name = "my-data"
description = "a regression set on my disk"
task = "regression"
format = "libsvm"
n = 3
d = 3
preprocess = ["unit-norm"]

[[dataset.files]]
role = "train"
file = "my-data.svm"
local = [{{ path = "{}" }}]
"#,
            file.display()
        );
        let reg_path = dir.path().join("datasets.toml");
        std::fs::write(&reg_path, registry_text).unwrap();
        let registry = Registry::from_file(&reg_path).unwrap();
        let entry = registry.get("my-data").unwrap();
        let opts = FetchOptions {
            cache_dir: dir.path().join("cache"),
            mirrors: vec![],
            progress: false,
        };
        let err = load(entry, &opts).unwrap_err();
        assert!(matches!(err, DataError::Parse { line: 2, .. }), "{err}");
        assert!(
            !dir.path().join("datasets.lock").exists(),
            "a file that does not parse is not locked"
        );
        std::fs::write(&file, "1.5 1:1 3:2\n-0.5 2:4\n2 1:-1 2:1 3:1\n").unwrap();
        let loaded = load_report(entry, &opts).unwrap();
        assert_eq!(loaded.sources[0].path, file, "used in place, not copied");
        assert_eq!(loaded.dataset.y, [1.5, -0.5, 2.0]);
        assert_eq!(
            loaded.dataset.x.to_dense().row(2).to_vec(),
            [-1.0, 1.0, 1.0]
        );
        let cached: Vec<_> = std::fs::read_dir(dir.path().join("cache/my-data"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(cached, std::slice::from_ref(&loaded.cache));
        let digest = format!("{:x}", Sha256::digest(std::fs::read(&file).unwrap()));
        let lock = std::fs::read_to_string(dir.path().join("datasets.lock")).unwrap();
        assert!(lock.contains(&digest), "{lock}");

        std::fs::write(&file, "1 1:1\n1 1:2\n1 1:3\n").unwrap();
        let err = load(entry, &opts).unwrap_err();
        assert!(matches!(err, DataError::Checksum { .. }), "{err}");
        let msg = err.to_string();
        assert!(msg.contains(&digest) && msg.contains("local copy"), "{msg}");
        assert!(!msg.contains("mirrored"), "{msg}");

        // Without the file, and without a url, the error says so.
        std::fs::remove_file(&file).unwrap();
        let err = load(entry, &opts).unwrap_err();
        assert!(matches!(err, DataError::NoSource { .. }), "{err}");
        assert!(err.to_string().contains("has no url"), "{err}");
    }

    #[test]
    fn subsample_then_split_is_seeded() {
        let dir = tempfile::tempdir().unwrap();
        let body: String = (1..=30).map(|i| format!("{i} 1:{i}\n")).collect();
        std::fs::write(dir.path().join("r.svm"), &body).unwrap();
        let files = vec![file(Role::Train, "r.svm", body.as_bytes())];
        let mut entry = DatasetEntry::new("r", Task::Regression, Format::Libsvm, 30, 1, files);
        entry.subsample = Some(Subsample { n: 12, seed: 5 });
        entry.split = Split::Random {
            test_size: 4,
            seed: 6,
        };
        let data = load(&entry, &offline(dir.path())).unwrap();
        assert_eq!((data.x.n_rows(), data.n_train), (12, 8));
        let mut labels = data.y.clone();
        labels.dedup();
        assert_eq!(labels.len(), 12, "distinct rows");
        for (i, &y) in data.y.iter().enumerate() {
            assert_eq!(data.x.row_parts(i).1, [y], "rows keep their labels");
        }
        let again = parse_files(&entry, &[dir.path().join("r.svm")]).unwrap();
        assert_eq!(again.y, data.y);
    }

    #[test]
    fn a_binary_dataset_with_a_third_label_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let body = "+1 1:1\n-1 1:2\n3 1:3\n";
        std::fs::write(dir.path().join("b.svm"), body).unwrap();
        let files = vec![file(Role::Train, "b.svm", body.as_bytes())];
        let entry = DatasetEntry::new("b", Task::Binary, Format::Libsvm, 3, 1, files);
        let err = parse_files(&entry, &[dir.path().join("b.svm")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("binary, but its labels take more than two values"),
            "{err}"
        );
        let multiclass = DatasetEntry {
            task: Task::Multiclass,
            ..entry
        };
        assert!(parse_files(&multiclass, &[dir.path().join("b.svm")]).is_ok());
    }

    /// COIL 2000's layout: ticdata2000 (tab-separated, 85 attributes + CARAVAN), ticeval2000
    /// (85 attributes, no target), tictgts2000 (one target per line), written here in that
    /// format with distinct values so a misplaced column or label shows.
    #[test]
    fn csv_features_and_labels_in_separate_files() {
        let dir = tempfile::tempdir().unwrap();
        let row = |i: usize, with_target: bool| {
            let mut fields: Vec<String> = (0..85).map(|j| (100 * i + j + 1).to_string()).collect();
            if with_target {
                fields.push((i % 2).to_string());
            }
            fields.join("\t") + "\r\n"
        };
        let train: String = (0..3).map(|i| row(i, true)).collect();
        let inputs: String = (3..5).map(|i| row(i, false)).collect();
        let targets = "1\n0\n";
        let mut files = Vec::new();
        for (role, name, body, part) in [
            (
                Role::Test,
                "ticeval2000.txt",
                inputs.as_str(),
                Some(Part::Features),
            ),
            (Role::Train, "ticdata2000.txt", train.as_str(), None),
            (Role::Test, "tictgts2000.txt", targets, Some(Part::Labels)),
        ] {
            std::fs::write(dir.path().join(name), body).unwrap();
            let mut f = file(role, name, body.as_bytes());
            f.part = part;
            files.push(f);
        }
        let mut entry = DatasetEntry::new("ins", Task::Regression, Format::Csv, 5, 85, files);
        entry.csv = Some(CsvOptions {
            separator: "whitespace".into(),
            header: false,
            label_column: -1,
            skip_columns: vec![],
            categorical_columns: vec![],
        });
        let data = load(&entry, &offline(dir.path())).unwrap();
        assert_eq!((data.x.n_rows(), data.x.n_cols(), data.n_train), (5, 85, 3));
        assert_eq!(data.y, [0.0, 1.0, 0.0, 1.0, 0.0]);
        let dense = data.x.to_dense();
        for i in 0..5 {
            assert_eq!(dense[[i, 0]], (100 * i + 1) as f64);
            assert_eq!(dense[[i, 84]], (100 * i + 85) as f64);
        }

        // One target too few: an error naming the targets file.
        let paths: Vec<PathBuf> = entry
            .files
            .iter()
            .map(|f| dir.path().join(&f.file))
            .collect();
        std::fs::write(&paths[2], "1\n").unwrap();
        let err = parse_files(&entry, &paths).unwrap_err();
        assert!(
            matches!(&err, DataError::Parse { path, .. } if path.ends_with("tictgts2000.txt")),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("1 labels, but the features file has 2 rows"),
            "{err}"
        );
        // Two values on a targets line.
        std::fs::write(&paths[2], "1\n0 1\n").unwrap();
        let err = parse_files(&entry, &paths).unwrap_err();
        assert!(err.to_string().contains("one label per line"), "{err}");
        // A features file that still has its target column: 86 fields where 85 belong.
        std::fs::write(&paths[2], targets).unwrap();
        std::fs::write(&paths[0], row(3, true)).unwrap();
        let err = parse_files(&entry, &paths).unwrap_err();
        assert!(
            err.to_string()
                .contains("86 fields, but a features file needs 85"),
            "{err}"
        );
    }

    #[test]
    fn idx_and_cifar_members_through_the_registry() {
        let dir = tempfile::tempdir().unwrap();
        let images = idx::tests::idx_bytes(&[3, 2, 2], &[1, 0, 0, 2, 0, 0, 0, 0, 9, 9, 9, 9]);
        let labels = idx::tests::idx_bytes(&[3], &[7, 0, 1]);
        let (gi, gl) = (gzip(&images), gzip(&labels));
        std::fs::write(dir.path().join("img.gz"), &gi).unwrap();
        std::fs::write(dir.path().join("lab.gz"), &gl).unwrap();
        let mut fi = file(Role::Train, "img.gz", &gi);
        fi.part = Some(Part::Features);
        let mut fl = file(Role::Train, "lab.gz", &gl);
        fl.part = Some(Part::Labels);
        let entry = DatasetEntry::new("i", Task::Multiclass, Format::Idx, 3, 4, vec![fi, fl]);
        let data = load(&entry, &offline(dir.path())).unwrap();
        assert_eq!(data.y, [7.0, 0.0, 1.0]);
        assert_eq!(data.x.nnz(), 6);

        // CIFAR-10: two batches in one tar, one train and one test.
        let mut tar = tar::Builder::new(Vec::new());
        for (name, label) in [("b/data_batch_1.bin", 4u8), ("b/test_batch.bin", 8)] {
            let mut record = vec![0u8; CIFAR10_RECORD];
            record[0] = label;
            record[5] = 1;
            let mut header = tar::Header::new_gnu();
            header.set_size(record.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, &record[..]).unwrap();
        }
        let archive = gzip(&tar.into_inner().unwrap());
        std::fs::write(dir.path().join("c.tar.gz"), &archive).unwrap();
        let mut test = file(Role::Test, "c.tar.gz", &archive);
        test.member = Some("b/test_batch.bin".into());
        let mut train = file(Role::Train, "c.tar.gz", &archive);
        train.member = Some("b/data_batch_1.bin".into());
        let entry = DatasetEntry::new(
            "c",
            Task::Multiclass,
            Format::Cifar10,
            2,
            3072,
            vec![test, train],
        );
        let data = load(&entry, &offline(dir.path())).unwrap();
        assert_eq!((data.y.clone(), data.n_train), (vec![4.0, 8.0], 1));
    }

    #[test]
    fn adult_from_the_mirror() {
        let mirror =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/adult");
        if !mirror.join("a9a").is_file() {
            println!("skipped: no Adult mirror at {}", mirror.display());
            return;
        }
        let registry =
            Registry::from_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets.toml"))
                .unwrap();
        let cache = tempfile::tempdir().unwrap();
        let opts = FetchOptions {
            cache_dir: cache.path().to_path_buf(),
            mirrors: vec![mirror],
            progress: false,
        };
        let loaded = load_report(registry.get("adult").unwrap(), &opts).unwrap();
        let mut adult = loaded.dataset;
        assert_eq!((adult.x.n_rows(), adult.x.n_cols()), (48_842, 123));
        assert_eq!(adult.n_train, 32_561);
        assert_eq!(adult.x.nnz(), 677_323);
        // `grep -c '^+1'` over a9a and a9a.t: 7,841 + 3,846 positives.
        assert_eq!(adult.y.iter().filter(|&&y| y == 1.0).count(), 11_687);
        assert_eq!(adult.y.iter().filter(|&&y| y == -1.0).count(), 37_155);
        // Only the parsed cache is written: the mirrored files are used in place.
        let written: Vec<_> = std::fs::read_dir(cache.path().join("adult"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(written, std::slice::from_ref(&loaded.cache));
        let cached = load_report(registry.get("adult").unwrap(), &opts).unwrap();
        assert!(cached.from_cache);
        assert_eq!((&cached.dataset.x, &cached.dataset.y), (&adult.x, &adult.y));

        let raw = load(registry.get("adult-uci").unwrap(), &opts).unwrap();
        assert_eq!(
            (raw.x.n_rows(), raw.x.n_cols(), raw.n_train),
            (48_842, 105, 32_561)
        );
        assert_eq!(
            raw.y, adult.y,
            "a9a was built from these files, row for row"
        );

        unit_norm(&mut adult.x);
        assert!(adult.x.row_norms().iter().all(|n| (n - 1.0).abs() < 1e-12));
    }

    /// Fashion-MNIST from the Debian package's files (the registry's local copies), when
    /// installed: the real IDX files, gzipped.
    #[test]
    fn fashion_mnist_from_the_debian_package() {
        let registry =
            Registry::from_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets.toml"))
                .unwrap();
        let entry = registry.get("fashion-mnist").unwrap();
        if !entry
            .files
            .iter()
            .all(|f| f.local.iter().any(|l| l.path.is_file()))
        {
            println!("skipped: dataset-fashion-mnist is not installed");
            return;
        }
        let cache = tempfile::tempdir().unwrap();
        let opts = FetchOptions {
            cache_dir: cache.path().to_path_buf(),
            mirrors: vec![],
            progress: false,
        };
        let data = load(entry, &opts).unwrap();
        assert_eq!(
            (data.x.n_rows(), data.x.n_cols(), data.n_train),
            (70_000, 784, 60_000)
        );
        let summary = data.summary();
        let classes = summary.classes.unwrap();
        assert_eq!(classes.len(), 10);
        // Fashion-MNIST is balanced: 6,000 train + 1,000 test images per class.
        assert!(
            classes.iter().all(|&(_, count)| count == 7_000),
            "{classes:?}"
        );
    }
}
