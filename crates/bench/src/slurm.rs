//! `rfbench slurm`: a spec as a SLURM job array of N shards ([`crate::shard`]) and a merge job
//! that runs when every shard has succeeded (`afterok`), as two sbatch scripts under
//! `slurm/SPEC/PROFILE/` of the output folder (logs in its `logs/`).
//!
//! The datasets are fetched where `rfbench slurm --submit` runs (a login node has the network a
//! compute node often lacks) into the cache the scripts name, on the shared file system; each
//! array task fetches again before it runs, which after the first only verifies the files (the
//! fetch lock serialises tasks that start together). Each task runs `reproduce --resume`: its
//! shard comes from the array variables SLURM sets, and a task that was killed (a time limit, a
//! preemption, `scontrol requeue`) and runs again keeps the runs it finished.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::run::RunOptions;
use crate::shard::Shard;
use crate::spec::{load_plan, DatasetSource, Plan, Profile};
use rfbench_data::DataError;

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
}

/// The scripts written, and the commands that submit them.
#[derive(Debug, Clone)]
pub struct Scripts {
    pub dir: PathBuf,
    pub array: PathBuf,
    pub merge: PathBuf,
    /// The registry datasets the run needs, fetched before submitting.
    pub datasets: Vec<String>,
    /// Shell commands: fetch the datasets, submit the array, submit the merge.
    pub commands: Vec<String>,
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

/// `text` for a comment or an `#SBATCH --job-name`: every character but letters, digits and
/// `._-` becomes `_`, so no name can end the line or split the value.
fn name_word(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_ascii_alphanumeric() || "._-".contains(c) {
            true => c,
            false => '_',
        })
        .collect()
}

/// Refuses a value with a control character (a newline ends a script's line: the rest would run
/// as a command); `what` names it in the message. Everything else is quoted where written.
fn no_control(what: &str, value: &str) -> Result<()> {
    match value.chars().find(|c| c.is_control()) {
        Some(c) => Err(Error::Experiment(format!(
            "{what} {value:?} holds the control character {c:?}: it cannot be written into a \
             job script; rename it"
        ))),
        None => Ok(()),
    }
}

/// The logs folder for `#SBATCH --output`, which sbatch reads itself (no shell quoting, `%` a
/// pattern): letters, digits and `/._-+,:@=~` only, else an error naming the output folder.
fn log_path(logs: &Path) -> Result<String> {
    let text = logs.display().to_string();
    let ok = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@=~".contains(c));
    if ok {
        return Ok(text);
    }
    Err(Error::Experiment(format!(
        "the scripts' log folder {text:?} has a character an #SBATCH line cannot carry (a space, \
         a quote, `%`, `$` or a non-ASCII letter): the folder is OUT/slurm/SPEC/PROFILE, so \
         give --out-dir a folder, and the spec and profile names, with only letters, digits and \
         /._-+,:@=~"
    )))
}

/// `text` as one word for the shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).map_err(|e| Error::io(path, e))
}

impl SlurmOptions {
    fn check(&self) -> Result<()> {
        Shard::new(1, self.shards)
            .map_err(|e| Error::Experiment(format!("--shards {}: {e}", self.shards)))?;
        if self.throttle == Some(0) || self.cpus == 0 || self.cpus > 1024 {
            return Err(Error::Experiment(format!(
                "--throttle and --cpus must be positive (--cpus at most 1024): got {:?} and {}",
                self.throttle, self.cpus
            )));
        }
        Ok(())
    }

    /// The `#SBATCH` lines both jobs share.
    fn common_lines(&self) -> Result<String> {
        let mut lines = String::new();
        for (flag, value) in [
            ("partition", &self.partition),
            ("time", &self.time),
            ("mem", &self.mem),
        ] {
            if let Some(value) = value {
                let _ = writeln!(lines, "#SBATCH --{flag}={}", sbatch_value(flag, value)?);
            }
        }
        Ok(lines)
    }
}

