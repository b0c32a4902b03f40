//! How much faster the parsed binary cache makes loading Adult than parsing its LIBSVM files.
//!
//! Run in a release build, with the Adult files reachable (mirror or cache):
//!
//! ```sh
//! RFBENCH_MIRROR=../shared/datasets/adult cargo run --release -p rfbench --example adult_cache
//! ```
//!
//! Both sides start from files already on disk and verified: "parse" is `parse_files` on a9a and
//! a9a.t (text to CSR matrix, as a first load does after the download), "cache" is reading the
//! binary cache file back (as every later load does, after checking the sources' digests, which
//! both paths pay equally and is left out). Each is timed `ROUNDS` times, interleaved so that
//! machine load affects both alike; the minimum of each is reported, with the median beside it.

use std::time::Instant;

use rfbench_data::{FetchOptions, Registry};

const ROUNDS: usize = 15;

fn main() -> anyhow::Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let registry = Registry::from_file(&root.join("datasets.toml"))?;
    let entry = registry.get("adult")?;
    let scratch = tempfile::tempdir()?;
    let opts = FetchOptions {
        cache_dir: scratch.path().to_path_buf(),
        ..FetchOptions::from_env()
    };
    let paths = rfbench_data::fetch(entry, &opts)?;
    let first = rfbench_data::load_report(entry, &opts)?;
    anyhow::ensure!(!first.from_cache, "the scratch cache should start empty");

    let (mut parse, mut read) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let parsed = rfbench_data::parse_files(entry, &paths)?;
        parse.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let cached = rfbench_data::read_parsed_cache(&first.cache, &entry.name)?;
        read.push(t.elapsed().as_secs_f64());
        anyhow::ensure!(
            parsed.x == cached.x && parsed.y == cached.y,
            "the cache holds another matrix than the parse"
        );
    }
    let stats = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[0], v[v.len() / 2])
    };
    let ((parse_min, parse_median), (read_min, read_median)) =
        (stats(&mut parse), stats(&mut read));
    let bytes = std::fs::metadata(&first.cache)?.len();
    println!(
        "adult ({} x {}, {} non-zeros; cache file {:.1} MB), {ROUNDS} interleaved rounds:",
        first.dataset.x.n_rows(),
        first.dataset.x.n_cols(),
        first.dataset.x.nnz(),
        bytes as f64 / 1e6
    );
    println!("  parse LIBSVM files: min {parse_min:.4} s, median {parse_median:.4} s");
    println!("  read binary cache:  min {read_min:.4} s, median {read_median:.4} s");
    println!(
        "  speed-up (parse / cache): {:.1}x on minima, {:.1}x on medians",
        parse_min / read_min,
        parse_median / read_median
    );
    Ok(())
}
