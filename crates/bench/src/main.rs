//! `rfbench`: the command line. `main` only turns `run()`'s error into an exit code.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use rfbench::data;
use rfbench::run::{self, RunOptions};
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
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the experiment specs.
    List,
    /// Run experiments/NAME.toml: results/NAME.csv, figures/NAME.png and a report.
    Reproduce {
        name: String,
        /// Run the spec's small [profiles.quick] (writes NAME.quick.csv / .png).
        #[arg(long)]
        quick: bool,
        /// Override the spec's master seed.
        #[arg(long)]
        master_seed: Option<u64>,
    },
    /// Regenerate NAME in a temporary directory and compare with the committed results/.
    Check {
        name: String,
        #[arg(long)]
        quick: bool,
        /// Regenerate with another master seed: tests agreement within the statistical tolerance.
        #[arg(long)]
        master_seed: Option<u64>,
    },
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

fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("configuring the thread pool")?;
    }
    let options = |master_seed| RunOptions {
        root: cli.root.clone(),
        out_dir: cli.root.clone(),
        master_seed,
        progress: std::io::stderr().is_terminal(),
        fetch: data::FetchOptions::from_env(),
    };
    match &cli.command {
        Command::List => {
            for name in list_experiments(&cli.root)? {
                println!("{name}");
            }
        }
        Command::Reproduce {
            name,
            quick,
            master_seed,
        } => {
            let outcome = run::reproduce(name, profile(*quick), &options(*master_seed))
                .with_context(|| format!("reproducing {name}"))?;
            println!("{}: {}", outcome.plan.name, outcome.plan.title);
            println!("{}", outcome.report);
            println!(
                "wrote {} and {}",
                outcome.csv.display(),
                outcome.figure.display()
            );
            println!(
                "finished in {:.1} s on {} threads",
                outcome.seconds,
                rayon::current_num_threads()
            );
        }
        Command::Check {
            name,
            quick,
            master_seed,
        } => {
            let (report, outcome) = run::check(name, profile(*quick), &options(*master_seed))
                .with_context(|| format!("checking {name}"))?;
            let failures: Vec<_> = report.failures().collect();
            for f in &failures {
                let got = f
                    .regenerated
                    .map(|v| format!("{v:.6}"))
                    .unwrap_or_else(|| "missing".into());
                eprintln!(
                    "FAIL {} {} p={} c={} D={}: reference {:.6}, regenerated {got}, tolerance {:.6}",
                    f.column, f.key.map, f.key.degree, f.key.offset, f.key.n_components, f.reference, f.tolerance
                );
            }
            let profile_name = profile(*quick).name();
            if !failures.is_empty() {
                bail!(
                    "{name} [{profile_name}]: {} of {} comparisons outside tolerance",
                    failures.len(),
                    report.rows.len()
                );
            }
            println!(
                "{name} [{profile_name}]: {} comparisons within tolerance (z = {}), regenerated in {:.1} s",
                report.rows.len(),
                outcome.plan.check_z,
                outcome.seconds
            );
        }
        Command::Datasets { command } => {
            let registry = data::Registry::from_file(&cli.root.join("datasets.toml"))?;
            let fetch = data::FetchOptions::from_env();
            match command {
                DatasetsCommand::List => {
                    for e in registry.entries() {
                        let pinned = e.files.iter().filter(|f| f.sha256.is_some()).count();
                        println!(
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
                        println!("{}  {}", s.sha256, s.path.display());
                    }
                    println!("parsed: {}", loaded.cache.display());
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
                            println!("{:<26} {:<40} {line}", e.name, f.file);
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
                    println!("{}: {}", entry.name, entry.description);
                    println!(
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
                            println!("classes: {}", parts.join(", "));
                        }
                        _ => println!("target range: [{}, {}]", s.label_range.0, s.label_range.1),
                    }
                    for src in &loaded.sources {
                        println!("source: {}  {}", src.sha256, src.path.display());
                    }
                    println!(
                        "parsed cache: {} ({} in {:.2} s)",
                        loaded.cache.display(),
                        if loaded.from_cache { "read" } else { "written" },
                        seconds
                    );
                    println!("lock file: {}", data::lock_path(entry, &fetch).display());
                }
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
