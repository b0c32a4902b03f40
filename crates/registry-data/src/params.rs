//! Parameters as data (scikit-learn's `_parameter_constraints`): every component declares its
//! parameters once, as [`ParamSpec`]s, and the same table validates specs, fills defaults, feeds
//! `rfbench maps|learners|kernels` and generates the spec reference. A range is written once.

use rfbench_maps::Interval;
use std::collections::BTreeMap;
use std::fmt;

/// A parameter value as a spec writes it, after validation against its [`ParamKind`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
    /// A bandwidth computed from the training rows instead of given as a number.
    Rule(BandwidthRule),
    /// A bandwidth chosen from a list by cross-validation of the whole pipeline.
    Search(BandwidthSearch),
}

/// A bandwidth chosen from `candidates` by `folds`-fold cross-validation on the training rows
/// (kind `learning` only): on each fold the map is fitted and the learner trained with each
/// candidate, scored on the fold's validation rows (misclassification rate, or squared error for
/// regression). The value chosen and whether it is the first or last candidate are written to
/// the results (`sigma_used`, `sigma_at_edge`).
#[derive(Debug, Clone, PartialEq)]
pub struct BandwidthSearch {
    pub candidates: Vec<f64>,
    pub folds: usize,
}

impl fmt::Display for BandwidthSearch {
    /// Written to CSV cells and seed keys: no commas.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.candidates.iter().map(|v| v.to_string()).collect();
        write!(f, "cv over {} ({} folds)", list.join(" "), self.folds)
    }
}

/// A bandwidth rule on the training rows: the `percentile`-th percentile (0-100] of the
/// Euclidean distances of `pairs` random pairs of training rows (PRFF's rule is the 5th; the
/// median heuristic is the 50th). The value used is written to the results.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandwidthRule {
    pub percentile: f64,
    pub pairs: usize,
}

impl fmt::Display for BandwidthRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.percentile == 50.0 {
            write!(f, "median of {} pair distances", self.pairs)
        } else {
            write!(
                f,
                "percentile {} of {} pair distances",
                self.percentile, self.pairs
            )
        }
    }
}

impl fmt::Display for Value {
    /// The form written to CSV cells and seed keys: integers plainly, floats in Rust's shortest
    /// round-trip form (`0`, `0.5`, `1000`), texts as they are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Text(v) => write!(f, "{v}"),
            Value::Rule(r) => write!(f, "{r}"),
            Value::Search(r) => write!(f, "{r}"),
        }
    }
}

impl Value {
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(v) => Some(v as f64),
            Value::Float(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_usize(&self) -> Option<usize> {
        match *self {
            Value::Int(v) if v >= 0 => usize::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    /// A key for grouping equal values (floats by bits).
    pub fn key(&self) -> String {
        match self {
            // 0.0 and -0.0 are one value (issue 24: they made two grid values).
            Value::Float(v) => format!("f{:016x}", (v + 0.0).to_bits()),
            other => format!("{other:?}"),
        }
    }
}

/// Names a parameter goes by in seed keys when it is not its own, and why: the runner's first
/// specs called the feature count `D`, every committed result's seeds were derived from keys
/// such as `D=512`, and renaming the key would change all of them.
const SEED_LABELS: &[(&str, &str)] = &[("n_components", "D")];

/// The name `param` goes by in seed keys (its own, unless [`SEED_LABELS`] says otherwise).
pub fn seed_label(param: &str) -> &str {
    SEED_LABELS
        .iter()
        .find(|(name, _)| *name == param)
        .map_or(param, |(_, label)| label)
}

/// What a parameter accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Int {
        min: i64,
        max: i64,
    },
    /// A finite number in the interval (the library's own constant for a map's parameter).
    Float(Interval),
    Bool,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// A positive finite number, or a rule on the training rows: `"median"` or
    /// `{ percentile = 5.0, pairs = 10000 }`.
    Bandwidth,
    /// A number `> 0` or the one word given: `"cv"` (chosen by cross-validation on the training
    /// rows), `"default"` (the library's default for the solver that runs).
    NumberOr(&'static str),
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ParamKind::Int { min, max } if max == i64::MAX => write!(f, "integer >= {min}"),
            ParamKind::Int { min, max } => write!(f, "integer in {min}..={max}"),
            ParamKind::Float(interval) => write!(f, "{interval}"),
            ParamKind::Bool => write!(f, "true or false"),
            ParamKind::Choice(words) => write!(f, "one of {words:?}"),
            ParamKind::Bandwidth => write!(
                f,
                "number > 0, \"median\", {{ percentile = P, pairs = N }}, or {{ cv = [v, ...], folds = K }} (kind learning)"
            ),
            ParamKind::NumberOr(word) => write!(f, "number > 0 or \"{word}\""),
        }
    }
}

