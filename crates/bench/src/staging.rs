//! A run's outputs, replaced together or not at all.
//!
//! Every output of a run (the CSV, its figures and tables) is first written in full to a
//! uniquely named temporary file beside its destination ([`Staged::write`]). Only when all are
//! written does [`Staged::commit`] take the output folder's lock, write a journal naming every
//! rename and removal, rename the files into place and delete the journal. So:
//!
//! - a run killed before the journal is on disk leaves the previous outputs untouched (its
//!   temporaries are removed once stale by [`prepare`]);
//! - a run killed during the renames leaves its journal, which the next command on the folder
//!   completes ([`prepare`], also at the start of every commit) before doing anything else: the
//!   outputs are the old set or the new one, never a new CSV beside an old figure;
//! - concurrent runs writing into one folder take turns at the lock, and each commit is whole.
//!
//! The lock is an advisory lock (`flock`) on `results/.rfbench.lock`, released when the process
//! ends, however it ends.
//!
//! A journal names its files relative to the output folder (`results/SPEC/full.csv`,
//! `figures/SPEC/full.png`), so a recovery from another working directory finds them, and a
//! journal is only ever carried out within that folder's `results/` and `figures/` and their
//! spec folders: a line naming any other path (absolute, with `..`, a deeper or hidden
//! sub-folder, a rename from a file that is not a temporary) refuses the whole journal
//! before anything is done. The check is made again on the resolved paths, so a symbolic link
//! (a linked spec folder) cannot carry a journal's rename or removal outside the output folder.
//! A linked `results/` or `figures/` (a folder on a bigger disk) is allowed: its target is the
//! output folder, resolved once, and nothing below it is followed out; a run marks such a target
//! (`.rfbench-output-folder`) before its first journal names it, and a journal is carried out
//! through a link only to a marked target. A journal that came with a cloned repository or was
//! written by hand cannot move or delete anything else.
//!
//! The files a run opens in place (the lock, the partial file of [`crate::partial`]) are opened
//! with [`open_no_follow`]: a planted link at their path is refused, never written through.

use std::fs::{self, File};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use rfbench_data::atomic::{host_tag, sync_dir, temporary_file};

use crate::error::{Error, Result};

/// Age beyond which a temporary output file belongs to a dead run: a live run renames its
/// temporaries within seconds of writing them.
pub const STALE_TEMPORARY_AGE: Duration = Duration::from_secs(3600);

const LOCK_FILE: &str = ".rfbench.lock";
const JOURNAL_PREFIX: &str = ".rfbench-commit-";
const JOURNAL_SUFFIX: &str = ".journal";
/// In the target of a linked `results/` or `figures/`: rfbench's output folder ([`adopt_linked_tops`]).
const LINKED_MARK: &str = ".rfbench-output-folder";

/// Outputs written to temporary files, waiting for [`Staged::commit`]. Dropped without a
/// commit, it deletes its temporaries and changes nothing.
#[derive(Debug)]
pub struct Staged {
    /// The folder that holds `results/` and `figures/`: every output is in one of them
    /// (directly or in a spec's folder).
    out_dir: PathBuf,
    /// Where the lock and the journal live: the run's `results/` folder.
    lock_dir: PathBuf,
    files: Vec<(tempfile::TempPath, PathBuf)>,
    removals: Vec<PathBuf>,
}

impl Staged {
    /// An empty set of outputs for the folder `out_dir` (which holds `results/` and `figures/`).
    pub fn new(out_dir: &Path) -> Staged {
        // Absolute, as the temporary files' paths are: `reproduce NAME` writes under ".".
        let out_dir = absolute(out_dir);
        Staged {
            lock_dir: out_dir.join("results"),
            out_dir,
            files: Vec::new(),
            removals: Vec::new(),
        }
    }

    /// Writes `contents` for `path` to a temporary file in `path`'s folder: complete, synced and
    /// world-readable like any other output (temporary files start private). A second write for
    /// the same path replaces the first.
    pub fn write(&mut self, path: &Path, contents: &[u8]) -> Result<()> {
        self.relative(path)?;
        let tmp = temporary_file(path, contents).map_err(|e| Error::io(path, e))?;
        self.files.retain(|(_, dest)| dest != path);
        self.removals.retain(|p| p != path);
        self.files.push((tmp, path.to_path_buf()));
        Ok(())
    }

    /// Removes `path` at commit (an output of an earlier run that this run does not produce).
    pub fn remove(&mut self, path: &Path) -> Result<()> {
        self.relative(path)?;
        self.files.retain(|(_, dest)| dest != path);
        self.removals.push(path.to_path_buf());
        Ok(())
    }

