//! The values tuning chose, which every spec after it takes as constants: the maps' bandwidth
//! and penalty, the exact machine's own, and each series' own penalty where one was searched
//! (`tune-maps.toml`, `tune-last.toml`).

/// The values the tuning run chose, used as constants by the pilot and the sweep: the maps'
/// (chosen with the tuning map and the learner on its features) and the exact machine's own
/// (chosen for itself, in the same run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuned {
    pub sigma: Option<f64>,
    pub penalty: f64,
    /// The exact machine's bandwidth (`None` where the kernel has none or it was given).
    pub exact_sigma: Option<f64>,
    pub exact_penalty: f64,
    /// The learner's penalty chosen for each series (map, or variant of one) on its own
    /// features (`tune-maps.toml`), by the series' place in the registry
    /// ([`rfbench_registry::series::all`]); `None`: [`Tuned::penalty`].
    pub map_penalties: [Option<OwnPenalty>; MAX_MAPS],
    /// The penalty chosen again for a series at the last rung of its sweep
    /// (`tune-last.toml`): that cell's own; the series' other cells keep
    /// [`Tuned::map_penalties`]'.
    pub last_rungs: [Option<OwnPenalty>; MAX_MAPS],
}

/// A penalty chosen for one series on its own features, and the D it was chosen at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnPenalty {
    pub value: f64,
    pub d: usize,
}

/// Room for every series of the registry in [`Tuned::map_penalties`] (a test checks it).
pub const MAX_MAPS: usize = 24;

impl Tuned {
    /// The maps' values and the exact machine's, no map tuned on its own yet.
    pub fn new(
        sigma: Option<f64>,
        penalty: f64,
        exact_sigma: Option<f64>,
        exact_penalty: f64,
    ) -> Self {
        Tuned {
            sigma,
            penalty,
            exact_sigma,
            exact_penalty,
            map_penalties: [None; MAX_MAPS],
            last_rungs: [None; MAX_MAPS],
        }
    }

    /// The learner's penalty on the features of `map` (a series): its own, or the tuning
    /// map's.
    pub fn penalty_for(&self, map: &str) -> f64 {
        map_slot(map)
            .and_then(|k| self.map_penalties[k])
            .map_or(self.penalty, |p| p.value)
    }

    /// The learner's penalty in the cell of `map` (a series) at `d`: its last rung's own where
    /// `d` is that rung, else [`Tuned::penalty_for`].
    pub fn penalty_at(&self, map: &str, d: usize) -> f64 {
        let last = map_slot(map).and_then(|k| self.last_rungs[k]);
        match last {
            Some(p) if p.d == d => p.value,
            _ => self.penalty_for(map),
        }
    }

    /// Records `map`'s own penalty, chosen at `d`.
    pub fn set_penalty(&mut self, map: &str, value: f64, d: usize) {
        if let Some(k) = map_slot(map) {
            self.map_penalties[k] = Some(OwnPenalty { value, d });
        }
    }

    /// Records the penalty of `map`'s cell at its last rung `d`, chosen there.
    pub fn set_last_rung(&mut self, map: &str, value: f64, d: usize) {
        if let Some(k) = map_slot(map) {
            self.last_rungs[k] = Some(OwnPenalty { value, d });
        }
    }

    /// The series tuned on their own, with their penalty, in registry order.
    pub fn own_penalties(&self) -> Vec<(&'static str, OwnPenalty)> {
        owned(&self.map_penalties)
    }

    /// The series whose last rung has a penalty of its own, in registry order.
    pub fn last_rung_penalties(&self) -> Vec<(&'static str, OwnPenalty)> {
        owned(&self.last_rungs)
    }
}

fn owned(slots: &[Option<OwnPenalty>; MAX_MAPS]) -> Vec<(&'static str, OwnPenalty)> {
    let names = series_names();
    names
        .iter()
        .enumerate()
        .filter_map(|(k, name)| Some((*name, slots.get(k).copied().flatten()?)))
        .collect()
}

fn series_names() -> Vec<&'static str> {
    rfbench_registry::series::all().map(|s| s.name()).collect()
}

fn map_slot(map: &str) -> Option<usize> {
    series_names()
        .iter()
        .position(|n| *n == map)
        .filter(|&k| k < MAX_MAPS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuned() -> Tuned {
        Tuned::new(Some(1.25), 0.5, Some(2.5), 2.0)
    }

    #[test]
    fn every_map_of_the_registry_has_room_for_its_own_penalty() {
        assert!(series_names().len() <= MAX_MAPS);
        let mut t = tuned();
        t.set_penalty("nystroem", 8.0, 256);
        assert_eq!(
            (t.penalty_for("nystroem"), t.penalty_for("rff")),
            (8.0, 0.5)
        );
        let own = OwnPenalty { value: 8.0, d: 256 };
        assert_eq!(t.own_penalties(), [("nystroem", own)]);
        // A last rung's own penalty is that cell's only.
        t.set_last_rung("nystroem", 2.0, 1024);
        assert_eq!(t.penalty_at("nystroem", 1024), 2.0);
        assert_eq!(t.penalty_at("nystroem", 512), 8.0);
        assert_eq!(t.penalty_at("rff", 1024), 0.5);
        let last = OwnPenalty {
            value: 2.0,
            d: 1024,
        };
        assert_eq!(t.last_rung_penalties(), [("nystroem", last)]);
    }
}
