//! The hosts' own records of a session, read from a byte offset on: Claude
//! Code's transcript (`transcript_path`, JSONL) and Copilot CLI's
//! `events.jsonl`. Only the host writes them (the guard denies the agent's
//! writes), so what they hold is what the host really did: the user's own
//! prompts, and the user's interrupts.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::redact;

/// Most bytes read past an offset in one go.
const MAX_READ: u64 = 8 << 20;

/// How a goal names the record it reads and was confirmed in
/// (`Goal::voice.record_key`).
pub fn key(record: &Path) -> String {
    redact::fingerprint(&record.to_string_lossy())
}

/// [`key`] for a record on disk, the only kind a goal pins: a pinned record
/// gone missing is taken as tampered with (`provenance::awaits_record`), so
/// a host that keeps no record must leave none pinned.
pub fn key_on_disk(record: &Path) -> Option<String> {
    record.exists().then(|| key(record))
}

/// The size of a record file now (0 when it does not exist yet).
pub fn end_of(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// The complete lines of `path` from `offset`, and the offset after them.
pub(crate) fn lines_from(path: &Path, offset: u64) -> Option<(Vec<Value>, u64)> {
    lines_from_where(path, offset, |_| true)
}

/// [`lines_from`], parsing only the lines `keep` takes.
fn lines_from_where(
    path: &Path,
    offset: u64,
    keep: impl Fn(&[u8]) -> bool,
) -> Option<(Vec<Value>, u64)> {
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    // A file that shrank was rewritten: read it from its start.
    let start = if offset > len { 0 } else { offset };
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_READ).read_to_end(&mut bytes).ok()?;
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let lines = json_lines(&bytes[..whole], keep);
    Some((lines, start + whole as u64))
}

/// How far before a command's offset Claude Code's record of it is looked for.
const CLAUDE_LOOKBACK: u64 = 64 << 10;

/// The whole JSON lines of `path` in the `window` bytes before `offset`.
fn lines_before(path: &Path, offset: u64, window: u64) -> Vec<Value> {
    let start = offset.saturating_sub(window);
    let Ok(mut file) = File::open(path) else {
        return Vec::new();
    };
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err()
        || file.take(offset - start).read_to_end(&mut bytes).is_err()
    {
        return Vec::new();
    }
    // A window that starts inside a line skips that line's end.
    let from = match start {
        0 => 0,
        _ => bytes
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |i| i + 1),
    };
    json_lines(&bytes[from..], |_| true)
}

/// The lines of `bytes` that `keep` takes and that parse as JSON. Empty ones
/// (the split after the last newline gives one) are passed over unparsed:
/// serde's error for one finds its line and column with `memchr`, whose
/// first use asks the CPU for its features (several CPUID instructions, each
/// a trap in a virtual machine) on a hook that otherwise needs none of them.
fn json_lines(bytes: &[u8], keep: impl Fn(&[u8]) -> bool) -> Vec<Value> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty() && keep(l))
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .collect()
}

/// Whether a record's line may be an interrupt ([`interrupt`]): every kind
/// the hosts write holds `abort` (Copilot CLI's `abort`, `user_abort`;
/// Codex's `turn_aborted`) or `interrupted` (Claude Code's
/// `interruptedMessageId`, `[Request interrupted by user`), in plain ASCII.
/// The other lines are not parsed: a turn's record runs to megabytes of tool
/// output. A line that is not UTF-8 would not parse either.
fn may_be_interrupt(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_ok_and(|l| l.contains("abort") || l.contains("interrupted"))
}

/// Where Claude Code keeps a session's transcript: `<config>/projects/<project>/<session>.jsonl`.
/// A payload's `transcript_path` is taken only in that shape, under one of
/// Claude Code's folders (`StoreConfig::claude_dirs`).
pub fn claude_transcript(path: &str, session: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let path = Path::new(path);
    if path
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return None;
    }
    if path.file_name()?.to_str()? != format!("{session}.jsonl") {
        return None;
    }
    let projects = path.parent()?.parent()?;
    if projects.file_name()?.to_str()? != "projects" {
        return None;
    }
    let config = projects.parent()?;
    dirs.iter().any(|k| k == config).then(|| path.to_path_buf())
}

