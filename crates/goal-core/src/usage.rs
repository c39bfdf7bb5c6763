//! Token usage from what each host itself records, read so that a source
//! re-read by every hook counts once.
//!
//! - Claude Code: the JSONL transcript at `transcript_path`; assistant entries
//!   carry `message.usage`. One message spans several lines (one per content
//!   block) with the same `message.id`, so tokens are counted per message id,
//!   and only the bytes past the stored offset are read.
//! - Copilot CLI: `<session-state>/<session>/autopilot-objective.json`,
//!   `current.tokenCount`, the host's running total: only its growth counts.
//! - Codex CLI: its rollout's last `token_count` event, a running total.
//! - Gemini CLI: its chat recording at `transcript_path` (JSONL); each model
//!   answer is a `type: "gemini"` record whose `tokens` are the answer's
//!   `usageMetadata`, appended again under the same `id` when its tool calls
//!   are added: read as Claude Code's transcript is, per message id.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::record::UsageMark;

/// The prefix of a record file's key in `Budget::usage_sources`.
pub const RECORD_KEY: &str = "transcript:";

/// Where a hook found usage.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A Claude Code transcript file.
    Transcript(PathBuf),
    /// A Gemini CLI chat recording (`~/.gemini/tmp/<project>/chats/*.jsonl`).
    GeminiChat(PathBuf),
    /// A host's running token total (Copilot CLI's `tokenCount`), under a key
    /// naming the host's session; `record`: the host's record of that session
    /// (Copilot CLI's `events.jsonl`, Codex CLI's rollout), which names where
    /// the total was read.
    RunningTotal {
        key: String,
        total: u64,
        record: Option<PathBuf>,
    },
}

impl Source {
    /// The key under which `Budget::usage_sources` remembers what was counted.
    /// A transcript is named by a hash of its path: no path reaches the record.
    pub fn key(&self) -> String {
        match self {
            Source::Transcript(path) | Source::GeminiChat(path) => {
                let digest = Sha256::digest(path.to_string_lossy().as_bytes());
                let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
                format!("{RECORD_KEY}{hex}")
            }
            Source::RunningTotal { key, .. } => key.clone(),
        }
    }

    /// The host's record of the session the source was read from.
    pub fn record(&self) -> Option<&std::path::Path> {
        match self {
            Source::Transcript(path) | Source::GeminiChat(path) => Some(path),
            Source::RunningTotal { record, .. } => record.as_deref(),
        }
    }

    /// A mark at the source's present end: what the host used before the
    /// goal began is not the goal's.
    pub fn baseline(&self) -> UsageMark {
        match self {
            Source::Transcript(path) | Source::GeminiChat(path) => UsageMark {
                offset: std::fs::metadata(path).map_or(0, |m| m.len()),
                ..UsageMark::default()
            },
            Source::RunningTotal { total, .. } => UsageMark {
                total: *total,
                ..UsageMark::default()
            },
        }
    }

    /// Tokens not yet counted, advancing `mark` past them.
    pub fn count(&self, mark: &mut UsageMark) -> u64 {
        match self {
            Source::Transcript(path) => read_records(path, mark, message_usage),
            Source::GeminiChat(path) => read_records(path, mark, gemini_usage),
            Source::RunningTotal { total, .. } => count_running_total(*total, mark),
        }
    }
}

/// Bytes read per call at most: a huge first read is finished by later hooks.
const MAX_READ: u64 = 8 * 1024 * 1024;
/// Message ids remembered per source (a message straddles reads only at the tail).
const RECENT_IDS: usize = 32;

/// New tokens in a host's JSONL record past `mark.offset`, `usage` reading a
/// line's message id and tokens. Only whole lines are consumed; a file that
/// shrank (rewritten) is read again from its start, the remembered message
/// ids keeping what was counted from counting twice.
fn read_records(
    path: &std::path::Path,
    mark: &mut UsageMark,
    usage: fn(&[u8]) -> Option<(String, u64)>,
) -> u64 {
    let Ok(mut file) = std::fs::File::open(path) else {
        return 0;
    };
    let Ok(meta) = file.metadata() else { return 0 };
    if !meta.is_file() {
        return 0;
    }
    if meta.len() < mark.offset {
        mark.offset = 0;
    }
    if meta.len() == mark.offset || file.seek(SeekFrom::Start(mark.offset)).is_err() {
        return 0;
    }
    let mut bytes = Vec::new();
    if file.take(MAX_READ).read_to_end(&mut bytes).is_err() {
        return 0;
    }
    let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
        return 0;
    };
    let mut added = 0;
    for line in bytes[..end].split(|b| *b == b'\n') {
        if let Some((id, tokens)) = usage(line) {
            added += count_message(mark, id, tokens);
        }
    }
    mark.offset += end as u64 + 1;
    added
}

