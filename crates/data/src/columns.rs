//! What each column of a user's delimited file holds, decided on every row of every file, not
//! on a sample: a number column, a category column, or an identifier. A column is categorical
//! only when most of its values are not numbers; a number column with a cell that is not a
//! number (`NaN`, `inf`, an empty cell, a typo, a decimal comma) is an error naming the file,
//! line and column, never a silent switch to categories (one `NaN` in the first lines turned a
//! numeric column into thousands of one-hot columns and an accuracy of 96.7 % into chance). A
//! text column with a distinct value on most rows is an identifier and is left out. Every
//! decision is a line of the report ([`Kinds::describe`]).

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::Path;

use super::error::{DataError, Result};
use super::fields::split_line;
use super::registry::CsvOptions;

/// A text column with at least this share of distinct values (and more than
/// [`IDENTIFIER_MIN`] of them) names rows rather than describing them.
pub const IDENTIFIER_SHARE: f64 = 0.5;
pub const IDENTIFIER_MIN: usize = 50;

/// What was decided per column (the label excluded).
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Numeric,
    /// With its number of distinct values.
    Categorical(usize),
    /// Left out: distinct values, rows.
    Identifier(usize, usize),
}

/// The columns' kinds, with their names as the report writes them (`column 'NAME'` from the
/// header, or `column K`, 0-based).
#[derive(Debug, Clone)]
pub struct Kinds {
    pub columns: Vec<(String, Kind)>,
}

impl Kinds {
    /// One line for the report: every column's kind.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .columns
            .iter()
            .map(|(name, kind)| match kind {
                Kind::Numeric => format!("{name} numeric"),
                Kind::Categorical(k) => format!("{name} categorical ({k} values, one-hot)"),
                Kind::Identifier(k, n) => {
                    format!("{name} left out ({k} distinct texts in {n} rows: an identifier)")
                }
            })
            .collect();
        format!("columns: {}", parts.join("; "))
    }
}

/// Per column: numbers seen, the first cell that is not one, distinct texts (up to a cap).
#[derive(Default)]
struct Tally {
    numbers: usize,
    texts: usize,
    first_text: Option<(std::path::PathBuf, usize, String)>,
    distinct: BTreeSet<String>,
}

