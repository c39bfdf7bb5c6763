//! The version-3 goal record of the seed, plus what this product adds
//! (timestamps, prompt fingerprint, tool history, budget, stop guard, generation).
//!
//! Records written by the earlier JavaScript goal system (same field names,
//! version 3) must load as-is, so every added field is optional on input and
//! unknown fields are kept verbatim in `extra`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod history;
mod voice;

pub use history::{
    Attempt, LastVerification, ToolEvent, ToolHistory, ToolKind, TreeMark, MAX_WRITTEN,
};
pub use voice::{PendingCommand, RefusedCommand, UserVoice};

fn is_default_voice(v: &UserVoice) -> bool {
    *v == UserVoice::default()
}

/// The record version this crate writes. Version 3 is the seed's format.
pub const RECORD_VERSION: u32 = 3;

/// Lifecycle status. Whether a goal is open depends on `closedAt` too:
/// `blocked` without `closedAt` is resumable, with it terminal.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Draft,
    Active,
    Blocked,
    /// Paused by the user (`/goal pause`) or by an interrupt: open, blocks no
    /// stop, counts no drift; only the user resumes it.
    Paused,
    /// A budget was crossed: open, the model wraps up; stops go through.
    BudgetLimited,
    Complete,
    Cancelled,
}

impl Status {
    /// Every status, in lifecycle order.
    pub const ALL: [Status; 7] = [
        Status::Draft,
        Status::Active,
        Status::Blocked,
        Status::Paused,
        Status::BudgetLimited,
        Status::Complete,
        Status::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::Active => "active",
            Status::Blocked => "blocked",
            Status::Paused => "paused",
            Status::BudgetLimited => "budget_limited",
            Status::Complete => "complete",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        match text.trim().to_ascii_lowercase().as_str() {
            "draft" => Some(Status::Draft),
            "active" => Some(Status::Active),
            "blocked" => Some(Status::Blocked),
            "paused" => Some(Status::Paused),
            "budget_limited" | "budget-limited" => Some(Status::BudgetLimited),
            "complete" | "completed" => Some(Status::Complete),
            "cancelled" | "canceled" => Some(Status::Cancelled),
            _ => None,
        }
    }
}

/// The schema lists the values in lifecycle order ([`Status::ALL`]).
impl JsonSchema for Status {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Status".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let values: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
        schemars::json_schema!({
            "description": "A goal's lifecycle status.",
            "type": "string",
            "enum": values,
        })
    }
}

/// How a discovered issue evolved. Each names the original issue exactly.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ResolutionStatus {
    Resolved,
    Merged,
    Renamed,
    Duplicate,
    Superseded,
}

impl ResolutionStatus {
    pub const ALL: [&'static str; 5] = ["resolved", "merged", "renamed", "duplicate", "superseded"];

    pub fn parse(text: &str) -> Option<ResolutionStatus> {
        match text.trim().to_ascii_lowercase().as_str() {
            "resolved" => Some(ResolutionStatus::Resolved),
            "merged" => Some(ResolutionStatus::Merged),
            "renamed" => Some(ResolutionStatus::Renamed),
            "duplicate" => Some(ResolutionStatus::Duplicate),
            "superseded" => Some(ResolutionStatus::Superseded),
            _ => None,
        }
    }
}

/// One entry of `issueResolutions`.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct IssueResolution {
    /// The original discovered issue, word for word.
    #[serde(alias = "original", alias = "originalIssue")]
    pub issue: String,
    pub status: ResolutionStatus,
    /// Why the original issue no longer remains open.
    #[serde(alias = "proof")]
    pub evidence: String,
    /// For merged/renamed/duplicate/superseded: what it became.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        alias = "target",
        alias = "replacement"
    )]
    pub into: Option<String>,
}

/// How a goal came to be: kept as a hash and a short redacted preview only.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct PromptSource {
    /// `sha256:<hex>` of the full prompt.
    pub hash: String,
    /// Redacted, truncated preview.
    pub preview: String,
    /// What opened it: "goal-command", "autopilot", "tool", "cli", "continue".
    #[serde(default)]
    pub kind: String,
}

