//! The dataset registry (`datasets.toml`): what each dataset is and where its files come from.
//!
//! Parsing is two-staged like the experiment specs: a raw serde mirror of the TOML that denies
//! unknown keys (so a typo is an error naming the key and line, not a silently ignored setting),
//! then validation into [`DatasetEntry`] values. Validation errors carry the line of the
//! offending table, recovered from TOML spans.
//!
//! An entry says everything needed to turn published bytes into the paper's matrix: the format
//! and its options, the compression (from the file name: `.gz`, `.bz2`, `.xz`, `.zip`, `.tar`,
//! `.tar.gz`/`.tgz`, `.tar.bz2`, `.tar.xz`) and the archive member to read, how labels map to
//! numbers, the train/test split (the files' roles, or a seeded random split declared in the
//! entry), an optional seeded subsample, and the preprocessing a spec gets by default. A file's
//! `sha256` may be left out when the publisher gives none: the digest is then recorded in the
//! lock file (`datasets.lock` next to the registry) on first use, once the file parses, and
//! enforced afterwards.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use rfbench_registry_data::{Step, TaskKind};
use serde::Deserialize;
use toml::Spanned;

use super::error::{DataError, Result};

/// The learning task a dataset's labels define.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    Binary,
    Multiclass,
    Regression,
}

impl From<Task> for TaskKind {
    /// A dataset's task as the registry's learners see it: binary and multi-class are both
    /// classification.
    fn from(task: Task) -> TaskKind {
        match task {
            Task::Regression => TaskKind::Regression,
            _ => TaskKind::Classification,
        }
    }
}

/// The on-disk format of a dataset's files; one parser per variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub enum Format {
    /// `label idx:val ...` lines with 1-based, increasing indices (optional `qid:`).
    #[serde(rename = "libsvm")]
    Libsvm,
    /// Delimited text; the `[dataset.csv]` table says separator, header and columns.
    #[serde(rename = "csv")]
    Csv,
    /// MNIST's IDX: an unsigned-byte tensor file per role for features, one for labels.
    #[serde(rename = "idx")]
    Idx,
    /// CIFAR-10's binary version: records of 1 label byte and 3,072 pixel bytes.
    #[serde(rename = "cifar10")]
    Cifar10,
    /// The raw UCI Adult records (`adult.data`, `adult.test`), one-hot encoded as
    /// documented in the `adult` module.
    #[serde(rename = "uci-adult")]
    UciAdult,
    /// Apache Parquet, read through polars. The optional `[dataset.csv]` table names the label,
    /// skipped and categorical columns by index as for delimited text (its `separator` and
    /// `header` do not apply: the file's schema names the columns).
    #[serde(rename = "parquet")]
    Parquet,
    /// The Arrow IPC file format (Feather version 2), read through polars; columns as for
    /// Parquet.
    #[serde(rename = "arrow-ipc")]
    ArrowIpc,
}

impl Format {
    /// Parquet or Arrow IPC: typed columns with names, read through polars.
    pub fn is_columnar(self) -> bool {
        matches!(self, Format::Parquet | Format::ArrowIpc)
    }

    /// The columnar format a file name announces (`.parquet`, `.pq`; `.arrow`, `.feather`,
    /// `.ipc`), if any.
    pub fn columnar_of_file_name(name: &str) -> Option<Format> {
        let lower = name.to_ascii_lowercase();
        let (_, suffix) = lower.rsplit_once('.')?;
        match suffix {
            "parquet" | "pq" => Some(Format::Parquet),
            "arrow" | "feather" | "ipc" => Some(Format::ArrowIpc),
            _ => None,
        }
    }

    /// The format's name in `datasets.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Libsvm => "libsvm",
            Format::Csv => "csv",
            Format::Idx => "idx",
            Format::Cifar10 => "cifar10",
            Format::UciAdult => "uci-adult",
            Format::Parquet => "parquet",
            Format::ArrowIpc => "arrow-ipc",
        }
    }
}

/// Which part of the published split a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Train,
    Test,
}

/// For datasets that keep features and labels in separate files (IDX always; CSV when a role's
/// inputs and targets are published apart, as COIL 2000's ticeval2000 / tictgts2000): which one
/// a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Features,
    Labels,
}

/// How a file is compressed or archived, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Xz,
    /// A zip archive; the entry's `member` names the file inside.
    Zip,
    /// A tar archive, possibly compressed; the entry's `member` names the file inside.
    Tar(TarCompression),
}

/// The compression around a tar archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TarCompression {
    None,
    Gzip,
    Bzip2,
    Xz,
}

