//! Codex CLI (0.169.0): who spoke in a UserPromptSubmit payload.
//!
//! Codex runs a hook command as a shell leading its own session, right under
//! the `codex` process; its shell tool (`exec_command`) runs `bash -lc`
//! the same way, so the process chain only filters (as for Claude Code).
//! The tool's environment carries `CODEX_TOOL_CALL_ID`, a hook's does not: a
//! second filter, which `env -u` defeats. What decides is Codex's rollout
//! (`transcript_path`, `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-…-<session>.jsonl`):
//! Codex writes the user's prompt there right after the prompt hook returns,
//! as a `user` message and an `item_completed` `UserMessage` of the payload's
//! `turn_id`, before any tool call or answer of that turn. A forged payload
//! sent from the agent's shell finds its own tool call written next instead.
//! So a command takes effect at once and stays pending until the rollout
//! says (`settle`); the guard denies the agent's writes to the rollout.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::process::{self, HostProc, Proc, Ran};
use super::records::{self, Said};
use super::{Origin, Voice};
use crate::hooks::protocol::Payload;
use crate::redact;

/// Codex's folders: `CODEX_HOME`, and `~/.codex`.
pub fn codex_dirs() -> Vec<PathBuf> {
    codex_dirs_from(|name| std::env::var_os(name))
}

