//! The component registry wired to its code: every entry of `rfbench-registry-data`, re-exported
//! here at the same paths, and what the entries that need the learners or the datasets run (each
//! learner's training, streamed training and plan-time check; each synthetic source's rows).
//!
//! The registry is two crates so that a front end that only reads the tables (the Python
//! extension: names, parameters, ranges, defaults) links neither the learners nor rfbench-data's
//! downloads and decompressors. The runner uses this one, which is the whole registry. Each
//! wiring table here is paired with the entries by name, as the runner's kinds are with theirs,
//! and a test fails when an entry has no wiring.

pub mod generators;
pub mod learners;

pub use rfbench_registry_data::*;
