//! The goal system's rules, in one place. No napi here: the Node binding and the
//! native hook executable are thin layers over this crate.

pub mod activation;
pub mod autopilot;
pub mod clock;
pub mod continuation;
pub mod drift;
pub mod error;
pub mod gate;
pub mod hooks;
pub mod ops;
pub mod progress;
pub mod record;
pub mod redact;
pub mod store;
pub mod summary;
pub mod update;

pub use error::{ErrorCode, GoalError, Result};
pub use record::{Goal, Status};
