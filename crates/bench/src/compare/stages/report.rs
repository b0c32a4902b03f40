//! Stage `report`: `report.md` and the Pareto figure ([`crate::compare::pareto`]). The report:
//! the answer first, then for each tolerance the cheapest cell shown within it of
//! the reference ([`crate::compare::decide`]), each map's smallest D within each tolerance, the maps at
//! equal D, the figures, every cell (score's mean and spread over repetitions, total time beside
//! its estimate, memory, Gram error, Pareto front), and how it was run.

use std::fmt::Write as _;
use std::path::Path;

use super::gram::GRAM_ROWS;
use super::{last_rungs, same_rows, tune};
use crate::compare::curve_figure::{self, CURVE};
use crate::compare::decide::{self, Recommendation, Verdict, TOLERANCES};
use crate::compare::lines::{pareto, time, Line};
use crate::compare::pipeline;
use crate::compare::setup::Setup;
use crate::compare::specs::{files, SCORE_FIGURE, TIME_FIGURE};
use crate::compare::state::State;
use crate::error::{Error, Result};
use crate::outputs::markdown;
use rfbench_data::atomic::replace_file;

/// At equal D, two maps are told apart when a paired two-sided t test over repetitions
/// rejects at this level.
pub const ALPHA: f64 = 0.05;

/// The name of the Pareto figure among the sweep's figures (drawn by
/// [`crate::compare::pareto`]).
pub const PARETO: &str = "pareto";

/// The two-sided p value of a paired t test between two lines over their common repetitions
/// (1 when they share fewer than two, or every difference is equal).
pub fn paired_p(a: &Line, b: &Line) -> f64 {
    let diffs: Vec<f64> = a
        .scores
        .iter()
        .filter_map(|(r, x)| b.scores.get(r).map(|y| x - y))
        .collect();
    crate::stats::paired(&diffs).map_or(1.0, |t| t.p)
}

/// Draws the Pareto figure and writes `report.md`, the way it was run said last.
pub fn run(state: &mut State) -> Result<()> {
    let setup = &state.setup;
    crate::compare::pareto::draw(
        &state.lines,
        !setup.classification(),
        &files(&state.out, "compare").figure(Some(PARETO)),
    )?;
    crate::compare::curve_figure::draw(
        &state.lines,
        &state.same_rows,
        setup.n_train,
        !setup.classification(),
        &files(&state.out, "compare").figure(Some(CURVE)),
    )?;
    let report = markdown(
        setup,
        &state.lines,
        &state.same_rows,
        &state.opening,
        &how_it_was_run(state),
        &state.skipped,
    );
    let path = state.out.join("report.md");
    replace_file(&path, report.as_bytes()).map_err(|e| Error::io(&path, e))?;
    state.report = report;
    Ok(())
}

/// What was tuned, planned and run, with the stages' times, and the notes of each stage.
fn how_it_was_run(state: &State) -> String {
    let setup = &state.setup;
    let mut note = format!(
        "{} {} The sweep took {:.0} s; everything, tuning and pilot included, {:.0} s of the \
         {:.0} s budget, with at most {:.2} GB resident.",
        tune::tuned_line(setup, &state.tuned),
        state.plan_note,
        state.sweep_seconds,
        state.seconds,
        state.budget,
        crate::run::peak_resident_bytes() as f64 / 1e9
    );
    note.push_str(&format!(" The tuning ran {}.", state.tuning_how));
    note.push_str(&last_rungs::sentence(setup, &state.tuned));
    for sentence in &state.penalty_notes {
        note.push_str(&format!(" {sentence}."));
    }
    for sentence in &state.confirm_notes {
        note.push_str(&format!(" Confirmation: {sentence}."));
    }
    for warning in &state.warnings {
        note.push_str(&format!("\n\nWarning: {warning}."));
    }
    note.push_str("\n\nThe stages, in the order they ran:\n\n");
    note.push_str(&pipeline::table(|stage| state.took(stage)));
    note
}

