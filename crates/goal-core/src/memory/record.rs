//! One repository memory (a line of `.github/copilot-memories.jsonl`) and the
//! two tools' typed requests. Every request is redacted before it is parsed,
//! and parsed before any field is checked, so a secret never reaches disk, the
//! model or an error message.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::error::{ErrorCode, GoalError, Result};
use crate::redact;
use crate::request;

/// Longest subject (a few words naming what the fact is about).
pub const MAX_SUBJECT_CHARS: usize = 80;
/// Longest fact: one concise, lasting statement.
pub const MAX_FACT_CHARS: usize = 600;
/// Longest citations text (where the fact comes from).
pub const MAX_CITATIONS_CHARS: usize = 400;
/// Longest reason (why a future task needs it; also a vote's reason).
pub const MAX_REASON_CHARS: usize = 400;
/// Votes kept with their reasons (the counts are kept whole).
pub const VOTE_LOG_KEEP: usize = 5;

/// One memory as stored: `id`, `subject`, `fact`, `citations`, `reason`,
/// `source` (host, session, time), `votes`. Fields written by others (Copilot
/// CLI's own local memory writes this file too) are kept verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    #[serde(default)]
    pub id: String,
    pub subject: String,
    pub fact: String,
    #[serde(default, deserialize_with = "text_or_list")]
    pub citations: String,
    #[serde(default)]
    pub reason: String,
    /// `{host, session, time}` when written here; any shape another writer used.
    #[serde(default)]
    pub source: Value,
    #[serde(default)]
    pub votes: Votes,
    /// The latest votes with their reasons, newest last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vote_log: Vec<Vote>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How often a memory was found useful (up) or wrong or outdated (down).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Votes {
    #[serde(default)]
    pub up: u32,
    #[serde(default)]
    pub down: u32,
}

/// One vote as the log keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vote {
    pub direction: Direction,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub by: String,
    #[serde(default)]
    pub time: String,
}

/// A vote's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
}

impl Direction {
    pub fn parse(text: &str) -> Option<Direction> {
        match text.trim().to_ascii_lowercase().as_str() {
            "up" | "upvote" | "+" | "+1" | "useful" => Some(Direction::Up),
            "down" | "downvote" | "-" | "-1" | "wrong" | "outdated" => Some(Direction::Down),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
        }
    }
}

/// Copilot's local records may hold citations as a list: read either.
fn text_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join("; "),
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

impl Memory {
    /// When it was stored (`source.time`, or another writer's `createdAt`).
    pub fn time(&self) -> &str {
        ["time", "createdAt", "timestamp"]
            .iter()
            .find_map(|k| self.source.get(*k).and_then(Value::as_str))
            .or_else(|| self.extra.get("createdAt").and_then(Value::as_str))
            .unwrap_or("")
    }

    /// The latest of its storing and its last up-vote: what recency counts.
    pub fn fresh_time(&self) -> &str {
        let last_up = self
            .vote_log
            .iter()
            .rev()
            .find(|v| v.direction == Direction::Up)
            .map_or("", |v| v.time.as_str());
        std::cmp::max(self.time(), last_up)
    }

    /// Net votes.
    pub fn net(&self) -> i64 {
        i64::from(self.votes.up) - i64::from(self.votes.down)
    }

    /// Marked wrong or outdated more often than useful: never injected.
    pub fn disputed(&self) -> bool {
        self.votes.down > self.votes.up
    }
}

/// Two facts are the same memory when they read the same: case, spacing and
/// a final full stop aside.
pub fn same_fact_key(fact: &str) -> String {
    let words: Vec<String> = fact.split_whitespace().map(str::to_lowercase).collect();
    words
        .join(" ")
        .trim_end_matches(['.', '!', ';'])
        .trim()
        .to_string()
}

/// A memory's id: from its fact, so the same fact stored on two branches
/// merges into one line.
pub fn id_for(fact: &str) -> String {
    let digest = Sha256::digest(same_fact_key(fact).as_bytes());
    let hex: String = digest.iter().take(5).map(|b| format!("{b:02x}")).collect();
    format!("mem-{hex}")
}

