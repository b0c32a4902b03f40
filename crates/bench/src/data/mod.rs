//! Datasets: the registry, fetching and verifying files, parsing them, preprocessing.
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

mod error;
mod fetch;
mod libsvm;
mod preprocess;
mod registry;

use std::fs::File;
use std::io::BufReader;

use rfbench_maps::CsrMatrix;

pub use error::{DataError, Result};
pub use fetch::{fetch, FetchOptions};
pub use libsvm::parse_libsvm;
pub use preprocess::unit_norm;
pub use registry::{DatasetEntry, FileEntry, Format, Registry, Role, Task};

/// A loaded dataset: the rows of all train files, then of all test files, in registry order.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub name: String,
    /// `n` rows by the registry's `d` columns.
    pub x: CsrMatrix,
    /// One label per row: a class label (e.g. +1/-1) or a regression target.
    pub y: Vec<f64>,
    /// The first `n_train` rows are the published training set, the rest the test set.
    pub n_train: usize,
}

/// Fetches (see [`fetch`]) and parses every file of `entry`. The row count must equal the
/// registry's published `n`, which catches a registry entry that lists the wrong files.
pub fn load(entry: &DatasetEntry, opts: &FetchOptions) -> Result<Dataset> {
    let paths = fetch(entry, opts)?;
    let mut ordered: Vec<_> = entry.files.iter().zip(&paths).collect();
    ordered.sort_by_key(|(file, _)| file.role != Role::Train);
    let n_train_files = ordered
        .iter()
        .filter(|(f, _)| f.role == Role::Train)
        .count();

    let (x, y, n_train) = match entry.format {
        Format::Libsvm => {
            let mut reader = libsvm::LibsvmReader::new(Some(entry.d));
            let mut n_train = 0;
            for (k, (_, path)) in ordered.iter().enumerate() {
                let input = File::open(path).map_err(|e| DataError::io("cannot open", *path, e))?;
                reader.read(BufReader::new(input), path)?;
                if k + 1 == n_train_files {
                    n_train = reader.n_rows();
                }
            }
            let origin = ordered
                .last()
                .map_or(entry.name.as_ref(), |(_, p)| p.as_path());
            let (x, y) = reader.finish(origin)?;
            (x, y, n_train)
        }
    };
    if x.n_rows() != entry.n {
        return Err(DataError::RowCount {
            dataset: entry.name.clone(),
            expected: entry.n,
            actual: x.n_rows(),
        });
    }
    Ok(Dataset {
        name: entry.name.clone(),
        x,
        y,
        n_train,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};
    use std::path::{Path, PathBuf};

    fn file(role: Role, name: &str, body: &[u8]) -> FileEntry {
        FileEntry {
            role,
            file: name.into(),
            url: "http://127.0.0.1:9/unused".into(),
            sha256: format!("{:x}", Sha256::digest(body)),
        }
    }

    fn offline(mirror: &Path) -> FetchOptions {
        FetchOptions {
            cache_dir: mirror.join("cache"),
            mirrors: vec![mirror.to_path_buf()],
            progress: false,
        }
    }

    #[test]
    fn load_puts_train_rows_first_and_checks_n() {
        let dir = tempfile::tempdir().unwrap();
        let (test, train) = (&b"-1 4:1\n"[..], &b"+1 1:1\n+1 2:1 3:1\n"[..]);
        std::fs::write(dir.path().join("t.test"), test).unwrap();
        std::fs::write(dir.path().join("t.train"), train).unwrap();
        let mut entry = DatasetEntry {
            name: "t".into(),
            description: String::new(),
            task: Task::Binary,
            format: Format::Libsvm,
            n: 3,
            d: 5,
            files: vec![
                file(Role::Test, "t.test", test),
                file(Role::Train, "t.train", train),
            ],
        };
        let data = load(&entry, &offline(dir.path())).unwrap();
        assert_eq!((data.x.n_rows(), data.x.n_cols(), data.n_train), (3, 5, 2));
        assert_eq!(data.y, [1.0, 1.0, -1.0]);
        assert_eq!(data.x.row_parts(2).0, [3]);

        entry.n = 4;
        let msg = load(&entry, &offline(dir.path())).unwrap_err().to_string();
        assert!(msg.contains("n = 4") && msg.contains("hold 3"), "{msg}");
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
        let mut adult = load(registry.get("adult").unwrap(), &opts).unwrap();
        assert_eq!((adult.x.n_rows(), adult.x.n_cols()), (48_842, 123));
        assert_eq!(adult.n_train, 32_561);
        assert_eq!(adult.x.nnz(), 677_323);
        // `grep -c '^+1'` over a9a and a9a.t: 7,841 + 3,846 positives.
        assert_eq!(adult.y.iter().filter(|&&y| y == 1.0).count(), 11_687);
        assert_eq!(adult.y.iter().filter(|&&y| y == -1.0).count(), 37_155);
        assert!(std::fs::read_dir(cache.path()).unwrap().next().is_none());

        unit_norm(&mut adult.x);
        assert!(adult.x.row_norms().iter().all(|n| (n - 1.0).abs() < 1e-12));
    }
}
