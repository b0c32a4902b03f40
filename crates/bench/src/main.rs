//! `rfbench`: the command line. `main` only turns `run()`'s error into an exit code.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use rfbench::check::Mode;
use rfbench::data;
use rfbench::registry;
use rfbench::run::{self, Progress, RunOptions};
use rfbench::spec::{list_experiments, Profile};
#[derive(Parser)]
#[command(
    name = "rfbench",
    version,
    about = "Reproduce random-feature kernel approximation experiments from TOML specs"
)]
struct Cli {
    /// Workspace root holding experiments/, datasets.toml, results/ and figures/.
    #[arg(long, global = true, default_value = ".")]
    root: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// Refuse a spec when one of its cells is estimated to need more memory than this many GB
    /// (default: this machine's memory).
    #[arg(long, global = true, value_name = "GB")]
    memory_limit: Option<f64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the experiment specs.
    List,
    /// Run experiments/NAME.toml: results/NAME.csv, figures, tables and a report.
    Reproduce {
        name: String,
        /// Run the spec's small [profiles.quick] (writes NAME.quick.csv / .png).
        #[arg(long)]
        quick: bool,
        /// Override the spec's master seed (then --out-dir is required: the committed
        /// results are only replaced when asked, with --out-dir .).
        #[arg(long)]
        master_seed: Option<u64>,
        /// Write results/ and figures/ under this directory instead of the root.
        #[arg(long)]
        out_dir: Option<PathBuf>,
    },
    /// Redraw NAME's figures, tables and report from its committed results/NAME.csv (no run).
    Render {
        name: String,
        #[arg(long)]
        quick: bool,
    },
    /// Regenerate NAME in a temporary directory and compare with the committed results/.
    Check {
        name: String,
        #[arg(long)]
        quick: bool,
        /// Regenerate with another master seed: a statistical test instead of an exact one.
        #[arg(long)]
        master_seed: Option<u64>,
    },
    /// The feature maps a spec can name, with their parameters.
    Maps,
    /// The learners a spec can name, with their parameters.
    Learners,
    /// The kernels and synthetic datasets a spec can name, with their parameters.
    Kernels,
    /// Print the generated part of docs/spec.md (every kind, map, learner, kernel, generator).
    Reference,
    /// Datasets of the registry (datasets.toml).
    Datasets {
        #[command(subcommand)]
        command: DatasetsCommand,
    },
}

#[derive(Subcommand)]
enum DatasetsCommand {
    /// List the registry's datasets.
    List,
    /// Download (or find in RFBENCH_MIRROR) and verify a dataset's files, then parse them
    /// into the binary cache.
    Fetch { name: String },
    /// Check the files already on this machine against their pinned or locked digests,
    /// downloading nothing (all datasets, or NAME).
    Verify { name: Option<String> },
    /// Load a dataset and print n, d, density, class balance and where its files are.
    Info { name: String },
}

fn profile(quick: bool) -> Profile {
    if quick {
        Profile::Quick
    } else {
        Profile::Full
    }
}

