//! Stage `same_rows`: where the exact kernel machine trained on m of the n training rows (its
//! largest learning-curve size), each map series' last D trains on those same m rows
//! (`same-rows.toml`), so that the report can set each map beside the exact machine on equal
//! data, and beside its own score on all rows. The rows are the same because a cell's subsample
//! is drawn from its split's seed, which only the repetition enters (with a fixed test file the
//! exact machine runs once, so only the maps' first repetition has its rows; the others draw
//! other rows of the same number). A cell runs when its time,
//! scaled from its full-data time by m / n (at least [`MIN_SHARE`] of it: the map and the
//! prediction on the test rows do not shrink), fits half of what is left of the budget, the
//! cheapest first; the rest are said.

use crate::compare::budget::Sweep;
use crate::compare::decide::{self, TOLERANCES};
use crate::compare::lines::{self, Line};
use crate::compare::setup::Setup;
use crate::compare::specs::{base, cells, Tuned, Written};
use crate::compare::state::{read, State};
use crate::error::Result;
use crate::outputs::markdown;
use crate::stats::Bounds;
use rfbench_registry::kinds::LEARNING;

/// The least share of a cell's full-data time its run on m rows is taken to cost.
pub const MIN_SHARE: f64 = 0.25;

/// Runs each series' last D on the exact machine's rows, when the exact machine ran on fewer
/// than all, into [`State::same_rows`].
pub fn run(state: &mut State) -> Result<()> {
    let Some(exact) = exact_on_subsample(&state.lines) else {
        return Ok(());
    };
    // With a fixed test file the exact machine ran once; the maps draw, so they take two at least.
    let m = exact.train_size;
    let repetitions = exact.scores.len().clamp(2, state.setup.repetitions.max(2));
    let share = (m as f64 / state.setup.n_train as f64).max(MIN_SHARE);
    let left = 0.5 * (state.budget - state.progress.elapsed());
    let (per_map, skipped) = fitting(&state.lines, share, repetitions, left);
    state.skipped.extend(skipped);
    if per_map.is_empty() {
        return Ok(());
    }
    state.progress.say(&format!(
        "each map's last D on the exact machine's {m} training rows (same-rows.toml)"
    ));
    let sweep = Sweep {
        per_map,
        ..Sweep::default()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(left.max(0.0));
    // A comparison beside the answer: where it fails, the answer stands and the report says why.
    match on_rows(state, &sweep, m, repetitions, deadline) {
        Ok(ran) => state.same_rows = ran,
        Err(e) => state.warnings.push(format!(
            "the maps on the exact machine's {m} rows did not run: {e}"
        )),
    }
    Ok(())
}

/// Runs `sweep`'s maps on `m` training rows until `deadline`: the lines that ran.
fn on_rows(
    state: &State,
    sweep: &Sweep,
    m: usize,
    repetitions: usize,
    deadline: std::time::Instant,
) -> Result<Vec<Line>> {
    let spec = spec(&state.setup, state.tuned, sweep, m, repetitions)?;
    let outcome = state
        .context()
        .until(deadline)
        .run_spec("same-rows", &spec, &[])?;
    let ran = lines::lines(&state.setup, &read(&outcome)?, &Default::default());
    Ok(ran.into_iter().filter(|l| !l.scores.is_empty()).collect())
}

/// The exact machine's line on its largest subsample, when it did not run on all rows.
pub fn exact_on_subsample(lines: &[Line]) -> Option<&Line> {
    let exact = |l: &&Line| !l.is_map() && !l.is_baseline() && !l.scores.is_empty();
    if lines.iter().filter(exact).any(|l| l.train_size == 0) {
        return None;
    }
    lines.iter().filter(exact).max_by_key(|l| l.train_size)
}

/// Each series' last D (its largest that ran on all rows), cheapest first while their
/// estimated `repetitions` on a `share` of the rows fit `left` seconds; and the reasons of those
/// left out.
pub fn fitting(
    lines: &[Line],
    share: f64,
    repetitions: usize,
    left: f64,
) -> (Vec<(&'static str, Vec<usize>)>, Vec<String>) {
    let mut last: Vec<&Line> = Vec::new();
    for line in lines.iter().filter(|l| l.is_map() && l.train_size == 0) {
        let Some(series) = line.registry_series() else {
            continue;
        };
        match last.iter().position(|l| l.map == series.name()) {
            Some(k) if last[k].d < line.d && !line.scores.is_empty() => last[k] = line,
            None if !line.scores.is_empty() => last.push(line),
            _ => {}
        }
    }
    last.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let (mut per_map, mut skipped, mut total) = (Vec::new(), Vec::new(), 0.0);
    for line in last {
        let cost = line.seconds * share * repetitions as f64;
        let series = line.registry_series().map(|s| s.name());
        match series {
            Some(name) if total + cost <= left => {
                total += cost;
                per_map.push((name, vec![line.d]));
            }
            _ => skipped.push(format!(
                "{} on the exact machine's rows: estimated {cost:.0} s, more than the {:.0} s \
                 left for it",
                line.name(),
                left - total
            )),
        }
    }
    (per_map, skipped)
}

/// The maps of `sweep` trained on `rows` of the training rows, `repetitions` times.
pub fn spec(
    setup: &Setup,
    tuned: Tuned,
    sweep: &Sweep,
    rows: usize,
    repetitions: usize,
) -> Result<Written> {
    let what = "each map's last D on the exact kernel machine's training rows";
    let title = "The maps on the exact machine's rows (rfbench compare)";
    let w = base(setup, "same-rows", title, what, LEARNING.name)?;
    cells(w, setup, tuned, sweep, false, repetitions, rows)
}

/// One map on the exact machine's rows: its line there, the exact machine's, the paired
/// difference's bounds, and its own line on all rows.
pub struct AtSameRows<'a> {
    pub map: &'a Line,
    pub exact: &'a Line,
    pub difference: Option<Bounds>,
    pub all_rows: Option<&'a Line>,
}

/// Each line of `same_rows` beside the exact machine on its rows and its own on all rows.
pub fn comparisons<'a>(lines: &'a [Line], same_rows: &'a [Line]) -> Vec<AtSameRows<'a>> {
    let Some(exact) = exact_on_subsample(lines) else {
        return Vec::new();
    };
    // In the sweep's order of the maps (the stage ran them cheapest first).
    let at = |l: &Line| lines.iter().position(|k| k.map == l.map && k.d == l.d);
    let mut ran: Vec<&Line> = same_rows
        .iter()
        .filter(|l| l.train_size == exact.train_size)
        .collect();
    ran.sort_by_key(|l| at(l));
    ran.into_iter()
        .map(|map| {
            let pair = [map.clone(), exact.clone()];
            AtSameRows {
                map,
                exact,
                difference: decide::decide(&pair, 0, 1, TOLERANCES[0]).bounds,
                all_rows: lines
                    .iter()
                    .find(|l| l.map == map.map && l.d == map.d && l.train_size == 0),
            }
        })
        .collect()
}

/// The report's section: each map on the exact machine's rows beside the exact machine there
/// and itself on all `n_train` rows (empty when the stage did not run).
pub fn section(lines: &[Line], same_rows: &[Line], n_train: usize) -> String {
    let rows = comparisons(lines, same_rows);
    let Some(first) = rows.first() else {
        return String::new();
    };
    let m = first.exact.train_size;
    let mut out = format!(
        "\n## At the exact machine's rows\n\nThe exact kernel machine trained on {m} of the \
         {n_train} training rows ({}), the maps above on \
         all of them: the recommendation sets maps on all rows against it. Here each map's last \
         D trained on the same {m} rows (`same-rows.toml`), paired with the exact machine over \
         the repetitions (score: mean; difference: map - exact, with its one-sided 95 % lower \
         bound):\n\n",
        crate::compare::curve::SPEED_BOUND
    );
    out.push_str(&markdown::header(&[
        "cell",
        &format!("on {m} rows"),
        &format!("exact kernel on {m} rows"),
        "difference (lower bound)",
        &format!("on all {n_train} rows"),
    ]));
    for row in &rows {
        let difference = row.difference.map_or("-".to_string(), |b| {
            format!("{:+.2} ({:+.2})", b.mean, b.lower)
        });
        let all = row
            .all_rows
            .map_or("-".to_string(), |l| format!("{:.2}", l.mean()));
        out.push_str(&markdown::row(&[
            format!("{}, D = {}", row.map.map, row.map.d),
            format!("{:.2}", row.map.mean()),
            format!("{:.2}", row.exact.mean()),
            difference,
            all,
        ]));
    }
    out
}

/// What the answer adds: the comparison it rests on, and how the maps fare on equal rows.
pub fn sentence(lines: &[Line], same_rows: &[Line]) -> Option<String> {
    let rows = comparisons(lines, same_rows);
    let means: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.difference.map(|b| b.mean))
        .collect();
    let (low, high) = means
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let m = rows.first()?.exact.train_size;
    Some(format!(
        "The maps trained on all training rows, the exact kernel machine on {m}; on those same \
         {m} rows the maps' last D are {low:+.2} to {high:+.2} points from it (the report's \
         \"At the exact machine's rows\").",
    ))
    .filter(|_| !means.is_empty())
}

