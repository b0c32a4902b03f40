//! The exact kernel machine where it cannot train on every training row within its share of
//! the budget: nested subsamples, doubling from the pilot's rows while the next size, its time
//! extrapolated from the last two measured, fits (`exact-1.toml`, `exact-2.toml`, ...: one spec
//! per size, each taking the rows of those before). The largest is the sweep's reference at
//! scale; every size is a line of the report, the machine's learning curve. A size is measured
//! before the next is committed to, so its estimate errs by one doubling at most: the pilot's
//! extrapolation from 1,714 to 15,440 Fashion-MNIST rows was 5 times short.

use std::time::Instant;

use super::budget::{exact_repetitions, Estimates, Sweep, ALL_ROWS_ABOVE};
use super::lines::{self, Line};
use super::specs::Written;
use super::state::{read, Context};
use crate::error::Result;
use crate::results::ResultRow;
use rfbench_registry::Features;

/// The power of the rows the machine's time is taken to grow with between two measured sizes,
/// clamped: SMO's kernel evaluations grow with their square, more once the cache no longer holds
/// the rows.
const EXPONENT: (f64, f64) = (1.0, 2.5);

/// Below this many seconds two sizes' times say little about the power between them.
const TIMEABLE: f64 = 0.5;

/// Why the exact machine's subsample is what it is: a rerun elsewhere may differ there.
pub const SPEED_BOUND: &str = "as many as this machine trained within its share of the budget: \
     the size depends on the machine's speed and load, so a faster or idler one trains more \
     rows, and its answer can differ";

/// What the curve ran.
#[derive(Debug, Default)]
pub struct Curve {
    /// Every size's rows (the largest's are the sweep's exact cell, taken by its first round).
    pub rows: Vec<ResultRow>,
    /// One line per size below the largest (the largest is the sweep's own line).
    pub lines: Vec<Line>,
    /// The sweep's `exact_train_size`: the largest size that ran (0: all rows).
    pub size: Option<usize>,
    /// Why the curve stopped where it did.
    pub skipped: Vec<String>,
}

/// The size after `m` training rows of `n`: twice as many, or all of them (0) from
/// [`ALL_ROWS_ABOVE`] of them.
pub fn next_size(m: usize, n: usize) -> usize {
    let next = 2 * m;
    match next as f64 >= ALL_ROWS_ABOVE * n as f64 {
        true => 0,
        false => next,
    }
}

/// The rows a size stands for (0: all `n`).
fn rows(size: usize, n: usize) -> usize {
    if size == 0 {
        n
    } else {
        size
    }
}

/// The power of the rows between two measured (rows, seconds) points, within [`EXPONENT`];
/// `fallback` (the pilot's) when the smaller took under [`TIMEABLE`].
pub fn exponent(a: (usize, f64), b: (usize, f64), fallback: f64) -> f64 {
    if a.1 < TIMEABLE || b.0 <= a.0 {
        return fallback.clamp(EXPONENT.0, EXPONENT.1);
    }
    ((b.1 / a.1).ln() / (b.0 as f64 / a.0 as f64).ln()).clamp(EXPONENT.0, EXPONENT.1)
}