/// What a transcript says about a prompt the hook saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// The host recorded it as the user's (or as blocked by our own hook).
    User,
    /// The host went on (the model answered) without recording it.
    NotUser,
    /// The model's answer is on record and the prompt not (yet): Claude
    /// Code's first turn can write the answer first (see [`claude_prompt`]).
    Answered,
    /// Not yet decided: nothing after the prompt was written yet.
    NotYet,
}

/// Does Claude Code's transcript, past `offset`, hold the user prompt whose
/// payload carried `prompt_id` and whose text has `fingerprint`, or the record
/// of our hook blocking it (its reason carries `nonce`)?
pub fn claude_prompt(
    path: &Path,
    offset: u64,
    prompt_id: &str,
    fingerprint: &str,
    nonce: &str,
) -> Said {
    // Claude Code writes a prompt down after its prompt hook returns, but a
    // prompt may already be on disk when the hook reads where the
    // transcript ends (seen now and then with a plugin's command on
    // 2.1.197): it is taken there too while it ends the conversation (only
    // its own lines and bookkeeping after it). An older prompt of the
    // user's, replayed by a forged payload, has the host's answer, block or
    // next prompt after it.
    let before = lines_before(path, offset, CLAUDE_LOOKBACK);
    let mut tail = before.iter().rev().take_while(|l| {
        l.get("promptId").and_then(Value::as_str) == Some(prompt_id) || !is_turn(l)
    });
    if tail.any(|l| {
        l.get("type").and_then(Value::as_str) == Some("user")
            && is_users_prompt(l, prompt_id, fingerprint)
    }) {
        return Said::User;
    }
    let Some((lines, _)) = lines_from(path, offset) else {
        return Said::NotYet;
    };
    // The model answered after the prompt, so its record is before the
    // answer; but a session's first prompt waits for the transcript file to
    // be created (the hook found none: offset 0), and an answer that came
    // back fast enough was seen written ahead of it (2.1.197 under load).
    // There an answer alone leaves the caller to wait for the prompt, and
    // the first entry of another prompt ends the search (Claude stamps each
    // user entry with the prompt current then): the whole record is read
    // from 0, and a replay of an earlier prompt must not be found in it.
    let mut answered = false;
    for line in &lines {
        let kind = line.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "user" if is_users_prompt(line, prompt_id, fingerprint) => return Said::User,
            "system" if blocked_by_us(line, nonce) => return Said::User,
            "attachment" if queued_by_user(line, fingerprint) => return Said::User,
            "assistant" if offset > 0 => return Said::NotUser,
            "assistant" => answered = true,
            "user" if offset == 0 && another_prompt(line, prompt_id) => return Said::NotUser,
            _ => {}
        }
    }
    if answered {
        Said::Answered
    } else {
        Said::NotYet
    }
}

/// Whether a transcript entry is part of the conversation (a prompt, an
/// answer, the host's note of a turn) rather than bookkeeping written
/// between them (`last-prompt`, `mode`, a file-history snapshot, an
/// attachment), which Claude Code also re-appends as the file grows.
fn is_turn(line: &Value) -> bool {
    matches!(
        line.get("type").and_then(Value::as_str),
        Some("user" | "assistant" | "system")
    )
}

fn is_users_prompt(line: &Value, prompt_id: &str, fingerprint: &str) -> bool {
    let id = line.get("promptId").and_then(Value::as_str);
    // The host's own entries in the user's place: a command's expansion, a
    // compaction's summary (the model wrote it).
    let meta = ["isMeta", "isCompactSummary", "isVisibleInTranscriptOnly"]
        .iter()
        .any(|k| line.get(*k).and_then(Value::as_bool) == Some(true));
    let tool = line.get("toolUseResult").is_some();
    let origin = line
        .get("origin")
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str);
    if id != Some(prompt_id) || meta || tool || origin.is_some_and(|k| k != "human") {
        return false;
    }
    let text = message_text(line.get("message"));
    texts_of(&text).any(|t| redact::fingerprint(&t) == fingerprint)
}

