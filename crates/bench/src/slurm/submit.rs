//! Submitting: the whole array and its merge (`--submit`), the shards that failed and a fresh
//! merge (`--resubmit-failed`), and waiting for the merge (`--wait`). Each submission takes the
//! spec's submission lock, refuses while jobs of an earlier one are still queued, and records
//! its job ids ([`JobsRecord`]).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::jobs::{self, JobsRecord, Queue, Submission};
use super::options::SlurmOptions;
use super::scripts::Scripts;
use super::status::{self, Invocation, ShardState, Status};
use crate::error::{Error, Result};
use crate::run::RunOptions;
use crate::spec::load_plan;
use rfbench_data::DataError;

/// The job ids of a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// `None` when no shard needed to run again (only the merge was submitted).
    pub array: Option<String>,
    pub tasks: Vec<usize>,
    pub merge: String,
}

/// Fetches the datasets here, then submits the array and the merge job (after every task has
/// ended), refused while an earlier submission of the spec is still queued.
pub fn submit(scripts: &Scripts, run: &RunOptions, slurm: &SlurmOptions) -> Result<Submitted> {
    let _lock = jobs::submission_lock(&scripts.dir)?;
    if let Some(record) = JobsRecord::read(&scripts.dir)? {
        refuse_active(&record, &scripts.dir)?;
    }
    fetch_here(scripts, run)?;
    let array = sbatch(&[scripts.array.display().to_string()])?;
    let dependency = format!("--dependency=afterany:{array}");
    let merge = sbatch(&[dependency, scripts.merge.display().to_string()])?;
    let tasks: Vec<usize> = (1..=slurm.shards).collect();
    let record = JobsRecord {
        shards: slurm.shards,
        allow_skipped: slurm.allow_skipped,
        submissions: vec![Submission {
            array: array.clone(),
            tasks: tasks.clone(),
            merge: merge.clone(),
            submitted: jobs::now(),
        }],
    };
    record.write(&scripts.dir)?;
    Ok(Submitted {
        array: Some(array),
        tasks,
        merge,
    })
}

