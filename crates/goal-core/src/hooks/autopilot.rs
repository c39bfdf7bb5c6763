//! Copilot CLI's autopilot after the user stopped the goal. `/goal X` there
//! is the host's autopilot, whose objective outlives the goal system's answer
//! to a pause or cancel: after the user's command the host hands the model a
//! continuation ("You have not yet marked the task as complete … Active
//! autopilot objective: X … Keep working."), which reaches the prompt hook.
//! The goal system cannot end the host's objective itself; it replaces that
//! prompt with the one thing left to do: end the autopilot with
//! task_complete (seen in 1.0.102).

use super::{load_goal, Decision, Host};
use crate::error::Result;
use crate::goals::Caller;
use crate::messages::{self, Spelling};
use crate::record::Status;
use crate::store::Store;

/// What the model gets instead of the host's continuation while the
/// session's goal is paused or cancelled by the user; `None` otherwise.
pub(super) fn after_user_stop(
    store: &Store,
    caller: &Caller,
    host: Host,
    prompt: &str,
    sp: Spelling,
) -> Result<Option<Decision>> {
    if !matches!(host, Host::CopilotCli | Host::CopilotSdk) || !is_continuation(prompt) {
        return Ok(None);
    }
    let Some(goal) = load_goal(store, caller)? else {
        return Ok(None);
    };
    if !matches!(goal.completion_status, Status::Paused | Status::Cancelled) {
        return Ok(None);
    }
    Ok(Some(Decision {
        modify_prompt: Some(messages::autopilot_after_stop(&goal, sp)),
        ..Decision::default()
    }))
}

/// Copilot CLI's own autopilot continuation prompt (its words, 1.0.102).
fn is_continuation(prompt: &str) -> bool {
    let p = prompt.trim_start();
    p.starts_with("You have not yet marked the task as complete")
        && p.contains("Active autopilot objective:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_hosts_continuation_is_recognised() {
        let cont = "You have not yet marked the task as complete using the task_complete tool. Keep working.\n\nActive autopilot objective:\n\nwrite the notes\n\nContinue toward this objective.";
        assert!(is_continuation(cont));
        assert!(!is_continuation(
            "You have not yet marked the task as complete"
        ));
        assert!(!is_continuation("please keep working"));
    }
}
