//! `rfbench merge`: the N shards of a run ([`crate::shard`]) joined into the results file one
//! process would have written, then its figures, tables and report, as `reproduce` draws them.
//!
//! Refused, naming the shards and runs, unless every shard of the run is there with the same
//! spec, datasets, master seed and code as the others (and the spec and datasets as they are
//! now, since the figures are drawn under the current spec), and every run of the plan is in
//! exactly one shard with the seeds the plan gives it. The rows are taken as the shards wrote
//! them, each with its own provenance columns (the machine, threads and date it ran with), in
//! the plan's order: the file equals a one-process run's but for those columns and the timings.
//! The shards' files are removed in the same commit that writes the results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::SpecFiles;
use crate::outputs::Rendered;
use crate::results::{self, CellOutcome, ResultRow};
use crate::run::{self, RunOptions};
use crate::run_id::RunId;
use crate::shard::{self, Manifest, Shard};
use crate::spec::{load_plan, Plan, Profile};
use crate::staging::{self, Staged};

/// What a merge wrote.
#[derive(Debug, Clone)]
pub struct Merged {
    pub plan: Plan,
    pub csv: PathBuf,
    pub rendered: Rendered,
    pub shards: usize,
    pub skipped: usize,
    /// The runs recorded as failed, described.
    pub failed: Vec<String>,
}

/// A run found in a shard: the shard, its fields as written, and the row they read as.
type Found = (usize, Vec<String>, ResultRow);

/// Merges the shards of `spec` under `profile` found in `options.out_dir`'s `results/`: all of
/// `shards` of them, or of the one shard count present when `None`.
pub fn merge(
    spec: &str,
    profile: &Profile,
    options: &RunOptions,
    shards: Option<usize>,
) -> Result<Merged> {
    let mut plan = load_plan(&options.root, spec, profile)?;
    for note in staging::prepare(&options.out_dir)? {
        eprintln!("{note}");
    }
    let files = plan.files(&options.out_dir);
    let count = shard_count(&files, shards)?;
    let shards: Vec<Shard> = (1..=count)
        .map(|i| Shard::new(i, count).map_err(Error::Experiment))
        .collect::<Result<_>>()?;
    let manifests = read_manifests(&plan, &options.root, &files, &shards)?;
    plan.master_seed = manifests[0].master_seed;

    let layout = plan.layout();
    let mut found: BTreeMap<RunId, Vec<Found>> = BTreeMap::new();
    for shard in &shards {
        let path = files.shard_csv((shard.index, shard.count));
        let (header, records) = results::read_records(&path)?;
        let rows = layout
            .parse_rows(&header, &records)
            .map_err(|message| Error::Results {
                path: path.clone(),
                message,
            })?;
        for (record, row) in records.into_iter().zip(rows) {
            let key = RunId::new(&row.coordinates, row.repetition);
            found
                .entry(key)
                .or_default()
                .push((shard.index, record, row));
        }
    }
    let (records, rows) = in_plan_order(&plan, &files, &shards, found)?;

    let csv = files.csv();
    if !options.allow_skipped {
        refuse_holes(&plan, &files, &shards, &rows)?;
        run::keep_what_ran(&csv, &plan, &rows)?;
    }
    let text = results::write_records(&layout.header(), records)?;
    let mut out = Staged::new(&options.out_dir);
    out.write(&csv, text.as_bytes())?;
    let written = out.staged_path(&csv).map(Path::to_path_buf);
    let rendered = run::render_csv(
        &plan,
        written.as_deref().unwrap_or(&csv),
        &options.out_dir,
        &mut out,
    )?;
    for shard in &shards {
        out.remove(&files.shard_csv((shard.index, shard.count)))?;
        out.remove(&files.shard_manifest((shard.index, shard.count)))?;
    }
    out.commit()?;
    Ok(Merged {
        failed: run::failed_cells(&plan, &rows),
        skipped: rows
            .iter()
            .filter(|r| matches!(r.outcome, CellOutcome::Skipped(_)))
            .count(),
        plan,
        csv,
        rendered,
        shards: count,
    })
}

