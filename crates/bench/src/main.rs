//! `rfbench`: the command line. `main` only turns `run()`'s error into an exit code.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use rfbench::check::Mode;
use rfbench::compare::CompareOptions;
use rfbench::run::{self, Progress, RunOptions};
use rfbench::shard::Shard;
use rfbench::slurm::SlurmOptions;
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

/// Which spec and which of its profiles: shared by `reproduce`, `render` and `check`.
#[derive(clap::Args)]
struct SpecArgs {
    /// The spec: NAME (experiments/NAME.toml) or a path to a spec file anywhere (its results
    /// then go beside it, in results/ and figures/ next to the file, unless --out-dir says
    /// otherwise).
    spec: String,
    /// Use the spec's [profiles.NAME] (written as NAME.PROFILE.csv / .png); `full`: the spec's
    /// own lists.
    #[arg(long, value_name = "NAME", conflicts_with = "quick")]
    profile: Option<String>,
    /// The CI profile: same as --profile quick.
    #[arg(long)]
    quick: bool,
}

impl SpecArgs {
    fn profile(&self) -> Profile {
        match (&self.profile, self.quick) {
            (Some(name), _) => Profile::parse(name),
            (None, true) => Profile::quick(),
            (None, false) => Profile::Full,
        }
    }

    /// The folder holding the spec's results/ and figures/: `--out-dir`, the folder of a spec
    /// given by path, or the root.
    fn out_dir(&self, root: &Path, out_dir: Option<&PathBuf>) -> PathBuf {
        if let Some(dir) = out_dir {
            return dir.clone();
        }
        let path = Path::new(&self.spec);
        let is_path = self.spec.ends_with(".toml") || self.spec.contains('/');
        // A spec of the root's experiments/ named by its path is the same run as by its name.
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        match path.parent() {
            Some(parent) if is_path && same(parent, &root.join("experiments")) => {
                root.to_path_buf()
            }
            Some(parent) if is_path && !parent.as_os_str().is_empty() => parent.to_path_buf(),
            Some(_) if is_path => PathBuf::from("."),
            _ => root.to_path_buf(),
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Which map, at what D, on this data: tune, estimate, sweep and recommend, in one command.
    Compare(CompareArgs),
    /// List the experiment specs.
    List,
    /// Run a spec: results/NAME/PROFILE.csv, figures, tables and a report.
    Reproduce {
        #[command(flatten)]
        spec: SpecArgs,
        /// Override the spec's master seed (then --out-dir is required: the committed
        /// results are only replaced when asked, with --out-dir .).
        #[arg(long)]
        master_seed: Option<u64>,
        /// Write results/ and figures/ under this directory instead of the root.
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Replace results even where cells that ran in them are skipped in this run (their
        /// data is missing here).
        #[arg(long)]
        allow_skipped: bool,
        /// Run shard I of N (I from 1): a deterministic share of the runs, written to
        /// results/NAME/PROFILE.shard-I-of-N.csv with a manifest, for `rfbench merge` (the
        /// scripts of `rfbench slurm` pass it; SLURM's variables are never read).
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Take the runs a killed run of the same spec (and shard) finished, from its
        /// results/NAME/.PROFILE.partial.csv, instead of running them again.
        #[arg(long)]
        resume: bool,
        /// Refuse to run unless the root is a clean git checkout (no change to a tracked file
        /// outside results/ and figures/), so every row names the commit that holds its code
        /// (`just reproduce-all` passes it).
        #[arg(long)]
        require_clean: bool,
    },
    /// Join the shards of a sharded run (results/NAME/PROFILE.shard-I-of-N.csv) into results/NAME/PROFILE.csv,
    /// then draw its figures, tables and report; refused unless every run is in exactly one
    /// shard and every shard ran the same spec, datasets and code.
    Merge {
        #[command(flatten)]
        spec: SpecArgs,
        /// The number of shards (default: the one count whose shards are present).
        #[arg(long, value_name = "N")]
        shards: Option<usize>,
        /// Read the shards from and write under this directory instead of the root.
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Replace results even where cells that ran in them are skipped in the shards.
        #[arg(long)]
        allow_skipped: bool,
    },
    /// Write a SLURM job array of N shards of a spec and a merge job that runs when they have
    /// all ended (slurm/NAME/PROFILE/array.sbatch and merge.sbatch), and print the commands that
    /// submit them; --submit fetches the datasets here and submits both; --resubmit-failed
    /// resubmits the shards that failed and a fresh merge.
    Slurm(SlurmArgs),
    /// Where a sharded run stands: per shard done / running / pending / failed / missing, rows
    /// saved of planned, skipped runs and why, job ids and logs, the merge, and the one command
    /// that repairs what is missing.
    Status {
        #[command(flatten)]
        spec: SpecArgs,
        /// The output folder the run writes to (default: the root).
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Block until no job of the run is queued, printing a line when the shards' states
        /// change, then print the status; fail unless the run is merged.
        #[arg(long)]
        wait: bool,
    },
    /// Redraw a spec's figures, tables and report from its results/NAME/PROFILE.csv (no run).
    Render {
        #[command(flatten)]
        spec: SpecArgs,
        /// Read results/ and write figures/ under this directory instead of the root.
        #[arg(long)]
        out_dir: Option<PathBuf>,
    },
    /// Replay a spec's committed results/NAME/PROFILE.csv through the runner's scheduler: each
    /// run's measured seconds started on N workers in the plan's order and longest first, against
    /// the bound no order beats (nothing runs).
    Schedule {
        #[command(flatten)]
        spec: SpecArgs,
        /// Worker counts to replay on.
        #[arg(long, value_delimiter = ',', default_value = "2,16,64")]
        workers: Vec<usize>,
    },
    /// Regenerate a spec in a temporary directory and compare with its committed results/.
    Check {
        #[command(flatten)]
        spec: SpecArgs,
        /// Regenerate with another master seed: a statistical test instead of an exact one.
        #[arg(long)]
        master_seed: Option<u64>,
        /// The directory holding the reference results/ (default: the root, or the folder of a
        /// spec given by path).
        #[arg(long)]
        out_dir: Option<PathBuf>,
    },
    /// Write the catalogue, results/README.md, from every spec's committed results.
    Report {
        /// Write nothing; fail when the committed catalogue is stale.
        #[arg(long)]
        check: bool,
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

/// `rfbench compare`'s arguments.
#[derive(clap::Args)]
struct CompareArgs {
    /// A registry dataset, or a data file: CSV/TSV/whitespace-separated text with or without a
    /// header row (the label last unless --label-column says otherwise), or LIBSVM; .gz .bz2
    /// .xz too.
    data: String,
    /// A test file with the same columns (else every repetition draws a new train/test split).
    #[arg(long, value_name = "FILE")]
    test: Option<PathBuf>,
    /// The test share of the split drawn in every repetition (data without test rows).
    #[arg(long, default_value_t = 0.25, value_name = "F")]
    test_size: f64,
    /// The kernel to approximate: gaussian, laplacian, matern, polynomial.
    #[arg(long, default_value = "gaussian")]
    kernel: String,
    /// The polynomial kernel's degree.
    #[arg(long, default_value_t = 2)]
    degree: u32,
    /// Only these maps (comma-separated; default: every map of the registry for the kernel,
    /// with the variants compare sweeps beside a map as series of their own: rff:phase is RFF's
    /// phase form, scikit-learn's RBFSampler, D frequencies where rff's paired form has D/2).
    /// E.g. --maps rff,rff:phase or --maps rff:phase.
    #[arg(long, value_delimiter = ',')]
    maps: Option<Vec<String>>,
    /// The top of the ladder of D (64, 128, ... doubling up to it).
    #[arg(long, default_value_t = 4096, value_name = "D")]
    max_components: usize,
    /// A bandwidth, instead of 0.25-4 times the median distance chosen by cross-validation.
    #[arg(long, value_name = "SIGMA", allow_hyphen_values = true)]
    sigma: Option<f64>,
    /// The learner on the features: linear-svm (classification's default) or ridge.
    #[arg(long)]
    learner: Option<String>,
    /// The time budget of the whole command: 90s, 10m, 1h (default 10m).
    #[arg(long, default_value = "10m", value_name = "DURATION")]
    budget: String,
    /// Where the specs, results, figures and report go.
    #[arg(long, default_value = "compare-out", value_name = "DIR")]
    out: PathBuf,
    /// Three values of D instead of the whole ladder (a first look).
    #[arg(long)]
    quick: bool,
    /// The label column: a 0-based index (negative from the end) or a header name.
    #[arg(long, value_name = "COLUMN", allow_hyphen_values = true)]
    label_column: Option<String>,
    /// binary, multiclass or regression, instead of what the labels suggest.
    #[arg(long)]
    task: Option<String>,
    /// Repetitions of every cell (new map draws, and a new split where the data has no test
    /// rows).
    #[arg(long, default_value_t = 3)]
    repetitions: usize,
    /// The master seed of every draw.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl CompareArgs {
    fn options(&self) -> anyhow::Result<CompareOptions> {
        let task = match self.task.as_deref() {
            None => None,
            Some("binary") => Some(rfbench_data::Task::Binary),
            Some("multiclass") => Some(rfbench_data::Task::Multiclass),
            Some("regression") => Some(rfbench_data::Task::Regression),
            Some(other) => bail!("--task {other}: binary, multiclass or regression"),
        };
        if self.max_components > MAX_COMPONENTS {
            bail!(
                "--max-components {}: at most {MAX_COMPONENTS} (2^20 features a row)",
                self.max_components
            );
        }
        if i64::try_from(self.seed).is_err() {
            bail!(
                "--seed {}: at most {} (a spec's integers are 64-bit signed)",
                self.seed,
                i64::MAX
            );
        }
        Ok(CompareOptions {
            data: self.data.clone(),
            test: self.test.clone(),
            test_size: self.test_size,
            kernel: self.kernel.clone(),
            degree: self.degree,
            maps: self.maps.clone(),
            max_components: self.max_components,
            sigma: self.sigma,
            learner: self.learner.clone(),
            budget: parse_duration(&self.budget)?,
            out: self.out.clone(),
            quick: self.quick,
            label_column: self.label_column.clone(),
            task,
            repetitions: self.repetitions,
            seed: self.seed,
        })
    }
}

/// The largest `--max-components`: beyond it the ladder's features would not fit a row.
const MAX_COMPONENTS: usize = 1 << 20;

/// The longest `--budget`: 30 days.
const MAX_BUDGET: f64 = 30.0 * 86_400.0;

/// Seconds of "90", "90s", "1e3", "10m", "1.5h".
/// `rfbench slurm`'s arguments.
#[derive(clap::Args)]
struct SlurmArgs {
    #[command(flatten)]
    spec: SpecArgs,
    /// The number of shards: array tasks (required but with --resubmit-failed, which takes the
    /// count submitted).
    #[arg(long, value_name = "N", required_unless_present = "resubmit_failed")]
    shards: Option<usize>,
    /// Run at most K tasks at once (--array=1-N%K).
    #[arg(long, value_name = "K")]
    throttle: Option<usize>,
    /// The partition (sbatch --partition).
    #[arg(long)]
    partition: Option<String>,
    /// Each task's time limit, as sbatch takes it (e.g. 2:00:00).
    #[arg(long)]
    time: Option<String>,
    /// Each task's memory, as sbatch takes it (e.g. 8G).
    #[arg(long)]
    mem: Option<String>,
    /// CPUs per task (rfbench's threads in the task, and its BLAS threads).
    #[arg(long, default_value_t = 1)]
    cpus: usize,
    /// The account to charge (sbatch --account).
    #[arg(long)]
    account: Option<String>,
    /// The quality of service (sbatch --qos).
    #[arg(long)]
    qos: Option<String>,
    /// Node features the tasks need (sbatch --constraint).
    #[arg(long)]
    constraint: Option<String>,
    /// Generic resources per task (sbatch --gres, e.g. gpu:1).
    #[arg(long)]
    gres: Option<String>,
    /// Any other sbatch option, one word (e.g. --sbatch-arg=--nice=10); repeatable; written
    /// into both scripts.
    #[arg(long = "sbatch-arg", value_name = "ARG", allow_hyphen_values = true)]
    sbatch_args: Vec<String>,
    /// Requeue a task up to K times when its time limit nears or its node fails; it resumes
    /// the runs it saved.
    #[arg(long, value_name = "K", default_value_t = 0)]
    retries: usize,
    /// Let shards and the merge accept runs skipped for missing data (otherwise such a shard
    /// fails and the merge refuses it).
    #[arg(long)]
    allow_skipped: bool,
    /// Where results/, figures/ and slurm/ go (default: the root).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Fetch the datasets here, then submit the array and the merge job.
    #[arg(long, conflicts_with = "resubmit_failed")]
    submit: bool,
    /// Resubmit the shards that failed, are missing or skipped runs (with the options given
    /// now, e.g. a longer --time) and a fresh merge; the scripts written by the first --submit.
    #[arg(long)]
    resubmit_failed: bool,
    /// After submitting, block until the merge has run, printing progress; fail unless merged.
    #[arg(long)]
    wait: bool,
    /// Refuse unless the root is a clean git checkout (no change to a tracked file outside
    /// results/ and figures/), and have every task refuse one too, so every row names the
    /// commit that holds its code (`just reproduce-all --slurm` passes it).
    #[arg(long)]
    require_clean: bool,
}

impl SlurmArgs {
    fn options(&self, shards: usize) -> SlurmOptions {
        SlurmOptions {
            shards,
            throttle: self.throttle,
            partition: self.partition.clone(),
            time: self.time.clone(),
            mem: self.mem.clone(),
            cpus: self.cpus,
            account: self.account.clone(),
            qos: self.qos.clone(),
            constraint: self.constraint.clone(),
            gres: self.gres.clone(),
            sbatch_args: self.sbatch_args.clone(),
            retries: self.retries,
            allow_skipped: self.allow_skipped,
            require_clean: self.require_clean,
        }
    }
}

fn parse_duration(text: &str) -> anyhow::Result<f64> {
    let trimmed = text.trim();
    let units = [("min", 60.0), ("s", 1.0), ("m", 60.0), ("h", 3600.0)];
    let (number, factor) = units
        .iter()
        .find_map(|(unit, f)| trimmed.strip_suffix(unit).map(|n| (n, *f)))
        .unwrap_or((trimmed, 1.0));
    let Ok(value) = number.trim().parse::<f64>() else {
        let tail: String = trimmed
            .chars()
            .rev()
            .take_while(|c| c.is_alphabetic())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !tail.is_empty() && !units.iter().any(|(u, _)| *u == tail) {
            bail!("--budget {text}: unknown unit {tail:?} (s, m, h)");
        }
        bail!("--budget {text}: a positive duration such as 90s, 10m or 1h");
    };
    if !(value.is_finite() && value > 0.0) {
        bail!("--budget {text}: a positive duration such as 90s, 10m or 1h");
    }
    let seconds = value * factor;
    if seconds > MAX_BUDGET {
        bail!("--budget {text}: at most 30 days ({MAX_BUDGET} s)");
    }
    Ok(seconds)
}

/// The most worker threads `--threads` accepts.
const MAX_THREADS: usize = 1024;

/// The global options every subcommand sees.
struct Global {
    root: PathBuf,
    memory_limit: Option<u64>,
}

impl Global {
    fn from_cli(cli: &Cli) -> anyhow::Result<Global> {
        if let Some(threads) = cli.threads {
            // Results do not depend on the count; a huge one only spends minutes starting
            // threads (issue 24: --threads 100000 hung a 0.1 s run).
            if threads == 0 || threads > MAX_THREADS {
                bail!("--threads {threads}: between 1 and {MAX_THREADS}");
            }
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
        Ok(Global {
            root: cli.root.clone(),
            memory_limit,
        })
    }

    fn options(&self, master_seed: Option<u64>, out_dir: PathBuf) -> RunOptions {
        RunOptions {
            root: self.root.clone(),
            out_dir,
            master_seed,
            progress: Progress::detect(),
            fetch: rfbench_data::FetchOptions::from_env(),
            memory_limit: self.memory_limit,
            allow_skipped: false,
            shard: None,
            resume: false,
            deadline: None,
        }
    }
}

/// Runs the command and returns what it prints on standard output.
fn run() -> anyhow::Result<String> {
    let cli = Cli::parse();
    let global = Global::from_cli(&cli)?;
    match &cli.command {
        Command::Compare(args) => compare(&global, args),
        Command::List => list(&global),
        Command::Report { check } => report(&global, *check),
        Command::Maps => Ok(rfbench_registry::describe_maps()),
        Command::Learners => Ok(rfbench_registry::describe_learners()),
        Command::Kernels => Ok(rfbench_registry::describe_kernels()),
        Command::Reference => Ok(rfbench_registry::reference_markdown()),
        Command::Render { spec, out_dir } => render(&global, spec, out_dir.as_ref()),
        Command::Schedule { spec, workers } => {
            let options = global.options(None, spec.out_dir(&global.root, None));
            let report = rfbench::replay::replay(&spec.spec, &spec.profile(), &options, workers)
                .with_context(|| format!("replaying the runs of {}", spec.spec))?;
            Ok(report.to_string())
        }
        Command::Reproduce {
            spec,
            master_seed,
            out_dir,
            allow_skipped,
            shard,
            resume,
            require_clean,
        } => {
            if *require_clean {
                let provenance = rfbench::results::Provenance::collect(&global.root);
                provenance.require_clean().map_err(anyhow::Error::msg)?;
            }
            let shard = match shard {
                Some(text) => Some(Shard::parse(text).map_err(anyhow::Error::msg)?),
                None => None,
            };
            let options = RunOptions {
                allow_skipped: *allow_skipped,
                shard,
                resume: *resume,
                ..global.options(*master_seed, spec.out_dir(&global.root, out_dir.as_ref()))
            };
            reproduce(spec, *master_seed, out_dir.as_ref(), &options)
        }
        Command::Slurm(args) => slurm_command(&global, args),
        Command::Status {
            spec,
            out_dir,
            wait,
        } => status_command(&global, spec, out_dir.as_ref(), *wait),
        Command::Merge {
            spec,
            shards,
            out_dir,
            allow_skipped,
        } => {
            let options = RunOptions {
                allow_skipped: *allow_skipped,
                ..global.options(None, spec.out_dir(&global.root, out_dir.as_ref()))
            };
            merge(spec, *shards, &options)
        }
        Command::Check {
            spec,
            master_seed,
            out_dir,
        } => check(&global, spec, *master_seed, out_dir.as_ref()),
        Command::Datasets { command } => datasets(&global, command),
    }
}

fn compare(global: &Global, args: &CompareArgs) -> anyhow::Result<String> {
    let options = args.options()?;
    let run = global.options(None, options.out.clone());
    let compared = rfbench::compare::compare(&options, &run)
        .with_context(|| format!("comparing maps on {}", options.data))?;
    Ok(format!(
        "{}\nwrote {} (rerun it with `rfbench reproduce {} --out-dir OTHER`)\nwrote {} and answer.json beside \
         it\nestimated {:.0} s for the sweep; {:.0} s in all\n\nanswer: {}\n",
        compared.report,
        compared.spec.display(),
        compared.spec.display(),
        compared.report_path.display(),
        compared.estimate,
        compared.seconds,
        compared.answer
    ))
}

fn report(global: &Global, check: bool) -> anyhow::Result<String> {
    if check {
        rfbench::catalogue::check(&global.root)?;
        return Ok(format!("{} is current\n", rfbench::catalogue::PATH));
    }
    let path = rfbench::catalogue::write(&global.root)?;
    Ok(format!("wrote {}\n", path.display()))
}

fn list(global: &Global) -> anyhow::Result<String> {
    let mut out = String::new();
    for name in list_experiments(&global.root)? {
        let _ = writeln!(out, "{name}");
    }
    Ok(out)
}

fn render(global: &Global, spec: &SpecArgs, out_dir: Option<&PathBuf>) -> anyhow::Result<String> {
    let options = global.options(None, spec.out_dir(&global.root, out_dir));
    let rendered = run::render(&spec.spec, &spec.profile(), &options)
        .with_context(|| format!("rendering {}", spec.spec))?;
    let mut out = String::new();
    let _ = writeln!(out, "{}", rendered.report);
    wrote_outputs(&mut out, &rendered);
    Ok(out)
}

fn reproduce(
    spec: &SpecArgs,
    master_seed: Option<u64>,
    out_dir: Option<&PathBuf>,
    options: &RunOptions,
) -> anyhow::Result<String> {
    if let (Some(seed), None) = (master_seed, out_dir) {
        bail!(
            "--master-seed {seed}: give --out-dir DIR for the results of another seed \
             (--out-dir . replaces the committed ones)"
        );
    }
    rfbench::compare::refuse_own_folder(Path::new(&spec.spec), &options.out_dir)?;
    let outcome = run::reproduce(&spec.spec, &spec.profile(), options)
        .with_context(|| format!("reproducing {}", spec.spec))?;
    for warning in &outcome.warnings {
        eprintln!("warning: {warning}");
    }
    let text = summary(&outcome);
    if let (Some(shard), false) = (options.shard, options.allow_skipped) {
        if outcome.skipped > 0 {
            // A shard is a part of one result: runs it could not do are a failure to repair,
            // not a cell to leave out (the merge refuses it too).
            print!("{text}");
            bail!(
                "shard {shard} skipped {} run(s) for missing data (see the rows' reasons in {}): \
                 the shard is written but counts as failed, and `rfbench merge` refuses it; make \
                 the data reachable and run the shard again, or pass --allow-skipped",
                outcome.skipped,
                outcome.csv.display()
            );
        }
    }
    if !outcome.failed.is_empty() {
        // The finished cells are written; the command still fails, naming the failed ones.
        print!("{text}");
        bail!(
            "{} run(s) failed, recorded in {} with status `failed`:\n  {}",
            outcome.failed.len(),
            outcome.csv.display(),
            outcome.failed.join("\n  ")
        );
    }
    Ok(text)
}

/// A `wrote PATH` line for every figure, table and claims file a run or a merge drew.
fn wrote_outputs(out: &mut String, rendered: &rfbench::outputs::Rendered) {
    for path in rendered
        .figures
        .iter()
        .chain(&rendered.tables)
        .chain(&rendered.claims_file)
    {
        let _ = writeln!(out, "wrote {}", path.display());
    }
}

fn slurm_command(global: &Global, args: &SlurmArgs) -> anyhow::Result<String> {
    let spec = &args.spec;
    let options = global.options(None, spec.out_dir(&global.root, args.out_dir.as_ref()));
    rfbench::compare::refuse_own_folder(Path::new(&spec.spec), &options.out_dir)?;
    let how = invocation(global, spec, &options.out_dir);
    if args.require_clean {
        let provenance = rfbench::results::Provenance::collect(&global.root);
        provenance.require_clean().map_err(anyhow::Error::msg)?;
    }
    let mut out = String::new();
    let submitted = if args.resubmit_failed {
        let slurm = args.options(args.shards.unwrap_or(1));
        rfbench::slurm::resubmit_failed(&global.root, &how, &slurm)
            .with_context(|| format!("resubmitting {}", spec.spec))?
    } else {
        let slurm = args.options(args.shards.unwrap_or_default());
        let binary = std::env::current_exe().context("finding this executable for the scripts")?;
        let scripts = rfbench::slurm::write(&spec.spec, &spec.profile(), &options, &slurm, &binary)
            .with_context(|| format!("writing the SLURM scripts of {}", spec.spec))?;
        let _ = writeln!(out, "wrote {}", scripts.array.display());
        let _ = writeln!(out, "wrote {}", scripts.merge.display());
        if !args.submit {
            let _ = writeln!(out, "submit them with:");
            for command in &scripts.commands {
                let _ = writeln!(out, "  {command}");
            }
            return Ok(out);
        }
        rfbench::slurm::submit(&scripts, &options, &slurm)
            .with_context(|| format!("submitting {}", spec.spec))?
    };
    let _ = match &submitted.array {
        Some(array) => writeln!(
            out,
            "submitted the array (shards {:?}) as job {array} and the merge as job {} (after \
             every task ends); `rfbench status` shows where it stands",
            submitted.tasks, submitted.merge
        ),
        None => writeln!(
            out,
            "every shard is done: submitted the merge as job {}",
            submitted.merge
        ),
    };
    if args.wait {
        wait_for_merge(global, &how, &mut out)?;
    }
    Ok(out)
}

/// `--wait`: blocks until the run's jobs have ended; an error with the status unless merged.
fn wait_for_merge(
    global: &Global,
    how: &rfbench::slurm::Invocation,
    out: &mut String,
) -> anyhow::Result<()> {
    print!("{out}");
    out.clear();
    let every = std::time::Duration::from_secs(5);
    let status = rfbench::slurm::wait(&global.root, how, every)?;
    if !status.merged() {
        bail!("the run ended unmerged:\n{status}");
    }
    let _ = write!(out, "{status}");
    Ok(())
}

/// How this run is named again in the commands `status` prints.
fn invocation(global: &Global, spec: &SpecArgs, out_dir: &Path) -> rfbench::slurm::Invocation {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    // As called: a name found on PATH stays a name, a path is made absolute.
    let called = std::env::args().next().unwrap_or_else(|| "rfbench".into());
    let binary = match called.contains('/') {
        true => absolute(Path::new(&called)).display().to_string(),
        false => called,
    };
    let spec_arg = match spec.spec.ends_with(".toml") || spec.spec.contains('/') {
        true => absolute(Path::new(&spec.spec)).display().to_string(),
        false => spec.spec.clone(),
    };
    rfbench::slurm::Invocation {
        rfbench: format!(
            "{} --root {}",
            rfbench::slurm::quote(&binary),
            rfbench::slurm::quote(&absolute(&global.root).display().to_string())
        ),
        spec: spec_arg,
        profile: spec.profile(),
        out_dir: absolute(out_dir),
    }
}

fn status_command(
    global: &Global,
    spec: &SpecArgs,
    out_dir: Option<&PathBuf>,
    wait: bool,
) -> anyhow::Result<String> {
    let out_dir = spec.out_dir(&global.root, out_dir);
    let how = invocation(global, spec, &out_dir);
    let status = match wait {
        true => rfbench::slurm::wait(&global.root, &how, std::time::Duration::from_secs(5)),
        false => rfbench::slurm::status(&global.root, &how),
    }
    .with_context(|| format!("the status of {}", spec.spec))?;
    // Waited for, a run that ended unmerged is a failure (what scripts such as
    // `just reproduce-all --slurm` test); asked for, the status is only shown.
    if wait && !status.merged() {
        bail!("the run ended unmerged:\n{status}");
    }
    Ok(status.to_string())
}

fn merge(spec: &SpecArgs, shards: Option<usize>, options: &RunOptions) -> anyhow::Result<String> {
    let merged = rfbench::merge::merge(&spec.spec, &spec.profile(), options, shards)
        .with_context(|| format!("merging the shards of {}", spec.spec))?;
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", merged.plan.name, merged.plan.title);
    let _ = writeln!(out, "{}", merged.rendered.report);
    let _ = writeln!(
        out,
        "wrote {} from {} shards ({} skipped)",
        merged.csv.display(),
        merged.shards,
        merged.skipped
    );
    wrote_outputs(&mut out, &merged.rendered);
    if !merged.failed.is_empty() {
        print!("{out}");
        bail!(
            "{} run(s) failed, recorded in {} with status `failed`:\n  {}",
            merged.failed.len(),
            merged.csv.display(),
            merged.failed.join("\n  ")
        );
    }
    Ok(out)
}

/// What `reproduce` prints: the report, the files written, the cells run.
fn summary(outcome: &run::Outcome) -> String {
    let mut out = String::new();
    let plan = &outcome.plan;
    let _ = writeln!(out, "{}: {}", plan.name, plan.title);
    let _ = writeln!(out, "{}", outcome.rendered.report);
    let _ = writeln!(out, "wrote {}", outcome.csv.display());
    wrote_outputs(&mut out, &outcome.rendered);
    let runs = outcome.rows.len();
    let threads = rayon::current_num_threads();
    let busy = outcome.cpu_seconds / outcome.seconds.max(1e-9);
    let _ = writeln!(
        out,
        "{} cells, {runs} runs (repetitions: {}) ({} skipped) in {:.1} s on {threads} threads, \
         {:.1} CPU s: {busy:.2} threads busy ({:.0} %)",
        plan.cells.len(),
        plan.repetitions,
        outcome.skipped,
        outcome.seconds,
        outcome.cpu_seconds,
        100.0 * busy / threads as f64
    );
    out
}

fn check(
    global: &Global,
    spec: &SpecArgs,
    master_seed: Option<u64>,
    out_dir: Option<&PathBuf>,
) -> anyhow::Result<String> {
    let profile = spec.profile();
    let options = global.options(master_seed, spec.out_dir(&global.root, out_dir));
    let (report, outcome) = run::check(&spec.spec, &profile, &options)
        .with_context(|| format!("checking {}", spec.spec))?;
    let name = &outcome.plan.name;
    let profile_name = profile.name();
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
            "{name} [{profile_name}]: {} ({mode})",
            report.failure_summary()
        );
    }
    Ok(format!(
        "{name} [{profile_name}]: {} comparisons pass ({mode}), regenerated in {:.1} s\n",
        report.compared, outcome.seconds
    ))
}

fn datasets(global: &Global, command: &DatasetsCommand) -> anyhow::Result<String> {
    let registry = rfbench_data::Registry::from_file(&global.root.join("datasets.toml"))?;
    let fetch = rfbench_data::FetchOptions::from_env();
    match command {
        DatasetsCommand::List => Ok(datasets_list(&registry)),
        DatasetsCommand::Fetch { name } => {
            let loaded = rfbench_data::load_report(registry.get(name)?, &fetch)?;
            let mut out = String::new();
            for s in &loaded.sources {
                let _ = writeln!(out, "{}  {}", s.sha256, s.path.display());
            }
            let _ = writeln!(out, "parsed: {}", loaded.cache.display());
            Ok(out)
        }
        DatasetsCommand::Verify { name } => datasets_verify(&registry, &fetch, name.as_deref()),
        DatasetsCommand::Info { name } => datasets_info(registry.get(name)?, &fetch),
    }
}

fn datasets_list(registry: &rfbench_data::Registry) -> String {
    let mut out = String::new();
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
    out
}

fn datasets_verify(
    registry: &rfbench_data::Registry,
    fetch: &rfbench_data::FetchOptions,
    name: Option<&str>,
) -> anyhow::Result<String> {
    let entries: Vec<_> = match name {
        Some(name) => vec![registry.get(name)?],
        None => registry.entries().iter().collect(),
    };
    let mut out = String::new();
    let mut bad = 0;
    for e in entries {
        for (f, status) in e.files.iter().zip(rfbench_data::verify(e, fetch)?) {
            let line = match status {
                rfbench_data::FileStatus::Verified { path } => {
                    format!("ok        {}", path.display())
                }
                rfbench_data::FileStatus::Unlocked { path, sha256 } => {
                    format!("unlocked  {} (sha256 {sha256})", path.display())
                }
                rfbench_data::FileStatus::Mismatch {
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
                rfbench_data::FileStatus::Missing => "missing".to_string(),
            };
            let _ = writeln!(out, "{:<26} {:<40} {line}", e.name, f.file);
        }
    }
    if bad > 0 {
        bail!("{bad} file(s) do not match their digest");
    }
    Ok(out)
}

fn datasets_info(
    entry: &rfbench_data::DatasetEntry,
    fetch: &rfbench_data::FetchOptions,
) -> anyhow::Result<String> {
    let start = std::time::Instant::now();
    let loaded = rfbench_data::load_report(entry, fetch)?;
    let seconds = start.elapsed().as_secs_f64();
    let s = loaded.dataset.summary();
    let mut out = String::new();
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
        Some(classes) if entry.task != rfbench_data::Task::Regression => {
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
        rfbench_data::lock_path(entry, fetch).display()
    );
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
            eprintln!("error: {}", terminal_safe(&message(&e)));
            ExitCode::FAILURE
        }
    }
}

/// `text` with every control character but a newline and a tab escaped (`\u{1b}`): a spec
/// name or path holding an escape sequence would otherwise drive the terminal that prints the
/// error (issue 68).
fn terminal_safe(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_control() && c != '\n' && c != '\t' {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect()
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
    fn budgets_parse_with_units_and_refuse_nonsense() {
        for (text, seconds) in [("90", 90.0), ("90s", 90.0), ("1e3", 1000.0), ("10m", 600.0)] {
            assert_eq!(parse_duration(text).unwrap(), seconds, "{text}");
        }
        assert_eq!(parse_duration("1.5h").unwrap(), 5400.0);
        assert_eq!(parse_duration("2min").unwrap(), 120.0);
        for (text, says) in [
            ("soon", "unknown unit \"soon\""),
            ("5d", "unknown unit \"d\""),
            ("0s", "a positive duration"),
            ("-3m", "a positive duration"),
            ("1e20", "at most 30 days"),
            ("5000000000000000h", "at most 30 days"),
            ("inf", "a positive duration"),
        ] {
            let err = parse_duration(text).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

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
