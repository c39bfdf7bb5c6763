//! Property tests (proptest, a few hundred cases, a few seconds): any JSON
//! loads as a goal or is refused cleanly, a loaded goal written back reads
//! back the same, merging an update twice changes nothing the second time,
//! and a hook answers valid JSON to any bytes.

use goal_core::hooks::Host;
use goal_core::payload::run_bytes_with;
use goal_core::record::{DURABLE_LISTS, QUEUES};
use goal_core::store::StoreConfig;
use goal_core::update::apply_update;
use goal_core::{Goal, Status};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        // Short binary fractions: serde_json (without float_roundtrip) may
        // read long floats back one ULP off, which is not the store's doing.
        any::<i32>().prop_map(|n| json!(f64::from(n) / 4.0)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z]{1,8}", inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// The record's own field names (and the legacy system's), so that random
/// values land on fields that matter, not only on unknown ones.
const FIELDS: [&str; 16] = [
    "objective",
    "completionStatus",
    "closedAt",
    "issueResolutions",
    "history",
    "toolHistory",
    "createdAt",
    "updatedAt",
    "revision",
    "generation",
    "source",
    "budget",
    "stopGuard",
    "doneSoFar",
    "remaining",
    "sourcePromptHash",
];

/// A record with valid required fields and random values in other fields.
fn record_like() -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(&FIELDS[..]), any_json()), 0..8).prop_map(
        |fields| {
            let mut obj = Map::new();
            obj.insert("version".into(), json!(3));
            obj.insert("id".into(), json!("goal-prop"));
            obj.insert("sessionId".into(), json!("s-prop"));
            obj.insert("cwd".into(), json!("/work/prop"));
            for (name, value) in fields {
                obj.insert(name.to_string(), value);
            }
            Value::Object(obj)
        },
    )
}

/// A case the property found: an unreadable `source` beside the legacy
/// `sourcePromptHash` (the hash used to stay unmapped, then mapped on the
/// second load).
#[test]
fn an_unreadable_source_beside_a_legacy_hash_reads_back_the_same() {
    let value = json!({
        "version": 3, "id": "goal-prop", "sessionId": "s-prop", "cwd": "/work/prop",
        "source": false, "sourcePromptHash": "",
    });
    let goal = Goal::from_stored(&serde_json::to_vec(&value).unwrap()).unwrap();
    let written = serde_json::to_vec(&goal).unwrap();
    let again = Goal::from_stored(&written).unwrap();
    assert_eq!(again, goal);
    assert_eq!(goal.extra.get("legacySource"), Some(&json!(false)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_json_loads_or_is_refused_cleanly(value in any_json()) {
        let bytes = serde_json::to_vec(&value).unwrap();
        let _ = Goal::from_stored(&bytes);
    }

    #[test]
    fn a_loaded_record_written_back_reads_back_the_same(value in record_like()) {
        let bytes = serde_json::to_vec(&value).unwrap();
        // Required fields are valid, so whatever the optional ones hold, it loads.
        let goal = Goal::from_stored(&bytes).map_err(TestCaseError::fail)?;
        let written = serde_json::to_vec(&goal).unwrap();
        let again = Goal::from_stored(&written).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&again, &goal);
        prop_assert_eq!(serde_json::to_vec(&again).unwrap(), written);
    }

    #[test]
    fn merging_an_update_twice_changes_nothing_the_second_time(
        lists in prop::collection::vec(
            (prop::sample::select(&DURABLE_LISTS[..]), prop::collection::vec("[a-c ]{1,6}", 0..6)),
            0..4,
        ),
        queue in prop::collection::vec("[a-c ]{1,6}", 0..6),
    ) {
        let mut update = Map::new();
        for (name, items) in lists {
            if name != "resolvedIssues" {
                update.insert(name.to_string(), json!(items));
            }
        }
        update.insert(QUEUES[0].to_string(), json!(queue));
        let update = Value::Object(update);
        let mut goal = Goal::new("g".into(), "s".into(), "/w".into(), "o".into(), Status::Active, "t".into());
        // Blank items are refused, whole; a refused update must leave the goal as it was.
        let before = goal.clone();
        match apply_update(&mut goal, &update) {
            Err(_) => prop_assert_eq!(&goal, &before),
            Ok(_) => {
                let once = goal.clone();
                let applied = apply_update(&mut goal, &update).map_err(|e| TestCaseError::fail(e.message))?;
                prop_assert!(applied.is_empty(), "{:?}", applied.changes);
                prop_assert_eq!(&goal, &once);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_hook_answers_valid_json_to_any_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        host in prop::sample::select(vec![Host::CopilotCli, Host::VsCode, Host::Claude]),
        event in prop::sample::select(vec!["preToolUse", "postToolUse", "agentStop", "Stop", "UserPromptSubmit", "", "nonsense"]),
    ) {
        let dir = std::env::temp_dir().join(format!("goal-prop-hook-{}", std::process::id()));
        let config = StoreConfig::new(&dir, dir.join("goal-system"));
        let out = run_bytes_with(host, event, &bytes, Ok(config));
        prop_assert_eq!(out.exit_code, 0);
        prop_assert!(serde_json::from_str::<Value>(&out.stdout).is_ok(), "{}", out.stdout);
    }

    #[test]
    fn a_hook_answers_valid_json_to_any_json_shaped_payload(
        value in any_json(),
        session in prop::sample::select(vec!["s-1", "", "../x", "a b"]),
        host in prop::sample::select(vec![Host::CopilotCli, Host::VsCode, Host::Claude]),
        event in prop::sample::select(vec!["preToolUse", "postToolUse", "agentStop", "Stop", "userPromptSubmitted"]),
    ) {
        let dir = std::env::temp_dir().join(format!("goal-prop-hook-json-{}", std::process::id()));
        let config = StoreConfig::new(&dir, dir.join("goal-system"));
        let mut payload = json!({"sessionId": session, "session_id": session, "cwd": "/work/prop"});
        if let Value::Object(extra) = &value {
            for (k, v) in extra {
                payload[k] = v.clone();
            }
        }
        payload["toolArgs"] = value.clone();
        payload["prompt"] = value;
        let bytes = serde_json::to_vec(&payload).unwrap();
        let out = run_bytes_with(host, event, &bytes, Ok(config));
        prop_assert_eq!(out.exit_code, 0);
        prop_assert!(serde_json::from_str::<Value>(&out.stdout).is_ok(), "{}", out.stdout);
    }
}
