//! The interval a real parameter must lie in, declared once beside the map that checks it (as
//! an associated constant such as `NystroemParams::EIGENVALUE_CUTOFF`): the map's `check()`
//! tests values against it, and the runner's registry types a spec's value, prints it in
//! `rfbench maps` and documents it from the same constant, so the two cannot disagree.

use std::fmt;

/// A set of finite reals between `min` and `max`, each end included or not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub min: f64,
    pub max: f64,
    pub open_min: bool,
    pub open_max: bool,
}

impl Interval {
    /// `(0, inf)`.
    pub const POSITIVE: Interval = Interval::from(0.0, true);
    /// `[0, inf)`.
    pub const NON_NEGATIVE: Interval = Interval::from(0.0, false);

    /// From `min` (excluded when `open`) to infinity.
    pub const fn from(min: f64, open: bool) -> Interval {
        Interval {
            min,
            max: f64::INFINITY,
            open_min: open,
            open_max: true,
        }
    }

    /// Whether `v` is finite and inside.
    pub fn contains(&self, v: f64) -> bool {
        let above = if self.open_min {
            v > self.min
        } else {
            v >= self.min
        };
        let below = if self.open_max {
            v < self.max
        } else {
            v <= self.max
        };
        v.is_finite() && above && below
    }
}

impl fmt::Display for Interval {
    /// `number > 0`, `number >= 0 and < 1`: how `rfbench maps` and spec errors say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lo = if self.open_min { ">" } else { ">=" };
        write!(f, "number {lo} {}", self.min)?;
        if self.max.is_finite() {
            let hi = if self.open_max { "<" } else { "<=" };
            write!(f, " and {hi} {}", self.max)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_are_included_as_declared() {
        let unit = Interval {
            min: 0.0,
            max: 1.0,
            open_min: false,
            open_max: true,
        };
        assert!(unit.contains(0.0) && unit.contains(0.5));
        assert!(!unit.contains(1.0) && !unit.contains(-1e-300) && !unit.contains(f64::NAN));
        assert!(!Interval::POSITIVE.contains(0.0) && Interval::POSITIVE.contains(1e-300));
        assert!(!Interval::POSITIVE.contains(f64::INFINITY));
        assert!(Interval::NON_NEGATIVE.contains(0.0));
        assert_eq!(unit.to_string(), "number >= 0 and < 1");
        assert_eq!(Interval::POSITIVE.to_string(), "number > 0");
    }
}
