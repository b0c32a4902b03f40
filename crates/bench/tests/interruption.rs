//! Interruption and concurrency, with the real binary on a small spec whose dataset comes from a
//! mirror without a pinned digest (so it is parsed, cached and locked on first use):
//!
//! - killed (SIGKILL) at 20 random moments, a run never leaves a partial or mixed set of
//!   outputs: the table and figure present are always the ones drawn from the CSV present, and a
//!   rerun succeeds;
//! - four runs reproducing into one folder with one fresh cache at once all succeed, and leave
//!   the outputs of a single run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NAME: &str = "interrupt-demo";

const SPEC: &str = r#"
name = "interrupt-demo"
title = "Kernel estimates, for the interruption tests"
paper = "none"
kind = "kernel-error"

[data]
dataset = "tiny"
preprocess = ["unit-norm"]

[run]
master_seed = 3
repetitions = 3
pairs = 2000

[kernel]
name = "polynomial"
degree = 2
offset = 1.0

[grid]
map = ["tensor-sketch", "random-maclaurin"]
n_components = [64, 128, 256, 512]

[[figures]]
x = "n_components"
y = "relative_error"

[[tables]]
name = "errors"
rows = ["map"]
columns = ["n_components"]
value = "relative_error"
format = "{mean:.4}"

[check]
columns = ["relative_error"]
"#;

/// A root with the spec, a registry naming one LIBSVM file without a digest, and a mirror
/// holding it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::create_dir_all(root.join("mirror")).unwrap();
    std::fs::write(root.join(format!("experiments/{NAME}.toml")), SPEC).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut text = String::new();
    for _ in 0..400 {
        text.push_str(if rng.random::<bool>() { "+1" } else { "-1" });
        for j in 1..=30 {
            if rng.random::<f64>() < 0.3 {
                text.push_str(&format!(" {j}:{:.3}", rng.random::<f64>()));
            }
        }
        text.push('\n');
    }
    std::fs::write(root.join("mirror/tiny.svm"), text).unwrap();
    std::fs::write(
        root.join("datasets.toml"),
        "[[dataset]]\nname = \"tiny\"\ndescription = \"test data\"\ntask = \"binary\"\n\
         format = \"libsvm\"\nn = 400\nd = 30\n\n[[dataset.files]]\nrole = \"train\"\n\
         file = \"tiny.svm\"\nurl = \"http://127.0.0.1:9/tiny.svm\"\n",
    )
    .unwrap();
    dir
}

/// `rfbench reproduce` of the demo in `root` (outputs in `root`), offline.
fn reproduce(root: &Path, seed: Option<u64>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rfbench"));
    cmd.arg("--root").arg(root).args(["reproduce", NAME]);
    if let Some(seed) = seed {
        cmd.args(["--master-seed", &seed.to_string(), "--out-dir"])
            .arg(root);
    }
    cmd.env("RFBENCH_CACHE", root.join("cache"))
        .env("RFBENCH_MIRROR", root.join("mirror"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

fn run_ok(mut cmd: Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file in `results/` and `figures/` and their spec folders, by relative path.
fn files(root: &Path) -> Vec<(String, std::path::PathBuf)> {
    let mut found = Vec::new();
    let mut folders: Vec<String> = vec!["results".into(), "figures".into()];
    while let Some(dir) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            if path.is_dir() {
                folders.push(name);
            } else {
                found.push((name, path));
            }
        }
    }
    found
}

/// The visible outputs (not hidden temporaries, locks or journals), by relative path.
fn outputs(root: &Path) -> BTreeMap<String, Vec<u8>> {
    files(root)
        .into_iter()
        .filter(|(name, _)| !name.rsplit('/').next().unwrap().starts_with('.'))
        .map(|(name, path)| (name, std::fs::read(&path).unwrap()))
        .collect()
}

fn journals(root: &Path) -> usize {
    std::fs::read_dir(root.join("results")).map_or(0, |entries| {
        entries
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with(".rfbench-commit-")
            })
            .count()
    })
}

