//! Linear learners trained on random features (ridge regression, dual coordinate descent SVM) and
//! the exact-kernel baselines the papers compare against.
//!
//! The learners are tracked as their own work item; this crate is part of the workspace from the
//! start so that the layout of the design is fixed and `bench` can depend on it as it grows.
