//! What each column of a user's delimited file (or Parquet or Arrow IPC file) holds, decided on every row of every file, not
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

use super::cell::{Cell, Place};
use super::error::{DataError, Result};
use super::fields::split_line;
use super::registry::CsvOptions;
use super::table::Table;

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
    first_text: Option<(Place, FirstText)>,
    distinct: BTreeSet<String>,
}

/// The first cell of a column that is not a number: its text, or a null.
enum FirstText {
    Text(String),
    Null,
}

/// The tallies of every column over every row read so far, with the columns' names.
struct Tallies {
    names: Vec<String>,
    tallies: Vec<Tally>,
    rows: usize,
}

impl Tallies {
    fn new(names: Vec<String>) -> Self {
        let tallies = names.iter().map(|_| Tally::default()).collect();
        Tallies {
            names,
            tallies,
            rows: 0,
        }
    }

    /// Counts one row; `place` names it, should a cell be the first of its column that is not
    /// a number.
    fn add_row(&mut self, cells: &[Cell<'_>], place: impl Fn() -> Place) {
        self.rows += 1;
        for (tally, cell) in self.tallies.iter_mut().zip(cells) {
            if cell.finite().is_ok() {
                tally.numbers += 1;
                continue;
            }
            tally.texts += 1;
            if tally.first_text.is_none() {
                let first = match cell {
                    Cell::Missing => FirstText::Null,
                    other => FirstText::Text(other.text().into_owned()),
                };
                tally.first_text = Some((place(), first));
            }
            if tally.distinct.len() <= self.rows.max(IDENTIFIER_MIN) {
                tally.distinct.insert(cell.text().into_owned());
            }
        }
    }

    /// Every non-label column's kind, filling `csv.categorical_columns` and `csv.skip_columns`.
    fn decide(self, csv: &mut CsvOptions) -> Result<Kinds> {
        let width = self.tallies.len() as i64;
        let label = if csv.label_column < 0 {
            width + csv.label_column
        } else {
            csv.label_column
        } as usize;
        let mut kinds = Vec::new();
        for (c, (tally, name)) in self.tallies.iter().zip(&self.names).enumerate() {
            if c == label {
                continue;
            }
            let kind = decide_column(tally, name, self.rows)?;
            match kind {
                Kind::Categorical(_) => csv.categorical_columns.push(c),
                Kind::Identifier(..) => csv.skip_columns.push(c),
                Kind::Numeric => {}
            }
            kinds.push((name.clone(), kind));
        }
        Ok(Kinds { columns: kinds })
    }
}

/// Decides every non-label column of `paths` read with `csv` (its separator, header and label
/// column), filling `csv.categorical_columns` and `csv.skip_columns`.
pub fn decide(paths: &[&Path], csv: &mut CsvOptions) -> Result<Kinds> {
    let mut tallies: Option<Tallies> = None;
    for path in paths {
        let reader = super::source::open_text(path)?;
        let mut header_pending = csv.header;
        for (k, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| DataError::io("cannot read", path, e))?;
            if line.trim().is_empty() {
                continue;
            }
            let fields = split_line(&line, &csv.separator, path, k + 1)?;
            let tallies = tallies.get_or_insert_with(|| {
                Tallies::new((0..fields.len()).map(|c| format!("column {c}")).collect())
            });
            if std::mem::take(&mut header_pending) {
                tallies.names = fields.iter().map(|f| format!("column '{f}'")).collect();
                continue;
            }
            let cells: Vec<Cell<'_>> = fields.iter().map(|f| Cell::Text(f)).collect();
            tallies.add_row(&cells, || Place::Line(path.to_path_buf(), k + 1));
        }
    }
    tallies
        .unwrap_or_else(|| Tallies::new(Vec::new()))
        .decide(csv)
}

/// [`decide`] for Parquet or Arrow IPC tables, whose schema names the columns (every table's
/// must be the first's).
pub(crate) fn decide_tables(tables: &[Table], csv: &mut CsvOptions) -> Result<Kinds> {
    let Some(first) = tables.first() else {
        return Ok(Kinds {
            columns: Vec::new(),
        });
    };
    let names = first
        .names
        .iter()
        .map(|n| format!("column '{n}'"))
        .collect();
    let mut tallies = Tallies::new(names);
    for table in tables {
        if table.names != first.names {
            return Err(DataError::TableColumns {
                path: table.path.clone(),
                problem: format!(
                    "its columns {:?} are not those of {} ({:?})",
                    table.names,
                    first.path.display(),
                    first.names
                ),
            });
        }
        let mut row = 0;
        table.for_each_row(|cells| {
            row += 1;
            tallies.add_row(cells, || Place::row(&table.path, row));
            Ok(())
        })?;
    }
    tallies.decide(csv)
}

/// One column's kind from its tally: numbers on most rows make it numeric (and any other cell
/// an error); else distinct texts on most rows make it an identifier, fewer a category column.
fn decide_column(tally: &Tally, name: &str, rows: usize) -> Result<Kind> {
    let Some((place, first)) = &tally.first_text else {
        return Ok(Kind::Numeric);
    };
    let decimal_comma =
        |v: &str| v.contains(',') && Cell::Text(&v.replace(',', ".")).finite().is_ok();
    let (value, shown) = match first {
        FirstText::Text(v) => (v.as_str(), format!("{v:?}")),
        FirstText::Null => ("", "null".to_string()),
    };
    if tally.numbers > tally.texts || decimal_comma(value) {
        let hint = match first {
            FirstText::Null => " (a null: rfbench does not guess missing values)",
            _ if decimal_comma(value) => {
                " (a decimal comma: rfbench reads decimal points only; convert the file)"
            }
            _ if value.is_empty() => " (an empty cell: rfbench does not guess missing values)",
            _ => " (rfbench does not guess missing or malformed values)",
        };
        return Err(place.error(format!(
            "{name} holds numbers on {} of {rows} rows, but here {shown}, which is \
             not a finite number{hint}: fix or remove the {} such row(s), or drop the column",
            tally.numbers, tally.texts
        )));
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
