//! Tests only (this crate's, and rfbench-registry's through the `test-helpers` feature): whether
//! a component's registry defaults are its library's own defaults, without a table of which
//! registry parameter is which library field (that table would be a third statement of every
//! default, free to drift).
//!
//! The registry builds the library's config from a cell's parameters (the constructor of a map's
//! entry, the parameters a learner's entry checks). Built from the registry's defaults, that
//! config must equal the library's default config on every field a parameter sets; which fields
//! a parameter sets is found by moving it alone off its default and seeing which fields of the
//! config change. Configs are compared by their `Debug` text, field by field: every library
//! config derives `Debug`, and that needs no accessor the library does not otherwise want.

use std::collections::{BTreeMap, BTreeSet};

use crate::params::{defaults, ParamKind, ParamSpec, ParamValues, Value};

/// What [`compare_defaults`] found for one component.
#[derive(Debug, Default)]
pub struct Agreement {
    /// Parameters whose default was compared with the library's.
    pub compared: Vec<&'static str>,
    /// Parameters with a default that set no field of the library's config (used at fit time,
    /// or ignored).
    pub unheld: Vec<&'static str>,
    /// One line per field that differs, naming the component, the parameter and both values.
    pub disagreements: Vec<String>,
}

/// Compares the config `build` makes from the registry's defaults of `params` with `library`,
/// the `Debug` text of the library's default config. A field that differs is blamed on the
/// parameter that sets it alone, or on the ones that set the fewest fields among those that set
/// it (ridge's `folds` rather than its `lambda`, which sets the cross-validation too).
pub fn compare_defaults(
    component: &str,
    params: &[ParamSpec],
    build: impl Fn(&ParamValues) -> String,
    library: &str,
) -> Agreement {
    let base_values = defaults(params);
    let base = fields(&build(&base_values));
    let library = fields(library);
    let sets: Vec<(&ParamSpec, BTreeSet<String>)> = params
        .iter()
        .filter(|p| p.default.is_some())
        .map(|p| {
            let mut moved = base_values.clone();
            moved.0.insert(p.name.to_string(), another(p));
            (p, changed(&base, &fields(&build(&moved))))
        })
        .collect();
    let mut out = Agreement::default();
    for (p, set) in &sets {
        if set.is_empty() {
            out.unheld.push(p.name);
            continue;
        }
        out.compared.push(p.name);
        for field in set.iter().filter(|f| base.get(*f) != library.get(*f)) {
            let fewest = sets
                .iter()
                .filter(|(_, s)| s.contains(field))
                .map(|(_, s)| s.len());
            if fewest.min() == Some(set.len()) {
                let text = |f: &BTreeMap<String, String>| {
                    f.get(field)
                        .cloned()
                        .unwrap_or_else(|| "(no such field)".into())
                };
                out.disagreements.push(format!(
                    "{component}: parameter `{}` defaults to {} in the registry, which makes \
                     `{field}: {}`; the library's default config has `{field}: {}`",
                    p.name,
                    p.default.map_or(Value::Text(String::new()), |d| d.value()),
                    text(&base),
                    text(&library)
                ));
            }
        }
    }
    out
}

