//! One coordinate of a results row, with one parse ([`CellValue::parse`]) and one CSV form
//! ([`CellValue::to_field`]) that are each other's inverse on every committed results file
//! (tested), and one display for people ([`fmt::Display`]: labels, tables, messages).

use std::cmp::Ordering;
use std::fmt;

use rfbench_registry::Value;

/// Empty (not applicable to this row), an integer, a float or a name.
///
/// Integers and floats are kept apart so that a value is written back as it was read (`100`,
/// `100.0`); they compare as numbers (`1 == 1.0`). Ordered Empty < numbers (by value) < texts, so
/// sorting cells gives the order a reader expects (D = 500 before D = 1000).
#[derive(Debug, Clone)]
pub enum CellValue {
    Empty,
    Int(i64),
    Float(f64),
    Text(String),
}

/// The CSV forms of the non-finite floats (Rust's `{:?}`); other spellings ("nan") are names.
const NON_FINITE: [&str; 3] = ["NaN", "inf", "-inf"];

impl CellValue {
    /// A CSV field: empty -> `Empty`, an integer -> `Int`, a float -> `Float` (`-0` read as `0`,
    /// so the two group together), anything else -> `Text`.
    pub fn parse(field: &str) -> CellValue {
        let field = field.trim();
        if field.is_empty() {
            return CellValue::Empty;
        }
        if let Ok(i) = field.parse::<i64>() {
            return CellValue::Int(i);
        }
        match field.parse::<f64>() {
            Ok(v) if v.is_finite() || NON_FINITE.contains(&field) => CellValue::number(v),
            _ => CellValue::Text(field.to_string()),
        }
    }

    /// A float, `-0` stored as `0`.
    pub fn number(v: f64) -> CellValue {
        CellValue::Float(if v == 0.0 { 0.0 } else { v })
    }

    /// The text written to a CSV field: integers plainly, floats in Rust's shortest round-trip
    /// form with a decimal point or exponent (`{:?}`: `1.0`, `1e-20`), so reading it back gives
    /// the same bits and the same text.
    pub fn to_field(&self) -> String {
        match self {
            CellValue::Empty => String::new(),
            CellValue::Int(i) => i.to_string(),
            CellValue::Float(v) => format!("{v:?}"),
            CellValue::Text(t) => t.clone(),
        }
    }

    /// The value as a number: an `Int`, a `Float`, or a `Text` that parses as one.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            CellValue::Empty => None,
            CellValue::Int(i) => Some(*i as f64),
            CellValue::Float(v) => Some(*v),
            CellValue::Text(t) => t.parse::<f64>().ok(),
        }
    }

    /// Whether a TOML selector value names this value: equal as numbers (1 = 1.0 = "1") or, failing
    /// that, as texts. Only an empty string selects an empty cell.
    pub fn matches(&self, selector: &toml::Value) -> bool {
        let (number, text) = match selector {
            // A list selects any of its values (`n_components = [200, 300]`).
            toml::Value::Array(items) => return items.iter().any(|i| self.matches(i)),
            toml::Value::Integer(i) => (Some(*i as f64), i.to_string()),
            toml::Value::Float(f) => (Some(*f), f.to_string()),
            toml::Value::String(s) => (s.trim().parse::<f64>().ok(), s.clone()),
            _ => return false,
        };
        if let (Some(a), Some(b)) = (self.as_number(), number) {
            if a == b {
                return true;
            }
        }
        self.to_string() == text
    }

    /// The value a selector names, for a table row or column the results do not have.
    pub fn from_selector(selector: &toml::Value) -> CellValue {
        match selector {
            toml::Value::Integer(i) => CellValue::Int(*i),
            toml::Value::Float(f) => CellValue::number(*f),
            toml::Value::String(s) => CellValue::parse(s),
            other => CellValue::Text(other.to_string()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            CellValue::Empty => 0,
            CellValue::Int(_) | CellValue::Float(_) => 1,
            CellValue::Text(_) => 2,
        }
    }
}

