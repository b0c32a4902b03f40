//! The rfbench runner: experiment specs (TOML) -> datasets -> grid of cells -> CSV -> figures,
//! tables, claims -> checks.
//!
//! The components (maps, learners, kernels, synthetic data, experiment kinds) and their
//! parameters are data in the `rfbench-registry` crate, the datasets (fetch, verify, parse,
//! preprocess) the `rfbench-data` crate; this crate reads both. `spec` parses and validates a
//! spec, in stages, into a [`spec::Plan`] of cells; `kinds` measure one cell; `results` writes self-describing CSV; `outputs` reads it back for
//! figures, tables, claims and the paper's numbers; `stats` has the t tests claims, checks and
//! `compare` decide by; `check` compares a rerun with the committed reference; `catalogue` writes
//! `results/README.md` from every committed result. `run` strings them together for the binary.

pub mod catalogue;
pub mod check;
pub mod compare;
pub mod completeness;
pub mod error;
pub mod files;
pub mod kinds;
pub mod memory;
pub mod merge;
pub mod outputs;
pub mod partial;
pub mod replay;
pub mod results;
pub mod run;
pub mod run_id;
pub mod schedule;
pub mod seeds;
pub mod shard;
pub mod slurm;
pub mod spec;
pub mod spec_error;
pub mod staging;
pub mod stats;

pub use error::{Error, Result};
