//! The four ordinary specs a comparison runs: `tune` (the bandwidth and the learner's penalty
//! by cross-validation, on a subsample, with one map), `pilot` (every cell's cost at two values
//! of D on the same subsample), `compare` (the sweep) and `gram` (each map's Gram-matrix error
//! at the sweep's D on a few training rows). Each is built as the runner's own spec model
//! ([`RawSpec`]) from the registry's entries and written with [`RawSpec::to_toml`] under a
//! header of comments (the decisions), so the user can read, edit and rerun it with
//! `rfbench reproduce`, and a renamed spec key fails the tests that plan these specs.

use std::collections::BTreeMap;
use std::path::Path;

use toml::Value;

use super::budget::Sweep;
use super::setup::{Setup, EXACT_PENALTIES, PILOT_ROWS};
use crate::error::{Error, Result};
use crate::files::SpecFiles;
use crate::outputs::RawFigure;
use crate::spec::raw::{table, unspanned, RawCheck, RawSpec, Table};
use crate::spec::Profile;
use rfbench_registry::kinds::{column, GRAM_ERROR, LEARNING, TRAIN_SIZE};
use rfbench_registry::maps::N_COMPONENTS;
use rfbench_registry::{LearnerInfo, MapInfo, Series};

/// The values the tuning run chose, used as constants by the pilot and the sweep: the maps'
/// (chosen with the tuning map and the learner on its features) and the exact machine's own
/// (chosen for itself, in the same run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuned {
    pub sigma: Option<f64>,
    pub penalty: f64,
    /// The exact machine's bandwidth (`None` where the kernel has none or it was given).
    pub exact_sigma: Option<f64>,
    pub exact_penalty: f64,
    /// The learner's penalty chosen for each series (map, or variant of one) on its own
    /// features (`tune-maps.toml`), by the series' place in the registry
    /// ([`rfbench_registry::series::all`]); `None`: [`Tuned::penalty`].
    pub map_penalties: [Option<OwnPenalty>; MAX_MAPS],
    /// The penalty chosen again for a series at the last rung of its sweep
    /// (`tune-last.toml`): that cell's own; the series' other cells keep
    /// [`Tuned::map_penalties`]'.
    pub last_rungs: [Option<OwnPenalty>; MAX_MAPS],
}

/// A penalty chosen for one series on its own features, and the D it was chosen at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnPenalty {
    pub value: f64,
    pub d: usize,
}

/// Room for every series of the registry in [`Tuned::map_penalties`] (a test checks it).
pub const MAX_MAPS: usize = 24;

impl Tuned {
    /// The maps' values and the exact machine's, no map tuned on its own yet.
    pub fn new(
        sigma: Option<f64>,
        penalty: f64,
        exact_sigma: Option<f64>,
        exact_penalty: f64,
    ) -> Self {
        Tuned {
            sigma,
            penalty,
            exact_sigma,
            exact_penalty,
            map_penalties: [None; MAX_MAPS],
            last_rungs: [None; MAX_MAPS],
        }
    }

    /// The learner's penalty on the features of `map` (a series): its own, or the tuning
    /// map's.
    pub fn penalty_for(&self, map: &str) -> f64 {
        map_slot(map)
            .and_then(|k| self.map_penalties[k])
            .map_or(self.penalty, |p| p.value)
    }

    /// The learner's penalty in the cell of `map` (a series) at `d`: its last rung's own where
    /// `d` is that rung, else [`Tuned::penalty_for`].
    pub fn penalty_at(&self, map: &str, d: usize) -> f64 {
        let last = map_slot(map).and_then(|k| self.last_rungs[k]);
        match last {
            Some(p) if p.d == d => p.value,
            _ => self.penalty_for(map),
        }
    }

    /// Records `map`'s own penalty, chosen at `d`.
    pub fn set_penalty(&mut self, map: &str, value: f64, d: usize) {
        if let Some(k) = map_slot(map) {
            self.map_penalties[k] = Some(OwnPenalty { value, d });
        }
    }

    /// Records the penalty of `map`'s cell at its last rung `d`, chosen there.
    pub fn set_last_rung(&mut self, map: &str, value: f64, d: usize) {
        if let Some(k) = map_slot(map) {
            self.last_rungs[k] = Some(OwnPenalty { value, d });
        }
    }

    /// The series tuned on their own, with their penalty, in registry order.
    pub fn own_penalties(&self) -> Vec<(&'static str, OwnPenalty)> {
        owned(&self.map_penalties)
    }

    /// The series whose last rung has a penalty of its own, in registry order.
    pub fn last_rung_penalties(&self) -> Vec<(&'static str, OwnPenalty)> {
        owned(&self.last_rungs)
    }
}