/// A plan's coordinate as the results hold it.
impl From<&Value> for CellValue {
    fn from(value: &Value) -> CellValue {
        match value {
            Value::Int(i) => CellValue::Int(*i),
            Value::Float(v) => CellValue::Float(*v),
            other => CellValue::Text(other.to_string()),
        }
    }
}

/// For people: `""`, an integer, the shortest text that reads back as the same f64 (`0`, `0.5`,
/// `1000`), or the text.
impl fmt::Display for CellValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CellValue::Empty => Ok(()),
            CellValue::Int(i) => write!(f, "{i}"),
            CellValue::Float(v) => write!(f, "{v}"),
            CellValue::Text(t) => f.write_str(t),
        }
    }
}

impl Ord for CellValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (CellValue::Text(a), CellValue::Text(b)) => a.cmp(b),
            _ if self.rank() == 1 && other.rank() == 1 => {
                let (a, b) = (self.as_number(), other.as_number());
                // Both are numbers; `+ 0.0` makes -0 equal to 0.
                (a.unwrap_or(0.0) + 0.0).total_cmp(&(b.unwrap_or(0.0) + 0.0))
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for CellValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for CellValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for CellValue {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_back_as_they_were_written() {
        for field in [
            "", "100", "100.0", "0.5", "1e-20", "NaN", "inf", "-3", "adult", "nan",
        ] {
            assert_eq!(CellValue::parse(field).to_field(), field, "{field:?}");
        }
        assert_eq!(CellValue::parse("100"), CellValue::Int(100));
        assert_eq!(CellValue::parse("nan"), CellValue::Text("nan".into()));
        assert_eq!(CellValue::from(&Value::Float(1000.0)).to_field(), "1000.0");
        assert_eq!(CellValue::from(&Value::Int(7)).to_field(), "7");
        assert_eq!(CellValue::from(&Value::Bool(true)).to_field(), "true");
    }

    #[test]
    fn display_order_and_match() {
        assert_eq!(CellValue::parse("1000.0").to_string(), "1000");
        assert_eq!(CellValue::parse("0.50").to_string(), "0.5");
        assert_eq!(CellValue::parse("-0.0").to_string(), "0");
        assert_eq!(CellValue::parse("").to_string(), "");
        assert_eq!(CellValue::parse("1000"), CellValue::parse("1000.0"));
        assert_eq!(
            CellValue::parse("tensor-sketch"),
            CellValue::Text("tensor-sketch".into())
        );
        let mut v = [
            CellValue::parse("b"),
            CellValue::parse("1000"),
            CellValue::parse(""),
            CellValue::parse("500.0"),
            CellValue::parse("a"),
        ];
        v.sort();
        let shown: Vec<String> = v.iter().map(|c| c.to_string()).collect();
        assert_eq!(shown, ["", "500", "1000", "a", "b"]);

        let one = CellValue::parse("1");
        assert!(one.matches(&toml::Value::Integer(1)));
        assert!(one.matches(&toml::Value::Float(1.0)));
        assert!(one.matches(&toml::Value::String("1".into())));
        assert!(one.matches(&toml::Value::String("1.0".into())));
        assert!(!one.matches(&toml::Value::Integer(2)));
        assert!(!one.matches(&toml::Value::Boolean(true)));
        assert!(CellValue::parse("0.5").matches(&toml::Value::Float(0.5)));
        assert!(!CellValue::parse("0.5").matches(&toml::Value::Integer(0)));
        let adult = CellValue::parse("adult");
        assert!(adult.matches(&toml::Value::String("adult".into())));
        assert!(!adult.matches(&toml::Value::Integer(1)));
        assert!(CellValue::Empty.matches(&toml::Value::String(String::new())));
        assert!(!CellValue::Empty.matches(&toml::Value::Integer(0)));
    }
}
