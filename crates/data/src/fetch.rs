//! Getting a dataset's files onto the local disk, verified.
//!
//! Order of lookup: a local copy named in the registry, mirror directories (air-gapped clusters
//! and CI have no network, so a mirror must be enough; the first copy with the right digest is
//! used), then the cache, then the network. Every file is checked against the
//! registry's SHA-256 before it is used, so a result never silently comes from different data.
//! Downloads are written to `<file>.part`, hashed while written, synced, verified and only then
//! renamed into place, so an interrupted or corrupt download never leaves a file that looks
//! complete. An interrupted transfer keeps its `.part`, which the next run resumes with an HTTP
//! `Range` request where the server allows it. Files whose registry entry has no `sha256` are
//! checked against the lock file ([`LockFile`]), which records them on first use, once they
//! have parsed ([`record_digests`]). One process at a time fetches into a cache.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sha2::{Digest, Sha256};

use super::error::{DataError, Result};
use super::lock::LockFile;
use super::registry::{DatasetEntry, FileEntry};

/// Connect, response and per-read timeout: long enough for a slow server, short enough that a
/// machine without network fails quickly instead of hanging a CI job.
const NETWORK_TIMEOUT: Duration = Duration::from_secs(30);

const BUFFER_SIZE: usize = 1 << 16;

/// Where to look for and keep dataset files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// Downloads go to `<cache_dir>/<dataset>/<file>`.
    pub cache_dir: PathBuf,
    /// Directories searched, in order, before the cache and the network. A file is found as
    /// `<mirror>/<file>` or `<mirror>/<dataset>/<file>`, and used in place.
    pub mirrors: Vec<PathBuf>,
    /// Draw a download progress bar on stderr.
    pub progress: bool,
}

impl FetchOptions {
    /// Options from the environment: `RFBENCH_CACHE` (default `$XDG_CACHE_HOME/rfbench`, then
    /// `$HOME/.cache/rfbench`, then `.cache/rfbench`), `RFBENCH_MIRROR` (a ':'-separated list of
    /// directories, a relative one resolved against the directory the command started in), and a
    /// progress bar when stderr is a terminal.
    pub fn from_env() -> FetchOptions {
        let opts =
            FetchOptions::from_vars(|key| std::env::var_os(key), std::io::stderr().is_terminal());
        match std::env::current_dir() {
            Ok(start) => opts.resolved_against(&start),
            Err(_) => opts,
        }
    }

    /// Relative mirror directories made absolute against `start`, so they keep naming the same
    /// directories whichever folder later code (or a test) runs in.
    fn resolved_against(mut self, start: &Path) -> FetchOptions {
        self.mirrors = self.mirrors.into_iter().map(|m| start.join(m)).collect();
        self
    }

