//! User prompts: `/goal` commands and activation, explicit continuation, and
//! the goal note injected into every prompt of a session with an open goal.

use serde_json::json;

use super::{context, load_goal, Payload};
use super::{Decision, Delivery, Event, Host};
use crate::activation::{self, Form, Intent};
use crate::board;
use crate::continuation::{self, Continuation};
use crate::drift::{self, Drift};
use crate::error::Result;
use crate::goals::{self, Caller};
use crate::messages::{self, Spelling};
use crate::provenance::{self, Route};
use crate::record::{Goal, Status};
use crate::redact;
use crate::store::Store;

pub(super) fn on_prompt(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
    delivery: &Delivery,
    event: Event,
) -> Result<(Decision, Option<String>)> {
    let prompt = payload.prompt.clone().unwrap_or_default();
    if prompt.trim_start().starts_with(messages::VOICE) || is_host_notice(&prompt) {
        // Copilot CLI re-submits a stop block's reason as a user prompt, and
        // its own notifications: our own directive, or the host's, never the user's.
        return Ok((Decision::default(), None));
    }
    let sp = delivery.spelling();
    // The user's interrupt since the last prompt pauses the goal first, so a
    // `resume` typed now resumes it. Pausing is the user's: only at a prompt
    // the host delivered (an interrupt line the agent appended to the record,
    // read at a prompt it forged, pauses nothing: review-7 V5); on Claude
    // Code the pause waits for the transcript like a command.
    let mut paused = None;
    let mut pre = None;
    if let Some(record) = delivery.record_to_pin(store, caller, payload) {
        let goal = load_goal(store, caller)?;
        let unpinned = goal.as_ref().is_some_and(|g| g.voice.record_key.is_empty());
        // Who delivered the prompt is asked (the process chain and the
        // host's environment read) only where it decides something: whether
        // the goal may pin this record, and whether an interrupt the record
        // holds may pause it. An interrupt written after this look waits,
        // unread, for the next prompt, as one read at a forged prompt does.
        let asked = unpinned
            || goal
                .as_ref()
                .is_some_and(|g| goals::unread_interrupt(g, &record));
        let voice = if asked {
            Some(prompt_voice(store, caller, payload, delivery)?)
        } else {
            None
        };
        // A pause that waits for the record needs the goal's one pending slot.
        let waiting = goal.as_ref().is_some_and(|g| g.voice.pending.is_some());
        let may_pause = match voice {
            None | Some(provenance::Voice::Refused(_)) => false,
            Some(provenance::Voice::Provisional { .. }) => !waiting,
            Some(_) => true,
        };
        // A prompt the host did not deliver pins no record for the goal.
        if !(unpinned && matches!(voice, Some(provenance::Voice::Refused(_)))) {
            paused = goals::note_interrupt(store, caller, &record, may_pause)?;
        }
        if paused.is_some() {
            pre = goal;
        }
        if let (Some(_), Some(voice @ provenance::Voice::Provisional { .. })) = (&paused, &voice) {
            let (intent, _) = activation::parse_prompt_form(&prompt);
            if !needs_voice(&intent) {
                // A plain prompt: its own record confirms the pause; a
                // command's pending (below) covers it otherwise.
                let typed = format!("(interrupt) {}", redact::preview(&prompt, 60));
                if let Some(p) = provenance::pending(&typed, &prompt, voice, pre.clone()) {
                    goals::attach_pending(store, caller, p)?;
                }
            }
        }
    }
    if let Some(done) =
        super::autopilot::after_user_stop(store, caller, delivery.host, &prompt, sp)?
    {
        return Ok((done, None));
    }
    let (intent, form) = activation::parse_prompt_form(&prompt);
    let intent = as_command(store, caller, intent, form)?;
    if event == Event::SessionStart && repeated_later(delivery.host, &intent) {
        return Ok((Decision::default(), None));
    }
    let mut out = if needs_voice(&intent) {
        let out = command(
            store,
            caller,
            payload,
            delivery,
            &prompt,
            (intent, form),
            pre,
        )?;
        // A goal the command opened reads the record from here on.
        if let Some(record) = delivery.record_to_pin(store, caller, payload) {
            goals::note_interrupt(store, caller, &record, false)?;
        }
        out
    } else {
        let ran = run_intent(store, caller, &prompt, intent, sp);
        goals::note_user_prompt(store, caller, &prompt);
        ran?
    };
    if let Some(goal) = paused {
        let note = messages::paused_by_interrupt(&goal, sp);
        out.0.system_message = Some(match out.0.system_message.take() {
            Some(msg) => format!("{note}\n{msg}"),
            None => note.clone(),
        });
        out.0.context = Some(match out.0.context.take() {
            Some(ctx) => format!("{note}\n{ctx}"),
            None => note,
        });
    }
    Ok(out)
}

