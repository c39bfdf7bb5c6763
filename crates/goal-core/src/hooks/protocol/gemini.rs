//! Gemini CLI's hook protocol (0.61.0). Events BeforeAgent (a prompt),
//! BeforeTool, AfterTool, AfterAgent (the end of a turn), PreCompress,
//! SessionStart/End; payloads carry `session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, `timestamp`, and `tool_name`/`tool_input` (`tool_response
//! {llmContent, returnDisplay}` after a tool), read by `read_payload`.
//! Answers: a tool or a stop is refused with top-level `decision: "deny"` and
//! a `reason` (AfterAgent's reason becomes the next prompt); context goes in
//! `hookSpecificOutput.additionalContext` with the event's own name.

use serde_json::{json, Map, Value};

use super::{Decision, Event};

/// Gemini CLI's name for `event`.
pub(super) fn event_name(event: Event) -> &'static str {
    match event {
        Event::SessionStart => "SessionStart",
        Event::UserPrompt => "BeforeAgent",
        Event::PreToolUse => "BeforeTool",
        Event::PostToolUse => "AfterTool",
        Event::PreCompact => "PreCompress",
        Event::Stop => "AfterAgent",
        Event::SessionEnd => "SessionEnd",
        other => other.pascal(),
    }
}

/// Put `decision` where Gemini CLI reads it for `event`.
pub(super) fn render(event: Event, decision: &Decision, out: &mut Map<String, Value>) {
    let mut context: Vec<&str> = decision.context.iter().map(String::as_str).collect();
    let mut message: Vec<&str> = decision.system_message.iter().map(String::as_str).collect();
    match event {
        Event::PreToolUse => {
            if let Some(reason) = &decision.deny {
                out.insert("decision".into(), json!("deny"));
                out.insert("reason".into(), json!(reason));
            }
        }
        Event::Stop => {
            if let Some(reason) = &decision.block {
                // Gemini CLI sets no cap on these: the core's loop bound ends them.
                out.insert("decision".into(), json!("deny"));
                out.insert("reason".into(), json!(reason));
            }
        }
        Event::UserPrompt | Event::SessionStart => {
            // Not denied: the transcript must record the prompt for the
            // user's command to be confirmed. The model is told it is done.
            if let Some(text) = decision
                .consume
                .as_deref()
                .or(decision.modify_prompt.as_deref())
            {
                context.push(text);
                message.push(text);
            }
        }
        _ => {}
    }
    let reads_context = matches!(
        event,
        Event::UserPrompt | Event::SessionStart | Event::PostToolUse | Event::PreToolUse
    );
    if reads_context && !context.is_empty() {
        out.insert(
            "hookSpecificOutput".into(),
            json!({"hookEventName": event_name(event), "additionalContext": context.join("\n")}),
        );
    }
    if !message.is_empty() {
        out.insert("systemMessage".into(), json!(message.join("\n")));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{render as render_any, Host};
    use super::*;

    fn answer(event: Event, decision: Decision) -> Value {
        serde_json::from_str(&render_any(Host::Gemini, event, decision, None).stdout).unwrap()
    }

    #[test]
    fn a_held_stop_and_a_refused_tool_are_denials_with_a_reason() {
        let block = Decision {
            block: Some("keep going".into()),
            ..Decision::default()
        };
        assert_eq!(
            answer(Event::parse("AfterAgent"), block),
            json!({"decision": "deny", "reason": "keep going"})
        );
        let deny = Decision {
            deny: Some("no".into()),
            context: Some("drift".into()),
            ..Decision::default()
        };
        let v = answer(Event::parse("BeforeTool"), deny);
        assert_eq!(v["decision"], "deny");
        assert_eq!(v["reason"], "no");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "BeforeTool");
    }

    #[test]
    fn a_handled_command_reaches_the_model_as_context_not_a_denial() {
        let consumed = Decision {
            consume: Some("Goal paused.".into()),
            context: Some("note".into()),
            ..Decision::default()
        };
        let v = answer(Event::parse("BeforeAgent"), consumed);
        assert!(v.get("decision").is_none());
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            "note\nGoal paused."
        );
        assert_eq!(v["systemMessage"], "Goal paused.");
        assert_eq!(answer(Event::SessionEnd, Decision::default()), json!({}));
    }

    #[test]
    fn geminis_event_names_map_both_ways() {
        for name in [
            "SessionStart",
            "BeforeAgent",
            "BeforeTool",
            "AfterTool",
            "PreCompress",
            "AfterAgent",
            "SessionEnd",
        ] {
            assert_eq!(event_name(Event::parse(name)), name);
        }
    }
}