/// The report, in Markdown.
pub fn markdown(
    setup: &Setup,
    lines: &[Line],
    same_rows: &[Line],
    answer: &str,
    plan_note: &str,
    skipped: &[String],
) -> String {
    let mut out = String::from("# Which map, at what D: rfbench compare\n\n");
    let _ = writeln!(out, "**Answer:** {answer}\n");
    if !setup.guesses.is_empty() {
        // What was read from the file, before anything built on it.
        let _ = writeln!(out, "## The data, as read\n");
        for guess in &setup.guesses {
            let _ = writeln!(out, "- {guess}");
        }
        let _ = writeln!(out);
    }
    let score = if setup.classification() {
        "accuracy (%)"
    } else {
        "-normalised RMSE (% of the targets' sd; the RMSE in the targets' units is in the CSV)"
    };
    let _ = writeln!(out, "## Recommendation\n");
    if let Some(reference) = decide::reference(lines) {
        recommendation(&mut out, lines, reference);
        per_map(&mut out, lines, reference);
        at_equal_d(&mut out, lines);
    }
    out.push_str(&same_rows::section(lines, same_rows, setup.n_train));
    let sweep = files(Path::new(""), "compare");
    let _ = writeln!(
        out,
        "\n![score against time, the Pareto front]({})\n\n![score against D]({})\n\n\
         ![time against D]({})",
        sweep.figure(Some(PARETO)).display(),
        sweep.figure(Some(SCORE_FIGURE)).display(),
        sweep.figure(Some(TIME_FIGURE)).display()
    );
    let regression = !setup.classification();
    if curve_figure::figure(lines, same_rows, setup.n_train, regression).is_some() {
        let _ = writeln!(
            out,
            "\n![the exact machine's learning curve, each map on its rows and on all]({})",
            sweep.figure(Some(CURVE)).display()
        );
    }
    let _ = writeln!(out, "\n## Every cell\n");
    let _ = writeln!(
        out,
        "Score: {score}, mean ± sd over repetitions; time: map + train + predict, mean \
         seconds; memory: the runner's estimate of the cell's peak (measured within 2x of the peak \
         resident set on Adult); Gram error: |K - Z Z'|_F / |K|_F on (at most) {} training \
         rows (- : not measured: Nystroem with more landmarks than those rows is left out of \
         gram.toml, a failed cell is in {} with its error); * on the Pareto front of score against \
         time; unconverged: repetitions whose learner stopped at its iteration cap (its score may \
         be below what it would reach).\n",
        GRAM_ROWS,
        files(Path::new(""), "gram").csv().display()
    );
    out.push_str(&markdown::header(&[
        "cell",
        "score",
        "runs",
        "time (s)",
        "estimate (s)",
        "memory (MB)",
        "Gram error",
        "front",
        "unconverged",
    ]));
    for (line, front) in lines.iter().zip(pareto(lines)) {
        out.push_str(&markdown::row(&every_cell_row(line, front)));
    }
    let _ = writeln!(out, "\n## How it was run\n\n{plan_note}\n");
    what_d_means(&mut out, setup);
    let unconverged: Vec<String> = lines
        .iter()
        .filter(|l| l.unconverged > 0)
        .map(|l| format!("{} ({} of {})", l.name(), l.unconverged, l.scores.len()))
        .collect();
    if !unconverged.is_empty() {
        let _ = writeln!(
            out,
            "Warning: the learner stopped at its iteration cap, unconverged, in: {}.\n",
            unconverged.join("; ")
        );
    }
    for line in setup.decisions().iter().skip(setup.guesses.len()) {
        let _ = writeln!(out, "- {line}");
    }
    if !skipped.is_empty() {
        let _ = writeln!(
            out,
            "\nLeft out by the budget, by the data or as plateaued:\n"
        );
        for s in skipped {
            let _ = writeln!(out, "- {s}");
        }
    }
    out
}

/// A line's row of the table of every cell.
fn every_cell_row(line: &Line, front: bool) -> [String; 9] {
    let (score, runs) = if line.scores.is_empty() {
        (
            format!("not run: {}", line.skipped.as_deref().unwrap_or("-")),
            0,
        )
    } else {
        let score = match line.scores.len() {
            1 => format!("{:.2}", line.mean()),
            _ => format!("{:.2} ± {:.2}", line.mean(), line.sd()),
        };
        (score, line.scores.len())
    };
    let estimate = line.estimate.map_or("-".into(), |e| format!("{e:.2}"));
    let gram = line.gram.map_or("-".into(), |g| format!("{g:.4}"));
    let memory = line
        .memory
        .map_or("-".into(), |b| format!("{:.0}", b as f64 / 1e6));
    let unconverged = match line.unconverged {
        0 => String::new(),
        k => format!("{k} of {runs}"),
    };
    [
        line.name(),
        score,
        runs.to_string(),
        format!("{:.2}", line.seconds),
        estimate,
        memory,
        gram,
        if front { "*" } else { "" }.to_string(),
        unconverged,
    ]
}