impl Compression {
    /// The compression a file name announces.
    pub fn of_file_name(name: &str) -> Compression {
        let lower = name.to_ascii_lowercase();
        let ends = |s: &str| lower.ends_with(s);
        if ends(".tar.gz") || ends(".tgz") {
            Compression::Tar(TarCompression::Gzip)
        } else if ends(".tar.bz2") || ends(".tbz2") {
            Compression::Tar(TarCompression::Bzip2)
        } else if ends(".tar.xz") || ends(".txz") {
            Compression::Tar(TarCompression::Xz)
        } else if ends(".tar") {
            Compression::Tar(TarCompression::None)
        } else if ends(".zip") {
            Compression::Zip
        } else if ends(".gz") {
            Compression::Gzip
        } else if ends(".bz2") {
            Compression::Bzip2
        } else if ends(".xz") {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    /// Archives hold several files, so reading one needs a member name.
    pub fn is_archive(self) -> bool {
        matches!(self, Compression::Zip | Compression::Tar(_))
    }
}

/// A copy of a file already on this machine (e.g. installed by a system package), used in
/// place. It may be a different encoding of the same data (Debian re-gzips Fashion-MNIST), so
/// it has its own digest, pinned here or locked on first use.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalCopy {
    pub path: PathBuf,
    pub sha256: Option<String>,
}

/// One file of a dataset: its name in the cache and mirrors, its source and its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub role: Role,
    /// A plain file name (no directories), used in the cache and looked up in mirrors.
    pub file: String,
    /// Where to download it; `None` for a file that exists only on this machine (its `local`
    /// copies).
    pub url: Option<String>,
    /// Lower-case hex SHA-256 of the file as published; `None` when the publisher gives none,
    /// in which case the lock file pins it on first use, once it parses.
    pub sha256: Option<String>,
    /// The file to read inside an archive (zip, tar).
    pub member: Option<String>,
    /// Features or labels, for formats that split them (IDX).
    pub part: Option<Part>,
    /// Copies on this machine searched before the mirrors.
    pub local: Vec<LocalCopy>,
}

impl FileEntry {
    /// The compression its file name announces.
    pub fn compression(&self) -> Compression {
        Compression::of_file_name(&self.file)
    }
}

/// Options of the `csv` format (`[dataset.csv]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvOptions {
    /// A single character, or `"whitespace"` for runs of spaces and tabs. Default `,`.
    #[serde(default = "default_separator")]
    pub separator: String,
    /// The first non-comment line names the columns and is skipped.
    #[serde(default)]
    pub header: bool,
    /// 0-based column of the label; negative counts from the end (-1 = last). Default -1.
    #[serde(default = "default_label_column")]
    pub label_column: i64,
    /// 0-based columns that are neither features nor label (ids, alternative targets).
    #[serde(default)]
    pub skip_columns: Vec<usize>,
    /// 0-based columns holding categories, one-hot encoded after the numeric columns, one
    /// block per column in column order, categories sorted (byte order) over all files.
    #[serde(default)]
    pub categorical_columns: Vec<usize>,
}

impl Default for CsvOptions {
    /// The table's defaults: comma-separated, no header row, the label last.
    fn default() -> Self {
        CsvOptions {
            separator: default_separator(),
            header: false,
            label_column: default_label_column(),
            skip_columns: Vec::new(),
            categorical_columns: Vec::new(),
        }
    }
}

fn default_separator() -> String {
    ",".into()
}

fn default_label_column() -> i64 {
    -1
}

/// How label text (or a numeric label) becomes the number a learner sees.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelMap {
    /// Label text -> value. For numeric formats the keys are compared as numbers.
    #[serde(default)]
    pub map: BTreeMap<String, f64>,
    /// Value of any label not in `map`; without it, such a label is an error.
    pub default: Option<f64>,
}

impl LabelMap {
    /// The value of a label given as text.
    pub fn apply_text(&self, text: &str) -> std::result::Result<f64, String> {
        if let Some(&v) = self.map.get(text) {
            return Ok(v);
        }
        self.default
            .ok_or_else(|| format!("label '{text}' is not in the registry's label map"))
    }

    /// The value of a label that a format already parsed as a number.
    pub fn apply_number(&self, label: f64) -> std::result::Result<f64, String> {
        for (key, &v) in &self.map {
            if key.trim().parse::<f64>() == Ok(label) {
                return Ok(v);
            }
        }
        self.default
            .ok_or_else(|| format!("label {label} is not in the registry's label map"))
    }
}

/// How rows split into train and test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// The files' roles: the published split.
    Files,
    /// A seeded random split of all rows: `test_size` rows go to the test set.
    Random { test_size: usize, seed: u64 },
}

