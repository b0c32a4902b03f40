//! Whole-file writes: a file is replaced by a complete, synced new version or not at all. A leaf
//! module (only `std` and `tempfile`), shared by the dataset layer (the lock file, the parsed-data
//! cache) and the runner's staged outputs, each of which wraps `io::Error` in its own error type.

use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::Path;

/// Writes `contents` to a new temporary file in `path`'s folder (created if missing): complete,
/// synced and world-readable like any other output (temporary files start private). Named
/// `.rfbench-PID-HOST-*.tmp` ([`host_tag`]), so a later run on the same machine can tell a dead
/// writer's leftovers.
pub fn temporary_file(path: &Path, contents: &[u8]) -> io::Result<tempfile::TempPath> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".rfbench-{}-{}-", std::process::id(), host_tag()))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(contents)?;
    tmp.flush()?;
    tmp.as_file().sync_all()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o644))?;
    }
    Ok(tmp.into_temp_path())
}

/// This machine in temporary files' names: `h` and the 8 hex digits of its host name's FNV-1a
/// hash. A process id means something only on the machine that gave it: runs on several
/// machines writing into one shared folder (the shards of a cluster job) must not take another
/// machine's live writer for a dead one of theirs.
pub fn host_tag() -> String {
    let name = fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| fs::read_to_string("/etc/hostname"))
        .unwrap_or_default();
    let hash = name.trim().bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("h{hash:08x}")
}

/// Replaces one file atomically: a reader sees the old file or the new one, never half of one,
/// and two processes writing it at once never share a temporary.
pub fn replace_file(path: &Path, contents: &[u8]) -> io::Result<()> {
    temporary_file(path, contents)?
        .persist(path)
        .map_err(|e| e.error)
}

/// Makes renames in `dir` durable where the platform allows syncing a directory; a failure
/// only weakens durability, not atomicity.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_file_writes_the_whole_new_contents_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/file.txt");
        replace_file(&path, b"old").unwrap();
        replace_file(&path, b"new contents").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new contents");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("file.txt")]);
    }
}
