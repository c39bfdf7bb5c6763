//! A session's conversation turns, read from the host's own record: Claude
//! Code's transcript (`transcript_path`, JSON lines of `user` / `assistant`
//! messages) or Copilot CLI's `events.jsonl` (`user.message`,
//! `assistant.message` with its `toolRequests`). Subagents' turns, tool
//! results and the host's meta entries are left out; every text is redacted
//! and cut short. What a line holds that is not understood is skipped.

use std::path::Path;

use serde_json::Value;

use crate::redact;
use crate::store::read_outside;
use crate::tools;

/// Characters of one turn kept.
pub const TURN_CHARS: usize = 600;
/// Largest record read (its end is what matters; older turns are dropped).
const MAX_RECORD_BYTES: usize = 32 << 20;

/// Who spoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
    /// A tool call the assistant made (its name and main argument).
    Tool,
}

impl Speaker {
    pub fn label(self) -> &'static str {
        match self {
            Speaker::User => "user",
            Speaker::Assistant => "assistant",
            Speaker::Tool => "tool",
        }
    }
}

/// One turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub speaker: Speaker,
    pub text: String,
}

fn cut(text: &str) -> String {
    let one = text.split_whitespace().collect::<Vec<_>>().join(" ");
    redact::truncate(&redact::redact(&one), TURN_CHARS)
}

fn tool_turn(name: &str, args: &Value) -> Turn {
    Turn {
        speaker: Speaker::Tool,
        text: cut(&tools::summarize(name, args)),
    }
}

/// The turns of the record at `path` (either host's shape), oldest first.
/// A missing or unreadable record has none.
pub fn read(path: &Path) -> Vec<Turn> {
    let Ok(Some(found)) = read_outside(path) else {
        return Vec::new();
    };
    let bytes = &found.bytes[found.bytes.len().saturating_sub(MAX_RECORD_BYTES)..];
    parse(&String::from_utf8_lossy(bytes))
}

/// The turns of a record's text.
pub fn parse(text: &str) -> Vec<Turn> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        match entry.get("type").and_then(Value::as_str).unwrap_or("") {
            "user" | "assistant" => claude_entry(&entry, &mut out),
            "user.message" => copilot_user(&entry, &mut out),
            "assistant.message" => copilot_assistant(&entry, &mut out),
            _ => {}
        }
    }
    out
}

/// How many prompts the user typed in the record at `path`, counting no
/// further than `enough`: read line by line from the start and stopped there,
/// and only lines that can be a user's message are parsed (a stop hook asks
/// this, and a long session's record runs to megabytes).
pub fn user_prompts(path: &Path, enough: usize) -> usize {
    use std::io::BufRead;
    let is_file = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    let Some(file) = is_file.then(|| std::fs::File::open(path).ok()).flatten() else {
        return 0;
    };
    let mut count = 0;
    for line in std::io::BufReader::new(file).split(b'\n') {
        let Ok(line) = line else { break };
        let text = String::from_utf8_lossy(&line);
        // A prefilter only (either host's spacing): the parse below decides.
        let maybe_user = text.contains("\"user") && !text.contains("\"tool_use_id\"");
        if maybe_user {
            let mut turns = Vec::new();
            if let Ok(entry) = serde_json::from_str::<Value>(text.trim()) {
                match entry.get("type").and_then(Value::as_str) {
                    Some("user") => claude_entry(&entry, &mut turns),
                    Some("user.message") => copilot_user(&entry, &mut turns),
                    _ => {}
                }
            }
            count += turns.iter().filter(|t| t.speaker == Speaker::User).count();
            if count >= enough {
                break;
            }
        }
    }
    count
}

