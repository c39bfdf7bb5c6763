//! Tool events: drift warnings and denials before a call, completion claims,
//! and the tool history after it.

use super::{load_goal, note_warnings, Decision, Payload};
use crate::drift::{self, Drift};
use crate::error::Result;
use crate::gate;
use crate::goals::{self, Attempt, Caller};
use crate::guard::{self, StatePaths};
use crate::messages;
use crate::record::{Goal, ToolKind};
use crate::store::Store;
use crate::tools;

/// A call refused whatever the goal: writes to the goal state, the user's verbs
/// of the command, and any goal tool or board write called from a subagent.
pub(super) fn refusal(store: &Store, payload: &Payload) -> Option<String> {
    let paths = StatePaths::new(
        &store.config.root,
        crate::store::home_dir().map(|h| h.to_string_lossy().into_owned()),
    );
    payload.calls.iter().find_map(|call| {
        if payload.subagent {
            if tools::goal_tool(&call.name).is_some() {
                return Some(messages::subagent_goal_tool_refusal(&call.name));
            }
            // Board and memory writes (the consolidation agent may add, prune, store: memory/).
            if let Some(refusal) =
                crate::memory::subagent_refusal(&payload.agent_type, &call.name, &call.args)
            {
                return Some(refusal);
            }
        }
        guard::forbidden(call, &paths)
    })
}

pub(super) fn on_pre_tool(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let Some(goal) = load_goal(store, caller)?.filter(Goal::is_open) else {
        return Ok((Decision::default(), None));
    };
    if !goal.is_working() {
        // Paused, blocked or budget-limited: no drift, and nothing to hold.
        return Ok((Decision::default(), None));
    }
    let mut count = goal.drift();
    let mut warn = None;
    for call in &payload.calls {
        let kind = tools::classify(&call.name, &call.args);
        if tools::is_completion_claim(&call.name) {
            if let Some(d) = on_completion_claim(store, caller, &goal)? {
                return Ok((d, None));
            }
            continue;
        }
        if tools::is_host_goal_completion(&call.name, &call.args) {
            // Codex CLI's own goal claimed complete: the same gate, named as Codex's tool.
            if let Some(mut d) = on_completion_claim(store, caller, &goal)? {
                d.deny = d
                    .deny
                    .map(|r| r.replace("task_complete", "update_goal with status \"complete\""));
                return Ok((d, None));
            }
            continue;
        }
        if matches!(kind, ToolKind::Goal | ToolKind::Meta) {
            continue;
        }
        match drift::decide(count) {
            Drift::Deny(n) => {
                store.audit(
                    "drift-denied",
                    Some(&goal),
                    &format!(
                        "{n} non-goal calls since the last update; {} denied",
                        call.name
                    ),
                );
                return Ok((
                    Decision {
                        deny: Some(messages::drift_denial(&goal, n)),
                        ..Decision::default()
                    },
                    None,
                ));
            }
            Drift::Warn(n) => {
                store.audit(
                    "drift-warning",
                    Some(&goal),
                    &format!("{n} non-goal calls since the last update"),
                );
                warn = Some(messages::drift_warning(&goal, n, drift::DENY_AT))
            }
            Drift::Allow => {}
        }
        count += 1; // later calls of the same batch run after this one
    }
    Ok((
        Decision {
            context: warn,
            ..Decision::default()
        },
        None,
    ))
}

/// Copilot CLI's task_complete while the goal is open: refused until the goal is
/// closed, bounded by the same loop guard as stops.
fn on_completion_claim(store: &Store, caller: &Caller, goal: &Goal) -> Result<Option<Decision>> {
    if !goal.is_working() {
        return Ok(None);
    }
    let (attempt, warnings) = goals::stop_attempt(store, caller, goal.id.as_str())?;
    note_warnings(warnings);
    let held = match attempt {
        Attempt::NotWorking => return Ok(None),
        Attempt::Released(goal) => return Ok(Some(super::stop::released(&goal))),
        Attempt::Held(goal) => goal,
    };
    let unmet = gate::check(&held);
    let reason = if unmet.is_empty() {
        format!(
            "[goal-system] task_complete refused: the completion gate is met but goal {} is still open. Call goal_system_close with status complete first, then task_complete.",
            held.id
        )
    } else {
        messages::completion_claim_denial(&held, &unmet)
    };
    store.audit(
        "claim-denied",
        Some(&held),
        &unmet
            .iter()
            .map(|u| u.field.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    );
    Ok(Some(Decision {
        deny: Some(reason),
        ..Decision::default()
    }))
}

/// After a tool call: usage accounted and the call recorded in one write
/// (none when nothing changed), and the wrap-up steer once a budget is crossed.
pub(super) fn on_post_tool(
    store: &Store,
    delivery: &super::Delivery,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let host = delivery.host;
    let usage = super::usage_report(store, delivery, caller, payload, 0, false);
    let (accounted, warnings) = goals::after_tool(
        store,
        caller,
        &payload.calls,
        &payload.report,
        host.source(),
        &usage,
    )?;
    note_warnings(warnings);
    Ok((
        Decision {
            context: accounted.wrap_up,
            ..Decision::default()
        },
        None,
    ))
}
