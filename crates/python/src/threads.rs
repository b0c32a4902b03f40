//! How many threads the Rust work of one call uses: an estimator's `n_jobs`, else the package's
//! setting (`rfbench.set_num_threads`, which `threadpoolctl.threadpool_limits` reaches through
//! the controller in `python/rfbench/_threads.py`), else `RAYON_NUM_THREADS` or
//! `OMP_NUM_THREADS`, else every core.
//!
//! **Why pools of our own.** The maps parallelise with rayon; rayon's global pool is sized once,
//! from `RAYON_NUM_THREADS` or the core count, and cannot be resized, so neither `n_jobs` nor
//! threadpoolctl could reach it. Each call instead runs inside a pool of the asked size. The
//! maps' features do not depend on the thread count (their conformance tests check it), so
//! `n_jobs` changes the speed, never the result.
//!
//! **Bounds.** A count is at most [`max_threads`]: 4 per core, and at least 64 on any machine.
//! The work is CPU-bound, so threads beyond the cores only add start-up and switching (4,096
//! took 26 s to start, 2^40 hung); a few per core still allows oversubscription on purpose, and
//! the floor of 64 keeps counts that start in milliseconds valid where the core count is small
//! or under-reported (containers). A larger count is a `ValueError` naming the cap, raised
//! before any thread starts; an environment variable above it is clamped (it is not an argument
//! of the call to refuse). Only the last pool used is kept for the next call: keeping one per
//! size kept every size's threads for the process's life (4 calls left 1,799 threads).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::error::value_error;

/// The package's thread count; 0 means every core.
static NUM_THREADS: AtomicUsize = AtomicUsize::new(0);

/// The pool of the last call, kept for the next call of the same size; replaced (and its
/// threads ended once its running calls return) when a call asks for another size.
fn last_pool() -> &'static Mutex<Option<(usize, Arc<ThreadPool>)>> {
    static LAST: OnceLock<Mutex<Option<(usize, Arc<ThreadPool>)>>> = OnceLock::new();
    LAST.get_or_init(Default::default)
}

/// Threads per core allowed (module doc, "Bounds").
const THREADS_PER_CORE: usize = 4;
/// The cap on machines with few cores.
const MIN_THREAD_CAP: usize = 64;

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The largest thread count a call or `set_num_threads` takes.
fn max_threads() -> usize {
    (THREADS_PER_CORE * cores()).max(MIN_THREAD_CAP)
}

/// `n` if it is at most the cap, else a `ValueError` naming `what` and the cap.
fn check_count(what: &str, n: usize) -> PyResult<usize> {
    let cap = max_threads();
    if n > cap {
        return Err(value_error(format!(
            "{what} = {n} threads is too many: at most {cap} ({THREADS_PER_CORE} per core on \
             {} cores, and at least {MIN_THREAD_CAP}); the work is CPU-bound, so more threads \
             than cores only add overhead",
            cores()
        )));
    }
    Ok(n)
}

/// The count when nothing was set: `RAYON_NUM_THREADS` (rayon's own variable), else
/// `OMP_NUM_THREADS`, else every core. joblib's process workers (scikit-learn's `n_jobs`) set
/// `OMP_NUM_THREADS` to their share of the cores, so a grid search's workers do not each start a
/// thread per core.
fn unset_default() -> usize {
    let from_env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    from_env("RAYON_NUM_THREADS")
        .or_else(|| from_env("OMP_NUM_THREADS"))
        .map_or_else(cores, |n| n.min(max_threads()))
}

/// The thread count a call with `n_jobs` uses: `n_jobs` if given (>= 1), else the package's
/// setting, else [`unset_default`].
fn resolve(n_jobs: usize) -> usize {
    match (n_jobs, NUM_THREADS.load(Ordering::Relaxed)) {
        (0, 0) => unset_default(),
        (0, set) => set,
        (n, _) => n,
    }
}

/// Runs `f` in a rayon pool of the size `n_jobs` resolves to (0: the package's setting).
pub fn install<T: Send>(n_jobs: usize, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let n = check_count("n_jobs", resolve(n_jobs))?;
    let pool = {
        let mut last = last_pool().lock().unwrap_or_else(|e| e.into_inner());
        match &*last {
            Some((size, pool)) if *size == n => Arc::clone(pool),
            _ => {
                let pool = Arc::new(
                    ThreadPoolBuilder::new()
                        .num_threads(n)
                        .thread_name(|i| format!("rfbench-{i}"))
                        .build()
                        .map_err(value_error)?,
                );
                // The replaced pool is dropped here unless a call still runs in it; rayon
                // ends its threads when the last handle goes.
                *last = Some((n, Arc::clone(&pool)));
                pool
            }
        }
    };
    Ok(pool.install(f))
}

/// Sets the thread count of calls without `n_jobs` (0: every core); returns the previous one
/// (0 when it was every core).
#[pyfunction]
fn set_num_threads(n: usize) -> PyResult<usize> {
    Ok(NUM_THREADS.swap(check_count("set_num_threads", n)?, Ordering::Relaxed))
}

/// The largest count `n_jobs` and `set_num_threads` take (module doc, "Bounds").
#[pyfunction]
fn max_num_threads() -> usize {
    max_threads()
}

/// The thread count a call without `n_jobs` uses now.
#[pyfunction]
fn get_num_threads() -> usize {
    resolve(0)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(max_num_threads, m)?)?;
    Ok(())
}
