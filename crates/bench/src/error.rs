//! The runner library's error type. The binary adds context with `anyhow`; the library says
//! exactly what went wrong and where.

use std::path::{Path, PathBuf};

use thiserror::Error;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Spec(#[from] crate::spec_error::SpecError),
    #[error("unknown experiment {name:?}; known: {}", known.join(", "))]
    UnknownExperiment { name: String, known: Vec<String> },
    #[error(transparent)]
    Data(#[from] rfbench_data::DataError),
    #[error(transparent)]
    Map(#[from] rfbench_maps::MapError),
    #[error(transparent)]
    Learner(#[from] rfbench_learners::LearnerError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("results table {}: {message}", path.display())]
    Results { path: PathBuf, message: String },
    #[error("figure {}: {message}", path.display())]
    Figure { path: PathBuf, message: String },
    #[error("{0}")]
    Experiment(String),
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
