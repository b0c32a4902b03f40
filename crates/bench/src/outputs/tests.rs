//! End-to-end tests of the output sections: spec text -> validation; CSV -> figures, tables,
//! claims, paper values and the report.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::figure::{Hue, Style};
use super::*;

/// The four sections as the runner's spec embeds them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sections {
    #[serde(default)]
    figures: Vec<RawFigure>,
    #[serde(default)]
    tables: Vec<RawTable>,
    #[serde(default)]
    claims: Vec<RawClaim>,
    #[serde(default)]
    paper_values: Vec<RawPaperValue>,
}

/// The four sections as one list of outputs (clones: a test passes some sections, `&[]` for
/// the others).
fn outputs(
    figures: &[RawFigure],
    tables: &[RawTable],
    claims: &[RawClaim],
    paper_values: &[RawPaperValue],
) -> Outputs {
    Outputs {
        figures: figures.to_vec(),
        tables: tables.to_vec(),
        claims: claims.to_vec(),
        paper_values: paper_values.to_vec(),
    }
}

fn parse(text: &str) -> Sections {
    toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
}

fn kernel_columns() -> Columns {
    Columns {
        seeds: vec!["seed".into()],
        coordinates: ["dataset", "map", "degree", "offset", "n_components"]
            .map(String::from)
            .to_vec(),
        metrics: ["relative_error", "map_seconds"].map(String::from).to_vec(),
    }
}

fn check(text: &str) -> Result<()> {
    let s = parse(text);
    validate(
        &outputs(&s.figures, &s.tables, &s.claims, &s.paper_values),
        &kernel_columns(),
        text,
        Path::new("experiments/x.toml"),
    )
}

/// The error of `text`, which must name `key` and `line`.
fn spec_error(text: &str, key: &str, line: usize) -> String {
    let message = check(text)
        .expect_err("the spec should be rejected")
        .to_string();
    assert!(
        message.contains(&format!("key `{key}` (line {line})")),
        "expected key `{key}` on line {line}, got: {message}"
    );
    assert!(message.contains("experiments/x.toml"), "{message}");
    message
}

const VALID: &str = r#"
[[figures]]
x = "n_components"
y = "relative_error"
series = ["map", "offset"]
panels = "degree"
where = { dataset = "adult" }
error_bars = "se"
series_label = "{map}, ({offset} + <x,y>)^{degree}"

[[figures]]
name = "time"
x = "n_components"
y = "map_seconds"
log_x = true
log_y = true

[[tables]]
rows = ["map"]
columns = ["degree"]
value = "relative_error"
format = "{mean:.2} ± {sd:.2} ({map_seconds.mean:.1} s, n = {count})"
where = { n_components = 1000, offset = 0.0 }
[[tables.paper]]
row = { map = "tensor-sketch" }
column = { degree = 2 }
value = "0.1"

[[claims]]
text = "TS below RM"
metric = "relative_error"
left = { map = "tensor-sketch" }
right = { map = "random-maclaurin" }
relation = "less"
factor = 2.0

[[paper_values]]
select = { degree = 2 }
statistic = "max"
value = 0.9
"#;

#[test]
fn a_valid_spec_passes() {
    check(VALID).unwrap();
}