/// A transcript line's message id and its total tokens, if it carries usage.
fn message_usage(line: &[u8]) -> Option<(String, u64)> {
    if !line.windows(7).any(|w| w == b"\"usage\"") {
        return None; // most lines carry no usage: skip the parse
    }
    let entry: Value = serde_json::from_slice(line).ok()?;
    let message = entry.get("message")?;
    let usage = message.get("usage")?;
    let field = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    let tokens = field("input_tokens")
        + field("output_tokens")
        + field("cache_creation_input_tokens")
        + field("cache_read_input_tokens");
    let id = message
        .get("id")
        .or_else(|| entry.get("requestId"))
        .or_else(|| entry.get("uuid"))
        .and_then(Value::as_str)?
        .to_string();
    Some((id, tokens))
}

/// A Gemini CLI chat record's id and total tokens, if it is a model answer
/// with usage (`usageMetadata.totalTokenCount` as recorded; the parts summed
/// when the host recorded no total).
fn gemini_usage(line: &[u8]) -> Option<(String, u64)> {
    if !line.windows(8).any(|w| w == b"\"tokens\"") {
        return None;
    }
    let entry: Value = serde_json::from_slice(line).ok()?;
    if entry.get("type").and_then(Value::as_str) != Some("gemini") {
        return None;
    }
    let tokens = entry.get("tokens")?;
    let field = |k: &str| tokens.get(k).and_then(Value::as_u64).unwrap_or(0);
    let total = match field("total") {
        0 => field("input") + field("output") + field("thoughts") + field("tool"),
        total => total,
    };
    let id = entry.get("id").and_then(Value::as_str)?.to_string();
    Some((id, total))
}

/// Count a message once: a later line of the same message adds only its growth.
fn count_message(mark: &mut UsageMark, id: String, tokens: u64) -> u64 {
    if let Some(entry) = mark.recent.iter_mut().find(|(seen, _)| *seen == id) {
        let added = tokens.saturating_sub(entry.1);
        entry.1 = entry.1.max(tokens);
        return added;
    }
    mark.recent.push((id, tokens));
    if mark.recent.len() > RECENT_IDS {
        let cut = mark.recent.len() - RECENT_IDS;
        mark.recent.drain(..cut);
    }
    tokens
}

/// The growth of a host's running total. A total that went down was restarted
/// by the host (a new autopilot objective): all of it is new.
pub fn count_running_total(total: u64, mark: &mut UsageMark) -> u64 {
    let added = if total >= mark.total {
        total - mark.total
    } else {
        total
    };
    mark.total = total;
    added
}

/// Copilot CLI's running token total for a session, as a source.
pub fn copilot_total(store: &crate::store::Store, session_id: &str) -> Option<Source> {
    let objective = crate::autopilot::read(store, session_id)?;
    let total = objective.get("tokenCount").and_then(Value::as_u64)?;
    Some(Source::RunningTotal {
        key: format!("copilot:{session_id}"),
        total,
        record: store.config.copilot_events(session_id),
    })
}

/// How much of the end of Codex CLI's rollout is read for its running total.
const CODEX_TAIL: u64 = 256 * 1024;

