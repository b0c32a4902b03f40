//! Writing the two scripts of a spec under `slurm/SPEC/PROFILE/` of the output folder, and the
//! commands that submit them by hand.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::options::SlurmOptions;
use super::text::{self, comment_path, log_path, name_word, no_control, quote, Shared};
use crate::error::{Error, Result};
use crate::run::RunOptions;
use crate::spec::{load_plan, DatasetSource, Plan, Profile};

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

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).map_err(|e| Error::io(path, e))
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
        csv: comment_path(&files.csv()),
    };
    std::fs::create_dir_all(&logs).map_err(|e| Error::io(&logs, e))?;
    let datasets = registry_datasets(&plan, &run.root);
    let (array, merge) = (dir.join("array.sbatch"), dir.join("merge.sbatch"));
    for (path, text) in [
        (&array, text::array_script(&shared, slurm, &datasets)),
        (&merge, text::merge_script(&shared, slurm)),
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
        "sbatch --parsable --dependency=afterany:$array {}",
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
