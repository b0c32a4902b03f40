//! Parquet and Arrow IPC files (Feather version 2), read through polars' readers and handed,
//! row by row, to the column rules delimited text goes through ([`crate::columns`],
//! [`crate::csv`]): the same label column, the same kinds (numbers, categories one-hot,
//! identifiers left out), the same refusals, one code path.
//!
//! Why polars rather than a reader of our own: the design card names it for these formats, and
//! Parquet is a large format (encodings, compressions, nested pages, statistics) that a
//! well-kept reader gets right where a hand-written one would cover what its tests cover. Only
//! its readers are built (features `parquet` and `ipc`, no query engine). Why not polars for
//! delimited text too: see [`crate::fields`].
//!
//! A column's type decides its cells: integers and floats are numbers (a float NaN is a number
//! that is not finite, refused as a CSV's `NaN` is); strings, booleans (`true`/`false`) and
//! categories are text; a null is a missing value, refused as an empty CSV field is. Other types
//! (dates, times, durations, bytes, lists, structs, decimals) are an error naming the column and
//! its type: a date has no one number a user would agree with, and guessing is what the rules
//! exist to avoid. polars' reader runs behind `catch_unwind`, so a damaged file is an error
//! however it is damaged.

use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use polars::prelude::{
    ChunkedArray, DataFrame, DataType, Float64Type, IpcReader, ParquetReader, PolarsError,
    PolarsResult, SerReader, StringType,
};

use super::cell::{Cell, Place};
use super::error::{DataError, Result};
use super::registry::Format;

/// A table read whole: its column names (the schema's) and typed values.
pub(crate) struct Table {
    pub path: PathBuf,
    pub names: Vec<String>,
    columns: Vec<Values>,
    n_rows: usize,
}

/// One column's values, as the rules see them.
enum Values {
    Numbers(ChunkedArray<Float64Type>),
    Texts(ChunkedArray<StringType>),
    /// A column of nulls only (polars' `Null` type).
    Nulls,
}

