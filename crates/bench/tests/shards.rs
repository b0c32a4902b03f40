//! Sharded runs without SLURM: on every experiment kind, the N shards of a spec merged give the
//! one-process results for N = 1, 2, 3 and 7 (every column but the timings and provenance), and
//! the merge refuses a missing shard, a duplicated or foreign run, and shards of another spec.

use std::path::Path;

use rfbench::merge::merge;
use rfbench::run::{reproduce, RunOptions};
use rfbench::shard::Shard;
use rfbench::spec::Profile;

mod common;
use common::*;

/// Columns that differ from run to run: where, when and with what a row ran, and timings.
fn varies(column: &str) -> bool {
    ["rfbench_version", "git_commit", "threads", "cpu", "date"].contains(&column)
        || column.contains("second")
}

/// The CSV's header and rows without the columns that vary.
fn stable(path: &Path) -> Vec<Vec<String>> {
    let (header, rows) = csv(path);
    let keep: Vec<usize> = (0..header.len()).filter(|&i| !varies(&header[i])).collect();
    std::iter::once(header)
        .chain(rows)
        .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
        .collect()
}

/// Runs every shard of `count` into `out`, then merges them there.
fn run_sharded(
    spec: &str,
    options: &RunOptions,
    out: &Path,
    count: usize,
) -> rfbench::merge::Merged {
    let mut runs = 0;
    for index in 1..=count {
        let sharded = RunOptions {
            out_dir: out.to_path_buf(),
            shard: Some(Shard::new(index, count).unwrap()),
            ..options.clone()
        };
        let outcome = reproduce(spec, &Profile::Full, &sharded).unwrap();
        assert!(outcome.rendered.figures.is_empty(), "a shard draws nothing");
        runs += outcome.rows.len();
    }
    // kernel-error-demo's `offline` dataset is reachable nowhere: its runs are skipped in the
    // one-process run too, so the holes are accepted here.
    let merged = merge(
        spec,
        &Profile::Full,
        &RunOptions {
            out_dir: out.to_path_buf(),
            allow_skipped: true,
            ..options.clone()
        },
        None,
    )
    .unwrap();
    assert_eq!(
        runs,
        csv(&merged.csv).1.len(),
        "{spec}, {count} shards: each run once"
    );
    merged
}

#[test]
fn the_merged_shards_equal_the_one_process_run_on_every_kind() {
    let (dir, options) = workspace();
    for spec in [
        "kernel-error-demo",
        "gram-error-demo",
        "timing-demo",
        "learning-demo",
    ] {
        let whole = reproduce(spec, &Profile::Full, &options).unwrap();
        let expected = stable(&whole.csv);
        for count in [1, 2, 3, 7] {
            let out = dir.path().join(format!("{spec}-{count}"));
            let merged = run_sharded(spec, &options, &out, count);
            assert_eq!(
                stable(&merged.csv),
                expected,
                "{spec}: {count} shards merged"
            );
            // The figures and tables are drawn as a one-process run draws them; the shards are
            // gone, joined into the results.
            assert_eq!(merged.rendered.figures.len(), whole.rendered.figures.len());
            let left: Vec<String> = std::fs::read_dir(out.join("results").join(spec))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".shard-") || n.contains(".partial."))
                .collect();
            assert!(left.is_empty(), "{spec}, {count} shards: {left:?} left");
        }
    }
}

/// Runs shards `which` of `count` of the learning demo into `out`.
fn shards(options: &RunOptions, out: &Path, count: usize, which: &[usize]) {
    for &index in which {
        let sharded = RunOptions {
            out_dir: out.to_path_buf(),
            shard: Some(Shard::new(index, count).unwrap()),
            ..options.clone()
        };
        reproduce("gram-error-demo", &Profile::Full, &sharded).unwrap();
    }
}

fn merge_error(options: &RunOptions, out: &Path, count: Option<usize>) -> String {
    let options = RunOptions {
        out_dir: out.to_path_buf(),
        ..options.clone()
    };
    let err = merge("gram-error-demo", &Profile::Full, &options, count)
        .unwrap_err()
        .to_string();
    assert!(
        !out.join("results/gram-error-demo/full.csv").exists(),
        "a refused merge writes nothing: {err}"
    );
    err
}

