//! Per-cell summaries over repetitions (mean, standard deviation, count), read back from a results
//! table: the figure, the check and the report all work from the CSV, never from memory, so what
//! they show is what the committed file says.

use std::collections::BTreeMap;
use std::path::Path;

use polars::prelude::*;

use crate::error::{Error, Result};

/// A grid cell's coordinates (everything but the repetition).
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub struct CellKey {
    pub map: String,
    pub degree: u32,
    pub offset: f64,
    pub n_components: usize,
}

impl CellKey {
    /// A total order key (offsets are finite, checked by the spec).
    fn sort_key(&self) -> (String, u32, u64, usize) {
        (
            self.map.clone(),
            self.degree,
            self.offset.to_bits(),
            self.n_components,
        )
    }
}

/// Mean, sample standard deviation and count of one metric over repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub mean: f64,
    pub sd: f64,
    pub count: usize,
}

impl Stats {
    pub fn of(values: &[f64]) -> Stats {
        let count = values.len();
        let mean = values.iter().sum::<f64>() / count as f64;
        let sd = if count > 1 {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (count - 1) as f64).sqrt()
        } else {
            f64::NAN
        };
        Stats { mean, sd, count }
    }

    /// Standard error of the mean.
    pub fn standard_error(&self) -> f64 {
        self.sd / (self.count as f64).sqrt()
    }
}

/// Every cell's statistics for one metric, sorted by cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub metric: String,
    pub cells: Vec<(CellKey, Stats)>,
}

fn column<'a>(frame: &'a DataFrame, name: &str, path: &Path) -> Result<&'a Column> {
    frame.column(name).map_err(|_| Error::Results {
        path: path.to_path_buf(),
        message: format!("missing column {name:?}"),
    })
}

fn numbers(frame: &DataFrame, name: &str, path: &Path) -> Result<Vec<f64>> {
    let bad = |e: PolarsError| Error::Results {
        path: path.to_path_buf(),
        message: format!("column {name:?}: {e}"),
    };
    let cast = column(frame, name, path)?
        .cast(&DataType::Float64)
        .map_err(bad)?;
    let values = cast.f64().map_err(bad)?;
    values
        .iter()
        .enumerate()
        .map(|(row, v)| {
            v.ok_or_else(|| Error::Results {
                path: path.to_path_buf(),
                message: format!("column {name:?}: empty value in row {}", row + 1),
            })
        })
        .collect()
}

fn strings(frame: &DataFrame, name: &str, path: &Path) -> Result<Vec<String>> {
    let bad = |e: PolarsError| Error::Results {
        path: path.to_path_buf(),
        message: format!("column {name:?}: {e}"),
    };
    let cast = column(frame, name, path)?
        .cast(&DataType::String)
        .map_err(bad)?;
    Ok(cast
        .str()
        .map_err(bad)?
        .iter()
        .map(|v| v.unwrap_or_default().to_string())
        .collect())
}

impl Summary {
    /// Groups the rows of a results table by cell and summarises `metric`.
    pub fn from_frame(frame: &DataFrame, metric: &str, path: &Path) -> Result<Summary> {
        let maps = strings(frame, "map", path)?;
        let degrees = numbers(frame, "degree", path)?;
        let offsets = numbers(frame, "offset", path)?;
        let ds = numbers(frame, "n_components", path)?;
        let values = numbers(frame, metric, path)?;
        type Group = (CellKey, Vec<f64>);
        let mut groups: BTreeMap<(String, u32, u64, usize), Group> = BTreeMap::new();
        for row in 0..values.len() {
            let key = CellKey {
                map: maps[row].clone(),
                degree: degrees[row] as u32,
                offset: offsets[row],
                n_components: ds[row] as usize,
            };
            groups
                .entry(key.sort_key())
                .or_insert_with(|| (key, Vec::new()))
                .1
                .push(values[row]);
        }
        let cells = groups
            .into_values()
            .map(|(key, v)| (key, Stats::of(&v)))
            .collect();
        Ok(Summary {
            metric: metric.to_string(),
            cells,
        })
    }

    pub fn get(&self, key: &CellKey) -> Option<&Stats> {
        self.cells.iter().find(|(k, _)| k == key).map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_statistics() {
        let frame = df!(
            "map" => ["a", "a", "b", "a"],
            "degree" => [2u32, 2, 2, 2],
            "offset" => [0.0, 0.0, 0.0, 0.0],
            "n_components" => [10u64, 10, 10, 10],
            "relative_error" => [1.0, 3.0, 5.0, 2.0],
        )
        .unwrap();
        let s = Summary::from_frame(&frame, "relative_error", Path::new("t.csv")).unwrap();
        assert_eq!(s.cells.len(), 2);
        let a = s.cells[0].1;
        assert_eq!((a.mean, a.sd, a.count), (2.0, 1.0, 3));
        assert_eq!(s.cells[1].1.count, 1);
        assert!(Summary::from_frame(&frame, "missing", Path::new("t.csv"))
            .unwrap_err()
            .to_string()
            .contains("missing"));
    }
}
