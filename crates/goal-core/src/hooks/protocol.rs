//! The hosts' protocols: which host and event a hook serves, what its payload
//! says in host-neutral terms, and the answer in the shape each host reads.

use serde_json::{json, Map, Value};

mod codex;
mod fast;
mod gemini;
mod jstring;
mod tail;
pub(crate) use fast::parse_bytes;
pub(crate) use tail::parse_payload;
use tail::REPORT_TAIL;

use crate::outcome::Report;

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
    /// OpenAI Codex CLI hooks (`hooks.json`; answers checked against strict schemas).
    Codex,
    /// Gemini CLI hooks (`settings.json`).
    Gemini,
}

impl Host {
    pub fn parse(name: &str) -> Option<Host> {
        match name.trim().to_ascii_lowercase().as_str() {
            "copilot-cli" | "copilot" | "cli" => Some(Host::CopilotCli),
            "copilot-sdk" | "sdk" | "extension" => Some(Host::CopilotSdk),
            "vscode" | "vs-code" | "code" => Some(Host::VsCode),
            "claude" | "claude-code" => Some(Host::Claude),
            "codex" | "codex-cli" | "openai-codex" => Some(Host::Codex),
            "gemini" | "gemini-cli" => Some(Host::Gemini),
            _ => None,
        }
    }

    pub fn source(self) -> &'static str {
        match self {
            Host::CopilotCli => "cli-hook",
            Host::CopilotSdk => "sdk",
            Host::VsCode => "vscode",
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
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
    /// Codex CLI's: the user interrupted the turn (Esc).
    Interrupt,
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
            // Gemini CLI's names: BeforeAgent, BeforeTool, AfterTool, PreCompress, AfterAgent.
            "userpromptsubmitted" | "userpromptsubmit" | "userprompt" | "beforeagent" => {
                Event::UserPrompt
            }
            "pretooluse" | "beforetool" => Event::PreToolUse,
            // Claude Code (and the Copilot SDK) report a failed call as its own event.
            "posttooluse" | "posttoolusefailure" | "aftertool" => Event::PostToolUse,
            "precompact" | "precompress" => Event::PreCompact,
            "subagentstart" => Event::SubagentStart,
            "subagentstop" => Event::SubagentStop,
            "agentstop" | "stop" | "afteragent" => Event::Stop,
            "sessionend" => Event::SessionEnd,
            "interrupt" => Event::Interrupt,
            _ => Event::Other,
        }
    }

    pub fn pascal(self) -> &'static str {
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
            Event::Interrupt => "Interrupt",
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
    /// A user command the goal system handled itself: the prompt goes no
    /// further (no model call), and the user sees this text.
    pub consume: Option<String>,
    /// What the model gets instead of the prompt (Copilot CLI).
    pub modify_prompt: Option<String>,
}

/// The process-level answer: what to print and how to exit.
#[derive(Debug, Clone, PartialEq)]
pub struct HookOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

pub use crate::tools::ToolCall;

