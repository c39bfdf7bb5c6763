//! The JSON Schema of the goal record as the tools return it, derived from the
//! record itself: a new record is serialized and each field's JSON type read
//! off it, so the schema follows the Rust struct and is never re-listed by
//! hand. (The lead's generated request/record schemas replace this once they
//! land; the MCP server only needs `goal_json_schema`.)

use serde_json::{json, Map, Value};

use crate::record::{Goal, Status};

/// The schema of one serialized value: objects by their fields, lists by their
/// first item (any item when empty), `null` as "any" (an optional field whose
/// type a new record does not show). Further properties stay allowed.
fn schema_of(value: &Value) -> Value {
    match value {
        Value::Null => json!({}),
        Value::Bool(_) => json!({ "type": "boolean" }),
        Value::Number(_) => json!({ "type": "number" }),
        Value::String(_) => json!({ "type": "string" }),
        Value::Array(items) => match items.first() {
            Some(first) => json!({ "type": "array", "items": schema_of(first) }),
            None => json!({ "type": "array" }),
        },
        Value::Object(fields) => {
            let properties: Map<String, Value> = fields
                .iter()
                .map(|(k, v)| (k.clone(), schema_of(v)))
                .collect();
            // No `required`: a record may omit fields it has no value for
            // (older records, skipped empties), and a client validates results.
            json!({ "type": "object", "properties": properties })
        }
    }
}

/// The goal record's JSON Schema: every field a record carries, its type, and
/// the status values.
pub fn goal_json_schema() -> Value {
    let sample = Goal::new(
        "goal-0".into(),
        "session".into(),
        "/".into(),
        "objective".into(),
        Status::Draft,
        "1970-01-01T00:00:00.000Z".into(),
    );
    let mut schema = schema_of(&serde_json::to_value(&sample).unwrap_or(Value::Null));
    if let Some(status) = schema.pointer_mut("/properties/completionStatus") {
        *status = json!({
            "type": "string",
            "enum": Status::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        });
    }
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("title".into(), json!("Goal record (version 3)"));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_names_every_field_of_a_serialized_goal_with_its_type() {
        let schema = goal_json_schema();
        let props = schema["properties"].as_object().unwrap();
        let sample = serde_json::to_value(Goal::new(
            "g".into(),
            "s".into(),
            "/".into(),
            "o".into(),
            Status::Active,
            "t".into(),
        ))
        .unwrap();
        for key in sample.as_object().unwrap().keys() {
            assert!(props.contains_key(key), "{key} missing from the schema");
        }
        assert_eq!(props["objective"]["type"], "string");
        assert_eq!(props["doneSoFar"]["type"], "array");
        assert_eq!(
            props["completionStatus"]["enum"],
            json!([
                "draft",
                "active",
                "blocked",
                "paused",
                "budget_limited",
                "complete",
                "cancelled"
            ])
        );
    }
}
