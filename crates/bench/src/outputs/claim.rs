//! `[[claims]]`: a paper's qualitative statement ("TS's error is below RM's at every D") checked
//! on our numbers. The left and right selectors pick two sets of cells; cells pair up when they
//! agree on every other coordinate, and each pair is decided by a test on the repetitions
//! ([`super::verdict`]). A claim that pairs no cells fails ("no cells"): a check that checks
//! nothing is not a pass.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::results::{CellValue, Coordinates, Results, Stats};
use super::validate::{Checker, RawSelector};
use super::verdict::{self, Pair, PairVerdict, Relation, Verdict};
use super::{
    describe, describe_selector, number, selects, CellProblem, Drawing, Labels, Output,
    RenderContext,
};
use crate::error::Result;

/// One `[[claims]]` entry as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawClaim {
    /// The statement, as the paper makes it.
    pub text: String,
    pub metric: Spanned<String>,
    pub left: Spanned<RawSelector>,
    /// Must name the same columns as `left`.
    pub right: Spanned<RawSelector>,
    /// "less": left < right; "greater": left > right (at every pair).
    pub relation: Spanned<String>,
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "RawSelector::is_empty"
    )]
    pub filter: RawSelector,
    /// "less": left * factor < right; "greater": left > right * factor. Default 1.
    pub factor: Option<Spanned<f64>>,
    /// The coordinates a left cell and a right cell must share to be compared; default: every
    /// coordinate the sides do not name. Needed when the sides differ in more than the named
    /// columns (RFF's `n_components` against binning's `n_grids`, a map against `none`): e.g.
    /// `pair_on = ["dataset"]`. Each left cell must then find exactly one right cell.
    pub pair_on: Option<Spanned<Vec<Spanned<String>>>>,
    /// "t" (default): each pair decided by a t test on the repetitions; "means": by the means
    /// alone, for a statement about the means themselves.
    pub test: Option<Spanned<String>>,
    /// The profiles that draw this output (`"full"`, `"quick"`, a named one); default: every
    /// profile.
    #[serde(default)]
    pub profiles: Option<Spanned<Vec<String>>>,
}

impl Output for RawClaim {
    fn section(&self) -> &'static str {
        "claims"
    }

    fn span(&self) -> Range<usize> {
        self.left.span()
    }

    fn profiles(&self) -> Option<&Spanned<Vec<String>>> {
        self.profiles.as_ref()
    }

    fn validate(&self, c: &Checker, key: &str) -> Result<()> {
        self.validate_columns(c, key)
    }

    /// A side that selects no cell with the claim's `where` (a typo, a value of another
    /// profile: limit the claim with `profiles`).
    fn cell_problem(&self, cells: &[Coordinates], profile: &str) -> Option<CellProblem> {
        for (side, selector) in [("left", &self.left), ("right", &self.right)] {
            let found = cells
                .iter()
                .any(|k| selects(k, &self.filter) && selects(k, selector.get_ref()));
            if found {
                continue;
            }
            let mut both = self.filter.clone();
            both.extend(selector.get_ref().clone());
            return Some(CellProblem {
                field: side.into(),
                span: selector.span(),
                message: format!(
                    "{} matches no cell of the {profile} profile's grid (a claim of another \
                     profile only: `profiles = [...]`)",
                    describe_selector(&both)
                ),
            });
        }
        None
    }

    /// Decided here; the claims file is written from every claim's outcome at the end.
    fn render(
        &self,
        _key: &str,
        results: &Results,
        ctx: &RenderContext,
        drawing: &mut Drawing<'_>,
    ) -> Result<()> {
        drawing.claims.push(self.evaluate(results, &ctx.labels));
        Ok(())
    }
}

pub const RELATIONS: [&str; 2] = ["less", "greater"];

pub const TESTS: [&str; 2] = ["t", "means"];

/// A claim's cells paired, notes on the cells left out, and the two sides' names.
struct Paired {
    pairs: Vec<Pair>,
    notes: Vec<String>,
    l_name: String,
    r_name: String,
}

