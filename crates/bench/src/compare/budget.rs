//! The time budget: every cell's estimated seconds ([`Estimates`], from the pilot:
//! [`super::stages::pilot`]), and the cells kept while the estimate fits ([`fit`], the sweep's;
//! [`gram_sweep`], the Gram step's). The exact kernel machine runs on a subsample of the
//! training rows when all of them would not fit a quarter of the budget (or what the baseline
//! left of it). A rough model: the report prints each estimate beside the time measured.

use std::collections::BTreeMap;

use super::setup::Setup;
use rfbench_registry::{exact_map, raw_map};

/// What the sweep runs.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    /// Each map's list of D (empty: none fits).
    pub per_map: Vec<(&'static str, Vec<usize>)>,
    /// `Some(0)`: the exact machine on all training rows; `Some(m)`: on m of them; `None`:
    /// not run.
    pub exact_train_size: Option<usize>,
    /// Cells left out, with the reason.
    pub skipped: Vec<String>,
}

/// Estimated seconds of one repetition of each cell, keyed by (map, D); the exact machine and
/// the baseline under D = 0.
#[derive(Debug, Clone, Default)]
pub struct Estimates {
    pub seconds: BTreeMap<(String, usize), f64>,
    /// The power of the training rows the exact machine's time grows with (`None`: 2).
    pub exact_exponent: Option<f64>,
}

impl Estimates {
    pub fn get(&self, map: &str, d: usize) -> Option<f64> {
        self.seconds.get(&(map.to_string(), d)).copied()
    }

    /// The maps' estimates times `pace` (how much slower the cells ran than estimated); the
    /// baseline's and the exact machine's as they were.
    pub fn maps_at_pace(&self, pace: f64) -> Estimates {
        let machines = [raw_map().name, exact_map().name];
        let seconds = self.seconds.iter().map(|((m, d), t)| {
            let t = if machines.contains(&m.as_str()) {
                *t
            } else {
                t * pace
            };
            ((m.clone(), *d), t)
        });
        Estimates {
            seconds: seconds.collect(),
            exact_exponent: self.exact_exponent,
        }
    }

    /// The maps' estimates alone (the baseline's and the exact machine's left out).
    pub fn maps_only(&self) -> Estimates {
        let machines = [raw_map().name, exact_map().name];
        let mut seconds = self.seconds.clone();
        seconds.retain(|(m, _), _| !machines.contains(&m.as_str()));
        Estimates {
            seconds,
            exact_exponent: self.exact_exponent,
        }
    }

    fn exact_exponent(&self) -> f64 {
        self.exact_exponent.unwrap_or(2.0)
    }

    /// The exact machine's seconds a repetition on `share` of the training rows.
    pub fn exact_on(&self, share: f64) -> Option<f64> {
        let t = self.get(exact_map().name, 0)?;
        Some(t * share.powf(self.exact_exponent()))
    }
}

/// Whether the components of `series` (a map, or a variant of one) are training rows
/// (Nystroem's landmarks): its D is capped by the rows it is fitted on.
pub fn components_are_rows(series: &str) -> bool {
    rfbench_registry::series::named(series).is_some_and(|s| s.map.components_are_rows)
}

/// The most landmarks Nystroem may take from `train` training rows: a split's rounding per class
/// moves the count by a few rows, so a margin of 5 %.
pub fn landmarks(train: usize) -> usize {
    train - train / 20
}

/// A subsample of the training rows this large a share of them runs on all of them instead: the
/// exact machine on every row is the reference of every answer (on 99 % of Adult's rows it was
/// not, and the best cell became the reference).
pub const ALL_ROWS_ABOVE: f64 = 0.9;

/// The exact machine's and the linear baseline's repetitions: one with a fixed test file (they
/// draw nothing at random, and the sweep runs them once).
pub fn exact_repetitions(setup: &Setup) -> f64 {
    if setup.has_test {
        1.0
    } else {
        setup.repetitions as f64
    }
}