    fn from_vars(var: impl Fn(&str) -> Option<OsString>, progress: bool) -> FetchOptions {
        let set = |key| var(key).filter(|v| !v.is_empty());
        let cache_dir = set("RFBENCH_CACHE").map(PathBuf::from).unwrap_or_else(|| {
            set("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".cache")))
                .unwrap_or_else(|| PathBuf::from(".cache"))
                .join("rfbench")
        });
        let mirrors = set("RFBENCH_MIRROR")
            .map(|list| {
                std::env::split_paths(&list)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        FetchOptions {
            cache_dir,
            mirrors,
            progress,
        }
    }
}

/// A file made available locally, and the digest it was checked against (or will be locked
/// with).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedFile {
    pub path: PathBuf,
    pub sha256: String,
    /// `(key, source)` to record in the lock file when the file had no pinned or locked digest:
    /// recorded by [`record_digests`] once the file has parsed, so a file that turns out to be
    /// wrong is never pinned.
    pub to_lock: Option<(String, String)>,
}

/// A digest a file must have, and where it was pinned (for the error message and its fix).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    sha256: String,
    source: DigestSource,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DigestSource {
    /// `sha256` of the file (or of its local copy) in the registry.
    Registry,
    /// A line of the lock file, recorded when the file was first used.
    Lock { path: PathBuf, key: String },
}

impl Expected {
    fn of(registry: Option<&String>, lock: &LockFile, dataset: &str, key: &str) -> Option<Self> {
        match registry {
            Some(sha256) => Some(Expected {
                sha256: sha256.clone(),
                source: DigestSource::Registry,
            }),
            None => lock.get(dataset, key).map(|sha256| Expected {
                sha256: sha256.to_string(),
                source: DigestSource::Lock {
                    path: lock.path().to_path_buf(),
                    key: format!("{dataset}/{key}"),
                },
            }),
        }
    }

    /// Where the digest comes from, and what to do about a file that does not match it.
    fn source_and_fix(&self, entry: &DatasetEntry) -> (String, String) {
        let dataset = &entry.name;
        match (&self.source, &entry.defined_in) {
            (DigestSource::Registry, Some(spec)) => (
                format!(
                    "the spec {} (its own [[dataset]] table '{dataset}', pinned when the spec \
                     was written, e.g. by rfbench compare)",
                    spec.display()
                ),
                format!(
                    "the file changed since the spec was written: restore it, or, to use the new \
                     file, run rfbench compare on it again (or correct the sha256 in {})",
                    spec.display()
                ),
            ),
            (DigestSource::Registry, None) => (
                format!("the registry (datasets.toml, dataset '{dataset}')"),
                "the file is not the one the registry describes: replace it with the published \
                 file, or, if the publisher changed the file, correct its sha256 in \
                 datasets.toml"
                    .to_string(),
            ),
            (DigestSource::Lock { path, key }, _) => (
                format!(
                    "the lock file {} (line '{key}', recorded when the file was first used)",
                    path.display()
                ),
                format!(
                    "if the new file is the one you want, delete the line '{key}' from {} and \
                     run again (the new digest is recorded once the file parses); otherwise \
                     restore the original file",
                    path.display()
                ),
            ),
        }
    }

    fn mismatch(
        &self,
        entry: &DatasetEntry,
        path: PathBuf,
        kind: &'static str,
        actual: String,
    ) -> DataError {
        let (pinned_by, fix) = self.source_and_fix(entry);
        DataError::Checksum {
            path,
            kind,
            expected: self.sha256.clone(),
            pinned_by,
            actual,
            fix,
        }
    }
}

/// What `verify` found for one file, without downloading anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    /// Present and matching its pinned or locked digest.
    Verified { path: PathBuf },
    /// Present, but no digest is pinned or locked yet; the next fetch locks it.
    Unlocked { path: PathBuf, sha256: String },
    /// Present with other bytes than the pinned or locked digest.
    Mismatch {
        path: PathBuf,
        expected: String,
        actual: String,
    },
    /// Not in a local copy, a mirror or the cache.
    Missing,
}

/// Makes every file of `entry` available locally and verified; returns their paths in entry
/// order. Files without a digest yet are not locked (see [`record_digests`]).
pub fn fetch(entry: &DatasetEntry, opts: &FetchOptions) -> Result<Vec<PathBuf>> {
    Ok(fetch_verified(entry, opts)?
        .into_iter()
        .map(|f| f.path)
        .collect())
}

/// Like [`fetch`], with the digest of each file: the key of the parsed binary cache.
///
/// One process at a time fetches into a cache (an advisory lock on `<cache>/.fetch.lock`): a
/// second `rfbench` fetching the same dataset waits, then finds the file in place.
pub fn fetch_verified(entry: &DatasetEntry, opts: &FetchOptions) -> Result<Vec<FetchedFile>> {
    let _guard = lock_cache(opts)?;
    let lock = LockFile::read(&lock_path(entry, opts))?;
    let mut done: Vec<(&str, FetchedFile)> = Vec::new();
    let mut out = Vec::with_capacity(entry.files.len());
    for file in &entry.files {
        // Several entries may read members of one archive: fetch it once.
        if let Some((_, f)) = done.iter().find(|(name, _)| *name == file.file) {
            out.push(f.clone());
            continue;
        }
        let fetched = fetch_file(entry, file, opts, &lock)?;
        done.push((file.file.as_str(), fetched.clone()));
        out.push(fetched);
    }
    Ok(out)
}

/// Records in the lock file the digests of `files` that had none pinned or locked: to be called
/// once they have parsed (or their parsed cache was read), so only good files are pinned.
pub fn record_digests(
    entry: &DatasetEntry,
    opts: &FetchOptions,
    files: &[FetchedFile],
) -> Result<()> {
    if files.iter().all(|f| f.to_lock.is_none()) {
        return Ok(());
    }
    let _guard = lock_cache(opts)?;
    let mut lock = LockFile::read(&lock_path(entry, opts))?;
    for f in files {
        if let Some((key, source)) = &f.to_lock {
            if lock.get(&entry.name, key) != Some(f.sha256.as_str()) {
                lock.record(&entry.name, key, &f.sha256, source)?;
            }
        }
    }
    Ok(())
}

/// Checks every file of `entry` that is already on this machine, downloading nothing and
/// recording nothing.
pub fn verify(entry: &DatasetEntry, opts: &FetchOptions) -> Result<Vec<FileStatus>> {
    let lock = LockFile::read(&lock_path(entry, opts))?;
    entry
        .files
        .iter()
        .map(|file| {
            let (candidates, expected) = candidates(entry, file, opts, &lock)?;
            let Some(first) = candidates.first() else {
                return Ok(FileStatus::Missing);
            };
            let Some(expected) = expected else {
                return Ok(FileStatus::Unlocked {
                    path: first.0.clone(),
                    sha256: sha256_file(&first.0)?,
                });
            };
            // The first copy that matches, as fetch would use; else the first one's mismatch.
            let mut first_mismatch = None;
            for (path, _) in &candidates {
                let actual = sha256_file(path)?;
                if actual == expected.sha256 {
                    return Ok(FileStatus::Verified { path: path.clone() });
                }
                first_mismatch.get_or_insert((path.clone(), actual));
            }
            let (path, actual) = first_mismatch.expect("at least one candidate");
            Ok(FileStatus::Mismatch {
                path,
                expected: expected.sha256,
                actual,
            })
        })
        .collect()
}

/// The lock file an entry records unknown digests in.
pub fn lock_path(entry: &DatasetEntry, opts: &FetchOptions) -> PathBuf {
    entry
        .lock_file
        .clone()
        .unwrap_or_else(|| opts.cache_dir.join("datasets.lock"))
}

/// A mirror directory that does not exist is a typo in `RFBENCH_MIRROR`, not an empty mirror;
/// it matters only when a file is looked up there.
fn check_mirrors(opts: &FetchOptions) -> Result<()> {
    match opts.mirrors.iter().find(|m| !m.is_dir()) {
        Some(m) => Err(DataError::MirrorMissing { path: m.clone() }),
        None => Ok(()),
    }
}

/// The cache's fetch lock, held until the returned file is dropped (or the process ends).
fn lock_cache(opts: &FetchOptions) -> Result<File> {
    let dir = &opts.cache_dir;
    fs::create_dir_all(dir).map_err(|e| DataError::io("cannot create cache directory", dir, e))?;
    crate::lock::exclusive(&dir.join(".fetch.lock"))
}

/// How a file was found on this machine, for messages.
const LOCAL: &str = "local copy";
const MIRRORED: &str = "mirrored file";
const CACHED: &str = "cached download";

/// The copies of `file` already on this machine, in the order they are tried — its local copy if
/// one exists, else every mirror that has it, then the cache — with the digest they must have.
type Candidates = (Vec<(PathBuf, &'static str)>, Option<Expected>);

fn candidates(
    entry: &DatasetEntry,
    file: &FileEntry,
    opts: &FetchOptions,
    lock: &LockFile,
) -> Result<Candidates> {
    if let Some(local) = file.local.iter().find(|l| l.path.is_file()) {
        let key = local_key(&local.path);
        let expected = Expected::of(local.sha256.as_ref(), lock, &entry.name, &key);
        return Ok((vec![(local.path.clone(), LOCAL)], expected));
    }
    check_mirrors(opts)?;
    let expected = Expected::of(file.sha256.as_ref(), lock, &entry.name, &file.file);
    let mut found: Vec<(PathBuf, &'static str)> = opts
        .mirrors
        .iter()
        .flat_map(|m| [m.join(&file.file), m.join(&entry.name).join(&file.file)])
        .filter(|p| p.is_file())
        .map(|p| (p, MIRRORED))
        .collect();
    let cached = opts.cache_dir.join(&entry.name).join(&file.file);
    if cached.is_file() {
        found.push((cached, CACHED));
    }
    Ok((found, expected))
}

fn local_key(path: &Path) -> String {
    format!("local:{}", path.display())
}

fn fetch_file(
    entry: &DatasetEntry,
    file: &FileEntry,
    opts: &FetchOptions,
    lock: &LockFile,
) -> Result<FetchedFile> {
    let (found, expected) = candidates(entry, file, opts, lock)?;
    let key = match found.first() {
        Some((path, LOCAL)) => local_key(path),
        _ => file.file.clone(),
    };
    let source_of = |path: &Path| match (found.first(), &file.url) {
        (Some((_, LOCAL)), _) | (_, None) => path.display().to_string(),
        (_, Some(url)) => url.clone(),
    };
    // The first copy with the right bytes; a wrong copy in one mirror does not hide a good one
    // in the next. A wrong cached download is deleted and fetched again; a wrong local or
    // mirrored file is not ours to touch.
    let mut first_mismatch = None;
    for (path, kind) in &found {
        let actual = sha256_file(path)?;
        match &expected {
            Some(e) if e.sha256 == actual => {
                return Ok(FetchedFile {
                    path: path.clone(),
                    sha256: actual,
                    to_lock: None,
                })
            }
            Some(_) if *kind == CACHED => {
                fs::remove_file(path)
                    .map_err(|err| DataError::io("cannot remove corrupt cached file", path, err))?;
            }
            Some(_) => {
                first_mismatch.get_or_insert((path.clone(), *kind, actual));
            }
            // No digest yet: the first copy found is used, and locked once it parses. (Only
            // complete downloads are renamed into the cache, so a cached file without a lock
            // entry, its lock file deleted, is a first download.)
            None => {
                return Ok(FetchedFile {
                    path: path.clone(),
                    to_lock: Some((key.clone(), source_of(path))),
                    sha256: actual,
                })
            }
        }
    }
    if let (Some((path, kind, actual)), Some(e)) = (first_mismatch, &expected) {
        return Err(e.mismatch(entry, path, kind, actual));
    }
    let Some(url) = &file.url else {
        return Err(DataError::NoSource {
            dataset: entry.name.clone(),
            file: file.file.clone(),
            local: file.local.iter().map(|l| l.path.clone()).collect(),
        });
    };
    let dir = opts.cache_dir.join(&entry.name);
    let target = dir.join(&file.file);
    fs::create_dir_all(&dir)
        .map_err(|e| DataError::io("cannot create cache directory", &dir, e))?;
    let sha256 = download(entry, file, url, &target, expected.as_ref(), opts.progress)?;
    Ok(FetchedFile {
        path: target,
        to_lock: expected.is_none().then(|| (file.file.clone(), url.clone())),
        sha256,
    })
}

/// Lower-case hex SHA-256 of a file's bytes.
pub(crate) fn sha256_file(path: &Path) -> Result<String> {
    let mut input = File::open(path).map_err(|e| DataError::io("cannot open", path, e))?;
    let mut hasher = Sha256::new();
    hash_reader(&mut input, &mut hasher).map_err(|e| DataError::io("cannot read", path, e))?;
    Ok(format!("{:x}", hasher.finalize()))
}

fn hash_reader(input: &mut impl Read, hasher: &mut Sha256) -> std::io::Result<u64> {
    let mut buf = vec![0u8; BUFFER_SIZE];
    let mut total = 0;
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            return Ok(total);
        }
        hasher.update(&buf[..n]);
        total += n as u64;
    }
}

/// Deletes a file when dropped, unless disarmed.
struct RemoveOnDrop<'a>(Option<&'a Path>);

impl RemoveOnDrop<'_> {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(path) = self.0 {
            // Best effort: the error being returned matters more than a failed clean-up.
            let _ = fs::remove_file(path);
        }
    }
}