/// A seeded random subsample of `n` rows, taken before the split (the Tensor Sketch paper's
/// 100,000 Covertype points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subsample {
    pub n: usize,
    pub seed: u64,
}

/// One dataset of the registry, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetEntry {
    pub name: String,
    pub description: String,
    pub task: Task,
    pub format: Format,
    /// Number of rows as published (train + test), before any subsample.
    pub n: usize,
    /// Number of features as published, or as the format's documented encoding gives.
    pub d: usize,
    pub files: Vec<FileEntry>,
    pub csv: Option<CsvOptions>,
    pub labels: Option<LabelMap>,
    pub split: Split,
    pub subsample: Option<Subsample>,
    /// The preprocessing a spec gets when it names none (the papers' defaults for the data),
    /// in the vocabulary of [`Step`].
    pub preprocess: Vec<Step>,
    /// Where digests of files without a pinned `sha256` are recorded; `None` means
    /// `<cache_dir>/datasets.lock`.
    pub lock_file: Option<PathBuf>,
    /// The spec whose own `[[dataset]]` table defines the entry (`None`: the root's
    /// `datasets.toml`, or code): where a checksum error sends the user.
    pub defined_in: Option<PathBuf>,
}

impl DatasetEntry {
    /// A minimal entry (files split by role, no options), for datasets built in code.
    pub fn new(
        name: &str,
        task: Task,
        format: Format,
        n: usize,
        d: usize,
        files: Vec<FileEntry>,
    ) -> DatasetEntry {
        DatasetEntry {
            name: name.into(),
            description: String::new(),
            task,
            format,
            n,
            d,
            files,
            csv: None,
            labels: None,
            split: Split::Files,
            subsample: None,
            preprocess: Vec::new(),
            lock_file: None,
            defined_in: None,
        }
    }

    /// The number of rows a load yields: the subsample's size, else `n`.
    pub fn loaded_rows(&self) -> usize {
        self.subsample.map_or(self.n, |s| s.n)
    }
}