/// The cells that fit `budget` seconds: the baseline, the exact machine (on all training rows
/// if that takes at most a quarter of the budget and what the baseline left, else on the
/// subsample that does), then the maps' rungs ([`fit_maps`]).
pub fn fit(setup: &Setup, estimates: &Estimates, budget: f64) -> Sweep {
    let mut spent = estimates.get(raw_map().name, 0).unwrap_or(0.0) * exact_repetitions(setup);
    let mut sweep = Sweep::default();
    // Capped by what the baseline left, so that the plan's total stays within the budget.
    let exact_allowance = (budget / 4.0).min(budget - spent).max(0.0);
    spent += fit_exact(setup, estimates, exact_allowance, &mut sweep);
    let maps = fit_maps(setup, estimates, budget - spent);
    sweep.per_map = maps.per_map;
    sweep.skipped.extend(maps.skipped);
    sweep
}

/// Where the exact machine runs within `allowance` seconds (all its repetitions): sets
/// `sweep.exact_train_size` (with the reason when not on every row) and returns the seconds it
/// is estimated to take.
fn fit_exact(setup: &Setup, estimates: &Estimates, allowance: f64, sweep: &mut Sweep) -> f64 {
    let exact_reps = exact_repetitions(setup);
    let Some(t) = estimates.get(exact_map().name, 0) else {
        sweep
            .skipped
            .push("exact: the pilot did not measure it".to_string());
        return 0.0;
    };
    if t * exact_reps <= allowance {
        sweep.exact_train_size = Some(0);
        return t * exact_reps;
    }
    // A power e of the rows: m = n (share / t)^(1 / e).
    let share = allowance / exact_reps;
    let e = estimates.exact_exponent();
    let m = (setup.n_train as f64 * (share / t).powf(1.0 / e)) as usize;
    if m as f64 >= ALL_ROWS_ABOVE * setup.n_train as f64 {
        // Nearly all of them: the reference on every row is worth the overrun.
        sweep.exact_train_size = Some(0);
        t * exact_reps
    } else if m >= 200 {
        sweep.exact_train_size = Some(m);
        sweep.skipped.push(format!(
            "exact on all {} training rows: estimated {:.0} s a repetition; run on {m} of them",
            setup.n_train, t
        ));
        allowance
    } else {
        sweep.skipped.push(format!(
            "exact: estimated {t:.0} s a repetition, more than the budget allows"
        ));
        0.0
    }
}

/// The maps' rungs that fit `budget` seconds: the rungs of the ladder in increasing D, every
/// map's rung before the next one, while the total fits. Nystroem stops at the training rows.
pub fn fit_maps(setup: &Setup, estimates: &Estimates, budget: f64) -> Sweep {
    let reps = setup.repetitions as f64;
    let mut spent = 0.0;
    let mut sweep = Sweep::default();
    sweep.per_map = setup
        .map_names()
        .into_iter()
        .map(|m| (m, Vec::new()))
        .collect();
    let mut stopped = vec![false; setup.maps.len()];
    for &d in &setup.ladder {
        for (k, map) in setup.map_names().into_iter().enumerate() {
            if stopped[k] {
                continue;
            }
            if components_are_rows(map) && d > landmarks(setup.n_train) {
                stopped[k] = true;
                sweep.skipped.push(format!(
                    "{map} at D >= {d}: more landmarks than the {} training rows",
                    setup.n_train
                ));
                continue;
            }
            let Some(t) = estimates.get(map, d) else {
                stopped[k] = true;
                sweep
                    .skipped
                    .push(format!("{map}: the pilot did not measure it"));
                continue;
            };
            if spent + t * reps > budget {
                stopped[k] = true;
                sweep.skipped.push(format!(
                    "{map} at D >= {d}: estimated {:.1} s for {} repetitions would pass the \
                     budget",
                    t * reps,
                    setup.repetitions
                ));
                continue;
            }
            spent += t * reps;
            sweep.per_map[k].1.push(d);
        }
    }
    sweep
}

