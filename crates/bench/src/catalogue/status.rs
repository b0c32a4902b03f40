//! The catalogue's first table: for every paper item (spec), whether it reproduced, with one line
//! of why and a link to where docs/papers.md reads the paper. Computed from the claims' verdicts
//! and the data that ran, never written by hand, so it cannot disagree with the sections below.
//!
//! The status counts only the claims decided on the paper's own data: a claim any of whose cells
//! is on a stand-in (a dataset labelled "stand-in for ...", in any case) is a claim about the
//! stand-in, and gets a line of its own beside the status ([`Status::stand_in`]).
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
    /// The claims decided on stand-in data, counted apart: "2 claim(s) on Fashion-MNIST
    /// (stand-in for MNIST): 2 hold"; `None` when there are none, or when the spec ran only
    /// on stand-ins (its `why` then says it).
    pub stand_in: Option<String>,
}

/// Whether a dataset's label names it a stand-in for the paper's data: the catalogue's
/// convention, "Fashion-MNIST (stand-in for CIFAR-10)", "Adult (OFFLINE STAND-IN for Forest)".
pub fn is_stand_in(label: &str) -> bool {
    label.to_lowercase().contains("stand-in")
}

/// What a spec's deciding runs (its full profile, with the claims a profile of more repetitions
/// of its cells decides in its place: `super::power`) did: the labels of the datasets that ran,
/// the first reason a row did not, its claims' verdicts on the paper's data and their tally, and
/// those on stand-in data apart.
pub struct Evidence<'a> {
    pub datasets_ran: &'a [String],
    pub first_not_run: Option<String>,
    pub verdicts: &'a [Verdict],
    pub tally: &'a str,
    pub stand_in: StandInClaims<'a>,
    pub profile: &'a str,
}

/// The claims decided on stand-in data: how many, their tally, and the stand-ins they are on.
#[derive(Default)]
pub struct StandInClaims<'a> {
    pub count: usize,
    pub tally: &'a str,
    pub datasets: &'a [String],
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
            stand_in: None,
        };
    }
    // The catalogue's convention: a stand-in says so in its label ("Fashion-MNIST (stand-in
    // for CIFAR-10)").
    let stand_ins: Vec<&str> = e
        .datasets_ran
        .iter()
        .filter(|l| is_stand_in(l))
        .map(String::as_str)
        .collect();
    let all_stand_in = stand_ins.len() == e.datasets_ran.len();
    let label = label(all_stand_in, e.verdicts);
    let s = &e.stand_in;
    let why = match label {
        "STAND-IN" if s.tally.is_empty() => format!("ran only on {}", stand_ins.join(", ")),
        "STAND-IN" => format!(
            "ran only on {}; claims on it: {}",
            stand_ins.join(", "),
            s.tally
        ),
        "NO CLAIMS" if s.count > 0 => "no claim on the paper's data is encoded".into(),
        "NO CLAIMS" => "no claim encoded: the paper's numbers stand beside ours".into(),
        _ => format!(
            "{} claim(s) on the paper's data, profile {}: {}",
            e.verdicts.len(),
            e.profile,
            e.tally
        ),
    };
    let stand_in = (s.count > 0 && label != "STAND-IN").then(|| {
        format!(
            "{} claim(s) on {}, not counted in the status: {}",
            s.count,
            s.datasets.join(", "),
            s.tally
        )
    });
    Status {
        label,
        why,
        stand_in,
    }
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

    fn evidence<'a>(
        datasets_ran: &'a [String],
        verdicts: &'a [Verdict],
        stand_in: StandInClaims<'a>,
    ) -> Evidence<'a> {
        Evidence {
            datasets_ran,
            first_not_run: None,
            verdicts,
            tally: "",
            stand_in,
            profile: "full",
        }
    }

    /// random-features-fig3 ran only on "Adult (OFFLINE STAND-IN for Forest)": the label's
    /// case does not make it the paper's data, and its claims are the stand-in's.
    #[test]
    fn a_spec_that_ran_only_on_a_stand_in_is_a_stand_in_whatever_the_case() {
        use Verdict::*;
        let ran = ["Adult (OFFLINE STAND-IN for Forest)".to_string()];
        let status = of(&evidence(
            &ran,
            &[NotChecked, NotChecked],
            StandInClaims {
                count: 2,
                tally: "1 hold, 1 indistinguishable",
                datasets: &ran,
            },
        ));
        assert_eq!(status.label, "STAND-IN");
        assert_eq!(
            status.why,
            "ran only on Adult (OFFLINE STAND-IN for Forest); claims on it: 1 hold, 1 \
             indistinguishable"
        );
        assert_eq!(status.stand_in, None);
    }

    /// tensor-sketch-fig2: three claims hold on the Fashion-MNIST stand-in, the one on MNIST
    /// was not checked (its data needs the network). The status is the paper's data's alone,
    /// and the stand-in's holds get their own line.
    #[test]
    fn claims_on_a_stand_in_do_not_count_toward_the_status() {
        use Verdict::*;
        let ran = [
            "adult".to_string(),
            "Fashion-MNIST (stand-in for MNIST)".to_string(),
        ];
        let on = ["Fashion-MNIST (stand-in for MNIST)".to_string()];
        let stand_in = || StandInClaims {
            count: 3,
            tally: "3 hold",
            datasets: &on,
        };
        let status = of(&evidence(&ran, &[NotChecked], stand_in()));
        assert_eq!(status.label, "UNDECIDED");
        assert_eq!(
            status.stand_in.as_deref(),
            Some("3 claim(s) on Fashion-MNIST (stand-in for MNIST), not counted in the status: 3 hold")
        );
        // One failure on the paper's data beside holds on the stand-in: not PARTLY.
        let status = of(&evidence(&ran, &[DoesNotHold], stand_in()));
        assert_eq!(status.label, "NOT REPRODUCED");
        // Only stand-in claims, on a spec whose paper data ran too.
        let status = of(&evidence(&ran, &[], stand_in()));
        assert_eq!(status.label, "NO CLAIMS");
        assert_eq!(status.why, "no claim on the paper's data is encoded");
        assert!(is_stand_in("Adult (OFFLINE STAND-IN for Forest)"));
        assert!(!is_stand_in("Adult"));
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
