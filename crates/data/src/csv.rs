//! Parser for delimited text (CSV, TSV, whitespace-separated), configured by the registry.
//!
//! The registry names the separator, whether a header line comes first, the label column,
//! columns to skip (ids, alternative targets) and categorical columns. Numeric columns become
//! features in column order; each categorical column then adds a one-hot block whose
//! categories are sorted (byte order) over all files of the dataset, so train and test agree on
//! the encoding and the column order does not depend on which file is read first. Every row
//! must have as many fields as the first; an empty field, a `?` (UCI's missing value) or text
//! in a numeric column is an error naming the file, line and column, because imputing would
//! change the data the paper used.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use rfbench_maps::CsrMatrix;

use super::cell::Cell;
use super::error::{DataError, Result};
use super::fields::split_fields;
use super::lines::for_each_line;
use super::registry::{CsvOptions, LabelMap};
use super::rows::{parse_finite, RowBuilder};
use super::table::Table;

/// Parses one delimited file into a sparse matrix and labels (see the module doc).
pub fn parse_csv(
    reader: impl BufRead,
    origin: &Path,
    options: &CsvOptions,
    labels: Option<&LabelMap>,
) -> Result<(CsrMatrix, Vec<f64>)> {
    let mut parsed = CsvReader::new(options, labels);
    parsed.read(reader, origin)?;
    parsed.finish(origin)
}

/// Accumulates the rows of one or more files with the same columns.
pub(crate) struct CsvReader<'a> {
    options: &'a CsvOptions,
    labels: Option<&'a LabelMap>,
    /// Fields per row, fixed by the first row read.
    n_fields: Option<usize>,
    /// What each field is, once `n_fields` is known.
    roles: Vec<FieldRole>,
    n_numeric: usize,
    rows: RowBuilder,
    /// Per categorical column: category -> code in order of first appearance.
    vocabularies: Vec<HashMap<String, u32>>,
    /// Row-major codes, one per categorical column.
    codes: Vec<u32>,
    /// Whether the rows being read hold the label column ([`CsvReader::read_features`] reads
    /// rows without it, whose labels come from a separate file).
    rows_have_label: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum FieldRole {
    Label,
    Skip,
    Numeric(usize),
    Categorical(usize),
}

impl<'a> CsvReader<'a> {
    pub(crate) fn new(options: &'a CsvOptions, labels: Option<&'a LabelMap>) -> Self {
        CsvReader {
            options,
            labels,
            n_fields: None,
            roles: Vec::new(),
            n_numeric: 0,
            rows: RowBuilder::new(),
            vocabularies: vec![HashMap::new(); options.categorical_columns.len()],
            codes: Vec::new(),
            rows_have_label: true,
        }
    }

    pub(crate) fn n_rows(&self) -> usize {
        self.rows.n_rows()
    }

    fn set_fields(&mut self, n_fields: usize) -> std::result::Result<(), String> {
        let label = if self.options.label_column < 0 {
            n_fields as i64 + self.options.label_column
        } else {
            self.options.label_column
        };
        if label < 0 || label >= n_fields as i64 {
            return Err(format!(
                "label_column {} does not exist in a row of {n_fields} fields",
                self.options.label_column
            ));
        }
        let named = self
            .options
            .skip_columns
            .iter()
            .chain(&self.options.categorical_columns);
        if let Some(c) = named.clone().find(|&&c| c >= n_fields) {
            return Err(format!(
                "column {c} does not exist in a row of {n_fields} fields"
            ));
        }
        if named.clone().any(|&c| c as i64 == label) {
            return Err(format!(
                "column {label} is the label and also skipped or categorical"
            ));
        }
        self.roles = (0..n_fields)
            .map(|c| {
                if c as i64 == label {
                    FieldRole::Label
                } else if self.options.skip_columns.contains(&c) {
                    FieldRole::Skip
                } else if let Some(k) = self
                    .options
                    .categorical_columns
                    .iter()
                    .position(|&k| k == c)
                {
                    FieldRole::Categorical(k)
                } else {
                    FieldRole::Numeric(0)
                }
            })
            .collect();
        let mut next = 0;
        for role in &mut self.roles {
            if let FieldRole::Numeric(j) = role {
                *j = next;
                next += 1;
            }
        }
        self.n_numeric = next;
        self.n_fields = Some(n_fields);
        Ok(())
    }

