//! Records written by the earlier JavaScript goal system (version 3) and any
//! record whose optional fields have an older or foreign shape: mapped onto
//! this crate's record without losing anything.
//!
//! - `issueResolutions` entries `{covers: [...], status, target, resolution,
//!   evidence: [...]}` become one entry per covered issue: `covers` ->
//!   `issue`, `target` -> `into`, the resolution and the evidence list joined
//!   into `evidence`. An entry that names no issue or has an unknown status
//!   is kept verbatim under `legacyIssueResolutions` (it never counts toward
//!   the completion gate).
//! - Its `history` (`[{at, type, note}]`, tool calls as `type: "tool"` with a
//!   note like `bash: npm test`) counts as tool activity: it becomes the tool
//!   history (counters, drift since the last update, recent calls) and is
//!   kept as it was.
//! - `sourcePromptHash`/`sourcePromptPreview` become `source`.
//! - A list holding one string, `null` or non-strings, an empty or non-string
//!   `closedAt`, a time given in milliseconds: read as what they mean.
//! - Any other optional field this crate cannot read is moved to
//!   `legacy<Field>` rather than failing the whole record.
//!
//! The store reads its copies through here (`Goal::from_stored`).

use crate::clock::iso_from_ms;
use crate::record::{
    Budget, Goal, IssueResolution, PromptSource, ResolutionStatus, Status, StopGuard, ToolEvent,
    ToolHistory, ToolKind, DURABLE_LISTS, QUEUES,
};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

impl Goal {
    /// A stored record, as read from a copy (JSON bytes). Our own records
    /// take the strict path; older or foreign shapes of optional fields (the
    /// earlier JavaScript system's records) are mapped by this module rather
    /// than refused. Only a record that is not an object, or lacks or
    /// mistypes a required field (`version`, `id`, `sessionId`, `cwd`), fails.
    ///
    /// The error names what was wrong without what the copy holds: serde
    /// quotes the offending value (`invalid type: string "<token>",
    /// expected u32`), and the text goes on to warnings, a hook's stderr
    /// and the fault log, so it is taken from a copy whose every string is
    /// redacted as it stands.
    pub fn from_stored(bytes: &[u8]) -> std::result::Result<Goal, String> {
        if let Ok(goal) = serde_json::from_slice::<Goal>(bytes) {
            if !needs_upgrade(&goal) {
                return Ok(goal);
            }
        }
        // A syntax error quotes nothing of the text.
        let mut value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let Value::Object(obj) = &mut value else {
            return Err(format!("not a JSON object ({})", json_kind(&value)));
        };
        upgrade(obj);
        Goal::deserialize(&value).map_err(|_| {
            crate::redact::redact_value(&mut value);
            match Goal::deserialize(&value) {
                Err(e) => crate::redact::for_message(&e.to_string()),
                Ok(_) => "a field holds a value of the wrong shape".to_string(),
            }
        })
    }
}

/// What a JSON value is, for an error that must not quote it.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The legacy tool history kept at most this many calls; so do we here.
const RECENT_WINDOW: usize = 50;

/// Whether a record read strictly still needs mapping: a legacy history
/// that has not become a tool history yet.
pub(super) fn needs_upgrade(goal: &Goal) -> bool {
    goal.extra.contains_key("history") && goal.tool_history == ToolHistory::default()
}

/// Map older shapes in place (see the module docs).
pub(super) fn upgrade(obj: &mut Map<String, Value>) {
    for name in DURABLE_LISTS.iter().chain(QUEUES.iter()) {
        if let Some(value) = obj.remove(*name) {
            obj.insert((*name).to_string(), Value::Array(string_list(value)));
        }
    }
    upgrade_status(obj);
    upgrade_closed_at(obj);
    upgrade_resolutions(obj);
    upgrade_source(obj);
    for name in ["createdAt", "updatedAt"] {
        if let Some(Value::Number(n)) = obj.get(name) {
            if let Some(ms) = n.as_u64() {
                obj.insert(name.to_string(), Value::String(iso_from_ms(ms)));
            }
        }
    }
    // What is still unreadable is set aside under a legacy name, never dropped.
    set_aside_unless::<String>(obj, "objective");
    set_aside_unless::<Option<String>>(obj, "statusReason");
    set_aside_unless::<String>(obj, "createdAt");
    set_aside_unless::<String>(obj, "updatedAt");
    set_aside_unless::<u32>(obj, "generation");
    set_aside_unless::<u64>(obj, "revision");
    set_aside_unless::<Option<PromptSource>>(obj, "source");
    set_aside_unless::<ToolHistory>(obj, "toolHistory");
    set_aside_unless::<Budget>(obj, "budget");
    set_aside_unless::<StopGuard>(obj, "stopGuard");
    set_aside_unless::<Option<String>>(obj, "replaces");
    if !obj.contains_key("toolHistory") {
        if let Some(history) = obj.get("history").and_then(Value::as_array) {
            let converted = tool_history(history);
            obj.insert(
                "toolHistory".into(),
                serde_json::to_value(converted).unwrap_or(Value::Null),
            );
        }
    }
}

