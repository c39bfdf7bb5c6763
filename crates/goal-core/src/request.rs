//! The typed requests of the goal tools (open, update, close). Each field's
//! doc comment is its description in the generated JSON Schemas, the MCP and
//! extension tool definitions and the TypeScript types, so a field is declared
//! here once. Parsing checks names and types only; every rule (limits,
//! wildcards, resolutions, authority) stays in `update` and `goals`.

use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{GoalError, Result};
use crate::record::Status;
use crate::redact;

/// A list field: a list of strings. A single string is accepted as one item
/// (models often send one), but the schema advertises the list form only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Items(pub Vec<String>);

impl<'de> Deserialize<'de> for Items {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Items, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Items;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array of strings")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Items, E> {
                Ok(Items(vec![s.to_string()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Items, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<Value>()? {
                    match item {
                        Value::String(s) => out.push(s),
                        other => {
                            return Err(de::Error::custom(format!(
                                "item {} must be a string, got {}",
                                out.len(),
                                type_name(&other)
                            )))
                        }
                    }
                }
                Ok(Items(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Items {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Items".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "array", "items": { "type": "string" } })
    }
}

/// `issueResolutions`: a list of entries (one object alone is one entry).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolutions(pub Vec<IssueResolutionInput>);

impl<'de> Deserialize<'de> for Resolutions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Resolutions, D::Error> {
        let value = Value::deserialize(d)?;
        let items = match value {
            Value::Array(items) => items,
            obj @ Value::Object(_) => vec![obj],
            other => {
                return Err(de::Error::custom(format!(
                    "expected an array of objects, got {}",
                    type_name(&other)
                )))
            }
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                if !item.is_object() {
                    return Err(de::Error::custom(format!(
                        "item {i} must be an object {{issue, status, evidence}}, got {}",
                        type_name(&item)
                    )));
                }
                serde_json::from_value(item)
                    .map_err(|e| de::Error::custom(format!("item {i}: {e}")))
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map(Resolutions)
    }
}

impl JsonSchema for Resolutions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Resolutions".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(gen: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let item = gen.subschema_for::<IssueResolutionInput>();
        schemars::json_schema!({ "type": "array", "items": item })
    }
}

/// How a discovered issue evolved (the shape of the record's
/// `IssueResolution`; the checks live in `update::parse_resolutions`).
#[derive(Deserialize, JsonSchema, Debug, Clone, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "IssueResolutionInput")]
pub struct IssueResolutionInput {
    /// The original discovered issue, word for word.
    #[serde(alias = "original", alias = "originalIssue")]
    #[schemars(required)]
    pub issue: Option<String>,
    /// resolved, merged, renamed, duplicate or superseded.
    #[schemars(required, with = "crate::record::ResolutionStatus")]
    pub status: Option<String>,
    /// Why the original issue no longer remains open.
    #[serde(alias = "proof")]
    #[schemars(required)]
    pub evidence: Option<String>,
    /// For merged/renamed/duplicate/superseded: what it became.
    #[serde(default, alias = "target", alias = "replacement")]
    pub into: Option<String>,
}

/// The statuses a goal opens with.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum OpenStatus {
    Draft,
    Active,
}

/// The statuses a close sets.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum CloseStatus {
    Complete,
    Blocked,
    Cancelled,
}

/// A present key with `null` is `Some(None)`: a budget given as null removes it.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> std::result::Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// Declares a request struct with the record fields every write carries
/// (the sixteen lists, `issueResolutions`, `expectedGoalId`) after its own.
macro_rules! request {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(Deserialize, JsonSchema, Debug, Clone, Default, PartialEq)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            $($body)*
            /// Explicit requirements of the objective, one per item (e.g. "R1: ..."). Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub requirements: Option<Items>,
            /// What is in scope. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub scope: Option<Items>,
            /// Behaviour that must keep working. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub must_not_regress: Option<Items>,
            /// Constraints to respect. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub constraints: Option<Items>,
            /// Facts about the environment (versions, paths, services). Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub current_environment: Option<Items>,
            /// Tools or commands the work needs. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub required_tools: Option<Items>,
            /// What proves the result is right (tests, outputs). Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub validation_proof: Option<Items>,
            /// Commands run to verify, with their outcome. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub verification_results: Option<Items>,
            /// One entry per requirement naming it (its text or label such as "R1") with the evidence that covers it. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub requirement_coverage: Option<Items>,
            /// What was inspected and found (files read, behaviour observed). Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub inspection_evidence: Option<Items>,
            /// Issues found along the way. Additive: they stay until resolved by name.
            #[serde(default)]
            pub discovered_issues: Option<Items>,
            /// Discovered issues that are fixed, each named exactly as discovered (no wildcards). Appends; nothing is ever removed.
            #[serde(default)]
            pub resolved_issues: Option<Items>,
            /// Work completed so far. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub done_so_far: Option<Items>,
            /// The final audit: each requirement checked against the result. Appends; duplicates are ignored; nothing is ever removed.
            #[serde(default)]
            pub completion_audit: Option<Items>,
            /// The live queue of remaining work items, next first. Replaces the whole list when given (pass [] to clear it on purpose).
            #[serde(default)]
            pub remaining: Option<Items>,
            /// Current blockers. Replaces the whole list when given (pass [] to clear it on purpose).
            #[serde(default)]
            pub blockers: Option<Items>,
            /// How discovered issues evolved. Each names one discovered issue exactly and carries evidence; wildcards such as "all issues" are refused.
            #[serde(default)]
            pub issue_resolutions: Option<Resolutions>,
            /// Refuse the write if the session goal is no longer this id (it was replaced).
            #[serde(default)]
            pub expected_goal_id: Option<String>,
        }

