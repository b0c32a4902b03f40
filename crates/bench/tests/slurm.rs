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
    one.args(["reproduce", spec, "--quick", "--out-dir"])
        .arg(&single);
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