    /// `path` relative to the output folder, which it must be in `results/` or `figures/` of
    /// (directly or in a spec's folder) (the journal records it so, see the module docs).
    fn relative(&self, path: &Path) -> Result<PathBuf> {
        let path = &absolute(path);
        let relative = path
            .strip_prefix(&self.out_dir)
            .ok()
            .filter(|r| confined(r))
            .ok_or_else(|| {
                Error::Experiment(format!(
                    "{}: an output must be a file in {} or {} (directly or in a spec's folder)",
                    path.display(),
                    self.out_dir.join("results").display(),
                    self.out_dir.join("figures").display()
                ))
            })?;
        check_journal_safe(&relative)?;
        Ok(relative.to_path_buf())
    }

    /// Where the contents staged for `path` can be read before the commit.
    pub fn staged_path(&self, path: &Path) -> Option<&Path> {
        self.files
            .iter()
            .find(|(_, dest)| dest == path)
            .map(|(tmp, _)| tmp.as_ref())
    }

    /// Renames every staged file into place and makes every removal, as one step for readers
    /// (see the module docs).
    pub fn commit(self) -> Result<()> {
        if self.files.is_empty() && self.removals.is_empty() {
            return Ok(());
        }
        let _lock = lock(&self.lock_dir)?;
        recover_locked(&self.out_dir)?;
        adopt_linked_tops(&self.out_dir)?;
        let mut text = String::new();
        for (tmp, dest) in &self.files {
            let relative_tmp = self.relative(tmp.as_ref())?;
            text.push_str(&format!(
                "rename\t{}\t{}\n",
                relative_tmp.display(),
                self.relative(dest)?.display()
            ));
        }
        for path in &self.removals {
            text.push_str(&format!("remove\t{}\n", self.relative(path)?.display()));
        }
        // The journal is written in full before the temporaries are kept: a failure to write
        // it (a full disk) drops them, so nothing is left behind and the old outputs stand.
        let journal = journal_path(&self.lock_dir);
        let staged_journal = write_journal(&journal, &text).map_err(|e| Error::io(&journal, e))?;
        // From here the temporaries belong to the journal: a failure must not delete them.
        let mut kept = Vec::new();
        for (tmp, dest) in self.files {
            kept.push(tmp.keep().map_err(|e| Error::io(&dest, e.error))?);
        }
        if let Err(e) = staged_journal.persist(&journal) {
            for path in &kept {
                let _ = fs::remove_file(path);
            }
            return Err(Error::io(&journal, e.error));
        }
        sync_dir(&self.lock_dir);
        replay(&self.out_dir, &journal, &text)?;
        Ok(())
    }
}

/// Before a command reads or writes the outputs under `out_dir`: completes the commits of runs
/// killed during their renames and removes the temporaries of runs killed before theirs (more
/// than [`STALE_TEMPORARY_AGE`] old). Returns a line for each thing done.
pub fn prepare(out_dir: &Path) -> Result<Vec<String>> {
    let results = out_dir.join("results");
    if !results.is_dir() {
        return Ok(Vec::new());
    }
    let _lock = lock(&results)?;
    let mut notes = recover_locked(out_dir)?;
    for dir in output_folders(out_dir)? {
        for path in remove_stale_temporaries(&dir, STALE_TEMPORARY_AGE)? {
            notes.push(format!(
                "removed {}, a temporary file of an interrupted run",
                path.display()
            ));
        }
    }
    Ok(notes)
}

/// `results/` and `figures/` under `out_dir`, and the spec folders in them (not a symlinked
/// one: only what is really inside is cleaned).
fn output_folders(out_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut folders = Vec::new();
    for top in [out_dir.join("results"), out_dir.join("figures")] {
        let entries = match fs::read_dir(&top) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&top, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&top, e))?;
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                folders.push(entry.path());
            }
        }
        folders.push(top);
    }
    Ok(folders)
}

/// Refuses, before anything runs, a spec's folders (`results/SPEC`, `figures/SPEC`) that are
/// symbolic links: the partial file and the outputs would be written through them, to any
/// folder, and the commit (which resolves the links) would be refused only after every run.
/// A linked `results/` or `figures/` (a folder on a bigger disk) is the output folder the user
/// chose: it is resolved once here and must be a folder ([`adopt_linked_tops`] records it).
pub fn refuse_linked_folders(files: &crate::files::SpecFiles) -> Result<()> {
    let out = files.out_dir();
    for top in [out.join("results"), out.join("figures")] {
        if top.is_symlink() && !top.is_dir() {
            let target = fs::read_link(&top).map_or("?".into(), |t| t.display().to_string());
            return Err(Error::Experiment(format!(
                "{} is a symbolic link to {target}, which is not a folder (dangling?): create \
                 the folder it points to, or remove the link",
                top.display()
            )));
        }
    }
    for folder in [files.results_dir(), files.figures_dir()] {
        if folder.is_symlink() {
            let target = fs::read_link(&folder).map_or("?".into(), |t| t.display().to_string());
            return Err(Error::Experiment(format!(
                "{} is a symbolic link (to {target}): rfbench writes a spec's outputs only into \
                 its own folder under results/ and figures/ (those two may be links, the spec \
                 folders in them may not: a link there could reach any folder); remove the link, \
                 or link results/ or figures/ themselves",
                folder.display()
            )));
        }
    }
    Ok(())
}

