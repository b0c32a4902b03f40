//! The results file: its layout, its one writer and its one reader, both the `csv` crate's
//! (RFC 4180 quoting: a field is quoted when it holds a comma, a quote or a line break).
//!
//! One CSV row per cell and repetition: bookkeeping, coordinates, the repetition, seeds, status,
//! metrics, provenance. Written with the run's other outputs through [`crate::staging`], so an
//! interrupted run never leaves half a table, nor a new table beside an old figure.

use std::path::Path;

use super::{CellOutcome, CellValue, Provenance, ResultRow};
use crate::error::{Error, Result};

/// The bookkeeping columns before the coordinates, and the provenance columns at the end.
const LEADING: [&str; 2] = ["experiment", "profile"];
/// `rustc`, `blas` and `simd` came last (2026-11-27): files written before have none of the
/// three, and readers find every column by its name.
const PROVENANCE: [&str; 9] = [
    "master_seed",
    "rfbench_version",
    "git_commit",
    "threads",
    "cpu",
    "date",
    "rustc",
    "blas",
    "simd",
];

/// The column that marks a file whose runs overlapped ([`Layout::runs_overlapped`]).
pub const RUNS_OVERLAPPED: &str = "runs_overlapped";

/// What a results file holds besides its rows: its columns in order, and what is the same on
/// every row.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub experiment: String,
    pub profile: String,
    pub coordinates: Vec<String>,
    pub seeds: Vec<String>,
    pub metrics: Vec<String>,
    pub master_seed: u64,
    /// Whether the runs overlapped ([`crate::spec::Plan::overlap_runs`]): written as a last
    /// column, `runs_overlapped = true`, only then, so a reader of the file alone learns that its
    /// clock metrics were taken while other runs shared the cores; files of runs one at a time
    /// (and every file written before 2026-11-28) have no such column.
    pub runs_overlapped: bool,
}

impl Layout {
    /// The header, in order: bookkeeping, coordinates, the repetition, seeds, status, metrics,
    /// provenance.
    pub fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = LEADING.map(String::from).to_vec();
        h.extend(self.coordinates.iter().cloned());
        h.push("repetition".into());
        h.extend(self.seeds.iter().cloned());
        h.push("status".into());
        h.push("skip_reason".into());
        h.extend(self.metrics.iter().cloned());
        h.extend(PROVENANCE.map(String::from));
        if self.runs_overlapped {
            h.push(RUNS_OVERLAPPED.into());
        }
        h
    }

    /// The fields of one row, in header order.
    pub fn fields(&self, row: &ResultRow, provenance: &Provenance) -> Vec<String> {
        let mut f = vec![self.experiment.clone(), self.profile.clone()];
        for column in &self.coordinates {
            f.push(
                row.coordinates
                    .get(column)
                    .map_or_else(String::new, CellValue::to_field),
            );
        }
        f.push(row.repetition.to_string());
        for column in &self.seeds {
            let seed = row.seeds.iter().find(|(c, _)| c == column);
            f.push(seed.map_or_else(String::new, |(_, s)| s.to_string()));
        }
        let (status, reason) = match &row.outcome {
            CellOutcome::Done(_) => ("ok", ""),
            CellOutcome::Skipped(reason) => ("skipped", reason.as_str()),
            CellOutcome::Failed(reason) => ("failed", reason.as_str()),
        };
        f.push(status.into());
        f.push(reason.into());
        for metric in &self.metrics {
            // Shortest round-trip form, so reading it back gives the same bits; NaN and inf
            // written as such (an empty cell would hide them).
            f.push(
                row.metric(metric)
                    .map_or_else(String::new, |v| format!("{v:?}")),
            );
        }
        f.push(self.master_seed.to_string());
        f.push(provenance.version.clone());
        f.push(provenance.git_commit.clone());
        f.push(provenance.threads.to_string());
        f.push(provenance.cpu.clone());
        f.push(provenance.date.clone());
        f.push(provenance.rustc.clone());
        f.push(provenance.blas.clone());
        f.push(provenance.simd.clone());
        if self.runs_overlapped {
            f.push("true".into());
        }
        f
    }
}

impl Layout {
    /// The rows of the results file `path`, parsed as [`Layout::parse_rows`] does; an error
    /// names the file.
    pub fn read_rows(&self, path: &Path) -> Result<Vec<ResultRow>> {
        let (header, records) = read_records(path)?;
        self.parse_rows(&header, &records)
            .map_err(|message| Error::Results {
                path: path.to_path_buf(),
                message,
            })
    }

