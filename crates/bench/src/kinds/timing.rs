//! `timing`: what a map costs. Cells run one at a time (a timing taken while another cell runs
//! measures the other cell), each in a thread pool of `threads` workers (0: all cores; the count
//! used is written to the results). After `warmup` untimed transforms, `repeats` timed ones:
//! the median is reported (robust to a stray slow run on a shared machine). Also: fitting time,
//! the time of one vector mapped on its own (`single_row_seconds`, the Fastfood paper's "time
//! per vector"), and the memory of the fitted map's own parameters.
//!
//! Timings are for comparing maps measured in the same run, on the same machine: report ratios.

use std::time::Instant;

use rfbench_maps::Rows;

use super::{median, CellContext, CellOutcome};
use crate::error::{Error, Result};
use rfbench_data::subsample_indices;

/// Rows mapped one at a time for `single_row_seconds`, per repeat.
const SINGLE_ROWS: usize = 16;

pub(super) fn run(ctx: &CellContext<'_>) -> Result<CellOutcome> {
    let p = &ctx.cell.kind_params;
    let (n_rows, repeats, warmup) = (p.usize("n_rows"), p.usize("repeats"), p.usize("warmup"));
    let threads = p.usize("threads");
    let n_train = ctx.data.n_train;
    if n_rows > n_train {
        return Ok(CellOutcome::Skipped(format!(
            "n_rows = {n_rows} but the dataset has {n_train} training rows"
        )));
    }
    let rows = subsample_indices(n_train, n_rows, ctx.seed("sample_seed"))?;
    let x = ctx.data.x.select_rows(&rows);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Experiment(format!("thread pool of {threads}: {e}")))?;
    pool.install(|| {
        let start = Instant::now();
        let map = ctx.build_map(Rows::Sparse(&x))?;
        let fit_seconds = start.elapsed().as_secs_f64();
        for _ in 0..warmup {
            map.transform(Rows::Sparse(&x))?;
        }
        let mut batch = Vec::with_capacity(repeats);
        let mut single = Vec::with_capacity(repeats);
        let mut out = vec![0.0; map.output_dim()];
        for r in 0..repeats {
            let start = Instant::now();
            let z = map.transform(Rows::Sparse(&x))?;
            batch.push(start.elapsed().as_secs_f64());
            drop(z);
            let start = Instant::now();
            for k in 0..SINGLE_ROWS {
                map.map_row(&x.row((r * SINGLE_ROWS + k) % n_rows), &mut out)?;
            }
            single.push(start.elapsed().as_secs_f64() / SINGLE_ROWS as f64);
        }
        let map_seconds = median(&mut batch);
        let mut metrics = ctx.metrics()?;
        metrics.extend([
            ("fit_seconds", fit_seconds),
            ("map_seconds", map_seconds),
            ("seconds_per_row", map_seconds / n_rows as f64),
            ("rows_per_second", n_rows as f64 / map_seconds),
            ("single_row_seconds", median(&mut single)),
            ("memory_bytes", map.memory_bytes() as f64),
            ("threads_used", rayon::current_num_threads() as f64),
        ])?;
        Ok(CellOutcome::Done(metrics.finish()))
    })
}
