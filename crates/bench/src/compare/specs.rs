//! What every spec compare writes is built from: the frame (header of decisions, data, seeds,
//! run, kernel, check and embedded dataset), the grid of (map, learner) cells with each series'
//! D and penalty, the learners' tables and the figures. Each stage builds its own spec from
//! these ([`super::stages`]) as the runner's own model ([`RawSpec`]), written with
//! [`RawSpec::to_toml`] under a header of comments, so the user can read, edit and rerun it with
//! `rfbench reproduce`, and a renamed spec key fails the tests that plan these specs.

use std::collections::BTreeMap;
use std::path::Path;

use toml::Value;

use super::budget::Sweep;
use super::setup::Setup;
pub use super::tuned::Tuned;
use crate::error::{Error, Result};
use crate::files::SpecFiles;
use crate::outputs::RawFigure;
use crate::spec::raw::{table, unspanned, RawCheck, RawSpec, Table};
use crate::spec::Profile;
use rfbench_registry::kinds::{column, LEARNING, TRAIN_SIZE};
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::{LearnerInfo, MapInfo, Series};

/// The D the tuning run chooses the bandwidth and the penalty at, with the tuning map: 512, or
/// the ladder's top below it.
pub fn tuning_d(setup: &Setup) -> usize {
    512.min(*setup.ladder.last().unwrap_or(&512))
}

/// The most D a map whose components are rows (Nystroem's landmarks) may take in a search on
/// `rows` tuning rows: the landmarks of a fold's training part, two thirds of the split's.
pub fn tuning_landmarks(setup: &Setup, rows: usize) -> usize {
    let fold_rows = (rows as f64 * (1.0 - setup.test_fraction) * 2.0 / 3.0) as usize;
    super::budget::landmarks(fold_rows).max(1)
}

/// A spec as written: the comment lines above it, then the model.
#[derive(Debug, Clone)]
pub struct Written {
    pub comments: Vec<String>,
    pub spec: RawSpec,
}

impl Written {
    /// The file's text: `# ` comments, a blank line, the spec.
    pub fn text(&self) -> String {
        let comment = |c: &String| match c.as_str() {
            "" => "#\n".to_string(),
            c => format!("# {c}\n"),
        };
        let mut out: String = self.comments.iter().map(comment).collect();
        out.push('\n');
        out + &self.spec.to_toml()
    }
}

/// The map the tuning run uses: the kernel's tuning map (the plain Monte Carlo estimator of its
/// family) when it is compared, else the first map compared.
pub fn tuning_map(setup: &Setup) -> &'static str {
    setup
        .kernel
        .tuning_map
        .filter(|m| setup.map_names().contains(m))
        .unwrap_or(setup.maps[0].name())
}

/// The tuning and pilot runs need one repetition; `[run]` asks for at least two, so every
/// cell is capped through its learner (`repetitions = 1` in its table).
pub(super) const ONCE: i64 = 1;

/// The spec's common part: header, data, seeds, run, kernel, check and embedded dataset.
pub(super) fn base(
    setup: &Setup,
    name: &str,
    title: &str,
    what: &str,
    kind: &str,
) -> Result<Written> {
    let mut comments = vec![
        format!("Written by `rfbench compare`: {what}"),
        String::new(),
    ];
    comments.extend(setup.decisions().iter().map(|line| format!("- {line}")));
    let steps = setup
        .preprocess(None)
        .iter()
        .map(|s| s.to_toml().map_err(Error::Experiment))
        .collect::<Result<Vec<_>>>()?;
    let mut seeds = BTreeMap::new();
    if !setup.has_test {
        // A new split in every repetition: the data seed follows the repetition.
        seeds.insert("data_seed".into(), unspanned(vec!["repetition".into()]));
    }
    let spec = RawSpec {
        name: name.into(),
        title: title.into(),
        paper: "none (rfbench compare)".into(),
        kind: unspanned(kind.into()),
        data: table([
            ("dataset", Value::from(setup.dataset.clone())),
            ("preprocess", Value::Array(steps)),
        ]),
        run: table([
            ("master_seed", integer(setup.seed)?),
            ("repetitions", integer(setup.repetitions as u64)?),
        ]),
        kernel: kernel(setup, None),
        grid: Table::new(),
        maps: BTreeMap::new(),
        learners: BTreeMap::new(),
        seeds,
        profiles: BTreeMap::new(),
        figures: Vec::new(),
        tables: Vec::new(),
        claims: Vec::new(),
        paper_values: Vec::new(),
        labels: BTreeMap::new(),
        sums: BTreeMap::new(),
        check: check(setup.task_kind().score_metric()),
        dataset: setup.embedded.iter().cloned().collect(),
    };
    Ok(Written { comments, spec })
}