        impl $name {
            /// The record fields of this request as an update (without its
            /// own fields), for `update::apply_changes`.
            pub fn record_changes(&self) -> UpdateRequest {
                UpdateRequest {
                    requirements: self.requirements.clone(),
                    scope: self.scope.clone(),
                    must_not_regress: self.must_not_regress.clone(),
                    constraints: self.constraints.clone(),
                    current_environment: self.current_environment.clone(),
                    required_tools: self.required_tools.clone(),
                    validation_proof: self.validation_proof.clone(),
                    verification_results: self.verification_results.clone(),
                    requirement_coverage: self.requirement_coverage.clone(),
                    inspection_evidence: self.inspection_evidence.clone(),
                    discovered_issues: self.discovered_issues.clone(),
                    resolved_issues: self.resolved_issues.clone(),
                    done_so_far: self.done_so_far.clone(),
                    completion_audit: self.completion_audit.clone(),
                    remaining: self.remaining.clone(),
                    blockers: self.blockers.clone(),
                    issue_resolutions: self.issue_resolutions.clone(),
                    expected_goal_id: self.expected_goal_id.clone(),
                    ..UpdateRequest::default()
                }
            }

            /// A durable list or queue of this request by its JSON name.
            pub fn list(&self, name: &str) -> Option<&Items> {
                match name {
                    "requirements" => self.requirements.as_ref(),
                    "scope" => self.scope.as_ref(),
                    "mustNotRegress" => self.must_not_regress.as_ref(),
                    "constraints" => self.constraints.as_ref(),
                    "currentEnvironment" => self.current_environment.as_ref(),
                    "requiredTools" => self.required_tools.as_ref(),
                    "validationProof" => self.validation_proof.as_ref(),
                    "verificationResults" => self.verification_results.as_ref(),
                    "requirementCoverage" => self.requirement_coverage.as_ref(),
                    "inspectionEvidence" => self.inspection_evidence.as_ref(),
                    "discoveredIssues" => self.discovered_issues.as_ref(),
                    "resolvedIssues" => self.resolved_issues.as_ref(),
                    "doneSoFar" => self.done_so_far.as_ref(),
                    "completionAudit" => self.completion_audit.as_ref(),
                    "remaining" => self.remaining.as_ref(),
                    "blockers" => self.blockers.as_ref(),
                    _ => None,
                }
            }
        }
    };
}