#[test]
fn unknown_columns_name_the_key_and_line() {
    let m = spec_error(
        "[[figures]]\nx = \"n_componets\"\ny = \"relative_error\"\n",
        "figures[0].x",
        2,
    );
    assert!(m.contains("unknown coordinate \"n_componets\""), "{m}");
    assert!(m.contains("\"n_components\""), "lists the known ones: {m}");
    let m = spec_error(
        "[[figures]]\nname = \"a\"\nx = \"n_components\"\ny = \"relative_error\"\n\
         [[figures]]\nname = \"b\"\nx = \"n_components\"\n\ny = \"relative_eror\"\n",
        "figures[1].y",
        9,
    );
    assert!(
        m.contains(
            "unknown metric \"relative_eror\"; known: [\"relative_error\", \"map_seconds\"]"
        ),
        "{m}"
    );
    let m = spec_error(
        "[[figures]]\nx = \"relative_error\"\ny = \"relative_error\"\n",
        "figures[0].x",
        2,
    );
    assert!(m.contains("(it is a metric)"), "{m}");
    spec_error(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\nseries = [\"map\",\n \"ofset\"]\n",
        "figures[0].series[1]",
        5,
    );
    spec_error(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\nwhere = { kernal = 1 }\n",
        "figures[0].where.kernal",
        4,
    );
    spec_error(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\npanels = \"n_components\"\n",
        "figures[0].panels",
        4,
    );
    spec_error(
        "[[tables]]\nrows = [\"map\"]\ncolumns = [\"degre\"]\nvalue = \"relative_error\"\n",
        "tables[0].columns[0]",
        3,
    );
    spec_error(
        "[[claims]]\ntext = \"t\"\nmetric = \"relative_error\"\nleft = { map = \"a\" }\n\
         right = { mapp = \"b\" }\nrelation = \"less\"\n",
        "claims[0].right.mapp",
        5,
    );
    spec_error(
        "[[paper_values]]\nselect = { degre = 2 }\nmetric = \"relative_error\"\nstatistic = \"max\"\nvalue = 1.0\n",
        "paper_values[0].select.degre",
        2,
    );
    spec_error(
        "[[paper_values]]\nselect = { degree = 2 }\nmetric = \"map\"\nstatistic = \"max\"\nvalue = 1.0\n",
        "paper_values[0].metric",
        3,
    );
}

#[test]
fn unknown_placeholders_statistics_and_values_name_the_key_and_line() {
    let m = spec_error(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\nseries_label = \"{map} {degre}\"\n",
        "figures[0].series_label",
        4,
    );
    assert!(m.contains("{degre}"), "{m}");
    let m = spec_error(
        "[[tables]]\nrows = [\"map\"]\nvalue = \"relative_error\"\nformat = \"{meen:.2}\"\n",
        "tables[0].format",
        4,
    );
    assert!(m.contains("{meen}") && m.contains("\"mean\""), "{m}");
    let m = spec_error(
        "[[tables]]\nrows = [\"map\"]\nvalue = \"relative_error\"\nformat = \"{mean} {map_seconds.avg}\"\n",
        "tables[0].format",
        4,
    );
    assert!(m.contains("{map_seconds.avg}"), "{m}");
    spec_error(
        "[[tables]]\nrows = [\"map\"]\nvalue = \"relative_error\"\nformat = \"{train_seconds.mean}\"\n",
        "tables[0].format",
        4,
    );
    let m = spec_error(
        "[[paper_values]]\nselect = { degree = 2 }\nmetric = \"relative_error\"\nstatistic = \"mode\"\nvalue = 1.0\n",
        "paper_values[0].statistic",
        4,
    );
    assert!(
        m.contains("[\"max\", \"min\", \"mean\", \"median\"]"),
        "{m}"
    );
    let m = spec_error(
        "[[claims]]\ntext = \"t\"\nmetric = \"relative_error\"\nleft = { map = \"a\" }\n\
         right = { map = \"b\" }\nrelation = \"below\"\n",
        "claims[0].relation",
        6,
    );
    assert!(m.contains("[\"less\", \"greater\", \"not-greater\""), "{m}");
    // "Not worse" and "similar" state their margin; a directional claim takes none.
    let m = spec_error(
        "[[claims]]\ntext = \"t\"\nmetric = \"relative_error\"\nleft = { map = \"a\" }\n\
         right = { map = \"b\" }\nrelation = \"similar\"\n",
        "claims[0].relation",
        6,
    );
    assert!(m.contains("needs a margin"), "{m}");
    spec_error(
        "[[claims]]\ntext = \"t\"\nmetric = \"relative_error\"\nleft = { map = \"a\" }\n\
         right = { map = \"b\" }\nrelation = \"less\"\nmargin = 0.1\n",
        "claims[0].margin",
        7,
    );
    spec_error(
        "[[claims]]\ntext = \"t\"\nmetric = \"relative_error\"\nleft = { map = \"a\" }\n\
         right = { map = \"b\" }\nrelation = \"less\"\nscale = \"ln\"\n",
        "claims[0].scale",
        7,
    );
    spec_error(
        "[[claims]]\ntext = \"t\"\nmetric = \"relative_error\"\nleft = { map = \"a\" }\n\
         right = { degree = 2 }\nrelation = \"less\"\n",
        "claims[0].right",
        5,
    );
    spec_error(
        "[[claims]]\ntext = \"t\"\nmetric = \"relative_error\"\nleft = { map = \"a\" }\n\
         right = { map = \"b\" }\nrelation = \"less\"\nfactor = -1.0\n",
        "claims[0].factor",
        7,
    );
    let m = spec_error(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\nerror_bars = \"ci90\"\n",
        "figures[0].error_bars",
        4,
    );
    assert!(m.contains("[\"ci\", \"sd\", \"se\", \"none\"]"), "{m}");
    spec_error(
        "[[tables]]\nrows = [\"map\"]\nvalue = \"relative_error\"\n[[tables.paper]]\n\
         row = { map = \"a\", degree = 2 }\nvalue = \"1\"\n",
        "tables[0].paper[0].row",
        5,
    );
    spec_error(
        "[[paper_values]]\nselect = { degree = 2 }\nstatistic = \"max\"\nvalue = 1.0\n",
        "paper_values[0].metric",
        3,
    );
}

#[test]
fn duplicate_unnamed_outputs_are_errors() {
    let m = spec_error(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\n\n\
         [[figures]]\nx = \"n_components\"\ny = \"map_seconds\"\n",
        "figures[1]",
        6,
    );
    assert!(m.contains("figures[0] already has no name"), "{m}");
    spec_error(
        "[[tables]]\nrows = [\"map\"]\nvalue = \"relative_error\"\n\
         [[tables]]\nrows = [\"map\"]\nvalue = \"map_seconds\"\n",
        "tables[1]",
        6,
    );
    spec_error(
        "[[figures]]\nname = \"a\"\nx = \"n_components\"\ny = \"relative_error\"\n\
         [[figures]]\nname = \"a\"\nx = \"n_components\"\ny = \"map_seconds\"\n",
        "figures[1].name",
        6,
    );
    spec_error(
        "[[figures]]\nname = \"../a\"\nx = \"n_components\"\ny = \"relative_error\"\n",
        "figures[0].name",
        2,
    );
    // A table named `claims` would overwrite the run's own claims file.
    let m = spec_error(
        "[[tables]]\nname = \"claims\"\nrows = [\"map\"]\nvalue = \"relative_error\"\n",
        "tables[0].name",
        2,
    );
    assert!(m.contains("reserved"), "{m}");
}

#[test]
fn unknown_keys_are_denied() {
    let text = "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\nlogx = true\n";
    let err = toml::from_str::<Sections>(text).unwrap_err().to_string();
    assert!(err.contains("logx"), "{err}");
}

/// A kernel-error sweep: TS's error a third of RM's; one cell skipped.
fn kernel_csv(dir: &Path) -> PathBuf {
    let mut text = String::from(
        "experiment,dataset,map,degree,offset,n_components,repetition,seed,status,skip_reason,\
         relative_error,map_seconds\n",
    );
    for map in ["random-maclaurin", "tensor-sketch"] {
        for degree in [2, 3] {
            for offset in ["0.0", "1.0"] {
                for d in [100, 1000, 10000] {
                    for rep in 0..3 {
                        let rm = 3.0 * degree as f64 / (d as f64).sqrt() + 0.01 * rep as f64;
                        let error = if map == "tensor-sketch" { rm / 3.0 } else { rm };
                        let seconds = d as f64 * 1e-4 * (1.0 + rep as f64);
                        text.push_str(&format!(
                            "e,adult,{map},{degree},{offset},{d},{rep},{},ok,,{error},{seconds}\n",
                            u64::MAX - rep
                        ));
                    }
                }
            }
        }
    }
    for rep in 0..3 {
        text.push_str(&format!(
            "e,adult,tensor-sketch,4,0.0,100,{rep},1,skipped,out of memory,,\n"
        ));
    }
    let path = dir.join("kernel.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn context(dir: &Path) -> RenderContext {
    let mut labels = Labels::default();
    for (map, label) in [("tensor-sketch", "TS"), ("random-maclaurin", "RM")] {
        labels.0.insert(("map".into(), map.into()), label.into());
    }
    RenderContext {
        files: SpecFiles::new(dir, "fig", "quick"),
        title: "Test figure".into(),
        profile_note: "quick profile".into(),
        labels,
    }
}

#[test]
fn figures_render_pngs_with_panels_and_log_axes() {
    let dir = tempfile::tempdir().unwrap();
    let results = Results::from_csv(&kernel_csv(dir.path()), &kernel_columns()).unwrap();
    let s = parse(VALID);
    let ctx = context(dir.path());
    let rendered = render(&results, &outputs(&s.figures, &[], &[], &[]), &ctx).unwrap();
    assert_eq!(
        rendered.figures,
        [
            dir.path().join("figures/fig/quick.png"),
            dir.path().join("figures/fig/quick.time.png")
        ]
    );
    for path in &rendered.figures {
        let bytes = std::fs::read(path).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{}",
            path.display()
        );
        assert!(
            bytes.len() > 10_000,
            "{}: {} bytes",
            path.display(),
            bytes.len()
        );
    }
    // Two panels side by side, twice the width of one: degree 2 and 3 with their curves. Degree
    // 4, whose only cell was skipped, has no panel: a footnote says why.
    let png = std::fs::read(&rendered.figures[0]).unwrap();
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert_eq!(width, 1200);
    // No temporary files left beside them.
    let names: Vec<_> = std::fs::read_dir(dir.path().join("figures/fig"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let report = &rendered.report;
    assert!(report.contains("  degree = 2\n"), "{report}");
    assert!(report.contains("RM, (0 + <x,y>)^2"), "{report}");
    // The skipped degree-4 cell is listed once among the skipped cells, with its reason, and
    // once under the figure that has no panel for it.
    assert_eq!(report.matches("out of memory").count(), 2, "{report}");
    assert!(
        report.contains("  no panel for degree = 4: out of memory\n"),
        "{report}"
    );
    // The second figure's default series: every varying coordinate but x.
    assert!(report.contains("TS, 3, 1  "), "{report}");
    assert!(
        report.contains("map, offset \\ n_components  100  "),
        "{report}"
    );
}

#[test]
fn a_series_keeps_its_colour_in_every_figure_of_a_spec() {
    let dir = tempfile::tempdir().unwrap();
    let results = Results::from_csv(&kernel_csv(dir.path()), &kernel_columns()).unwrap();
    let s = parse(
        r#"
[[figures]]
x = "n_components"
y = "relative_error"
series = ["map"]
where = { degree = 2, offset = 0.0 }

[[figures]]
name = "ts"
x = "n_components"
y = "map_seconds"
series = ["map"]
where = { degree = 2, offset = 0.0, map = "tensor-sketch" }
"#,
    );
    let series = |i: usize| -> Vec<(String, Style)> {
        let data =
            figure::FigureData::collect(&results, &s.figures[i], &Labels::default(), "f").unwrap();
        data.panels[0]
            .curves
            .iter()
            .map(|c| (c.label.clone(), c.style))
            .collect()
    };
    let map = |place: usize, marker: usize| Style {
        hue: Hue::Map(place),
        marker,
    };
    // A map's series is coloured by its place in the registry (TS first, RM second), so it has
    // one colour in every figure of the catalogue.
    assert_eq!(
        series(0),
        [
            ("random-maclaurin".to_string(), map(1, 0)),
            ("tensor-sketch".to_string(), map(0, 0))
        ]
    );
    // Alone in its figure, TS keeps its colour and marker.
    assert_eq!(series(1), [("tensor-sketch".to_string(), map(0, 0))]);
    // Two offsets per map: each map keeps its colour, the second offset with another marker.
    let by_offset = parse(
        r#"
[[figures]]
x = "n_components"
y = "relative_error"
series = ["map", "offset"]
where = { degree = 2 }
"#,
    );
    let data =
        figure::FigureData::collect(&results, &by_offset.figures[0], &Labels::default(), "f")
            .unwrap();
    let styles: Vec<Style> = data.panels[0].curves.iter().map(|c| c.style).collect();
    assert_eq!(styles, [map(1, 0), map(1, 1), map(0, 0), map(0, 1)]);
    // Series that are not maps (the offsets) of one map's cells: a colour each, not the map's
    // colour told apart by small markers (issue 69: Rahimi & Recht's Fig. 3 draws random
    // binning at four training-set sizes).
    let one_map = parse(
        r#"
[[figures]]
x = "n_components"
y = "relative_error"
series = ["offset"]
where = { degree = 2, map = "random-maclaurin" }
"#,
    );
    let data = figure::FigureData::collect(&results, &one_map.figures[0], &Labels::default(), "f")
        .unwrap();
    let styles: Vec<Style> = data.panels[0].curves.iter().map(|c| c.style).collect();
    let series = |k| Style {
        hue: Hue::Series(k),
        marker: 0,
    };
    assert_eq!(styles, [series(0), series(1)]);
}

#[test]
fn the_exact_kernel_machine_and_the_raw_inputs_are_drawn_in_neutral_colours() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baselines.csv");
    let mut text = String::from(
        "experiment,dataset,map,n_components,repetition,seed,status,skip_reason,accuracy\n",
    );
    for rep in 0..3 {
        for (map, d) in [("rff", "100"), ("exact", ""), ("none", "")] {
            text.push_str(&format!("e,adult,{map},{d},{rep},1,ok,,{}\n", 80 + rep));
        }
    }
    std::fs::write(&path, text).unwrap();
    let columns = Columns {
        seeds: vec!["seed".into()],
        coordinates: vec!["dataset".into(), "map".into(), "n_components".into()],
        metrics: vec!["accuracy".into()],
    };
    let results = Results::from_csv(&path, &columns).unwrap();
    let s = parse("[[figures]]\nx = \"n_components\"\ny = \"accuracy\"\nseries = [\"map\"]\n");
    let data =
        figure::FigureData::collect(&results, &s.figures[0], &Labels::default(), "f").unwrap();
    let hues: Vec<(String, Hue)> = data.panels[0]
        .curves
        .iter()
        .map(|c| (c.label.clone(), c.style.hue))
        .collect();
    assert_eq!(
        hues,
        [
            ("exact".to_string(), Hue::Exact),
            ("none".to_string(), Hue::Raw),
            ("rff".to_string(), Hue::Map(3)),
        ]
    );
}

#[test]
fn a_figure_of_nothing_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let results = Results::from_csv(&kernel_csv(dir.path()), &kernel_columns()).unwrap();
    let s = parse(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\nwhere = { degree = 5 }\n",
    );
    let err = render(
        &results,
        &outputs(&s.figures, &[], &[], &[]),
        &context(dir.path()),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("no cells to draw") && err.contains("degree = 5"),
        "{err}"
    );
}

#[test]
fn two_cells_on_one_point_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let results = Results::from_csv(&kernel_csv(dir.path()), &kernel_columns()).unwrap();
    let s = parse(
        "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\nseries = [\"map\"]\n\
         panels = \"degree\"\n",
    );
    let err = render(
        &results,
        &outputs(&s.figures, &[], &[], &[]),
        &context(dir.path()),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("differing in [\"offset\"]"), "{err}");
    let s =
        parse("[[tables]]\nrows = [\"map\"]\ncolumns = [\"degree\"]\nvalue = \"relative_error\"\n");
    let err = render(
        &results,
        &outputs(&[], &s.tables, &[], &[]),
        &context(dir.path()),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("tables[0]: two cells in one table cell"),
        "{err}"
    );
    assert!(
        err.contains("differing in [\"n_components\"]")
            || err.contains("differing in [\"offset\"]"),
        "{err}"
    );
}

