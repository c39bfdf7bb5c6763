//! A goal record edited outside the goal system (a status set to complete by
//! hand, a seal stripped, a journal line changed, the key deleted) is
//! detected, set aside, reported, never releases a stop, and the goal
//! system's own state is restored; when nothing verifies, the goal is kept
//! open without the evidence an edit could have forged.

use goal_core::authority::Role;
use goal_core::goals::{self, Caller};
use goal_core::hooks::{run_with, Host};
use goal_core::store::{Change, Store, StoreConfig};
use goal_core::{Goal, Status};
use serde_json::json;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

mod common;
use common::{temp_dir, TempDir};

const CWD: &str = "/work/integrity";
const SESSION: &str = "integrity-session";

fn config(dir: &TempDir) -> StoreConfig {
    let session_state = dir.0.join("session-state");
    StoreConfig::new(&session_state, session_state.join("goal-system"))
}

/// A store holding the user's freshly opened goal (active: it holds stops).
fn store_with_open_goal(dir: &TempDir) -> Store {
    let store = Store::new(config(dir));
    let user = Caller::new(SESSION, CWD).with_role(Role::User);
    goals::open(&store, &user, &json!({"objective": "ship the login fix"})).unwrap();
    store
}

/// What `sed -i 's/"completionStatus": "active"/.../'` does to a copy: the
/// status and closedAt rewritten in place, nothing else touched.
fn mark_complete_by_hand(path: &Path) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains("\"completionStatus\": \"active\""), "{text}");
    let edited = text
        .replace(
            "\"completionStatus\": \"active\"",
            "\"completionStatus\": \"complete\"",
        )
        .replace(
            "\"closedAt\": null",
            "\"closedAt\": \"2026-11-24T08:00:00.000Z\"",
        );
    fs::write(path, edited).unwrap();
}

fn all_copies(store: &Store) -> [PathBuf; 3] {
    [
        store.by_session_path(SESSION),
        store.session_local_path(SESSION),
        store.by_cwd_path(CWD, SESSION),
    ]
}

/// The same edit made to the durable slots with a text editor: it breaks
/// their checksum, so they are no copy any more (the journal still is).
fn edit_slots_by_hand(store: &Store) {
    for slot in store.slot_paths(SESSION) {
        if let Ok(bytes) = fs::read(&slot) {
            let text = String::from_utf8_lossy(&bytes).replace("\"active\"", "\"complete\"");
            assert_ne!(text.as_bytes(), &bytes[..], "the slot holds the goal");
            fs::write(&slot, text).unwrap();
        }
    }
}

fn set_aside_in(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tampered-"))
        .collect()
}

fn agent_stop(dir: &TempDir) -> goal_core::hooks::HookOutput {
    let payload = json!({"sessionId": SESSION, "cwd": CWD, "stopReason": "end_turn"});
    run_with(
        Host::CopilotCli,
        "agentStop",
        &payload.to_string(),
        Ok(config(dir)),
    )
}

fn status_on_disk(path: &Path) -> Status {
    let goal: Goal = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    goal.completion_status
}

#[test]
fn a_copy_edited_to_complete_is_set_aside_and_the_stop_stays_blocked() {
    let dir = temp_dir("one");
    let store = store_with_open_goal(&dir);
    let by_session = store.by_session_path(SESSION);
    mark_complete_by_hand(&by_session);

    let out = agent_stop(&dir);
    let stdout: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stdout["decision"], "block", "{}", out.stdout);
    let told = stdout["systemMessage"].as_str().unwrap_or_default();
    assert!(told.contains("edited outside the goal system"), "{told}");
    assert!(
        out.stderr.contains("changed outside the goal system"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("restored from"), "{}", out.stderr);

    // The edit is kept aside, and the goal is still open and active.
    assert_eq!(set_aside_in(by_session.parent().unwrap()).len(), 1);
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    let goal = loaded.goal.unwrap();
    assert!(goal.is_working(), "{:?}", goal.completion_status);
    assert!(goal.closed_at.is_none());
    // The stop hook wrote the goal (a blocked stop is counted): every copy is
    // the goal system's again, the by-session one included.
    assert_eq!(status_on_disk(&by_session), Status::Active);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
}

