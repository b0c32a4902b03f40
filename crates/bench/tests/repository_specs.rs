//! The repository's own specs: every spec in `experiments/` and the README's example plan in
//! both profiles (so a registry change cannot silently break them), and tensor-sketch-fig1's
//! seeds are pinned: the general runner must derive, for every row of the
//! committed results, the seeds written there (which the original Fig. 1 runner derived from
//! the keys `map=M|degree=P|offset=C|D=N|rep=R` and `pairs|rep=R`). Different seeds would mean
//! different numbers for the same spec. Needs no data.

use std::path::PathBuf;

use rfbench::spec::{load_plan, Profile};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn seed_keys_are_the_original_runners() {
    let plan = load_plan(&root(), "tensor-sketch-fig1", &Profile::quick()).unwrap();
    let cell = plan
        .cells
        .iter()
        .find(|c| {
            c.get("map").map(|v| v.to_string()) == Some("tensor-sketch".into())
                && c.get("degree").map(|v| v.to_string()) == Some("2".into())
                && c.get("offset").map(|v| v.to_string()) == Some("0".into())
                && c.get("n_components").map(|v| v.to_string()) == Some("500".into())
        })
        .unwrap();
    let key = |column: &str, rep| {
        let seed = plan.seeds.iter().find(|s| s.spec.column == column).unwrap();
        plan.seed_key(seed, cell, rep)
    };
    assert_eq!(
        key("seed", 0),
        "map=tensor-sketch|degree=2|offset=0|D=500|rep=0"
    );
    assert_eq!(key("pair_seed", 2), "pairs|rep=2");
}

#[test]
fn every_committed_row_has_the_seeds_the_plan_derives() {
    for (profile, file) in [
        (Profile::quick(), "tensor-sketch-fig1/quick.csv"),
        (Profile::Full, "tensor-sketch-fig1/full.csv"),
    ] {
        let plan = load_plan(&root(), "tensor-sketch-fig1", &profile).unwrap();
        let (header, rows) =
            rfbench::results::read_records(&root().join("results").join(file)).unwrap();
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let (map, degree, offset, d, rep) = (
            col("map"),
            col("degree"),
            col("offset"),
            col("n_components"),
            col("repetition"),
        );
        assert_eq!(rows.len(), plan.cells.len() * plan.repetitions, "{file}");
        for row in &rows {
            let offset_value: f64 = row[offset].parse().unwrap();
            let cell = plan
                .cells
                .iter()
                .find(|c| {
                    c.get("map").unwrap().to_string() == row[map]
                        && c.get("degree").unwrap().to_string() == row[degree]
                        && c.get("offset").unwrap().as_f64() == Some(offset_value)
                        && c.get("n_components").unwrap().to_string() == row[d]
                })
                .unwrap_or_else(|| panic!("{file}: no cell for {row:?}"));
            let r: usize = row[rep].parse().unwrap();
            for column in ["seed", "pair_seed"] {
                assert_eq!(
                    plan.seed(column, cell, r).unwrap().to_string(),
                    row[col(column)],
                    "{file}: {column} of {row:?}"
                );
            }
        }
    }
}

#[test]
fn every_spec_of_the_repository_plans() {
    for name in rfbench::spec::list_experiments(&root()).unwrap() {
        for profile in rfbench::spec::profiles(&root(), &name).unwrap() {
            let plan = load_plan(&root(), &name, &profile)
                .unwrap_or_else(|e| panic!("{name} [{}]: {e}", profile.name()));
            assert!(!plan.cells.is_empty(), "{name}");
        }
    }
}

/// The sweep the README shows a newcomer is a valid spec.
#[test]
fn the_readme_example_spec_plans() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("```toml\nname = ")
        .expect("a spec in the README")
        + "```toml\n".len();
    let text = &readme[start..start + readme[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("experiments")).unwrap();
    std::fs::copy(
        root().join("datasets.toml"),
        dir.path().join("datasets.toml"),
    )
    .unwrap();
    let name = text
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("name = ")
        .trim_matches('"');
    std::fs::write(dir.path().join(format!("experiments/{name}.toml")), text).unwrap();
    for profile in [Profile::Full, Profile::quick()] {
        let plan = load_plan(dir.path(), name, &profile).unwrap();
        // rff and nystroem at each D.
        assert_eq!(
            plan.cells.len(),
            if profile == Profile::Full { 6 } else { 2 }
        );
    }
}

