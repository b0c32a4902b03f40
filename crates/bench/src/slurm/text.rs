//! The text of the two sbatch scripts, and the quoting that keeps what they carry inert: a
//! value the shell reads is single-quoted, a name in a comment or job name is reduced to plain
//! characters, and nothing may hold a control character (a newline would end the line and run
//! the rest). Option values sbatch reads itself are checked in [`super::options`].

use std::fmt::Write as _;
use std::path::Path;

use super::options::SlurmOptions;
use crate::error::{Error, Result};

/// What both scripts say the same way.
pub(super) struct Shared {
    /// `SPEC/PROFILE`, in comments.
    pub label: String,
    /// `SPEC.PROFILE`, in job names.
    pub job: String,
    /// `OUT/results/SPEC/PROFILE.csv` (absolute), what the merge writes.
    pub csv: String,
    /// `'BINARY' --root 'ROOT'`.
    pub rfbench: String,
    /// The spec (a name, or a path made absolute), `--profile P`, `--out-dir 'OUT'`.
    pub arguments: String,
    pub environment: String,
    /// The `#SBATCH` lines both jobs share.
    pub sbatch_lines: String,
    /// The logs folder, checked for `#SBATCH --output` ([`log_path`]).
    pub logs: String,
}

/// `text` for a comment or an `#SBATCH --job-name`: every character but letters, digits and
/// `._-` becomes `_`, so no name can end the line or split the value.
pub(super) fn name_word(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_ascii_alphanumeric() || "._-".contains(c) {
            true => c,
            false => '_',
        })
        .collect()
}

/// `path` for a comment: as `name_word`, but its `/` kept, so that the comment names a path
/// that exists (the output folder is absolute in the scripts).
pub(super) fn comment_path(path: &Path) -> String {
    path.display()
        .to_string()
        .split('/')
        .map(name_word)
        .collect::<Vec<_>>()
        .join("/")
}

/// Refuses a value with a control character (a newline ends a script's line: the rest would run
/// as a command); `what` names it in the message. Everything else is quoted where written.
pub(super) fn no_control(what: &str, value: &str) -> Result<()> {
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
pub(super) fn log_path(logs: &Path) -> Result<String> {
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
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The job array: one `reproduce --resume` per task, its shard I from the task id and N written
/// in.
pub(super) fn array_script(shared: &Shared, slurm: &SlurmOptions, datasets: &[String]) -> String {
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
         ended.",
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
    text.push_str(&slurm.task_lines());
    let _ = writeln!(text, "set -euo pipefail\n{}", shared.environment);
    let _ = writeln!(
        text,
        "# BLAS (OpenBLAS, OpenMP) uses the task's CPUs, not every core of the node.\nexport \
         OPENBLAS_NUM_THREADS=\"${{SLURM_CPUS_PER_TASK:-{0}}}\" \
         OMP_NUM_THREADS=\"${{SLURM_CPUS_PER_TASK:-{0}}}\"",
        slurm.cpus
    );
    let _ = writeln!(
        text,
        "# The datasets, in the shared cache: fetched before submitting; a task only verifies \
         them."
    );
    for name in datasets {
        let _ = writeln!(
            text,
            "{rfbench} datasets fetch {0} > /dev/null || echo \"rfbench: dataset\" {0} \"cannot be \
             had here: its cells are skipped, and the shard fails\" >&2",
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
    let allow = if slurm.allow_skipped {
        " --allow-skipped"
    } else {
        ""
    };
    let clean = if slurm.require_clean {
        " --require-clean"
    } else {
        ""
    };
    let command = format!(
        "{rfbench} --threads \"${{SLURM_CPUS_PER_TASK:-{}}}\" reproduce {} --shard \
         \"${{SLURM_ARRAY_TASK_ID:?run this script as a task of a job array}}/{}\" \
         --resume{allow}{clean}",
        slurm.cpus, shared.arguments, slurm.shards
    );
    text.push_str(&run_line(&command, slurm.retries));
    text
}

/// The line that runs the shard: `exec` it, or, with retries, run it so that the signal SLURM
/// sends before the time limit requeues the task (up to `retries` times, counted by SLURM's
/// `SLURM_RESTART_COUNT`); a requeued task resumes its saved runs.
fn run_line(command: &str, retries: usize) -> String {
    if retries == 0 {
        return format!("exec {command}\n");
    }
    format!(
        "# Near the time limit SLURM sends USR1 (--signal above): requeue this task, at most \
         {retries} time(s).\n\
         requeue() {{\n    if [ \"${{SLURM_RESTART_COUNT:-0}}\" -lt {retries} ]; then\n        \
         echo \"rfbench: time limit near: requeueing this task (retry \
         $(( ${{SLURM_RESTART_COUNT:-0}} + 1 )) of {retries})\" >&2\n        \
         scontrol requeue \"${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}\"\n    fi\n}}\n\
         trap requeue USR1\n{command} &\npid=$!\n\
         # `wait` returns early when the signal arrives: wait again while the run is alive.\n\
         while true; do\n    wait \"$pid\" && status=0 || status=$?\n    \
         kill -0 \"$pid\" 2> /dev/null || exit \"$status\"\ndone\n"
    )
}

/// The merge job: `rfbench merge` of the N shards, which refuses (exit 1, writing nothing and
/// keeping the shards) when a shard failed; the log then says how to see and repair it.
pub(super) fn merge_script(shared: &Shared, slurm: &SlurmOptions) -> String {
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
         report.\n# Written by `rfbench slurm`; submitted with --dependency=afterany on the \
         array, so it\n# runs whether the tasks succeeded or not, and refuses to merge a \
         failed or missing shard.",
        slurm.shards
    );
    let _ = writeln!(text, "#SBATCH --job-name=rfbench-{job}-merge");
    let _ = writeln!(text, "#SBATCH --cpus-per-task=1");
    let _ = writeln!(text, "#SBATCH --output={}/merge.out", shared.logs);
    let _ = writeln!(text, "#SBATCH --open-mode=append");
    text.push_str(&shared.sbatch_lines);
    let _ = writeln!(text, "set -uo pipefail\n{}", shared.environment);
    let allow = if slurm.allow_skipped {
        " --allow-skipped"
    } else {
        ""
    };
    let _ = writeln!(
        text,
        "{rfbench} merge {} --shards {}{allow} && exit 0\n\
         echo \"rfbench: the merge was refused (above). What ran, what failed and the command \
         that repairs it:\" >&2\n\
         {rfbench} status {} >&2\nexit 1",
        shared.arguments, slurm.shards, shared.arguments
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_keep_a_word_whole() {
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(name_word("a b/$(c)"), "a_b___c_");
        assert!(no_control("x", "a\nb").is_err());
    }
}