/// Downloads `url` (of `file`) to `target` through `<target>.part` and returns its digest.
///
/// A `.part` left by an interrupted transfer is resumed with an HTTP `Range` request; a
/// server that answers with the whole file (200) or refuses the range (416) restarts it. A
/// transfer cut short keeps the `.part` for the next run; a wrong digest deletes it.
fn download(
    entry: &DatasetEntry,
    file: &FileEntry,
    url: &str,
    target: &Path,
    expected: Option<&Expected>,
    progress: bool,
) -> Result<String> {
    let network_error = |reason: String| DataError::Download {
        dataset: entry.name.clone(),
        file: file.file.clone(),
        url: url.to_string(),
        reason,
    };
    let part = target.with_file_name(format!("{}.part", file.file));
    let (response, resume_from) = request_resuming(url, &part, &network_error)?;
    let expected_len = identity_length(&response);
    let mut body = response.into_body().into_reader();

    let mut out = PartFile::open(&part, resume_from)?;
    let bar = progress_bar(progress, expected_len.map(|l| l + resume_from), &file.file);
    bar.inc(resume_from);
    let received = out.receive(&mut body, &bar, &network_error)?;
    bar.finish_and_clear();
    let hasher = out.close()?;
    if let Some(len) = expected_len.filter(|&len| received < len) {
        return Err(network_error(format!(
            "the body ended after {received} of {len} bytes ({})",
            kept_for_resume(&part, resume_from + received)
        )));
    }

    let mut cleanup = RemoveOnDrop(Some(&part));
    let actual = format!("{:x}", hasher.finalize());
    if let Some(expected) = expected.filter(|e| e.sha256 != actual) {
        let (pinned_by, fix) = expected.source_and_fix(entry);
        return Err(DataError::DownloadChecksum {
            file: file.file.clone(),
            url: url.to_string(),
            expected: expected.sha256.clone(),
            pinned_by,
            actual,
            fix,
        });
    }
    fs::rename(&part, target).map_err(|e| DataError::io("cannot rename into place", &part, e))?;
    cleanup.disarm();
    sync_parent(target);
    Ok(actual)
}

