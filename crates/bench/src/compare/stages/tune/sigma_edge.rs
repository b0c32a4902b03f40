//! Part of stage `tune`: where tuning chose the smallest bandwidth it tried (0.25 times the
//! median distance) for the exact machine or the maps, the bandwidth is searched below it too
//! (`tune-sigma-edge.toml`: the tuning run again, on the same rows and splits, with the
//! bandwidths [`BELOW_THE_EDGE`] and the edge itself), if tuning's share of the budget allows.
//! On 20,000 rows of 16 features and 26 classes, the exact machine chose that edge where
//! scikit-learn's grid search chose a bandwidth below it.

use crate::compare::chosen::{chosen, Chosen};
use crate::compare::setup::Setup;
use crate::compare::specs::Written;
use crate::compare::state::{read, run_spec, State};
use crate::error::Result;
use crate::results::ResultRow;
use rfbench_registry::kinds::column;

/// The bandwidths tried below the smallest of the usual ones, as multiples of the median
/// distance (the usual ones: 0.25 to 4).
pub const BELOW_THE_EDGE: [f64; 2] = [0.0625, 0.125];

/// How much longer a tuning cell takes below the edge than at the usual bandwidths, for the
/// estimate: a narrower kernel keeps more support vectors.
const SLOWER: f64 = 2.0;

/// Which tuned bandwidths sit at the bottom of the range: the maps', the exact machine's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtTheBottom {
    pub maps: bool,
    pub exact: bool,
}

impl AtTheBottom {
    /// Where `chosen`'s bandwidths are the smallest of `setup`'s candidates (in every
    /// repetition: a geometric mean over repetitions is the edge only then). Nothing when the
    /// bandwidth was given or the kernel has none.
    pub fn of(setup: &Setup, chosen: &Chosen) -> AtTheBottom {
        let bottom = match (setup.median, setup.sigmas.as_slice()) {
            (Some(_), [first, _, ..]) => Some(*first),
            _ => None,
        };
        let at = |sigma: Option<f64>| match (bottom, sigma) {
            (Some(b), Some(s)) => s <= b * (1.0 + 1e-9),
            _ => false,
        };
        AtTheBottom {
            maps: at(chosen.tuned.sigma),
            exact: at(chosen.tuned.exact_sigma),
        }
    }

    fn any(self) -> bool {
        self.maps || self.exact
    }
}

/// The bandwidth candidates of the search below the edge: [`BELOW_THE_EDGE`] and the edge.
fn candidates(setup: &Setup) -> Option<Vec<f64>> {
    let median = setup.median?;
    let edge = *setup.sigmas.first()?;
    let mut values: Vec<f64> = BELOW_THE_EDGE.iter().map(|f| f * median).collect();
    values.push(edge);
    Some(values)
}

/// Runs the search below the edge (the tuning run's spec from `tuning`) where a bandwidth sits
/// there and its estimate (the tuning run's time, scaled by the candidates and [`SLOWER`]) fits
/// `left` seconds; replaces the choices that were at the edge by the search's and
/// `setup.sigmas` by every value tried, or says why it did not run.
pub fn search(
    state: &mut State,
    chosen: &mut Chosen,
    (earlier, rows, left): (&[ResultRow], usize, f64),
    tuning: impl Fn(&Setup, &str, usize) -> Result<Written>,
) -> Result<()> {
    let bottom = AtTheBottom::of(&state.setup, chosen);
    let Some(values) = candidates(&state.setup).filter(|_| bottom.any()) else {
        return Ok(());
    };
    let seconds: f64 = earlier
        .iter()
        .filter_map(|r| Some(r.metric(column::TRAIN_SECONDS)? + r.metric(column::PREDICT_SECONDS)?))
        .sum();
    let estimate = SLOWER * seconds * values.len() as f64 / state.setup.sigmas.len() as f64;
    let who = match (bottom.maps, bottom.exact) {
        (true, true) => "the maps' and the exact machine's",
        (true, false) => "the maps'",
        _ => "the exact machine's",
    };
    if estimate > left {
        chosen.warnings.push(format!(
            "{who} sigma is the smallest tried (0.25 x the median distance): a search below it \
             ({} x the median) was estimated at {estimate:.0} s, {:.0} s of tuning's share left",
            list(&BELOW_THE_EDGE),
            left.max(0.0)
        ));
        return Ok(());
    }
    state.progress.say(&format!(
        "{who} sigma is the smallest tried: trying {} x the median too (tune-sigma-edge.toml)",
        list(&BELOW_THE_EDGE)
    ));
    let below = Setup {
        sigmas: values,
        ..state.setup.clone()
    };
    let spec = tuning(&below, "tune-sigma-edge", rows)?;
    let outcome = run_spec(&state.out, "tune-sigma-edge", &spec, &state.run, &[])?;
    let found = chosen_below(&below, &read(&outcome)?.rows)?;
    adopt(&state.setup, chosen, &found, bottom, &below.sigmas);
    let mut sigmas = below.sigmas;
    sigmas.extend(state.setup.sigmas.iter().skip(1));
    state.setup.sigmas = sigmas;
    Ok(())
}

/// What the search below the edge chose, without the bandwidth warnings its own top would
/// raise (the top is the usual range's bottom, already beaten from above; its bottom gets
/// [`adopt`]'s own warning).
fn chosen_below(below: &Setup, rows: &[ResultRow]) -> Result<Chosen> {
    let mut found = chosen(below, rows)?;
    found.warnings.retain(|w| !w.starts_with("sigma = "));
    Ok(found)
}

