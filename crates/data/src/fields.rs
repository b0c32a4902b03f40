//! One line of delimited text split into its fields, with RFC 4180 quoting: a field that starts
//! with `"` may hold the separator, and `""` inside it is one quote (`1,"a, b",2` has three
//! fields). The quoting is csv-core's (the tokenizer under the `csv` crate), not ours; only the
//! lines that hold a quote go through it, so the common unquoted line costs one `split`.
//!
//! Why csv-core and not polars' reader, which the design card names for CSV: the runner's loader
//! and `compare`'s column inference must read a user's file the same way, field by field with
//! file, line and column in every error, and decide a column's kind on every row by one strict
//! rule (a number column with a bad cell is an error, not a null). Polars would give a second
//! reader with its own inference and null handling beside that rule, and a large build; what was
//! missing was only the quoting, which csv-core does.
//!
//! A field that holds a line break (a quote left open at the end of its line) is an error: the
//! readers are line by line, and taking the rest of the line as the field would read a wrong
//! table silently.

use std::borrow::Cow;
use std::path::Path;

use csv_core::{ReadRecordResult, ReaderBuilder};

use super::error::{DataError, Result};

/// The fields of one line: split at `separator` (one character; each field trimmed, quoted
/// fields unquoted) or, for `"whitespace"`, at runs of spaces and tabs (no quoting).
pub(crate) fn split_fields<'a>(
    line: &'a str,
    separator: &str,
) -> std::result::Result<Vec<Cow<'a, str>>, String> {
    if separator == "whitespace" {
        return Ok(line.split_ascii_whitespace().map(Cow::Borrowed).collect());
    }
    let sep = separator.chars().next().unwrap_or(',');
    if !line.contains('"') {
        return Ok(line.split(sep).map(|f| Cow::Borrowed(f.trim())).collect());
    }
    let sep = u8::try_from(u32::from(sep))
        .map_err(|_| format!("the separator '{sep}' is not a single byte"))?;
    quoted(line, sep)
}

/// [`split_fields`] of line `line_no` of `path`, a problem as a [`DataError::Parse`] naming them.
pub(crate) fn split_line<'a>(
    line: &'a str,
    separator: &str,
    path: &Path,
    line_no: usize,
) -> Result<Vec<Cow<'a, str>>> {
    split_fields(line, separator).map_err(|problem| DataError::Parse {
        path: path.to_path_buf(),
        line: line_no,
        problem,
    })
}

/// The fields of a line that holds a quote, through csv-core.
fn quoted(line: &str, sep: u8) -> std::result::Result<Vec<Cow<'_, str>>, String> {
    if line.bytes().filter(|&b| b == b'"').count() % 2 == 1 {
        return Err(
            "a quote is not closed on its line (a field holding a line break cannot be read; \
             an unquoted field must not contain '\"')"
                .into(),
        );
    }
    let mut reader = ReaderBuilder::new().delimiter(sep).build();
    // Unquoting never lengthens a field, and a line has at most one field per separator + 1.
    let mut output = vec![0u8; line.len()];
    let mut ends = vec![0usize; line.bytes().filter(|&b| b == sep).count() + 1];
    let mut input = line.as_bytes();
    let (mut written, mut n_ends) = (0, 0);
    loop {
        let (result, n_in, n_out, n_end) =
            reader.read_record(input, &mut output[written..], &mut ends[n_ends..]);
        input = &input[n_in..];
        written += n_out;
        n_ends += n_end;
        match result {
            ReadRecordResult::InputEmpty => {}
            ReadRecordResult::Record | ReadRecordResult::End => break,
            ReadRecordResult::OutputFull | ReadRecordResult::OutputEndsFull => {
                return Err("the line's fields could not be unquoted".into())
            }
        }
    }
    let mut start = 0;
    ends[..n_ends]
        .iter()
        .map(|&end| {
            let field = std::str::from_utf8(&output[start..end])
                .map_err(|_| "a quoted field is not valid UTF-8".to_string())?;
            start = end;
            Ok(Cow::Owned(field.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str, sep: &str) -> Vec<String> {
        split_fields(line, sep)
            .unwrap()
            .into_iter()
            .map(Cow::into_owned)
            .collect()
    }

    #[test]
    fn a_quoted_field_keeps_its_separator_and_doubled_quotes() {
        assert_eq!(split("1,\"a, b\",2", ","), ["1", "a, b", "2"]);
        assert_eq!(split("\"say \"\"hi\"\"\";3", ";"), ["say \"hi\"", "3"]);
        assert_eq!(split("\"x\",,\"\"", ","), ["x", "", ""]);
        assert_eq!(split("\"1,5\"\t2", "\t"), ["1,5", "2"]);
    }

    #[test]
    fn unquoted_lines_split_and_trim_as_before() {
        assert_eq!(split(" 1 , 2,3 ", ","), ["1", "2", "3"]);
        assert_eq!(split("1  2\t3", "whitespace"), ["1", "2", "3"]);
        assert_eq!(split("", ","), [""]);
    }

    #[test]
    fn a_quote_left_open_is_an_error() {
        let err = split_fields("1,\"a, b\n", ",").unwrap_err();
        assert!(err.contains("not closed"), "{err}");
        assert!(split_fields("1,2\"", ",").is_err());
    }
}