#[test]
fn a_tampered_copy_is_restored_by_the_next_write() {
    let dir = temp_dir("rewrite");
    let store = store_with_open_goal(&dir);
    let local = store.session_local_path(SESSION);
    mark_complete_by_hand(&local);
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    assert!(loaded.goal.unwrap().is_working());
    assert!(!local.exists(), "the edited copy was set aside");
    store
        .modify(SESSION, Some(CWD), |g, _| {
            let mut g = g.unwrap();
            g.done_so_far.push("a step".into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    assert_eq!(status_on_disk(&local), Status::Active);
}

#[test]
fn all_three_copies_edited_are_restored_from_the_journal() {
    let dir = temp_dir("three");
    let store = store_with_open_goal(&dir);
    for path in all_copies(&store) {
        mark_complete_by_hand(&path);
    }
    edit_slots_by_hand(&store);
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    let goal = loaded.goal.expect("restored");
    assert_eq!(goal.completion_status, Status::Active);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("restored from its journal")),
        "{:?}",
        loaded.warnings
    );
    let out = agent_stop(&dir);
    assert!(
        out.stdout.contains("\"decision\":\"block\""),
        "{}",
        out.stdout
    );
    for path in all_copies(&store) {
        assert_eq!(status_on_disk(&path), Status::Active, "{}", path.display());
    }
}

#[test]
fn every_copy_removed_by_hand_is_restored_and_the_stop_stays_blocked() {
    let dir = temp_dir("removed");
    let store = store_with_open_goal(&dir);
    for path in all_copies(&store) {
        fs::remove_file(&path).unwrap();
    }
    // The durable slots too (one written so far).
    let slots = store.slot_paths(SESSION);
    let removed = slots.iter().filter(|p| fs::remove_file(p).is_ok());
    assert_eq!(removed.count(), 1);
    let out = agent_stop(&dir);
    assert!(
        out.stdout.contains("\"decision\":\"block\""),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("edited outside the goal system"),
        "{}",
        out.stdout
    );
    for path in all_copies(&store) {
        assert_eq!(status_on_disk(&path), Status::Active, "{}", path.display());
    }
}

#[test]
fn a_stripped_seal_with_a_changed_status_is_tampering_when_the_journal_knows_the_goal() {
    let dir = temp_dir("stripped");
    let store = store_with_open_goal(&dir);
    let by_session = store.by_session_path(SESSION);
    let mut record: serde_json::Value =
        serde_json::from_slice(&fs::read(&by_session).unwrap()).unwrap();
    assert!(record.as_object_mut().unwrap().remove("seal").is_some());
    record["completionStatus"] = json!("complete");
    record["closedAt"] = json!("2026-11-24T08:00:00.000Z");
    fs::write(&by_session, serde_json::to_vec_pretty(&record).unwrap()).unwrap();

    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    assert!(loaded.goal.unwrap().is_working());
    assert_eq!(set_aside_in(by_session.parent().unwrap()).len(), 1);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("changed outside the goal system")),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn a_legacy_record_without_a_seal_loads_and_is_sealed_by_the_next_write() {
    let dir = temp_dir("legacy");
    let store = Store::new(config(&dir));
    // Written by the earlier system: no seal, and no journal knows it.
    let legacy = json!({
        "version": 3, "id": "legacy-goal", "sessionId": SESSION, "cwd": CWD,
        "objective": "an old goal", "completionStatus": "active",
        "createdAt": "2026-03-01T10:00:00.000Z", "updatedAt": "2026-03-01T10:30:00.000Z"
    });
    let path = store.by_session_path(SESSION);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, serde_json::to_vec_pretty(&legacy).unwrap()).unwrap();
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    assert_eq!(loaded.goal.unwrap().id, "legacy-goal");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);

    store
        .modify(SESSION, Some(CWD), |g, _| {
            Ok((Change::Save(g.unwrap()), ()))
        })
        .unwrap();
    let sealed: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert!(sealed["seal"].is_string(), "{sealed}");
    // From now on the journal knows it: stripping the seal again is tampering.
    let mut stripped = sealed.clone();
    stripped.as_object_mut().unwrap().remove("seal");
    fs::write(&path, serde_json::to_vec_pretty(&stripped).unwrap()).unwrap();
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("changed outside the goal system")),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn the_integrity_key_is_private_and_kept_across_writes() {
    let dir = temp_dir("key");
    let store = store_with_open_goal(&dir);
    let key = store.config.root.join("integrity.key");
    let meta = fs::symlink_metadata(&key).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let text = fs::read_to_string(&key).unwrap();
    assert_eq!(text.trim().len(), 64);
    assert!(text.trim().bytes().all(|b| b.is_ascii_hexdigit()));
    store
        .modify(SESSION, Some(CWD), |g, _| {
            Ok((Change::Save(g.unwrap()), ()))
        })
        .unwrap();
    assert_eq!(fs::read_to_string(&key).unwrap(), text, "never replaced");
}

