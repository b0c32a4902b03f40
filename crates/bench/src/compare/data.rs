//! The data compare reads: a registry name, or a file described on the spot as a registry
//! entry of the spec's own (what was guessed about it written down for the report).

use std::path::Path;

use super::options::CompareOptions;
use crate::error::{Error, Result};
use rfbench_data::DatasetEntry;

/// A registry entry by name, or a file described as one.
pub fn resolve_data(
    options: &CompareOptions,
    root: &Path,
) -> Result<(DatasetEntry, Option<toml::Value>, Vec<String>)> {
    let path = Path::new(&options.data);
    if path.is_file() {
        if let Some(test) = options.test.as_deref() {
            refuse_same_file(path, test)?;
        }
        let name = plain_name(path);
        let describe = rfbench_data::DescribeOptions {
            label_column: options.label_column.clone(),
            task: options.task,
        };
        let described =
            rfbench_data::describe_files(&name, path, options.test.as_deref(), &describe)?;
        let table = embedded_entry(&described.entry)?;
        return Ok((described.entry, Some(table), described.guesses));
    }
    refuse_missing_file(path)?;
    let registry = root.join("datasets.toml");
    if !registry.is_file() {
        return Err(Error::Experiment(format!(
            "{:?} is not a file, and there is no registry ({}) to look it up in",
            options.data,
            registry.display()
        )));
    }
    if options.test.is_some() || options.label_column.is_some() {
        return Err(Error::Experiment(format!(
            "{:?} is a registry dataset: --test and --label-column are for files",
            options.data
        )));
    }
    let mut entry = rfbench_data::Registry::from_file(&registry)?
        .get(&options.data)?
        .clone();
    if let Some(task) = options.task {
        entry.task = task;
    }
    Ok((entry, None, Vec::new()))
}

/// A path that names no file is a missing file, not an unknown registry name: a directory, or
/// a name with a folder or a file extension in it (registry names have neither).
fn refuse_missing_file(path: &Path) -> Result<()> {
    let text = path.as_os_str().to_string_lossy();
    let looks_like_a_path =
        text.contains(std::path::MAIN_SEPARATOR) || path.extension().is_some_and(|e| !e.is_empty());
    let shown = path.display();
    match (looks_like_a_path, path.is_dir()) {
        (false, _) => Ok(()),
        (true, true) => Err(Error::Experiment(format!(
            "{shown} is a directory: give a data file (CSV, LIBSVM, Parquet, Arrow) or a \
             registry dataset's name"
        ))),
        (true, false) => Err(Error::Experiment(format!(
            "{shown}: no such file (a data file's path, or a registry dataset's name, was \
             expected)"
        ))),
    }
}

/// A test file that is the data file itself (by any path, a link included) would report
/// training scores as test scores.
fn refuse_same_file(data: &Path, test: &Path) -> Result<()> {
    let same = match (data.canonicalize(), test.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    match same {
        true => Err(Error::Experiment(format!(
            "--test {} is the data file {} itself: its scores would be training scores. Give \
             a file of held-out rows, or leave --test out (every repetition then draws a test \
             split)",
            test.display(),
            data.display()
        ))),
        false => Ok(()),
    }
}

/// A described file's registry entry as the `[[dataset]]` table of a spec: the data crate's
/// own serialisation of an entry, read back as a value.
fn embedded_entry(entry: &DatasetEntry) -> Result<toml::Value> {
    let text = rfbench_data::entry_toml(entry);
    let parsed: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::Experiment(format!("the described entry does not read back: {e}")))?;
    match parsed.get("dataset") {
        Some(toml::Value::Array(entries)) if entries.len() == 1 => Ok(entries[0].clone()),
        _ => Err(Error::Experiment(format!(
            "the described entry is not one [[dataset]] table:\n{text}"
        ))),
    }
}

/// The file's name without its suffixes, as a dataset name (letters, digits, '-', '_').
pub fn plain_name(path: &Path) -> String {
    let stem = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('.').next())
        .unwrap_or("data");
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        "data".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_named_as_one_not_as_an_unknown_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let err = |p: &Path| refuse_missing_file(p).unwrap_err().to_string();
        assert!(err(dir.path()).contains("is a directory"));
        assert!(
            refuse_missing_file(Path::new("src")).is_ok(),
            "a registry-like name"
        );
        let missing = dir.path().join("data.csv");
        assert!(err(&missing).contains("no such file"), "{}", err(&missing));
        assert!(err(Path::new("data.csv")).contains("no such file"));
        assert!(refuse_missing_file(Path::new("fashion-mnist")).is_ok());
    }

    #[test]
    fn the_data_file_as_its_own_test_file_is_refused_by_any_path() {
        let dir = tempfile::tempdir().unwrap();
        let (data, other, link) = (
            dir.path().join("a.csv"),
            dir.path().join("b.csv"),
            dir.path().join("c.csv"),
        );
        std::fs::write(&data, "x,y\n1,0\n").unwrap();
        std::fs::write(&other, "x,y\n1,0\n").unwrap();
        std::os::unix::fs::symlink(&data, &link).unwrap();
        let err = refuse_same_file(&data, &data).unwrap_err().to_string();
        assert!(err.contains("is the data file"), "{err}");
        assert!(refuse_same_file(&data, &link).is_err());
        let dotted = dir.path().join(".").join("a.csv");
        assert!(refuse_same_file(&data, &dotted).is_err());
        assert!(refuse_same_file(&data, &other).is_ok());
    }
}