fn claude_entry(entry: &Value, out: &mut Vec<Turn>) {
    let flag = |k: &str| entry.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("isSidechain") || flag("isMeta") || flag("isCompactSummary") {
        return;
    }
    let Some(message) = entry.get("message") else {
        return;
    };
    let user = entry.get("type").and_then(Value::as_str) == Some("user");
    match message.get("content") {
        Some(Value::String(s)) if user => push_user(s, out),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                        if user {
                            push_user(text, out);
                        } else if !text.trim().is_empty() {
                            out.push(Turn {
                                speaker: Speaker::Assistant,
                                text: cut(text),
                            });
                        }
                    }
                    Some("tool_use") if !user => {
                        let name = block.get("name").and_then(Value::as_str).unwrap_or("?");
                        out.push(tool_turn(name, block.get("input").unwrap_or(&Value::Null)));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// A user's text, unless it is the host's own (an interrupt note, a
/// command's output, a hook's feedback).
fn push_user(text: &str, out: &mut Vec<Turn>) {
    let t = text.trim();
    let host_text = t.is_empty()
        || t.starts_with("[Request interrupted")
        || t.starts_with("<local-command-stdout>")
        || t.starts_with("<local-command-stderr>")
        || t.starts_with("Stop hook feedback:")
        || t.starts_with("<system-reminder>")
        || t.starts_with("<task-notification>");
    if !host_text {
        out.push(Turn {
            speaker: Speaker::User,
            text: cut(t),
        });
    }
}

fn copilot_user(entry: &Value, out: &mut Vec<Turn>) {
    let data = entry.get("data").unwrap_or(&Value::Null);
    // A subagent's task is recorded as `source: "agent-<id>"`.
    let source = data.get("source").and_then(Value::as_str).unwrap_or("");
    if source.starts_with("agent-") {
        return;
    }
    if let Some(text) = data.get("content").and_then(Value::as_str) {
        push_user(text, out);
    }
}

fn copilot_assistant(entry: &Value, out: &mut Vec<Turn>) {
    let data = entry.get("data").unwrap_or(&Value::Null);
    if data.get("parentToolCallId").is_some_and(|v| !v.is_null()) {
        return; // a subagent's
    }
    if let Some(text) = data.get("content").and_then(Value::as_str) {
        if !text.trim().is_empty() {
            out.push(Turn {
                speaker: Speaker::Assistant,
                text: cut(text),
            });
        }
    }
    for call in data
        .get("toolRequests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = call.get("name").and_then(Value::as_str).unwrap_or("?");
        out.push(tool_turn(
            name,
            call.get("arguments").unwrap_or(&Value::Null),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_transcripts_give_prompts_answers_and_calls_without_the_host_s_own_text() {
        let lines = [
            json!({"type": "user", "message": {"role": "user", "content": "fix the login bug"}}),
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "Looking."}, {"type": "tool_use", "name": "Bash", "input": {"command": "npm test"}}]}}),
            json!({"type": "user", "message": {"content": [{"type": "tool_result", "content": "ok"}]}}),
            json!({"type": "user", "isMeta": true, "message": {"content": "<command-name>/x</command-name>"}}),
            json!({"type": "user", "message": {"content": "[Request interrupted by user]"}}),
            json!({"type": "assistant", "isSidechain": true, "message": {"content": [{"type": "text", "text": "subagent talk"}]}}),
            json!({"type": "user", "message": {"content": [{"type": "text", "text": "now the docs"}]}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\nnot json\n")).collect();
        let turns = parse(&text);
        let shown: Vec<(Speaker, &str)> =
            turns.iter().map(|t| (t.speaker, t.text.as_str())).collect();
        assert_eq!(shown[0], (Speaker::User, "fix the login bug"));
        assert_eq!(shown[1], (Speaker::Assistant, "Looking."));
        assert_eq!(shown[2].0, Speaker::Tool);
        assert!(shown[2].1.contains("npm test"), "{:?}", shown[2]);
        assert_eq!(shown[3], (Speaker::User, "now the docs"));
        assert_eq!(turns.len(), 4);
    }

    #[test]
    fn copilot_events_leave_out_the_subagent_s_turns() {
        let lines = [
            json!({"type": "session.start", "data": {}}),
            json!({"type": "user.message", "data": {"content": "please run the probe agent"}}),
            json!({"type": "assistant.message", "data": {"content": "", "toolRequests": [{"name": "task", "arguments": {"agent_type": "x", "prompt": "p"}}]}}),
            json!({"type": "user.message", "data": {"content": "SUB TASK", "source": "agent-123"}}),
            json!({"type": "assistant.message", "data": {"content": "sub done", "parentToolCallId": "c1"}}),
            json!({"type": "assistant.message", "data": {"content": "main done", "toolRequests": []}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let turns = parse(&text);
        let speakers: Vec<Speaker> = turns.iter().map(|t| t.speaker).collect();
        assert_eq!(
            speakers,
            vec![Speaker::User, Speaker::Tool, Speaker::Assistant]
        );
        assert_eq!(turns[2].text, "main done");
    }

    #[test]
    fn prompts_are_counted_up_to_enough_from_either_record() {
        let dir = std::env::temp_dir().join(format!("gs-turns-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let claude = dir.join("c.jsonl");
        let lines = [
            json!({"type": "user", "message": {"role": "user", "content": "one"}}),
            json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}}),
            json!({"type": "user", "message": {"content": "[Request interrupted by user]"}}),
            json!({"type": "user", "message": {"content": [{"type": "text", "text": "two"}]}}),
            json!({"type": "user", "message": {"content": "three"}}),
        ];
        std::fs::write(
            &claude,
            lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
        )
        .unwrap();
        assert_eq!(user_prompts(&claude, 10), 3);
        assert_eq!(user_prompts(&claude, 2), 2);
        let copilot = dir.join("events.jsonl");
        let events = [
            json!({"type": "user.message", "data": {"content": "a"}}),
            json!({"type": "user.message", "data": {"content": "sub", "source": "agent-1"}}),
        ];
        std::fs::write(
            &copilot,
            events.iter().map(|l| format!("{l}\n")).collect::<String>(),
        )
        .unwrap();
        assert_eq!(user_prompts(&copilot, 10), 1);
        assert_eq!(user_prompts(&dir.join("missing"), 10), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn turns_are_redacted_and_cut() {
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
        let long = format!("use {token} then {}", "word ".repeat(400));
        let text = json!({"type": "user.message", "data": {"content": long}}).to_string();
        let turns = parse(&text);
        assert!(!turns[0].text.contains(&token));
        assert!(turns[0].text.chars().count() <= TURN_CHARS + 1);
    }
}
