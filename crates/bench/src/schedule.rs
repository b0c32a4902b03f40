//! The order a spec's runs start in: longest first, by an estimate of each run's work made from
//! the plan and its data's sizes before anything runs, so that a spec's few big cells (an exact
//! kernel machine on every row, PRFF at the largest D) start at once instead of after the many
//! small ones and leave the other cores idle at the end. A run's own parallelism (the maps'
//! blocks, the Gram sums) is rayon's, as the runs' is, so when few runs remain their inner work
//! is stolen by the threads that have none. [`run_jobs`] is where the runner starts them so, and
//! its test shows that overlapping runs really are running at the same time.
//!
//! The estimate only has to order runs, not predict seconds: it counts the multiply-adds of the
//! map (a `D x d` projection of every row mapped, plus the registry's `extra_work`: Nystroem's
//! normalisation, PRFF's descent), of the learner (the kernel machine's `n^2` kernel
//! evaluations; a linear learner's passes over the features) and of the kind (the Gram matrix
//! of `n_samples` rows). [`replay`] measures how good the order is on a committed result: each
//! run's measured seconds scheduled on `P` workers in the plan's order and in this one, against
//! the lower bound no order can beat.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use rfbench_registry::learners::fits;
use rfbench_registry::{Needs, Value};

use crate::spec::Cell;

/// What the estimate needs to know of a cell's prepared data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataSize {
    pub train_rows: usize,
    pub test_rows: usize,
    /// Stored values per row: the columns for dense data, the mean non-zeros for sparse data.
    pub values_per_row: f64,
}

/// Passes a linear learner is assumed to make over its features (LIBLINEAR's solvers take tens;
/// the constant only places linear learners against kernel machines, whose work grows as `n^2`).
const LINEAR_PASSES: f64 = 20.0;

/// The multiply-adds one run of `cell` is estimated to take on data of `size`.
pub fn cost(cell: &Cell, size: DataSize) -> f64 {
    let kind = |name: &str| cell.kind_params.get(name).and_then(Value::as_usize);
    let width = (cell.map.size.output_dim)(&cell.map_params).map(|w| w as f64);
    let per_row = size.values_per_row.max(1.0);
    let (train, test) = match kind("train_size").filter(|&t| t > 0) {
        Some(t) => (t.min(size.train_rows) as f64, size.test_rows as f64),
        None => (size.train_rows as f64, size.test_rows as f64),
    };
    // Rows mapped, and the kind's own work on their features.
    let (mapped, kind_work) = match (kind("pairs"), kind("n_samples")) {
        (Some(pairs), _) => (2.0 * pairs as f64, 0.0),
        (_, Some(samples)) => {
            let s = samples.min(size.train_rows) as f64;
            (s, s * s * (width.unwrap_or(per_row) + per_row))
        }
        _ => (train + test, 0.0),
    };
    // A D x d projection of every row mapped, and what the map does beyond it (the registry's
    // extra_work: Nystroem's normalisation, PRFF's descent).
    let map_work = width.map_or(0.0, |w| {
        mapped * w * per_row + (cell.map.extra_work)(&cell.map_params, w, per_row, mapped)
    });
    let learner_work = match cell.learner {
        None => 0.0,
        Some(l) if l.needs == Needs::Kernel => (train * train + train * test) * per_row,
        Some(_) => (train * LINEAR_PASSES + test) * width.unwrap_or(per_row),
    };
    (map_work + kind_work + learner_work * searches(cell)).max(1.0)
}

/// How many times the learner is trained: per fold and candidate where a bandwidth is chosen by
/// cross-validation, times the fits its own search of `C` or `lambda` makes (the registry's
/// [`fits`]).
fn searches(cell: &Cell) -> f64 {
    let bandwidth = cell.kernel_params.0.values().find_map(|v| match v {
        Value::Search(s) => Some((s.folds * s.candidates.len() + 1) as f64),
        _ => None,
    });
    bandwidth.unwrap_or(1.0) * fits(&cell.learner_params) as f64
}

/// The indices of `costs`, largest first; equal costs in their own order.
pub fn longest_first(costs: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    order
}

/// Runs `run` on every job `0..costs.len()`: one at a time in their own order, or, when
/// `overlap`, on rayon's threads at once, started [`longest_first`] by `costs`. The results come
/// back in the jobs' order either way.
pub fn run_jobs<R: Send>(costs: &[f64], overlap: bool, run: impl Fn(usize) -> R + Sync) -> Vec<R> {
    if !overlap {
        return (0..costs.len()).map(run).collect();
    }
    let mut ran: Vec<(usize, R)> = longest_first(costs)
        .into_iter()
        .par_bridge()
        .map(|i| (i, run(i)))
        .collect();
    ran.sort_by_key(|(i, _)| *i);
    ran.into_iter().map(|(_, r)| r).collect()
}

