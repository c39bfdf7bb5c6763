#![deny(clippy::all)]
//! Node binding of the goal system. Each file is one concern and only converts
//! between JS values and goal-core types; every rule lives in goal-core.

mod error;
mod goal;
mod hooks;
mod redact;
mod store;
