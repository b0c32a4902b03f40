//! A run's finished rows, kept as they finish so that a killed run loses none of them.
//!
//! Every run appends each row to `results/SPEC/.PROFILE.partial.csv` (the results file's own header and
//! row format) the moment the row is measured, and removes the file once its outputs are
//! committed. A run killed on the way (SIGKILL, a SLURM time limit, a node lost) leaves the file;
//! `reproduce --resume` takes its rows (those with the same coordinates, repetition and seeds
//! that ran) instead of running them again, and goes on appending. A rerun without `--resume`
//! starts over, and says it discards the rows it found.
//!
//! Each row is one `write` of a whole line to a file opened for appending, so a kill leaves whole
//! lines, except at worst a last line cut short, which resume drops. What is written survives
//! the process at once. The file is also synced to disk with a row when [`SYNC_INTERVAL`] or
//! more has passed since the last sync: a machine that loses power loses the rows appended since
//! the last sync, and runs of many small cells on a shared file system do not pay a sync per
//! row.
//!
//! The file is locked (`flock`) while a run writes it: a second run of the same spec into the
//! same folder at the same time goes on without one (it says so), rather than mixing rows.
//!
//! Its first line, before the header, is a [`Stamp`]: the SHA-256 of the spec's values (a
//! comment-only edit leaves it unchanged, [`crate::shard::spec_digest`]) and of `datasets.toml`
//! it was started under, and the code that ran (version, commit, and the
//! executable's SHA-256, which tells two builds of one uncommitted commit apart). Rows are
//! matched on coordinates and seeds, which an edit of the spec's preprocessing, of a dataset's
//! files or of the code leaves unchanged, so `--resume` refuses a file whose stamp differs from
//! the run's as [`crate::merge`] refuses such shards, naming what changed, and leaves it as it
//! is.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::results::{self, Layout, Provenance, ResultRow};
use crate::shard::Code;

/// The least time between two syncs of the partial file.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(1);

/// What a partial file's rows were measured under: the digests of the spec file and of
/// `datasets.toml` ([`crate::shard::digests`]) and the code that measured them (version, commit
/// and executable, as [`crate::merge`] compares shards' code), written as the file's first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub spec_sha256: String,
    pub datasets_sha256: String,
    pub code: Code,
}

const STAMP_PREFIX: &str = "# rfbench partial rows of ";

impl Stamp {
    fn line(&self) -> String {
        format!(
            "{STAMP_PREFIX}spec_sha256={} datasets_sha256={} rfbench_version={} git_commit={} \
             binary_sha256={}\n",
            self.spec_sha256,
            self.datasets_sha256,
            self.code.rfbench_version,
            self.code.git_commit,
            self.code.binary_sha256
        )
    }

    /// The stamp of a file's first line; `None` when it has none, or one without the code
    /// (another version wrote it).
    pub fn read(line: &str) -> Option<Stamp> {
        let rest = line.strip_prefix(STAMP_PREFIX)?;
        let fields: std::collections::BTreeMap<&str, &str> = rest
            .split_whitespace()
            .filter_map(|field| field.split_once('='))
            .collect();
        let get = |key: &str| fields.get(key).map(|v| v.to_string());
        Some(Stamp {
            spec_sha256: get("spec_sha256")?,
            datasets_sha256: get("datasets_sha256")?,
            code: Code {
                rfbench_version: get("rfbench_version")?,
                git_commit: get("git_commit")?,
                binary_sha256: get("binary_sha256")?,
            },
        })
    }

