//! The tool history a goal keeps: each call's kind, the last change and the
//! last verification with what was observed, and the counters the drift rule
//! and the completion gate read.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Rough classification of a tool call, for drift and the completion gate.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// One of the goal_system_* tools: never counts toward drift.
    Goal,
    /// Reads, searches and listings.
    Inspection,
    /// Edits, writes, shell commands that change things.
    Action,
    /// Shell commands that build, test or check.
    Verification,
    /// Anything else the host offers.
    Other,
    /// Handing work to a subagent (Claude's Agent, Copilot's task): activity of
    /// the main session for drift, but never evidence of the work itself.
    Delegation,
    /// Bookkeeping that neither acts nor inspects (task_complete, report_intent,
    /// todo lists): never counts toward drift, never counts as evidence.
    Meta,
    /// Shell commands that do nothing for the work (`echo done`, `true`,
    /// `sleep 1`): they count toward drift, since they are not progress, but
    /// are never evidence.
    Noop,
}

/// One persisted tool call (already redacted and truncated).
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolEvent {
    /// Monotonic per goal; drift is derived from it.
    pub seq: u64,
    pub at: String,
    #[serde(default)]
    pub at_ms: u64,
    pub tool: String,
    pub kind: ToolKind,
    /// Tool name and main argument (command, path), redacted.
    pub summary: String,
    /// "success", "failure", "denied" or empty when unknown.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub result: String,
    /// For a verification: did it pass, as the host reported it (result type,
    /// exit code, interruption, the runner's summary). Absent for other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    /// Which adapter recorded it ("cli-hook", "sdk", "vscode", "claude").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// Dedup key: hash of tool name and arguments.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// The files it changed, as observed in the working tree (or as the tool
    /// named them), relative to the goal's folder, redacted; at most a few.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// How many created and changed files the history keeps.
pub const MAX_WRITTEN: usize = 64;

/// Tool history: a bounded window of recent calls plus counters that survive trimming.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct ToolHistory {
    /// Number of non-goal main-session calls ever recorded for this goal.
    #[serde(default)]
    pub seq: u64,
    /// `seq` at the last goal update: drift = seq - seq_at_update.
    #[serde(default)]
    pub seq_at_update: u64,
    /// Counts per kind over the whole life of the goal.
    #[serde(default)]
    pub inspections: u64,
    #[serde(default)]
    pub actions: u64,
    #[serde(default)]
    pub verifications: u64,
    #[serde(default)]
    pub delegations: u64,
    /// Most recent entries, oldest first.
    #[serde(default)]
    pub recent: Vec<ToolEvent>,
    /// `seq` of the last call that changed files (0: none yet). Survives the
    /// window, so freshness holds however long the history grows.
    #[serde(default)]
    pub last_change_seq: u64,
    /// Summary of that call (`edit: src/a.rs`), redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_change: Option<String>,
    /// The files the last change touched (observed, or named by the tool),
    /// relative to the goal's folder, redacted; at most a few.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_change_files: Vec<String>,
    /// The last verification (tests, build, lint, type check, or a run of the
    /// project's own program) and its result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_verification: Option<LastVerification>,
    /// The last run that looked like a verification but did not count, and why
    /// (it ran no tests, ran outside the goal's folder, changed files as it ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempt: Option<Attempt>,
    /// Changes that touched anything but documentation (or files unknown).
    /// While it is 0, a goal that changed only documentation may rest on
    /// reading the result back.
    #[serde(default)]
    pub code_changes: u64,
    /// Files the goal's calls created, other than documentation and the
    /// outputs of runs (at most [`MAX_WRITTEN`]): a program among them must
    /// use something else the goal changed to verify it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_files: Vec<String>,
    /// Files other than documentation the goal's calls changed or created
    /// since the last passing verification (at most [`MAX_WRITTEN`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_files: Vec<String>,
    /// Documentation files the goal changed (at most a few).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub docs_changed: Vec<String>,
    /// `seq` of the last call that read a changed documentation file back.
    #[serde(default)]
    pub last_readback_seq: u64,
    /// Runs of the project's program started in the background (a server): a
    /// request to localhost afterwards exercises it.
    #[serde(default)]
    pub background_runs: u64,
    /// The observed working tree kept after the last observed call (its
    /// digest; the manifest is a side file). Absent when not observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<TreeMark>,
}

/// The facts kept about the last verification.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct LastVerification {
    /// Its `seq` in the tool history: fresh when greater than `lastChangeSeq`.
    pub seq: u64,
    /// The command (or tool summary), redacted and truncated.
    pub command: String,
    pub passed: bool,
    pub at: String,
    /// What it was: `tests`, `check` (build, lint, type check) or `run` (the
    /// project's own program); empty in records of earlier versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Why it failed, in a few words, when it did.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// The end of what it printed, redacted: what was seen.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// Whether the working tree was observed around it (`tree`) or only its
    /// words were read (`words`); empty in records of earlier versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub observed: String,
}

/// A run that looked like a verification but did not count.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub seq: u64,
    /// The command, redacted and truncated.
    pub command: String,
    /// Why it does not count, in words the model acts on.
    pub why: String,
    /// The end of what it printed, redacted.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
}

/// The kept working tree's digest (SHA-256 of the side file) and size.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TreeMark {
    pub digest: String,
    pub entries: u64,
    /// The tree's watcher's mark the kept tree is current at (its instance
    /// and event count): the next hook asks it what changed since. Absent
    /// when no watcher vouched for the tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<String>,
}
