//! Issue 67: a large classification file from our `make_classification`, for `rfbench compare`
//! at scale (a million rows, d = 28, as the check writes it).
//!
//! `cargo run --release -p rfbench-data --example make_classification_csv -- N D SEED OUT.csv`
//!
//! Scikit-learn's defaults otherwise, but for 8 informative and 4 redundant columns (two
//! classes, two clusters per class, class_sep 1, flip_y 0.01). OUT gets a header (`x0, ...,
//! label`) and one row per line; it is written to OUT.part and renamed when complete.

use std::io::{BufWriter, Write};

use rfbench_data::{make_classification, MakeClassification};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, d, seed, out] = args.as_slice() else {
        return Err("usage: make_classification_csv N D SEED OUT.csv".into());
    };
    let params = MakeClassification {
        n: n.parse()?,
        d: d.parse()?,
        n_informative: 8,
        n_redundant: 4,
        ..MakeClassification::default()
    };
    let data = make_classification(&params, seed.parse()?)?;
    let x = data.x.to_dense();
    let part = format!("{out}.part");
    let mut file = BufWriter::new(std::fs::File::create(&part)?);
    let header: Vec<String> = (0..x.ncols()).map(|j| format!("x{j}")).collect();
    writeln!(file, "{},label", header.join(","))?;
    for (row, label) in x.rows().into_iter().zip(&data.y) {
        for v in row.iter() {
            write!(file, "{v:.6},")?;
        }
        writeln!(file, "{}", *label as i64)?;
    }
    file.into_inner()?.sync_all()?;
    std::fs::rename(&part, out)?;
    Ok(())
}