/// A payload, read into host-neutral terms.
#[derive(Debug, Clone, Default)]
pub struct Payload {
    pub session_id: String,
    pub cwd: String,
    pub calls: Vec<ToolCall>,
    /// What the host reported after the call(s) (post-tool events only).
    pub report: Report,
    pub prompt: Option<String>,
    pub trigger: String,
    pub subagent: bool,
    /// The host's transcript file (Claude Code's `transcript_path`).
    pub transcript_path: String,
    /// Why the agent stopped (Copilot CLI's `stopReason`), when given.
    pub stop_reason: String,
    /// The host's id of a prompt (Claude Code's `prompt_id`).
    pub prompt_id: String,
    /// The payload's `timestamp` (Copilot CLI: milliseconds; its record's
    /// `hook.start` repeats it), as text.
    pub timestamp: String,
    /// Who the host says a prompt came from (Claude Code's UserPromptSubmit
    /// `source`: `user`, `sdk`, `system`, `loop_wakeup`, ...), when given.
    pub source: String,
    /// The host's name for the (sub)agent: Claude Code's and VS Code's
    /// `agent_type`, Copilot CLI's `agentType` / `agentName` (memory/ reads it
    /// to recognise the consolidation agent).
    pub agent_type: String,
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

/// [`read_payload`] of a payload the caller gives up: the calls' arguments
/// are moved out of it, not copied (a write tool's may carry a 10 MB file).
pub fn into_payload(mut value: Value) -> Payload {
    // Taken where read_payload reads them, in its order, a null left in
    // their place; a string (arguments as JSON text) is parsed there anyway.
    let mut taken = Vec::new();
    let mut take = |call: &mut Map<String, Value>, keys: [&str; 3]| {
        let key = keys.into_iter().find(|k| call.contains_key(*k));
        let args = key.and_then(|k| call.get_mut(k));
        taken.push(args.filter(|a| !a.is_string()).map(std::mem::take));
    };
    if let Some(obj) = value.as_object_mut() {
        let batch = match obj.contains_key("toolCalls") {
            true => obj.get_mut("toolCalls"),
            false => obj.get_mut("tool_calls"),
        };
        if let Some(Value::Array(batch)) = batch {
            for call in batch.iter_mut().filter_map(Value::as_object_mut) {
                take(call, ["args", "arguments", "toolArgs"]);
            }
        } else if str_field(obj, &["toolName", "tool_name"]).is_some() {
            take(obj, ["toolArgs", "tool_input", "toolInput"]);
        }
    }
    let mut payload = read_payload(&value);
    for (call, args) in payload.calls.iter_mut().zip(taken) {
        if let Some(args) = args {
            call.args = args;
        }
    }
    payload
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
    let report = read_report(obj);
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
        report,
        prompt: str_field(
            obj,
            &["prompt", "initialPrompt", "initial_prompt", "userPrompt"],
        )
        .map(str::to_string),
        trigger: str_field(obj, &["trigger", "source"])
            .unwrap_or("")
            .to_string(),
        subagent,
        transcript_path: str_field(obj, &["transcript_path", "transcriptPath"])
            .unwrap_or("")
            .to_string(),
        stop_reason: str_field(
            obj,
            &[
                "stopReason",
                "stop_reason",
                "finishReason",
                "finish_reason",
                "terminationReason",
                "termination_reason",
            ],
        )
        .unwrap_or("")
        .to_string(),
        // Codex CLI names the turn a prompt starts (`turn_id`): its rollout
        // records the prompt under that turn.
        prompt_id: str_field(obj, &["prompt_id", "promptId", "turn_id"])
            .unwrap_or("")
            .to_string(),
        timestamp: match obj.get("timestamp") {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        },
        source: str_field(obj, &["source"]).unwrap_or("").to_string(),
        agent_type: str_field(obj, &["agent_type", "agentType", "agentName", "agent_name"])
            .unwrap_or("")
            .to_string(),
    }
}

/// What the host says about a finished call, for every host's shape:
/// Copilot CLI `toolResult {resultType, textResultForLlm}`, Claude Code
/// `tool_response` (Bash: `{stdout, stderr, interrupted, ...}`; MCP: a content
/// array) or a failure event's `error` and `is_interrupt`, VS Code
/// `tool_response` (text or object).
fn read_report(obj: &Map<String, Value>) -> Report {
    let response = ["toolResult", "tool_result", "tool_response", "toolResponse"]
        .iter()
        .find_map(|k| obj.get(*k));
    let error = str_field(obj, &["error", "errorMessage"]);
    let event = str_field(obj, &["hook_event_name", "hookEventName"]).unwrap_or("");
    let mut report = Report::default();
    if let Some(r) = response {
        report.text = text_of(r);
        if let Some(o) = r.as_object() {
            report.result_type = str_field(o, &["resultType", "result_type", "status"])
                .unwrap_or("")
                .to_string();
            report.exit_code = ["exitCode", "exit_code", "returnCode", "return_code", "code"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_i64));
            report.interrupted = flag(o, &["interrupted", "is_interrupt", "isInterrupt"]);
            if flag(o, &["is_error", "isError"]) {
                report.result_type = "failure".into();
            }
        }
        if report.result_type.is_empty() {
            report.result_type = "success".into();
        }
    }
    if error.is_some() || event.to_ascii_lowercase().ends_with("failure") {
        report.result_type = "failure".into();
        if let Some(e) = error {
            report.text = format!("{}\n{e}", report.text).trim().to_string();
        }
    }
    report.interrupted |= flag(obj, &["is_interrupt", "isInterrupt", "interrupted"]);
    if report.text.len() > REPORT_TAIL {
        let mut cut = report.text.len() - REPORT_TAIL;
        while !report.text.is_char_boundary(cut) {
            cut += 1;
        }
        report.text = report.text[cut..].to_string();
    }
    report
}

fn flag(obj: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter()
        .any(|k| obj.get(*k).and_then(Value::as_bool) == Some(true))
}

