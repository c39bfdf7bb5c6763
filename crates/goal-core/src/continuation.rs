//! Same-directory continuation, conservative by design (seed "Isolation model"):
//!
//! - zero open goals in the directory: nothing to continue, and no goal is invented;
//! - one open goal: it may be continued explicitly from its persisted record;
//! - several copies of one goal id (a goal resumed in more than one session):
//!   they count as one goal, the newest copy;
//! - two or more distinct open goals: ambiguous, the user must name one.
//!
//! Closed goals (`closedAt` set, or a terminal status) never count.

use crate::clock::now_iso;
use crate::error::{ErrorCode, GoalError, Result};
use crate::record::Goal;
use crate::store::{validate_cwd, validate_session_id, Change, Store};

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

/// Hydrate a stored open goal of this directory into `new_session`: same
/// goal id, `sessionId` set to the new session, saved to the new session's
/// three places under the store lock.
///
/// Never invents a goal: `goal` only names which one; the record written is
/// the newest stored copy of that id found for `cwd` (`NO_GOAL` if there is
/// none, `GOAL_CLOSED` if it is closed). If the session already owns a
/// different open goal, `GOAL_EXISTS`; a different closed one is archived.
pub fn adopt(store: &Store, goal: Goal, new_session: &str, cwd: &str) -> Result<Goal> {
    validate_session_id(new_session)?;
    validate_cwd(cwd)?;
    let modified = store.modify_stored(new_session, Some(cwd), |current, _warnings| {
        let stored = store
            .goals_in_cwd(cwd)?
            .into_iter()
            .find(|g| g.id == goal.id)
            .ok_or_else(|| {
                GoalError::new(
                    ErrorCode::NoGoal,
                    format!(
                        "goal {} is not stored for this directory; nothing to continue",
                        crate::store::shown(&goal.id)
                    ),
                )
            })?;
        if !stored.is_open() {
            return Err(GoalError::new(
                ErrorCode::GoalClosed,
                format!(
                    "goal {} is {}; a closed goal is not continued",
                    stored.id,
                    stored.status_label()
                ),
            ));
        }
        let mut adopted = stored;
        adopted.session_id = new_session.to_string();
        adopted.updated_at = now_iso();
        let change = match current {
            Some(own) if own.id != adopted.id => {
                if own.is_open() {
                    return Err(GoalError::new(
                        ErrorCode::GoalExists,
                        format!(
                            "this session already has the open goal {}; close or replace it before continuing {}",
                            own.id, adopted.id
                        ),
                    ));
                }
                Change::Replace {
                    old: own,
                    new: adopted,
                }
            }
            _ => Change::Save(adopted),
        };
        Ok((change, ()))
    })?;
    modified
        .goal
        .ok_or_else(|| GoalError::new(ErrorCode::NoGoal, "the continued goal was not stored"))
}
