//! `rfbench status`: where a sharded run stands, from its files and (when it was submitted) the
//! queue: per shard done / skipped runs / pending or running / failed / missing, with its rows
//! saved of planned, its job and log; the merge's state; and the one command that repairs what
//! is missing.

use std::fmt;
use std::path::{Path, PathBuf};

use super::jobs::{JobState, JobsRecord, Queue};
use super::text::quote;
use crate::error::{Error, Result};
use crate::files::SpecFiles;
use crate::results::CellOutcome;
use crate::run_id::RunId;
use crate::shard::Shard;
use crate::spec::{load_plan, Plan, Profile};

/// What one shard's files and job say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardState {
    /// Its CSV and manifest are written, every run measured.
    Done,
    /// Written, but runs were skipped for missing data: a failed shard unless skips are allowed.
    Skipped { runs: usize, reasons: Vec<String> },
    /// In the queue: pending, running, requeued.
    Queued { job: String, state: JobState },
    /// Ended without writing its shard (the queue's final state when it still knows it).
    Failed {
        job: Option<String>,
        state: Option<JobState>,
    },
    /// Never ran here: no shard, no partial file, no job.
    Missing,
    /// Submitted (as `job`), no shard written, and the queue could not be read: it may be
    /// pending, running or ended; only the queue can say.
    Unknown { job: String },
    /// Its shard or partial file was measured under another version of the spec or of
    /// `datasets.toml` (what changed): merge refuses it and `--resume` cannot take its rows, so
    /// it runs again from the start.
    Stale {
        what: String,
        /// Its partial file, when that is what is stale (a resubmission discards it).
        partial: Option<PathBuf>,
    },
}

/// A shard's line of the status.
#[derive(Debug, Clone)]
pub struct ShardStatus {
    pub shard: Shard,
    pub state: ShardState,
    /// Rows saved (in its CSV, or its partial file while it runs) and runs it owns.
    pub saved: usize,
    pub planned: usize,
    pub log: PathBuf,
    /// The log's last line, for a shard that did not end well.
    pub last_log_line: Option<String>,
}

/// The merge's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeState {
    /// `results/SPEC/PROFILE.csv` written after the last submission, the shards removed.
    Merged(PathBuf),
    Queued {
        job: String,
        state: JobState,
    },
    /// Not run yet, or refused (its log's last line).
    NotMerged {
        log_line: Option<String>,
    },
}

/// The whole status, printed by `rfbench status` and by a refused merge job.
#[derive(Debug, Clone)]
pub struct Status {
    pub label: String,
    pub record: Option<JobsRecord>,
    pub shards: Vec<ShardStatus>,
    pub merge: MergeState,
    /// Why the queue could not be read, when it could not.
    pub queue_note: Option<String>,
    /// What to do next: commands, or a line saying there is nothing to do.
    pub next: Vec<String>,
}

impl Status {
    /// The shards that must run again: failed, missing, or (skips not allowed) with skipped runs.
    pub fn to_repair(&self) -> Vec<usize> {
        self.shards
            .iter()
            .filter(|s| {
                matches!(
                    s.state,
                    ShardState::Failed { .. }
                        | ShardState::Missing
                        | ShardState::Skipped { .. }
                        | ShardState::Stale { .. }
                )
            })
            .map(|s| s.shard.index)
            .collect()
    }

    /// The shards whose saved rows are of another spec or datasets (rerun from the start).
    pub fn stale(&self) -> Vec<usize> {
        self.shards
            .iter()
            .filter(|s| matches!(s.state, ShardState::Stale { .. }))
            .map(|s| s.shard.index)
            .collect()
    }

    /// The partial files of stale shards: rows `--resume` would refuse, which a resubmission
    /// discards so that its tasks can start over.
    pub fn stale_partials(&self) -> Vec<&Path> {
        self.shards
            .iter()
            .filter_map(|s| match &s.state {
                ShardState::Stale { partial, .. } => partial.as_deref(),
                _ => None,
            })
            .collect()
    }

    /// Whether any job of the run is still pending or running.
    pub fn active(&self) -> bool {
        matches!(self.merge, MergeState::Queued { .. })
            || self
                .shards
                .iter()
                .any(|s| matches!(s.state, ShardState::Queued { .. }))
    }