/// Codex's folders from a variable lookup (the host's own environment, see
/// `process::host_environ`).
pub fn codex_dirs_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Vec<PathBuf> {
    var("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain(crate::store::home_from(&var).map(|home| home.join(".codex")))
        .collect()
}

const CODEX_RECORD: super::RecordNames = super::RecordNames {
    host: "Codex",
    record: "rollout",
    id: "turn id",
};

/// Whether a UserPromptSubmit payload is the user's (see the module doc).
/// `pinned`: the fingerprint of the rollout the session's goal was
/// confirmed in, when it has one.
pub fn voice(payload: &Payload, origin: &Origin, dirs: &[PathBuf], pinned: &str) -> Voice {
    if let Some(why) = not_a_hook(origin) {
        return Voice::Refused(why);
    }
    let record = rollout(&payload.transcript_path, &payload.session_id, dirs);
    super::awaits_record(record, payload, pinned, &CODEX_RECORD)
}

/// Why this process is not Codex running a hook (the filters before the
/// rollout: the process chain, then the shell tool's environment).
pub fn not_a_hook(origin: &Origin) -> Option<String> {
    if let Some(why) = shape_refusal(origin.chain()) {
        return Some(why);
    }
    std::env::var_os("CODEX_TOOL_CALL_ID")
        .is_some()
        .then(|| "it runs in Codex's shell tool".into())
}

/// Why the chain is not Codex running a hook: the host must be `codex`, and
/// the hook's shell must lead a session of its own right under it.
fn shape_refusal(chain: &[Proc]) -> Option<String> {
    match process::judge(chain, HostProc::Codex) {
        Ran::NotByHost(why) => return Some(why),
        Ran::Unknown => return None,
        Ran::ByHost(_) => {}
    }
    let k = chain.iter().position(|p| !p.is_plumbing())?;
    let top = &chain[k.checked_sub(1)?];
    (top.sid != top.pid).then(|| "it was not started the way the host starts its hooks".to_string())
}

/// A payload's `transcript_path`, taken only in the shape and place Codex
/// writes its rollouts: `<dir>/sessions/YYYY/MM/DD/rollout-…-<session>.jsonl`.
pub fn rollout(path: &str, session: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let path = Path::new(path);
    if session.is_empty() || path.components().any(|c| matches!(c, Component::ParentDir)) {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    if !(is_rollout(path) && name.ends_with(&format!("-{session}.jsonl"))) {
        return None;
    }
    let sessions = path.ancestors().nth(4)?;
    if sessions.file_name()?.to_str()? != "sessions" {
        return None;
    }
    let home = sessions.parent()?;
    dirs.iter().any(|d| d == home).then(|| path.to_path_buf())
}

/// Is this file a Codex rollout (by its name)?
pub fn is_rollout(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(".jsonl"))
}

/// What the rollout past `offset` says of the prompt of turn `turn_id` whose
/// text has `fingerprint`: the user's record of it, or a tool call or an
/// answer written first (then it was not the user's).
pub fn prompt(path: &Path, offset: u64, turn_id: &str, fingerprint: &str) -> Said {
    let Some((lines, _)) = records::lines_from(path, offset) else {
        return Said::NotYet;
    };
    for line in &lines {
        let payload = line.get("payload").unwrap_or(&Value::Null);
        let kind = payload.get("type").and_then(Value::as_str).unwrap_or("");
        match (line.get("type").and_then(Value::as_str).unwrap_or(""), kind) {
            ("event_msg", "item_completed") => {
                let item = payload.get("item").unwrap_or(&Value::Null);
                match item.get("type").and_then(Value::as_str).unwrap_or("") {
                    "UserMessage"
                        if payload.get("turn_id").and_then(Value::as_str) == Some(turn_id)
                            && said(item.get("content"), fingerprint) =>
                    {
                        return Said::User
                    }
                    "CommandExecution" | "AgentMessage" | "McpToolCall" => return Said::NotUser,
                    _ => {}
                }
            }
            ("response_item", "message") => {
                let role = payload.get("role").and_then(Value::as_str);
                let turn = payload
                    .get("internal_chat_message_metadata_passthrough")
                    .and_then(|m| m.get("turn_id"))
                    .and_then(Value::as_str);
                if role == Some("user")
                    && turn == Some(turn_id)
                    && said(payload.get("content"), fingerprint)
                {
                    return Said::User;
                }
                if role == Some("assistant") {
                    return Said::NotUser;
                }
            }
            ("response_item", "function_call" | "custom_tool_call" | "function_call_output") => {
                return Said::NotUser
            }
            _ => {}
        }
    }
    Said::NotYet
}

/// How much of the end of the rollout is read for the user's own `/goal`.
const GOAL_TAIL: u64 = 256 * 1024;

/// The user's own Codex goal, newest in the rollout's end: its objective, when
/// Codex recorded it, and the rollout's offset right after that record (where
/// a goal opened for it starts reading the user's interrupts). Codex writes a
/// user `/goal X` typed in its TUI as a harness message
/// `<codex_internal_context source="user_goal">User set the goal: …` followed
/// by `thread_goal_updated` with the goal; a goal the model made with
/// `create_goal` has no such message and is not the user's.
pub fn user_goal(path: &Path) -> Option<(String, String, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    // Every Codex hook asks: only the lines that can matter are parsed.
    let mut file = std::fs::File::open(path).ok()?;
    let start = records::end_of(path).saturating_sub(GOAL_TAIL);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.take(GOAL_TAIL).read_to_end(&mut bytes).ok()?;
    let has = |line: &[u8], needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    if !has(&bytes, b"thread_goal_updated") {
        return None;
    }
    let mut said_by_user = false;
    let mut found = None;
    let mut end = start;
    for raw in bytes.split(|b| *b == b'\n') {
        end += raw.len() as u64 + 1;
        if !(has(raw, b"thread_goal_updated") || has(raw, b"\"role\":\"user\"")) {
            continue;
        }
        let Ok(line) = serde_json::from_slice::<Value>(raw) else {
            continue;
        };
        let payload = line.get("payload").unwrap_or(&Value::Null);
        match payload.get("type").and_then(Value::as_str) {
            Some("message") if payload.get("role").and_then(Value::as_str) == Some("user") => {
                let text = payload
                    .pointer("/content/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                said_by_user = text.starts_with("<codex_internal_context source=\"user_goal\">")
                    && text.contains("User set the goal:");
            }
            Some("thread_goal_updated") => {
                let goal = payload.get("goal").unwrap_or(&Value::Null);
                let active = goal.get("status").and_then(Value::as_str) == Some("active");
                let objective = goal.get("objective").and_then(Value::as_str).unwrap_or("");
                if said_by_user && active && !objective.trim().is_empty() {
                    let at = line.get("timestamp").and_then(Value::as_str).unwrap_or("");
                    found = Some((objective.trim().to_string(), at.to_string(), end));
                }
                said_by_user = false;
            }
            _ => {}
        }
    }
    found
}

/// Does a content list (`[{type, text}]`) hold the prompt with `fingerprint`?
fn said(content: Option<&Value>, fingerprint: &str) -> bool {
    let Some(Value::Array(parts)) = content else {
        return false;
    };
    let text: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    !text.is_empty() && redact::fingerprint(&records::normalize(&text.join("\n"))) == fingerprint
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::process::p;
    use crate::testing::TempDir;
    use serde_json::json;

    fn fp(text: &str) -> String {
        redact::fingerprint(&records::normalize(text))
    }

    #[test]
    fn only_codexs_own_rollout_place_is_read() {
        let dirs = [PathBuf::from("/home/u/.codex")];
        let s = "01a2184a-0014-7b30-a540-745507d089b4";
        let good =
            format!("/home/u/.codex/sessions/2026/11/26/rollout-2026-11-26T14-37-12-{s}.jsonl");
        assert_eq!(rollout(&good, s, &dirs), Some(PathBuf::from(&good)));
        for bad in [
            format!("/tmp/x/sessions/2026/11/26/rollout-1-{s}.jsonl"),
            format!("/home/u/.codex/sessions/2026/11/rollout-1-{s}.jsonl"),
            format!("/home/u/.codex/sessions/2026/11/../11/26/rollout-1-{s}.jsonl"),
            "/home/u/.codex/sessions/2026/11/26/rollout-1-other.jsonl".to_string(),
            format!("/home/u/.codex/sessions/2026/11/26/{s}.jsonl"),
        ] {
            assert_eq!(rollout(&bad, s, &dirs), None, "{bad}");
        }
    }

    #[test]
    fn the_hook_shape_filters() {
        let codex = p(6, 5, 0, "codex", &["/o/codex", "exec", "x"]);
        let hook = |ppid, sid| {
            p(
                40,
                ppid,
                sid,
                "goal-hook",
                &["/x/goal-hook", "--host", "codex", "UserPromptSubmit"],
            )
        };
        assert_eq!(shape_refusal(&[hook(6, 40), codex.clone()]), None);
        assert!(
            shape_refusal(&[hook(6, 30), codex.clone()]).is_some(),
            "not leading a session"
        );
        let script = vec![
            hook(31, 30),
            p(31, 30, 30, "bash", &["bash", "x.sh"]),
            p(30, 6, 30, "bash", &["/bin/bash", "-lc", "bash x.sh"]),
            codex.clone(),
        ];
        assert!(shape_refusal(&script).is_some(), "under the tool's script");
        assert!(shape_refusal(&[hook(6, 40), p(6, 5, 0, "claude", &["/o/claude"])]).is_some());
    }

    fn line(v: Value) -> String {
        format!("{v}\n")
    }

    #[test]
    fn the_users_prompt_of_the_turn_is_found_and_a_tool_call_first_refutes_it() {
        let dir = TempDir::new("codex-rollout");
        let turn = "t-1";
        let head = line(json!({"type": "turn_context", "payload": {"turn_id": turn}}));
        let path = dir.write("rollout-1-s.jsonl", &head);
        let offset = records::end_of(&path);
        assert_eq!(
            prompt(&path, offset, turn, &fp("/goal cancel")),
            Said::NotYet
        );
        let user = line(
            json!({"type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "/goal   cancel"}],
            "internal_chat_message_metadata_passthrough": {"turn_id": turn}}}),
        );
        let done = line(
            json!({"type": "event_msg", "payload": {"type": "item_completed", "turn_id": turn,
            "item": {"type": "UserMessage", "content": [{"type": "text", "text": "/goal cancel"}]}}}),
        );
        dir.write("rollout-1-s.jsonl", &format!("{head}{user}"));
        assert_eq!(prompt(&path, offset, turn, &fp("/goal cancel")), Said::User);
        dir.write("rollout-1-s.jsonl", &format!("{head}{done}"));
        assert_eq!(prompt(&path, offset, turn, &fp("/goal cancel")), Said::User);
        assert_eq!(
            prompt(&path, offset, "t-2", &fp("/goal cancel")),
            Said::NotYet,
            "another turn"
        );
        // The agent's shell: its own call is written next, then its answer.
        let call = line(
            json!({"type": "event_msg", "payload": {"type": "item_completed", "turn_id": turn,
            "item": {"type": "CommandExecution", "id": "call_1"}}}),
        );
        dir.write("rollout-1-s.jsonl", &format!("{head}{call}{user}"));
        assert_eq!(
            prompt(&path, offset, turn, &fp("/goal cancel")),
            Said::NotUser
        );
        let answer = line(
            json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": []}}),
        );
        dir.write("rollout-1-s.jsonl", &format!("{head}{answer}"));
        assert_eq!(
            prompt(&path, offset, turn, &fp("/goal cancel")),
            Said::NotUser
        );
    }

    #[test]
    fn only_a_goal_the_user_set_is_the_users_and_the_newest_wins() {
        let dir = TempDir::new("codex-user-goal");
        let set_by_user = |objective: &str, at: &str| {
            format!(
                "{}{}",
                line(
                    json!({"timestamp": at, "type": "response_item", "payload": {"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": format!("<codex_internal_context source=\"user_goal\">\nUser set the goal: \"{objective}\"\n</codex_internal_context>")}]}})
                ),
                line(
                    json!({"timestamp": at, "type": "event_msg", "payload": {"type": "thread_goal_updated",
                    "goal": {"objective": objective, "status": "active"}}})
                )
            )
        };
        let by_model = line(
            json!({"timestamp": "T3", "type": "event_msg", "payload": {"type": "thread_goal_updated",
            "goal": {"objective": "the model's", "status": "active"}}}),
        );
        let path = dir.write("rollout-1-s.jsonl", &by_model);
        assert_eq!(user_goal(&path), None);
        let (first, second) = (set_by_user("first", "T1"), set_by_user("second", "T2"));
        let path = dir.write("rollout-1-s.jsonl", &format!("{first}{second}{by_model}"));
        let after = (first.len() + second.len()) as u64;
        assert_eq!(
            user_goal(&path),
            Some(("second".into(), "T2".into(), after)),
            "read from right after the user's goal"
        );
    }
}
