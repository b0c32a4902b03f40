//! The learners a spec can name, as data: parameters, tasks, what each trains on, its diagnostic
//! columns and the parameters it tunes. What each one runs (training, the check of its parameters
//! against its library, streamed training) is its wiring, in `rfbench-registry`'s `learners`,
//! which needs the learners themselves.

use super::params::{choice, count, positive, Default, ParamKind, ParamSpec, ParamValues};
use super::python::{SklearnLearner, SklearnLearnerKernel};
use super::tuned::{ChosenBy, TunedColumns};

/// Whether a dataset's targets are classes or real values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    Classification,
    Regression,
}

impl TaskKind {
    /// The learning kind's score of the task: accuracy (%) or RMSE.
    pub fn score_metric(self) -> &'static str {
        match self {
            TaskKind::Classification => crate::kinds::column::ACCURACY,
            TaskKind::Regression => crate::kinds::column::RMSE,
        }
    }
}

/// What a learner is trained on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Feature vectors (a random feature map's output, or the raw rows with map `none`).
    Features,
    /// The exact kernel on the raw rows (map `exact`).
    Kernel,
}

/// A registry entry. Its training and the check of its parameters are its wiring
/// (`rfbench_registry::learners::wiring`).
#[derive(Clone, Copy)]
pub struct LearnerInfo {
    pub name: &'static str,
    pub label: &'static str,
    pub doc: &'static str,
    pub params: &'static [ParamSpec],
    pub needs: Needs,
    pub tasks: &'static [TaskKind],
    /// Diagnostic columns it writes.
    pub extras: &'static [&'static str],
    /// Parameters it may choose by cross-validation: each writes the value used and whether it
    /// was at an edge of the range searched ([`TunedColumns`]).
    pub tunes: &'static [&'static str],
    /// Its regularisation parameter (`C`, `lambda`), the one `rfbench compare` tunes.
    pub penalty: Option<&'static str>,
    /// The tasks for which `rfbench compare` uses it by default: on the features (a learner
    /// that needs features) or on the exact kernel (one that needs the kernel).
    pub compare_default_for: &'static [TaskKind],
    /// For a learner on features: the exact-kernel machine that minimises the same loss (its
    /// kernelised form), which `rfbench compare` takes as the reference where it does the task.
    pub exact_counterpart: Option<&'static str>,
    /// Parameters `rfbench compare` sets on it, each to one of the parameter's choices (a test
    /// checks), in every spec it writes: the linear SVM's `solver = "auto"`, the primal Newton
    /// method where rows outnumber features (on 49,014 x 784 pixels the dual method ran 364 s to
    /// its iteration cap unconverged).
    pub compare_settings: &'static [(&'static str, &'static str)],
    /// scikit-learn's estimator of the same problem, for the answer's code: the linear SVM's
    /// `LinearSVC` (LIBLINEAR's problem, squared hinge, the same `C`), ridge's `Ridge` or
    /// `RidgeClassifier` (`alpha = lambda`), the kernel SVM's `SVC` (LIBSVM's C-SVC), kernel
    /// ridge's `KernelRidge` on centred targets.
    pub sklearn: Option<SklearnLearner>,
}

impl LearnerInfo {
    /// Whether its penalty can be chosen by cross-validation (`C = "cv"`).
    pub fn tunes_penalty(&self) -> bool {
        self.penalty.is_some_and(|p| self.tunes.contains(&p))
    }

    pub fn does(&self, task: TaskKind) -> bool {
        self.tasks.contains(&task)
    }

    /// The columns it writes beside the kind's metrics: its diagnostics, then each tuned
    /// parameter's.
    pub fn columns(&self) -> Vec<String> {
        let mut columns: Vec<String> = self.extras.iter().map(|e| e.to_string()).collect();
        for tuned in self.tuned_columns() {
            columns.extend(tuned.names().map(str::to_string));
        }
        columns
    }

    /// The columns of its tuned parameters.
    pub fn tuned_columns(&self) -> impl Iterator<Item = TunedColumns> + '_ {
        self.tunes
            .iter()
            .map(|p| TunedColumns::new(p, ChosenBy::Learner, true))
    }
}

/// How many times training with `params` goes over its training rows: once, or, where a learner
/// with folds has no number for its `C` or `lambda` (absent, or ridge's `"cv"`) and so chooses it
/// by cross-validation, once per fold and once more for the final model. The candidates within a
/// fold are not counted: ridge and kernel ridge share one factorisation per fold across them, and
/// for the linear SVM this undercounts by its grid's size. The runner's scheduler orders runs by
/// it (`rfbench::schedule`).
pub fn fits(params: &ParamValues) -> usize {
    let number = |name| params.get(name).and_then(|v| v.as_f64()).is_some();
    match params.get("folds").and_then(|v| v.as_usize()) {
        Some(folds) if !number("C") && !number("lambda") => folds + 1,
        _ => 1,
    }
}

