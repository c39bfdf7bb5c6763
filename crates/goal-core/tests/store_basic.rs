//! Single-process behaviour of the durable store and of continuation.

use goal_core::clock::{iso_from_ms, now_iso};
use goal_core::continuation::{find_for_continuation, Continuation};
use goal_core::goals::adopt;
use goal_core::store::{cwd_hash, validate_cwd, validate_session_id, Change, Store, StoreConfig};
use goal_core::{ErrorCode, Goal, Status};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};

mod common;
use common::{temp_dir, TempDir};

// ---------------------------------------------------------------------------
// helpers

fn store_in(dir: &TempDir) -> Store {
    let session_state = dir.0.join("session-state");
    Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ))
}

fn goal_at(id: &str, session: &str, cwd: &str, ms: u64) -> Goal {
    Goal::new(
        id.into(),
        session.into(),
        cwd.into(),
        format!("objective of {id}"),
        Status::Active,
        iso_from_ms(ms),
    )
}

fn write_json(path: &Path, goal: &Goal) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_vec_pretty(goal).unwrap()).unwrap();
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

const CWD: &str = "/work/project";

// ---------------------------------------------------------------------------
// isolation and newest copy

#[test]
fn three_sessions_in_one_cwd_each_see_only_their_own_goal() {
    let dir = temp_dir("isolation");
    let store = store_in(&dir);
    for (i, s) in ["s-a", "s-b", "s-c"].iter().enumerate() {
        store
            .save(&goal_at(&format!("goal-{i}"), s, CWD, 1_000 + i as u64))
            .unwrap();
    }
    for (i, s) in ["s-a", "s-b", "s-c"].iter().enumerate() {
        let loaded = store.load(s, Some(CWD)).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let goal = loaded.goal.expect("own goal");
        assert_eq!(goal.id, format!("goal-{i}"));
        assert_eq!(goal.session_id, *s);
        // Also without the cwd (scans by-cwd-session for this session only).
        assert_eq!(store.load(s, None).unwrap().goal.unwrap().id, goal.id);
    }
    assert!(store.load("s-d", Some(CWD)).unwrap().goal.is_none());
    // All three are in the cwd index.
    assert_eq!(store.goals_in_cwd(CWD).unwrap().len(), 3);
    // A copy of another session's goal dropped into this session's file is not adopted.
    let foreign = goal_at("goal-x", "s-b", CWD, 9_000);
    write_json(&store.session_local_path("s-a"), &foreign);
    let loaded = store.load("s-a", Some(CWD)).unwrap();
    assert_eq!(loaded.goal.unwrap().id, "goal-0");
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
}