/// Move `name` to `legacy<Name>` when it does not read as `T`.
fn set_aside_unless<T: DeserializeOwned>(obj: &mut Map<String, Value>, name: &str) {
    let readable = match obj.get(name) {
        None => return,
        Some(value) => T::deserialize(value).is_ok(),
    };
    if !readable {
        if let Some(value) = obj.remove(name) {
            let mut chars = name.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            let key = format!("legacy{}{}", first.unwrap_or_default(), chars.as_str());
            obj.insert(key, value);
        }
    }
}

/// Text of a scalar, or the JSON text of anything else; `None` for null.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// A list field of any shape as a list of strings (nothing dropped but nulls
/// and blanks, which carry nothing).
fn string_list(value: Value) -> Vec<Value> {
    let items = match value {
        Value::Array(items) => items,
        Value::Null => Vec::new(),
        other => vec![other],
    };
    items
        .iter()
        .filter_map(text_of)
        .filter(|s| !s.trim().is_empty())
        .map(Value::String)
        .collect()
}

/// A status we cannot read is kept under `legacyCompletionStatus`, and the
/// goal becomes blocked (resumable): the legacy system enforced nothing for
/// an unknown status, and blocked enforces nothing either until the user
/// resumes it, while it still shows as open.
fn upgrade_status(obj: &mut Map<String, Value>) {
    let parsed = match obj.get("completionStatus") {
        None => return,
        Some(Value::Null) => {
            obj.remove("completionStatus");
            return;
        }
        Some(Value::String(s)) => Status::parse(s),
        Some(_) => None,
    };
    if let Some(status) = parsed {
        obj.insert("completionStatus".into(), json!(status.as_str()));
        return;
    }
    if let Some(odd) = obj.remove("completionStatus") {
        obj.insert("legacyCompletionStatus".into(), odd);
    }
    obj.insert("completionStatus".into(), json!(Status::Blocked.as_str()));
    if !obj.get("statusReason").is_some_and(Value::is_string) {
        obj.insert(
            "statusReason".into(),
            json!("the stored completionStatus could not be read (kept as legacyCompletionStatus); resume or close the goal"),
        );
    }
}

/// The legacy system read a `closedAt` that is not a non-empty string as
/// "not closed": so do we, keeping an odd value under `legacyClosedAt`.
fn upgrade_closed_at(obj: &mut Map<String, Value>) {
    let Some(value) = obj.get("closedAt") else {
        return;
    };
    let replacement = match value {
        Value::Null => return,
        Value::String(s) if !s.trim().is_empty() => return,
        Value::String(_) => Value::Null,
        Value::Number(n) if n.as_u64().is_some() => {
            Value::String(iso_from_ms(n.as_u64().unwrap_or_default()))
        }
        other => {
            obj.insert("legacyClosedAt".into(), other.clone());
            Value::Null
        }
    };
    obj.insert("closedAt".into(), replacement);
}

fn upgrade_source(obj: &mut Map<String, Value>) {
    match obj.get("source") {
        None | Some(Value::Null) => {}
        Some(s) if serde_json::from_value::<PromptSource>(s.clone()).is_ok() => return,
        // Unreadable: kept aside now (as the generic step would), so the
        // legacy hash still maps and a second load reads the same record.
        Some(_) => {
            if let Some(s) = obj.remove("source") {
                obj.entry("legacySource").or_insert(s);
            }
        }
    }
    let hash = obj.get("sourcePromptHash").and_then(Value::as_str);
    let preview = obj.get("sourcePromptPreview").and_then(Value::as_str);
    if hash.is_none() && preview.is_none() {
        return;
    }
    let hash = hash
        .map(|h| {
            if h.contains(':') {
                h.to_string()
            } else {
                format!("sha256:{h}")
            }
        })
        .unwrap_or_default();
    let source = json!({
        "hash": hash,
        "preview": crate::redact::redact(preview.unwrap_or_default()),
        "kind": "legacy",
    });
    obj.remove("sourcePromptHash");
    obj.remove("sourcePromptPreview");
    obj.insert("source".into(), source);
}

