//! Where and with what a result was produced: written on every row, so a results file says by
//! itself how it was made.

use std::path::Path;
use std::process::Command;

/// Where and with what a result was produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    pub version: String,
    pub git_commit: String,
    pub threads: usize,
    pub cpu: String,
    pub date: String,
    /// The compiler that built this executable (`rustc --version` at build time).
    pub rustc: String,
    /// The linked OpenBLAS's build and kernels ([`rfbench_maps::backend::blas`]).
    pub blas: String,
    /// The vector instructions the dense products dispatch to ([`rfbench_maps::backend::vector_isa`]).
    pub simd: String,
}

impl Provenance {
    /// Reads the crate version, the checkout's commit (`-dirty` if tracked sources outside
    /// `results/` and `figures/` differ from it), rayon's thread count, the CPU model, today's
    /// UTC date, the compiler, the BLAS and the vector instructions.
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
                .is_some_and(|s| !s.is_empty())
                    || hidden_changes(&git);
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
            rustc: env!("RFBENCH_RUSTC_VERSION").to_string(),
            blas: rfbench_maps::backend::blas(),
            simd: rfbench_maps::backend::vector_isa().to_string(),
        }
    }
}

/// Whether a tracked file outside `results/` and `figures/` that git was told not to look at
/// (`git update-index --assume-unchanged` or `--skip-worktree`, which `git status` then skips)
/// differs from its committed content: its hash is compared with the index's. A file that cannot
/// be hashed (removed) counts as changed.
fn hidden_changes(git: &dyn Fn(&[&str]) -> Option<String>) -> bool {
    let Some(listing) = git(&[
        "ls-files",
        "-v",
        "-s",
        "-z",
        "--",
        ".",
        ":!results",
        ":!figures",
    ]) else {
        return false;
    };
    // "TAG MODE HASH STAGE\tPATH\0": a lowercase tag is assume-unchanged, S skip-worktree.
    let hidden: Vec<(&str, &str)> = listing
        .split('\0')
        .filter_map(|line| {
            let (fields, path) = line.split_once('\t')?;
            let mut fields = fields.split(' ');
            let tag = fields.next()?;
            let hash = fields.nth(1)?;
            let hidden = tag == "S" || tag.chars().all(|c| c.is_ascii_lowercase());
            hidden.then_some((hash, path))
        })
        .collect();
    hidden
        .iter()
        .any(|(hash, path)| git(&["hash-object", "--", path]).is_none_or(|now| now != *hash))
}

impl Provenance {
    /// Refuses a checkout whose rows would not name the code that made them: tracked files
    /// changed outside `results/` and `figures/` (`-dirty`), or no git checkout at all.
    pub fn require_clean(&self) -> Result<(), String> {
        match self.git_commit.as_str() {
            "unknown" => Err(
                "--require-clean: the root is not a git checkout (or git is \
                              missing), so no commit would name the code of the rows"
                    .to_string(),
            ),
            c if c.ends_with("-dirty") => Err(format!(
                "--require-clean: uncommitted changes to tracked files outside results/ and \
                 figures/ ({c}): the rows would name a commit that does not hold their code; \
                 commit or stash them first (`git status`)"
            )),
            _ => Ok(()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A tracked file changed behind `git update-index --assume-unchanged` (or
    /// `--skip-worktree`), which `git status` does not show, still makes the commit `-dirty`
    /// and `--require-clean` refuse it (issue 68); unchanged, it does not.
    #[test]
    fn changes_hidden_from_git_status_still_make_the_commit_dirty() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .arg("-C")
                .arg(dir.path())
                .args(["-c", "user.email=t@t", "-c", "user.name=t"])
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(dir.path().join("b.rs"), "fn b() {}\n").unwrap();
        git(&["add", "a.rs", "b.rs"]);
        git(&["commit", "-q", "-m", "first"]);
        git(&["update-index", "--assume-unchanged", "a.rs"]);
        git(&["update-index", "--skip-worktree", "b.rs"]);
        assert!(Provenance::collect(dir.path()).require_clean().is_ok());
        for file in ["a.rs", "b.rs"] {
            std::fs::write(dir.path().join(file), "fn changed() {}\n").unwrap();
            let provenance = Provenance::collect(dir.path());
            assert!(provenance.git_commit.ends_with("-dirty"), "{file}");
            assert!(provenance.require_clean().is_err(), "{file}");
            let committed = format!("fn {}() {{}}\n", &file[..1]);
            std::fs::write(dir.path().join(file), committed).unwrap();
        }
    }

    #[test]
    fn dates() {
        let at = |s: u64| utc_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_795_219_200), "2026-11-21");
    }
}