/// Refuses runs skipped for missing data (a node without the data): the merge would write a
/// result with holes and delete the shards that could be repaired. Names each shard and why.
fn refuse_holes(
    plan: &Plan,
    files: &SpecFiles,
    shards: &[Shard],
    rows: &[ResultRow],
) -> Result<()> {
    let mut holes: BTreeMap<String, (usize, Vec<String>)> = BTreeMap::new();
    for row in rows {
        if let CellOutcome::Skipped(reason) = &row.outcome {
            let key = RunId::new(&row.coordinates, row.repetition);
            let owner = shards.iter().find(|s| s.owns(&key));
            let entry = holes
                .entry(owner.map_or_else(String::new, |s| s.to_string()))
                .or_default();
            entry.0 += 1;
            if !entry.1.contains(reason) {
                entry.1.push(reason.clone());
            }
        }
    }
    if holes.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = holes
        .iter()
        .map(|(shard, (n, reasons))| {
            format!("shard {shard}: {n} run(s) skipped ({})", reasons.join("; "))
        })
        .collect();
    Err(Error::Experiment(format!(
        "the shards of {} skipped runs for missing data; nothing is written and the shards are \
         kept:\n  {}\nmake the data reachable and run those shards again (`rfbench reproduce {} \
         --shard I/N --resume`, or `rfbench slurm ... --resubmit-failed`), or merge with the \
         holes: `rfbench merge ... --allow-skipped`",
        files.label(),
        lines.join("\n  "),
        rerun_arguments(plan, files)
    )))
}

/// `SPEC --profile P --out-dir OUT` (the profile and folder only when not the defaults): what a
/// command printed in a hint needs to name this run.
fn rerun_arguments(plan: &Plan, files: &SpecFiles) -> String {
    let by_name = plan
        .source
        .ends_with(Path::new("experiments").join(format!("{}.toml", plan.name)));
    let mut text = match by_name {
        true => plan.name.clone(),
        false => crate::slurm::quote(&plan.source.display().to_string()),
    };
    if plan.profile != Profile::Full {
        text.push_str(&format!(" --profile {}", plan.profile.name()));
    }
    let out = files.out_dir().display().to_string();
    if out != "." {
        text.push_str(&format!(" --out-dir {}", crate::slurm::quote(&out)));
    }
    text
}

/// The number of shards to merge: `asked`, or the one count present.
fn shard_count(files: &SpecFiles, asked: Option<usize>) -> Result<usize> {
    if let Some(count) = asked {
        Shard::new(1, count).map_err(|e| Error::Experiment(format!("--shards {count}: {e}")))?;
        return Ok(count);
    }
    let dir = files.results_dir();
    let label = files.label();
    let present = files
        .shard_counts_present()
        .map_err(|e| Error::io(&dir, e))?;
    match present.as_slice() {
        [count] => Ok(*count),
        [] => Err(Error::Experiment(format!(
            "no shards of {label} in {}: run `rfbench reproduce ... --shard I/N` for I = 1 to N \
             first (or `rfbench slurm`)",
            dir.display()
        ))),
        counts => Err(Error::Experiment(format!(
            "{} holds shards of {label} for {} different shard counts ({counts:?}): give \
             --shards N",
            dir.display(),
            counts.len()
        ))),
    }
}

/// Every shard's manifest, checked against the others and against the spec and datasets as
/// they are now.
fn read_manifests(
    plan: &Plan,
    root: &Path,
    files: &SpecFiles,
    shards: &[Shard],
) -> Result<Vec<Manifest>> {
    let missing: Vec<String> = shards
        .iter()
        .filter(|s| {
            !files.shard_csv((s.index, s.count)).is_file()
                || !files.shard_manifest((s.index, s.count)).is_file()
        })
        .map(|s| s.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(Error::Experiment(format!(
            "shard(s) {} of {} missing in {} (a shard is its .csv and its .toml): run them \
             with `rfbench reproduce {} --shard I/N --resume` (or, on SLURM, `rfbench slurm \
             ... --resubmit-failed`; `rfbench status` shows the shards)",
            missing.join(", "),
            files.label(),
            files.results_dir().display(),
            rerun_arguments(plan, files)
        )));
    }
    let (spec, datasets) = shard::digests(plan, root)?;
    let mut manifests = Vec::new();
    for s in shards {
        let path = files.shard_manifest((s.index, s.count));
        let m = Manifest::read(&path)?;
        let wrong = |what: &str| {
            Error::Experiment(format!(
                "{}: shard {s} was run {what}; rerun it (`rfbench reproduce {} --shard {s}`)",
                path.display(),
                rerun_arguments(plan, files)
            ))
        };
        if (m.shard, m.shards) != (s.index, s.count)
            || (m.experiment.as_str(), m.profile.as_str())
                != (plan.name.as_str(), plan.profile.name())
        {
            return Err(wrong(
                "as another shard, experiment or profile than its name says",
            ));
        }
        if m.spec_sha256 != spec {
            return Err(wrong(&format!(
                "with another version of {}",
                plan.source.display()
            )));
        }
        if m.datasets_sha256 != datasets {
            return Err(wrong("with another version of datasets.toml"));
        }
        if let Some(first) = manifests.first() {
            let first: &Manifest = first;
            let code = |m: &Manifest| (m.rfbench_version.clone(), m.git_commit.clone());
            if code(&m) != code(first) {
                return Err(wrong(&format!(
                    "by rfbench {} at commit {}, shard 1 by {} at {}",
                    m.rfbench_version, m.git_commit, first.rfbench_version, first.git_commit
                )));
            }
            if let Some(why) = other_build(&m, first) {
                return Err(wrong(&why));
            }
            if m.master_seed != first.master_seed {
                return Err(wrong(&format!(
                    "with master seed {}, shard 1 with {}",
                    m.master_seed, first.master_seed
                )));
            }
        }
        manifests.push(m);
    }
    Ok(manifests)
}

