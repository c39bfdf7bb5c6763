//! The hosts' protocols: which host and event a hook serves, what its payload
//! says in host-neutral terms, and the answer in the shape each host reads.

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::borrow::Cow;

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
}

impl Host {
    pub fn parse(name: &str) -> Option<Host> {
        match name.trim().to_ascii_lowercase().as_str() {
            "copilot-cli" | "copilot" | "cli" => Some(Host::CopilotCli),
            "copilot-sdk" | "sdk" | "extension" => Some(Host::CopilotSdk),
            "vscode" | "vs-code" | "code" => Some(Host::VsCode),
            "claude" | "claude-code" => Some(Host::Claude),
            _ => None,
        }
    }

    pub fn source(self) -> &'static str {
        match self {
            Host::CopilotCli => "cli-hook",
            Host::CopilotSdk => "sdk",
            Host::VsCode => "vscode",
            Host::Claude => "claude",
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
            "userpromptsubmitted" | "userpromptsubmit" | "userprompt" => Event::UserPrompt,
            "pretooluse" => Event::PreToolUse,
            // Claude Code (and the Copilot SDK) report a failed call as its own event.
            "posttooluse" | "posttoolusefailure" => Event::PostToolUse,
            "precompact" => Event::PreCompact,
            "subagentstart" => Event::SubagentStart,
            "subagentstop" => Event::SubagentStop,
            "agentstop" | "stop" => Event::Stop,
            "sessionend" => Event::SessionEnd,
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
        prompt_id: str_field(obj, &["prompt_id", "promptId"])
            .unwrap_or("")
            .to_string(),
        source: str_field(obj, &["source"]).unwrap_or("").to_string(),
        agent_type: str_field(obj, &["agent_type", "agentType", "agentName", "agent_name"])
            .unwrap_or("")
            .to_string(),
    }
}

/// Output kept for judging a verification: the end of it, where runners
/// print their summaries and hosts their exit line.
const REPORT_TAIL: usize = 256 * 1024;

/// Keys of a payload holding a tool's result: only the end of their text
/// is read (see [`read_report`]).
const RESULT_KEYS: [&str; 4] = ["toolResult", "tool_result", "tool_response", "toolResponse"];

/// Parses a hook's stdin. Strings inside a tool result keep only their last
/// [`REPORT_TAIL`] bytes (rounded to a character), so a 10 MB output is
/// scanned for its end and only its tail is decoded: the body is never
/// unescaped, copied or kept (see [`tail_value`]). The end of the joined
/// report text is what it would be from the full strings. Everything else
/// is read as it is.
pub fn parse_payload(stdin: &str) -> serde_json::Result<Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(stdin);
    let value = Reader {
        tail: false,
        top: true,
        text: stdin,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A JSON value, strings cut to their tail when `tail`; `top` for the
/// payload object itself, whose result keys turn `tail` on. `text` is the
/// JSON being read, to look at what follows a key (see [`value_after`]).
#[derive(Clone, Copy)]
struct Reader<'t> {
    tail: bool,
    top: bool,
    text: &'t str,
}

