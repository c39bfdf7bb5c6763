//! Hook decisions: a host's payload in, the host's answer out. Copilot CLI's
//! shell hook (through the native `goal-hook` executable or Node), its SDK
//! extension, VS Code's and Claude Code's hook runner all come here, so every
//! host gets the same decision from the same rule.
//!
//! A hook never crashes the host and never denies by accident: any internal
//! fault yields a clear message on stderr, an allow-shaped answer and a line in
//! the fault log.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::activation::{self, Intent};
use crate::clock;
use crate::continuation::{self, Continuation};
use crate::drift::{self, Drift};
use crate::error::Result;
use crate::gate;
use crate::ops::{self, Caller};
use crate::record::{Goal, Status, ToolEvent, ToolKind};
use crate::redact;
use crate::store::{Change, Store, StoreConfig};
use crate::summary;

/// Consecutive blocked stops (with no tool call between) before the loop guard
/// lets the stop through and marks the goal blocked.
pub const MAX_BLOCKED_STOPS: u32 = 3;
/// Tool-history entries kept per goal; counters survive trimming.
pub const HISTORY_WINDOW: usize = 50;

/// The host whose protocol a hook speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// Copilot CLI's `hooks.json` command hooks.
    CopilotCli,
    /// Copilot CLI's SDK extension hooks (same answer shapes as the CLI).
    CopilotSdk,
    /// VS Code Copilot Chat agent hooks.
    VsCode,
    /// Claude Code hooks.
    Claude,
}

impl Host {
    pub fn parse(name: &str) -> Option<Host> {
        match name.trim().to_ascii_lowercase().as_str() {
            "copilot-cli" | "copilot" | "cli" => Some(Host::CopilotCli),
            "copilot-sdk" | "sdk" | "extension" => Some(Host::CopilotSdk),
            "vscode" | "vs-code" | "code" => Some(Host::VsCode),
            "claude" | "claude-code" => Some(Host::Claude),
            _ => None,
        }
    }

    fn source(self) -> &'static str {
        match self {
            Host::CopilotCli => "cli-hook",
            Host::CopilotSdk => "sdk",
            Host::VsCode => "vscode",
            Host::Claude => "claude",
        }
    }
}

/// Lifecycle events, whatever the host calls them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    SessionStart,
    UserPrompt,
    PreToolUse,
    PostToolUse,
    PreCompact,
    SubagentStart,
    SubagentStop,
    Stop,
    SessionEnd,
    Other,
}

impl Event {
    /// Accepts camelCase (`agentStop`), PascalCase (`Stop`) and snake_case.
    pub fn parse(name: &str) -> Event {
        let key: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match key.as_str() {
            "sessionstart" => Event::SessionStart,
            "userpromptsubmitted" | "userpromptsubmit" | "userprompt" => Event::UserPrompt,
            "pretooluse" => Event::PreToolUse,
            "posttooluse" => Event::PostToolUse,
            "precompact" => Event::PreCompact,
            "subagentstart" => Event::SubagentStart,
            "subagentstop" => Event::SubagentStop,
            "agentstop" | "stop" => Event::Stop,
            "sessionend" => Event::SessionEnd,
            _ => Event::Other,
        }
    }

    fn pascal(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::UserPrompt => "UserPromptSubmit",
            Event::PreToolUse => "PreToolUse",
            Event::PostToolUse => "PostToolUse",
            Event::PreCompact => "PreCompact",
            Event::SubagentStart => "SubagentStart",
            Event::SubagentStop => "SubagentStop",
            Event::Stop => "Stop",
            Event::SessionEnd => "SessionEnd",
            Event::Other => "Unknown",
        }
    }
}

/// What the hook decided, before it is put in a host's shape.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// Deny the tool call(s), with the reason the model sees.
    pub deny: Option<String>,
    /// Block the stop and keep the agent going, with the directive.
    pub block: Option<String>,
    /// Extra context for the model.
    pub context: Option<String>,
    /// A message for the user.
    pub system_message: Option<String>,
}