/// The text of a tool result, whatever its shape.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join("\n"),
        Value::Object(o) => [
            "textResultForLlm",
            // Gemini CLI's AfterTool `tool_response {llmContent, returnDisplay}`.
            "llmContent",
            "stdout",
            "stderr",
            "output",
            "text",
            "content",
            "result",
            "error",
        ]
        .iter()
        .filter_map(|k| o.get(*k))
        .map(text_of)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n"),
        _ => String::new(),
    }
}

/// Stop reasons meaning the user interrupted or aborted the turn. Copilot CLI
/// ends a normal turn with `end_turn`; an interrupted one names the abort.
/// Claude Code runs no Stop hook on a user interrupt, so nothing to read there.
const INTERRUPT_REASONS: [&str; 10] = [
    "user_abort",
    "user_aborted",
    "user_interrupt",
    "user_cancelled",
    "interrupted",
    "interrupt",
    "cancelled",
    "canceled",
    "aborted",
    "abort",
];

/// Does this stop reason say the user interrupted?
pub fn is_interrupt(reason: &str) -> bool {
    let key = reason.trim().to_ascii_lowercase().replace('-', "_");
    INTERRUPT_REASONS.contains(&key.as_str())
}

/// Keys that mark a tool invocation or hook input as a subagent's, whatever
/// the value's shape (a non-empty string, a number, a non-empty object, true):
/// ids of the agent or of its parent, and flags. The typings' `SubagentInvocation`
/// is generated from this list.
pub const SUBAGENT_MARKERS: [&str; 9] = [
    "agent_id",
    "agentId",
    "parentSessionId",
    "parent_session_id",
    "parentInvocationId",
    "parent_invocation_id",
    "isSubagent",
    "is_subagent",
    "subagent",
];

/// Does a hook payload or a tool invocation come from a subagent? Claude Code
/// and VS Code put `agent_id` on tool events inside a subagent; the Copilot SDK
/// may mark the invocation (`isSubagent`, `parentSessionId`, ...), and its hook
/// inputs carry the session that triggered them, which for a subagent differs
/// from the main session (`main_session`).
pub fn looks_like_subagent(value: &Value, main_session: Option<&str>) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    // A marker counts whatever its shape: a non-empty string, a number, or an
    // object (an SDK may describe the subagent as `subagent: {name, ...}`).
    let present = |v: &Value| match v {
        Value::String(s) => !s.is_empty(),
        Value::Number(_) => true,
        Value::Object(o) => !o.is_empty(),
        Value::Bool(b) => *b,
        _ => false,
    };
    let marked = SUBAGENT_MARKERS
        .iter()
        .any(|k| obj.get(*k).is_some_and(present));
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