/// Copilot CLI hands a session's first prompt to sessionStart and again to
/// userPromptSubmitted; only the latter can end a command there, so a
/// command other than opening the goal waits for it (done once, answered once).
fn repeated_later(host: Host, intent: &Intent) -> bool {
    matches!(host, Host::CopilotCli | Host::CopilotSdk)
        && !matches!(intent, Intent::None | Intent::Show | Intent::Open { .. })
}

/// Prompts the host writes itself (Copilot CLI's notifications).
fn is_host_notice(prompt: &str) -> bool {
    prompt.trim_start().starts_with("<system_notification>")
}

/// Which intents change the goal, and so need the user's own voice. The
/// consolidation agent's launch order changes none: the agent may start that
/// agent itself.
fn needs_voice(intent: &Intent) -> bool {
    !matches!(intent, Intent::None | Intent::Show | Intent::Consolidate)
}

/// Copilot CLI drops `--` from `/goal pause -- back after lunch` and hands
/// the rest over as an objective: while a goal is open, a leading command
/// word there is the command, with the rest as its reason.
fn as_command(store: &Store, caller: &Caller, intent: Intent, form: Form) -> Result<Intent> {
    let Intent::Open { objective, .. } = &intent else {
        return Ok(intent);
    };
    if form != Form::Autopilot {
        return Ok(intent);
    }
    let Some((word, rest)) = objective.split_once(char::is_whitespace) else {
        return Ok(intent);
    };
    let command_word = matches!(
        word.to_ascii_lowercase().as_str(),
        "pause" | "cancel" | "stop" | "clear" | "off" | "reset"
    );
    if !command_word || load_goal(store, caller)?.filter(Goal::is_open).is_none() {
        return Ok(intent);
    }
    Ok(activation::parse_prompt(&format!("/goal {word}: {rest}")))
}

/// A user command: done only when the host delivered it, answered the way
/// the host lets a command end there (no model call, no work started).
fn command(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
    delivery: &Delivery,
    prompt: &str,
    (intent, form): (Intent, Form),
    paused_from: Option<Goal>,
) -> Result<(Decision, Option<String>)> {
    let sp = delivery.spelling();
    let typed = redact::preview(prompt, 80);
    // A goal this prompt's interrupt paused rolls back to before the pause.
    let paused = paused_from.is_some();
    let before = match paused_from {
        Some(goal) => Some(goal),
        None => load_goal(store, caller)?,
    };
    let voice = prompt_voice(store, caller, payload, delivery)?;
    // While a command waits for the host's record, another one is not taken:
    // a refuted command rolls back to the goal it found, and a second command
    // stacked on it would make the first one's result that goal (review-7 V2).
    // The hook already waited for the record (`provenance::settle`).
    let waiting = before.as_ref().and_then(|g| g.voice.pending.as_deref());
    // Copilot CLI hands a session's first prompt to two hooks: the second
    // delivery of a waiting command is that command, and keeps its pending.
    let again = waiting.is_some_and(|w| {
        w.fingerprint == redact::fingerprint(&provenance::records::normalize(prompt))
    });
    let voice = match (&voice, waiting) {
        (provenance::Voice::Provisional { .. }, Some(_)) if again => provenance::Voice::User,
        (provenance::Voice::Provisional { .. }, Some(waiting)) => provenance::Voice::Refused(
            format!(
                "the command {} is still waiting for the host's record to confirm it; type this one again in a moment",
                messages::quote(&waiting.command)
            ),
        ),
        _ => voice,
    };
    if let provenance::Voice::Refused(why) = &voice {
        provenance::note_refused(store, &caller.session_id, &caller.cwd, &typed, why);
        let note = format!("user command refused: {why}");
        // Said where the user reads it too: a user's own command refused
        // (a host this check does not know) must not vanish silently.
        let decision = Decision {
            system_message: Some(messages::command_not_taken(&typed, why)),
            ..Decision::default()
        };
        return Ok((decision, Some(note)));
    }
    let consumed = consumes(&intent);
    let pending = provenance::pending(&typed, prompt, &voice, before);
    let ran = run_intent(store, caller, prompt, intent, sp);
    goals::note_user_prompt(store, caller, prompt);
    let (mut decision, note) = match ran {
        Ok(out) => out,
        // A /goal command that could not be done says why where the user reads it.
        Err(e) => {
            // The interrupt's pause still waits for the record.
            if let Some(pending) = pending.filter(|_| paused) {
                goals::attach_pending(store, caller, pending)?;
            }
            let text = format!("{} {}: {}", messages::VOICE, sp.control, e.message);
            let decision = Decision {
                context: Some(text.clone()),
                system_message: Some(text),
                ..Decision::default()
            };
            return Ok((decision, None));
        }
    };
    let nonce = pending.as_ref().map(|p| p.nonce.clone());
    if let Some(pending) = pending {
        goals::attach_pending(store, caller, pending)?;
    }
    if consumed {
        let text = decision.context.take().unwrap_or_default();
        let text = match nonce {
            Some(n) => format!("{text} (ref {n})"),
            None => text,
        };
        match (delivery.host, form) {
            // Copilot CLI has already put its autopilot on the command's
            // words: the model is told there is nothing to do but end it.
            (Host::CopilotCli | Host::CopilotSdk, Form::Autopilot) => {
                decision.modify_prompt = Some(messages::autopilot_consumed(&text, sp));
            }
            _ => decision.consume = Some(text),
        }
    }
    if delivery.host == Host::Claude
        && delivery.origin.route == Route::Plugin
        && form == Form::Typed
    {
        if let Some(notice) = builtin_goal_notice(prompt, sp) {
            decision.system_message = Some(match decision.system_message.take() {
                Some(msg) => format!("{notice}\n{msg}"),
                None => notice,
            });
        }
    }
    Ok((decision, note))
}

