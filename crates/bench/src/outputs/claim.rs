//! `[[claims]]`: a paper's qualitative statement ("TS's error is below RM's at every D") checked
//! on our numbers. The left and right selectors pick two sets of cells; cells pair up when they
//! agree on every other coordinate, and each pair is decided by a test on the repetitions
//! ([`super::verdict`]). A claim that pairs no cells fails ("no cells"): a check that checks
//! nothing is not a pass.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::results::{CellStats, CellValue, Coordinates, Results, Sample, Stats};
use super::slope::{self, Slope};
use super::validate::{Checker, RawSelector};
use super::verdict::{self, Pair, PairVerdict, Relation, Statement, Verdict};
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
    /// What the paper states of left against right, at every pair: "less" / "greater" (left
    /// below / above right), "not-greater" / "not-less" (not above / below by more than
    /// `margin`: "not worse"), "similar" (within `margin` of each other).
    pub relation: Spanned<String>,
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "RawSelector::is_empty"
    )]
    pub filter: RawSelector,
    /// "less": left * factor < right; "greater": left > right * factor. Default 1. The paper's
    /// factor as written ("8x faster"), never lowered.
    pub factor: Option<Spanned<f64>>,
    /// The margin of "not-greater", "not-less" and "similar", in the metric's units (on the
    /// log scale: a log ratio, e.g. 0.1 for about 10 %).
    pub margin: Option<Spanned<f64>>,
    /// "linear" (default) or "log": test the logs of the values, so that a factor is a ratio
    /// ("k times faster" is a test of the log ratio against log k).
    pub scale: Option<Spanned<String>>,
    /// The coordinates a left cell and a right cell must share to be compared; default: every
    /// coordinate the sides do not name. Needed when the sides differ in more than the named
    /// columns (RFF's `n_components` against binning's `n_grids`, a map against `none`): e.g.
    /// `pair_on = ["dataset"]`. Each left cell must then find exactly one right cell.
    pub pair_on: Option<Spanned<Vec<Spanned<String>>>>,
    /// "t" (default): each pair decided by a t test on the repetitions; "means": by the means
    /// alone, for a statement about the means themselves.
    pub test: Option<Spanned<String>>,
    /// A coordinate: the claim compares how the metric grows with it rather than cells, each
    /// side's log-log slope over every row it selects ("quadratic" is a slope of 2;
    /// [`super::slope`]). "less" / "greater" only, with no factor or margin.
    pub slope: Option<Spanned<String>>,
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

pub const RELATIONS: [&str; 5] = ["less", "greater", "not-greater", "not-less", "similar"];

pub const SCALES: [&str; 2] = ["linear", "log"];

pub const TESTS: [&str; 2] = ["t", "means"];

/// A claim's cells paired, notes on the cells left out, and the two sides' names.
struct Paired {
    pairs: Vec<Pair>,
    /// Left cells whose pair was skipped (its data missing here).
    skipped: usize,
    notes: Vec<String>,
    l_name: String,
    r_name: String,
}

/// Each left cell matched with the right cell that shares its pair key: the pairs with values
/// on both sides, and counts of the left cells that make none.
struct Matched {
    pairs: Vec<Pair>,
    /// Left cells without a right cell at their key.
    unpaired: usize,
    /// Pairs with a side skipped here (its data missing).
    skipped: usize,
    /// Pairs with a side that has no values (and was not skipped).
    without_stats: usize,
}

impl Matched {
    fn of(
        left: &[&CellStats],
        right: &BTreeMap<Coordinates, &CellStats>,
        key: &impl Fn(&Coordinates) -> Coordinates,
    ) -> Matched {
        let mut matched = Matched {
            pairs: Vec::new(),
            unpaired: 0,
            skipped: 0,
            without_stats: 0,
        };
        for l in left {
            let at = key(&l.coordinates);
            match right.get(&at) {
                None => matched.unpaired += 1,
                Some(r) => match (l.stats, r.stats) {
                    (Some(a), Some(b)) => matched.pairs.push(Pair {
                        at,
                        left: l.samples.clone(),
                        right: r.samples.clone(),
                        l: a,
                        r: b,
                    }),
                    _ if l.skipped.is_some() || r.skipped.is_some() => matched.skipped += 1,
                    _ => matched.without_stats += 1,
                },
            }
        }
        matched
    }

