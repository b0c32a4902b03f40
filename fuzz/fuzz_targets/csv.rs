//! Any bytes given to the CSV parser, under a few option sets (the first byte picks one), give
//! a matrix or an error, never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use rfbench_data::{parse_csv, CsvOptions};

fuzz_target!(|bytes: &[u8]| {
    let Some((&selector, text)) = bytes.split_first() else {
        return;
    };
    let options = CsvOptions {
        separator: [",", ";", "\t", "whitespace"][usize::from(selector & 3)].into(),
        header: selector & 4 != 0,
        label_column: if selector & 8 != 0 { 0 } else { -1 },
        skip_columns: if selector & 16 != 0 { vec![1] } else { vec![] },
        categorical_columns: if selector & 32 != 0 { vec![2] } else { vec![] },
    };
    if let Ok((x, y)) = parse_csv(text, Path::new("fuzz.csv"), &options, None) {
        assert_eq!(x.n_rows(), y.len());
    }
});
