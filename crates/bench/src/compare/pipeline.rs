//! compare's stages as data: each one's name, the specs it writes, its share of the budget and
//! what it does, in the order [`super::compare`] runs them. The module doc of [`super`] and the
//! report's "How it was run" are both written from [`STAGES`] (a test keeps the doc current),
//! and every stage takes its share of the budget from here, so a share is written once.

use crate::outputs::markdown;

/// How much of the time budget a stage may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Share {
    /// It takes what it takes (reading the data, the pilot, writing the answer): its time is
    /// what the later stages plan around.
    Measured,
    /// At most this fraction of the whole budget.
    OfBudget(f64),
    /// This fraction of what the stages before it left of the budget.
    OfLeft(f64),
    /// At most this fraction of the budget, and at most this fraction of the sweep's time left.
    OfBudgetAndSweepLeft(f64, f64),
    /// Within the sweep's time.
    InSweep,
    /// What is left of the budget.
    Rest,
}

impl Share {
    /// The fraction of the whole budget it may take (1 where the budget does not bound it).
    pub const fn of_budget(self) -> f64 {
        match self {
            Share::OfBudget(f) | Share::OfBudgetAndSweepLeft(f, _) => f,
            _ => 1.0,
        }
    }

    /// The fraction of what is left (of the budget, or of the sweep's time) it may take.
    pub const fn of_left(self) -> f64 {
        match self {
            Share::OfLeft(f) | Share::OfBudgetAndSweepLeft(_, f) => f,
            _ => 1.0,
        }
    }

    /// The share in words, for the report and the module doc.
    pub fn describe(self) -> String {
        let percent = |f: f64| format!("{:.0} %", 100.0 * f);
        match self {
            Share::Measured => "as measured".to_string(),
            Share::OfBudget(f) => format!("at most {} of the budget", percent(f)),
            Share::OfLeft(f) => format!("{} of what is left", percent(f)),
            Share::OfBudgetAndSweepLeft(f, g) => format!(
                "at most {} of the budget and {} of the sweep's time left",
                percent(f),
                percent(g)
            ),
            Share::InSweep => "within the sweep's time".to_string(),
            Share::Rest => "what is left".to_string(),
        }
    }
}

/// One of compare's stages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stage {
    /// Its module under [`super::stages`].
    pub name: &'static str,
    /// The files it writes into the output folder.
    pub writes: &'static str,
    pub share: Share,
    /// What it does, in a sentence.
    pub does: &'static str,
}

pub const READ: Stage = Stage {
    name: "read",
    writes: "-",
    share: Share::Measured,
    does: "reads the data (a registry name, or a file described on the spot) and decides the \
           defaults a careful researcher would choose, every one written down",
};

pub const TUNE: Stage = Stage {
    name: "tune",
    writes: "tune-probe.toml, tune.toml",
    share: Share::OfBudget(0.25),
    does: "chooses the bandwidth (multiples of the median distance) and the learner's penalty \
           by cross-validation on a subsample with one map, and the exact machine's own",
};

pub const PILOT: Stage = Stage {
    name: "pilot",
    writes: "pilot.toml",
    share: Share::Measured,
    does: "times every map at two values of D on the subsample, and the exact machine on all \
           and half of its rows, for the budget model",
};

pub const OWN_PENALTY: Stage = Stage {
    name: "own_penalty",
    writes: "tune-maps.toml",
    share: Share::OfBudget(0.1),
    does: "chooses each other map's penalty on its own features at the pilot's D",
};

pub const SWEEP: Stage = Stage {
    name: "sweep",
    writes: "compare.toml",
    share: Share::OfLeft(0.9),
    does: "runs the linear baseline, then the exact machine on the rows that fit, then the \
           maps in rounds up the ladder of D, each planned from the last round's times, a map \
           stopping once it has plateaued; no run starts past the sweep's time",
};

