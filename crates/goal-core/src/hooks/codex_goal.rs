//! Codex CLI's own `/goal X`, typed in its TUI, never reaches a prompt hook:
//! Codex keeps that goal itself and runs turns toward it, and its model marks
//! it complete with `update_goal`, which nothing checks. The goal system takes
//! the user's Codex goal as the user's objective (as it does Copilot CLI's
//! autopilot objective): at the next hook event it opens a draft for it, so
//! drift, the held stop and the completion gate apply, and `update_goal`
//! complete is a claim the gate checks (`hooks/tool.rs`). Only a goal Codex's
//! rollout records as the user's is taken (`provenance::codex::user_goal`).

use serde_json::json;

use super::{load_goal, note_warnings, Delivery, Payload};
use crate::authority::Role;
use crate::error::Result;
use crate::goals::{self, Caller};
use crate::messages;
use crate::provenance::codex;
use crate::redact;
use crate::store::Store;

/// Open a draft for the user's newest Codex goal, when the session's goal is
/// not already that one and was not set after it. The model's note, if opened.
pub(super) fn adopt(
    store: &Store,
    delivery: &Delivery,
    caller: &Caller,
    payload: &Payload,
) -> Result<Option<String>> {
    let dirs = codex::codex_dirs();
    let Some(rollout) = codex::rollout(&payload.transcript_path, &payload.session_id, &dirs) else {
        return Ok(None);
    };
    let Some((objective, at, after)) = codex::user_goal(&rollout) else {
        return Ok(None);
    };
    let prompt = format!("/goal {objective}");
    if let Some(goal) = load_goal(store, caller)? {
        let same = goal
            .source
            .as_ref()
            .is_some_and(|s| s.hash == redact::fingerprint(&prompt));
        // A goal the user set after Codex's (a `$goal-system` prompt) stays.
        if same || goal.created_at.as_str() >= at.as_str() {
            return Ok(None);
        }
    }
    // The rollout was found through the hook's environment: a hook the
    // agent's shell runs with `CODEX_HOME` at a folder of its making would
    // find a planted "user goal" there. The running Codex must keep it.
    if !delivery.vouches(payload, &rollout) {
        note_warnings(vec![
            "Codex's goal not adopted: its rollout is not where the running Codex keeps it".into(),
        ]);
        return Ok(None);
    }
    let req = json!({
        "objective": objective,
        "status": "draft",
        "replace": true,
        "sourcePrompt": prompt,
        "sourceKind": "codex-goal",
    });
    let opened = goals::open(store, &caller.clone().with_role(Role::User), &req)?;
    // No prompt hook saw this goal: it reads the user's interrupts from
    // Codex's record of it on (an Esc in the goal's first turn included).
    goals::pin_record(store, caller, &rollout, after)?;
    Ok(Some(format!(
        "[goal-system] The user set this objective with Codex's /goal; the goal system opened draft goal {} for it, and checks Codex's update_goal complete against its completion gate. Before substantive work: inspect the task, then call goal_system_update with status \"active\", requirements, scope, remaining and inspectionEvidence.\n{}",
        opened.goal.id,
        messages::prompt_note(&opened.goal)
    )))
}