fn another_prompt(line: &Value, prompt_id: &str) -> bool {
    line.get("promptId")
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty() && id != prompt_id)
}

fn blocked_by_us(line: &Value, nonce: &str) -> bool {
    if nonce.is_empty() {
        return false;
    }
    let Some(ending) = line.get("promptSubmitEnding").and_then(|e| e.get("ending")) else {
        // Claude Code 2.1.197 writes no `promptSubmitEnding`: the block is
        // the entry's text, our reason in it.
        return line
            .get("content")
            .and_then(Value::as_str)
            .is_some_and(|c| {
                c.starts_with("UserPromptSubmit operation blocked by hook") && c.contains(nonce)
            });
    };
    ending.get("kind").and_then(Value::as_str) == Some("blocked_by_hook")
        && ending
            .get("reason")
            .and_then(Value::as_str)
            .is_some_and(|r| r.contains(nonce))
}

fn queued_by_user(line: &Value, fingerprint: &str) -> bool {
    let a = line.get("attachment").unwrap_or(line);
    a.get("type").and_then(Value::as_str) == Some("queued_command")
        && a.get("origin")
            .and_then(|o| o.get("kind"))
            .and_then(Value::as_str)
            == Some("human")
        && a.get("prompt")
            .and_then(Value::as_str)
            .is_some_and(|p| redact::fingerprint(&normalize(p)) == fingerprint)
}

/// The text of a message: a string, or its text blocks joined.
fn message_text(message: Option<&Value>) -> String {
    match message.and_then(|m| m.get("content")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The prompt a record stands for: its text, and for a command Claude Code
/// expanded (`<command-name>/goal</command-name>…<command-args>X</command-args>`)
/// the command as typed (`/goal X`). Normalized as [`normalize`].
fn texts_of(text: &str) -> impl Iterator<Item = String> {
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let close = format!("</{name}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&close)? + start;
        Some(text[start..end].to_string())
    };
    let args = tag("command-args").unwrap_or_default();
    // Claude Code may run a typed `/goal` as the plugin's `/goal-system:goal`.
    let typed: Vec<String> = tag("command-name")
        .map(|name| {
            let mut names = vec![name.clone()];
            if name == "/goal-system:goal" {
                names.push("/goal".into());
            }
            names
                .into_iter()
                .map(|n| normalize(&format!("{n} {args}")))
                .collect()
        })
        .unwrap_or_default();
    std::iter::once(normalize(text)).chain(typed)
}

/// The prefix of a pending command's prompt id that is Copilot CLI's
/// payload timestamp (its record has no prompt id).
pub const COPILOT_ID: &str = "copilot:";

/// How far before the command's offset a `hook.start` is looked for.
const COPILOT_LOOKBACK: u64 = 64 << 10;

/// Does Copilot CLI's `events.jsonl`, past `offset`, hold the host's own run
/// of the prompt hook that saw this prompt: a `hook.start` of
/// `userPromptSubmitted` (or `sessionStart`, which gets a session's first
/// prompt too) whose input has the payload's `timestamp` and the prompt's
/// text? A run the agent forged never appears there; the host going on
/// (a turn, a message, a tool's completion) before it appears settles it.
pub fn copilot_prompt(path: &Path, offset: u64, timestamp: &str, fingerprint: &str) -> Said {
    // Copilot CLI may have written this run's `hook.start` just before the
    // hook read where the record ended (seen with sessionStart and
    // userPromptSubmitted running side by side): the confirmation is looked
    // for a little before that point too; the host going on, only after it.
    let ran = |line: &Value| {
        line.get("type").and_then(Value::as_str) == Some("hook.start")
            && hook_ran(
                line.get("data").unwrap_or(&Value::Null),
                timestamp,
                fingerprint,
            )
    };
    if let Some((lines, _)) = lines_from(path, offset.saturating_sub(COPILOT_LOOKBACK)) {
        if lines.iter().any(ran) {
            return Said::User;
        }
    }
    let Some((lines, _)) = lines_from(path, offset) else {
        return Said::NotYet;
    };
    for line in &lines {
        let kind = line.get("type").and_then(Value::as_str).unwrap_or("");
        let data = line.get("data").unwrap_or(&Value::Null);
        match kind {
            "hook.start" if hook_ran(data, timestamp, fingerprint) => return Said::User,
            "assistant.turn_start" | "assistant.message" | "tool.execution_complete" => {
                return Said::NotUser
            }
            _ => {}
        }
    }
    Said::NotYet
}

fn hook_ran(data: &Value, timestamp: &str, fingerprint: &str) -> bool {
    let kind = data.get("hookType").and_then(Value::as_str);
    if !matches!(kind, Some("userPromptSubmitted" | "sessionStart")) {
        return false;
    }
    let input = data.get("input").unwrap_or(&Value::Null);
    let stamp = match input.get("timestamp") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return false,
    };
    let text = ["prompt", "initialPrompt"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str));
    !timestamp.is_empty()
        && stamp == timestamp
        && text.is_some_and(|t| redact::fingerprint(&normalize(t)) == fingerprint)
}

