//! compare's output folder: claimed before anything is written, every spec written with a
//! digest line so that a rerun never replaces a file the user edited, and `rfbench reproduce`
//! refused into the folder whose report was drawn from its rows.

use std::path::Path;

use crate::error::{Error, Result};
use rfbench_data::atomic::replace_file;

/// The first line of every file `compare` writes, and the digest line that ends it: a file
/// whose digest still matches was not edited and may be replaced by a rerun.
const MARK: &str = "# rfbench-compare-digest: ";

/// A 64-bit hash of `text` (the seeds' FNV-1a derivation): enough to tell whether a file was
/// edited since it was written.
fn digest(text: &str) -> String {
    format!("{:016x}", crate::seeds::derive_seed(0, text))
}

/// Writes `text` with a digest line, atomically; a file already there is replaced only when it
/// is one of ours that nobody edited.
pub(super) fn write_marked(path: &Path, text: &str) -> Result<()> {
    if let Ok(old) = std::fs::read_to_string(path) {
        let edited = match old.rsplit_once(MARK) {
            Some((body, tail)) => digest(body) != tail.trim(),
            None => true,
        };
        if edited {
            return Err(Error::Experiment(format!(
                "{} exists and was not written by this command as it is now (edited?): rerun \
                 it with `rfbench reproduce {} --out-dir OTHER`, or give compare another --out",
                path.display(),
                path.display()
            )));
        }
    }
    let marked = format!("{text}{MARK}{}\n", digest(text));
    replace_file(path, marked.as_bytes()).map_err(|e| Error::io(path, e))
}

/// Refuses to rerun one of compare's specs into compare's own folder: its `report.md`,
/// `answer.json` and Pareto figure were drawn from the rows there and a rerun would replace
/// the rows but not them, leaving a folder that disagrees with itself. `out_dir` is where the
/// rerun would write; another folder is fine (the rows come out the same).
pub fn refuse_own_folder(spec: &Path, out_dir: &Path) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(spec) else {
        return Ok(());
    };
    if !text.contains(MARK) {
        return Ok(());
    }
    let folder = match spec.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let same = match (folder.canonicalize(), out_dir.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same || !folder.join("report.md").exists() {
        return Ok(());
    }
    Err(Error::Experiment(format!(
        "{} was written by `rfbench compare`, and {}'s report.md, answer.json and Pareto figure \
         come from the rows it wrote there: rerunning it into that folder would replace the rows \
         and leave them describing others. Rerun it into another folder: `rfbench reproduce {} \
         --out-dir OTHER` (the same rows come out), or rerun `rfbench compare` for a new answer",
        spec.display(),
        folder.display(),
        spec.display()
    )))
}

/// The file that marks a folder as compare's output folder.
const FOLDER_MARK: &str = ".rfbench-compare";

/// Claims `out` for compare's outputs: a folder that does not exist, is empty, or was claimed
/// by an earlier compare (then its files are compare's to replace; its specs are still guarded
/// one by one). A folder holding anything else is refused: a user's own report.md, CSVs or
/// figures there would be overwritten.
pub fn claim_folder(out: &Path) -> Result<()> {
    let mark = out.join(FOLDER_MARK);
    if out.exists() && !mark.is_file() {
        let entries = std::fs::read_dir(out).map_err(|e| Error::io(out, e))?;
        let names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if let Some(first) = names.first() {
            return Err(Error::Experiment(format!(
                "--out {}: the folder holds files compare did not write ({first}{}); its \
                 report, CSVs and figures would replace them. Give an empty or new folder",
                out.display(),
                match names.len() {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                }
            )));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let text = "This folder holds the outputs of `rfbench compare`, which may replace them.\n";
    replace_file(&mark, text.as_bytes()).map_err(|e| Error::io(&mark, e))
}
