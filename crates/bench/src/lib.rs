//! The rfbench runner: experiment specs (TOML) -> datasets -> sweeps -> CSV -> figures -> checks.
//!
//! `spec` parses and validates; `data` fetches, verifies and parses datasets; `experiment` runs
//! the grid; `results` writes self-describing CSV; `summary` reads it back per cell; `figure`,
//! `report` and `check` work from that summary. `run` strings them together for the binary.

pub mod check;
pub mod data;
pub mod error;
pub mod experiment;
pub mod figure;
pub mod outputs;
pub mod report;
pub mod results;
pub mod run;
pub mod seeds;
pub mod spec;
pub mod summary;

pub use error::{Error, Result};
