//! Updates to a goal record: durable lists append with de-duplication, the two
//! queues replace only when named, issue resolutions are checked, limits are
//! enforced with errors that name the field. Input is the typed request of
//! `request` so every adapter (SDK tools, MCP tools, CLI) gets the same
//! validation and the same messages.

use serde_json::Value;

use crate::error::{ErrorCode, GoalError, Result};
use crate::record::{Goal, IssueResolution, ResolutionStatus, Status, DURABLE_LISTS, QUEUES};
use crate::redact;
use crate::request::{self, IssueResolutionInput, UpdateRequest};
pub use crate::text::norm;

/// Most items a list may hold.
pub const MAX_ITEMS: usize = 200;
/// Longest list item, in characters.
pub const MAX_ITEM_CHARS: usize = 2_000;
/// Longest objective, in characters.
pub const MAX_OBJECTIVE_CHARS: usize = 4_000;
/// Longest status reason, in characters.
pub const MAX_REASON_CHARS: usize = 2_000;

/// What an update changed, for audit lines and tool results.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Applied {
    /// `field: +N` entries for appended lists, `field: replaced` for queues.
    pub changes: Vec<String>,
}

impl Applied {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// Redact, trim and collapse inner whitespace runs of an item.
pub fn clean_item(text: &str) -> String {
    let redacted = redact::redact(text);
    redacted.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// References that would let a model resolve issues wholesale.
pub fn is_wildcard(text: &str) -> bool {
    let n = norm(text);
    let n = n.trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace());
    if n.is_empty() || text.contains('*') {
        return true;
    }
    const WHOLESALE: [&str; 14] = [
        "all",
        "everything",
        "any",
        "all issues",
        "all of them",
        "every issue",
        "each issue",
        "all discovered issues",
        "all the issues",
        "the rest",
        "all remaining",
        "all others",
        "remaining issues",
        "n/a",
    ];
    WHOLESALE.contains(&n)
}

fn field_error(field: &str, message: impl std::fmt::Display) -> GoalError {
    GoalError::invalid(format!("{field}: {message}"))
}

fn string_items(field: &str, raw: &[String]) -> Result<Vec<String>> {
    // Before any redaction: an oversized list is refused for its length alone.
    check_count(field, raw.len())?;
    let mut out = Vec::with_capacity(raw.len());
    for (i, text) in raw.iter().enumerate() {
        let cleaned = clean_item(text);
        if cleaned.is_empty() {
            return Err(field_error(field, format!("item {i} is empty")));
        }
        let chars = cleaned.chars().count();
        if chars > MAX_ITEM_CHARS {
            return Err(GoalError::new(
                ErrorCode::LimitExceeded,
                format!("{field}: item {i} has {chars} characters; the limit is {MAX_ITEM_CHARS}"),
            ));
        }
        out.push(cleaned);
    }
    Ok(out)
}

fn check_count(field: &str, count: usize) -> Result<()> {
    if count > MAX_ITEMS {
        return Err(GoalError::new(
            ErrorCode::LimitExceeded,
            format!("{field}: {count} items; the limit is {MAX_ITEMS}"),
        ));
    }
    Ok(())
}

/// Append items not already present (compared normalized): one pass over
/// the list and one over the items, whatever their sizes.
fn append_dedup(list: &mut Vec<String>, items: Vec<String>) -> usize {
    let mut seen: std::collections::HashSet<String> = list.iter().map(|x| norm(x)).collect();
    let before = list.len();
    for item in items {
        if seen.insert(norm(&item)) {
            list.push(item);
        }
    }
    list.len() - before
}

/// The size limits of an update, checked on the raw input before any work
/// (no redaction, no de-duplication, no lock): a list field or
/// `issueResolutions` with more items than any list may hold is refused at
/// once, so an oversized request costs one pass over its item count.
pub fn check_limits(update: &Value) -> Result<()> {
    let Value::Object(obj) = update else {
        return Ok(());
    };
    for name in DURABLE_LISTS
        .iter()
        .chain(QUEUES.iter())
        .chain(["issueResolutions"].iter())
    {
        if let Some(Value::Array(items)) = obj.get(*name) {
            check_count(name, items.len())?;
        }
    }
    Ok(())
}

/// Replace a queue, dropping duplicates within the new list.
fn replace_dedup(items: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    append_dedup(&mut out, items);
    out
}

/// Parse and check an `issueResolutions` value (an entry or a list).
pub fn parse_resolutions(value: &Value) -> Result<Vec<IssueResolution>> {
    if value.is_null() {
        return Ok(Vec::new());
    }
    let parsed: request::Resolutions =
        serde_json::from_value(value.clone()).map_err(|e| field_error("issueResolutions", e))?;
    check_resolutions(&parsed.0)
}

/// Check typed `issueResolutions` entries: each names one issue (no
/// wildcard), has a known status and real evidence.
pub fn check_resolutions(items: &[IssueResolutionInput]) -> Result<Vec<IssueResolution>> {
    let field = "issueResolutions";
    check_count(field, items.len())?;
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let text = |v: &Option<String>| v.as_deref().map(clean_item);
        let issue = text(&item.issue).unwrap_or_default();
        if issue.is_empty() {
            return Err(GoalError::new(
                ErrorCode::InvalidResolution,
                format!("{field}[{i}].issue: name the original discovered issue"),
            ));
        }
        if is_wildcard(&issue) {
            return Err(GoalError::new(
                ErrorCode::InvalidResolution,
                format!(
                    "{field}[{i}].issue: wildcard reference \"{issue}\" refused; name one discovered issue exactly"
                ),
            ));
        }
        let status_text = item.status.as_deref().unwrap_or("");
        let status = ResolutionStatus::parse(status_text).ok_or_else(|| {
            GoalError::new(
                ErrorCode::InvalidResolution,
                format!(
                    "{field}[{i}].status: \"{}\" is not one of {}",
                    redact::truncate(status_text, 40),
                    ResolutionStatus::ALL.join(", ")
                ),
            )
        })?;
        let evidence = text(&item.evidence).unwrap_or_default();
        if evidence.chars().filter(|c| c.is_alphanumeric()).count() < 3 {
            return Err(GoalError::new(
                ErrorCode::InvalidResolution,
                format!("{field}[{i}].evidence: say why \"{issue}\" no longer remains open"),
            ));
        }
        let into = text(&item.into).filter(|s| !s.is_empty());
        if let Some(target) = &into {
            if is_wildcard(target) {
                return Err(GoalError::new(
                    ErrorCode::InvalidResolution,
                    format!("{field}[{i}].into: wildcard reference refused"),
                ));
            }
        }
        for (name, limit) in [(&issue, MAX_ITEM_CHARS), (&evidence, MAX_ITEM_CHARS)] {
            if name.chars().count() > limit {
                return Err(GoalError::new(
                    ErrorCode::LimitExceeded,
                    format!("{field}[{i}]: text over {limit} characters"),
                ));
            }
        }
        out.push(IssueResolution {
            issue,
            status,
            evidence,
            into,
        });
    }
    Ok(out)
}