#[test]
fn newest_copy_wins_whichever_place_it_is_in() {
    let dir = temp_dir("newest");
    let store = store_in(&dir);
    let mut goal = goal_at("goal-n", "s1", CWD, 2_000);
    goal.done_so_far = vec!["new".into()];
    store.save(&goal).unwrap();

    // Copies the goal system wrote at other times (sealed), placed by hand.
    let write_json = |path: &Path, goal: &Goal| {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, store.copy_bytes(goal).unwrap()).unwrap();
    };
    // An older copy in the session-local place.
    let mut older = goal.clone();
    older.updated_at = iso_from_ms(1_000);
    older.done_so_far = vec!["old".into()];
    write_json(&store.session_local_path("s1"), &older);
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert_eq!(loaded.goal.unwrap().done_so_far, vec!["new".to_string()]);

    // Same updatedAt, higher revision wins.
    let mut higher = goal.clone();
    higher.revision = goal.revision + 5;
    higher.done_so_far = vec!["higher revision".into()];
    write_json(&store.by_cwd_path(CWD, "s1"), &higher);
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert_eq!(
        loaded.goal.unwrap().done_so_far,
        vec!["higher revision".to_string()]
    );

    // A newer updatedAt in the by-cwd copy wins over everything.
    let mut newer = higher.clone();
    newer.updated_at = iso_from_ms(3_000);
    newer.done_so_far = vec!["newest".into()];
    write_json(&store.by_cwd_path(CWD, "s1"), &newer);
    assert_eq!(
        store.load("s1", None).unwrap().goal.unwrap().done_so_far,
        vec!["newest".to_string()]
    );

    // modify starts from the newest copy and writes it back everywhere, revision bumped.
    store
        .modify("s1", Some(CWD), |current, _| {
            let mut g = current.unwrap();
            assert_eq!(g.done_so_far, vec!["newest".to_string()]);
            g.done_so_far.push("more".into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    for path in [
        store.by_session_path("s1"),
        store.session_local_path("s1"),
        store.by_cwd_path(CWD, "s1"),
    ] {
        let g: Goal = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(g.done_so_far, vec!["newest".to_string(), "more".into()]);
        assert_eq!(g.revision, goal.revision + 6, "{}", path.display());
    }
}

/// Cut each existing slot of `session` inside its goal, as a kill mid-write
/// can leave it (the frame's header is 86 bytes).
fn tear_slots(store: &Store, session: &str) {
    for slot in store.slot_paths(session) {
        if let Ok(bytes) = fs::read(&slot) {
            fs::write(&slot, &bytes[..120]).unwrap();
        }
    }
}

#[test]
fn corrupt_copy_is_quarantined_and_the_valid_copy_loads() {
    let dir = temp_dir("corrupt");
    let store = store_in(&dir);
    let goal = goal_at("goal-c", "s1", CWD, 5_000);
    store.save(&goal).unwrap();
    let by_session = store.by_session_path("s1");
    let full = fs::read(&by_session).unwrap();
    fs::write(&by_session, &full[..full.len() / 2]).unwrap(); // truncated JSON
    fs::write(store.by_cwd_path(CWD, "s1"), b"").unwrap(); // empty file

    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert_eq!(loaded.goal.as_ref().map(|g| g.id.as_str()), Some("goal-c"));
    assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
    assert!(loaded.warnings.iter().all(|w| w.contains(".corrupt-")));
    assert!(!by_session.exists(), "the corrupt file was moved aside");
    let aside: Vec<String> = names_in(by_session.parent().unwrap())
        .into_iter()
        .filter(|n| n.starts_with("s1.json.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    let kept = fs::read(by_session.parent().unwrap().join(&aside[0])).unwrap();
    assert_eq!(
        kept,
        &full[..full.len() / 2],
        "quarantined bytes are kept as they were"
    );

    // A second corruption never overwrites the first quarantined file.
    fs::write(&by_session, b"{\"version\": 3,").unwrap();
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert!(loaded.goal.is_some());
    let aside = names_in(by_session.parent().unwrap())
        .into_iter()
        .filter(|n| n.starts_with("s1.json.corrupt-"))
        .count();
    assert_eq!(aside, 2);

    // Quarantined files are never read back as goals (the only valid copy
    // left is the session-local one, which list_all does not scan, once the
    // slots are torn: a torn slot is no copy and is never moved aside).
    tear_slots(&store, "s1");
    assert!(store.list_all().unwrap().is_empty());
    assert!(store.goals_in_cwd(CWD).unwrap().is_empty());
    // The next save restores all three copies.
    store.save(&goal).unwrap();
    assert!(store.load("s1", Some(CWD)).unwrap().warnings.is_empty());
}

#[test]
fn only_corrupt_copies_means_no_goal_not_an_invented_one() {
    let dir = temp_dir("allcorrupt");
    let store = store_in(&dir);
    store.save(&goal_at("goal-z", "s1", CWD, 5_000)).unwrap();
    for path in [
        store.by_session_path("s1"),
        store.session_local_path("s1"),
        store.by_cwd_path(CWD, "s1"),
    ] {
        fs::write(&path, b"{\"not\": \"a goal\"}").unwrap();
    }
    tear_slots(&store, "s1");
    let loaded = store.load("s1", Some(CWD)).unwrap();
    // Not invented: the goal system's own last transition, from the
    // session's journal, after the three corrupt copies were moved aside.
    assert_eq!(loaded.goal.unwrap().id, "goal-z");
    let moved = loaded.warnings.iter().filter(|w| w.contains("moved aside"));
    assert_eq!(moved.count(), 3, "{:?}", loaded.warnings);
    assert!(loaded
        .warnings
        .iter()
        .any(|w| w.contains("restored from its journal")));

    // Without a journal entry there is nothing to restore: no goal.
    fs::remove_file(store.journal_path("s1")).unwrap();
    for path in [store.by_session_path("s1"), store.by_cwd_path(CWD, "s1")] {
        fs::write(&path, b"{\"not\": \"a goal\"}").unwrap();
    }
    fs::remove_file(store.session_local_path("s1")).unwrap();
    tear_slots(&store, "s1");
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert!(loaded.goal.is_none());
    assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
}

// ---------------------------------------------------------------------------
// validation

#[test]
fn traversal_session_ids_are_refused_everywhere() {
    let dir = temp_dir("traversal");
    let store = store_in(&dir);
    for bad in [
        "../x",
        "a/b",
        "..",
        ".",
        "",
        "x\0y",
        "/etc/passwd",
        ".lock",
        "a\\b",
    ] {
        let err = validate_session_id(bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidSessionId, "{bad:?}");
        assert!(err.message.contains(&format!("{bad:?}")), "{}", err.message);
        assert_eq!(
            store.load(bad, Some(CWD)).unwrap_err().code,
            ErrorCode::InvalidSessionId
        );
        let err = store
            .modify(bad, Some(CWD), |_, _| Ok((Change::None, ())))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidSessionId);
        let mut goal = goal_at("goal-t", "ok", CWD, 1);
        goal.session_id = bad.into();
        assert_eq!(
            store.save(&goal).unwrap_err().code,
            ErrorCode::InvalidSessionId
        );
        assert_eq!(
            store.write_compact(bad, "x", &json!({})).unwrap_err().code,
            ErrorCode::InvalidSessionId
        );
    }
    let long = "a".repeat(129);
    assert_eq!(
        validate_session_id(&long).unwrap_err().code,
        ErrorCode::InvalidSessionId
    );
    // A hostile value is shown truncated in the message.
    assert!(
        validate_session_id(&format!("{}/", "b".repeat(5000)))
            .unwrap_err()
            .message
            .len()
            < 400
    );
    // Nothing was written outside the temporary folder, nor in it.
    assert!(!dir.0.join("x").exists());
    assert!(!dir
        .0
        .join("session-state")
        .join("goal-system")
        .join("by-session")
        .exists());
}

#[test]
fn bad_cwds_are_refused() {
    let dir = temp_dir("badcwd");
    let store = store_in(&dir);
    for bad in [
        "",
        "relative/path",
        "/a/../b",
        "/a/..",
        "/a\0b",
        "..",
        "./x",
    ] {
        assert_eq!(
            validate_cwd(bad).unwrap_err().code,
            ErrorCode::InvalidCwd,
            "{bad:?}"
        );
        assert_eq!(
            store.load("s1", Some(bad)).unwrap_err().code,
            ErrorCode::InvalidCwd
        );
        assert_eq!(
            store.goals_in_cwd(bad).unwrap_err().code,
            ErrorCode::InvalidCwd
        );
        assert_eq!(
            store.save(&goal_at("g", "s1", bad, 1)).unwrap_err().code,
            ErrorCode::InvalidCwd
        );
    }
    for good in ["/", "/a/b", "/a/./b", "/a/...", "/a/b/"] {
        assert!(validate_cwd(good).is_ok(), "{good:?}");
    }
    assert_eq!(cwd_hash("/a/b/"), cwd_hash("/a/b"));
    assert_eq!(cwd_hash("/a/b").len(), 16);
    assert!(cwd_hash("/a/b").bytes().all(|b| b.is_ascii_hexdigit()));
}

// ---------------------------------------------------------------------------
// permissions and symlinks

#[test]
fn folders_are_0700_and_files_0600_even_when_they_were_looser() {
    let dir = temp_dir("modes");
    let store = store_in(&dir);
    let root = store.config.root.clone();
    // Pre-existing, too-open folder and log.
    fs::create_dir_all(root.join("by-session")).unwrap();
    fs::set_permissions(root.join("by-session"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o777)).unwrap();
    fs::write(root.join("audit.log"), b"").unwrap();
    fs::set_permissions(root.join("audit.log"), fs::Permissions::from_mode(0o644)).unwrap();
    // A too-open existing state file is replaced by a 0600 one.
    let goal = goal_at("goal-m", "s1", CWD, 1_000);
    write_json(&store.by_session_path("s1"), &goal);
    fs::set_permissions(
        store.by_session_path("s1"),
        fs::Permissions::from_mode(0o666),
    )
    .unwrap();

    store.save(&goal).unwrap();
    store
        .write_compact("s1", "snapshot", &json!({"v": 1}))
        .unwrap();
    store
        .modify("s1", Some(CWD), |cur, _| {
            let old = cur.unwrap();
            let new = goal_at("goal-m2", "s1", CWD, 2_000);
            Ok((Change::Replace { old, new }, ()))
        })
        .unwrap();
    assert!(store.audit("test", Some(&goal), "detail").is_none());
    assert!(store.record_fault("test", "boom").is_none());

    for folder in ["", "by-session", "by-cwd-session", "compact", "archive"] {
        assert_eq!(mode(&root.join(folder)), 0o700, "folder {folder:?}");
    }
    assert_eq!(mode(&store.config.session_state.join("s1")), 0o700);
    let files = [
        store.by_session_path("s1"),
        store.session_local_path("s1"),
        store.by_cwd_path(CWD, "s1"),
        store.archive_path("goal-m"),
        store.compact_text_path("s1"),
        store.compact_meta_path("s1"),
        store.audit_path(),
        store.faults_path(),
        store.lock_path("s1"),
    ];
    for file in files {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
}

#[test]
fn a_symlink_in_place_of_a_state_file_is_not_followed() {
    let dir = temp_dir("symlink");
    let store = store_in(&dir);
    let outside = dir.0.join("outside.json");
    let planted = goal_at("goal-planted", "s1", CWD, 9_999_999);
    let planted_bytes = serde_json::to_vec(&planted).unwrap();
    fs::write(&outside, &planted_bytes).unwrap();
    fs::set_permissions(&outside, fs::Permissions::from_mode(0o644)).unwrap();
    let link = store.by_session_path("s1");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    symlink(&outside, &link).unwrap();

    // Reading: refused with a warning, the planted goal is not returned.
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert!(loaded.goal.is_none(), "symlink target must not be read");
    assert_eq!(loaded.warnings.len(), 1);
    assert!(
        loaded.warnings[0].contains("symbolic link"),
        "{:?}",
        loaded.warnings
    );
    assert!(store.find("s1").unwrap().is_none());
    assert!(store.list_all().unwrap().is_empty());

    // Writing: the link itself is replaced; the target outside is untouched.
    let goal = goal_at("goal-real", "s1", CWD, 1_000);
    store.save(&goal).unwrap();
    assert!(!fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&outside).unwrap(), planted_bytes);
    assert_eq!(mode(&outside), 0o644);
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert_eq!(loaded.goal.unwrap().id, "goal-real");
    assert!(loaded.warnings.is_empty());

    // Same for a symlinked by-cwd file, through modify.
    let cwd_link = store.by_cwd_path(CWD, "s1");
    fs::remove_file(&cwd_link).unwrap();
    symlink(&outside, &cwd_link).unwrap();
    let ((), warnings) = store
        .modify("s1", Some(CWD), |cur, _| {
            Ok((Change::Save(cur.unwrap()), ()))
        })
        .unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("symbolic link")),
        "{warnings:?}"
    );
    assert_eq!(fs::read(&outside).unwrap(), planted_bytes);
    assert!(!fs::symlink_metadata(&cwd_link)
        .unwrap()
        .file_type()
        .is_symlink());

    // A symlinked goal-system subfolder is refused for writing.
    let root = &store.config.root;
    fs::create_dir_all(dir.0.join("elsewhere")).unwrap();
    symlink(dir.0.join("elsewhere"), root.join("compact")).unwrap();
    let err = store.write_compact("s1", "x", &json!({})).unwrap_err();
    assert_eq!(err.code, ErrorCode::Io);
    assert!(names_in(&dir.0.join("elsewhere")).is_empty());
}

// ---------------------------------------------------------------------------
// records

#[test]
fn a_legacy_version_3_record_with_only_the_seed_fields_loads() {
    let dir = temp_dir("legacy");
    let store = store_in(&dir);
    let legacy = r#"{
      "version": 3, "id": "legacy-1", "sessionId": "old-session", "cwd": "/work/project",
      "objective": "ship it", "requirements": ["a"], "scope": [], "mustNotRegress": [],
      "constraints": [], "currentEnvironment": [], "requiredTools": [], "validationProof": [],
      "verificationResults": [], "requirementCoverage": [], "inspectionEvidence": [],
      "discoveredIssues": [], "issueResolutions": [], "resolvedIssues": [], "doneSoFar": ["x"],
      "remaining": ["r"], "blockers": [], "completionAudit": [], "completionStatus": "active",
      "closedAt": null
    }"#;
    let path = store.by_session_path("old-session");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, legacy).unwrap();
    let cwd_copy = store.by_cwd_path(CWD, "old-session");
    fs::create_dir_all(cwd_copy.parent().unwrap()).unwrap();
    fs::write(&cwd_copy, legacy).unwrap();

    let loaded = store.load("old-session", Some(CWD)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let goal = loaded.goal.unwrap();
    assert_eq!(goal.id, "legacy-1");
    assert_eq!(goal.revision, 0);
    assert_eq!(goal.updated_at, "");
    assert!(goal.is_open());
    assert!(
        matches!(find_for_continuation(&store, CWD).unwrap(), Continuation::One(g) if g.id == "legacy-1")
    );

    // Updating it writes a full record with a revision.
    store
        .modify("old-session", Some(CWD), |cur, _| {
            let mut g = cur.unwrap();
            g.updated_at = now_iso();
            g.done_so_far.push("y".into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    let raw: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(raw["revision"], 1);
    assert_eq!(raw["doneSoFar"], json!(["x", "y"]));
}

#[test]
fn replace_archives_the_old_goal_and_a_cwd_change_drops_the_stale_index_file() {
    let dir = temp_dir("replace");
    let store = store_in(&dir);
    store.save(&goal_at("goal-1", "s1", CWD, 1_000)).unwrap();
    store
        .modify("s1", Some(CWD), |cur, _| {
            let mut old = cur.unwrap();
            old.completion_status = Status::Cancelled;
            old.closed_at = Some(iso_from_ms(1_500));
            old.updated_at = iso_from_ms(1_500);
            let mut new = goal_at("goal-2", "s1", CWD, 2_000);
            new.replaces = Some(old.id.clone());
            Ok((Change::Replace { old, new }, ()))
        })
        .unwrap();
    let archived: Goal =
        serde_json::from_slice(&fs::read(store.archive_path("goal-1")).unwrap()).unwrap();
    assert!(!archived.is_open());
    assert_eq!(
        store.load("s1", Some(CWD)).unwrap().goal.unwrap().id,
        "goal-2"
    );
    let ids: Vec<String> = store
        .list_all()
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    assert_eq!(ids, vec!["goal-2".to_string(), "goal-1".into()]);
    assert_eq!(store.find("goal-1").unwrap().unwrap().id, "goal-1");
    assert_eq!(store.find("s1").unwrap().unwrap().id, "goal-2");
    assert!(store.find("nothing-like-it").unwrap().is_none());

    // The goal moves to another directory: the old by-cwd-session file goes away.
    let other = "/work/elsewhere";
    store
        .modify("s1", Some(CWD), |cur, _| {
            let mut g = cur.unwrap();
            g.cwd = other.into();
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    assert!(!store.by_cwd_path(CWD, "s1").exists());
    assert!(store.by_cwd_path(other, "s1").exists());
    assert!(store.goals_in_cwd(CWD).unwrap().is_empty());
    assert_eq!(store.goals_in_cwd(other).unwrap().len(), 1);

    // A goal of another session cannot be written into this session's places.
    let err = store
        .modify("s1", Some(other), |_, _| {
            Ok((Change::Save(goal_at("goal-9", "s2", other, 1)), ()))
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
}

// ---------------------------------------------------------------------------
// continuation

#[test]
fn continuation_with_zero_goals_is_none_and_adopt_invents_nothing() {
    let dir = temp_dir("cont0");
    let store = store_in(&dir);
    assert_eq!(
        find_for_continuation(&store, CWD).unwrap(),
        Continuation::None
    );
    // Goals in other directories do not count.
    store
        .save(&goal_at("goal-o", "s9", "/work/other", 1_000))
        .unwrap();
    assert_eq!(
        find_for_continuation(&store, CWD).unwrap(),
        Continuation::None
    );
    // Adopting a goal that is not stored here fails and writes nothing.
    let err = adopt(&store, goal_at("goal-fake", "s9", CWD, 1), "s-new", CWD).unwrap_err();
    assert_eq!(err.code, ErrorCode::NoGoal);
    assert!(store.load("s-new", Some(CWD)).unwrap().goal.is_none());
    let err = adopt(&store, goal_at("goal-o", "s9", CWD, 1), "s-new", CWD).unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::NoGoal,
        "a goal of another directory is not adopted"
    );
}

#[test]
fn continuation_with_one_open_goal_adopts_it_into_the_new_session() {
    let dir = temp_dir("cont1");
    let store = store_in(&dir);
    let mut goal = goal_at("goal-one", "s-old", CWD, 1_000);
    goal.done_so_far = vec!["step 1".into()];
    store.save(&goal).unwrap();
    let Continuation::One(found) = find_for_continuation(&store, "/work/project/").unwrap() else {
        panic!("expected one")
    };
    assert_eq!(found.id, "goal-one");

    let adopted = adopt(&store, found, "s-new", CWD).unwrap();
    assert_eq!(adopted.id, "goal-one");
    assert_eq!(adopted.session_id, "s-new");
    assert_eq!(adopted.done_so_far, vec!["step 1".to_string()]);
    let loaded = store.load("s-new", Some(CWD)).unwrap().goal.unwrap();
    assert_eq!(loaded, adopted);
    for path in [
        store.by_session_path("s-new"),
        store.session_local_path("s-new"),
        store.by_cwd_path(CWD, "s-new"),
    ] {
        assert!(path.exists(), "{}", path.display());
    }
    // Now two sessions hold copies of one goal: still one goal, the newest copy.
    let Continuation::One(again) = find_for_continuation(&store, CWD).unwrap() else {
        panic!("duplicates of one goal id must count as one")
    };
    assert_eq!(again.session_id, "s-new");
    // Adopting is idempotent for the same goal.
    assert_eq!(adopt(&store, again, "s-new", CWD).unwrap().id, "goal-one");
}

#[test]
fn duplicates_of_one_goal_id_across_sessions_are_one_goal_the_newest_copy() {
    let dir = temp_dir("contdup");
    let store = store_in(&dir);
    let mut a = goal_at("goal-dup", "s-a", CWD, 1_000);
    a.done_so_far = vec!["old copy".into()];
    let mut b = goal_at("goal-dup", "s-b", CWD, 2_000);
    b.done_so_far = vec!["new copy".into()];
    store.save(&b).unwrap();
    store.save(&a).unwrap(); // written last, but older
    match find_for_continuation(&store, CWD).unwrap() {
        Continuation::One(g) => {
            assert_eq!(g.session_id, "s-b");
            assert_eq!(g.done_so_far, vec!["new copy".to_string()]);
        }
        other => panic!("expected One, got {other:?}"),
    }
}

#[test]
fn two_distinct_open_goals_are_ambiguous_and_listed() {
    let dir = temp_dir("contamb");
    let store = store_in(&dir);
    store.save(&goal_at("goal-a", "s-a", CWD, 1_000)).unwrap();
    store.save(&goal_at("goal-b", "s-b", CWD, 2_000)).unwrap();
    // A duplicate of goal-a in a third session does not make it three.
    store.save(&goal_at("goal-a", "s-c", CWD, 1_500)).unwrap();
    match find_for_continuation(&store, CWD).unwrap() {
        Continuation::Ambiguous(goals) => {
            let ids: Vec<&str> = goals.iter().map(|g| g.id.as_str()).collect();
            assert_eq!(ids, vec!["goal-b", "goal-a"]);
            assert_eq!(goals[1].session_id, "s-c", "newest copy of goal-a");
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
    // Adopting one by name works; the new session owns exactly that goal.
    let adopted = adopt(&store, goal_at("goal-b", "x", CWD, 0), "s-d", CWD).unwrap();
    assert_eq!(adopted.id, "goal-b");
    // A session with a different open goal refuses adoption.
    let err = adopt(&store, goal_at("goal-a", "x", CWD, 0), "s-d", CWD).unwrap_err();
    assert_eq!(err.code, ErrorCode::GoalExists);
}

#[test]
fn closed_goals_never_count_for_continuation() {
    let dir = temp_dir("contclosed");
    let store = store_in(&dir);
    let mut done = goal_at("goal-done", "s-a", CWD, 1_000);
    done.completion_status = Status::Complete;
    done.closed_at = Some(iso_from_ms(1_000));
    store.save(&done).unwrap();
    let mut weird = goal_at("goal-weird", "s-b", CWD, 1_000);
    weird.closed_at = Some(iso_from_ms(1_000)); // "active" but closedAt set: closed
    store.save(&weird).unwrap();
    let mut terminal = goal_at("goal-blocked", "s-c", CWD, 1_000);
    terminal.completion_status = Status::Blocked;
    terminal.closed_at = Some(iso_from_ms(1_000));
    store.save(&terminal).unwrap();
    assert_eq!(
        find_for_continuation(&store, CWD).unwrap(),
        Continuation::None
    );
    assert_eq!(
        adopt(&store, done.clone(), "s-new", CWD).unwrap_err().code,
        ErrorCode::GoalClosed
    );

    // One open goal among closed ones: One.
    let mut resumable = goal_at("goal-open", "s-d", CWD, 1_000);
    resumable.completion_status = Status::Blocked; // blocked without closedAt: resumable
    store.save(&resumable).unwrap();
    assert!(
        matches!(find_for_continuation(&store, CWD).unwrap(), Continuation::One(g) if g.id == "goal-open")
    );

    // An open stale copy whose newest copy is closed does not count either.
    let mut stale = goal_at("goal-done", "s-e", CWD, 500);
    stale.completion_status = Status::Active;
    store.save(&stale).unwrap();
    assert!(
        matches!(find_for_continuation(&store, CWD).unwrap(), Continuation::One(g) if g.id == "goal-open")
    );

    // A goal replaced (archived closed) does not come back through an old index copy.
    let mut shared = goal_at("goal-shared", "s-f", CWD, 3_000);
    store.save(&shared).unwrap();
    shared.session_id = "s-g".into();
    store.save(&shared).unwrap();
    store
        .modify("s-g", Some(CWD), |cur, _| {
            let mut old = cur.unwrap();
            old.completion_status = Status::Cancelled;
            old.closed_at = Some(iso_from_ms(4_000));
            old.updated_at = iso_from_ms(4_000);
            let new = goal_at("goal-next", "s-g", CWD, 4_000);
            Ok((Change::Replace { old, new }, ()))
        })
        .unwrap();
    match find_for_continuation(&store, CWD).unwrap() {
        Continuation::Ambiguous(goals) => {
            let ids: Vec<&str> = goals.iter().map(|g| g.id.as_str()).collect();
            assert_eq!(ids, vec!["goal-next", "goal-open"]);
        }
        other => panic!("expected two open goals, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// index scale, compact, logs, temp files, config

#[test]
fn goals_in_cwd_finds_our_one_goal_among_10000_in_other_directories() {
    let dir = temp_dir("scale");
    let store = store_in(&dir);
    let index = store.config.root.join("by-cwd-session");
    fs::create_dir_all(&index).unwrap();
    let template = goal_at("goal-x", "s-x", "/elsewhere/x", 1_000);
    for i in 0..10_000 {
        let cwd = format!("/elsewhere/{i}");
        let session = format!("s-{i}");
        let mut g = template.clone();
        g.id = format!("goal-{i}");
        g.session_id = session.clone();
        g.cwd = cwd.clone();
        fs::write(
            index.join(format!("{}--{session}.json", cwd_hash(&cwd))),
            serde_json::to_vec(&g).unwrap(),
        )
        .unwrap();
    }
    store
        .save(&goal_at("goal-ours", "s-ours", CWD, 2_000))
        .unwrap();
    let found = store.goals_in_cwd(CWD).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, "goal-ours");
    assert!(
        matches!(find_for_continuation(&store, CWD).unwrap(), Continuation::One(g) if g.id == "goal-ours")
    );
    assert_eq!(
        store.goals_in_cwd("/elsewhere/77").unwrap()[0].id,
        "goal-77"
    );
}

#[test]
fn compact_snapshot_round_trips() {
    let dir = temp_dir("compact");
    let store = store_in(&dir);
    assert!(store.read_compact("s1").unwrap().is_none());
    store
        .write_compact(
            "s1",
            "Objective: x\nRemaining: y",
            &json!({"goalId": "g", "n": 2}),
        )
        .unwrap();
    let compact = store.read_compact("s1").unwrap().unwrap();
    assert_eq!(compact.text, "Objective: x\nRemaining: y");
    assert_eq!(compact.meta, json!({"goalId": "g", "n": 2}));
    assert!(compact.warnings.is_empty());
    store.write_compact("s1", "second", &json!(null)).unwrap();
    assert_eq!(store.read_compact("s1").unwrap().unwrap().text, "second");
    fs::write(store.compact_meta_path("s1"), b"{broken").unwrap();
    let compact = store.read_compact("s1").unwrap().unwrap();
    assert_eq!(compact.meta, Value::Null);
    assert_eq!(compact.warnings.len(), 1);
}

#[test]
fn audit_log_rotates_by_size_and_lines_stay_whole() {
    let dir = temp_dir("audit");
    let mut store = store_in(&dir);
    store.config.audit_max_bytes = 2_000;
    let goal = goal_at("goal-log", "s1", CWD, 1_000);
    for i in 0..60 {
        assert_eq!(
            store.audit(&format!("event-{i}"), Some(&goal), &"d".repeat(100)),
            None
        );
    }
    let audit = store.audit_path();
    let rotated = audit.with_file_name("audit.log.1");
    assert!(rotated.exists(), "rotated file exists");
    let current = fs::read_to_string(&audit).unwrap();
    let old = fs::read_to_string(&rotated).unwrap();
    assert!(current.len() <= 2_000, "{}", current.len());
    assert!(old.len() <= 2_000, "{}", old.len());
    for line in old.lines().chain(current.lines()) {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["goalId"], "goal-log");
        assert_eq!(v["sessionId"], "s1");
        assert_eq!(v["status"], "active");
        assert!(v["at"].as_str().unwrap().ends_with('Z'));
    }
    let last: Value = serde_json::from_str(current.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "event-59");

    // Details are bounded; an event without a goal has null ids.
    store.config.audit_max_bytes = 1 << 20;
    store.audit("big", None, &"z".repeat(100_000));
    let current = fs::read_to_string(&audit).unwrap();
    let v: Value = serde_json::from_str(current.lines().last().unwrap()).unwrap();
    assert!(v["goalId"].is_null());
    assert!(v["detail"].as_str().unwrap().chars().count() <= 2_001);

    // Faults.
    assert_eq!(store.record_fault("preToolUse", "something broke"), None);
    let faults = fs::read_to_string(store.faults_path()).unwrap();
    let v: Value = serde_json::from_str(faults.lines().next().unwrap()).unwrap();
    assert_eq!(v["context"], "preToolUse");
    assert_eq!(v["message"], "something broke");

    // Best effort: an unusable log is reported, never a panic or an error.
    fs::remove_file(store.faults_path()).unwrap();
    fs::create_dir(store.faults_path()).unwrap();
    assert!(store.record_fault("x", "y").is_some());
}

#[test]
fn temp_files_are_never_taken_for_state_files() {
    let dir = temp_dir("tempfiles");
    let store = store_in(&dir);
    store.save(&goal_at("goal-t", "s1", CWD, 1_000)).unwrap();
    // Leftovers of a crashed writer: truncated content under temp names.
    let partial = b"{\"version\": 3, \"id\": \"goal-ghost\"";
    let leftovers = [
        store
            .config
            .root
            .join("by-session")
            .join(".s1.json.tmp-99999-1"),
        store
            .config
            .root
            .join("by-cwd-session")
            .join(format!(".{}--s1.json.tmp-99999-2", cwd_hash(CWD))),
        store
            .config
            .root
            .join("by-session")
            .join(".s2.json.tmp-99999-3"),
    ];
    for path in &leftovers {
        fs::write(path, partial).unwrap();
    }
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(store.load("s1", None).unwrap().warnings.is_empty());
    assert_eq!(store.goals_in_cwd(CWD).unwrap().len(), 1);
    assert_eq!(store.list_all().unwrap().len(), 1);
    for path in &leftovers {
        assert!(path.exists(), "young temp files are left alone");
    }
    assert_eq!(store.sweep_temp_files(std::time::Duration::ZERO), 3);
    for path in &leftovers {
        assert!(!path.exists());
    }
}

#[test]
fn config_follows_the_environment_rules() {
    let vars = |pairs: &[(&str, &str)]| {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).map(OsString::from)
    };
    let c = StoreConfig::from_vars(vars(&[("HOME", "/home/u")])).unwrap();
    assert_eq!(
        c.session_state,
        PathBuf::from("/home/u/.copilot/session-state")
    );
    assert_eq!(
        c.root,
        PathBuf::from("/home/u/.copilot/session-state/goal-system")
    );
    assert_eq!(c.lock_timeout, std::time::Duration::from_secs(5));
    assert_eq!(c.audit_max_bytes, 1 << 20);

    let c = StoreConfig::from_vars(vars(&[
        ("HOME", "/home/u"),
        ("GOAL_SYSTEM_STATE_ROOT", "/tmp/t/gs"),
        ("GOAL_SYSTEM_LOCK_TIMEOUT_MS", "250"),
        ("GOAL_SYSTEM_AUDIT_MAX_BYTES", "4096"),
    ]))
    .unwrap();
    assert_eq!(c.root, PathBuf::from("/tmp/t/gs"));
    assert_eq!(c.session_state, PathBuf::from("/tmp/t"));
    assert_eq!(c.lock_timeout, std::time::Duration::from_millis(250));
    assert_eq!(c.audit_max_bytes, 4096);

    let c = StoreConfig::from_vars(vars(&[
        ("GOAL_SYSTEM_STATE_ROOT", "/tmp/t/gs"),
        ("GOAL_SYSTEM_SESSION_STATE", "/srv/sessions"),
    ]))
    .unwrap();
    assert_eq!(c.root, PathBuf::from("/tmp/t/gs"));
    assert_eq!(c.session_state, PathBuf::from("/srv/sessions"));

    let c =
        StoreConfig::from_vars(vars(&[("GOAL_SYSTEM_SESSION_STATE", "/srv/sessions")])).unwrap();
    assert_eq!(c.root, PathBuf::from("/srv/sessions/goal-system"));

    let err = StoreConfig::from_vars(vars(&[])).unwrap_err();
    assert!(err.message.contains("HOME"), "{}", err.message);
    assert!(StoreConfig::from_vars(vars(&[("HOME", "")])).is_err());

    // Windows: no HOME, the profile folder instead; HOME wins when both are set.
    let c = StoreConfig::from_vars(vars(&[("USERPROFILE", "/profiles/u")])).unwrap();
    assert_eq!(
        c.session_state,
        PathBuf::from("/profiles/u/.copilot/session-state")
    );
    let c = StoreConfig::from_vars(vars(&[("HOME", "/home/u"), ("USERPROFILE", "/profiles/u")]))
        .unwrap();
    assert_eq!(
        c.root,
        PathBuf::from("/home/u/.copilot/session-state/goal-system")
    );
    let c = StoreConfig::from_vars(vars(&[("HOME", ""), ("USERPROFILE", "/profiles/u")])).unwrap();
    assert_eq!(
        c.root,
        PathBuf::from("/profiles/u/.copilot/session-state/goal-system")
    );
}

#[test]
fn threads_of_one_process_do_not_lose_updates() {
    let dir = temp_dir("threads");
    let store = store_in(&dir);
    store.save(&goal_at("goal-th", "s1", CWD, 1_000)).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let store = &store;
            scope.spawn(move || {
                for i in 0..10 {
                    store
                        .modify("s1", Some(CWD), |cur, _| {
                            let mut g = cur.unwrap();
                            g.done_so_far.push(format!("t{t}-{i}"));
                            Ok((Change::Save(g), ()))
                        })
                        .unwrap();
                }
            });
        }
    });
    let goal = store.load("s1", Some(CWD)).unwrap().goal.unwrap();
    assert_eq!(goal.done_so_far.len(), 40);
    assert_eq!(goal.revision, 41);
    // Re-entrant use fails fast instead of dead-locking.
    let err = store
        .modify("s1", Some(CWD), |_, _| {
            let inner = store.load("s1", Some(CWD));
            Ok((Change::None, inner.map(|_| ()).unwrap_err().code))
        })
        .unwrap();
    assert_eq!(err.0, ErrorCode::LockTimeout);
}

#[test]
fn an_update_replaces_each_copy_whole_and_leaves_no_temporary_file() {
    // A reader that opened a copy before an update keeps reading the whole
    // old version (copies are replaced, never rewritten in place), and the
    // replaced version leaves no file behind (on Linux the new copy takes
    // the old one's place by exchange, and the old one is removed).
    use std::io::Read;
    let dir = temp_dir("store-replace-whole");
    let store = store_in(&dir);
    let cwd = "/work/replace";
    store.save(&goal_at("goal-r", "s-r", cwd, 1_000)).unwrap();
    let root = dir.0.join("session-state").join("goal-system");
    let copies = [
        root.join("by-session").join("s-r.json"),
        dir.0
            .join("session-state")
            .join("s-r")
            .join("goal-state.json"),
        root.join("by-cwd-session")
            .join(format!("{}--s-r.json", cwd_hash(cwd))),
    ];
    let mut readers: Vec<(fs::File, Vec<u8>)> = copies
        .iter()
        .map(|p| (fs::File::open(p).unwrap(), fs::read(p).unwrap()))
        .collect();
    for step in 0..3 {
        store
            .modify("s-r", Some(cwd), |current, _| {
                let mut g = current.unwrap();
                g.done_so_far.push(format!("step {step}"));
                Ok((Change::Save(g), ()))
            })
            .unwrap();
    }
    for (path, (file, before)) in copies.iter().zip(readers.iter_mut()) {
        let mut seen = Vec::new();
        file.read_to_end(&mut seen).unwrap();
        assert_eq!(
            &seen,
            before,
            "{}: the open copy changed under its reader",
            path.display()
        );
        let now = fs::read_to_string(path).unwrap();
        assert!(now.contains("step 2"), "{}: {now}", path.display());
        let folder = path.parent().unwrap();
        let left: Vec<String> = names_in(folder)
            .into_iter()
            .filter(|n| n.contains(".tmp-"))
            .collect();
        assert!(left.is_empty(), "{}: {left:?}", folder.display());
    }
}
