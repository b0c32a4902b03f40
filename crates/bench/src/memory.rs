//! The memory a cell will need, estimated from the plan before anything runs: a value that
//! cannot fit (`n_components = [200000000]`, `degree = [4000000000]`, `pairs` in the billions)
//! is refused with its key, line, value and the estimate, instead of an allocation failure
//! minutes into the run.
//!
//! The estimate adds the large allocations of one cell, in 8-byte values, from the sizes the
//! plan already knows (the registry's `n` and `d`, a generator's parameters, the cell's
//! parameters): the input rows (dense: an upper bound for sparse data), the features of the rows
//! mapped at once (dense, the map's output dimension wide), the map's own state, and the
//! learner's kernel matrix or kernel-row cache. A map's output dimension and state are declared
//! by its registry entry ([`MapSize`]: random binning's `n_grids x width` columns); this module
//! only adds them up, and names the key at fault with the line the plan recorded for it. It is meant to catch values orders of magnitude too large, not to predict
//! the peak to the megabyte. The limit is the machine's memory unless `--memory-limit GB`
//! says otherwise.

use crate::error::Result;
use crate::kinds::STREAM_ABOVE_BYTES;
use crate::spec::{Cell, DatasetSource, Plan, SpecError};
use rfbench_data::Registry;
use rfbench_learners::DEFAULT_MAX_KERNEL_BYTES;
use rfbench_registry::learners::{wiring, STREAM_BLOCK_ROWS};
use rfbench_registry::maps::MapSize;
use rfbench_registry::{Needs, Value};

/// One term of the estimate: bytes, what they are, and the parameter that drives them.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub bytes: u128,
    pub what: String,
    /// The spec key to blame when this term is too large.
    pub key: &'static str,
}

/// The machine's physical memory (`MemTotal` of `/proc/meminfo`), or 16 GiB where unknown.
pub fn default_limit() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or(16 << 30, |kib| kib << 10)
}

/// The terms of `cell`'s estimate; `rows`, `d` the dataset's size, `rows_key` the key that sets
/// them (`n` for a generator, `dataset` for a registry entry). The map's output dimension and
/// state come from its registry entry ([`MapSize`]); this function only adds them up.
pub fn estimate(cell: &Cell, rows: u128, d: u128, rows_key: &'static str) -> Vec<Term> {
    let count = |v: Option<&Value>| v.and_then(|v| v.as_usize()).map(|v| v as u128);
    let kind = |name: &str| count(cell.kind_params.get(name));
    // Rows mapped at once: the sampled pairs' rows, the Gram sample, or every row.
    let (mapped, mapped_key) = match (kind("pairs"), kind("n_samples")) {
        (Some(pairs), _) => (2 * pairs, "pairs"),
        (_, Some(samples)) => (samples.min(rows), "n_samples"),
        _ => (rows, rows_key),
    };
    let degree = count(cell.kernel_params.get("degree")).unwrap_or(1).max(1);
    let mut terms = vec![Term {
        bytes: 8 * rows * d,
        what: format!("input rows ({rows} x {d}, dense)"),
        key: rows_key,
    }];
    let size: MapSize = cell.map.size;
    if let Some(width) = (size.output_dim)(&cell.map_params) {
        // The parameter to blame for the output dimension: the map's largest count
        // (n_components; width rather than n_grids for binning).
        let dim_key = cell
            .map
            .params
            .iter()
            .filter_map(|p| Some((count(cell.map_params.get(p.name))?, p.name)))
            .max()
            .map_or("n_components", |(_, name)| name);
        let width_key = if width > mapped { dim_key } else { mapped_key };
        terms.push(features_term(cell, mapped, width, width_key));
        let state = (size.state)(&cell.map_params, width, d, degree);
        terms.push(Term {
            bytes: 8 * state,
            what: format!(
                "the map's state ({state} values: D = {width}, d = {d}, degree {degree})"
            ),
            key: if degree > width { "degree" } else { dim_key },
        });
    }
    if let Some(learner) = cell.learner.filter(|l| l.needs == Needs::Kernel) {
        terms.push(kernel_term(cell, learner.name, rows, rows_key));
    }
    terms
}