/// The outputs of `root` form one run's set: the figure and table are the ones `rfbench render`
/// draws from the CSV present (in a scratch copy of the workspace).
fn assert_consistent(root: &Path, context: &str) {
    let present = outputs(root);
    let csv = format!("results/{NAME}/full.csv");
    let Some(csv_bytes) = present.get(&csv) else {
        assert!(
            present.is_empty(),
            "{context}: outputs without their CSV: {:?}",
            present.keys()
        );
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let s = scratch.path();
    std::fs::create_dir_all(s.join("experiments")).unwrap();
    std::fs::create_dir_all(s.join(format!("results/{NAME}"))).unwrap();
    std::fs::copy(root.join("datasets.toml"), s.join("datasets.toml")).unwrap();
    std::fs::write(s.join(format!("experiments/{NAME}.toml")), SPEC).unwrap();
    std::fs::write(s.join(&csv), csv_bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .arg("--root")
        .arg(s)
        .args(["render", NAME])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        present.keys().collect::<Vec<_>>(),
        outputs(s).keys().collect::<Vec<_>>(),
        "{context}: the set of outputs"
    );
    for (name, bytes) in outputs(s) {
        assert!(
            present[&name] == bytes,
            "{context}: {name} is not the one drawn from the CSV present (a mixed set)"
        );
    }
}

#[test]
fn a_run_killed_at_random_moments_never_leaves_a_mixed_set_of_outputs() {
    let dir = workspace();
    let root = dir.path();
    let start = Instant::now();
    run_ok(reproduce(root, Some(1)));
    let full = start.elapsed();
    assert_consistent(root, "after the first run");
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut journals_seen = 0;
    for round in 0..20 {
        // Alternate seeds, so every completed run changes every output.
        let mut child = reproduce(root, Some(2 + round % 2)).spawn().unwrap();
        let wait = full.mul_f64(rng.random_range(0.0..1.2));
        std::thread::sleep(wait);
        let _ = child.kill();
        child.wait().unwrap();
        // A kill between two renames leaves a journal, which the next run completes first.
        if journals(root) > 0 {
            journals_seen += 1;
        } else {
            assert_consistent(root, &format!("round {round}, killed after {wait:?}"));
        }
    }
    run_ok(reproduce(root, Some(9)));
    assert_eq!(journals(root), 0);
    assert_consistent(root, "after the rerun");
    // No temporary of a killed run survives a later run (their writers have ended).
    let hidden: Vec<String> = files(root)
        .into_iter()
        .map(|(name, _)| name.rsplit('/').next().unwrap().to_string())
        .filter(|n| n.starts_with('.') && n != ".rfbench.lock")
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
    eprintln!("one run: {full:?}; kills during a commit: {journals_seen} of 20");
}

/// CSV rows without the columns that differ from run to run (timings).
fn stable_rows(csv: &[u8]) -> Vec<Vec<String>> {
    let text = String::from_utf8(csv.to_vec()).unwrap();
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>());
    let header = lines.next().unwrap();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !header[i].ends_with("_seconds"))
        .collect();
    std::iter::once(header.clone())
        .chain(lines)
        .map(|row| keep.iter().map(|&i| row[i].clone()).collect())
        .collect()
}

