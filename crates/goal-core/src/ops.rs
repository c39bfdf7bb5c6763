//! The four goal operations behind goal_system_open, goal_system_status,
//! goal_system_update and goal_system_close. The SDK extension, the MCP server,
//! the CLI and the hooks all call these, so every caller gets the same rules.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::board;
use crate::clock;
use crate::error::{ErrorCode, GoalError, Result};
use crate::gate::{self, Unmet};
use crate::record::{Goal, PromptSource, Status};
use crate::redact;
use crate::store::{Change, Store};
use crate::summary;
use crate::update::{self, Applied};

/// Who is calling: the main session's id and working directory.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    pub session_id: String,
    pub cwd: String,
    /// Set when the invocation looks like a subagent's; every operation refuses it.
    pub subagent: bool,
}

impl Caller {
    pub fn new(session_id: impl Into<String>, cwd: impl Into<String>) -> Caller {
        Caller {
            session_id: session_id.into(),
            cwd: cwd.into(),
            subagent: false,
        }
    }

    fn check(&self) -> Result<()> {
        if self.subagent {
            return Err(GoalError::new(
                ErrorCode::Subagent,
                "subagents do not own goals: only the main session may open, read, update or close its goal",
            ));
        }
        if self.session_id.trim().is_empty() {
            return Err(GoalError::new(
                ErrorCode::InvalidSessionId,
                "sessionId is required",
            ));
        }
        if self.cwd.trim().is_empty() {
            return Err(GoalError::new(ErrorCode::InvalidCwd, "cwd is required"));
        }
        Ok(())
    }
}

/// Result of an open.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    pub goal: Goal,
    /// False when the same objective was already open and was continued.
    pub created: bool,
    /// Id of the goal this one replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    pub summary: String,
    pub warnings: Vec<String>,
}

/// Result of a status read.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    pub goal: Option<Goal>,
    pub open: bool,
    pub unmet: Vec<Unmet>,
    pub drift: u64,
    pub summary: String,
    pub warnings: Vec<String>,
    /// Copilot CLI's own autopilot objective for this session, when it has one.
    pub autopilot: Option<Value>,
}

/// Result of an update.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Updated {
    pub goal: Goal,
    pub changes: Vec<String>,
    pub unmet: Vec<Unmet>,
    pub summary: String,
    pub warnings: Vec<String>,
}

/// Result of a close. A refused completion is data, not an error: `closed`
/// is false and `unmet` lists every condition.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Closed {
    pub closed: bool,
    pub goal: Goal,
    pub unmet: Vec<Unmet>,
    pub summary: String,
    pub warnings: Vec<String>,
}

fn as_object(req: &Value, op: &str) -> Result<Map<String, Value>> {
    match req {
        Value::Object(map) => Ok(map.clone()),
        Value::Null => Ok(Map::new()),
        _ => Err(GoalError::invalid(format!(
            "{op}: expected an object of fields"
        ))),
    }
}

/// Keys that identify the caller; adapters may pass them inside the request.
const CALLER_KEYS: [&str; 2] = ["sessionId", "cwd"];

fn take_str(map: &mut Map<String, Value>, key: &str) -> Result<Option<String>> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(GoalError::invalid(format!("{key}: expected a string"))),
    }
}

fn take_bool(map: &mut Map<String, Value>, key: &str) -> Result<bool> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(b),
        Some(_) => Err(GoalError::invalid(format!("{key}: expected true or false"))),
    }
}

fn no_goal(caller: &Caller) -> GoalError {
    GoalError::new(
        ErrorCode::NoGoal,
        format!(
            "session {} has no goal; a goal is opened only on an explicit /goal from the user",
            redact::truncate(&caller.session_id, 80)
        ),
    )
}

/// Touch timestamps after a change.
fn stamp(goal: &mut Goal) {
    goal.updated_at = clock::now_iso();
}