/// Codex CLI's running token total for a session: the last `token_count`
/// event of its rollout (`info.total_token_usage.total_tokens`), read from
/// the rollout's end.
pub fn codex_total(rollout: &std::path::Path, session_id: &str) -> Option<Source> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(rollout).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(CODEX_TAIL)))
        .ok()?;
    let mut bytes = Vec::new();
    file.take(CODEX_TAIL).read_to_end(&mut bytes).ok()?;
    let total = bytes.split(|b| *b == b'\n').rev().find_map(|line| {
        if !line.windows(11).any(|w| w == b"token_count") {
            return None;
        }
        let v: Value = serde_json::from_slice(line).ok()?;
        v.pointer("/payload/info/total_token_usage/total_tokens")?
            .as_u64()
    })?;
    Some(Source::RunningTotal {
        key: format!("codex:{session_id}"),
        total,
        record: Some(rollout.to_path_buf()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn codexs_total_is_its_last_token_count() {
        let dir = crate::testing::TempDir::new("codex-usage");
        let count = |n: u64| {
            format!(
                "{}\n",
                serde_json::json!({"type": "event_msg", "payload": {"type": "token_count",
                    "info": {"total_token_usage": {"total_tokens": n}, "last_token_usage": {"total_tokens": 110}}}})
            )
        };
        let path = dir.write(
            "rollout-1-s.jsonl",
            &format!(
                "{}{}{{\"type\":\"event_msg\",\"payload\":{{\"type\":\"task_complete\"}}}}\n",
                count(220),
                count(330)
            ),
        );
        let Some(Source::RunningTotal { key, total, .. }) = codex_total(&path, "s") else {
            panic!("no total")
        };
        assert_eq!((key.as_str(), total), ("codex:s", 330));
        assert!(codex_total(&dir.write("rollout-2-s.jsonl", "{}\n"), "s").is_none());
    }

    fn line(id: &str, input: u64, output: u64) -> String {
        format!(
            "{{\"type\":\"assistant\",\"requestId\":\"req-{id}\",\"message\":{{\"id\":\"{id}\",\"role\":\"assistant\",\"usage\":{{\"input_tokens\":{input},\"output_tokens\":{output},\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0}}}}}}\n"
        )
    }

    #[test]
    fn a_message_spanning_several_lines_counts_once_and_reads_continue_at_the_offset() {
        let path =
            std::env::temp_dir().join(format!("goal-usage-{}.jsonl", crate::clock::new_goal_id()));
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(line("m1", 100, 20).as_bytes()).unwrap();
        file.write_all(line("m1", 100, 20).as_bytes()).unwrap();
        file.write_all(b"{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n")
            .unwrap();
        let claude = Source::Transcript(path.clone());
        let mut mark = UsageMark::default();
        assert_eq!(claude.count(&mut mark), 120);
        assert_eq!(claude.count(&mut mark), 0, "nothing new");
        file.write_all(line("m2", 5, 5).as_bytes()).unwrap();
        file.write_all(b"{\"type\":\"assistant\",\"message\":{\"id\":\"m3\",\"usage\"")
            .unwrap();
        assert_eq!(claude.count(&mut mark), 10, "a half line waits");
        file.write_all(b":{\"input_tokens\":7}}}\n").unwrap();
        assert_eq!(claude.count(&mut mark), 7);
        std::fs::remove_file(path).ok();
    }

    /// Gemini CLI 0.61.0's chat recording as the real host wrote it (e2e):
    /// the header, `$set` updates, the user's record, a model answer with
    /// its `tokens`, the same answer again under its id once its tool calls
    /// were added, a tool result.
    #[test]
    fn geminis_chat_recording_counts_each_answer_once() {
        let dir = crate::testing::TempDir::new("gemini-usage");
        let answer = |id: &str, total: u64, calls: bool| {
            let mut v = serde_json::json!({"id": id, "timestamp": "2026-11-26T17:50:31.996Z",
                "type": "gemini", "content": "", "thoughts": [], "model": "gemini-e2e",
                "tokens": {"input": total - 10, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": total}});
            if calls {
                v["toolCalls"] = serde_json::json!([{"id": "run_shell_command_1", "name": "run_shell_command",
                    "args": {"command": "echo hi"}, "status": "success"}]);
            }
            format!("{v}\n")
        };
        let text = [
            "{\"sessionId\":\"fac7e3c7\",\"projectHash\":\"bea6\",\"startTime\":\"2026-11-26T17:50:30.845Z\",\"lastUpdated\":\"2026-11-26T17:50:30.845Z\",\"kind\":\"main\"}\n".to_string(),
            "{\"id\":\"1fd1\",\"timestamp\":\"2026-11-26T17:50:31.094Z\",\"type\":\"user\",\"content\":[{\"text\":\"count my \\\"tokens\\\"\"}]}\n".to_string(),
            "{\"$set\":{\"lastUpdated\":\"2026-11-26T17:50:31.094Z\"}}\n".to_string(),
            answer("7751", 110, false),
            answer("7751", 110, true),
            "{\"id\":\"b48f\",\"type\":\"user\",\"content\":[{\"functionResponse\":{\"name\":\"run_shell_command\",\"response\":{\"output\":\"hi\"}}}]}\n".to_string(),
        ]
        .concat();
        let path = dir.write("session-2026-11-26T17-50-fac7e3c7.jsonl", &text);
        let gemini = Source::GeminiChat(path.clone());
        let mut mark = UsageMark::default();
        assert_eq!(gemini.count(&mut mark), 110, "one answer, recorded twice");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(answer("7308", 123, false).as_bytes())
            .unwrap();
        assert_eq!(gemini.count(&mut mark), 123);
        assert_eq!(gemini.count(&mut mark), 0, "nothing new");
        // A recording with no total (an older host): the parts.
        let line = "{\"id\":\"a1\",\"type\":\"gemini\",\"tokens\":{\"input\":7,\"output\":3,\"thoughts\":2,\"tool\":1}}";
        assert_eq!(gemini_usage(line.as_bytes()), Some(("a1".into(), 13)));
        let user = line.replace("\"gemini\"", "\"user\"");
        assert_eq!(
            gemini_usage(user.as_bytes()),
            None,
            "only the model's answers"
        );
        assert_eq!(
            message_usage(answer("x", 50, false).as_bytes()),
            None,
            "not Claude Code's shape"
        );
    }

    #[test]
    fn a_running_total_counts_only_its_growth() {
        let mut mark = UsageMark::default();
        assert_eq!(count_running_total(50_000, &mut mark), 50_000);
        assert_eq!(count_running_total(50_000, &mut mark), 0);
        assert_eq!(count_running_total(52_000, &mut mark), 2_000);
        assert_eq!(
            count_running_total(300, &mut mark),
            300,
            "a restarted total"
        );
    }
}