#[test]
fn a_table_renders_markdown() {
    // Exact on adult ran once: its cell has no "± sd".
    let dir = tempfile::tempdir().unwrap();
    let csv = "dataset,map,repetition,status,skip_reason,accuracy,train_seconds\n\
               adult,rff,0,ok,,0.8,1\n\
               adult,rff,1,ok,,0.9,3\n\
               adult,exact,0,ok,,0.95,10\n\
               mnist,rff,0,ok,,0.5,2\n\
               mnist,rff,1,ok,,0.7,2\n\
               mnist,exact,0,skipped,kernel matrix too large,,\n\
               mnist,exact,1,skipped,kernel matrix too large,,\n";
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv).unwrap();
    let columns = Columns {
        seeds: Vec::new(),
        coordinates: vec!["dataset".into(), "map".into()],
        metrics: vec!["accuracy".into(), "train_seconds".into()],
    };
    let results = Results::from_csv(&path, &columns).unwrap();
    let text = r#"
[[tables]]
name = "accuracy"
rows = ["dataset"]
columns = ["map"]
value = "accuracy"
format = "{mean:.2} ± {sd:.2} ({train_seconds.mean:.1} s)"
title = "Table 1: accuracy"
[[tables.paper]]
row = { dataset = "adult" }
column = { map = "rff" }
value = "0.84 ± 0.01"
[[tables.paper]]
row = { dataset = "cifar" }
column = { map = "rff" }
value = 0.5
"#;
    let s = parse(text);
    validate(
        &outputs(&[], &s.tables, &[], &[]),
        &columns,
        text,
        Path::new("t.toml"),
    )
    .unwrap();
    let mut ctx = context(dir.path());
    ctx.labels
        .0
        .insert(("map".into(), "rff".into()), "RFF".into());
    ctx.labels
        .0
        .insert(("map".into(), "exact".into()), "Exact".into());
    let rendered = render(&results, &outputs(&[], &s.tables, &[], &[]), &ctx).unwrap();
    let expected = "\
## Table 1: accuracy

