#![deny(clippy::all)]
//! Node binding of the goal system. Each file is one concern and only converts
//! between JS values and goal-core types; every rule lives in goal-core.

pub mod answer;
pub mod board;
pub mod error;
pub mod goal;
pub mod hooks;
pub mod mcp;
pub mod memory;
pub mod progress;
pub mod redact;
pub mod store;
