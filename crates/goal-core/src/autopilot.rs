//! Copilot CLI's own objective. In Copilot CLI 1.0.102 `/goal X` is the host's
//! alias of `/autopilot X`, and the host keeps its objective in
//! `<session-state>/<session>/autopilot-objective.json`. The goal's status shows
//! it beside ours so the two never silently disagree.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::record::Goal;
use crate::redact;
use crate::store::{validate_session_id, Store};

/// File name of the host's objective, inside the session's folder.
pub const FILE: &str = "autopilot-objective.json";

/// Copilot CLI's autopilot objective for a session, as the goal's status shows
/// it (texts redacted and shortened).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AutopilotObjective {
    pub objective: Option<String>,
    /// The host's word: `active` or `completed`.
    pub status: Option<String>,
    pub continuation_count: Option<u64>,
    pub turn_count: Option<u64>,
    pub token_count: Option<u64>,
    pub completion_summary: Option<String>,
}

/// The host's current autopilot objective for a session (an
/// [`AutopilotObjective`]), redacted, or `None`.
pub fn read(store: &Store, session_id: &str) -> Option<Value> {
    validate_session_id(session_id).ok()?;
    let path = store.config.session_state.join(session_id).join(FILE);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > 1024 * 1024 {
        return None;
    }
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()?;
    let current = value.get("current").unwrap_or(&value);
    let text = |k: &str| {
        current
            .get(k)
            .and_then(Value::as_str)
            .map(|s| redact::preview(s, 300))
    };
    let num = |k: &str| current.get(k).and_then(Value::as_u64);
    serde_json::to_value(AutopilotObjective {
        objective: text("objective"),
        status: text("status"),
        continuation_count: num("continuationCount"),
        turn_count: num("turnCount"),
        token_count: num("tokenCount"),
        completion_summary: text("completionSummary"),
    })
    .ok()
}

/// A warning when the host's objective and the goal disagree.
pub fn mismatch(goal: Option<&Goal>, autopilot: &Value) -> Option<String> {
    let status = autopilot.get("status").and_then(Value::as_str)?;
    let goal = goal?;
    if status.eq_ignore_ascii_case("completed") && goal.is_open() {
        return Some(format!(
            "Copilot CLI marks its autopilot objective completed, but goal {} is still open ({}): the completion gate was not met.",
            goal.id,
            goal.status_label()
        ));
    }
    None
}
