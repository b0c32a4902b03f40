//! The catalogue's first table: for every paper item (spec), whether it reproduced, with one line
//! of why and a link to where docs/papers.md reads the paper. Computed from the claims' verdicts
//! and the data that ran, never written by hand, so it cannot disagree with the sections below.
//!
//! The rule, in order:
//! - NOT RUN HERE: no row of the spec ran here (its data needs the network);
//! - STAND-IN: rows ran, but only on data labelled as a stand-in for the paper's;
//! - NO CLAIMS: no claim is encoded, so nothing is decided (the numbers are beside the paper's);
//! - REPRODUCED: every claim holds, on all its data;
//! - NOT REPRODUCED: no claim holds and at least one does not;
//! - UNDECIDED: no claim holds or fails: the tests cannot tell (too few repetitions, or every
//!   claim's data is missing);
//! - PARTLY: the rest (some claims hold, or hold where checked, others not or not decided).

use std::path::Path;

use crate::outputs::{short_reason, Verdict};

/// Where the papers' readings are, from the root.
const READINGS: &str = "docs/papers.md";

/// A spec's status and its one line of why.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub label: &'static str,
    pub why: String,
}

/// What a spec's deciding runs (its full profile, with the claims a profile of more repetitions
/// of its cells decides in its place: `super::power`) did: the labels of the datasets that ran,
/// the first reason a row did not, its claims' verdicts and their tally.
pub struct Evidence<'a> {
    pub datasets_ran: &'a [String],
    pub first_not_run: Option<String>,
    pub verdicts: &'a [Verdict],
    pub tally: &'a str,
    pub profile: &'a str,
}

/// The status of a spec from what its deciding runs did.
pub fn of(e: &Evidence) -> Status {
    if e.datasets_ran.is_empty() {
        let why = e
            .first_not_run
            .as_deref()
            .map_or("every dataset of it needs the network".into(), |w| {
                short_reason(w).lines().next().unwrap_or("").to_string()
            });
        return Status {
            label: "NOT RUN HERE",
            why,
        };
    }
    // The catalogue's convention: a stand-in says so in its label ("Fashion-MNIST (stand-in
    // for CIFAR-10)").
    let stand_ins: Vec<&str> = e
        .datasets_ran
        .iter()
        .filter(|l| l.contains("stand-in"))
        .map(String::as_str)
        .collect();
    let all_stand_in = stand_ins.len() == e.datasets_ran.len();
    let label = label(all_stand_in, e.verdicts);
    let why = match label {
        "STAND-IN" if e.tally.is_empty() => format!("ran only on {}", stand_ins.join(", ")),
        "STAND-IN" => format!("ran only on {}; claims: {}", stand_ins.join(", "), e.tally),
        "NO CLAIMS" => "no claim encoded: the paper's numbers stand beside ours".into(),
        _ => format!(
            "{} claim(s) of profile {}: {}",
            e.verdicts.len(),
            e.profile,
            e.tally
        ),
    };
    Status { label, why }
}

/// The status of a spec whose rows ran, by the module's rule.
fn label(all_stand_in: bool, verdicts: &[Verdict]) -> &'static str {
    let count = |v: Verdict| verdicts.iter().filter(|&&x| x == v).count();
    if all_stand_in {
        "STAND-IN"
    } else if verdicts.is_empty() {
        "NO CLAIMS"
    } else if count(Verdict::Holds) == verdicts.len() {
        "REPRODUCED"
    } else if count(Verdict::Holds) + count(Verdict::HoldsWhereChecked) > 0 {
        "PARTLY"
    } else if count(Verdict::DoesNotHold) > 0 {
        "NOT REPRODUCED"
    } else {
        "UNDECIDED"
    }
}

/// `[docs/papers.md](../docs/papers.md#anchor)` for the first heading of the readings that names
/// spec `name` (as a word: `tensor-sketch-fig2` is not `tensor-sketch-fig2b`); `None` when no
/// heading names it.
pub fn reading_link(root: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(root.join(READINGS)).ok()?;
    let heading = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .find(|l| names(l, name))?;
    let title = heading.trim_start_matches('#').trim();
    Some(format!("[reading](../{READINGS}#{})", anchor(title)))
}

/// Whether `line` has `name` as a whole word (not followed or preceded by a name's character).
fn names(line: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-';
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

/// A heading's anchor as GitHub writes it: lower case, spaces to hyphens, every character other
/// than letters, digits, hyphens and underscores dropped.
fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_in_order() {
        use Verdict::*;
        assert_eq!(label(true, &[Holds]), "STAND-IN");
        assert_eq!(label(false, &[]), "NO CLAIMS");
        assert_eq!(label(false, &[Holds, Holds]), "REPRODUCED");
        assert_eq!(label(false, &[Holds, NotChecked]), "PARTLY");
        assert_eq!(label(false, &[HoldsWhereChecked]), "PARTLY");
        assert_eq!(label(false, &[Holds, DoesNotHold]), "PARTLY");
        assert_eq!(
            label(false, &[DoesNotHold, Indistinguishable]),
            "NOT REPRODUCED"
        );
        assert_eq!(label(false, &[Indistinguishable, NotChecked]), "UNDECIDED");
    }

    #[test]
    fn anchors_and_whole_names() {
        assert_eq!(
            anchor("Pham & Pagh (KDD 2013): `tensor-sketch-fig2`, `tensor-sketch-fig2b`"),
            "pham--pagh-kdd-2013-tensor-sketch-fig2-tensor-sketch-fig2b"
        );
        assert!(names(
            "### A: `tensor-sketch-fig2b`, `x`",
            "tensor-sketch-fig2b"
        ));
        assert!(!names("### A: `tensor-sketch-fig2b`", "tensor-sketch-fig2"));
        assert!(!names("## prff-fig10", "prff-fig1"));
        assert!(names("## prff-fig1 (PRFF)", "prff-fig1"));
    }
}