/// Marks the target of a linked `results/` or `figures/` as an output folder rfbench writes
/// (the lock held, before a journal names it). A journal is carried out through such a link
/// only when its target has the mark: a cloned repository's link to a home folder, with a
/// journal beside it, cannot remove anything there.
fn adopt_linked_tops(out_dir: &Path) -> Result<()> {
    for top in [out_dir.join("results"), out_dir.join("figures")] {
        if top.is_symlink() {
            fs::create_dir_all(&top).map_err(|e| Error::io(&top, e))?;
            let mark = top.join(LINKED_MARK);
            let mut options = fs::OpenOptions::new();
            open_no_follow(options.create(true).truncate(false).write(true), &mark)?;
        }
    }
    Ok(())
}

/// Opens `path` with `options`, refusing a symbolic link at it (`O_NOFOLLOW`): a link planted at
/// an output's path would have the run write through it, outside the output folder. Anything
/// else that is not a regular file (a FIFO, a device, a folder) is refused too: opened
/// `O_NONBLOCK`, so that a FIFO with no writer does not hang the command, then checked.
pub fn open_no_follow(options: &mut fs::OpenOptions, path: &Path) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = match options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(_) if path.is_symlink() => {
            return Err(Error::Experiment(format!(
                "{} is a symbolic link: rfbench writes no output through a link (it could reach \
                 any file); remove the link and rerun",
                path.display()
            )))
        }
        Err(_) if path.symlink_metadata().is_ok_and(|m| !m.is_file()) => {
            return Err(not_a_file(path))
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    match file.metadata() {
        Ok(meta) if meta.is_file() => Ok(file),
        Ok(_) => Err(not_a_file(path)),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn not_a_file(path: &Path) -> Error {
    Error::Experiment(format!(
        "{} is not a regular file (a FIFO, device or folder?): rfbench keeps its partial \
         files, locks and journals there as plain files; remove it and rerun",
        path.display()
    ))
}

/// The lock on `dir`'s outputs, held until the returned file is dropped.
fn lock(dir: &Path) -> Result<File> {
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join(LOCK_FILE);
    let file = open_no_follow(
        File::options().create(true).truncate(false).write(true),
        &path,
    )?;
    file.lock().map_err(|e| Error::io(&path, e))?;
    Ok(file)
}

/// Completes every journal left in `out_dir/results` (the lock held). Returns a line per journal.
fn recover_locked(out_dir: &Path) -> Result<Vec<String>> {
    let dir = &out_dir.join("results");
    let mut notes = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(notes),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut journals: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with(JOURNAL_PREFIX) && n.ends_with(JOURNAL_SUFFIX)
            })
        })
        .collect();
    journals.sort();
    for journal in journals {
        let text = read_journal(&journal)?;
        replay(out_dir, &journal, &text)?;
        notes.push(format!(
            "completed the outputs of an interrupted run (journal {})",
            journal.display()
        ));
    }
    Ok(notes)
}

/// A journal's text; one that is not a regular UTF-8 file was not written by rfbench, and the
/// error says to remove it (every command on the folder replays journals first).
fn read_journal(journal: &Path) -> Result<String> {
    let mut text = String::new();
    let mut file = open_no_follow(fs::OpenOptions::new().read(true), journal)?;
    match std::io::Read::read_to_string(&mut file, &mut text) {
        Ok(_) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Err(Error::Experiment(format!(
            "{}: not a journal rfbench wrote (not UTF-8 text); nothing done: remove the file \
             after checking the outputs",
            journal.display()
        ))),
        Err(e) => Err(Error::io(journal, e)),
    }
}

/// One line of a journal, its paths resolved in the output folder.
enum Step {
    Rename(PathBuf, PathBuf),
    Remove(PathBuf),
}

/// A journal's lines, each path checked to be a file in `out_dir`'s `results/` or
/// `figures/` (a rename: from a temporary in the destination's folder); `Err(line)` names the
/// first line that is not.
fn journal_steps(out_dir: &Path, text: &str) -> std::result::Result<Vec<Step>, String> {
    let inside = |field: &str| {
        let relative = Path::new(field);
        confined(relative).then(|| out_dir.join(relative))
    };
    let mut steps = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let step = match fields.as_slice() {
            ["rename", tmp, dest] => {
                let from_temporary = Path::new(tmp).parent() == Path::new(dest).parent()
                    && Path::new(tmp)
                        .file_name()
                        .is_some_and(|n| is_temporary(&n.to_string_lossy()));
                match (inside(tmp), inside(dest)) {
                    (Some(tmp), Some(dest)) if from_temporary => Some(Step::Rename(tmp, dest)),
                    _ => None,
                }
            }
            ["remove", path] => inside(path).map(Step::Remove),
            _ => None,
        };
        steps.push(step.ok_or_else(|| line.to_string())?);
    }
    Ok(steps)
}