impl<'t> Reader<'t> {
    fn child(self, key: Option<&str>) -> Reader<'t> {
        Reader {
            tail: self.tail || (self.top && key.is_some_and(|k| RESULT_KEYS.contains(&k))),
            top: false,
            text: self.text,
        }
    }

    fn string(self, s: &str) -> Value {
        if !self.tail || s.len() <= REPORT_TAIL {
            return Value::String(s.to_string());
        }
        let mut cut = s.len() - REPORT_TAIL;
        while !s.is_char_boundary(cut) {
            cut += 1;
        }
        Value::String(s[cut..].to_string())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Reader<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Reader<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(self.string(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let child = self.child(None);
        if self.tail {
            while let Some(raw) = seq.next_element::<&'de RawValue>()? {
                items.push(tail_value(raw.get()).map_err(serde::de::Error::custom)?);
            }
        } else {
            while let Some(item) = seq.next_element_seed(child)? {
                items.push(item);
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let child = self.child(Some(&key));
            // Inside a result, and a result that is itself one string: the
            // value's text as it stands in stdin, borrowed and never
            // unescaped whole. A result object or array is read in one
            // pass instead, its members taken as text by the tail reader
            // (borrowing it whole first would scan its text twice).
            let container = || match &key {
                Cow::Borrowed(k) => matches!(value_after(self.text, k), Some(b'{' | b'[')),
                Cow::Owned(_) => false,
            };
            let value = if self.tail || (child.tail && !container()) {
                let raw: &'de RawValue = map.next_value()?;
                tail_value(raw.get()).map_err(serde::de::Error::custom)?
            } else {
                map.next_value_seed(child)?
            };
            out.insert(key.into_owned(), value);
        }
        Ok(Value::Object(out))
    }
}

/// An object key, borrowed from the JSON text when it has no escapes
/// (serde's own `Cow` always copies), so [`value_after`] can find its place.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(Visit)
    }
}

