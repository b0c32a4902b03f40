//! `timing`: what a map costs. Cells run one at a time (a timing taken while another cell runs
//! measures the other cell), each in a thread pool of `threads` workers (0: all cores; the count
//! used is written to the results). After `warmup` untimed transforms, `repeats` timed ones:
//! the median is reported (robust to a stray slow run on a shared machine). Also: fitting time,
//! the time of one vector mapped on its own (`single_row_seconds`, the Fastfood paper's "time
//! per vector"), and the memory of the fitted map's own parameters.
//!
//! Timings are for comparing maps measured in the same run, on the same machine: report ratios.

use std::collections::BTreeMap;
use std::time::Instant;

use rfbench_maps::Rows;

use super::{median, CellContext, CellOutcome, KindInfo, SeedScope, SeedSpec, DATA_SEED, MAP_SEED};
use crate::data::subsample_indices;
use crate::error::{Error, Result};
use crate::registry::params::{count, Default, ParamKind, ParamSpec};

/// Rows mapped one at a time for `single_row_seconds`, per repeat.
const SINGLE_ROWS: usize = 16;

pub const KIND: KindInfo = KindInfo {
    name: "timing",
    doc: "Feature-construction time: fit time, median transform time of n_rows rows over \
          `repeats` runs after `warmup`, seconds per row in a batch and for one row alone, \
          memory of the fitted map; cells one at a time, thread count set and recorded \
          (TS Fig. 2, Fastfood Table 1).",
    params: &[
        count(
            "n_rows",
            None,
            "rows mapped per timed run (sampled from the training rows)",
        ),
        count("repeats", Some(5), "timed runs; the median is reported"),
        ParamSpec {
            name: "warmup",
            kind: ParamKind::Int { min: 0, max: 1000 },
            default: Some(Default::Int(1)),
            doc: "untimed runs first",
        },
        ParamSpec {
            name: "threads",
            kind: ParamKind::Int { min: 0, max: 1024 },
            default: Some(Default::Int(0)),
            doc: "worker threads (0: all cores)",
        },
    ],
    metrics: &[
        "fit_seconds",
        "map_seconds",
        "seconds_per_row",
        "rows_per_second",
        "single_row_seconds",
        "memory_bytes",
        "threads_used",
    ],
    seeds: &[
        MAP_SEED,
        SeedSpec {
            column: "sample_seed",
            prefix: Some("sample"),
            scope: SeedScope::Data { repetition: true },
            doc: "which rows are timed: the dataset's axes and the repetition",
        },
        DATA_SEED,
    ],
    uses_learner: false,
    needs_feature_map: true,
    parallel_cells: false,
    run,
};

fn run(ctx: &CellContext<'_>) -> Result<CellOutcome> {
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
        Ok(CellOutcome::Done(BTreeMap::from([
            ("fit_seconds".to_string(), fit_seconds),
            ("map_seconds".to_string(), map_seconds),
            ("seconds_per_row".to_string(), map_seconds / n_rows as f64),
            ("rows_per_second".to_string(), n_rows as f64 / map_seconds),
            ("single_row_seconds".to_string(), median(&mut single)),
            ("memory_bytes".to_string(), map.memory_bytes() as f64),
            (
                "threads_used".to_string(),
                rayon::current_num_threads() as f64,
            ),
        ])))
    })
}
