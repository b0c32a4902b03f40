//! Experiment specs: TOML files in `experiments/`, parsed in two stages.
//!
//! 1. [`RawSpec`] mirrors the TOML one to one with serde, unknown keys denied, so a typo is an
//!    error naming the key and its line rather than a silently ignored setting.
//! 2. [`Plan`] is the validated form: the profile applied, every value range-checked (errors name
//!    the key and line, from the spans serde keeps), the grid ready to expand.
//!
//! Experiments are data, not code (benchopt's rule): a user adds a sweep by editing lists here.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::data::Step;
use crate::error::{Error, Result};

/// The TOML file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub name: String,
    pub title: String,
    /// Which source document and item the experiment reproduces, e.g. "000 Fig. 1".
    pub paper: String,
    /// What the experiment measures; only "kernel-error" exists so far.
    pub kind: Spanned<String>,
    pub data: RawData,
    pub run: RawRun,
    pub grid: RawGrid,
    #[serde(default)]
    pub profiles: RawProfiles,
    pub figure: RawFigure,
    pub check: RawCheck,
    #[serde(default)]
    pub paper_values: Vec<RawPaperValue>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawData {
    pub dataset: Spanned<String>,
    /// Ordered preprocessing steps (see [`crate::data::Step`] for the vocabulary); when the key
    /// is left out the registry entry's defaults apply, and `[]` means none.
    pub preprocess: Option<Vec<Spanned<toml::Value>>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRun {
    pub master_seed: u64,
    pub repetitions: Spanned<usize>,
    /// Random pairs per repetition on which the kernel estimate is compared with the exact kernel.
    pub pairs: Spanned<usize>,
    pub metric: Spanned<String>,
}

/// Parameter lists whose Cartesian product is the sweep.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGrid {
    pub map: Spanned<Vec<String>>,
    pub degree: Spanned<Vec<u32>>,
    pub offset: Spanned<Vec<f64>>,
    pub n_components: Spanned<Vec<usize>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProfiles {
    pub quick: Option<RawProfile>,
}

/// Overrides applied by `--quick`: a small version of the run, for CI.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProfile {
    pub repetitions: Option<Spanned<usize>>,
    pub pairs: Option<Spanned<usize>>,
    pub n_components: Option<Spanned<Vec<usize>>>,
    pub degree: Option<Spanned<Vec<u32>>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFigure {
    pub x: String,
    pub y: String,
    pub x_label: String,
    pub y_label: String,
    /// One panel per value of this column.
    pub panels: String,
}

/// How `rfbench check` compares a regenerated result with the committed reference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Metric columns compared, per grid cell, as means over repetitions.
    pub columns: Vec<String>,
    /// Allowed difference in standard errors of the difference of two means (each standard error
    /// from that run's own spread over repetitions).
    pub z: Spanned<f64>,
}

/// A number the paper reports, to print beside ours.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPaperValue {
    /// Which rows of our results it corresponds to: column = value.
    #[serde(default)]
    pub select: toml::Table,
    /// How our rows are summarised for the comparison: "max" or "mean" of the per-cell means.
    pub statistic: String,
    pub value: f64,
    pub note: String,
}

/// Which grid cells to run: the spec's own lists or its quick profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Full,
    Quick,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Full => "full",
            Profile::Quick => "quick",
        }
    }

    /// File stem of this profile's results: `NAME` or `NAME.quick`.
    pub fn stem(self, experiment: &str) -> String {
        match self {
            Profile::Full => experiment.to_string(),
            Profile::Quick => format!("{experiment}.quick"),
        }
    }
}

/// The feature maps an experiment can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MapKind {
    TensorSketch,
    RandomMaclaurin,
}

impl MapKind {
    pub const ALL: [MapKind; 2] = [MapKind::TensorSketch, MapKind::RandomMaclaurin];