/// `answer.json`'s entries: each map on the exact machine's rows.
pub fn json(lines: &[Line], same_rows: &[Line]) -> Vec<serde_json::Value> {
    comparisons(lines, same_rows)
        .iter()
        .map(|r| {
            serde_json::json!({
                "series": r.map.map,
                "n_components": r.map.d,
                "train_size": r.map.train_size,
                "scores": r.map.scores.values().collect::<Vec<_>>(),
                "repetitions": r.map.scores.keys().collect::<Vec<_>>(),
                "exact_mean": r.exact.mean(),
                "difference": r.difference.map(|b| serde_json::json!({
                    "mean": b.mean, "lower": b.lower, "upper": b.upper,
                })),
                "all_rows_mean": r.all_rows.map(|l| l.mean()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::lines::tests::line;

    fn exact(size: usize, scores: &[f64]) -> Line {
        Line {
            train_size: size,
            ..line(rfbench_registry::exact_map().name, 0, scores, 10.0)
        }
    }

    /// Two maps' names, found through the registry.
    fn maps() -> (&'static str, &'static str) {
        let s = crate::compare::test_support::two_maps(false);
        (s.maps[0].name(), s.maps[1].name())
    }

    fn a_map() -> &'static str {
        maps().0
    }

    #[test]
    fn only_an_exact_machine_on_fewer_than_all_rows_calls_for_the_stage() {
        let all = vec![exact(0, &[90.0, 91.0]), exact(1000, &[88.0, 89.0])];
        assert!(exact_on_subsample(&all).is_none());
        let sub = vec![exact(500, &[87.0, 88.0]), exact(1000, &[88.0, 89.0])];
        assert_eq!(exact_on_subsample(&sub).map(|l| l.train_size), Some(1000));
    }

    #[test]
    fn each_series_last_d_runs_cheapest_first_while_it_fits() {
        let raw = rfbench_registry::raw_map().name;
        let other = maps().1;
        let lines = vec![
            line(raw, 0, &[80.0], 0.1),
            line(a_map(), 64, &[85.0], 1.0),
            line(a_map(), 256, &[86.0], 4.0),
            line(other, 64, &[85.0], 30.0),
        ];
        // The first map at D = 256: 4 s x 0.5 x 2 repetitions = 4 s; the other's 30 s does not
        // fit the 6 s left of 10.
        let (per_map, skipped) = fitting(&lines, 0.5, 2, 10.0);
        assert_eq!(per_map, vec![(a_map(), vec![256])]);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert!(
            skipped[0].contains(&format!("{other}, D = 64")),
            "{skipped:?}"
        );
        let (per_map, _) = fitting(&lines, 0.5, 2, 40.0);
        assert_eq!(per_map.len(), 2);
    }

    #[test]
    fn every_map_cell_trains_on_the_exact_machines_rows() {
        use crate::compare::test_support::setup;
        let s = setup("gaussian", rfbench_data::Task::Binary, None);
        let sweep = Sweep {
            per_map: s.maps.iter().map(|m| (m.name(), vec![128])).collect(),
            ..Sweep::default()
        };
        let tuned = Tuned::new(Some(1.25), 0.5, Some(2.5), 4.0);
        let plan = crate::compare::specs::tests::plans(&spec(&s, tuned, &sweep, 300, 2).unwrap());
        assert_eq!(plan.cells.len(), s.maps.len());
        for cell in &plan.cells {
            let size = cell.kind_params.usize("train_size");
            assert_eq!((size, cell.repetitions), (300, 2), "{}", cell.map.name);
        }
    }

    #[test]
    fn a_map_is_set_beside_the_exact_machine_on_its_rows_and_itself_on_all() {
        let lines = vec![
            exact(1000, &[90.0, 91.0, 89.0]),
            line(a_map(), 256, &[88.0, 89.0, 87.5], 2.0),
        ];
        let same = vec![Line {
            train_size: 1000,
            ..line(a_map(), 256, &[89.0, 90.0, 88.0], 1.0)
        }];
        let rows = comparisons(&lines, &same);
        assert_eq!(rows.len(), 1);
        let b = rows[0].difference.unwrap();
        assert!((b.mean + 1.0).abs() < 1e-12 && b.lower == b.upper, "{b:?}");
        assert_eq!(rows[0].all_rows.map(|l| l.mean()), Some(lines[1].mean()));
        let text = section(&lines, &same, 4000);
        assert!(
            text.contains("| 89.00 | 90.00 | -1.00 (-1.00) | 88.17 |"),
            "{text}"
        );
        // The size is this machine's: the report says a rerun elsewhere may differ.
        assert!(
            text.contains("depends on the machine's speed and load"),
            "{text}"
        );
        let said = sentence(&lines, &same).unwrap();
        assert!(said.contains("on those same 1000 rows the maps' last D are -1.00 to -1.00"));
        assert!(section(&lines, &[], 4000).is_empty() && sentence(&lines, &[]).is_none());
    }
}
