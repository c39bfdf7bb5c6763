//! The memory layers' part of a hook's answer (the rules are in `memory/`):
//! the most useful memories at session start, the recall lines at each user
//! prompt, the consolidation agent's brief when it starts, and the offer to
//! consolidate when a long enough session stops. Read-only but for the
//! once-per-session offer mark; never fails a hook.

use super::{Decision, Event, Host, Payload};
use crate::goals::Caller;
use crate::memory::{self, consolidate, inject, messages};
use crate::store::Store;

/// Add the memory layers' context to `decision` for a main-session event.
pub(super) fn annotate(
    store: &Store,
    host: Host,
    event: Event,
    caller: &Caller,
    payload: &Payload,
    decision: &mut Decision,
) {
    let prompt = payload.prompt.as_deref().unwrap_or("");
    match event {
        Event::SessionStart => inject::append(
            &mut decision.context,
            memory::session_note(store, &caller.cwd, &caller.session_id, prompt),
            messages::SESSION_TAG,
        ),
        Event::UserPrompt if !is_command(prompt) => inject::append(
            &mut decision.context,
            memory::recall_note(store, &caller.cwd, &caller.session_id, prompt),
            messages::RECALL_TAG,
        ),
        Event::Stop if decision.block.is_none() => {
            let record = super::host_record(store, host, payload);
            if let Some(offer) = consolidate::offer(store, &caller.session_id, record.as_deref()) {
                decision.system_message = Some(match decision.system_message.take() {
                    Some(msg) => format!("{msg}\n{offer}"),
                    None => offer,
                });
            }
        }
        _ => {}
    }
}

/// `/goal consolidate`, `/goal pause` and the like get no recall lines: they
/// are orders to the goal system, not a topic (a `/goal X` objective is one).
fn is_command(prompt: &str) -> bool {
    use crate::activation::{parse_prompt, Intent};
    !matches!(parse_prompt(prompt), Intent::None | Intent::Open { .. })
}

/// The context a SubagentStart gives the consolidation agent: its brief
/// (None for any other agent).
pub(super) fn subagent_start(store: &Store, host: Host, payload: &Payload) -> Option<String> {
    let record = super::host_record(store, host, payload);
    consolidate::subagent_start(
        store,
        &payload.agent_type,
        &payload.session_id,
        &payload.cwd,
        record.as_deref(),
    )
}
