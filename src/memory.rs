//! Repository memories (`store_memory`, `vote_memory`, `goal-system memory`):
//! async for the tools, `*Sync` for the command. Every rule is in
//! `goal_core::memory`.

use goal_core::authority::Role;
use goal_core::memory::{self, record::Memory, Caller, Command, Outcome, Target};
use goal_core::store::Store;
use goal_core::GoalError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::error::to_js;

/// Who asks, and where. Input only.
#[napi(object, object_to_js = false)]
pub struct MemoryCaller {
    /// The working directory whose repository holds the memories (absolute).
    pub cwd: String,
    /// The session, when known: the memory's source.
    pub session_id: Option<String>,
    /// True when the invocation looks like a subagent's (only the
    /// consolidation agent may then store).
    pub subagent: Option<bool>,
    /// The host's name for the calling agent (`goal-consolidator`, ...).
    pub agent_type: Option<String>,
    /// `"user"` only for the command in the user's own terminal, as
    /// `commandRole` decides; else the agent.
    pub role: Option<String>,
    /// The host's name for the memory's source (`copilot-cli`, ...); else the
    /// process's environment tells it.
    pub host: Option<String>,
    /// Override of the goal-system state folder.
    pub state_root: Option<String>,
}

/// One memory.
#[napi(object)]
pub struct MemoryRecord {
    pub id: String,
    pub subject: String,
    pub fact: String,
    pub citations: String,
    pub reason: String,
    /// The host, session and time it was stored by, as one line.
    pub source: String,
    /// When it was stored.
    pub time: String,
    pub up: u32,
    pub down: u32,
    /// Voted down more than up: no longer shown to the model.
    pub disputed: bool,
    /// The whole record as `goal-system memory show` prints it.
    pub shown: String,
}

/// What a memory command did.
#[napi(object)]
pub struct MemoryResult {
    /// Text for the model or the user.
    pub text: String,
    pub repository: String,
    /// The memory file's path.
    pub file: String,
    /// The memories listed, shown, stored, voted or forgotten.
    pub memories: Vec<MemoryRecord>,
    /// How many the repository holds after the command.
    pub total: u32,
    /// Faults met on the way (malformed lines set aside, duplicates merged).
    pub warnings: Vec<String>,
}

