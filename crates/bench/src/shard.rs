//! Sharded runs: one process (a SLURM array task) runs a deterministic share of a plan's runs and
//! writes them to `results/SPEC/PROFILE.shard-I-of-N.csv` with a manifest (`.toml` beside it) saying
//! which spec, datasets and code produced them; [`crate::merge`] joins the N shards into the one
//! results file a single process would have written.
//!
//! A run (a cell at one repetition) belongs to shard `hash(coordinates, repetition) mod N`, the
//! hash independent of the master seed, the order of the cells and their number: adding a value
//! to an axis adds runs to shards and moves none, so the shards of a grown spec still hold every
//! run they held before.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::run_id::RunId;
use crate::seeds::derive_seed;
use crate::spec::Plan;

/// Shard `index` (from 1) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// The most shards a run may be split into (a job array of more tasks than this is a typo).
pub const MAX_SHARDS: usize = 100_000;

impl Shard {
    /// `I/N` as given to `--shard`: 1 <= I <= N.
    pub fn parse(text: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("--shard {text:?}: write I/N, shard I (from 1) of N, e.g. 2/8");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        Shard::new(index, count).map_err(|e| format!("--shard {text}: {e}"))
    }

    pub fn new(index: usize, count: usize) -> std::result::Result<Shard, String> {
        if count == 0 || count > MAX_SHARDS {
            return Err(format!(
                "the number of shards must be 1 to {MAX_SHARDS}, not {count}"
            ));
        }
        if index == 0 || index > count {
            return Err(format!(
                "shard {index} of {count}: shards are numbered 1 to {count}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// Whether the run `id` is this shard's.
    pub fn owns(&self, id: &RunId) -> bool {
        self.count == 1
            || derive_seed(0, &format!("shard|{id}")) % self.count as u64 == (self.index - 1) as u64
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Whether a results file name (`NAME.shard-2-of-8.csv`) is a shard's, not a profile's.
pub fn is_shard_file(profile_part: &str) -> bool {
    profile_part.contains("shard-") && profile_part.contains("-of-")
}

/// What produced a shard: written beside its CSV, read by [`crate::merge`] to refuse shards of
/// different specs, datasets or code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub experiment: String,
    pub profile: String,
    pub shard: usize,
    pub shards: usize,
    pub master_seed: u64,
    /// SHA-256 of the spec's values ([`spec_digest`]: its comments and layout aside).
    pub spec_sha256: String,
    /// SHA-256 of the root's `datasets.toml` (empty when there is none).
    pub datasets_sha256: String,
    pub rfbench_version: String,
    pub git_commit: String,
    /// SHA-256 of the executable that ran the shard: the code that ran, where a `-dirty`
    /// commit does not say which uncommitted edits were built (empty: unreadable, or a
    /// manifest written before this field).
    #[serde(default)]
    pub binary_sha256: String,
    /// Rows in the shard's CSV, and runs in the whole plan.
    pub runs: usize,
    pub runs_planned: usize,
}

impl Manifest {
    /// The code that ran the shard.
    pub fn code(&self) -> Code {
        Code {
            rfbench_version: self.rfbench_version.clone(),
            git_commit: self.git_commit.clone(),
            binary_sha256: self.binary_sha256.clone(),
        }
    }

    pub fn to_text(&self) -> Result<String> {
        let body = toml::to_string(self)
            .map_err(|e| Error::Experiment(format!("writing a shard manifest: {e}")))?;
        Ok(format!(
            "# What produced the shard of the same name (.csv): `rfbench merge` checks that every\n\
             # shard of a run has the same spec, datasets, master seed and code.\n{body}"
        ))
    }

    pub fn read(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        toml::from_str(&text).map_err(|e| Error::Results {
            path: path.to_path_buf(),
            message: format!("not a shard manifest: {e}"),
        })
    }
}

/// The code that measured rows: what [`crate::merge`] compares between shards, and `--resume`
/// between a partial file and the run ([`crate::partial::Stamp`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    pub rfbench_version: String,
    pub git_commit: String,
    /// The executable's SHA-256 ([`executable_sha256`]; empty when unreadable).
    pub binary_sha256: String,
}

impl Code {
    /// This process's code, with the provenance's version and commit; the executable's digest
    /// only at a `-dirty` commit, the one case it tells code apart ([`Code::other_build`]):
    /// hashing a debug build (hundreds of MB) at every run's start would cost seconds.
    pub fn current(provenance: &crate::results::Provenance) -> Code {
        let dirty = provenance.git_commit.ends_with("-dirty");
        Code {
            rfbench_version: provenance.version.clone(),
            git_commit: provenance.git_commit.clone(),
            binary_sha256: if dirty {
                executable_sha256()
            } else {
                String::new()
            },
        }
    }

    /// Whether `self` may be other code than `other` although their commits read the same: the
    /// commit is `-dirty` (uncommitted edits, which it does not name) and the executables (both
    /// known) differ. A clean commit names its code; two builds of it may differ in bytes
    /// (another machine or toolchain) and count as one.
    pub fn other_build(&self, other: &Code) -> bool {
        let known = !self.binary_sha256.is_empty() && !other.binary_sha256.is_empty();
        self.git_commit.ends_with("-dirty") && known && self.binary_sha256 != other.binary_sha256
    }

    /// Why rows measured by `self` are not of the code `now`; `None` when they are.
    pub fn differs(&self, now: &Code) -> Option<String> {
        let short = |h: &str| h.chars().take(12).collect::<String>();
        if (&self.rfbench_version, &self.git_commit) != (&now.rfbench_version, &now.git_commit) {
            return Some(format!(
                "the code (rfbench {} at commit {} then, {} at {} now)",
                self.rfbench_version, self.git_commit, now.rfbench_version, now.git_commit
            ));
        }
        self.other_build(now).then(|| {
            format!(
                "the executable (another build at the same uncommitted commit {}: SHA-256 {} \
                 then, {} now; different uncommitted edits may have run)",
                self.git_commit,
                short(&self.binary_sha256),
                short(&now.binary_sha256)
            )
        })
    }
}

/// SHA-256 of the running executable, as hex; empty when it cannot be read.
pub fn executable_sha256() -> String {
    let Ok(mut file) = std::env::current_exe().and_then(std::fs::File::open) else {
        return String::new();
    };
    let mut hasher = Sha256::new();
    match std::io::copy(&mut file, &mut hasher) {
        Ok(_) => hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        Err(_) => String::new(),
    }
}

/// SHA-256 of the spec as parsed ([`spec_digest`]) and of the root's `datasets.toml`'s bytes,
/// as hex.
pub fn digests(plan: &Plan, root: &Path) -> Result<(String, String)> {
    let text = std::fs::read_to_string(&plan.source).map_err(|e| Error::io(&plan.source, e))?;
    let registry = root.join("datasets.toml");
    let datasets = match std::fs::read(&registry) {
        Ok(bytes) => hex(&bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(&registry, e)),
    };
    Ok((spec_digest(&text), datasets))
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// SHA-256 of a spec's values, keys sorted: what it asks for, not how it is written, so a
/// comment or a layout change leaves the partial files and shards of a killed run usable, and
/// any change of a value makes them stale. A text that is not TOML (the plan has read it, so
/// only a file changed since) is digested as bytes.
pub fn spec_digest(text: &str) -> String {
    match text.parse::<toml::Table>() {
        Ok(table) => {
            let mut canonical = String::from("rfbench spec values\n");
            write_canonical(&toml::Value::Table(table), &mut canonical);
            hex(canonical.as_bytes())
        }
        Err(_) => hex(text.as_bytes()),
    }
}

/// `value` with its tables' keys in sorted order, every key quoted, every scalar in its TOML
/// form.
fn write_canonical(value: &toml::Value, out: &mut String) {
    match value {
        toml::Value::Table(table) => {
            let mut entries: Vec<_> = table.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (key, value) in entries {
                out.push_str(&format!("{key:?}="));
                write_canonical(value, out);
                out.push(',');
            }
            out.push('}');
        }
        toml::Value::Array(items) => {
            out.push('[');
            for item in items {
                write_canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::CellValue;

    #[test]
    fn shards_parse_and_refuse_nonsense() {
        assert_eq!(Shard::parse("2/8"), Ok(Shard { index: 2, count: 8 }));
        for bad in ["0/3", "4/3", "1/0", "x/3", "3", "1/2/3", "-1/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_run_has_exactly_one_shard_and_the_shards_are_even() {
        let keys: Vec<RunId> = (0..200)
            .map(|i| {
                let coordinates = [("n_components".to_string(), CellValue::Int(i))];
                RunId::new(&coordinates.into_iter().collect(), 0)
            })
            .collect();
        for count in [1, 2, 3, 7] {
            let shards: Vec<Shard> = (1..=count).map(|i| Shard::new(i, count).unwrap()).collect();
            let mut sizes = vec![0; count];
            for key in &keys {
                let owners: Vec<usize> = shards
                    .iter()
                    .filter(|s| s.owns(key))
                    .map(|s| s.index)
                    .collect();
                assert_eq!(owners.len(), 1, "{key}: {owners:?}");
                sizes[owners[0] - 1] += 1;
            }
            // Roughly even: each shard within half of its fair share.
            let fair = keys.len() / count;
            assert!(sizes.iter().all(|&s| s * 2 > fair), "{sizes:?}");
        }
    }
}
