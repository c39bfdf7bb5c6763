//! Records written by the earlier JavaScript goal system (version 3) load
//! without loss: its issue resolutions, its tool history and every older
//! field shape are mapped, and no such record is quarantined. The legacy
//! records are built here, field by field, as that system wrote them.

use goal_core::gate;
use goal_core::record::ResolutionStatus;
use goal_core::store::{Change, Store, StoreConfig};
use goal_core::Goal;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

mod common;
use common::{temp_dir, TempDir};

const CWD: &str = "/work/legacy";
const SESSION: &str = "legacy-session";

fn store_in(dir: &TempDir) -> Store {
    let session_state = dir.0.join("session-state");
    Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ))
}

fn history(kind: &str, note: &str, minute: u32) -> Value {
    json!({"at": format!("2026-03-01T10:{minute:02}:00.000Z"), "type": kind, "note": note})
}

/// A record as the legacy system's createGoalRecord and mergeGoal left it.
fn legacy_record() -> Value {
    json!({
        "version": 3,
        "id": "6f1c2a9e-0b7d-4c55-9a41-2f8e3d7c1b00",
        "sessionId": SESSION,
        "cwd": CWD,
        "createdAt": "2026-03-01T10:00:00.000Z",
        "updatedAt": "2026-03-01T10:30:00.000Z",
        "sourcePromptHash": "ab".repeat(32),
        "sourcePromptPreview": "/goal fix the login flow",
        "objective": "fix the login flow",
        "requirements": ["login works with an empty password field"],
        "scope": ["src/auth"], "mustNotRegress": [], "constraints": [],
        "currentEnvironment": [], "requiredTools": [], "validationProof": ["npm test"],
        "verificationResults": ["42 tests pass"], "requirementCoverage": [],
        "inspectionEvidence": [],
        "discoveredIssues": ["Login fails on empty password", "Crash on logout"],
        "resolvedIssues": [],
        "issueResolutions": [{
            "covers": ["Login fails on empty password", "Crash on logout"],
            "status": "merged",
            "target": "Auth handler errors",
            "resolution": "Both came from one unchecked null in the auth handler",
            "evidence": ["npm test: 42 passing", "manual login with empty password"]
        }],
        "doneSoFar": ["fixed the handler"],
        "remaining": [], "blockers": [], "completionAudit": [],
        "completionStatus": "active",
        "history": [
            history("open", "Goal opened", 0),
            history("tool", "view: src/auth/handler.js", 1),
            history("tool", "edit: src/auth/handler.js", 2),
            history("tool", "bash: npm test", 3),
            history("tool", "goal_system_update", 4),
            history("update", "Goal state updated", 5),
            history("tool", "bash: ls src", 6),
        ]
    })
}

fn plant(path: &Path, record: &Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_vec_pretty(record).unwrap()).unwrap();
}

fn load(store: &Store) -> Goal {
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    loaded.goal.expect("the legacy goal loads")
}

#[test]
fn a_legacy_record_loads_with_its_resolutions_mapped_and_its_history_as_tool_activity() {
    let dir = temp_dir("full");
    let store = store_in(&dir);
    plant(&store.by_session_path(SESSION), &legacy_record());
    plant(&store.session_local_path(SESSION), &legacy_record());

    let goal = load(&store);
    assert_eq!(goal.id, "6f1c2a9e-0b7d-4c55-9a41-2f8e3d7c1b00");
    assert!(goal.is_open());

    // covers -> one entry per issue; target -> into; resolution and evidence joined.
    let issues: Vec<&str> = goal
        .issue_resolutions
        .iter()
        .map(|r| r.issue.as_str())
        .collect();
    assert_eq!(issues, ["Login fails on empty password", "Crash on logout"]);
    for r in &goal.issue_resolutions {
        assert_eq!(r.status, ResolutionStatus::Merged);
        assert_eq!(r.into.as_deref(), Some("Auth handler errors"));
        for part in [
            "one unchecked null in the auth handler",
            "npm test: 42 passing",
            "manual login with empty password",
        ] {
            assert!(r.evidence.contains(part), "{part:?} in {:?}", r.evidence);
        }
    }
    assert!(gate::unresolved_issues(&goal).is_empty());

    // history -> tool activity: goal tools do not count; drift since the last update.
    let h = &goal.tool_history;
    assert_eq!(
        (h.inspections, h.actions, h.verifications),
        (2, 1, 1),
        "{h:?}"
    );
    assert_eq!(h.seq, 4);
    assert_eq!(goal.drift(), 1);
    assert_eq!(h.recent.len(), 4);
    // Activity, not proof: the earlier system never recorded whether its test
    // runs passed, so closing still needs a passing verification recorded here.
    let tool_gate: Vec<_> = gate::check(&goal)
        .into_iter()
        .filter(|u| u.field == "toolHistory")
        .collect();
    assert_eq!(tool_gate.len(), 1, "{tool_gate:?}");
    assert!(
        tool_gate[0].message.contains("verif"),
        "{}",
        tool_gate[0].message
    );

    // Its prompt fingerprint becomes the source; its history is kept as it was.
    let source = goal.source.as_ref().unwrap();
    assert_eq!(source.hash, format!("sha256:{}", "ab".repeat(32)));
    assert_eq!(source.preview, "/goal fix the login flow");
    assert_eq!(goal.extra["history"], legacy_record()["history"]);

    // It is found by show and list, not set aside.
    assert_eq!(store.find(SESSION).unwrap().unwrap().id, goal.id);
    assert_eq!(store.find(&goal.id).unwrap().unwrap().id, goal.id);
    assert_eq!(store.list_all().unwrap().len(), 1);
    let names: Vec<String> = fs::read_dir(store.by_session_path(SESSION).parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("corrupt")), "{names:?}");
}