const C: ParamSpec = positive("C", Some(1.0), "penalty of the hinge losses");
const C_OR_CV: ParamSpec = ParamSpec {
    name: "C",
    kind: ParamKind::NumberOr("cv"),
    default: Some(Default::Float(1.0)),
    doc: "penalty of the hinge losses, or \"cv\": k-fold cross-validation on the training rows over 2^-5..2^5, extended while at an edge up to 2^-15..2^15",
};
/// LIBLINEAR's `-B`, shared by the linear models.
const BIAS: ParamSpec = ParamSpec {
    name: "bias",
    kind: ParamKind::Float(rfbench_maps::Interval::NON_NEGATIVE),
    default: Some(Default::Float(1.0)),
    doc: "value of the appended constant feature (LIBLINEAR -B); 0 for none",
};

/// `max_iter` of the linear models: `doc` says what one iteration is.
const fn max_iter(doc: &'static str) -> ParamSpec {
    ParamSpec {
        name: "max_iter",
        kind: ParamKind::Int {
            min: 1,
            max: 1 << 31,
        },
        default: Some(Default::Int(1000)),
        doc,
    }
}

const FOLDS: ParamSpec = ParamSpec {
    name: "folds",
    kind: ParamKind::Int { min: 2, max: 100 },
    default: Some(Default::Int(5)),
    doc: "folds of the cross-validation",
};
const BOTH: &[TaskKind] = &[TaskKind::Classification, TaskKind::Regression];

const LINEAR_MODEL: &str = "sklearn.linear_model";

/// Every learner, in the order `rfbench learners` lists them.
pub const LEARNERS: &[LearnerInfo] = &[LINEAR_SVM, LOGISTIC, RIDGE, KERNEL_SVM, KERNEL_RIDGE];

pub const LINEAR_SVM: LearnerInfo = LearnerInfo {
    name: "linear-svm",
    label: "linear SVM",
    doc: "Linear SVM, one-vs-rest, by LIBLINEAR's solvers: dual coordinate descent or the primal trust-region Newton method.",
    params: &[
        C_OR_CV,
        FOLDS,
        choice("loss", &["l1", "l2"], "l2", "l1: hinge (LIBLINEAR -s 3); l2: squared hinge (-s 1, its default)"),
        choice("solver", &["dual", "primal", "auto"], "dual", "dual: coordinate descent (-s 1 / -s 3); primal: trust-region Newton (-s 2, squared hinge only); auto: primal when rows >= features, else 50 dual passes and primal if they did not converge (column primal says which ran)"),
        ParamSpec {
            name: "eps",
            kind: ParamKind::NumberOr("default"),
            default: Some(Default::Text("default")),
            doc: "stopping tolerance (LIBLINEAR -e), or \"default\": LIBLINEAR's for the solver that runs (0.1 on the dual's projected-gradient gap, 0.01 on the primal's |g| / |g0|)",
        },
        BIAS,
        max_iter("passes over the data (dual) or Newton steps (primal) before stopping unconverged"),
    ],
    needs: Needs::Features,
    tasks: &[TaskKind::Classification],
    extras: &["iterations", "converged", "primal"],
    tunes: &["C"],
    penalty: Some("C"),
    compare_default_for: &[TaskKind::Classification],
    exact_counterpart: Some("kernel-svm"),
    compare_settings: &[("solver", "auto")],
    sklearn: Some(SklearnLearner {
        module: "sklearn.svm",
        class: "LinearSVC",
        classifier: None,
        penalty: "C",
        settings: &[("dual", Default::Text("auto"))],
        kernel: None,
    }),
};

pub const LOGISTIC: LearnerInfo = LearnerInfo {
    name: "logistic",
    label: "logistic regression",
    doc: "L2-regularised logistic regression by the trust-region Newton method (LIBLINEAR -s 0), one-vs-rest.",
    params: &[
        positive("C", Some(1.0), "cost of the logistic loss (LIBLINEAR -c)"),
        positive("eps", Some(0.01), "tolerance on |g| / |g0|, scaled by the smaller class's share (LIBLINEAR -e)"),
        BIAS,
        max_iter("Newton steps before stopping unconverged"),
    ],
    needs: Needs::Features,
    tasks: &[TaskKind::Classification],
    extras: &["iterations", "converged"],
    tunes: &[],
    penalty: Some("C"),
    compare_default_for: &[],
    exact_counterpart: None,
    compare_settings: &[],
    sklearn: Some(SklearnLearner {
        module: LINEAR_MODEL,
        class: "LogisticRegression",
        classifier: None,
        penalty: "C",
        settings: &[("max_iter", Default::Int(1000))],
        kernel: None,
    }),
};