    /// The rows of `records` (read under `header`, which must be this layout's): coordinates,
    /// repetition, seeds, status and metrics as a run gives them, for a run that takes rows
    /// measured earlier (`--resume`, `merge`). `Err` names the first row that does not parse.
    pub fn parse_rows(
        &self,
        header: &[String],
        records: &[Vec<String>],
    ) -> std::result::Result<Vec<ResultRow>, String> {
        if header != self.header().as_slice() {
            return Err(format!(
                "its columns are not this plan's (a file of another version of the spec?): \
                 {header:?} against {:?}",
                self.header()
            ));
        }
        let at = |name: &str| header.iter().position(|h| h == name).unwrap_or(0);
        let (repetition, status, reason) = (at("repetition"), at("status"), at("skip_reason"));
        records
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let bad = |what: &str| format!("row {}: {what}", i + 2);
                let seeds = self
                    .seeds
                    .iter()
                    .map(|c| {
                        let seed = r[at(c)].parse::<u64>().map_err(|_| bad(c))?;
                        Ok((c.clone(), seed))
                    })
                    .collect::<std::result::Result<Vec<_>, String>>()?;
                let outcome = match r[status].as_str() {
                    "ok" => {
                        let mut values = std::collections::BTreeMap::new();
                        for m in &self.metrics {
                            let field = &r[at(m)];
                            if !field.is_empty() {
                                let v = field.parse::<f64>().map_err(|_| bad(m))?;
                                values.insert(m.clone(), v);
                            }
                        }
                        CellOutcome::Done(super::Metrics::read(values))
                    }
                    "skipped" => CellOutcome::Skipped(r[reason].clone()),
                    "failed" => CellOutcome::Failed(r[reason].clone()),
                    _ => return Err(bad("status")),
                };
                Ok(ResultRow {
                    coordinates: self
                        .coordinates
                        .iter()
                        .map(|c| (c.clone(), CellValue::parse(&r[at(c)])))
                        .collect(),
                    repetition: r[repetition].parse().map_err(|_| bad("repetition"))?,
                    seeds,
                    outcome,
                })
            })
            .collect()
    }
}

/// The results as CSV text.
pub fn to_csv(layout: &Layout, rows: &[ResultRow], provenance: &Provenance) -> Result<String> {
    let records = rows.iter().map(|row| layout.fields(row, provenance));
    write_records(&layout.header(), records)
}

/// `header` and `records` as CSV text.
pub fn write_records(
    header: &[String],
    records: impl IntoIterator<Item = Vec<String>>,
) -> Result<String> {
    let fail = |e: &dyn std::fmt::Display| Error::Experiment(format!("writing results: {e}"));
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    writer.write_record(header).map_err(|e| fail(&e))?;
    for record in records {
        writer.write_record(&record).map_err(|e| fail(&e))?;
    }
    let bytes = writer.into_inner().map_err(|e| fail(&e))?;
    String::from_utf8(bytes).map_err(|e| fail(&e))
}

/// One record as a line of CSV text (with its line break): a row appended to a file.
pub fn record_line(record: &[String]) -> Result<String> {
    let fail = |e: &dyn std::fmt::Display| Error::Experiment(format!("writing results: {e}"));
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    writer.write_record(record).map_err(|e| fail(&e))?;
    let bytes = writer.into_inner().map_err(|e| fail(&e))?;
    String::from_utf8(bytes).map_err(|e| fail(&e))
}

/// A results CSV as its header and rows of text fields (quotes undone). The check compares these
/// texts, so "the same number" means the same bits; [`crate::outputs::Results`] types them.
pub fn read_records(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let bad = |message: String| Error::Results {
        path: path.to_path_buf(),
        message,
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(meta) if meta.is_dir() => {
            return Err(bad(
                "a folder, not a results file: name the CSV file in it".into()
            ))
        }
        Ok(_) => return Err(bad("not a regular file (a FIFO or a device?)".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(bad("no such file".into()))
        }
        Err(e) => return Err(Error::io(path, e)),
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .map_err(|e| bad(e.to_string()))?;
    let mut records = reader.records();
    let header: Vec<String> = match records.next() {
        Some(record) => record
            .map_err(|e| bad(e.to_string()))?
            .iter()
            .map(String::from)
            .collect(),
        None => return Err(bad("empty file: no header".into())),
    };
    let mut rows = Vec::new();
    for (i, record) in records.enumerate() {
        let record = record.map_err(|e| match e.kind() {
            csv::ErrorKind::UnequalLengths { len, .. } => bad(format!(
                "row {} has {len} fields, the header {} (a truncated or edited file?)",
                i + 2,
                header.len()
            )),
            _ => bad(e.to_string()),
        })?;
        rows.push(record.iter().map(String::from).collect());
    }
    Ok((header, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<(Vec<String>, Vec<Vec<String>>)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        std::fs::write(&path, text).unwrap();
        read_records(&path)
    }

    /// A folder given as the results file is named as a folder, not "no such file" (issue 68).
    #[test]
    fn a_folder_as_the_results_file_is_named_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_records(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("a folder") && !err.contains("no such file"),
            "{err}"
        );
        let err = read_records(&dir.path().join("none.csv"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no such file"), "{err}");
    }

    #[test]
    fn fields_round_trip_through_quotes() {
        let text = "a,b\n\"x, \"\"y\"\"\",2\n,\n";
        let (header, rows) = read_text(text).unwrap();
        assert_eq!(header, ["a", "b"]);
        assert_eq!(rows, vec![vec!["x, \"y\"", "2"], vec!["", ""]]);
        assert_eq!(write_records(&header, rows).unwrap(), text);
        let err = read_text("a,b\n1,2,3\n").unwrap_err().to_string();
        assert!(err.contains("row 2 has 3 fields"), "{err}");
        let err = read_text("").unwrap_err().to_string();
        assert!(err.contains("empty file"), "{err}");
    }
}