#[test]
fn a_merge_refuses_missing_duplicated_and_foreign_shards() {
    let (dir, options) = workspace();
    let out = dir.path().join("out");
    let results = out.join("results/gram-error-demo");
    let shard_csv = |i: usize, n: usize| results.join(format!("full.shard-{i}-of-{n}.csv"));

    // Nothing to merge.
    let err = merge_error(&options, &out, None);
    assert!(err.contains("no shards of gram-error-demo"), "{err}");

    // A shard missing.
    shards(&options, &out, 3, &[1, 3]);
    let err = merge_error(&options, &out, None);
    assert!(
        err.contains("shard(s) 2/3 of gram-error-demo/full missing"),
        "{err}"
    );

    // Shards of two counts: which to merge must be said.
    shards(&options, &out, 2, &[1, 2]);
    let err = merge_error(&options, &out, None);
    assert!(err.contains("2 different shard counts ([2, 3])"), "{err}");

    // A run in two shards (a row of shard 1 copied into shard 2): named with both shards.
    let (header, first) = csv(&shard_csv(1, 2));
    let (_, mut second) = csv(&shard_csv(2, 2));
    second.push(first[0].clone());
    let text = rfbench::results::write_records(&header, second.clone()).unwrap();
    std::fs::write(shard_csv(2, 2), text).unwrap();
    let err = merge_error(&options, &out, Some(2));
    assert!(err.contains("is in 2 shards (1, 2)"), "{err}");

    // A run in no shard (the copy replaces a row of shard 2 instead): named with its shard.
    second.remove(0);
    let text = rfbench::results::write_records(&header, second).unwrap();
    std::fs::write(shard_csv(2, 2), text).unwrap();
    let err = merge_error(&options, &out, Some(2));
    assert!(
        err.contains("is in no shard (it is shard 2/2's") && err.contains("is in 2 shards"),
        "{err}"
    );

    // A shard of another version of the spec: the spec changed after the shards ran.
    shards(&options, &out, 2, &[2]);
    let spec = options.root.join("experiments/gram-error-demo.toml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("repetitions = 2", "repetitions = 3")).unwrap();
    let err = merge_error(&options, &out, Some(2));
    assert!(err.contains("with another version of"), "{err}");
    std::fs::write(&spec, &text).unwrap();

    // A shard whose manifest says another commit: the code differs between shards.
    let manifest = results.join("full.shard-2-of-2.toml");
    let edited = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("git_commit = \"", "git_commit = \"0000000");
    std::fs::write(&manifest, edited).unwrap();
    let err = merge_error(&options, &out, Some(2));
    assert!(
        err.contains("shard 2/2 was run by rfbench") && err.contains("0000000"),
        "{err}"
    );

    // Both shards at the same uncommitted commit, built from different edits: the manifests
    // record the executable that ran (here the test's own), and the merge refuses two.
    shards(&options, &out, 2, &[2]);
    let ours = hex_sha256(&std::fs::read(std::env::current_exe().unwrap()).unwrap());
    for i in 1..=2 {
        let path = results.join(format!("full.shard-{i}-of-2.toml"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("binary_sha256 = \"{ours}\"")),
            "{text}"
        );
        let digest = if i == 1 { ours.clone() } else { "f".repeat(64) };
        let edited = text
            .lines()
            .map(|l| match l.split_once(" = ") {
                Some(("git_commit", _)) => "git_commit = \"abc123-dirty\"".to_string(),
                Some(("binary_sha256", _)) => format!("binary_sha256 = \"{digest}\""),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&path, edited).unwrap();
    }
    let err = merge_error(&options, &out, Some(2));
    assert!(
        err.contains("another build than shard 1") && err.contains("abc123-dirty"),
        "{err}"
    );

    // Rerun, the shards merge.
    shards(&options, &out, 2, &[1, 2]);
    let merged = merge(
        "gram-error-demo",
        &Profile::Full,
        &RunOptions {
            out_dir: out.clone(),
            ..options.clone()
        },
        Some(2),
    )
    .unwrap();
    assert!(merged.csv.is_file());
    // The 3-shard run's files are left alone: they are not the ones merged.
    assert!(shard_csv(1, 3).is_file() && !shard_csv(1, 2).exists());
}

#[test]
fn a_merge_refuses_shards_that_skipped_runs_and_keeps_them() {
    let (dir, options) = workspace();
    let out = dir.path().join("holes");
    for index in 1..=2 {
        let sharded = RunOptions {
            out_dir: out.clone(),
            shard: Some(Shard::new(index, 2).unwrap()),
            ..options.clone()
        };
        reproduce("kernel-error-demo", &Profile::Full, &sharded).unwrap();
    }
    let merging = RunOptions {
        out_dir: out.clone(),
        ..options.clone()
    };
    let err = merge("kernel-error-demo", &Profile::Full, &merging, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("skipped runs for missing data") && err.contains("offline"),
        "{err}"
    );
    assert!(
        err.contains("--out-dir"),
        "the hint names the folder: {err}"
    );
    let results = out.join("results/kernel-error-demo");
    assert!(!results.join("full.csv").exists(), "{err}");
    for index in 1..=2 {
        assert!(
            results
                .join(format!("full.shard-{index}-of-2.csv"))
                .is_file(),
            "a refused merge keeps shard {index}"
        );
    }
    let allowed = RunOptions {
        allow_skipped: true,
        ..merging
    };
    merge("kernel-error-demo", &Profile::Full, &allowed, None).unwrap();
    assert!(results.join("full.csv").is_file());
}

/// The spec's digest (in a shard's manifest and a partial file's stamp) is of its values: a
/// comment or a layout change leaves a killed run's rows usable, a changed value does not
/// (issue 68).
#[test]
fn a_comment_only_edit_keeps_the_spec_digest() {
    let (_dir, options) = workspace();
    let digest = || {
        let plan =
            rfbench::spec::load_plan(&options.root, "gram-error-demo", &Profile::Full).unwrap();
        rfbench::shard::digests(&plan, &options.root).unwrap().0
    };
    let path = options.root.join("experiments/gram-error-demo.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let before = digest();
    let commented = format!(
        "# a note on the spec\n{}\n\n# and another\n",
        text.replace(" = ", "  =  ")
    );
    std::fs::write(&path, commented).unwrap();
    assert_eq!(digest(), before);
    std::fs::write(&path, text.replace("master_seed = 5", "master_seed = 6")).unwrap();
    assert_ne!(digest(), before);
}