fn record(m: Memory) -> MemoryRecord {
    let source = match &m.source {
        Value::Object(o) => ["host", "session"]
            .iter()
            .filter_map(|k| o.get(*k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    MemoryRecord {
        shown: memory::show(&m),
        time: m.time().to_string(),
        disputed: m.disputed(),
        up: m.votes.up,
        down: m.votes.down,
        id: m.id,
        subject: m.subject,
        fact: m.fact,
        citations: m.citations,
        reason: m.reason,
        source,
    }
}

impl From<Outcome> for MemoryResult {
    fn from(o: Outcome) -> MemoryResult {
        MemoryResult {
            text: o.text,
            repository: o.repository,
            file: o.file,
            memories: o.memories.into_iter().map(record).collect(),
            total: o.total.min(u32::MAX as usize) as u32,
            warnings: o.warnings,
        }
    }
}

fn parts(caller: &MemoryCaller) -> std::result::Result<(Store, Caller), GoalError> {
    let store = crate::store::config_for(caller.state_root.clone()).map(Store::new)?;
    let role =
        goal_core::authority::claimed_role(caller.role.as_deref(), caller.subagent == Some(true));
    let who = Caller::from_parts(
        role == Role::Subagent,
        Some(role.as_str()),
        caller.agent_type.as_deref(),
        caller.session_id.as_deref(),
        caller.host.as_deref(),
    );
    Ok((store, who))
}

pub struct MemoryTask {
    caller: MemoryCaller,
    tool: &'static str,
    request: Value,
}

#[napi]
impl Task for MemoryTask {
    type Output = std::result::Result<MemoryResult, GoalError>;
    type JsValue = MemoryResult;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(parts(&self.caller).and_then(|(store, who)| {
            memory::run_tool(&store, &self.caller.cwd, &who, self.tool, &self.request)
                .map(MemoryResult::from)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        output.map_err(|e| to_js(&env, e))
    }
}

/// `store_memory`: `{ subject, fact, citations, reason }`. Rejects with an
/// Error whose `.code` names the problem (`INVALID_INPUT`, `LIMIT_EXCEEDED`,
/// `SUBAGENT`, `FORBIDDEN` when the user turned memory writes off,
/// `NOT_FOUND` outside a repository).
#[napi(
    ts_args_type = "caller: MemoryCaller, request?: StoreMemoryRequest | null",
    ts_return_type = "Promise<MemoryResult>"
)]
pub fn store_memory(caller: MemoryCaller, request: Option<Value>) -> AsyncTask<MemoryTask> {
    AsyncTask::new(MemoryTask {
        caller,
        tool: memory::STORE_TOOL,
        request: request.unwrap_or(Value::Null),
    })
}

/// `vote_memory`: `{ fact, direction: "upvote" | "downvote", reason }`.
#[napi(
    ts_args_type = "caller: MemoryCaller, request?: VoteMemoryRequest | null",
    ts_return_type = "Promise<MemoryResult>"
)]
pub fn vote_memory(caller: MemoryCaller, request: Option<Value>) -> AsyncTask<MemoryTask> {
    AsyncTask::new(MemoryTask {
        caller,
        tool: memory::VOTE_TOOL,
        request: request.unwrap_or(Value::Null),
    })
}

/// A command of `goal-system memory`. Input only.
#[napi(object, object_to_js = false)]
pub struct MemoryCommand {
    /// `list`, `show`, `forget` or `vote`.
    pub command: String,
    /// The memory's id (show, forget, vote).
    pub id: Option<String>,
    /// `up` or `down` (vote).
    pub direction: Option<String>,
    /// Why (vote).
    pub reason: Option<String>,
}

fn command(c: &MemoryCommand) -> std::result::Result<Command, GoalError> {
    let id = || {
        c.id.clone()
            .filter(|i| !i.trim().is_empty())
            .ok_or_else(|| GoalError::invalid(format!("id: required by {}", c.command)))
    };
    Ok(match c.command.as_str() {
        "list" => Command::List,
        "show" => Command::Show(id()?),
        "forget" => Command::Forget(id()?),
        "vote" => Command::Vote {
            target: Target::Id(id()?),
            direction: c
                .direction
                .as_deref()
                .and_then(memory::record::Direction::parse)
                .ok_or_else(|| GoalError::invalid("direction: expected up or down"))?,
            reason: c
                .reason
                .clone()
                .unwrap_or_else(|| "voted by the user".into()),
        },
        other => {
            return Err(GoalError::invalid(format!(
                "command {:?}: expected list, show, forget or vote",
                goal_core::redact::truncate(other, 40)
            )))
        }
    })
}

/// Run one `goal-system memory` command (synchronous: the command line).
#[napi]
pub fn memory_command_sync(
    env: Env,
    caller: MemoryCaller,
    request: MemoryCommand,
) -> Result<MemoryResult> {
    command(&request)
        .and_then(|cmd| {
            let (store, who) = parts(&caller)?;
            memory::run(&store, &caller.cwd, &who, cmd).map(MemoryResult::from)
        })
        .map_err(|e| to_js(&env, e))
}

/// What the user allows of the memory layers.
#[napi(object)]
pub struct MemorySettings {
    /// The model may store and vote memories.
    pub writes: bool,
    /// Memories at session start and recall lines at each prompt.
    pub recall: bool,
}

/// A change of the memory settings. Input only.
#[napi(object, object_to_js = false)]
pub struct MemorySettingsChange {
    /// `"user"` only for the command in the user's own terminal; any other
    /// role is refused a change (`FORBIDDEN`).
    pub role: Option<String>,
    pub writes: Option<bool>,
    pub recall: Option<bool>,
    /// Override of the goal-system state folder.
    pub state_root: Option<String>,
}

/// Read the memory settings, or change them (the user only).
#[napi]
pub fn memory_settings_sync(env: Env, change: MemorySettingsChange) -> Result<MemorySettings> {
    let role = goal_core::authority::claimed_role(change.role.as_deref(), false);
    crate::store::config_for(change.state_root.clone())
        .map(Store::new)
        .and_then(|store| memory::configure(&store, role, change.writes, change.recall))
        .map(|s| MemorySettings {
            writes: s.writes,
            recall: s.recall,
        })
        .map_err(|e| to_js(&env, e))
}

/// `store_memory` and `vote_memory` as every adapter declares them: name,
/// title, description, the input JSON Schema of the typed request,
/// annotations (neither is read-only), and `operation`.
#[napi(ts_return_type = "ToolDefinition[]")]
pub fn memory_tool_definitions() -> Value {
    serde_json::to_value(goal_core::schema::memory_tool_definitions()).unwrap_or_default()
}