_quick profile_

| dataset | Exact | RFF |
|---|---|---|
| adult | 0.95 (10.0 s) | 0.85 ± 0.07 (2.0 s) (paper 0.84 ± 0.01) |
| cifar | — | — (paper 0.5) |
| mnist | skipped [1] | 0.60 ± 0.14 (2.0 s) |

[1] kernel matrix too large
";
    assert_eq!(
        rendered.tables,
        [dir.path().join("results/fig/quick.accuracy.md")]
    );
    assert_eq!(
        std::fs::read_to_string(&rendered.tables[0]).unwrap(),
        expected
    );
    assert!(rendered.report.contains(expected), "{}", rendered.report);
    assert!(rendered.report.contains(
        "1 cell (2 repetitions): kernel matrix too large\n    dataset = mnist, map = exact"
    ));
}

fn claims_of(text: &str) -> Vec<ClaimOutcome> {
    let dir = tempfile::tempdir().unwrap();
    let results = Results::from_csv(&kernel_csv(dir.path()), &kernel_columns()).unwrap();
    let s = parse(text);
    validate(
        &outputs(&s.figures, &s.tables, &s.claims, &s.paper_values),
        &kernel_columns(),
        text,
        Path::new("c.toml"),
    )
    .unwrap();
    let rendered = render(
        &results,
        &outputs(&[], &[], &s.claims, &[]),
        &context(dir.path()),
    )
    .unwrap();
    assert_eq!(
        rendered.report.matches("DOES NOT HOLD").count(),
        rendered
            .claims
            .iter()
            .filter(|c| c.verdict == Verdict::DoesNotHold)
            .count()
    );
    rendered.claims
}