/// The process-level answer: what to print and how to exit.
#[derive(Debug, Clone, PartialEq)]
pub struct HookOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

/// One tool call in a payload.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub name: String,
    pub args: Value,
}

/// A payload, read into host-neutral terms.
#[derive(Debug, Clone, Default)]
pub struct Payload {
    pub session_id: String,
    pub cwd: String,
    pub calls: Vec<ToolCall>,
    pub result_type: String,
    pub prompt: Option<String>,
    pub trigger: String,
    pub subagent: bool,
}

fn str_field<'a>(obj: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
}

/// Tool arguments arrive as an object or as a JSON string: read both.
fn args_value(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| json!({ "input": s })),
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// Read a payload of any supported host into neutral terms.
pub fn read_payload(value: &Value) -> Payload {
    let empty = Map::new();
    let obj = value.as_object().unwrap_or(&empty);
    let mut calls = Vec::new();
    if let Some(Value::Array(batch)) = obj.get("toolCalls").or_else(|| obj.get("tool_calls")) {
        // Copilot CLI 1.0.102 sends preToolUse as a batch of {id, name, args}.
        for call in batch {
            if let Some(c) = call.as_object() {
                let name = str_field(c, &["name", "toolName", "tool_name"]).unwrap_or("");
                calls.push(ToolCall {
                    name: name.to_string(),
                    args: args_value(
                        c.get("args")
                            .or_else(|| c.get("arguments"))
                            .or_else(|| c.get("toolArgs")),
                    ),
                });
            }
        }
    } else if let Some(name) = str_field(obj, &["toolName", "tool_name"]) {
        calls.push(ToolCall {
            name: name.to_string(),
            args: args_value(
                obj.get("toolArgs")
                    .or_else(|| obj.get("tool_input"))
                    .or_else(|| obj.get("toolInput")),
            ),
        });
    }
    let result_type = obj
        .get("toolResult")
        .and_then(|r| r.get("resultType"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            obj.get("tool_response").map(|r| {
                if r.get("interrupted").and_then(Value::as_bool) == Some(true)
                    || r.get("is_error").and_then(Value::as_bool) == Some(true)
                {
                    "failure".to_string()
                } else {
                    "success".to_string()
                }
            })
        })
        .unwrap_or_default();
    let subagent = looks_like_subagent(value, None);
    Payload {
        session_id: str_field(obj, &["sessionId", "session_id"])
            .unwrap_or("")
            .to_string(),
        cwd: str_field(
            obj,
            &[
                "cwd",
                "workingDirectory",
                "working_directory",
                "workspaceFolder",
                "workspace_folder",
            ],
        )
        .unwrap_or("")
        .to_string(),
        calls,
        result_type,
        prompt: str_field(
            obj,
            &["prompt", "initialPrompt", "initial_prompt", "userPrompt"],
        )
        .map(str::to_string),
        trigger: str_field(obj, &["trigger", "source"])
            .unwrap_or("")
            .to_string(),
        subagent,
    }
}

/// Does a hook payload or a tool invocation come from a subagent? Claude Code
/// and VS Code put `agent_id` on tool events inside a subagent; the Copilot SDK
/// may mark the invocation (`isSubagent`, `parentSessionId`, ...), and its hook
/// inputs carry the session that triggered them, which for a subagent differs
/// from the main session (`main_session`).
pub fn looks_like_subagent(value: &Value, main_session: Option<&str>) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    const MARKERS: [&str; 6] = [
        "agent_id",
        "agentId",
        "parentSessionId",
        "parent_session_id",
        "parentInvocationId",
        "parent_invocation_id",
    ];
    const FLAGS: [&str; 3] = ["isSubagent", "is_subagent", "subagent"];
    let marked = MARKERS.iter().any(|k| {
        obj.get(*k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    }) || FLAGS
        .iter()
        .any(|k| obj.get(*k).and_then(Value::as_bool) == Some(true));
    let other_session = main_session.filter(|m| !m.is_empty()).is_some_and(|main| {
        str_field(obj, &["sessionId", "session_id"]).is_some_and(|s| s != main)
    });
    marked || other_session
}

