//! Stage `answer`: the answer in one line, which opens the report and ends the command's
//! output; `answer.json`, the same for a program: the recommendation at each tolerance with the decision
//! it rests on, the tuned values, the warnings, and every cell with its score per repetition;
//! and `splits.json` ([`crate::compare::splits`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::compare::code::{self, Pipeline};
use crate::compare::decide::{self, Recommendation};
use crate::compare::lines::{time, Line};
use crate::compare::setup::Setup;
use crate::compare::specs::Tuned;
use crate::compare::splits;
use crate::compare::stages::same_rows;
use crate::compare::state::State;
use crate::error::{Error, Result};
use rfbench_data::atomic::replace_file;

/// Decides the answer, writes `answer.json` and `splits.json`, and records the answer and the
/// report's opening (the answer, and the pick as code).
pub fn run(state: &mut State) -> Result<()> {
    state.seconds = state.start.elapsed().as_secs_f64();
    let (setup, lines, tuned) = (&state.setup, &state.lines, &state.tuned);
    let mut answer = sentence(lines);
    let notes = [
        state.no_maps.clone(),
        same_rows::sentence(lines, &state.same_rows),
    ];
    for note in notes.iter().flatten() {
        answer.push(' ');
        answer.push_str(note);
    }
    let mut json = json(setup, lines, tuned, &state.warnings);
    json["same_rows"] = same_rows::json(lines, &state.same_rows).into();
    write_json(&state.out.join("answer.json"), &json)?;
    let repetitions = lines.iter().filter_map(|l| l.scores.keys().max()).max();
    let plan = &state.outcome()?.plan;
    if let Some(splits) = splits::json(setup, plan, repetitions.map_or(0, |r| r + 1))? {
        write_json(&state.out.join("splits.json"), &splits)?;
    }
    state.opening = opening(&answer, setup, lines, tuned);
    state.answer = answer;
    Ok(())
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let text = format!("{value:#}\n");
    replace_file(path, text.as_bytes()).map_err(|e| Error::io(path, e))
}

/// What to use, its score and time, and the reference's; where the exact machine is the pick at
/// the smallest tolerance, the cheapest alternative at a larger one.
pub fn sentence(lines: &[Line]) -> String {
    let Some(reference) = decide::reference(lines) else {
        return "no cell ran: nothing to recommend (see the report's list of cells left out)."
            .into();
    };
    let recs = decide::recommend(lines, reference);
    let first = &recs[0];
    let (pick, r) = (&lines[first.pick], &lines[reference]);
    let cell = |l: &Line| format!("{} in {}", l.shown(), time(l.seconds));
    let reference_name = decide::reference_name(lines, reference);
    let mut text = if first.pick != reference {
        let what = if pick.is_baseline() {
            "no kernel is needed: use the linear model on the raw inputs".to_string()
        } else {
            format!("use {}", pick.name())
        };
        let decision = decide::decide(lines, first.pick, reference, first.tolerance);
        format!(
            "{what}: {}, within {} points of {reference_name} ({}{}) by a one-sided test over \
             {} repetitions{}.",
            cell(pick),
            first.tolerance,
            cell(r),
            on_the_same_repetitions(pick, r),
            decision.runs,
            decision.bounds.map_or(String::new(), |b| format!(
                ": difference {:+.2} points, 95 % lower bound {:+.2}",
                b.mean, b.lower
            ))
        )
    } else if r.is_exact_reference() {
        format!(
            "use the exact kernel machine: {}; no cheaper cell is shown within {} points of it.",
            cell(r),
            first.tolerance
        )
    } else {
        format!(
            "use {}: {}, the best cell (the exact kernel machine did not run on all training \
             rows).",
            r.name(),
            cell(r)
        )
    };
    if first.pick != reference && r.is_exact_reference() && as_cheap(r, pick) {
        text.push_str(&format!(
            " The exact kernel machine itself takes {}: as cheap here, so use it unless you \
             need the features.",
            time(r.seconds)
        ));
    }
    if let Some(alternative) = recs[1..].iter().find(|rec| rec.pick != first.pick) {
        text.push_str(&format!(
            " Within {} points: {}, {}.",
            alternative.tolerance,
            lines[alternative.pick].name(),
            cell(&lines[alternative.pick])
        ));
    }
    if !first.undecided.is_empty() {
        let names: Vec<String> = first.undecided.iter().map(|&k| lines[k].name()).collect();
        text.push_str(&format!(
            " Undecided at {} points (more repetitions than the budget allowed): {}.",
            first.tolerance,
            names.join(", ")
        ));
    }
    text
}

