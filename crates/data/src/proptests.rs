//! Randomised tests of the text parsers: valid files written from random rows parse back to
//! exactly those rows, and arbitrary bytes give a value or an error, never a panic. (A cargo
//! fuzz target over the same entry points lives in `fuzz/`.)

use std::path::Path;

use proptest::prelude::*;

use super::registry::CsvOptions;
use super::{parse_csv, parse_libsvm, parse_uci_adult};

/// Sparse rows: a label and strictly increasing (index, value) pairs, values non-zero.
fn sparse_rows() -> impl Strategy<Value = Vec<(i32, Vec<(usize, f64)>)>> {
    let row = (
        -5i32..5,
        proptest::collection::btree_map(1usize..40, -1e6f64..1e6, 0..8),
    )
        .prop_map(|(label, pairs)| {
            let pairs = pairs.into_iter().filter(|(_, v)| *v != 0.0).collect();
            (label, pairs)
        });
    proptest::collection::vec(row, 1..30)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn libsvm_round_trips(rows in sparse_rows(), crlf in any::<bool>()) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let text: String = rows
            .iter()
            .map(|(label, pairs)| {
                let items: Vec<String> =
                    pairs.iter().map(|(i, v)| format!("{i}:{v:?}")).collect();
                format!("{label} {}{eol}", items.join(" "))
            })
            .collect();
        let (x, y) = parse_libsvm(text.as_bytes(), Path::new("p.svm"), Some(40)).unwrap();
        prop_assert_eq!(x.n_rows(), rows.len());
        for (i, (label, pairs)) in rows.iter().enumerate() {
            prop_assert_eq!(y[i], f64::from(*label));
            let (idx, val) = x.row_parts(i);
            let want_idx: Vec<u32> = pairs.iter().map(|(j, _)| (*j - 1) as u32).collect();
            let want_val: Vec<f64> = pairs.iter().map(|(_, v)| *v).collect();
            prop_assert_eq!(idx, &want_idx[..]);
            prop_assert_eq!(val, &want_val[..]);
        }
    }

    #[test]
    fn csv_round_trips(
        rows in proptest::collection::vec(proptest::collection::vec(-1e3f64..1e3, 4), 1..30),
        sep in prop::sample::select(vec![",", ";", "\t"]),
    ) {
        let options = CsvOptions {
            separator: sep.to_string(),
            header: true,
            label_column: 0,
            skip_columns: vec![2],
            categorical_columns: vec![],
        };
        let mut text = format!("a{sep}b{sep}c{sep}d\n");
        for r in &rows {
            let fields: Vec<String> = r.iter().map(|v| format!("{v:?}")).collect();
            text.push_str(&fields.join(sep));
            text.push('\n');
        }
        let (x, y) = parse_csv(text.as_bytes(), Path::new("p.csv"), &options, None).unwrap();
        let dense = x.to_dense();
        prop_assert_eq!(dense.ncols(), 2);
        for (i, r) in rows.iter().enumerate() {
            prop_assert_eq!(y[i], r[0]);
            prop_assert_eq!(dense[[i, 0]], r[1]);
            prop_assert_eq!(dense[[i, 1]], r[3]);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_libsvm(&bytes[..], Path::new("f"), None);
        let _ = parse_libsvm(&bytes[..], Path::new("f"), Some(3));
        for separator in [",", "whitespace"] {
            let options = CsvOptions {
                separator: separator.into(),
                header: false,
                label_column: -1,
                skip_columns: vec![0],
                categorical_columns: vec![1],
            };
            let _ = parse_csv(&bytes[..], Path::new("f"), &options, None);
        }
        let _ = parse_uci_adult(&bytes[..], Path::new("f"));
    }

    #[test]
    fn libsvm_like_text_never_panics(text in "([-+0-9.eE:a-z#]{0,6}[ \t\n]){0,40}") {
        let _ = parse_libsvm(text.as_bytes(), Path::new("f"), Some(9));
    }
}
