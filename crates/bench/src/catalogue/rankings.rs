//! What cuts across the catalogue: per dataset, the maps ranked at equal D by approximation
//! error (kernel-error and gram-error specs) and by accuracy or RMSE (learning specs), each spec's
//! own settings kept apart (its kernel, bandwidth, learner: one ranking per setting), ties
//! marked.
//!
//! Within a spec, cells are compared when they differ only in the map: the key is every
//! coordinate that every approximating map's row has (so map-specific parameters such as
//! PRFF's batch size or a Fourier map's form drop out), and `n_components` always. Neighbours
//! in the ranking are separated by `>` when a t test on their repetitions (paired where a seed
//! column pairs them, Welch's otherwise) rejects equality at 0.05, `~` otherwise: a description
//! of the committed numbers, not a family of claims, so no correction.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Run;
use crate::outputs::{number, shared_draw, CellStats, CellValue, Coordinates, Sample};
use crate::stats;

/// The metric a kind is ranked by, and whether higher is better; learning specs by accuracy
/// where their cells have one, else by RMSE.
fn metrics_of(kind: &str) -> &'static [(&'static str, bool)] {
    match kind {
        "kernel-error" => &[("relative_error", false)],
        "gram-error" => &[("relative_frobenius", false)],
        "learning" => &[("accuracy", true), ("rmse", false)],
        _ => &[],
    }
}

/// Whether `map` approximates a kernel (not the exact kernel, not the raw inputs).
fn approximates(map: &str) -> bool {
    rfbench_registry::map(map).is_some_and(|m| !m.kernels.is_empty() && m.name != "exact")
}

fn map_of(c: &Coordinates) -> Option<String> {
    match c.get("map") {
        Some(CellValue::Text(m)) if approximates(m) => Some(m.clone()),
        _ => None,
    }
}

/// One ranking: a dataset, the spec, the setting shared by its cells, D, the metric, and the
/// maps in order with `>` or `~` between them.
struct Ranking {
    dataset: String,
    spec: String,
    setting: String,
    d: String,
    metric: &'static str,
    order: String,
}

/// The cells of one spec's run ranked, for every key with at least two maps.
fn rank_run(spec: &str, run: &Run) -> Vec<Ranking> {
    let mut out = Vec::new();
    for &(metric, higher) in metrics_of(run.plan.kind.name) {
        let cells: Vec<CellStats> = run
            .results
            .summarise(metric)
            .into_iter()
            .filter(|c| c.stats.is_some() && map_of(&c.coordinates).is_some())
            .collect();
        if cells.is_empty() {
            continue;
        }
        // The key: every coordinate all the maps' cells have, and n_components.
        let shared: Vec<&String> = run
            .results
            .columns
            .coordinates
            .iter()
            .filter(|c| c.as_str() != "map")
            .filter(|c| {
                c.as_str() == "n_components"
                    || cells.iter().all(|cell| {
                        !matches!(cell.coordinates.get(*c), None | Some(CellValue::Empty))
                    })
            })
            .collect();
        let mut groups: BTreeMap<Vec<String>, Vec<&CellStats>> = BTreeMap::new();
        for cell in &cells {
            let key = shared
                .iter()
                .map(|c| {
                    cell.coordinates
                        .get(*c)
                        .map_or(String::new(), CellValue::to_field)
                })
                .collect();
            groups.entry(key).or_default().push(cell);
        }
        for (key, group) in groups {
            if let Some(r) = rank_group(spec, run, &shared, &key, &group, metric, higher) {
                out.push(r);
            }
        }
    }
    out
}