/// Runs the command and returns what it prints on standard output.
fn run() -> anyhow::Result<String> {
    let cli = Cli::parse();
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("configuring the thread pool")?;
    }
    let memory_limit = match cli.memory_limit {
        Some(gb) if gb.is_finite() && gb > 0.0 => Some((gb * 1e9) as u64),
        Some(gb) => bail!("--memory-limit must be a positive number of GB, got {gb}"),
        None => None,
    };
    let options = |master_seed, out_dir: Option<PathBuf>| RunOptions {
        root: cli.root.clone(),
        out_dir: out_dir.unwrap_or_else(|| cli.root.clone()),
        master_seed,
        progress: Progress::detect(),
        fetch: data::FetchOptions::from_env(),
        memory_limit,
    };
    let mut out = String::new();
    match &cli.command {
        Command::List => {
            for name in list_experiments(&cli.root)? {
                let _ = writeln!(out, "{name}");
            }
        }
        Command::Maps => out = registry::describe_maps(),
        Command::Learners => out = registry::describe_learners(),
        Command::Kernels => out = registry::describe_kernels(),
        Command::Reference => out = registry::reference_markdown(),
        Command::Render { name, quick } => {
            let rendered = run::render(name, profile(*quick), &options(None, None))
                .with_context(|| format!("rendering {name}"))?;
            let _ = writeln!(out, "{}", rendered.report);
            for path in rendered.figures.iter().chain(&rendered.tables) {
                let _ = writeln!(out, "wrote {}", path.display());
            }
        }
        Command::Reproduce {
            name,
            quick,
            master_seed,
            out_dir,
        } => {
            if master_seed.is_some() && out_dir.is_none() {
                bail!(
                    "--master-seed {}: give --out-dir DIR for the results of another seed \
                     (--out-dir . replaces the committed ones)",
                    master_seed.unwrap_or_default()
                );
            }
            let outcome = run::reproduce(
                name,
                profile(*quick),
                &options(*master_seed, out_dir.clone()),
            )
            .with_context(|| format!("reproducing {name}"))?;
            for warning in &outcome.warnings {
                eprintln!("warning: {warning}");
            }
            let _ = writeln!(out, "{}: {}", outcome.plan.name, outcome.plan.title);
            let _ = writeln!(out, "{}", outcome.rendered.report);
            let _ = writeln!(out, "wrote {}", outcome.csv.display());
            for path in outcome
                .rendered
                .figures
                .iter()
                .chain(&outcome.rendered.tables)
            {
                let _ = writeln!(out, "wrote {}", path.display());
            }
            let _ = writeln!(
                out,
                "{} cells, {} runs (repetitions: {}) ({} skipped) in {:.1} s on {} threads",
                outcome.plan.cells.len(),
                outcome
                    .plan
                    .cells
                    .iter()
                    .map(|c| c.repetitions)
                    .sum::<usize>(),
                outcome.plan.repetitions,
                outcome.skipped,
                outcome.seconds,
                rayon::current_num_threads()
            );
        }
        Command::Check {
            name,
            quick,
            master_seed,
        } => {
            let (report, outcome) = run::check(name, profile(*quick), &options(*master_seed, None))
                .with_context(|| format!("checking {name}"))?;
            let profile_name = profile(*quick).name();
            let mode = match report.mode {
                Mode::SameSeed { rtol } => format!("same seed: exact, rtol {rtol}"),
                Mode::OtherSeed {
                    false_alarm,
                    comparisons,
                    single_run,
                } => format!(
                    "other seed: t tests, false-alarm probability {false_alarm} over the file \
                     (Bonferroni over {comparisons} comparisons; {single_run} values of cells \
                     run once not tested)"
                ),
            };
            for f in &report.failures {
                eprintln!("FAIL {} [{}]: {}", f.column, f.cell, f.detail);
            }
            if !report.passed() {
                bail!(
                    "{name} [{profile_name}]: {} failure(s) in {} comparisons ({mode})",
                    report.failures.len(),
                    report.compared
                );
            }
            let _ = writeln!(
                out,
                "{name} [{profile_name}]: {} comparisons pass ({mode}), regenerated in {:.1} s",
                report.compared, outcome.seconds
            );
        }
        Command::Datasets { command } => {
            let registry = data::Registry::from_file(&cli.root.join("datasets.toml"))?;
            let fetch = data::FetchOptions::from_env();
            match command {
                DatasetsCommand::List => {
                    for e in registry.entries() {
                        let pinned = e.files.iter().filter(|f| f.sha256.is_some()).count();
                        let _ = writeln!(
                            out,
                            "{:<26} {:<10} n = {:>8}  d = {:>5}  sha256 pinned {pinned}/{}  {}",
                            e.name,
                            format!("{:?}", e.task).to_lowercase(),
                            e.n,
                            e.d,
                            e.files.len(),
                            e.description
                        );
                    }
                }
                DatasetsCommand::Fetch { name } => {
                    let loaded = data::load_report(registry.get(name)?, &fetch)?;
                    for s in &loaded.sources {
                        let _ = writeln!(out, "{}  {}", s.sha256, s.path.display());
                    }
                    let _ = writeln!(out, "parsed: {}", loaded.cache.display());
                }
                DatasetsCommand::Verify { name } => {
                    let entries: Vec<_> = match name {
                        Some(name) => vec![registry.get(name)?],
                        None => registry.entries().iter().collect(),
                    };
                    let mut bad = 0;
                    for e in entries {
                        for (f, status) in e.files.iter().zip(data::verify(e, &fetch)?) {
                            let line = match status {
                                data::FileStatus::Verified { path } => {
                                    format!("ok        {}", path.display())
                                }
                                data::FileStatus::Unlocked { path, sha256 } => {
                                    format!("unlocked  {} (sha256 {sha256})", path.display())
                                }
                                data::FileStatus::Mismatch {
                                    path,
                                    expected,
                                    actual,
                                } => {
                                    bad += 1;
                                    format!(
                                        "MISMATCH  {}: expected {expected}, found {actual}",
                                        path.display()
                                    )
                                }
                                data::FileStatus::Missing => "missing".to_string(),
                            };
                            let _ = writeln!(out, "{:<26} {:<40} {line}", e.name, f.file);
                        }
                    }
                    if bad > 0 {
                        bail!("{bad} file(s) do not match their digest");
                    }
                }
                DatasetsCommand::Info { name } => {
                    let entry = registry.get(name)?;
                    let start = std::time::Instant::now();
                    let loaded = data::load_report(entry, &fetch)?;
                    let seconds = start.elapsed().as_secs_f64();
                    let s = loaded.dataset.summary();
                    let _ = writeln!(out, "{}: {}", entry.name, entry.description);
                    let _ = writeln!(
                        out,
                        "n = {} ({} train, {} test), d = {}, non-zeros = {}, density = {:.4}",
                        s.n,
                        s.n_train,
                        s.n - s.n_train,
                        s.d,
                        s.nnz,
                        s.density
                    );
                    match &s.classes {
                        Some(classes) if entry.task != data::Task::Regression => {
                            let parts: Vec<String> = classes
                                .iter()
                                .map(|(label, count)| {
                                    format!(
                                        "{label}: {count} ({:.1}%)",
                                        100.0 * *count as f64 / s.n as f64
                                    )
                                })
                                .collect();
                            let _ = writeln!(out, "classes: {}", parts.join(", "));
                        }
                        _ => {
                            let _ = writeln!(
                                out,
                                "target range: [{}, {}]",
                                s.label_range.0, s.label_range.1
                            );
                        }
                    }
                    for src in &loaded.sources {
                        let _ = writeln!(out, "source: {}  {}", src.sha256, src.path.display());
                    }
                    let _ = writeln!(
                        out,
                        "parsed cache: {} ({} in {:.2} s)",
                        loaded.cache.display(),
                        if loaded.from_cache { "read" } else { "written" },
                        seconds
                    );
                    let _ = writeln!(
                        out,
                        "lock file: {}",
                        data::lock_path(entry, &fetch).display()
                    );
                }
            }
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    match run() {
        Ok(text) => {
            // A closed pipe (`rfbench datasets list | head -1`) is the reader's choice, not an
            // error.
            match std::io::stdout().lock().write_all(text.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("error: writing to standard output: {e}");
                    ExitCode::FAILURE
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("error: {}", message(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes, joined by ": ", each cause once: our errors already name their
/// source (an OS error) in their own text, which the chain would otherwise print a second time.
fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_os_error_is_printed_once() {
        let io = std::io::Error::from_raw_os_error(21);
        let e = anyhow::Error::new(rfbench::error::Error::io(
            std::path::Path::new("./datasets.toml"),
            io,
        ))
        .context("reproducing x");
        let text = message(&e);
        assert_eq!(text.matches("os error 21").count(), 1, "{text}");
        assert!(
            text.starts_with("reproducing x: ./datasets.toml: "),
            "{text}"
        );
    }
}