pub(super) fn integer(v: u64) -> Result<Value> {
    i64::try_from(v)
        .map(Value::Integer)
        .map_err(|_| Error::Experiment(format!("{v} is above TOML's largest integer")))
}

/// `[kernel]`: its name, and the bandwidth (a number, or `{ cv = [...], folds = 3 }`) or the
/// degree, under the names the kernel's registry entry gives them.
pub(super) fn kernel(setup: &Setup, bandwidth: Option<Value>) -> Table {
    let mut out = table([("name", Value::from(setup.kernel.name))]);
    if let (Some(param), Some(value)) = (setup.kernel.bandwidth_param(), bandwidth) {
        out.insert(param.name.into(), unspanned(value));
    }
    if let Some(param) = setup.kernel.degree_param() {
        out.insert(param.name.into(), unspanned(i64::from(setup.degree).into()));
    }
    out
}

pub(super) fn check(metric: &str) -> RawCheck {
    RawCheck {
        columns: unspanned(vec![metric.to_string()]),
        rtol: Some(unspanned(1e-9)),
        false_alarm: None,
        statistical: None,
    }
}

pub(super) fn numbers(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| Value::Float(v)).collect())
}

/// Data subsampled to `rows` (the tuning and pilot runs).
pub(super) fn subsampled(spec: &mut RawSpec, setup: &Setup, rows: usize) -> Result<()> {
    let steps = setup
        .preprocess(Some(rows))
        .iter()
        .map(|s| s.to_toml().map_err(Error::Experiment))
        .collect::<Result<Vec<_>>>()?;
    spec.data
        .insert("preprocess".into(), unspanned(Value::Array(steps)));
    spec.run.insert("repetitions".into(), unspanned(2.into()));
    Ok(())
}

/// What compare sets in every table of `learner` (the registry's `compare_settings`: the
/// linear SVM's solver chosen by shape).
pub(super) fn settings(learner: &LearnerInfo) -> Table {
    let values = learner.compare_settings.iter();
    table(values.map(|(name, value)| (*name, Value::from(*value))))
}

/// A learner's table: compare's settings, its penalty (a value or "cv"), and the cap of one
/// repetition.
pub(super) fn learner_table(
    learner: &LearnerInfo,
    penalty: &str,
    value: Value,
    once: bool,
) -> Table {
    let mut out = settings(learner);
    out.insert(penalty.into(), unspanned(value));
    if once {
        out.insert("repetitions".into(), unspanned(ONCE.into()));
    }
    out
}

/// A tuning spec's frame: the tuning rows (`rows` of them, a new validation split in every one
/// of `repetitions`, test file or not).
pub(super) fn tuning_base(
    setup: &Setup,
    name: &str,
    what: &str,
    rows: usize,
    repetitions: i64,
) -> Result<Written> {
    let title = "Tuning run of rfbench compare";
    let mut w = base(setup, name, title, what, LEARNING.name)?;
    let steps = setup
        .tuning_preprocess(rows)
        .iter()
        .map(|s| s.to_toml().map_err(Error::Experiment))
        .collect::<Result<Vec<_>>>()?;
    w.spec
        .data
        .insert("preprocess".into(), unspanned(Value::Array(steps)));
    w.spec
        .run
        .insert("repetitions".into(), unspanned(repetitions.into()));
    w.spec
        .seeds
        .insert("data_seed".into(), unspanned(vec!["repetition".into()]));
    Ok(w)
}