request! {
    /// `goal_system_open`: open (or continue) the session's goal.
    pub struct OpenRequest {
        /// The objective, as the user stated it with /goal.
        #[schemars(with = "String")]
        pub objective: Option<String>,
        /// draft until inspected; active once work starts (default active).
        #[serde(default)]
        #[schemars(with = "Option<OpenStatus>")]
        pub status: Option<String>,
        /// Replace an open goal with a different objective. Only when the user explicitly asked for a new objective.
        #[serde(default)]
        pub replace: Option<bool>,
        /// Token budget (the user's: a model cannot set it). null removes it.
        #[serde(default, deserialize_with = "nullable")]
        pub token_budget: Option<Option<u64>>,
        /// Time budget in seconds (the user's: a model cannot set it). null removes it.
        #[serde(default, deserialize_with = "nullable")]
        pub time_budget_seconds: Option<Option<u64>>,
        /// The prompt that opened the goal (kept only as a hash and a redacted preview); set by the /goal hook.
        #[serde(default)]
        #[schemars(skip)]
        pub source_prompt: Option<String>,
        /// What opened the goal; set by the /goal hook.
        #[serde(default)]
        #[schemars(skip)]
        pub source_kind: Option<String>,
    }
}

request! {
    /// `goal_system_update`: record progress and evidence.
    pub struct UpdateRequest {
        /// draft, active, or blocked (resumable; give statusReason); paused only by the user. complete/cancelled go through goal_system_close.
        #[serde(default)]
        #[schemars(with = "Option<Status>")]
        pub status: Option<String>,
        /// The exact reason, for blocked (or any status change).
        #[serde(default)]
        pub status_reason: Option<String>,
        /// Refine the wording while the goal is a draft.
        #[serde(default)]
        pub objective: Option<String>,
        /// Token budget (the user's: a model cannot set it). null removes it.
        #[serde(default, deserialize_with = "nullable")]
        pub token_budget: Option<Option<u64>>,
        /// Time budget in seconds (the user's: a model cannot set it). null removes it.
        #[serde(default, deserialize_with = "nullable")]
        pub time_budget_seconds: Option<Option<u64>>,
    }
}

request! {
    /// `goal_system_close`: close as complete (through the gate), blocked or cancelled.
    pub struct CloseRequest {
        /// complete passes only through the completion gate; blocked and cancelled need the exact reason (default complete).
        #[schemars(required, with = "CloseStatus")]
        pub status: Option<String>,
        /// The exact blocker or cancellation reason (required for blocked and cancelled).
        #[serde(default, alias = "statusReason")]
        pub reason: Option<String>,
    }
}

impl UpdateRequest {
    /// True when the request sets or removes a budget (the user's fields).
    pub fn sets_budget(&self) -> bool {
        self.token_budget.is_some() || self.time_budget_seconds.is_some()
    }
}

impl OpenRequest {
    /// True when the request sets or removes a budget (the user's fields).
    pub fn sets_budget(&self) -> bool {
        self.token_budget.is_some() || self.time_budget_seconds.is_some()
    }
}

/// `goal_system_status`: read the session's goal; it takes no field.
#[derive(Deserialize, JsonSchema, Debug, Clone, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StatusRequest {}

/// Who calls a tool over MCP, where no host says it: the main session as the
/// hooks show it in the chat context. The MCP tools take these beside their
/// own fields.
#[derive(Deserialize, JsonSchema, Debug, Clone, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct McpCaller {
    /// The main session id shown in the [goal-system] hook context ("sessionId ..."). Never invent one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The session working directory shown in the [goal-system] hook context ("cwd ..."), absolute.
    #[schemars(required)]
    pub cwd: Option<String>,
}

/// Keys that identify the caller; adapters may pass them inside the request.
/// A test holds them to [`McpCaller`]'s fields.
const CALLER_KEYS: [&str; 2] = ["sessionId", "cwd"];

