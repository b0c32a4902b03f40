//! Result tables: one CSV row per cell with its parameters, seeds, metrics and provenance, so a
//! result file says by itself how it was made. Written through polars, atomically (a temporary
//! file in the same directory, then a rename), so an interrupted run never leaves half a table.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use polars::prelude::*;

use crate::error::{Error, Result};
use crate::experiment::CellResult;
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

/// The results as a table, one row per cell, in cell order.
pub fn to_frame(plan: &Plan, rows: &[CellResult], provenance: &Provenance) -> Result<DataFrame> {
    let n = rows.len();
    let text = |v: &str| Column::new("".into(), vec![v.to_string(); n]);
    let columns = vec![
        text(&plan.name).with_name("experiment".into()),
        text(plan.profile.name()).with_name("profile".into()),
        text(&plan.dataset).with_name("dataset".into()),
        Column::new(
            "map".into(),
            rows.iter().map(|r| r.cell.map.name()).collect::<Vec<_>>(),
        ),
        Column::new(
            "degree".into(),
            rows.iter().map(|r| r.cell.degree).collect::<Vec<_>>(),
        ),
        Column::new(
            "offset".into(),
            rows.iter().map(|r| r.cell.offset).collect::<Vec<_>>(),
        ),
        Column::new(
            "n_components".into(),
            rows.iter()
                .map(|r| r.cell.n_components as u64)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "repetition".into(),
            rows.iter()
                .map(|r| r.cell.repetition as u64)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "seed".into(),
            rows.iter().map(|r| r.cell.seed).collect::<Vec<_>>(),
        ),
        Column::new(
            "pair_seed".into(),
            rows.iter().map(|r| r.cell.pair_seed).collect::<Vec<_>>(),
        ),
        Column::new(
            "pairs".into(),
            rows.iter().map(|r| r.pairs_used as u64).collect::<Vec<_>>(),
        ),
        Column::new(
            "pairs_excluded".into(),
            rows.iter()
                .map(|r| r.pairs_excluded as u64)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "relative_error".into(),
            rows.iter().map(|r| r.relative_error).collect::<Vec<_>>(),
        ),
        Column::new(
            "median_relative_error".into(),
            rows.iter()
                .map(|r| r.median_relative_error)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "mean_absolute_error".into(),
            rows.iter()
                .map(|r| r.mean_absolute_error)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "bias".into(),
            rows.iter().map(|r| r.bias).collect::<Vec<_>>(),
        ),
        Column::new(
            "map_seconds".into(),
            rows.iter().map(|r| r.map_seconds).collect::<Vec<_>>(),
        ),
        text(&provenance.version).with_name("rfbench_version".into()),
        text(&provenance.git_commit).with_name("git_commit".into()),
        Column::new("threads".into(), vec![provenance.threads as u64; n]),
        text(&provenance.cpu).with_name("cpu".into()),
        text(&provenance.date).with_name("date".into()),
    ];
    DataFrame::new(n, columns)
        .map_err(|e| Error::Experiment(format!("building the results table: {e}")))
}

/// Writes `frame` as CSV to `path` atomically.
pub fn write_csv(frame: &mut DataFrame, path: &Path) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    CsvWriter::new(&mut tmp)
        .include_header(true)
        .finish(frame)
        .map_err(|e| Error::Results {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    tmp.flush().map_err(|e| Error::io(path, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Reads a results CSV.
pub fn read_csv(path: &Path) -> Result<DataFrame> {
    if !path.is_file() {
        return Err(Error::Results {
            path: path.to_path_buf(),
            message: "no such file".into(),
        });
    }
    File::open(path).map_err(|e| Error::io(path, e))?;
    // Seeds use the whole u64 range, beyond what type inference (i64) accepts.
    let seeds = Schema::from_iter([
        Field::new("seed".into(), DataType::UInt64),
        Field::new("pair_seed".into(), DataType::UInt64),
    ]);
    CsvReadOptions::default()
        .with_has_header(true)
        .with_schema_overwrite(Some(std::sync::Arc::new(seeds)))
        .try_into_reader_with_file_path(Some(PathBuf::from(path)))
        .and_then(|r| r.finish())
        .map_err(|e| Error::Results {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
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