/// The Gram step's cells that fit `left` seconds: each map's D of `sweep` in increasing order
/// while the estimate fits, a cell's estimate its sweep time (`seconds`, per repetition) scaled
/// to the Gram step's `rows` of the `n_train` training rows, twice over for the Gram matrices;
/// the rest left out with the reason.
pub fn gram_sweep(
    sweep: &Sweep,
    seconds: impl Fn(&str, usize) -> Option<f64>,
    rows: usize,
    n_train: usize,
    repetitions: usize,
    left: f64,
) -> Sweep {
    let share = (rows as f64 / n_train.max(1) as f64).min(1.0);
    let mut spent = 0.0;
    let mut out = Sweep::default();
    for (map, ds) in &sweep.per_map {
        let mut kept = Vec::new();
        for &d in ds {
            let t = seconds(map, d).unwrap_or(0.0) * share * 2.0 * repetitions as f64;
            if spent + t > left {
                out.skipped.push(format!(
                    "the Gram error of {map} at D >= {d}: estimated {t:.1} s, {:.0} s of the \
                     budget left",
                    (left - spent).max(0.0)
                ));
                break;
            }
            spent += t;
            kept.push(d);
        }
        out.per_map.push((map, kept));
    }
    out
}

/// The total estimate of a sweep, in seconds.
pub fn total(setup: &Setup, estimates: &Estimates, sweep: &Sweep) -> f64 {
    let reps = setup.repetitions as f64;
    let mut t = estimates.get(raw_map().name, 0).unwrap_or(0.0) * exact_repetitions(setup);
    if let Some(size) = sweep.exact_train_size {
        let share = match size {
            0 => 1.0,
            m => m as f64 / setup.n_train as f64,
        };
        t += estimates.exact_on(share).unwrap_or(0.0) * exact_repetitions(setup);
    }
    for (map, ds) in &sweep.per_map {
        t += ds
            .iter()
            .filter_map(|&d| estimates.get(map, d))
            .sum::<f64>()
            * reps;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::two_maps;

    fn assert_close(actual: Option<f64>, expected: f64, what: &str) {
        let actual = actual.unwrap_or_else(|| panic!("{what}: no estimate"));
        assert!(
            (actual - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "{what}: {actual} != {expected}"
        );
    }

    fn estimates(cells: &[(&str, usize, f64)]) -> Estimates {
        let seconds = cells.iter().map(|&(m, d, t)| ((m.to_string(), d), t));
        Estimates {
            seconds: seconds.collect(),
            exact_exponent: None,
        }
    }

    #[test]
    fn landmarks_leave_a_twentieth_of_the_rows() {
        let cases = [(0, 0), (19, 19), (20, 19), (450, 428), (1000, 950)];
        for (train, expected) in cases {
            assert_eq!(landmarks(train), expected, "{train} rows");
        }
    }

    #[test]
    fn the_gram_step_keeps_each_maps_d_while_they_fit_what_is_left() {
        let sweep = Sweep {
            per_map: vec![("map-a", vec![64, 128, 256]), ("map-b", vec![64])],
            ..Sweep::default()
        };
        // 1,000 training rows, 500 compared: a cell's Gram estimate is its time (D / 64 s)
        // x 0.5 x 2 x 2 repetitions = D / 32 s: 2 + 4 + 8 for map-a, 2 for map-b.
        let seconds = |_: &str, d: usize| Some(d as f64 / 64.0);
        let all = gram_sweep(&sweep, seconds, 500, 1000, 2, 16.0);
        assert_eq!(all.per_map, sweep.per_map);
        assert!(all.skipped.is_empty());
        let some = gram_sweep(&sweep, seconds, 500, 1000, 2, 7.0);
        assert_eq!(
            some.per_map,
            vec![("map-a", vec![64, 128]), ("map-b", vec![])]
        );
        assert_eq!(
            some.skipped,
            [
                "the Gram error of map-a at D >= 256: estimated 8.0 s, 1 s of the budget left",
                "the Gram error of map-b at D >= 64: estimated 2.0 s, 1 s of the budget left"
            ]
        );
    }

    /// Two maps (a, b), 2 repetitions; per repetition the baseline 1 s, the exact machine 1 s,
    /// a 1, 2, 4 s and b 1, 3, 9 s at D = 64, 128, 256.
    fn ladder_estimates(s: &Setup) -> Estimates {
        let (a, b) = (s.maps[0].name(), s.maps[1].name());
        estimates(&[
            (raw_map().name, 0, 1.0),
            (exact_map().name, 0, 1.0),
            (a, 64, 1.0),
            (a, 128, 2.0),
            (a, 256, 4.0),
            (b, 64, 1.0),
            (b, 128, 3.0),
            (b, 256, 9.0),
        ])
    }

    #[test]
    fn the_sweep_keeps_rungs_in_order_while_the_total_fits() {
        let mut s = two_maps(false);
        s.repetitions = 2;
        let (a, b) = (s.maps[0].name(), s.maps[1].name());
        let e = ladder_estimates(&s);
        // 2 + 2 (baseline, exact), D = 64: + 2 + 2, D = 128: + 4 + 6 = 18; D = 256: a's 8
        // would make 26.
        let sweep = fit(&s, &e, 20.0);
        assert_eq!(sweep.per_map, vec![(a, vec![64, 128]), (b, vec![64, 128])]);
        assert_eq!(sweep.exact_train_size, Some(0));
        assert_eq!(total(&s, &e, &sweep), 18.0);
        let want =
            format!("{a} at D >= 256: estimated 8.0 s for 2 repetitions would pass the budget");
        assert_eq!(sweep.skipped[0], want);
        assert_eq!(sweep.skipped.len(), 2, "{:?}", sweep.skipped);
        // 16 s: b's D = 128 (6 s) does not fit after a's (12 s so far), and b stops there; a's
        // D = 256 (8 s) does not fit either.
        let sweep = fit(&s, &e, 16.0);
        assert_eq!(sweep.per_map, vec![(a, vec![64, 128]), (b, vec![64])]);
        assert_eq!(total(&s, &e, &sweep), 12.0);
        // The baseline (2 s) leaves 0.5 s of 2.5 s: the exact machine's share is capped there
        // (not a quarter, 0.625 s), on m = 450 sqrt((0.5 / 2) / 1) = 225 rows.
        let sweep = fit(&s, &e, 2.5);
        assert_eq!(sweep.exact_train_size, Some(225));
        assert_eq!(total(&s, &e, &sweep), 2.5);
        // Whatever the budget, the plan's estimate stays within it once the baseline fits.
        for budget in [2.0, 2.5, 4.0, 5.0, 8.0, 11.0, 17.0, 25.0, 33.0, 100.0] {
            let t = total(&s, &e, &fit(&s, &e, budget));
            assert!(t <= budget, "budget {budget}: planned {t}");
        }
    }

    #[test]
    fn the_exact_machine_takes_a_subsample_that_fits_a_quarter_of_the_budget() {
        let mut s = two_maps(false);
        s.repetitions = 2;
        let exact = exact_map().name;
        let e = estimates(&[(exact, 0, 10.0)]);
        // 20 s for two repetitions, more than 40 / 4: m = 450 sqrt((10 / 2) / 10) = 318.2.
        let sweep = fit(&s, &e, 40.0);
        assert_eq!(sweep.exact_train_size, Some(318));
        assert_eq!(
            sweep.skipped[0],
            "exact on all 450 training rows: estimated 10 s a repetition; run on 318 of them"
        );
        let share = (318.0f64 / 450.0).powi(2);
        assert_close(Some(total(&s, &e, &sweep)), 10.0 * share * 2.0, "total");
        // Under 200 rows is not worth running: m = 450 sqrt(1 / 10) = 142.
        let sweep = fit(&s, &e, 8.0);
        assert_eq!(sweep.exact_train_size, None);
        assert_eq!(
            sweep.skipped[0],
            "exact: estimated 10 s a repetition, more than the budget allows"
        );
        assert_eq!(total(&s, &e, &sweep), 0.0);
        let sweep = fit(&s, &Estimates::default(), 40.0);
        assert_eq!(sweep.exact_train_size, None);
        assert_eq!(sweep.skipped[0], "exact: the pilot did not measure it");
        // 90 % of the rows or more: all of them (m = 450 sqrt(9 / 10) = 427).
        let sweep = fit(&s, &e, 72.0);
        assert_eq!(sweep.exact_train_size, Some(0));
        // With a fixed test file the exact machine runs once: 10 s fits a quarter of 40 s.
        s.has_test = true;
        let sweep = fit(&s, &e, 40.0);
        assert_eq!(sweep.exact_train_size, Some(0));
        assert_close(Some(total(&s, &e, &sweep)), 10.0, "one run");
    }

    /// After the references ran, the maps are planned again on their own, at the pace measured:
    /// the baseline's and the exact machine's estimates are not counted again, nor slowed.
    #[test]
    fn the_maps_are_planned_again_at_the_measured_pace() {
        let mut s = two_maps(false);
        s.repetitions = 2;
        let (a, b) = (s.maps[0].name(), s.maps[1].name());
        let e = ladder_estimates(&s);
        let slow = e.maps_at_pace(2.0);
        assert_eq!(slow.get(raw_map().name, 0), Some(1.0));
        assert_eq!(slow.get(exact_map().name, 0), Some(1.0));
        assert_eq!(slow.get(a, 128), Some(4.0));
        assert_eq!(slow.get(b, 256), Some(18.0));
        assert_eq!(e.maps_only().seconds.len(), 6);
        // 2 x 2 x (1 + 1) = 8 s for D = 64 at twice the pace; a's D = 128 (8 s) fits 16 s, b's
        // (12 s) does not.
        let maps = fit_maps(&s, &slow, 16.0);
        assert_eq!(maps.per_map, vec![(a, vec![64, 128]), (b, vec![64])]);
        assert_eq!(maps.exact_train_size, None);
        assert_eq!(total(&s, &slow.maps_only(), &maps), 16.0);
    }

    #[test]
    fn landmarks_stop_at_the_training_rows() {
        let mut s = two_maps(true);
        s.n_train = 150;
        let rows_map = s.maps[2].name();
        let mut e = ladder_estimates(&s);
        for d in [64, 128, 256] {
            e.seconds.insert((rows_map.to_string(), d), 0.0);
        }
        let sweep = fit(&s, &e, f64::INFINITY);
        // 142 landmarks at most (150 - 7): D = 128 fits, 256 does not.
        assert_eq!(sweep.per_map[2], (rows_map, vec![64, 128]));
        assert_eq!(sweep.per_map[0].1, vec![64, 128, 256]);
        assert_eq!(
            sweep.skipped,
            vec![format!(
                "{rows_map} at D >= 256: more landmarks than the 150 training rows"
            )]
        );
    }

    #[test]
    fn a_zero_or_infinite_budget_gives_a_plan_not_a_panic() {
        let s = two_maps(false);
        let (a, b) = (s.maps[0].name(), s.maps[1].name());
        let e = ladder_estimates(&s);
        // Nothing fits but the baseline, which always runs.
        let none = fit(&s, &e, 0.0);
        assert_eq!(none.per_map, vec![(a, vec![]), (b, vec![])]);
        assert_eq!(none.exact_train_size, None);
        assert_eq!(total(&s, &e, &none), 3.0);
        assert_eq!(none.skipped.len(), 3, "{:?}", none.skipped);
        // Everything.
        let all = fit(&s, &e, f64::INFINITY);
        assert_eq!(
            all.per_map,
            vec![(a, vec![64, 128, 256]), (b, vec![64, 128, 256])]
        );
        assert_eq!(all.exact_train_size, Some(0));
        assert!(all.skipped.is_empty(), "{:?}", all.skipped);
        assert_eq!(total(&s, &e, &all), 3.0 * (1.0 + 1.0 + 7.0 + 13.0));
        // A map the pilot did not measure is left out, and says so.
        let mut partial = e.clone();
        partial.seconds.retain(|(m, _), _| m != b);
        let sweep = fit(&s, &partial, f64::INFINITY);
        assert_eq!(sweep.per_map[1], (b, vec![]));
        assert_eq!(
            sweep.skipped,
            vec![format!("{b}: the pilot did not measure it")]
        );
    }
}
