//! Where a spec's files live under an output folder: one folder per spec in `results/` and in
//! `figures/`, the profile (and the output's name) as the file name inside.
//!
//! ```text
//! results/SPEC/PROFILE.csv                 the results (PROFILE: `full`, `quick`, ...)
//! results/SPEC/PROFILE.claims.md           the claims' verdicts
//! results/SPEC/PROFILE[.NAME].md           the tables
//! figures/SPEC/PROFILE[.NAME].png          the figures
//! results/SPEC/.PROFILE.partial.csv        the rows of a run in progress (`--resume`)
//! results/SPEC/PROFILE.shard-I-of-N.csv    a shard's rows, and `.toml` its manifest
//! slurm/SPEC/PROFILE/                      a SLURM submission's scripts and logs
//! ```
//!
//! A profile's name has no '.' (the spec checks it), so the profile is the file name up to its
//! first '.', and an output's name (which may hold '.') can never make another profile's file.
//! Every path a command reads or writes for a spec comes from here: nothing else joins a stem.

use std::path::{Path, PathBuf};

/// The results of one spec's profile, under one output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecFiles {
    out_dir: PathBuf,
    spec: String,
    profile: String,
}

/// The name the run writes its claims under, so no output may take it.
pub const CLAIMS: &str = "claims";

impl SpecFiles {
    /// The files of spec `spec`'s profile `profile` (`full` for the spec's own lists) under
    /// `out_dir`.
    pub fn new(out_dir: &Path, spec: &str, profile: &str) -> SpecFiles {
        SpecFiles {
            out_dir: out_dir.to_path_buf(),
            spec: spec.to_string(),
            profile: profile.to_string(),
        }
    }

    /// The same spec and profile under another output folder.
    pub fn under(&self, out_dir: &Path) -> SpecFiles {
        SpecFiles {
            out_dir: out_dir.to_path_buf(),
            ..self.clone()
        }
    }

    /// The output folder, which holds `results/` and `figures/`.
    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// `SPEC/PROFILE`, how messages name this run.
    pub fn label(&self) -> String {
        format!("{}/{}", self.spec, self.profile)
    }

    /// `out_dir/results/SPEC`.
    pub fn results_dir(&self) -> PathBuf {
        self.out_dir.join("results").join(&self.spec)
    }

    /// `out_dir/figures/SPEC`.
    pub fn figures_dir(&self) -> PathBuf {
        self.out_dir.join("figures").join(&self.spec)
    }

    /// `results/SPEC/PROFILE.csv`.
    pub fn csv(&self) -> PathBuf {
        self.results_dir().join(format!("{}.csv", self.profile))
    }

    /// `results/SPEC/PROFILE.csv`, relative to the output folder (as files written into it
    /// name it).
    pub fn csv_relative(&self) -> String {
        format!("results/{}/{}.csv", self.spec, self.profile)
    }

    /// `results/SPEC/PROFILE.claims.md`.
    pub fn claims(&self) -> PathBuf {
        self.table(Some(CLAIMS))
    }

    /// `results/SPEC/PROFILE.NAME.md`, or `PROFILE.md` for the spec's one unnamed table.
    pub fn table(&self, name: Option<&str>) -> PathBuf {
        self.results_dir().join(self.file(name, "md"))
    }

    /// `figures/SPEC/PROFILE.NAME.png`, or `PROFILE.png` for the spec's one unnamed figure.
    pub fn figure(&self, name: Option<&str>) -> PathBuf {
        self.figures_dir().join(self.file(name, "png"))
    }

    /// `results/SPEC/.PROFILE.partial.csv`, or shard I of N's
    /// `.PROFILE.shard-I-of-N.partial.csv`.
    pub fn partial(&self, shard: Option<(usize, usize)>) -> PathBuf {
        let stem = match shard {
            Some(shard) => self.shard_stem(shard),
            None => self.profile.clone(),
        };
        self.results_dir().join(format!(".{stem}.partial.csv"))
    }

    /// `results/SPEC/PROFILE.shard-I-of-N.csv` of shard `(I, N)`.
    pub fn shard_csv(&self, shard: (usize, usize)) -> PathBuf {
        self.results_dir()
            .join(format!("{}.csv", self.shard_stem(shard)))
    }

    /// The manifest beside [`SpecFiles::shard_csv`]: `PROFILE.shard-I-of-N.toml`.
    pub fn shard_manifest(&self, shard: (usize, usize)) -> PathBuf {
        self.results_dir()
            .join(format!("{}.toml", self.shard_stem(shard)))
    }

