//! A user's own data file described as a registry entry: its format (LIBSVM, or delimited text
//! with its separator and whether a header row names the columns), the label column, the label
//! values and the task they imply, its size and its digest. What `rfbench compare FILE` needs to
//! run on data nobody registered, written back as an ordinary `[[dataset]]` table
//! ([`entry_toml`]) so that the spec it runs can be rerun as it is.
//!
//! The guesses are made on the first [`SAMPLE_LINES`] lines and then confirmed by parsing the
//! whole file with the options guessed: a file that does not parse is an error naming its line.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::columns;
use super::csv::{parse_csv, CsvReader};
use super::error::{DataError, Result};
use super::fetch::sha256_file;
use super::fields::{split_fields, split_line};
use super::libsvm::parse_libsvm;
use super::registry::{
    CsvOptions, DatasetEntry, FileEntry, Format, LabelMap, LocalCopy, Role, Task,
};
use super::source::open_text as open;
use super::table::Table;

/// Lines read to guess the format.
pub const SAMPLE_LINES: usize = 200;

/// Integer labels with at most this many distinct values are classes; more make a regression
/// target (unless the task is given).
pub const MAX_CLASSES: usize = 100;

/// What the caller knows better than a guess.
#[derive(Debug, Clone, Default)]
pub struct DescribeOptions {
    /// The label column of delimited text: a 0-based index (negative from the end) or a header
    /// name. Default: the last column.
    pub label_column: Option<String>,
    /// The task, instead of the one the labels suggest.
    pub task: Option<Task>,
}

/// A file described: the entry to load it with, and what was guessed, for the report.
#[derive(Debug, Clone)]
pub struct Described {
    pub entry: DatasetEntry,
    /// Distinct label values (classification), in the entry's label order.
    pub classes: Vec<String>,
    /// One line per guess: "format: csv, separator ',', header row", ...
    pub guesses: Vec<String>,
}

/// Describes `train` (and `test`, a second file with the same columns, when given) as a dataset
/// called `name`. The files are read where they are (`local` copies, digests pinned).
pub fn describe_files(
    name: &str,
    train: &Path,
    test: Option<&Path>,
    options: &DescribeOptions,
) -> Result<Described> {
    let paths: Vec<&Path> = std::iter::once(train).chain(test).collect();
    let mut guesses = Vec::new();
    let columnar = train
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(Format::columnar_of_file_name);
    let (format, csv, tables, labels_text) = match columnar {
        Some(format) => {
            let (csv, tables, labels) = read_tables(&paths, format, options, &mut guesses)?;
            (format, Some(csv), tables, labels)
        }
        None => {
            let (format, csv, labels) = read_text(&paths, options, &mut guesses)?;
            (format, csv, Vec::new(), labels)
        }
    };
    let (task, classes, labels) = infer_task(&labels_text, options.task, train)?;
    guesses.push(format!(
        "task: {} ({}{})",
        task_name(task),
        if classes.is_empty() {
            "numeric targets".to_string()
        } else {
            format!("{} classes", classes.len())
        },
        if options.task.is_some() {
            ", as given"
        } else {
            ", from the labels"
        }
    ));
    if let Some(map) = &labels {
        let pairs: Vec<String> = map
            .map
            .iter()
            .map(|(k, v)| format!("{k:?} -> {v}"))
            .collect();
        guesses.push(format!("labels: {}", pairs.join(", ")));
    } else if !classes.is_empty() {
        guesses.push(format!("labels: {} (numbers, kept)", classes.join(", ")));
    }
    let files = paths
        .iter()
        .zip([Role::Train, Role::Test])
        .map(|(path, role)| local_file(path, role))
        .collect::<Result<Vec<_>>>()?;
    let mut entry = DatasetEntry::new(name, task, format, 1, 1, files);
    entry.description = format!("{} (described by rfbench)", train.display());
    entry.csv = csv;
    entry.labels = labels;
    let (n, d) = size(&entry, &paths, &tables)?;
    entry.n = n;
    entry.d = d;
    guesses.push(format!("size: {n} rows x {d} features"));
    Ok(Described {
        entry,
        classes,
        guesses,
    })
}

