//! Issue 67, item 7: how long a million-row file takes to read as Parquet and as CSV, the way
//! `rfbench compare FILE` reads it (described: every column's kind decided on every row, the
//! labels, the size; then loaded through the entry it wrote).
//!
//! `cargo run --release -p rfbench-data --example table_read_timer -- [N] [DIR]`
//!
//! Writes `DIR/rows-N.csv` and `DIR/rows-N.parquet` (N rows, default 1,000,000, of our
//! `make_classification` with d = 28, 8 informative columns, 2 classes, seed 0; the label last,
//! the numbers as Rust writes an `f64`) unless they are there, then prints the seconds to
//! describe and to load each, best of three.

use std::path::{Path, PathBuf};
use std::time::Instant;

use polars::prelude::{Column, DataFrame, NamedFrom, ParquetWriter, Series};
use rfbench_data::{
    describe_files, make_classification, parse_files, DescribeOptions, MakeClassification,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(1_000_000), |a| a.parse())?;
    let dir = PathBuf::from(
        args.get(1)
            .map_or("target/table-read-timer", String::as_str),
    );
    std::fs::create_dir_all(&dir)?;
    let csv = dir.join(format!("rows-{n}.csv"));
    let parquet = dir.join(format!("rows-{n}.parquet"));
    if !csv.is_file() || !parquet.is_file() {
        write_files(n, &csv, &parquet)?;
    }
    for path in [&parquet, &csv] {
        let size = std::fs::metadata(path)?.len() as f64 / 1e6;
        let (mut describe, mut load) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..3 {
            let (d, l) = time_once(path)?;
            describe = describe.min(d);
            load = load.min(l);
        }
        println!(
            "{}: {size:.0} MB, describe {describe:.2} s, load {load:.2} s, total {:.2} s",
            path.display(),
            describe + load
        );
    }
    Ok(())
}

/// Seconds to describe `path` and to load it through the entry described.
fn time_once(path: &Path) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let described = describe_files("rows", path, None, &DescribeOptions::default())?;
    let describe = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let data = parse_files(&described.entry, &[path.to_path_buf()])?;
    let load = start.elapsed().as_secs_f64();
    assert_eq!(data.x.n_cols(), 28);
    Ok((describe, load))
}

fn write_files(n: usize, csv: &Path, parquet: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let params = MakeClassification {
        n,
        d: 28,
        n_informative: 8,
        n_redundant: 4,
        ..MakeClassification::default()
    };
    let data = make_classification(&params, 0)?;
    let x = data.x.to_dense();
    let mut text = String::with_capacity(n * 28 * 20);
    let names: Vec<String> = (0..28).map(|j| format!("x{j}")).collect();
    text += &names.join(",");
    text += ",label\n";
    for (row, label) in x.rows().into_iter().zip(&data.y) {
        for v in row {
            text += &format!("{v},");
        }
        text += &format!("{label}\n");
    }
    std::fs::write(csv, text)?;
    let mut columns: Vec<Column> = names
        .iter()
        .enumerate()
        .map(|(j, name)| Series::new(name.into(), x.column(j).to_vec()).into())
        .collect();
    let labels: Vec<i64> = data.y.iter().map(|&y| y as i64).collect();
    columns.push(Series::new("label".into(), labels).into());
    let mut frame = DataFrame::new_infer_height(columns)?;
    ParquetWriter::new(std::fs::File::create(parquet)?).finish(&mut frame)?;
    Ok(())
}