/// The reference's score on the pick's repetitions, where it ran on others too: the two means
/// of the sentence are then over different splits, and only this one compares with the pick's.
fn on_the_same_repetitions(pick: &Line, reference: &Line) -> String {
    let same: Vec<f64> = pick
        .scores
        .keys()
        .filter_map(|k| reference.scores.get(k).copied())
        .collect();
    if same.is_empty() || reference.scores.len() == same.len() {
        return String::new();
    }
    let mean = same.iter().sum::<f64>() / same.len() as f64;
    match reference.rmse.is_empty() {
        true => format!("; {mean:.2} % on the pick's {} repetitions", same.len()),
        false => format!(
            "; {:.2} % of the targets' sd on the pick's {} repetitions",
            -mean,
            same.len()
        ),
    }
}

/// The pick (at the smallest tolerance) as a pipeline ([`code`]); `None` when no cell ran.
pub fn pick_pipeline(setup: &Setup, lines: &[Line], tuned: &Tuned) -> Option<Pipeline> {
    let reference = decide::reference(lines)?;
    let pick = &lines[decide::recommend(lines, reference)[0].pick];
    code::pipeline(setup, pick, tuned)
}

/// The report's opening: the answer, then the pick as code, with the `rfbench` package's map
/// and with scikit-learn's own classes where it has them; where it has no such map, the
/// registry's note on its nearest counterpart.
pub fn opening(answer: &str, setup: &Setup, lines: &[Line], tuned: &Tuned) -> String {
    let Some(pipeline) = pick_pipeline(setup, lines, tuned) else {
        return answer.to_string();
    };
    let block = |code: String| format!("```python\n{code}```");
    let mut out =
        format!("{answer}\n\nAs code, with the tuned values (answer.json's `scikit_learn`):");
    let (own, sklearn) = (pipeline.rfbench_code(), pipeline.scikit_learn_code());
    if let Some(code) = own {
        out.push_str(&format!("\n\n{}", block(code)));
        match (&sklearn, counterpart(setup, lines, tuned)) {
            (Some(_), _) => out.push_str("\n\nWith scikit-learn's own classes:"),
            (None, Some(nearest)) => out.push_str(&format!("\n\n{nearest}")),
            (None, None) => {}
        }
    }
    if let Some(code) = sklearn {
        out.push_str(&format!("\n\n{}", block(code)));
    }
    out
}

/// The pick's counterpart in scikit-learn (at the smallest tolerance), with this run's D and
/// bandwidth; `None` when the pick is not a map or scikit-learn has none.
pub fn counterpart(setup: &Setup, lines: &[Line], tuned: &Tuned) -> Option<String> {
    let reference = decide::reference(lines)?;
    let pick = &lines[decide::recommend(lines, reference)[0].pick];
    let text = pick.registry_series()?.sklearn()?;
    let gamma = match (setup.kernel.sklearn_gamma, tuned.sigma) {
        (Some(gamma), Some(sigma)) => format!(", gamma = {:.6}", gamma(sigma)),
        _ => String::new(),
    };
    let sigma = tuned
        .sigma
        .map_or(String::new(), |s| format!(", sigma = {s:.4}"));
    Some(format!(
        "In scikit-learn: {text}. Here D = {}{sigma}{gamma}, and the linear learner's {} = {}.",
        pick.d,
        setup.penalty,
        tuned.penalty_at(&pick.map, pick.d)
    ))
}

/// Whether the exact machine's time is as good as `pick`'s in practice: under a second, or
/// within a quarter more.
fn as_cheap(exact: &Line, pick: &Line) -> bool {
    exact.seconds <= (1.25 * pick.seconds).max(1.0)
}

/// `answer.json`'s content.
pub fn json(setup: &Setup, lines: &[Line], tuned: &Tuned, warnings: &[String]) -> Value {
    let sklearn = pick_pipeline(setup, lines, tuned).map(|p| p.json());
    let reference = decide::reference(lines);
    let recommendations: Vec<Value> = reference.map_or_else(Vec::new, |reference| {
        decide::recommend(lines, reference)
            .iter()
            .map(|rec| recommendation(lines, reference, rec))
            .collect()
    });
    json!({
        "answer": sentence(lines),
        "scikit_learn": sklearn,
        "task": if setup.classification() { "classification" } else { "regression" },
        "score": if setup.classification() {
            "accuracy (%)"
        } else {
            "minus the normalised RMSE (% of the test targets' sd)"
        },
        "tolerances_in_points": decide::TOLERANCES,
        "confidence_level_one_sided": 1.0 - decide::ALPHA,
        "reference": reference.map(|k| lines[k].name()),
        "recommendations": recommendations,
        "tuned": {
            "kernel": setup.kernel.name,
            "bandwidth": setup.kernel.bandwidth_param().map(|p| p.name),
            "maps": { "bandwidth": tuned.sigma, "learner": setup.learner.name,
                      setup.penalty: tuned.penalty,
                      "own_penalty": tuned.own_penalties().into_iter()
                          .map(|(s, p)| (s, p.value)).collect::<BTreeMap<_, _>>(),
                      "own_penalty_chosen_at": tuned.own_penalties().into_iter()
                          .map(|(s, p)| (s, p.d)).collect::<BTreeMap<_, _>>(),
                      "last_rung_penalty": tuned.last_rung_penalties().into_iter()
                          .map(|(s, p)| (s, json!({ "n_components": p.d, "value": p.value })))
                          .collect::<BTreeMap<_, _>>() },
            "exact": { "bandwidth": tuned.exact_sigma, "learner": setup.exact_learner.name,
                       setup.exact_penalty: tuned.exact_penalty },
        },
        "warnings": warnings,
        "cells": lines.iter().map(cell).collect::<Vec<_>>(),
    })
}