/// Every committed spec, in every profile, passes the plan-time memory check on a 16 GB machine
/// (this one has 23 GB), including the cells of datasets that need the network: the check runs
/// before any data is fetched.
#[test]
fn every_spec_fits_the_memory_check() {
    let registry = rfbench_data::Registry::from_file(&root().join("datasets.toml")).unwrap();
    for name in rfbench::spec::list_experiments(&root()).unwrap() {
        for profile in rfbench::spec::profiles(&root(), &name).unwrap() {
            let plan = load_plan(&root(), &name, &profile).unwrap();
            if let Err(e) = rfbench::memory::check(&plan, &registry, 16_000_000_000, 1) {
                panic!("{name} ({profile:?}): {e}");
            }
        }
    }
}

/// The results model reads and writes every committed results file without changing a byte:
/// the one reader and writer round-trip its text, and every coordinate and metric field reads
/// back (as a [`CellValue`] or an f64) to the same text it was written as.
#[test]
fn every_committed_results_file_round_trips_through_the_results_model() {
    use rfbench::results::{read_records, write_records, CellValue};
    let mut files = 0;
    let specs = rfbench::spec::list_experiments(&root()).unwrap();
    let folders = specs.iter().map(|s| root().join("results").join(s));
    let entries = folders
        .filter(|f| f.is_dir())
        .flat_map(|f| std::fs::read_dir(f).unwrap());
    for entry in entries {
        let path = entry.unwrap().path();
        // A dot-file is a run's partial file (git-ignored, never committed).
        let hidden = path.file_name().unwrap().to_string_lossy().starts_with('.');
        if hidden || path.extension().and_then(|e| e.to_str()) != Some("csv") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let (header, rows) = read_records(&path).unwrap();
        assert_eq!(
            write_records(&header, rows.clone()).unwrap(),
            text,
            "{}",
            path.display()
        );
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let (experiment, profile) = (&rows[0][col("experiment")], &rows[0][col("profile")]);
        let profile = match profile.as_str() {
            "full" => Profile::Full,
            name => Profile::Named(name.to_string()),
        };
        let plan = load_plan(&root(), experiment, &profile).unwrap();
        for row in &rows {
            for c in &plan.columns {
                let field = &row[col(c)];
                assert_eq!(
                    &CellValue::parse(field).to_field(),
                    field,
                    "{c} in {}",
                    path.display()
                );
            }
            for m in &plan.metrics {
                let field = &row[col(m)];
                if let Ok(v) = field.parse::<f64>() {
                    assert_eq!(&format!("{v:?}"), field, "{m} in {}", path.display());
                }
            }
        }
    }
    assert!(files >= 16, "{files} results files");
}

/// Every committed output is in its spec's folder (`results/SPEC/`, `figures/SPEC/`): nothing
/// else in `results/` but the catalogue and the studies' folder, nothing in `figures/` but spec
/// folders, and no spec folder without its spec (hidden files, the runner's lock and
/// temporaries, aside).
#[test]
fn every_committed_output_is_in_its_specs_folder() {
    let specs = rfbench::spec::list_experiments(&root()).unwrap();
    for (top, allowed) in [
        ("results", &["README.md", "studies"][..]),
        ("figures", &[][..]),
    ] {
        for entry in std::fs::read_dir(root().join(top)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            // Hidden files are the runner's own (its lock, a run's temporaries), never outputs.
            if name.starts_with('.') {
                continue;
            }
            let is_spec_folder = entry.path().is_dir() && specs.contains(&name);
            assert!(
                is_spec_folder || allowed.contains(&name.as_str()),
                "{top}/{name}: not a spec's folder (results/SPEC/PROFILE.csv, see crates/bench/src/files.rs)"
            );
        }
    }
}