/// The registry datasets the plan's cells load (synthetic sources need no fetching; a spec's
/// own `[[dataset]]` tables are loaded by the run itself).
fn registry_datasets(plan: &Plan, root: &Path) -> Vec<String> {
    let shared = rfbench_data::Registry::from_file(&root.join("datasets.toml")).ok();
    let mut names: Vec<String> = plan
        .cells
        .iter()
        .filter(|c| matches!(c.source, DatasetSource::Registry))
        .map(|c| c.dataset.clone())
        .filter(|name| shared.as_ref().is_some_and(|r| r.get(name).is_ok()))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// What both scripts say the same way.
struct Shared {
    /// `SPEC/PROFILE`, in comments.
    label: String,
    /// `SPEC.PROFILE`, in job names.
    job: String,
    /// `results/SPEC/PROFILE.csv`, what the merge writes.
    csv: String,
    /// `'BINARY' --root 'ROOT'`.
    rfbench: String,
    /// The spec (a name, or a path made absolute), `--profile P`, `--out-dir 'OUT'`.
    arguments: String,
    environment: String,
    sbatch_lines: String,
    /// The logs folder, checked for `#SBATCH --output` ([`log_path`]).
    logs: String,
}

/// Writes the array and merge scripts of `spec` under `profile` to `OUT/slurm/SPEC/PROFILE/`, running
/// `binary` (this executable) with the caller's root, output folder and dataset cache.
pub fn write(
    spec: &str,
    profile: &Profile,
    run: &RunOptions,
    slurm: &SlurmOptions,
    binary: &Path,
) -> Result<Scripts> {
    slurm.check()?;
    let plan = load_plan(&run.root, spec, profile)?;
    let out_dir = absolute(&run.out_dir)?;
    let files = plan.files(&out_dir);
    let dir = files.slurm_dir();
    let logs = dir.join("logs");
    let logs_text = log_path(&logs)?;
    let spec_arg = if spec.ends_with(".toml") || spec.contains('/') {
        absolute(Path::new(spec))?.display().to_string()
    } else {
        spec.to_string()
    };
    let binary = absolute(binary)?.display().to_string();
    let root = absolute(&run.root)?.display().to_string();
    for (what, value) in [
        ("the spec", spec_arg.as_str()),
        ("the profile", profile.name()),
        ("the output folder", &out_dir.display().to_string()),
        ("the root", &root),
        ("this executable's path", &binary),
    ] {
        no_control(what, value)?;
    }
    let shared = Shared {
        rfbench: format!("{} --root {}", quote(&binary), quote(&root)),
        arguments: format!(
            "{} --profile {} --out-dir {}",
            quote(&spec_arg),
            quote(profile.name()),
            quote(&out_dir.display().to_string())
        ),
        environment: environment(run)?,
        sbatch_lines: slurm.common_lines()?,
        logs: logs_text,
        label: name_word(&files.label()),
        job: name_word(&format!("{}.{}", plan.name, profile.name())),
        csv: name_word(&files.csv_relative()),
    };
    std::fs::create_dir_all(&logs).map_err(|e| Error::io(&logs, e))?;
    let datasets = registry_datasets(&plan, &run.root);
    let (array, merge) = (dir.join("array.sbatch"), dir.join("merge.sbatch"));
    for (path, text) in [
        (&array, array_script(&shared, slurm, &datasets)),
        (&merge, merge_script(&shared, slurm)),
    ] {
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
    }
    let prefix = env_prefix(&shared.environment);
    let mut commands: Vec<String> = datasets
        .iter()
        .map(|name| format!("{prefix}{} datasets fetch {}", shared.rfbench, quote(name)))
        .collect();
    commands.push(format!(
        "array=$(sbatch --parsable {} | cut -d';' -f1)",
        quote(&array.display().to_string())
    ));
    commands.push(format!(
        "sbatch --parsable --dependency=afterok:$array {}",
        quote(&merge.display().to_string())
    ));
    Ok(Scripts {
        dir,
        array,
        merge,
        datasets,
        commands,
    })
}

/// The job array: one `reproduce --resume` per task, its shard from SLURM's array variables.
fn array_script(shared: &Shared, slurm: &SlurmOptions, datasets: &[String]) -> String {
    let Shared {
        label,
        job,
        rfbench,
        ..
    } = shared;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "#!/bin/bash\n# {label}: the runs in {} shards, as a job array (shard I is task I). \
         Written by\n# `rfbench slurm`; the merge job (merge.sbatch) runs when every task has \
         succeeded.",
        slurm.shards
    );
    let _ = writeln!(text, "#SBATCH --job-name=rfbench-{job}");
    let throttle = slurm.throttle.map_or(String::new(), |k| format!("%{k}"));
    let _ = writeln!(text, "#SBATCH --array=1-{}{throttle}", slurm.shards);
    let _ = writeln!(text, "#SBATCH --cpus-per-task={}", slurm.cpus);
    let _ = writeln!(text, "#SBATCH --output={}/shard-%a.out", shared.logs);
    // A requeued or resubmitted task adds to its log instead of replacing it.
    let _ = writeln!(text, "#SBATCH --open-mode=append");
    text.push_str(&shared.sbatch_lines);
    let _ = writeln!(text, "set -euo pipefail\n{}", shared.environment);
    let _ = writeln!(
        text,
        "# The datasets, in the shared cache: fetched before submitting; a task only verifies \
         them."
    );
    for name in datasets {
        let _ = writeln!(
            text,
            "{rfbench} datasets fetch {0} > /dev/null || echo \"rfbench: dataset\" {0} \"cannot be \
             had here: its cells are skipped\" >&2",
            quote(name)
        );
    }
    let _ = writeln!(
        text,
        "# Task I runs shard I of {0}: the count is written here, not read from SLURM, so \
         `sbatch --array=I`\n# or `scontrol requeue` reruns exactly shard I, and --resume keeps \
         the runs it finished.",
        slurm.shards
    );
    let _ = writeln!(
        text,
        "exec {rfbench} --threads \"${{SLURM_CPUS_PER_TASK:-{}}}\" reproduce {} --shard \
         \"${{SLURM_ARRAY_TASK_ID:?run this script as a task of a job array}}/{}\" --resume",
        slurm.cpus, shared.arguments, slurm.shards
    );
    text
}

