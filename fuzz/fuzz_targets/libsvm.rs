//! Any bytes given to the LIBSVM parser give a matrix or an error, never a panic, and a parsed
//! matrix always has the declared width.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use rfbench_data::parse_libsvm;

fuzz_target!(|bytes: &[u8]| {
    if let Ok((x, y)) = parse_libsvm(bytes, Path::new("fuzz.svm"), Some(64)) {
        assert_eq!(x.n_rows(), y.len());
        assert_eq!(x.n_cols(), 64);
    }
    let _ = parse_libsvm(bytes, Path::new("fuzz.svm"), None);
});