/// The response to a GET of `url`, and how many bytes of `part` it continues (0: the whole
/// file). A `part` the server cannot continue (the file changed, or the part is complete but was
/// never verified) is deleted and the whole file asked for.
fn request_resuming(
    url: &str,
    part: &Path,
    network_error: &impl Fn(String) -> DataError,
) -> Result<(ureq::http::Response<ureq::Body>, u64)> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(NETWORK_TIMEOUT))
        .timeout_recv_response(Some(NETWORK_TIMEOUT))
        .timeout_per_read(Some(NETWORK_TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let mut resume_from = fs::metadata(part).map_or(0, |m| m.len());
    loop {
        let mut request = agent.get(url);
        if resume_from > 0 {
            request = request.header("Range", format!("bytes={resume_from}-"));
        }
        let response = request.call().map_err(|e| network_error(e.to_string()))?;
        let status = response.status().as_u16();
        let resumes = status == 206
            && response
                .headers()
                .get("content-range")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with(&format!("bytes {resume_from}-")));
        if resume_from > 0 && !resumes && (status == 206 || status == 416) {
            fs::remove_file(part).map_err(|e| DataError::io("cannot remove", part, e))?;
            resume_from = 0;
            continue;
        }
        if !(200..300).contains(&status) {
            return Err(network_error(format!("the server answered HTTP {status}")));
        }
        if !resumes {
            resume_from = 0;
        }
        return Ok((response, resume_from));
    }
}

/// The body's length in bytes of the file, if the server gives it: with a content encoding
/// (gzip), Content-Length counts encoded bytes, not the file's.
fn identity_length(response: &ureq::http::Response<ureq::Body>) -> Option<u64> {
    let encoded = response
        .headers()
        .get("content-encoding")
        .is_some_and(|v| v.as_bytes() != b"identity");
    (!encoded)
        .then(|| response.body().content_length())
        .flatten()
}

/// `"N kept in PATH for the next run to resume"`: what a cut transfer leaves behind.
fn kept_for_resume(part: &Path, bytes: u64) -> String {
    format!(
        "{bytes} kept in {} for the next run to resume",
        part.display()
    )
}

/// A download's `.part` file open for appending, and the hash of every byte in it.
struct PartFile<'a> {
    path: &'a Path,
    file: File,
    hasher: Sha256,
    /// Bytes it held before this transfer.
    resumed: u64,
}

impl<'a> PartFile<'a> {
    /// `path` continued after its first `resume_from` bytes (hashed now), or created empty when
    /// `resume_from` is 0.
    fn open(path: &'a Path, resume_from: u64) -> Result<Self> {
        let mut hasher = Sha256::new();
        let file = if resume_from > 0 {
            let mut existing =
                File::open(path).map_err(|e| DataError::io("cannot open", path, e))?;
            hash_reader(&mut existing, &mut hasher)
                .map_err(|e| DataError::io("cannot read", path, e))?;
            fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|e| DataError::io("cannot open", path, e))?
        } else {
            File::create(path).map_err(|e| DataError::io("cannot create", path, e))?
        };
        Ok(PartFile {
            path,
            file,
            hasher,
            resumed: resume_from,
        })
    }

    /// Appends `body` to the end of the file, hashing it, and returns the bytes received. A
    /// transfer that fails keeps what it wrote (synced) for the next run to resume.
    fn receive(
        &mut self,
        body: &mut impl Read,
        bar: &ProgressBar,
        network_error: &impl Fn(String) -> DataError,
    ) -> Result<u64> {
        let mut buf = vec![0u8; BUFFER_SIZE];
        let mut received = 0u64;
        loop {
            let n = match body.read(&mut buf) {
                Ok(0) => return Ok(received),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    bar.abandon();
                    let _ = self.file.sync_all();
                    return Err(network_error(format!(
                        "the transfer failed after {received} bytes ({}): {e}",
                        kept_for_resume(self.path, self.resumed + received)
                    )));
                }
            };
            self.hasher.update(&buf[..n]);
            self.file
                .write_all(&buf[..n])
                .map_err(|e| DataError::io("cannot write", self.path, e))?;
            received += n as u64;
            bar.inc(n as u64);
        }
    }

    /// Syncs and closes the file; returns the hash of its bytes.
    fn close(self) -> Result<Sha256> {
        self.file
            .sync_all()
            .map_err(|e| DataError::io("cannot sync", self.path, e))?;
        Ok(self.hasher)
    }
}