/// The registry datasets, fetched (or verified) on this machine before the tasks need them.
fn fetch_here(scripts: &Scripts, run: &RunOptions) -> Result<()> {
    let registry = rfbench_data::Registry::from_file(&run.root.join("datasets.toml"))?;
    for name in &scripts.datasets {
        match rfbench_data::load_report(registry.get(name)?, &run.fetch) {
            Ok(_) => {}
            // Data this machine cannot get: its runs are skipped and their shards fail.
            Err(e @ (DataError::Download { .. } | DataError::NoSource { .. })) => eprintln!(
                "warning: dataset {name}: {e}; its runs will be skipped and their shards fail \
                 unless the nodes can reach it"
            ),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// An error naming the recorded jobs still pending or running, if any.
fn refuse_active(record: &JobsRecord, dir: &Path) -> Result<()> {
    let active = Queue::read()?.active_of(record);
    if active.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = active
        .iter()
        .filter_map(|a| {
            a.split("job ")
                .nth(1)?
                .split([',', ')'])
                .next()
                .map(String::from)
        })
        .collect();
    Err(Error::Experiment(format!(
        "this spec and profile are already submitted (recorded in {}), and their jobs are still \
         in the queue:\n  {}\n`rfbench status` shows them; wait for them, or cancel them \
         (scancel {}) before submitting again",
        JobsRecord::path(dir).display(),
        active.join("\n  "),
        ids.join(" ")
    )))
}

/// Resubmits the shards that failed, are missing or skipped runs, as one array of those tasks
/// (with `slurm`'s options given now, e.g. a longer `--time`), and a merge after them; only the
/// merge when every shard is done but the merge is not.
pub fn resubmit_failed(root: &Path, how: &Invocation, slurm: &SlurmOptions) -> Result<Submitted> {
    let plan = load_plan(root, &how.spec, &how.profile)?;
    let dir = plan.files(&how.out_dir).slurm_dir();
    let _lock = jobs::submission_lock(&dir)?;
    let Some(mut record) = JobsRecord::read(&dir)? else {
        return Err(Error::Experiment(format!(
            "nothing was submitted for {} (no {}): submit it with `rfbench slurm ... --submit`",
            plan.files(&how.out_dir).label(),
            JobsRecord::path(&dir).display()
        )));
    };
    refuse_active(&record, &dir)?;
    let status = status::status(root, how)?;
    if status.merged() {
        return Err(Error::Experiment(format!(
            "nothing to resubmit: {} is merged",
            status.label
        )));
    }
    let tasks = status.to_repair();
    // Rows of another spec or datasets: the resubmitted tasks' --resume would refuse them
    // and fail again (no task of the run is active, checked above).
    for partial in status.stale_partials() {
        match std::fs::remove_file(partial) {
            Ok(()) => eprintln!(
                "discarded {}: its rows were measured under another version of the spec or \
                 datasets, so the shard starts over",
                partial.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(partial, e)),
        }
    }
    let (array_script, merge_script) = (dir.join("array.sbatch"), dir.join("merge.sbatch"));
    let array = match tasks.is_empty() {
        true => None,
        false => {
            let list: Vec<String> = tasks.iter().map(|t| t.to_string()).collect();
            let mut args = vec![format!("--array={}", list.join(","))];
            args.extend(slurm.overrides()?);
            args.push(array_script.display().to_string());
            Some(sbatch(&args)?)
        }
    };
    let mut args: Vec<String> = array
        .iter()
        .map(|a| format!("--dependency=afterany:{a}"))
        .collect();
    args.extend(slurm.job_options()?);
    args.push(merge_script.display().to_string());
    let merge = sbatch(&args)?;
    record.submissions.push(Submission {
        array: array.clone().unwrap_or_default(),
        tasks: tasks.clone(),
        merge: merge.clone(),
        submitted: jobs::now(),
    });
    record.write(&dir)?;
    Ok(Submitted {
        array,
        tasks,
        merge,
    })
}

/// Blocks until no job of the run is queued, printing a line each time the shards' states
/// change; returns the final status.
pub fn wait(root: &Path, how: &Invocation, every: Duration) -> Result<Status> {
    let mut last = String::new();
    loop {
        let status = status::status(root, how)?;
        let line = progress_line(&status);
        if line != last {
            eprintln!("{line}");
            last = line;
        }
        if !status.active() {
            return Ok(status);
        }
        std::thread::sleep(every);
    }
}

/// `3 done, 1 running, 0 pending, 0 failed of 4 shards; merge pending`.
fn progress_line(status: &Status) -> String {
    let count =
        |f: &dyn Fn(&ShardState) -> bool| status.shards.iter().filter(|s| f(&s.state)).count();
    let queued = |name: &'static str| move |s: &ShardState| matches!(s, ShardState::Queued { state, .. } if state.state == name);
    let merge = match &status.merge {
        status::MergeState::Merged(_) => "done".to_string(),
        status::MergeState::Queued { state, .. } => state.state.to_lowercase(),
        status::MergeState::NotMerged { .. } => "not done".to_string(),
    };
    format!(
        "{}: {} done, {} running, {} pending, {} failed or missing of {} shards; merge {merge}",
        status.label,
        count(&|s| *s == ShardState::Done),
        count(&queued("RUNNING")),
        count(&queued("PENDING")),
        status.to_repair().len(),
        status.shards.len()
    )
}

/// `sbatch --parsable ARGS`: the job id it prints.
fn sbatch(args: &[String]) -> Result<String> {
    let output = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .map_err(|e| {
            Error::Experiment(format!(
                "running sbatch: {e} (is this a SLURM login node? the scripts are written; \
                 submit them with the commands printed without --submit)"
            ))
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let id = stdout
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if !output.status.success() || id.is_empty() {
        return Err(Error::Experiment(format!(
            "sbatch {} failed ({}): {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(id)
}
