//! A sharded run on a real SLURM cluster: `rfbench slurm SPEC --quick --shards 3 --submit`
//! submits a job array and a merge job; when the merge job has run, its outputs equal a
//! one-process run's (the CSV but for its timing and provenance columns, every figure, table and
//! claims file byte for byte).
//!
//! Needs a cluster the SLURM commands reach (`.ci/run` starts a one-node one with
//! `scripts/ci/slurm-cluster.sh` and stops it at the end, pass or fail). Without one the test is
//! skipped with a note, unless `RFBENCH_REQUIRE_SLURM=1` (set by `.ci/run`), which makes it fail.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::*;

/// Whether `sinfo` answers within 15 s (a controller is up and this machine may talk to it;
/// without one, sinfo retries for about a minute).
fn cluster_up() -> bool {
    let Ok(mut child) = Command::new("sinfo")
        .arg("-h")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    else {
        return false;
    };
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(15) {
        if let Ok(Some(status)) = child.try_wait() {
            return status.success();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// The runner on `root`, with the dataset cache and mirror given.
fn rfbench(root: &Path, cache: &Path, mirror: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rfbench"));
    cmd.arg("--root")
        .arg(root)
        .env("RFBENCH_CACHE", cache)
        .env("RFBENCH_MIRROR", mirror);
    cmd
}

fn stdout_of(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `JobState` and `Reason` of job `id` (`scontrol show job`).
fn job_state(id: &str) -> (String, String) {
    let out = Command::new("scontrol")
        .args(["show", "job", id])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .unwrap_or_default()
            .to_string()
    };
    (field("JobState"), field("Reason"))
}

/// Every visible file under `dir`'s results/ and figures/ and their spec folders, by relative
/// path.
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut folders: Vec<String> = vec!["results".into(), "figures".into()];
    while let Some(sub) = folders.pop() {
        for entry in std::fs::read_dir(dir.join(&sub)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                folders.push(format!("{sub}/{name}"));
            } else if !name.starts_with('.') {
                out.insert(format!("{sub}/{name}"), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The CSV's header and rows without the columns that vary run to run.
fn stable(path: &Path) -> Vec<Vec<String>> {
    let (header, rows) = csv(path);
    let varies = |c: &str| {
        ["rfbench_version", "git_commit", "threads", "cpu", "date"].contains(&c)
            || c.contains("second")
    };
    let keep: Vec<usize> = (0..header.len()).filter(|&i| !varies(&header[i])).collect();
    std::iter::once(header)
        .chain(rows)
        .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
        .collect()
}

#[test]
fn a_job_array_and_its_merge_job_give_the_one_process_outputs() {
    if !cluster_up() {
        assert!(
            std::env::var("RFBENCH_REQUIRE_SLURM").as_deref() != Ok("1"),
            "RFBENCH_REQUIRE_SLURM=1 but no SLURM cluster answers `sinfo` (SLURM_CONF={:?})",
            std::env::var("SLURM_CONF")
        );
        eprintln!(
            "skipped: no SLURM cluster answers `sinfo` (scripts/ci/slurm-cluster.sh starts one)"
        );
        return;
    }
    let (dir, _) = workspace();
    let root = dir.path();
    on_slurm(
        root,
        &root.join("cache"),
        &root.join("mirror"),
        "kernel-error-demo",
        root,
    );
    // A spec of the catalogue, on Adult, when the mirror holds it (as in .ci/run).
    let mirror = std::env::var_os("RFBENCH_MIRROR").map(std::path::PathBuf::from);
    match mirror.filter(|m| m.join("a9a").is_file() || m.join("adult.data").is_file()) {
        Some(mirror) => {
            let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
            let cache = std::env::var_os("RFBENCH_CACHE")
                .map_or_else(|| root.join("cache"), std::path::PathBuf::from);
            on_slurm(&repository, &cache, &mirror, "tensor-sketch-fig1", root);
        }
        None => eprintln!("tensor-sketch-fig1 not run: RFBENCH_MIRROR holds no Adult files"),
    }
}

/// `spec`'s quick profile run once in one process and once as 3 shards on SLURM, both under
/// `scratch`: the merge job's outputs are the one process's.
fn on_slurm(root: &Path, cache: &Path, mirror: &Path, spec: &str, scratch: &Path) {
    let (single, cluster) = (
        scratch.join(format!("single-{spec}")),
        scratch.join(format!("cluster-{spec}")),
    );
    let mut one = rfbench(root, cache, mirror);
    // The tasks run OpenBLAS on their one CPU; its thread count moves the last bits of a
    // product (Nystroem's), so the reference runs it on one thread too.
    one.args(["reproduce", spec, "--quick", "--out-dir"])
        .arg(&single)
        .env("OPENBLAS_NUM_THREADS", "1");
    stdout_of(one);

    let mut submit = rfbench(root, cache, mirror);
    submit
        .args([
            "slurm",
            spec,
            "--quick",
            "--shards",
            "3",
            "--throttle",
            "2",
            // kernel-error-demo's `offline` dataset is reachable nowhere (skipped by design).
            "--allow-skipped",
            "--submit",
        ])
        .arg("--out-dir")
        .arg(&cluster);
    let printed = stdout_of(submit);
    let ids: Vec<String> = printed
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0] == "job")
        .map(|w| w[1].to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{printed}");
    let merge_job = &ids[1];

    let logs = cluster.join(format!("slurm/{spec}/quick/logs"));
    let log_text = || {
        std::fs::read_dir(&logs)
            .map(|entries| {
                entries
                    .map(|e| {
                        let p = e.unwrap().path();
                        format!(
                            "{}:\n{}",
                            p.display(),
                            std::fs::read_to_string(&p).unwrap_or_default()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    };
    let start = Instant::now();
    loop {
        let (state, reason) = job_state(merge_job);
        match state.as_str() {
            "COMPLETED" => break,
            "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING"
                if reason != "DependencyNeverSatisfied" => {}
            _ => panic!("merge job {merge_job}: {state} ({reason})\n{}", log_text()),
        }
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "merge job {merge_job} still {state} after 10 minutes\n{}",
            log_text()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!("array and merge done in {:?}", start.elapsed());

    // Three shard logs and the merge's; the shards are gone, merged.
    let (expected, got) = (outputs(&single), outputs(&cluster));
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{}",
        log_text()
    );
    let csv_name = format!("results/{spec}/quick.csv");
    assert_eq!(
        stable(&cluster.join(&csv_name)),
        stable(&single.join(&csv_name))
    );
    for (name, bytes) in &expected {
        if name != &csv_name {
            assert!(
                got[name] == *bytes,
                "{name} differs from the one-process run's"
            );
        }
    }
    let shard_logs = std::fs::read_dir(&logs)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("shard-")
        })
        .count();
    assert_eq!(shard_logs, 3, "{}", log_text());
}

/// `rfbench ARGS` on `root` (cache and mirror given): (success, stdout, stderr).
fn run(root: &Path, cache: &Path, mirror: &Path, args: &[&str]) -> (bool, String, String) {
    let out = rfbench(root, cache, mirror).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Polls `job` until it has ended (10 minutes at most): its final state.
fn ended(job: &str) -> String {
    let start = Instant::now();
    loop {
        let (state, _) = job_state(job);
        if !["PENDING", "RUNNING", "CONFIGURING", "COMPLETING", ""].contains(&state.as_str()) {
            return state;
        }
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "{job} still {state}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A run whose nodes have no data and one of whose tasks is cancelled: the merge refuses,
/// `status` says which shards failed and why, a second submission is refused while the first
/// is queued, and the one command `status` prints (run once the data is there) ends in a
/// merged result equal to the one-process run's.
#[test]
fn a_failed_run_is_repaired_by_the_command_status_prints() {
    if !cluster_up() {
        assert!(std::env::var("RFBENCH_REQUIRE_SLURM").as_deref() != Ok("1"));
        eprintln!("skipped: no SLURM cluster answers `sinfo`");
        return;
    }
    let (dir, _) = workspace();
    let root = dir.path();
    let spec = KERNEL_ERROR
        .replace("kernel-error-demo", "tiny-demo")
        .replace(r#"["tiny", "offline"]"#, r#""tiny""#);
    std::fs::write(root.join("experiments/tiny-demo.toml"), spec).unwrap();
    let (mirror, cache) = (root.join("mirror"), root.join("cache"));
    let single = root.join("single").display().to_string();
    // One OpenBLAS thread, as in the tasks (see `on_slurm`).
    let reference = rfbench(root, &cache, &mirror)
        .args(["reproduce", "tiny-demo", "--quick", "--out-dir", &single])
        .env("OPENBLAS_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert!(reference.status.success(), "{reference:?}");

    // The nodes' data folder is empty, and task 3 is cancelled before it starts.
    let (empty, empty_cache) = (root.join("nodes-mirror"), root.join("nodes-cache"));
    std::fs::create_dir_all(&empty).unwrap();
    let out = root.join("cluster");
    let out_arg = out.display().to_string();
    let submit = [
        "slurm",
        "tiny-demo",
        "--quick",
        "--shards",
        "3",
        "--throttle",
        "1",
        "--submit",
        "--out-dir",
        &out_arg,
    ];
    let (ok, printed, err) = run(root, &empty_cache, &empty, &submit);
    assert!(ok, "{err}");
    let array = printed
        .split("as job ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let merge_job = printed
        .split("merge as job ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let cancel = Command::new("scancel")
        .arg(format!("{array}_3"))
        .output()
        .unwrap();
    assert!(cancel.status.success(), "{cancel:?}");
    // A second submission while the first is queued is refused, naming its jobs.
    let (ok, _, err) = run(root, &empty_cache, &empty, &submit);
    assert!(
        !ok && err.contains("already submitted") && err.contains(&merge_job),
        "{err}"
    );

    // The merge runs after every task has ended, and refuses.
    assert_eq!(ended(&merge_job), "FAILED");
    let status = ["status", "tiny-demo", "--quick", "--out-dir", &out_arg];
    let (ok, shown, err) = run(root, &cache, &mirror, &status);
    assert!(ok, "{err}");
    assert!(shown.contains("0 of 3 shards done"), "{shown}");
    assert!(shown.contains("skipped for missing data"), "{shown}");
    assert!(shown.contains(&format!("FAILED (job {array}_3")), "{shown}");
    let merge_log =
        std::fs::read_to_string(out.join("slurm/tiny-demo/quick/logs/merge.out")).unwrap();
    assert!(
        merge_log.contains("--resubmit-failed"),
        "the refused merge says how to repair:\n{merge_log}"
    );
    let repair = shown
        .lines()
        .find(|l| l.contains("--resubmit-failed"))
        .unwrap_or_else(|| panic!("no repair command:\n{shown}"))
        .trim()
        .to_string();

    // The data reaches the nodes; the printed command, with --wait, repairs and merges.
    std::fs::copy(mirror.join("tiny.svm"), empty.join("tiny.svm")).unwrap();
    let repaired = Command::new("bash")
        .arg("-c")
        .arg(format!("{repair} --wait"))
        .env("RFBENCH_CACHE", &empty_cache)
        .env("RFBENCH_MIRROR", &empty)
        .output()
        .unwrap();
    assert!(repaired.status.success(), "{repaired:?}");
    let (_, shown, _) = run(root, &cache, &mirror, &status);
    assert!(
        shown.contains("3 of 3 shards done") && shown.contains("the run is merged"),
        "{shown}"
    );
    let name = "results/tiny-demo/quick.csv";
    assert_eq!(
        stable(&out.join(name)),
        stable(&root.join("single").join(name))
    );
    let (expected, got) = (outputs(&root.join("single")), outputs(&out));
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (file, bytes) in expected.iter().filter(|(file, _)| *file != name) {
        assert!(
            got[file] == *bytes,
            "{file} differs from the one-process run's"
        );
    }
}

/// A task killed while it runs (`scontrol requeue`, as a preemption or a node failure does) runs
/// again as the same shard, takes the runs it had saved, and the merge equals the one-process
/// run.
#[test]
fn a_killed_task_is_requeued_and_resumes_its_saved_runs() {
    if !cluster_up() {
        assert!(std::env::var("RFBENCH_REQUIRE_SLURM").as_deref() != Ok("1"));
        eprintln!("skipped: no SLURM cluster answers `sinfo`");
        return;
    }
    let (dir, _) = workspace();
    let root = dir.path();
    let (mirror, cache) = (root.join("mirror"), root.join("cache"));
    let single = root.join("single").display().to_string();
    // One OpenBLAS thread, as in the tasks (see `on_slurm`).
    let reference = rfbench(root, &cache, &mirror)
        .args(["reproduce", "learning-demo", "--out-dir", &single])
        .env("OPENBLAS_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert!(reference.status.success(), "{reference:?}");
    let out = root.join("cluster");
    let out_arg = out.display().to_string();
    let submit = [
        "slurm",
        "learning-demo",
        "--shards",
        "2",
        "--throttle",
        "1",
        "--submit",
        "--out-dir",
        &out_arg,
    ];
    let (ok, printed, err) = run(root, &cache, &mirror, &submit);
    assert!(ok, "{err}");
    let array = printed
        .split("as job ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .to_string();
    // Killed once its first run is saved.
    let partial = out.join("results/learning-demo/.full.shard-1-of-2.partial.csv");
    let start = Instant::now();
    while std::fs::read_to_string(&partial).map_or(0, |t| t.lines().count()) < 3 {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "shard 1 saved nothing"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let requeue = Command::new("scontrol")
        .args(["requeue", &format!("{array}_1")])
        .output()
        .unwrap();
    assert!(requeue.status.success(), "{requeue:?}");
    let (ok, shown, err) = run(
        root,
        &cache,
        &mirror,
        &["status", "learning-demo", "--out-dir", &out_arg, "--wait"],
    );
    assert!(ok && shown.contains("the run is merged"), "{shown}\n{err}");
    let log =
        std::fs::read_to_string(out.join("slurm/learning-demo/full/logs/shard-1.out")).unwrap();
    let resumed: Vec<usize> = log
        .lines()
        .filter_map(|l| l.strip_prefix("resuming: "))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert!(
        resumed.len() == 2 && resumed[1] >= 1,
        "the requeued task resumes its saved runs (log appended):\n{log}"
    );
    let name = "results/learning-demo/full.csv";
    assert_eq!(
        stable(&out.join(name)),
        stable(&root.join("single").join(name))
    );
}