#[test]
fn claims_that_hold_fail_or_select_nothing() {
    let claim = |relation: &str, extra: &str| {
        format!(
            "[[claims]]\ntext = \"TS below RM\"\nmetric = \"relative_error\"\n\
             left = {{ map = \"tensor-sketch\" }}\nright = {{ map = \"random-maclaurin\" }}\n\
             relation = \"{relation}\"\n{extra}\n"
        )
    };
    let text = [
        claim("less", ""),
        claim("less", "factor = 2.5"),
        claim("less", "factor = 3.5"),
        claim("greater", ""),
        claim("less", "where = { degree = 4 }"),
    ]
    .concat();
    let outcomes = claims_of(&text);
    let verdicts: Vec<Verdict> = outcomes.iter().map(|o| o.verdict).collect();
    let (holds, fails) = (Verdict::Holds, Verdict::DoesNotHold);
    assert_eq!(
        verdicts,
        [holds, holds, fails, fails, fails],
        "{outcomes:#?}"
    );
    // RM/TS is 3 at every pair, up to the repetitions' offsets; the repetitions share their
    // seeds, so the pairs are tested paired.
    assert!(
        outcomes[0].detail.starts_with(
            "holds at 12, indistinguishable at 0, does not hold at 0 of 12 pairs (paired t, \
             Holm-corrected at 0.05); RM/TS ratio"
        ),
        "{}",
        outcomes[0].detail
    );
    assert!(
        outcomes[2]
            .detail
            .starts_with("holds at 0, indistinguishable at 0, does not hold at 12 of 12 pairs"),
        "{}",
        outcomes[2].detail
    );
    assert!(
        outcomes[2].detail.contains("; ..."),
        "{}",
        outcomes[2].detail
    );
    assert!(
        outcomes[4].detail.starts_with("no cells"),
        "{}",
        outcomes[4].detail
    );
    // The skipped TS cell has no RM counterpart; that is said, not hidden.
    assert!(
        outcomes[0]
            .detail
            .contains("1 TS cell without a RM counterpart"),
        "{}",
        outcomes[0].detail
    );
}

