//! `learning`: fit the map on the training rows, train the learner on their features, score the
//! test rows. Nothing about the test rows is seen before prediction: the map's data-dependent
//! fit (Nystroem's landmarks, PRFF), the learner's cross-validation and a bandwidth rule all use
//! the training rows only.
//!
//! Metrics: classification `accuracy` (%) and `error_percent`; regression `rmse` and
//! `normalized_rmse` (RMSE over the test targets' standard deviation); `map_seconds` (fitting
//! the map and mapping the training and test rows), `train_seconds`, `predict_seconds`, and the
//! learner's own diagnostics. `train_size` > 0 trains on a seeded subsample of the training rows
//! (Rahimi & Recht's Fig. 3, error against training-set size). A cell that cannot run (an exact
//! kernel matrix above the memory limit) is recorded as skipped with the reason.

use std::cell::Cell;
use std::time::Instant;

use rfbench_learners::{
    cross_validate_parameter, metrics, CrossValidation, GridSearch, LearnerError, Simpler,
};
use rfbench_maps::{CsrMatrix, DynFeatureMap, Kernel, Rows};

use super::{CellContext, CellOutcome, KernelSearch};
use crate::error::{Error, Result};
use crate::seeds::derive_seed;
use rfbench_data::subsample_indices;
use rfbench_registry::learners::{
    wiring, Blocks, LearnerInput, LearnerOutput, StreamInput, StreamTrainer, STREAM_BLOCK_ROWS,
};
use rfbench_registry::{ChosenBy, Features, TaskKind, Tuned};

pub(super) fn run(ctx: &CellContext<'_>) -> Result<CellOutcome> {
    let data = ctx.data;
    let (n, n_train) = (data.x.n_rows(), data.n_train);
    if n_train == n {
        return Ok(CellOutcome::Skipped(format!(
            "dataset {:?} has no test rows",
            ctx.cell.dataset
        )));
    }
    let train_size = ctx.cell.kind_params.usize("train_size");
    let train_idx: Vec<usize> = if train_size > 0 {
        if train_size > n_train {
            return Ok(CellOutcome::Skipped(format!(
                "train_size = {train_size} but the dataset has {n_train} training rows"
            )));
        }
        subsample_indices(n_train, train_size, ctx.seed("split_seed"))?
    } else {
        (0..n_train).collect()
    };
    let test_idx: Vec<usize> = (n_train..n).collect();
    let (x_train, x_test) = (
        data.x.select_rows(&train_idx),
        data.x.select_rows(&test_idx),
    );
    let y_train: Vec<f64> = train_idx.iter().map(|&i| data.y[i]).collect();
    let y_test: Vec<f64> = test_idx.iter().map(|&i| data.y[i]).collect();

    let mut m = ctx.metrics()?;
    let kernel = match &ctx.kernel_search {
        None => ctx.kernel.unwrap_or_else(Kernel::linear),
        Some(search) => match choose_bandwidth(ctx, search, &x_train, &y_train) {
            Ok(found) => {
                m.tuned(&Tuned {
                    param: search.param.clone(),
                    by: ChosenBy::Kernel,
                    chosen: found.chosen,
                    at_edge: Some(found.at_edge),
                })?;
                search.kernel(found.chosen)?
            }
            Err(Error::Learner(e @ LearnerError::KernelTooLarge { .. })) => {
                return Ok(CellOutcome::Skipped(e.to_string()));
            }
            Err(e) => return Err(e),
        },
    };
    let fitted = match fit(ctx, kernel, &x_train, &y_train, &x_test) {
        Ok(fitted) => fitted,
        Err(Error::Learner(e @ LearnerError::KernelTooLarge { .. })) => {
            return Ok(CellOutcome::Skipped(e.to_string()));
        }
        Err(e) => return Err(e),
    };
    let output = fitted.output;

    let classes = |v: &[f64]| v.iter().map(|&c| c as i64).collect::<Vec<_>>();
    match ctx.cell.task {
        TaskKind::Classification => {
            let (truth, predicted) = (classes(&y_test), classes(&output.predictions));
            m.set("accuracy", 100.0 * metrics::accuracy(&truth, &predicted)?)?;
            m.set(
                "error_percent",
                metrics::misclassification_percent(&truth, &predicted)?,
            )?;
        }
        TaskKind::Regression => {
            m.set("rmse", metrics::rmse(&y_test, &output.predictions)?)?;
            m.set(
                "normalized_rmse",
                metrics::normalized_rmse(&y_test, &output.predictions)?,
            )?;
        }
    }
    m.extend([
        ("n_features", fitted.n_features as f64),
        ("map_seconds", fitted.map_seconds),
        ("train_seconds", output.train_seconds),
        ("predict_seconds", output.predict_seconds),
    ])?;
    m.extend(output.extras)?;
    for tuned in &output.tuned {
        m.tuned(tuned)?;
    }
    Ok(CellOutcome::Done(m.finish()))
}

/// One fit of the cell's pipeline with `kernel`: the map fitted on `x_train` and applied to both
/// sets, the learner trained on the training features, predictions for `x_test`.
struct Fitted {
    output: LearnerOutput,
    map_seconds: f64,
    n_features: usize,
}

