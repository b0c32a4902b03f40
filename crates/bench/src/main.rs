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
    /// Download (or find in RFBENCH_MIRROR) and verify a dataset's files.
    Fetch { name: String },
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
            match command {
                DatasetsCommand::List => {
                    for e in registry.entries() {
                        println!(
                            "{:<12} n = {:>8}  d = {:>6}  {}",
                            e.name, e.n, e.d, e.description
                        );
                    }
                }
                DatasetsCommand::Fetch { name } => {
                    let paths = data::fetch(registry.get(name)?, &data::FetchOptions::from_env())?;
                    for p in paths {
                        println!("{}", p.display());
                    }
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