/// Open a goal (draft or active). A second open goal in the same session is
/// refused unless `replace: true`; the same objective continues the open goal.
pub fn open(store: &Store, caller: &Caller, req: &Value) -> Result<Opened> {
    caller.check()?;
    let mut fields = as_object(req, "open")?;
    for key in CALLER_KEYS {
        fields.remove(key);
    }
    let objective = take_str(&mut fields, "objective")?
        .ok_or_else(|| GoalError::invalid("objective: required to open a goal"))?;
    let objective = update::clean_objective(&objective)?;
    let status = match take_str(&mut fields, "status")? {
        None => Status::Active,
        Some(s) => match Status::parse(&s) {
            Some(st @ (Status::Draft | Status::Active)) => st,
            _ => {
                return Err(GoalError::invalid(
                    "status: a goal opens as draft or active",
                ))
            }
        },
    };
    let replace = take_bool(&mut fields, "replace")?;
    let source_prompt = take_str(&mut fields, "sourcePrompt")?;
    let source_kind = take_str(&mut fields, "sourceKind")?.unwrap_or_else(|| "tool".into());
    let rest = Value::Object(fields);

    let (opened, warnings) = store.modify(&caller.session_id, Some(&caller.cwd), |current, _warnings| {
        let now = clock::now_iso();
        let make_new = |generation: u32, replaces: Option<String>| -> Result<Goal> {
            let mut goal = Goal::new(
                clock::new_goal_id(),
                caller.session_id.clone(),
                caller.cwd.clone(),
                objective.clone(),
                status,
                now.clone(),
            );
            goal.generation = generation;
            goal.replaces = replaces;
            if let Some(prompt) = &source_prompt {
                goal.source = Some(PromptSource {
                    hash: redact::fingerprint(prompt),
                    preview: redact::preview(prompt, 160),
                    kind: source_kind.clone(),
                });
            }
            update::apply_update(&mut goal, &rest)?;
            Ok(goal)
        };
        match current {
            Some(mut existing) if existing.is_open() => {
                if update::norm(&existing.objective) == update::norm(&objective) {
                    // Same destination: continue it, merging any new fields.
                    let applied = update::apply_update(&mut existing, &rest)?;
                    let promoted = existing.completion_status == Status::Draft && status == Status::Active;
                    if promoted {
                        existing.completion_status = Status::Active;
                    }
                    if !applied.is_empty() || promoted {
                        mark_progress(&mut existing);
                        stamp(&mut existing);
                        return Ok((Change::Save(existing.clone()), (existing, false, None)));
                    }
                    return Ok((Change::None, (existing, false, None)));
                }
                if !replace {
                    return Err(GoalError::new(
                        ErrorCode::GoalExists,
                        format!(
                            "session already has open goal {} ({}) with objective {}. Update it with goal_system_update, or pass replace: true only when the user asked for a new objective.",
                            existing.id,
                            existing.status_label(),
                            summary::quote(&redact::truncate(&existing.objective, 200))
                        ),
                    ));
                }
                let mut old = existing;
                old.completion_status = Status::Cancelled;
                old.closed_at = Some(now.clone());
                old.status_reason = Some(format!("replaced by a new objective: {}", redact::truncate(&objective, 200)));
                stamp(&mut old);
                let new = make_new(old.generation + 1, Some(old.id.clone()))?;
                let replaced = Some(old.id.clone());
                Ok((Change::Replace { old, new: new.clone() }, (new, true, replaced)))
            }
            Some(closed) => {
                // A closed goal stays closed; the new goal is a new generation.
                let new = make_new(closed.generation + 1, None)?;
                Ok((Change::Replace { old: closed, new: new.clone() }, (new, true, None)))
            }
            None => {
                let new = make_new(1, None)?;
                Ok((Change::Save(new.clone()), (new, true, None)))
            }
        }
    })?;
    let (goal, created, replaced) = opened;
    if created {
        store.audit(
            if replaced.is_some() {
                "replace"
            } else {
                "open"
            },
            Some(&goal),
            &format!("status {}", goal.completion_status.as_str()),
        );
    }
    Ok(Opened {
        summary: summary::summary(&goal),
        goal,
        created,
        replaced,
        warnings,
    })
}

/// The session's goal, its gate and its drift. Never changes state.
pub fn status(store: &Store, caller: &Caller) -> Result<StatusReport> {
    caller.check()?;
    let mut loaded = store.load(&caller.session_id, Some(&caller.cwd))?;
    let autopilot = crate::autopilot::read(store, &caller.session_id);
    if let Some(w) = autopilot
        .as_ref()
        .and_then(|a| crate::autopilot::mismatch(loaded.goal.as_ref(), a))
    {
        loaded.warnings.push(w);
    }
    let mut report = match loaded.goal {
        Some(goal) => StatusReport {
            open: goal.is_open(),
            unmet: if goal.is_open() { gate::check(&goal) } else { Vec::new() },
            drift: goal.drift(),
            summary: summary::summary(&goal),
            goal: Some(goal),
            warnings: loaded.warnings,
            autopilot: None,
        },
        None => StatusReport {
            goal: None,
            open: false,
            unmet: Vec::new(),
            drift: 0,
            summary: "No goal for this session. A goal is opened only on an explicit /goal from the user.".into(),
            warnings: loaded.warnings,
            autopilot: None,
        },
    };
    if let Some(a) = &autopilot {
        report.summary.push_str(&format!(
            "Copilot CLI autopilot objective: {} (status {})\n",
            a.get("objective").and_then(Value::as_str).unwrap_or("?"),
            a.get("status").and_then(Value::as_str).unwrap_or("?")
        ));
        for w in &report.warnings {
            report.summary.push_str(&format!("Warning: {w}\n"));
        }
    }
    report.autopilot = autopilot;
    Ok(report)
}

/// A goal update is progress: drift resets and the stop guard relaxes.
fn mark_progress(goal: &mut Goal) {
    goal.tool_history.seq_at_update = goal.tool_history.seq;
    goal.stop_guard.blocked_stops = 0;
}

