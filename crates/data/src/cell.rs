//! One cell of a user's table as the column rules see it, whatever file it came from: a field of
//! delimited text (always text), or a value of a Parquet or Arrow IPC column (a number, a text,
//! or a null). The rules ([`crate::columns`] deciding a column's kind, [`crate::csv`]'s reader
//! building the rows) take cells, so a Parquet file is judged by the code that judges a CSV file
//! rather than by a copy of it; and where a row was read ([`Place`]) names it in their errors.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::error::DataError;
use super::rows::parse_finite;

/// A cell: text as written, a typed number, or a null (a typed column's missing value).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Cell<'a> {
    Text(&'a str),
    Number(f64),
    Missing,
}

impl Cell<'_> {
    /// The cell as a finite number, or why it is not one ("'x' is not a number", "'NaN' is not
    /// finite (NaN)", "a null").
    pub fn finite(&self) -> std::result::Result<f64, String> {
        match *self {
            Cell::Text(text) => parse_finite(text),
            Cell::Number(v) if v.is_finite() => Ok(v),
            Cell::Number(v) => Err(format!("'{v}' is not finite ({v})")),
            Cell::Missing => Err("a null is not a number".into()),
        }
    }

    /// A missing value: an empty field, UCI's `?`, or a null.
    pub fn is_missing(&self) -> bool {
        matches!(self, Cell::Text("" | "?") | Cell::Missing)
    }

    /// The cell as text: a label or a category as a label map and a vocabulary key it (a number
    /// is written as Rust writes an `f64`, shortest first: `3`, `0.5`).
    pub fn text(&self) -> Cow<'_, str> {
        match *self {
            Cell::Text(text) => Cow::Borrowed(text),
            Cell::Number(v) => Cow::Owned(v.to_string()),
            Cell::Missing => Cow::Borrowed(""),
        }
    }

    /// The cell as an error message shows it: `'x'`, `'NaN'`, or `(a null)`.
    pub fn shown(&self) -> String {
        match self {
            Cell::Missing => "(a null)".into(),
            other => format!("'{}'", other.text()),
        }
    }
}

/// Where a row was read: a line of a text file, or a row of a table (both counted from 1).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Place {
    Line(PathBuf, usize),
    Row(PathBuf, usize),
}

impl Place {
    pub fn row(path: &Path, row: usize) -> Place {
        Place::Row(path.to_path_buf(), row)
    }

    /// A problem at this place, as the error that names the file and the line or row.
    pub fn error(&self, problem: String) -> DataError {
        match self {
            Place::Line(path, line) => DataError::Parse {
                path: path.clone(),
                line: *line,
                problem,
            },
            Place::Row(path, row) => DataError::ParseRow {
                path: path.clone(),
                row: *row,
                problem,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_numbers_text_and_missing_values() {
        assert_eq!(Cell::Text("2.5").finite(), Ok(2.5));
        assert_eq!(Cell::Number(-1.0).finite(), Ok(-1.0));
        for bad in [Cell::Text("x"), Cell::Number(f64::NAN), Cell::Missing] {
            assert!(bad.finite().is_err(), "{bad:?}");
        }
        assert!(Cell::Text("?").is_missing() && Cell::Missing.is_missing());
        assert!(!Cell::Number(0.0).is_missing());
        // A whole number reads as CSV writes it, so a label map made from text keys matches it.
        assert_eq!(Cell::Number(3.0).text(), "3");
        assert_eq!(Cell::Number(0.25).text(), "0.25");
        assert_eq!(
            (Cell::Missing.shown(), Cell::Text("a").shown()),
            ("(a null)".into(), "'a'".into())
        );
    }
}