/// Optional budgets and the goal's usage, after Codex's goals. Budgets are set
/// only by the user; usage is accounted by `goals::account_usage` from what
/// the host itself records (see `usage`).
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    #[serde(default)]
    pub tokens_used: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_budget_seconds: Option<u64>,
    /// Wall time while the goal was active, in milliseconds.
    #[serde(default)]
    pub time_used_ms: u64,
    /// When the current active stretch began (ms since the epoch); `None`
    /// while the goal is not active, so waiting on the user never counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_since_ms: Option<u64>,
    #[serde(default)]
    pub tool_calls: u64,
    #[serde(default)]
    pub turns: u64,
    /// Per host source (a transcript's hash, a Copilot session) what was
    /// already counted, so a source re-read by every hook counts once.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub usage_sources: BTreeMap<String, UsageMark>,
    /// Fingerprint of the last host record a hook named that the running
    /// host did not vouch for (it keeps its record elsewhere): tool and stop
    /// hooks do not ask again (the process chain is read only at a prompt),
    /// and the user was told once.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub refused_record: String,
    /// The one-time wrap-up steer after a budget was crossed was given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wrap_up_sent: bool,
}

/// What was already counted from one usage source.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct UsageMark {
    /// Byte offset read up to (transcripts: only whole lines are consumed).
    #[serde(default)]
    pub offset: u64,
    /// The host's running total last seen (Copilot CLI's `tokenCount`).
    #[serde(default)]
    pub total: u64,
    /// Recent message ids with the tokens counted for each: one message spans
    /// several transcript lines and may straddle two reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent: Vec<(String, u64)>,
    /// Fingerprint of the host record the source was first counted from (a
    /// running total is keyed by the host's session, not by where it was
    /// read): the source counts only beside that record afterwards.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub record: String,
}

/// State of the stop loop guard.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct StopGuard {
    /// Consecutive blocked stops (or refused completion claims) with no tool call between.
    #[serde(default)]
    pub blocked_stops: u32,
    /// Tool `seq` when the last stop was blocked.
    #[serde(default)]
    pub seq_at_last_block: u64,
    /// Total stops blocked for this goal.
    #[serde(default)]
    pub total_blocked: u32,
    /// Stops blocked since the user's last prompt, progress or not: bounded
    /// absolutely by `goals::MAX_STOPS_PER_PROMPT`.
    #[serde(default)]
    pub since_prompt: u32,
}

/// The goal record. Field names and order follow the seed's version-3 record.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Goal {
    pub version: u32,
    pub id: String,
    pub session_id: String,
    pub cwd: String,
    #[serde(default)]
    pub objective: String,
    #[serde(default)]
    pub requirements: Vec<String>,
    #[serde(default)]
    pub scope: Vec<String>,
    #[serde(default)]
    pub must_not_regress: Vec<String>,
    #[serde(default)]
    pub constraints: Vec<String>,
    #[serde(default)]
    pub current_environment: Vec<String>,
    #[serde(default)]
    pub required_tools: Vec<String>,
    #[serde(default)]
    pub validation_proof: Vec<String>,
    #[serde(default)]
    pub verification_results: Vec<String>,
    #[serde(default)]
    pub requirement_coverage: Vec<String>,
    #[serde(default)]
    pub inspection_evidence: Vec<String>,
    #[serde(default)]
    pub discovered_issues: Vec<String>,
    #[serde(default)]
    pub issue_resolutions: Vec<IssueResolution>,
    #[serde(default)]
    pub resolved_issues: Vec<String>,
    #[serde(default)]
    pub done_so_far: Vec<String>,
    #[serde(default)]
    pub remaining: Vec<String>,
    #[serde(default)]
    pub blockers: Vec<String>,
    #[serde(default)]
    pub completion_audit: Vec<String>,
    #[serde(default = "default_status")]
    pub completion_status: Status,
    #[serde(default)]
    pub closed_at: Option<String>,

    // What this product adds.
    /// Exact blocker or cancellation reason (or the loop guard's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_reason: Option<String>,
    #[serde(default)]
    pub created_at: String,
    #[serde(default)]
    pub updated_at: String,
    /// Bumped on every replacement (a new objective), after Codex's goal-id versioning.
    #[serde(default)]
    pub generation: u32,
    /// Bumped on every write; breaks ties between copies with the same updatedAt.
    #[serde(default)]
    pub revision: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PromptSource>,
    #[serde(default)]
    pub tool_history: ToolHistory,
    #[serde(default)]
    pub budget: Budget,
    #[serde(default)]
    pub stop_guard: StopGuard,
    /// The goal this one replaced, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// The user's commands as the hooks received them (see `provenance`).
    #[serde(default, skip_serializing_if = "is_default_voice")]
    pub voice: UserVoice,
    /// Keyed digest written by the store (see `integrity`): a copy edited
    /// outside the goal system no longer matches it.
    #[serde(default, skip_serializing_if = "crate::integrity::seal_skipped")]
    pub seal: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_status() -> Status {
    Status::Active
}

