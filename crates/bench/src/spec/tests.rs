//! The stages, each on the smallest spec that shows it: a kernel-error sweep on synthetic
//! Gaussian rows, so no dataset file is needed.

use std::path::Path;

use super::*;

const SPEC: &str = r#"name = "demo"
title = "demo"
paper = "none"
kind = "kernel-error"

[data]
dataset = "gaussian"
n = 50
d = [4, 8]

[run]
master_seed = 3
repetitions = 2
pairs = 20

[kernel]
name = "polynomial"
degree = 2

[grid]
map = ["tensor-sketch", "random-maclaurin"]
n_components = [16, 32]

[profiles.quick]
n_components = [16]

[profiles.one-d]
repetitions = 3
d = [4]

[check]
columns = ["relative_error"]
"#;

fn plan_with(text: &str, profile: &Profile) -> Result<Plan> {
    let path = Path::new("experiments/demo.toml");
    let datasets = Registry::parse("", Path::new("datasets.toml")).unwrap();
    RawSpec::parse(text, path)?.plan(text, path, profile, &datasets)
}

fn spec_error(text: &str, profile: &Profile) -> SpecError {
    match plan_with(text, profile) {
        Err(Error::Spec(e)) => e,
        other => panic!("expected a spec error, got {other:?}"),
    }
}

#[test]
fn the_full_grid_is_every_combination() {
    let plan = plan_with(SPEC, &Profile::Full).unwrap();
    // 2 values of d x 2 maps x 2 values of D.
    assert_eq!(plan.cells.len(), 8);
    assert_eq!(plan.repetitions, 2);
    assert_eq!(
        plan.columns,
        [
            "dataset",
            "n",
            "d",
            "n_test",
            "map",
            "kernel",
            "degree",
            "gamma",
            "offset",
            "n_components",
            "pairs"
        ]
    );
    assert!(plan.axes.contains("d") && plan.axes.contains("n_components"));
    assert!(!plan.axes.contains("n"));
}

#[test]
fn named_profiles_replace_values_by_name() {
    let quick = plan_with(SPEC, &Profile::quick()).unwrap();
    assert_eq!(quick.cells.len(), 4);
    assert_eq!(quick.profile.name(), "quick");
    let one_d = plan_with(SPEC, &Profile::Named("one-d".into())).unwrap();
    assert_eq!(one_d.cells.len(), 4);
    assert_eq!(one_d.repetitions, 3);
    assert_eq!(one_d.profile.name(), "one-d");
    assert_eq!(Profile::parse("full"), Profile::Full);
}

#[test]
fn profile_errors_name_the_profile_and_key() {
    let e = spec_error(SPEC, &Profile::Named("missing".into()));
    assert!(e.key.is_none());
    assert!(e.problem.contains("[profiles.missing]"), "{e}");
    assert!(e.problem.contains("\"one-d\""), "{e}");

    // Every profile is checked, not only the one run.
    let text = SPEC.replace("[profiles.one-d]\n", "[profiles.one-d]\nsigma = 2\n");
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("profiles.one-d.sigma"));
    assert_eq!(
        e.line,
        text.lines().position(|l| l == "sigma = 2").unwrap() + 1
    );

    let text = SPEC.replace("[profiles.one-d]", "[profiles.\"One D\"]");
    let e = spec_error(&text, &Profile::Full);
    assert!(e.problem.contains("file name"), "{e}");
}