/// Record evidence and progress. Durable lists append; queues replace only when named.
pub fn update(store: &Store, caller: &Caller, req: &Value) -> Result<Updated> {
    caller.check()?;
    let mut fields = as_object(req, "update")?;
    for key in CALLER_KEYS {
        fields.remove(key);
    }
    let rest = Value::Object(fields);
    let ((goal, applied), warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let mut goal = current.ok_or_else(|| no_goal(caller))?;
            let applied = update::apply_update(&mut goal, &rest)?;
            mark_progress(&mut goal);
            stamp(&mut goal);
            Ok((Change::Save(goal.clone()), (goal, applied)))
        })?;
    store.audit("update", Some(&goal), &applied.changes.join("; "));
    Ok(updated(goal, applied, warnings))
}

fn updated(goal: Goal, applied: Applied, warnings: Vec<String>) -> Updated {
    Updated {
        unmet: if goal.is_open() {
            gate::check(&goal)
        } else {
            Vec::new()
        },
        summary: summary::summary(&goal),
        changes: applied.changes,
        goal,
        warnings,
    }
}

/// Close as complete (only through the gate), blocked or cancelled (with the
/// exact reason). Evidence passed with a refused close is still recorded.
pub fn close(store: &Store, caller: &Caller, req: &Value) -> Result<Closed> {
    caller.check()?;
    let mut fields = as_object(req, "close")?;
    for key in CALLER_KEYS {
        fields.remove(key);
    }
    let status_text = take_str(&mut fields, "status")?.unwrap_or_else(|| "complete".into());
    let status = match Status::parse(&status_text) {
        Some(s @ (Status::Complete | Status::Blocked | Status::Cancelled)) => s,
        _ => {
            return Err(GoalError::invalid(format!(
                "status: close takes complete, blocked or cancelled, not \"{}\"",
                redact::truncate(&status_text, 40)
            )))
        }
    };
    let reason = match (
        take_str(&mut fields, "reason")?,
        fields.remove("statusReason"),
    ) {
        (Some(r), _) => Some(r),
        (None, Some(Value::String(r))) => Some(r),
        (None, None | Some(Value::Null)) => None,
        (None, Some(_)) => return Err(GoalError::invalid("statusReason: expected a string")),
    };
    let rest = Value::Object(fields);

    let ((goal, closed, unmet), warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let mut goal = current.ok_or_else(|| no_goal(caller))?;
            if !goal.is_open() {
                return Err(GoalError::new(
                    ErrorCode::GoalClosed,
                    format!(
                        "goal {} is already closed ({}) at {}",
                        goal.id,
                        goal.status_label(),
                        goal.closed_at.as_deref().unwrap_or("?")
                    ),
                ));
            }
            let applied = update::apply_update(&mut goal, &rest)?;
            if !applied.is_empty() {
                mark_progress(&mut goal);
            }
            let now = clock::now_iso();
            match status {
                Status::Complete => {
                    let unmet = gate::check(&goal);
                    if !unmet.is_empty() {
                        stamp(&mut goal);
                        let change = if applied.is_empty() {
                            Change::None
                        } else {
                            Change::Save(goal.clone())
                        };
                        return Ok((change, (goal, false, unmet)));
                    }
                    goal.completion_status = Status::Complete;
                    goal.status_reason = reason
                        .map(|r| update::clean_item(&r))
                        .filter(|r| !r.is_empty());
                }
                Status::Blocked | Status::Cancelled => {
                    let reason = reason.as_deref().ok_or_else(|| {
                        GoalError::invalid(format!(
                            "reason: closing as {} needs the exact {} reason",
                            status.as_str(),
                            if status == Status::Blocked {
                                "blocker"
                            } else {
                                "cancellation"
                            }
                        ))
                    })?;
                    let reason = update::clean_reason(reason)?;
                    if status == Status::Blocked
                        && !goal
                            .blockers
                            .iter()
                            .any(|b| update::norm(b) == update::norm(&reason))
                    {
                        goal.blockers.push(reason.clone());
                    }
                    goal.completion_audit
                        .push(format!("{}: {reason}", status.as_str()));
                    goal.completion_status = status;
                    goal.status_reason = Some(reason);
                }
                _ => unreachable!("status checked above"),
            }
            goal.closed_at = Some(now);
            stamp(&mut goal);
            Ok((Change::Save(goal.clone()), (goal, true, Vec::new())))
        })?;
    store.audit(
        if closed { "close" } else { "close-refused" },
        Some(&goal),
        &if closed {
            format!("status {}", goal.completion_status.as_str())
        } else {
            unmet
                .iter()
                .map(|u| u.field.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        },
    );
    Ok(Closed {
        closed,
        summary: if closed {
            summary::summary(&goal) + &board::closing_note(store, &caller.cwd, &goal)
        } else {
            format!(
                "Close refused: goal {} does not meet the completion gate. Unmet conditions ({}):\n{}",
                goal.id,
                unmet.len(),
                gate::describe(&unmet)
            )
        },
        goal,
        unmet,
        warnings,
    })
}