/// Read the caller from an MCP tool call's arguments (the other fields are the
/// request's, checked by its own parse). `required` names the caller fields
/// the tool needs; each must be a non-blank string. Errors are INVALID_INPUT
/// naming the field.
pub fn parse_caller(args: &Value, required: &[&str]) -> Result<McpCaller> {
    let empty = Map::new();
    let obj = match args {
        Value::Null => &empty,
        Value::Object(map) => map,
        other => {
            return Err(GoalError::invalid(format!(
                "arguments: expected an object of fields, got {}",
                type_name(other)
            )))
        }
    };
    let mut caller = Map::new();
    for key in field_names::<McpCaller>() {
        match obj.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if !s.trim().is_empty() => {
                caller.insert((*key).to_string(), Value::String(s.clone()));
            }
            Some(Value::String(_)) => {}
            Some(other) => {
                return Err(GoalError::invalid(format!(
                    "{key}: expected a string, got {}",
                    type_name(other)
                )))
            }
        }
        if required.contains(key) && !caller.contains_key(*key) {
            return Err(GoalError::invalid(format!(
                "{key}: required, as the [goal-system] hook context shows it (\"{key} ...\")"
            )));
        }
    }
    serde_json::from_value(Value::Object(caller)).map_err(|e| GoalError::invalid(e.to_string()))
}

/// Parse a request object into its typed form. `null` is an empty request.
/// Errors are INVALID_INPUT naming the field: an unknown field with the
/// nearest known one, a wrong type with what was expected.
pub fn parse<T: DeserializeOwned + Default>(op: &str, value: &Value) -> Result<T> {
    let obj: Map<String, Value> = match value {
        Value::Null => return Ok(T::default()),
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !CALLER_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        other => {
            return Err(GoalError::invalid(format!(
                "{op}: expected an object of fields, got {}",
                type_name(other)
            )))
        }
    };
    let known = field_names::<T>();
    for key in obj.keys() {
        if !known.contains(&key.as_str()) {
            let hint = match nearest(key, known) {
                Some(name) => format!("did you mean \"{name}\"? "),
                None => String::new(),
            };
            let known = if known.is_empty() {
                "it takes no field".to_string()
            } else {
                format!("known fields: {}", known.join(", "))
            };
            return Err(GoalError::invalid(format!(
                "unknown field \"{}\"; {hint}{known}",
                redact::truncate(key, 60),
            )));
        }
    }
    let whole = Value::Object(obj);
    serde_json::from_value::<T>(whole.clone()).map_err(|err| {
        // Name the field: the first key that fails on its own is the culprit
        // (a lone key can only otherwise fail on a missing required field).
        if let Value::Object(obj) = &whole {
            for (key, v) in obj {
                let mut one = Map::new();
                one.insert(key.clone(), v.clone());
                if let Err(e) = serde_json::from_value::<T>(Value::Object(one)) {
                    let msg = e.to_string();
                    if !msg.starts_with("missing field") {
                        return GoalError::invalid(format!("{key}: {msg}"));
                    }
                }
            }
        }
        GoalError::invalid(format!("{op}: {err}"))
    })
}

