//! Python values and constructor calls, written as code (the answer's snippet: comments,
//! imports, `model = Pipeline([...])`, calls broken one argument a line past [`WIDTH`]) and as
//! JSON (`answer.json`'s steps). Numbers are written with Rust's shortest round-trip form
//! (`{:?}`), which Python reads back to the same double.

use serde_json::{json, Map, Value};

/// A Python value in a constructor call.
#[derive(Debug, Clone, PartialEq)]
pub enum Py {
    Float(f64),
    Int(i64),
    Text(String),
    Bool(bool),
    None,
    Tuple(Vec<Py>),
    /// An object built in place (a kernel, a wrapped regressor).
    Object(Object),
    /// A function passed by name (`laplacian_kernel` to `functools.partial`).
    Function {
        module: &'static str,
        name: &'static str,
    },
}

/// A constructor call: `module.class(args..., name=value, ...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    pub module: &'static str,
    pub class: &'static str,
    pub args: Vec<Py>,
    pub params: Vec<(String, Py)>,
}

impl Object {
    pub fn new(module: &'static str, class: &'static str) -> Object {
        Object {
            module,
            class,
            args: Vec::new(),
            params: Vec::new(),
        }
    }

    pub fn with(mut self, name: &str, value: Py) -> Object {
        self.params.push((name.to_string(), value));
        self
    }
}

pub fn object_json(object: &Object) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("module".into(), object.module.into());
    out.insert("class".into(), object.class.into());
    if !object.args.is_empty() {
        out.insert("args".into(), object.args.iter().map(py_json).collect());
    }
    let params: Map<String, Value> = object
        .params
        .iter()
        .map(|(name, value)| (name.clone(), py_json(value)))
        .collect();
    out.insert("params".into(), Value::Object(params));
    out
}

fn py_json(value: &Py) -> Value {
    match value {
        Py::Float(v) => json!(v),
        Py::Int(v) => json!(v),
        Py::Text(v) => json!(v),
        Py::Bool(v) => json!(v),
        Py::None => Value::Null,
        Py::Tuple(items) => items.iter().map(py_json).collect(),
        Py::Object(object) => Value::Object(object_json(object)),
        Py::Function { module, name } => json!({ "function": format!("{module}.{name}") }),
    }
}

/// Lines are kept within this width where a call can be broken.
pub const WIDTH: usize = 88;

/// The snippet: the comments, the imports, `model = Pipeline([...])`.
pub fn pipeline_code(comments: &[String], steps: &[(&str, &Object)]) -> String {
    let mut imports: Vec<(&str, &str)> = vec![("sklearn.pipeline", "Pipeline")];
    for (_, object) in steps {
        collect_imports(object, &mut imports);
    }
    imports.sort();
    imports.dedup();
    let mut out = String::new();
    for comment in comments {
        out.push_str(&wrap_comment(comment));
    }
    let mut k = 0;
    while k < imports.len() {
        let module = imports[k].0;
        let names: Vec<&str> = imports[k..]
            .iter()
            .take_while(|(m, _)| *m == module)
            .map(|(_, n)| *n)
            .collect();
        k += names.len();
        out.push_str(&format!("from {module} import {}\n", names.join(", ")));
    }
    out.push_str("\nmodel = Pipeline(\n    [\n");
    for (name, object) in steps {
        let prefix = format!("(\"{name}\", ");
        let call = render(object, Some((8, 8 + prefix.len() + 2)));
        out.push_str(&format!("        {prefix}{call}),\n"));
    }
    out.push_str("    ]\n)\n# model.fit(X_train, y_train); model.score(X_test, y_test)\n");
    out
}

/// `# ` comment lines of at most [`WIDTH`] characters.
fn wrap_comment(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > WIDTH && line.len() > 1 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn collect_imports<'a>(object: &'a Object, out: &mut Vec<(&'a str, &'a str)>) {
    out.push((object.module, object.class));
    for value in object
        .args
        .iter()
        .chain(object.params.iter().map(|(_, v)| v))
    {
        match value {
            Py::Object(inner) => collect_imports(inner, out),
            Py::Function { module, name } => out.push((module, name)),
            _ => {}
        }
    }
}

/// `Class(args, name=value)` on one line when `at` is `None` or it fits in [`WIDTH`] from
/// column `at = (indent, used)`'s `used`, else one argument a line at `indent + 4`.
fn render(object: &Object, at: Option<(usize, usize)>) -> String {
    let args: Vec<String> = object
        .args
        .iter()
        .map(|v| render_value(v, None))
        .chain(
            object
                .params
                .iter()
                .map(|(n, v)| format!("{n}={}", render_value(v, None))),
        )
        .collect();
    let one_line = format!("{}({})", object.class, args.join(", "));
    let indent = match at {
        Some((indent, used)) if used + one_line.len() > WIDTH => indent,
        _ => return one_line,
    };
    let inner = indent + 4;
    let pad = " ".repeat(inner);
    let mut out = format!("{}(\n", object.class);
    let values = object.args.iter().map(|v| (String::new(), v));
    let named = object.params.iter().map(|(n, v)| (format!("{n}="), v));
    for (name, value) in values.chain(named) {
        let rendered = render_value(value, Some((inner, inner + name.len() + 1)));
        out.push_str(&format!("{pad}{name}{rendered},\n"));
    }
    out.push_str(&" ".repeat(indent));
    out.push(')');
    out
}

fn render_value(value: &Py, at: Option<(usize, usize)>) -> String {
    match value {
        Py::Float(v) => format!("{v:?}"),
        Py::Int(v) => v.to_string(),
        Py::Text(v) => serde_json::to_string(v).unwrap_or_default(),
        Py::Bool(true) => "True".into(),
        Py::Bool(false) => "False".into(),
        Py::None => "None".into(),
        Py::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|v| render_value(v, None)).collect();
            format!("({})", items.join(", "))
        }
        Py::Object(object) => render(object, at),
        Py::Function { name, .. } => name.to_string(),
    }
}