/// A delimited text or LIBSVM file's format, options and labels as written, its guesses said.
fn read_text(
    paths: &[&Path],
    options: &DescribeOptions,
    guesses: &mut Vec<String>,
) -> Result<(Format, Option<CsvOptions>, Vec<String>)> {
    let train = paths[0];
    let sample = sample_lines(train)?;
    let (format, csv) = if looks_like_libsvm(&sample) {
        if let Some(column) = &options.label_column {
            return Err(DataError::Parse {
                path: train.to_path_buf(),
                line: 1,
                problem: format!(
                    "--label-column {column}: this is a LIBSVM file, whose label is the first \
                     field of every line; the option applies to delimited text only"
                ),
            });
        }
        guesses.push("format: LIBSVM (label index:value ...)".to_string());
        (Format::Libsvm, None)
    } else {
        let csv = delimited_options(&sample, options.label_column.as_deref(), train)?;
        guesses.push(format!(
            "format: delimited text, separator {}, {}, label column {}",
            match csv.separator.as_str() {
                "\t" => "tab".to_string(),
                "whitespace" => "whitespace".to_string(),
                s => format!("'{s}'"),
            },
            if csv.header {
                "header row"
            } else {
                "no header row"
            },
            csv.label_column
        ));
        (Format::Csv, Some(csv))
    };
    let mut csv = csv;
    if let Some(csv) = csv.as_mut() {
        guesses.push(columns::decide(paths, csv)?.describe());
    }
    let labels = label_texts(paths, format, csv.as_ref())?;
    Ok((format, csv, labels))
}

/// Parquet or Arrow IPC files (the training file's format) read through polars: the column
/// options the rules decided, the tables, and the labels as text, its guesses said.
fn read_tables(
    paths: &[&Path],
    format: Format,
    options: &DescribeOptions,
    guesses: &mut Vec<String>,
) -> Result<(CsvOptions, Vec<Table>, Vec<String>)> {
    for path in &paths[1..] {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if Format::columnar_of_file_name(name) != Some(format) {
            return Err(DataError::TableColumns {
                path: path.to_path_buf(),
                problem: format!(
                    "the training file is {}: the test file must be one too",
                    format.name()
                ),
            });
        }
    }
    let tables = paths
        .iter()
        .map(|path| Table::read(path, format))
        .collect::<Result<Vec<_>>>()?;
    let first = &tables[0];
    let names: Vec<&str> = first.names.iter().map(String::as_str).collect();
    let label = label_index(options.label_column.as_deref(), Some(&names), names.len()).map_err(
        |problem| DataError::TableColumns {
            path: first.path.clone(),
            problem,
        },
    )?;
    let at = if label < 0 {
        names.len() as i64 + label
    } else {
        label
    } as usize;
    guesses.push(format!(
        "format: {}, {} rows x {} columns named by its schema, label column {label} ('{}')",
        format.name(),
        first.n_rows(),
        names.len(),
        names[at]
    ));
    let mut csv = CsvOptions {
        label_column: label,
        ..CsvOptions::default()
    };
    guesses.push(columns::decide_tables(&tables, &mut csv)?.describe());
    let mut labels = Vec::new();
    for table in &tables {
        table.for_each_row(|cells| {
            let label = cells[at].text();
            if label.trim().is_empty() {
                return Err(EMPTY_LABEL.into());
            }
            labels.push(label.into_owned());
            Ok(())
        })?;
    }
    Ok((csv, tables, labels))
}

/// An empty label would become a class of its own (a binary task turned 3-class).
const EMPTY_LABEL: &str =
    "the label is empty: fill it or remove the row (an empty label is not a class)";