#[test]
fn paper_values_max_mean_min_and_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let results = Results::from_csv(&kernel_csv(dir.path()), &kernel_columns()).unwrap();
    let text = r#"
[[figures]]
x = "n_components"
y = "relative_error"
panels = "degree"
[[paper_values]]
select = { degree = 2, offset = 0.0, map = "random-maclaurin" }
statistic = "max"
value = 0.9
note = "top of the axis"
[[paper_values]]
select = { degree = 2, offset = 0, map = "random-maclaurin" }
statistic = "min"
value = 0.05
[[paper_values]]
select = { degree = "2", offset = 1, map = "random-maclaurin" }
metric = "map_seconds"
statistic = "mean"
value = 0.3
[[paper_values]]
select = { degree = 5 }
statistic = "max"
value = 1.0
note = "p = 5"
"#;
    let s = parse(text);
    validate(
        &outputs(&s.figures, &[], &[], &s.paper_values),
        &kernel_columns(),
        text,
        Path::new("p.toml"),
    )
    .unwrap();
    let outcomes: Vec<PaperOutcome> = s
        .paper_values
        .iter()
        .map(|p| p.evaluate(&results, Some("relative_error"), "p").unwrap())
        .collect();
    // RM, p = 2: 6 / sqrt(D) + 0.01 rep, mean over reps adds 0.01.
    let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
    assert!(close(outcomes[0].ours, 0.6 + 0.01), "{:?}", outcomes[0]);
    assert_eq!(outcomes[0].cells, 3);
    assert!(close(outcomes[1].ours, 0.06 + 0.01), "{:?}", outcomes[1]);
    // Mean over D of D * 1e-4 * mean(1, 2, 3).
    assert!(
        close(outcomes[2].ours, (0.01 + 0.1 + 1.0) / 3.0 * 2.0),
        "{:?}",
        outcomes[2]
    );
    assert_eq!((outcomes[3].ours, outcomes[3].cells), (None, 0));
    let rendered = render(
        &results,
        &outputs(&s.figures, &[], &[], &s.paper_values),
        &context(dir.path()),
    )
    .unwrap();
    assert!(
        rendered
            .report
            .contains("ours: no cells selected  p = 5 (max of relative_error over degree = 5)"),
        "{}",
        rendered.report
    );
    assert!(rendered.report.contains("paper 0.9"), "{}", rendered.report);
}

#[test]
fn a_cell_without_x_is_a_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "dataset,learner,n_components,repetition,status,skip_reason,accuracy\n\
               adult,linear-svm,100,0,ok,,0.80\n\
               adult,linear-svm,100,1,ok,,0.82\n\
               adult,linear-svm,1000,0,ok,,0.84\n\
               adult,linear-svm,1000,1,ok,,0.85\n\
               adult,kernel-svm,,0,ok,,0.86\n\
               adult,kernel-svm,,1,ok,,0.86\n";
    let path = dir.path().join("l.csv");
    std::fs::write(&path, csv).unwrap();
    let columns = Columns {
        seeds: Vec::new(),
        coordinates: vec!["dataset".into(), "learner".into(), "n_components".into()],
        metrics: vec!["accuracy".into()],
    };
    let results = Results::from_csv(&path, &columns).unwrap();
    let s = parse("[[figures]]\nx = \"n_components\"\ny = \"accuracy\"\nlog_x = true\n");
    let rendered = render(
        &results,
        &outputs(&s.figures, &[], &[], &[]),
        &context(dir.path()),
    )
    .unwrap();
    let png = std::fs::read(&rendered.figures[0]).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    let report = &rendered.report;
    assert!(report.contains("learner \\ n_components  100"), "{report}");
    assert!(report.contains("  —\n"), "{report}");
    // The baseline has only the empty-x column.
    let baseline = report
        .lines()
        .find(|l| l.trim_start().starts_with("kernel-svm"))
        .unwrap();
    let cells: Vec<&str> = baseline
        .split("  ")
        .filter(|c| !c.trim().is_empty())
        .collect();
    assert_eq!(
        cells.iter().map(|c| c.trim()).collect::<Vec<_>>(),
        ["kernel-svm", "-", "-", "0.8600 ± 0"]
    );
}