/// Why shard `m` may have run other code than `first` although their commits read the same
/// ([`shard::Code::other_build`]).
fn other_build(m: &Manifest, first: &Manifest) -> Option<String> {
    m.code().other_build(&first.code()).then(|| {
        format!(
            "by another build than shard 1 at the same uncommitted commit {} (executables' \
             SHA-256 {} and {}: different uncommitted edits may have run); rerun the shards \
             with one build, or commit first",
            m.git_commit,
            &m.binary_sha256[..12.min(m.binary_sha256.len())],
            &first.binary_sha256[..12.min(first.binary_sha256.len())]
        )
    })
}

/// The plan's runs in order, each found exactly once with the plan's seeds: the fields to
/// write and the rows they read as.
fn in_plan_order(
    plan: &Plan,
    files: &SpecFiles,
    shards: &[Shard],
    mut found: BTreeMap<RunId, Vec<Found>>,
) -> Result<(Vec<Vec<String>>, Vec<ResultRow>)> {
    let mut problems = Vec::new();
    let (mut records, mut rows) = (Vec::new(), Vec::new());
    for cell in &plan.cells {
        let coordinates = plan.coordinates(cell);
        for repetition in 0..cell.repetitions {
            let key = RunId::new(&coordinates, repetition);
            let what = || {
                let row = ResultRow {
                    coordinates: coordinates.clone(),
                    repetition,
                    seeds: Vec::new(),
                    outcome: CellOutcome::Skipped(String::new()),
                };
                format!("({}), repetition {repetition}", row.describe(&plan.columns))
            };
            match found.remove(&key).unwrap_or_default().as_slice() {
                [] => {
                    let owner = shards
                        .iter()
                        .find(|s| s.owns(&key))
                        .map_or_else(String::new, |s| s.to_string());
                    problems.push(format!(
                        "{} is in no shard (it is shard {owner}'s: `rfbench reproduce {} \
                         --shard {owner}` reruns that shard)",
                        what(),
                        rerun_arguments(plan, files)
                    ))
                }
                [(_, record, row)] if row.seeds == run::seeds_of(plan, cell, repetition) => {
                    records.push(record.clone());
                    rows.push(row.clone());
                }
                [(shard, ..)] => problems.push(format!(
                    "{} has other seeds in shard {shard} than the plan gives it",
                    what()
                )),
                several => problems.push(format!(
                    "{} is in {} shards ({})",
                    what(),
                    several.len(),
                    several
                        .iter()
                        .map(|(s, ..)| s.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
    }
    for (_, runs) in found {
        for (shard, _, row) in runs {
            problems.push(format!(
                "shard {shard} holds ({}), repetition {}, which the plan does not have",
                row.describe(&plan.columns),
                row.repetition
            ));
        }
    }
    if problems.is_empty() {
        return Ok((records, rows));
    }
    let shown = problems.len().min(10);
    Err(Error::Experiment(format!(
        "the shards of {} do not hold every run of the plan exactly once ({} problem(s)):\n  \
         {}{}",
        files.label(),
        problems.len(),
        problems[..shown].join("\n  "),
        if problems.len() > shown {
            "\n  ..."
        } else {
            ""
        }
    )))
}
