//! The job scripts `rfbench slurm` writes, without a cluster: a spec whose folder name holds
//! quotes, `$()`, backticks and spaces gives scripts that parse (`bash -n`) and, run as task 1
//! of 2, execute nothing of the name; a task resubmitted alone is still its shard of the
//! script's count, and a plain reproduce ignores SLURM's variables; a newline in a name, or an
//! output folder an `#SBATCH` line cannot carry, is refused before anything is written.

use std::path::Path;
use std::process::Command;

mod common;
use common::*;

/// `rfbench --root ROOT slurm SPEC --quick --shards 2 --allow-skipped --out-dir OUT`, with the workspace's cache
/// and mirror: (success, stderr).
fn slurm(root: &Path, spec: &Path, out: &Path) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .arg("slurm")
        .arg(spec)
        // kernel-error-demo's `offline` dataset is reachable nowhere: its runs are skipped by
        // design, which a shard must be allowed to do.
        .args(["--quick", "--shards", "2", "--allow-skipped", "--out-dir"])
        .arg(out)
        .env("RFBENCH_CACHE", root.join("cache"))
        .env("RFBENCH_MIRROR", root.join("mirror"))
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Every file under `dir` whose name starts with `INJECTED`.
fn injected(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("INJECTED") {
            found.push(path.display().to_string());
        }
        if path.is_dir() && !path.is_symlink() {
            found.extend(injected(&path));
        }
    }
    found
}

/// Runs `array.sbatch` in `scripts` as SLURM starts task `id` of an array of ids `range`
/// (inclusive), in `root`; it must succeed.
fn array_task(scripts: &Path, root: &Path, id: usize, range: (usize, usize)) {
    let task = Command::new("bash")
        .arg(scripts.join("array.sbatch"))
        .current_dir(root)
        .env("SLURM_ARRAY_TASK_ID", id.to_string())
        .env(
            "SLURM_ARRAY_TASK_COUNT",
            (range.1 - range.0 + 1).to_string(),
        )
        .env("SLURM_ARRAY_TASK_MIN", range.0.to_string())
        .env("SLURM_ARRAY_TASK_MAX", range.1.to_string())
        .output()
        .unwrap();
    assert!(task.status.success(), "task {id}: {task:?}");
}

