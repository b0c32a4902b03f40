//! The line loop every text format shares (CSV, LIBSVM, a labels file): read line by line,
//! number the lines from 1, decode UTF-8, and turn a problem with a line into a
//! [`DataError::Parse`] naming the file and the line.

use std::io::BufRead;
use std::path::Path;

use super::error::{DataError, Result};

/// Calls `each` on every line of `reader` (without its line ending); returns the number of lines.
/// A read error, invalid UTF-8 or an `Err(problem)` from `each` stops the loop with an error at
/// that line.
pub(crate) fn for_each_line(
    mut reader: impl BufRead,
    origin: &Path,
    mut each: impl FnMut(&str) -> std::result::Result<(), String>,
) -> Result<usize> {
    let mut buf = Vec::new();
    let mut line_no = 0;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| DataError::io("cannot read", origin, e))?;
        if read == 0 {
            return Ok(line_no);
        }
        line_no += 1;
        let fail = |problem: String| DataError::Parse {
            path: origin.to_path_buf(),
            line: line_no,
            problem,
        };
        let line = std::str::from_utf8(&buf).map_err(|_| fail("not valid UTF-8".into()))?;
        // A byte order mark is an editor's, not the first field's.
        let line = match line_no {
            1 => line.strip_prefix(super::source::BOM).unwrap_or(line),
            _ => line,
        };
        each(line.trim_end_matches(['\n', '\r'])).map_err(fail)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_line() {
        let mut seen = Vec::new();
        for_each_line(
            "\u{feff}label,x\n\u{feff}1,2".as_bytes(),
            Path::new("f"),
            |l| {
                seen.push(l.to_string());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, ["label,x", "\u{feff}1,2"]);
    }

    #[test]
    fn lines_are_numbered_and_problems_name_them() {
        let mut seen = Vec::new();
        let n = for_each_line("a\r\nb\n\nc".as_bytes(), Path::new("f"), |l| {
            seen.push(l.to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(
            (n, seen),
            (4, vec!["a".into(), "b".into(), "".into(), "c".into()])
        );
        let err = for_each_line("ok\nbad\n".as_bytes(), Path::new("f"), |l| {
            if l == "bad" {
                Err("no good".into())
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert!(matches!(err, DataError::Parse { line: 2, .. }), "{err}");
        let err = for_each_line(&b"\xff\n"[..], Path::new("f"), |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("UTF-8"), "{err}");
    }
}