/// One parameter of a component.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    /// `None`: the spec must give it.
    pub default: Option<Default>,
    pub doc: &'static str,
}

/// A default value (a `const`-friendly mirror of [`Value`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Default {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(&'static str),
}

impl Default {
    pub fn value(self) -> Value {
        match self {
            Default::Int(v) => Value::Int(v),
            Default::Float(v) => Value::Float(v),
            Default::Bool(v) => Value::Bool(v),
            Default::Text(v) => Value::Text(v.to_string()),
        }
    }
}

/// The largest count a spec may ask for (rows, features, pairs): beyond it a run cannot fit in
/// memory anyway, and checking it here keeps absurd values from reaching an allocation.
pub const MAX_COUNT: i64 = 1 << 31;

impl ParamSpec {
    /// Validates a TOML value against the kind; the error says what is wrong without saying
    /// where (the caller names the key and line).
    pub fn parse(&self, value: &toml::Value) -> Result<Value, String> {
        let bad = |what: &str| Err(format!("`{}` must be {}, got {what}", self.name, self.kind));
        match (self.kind, value) {
            (ParamKind::Int { min, max }, toml::Value::Integer(v)) => {
                if (min..=max).contains(v) {
                    Ok(Value::Int(*v))
                } else {
                    bad(&v.to_string())
                }
            }
            (ParamKind::Float(_), toml::Value::Integer(v)) => {
                self.parse(&toml::Value::Float(*v as f64))
            }
            (ParamKind::Float(interval), toml::Value::Float(v)) => {
                if interval.contains(*v) {
                    Ok(Value::Float(*v + 0.0))
                } else {
                    bad(&v.to_string())
                }
            }
            (ParamKind::Bool, toml::Value::Boolean(b)) => Ok(Value::Bool(*b)),
            (ParamKind::Choice(words), toml::Value::String(s)) => {
                if words.contains(&s.as_str()) {
                    Ok(Value::Text(s.clone()))
                } else {
                    bad(&format!("{s:?}"))
                }
            }
            (ParamKind::Bandwidth | ParamKind::NumberOr(_), toml::Value::Integer(v)) => {
                self.parse(&toml::Value::Float(*v as f64))
            }
            (ParamKind::Bandwidth | ParamKind::NumberOr(_), toml::Value::Float(v)) => {
                if v.is_finite() && *v > 0.0 {
                    Ok(Value::Float(*v + 0.0))
                } else {
                    bad(&v.to_string())
                }
            }
            (ParamKind::NumberOr(word), toml::Value::String(s)) if s == word => {
                Ok(Value::Text(s.clone()))
            }
            (ParamKind::Bandwidth, toml::Value::String(s)) if s == "median" => {
                Ok(Value::Rule(BandwidthRule {
                    percentile: 50.0,
                    pairs: 10_000,
                }))
            }
            (ParamKind::Bandwidth, toml::Value::Table(t)) => parse_rule(self.name, t),
            (_, other) => bad(&format!("the {} {other}", other.type_str())),
        }
    }
}

/// `{ cv = [v, ...], folds = K }`: at least two distinct candidates > 0, K in 2..=100 (default 3).
fn parse_search(name: &str, table: &toml::Table) -> Result<Value, String> {
    if let Some(key) = table.keys().find(|k| *k != "cv" && *k != "folds") {
        return Err(format!(
            "`{name}`: unknown key `{key}` in a bandwidth search; known: [\"cv\", \"folds\"]"
        ));
    }
    let Some(toml::Value::Array(list)) = table.get("cv") else {
        return Err(format!("`{name}`: cv must be a list of candidate values"));
    };
    let mut candidates = Vec::with_capacity(list.len());
    for v in list {
        let x = match v {
            toml::Value::Float(x) => *x,
            toml::Value::Integer(x) => *x as f64,
            other => {
                return Err(format!(
                    "`{name}`: a cv candidate must be a number, got {other}"
                ))
            }
        };
        if !(x.is_finite() && x > 0.0) {
            return Err(format!("`{name}`: a cv candidate must be > 0, got {x}"));
        }
        if candidates.contains(&x) {
            return Err(format!("`{name}`: cv lists {x} twice"));
        }
        candidates.push(x);
    }
    if candidates.len() < 2 {
        return Err(format!(
            "`{name}`: cv needs at least two candidates (one is a fixed value: write it as a number)"
        ));
    }
    let folds = match table.get("folds") {
        None => 3,
        Some(toml::Value::Integer(k)) if (2..=100).contains(k) => *k as usize,
        Some(other) => {
            return Err(format!(
                "`{name}`: folds must be an integer in 2..=100, got {other}"
            ))
        }
    };
    Ok(Value::Search(BandwidthSearch { candidates, folds }))
}

