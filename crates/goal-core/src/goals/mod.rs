//! The four goal operations behind goal_system_open, goal_system_status,
//! goal_system_update and goal_system_close. The SDK extension, the MCP server,
//! the CLI and the hooks all call these, so every caller gets the same rules.

mod budget;
mod history;
mod stop;
mod voice;

use budget::{account_in, audit_budget_limited, save_if, settle_budget};
pub use budget::{
    account_usage, first_sight, refuse_record, refused_before, tick_time, Accounted, UsageReport,
};
pub use history::{after_tool, record_tool, record_tool_calls, Tree, HISTORY_WINDOW};
use stop::pause;
pub use stop::{
    note_user_prompt, stop, stop_attempt, Attempt, Stopped, MAX_BLOCKED_STOPS, MAX_STOPS_PER_PROMPT,
};
pub use voice::{attach_pending, note_interrupt, pin_record, unread_interrupt};

use serde::Serialize;
use serde_json::Value;

use crate::authority::{self, Operation, Role};
use crate::board;
use crate::clock;
use crate::error::{ErrorCode, GoalError, Result};
use crate::gate::{self, Unmet};
use crate::messages;
use crate::record::{Goal, PromptSource, Status};
use crate::redact;
use crate::request::{self, CloseRequest, OpenRequest, UpdateRequest};
use crate::store::{validate_cwd, validate_session_id, Change, Store};
use crate::update::{self, Applied};

/// Who is calling: the main session's id and working directory, and the
/// caller's role (see `authority`).
#[derive(Debug, Clone, Default)]
pub struct Caller {
    pub session_id: String,
    pub cwd: String,
    pub role: Role,
}

impl Caller {
    /// The main agent of a session (goal tools, the agent's shell).
    pub fn new(session_id: impl Into<String>, cwd: impl Into<String>) -> Caller {
        Caller {
            session_id: session_id.into(),
            cwd: cwd.into(),
            role: Role::Agent,
        }
    }

    /// The same session, acting with another role.
    pub fn with_role(mut self, role: Role) -> Caller {
        self.role = role;
        self
    }

