//! The one error of the spec pipeline: which file, which key on which line, and what is wrong
//! with it. Every stage reports through [`Checker`], so a message always reads
//! `spec PATH: key `KEY` (line N): PROBLEM`, and tests can match on the fields, not the text.
//!
//! A leaf module beside `spec/`, not inside it: output validation (`outputs/`) and the crate's
//! error (`error.rs`) report through it too, and neither may import the spec pipeline back.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A spec that cannot be planned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("spec {}: {}", path.display(), self.message())]
pub struct SpecError {
    pub path: PathBuf,
    /// The key at fault (`grid.n_components`, `profiles.quick.repetitions`), where one is.
    pub key: Option<String>,
    /// Its 1-based line in the file (0 where the key has no position of its own).
    pub line: usize,
    pub problem: String,
}

impl SpecError {
    /// A problem of the whole file (a missing table, a name that differs from the file's).
    pub fn whole(path: &Path, problem: impl fmt::Display) -> SpecError {
        SpecError {
            path: path.to_path_buf(),
            key: None,
            line: 0,
            problem: problem.to_string(),
        }
    }

    /// A problem of one key.
    pub fn at(path: &Path, key: &str, line: usize, problem: impl fmt::Display) -> SpecError {
        SpecError {
            path: path.to_path_buf(),
            key: Some(key.to_string()),
            line,
            problem: problem.to_string(),
        }
    }

    /// The text after the path.
    pub fn message(&self) -> String {
        match &self.key {
            Some(key) => format!("key `{key}` (line {}): {}", self.line, self.problem),
            None => self.problem.clone(),
        }
    }
}

/// Line (1-based) of the start of `span` in `text` (the data crate's count, shared by every
/// error that names a line of a TOML file).
pub fn line_of(text: &str, span: &Range<usize>) -> usize {
    rfbench_data::line_of(text, span.start)
}

/// The spec's text and path, for turning a key and a span into a [`SpecError`].
#[derive(Clone, Copy)]
pub(crate) struct Checker<'a> {
    pub text: &'a str,
    pub path: &'a Path,
}

impl Checker<'_> {
    pub fn fail(&self, key: &str, line: usize, problem: impl fmt::Display) -> SpecError {
        SpecError::at(self.path, key, line, problem)
    }

    pub fn at_span(&self, key: &str, span: &Range<usize>, problem: impl fmt::Display) -> SpecError {
        self.fail(key, line_of(self.text, span), problem)
    }

    pub fn whole(&self, problem: impl fmt::Display) -> SpecError {
        SpecError::whole(self.path, problem)
    }
}

/// The spec pipeline's result.
pub type SpecResult<T> = std::result::Result<T, SpecError>;