/// Per series compared: what its D counts (its choice parameters' values, such as RFF's form,
/// with their docs) and scikit-learn's counterpart, from the registry.
fn what_d_means(out: &mut String, setup: &Setup) {
    let _ = writeln!(out, "What D means, and scikit-learn's counterparts:\n");
    for series in &setup.maps {
        let choices: Vec<String> = series
            .map
            .params
            .iter()
            .filter(|p| matches!(p.kind, rfbench_registry::ParamKind::Choice(_)))
            .filter_map(|p| {
                Some(format!(
                    " `{}` = {:?} ({}).",
                    p.name,
                    series.value_of(p.name)?,
                    p.doc
                ))
            })
            .collect();
        let sklearn = series.sklearn().unwrap_or("no scikit-learn counterpart");
        let _ = writeln!(
            out,
            "- {} ({}): {sklearn}.{}",
            series.name(),
            series.label(),
            choices.concat()
        );
    }
    out.push('\n');
}

/// Each map's smallest D shown within each tolerance (`?`: the smallest D whose mean is within
/// but whose repetitions cannot decide it, when it comes first): how the maps rank.
fn per_map(out: &mut String, lines: &[Line], reference: usize) {
    let mut maps: Vec<&str> = Vec::new();
    for l in lines.iter().filter(|l| l.is_map()) {
        if !maps.contains(&l.map.as_str()) {
            maps.push(&l.map);
        }
    }
    let _ = writeln!(
        out,
        "\nEach map's smallest D shown within the tolerance (its mean score; `?`: its mean is \
         within but the repetitions cannot decide; - : none of its D):\n"
    );
    let header: Vec<String> = TOLERANCES.iter().map(|t| format!("within {t}")).collect();
    let _ = writeln!(out, "| map | {} |\n|---|---|---|---|", header.join(" | "));
    for map in maps {
        let cells: Vec<String> = TOLERANCES
            .iter()
            .map(|&t| smallest_d(lines, map, reference, t))
            .collect();
        let _ = writeln!(out, "| {map} | {} |", cells.join(" | "));
    }
}

/// `map`'s smallest D within `tolerance` of the reference, or undecided with its mean within.
fn smallest_d(lines: &[Line], map: &str, reference: usize, tolerance: f64) -> String {
    let target = lines[reference].mean();
    let mut ks: Vec<usize> = (0..lines.len())
        .filter(|&k| lines[k].map == map && !lines[k].scores.is_empty())
        .collect();
    ks.sort_by_key(|&k| lines[k].d);
    let first =
        ks.into_iter().find_map(
            |k| match decide::decide(lines, k, reference, tolerance).verdict {
                Verdict::Within => Some((k, "")),
                Verdict::Undecided if lines[k].mean() >= target - tolerance => Some((k, "?")),
                _ => None,
            },
        );
    first.map_or("-".to_string(), |(k, mark)| {
        format!("{}{mark} ({:.2})", lines[k].d, lines[k].mean())
    })
}

/// At each D, the maps from the highest mean score down (`>` where a paired t test separates a
/// map from the next one, `~` where it does not).
fn at_equal_d(out: &mut String, lines: &[Line]) {
    let mut ds: Vec<usize> = lines.iter().filter(|l| l.is_map()).map(|l| l.d).collect();
    ds.sort_unstable();
    ds.dedup();
    let _ = writeln!(
        out,
        "\nAt equal D, the maps by mean score (`>`: a paired t test at level {ALPHA} separates \
         the two, `~`: it does not):\n"
    );
    for d in ds {
        let mut ranked: Vec<&Line> = lines
            .iter()
            .filter(|l| l.is_map() && l.d == d && !l.scores.is_empty())
            .collect();
        ranked.sort_by(|a, b| b.mean().total_cmp(&a.mean()));
        let mut text = String::new();
        for (k, line) in ranked.iter().enumerate() {
            if k > 0 {
                let separated = paired_p(ranked[k - 1], line) < ALPHA;
                text.push_str(if separated { " > " } else { " ~ " });
            }
            let _ = write!(text, "{} {:.2}", line.map, line.mean());
        }
        let _ = writeln!(out, "- D = {d}: {text}");
    }
}