/// The first byte of the value after `key`, a slice of `text`: past the
/// key's closing quote, the colon and any whitespace. `None` when `key` is
/// not in `text` or the text does not read that way; the caller then reads
/// the value the general way.
fn value_after(text: &str, key: &str) -> Option<u8> {
    let start = (key.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let rest = text.as_bytes().get(start + key.len()..)?;
    let mut bytes = rest.iter().copied();
    if bytes.next() != Some(b'"') {
        return None;
    }
    let mut bytes = bytes.skip_while(u8::is_ascii_whitespace);
    if bytes.next() != Some(b':') {
        return None;
    }
    bytes.find(|b| !b.is_ascii_whitespace())
}

/// A value inside a tool result, from its JSON text: strings keep their tail
/// (decoded from the end of their text, see [`tail_string`]), objects and
/// arrays are read member by member the same way, anything else as it is.
fn tail_value(raw: &str) -> serde_json::Result<Value> {
    use serde::de::DeserializeSeed;
    match raw.as_bytes().first() {
        Some(b'"') => tail_string(raw).map(Value::String),
        Some(b'{' | b'[') => {
            let mut de = serde_json::Deserializer::from_str(raw);
            let value = Reader {
                tail: true,
                top: false,
                text: raw,
            }
            .deserialize(&mut de)?;
            de.end()?;
            Ok(value)
        }
        _ => serde_json::from_str(raw),
    }
}

/// The last [`REPORT_TAIL`] bytes of a JSON string (`raw` with its quotes),
/// decoding only the end of its text: a window of the text is decoded from a
/// point where no escape is cut ([`token_start`]), and widened until it holds
/// more than the tail. The result is the tail of the fully decoded string.
fn tail_string(raw: &str) -> serde_json::Result<String> {
    let bytes = raw.as_bytes();
    // Escapes make the text longer than what it decodes to, so start wider.
    let mut window = 2 * REPORT_TAIL;
    while window + 2 < bytes.len() {
        let start = token_start(bytes, bytes.len() - 1 - window);
        let mut piece = String::with_capacity(bytes.len() - start + 1);
        piece.push('"');
        piece.push_str(&raw[start..]);
        // A few characters at the start may be the hex digits of a cut
        // `\u` escape: enough is decoded that they fall outside the tail.
        // A low surrogate whose high half was cut off reads as U+FFFD at
        // the start, outside the tail.
        match decode(&piece) {
            Ok(text) if text.len() >= REPORT_TAIL + 8 => return Ok(keep_tail(text)),
            // Too short (many escapes): widen.
            _ => window *= 2,
        }
    }
    decode(raw).map(keep_tail)
}

/// A JSON string's text decoded; a lone surrogate escape in it, which serde
/// refuses, is mended first ([`mend_surrogates`]) rather than widening the
/// window to the whole string to fail there.
fn decode(raw: &str) -> serde_json::Result<String> {
    serde_json::from_str::<String>(raw).or_else(|e| match mend_surrogates(raw) {
        Some(mended) => serde_json::from_str(&mended),
        None => Err(e),
    })
}

/// `raw` (a JSON string's text) with each lone surrogate escape written as
/// `\ufffd`; `None` when it has none. A Node host that cuts output by UTF-16
/// index can leave half an emoji (JSON.parse accepts it, serde does not): it
/// must cost that character, not the payload and its verdict.
fn mend_surrogates(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let unit = |at: usize| {
        raw.get(at..at + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let escape_at = |at: usize| bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u');
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit(i + 2).filter(|_| escape_at(i)) else {
            i += 2; // any other escape, an escaped backslash included
            continue;
        };
        let low_follows =
            escape_at(i + 6) && unit(i + 8).is_some_and(|l| (0xDC00..0xE000).contains(&l));
        match u {
            0xD800..=0xDBFF if low_follows => i += 12,
            0xD800..=0xDFFF => {
                out.push_str(&raw[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            _ => i += 6,
        }
    }
    (copied > 0).then(|| {
        out.push_str(&raw[copied..]);
        out
    })
}

/// A byte index at or after `at` where a JSON string's text can be decoded
/// from: on a character boundary and not on the character an escape's
/// backslash applies to. `bytes[0]` is the opening quote.
fn token_start(bytes: &[u8], at: usize) -> usize {
    let mut i = at.max(1);
    while i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
        i += 1; // inside a UTF-8 character
    }
    // A run of backslashes pairs up from its start (nothing before a run
    // can consume one), so an odd run before `i` escapes `bytes[i]`.
    let run = bytes[1..i]
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count();
    if run % 2 == 1 {
        i += if bytes.get(i) == Some(&b'u') { 5 } else { 1 };
    }
    i.min(bytes.len() - 1)
}

/// The last [`REPORT_TAIL`] bytes of `text`, rounded to a character.
fn keep_tail(text: String) -> String {
    if text.len() <= REPORT_TAIL {
        return text;
    }
    let mut cut = text.len() - REPORT_TAIL;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text[cut..].to_string()
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

    #[test]
    fn a_big_tool_result_keeps_only_its_tail_and_the_same_report() {
        let line = "running test é ... ok\n";
        let stdout = format!("{}test result: ok. 1 passed; 0 failed", line.repeat(40_000));
        let stdin = json!({
            "session_id": "s",
            "cwd": "/p",
            "hook_event_name": "PostToolUse",
            "prompt": line.repeat(20_000),
            "tool_name": "Bash",
            "tool_input": {"command": "cargo test"},
            "tool_response": {"stdout": stdout, "stderr": "warning: x", "interrupted": false},
        })
        .to_string();
        let full: Value = serde_json::from_str(&stdin).unwrap();
        let cut = parse_payload(&stdin).unwrap();
        let kept = cut["tool_response"]["stdout"].as_str().unwrap();
        assert!(kept.len() <= REPORT_TAIL && stdout.ends_with(kept));
        // Fields outside the result are whole.
        assert_eq!(cut["prompt"], full["prompt"]);
        let (a, b) = (read_payload(&full).report, read_payload(&cut).report);
        assert_eq!(a.text, b.text);
        assert_eq!(a.result_type, b.result_type);
        assert!(b.text.ends_with("warning: x"));
    }

    /// JSON string text cycling through every kind of escape and character
    /// (`units` of them, offset by `shift`), and what it decodes to.
    fn escaped(units: usize, shift: usize) -> (String, String) {
        const UNITS: [(&str, &str); 9] = [
            ("ab", "ab"),
            ("\\n", "\n"),
            ("\\\\", "\\"),
            ("\\\"", "\""),
            ("\\u00e9", "\u{e9}"),
            ("\\ud83d\\ude00", "\u{1f600}"),
            ("é", "é"),
            ("\\\\\\u0041", "\\A"),
            ("日本", "日本"),
        ];
        let (mut raw, mut text) = (String::from("\""), String::new());
        for i in 0..units {
            let (r, t) = UNITS[(i * 7 + shift) % UNITS.len()];
            raw.push_str(r);
            text.push_str(t);
        }
        raw.push('"');
        (raw, text)
    }

    #[test]
    fn the_tail_decoded_from_the_end_of_a_string_is_the_tail_of_the_whole_string() {
        // Long enough that only a window is decoded; the window's edge lands
        // on every kind of unit and inside each.
        let units = 2 * REPORT_TAIL / 3;
        for shift in 0..40 {
            let (raw, text) = escaped(units + shift, shift);
            assert_eq!(serde_json::from_str::<String>(&raw).unwrap(), text);
            assert_eq!(tail_string(&raw).unwrap(), keep_tail(text), "shift {shift}");
        }
    }

    #[test]
    fn the_body_of_a_big_result_is_never_decoded() {
        // A lone surrogate early in a 2 MB output: decoding the whole string
        // would fail, the tail alone reads. The result as an object (Claude
        // Code, Copilot CLI), as one string (VS Code), spaced, and under a
        // key written with an escape.
        let body = format!(
            "\\ud800{}\\ntest result: ok. 1 passed; 0 failed",
            "x".repeat(2 << 20)
        );
        let shapes = [
            (
                format!(r#""tool_response":{{"stdout":"{body}","exit_code":0}}"#),
                true,
            ),
            (format!(r#""tool_response":"{body}""#), false),
            (format!(r#""tool_response" :  "{body}""#), false),
            (format!(r#""tool_\u0072esponse":"{body}""#), false),
            (
                format!(r#""tool_\u0072esponse": {{"stdout":"{body}","exit_code":0}}"#),
                true,
            ),
        ];
        for (result, object) in shapes {
            let stdin = format!(
                r#"{{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash",{result},"cwd":"/p"}}"#
            );
            assert!(serde_json::from_str::<Value>(&stdin).is_err());
            let cut = parse_payload(&stdin).unwrap();
            let response = &cut["tool_response"];
            let kept = if object {
                &response["stdout"]
            } else {
                response
            };
            let kept = kept.as_str().unwrap();
            assert_eq!(kept.len(), REPORT_TAIL, "{}", &result[..30]);
            assert!(kept.ends_with("1 passed; 0 failed"));
            if object {
                assert_eq!(response["exit_code"], 0);
            }
            assert_eq!(cut["cwd"], "/p", "the payload is read past the result");
        }
    }

    #[test]
    fn a_lone_surrogate_near_the_end_of_a_result_costs_one_character_not_the_payload() {
        // A Node host that cuts long output by UTF-16 index can leave half
        // an emoji, which JSON.stringify writes as `\ud83d` and JSON.parse
        // accepts. The verdict must survive it.
        let end = r#"1 failed \ud83d \\ud800 \ud83d\ude00 \udc00""#;
        let want = "1 failed \u{fffd} \\ud800 \u{1f600} \u{fffd}";
        let big = format!("\"{}{end}", "x".repeat(2 * REPORT_TAIL));
        for (result, object) in [
            (format!(r#"{{"stdout":"{end},"exit_code":1}}"#), true),
            (format!("\"{end}"), false),
            (big, false),
        ] {
            let stdin = format!(
                r#"{{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{result}}}"#
            );
            let cut = parse_payload(&stdin).expect("the payload is read");
            let response = &cut["tool_response"];
            let text = if object {
                &response["stdout"]
            } else {
                response
            };
            assert!(text.as_str().unwrap().ends_with(want), "{}", &result[..20]);
            if object {
                assert_eq!(response["exit_code"], 1);
            }
        }
    }

    #[test]
    fn a_payload_that_is_not_json_is_refused_as_before() {
        assert!(parse_payload("{\"a\": 1} trailing").is_err());
        assert!(parse_payload("{\"a\": ").is_err());
        assert_eq!(
            parse_payload("[1, 2.5, null]").unwrap(),
            json!([1, 2.5, null])
        );
    }
}