#[test]
fn hostile_names_are_quoted_or_refused() {
    let (dir, _) = workspace();
    let root = dir.path();
    let hostile = root.join("we ird'$(touch INJECTED1)`touch INJECTED2`\"x; touch INJECTED3");
    std::fs::create_dir_all(&hostile).unwrap();
    let spec = hostile.join("kernel-error-demo.toml");
    std::fs::write(&spec, KERNEL_ERROR).unwrap();
    let out = root.join("out");
    let (ok, stderr) = slurm(root, &spec, &out);
    assert!(ok, "{stderr}");
    let scripts = out.join("slurm/kernel-error-demo/quick");
    for name in ["array.sbatch", "merge.sbatch"] {
        let script = scripts.join(name);
        let check = Command::new("bash")
            .arg("-n")
            .arg(&script)
            .output()
            .unwrap();
        assert!(check.status.success(), "{name}: {check:?}");
    }
    // Task 1 of 2, as SLURM would start it: it runs its shard and nothing of the name.
    array_task(&scripts, root, 1, (1, 2));
    assert_eq!(injected(root), Vec::<String>::new());
    let results = out.join("results/kernel-error-demo");
    assert!(results.join("quick.shard-1-of-2.csv").is_file());
    // Task 2 resubmitted alone (`sbatch --array=2`: SLURM then says the array has one task)
    // is still shard 2 of 2: the count is the script's.
    array_task(&scripts, root, 2, (2, 2));
    assert!(results.join("quick.shard-2-of-2.csv").is_file());
    // A plain reproduce inside an array task's environment runs the whole spec.
    let plain = Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .arg("--root")
        .arg(root)
        .args(["reproduce", "kernel-error-demo", "--quick", "--out-dir"])
        .arg(root.join("plain"))
        .env("RFBENCH_CACHE", root.join("cache"))
        .env("RFBENCH_MIRROR", root.join("mirror"))
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    assert!(root
        .join("plain/results/kernel-error-demo/quick.csv")
        .is_file());

    // A newline in the spec's folder would end a line of the script: refused, nothing written.
    let newline = root.join("a\ntouch INJECTED4");
    std::fs::create_dir_all(&newline).unwrap();
    let spec = newline.join("kernel-error-demo.toml");
    std::fs::write(&spec, KERNEL_ERROR).unwrap();
    let out = root.join("out-newline");
    let (ok, stderr) = slurm(root, &spec, &out);
    assert!(!ok && stderr.contains("control character"), "{stderr}");
    assert!(!out.exists(), "a refused script wrote {}", out.display());

    // `#SBATCH --output` is read by sbatch, not a shell: a space cannot be quoted there.
    let spaced = root.join("out with space");
    let spec = root.join("experiments/kernel-error-demo.toml");
    let (ok, stderr) = slurm(root, &spec, &spaced);
    assert!(!ok && stderr.contains("--out-dir"), "{stderr}");
    assert!(!spaced.join("slurm").exists());

    // Nor can a spec's name, which names the log folder: refused, naming the rule.
    let named = root.join("k$(touch INJECTED5) b.toml");
    let text = KERNEL_ERROR.replace("kernel-error-demo", "k$(touch INJECTED5) b");
    std::fs::write(&named, text).unwrap();
    let (ok, stderr) = slurm(root, &named, &root.join("out-named"));
    assert!(!ok && stderr.contains("spec and profile names"), "{stderr}");
    assert_eq!(injected(root), Vec::<String>::new());
}