fn recommendation(out: &mut String, lines: &[Line], reference: usize) {
    let what = decide::reference_name(lines, reference);
    let r = &lines[reference];
    let _ = writeln!(
        out,
        "Reference: {what}, {} over {} repetitions, {}. A cell is within t points of it \
         when the lower one-sided {:.0} % confidence bound of its mean paired difference to the \
         reference (over the repetitions, which share their split) is above -t; the pick is the \
         cheapest cell shown within, the reference included. Each cell is tested on its own (no \
         correction over cells), and cells given more repetitions to decide were chosen from \
         the first ones, which shifts the level slightly.\n",
        r.shown(),
        r.scores.len(),
        time(r.seconds),
        100.0 * (1.0 - decide::ALPHA)
    );
    for rec in decide::recommend(lines, reference) {
        let _ = writeln!(out, "- {}", tolerance_line(lines, reference, &rec));
    }
}

/// One tolerance's bullet: the pick with its decision, the other maps within, the undecided.
fn tolerance_line(lines: &[Line], reference: usize, rec: &Recommendation) -> String {
    let pick = &lines[rec.pick];
    let mut text = format!(
        "within {} points: **{}**, {}, {}",
        rec.tolerance,
        pick.name(),
        pick.shown(),
        time(pick.seconds)
    );
    let decision = decide::decide(lines, rec.pick, reference, rec.tolerance);
    if let Some(b) = decision.bounds {
        let _ = write!(
            text,
            " (difference {:+.2}, lower bound {:+.2}, {} repetitions)",
            b.mean, b.lower, decision.runs
        );
    }
    if rec.pick == reference {
        text.push_str(": no cheaper cell is shown within");
    } else if pick.is_baseline() {
        text.push_str(": on this data no kernel is needed");
    }
    let names = |ks: &[usize]| {
        let names: Vec<String> = ks
            .iter()
            .map(|&k| {
                let l = &lines[k];
                format!("{} ({:.2}, {})", l.name(), l.mean(), time(l.seconds))
            })
            .collect();
        names.join("; ")
    };
    if !rec.alike.is_empty() {
        let _ = write!(
            text,
            "; also within (each map's cheapest): {}",
            names(&rec.alike)
        );
    }
    if !rec.undecided.is_empty() {
        let _ = write!(
            text,
            "; cheaper, mean within, but undecided by the repetitions: {}",
            names(&rec.undecided)
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::lines::tests::{exact_and_a_map, line};

    #[test]
    fn a_paired_test_sees_a_consistent_difference_that_an_unpaired_one_would_not() {
        let a = line("map-a", 64, &[80.0, 85.0, 90.0, 95.0], 1.0);
        let b = line("map-a", 128, &[80.5, 85.6, 90.4, 95.5], 1.0);
        assert!(paired_p(&a, &b) < 0.01, "{}", paired_p(&a, &b));
        let c = line("map-a", 256, &[81.0, 84.0, 91.0, 94.0], 1.0);
        assert!(paired_p(&a, &c) > 0.5, "{}", paired_p(&a, &c));
        assert_eq!(paired_p(&a, &a), 1.0);
    }

    #[test]
    fn each_tolerance_names_its_pick_its_decision_and_the_undecided() {
        let mut lines = exact_and_a_map();
        lines.push(line("map-b", 32, &[88.7, 91.7, 88.5, 90.7], 0.5));
        let mut out = String::new();
        recommendation(&mut out, &lines, 0);
        let pick = "- within 0.5 points: **map-a, D = 64**, 89.80 %, 1.00 s (difference -0.20";
        assert!(out.contains(pick), "{out}");
        let undecided = "undecided by the repetitions: map-b, D = 32 (89.90, 0.50 s)";
        assert!(out.contains(undecided), "{out}");
        let mut table = String::new();
        per_map(&mut table, &lines, 0);
        assert!(table.contains("| map-b | 32? (89.90) |"), "{table}");
    }
}