/// `series` grouped by their map, in order of first appearance.
pub(super) fn by_map(series: &[Series]) -> Vec<(&'static MapInfo, Vec<Series>)> {
    let mut out: Vec<(&'static MapInfo, Vec<Series>)> = Vec::new();
    for s in series {
        match out.iter_mut().find(|(m, _)| m.name == s.map.name) {
            Some((_, of_map)) => of_map.push(*s),
            None => out.push((s.map, vec![*s])),
        }
    }
    out
}

/// The values of the parameters that tell apart `of_map`'s series (one map's), as the key and
/// value of an axis of the map's table: `form = ["paired", "phase"]`, or a zipped axis when
/// the variants set several parameters; `None` when all of them are the map at its defaults.
pub(super) fn variant_axis(of_map: &[Series]) -> Option<(String, Value)> {
    of_map.iter().find(|s| s.variant.is_some())?;
    let params = of_map[0].variant_params();
    let row = |s: &Series| -> Vec<Value> {
        params
            .iter()
            .map(|p| Value::from(s.value_of(p).unwrap_or_default()))
            .collect()
    };
    let values = of_map
        .iter()
        .map(|s| match row(s).as_slice() {
            [one] => one.clone(),
            many => Value::Array(many.to_vec()),
        })
        .collect();
    Some((params.join(", "), Value::Array(values)))
}

/// The learners' tables: compare's settings and the repetition cap of the learner on the
/// features, and the exact one's penalty and cap (`exact_once: None` when the exact machine is not in the grid: a table
/// for a learner no cell has is refused as a typo would be).
pub(super) fn constants(
    spec: &mut RawSpec,
    setup: &Setup,
    tuned: Tuned,
    once: bool,
    exact_once: Option<bool>,
) {
    // The feature learner's penalty is in each map's table ([`grid`]): each series' own.
    let mut features = settings(setup.learner);
    if once {
        features.insert("repetitions".into(), unspanned(ONCE.into()));
    }
    if !features.is_empty() {
        spec.learners.insert(setup.learner.name.into(), features);
    }
    if let Some(exact_once) = exact_once {
        let exact = learner_table(
            setup.exact_learner,
            setup.exact_penalty,
            Value::Float(tuned.exact_penalty),
            exact_once,
        );
        spec.learners.insert(setup.exact_learner.name.into(), exact);
    }
}

/// The kernel with the tuned bandwidth.
pub(super) fn tuned_kernel(setup: &Setup, tuned: Tuned) -> Table {
    kernel(setup, tuned.sigma.map(Value::Float))
}

/// The sum of the three times a cell takes, which the sweep's time figure plots.
pub const TOTAL_SECONDS: &str = "total_seconds";

/// Where compare's run `name` (`tune`, `pilot`, `compare`, `gram`: the full profile of its spec)
/// keeps its files under `out`.
pub fn files(out: &Path, name: &str) -> SpecFiles {
    SpecFiles::new(out, name, Profile::Full.name())
}

/// The sweep's figures: score against D, and time against D.
pub const SCORE_FIGURE: &str = "score";
pub const TIME_FIGURE: &str = "time";

/// The `[sums]` entry [`TOTAL_SECONDS`]: map + train + predict.
pub(super) fn add_total_seconds(spec: &mut RawSpec) {
    let parts = [
        column::MAP_SECONDS,
        column::TRAIN_SECONDS,
        column::PREDICT_SECONDS,
    ];
    spec.sums.insert(
        TOTAL_SECONDS.into(),
        unspanned(parts.iter().map(|p| p.to_string()).collect()),
    );
}

/// A figure of `y` against D, one series per map and variant (`variant_params`: the columns
/// that tell a map's variants apart, such as `form`), log x.
pub(super) fn figure(name: &str, y: &str, y_label: &str, variant_params: &[&str]) -> RawFigure {
    let series = std::iter::once("map")
        .chain(variant_params.iter().copied())
        .map(|c| unspanned(c.to_string()))
        .collect();
    RawFigure {
        name: Some(unspanned(name.into())),
        title: None,
        x: unspanned(N_COMPONENTS.name.into()),
        y: unspanned(y.into()),
        series: Some(series),
        panels: None,
        filter: BTreeMap::new(),
        log_x: true,
        log_y: false,
        error_bars: None,
        x_label: Some("Number of features (D)".into()),
        y_label: Some(y_label.into()),
        series_label: None,
        profiles: None,
    }
}
/// A map's table: its list of D.
pub(super) fn components(ds: &[usize]) -> Table {
    let list = ds.iter().map(|&d| Value::Integer(d as i64)).collect();
    table([(N_COMPONENTS.name, Value::Array(list))])
}

pub(super) fn metric_label(setup: &Setup) -> &'static str {
    if setup.classification() {
        "Test accuracy (%)"
    } else {
        "Test RMSE"
    }
}

