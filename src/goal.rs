//! The four goal operations (goal_system_open/status/update/close), each as an
//! async function on the libuv pool (file work never blocks the event loop)
//! and a `*Sync` twin for hooks and scripts.

use goal_core::gate::Unmet;
use goal_core::goals::{self, Caller};
use goal_core::request::{self, StatusRequest};
use goal_core::store::Store;
use goal_core::GoalError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::error::to_js;

/// Who calls: the main session's id and working directory. Input only.
#[napi(object, object_to_js = false)]
pub struct GoalCaller {
    /// The main session's id (Copilot CLI / VS Code / Claude Code session id).
    pub session_id: String,
    /// The session's working directory (absolute).
    pub cwd: String,
    /// True when the invocation looks like a subagent's: every operation refuses it.
    pub subagent: Option<bool>,
    /// `"agent"` (the default: goal tools) or `"user"` (only the command in the
    /// user's own terminal, as `commandRole` decides). A subagent flag wins.
    pub role: Option<String>,
    /// Override of the goal-system state folder (defaults to
    /// `$GOAL_SYSTEM_STATE_ROOT` or `~/.copilot/session-state/goal-system`).
    pub state_root: Option<String>,
}

/// One unmet completion condition, naming the record field to fix.
#[napi(object)]
pub struct UnmetCondition {
    pub field: String,
    pub message: String,
}

/// Result of `openGoal`.
#[napi(object)]
pub struct OpenResult {
    /// The version-3 goal record.
    #[napi(ts_type = "Goal")]
    pub goal: Value,
    /// False when the same objective was already open and was continued.
    pub created: bool,
    /// Id of the goal this one replaced (explicit replacement).
    pub replaced: Option<String>,
    /// Readable summary for the model.
    pub summary: String,
    /// Store warnings (for example a corrupt copy set aside).
    pub warnings: Vec<String>,
}

/// Result of `goalStatus`.
#[napi(object)]
pub struct StatusResult {
    /// The goal record, or null when the session has none.
    #[napi(ts_type = "Goal | null")]
    pub goal: Option<Value>,
    /// Draft, active or blocked without closedAt.
    pub open: bool,
    /// Every unmet completion condition (empty when closed or met).
    pub unmet: Vec<UnmetCondition>,
    /// Non-goal tool calls since the last update.
    pub drift: u32,
    pub summary: String,
    pub warnings: Vec<String>,
    /// Copilot CLI's own autopilot objective for the session, when present.
    #[napi(ts_type = "AutopilotObjective")]
    pub autopilot: Option<Value>,
}

/// Result of `updateGoal`.
#[napi(object)]
pub struct UpdateResult {
    #[napi(ts_type = "Goal")]
    pub goal: Value,
    /// What changed, e.g. `doneSoFar: +2`, `remaining: replaced`.
    pub changes: Vec<String>,
    pub unmet: Vec<UnmetCondition>,
    pub summary: String,
    pub warnings: Vec<String>,
}

/// Result of `closeGoal`. A refused completion is data: `closed` is false and
/// `unmet` lists every condition.
#[napi(object)]
pub struct CloseResult {
    pub closed: bool,
    #[napi(ts_type = "Goal")]
    pub goal: Value,
    pub unmet: Vec<UnmetCondition>,
    pub summary: String,
    pub warnings: Vec<String>,
}

