//! How many threads the Rust work of one call uses: an estimator's `n_jobs`, else the package's
//! setting (`rfbench.set_num_threads`, which `threadpoolctl.threadpool_limits` reaches through
//! the controller in `python/rfbench/_threads.py`), else `RAYON_NUM_THREADS` or
//! `OMP_NUM_THREADS`, else every core.
//!
//! **Why pools of our own.** The maps parallelise with rayon; rayon's global pool is sized once,
//! from `RAYON_NUM_THREADS` or the core count, and cannot be resized, so neither `n_jobs` nor
//! threadpoolctl could reach it. Each call instead runs inside a pool of the asked size (kept for
//! the next call of that size: building one starts its threads). The maps' features do not
//! depend on the thread count (their conformance tests check it), so `n_jobs` changes the speed,
//! never the result.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::error::value_error;

/// The package's thread count; 0 means every core.
static NUM_THREADS: AtomicUsize = AtomicUsize::new(0);

/// One pool per size asked for so far.
fn pools() -> &'static Mutex<HashMap<usize, Arc<ThreadPool>>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    POOLS.get_or_init(Default::default)
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
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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
    let n = resolve(n_jobs);
    let pool = {
        let mut pools = pools().lock().unwrap_or_else(|e| e.into_inner());
        match pools.get(&n) {
            Some(pool) => Arc::clone(pool),
            None => {
                let pool = ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("rfbench-{i}"))
                    .build()
                    .map_err(value_error)?;
                Arc::clone(pools.entry(n).or_insert(Arc::new(pool)))
            }
        }
    };
    Ok(pool.install(f))
}

/// Sets the thread count of calls without `n_jobs` (0: every core); returns the previous one
/// (0 when it was every core).
#[pyfunction]
fn set_num_threads(n: usize) -> usize {
    NUM_THREADS.swap(n, Ordering::Relaxed)
}

/// The thread count a call without `n_jobs` uses now.
#[pyfunction]
fn get_num_threads() -> usize {
    resolve(0)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    Ok(())
}
