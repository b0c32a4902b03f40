//! The whole command's clock: every line compare prints says how much of the budget is spent
//! and, once the sweep is planned, the estimated end.

use std::time::Instant;

/// The whole command's clock: every line it prints says how much of the budget is spent and,
/// once the sweep is planned, the estimated end.
pub struct Progress {
    start: Instant,
    budget: f64,
    end: std::cell::Cell<Option<f64>>,
}

impl Progress {
    pub fn new(budget: f64) -> Self {
        Progress {
            start: Instant::now(),
            budget,
            end: std::cell::Cell::new(None),
        }
    }

    /// Seconds since the command started.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// The end the plan expects, `seconds` after the command started.
    pub fn expect_end(&self, seconds: f64) {
        self.end.set(Some(seconds));
    }

    /// Prints `message` after the time spent, of the budget, and the expected end.
    pub fn say(&self, message: &str) {
        let end = self
            .end
            .get()
            .map_or(String::new(), |e| format!(", estimated end at {e:.0} s"));
        eprintln!(
            "compare [{:.0} s of {:.0} s{end}]: {message}",
            self.elapsed(),
            self.budget
        );
    }
}