/// The merge job: `rfbench merge` of the N shards.
fn merge_script(shared: &Shared, slurm: &SlurmOptions) -> String {
    let Shared {
        label,
        job,
        csv,
        rfbench,
        ..
    } = shared;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "#!/bin/bash\n# {label}: the {} shards merged into {csv}, its figures and \
         report.\n# Written by `rfbench slurm`; submitted with --dependency=afterok on the array.",
        slurm.shards
    );
    let _ = writeln!(text, "#SBATCH --job-name=rfbench-{job}-merge");
    let _ = writeln!(text, "#SBATCH --cpus-per-task=1");
    let _ = writeln!(text, "#SBATCH --output={}/merge.out", shared.logs);
    text.push_str(&shared.sbatch_lines);
    let _ = writeln!(text, "set -euo pipefail\n{}", shared.environment);
    let _ = writeln!(
        text,
        "exec {rfbench} merge {} --shards {}",
        shared.arguments, slurm.shards
    );
    text
}

/// The `export` lines giving the tasks the caller's dataset cache and mirrors (absolute: the
/// tasks start in another directory).
fn environment(run: &RunOptions) -> Result<String> {
    let cache = absolute(&run.fetch.cache_dir)?.display().to_string();
    no_control("the dataset cache", &cache)?;
    let mut text = format!("export RFBENCH_CACHE={}\n", quote(&cache));
    if !run.fetch.mirrors.is_empty() {
        let mirrors = run
            .fetch
            .mirrors
            .iter()
            .map(|m| absolute(m).map(|m| m.display().to_string()))
            .collect::<Result<Vec<_>>>()?;
        no_control("RFBENCH_MIRROR", &mirrors.join(":"))?;
        let _ = writeln!(text, "export RFBENCH_MIRROR={}", quote(&mirrors.join(":")));
    }
    Ok(text)
}

/// The `export` lines as a prefix of a command line (`RFBENCH_CACHE=... `).
fn env_prefix(environment: &str) -> String {
    environment
        .lines()
        .map(|l| l.trim_start_matches("export ").to_string() + " ")
        .collect()
}

/// The job ids of a submitted run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    pub array: String,
    pub merge: String,
}

/// Fetches the datasets here, then submits the array and the merge job with `sbatch`.
pub fn submit(scripts: &Scripts, run: &RunOptions) -> Result<Submitted> {
    let registry = rfbench_data::Registry::from_file(&run.root.join("datasets.toml"))?;
    for name in &scripts.datasets {
        match rfbench_data::load_report(registry.get(name)?, &run.fetch) {
            Ok(_) => {}
            // Data this machine cannot get: its cells are skipped, as in any run.
            Err(e @ (DataError::Download { .. } | DataError::NoSource { .. })) => {
                eprintln!("warning: dataset {name}: {e}; its cells will be skipped")
            }
            Err(e) => return Err(e.into()),
        }
    }
    let array = sbatch(&[scripts.array.as_os_str()])?;
    let dependency = format!("--dependency=afterok:{array}");
    let merge = sbatch(&[dependency.as_ref(), scripts.merge.as_os_str()])?;
    Ok(Submitted { array, merge })
}

/// `sbatch --parsable ARGS`: the job id it prints.
fn sbatch(args: &[&std::ffi::OsStr]) -> Result<String> {
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
            "sbatch {:?} failed ({}): {}",
            args,
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(id)
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
        assert_eq!(quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn nonsense_sizes_are_refused() {
        let options = |shards, throttle, cpus| SlurmOptions {
            shards,
            throttle,
            partition: None,
            time: None,
            mem: None,
            cpus,
        };
        assert!(options(3, Some(2), 2).check().is_ok());
        for bad in [
            options(0, None, 1),
            options(MAX_SHARDS + 1, None, 1),
            options(3, Some(0), 1),
            options(3, None, 0),
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }
}