impl Goal {
    /// A copy with every text redacted as it stands (what a page or a
    /// listing shows of a record another writer may have written).
    pub fn redacted(&self) -> Goal {
        let mut value = serde_json::to_value(self).expect("a goal serializes");
        crate::redact::redact_value(&mut value);
        Goal::deserialize(&value).unwrap_or_else(|_| self.clone())
    }

    /// A new goal with empty lists.
    pub fn new(
        id: String,
        session_id: String,
        cwd: String,
        objective: String,
        status: Status,
        now: String,
    ) -> Goal {
        Goal {
            version: RECORD_VERSION,
            id,
            session_id,
            cwd,
            objective,
            requirements: Vec::new(),
            scope: Vec::new(),
            must_not_regress: Vec::new(),
            constraints: Vec::new(),
            current_environment: Vec::new(),
            required_tools: Vec::new(),
            validation_proof: Vec::new(),
            verification_results: Vec::new(),
            requirement_coverage: Vec::new(),
            inspection_evidence: Vec::new(),
            discovered_issues: Vec::new(),
            issue_resolutions: Vec::new(),
            resolved_issues: Vec::new(),
            done_so_far: Vec::new(),
            remaining: Vec::new(),
            blockers: Vec::new(),
            completion_audit: Vec::new(),
            completion_status: status,
            closed_at: None,
            status_reason: None,
            created_at: now.clone(),
            updated_at: now,
            generation: 1,
            revision: 1,
            source: None,
            tool_history: ToolHistory::default(),
            budget: Budget::default(),
            voice: UserVoice::default(),
            stop_guard: StopGuard::default(),
            replaces: None,
            seal: None,
            extra: Map::new(),
        }
    }

    /// Open means the goal still owns the session: draft, active, or blocked
    /// without `closedAt`. A `closedAt` always means closed, whatever the status says.
    pub fn is_open(&self) -> bool {
        self.closed_at.is_none()
            && matches!(
                self.completion_status,
                Status::Draft
                    | Status::Active
                    | Status::Blocked
                    | Status::Paused
                    | Status::BudgetLimited
            )
    }

    /// Open and not waiting on the user: the states in which stops are blocked.
    pub fn is_working(&self) -> bool {
        self.is_open() && matches!(self.completion_status, Status::Draft | Status::Active)
    }

    /// Non-goal tool calls since the last goal update.
    pub fn drift(&self) -> u64 {
        self.tool_history
            .seq
            .saturating_sub(self.tool_history.seq_at_update)
    }

    /// Human label of the status, distinguishing resumable from terminal blocked.
    pub fn status_label(&self) -> &'static str {
        match (self.completion_status, self.closed_at.is_some()) {
            (Status::Blocked, false) => "blocked (resumable)",
            (Status::Blocked, true) => "blocked (terminal)",
            (s, _) => s.as_str(),
        }
    }
}

/// The durable, append-only string lists, by their JSON names.
pub const DURABLE_LISTS: [&str; 14] = [
    "requirements",
    "scope",
    "mustNotRegress",
    "constraints",
    "currentEnvironment",
    "requiredTools",
    "validationProof",
    "verificationResults",
    "requirementCoverage",
    "inspectionEvidence",
    "discoveredIssues",
    "resolvedIssues",
    "doneSoFar",
    "completionAudit",
];

/// The replaceable queues, by their JSON names.
pub const QUEUES: [&str; 2] = ["remaining", "blockers"];

