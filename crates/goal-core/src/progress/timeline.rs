//! A goal's timeline: the audit log's lines for the goal (activation, updates
//! and what changed, drift, blocked stops, refused closes, the close) merged
//! with the tool history (each recent call with its kind), in time order.
//!
//! The audit log rotates and the tool history keeps a bounded window, so the
//! record fills the gaps: its creation and close times always appear, and the
//! per-kind counters cover the whole life of the goal.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::{elapsed_ms, human_duration, ms_of, one_line};
use crate::record::{Goal, ToolKind};
use crate::store::Store;

/// What happened.
#[derive(Serialize, JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    Opened,
    Replaced,
    Continued,
    Updated,
    Tool,
    DriftWarning,
    DriftDenied,
    StopBlocked,
    ClaimDenied,
    LoopGuard,
    CloseRefused,
    Closed,
    Compact,
    Other,
}

impl EventKind {
    /// The audit log's event names (see `Store::audit` callers).
    fn from_audit(event: &str) -> EventKind {
        match event {
            "open" => EventKind::Opened,
            "replace" => EventKind::Replaced,
            "continue" => EventKind::Continued,
            "update" => EventKind::Updated,
            "drift-warning" => EventKind::DriftWarning,
            "drift-denied" => EventKind::DriftDenied,
            "stop-blocked" => EventKind::StopBlocked,
            "claim-denied" => EventKind::ClaimDenied,
            "loop-guard" => EventKind::LoopGuard,
            "close-refused" => EventKind::CloseRefused,
            "close" => EventKind::Closed,
            "compact" => EventKind::Compact,
            _ => EventKind::Other,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Opened => "opened",
            EventKind::Replaced => "replaced",
            EventKind::Continued => "continued",
            EventKind::Updated => "updated",
            EventKind::Tool => "tool",
            EventKind::DriftWarning => "drift-warning",
            EventKind::DriftDenied => "drift-denied",
            EventKind::StopBlocked => "stop-blocked",
            EventKind::ClaimDenied => "claim-denied",
            EventKind::LoopGuard => "loop-guard",
            EventKind::CloseRefused => "close-refused",
            EventKind::Closed => "closed",
            EventKind::Compact => "compact",
            EventKind::Other => "other",
        }
    }
}

/// One entry of the timeline.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "TimelineEvent")]
pub struct Event {
    pub at: String,
    pub at_ms: u64,
    pub kind: EventKind,
    /// For tool events: inspection, action, verification, delegation, other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_kind: Option<ToolKind>,
    /// The audit event name, or the tool name.
    pub name: String,
    /// What changed, the unmet conditions, the tool's main argument, ...
    pub detail: String,
    /// The goal status the audit line recorded (empty for tool calls).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub status: String,
}

/// Tool calls per kind over the goal's whole life.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct ToolTotals {
    pub total: u64,
    pub inspections: u64,
    pub actions: u64,
    pub verifications: u64,
    pub delegations: u64,
    /// How many of them the timeline shows (the history keeps a window).
    pub shown: u64,
}

/// A goal's timeline: every event in time order, and the tool totals.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    pub goal_id: String,
    pub session_id: String,
    pub events: Vec<Event>,
    pub tools: ToolTotals,
}