    /// The shard counts N of the files `PROFILE.shard-I-of-N.{csv,toml}` in the spec's results
    /// folder, sorted, each once (none when the folder does not exist).
    pub fn shard_counts_present(&self) -> std::io::Result<Vec<usize>> {
        let prefix = format!("{}.shard-", self.profile);
        let entries = match std::fs::read_dir(self.results_dir()) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut counts = Vec::new();
        for entry in entries {
            let name = entry?.file_name().to_string_lossy().into_owned();
            let count = name
                .strip_prefix(&prefix)
                .and_then(|rest| rest.rsplit_once('.'))
                .filter(|(_, extension)| matches!(*extension, "csv" | "toml"))
                .and_then(|(part, _)| part.split_once("-of-"))
                .and_then(|(_, n)| n.parse::<usize>().ok());
            counts.extend(count);
        }
        counts.sort_unstable();
        counts.dedup();
        Ok(counts)
    }

    /// `out_dir/slurm/SPEC/PROFILE`: a submission's job scripts and logs.
    pub fn slurm_dir(&self) -> PathBuf {
        self.out_dir
            .join("slurm")
            .join(&self.spec)
            .join(&self.profile)
    }

    fn shard_stem(&self, (index, count): (usize, usize)) -> String {
        format!("{}.shard-{index}-of-{count}", self.profile)
    }

    fn file(&self, name: Option<&str>, extension: &str) -> String {
        match name {
            Some(name) => format!("{}.{name}.{extension}", self.profile),
            None => format!("{}.{extension}", self.profile),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(profile: &str) -> SpecFiles {
        SpecFiles::new(Path::new("out"), "demo", profile)
    }

    /// The layout of the module docs, file by file.
    #[test]
    fn every_file_of_a_profile_is_in_the_specs_folders() {
        let full = files("full");
        assert_eq!(full.csv(), Path::new("out/results/demo/full.csv"));
        assert_eq!(full.claims(), Path::new("out/results/demo/full.claims.md"));
        assert_eq!(full.table(None), Path::new("out/results/demo/full.md"));
        assert_eq!(
            full.table(Some("time")),
            Path::new("out/results/demo/full.time.md")
        );
        assert_eq!(full.figure(None), Path::new("out/figures/demo/full.png"));
        assert_eq!(
            files("quick").figure(Some("a.b")),
            Path::new("out/figures/demo/quick.a.b.png")
        );
        assert_eq!(
            full.partial(None),
            Path::new("out/results/demo/.full.partial.csv")
        );
        let shard = (2, 8);
        assert_eq!(
            full.partial(Some(shard)),
            Path::new("out/results/demo/.full.shard-2-of-8.partial.csv")
        );
        assert_eq!(
            full.shard_csv(shard),
            Path::new("out/results/demo/full.shard-2-of-8.csv")
        );
        assert_eq!(
            full.shard_manifest(shard),
            Path::new("out/results/demo/full.shard-2-of-8.toml")
        );
        assert_eq!(full.slurm_dir(), Path::new("out/slurm/demo/full"));
        assert_eq!(full.label(), "demo/full");
    }

    /// Profile `a`'s output `b-c` and profile `a-b`'s output `c` are different files (with a
    /// '-' between profile and output they were one).
    #[test]
    fn a_profile_and_an_output_name_never_make_another_profiles_file() {
        let a = files("a");
        let ab = files("a-b");
        assert_ne!(a.table(Some("b-c")), ab.table(Some("c")));
    }

    #[test]
    fn shard_counts_are_read_from_this_profiles_shards_only() {
        let dir = tempfile::tempdir().unwrap();
        let full = SpecFiles::new(dir.path(), "demo", "full");
        assert_eq!(full.shard_counts_present().unwrap(), Vec::<usize>::new());
        std::fs::create_dir_all(full.results_dir()).unwrap();
        for name in [
            "full.shard-1-of-4.csv",
            "full.shard-2-of-4.toml",
            "full.shard-1-of-2.toml",
            "quick.shard-1-of-3.csv",
            "full.shard-1-of-5.txt",
            "full.csv",
        ] {
            std::fs::write(full.results_dir().join(name), "").unwrap();
        }
        assert_eq!(full.shard_counts_present().unwrap(), [2, 4]);
    }
}