#[test]
fn an_edited_journal_line_with_every_copy_edited_keeps_the_goal_open() {
    let dir = temp_dir("journal");
    let store = store_with_open_goal(&dir);
    let journal = store.journal_path(SESSION);
    let text = fs::read_to_string(&journal).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    // The journal's own record changed to complete, and every copy too.
    fs::write(&journal, text.replace("\"active\"", "\"complete\"")).unwrap();
    for path in all_copies(&store) {
        mark_complete_by_hand(&path);
    }
    edit_slots_by_hand(&store);
    let out = agent_stop(&dir);
    let stdout: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stdout["decision"], "block", "{}", out.stdout);
    let told = stdout["systemMessage"].as_str().unwrap_or_default();
    assert!(told.contains("no verified copy was left"), "{told}");
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    let goal = loaded.goal.expect("kept, not lost");
    assert_eq!(goal.completion_status, Status::Active);
    assert_eq!(goal.closed_at, None);
}

/// Tool activity on the record, as the hooks count it.
fn real_activity(store: &Store) {
    let mut g = store.load(SESSION, Some(CWD)).unwrap().goal.unwrap();
    g.tool_history.actions = 3;
    g.tool_history.verifications = 2;
    g.tool_history.inspections = 4;
    g.tool_history.seq = 9;
    store.save(&g).unwrap();
}

#[test]
fn a_deleted_integrity_key_neither_loses_the_goal_nor_releases_the_stop() {
    let dir = temp_dir("key-deleted");
    let store = store_with_open_goal(&dir);
    fs::remove_file(store.config.root.join("integrity.key")).unwrap();

    let out = agent_stop(&dir);
    let stdout: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stdout["decision"], "block", "{}", out.stdout);
    let loaded = store.load(SESSION, Some(CWD)).unwrap();
    let goal = loaded.goal.expect("the goal is kept");
    assert_eq!(goal.objective, "ship the login fix");
    assert!(goal.is_working());
    // Sealed again under a fresh key: the next read verifies without a report.
    assert!(store.config.root.join("integrity.key").exists());
    let again = store.load(SESSION, Some(CWD)).unwrap();
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
}