fn parse_rule(name: &str, table: &toml::Table) -> Result<Value, String> {
    if table.contains_key("cv") {
        return parse_search(name, table);
    }
    if let Some(key) = table.keys().find(|k| *k != "percentile" && *k != "pairs") {
        return Err(format!(
            "`{name}`: unknown key `{key}` in a bandwidth rule; known: [\"percentile\", \"pairs\"]"
        ));
    }
    let percentile = match table.get("percentile") {
        Some(toml::Value::Float(p)) => *p,
        Some(toml::Value::Integer(p)) => *p as f64,
        None => return Err(format!("`{name}`: a bandwidth rule needs `percentile`")),
        Some(other) => {
            return Err(format!(
                "`{name}`: percentile must be a number, got {other}"
            ))
        }
    };
    if !(percentile > 0.0 && percentile <= 100.0) {
        return Err(format!(
            "`{name}`: percentile must be in (0, 100], got {percentile}"
        ));
    }
    let pairs = match table.get("pairs") {
        None => 10_000,
        Some(toml::Value::Integer(p)) if (1..=MAX_COUNT).contains(p) => *p as usize,
        Some(other) => {
            return Err(format!(
                "`{name}`: pairs must be an integer in 1..={MAX_COUNT}, got {other}"
            ))
        }
    };
    Ok(Value::Rule(BandwidthRule { percentile, pairs }))
}

/// The parameter values of one component in one cell, defaults filled in.
#[derive(Debug, Clone, PartialEq, std::default::Default)]
pub struct ParamValues(pub BTreeMap<String, Value>);

/// Every parameter at its default, or at a valid value when the spec must give it (for tests of
/// the components' entries; rfbench-registry's through the `test-helpers` feature).
#[cfg(any(test, feature = "test-helpers"))]
#[doc(hidden)]
pub fn defaults(params: &[ParamSpec]) -> ParamValues {
    let value = |p: &ParamSpec| match (p.default, p.kind) {
        (Some(d), _) => d.value(),
        (None, ParamKind::Int { .. }) => Value::Int(16),
        (None, ParamKind::Choice(words)) => Value::Text(words[0].to_string()),
        (None, _) => Value::Float(1.0),
    };
    ParamValues(
        params
            .iter()
            .map(|p| (p.name.to_string(), value(p)))
            .collect(),
    )
}

/// Every finite end of each real parameter's interval, and a step either side of it, put through
/// `accepts` (the component's library check) with the other parameters at their defaults: the
/// library must accept exactly the values the registry's interval contains. Returns how many
/// values were tried.
#[cfg(any(test, feature = "test-helpers"))]
#[doc(hidden)]
pub fn assert_ranges_agree(
    component: &str,
    params: &[ParamSpec],
    accepts: impl Fn(&ParamValues) -> bool,
) -> usize {
    let mut tested = 0;
    for p in params {
        let ParamKind::Float(interval) = p.kind else {
            continue;
        };
        for end in [interval.min, interval.max]
            .into_iter()
            .filter(|v| v.is_finite())
        {
            let step = 1e-9 * end.abs().max(1.0);
            for v in [end - step, end, end + step] {
                let mut values = defaults(params);
                values.0.insert(p.name.to_string(), Value::Float(v));
                assert_eq!(
                    accepts(&values),
                    interval.contains(v),
                    "{component} {} = {v}: registry says {interval}",
                    p.name
                );
                tested += 1;
            }
        }
    }
    tested
}

impl ParamValues {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    /// The value of a parameter the registry declares (so it is present: given or defaulted).
    fn value(&self, name: &str) -> &Value {
        self.0
            .get(name)
            .unwrap_or_else(|| panic!("parameter {name:?} was validated but is missing"))
    }

    pub fn usize(&self, name: &str) -> usize {
        self.value(name)
            .as_usize()
            .unwrap_or_else(|| panic!("parameter {name:?} is not a count"))
    }

