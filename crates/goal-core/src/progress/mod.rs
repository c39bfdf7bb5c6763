//! Progress a person can see at a glance: the status line, the timeline (from
//! the audit log and the tool history) and the HTML report. Read-only views:
//! nothing here writes goal state.
//!
//! What the three views share lives here: elapsed time, budget use and the
//! completion gate as a checklist (each condition met or unmet, with evidence).

pub mod report;
pub mod statusline;
pub mod timeline;

use schemars::JsonSchema;
use serde::Serialize;

use crate::clock::parse_rfc3339_ms;
use crate::error::{ErrorCode, GoalError, Result};
use crate::gate;
use crate::record::Goal;
use crate::store::{shown, Store};

/// A goal by goal id, goal-id prefix or session id; `NO_GOAL` when none matches.
pub fn find_goal(store: &Store, id_or_session: &str) -> Result<Goal> {
    store.find(id_or_session)?.ok_or_else(|| {
        GoalError::new(
            ErrorCode::NoGoal,
            format!("no goal with id or session {}", shown(id_or_session)),
        )
    })
}

/// Milliseconds of a stored time stamp (0 when missing or unreadable).
pub(crate) fn ms_of(at: &str) -> u64 {
    parse_rfc3339_ms(at).map_or(0, |ms| ms.max(0) as u64)
}

/// How long the goal has run: from `createdAt` to `closedAt`, or to `now_ms`
/// while open. `None` when the record has no usable creation time.
pub fn elapsed_ms(goal: &Goal, now_ms: u64) -> Option<u64> {
    let start = ms_of(&goal.created_at);
    if start == 0 {
        return None;
    }
    let end = goal.closed_at.as_deref().map_or(now_ms, ms_of);
    Some(end.saturating_sub(start))
}

/// A short human duration: `45s`, `12m`, `1h 05m`, `3d 4h`.
pub fn human_duration(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d {}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// A token count as people read it: `950`, `12k`, `1.2M`.
pub fn human_tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1000..=999_999 => format!("{}k", (n + 500) / 1000),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// Token use against the budget, when the goal has a budget or any usage.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BudgetUse {
    pub used: u64,
    pub limit: Option<u64>,
    /// Whole percent of the budget used (may pass 100).
    pub percent: Option<u64>,
}

/// The goal's budget and usage, or `None` when neither is set.
pub fn budget_use(goal: &Goal) -> Option<BudgetUse> {
    let used = goal.budget.tokens_used;
    let limit = goal.budget.token_budget.filter(|&l| l > 0);
    if limit.is_none() && used == 0 {
        return None;
    }
    Some(BudgetUse {
        used,
        limit,
        percent: limit.map(|l| used.saturating_mul(100) / l),
    })
}

/// One condition of the completion gate, met or not, with what backs it.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct GateItem {
    /// The record field the gate names (`toolHistory` for recorded activity).
    pub field: String,
    /// What the condition asks, in words.
    pub label: String,
    pub met: bool,
    /// The gate's own messages when unmet (several for coverage and issues).
    pub unmet: Vec<String>,
    /// What the record holds for it (entries, counts).
    pub evidence: Vec<String>,
}

/// The gate's conditions in its order, with a label each. A test checks that
/// every field the gate can name is here, so a new condition cannot go unseen.
const CONDITIONS: [(&str, &str); 11] = [
    ("objective", "The objective is known"),
    ("doneSoFar", "Work done is recorded"),
    ("validationProof", "Validation proof is recorded"),
    ("verificationResults", "Verification results are recorded"),
    ("inspectionEvidence", "The code was inspected"),
    (
        "requirementCoverage",
        "Every requirement is covered with evidence",
    ),
    ("completionAudit", "A completion audit is recorded"),
    ("remaining", "Nothing remains queued"),
    ("blockers", "No blockers"),
    ("discoveredIssues", "Every discovered issue is resolved"),
    ("toolHistory", "Real action or verification tool activity"),
];

fn evidence_of(goal: &Goal, field: &str) -> Vec<String> {
    let h = &goal.tool_history;
    match field {
        "objective" => vec![goal.objective.clone()]
            .into_iter()
            .filter(|o| !o.trim().is_empty())
            .collect(),
        "inspectionEvidence" => {
            let mut out = goal.inspection_evidence.clone();
            if h.inspections > 0 {
                out.push(format!(
                    "{} inspection tool call(s) recorded",
                    h.inspections
                ));
            }
            out
        }
        "discoveredIssues" => {
            let mut out: Vec<String> = goal.resolved_issues.clone();
            out.extend(goal.issue_resolutions.iter().map(|r| {
                let status = serde_json::to_value(r.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                match &r.into {
                    Some(into) => format!("{} → {status} into {into}: {}", r.issue, r.evidence),
                    None => format!("{} → {status}: {}", r.issue, r.evidence),
                }
            }));
            out
        }
        "toolHistory" => vec![format!(
            "{} action(s), {} verification(s), {} inspection(s), {} delegation(s)",
            h.actions, h.verifications, h.inspections, h.delegations
        )],
        other => goal.list(other).cloned().unwrap_or_default(),
    }
}

/// The completion gate as a checklist, from `gate::check` (the one rule).
pub fn checklist(goal: &Goal) -> Vec<GateItem> {
    let unmet = gate::check(goal);
    CONDITIONS
        .iter()
        .map(|(field, label)| {
            let messages: Vec<String> = unmet
                .iter()
                .filter(|u| u.field == *field)
                .map(|u| u.message.clone())
                .collect();
            GateItem {
                field: field.to_string(),
                label: label.to_string(),
                met: messages.is_empty(),
                unmet: messages,
                evidence: evidence_of(goal, field),
            }
        })
        .collect()
}

/// Each requirement with the coverage entries that name it (the gate's matching).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub requirement: String,
    pub covered: bool,
    pub entries: Vec<String>,
}