/// The key of the sweep's grid: one entry per component; the penalties and each map's D are
/// in the components' tables.
pub(super) fn grid_key() -> String {
    format!("map, learner, {}", TRAIN_SIZE.name)
}

/// The `[grid]`: the linear baseline (when `baseline`), the exact machine (on a subsample of
/// the training rows when `exact_train_size` says so; absent when `None`; with its own
/// bandwidth), every map that runs. Each map's table gives its D and the learner's penalty on
/// its features ([`map_table`]), the baseline's the tuning map's penalty; the exact machine's
/// penalty is in its learner's table ([`constants`]). The maps train on `maps_rows` of the
/// training rows (0: all), drawn as the exact machine's subsample of that size is.
pub(super) fn grid(
    spec: &mut RawSpec,
    setup: &Setup,
    sweep: &Sweep,
    tuned: Tuned,
    baseline: bool,
    maps_rows: usize,
) {
    let cell = |map: &str, learner: &LearnerInfo, size: usize| {
        Value::Array(vec![
            map.into(),
            learner.name.into(),
            Value::Integer(size as i64),
        ])
    };
    let raw = rfbench_registry::raw_map().name;
    let mut tuples = Vec::new();
    if baseline {
        tuples.push(cell(raw, setup.learner, 0));
        // A one-value list, so that the penalty is an axis of every sweep spec, with or without
        // maps: axes enter the seeds, and the rounds take round 0's baseline and exact machine
        // only if their seeds are the ones the full sweep gives them.
        let penalty = table([(
            setup.penalty,
            Value::Array(vec![Value::Float(tuned.penalty)]),
        )]);
        spec.maps.insert(raw.into(), penalty);
    }
    if let Some(size) = sweep.exact_train_size {
        let exact = rfbench_registry::exact_map().name;
        tuples.push(cell(exact, setup.exact_learner, size));
        let param = setup.kernel.bandwidth_param();
        // Alone in the grid (a confirmation of its learning curve's sizes), its bandwidth is the
        // kernel's: an own one would leave `[kernel]`'s unused, which the runner refuses.
        let alone = !baseline && ran(sweep).next().is_none();
        if let (Some(param), Some(sigma)) = (param, tuned.exact_sigma) {
            if tuned.exact_sigma != tuned.sigma && alone {
                spec.kernel
                    .insert(param.name.into(), unspanned(Value::Float(sigma)));
            } else if tuned.exact_sigma != tuned.sigma {
                let own = table([(param.name, Value::Float(sigma))]);
                spec.maps.insert(exact.into(), own);
            }
        }
    }
    for (map, of_map) in by_map_with_ds(sweep) {
        tuples.push(cell(map.name, setup.learner, maps_rows));
        let table = map_table(&of_map, Some((setup.penalty, &tuned)));
        spec.maps.insert(map.name.into(), table);
    }
    spec.grid = table([(grid_key(), Value::Array(tuples))]);
}

