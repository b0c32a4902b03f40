//! `rfbench slurm`'s options: the jobs' resources and shape, each value checked as sbatch reads
//! it (an `#SBATCH` line is read by sbatch, without a shell: a value must be one plain word), and
//! the `#SBATCH` lines and command-line overrides they become.

use crate::error::{Error, Result};
use crate::shard::Shard;

/// The job's resources and shape, as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmOptions {
    pub shards: usize,
    /// At most this many array tasks at once (`--array=1-N%K`).
    pub throttle: Option<usize>,
    pub partition: Option<String>,
    /// Each task's time limit, in sbatch's form (`30`, `1:00:00`, `1-12:00:00`).
    pub time: Option<String>,
    /// Each task's memory, in sbatch's form (`4G`, `16000M`).
    pub mem: Option<String>,
    /// CPUs per task: rfbench's worker threads in the task.
    pub cpus: usize,
    pub account: Option<String>,
    pub qos: Option<String>,
    /// Node features the tasks need (`--constraint`).
    pub constraint: Option<String>,
    /// Generic resources per task (`--gres`, e.g. `gpu:1`).
    pub gres: Option<String>,
    /// Any other sbatch options, one word each (`--nice=10`), in both scripts.
    pub sbatch_args: Vec<String>,
    /// Requeue a task this many times when its time limit nears (or its node fails).
    pub retries: usize,
    /// Tasks and merge accept runs skipped for missing data (a shard with such runs otherwise
    /// fails, and the merge refuses it).
    pub allow_skipped: bool,
    /// Every task refuses a checkout with uncommitted changes (`reproduce --require-clean`),
    /// so each row names the commit that holds its code.
    pub require_clean: bool,
}

impl SlurmOptions {
    /// `shards` tasks of one CPU, every other option at the cluster's default.
    pub fn new(shards: usize) -> SlurmOptions {
        SlurmOptions {
            shards,
            throttle: None,
            partition: None,
            time: None,
            mem: None,
            cpus: 1,
            account: None,
            qos: None,
            constraint: None,
            gres: None,
            sbatch_args: Vec::new(),
            retries: 0,
            allow_skipped: false,
            require_clean: false,
        }
    }
}

impl SlurmOptions {
    /// Refuses nonsense counts and any value sbatch would not read as one word.
    pub(super) fn check(&self) -> Result<()> {
        Shard::new(1, self.shards)
            .map_err(|e| Error::Experiment(format!("--shards {}: {e}", self.shards)))?;
        if self.throttle == Some(0) || self.cpus == 0 || self.cpus > 1024 {
            return Err(Error::Experiment(format!(
                "--throttle and --cpus must be positive (--cpus at most 1024): got {:?} and {}",
                self.throttle, self.cpus
            )));
        }
        if self.retries > 100 {
            return Err(Error::Experiment(format!(
                "--retries {}: at most 100",
                self.retries
            )));
        }
        self.overrides().map(|_| ())
    }

    /// The options given that both jobs take, as sbatch words, each checked.
    pub(super) fn job_options(&self) -> Result<Vec<String>> {
        let mut options = Vec::new();
        for (flag, value) in [
            ("partition", &self.partition),
            ("time", &self.time),
            ("mem", &self.mem),
            ("account", &self.account),
            ("qos", &self.qos),
        ] {
            if let Some(value) = value {
                options.push(format!("--{flag}={}", sbatch_value(flag, value)?));
            }
        }
        for arg in &self.sbatch_args {
            options.push(sbatch_arg(arg)?);
        }
        Ok(options)
    }

    /// The options only the array's tasks take: the nodes' features and resources.
    fn task_options(&self) -> Result<Vec<String>> {
        let mut options = Vec::new();
        for (flag, value) in [("constraint", &self.constraint), ("gres", &self.gres)] {
            if let Some(value) = value {
                options.push(format!("--{flag}={}", sbatch_value(flag, value)?));
            }
        }
        Ok(options)
    }

