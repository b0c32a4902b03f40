//! The lock file: digests of files whose publisher gives no checksum, pinned on first use.
//!
//! Most publishers of the papers' data (UCI, the LIBSVM page, CIFAR) publish no SHA-256, and
//! a digest cannot be written into the registry without the bytes. So the first download (or
//! mirror or local copy) that parses is trusted and its digest recorded here; every later use
//! must match,
//! exactly as with a digest pinned in `datasets.toml`. Committing the lock file pins the data
//! for everyone, as `Cargo.lock` pins crates.
//!
//! Format, one file per line: `<sha256> <dataset>/<key> <url>` (the `sha256sum` shape, plus
//! the source), `#` comments. `key` is the file name, or `local:<path>` for a local copy.
//! Updates are written to a uniquely named temporary file and renamed into place
//! ([`crate::atomic::replace_file`]).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::error::{DataError, Result};
use super::registry::is_sha256_hex;

/// The recorded digests, keyed by `<dataset>/<key>`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LockFile {
    path: PathBuf,
    entries: BTreeMap<String, (String, String)>,
}

impl LockFile {
    /// Reads `path`; a missing file is an empty lock.
    pub fn read(path: &Path) -> Result<LockFile> {
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(DataError::io("cannot read lock file", path, e)),
        };
        let mut entries = BTreeMap::new();
        for (k, line) in text.lines().enumerate() {
            let fail = |problem: String| DataError::Parse {
                path: path.to_path_buf(),
                line: k + 1,
                problem,
            };
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_ascii_whitespace();
            let (Some(sha), Some(key), url) = (words.next(), words.next(), words.next()) else {
                return Err(fail("expected '<sha256> <dataset>/<file> <url>'".into()));
            };
            if !is_sha256_hex(sha) {
                return Err(fail(format!("'{sha}' is not 64 lower-case hex digits")));
            }
            if !key.contains('/') {
                return Err(fail(format!("'{key}' is not <dataset>/<file>")));
            }
            if entries
                .insert(key.to_string(), (sha.to_string(), url.unwrap_or("").into()))
                .is_some()
            {
                return Err(fail(format!("'{key}' is locked twice")));
            }
        }
        Ok(LockFile {
            path: path.to_path_buf(),
            entries,
        })
    }

    /// The digest recorded for `key` of `dataset`.
    pub fn get(&self, dataset: &str, key: &str) -> Option<&str> {
        self.entries
            .get(&format!("{dataset}/{key}"))
            .map(|(sha, _)| sha.as_str())
    }

    /// Records a digest and rewrites the file atomically. The read, the change and the write
    /// happen under an exclusive lock on a guard file beside it (`.datasets.lock.guard`), so
    /// that processes recording at once (with different caches, whose fetch locks do not
    /// exclude each other) all keep their entries.
    pub fn record(&mut self, dataset: &str, key: &str, sha256: &str, url: &str) -> Result<()> {
        let _guard = self.guard()?;
        let mut current = LockFile::read(&self.path)?;
        current.entries.insert(
            format!("{dataset}/{key}"),
            (sha256.to_string(), url.to_string()),
        );
        let mut text = String::from(
            "# Digests of dataset files without a published checksum, recorded by rfbench the \
             first time a file is used and parses,\n# and enforced afterwards. Delete a line to \
             accept a new version of that file.\n",
        );
        for (key, (sha, url)) in &current.entries {
            text.push_str(&format!("{sha} {key} {url}\n"));
        }
        crate::atomic::replace_file(&self.path, text.as_bytes())
            .map_err(|e| DataError::io("cannot write", &self.path, e))?;
        *self = current;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The guard file beside the lock file, locked exclusively until dropped.
    fn guard(&self) -> Result<fs::File> {
        let name = self
            .path
            .file_name()
            .map_or("datasets.lock".into(), |n| n.to_string_lossy().into_owned());
        let path = self.path.with_file_name(format!(".{name}.guard"));
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(|e| DataError::io("cannot create", dir, e))?;
        }
        exclusive(&path)
    }
}

/// `path` opened (created if missing, never truncated) and locked exclusively until the file is
/// dropped or the process ends: the cache's fetch lock and the lock file's guard.
pub(crate) fn exclusive(path: &Path) -> Result<fs::File> {
    let file = fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| DataError::io("cannot open", path, e))?;
    file.lock()
        .map_err(|e| DataError::io("cannot lock", path, e))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writers recording at once (threads here; processes with different caches in use) all
    /// keep their entries: each read-modify-write holds the guard.
    #[test]
    fn concurrent_records_keep_every_entry() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("datasets.lock");
        let sha = "a".repeat(64);
        std::thread::scope(|s| {
            for t in 0..8 {
                let (path, sha) = (path.clone(), sha.clone());
                s.spawn(move || {
                    for k in 0..10 {
                        let mut lock = LockFile::read(&path).unwrap();
                        lock.record(&format!("d{t}"), &format!("f{k}"), &sha, "u")
                            .unwrap();
                    }
                });
            }
        });
        let lock = LockFile::read(&path).unwrap();
        assert_eq!(lock.entries.len(), 80);
    }

    #[test]
    fn records_survive_a_reread_and_keep_other_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/datasets.lock");
        let mut lock = LockFile::read(&path).unwrap();
        assert_eq!(lock.get("a", "f"), None);
        lock.record("a", "f", &"1".repeat(64), "https://x/f")
            .unwrap();
        let mut other = LockFile::read(&path).unwrap();
        other
            .record("b", "g", &"2".repeat(64), "https://x/g")
            .unwrap();
        lock.record("a", "h", &"3".repeat(64), "https://x/h")
            .unwrap();
        let back = LockFile::read(&path).unwrap();
        assert_eq!(back.get("a", "f"), Some("1".repeat(64).as_str()));
        assert_eq!(back.get("b", "g"), Some("2".repeat(64).as_str()));
        assert_eq!(back.get("a", "h"), Some("3".repeat(64).as_str()));
        // No temporary left behind: the lock file and its guard only.
        let mut names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, [".datasets.lock.guard", "datasets.lock"]);
    }

    #[test]
    fn malformed_lines_name_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("datasets.lock");
        for (text, problem) in [
            ("# c\nabc a/f u\n", "not 64"),
            ("\nonlyone\n", "expected"),
            (
                &format!("\n{} nofile u\n", "a".repeat(64)),
                "not <dataset>/<file>",
            ),
            (
                &format!("{0} a/f u\n{0} a/f v\n", "a".repeat(64)),
                "locked twice",
            ),
        ] {
            fs::write(&path, text).unwrap();
            let msg = LockFile::read(&path).unwrap_err().to_string();
            assert!(msg.contains(":2: ") && msg.contains(problem), "{msg}");
        }
    }
}