fn owned(slots: &[Option<OwnPenalty>; MAX_MAPS]) -> Vec<(&'static str, OwnPenalty)> {
    let names = series_names();
    names
        .iter()
        .enumerate()
        .filter_map(|(k, name)| Some((*name, slots.get(k).copied().flatten()?)))
        .collect()
}

fn series_names() -> Vec<&'static str> {
    rfbench_registry::series::all().map(|s| s.name()).collect()
}

fn map_slot(map: &str) -> Option<usize> {
    series_names()
        .iter()
        .position(|n| *n == map)
        .filter(|&k| k < MAX_MAPS)
}

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
const ONCE: i64 = 1;

/// The spec's common part: header, data, seeds, run, kernel, check and embedded dataset.
fn base(setup: &Setup, name: &str, title: &str, what: &str, kind: &str) -> Result<Written> {
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

fn integer(v: u64) -> Result<Value> {
    i64::try_from(v)
        .map(Value::Integer)
        .map_err(|_| Error::Experiment(format!("{v} is above TOML's largest integer")))
}

/// `[kernel]`: its name, and the bandwidth (a number, or `{ cv = [...], folds = 3 }`) or the
/// degree, under the names the kernel's registry entry gives them.
fn kernel(setup: &Setup, bandwidth: Option<Value>) -> Table {
    let mut out = table([("name", Value::from(setup.kernel.name))]);
    if let (Some(param), Some(value)) = (setup.kernel.bandwidth_param(), bandwidth) {
        out.insert(param.name.into(), unspanned(value));
    }
    if let Some(param) = setup.kernel.degree_param() {
        out.insert(param.name.into(), unspanned(i64::from(setup.degree).into()));
    }
    out
}

fn check(metric: &str) -> RawCheck {
    RawCheck {
        columns: unspanned(vec![metric.to_string()]),
        rtol: Some(unspanned(1e-9)),
        false_alarm: None,
        statistical: None,
    }
}

fn numbers(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| Value::Float(v)).collect())
}