/// `w` (a [`base`] spec) made a run of a few of the sweep's cells, `repetitions` each:
/// `sweep`'s maps on `maps_rows` training rows (0: all), the exact machine at its size, the
/// baseline when `baseline`; the learners' tables only of learners a cell runs. The
/// confirmation rounds' specs and the maps on the exact machine's rows.
pub(super) fn cells(
    mut w: Written,
    setup: &Setup,
    tuned: Tuned,
    sweep: &Sweep,
    baseline: bool,
    repetitions: usize,
    maps_rows: usize,
) -> Result<Written> {
    w.spec.kernel = tuned_kernel(setup, tuned);
    w.spec.run.insert(
        "repetitions".into(),
        unspanned(integer(repetitions as u64)?),
    );
    grid(&mut w.spec, setup, sweep, tuned, baseline, maps_rows);
    let exact_once = sweep.exact_train_size.map(|_| setup.has_test);
    constants(&mut w.spec, setup, tuned, false, exact_once);
    if !baseline && ran(sweep).next().is_none() {
        // The exact machine's sizes alone: a table for a learner no cell runs is refused.
        w.spec.learners.remove(setup.learner.name);
    }
    add_total_seconds(&mut w.spec);
    Ok(w)
}

/// The series of `sweep` that run (with D to run), as registry series.
pub(super) fn ran(sweep: &Sweep) -> impl Iterator<Item = (Series, &Vec<usize>)> {
    sweep
        .per_map
        .iter()
        .filter(|(_, ds)| !ds.is_empty())
        .filter_map(|(name, ds)| Some((rfbench_registry::series::named(name)?, ds)))
}

/// The series of `sweep` that run, grouped by map in order of first appearance, with their D.
pub(super) fn by_map_with_ds(sweep: &Sweep) -> Vec<(&'static MapInfo, Vec<(Series, Vec<usize>)>)> {
    let ran: Vec<(Series, Vec<usize>)> = ran(sweep).map(|(s, ds)| (s, ds.clone())).collect();
    let series: Vec<Series> = ran.iter().map(|(s, _)| *s).collect();
    by_map(&series)
        .into_iter()
        .map(|(map, of_map)| {
            let with_ds = of_map
                .iter()
                .filter_map(|s| ran.iter().find(|(r, _)| r == s).cloned())
                .collect();
            (map, with_ds)
        })
        .collect()
}

/// One map's table: its D and, with `penalty` (the parameter's name and the tuned values), the
/// learner's penalty on its features, one zipped axis of (D, penalty) so that a cell's penalty
/// is its own (`"n_components, C" = [[64, 0.5], [128, 0.5]]`); where its variants run (RFF's
/// phase form), their parameters lead each entry, so that each series has its own ladder and
/// penalty: `"form, n_components, C" = [["paired", 64, 0.5], ["phase", 64, 0.25]]`. Without a
/// penalty (the Gram step), a list of D, or the zipped (variant parameters, D).
pub(super) fn map_table(of_map: &[(Series, Vec<usize>)], penalty: Option<(&str, &Tuned)>) -> Table {
    let series: Vec<Series> = of_map.iter().map(|(s, _)| *s).collect();
    let variants = variant_axis(&series);
    if let (None, None) = (penalty, &variants) {
        return components(&of_map[0].1);
    }
    let (params, values) = match variants {
        Some((params, Value::Array(values))) => (Some(params), values),
        _ => (None, Vec::new()),
    };
    let mut rows = Vec::new();
    for (k, (s, ds)) in of_map.iter().enumerate() {
        for &d in ds {
            let mut row = match values.get(k) {
                Some(Value::Array(many)) => many.clone(),
                Some(one) => vec![one.clone()],
                None => Vec::new(),
            };
            row.push(Value::Integer(d as i64));
            if let Some((_, tuned)) = penalty {
                row.push(Value::Float(tuned.penalty_at(s.name(), d)));
            }
            rows.push(Value::Array(row));
        }
    }
    let names = params
        .into_iter()
        .chain([N_COMPONENTS.name.to_string()])
        .chain(penalty.map(|(name, _)| name.to_string()));
    table([(names.collect::<Vec<_>>().join(", "), Value::Array(rows))])
}

#[cfg(test)]
#[path = "specs_tests.rs"]
pub(crate) mod tests;
