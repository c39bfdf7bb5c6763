//! The one-line status of a session's goal for a host's status bar (Claude
//! Code's `statusLine` command: its JSON arrives on stdin, the first line of
//! stdout is shown). Runs on every refresh, so it reads without the lock and
//! prints nothing when the session has no goal.

use serde_json::Value;

use super::{budget_use, elapsed_ms, human_duration, human_tokens, one_line};
use crate::drift;
use crate::gate;
use crate::record::{Goal, Status};
use crate::redact;
use crate::store::Store;

/// Longest objective shown at the end of the line.
const OBJECTIVE_CHARS: usize = 40;

/// The session named by a status line payload: Claude Code sends
/// `session_id`; camel case is accepted too.
pub fn session_of(payload: &Value) -> Option<&str> {
    ["session_id", "sessionId"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The line for a goal at `now_ms`.
pub fn line(goal: &Goal, now_ms: u64) -> String {
    let mut parts = vec![format!("goal {}", goal.status_label())];
    if goal.is_open() {
        parts.push(format!("{} left", goal.remaining.len()));
        let unmet = gate::check(goal).len();
        parts.push(if unmet == 0 {
            "gate met".to_string()
        } else {
            format!("{unmet} unmet")
        });
        let d = goal.drift();
        let mark = if d >= drift::WARN_AT { " !" } else { "" };
        parts.push(format!("drift {d}/{}{mark}", drift::DENY_AT));
    } else if goal.completion_status == Status::Complete {
        parts[0].push_str(" ✓");
    }
    if let Some(ms) = elapsed_ms(goal, now_ms) {
        parts.push(human_duration(ms));
    }
    if let Some(b) = budget_use(goal) {
        parts.push(match (b.limit, b.percent) {
            (Some(limit), Some(p)) => format!(
                "{}/{} tokens ({p}%)",
                human_tokens(b.used),
                human_tokens(limit)
            ),
            _ => format!("{} tokens", human_tokens(b.used)),
        });
    }
    let objective = one_line(&goal.objective);
    if !objective.is_empty() {
        parts.push(redact::truncate(&objective, OBJECTIVE_CHARS));
    }
    if let Some(p) = &goal.voice.pending {
        parts.push(format!("{} awaiting Claude Code's record", p.command));
    }
    if let Some(r) = goal.voice.refused.last() {
        let recent = crate::clock::parse_rfc3339_ms(&r.at)
            .is_some_and(|at| (now_ms as i64).saturating_sub(at) < REFUSAL_SHOWN_MS);
        if recent {
            parts.push(format!("⚠ refused {} (not from you)", r.command));
        }
    }
    if goal.is_open() {
        // The status line is Claude Code's: its user-level install spells the commands /goal.
        parts.push(
            if matches!(goal.completion_status, Status::Paused | Status::Blocked) {
                "/goal resume · /goal cancel"
            } else {
                "/goal pause · /goal cancel"
            }
            .into(),
        );
    }
    parts.join(" · ")
}

/// How long a refused command stays on the line.
const REFUSAL_SHOWN_MS: i64 = 60 * 60 * 1000;

/// The line for a status line payload, or an empty string when it names no
/// session, the session has no goal, or the payload is not JSON.
pub fn for_payload(store: &Store, stdin: &str, now_ms: u64) -> String {
    let Ok(payload) = serde_json::from_str::<Value>(stdin) else {
        return String::new();
    };
    let Some(session) = session_of(&payload) else {
        return String::new();
    };
    // A user command waiting for Claude Code's record is settled here too
    // (without waiting), so the line shows it in effect or refused.
    let _ = crate::provenance::settle(store, session, std::time::Duration::ZERO);
    store
        .peek_session(session)
        .map(|g| line(&g, now_ms))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::tests::goal;
    use super::*;
    use crate::progress::ms_of;

    fn at(goal: &Goal, secs: u64) -> u64 {
        ms_of(&goal.created_at) + secs * 1000
    }

    #[test]
    fn an_active_goal_shows_remaining_unmet_drift_and_elapsed_time() {
        let mut g = goal(Status::Active);
        g.remaining = vec!["a".into(), "b".into(), "c".into()];
        g.tool_history.seq = 4;
        let text = line(&g, at(&g, 3900));
        assert!(text.starts_with("goal active · 3 left · "), "{text}");
        assert!(
            text.contains(" unmet · drift 4/5 ! · 1h 05m · make the greeting"),
            "{text}"
        );
        assert!(!text.contains("tokens"));
    }

    #[test]
    fn a_budget_shows_its_use() {
        let mut g = goal(Status::Draft);
        g.budget.token_budget = Some(100_000);
        g.budget.tokens_used = 42_000;
        assert!(line(&g, at(&g, 5)).contains("42k/100k tokens (42%)"));
    }

    #[test]
    fn closed_goals_show_status_and_duration_only() {
        let mut g = goal(Status::Complete);
        g.closed_at = Some("2026-11-22T05:20:00.000Z".into());
        assert_eq!(
            line(&g, at(&g, 99_999)),
            "goal complete ✓ · 20m · make the greeting print twice"
        );
        g.completion_status = Status::Cancelled;
        assert!(line(&g, 0).starts_with("goal cancelled · 20m"));
    }

    #[test]
    fn a_resumable_blocked_goal_says_so() {
        let g = goal(Status::Blocked);
        assert!(line(&g, at(&g, 1)).starts_with("goal blocked (resumable) · 0 left"));
    }

    #[test]
    fn the_objective_cannot_inject_terminal_sequences() {
        let mut g = goal(Status::Active);
        g.objective = "fix\u{1b}]0;pwned\u{7}\nnow".into();
        let text = line(&g, at(&g, 1));
        assert!(!text.chars().any(char::is_control), "{text:?}");
    }

    #[test]
    fn payloads_without_a_session_give_nothing() {
        let store = Store::new(crate::store::StoreConfig::new(
            "/nonexistent-goal-system-test",
            "/nonexistent-goal-system-test/goal-system",
        ));
        assert_eq!(for_payload(&store, "not json", 0), "");
        assert_eq!(for_payload(&store, r#"{"cwd":"/w"}"#, 0), "");
        assert_eq!(for_payload(&store, r#"{"session_id":"../x"}"#, 0), "");
        assert_eq!(for_payload(&store, r#"{"session_id":"nobody"}"#, 0), "");
    }
}