#[test]
fn an_output_is_drawn_in_the_profiles_it_lists() {
    let tables = r#"
[[tables]]
name = "everywhere"
rows = ["map", "n_components", "d"]
value = "relative_error"

[[tables]]
name = "one-d-only"
rows = ["map", "n_components", "d"]
value = "relative_error"
profiles = ["one-d"]

[[tables]]
name = "not-one-d"
rows = ["map", "n_components", "d"]
value = "relative_error"
profiles = ["full", "quick"]
"#;
    let text = format!("{SPEC}{tables}");
    let names = |profile: &Profile| -> Vec<String> {
        let plan = plan_with(&text, profile).unwrap();
        plan.outputs
            .tables
            .iter()
            .map(|t| t.name.as_ref().unwrap().get_ref().clone())
            .collect()
    };
    assert_eq!(names(&Profile::Full), ["everywhere", "not-one-d"]);
    assert_eq!(names(&Profile::quick()), ["everywhere", "not-one-d"]);
    assert_eq!(
        names(&Profile::Named("one-d".into())),
        ["everywhere", "one-d-only"]
    );

    let text = text.replace(r#"profiles = ["one-d"]"#, r#"profiles = ["one_d"]"#);
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("tables[1].profiles"));
    assert!(
        e.problem.contains("\"one_d\"") && e.problem.contains("\"one-d\""),
        "{e}"
    );
    assert_eq!(
        e.line,
        text.lines()
            .position(|l| l == r#"profiles = ["one_d"]"#)
            .unwrap()
            + 1
    );
}

#[test]
fn a_label_may_name_a_value_only_a_profile_brings() {
    let labels = "\n[labels.d]\n\"12\" = \"twelve\"\n";
    let text = format!("{SPEC}{labels}");
    let e = spec_error(&text, &Profile::Full);
    assert!(e.problem.contains("no cell has d = \"12\""), "{e}");
    let text = text.replace("d = [4]\n", "d = [12]\n");
    assert!(plan_with(&text, &Profile::Full).is_ok());
    let plan = plan_with(&text, &Profile::Named("one-d".into())).unwrap();
    assert!(plan.labels.iter().any(|(_, l)| l == "twelve"));
}

#[test]
fn a_replaced_value_is_blamed_on_the_profile() {
    let text = SPEC.replace("repetitions = 3", "repetitions = 1");
    let e = spec_error(&text, &Profile::Named("one-d".into()));
    assert_eq!(e.key.as_deref(), Some("profiles.one-d.repetitions"));
    assert!(e.problem.contains("2..=10000"), "{e}");
    // The full run does not read the profile's value.
    assert!(plan_with(&text, &Profile::Full).is_ok());
}

#[test]
fn groups_refuse_duplicates_and_names_set_twice() {
    let text = SPEC.replace("n_components = [16, 32]", "n_components = [16, 16]");
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("grid.n_components"));
    assert!(e.problem.contains("listed twice"), "{e}");

    // 0.0 and -0.0 are the same value (issue 24).
    let text = SPEC.replace("degree = 2\n", "degree = 2\noffset = [0.0, -0.0]\n");
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("kernel.offset"));
    assert!(e.problem.contains("listed twice"), "{e}");

    let text = SPEC.replace("[grid]\n", "[grid]\n\"d, pairs\" = [[4, 10]]\n");
    let e = spec_error(&text, &Profile::Full);
    assert!(e.problem.contains("set it in one place"), "{e}");

    let text = SPEC.replace("[grid]\n", "[grid]\n\"n_components, pairs\" = [[4]]\n");
    let e = spec_error(&text, &Profile::Full);
    assert!(e.problem.contains("entry 1 has 1 values"), "{e}");
}

#[test]
fn cells_check_components_against_each_other() {
    let text = SPEC.replace("\"random-maclaurin\"]", "\"rff\"]");
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("grid.map"));
    assert!(e.problem.contains("cannot approximate"), "{e}");

    let text = SPEC.replace("pairs = 20", "pairs = 20\nlambda = 1");
    let e = spec_error(&text, &Profile::Full);
    assert!(
        e.problem
            .contains("no component of this spec takes a parameter `lambda`"),
        "{e}"
    );

    // A value every cell takes from a component's own table instead is unused, not unknown.
    let shadowed =
        "[maps.tensor-sketch]\ndegree = 3\n\n[maps.random-maclaurin]\ndegree = 3\n\n[check]";
    let e = spec_error(&SPEC.replace("[check]", shadowed), &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("kernel.degree"), "{e}");
    assert!(
        e.problem
            .contains("every cell takes `degree` from a more specific table"),
        "{e}"
    );
}