/// Whether a relative path is a file in `results/` or `figures/`, directly or in a spec's
/// folder there (`results/SPEC/FILE`, see [`crate::files`]); a spec's folder is a plain name.
fn confined(relative: &Path) -> bool {
    let parts: Vec<Component<'_>> = relative.components().collect();
    let top = |folder: &std::ffi::OsStr| folder == "results" || folder == "figures";
    let spec = |name: &std::ffi::OsStr| !name.to_string_lossy().starts_with('.');
    match parts.as_slice() {
        [Component::Normal(folder), Component::Normal(_)] => top(folder),
        [Component::Normal(folder), Component::Normal(name), Component::Normal(_)] => {
            top(folder) && spec(name)
        }
        _ => false,
    }
}

/// Checks each step's folder once links are resolved: it must still be in `out_dir`'s own
/// `results/` or `figures/`, each resolved once (a linked one is its target, when a run has
/// marked it, see [`adopt_linked_tops`]); no link below them is followed out (a folder that
/// does not exist holds nothing to move or remove); `Err` names the first path that is not.
fn resolved_inside(out_dir: &Path, steps: &[Step]) -> std::result::Result<(), String> {
    let root = out_dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let allowed: Vec<PathBuf> = ["results", "figures"]
        .iter()
        .map(|top| resolved_top(out_dir, &root, top))
        .collect::<std::result::Result<_, _>>()?;
    let check = |path: &Path| {
        let folder = path.parent().unwrap_or(path);
        match folder.canonicalize() {
            Ok(real) if allowed.iter().any(|a| real.starts_with(a)) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            _ => Err(format!("{} (resolved through a link)", path.display())),
        }
    };
    for step in steps {
        match step {
            Step::Rename(tmp, dest) => check(tmp).and_then(|()| check(dest))?,
            Step::Remove(path) => check(path)?,
        }
    }
    Ok(())
}

/// Where `out_dir/top` really is: `root/top`, or the target of a link there that a run marked
/// as its output folder; `Err` for a link to a folder no run wrote.
fn resolved_top(out_dir: &Path, root: &Path, top: &str) -> std::result::Result<PathBuf, String> {
    let path = out_dir.join(top);
    if !path.is_symlink() {
        return Ok(root.join(top));
    }
    let marked = path
        .join(LINKED_MARK)
        .symlink_metadata()
        .is_ok_and(|m| m.is_file());
    match path.canonicalize() {
        Ok(real) if marked => Ok(real),
        _ => Err(format!(
            "{} (a link to a folder no rfbench run has written: no {LINKED_MARK} there)",
            path.display()
        )),
    }
}

/// Carries out a journal's renames and removals in `out_dir`, then deletes it. Renames whose
/// temporary is gone were done already (a replay interrupted in its turn), so replaying twice is
/// harmless. A journal with any line outside the output folders is refused whole (module docs).
fn replay(out_dir: &Path, journal: &Path, text: &str) -> Result<()> {
    let steps = journal_steps(out_dir, text)
        .and_then(|steps| resolved_inside(out_dir, &steps).map(|()| steps))
        .map_err(|line| {
            Error::Experiment(format!(
                "{}: journal line {line:?} is not a rename or removal of a file in {} or {}; \
             refused, nothing done (a journal from another version or not written by rfbench): \
             remove the file after checking the outputs",
                journal.display(),
                out_dir.join("results").display(),
                out_dir.join("figures").display()
            ))
        })?;
    let mut dirs = Vec::new();
    for step in &steps {
        match step {
            Step::Rename(tmp, dest) => {
                match fs::rename(tmp, dest) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound && !tmp.exists() => {}
                    Err(e) => return Err(Error::io(dest, e)),
                }
                dirs.extend(dest.parent().map(Path::to_path_buf));
            }
            Step::Remove(path) => match fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(path, e)),
            },
        }
    }
    dirs.sort();
    dirs.dedup();
    for dir in &dirs {
        sync_dir(dir);
    }
    fs::remove_file(journal).map_err(|e| Error::io(journal, e))?;
    Ok(())
}

