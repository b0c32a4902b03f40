//! `results/SPEC/PROFILE.claims.md`: every claim of a run, its verdict and the pairs that decide it, so
//! that a reader of the repository sees which of a paper's statements hold without rerunning
//! anything, and `rfbench check` can compare the verdicts of a regenerated run.

use std::fmt::Write as _;

use super::claim::ClaimOutcome;
use super::number;
use super::verdict::ALPHA;

/// The heading line of a claim's section: `## N. TEXT`.
pub const SECTION: &str = "\n## ";

/// The line of a section that names the claim's metric, read back by the check.
pub const METRIC: &str = "metric: `";

/// The claims file's text; `csv` names the results it was drawn from, relative to the output
/// folder.
pub fn markdown(title: &str, csv: &str, outcomes: &[ClaimOutcome]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# The paper's claims on our numbers: {title}\n");
    let _ = writeln!(
        out,
        "Written by rfbench from `{csv}` (do not edit: `rfbench render` rewrites \
         it). Each claim pairs cells that differ only in the sides it names; each pair is \
         decided by a t test on the repetitions (paired when both cells shared a random draw at \
         every repetition, i.e. a seed column agrees at each of them; Welch's otherwise), \
         Holm-corrected over the claim's pairs at level {ALPHA}: it holds, does not hold (the \
         other way, significantly), or is indistinguishable. The test follows the wording \
         (each claim's `statement` line): better or worse, a two-sided t test and then the \
         sign; \"k times\", the same on the log scale against log k; not worse, a one-sided \
         non-inferiority test against a stated margin; similar, two one-sided tests (TOST) \
         against a stated margin. The line also gives the smallest effect the tests could \
         detect at 80 % power with these repetitions. A claim about the means themselves \
         (`test = \"means\"`), and a pair with one repetition, is decided on the means. The \
         claim holds when every pair does; it does not hold when any pair does not; where \
         some of its cells were skipped it holds only where checked."
    );
    for (i, o) in outcomes.iter().enumerate() {
        let _ = writeln!(out, "{SECTION}{}. {}\n", i + 1, o.text);
        let _ = writeln!(
            out,
            "{METRIC}{}` · **{}** · {}",
            o.metric,
            o.verdict.label(),
            o.detail
        );
        if !o.statement.is_empty() {
            let _ = writeln!(out, "\n{}", o.statement);
        }
        if o.pairs.is_empty() {
            continue;
        }
        let [left, right] = &o.sides;
        let _ = writeln!(
            out,
            "\n| where | {left} | {right} | margin | test | p (Holm) | pair |\n\
             |---|---|---|---|---|---|---|"
        );
        for p in &o.pairs {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                p.at,
                p.left,
                p.right,
                number(p.margin),
                p.test,
                p.p.map_or("-".to_string(), number),
                p.verdict.label()
            );
        }
    }
    out
}

/// The sections of a claims file, by heading, with the metric each names.
pub fn sections(text: &str) -> Vec<(String, String, String)> {
    text.split(SECTION)
        .skip(1)
        .map(|section| {
            let heading = section.lines().next().unwrap_or("").to_string();
            let metric = section
                .lines()
                .find_map(|l| l.strip_prefix(METRIC))
                .and_then(|rest| rest.split('`').next())
                .unwrap_or("")
                .to_string();
            (heading, metric, section.to_string())
        })
        .collect()
}