#[test]
fn seeds_follow_the_kinds_scopes_and_the_spec_s() {
    let plan = plan_with(SPEC, &Profile::Full).unwrap();
    let seed = |column: &str| plan.seeds.iter().find(|s| s.spec.column == column).unwrap();
    assert_eq!(seed("seed").axes, ["d", "map", "n_components"]);
    assert_eq!(seed("data_seed").axes, ["d"]);
    let cell = &plan.cells[0];
    assert_eq!(
        plan.seed_key(seed("seed"), cell, 1),
        format!("d=4|map={}|D=16|rep=1", cell.map.name)
    );

    let text = SPEC.replace("[check]", "[seeds]\nseed = [\"n\"]\n\n[check]");
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("seeds.seed"));
    assert!(e.problem.contains("not an axis"), "{e}");
}

#[test]
fn settings_check_the_check() {
    let text = SPEC.replace(
        "columns = [\"relative_error\"]",
        "columns = [\"relative_eror\"]",
    );
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("check.columns"));

    let text = SPEC.replace(
        "columns = [\"relative_error\"]",
        "columns = [\"relative_error\"]\nrtol = 1.5",
    );
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("check.rtol"));

    let plan = plan_with(SPEC, &Profile::Full).unwrap();
    assert_eq!(plan.check_rtol, 0.0);
    assert_eq!(plan.check_false_alarm, 0.01);
    assert_eq!(plan.check_statistical, ["relative_error"]);
}

#[test]
fn errors_say_file_key_and_line() {
    let e = SpecError::at(Path::new("x.toml"), "grid.map", 7, "bad");
    assert_eq!(e.to_string(), "spec x.toml: key `grid.map` (line 7): bad");
    assert_eq!(
        SpecError::whole(Path::new("x.toml"), "bad").to_string(),
        "spec x.toml: bad"
    );
    assert_eq!(line_of("a\nb\nc", &(4..5)), 3);
}

/// Rules only the library knows fail at plan time, with the key that sets the parameter the
/// library names (else the one that sets the map): Tensor Sketch needs gamma = 1, the paired
/// Fourier form an even D; a bandwidth the data decides is not held against the map.
#[test]
fn map_configurations_are_checked_by_the_library_before_any_data() {
    let gamma = SPEC.replace("degree = 2", "degree = 2\ngamma = 0.5");
    let e = spec_error(&gamma, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("kernel.gamma"), "{e}");
    assert_eq!(e.line, 19, "{e}");
    assert!(
        e.problem.contains("map tensor-sketch (n_components = 16)"),
        "{e}"
    );
    assert!(e.problem.contains("gamma"), "{e}");

    let fourier = SPEC
        .replace(
            "name = \"polynomial\"\ndegree = 2",
            "name = \"gaussian\"\nsigma = \"median\"",
        )
        .replace("[\"tensor-sketch\", \"random-maclaurin\"]", "[\"rff\"]");
    plan_with(&fourier, &Profile::Full).unwrap();
    let odd = fourier.replace("n_components = [16, 32]", "n_components = [16, 33]");
    let e = spec_error(&odd, &Profile::Full);
    assert!(
        e.problem
            .contains("map rff (form = paired, n_components = 33)"),
        "{e}"
    );
    assert!(e.problem.contains("even"), "{e}");
    // The phase form takes any D.
    plan_with(
        &odd.replace("[grid]", "[maps.rff]\nform = \"phase\"\n\n[grid]"),
        &Profile::Full,
    )
    .unwrap();
}

/// A misspelt key alone in its table is named, with its line and the key it resembles, not
/// reported only as the real key missing (issue 24).
#[test]
fn a_misspelt_key_alone_in_its_table_is_named() {
    for (right, wrong, line) in [
        ("master_seed = 3", "master_sed = 3", 12),
        ("repetitions = 2", "repetiton = 2", 13),
        ("dataset = \"gaussian\"", "datset = \"gaussian\"", 7),
    ] {
        // Without the profiles, which would name `repetitions` first.
        let start = SPEC.find("[profiles.quick]").unwrap();
        let end = SPEC.find("[check]").unwrap();
        let text = format!("{}{}", &SPEC[..start], &SPEC[end..]).replacen(right, wrong, 1);
        let e = spec_error(&text, &Profile::Full);
        let key = wrong.split(' ').next().unwrap();
        assert_eq!(e.line, line, "{e}");
        assert!(
            e.to_string().contains(&format!("`{key}` is not a key of"))
                && e.to_string().contains("did you mean"),
            "{e}"
        );
    }
    assert_eq!(groups::edit_distance("master_sed", "master_seed"), 1);
    assert_eq!(groups::edit_distance("kitten", "sitting"), 3);
    // Far from every needed key: the plain message.
    let e = spec_error(
        &SPEC.replacen("master_seed = 3", "seed = 3", 1),
        &Profile::Full,
    );
    assert!(e.to_string().contains("[run] needs `master_seed`"), "{e}");
}