/// The catalogue, `results/README.md`, is what `rfbench report` writes from the committed specs
/// and results: a changed result or spec without a rewritten catalogue fails here.
#[test]
fn the_committed_catalogue_is_current() {
    rfbench::catalogue::check(&root()).unwrap();
    let text = std::fs::read_to_string(root().join(rfbench::catalogue::PATH)).unwrap();
    // Every spec has its section, and a line of the status table that opens the file, with a
    // status and a link to its reading in docs/papers.md (whose heading must name it).
    let statuses = [
        "REPRODUCED",
        "PARTLY",
        "NOT REPRODUCED",
        "UNDECIDED",
        "NO CLAIMS",
        "STAND-IN",
        "NOT RUN HERE",
    ];
    let first_section = text.find("\n## ").unwrap();
    for name in rfbench::spec::list_experiments(&root()).unwrap() {
        assert!(text.contains(&format!("\n## {name}\n")), "{name} missing");
        let row = text[..first_section]
            .lines()
            .find(|l| l.starts_with(&format!("| [{name}](#{name}) |")))
            .unwrap_or_else(|| panic!("{name} has no status row"));
        let cells: Vec<&str> = row.split(" | ").collect();
        assert!(statuses.contains(&cells[2]), "{row}");
        assert!(row.contains("[reading](../docs/papers.md#"), "{row}");
    }
    // prff-fig2's M = 25 claims, ties on the full run's 3 repetitions, are decided on its `m25`
    // profile's 20 (crates/bench/src/catalogue/power.rs), and its row says so.
    let row = text
        .lines()
        .find(|l| l.starts_with("| [prff-fig2]"))
        .unwrap();
    assert!(
        row.contains("decided on profile m25's 20 repetitions"),
        "{row}"
    );
}

/// An axis label is repeated under every panel of its figure, so it names the quantity only: a
/// note about one panel's dataset ("[panel fashion-mnist: stand-in for MNIST]") showed under
/// panels that were not that dataset, and in figures without that panel at all (a profile
/// that never ran it). A stand-in is said by its label (`[labels.dataset]`), which titles its
/// panel and its legend entries and nothing else.
#[test]
fn no_axis_label_names_a_panel_or_a_stand_in() {
    let mut offending = Vec::new();
    for entry in std::fs::read_dir(root().join("experiments")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let spec: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let figures = spec.get("figures").and_then(|f| f.as_array());
        for (i, figure) in figures.into_iter().flatten().enumerate() {
            for key in ["x_label", "y_label"] {
                let Some(label) = figure.get(key).and_then(|l| l.as_str()) else {
                    continue;
                };
                let lower = label.to_lowercase();
                if lower.contains("stand-in") || lower.contains("panel") {
                    let name = path.file_name().unwrap().to_string_lossy().to_string();
                    offending.push(format!("{name}: figures[{i}].{key} = {label:?}"));
                }
            }
        }
    }
    assert!(offending.is_empty(), "{offending:#?}");
}

/// No committed result was written by a tree with uncommitted changes (a `git_commit` ending in
/// `-dirty`): the code that made it could not be recovered. `--require-clean` (which `just
/// reproduce-all` passes) refuses such a run.
#[test]
fn no_committed_row_comes_from_a_dirty_tree() {
    use rfbench::results::read_records;
    let specs = rfbench::spec::list_experiments(&root()).unwrap();
    let mut dirty = Vec::new();
    for spec in specs {
        let folder = root().join("results").join(&spec);
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // Results files only: `.NAME.partial.csv` and shards are not committed.
            if !name.ends_with(".csv") || name.starts_with('.') || name.contains(".shard-") {
                continue;
            }
            let (header, rows) = read_records(&path).unwrap();
            let commit = header.iter().position(|h| h == "git_commit").unwrap();
            if rows.iter().any(|r| r[commit].ends_with("-dirty")) {
                dirty.push(format!("results/{spec}/{name}"));
            }
        }
    }
    dirty.sort();
    assert!(
        dirty.is_empty(),
        "committed results with a -dirty commit: {dirty:?}; regenerate them from a clean tree \
         (just reproduce NAME --profile PROFILE --require-clean)"
    );
}