/// Whitespace collapsed and trimmed: how prompts are compared.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An interrupt the host recorded past `offset`, and the offset after what
/// was read. Claude Code: a user record `[Request interrupted by user…]`
/// with `interruptedMessageId`; Copilot CLI: `abort` with reason `user_abort`;
/// Codex CLI: its `<turn_aborted>` marker (a user message Codex writes for an
/// interrupt only, before its Interrupt hook runs) or `turn_aborted` with
/// reason `interrupted` (written once that hook has returned).
pub fn interrupt(path: &Path, offset: u64) -> (bool, u64) {
    let Some((lines, end)) = lines_from_where(path, offset, may_be_interrupt) else {
        return (false, offset);
    };
    let found = lines.iter().any(|line| {
        let kind = line.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "user" => {
                line.get("interruptedMessageId").is_some()
                    || message_text(line.get("message")).starts_with("[Request interrupted by user")
            }
            "abort" => {
                line.get("data")
                    .and_then(|d| d.get("reason"))
                    .and_then(Value::as_str)
                    == Some("user_abort")
            }
            "event_msg" | "response_item" => codex_interrupt(line.get("payload")),
            _ => false,
        }
    });
    (found, end)
}

/// Codex's record of an interrupted turn (see `interrupt`).
fn codex_interrupt(payload: Option<&Value>) -> bool {
    let Some(payload) = payload else { return false };
    let field = |k: &str| payload.get(k).and_then(Value::as_str);
    match field("type") {
        Some("turn_aborted") => field("reason") == Some("interrupted"),
        // Codex's content blocks are `input_text`.
        Some("message") if field("role") == Some("user") => payload
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("<turn_aborted>")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempDir;
    use serde_json::json;

    fn write(dir: &TempDir, lines: &[Value]) -> PathBuf {
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        dir.write("t.jsonl", &body)
    }

    fn fp(text: &str) -> String {
        redact::fingerprint(&normalize(text))
    }

    fn typed_again() -> Value {
        json!({"type": "user", "promptId": "p1", "origin": {"kind": "human"}, "message": {"content": "/goal pause"}})
    }

    #[test]
    fn the_users_prompt_is_found_by_its_id_and_text_past_the_offset() {
        let dir = TempDir::new("records");
        let old = json!({"type": "user", "promptId": "p0", "message": {"content": "/goal cancel"}});
        let blocked =
            json!({"type": "system", "content": "UserPromptSubmit operation blocked by hook: …"});
        let path = write(&dir, &[old.clone(), blocked.clone()]);
        let offset = end_of(&path);
        assert_eq!(
            claude_prompt(&path, offset, "p0", &fp("/goal cancel"), "n"),
            Said::NotYet,
            "an old record is not a new prompt"
        );
        let user = json!({"type": "user", "promptId": "p1", "origin": {"kind": "human"}, "promptSource": "typed",
            "message": {"role": "user", "content": "<command-message>goal</command-message>\n<command-name>/goal</command-name>\n<command-args>cancel: r</command-args>"}});
        write(&dir, &[old.clone(), blocked, user]);
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal cancel: r"), "n"),
            Said::User
        );
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal cancel"), "n"),
            Said::NotYet,
            "other text"
        );
        assert_eq!(
            claude_prompt(&path, offset, "p2", &fp("/goal cancel: r"), "n"),
            Said::NotYet,
            "other id"
        );
    }

    #[test]
    fn a_prompt_written_just_before_the_hook_read_the_end_is_found_but_not_an_answered_one() {
        let dir = TempDir::new("records-before");
        let answered = json!({"type": "user", "promptId": "p0", "origin": {"kind": "human"}, "message": {"content": "/goal cancel"}});
        let answer =
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}});
        let typed = json!({"type": "user", "promptId": "p1", "origin": {"kind": "human"}, "message": {"content": "/goal pause"}});
        // The prompt was on disk when the hook read where the record ended.
        let path = write(&dir, &[answered.clone(), answer.clone(), typed.clone()]);
        let offset = end_of(&path);
        write(&dir, &[answered, answer.clone(), typed, answer]);
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal pause"), "n"),
            Said::User
        );
        // A replay of the earlier prompt: the model answered it.
        assert_eq!(
            claude_prompt(&path, offset, "p0", &fp("/goal cancel"), "n"),
            Said::NotUser
        );
        // Nor a prompt that another entry follows before the offset.
        let meta = json!({"type": "user", "promptId": "p1", "isMeta": true, "message": {"content": "body"}});
        let path = write(&dir, &[typed_again(), meta.clone()]);
        let offset = end_of(&path);
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal pause"), "n"),
            Said::User,
            "the command's own body after it"
        );
        let next = json!({"type": "system", "subtype": "turn_duration"});
        let path = write(&dir, &[typed_again(), meta, next]);
        let offset = end_of(&path);
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal pause"), "n"),
            Said::NotYet
        );
    }

    #[test]
    fn tool_results_meta_and_other_origins_are_not_the_user_and_an_answer_settles_it() {
        let dir = TempDir::new("records-not");
        let fake = [
            json!({"type": "user", "promptId": "p1", "toolUseResult": "x", "message": {"content": [{"type": "text", "text": "/goal cancel"}]}}),
            json!({"type": "user", "promptId": "p1", "isMeta": true, "message": {"content": "/goal cancel"}}),
            json!({"type": "user", "promptId": "p1", "origin": {"kind": "task-notification"}, "message": {"content": "/goal cancel"}}),
            json!({"type": "user", "promptId": "p1", "isCompactSummary": true, "isVisibleInTranscriptOnly": true, "message": {"content": "/goal cancel"}}),
        ];
        let path = write(&dir, &fake);
        assert_eq!(
            claude_prompt(&path, 0, "p1", &fp("/goal cancel"), "n"),
            Said::NotYet
        );
        let mut lines = fake.to_vec();
        lines.push(json!({"type": "assistant", "message": {"content": []}}));
        write(&dir, &lines);
        assert_eq!(
            claude_prompt(&path, 0, "p1", &fp("/goal cancel"), "n"),
            Said::Answered
        );
    }

    #[test]
    fn a_first_prompt_written_after_its_answer_is_still_the_users() {
        // A session's first turn: the hook found no transcript (offset 0),
        // and the fast answer reached the file before the prompt did.
        let dir = TempDir::new("records-first");
        let meta = json!({"type": "last-prompt", "sessionId": "s"});
        let answer =
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}});
        let path = write(&dir, &[meta.clone(), answer.clone()]);
        assert_eq!(
            claude_prompt(&path, 0, "p1", &fp("/goal pause"), "n"),
            Said::Answered,
            "the answer alone"
        );
        write(&dir, &[meta.clone(), answer.clone(), typed_again()]);
        assert_eq!(
            claude_prompt(&path, 0, "p1", &fp("/goal pause"), "n"),
            Said::User
        );
        // Only where the hook found no record: past an offset the answer
        // comes after the prompt.
        let path = write(&dir, std::slice::from_ref(&meta));
        let offset = end_of(&path);
        write(&dir, &[meta, answer, typed_again()]);
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal pause"), "n"),
            Said::NotUser
        );
    }

    #[test]
    fn a_record_the_hook_found_missing_holds_no_replay_of_an_earlier_prompt() {
        // The record moved aside while a forged payload replayed an earlier
        // prompt of the user's (offset 0): the scan stops at the first entry
        // of another prompt.
        let dir = TempDir::new("records-replay");
        let turn = |id: &str, text: &str| {
            [
                json!({"type": "user", "promptId": id, "origin": {"kind": "human"}, "message": {"content": text}}),
                json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "on it"}]}}),
            ]
        };
        let mut lines = turn("p1", "/goal ship it").to_vec();
        lines.extend(turn("p2", "/goal rewrite the auth module"));
        let path = write(&dir, &lines);
        assert_eq!(
            claude_prompt(&path, 0, "p2", &fp("/goal rewrite the auth module"), "n"),
            Said::NotUser
        );
        assert_eq!(
            claude_prompt(&path, 0, "p1", &fp("/goal ship it"), "n"),
            Said::User,
            "the record's first prompt, as in the race it is read for"
        );
    }

    #[test]
    fn bookkeeping_between_a_prompt_and_the_hooks_read_does_not_hide_it() {
        // Claude Code re-appends its session metadata as the file grows, and
        // writes file-history snapshots: neither is a turn of the conversation.
        let dir = TempDir::new("records-bookkeeping");
        let bookkeeping = [
            json!({"type": "last-prompt", "lastPrompt": "x", "sessionId": "s"}),
            json!({"type": "mode", "mode": "normal", "sessionId": "s"}),
            json!({"type": "permission-mode", "permissionMode": "default", "sessionId": "s"}),
            json!({"type": "file-history-snapshot", "messageId": "m"}),
        ];
        let mut lines = vec![typed_again()];
        lines.extend(bookkeeping.iter().cloned());
        let path = write(&dir, &lines);
        let offset = end_of(&path);
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal pause"), "n"),
            Said::User
        );
        // A turn between them still hides it (the host answered it).
        lines.insert(
            1,
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}}),
        );
        let path = write(&dir, &lines);
        let offset = end_of(&path);
        assert_eq!(
            claude_prompt(&path, offset, "p1", &fp("/goal pause"), "n"),
            Said::NotYet
        );
    }

    #[test]
    fn a_prompt_our_hook_blocked_is_known_by_the_nonce_in_its_reason() {
        let dir = TempDir::new("records-block");
        let blocked = json!({"type": "system", "subtype": "informational",
            "content": "UserPromptSubmit operation blocked by hook:\n[goal-system] Goal cancelled. #n-42\n\nOriginal prompt: /goal cancel",
            "promptSubmitEnding": {"ending": {"kind": "blocked_by_hook", "reason": "[goal-system] Goal cancelled. #n-42"}, "promptKept": false}});
        let path = write(&dir, &[blocked]);
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal cancel"), "n-42"),
            Said::User
        );
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal cancel"), "n-43"),
            Said::NotYet
        );
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal cancel"), ""),
            Said::NotYet
        );
        // Claude Code 2.1.197's shape (seen in e2e/claude.test.mjs "usage"): no
        // promptSubmitEnding, the block in the entry's content.
        let old = json!({"type": "system", "subtype": "informational", "level": "warning", "preventContinuation": true,
            "content": "UserPromptSubmit operation blocked by hook:\n[goal-system] The user set the budget. (ref n-7)\n\nOriginal prompt: /goal budget 1k"});
        let path = write(&dir, &[old]);
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal budget 1k"), "n-7"),
            Said::User
        );
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal budget 1k"), "n-8"),
            Said::NotYet
        );
        let blocked_197 = json!({"type": "system", "subtype": "informational", "level": "warning",
            "content": "UserPromptSubmit operation blocked by hook:\n[goal-system] Goal cancelled. (ref n-42)\n\nOriginal prompt: /goal cancel",
            "preventContinuation": true});
        let path = write(&dir, &[blocked_197]);
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal cancel"), "n-42"),
            Said::User
        );
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal cancel"), "n-43"),
            Said::NotYet
        );
        let other =
            json!({"type": "system", "subtype": "informational", "content": "note (ref n-42)"});
        let path = write(&dir, &[other]);
        assert_eq!(
            claude_prompt(&path, 0, "p9", &fp("/goal cancel"), "n-42"),
            Said::NotYet,
            "only the host's block record"
        );
    }

    #[test]
    fn copilots_record_confirms_only_the_hosts_own_hook_run() {
        let dir = TempDir::new("records-copilot");
        let start = |ts: Value, prompt: &str| {
            json!({"type": "hook.start", "data": {"hookInvocationId": "h", "hookType": "userPromptSubmitted",
                "input": {"sessionId": "s", "prompt": prompt, "timestamp": ts, "cwd": "/w"}}})
        };
        let f = fp("/goal cancel: r");
        let path = write(&dir, &[start(json!("1795"), "/goal cancel: r")]);
        assert_eq!(copilot_prompt(&path, 0, "1795", &f), Said::User);
        assert_eq!(
            copilot_prompt(&path, 0, "1796", &f),
            Said::NotYet,
            "another run"
        );
        assert_eq!(
            copilot_prompt(&path, 0, "1795", &fp("/goal pause")),
            Said::NotYet
        );
        // A forged run: the agent's tool call completes, the model goes on,
        // and the host's own runs have other timestamps.
        let path = write(
            &dir,
            &[
                json!({"type": "tool.execution_complete", "data": {}}),
                start(json!("1801"), "/goal cancel: r"),
            ],
        );
        assert_eq!(copilot_prompt(&path, 0, "1795", &f), Said::NotUser);
        // sessionStart carries a session's first prompt as `initialPrompt`.
        let path = write(
            &dir,
            &[
                json!({"type": "hook.start", "data": {"hookType": "sessionStart",
                "input": {"initialPrompt": "/goal cancel: r", "timestamp": "7"}}}),
            ],
        );
        assert_eq!(copilot_prompt(&path, 0, "7", &f), Said::User);
        // Written just before the hook read the record's end (a sessionStart
        // hook running beside it): still the host's run.
        let path = write(&dir, &[start(json!("1795"), "/goal cancel: r")]);
        let end = end_of(&path);
        assert_eq!(copilot_prompt(&path, end, "1795", &f), Said::User);
    }

    #[test]
    fn interrupts_of_either_host_are_found_once() {
        let dir = TempDir::new("records-int");
        let path = write(
            &dir,
            &[json!({"type": "user", "interruptedMessageId": "m1",
            "message": {"content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}})],
        );
        let (found, end) = interrupt(&path, 0);
        assert!(found);
        assert_eq!(interrupt(&path, end), (false, end));
        let path = write(
            &dir,
            &[
                json!({"type": "assistant.turn_start"}),
                json!({"type": "abort", "data": {"reason": "user_abort"}}),
            ],
        );
        assert!(interrupt(&path, 0).0);
    }

    /// Codex CLI 0.169.0's rollout around an Esc (seen in its TUI): the
    /// marker before the Interrupt hook runs, `turn_aborted` after it.
    #[test]
    fn codexs_interrupted_turn_is_found_and_nothing_else_of_its_is() {
        let dir = TempDir::new("records-codex-int");
        let turn = json!({"turn_id": "t-1"});
        let marker = json!({"timestamp": "2026-11-26T18:00:39.246Z", "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text",
            "text": "<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"}],
            "internal_chat_message_metadata_passthrough": turn}});
        let aborted = json!({"type": "event_msg", "payload": {"type": "turn_aborted",
            "turn_id": "t-1", "reason": "interrupted", "duration_ms": 4097}});
        let output = json!({"type": "response_item", "payload": {"type": "function_call_output",
            "call_id": "c1", "output": "Wall time: 3.8 seconds\naborted by user"}});
        for lines in [vec![output.clone(), marker], vec![aborted]] {
            let path = write(&dir, &lines);
            let (found, end) = interrupt(&path, 0);
            assert!(found, "{lines:?}");
            assert_eq!(interrupt(&path, end), (false, end), "read once");
        }
        // The agent's words (a tool output, an answer quoting the marker), a
        // turn replaced rather than interrupted: not the user's interrupt.
        let quoted = json!({"type": "response_item", "payload": {"type": "message",
            "role": "assistant", "content": [{"type": "output_text", "text": "<turn_aborted>"}]}});
        let replaced = json!({"type": "event_msg", "payload": {"type": "turn_aborted",
            "turn_id": "t-1", "reason": "replaced"}});
        let path = write(&dir, &[output, quoted, replaced]);
        assert!(!interrupt(&path, 0).0);
    }

    #[test]
    fn only_claudes_own_transcript_place_is_read() {
        let home = PathBuf::from("/home/u");
        let dirs = [home.join(".claude")];
        let good = home.join(".claude/projects/-w-p/s1.jsonl");
        assert_eq!(
            claude_transcript(good.to_str().unwrap(), "s1", &dirs),
            Some(good.clone())
        );
        for bad in [
            "/tmp/fake/projects/x/s1.jsonl".to_string(),
            home.join(".claude/projects/-w-p/s2.jsonl")
                .to_string_lossy()
                .into_owned(),
            home.join(".claude/projects/../projects/x/s1.jsonl")
                .to_string_lossy()
                .into_owned(),
            home.join(".claude/other/x/s1.jsonl")
                .to_string_lossy()
                .into_owned(),
        ] {
            assert_eq!(claude_transcript(&bad, "s1", &dirs), None, "{bad}");
        }
    }

    /// Every interrupt shape `interrupt` accepts passes the
    /// prefilter, in the forms the hosts write (NOTES.md, the tests above).
    #[test]
    fn the_line_filter_keeps_every_interrupt_the_hosts_write() {
        let real = [
            json!({"type": "user", "interruptedMessageId": "m1", "message": {"content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}}),
            json!({"type": "user", "message": {"content": "[Request interrupted by user]"}}),
            json!({"type": "user", "interruptedMessageId": "m1", "message": {"content": "x"}}),
            json!({"type": "abort", "data": {"reason": "user_abort"}}),
            json!({"type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}}),
            json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<turn_aborted>\nThe user interrupted</turn_aborted>"}]}}),
        ];
        let dir = TempDir::new("records-filter");
        for line in real {
            let raw = line.to_string();
            assert!(may_be_interrupt(raw.as_bytes()), "{raw}");
            let path = write(&dir, &[line]);
            assert!(interrupt(&path, 0).0, "{raw}");
        }
        // Only a writer that escapes ASCII letters would be missed; none does.
        let path = dir.write(
            "e.jsonl",
            "{\"type\":\"\\u0061bort\",\"data\":{\"reason\":\"user_\\u0061bort\"}}\n",
        );
        let (lines, _) = lines_from(&path, 0).unwrap();
        assert_eq!(lines.len(), 1, "parses as an abort");
        assert!(!interrupt(&path, 0).0, "passed over unparsed");
        // A line that is not UTF-8 never parsed before either.
        let bad =
            b"{\"type\":\"abort\",\"data\":{\"reason\":\"user_abort\"},\"x\":\"\xff\"}\n".to_vec();
        let p2 = dir.write("b.jsonl", "");
        std::fs::write(&p2, &bad).unwrap();
        assert!(
            lines_from(&p2, 0).unwrap().0.is_empty(),
            "serde rejects non-UTF-8 too"
        );
    }
}