#[test]
fn a_figure_whose_cells_were_all_skipped_is_not_drawn_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "dataset,map,n_components,repetition,status,skip_reason,relative_error\n\
               forest,rff,100,0,skipped,cannot download forest,\n\
               forest,rff,100,1,skipped,cannot download forest,\n\
               adult,rff,100,0,ok,,0.5\n\
               adult,rff,100,1,ok,,0.7\n";
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv).unwrap();
    let columns = Columns {
        seeds: Vec::new(),
        coordinates: vec!["dataset".into(), "map".into(), "n_components".into()],
        metrics: vec!["relative_error".into()],
    };
    let results = Results::from_csv(&path, &columns).unwrap();
    let s = parse(
        "[[figures]]\nname = \"forest\"\nx = \"n_components\"\ny = \"relative_error\"\nwhere = { dataset = \"forest\" }\n\
         [[figures]]\nname = \"adult\"\nx = \"n_components\"\ny = \"relative_error\"\nwhere = { dataset = \"adult\" }\n",
    );
    let ctx = context(dir.path());
    // A figure of an earlier run, which this run's results no longer back.
    let stale = dir.path().join("figures/fig/quick.forest.png");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::write(&stale, b"old").unwrap();
    let rendered = render(&results, &outputs(&s.figures, &[], &[], &[]), &ctx).unwrap();
    assert_eq!(
        rendered.figures,
        [dir.path().join("figures/fig/quick.adult.png")]
    );
    assert!(!stale.exists());
    assert!(
        rendered
            .report
            .contains("quick.forest.png: not drawn: all 1 of its cells were skipped"),
        "{}",
        rendered.report
    );
    assert!(
        rendered.report.contains("cannot download forest"),
        "{}",
        rendered.report
    );
}

#[test]
fn claims_pair_on_chosen_coordinates() {
    // RFF has n_components, binning n_grids: their cells agree on nothing else, so they pair
    // only on the dataset.
    let dir = tempfile::tempdir().unwrap();
    let csv = "dataset,map,n_components,n_grids,repetition,status,skip_reason,error_percent\n\
               cpu,rff,300,,0,ok,,3.6\n\
               cpu,rff,300,,1,ok,,3.8\n\
               cpu,random-binning,,350,0,ok,,5.3\n\
               cpu,random-binning,,350,1,ok,,5.1\n\
               forest,rff,300,,0,ok,,11.6\n\
               forest,rff,300,,1,ok,,11.4\n\
               forest,random-binning,,50,0,ok,,2.2\n\
               forest,random-binning,,50,1,ok,,2.4\n\
               forest,random-binning,,30,0,ok,,2.9\n\
               forest,random-binning,,30,1,ok,,2.7\n";
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv).unwrap();
    let columns = Columns {
        seeds: Vec::new(),
        coordinates: vec![
            "dataset".into(),
            "map".into(),
            "n_components".into(),
            "n_grids".into(),
        ],
        metrics: vec!["error_percent".into()],
    };
    let results = Results::from_csv(&path, &columns).unwrap();
    let claim = |extra: &str| {
        let text = format!(
            "[[claims]]\ntext = \"Fourier better on CPU\"\nmetric = \"error_percent\"\n\
             left = {{ map = \"rff\" }}\nright = {{ map = \"random-binning\" }}\n\
             relation = \"less\"\n{extra}\n"
        );
        let s = parse(&text);
        validate(
            &outputs(&[], &[], &s.claims, &[]),
            &columns,
            &text,
            Path::new("c.toml"),
        )
        .map(|()| {
            render(
                &results,
                &outputs(&[], &[], &s.claims, &[]),
                &context(dir.path()),
            )
            .unwrap()
            .claims
        })
    };
    // Without pair_on nothing pairs.
    let unpaired = claim("where = { dataset = \"cpu\" }").unwrap();
    assert!(unpaired[0].detail.starts_with("no cells"), "{unpaired:?}");
    let cpu = claim("where = { dataset = \"cpu\" }\npair_on = [\"dataset\"]").unwrap();
    assert!(cpu[0].holds(), "{cpu:?}");
    assert!(
        cpu[0]
            .detail
            .starts_with("holds at 1, indistinguishable at 0"),
        "{cpu:?}"
    );
    // Two binning cells on Forest share the dataset: ambiguous, not a silent pick.
    let forest = claim("where = { dataset = \"forest\" }\npair_on = [\"dataset\"]").unwrap();
    assert!(
        !forest[0].holds() && forest[0].detail.starts_with("ambiguous"),
        "{forest:?}"
    );
    // A pair_on column that does not exist names the key.
    let err = claim("pair_on = [\"datset\"]").unwrap_err().to_string();
    assert!(err.contains("pair_on") && err.contains("datset"), "{err}");
}