// ---------------------------------------------------------------------------
// The tools' requests
// ---------------------------------------------------------------------------

// Each field's doc comment is its description in the tool's schema.
/// `store_memory`: remember one lasting fact about this repository.
#[derive(Deserialize, JsonSchema, Debug, Clone, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StoreMemoryRequest {
    /// A few words naming what the fact is about (e.g. "test command", "error handling").
    #[serde(default)]
    pub subject: Option<String>,
    /// One concise, lasting fact a future task in this repository needs (a convention, a command, a trap); not the state of the current task.
    #[serde(default)]
    pub fact: Option<String>,
    /// Where it comes from: file paths with line numbers, or "User input: ..." when the user said it.
    #[serde(default)]
    pub citations: Option<String>,
    /// Why future tasks need it.
    #[serde(default)]
    pub reason: Option<String>,
}

/// `vote_memory`: say a stored memory helped, or is wrong or outdated.
#[derive(Deserialize, JsonSchema, Debug, Clone, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VoteMemoryRequest {
    /// The memory's fact, exactly as it was shown.
    #[serde(default)]
    pub fact: Option<String>,
    /// upvote when it helped; downvote when it is wrong or outdated.
    #[serde(default)]
    pub direction: Option<VoteDirection>,
    /// Why: what it helped with, or what is wrong with it now.
    #[serde(default)]
    pub reason: Option<String>,
}

/// The vote directions as the tool's schema lists them.
#[derive(Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum VoteDirection {
    Upvote,
    Downvote,
}

/// A store request, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreInput {
    pub subject: String,
    pub fact: String,
    pub citations: String,
    pub reason: String,
}

/// A vote request, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct VoteInput {
    pub fact: String,
    pub direction: Direction,
    pub reason: String,
}

/// A required text: present, not blank, on one line, within `max` characters.
fn text(value: Option<String>, field: &str, tool: &str, max: usize) -> Result<String> {
    let value = value
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| GoalError::invalid(format!("{field}: required by {tool}")))?;
    let one_line = value.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > max {
        return Err(GoalError::new(
            ErrorCode::LimitExceeded,
            format!("{field}: at most {max} characters; keep one concise fact per memory"),
        ));
    }
    Ok(one_line)
}

/// Read a `store_memory` request: redacted first, then typed (an unknown or
/// mistyped field is named), then each field checked.
pub fn parse_store(request: &Value) -> Result<StoreInput> {
    let mut request = request.clone();
    redact::redact_value(&mut request);
    let req: StoreMemoryRequest = request::parse(super::STORE_TOOL, &request)?;
    let tool = super::STORE_TOOL;
    Ok(StoreInput {
        subject: text(req.subject, "subject", tool, MAX_SUBJECT_CHARS)?,
        fact: text(req.fact, "fact", tool, MAX_FACT_CHARS)?,
        citations: text(req.citations, "citations", tool, MAX_CITATIONS_CHARS)?,
        reason: text(req.reason, "reason", tool, MAX_REASON_CHARS)?,
    })
}