/// Put a decision into the shape the host reads.
pub fn render(host: Host, event: Event, decision: Decision, note: Option<String>) -> HookOutput {
    let mut out = Map::new();
    match host {
        Host::Codex => codex::render(event, &decision, &mut out),
        Host::Gemini => gemini::render(event, &decision, &mut out),
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
            if let Some(text) = &decision.consume {
                // Answered for the user with no model call (seen in 1.0.102).
                out.insert("handled".into(), json!(true));
                out.insert("responseContent".into(), json!(text));
            }
            if let Some(prompt) = &decision.modify_prompt {
                out.insert("modifiedPrompt".into(), json!(prompt));
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
            if let (Some(text), Host::Claude) = (&decision.consume, host) {
                // UserPromptSubmit's block: no model call, the reason shown.
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(text));
            } else if let Some(text) = &decision.consume {
                // VS Code: the prompt cannot be held back; the user is told.
                specific.insert("additionalContext".into(), json!(text));
                out.insert("systemMessage".into(), json!(text));
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

    #[test]
    fn a_payload_given_up_reads_as_one_lent() {
        // The arguments moved out of the payload are the ones read_payload
        // clones, call by call, whatever key and shape holds them.
        for value in [
            json!({"sessionId": "s", "toolCalls": [{"name": "edit", "args": {"path": "/a"}}, "odd",
                {"name": "bash", "arguments": "{\"command\":\"ls\"}"}, {"name": "view", "toolArgs": [1]},
                {"name": "none"}, {"name": "create", "args": null, "arguments": {"x": 1}}]}),
            json!({"tool_calls": [{"tool_name": "Write", "args": {"content": "x"}}]}),
            json!({"toolCalls": {"not": "a batch"}, "toolName": "create", "toolInput": {"file_text": "y"}}),
            json!({"session_id": "s", "tool_name": "Write", "tool_input": {"file_path": "/p", "content": "z"}, "toolArgs": {"first": true}}),
            json!({"session_id": "s", "tool_input": {"no": "tool name"}}),
            json!({"session_id": "s", "tool_name": "", "tool_input": {"empty": "name"}}),
            json!("not an object"),
        ] {
            let lent = format!("{:?}", read_payload(&value));
            assert_eq!(format!("{:?}", into_payload(value)), lent);
        }
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
    fn post_tool_reports_of_every_host_are_read_and_judged() {
        use crate::outcome::judge;
        let claude = |response: Value| {
            json!({"session_id": "s", "cwd": "/w", "hook_event_name": "PostToolUse", "tool_name": "Bash",
                   "tool_input": {"command": "npm test"}, "tool_response": response})
        };
        let table: &[(&str, Value, bool)] = &[
            // Copilot CLI 1.0.102, as seen in the real host.
            (
                "copilot pass",
                json!({"sessionId": "s", "cwd": "/w", "toolName": "bash", "toolArgs": {"command": "npm test"},
                "toolResult": {"resultType": "success", "textResultForLlm": "1 passing\n<shellId: 0 completed with exit code 0>"}}),
                true,
            ),
            (
                "copilot exit 1",
                json!({"sessionId": "s", "cwd": "/w", "toolName": "bash", "toolArgs": {"command": "npm test"},
                "toolResult": {"resultType": "success", "textResultForLlm": "boom\n<shellId: 0 completed with exit code 1>"}}),
                false,
            ),
            (
                "copilot failure",
                json!({"sessionId": "s", "cwd": "/w", "toolName": "bash", "toolArgs": {"command": "npm test"},
                "toolResult": {"resultType": "failure", "textResultForLlm": "denied"}}),
                false,
            ),
            (
                "copilot sdk failure event",
                json!({"sessionId": "s", "cwd": "/w", "toolName": "bash", "toolArgs": {"command": "npm test"},
                "error": "Command failed"}),
                false,
            ),
            // Claude Code: exit 0 reaches PostToolUse; other exits PostToolUseFailure.
            (
                "claude pass",
                claude(
                    json!({"stdout": "ok 1 - greets\n# pass 1\n# fail 0", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}),
                ),
                true,
            ),
            (
                "claude summary",
                claude(json!({"stdout": "3 failed, 1 passed", "stderr": "", "interrupted": false})),
                false,
            ),
            (
                "claude interrupted",
                claude(json!({"stdout": "", "stderr": "", "interrupted": true})),
                false,
            ),
            (
                "claude failure event",
                json!({"session_id": "s", "cwd": "/w", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                "tool_input": {"command": "npm test"}, "error": "Exit code 1\nnpm ERR! Test failed.", "is_interrupt": false}),
                false,
            ),
            (
                "claude mcp content",
                json!({"session_id": "s", "cwd": "/w", "hook_event_name": "PostToolUse", "tool_name": "mcp__x__run",
                "tool_input": {}, "tool_response": [{"type": "text", "text": "Tests: 1 failed, 2 passed"}]}),
                false,
            ),
            // VS Code: a text or an object.
            (
                "vscode text",
                json!({"session_id": "s", "cwd": "/w", "hook_event_name": "PostToolUse", "tool_name": "run_in_terminal",
                "tool_input": {"command": "npm test"}, "tool_response": "Tests: 4 passed, 4 total"}),
                true,
            ),
            (
                "vscode exit",
                json!({"session_id": "s", "cwd": "/w", "hook_event_name": "PostToolUse", "tool_name": "run_in_terminal",
                "tool_input": {"command": "npm test"}, "tool_response": {"output": "x", "exitCode": 2}}),
                false,
            ),
        ];
        for (name, payload, passes) in table {
            let p = read_payload(payload);
            assert_eq!(p.calls.len(), 1, "{name}");
            assert_eq!(judge(&p.report).is_ok(), *passes, "{name}: {:?}", p.report);
        }
        assert_eq!(Event::parse("PostToolUseFailure"), Event::PostToolUse);
        assert_eq!(Event::parse("postToolUseFailure"), Event::PostToolUse);
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

    #[test]
    fn an_aborted_turn_is_an_interrupt_and_a_finished_one_is_not() {
        for reason in [
            "user_abort",
            "Interrupted",
            "canceled",
            "user-cancelled",
            "aborted",
        ] {
            assert!(is_interrupt(reason), "{reason}");
        }
        for reason in ["end_turn", "max_tokens", "", "tool_use"] {
            assert!(!is_interrupt(reason), "{reason}");
        }
    }
}
