//! The memory a cell will need, estimated from the plan before anything runs: a value that
//! cannot fit (`n_components = [200000000]`, `degree = [4000000000]`, `pairs` in the billions)
//! is refused with its key, line, value and the estimate, instead of an allocation failure
//! minutes into the run.
//!
//! The estimate adds the large allocations of one cell, in 8-byte values, from the sizes the
//! plan already knows (the registry's `n` and `d`, a generator's parameters, the cell's
//! parameters): the input rows (dense: an upper bound for sparse data), the features of the rows
//! mapped at once, the map's own state (bounded by `D x d x degree`, Random Maclaurin's size;
//! plus `D x D` for maps fitted on data, Nystroem's), and the learner's kernel matrix or
//! kernel-row cache. It is meant to catch values orders of magnitude too large, not to predict
//! the peak to the megabyte. The limit is the machine's memory unless `--memory-limit GB`
//! says otherwise.

use crate::data::Registry;
use crate::error::Result;
use crate::kinds::STREAM_ABOVE_BYTES;
use crate::registry::learners::STREAM_BLOCK_ROWS;
use crate::registry::Needs;
use crate::spec::{Cell, DatasetSource, Plan, SpecError};
use rfbench_learners::DEFAULT_MAX_KERNEL_BYTES;

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
/// them (`n` for a generator, `dataset` for a registry entry).
pub fn estimate(cell: &Cell, rows: u128, d: u128, rows_key: &'static str) -> Vec<Term> {
    let count =
        |v: Option<&crate::registry::Value>| v.and_then(|v| v.as_usize()).map(|v| v as u128);
    let kind = |name: &str| count(cell.kind_params.get(name));
    // Rows mapped at once: the sampled pairs' rows, the Gram sample, or every row.
    let (mapped, mapped_key) = match (kind("pairs"), kind("n_samples")) {
        (Some(pairs), _) => (2 * pairs, "pairs"),
        (_, Some(samples)) => (samples.min(rows), "n_samples"),
        _ => (rows, rows_key),
    };
    let degree = count(cell.kernel_params.get("degree")).unwrap_or(1).max(1);
    let n_components = count(cell.map_params.get("n_components"));
    // A map without n_components (binning) writes n_grids non-zeros per row (index and value).
    let width = n_components.or_else(|| count(cell.map_params.get("n_grids")).map(|g| 2 * g));
    let mut terms = vec![Term {
        bytes: 8 * rows * d,
        what: format!("input rows ({rows} x {d}, dense)"),
        key: rows_key,
    }];
    if let Some(width) = width {
        let width_key = if width > mapped {
            "n_components"
        } else {
            mapped_key
        };
        let features = 8 * mapped * width;
        // A learner that takes its features in blocks (ridge) gets them so above the learning
        // kind's threshold, and keeps only Z'Z.
        let streamed = cell.learner.is_some_and(|l| l.train_streamed.is_some())
            && features > STREAM_ABOVE_BYTES;
        terms.push(if streamed {
            Term {
                bytes: 8 * (STREAM_BLOCK_ROWS as u128) * width + 8 * width * width,
                what: format!("features in blocks of {STREAM_BLOCK_ROWS} rows x {width}, and Z'Z"),
                key: width_key,
            }
        } else {
            Term {
                bytes: features,
                what: format!("features ({mapped} rows x {width})"),
                key: width_key,
            }
        });
        let mut state = 8 * width * d * degree;
        if cell.map.fits_on_data {
            state += 8 * width * width;
        }
        terms.push(Term {
            bytes: state,
            what: format!("the map's state (bounded by D x d x degree = {width} x {d} x {degree})"),
            key: if degree > width {
                "degree"
            } else {
                "n_components"
            },
        });
    }
    if let Some(learner) = cell.learner.filter(|l| l.needs == Needs::Kernel) {
        match count(cell.learner_params.get("cache_mb")) {
            Some(mb) => terms.push(Term {
                bytes: mb << 20,
                what: format!("the kernel-row cache ({mb} MiB)"),
                key: "cache_mb",
            }),
            // The full kernel matrix is capped by the learner itself: above its cap the cell
            // is skipped with that reason, so the cap is what it can allocate.
            None => terms.push(Term {
                bytes: (8 * rows * rows).min(DEFAULT_MAX_KERNEL_BYTES),
                what: format!(
                    "the {} kernel matrix ({rows} x {rows}, at most {} GiB)",
                    learner.name,
                    DEFAULT_MAX_KERNEL_BYTES >> 30
                ),
                key: rows_key,
            }),
        }
    }
    terms
}

/// Refuses the plan when a cell's estimate exceeds `limit` bytes: the error names the key that
/// drives the largest term, with its line in the spec, the cell and the estimate.
pub fn check(plan: &Plan, datasets: &Registry, limit: u64) -> Result<()> {
    let text = std::fs::read_to_string(&plan.source).unwrap_or_default();
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
        if total <= limit as u128 {
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
        let line = key_line(&text, largest.key)
            .map(|l| format!(" (line {l})"))
            .unwrap_or_default();
        let parts: Vec<String> = terms
            .iter()
            .filter(|t| t.bytes > 0)
            .map(|t| format!("{} {}", gb(t.bytes), t.what))
            .collect();
        return Err(SpecError::whole(
            &plan.source,
            format!(
                "`{} = {value}`{line}: the cell with map = {}, dataset = {} would need about \
                 {} ({}), above the memory limit of {} (this machine's memory unless \
                 --memory-limit GB says otherwise)",
                largest.key,
                cell.map.name,
                cell.dataset,
                gb(total),
                parts.join(" + "),
                gb(limit as u128),
            ),
        )
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

/// The line of the first `key = ...` (or a zipped `"a, key" = ...`) in the spec's text.
fn key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            let Some((lhs, _)) = line.split_once('=') else {
                return false;
            };
            !line.starts_with('#')
                && lhs
                    .trim()
                    .trim_matches('"')
                    .split(',')
                    .any(|name| name.trim() == key)
        })
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_lines() {
        let text = "# n_components = 1\n[grid]\n\"map, n_components\" = [[\"rff\", 5]]\nn = 3\n";
        assert_eq!(key_line(text, "n_components"), Some(3));
        assert_eq!(key_line(text, "n"), Some(4));
        assert_eq!(key_line(text, "degree"), None);
    }
}