/// Is this payload a stop attempt? Every host's variant counts.
pub fn is_stop_payload(value: &Value) -> bool {
    const KEYS: [&str; 8] = [
        "stopReason",
        "stop_reason",
        "finishReason",
        "finish_reason",
        "completionReason",
        "completion_reason",
        "terminationReason",
        "termination_reason",
    ];
    value.as_object().is_some_and(|o| {
        KEYS.iter().any(|k| o.contains_key(*k)) || o.contains_key("stop_hook_active")
    })
}

/// Run one hook: parse stdin, decide, render. Never panics, never fails.
pub fn run(host: Host, event_name: &str, stdin: &str) -> HookOutput {
    let config = StoreConfig::from_env();
    run_with(host, event_name, stdin, config)
}

/// `run` with an explicit store configuration (tests, the addon).
pub fn run_with(
    host: Host,
    event_name: &str,
    stdin: &str,
    config: Result<StoreConfig>,
) -> HookOutput {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        decide_safely(host, event_name, stdin, config)
    }));
    match outcome {
        Ok(out) => out,
        Err(_) => fault_output(
            host,
            Event::parse(event_name),
            "internal panic in the goal-system hook",
            None,
        ),
    }
}

fn decide_safely(
    host: Host,
    event_name: &str,
    stdin: &str,
    config: Result<StoreConfig>,
) -> HookOutput {
    let trimmed = stdin.trim();
    let value: Value = if trimmed.is_empty() {
        Value::Object(Map::new())
    } else {
        match serde_json::from_str(trimmed) {
            Ok(v) => v,
            Err(e) => {
                let store = config.ok().map(Store::new);
                return fault_output(
                    host,
                    Event::parse(event_name),
                    &format!("stdin is not valid JSON ({e}); allowing"),
                    store.as_ref(),
                );
            }
        }
    };
    let mut event = Event::parse(event_name);
    if event == Event::Other && event_name.trim().is_empty() {
        if let Some(name) = value
            .get("hook_event_name")
            .or_else(|| value.get("hookEventName"))
            .and_then(Value::as_str)
        {
            event = Event::parse(name);
        }
    }
    if event == Event::Other && is_stop_payload(&value) {
        event = Event::Stop;
    }
    let store = match config {
        Ok(c) => Store::new(c),
        Err(e) => return fault_output(host, event, &format!("state root unavailable: {e}"), None),
    };
    match decide(&store, host, event, &value) {
        Ok((decision, note)) => render(host, event, decision, note),
        Err(e) => fault_output(host, event, &e.to_string(), Some(&store)),
    }
}

fn fault_output(host: Host, event: Event, message: &str, store: Option<&Store>) -> HookOutput {
    if let Some(store) = store {
        store.record_fault(event.pascal(), message);
    }
    let mut out = render(host, event, Decision::default(), None);
    out.stderr = format!("goal-system hook ({}): {message}\n", event.pascal());
    out
}