    fn check(&self) -> Result<()> {
        authority::authorize(self.role, Operation::Read)?;
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

fn no_goal(caller: &Caller) -> GoalError {
    GoalError::new(
        ErrorCode::NoGoal,
        format!(
            "session {} has no goal; a goal is opened only on an explicit /goal from the user",
            redact::truncate(&caller.session_id, 80)
        ),
    )
}

/// A caller is its session and its directory together: the goal of session A
/// is not reached by sending A's id from another directory.
fn ensure_same_place(caller: &Caller, goal: &Goal) -> Result<()> {
    if goal.cwd.is_empty() || same_cwd(&goal.cwd, &caller.cwd) {
        return Ok(());
    }
    Err(GoalError::new(
        ErrorCode::Forbidden,
        format!(
            "goal {} belongs to session {} in another directory; a goal is reached only from its own session and directory",
            goal.id,
            redact::truncate(&caller.session_id, 80)
        ),
    ))
}

/// Directories compared after lexical normalization (`.`/`..`, repeated and
/// trailing slashes); the store refuses relative paths before this.
pub fn same_cwd(a: &str, b: &str) -> bool {
    normalize_path(a) == normalize_path(b)
}

fn normalize_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Fields that only some roles may send: budgets are the user's, and so are
/// pausing and resuming (moving a paused or budget-limited goal back to work).
fn authorize_fields(
    caller: &Caller,
    sets_budget: bool,
    status: Option<&str>,
    goal: Option<&Goal>,
) -> Result<()> {
    if sets_budget {
        authority::authorize(caller.role, Operation::SetBudget)?;
    }
    let wanted = status.and_then(Status::parse);
    let current = goal.map(|g| g.completion_status);
    // A goal blocked but open (resumable) is a pause: the user's, as is
    // resuming one. The agent's blocked is a terminal close with its reason.
    let pausing = matches!(wanted, Some(Status::Paused | Status::Blocked));
    let resuming = matches!(
        current,
        Some(Status::Paused | Status::BudgetLimited | Status::Blocked)
    ) && matches!(wanted, Some(Status::Active | Status::Draft));
    if pausing || resuming {
        authority::authorize(caller.role, Operation::Pause)?;
    }
    Ok(())
}

/// Request fields that set or raise a budget.
pub const BUDGET_FIELDS: [&str; 2] = ["tokenBudget", "timeBudgetSeconds"];

/// Touch timestamps after a change.
fn stamp(goal: &mut Goal) {
    goal.updated_at = clock::now_iso();
}

/// Open a goal (draft or active). A second open goal in the same session is
/// refused unless `replace: true`; the same objective continues the open goal.
pub fn open(store: &Store, caller: &Caller, req: &Value) -> Result<Opened> {
    caller.check()?;
    // Sizes first, outside the lock: an oversized request never holds it.
    update::check_limits(req)?;
    let req: OpenRequest = request::parse("open", req)?;
    let objective = req
        .objective
        .as_deref()
        .ok_or_else(|| GoalError::invalid("objective: required to open a goal"))?;
    let objective = update::clean_objective(objective)?;
    let status = match req.status.as_deref() {
        None => Status::Active,
        Some(s) => match Status::parse(s) {
            Some(st @ (Status::Draft | Status::Active)) => st,
            _ => {
                return Err(GoalError::invalid(
                    "status: a goal opens as draft or active",
                ))
            }
        },
    };
    let replace = req.replace.unwrap_or(false);
    let source_prompt = req.source_prompt.clone();
    let source_kind = req.source_kind.clone().unwrap_or_else(|| "tool".into());
    authorize_fields(caller, req.sets_budget(), None, None)?;
    let mut rest = req.record_changes();
    rest.token_budget = req.token_budget;
    rest.time_budget_seconds = req.time_budget_seconds;

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
            update::apply_changes(&mut goal, &rest)?;
            settle_budget(&mut goal, clock::now_ms());
            Ok(goal)
        };
        if let Some(goal) = &current {
            ensure_same_place(caller, goal)?;
        }
        match current {
            Some(mut existing) if existing.is_open() => {
                if update::norm(&existing.objective) == update::norm(&objective) {
                    // Same destination: continue it, merging any new fields.
                    let applied = update::apply_changes(&mut existing, &rest)?;
                    let promoted = existing.completion_status == Status::Draft && status == Status::Active;
                    if promoted {
                        existing.completion_status = Status::Active;
                    }
                    if !applied.is_empty() || promoted {
                        settle_budget(&mut existing, clock::now_ms());
                        mark_progress(&mut existing);
                        stamp(&mut existing);
                        return Ok((Change::Save(existing.clone()), (existing, false, None)));
                    }
                    return Ok((Change::None, (existing, false, None)));
                }
                authority::authorize(caller.role, Operation::Replace)?;
                if !replace {
                    return Err(GoalError::new(
                        ErrorCode::GoalExists,
                        format!(
                            "session already has open goal {} ({}) with objective {}. Update it with goal_system_update, or pass replace: true only when the user asked for a new objective.",
                            existing.id,
                            existing.status_label(),
                            messages::quote(&redact::truncate(&existing.objective, 200))
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
                authority::authorize(caller.role, Operation::Open)?;
                // A closed goal stays closed; the new goal is a new generation.
                let new = make_new(closed.generation + 1, None)?;
                Ok((Change::Replace { old: closed, new: new.clone() }, (new, true, None)))
            }
            None => {
                authority::authorize(caller.role, Operation::Open)?;
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
        summary: messages::summary(&goal),
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
    if let Some(goal) = &loaded.goal {
        ensure_same_place(caller, goal)?;
    }
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
            summary: messages::summary(&goal),
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
    authority::authorize(caller.role, Operation::Record)?;
    // Sizes first, outside the lock: an oversized request never holds it.
    update::check_limits(req)?;
    let rest: UpdateRequest = request::parse("update", req)?;
    let ((goal, applied), warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let mut goal = current.ok_or_else(|| no_goal(caller))?;
            ensure_same_place(caller, &goal)?;
            authorize_fields(
                caller,
                rest.sets_budget(),
                rest.status.as_deref(),
                Some(&goal),
            )?;
            tick_time(&mut goal, clock::now_ms());
            let applied = update::apply_changes(&mut goal, &rest)?;
            settle_budget(&mut goal, clock::now_ms());
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
        summary: messages::summary(&goal),
        changes: applied.changes,
        goal,
        warnings,
    }
}

/// Close as complete (only through the gate), blocked or cancelled (with the
/// exact reason). Evidence passed with a refused close is still recorded.
pub fn close(store: &Store, caller: &Caller, req: &Value) -> Result<Closed> {
    caller.check()?;
    update::check_limits(req)?;
    let req: CloseRequest = request::parse("close", req)?;
    let status_text = req.status.clone().unwrap_or_else(|| "complete".into());
    let status = match Status::parse(&status_text) {
        Some(s @ (Status::Complete | Status::Blocked | Status::Cancelled)) => s,
        _ => {
            return Err(GoalError::invalid(format!(
                "status: close takes complete, blocked or cancelled, not \"{}\"",
                redact::truncate(&status_text, 40)
            )))
        }
    };
    let reason = req.reason.clone();
    authority::authorize(
        caller.role,
        match status {
            Status::Complete => Operation::CloseComplete,
            Status::Blocked => Operation::CloseBlocked,
            _ => Operation::Cancel,
        },
    )?;
    let rest = req.record_changes();

    let ((goal, closed, unmet), warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let mut goal = current.ok_or_else(|| no_goal(caller))?;
            ensure_same_place(caller, &goal)?;
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
            let applied = update::apply_changes(&mut goal, &rest)?;
            if !applied.is_empty() {
                mark_progress(&mut goal);
            }
            let now_ms = clock::now_ms();
            tick_time(&mut goal, now_ms);
            let now = clock::now_iso();
            match status {
                Status::Complete => {
                    // The tree as it is now: a change since the last observed
                    // call (by anyone) comes after every verification so far.
                    let before = goal.tool_history.clone();
                    let mut tree = Tree::new(store, &goal).exact();
                    history::observe_between(&mut tree, &mut goal, "seen at close", now_ms);
                    tree.save(&mut goal)?;
                    let observed = goal.tool_history != before;
                    let unmet = gate::check(&goal);
                    if !unmet.is_empty() {
                        stamp(&mut goal);
                        let change = if applied.is_empty() && !observed {
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
            tick_time(&mut goal, now_ms);
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
            format!(
                "{}{}\n{}",
                messages::summary(&goal),
                messages::final_usage(&goal),
                board::closing_note(store, &caller.cwd, &goal)
            )
        } else {
            messages::close_refusal(&goal, &unmet)
        },
        goal,
        unmet,
        warnings,
    })
}

/// Hydrate a stored open goal of this directory into `new_session`: same
/// goal id, `sessionId` set to the new session, saved to the new session's
/// three places under the store lock.
///
/// Never invents a goal: `goal` only names which one; the record written is
/// the newest stored copy of that id found for `cwd` (`NO_GOAL` if there is
/// none, `GOAL_CLOSED` if it is closed). If the session already owns a
/// different open goal, `GOAL_EXISTS`; a different closed one is archived.
pub fn adopt(store: &Store, goal: Goal, new_session: &str, cwd: &str) -> Result<Goal> {
    validate_session_id(new_session)?;
    validate_cwd(cwd)?;
    let modified = store.modify_stored(new_session, Some(cwd), |current, _warnings| {
        let stored = store
            .goals_in_cwd(cwd)?
            .into_iter()
            .find(|g| g.id == goal.id)
            .ok_or_else(|| {
                GoalError::new(
                    ErrorCode::NoGoal,
                    format!(
                        "goal {} is not stored for this directory; nothing to continue",
                        crate::store::shown(&goal.id)
                    ),
                )
            })?;
        if !stored.is_open() {
            return Err(GoalError::new(
                ErrorCode::GoalClosed,
                format!(
                    "goal {} is {}; a closed goal is not continued",
                    stored.id,
                    stored.status_label()
                ),
            ));
        }
        let mut adopted = stored;
        if adopted.session_id != new_session {
            // The kept tree is the old session's: the new one starts its own
            // baseline (a kept tree that vanishes otherwise is tampering).
            adopted.tool_history.tree = None;
        }
        adopted.session_id = new_session.to_string();
        adopted.updated_at = clock::now_iso();
        let change = match current {
            Some(own) if own.id != adopted.id => {
                if own.is_open() {
                    return Err(GoalError::new(
                        ErrorCode::GoalExists,
                        format!(
                            "this session already has the open goal {}; close or replace it before continuing {}",
                            own.id, adopted.id
                        ),
                    ));
                }
                Change::Replace {
                    old: own,
                    new: adopted,
                }
            }
            _ => Change::Save(adopted),
        };
        Ok((change, ()))
    })?;
    modified
        .goal
        .ok_or_else(|| GoalError::new(ErrorCode::NoGoal, "the continued goal was not stored"))
}

#[cfg(test)]
mod authority_tests {
    use super::*;
    use crate::store::StoreConfig;
    use serde_json::json;

    fn store() -> (Store, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("goal-auth-{}", clock::new_goal_id()));
        let root = dir.join("goal-system");
        (Store::new(StoreConfig::new(&dir, &root)), dir)
    }

    fn agent() -> Caller {
        Caller::new("s-auth", "/w/project")
    }

    fn user() -> Caller {
        agent().with_role(Role::User)
    }

    fn code(err: GoalError) -> ErrorCode {
        err.code
    }

    #[test]
    fn the_model_cannot_replace_the_users_goal_with_a_trivial_one() {
        let (s, dir) = store();
        open(
            &s,
            &user(),
            &json!({"objective": "migrate all 40 services", "status": "draft"}),
        )
        .unwrap();
        let err = open(
            &s,
            &agent(),
            &json!({"objective": "print hello", "replace": true}),
        )
        .unwrap_err();
        assert_eq!(code(err), ErrorCode::Forbidden);
        let kept = status(&s, &agent()).unwrap().goal.unwrap();
        assert_eq!(kept.objective, "migrate all 40 services");
        assert!(kept.is_open());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_model_fills_and_activates_the_users_draft() {
        let (s, dir) = store();
        open(
            &s,
            &user(),
            &json!({"objective": "ship it", "status": "draft"}),
        )
        .unwrap();
        let opened = open(
            &s,
            &agent(),
            &json!({"objective": "ship it", "status": "active", "requirements": ["R1: works"]}),
        )
        .unwrap();
        assert!(!opened.created);
        assert_eq!(opened.goal.completion_status, Status::Active);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_model_cannot_open_a_goal_nobody_asked_for() {
        let (s, dir) = store();
        let err = open(&s, &agent(), &json!({"objective": "print hello"})).unwrap_err();
        assert_eq!(code(err), ErrorCode::Forbidden);
        assert!(status(&s, &agent()).unwrap().goal.is_none());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn only_the_user_cancels_pauses_and_budgets() {
        let (s, dir) = store();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let cancel = close(
            &s,
            &agent(),
            &json!({"status": "cancelled", "reason": "I am done here"}),
        );
        assert_eq!(code(cancel.unwrap_err()), ErrorCode::Forbidden);
        let pause = update(&s, &agent(), &json!({"status": "paused"}));
        assert_eq!(code(pause.unwrap_err()), ErrorCode::Forbidden);
        let budget = update(&s, &agent(), &json!({"tokenBudget": 999_999}));
        assert_eq!(code(budget.unwrap_err()), ErrorCode::Forbidden);
        update(&s, &user(), &json!({"status": "paused"})).unwrap();
        let resume = update(&s, &agent(), &json!({"status": "active"}));
        assert_eq!(
            code(resume.unwrap_err()),
            ErrorCode::Forbidden,
            "a paused goal is resumed by the user"
        );
        update(&s, &user(), &json!({"status": "active"})).unwrap();
        let closed = close(
            &s,
            &user(),
            &json!({"status": "cancelled", "reason": "the user changed plans"}),
        )
        .unwrap();
        assert_eq!(closed.goal.completion_status, Status::Cancelled);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_model_closes_blocked_with_its_exact_reason() {
        let (s, dir) = store();
        open(&s, &user(), &json!({"objective": "deploy"})).unwrap();
        // It cannot turn the goal into a resumable pause instead.
        for status in ["blocked", "paused"] {
            let err = update(
                &s,
                &agent(),
                &json!({"status": status, "statusReason": "tired"}),
            )
            .unwrap_err();
            assert_eq!(err.code, ErrorCode::Forbidden, "{status}");
            assert!(
                err.message.contains("close it as blocked"),
                "{}",
                err.message
            );
        }
        assert!(status(&s, &agent()).unwrap().goal.unwrap().is_working());
        let closed = close(
            &s,
            &agent(),
            &json!({"status": "blocked", "reason": "needs the staging password from the user"}),
        )
        .unwrap();
        assert!(closed.closed);
        assert_eq!(
            closed.goal.status_reason.as_deref(),
            Some("needs the staging password from the user")
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_subagent_can_do_nothing_with_the_goal() {
        let (s, dir) = store();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let sub = agent().with_role(Role::Subagent);
        assert_eq!(code(status(&s, &sub).unwrap_err()), ErrorCode::Subagent);
        assert_eq!(
            code(close(&s, &sub, &json!({"status": "complete"})).unwrap_err()),
            ErrorCode::Subagent
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_session_id_sent_from_another_directory_reaches_nothing() {
        let (s, dir) = store();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let elsewhere = Caller::new("s-auth", "/w/other");
        assert_eq!(
            code(status(&s, &elsewhere).unwrap_err()),
            ErrorCode::Forbidden
        );
        assert_eq!(
            code(update(&s, &elsewhere, &json!({"doneSoFar": ["x"]})).unwrap_err()),
            ErrorCode::Forbidden
        );
        let same = Caller::new("s-auth", "/w/project/");
        assert!(
            status(&s, &same).is_ok(),
            "a trailing slash is the same directory"
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn stops_are_bounded_per_user_prompt_even_with_a_call_between_each() {
        let (s, dir) = store();
        let goal = open(
            &s,
            &user(),
            &json!({"objective": "ship it", "status": "active"}),
        )
        .unwrap()
        .goal;
        let mut released = None;
        for i in 0..(MAX_STOPS_PER_PROMPT + 1) {
            record_tool_calls(
                &s,
                &agent(),
                &[crate::tools::ToolCall {
                    name: "bash".into(),
                    args: json!({"command": format!("ls {i}")}),
                }],
                &crate::outcome::Report::of("success"),
                "cli-hook",
            )
            .unwrap();
            if let (Attempt::Released(g), _) = stop_attempt(&s, &agent(), &goal.id).unwrap() {
                released = Some((i, g));
                break;
            }
        }
        let (at, g) = released.expect("the absolute bound lets a stop through");
        assert_eq!(at, MAX_STOPS_PER_PROMPT);
        assert_eq!(g.completion_status, Status::Blocked);
        assert!(g.closed_at.is_none(), "blocked, resumable: never complete");
        std::fs::remove_dir_all(dir).ok();
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;
    use crate::hooks::{run_as, HookOutput, Host};
    use crate::store::StoreConfig;
    use crate::usage::Source;

    /// A hook run as `host` runs it (its process chain; a usage record is
    /// relied on only when the host ran the hook).
    fn run_with(
        host: Host,
        event: &str,
        stdin: &str,
        config: crate::error::Result<StoreConfig>,
    ) -> HookOutput {
        run_as(
            host,
            event,
            stdin,
            config,
            &crate::provenance::Origin::host(host),
        )
    }
    use serde_json::json;
    use std::io::Write;
    use std::path::{Path, PathBuf};

    fn config(dir: &Path) -> StoreConfig {
        let mut config = StoreConfig::new(dir, dir.join("goal-system"));
        config.claude_dirs = vec![dir.join("claude")];
        config
    }

    fn setup() -> (Store, PathBuf) {
        let dir = std::env::temp_dir().join(format!("goal-budget-{}", clock::new_goal_id()));
        std::fs::create_dir_all(&dir).unwrap();
        (Store::new(config(&dir)), dir)
    }

    const SESSION: &str = "s-budget";
    const CWD: &str = "/w/budget";

    fn agent() -> Caller {
        Caller::new(SESSION, CWD)
    }

    fn user() -> Caller {
        agent().with_role(Role::User)
    }

    fn total(key: &str, n: u64) -> UsageReport {
        UsageReport {
            source: Some(Source::RunningTotal {
                key: key.into(),
                total: n,
                record: None,
            }),
            turns: 0,
            baseline: false,
        }
    }

    fn goal_now(s: &Store) -> Goal {
        status(s, &agent()).unwrap().goal.unwrap()
    }

    /// A Claude Code transcript with `messages` assistant messages of 100
    /// tokens each, every message written over two lines as the host does.
    fn transcript(dir: &Path, messages: u32) -> PathBuf {
        let folder = dir.join("claude/projects/-w-budget");
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(format!("{SESSION}.jsonl"));
        let mut file = std::fs::File::create(&path).unwrap();
        for i in 0..messages {
            for _ in 0..2 {
                writeln!(
                    file,
                    "{}",
                    json!({"type": "assistant", "requestId": format!("r{i}"), "message": {"id": format!("msg{i}"), "usage": {"input_tokens": 60, "output_tokens": 10, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 10}}})
                )
                .unwrap();
            }
        }
        path
    }

    fn claude_stop(dir: &Path, path: &Path) -> String {
        let payload = json!({"session_id": SESSION, "cwd": CWD, "hook_event_name": "Stop", "transcript_path": path, "stop_hook_active": false});
        run_with(Host::Claude, "Stop", &payload.to_string(), Ok(config(dir))).stdout
    }

    #[test]
    fn a_budget_of_zero_is_budget_limited_at_once() {
        let (s, dir) = setup();
        let opened = open(
            &s,
            &user(),
            &json!({"objective": "ship it", "tokenBudget": 0}),
        )
        .unwrap();
        assert_eq!(opened.goal.completion_status, Status::BudgetLimited);
        assert!(opened.goal.is_open() && !opened.goal.is_working());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn crossing_the_budget_limits_the_goal_steers_once_and_usage_after_the_limit_accrues() {
        let (s, dir) = setup();
        open(
            &s,
            &user(),
            &json!({"objective": "ship it", "tokenBudget": 1000}),
        )
        .unwrap();
        let first = account_usage(&s, &agent(), &total("copilot:x", 400)).unwrap();
        assert_eq!(first.goal.unwrap().completion_status, Status::Active);
        assert!(first.wrap_up.is_none());
        let crossed = account_usage(&s, &agent(), &total("copilot:x", 1200)).unwrap();
        assert_eq!(
            crossed.goal.unwrap().completion_status,
            Status::BudgetLimited
        );
        assert!(crossed.wrap_up.unwrap().contains("wrap up"));
        let after = account_usage(&s, &agent(), &total("copilot:x", 1500)).unwrap();
        assert!(after.wrap_up.is_none(), "the model is steered once");
        assert_eq!(goal_now(&s).budget.tokens_used, 1500);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_same_transcript_read_by_repeated_stop_hooks_is_counted_once() {
        let (s, dir) = setup();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let path = transcript(&dir, 3);
        for _ in 0..4 {
            claude_stop(&dir, &path);
        }
        let g = goal_now(&s);
        assert_eq!(g.budget.tokens_used, 300);
        assert_eq!(g.budget.turns, 4);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_transcript_outside_the_hosts_folders_or_of_another_session_is_not_read() {
        let (s, dir) = setup();
        open(
            &s,
            &user(),
            &json!({"objective": "ship it", "tokenBudget": 150}),
        )
        .unwrap();
        let real = transcript(&dir, 3);
        // The same lines, where the agent can write: its own folder, or
        // Claude's folder under another session's name.
        let planted = dir.join("planted.jsonl");
        let other = real.with_file_name("someone-else.jsonl");
        for path in [&planted, &other] {
            std::fs::copy(&real, path).unwrap();
            let out = claude_stop(&dir, path);
            assert!(out.contains("\"block\""), "the stop is held: {out}");
        }
        assert_eq!(goal_now(&s).budget.tokens_used, 0);
        claude_stop(&dir, &real);
        assert_eq!(goal_now(&s).budget.tokens_used, 300);
        // A second folder the hook takes for Claude Code's (CLAUDE_CONFIG_DIR
        // set by whoever ran it), holding a record in the right shape: the
        // goal counts only the record it counted first.
        let mut second = config(&dir);
        second.claude_dirs.push(dir.join("elsewhere"));
        let folder = dir.join("elsewhere/projects/-w-budget");
        std::fs::create_dir_all(&folder).unwrap();
        let planted = folder.join(format!("{SESSION}.jsonl"));
        std::fs::copy(transcript(&dir.join("big"), 20), &planted).unwrap();
        let payload = json!({"session_id": SESSION, "cwd": CWD, "hook_event_name": "Stop", "transcript_path": planted, "stop_hook_active": false});
        run_with(Host::Claude, "Stop", &payload.to_string(), Ok(second));
        assert_eq!(goal_now(&s).budget.tokens_used, 300);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_running_total_read_beside_another_record_than_the_goals_is_not_counted() {
        let (s, dir) = setup();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let events = |root: &str| Some(PathBuf::from(format!("{root}/s-budget/events.jsonl")));
        // The goal's user commands were confirmed in the host's events.jsonl.
        s.modify(SESSION, Some(CWD), |current, _| {
            let mut goal = current.unwrap();
            goal.voice.record_key = redact::fingerprint("/real/s-budget/events.jsonl");
            Ok((Change::Save(goal), ()))
        })
        .unwrap();
        let report = |root: &str, n: u64| UsageReport {
            source: Some(Source::RunningTotal {
                key: "copilot:s-budget".into(),
                total: n,
                record: events(root),
            }),
            turns: 0,
            baseline: false,
        };
        account_usage(&s, &agent(), &report("/real", 400)).unwrap();
        account_usage(&s, &agent(), &report("/planted", 90_000)).unwrap();
        assert_eq!(goal_now(&s).budget.tokens_used, 400);
        account_usage(&s, &agent(), &report("/real", 500)).unwrap();
        assert_eq!(goal_now(&s).budget.tokens_used, 500);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_running_total_keeps_the_record_it_was_first_counted_beside() {
        // No user command confirmed in a host record (a goal opened from the
        // command line): the first record the total was counted beside pins it.
        let (s, dir) = setup();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let report = |root: &str, n: u64| UsageReport {
            source: Some(Source::RunningTotal {
                key: "codex:s-budget".into(),
                total: n,
                record: Some(PathBuf::from(format!("{root}/rollout-s-budget.jsonl"))),
            }),
            turns: 0,
            baseline: false,
        };
        let real = report("/real", 300);
        assert!(first_sight(&goal_now(&s), real.source.as_ref().unwrap()));
        account_usage(&s, &agent(), &real).unwrap();
        assert!(!first_sight(&goal_now(&s), real.source.as_ref().unwrap()));
        let planted = report("/planted", 90_000);
        assert!(!first_sight(
            &goal_now(&s),
            planted.source.as_ref().unwrap()
        ));
        account_usage(&s, &agent(), &planted).unwrap();
        assert_eq!(goal_now(&s).budget.tokens_used, 300);
        account_usage(&s, &agent(), &report("/real", 450)).unwrap();
        assert_eq!(goal_now(&s).budget.tokens_used, 450);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_small_budget_releases_the_stop_after_one_wrap_up_through_the_claude_hook() {
        let (s, dir) = setup();
        open(
            &s,
            &user(),
            &json!({"objective": "ship it", "tokenBudget": 150}),
        )
        .unwrap();
        let path = transcript(&dir, 2);
        let first = claude_stop(&dir, &path);
        assert!(
            first.contains("\"block\"") && first.contains("wrap up"),
            "{first}"
        );
        let second = claude_stop(&dir, &path);
        assert!(!second.contains("\"block\""), "{second}");
        assert_eq!(goal_now(&s).completion_status, Status::BudgetLimited);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn concurrent_accounting_adds_up_exactly() {
        let (s, dir) = setup();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let path = transcript(&dir, 20);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    let report = UsageReport {
                        source: Some(Source::Transcript(path.clone())),
                        turns: 1,
                        baseline: false,
                    };
                    account_usage(&s, &agent(), &report).unwrap();
                });
            }
        });
        let g = goal_now(&s);
        assert_eq!(g.budget.tokens_used, 2000, "each message counted once");
        assert_eq!(g.budget.turns, 8, "no lost update");
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn an_interrupt_pauses_the_goal_instead_of_holding_the_stop() {
        let (s, dir) = setup();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let payload = json!({"sessionId": SESSION, "cwd": CWD, "stopReason": "user_abort"});
        let out = run_with(
            Host::CopilotCli,
            "agentStop",
            &payload.to_string(),
            Ok(config(&dir)),
        );
        assert!(!out.stdout.contains("\"block\""), "{}", out.stdout);
        let g = goal_now(&s);
        assert_eq!(g.completion_status, Status::Paused);
        assert_eq!(g.status_reason.as_deref(), Some(messages::INTERRUPT_REASON));
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_paused_goal_stays_paused_across_a_resumed_session() {
        let (s, dir) = setup();
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        update(&s, &user(), &json!({"status": "paused"})).unwrap();
        let payload = json!({"sessionId": SESSION, "cwd": CWD, "source": "resume"});
        run_with(
            Host::CopilotCli,
            "sessionStart",
            &payload.to_string(),
            Ok(config(&dir)),
        );
        let payload = json!({"sessionId": SESSION, "cwd": CWD, "stopReason": "end_turn"});
        let out = run_with(
            Host::CopilotCli,
            "agentStop",
            &payload.to_string(),
            Ok(config(&dir)),
        );
        assert!(
            !out.stdout.contains("\"block\""),
            "a paused goal holds no stop"
        );
        assert_eq!(goal_now(&s).completion_status, Status::Paused);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_close_reports_the_final_usage() {
        let (s, dir) = setup();
        open(
            &s,
            &user(),
            &json!({"objective": "ship it", "tokenBudget": 5000}),
        )
        .unwrap();
        account_usage(&s, &agent(), &total("copilot:x", 1234)).unwrap();
        let closed = close(
            &s,
            &agent(),
            &json!({"status": "blocked", "reason": "needs the staging password"}),
        )
        .unwrap();
        assert!(
            closed
                .summary
                .contains("tokens used: 1234 of 5000; time used: "),
            "{}",
            closed.summary
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_model_can_neither_set_nor_raise_a_budget() {
        let (s, dir) = setup();
        open(
            &s,
            &user(),
            &json!({"objective": "ship it", "tokenBudget": 100}),
        )
        .unwrap();
        for field in BUDGET_FIELDS {
            let err = update(&s, &agent(), &json!({ field: 1_000_000 })).unwrap_err();
            assert_eq!(err.code, ErrorCode::Forbidden, "{field}");
            let err = open(
                &s,
                &agent(),
                &json!({"objective": "ship it", field: 1_000_000}),
            )
            .unwrap_err();
            assert_eq!(err.code, ErrorCode::Forbidden, "{field}");
        }
        assert_eq!(goal_now(&s).budget.token_budget, Some(100));
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn time_counts_only_while_the_goal_is_active() {
        let mut g = Goal::new(
            "g".into(),
            "s".into(),
            "/w".into(),
            "o".into(),
            Status::Active,
            "t".into(),
        );
        tick_time(&mut g, 1_000);
        tick_time(&mut g, 4_000);
        g.completion_status = Status::Paused;
        tick_time(&mut g, 9_000);
        tick_time(&mut g, 60_000);
        assert_eq!(g.budget.time_used_ms, 8_000);
        assert!(g.budget.active_since_ms.is_none());
    }

    #[test]
    fn usage_before_the_goal_began_is_not_the_goals() {
        let (s, dir) = setup();
        let path = transcript(&dir, 5);
        // The user's /goal opened it; its prompt hook then starts the count.
        open(&s, &user(), &json!({"objective": "ship it"})).unwrap();
        let prompt = json!({"session_id": SESSION, "cwd": CWD, "hook_event_name": "UserPromptSubmit", "transcript_path": path, "prompt": "go on"});
        run_with(
            Host::Claude,
            "UserPromptSubmit",
            &prompt.to_string(),
            Ok(config(&dir)),
        );
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(
            file,
            "{}",
            json!({"type": "assistant", "message": {"id": "after", "usage": {"input_tokens": 42}}})
        )
        .unwrap();
        claude_stop(&dir, &path);
        assert_eq!(goal_now(&s).budget.tokens_used, 42);
        std::fs::remove_dir_all(dir).ok();
    }
}

#[cfg(test)]
mod interrupt_look_tests {
    use super::*;
    use crate::store::StoreConfig;
    use serde_json::json;
    use std::io::Write;

    fn caller() -> Caller {
        Caller::new("s-look", "/w/project").with_role(Role::User)
    }

    fn append(p: &std::path::Path, v: serde_json::Value) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .unwrap();
        writeln!(f, "{v}").unwrap();
    }

    /// An interrupt written between a prompt hook's look
    /// (`unread_interrupt`, which found none, so the voice was not asked)
    /// and `note_interrupt` pauses nothing then and stays unread: the next
    /// prompt the host delivers finds it and pauses.
    #[test]
    fn an_interrupt_written_after_the_look_waits_for_the_next_prompt() {
        let dir = std::env::temp_dir().join(format!("goal-look-{}", clock::new_goal_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = Store::new(StoreConfig::new(&dir, dir.join("goal-system")));
        let rec = dir.join("events.jsonl");
        append(&rec, json!({"type": "session.start"}));
        open(&s, &caller(), &json!({"objective": "ship it"})).unwrap();
        update(&s, &caller(), &json!({"status": "active"})).unwrap();
        note_interrupt(&s, &caller(), &rec, false).unwrap(); // pins
        let g = status(&s, &caller()).unwrap().goal.unwrap();
        assert!(!g.voice.record_key.is_empty());
        // The look finds nothing: the voice is not asked, may_pause is false.
        assert!(!unread_interrupt(&g, &rec));
        append(
            &rec,
            json!({"type": "abort", "data": {"reason": "user_abort"}}),
        );
        let paused = note_interrupt(&s, &caller(), &rec, false).unwrap();
        assert!(paused.is_none(), "paused only at the next prompt");
        let g = status(&s, &caller()).unwrap().goal.unwrap();
        assert_eq!(g.completion_status, crate::record::Status::Active);
        // The next delivered prompt: the look finds it, the voice is asked.
        assert!(unread_interrupt(&g, &rec));
        assert!(note_interrupt(&s, &caller(), &rec, true).unwrap().is_some());
        std::fs::remove_dir_all(dir).ok();
    }
}
