//! The goal system's rules, in one place. No napi here: the Node binding and the
//! native hook executable are thin layers over this crate.

pub mod activation;
pub mod answer;
pub mod authority;
pub mod autopilot;
pub mod board;
pub mod buffer;
pub mod clock;
pub mod commands;
pub mod continuation;
pub mod drift;
pub mod error;
pub mod evidence;
pub mod gap;
pub mod gate;
pub mod goals;
pub mod guard;
pub mod hooks;
pub mod hosts;
pub mod integrity;
pub mod memory;
pub mod messages;
pub mod observe;
pub mod outcome;
pub mod payload;
pub mod progress;
pub mod provenance;
pub mod record;
pub mod redact;
pub mod request;
pub mod schema;
pub mod shell;
pub mod store;
#[cfg(test)]
mod testing;
pub mod text;
pub mod tools;
pub mod update;
pub mod usage;

pub use error::{ErrorCode, GoalError, Result};
pub use record::{Goal, Status};