/// A unique journal name: process id and a clock reading, so journals sort by age.
/// The journal's text in a temporary file beside it, synced ([`temporary_file`]).
fn write_journal(journal: &Path, text: &str) -> std::io::Result<tempfile::TempPath> {
    #[cfg(test)]
    if tests::FULL_DISK.with(|full| full.get()) {
        return Err(std::io::Error::from_raw_os_error(28));
    }
    temporary_file(journal, text.as_bytes())
}

fn journal_path(dir: &Path) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    dir.join(format!(
        "{JOURNAL_PREFIX}{nanos:024}-{}{JOURNAL_SUFFIX}",
        std::process::id()
    ))
}

/// The journal is one line per file with tab-separated fields.
fn check_journal_safe(path: &Path) -> Result<()> {
    let text = path.to_string_lossy();
    if text.contains(['\t', '\n']) {
        return Err(Error::Experiment(format!(
            "{text:?}: an output path may not contain a tab or a newline"
        )));
    }
    Ok(())
}

/// Temporary files of a writer that died before renaming them (a killed run): this module's
/// `.rfbench-*.tmp` and a figure's `.figure-*.png`, names only rfbench writes. (Earlier versions
/// also removed any `.tmp*`, the temporary-file crate's default name, which a user's own file
/// in results/ may have: no longer.)
fn is_temporary(name: &str) -> bool {
    (name.starts_with(".rfbench-") && name.ends_with(".tmp"))
        || (name.starts_with(".figure-") && name.ends_with(".png"))
}

/// Whether the process that wrote temporary `name` (`.rfbench-PID-HOST-...`) has ended, where
/// the system says (Linux's `/proc`) and the writer ran on this machine; `false` when unknown
/// (another machine's writer on a shared file system: only its age tells).
fn writer_ended(name: &str) -> bool {
    let mut fields = name
        .strip_prefix(".rfbench-")
        .unwrap_or_default()
        .split('-');
    let pid = fields.next().and_then(|pid| pid.parse::<u32>().ok());
    let here = fields.next() == Some(host_tag().as_str());
    match pid {
        Some(pid) if here && Path::new("/proc/self").exists() => {
            pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
        }
        _ => false,
    }
}

/// Removes the temporary files (see [`is_temporary`]) in `dir` whose writer has ended, or last
/// modified more than `age` ago: a live run renames its temporaries within seconds, so an old
/// one belongs to a run that was killed. Returns the files removed; a missing `dir` is nothing
/// to clean.
pub fn remove_stale_temporaries(dir: &Path, age: Duration) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        if !is_temporary(&name.to_string_lossy()) {
            continue;
        }
        let path = entry.path();
        let old = writer_ended(&name.to_string_lossy())
            || entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|elapsed| elapsed > age);
        if old && entry.file_type().is_ok_and(|t| t.is_file()) {
            fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            removed.push(path);
        }
    }
    Ok(removed)
}

