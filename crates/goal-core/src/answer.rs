//! What the model sees of a tool's result, the same through the MCP server
//! and the Copilot CLI extension: the text, the structured content, and
//! whether the call, though it succeeded, is an error for the model (a
//! refused completion).

use serde_json::{Map, Value};

/// Parts of the goal record that results leave out: the recent tool-call
/// window is for the hooks and `goal-system show`; the model needs only the
/// counters. The tools' output schema leaves them out too
/// ([`crate::schema::output_schema`]).
pub(crate) const HIDDEN: [(&str, &str); 1] = [("toolHistory", "recent")];

/// Fields the structured content starts with: Claude Code (2.1.197) hands
/// the model that JSON instead of the text, and the goal record, which comes
/// last, is long.
const FIRST: [&str; 2] = ["summary", "unmet"];

/// The model's view of one result.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The summary (a goal tool) or the text (the board), then what changed
    /// and the warnings.
    pub text: String,
    /// The result's fields in the order the model should read them, the
    /// goal record without [`HIDDEN`] last.
    pub structured: Vec<(String, Value)>,
    /// A refused completion: `closed` is false and the summary lists every
    /// unmet condition.
    pub refused: bool,
}

/// The model's view of `result`, a goal tool's or the board's result.
pub fn answer(result: &Value) -> Answer {
    let empty = Map::new();
    let fields = result.as_object().unwrap_or(&empty);
    let strings = |key: &str| -> Vec<&str> {
        fields
            .get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    let mut parts: Vec<String> = ["summary", "text"]
        .iter()
        .filter_map(|key| fields.get(*key).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let changes = strings("changes");
    if !changes.is_empty() {
        parts.push(format!("Changes: {}", changes.join(", ")));
    }
    let warnings = strings("warnings");
    if !warnings.is_empty() {
        let list: Vec<String> = warnings.iter().map(|w| format!("- {w}")).collect();
        parts.push(format!("Warnings:\n{}", list.join("\n")));
    }

    let mut structured: Vec<(String, Value)> = FIRST
        .iter()
        .filter_map(|key| fields.get(*key).map(|v| (key.to_string(), v.clone())))
        .collect();
    structured.extend(
        fields
            .iter()
            .filter(|(key, _)| !FIRST.contains(&key.as_str()) && key.as_str() != "goal")
            .map(|(key, v)| (key.clone(), v.clone())),
    );
    if let Some(goal) = fields.get("goal") {
        let mut goal = goal.clone();
        for (parent, field) in HIDDEN {
            if let Some(part) = goal.get_mut(parent).and_then(Value::as_object_mut) {
                part.remove(field);
            }
        }
        structured.push(("goal".to_string(), goal));
    }
    Answer {
        text: parts.join("\n"),
        structured,
        refused: fields.get("closed") == Some(&Value::Bool(false)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(a: &Answer) -> Vec<&str> {
        a.structured.iter().map(|(k, _)| k.as_str()).collect()
    }

    #[test]
    fn the_text_is_the_summary_then_what_changed_then_the_warnings() {
        let a = answer(&json!({
            "summary": "Goal g1 (active).",
            "changes": ["doneSoFar: +2", "remaining: replaced"],
            "warnings": ["a corrupt copy was set aside"],
        }));
        assert_eq!(
            a.text,
            "Goal g1 (active).\nChanges: doneSoFar: +2, remaining: replaced\nWarnings:\n- a corrupt copy was set aside"
        );
        assert!(!a.refused);
    }

    #[test]
    fn the_board_answers_with_its_text() {
        let a = answer(&json!({"text": "Board: 2 items", "warnings": []}));
        assert_eq!(a.text, "Board: 2 items");
    }

    #[test]
    fn the_summary_comes_first_and_the_goal_last_without_its_recent_window() {
        let a = answer(&json!({
            "goal": {"id": "g1", "toolHistory": {"total": 7, "recent": [{"tool": "bash"}]}},
            "closed": false,
            "unmet": [{"field": "validationProof", "message": "no proof"}],
            "summary": "Completion refused.",
            "warnings": [],
        }));
        assert_eq!(keys(&a), ["summary", "unmet", "closed", "warnings", "goal"]);
        assert_eq!(
            a.structured[4].1,
            json!({"id": "g1", "toolHistory": {"total": 7}})
        );
        assert!(a.refused, "a refused completion is an error for the model");
    }

    #[test]
    fn only_a_close_that_did_not_close_is_refused() {
        assert!(!answer(&json!({"closed": true, "summary": "Closed."})).refused);
        assert!(!answer(&json!({"summary": "Goal g1 (active)."})).refused);
        assert!(!answer(&json!(null)).refused);
    }

    #[test]
    fn the_output_schema_leaves_out_what_answers_leave_out() {
        let schema = crate::schema::output_schema();
        for (parent, field) in HIDDEN {
            let part = &schema["properties"]["goal"]["properties"][parent];
            assert!(part.is_object(), "{parent} is in the schema");
            assert!(part["properties"].get(field).is_none(), "{parent}.{field}");
        }
    }
}
