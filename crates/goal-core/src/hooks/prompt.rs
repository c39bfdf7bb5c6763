//! User prompts: `/goal` commands and activation, explicit continuation, and
//! the goal note injected into every prompt of a session with an open goal.

use serde_json::json;

use super::Decision;
use super::{context, load_goal, Payload};
use crate::activation::{self, Intent};
use crate::board;
use crate::continuation::{self, Continuation};
use crate::drift::{self, Drift};
use crate::error::Result;
use crate::goals::{self, Caller};
use crate::messages;
use crate::record::{Goal, Status};
use crate::redact;
use crate::store::Store;

pub(super) fn on_prompt(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let prompt = payload.prompt.clone().unwrap_or_default();
    if prompt.trim_start().starts_with(messages::VOICE) {
        // Copilot CLI re-submits a stop block's reason as a user prompt: it is
        // our own directive, not the user's, and already carries the goal.
        return Ok((Decision::default(), None));
    }
    let intent = activation::parse_prompt(&prompt);
    let command = intent != Intent::None;
    let ran = run_intent(store, caller, &prompt, intent);
    // After the command: a goal it opened gets its first view of the tree.
    goals::note_user_prompt(store, caller, &prompt);
    match ran {
        // A /goal command that could not be done says why where the user reads it.
        Err(e) if command => {
            let text = format!("{} /goal: {}", messages::VOICE, e.message);
            Ok((
                Decision {
                    context: Some(text.clone()),
                    system_message: Some(text),
                    ..Decision::default()
                },
                None,
            ))
        }
        other => other,
    }
}

fn run_intent(
    store: &Store,
    caller: &Caller,
    prompt: &str,
    intent: Intent,
) -> Result<(Decision, Option<String>)> {
    match intent {
        Intent::Open { objective, kind } => {
            let req = json!({
                "objective": objective,
                "status": "draft",
                "replace": true,
                "sourcePrompt": prompt,
                "sourceKind": kind,
            });
            let opened = goals::open(store, caller, &req)?;
            let head = if opened.created {
                match &opened.replaced {
                    Some(old) => format!("[goal-system] The user's explicit /goal replaced goal {old} with a new draft goal {}.", opened.goal.id),
                    None => format!("[goal-system] The user's explicit /goal opened draft goal {}.", opened.goal.id),
                }
            } else {
                format!(
                    "[goal-system] Continuing goal {} (same objective).",
                    opened.goal.id
                )
            };
            let next = "Before substantive work: inspect the task, then call goal_system_update with status \"active\", requirements, scope, remaining and inspectionEvidence.";
            let mut decision = context(format!(
                "{head} {next}\n{}",
                messages::prompt_note(&opened.goal)
            ));
            board::add_note(
                &mut decision.context,
                store,
                &caller.cwd,
                &caller.session_id,
            );
            Ok((decision, None))
        }
        Intent::Continue { target } => on_continue(store, caller, target.as_deref()),
        Intent::Show => {
            let report = goals::status(store, caller)?;
            Ok((
                context(format!(
                    "[goal-system] Goal status requested by the user.\n{}",
                    report.summary
                )),
                None,
            ))
        }
        Intent::Cancel { reason } => {
            let reason = reason.unwrap_or_else(|| "cancelled by the user with /goal cancel".into());
            let closed = goals::close(
                store,
                caller,
                &json!({"status": "cancelled", "reason": reason}),
            )?;
            Ok((
                context(format!(
                    "[goal-system] The user cancelled goal {}.",
                    closed.goal.id
                )),
                None,
            ))
        }
        Intent::Pause { reason } => {
            let reason = reason.unwrap_or_else(|| "paused by the user with /goal pause".into());
            let upd = goals::update(
                store,
                caller,
                &json!({"status": "paused", "statusReason": reason}),
            )?;
            Ok((context(format!("[goal-system] The user paused goal {}. Do not continue it until the user resumes it with /goal resume.", upd.goal.id)), None))
        }
        Intent::Budget {
            tokens,
            seconds,
            clear,
        } => {
            let mut req = serde_json::Map::new();
            if clear || tokens.is_some() {
                req.insert("tokenBudget".into(), json!(tokens));
            }
            if clear || seconds.is_some() {
                req.insert("timeBudgetSeconds".into(), json!(seconds));
            }
            let upd = goals::update(store, caller, &serde_json::Value::Object(req))?;
            let text = format!(
                "{} The user set the budget of goal {} ({}). {}",
                messages::VOICE,
                upd.goal.id,
                upd.goal.status_label(),
                messages::usage_line(&upd.goal)
            );
            Ok((
                Decision {
                    context: Some(text.clone()),
                    system_message: Some(text),
                    ..Decision::default()
                },
                None,
            ))
        }
        // The consolidation agent's launch order for the main agent (memory/).
        Intent::Consolidate => Ok((
            context(crate::memory::messages::consolidate_command(
                &caller.session_id,
            )),
            None,
        )),
        Intent::None => {
            let Some(goal) = load_goal(store, caller)? else {
                return Ok((Decision::default(), None));
            };
            if !goal.is_open() {
                return Ok((Decision::default(), None));
            }
            let mut note = messages::prompt_note(&goal);
            if let Drift::Warn(n) | Drift::Deny(n) = drift::decide(goal.drift()) {
                note.push('\n');
                note.push_str(&messages::drift_warning(&goal, n, drift::DENY_AT));
            }
            Ok((context(note), None))
        }
    }
}