/// `path` made absolute against the working directory, its `.` components dropped (a path
/// that cannot be, an empty one, is kept: the confinement check then refuses it).
fn absolute(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::time::SystemTime;

    thread_local! {
        /// Makes this thread's next journal write fail as on a full disk.
        pub(super) static FULL_DISK: Cell<bool> = const { Cell::new(false) };
    }

    /// A journal that cannot be written (a full disk) fails the commit and leaves the old
    /// outputs and no temporary file (issue 24).
    #[test]
    fn a_full_disk_while_writing_the_journal_leaves_nothing_behind() {
        let out = tempfile::tempdir().unwrap();
        let (csv, png) = (
            out.path().join("results/a.csv"),
            out.path().join("figures/a.png"),
        );
        fs::create_dir_all(out.path().join("results")).unwrap();
        fs::write(&csv, b"old csv").unwrap();
        let mut staged = Staged::new(out.path());
        staged.write(&csv, b"new csv").unwrap();
        staged.write(&png, b"new png").unwrap();
        FULL_DISK.with(|full| full.set(true));
        let err = staged.commit().unwrap_err().to_string();
        FULL_DISK.with(|full| full.set(false));
        assert!(err.contains("os error 28"), "{err}");
        assert_eq!(fs::read(&csv).unwrap(), b"old csv");
        assert_eq!(files(&out.path().join("results")), [LOCK_FILE, "a.csv"]);
        assert!(files(&out.path().join("figures")).is_empty());
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn nothing_changes_before_the_commit_and_everything_after() {
        let out = tempfile::tempdir().unwrap();
        let (csv, png) = (
            out.path().join("results/a.csv"),
            out.path().join("figures/a.png"),
        );
        let gone = out.path().join("figures/a-old.png");
        fs::create_dir_all(out.path().join("figures")).unwrap();
        fs::write(&gone, b"old figure").unwrap();
        let mut staged = Staged::new(out.path());
        staged.write(&csv, b"new csv").unwrap();
        staged.write(&png, b"first").unwrap();
        staged.write(&png, b"new png").unwrap();
        staged.remove(&gone).unwrap();
        assert!(!csv.exists() && !png.exists() && gone.exists());
        assert_eq!(
            fs::read(staged.staged_path(&csv).unwrap()).unwrap(),
            b"new csv"
        );
        staged.commit().unwrap();
        assert_eq!(fs::read(&csv).unwrap(), b"new csv");
        assert_eq!(fs::read(&png).unwrap(), b"new png");
        assert!(!gone.exists());
        // Only the outputs and the lock remain: no temporary, no journal.
        assert_eq!(
            files(&out.path().join("results")),
            [".rfbench.lock", "a.csv"]
        );
        assert_eq!(files(&out.path().join("figures")), ["a.png"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&csv).unwrap().permissions().mode() & 0o777,
                0o644
            );
        }
    }

    #[test]
    fn a_dropped_set_leaves_no_trace() {
        let out = tempfile::tempdir().unwrap();
        let csv = out.path().join("results/a.csv");
        fs::create_dir_all(out.path().join("results")).unwrap();
        fs::write(&csv, b"old").unwrap();
        let mut staged = Staged::new(out.path());
        staged.write(&csv, b"new").unwrap();
        drop(staged);
        assert_eq!(fs::read(&csv).unwrap(), b"old");
        assert_eq!(files(&out.path().join("results")), ["a.csv"]);
    }

    /// A run killed half-way through its renames: the journal is completed by the next command.
    #[test]
    fn an_interrupted_commit_is_completed_by_prepare() {
        let out = tempfile::tempdir().unwrap();
        let results = out.path().join("results");
        let figures = out.path().join("figures");
        fs::create_dir_all(&results).unwrap();
        fs::create_dir_all(&figures).unwrap();
        fs::write(results.join("a.csv"), b"new csv").unwrap(); // renamed before the kill
        fs::write(figures.join("a.png"), b"old png").unwrap();
        fs::write(figures.join(".rfbench-x.tmp"), b"new png").unwrap();
        fs::write(figures.join("b.png"), b"stale").unwrap();
        let journal = results.join(".rfbench-commit-000000000000000000000001-7.journal");
        fs::write(
            &journal,
            "rename\tresults/.rfbench-gone.tmp\tresults/a.csv\n\
             rename\tfigures/.rfbench-x.tmp\tfigures/a.png\n\
             remove\tfigures/b.png\n",
        )
        .unwrap();
        // Recovery works from any working directory: the journal's paths are the folder's.
        let notes = prepare(out.path()).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(fs::read(results.join("a.csv")).unwrap(), b"new csv");
        assert_eq!(fs::read(figures.join("a.png")).unwrap(), b"new png");
        assert_eq!(files(&figures), ["a.png"]);
        assert_eq!(files(&results), [".rfbench.lock", "a.csv"]);
        // Nothing left to do the second time.
        assert!(prepare(out.path()).unwrap().is_empty());
    }

    /// A journal naming anything outside the folder's results/ and figures/ (and their spec
    /// folders) is refused whole: nothing it names is moved or removed.
    #[test]
    fn a_journal_reaching_outside_the_outputs_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let results = out.join("results");
        fs::create_dir_all(&results).unwrap();
        fs::write(results.join("a.csv"), b"keep").unwrap();
        let victim = root.path().join("victim.txt");
        for (i, line) in [
            format!("remove\t{}", victim.display()),
            "remove\tresults/../../victim.txt".to_string(),
            "remove\tresults/spec/deeper/a.csv".to_string(),
            "remove\tresults/.hidden/a.csv".to_string(),
            "remove\tresults/spec/../a.csv".to_string(),
            format!("rename\t{}\tresults/a.csv", victim.display()),
            "rename\tresults/a.csv\tfigures/a.csv".to_string(),
            "rename\tresults/.rfbench-x.tmp\tfigures/a.csv".to_string(),
            "remove\texperiments/a.toml".to_string(),
        ]
        .iter()
        .enumerate()
        {
            fs::write(&victim, b"victim").unwrap();
            let journal = results.join(format!(".rfbench-commit-{i}-1.journal"));
            fs::write(&journal, format!("remove\tresults/a.csv\n{line}\n")).unwrap();
            let err = prepare(&out).unwrap_err().to_string();
            assert!(err.contains("refused"), "{line}: {err}");
            assert_eq!(fs::read(&victim).unwrap(), b"victim", "{line}");
            // The journal's first, harmless line was not carried out either.
            assert_eq!(fs::read(results.join("a.csv")).unwrap(), b"keep", "{line}");
            fs::remove_file(&journal).unwrap();
        }
    }

    /// A spec folder (or figures/) that is a link to a folder outside: a journal's removal
    /// through it is refused whole, although the path reads as confined.
    #[test]
    fn a_journal_through_a_linked_folder_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let (out, elsewhere) = (root.path().join("out"), root.path().join("elsewhere"));
        let results = out.join("results");
        fs::create_dir_all(&results).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("victim.csv"), b"victim").unwrap();
        std::os::unix::fs::symlink(&elsewhere, results.join("spec")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("figures")).unwrap();
        for line in [
            "remove\tresults/spec/victim.csv",
            "remove\tfigures/victim.csv",
        ] {
            let journal = results.join(".rfbench-commit-1-1.journal");
            fs::write(&journal, format!("{line}\n")).unwrap();
            let err = prepare(&out).unwrap_err().to_string();
            assert!(
                err.contains("refused") && err.contains("link"),
                "{line}: {err}"
            );
            assert_eq!(fs::read(elsewhere.join("victim.csv")).unwrap(), b"victim");
            fs::remove_file(&journal).unwrap();
        }
    }

    /// A spec folder linked elsewhere is refused before anything is written, naming the link;
    /// the folder it points to is left as it was. A linked results/ or figures/ is not refused
    /// (issue 68 #6), unless it leads to no folder.
    #[test]
    fn a_linked_spec_folder_is_refused_before_the_run() {
        let root = tempfile::tempdir().unwrap();
        let (out, elsewhere) = (root.path().join("out"), root.path().join("elsewhere"));
        fs::create_dir_all(out.join("results")).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        let files = crate::files::SpecFiles::new(&out, "spec", "full");
        refuse_linked_folders(&files).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("results/spec")).unwrap();
        let err = refuse_linked_folders(&files).unwrap_err().to_string();
        assert!(err.contains("results/spec is a symbolic link"), "{err}");
        fs::remove_file(out.join("results/spec")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("figures")).unwrap();
        refuse_linked_folders(&files).unwrap();
        std::os::unix::fs::symlink(root.path().join("nowhere"), out.join("results-gone")).unwrap();
        fs::remove_dir(out.join("results")).unwrap();
        fs::rename(out.join("results-gone"), out.join("results")).unwrap();
        let err = refuse_linked_folders(&files).unwrap_err().to_string();
        assert!(err.contains("not a folder"), "{err}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    /// results/ and figures/ linked to folders on another disk (issue 68 #6): the commit
    /// writes into their targets and leaves no journal, a commit interrupted there is completed
    /// by the next command, and a spec folder linked out of them is still refused.
    #[test]
    fn linked_results_and_figures_folders_are_the_output_folder() {
        let root = tempfile::tempdir().unwrap();
        let (out, big) = (root.path().join("out"), root.path().join("big"));
        for dir in [out.clone(), big.join("results"), big.join("figures")] {
            fs::create_dir_all(dir).unwrap();
        }
        let symlink = |from: &Path, to: &Path| std::os::unix::fs::symlink(from, to);
        symlink(&big.join("results"), &out.join("results")).unwrap();
        symlink(&big.join("figures"), &out.join("figures")).unwrap();
        let spec = crate::files::SpecFiles::new(&out, "spec", "full");
        refuse_linked_folders(&spec).unwrap();
        for round in [&b"first"[..], b"second"] {
            let mut staged = Staged::new(&out);
            staged.write(&spec.csv(), round).unwrap();
            staged.write(&spec.figure(None), round).unwrap();
            staged.commit().unwrap();
            assert_eq!(fs::read(big.join("results/spec/full.csv")).unwrap(), round);
            assert_eq!(fs::read(big.join("figures/spec/full.png")).unwrap(), round);
            assert_eq!(
                files(&big.join("results")),
                [LINKED_MARK, LOCK_FILE, "spec"]
            );
            assert!(prepare(&out).unwrap().is_empty());
        }
        // Killed during its renames: the next command completes the journal through the links.
        fs::write(big.join("figures/spec/.rfbench-x.tmp"), b"third").unwrap();
        let journal = big.join("results/.rfbench-commit-1-1.journal");
        fs::write(
            &journal,
            "rename\tfigures/spec/.rfbench-x.tmp\tfigures/spec/full.png\n",
        )
        .unwrap();
        assert_eq!(prepare(&out).unwrap().len(), 1);
        assert_eq!(
            fs::read(big.join("figures/spec/full.png")).unwrap(),
            b"third"
        );
        // Below the linked folder, a spec folder linked elsewhere stays refused.
        let elsewhere = root.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("victim.csv"), b"victim").unwrap();
        symlink(&elsewhere, &big.join("results/other")).unwrap();
        let other = crate::files::SpecFiles::new(&out, "other", "full");
        assert!(refuse_linked_folders(&other).is_err());
        fs::write(&journal, "remove\tresults/other/victim.csv\n").unwrap();
        let err = prepare(&out).unwrap_err().to_string();
        assert!(err.contains("refused"), "{err}");
        assert_eq!(fs::read(elsewhere.join("victim.csv")).unwrap(), b"victim");
    }

    /// A link planted at the lock's path (dangling or not) is refused: its target is neither
    /// created nor written.
    #[test]
    fn a_link_at_the_lock_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let results = root.path().join("out/results");
        fs::create_dir_all(&results).unwrap();
        let target = root.path().join("created-by-the-lock");
        std::os::unix::fs::symlink(&target, results.join(LOCK_FILE)).unwrap();
        let err = lock(&results).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert!(!target.exists());
        fs::write(&target, b"victim").unwrap();
        assert!(lock(&results).is_err());
        assert_eq!(fs::read(&target).unwrap(), b"victim");
    }

    #[test]
    fn a_damaged_journal_is_an_error_naming_it() {
        let out = tempfile::tempdir().unwrap();
        let results = out.path().join("results");
        fs::create_dir_all(&results).unwrap();
        let journal = results.join(".rfbench-commit-1-1.journal");
        fs::write(&journal, "rename\tonly-one-path\n").unwrap();
        let err = prepare(out.path()).unwrap_err().to_string();
        assert!(err.contains(".rfbench-commit-1-1.journal"), "{err}");
        assert!(err.contains("only-one-path"), "{err}");
    }

    #[test]
    fn stale_temporaries_of_killed_runs_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, age_s: u64| {
            let path = dir.path().join(name);
            let f = std::fs::File::create(&path).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(age_s))
                .unwrap();
            path
        };
        let stale = [
            file(".rfbench-a1B2c3.tmp", 7200),
            file(".figure-x9Y8z7.png", 7200),
            // Seconds old, but its writer (a pid above Linux's limit) is not running here.
            file(&format!(".rfbench-4294967-{}-dead01.tmp", host_tag()), 1),
        ];
        let kept = [
            // A live run's temporary: seconds old.
            file(".rfbench-live01.tmp", 1),
            file(
                &format!(".rfbench-{}-{}-mine01.tmp", std::process::id(), host_tag()),
                1,
            ),
            // Seconds old, from another machine sharing the folder: its pid means nothing here.
            file(".rfbench-4294967-h00000000-away01.tmp", 1),
            // Outputs and other files, however old.
            file("fig1.csv", 7200),
            file("fig1.png", 7200),
            file(".rfbench-notes", 7200),
            // A user's own file with the temporary-file crate's kind of name, however old.
            file(".tmpAbC123", 7200),
        ];
        let mut removed = remove_stale_temporaries(dir.path(), Duration::from_secs(3600)).unwrap();
        removed.sort();
        let mut expected = stale.to_vec();
        expected.sort();
        assert_eq!(removed, expected);
        assert!(stale.iter().all(|p| !p.exists()));
        assert!(kept.iter().all(|p| p.exists()));
        // A directory that does not exist yet has nothing to clean.
        assert!(
            remove_stale_temporaries(&dir.path().join("none"), Duration::ZERO)
                .unwrap()
                .is_empty()
        );
    }

    /// A killed run's temporaries in a spec's folder (`results/SPEC/`, `figures/SPEC/`) are
    /// cleaned as the top folders' are; a symlinked spec folder is not followed.
    #[test]
    fn prepare_cleans_the_spec_folders_too() {
        let out = tempfile::tempdir().unwrap();
        let dead = format!(".rfbench-4294967-{}-dead01.tmp", host_tag());
        let mut stale = Vec::new();
        for top in ["results", "figures"] {
            let dir = out.path().join(top).join("spec");
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(&dead), b"x").unwrap();
            stale.push(dir.join(&dead));
        }
        let elsewhere = tempfile::tempdir().unwrap();
        fs::write(elsewhere.path().join(&dead), b"x").unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), out.path().join("results/linked")).unwrap();
        let notes = prepare(out.path()).unwrap();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(stale.iter().all(|p| !p.exists()));
        assert!(elsewhere.path().join(&dead).exists());
    }

    /// A FIFO or a binary file where a journal is looked for is named, with what to do, instead
    /// of hanging (a FIFO) or failing every command with a bare I/O error (bytes not UTF-8).
    #[test]
    fn a_fifo_or_a_binary_file_as_a_journal_is_named() {
        let out = tempfile::tempdir().unwrap();
        let results = out.path().join("results");
        fs::create_dir_all(&results).unwrap();
        let journal = results.join(".rfbench-commit-1-1.journal");
        let c = std::ffi::CString::new(journal.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = prepare(out.path()).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        fs::remove_file(&journal).unwrap();
        fs::write(&journal, b"rename\t\xff\n").unwrap();
        let err = prepare(out.path()).unwrap_err().to_string();
        assert!(err.contains("not a journal rfbench wrote"), "{err}");
        assert!(err.contains("remove the file"), "{err}");
    }
}