/// The decision for one event. Returns the decision and an optional stderr note.
pub fn decide(
    store: &Store,
    host: Host,
    event: Event,
    value: &Value,
) -> Result<(Decision, Option<String>)> {
    let payload = read_payload(value);
    if event == Event::SubagentStart {
        return Ok((
            Decision {
                context: Some(summary::subagent_boundary().to_string()),
                ..Decision::default()
            },
            None,
        ));
    }
    if matches!(
        event,
        Event::SubagentStop | Event::SessionEnd | Event::Other
    ) {
        let note = (event == Event::Other).then(|| "unknown hook event; allowing".to_string());
        return Ok((Decision::default(), note));
    }
    if payload.session_id.is_empty() {
        return Ok((
            Decision::default(),
            Some("payload has no sessionId; nothing to do".into()),
        ));
    }
    if payload.subagent && matches!(event, Event::PreToolUse | Event::PostToolUse | Event::Stop) {
        // Subagent tool use never counts and is never the main session's evidence.
        return Ok((Decision::default(), None));
    }
    let caller = Caller::new(payload.session_id.clone(), payload.cwd.clone());
    STORE_NOTES.with(|notes| notes.borrow_mut().clear());
    let result = match event {
        Event::SessionStart | Event::UserPrompt => on_prompt(store, &caller, &payload),
        Event::PreToolUse => on_pre_tool(store, &caller, &payload),
        Event::PostToolUse => on_post_tool(store, host, &caller, &payload),
        Event::Stop => on_stop(store, &caller),
        Event::PreCompact => on_pre_compact(store, &caller, &payload),
        _ => Ok((Decision::default(), None)),
    };
    let warnings = STORE_NOTES.with(|notes| std::mem::take(&mut *notes.borrow_mut()));
    for warning in &warnings {
        store.record_fault("store", warning);
    }
    let (decision, note) = result?;
    let note = match (note, warnings.is_empty()) {
        (note, true) => note,
        (None, false) => Some(warnings.join("; ")),
        (Some(n), false) => Some(format!("{n}; {}", warnings.join("; "))),
    };
    Ok((decision, note))
}