    /// What a resubmission passes on sbatch's command line (overriding the script's lines):
    /// every option given now.
    pub fn overrides(&self) -> Result<Vec<String>> {
        Ok([self.job_options()?, self.task_options()?].concat())
    }

    /// The `#SBATCH` lines both jobs share.
    pub(super) fn common_lines(&self) -> Result<String> {
        Ok(self
            .job_options()?
            .iter()
            .map(|o| format!("#SBATCH {o}\n"))
            .collect())
    }

    /// The `#SBATCH` lines of the array's tasks only (checked in [`SlurmOptions::check`]).
    pub(super) fn task_lines(&self) -> String {
        let mut lines: String = self
            .task_options()
            .unwrap_or_default()
            .iter()
            .map(|o| format!("#SBATCH {o}\n"))
            .collect();
        if self.retries > 0 {
            // Requeued on a node failure by SLURM, and before the time limit by the script.
            lines.push_str("#SBATCH --requeue\n#SBATCH --signal=B:USR1@120\n");
        }
        lines
    }
}

/// A value for an `#SBATCH` line: sbatch reads these lines itself, so a value is one word of
/// letters, digits and `:-_.,+%`.
fn sbatch_value(flag: &str, value: &str) -> Result<String> {
    let ok = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ":-_.,+%".contains(c));
    if ok {
        Ok(value.to_string())
    } else {
        Err(Error::Experiment(format!(
            "--{flag} {value:?}: one word of letters, digits and :-_.,+% as sbatch takes it"
        )))
    }
}

/// The sbatch options the runner writes itself (long name, short letter, what sets it): given
/// again through `--sbatch-arg` they would land in both scripts (an `--array` in the merge job,
/// an `--output` away from the logs `status` reads) or fight the runner's own line.
const RESERVED: &[(&str, Option<char>, &str)] = &[
    ("array", Some('a'), "--shards and --throttle"),
    (
        "output",
        Some('o'),
        "the logs go to OUT/slurm/SPEC/PROFILE/logs, which status reads",
    ),
    (
        "error",
        Some('e'),
        "the logs go to OUT/slurm/SPEC/PROFILE/logs, which status reads",
    ),
    ("open-mode", None, "a requeued task appends to its log"),
    ("job-name", Some('J'), "rfbench names the jobs"),
    ("cpus-per-task", Some('c'), "--cpus"),
    (
        "dependency",
        Some('d'),
        "rfbench makes the merge wait for the array",
    ),
    ("parsable", None, "rfbench reads the job ids"),
    ("wrap", None, "the scripts are the jobs"),
    ("requeue", None, "--retries"),
    ("signal", None, "--retries"),
    ("partition", Some('p'), "--partition"),
    ("time", Some('t'), "--time"),
    ("mem", None, "--mem"),
    ("account", Some('A'), "--account"),
    ("qos", Some('q'), "--qos"),
    ("constraint", Some('C'), "--constraint"),
    ("gres", None, "--gres"),
];

/// Refuses an option of [`RESERVED`], named in full, by its letter, or by a prefix of its
/// name (sbatch takes any unambiguous prefix: `--arr=1-3` is `--array`).
fn refuse_reserved(arg: &str) -> Result<()> {
    let found = match arg.strip_prefix("--") {
        Some(long) => {
            let name = long.split('=').next().unwrap_or_default();
            RESERVED
                .iter()
                .find(|(reserved, _, _)| !name.is_empty() && reserved.starts_with(name))
        }
        None => {
            let letter = arg.chars().nth(1);
            RESERVED
                .iter()
                .find(|(_, short, _)| short.is_some() && *short == letter)
        }
    };
    match found {
        Some((name, _, how)) => Err(Error::Experiment(format!(
            "--sbatch-arg {arg:?}: rfbench sets sbatch's --{name} itself ({how}); it would be \
             written into both scripts"
        ))),
        None => Ok(()),
    }
}

