//! Values a cell chooses rather than the spec: a kernel's bandwidth by a rule or by
//! cross-validation, a learner's penalty by cross-validation. Components report each as a
//! [`Tuned`]; its result columns are named here, once ([`TunedColumns`]), and the spec's metric
//! columns, the metrics builder and the runner's edge warnings all take the names from here.

/// Who chose the value; it names the column. The names are those of the committed results: a
/// kernel's bandwidth is written to `sigma_used`, a learner's parameter to `C_chosen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChosenBy {
    Kernel,
    Learner,
}

/// A value a cell chose for `param`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuned {
    pub param: String,
    pub by: ChosenBy,
    pub chosen: f64,
    /// Whether cross-validation chose the first or last value of the range it searched (the
    /// optimum may then lie beyond it); `None` when nothing was searched (a bandwidth rule, a
    /// learner's fixed C).
    pub at_edge: Option<bool>,
}

impl Tuned {
    /// The columns this value may be written to (`at_edge` included: whether it is written
    /// depends on the plan, the runner's `MetricsBuilder::tuned`).
    pub fn columns(&self) -> TunedColumns {
        TunedColumns::new(&self.param, self.by, true)
    }
}

/// The result columns of a tuned parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TunedColumns {
    pub param: String,
    /// The value chosen: `{param}_used` for a kernel, `{param}_chosen` for a learner.
    pub chosen: String,
    /// `{param}_at_edge` (1 or 0; NaN on a row where nothing was searched), when the parameter
    /// may be searched.
    pub at_edge: Option<String>,
}

impl TunedColumns {
    pub fn new(param: &str, by: ChosenBy, searched: bool) -> TunedColumns {
        let suffix = match by {
            ChosenBy::Kernel => "used",
            ChosenBy::Learner => "chosen",
        };
        TunedColumns {
            param: param.to_string(),
            chosen: format!("{param}_{suffix}"),
            at_edge: searched.then(|| format!("{param}_at_edge")),
        }
    }

    /// The column names, `chosen` first.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.chosen.as_str()).chain(self.at_edge.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_keep_the_names_of_the_committed_results() {
        let sigma = TunedColumns::new("sigma", ChosenBy::Kernel, true);
        assert_eq!(
            sigma.names().collect::<Vec<_>>(),
            ["sigma_used", "sigma_at_edge"]
        );
        let rule = TunedColumns::new("sigma", ChosenBy::Kernel, false);
        assert_eq!(rule.names().collect::<Vec<_>>(), ["sigma_used"]);
        let c = TunedColumns::new("C", ChosenBy::Learner, true);
        assert_eq!(c.names().collect::<Vec<_>>(), ["C_chosen", "C_at_edge"]);
    }
}