/// Apply an update object to a goal: the request is parsed into its typed
/// form ([`UpdateRequest`]) after the size limits, then applied.
pub fn apply_update(goal: &mut Goal, update: &Value) -> Result<Applied> {
    if update.is_null() {
        return Ok(Applied::default());
    }
    ensure_open(goal)?;
    check_limits(update)?;
    let req: UpdateRequest = request::parse("update", update)?;
    apply_changes(goal, &req)
}

fn ensure_open(goal: &Goal) -> Result<()> {
    if goal.is_open() {
        return Ok(());
    }
    Err(GoalError::new(
        ErrorCode::GoalClosed,
        format!(
            "goal {} is {} since {}; it does not reopen. Open a new goal instead.",
            goal.id,
            goal.status_label(),
            goal.closed_at.as_deref().unwrap_or("?")
        ),
    ))
}

/// Apply a typed update to a goal. The goal is changed only if the whole
/// update is valid: it is checked against a copy first.
pub fn apply_changes(goal: &mut Goal, req: &UpdateRequest) -> Result<Applied> {
    ensure_open(goal)?;
    for name in DURABLE_LISTS.iter().chain(QUEUES.iter()) {
        if let Some(items) = req.list(name) {
            check_count(name, items.0.len())?;
        }
    }
    if let Some(r) = &req.issue_resolutions {
        check_count("issueResolutions", r.0.len())?;
    }
    if let Some(expected) = &req.expected_goal_id {
        if *expected != goal.id {
            return Err(GoalError::new(
                ErrorCode::StaleGoal,
                format!(
                    "expectedGoalId {expected} does not match the session's goal {}",
                    goal.id
                ),
            ));
        }
    }
    let mut next = goal.clone();
    let mut applied = Applied::default();

    if let Some(text) = &req.objective {
        let cleaned = clean_objective(text)?;
        if norm(&cleaned) != norm(&next.objective) {
            // Refining the wording is allowed while the goal is a draft; a new
            // destination once work has started is a replacement, not an update.
            if next.completion_status != Status::Draft && !next.objective.is_empty() {
                return Err(field_error(
                    "objective",
                    "cannot change the objective of a started goal; open a new goal with replace: true",
                ));
            }
            // A draft the user opened keeps the user's words: the wording may
            // be made more precise around them, never replaced (review-7 V4).
            let users = next.source.as_ref().is_some_and(|s| s.kind != "tool");
            if users && !norm(&cleaned).contains(&norm(&next.objective)) {
                return Err(field_error(
                    "objective",
                    "the user's objective stays as the user wrote it: a refined objective must keep the user's words; a new objective is the user's to set with /goal",
                ));
            }
            next.objective = cleaned;
            applied.changes.push("objective: refined".into());
        }
    }

    for name in DURABLE_LISTS {
        if let Some(v) = req.list(name) {
            let items = string_items(name, &v.0)?;
            if name == "resolvedIssues" {
                if let Some(w) = items.iter().find(|i| is_wildcard(i)) {
                    return Err(GoalError::new(
                        ErrorCode::InvalidResolution,
                        format!("resolvedIssues: wildcard reference \"{w}\" refused; list each resolved issue by name"),
                    ));
                }
            }
            let list = next.list_mut(name).expect("durable list");
            let added = append_dedup(list, items);
            check_count(name, list.len())?;
            if added > 0 {
                applied.changes.push(format!("{name}: +{added}"));
            }
        }
    }
    for name in QUEUES {
        if let Some(v) = req.list(name) {
            let items = replace_dedup(string_items(name, &v.0)?);
            check_count(name, items.len())?;
            let list = next.list_mut(name).expect("queue");
            if *list != items {
                *list = items;
                applied.changes.push(format!("{name}: replaced"));
            }
        }
    }

    if let Some(input) = &req.issue_resolutions {
        let entries = check_resolutions(&input.0)?;
        let mut added = 0;
        for entry in entries {
            let key = norm(&entry.issue);
            if !next.discovered_issues.iter().any(|d| norm(d) == key) {
                return Err(GoalError::new(
                    ErrorCode::InvalidResolution,
                    format!(
                        "issueResolutions: \"{}\" is not a discovered issue; name one of discoveredIssues exactly (known: {})",
                        entry.issue,
                        crate::text::quote_items(&next.discovered_issues, 8, 80)
                    ),
                ));
            }
            // An issue that was renamed, merged or duplicated lives on under its
            // new name: that name joins the discovered set so it still gates.
            if let (
                Some(target),
                ResolutionStatus::Renamed | ResolutionStatus::Merged | ResolutionStatus::Duplicate,
            ) = (&entry.into, entry.status)
            {
                if append_dedup(&mut next.discovered_issues, vec![target.clone()]) > 0 {
                    applied.changes.push("discoveredIssues: +1".into());
                }
            }
            let exists = next.issue_resolutions.iter().any(|r| {
                norm(&r.issue) == key
                    && r.status == entry.status
                    && norm(&r.evidence) == norm(&entry.evidence)
            });
            if !exists {
                next.issue_resolutions.push(entry);
                added += 1;
            }
        }
        check_count("issueResolutions", next.issue_resolutions.len())?;
        check_count("discoveredIssues", next.discovered_issues.len())?;
        if added > 0 {
            applied.changes.push(format!("issueResolutions: +{added}"));
        }
    }

    if let Some(v) = req.token_budget {
        next.budget.token_budget = v;
        applied.changes.push("tokenBudget: set".into());
    }
    if let Some(v) = req.time_budget_seconds {
        next.budget.time_budget_seconds = v;
        applied.changes.push("timeBudgetSeconds: set".into());
    }

    let reason = match &req.status_reason {
        Some(s) => Some(clean_reason(s)?),
        None => None,
    };
    if let Some(text) = &req.status {
        let status = Status::parse(text).ok_or_else(|| {
            field_error(
                "status",
                format!("\"{}\" is not a status", redact::truncate(text, 40)),
            )
        })?;
        match status {
            Status::Draft if next.completion_status != Status::Draft => {
                // Draft is where a goal starts: a started goal never goes
                // back to it (where its objective could be rewritten).
                return Err(field_error(
                    "status",
                    "a goal that has started does not go back to draft",
                ));
            }
            Status::Draft | Status::Active => {
                if next.completion_status != status {
                    next.completion_status = status;
                    next.status_reason = None;
                    next.stop_guard.blocked_stops = 0;
                    applied.changes.push(format!("status: {}", status.as_str()));
                }
            }
            Status::Blocked => {
                // Resumable block: no closedAt, and the exact reason is required.
                let reason = reason.clone().or_else(|| next.blockers.last().cloned()).ok_or_else(|| {
                    field_error("statusReason", "a blocked goal needs the exact blocker (statusReason or blockers)")
                })?;
                append_dedup(&mut next.blockers, vec![reason.clone()]);
                next.completion_status = Status::Blocked;
                next.status_reason = Some(reason);
                applied.changes.push("status: blocked (resumable)".into());
            }
            Status::Paused => {
                if next.completion_status != Status::Paused {
                    next.completion_status = Status::Paused;
                    next.status_reason = reason.clone().or(Some("paused by the user".into()));
                    next.stop_guard.blocked_stops = 0;
                    applied.changes.push("status: paused".into());
                } else if let Some(r) = reason.clone().filter(|r| next.status_reason.as_ref() != Some(r)) {
                    // Already paused (an interrupt pauses first, at the same
                    // prompt): the user's own pause and its reason are what stands.
                    next.status_reason = Some(r);
                    applied.changes.push("statusReason: set".into());
                }
            }
            Status::BudgetLimited => {
                return Err(field_error(
                    "status",
                    "budget_limited is set by the goal system when a budget is crossed",
                ))
            }
            Status::Complete | Status::Cancelled => {
                return Err(field_error(
                    "status",
                    "complete and cancelled are set by goal_system_close, which checks the completion gate",
                ))
            }
        }
    } else if let Some(r) = reason {
        next.status_reason = Some(r);
        applied.changes.push("statusReason: set".into());
    }

    *goal = next;
    Ok(applied)
}

