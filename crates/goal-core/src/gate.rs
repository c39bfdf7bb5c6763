//! The completion gate. A goal closes as complete only when every condition of
//! the seed holds; a refusal lists every unmet condition, each naming its field,
//! so the model can fix them all in one pass.

use serde::Serialize;

use crate::record::Goal;
use crate::text;
use crate::text::norm;

/// One unmet condition.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Unmet {
    /// The record field to fill or fix (`toolHistory` for recorded activity).
    pub field: String,
    /// What is missing, in words the model can act on.
    pub message: String,
}

fn unmet(field: &str, message: impl Into<String>) -> Unmet {
    Unmet {
        field: field.into(),
        message: message.into(),
    }
}

/// Every condition of the completion gate that the goal does not meet, in the
/// seed's order. Empty means the goal may close as complete.
pub fn check(goal: &Goal) -> Vec<Unmet> {
    let mut out = Vec::new();
    if goal.objective.trim().is_empty() {
        out.push(unmet("objective", "the objective is not known"));
    }
    if goal.done_so_far.is_empty() {
        out.push(unmet("doneSoFar", "record what was done"));
    }
    if goal.validation_proof.is_empty() {
        out.push(unmet(
            "validationProof",
            "record validation proof (what shows the work is right)",
        ));
    }
    if goal.verification_results.is_empty() {
        out.push(unmet(
            "verificationResults",
            "record verification results (commands run and their outcome)",
        ));
    }
    if goal.inspection_evidence.is_empty() && goal.tool_history.inspections == 0 {
        out.push(unmet(
            "inspectionEvidence",
            "record inspection evidence, or inspect the code with tools first",
        ));
    }
    for requirement in &goal.requirements {
        if !is_covered(requirement, &goal.requirement_coverage) {
            out.push(unmet(
                "requirementCoverage",
                format!(
                    "no coverage entry names the requirement \"{requirement}\" with its evidence"
                ),
            ));
        }
    }
    if goal.completion_audit.is_empty() {
        out.push(unmet(
            "completionAudit",
            "record a completion audit (each requirement checked against the result)",
        ));
    }
    if !goal.remaining.is_empty() {
        out.push(unmet(
            "remaining",
            format!(
                "{} remaining item(s) still queued: {}",
                goal.remaining.len(),
                text::quote_items(&goal.remaining, 5, 120)
            ),
        ));
    }
    if !goal.blockers.is_empty() {
        out.push(unmet(
            "blockers",
            format!(
                "{} blocker(s) recorded: {}",
                goal.blockers.len(),
                text::quote_items(&goal.blockers, 5, 120)
            ),
        ));
    }
    for issue in unresolved_issues(goal) {
        out.push(unmet(
            "discoveredIssues",
            format!("discovered issue \"{issue}\" is neither in resolvedIssues nor covered by an evidence-backed issueResolutions entry"),
        ));
    }
    let history = &goal.tool_history;
    if history.actions + history.verifications == 0 {
        out.push(unmet(
            "toolHistory",
            "no action or verification is recorded in the tool history; claims alone are not evidence (edit, run or test with tools, then update)",
        ));
    }
    out
}

/// Discovered issues with no exact entry in resolvedIssues and no
/// evidence-backed resolution.
pub fn unresolved_issues(goal: &Goal) -> Vec<&str> {
    goal.discovered_issues
        .iter()
        .filter(|issue| {
            let key = norm(issue);
            let listed = goal.resolved_issues.iter().any(|r| norm(r) == key);
            let resolved = goal
                .issue_resolutions
                .iter()
                .any(|r| norm(&r.issue) == key && !r.evidence.trim().is_empty());
            !(listed || resolved)
        })
        .map(String::as_str)
        .collect()
}

/// A short label such as `R1` or `REQ-2` at the start of a requirement.
fn label(text: &str) -> Option<String> {
    let head = text.trim_start().trim_start_matches('[');
    let end = head.find([':', ']', ')', ' ', '.'])?;
    let candidate = &head[..end];
    let has_digit = candidate.chars().any(|c| c.is_ascii_digit());
    let tidy = candidate
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '#');
    (has_digit && tidy && (1..=12).contains(&candidate.len())).then(|| candidate.to_lowercase())
}

/// Lowercase words of letters and digits only, for name matching.
fn words(text: &str) -> String {
    norm(
        &text
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .collect::<String>(),
    )
}

/// A requirement is covered when a coverage entry names it (its full text, or
/// its label such as `R1`) and adds evidence beyond the name.
pub fn is_covered(requirement: &str, coverage: &[String]) -> bool {
    let req = words(requirement);
    if req.is_empty() {
        return true;
    }
    let req_label = label(requirement);
    coverage.iter().any(|entry| {
        let text = words(entry);
        let rest = if let Some(pos) = find_words(&text, &req) {
            format!("{} {}", &text[..pos], &text[pos + req.len()..])
        } else if let (Some(l), Some(el)) = (&req_label, label(entry)) {
            if *l != el {
                return false;
            }
            text.replacen(l.as_str(), "", 1)
        } else {
            return false;
        };
        // Evidence: at least one word of three or more characters beyond the name.
        rest.split_whitespace().any(|w| w.chars().count() >= 3)
    })
}