    /// The stamp in the first line of the partial file at `path`; `None` when there is no
    /// file or no stamp rfbench can read.
    pub fn of_file(path: &Path) -> Option<Stamp> {
        let file = File::open(path).ok()?;
        let mut first = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(file), &mut first).ok()?;
        Stamp::read(&first)
    }

    /// Why rows stamped `self` cannot join a run stamped `now`; `None` when they can.
    pub fn differs(&self, now: &Stamp) -> Option<String> {
        let short = |h: &str| h.chars().take(12).collect::<String>();
        let mut changed = Vec::new();
        if self.spec_sha256 != now.spec_sha256 {
            changed.push(format!(
                "the spec file (sha256 {} then, {} now)",
                short(&self.spec_sha256),
                short(&now.spec_sha256)
            ));
        }
        if self.datasets_sha256 != now.datasets_sha256 {
            changed.push(format!(
                "datasets.toml (sha256 {} then, {} now)",
                short(&self.datasets_sha256),
                short(&now.datasets_sha256)
            ));
        }
        changed.extend(self.code.differs(&now.code));
        (!changed.is_empty()).then(|| changed.join(" and "))
    }
}

/// The partial file of a run in progress, open for appending.
#[derive(Debug)]
pub struct Partial {
    path: PathBuf,
    layout: Layout,
    provenance: Provenance,
    file: Mutex<(File, Instant)>,
    warned: AtomicBool,
}

/// What opening the partial file found.
pub struct Opened {
    /// `None` when another run holds the file.
    pub partial: Option<Partial>,
    /// The rows a killed run finished, when resuming.
    pub resumed: Vec<ResultRow>,
    /// What to tell the user.
    pub notes: Vec<String>,
}

impl Partial {
    /// Opens (or creates) the partial file at `path` for a run writing rows of `layout` under
    /// `stamp`: with `resume`, reads the rows it holds and keeps them (refused, the file left as
    /// it is, when they were measured under another stamp); otherwise empties it.
    pub fn open(
        path: &Path,
        layout: &Layout,
        provenance: &Provenance,
        stamp: &Stamp,
        resume: bool,
    ) -> Result<Opened> {
        let io = |e| Error::io(path, e);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = crate::staging::open_no_follow(
            OpenOptions::new().read(true).append(true).create(true),
            path,
        )?;
        let mut notes = Vec::new();
        if file.try_lock().is_err() {
            notes.push(format!(
                "{}: another run of this spec is writing it; this run keeps no partial file \
                 (killed, it cannot be resumed)",
                path.display()
            ));
            return Ok(Opened {
                partial: None,
                resumed: Vec::new(),
                notes,
            });
        }
        let text = read_text(&mut file, path, resume, &mut notes)?;
        // A line cut short by a kill is dropped: the row runs again.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        let header_line =
            results::write_records(&layout.header(), std::iter::empty::<Vec<String>>())?;
        let resumed = if resume && whole > 0 {
            let (first, rows) = text[..whole]
                .split_once('\n')
                .unwrap_or((&text[..whole], ""));
            check_stamp(path, first, stamp)?;
            read_rows(path, rows, layout)?
        } else {
            Vec::new()
        };
        if resume {
            notes.push(format!(
                "resuming: {} finished row(s) taken from {}",
                resumed.len(),
                path.display()
            ));
        } else if text.lines().count() > 2 {
            notes.push(format!(
                "{}: discarding the {} row(s) of an unfinished run (--resume keeps them)",
                path.display(),
                text[..whole].lines().count().saturating_sub(2)
            ));
        }
        let keep = if resume && whole > 0 { whole } else { 0 };
        file.set_len(keep as u64).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        if keep == 0 {
            let head = stamp.line() + &header_line;
            file.write_all(head.as_bytes()).map_err(io)?;
        }
        file.sync_data().map_err(io)?;
        Ok(Opened {
            partial: Some(Partial {
                path: path.to_path_buf(),
                layout: layout.clone(),
                provenance: provenance.clone(),
                file: Mutex::new((file, Instant::now())),
                warned: AtomicBool::new(false),
            }),
            resumed,
            notes,
        })
    }

