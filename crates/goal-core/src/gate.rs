//! The completion gate. A goal closes as complete only when every condition of
//! the seed holds; a refusal lists every unmet condition, each naming its field,
//! so the model can fix them all in one pass.

use serde::Serialize;

pub use crate::gap::{freshness, gap, Gap};
use crate::record::Goal;
use crate::text;
use crate::text::norm;

/// One unmet condition.
#[derive(Serialize, schemars::JsonSchema, Clone, Debug, PartialEq, Eq)]
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

/// The conditions [`check`] enforces, in its order and in the model's terms:
/// the goal tools' descriptions are built from this list (a test holds the
/// two together).
pub const CONDITIONS: [&str; 10] = [
    "objective",
    "doneSoFar",
    "validationProof",
    "verificationResults",
    "inspectionEvidence (or inspection tool activity)",
    "requirementCoverage naming every requirement with evidence",
    "completionAudit",
    "empty remaining and empty blockers",
    "every discovered issue resolved (resolvedIssues or an evidence-backed issueResolutions entry)",
    "a passing run observed by the hooks after the last change: the project's tests, build, type check or linter, or its own program (toolHistory; reads and claims alone are refused; a documentation-only change may rest on reading it back)",
];

/// Every condition of the completion gate that the goal does not meet, in the
/// seed's order. Empty means the goal may close as complete.
pub fn check(goal: &Goal) -> Vec<Unmet> {
    let mut out = Vec::new();
    if goal.objective.trim().is_empty() {
        out.push(unmet("objective", "the objective is not known"));
    }
    let substance = Substance::of(goal);
    substance.require(
        &mut out,
        "doneSoFar",
        &goal.done_so_far,
        "record what was done",
    );
    substance.require(
        &mut out,
        "validationProof",
        &goal.validation_proof,
        "record validation proof (what shows the work is right)",
    );
    substance.require(
        &mut out,
        "verificationResults",
        &goal.verification_results,
        "record verification results (commands run and their outcome)",
    );
    if goal.tool_history.inspections == 0 {
        substance.require(
            &mut out,
            "inspectionEvidence",
            &goal.inspection_evidence,
            "record inspection evidence, or inspect the code with tools first",
        );
    }
    for requirement in &goal.requirements {
        if !is_covered(requirement, &goal.requirement_coverage) {
            out.push(unmet(
                "requirementCoverage",
                format!(
                    "no coverage entry names the requirement \"{requirement}\" and adds its evidence (a test, a command and its result, a file and what it shows)"
                ),
            ));
        }
    }
    substance.require(
        &mut out,
        "completionAudit",
        &goal.completion_audit,
        "record a completion audit (each requirement checked against the result)",
    );
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
    if let Some(message) = freshness(&goal.tool_history) {
        out.push(unmet("toolHistory", message));
    }
    out
}

/// Words that say nothing about the work: placeholders (`n/a`, `done`, `ok`,
/// `see above`) and filler. An entry made only of them is not evidence.
const EMPTY_WORDS: &[&str] = &[
    "n",
    "a",
    "na",
    "none",
    "nothing",
    "nil",
    "null",
    "done",
    "ok",
    "okay",
    "yes",
    "y",
    "tbd",
    "todo",
    "tba",
    "see",
    "above",
    "below",
    "as",
    "same",
    "complete",
    "completed",
    "passed",
    "pass",
    "passes",
    "fine",
    "good",
    "works",
    "working",
    "finished",
    "verified",
    "checked",
    "covered",
    "met",
    "satisfied",
    "addressed",
    "implemented",
    "fixed",
    "handled",
    "resolved",
    "lgtm",
    "all",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "it",
    "this",
    "that",
    "the",
    "and",
    "or",
    "of",
    "to",
    "for",
    "in",
    "on",
    "by",
    "with",
    "has",
    "have",
    "so",
    "far",
    "etc",
    "x",
    "true",
    "success",
    "successful",
    "successfully",
    "requirement",
    "requirements",
    "objective",
    "goal",
    "task",
    "item",
    "n/a",
    "not",
    "applicable",
    "ready",
    "everything",
    "fully",
];

