//! OpenAI Codex CLI's hook protocol (0.169.0). Its payloads are Claude Code's
//! shape (`session_id`, `hook_event_name`, `tool_name: "Bash"`, `tool_input
//! {command}`, `tool_response` as one string) plus `turn_id`, `model`,
//! `permission_mode`, read by `read_payload` as they are. Its answers are
//! checked against strict schemas (the `*.command.output` schemas in the
//! binary): only the allowed keys, `hookEventName` equal to the event, no
//! `hookSpecificOutput` on Stop, no `additionalContext` where the event has
//! none. A key out of place makes Codex drop the whole answer, so each event
//! gets exactly the keys its schema allows.

use serde_json::{json, Map, Value};

use super::{Decision, Event};

/// Put `decision` into the keys Codex's schema for `event` allows.
pub(super) fn render(event: Event, decision: &Decision, out: &mut Map<String, Value>) {
    let mut specific = Map::new();
    match event {
        Event::PreToolUse => {
            if let Some(reason) = &decision.deny {
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
            context(&mut specific, decision.context.as_deref());
        }
        Event::PostToolUse => {
            if let Some(reason) = &decision.deny {
                // PostToolUse's block: the reason goes to the model as feedback.
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
            context(&mut specific, decision.context.as_deref());
        }
        Event::UserPrompt | Event::SessionStart | Event::SubagentStart => {
            context(&mut specific, decision.context.as_deref());
            // A command the goal system did itself is not blocked: a blocked
            // prompt leaves no record in the rollout, and the rollout is what
            // confirms the user typed it. The model is told it is done.
            let handled = decision
                .consume
                .as_deref()
                .or(decision.modify_prompt.as_deref());
            if let Some(text) = handled {
                context(&mut specific, Some(text));
                out.insert("systemMessage".into(), json!(text));
            }
        }
        Event::Stop | Event::SubagentStop => {
            if let Some(reason) = &decision.block {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
        }
        // Interrupt takes only `systemMessage` (below); PreCompact,
        // SessionEnd and the rest take no decision.
        _ => {}
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(event.pascal()));
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if event != Event::SessionEnd && event != Event::Other {
        if let Some(msg) = &decision.system_message {
            let joined = match out.get("systemMessage").and_then(Value::as_str) {
                Some(first) => format!("{msg}\n{first}"),
                None => msg.clone(),
            };
            out.insert("systemMessage".into(), json!(joined));
        }
    }
}

/// Add `text` to the `additionalContext` being built.
fn context(specific: &mut Map<String, Value>, text: Option<&str>) {
    let Some(text) = text else { return };
    let joined = match specific.get("additionalContext").and_then(Value::as_str) {
        Some(first) => format!("{first}\n{text}"),
        None => text.to_string(),
    };
    specific.insert("additionalContext".into(), json!(joined));
}

#[cfg(test)]
mod tests {
    use super::super::{render as render_any, Host};
    use super::*;

    /// Top-level and `hookSpecificOutput` keys each event's schema allows
    /// (`*.command.output` in codex 0.169.0).
    fn allowed(event: Event) -> (&'static [&'static str], &'static [&'static str]) {
        match event {
            Event::PreToolUse => (
                &[
                    "continue",
                    "decision",
                    "hookSpecificOutput",
                    "reason",
                    "stopReason",
                    "suppressOutput",
                    "systemMessage",
                ],
                &[
                    "additionalContext",
                    "hookEventName",
                    "permissionDecision",
                    "permissionDecisionReason",
                    "updatedInput",
                ],
            ),
            Event::PostToolUse => (
                &[
                    "continue",
                    "decision",
                    "hookSpecificOutput",
                    "reason",
                    "stopReason",
                    "suppressOutput",
                    "systemMessage",
                ],
                &["additionalContext", "hookEventName", "updatedMCPToolOutput"],
            ),
            Event::UserPrompt => (
                &[
                    "continue",
                    "decision",
                    "hookSpecificOutput",
                    "reason",
                    "stopReason",
                    "suppressOutput",
                    "systemMessage",
                ],
                &["additionalContext", "hookEventName"],
            ),
            Event::SessionStart | Event::SubagentStart => (
                &[
                    "continue",
                    "hookSpecificOutput",
                    "stopReason",
                    "suppressOutput",
                    "systemMessage",
                ],
                &["additionalContext", "hookEventName"],
            ),
            Event::Stop | Event::SubagentStop => (
                &[
                    "continue",
                    "decision",
                    "reason",
                    "stopReason",
                    "suppressOutput",
                    "systemMessage",
                ],
                &[],
            ),
            // `interrupt.command.output`: nothing but a message.
            Event::Interrupt => (&["systemMessage"], &[]),
            _ => (
                &["continue", "stopReason", "suppressOutput", "systemMessage"],
                &[],
            ),
        }
    }

    #[test]
    fn every_answer_fits_codexs_strict_schema_for_its_event() {
        let full = Decision {
            deny: Some("no".into()),
            block: Some("go on".into()),
            context: Some("ctx".into()),
            system_message: Some("note".into()),
            consume: Some("done".into()),
            modify_prompt: None,
        };
        for event in [
            Event::SessionStart,
            Event::UserPrompt,
            Event::PreToolUse,
            Event::PostToolUse,
            Event::PreCompact,
            Event::SubagentStart,
            Event::SubagentStop,
            Event::Stop,
            Event::SessionEnd,
            Event::Interrupt,
        ] {
            let out = render_any(Host::Codex, event, full.clone(), None);
            let v: Value = serde_json::from_str(&out.stdout).unwrap();
            let (top, specific) = allowed(event);
            for key in v.as_object().unwrap().keys() {
                assert!(top.contains(&key.as_str()), "{event:?}: {key} not allowed");
            }
            if let Some(hs) = v.get("hookSpecificOutput") {
                assert_eq!(hs["hookEventName"], event.pascal(), "{event:?}");
                for key in hs.as_object().unwrap().keys() {
                    assert!(specific.contains(&key.as_str()), "{event:?}: {key}");
                }
            }
            if v.get("decision").is_some() {
                assert_eq!(v["decision"], "block", "{event:?}");
                assert!(v["reason"].as_str().is_some_and(|r| !r.is_empty()));
            }
        }
    }

    #[test]
    fn decisions_land_where_codex_reads_them() {
        let deny = Decision {
            deny: Some("not now".into()),
            ..Decision::default()
        };
        let v: Value =
            serde_json::from_str(&render_any(Host::Codex, Event::PreToolUse, deny, None).stdout)
                .unwrap();
        assert_eq!(
            v,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not now"}})
        );
        let block = Decision {
            block: Some("keep going".into()),
            context: Some("not on Stop".into()),
            ..Decision::default()
        };
        let v: Value =
            serde_json::from_str(&render_any(Host::Codex, Event::Stop, block, None).stdout)
                .unwrap();
        assert_eq!(v, json!({"decision": "block", "reason": "keep going"}));
        let consumed = Decision {
            consume: Some("Goal cancelled.".into()),
            ..Decision::default()
        };
        let v: Value = serde_json::from_str(
            &render_any(Host::Codex, Event::UserPrompt, consumed, None).stdout,
        )
        .unwrap();
        assert!(
            v.get("decision").is_none(),
            "a handled command is not blocked"
        );
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            "Goal cancelled."
        );
        assert_eq!(v["systemMessage"], "Goal cancelled.");
        let empty = render_any(Host::Codex, Event::SessionEnd, Decision::default(), None);
        assert_eq!(empty.stdout, "{}");
    }
}