/// All datasets of a registry file, in file order.
#[derive(Debug, Clone)]
pub struct Registry {
    path: PathBuf,
    entries: Vec<DatasetEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegistry {
    #[serde(default)]
    dataset: Vec<Spanned<RawDataset>>,
}

/// The `[[dataset]]` tables of a file that holds other things too.
#[derive(Deserialize)]
struct EmbeddedRegistry {
    #[serde(default)]
    dataset: Vec<Spanned<RawDataset>>,
}

fn syntax(origin: &Path, e: toml::de::Error) -> DataError {
    DataError::RegistrySyntax {
        path: origin.to_path_buf(),
        message: e.to_string(),
    }
}

/// Validates every entry and refuses a name used twice; relative `local` paths are read from
/// `folder` when one is given (else they are refused).
fn validate_all(
    raw: Vec<Spanned<RawDataset>>,
    text: &str,
    origin: &Path,
    folder: Option<&Path>,
) -> Result<Vec<DatasetEntry>> {
    let mut entries = Vec::with_capacity(raw.len());
    let mut seen = HashSet::new();
    for spanned in raw {
        let line = line_of(text, spanned.span().start);
        let mut raw = spanned.into_inner();
        if let Some(folder) = folder {
            for file in &mut raw.files {
                for copy in &mut file.get_mut().local {
                    if copy.path.is_relative() {
                        copy.path = folder.join(&copy.path);
                    }
                }
            }
        }
        let entry = validate(raw, text, origin, line)?;
        if !seen.insert(entry.name.clone()) {
            return Err(invalid(origin, line, &entry.name, "duplicate dataset name"));
        }
        entries.push(entry);
    }
    Ok(entries)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDataset {
    name: String,
    description: String,
    task: Task,
    format: Format,
    n: usize,
    d: usize,
    csv: Option<CsvOptions>,
    labels: Option<LabelMap>,
    split: Option<RawSplit>,
    subsample: Option<Subsample>,
    #[serde(default)]
    preprocess: Vec<Spanned<toml::Value>>,
    files: Vec<Spanned<RawFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSplit {
    test_size: usize,
    seed: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    role: Role,
    file: String,
    url: Option<String>,
    sha256: Option<String>,
    member: Option<String>,
    part: Option<Part>,
    #[serde(default)]
    local: Vec<LocalCopy>,
}

impl Registry {
    /// Reads and validates a registry file.
    pub fn from_file(path: &Path) -> Result<Registry> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| DataError::io("cannot read registry", path, e))?;
        Registry::parse(&text, path)
    }

    /// Parses and validates registry text; `origin` is the path that error messages name, and
    /// the lock file is `datasets.lock` in its directory.
    pub fn parse(text: &str, origin: &Path) -> Result<Registry> {
        let raw: RawRegistry = toml::from_str(text).map_err(|e| syntax(origin, e))?;
        let lock_file = origin.with_file_name("datasets.lock");
        let mut entries = validate_all(raw.dataset, text, origin, None)?;
        for entry in &mut entries {
            entry.lock_file = Some(lock_file.clone());
        }
        Ok(Registry {
            path: origin.to_path_buf(),
            entries,
        })
    }

    /// The `[[dataset]]` tables of another TOML file (a spec that carries its own data), every
    /// other key ignored. A relative `local` path is read from the file's folder, so the file
    /// and its data can move together; digests not pinned go to the cache's lock file.
    pub fn parse_embedded(text: &str, origin: &Path) -> Result<Registry> {
        let raw: EmbeddedRegistry = toml::from_str(text).map_err(|e| syntax(origin, e))?;
        let folder = origin
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let folder =
            std::path::absolute(folder).map_err(|e| DataError::io("cannot resolve", origin, e))?;
        let mut entries = validate_all(raw.dataset, text, origin, Some(&folder))?;
        for entry in &mut entries {
            entry.defined_in = Some(origin.to_path_buf());
        }
        Ok(Registry {
            path: origin.to_path_buf(),
            entries,
        })
    }

    /// This registry with `first`'s entries in front: a name both define is `first`'s.
    pub fn shadowed_by(mut self, first: Registry) -> Registry {
        self.entries
            .retain(|e| !first.entries.iter().any(|f| f.name == e.name));
        let mut entries = first.entries;
        entries.append(&mut self.entries);
        Registry {
            path: self.path,
            entries,
        }
    }

    /// The entry called `name`; an unknown name is an error listing the known ones.
    pub fn get(&self, name: &str) -> Result<&DatasetEntry> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| DataError::UnknownDataset {
                name: name.to_string(),
                path: self.path.clone(),
                known: self.entries.iter().map(|e| e.name.clone()).collect(),
            })
    }

    pub fn entries(&self) -> &[DatasetEntry] {
        &self.entries
    }

    /// The file this registry was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn validate(raw: RawDataset, text: &str, origin: &Path, line: usize) -> Result<DatasetEntry> {
    let name = raw.name;
    let invalid_at = |at: usize, problem: &str| invalid(origin, at, &name, problem);
    let fail = |problem: String| invalid_at(line, &problem);
    if name.is_empty() || !is_plain_name(&name) {
        return Err(fail(
            "the name must be a non-empty plain name (letters, digits, '-', '_', '.'), \
             since it names a cache directory"
                .into(),
        ));
    }
    if raw.n == 0 || raw.d == 0 {
        return Err(fail(format!(
            "n and d must be at least 1, got n = {}, d = {}",
            raw.n, raw.d
        )));
    }
    if raw.files.is_empty() {
        return Err(fail("no files".into()));
    }
    check_format(raw.format, raw.csv.as_ref()).map_err(fail)?;
    // The rows that are split and preprocessed: the subsample's, if any.
    let rows = raw.subsample.map_or(raw.n, |s| s.n);
    let split = split_of(raw.split.as_ref(), &raw.files, rows).map_err(fail)?;
    if let Some(s) = raw.subsample {
        if s.n == 0 || s.n > raw.n {
            return Err(fail(format!(
                "subsample.n must be between 1 and n = {}, got {}",
                raw.n, s.n
            )));
        }
    }
    let preprocess = preprocess_steps(&raw.preprocess, rows, text, invalid_at)?;
    let files = file_entries(raw.files, raw.format, text, invalid_at)?;
    check_parts(&files, raw.format).map_err(fail)?;
    Ok(DatasetEntry {
        name,
        description: raw.description,
        task: raw.task,
        format: raw.format,
        n: raw.n,
        d: raw.d,
        files,
        csv: raw.csv,
        labels: raw.labels,
        split,
        subsample: raw.subsample,
        preprocess,
        lock_file: None,
        defined_in: None,
    })
}

/// A `[dataset.csv]` table with format "csv" (where it is required) or a columnar format (where
/// it may name the label, skipped and categorical columns), and a valid one.
fn check_format(format: Format, csv: Option<&CsvOptions>) -> std::result::Result<(), String> {
    match (format, csv) {
        (Format::Csv, None) => Err("format 'csv' needs a [dataset.csv] table".into()),
        (Format::Csv, Some(csv)) => check_csv(csv),
        (Format::Parquet | Format::ArrowIpc, Some(csv)) => check_csv(csv),
        (_, Some(_)) => {
            Err("a [dataset.csv] table needs format 'csv', 'parquet' or 'arrow-ipc'".into())
        }
        _ => Ok(()),
    }
}