/// Most goals a continuation refusal lists.
const CONTINUE_LIST_MAX: usize = 20;

pub(super) fn on_continue(
    store: &Store,
    caller: &Caller,
    target: Option<&str>,
) -> Result<(Decision, Option<String>)> {
    if let Some(mut own) = load_goal(store, caller)?.filter(Goal::is_open) {
        if matches!(own.completion_status, Status::Blocked | Status::Paused) {
            own = goals::update(store, caller, &json!({"status": "active"}))?.goal;
        }
        return Ok((
            context(format!(
                "[goal-system] Continuing this session's goal {}.\n{}",
                own.id,
                messages::prompt_note(&own)
            )),
            None,
        ));
    }
    let found = continuation::find_for_continuation(store, &caller.cwd)?;
    let pick = |goals: Vec<Goal>| -> Vec<Goal> {
        match target {
            Some(t) => goals
                .into_iter()
                .filter(|g| g.id == t || g.session_id == t)
                .collect(),
            None => goals,
        }
    };
    let candidates = match found {
        Continuation::None => Vec::new(),
        Continuation::One(g) => pick(vec![g]),
        Continuation::Ambiguous(goals) => pick(goals),
    };
    match candidates.len() {
        0 => {
            let text = match target {
                Some(t) => format!("[goal-system] No open goal in this directory matches {}. Nothing was continued and no goal was invented.", messages::quote(t)),
                None => "[goal-system] There is no open goal in this directory to continue. Nothing was continued and no goal was invented; the user can start one with /goal <objective>.".into(),
            };
            Ok((context(text), None))
        }
        1 => {
            let goal = candidates.into_iter().next().expect("one candidate");
            let mut adopted = goals::adopt(store, goal, &caller.session_id, &caller.cwd)?;
            if adopted.completion_status == Status::Blocked {
                adopted = goals::update(store, caller, &json!({"status": "active"}))?.goal;
            }
            store.audit("continue", Some(&adopted), "explicit continue prompt");
            Ok((context(format!("[goal-system] Continued goal {} into this session on the user's explicit request.\n{}", adopted.id, messages::prompt_note(&adopted))), None))
        }
        n => {
            // Bounded: thousands of open goals must not flood the model's
            // context; the user can name any goal by id or session.
            let mut list = candidates
                .iter()
                .take(CONTINUE_LIST_MAX)
                .map(|g| {
                    format!(
                        "- goal {} (session {}, {}): {}",
                        g.id,
                        messages::quote(&g.session_id),
                        g.status_label(),
                        messages::quote(&redact::truncate(&g.objective, 120))
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            if n > CONTINUE_LIST_MAX {
                list.push_str(&format!("\n- and {} more", n - CONTINUE_LIST_MAX));
            }
            Ok((context(format!("[goal-system] {n} open goals in this directory; automatic continuation refused. Ask the user which one to continue (\"/goal continue <goal id or session id>\"):\n{list}")), None))
        }
    }
}