    /// A note for each kind of left cell left out.
    fn notes(&self, l_name: &str, r_name: &str) -> Vec<String> {
        let plural = |count: usize| if count == 1 { "" } else { "s" };
        let mut notes = Vec::new();
        if self.skipped > 0 {
            notes.push(format!(
                "{} pair{} not checked: skipped (its data is missing here)",
                self.skipped,
                plural(self.skipped)
            ));
        }
        if self.unpaired > 0 {
            notes.push(format!(
                "{} {l_name} cell{} without a {r_name} counterpart",
                self.unpaired,
                plural(self.unpaired)
            ));
        }
        if self.without_stats > 0 {
            notes.push(format!(
                "{} pair{} skipped (no values)",
                self.without_stats,
                plural(self.without_stats)
            ));
        }
        notes
    }
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
    /// The statement kind, its test, factor or margin and scale, and the smallest effect the
    /// tests could detect; empty when nothing was compared.
    pub statement: String,
    /// Every pair: where, the two sides, and how it was decided.
    pub pairs: Vec<PairRow>,
    /// The two sides' names ("TS", "RM"); empty when nothing was paired.
    pub sides: [String; 2],
    /// The smallest and largest ratio of the means over the pairs, "how many times" as the
    /// detail gives it (right/left for "less", left/right for "greater"); `None` when nothing
    /// was paired. The catalogue sets it beside the paper's factor.
    pub ratios: Option<[f64; 2]>,
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
        if let Some(scale) = &self.scale {
            c.one_of(&format!("{key}.scale"), scale, "scale", &SCALES)?;
        }
        if let Some(column) = &self.slope {
            c.coordinate(&format!("{key}.slope"), column)?;
            let directional =
                matches!(self.statement(), Some(Statement::Less | Statement::Greater));
            if !directional || self.factor.is_some() || self.margin.is_some() {
                return Err(c.error(
                    &format!("{key}.slope"),
                    &column.span(),
                    "a slope claim compares the sides' slopes: relation \"less\" or \"greater\", \
                     no factor, no margin",
                ));
            }
        }
        self.validate_margin(c, key)
    }

    /// A margin statement has a positive margin and no factor; a directional one no margin.
    fn validate_margin(&self, c: &Checker, key: &str) -> Result<()> {
        let needs = self.statement().is_some_and(Statement::needs_margin);
        match (&self.margin, needs) {
            (None, true) => Err(c.error(
                &format!("{key}.relation"),
                &self.relation.span(),
                format!(
                    "{:?} needs a margin (`margin = ...`, in the metric's units): how far is \
                     still \"not worse\" or \"similar\"",
                    self.relation.get_ref()
                ),
            )),
            (Some(m), false) => Err(c.error(
                &format!("{key}.margin"),
                &m.span(),
                "a margin belongs to not-greater, not-less and similar; less and greater take a \
                 factor",
            )),
            (Some(m), true) if !(m.get_ref().is_finite() && *m.get_ref() > 0.0) => Err(c.error(
                &format!("{key}.margin"),
                &m.span(),
                format!("must be a positive number, got {}", m.get_ref()),
            )),
            (Some(_), true) if self.factor.is_some() => Err(c.error(
                &format!("{key}.factor"),
                &self.relation.span(),
                "a margin statement takes no factor",
            )),
            _ => Ok(()),
        }
    }

    fn statement(&self) -> Option<Statement> {
        Statement::parse(self.relation.get_ref())
    }

    fn log_scale(&self) -> bool {
        self.scale.as_ref().is_some_and(|s| s.get_ref() == "log")
    }

    /// The claim's relation; on the log scale a factor becomes the offset `ln k`.
    fn relation(&self) -> Relation {
        let factor = self.factor.as_ref().map_or(1.0, |f| *f.get_ref());
        let (factor, offset) = match self.log_scale() {
            true => (1.0, factor.ln()),
            false => (factor, 0.0),
        };
        Relation {
            statement: self.statement().unwrap_or(Statement::Less),
            factor,
            offset,
            margin: self.margin.as_ref().map_or(0.0, |m| *m.get_ref()),
        }
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
        if let Some(column) = &self.slope {
            return self.evaluate_slope(column.get_ref(), results, labels);
        }
        match self.pair_up(results, labels) {
            Ok(paired) => self.verdict(results, paired),
            Err(outcome) => outcome,
        }
    }

    /// A slope claim: each side's log-log slope of the metric in `column` over every row it
    /// selects, the two compared by a t test and then the sign ([`super::slope`]).
    fn evaluate_slope(&self, column: &str, results: &Results, labels: &Labels) -> ClaimOutcome {
        let cells: Vec<_> = results
            .summarise(self.metric.get_ref())
            .into_iter()
            .filter(|c| selects(&c.coordinates, &self.filter))
            .collect();
        let side = |selector: &RawSelector| {
            let chosen: Vec<&CellStats> = cells
                .iter()
                .filter(|c| selects(&c.coordinates, selector))
                .collect();
            let skipped = !chosen.is_empty() && chosen.iter().all(|c| c.stats.is_none());
            let points: Vec<(f64, f64)> = chosen
                .iter()
                .filter_map(|c| Some((c.coordinates.get(column)?.as_number()?, &c.samples)))
                .flat_map(|(x, samples)| samples.iter().map(move |s| (x, s.value)))
                .collect();
            (Slope::log_log(&points), skipped)
        };
        let (left, left_skipped) = side(self.left.get_ref());
        let (right, right_skipped) = side(self.right.get_ref());
        let (Some(l), Some(r)) = (left, right) else {
            return match left_skipped && right_skipped {
                true => self.outcome(Verdict::NotChecked, "not checked: its cells were skipped".into()),
                false => self.outcome(
                    Verdict::DoesNotHold,
                    format!("no slope: a side has fewer than 3 rows with positive {column} and metric, or one value of {column}"),
                ),
            };
        };
        let less = self.statement() == Some(Statement::Less);
        let p = slope::p_value(&l, &r);
        let agrees = if less {
            l.slope < r.slope
        } else {
            l.slope > r.slope
        };
        // A NaN slope or p decides nothing (a "tie" there would be made up).
        let pair = match (p.is_finite(), p < verdict::ALPHA, agrees) {
            (false, _, _) => PairVerdict::Undecided,
            (true, true, true) => PairVerdict::Holds,
            (true, true, false) => PairVerdict::Against,
            (true, false, _) => PairVerdict::Tie,
        };
        let decided = !matches!(pair, PairVerdict::Undecided);
        let (l_name, r_name) = (
            self.side_label(self.left.get_ref(), labels),
            self.side_label(self.right.get_ref(), labels),
        );
        let row = PairRow {
            at: format!("log-log slope in {column}"),
            left: l.describe(),
            right: r.describe(),
            margin: if less {
                r.slope - l.slope
            } else {
                l.slope - r.slope
            },
            test: "Welch t on the slopes",
            p: decided.then_some(p),
            verdict: pair,
        };
        ClaimOutcome {
            text: self.text.clone(),
            metric: self.metric.get_ref().clone(),
            verdict: match pair {
                PairVerdict::Holds => Verdict::Holds,
                PairVerdict::Against => Verdict::DoesNotHold,
                PairVerdict::Tie => Verdict::Indistinguishable,
                PairVerdict::Undecided => Verdict::Undecided,
            },
            detail: format!(
                "{}: slope of ln {} on ln {column} over every row, {l_name} {} against {r_name} {} (p = {})",
                pair.label(),
                self.metric.get_ref(),
                row.left,
                row.right,
                number(p)
            ),
            statement: format!(
                "statement: the left's log-log slope {} the right's (two-sided Welch t on the \
                 slopes, then the sign) at {}",
                if less { "below" } else { "above" },
                verdict::ALPHA
            ),
            pairs: vec![row],
            sides: [l_name, r_name],
            ratios: None,
        }
    }

    /// The left cells paired with the right ones (means of the claim's metric), or the outcome
    /// when there is nothing to compare.
    fn pair_up(
        &self,
        results: &Results,
        labels: &Labels,
    ) -> std::result::Result<Paired, ClaimOutcome> {
        let key = self.pair_key();
        let cells: Vec<_> = results
            .summarise(self.metric.get_ref())
            .into_iter()
            .filter(|c| selects(&c.coordinates, &self.filter))
            .collect();
        let left: Vec<_> = cells
            .iter()
            .filter(|c| selects(&c.coordinates, self.left.get_ref()))
            .collect();
        let right = self.right_by_key(&cells, &key)?;
        let (l_name, r_name) = (
            self.side_label(self.left.get_ref(), labels),
            self.side_label(self.right.get_ref(), labels),
        );
        let matched = Matched::of(&left, &right, &key);
        let notes = matched.notes(&l_name, &r_name);
        if matched.pairs.is_empty() {
            return Err(self.nothing_paired(&left, &right, notes, &l_name, &r_name));
        }
        Ok(Paired {
            pairs: matched.pairs,
            skipped: matched.skipped,
            notes,
            l_name,
            r_name,
        })
    }

    /// The coordinates a left and a right cell must share to pair up: the `pair_on` ones, or
    /// every coordinate the sides do not name.
    fn pair_key(&self) -> impl Fn(&Coordinates) -> Coordinates + '_ {
        let sides: BTreeSet<&String> = self.left.get_ref().keys().map(|k| k.get_ref()).collect();
        let pair_on: Option<BTreeSet<&String>> = self
            .pair_on
            .as_ref()
            .map(|p| p.get_ref().iter().map(|n| n.get_ref()).collect());
        move |k: &Coordinates| -> Coordinates {
            k.iter()
                .filter(|(c, _)| match &pair_on {
                    Some(on) => on.contains(c),
                    None => !sides.contains(c),
                })
                .map(|(c, v)| (c.clone(), v.clone()))
                .collect()
        }
    }

    /// The right cells by their pair key; the outcome when two share one.
    fn right_by_key<'c>(
        &self,
        cells: &'c [CellStats],
        key: &impl Fn(&Coordinates) -> Coordinates,
    ) -> std::result::Result<BTreeMap<Coordinates, &'c CellStats>, ClaimOutcome> {
        let mut right = BTreeMap::new();
        let mut ambiguous = 0;
        for c in cells
            .iter()
            .filter(|c| selects(&c.coordinates, self.right.get_ref()))
        {
            if right.insert(key(&c.coordinates), c).is_some() {
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
        Ok(right)
    }

    /// The outcome of a claim that paired no cells with values on both sides: not checked when
    /// every cell of both sides was skipped here, else "no cells", with the notes.
    fn nothing_paired(
        &self,
        left: &[&CellStats],
        right: &BTreeMap<Coordinates, &CellStats>,
        notes: Vec<String>,
        l_name: &str,
        r_name: &str,
    ) -> ClaimOutcome {
        let candidates: Vec<_> = left
            .iter()
            .copied()
            .chain(right.values().copied())
            .collect();
        if !left.is_empty()
            && !right.is_empty()
            && candidates
                .iter()
                .all(|c| c.stats.is_none() && c.skipped.is_some())
        {
            return self.outcome(
                Verdict::NotChecked,
                format!(
                    "not checked: all {} of its cells were skipped (see the skipped cells below)",
                    candidates.len()
                ),
            );
        }
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
        self.outcome(Verdict::DoesNotHold, detail)
    }

    /// An outcome with no pairs to list.
    fn outcome(&self, verdict: Verdict, detail: String) -> ClaimOutcome {
        ClaimOutcome {
            text: self.text.clone(),
            metric: self.metric.get_ref().clone(),
            verdict,
            detail,
            statement: String::new(),
            pairs: Vec::new(),
            sides: Default::default(),
            ratios: None,
        }
    }

    /// Each pair decided, the tally, the range of the ratios, and the pairs that do not hold.
    fn verdict(&self, results: &Results, paired: Paired) -> ClaimOutcome {
        let Paired {
            pairs,
            skipped,
            notes,
            l_name,
            r_name,
        } = paired;
        let relation = self.relation();
        let means_only = self.test.as_ref().is_some_and(|t| t.get_ref() == "means");
        let tested = match self.log_scale() {
            true => match log_pairs(pairs.clone()) {
                Ok(logs) => logs,
                Err(detail) => return self.outcome(Verdict::DoesNotHold, detail),
            },
            false => pairs.clone(),
        };
        let decided = verdict::decide(&tested, relation, means_only);
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
        let verdict = match verdict::verdict(&decided) {
            Verdict::Holds if skipped > 0 => {
                detail = format!(
                    "checked on {} of {} pairs (the rest skipped): {detail}",
                    pairs.len(),
                    pairs.len() + skipped
                );
                Verdict::HoldsWhereChecked
            }
            v => v,
        };
        ClaimOutcome {
            text: self.text.clone(),
            metric: self.metric.get_ref().clone(),
            verdict,
            detail,
            statement: self.statement_line(relation, &decided),
            ratios: ratios(&pairs, relation),
            pairs: rows,
            sides: [l_name, r_name],
        }
    }

    /// "statement: left < right (two-sided t, then the sign); factor 8 on the log scale; Holm
    /// over 9 pairs at 0.05; smallest effect detectable at 80 % power: 0.1 to 0.3 (log units)".
    fn statement_line(&self, relation: Relation, decided: &[verdict::Decided]) -> String {
        let mut text = format!("statement: {}", relation.statement.describe());
        if decided.iter().any(|d| d.detectable.is_some()) {
            text.push_str(&format!(" ({})", relation.statement.test()));
        }
        if let Some(f) = &self.factor {
            text.push_str(&format!("; factor {}", number(*f.get_ref())));
        }
        if let Some(m) = &self.margin {
            text.push_str(&format!("; margin {}", number(*m.get_ref())));
        }
        let units = match self.log_scale() {
            true => {
                text.push_str("; on the log scale (ratios)");
                " (log units)"
            }
            false => "",
        };
        let detectable: Vec<f64> = decided.iter().filter_map(|d| d.detectable).collect();
        if detectable.is_empty() {
            text.push_str("; decided on the means (no test)");
            return text;
        }
        let lo = detectable.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = detectable.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        text.push_str(&format!(
            "; Holm over {} pair(s) at {}; smallest effect detectable at {} % power: {}{}{units}",
            decided.len(),
            verdict::ALPHA,
            verdict::POWER * 100.0,
            number(lo),
            if hi > lo {
                format!(" to {}", number(hi))
            } else {
                String::new()
            }
        ));
        text
    }
}

