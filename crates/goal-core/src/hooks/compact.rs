//! Before compaction: a snapshot of the goal that the next context re-reads.

use serde_json::json;

use super::{load_goal, Decision, Payload};
use crate::clock;
use crate::error::Result;
use crate::gate;
use crate::goals::Caller;
use crate::messages;
use crate::redact;
use crate::store::Store;

pub(super) fn on_pre_compact(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let Some(goal) = load_goal(store, caller)? else {
        return Ok((Decision::default(), None));
    };
    let text = messages::prompt_note(&goal);
    let meta = json!({
        "version": 1,
        "sessionId": goal.session_id,
        "goalId": goal.id,
        "cwd": goal.cwd,
        "status": goal.completion_status.as_str(),
        "open": goal.is_open(),
        "trigger": redact::truncate(&payload.trigger, 40),
        "writtenAt": clock::now_iso(),
        "objectivePreview": redact::preview(&goal.objective, 160),
        "remaining": goal.remaining.len(),
        "unmet": gate::check(&goal).len(),
        "textHash": redact::fingerprint(&text),
    });
    store.write_compact(&caller.session_id, &text, &meta)?;
    store.audit("compact", Some(&goal), "compact snapshot written");
    Ok((Decision::default(), None))
}