fn unmet(list: Vec<Unmet>) -> Vec<UnmetCondition> {
    list.into_iter()
        .map(|u| UnmetCondition {
            field: u.field,
            message: u.message,
        })
        .collect()
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

struct Prepared {
    store: std::result::Result<Store, GoalError>,
    caller: Caller,
}

fn prepare(caller: GoalCaller) -> Prepared {
    let store = crate::store::config_for(caller.state_root).map(Store::new);
    Prepared {
        store,
        caller: Caller {
            session_id: caller.session_id,
            cwd: caller.cwd,
            role: goal_core::authority::claimed_role(
                caller.role.as_deref(),
                caller.subagent.unwrap_or(false),
            ),
        },
    }
}

fn do_open(p: &Prepared, req: &Value) -> std::result::Result<OpenResult, GoalError> {
    let store = p.store.as_ref().map_err(Clone::clone)?;
    let r = goals::open(store, &p.caller, req)?;
    Ok(OpenResult {
        goal: to_value(&r.goal),
        created: r.created,
        replaced: r.replaced,
        summary: r.summary,
        warnings: r.warnings,
    })
}

fn do_status(p: &Prepared, req: &Value) -> std::result::Result<StatusResult, GoalError> {
    request::parse::<StatusRequest>("goal_system_status", req)?;
    let store = p.store.as_ref().map_err(Clone::clone)?;
    let r = goals::status(store, &p.caller)?;
    Ok(StatusResult {
        goal: r.goal.as_ref().map(to_value),
        open: r.open,
        unmet: unmet(r.unmet),
        drift: r.drift.min(u32::MAX as u64) as u32,
        summary: r.summary,
        warnings: r.warnings,
        autopilot: r.autopilot,
    })
}

fn do_update(p: &Prepared, req: &Value) -> std::result::Result<UpdateResult, GoalError> {
    let store = p.store.as_ref().map_err(Clone::clone)?;
    let r = goals::update(store, &p.caller, req)?;
    Ok(UpdateResult {
        goal: to_value(&r.goal),
        changes: r.changes,
        unmet: unmet(r.unmet),
        summary: r.summary,
        warnings: r.warnings,
    })
}

fn do_close(p: &Prepared, req: &Value) -> std::result::Result<CloseResult, GoalError> {
    let store = p.store.as_ref().map_err(Clone::clone)?;
    let r = goals::close(store, &p.caller, req)?;
    Ok(CloseResult {
        closed: r.closed,
        goal: to_value(&r.goal),
        unmet: unmet(r.unmet),
        summary: r.summary,
        warnings: r.warnings,
    })
}

macro_rules! goal_task {
    ($task:ident, $out:ty, $run:ident) => {
        pub struct $task {
            prepared: Prepared,
            request: Value,
        }

        impl $task {
            fn new(caller: GoalCaller, request: Option<Value>) -> AsyncTask<$task> {
                AsyncTask::new($task {
                    prepared: prepare(caller),
                    request: request.unwrap_or(Value::Null),
                })
            }
        }

        #[napi]
        impl Task for $task {
            type Output = std::result::Result<$out, GoalError>;
            type JsValue = $out;

            fn compute(&mut self) -> Result<Self::Output> {
                Ok($run(&self.prepared, &self.request))
            }

            fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
                output.map_err(|e| to_js(&env, e))
            }
        }
    };
}

goal_task!(OpenTask, OpenResult, do_open);
goal_task!(StatusTask, StatusResult, do_status);
goal_task!(UpdateTask, UpdateResult, do_update);
goal_task!(CloseTask, CloseResult, do_close);

fn sync<T>(env: &Env, out: std::result::Result<T, GoalError>) -> Result<T> {
    out.map_err(|e| to_js(env, e))
}

/// Open a goal for the caller's session: `{ objective, status?: "draft" | "active",
/// replace?: boolean, sourcePrompt?, ...any update field }`. The same objective
/// continues the open goal; a different one needs `replace: true` (error code
/// `GOAL_EXISTS` otherwise). Rejects with an Error whose `.code` names the problem.
#[napi(
    ts_args_type = "caller: GoalCaller, request?: OpenRequest | null",
    ts_return_type = "Promise<OpenResult>"
)]
pub fn open_goal(caller: GoalCaller, request: Option<Value>) -> AsyncTask<OpenTask> {
    OpenTask::new(caller, request)
}

