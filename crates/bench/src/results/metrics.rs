//! A row's metrics, filled through a builder that knows the plan's metric columns: a name the
//! plan does not declare (a misspelling in a kind or a learner) is an error naming it, not a
//! silently empty column, and a value set twice is one too.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use rfbench_registry::Tuned;

/// The metrics a row has a value for, by column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics(BTreeMap<String, f64>);

impl Metrics {
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// Metrics read back from a results file (the file's header declared them).
    pub(crate) fn read(values: BTreeMap<String, f64>) -> Metrics {
        Metrics(values)
    }

    /// Adds a metric computed when the file is read (a spec's `[sums]`).
    pub(crate) fn add_derived(&mut self, name: &str, value: f64) {
        self.0.insert(name.to_string(), value);
    }
}

/// Fills one row's metrics, checked against the plan's metric columns.
#[derive(Debug)]
pub struct MetricsBuilder<'a> {
    declared: &'a [String],
    values: BTreeMap<String, f64>,
}

impl<'a> MetricsBuilder<'a> {
    /// A builder for a plan whose metric columns are `declared`.
    pub fn new(declared: &'a [String]) -> MetricsBuilder<'a> {
        MetricsBuilder {
            declared,
            values: BTreeMap::new(),
        }
    }

    fn declares(&self, name: &str) -> bool {
        self.declared.iter().any(|d| d == name)
    }

    /// Sets metric `name`; an undeclared name or a second value is an error (a defect in the
    /// component that reports it: its registry entry and its code disagree).
    pub fn set(&mut self, name: &str, value: f64) -> Result<&mut Self> {
        if !self.declares(name) {
            return Err(Error::Experiment(format!(
                "metric {name:?} is not a column of this plan (its metrics: {:?}); the registry \
                 entry of the component that reports it must declare it",
                self.declared
            )));
        }
        if self.values.contains_key(name) {
            return Err(Error::Experiment(format!(
                "metric {name:?} was reported twice for one row"
            )));
        }
        self.values.insert(name.to_string(), value);
        Ok(self)
    }

    /// Sets a tuned value's columns: the value chosen, and whether it was at an edge of the range
    /// searched (1 / 0; NaN when this row searched nothing but the column exists, as for a
    /// learner's fixed C).
    pub fn tuned(&mut self, tuned: &Tuned) -> Result<&mut Self> {
        let columns = tuned.columns();
        self.set(&columns.chosen, tuned.chosen)?;
        let at_edge = columns.at_edge.unwrap_or_default();
        match tuned.at_edge {
            Some(edge) => self.set(&at_edge, f64::from(u8::from(edge))),
            None if self.declares(&at_edge) => self.set(&at_edge, f64::NAN),
            None => Ok(self),
        }
    }

    /// Sets every `(name, value)`.
    pub fn extend<'n>(
        &mut self,
        values: impl IntoIterator<Item = (&'n str, f64)>,
    ) -> Result<&mut Self> {
        for (name, value) in values {
            self.set(name, value)?;
        }
        Ok(self)
    }

    pub fn finish(self) -> Metrics {
        Metrics(self.values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rfbench_registry::ChosenBy;

    fn declared() -> Vec<String> {
        ["accuracy", "C_chosen", "C_at_edge", "sigma_used"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn an_undeclared_or_repeated_metric_is_an_error() {
        let declared = declared();
        let mut m = MetricsBuilder::new(&declared);
        m.set("accuracy", 0.5).unwrap();
        let err = m.set("acuracy", 0.5).unwrap_err().to_string();
        assert!(
            err.contains("\"acuracy\"") && err.contains("accuracy"),
            "{err}"
        );
        let err = m.set("accuracy", 0.6).unwrap_err().to_string();
        assert!(err.contains("twice"), "{err}");
        assert_eq!(m.finish().get("accuracy"), Some(0.5));
    }

    #[test]
    fn tuned_values_fill_their_columns() {
        let declared = declared();
        let tuned = |param: &str, by, at_edge| Tuned {
            param: param.into(),
            by,
            chosen: 2.0,
            at_edge,
        };
        let mut m = MetricsBuilder::new(&declared);
        m.tuned(&tuned("C", ChosenBy::Learner, Some(true))).unwrap();
        m.tuned(&tuned("sigma", ChosenBy::Kernel, None)).unwrap();
        let m = m.finish();
        assert_eq!(
            (m.get("C_chosen"), m.get("C_at_edge"), m.get("sigma_used")),
            (Some(2.0), Some(1.0), Some(2.0))
        );
        assert_eq!(m.get("sigma_at_edge"), None);

        let mut m = MetricsBuilder::new(&declared);
        m.tuned(&tuned("C", ChosenBy::Learner, None)).unwrap();
        assert!(m.finish().get("C_at_edge").unwrap().is_nan());
        // A search needs its edge column.
        let mut m = MetricsBuilder::new(&declared);
        let err = m
            .tuned(&tuned("sigma", ChosenBy::Kernel, Some(false)))
            .unwrap_err();
        assert!(err.to_string().contains("sigma_at_edge"), "{err}");
    }
}