pub const LAST_RUNGS: Stage = Stage {
    name: "last_rungs",
    writes: "tune-last.toml, compare.toml",
    share: Share::OfBudgetAndSweepLeft(0.1, 0.5),
    does: "chooses each series' penalty again at its last D, and reruns the cells whose \
           penalty changed",
};

pub const CONFIRM: Stage = Stage {
    name: "confirm",
    writes: "confirm-N.toml",
    share: Share::InSweep,
    does: "runs more repetitions of the cheapest cells the sweep's could not decide",
};

pub const SAME_ROWS: Stage = Stage {
    name: "same_rows",
    writes: "same-rows.toml",
    share: Share::OfLeft(0.5),
    does: "where the exact machine trained on fewer than all rows, trains each map's last D on \
           those same rows",
};

pub const GRAM: Stage = Stage {
    name: "gram",
    writes: "gram.toml",
    share: Share::Rest,
    does: "measures each map's Gram-matrix error at the sweep's D on a few training rows",
};

pub const ANSWER: Stage = Stage {
    name: "answer",
    writes: "answer.json, splits.json",
    share: Share::Measured,
    does: "decides the recommendation at each tolerance, with the noise in view",
};

pub const REPORT: Stage = Stage {
    name: "report",
    writes: "report.md, its figures",
    share: Share::Measured,
    does: "writes the answer, the table of every cell, the figures and how it was run",
};

/// Every stage, in the order they run.
pub const STAGES: [Stage; 11] = [
    READ,
    TUNE,
    PILOT,
    OWN_PENALTY,
    SWEEP,
    LAST_RUNGS,
    CONFIRM,
    SAME_ROWS,
    GRAM,
    ANSWER,
    REPORT,
];

/// The stages as a numbered Markdown list (the module doc of [`super`]).
pub fn list() -> String {
    STAGES
        .iter()
        .enumerate()
        .map(|(k, s)| {
            format!(
                "{}. `{}` ({}; {}): {}.\n",
                k + 1,
                s.name,
                s.writes,
                s.share.describe(),
                s.does
            )
        })
        .collect()
}

/// The stages as a Markdown table, with the seconds each took (`None`: not finished when the
/// table was written), for the report's "How it was run".
pub fn table(seconds: impl Fn(&Stage) -> Option<f64>) -> String {
    let mut out = markdown::header(&["stage", "writes", "budget", "took (s)", "what it does"]);
    for stage in &STAGES {
        let took = seconds(stage).map_or("-".to_string(), |t| format!("{t:.1}"));
        let share = stage.share.describe();
        out.push_str(&markdown::row(&[
            stage.name,
            stage.writes,
            &share,
            &took,
            stage.does,
        ]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module doc of `compare` lists the stages as [`list`] does, line for line.
    #[test]
    fn the_module_doc_lists_the_stages() {
        let doc: String = include_str!("mod.rs")
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.trim_start_matches("//!").trim_start())
            .collect::<Vec<_>>()
            .join(" ");
        for stage in list().lines() {
            let words = stage.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                doc.contains(&words),
                "compare's module doc does not say, as pipeline::list() does:\n{words}"
            );
        }
    }

    /// Each stage is a module of `stages/`, and every such module a stage.
    #[test]
    fn every_stage_is_a_module_and_every_module_a_stage() {
        let modules: Vec<String> = include_str!("stages/mod.rs")
            .lines()
            .filter_map(|l| l.trim().strip_prefix("pub mod "))
            .map(|l| l.trim_end_matches(';').to_string())
            .collect();
        let names: Vec<&str> = STAGES.iter().map(|s| s.name).collect();
        assert_eq!(modules, names);
    }

    #[test]
    fn shares_read_as_percentages() {
        assert_eq!(TUNE.share.describe(), "at most 25 % of the budget");
        assert_eq!(SWEEP.share.describe(), "90 % of what is left");
        let table = table(|s| (s.name == "tune").then_some(1.25));
        assert!(
            table.contains(
                "| tune | tune-probe.toml, tune.toml | at most 25 % of the budget | 1.2 |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| pilot | pilot.toml | as measured | - |"),
            "{table}"
        );
    }
}