#[test]
fn a_deleted_key_and_copies_edited_to_complete_reopen_the_goal_without_its_evidence() {
    let dir = temp_dir("key-and-copies");
    let store = store_with_open_goal(&dir);
    real_activity(&store);
    for path in all_copies(&store) {
        mark_complete_by_hand(&path);
    }
    fs::remove_file(store.config.root.join("integrity.key")).unwrap();

    let out = agent_stop(&dir);
    let stdout: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(stdout["decision"], "block", "{}", out.stdout);
    let goal = store.load(SESSION, Some(CWD)).unwrap().goal.unwrap();
    assert_eq!(goal.completion_status, Status::Active);
    assert_eq!(goal.closed_at, None);
    assert_eq!(
        goal.tool_history,
        Default::default(),
        "evidence from an unverifiable copy is not believed"
    );
    assert!(goal
        .status_reason
        .unwrap_or_default()
        .contains("could not be verified"));
}

#[test]
fn the_journal_records_transitions_not_routine_writes() {
    let dir = temp_dir("transitions");
    let store = store_with_open_goal(&dir);
    for _ in 0..3 {
        store
            .modify(SESSION, Some(CWD), |g, _| {
                let mut g = g.unwrap();
                g.done_so_far.push("a step".into());
                Ok((Change::Save(g), ()))
            })
            .unwrap();
    }
    store
        .modify(SESSION, Some(CWD), |g, _| {
            let mut g = g.unwrap();
            g.completion_status = Status::Blocked;
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    let text = fs::read_to_string(store.journal_path(SESSION)).unwrap();
    let ops: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["op"].to_string())
        .collect();
    assert_eq!(ops, ["\"open\"", "\"status\""]);
}

/// An edit of every copy as a script would make it: one JSON field of the
/// record set by hand (the seal left as it was).
fn edit_by_hand(path: &Path, pointer: &str, value: serde_json::Value) {
    let mut record: serde_json::Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let (parent, field) = pointer.rsplit_once('/').expect("a field");
    record
        .pointer_mut(parent)
        .and_then(serde_json::Value::as_object_mut)
        .expect(parent)
        .insert(field.to_string(), value);
    fs::write(path, serde_json::to_vec_pretty(&record).unwrap()).unwrap();
}

fn decision(out: &goal_core::hooks::HookOutput) -> serde_json::Value {
    let stdout: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    stdout["decision"].clone()
}

#[test]
fn a_deleted_key_and_a_loop_guard_edited_to_its_limit_do_not_release_the_next_stop() {
    let dir = temp_dir("key-and-guard");
    let store = store_with_open_goal(&dir);
    for path in all_copies(&store) {
        edit_by_hand(
            &path,
            "/stopGuard/blockedStops",
            json!(goals::MAX_BLOCKED_STOPS),
        );
        edit_by_hand(&path, "/stopGuard/seqAtLastBlock", json!(0));
        edit_by_hand(
            &path,
            "/stopGuard/sincePrompt",
            json!(goals::MAX_STOPS_PER_PROMPT),
        );
    }
    fs::remove_file(store.config.root.join("integrity.key")).unwrap();

    let out = agent_stop(&dir);
    assert_eq!(decision(&out), "block", "{}", out.stdout);
    let goal = store.load(SESSION, Some(CWD)).unwrap().goal.unwrap();
    assert!(goal.is_working(), "{:?}", goal.completion_status);
}

#[test]
fn a_deleted_key_and_a_budget_edited_to_be_spent_do_not_release_the_stop() {
    let dir = temp_dir("key-and-budget");
    let store = store_with_open_goal(&dir);
    for path in all_copies(&store) {
        edit_by_hand(&path, "/budget/timeBudgetSeconds", json!(1));
        edit_by_hand(&path, "/budget/timeUsedMs", json!(3_600_000));
    }
    fs::remove_file(store.config.root.join("integrity.key")).unwrap();

    for attempt in 1..=2 {
        let out = agent_stop(&dir);
        assert_eq!(decision(&out), "block", "stop {attempt}: {}", out.stdout);
    }
    let goal = store.load(SESSION, Some(CWD)).unwrap().goal.unwrap();
    assert!(goal.is_working(), "{:?}", goal.completion_status);
}