fn upgrade_resolutions(obj: &mut Map<String, Value>) {
    let Some(value) = obj.remove("issueResolutions") else {
        return;
    };
    let entries = match value {
        Value::Array(items) => items,
        Value::Null => Vec::new(),
        other => vec![other],
    };
    let mut mapped = Vec::new();
    let mut kept = Vec::new();
    for entry in entries {
        match resolutions_of(&entry) {
            Some(list) if !list.is_empty() => mapped.extend(list),
            _ => kept.push(entry),
        }
    }
    obj.insert(
        "issueResolutions".into(),
        serde_json::to_value(mapped).unwrap_or_else(|_| json!([])),
    );
    if !kept.is_empty() {
        match obj.get_mut("legacyIssueResolutions") {
            Some(Value::Array(earlier)) => earlier.extend(kept),
            _ => {
                obj.insert("legacyIssueResolutions".into(), Value::Array(kept));
            }
        }
    }
}

/// One entry of either shape as our entries (one per covered issue); `None`
/// when it names no issue or its status is not one we know.
fn resolutions_of(entry: &Value) -> Option<Vec<IssueResolution>> {
    let obj = entry.as_object()?;
    let text = |keys: &[&str]| -> Option<String> {
        keys.iter()
            .filter_map(|k| obj.get(*k).and_then(Value::as_str))
            .map(str::trim)
            .find(|s| !s.is_empty())
            .map(str::to_string)
    };
    let status = match obj.get("status") {
        None | Some(Value::Null) => ResolutionStatus::Resolved, // the legacy default
        Some(Value::String(s)) => ResolutionStatus::parse(s)?,
        Some(_) => return None,
    };
    let mut issues: Vec<String> = match obj.get("covers") {
        Some(Value::Array(items)) => items.iter().filter_map(text_of).collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    for key in ["issue", "originalIssue", "original", "id"] {
        if let Some(s) = obj.get(key).and_then(Value::as_str) {
            issues.push(s.to_string());
        }
    }
    let mut seen = std::collections::HashSet::new();
    issues.retain(|i| !i.trim().is_empty() && seen.insert(i.trim().to_string()));
    let mut parts: Vec<String> = Vec::new();
    if let Some(resolution) = text(&["resolution", "summary", "fix"]) {
        parts.push(resolution);
    }
    match obj.get("evidence").or_else(|| obj.get("proof")) {
        Some(Value::Array(items)) => parts.extend(items.iter().filter_map(text_of)),
        Some(Value::String(s)) => parts.push(s.clone()),
        _ => {}
    }
    parts.retain(|p| !p.trim().is_empty());
    let evidence = parts.join("; ");
    let into = text(&[
        "into",
        "target",
        "targetIssue",
        "replacement",
        "resolvedIssue",
        "replacedBy",
    ]);
    Some(
        issues
            .into_iter()
            .map(|issue| IssueResolution {
                issue: issue.trim().to_string(),
                status,
                evidence: evidence.clone(),
                into: into.clone(),
            })
            .collect(),
    )
}

/// The legacy history's tool calls as a tool history: goal tools and
/// bookkeeping never count; drift is the calls after the last open, update,
/// close or turn entry, as the legacy system counted it.
fn tool_history(history: &[Value]) -> ToolHistory {
    let mut out = ToolHistory::default();
    for entry in history {
        let kind_of_entry = entry.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind_of_entry, "open" | "update" | "close" | "turn") {
            out.seq_at_update = out.seq;
            continue;
        }
        if kind_of_entry != "tool" {
            continue;
        }
        let note = entry.get("note").and_then(Value::as_str).unwrap_or("");
        let (tool, argument) = match note.split_once(':') {
            Some((tool, argument)) => (tool.trim(), argument.trim()),
            None => (note.trim(), ""),
        };
        let kind = crate::tools::classify(tool, &json!({ "command": argument, "path": argument }));
        match kind {
            ToolKind::Goal | ToolKind::Meta => continue,
            ToolKind::Inspection => out.inspections += 1,
            ToolKind::Action => out.actions += 1,
            ToolKind::Verification => out.verifications += 1,
            ToolKind::Delegation => out.delegations += 1,
            ToolKind::Other | ToolKind::Noop => {}
        }
        out.seq += 1;
        let at = entry
            .get("at")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let at_ms = crate::clock::parse_rfc3339_ms(&at)
            .and_then(|ms| u64::try_from(ms).ok())
            .unwrap_or_default();
        out.recent.push(ToolEvent {
            seq: out.seq,
            at,
            at_ms,
            tool: crate::redact::truncate(tool, 120),
            kind,
            summary: crate::redact::truncate(&crate::redact::redact(note), 240),
            result: String::new(),
            source: "legacy".into(),
            key: String::new(),
            passed: None,
            files: Vec::new(),
        });
    }
    if out.recent.len() > RECENT_WINDOW {
        let cut = out.recent.len() - RECENT_WINDOW;
        out.recent.drain(..cut);
    }
    out
}