/// The dataset's split: its files' roles, or a declared random split of its `rows`, which needs
/// every file to be a training file.
fn split_of(
    split: Option<&RawSplit>,
    files: &[Spanned<RawFile>],
    rows: usize,
) -> std::result::Result<Split, String> {
    let Some(s) = split else {
        return Ok(Split::Files);
    };
    if files.iter().any(|f| f.get_ref().role == Role::Test) {
        return Err("a declared split needs every file to have role 'train'".into());
    }
    if s.test_size == 0 || s.test_size >= rows {
        return Err(format!(
            "split.test_size must be between 1 and {} (the rows split), got {}",
            rows - 1,
            s.test_size
        ));
    }
    Ok(Split::Random {
        test_size: s.test_size,
        seed: s.seed,
    })
}

/// The preprocessing steps, each checked against the rows it receives; an error names the
/// step's line.
fn preprocess_steps(
    values: &[Spanned<toml::Value>],
    mut rows: usize,
    text: &str,
    invalid_at: impl Fn(usize, &str) -> DataError,
) -> Result<Vec<Step>> {
    let mut preprocess = Vec::with_capacity(values.len());
    for value in values {
        let step_line = line_of(text, value.span().start);
        let step = Step::from_toml(value.get_ref())
            .and_then(|step| step.rows_after(rows).map(|r| (step, r)));
        match step {
            Ok((step, after)) => {
                preprocess.push(step);
                rows = after;
            }
            Err(problem) => return Err(invalid_at(step_line, &format!("preprocess: {problem}"))),
        }
    }
    Ok(preprocess)
}

/// The files, each checked ([`check_file`]); an error names the file's line.
fn file_entries(
    raw: Vec<Spanned<RawFile>>,
    format: Format,
    text: &str,
    invalid_at: impl Fn(usize, &str) -> DataError,
) -> Result<Vec<FileEntry>> {
    let mut files = Vec::with_capacity(raw.len());
    let mut seen = HashSet::new();
    for spanned in raw {
        let file_line = line_of(text, spanned.span().start);
        let f = spanned.into_inner();
        if let Err(problem) = check_file(&f, format, &mut seen, &files) {
            return Err(invalid_at(file_line, &problem));
        }
        files.push(FileEntry {
            role: f.role,
            file: f.file,
            url: f.url,
            sha256: f.sha256,
            member: f.member,
            part: f.part,
            local: f.local,
        });
    }
    Ok(files)
}

/// Formats "idx" and "csv" read a role's features and labels from one file with
/// `part = "features"` and one with `part = "labels"` (CSV: or from whole files, the label in a
/// column).
fn check_parts(files: &[FileEntry], format: Format) -> std::result::Result<(), String> {
    for role in [Role::Train, Role::Test] {
        let parts: Vec<_> = files
            .iter()
            .filter(|f| f.role == role)
            .map(|f| f.part)
            .collect();
        let pair = parts.len() == 2
            && parts.contains(&Some(Part::Features))
            && parts.contains(&Some(Part::Labels));
        let whole_files = parts.iter().all(Option::is_none);
        let ok = match format {
            Format::Idx => parts.is_empty() || pair,
            // CSV: whole files (label in a column), or one features and one labels file.
            Format::Csv => whole_files || pair,
            _ => true,
        };
        if !ok {
            let (format_name, alternative) = if format == Format::Csv {
                ("csv", "files without part, or ")
            } else {
                ("idx", "")
            };
            return Err(format!(
                "format '{format_name}' needs, per role, {alternative}one file with part = \"features\" \
                 and one with part = \"labels\"; role {role:?} has {parts:?}"
            ));
        }
    }
    Ok(())
}

fn check_csv(csv: &CsvOptions) -> std::result::Result<(), String> {
    if csv.separator != "whitespace" && csv.separator.chars().count() != 1 {
        return Err(format!(
            "csv.separator must be one character or \"whitespace\", got '{}'",
            csv.separator
        ));
    }
    let mut columns: Vec<usize> = csv.skip_columns.clone();
    columns.extend(&csv.categorical_columns);
    if csv.label_column >= 0 {
        columns.push(csv.label_column as usize);
    }
    let unique: HashSet<_> = columns.iter().collect();
    if unique.len() != columns.len() {
        return Err(
            "csv: label_column, skip_columns and categorical_columns must not overlap".into(),
        );
    }
    Ok(())
}

