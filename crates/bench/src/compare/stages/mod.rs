//! compare's stages, one module each, in the order they run (the list, with each stage's share
//! of the budget, is [`super::pipeline::STAGES`]). Each has a `run` that reads what the stages
//! before it left in [`super::state::State`] and adds its own, and builds the spec it writes.

pub mod read;

pub mod tune;

pub mod pilot;

pub mod own_penalty;

pub mod sweep;

pub mod last_rungs;

pub mod confirm;

pub mod same_rows;

pub mod gram;

pub mod answer;

pub mod report;