#[test]
fn four_runs_into_one_folder_and_one_fresh_cache_all_succeed() {
    let single = workspace();
    run_ok(reproduce(single.path(), None));
    let expected = outputs(single.path());

    let dir = workspace();
    let root = dir.path();
    let children: Vec<_> = (0..4)
        .map(|_| reproduce(root, None).spawn().unwrap())
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let got = outputs(root);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &expected {
        if name.ends_with(".csv") {
            assert_eq!(stable_rows(&got[name]), stable_rows(bytes), "{name}");
        } else {
            assert!(got[name] == *bytes, "{name} differs from a single run's");
        }
    }
    // The digest was locked once, and the cache holds one parsed file.
    let lock = std::fs::read_to_string(root.join("datasets.lock")).unwrap();
    assert_eq!(
        lock.lines().filter(|l| l.contains("tiny/tiny.svm")).count(),
        1
    );
    let cached: Vec<PathBuf> = std::fs::read_dir(root.join("cache/tiny"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
}

/// `rfbench reproduce NAME --resume [--shard I/N]` into `out`, offline.
fn resumable(root: &Path, out: &Path, shard: Option<&str>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rfbench"));
    cmd.arg("--root")
        .arg(root)
        .args(["reproduce", NAME, "--resume", "--out-dir"])
        .arg(out);
    if let Some(shard) = shard {
        cmd.args(["--shard", shard]);
    }
    cmd.env("RFBENCH_CACHE", root.join("cache"))
        .env("RFBENCH_MIRROR", root.join("mirror"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Rows in a partial file (without its header), 0 when there is none.
fn partial_rows(path: &Path) -> usize {
    // Less its stamp line and its header.
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count().saturating_sub(2))
}

/// Killed with SIGKILL at random moments and resumed each time, a run (whole, or one shard)
/// ends with the CSV of one uninterrupted run (timings aside), having taken the rows its
/// killed predecessors finished instead of running them again.
#[test]
fn a_run_killed_at_random_moments_and_resumed_gives_the_uninterrupted_csv() {
    let dir = workspace();
    let root = dir.path();
    // More and larger maps than the other tests' spec: a run of a second or more, its rows
    // finishing steadily, so that kills land while rows are being added.
    let spec = root.join(format!("experiments/{NAME}.toml"));
    let grown = SPEC.replace(
        "n_components = [64, 128, 256, 512]",
        "n_components = [64, 128, 256, 512, 1024, 2048, 3072, 4096]",
    );
    assert_ne!(grown, SPEC);
    std::fs::write(&spec, grown).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    for (shard, stem) in [(None, "full"), (Some("2/3"), "full.shard-2-of-3")] {
        let reference = root.join(format!("reference-{stem}"));
        let start = Instant::now();
        run_ok(resumable(root, &reference, shard));
        let full = start.elapsed();
        let csv =
            |out: &Path| std::fs::read(out.join(format!("results/{NAME}/{stem}.csv"))).unwrap();
        let expected = stable_rows(&csv(&reference));

        let out = root.join(format!("killed-{stem}"));
        let partial = out.join(format!("results/{NAME}/.{stem}.partial.csv"));
        // Timings on a shared machine vary: a round can let the run finish before the kills
        // this test needs have happened. Then the interrupted run starts again from nothing.
        let (mut kills, mut resumed_mid_run) = (0, 0);
        for _attempt in 0..5 {
            let _ = std::fs::remove_dir_all(&out);
            (kills, resumed_mid_run) = kill_and_resume(root, &out, &partial, shard, full, &mut rng);
            if kills >= 2 && resumed_mid_run >= 1 {
                break;
            }
        }
        run_ok(resumable(root, &out, shard));
        eprintln!(
            "{stem}: one run {full:?}; {kills} kills, {resumed_mid_run} resumed runs killed \
             after adding rows"
        );
        assert_eq!(
            stable_rows(&csv(&out)),
            expected,
            "{stem}: resumed after {kills} kills"
        );
        assert!(
            !partial.exists(),
            "{stem}: the partial file outlives the run"
        );
        assert!(
            kills >= 2 && resumed_mid_run >= 1,
            "{stem}: {kills} kills, {resumed_mid_run} resumed runs that added rows before \
             being killed: the test did not interrupt a resumed run"
        );
    }
}

/// Starts resumed runs into `out` (whose partial file is `partial`) and kills them until one finishes (at most 40 rounds);
/// returns the number of kills and of resumed runs killed after they had added rows.
fn kill_and_resume(
    root: &Path,
    out: &Path,
    partial: &Path,
    shard: Option<&str>,
    full: std::time::Duration,
    rng: &mut ChaCha8Rng,
) -> (usize, usize) {
    let (mut kills, mut resumed_mid_run) = (0, 0);
    for round in 0..40 {
        let before = partial_rows(partial);
        let mut child = resumable(root, out, shard).spawn().unwrap();
        // Every other round, the kill waits until the run has added a row (a resumed run
        // killed while adding rows); the others kill at any moment, startup included.
        if round % 2 == 1 {
            let waited = Instant::now();
            while partial_rows(partial) <= before
                && child.try_wait().unwrap().is_none()
                && waited.elapsed() < full * 2
            {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            // Once a resumed run has been caught adding rows, later kills may wait a little.
            if resumed_mid_run > 0 {
                std::thread::sleep(full.mul_f64(rng.random_range(0.0..0.1)));
            }
        } else {
            std::thread::sleep(full.mul_f64(rng.random_range(0.05..0.3)));
        }
        let _ = child.kill();
        if child.wait().unwrap().success() {
            break;
        }
        kills += 1;
        if before > 0 && partial_rows(partial) > before {
            resumed_mid_run += 1;
        }
    }
    (kills, resumed_mid_run)
}

/// A link planted at the partial file's path (to a file outside the output folder) is refused
/// by a plain run and a resumed one: the target is neither truncated nor written, and no output
/// is written.
#[test]
fn a_link_at_the_partial_file_is_refused() {
    let dir = workspace();
    let root = dir.path();
    let results = root.join(format!("results/{NAME}"));
    std::fs::create_dir_all(&results).unwrap();
    let victim = root.join("victim.txt");
    std::fs::write(&victim, b"victim").unwrap();
    std::os::unix::fs::symlink(&victim, results.join(".full.partial.csv")).unwrap();
    for mut cmd in [reproduce(root, None), resumable(root, root, None)] {
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains("symbolic link"),
            "{stderr}"
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        assert!(!results.join("full.csv").exists());
    }
}
