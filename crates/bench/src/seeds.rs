//! Seeds derived from the master seed and a cell's coordinates (benchopt's rule), by
//! [`rfbench_maps::seeds::derive_seed`], the workspace's one home for seed derivations.
//!
//! A cell's seed depends only on the master seed and the cell's own parameters, never on the order
//! in which cells run or on how many there are, so adding a value to a list leaves every other
//! cell's numbers unchanged, and a row of the CSV can be re-run alone from its `seed` column.

pub use rfbench_maps::seeds::derive_seed;
