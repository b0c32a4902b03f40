//! The life cycle of every learner's hyper-parameters, linfa's: the unchecked `XxxParams` (builder
//! setters) wraps the `XxxValidParams` it becomes; [`ParamGuard::check_ref`] checks it in place,
//! [`ParamGuard::check`] hands it over, and only valid parameters can `fit`. The trait is linfa's
//! own, so linfa's `Fit` on the unchecked parameters comes with it wherever the valid ones have
//! one.
//!
//! Each learner writes only what is its own: its fields, defaults, setters and checks (a private
//! `fn validate(&self) -> Result<()>` on the valid parameters). [`param_guard!`] writes the rest.

pub use linfa::ParamGuard;

/// For each `$params($valid)` whose `$valid` has `fn validate(&self) -> Result<()>`: linfa's
/// [`ParamGuard`], an inherent `check()` (so that callers need not import the trait), `new()` (the
/// defaults) and `From<$valid>` (to change a checked value and check it again).
macro_rules! param_guard {
    ($($params:ident => $valid:ident),* $(,)?) => {$(
        impl $crate::ParamGuard for $params {
            type Checked = $valid;
            type Error = $crate::LearnerError;

            fn check_ref(&self) -> $crate::Result<&$valid> {
                self.0.validate()?;
                Ok(&self.0)
            }

            fn check(self) -> $crate::Result<$valid> {
                self.0.validate()?;
                Ok(self.0)
            }
        }

        impl $params {
            /// The defaults.
            pub fn new() -> Self {
                Self::default()
            }

            /// The valid parameters, or the first invalid value as an error
            /// ([`ParamGuard::check`](crate::ParamGuard::check)).
            pub fn check(self) -> $crate::Result<$valid> {
                $crate::ParamGuard::check(self)
            }
        }

        impl From<$valid> for $params {
            fn from(valid: $valid) -> Self {
                Self(valid)
            }
        }
    )*};
}

pub(crate) use param_guard;