    /// Appends the rows of a features file: the registry's columns without the label column
    /// (so 85 fields where the labelled file has 86). Their labels are NaN until
    /// [`read_labels`](Self::read_labels) reads the matching labels file.
    pub(crate) fn read_features(&mut self, reader: impl BufRead, origin: &Path) -> Result<()> {
        self.rows_have_label = false;
        let result = self.read(reader, origin);
        self.rows_have_label = true;
        result
    }

    /// Sets the labels of the last rows read, from a file with one label per line (the label
    /// map, if any, applies); a count other than the rows' is an error naming the file.
    pub(crate) fn read_labels(
        &mut self,
        reader: impl BufRead,
        origin: &Path,
        rows: std::ops::Range<usize>,
    ) -> Result<()> {
        let mut labels = Vec::with_capacity(rows.len());
        let line_no = for_each_line(reader, origin, |line| {
            let line = line.trim();
            if line.is_empty() {
                return Ok(());
            }
            if line.split_ascii_whitespace().count() != 1 {
                return Err(format!(
                    "a labels file holds one label per line, found '{line}'"
                ));
            }
            labels.push(match self.labels {
                Some(map) => map.apply_text(line)?,
                None => parse_finite(line).map_err(|why| format!("label {why}"))?,
            });
            Ok(())
        })?;
        if labels.len() != rows.len() {
            return Err(DataError::Parse {
                path: origin.to_path_buf(),
                line: line_no,
                problem: format!(
                    "{} labels, but the features file has {} rows",
                    labels.len(),
                    rows.len()
                ),
            });
        }
        self.rows.labels[rows].copy_from_slice(&labels);
        Ok(())
    }

    /// Appends every data row of `reader`; a file without data rows is an error.
    pub(crate) fn read(&mut self, reader: impl BufRead, origin: &Path) -> Result<()> {
        let rows_before = self.n_rows();
        let mut header_pending = self.options.header;
        for_each_line(reader, origin, |line| {
            if line.trim().is_empty() {
                return Ok(());
            }
            if header_pending {
                header_pending = false;
                return Ok(());
            }
            let fields = split_fields(line, &self.options.separator)?;
            let cells: Vec<Cell<'_>> = fields.iter().map(|f| Cell::Text(f)).collect();
            self.parse_row(&cells)
        })?;
        if self.n_rows() == rows_before {
            return Err(DataError::Empty {
                path: origin.to_path_buf(),
            });
        }
        Ok(())
    }

    /// Appends every row of a Parquet or Arrow IPC table, its columns in schema order.
    pub(crate) fn read_table(&mut self, table: &Table) -> Result<()> {
        let rows_before = self.n_rows();
        table.for_each_row(|cells| self.parse_row(cells))?;
        if self.n_rows() == rows_before {
            return Err(DataError::Empty {
                path: table.path.clone(),
            });
        }
        Ok(())
    }