/// A claim checked on our numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimOutcome {
    pub text: String,
    pub metric: String,
    /// Only [`Verdict::Holds`] says it holds: a claim is only said to hold on numbers.
    pub verdict: Verdict,
    /// The tally and the ratio's range, or where it fails; or why nothing was compared.
    pub detail: String,
    /// Every pair: where, the two sides, and how it was decided.
    pub pairs: Vec<PairRow>,
    /// The two sides' names ("TS", "RM"); empty when nothing was paired.
    pub sides: [String; 2],
}

impl ClaimOutcome {
    pub fn holds(&self) -> bool {
        self.verdict == Verdict::Holds
    }
}

/// One pair of a claim, as the claims file lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct PairRow {
    pub at: String,
    pub left: String,
    pub right: String,
    pub margin: f64,
    pub test: &'static str,
    pub p: Option<f64>,
    pub verdict: PairVerdict,
}

/// At most this many failing pairs are listed in a claim's detail.
const LISTED_FAILURES: usize = 5;

impl RawClaim {
    fn validate_columns(&self, c: &Checker, key: &str) -> Result<()> {
        c.metric(&format!("{key}.metric"), &self.metric)?;
        for (side, selector) in [("left", &self.left), ("right", &self.right)] {
            let k = format!("{key}.{side}");
            if selector.get_ref().is_empty() {
                return Err(c.error(&k, &selector.span(), "selects every cell; name a column"));
            }
            c.selector(&k, selector.get_ref())?;
        }
        let columns = |s: &Spanned<RawSelector>| -> BTreeSet<String> {
            s.get_ref().keys().map(|k| k.get_ref().clone()).collect()
        };
        if columns(&self.left) != columns(&self.right) {
            return Err(c.error(
                &format!("{key}.right"),
                &self.right.span(),
                format!(
                    "names the columns {:?} but left names {:?}; both sides must name the same \
                     columns, so that cells pair up on all the others",
                    columns(&self.right),
                    columns(&self.left)
                ),
            ));
        }
        c.one_of(
            &format!("{key}.relation"),
            &self.relation,
            "relation",
            &RELATIONS,
        )?;
        if let Some(test) = &self.test {
            c.one_of(&format!("{key}.test"), test, "test", &TESTS)?;
        }
        c.selector(&format!("{key}.where"), &self.filter)?;
        if let Some(pair_on) = &self.pair_on {
            for name in pair_on.get_ref() {
                c.coordinate(&format!("{key}.pair_on"), name)?;
            }
        }
        if let Some(factor) = &self.factor {
            let f = *factor.get_ref();
            if !(f.is_finite() && f > 0.0) {
                return Err(c.error(
                    &format!("{key}.factor"),
                    &factor.span(),
                    format!("must be a positive number, got {f}"),
                ));
            }
        }
        Ok(())
    }