/// One group ranked, when it has two or more maps and one cell each.
fn rank_group(
    spec: &str,
    run: &Run,
    shared: &[&String],
    key: &[String],
    group: &[&CellStats],
    metric: &'static str,
    higher: bool,
) -> Option<Ranking> {
    let maps: Vec<String> = group
        .iter()
        .filter_map(|c| map_of(&c.coordinates))
        .collect();
    let mut distinct = maps.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 || distinct.len() != maps.len() {
        return None;
    }
    let mean = |c: &CellStats| c.stats.map_or(f64::NAN, |s| s.mean);
    let mut order: Vec<&CellStats> = group.to_vec();
    order.sort_by(|a, b| {
        let (x, y) = (mean(a), mean(b));
        if higher {
            y.total_cmp(&x)
        } else {
            x.total_cmp(&y)
        }
    });
    let mut text = String::new();
    for (i, cell) in order.iter().enumerate() {
        if i > 0 {
            let separated = differ(&order[i - 1].samples, &cell.samples);
            text.push_str(if separated { " > " } else { " ~ " });
        }
        let map = map_of(&cell.coordinates).unwrap_or_default();
        let label = run.labels.label("map", &CellValue::Text(map));
        let _ = write!(text, "{label} {}", number(mean(cell)));
    }
    let value = |name: &str| {
        shared
            .iter()
            .position(|c| c.as_str() == name)
            .map_or(String::new(), |i| key[i].clone())
    };
    let dataset = value("dataset");
    let setting: Vec<String> = shared
        .iter()
        .zip(key)
        .filter(|(c, v)| {
            run.plan.axes.contains(c.as_str())
                && !matches!(c.as_str(), "dataset" | "n_components")
                && !v.is_empty()
        })
        .map(|(c, v)| format!("{c} = {v}"))
        .collect();
    Some(Ranking {
        dataset: match group[0].coordinates.get("dataset") {
            Some(v) => run.labels.label("dataset", v),
            None => dataset,
        },
        spec: spec.to_string(),
        setting: setting.join(", "),
        d: value("n_components"),
        metric,
        order: text,
    })
}

/// Whether a t test on two cells' repetitions separates them at 0.05 (paired when they shared
/// their draws, [`shared_draw`], else Welch's; a single repetition is never separated).
fn differ(a: &[Sample], b: &[Sample]) -> bool {
    let values = |s: &[Sample]| s.iter().map(|x| x.value).collect::<Vec<_>>();
    let test = if shared_draw(a, b) {
        let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x.value - y.value).collect();
        stats::paired(&diffs)
    } else {
        stats::welch(&values(a), &values(b))
    };
    test.is_some_and(|t| t.p < 0.05)
}

/// The cross-catalogue section: per dataset, per spec and setting, one line per D.
pub fn section(out: &mut String, runs: &[(String, Vec<Run>)]) {
    let mut rankings: Vec<Ranking> = Vec::new();
    for (spec, runs) in runs {
        // The full profile where there is one: the catalogue's numbers, not CI's.
        if let Some(run) = runs.iter().find(|r| r.plan.profile.name() == "full") {
            rankings.extend(rank_run(spec, run));
        }
    }
    // By dataset, spec, setting and metric, then D as a number.
    let d = |r: &Ranking| r.d.parse::<f64>().unwrap_or(f64::INFINITY);
    rankings.sort_by(|a, b| {
        (&a.dataset, &a.spec, &a.setting, a.metric)
            .cmp(&(&b.dataset, &b.spec, &b.setting, b.metric))
            .then(d(a).total_cmp(&d(b)))
    });
    let _ = writeln!(
        out,
        "\n## Across the catalogue: the maps at equal D\n\n\
         Per dataset, from each spec's full results: the maps ranked by their mean (approximation \
         error: lower first; accuracy: higher first), `>` where a t test on the repetitions \
         separates neighbours at 0.05, `~` where it does not. Each spec's own setting (kernel, \
         bandwidth, learner) is kept apart; specs with quick results only are not ranked."
    );
    let mut datasets: Vec<&String> = rankings.iter().map(|r| &r.dataset).collect();
    datasets.sort();
    datasets.dedup();
    for dataset in datasets {
        let _ = writeln!(out, "\n### {dataset}");
        let mut last: Option<(&str, &str, &str)> = None;
        for r in rankings.iter().filter(|r| &r.dataset == dataset) {
            let heading = (r.spec.as_str(), r.setting.as_str(), r.metric);
            if last != Some(heading) {
                let setting = if r.setting.is_empty() {
                    String::new()
                } else {
                    format!(", {}", r.setting)
                };
                let _ = writeln!(out, "\n`{}` ({}{setting}):\n", r.spec, r.metric);
                last = Some(heading);
            }
            let _ = writeln!(out, "- D = {}: {}", r.d, r.order);
        }
    }
}