pub fn coverage(goal: &Goal) -> Vec<Coverage> {
    goal.requirements
        .iter()
        .map(|req| {
            let entries: Vec<String> = goal
                .requirement_coverage
                .iter()
                .filter(|e| gate::is_covered(req, std::slice::from_ref(*e)))
                .cloned()
                .collect();
            Coverage {
                requirement: req.clone(),
                covered: gate::is_covered(req, &goal.requirement_coverage),
                entries,
            }
        })
        .collect()
}

/// Text safe to print on one terminal line: control characters (escape
/// sequences included) become spaces, whitespace runs collapse.
pub(crate) fn one_line(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::Status;

    pub(crate) fn goal(status: Status) -> Goal {
        Goal::new(
            "goal-1".into(),
            "s1".into(),
            "/w".into(),
            "make the greeting print twice".into(),
            status,
            "2026-11-22T05:00:00.000Z".into(),
        )
    }

    #[test]
    fn the_checklist_names_every_condition_the_gate_can_report() {
        let mut g = goal(Status::Active);
        g.objective.clear();
        g.requirements = vec!["R1: prints twice".into()];
        g.remaining = vec!["docs".into()];
        g.blockers = vec!["password".into()];
        g.discovered_issues = vec!["flaky test".into()];
        let fields: Vec<String> = checklist(&g).into_iter().map(|i| i.field).collect();
        for u in gate::check(&g) {
            assert!(
                fields.contains(&u.field),
                "{} missing from the checklist",
                u.field
            );
        }
        let objective = checklist(&g)
            .into_iter()
            .find(|i| i.field == "objective")
            .unwrap();
        assert!(!objective.met);
    }

    #[test]
    fn a_met_condition_carries_its_evidence_and_an_unmet_one_the_gates_message() {
        let mut g = goal(Status::Active);
        g.done_so_far = vec!["parser rewritten".into()];
        let items = checklist(&g);
        let done = items.iter().find(|i| i.field == "doneSoFar").unwrap();
        assert!(done.met);
        assert_eq!(done.evidence, vec!["parser rewritten".to_string()]);
        let proof = items.iter().find(|i| i.field == "validationProof").unwrap();
        assert!(!proof.met);
        assert!(proof.unmet[0].contains("validation proof"));
    }

    #[test]
    fn coverage_pairs_each_requirement_with_the_entries_naming_it() {
        let mut g = goal(Status::Active);
        g.requirements = vec!["R1: prints twice".into(), "R2: exits zero".into()];
        g.requirement_coverage = vec!["R1: test_twice passes".into()];
        let c = coverage(&g);
        assert!(c[0].covered);
        assert_eq!(c[0].entries.len(), 1);
        assert!(!c[1].covered);
        assert!(c[1].entries.is_empty());
    }

    #[test]
    fn durations_and_token_counts_read_short() {
        assert_eq!(human_duration(45_000), "45s");
        assert_eq!(human_duration(12 * 60_000), "12m");
        assert_eq!(human_duration(65 * 60_000), "1h 05m");
        assert_eq!(human_duration(76 * 3_600_000), "3d 4h");
        assert_eq!(human_tokens(950), "950");
        assert_eq!(human_tokens(42_400), "42k");
        assert_eq!(human_tokens(1_200_000), "1.2M");
    }

    #[test]
    fn budget_use_is_absent_until_a_budget_or_usage_is_set() {
        let mut g = goal(Status::Active);
        assert_eq!(budget_use(&g), None);
        g.budget.token_budget = Some(100_000);
        g.budget.tokens_used = 42_000;
        assert_eq!(budget_use(&g).unwrap().percent, Some(42));
    }

    #[test]
    fn elapsed_time_stops_at_the_close() {
        let mut g = goal(Status::Active);
        let start = ms_of(&g.created_at);
        assert_eq!(elapsed_ms(&g, start + 90_000), Some(90_000));
        g.closed_at = Some("2026-11-22T05:10:00.000Z".into());
        assert_eq!(elapsed_ms(&g, start + 99_999_999), Some(600_000));
    }

    #[test]
    fn one_line_removes_escape_sequences_and_newlines() {
        assert_eq!(one_line("a\u{1b}[31m\nb\t c"), "a [31m b c");
    }
}