/// The pairs with every value replaced by its natural log (the log scale); an error naming a
/// value that has none.
fn log_pairs(pairs: Vec<Pair>) -> std::result::Result<Vec<Pair>, String> {
    let log = |samples: Vec<Sample>| -> std::result::Result<Vec<Sample>, String> {
        samples
            .into_iter()
            .map(|mut s| match s.value > 0.0 {
                true => {
                    s.value = s.value.ln();
                    Ok(s)
                }
                false => Err(format!(
                    "the log scale needs positive values, and one is {}",
                    s.value
                )),
            })
            .collect()
    };
    pairs
        .into_iter()
        .map(|p| {
            let (left, right) = (log(p.left)?, log(p.right)?);
            let stats = |s: &[Sample]| {
                Stats::of(&s.iter().map(|x| x.value).collect::<Vec<_>>())
                    .ok_or_else(|| "no values".to_string())
            };
            Ok(Pair {
                l: stats(&left)?,
                r: stats(&right)?,
                at: p.at,
                left,
                right,
            })
        })
        .collect()
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

/// A pair's ratio of the means, "how many times": right/left for "less" and "not-greater",
/// left/right otherwise.
fn ratio(p: &Pair, relation: Relation) -> f64 {
    match relation.statement {
        Statement::Less | Statement::NotGreater => p.r.mean / p.l.mean,
        _ => p.l.mean / p.r.mean,
    }
}

/// The smallest and largest [`ratio`] over `pairs`; `None` for no pairs.
fn ratios(pairs: &[Pair], relation: Relation) -> Option<[f64; 2]> {
    let all = pairs.iter().map(|p| ratio(p, relation));
    let lo = all.clone().min_by(f64::total_cmp)?;
    let hi = all.max_by(f64::total_cmp)?;
    Some([lo, hi])
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
    let less = matches!(relation.statement, Statement::Less | Statement::NotGreater);
    let ratio = |p: &Pair| ratio(p, relation);
    let name = if less {
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