    pub fn name(self) -> &'static str {
        match self {
            MapKind::TensorSketch => "tensor-sketch",
            MapKind::RandomMaclaurin => "random-maclaurin",
        }
    }

    /// The papers' abbreviation, for legends.
    pub fn short(self) -> &'static str {
        match self {
            MapKind::TensorSketch => "TS",
            MapKind::RandomMaclaurin => "RM",
        }
    }

    pub fn parse(name: &str) -> Option<MapKind> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the map's kernel has a bandwidth (set by the `bandwidth` preprocessing step).
    /// The polynomial sketches do not.
    pub fn takes_bandwidth(self) -> bool {
        match self {
            MapKind::TensorSketch | MapKind::RandomMaclaurin => false,
        }
    }
}

/// A preprocessing step of the spec and the line it is written on (for errors found only once
/// the dataset is known, such as a subsample larger than the data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannedStep {
    pub step: Step,
    pub line: usize,
}

/// The validated experiment, with a profile applied.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    pub title: String,
    pub paper: String,
    pub source: PathBuf,
    pub profile: Profile,
    pub dataset: String,
    /// `None`: the registry entry's default steps.
    pub preprocess: Option<Vec<PlannedStep>>,
    pub master_seed: u64,
    pub repetitions: usize,
    pub pairs: usize,
    pub maps: Vec<MapKind>,
    pub degrees: Vec<u32>,
    pub offsets: Vec<f64>,
    pub n_components: Vec<usize>,
    pub figure: RawFigure,
    pub check_columns: Vec<String>,
    pub check_z: f64,
    pub paper_values: Vec<RawPaperValue>,
}

/// Whether `step` means anything to an experiment over `maps`: a bandwidth is a parameter of
/// shift-invariant kernels, and a spec that sets one for maps that have none would otherwise
/// have it silently ignored.
pub fn check_step_for_maps(step: &Step, maps: &[MapKind]) -> std::result::Result<(), String> {
    if matches!(step, Step::Bandwidth { .. }) && !maps.iter().any(|m| m.takes_bandwidth()) {
        let names: Vec<_> = maps.iter().map(|m| m.name()).collect();
        return Err(format!(
            "step \"bandwidth\" sets a shift-invariant kernel's bandwidth, but the maps {names:?} \
             approximate polynomial kernels, which have none"
        ));
    }
    Ok(())
}

/// Line (1-based) of a byte offset in `text`.
fn line_of(text: &str, span: &Range<usize>) -> usize {
    text[..span.start.min(text.len())].matches('\n').count() + 1
}

struct Checker<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Checker<'_> {
    fn error<T>(
        &self,
        key: &str,
        span: &Range<usize>,
        message: impl std::fmt::Display,
    ) -> Result<T> {
        Err(Error::Spec {
            path: self.path.to_path_buf(),
            message: format!("key `{key}` (line {}): {message}", line_of(self.text, span)),
        })
    }

    fn positive_list<T: Copy + PartialOrd + Default + std::fmt::Display>(
        &self,
        key: &str,
        list: &Spanned<Vec<T>>,
    ) -> Result<Vec<T>> {
        if list.get_ref().is_empty() {
            return self.error(key, &list.span(), "the list is empty");
        }
        if let Some(v) = list.get_ref().iter().find(|v| **v <= T::default()) {
            return self.error(
                key,
                &list.span(),
                format!("every value must be positive, found {v}"),
            );
        }
        Ok(list.get_ref().clone())
    }

    fn positive(&self, key: &str, value: &Spanned<usize>) -> Result<usize> {
        if *value.get_ref() == 0 {
            return self.error(key, &value.span(), "must be at least 1, got 0");
        }
        Ok(*value.get_ref())
    }
}