/// The audit lines of the store, oldest first (the rotated file, then the
/// current one). Lines that are not JSON objects are skipped.
pub fn read_audit(store: &Store) -> Vec<Value> {
    let current = store.audit_path();
    let mut rotated = current.clone().into_os_string();
    rotated.push(".1");
    [std::path::PathBuf::from(rotated), current]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(Value::is_object)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// The timeline of `goal` from the store's audit lines.
pub fn build(goal: &Goal, audit: &[Value]) -> Timeline {
    let mut events: Vec<Event> = audit
        .iter()
        .filter(|l| l.get("goalId").and_then(Value::as_str) == Some(goal.id.as_str()))
        .map(|l| {
            let at = text(l, "at");
            let name = text(l, "event");
            Event {
                at_ms: ms_of(&at),
                at,
                kind: EventKind::from_audit(&name),
                tool_kind: None,
                name,
                detail: one_line(&text(l, "detail")),
                status: text(l, "status"),
            }
        })
        .collect();
    let has =
        |events: &[Event], kinds: &[EventKind]| events.iter().any(|e| kinds.contains(&e.kind));
    if !has(&events, &[EventKind::Opened, EventKind::Replaced]) && !goal.created_at.is_empty() {
        events.push(Event {
            at: goal.created_at.clone(),
            at_ms: ms_of(&goal.created_at),
            kind: EventKind::Opened,
            tool_kind: None,
            name: "open".into(),
            detail: "from the record (its audit line is no longer in the log)".into(),
            status: String::new(),
        });
    }
    if let Some(closed) = goal
        .closed_at
        .as_ref()
        .filter(|_| !has(&events, &[EventKind::Closed]))
    {
        events.push(Event {
            at: closed.clone(),
            at_ms: ms_of(closed),
            kind: EventKind::Closed,
            tool_kind: None,
            name: "close".into(),
            detail: format!(
                "status {} (from the record)",
                goal.completion_status.as_str()
            ),
            status: goal.completion_status.as_str().into(),
        });
    }
    let h = &goal.tool_history;
    for call in &h.recent {
        events.push(Event {
            at: call.at.clone(),
            at_ms: if call.at_ms > 0 {
                call.at_ms
            } else {
                ms_of(&call.at)
            },
            kind: EventKind::Tool,
            tool_kind: Some(call.kind),
            name: call.tool.clone(),
            detail: one_line(&if call.result.is_empty() {
                call.summary.clone()
            } else {
                format!("{} ({})", call.summary, call.result)
            }),
            status: String::new(),
        });
    }
    // Stable: same-millisecond events keep audit-before-tool order.
    events.sort_by_key(|e| e.at_ms);
    Timeline {
        goal_id: goal.id.clone(),
        session_id: goal.session_id.clone(),
        tools: ToolTotals {
            total: h.seq,
            inspections: h.inspections,
            actions: h.actions,
            verifications: h.verifications,
            delegations: h.delegations,
            shown: h.recent.len() as u64,
        },
        events,
    }
}

/// The timeline of `goal` read from `store`'s audit log.
pub fn for_goal(store: &Store, goal: &Goal) -> Timeline {
    build(goal, &read_audit(store))
}

pub fn tool_kind_name(kind: ToolKind) -> &'static str {
    match kind {
        ToolKind::Goal => "goal",
        ToolKind::Inspection => "inspection",
        ToolKind::Action => "action",
        ToolKind::Verification => "verification",
        ToolKind::Other => "other",
        ToolKind::Delegation => "delegation",
        ToolKind::Meta => "meta",
        ToolKind::Noop => "no-op",
    }
}

fn short_time(at: &str) -> String {
    // 2026-11-22T05:16:00.123Z -> 2026-11-22 05:16:00
    at.get(..19).unwrap_or(at).replace('T', " ")
}

/// Consecutive tool calls shown one by one up to this many; longer runs are
/// summarized by kind (the JSON form keeps every call).
const TOOL_RUN_SHOWN: usize = 3;