    fn parse_row(&mut self, fields: &[Cell<'_>]) -> std::result::Result<(), String> {
        // A features file lacks the label column: its rows have one field less.
        let missing = usize::from(!self.rows_have_label);
        match self.n_fields {
            None => self.set_fields(fields.len() + missing)?,
            Some(n) if n != fields.len() + missing => {
                return Err(if missing == 0 {
                    format!("{} fields, but the first row has {n}", fields.len())
                } else {
                    format!(
                        "{} fields, but a features file needs {} (the labelled rows' {n} minus \
                         the label)",
                        fields.len(),
                        n - missing
                    )
                })
            }
            Some(_) => {}
        }
        let mut label = None;
        let codes_before = self.codes.len();
        let indices_before = self.rows.indices.len();
        let has_label = self.rows_have_label;
        let roles = self
            .roles
            .iter()
            .filter(move |&&r| has_label || r != FieldRole::Label);
        let result = (|| {
            for (c, (field, &role)) in fields.iter().zip(roles).enumerate() {
                match role {
                    FieldRole::Skip => {}
                    FieldRole::Label => {
                        label = Some(match self.labels {
                            Some(map) => map.apply_text(&field.text())?,
                            None => field.finite().map_err(|why| format!("label {why}"))?,
                        });
                    }
                    FieldRole::Numeric(j) => {
                        if field.is_missing() {
                            return Err(format!("column {c}: missing value {}", field.shown()));
                        }
                        let v = field.finite().map_err(|why| format!("column {c}: {why}"))?;
                        self.rows.push(j, v);
                    }
                    FieldRole::Categorical(k) => {
                        match field {
                            Cell::Text("") => return Err(format!("column {c}: empty category")),
                            Cell::Missing => return Err(format!("column {c}: a null category")),
                            _ => {}
                        }
                        let vocabulary = &mut self.vocabularies[k];
                        let next = vocabulary.len() as u32;
                        let text = field.text();
                        let code = match vocabulary.get(text.as_ref()) {
                            Some(&code) => code,
                            None => *vocabulary.entry(text.into_owned()).or_insert(next),
                        };
                        self.codes.push(code);
                    }
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            self.codes.truncate(codes_before);
            self.rows.indices.truncate(indices_before);
            self.rows.values.truncate(indices_before);
            return Err(e);
        }
        self.rows.end_row(label.unwrap_or(f64::NAN));
        Ok(())
    }

    /// The number of feature columns: numeric columns plus all one-hot blocks.
    pub(crate) fn n_cols(&self) -> usize {
        self.n_numeric + self.vocabularies.iter().map(HashMap::len).sum::<usize>()
    }

    /// The matrix: numeric columns, then one one-hot block per categorical column.
    pub(crate) fn finish(self, origin: &Path) -> Result<(CsrMatrix, Vec<f64>)> {
        let n_cols = self.n_cols();
        let n_cat = self.vocabularies.len();
        if n_cat == 0 {
            return self.rows.finish(n_cols, origin);
        }
        // code -> column, with each block's categories in sorted order.
        let mut offset = self.n_numeric;
        let mut column_of: Vec<Vec<u32>> = Vec::with_capacity(n_cat);
        for vocabulary in &self.vocabularies {
            let mut sorted: Vec<(&String, &u32)> = vocabulary.iter().collect();
            sorted.sort();
            let mut map = vec![0u32; vocabulary.len()];
            for (rank, (_, &code)) in sorted.iter().enumerate() {
                map[code as usize] = (offset + rank) as u32;
            }
            offset += vocabulary.len();
            column_of.push(map);
        }
        let RowBuilder {
            indptr,
            indices,
            values,
            labels,
        } = self.rows;
        let mut out = RowBuilder::new();
        for (i, w) in indptr.windows(2).enumerate() {
            for k in w[0]..w[1] {
                out.push(indices[k] as usize, values[k]);
            }
            for (block, map) in column_of.iter().enumerate() {
                out.push(map[self.codes[i * n_cat + block] as usize] as usize, 1.0);
            }
            out.end_row(labels[i]);
        }
        out.finish(n_cols, origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(separator: &str, header: bool) -> CsvOptions {
        CsvOptions {
            separator: separator.into(),
            header,
            label_column: -1,
            skip_columns: vec![],
            categorical_columns: vec![],
        }
    }

    #[test]
    fn wine_style_semicolons_with_a_quoted_header() {
        let text = "\"fixed acidity\";\"pH\";\"quality\"\n7.4;3.51;5\n7.8;0;6\r\n\n";
        let (x, y) = parse_csv(
            text.as_bytes(),
            Path::new("w.csv"),
            &options(";", true),
            None,
        )
        .unwrap();
        assert_eq!(y, [5.0, 6.0]);
        assert_eq!((x.n_rows(), x.n_cols(), x.nnz()), (2, 2, 3));
        assert_eq!(x.row_parts(1), (&[0u32][..], &[7.8][..]));
    }

    #[test]
    fn label_first_skipped_ids_and_whitespace_separator() {
        let mut o = options("whitespace", false);
        o.label_column = 1;
        o.skip_columns = vec![0];
        let text = "id7  3.5 1 2\nid8\t-1 0 4\n";
        let (x, y) = parse_csv(text.as_bytes(), Path::new("t.txt"), &o, None).unwrap();
        assert_eq!(y, [3.5, -1.0]);
        assert_eq!(x.to_dense(), ndarray::array![[1.0, 2.0], [0.0, 4.0]]);
    }

    #[test]
    fn categories_are_one_hot_in_sorted_order_across_files() {
        let mut o = options(",", false);
        o.categorical_columns = vec![1];
        let map = LabelMap {
            map: [("normal.".to_string(), -1.0)].into_iter().collect(),
            default: Some(1.0),
        };
        let mut reader = CsvReader::new(&o, Some(&map));
        reader
            .read(
                "0.5,udp,normal.\n1,tcp,smurf.\n".as_bytes(),
                Path::new("train"),
            )
            .unwrap();
        reader
            .read("2,icmp,normal.\n".as_bytes(), Path::new("test"))
            .unwrap();
        let (x, y) = reader.finish(Path::new("test")).unwrap();
        assert_eq!(y, [-1.0, 1.0, -1.0]);
        // Columns: numeric, then icmp, tcp, udp.
        assert_eq!(
            x.to_dense(),
            ndarray::array![
                [0.5, 0.0, 0.0, 1.0],
                [1.0, 0.0, 1.0, 0.0],
                [2.0, 1.0, 0.0, 0.0]
            ]
        );
    }

    #[test]
    fn malformed_rows_name_file_line_and_column() {
        let o = options(",", true);
        let strict = LabelMap {
            map: [("yes".to_string(), 1.0)].into_iter().collect(),
            default: None,
        };
        let cases: [(&str, Option<&LabelMap>, usize, &str); 7] = [
            (
                "a,b,c\n1,2,3\n1,2\n",
                None,
                3,
                "2 fields, but the first row has 3",
            ),
            ("a,b,c\n1,?,3\n", None, 2, "column 1: missing value"),
            ("a,b,c\n1,,3\n", None, 2, "column 1: missing value"),
            ("a,b,c\n\n1,x,3\n", None, 3, "column 1: 'x' is not a number"),
            ("a,b,c\n1,2,nan\n", None, 2, "label 'nan' is not finite"),
            (
                "a,b,c\n1,2,yes\n1,2,no\n",
                Some(&strict),
                3,
                "label 'no' is not in",
            ),
            ("a,b,c\n1,inf,3\n", None, 2, "not finite"),
        ];
        for (text, labels, line, problem) in cases {
            let msg = parse_csv(text.as_bytes(), Path::new("d/f.csv"), &o, labels)
                .unwrap_err()
                .to_string();
            assert!(
                msg.starts_with(&format!("d/f.csv:{line}: ")) && msg.contains(problem),
                "{text:?} gave {msg}"
            );
        }
        let only_header = parse_csv("a,b\n".as_bytes(), Path::new("f"), &o, None).unwrap_err();
        assert!(matches!(only_header, DataError::Empty { .. }));
        let mut far = options(",", false);
        far.skip_columns = vec![5];
        let msg = parse_csv("1,2\n".as_bytes(), Path::new("f"), &far, None)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("column 5 does not exist"), "{msg}");
    }
}