/// Makes the rename durable where the platform allows syncing a directory; a failure only
/// risks a re-download after a crash, so it is not an error.
fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent() {
        if let Ok(handle) = File::open(dir) {
            let _ = handle.sync_all();
        }
    }
}

fn progress_bar(enabled: bool, len: Option<u64>, file: &str) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    let template = if len.is_some() {
        "{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} {eta}"
    } else {
        "{msg} {spinner} {bytes} {bytes_per_sec}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("downloading {file}"));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Format, Registry, Role, Task};
    use std::io::BufRead;
    use std::net::TcpListener;
    use std::thread::JoinHandle;
    use std::time::Instant;

    const BODY: &[u8] = b"+1 1:1 3:0.5\n-1 2:2\n";

    /// What the test server sends for a request.
    #[derive(Clone, Copy)]
    enum Reply {
        /// The whole body with 200, whatever the request's range.
        Full(&'static [u8]),
        /// Announces `claimed` bytes, sends the body, then closes the connection.
        Cut {
            body: &'static [u8],
            claimed: usize,
        },
        /// Honours `Range: bytes=k-` with 206 and the rest of the body; 200 without a range.
        Ranged(&'static [u8]),
        NotFound,
        /// 302 Found to this path on the same server.
        Redirect(&'static str),
    }

    /// A one-route HTTP/1.1 server on 127.0.0.1 answering request k with `replies[k]` (the
    /// last reply repeats) for at most `max_requests` requests, giving up after a few
    /// seconds; joining it returns the `Range` header of each request served.
    fn serve_seq(replies: Vec<Reply>, max_requests: usize) -> (String, JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/files/data.svm", listener.local_addr().unwrap());
        listener.set_nonblocking(true).unwrap();
        let handle = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut ranges = Vec::new();
            while ranges.len() < max_requests && Instant::now() < deadline {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                stream.set_nonblocking(false).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut reader = std::io::BufReader::new(&stream);
                let mut line = String::new();
                let mut range = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("range:") {
                        range = v.trim().to_string();
                    }
                    line.clear();
                }
                let reply = replies[ranges.len().min(replies.len() - 1)];
                let mut out = &stream;
                let (head, body) = match reply {
                    Reply::Full(body) => {
                        (format!("200 OK\r\nContent-Length: {}", body.len()), body)
                    }
                    Reply::Cut { body, claimed } => {
                        (format!("200 OK\r\nContent-Length: {claimed}"), body)
                    }
                    Reply::Ranged(body) => match range.strip_prefix("bytes=") {
                        Some(r) => {
                            let from: usize = r.trim_end_matches('-').parse().unwrap();
                            (
                                format!(
                                    "206 Partial Content\r\nContent-Length: {}\r\n\
                                     Content-Range: bytes {from}-{}/{}",
                                    body.len() - from,
                                    body.len() - 1,
                                    body.len()
                                ),
                                &body[from..],
                            )
                        }
                        None => (format!("200 OK\r\nContent-Length: {}", body.len()), body),
                    },
                    Reply::NotFound => ("404 Not Found\r\nContent-Length: 0".to_string(), &b""[..]),
                    Reply::Redirect(to) => (
                        format!("302 Found\r\nLocation: {to}\r\nContent-Length: 0"),
                        &b""[..],
                    ),
                };
                let _ = write!(out, "HTTP/1.1 {head}\r\nConnection: close\r\n\r\n");
                let _ = out.write_all(body);
                let _ = out.flush();
                ranges.push(range);
            }
            ranges
        });
        (url, handle)
    }

    fn serve(reply: Reply, max_requests: usize) -> (String, JoinHandle<usize>) {
        let (url, handle) = serve_seq(vec![reply], max_requests);
        let counted = std::thread::spawn(move || handle.join().unwrap().len());
        (url, counted)
    }

    fn entry(url: &str, body: &[u8]) -> DatasetEntry {
        let mut e = DatasetEntry::new(
            "tiny",
            Task::Binary,
            Format::Libsvm,
            2,
            3,
            vec![FileEntry {
                role: Role::Train,
                file: "data.svm".into(),
                url: Some(url.into()),
                sha256: Some(format!("{:x}", Sha256::digest(body))),
                member: None,
                part: None,
                local: Vec::new(),
            }],
        );
        e.description = "test".into();
        e
    }

    /// An entry whose file has a local copy, `copy.svm` in `dir`, with no digest; its lock file
    /// in `cache`.
    fn with_local_copy(cache: &Path, dir: &Path) -> (DatasetEntry, PathBuf) {
        let path = dir.join("copy.svm");
        fs::write(&path, b"+1 2:1\n").unwrap();
        let mut e = entry(&closed_url(), BODY);
        e.lock_file = Some(cache.join("datasets.lock"));
        e.files[0].local = vec![crate::registry::LocalCopy {
            path: path.clone(),
            sha256: None,
        }];
        (e, path)
    }

    fn options(cache: &Path, mirrors: Vec<PathBuf>) -> FetchOptions {
        FetchOptions {
            cache_dir: cache.to_path_buf(),
            mirrors,
            progress: false,
        }
    }

    /// A URL nobody listens on: the port of a listener that has been dropped.
    fn closed_url() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/data.svm", listener.local_addr().unwrap())
    }

    fn cache_files(cache: &Path) -> Vec<String> {
        fs::read_dir(cache.join("tiny"))
            .map(|dir| {
                dir.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn download_lands_in_cache_verified_and_is_reused() {
        let cache = tempfile::tempdir().unwrap();
        let (url, server) = serve(Reply::Full(BODY), 1);
        let e = entry(&url, BODY);
        let paths = fetch(&e, &options(cache.path(), vec![])).unwrap();
        assert_eq!(paths, [cache.path().join("tiny/data.svm")]);
        assert_eq!(fs::read(&paths[0]).unwrap(), BODY);
        assert_eq!(cache_files(cache.path()), ["data.svm"]);
        assert_eq!(server.join().unwrap(), 1);

        let mut offline = e.clone();
        offline.files[0].url = Some(closed_url());
        assert_eq!(
            fetch(&offline, &options(cache.path(), vec![])).unwrap(),
            paths
        );
    }

    #[test]
    fn checksum_mismatch_is_an_error_and_leaves_no_file() {
        let cache = tempfile::tempdir().unwrap();
        let (url, server) = serve(Reply::Full(b"+1 1:9\n"), 1);
        let err = fetch(&entry(&url, BODY), &options(cache.path(), vec![])).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, DataError::DownloadChecksum { .. }), "{msg}");
        assert!(msg.contains(&url) && msg.contains("data.svm"), "{msg}");
        assert!(
            msg.contains(&format!("{:x}", Sha256::digest(BODY))),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("{:x}", Sha256::digest(b"+1 1:9\n"))),
            "{msg}"
        );
        assert!(cache_files(cache.path()).is_empty());
        // One space between words (issue 24: runs of 18 spaces mid-sentence).
        assert!(!msg.contains("  "), "{msg}");
        server.join().unwrap();
    }

    /// Both fixes a checksum mismatch suggests read as sentences, one space between words.
    #[test]
    fn checksum_fixes_have_no_runs_of_spaces() {
        let lock = DigestSource::Lock {
            path: PathBuf::from("datasets.lock"),
            key: "tiny/tiny.svm".into(),
        };
        let shared = DatasetEntry::new("tiny", Task::Binary, Format::Libsvm, 1, 1, Vec::new());
        let embedded = DatasetEntry {
            defined_in: Some(PathBuf::from("out/compare.toml")),
            ..shared.clone()
        };
        for source in [DigestSource::Registry, lock] {
            let expected = Expected {
                sha256: "0".repeat(64),
                source,
            };
            for entry in [&shared, &embedded] {
                let (pinned_by, fix) = expected.source_and_fix(entry);
                for text in [pinned_by, fix] {
                    assert!(!text.contains("  "), "{text}");
                }
            }
        }
    }

    /// A spec's own data (a compare spec's) is pinned by the spec: its checksum error names the
    /// spec and sends the user to rerun compare, not to datasets.toml.
    #[test]
    fn a_checksum_error_on_a_specs_own_data_names_the_spec() {
        let expected = Expected {
            sha256: "0".repeat(64),
            source: DigestSource::Registry,
        };
        let mut entry = DatasetEntry::new("mine", Task::Binary, Format::Libsvm, 1, 1, Vec::new());
        entry.defined_in = Some(PathBuf::from("out/compare.toml"));
        let (pinned_by, fix) = expected.source_and_fix(&entry);
        assert!(pinned_by.contains("out/compare.toml"), "{pinned_by}");
        assert!(
            fix.contains("rfbench compare") && !fix.contains("datasets.toml"),
            "{fix}"
        );
        let registry = Registry::parse_embedded(
            "[[dataset]]\nname = \"mine\"\ndescription = \"\"\ntask = \"binary\"\n\
             format = \"libsvm\"\nn = 1\nd = 1\n[[dataset.files]]\nrole = \"train\"\n\
             file = \"a.svm\"\nlocal = [{ path = \"a.svm\" }]\n",
            Path::new("/w/out/compare.toml"),
        )
        .unwrap();
        let defined_in = registry.get("mine").unwrap().defined_in.clone();
        assert_eq!(defined_in, Some(PathBuf::from("/w/out/compare.toml")));
    }

    #[test]
    fn connection_cut_mid_file_is_an_error_and_keeps_only_the_part() {
        let cache = tempfile::tempdir().unwrap();
        let reply = Reply::Cut {
            body: &BODY[..8],
            claimed: BODY.len(),
        };
        let (url, server) = serve(reply, 1);
        let err = fetch(&entry(&url, BODY), &options(cache.path(), vec![])).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, DataError::Download { .. }), "{msg}");
        assert!(
            msg.contains(&url) && msg.contains("RFBENCH_MIRROR") && msg.contains("resume"),
            "{msg}"
        );
        assert_eq!(cache_files(cache.path()), ["data.svm.part"]);
        server.join().unwrap();
    }

    #[test]
    fn a_cut_download_resumes_with_a_range_request() {
        let cache = tempfile::tempdir().unwrap();
        let cut = Reply::Cut {
            body: &BODY[..8],
            claimed: BODY.len(),
        };
        let (url, server) = serve_seq(vec![cut, Reply::Ranged(BODY)], 2);
        let e = entry(&url, BODY);
        assert!(fetch(&e, &options(cache.path(), vec![])).is_err());
        let paths = fetch(&e, &options(cache.path(), vec![])).unwrap();
        assert_eq!(fs::read(&paths[0]).unwrap(), BODY);
        assert_eq!(cache_files(cache.path()), ["data.svm"]);
        assert_eq!(server.join().unwrap(), ["", "bytes=8-"]);
    }

    #[test]
    fn a_server_ignoring_the_range_restarts_the_download() {
        let cache = tempfile::tempdir().unwrap();
        fs::create_dir(cache.path().join("tiny")).unwrap();
        fs::write(cache.path().join("tiny/data.svm.part"), b"garbage").unwrap();
        let (url, server) = serve_seq(vec![Reply::Full(BODY)], 1);
        let paths = fetch(&entry(&url, BODY), &options(cache.path(), vec![])).unwrap();
        assert_eq!(fs::read(&paths[0]).unwrap(), BODY);
        assert_eq!(server.join().unwrap(), ["bytes=7-"]);
        assert_eq!(cache_files(cache.path()), ["data.svm"]);
    }

    #[test]
    fn a_wrong_resumed_file_is_deleted() {
        let cache = tempfile::tempdir().unwrap();
        fs::create_dir(cache.path().join("tiny")).unwrap();
        fs::write(cache.path().join("tiny/data.svm.part"), b"XXXXXXXX").unwrap();
        let (url, server) = serve_seq(vec![Reply::Ranged(BODY)], 1);
        let err = fetch(&entry(&url, BODY), &options(cache.path(), vec![])).unwrap_err();
        assert!(matches!(err, DataError::DownloadChecksum { .. }), "{err}");
        assert!(cache_files(cache.path()).is_empty());
        assert_eq!(server.join().unwrap(), ["bytes=8-"]);
    }

    #[test]
    fn unknown_digest_is_locked_on_first_download_and_enforced_after() {
        let cache = tempfile::tempdir().unwrap();
        let lock = cache.path().join("reg/datasets.lock");
        let (url, server) = serve(Reply::Full(BODY), 1);
        let mut e = entry(&url, BODY);
        e.files[0].sha256 = None;
        e.lock_file = Some(lock.clone());
        let fetched = fetch_verified(&e, &options(cache.path(), vec![])).unwrap();
        assert_eq!(fetched[0].sha256, format!("{:x}", Sha256::digest(BODY)));
        // Locked only when the caller says the file parsed.
        assert!(!lock.exists());
        record_digests(&e, &options(cache.path(), vec![]), &fetched).unwrap();
        let text = fs::read_to_string(&lock).unwrap();
        assert!(
            text.contains(&format!("{} tiny/data.svm {url}", fetched[0].sha256)),
            "{text}"
        );
        server.join().unwrap();

        // The cached file is changed behind our back: the lock catches it and re-downloads.
        fs::write(&fetched[0].path, b"+1 1:9\n").unwrap();
        let (url2, server) = serve(Reply::Full(b"+1 1:9\n"), 1);
        e.files[0].url = Some(url2);
        let err = fetch(&e, &options(cache.path(), vec![])).unwrap_err();
        assert!(matches!(err, DataError::DownloadChecksum { .. }), "{err}");
        server.join().unwrap();

        // A mirror copy is checked against the lock too.
        let mirror = tempfile::tempdir().unwrap();
        fs::write(mirror.path().join("data.svm"), b"other").unwrap();
        let opts = options(cache.path(), vec![mirror.path().to_path_buf()]);
        let err = fetch(&e, &opts).unwrap_err();
        assert!(matches!(err, DataError::Checksum { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("mirrored file") && msg.contains(&lock.display().to_string()),
            "{msg}"
        );
        let statuses = verify(&e, &opts).unwrap();
        assert!(
            matches!(statuses[0], FileStatus::Mismatch { .. }),
            "{statuses:?}"
        );
    }

    #[test]
    fn local_copies_come_first_and_have_their_own_digest() {
        let cache = tempfile::tempdir().unwrap();
        let local = tempfile::tempdir().unwrap();
        let (e, path) = with_local_copy(cache.path(), local.path());
        let opts = options(cache.path(), vec![]);
        assert_eq!(
            verify(&e, &opts).unwrap(),
            [FileStatus::Unlocked {
                path: path.clone(),
                sha256: format!("{:x}", Sha256::digest(b"+1 2:1\n"))
            }]
        );
        let fetched = fetch_verified(&e, &opts).unwrap();
        assert_eq!(fetched[0].path, path);
        record_digests(&e, &opts, &fetched).unwrap();
        assert_eq!(
            verify(&e, &opts).unwrap(),
            [FileStatus::Verified { path: path.clone() }]
        );
        fs::write(&path, b"+1 3:1\n").unwrap();
        let msg = fetch(&e, &opts).unwrap_err().to_string();
        assert!(
            msg.contains("local copy") && !msg.contains("mirrored"),
            "{msg}"
        );
    }

    #[test]
    fn a_mirror_directory_that_does_not_exist_is_an_error() {
        let cache = tempfile::tempdir().unwrap();
        let missing = cache.path().join("no-such-mirror");
        let opts = options(cache.path(), vec![missing.clone()]);
        for err in [
            fetch(&entry(&closed_url(), BODY), &opts).unwrap_err(),
            verify(&entry(&closed_url(), BODY), &opts).unwrap_err(),
        ] {
            assert!(matches!(err, DataError::MirrorMissing { .. }), "{err}");
            let msg = err.to_string();
            assert!(
                msg.contains("no-such-mirror") && msg.contains("RFBENCH_MIRROR"),
                "{msg}"
            );
        }
    }

    /// A typo in RFBENCH_MIRROR does not stop a dataset that is found without the mirrors.
    #[test]
    fn a_missing_mirror_does_not_matter_to_a_local_copy() {
        let cache = tempfile::tempdir().unwrap();
        let (e, path) = with_local_copy(cache.path(), cache.path());
        let opts = options(cache.path(), vec![cache.path().join("no-such-mirror")]);
        assert!(matches!(
            verify(&e, &opts).unwrap()[..],
            [FileStatus::Unlocked { .. }]
        ));
        assert_eq!(fetch(&e, &opts).unwrap(), [path]);
    }

    /// Four fetches of one file into one cache at once: one download, every fetch succeeds.
    #[test]
    fn concurrent_fetches_into_one_cache_download_once() {
        let cache = tempfile::tempdir().unwrap();
        let (url, server) = serve(Reply::Full(BODY), 1);
        let mut e = entry(&url, BODY);
        e.files[0].sha256 = None;
        let opts = options(cache.path(), vec![]);
        let fetched: Vec<Vec<FetchedFile>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| fetch_verified(&e, &opts).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(fetched.iter().all(|f| f[0].sha256 == fetched[0][0].sha256));
        assert_eq!(fs::read(&fetched[0][0].path).unwrap(), BODY);
        assert_eq!(server.join().unwrap(), 1, "one download");
        assert_eq!(cache_files(cache.path()), ["data.svm"]);
    }

    #[test]
    fn http_404_is_an_error_naming_the_url() {
        let cache = tempfile::tempdir().unwrap();
        let (url, server) = serve(Reply::NotFound, 1);
        let msg = fetch(&entry(&url, BODY), &options(cache.path(), vec![]))
            .unwrap_err()
            .to_string();
        assert!(msg.contains(&url) && msg.contains("404"), "{msg}");
        assert!(cache_files(cache.path()).is_empty());
        server.join().unwrap();
    }

    #[test]
    fn a_redirect_is_followed_and_verified() {
        let cache = tempfile::tempdir().unwrap();
        let (url, server) = serve_seq(
            vec![Reply::Redirect("/moved/data.svm"), Reply::Full(BODY)],
            2,
        );
        let paths = fetch(&entry(&url, BODY), &options(cache.path(), vec![])).unwrap();
        assert_eq!(fs::read(&paths[0]).unwrap(), BODY);
        assert_eq!(cache_files(cache.path()), ["data.svm"]);
        assert_eq!(server.join().unwrap().len(), 2, "the redirect was followed");
    }

    #[test]
    fn a_redirect_loop_is_an_error_and_leaves_no_file() {
        let cache = tempfile::tempdir().unwrap();
        let (url, server) = serve_seq(vec![Reply::Redirect("/files/data.svm")], 50);
        let err = fetch(&entry(&url, BODY), &options(cache.path(), vec![])).unwrap_err();
        assert!(matches!(err, DataError::Download { .. }), "{err}");
        assert!(err.to_string().contains(&url), "{err}");
        assert!(cache_files(cache.path()).is_empty());
        let served = server.join().unwrap().len();
        assert!((2..50).contains(&served), "gave up after {served} requests");
    }

    #[test]
    fn no_network_is_an_error_pointing_to_the_mirror_variable() {
        let cache = tempfile::tempdir().unwrap();
        let url = closed_url();
        let msg = fetch(&entry(&url, BODY), &options(cache.path(), vec![]))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(&url) && msg.contains("RFBENCH_MIRROR"),
            "{msg}"
        );
    }

    #[test]
    fn mirror_hit_is_used_in_place_without_network() {
        let cache = tempfile::tempdir().unwrap();
        let mirror = tempfile::tempdir().unwrap();
        let nested = mirror.path().join("tiny");
        fs::create_dir(&nested).unwrap();
        fs::write(nested.join("data.svm"), BODY).unwrap();
        let empty = tempfile::tempdir().unwrap();
        let opts = options(
            cache.path(),
            vec![empty.path().to_path_buf(), mirror.path().to_path_buf()],
        );
        let paths = fetch(&entry(&closed_url(), BODY), &opts).unwrap();
        assert_eq!(paths, [nested.join("data.svm")]);
        assert!(!cache.path().join("tiny").exists());

        // A wrong copy in the first mirror does not hide the good one in the second.
        fs::write(empty.path().join("data.svm"), b"+1 1:9\n").unwrap();
        let paths = fetch(&entry(&closed_url(), BODY), &opts).unwrap();
        assert_eq!(paths, [nested.join("data.svm")]);
        // With only the wrong copy, the error names it and the registry's digest.
        fs::remove_file(nested.join("data.svm")).unwrap();
        let msg = fetch(&entry(&closed_url(), BODY), &opts)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("checksum mismatch for mirrored file")
                && msg.contains(&empty.path().join("data.svm").display().to_string())
                && msg.contains("datasets.toml"),
            "{msg}"
        );
        assert!(
            empty.path().join("data.svm").exists(),
            "mirrors are never modified"
        );
    }

    #[test]
    fn corrupt_cached_file_is_downloaded_again() {
        let cache = tempfile::tempdir().unwrap();
        fs::create_dir(cache.path().join("tiny")).unwrap();
        fs::write(cache.path().join("tiny/data.svm"), b"garbage").unwrap();
        let (url, server) = serve(Reply::Full(BODY), 1);
        let paths = fetch(&entry(&url, BODY), &options(cache.path(), vec![])).unwrap();
        assert_eq!(fs::read(&paths[0]).unwrap(), BODY);
        assert_eq!(server.join().unwrap(), 1);
    }

    #[test]
    fn options_from_environment_variables() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let o = FetchOptions::from_vars(
            vars(&[
                ("RFBENCH_CACHE", "/c"),
                ("RFBENCH_MIRROR", "/m1::/m2"),
                ("HOME", "/h"),
            ]),
            false,
        );
        assert_eq!(o.cache_dir, Path::new("/c"));
        assert_eq!(o.mirrors, [Path::new("/m1"), Path::new("/m2")]);
        let o = FetchOptions::from_vars(vars(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]), true);
        assert_eq!(
            (o.cache_dir.as_path(), o.progress),
            (Path::new("/x/rfbench"), true)
        );
        assert!(o.mirrors.is_empty());
        let o = FetchOptions::from_vars(vars(&[("XDG_CACHE_HOME", ""), ("HOME", "/h")]), false);
        assert_eq!(o.cache_dir, Path::new("/h/.cache/rfbench"));
    }

    /// The README's relative RFBENCH_MIRROR names a directory beside where the command started.
    #[test]
    fn a_relative_mirror_is_resolved_against_the_starting_directory() {
        let var = |key: &str| (key == "RFBENCH_MIRROR").then(|| OsString::from("../m:/abs"));
        let o = FetchOptions::from_vars(var, false).resolved_against(Path::new("/start"));
        assert_eq!(o.mirrors, [Path::new("/start/../m"), Path::new("/abs")]);
    }
}
