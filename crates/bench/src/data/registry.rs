//! The dataset registry (`datasets.toml`): what each dataset is and where its files come from.
//!
//! Parsing is two-staged like the experiment specs: a raw serde mirror of the TOML that denies
//! unknown keys (so a typo is an error naming the key and line, not a silently ignored setting),
//! then validation into [`DatasetEntry`] values. Validation errors carry the line of the
//! offending table, recovered from TOML spans.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::error::{DataError, Result};

/// The learning task a dataset's labels define.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    Binary,
    Multiclass,
    Regression,
}

/// The on-disk format of a dataset's files; one parser per variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// `label idx:val ...` lines with 1-based, increasing indices.
    Libsvm,
}

/// Which part of the published split a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Train,
    Test,
}

/// One file of a dataset: its name in the cache and mirrors, its source and its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub role: Role,
    /// A plain file name (no directories), used in the cache and looked up in mirrors.
    pub file: String,
    pub url: String,
    /// Lower-case hex SHA-256 of the file as published.
    pub sha256: String,
}

/// One dataset of the registry, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetEntry {
    pub name: String,
    pub description: String,
    pub task: Task,
    pub format: Format,
    /// Number of rows as published (train + test).
    pub n: usize,
    /// Number of features as published.
    pub d: usize,
    pub files: Vec<FileEntry>,
}

/// All datasets of a registry file, in file order.
#[derive(Debug, Clone)]
pub struct Registry {
    path: PathBuf,
    entries: Vec<DatasetEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegistry {
    #[serde(default)]
    dataset: Vec<Spanned<RawDataset>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDataset {
    name: String,
    description: String,
    task: Task,
    format: Format,
    n: usize,
    d: usize,
    files: Vec<Spanned<RawFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    role: Role,
    file: String,
    url: String,
    sha256: String,
}

impl Registry {
    /// Reads and validates a registry file.
    pub fn from_file(path: &Path) -> Result<Registry> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| DataError::io("cannot read registry", path, e))?;
        Registry::parse(&text, path)
    }

    /// Parses and validates registry text; `origin` is the path that error messages name.
    pub fn parse(text: &str, origin: &Path) -> Result<Registry> {
        let raw: RawRegistry = toml::from_str(text).map_err(|e| DataError::RegistrySyntax {
            path: origin.to_path_buf(),
            message: e.to_string(),
        })?;
        let mut entries = Vec::with_capacity(raw.dataset.len());
        let mut seen = HashSet::new();
        for spanned in raw.dataset {
            let line = line_of(text, spanned.span().start);
            let entry = validate(spanned.into_inner(), text, origin, line)?;
            if !seen.insert(entry.name.clone()) {
                return Err(invalid(origin, line, &entry.name, "duplicate dataset name"));
            }
            entries.push(entry);
        }
        Ok(Registry {
            path: origin.to_path_buf(),
            entries,
        })
    }