/// Content words of an entry: its words minus the empty ones.
fn content_words(entry: &str) -> Vec<String> {
    words(entry)
        .split_whitespace()
        .filter(|w| !EMPTY_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// What counts as substance in a goal's evidence lists: an entry with content
/// words beyond the objective's or any one requirement's own words.
struct Substance {
    restated: Vec<Vec<String>>,
    /// The commands the hooks saw run (`sh greet.sh`): an entry naming one
    /// reports an observed run, whatever its other words.
    observed: Vec<String>,
}

impl Substance {
    fn of(goal: &Goal) -> Substance {
        let h = &goal.tool_history;
        let ran = h
            .recent
            .iter()
            .filter(|e| e.passed.is_some())
            .filter_map(|e| e.summary.split_once(": ").map(|(_, c)| c.to_string()))
            .chain(h.last_verification.iter().map(|v| v.command.clone()));
        Substance {
            restated: std::iter::once(&goal.objective)
                .chain(&goal.requirements)
                .map(|t| content_words(t))
                .collect(),
            observed: ran.map(|c| words(&c)).filter(|c| !c.is_empty()).collect(),
        }
    }

    /// Does this entry say something beyond a placeholder or a restatement?
    fn counts(&self, entry: &str) -> bool {
        let content = content_words(entry);
        if content.is_empty() {
            return false;
        }
        let said = words(entry);
        self.observed.iter().any(|c| find_words(&said, c).is_some())
            || !self
                .restated
                .iter()
                .any(|known| content.iter().all(|w| known.contains(w)))
    }

    fn require(&self, out: &mut Vec<Unmet>, field: &str, list: &[String], missing: &str) {
        if list.iter().any(|e| self.counts(e)) {
            return;
        }
        if list.is_empty() {
            out.push(unmet(field, missing));
        } else {
            out.push(unmet(
                field,
                format!(
                    "{missing}: every entry ({}) is a placeholder or only restates the objective or a requirement",
                    text::quote_items(list, 3, 60)
                ),
            ));
        }
    }
}

/// Is this text evidence at all (not a placeholder such as `n/a`, `done`)?
pub fn is_placeholder(entry: &str) -> bool {
    content_words(entry).is_empty()
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
/// its label such as `R1`) and adds evidence beyond the name: words that are
/// neither placeholders (`done`, `ok`) nor the requirement's own words again.
pub fn is_covered(requirement: &str, coverage: &[String]) -> bool {
    let req = words(requirement);
    if req.is_empty() {
        return true;
    }
    let req_label = label(requirement);
    let own = content_words(requirement);
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
        content_words(&rest).iter().any(|w| {
            !own.contains(w) && (w.chars().count() >= 3 || w.chars().any(|c| c.is_ascii_digit()))
        })
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
    use crate::record::{IssueResolution, LastVerification, ResolutionStatus, Status, ToolHistory};

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
        g.tool_history = ToolHistory {
            seq: 3,
            inspections: 1,
            actions: 1,
            verifications: 1,
            last_change_seq: 2,
            last_change: Some("edit: greet.sh".into()),
            last_verification: Some(LastVerification {
                seq: 3,
                command: "bash test.sh".into(),
                passed: true,
                at: "t".into(),
                ..LastVerification::default()
            }),
            ..ToolHistory::default()
        };
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
        g.tool_history.inspections = 0;
        assert_eq!(fields(&check(&g)), vec!["inspectionEvidence"]);
        g.tool_history.inspections = 2;
        assert!(check(&g).is_empty());
    }

    fn verified(seq: u64, passed: bool) -> Option<LastVerification> {
        Some(LastVerification {
            seq,
            command: "cargo test".into(),
            passed,
            at: "t".into(),
            ..LastVerification::default()
        })
    }

    #[test]
    fn claims_without_tool_activity_are_refused() {
        let mut g = complete_goal();
        g.tool_history = ToolHistory::default();
        let u = check(&g);
        assert_eq!(fields(&u), vec!["toolHistory"]);
        assert!(u[0].message.contains("claims alone"), "{}", u[0].message);
    }

    #[test]
    fn a_test_run_before_the_last_edit_is_stale() {
        let mut g = complete_goal();
        g.tool_history.last_verification = verified(2, true);
        g.tool_history.last_change_seq = 3;
        g.tool_history.last_change = Some("edit: src/lib.rs".into());
        let u = check(&g);
        assert_eq!(fields(&u), vec!["toolHistory"]);
        assert!(
            u[0].message.contains("edit: src/lib.rs") && u[0].message.contains("\"cargo test\""),
            "names the change and the stale command: {}",
            u[0].message
        );
    }

    #[test]
    fn an_edit_with_no_test_after_it_names_the_missing_verification() {
        let mut g = complete_goal();
        g.tool_history.last_verification = None;
        let u = check(&g);
        assert_eq!(fields(&u), vec!["toolHistory"]);
        assert!(
            u[0].message.contains("no verification ran after"),
            "{}",
            u[0].message
        );
        assert!(u[0].message.contains("edit: greet.sh"));
    }

    #[test]
    fn a_failing_last_verification_refuses_even_after_an_older_pass() {
        let mut g = complete_goal();
        g.tool_history.last_verification = verified(4, false);
        let u = check(&g);
        assert_eq!(fields(&u), vec!["toolHistory"]);
        assert!(
            u[0].message.contains("\"cargo test\" (call #4) failed"),
            "{}",
            u[0].message
        );
        g.tool_history.last_verification = verified(5, true);
        assert!(check(&g).is_empty());
    }

    #[test]
    fn reads_alone_never_close_but_a_run_of_the_program_does() {
        let mut g = complete_goal();
        g.tool_history = ToolHistory {
            seq: 2,
            inspections: 2,
            ..ToolHistory::default()
        };
        let u = check(&g);
        assert_eq!(fields(&u), vec!["toolHistory"]);
        assert!(u[0].message.contains("nothing was run"), "{}", u[0].message);
        assert_eq!(gap(&g.tool_history), Some(Gap::NothingRun));
        g.tool_history.last_verification = verified(3, true);
        assert!(
            check(&g).is_empty(),
            "an analysis that ran what it analysed"
        );
    }

    #[test]
    fn a_documentation_only_change_may_rest_on_reading_it_back() {
        let mut g = complete_goal();
        g.tool_history = ToolHistory {
            seq: 1,
            actions: 1,
            last_change_seq: 1,
            last_change: Some("edit: README.md".into()),
            last_change_files: vec!["README.md".into()],
            docs_changed: vec!["README.md".into()],
            ..ToolHistory::default()
        };
        let u = check(&g);
        assert!(u[0].message.contains("read it back"), "{}", u[0].message);
        g.tool_history.seq = 2;
        g.tool_history.last_readback_seq = 2;
        assert!(check(&g).is_empty());
        // Once code changed too, reading back is not enough.
        g.tool_history.code_changes = 1;
        assert_eq!(gap(&g.tool_history), Some(Gap::Unverified));
    }

    #[test]
    fn placeholders_and_restatements_are_not_evidence() {
        for placeholder in [
            "n/a",
            "N/A",
            "na",
            "done",
            "ok",
            "none",
            "tbd",
            "TODO",
            "-",
            "...",
            "see above",
            "as above",
            "yes",
            "complete",
            "passed",
            "Done.",
            "all done",
            "✓",
        ] {
            let mut g = complete_goal();
            g.validation_proof = vec![placeholder.into()];
            g.completion_audit = vec![placeholder.into()];
            g.done_so_far = vec![placeholder.into()];
            g.verification_results = vec![placeholder.into()];
            assert_eq!(
                fields(&check(&g)),
                vec![
                    "doneSoFar",
                    "validationProof",
                    "verificationResults",
                    "completionAudit"
                ],
                "{placeholder}"
            );
        }
        let mut g = complete_goal();
        g.validation_proof = vec![
            "ship".into(),
            "R1: greeting prints twice".into(),
            "done".into(),
        ];
        let u = check(&g);
        assert_eq!(fields(&u), vec!["validationProof"]);
        assert!(u[0].message.contains("placeholder"), "{}", u[0].message);
        // One real entry among placeholders is enough.
        g.validation_proof
            .push("greet.sh output has two lines".into());
        assert!(check(&g).is_empty());
        g.inspection_evidence = vec!["n/a".into()];
        g.tool_history.inspections = 0;
        assert_eq!(fields(&check(&g)), vec!["inspectionEvidence"]);
    }

    #[test]
    fn an_entry_naming_an_observed_run_is_evidence_though_its_words_echo_the_objective() {
        let mut g = complete_goal();
        g.objective = "make greet.sh print hello twice".into();
        g.requirements.clear();
        g.requirement_coverage.clear();
        g.verification_results = vec!["sh greet.sh: hello, hello".into()];
        g.tool_history.last_verification = verified(3, true);
        assert_eq!(
            fields(&check(&g)),
            vec!["verificationResults"],
            "no such run was seen"
        );
        g.tool_history.last_verification.as_mut().unwrap().command = "sh greet.sh".into();
        assert!(check(&g).is_empty(), "{:?}", check(&g));
    }

    #[test]
    fn coverage_must_add_evidence_beyond_the_name() {
        let mut g = complete_goal();
        for entry in [
            "R1 -> done",
            "R1: ok",
            "R1 covered",
            "R1: greeting prints twice -- greeting prints twice",
            "greeting prints twice: yes, complete",
        ] {
            g.requirement_coverage = vec![
                entry.into(),
                "exit code is zero: `./greet; echo $?` printed 0".into(),
            ];
            assert_eq!(fields(&check(&g)), vec!["requirementCoverage"], "{entry}");
        }
        g.requirement_coverage[0] = "R1 -> test_greeting_twice passes in bash test.sh".into();
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
