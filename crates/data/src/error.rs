//! The one error type of the dataset layer.
//!
//! Every variant carries what a user needs to act without a debugger: the file (registry, data
//! or cache path), the line where a parser stopped, the URL that failed, and the expected and
//! actual digests of a checksum mismatch. Messages are written for the person at the terminal,
//! so the download error also says how to proceed without a network.

use std::io;
use std::path::{Path, PathBuf};

/// `Result` with [`DataError`].
pub type Result<T> = std::result::Result<T, DataError>;

/// What can go wrong while reading the registry, fetching files or parsing them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// A file could not be read, written, renamed or removed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The registry is not valid TOML or has unknown or missing keys; `message` is the TOML
    /// parser's, which names the key, line and column.
    #[error("{}: {message}", path.display())]
    RegistrySyntax { path: PathBuf, message: String },

    /// The registry is valid TOML but an entry makes no sense (duplicate name, bad checksum...).
    #[error("{}: dataset '{dataset}': {problem}", at(path, *line))]
    RegistryInvalid {
        path: PathBuf,
        line: usize,
        dataset: String,
        problem: String,
    },

    /// A dataset name that the registry does not have.
    #[error("unknown dataset '{name}' in {}; known datasets: {}", path.display(), known.join(", "))]
    UnknownDataset {
        name: String,
        path: PathBuf,
        known: Vec<String>,
    },

    /// A file on this machine (a local copy or a mirrored file) whose digest is not the one
    /// pinned for it. Neither is ours to modify, so the file is left in place.
    #[error(
        "checksum mismatch for {kind} {}: its sha256 is {actual}, but {pinned_by} pins {expected}. \
         To fix: {fix}",
        path.display()
    )]
    Checksum {
        path: PathBuf,
        kind: &'static str,
        expected: String,
        pinned_by: String,
        actual: String,
        fix: String,
    },

    /// A downloaded file is not the file the registry describes; the partial file was deleted.
    #[error(
        "checksum mismatch for {file} downloaded from {url}: its sha256 is {actual}, but \
         {pinned_by} pins {expected}; the download was deleted. To fix: {fix}"
    )]
    DownloadChecksum {
        file: String,
        url: String,
        expected: String,
        pinned_by: String,
        actual: String,
        fix: String,
    },

    /// A mirror directory that does not exist (a typo in `RFBENCH_MIRROR`).
    #[error(
        "mirror directory {} does not exist: correct or remove it in RFBENCH_MIRROR (a \
         ':'-separated list of directories)",
        path.display()
    )]
    MirrorMissing { path: PathBuf },

    /// A file with no URL (a dataset only on this machine) whose local copies are all missing.
    #[error(
        "{file} of dataset '{dataset}' has no url, and none of its local copies exists ({}); \
         nor is it in a mirror directory or the cache",
        local.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoSource {
        dataset: String,
        file: String,
        local: Vec<PathBuf>,
    },

    /// The network request failed: no connection, an HTTP error status, or a body cut short.
    #[error(
        "cannot download {file} from {url}: {reason}. Without network access, put {file} in a \
         directory and name that directory in RFBENCH_MIRROR (a ':'-separated list, e.g. \
         RFBENCH_MIRROR=$HOME/datasets/{dataset})"
    )]
    Download {
        dataset: String,
        file: String,
        url: String,
        reason: String,
    },

    /// A data file line that does not follow its format (`line` 0: the file as a whole).
    #[error("{}: {problem}", at(path, *line))]
    Parse {
        path: PathBuf,
        line: usize,
        problem: String,
    },

    /// A row of a Parquet or Arrow IPC file that breaks the column rules (counted from 1).
    #[error("{}: row {row}: {problem}", path.display())]
    ParseRow {
        path: PathBuf,
        row: usize,
        problem: String,
    },

    /// A file that polars' reader cannot read as the format its name announces: not such a
    /// file, cut short, or damaged.
    #[error("{}: not a readable {format} file: {source}", path.display())]
    Table {
        path: PathBuf,
        format: &'static str,
        #[source]
        source: polars::error::PolarsError,
    },

    /// A Parquet or Arrow IPC file whose columns do not fit: no such label column, or a test
    /// file with other columns than the training file's.
    #[error("{}: {problem}", path.display())]
    TableColumns { path: PathBuf, problem: String },

    /// A column of a Parquet or Arrow IPC file whose type holds no feature or label (a list, a
    /// struct, bytes, a date...).
    #[error(
        "{}: column '{column}' holds {dtype}, which rfbench cannot read as a feature or a label \
         (numbers, text, booleans and categories only): drop it or convert it, e.g. a date to \
         a number",
        path.display()
    )]
    ColumnType {
        path: PathBuf,
        column: String,
        dtype: String,
    },

    /// A binary data file (IDX, CIFAR-10) whose record does not follow its format.
    #[error("{}: record {record}: {problem}", path.display())]
    ParseRecord {
        path: PathBuf,
        record: usize,
        problem: String,
    },

    /// An archive that cannot be read, or lacks the member the registry names.
    #[error("{}: {problem}", path.display())]
    Archive { path: PathBuf, problem: String },

    /// The parsed binary cache is unreadable; it is rebuilt from the source files.
    #[error("{}: {problem}", path.display())]
    Cache { path: PathBuf, problem: String },

    /// A dataset whose files hold another number of features than the registry publishes.
    #[error(
        "dataset '{dataset}': the registry says d = {expected} features but its files hold {actual}"
    )]
    ColumnCount {
        dataset: String,
        expected: usize,
        actual: usize,
    },

    /// A preprocessing step that cannot be applied to this data.
    #[error("{step}: {problem}")]
    Preprocess { step: &'static str, problem: String },

    /// A data file with no data rows at all.
    #[error("{}: no data rows", path.display())]
    Empty { path: PathBuf },

    /// The files of a dataset hold a different number of rows than the registry publishes.
    #[error(
        "dataset '{dataset}': the registry says n = {expected} rows but its files hold {actual}"
    )]
    RowCount {
        dataset: String,
        expected: usize,
        actual: usize,
    },

    /// A synthetic generator's parameter out of its range (e.g. `n_test >= n`).
    #[error("{generator}: {parameter} = {value}: {problem}")]
    InvalidSynthetic {
        generator: &'static str,
        parameter: &'static str,
        value: String,
        problem: String,
    },
}

impl DataError {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        DataError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// `path:line`, or the path alone where an error is about the whole file (line 0): a message
/// never cites a line 0 that no editor shows.
fn at(path: &Path, line: usize) -> String {
    match line {
        0 => path.display().to_string(),
        _ => format!("{}:{line}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_file_error_cites_no_line_0() {
        let err = |line| DataError::Parse {
            path: PathBuf::from("d.csv"),
            line,
            problem: "one class".into(),
        };
        assert_eq!(err(0).to_string(), "d.csv: one class");
        assert_eq!(err(7).to_string(), "d.csv:7: one class");
    }
}