/// A grid of millions of cells is refused at plan time, naming the axis that passes the limit,
/// instead of aborting on memory (issue 24).
#[test]
fn a_grid_of_millions_of_cells_is_refused() {
    let many: Vec<String> = (1..=2000).map(|v| v.to_string()).collect();
    let text = SPEC
        .replacen("n = 50", &format!("n = [{}]", many.join(", ")), 1)
        .replacen("pairs = 20", &format!("pairs = [{}]", many.join(", ")), 1);
    let e = spec_error(&text, &Profile::Full);
    assert!(
        e.to_string().contains("the grid passes 1000000 cells"),
        "{e}"
    );
    assert!(e.key.is_some(), "{e}");
}

/// `text` with `block` (a table and its keys) written before the table `before`.
fn with_table(text: &str, before: &str, block: &str) -> String {
    text.replace(before, &format!("{block}\n\n{before}"))
}

#[test]
fn a_profile_ignores_the_tables_of_maps_it_drops_and_the_spec_does_not() {
    let ts_table = "[maps.tensor-sketch]\nn_components = [16]";
    let rm_only = "[profiles.rm-only]\nmap = [\"random-maclaurin\"]";
    let text = with_table(
        &with_table(SPEC, "[profiles.quick]", ts_table),
        "[profiles.one-d]",
        rm_only,
    );
    let plan = plan_with(&text, &Profile::Named("rm-only".into())).unwrap();
    assert!(plan.cells.iter().all(|c| c.map.name == "random-maclaurin"));
    assert_eq!(plan.cells.len(), 4);
    // The full run, which runs both maps, plans too: TS's table sets its D.
    let plan = plan_with(&text, &Profile::Full).unwrap();
    assert_eq!(plan.cells.len(), 6);
    // A repetition cap of the dropped map is ignored too.
    let capped = text.replace(ts_table, &format!("{ts_table}\nrepetitions = 1"));
    assert_ne!(capped, text);
    assert!(plan_with(&capped, &Profile::Named("rm-only".into())).is_ok());

    let text = with_table(SPEC, "[profiles.quick]", ts_table).replace(
        "map = [\"tensor-sketch\", \"random-maclaurin\"]",
        "map = [\"random-maclaurin\"]",
    );
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("maps.tensor-sketch.n_components"));
    assert!(
        e.problem.contains("`tensor-sketch`, which no cell runs"),
        "{e}"
    );
}

#[test]
fn a_profile_may_rescope_a_seed_the_spec_scopes() {
    let with_scope = with_table(SPEC, "[profiles.quick]", "[seeds]\ndata_seed = [\"d\"]");
    let fresh = "[profiles.fresh-data]\ndata_seed = [\"d\", \"repetition\"]";
    let text = with_table(&with_scope, "[profiles.one-d]", fresh);
    let seed_of = |plan: &Plan| -> PlannedSeed {
        let found = plan.seeds.iter().find(|s| s.spec.column == "data_seed");
        found.unwrap().clone()
    };
    let data_seed = |plan: &Plan| {
        let s = seed_of(plan);
        (s.axes, s.with_repetition)
    };
    let full = plan_with(&text, &Profile::Full).unwrap();
    assert_eq!(data_seed(&full), (vec!["d".to_string()], false));
    let fresh = plan_with(&text, &Profile::Named("fresh-data".into())).unwrap();
    assert_eq!(data_seed(&fresh), (vec!["d".to_string()], true));
    // Written out, the kind's default scope gives the same seeds as leaving it out.
    let default = plan_with(SPEC, &Profile::Full).unwrap();
    let key = |plan: &Plan, rep| plan.seed_key(&seed_of(plan), &plan.cells[0], rep);
    assert_eq!(key(&full, 1), key(&default, 1));
    assert_ne!(key(&fresh, 1), key(&fresh, 0));

    let bad = "[profiles.bad]\ndata_seed = \"d\"";
    let text = with_table(&with_scope, "[profiles.one-d]", bad);
    let e = spec_error(&text, &Profile::Named("bad".into()));
    assert_eq!(e.key.as_deref(), Some("profiles.bad.data_seed"));
    assert!(e.problem.contains("list of axis names"), "{e}");

    // A scope the spec does not write has no value to replace.
    let unscoped = "[profiles.bad]\ndata_seed = [\"d\"]";
    let text = with_table(SPEC, "[profiles.one-d]", unscoped);
    let e = spec_error(&text, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("profiles.bad.data_seed"));
}