/// Redact and bound an objective.
pub fn clean_objective(text: &str) -> Result<String> {
    let cleaned = clean_item(text);
    if cleaned.is_empty() {
        return Err(field_error("objective", "is empty"));
    }
    let chars = cleaned.chars().count();
    if chars > MAX_OBJECTIVE_CHARS {
        return Err(GoalError::new(
            ErrorCode::LimitExceeded,
            format!("objective: {chars} characters; the limit is {MAX_OBJECTIVE_CHARS}"),
        ));
    }
    Ok(cleaned)
}

/// Redact and bound a blocker or cancellation reason; it must say something.
pub fn clean_reason(text: &str) -> Result<String> {
    let cleaned = clean_item(text);
    if cleaned.chars().filter(|c| c.is_alphanumeric()).count() < 3 {
        return Err(field_error(
            "statusReason",
            "give the exact reason (at least a few words)",
        ));
    }
    let chars = cleaned.chars().count();
    if chars > MAX_REASON_CHARS {
        return Err(GoalError::new(
            ErrorCode::LimitExceeded,
            format!("statusReason: {chars} characters; the limit is {MAX_REASON_CHARS}"),
        ));
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn goal() -> Goal {
        Goal::new(
            "g1".into(),
            "s1".into(),
            "/w".into(),
            "ship".into(),
            Status::Active,
            "t".into(),
        )
    }

    #[test]
    fn durable_lists_append_and_dedupe() {
        let mut g = goal();
        apply_update(&mut g, &json!({"doneSoFar": ["a", "b"]})).unwrap();
        apply_update(&mut g, &json!({"doneSoFar": ["b", "  c ", "A"]})).unwrap();
        assert_eq!(g.done_so_far, vec!["a", "b", "c"]);
    }

    #[test]
    fn partial_update_never_erases_proof() {
        let mut g = goal();
        apply_update(
            &mut g,
            &json!({"validationProof": ["tests pass"], "remaining": ["x"]}),
        )
        .unwrap();
        apply_update(&mut g, &json!({"doneSoFar": "did y"})).unwrap();
        assert_eq!(g.validation_proof, vec!["tests pass"]);
        assert_eq!(g.remaining, vec!["x"], "queues change only when named");
        apply_update(&mut g, &json!({"remaining": []})).unwrap();
        assert!(g.remaining.is_empty());
        assert_eq!(g.validation_proof, vec!["tests pass"]);
    }

    #[test]
    fn discovered_issues_are_additive() {
        let mut g = goal();
        apply_update(&mut g, &json!({"discoveredIssues": ["i1", "i2", "i3"]})).unwrap();
        apply_update(&mut g, &json!({"discoveredIssues": ["i1"]})).unwrap();
        assert_eq!(g.discovered_issues.len(), 3);
        assert!(apply_update(&mut g, &json!({"discoveredIssues": null})).is_ok());
        assert_eq!(g.discovered_issues.len(), 3);
    }

    #[test]
    fn limits_name_the_field_and_the_limit() {
        let mut g = goal();
        let many: Vec<String> = (0..=MAX_ITEMS).map(|i| format!("item {i}")).collect();
        let err = apply_update(&mut g, &json!({"scope": many})).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
        assert!(
            err.message.contains("scope") && err.message.contains("200"),
            "{}",
            err.message
        );
        let long = "x".repeat(MAX_ITEM_CHARS + 1);
        let err = apply_update(&mut g, &json!({"doneSoFar": [long]})).unwrap_err();
        assert!(err.message.contains("doneSoFar") && err.message.contains("2000"));
        assert!(
            g.scope.is_empty() && g.done_so_far.is_empty(),
            "a refused update changes nothing"
        );
    }

    #[test]
    fn bad_types_and_unknown_fields_are_named() {
        let mut g = goal();
        let err = apply_update(&mut g, &json!({"doneSoFar": 3})).unwrap_err();
        assert!(err.message.starts_with("doneSoFar:"), "{}", err.message);
        let err = apply_update(&mut g, &json!({"doneSoFar": ["ok", 4]})).unwrap_err();
        assert!(err.message.contains("item 1"), "{}", err.message);
        let err = apply_update(&mut g, &json!({"donesofar": ["x"]})).unwrap_err();
        assert!(err.message.contains("unknown field \"donesofar\""));
        let err = apply_update(&mut g, &json!({"doneSoFar": ["  "]})).unwrap_err();
        assert!(err.message.contains("empty"));
    }

    #[test]
    fn resolutions_need_exact_issue_and_evidence() {
        let mut g = goal();
        apply_update(
            &mut g,
            &json!({"discoveredIssues": ["Login fails on empty password"]}),
        )
        .unwrap();
        for wildcard in ["all issues", "everything", "*", "All Issues.", "login*"] {
            let err = apply_update(
                &mut g,
                &json!({"issueResolutions": [{"issue": wildcard, "status": "resolved", "evidence": "fixed all"}]}),
            )
            .unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidResolution, "{wildcard}");
        }
        let err = apply_update(
            &mut g,
            &json!({"issueResolutions": [{"issue": "Login fails", "status": "resolved", "evidence": "fixed"}]}),
        )
        .unwrap_err();
        assert!(err.message.contains("not a discovered issue"));
        let err = apply_update(
            &mut g,
            &json!({"issueResolutions": [{"issue": "Login fails on empty password", "status": "done", "evidence": "fixed"}]}),
        )
        .unwrap_err();
        assert!(err
            .message
            .contains("resolved, merged, renamed, duplicate, superseded"));
        let err = apply_update(
            &mut g,
            &json!({"issueResolutions": [{"issue": "Login fails on empty password", "status": "resolved"}]}),
        )
        .unwrap_err();
        assert!(err.message.contains("evidence"));
        apply_update(
            &mut g,
            &json!({"issueResolutions": [{"issue": "login fails on  empty password", "status": "resolved", "evidence": "test_empty_password passes"}]}),
        )
        .unwrap();
        assert_eq!(g.issue_resolutions.len(), 1);
        let err = apply_update(&mut g, &json!({"resolvedIssues": ["all issues"]})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidResolution);
    }

    #[test]
    fn renamed_issue_lives_on_under_its_new_name() {
        let mut g = goal();
        apply_update(&mut g, &json!({"discoveredIssues": ["old name"]})).unwrap();
        apply_update(
            &mut g,
            &json!({"issueResolutions": {"issue": "old name", "status": "renamed", "into": "new name", "evidence": "same bug, clearer title"}}),
        )
        .unwrap();
        assert_eq!(g.discovered_issues, vec!["old name", "new name"]);
    }

    #[test]
    fn closed_goal_never_reopens_by_update() {
        let mut g = goal();
        g.completion_status = Status::Complete;
        g.closed_at = Some("t".into());
        let err = apply_update(&mut g, &json!({"status": "active"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::GoalClosed);
        let mut b = goal();
        b.completion_status = Status::Blocked;
        b.closed_at = Some("t".into());
        assert_eq!(
            apply_update(&mut b, &json!({"doneSoFar": ["x"]}))
                .unwrap_err()
                .code,
            ErrorCode::GoalClosed
        );
    }

    #[test]
    fn blocked_update_is_resumable_and_needs_reason() {
        let mut g = goal();
        let err = apply_update(&mut g, &json!({"status": "blocked"})).unwrap_err();
        assert!(err.message.contains("statusReason"));
        apply_update(&mut g, &json!({"status": "blocked", "statusReason": "needs the staging password from the user"})).unwrap();
        assert_eq!(g.completion_status, Status::Blocked);
        assert!(g.closed_at.is_none() && g.is_open());
        assert_eq!(g.blockers.len(), 1);
        apply_update(&mut g, &json!({"status": "active", "blockers": []})).unwrap();
        assert_eq!(g.completion_status, Status::Active);
        let err = apply_update(&mut g, &json!({"status": "complete"})).unwrap_err();
        assert!(err.message.contains("goal_system_close"));
    }

    #[test]
    fn a_pause_on_a_paused_goal_keeps_its_own_reason() {
        let mut g = goal();
        g.completion_status = Status::Paused;
        g.status_reason = Some("interrupted by the user".into());
        let applied = apply_update(
            &mut g,
            &json!({"status": "paused", "statusReason": "back after lunch"}),
        )
        .unwrap();
        assert_eq!(g.status_reason.as_deref(), Some("back after lunch"));
        assert_eq!(applied.changes, vec!["statusReason: set"]);
        let again = apply_update(
            &mut g,
            &json!({"status": "paused", "statusReason": "back after lunch"}),
        )
        .unwrap();
        assert!(
            again.changes.is_empty(),
            "the same pause twice changes nothing"
        );
    }

    #[test]
    fn objective_refines_only_while_draft() {
        let mut g = goal();
        g.completion_status = Status::Draft;
        apply_update(&mut g, &json!({"objective": "ship v2"})).unwrap();
        assert_eq!(g.objective, "ship v2");
        g.completion_status = Status::Active;
        assert!(apply_update(&mut g, &json!({"objective": "something else"})).is_err());
        assert!(apply_update(&mut g, &json!({"objective": "Ship  v2"})).is_ok());
    }

    #[test]
    fn the_agent_cannot_demote_a_started_goal_or_replace_the_users_words() {
        // review-7 V4: active -> draft, then a new objective, then active.
        let mut g = goal();
        g.completion_status = Status::Active;
        assert!(apply_update(&mut g, &json!({"status": "draft"})).is_err());
        g.completion_status = Status::Paused;
        assert!(apply_update(&mut g, &json!({"status": "draft"})).is_err());
        assert_eq!(g.completion_status, Status::Paused);
        // The user's own draft: refined around the user's words, not replaced.
        let mut d = goal();
        d.completion_status = Status::Draft;
        d.objective = "rewrite billing to integer cents".into();
        d.source = Some(crate::record::PromptSource {
            hash: "sha256:x".into(),
            preview: "/goal rewrite billing to integer cents".into(),
            kind: "goal-command".into(),
        });
        let err = apply_update(&mut d, &json!({"objective": "say hello"})).unwrap_err();
        assert!(err.message.contains("user's words"), "{}", err.message);
        apply_update(
            &mut d,
            &json!({"objective": "Rewrite billing to integer cents (src/billing, tests included)"}),
        )
        .unwrap();
        assert!(d.objective.starts_with("Rewrite billing"));
        apply_update(&mut d, &json!({"status": "active"})).unwrap();
        assert_eq!(d.completion_status, Status::Active);
    }

    #[test]
    fn stale_goal_id_is_refused() {
        let mut g = goal();
        let err = apply_update(
            &mut g,
            &json!({"expectedGoalId": "other", "doneSoFar": ["x"]}),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::StaleGoal);
        assert!(g.done_so_far.is_empty());
    }

    #[test]
    fn items_are_redacted_before_storage() {
        let mut g = goal();
        let token = format!("{}{}", "gh", "p_") + &"Z".repeat(36);
        apply_update(
            &mut g,
            &json!({"doneSoFar": [format!("used token {token}")]}),
        )
        .unwrap();
        assert!(!g.done_so_far[0].contains(&token), "{}", g.done_so_far[0]);
    }
}
