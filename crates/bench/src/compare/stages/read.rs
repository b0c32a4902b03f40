//! Stage `read`: the options checked, the data read (a registry name, or a file described on
//! the spot) and the settings decided ([`Setup::decide`], every decision written down), and the
//! output folder claimed, before anything runs.

use std::time::Instant;

use crate::compare::folder::claim_folder;
use crate::compare::options::CompareOptions;
use crate::compare::pipeline::READ;
use crate::compare::progress::Progress;
use crate::compare::setup::Setup;
use crate::compare::state::State;
use crate::error::{Error, Result};
use crate::run::RunOptions;

/// The comparison's state once the data is read and the settings decided; the runner's options
/// write into the output folder.
pub fn run(options: &CompareOptions, run: &RunOptions) -> Result<State> {
    let start = Instant::now();
    let progress = Progress::new(options.budget);
    if !(options.test_size > 0.0 && options.test_size < 1.0) {
        return Err(Error::Experiment(format!(
            "--test-size {}: a fraction in (0, 1)",
            options.test_size
        )));
    }
    if options.repetitions < 2 {
        return Err(Error::Experiment(format!(
            "--repetitions {}: at least 2, to tell a difference from noise",
            options.repetitions
        )));
    }
    let setup = Setup::decide(options, &run.root)?;
    claim_folder(&options.out)?;
    let run = RunOptions {
        out_dir: options.out.clone(),
        ..run.clone()
    };
    let mut state = State::new(setup, &options.out, run, options.budget, progress);
    state.start = start;
    state.times.push((READ, start.elapsed().as_secs_f64()));
    Ok(state)
}