    /// Appends a finished row. A failure (a full disk) costs only resumability: the run goes
    /// on, and says once that a kill would now lose rows.
    pub fn append(&self, row: &ResultRow) {
        let line = results::record_line(&self.layout.fields(row, &self.provenance));
        let mut guard = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let (file, synced) = &mut *guard;
        let written = line.map_err(|e| e.to_string()).and_then(|line| {
            file.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
            if synced.elapsed() >= SYNC_INTERVAL {
                file.sync_data().map_err(|e| e.to_string())?;
                *synced = Instant::now();
            }
            Ok(())
        });
        if let Err(e) = written {
            if !self.warned.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "warning: {}: {e}; the run goes on, but killed now it would lose the rows \
                     not recorded there",
                    self.path.display()
                );
            }
        }
    }

    /// The run's outputs are committed: the file has done its work.
    pub fn finish(self) -> Result<()> {
        let (file, _) = self.file.into_inner().unwrap_or_else(|e| e.into_inner());
        match std::fs::remove_file(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&self.path, e)),
        }
        drop(file);
        Ok(())
    }
}

/// Refuses to resume rows whose stamp line `first` is not `now` (or is missing).
/// The partial file's text. Bytes that are not UTF-8 were not written by rfbench: a resume is
/// refused (the file left as it is), a fresh run discards them with a note.
fn read_text(
    file: &mut File,
    path: &Path,
    resume: bool,
    notes: &mut Vec<String>,
) -> Result<String> {
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) if resume => Err(Error::Experiment(format!(
            "{}: not a partial file rfbench wrote (not UTF-8 text), so --resume cannot take \
             rows from it; nothing was changed: rerun without --resume to start over",
            path.display()
        ))),
        Err(_) => {
            notes.push(format!(
                "{}: discarding a partial file that is not UTF-8 text (not rfbench's)",
                path.display()
            ));
            Ok(String::new())
        }
    }
}

fn check_stamp(path: &Path, first: &str, now: &Stamp) -> Result<()> {
    let why = match Stamp::read(first) {
        Some(then) => then.differs(now),
        None => {
            Some("no record of the spec and code it ran (an older rfbench wrote it)".to_string())
        }
    };
    match why {
        None => Ok(()),
        Some(why) => Err(Error::Results {
            path: path.to_path_buf(),
            message: format!(
                "its rows were measured under another version: {why}. Resuming would mix them \
                 into this run, matched only on coordinates and seeds; the file is left as it \
                 is. Run without --resume to start over, or restore what changed"
            ),
        }),
    }
}