    /// The entry called `name`; an unknown name is an error listing the known ones.
    pub fn get(&self, name: &str) -> Result<&DatasetEntry> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| DataError::UnknownDataset {
                name: name.to_string(),
                path: self.path.clone(),
                known: self.entries.iter().map(|e| e.name.clone()).collect(),
            })
    }

    pub fn entries(&self) -> &[DatasetEntry] {
        &self.entries
    }

    /// The file this registry was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn validate(raw: RawDataset, text: &str, origin: &Path, line: usize) -> Result<DatasetEntry> {
    let name = raw.name;
    if name.is_empty() || !is_plain_name(&name) {
        return Err(invalid(
            origin,
            line,
            &name,
            "the name must be a non-empty plain name (letters, digits, '-', '_', '.'), \
             since it names a cache directory",
        ));
    }
    if raw.n == 0 || raw.d == 0 {
        return Err(invalid(
            origin,
            line,
            &name,
            &format!(
                "n and d must be at least 1, got n = {}, d = {}",
                raw.n, raw.d
            ),
        ));
    }
    if raw.files.is_empty() {
        return Err(invalid(origin, line, &name, "no files"));
    }
    let mut files = Vec::with_capacity(raw.files.len());
    let mut file_names = HashSet::new();
    for spanned in raw.files {
        let file_line = line_of(text, spanned.span().start);
        let f = spanned.into_inner();
        let problem = if !is_plain_name(&f.file) {
            Some(format!(
                "file '{}' must be a plain file name without directories",
                f.file
            ))
        } else if !file_names.insert(f.file.clone()) {
            Some(format!("file '{}' is listed twice", f.file))
        } else if !(f.url.starts_with("http://") || f.url.starts_with("https://")) {
            Some(format!("url '{}' is not an http(s) URL", f.url))
        } else if !is_sha256_hex(&f.sha256) {
            Some(format!(
                "sha256 '{}' of file '{}' is not 64 lower-case hex digits",
                f.sha256, f.file
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(invalid(origin, file_line, &name, &problem));
        }
        files.push(FileEntry {
            role: f.role,
            file: f.file,
            url: f.url,
            sha256: f.sha256,
        });
    }
    Ok(DatasetEntry {
        name,
        description: raw.description,
        task: raw.task,
        format: raw.format,
        n: raw.n,
        d: raw.d,
        files,
    })
}

fn invalid(origin: &Path, line: usize, dataset: &str, problem: &str) -> DataError {
    DataError::RegistryInvalid {
        path: origin.to_path_buf(),
        line,
        dataset: dataset.to_string(),
        problem: problem.to_string(),
    }
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Names that are safe as a single path component on every platform.
fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[[dataset]]
name = "tiny"
description = "two files"
task = "binary"
format = "libsvm"
n = 3
d = 4

[[dataset.files]]
role = "train"
file = "tiny.train"
url = "https://example.org/tiny.train"
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"

[[dataset.files]]
role = "test"
file = "tiny.test"
url = "https://example.org/tiny.test"
sha256 = "1111111111111111111111111111111111111111111111111111111111111111"
"#;

    #[test]
    fn parses_a_good_registry() {
        let reg = Registry::parse(GOOD, Path::new("reg.toml")).unwrap();
        let e = reg.get("tiny").unwrap();
        assert_eq!(
            (e.task, e.format, e.n, e.d),
            (Task::Binary, Format::Libsvm, 3, 4)
        );
        assert_eq!(e.files.len(), 2);
        assert_eq!(e.files[1].role, Role::Test);
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let text = GOOD.replace("n = 3\n", "n = 3\nrows = 3\n");
        let err = Registry::parse(&text, Path::new("reg.toml")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("reg.toml"), "{msg}");
        assert!(msg.contains("rows"), "{msg}");
        assert!(msg.contains("line 8"), "{msg}");
    }

    #[test]
    fn unknown_dataset_lists_known_names() {
        let reg = Registry::parse(GOOD, Path::new("reg.toml")).unwrap();
        let msg = reg.get("mnist").unwrap_err().to_string();
        assert!(
            msg.contains("'mnist'") && msg.contains("known datasets: tiny"),
            "{msg}"
        );
    }

    #[test]
    fn invalid_entries_name_the_line() {
        let bad_sha = GOOD.replace(&"1".repeat(64), "abc");
        let msg = Registry::parse(&bad_sha, Path::new("reg.toml"))
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("reg.toml:16: dataset 'tiny'"), "{msg}");

        let bad_file = GOOD.replace("\"tiny.test\"", "\"../tiny.test\"");
        assert!(Registry::parse(&bad_file, Path::new("reg.toml")).is_err());

        let twice = format!("{GOOD}{}", &GOOD[GOOD.find("[[dataset]]").unwrap()..]);
        let msg = Registry::parse(&twice, Path::new("reg.toml"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("duplicate dataset name"), "{msg}");
    }

    #[test]
    fn committed_registry_has_adult() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets.toml");
        let reg = Registry::from_file(&path).unwrap();
        let adult = reg.get("adult").unwrap();
        assert_eq!((adult.n, adult.d), (48_842, 123));
        let files: Vec<_> = adult
            .files
            .iter()
            .map(|f| (f.role, f.file.as_str()))
            .collect();
        assert_eq!(files, [(Role::Train, "a9a"), (Role::Test, "a9a.t")]);
    }
}