/// Position of `needle` in `hay` on word boundaries (both already `words()`).
fn find_words(hay: &str, needle: &str) -> Option<usize> {
    let mut start = 0;
    while let Some(pos) = hay[start..].find(needle) {
        let at = start + pos;
        let before_ok = at == 0 || hay.as_bytes()[at - 1] == b' ';
        let after = at + needle.len();
        let after_ok = after == hay.len() || hay.as_bytes()[after] == b' ';
        if before_ok && after_ok {
            return Some(at);
        }
        start = at + 1;
        while !hay.is_char_boundary(start) {
            start += 1;
        }
    }
    None
}

/// One line per unmet condition, for tool results and hook reasons.
pub fn describe(unmet: &[Unmet]) -> String {
    unmet
        .iter()
        .map(|u| format!("- {}: {}", u.field, u.message))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{IssueResolution, ResolutionStatus, Status};

    fn fields(u: &[Unmet]) -> Vec<&str> {
        u.iter().map(|x| x.field.as_str()).collect()
    }

    fn complete_goal() -> Goal {
        let mut g = Goal::new(
            "g".into(),
            "s".into(),
            "/w".into(),
            "ship".into(),
            Status::Active,
            "t".into(),
        );
        g.requirements = vec![
            "R1: greeting prints twice".into(),
            "exit code is zero".into(),
        ];
        g.requirement_coverage = vec![
            "R1 covered by test_greeting_twice passing".into(),
            "exit code is zero: verified by `./greet; echo $?` printing 0".into(),
        ];
        g.done_so_far = vec!["changed greet.sh".into()];
        g.validation_proof = vec!["test output shows two lines".into()];
        g.verification_results = vec!["bash test.sh: 2 passed".into()];
        g.inspection_evidence = vec!["read greet.sh".into()];
        g.completion_audit = vec!["both requirements checked".into()];
        g.tool_history.actions = 1;
        g
    }

    #[test]
    fn empty_goal_lists_every_condition() {
        let mut g = Goal::new(
            "g".into(),
            "s".into(),
            "/w".into(),
            "".into(),
            Status::Active,
            "t".into(),
        );
        g.requirements = vec!["a requirement".into()];
        g.remaining = vec!["x".into()];
        g.blockers = vec!["y".into()];
        g.discovered_issues = vec!["bug".into()];
        let u = check(&g);
        assert_eq!(
            fields(&u),
            vec![
                "objective",
                "doneSoFar",
                "validationProof",
                "verificationResults",
                "inspectionEvidence",
                "requirementCoverage",
                "completionAudit",
                "remaining",
                "blockers",
                "discoveredIssues",
                "toolHistory"
            ]
        );
    }

    #[test]
    fn a_complete_goal_passes() {
        assert_eq!(check(&complete_goal()), vec![]);
    }

    #[test]
    fn coverage_must_name_each_requirement_not_match_the_count() {
        let mut g = complete_goal();
        g.requirement_coverage = vec!["all done, verified".into(), "everything tested".into()];
        let u = check(&g);
        assert_eq!(
            fields(&u),
            vec!["requirementCoverage", "requirementCoverage"]
        );
        assert!(u[0].message.contains("greeting prints twice"));
        // Naming without evidence is not coverage.
        g.requirement_coverage = vec!["R1".into(), "exit code is zero".into()];
        assert_eq!(check(&g).len(), 2);
    }

    #[test]
    fn inspection_can_come_from_tool_history() {
        let mut g = complete_goal();
        g.inspection_evidence.clear();
        assert_eq!(fields(&check(&g)), vec!["inspectionEvidence"]);
        g.tool_history.inspections = 2;
        assert!(check(&g).is_empty());
    }

    #[test]
    fn claims_without_tool_activity_are_refused() {
        let mut g = complete_goal();
        g.tool_history.actions = 0;
        assert_eq!(fields(&check(&g)), vec!["toolHistory"]);
        g.tool_history.verifications = 1;
        assert!(check(&g).is_empty());
    }

    #[test]
    fn discovered_issues_need_exact_resolution() {
        let mut g = complete_goal();
        g.discovered_issues = vec!["crash on empty input".into(), "typo in help".into()];
        assert_eq!(check(&g).len(), 2);
        g.resolved_issues = vec!["Crash on  empty input".into()];
        g.issue_resolutions = vec![IssueResolution {
            issue: "typo in help".into(),
            status: ResolutionStatus::Duplicate,
            evidence: "same as help text fix in commit abc".into(),
            into: None,
        }];
        assert!(check(&g).is_empty());
        assert_eq!(unresolved_issues(&g), Vec::<&str>::new());
    }

    #[test]
    fn describe_lists_all() {
        let g = Goal::new(
            "g".into(),
            "s".into(),
            "/w".into(),
            "o".into(),
            Status::Active,
            "t".into(),
        );
        let text = describe(&check(&g));
        assert!(text.contains("- doneSoFar:") && text.contains("- toolHistory:"));
    }
}