/// An extra sbatch option (`--sbatch-arg`), written as an `#SBATCH` line and passed on sbatch's
/// command line: one word starting with `-`, of letters, digits and `-_=.,:@[]+/%`, not one the
/// runner sets ([`RESERVED`]).
fn sbatch_arg(arg: &str) -> Result<String> {
    let ok = arg.starts_with('-')
        && arg.len() > 1
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=.,:@[]+/%".contains(c));
    if ok {
        refuse_reserved(arg)?;
        Ok(arg.to_string())
    } else {
        Err(Error::Experiment(format!(
            "--sbatch-arg {arg:?}: one sbatch option as a single word (e.g. --nice=10, \
             --mail-type=END,FAIL), starting with `-`, of letters, digits and -_=.,:@[]+/%"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::MAX_SHARDS;

    #[test]
    fn sbatch_values_are_single_words() {
        assert!(sbatch_value("time", "1-12:00:00").is_ok());
        assert!(sbatch_value("mem", "16G").is_ok());
        for bad in ["", "a b", "x\n#SBATCH --wrap=rm", "$(id)", "a'b"] {
            assert!(sbatch_value("partition", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn extra_sbatch_options_are_single_option_words() {
        for good in [
            "--nice=10",
            "--mail-type=END,FAIL",
            "--exclude=node[1-3]",
            "-x",
        ] {
            assert_eq!(sbatch_arg(good).unwrap(), good);
        }
        for bad in [
            "",
            "-",
            "nice=10",
            "--nice 10",
            "--wrap=$(id)",
            "--x\n--y",
            "--a'b",
        ] {
            assert!(sbatch_arg(bad).is_err(), "{bad:?}");
        }
    }

    /// The options the runner writes itself are refused, by name, letter or prefix (issue
    /// 68): an `--array` or `--output` given again went into both scripts.
    #[test]
    fn options_the_runner_sets_are_refused() {
        for bad in [
            "--array=1-3",
            "--arr=1-3",
            "-a1-3",
            "--output=/tmp/x",
            "-o/tmp/x",
            "--error=/tmp/x",
            "--job-name=x",
            "--dependency=afterok:1",
            "--cpus-per-task=4",
            "--wrap=x",
            "--partition=gpu",
        ] {
            let err = sbatch_arg(bad).unwrap_err().to_string();
            assert!(err.contains("rfbench sets"), "{bad}: {err}");
        }
        for good in [
            "--nice=10",
            "--exclusive",
            "--mail-type=END",
            "-x",
            "--export=NONE",
        ] {
            assert!(sbatch_arg(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn nonsense_sizes_are_refused() {
        let options = |shards, throttle: Option<usize>, cpus| SlurmOptions {
            throttle,
            cpus,
            ..SlurmOptions::new(shards)
        };
        assert!(options(3, Some(2), 2).check().is_ok());
        for bad in [
            options(0, None, 1),
            options(MAX_SHARDS + 1, None, 1),
            options(3, Some(0), 1),
            options(3, None, 0),
            SlurmOptions {
                retries: 101,
                ..SlurmOptions::new(3)
            },
            SlurmOptions {
                gres: Some("gpu 1".into()),
                ..SlurmOptions::new(3)
            },
            SlurmOptions {
                sbatch_args: vec!["--wrap=$(id)".into()],
                ..SlurmOptions::new(3)
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn every_option_given_is_passed_on_a_resubmission() {
        let options = SlurmOptions {
            time: Some("2:00:00".into()),
            account: Some("lab".into()),
            gres: Some("gpu:1".into()),
            sbatch_args: vec!["--nice=10".into()],
            ..SlurmOptions::new(2)
        };
        assert_eq!(
            options.overrides().unwrap(),
            [
                "--time=2:00:00",
                "--account=lab",
                "--nice=10",
                "--gres=gpu:1"
            ]
        );
    }
}
