//! A run's identity: one (cell, repetition) of a plan, named by its coordinates as the CSV
//! writes them and its repetition (`map=rff|n_components=64|rep=2`).
//!
//! It is the one key everything that joins runs across processes uses: a shard owns the runs
//! whose id hashes to it ([`crate::shard::Shard::owns`]), `merge` matches shard rows to the
//! plan's runs by it, and `--resume` and `compare`'s rounds reuse an earlier row for a run only
//! when its id and its seeds ([`RunId::with_seeds`]) are the ones the plan would draw now. The
//! text is stable: it decides which shard runs what, so changing it reshuffles sharded runs.

use std::fmt;

use crate::results::Coordinates;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunId(String);

impl RunId {
    pub fn new(coordinates: &Coordinates, repetition: usize) -> RunId {
        let mut key: Vec<String> = coordinates
            .iter()
            .map(|(c, v)| format!("{c}={}", v.to_field()))
            .collect();
        key.push(format!("rep={repetition}"));
        RunId(key.join("|"))
    }

    /// The id and the seeds the run drew: an earlier row stands for a run only when both match
    /// (the same coordinates under another master seed or seed scope are another draw).
    pub fn with_seeds(self, seeds: &[(String, u64)]) -> (RunId, Vec<(String, u64)>) {
        (self, seeds.to_vec())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::CellValue;

    /// The text is pinned: it decides which shard runs what.
    #[test]
    fn the_id_is_the_coordinates_as_written_then_the_repetition() {
        let coordinates: Coordinates = [
            ("n_components".to_string(), CellValue::Int(64)),
            ("map".to_string(), CellValue::Text("rff".into())),
        ]
        .into_iter()
        .collect();
        let id = RunId::new(&coordinates, 2);
        assert_eq!(id.as_str(), "map=rff|n_components=64|rep=2");
        assert_ne!(id, RunId::new(&coordinates, 3));
        let seeds = [("seed".to_string(), 7)];
        assert_ne!(
            id.clone().with_seeds(&seeds),
            id.with_seeds(&[("seed".to_string(), 8)])
        );
    }
}
