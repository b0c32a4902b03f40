//! Issue 27, item 5: our `make_classification` rows for a given seed, written for another tool to
//! read, so that scikit-learn's generator and ours can be compared draw by draw
//! (`scripts/studies/make_classification_draws.py`).
//!
//! `cargo run --release -p rfbench-data --example make_classification_rows -- N SEED OUT`
//!
//! Scikit-learn's defaults otherwise (d = 20, 2 informative, 2 redundant, 2 classes, 2 clusters
//! per class, class_sep 1, flip_y 0.01). OUT receives `N x 21` little-endian f64 values, row by
//! row: the 20 columns, then the label (0 or 1).

use std::io::Write;

use rfbench_data::{make_classification, MakeClassification};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, seed, out] = args.as_slice() else {
        return Err("usage: make_classification_rows N SEED OUT".into());
    };
    let params = MakeClassification {
        n: n.parse()?,
        ..MakeClassification::default()
    };
    let data = make_classification(&params, seed.parse()?)?;
    let x = data.x.to_dense();
    let mut bytes = Vec::with_capacity(x.nrows() * (x.ncols() + 1) * 8);
    for (row, label) in x.rows().into_iter().zip(&data.y) {
        for v in row.iter().chain(std::iter::once(label)) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    std::fs::File::create(out)?.write_all(&bytes)?;
    Ok(())
}