/// The task's name in the registry's vocabulary.
pub fn task_name(task: Task) -> &'static str {
    match task {
        Task::Binary => "binary",
        Task::Multiclass => "multiclass",
        Task::Regression => "regression",
    }
}

/// The first non-empty lines of `path`, decompressed.
fn sample_lines(path: &Path) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    for line in open(path)?.lines() {
        let line = line.map_err(|e| DataError::io("cannot read", path, e))?;
        if !line.trim().is_empty() {
            lines.push(line);
        }
        if lines.len() == SAMPLE_LINES {
            break;
        }
    }
    if lines.is_empty() {
        return Err(DataError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(lines)
}

/// Every line's fields after the first are `index:value`.
fn looks_like_libsvm(sample: &[String]) -> bool {
    let pair = |f: &str| {
        f.split_once(':')
            .is_some_and(|(i, v)| i.parse::<u64>().is_ok() && v.parse::<f64>().is_ok())
    };
    sample.iter().all(|line| {
        let mut fields = line.split_ascii_whitespace();
        fields.next().is_some_and(|l| l.parse::<f64>().is_ok()) && fields.all(pair)
    }) && sample.iter().any(|l| l.contains(':'))
}

fn is_number(field: &str) -> bool {
    field.parse::<f64>().is_ok_and(f64::is_finite)
}

/// The separator that splits every sampled line into the same number (two or more) of
/// fields, tried in the order tab, comma, semicolon, whitespace; the header row; the label
/// column.
fn delimited_options(
    sample: &[String],
    label_column: Option<&str>,
    path: &Path,
) -> Result<CsvOptions> {
    let fail = |line: usize, problem: String| DataError::Parse {
        path: path.to_path_buf(),
        line,
        problem,
    };
    // An unclosed quote fails under every separator: say so rather than "no separator".
    let unclosed = sample.iter().enumerate().find_map(|(k, l)| {
        let why = split_fields(l, ",").err()?;
        Some(fail(k + 1, format!("{why}: {l:?}")))
    });
    if let Some(error) = unclosed {
        return Err(error);
    }
    let separator = ["\t", ",", ";", "whitespace"]
        .into_iter()
        .find(|sep| {
            let widths: BTreeSet<usize> = sample
                .iter()
                .map(|l| split_fields(l, sep).map_or(0, |f| f.len()))
                .collect();
            widths.len() == 1 && widths.first().is_some_and(|&w| w >= 2)
        })
        .ok_or_else(|| {
            fail(
                1,
                "not LIBSVM, and no separator (tab, comma, semicolon, whitespace) splits the \
                 first lines into the same number of fields (at least a feature and a label)"
                    .into(),
            )
        })?;
    // Every sampled line splits into `width` fields under `separator` (checked above).
    let split = |l| split_fields(l, separator).unwrap_or_default();
    let first = split(&sample[0]);
    let width = first.len();
    // A header: a first line with a non-numeric field where the other lines are numbers.
    let below: Vec<_> = sample[1..].iter().map(|l| split(l)).collect();
    let numeric_below = |c: usize| below.iter().all(|fields| is_number(&fields[c]));
    if sample.len() == 1 && first.iter().any(|f| !is_number(f)) {
        return Err(fail(
            1,
            "the file has one line, with text in it: a header and no rows? (a data set needs \
             rows of numbers below its header)"
                .into(),
        ));
    }
    let header = sample.len() > 1 && (0..width).any(|c| !is_number(&first[c]) && numeric_below(c));
    // A header names every column; a first line with numbers in it is more likely a data row
    // with a bad cell, which taking it for a header would drop silently.
    let numeric_names: Vec<&str> = first
        .iter()
        .filter(|f| is_number(f))
        .map(|f| &**f)
        .collect();
    if header && !numeric_names.is_empty() {
        let (c, text) = (0..width)
            .find(|&c| !is_number(&first[c]))
            .map(|c| (c, &first[c]))
            .expect("a header has a text field");
        return Err(fail(
            1,
            format!(
                "line 1 mixes numbers ({}) and text (column {c}: {text:?}): a data row with a \
                 bad cell, or a header with numbers for names? Fix the cell if it is a row; \
                 if it is a header, name every column with a word",
                numeric_names.join(", ")
            ),
        ));
    }
    let names: Vec<&str> = first.iter().map(|f| &**f).collect();
    let label = label_index(label_column, header.then_some(&names[..]), width)
        .map_err(|problem| fail(1, problem))?;
    // The columns' kinds are decided on every row by [`columns::decide`].
    Ok(CsvOptions {
        separator: separator.to_string(),
        header,
        label_column: label,
        skip_columns: Vec::new(),
        categorical_columns: Vec::new(),
    })
}

/// The label column given as a 0-based index (negative from the end) or a name in `names` (the
/// header row or the schema), checked against the `width` of a row; by default the last.
fn label_index(
    label_column: Option<&str>,
    names: Option<&[&str]>,
    width: usize,
) -> std::result::Result<i64, String> {
    let Some(text) = label_column else {
        return Ok(-1);
    };
    match (text.parse::<i64>(), names) {
        (Ok(i), _) if i < width as i64 && i >= -(width as i64) => Ok(i),
        (Ok(i), _) => Err(format!(
            "label column {i} does not exist: the rows have {width} fields"
        )),
        (Err(_), Some(names)) => match names.iter().filter(|f| **f == text).count() {
            0 => Err(format!(
                "no column is named {text:?}; the header names {names:?}"
            )),
            1 => Ok(names.iter().position(|f| *f == text).unwrap_or(0) as i64),
            k => Err(format!(
                "{k} columns are named {text:?}: give the label column by its index (from 0, \
                 or negative from the end)"
            )),
        },
        (Err(_), None) => Err(format!(
            "label column {text:?} is a name, but the file has no header row"
        )),
    }
}

/// Every row's label as written, over all files.
fn label_texts(paths: &[&Path], format: Format, csv: Option<&CsvOptions>) -> Result<Vec<String>> {
    let mut labels = Vec::new();
    for path in paths {
        let mut header_pending = csv.is_some_and(|c| c.header);
        for (k, line) in open(path)?.lines().enumerate() {
            let line = line.map_err(|e| DataError::io("cannot read", path, e))?;
            if line.trim().is_empty() {
                continue;
            }
            if std::mem::take(&mut header_pending) {
                continue;
            }
            let label = match (format, csv) {
                (Format::Csv, Some(c)) => {
                    let fields = split_line(&line, &c.separator, path, k + 1)?;
                    let at = if c.label_column < 0 {
                        fields.len() as i64 + c.label_column
                    } else {
                        c.label_column
                    };
                    fields.get(at as usize).map(|s| s.to_string())
                }
                _ => line.split_ascii_whitespace().next().map(str::to_string),
            };
            let fail = |problem: &str| DataError::Parse {
                path: path.to_path_buf(),
                line: k + 1,
                problem: problem.into(),
            };
            let label = label.ok_or_else(|| fail("no label field"))?;
            if label.trim().is_empty() {
                return Err(fail(EMPTY_LABEL));
            }
            labels.push(label);
        }
    }
    Ok(labels)
}

/// The task the labels suggest (or the one given), the classes, and the label map that turns
/// text labels into class numbers 0, 1, ... (in sorted order).
fn infer_task(
    labels: &[String],
    given: Option<Task>,
    path: &Path,
) -> Result<(Task, Vec<String>, Option<LabelMap>)> {
    let fail = |problem: String| DataError::Parse {
        path: path.to_path_buf(),
        line: 0,
        problem,
    };
    // `-0` is 0 (adding 0.0 turns -0.0 into 0.0): numeric labels are told apart by value, so
    // `-0`, `0` and `0.0` are one class, not three.
    let numbers: Option<Vec<f64>> = labels
        .iter()
        .map(|l| l.parse::<f64>().ok().map(|x| x + 0.0))
        .collect();
    let distinct: BTreeSet<String> = match &numbers {
        Some(v) => v.iter().map(|x| x.to_string()).collect(),
        None => labels.iter().cloned().collect(),
    };
    let integral = numbers
        .as_ref()
        .is_some_and(|v| v.iter().all(|x| x.is_finite() && x.fract() == 0.0));
    let guessed = match &numbers {
        Some(_) if !integral => Task::Regression,
        Some(_) if distinct.len() > MAX_CLASSES => Task::Regression,
        _ if distinct.len() == 2 => Task::Binary,
        _ => Task::Multiclass,
    };
    let task = given.unwrap_or(guessed);
    if task == Task::Regression {
        if numbers.is_none() {
            return Err(fail(
                "the task is regression but some labels are not numbers".into(),
            ));
        }
        return Ok((task, Vec::new(), None));
    }
    if distinct.len() < 2 {
        return Err(fail(format!(
            "every row has the label {:?}: classification needs two classes or more",
            distinct.first().map_or("", String::as_str)
        )));
    }
    if task == Task::Binary && distinct.len() != 2 {
        return Err(fail(format!(
            "the task is binary but the labels take {} values",
            distinct.len()
        )));
    }
    let classes: Vec<String> = match &numbers {
        // Numeric classes keep their values, in numeric order.
        Some(v) => {
            let mut values: Vec<f64> = v.clone();
            values.sort_by(f64::total_cmp);
            values.dedup();
            values.iter().map(|x| x.to_string()).collect()
        }
        None => distinct.iter().map(|s| s.to_string()).collect(),
    };
    // Text labels, or numbers that are not whole, become class numbers 0, 1, ...
    let labels = (numbers.is_none() || !integral).then(|| LabelMap {
        map: classes
            .iter()
            .enumerate()
            .map(|(k, c)| (c.clone(), k as f64))
            .collect::<BTreeMap<_, _>>(),
        default: None,
    });
    Ok((task, classes, labels))
}

/// A file entry for a file read in place, its digest pinned.
fn local_file(path: &Path, role: Role) -> Result<FileEntry> {
    let absolute: PathBuf =
        std::path::absolute(path).map_err(|e| DataError::io("cannot resolve", path, e))?;
    let sha256 = sha256_file(&absolute)?;
    // The entry's name for the file (the registry takes plain names: letters, digits, `-_.`),
    // prefixed with its role so that a training and a test file of the same name in two
    // folders stay two files.
    let plain: String = absolute
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_else(|| "data".into())
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || "-_.".contains(c) {
            true => c,
            false => '_',
        })
        .collect();
    let prefix = match role {
        Role::Test => "test",
        _ => "train",
    };
    let file = format!("{prefix}-{plain}");
    Ok(FileEntry {
        role,
        file,
        url: None,
        sha256: None,
        member: None,
        part: None,
        local: vec![LocalCopy {
            path: absolute,
            sha256: Some(sha256),
        }],
    })
}

