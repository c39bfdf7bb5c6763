//! Hook entry point for the Node adapters (hook-runner.mjs, extension.mjs and
//! the shell hook's Node fallback). Same function as the native goal-hook.

use goal_core::hooks::{self, Host};
use goal_core::hosts::{self, Role};
use goal_core::payload;
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use serde_json::Value;

/// What a hook process prints and how it exits.
#[napi(object)]
pub struct HookResult {
    /// JSON answer in the host's shape (always valid JSON, `{}` when allowing).
    pub stdout: String,
    /// Diagnostics for the host's log; empty when all went well.
    pub stderr: String,
    /// Always 0: decisions travel as JSON, never as a crash or exit code.
    pub exit_code: i32,
}

/// Run one hook: `host` is `copilot-cli`, `copilot-sdk`, `vscode` or `claude`;
/// `event` is the event name in any case style (`preToolUse`, `PreToolUse`,
/// `agentStop`, `Stop`, ...); `stdin` is the host's JSON payload. Never throws:
/// faults come back as an allow-shaped answer with a message in `stderr`.
/// A `vscode` or `claude` entry that runs under Copilot CLI answers `{}` when
/// another entry decides the event there (see `hostRole`).
#[napi(ts_args_type = "host: Host, event: HookEvent, stdin: string")]
pub fn run_hook(host: String, event: String, stdin: String) -> HookResult {
    run_payload(&host, &event, stdin.as_bytes())
}

/// The one path of both entry points, as the native hook runs it: the size
/// cap, lossy UTF-8 and one decision per event.
fn run_payload(host: &str, event: &str, bytes: &[u8]) -> HookResult {
    let out = payload::run_named(host, event, bytes);
    HookResult {
        stdout: out.stdout,
        stderr: out.stderr,
        exit_code: out.exit_code,
    }
}

/// The largest hook payload read, in bytes (16 MiB): hook-runner.mjs stops
/// reading one byte past it, as the native hook does.
#[napi]
pub const MAX_HOOK_PAYLOAD_BYTES: u32 = payload::MAX_HOOK_PAYLOAD_BYTES as u32;

/// [`run_hook`] on the raw payload bytes, read exactly as the native hook
/// reads them: lossy UTF-8, and a payload past `MAX_HOOK_PAYLOAD_BYTES` is not
/// parsed (the hook allows and says so). Never throws.
#[napi(ts_args_type = "host: Host, event: HookEvent, payload: Buffer")]
pub fn run_hook_bytes(host: String, event: String, payload: Buffer) -> HookResult {
    run_payload(&host, &event, &payload)
}

/// Does a tool invocation or hook input look like a subagent's? Markers:
/// `isSubagent`/`subagent` true, a non-empty `agentId`, `parentSessionId` or
/// `parentInvocationId` (either case style), or a `sessionId` other than
/// `mainSessionId`. Goal tools refuse such callers.
#[napi(ts_args_type = "invocation: SubagentInvocation, mainSessionId?: string | undefined | null")]
pub fn looks_like_subagent(invocation: Value, main_session_id: Option<String>) -> bool {
    hooks::looks_like_subagent(&invocation, main_session_id.as_deref())
}

/// The role of the `goal-system` command: `"user"` only in an interactive
/// terminal that no agent host spawned (`stdinIsTty` and none of the hosts'
/// agent-shell variables among `envNames`), else `"agent"`, so a command run
/// through an agent's shell tool never gets the user's rights.
#[napi(ts_return_type = "'user' | 'agent'")]
pub fn command_role(stdin_is_tty: bool, env_names: Vec<String>) -> String {
    let names: Vec<&str> = env_names.iter().map(String::as_str).collect();
    goal_core::authority::command_role(stdin_is_tty, &names)
        .as_str()
        .to_string()
}

/// Who decides an event for a hook entry written for `host`: the host whose
/// answer shape it then uses (`copilot-cli` when a VS Code or Claude Code entry
/// runs under Copilot CLI and decides there), or `null` when the entry stands
/// down because another entry decides the event.
#[napi]
pub fn host_role(host: String, stdin: String) -> Option<String> {
    let h = Host::parse(&host)?;
    match hosts::resolve(h, hooks::parse_stdin(&stdin).ok().as_ref()) {
        Role::Decide(h) => Some(hosts::host_name(h).to_string()),
        Role::StandDown => None,
    }
}