pub const RIDGE: LearnerInfo = LearnerInfo {
    name: "ridge",
    label: "ridge",
    doc: "Ridge regression / one-vs-rest ridge classifier by Cholesky of Z'Z + lambda I.",
    params: &[
        ParamSpec {
            name: "lambda",
            kind: ParamKind::NumberOr("cv"),
            default: Some(Default::Text("cv")),
            doc: "regularisation, or \"cv\": k-fold cross-validation on the training rows",
        },
        FOLDS,
    ],
    needs: Needs::Features,
    tasks: BOTH,
    extras: &[],
    tunes: &["lambda"],
    penalty: Some("lambda"),
    compare_default_for: &[TaskKind::Regression],
    exact_counterpart: Some("kernel-ridge"),
    compare_settings: &[],
    sklearn: Some(SklearnLearner {
        module: LINEAR_MODEL,
        class: "Ridge",
        classifier: Some("RidgeClassifier"),
        penalty: "alpha",
        settings: &[],
        kernel: None,
    }),
};

pub const KERNEL_SVM: LearnerInfo = LearnerInfo {
    name: "kernel-svm",
    label: "kernel SVM",
    doc: "The exact kernel SVM at LIBSVM's scale (its C-SVC: SMO with second-order working-set \
          selection, shrinking, free intercept, a bounded LRU cache of kernel rows, one-vs-one); \
          needs map \"exact\".",
    params: &[
        C,
        positive("eps", Some(1e-3), "stopping tolerance (LIBSVM -e)"),
        count("cache_mb", Some(200), "kernel-row cache in MiB (LIBSVM -m; f64 values, so twice LIBSVM's size for the same rows)"),
    ],
    needs: Needs::Kernel,
    tasks: &[TaskKind::Classification],
    extras: &["iterations", "converged", "support_vectors"],
    tunes: &[],
    penalty: Some("C"),
    compare_default_for: &[TaskKind::Classification],
    exact_counterpart: None,
    compare_settings: &[],
    sklearn: Some(SklearnLearner {
        module: "sklearn.svm",
        class: "SVC",
        classifier: None,
        penalty: "C",
        settings: &[],
        kernel: Some(SklearnLearnerKernel::Svc),
    }),
};

pub const KERNEL_RIDGE: LearnerInfo = LearnerInfo {
    name: "kernel-ridge",
    label: "kernel ridge",
    doc: "Exact kernel ridge regression (Cholesky of K + lambda I); needs map \"exact\".",
    params: &[
        ParamSpec {
            name: "lambda",
            kind: ParamKind::NumberOr("cv"),
            default: Some(Default::Text("cv")),
            doc: "regularisation, or \"cv\": k-fold cross-validation on the training rows (2^-10..2^10, extended while at an edge up to 2^-30..2^30)",
        },
        FOLDS,
    ],
    needs: Needs::Kernel,
    tasks: &[TaskKind::Regression],
    extras: &[],
    tunes: &["lambda"],
    penalty: Some("lambda"),
    compare_default_for: &[TaskKind::Regression],
    exact_counterpart: None,
    compare_settings: &[],
    sklearn: Some(SklearnLearner {
        module: "sklearn.kernel_ridge",
        class: "KernelRidge",
        classifier: None,
        penalty: "alpha",
        settings: &[],
        kernel: Some(SklearnLearnerKernel::CentredRidge),
    }),
};

impl std::fmt::Debug for LearnerInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "learner {:?}", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{defaults, Value};

    /// Cross-validation is counted where a learner has folds and no number to use: ridge's
    /// default lambda is "cv", the linear SVM's C is searched when absent.
    #[test]
    fn a_cross_validated_learner_fits_once_per_fold_and_once_more() {
        let ridge = defaults(RIDGE.params);
        assert_eq!(fits(&ridge), 6, "{ridge:?}");
        let mut fixed = ridge.clone();
        fixed.0.insert("lambda".into(), Value::Float(0.1));
        assert_eq!(fits(&fixed), 1);
        let mut svm = defaults(LINEAR_SVM.params);
        svm.0.insert("folds".into(), Value::Int(3));
        svm.0.remove("C");
        assert_eq!(fits(&svm), 4, "{svm:?}");
        svm.0.insert("C".into(), Value::Float(1.0));
        assert_eq!(fits(&svm), 1);
        assert_eq!(fits(&defaults(KERNEL_SVM.params)), 1);
    }

    /// Every value compare sets is one of the parameter's choices, on a parameter the learner
    /// takes.
    #[test]
    fn compare_sets_only_a_learners_own_choices() {
        for learner in crate::LEARNERS {
            for (name, value) in learner.compare_settings {
                let param = learner.params.iter().find(|p| p.name == *name);
                let words = match param.map(|p| p.kind) {
                    Some(crate::ParamKind::Choice(words)) => words,
                    other => panic!("{learner:?}: compare sets {name}, a {other:?}"),
                };
                assert!(words.contains(value), "{learner:?}: {name} = {value:?}");
            }
        }
        assert!(!LINEAR_SVM.compare_settings.is_empty());
    }
}
