//! `[[claims]]`: a paper's qualitative statement ("TS's error is below RM's at every D") checked
//! on our numbers. The left and right selectors pick two sets of cells; cells pair up when they
//! agree on every other coordinate, and the relation must hold between the means of every pair.
//! A claim that pairs no cells fails ("no cells"): a check that checks nothing is not a pass.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;

use super::results::{CellValue, Coordinates, Results};
use super::validate::{Checker, RawSelector};
use super::{describe, describe_selector, number, selects, Labels};
use crate::error::Result;

/// One `[[claims]]` entry as written.
#[derive(Debug, Clone, Deserialize)]
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
    #[serde(default, rename = "where")]
    pub filter: RawSelector,
    /// "less": left * factor < right; "greater": left > right * factor. Default 1.
    pub factor: Option<Spanned<f64>>,
    /// The coordinates a left cell and a right cell must share to be compared; default: every
    /// coordinate the sides do not name. Needed when the sides differ in more than the named
    /// columns (RFF's `n_components` against binning's `n_grids`, a map against `none`): e.g.
    /// `pair_on = ["dataset"]`. Each left cell must then find exactly one right cell.
    pub pair_on: Option<Spanned<Vec<Spanned<String>>>>,
    /// The profiles that draw this output (`"full"`, `"quick"`, a named one); default: every
    /// profile.
    #[serde(default)]
    pub profiles: Option<Spanned<Vec<String>>>,
}

impl super::PerProfile for RawClaim {
    fn profiles(&self) -> Option<&Spanned<Vec<String>>> {
        self.profiles.as_ref()
    }
}

pub const RELATIONS: [&str; 2] = ["less", "greater"];

/// A claim's cells paired: (other coordinates, left mean, right mean), notes on the cells left
/// out, and the two sides' names.
struct Paired {
    pairs: Vec<(Coordinates, f64, f64)>,
    notes: Vec<String>,
    l_name: String,
    r_name: String,
}

/// A claim checked on our numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimOutcome {
    pub text: String,
    pub holds: bool,
    /// Not checked here: every cell it compares was skipped (its data needs the network, say).
    /// `holds` is false: a claim is only said to hold on numbers.
    pub skipped: bool,
    /// How it holds (the ratio's range and where) or where it fails.
    pub detail: String,
}

/// At most this many failing pairs are listed in a claim's detail.
const LISTED_FAILURES: usize = 5;

impl RawClaim {
    pub(super) fn validate(&self, c: &Checker, key: &str) -> Result<()> {
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
            return Err(ClaimOutcome {
                text: self.text.clone(),
                holds: false,
                skipped: false,
                detail: format!(
                    "ambiguous: {ambiguous} right-hand cells share their pair_on coordinates \
                     with another; narrow the claim's `where` or `right`"
                ),
            });
        }
        let (l_name, r_name) = (
            self.side_label(self.left.get_ref(), labels),
            self.side_label(self.right.get_ref(), labels),
        );

        // (other coordinates, left mean, right mean)
        let mut pairs: Vec<(Coordinates, f64, f64)> = Vec::new();
        let mut without_stats = 0;
        let mut unpaired = 0;
        for l in &left {
            let at = rest(&l.coordinates);
            match right.get(&at) {
                None => unpaired += 1,
                Some(r) => match (l.stats, r.stats) {
                    (Some(a), Some(b)) => pairs.push((at, a.mean, b.mean)),
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
            return Err(ClaimOutcome {
                text: self.text.clone(),
                holds: false,
                skipped: true,
                detail: format!(
                    "not checked: all {} of its cells were skipped (see the skipped cells below)",
                    candidates.len()
                ),
            });
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
            return Err(ClaimOutcome {
                text: self.text.clone(),
                holds: false,
                skipped: false,
                detail,
            });
        }

        Ok(Paired {
            pairs,
            notes,
            l_name,
            r_name,
        })
    }

    /// Whether the relation holds at every pair, with the range of the margins.
    fn verdict(&self, results: &Results, paired: Paired) -> ClaimOutcome {
        let Paired {
            pairs,
            notes,
            l_name,
            r_name,
        } = paired;
        let less = self.relation.get_ref() == "less";
        let factor = self.factor.as_ref().map_or(1.0, |f| *f.get_ref());
        let sides: BTreeSet<&String> = self.left.get_ref().keys().map(|k| k.get_ref()).collect();
        // Only the coordinates that differ between pairs say where a pair is.
        let varying: Vec<String> = results
            .columns
            .coordinates
            .iter()
            .filter(|c| !sides.contains(c) && pairs[0].0.contains_key(*c))
            .filter(|c| {
                pairs
                    .iter()
                    .map(|p| &p.0[*c])
                    .collect::<BTreeSet<_>>()
                    .len()
                    > 1
            })
            .cloned()
            .collect();
        let at = |k: &Coordinates| {
            if varying.is_empty() {
                "the only pair".to_string()
            } else {
                describe(&varying, k)
            }
        };
        let holds_at = |l: f64, r: f64| {
            if less {
                l * factor < r
            } else {
                l > r * factor
            }
        };
        // The margin, as "how many times": right/left for "less", left/right for "greater".
        let ratio = |l: f64, r: f64| if less { r / l } else { l / r };
        let failures: Vec<&(Coordinates, f64, f64)> =
            pairs.iter().filter(|(_, l, r)| !holds_at(*l, *r)).collect();
        let ratio_name = if less {
            format!("{r_name}/{l_name}")
        } else {
            format!("{l_name}/{r_name}")
        };
        let (lowest, highest) = pairs.iter().fold((&pairs[0], &pairs[0]), |(lo, hi), p| {
            let v = ratio(p.1, p.2);
            (
                if v < ratio(lo.1, lo.2) { p } else { lo },
                if v > ratio(hi.1, hi.2) { p } else { hi },
            )
        });
        let range = format!(
            "{ratio_name} ratio {}x ({}) to {}x ({})",
            number(ratio(lowest.1, lowest.2)),
            at(&lowest.0),
            number(ratio(highest.1, highest.2)),
            at(&highest.0)
        );
        let mut detail = if failures.is_empty() {
            format!("at all {} pairs; {range}", pairs.len())
        } else {
            let listed: Vec<String> = failures
                .iter()
                .take(LISTED_FAILURES)
                .map(|(k, l, r)| {
                    format!(
                        "{}: {l_name} {}, {r_name} {}",
                        at(k),
                        number(*l),
                        number(*r)
                    )
                })
                .collect();
            format!(
                "fails at {} of {} pairs: {}{}; {range}",
                failures.len(),
                pairs.len(),
                listed.join("; "),
                if failures.len() > LISTED_FAILURES {
                    "; ..."
                } else {
                    ""
                }
            )
        };
        for n in notes {
            detail.push_str("; ");
            detail.push_str(&n);
        }
        ClaimOutcome {
            text: self.text.clone(),
            holds: failures.is_empty(),
            skipped: false,
            detail,
        }
    }
}
