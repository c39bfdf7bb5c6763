//! What the model sees of a tool's result (`goal_core::answer`), for the MCP
//! server and the Copilot CLI extension alike.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

/// The model's view of a goal tool's or the board's result. Output only.
#[napi(object)]
pub struct ToolAnswer<'env> {
    /// The text content: summary or board text, what changed, the warnings.
    pub text: String,
    /// The structured content: the summary and unmet conditions first, the
    /// goal record (without its recent tool-call window) last.
    #[napi(ts_type = "Record<string, unknown>")]
    pub structured_content: Object<'env>,
    /// A refused completion: the call worked, but the model must read it as
    /// an error.
    pub refused: bool,
}

/// The model's view of `result`, an addon result of a goal tool or the board.
#[napi(
    ts_args_type = "result: OpenResult | StatusResult | UpdateResult | CloseResult | BoardResult | MemoryResult"
)]
pub fn tool_answer(env: &Env, result: Value) -> Result<ToolAnswer<'_>> {
    let answer = goal_core::answer::answer(&result);
    // Built field by field: a JS object keeps this order, a JSON map would sort it.
    let mut structured = Object::new(env)?;
    for (key, value) in answer.structured {
        structured.set(key, value)?;
    }
    Ok(ToolAnswer {
        text: answer.text,
        structured_content: structured,
        refused: answer.refused,
    })
}