thread_local! {
    /// Store warnings met while deciding (a corrupt copy set aside, a copy not
    /// written): collected here rather than threaded through every handler, then
    /// reported on stderr and in the fault log by `decide`.
    static STORE_NOTES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn note_warnings(warnings: Vec<String>) {
    if !warnings.is_empty() {
        STORE_NOTES.with(|notes| notes.borrow_mut().extend(warnings));
    }
}

fn load_goal(store: &Store, caller: &Caller) -> Result<Option<Goal>> {
    let cwd = (!caller.cwd.is_empty()).then_some(caller.cwd.as_str());
    let loaded = store.load(&caller.session_id, cwd)?;
    note_warnings(loaded.warnings);
    Ok(loaded.goal)
}

fn context(text: String) -> Decision {
    Decision {
        context: Some(text),
        ..Decision::default()
    }
}

fn on_prompt(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let prompt = payload.prompt.clone().unwrap_or_default();
    if prompt.trim_start().starts_with(summary::VOICE) {
        // Copilot CLI re-submits a stop block's reason as a user prompt: it is
        // our own directive, not the user's, and already carries the goal.
        return Ok((Decision::default(), None));
    }
    let intent = activation::parse_prompt(&prompt);
    match intent {
        Intent::Open { objective, kind } => {
            let req = json!({
                "objective": objective,
                "status": "draft",
                "replace": true,
                "sourcePrompt": prompt,
                "sourceKind": kind,
            });
            let opened = ops::open(store, caller, &req)?;
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
            Ok((
                context(format!(
                    "{head} {next}\n{}",
                    summary::prompt_note(&opened.goal)
                )),
                None,
            ))
        }
        Intent::Continue { target } => on_continue(store, caller, target.as_deref()),
        Intent::Show => {
            let report = ops::status(store, caller)?;
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
            let closed = ops::close(
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
            let upd = ops::update(
                store,
                caller,
                &json!({"status": "blocked", "statusReason": reason}),
            )?;
            Ok((context(format!("[goal-system] The user paused goal {} (blocked, resumable). Do not continue it until the user resumes it.", upd.goal.id)), None))
        }
        Intent::None => {
            let Some(goal) = load_goal(store, caller)? else {
                return Ok((Decision::default(), None));
            };
            if !goal.is_open() {
                return Ok((Decision::default(), None));
            }
            let mut note = summary::prompt_note(&goal);
            if let Drift::Warn(n) | Drift::Deny(n) = drift::decide(goal.drift()) {
                note.push('\n');
                note.push_str(&summary::drift_warning(&goal, n, drift::DENY_AT));
            }
            Ok((context(note), None))
        }
    }
}

fn on_continue(
    store: &Store,
    caller: &Caller,
    target: Option<&str>,
) -> Result<(Decision, Option<String>)> {
    if let Some(mut own) = load_goal(store, caller)?.filter(Goal::is_open) {
        if own.completion_status == Status::Blocked {
            own = ops::update(store, caller, &json!({"status": "active"}))?.goal;
        }
        return Ok((
            context(format!(
                "[goal-system] Continuing this session's goal {}.\n{}",
                own.id,
                summary::prompt_note(&own)
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
                Some(t) => format!("[goal-system] No open goal in this directory matches {}. Nothing was continued and no goal was invented.", summary::quote(t)),
                None => "[goal-system] There is no open goal in this directory to continue. Nothing was continued and no goal was invented; the user can start one with /goal <objective>.".into(),
            };
            Ok((context(text), None))
        }
        1 => {
            let goal = candidates.into_iter().next().expect("one candidate");
            let mut adopted = continuation::adopt(store, goal, &caller.session_id, &caller.cwd)?;
            if adopted.completion_status == Status::Blocked {
                adopted = ops::update(store, caller, &json!({"status": "active"}))?.goal;
            }
            store.audit("continue", Some(&adopted), "explicit continue prompt");
            Ok((context(format!("[goal-system] Continued goal {} into this session on the user's explicit request.\n{}", adopted.id, summary::prompt_note(&adopted))), None))
        }
        n => {
            let list = candidates
                .iter()
                .map(|g| {
                    format!(
                        "- goal {} (session {}, {}): {}",
                        g.id,
                        summary::quote(&g.session_id),
                        g.status_label(),
                        summary::quote(&redact::truncate(&g.objective, 120))
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            Ok((context(format!("[goal-system] {n} open goals in this directory; automatic continuation refused. Ask the user which one to continue (\"/goal continue <goal id or session id>\"):\n{list}")), None))
        }
    }
}

fn on_pre_tool(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let Some(goal) = load_goal(store, caller)?.filter(Goal::is_open) else {
        return Ok((Decision::default(), None));
    };
    let mut count = goal.drift();
    let mut warn = None;
    for call in &payload.calls {
        let kind = drift::classify(&call.name, &call.args);
        if drift::is_completion_claim(&call.name) {
            if let Some(d) = on_completion_claim(store, caller, &goal)? {
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
                        deny: Some(summary::drift_denial(&goal, n)),
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
                warn = Some(summary::drift_warning(&goal, n, drift::DENY_AT))
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
    let held = match stop_attempt(store, caller, goal.id.as_str())? {
        Attempt::NotWorking => return Ok(None),
        Attempt::Released(goal) => return Ok(Some(released(&goal))),
        Attempt::Held(goal) => goal,
    };
    let unmet = gate::check(&held);
    let reason = if unmet.is_empty() {
        format!(
            "[goal-system] task_complete refused: the completion gate is met but goal {} is still open. Call goal_system_close with status complete first, then task_complete.",
            held.id
        )
    } else {
        summary::completion_claim_denial(&held, &unmet)
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

/// What the loop guard made of a stop attempt.
enum Attempt {
    /// The goal is not draft/active (any more): nothing to hold.
    NotWorking,
    /// Counted; the goal as stored now (its guard level tells the escalation).
    Held(Goal),
    /// The bound was passed: the goal is now blocked (resumable) and the stop goes through.
    Released(Goal),
}

/// Count a stop attempt (a stop, or a completion claim) on the loop guard, in
/// one locked read-modify-write.
fn stop_attempt(store: &Store, caller: &Caller, goal_id: &str) -> Result<Attempt> {
    let (attempt, warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let Some(mut goal) = current.filter(|g| g.id == goal_id && g.is_working()) else {
                return Ok((Change::None, Attempt::NotWorking));
            };
            let guard = &mut goal.stop_guard;
            // Only tool activity between two attempts counts as progress.
            if guard.blocked_stops > 0 && goal.tool_history.seq == guard.seq_at_last_block {
                guard.blocked_stops += 1;
            } else {
                guard.blocked_stops = 1;
            }
            guard.seq_at_last_block = goal.tool_history.seq;
            guard.total_blocked += 1;
            let level = guard.blocked_stops;
            goal.updated_at = clock::now_iso();
            if level > MAX_BLOCKED_STOPS {
                // The reason lives in statusReason only: it is the guard's, not a
                // blocker of the work, so resuming (status active) clears it.
                goal.completion_status = Status::Blocked;
                goal.status_reason = Some(summary::loop_guard_reason(level));
                goal.stop_guard.blocked_stops = 0;
                return Ok((Change::Save(goal.clone()), Attempt::Released(goal)));
            }
            Ok((Change::Save(goal.clone()), Attempt::Held(goal)))
        })?;
    note_warnings(warnings);
    if let Attempt::Released(g) = &attempt {
        store.audit(
            "loop-guard",
            Some(g),
            "stop let through; goal blocked (resumable)",
        );
    }
    Ok(attempt)
}

fn released(goal: &Goal) -> Decision {
    Decision {
        system_message: Some(summary::loop_guard_release(goal, MAX_BLOCKED_STOPS + 1)),
        ..Decision::default()
    }
}

fn on_stop(store: &Store, caller: &Caller) -> Result<(Decision, Option<String>)> {
    let Some(goal) = load_goal(store, caller)?.filter(Goal::is_working) else {
        return Ok((Decision::default(), None));
    };
    let attempt = stop_attempt(store, caller, &goal.id)?;
    if let Attempt::Held(g) = &attempt {
        store.audit(
            "stop-blocked",
            Some(g),
            &format!(
                "blocked stop {} in a row; next: {}",
                g.stop_guard.blocked_stops,
                summary::next_item(g).unwrap_or("(none)")
            ),
        );
    }
    Ok(match attempt {
        Attempt::NotWorking => (Decision::default(), None),
        Attempt::Released(goal) => {
            let decision = released(&goal);
            let note = decision.system_message.clone();
            (decision, note)
        }
        Attempt::Held(goal) => (
            Decision {
                block: Some(summary::continuation_directive(
                    &goal,
                    goal.stop_guard.blocked_stops.max(1),
                    MAX_BLOCKED_STOPS,
                )),
                ..Decision::default()
            },
            None,
        ),
    })
}

fn call_key(call: &ToolCall) -> String {
    let mut hasher = Sha256::new();
    hasher.update(call.name.as_bytes());
    hasher.update([0]);
    hasher.update(call.args.to_string().as_bytes());
    hasher
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Record one tool call in the goal's history (bounded, redacted).
pub fn record_tool(
    goal: &mut Goal,
    call: &ToolCall,
    result: &str,
    source: &str,
    now_ms: u64,
) -> bool {
    let kind = drift::classify(&call.name, &call.args);
    if matches!(kind, ToolKind::Goal | ToolKind::Meta) {
        return false;
    }
    let key = call_key(call);
    // The CLI hook and the SDK extension may both see one call: count it once.
    if let Some(last) = goal.tool_history.recent.last() {
        let recent = now_ms.saturating_sub(last.at_ms) < 10_000;
        if last.key == key && last.source != source && recent {
            return false;
        }
    }
    let h = &mut goal.tool_history;
    h.seq += 1;
    match kind {
        ToolKind::Inspection => h.inspections += 1,
        ToolKind::Verification => h.verifications += 1,
        ToolKind::Delegation => h.delegations += 1,
        _ => h.actions += 1,
    }
    h.recent.push(ToolEvent {
        seq: h.seq,
        at: clock::iso_from_ms(now_ms),
        at_ms: now_ms,
        tool: redact::truncate(&call.name, 80),
        kind,
        summary: drift::summarize(&call.name, &call.args),
        result: redact::truncate(result, 20),
        source: source.to_string(),
        key,
    });
    if h.recent.len() > HISTORY_WINDOW {
        let cut = h.recent.len() - HISTORY_WINDOW;
        h.recent.drain(..cut);
    }
    true
}

fn on_post_tool(
    store: &Store,
    host: Host,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    if payload.calls.is_empty() {
        return Ok((Decision::default(), None));
    }
    let counts = payload.calls.iter().any(|c| {
        !matches!(
            drift::classify(&c.name, &c.args),
            ToolKind::Goal | ToolKind::Meta
        )
    });
    if !counts {
        return Ok((Decision::default(), None));
    }
    let now = clock::now_ms();
    let ((), warnings) = store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
        let Some(mut goal) = current.filter(Goal::is_open) else {
            return Ok((Change::None, ()));
        };
        let mut changed = false;
        for call in &payload.calls {
            changed |= record_tool(&mut goal, call, &payload.result_type, host.source(), now);
        }
        if !changed {
            return Ok((Change::None, ()));
        }
        Ok((Change::Save(goal), ()))
    })?;
    note_warnings(warnings);
    Ok((Decision::default(), None))
}

fn on_pre_compact(
    store: &Store,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let Some(goal) = load_goal(store, caller)? else {
        return Ok((Decision::default(), None));
    };
    let text = summary::prompt_note(&goal);
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

/// Put a decision into the shape the host reads.
pub fn render(host: Host, event: Event, decision: Decision, note: Option<String>) -> HookOutput {
    let mut out = Map::new();
    match host {
        Host::CopilotCli | Host::CopilotSdk => {
            if let Some(reason) = &decision.deny {
                out.insert("permissionDecision".into(), json!("deny"));
                out.insert("permissionDecisionReason".into(), json!(reason));
            }
            if let Some(reason) = &decision.block {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
            if let Some(ctx) = &decision.context {
                out.insert("additionalContext".into(), json!(ctx));
            }
            if let Some(msg) = &decision.system_message {
                out.insert("systemMessage".into(), json!(msg));
            }
        }
        Host::VsCode | Host::Claude => {
            let mut specific = Map::new();
            if let Some(reason) = &decision.deny {
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
            if let Some(ctx) = &decision.context {
                specific.insert("additionalContext".into(), json!(ctx));
            }
            if let Some(reason) = &decision.block {
                if host == Host::Claude {
                    // Claude Code reads Stop's decision at the top level.
                    out.insert("decision".into(), json!("block"));
                    out.insert("reason".into(), json!(reason));
                } else {
                    specific.insert("decision".into(), json!("block"));
                    specific.insert("reason".into(), json!(reason));
                }
            }
            if !specific.is_empty() {
                specific.insert("hookEventName".into(), json!(event.pascal()));
                out.insert("hookSpecificOutput".into(), Value::Object(specific));
            }
            if let Some(msg) = &decision.system_message {
                out.insert("systemMessage".into(), json!(msg));
            }
        }
    }
    HookOutput {
        stdout: Value::Object(out).to_string(),
        stderr: note
            .map(|n| format!("goal-system hook ({}): {n}\n", event.pascal()))
            .unwrap_or_default(),
        exit_code: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal() -> Goal {
        Goal::new(
            "g".into(),
            "s".into(),
            "/w".into(),
            "o".into(),
            Status::Active,
            "t".into(),
        )
    }

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
        }
    }

    #[test]
    fn delegating_to_a_subagent_is_not_evidence() {
        let mut g = goal();
        assert!(record_tool(
            &mut g,
            &call("Agent", json!({"prompt": "do it all"})),
            "success",
            "claude",
            1
        ));
        assert_eq!(g.drift(), 1, "delegation still counts toward drift");
        assert!(gate::check(&g).iter().any(|u| u.field == "toolHistory"));
        assert!(record_tool(
            &mut g,
            &call("Bash", json!({"command": "npm test"})),
            "success",
            "claude",
            2
        ));
        assert!(!gate::check(&g).iter().any(|u| u.field == "toolHistory"));
    }

    #[test]
    fn the_same_call_seen_by_two_adapters_counts_once() {
        let mut g = goal();
        let c = call("bash", json!({"command": "ls"}));
        assert!(record_tool(&mut g, &c, "success", "cli-hook", 1_000));
        assert!(!record_tool(&mut g, &c, "success", "sdk", 1_500));
        assert!(
            record_tool(&mut g, &c, "success", "cli-hook", 1_600),
            "a repeat from one adapter is a new call"
        );
        assert_eq!(g.tool_history.seq, 2);
    }

    #[test]
    fn history_is_bounded_and_counters_survive() {
        let mut g = goal();
        for i in 0..(HISTORY_WINDOW as u64 * 3) {
            record_tool(
                &mut g,
                &call("bash", json!({"command": format!("make step{i}")})),
                "success",
                "cli-hook",
                i,
            );
        }
        assert_eq!(g.tool_history.recent.len(), HISTORY_WINDOW);
        assert_eq!(g.tool_history.seq, HISTORY_WINDOW as u64 * 3);
        assert!(serde_json::to_string(&g).unwrap().len() < 64 * 1024);
    }

    #[test]
    fn payload_shapes_of_every_host_are_read() {
        let batch = read_payload(
            &json!({"sessionId": "s", "cwd": "/w", "toolCalls": [{"id": "1", "name": "bash", "args": "{\"command\":\"ls\"}"}]}),
        );
        assert_eq!(batch.calls[0].args["command"], "ls");
        let claude = read_payload(
            &json!({"session_id": "s", "cwd": "/w", "tool_name": "Bash", "tool_input": {"command": "ls"}, "agent_id": "a1"}),
        );
        assert!(claude.subagent);
        assert_eq!(claude.calls[0].name, "Bash");
        let sdk = read_payload(
            &json!({"sessionId": "s", "workingDirectory": "/w", "toolName": "x", "toolArgs": {}}),
        );
        assert_eq!(sdk.cwd, "/w");
        assert!(looks_like_subagent(
            &json!({"sessionId": "sub"}),
            Some("main")
        ));
        assert!(!looks_like_subagent(
            &json!({"sessionId": "main"}),
            Some("main")
        ));
        assert!(looks_like_subagent(
            &json!({"parentInvocationId": "i1"}),
            None
        ));
        assert!(!looks_like_subagent(
            &json!({"isSubagent": false, "agentId": ""}),
            None
        ));
        assert!(is_stop_payload(&json!({"finish_reason": "stop"})));
        assert!(!is_stop_payload(&json!({"prompt": "hi"})));
    }

    #[test]
    fn render_puts_decisions_where_each_host_reads_them() {
        let block = Decision {
            block: Some("go on".into()),
            ..Decision::default()
        };
        let vs: Value =
            serde_json::from_str(&render(Host::VsCode, Event::Stop, block.clone(), None).stdout)
                .unwrap();
        assert_eq!(vs["hookSpecificOutput"]["decision"], "block");
        assert_eq!(vs["hookSpecificOutput"]["hookEventName"], "Stop");
        let cl: Value =
            serde_json::from_str(&render(Host::Claude, Event::Stop, block.clone(), None).stdout)
                .unwrap();
        assert_eq!(cl["decision"], "block");
        let cli: Value =
            serde_json::from_str(&render(Host::CopilotCli, Event::Stop, block, None).stdout)
                .unwrap();
        assert_eq!(cli["decision"], "block");
        let deny = Decision {
            deny: Some("no".into()),
            ..Decision::default()
        };
        let cl: Value =
            serde_json::from_str(&render(Host::Claude, Event::PreToolUse, deny, None).stdout)
                .unwrap();
        assert_eq!(cl["hookSpecificOutput"]["permissionDecision"], "deny");
    }
}