/// Whose warning `w` is: the maps' learner's (`maps`) or the exact machine's.
fn about(w: &str, setup: &Setup, maps: bool) -> bool {
    match maps {
        true => w.contains(&format!("(with {})", setup.learner.name)),
        false => {
            w.contains(&format!("(with {})", setup.exact_learner.name))
                || w.starts_with("the exact machine's")
        }
    }
}

/// Takes `found`'s values (and warnings) for the sides whose bandwidth was at the bottom, keeps
/// the others', and warns where a new choice is the smallest of `values` again.
fn adopt(setup: &Setup, chosen: &mut Chosen, found: &Chosen, bottom: AtTheBottom, values: &[f64]) {
    if bottom.maps {
        chosen.tuned.sigma = found.tuned.sigma;
        chosen.tuned.penalty = found.tuned.penalty;
    }
    if bottom.exact {
        chosen.tuned.exact_sigma = found.tuned.exact_sigma;
        chosen.tuned.exact_penalty = found.tuned.exact_penalty;
    }
    let replaced = |w: &String| {
        (bottom.maps && about(w, setup, true)) || (bottom.exact && about(w, setup, false))
    };
    chosen.warnings.retain(|w| !replaced(w));
    chosen
        .warnings
        .extend(found.warnings.iter().filter(|w| replaced(w)).cloned());
    let lowest = values[0];
    for (was, sigma, whose) in [
        (bottom.maps, chosen.tuned.sigma, "the maps'"),
        (
            bottom.exact,
            chosen.tuned.exact_sigma,
            "the exact machine's",
        ),
    ] {
        if was && sigma.is_some_and(|s| s <= lowest * (1.0 + 1e-9)) {
            chosen.warnings.push(format!(
                "{whose} sigma = {lowest} is the smallest tried, {} x the median distance \
                 included: its best may lie below",
                list(&BELOW_THE_EDGE)
            ));
        }
    }
    chosen.warnings.dedup();
}

/// "0.0625, 0.125".
fn list(values: &[f64]) -> String {
    let values: Vec<String> = values.iter().map(|v| format!("{v}")).collect();
    values.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::setup;
    use crate::compare::tuned::Tuned;
    use rfbench_data::Task;

    fn chosen_with(sigma: f64, exact_sigma: f64, warnings: &[&str]) -> Chosen {
        Chosen {
            tuned: Tuned::new(Some(sigma), 0.5, Some(exact_sigma), 2.0),
            warnings: warnings.iter().map(|w| w.to_string()).collect(),
        }
    }

    /// The test setup's candidates are 0.5, 1 and 2 (median 1).
    #[test]
    fn a_bandwidth_is_at_the_bottom_only_where_every_repetition_chose_it() {
        let setup = setup("gaussian", Task::Binary, None);
        let at = |maps, exact| AtTheBottom::of(&setup, &chosen_with(maps, exact, &[]));
        assert_eq!(
            at(0.5, 1.0),
            AtTheBottom {
                maps: true,
                exact: false
            }
        );
        // Two repetitions at 0.5 and 1: their geometric mean is not the edge.
        assert_eq!(
            at(1.0, 0.5f64.sqrt()),
            AtTheBottom {
                maps: false,
                exact: false
            }
        );
        assert_eq!(candidates(&setup), Some(vec![0.0625, 0.125, 0.5]));
        let given = Setup {
            sigmas: vec![0.5],
            median: None,
            ..setup.clone()
        };
        assert!(!AtTheBottom::of(&given, &chosen_with(0.5, 0.5, &[])).any());
    }

    #[test]
    fn only_the_bandwidths_at_the_bottom_take_the_search_below_it() {
        let setup = setup("gaussian", Task::Binary, None);
        let exact = setup.exact_learner.name;
        let maps = setup.learner.name;
        let edge = |learner: &str| format!("sigma = 1 (with {learner}) was chosen at an edge");
        let mut chosen = chosen_with(2.0, 1.0, &[&edge(exact), &edge(maps)]);
        let bottom = AtTheBottom {
            maps: false,
            exact: true,
        };
        let found = chosen_with(0.5, 0.5, &["C = 8 (with a-learner) was chosen at an edge"]);
        adopt(&setup, &mut chosen, &found, bottom, &[0.25, 0.5, 1.0]);
        // The maps keep their sigma and C; the exact machine takes the search's.
        assert_eq!((chosen.tuned.sigma, chosen.tuned.penalty), (Some(2.0), 0.5));
        assert_eq!(chosen.tuned.exact_sigma, Some(0.5));
        // The exact machine's edge warning went with its value; the maps' stays; the search's
        // warnings about other learners are not taken.
        assert_eq!(chosen.warnings, [edge(maps)]);
        // Chosen at the new bottom: said.
        let found = chosen_with(0.25, 0.25, &[]);
        let mut again = chosen_with(2.0, 1.0, &[]);
        adopt(&setup, &mut again, &found, bottom, &[0.25, 0.5, 1.0]);
        assert_eq!(again.warnings.len(), 1);
        assert!(again.warnings[0].starts_with("the exact machine's sigma = 0.25 is the smallest"));
    }
}
