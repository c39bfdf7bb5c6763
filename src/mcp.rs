//! The MCP server's tools: their definitions with the caller's fields, and
//! the caller read from a call's arguments. Every rule is in
//! `goal_core::schema` and `goal_core::request`.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::error::to_js;

/// The caller of an MCP tool call. Output only.
#[napi(object)]
pub struct McpCallCaller {
    /// The main session's id (absent for the board when not given).
    pub session_id: Option<String>,
    /// The session's working directory.
    pub cwd: String,
}

/// The tools as the MCP server lists them: the goal tools and the context
/// board, each with the caller's `sessionId` and `cwd` beside its own fields,
/// and the goal tools' descriptions saying who owns the goal.
#[napi(ts_return_type = "ToolDefinition[]")]
pub fn mcp_tool_definitions() -> Value {
    serde_json::to_value(goal_core::schema::mcp_tool_definitions()).unwrap_or_default()
}

/// The caller of an MCP call of `tool`, read from its arguments as the tool's
/// MCP definition requires. Throws `INVALID_INPUT` naming the missing or
/// mistyped field, or the tool when there is none of that name. The rest of
/// the arguments is the request the tool's operation checks itself.
#[napi(ts_args_type = "tool: string, args?: Record<string, unknown> | null")]
pub fn mcp_caller(env: Env, tool: String, args: Option<Value>) -> Result<McpCallCaller> {
    goal_core::schema::mcp_caller(&tool, &args.unwrap_or(Value::Null))
        .map(|c| McpCallCaller {
            session_id: c.session_id,
            cwd: c.cwd.unwrap_or_default(),
        })
        .map_err(|e| to_js(&env, e))
}