/// Read a `vote_memory` request, as [`parse_store`] does.
pub fn parse_vote(request: &Value) -> Result<VoteInput> {
    let mut request = request.clone();
    redact::redact_value(&mut request);
    let req: VoteMemoryRequest = request::parse(super::VOTE_TOOL, &request)?;
    let tool = super::VOTE_TOOL;
    let fact = text(req.fact, "fact", tool, MAX_FACT_CHARS)?;
    let direction = match req.direction {
        Some(VoteDirection::Upvote) => Direction::Up,
        Some(VoteDirection::Downvote) => Direction::Down,
        None => {
            return Err(GoalError::invalid(format!(
                "direction: required by {tool} (upvote or downvote)"
            )))
        }
    };
    let reason = text(req.reason, "reason", tool, MAX_REASON_CHARS)?;
    Ok(VoteInput {
        fact,
        direction,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn token() -> String {
        // Built at run time: no secret-shaped literal in the source.
        format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2))
    }

    #[test]
    fn a_store_request_is_checked_field_by_field() {
        let ok = parse_store(&json!({"subject": "test  command", "fact": "Run\nnpm test.", "citations": "package.json:7", "reason": "every change needs it"})).unwrap();
        assert_eq!(ok.subject, "test command");
        assert_eq!(ok.fact, "Run npm test.");
        for (request, field) in [
            (
                json!({"fact": "f", "citations": "c", "reason": "r"}),
                "subject",
            ),
            (
                json!({"subject": "s", "fact": "  ", "citations": "c", "reason": "r"}),
                "fact",
            ),
            (
                json!({"subject": "s", "fact": "f", "reason": "r"}),
                "citations",
            ),
            (
                json!({"subject": "s", "fact": "f", "citations": "c"}),
                "reason",
            ),
            (
                json!({"subject": "s".repeat(81), "fact": "f", "citations": "c", "reason": "r"}),
                "subject",
            ),
            (
                json!({"subject": "s", "fact": 7, "citations": "c", "reason": "r"}),
                "fact",
            ),
        ] {
            let err = parse_store(&request).unwrap_err();
            assert!(err.message.starts_with(field), "{field}: {}", err.message);
        }
        let err = parse_store(&json!({"subject": "s", "facts": "f"})).unwrap_err();
        assert!(
            err.message.contains("did you mean \"fact\""),
            "{}",
            err.message
        );
    }

    #[test]
    fn secrets_are_filtered_before_validation_and_never_echoed() {
        let t = token();
        let stored = parse_store(&json!({"subject": "deploy", "fact": format!("export GITHUB_TOKEN={t}"), "citations": "c", "reason": "r"})).unwrap();
        assert!(
            !stored.fact.contains(&t) && stored.fact.contains("REDACTED"),
            "{}",
            stored.fact
        );
        // Redaction runs first: a secret that made a field too long or unknown is not in the error.
        let err = parse_store(&json!({"subject": format!("{t} {}", "x".repeat(90)), "fact": "f", "citations": "c", "reason": "r"})).unwrap_err();
        assert!(!err.message.contains(&t), "{}", err.message);
        let err = parse_vote(&json!({"fact": t.clone(), "direction": "sideways", "reason": "r"}))
            .unwrap_err();
        assert!(!err.message.contains(&t), "{}", err.message);
    }

    #[test]
    fn a_vote_names_its_direction() {
        let v = parse_vote(&json!({"fact": "f", "direction": "downvote", "reason": "outdated"}))
            .unwrap();
        assert_eq!(v.direction, Direction::Down);
        let err = parse_vote(&json!({"fact": "f", "reason": "r"})).unwrap_err();
        assert!(err.message.starts_with("direction"), "{}", err.message);
        let err = parse_vote(&json!({"fact": "f", "direction": "up", "reason": "r"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
    }

    #[test]
    fn the_same_fact_gets_the_same_id_whatever_its_spacing() {
        assert_eq!(id_for("Run npm test."), id_for("run  NPM test"));
        assert_ne!(id_for("Run npm test."), id_for("Run cargo test."));
        assert!(id_for("x").starts_with("mem-") && id_for("x").len() == 14);
    }

    #[test]
    fn a_record_of_another_writer_loads_with_its_fields_kept() {
        let line = r#"{"id":"abc","subject":"s","fact":"f","citations":["a.rs:1","b.rs:2"],"reason":"r","source":"copilot","extraField":{"k":1}}"#;
        let m: Memory = serde_json::from_str(line).unwrap();
        assert_eq!(m.citations, "a.rs:1; b.rs:2");
        assert_eq!(m.votes, Votes::default());
        let back = serde_json::to_value(&m).unwrap();
        assert_eq!(back["extraField"], json!({"k": 1}));
        assert_eq!(back["source"], json!("copilot"));
    }
}