impl RawSpec {
    /// Parses TOML text; `path` is only used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<RawSpec> {
        toml::from_str(text).map_err(|e| Error::Spec {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Validates the spec and applies `profile`.
    pub fn plan(&self, text: &str, path: &Path, profile: Profile) -> Result<Plan> {
        let c = Checker { text, path };
        if self.kind.get_ref() != "kernel-error" {
            return c.error(
                "kind",
                &self.kind.span(),
                format!(
                    "unknown kind {:?}; known: \"kernel-error\"",
                    self.kind.get_ref()
                ),
            );
        }
        if self.run.metric.get_ref() != "mean-relative-error" {
            return c.error(
                "run.metric",
                &self.run.metric.span(),
                format!(
                    "unknown metric {:?}; known: \"mean-relative-error\"",
                    self.run.metric.get_ref()
                ),
            );
        }
        let mut maps = Vec::new();
        for name in self.grid.map.get_ref() {
            match MapKind::parse(name) {
                Some(m) => maps.push(m),
                None => {
                    let known: Vec<_> = MapKind::ALL.iter().map(|m| m.name()).collect();
                    return c.error(
                        "grid.map",
                        &self.grid.map.span(),
                        format!("unknown map {name:?}; known: {known:?}"),
                    );
                }
            }
        }
        if maps.is_empty() {
            return c.error("grid.map", &self.grid.map.span(), "the list is empty");
        }
        let preprocess = match &self.data.preprocess {
            None => None,
            Some(list) => {
                let mut steps = Vec::with_capacity(list.len());
                for value in list {
                    let step = match Step::from_toml(value.get_ref()) {
                        Ok(step) => step,
                        Err(problem) => return c.error("data.preprocess", &value.span(), problem),
                    };
                    if let Err(problem) = check_step_for_maps(&step, &maps) {
                        return c.error("data.preprocess", &value.span(), problem);
                    }
                    steps.push(PlannedStep {
                        step,
                        line: line_of(text, &value.span()),
                    });
                }
                Some(steps)
            }
        };
        let quick = match (profile, &self.profiles.quick) {
            (Profile::Quick, None) => {
                return Err(Error::Spec {
                    path: path.to_path_buf(),
                    message: "`--quick` needs a [profiles.quick] table".into(),
                })
            }
            (Profile::Quick, Some(q)) => Some(q),
            (Profile::Full, _) => None,
        };
        let pick_list = |full: &Spanned<Vec<usize>>, over: Option<&Spanned<Vec<usize>>>| {
            over.cloned().unwrap_or_else(|| full.clone())
        };
        let repetitions = quick
            .and_then(|q| q.repetitions.clone())
            .unwrap_or_else(|| self.run.repetitions.clone());
        let pairs = quick
            .and_then(|q| q.pairs.clone())
            .unwrap_or_else(|| self.run.pairs.clone());
        let degrees = quick
            .and_then(|q| q.degree.clone())
            .unwrap_or_else(|| self.grid.degree.clone());
        let n_components = pick_list(
            &self.grid.n_components,
            quick.and_then(|q| q.n_components.as_ref()),
        );
        let repetitions = c.positive("repetitions", &repetitions)?;
        if repetitions < 2 {
            return c.error(
                "repetitions",
                &self.run.repetitions.span(),
                "at least 2 are needed for error bars and checks",
            );
        }
        let offsets = self.grid.offset.get_ref().clone();
        if offsets.is_empty() {
            return c.error("grid.offset", &self.grid.offset.span(), "the list is empty");
        }
        if let Some(o) = offsets.iter().find(|o| !(o.is_finite() && **o >= 0.0)) {
            return c.error(
                "grid.offset",
                &self.grid.offset.span(),
                format!("offsets must be finite and >= 0, found {o}"),
            );
        }
        let z = *self.check.z.get_ref();
        if !(z.is_finite() && z > 0.0) {
            return c.error(
                "check.z",
                &self.check.z.span(),
                format!("must be positive, got {z}"),
            );
        }
        if self.figure.x != "n_components" || self.figure.panels != "degree" {
            return Err(Error::Spec {
                path: path.to_path_buf(),
                message: format!(
                    "figure: x = {:?}, panels = {:?}: kernel-error figures plot x = \"n_components\" in panels by \"degree\"",
                    self.figure.x, self.figure.panels
                ),
            });
        }
        if !crate::experiment::METRIC_COLUMNS.contains(&self.figure.y.as_str()) {
            return Err(Error::Spec {
                path: path.to_path_buf(),
                message: format!(
                    "figure.y: unknown column {:?}; known: {:?}",
                    self.figure.y,
                    crate::experiment::METRIC_COLUMNS
                ),
            });
        }
        for column in &self.check.columns {
            if !crate::experiment::METRIC_COLUMNS.contains(&column.as_str()) {
                return Err(Error::Spec {
                    path: path.to_path_buf(),
                    message: format!(
                        "check.columns: unknown column {column:?}; known: {:?}",
                        crate::experiment::METRIC_COLUMNS
                    ),
                });
            }
        }
        Ok(Plan {
            name: self.name.clone(),
            title: self.title.clone(),
            paper: self.paper.clone(),
            source: path.to_path_buf(),
            profile,
            dataset: self.data.dataset.get_ref().clone(),
            preprocess,
            master_seed: self.run.master_seed,
            repetitions,
            pairs: c.positive("pairs", &pairs)?,
            maps,
            degrees: c.positive_list("degree", &degrees)?,
            offsets,
            n_components: c.positive_list("n_components", &n_components)?,
            figure: self.figure.clone(),
            check_columns: self.check.columns.clone(),
            check_z: z,
            paper_values: self.paper_values.clone(),
        })
    }
}

/// Reads, parses and validates `experiments/NAME.toml` under `root`.
pub fn load_plan(root: &Path, name: &str, profile: Profile) -> Result<Plan> {
    let path = root.join("experiments").join(format!("{name}.toml"));
    if !path.is_file() {
        let known = list_experiments(root)?;
        return Err(Error::UnknownExperiment {
            name: name.to_string(),
            known,
        });
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let raw = RawSpec::parse(&text, &path)?;
    if raw.name != name {
        return Err(Error::Spec {
            path,
            message: format!(
                "`name = {:?}` does not match the file name {name:?}",
                raw.name
            ),
        });
    }
    raw.plan(&text, &path, profile)
}

/// Names of the specs in `root/experiments`, sorted.
pub fn list_experiments(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("experiments");
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".toml"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "demo"
title = "Demo"
paper = "000 Fig. 1"
kind = "kernel-error"

[data]
dataset = "adult"
preprocess = ["unit-norm"]

[run]
master_seed = 7
repetitions = 3
pairs = 100
metric = "mean-relative-error"

[grid]
map = ["tensor-sketch", "random-maclaurin"]
degree = [2, 3]
offset = [0.0, 1.0]
n_components = [10, 20]

[profiles.quick]
repetitions = 2
n_components = [10]

[figure]
x = "n_components"
y = "relative_error"
x_label = "D"
y_label = "error"
panels = "degree"

[check]
columns = ["relative_error"]
z = 4.0
"#;

    fn plan(text: &str, profile: Profile) -> Result<Plan> {
        RawSpec::parse(text, Path::new("demo.toml"))?.plan(text, Path::new("demo.toml"), profile)
    }

    #[test]
    fn good_spec_and_quick_profile() {
        let full = plan(GOOD, Profile::Full).unwrap();
        assert_eq!(
            (full.repetitions, full.n_components.clone(), full.pairs),
            (3, vec![10, 20], 100)
        );
        assert_eq!(
            full.maps,
            vec![MapKind::TensorSketch, MapKind::RandomMaclaurin]
        );
        let quick = plan(GOOD, Profile::Quick).unwrap();
        assert_eq!(
            (quick.repetitions, quick.n_components, quick.pairs),
            (2, vec![10], 100)
        );
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let text = GOOD.replace("pairs = 100", "pairs = 100\nparis = 3");
        let message = plan(&text, Profile::Full).unwrap_err().to_string();
        assert!(
            message.contains("paris") && message.contains("line 15"),
            "{message}"
        );
    }

    #[test]
    fn invalid_values_name_key_and_line() {
        let cases = [
            (
                "n_components = [10, 20]",
                "n_components = [10, 0]",
                "n_components",
                21,
            ),
            ("degree = [2, 3]", "degree = [0]", "degree", 19),
            ("offset = [0.0, 1.0]", "offset = [-1.0]", "grid.offset", 20),
            (
                "map = [\"tensor-sketch\", \"random-maclaurin\"]",
                "map = [\"fastfood9\"]",
                "grid.map",
                18,
            ),
            ("pairs = 100", "pairs = 0", "pairs", 14),
            ("kind = \"kernel-error\"", "kind = \"accuracy\"", "kind", 5),
            ("z = 4.0", "z = -1.0", "check.z", 36),
        ];
        for (from, to, key, line) in cases {
            let message = plan(&GOOD.replace(from, to), Profile::Full)
                .unwrap_err()
                .to_string();
            assert!(
                message.contains(&format!("`{key}`")) && message.contains(&format!("line {line}")),
                "{to}: {message}"
            );
        }
    }

    #[test]
    fn preprocess_steps_are_read_in_order_with_their_lines() {
        let text = GOOD.replace(
            "preprocess = [\"unit-norm\"]",
            "preprocess = [\n  { step = \"subsample\", n = 500, seed = 3 },\n  \"standardise\",\n  \"min-max\",\n  \"unit-norm\",\n]",
        );
        let steps = plan(&text, Profile::Full).unwrap().preprocess.unwrap();
        assert_eq!(
            steps,
            [
                PlannedStep {
                    step: Step::Subsample { n: 500, seed: 3 },
                    line: 10
                },
                PlannedStep {
                    step: Step::Standardize,
                    line: 11
                },
                PlannedStep {
                    step: Step::MinMax,
                    line: 12
                },
                PlannedStep {
                    step: Step::UnitNorm,
                    line: 13
                },
            ]
        );
        let none = plan(
            &GOOD.replace("preprocess = [\"unit-norm\"]\n", ""),
            Profile::Full,
        );
        assert_eq!(
            none.unwrap().preprocess,
            None,
            "the registry's defaults apply"
        );
        let empty = plan(
            &GOOD.replace("preprocess = [\"unit-norm\"]", "preprocess = []"),
            Profile::Full,
        );
        assert_eq!(empty.unwrap().preprocess, Some(vec![]));
    }

    #[test]
    fn bad_preprocess_steps_name_key_and_line() {
        for (steps, problem) in [
            ("[\"unit-norm\", \"whiten\"]", "unknown step \"whiten\""),
            (
                "[{ step = \"bandwidth\", percentile = 0.0, seed = 1 }]",
                "percentile must be in (0, 100], got 0",
            ),
            (
                "[{ step = \"bandwidth\", percentile = 120, seed = 1 }]",
                "got 120",
            ),
            (
                "[{ step = \"subsample\", n = 0, seed = 1 }]",
                "n must be at least 1, got 0",
            ),
            ("[{ step = \"subsample\", n = 10 }]", "needs `seed`"),
            ("[\"subsample\"]", "needs a size and a seed"),
            ("[{ step = \"min-max\", n = 10 }]", "unknown key `n`"),
            (
                "[{ step = \"bandwidth\", seed = 1 }]",
                "approximate polynomial kernels",
            ),
            ("[7]", "got the integer 7"),
        ] {
            let text = GOOD.replace(
                "preprocess = [\"unit-norm\"]",
                &format!("preprocess = {steps}"),
            );
            let message = plan(&text, Profile::Full).unwrap_err().to_string();
            assert!(
                message.contains("`data.preprocess` (line 9)") && message.contains(problem),
                "{steps}: {message}"
            );
        }
        let message = plan(
            &GOOD.replace("preprocess = [\"unit-norm\"]", "preprocess = \"unit-norm\""),
            Profile::Full,
        )
        .unwrap_err()
        .to_string();
        assert!(message.contains("line 9"), "{message}");
    }

    #[test]
    fn malformed_toml_and_wrong_types_are_errors() {
        let message = plan(
            &GOOD.replace("pairs = 100", "pairs = \"many\""),
            Profile::Full,
        )
        .unwrap_err()
        .to_string();
        assert!(message.contains("line 14"), "{message}");
        let message = plan(&GOOD.replace("[check]", "[check"), Profile::Full)
            .unwrap_err()
            .to_string();
        assert!(message.contains("line 34"), "{message}");
        let message = plan(
            &GOOD.replace(
                "[profiles.quick]\nrepetitions = 2\nn_components = [10]\n",
                "",
            ),
            Profile::Quick,
        )
        .unwrap_err()
        .to_string();
        assert!(message.contains("profiles.quick"), "{message}");
    }
}
