//! `rfbench slurm`: a spec as a SLURM job array of N shards ([`crate::shard`]) and a merge job
//! that runs when every task has ended (`afterany`: a failed task must not leave it waiting
//! forever), as two sbatch scripts under `slurm/SPEC/PROFILE/` of the output folder (logs in
//! its `logs/`). The merge refuses failed or missing shards; [`status`] says what ran, what
//! failed and the command that repairs it, which [`submit::resubmit_failed`] carries out.
//!
//! The datasets are fetched where `rfbench slurm --submit` runs (a login node has the network a
//! compute node often lacks) into the cache the scripts name, on the shared file system; each
//! array task fetches again before it runs, which after the first only verifies the files (the
//! fetch lock serialises tasks that start together). Each task runs `reproduce --resume`: its
//! shard is its task id, of the count written into the script, and a task that was killed
//! (a time limit, a preemption, `scontrol requeue`) and runs again keeps the runs it finished.

mod jobs;
mod options;
mod scripts;
pub mod status;
pub mod submit;
mod text;

pub use jobs::{JobsRecord, Submission};
pub use options::SlurmOptions;
pub use scripts::{write, Scripts};
pub use status::{status, Invocation, Status};
pub use submit::{resubmit_failed, submit, wait, Submitted};
pub use text::quote;