fn recommendation(lines: &[Line], reference: usize, rec: &Recommendation) -> Value {
    let decision = decide::decide(lines, rec.pick, reference, rec.tolerance);
    let names = |ks: &[usize]| ks.iter().map(|&k| lines[k].name()).collect::<Vec<_>>();
    json!({
        "tolerance": rec.tolerance,
        "pick": lines[rec.pick].name(),
        "pick_is_reference": rec.pick == reference,
        "difference": decision.bounds.map(|b| json!({
            "mean": b.mean, "lower": b.lower, "upper": b.upper, "repetitions": decision.runs,
        })),
        "also_within": names(&rec.alike),
        "undecided": names(&rec.undecided),
    })
}

fn cell(line: &Line) -> Value {
    json!({
        "name": line.name(),
        "map": line.registry_series().map_or(line.map.as_str(), |s| s.map.name),
        "series": line.map,
        "n_components": line.d,
        "train_size": line.train_size,
        "scores": line.scores.values().collect::<Vec<_>>(),
        "repetitions": line.scores.keys().collect::<Vec<_>>(),
        "rmse": line.rmse.values().collect::<Vec<_>>(),
        "mean_seconds": line.seconds,
        "estimate_seconds": line.estimate,
        "gram_error": line.gram,
        "memory_bytes": line.memory.map(|m| m as f64),
        "not_run": line.skipped,
        "unconverged_repetitions": line.unconverged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::lines::tests::{exact_and_a_map, line};

    /// A pick of a map's variant names the variant's scikit-learn counterpart: RFF's phase
    /// form is RBFSampler with n_components = D (not the paired form's D/2 frequencies), with
    /// the variant's own penalty.
    #[test]
    fn a_variants_pick_names_its_own_scikit_learn_counterpart() {
        let s = crate::compare::test_support::setup("gaussian", rfbench_data::Task::Binary, None);
        let variant = s.maps.iter().find(|m| m.variant.is_some()).unwrap();
        let plain = rfbench_registry::Series::plain(variant.map);
        let mut lines = exact_and_a_map();
        lines[1].map = variant.name().into();
        lines[1].d = 256;
        let mut tuned = Tuned::new(Some(2.0), 0.5, Some(2.0), 1.0);
        tuned.set_penalty(variant.name(), 4.0, 128);
        let text = counterpart(&s, &lines, &tuned).unwrap();
        let own = variant.sklearn().unwrap();
        assert_ne!(Some(own), plain.sklearn());
        assert!(
            text.starts_with(&format!("In scikit-learn: {own}.")),
            "{text}"
        );
        assert!(text.contains("RBFSampler(n_components=D"), "{text}");
        assert!(
            text.contains("Here D = 256, sigma = 2.0000, gamma = 0.125000"),
            "{text}"
        );
        assert!(text.ends_with(&format!("{} = 4.", s.penalty)), "{text}");
        assert!(sentence(&lines).starts_with(&format!("use {}, D = 256", variant.name())));
        let json = json(&s, &lines, &tuned, &[]);
        let cell = &json["cells"][1];
        assert_eq!(
            (&cell["map"], &cell["series"]),
            (&plain.name().into(), &variant.name().into())
        );
        assert_eq!(json["tuned"]["maps"]["own_penalty"][variant.name()], 4.0);
    }

    /// Every kind of pick has its pipeline in `answer.json` and its code in the report's
    /// opening: a map with scikit-learn's same map in both forms, a map without one in the
    /// package's form with the registry's note on its nearest counterpart, the exact machine in
    /// scikit-learn's alone.
    #[test]
    fn every_pick_has_its_code_in_the_json_and_the_opening() {
        let s = crate::compare::test_support::setup("gaussian", rfbench_data::Task::Binary, None);
        let tuned = Tuned::new(Some(2.0), 0.5, Some(2.0), 1.0);
        let variant = s.maps.iter().find(|m| m.variant.is_some()).unwrap();
        let mut lines = exact_and_a_map();
        lines[1].map = variant.name().into();
        let written = json(&s, &lines, &tuned, &[]);
        assert_eq!(written["scikit_learn"]["kind"], "map");
        assert_eq!(written["scikit_learn"]["pick"], lines[1].name());
        let text = opening("the answer", &s, &lines, &tuned);
        assert_eq!(text.matches("```python\n").count(), 2, "{text}");
        assert!(text.contains("With scikit-learn's own classes:"), "{text}");
        lines[1].map = variant.map.name.into();
        let text = opening("the answer", &s, &lines, &tuned);
        assert_eq!(text.matches("```python\n").count(), 1, "{text}");
        assert!(text.contains("In scikit-learn: "), "{text}");
        // Nothing cheaper within: the exact machine, scikit-learn's code alone.
        lines[1].scores = [(0, 50.0), (1, 50.0), (2, 50.0)].into();
        let written = json(&s, &lines, &tuned, &[]);
        assert_eq!(written["scikit_learn"]["kind"], "exact kernel machine");
        assert!(written["scikit_learn"]["rfbench"].is_null());
        assert!(written["scikit_learn"]["scikit_learn"].is_string());
        let text = opening("the answer", &s, &lines, &tuned);
        assert_eq!(text.matches("```python\n").count(), 1, "{text}");
        assert!(text.contains("SVC(C=1.0"), "{text}");
        // No cell ran: no code, and a null in the JSON.
        let none: Vec<Line> = Vec::new();
        assert!(json_of_nothing(&s, &none, &tuned));
        assert_eq!(opening("the answer", &s, &none, &tuned), "the answer");
    }

    fn json_of_nothing(s: &Setup, lines: &[Line], tuned: &Tuned) -> bool {
        json(s, lines, tuned, &[])["scikit_learn"].is_null()
    }

    #[test]
    fn the_exact_machine_is_the_answer_when_no_cheaper_map_is_within() {
        let exact = rfbench_registry::exact_map().name;
        let lines = vec![
            line(exact, 0, &[96.9, 97.0, 96.8], 3.7),
            line("map-a", 1024, &[95.0, 95.2, 94.9], 9.0),
            line("map-a", 64, &[93.0, 93.1, 92.9], 1.0),
        ];
        let text = sentence(&lines);
        assert!(
            text.starts_with("use the exact kernel machine: 96.90 % in 3.70 s; no cheaper"),
            "{text}"
        );
        // At 2 points nothing cheaper either (map-a 1024 is dearer; 64 is 3.9 below).
        assert!(!text.contains("Within 2 points"), "{text}");
    }

    #[test]
    fn a_map_within_the_smallest_tolerance_is_the_answer_with_its_decision() {
        let mut lines = exact_and_a_map();
        lines.push(line("map-a", 32, &[88.8, 89.8, 87.8, 88.8], 0.5));
        let text = sentence(&lines);
        assert!(
            text.starts_with("use map-a, D = 64: 89.80 % in 1.00 s, within 0.5"),
            "{text}"
        );
        assert!(!text.contains("as cheap"), "{text}");
        assert!(text.contains("over 4 repetitions"), "{text}");
        assert!(
            text.contains(" Within 2 points: map-a, D = 32, 88.80 % in 0.50 s."),
            "{text}"
        );
        // An exact machine under a second is as cheap as any map in practice.
        let mut quick = lines.clone();
        quick[0].seconds = 0.006;
        quick[1].seconds = 0.004;
        let text = sentence(&quick);
        assert!(
            text.starts_with("use map-a, D = 64: 89.80 % in 4.0 ms"),
            "{text}"
        );
        assert!(text.contains("takes 6.0 ms: as cheap here"), "{text}");
    }

    /// A pick that ran on fewer repetitions than the reference (the plateau stopped its
    /// series early) is compared on its own: the sentence gives the reference's score on
    /// those repetitions beside its overall mean, and the paired difference.
    #[test]
    fn a_pick_on_fewer_repetitions_is_set_beside_the_reference_on_the_same_ones() {
        let mut lines = exact_and_a_map();
        // The pick's three splits are the hard ones: 87 % for the exact machine there.
        lines[0] = line(
            lines[0].map.as_str(),
            0,
            &[87.0, 87.2, 86.8, 93.0, 93.1, 92.9],
            50.0,
        );
        lines[1] = line("map-a", 64, &[86.8, 87.1, 86.7], 1.0);
        let text = sentence(&lines);
        assert!(
            text.starts_with(
                "use map-a, D = 64: 86.87 % in 1.00 s, within 0.5 points of the exact kernel \
                 machine (90.00 % in 50 s; 87.00 % on the pick's 3 repetitions) by a \
                 one-sided test over 3 repetitions: difference -0.13 points, 95 % lower bound"
            ),
            "{text}"
        );
        // On the same repetitions, nothing is added.
        let same = sentence(&exact_and_a_map());
        assert!(!same.contains("on the pick's"), "{same}");
    }
}