#[test]
fn scheduler_options_reach_the_scripts_and_a_task_pins_its_blas_threads() {
    let (dir, _) = workspace();
    let root = dir.path();
    let out = root.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .arg("--root")
        .arg(root)
        .args(["slurm", "learning-demo", "--shards", "3", "--cpus", "2"])
        .args([
            "--account=lab",
            "--qos=long",
            "--constraint=avx512",
            "--gres=gpu:1",
        ])
        .args([
            "--sbatch-arg=--nice=10",
            "--sbatch-arg",
            "--mail-type=END,FAIL",
        ])
        .args(["--retries", "2", "--out-dir"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("--dependency=afterany:$array"), "{stdout}");
    let scripts = out.join("slurm/learning-demo/full");
    let read = |name: &str| std::fs::read_to_string(scripts.join(name)).unwrap();
    let (array, merge) = (read("array.sbatch"), read("merge.sbatch"));
    for line in [
        "#SBATCH --account=lab",
        "#SBATCH --qos=long",
        "#SBATCH --nice=10",
        "#SBATCH --mail-type=END,FAIL",
    ] {
        assert!(array.contains(line) && merge.contains(line), "{line}");
    }
    for line in [
        "#SBATCH --constraint=avx512",
        "#SBATCH --gres=gpu:1",
        "#SBATCH --requeue",
        "#SBATCH --signal=B:USR1@120",
        "OPENBLAS_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-2}\"",
        "-lt 2 ]",
    ] {
        assert!(array.contains(line), "array.sbatch lacks {line}:\n{array}");
    }
    assert!(!merge.contains("--gres"), "the merge needs no GPU");
    for name in ["array.sbatch", "merge.sbatch"] {
        let check = Command::new("bash")
            .arg("-n")
            .arg(scripts.join(name))
            .output()
            .unwrap();
        assert!(check.status.success(), "{name}: {check:?}");
    }
    // The task with retries runs its shard through the requeue trap and exits as it does.
    array_task(&scripts, root, 1, (1, 3));
    assert!(out
        .join("results/learning-demo/full.shard-1-of-3.csv")
        .is_file());
    // An option sbatch would read as two words, or a shell expansion, is refused.
    let refused = Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .arg("--root")
        .arg(root)
        .args([
            "slurm",
            "learning-demo",
            "--shards",
            "2",
            "--sbatch-arg=--wrap=$(id)",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--sbatch-arg"));
}

#[test]
fn a_shard_that_skipped_runs_fails_but_keeps_its_rows() {
    let (dir, _) = workspace();
    let root = dir.path();
    let run = |allow: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rfbench"));
        cmd.arg("--root")
            .arg(root)
            .args([
                "reproduce",
                "kernel-error-demo",
                "--quick",
                "--shard",
                "1/2",
            ])
            .env("RFBENCH_CACHE", root.join("cache"))
            .env("RFBENCH_MIRROR", root.join("mirror"));
        if allow {
            cmd.arg("--allow-skipped");
        }
        cmd.output().unwrap()
    };
    let failed = run(false);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success(), "{stderr}");
    assert!(stderr.contains("counts as failed"), "{stderr}");
    let shard = root.join("results/kernel-error-demo/quick.shard-1-of-2.csv");
    assert!(shard.is_file(), "the rows it measured are written");
    assert!(run(true).status.success());
}

/// `--retries`: the USR1 that SLURM sends before the time limit makes the task requeue itself
/// (through `scontrol requeue ARRAY_TASK`) while its retries last, and not after; the run goes
/// on meanwhile and the task exits as the run does. `scontrol` is a stand-in that records its
/// arguments.
#[test]
fn the_retry_trap_requeues_the_task_until_its_retries_are_spent() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, _) = workspace();
    let root = dir.path();
    let out = root.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_rfbench"))
        .arg("--root")
        .arg(root)
        .args(["slurm", "learning-demo", "--shards", "3", "--retries", "2"])
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let bin = root.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("scontrol");
    std::fs::write(&fake, "#!/bin/sh\necho \"$@\" >> \"$FAKE_SCONTROL_LOG\"\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let scripts = out.join("slurm/learning-demo/full");
    let partial = out.join("results/learning-demo/.full.shard-1-of-3.partial.csv");
    for (restarts, requeued) in [(0, true), (2, false)] {
        let log = root.join(format!("scontrol-{restarts}.log"));
        let _ = std::fs::remove_file(&partial);
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let mut task = Command::new("bash")
            .arg(scripts.join("array.sbatch"))
            .current_dir(root)
            .env("PATH", path)
            .env("FAKE_SCONTROL_LOG", &log)
            .env("SLURM_ARRAY_TASK_ID", "1")
            .env("SLURM_ARRAY_JOB_ID", "77")
            .env("SLURM_RESTART_COUNT", restarts.to_string())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The signal arrives while the shard runs.
        let start = std::time::Instant::now();
        while !partial.exists() {
            assert!(start.elapsed().as_secs() < 120, "the shard never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let kill = Command::new("kill")
            .args(["-USR1", &task.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = task.wait().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut task.stderr.take().unwrap(), &mut stderr).unwrap();
        assert!(status.success(), "the run went on to its end: {stderr}");
        let calls = std::fs::read_to_string(&log).unwrap_or_default();
        match requeued {
            true => {
                assert_eq!(calls.trim(), "requeue 77_1", "{stderr}");
                assert!(stderr.contains("retry 1 of 2"), "{stderr}");
            }
            false => assert_eq!(calls, "", "no retry left: {stderr}"),
        }
    }
}

/// `--require-clean` (what `just reproduce-all --slurm` passes) refuses a root that is not a
/// clean git checkout before anything is written, and puts the same check in every task's
/// command line, so a tree changed while the tasks wait in the queue is refused too.
#[test]
fn a_clean_checkout_is_required_at_submission_and_in_every_task() {
    let (dir, _) = workspace();
    let root = dir.path();
    let slurm = || {
        Command::new(env!("CARGO_BIN_EXE_rfbench"))
            .arg("--root")
            .arg(root)
            .args(["slurm", "learning-demo", "--shards", "2", "--require-clean"])
            .output()
            .unwrap()
    };
    let scripts = root.join("slurm/learning-demo/full");
    let refused = slurm();
    assert!(!refused.status.success(), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not a git checkout"),
        "{refused:?}"
    );
    assert!(!scripts.exists(), "nothing is written for a refused run");

    let git = |args: &[&str]| {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "workspace"]);
    let written = slurm();
    assert!(written.status.success(), "{written:?}");
    let array = std::fs::read_to_string(scripts.join("array.sbatch")).unwrap();
    assert!(array.contains("--resume --require-clean"), "{array}");

    let spec = root.join("experiments/learning-demo.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, format!("{text}\n# an edit\n")).unwrap();
    let dirty = slurm();
    assert!(!dirty.status.success(), "{dirty:?}");
    assert!(
        String::from_utf8_lossy(&dirty.stderr).contains("uncommitted changes"),
        "{dirty:?}"
    );
}

/// A directory of stand-ins for `sbatch` (prints job id 101, 102, ..., logs its arguments to
/// `sbatch.log` beside it) and `squeue` (the script `squeue`), and the PATH that finds them
/// first.
fn fake_slurm(root: &Path, squeue: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let bin = root.join("fake-slurm");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = format!(
        "#!/bin/sh\necho \"$@\" >> {0}/sbatch.log\necho $((100 + $(wc -l < {0}/sbatch.log)))\n",
        bin.display()
    );
    for (name, text) in [("sbatch", sbatch.as_str()), ("squeue", squeue)] {
        std::fs::write(bin.join(name), text).unwrap();
        std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap())
}

/// After the spec is edited, `status` calls the shards of the old spec stale, not done (issue
/// 68 #7), and `--resubmit-failed` resubmits them with their stale partial files discarded, so
/// a task's `--resume` starts over instead of failing on them again; then the merge succeeds.
#[test]
fn shards_of_an_edited_spec_are_stale_and_a_resubmission_recovers_them() {
    let (dir, _) = workspace();
    let root = dir.path();
    let out = root.join("out");
    let path = fake_slurm(root, "#!/bin/sh\nexit 0\n");
    let rfbench = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_rfbench"))
            .arg("--root")
            .arg(root)
            .args(args)
            .arg("--out-dir")
            .arg(&out)
            .env("PATH", &path)
            .env("RFBENCH_CACHE", root.join("cache"))
            .env("RFBENCH_MIRROR", root.join("mirror"))
            .output()
            .unwrap()
    };
    let submitted = rfbench(&["slurm", "gram-error-demo", "--shards", "2", "--submit"]);
    assert!(submitted.status.success(), "{submitted:?}");
    let scripts = out.join("slurm/gram-error-demo/full");
    array_task(&scripts, root, 1, (1, 2));
    array_task(&scripts, root, 2, (1, 2));
    // Shard 2 as a task killed under the old spec leaves it: its rows in its partial file.
    let results = out.join("results/gram-error-demo");
    let spec = root.join("experiments/gram-error-demo.toml");
    let old = hex_sha256(&std::fs::read(&spec).unwrap());
    let datasets = hex_sha256(&std::fs::read(root.join("datasets.toml")).unwrap());
    let rows = std::fs::read_to_string(results.join("full.shard-2-of-2.csv")).unwrap();
    let partial = results.join(".full.shard-2-of-2.partial.csv");
    std::fs::write(
        &partial,
        format!(
            "# rfbench partial rows of spec_sha256={old} datasets_sha256={datasets} \
             rfbench_version=0 git_commit=x binary_sha256=y\n{rows}"
        ),
    )
    .unwrap();
    for file in ["full.shard-2-of-2.csv", "full.shard-2-of-2.toml"] {
        std::fs::remove_file(results.join(file)).unwrap();
    }
    let text = std::fs::read_to_string(&spec).unwrap();
    let edited = text.replacen("title = \"", "title = \"Edited: ", 1);
    assert_ne!(edited, text);
    std::fs::write(&spec, edited).unwrap();

    let status = rfbench(&["status", "gram-error-demo"]);
    let report = String::from_utf8_lossy(&status.stdout);
    assert!(report.contains("0 of 2 shards done"), "{report}");
    assert_eq!(report.matches("STALE").count(), 2, "{report}");
    assert!(report.contains("--resubmit-failed"), "{report}");

    let resubmitted = rfbench(&["slurm", "gram-error-demo", "--resubmit-failed"]);
    assert!(resubmitted.status.success(), "{resubmitted:?}");
    assert!(!partial.exists(), "the stale partial file is discarded");
    let log = std::fs::read_to_string(root.join("fake-slurm/sbatch.log")).unwrap();
    assert!(log.contains("--array=1,2"), "{log}");
    array_task(&scripts, root, 1, (1, 2));
    array_task(&scripts, root, 2, (1, 2));
    let status = rfbench(&["status", "gram-error-demo"]);
    let report = String::from_utf8_lossy(&status.stdout);
    assert!(report.contains("2 of 2 shards done"), "{report}");
    let merged = rfbench(&["merge", "gram-error-demo"]);
    assert!(merged.status.success(), "{merged:?}");
}

/// merge.sbatch's comment names the results file the merge writes by a path that exists once
/// merged (it named `results_SPEC_PROFILE.csv`, relative to nothing; issue 68).
#[test]
fn the_merge_script_names_the_results_file_it_writes() {
    let (dir, _) = workspace();
    let root = dir.path();
    let out = root.join("out");
    let (ok, stderr) = slurm(root, &root.join("experiments/kernel-error-demo.toml"), &out);
    assert!(ok, "{stderr}");
    let text =
        std::fs::read_to_string(out.join("slurm/kernel-error-demo/quick/merge.sbatch")).unwrap();
    let csv = std::path::absolute(out.join("results/kernel-error-demo/quick.csv")).unwrap();
    assert!(
        text.contains(&format!("merged into {},", csv.display())),
        "{text}"
    );
}

/// When squeue cannot be read, a submitted shard that wrote nothing is unknown, not failed, and
/// `status` does not recommend resubmitting tasks that may still run (issue 68).
#[test]
fn status_without_the_queue_does_not_call_submitted_shards_failed() {
    let (dir, _) = workspace();
    let root = dir.path();
    let out = root.join("out");
    let rfbench = |squeue: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_rfbench"))
            .arg("--root")
            .arg(root)
            .args(args)
            .arg("--out-dir")
            .arg(&out)
            .env("PATH", fake_slurm(root, squeue))
            .env("RFBENCH_CACHE", root.join("cache"))
            .env("RFBENCH_MIRROR", root.join("mirror"))
            .output()
            .unwrap()
    };
    let empty = "#!/bin/sh\nexit 0\n";
    let submitted = rfbench(
        empty,
        &["slurm", "gram-error-demo", "--shards", "2", "--submit"],
    );
    assert!(submitted.status.success(), "{submitted:?}");
    let broken =
        "#!/bin/sh\necho 'slurm_load_jobs error: Unable to contact controller' >&2\nexit 1\n";
    let status = rfbench(broken, &["status", "gram-error-demo"]);
    let report = String::from_utf8_lossy(&status.stdout);
    assert!(
        report.contains("UNKNOWN") && report.contains("squeue"),
        "{report}"
    );
    assert!(!report.contains("FAILED"), "{report}");
    assert!(!report.contains("--resubmit-failed"), "{report}");
    // With the queue read (the jobs ended, no shard written), they are failed, to resubmit.
    let status = rfbench(empty, &["status", "gram-error-demo"]);
    let report = String::from_utf8_lossy(&status.stdout);
    assert!(
        report.contains("FAILED") && report.contains("--resubmit-failed"),
        "{report}"
    );
}