/// The fields whose text differs between two configs (or that only one has).
fn changed(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> BTreeSet<String> {
    a.keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}

/// A valid value of `p` other than its default (`p` has one).
fn another(p: &ParamSpec) -> Value {
    match (p.kind, p.default.map(|d| d.value())) {
        (ParamKind::Int { max, .. }, Some(Value::Int(d))) => {
            Value::Int(if d < max { d + 1 } else { d - 1 })
        }
        (ParamKind::Float(interval), Some(Value::Float(d))) => {
            let candidates = [2.0 * d, d + 1.0, d / 2.0, d - 1.0];
            let v = candidates
                .into_iter()
                .find(|&v| v != d && interval.contains(v));
            Value::Float(v.unwrap_or_else(|| panic!("`{}`: no value besides {d}", p.name)))
        }
        (ParamKind::Choice(words), Some(Value::Text(d))) => {
            let word = words.iter().find(|w| **w != d);
            Value::Text(word.expect("a choice of two words or more").to_string())
        }
        // A number for the word ("cv", "default"), another number for a number.
        (ParamKind::NumberOr(_) | ParamKind::Bandwidth, Some(Value::Text(_))) => Value::Float(2.0),
        (ParamKind::NumberOr(_) | ParamKind::Bandwidth, Some(Value::Float(d))) => {
            Value::Float(d + 1.0)
        }
        (ParamKind::Bool, Some(Value::Bool(b))) => Value::Bool(!b),
        (kind, default) => panic!("`{}`: {kind} with default {default:?}", p.name),
    }
}

/// The top-level fields of the first braced struct in a `Debug` text, `name -> value text`:
/// `Params(Valid { c: 1.0, bias: Some(1.0), cv: Some(Cv { folds: 5 }) })` gives `c`, `bias`
/// and `cv`.
fn fields(debug: &str) -> BTreeMap<String, String> {
    let Some(open) = debug.find('{') else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    let (mut depth, mut start) = (0usize, open + 1);
    for (i, c) in debug.char_indices().skip_while(|&(i, _)| i <= open) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            ',' | '}' if depth == 0 => {
                if let Some((name, value)) = debug[start..i].split_once(": ") {
                    out.insert(name.trim().to_string(), value.trim().to_string());
                }
                start = i + 1;
                if c == '}' {
                    break;
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{choice, count, positive};

    // The toy configs' fields are read through their `Debug` text only.
    #[allow(dead_code)]
    #[derive(Debug)]
    struct Search {
        folds: usize,
    }

    /// A library config: `lambda` is stood in for when searched.
    #[allow(dead_code)]
    #[derive(Debug)]
    struct Config {
        lambda: f64,
        steps: usize,
        mode: &'static str,
        search: Option<Search>,
    }

    const PARAMS: &[ParamSpec] = &[
        ParamSpec {
            name: "lambda",
            kind: ParamKind::NumberOr("cv"),
            default: Some(crate::params::Default::Text("cv")),
            doc: "",
        },
        count("folds", Some(5), ""),
        count("steps", Some(10), ""),
        choice("mode", &["fast", "slow"], "fast", ""),
        positive("unused", Some(0.5), ""),
    ];

    fn build(p: &ParamValues) -> String {
        let lambda = p.get("lambda").and_then(Value::as_f64);
        let config = Config {
            lambda: lambda.unwrap_or(1.0),
            steps: p.usize("steps"),
            mode: if p.text("mode") == "fast" {
                "Fast"
            } else {
                "Slow"
            },
            search: lambda.is_none().then(|| Search {
                folds: p.usize("folds"),
            }),
        };
        format!("{config:?}")
    }

    #[test]
    fn a_differing_field_is_blamed_on_the_parameter_that_sets_it() {
        let library = Config {
            lambda: 1.0,
            steps: 20,
            mode: "Fast",
            search: Some(Search { folds: 3 }),
        };
        let found = compare_defaults("toy", PARAMS, build, &format!("{library:?}"));
        assert_eq!(found.compared, ["lambda", "folds", "steps", "mode"]);
        assert_eq!(found.unheld, ["unused"]);
        assert_eq!(
            found.disagreements,
            [
                "toy: parameter `folds` defaults to 5 in the registry, which makes `search: \
                 Some(Search { folds: 5 })`; the library's default config has `search: \
                 Some(Search { folds: 3 })`",
                "toy: parameter `steps` defaults to 10 in the registry, which makes `steps: 10`; \
                 the library's default config has `steps: 20`",
            ]
        );
        let agreeing = Config {
            steps: 10,
            search: Some(Search { folds: 5 }),
            ..library
        };
        let found = compare_defaults("toy", PARAMS, build, &format!("{agreeing:?}"));
        assert!(found.disagreements.is_empty(), "{:?}", found.disagreements);
    }

    #[test]
    fn fields_are_the_outer_structs() {
        let text =
            "Params(Valid { c: 1.0, bias: Some(1.0), cv: Some(Cv { grid: [1, 2], folds: 5 }), \
                    loss: L2 })";
        let f = fields(text);
        let want = [
            ("bias", "Some(1.0)"),
            ("c", "1.0"),
            ("cv", "Some(Cv { grid: [1, 2], folds: 5 })"),
            ("loss", "L2"),
        ];
        let want: BTreeMap<String, String> = want
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(f, want);
        assert!(fields("Unit").is_empty());
    }
}