/// Data subsampled to `rows` (the tuning and pilot runs).
fn subsampled(spec: &mut RawSpec, setup: &Setup, rows: usize) -> Result<()> {
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

/// A learner's table: its penalty (a value or "cv"), and the cap of one repetition.
fn learner_table(penalty: &str, value: Value, once: bool) -> Table {
    let mut out = table([(penalty, value)]);
    if once {
        out.insert("repetitions".into(), unspanned(ONCE.into()));
    }
    out
}

/// The tuning run `name`, on a subsample of `rows`: for the maps, sigma from the candidates and the learner's
/// penalty by 3-fold cross-validation (nested: each bandwidth's folds choose their own penalty)
/// with the tuning map, once; for the exact machine, the same for itself (its own sigma and
/// penalty), or, when it cannot cross-validate its penalty (the kernel SVM's C), one cell per
/// value of [`EXACT_PENALTIES`] (each choosing its sigma by cross-validation), scored on the
/// held-out rows of two splits.
pub fn tune(setup: &Setup, name: &str, rows: usize) -> Result<Written> {
    let what = "the bandwidth and the penalties by cross-validation on a subsample";
    let mut w = tuning_base(setup, name, what, rows, 2)?;
    let sigma = match setup.sigmas.as_slice() {
        [] => None,
        [given] => Some(Value::Float(*given)),
        candidates => Some(Value::Table(toml::Table::from_iter([
            ("cv".to_string(), numbers(candidates)),
            ("folds".to_string(), Value::Integer(3)),
        ]))),
    };
    w.spec.kernel = kernel(setup, sigma);
    let d = tuning_d(setup);
    let exact = rfbench_registry::exact_map().name;
    // The tuning series' map, with its variant's parameters in the map's table.
    let series = rfbench_registry::series::named(tuning_map(setup));
    let map = series.map_or(tuning_map(setup), |s| s.map.name);
    if let Some((key, values)) = series.and_then(|s| variant_axis(&[s])) {
        w.spec.maps.insert(map.into(), table([(key, values)]));
    }
    let tuples = [(map, setup.learner), (exact, setup.exact_learner)]
        .iter()
        .map(|(map, l)| Value::Array(vec![(*map).into(), l.name.into()]))
        .collect();
    w.spec.grid = table([
        ("map, learner", Value::Array(tuples)),
        (N_COMPONENTS.name, Value::Integer(d as i64)),
    ]);
    let mut features = learner_table(setup.penalty, "cv".into(), true);
    features.insert("folds".into(), unspanned(3.into()));
    w.spec.learners.insert(setup.learner.name.into(), features);
    let exact_table = if setup.exact_learner.tunes_penalty() {
        let mut t = learner_table(setup.exact_penalty, "cv".into(), true);
        t.insert("folds".into(), unspanned(3.into()));
        t
    } else {
        table([(setup.exact_penalty, numbers(&EXACT_PENALTIES))])
    };
    w.spec
        .learners
        .insert(setup.exact_learner.name.into(), exact_table);
    Ok(w)
}

/// A tuning spec's frame: the tuning rows (`rows` of them, a new validation split in every one
/// of `repetitions`, test file or not).
fn tuning_base(
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

/// `name` (`tune-maps`, `tune-last`): the learner's penalty for each of `maps` (series, each
/// with its D) on its own features, by 3-fold cross-validation on the tuning rows, the
/// bandwidth fixed at the tuned one. A map whose components are rows takes at most
/// [`tuning_landmarks`]. One entry of the grid per map, its series' D (and its variants'
/// values, `[maps.rff] "form, n_components" = [["phase", 1024]]`) in its table.
pub fn tune_maps(
    setup: &Setup,
    tuned: Tuned,
    name: &str,
    maps: &[(&'static str, usize)],
    rows: usize,
) -> Result<Written> {
    let what = "each map's own penalty on its features, by cross-validation on a subsample";
    let mut w = tuning_base(setup, name, what, rows, 2)?;
    w.spec.kernel = tuned_kernel(setup, tuned);
    let cap = tuning_landmarks(setup, rows);
    let sweep = Sweep {
        per_map: maps
            .iter()
            .map(|&(series, d)| {
                let size = match super::budget::components_are_rows(series) {
                    true => d.min(cap),
                    false => d,
                };
                (series, vec![size])
            })
            .collect(),
        ..Sweep::default()
    };
    let mut tuples = Vec::new();
    for (map, of_map) in by_map_with_ds(&sweep) {
        tuples.push(Value::Array(vec![
            map.name.into(),
            setup.learner.name.into(),
        ]));
        w.spec
            .maps
            .insert(map.name.into(), map_table(&of_map, None));
    }
    w.spec.grid = table([("map, learner", Value::Array(tuples))]);
    let mut features = learner_table(setup.penalty, "cv".into(), false);
    features.insert("folds".into(), unspanned(3.into()));
    w.spec.learners.insert(setup.learner.name.into(), features);
    Ok(w)
}

/// `series` grouped by their map, in order of first appearance.
fn by_map(series: &[Series]) -> Vec<(&'static MapInfo, Vec<Series>)> {
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
fn variant_axis(of_map: &[Series]) -> Option<(String, Value)> {
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

/// The learners' tables: the repetition cap of the learner on the features, and the exact
/// one's penalty and cap (`exact_once: None` when the exact machine is not in the grid: a table
/// for a learner no cell has is refused as a typo would be).
fn constants(
    spec: &mut RawSpec,
    setup: &Setup,
    tuned: Tuned,
    once: bool,
    exact_once: Option<bool>,
) {
    // The feature learner's penalty is in each map's table ([`grid`]): each series' own.
    if once {
        let features = table([("repetitions", Value::Integer(ONCE))]);
        spec.learners.insert(setup.learner.name.into(), features);
    }
    if let Some(exact_once) = exact_once {
        let exact = learner_table(
            setup.exact_penalty,
            Value::Float(tuned.exact_penalty),
            exact_once,
        );
        spec.learners.insert(setup.exact_learner.name.into(), exact);
    }
}

/// The kernel with the tuned bandwidth.
fn tuned_kernel(setup: &Setup, tuned: Tuned) -> Table {
    kernel(setup, tuned.sigma.map(Value::Float))
}

/// The pilot: every map at the sweep's smallest D and at `pilot_d`, the linear baseline and the
/// exact machine, once, on the subsample.
pub fn pilot(setup: &Setup, tuned: Tuned, pilot_d: usize) -> Result<Written> {
    let what = "each cell's cost at two values of D, on a subsample, for the budget";
    let mut w = base(
        setup,
        "pilot",
        "Pilot run of rfbench compare",
        what,
        LEARNING.name,
    )?;
    subsampled(&mut w.spec, setup, PILOT_ROWS)?;
    w.spec.kernel = tuned_kernel(setup, tuned);
    let sweep = Sweep {
        per_map: setup
            .maps
            .iter()
            .map(|m| {
                let mut ds = vec![setup.ladder[0], pilot_d];
                ds.dedup();
                (m.name(), ds)
            })
            .collect(),
        exact_train_size: Some(0),
        skipped: Vec::new(),
    };
    grid(&mut w.spec, setup, &sweep, tuned, true);
    // The exact machine on half the training rows too: how its time grows with them.
    if let Some(half) = super::budget::exact_half(super::budget::pilot_train(setup)) {
        let key = grid_key();
        if let Some(Value::Array(tuples)) = w.spec.grid.get_mut(&key).map(|v| v.get_mut()) {
            let exact = rfbench_registry::exact_map().name;
            // A copy of the exact cell on all rows, at half of them.
            let mut half_cell = tuples
                .iter()
                .find(|t| t.as_array().and_then(|a| a[0].as_str()) == Some(exact))
                .cloned();
            if let Some(Value::Array(fields)) = half_cell.as_mut() {
                fields[2] = Value::Integer(half as i64);
            }
            tuples.extend(half_cell);
        }
    }
    constants(&mut w.spec, setup, tuned, true, Some(true));
    Ok(w)
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

/// The sweep.
pub fn sweep(setup: &Setup, tuned: Tuned, sweep: &Sweep) -> Result<Written> {
    let what = "which map, at what D, on this data";
    let title = "Which map, at what D (rfbench compare)";
    let mut w = base(setup, "compare", title, what, LEARNING.name)?;
    let bandwidth = setup.kernel.bandwidth_param().map(|p| p.name);
    let mut chosen = Vec::new();
    if let (Some(name), Some(sigma), Some(_)) = (bandwidth, tuned.sigma, setup.median) {
        chosen.push(format!("{name} = {sigma:?}"));
    }
    chosen.push(format!("{} = {:?}", setup.penalty, tuned.penalty));
    for (map, own) in tuned.own_penalties() {
        chosen.push(format!(
            "{map}'s own {} = {:?} (at D = {})",
            setup.penalty, own.value, own.d
        ));
    }
    for (map, own) in tuned.last_rung_penalties() {
        chosen.push(format!(
            "{map}'s own {} at its last D = {}: {:?}",
            setup.penalty, own.d, own.value
        ));
    }
    if let (Some(name), Some(sigma), Some(_)) = (bandwidth, tuned.exact_sigma, setup.median) {
        chosen.push(format!("the exact machine's own {name} = {sigma:?}"));
    }
    chosen.push(format!(
        "the exact machine's own {} = {:?}",
        setup.exact_penalty, tuned.exact_penalty
    ));
    w.comments.push(format!(
        "- {}: chosen by {}",
        chosen.join(", "),
        files(Path::new(""), "tune").csv().display()
    ));
    for reason in &sweep.skipped {
        w.comments.push(format!("- left out: {reason}"));
    }
    w.spec.kernel = tuned_kernel(setup, tuned);
    grid(&mut w.spec, setup, sweep, tuned, true);
    // With the same rows in every repetition the exact machine (no random draw) runs once.
    let exact_once = sweep.exact_train_size.map(|_| setup.has_test);
    constants(&mut w.spec, setup, tuned, false, exact_once);
    add_total_seconds(&mut w.spec);
    let metric = setup.task_kind().score_metric();
    let mut variant_params: Vec<&str> = Vec::new();
    for (series, _) in ran(sweep).filter(|(s, _)| s.variant.is_some()) {
        variant_params.extend(series.variant_params());
    }
    variant_params.dedup();
    w.spec.figures = vec![
        figure(SCORE_FIGURE, metric, metric_label(setup), &variant_params),
        figure(
            TIME_FIGURE,
            TOTAL_SECONDS,
            "Map + train + predict (s)",
            &variant_params,
        ),
    ];
    Ok(w)
}

/// `name`: more repetitions of a few of the sweep's cells (`sweep`'s, and the baseline when
/// `baseline`), `repetitions` in all: the sweep's own repetitions have the same seeds, so
/// they are taken from its rows and only the new ones run.
pub fn confirm(
    name: &str,
    setup: &Setup,
    tuned: Tuned,
    sweep: &Sweep,
    baseline: bool,
    repetitions: usize,
) -> Result<Written> {
    let what = "more repetitions of the cells the sweep's could not decide";
    let title = "Confirmation run of rfbench compare";
    let mut w = base(setup, name, title, what, LEARNING.name)?;
    w.spec.kernel = tuned_kernel(setup, tuned);
    w.spec.run.insert(
        "repetitions".into(),
        unspanned(integer(repetitions as u64)?),
    );
    grid(&mut w.spec, setup, sweep, tuned, baseline);
    let exact_once = sweep.exact_train_size.map(|_| setup.has_test);
    constants(&mut w.spec, setup, tuned, false, exact_once);
    add_total_seconds(&mut w.spec);
    Ok(w)
}

/// The `[sums]` entry [`TOTAL_SECONDS`]: map + train + predict.
fn add_total_seconds(spec: &mut RawSpec) {
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
fn figure(name: &str, y: &str, y_label: &str, variant_params: &[&str]) -> RawFigure {
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

/// Training rows whose Gram matrix the `gram` run compares with the exact kernel's.
pub const GRAM_ROWS: usize = 500;

/// The Gram-matrix error of every map at the sweep's D, on `GRAM_ROWS` training rows.
pub fn gram(setup: &Setup, tuned: Tuned, sweep: &Sweep) -> Result<Written> {
    let what = "each map's Gram-matrix error at the sweep's D";
    let title = "Gram error of rfbench compare's maps";
    let mut w = base(setup, "gram", title, what, GRAM_ERROR.name)?;
    let rows = GRAM_ROWS.min(super::budget::landmarks(setup.n_train));
    let samples = GRAM_ERROR.params[0].name;
    w.spec
        .run
        .insert(samples.into(), unspanned(Value::Integer(rows as i64)));
    w.spec.kernel = tuned_kernel(setup, tuned);
    // A map whose components are rows cannot take more than the rows compared.
    let fitting = Sweep {
        per_map: sweep
            .per_map
            .iter()
            .map(|(map, ds)| {
                let fits = |d: &&usize| !super::budget::components_are_rows(map) || **d <= rows;
                (*map, ds.iter().filter(fits).copied().collect::<Vec<_>>())
            })
            .collect(),
        ..Sweep::default()
    };
    let per_map = by_map_with_ds(&fitting);
    let maps: Vec<Value> = per_map.iter().map(|(m, _)| Value::from(m.name)).collect();
    w.spec.grid = table([("map", Value::Array(maps))]);
    for (map, of_map) in &per_map {
        w.spec
            .maps
            .insert(map.name.to_string(), map_table(of_map, None));
    }
    w.spec.check = check(column::RELATIVE_FROBENIUS);
    Ok(w)
}

/// A map's table: its list of D.
fn components(ds: &[usize]) -> Table {
    let list = ds.iter().map(|&d| Value::Integer(d as i64)).collect();
    table([(N_COMPONENTS.name, Value::Array(list))])
}

fn metric_label(setup: &Setup) -> &'static str {
    if setup.classification() {
        "Test accuracy (%)"
    } else {
        "Test RMSE"
    }
}

/// The key of the sweep's grid: one entry per component; the penalties and each map's D are
/// in the components' tables.
fn grid_key() -> String {
    format!("map, learner, {}", TRAIN_SIZE.name)
}

/// The `[grid]`: the linear baseline (when `baseline`), the exact machine (on a subsample of
/// the training rows when `exact_train_size` says so; absent when `None`; with its own
/// bandwidth), every map that runs. Each map's table gives its D and the learner's penalty on
/// its features ([`map_table`]), the baseline's the tuning map's penalty; the exact machine's
/// penalty is in its learner's table ([`constants`]).
fn grid(spec: &mut RawSpec, setup: &Setup, sweep: &Sweep, tuned: Tuned, baseline: bool) {
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
        let penalty = table([(setup.penalty, Value::Float(tuned.penalty))]);
        spec.maps.insert(raw.into(), penalty);
    }
    if let Some(size) = sweep.exact_train_size {
        let exact = rfbench_registry::exact_map().name;
        tuples.push(cell(exact, setup.exact_learner, size));
        let param = setup.kernel.bandwidth_param();
        if let (Some(param), Some(sigma)) = (param, tuned.exact_sigma) {
            if tuned.exact_sigma != tuned.sigma {
                let own = table([(param.name, Value::Float(sigma))]);
                spec.maps.insert(exact.into(), own);
            }
        }
    }
    for (map, of_map) in by_map_with_ds(sweep) {
        tuples.push(cell(map.name, setup.learner, 0));
        let table = map_table(&of_map, Some((setup.penalty, &tuned)));
        spec.maps.insert(map.name.into(), table);
    }
    spec.grid = table([(grid_key(), Value::Array(tuples))]);
}

/// The series of `sweep` that run (with D to run), as registry series.
fn ran(sweep: &Sweep) -> impl Iterator<Item = (Series, &Vec<usize>)> {
    sweep
        .per_map
        .iter()
        .filter(|(_, ds)| !ds.is_empty())
        .filter_map(|(name, ds)| Some((rfbench_registry::series::named(name)?, ds)))
}

/// The series of `sweep` that run, grouped by map in order of first appearance, with their D.
fn by_map_with_ds(sweep: &Sweep) -> Vec<(&'static MapInfo, Vec<(Series, Vec<usize>)>)> {
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
fn map_table(of_map: &[(Series, Vec<usize>)], penalty: Option<(&str, &Tuned)>) -> Table {
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
mod tests {
    use super::*;
    use crate::compare::test_support::{default_learner, setup};
    use rfbench_data::{Registry, Step, Task};
    use rfbench_registry::{Needs, TaskKind};

    /// The regression learner on features (ridge), which also classifies: its penalty is not
    /// the exact SVM's, so the exact machine needs a tuner.
    fn regression_learner() -> &'static str {
        default_learner(TaskKind::Regression, Needs::Features).name
    }

    fn tuned() -> Tuned {
        Tuned::new(Some(1.25), 0.5, Some(2.5), 2.0)
    }

    #[test]
    fn every_map_of_the_registry_has_room_for_its_own_penalty() {
        assert!(series_names().len() <= MAX_MAPS);
        let mut t = tuned();
        t.set_penalty("nystroem", 8.0, 256);
        assert_eq!(
            (t.penalty_for("nystroem"), t.penalty_for("rff")),
            (8.0, 0.5)
        );
        let own = OwnPenalty { value: 8.0, d: 256 };
        assert_eq!(t.own_penalties(), [("nystroem", own)]);
        // A last rung's own penalty is that cell's only.
        t.set_last_rung("nystroem", 2.0, 1024);
        assert_eq!(t.penalty_at("nystroem", 1024), 2.0);
        assert_eq!(t.penalty_at("nystroem", 512), 8.0);
        assert_eq!(t.penalty_at("rff", 1024), 0.5);
        let last = OwnPenalty {
            value: 2.0,
            d: 1024,
        };
        assert_eq!(t.last_rung_penalties(), [("nystroem", last)]);
    }

    fn sweep_of(setup: &Setup) -> Sweep {
        Sweep {
            per_map: setup
                .maps
                .iter()
                .map(|m| (m.name(), vec![64, 128]))
                .collect(),
            exact_train_size: Some(0),
            skipped: vec!["a map at D >= 256: over the budget".into()],
        }
    }

    /// The text reads back to the same spec, and the runner plans it.
    fn plans(written: &Written) -> crate::spec::Plan {
        let path = Path::new("out/spec.toml");
        let text = written.text();
        let raw = RawSpec::parse(&text, path).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(raw.to_toml(), written.spec.to_toml(), "{text}");
        let datasets = Registry::parse_embedded(&text, path).unwrap();
        raw.plan(&text, path, &Profile::Full, &datasets)
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn every_spec_plans_for_every_kernel_and_task() {
        let cases = [
            ("gaussian", Task::Binary, None),
            ("laplacian", Task::Binary, None),
            ("matern", Task::Regression, None),
            ("polynomial", Task::Multiclass, Some(regression_learner())),
        ];
        for (kernel, task, learner) in cases {
            let s = setup(kernel, task, learner);
            let t = tuned();
            let tune_plan = plans(&tune(&s, "tune", s.tuning_rows()).unwrap());
            // The tuning map's cell, and the exact machine's: one that cross-validates its
            // penalty, or one per value tried.
            let exact_cells = if s.exact_learner.tunes_penalty() {
                1
            } else {
                EXACT_PENALTIES.len()
            };
            assert_eq!(tune_plan.cells.len(), 1 + exact_cells, "{kernel}");
            let pilot = plans(&pilot(&s, t, 128).unwrap());
            // Every map at two D, the raw baseline and the exact machine on all the pilot's
            // training rows and on half of them.
            let half = crate::compare::budget::exact_half(crate::compare::budget::pilot_train(&s));
            assert!(half.is_some(), "{kernel}");
            assert_eq!(pilot.cells.len(), 2 * s.maps.len() + 3, "{kernel}");
            let sweep_plan = plans(&sweep(&s, t, &sweep_of(&s)).unwrap());
            assert_eq!(sweep_plan.cells.len(), 2 * s.maps.len() + 2, "{kernel}");
            // The exact machine with its own bandwidth, the maps with theirs.
            if let Some(param) = s.kernel.bandwidth_param() {
                let exact = rfbench_registry::exact_map().name;
                for cell in &sweep_plan.cells {
                    let own = if cell.map.name == exact { 2.5 } else { 1.25 };
                    let sigma = cell.kernel_params.get(param.name).and_then(|v| v.as_f64());
                    assert_eq!(sigma, Some(own), "{kernel}, {}", cell.map.name);
                }
            }
            // Left out by the budget: no exact cell, and no table for its learner either.
            let without = Sweep {
                exact_train_size: None,
                ..sweep_of(&s)
            };
            let sweep_plan = plans(&sweep(&s, t, &without).unwrap());
            assert_eq!(sweep_plan.cells.len(), 2 * s.maps.len() + 1, "{kernel}");
            // A confirmation round: one map's cell and the exact machine, 12 repetitions.
            let one = Sweep {
                per_map: vec![(s.maps[0].name(), vec![128])],
                exact_train_size: Some(0),
                skipped: Vec::new(),
            };
            let confirm_plan = plans(&confirm("confirm-1", &s, t, &one, false, 12).unwrap());
            assert_eq!(confirm_plan.cells.len(), 2, "{kernel}");
            assert!(
                confirm_plan.cells.iter().all(|c| c.repetitions == 12),
                "{kernel}"
            );
            let gram_plan = plans(&gram(&s, t, &sweep_of(&s)).unwrap());
            assert_eq!(gram_plan.cells.len(), 2 * s.maps.len(), "{kernel}");
            per_map_penalties_reach_their_cells(&s, kernel);
        }
    }

    /// The planned cells of `map` (all its series): series, D and the learner's `penalty`.
    fn series_cells(
        plan: &crate::spec::Plan,
        map: &str,
        penalty: &str,
    ) -> Vec<(&'static str, usize, f64)> {
        plan.cells
            .iter()
            .filter(|c| c.map.name == map)
            .map(|c| {
                let d = c
                    .map_params
                    .get(N_COMPONENTS.name)
                    .and_then(|v| v.as_usize());
                let value = c.learner_params.get(penalty).and_then(|v| v.as_f64());
                (series_of(c), d.unwrap(), value.unwrap())
            })
            .collect()
    }

    /// The series of a planned cell: its map, and its variant's parameters.
    fn series_of(cell: &crate::spec::Cell) -> &'static str {
        let text = |p: &str| cell.map_params.get(p).and_then(|v| v.as_str());
        Series::of(cell.map.name, text).map_or(cell.map.name, |s| s.name())
    }

    /// `tune-maps` plans one cell per series searched; in the sweep each series' cells take
    /// its own penalty, the others and the baseline the tuning map's, the exact machine its own.
    fn per_map_penalties_reach_their_cells(s: &Setup, kernel: &str) {
        let maps: Vec<&str> = s.maps.iter().skip(1).map(|m| m.name()).collect();
        let at: Vec<(&str, usize)> = maps.iter().map(|m| (*m, 128)).collect();
        let written = tune_maps(s, tuned(), "tune-maps", &at, s.tuning_rows()).unwrap();
        let plan = plans(&written);
        assert_eq!(plan.cells.len(), maps.len(), "{kernel}");
        let planned: Vec<&str> = plan.cells.iter().map(series_of).collect();
        assert_eq!(planned.len(), maps.len(), "{kernel}");
        assert!(
            maps.iter().all(|m| planned.contains(m)),
            "{kernel}: {planned:?}"
        );
        for own in s.maps.iter().skip(1).map(|m| m.name()) {
            let mut t = tuned();
            t.set_penalty(own, 8.0, 128);
            let sweep_plan = plans(&sweep(s, t, &sweep_of(s)).unwrap());
            for cell in &sweep_plan.cells {
                let name = series_of(cell);
                let param = match cell.learner.map(|l| l.name) {
                    Some(l) if l == s.exact_learner.name => s.exact_penalty,
                    _ => s.penalty,
                };
                let want = match name {
                    _ if name == rfbench_registry::exact_map().name => t.exact_penalty,
                    _ if name == own => 8.0,
                    _ => t.penalty,
                };
                let got = cell.learner_params.get(param).and_then(|v| v.as_f64());
                assert_eq!(got, Some(want), "{kernel}, {name}");
            }
        }
    }

    /// A map swept with its variants (RFF and its phase form) is one zipped axis of its table:
    /// each series its own D and penalty, the form in the cells, and the figures' series.
    #[test]
    fn a_variant_has_its_own_ladder_penalty_and_figure_series() {
        let s = setup("gaussian", Task::Binary, None);
        let variant = s.maps.iter().find(|m| m.variant.is_some()).unwrap();
        let plain = Series::plain(variant.map);
        let param = variant.variant.unwrap().param;
        let mut t = tuned();
        t.set_penalty(variant.name(), 8.0, 128);
        let sweep = Sweep {
            per_map: vec![
                (plain.name(), vec![64, 128, 256]),
                (variant.name(), vec![64]),
            ],
            exact_train_size: None,
            skipped: Vec::new(),
        };
        let w = super::sweep(&s, t, &sweep).unwrap();
        let plan = plans(&w);
        let cells = series_cells(&plan, plain.map.name, s.penalty);
        assert_eq!(
            cells,
            [
                (plain.name(), 64, 0.5),
                (plain.name(), 128, 0.5),
                (plain.name(), 256, 0.5),
                (variant.name(), 64, 8.0)
            ]
        );
        for figure in &w.spec.figures {
            let series: Vec<&str> = figure
                .series
                .iter()
                .flatten()
                .map(|c| c.get_ref().as_str())
                .collect();
            assert_eq!(series, ["map", param]);
        }
        // The variant alone: still its parameter in every cell.
        let alone = Sweep {
            per_map: vec![(variant.name(), vec![64, 128])],
            ..sweep.clone()
        };
        let plan = plans(&super::sweep(&s, t, &alone).unwrap());
        let variants = plan
            .cells
            .iter()
            .filter(|c| series_of(c) == variant.name())
            .count();
        assert_eq!(variants, 2);
        // The map alone: no parameter written, the figures' series the map only.
        let only = Sweep {
            per_map: vec![(plain.name(), vec![64])],
            ..sweep.clone()
        };
        let w = super::sweep(&s, t, &only).unwrap();
        let keys: Vec<&String> = w.spec.maps[plain.map.name].keys().collect();
        assert_eq!(keys, [&format!("{}, {}", N_COMPONENTS.name, s.penalty)]);
        assert_eq!(w.spec.figures[0].series.as_ref().map(Vec::len), Some(1));
        let gram = plans(&gram(&s, t, &sweep).unwrap());
        let grams: Vec<&str> = gram.cells.iter().map(series_of).collect();
        assert_eq!(
            grams,
            [plain.name(), plain.name(), plain.name(), variant.name()]
        );
    }

    /// A last rung's penalty reaches that cell only; `tune-last` searches each series at its
    /// own D (a map with variants: each at its own, in its table).
    #[test]
    fn a_last_rungs_penalty_is_its_cells_and_each_series_is_searched_at_its_d() {
        let s = setup("gaussian", Task::Binary, None);
        let variant = s.maps.iter().find(|m| m.variant.is_some()).unwrap();
        let plain = Series::plain(variant.map);
        let mut t = tuned();
        t.set_last_rung(variant.name(), 8.0, 256);
        let sweep = Sweep {
            per_map: vec![
                (plain.name(), vec![64, 256]),
                (variant.name(), vec![64, 256]),
            ],
            ..Sweep::default()
        };
        let plan = plans(&super::sweep(&s, t, &sweep).unwrap());
        let cells = series_cells(&plan, plain.map.name, s.penalty);
        let want = [
            (plain.name(), 64, 0.5),
            (plain.name(), 256, 0.5),
            (variant.name(), 64, 0.5),
            (variant.name(), 256, 8.0),
        ];
        assert_eq!(cells, want);
        let at = [(plain.name(), 1024), (variant.name(), 256)];
        let plan = plans(&tune_maps(&s, t, "tune-last", &at, s.tuning_rows()).unwrap());
        let searched: Vec<(&str, usize)> = plan
            .cells
            .iter()
            .map(|c| {
                let d = c
                    .map_params
                    .get(N_COMPONENTS.name)
                    .and_then(|v| v.as_usize());
                (series_of(c), d.unwrap())
            })
            .collect();
        assert_eq!(searched, at);
    }

    #[test]
    fn the_tuning_run_names_the_kernels_bandwidth_and_the_tuner() {
        // Matern's bandwidth is `length_scale`, not `sigma`.
        let matern = setup("matern", Task::Regression, None);
        let written = tune(&matern, "tune", matern.tuning_rows()).unwrap();
        let kernel = &written.spec.kernel;
        assert!(kernel.contains_key("length_scale") && !kernel.contains_key("sigma"));
        assert!(!kernel.contains_key("degree"));
        // The ridge classifier's lambda is no C: the exact SVM tries each of its C values,
        // each cell choosing its own bandwidth by cross-validation; its lambda is cross-validated.
        let ridge = setup("gaussian", Task::Binary, Some(regression_learner()));
        let written = tune(&ridge, "tune", ridge.tuning_rows()).unwrap();
        let learners = &written.spec.learners;
        assert_eq!(
            learners[ridge.learner.name][ridge.penalty].get_ref(),
            &Value::from("cv")
        );
        let tried = learners[ridge.exact_learner.name][ridge.exact_penalty].get_ref();
        assert_eq!(tried, &numbers(&EXACT_PENALTIES));
        let bandwidth = ridge.kernel.bandwidth_param().unwrap().name;
        assert!(written.spec.kernel[bandwidth].get_ref().is_table());
        // A validation split in every repetition, drawn from the training rows.
        assert_eq!(
            written.spec.seeds["data_seed"].get_ref(),
            &vec!["repetition".to_string()]
        );
        // The polynomial kernel: a degree, no bandwidth; the sketch tunes.
        let poly = setup("polynomial", Task::Binary, None);
        let written = tune(&poly, "tune", poly.tuning_rows()).unwrap();
        assert!(written.spec.kernel.contains_key("degree"));
        assert_eq!(tuning_map(&poly), poly.kernel.tuning_map.unwrap());
    }

    #[test]
    fn the_sweep_says_what_was_chosen_and_left_out_and_steps_read_back() {
        let s = setup("gaussian", Task::Binary, None);
        let w = sweep(&s, tuned(), &sweep_of(&s)).unwrap();
        let text = w.text();
        assert!(text.starts_with("# Written by `rfbench compare`"), "{text}");
        assert!(text.contains("# - a guess\n"), "{text}");
        assert!(text.contains("# - left out: a map at D >= 256"), "{text}");
        let preprocess = w.spec.data["preprocess"].get_ref().as_array().unwrap();
        let steps: Vec<Step> = preprocess
            .iter()
            .map(|v| Step::from_toml(v).unwrap())
            .collect();
        assert_eq!(steps, s.preprocess(None));
        assert_eq!(w.spec.figures.len(), 2);
    }

    #[test]
    fn a_seed_toml_cannot_hold_is_an_error_not_a_wrapped_number() {
        let mut s = setup("gaussian", Task::Binary, None);
        s.seed = u64::MAX;
        let err = tune(&s, "tune", s.tuning_rows()).unwrap_err().to_string();
        assert!(err.contains("largest integer"), "{err}");
    }
}
