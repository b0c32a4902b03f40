//! What was submitted, and what SLURM says of it now.
//!
//! `--submit` and `--resubmit-failed` record their job ids in `slurm/SPEC/PROFILE/jobs.toml`
//! (each submission: the array's id, the tasks it holds, the merge's id), under an advisory lock
//! on `.submit.lock` beside it, so that a second submission of a spec whose jobs are still in
//! the queue is refused with their ids. The queue is read with `squeue --states=all`, which
//! also lists jobs that ended less than `MinJobAge` ago (5 minutes by default) with their final
//! state; older ones are known by the files they left.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One `sbatch` of the array (all or some of its tasks) and of its merge job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submission {
    pub array: String,
    /// The shards this array runs (its task ids).
    pub tasks: Vec<usize>,
    pub merge: String,
    /// Seconds since the Unix epoch.
    pub submitted: u64,
}

/// `slurm/SPEC/PROFILE/jobs.toml`: the shard count and every submission, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobsRecord {
    pub shards: usize,
    /// The scripts accept runs skipped for missing data (`--allow-skipped`).
    #[serde(default)]
    pub allow_skipped: bool,
    #[serde(rename = "submission")]
    pub submissions: Vec<Submission>,
}

impl JobsRecord {
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("jobs.toml")
    }

    /// The record in `dir`, `None` when nothing was submitted from there.
    pub fn read(dir: &Path) -> Result<Option<JobsRecord>> {
        let path = Self::path(dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        toml::from_str(&text).map(Some).map_err(|e| Error::Results {
            path,
            message: format!("not a record of submitted jobs: {e}"),
        })
    }

    /// Writes the record to `dir` (a temporary file renamed over the old one).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let body = toml::to_string(self)
            .map_err(|e| Error::Experiment(format!("writing the jobs record: {e}")))?;
        let text = format!(
            "# The jobs `rfbench slurm --submit` (and --resubmit-failed) submitted for this spec \
             and profile,\n# oldest first; `rfbench status` reads it.\n{body}"
        );
        let path = Self::path(dir);
        let temporary = dir.join(format!(".jobs.toml.{}", std::process::id()));
        std::fs::write(&temporary, text).map_err(|e| Error::io(&temporary, e))?;
        std::fs::rename(&temporary, &path).map_err(|e| Error::io(&path, e))
    }

    /// The latest submission that ran shard `index`.
    pub fn latest_for(&self, index: usize) -> Option<&Submission> {
        self.submissions
            .iter()
            .rev()
            .find(|s| s.tasks.contains(&index) && !s.array.is_empty())
    }

    /// Every job id recorded (array tasks as `ARRAY_I`), with what it is.
    pub fn jobs(&self) -> Vec<(String, String)> {
        let mut jobs = Vec::new();
        for s in &self.submissions {
            for i in s.tasks.iter().filter(|_| !s.array.is_empty()) {
                jobs.push((format!("{}_{i}", s.array), format!("shard {i}")));
            }
            jobs.push((s.merge.clone(), "the merge".to_string()));
        }
        jobs
    }
}

/// Seconds since the Unix epoch, now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The advisory lock that serialises submissions of one spec and profile: held until dropped.
pub fn submission_lock(dir: &Path) -> Result<File> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join(".submit.lock");
    let file = crate::staging::open_no_follow(
        File::options().create(true).truncate(false).write(true),
        &path,
    )?;
    file.try_lock().map_err(|_| {
        Error::Experiment(format!(
            "another `rfbench slurm` is submitting this spec right now ({} is locked)",
            path.display()
        ))
    })?;
    Ok(file)
}

/// A job's state as SLURM names it (`PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, ...) and the
/// reason it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobState {
    pub state: String,
    pub reason: String,
}

impl JobState {
    /// Whether the job is still to run or running (not ended).
    pub fn active(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "COMPLETED"
                | "FAILED"
                | "CANCELLED"
                | "TIMEOUT"
                | "NODE_FAIL"
                | "PREEMPTED"
                | "OUT_OF_MEMORY"
                | "BOOT_FAIL"
                | "DEADLINE"
        )
    }
}

/// This user's jobs as `squeue` shows them, array tasks one per line (`ARRAY_I`).
#[derive(Debug, Clone, Default)]
pub struct Queue {
    jobs: BTreeMap<String, JobState>,
}

impl Queue {
    /// Reads the queue; an error when `squeue` cannot be run or fails.
    pub fn read() -> Result<Queue> {
        let output = Command::new("squeue")
            .args(["--me", "-h", "-r", "--states=all", "-o", "%i|%T|%r"])
            .output()
            .map_err(|e| {
                Error::Experiment(format!("running squeue: {e} (is this a SLURM login node?)"))
            })?;
        if !output.status.success() {
            return Err(Error::Experiment(format!(
                "squeue failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        Ok(Queue::parse(&String::from_utf8_lossy(&output.stdout)))
    }

    /// `squeue -o '%i|%T|%r'` lines.
    pub fn parse(text: &str) -> Queue {
        let jobs = text
            .lines()
            .filter_map(|line| {
                let mut fields = line.trim().splitn(3, '|');
                let id = fields.next()?.to_string();
                let state = fields.next()?.to_string();
                let reason = fields.next().unwrap_or_default().to_string();
                Some((id, JobState { state, reason }))
            })
            .collect();
        Queue { jobs }
    }

    pub fn get(&self, id: &str) -> Option<&JobState> {
        self.jobs.get(id)
    }

    /// The recorded jobs still pending or running, described (`shard 2 (job 17_2, RUNNING)`).
    pub fn active_of(&self, record: &JobsRecord) -> Vec<String> {
        record
            .jobs()
            .into_iter()
            .filter_map(|(id, what)| {
                let state = self.get(&id).filter(|s| s.active())?;
                Some(format!("{what} (job {id}, {})", state.state))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_is_read_per_task_and_ended_jobs_are_not_active() {
        let queue = Queue::parse(
            "17_1|COMPLETED|None\n17_2|FAILED|NonZeroExitCode\n17_3|RUNNING|None\n18|PENDING|Dependency\n",
        );
        let record = JobsRecord {
            shards: 3,
            allow_skipped: false,
            submissions: vec![Submission {
                array: "17".into(),
                tasks: vec![1, 2, 3],
                merge: "18".into(),
                submitted: 0,
            }],
        };
        assert_eq!(
            queue.active_of(&record),
            ["shard 3 (job 17_3, RUNNING)", "the merge (job 18, PENDING)"]
        );
        assert_eq!(queue.get("17_2").unwrap().reason, "NonZeroExitCode");
        assert!(queue.get("19").is_none());
    }

    #[test]
    fn a_record_round_trips_and_names_the_latest_submission_of_a_shard() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(JobsRecord::read(dir.path()).unwrap(), None);
        let record = JobsRecord {
            shards: 3,
            allow_skipped: false,
            submissions: vec![
                Submission {
                    array: "17".into(),
                    tasks: vec![1, 2, 3],
                    merge: "18".into(),
                    submitted: 5,
                },
                Submission {
                    array: "20".into(),
                    tasks: vec![2],
                    merge: "21".into(),
                    submitted: 9,
                },
            ],
        };
        record.write(dir.path()).unwrap();
        let read = JobsRecord::read(dir.path()).unwrap().unwrap();
        assert_eq!(read, record);
        assert_eq!(read.latest_for(2).unwrap().array, "20");
        assert_eq!(read.latest_for(3).unwrap().array, "17");
    }
}
