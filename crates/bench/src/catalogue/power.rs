//! Profiles that only add repetitions to the full run's cells (prff-fig2's `m25`: 20 runs of the
//! M = 25 cells where the full run has 3), and the claims they decide in its place.
//!
//! Such a profile runs the same test with more runs: the same cells (every coordinate, the
//! preprocessing and the seeds' scopes as the full run's, so its first repetitions are the full
//! run's draws), more repetitions of each. A claim of the full run is then decided by the
//! profile's verdict on the same claim (the same text) over the same pairs (the same places):
//! the better-powered test of the same statement, whichever way it goes. A profile that changes
//! anything else (a reading, a stand-in, a new data draw per repetition) never stands in for
//! the full run: its verdicts answer another question.

use crate::outputs::ClaimOutcome;
use crate::spec::Plan;

/// The full run's claim outcomes with each claim that one of `powered` (profiles for which
/// [`adds_repetitions`] holds, each with its claims' outcomes) also decides replaced by that
/// profile's (the most repetitions first), and for each outcome, in the same order, the profile
/// that decided it in the full run's place: ("m25", 20 repetitions), or `None`.
pub fn decided(
    outcomes: Vec<ClaimOutcome>,
    mut powered: Vec<(&Plan, Vec<ClaimOutcome>)>,
) -> (Vec<ClaimOutcome>, Vec<Option<(String, usize)>>) {
    powered.sort_by_key(|(plan, _)| std::cmp::Reverse(plan.repetitions));
    let mut out = outcomes;
    let mut by = vec![None; out.len()];
    for (plan, theirs) in powered {
        for (outcome, by) in out.iter_mut().zip(&mut by) {
            if outcome.pairs.is_empty() {
                continue;
            }
            if let Some(better) = theirs.iter().find(|t| same_test(outcome, t)) {
                *outcome = better.clone();
                *by = Some((plan.profile.name().to_string(), plan.repetitions));
            }
        }
    }
    (out, by)
}

/// ("m25", 20 repetitions, 6 claims) per profile that decided any of `by`'s claims, in order of
/// first appearance.
pub fn tally(by: &[&Option<(String, usize)>]) -> Vec<(String, usize, usize)> {
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    for (name, repetitions) in by.iter().filter_map(|b| b.as_ref()) {
        match out.iter_mut().find(|(n, _, _)| n == name) {
            Some(entry) => entry.2 += 1,
            None => out.push((name.clone(), *repetitions, 1)),
        }
    }
    out
}

/// Whether `other` runs some of `full`'s cells, unchanged, with more repetitions of each.
pub fn adds_repetitions(full: &Plan, other: &Plan) -> bool {
    let steps = |p: &Plan| {
        p.preprocess
            .as_ref()
            .map(|s| s.iter().map(|s| s.step).collect::<Vec<_>>())
    };
    let scopes = |p: &Plan| {
        p.seeds
            .iter()
            .map(|s| (s.spec.column, s.axes.clone(), s.with_repetition))
            .collect::<Vec<_>>()
    };
    other.profile != full.profile
        && !other.cells.is_empty()
        && steps(other) == steps(full)
        && scopes(other) == scopes(full)
        && other.cells.iter().all(|cell| {
            full.cells
                .iter()
                .find(|f| sorted(&f.coordinates) == sorted(&cell.coordinates))
                .is_some_and(|f| cell.repetitions > f.repetitions)
        })
}

/// Coordinates by name, whatever the column order of the profile.
fn sorted<V: Clone>(pairs: &[(String, V)]) -> Vec<(String, V)> {
    let mut out = pairs.to_vec();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The same claim over the same pairs.
fn same_test(ours: &ClaimOutcome, theirs: &ClaimOutcome) -> bool {
    ours.text == theirs.text && !theirs.pairs.is_empty() && places(ours) == places(theirs)
}

/// The places of a claim's pairs, sorted.
fn places(outcome: &ClaimOutcome) -> Vec<&str> {
    let mut at: Vec<&str> = outcome.pairs.iter().map(|p| p.at.as_str()).collect();
    at.sort_unstable();
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{load_plan, Profile};
    use std::path::PathBuf;

    fn plan(name: &str, profile: &str) -> Plan {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let profile = match profile {
            "full" => Profile::Full,
            other => Profile::Named(other.to_string()),
        };
        load_plan(&root, name, &profile).unwrap()
    }

    /// prff-fig2's `m25` is 20 runs of some of the full run's cells; its readings (`residual`:
    /// another loss), its CI profile (fewer runs) and prff-fig3's `grid` (other values of
    /// lambda) are not; nor is the full run itself, nor a profile with its own data draw in
    /// every repetition (rff-vs-nystroem's `draws`).
    #[test]
    fn only_a_profile_of_more_runs_of_the_same_cells_adds_repetitions() {
        let full = plan("prff-fig2", "full");
        assert!(adds_repetitions(&full, &plan("prff-fig2", "m25")));
        assert!(!adds_repetitions(&full, &plan("prff-fig2", "residual")));
        assert!(!adds_repetitions(&full, &plan("prff-fig2", "quick")));
        assert!(!adds_repetitions(&full, &full));
        let fig3 = plan("prff-fig3", "full");
        assert!(!adds_repetitions(&fig3, &plan("prff-fig3", "grid")));
        let tutorial = plan("rff-vs-nystroem", "full");
        assert!(!adds_repetitions(
            &tutorial,
            &plan("rff-vs-nystroem", "draws")
        ));
    }
}