impl Table {
    /// Reads `path` as `format` (Parquet or Arrow IPC); an empty file, a file without rows, a
    /// file polars cannot read and a column of an unusable type are errors naming the file.
    pub fn read(path: &Path, format: Format) -> Result<Table> {
        let format_name = match format {
            Format::Parquet => "Parquet",
            _ => "Arrow IPC",
        };
        let file = File::open(path).map_err(|e| DataError::io("cannot open", path, e))?;
        let size = file
            .metadata()
            .map_err(|e| DataError::io("cannot read", path, e))?
            .len();
        if size == 0 {
            return Err(DataError::Empty {
                path: path.to_path_buf(),
            });
        }
        let unreadable = |source| DataError::Table {
            path: path.to_path_buf(),
            format: format_name,
            source,
        };
        let frame = read_frame(file, format).map_err(unreadable)?;
        if frame.height() == 0 {
            return Err(DataError::Empty {
                path: path.to_path_buf(),
            });
        }
        let mut names = Vec::with_capacity(frame.width());
        let mut columns = Vec::with_capacity(frame.width());
        for column in frame.columns() {
            let name = column.name().to_string();
            let dtype = column.dtype();
            let values = if dtype.is_primitive_numeric() {
                let numbers = column.cast(&DataType::Float64).map_err(unreadable)?;
                Values::Numbers(numbers.f64().map_err(unreadable)?.clone())
            } else if dtype.is_string()
                || dtype.is_bool()
                || dtype.is_categorical()
                || dtype.is_enum()
            {
                let texts = column.cast(&DataType::String).map_err(unreadable)?;
                Values::Texts(texts.str().map_err(unreadable)?.clone())
            } else if dtype.is_null() {
                Values::Nulls
            } else {
                return Err(DataError::ColumnType {
                    path: path.to_path_buf(),
                    column: name,
                    dtype: dtype.to_string(),
                });
            };
            names.push(name);
            columns.push(values);
        }
        Ok(Table {
            path: path.to_path_buf(),
            names,
            columns,
            n_rows: frame.height(),
        })
    }

    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Calls `each` on every row's cells, in order; a problem it returns becomes an error
    /// naming the file and the row.
    pub fn for_each_row(
        &self,
        mut each: impl FnMut(&[Cell<'_>]) -> std::result::Result<(), String>,
    ) -> Result<()> {
        let mut columns: Vec<ColumnCells<'_>> = self
            .columns
            .iter()
            .map(|values| match values {
                Values::Numbers(c) => ColumnCells::Numbers(Box::new(c.iter())),
                Values::Texts(c) => ColumnCells::Texts(Box::new(c.iter())),
                Values::Nulls => ColumnCells::Nulls,
            })
            .collect();
        let mut cells = Vec::with_capacity(columns.len());
        for row in 0..self.n_rows {
            cells.clear();
            cells.extend(columns.iter_mut().map(ColumnCells::next));
            each(&cells).map_err(|problem| Place::row(&self.path, row + 1).error(problem))?;
        }
        Ok(())
    }
}

/// A column's cells, walked once in row order.
enum ColumnCells<'a> {
    Numbers(Box<dyn Iterator<Item = Option<f64>> + 'a>),
    Texts(Box<dyn Iterator<Item = Option<&'a str>> + 'a>),
    Nulls,
}

impl<'a> ColumnCells<'a> {
    #[inline]
    fn next(&mut self) -> Cell<'a> {
        match self {
            ColumnCells::Numbers(it) => it.next().flatten().map_or(Cell::Missing, Cell::Number),
            ColumnCells::Texts(it) => it.next().flatten().map_or(Cell::Missing, Cell::Text),
            ColumnCells::Nulls => Cell::Missing,
        }
    }
}

/// polars' reader on `file`; a panic inside it (a damaged file it did not foresee) is an error.
fn read_frame(file: File, format: Format) -> PolarsResult<DataFrame> {
    let read = catch_unwind(AssertUnwindSafe(|| match format {
        Format::Parquet => ParquetReader::new(file).finish(),
        _ => IpcReader::new(file).finish(),
    }));
    read.unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no message");
        Err(PolarsError::ComputeError(
            format!("the reader failed ({why}): the file is damaged or cut short").into(),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{describe_files, parse_files, Dataset, DescribeOptions, Described, Registry};
    use polars::prelude::{df, IpcWriter, NamedFrom, ParquetWriter, SerWriter, Series};

    /// 120 rows: two numbers (a float, an integer), a colour, a flag, a text label.
    fn frame() -> DataFrame {
        let n = 120;
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
        let k: Vec<i64> = (0..n).map(|i| (i % 9) as i64 - 4).collect();
        let colour: Vec<&str> = (0..n).map(|i| ["red", "blue", "green"][i % 3]).collect();
        let flag: Vec<bool> = (0..n).map(|i| i % 4 == 0).collect();
        let label: Vec<&str> = (0..n)
            .map(|i| if (i * 7) % 5 < 2 { "in" } else { "out" })
            .collect();
        df!("x" => x, "k" => k, "colour" => colour, "flag" => flag, "label" => label).unwrap()
    }

    /// The same rows as a CSV file with a header, numbers written as Rust writes them.
    fn as_csv(frame: &DataFrame) -> String {
        let mut text = String::from("x,k,colour,flag,label\n");
        let columns = frame.columns();
        let x = columns[0].f64().unwrap();
        let k = columns[1].i64().unwrap();
        let colour = columns[2].str().unwrap();
        let flag = columns[3].bool().unwrap();
        let label = columns[4].str().unwrap();
        for i in 0..frame.height() {
            text += &format!(
                "{},{},{},{},{}\n",
                x.get(i).unwrap(),
                k.get(i).unwrap(),
                colour.get(i).unwrap(),
                flag.get(i).unwrap(),
                label.get(i).unwrap()
            );
        }
        text
    }

    fn write(path: &Path, frame: &DataFrame) {
        let mut frame = frame.clone();
        let file = File::create(path).unwrap();
        match Format::columnar_of_file_name(&path.to_string_lossy()) {
            Some(Format::Parquet) => ParquetWriter::new(file).finish(&mut frame).map(drop),
            Some(Format::ArrowIpc) => IpcWriter::new(file).finish(&mut frame),
            other => panic!("not a columnar name: {other:?}"),
        }
        .unwrap();
    }

    /// Described, written as a spec's entry, read back and loaded: what `compare` does.
    fn described_and_loaded(path: &Path) -> (Described, Dataset) {
        let described = describe_files("t", path, None, &DescribeOptions::default()).unwrap();
        let text = crate::entry_toml(&described.entry);
        let registry = Registry::parse_embedded(&text, Path::new("spec.toml")).unwrap();
        let entry = registry.get("t").unwrap();
        assert_eq!(entry.format, described.entry.format, "{text}");
        assert_eq!(entry.csv, described.entry.csv, "{text}");
        let loaded = parse_files(entry, &[path.to_path_buf()]).unwrap();
        (described, loaded)
    }

    /// A Parquet file and an Arrow IPC file read as the CSV file of the same rows reads: the
    /// same guesses (kinds, task, labels, size) and the same matrix and labels.
    #[test]
    fn parquet_and_arrow_ipc_read_as_the_same_csv_reads() {
        let dir = tempfile::tempdir().unwrap();
        let frame = frame();
        let csv = dir.path().join("t.csv");
        std::fs::write(&csv, as_csv(&frame)).unwrap();
        let (from_csv, csv_data) = described_and_loaded(&csv);
        assert!(
            from_csv.guesses[1].contains("'colour' categorical (3 values")
                && from_csv.guesses[1].contains("'flag' categorical (2 values"),
            "{:?}",
            from_csv.guesses
        );
        for name in ["t.parquet", "t.arrow", "t.feather"] {
            let path = dir.path().join(name);
            write(&path, &frame);
            let (described, data) = described_and_loaded(&path);
            assert!(described.guesses[0].contains("label column -1 ('label')"));
            // Every guess after the format line, word for word.
            assert_eq!(described.guesses[1..], from_csv.guesses[1..], "{name}");
            assert_eq!(described.classes, from_csv.classes, "{name}");
            let csv_options = from_csv.entry.csv.as_ref().unwrap();
            let options = described.entry.csv.as_ref().unwrap();
            assert_eq!(options.categorical_columns, csv_options.categorical_columns);
            assert_eq!(data.x.to_dense(), csv_data.x.to_dense(), "{name}");
            assert_eq!(data.y, csv_data.y, "{name}");
            // Two numbers, then colour (3) and flag (2) one-hot.
            assert_eq!((data.x.n_rows(), data.x.n_cols()), (120, 7));
        }
    }

    /// The label by name or index, as for a CSV file with a header row.
    #[test]
    fn the_label_column_by_name_or_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        write(&path, &frame());
        let by = |column: &str| {
            let options = DescribeOptions {
                label_column: Some(column.into()),
                ..DescribeOptions::default()
            };
            describe_files("t", &path, None, &options)
        };
        let d = by("k").unwrap();
        assert_eq!(d.entry.csv.as_ref().unwrap().label_column, 1);
        assert_eq!(d.classes.len(), 9);
        assert_eq!(by("-5").unwrap().entry.task, crate::Task::Regression);
        let err = by("nope").unwrap_err().to_string();
        assert!(err.contains("no column is named \"nope\""), "{err}");
    }

    /// Empty, foreign, cut short, without rows, with a null, with a column of no usable type:
    /// each an error saying so, never a panic.
    #[test]
    fn bad_files_are_errors_naming_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let describe = |name: &str| {
            describe_files(
                "t",
                &dir.path().join(name),
                None,
                &DescribeOptions::default(),
            )
            .map(|d| d.entry.n)
            .map_err(|e| e.to_string())
        };
        std::fs::write(dir.path().join("empty.parquet"), b"").unwrap();
        std::fs::write(dir.path().join("text.parquet"), b"a,b\n1,2\n").unwrap();
        std::fs::write(dir.path().join("text.arrow"), b"a,b\n1,2\n").unwrap();
        let good = dir.path().join("good.parquet");
        write(&good, &frame());
        let bytes = std::fs::read(&good).unwrap();
        std::fs::write(dir.path().join("cut.parquet"), &bytes[..bytes.len() / 2]).unwrap();
        std::fs::write(dir.path().join("tail.parquet"), &bytes[bytes.len() / 2..]).unwrap();
        write(&dir.path().join("none.parquet"), &frame().head(Some(0)));
        let mut nulls = frame();
        let x: Vec<Option<f64>> = (0..120).map(|i| (i != 57).then_some(1.5)).collect();
        nulls
            .replace("x", Series::new("x".into(), x).into())
            .unwrap();
        write(&dir.path().join("null.parquet"), &nulls);
        let mut nan = frame();
        let x: Vec<f64> = (0..120)
            .map(|i| if i == 9 { f64::NAN } else { 0.5 })
            .collect();
        nan.replace("x", Series::new("x".into(), x).into()).unwrap();
        write(&dir.path().join("nan.arrow"), &nan);
        let mut bytes_column = frame();
        let b: Vec<&[u8]> = (0..120).map(|_| &b"ab"[..]).collect();
        bytes_column
            .with_column(Series::new("blob".into(), b).into())
            .unwrap();
        write(&dir.path().join("blob.parquet"), &bytes_column);
        for (name, says) in [
            ("empty.parquet", "no data rows"),
            ("text.parquet", "not a readable Parquet file"),
            ("text.arrow", "not a readable Arrow IPC file"),
            ("cut.parquet", "not a readable Parquet file"),
            ("tail.parquet", "not a readable Parquet file"),
            ("none.parquet", "no data rows"),
            (
                "null.parquet",
                "null.parquet: row 58: column 'x' holds numbers on 119 of 120 rows, but here null",
            ),
            (
                "nan.arrow",
                "row 10: column 'x' holds numbers on 119 of 120 rows, but here \"NaN\"",
            ),
            ("blob.parquet", "column 'blob' holds binary"),
        ] {
            let err = describe(name).expect_err(name);
            assert!(err.contains(says), "{name}: {err}");
        }
        assert_eq!(describe("good.parquet"), Ok(120));
    }

    /// The loader (a registry entry written by hand) applies the same refusals as `describe`:
    /// a null in a numeric column is an error naming the row and the column.
    #[test]
    fn the_loader_refuses_a_null_naming_row_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let mut frame = frame();
        let k: Vec<Option<i64>> = (0..120).map(|i| (i != 3).then_some(2)).collect();
        frame
            .replace("k", Series::new("k".into(), k).into())
            .unwrap();
        let path = dir.path().join("k.parquet");
        write(&path, &frame);
        let text = format!(
            "[[dataset]]\nname = \"k\"\ndescription = \"k\"\ntask = \"binary\"\nformat = \"parquet\"\nn = 120\nd = 7\n\
             csv = {{ categorical_columns = [2, 3] }}\nlabels = {{ map = {{ in = 0.0, out = 1.0 }} }}\n\
             [[dataset.files]]\nrole = \"train\"\nfile = \"k.parquet\"\nlocal = [{{ path = {:?} }}]\n",
            path
        );
        let registry = Registry::parse_embedded(&text, Path::new("spec.toml")).unwrap();
        let err = parse_files(registry.get("k").unwrap(), &[path])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("k.parquet: row 4: column 1: missing value (a null)"),
            "{err}"
        );
    }
}