    fn side_label(&self, selector: &RawSelector, labels: &Labels) -> String {
        selector
            .iter()
            .map(|(k, v)| {
                let value = CellValue::from_selector(v.get_ref());
                labels.label(k.get_ref(), &value)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Checks the claim on `results`.
    pub fn evaluate(&self, results: &Results, labels: &Labels) -> ClaimOutcome {
        match self.pair_up(results, labels) {
            Ok(paired) => self.verdict(results, paired),
            Err(outcome) => outcome,
        }
    }

    /// The left cells paired with the right ones (means of the claim's metric), or the outcome
    /// when there is nothing to compare.
    fn pair_up(
        &self,
        results: &Results,
        labels: &Labels,
    ) -> std::result::Result<Paired, ClaimOutcome> {
        let sides: BTreeSet<&String> = self.left.get_ref().keys().map(|k| k.get_ref()).collect();
        let pair_on: Option<BTreeSet<&String>> = self
            .pair_on
            .as_ref()
            .map(|p| p.get_ref().iter().map(|n| n.get_ref()).collect());
        let rest = |k: &Coordinates| -> Coordinates {
            k.iter()
                .filter(|(c, _)| match &pair_on {
                    Some(on) => on.contains(c),
                    None => !sides.contains(c),
                })
                .map(|(c, v)| (c.clone(), v.clone()))
                .collect()
        };
        let cells: Vec<_> = results
            .summarise(self.metric.get_ref())
            .into_iter()
            .filter(|c| selects(&c.coordinates, &self.filter))
            .collect();
        let left: Vec<_> = cells
            .iter()
            .filter(|c| selects(&c.coordinates, self.left.get_ref()))
            .collect();
        let mut right: BTreeMap<Coordinates, _> = BTreeMap::new();
        let mut ambiguous = 0;
        for c in cells
            .iter()
            .filter(|c| selects(&c.coordinates, self.right.get_ref()))
        {
            if right.insert(rest(&c.coordinates), c).is_some() {
                ambiguous += 1;
            }
        }
        if ambiguous > 0 {
            return Err(self.outcome(
                Verdict::DoesNotHold,
                format!(
                    "ambiguous: {ambiguous} right-hand cells share their pair_on coordinates \
                     with another; narrow the claim's `where` or `right`"
                ),
            ));
        }
        let (l_name, r_name) = (
            self.side_label(self.left.get_ref(), labels),
            self.side_label(self.right.get_ref(), labels),
        );

        let mut pairs: Vec<Pair> = Vec::new();
        let mut without_stats = 0;
        let mut unpaired = 0;
        for l in &left {
            let at = rest(&l.coordinates);
            match right.get(&at) {
                None => unpaired += 1,
                Some(r) => match (l.stats, r.stats) {
                    (Some(a), Some(b)) => pairs.push(Pair {
                        at,
                        left: l.samples.clone(),
                        right: r.samples.clone(),
                        l: a,
                        r: b,
                    }),
                    _ => without_stats += 1,
                },
            }
        }
        let mut notes = Vec::new();
        if unpaired > 0 {
            notes.push(format!(
                "{unpaired} {l_name} cell{} without a {r_name} counterpart",
                if unpaired == 1 { "" } else { "s" }
            ));
        }
        if without_stats > 0 {
            notes.push(format!(
                "{without_stats} pair{} skipped (no values)",
                if without_stats == 1 { "" } else { "s" }
            ));
        }
        let candidates: Vec<_> = left
            .iter()
            .copied()
            .chain(right.values().copied())
            .collect();
        if pairs.is_empty()
            && !left.is_empty()
            && !right.is_empty()
            && candidates
                .iter()
                .all(|c| c.stats.is_none() && c.skipped.is_some())
        {
            return Err(self.outcome(
                Verdict::NotChecked,
                format!(
                    "not checked: all {} of its cells were skipped (see the skipped cells below)",
                    candidates.len()
                ),
            ));
        }
        if pairs.is_empty() {
            let mut detail = format!(
                "no cells: {} {l_name} cells and {} {r_name} cells{}, none paired with values",
                left.len(),
                right.len(),
                if self.filter.is_empty() {
                    String::new()
                } else {
                    format!(" where {}", describe_selector(&self.filter))
                }
            );
            for n in notes {
                detail.push_str("; ");
                detail.push_str(&n);
            }
            return Err(self.outcome(Verdict::DoesNotHold, detail));
        }

        Ok(Paired {
            pairs,
            notes,
            l_name,
            r_name,
        })
    }

    /// An outcome with no pairs to list.
    fn outcome(&self, verdict: Verdict, detail: String) -> ClaimOutcome {
        ClaimOutcome {
            text: self.text.clone(),
            metric: self.metric.get_ref().clone(),
            verdict,
            detail,
            pairs: Vec::new(),
            sides: Default::default(),
        }
    }

    /// Each pair decided, the tally, the range of the ratios, and the pairs that do not hold.
    fn verdict(&self, results: &Results, paired: Paired) -> ClaimOutcome {
        let Paired {
            pairs,
            notes,
            l_name,
            r_name,
        } = paired;
        let relation = Relation {
            less: self.relation.get_ref() == "less",
            factor: self.factor.as_ref().map_or(1.0, |f| *f.get_ref()),
        };
        let means_only = self.test.as_ref().is_some_and(|t| t.get_ref() == "means");
        let decided = verdict::decide(&pairs, relation, means_only);
        let at = where_of(results, self, &pairs);
        let rows: Vec<PairRow> = pairs
            .iter()
            .zip(&decided)
            .map(|(p, d)| PairRow {
                at: at(&p.at),
                left: spread(&p.l),
                right: spread(&p.r),
                margin: d.margin,
                test: d.test,
                p: d.p,
                verdict: d.verdict,
            })
            .collect();
        let mut detail = verdict::tally(&decided);
        let listed: Vec<String> = rows
            .iter()
            .filter(|r| r.verdict != PairVerdict::Holds)
            .take(LISTED_FAILURES)
            .map(|r| {
                format!(
                    "{}: {l_name} {}, {r_name} {} ({}{})",
                    r.at,
                    r.left,
                    r.right,
                    r.verdict.label(),
                    r.p.map_or(String::new(), |p| format!(", p = {}", number(p)))
                )
            })
            .collect();
        if !listed.is_empty() {
            let more = rows
                .iter()
                .filter(|r| r.verdict != PairVerdict::Holds)
                .count()
                > LISTED_FAILURES;
            detail.push_str(&format!(
                ": {}{}",
                listed.join("; "),
                if more { "; ..." } else { "" }
            ));
        }
        detail.push_str(&format!(
            "; {}",
            ratio_range(&pairs, relation, &l_name, &r_name, &at)
        ));
        for n in notes {
            detail.push_str("; ");
            detail.push_str(&n);
        }
        ClaimOutcome {
            text: self.text.clone(),
            metric: self.metric.get_ref().clone(),
            verdict: verdict::verdict(&decided),
            detail,
            pairs: rows,
            sides: [l_name, r_name],
        }
    }
}

/// "0.1171 ± 0.0640 (n = 3)".
fn spread(s: &Stats) -> String {
    if s.count < 2 {
        return format!("{} (n = 1)", number(s.mean));
    }
    format!("{} ± {} (n = {})", number(s.mean), number(s.sd), s.count)
}

/// Where a pair is: the coordinates that differ between the claim's pairs ("the only pair"
/// when there is one).
fn where_of<'a>(
    results: &'a Results,
    claim: &RawClaim,
    pairs: &[Pair],
) -> impl Fn(&Coordinates) -> String + 'a {
    let sides: BTreeSet<&String> = claim.left.get_ref().keys().map(|k| k.get_ref()).collect();
    let varying: Vec<String> = results
        .columns
        .coordinates
        .iter()
        .filter(|c| !sides.contains(c) && pairs[0].at.contains_key(*c))
        .filter(|c| {
            pairs
                .iter()
                .map(|p| &p.at[*c])
                .collect::<BTreeSet<_>>()
                .len()
                > 1
        })
        .cloned()
        .collect();
    move |k: &Coordinates| {
        if varying.is_empty() {
            "the only pair".to_string()
        } else {
            describe(&varying, k)
        }
    }
}

/// The effect size as the ratio of the means ("how many times": right/left for "less",
/// left/right for "greater"), its smallest and largest over the pairs and where.
fn ratio_range(
    pairs: &[Pair],
    relation: Relation,
    l_name: &str,
    r_name: &str,
    at: &dyn Fn(&Coordinates) -> String,
) -> String {
    let ratio = |p: &Pair| {
        if relation.less {
            p.r.mean / p.l.mean
        } else {
            p.l.mean / p.r.mean
        }
    };
    let name = if relation.less {
        format!("{r_name}/{l_name}")
    } else {
        format!("{l_name}/{r_name}")
    };
    let lowest = pairs.iter().min_by(|a, b| ratio(a).total_cmp(&ratio(b)));
    let highest = pairs.iter().max_by(|a, b| ratio(a).total_cmp(&ratio(b)));
    match (lowest, highest) {
        (Some(lo), Some(hi)) => format!(
            "{name} ratio {}x ({}) to {}x ({})",
            number(ratio(lo)),
            at(&lo.at),
            number(ratio(hi)),
            at(&hi.at)
        ),
        _ => String::new(),
    }
}