/// The wall time of running jobs of `seconds` on `workers` workers, each job started in `order`
/// by the first worker free (greedy list scheduling: what a pool taking jobs from one queue
/// does).
pub fn makespan(seconds: &[f64], order: &[usize], workers: usize) -> f64 {
    let mut free: BinaryHeap<Reverse<Time>> =
        (0..workers.max(1)).map(|_| Reverse(Time(0.0))).collect();
    let mut end: f64 = 0.0;
    for &job in order {
        let Reverse(Time(start)) = free.pop().expect("at least one worker");
        let finish = start + seconds[job];
        end = end.max(finish);
        free.push(Reverse(Time(finish)));
    }
    end
}

/// No order finishes sooner than the longest job, nor than the total shared evenly.
pub fn lower_bound(seconds: &[f64], workers: usize) -> f64 {
    let total: f64 = seconds.iter().sum();
    let longest = seconds.iter().copied().fold(0.0, f64::max);
    longest.max(total / workers.max(1) as f64)
}

/// One line of [`replay`]: makespans on `workers` workers.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    pub workers: usize,
    /// Runs started in the plan's order (cell by cell, repetition by repetition).
    pub plan_order: f64,
    /// Runs started longest first by [`cost`].
    pub estimated: f64,
    /// Runs started longest first by their measured seconds: what a perfect estimate gives.
    pub measured: f64,
    pub lower_bound: f64,
}

/// Each run's measured `seconds` (in the plan's order) replayed on each of `workers`, started in
/// the plan's order, in the order of `costs`, and in the order of the measurements themselves.
pub fn replay(seconds: &[f64], costs: &[f64], workers: &[usize]) -> Vec<Replay> {
    let plan: Vec<usize> = (0..seconds.len()).collect();
    let estimated = longest_first(costs);
    let measured = longest_first(seconds);
    workers
        .iter()
        .map(|&p| Replay {
            workers: p,
            plan_order: makespan(seconds, &plan, p),
            estimated: makespan(seconds, &estimated, p),
            measured: makespan(seconds, &measured, p),
            lower_bound: lower_bound(seconds, p),
        })
        .collect()
}

/// A time ordered for the heap (times here are finite: sums of measured seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Time(f64);

impl Eq for Time {}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Time {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::spec::{load_plan, Plan, Profile};

    fn repository_plan(name: &str, profile: &str) -> Plan {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        load_plan(&root, name, &Profile::parse(profile)).expect("a committed spec")
    }

    /// Adult's split: 32,561 training and 16,281 test rows of 123 one-hot columns, 14 ones each.
    const ADULT: DataSize = DataSize {
        train_rows: 32_561,
        test_rows: 16_281,
        values_per_row: 14.0,
    };

    /// The readings spec's raw-row profile: the exact SVMs took 322-1,482 s a run, Tensor Sketch
    /// with the linear SVM at most 23 s (results/tensor-sketch-table1-readings/raw-rows.csv).
    #[test]
    fn the_exact_kernel_machine_is_estimated_above_every_feature_map_run() {
        let plan = repository_plan("tensor-sketch-table1-readings", "raw-rows");
        let (exact, mapped): (Vec<&Cell>, Vec<&Cell>) =
            plan.cells.iter().partition(|c| c.map.name == "exact");
        assert!(!exact.is_empty() && !mapped.is_empty());
        let cheapest_exact = exact
            .iter()
            .map(|c| cost(c, ADULT))
            .fold(f64::MAX, f64::min);
        let dearest_mapped = mapped.iter().map(|c| cost(c, ADULT)).fold(0.0, f64::max);
        assert!(
            cheapest_exact > 10.0 * dearest_mapped,
            "{cheapest_exact} against {dearest_mapped}"
        );
    }