fn check_file(
    f: &RawFile,
    format: Format,
    seen: &mut HashSet<(String, Option<String>, Option<Part>)>,
    earlier: &[FileEntry],
) -> std::result::Result<(), String> {
    if !is_plain_name(&f.file) {
        return Err(format!(
            "file '{}' must be a plain file name without directories",
            f.file
        ));
    }
    if !seen.insert((f.file.clone(), f.member.clone(), f.part)) {
        return Err(format!("file '{}' is listed twice", f.file));
    }
    if let Some(other) = earlier.iter().find(|e| e.file == f.file) {
        if other.url != f.url || other.sha256 != f.sha256 {
            return Err(format!(
                "file '{}' is listed again with another url or sha256",
                f.file
            ));
        }
    }
    match &f.url {
        Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => {
            return Err(format!("url '{url}' is not an http(s) URL"));
        }
        None if f.local.is_empty() => {
            return Err(format!(
                "file '{}' needs a url, or local copies (`local = [{{ path = \"/abs/path\" }}]`) \
                 for a file that exists only on this machine",
                f.file
            ));
        }
        _ => {}
    }
    let digests = f
        .sha256
        .iter()
        .chain(f.local.iter().filter_map(|l| l.sha256.as_ref()));
    for sha in digests {
        if !is_sha256_hex(sha) {
            return Err(format!(
                "sha256 '{sha}' of file '{}' is not 64 lower-case hex digits",
                f.file
            ));
        }
    }
    let archive = Compression::of_file_name(&f.file).is_archive();
    match (&f.member, archive) {
        (None, true) => return Err(format!("archive '{}' needs a member to read", f.file)),
        (Some(m), false) => {
            return Err(format!(
                "member '{m}' given, but '{}' is not a zip or tar archive",
                f.file
            ))
        }
        _ => {}
    }
    if f.part.is_some() && !matches!(format, Format::Idx | Format::Csv) {
        return Err("part is only meaningful for formats 'idx' and 'csv'".into());
    }
    if f.local.iter().any(|l| !l.path.is_absolute()) {
        return Err(format!(
            "local paths of '{}' must be absolute (the registry may be read from any directory)",
            f.file
        ));
    }
    Ok(())
}

fn invalid(origin: &Path, line: usize, dataset: &str, problem: &str) -> DataError {
    DataError::RegistryInvalid {
        path: origin.to_path_buf(),
        line,
        dataset: dataset.to_string(),
        problem: problem.to_string(),
    }
}

/// 1-based line of a byte offset in `text` (an offset past the end is on the last line); counts
/// bytes, so any offset is safe, on a character boundary or not.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Names that are safe as a single path component on every platform.
fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

pub(crate) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[[dataset]]
name = "tiny"
description = "two files"
task = "binary"
format = "libsvm"
n = 3
d = 4

[[dataset.files]]
role = "train"
file = "tiny.train"
url = "https://example.org/tiny.train"
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"

