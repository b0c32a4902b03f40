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