/// The features of the `mapped` rows, `width` dense columns: all at once, or, for a learner that
/// takes them in blocks (ridge, the linear SVM) above the learning kind's threshold, one block
/// and what the learner holds across blocks.
fn features_term(cell: &Cell, mapped: u128, width: u128, key: &'static str) -> Term {
    let features = 8 * mapped * width;
    let streamed = cell
        .learner
        .and_then(|l| wiring(l).train_streamed)
        .filter(|_| features > STREAM_ABOVE_BYTES);
    if let Some(streamed) = streamed {
        let held = (streamed.held_bytes)(width, features);
        Term {
            bytes: 8 * (STREAM_BLOCK_ROWS as u128) * width + held,
            what: format!(
                "features in blocks of {STREAM_BLOCK_ROWS} rows x {width}, and {}",
                streamed.held
            ),
            key,
        }
    } else {
        Term {
            bytes: features,
            what: format!("features ({mapped} rows x {width})"),
            key,
        }
    }
}

/// A kernel learner's kernel-row cache, or its full kernel matrix (capped by the learner
/// itself: above its cap the cell is skipped with that reason, so the cap is what it can
/// allocate).
fn kernel_term(cell: &Cell, learner: &str, rows: u128, rows_key: &'static str) -> Term {
    match cell
        .learner_params
        .get("cache_mb")
        .and_then(|v| v.as_usize())
    {
        Some(mb) => Term {
            bytes: (mb as u128) << 20,
            what: format!("the kernel-row cache ({mb} MiB)"),
            key: "cache_mb",
        },
        None => Term {
            bytes: (8 * rows * rows).min(DEFAULT_MAX_KERNEL_BYTES),
            what: format!(
                "the {learner} kernel matrix ({rows} x {rows}, at most {} GiB)",
                DEFAULT_MAX_KERNEL_BYTES >> 30
            ),
            key: rows_key,
        },
    }
}

/// Refuses the plan when a cell's estimate exceeds its share of `limit` bytes (`limit /
/// at_once`: `at_once` runs may be in memory together when runs overlap): the error names the
/// key that drives the largest term, with its line in the spec, the cell and the estimate.
pub fn check(plan: &Plan, datasets: &Registry, limit: u64, at_once: usize) -> Result<()> {
    let share = limit / at_once.max(1) as u64;
    for cell in &plan.cells {
        let (rows, d, rows_key) = match cell.source {
            DatasetSource::Synthetic(_) => {
                let get = |k: &str| {
                    cell.data_params
                        .get(k)
                        .and_then(|v| v.as_usize())
                        .unwrap_or(0)
                };
                (get("n") as u128, get("d") as u128, "n")
            }
            DatasetSource::Registry => match datasets.get(&cell.dataset) {
                Ok(entry) => {
                    let n = entry
                        .subsample
                        .as_ref()
                        .map_or(entry.n, |s| s.n.min(entry.n));
                    (n as u128, entry.d as u128, "dataset")
                }
                Err(_) => continue, // reported when the cell runs
            },
        };
        let terms = estimate(cell, rows, d, rows_key);
        let total: u128 = terms.iter().map(|t| t.bytes).sum();
        if total <= share as u128 {
            continue;
        }
        let largest = terms.iter().max_by_key(|t| t.bytes).expect("input rows");
        let value = cell
            .get(largest.key)
            .map(|v| v.to_string())
            .or_else(|| {
                [
                    &cell.map_params,
                    &cell.kernel_params,
                    &cell.learner_params,
                    &cell.data_params,
                    &cell.kind_params,
                ]
                .iter()
                .find_map(|p| p.get(largest.key).map(|v| v.to_string()))
            })
            .unwrap_or_else(|| "?".into());
        let parts: Vec<String> = terms
            .iter()
            .filter(|t| t.bytes > 0)
            .map(|t| format!("{} {}", gb(t.bytes), t.what))
            .collect();
        let above = match at_once {
            0 | 1 => format!("the memory limit of {}", gb(limit as u128)),
            n => format!(
                "the memory limit of {} shared by the {n} runs that may overlap ({} each)",
                gb(limit as u128),
                gb(share as u128)
            ),
        };
        let problem = format!(
            "`{} = {value}`: the cell with map = {}, dataset = {} would need about {} ({}), \
             above {above} (this machine's memory unless --memory-limit GB says otherwise)",
            largest.key,
            cell.map.name,
            cell.dataset,
            gb(total),
            parts.join(" + "),
        );
        return Err(match plan.written_at.get(largest.key) {
            Some((key, line)) => SpecError::at(&plan.source, key, *line, problem),
            None => SpecError::whole(&plan.source, problem),
        }
        .into());
    }
    Ok(())
}

fn gb(bytes: u128) -> String {
    if bytes < 1_000_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.1} GB", bytes as f64 / 1e9)
    }
}
