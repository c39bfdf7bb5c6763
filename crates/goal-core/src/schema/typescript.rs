//! The TypeScript declarations (`types/goal.d.ts`) of the schema bundle:
//! each `$defs` entry becomes an interface or a type alias. Used by the
//! generator (`npm run gen`) and the test that keeps the committed file fresh.

use serde_json::{json, Value};

use super::bundle;

/// A JSON Schema (as the bundle writes it) as a TypeScript type expression.
fn ts_type(s: &Value, indent: usize) -> String {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap_or("unknown").to_string();
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" | ");
    }
    if let Some(c) = s.get("const") {
        return c.to_string();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(items) = s.get(key).and_then(Value::as_array) {
            return items
                .iter()
                .map(|i| ts_type(i, indent))
                .collect::<Vec<_>>()
                .join(" | ");
        }
    }
    match s.get("type") {
        Some(Value::Array(types)) => types
            .iter()
            .map(|t| {
                let mut one = s.clone();
                one["type"] = t.clone();
                ts_type(&one, indent)
            })
            .collect::<Vec<_>>()
            .join(" | "),
        Some(Value::String(t)) => match t.as_str() {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => match s.get("items") {
                Some(Value::Array(tuple)) => {
                    format!(
                        "[{}]",
                        tuple
                            .iter()
                            .map(|i| ts_type(i, indent))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
                Some(items) if items.get("prefixItems").is_none() => {
                    let inner = ts_type(items, indent);
                    if inner.contains(' ') {
                        format!("Array<{inner}>")
                    } else {
                        format!("{inner}[]")
                    }
                }
                _ => match s.get("prefixItems").and_then(Value::as_array) {
                    Some(tuple) => format!(
                        "[{}]",
                        tuple
                            .iter()
                            .map(|i| ts_type(i, indent))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    None => "unknown[]".into(),
                },
            },
            "object" => ts_object(s, indent),
            _ => "unknown".into(),
        },
        _ => match s.get("prefixItems").and_then(Value::as_array) {
            Some(tuple) => format!(
                "[{}]",
                tuple
                    .iter()
                    .map(|i| ts_type(i, indent))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "unknown".into(),
        },
    }
}

fn ts_doc(desc: Option<&str>, pad: &str) -> String {
    match desc {
        Some(d) if !d.is_empty() => {
            let lines: Vec<&str> = d.lines().collect();
            if lines.len() == 1 {
                format!("{pad}/** {} */\n", lines[0].replace("*/", "*\\/"))
            } else {
                let body: String = lines
                    .iter()
                    .map(|l| format!("{pad} * {}\n", l.replace("*/", "*\\/")))
                    .collect();
                format!("{pad}/**\n{body}{pad} */\n")
            }
        }
        _ => String::new(),
    }
}

fn ts_object(s: &Value, indent: usize) -> String {
    let props = s.get("properties").and_then(Value::as_object);
    let Some(props) = props.filter(|p| !p.is_empty()) else {
        return "Record<string, unknown>".into();
    };
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let pad = "  ".repeat(indent + 1);
    let mut out = String::from("{\n");
    for (name, prop) in props {
        out.push_str(&ts_doc(
            prop.get("description").and_then(Value::as_str),
            &pad,
        ));
        let optional = if required.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        out.push_str(&format!(
            "{pad}{name}{optional}: {}\n",
            ts_type(prop, indent + 1)
        ));
    }
    if let Some(extra) = s
        .get("additionalProperties")
        .filter(|a| *a != &json!(false))
    {
        let doc = extra
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("Fields a newer or older version wrote, kept verbatim.");
        out.push_str(&ts_doc(Some(doc), &pad));
        out.push_str(&format!("{pad}[key: string]: unknown\n"));
    }
    out.push_str(&format!("{}}}", "  ".repeat(indent)));
    out
}

/// `types/goal.d.ts`: every type of the bundle as a TypeScript declaration.
pub fn typescript() -> String {
    let bundle = bundle();
    let mut out = String::from(
        "// Generated from the Rust types by `npm run gen` (crates/goal-core/src/schema.rs). Do not edit.\n\n",
    );
    if let Some(defs) = bundle["$defs"].as_object() {
        for (name, schema) in defs {
            out.push_str(&ts_doc(
                schema.get("description").and_then(Value::as_str),
                "",
            ));
            let is_object =
                schema.get("type") == Some(&json!("object")) && schema.get("properties").is_some();
            if is_object {
                out.push_str(&format!(
                    "export interface {name} {}\n\n",
                    ts_object(schema, 0)
                ));
            } else {
                out.push_str(&format!("export type {name} = {}\n\n", ts_type(schema, 0)));
            }
        }
    }
    out
}