/// A learning spec on synthetic rows, `[run]` extended by `run` and the outputs by `outputs`.
fn learning_spec(run: &str, outputs: &str) -> String {
    format!(
        r#"name = "demo"
title = "demo"
paper = "none"
kind = "learning"

[data]
dataset = "make-classification"
n = 200
d = 4
n_test = 50

[run]
master_seed = 3
repetitions = 2
{run}

[kernel]
name = "gaussian"
sigma = 1.0

[grid]
map = "rff"
learner = "ridge"
n_components = [8, 16]

[sums]
seconds = ["map_seconds", "train_seconds"]

[check]
columns = ["accuracy"]

{outputs}
"#
    )
}

#[test]
fn runs_overlap_when_the_kind_or_the_spec_says_and_no_output_reads_the_clock() {
    let figure = "[[figures]]\nx = \"n_components\"\ny = \"accuracy\"";
    // kernel-error: always; learning: only when asked.
    assert!(plan_with(SPEC, &Profile::Full).unwrap().overlap_runs);
    let plain = plan_with(&learning_spec("", figure), &Profile::Full).unwrap();
    assert!(!plain.overlap_runs && !plain.layout().header().contains(&"runs_overlapped".into()));
    let asked = learning_spec("overlap_runs = true", figure);
    let plan = plan_with(&asked, &Profile::Full).unwrap();
    assert!(plan.overlap_runs);
    assert_eq!(plan.layout().header().last().unwrap(), "runs_overlapped");
    // The cells are the same: `overlap_runs` is a setting of the run, not a parameter.
    assert_eq!(plan.columns, plain.columns);
    let no = plan_with(
        &learning_spec("overlap_runs = false", figure),
        &Profile::Full,
    )
    .unwrap();
    assert!(!no.overlap_runs);

    // An output that reads a clock metric, directly, in a template or through a sum.
    for outputs in [
        "[[figures]]\nx = \"n_components\"\ny = \"train_seconds\"",
        "[[tables]]\nrows = [\"n_components\"]\nvalue = \"accuracy\"\n\
         format = \"{mean:.1} ({predict_seconds.mean:.1} s)\"",
        "[[figures]]\nx = \"n_components\"\ny = \"seconds\"",
    ] {
        let e = spec_error(
            &learning_spec("overlap_runs = true", outputs),
            &Profile::Full,
        );
        assert_eq!(e.key.as_deref(), Some("run.overlap_runs"), "{e}");
        assert!(e.problem.contains("time each other"), "{e}");
        // The same outputs are fine when the runs go one at a time.
        plan_with(&learning_spec("", outputs), &Profile::Full).unwrap();
    }

    // kernel-error's runs always overlap: the same rule, at the output's own key.
    let timed = format!("{SPEC}\n[[figures]]\nx = \"n_components\"\ny = \"map_seconds\"\n");
    let e = spec_error(&timed, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("figures[0].y"), "{e}");
    assert!(e.problem.contains("always overlap"), "{e}");

    let e = spec_error(&learning_spec("overlap_runs = 1", figure), &Profile::Full);
    assert!(e.problem.contains("true or false"), "{e}");
    let timing = SPEC
        .replace("kind = \"kernel-error\"", "kind = \"timing\"")
        .replace("pairs = 20", "n_rows = 10\noverlap_runs = true");
    let e = spec_error(&timing, &Profile::Full);
    assert_eq!(e.key.as_deref(), Some("run.overlap_runs"), "{e}");
    assert!(e.problem.contains("never overlap"), "{e}");
}
