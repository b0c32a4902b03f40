//! Whether the plan's runs overlap: several at a time on the runner's threads, as threads free
//! up, instead of one after another with every thread inside each.
//!
//! The kind decides ([`Overlap`]): `kernel-error` runs always overlap, `timing` runs never do,
//! and `learning` and `gram-error` runs overlap when the spec asks (`[run] overlap_runs = true`).
//! Overlapping runs time each other, so their clock metrics (`train_seconds`, ...) stop being
//! results: a spec that asks must have no figure, table, claim or paper value reading one,
//! directly, in a `{…}` template or through a `[sums]` metric. The results file then says so in
//! its `runs_overlapped` column. Every other metric is the same bits either way: each run draws
//! from its own seeds and none of the runner's kernels depends on the thread count.

use std::ops::Range;

use super::RawSpec;
use crate::error::{Error, Result};
use crate::spec_error::Checker;
use rfbench_registry::{KindInfo, Overlap};

/// Whether the runs overlap, given the kind and `[run] overlap_runs` (`requested`: its key and
/// span when true); refused with the key's line when the kind or an output forbids it.
pub(crate) fn resolve(
    raw: &RawSpec,
    c: Checker<'_>,
    kind: &KindInfo,
    requested: Option<(String, Range<usize>)>,
    columns: &[String],
    metrics: &[String],
    sums: &[(String, Vec<String>)],
) -> Result<bool> {
    let clock = kind.clock_metrics.join(", ");
    match (kind.overlap, &requested) {
        (Overlap::Never, Some((key, span))) => {
            let problem = format!(
                "`{}` runs never overlap: their clock metrics ({clock}) are the results",
                kind.name
            );
            return Err(c.at_span(key, span, problem).into());
        }
        (Overlap::Never | Overlap::OnRequest, None) => return Ok(false),
        _ => {}
    }
    let timed = |m: &String| kind.clock_metrics.contains(&m.as_str());
    let untimed: Vec<String> = metrics.iter().filter(|m| !timed(m)).cloned().collect();
    let sums: Vec<_> = sums
        .iter()
        .filter(|(_, parts)| !parts.iter().any(timed))
        .cloned()
        .collect();
    let Err(error) = raw.validate_outputs(c.text, c.path, columns, &untimed, &sums) else {
        return Ok(true);
    };
    let Error::Spec(mut e) = error else {
        return Err(error);
    };
    let why = format!(
        "runs that overlap time each other, so their clock metrics ({clock}) are not results an \
         output may read"
    );
    Err(match requested {
        Some((key, span)) => c.at_span(
            &key,
            &span,
            format!("{why}; this one does: {}", e.message()),
        ),
        None => {
            e.problem = format!(
                "`{}` runs always overlap, and {why}: {}",
                kind.name, e.problem
            );
            e
        }
    }
    .into())
}