/// The JSON names a request struct accepts, read from its own Deserialize
/// impl (serde hands the field list to `deserialize_struct`), so the list
/// is never written twice.
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Probe(std::cell::Cell<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("probe")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Stop {
            Stop
        }
    }
    impl<'de> Deserializer<'de> for &Probe {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, Stop> {
            self.0.set(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let probe = Probe(std::cell::Cell::new(&[]));
    let _ = T::deserialize(&probe);
    probe.0.get()
}

/// The known name closest to a misspelt one (case-insensitive edit distance
/// of at most a third of its length), for "did you mean".
pub fn nearest<'a>(input: &str, known: &[&'a str]) -> Option<&'a str> {
    let lower = input.to_lowercase();
    known
        .iter()
        .map(|k| (edit_distance(&lower, &k.to_lowercase()), *k))
        .filter(|(d, k)| *d <= (k.chars().count() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over characters, one row at a time.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diag = above;
        }
    }
    row[b.len()]
}

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::json;

    #[test]
    fn a_misspelt_field_is_refused_with_the_nearest_known_name() {
        let err = parse::<UpdateRequest>("update", &json!({"doneSoFat": ["x"]})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(
            err.message.contains("unknown field \"doneSoFat\""),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("did you mean \"doneSoFar\""),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_field_far_from_every_name_gets_no_guess() {
        let err = parse::<CloseRequest>("close", &json!({"zzzzzzzz": 1})).unwrap_err();
        assert!(!err.message.contains("did you mean"), "{}", err.message);
    }

    #[test]
    fn a_wrong_type_names_the_field_and_what_was_expected() {
        let err =
            parse::<OpenRequest>("open", &json!({"objective": "x", "replace": "yes"})).unwrap_err();
        assert!(err.message.starts_with("replace:"), "{}", err.message);
        assert!(err.message.contains("boolean"), "{}", err.message);
        let err = parse::<UpdateRequest>("update", &json!({"scope": ["a", {}]})).unwrap_err();
        assert!(
            err.message.starts_with("scope:") && err.message.contains("item 1"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_single_string_is_a_one_item_list_and_caller_keys_are_ignored() {
        let req: UpdateRequest = parse(
            "update",
            &json!({"doneSoFar": "x", "sessionId": "s", "cwd": "/"}),
        )
        .unwrap();
        assert_eq!(req.done_so_far, Some(Items(vec!["x".into()])));
    }

    #[test]
    fn a_budget_given_as_null_is_present_and_removes_it() {
        let req: UpdateRequest = parse("update", &json!({"tokenBudget": null})).unwrap();
        assert_eq!(req.token_budget, Some(None));
        assert!(req.sets_budget());
        let req: UpdateRequest = parse("update", &json!({})).unwrap();
        assert!(!req.sets_budget());
    }

    #[test]
    fn field_names_come_from_the_struct() {
        let names = field_names::<CloseRequest>();
        assert!(names.contains(&"reason") && names.contains(&"doneSoFar"));
        assert!(!names.contains(&"objective"));
        let req: CloseRequest =
            parse("close", &json!({"status": "blocked", "statusReason": "r"})).unwrap();
        assert_eq!(req.reason.as_deref(), Some("r"), "the alias is accepted");
    }

    #[test]
    fn the_mcp_caller_is_read_and_a_missing_or_mistyped_field_is_named() {
        let args = json!({"sessionId": "s1", "cwd": "/w", "doneSoFar": ["x"]});
        let caller = parse_caller(&args, &["sessionId", "cwd"]).unwrap();
        assert_eq!(caller.session_id.as_deref(), Some("s1"));
        assert_eq!(caller.cwd.as_deref(), Some("/w"));
        for (args, field) in [
            (json!({"cwd": "/w"}), "sessionId"),
            (json!({"sessionId": "s1", "cwd": "  "}), "cwd"),
            (json!({"sessionId": 5, "cwd": "/w"}), "sessionId"),
            (json!(null), "sessionId"),
        ] {
            let err = parse_caller(&args, &["sessionId", "cwd"]).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidInput);
            assert!(err.message.starts_with(field), "{field}: {}", err.message);
        }
        let board = parse_caller(&json!({"cwd": "/w"}), &["cwd"]).unwrap();
        assert_eq!(
            board.session_id, None,
            "the board does not need the session"
        );
    }

    #[test]
    fn the_caller_keys_are_the_mcp_callers_fields() {
        assert_eq!(field_names::<McpCaller>(), CALLER_KEYS);
    }

    #[test]
    fn status_takes_no_field() {
        assert!(parse::<StatusRequest>("status", &json!({"sessionId": "s", "cwd": "/"})).is_ok());
        let err = parse::<StatusRequest>("status", &json!({"verbose": true})).unwrap_err();
        assert!(
            err.message.contains("unknown field \"verbose\""),
            "{}",
            err.message
        );
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