/// Rows and feature columns, by parsing every file (or table) with the entry's options.
fn size(entry: &DatasetEntry, paths: &[&Path], tables: &[Table]) -> Result<(usize, usize)> {
    if let Some(first) = tables.first() {
        let csv = entry.csv.clone().unwrap_or_default();
        let mut reader = CsvReader::new(&csv, entry.labels.as_ref());
        for table in tables {
            reader.read_table(table)?;
        }
        let (x, _) = reader.finish(&first.path)?;
        return Ok((x.n_rows(), x.n_cols()));
    }
    let (mut n, mut d) = (0, 0);
    for path in paths {
        let (x, _) = match &entry.csv {
            Some(csv) => parse_csv(open(path)?, path, csv, entry.labels.as_ref())?,
            None => parse_libsvm(open(path)?, path, None)?,
        };
        n += x.n_rows();
        d = d.max(x.n_cols());
    }
    Ok((n, d))
}

/// The entry as a `[[dataset]]` table of `datasets.toml`'s schema (the fields
/// [`describe_files`] sets).
pub fn entry_toml(entry: &DatasetEntry) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut out = String::from("[[dataset]]\n");
    out += &format!("name = {}\n", q(&entry.name));
    out += &format!("description = {}\n", q(&entry.description));
    out += &format!("task = {}\n", q(task_name(entry.task)));
    let format = entry.format.name();
    out += &format!("format = {}\nn = {}\nd = {}\n", q(format), entry.n, entry.d);
    match &entry.csv {
        // A columnar file's schema names its columns: no separator or header to write.
        Some(c) if entry.format.is_columnar() => {
            out += &format!(
                "csv = {{ label_column = {}, categorical_columns = {:?}, skip_columns = {:?} }}\n",
                c.label_column, c.categorical_columns, c.skip_columns
            );
        }
        Some(c) => {
            out += &format!(
            "csv = {{ separator = {}, header = {}, label_column = {}, categorical_columns = {:?}, \
             skip_columns = {:?} }}\n",
            q(&c.separator),
            c.header,
            c.label_column,
            c.categorical_columns,
            c.skip_columns
        );
        }
        None => {}
    }
    if let Some(labels) = &entry.labels {
        let pairs: Vec<String> = labels
            .map
            .iter()
            .map(|(k, v)| format!("{} = {v:?}", q(k)))
            .collect();
        out += &format!("labels = {{ map = {{ {} }} }}\n", pairs.join(", "));
    }
    for f in &entry.files {
        out += "\n[[dataset.files]]\n";
        let role = if f.role == Role::Train {
            "train"
        } else {
            "test"
        };
        out += &format!("role = {}\nfile = {}\n", q(role), q(&f.file));
        let copies: Vec<String> = f
            .local
            .iter()
            .map(|l| {
                let digest = l.sha256.as_deref().map(|s| format!(", sha256 = {}", q(s)));
                format!(
                    "{{ path = {}{} }}",
                    q(&l.path.to_string_lossy()),
                    digest.unwrap_or_default()
                )
            })
            .collect();
        out += &format!("local = [{}]\n", copies.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use crate::{parse_files, Dataset};

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Describes, writes the entry as TOML, reads it back as a spec's table and loads the file
    /// with it: the round trip a `compare` spec makes.
    fn round_trip(d: &Described) -> Dataset {
        let text = entry_toml(&d.entry);
        let registry = Registry::parse_embedded(&text, Path::new("spec.toml")).unwrap();
        let entry = registry.get(&d.entry.name).unwrap();
        assert_eq!(entry.defined_in.as_deref(), Some(Path::new("spec.toml")));
        let written = DatasetEntry {
            defined_in: None,
            ..entry.clone()
        };
        assert_eq!(&written, &d.entry, "{text}");
        let paths: Vec<PathBuf> = entry
            .files
            .iter()
            .map(|f| f.local[0].path.clone())
            .collect();
        parse_files(entry, &paths).unwrap()
    }

    #[test]
    fn a_csv_with_a_header_and_text_labels() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "letters.csv",
            "width,height,colour,letter\n1.5,2,red,B\n3,4.25,blue,A\n0,1,red,C\n2,2,red,A\n",
        );
        let d = describe_files("letters", &path, None, &DescribeOptions::default()).unwrap();
        let csv = d.entry.csv.as_ref().unwrap();
        assert_eq!((csv.separator.as_str(), csv.header), (",", true));
        assert_eq!((csv.label_column, &csv.categorical_columns), (-1, &vec![2]));
        assert_eq!(d.entry.task, Task::Multiclass);
        assert_eq!(d.classes, ["A", "B", "C"]);
        // Two numeric columns and the colour one-hot (two categories).
        assert_eq!((d.entry.n, d.entry.d), (4, 4));
        let data = round_trip(&d);
        assert_eq!(data.y, [1.0, 0.0, 2.0, 0.0]);
        // Categories sorted: blue, red.
        assert_eq!(data.x.to_dense().row(1).to_vec(), [3.0, 4.25, 1.0, 0.0]);
    }

    /// A UTF-8 byte order mark (as spreadsheets write it) is not part of the first column's
    /// name: the label column is found by that name, and the rows load as without the mark.
    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "bom.csv",
            "\u{feff}letter,width\nB,1.5\nA,3\nC,0\nA,2\n",
        );
        let options = DescribeOptions {
            label_column: Some("letter".into()),
            ..DescribeOptions::default()
        };
        let d = describe_files("bom", &path, None, &options).unwrap();
        assert_eq!(d.entry.csv.as_ref().unwrap().label_column, 0);
        assert_eq!(d.classes, ["A", "B", "C"]);
        let data = round_trip(&d);
        assert_eq!(data.y, [1.0, 0.0, 2.0, 0.0]);
        assert_eq!(data.x.to_dense().column(0).to_vec(), [1.5, 3.0, 0.0, 2.0]);
    }

    /// A quoted field holding the separator is one field (it split into two before, and the
    /// file was refused for uneven rows); an unclosed quote is an error naming its line.
    #[test]
    fn quoted_fields_hold_their_separator() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "towns.csv",
            "\"size, m2\",town,label\n1.5,\"Paris, FR\",yes\n3,\"Lyon, FR\",no\n\
             0,\"Paris, FR\",\"yes\"\n2,\"say \"\"x\"\"\",no\n",
        );
        let d = describe_files("towns", &path, None, &DescribeOptions::default()).unwrap();
        let csv = d.entry.csv.as_ref().unwrap();
        assert_eq!((csv.separator.as_str(), csv.header), (",", true));
        assert_eq!(csv.categorical_columns, [1]);
        assert_eq!(d.classes, ["no", "yes"]);
        let data = round_trip(&d);
        assert_eq!(data.y, [1.0, 0.0, 1.0, 0.0]);
        // Categories sorted: "Lyon, FR", "Paris, FR", "say "x"".
        assert_eq!(data.x.to_dense().row(3).to_vec(), [2.0, 0.0, 0.0, 1.0]);
        let open = write(dir.path(), "open.csv", "a,b,y\n1,2,0\n3,\"4,1\n5,6,0\n");
        let err = describe_files("open", &open, None, &DescribeOptions::default()).unwrap_err();
        assert!(err.to_string().contains("not closed"), "{err}");
    }

    #[test]
    fn whitespace_without_header_a_named_or_numbered_label_column_and_regression() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "y.txt", "0.5 1 2\n1.25 3 4\n-2 5 6\n");
        let by_index = DescribeOptions {
            label_column: Some("0".into()),
            ..DescribeOptions::default()
        };
        let d = describe_files("y", &path, None, &by_index).unwrap();
        let csv = d.entry.csv.as_ref().unwrap();
        assert_eq!(
            (csv.separator.as_str(), csv.header, csv.label_column),
            ("whitespace", false, 0)
        );
        assert_eq!(d.entry.task, Task::Regression);
        assert_eq!(round_trip(&d).y, [0.5, 1.25, -2.0]);
        let by_name = DescribeOptions {
            label_column: Some("target".into()),
            ..DescribeOptions::default()
        };
        let err = describe_files("y", &path, None, &by_name)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no header row"), "{err}");
        let err = describe_files(
            "y",
            &path,
            None,
            &DescribeOptions {
                label_column: Some("5".into()),
                ..DescribeOptions::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("label column 5 does not exist: the rows have 3 fields"),
            "{err}"
        );
    }

    #[test]
    fn libsvm_with_a_test_file_and_gzip() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let train = write(dir.path(), "a.svm", "+1 1:0.5 3:1\n-1 2:2\n+1 1:1\n");
        let gz = std::fs::File::create(dir.path().join("a.t.gz")).unwrap();
        let mut encoder = flate2::write::GzEncoder::new(gz, flate2::Compression::default());
        encoder.write_all(b"-1 4:1\n+1 1:2\n").unwrap();
        encoder.finish().unwrap();
        let test = dir.path().join("a.t.gz");
        let d = describe_files("a", &train, Some(&test), &DescribeOptions::default()).unwrap();
        assert_eq!(
            (d.entry.format, d.entry.task),
            (Format::Libsvm, Task::Binary)
        );
        assert_eq!((d.entry.n, d.entry.d, d.entry.files.len()), (5, 4, 2));
        assert_eq!(d.classes, ["-1", "1"]);
        let data = round_trip(&d);
        assert_eq!(
            (data.n_train, data.y.clone()),
            (3, vec![1.0, -1.0, 1.0, -1.0, 1.0])
        );
    }

    /// `-0`, `0` and `0.0` are one class: the labels are told apart by value (a binary task
    /// read as three classes before).
    #[test]
    fn numeric_labels_are_classes_by_value() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "z.csv", "1,-0\n2,0\n3,1\n4,0.0\n5,1\n");
        let d = describe_files("z", &path, None, &DescribeOptions::default()).unwrap();
        assert_eq!(d.entry.task, Task::Binary);
        assert_eq!(d.classes, ["0", "1"]);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let one_class = write(dir.path(), "one.csv", "1,2,7\n3,4,7\n");
        let ragged = write(dir.path(), "ragged.csv", "1,2,0\n3,4\n");
        let bad_value = write(dir.path(), "bad.csv", "1,2,0\n3,x,1\n5,6,1\n7,8,0\n");
        let empty = write(dir.path(), "empty.csv", "\n\n");
        let options = DescribeOptions::default();
        let binary = DescribeOptions {
            task: Some(Task::Binary),
            ..DescribeOptions::default()
        };
        let three = write(dir.path(), "three.csv", "1,0\n2,1\n3,2\n");
        let header_only = write(dir.path(), "header.csv", "a,b,label\n");
        let twice = write(dir.path(), "twice.csv", "a,a,y\n1,2,0\n3,4,1\n");
        let svm = write(dir.path(), "a.svm", "+1 1:0.5\n-1 2:2\n");
        // A headerless file whose first row has a typo was taken for a header, its row dropped.
        let typo = write(dir.path(), "typo.csv", "1.5,2x,0\n3,4,1\n5,6,0\n");
        let named_a = DescribeOptions {
            label_column: Some("a".into()),
            ..DescribeOptions::default()
        };
        let first = DescribeOptions {
            label_column: Some("0".into()),
            ..DescribeOptions::default()
        };
        for (path, options, problem) in [
            (&header_only, &options, "a header and no rows"),
            (
                &typo,
                &options,
                "line 1 mixes numbers (1.5, 0) and text (column 1: \"2x\")",
            ),
            (&twice, &named_a, "2 columns are named \"a\""),
            (&svm, &first, "--label-column 0: this is a LIBSVM file"),
            (&one_class, &options, "every row has the label \"7\""),
            (&ragged, &options, "no separator"),
            (&empty, &options, "empty"),
            (
                &three,
                &binary,
                "the task is binary but the labels take 3 values",
            ),
        ] {
            let err = describe_files("x", path, None, options)
                .unwrap_err()
                .to_string();
            assert!(err.contains(problem), "{}: {err}", path.display());
        }
        // A number column with one text cell is refused, naming it (not read as categories).
        let err = describe_files("x", &bad_value, None, &options).unwrap_err();
        let err = err.to_string();
        assert!(
            err.contains("bad.csv:2: column 1 holds numbers on 3 of 4 rows"),
            "{err}"
        );
    }
}
