//! The context board (`context_board` tool, `goal-system board`): async for
//! the tools, `*Sync` for the command. Every rule is in `goal_core::board`.

use goal_core::board::{self, Outcome, Scope};
use goal_core::store::Store;
use goal_core::GoalError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::error::to_js;

/// Who asks, and where. Input only.
#[napi(object, object_to_js = false)]
pub struct BoardCaller {
    /// The working directory whose repository and branch pick the board (absolute).
    pub cwd: String,
    /// The session, when known: its first sight of the board is counted.
    pub session_id: Option<String>,
    /// True only for the `goal-system board` command in the user's terminal:
    /// items are then the user's, and the user may prune any item.
    pub user: Option<bool>,
    /// True when the invocation looks like a subagent's: reads only (but the
    /// consolidation agent, named by `agentType`).
    pub subagent: Option<bool>,
    /// The host's name for the calling agent (`goal-consolidator` may add and prune).
    pub agent_type: Option<String>,
    /// Use this branch instead of the checked-out one.
    pub branch: Option<String>,
    /// Override of the goal-system state folder.
    pub state_root: Option<String>,
}

/// One item with its content (returned by `get`).
#[napi(object)]
pub struct BoardItem {
    pub src: String,
    pub name: String,
    pub description: String,
    pub content: String,
    pub read_count: u32,
    pub count: u32,
    pub created_at: String,
    pub updated_at: String,
}

/// What a board command did.
#[napi(object)]
pub struct BoardResult {
    /// Text for the model or the user.
    pub text: String,
    pub repository: String,
    pub branch: String,
    /// Every item's metadata, never the content.
    #[napi(ts_type = "BoardItemMeta[]")]
    pub items: Vec<Value>,
    /// The items `get` returned, with content.
    pub found: Vec<BoardItem>,
    /// The request to prune, once the board is nearly full.
    pub notice: Option<String>,
    /// Faults met on the way (an unreadable board set aside).
    pub warnings: Vec<String>,
}

fn clamp(n: u64) -> u32 {
    n.min(u64::from(u32::MAX)) as u32
}

impl From<Outcome> for BoardResult {
    fn from(o: Outcome) -> BoardResult {
        BoardResult {
            text: o.text,
            repository: o.repository,
            branch: o.branch,
            items: o
                .items
                .iter()
                .map(|i| serde_json::to_value(i).unwrap_or(Value::Null))
                .collect(),
            found: o
                .found
                .into_iter()
                .map(|i| BoardItem {
                    src: i.src.as_str().to_string(),
                    name: i.name,
                    description: i.description,
                    content: i.content,
                    read_count: clamp(i.read_count),
                    count: clamp(i.count),
                    created_at: i.created_at,
                    updated_at: i.updated_at,
                })
                .collect(),
            notice: o.notice,
            warnings: o.warnings,
        }
    }
}

fn run(caller: &BoardCaller, request: &Value) -> std::result::Result<BoardResult, GoalError> {
    let store = crate::store::config_for(caller.state_root.clone()).map(Store::new)?;
    let scope = Scope::detect(&caller.cwd, caller.branch.as_deref())?;
    // The user's rights and a subagent's standing, by the one rule every addon entry point asks.
    let role = goal_core::authority::claimed_role(
        (caller.user == Some(true)).then_some("user"),
        caller.subagent == Some(true),
    );
    let actor = goal_core::memory::board_actor(
        role == goal_core::authority::Role::User,
        role == goal_core::authority::Role::Subagent,
        caller.agent_type.as_deref().unwrap_or(""),
    );
    let session = caller.session_id.as_deref().unwrap_or("");
    board::run(&store, &scope, actor, session, request).map(BoardResult::from)
}

pub struct BoardTask {
    caller: BoardCaller,
    request: Value,
}

#[napi]
impl Task for BoardTask {
    type Output = std::result::Result<BoardResult, GoalError>;
    type JsValue = BoardResult;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(run(&self.caller, &self.request))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        output.map_err(|e| to_js(&env, e))
    }
}

/// Run one `context_board` command: `{ command: "get_board" }`,
/// `{ command: "get", src, name }`, `{ command: "add", name, description,
/// context }` or `{ command: "prune", name }`. Rejects with an Error whose
/// `.code` names the problem (`INVALID_INPUT`, `LIMIT_EXCEEDED` when full,
/// `NOT_FOUND`, `FORBIDDEN`, `SUBAGENT`).
#[napi(
    ts_args_type = "caller: BoardCaller, request?: BoardRequest | null",
    ts_return_type = "Promise<BoardResult>"
)]
pub fn context_board(caller: BoardCaller, request: Option<Value>) -> AsyncTask<BoardTask> {
    AsyncTask::new(BoardTask {
        caller,
        request: request.unwrap_or(Value::Null),
    })
}

/// Synchronous `contextBoard`.
#[napi(ts_args_type = "caller: BoardCaller, request?: BoardRequest | null")]
pub fn context_board_sync(
    env: Env,
    caller: BoardCaller,
    request: Option<Value>,
) -> Result<BoardResult> {
    run(&caller, &request.unwrap_or(Value::Null)).map_err(|e| to_js(&env, e))
}

/// The `context_board` tool as every adapter declares it: name, title,
/// description (limits included), the input JSON Schema of the typed board
/// request, annotations, and `operation: "contextBoard"`.
#[napi(ts_return_type = "ToolDefinition")]
pub fn context_board_tool() -> Value {
    serde_json::to_value(goal_core::schema::board_tool_definition()).unwrap_or_default()
}