    /// At prff-fig1's size (N = 10,000, d = 100) PRFF at the largest D is estimated as the
    /// spec's longest run, as it was measured (2.9 s of map time, results/prff-fig1/full.csv),
    /// and PRFF above RFF at every D (its fit is on top of the same projection).
    #[test]
    fn prff_at_the_largest_d_is_estimated_as_prff_fig1s_longest_run() {
        let plan = repository_plan("prff-fig1", "full");
        let size = DataSize {
            train_rows: 10_000,
            test_rows: 0,
            values_per_row: 100.0,
        };
        let d_of = |c: &Cell| c.map_params.usize("n_components");
        let longest = plan
            .cells
            .iter()
            .max_by(|a, b| cost(a, size).total_cmp(&cost(b, size)))
            .unwrap();
        assert_eq!((longest.map.name, d_of(longest)), ("prff", 1000));
        let at = |map: &str, n: usize| {
            let cell = plan
                .cells
                .iter()
                .find(|c| c.map.name == map && d_of(c) == n);
            cost(cell.expect("a cell of that map and D"), size)
        };
        for n in [25, 100, 500, 1000] {
            assert!(at("prff", n) > at("rff", n), "D = {n}");
        }
    }

    /// Jobs that each wait (up to `patience`) for another job to be running beside them; the
    /// most that ran at once, and the results.
    fn most_at_once(overlap: bool, threads: usize, patience: Duration) -> (usize, Vec<usize>) {
        let (running, most) = (Mutex::new(0usize), AtomicUsize::new(0));
        let company = Condvar::new();
        let costs = [1.0, 4.0, 2.0, 3.0];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let results = pool.install(|| {
            run_jobs(&costs, overlap, |i| {
                let mut now = running.lock().unwrap();
                *now += 1;
                most.fetch_max(*now, Ordering::SeqCst);
                company.notify_all();
                now = company
                    .wait_timeout_while(now, patience, |n| {
                        *n < 2 && most.load(Ordering::SeqCst) < 2
                    })
                    .unwrap()
                    .0;
                *now -= 1;
                10 * i
            })
        });
        (most.into_inner(), results)
    }

    /// The runner's overlapping runs really run at once (not one at a time under the label), and
    /// one-at-a-time runs never do; both give the results in the jobs' order.
    #[test]
    fn overlapping_jobs_run_at_once_and_the_others_one_at_a_time() {
        let (at_once, results) = most_at_once(true, 2, Duration::from_secs(30));
        assert_eq!((at_once, results), (2, vec![0, 10, 20, 30]));
        let (at_once, results) = most_at_once(false, 2, Duration::from_millis(20));
        assert_eq!((at_once, results), (1, vec![0, 10, 20, 30]));
    }

    #[test]
    fn one_worker_takes_the_sum_and_many_take_the_longest() {
        let seconds = [3.0, 1.0, 2.0, 5.0];
        assert_eq!(makespan(&seconds, &[0, 1, 2, 3], 1), 11.0);
        assert_eq!(makespan(&seconds, &[0, 1, 2, 3], 8), 5.0);
        assert_eq!(lower_bound(&seconds, 1), 11.0);
        assert_eq!(lower_bound(&seconds, 8), 5.0);
    }

    #[test]
    fn a_long_job_last_leaves_the_other_worker_idle_and_longest_first_does_not() {
        // Plan order: workers finish 1+1+1 and 1+1+6: 8 s. Longest first: 6 and 1+1+1+1+1: 6 s.
        let seconds = [1.0, 1.0, 1.0, 1.0, 1.0, 6.0];
        let plan: Vec<usize> = (0..6).collect();
        assert_eq!(makespan(&seconds, &plan, 2), 8.0);
        assert_eq!(makespan(&seconds, &longest_first(&seconds), 2), 6.0);
        assert_eq!(lower_bound(&seconds, 2), 6.0);
    }

    #[test]
    fn longest_first_keeps_the_order_of_equal_costs() {
        assert_eq!(longest_first(&[1.0, 3.0, 1.0, 3.0, 2.0]), [1, 3, 4, 0, 2]);
    }

    #[test]
    fn the_replay_never_beats_the_lower_bound() {
        let seconds = [4.0, 0.5, 7.0, 2.0, 2.0, 3.5, 0.1, 9.0];
        let costs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        for r in replay(&seconds, &costs, &[1, 2, 3, 16]) {
            for m in [r.plan_order, r.estimated, r.measured] {
                assert!(m >= r.lower_bound - 1e-12, "{r:?}");
            }
        }
        // Longest first on 2 workers: 9 | 7, 4 | 3.5 | 2 | 2 | 0.5, 0.1 ends at 14.5 (bound 14.05).
        let two = &replay(&seconds, &costs, &[2])[0];
        assert_eq!(two.measured, 14.5);
        assert!((two.lower_bound - 14.05).abs() < 1e-12);
    }
}