#[test]
fn a_claim_whose_cells_were_all_skipped_is_not_checked_rather_than_failed() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "dataset,map,repetition,status,skip_reason,error_percent\n\
               forest,rff,0,skipped,cannot download forest,\n\
               forest,nystroem,0,skipped,cannot download forest,\n\
               adult,rff,0,ok,,15.0\n\
               adult,nystroem,0,ok,,14.0\n";
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv).unwrap();
    let columns = Columns {
        seeds: Vec::new(),
        coordinates: vec!["dataset".into(), "map".into()],
        metrics: vec!["error_percent".into()],
    };
    let results = Results::from_csv(&path, &columns).unwrap();
    let text = |dataset: &str| {
        format!(
            "[[claims]]\ntext = \"Nystroem below RFF\"\nmetric = \"error_percent\"\n\
             left = {{ map = \"nystroem\" }}\nright = {{ map = \"rff\" }}\nrelation = \"less\"\n\
             where = {{ dataset = \"{dataset}\" }}\n"
        )
    };
    let outcome = |dataset: &str| {
        let s = parse(&text(dataset));
        render(
            &results,
            &outputs(&[], &[], &s.claims, &[]),
            &context(dir.path()),
        )
        .unwrap()
    };
    let forest = outcome("forest");
    assert!(
        forest.claims[0].verdict == Verdict::NotChecked,
        "{:?}",
        forest.claims
    );
    assert!(
        forest.report.contains("NOT CHECKED: Nystroem below RFF"),
        "{}",
        forest.report
    );
    assert!(
        !forest.report.contains("DOES NOT HOLD"),
        "{}",
        forest.report
    );
    let adult = outcome("adult");
    assert!(adult.claims[0].holds(), "{:?}", adult.claims);
    // Over both datasets (a list selects either): it holds where it was checked, not plainly.
    let both =
        parse(&text("forest").replace("dataset = \"forest\"", "dataset = [\"forest\", \"adult\"]"));
    let both = render(
        &results,
        &outputs(&[], &[], &both.claims, &[]),
        &context(dir.path()),
    )
    .unwrap();
    assert_eq!(both.claims[0].verdict, Verdict::HoldsWhereChecked);
    assert!(!both.claims[0].holds());
    assert!(
        both.claims[0].detail.starts_with("checked on 1 of 2 pairs"),
        "{:?}",
        both.claims
    );
    // A claim that pairs nothing for another reason still fails.
    let nothing = outcome("cifar");
    assert_eq!(nothing.claims[0].verdict, Verdict::DoesNotHold);
    assert!(
        nothing.report.contains("DOES NOT HOLD"),
        "{}",
        nothing.report
    );
}

/// The one list goes figures, tables, claims, paper values, each keyed by its index in its
/// section; an output of a profile's list finds its key among the spec's by its place in the
/// text, not its index (a profile draws some outputs only).
#[test]
fn the_outputs_are_one_list_keyed_by_section() {
    let text = "[[figures]]\nx = \"n_components\"\ny = \"relative_error\"\n\
                [[tables]]\nrows = [\"map\"]\nvalue = \"relative_error\"\n\
                [[claims]]\ntext = \"a\"\nmetric = \"relative_error\"\nleft = { map = \"rff\" }\n\
                right = { map = \"orf\" }\nrelation = \"less\"\n\
                [[claims]]\ntext = \"b\"\nmetric = \"relative_error\"\nleft = { map = \"orf\" }\n\
                right = { map = \"rff\" }\nrelation = \"less\"\n\
                [[paper_values]]\nselect = { map = \"rff\" }\nstatistic = \"max\"\nvalue = 1.0\n";
    let s = parse(text);
    let all = outputs(&s.figures, &s.tables, &s.claims, &s.paper_values);
    let keys: Vec<String> = all.list().into_iter().map(|(key, _)| key).collect();
    assert_eq!(
        keys,
        [
            "figures[0]",
            "tables[0]",
            "claims[0]",
            "claims[1]",
            "paper_values[0]"
        ]
    );
    assert_eq!(all.default_metric(), Some("relative_error"));
    // A profile that draws the second claim only: its key there is claims[0], in the spec
    // claims[1].
    let drawn = outputs(&[], &[], &s.claims[1..], &[]);
    let (planned_key, second) = drawn.list().remove(0);
    assert_eq!(planned_key, "claims[0]");
    assert_eq!(all.key_of(second).as_deref(), Some("claims[1]"));
    assert_eq!(outputs(&[], &[], &[], &[]).key_of(second), None);
}

#[test]
fn a_paper_value_of_one_point_is_drawn_on_its_curve() {
    let dir = tempfile::tempdir().unwrap();
    let results = Results::from_csv(&kernel_csv(dir.path()), &kernel_columns()).unwrap();
    let s = parse(
        r#"
[[figures]]
x = "n_components"
y = "relative_error"
series = ["map", "offset"]
panels = "degree"

# One point of TS's curve, degree 3 panel.
[[paper_values]]
select = { map = "tensor-sketch", degree = 3, offset = 1.0, n_components = 1000 }
statistic = "mean"
value = 0.25

# A maximum over an axis, a mean over many points, another metric: no point of a curve.
[[paper_values]]
select = { map = "tensor-sketch", degree = 3, offset = 1.0 }
statistic = "max"
value = 0.5
[[paper_values]]
select = { map = "tensor-sketch", degree = 3 }
statistic = "mean"
value = 0.5
[[paper_values]]
select = { map = "tensor-sketch", degree = 3, offset = 1.0, n_components = 1000 }
metric = "map_seconds"
statistic = "mean"
value = 0.5
"#,
    );
    let labels = Labels::default();
    let data = figure::FigureData::collect(&results, &s.figures[0], &labels, "f").unwrap();
    let points = data.paper_points(
        &results,
        &s.figures[0],
        &labels,
        &s.paper_values,
        Some("relative_error"),
    );
    assert_eq!(points.len(), 1, "{points:?}");
    let point = &points[0];
    assert_eq!(data.panels[point.panel].caption, "degree = 3");
    assert_eq!(point.x, CellValue::Int(1000));
    assert_eq!(point.value, 0.25);
    // TS's colour (first in the registry), its second offset's marker.
    assert_eq!(
        point.style,
        Style {
            hue: Hue::Map(0),
            marker: 1
        }
    );
}