fn is_number(field: &str) -> bool {
    field.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Decides every non-label column of `paths` read with `csv` (its separator, header and label
/// column), filling `csv.categorical_columns` and `csv.skip_columns`.
pub fn decide(paths: &[&Path], csv: &mut CsvOptions) -> Result<Kinds> {
    let mut names: Vec<String> = Vec::new();
    let mut tallies: Vec<Tally> = Vec::new();
    let mut rows = 0;
    for path in paths {
        let reader = super::source::open_text(path)?;
        let mut header_pending = csv.header;
        for (k, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| DataError::io("cannot read", path, e))?;
            if line.trim().is_empty() {
                continue;
            }
            let fields = split_line(&line, &csv.separator, path, k + 1)?;
            if tallies.is_empty() {
                tallies = (0..fields.len()).map(|_| Tally::default()).collect();
                names = (0..fields.len()).map(|c| format!("column {c}")).collect();
            }
            if std::mem::take(&mut header_pending) {
                names = fields.iter().map(|f| format!("column '{f}'")).collect();
                continue;
            }
            rows += 1;
            for (tally, field) in tallies.iter_mut().zip(&fields) {
                if is_number(field) {
                    tally.numbers += 1;
                    continue;
                }
                tally.texts += 1;
                if tally.first_text.is_none() {
                    tally.first_text = Some((path.to_path_buf(), k + 1, field.to_string()));
                }
                if tally.distinct.len() <= rows.max(IDENTIFIER_MIN) {
                    tally.distinct.insert(field.to_string());
                }
            }
        }
    }
    let width = tallies.len() as i64;
    let label = if csv.label_column < 0 {
        width + csv.label_column
    } else {
        csv.label_column
    } as usize;
    let mut kinds = Vec::new();
    for (c, (tally, name)) in tallies.iter().zip(&names).enumerate() {
        if c == label {
            continue;
        }
        let kind = decide_column(tally, name, rows)?;
        match kind {
            Kind::Categorical(_) => csv.categorical_columns.push(c),
            Kind::Identifier(..) => csv.skip_columns.push(c),
            Kind::Numeric => {}
        }
        kinds.push((name.clone(), kind));
    }
    Ok(Kinds { columns: kinds })
}

/// One column's kind from its tally: numbers on most rows make it numeric (and any other cell
/// an error); else distinct texts on most rows make it an identifier, fewer a category column.
fn decide_column(tally: &Tally, name: &str, rows: usize) -> Result<Kind> {
    let Some((path, line, value)) = &tally.first_text else {
        return Ok(Kind::Numeric);
    };
    let decimal_comma = |v: &str| v.contains(',') && is_number(&v.replace(',', "."));
    if tally.numbers > tally.texts || decimal_comma(value) {
        let hint = match value.as_str() {
            v if decimal_comma(v) => {
                " (a decimal comma: rfbench reads decimal points only; convert the file)"
            }
            "" => " (an empty cell: rfbench does not guess missing values)",
            _ => " (rfbench does not guess missing or malformed values)",
        };
        return Err(DataError::Parse {
            path: path.clone(),
            line: *line,
            problem: format!(
                "{name} holds numbers on {} of {rows} rows, but here {value:?}, which is \
                 not a finite number{hint}: fix or remove the {} such row(s), or drop the column",
                tally.numbers, tally.texts
            ),
        });
    }
    let distinct = tally.distinct.len();
    if distinct > IDENTIFIER_MIN && distinct as f64 >= IDENTIFIER_SHARE * rows as f64 {
        return Ok(Kind::Identifier(distinct, rows));
    }
    Ok(Kind::Categorical(distinct))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::CsvOptions;

    fn options() -> CsvOptions {
        CsvOptions {
            separator: ",".into(),
            header: true,
            label_column: -1,
            skip_columns: Vec::new(),
            categorical_columns: Vec::new(),
        }
    }

    fn file(dir: &Path, text: &str) -> std::path::PathBuf {
        let path = dir.join("data.csv");
        std::fs::write(&path, text).unwrap();
        path
    }

    /// 300 rows: a numeric column, a colour, an id, the label.
    fn rows(bad: Option<(usize, &str)>) -> String {
        let mut text = String::from("x,colour,id,y\n");
        for i in 0..300 {
            let x = match bad {
                Some((at, v)) if at == i => v.to_string(),
                _ => format!("{}.5", i % 7),
            };
            let colour = ["red", "blue", "green"][i % 3];
            text += &format!("{x},{colour},row-{i},{}\n", i % 2);
        }
        text
    }

    #[test]
    fn numbers_categories_and_identifiers_are_told_apart_on_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(dir.path(), &rows(None));
        let mut csv = options();
        let kinds = decide(&[&path], &mut csv).unwrap();
        assert_eq!(csv.categorical_columns, [1]);
        assert_eq!(csv.skip_columns, [2]);
        assert_eq!(kinds.columns[0], ("column 'x'".into(), Kind::Numeric));
        assert_eq!(
            kinds.columns[1],
            ("column 'colour'".into(), Kind::Categorical(3))
        );
        assert_eq!(kinds.columns[2].1, Kind::Identifier(300, 300));
        assert!(
            kinds.describe().contains("'id' left out"),
            "{}",
            kinds.describe()
        );
    }

    /// A NaN, an inf, an empty cell, a typo or a decimal comma in a numeric column, first line
    /// or last: an error naming the line, the column and the value.
    #[test]
    fn a_bad_cell_in_a_numeric_column_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        for (at, value, says) in [
            (0, "NaN", "\"NaN\""),
            (299, "inf", "\"inf\""),
            (150, "", "an empty cell"),
            (10, "1.2.3", "\"1.2.3\""),
            (20, "3,5", "decimal comma"),
        ] {
            // Semicolons separate the fields, so that a decimal comma stays in its field.
            let text = rows(Some((at, value)))
                .replace(',', ";")
                .replace("3;5", "3,5");
            let path = file(dir.path(), &text);
            let mut csv = CsvOptions {
                separator: ";".into(),
                ..options()
            };
            let err = decide(&[&path], &mut csv).unwrap_err().to_string();
            let line = format!(":{}:", at + 2);
            assert!(
                err.contains(&line) && err.contains("column 'x'"),
                "{value}: {err}"
            );
            assert!(err.contains(says), "{value}: {err}");
        }
    }
}