/// Runs the exact machine on sizes doubling from twice the pilot's `pilot_train` rows (the
/// pilot's own rows when twice them would not fit), each measured before the next, while the
/// next fits `allowance` seconds; `none` is the sweep without maps whose exact size each spec
/// (written by `spec`: the sweep's) sets, `earlier` the baseline's rows.
pub fn run(
    context: &Context,
    spec: impl Fn(&str, &Sweep) -> Result<Written>,
    none: &Sweep,
    estimates: &Estimates,
    pilot_train: usize,
    allowance: f64,
    earlier: &[ResultRow],
) -> Result<Curve> {
    let setup = context.setup;
    let (n, reps) = (setup.n_train, exact_repetitions(setup));
    let fallback = estimates.exact_exponent.unwrap_or(2.0);
    let pilot_seconds = estimates
        .exact_on(pilot_train as f64 / n as f64)
        .unwrap_or(0.0)
        * reps;
    let estimate =
        |m: usize| pilot_seconds * (rows(m, n) as f64 / pilot_train as f64).powf(fallback);
    let mut curve = Curve::default();
    let first = [next_size(pilot_train, n), pilot_train]
        .into_iter()
        .find(|&m| estimate(m) <= allowance);
    let Some(mut size) = first else {
        curve.skipped.push(format!(
            "exact: estimated {:.0} s on the pilot's {pilot_train} training rows, more than its \
             {allowance:.0} s",
            estimate(pilot_train)
        ));
        return Ok(curve);
    };
    let start = Instant::now();
    let mut earlier = earlier.to_vec();
    let mut measured: Vec<(usize, f64)> = Vec::new();
    for k in 1.. {
        let sweep = Sweep {
            exact_train_size: Some(size),
            ..none.clone()
        };
        context.progress.say(&format!(
            "sweep, round 0: the exact kernel machine on {} of the {n} training rows ({})",
            rows(size, n),
            format_args!("exact-{k}.toml")
        ));
        let began = Instant::now();
        let name = format!("exact-{k}");
        let outcome = context.run_spec(&name, &spec(&name, &sweep)?, &earlier)?;
        measured.push((rows(size, n), began.elapsed().as_secs_f64()));
        let exact_lines = lines::lines(setup, &read(&outcome)?, &Estimates::default());
        let is_exact = |l: &Line| matches!(l.features(), Some(Features::Exact));
        let ran = exact_lines
            .iter()
            .any(|l| is_exact(l) && !l.scores.is_empty());
        if !ran {
            curve.skipped.push(format!(
                "exact on {} training rows: it did not run (see exact-{k}.csv)",
                rows(size, n)
            ));
            break;
        }
        curve.size = Some(size);
        curve.lines.extend(exact_lines.into_iter().filter(is_exact));
        earlier.extend(outcome.rows.iter().cloned());
        curve.rows.extend(outcome.rows);
        if size == 0 {
            break;
        }
        let next = next_size(size, n);
        let last = measured[measured.len() - 1];
        let e = match measured.len() {
            1 => fallback.clamp(EXPONENT.0, EXPONENT.1),
            l => exponent(measured[l - 2], last, fallback),
        };
        let t = last.1 * (rows(next, n) as f64 / last.0 as f64).powf(e);
        let left = allowance - start.elapsed().as_secs_f64();
        if t > left {
            curve.skipped.push(format!(
                "exact on all {n} training rows: on {} rows it took {:.0} s; {} rows are \
                 estimated at {t:.0} s (time growing as rows^{e:.2}), {:.0} s of its share left; \
                 it ran on {} of them",
                last.0,
                last.1,
                rows(next, n),
                left.max(0.0),
                last.0
            ));
            break;
        }
        size = next;
    }
    // The largest size is the sweep's own line.
    curve.lines.retain(|l| Some(l.train_size) != curve.size);
    Ok(curve)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_double_up_to_all_the_rows() {
        assert_eq!(next_size(1714, 60_000), 3428);
        assert_eq!(next_size(27_000, 60_000), 0);
        assert_eq!(next_size(26_999, 60_000), 53_998);
        assert_eq!(rows(0, 60_000), 60_000);
        assert_eq!(rows(3428, 60_000), 3428);
    }

    #[test]
    fn the_power_between_two_sizes_is_measured_and_clamped() {
        // 4x the time for 2x the rows: 2.
        assert_eq!(exponent((1000, 10.0), (2000, 40.0), 1.5), 2.0);
        // 2.83x: 1.5.
        let e = exponent((1000, 10.0), (2000, 10.0 * 2f64.powf(1.5)), 2.0);
        assert!((e - 1.5).abs() < 1e-12, "{e}");
        // Faster than linear or steeper than 2.5: clamped.
        assert_eq!(exponent((1000, 10.0), (2000, 12.0), 2.0), 1.0);
        assert_eq!(exponent((1000, 10.0), (2000, 100.0), 2.0), 2.5);
        // Too fast to time: the fallback, clamped.
        assert_eq!(exponent((1000, 0.1), (2000, 1.0), 1.7), 1.7);
        assert_eq!(exponent((1000, 0.1), (2000, 1.0), 3.0), 2.5);
    }
}
