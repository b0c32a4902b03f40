//! Experiment specs: TOML files (in `experiments/`, or anywhere with a path), planned in stages,
//! each a small module with its own tests:
//!
//! 1. [`raw`]: the TOML mirrored with serde, unknown keys denied, values kept with their spans.
//! 2. [`profile`]: a named profile's replacements (`[profiles.quick]`, `--profile NAME`).
//! 3. [`groups`]: every section's values as groups of the grid, component names checked.
//! 4. [`cells`] and [`typing`]: the grid expanded ([`grid`]) and each cell typed against the
//!    registry, its components checked against each other; then `configs`: every distinct map
//!    configuration built and put through the library's own `check()`, before any data.
//! 5. [`columns`]: the results' columns, the seeds' scopes, the metrics.
//! 6. [`settings`]: labels and the check, and the outputs validated by name; [`overlap`]:
//!    whether the runs may overlap.
//!
//! Every stage reports a [`SpecError`] naming the key and its line. Experiments are data, not
//! code (benchopt's rule): a user writes a sweep by editing lists. The full reference, generated
//! from the registry, is `docs/spec.md`.

pub mod cells;
pub mod columns;
mod configs;
pub mod grid;
pub mod groups;
mod overlap;
pub mod profile;
pub mod raw;
pub mod settings;
mod typing;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::SpecFiles;
use crate::outputs::{self, Columns, Outputs};
use crate::results::Layout;
use rfbench_data::Registry;
use rfbench_registry::{KindInfo, TunedColumns};

pub use crate::spec_error::{line_of, SpecError};
pub use cells::{Cell, DatasetSource};
pub use columns::PlannedSeed;
pub use groups::PlannedStep;
pub use profile::Profile;
pub use raw::{RawCheck, RawSpec};

use crate::spec_error::Checker;

/// The validated experiment, with a profile applied.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    pub title: String,
    pub paper: String,
    pub source: PathBuf,
    pub profile: Profile,
    pub kind: &'static KindInfo,
    /// `None`: the registry entry's default steps.
    pub preprocess: Option<Vec<PlannedStep>>,
    pub master_seed: u64,
    pub repetitions: usize,
    /// Whether runs overlap ([`overlap`]): several at a time, their clock metrics taken while
    /// others share the cores.
    pub overlap_runs: bool,
    pub cells: Vec<Cell>,
    /// Coordinate columns of the results, in order.
    pub columns: Vec<String>,
    /// The names written as lists (they enter seed keys).
    pub axes: BTreeSet<String>,
    pub seeds: Vec<PlannedSeed>,
    /// Metric columns of the results, in order.
    pub metrics: Vec<String>,
    /// The columns of the values cells choose (a bandwidth by a rule or a search, a learner's
    /// parameter by cross-validation), a subset of `metrics`.
    pub tuned: Vec<TunedColumns>,
    /// The figures, tables, claims and paper values this profile draws.
    pub outputs: Outputs,
    pub check_columns: Vec<String>,
    /// The metrics the other-seed mode tests (a subset of `check_columns`).
    pub check_statistical: Vec<String>,
    pub check_rtol: f64,
    pub check_false_alarm: f64,
    /// The spec's `[labels]`: ((column, value), label).
    pub labels: Vec<((String, String), String)>,
    /// The spec's `[sums]`: (metric, the metrics it adds up).
    pub sums: Vec<(String, Vec<String>)>,
    /// Where each parameter's value is written: name -> (its key in the spec, its line), the
    /// first place it is set; for errors found after planning (the memory estimate).
    pub written_at: BTreeMap<String, (String, usize)>,
    /// The datasets the cells may name: the spec's own `[[dataset]]` tables, then the root's
    /// `datasets.toml`.
    pub datasets: Registry,
}

impl Plan {
    /// Where this plan's spec and profile keep their files under `out_dir`.
    pub fn files(&self, out_dir: &Path) -> SpecFiles {
        SpecFiles::new(out_dir, &self.name, self.profile.name())
    }

    /// The key a seed of `cell` at `repetition` is derived from: the seed's prefix, then
    /// `label=value` for every axis in its scope (the label is the name but for `n_components`,
    /// `D`: [`rfbench_registry::seed_label`]), then `rep=R`. Pinned by tests: changing it changes every
    /// committed result.
    pub fn seed_key(&self, seed: &PlannedSeed, cell: &Cell, repetition: usize) -> String {
        let mut parts: Vec<String> = seed.spec.prefix.iter().map(|p| p.to_string()).collect();
        for axis in &seed.axes {
            if let Some(value) = cell.get(axis) {
                parts.push(format!("{}={value}", rfbench_registry::seed_label(axis)));
            }
        }
        if seed.with_repetition {
            parts.push(format!("rep={repetition}"));
        }
        parts.join("|")
    }

    /// The row coordinates of `cell`: a value for every column of the plan (empty where the
    /// cell has none).
    pub fn coordinates(&self, cell: &Cell) -> crate::results::Coordinates {
        self.columns
            .iter()
            .map(|c| {
                (
                    c.clone(),
                    cell.get(c).map_or(
                        crate::results::CellValue::Empty,
                        crate::results::CellValue::from,
                    ),
                )
            })
            .collect()
    }