    pub fn f64(&self, name: &str) -> f64 {
        self.value(name)
            .as_f64()
            .unwrap_or_else(|| panic!("parameter {name:?} is not a number"))
    }

    pub fn text(&self, name: &str) -> &str {
        self.value(name)
            .as_str()
            .unwrap_or_else(|| panic!("parameter {name:?} is not a word"))
    }
}

/// Shorthand constructors for the registry's tables.
pub const fn count(name: &'static str, default: Option<i64>, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Int {
            min: 1,
            max: MAX_COUNT,
        },
        default: match default {
            Some(v) => Some(Default::Int(v)),
            None => None,
        },
        doc,
    }
}

pub const fn positive(name: &'static str, default: Option<f64>, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Float(Interval::POSITIVE),
        default: match default {
            Some(v) => Some(Default::Float(v)),
            None => None,
        },
        doc,
    }
}

pub const fn non_negative(name: &'static str, default: f64, doc: &'static str) -> ParamSpec {
    real(name, Interval::NON_NEGATIVE, default, doc)
}

/// A real parameter in `interval` (for a map's parameter, the map's own constant, such as
/// `NystroemParams::EIGENVALUE_CUTOFF`: the one statement of its range).
pub const fn real(
    name: &'static str,
    interval: Interval,
    default: f64,
    doc: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Float(interval),
        default: Some(Default::Float(default)),
        doc,
    }
}

pub const fn choice(
    name: &'static str,
    words: &'static [&'static str],
    default: &'static str,
    doc: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Choice(words),
        default: Some(Default::Text(default)),
        doc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_accept_and_refuse() {
        let d = count("n_components", None, "");
        assert_eq!(d.parse(&toml::Value::Integer(5)), Ok(Value::Int(5)));
        for bad in [
            toml::Value::Integer(0),
            toml::Value::Integer(5_000_000_000),
            toml::Value::Float(5.0),
        ] {
            let e = d.parse(&bad).unwrap_err();
            assert!(e.contains("integer in 1..=2147483648"), "{e}");
        }
        let sigma = ParamSpec {
            name: "sigma",
            kind: ParamKind::Bandwidth,
            default: None,
            doc: "",
        };
        assert_eq!(sigma.parse(&toml::Value::Integer(2)), Ok(Value::Float(2.0)));
        assert!(sigma.parse(&toml::Value::Float(-1.0)).is_err());
        assert!(sigma.parse(&toml::Value::Float(f64::NAN)).is_err());
        let rule: toml::Value =
            toml::from_str::<toml::Table>("r = { percentile = 5 }").unwrap()["r"].clone();
        assert_eq!(
            sigma.parse(&rule),
            Ok(Value::Rule(BandwidthRule {
                percentile: 5.0,
                pairs: 10_000
            }))
        );
        let bad: toml::Value =
            toml::from_str::<toml::Table>("r = { percentile = 0 }").unwrap()["r"].clone();
        assert!(sigma.parse(&bad).unwrap_err().contains("(0, 100]"));
        let table = |text: &str| toml::from_str::<toml::Table>(text).unwrap()["r"].clone();
        let search = sigma.parse(&table("r = { cv = [0.5, 1, 2] }")).unwrap();
        assert_eq!(
            search,
            Value::Search(BandwidthSearch {
                candidates: vec![0.5, 1.0, 2.0],
                folds: 3
            })
        );
        assert_eq!(search.to_string(), "cv over 0.5 1 2 (3 folds)");
        for (text, needle) in [
            ("r = { cv = [1.0] }", "at least two"),
            ("r = { cv = [1.0, 1.0] }", "twice"),
            ("r = { cv = [1.0, -2.0] }", "> 0"),
            ("r = { cv = [1.0, 2.0], folds = 1 }", "folds"),
            ("r = { cv = [1.0, 2.0], fold = 3 }", "unknown key `fold`"),
            ("r = { cv = 2.0 }", "list"),
        ] {
            let err = sigma.parse(&table(text)).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
        let form = choice("form", &["paired", "phase"], "paired", "");
        assert!(form
            .parse(&toml::Value::String("cos".into()))
            .unwrap_err()
            .contains("one of [\"paired\", \"phase\"]"));
    }

    #[test]
    fn display_is_the_csv_and_seed_key_form() {
        assert_eq!(Value::Float(0.0).to_string(), "0");
        assert_eq!(Value::Float(1.0).to_string(), "1");
        assert_eq!(Value::Float(0.5).to_string(), "0.5");
        assert_eq!(Value::Int(500).to_string(), "500");
    }
}