/// The rows of a partial file's whole lines (after its stamp line).
fn read_rows(path: &Path, text: &str, layout: &Layout) -> Result<Vec<ResultRow>> {
    let bad = |message: String| Error::Results {
        path: path.to_path_buf(),
        message: format!("{message}; remove it, or run without --resume to start over"),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut records = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| bad(e.to_string()))?;
        records.push(record.iter().map(String::from).collect::<Vec<String>>());
    }
    let Some((header, rows)) = records.split_first() else {
        return Ok(Vec::new());
    };
    layout.parse_rows(header, rows).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout {
            experiment: "demo".into(),
            profile: "full".into(),
            coordinates: vec!["map".into()],
            seeds: vec!["seed".into()],
            metrics: vec!["accuracy".into()],
            master_seed: 1,
            runs_overlapped: false,
        }
    }

    fn provenance() -> Provenance {
        Provenance {
            version: "0".into(),
            git_commit: "abc".into(),
            threads: 1,
            cpu: "cpu".into(),
            date: "2026-11-26".into(),
            rustc: "rustc".into(),
            blas: "blas".into(),
            simd: "simd".into(),
        }
    }

    fn stamp(spec: &str, datasets: &str) -> Stamp {
        Stamp {
            spec_sha256: spec.into(),
            datasets_sha256: datasets.into(),
            code: code("abc-dirty", "b1b1"),
        }
    }

    fn code(commit: &str, binary: &str) -> Code {
        Code {
            rfbench_version: "0.1.0".into(),
            git_commit: commit.into(),
            binary_sha256: binary.into(),
        }
    }

    /// Rows another executable measured at the same uncommitted commit are not resumed, as
    /// merge refuses such shards (issue 68 #11); another commit neither; two builds of one
    /// clean commit are one code. The file is left as it is.
    #[test]
    fn a_resume_by_another_build_of_a_dirty_commit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results/demo/.full.partial.csv");
        let then = stamp("aaaa", "dddd");
        drop(open(&path, &then, false).unwrap());
        let written = std::fs::read(&path).unwrap();
        for (now, named) in [
            (code("abc-dirty", "b2b2"), "another build"),
            (code("def", "b1b1"), "commit abc-dirty then"),
        ] {
            let now = Stamp {
                code: now,
                ..then.clone()
            };
            let err = open(&path, &now, true).err().unwrap().to_string();
            assert!(
                err.contains(named) && err.contains("without --resume"),
                "{err}"
            );
            assert_eq!(std::fs::read(&path).unwrap(), written);
        }
        let clean = |binary: &str| Stamp {
            code: code("abc", binary),
            ..then.clone()
        };
        drop(open(&path, &clean("b1b1"), false).unwrap());
        assert!(open(&path, &clean("b2b2"), true).unwrap().partial.is_some());
    }

    fn open(path: &Path, stamp: &Stamp, resume: bool) -> Result<Opened> {
        Partial::open(path, &layout(), &provenance(), stamp, resume)
    }

    /// A killed run's file, resumed after the spec or datasets.toml changed, is refused naming
    /// what changed and left byte for byte; the same stamp resumes; a run without --resume
    /// starts over under its own stamp.
    #[test]
    fn a_resume_across_an_edit_is_refused_naming_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results/demo/.full.partial.csv");
        let then = stamp("aaaa", "dddd");
        drop(open(&path, &then, false).unwrap());
        let written = std::fs::read(&path).unwrap();
        assert!(String::from_utf8_lossy(&written).starts_with(STAMP_PREFIX));
        for (now, named) in [
            (stamp("bbbb", "dddd"), "the spec file"),
            (stamp("aaaa", "eeee"), "datasets.toml"),
        ] {
            let err = open(&path, &now, true).err().unwrap().to_string();
            assert!(
                err.contains(named) && err.contains("without --resume"),
                "{err}"
            );
            assert_eq!(std::fs::read(&path).unwrap(), written);
        }
        let resumed = open(&path, &then, true).unwrap();
        assert!(resumed.partial.is_some());
        drop(resumed);
        // A file without a stamp (an older rfbench's) is not resumed either.
        let header =
            results::write_records(&layout().header(), std::iter::empty::<Vec<String>>()).unwrap();
        std::fs::write(&path, &header).unwrap();
        let err = open(&path, &then, true).err().unwrap().to_string();
        assert!(err.contains("older rfbench"), "{err}");
        let now = stamp("bbbb", "dddd");
        drop(open(&path, &now, false).unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Stamp::read(text.lines().next().unwrap()), Some(now));
    }

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    /// A FIFO at the partial file's path is refused at once (opening it for reading used to wait
    /// for a writer forever); bytes that are not UTF-8 refuse a resume, untouched, and are
    /// discarded by a fresh run.
    #[test]
    fn a_fifo_or_a_binary_file_at_the_partial_path_is_named_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results/demo/.full.partial.csv");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        mkfifo(&path);
        let now = stamp("s", "d");
        let err = open(&path, &now, false).err().unwrap().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"\xff\xfe rows\n").unwrap();
        let err = open(&path, &now, true).err().unwrap().to_string();
        assert!(err.contains("rerun without --resume"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"\xff\xfe rows\n");
        let opened = open(&path, &now, false).unwrap();
        assert!(
            opened.notes.iter().any(|n| n.contains("not UTF-8")),
            "{:?}",
            opened.notes
        );
        drop(opened);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Stamp::read(text.lines().next().unwrap()), Some(now));
    }
}
