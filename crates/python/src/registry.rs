//! The component registry's data (`rfbench-registry-data`) as plain Python data: every map and
//! exact kernel with its parameters (kind, range, default, doc). The Python classes build their
//! scikit-learn `_parameter_constraints` and defaults from it (`rfbench._registry`), so a range or
//! a default is written once, in the registry that also validates specs and generates
//! `docs/spec.md`.
//!
//! Dicts, lists and scalars only (each struct below becomes a dict with its field names as keys):
//! what to make of a parameter is the Python side's business.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use rfbench_registry_data::params::{Default as ParamDefault, ParamValues, Value as ParamValue};
use rfbench_registry_data::{KernelInfo, MapInfo, ParamKind, ParamSpec, KERNELS, MAPS};

use crate::error::value_error;

/// An end of a range: an integer parameter's stays a Python `int`.
#[derive(IntoPyObject)]
enum Number {
    Int(i64),
    Float(f64),
}

#[derive(IntoPyObject)]
enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(&'static str),
}

/// One parameter. `kind` is `"int"`, `"float"`, `"bool"`, `"choice"`, `"bandwidth"` (a number
/// `> 0` or a rule on the training rows) or `"number_or"` (a number `> 0` or the one word in
/// `choices`). `min`/`max` bound `"int"` and `"float"` (`None`: unbounded), each end excluded
/// when `open_min`/`open_max`; `choices` are a `"choice"`'s words. `default` is `None` when a
/// spec must give the value.
#[derive(IntoPyObject)]
struct Param {
    name: &'static str,
    kind: &'static str,
    min: Option<Number>,
    max: Option<Number>,
    open_min: bool,
    open_max: bool,
    choices: Vec<&'static str>,
    default: Option<Value>,
    doc: &'static str,
}

#[derive(IntoPyObject)]
struct Map {
    name: &'static str,
    label: &'static str,
    doc: &'static str,
    paper: &'static str,
    /// A random feature map (not `exact` or `none`).
    is_feature_map: bool,
    kernels: Vec<&'static str>,
    fits_on_data: bool,
    in_default_comparison: bool,
    params: Vec<Param>,
}

#[derive(IntoPyObject)]
struct Kernel {
    name: &'static str,
    formula: &'static str,
    params: Vec<Param>,
}

#[derive(IntoPyObject)]
struct Registry {
    maps: Vec<Map>,
    kernels: Vec<Kernel>,
}

fn param(p: &ParamSpec) -> Param {
    let finite = |v: f64| v.is_finite().then_some(Number::Float(v));
    let (kind, min, max, open_min, open_max, choices) = match p.kind {
        ParamKind::Int { min, max } => (
            "int",
            Some(Number::Int(min)),
            (max != i64::MAX).then_some(Number::Int(max)),
            false,
            false,
            vec![],
        ),
        ParamKind::Float(interval) => (
            "float",
            finite(interval.min),
            finite(interval.max),
            interval.open_min,
            interval.open_max,
            vec![],
        ),
        ParamKind::Bool => ("bool", None, None, false, false, vec![]),
        ParamKind::Choice(words) => ("choice", None, None, false, false, words.to_vec()),
        ParamKind::Bandwidth => ("bandwidth", None, None, false, false, vec![]),
        ParamKind::NumberOr(word) => (
            "number_or",
            Some(Number::Float(0.0)),
            None,
            true,
            true,
            vec![word],
        ),
    };
    Param {
        name: p.name,
        kind,
        min,
        max,
        open_min,
        open_max,
        choices,
        default: p.default.map(|d| match d {
            ParamDefault::Int(v) => Value::Int(v),
            ParamDefault::Float(v) => Value::Float(v),
            ParamDefault::Bool(v) => Value::Bool(v),
            ParamDefault::Text(v) => Value::Text(v),
        }),
        doc: p.doc,
    }
}

fn map(m: &MapInfo) -> Map {
    Map {
        name: m.name,
        label: m.label,
        doc: m.doc,
        paper: m.paper,
        is_feature_map: m.is_feature_map(),
        kernels: m.kernels.to_vec(),
        fits_on_data: m.fits_on_data,
        in_default_comparison: m.in_default_comparison,
        params: m.params.iter().map(param).collect(),
    }
}

fn kernel(k: &KernelInfo) -> Kernel {
    Kernel {
        name: k.name,
        formula: k.formula,
        params: k.params.iter().map(param).collect(),
    }
}

/// `{"maps": [...], "kernels": [...]}`: every entry of the registry's `MAPS` (with `exact` and
/// `none`, marked `is_feature_map = False`) and `KERNELS`, in the registry's order; not the
/// maps kept only as a paper's reading (`MapInfo::reading_of`: revrand's ORF), which the package
/// does not offer.
#[pyfunction]
fn registry() -> Registry {
    Registry {
        maps: MAPS
            .iter()
            .filter(|m| m.reading_of.is_none())
            .map(map)
            .collect(),
        kernels: KERNELS.iter().map(kernel).collect(),
    }
}

/// The registry's size model of map `name` (its `MapSize`, which the runner's memory check also
/// reads): `(output_dim, state)` in 8-byte values, for its integer parameters `params`, input
/// dimension `input_dim` and kernel degree (1 for kernels without one). `output_dim` is `None`
/// for a map that makes no features. The Python classes refuse a fit or transform that would not
/// fit in memory from it, before anything is allocated.
#[pyfunction]
fn map_size(
    name: &str,
    params: BTreeMap<String, i64>,
    input_dim: u64,
    degree: u64,
) -> PyResult<(Option<u128>, u128)> {
    let info = MAPS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| value_error(format!("the registry has no map {name:?}")))?;
    let values = ParamValues(
        params
            .into_iter()
            .map(|(k, v)| (k, ParamValue::Int(v)))
            .collect(),
    );
    let output_dim = (info.size.output_dim)(&values);
    let state = (info.size.state)(
        &values,
        output_dim.unwrap_or(0),
        u128::from(input_dim),
        u128::from(degree),
    );
    Ok((output_dim, state))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(map_size, m)?)
}