fn fit(
    ctx: &CellContext<'_>,
    kernel: Kernel,
    x_train: &CsrMatrix,
    y_train: &[f64],
    x_test: &CsrMatrix,
) -> Result<Fitted> {
    let learner = ctx.cell.learner.ok_or_else(|| {
        Error::Experiment("a learning cell without a learner (checked by the spec)".into())
    })?;
    let start = Instant::now();
    let features = match ctx.cell.map.features {
        Features::Map(_) => {
            let map = ctx.build_map_for(kernel, Rows::Sparse(x_train))?;
            let dense_bytes = x_train.n_rows() as u128 * map.output_dim() as u128 * 8;
            if let Some(streamed) = wiring(learner).train_streamed {
                if dense_bytes > STREAM_ABOVE_BYTES {
                    let fit_seconds = start.elapsed().as_secs_f64();
                    return fit_streamed(
                        ctx,
                        streamed.train,
                        map.as_ref(),
                        fit_seconds,
                        x_train,
                        y_train,
                        x_test,
                    );
                }
            }
            Some((
                map.transform(Rows::Sparse(x_train))?,
                map.transform(Rows::Sparse(x_test))?,
            ))
        }
        Features::Exact | Features::Raw => None,
    };
    let map_seconds = start.elapsed().as_secs_f64();
    let (train, test, n_features) = match &features {
        Some((z, zt)) => (Rows::Dense(z.view()), Rows::Dense(zt.view()), z.ncols()),
        None => (
            Rows::Sparse(x_train),
            Rows::Sparse(x_test),
            x_train.n_cols(),
        ),
    };
    let input = LearnerInput {
        params: &ctx.cell.learner_params,
        kernel: &kernel,
        seed: ctx.seed("seed"),
        task: ctx.cell.task,
        train,
        test,
        y_train,
    };
    let output = (wiring(learner).train)(&input)?;
    Ok(Fitted {
        output,
        map_seconds,
        n_features,
    })
}

/// Above this many bytes of dense training features a learner that can is handed its features a
/// block of rows at a time ([`Blocks`]) instead of all at once: ridge on Forest (522,910 rows) at
/// D = 5,000 would need 21 GB, random binning at P = 50 grids of width 64 13 GB. Below it the
/// features are built once, densely (the same model up to the order of the sums in `Z'Z`).
pub const STREAM_ABOVE_BYTES: u128 = 1 << 30;

/// [`fit`] with the features streamed: the map applied to blocks of rows as the learner asks for
/// them; the time spent mapping is moved from the learner's times to `map_seconds`.
fn fit_streamed(
    ctx: &CellContext<'_>,
    train: StreamTrainer,
    map: &dyn DynFeatureMap,
    fit_seconds: f64,
    x_train: &CsrMatrix,
    y_train: &[f64],
    x_test: &CsrMatrix,
) -> Result<Fitted> {
    let (mapping_train, mapping_test) = (Cell::new(0.0), Cell::new(0.0));
    let features = |x: &CsrMatrix, spent: &Cell<f64>, r: std::ops::Range<usize>| {
        let start = Instant::now();
        let rows: Vec<usize> = r.collect();
        let z = map
            .transform(Rows::Sparse(&x.select_rows(&rows)))
            .map_err(|e| LearnerError::Pipeline(e.to_string()))?;
        spent.set(spent.get() + start.elapsed().as_secs_f64());
        Ok(z)
    };
    let train_features = |r| features(x_train, &mapping_train, r);
    let test_features = |r| features(x_test, &mapping_test, r);
    let input = StreamInput {
        params: &ctx.cell.learner_params,
        seed: ctx.seed("seed"),
        task: ctx.cell.task,
        train: Blocks {
            n_rows: x_train.n_rows(),
            n_features: map.output_dim(),
            block_rows: STREAM_BLOCK_ROWS,
            features: &train_features,
        },
        test: Blocks {
            n_rows: x_test.n_rows(),
            n_features: map.output_dim(),
            block_rows: STREAM_BLOCK_ROWS,
            features: &test_features,
        },
        y_train,
    };
    let mut output = train(&input)?;
    output.train_seconds -= mapping_train.get();
    output.predict_seconds -= mapping_test.get();
    Ok(Fitted {
        output,
        map_seconds: fit_seconds + mapping_train.get() + mapping_test.get(),
        n_features: map.output_dim(),
    })
}

/// The bandwidth of `search` with the least validation loss over k folds of the training rows
/// (misclassifications, or squared error for regression), the whole pipeline (map, learner with
/// its own settings, a learner's own cross-validation included) refitted on each fold. Ties go
/// to the larger bandwidth (the smoother kernel). Folds from the cell's seed.
fn choose_bandwidth(
    ctx: &CellContext<'_>,
    search: &KernelSearch,
    x_train: &CsrMatrix,
    y_train: &[f64],
) -> Result<GridSearch> {
    let cv = CrossValidation {
        grid: search.search.candidates.clone(),
        folds: search.search.folds,
        seed: derive_seed(ctx.seed("seed"), "bandwidth-cv"),
        limits: None,
    };
    let task = ctx.cell.task;
    let found = cross_validate_parameter(&cv, x_train.n_rows(), Simpler::Larger, |value, t, v| {
        let kernel = search
            .kernel(value)
            .map_err(|e| LearnerError::Pipeline(e.to_string()))?;
        let y_t: Vec<f64> = t.iter().map(|&i| y_train[i]).collect();
        let fitted = fit(
            ctx,
            kernel,
            &x_train.select_rows(t),
            &y_t,
            &x_train.select_rows(v),
        )
        .map_err(|e| match e {
            Error::Learner(e) => e,
            other => LearnerError::Pipeline(other.to_string()),
        })?;
        Ok(v.iter()
            .zip(&fitted.output.predictions)
            .map(|(&i, &p)| match task {
                TaskKind::Classification => f64::from(u8::from(p != y_train[i])),
                TaskKind::Regression => (p - y_train[i]).powi(2),
            })
            .sum())
    });
    Ok(found?)
}