    pub fn seed(&self, column: &str, cell: &Cell, repetition: usize) -> Option<u64> {
        self.seeds
            .iter()
            .find(|s| s.spec.column == column)
            .map(|s| {
                crate::seeds::derive_seed(self.master_seed, &self.seed_key(s, cell, repetition))
            })
    }

    /// The results file's layout: its columns, and the values the same on every row.
    pub fn layout(&self) -> Layout {
        Layout {
            experiment: self.name.clone(),
            profile: self.profile.name().to_string(),
            coordinates: self.columns.clone(),
            seeds: self
                .seeds
                .iter()
                .map(|s| s.spec.column.to_string())
                .collect(),
            metrics: self.metrics.clone(),
            master_seed: self.master_seed,
            runs_overlapped: self.overlap_runs,
        }
    }

    /// The columns of the results CSV (without the `[sums]`, which are computed when it is read).
    pub fn output_columns(&self) -> Columns {
        Columns {
            coordinates: self.columns.clone(),
            metrics: self.metrics.clone(),
            seeds: self
                .seeds
                .iter()
                .map(|s| s.spec.column.to_string())
                .collect(),
        }
    }
}

impl RawSpec {
    /// Validates the spec against the registry and `datasets` and applies `profile`: the
    /// stages in order.
    pub fn plan(
        &self,
        text: &str,
        path: &Path,
        profile: &Profile,
        datasets: &Registry,
    ) -> Result<Plan> {
        let c = Checker { text, path };
        let Some(kind) = rfbench_registry::kind(self.kind.get_ref()) else {
            return Err(c
                .at_span(
                    "kind",
                    &self.kind.span(),
                    format!(
                        "unknown kind {:?}; known: {:?}",
                        self.kind.get_ref(),
                        rfbench_registry::kind_names()
                    ),
                )
                .into());
        };
        let overlay = profile::Overlay::new(self, c, profile)?;
        let run = groups::run_settings(self, c, &overlay)?;
        let grouped = groups::collect(self, c, &overlay, kind, datasets)?;

        let raw_cells = cells::expand(c, kind, &grouped.groups, overlay.is_profile())?;
        let (mut columns, data_params) = columns::coordinate_columns(kind, &raw_cells);
        let typing = typing::CellTyping {
            c,
            kind,
            groups: &grouped.groups,
            columns: &columns,
            datasets,
        };
        let cells = typing::typed_cells(
            &typing,
            &raw_cells,
            run.repetitions,
            &grouped.component_repetitions,
            overlay.is_profile(),
        )?;
        configs::check(c, &grouped.groups, &cells)?;
        // Columns no cell fills (a parameter of no component used) are dropped.
        columns.retain(|col| cells.iter().any(|cell| cell.get(col).is_some()));

        let axes = columns::axes(&grouped.groups);
        let scopes = overlay.seed_scopes(self, c)?;
        let seeds = columns::seeds(c, kind, &scopes, &columns, &data_params, &axes)?;
        let (metrics, tuned) = columns::metrics(c, kind, &cells, &columns)?;
        let sums = columns::sums(c, &self.sums, &columns, &metrics)?;
        self.validate_outputs(text, path, &columns, &metrics, &sums)?;
        let overlap_runs =
            overlap::resolve(self, c, kind, run.overlap_runs, &columns, &metrics, &sums)?;
        let labels = settings::labels(self, c, profile, &columns, &cells)?;
        let check = settings::check(self, c, &metrics)?;
        let written_at = grouped
            .groups
            .iter()
            .rev()
            .flat_map(|g| {
                g.names
                    .iter()
                    .map(move |n| (n.clone(), (g.key.clone(), g.line)))
            })
            .collect();

        let plan = Plan {
            datasets: datasets.clone(),
            name: self.name.clone(),
            title: self.title.clone(),
            paper: self.paper.clone(),
            source: path.to_path_buf(),
            profile: profile.clone(),
            kind,
            preprocess: grouped.preprocess,
            master_seed: run.master_seed,
            repetitions: run.repetitions,
            overlap_runs,
            cells,
            columns,
            axes,
            seeds,
            metrics,
            tuned,
            outputs: Outputs {
                figures: profile::drawn_in(self, c, "figures", &self.figures, profile)?,
                tables: profile::drawn_in(self, c, "tables", &self.tables, profile)?,
                claims: profile::drawn_in(self, c, "claims", &self.claims, profile)?,
                paper_values: profile::drawn_in(
                    self,
                    c,
                    "paper_values",
                    &self.paper_values,
                    profile,
                )?,
            },
            check_columns: check.columns,
            check_statistical: check.statistical,
            check_rtol: check.rtol,
            check_false_alarm: check.false_alarm,
            labels,
            sums,
            written_at,
        };
        self.outputs_find_cells(&plan, c)?;
        Ok(plan)
    }

