//! Result tables: one CSV row per cell and repetition with its coordinates, seeds, status,
//! metrics and provenance, so a result file says by itself how it was made. Written with the
//! run's other outputs through [`crate::staging`], so an interrupted run never leaves half a
//! table, nor a new table beside an old figure.

use std::path::Path;
use std::process::Command;

use crate::error::{Error, Result};
use crate::kinds::CellOutcome;
use crate::registry::Value;
use crate::spec::Plan;

/// Where and with what a result was produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    pub version: String,
    pub git_commit: String,
    pub threads: usize,
    pub cpu: String,
    pub date: String,
}

impl Provenance {
    /// Reads the crate version, the checkout's commit (`-dirty` if tracked sources outside
    /// `results/` and `figures/` differ from it), rayon's thread count, the CPU model and today's
    /// UTC date.
    pub fn collect(root: &Path) -> Provenance {
        let git = |args: &[&str]| {
            Command::new("git")
                .arg("-C")
                .arg(root)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let git_commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
            Some(commit) => {
                let dirty = git(&[
                    "status",
                    "--porcelain",
                    "--untracked-files=no",
                    "--",
                    ".",
                    ":!results",
                    ":!figures",
                ])
                .is_some_and(|s| !s.is_empty());
                if dirty {
                    format!("{commit}-dirty")
                } else {
                    commit
                }
            }
            None => "unknown".to_string(),
        };
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|m| m.trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        Provenance {
            version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit,
            threads: rayon::current_num_threads(),
            cpu,
            date: utc_date(std::time::SystemTime::now()),
        }
    }
}

/// `YYYY-MM-DD` of a time, in UTC (days-to-civil, proleptic Gregorian).
fn utc_date(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// One measured (or skipped) cell at one repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    /// Index into the plan's cells.
    pub cell: usize,
    pub repetition: usize,
    /// Seeds by column, in the plan's seed order.
    pub seeds: Vec<(&'static str, u64)>,
    pub outcome: CellOutcome,
}

/// The header of a plan's results, in order: bookkeeping, coordinates, the repetition, seeds,
/// status, metrics, provenance.
pub fn header(plan: &Plan) -> Vec<String> {
    let mut h: Vec<String> = vec!["experiment".into(), "profile".into()];
    h.extend(plan.columns.iter().cloned());
    h.push("repetition".into());
    h.extend(plan.seeds.iter().map(|s| s.spec.column.to_string()));
    h.push("status".into());
    h.push("skip_reason".into());
    h.extend(plan.metrics.iter().cloned());
    for p in [
        "master_seed",
        "rfbench_version",
        "git_commit",
        "threads",
        "cpu",
        "date",
    ] {
        h.push(p.into());
    }
    h
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A number as written to the results: Rust's shortest round-trip form (`{:?}`), so reading it
/// back gives the same bits; non-finite values as empty cells would hide them, so they are
/// written as `NaN` / `inf`.
pub fn number(v: f64) -> String {
    format!("{v:?}")
}

/// The results as CSV text.
pub fn to_csv(plan: &Plan, rows: &[ResultRow], provenance: &Provenance) -> String {
    let header = header(plan);
    let mut out = header
        .iter()
        .map(|h| field(h))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in rows {
        let cell = &plan.cells[row.cell];
        let mut f: Vec<String> = vec![field(&plan.name), field(plan.profile.name())];
        for column in &plan.columns {
            f.push(match cell.get(column) {
                Some(Value::Float(v)) => number(*v),
                Some(v) => field(&v.to_string()),
                None => String::new(),
            });
        }
        f.push(row.repetition.to_string());
        f.extend(row.seeds.iter().map(|(_, s)| s.to_string()));
        match &row.outcome {
            CellOutcome::Done(metrics) => {
                f.push("ok".into());
                f.push(String::new());
                for m in &plan.metrics {
                    f.push(metrics.get(m).map(|v| number(*v)).unwrap_or_default());
                }
            }
            CellOutcome::Skipped(reason) | CellOutcome::Failed(reason) => {
                let failed = matches!(row.outcome, CellOutcome::Failed(_));
                f.push(if failed { "failed" } else { "skipped" }.into());
                f.push(field(reason));
                f.extend(plan.metrics.iter().map(|_| String::new()));
            }
        }
        f.push(plan.master_seed.to_string());
        f.push(field(&provenance.version));
        f.push(field(&provenance.git_commit));
        f.push(provenance.threads.to_string());
        f.push(field(&provenance.cpu));
        f.push(field(&provenance.date));
        out.push_str(&f.join(","));
        out.push('\n');
    }
    out
}

/// A results CSV as rows of text fields by column name (quotes undone). The check compares
/// these texts, so "the same number" means the same bits.
pub fn read_rows(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |message: String| Error::Results {
        path: path.to_path_buf(),
        message,
    };
    let mut records = parse_csv_text(&text).map_err(bad)?;
    if records.is_empty() {
        return Err(bad("empty file: no header".into()));
    }
    let header = records.remove(0);
    for (i, r) in records.iter().enumerate() {
        if r.len() != header.len() {
            return Err(bad(format!(
                "row {} has {} fields, the header {} (a truncated or edited file?)",
                i + 2,
                r.len(),
                header.len()
            )));
        }
    }
    Ok((header, records))
}

fn parse_csv_text(text: &str) -> std::result::Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let (mut record, mut fieldbuf) = (Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut line = 1;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                fieldbuf.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                if c == '\n' {
                    line += 1;
                }
                fieldbuf.push(c)
            }
            (false, '"') if fieldbuf.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut fieldbuf)),
            (false, '\n') => {
                record.push(std::mem::take(&mut fieldbuf));
                records.push(std::mem::take(&mut record));
                line += 1;
            }
            (false, '\r') => {}
            (false, c) => fieldbuf.push(c),
        }
    }
    if quoted {
        return Err(format!("line {line}: unterminated quoted field"));
    }
    if !fieldbuf.is_empty() || !record.is_empty() {
        record.push(fieldbuf);
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        let at = |s: u64| utc_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_795_219_200), "2026-11-21");
    }
}

#[cfg(test)]
mod csv_tests {
    use super::*;

    #[test]
    fn fields_round_trip_through_quotes() {
        let text = "a,b\n\"x, \"\"y\"\"\",2\n,\n";
        let rows = parse_csv_text(text).unwrap();
        assert_eq!(
            rows,
            vec![vec!["a", "b"], vec!["x, \"y\"", "2"], vec!["", ""]]
        );
        assert_eq!(field("x, \"y\""), "\"x, \"\"y\"\"\"");
        assert!(parse_csv_text("\"open").is_err());
        assert_eq!(number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(number(1e-20), "1e-20");
    }
}
