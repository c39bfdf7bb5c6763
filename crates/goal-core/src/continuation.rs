//! Same-directory continuation, conservative by design (seed "Isolation model"):
//!
//! - zero open goals in the directory: nothing to continue, and no goal is invented;
//! - one open goal: it may be continued explicitly from its persisted record;
//! - several copies of one goal id (a goal resumed in more than one session):
//!   they count as one goal, the newest copy;
//! - two or more distinct open goals: ambiguous, the user must name one.
//!
//! Closed goals (`closedAt` set, or a terminal status) never count.

use crate::error::Result;
use crate::record::Goal;
use crate::store::Store;

/// What the directory offers for continuation.
// Unboxed on purpose: callers build and match these by value, once per call.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Continuation {
    /// No open goal in this directory.
    None,
    /// Exactly one open goal (the newest copy of it).
    One(Goal),
    /// Several distinct open goals, newest first: the caller must pick one.
    Ambiguous(Vec<Goal>),
}

/// The open goals stored for `cwd`, one per goal id, classified.
pub fn find_for_continuation(store: &Store, cwd: &str) -> Result<Continuation> {
    let mut open: Vec<Goal> = store
        .goals_in_cwd(cwd)?
        .into_iter()
        .filter(Goal::is_open)
        .collect();
    Ok(match open.len() {
        0 => Continuation::None,
        1 => Continuation::One(open.remove(0)),
        _ => Continuation::Ambiguous(open),
    })
}