/// Synchronous `openGoal`.
#[napi(ts_args_type = "caller: GoalCaller, request?: OpenRequest | null")]
pub fn open_goal_sync(env: Env, caller: GoalCaller, request: Option<Value>) -> Result<OpenResult> {
    sync(
        &env,
        do_open(&prepare(caller), &request.unwrap_or(Value::Null)),
    )
}

/// The session's goal with its unmet completion conditions, drift and (in
/// Copilot CLI) the host's autopilot objective. Never changes state. It takes
/// no field: a request naming one is refused (`INVALID_INPUT` naming it).
#[napi(
    ts_args_type = "caller: GoalCaller, request?: Record<string, never> | null",
    ts_return_type = "Promise<StatusResult>"
)]
pub fn goal_status(caller: GoalCaller, request: Option<Value>) -> AsyncTask<StatusTask> {
    StatusTask::new(caller, request)
}

/// Synchronous `goalStatus`.
#[napi(ts_args_type = "caller: GoalCaller, request?: Record<string, never> | null")]
pub fn goal_status_sync(
    env: Env,
    caller: GoalCaller,
    request: Option<Value>,
) -> Result<StatusResult> {
    sync(
        &env,
        do_status(&prepare(caller), &request.unwrap_or(Value::Null)),
    )
}

/// Record progress and evidence. Durable lists (requirements, doneSoFar,
/// validationProof, ...) append with de-duplication; `remaining` and `blockers`
/// replace when named; `issueResolutions` entries `{ issue, status, evidence, into? }`
/// must name a discovered issue exactly (wildcards are refused). `status` may be
/// `active`, `draft` or `blocked` (resumable, with `statusReason`). Resets drift.
#[napi(
    ts_args_type = "caller: GoalCaller, request?: UpdateRequest | null",
    ts_return_type = "Promise<UpdateResult>"
)]
pub fn update_goal(caller: GoalCaller, request: Option<Value>) -> AsyncTask<UpdateTask> {
    UpdateTask::new(caller, request)
}

/// Synchronous `updateGoal`.
#[napi(ts_args_type = "caller: GoalCaller, request?: UpdateRequest | null")]
pub fn update_goal_sync(
    env: Env,
    caller: GoalCaller,
    request: Option<Value>,
) -> Result<UpdateResult> {
    sync(
        &env,
        do_update(&prepare(caller), &request.unwrap_or(Value::Null)),
    )
}

/// Close the goal: `{ status: "complete" | "blocked" | "cancelled", reason?, ...update fields }`.
/// Complete passes only through the completion gate (otherwise `closed: false`
/// with every unmet condition; evidence sent along is still recorded); blocked
/// and cancelled need the exact reason.
#[napi(
    ts_args_type = "caller: GoalCaller, request?: CloseRequest | null",
    ts_return_type = "Promise<CloseResult>"
)]
pub fn close_goal(caller: GoalCaller, request: Option<Value>) -> AsyncTask<CloseTask> {
    CloseTask::new(caller, request)
}

/// Synchronous `closeGoal`.
#[napi(ts_args_type = "caller: GoalCaller, request?: CloseRequest | null")]
pub fn close_goal_sync(
    env: Env,
    caller: GoalCaller,
    request: Option<Value>,
) -> Result<CloseResult> {
    sync(
        &env,
        do_close(&prepare(caller), &request.unwrap_or(Value::Null)),
    )
}

/// The goal tools as every adapter declares them: name, title, description
/// (gate text and drift thresholds included), the input JSON Schema of the
/// typed request, the output schema with the typed goal, MCP annotations and
/// the addon function that serves each (`operation`).
#[napi(ts_return_type = "ToolDefinition[]")]
pub fn tool_definitions() -> serde_json::Value {
    serde_json::to_value(goal_core::schema::tool_definitions()).unwrap_or_default()
}

/// The JSON Schema of the goal record the goal operations return (derived from
/// the Rust record by schemars).
#[napi(ts_return_type = "JsonSchema")]
pub fn goal_record_schema() -> serde_json::Value {
    goal_core::schema::goal_json_schema()
}