/// The timeline as text for `goal-system log`.
pub fn render_text(goal: &Goal, t: &Timeline, now_ms: u64) -> String {
    let mut out = Vec::new();
    out.push(format!(
        "Goal {} ({}): {}",
        goal.id,
        goal.status_label(),
        one_line(&goal.objective)
    ));
    let elapsed =
        elapsed_ms(goal, now_ms).map_or(String::new(), |ms| format!(", {}", human_duration(ms)));
    out.push(format!(
        "Session {}, cwd {}{elapsed}",
        goal.session_id, goal.cwd
    ));
    let tt = &t.tools;
    out.push(format!(
        "Tool calls: {} ({} inspection, {} action, {} verification, {} delegation); the last {} are listed",
        tt.total, tt.inspections, tt.actions, tt.verifications, tt.delegations, tt.shown
    ));
    out.push(String::new());
    let mut i = 0;
    while i < t.events.len() {
        let e = &t.events[i];
        if e.kind == EventKind::Tool {
            let end = t.events[i..]
                .iter()
                .position(|x| x.kind != EventKind::Tool)
                .map_or(t.events.len(), |p| i + p);
            let run = &t.events[i..end];
            if run.len() > TOOL_RUN_SHOWN {
                let mut kinds: Vec<(&str, usize)> = Vec::new();
                for x in run {
                    let k = x.tool_kind.map_or("other", tool_kind_name);
                    match kinds.iter_mut().find(|(n, _)| *n == k) {
                        Some((_, c)) => *c += 1,
                        None => kinds.push((k, 1)),
                    }
                }
                let by_kind = kinds
                    .iter()
                    .map(|(k, c)| format!("{c} {k}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push(format!(
                    "{}  {:<14} {} calls ({by_kind}) until {}, last: {}",
                    short_time(&e.at),
                    "tools",
                    run.len(),
                    short_time(&run[run.len() - 1].at),
                    run[run.len() - 1].detail
                ));
            } else {
                for x in run {
                    // The detail is the tool's summary, which starts with its name.
                    out.push(format!(
                        "{}  {:<14} {}",
                        short_time(&x.at),
                        format!("tool {}", x.tool_kind.map_or("other", tool_kind_name)),
                        x.detail
                    ));
                }
            }
            i = end;
            continue;
        }
        let label = if e.kind == EventKind::Other {
            e.name.as_str()
        } else {
            e.kind.as_str()
        };
        out.push(
            format!("{}  {:<14} {}", short_time(&e.at), label, e.detail)
                .trim_end()
                .to_string(),
        );
        i += 1;
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::super::tests::goal;
    use super::*;
    use crate::record::{Status, ToolEvent};
    use serde_json::json;

    fn tool(seq: u64, at: &str, kind: ToolKind, summary: &str) -> ToolEvent {
        ToolEvent {
            seq,
            at: at.into(),
            at_ms: ms_of(at),
            tool: "bash".into(),
            kind,
            summary: summary.into(),
            result: String::new(),
            source: "claude".into(),
            key: String::new(),
            passed: None,
            files: Vec::new(),
        }
    }

    fn line(at: &str, event: &str, goal_id: &str, detail: &str) -> Value {
        json!({"at": at, "event": event, "sessionId": "s1", "goalId": goal_id, "status": "active", "detail": detail})
    }

    #[test]
    fn audit_lines_and_tool_calls_merge_in_time_order_for_this_goal_only() {
        let mut g = goal(Status::Active);
        g.tool_history.recent = vec![tool(
            1,
            "2026-11-22T05:01:00.000Z",
            ToolKind::Inspection,
            "bash: ls",
        )];
        g.tool_history.seq = 1;
        g.tool_history.inspections = 1;
        let audit = vec![
            line("2026-11-22T05:00:00.000Z", "open", "goal-1", "status draft"),
            line(
                "2026-11-22T05:00:30.000Z",
                "open",
                "goal-other",
                "status draft",
            ),
            line(
                "2026-11-22T05:02:00.000Z",
                "update",
                "goal-1",
                "doneSoFar: +1",
            ),
            line(
                "2026-11-22T05:03:00.000Z",
                "close-refused",
                "goal-1",
                "validationProof, toolHistory",
            ),
        ];
        let t = build(&g, &audit);
        let kinds: Vec<EventKind> = t.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventKind::Opened,
                EventKind::Tool,
                EventKind::Updated,
                EventKind::CloseRefused
            ]
        );
        assert_eq!(t.events[3].detail, "validationProof, toolHistory");
        assert_eq!(t.tools.total, 1);
    }

    #[test]
    fn a_rotated_away_open_and_an_unlogged_close_come_from_the_record() {
        let mut g = goal(Status::Complete);
        g.closed_at = Some("2026-11-22T06:00:00.000Z".into());
        let t = build(&g, &[]);
        assert_eq!(t.events.first().unwrap().kind, EventKind::Opened);
        assert_eq!(t.events.last().unwrap().kind, EventKind::Closed);
    }

    #[test]
    fn long_tool_runs_are_summarized_by_kind_in_the_text_log() {
        let mut g = goal(Status::Active);
        g.tool_history.recent = (0..6)
            .map(|i| {
                let kind = if i % 2 == 0 {
                    ToolKind::Inspection
                } else {
                    ToolKind::Action
                };
                tool(
                    i + 1,
                    &format!("2026-11-22T05:0{i}:00.000Z"),
                    kind,
                    &format!("step {i}"),
                )
            })
            .collect();
        let audit = vec![line(
            "2026-11-22T05:00:00.000Z",
            "drift-denied",
            "goal-1",
            "5 calls",
        )];
        let text = render_text(&g, &build(&g, &audit), ms_of(&g.created_at));
        assert!(text.contains("drift-denied"), "{text}");
        assert!(text.contains("6 calls (3 inspection, 3 action)"), "{text}");
        assert!(text.contains("last: step 5"), "{text}");
    }

    #[test]
    fn unreadable_audit_lines_are_skipped() {
        let dir = std::env::temp_dir().join(format!("goal-timeline-{}", std::process::id()));
        let root = dir.join("goal-system");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("audit.log"),
            "not json\n[1]\n{\"at\":\"2026-11-22T05:00:00.000Z\",\"event\":\"open\",\"goalId\":\"goal-1\"}\n",
        )
        .unwrap();
        let store = Store::new(crate::store::StoreConfig::new(&dir, &root));
        assert_eq!(read_audit(&store).len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