[[dataset.files]]
role = "test"
file = "tiny.test"
url = "https://example.org/tiny.test"
sha256 = "1111111111111111111111111111111111111111111111111111111111111111"
"#;

    #[test]
    fn a_spec_carries_its_own_datasets_which_come_first() {
        let spec = r#"
name = "mine"
kind = "learning"
[run]
master_seed = 1

[[dataset]]
name = "tiny"
description = "my own copy"
task = "multiclass"
format = "libsvm"
n = 5
d = 2

[[dataset.files]]
role = "train"
file = "mine.svm"
local = [{ path = "data/mine.svm" }, { path = "/abs/mine.svm" }]
"#;
        let own = Registry::parse_embedded(spec, Path::new("/work/specs/mine.toml")).unwrap();
        let local: Vec<_> = own.entries()[0].files[0]
            .local
            .iter()
            .map(|l| &l.path)
            .collect();
        assert_eq!(
            local,
            [
                Path::new("/work/specs/data/mine.svm"),
                Path::new("/abs/mine.svm")
            ]
        );
        assert_eq!(own.entries()[0].lock_file, None);
        let shared = Registry::parse(GOOD, Path::new("reg.toml")).unwrap();
        let both = shared.shadowed_by(own);
        assert_eq!(both.entries().len(), 1);
        assert_eq!(both.get("tiny").unwrap().task, Task::Multiclass);
        let bad = spec.replace("n = 5", "n = 0");
        let err = Registry::parse_embedded(&bad, Path::new("mine.toml")).unwrap_err();
        assert!(
            err.to_string().contains("n and d must be at least 1"),
            "{err}"
        );
    }

    #[test]
    fn parses_a_good_registry() {
        let reg = Registry::parse(GOOD, Path::new("reg.toml")).unwrap();
        let e = reg.get("tiny").unwrap();
        assert_eq!(
            (e.task, e.format, e.n, e.d),
            (Task::Binary, Format::Libsvm, 3, 4)
        );
        assert_eq!(e.files.len(), 2);
        assert_eq!(e.files[1].role, Role::Test);
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let text = GOOD.replace("n = 3\n", "n = 3\nrows = 3\n");
        let err = Registry::parse(&text, Path::new("reg.toml")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("reg.toml"), "{msg}");
        assert!(msg.contains("rows"), "{msg}");
        assert!(msg.contains("line 8"), "{msg}");
    }

    #[test]
    fn unknown_dataset_lists_known_names() {
        let reg = Registry::parse(GOOD, Path::new("reg.toml")).unwrap();
        let msg = reg.get("mnist").unwrap_err().to_string();
        assert!(
            msg.contains("'mnist'") && msg.contains("known datasets: tiny"),
            "{msg}"
        );
    }

    #[test]
    fn invalid_entries_name_the_line() {
        let bad_sha = GOOD.replace(&"1".repeat(64), "abc");
        let msg = Registry::parse(&bad_sha, Path::new("reg.toml"))
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("reg.toml:16: dataset 'tiny'"), "{msg}");

        let bad_file = GOOD.replace("\"tiny.test\"", "\"../tiny.test\"");
        assert!(Registry::parse(&bad_file, Path::new("reg.toml")).is_err());

        let twice = format!("{GOOD}{}", &GOOD[GOOD.find("[[dataset]]").unwrap()..]);
        let msg = Registry::parse(&twice, Path::new("reg.toml"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("duplicate dataset name"), "{msg}");
    }

    #[test]
    fn committed_registry_has_adult() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets.toml");
        let reg = Registry::from_file(&path).unwrap();
        let adult = reg.get("adult").unwrap();
        assert_eq!((adult.n, adult.d), (48_842, 123));
        let files: Vec<_> = adult
            .files
            .iter()
            .map(|f| (f.role, f.file.as_str()))
            .collect();
        assert_eq!(files, [(Role::Train, "a9a"), (Role::Test, "a9a.t")]);
        assert_eq!(adult.lock_file, Some(path.with_file_name("datasets.lock")));
    }

    #[test]
    fn committed_registry_has_every_paper_dataset() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets.toml");
        let reg = Registry::from_file(&path).unwrap();
        let expect = [
            ("adult-uci", Format::UciAdult, 48_842, 105),
            ("mnist", Format::Libsvm, 70_000, 780),
            ("mnist-idx", Format::Idx, 70_000, 784),
            ("fashion-mnist", Format::Idx, 70_000, 784),
            ("gisette", Format::Libsvm, 7_000, 5_000),
            ("covtype-binary", Format::Libsvm, 581_012, 54),
            ("covtype-100k", Format::Libsvm, 581_012, 54),
            ("covtype", Format::Csv, 581_012, 54),
            ("forest", Format::Csv, 581_012, 54),
            ("cpu", Format::Csv, 8_192, 21),
            ("cadata", Format::Libsvm, 20_640, 8),
            ("yearpredictionmsd", Format::Libsvm, 515_345, 90),
            ("kddcup99", Format::Csv, 5_209_460, 41),
            ("insurance", Format::Csv, 9_822, 85),
            ("wine-quality-red", Format::Csv, 1_599, 11),
            ("wine-quality-white", Format::Csv, 4_898, 11),
            ("parkinsons-telemonitoring", Format::Csv, 5_875, 19),
            ("ct-slices", Format::Csv, 53_500, 384),
            ("kegg-undirected", Format::Csv, 65_554, 27),
            ("cifar10", Format::Cifar10, 60_000, 3_072),
        ];
        for (name, format, n, d) in expect {
            let e = reg.get(name).unwrap();
            assert_eq!((e.format, e.n, e.d), (format, n, d), "{name}");
        }
        // Forest is Rahimi-Recht's 522,910 / 58,102 split; the TS paper's Covertype is 100k.
        let forest = reg.get("forest").unwrap();
        assert_eq!(
            forest.split,
            Split::Random {
                test_size: 58_102,
                seed: 2007
            }
        );
        assert_eq!(forest.n - 58_102, 522_910);
        assert_eq!(reg.get("covtype-100k").unwrap().loaded_rows(), 100_000);
        assert_eq!(
            reg.get("ct-slices").unwrap().files[0].compression(),
            Compression::Zip
        );
        // COIL 2000: the published test inputs and targets in separate files.
        let insurance = reg.get("insurance").unwrap();
        let parts: Vec<_> = insurance.files.iter().map(|f| (f.role, f.part)).collect();
        assert_eq!(
            parts,
            [
                (Role::Train, None),
                (Role::Test, Some(Part::Features)),
                (Role::Test, Some(Part::Labels))
            ]
        );
        let cifar = reg.get("cifar10").unwrap();
        assert_eq!(cifar.files.len(), 6);
        assert!(cifar.files.iter().all(|f| f.member.is_some()));
    }

    fn one(extra: &str, file_extra: &str, file: &str) -> String {
        format!(
            "[[dataset]]\nname = \"x\"\ndescription = \"\"\ntask = \"regression\"\n\
             format = \"csv\"\nn = 10\nd = 2\n{extra}\n\n[[dataset.files]]\nrole = \"train\"\n\
             file = \"{file}\"\nurl = \"https://example.org/f\"\n{file_extra}\n"
        )
    }

    #[test]
    fn new_keys_are_validated_with_lines() {
        let csv = "csv = { separator = \";\" }";
        let ok = Registry::parse(&one(csv, "", "f.csv"), Path::new("r.toml")).unwrap();
        let e = ok.get("x").unwrap();
        assert_eq!(
            (e.files[0].sha256.as_deref(), e.split),
            (None, Split::Files)
        );
        let cases = [
            (one("", "", "f.csv"), "needs a [dataset.csv] table"),
            (
                one("csv = { separator = \";;\" }", "", "f.csv"),
                "one character",
            ),
            (
                one(
                    "csv = { label_column = 1, skip_columns = [1] }",
                    "",
                    "f.csv",
                ),
                "must not overlap",
            ),
            (one(csv, "", "f.zip"), "needs a member"),
            (one(csv, "member = \"a\"", "f.gz"), "not a zip or tar"),
            (
                one(csv, "part = \"labels\"", "f.csv"),
                "one file with part = \"features\" and one with part = \"labels\"",
            ),
            (
                one(csv, "local = [{ path = \"rel/f.csv\" }]", "f.csv"),
                "must be absolute",
            ),
            (
                one(
                    &format!("{csv}\nsplit = {{ test_size = 10, seed = 1 }}"),
                    "",
                    "f.csv",
                ),
                "test_size must be between 1 and 9",
            ),
            (
                one(
                    &format!("{csv}\nsubsample = {{ n = 11, seed = 1 }}"),
                    "",
                    "f.csv",
                ),
                "subsample.n",
            ),
            (
                one(&format!("{csv}\npreprocess = [\"whiten\"]"), "", "f.csv"),
                "whiten",
            ),
        ];
        for (text, problem) in cases {
            let msg = Registry::parse(&text, Path::new("r.toml"))
                .unwrap_err()
                .to_string();
            assert!(msg.starts_with("r.toml") && msg.contains(problem), "{msg}");
        }
        let msg = Registry::parse(&one(csv, "member = \"a\"", "f.gz"), Path::new("r.toml"))
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("r.toml:10: dataset 'x'"), "{msg}");

        // A file only on this machine needs no url; a file with neither is an error.
        let no_url = |file_extra: &str| {
            one(csv, file_extra, "f.csv").replace("url = \"https://example.org/f\"\n", "")
        };
        let local = Registry::parse(
            &no_url("local = [{ path = \"/data/f.csv\" }]"),
            Path::new("r.toml"),
        )
        .unwrap();
        assert_eq!(local.get("x").unwrap().files[0].url, None);
        let msg = Registry::parse(&no_url(""), Path::new("r.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("r.toml:10: dataset 'x'")
                && msg.contains("needs a url, or local copies"),
            "{msg}"
        );
    }

    #[test]
    fn compression_from_file_names() {
        for (name, c) in [
            ("a.tar.gz", Compression::Tar(TarCompression::Gzip)),
            ("a.tgz", Compression::Tar(TarCompression::Gzip)),
            ("a.tar.bz2", Compression::Tar(TarCompression::Bzip2)),
            ("a.tar.xz", Compression::Tar(TarCompression::Xz)),
            ("a.tar", Compression::Tar(TarCompression::None)),
            ("a.ZIP", Compression::Zip),
            ("mnist.bz2", Compression::Bzip2),
            ("a.csv.gz", Compression::Gzip),
            ("a.xz", Compression::Xz),
            ("a9a.t", Compression::None),
        ] {
            assert_eq!(Compression::of_file_name(name), c, "{name}");
        }
    }
}