/// Who spoke in this prompt (see `provenance::voice`).
fn prompt_voice(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
    delivery: &Delivery,
) -> Result<provenance::Voice> {
    let goal = load_goal(store, caller)?;
    let pinned = goal.as_ref().map_or("", |g| g.voice.record_key.as_str());
    let record = match delivery.host {
        // Copilot CLI's session-state folder as the running host has it
        // (`provenance::process::host_environ`): a hook run from the agent's
        // shell with `GOAL_SYSTEM_SESSION_STATE` at a folder of its making
        // would otherwise read a planted `events.jsonl`.
        Host::CopilotCli => provenance::process::host_environ(
            delivery.origin.chain(),
            provenance::process::HostProc::Copilot,
        )
        .and_then(|var| crate::store::StoreConfig::from_vars(var).ok())
        .and_then(|config| config.copilot_events(&payload.session_id))
        .or_else(|| delivery.record(store, payload)),
        _ => delivery.record(store, payload),
    };
    Ok(provenance::voice(
        delivery.host,
        payload,
        delivery.origin,
        &store.config.claude_dirs,
        pinned,
        record.as_deref(),
    ))
}

/// Commands the goal system answers itself: the model is not called.
fn consumes(intent: &Intent) -> bool {
    matches!(
        intent,
        Intent::Cancel { .. } | Intent::Pause { .. } | Intent::Budget { .. }
    )
}

/// On Claude Code's plugin route a bare `/goal …` also reaches Claude's own
/// built-in `/goal`, which sets a goal of its own: the user hears of it at once.
fn builtin_goal_notice(prompt: &str, sp: Spelling) -> Option<String> {
    let bare = prompt.trim_start();
    let bare = bare.strip_prefix("/goal")?;
    (bare.is_empty() || bare.starts_with(char::is_whitespace)).then(|| {
        format!(
            "{} If Claude Code's own /goal also took this (it then shows \"Goal set\"), it keeps a goal of its own beside the goal system's: type /goal clear to remove Claude's. With the goal-system plugin, type {} … for the goal system.",
            messages::VOICE,
            sp.control
        )
    })
}

fn run_intent(
    store: &Store,
    caller: &Caller,
    prompt: &str,
    intent: Intent,
    sp: Spelling,
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
            let reason = reason
                .unwrap_or_else(|| format!("cancelled by the user with {}", sp.cmd("cancel")));
            let closed = goals::close(
                store,
                caller,
                &json!({"status": "cancelled", "reason": reason}),
            )?;
            Ok((
                context(format!(
                    "{} Goal {} cancelled by the user. Nothing more is held for it.",
                    messages::VOICE,
                    closed.goal.id
                )),
                None,
            ))
        }
        Intent::Pause { reason } => {
            let reason =
                reason.unwrap_or_else(|| format!("paused by the user with {}", sp.cmd("pause")));
            let upd = goals::update(
                store,
                caller,
                &json!({"status": "paused", "statusReason": reason}),
            )?;
            Ok((
                context(format!(
                    "{} Goal {} paused by the user: no stop is held and nothing is continued until the user types {}.",
                    messages::VOICE,
                    upd.goal.id,
                    sp.cmd("resume")
                )),
                None,
            ))
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
            Ok((context(text), None))
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
