//! Getting a dataset's files onto the local disk, verified.
//!
//! Order of lookup: mirror directories (air-gapped clusters and CI have no network, so a mirror
//! must be enough), then the cache, then the network. Every file is checked against the
//! registry's SHA-256 before it is used, so a result never silently comes from different data.
//! Downloads are written to `<file>.part`, hashed while written, synced, verified and only then
//! renamed into place, so an interrupted or corrupt download never leaves a file that looks
//! complete.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sha2::{Digest, Sha256};

use super::error::{DataError, Result};
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
    /// directories), and a progress bar when stderr is a terminal.
    pub fn from_env() -> FetchOptions {
        FetchOptions::from_vars(|key| std::env::var_os(key), std::io::stderr().is_terminal())
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

/// Makes every file of `entry` available locally and verified; returns their paths in entry
/// order.
pub fn fetch(entry: &DatasetEntry, opts: &FetchOptions) -> Result<Vec<PathBuf>> {
    entry
        .files
        .iter()
        .map(|file| fetch_file(entry, file, opts))
        .collect()
}

fn fetch_file(entry: &DatasetEntry, file: &FileEntry, opts: &FetchOptions) -> Result<PathBuf> {
    if let Some(path) = find_in_mirrors(&entry.name, &file.file, &opts.mirrors) {
        let actual = sha256_file(&path)?;
        if actual != file.sha256 {
            return Err(DataError::MirrorChecksum {
                path,
                expected: file.sha256.clone(),
                actual,
            });
        }
        return Ok(path);
    }
    let dir = opts.cache_dir.join(&entry.name);
    let target = dir.join(&file.file);
    if target.is_file() {
        if sha256_file(&target)? == file.sha256 {
            return Ok(target);
        }
        fs::remove_file(&target)
            .map_err(|e| DataError::io("cannot remove corrupt cached file", &target, e))?;
    }
    fs::create_dir_all(&dir)
        .map_err(|e| DataError::io("cannot create cache directory", &dir, e))?;
    download(entry, file, &target, opts.progress)?;
    Ok(target)
}

fn find_in_mirrors(dataset: &str, file: &str, mirrors: &[PathBuf]) -> Option<PathBuf> {
    mirrors
        .iter()
        .flat_map(|m| [m.join(file), m.join(dataset).join(file)])
        .find(|p| p.is_file())
}

/// Lower-case hex SHA-256 of a file's bytes.
pub(crate) fn sha256_file(path: &Path) -> Result<String> {
    let mut input = File::open(path).map_err(|e| DataError::io("cannot open", path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; BUFFER_SIZE];
    loop {
        let n = input
            .read(&mut buf)
            .map_err(|e| DataError::io("cannot read", path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// Deletes a file when dropped, unless disarmed: every early return removes the `.part` file.
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

/// Downloads `file.url` to `target` through `<target>.part`.
fn download(entry: &DatasetEntry, file: &FileEntry, target: &Path, progress: bool) -> Result<()> {
    let network_error = |reason: String| DataError::Download {
        dataset: entry.name.clone(),
        file: file.file.clone(),
        url: file.url.clone(),
        reason,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(NETWORK_TIMEOUT))
        .timeout_recv_response(Some(NETWORK_TIMEOUT))
        .timeout_per_read(Some(NETWORK_TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let response = agent
        .get(&file.url)
        .call()
        .map_err(|e| network_error(e.to_string()))?;
    let status = response.status();
    if !status.is_success() {
        return Err(network_error(format!("the server answered HTTP {status}")));
    }
    // With a content encoding (gzip), Content-Length counts encoded bytes, not the file's.
    let encoded = response
        .headers()
        .get("content-encoding")
        .is_some_and(|v| v.as_bytes() != b"identity");
    let expected_len = (!encoded)
        .then(|| response.body().content_length())
        .flatten();
    let mut body = response.into_body().into_reader();

    let part = target.with_file_name(format!("{}.part", file.file));
    let mut out = File::create(&part).map_err(|e| DataError::io("cannot create", &part, e))?;
    let mut cleanup = RemoveOnDrop(Some(&part));
    let bar = progress_bar(progress, expected_len, &file.file);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; BUFFER_SIZE];
    let mut received = 0u64;
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                bar.abandon();
                return Err(network_error(format!(
                    "the transfer failed after {received} bytes: {e}"
                )));
            }
        };
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])
            .map_err(|e| DataError::io("cannot write", &part, e))?;
        received += n as u64;
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    if let Some(len) = expected_len.filter(|&len| received < len) {
        return Err(network_error(format!(
            "the body ended after {received} of {len} bytes"
        )));
    }
    out.sync_all()
        .map_err(|e| DataError::io("cannot sync", &part, e))?;
    drop(out);

    let actual = format!("{:x}", hasher.finalize());
    if actual != file.sha256 {
        return Err(DataError::DownloadChecksum {
            file: file.file.clone(),
            url: file.url.clone(),
            expected: file.sha256.clone(),
            actual,
        });
    }
    fs::rename(&part, target).map_err(|e| DataError::io("cannot rename into place", &part, e))?;
    cleanup.disarm();
    sync_parent(target);
    Ok(())
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
    use crate::data::registry::{Format, Role, Task};
    use std::io::BufRead;
    use std::net::TcpListener;
    use std::thread::JoinHandle;
    use std::time::Instant;

    const BODY: &[u8] = b"+1 1:1 3:0.5\n-1 2:2\n";

    /// What the test server sends for every request.
    #[derive(Clone, Copy)]
    enum Reply {
        Full(&'static [u8]),
        /// Announces `claimed` bytes, sends the body, then closes the connection.
        Cut {
            body: &'static [u8],
            claimed: usize,
        },
        NotFound,
    }

    /// A one-route HTTP/1.1 server on 127.0.0.1 that answers at most `max_requests` requests
    /// and gives up after a few seconds; joining it returns the number of requests served.
    fn serve(reply: Reply, max_requests: usize) -> (String, JoinHandle<usize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/files/data.svm", listener.local_addr().unwrap());
        listener.set_nonblocking(true).unwrap();
        let handle = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut served = 0;
            while served < max_requests && Instant::now() < deadline {
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
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                let mut out = &stream;
                let (head, body) = match reply {
                    Reply::Full(body) => {
                        (format!("200 OK\r\nContent-Length: {}", body.len()), body)
                    }
                    Reply::Cut { body, claimed } => {
                        (format!("200 OK\r\nContent-Length: {claimed}"), body)
                    }
                    Reply::NotFound => ("404 Not Found\r\nContent-Length: 0".to_string(), &b""[..]),
                };
                let _ = write!(out, "HTTP/1.1 {head}\r\nConnection: close\r\n\r\n");
                let _ = out.write_all(body);
                let _ = out.flush();
                served += 1;
            }
            served
        });
        (url, handle)
    }

    fn entry(url: &str, body: &[u8]) -> DatasetEntry {
        DatasetEntry {
            name: "tiny".into(),
            description: "test".into(),
            task: Task::Binary,
            format: Format::Libsvm,
            n: 2,
            d: 3,
            files: vec![FileEntry {
                role: Role::Train,
                file: "data.svm".into(),
                url: url.into(),
                sha256: format!("{:x}", Sha256::digest(body)),
            }],
        }
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

        let offline = DatasetEntry {
            files: vec![FileEntry {
                url: closed_url(),
                ..e.files[0].clone()
            }],
            ..e
        };
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
        server.join().unwrap();
    }

    #[test]
    fn connection_cut_mid_file_is_an_error_and_leaves_no_file() {
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
            msg.contains(&url) && msg.contains("RFBENCH_MIRROR"),
            "{msg}"
        );
        assert!(cache_files(cache.path()).is_empty());
        server.join().unwrap();
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

        fs::write(empty.path().join("data.svm"), b"+1 1:9\n").unwrap();
        let msg = fetch(&entry(&closed_url(), BODY), &opts)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("checksum mismatch") && msg.contains("data.svm"),
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
}