impl Goal {
    /// Mutable access to a durable string list or a queue by its JSON name.
    pub fn list_mut(&mut self, name: &str) -> Option<&mut Vec<String>> {
        Some(match name {
            "requirements" => &mut self.requirements,
            "scope" => &mut self.scope,
            "mustNotRegress" => &mut self.must_not_regress,
            "constraints" => &mut self.constraints,
            "currentEnvironment" => &mut self.current_environment,
            "requiredTools" => &mut self.required_tools,
            "validationProof" => &mut self.validation_proof,
            "verificationResults" => &mut self.verification_results,
            "requirementCoverage" => &mut self.requirement_coverage,
            "inspectionEvidence" => &mut self.inspection_evidence,
            "discoveredIssues" => &mut self.discovered_issues,
            "resolvedIssues" => &mut self.resolved_issues,
            "doneSoFar" => &mut self.done_so_far,
            "completionAudit" => &mut self.completion_audit,
            "remaining" => &mut self.remaining,
            "blockers" => &mut self.blockers,
            _ => return None,
        })
    }

    /// Read access to a string list by its JSON name.
    pub fn list(&self, name: &str) -> Option<&Vec<String>> {
        Some(match name {
            "requirements" => &self.requirements,
            "scope" => &self.scope,
            "mustNotRegress" => &self.must_not_regress,
            "constraints" => &self.constraints,
            "currentEnvironment" => &self.current_environment,
            "requiredTools" => &self.required_tools,
            "validationProof" => &self.validation_proof,
            "verificationResults" => &self.verification_results,
            "requirementCoverage" => &self.requirement_coverage,
            "inspectionEvidence" => &self.inspection_evidence,
            "discoveredIssues" => &self.discovered_issues,
            "resolvedIssues" => &self.resolved_issues,
            "doneSoFar" => &self.done_so_far,
            "completionAudit" => &self.completion_audit,
            "remaining" => &self.remaining,
            "blockers" => &self.blockers,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_record_loads_as_is_and_keeps_unknown_fields() {
        let json = r#"{
          "version": 3, "id": "g1", "sessionId": "s1", "cwd": "/w", "objective": "ship it",
          "requirements": ["a"], "scope": [], "mustNotRegress": [], "constraints": [],
          "currentEnvironment": [], "requiredTools": [], "validationProof": [],
          "verificationResults": [], "requirementCoverage": [], "inspectionEvidence": [],
          "discoveredIssues": ["x"], "issueResolutions": [{"issue": "x", "status": "merged", "evidence": "see y"}],
          "resolvedIssues": [], "doneSoFar": [], "remaining": ["r"], "blockers": [],
          "completionAudit": [], "completionStatus": "active", "closedAt": null,
          "legacyField": {"kept": true}
        }"#;
        let goal: Goal = serde_json::from_str(json).unwrap();
        assert_eq!(goal.objective, "ship it");
        assert_eq!(goal.issue_resolutions[0].status, ResolutionStatus::Merged);
        assert!(goal.is_open());
        let back = serde_json::to_value(&goal).unwrap();
        assert_eq!(back["legacyField"]["kept"], Value::Bool(true));
        assert_eq!(back["completionStatus"], "active");
        assert!(back["closedAt"].is_null());
    }

    #[test]
    fn closed_at_always_closes() {
        let mut g = Goal::new(
            "g".into(),
            "s".into(),
            "/w".into(),
            "o".into(),
            Status::Blocked,
            "t".into(),
        );
        assert!(g.is_open());
        assert!(!g.is_working());
        assert_eq!(g.status_label(), "blocked (resumable)");
        g.closed_at = Some("t2".into());
        assert!(!g.is_open());
        assert_eq!(g.status_label(), "blocked (terminal)");
        g.completion_status = Status::Active;
        assert!(
            !g.is_open(),
            "an active status with closedAt is still closed"
        );
    }

    #[test]
    fn every_list_name_resolves() {
        let mut g = Goal::new(
            "g".into(),
            "s".into(),
            "/w".into(),
            "o".into(),
            Status::Draft,
            "t".into(),
        );
        for name in DURABLE_LISTS.iter().chain(QUEUES.iter()) {
            assert!(g.list_mut(name).is_some(), "{name}");
            assert!(g.list(name).is_some(), "{name}");
        }
        assert!(g.list("nope").is_none());
    }
}