    /// Every output drawn in the plan's profile finds its cells in the plan's grid (a `where`
    /// or a claim's side that matches nothing, a table with two cells in one place): a typo or a
    /// value of another profile fails here, naming the key, before anything runs, not after
    /// every cell has.
    fn outputs_find_cells(&self, plan: &Plan, c: Checker<'_>) -> Result<()> {
        let cells: Vec<crate::results::Coordinates> = plan
            .cells
            .iter()
            .map(|cell| plan.coordinates(cell))
            .collect();
        let spec = self.outputs();
        for (planned_key, output) in plan.outputs.list() {
            let Some(problem) = output.cell_problem(&cells, plan.profile.name()) else {
                continue;
            };
            let key = spec.key_of(output).unwrap_or(planned_key);
            return Err(c
                .at_span(
                    &format!("{key}.{}", problem.field),
                    &problem.span,
                    problem.message,
                )
                .into());
        }
        Ok(())
    }

    /// The spec's outputs, every profile's.
    fn outputs(&self) -> Outputs {
        Outputs {
            figures: self.figures.clone(),
            tables: self.tables.clone(),
            claims: self.claims.clone(),
            paper_values: self.paper_values.clone(),
        }
    }

    /// Figures, tables, claims and paper values name only columns the run writes (or sums).
    fn validate_outputs(
        &self,
        text: &str,
        path: &Path,
        columns: &[String],
        metrics: &[String],
        sums: &[(String, Vec<String>)],
    ) -> Result<()> {
        let columns = Columns {
            seeds: Vec::new(),
            coordinates: columns.to_vec(),
            metrics: metrics
                .iter()
                .cloned()
                .chain(sums.iter().map(|(name, _)| name.clone()))
                .collect(),
        };
        outputs::validate(&self.outputs(), &columns, text, path)
    }
}

/// The names of the specs in `root/experiments`, sorted.
pub fn list_experiments(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("experiments");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
        let path = entry.map_err(|e| Error::io(&dir, e))?.path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Where a spec is: `NAME` in `root/experiments`, or a path to a `.toml` file anywhere.
pub fn spec_path(root: &Path, name_or_path: &str) -> Result<PathBuf> {
    let looks_like_path = name_or_path.ends_with(".toml") || name_or_path.contains('/');
    if looks_like_path {
        let path = PathBuf::from(name_or_path);
        if !path.is_file() {
            return Err(Error::io(
                &path,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such spec file"),
            ));
        }
        return Ok(path);
    }
    let path = root
        .join("experiments")
        .join(format!("{name_or_path}.toml"));
    if !path.is_file() {
        return Err(Error::UnknownExperiment {
            name: name_or_path.to_string(),
            known: list_experiments(root).unwrap_or_default(),
        });
    }
    Ok(path)
}

/// The profiles of a spec: the full run, then each `[profiles.NAME]` in name order.
pub fn profiles(root: &Path, name_or_path: &str) -> Result<Vec<Profile>> {
    let path = spec_path(root, name_or_path)?;
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let raw = RawSpec::parse(&text, &path)?;
    let named = raw.profiles.keys().map(|name| Profile::Named(name.clone()));
    Ok(std::iter::once(Profile::Full).chain(named).collect())
}

/// The experiment's name: `NAME` itself, or a spec file's stem.
pub fn spec_name(root: &Path, name_or_path: &str) -> Result<String> {
    let path = spec_path(root, name_or_path)?;
    Ok(path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string())
}

/// The datasets a spec may name: its own `[[dataset]]` tables first, then the root's
/// `datasets.toml` (none when the root has none: a spec carrying its own data runs anywhere).
pub fn datasets_of(root: &Path, text: &str, path: &Path) -> Result<Registry> {
    let own = Registry::parse_embedded(text, path)?;
    let shared = root.join("datasets.toml");
    if !shared.exists() && !own.entries().is_empty() {
        return Ok(own);
    }
    Ok(Registry::from_file(&shared)?.shadowed_by(own))
}

/// Reads and validates a spec, `NAME` (in `root/experiments`) or a path to a file; datasets
/// come from `root/datasets.toml`. The spec's `name` must equal its file's stem.
pub fn load_plan(root: &Path, name_or_path: &str, profile: &Profile) -> Result<Plan> {
    let path = spec_path(root, name_or_path)?;
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let raw = RawSpec::parse(&text, &path)?;
    let datasets = datasets_of(root, &text, &path)?;
    let plan = raw.plan(&text, &path, profile, &datasets)?;
    // Every other profile is validated too: a typo in `[profiles.quick]` fails the full run
    // that has it, not the CI run that uses it a week later.
    let others = raw
        .profiles
        .keys()
        .map(|name| Profile::Named(name.clone()))
        .chain([Profile::Full])
        .filter(|other| other != profile);
    for other in others {
        raw.plan(&text, &path, &other, &datasets).map_err(|e| {
            Error::Experiment(format!(
                "{e} (in profile {:?}, which this run does not use, but which must stay valid)",
                other.name()
            ))
        })?;
    }
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    if plan.name != stem {
        return Err(SpecError::whole(
            &path,
            format!(
                "`name = {:?}` differs from the file name {stem:?}",
                plan.name
            ),
        )
        .into());
    }
    Ok(plan)
}
