//! Plan-time checks shared by the output sections: column names by role, selectors, `{…}`
//! templates and closed vocabularies. Every error names the key (`figures[1].y`, 0-based indices)
//! and its line in the spec, and lists what would have been accepted.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::results::Columns;
use crate::error::{Error, Result};
use crate::spec_error::{line_of, SpecError};

/// `column = value` pairs that pick cells (`where`, `select`, `left`, `right`, a paper cell's `row`).
/// Keys keep their spans so an unknown column is reported on its own line.
pub type RawSelector = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

pub struct Checker<'a> {
    pub text: &'a str,
    pub path: &'a Path,
    pub columns: &'a Columns,
    /// The metric of a paper value that names none ([`super::Outputs::default_metric`]).
    pub default_metric: Option<&'a str>,
}

impl Checker<'_> {
    pub fn error(&self, key: &str, span: &Range<usize>, message: impl std::fmt::Display) -> Error {
        SpecError::at(self.path, key, line_of(self.text, span), message).into()
    }

    /// `name` must be a coordinate column.
    pub fn coordinate(&self, key: &str, name: &Spanned<String>) -> Result<()> {
        let n = name.get_ref();
        if self.columns.is_coordinate(n) {
            return Ok(());
        }
        let role = if self.columns.is_metric(n) {
            " (it is a metric)"
        } else {
            ""
        };
        Err(self.error(
            key,
            &name.span(),
            format!(
                "unknown coordinate {n:?}{role}; known: {:?}",
                self.columns.coordinates
            ),
        ))
    }

    /// `name` must be a metric column.
    pub fn metric(&self, key: &str, name: &Spanned<String>) -> Result<()> {
        let n = name.get_ref();
        if self.columns.is_metric(n) {
            return Ok(());
        }
        let role = if self.columns.is_coordinate(n) {
            " (it is a coordinate)"
        } else {
            ""
        };
        Err(self.error(
            key,
            &name.span(),
            format!(
                "unknown metric {n:?}{role}; known: {:?}",
                self.columns.metrics
            ),
        ))
    }

    /// Every key a coordinate, every value an integer, float or string.
    pub fn selector(&self, key: &str, selector: &RawSelector) -> Result<()> {
        for (column, value) in selector {
            let key = format!("{key}.{}", column.get_ref());
            self.coordinate(&key, column)?;
            let scalar = |v: &toml::Value| {
                matches!(
                    v,
                    toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::String(_)
                )
            };
            let ok = match value.get_ref() {
                toml::Value::Array(items) => !items.is_empty() && items.iter().all(scalar),
                v => scalar(v),
            };
            if !ok {
                return Err(self.error(
                    &key,
                    &value.span(),
                    format!(
                        "a selector value is a number, a string or a non-empty list of them, \
                         got {}",
                        value.get_ref()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `value` must be one of `known`; `what` names the vocabulary ("relation").
    pub fn one_of(
        &self,
        key: &str,
        value: &Spanned<String>,
        what: &str,
        known: &[&str],
    ) -> Result<()> {
        if known.contains(&value.get_ref().as_str()) {
            return Ok(());
        }
        Err(self.error(
            key,
            &value.span(),
            format!("unknown {what} {:?}; known: {known:?}", value.get_ref()),
        ))
    }

    /// Outputs of one section (`figures`, `tables`) have distinct names, usable in file names,
    /// and at most one has none (the name is the file name's suffix). `items`: each output's
    /// name and a span to point at when it has none.
    pub fn unique_names<'a>(
        &self,
        section: &str,
        singular: &str,
        items: impl Iterator<Item = (Option<&'a Spanned<String>>, Range<usize>)>,
    ) -> Result<()> {
        let mut names = std::collections::BTreeMap::new();
        let mut unnamed: Option<usize> = None;
        for (i, (name, span)) in items.enumerate() {
            let key = format!("{section}[{i}]");
            match name {
                Some(name) => {
                    self.file_name(&format!("{key}.name"), name)?;
                    if let Some(first) = names.insert(name.get_ref().clone(), i) {
                        return Err(self.error(
                            &format!("{key}.name"),
                            &name.span(),
                            format!(
                                "{section}[{first}] already has the name {:?}",
                                name.get_ref()
                            ),
                        ));
                    }
                }
                None => {
                    if let Some(first) = unnamed {
                        return Err(self.error(
                            &key,
                            &span,
                            format!(
                                "{section}[{first}] already has no name; every other {singular} \
                                 needs `name = \"...\"` (it is the file name's suffix)"
                            ),
                        ));
                    }
                    unnamed = Some(i);
                }
            }
        }
        Ok(())
    }

    /// An output name must be usable in a file name, and must not be the name of a file the
    /// run writes itself (`PROFILE.claims.md`), which the output would overwrite.
    pub fn file_name(&self, key: &str, name: &Spanned<String>) -> Result<()> {
        let n = name.get_ref();
        if RESERVED_OUTPUT_NAMES.contains(&n.as_str()) {
            return Err(self.error(
                key,
                &name.span(),
                format!(
                    "{n:?} is reserved: the run writes PROFILE.{n}.md itself; choose another name"
                ),
            ));
        }
        if !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !n.starts_with('.')
        {
            return Ok(());
        }
        Err(self.error(
            key,
            &name.span(),
            format!(
                "{n:?} is not a file-name part: use letters, digits, '-', '_' and '.' \
                 (not first)"
            ),
        ))
    }
}

/// Output names the run's own files take (`results/SPEC/PROFILE.claims.md`).
pub const RESERVED_OUTPUT_NAMES: [&str; 1] = ["claims"];

/// A piece of a `{…}` template: literal text or a placeholder with an optional precision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Literal(String),
    Field {
        name: String,
        precision: Option<usize>,
    },
}

/// Parses `text {name} {name:.N}`; `{{` and `}}` are literal braces.
pub(crate) fn parse_template(template: &str) -> std::result::Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literal.push('}');
            }
            '}' => return Err("unmatched '}' (write '}}' for a literal brace)".into()),
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some('{') | None => {
                            return Err(format!(
                            "unclosed placeholder '{{{inner}' (write '{{{{' for a literal brace)"
                        ))
                        }
                        Some(c) => inner.push(c),
                    }
                }
                let (name, spec) = match inner.split_once(':') {
                    Some((name, spec)) => (name.trim(), Some(spec)),
                    None => (inner.trim(), None),
                };
                if name.is_empty() {
                    return Err(format!("empty placeholder '{{{inner}}}'"));
                }
                let precision = match spec {
                    None => None,
                    Some(spec) => Some(
                        spec.strip_prefix('.')
                            .and_then(|p| p.parse::<usize>().ok())
                            .ok_or_else(|| {
                                format!(
                                    "placeholder '{{{inner}}}': only a precision such as \
                                     ':.2' is supported"
                                )
                            })?,
                    ),
                };
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Field {
                    name: name.to_string(),
                    precision,
                });
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        assert_eq!(
            parse_template("a {mean:.2} {{x}} {m.sd}").unwrap(),
            vec![
                Piece::Literal("a ".into()),
                Piece::Field {
                    name: "mean".into(),
                    precision: Some(2)
                },
                Piece::Literal(" {x} ".into()),
                Piece::Field {
                    name: "m.sd".into(),
                    precision: None
                },
            ]
        );
        assert!(parse_template("{mean").is_err());
        assert!(parse_template("mean}").is_err());
        assert!(parse_template("{}").is_err());
        assert!(parse_template("{mean:>8}").is_err());
    }
}