#[test]
fn a_mapped_legacy_record_survives_a_write_and_reads_back_the_same() {
    let dir = temp_dir("roundtrip");
    let store = store_in(&dir);
    plant(&store.by_session_path(SESSION), &legacy_record());
    let first = load(&store);
    store
        .modify(SESSION, Some(CWD), |current, _| {
            let mut g = current.unwrap();
            g.done_so_far.push("wrote it back".into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    let again = load(&store);
    assert_eq!(again.issue_resolutions, first.issue_resolutions);
    assert_eq!(again.tool_history, first.tool_history);
    assert_eq!(again.extra["history"], legacy_record()["history"]);
    assert_eq!(again.done_so_far.last().unwrap(), "wrote it back");
    // Written in our shape, it now takes the strict path and needs no mapping.
    let raw: Value =
        serde_json::from_slice(&fs::read(store.by_session_path(SESSION)).unwrap()).unwrap();
    assert!(raw["issueResolutions"][0]["issue"].is_string());
    assert!(raw["toolHistory"]["seq"].is_u64());
}

#[test]
fn older_shapes_of_optional_fields_never_quarantine_a_record() {
    let dir = temp_dir("shapes");
    let store = store_in(&dir);
    let mut record = legacy_record();
    let odd = record.as_object_mut().unwrap();
    odd.insert("closedAt".into(), json!(""));
    odd.insert("completionStatus".into(), json!("Active"));
    odd.insert("scope".into(), json!("src/auth"));
    odd.insert("constraints".into(), Value::Null);
    odd.insert(
        "doneSoFar".into(),
        json!(["fixed the handler", 7, null, {"step": 2}]),
    );
    odd.insert("createdAt".into(), json!(1_772_359_200_000u64));
    odd.insert("toolHistory".into(), json!("not a history"));
    odd.insert("budget".into(), json!("lots"));
    odd.insert(
        "issueResolutions".into(),
        json!([
            {"covers": "Crash on logout", "evidence": "reproduced, then fixed"},
            {"covers": ["Login fails on empty password"], "status": "wontfix", "evidence": []},
            {"resolution": "no issue named here"},
            "a bare string",
            {"issue": "Crash on logout", "status": "resolved", "evidence": "our own shape"}
        ]),
    );
    plant(&store.by_session_path(SESSION), &record);

    let goal = load(&store);
    assert!(goal.is_open(), "an empty closedAt is not a close");
    assert_eq!(goal.scope, ["src/auth"]);
    assert!(goal.constraints.is_empty());
    assert_eq!(goal.done_so_far, ["fixed the handler", "7", "{\"step\":2}"]);
    assert_eq!(goal.created_at, "2026-03-01T10:00:00.000Z");
    assert_eq!(goal.extra["legacyToolHistory"], json!("not a history"));
    assert_eq!(goal.extra["legacyBudget"], json!("lots"));
    assert_eq!(
        goal.tool_history.seq, 4,
        "the history counts once the odd toolHistory is set aside"
    );
    // The two entries that map are ours; the three that cannot are kept aside.
    let mapped: Vec<(&str, &str)> = goal
        .issue_resolutions
        .iter()
        .map(|r| (r.issue.as_str(), r.evidence.as_str()))
        .collect();
    assert_eq!(
        mapped,
        [
            ("Crash on logout", "reproduced, then fixed"),
            ("Crash on logout", "our own shape")
        ]
    );
    assert_eq!(goal.issue_resolutions[0].status, ResolutionStatus::Resolved);
    let kept = goal.extra["legacyIssueResolutions"].as_array().unwrap();
    assert_eq!(kept.len(), 3);
    assert_eq!(kept[0]["status"], "wontfix");
    assert_eq!(
        gate::unresolved_issues(&goal),
        ["Login fails on empty password"]
    );
}

#[test]
fn an_unreadable_status_is_kept_and_the_goal_waits_for_the_user() {
    for odd in [json!("finished"), json!(false), json!({"s": 1})] {
        let mut record = legacy_record();
        record["completionStatus"] = odd.clone();
        let goal = Goal::from_stored(&serde_json::to_vec(&record).unwrap()).unwrap();
        assert_eq!(goal.completion_status, goal_core::Status::Blocked, "{odd}");
        assert!(goal.is_open() && !goal.is_working(), "{odd}");
        assert_eq!(goal.extra["legacyCompletionStatus"], odd);
        assert!(goal.status_reason.unwrap().contains("completionStatus"));
    }
}

#[test]
fn a_record_without_its_required_fields_is_still_refused() {
    for bad in [
        json!([1, 2]),
        json!("goal"),
        json!({"version": 3, "sessionId": SESSION, "cwd": CWD}),
        json!({"version": "three", "id": "g", "sessionId": SESSION, "cwd": CWD}),
    ] {
        let bytes = serde_json::to_vec(&bad).unwrap();
        assert!(Goal::from_stored(&bytes).is_err(), "{bad}");
    }
}