    pub fn merged(&self) -> bool {
        matches!(self.merge, MergeState::Merged(_))
    }
}

/// How the user names the run: what the repair commands repeat.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// This executable as it was called, and `--root ROOT`.
    pub rfbench: String,
    pub spec: String,
    pub profile: Profile,
    pub out_dir: PathBuf,
}

impl Invocation {
    /// `SPEC --profile P --out-dir OUT`, quoted for the shell.
    fn arguments(&self) -> String {
        format!(
            "{} --profile {} --out-dir {}",
            quote(&self.spec),
            quote(self.profile.name()),
            quote(&self.out_dir.display().to_string())
        )
    }
}

/// The status of `spec` under `profile` in `out_dir` (under `root`): its shard count from the
/// jobs record, else from the shards present.
pub fn status(root: &Path, how: &Invocation) -> Result<Status> {
    let plan = load_plan(root, &how.spec, &how.profile)?;
    let files = plan.files(&how.out_dir);
    let dir = files.slurm_dir();
    let record = JobsRecord::read(&dir)?;
    let count = match &record {
        Some(r) => r.shards,
        None => one_shard_count(&files)?,
    };
    let (queue, queue_note) = match &record {
        Some(_) => match Queue::read() {
            Ok(q) => (q, None),
            Err(e) => (
                Queue::default(),
                Some(format!("{e}; the states are the files'")),
            ),
        },
        None => (Queue::default(), None),
    };
    let allow_skipped = record.as_ref().is_some_and(|r| r.allow_skipped);
    let (spec_sha256, datasets_sha256) = crate::shard::digests(&plan, root)?;
    let now = Versions {
        spec_sha256,
        datasets_sha256,
    };
    let merge = merge_state(&files, count, record.as_ref(), &queue);
    let queue_read = queue_note.is_none();
    let shards = (1..=count)
        .map(|i| {
            let shard = Shard::new(i, count).map_err(Error::Experiment)?;
            match merge {
                // Merged: the shards' rows are in the results file, their files removed.
                MergeState::Merged(_) => Ok(merged_shard(&plan, &files, shard)),
                _ => shard_status(&plan, &files, shard, record.as_ref(), &queue, allow_skipped)
                    .map(|status| stale_or(status, &files, &now))
                    .map(|status| unknown_unless(queue_read, status)),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let mut status = Status {
        label: files.label(),
        record,
        shards,
        merge,
        queue_note,
        next: Vec::new(),
    };
    status.next = next_steps(&status, how);
    Ok(status)
}

/// The one shard count whose shards (or partial files) are present, for a run not submitted.
fn one_shard_count(files: &SpecFiles) -> Result<usize> {
    let dir = files.results_dir();
    let counts = files
        .shard_counts_present()
        .map_err(|e| Error::io(&dir, e))?;
    match counts.as_slice() {
        [count] => Ok(*count),
        [] => Err(Error::Experiment(format!(
            "{}: nothing submitted (no {}) and no shards in {}",
            files.label(),
            JobsRecord::path(&files.slurm_dir()).display(),
            dir.display()
        ))),
        counts => Err(Error::Experiment(format!(
            "{} holds shards of {} for several counts ({counts:?}) and nothing was submitted",
            dir.display(),
            files.label()
        ))),
    }
}

/// Shard `shard`'s state from its files, then from its latest job.
fn shard_status(
    plan: &Plan,
    files: &SpecFiles,
    shard: Shard,
    record: Option<&JobsRecord>,
    queue: &Queue,
    allow_skipped: bool,
) -> Result<ShardStatus> {
    let key = (shard.index, shard.count);
    let job = record
        .and_then(|r| r.latest_for(shard.index))
        .map(|s| format!("{}_{}", s.array, shard.index));
    let job_state = job.as_deref().and_then(|id| queue.get(id)).cloned();
    let (csv, manifest) = (files.shard_csv(key), files.shard_manifest(key));
    let written = csv.is_file() && manifest.is_file();
    let (saved, skipped) = if written {
        written_rows(plan, &csv)?
    } else {
        (partial_rows(&files.partial(Some(key))), Vec::new())
    };
    let state = match (&job_state, written) {
        (Some(state), _) if state.active() => ShardState::Queued {
            job: job.clone().unwrap_or_default(),
            state: state.clone(),
        },
        (_, true) if skipped.is_empty() || allow_skipped => ShardState::Done,
        (_, true) => ShardState::Skipped {
            runs: skipped.len(),
            reasons: distinct(skipped),
        },
        (Some(state), false) => ShardState::Failed {
            job,
            state: Some(state.clone()),
        },
        (None, false) if job.is_some() || saved > 0 => ShardState::Failed { job, state: None },
        (None, false) => ShardState::Missing,
    };
    let log = files
        .slurm_dir()
        .join(format!("logs/shard-{}.out", shard.index));
    let last_log_line = match state {
        ShardState::Done | ShardState::Missing => None,
        _ => last_line(&log),
    };
    Ok(ShardStatus {
        shard,
        state,
        saved,
        planned: owned_runs(plan, shard),
        log,
        last_log_line,
    })
}

/// The spec and datasets as they are now, which a shard's rows must have been measured under.
struct Versions {
    spec_sha256: String,
    datasets_sha256: String,
}

impl Versions {
    /// What differs between `(spec, datasets)` digests measured then and now.
    fn changed(&self, spec: &str, datasets: &str) -> Option<String> {
        let short = |h: &str| h.chars().take(12).collect::<String>();
        let mut what = Vec::new();
        if spec != self.spec_sha256 {
            what.push(format!(
                "the spec file (sha256 {} then, {} now)",
                short(spec),
                short(&self.spec_sha256)
            ));
        }
        if datasets != self.datasets_sha256 {
            what.push("datasets.toml".to_string());
        }
        (!what.is_empty()).then(|| what.join(" and "))
    }
}

/// `status`, or stale when what the shard saved (its shard's manifest, else its partial file)
/// was measured under another spec or datasets than now's; a queued shard stays queued.
fn stale_or(status: ShardStatus, files: &SpecFiles, now: &Versions) -> ShardStatus {
    if matches!(
        status.state,
        ShardState::Queued { .. } | ShardState::Missing
    ) {
        return status;
    }
    let key = (status.shard.index, status.shard.count);
    let manifest = crate::shard::Manifest::read(&files.shard_manifest(key)).ok();
    let manifest_changed = manifest
        .as_ref()
        .and_then(|m| now.changed(&m.spec_sha256, &m.datasets_sha256))
        .map(|what| format!("its shard was run under another version of {what}"));
    if manifest.is_some() && manifest_changed.is_none() {
        return status;
    }
    let partial = files.partial(Some(key));
    let partial_changed = partial_changed(&partial, now);
    let partial = partial_changed.is_some().then_some(partial);
    match manifest_changed.or(partial_changed) {
        Some(what) => ShardStatus {
            state: ShardState::Stale { what, partial },
            last_log_line: None,
            ..status
        },
        None => status,
    }
}

/// What makes the partial file at `path` unusable by `--resume` under `now`, if it holds rows.
fn partial_changed(path: &Path, now: &Versions) -> Option<String> {
    if partial_rows(path) == 0 {
        return None;
    }
    match crate::partial::Stamp::of_file(path) {
        Some(then) => now
            .changed(&then.spec_sha256, &then.datasets_sha256)
            .map(|what| format!("its saved runs were measured under another version of {what}")),
        None => Some("its partial file was written by an older rfbench".to_string()),
    }
}

/// `status`, or unknown when the queue could not be read and the shard's job wrote nothing:
/// "failed" would be a guess, and resubmitting a task that may still run would double it.
fn unknown_unless(queue_read: bool, status: ShardStatus) -> ShardStatus {
    match &status.state {
        ShardState::Failed {
            job: Some(job),
            state: None,
        } if !queue_read => ShardStatus {
            state: ShardState::Unknown { job: job.clone() },
            last_log_line: None,
            ..status
        },
        _ => status,
    }
}

/// A shard of a merged run: done, every run it owns in the results file.
fn merged_shard(plan: &Plan, files: &SpecFiles, shard: Shard) -> ShardStatus {
    let planned = owned_runs(plan, shard);
    ShardStatus {
        shard,
        state: ShardState::Done,
        saved: planned,
        planned,
        log: files
            .slurm_dir()
            .join(format!("logs/shard-{}.out", shard.index)),
        last_log_line: None,
    }
}

/// Rows of a written shard, and the reasons of those skipped.
fn written_rows(plan: &Plan, csv: &Path) -> Result<(usize, Vec<String>)> {
    let rows = plan.layout().read_rows(csv)?;
    let skipped = rows
        .iter()
        .filter_map(|r| match &r.outcome {
            CellOutcome::Skipped(reason) => Some(reason.clone()),
            _ => None,
        })
        .collect();
    Ok((rows.len(), skipped))
}

/// Whole rows in a partial file (its first two lines are the stamp and the header).
fn partial_rows(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|text| text.matches('\n').count().saturating_sub(2))
        .unwrap_or(0)
}

fn owned_runs(plan: &Plan, shard: Shard) -> usize {
    plan.cells
        .iter()
        .map(|cell| {
            let coordinates = plan.coordinates(cell);
            (0..cell.repetitions)
                .filter(|&r| shard.owns(&RunId::new(&coordinates, r)))
                .count()
        })
        .sum()
}

fn distinct(mut reasons: Vec<String>) -> Vec<String> {
    reasons.sort();
    reasons.dedup();
    reasons
}

/// What a log says went wrong: its last `error:` line (rfbench's), else its last non-empty
/// line (SLURM's own, e.g. a time limit), cut to 300 characters.
fn last_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines().rev().filter(|l| !l.trim().is_empty());
    let line = lines
        .clone()
        .find(|l| l.starts_with("error:"))
        .or_else(|| lines.next())?;
    Some(line.chars().take(300).collect())
}

fn merge_state(
    files: &SpecFiles,
    count: usize,
    record: Option<&JobsRecord>,
    queue: &Queue,
) -> MergeState {
    let latest = record.and_then(|r| r.submissions.last());
    // Run by the merge job itself (its log's status), the merge is not waiting for anything.
    let this_job = std::env::var("SLURM_JOB_ID").ok();
    if let Some(s) = latest.filter(|s| Some(&s.merge) != this_job.as_ref()) {
        if let Some(state) = queue.get(&s.merge).filter(|st| st.active()) {
            return MergeState::Queued {
                job: s.merge.clone(),
                state: state.clone(),
            };
        }
    }
    let since = latest.map_or(0, |s| s.submitted);
    let csv = files.csv();
    let written_after = std::fs::metadata(&csv)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .is_some_and(|t| t.as_secs() >= since);
    let shards_left = (1..=count).any(|i| files.shard_csv((i, count)).exists());
    if written_after && !shards_left {
        return MergeState::Merged(csv);
    }
    MergeState::NotMerged {
        log_line: last_line(&files.slurm_dir().join("logs/merge.out")),
    }
}

/// What to do next: wait, resubmit the failed shards (or, for shards run by hand, rerun them),
/// merge, or nothing.
fn next_steps(status: &Status, how: &Invocation) -> Vec<String> {
    if status.merged() {
        return vec!["nothing to do: the run is merged".to_string()];
    }
    let repair = status.to_repair();
    let mut next = Vec::new();
    let unknown: Vec<String> = status
        .shards
        .iter()
        .filter(|s| matches!(s.state, ShardState::Unknown { .. }))
        .map(|s| s.shard.to_string())
        .collect();
    if !unknown.is_empty() {
        next.push(format!(
            "the queue could not be read, and shard(s) {} were submitted without writing a \
             shard yet: they may still be queued or running. Run `{} status {}` where squeue \
             works (the login node) before repairing anything",
            unknown.join(", "),
            how.rfbench,
            how.arguments()
        ));
        return next;
    }
    if status.active() {
        next.push(
            "wait: jobs are still queued or running; the merge runs when every task has ended \
             (`rfbench status ... --wait` blocks until then)"
                .to_string(),
        );
        return next;
    }
    let skipped = status
        .shards
        .iter()
        .any(|s| matches!(s.state, ShardState::Skipped { .. }));
    if skipped {
        next.push(format!(
            "shards skipped runs for missing data: make it reachable from the nodes (the \
             reasons above), then repair; or accept the holes: {} merge {} --allow-skipped",
            how.rfbench,
            how.arguments()
        ));
    }
    match (&status.record, repair.is_empty()) {
        (Some(_), _) => next.push(format!(
            "{} slurm {} --resubmit-failed",
            how.rfbench,
            how.arguments()
        )),
        (None, false) => {
            // A stale shard starts over (its rows cannot be resumed); the others resume.
            let stale = status.stale();
            for i in &repair {
                let resume = if stale.contains(i) { "" } else { " --resume" };
                next.push(format!(
                    "{} reproduce {} --shard {i}/{}{resume}",
                    how.rfbench,
                    how.arguments(),
                    status.shards.len()
                ));
            }
        }
        (None, true) => next.push(format!(
            "{} merge {} --shards {}",
            how.rfbench,
            how.arguments(),
            status.shards.len()
        )),
    }
    next
}

impl fmt::Display for ShardState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardState::Done => write!(f, "done"),
            ShardState::Skipped { runs, reasons } => write!(
                f,
                "FAILED: {runs} run(s) skipped for missing data ({})",
                reasons.join("; ")
            ),
            ShardState::Queued { job, state } => {
                write!(f, "{} (job {job}", state.state.to_lowercase())?;
                match state.reason.as_str() {
                    "" | "None" => write!(f, ")"),
                    reason => write!(f, ", {reason})"),
                }
            }
            ShardState::Failed { job, state } => {
                write!(f, "FAILED")?;
                match (job, state) {
                    (Some(job), Some(s)) => write!(f, " (job {job}: {})", s.state),
                    (Some(job), None) => write!(
                        f,
                        " (job {job}: not in the queue, no shard written: cancelled, or failed \
                         before its first run)"
                    ),
                    _ => write!(f, " (stopped before writing its shard)"),
                }
            }
            ShardState::Missing => write!(f, "MISSING (never ran)"),
            ShardState::Unknown { job } => write!(
                f,
                "UNKNOWN (job {job}; the queue could not be read, and it wrote no shard yet)"
            ),
            ShardState::Stale { what, .. } => write!(
                f,
                "STALE: {what}; merge refuses it, so it runs again from the start"
            ),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let done = self
            .shards
            .iter()
            .filter(|s| s.state == ShardState::Done)
            .count();
        writeln!(
            f,
            "{}: {done} of {} shards done",
            self.label,
            self.shards.len()
        )?;
        if let Some(record) = &self.record {
            for s in &record.submissions {
                writeln!(
                    f,
                    "  submitted: array job {} (shards {}), merge job {}",
                    s.array,
                    s.tasks
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                    s.merge
                )?;
            }
        }
        if let Some(note) = &self.queue_note {
            writeln!(f, "  queue: {note}")?;
        }
        for s in &self.shards {
            writeln!(
                f,
                "  shard {}: {}, {} of {} runs saved; log {}",
                s.shard,
                s.state,
                s.saved,
                s.planned,
                s.log.display()
            )?;
            if let Some(line) = &s.last_log_line {
                writeln!(f, "    log ends: {line}")?;
            }
        }
        match &self.merge {
            MergeState::Merged(csv) => writeln!(f, "  merge: done, {}", csv.display())?,
            MergeState::Queued { job, state } => {
                writeln!(f, "  merge: {} (job {job})", state.state.to_lowercase())?
            }
            MergeState::NotMerged { log_line } => {
                write!(f, "  merge: not done")?;
                match log_line {
                    Some(line) => writeln!(f, "; its log ends: {line}")?,
                    None => writeln!(f)?,
                }
            }
        }
        writeln!(f, "next:")?;
        for line in &self.next {
            writeln!(f, "  {line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_read_as_a_user_needs_them() {
        let queued = ShardState::Queued {
            job: "17_2".into(),
            state: JobState {
                state: "PENDING".into(),
                reason: "JobArrayTaskLimit".into(),
            },
        };
        assert_eq!(queued.to_string(), "pending (job 17_2, JobArrayTaskLimit)");
        let failed = ShardState::Failed {
            job: Some("17_3".into()),
            state: Some(JobState {
                state: "CANCELLED".into(),
                reason: "None".into(),
            }),
        };
        assert_eq!(failed.to_string(), "FAILED (job 17_3: CANCELLED)");
    }
}
