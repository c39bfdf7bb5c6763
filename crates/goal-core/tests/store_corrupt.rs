//! Whatever sits in a copy's place (unparsable bytes, the wrong type, a file
//! larger than any goal, a folder) is moved aside and kept, the goal is still
//! read from the other copies, and the next write puts every copy back.
//! Temp files of killed writers are swept from every folder the store writes.

use goal_core::clock::iso_from_ms;
use goal_core::store::{Change, Store, StoreConfig, MAX_STATE_FILE_BYTES};
use goal_core::{Goal, Status};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

mod common;
use common::{temp_dir, TempDir};

const CWD: &str = "/work/corrupt";

fn store_in(dir: &TempDir) -> Store {
    let session_state = dir.0.join("session-state");
    Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ))
}

fn goal(id: &str) -> Goal {
    Goal::new(
        id.into(),
        "s1".into(),
        CWD.into(),
        format!("objective of {id}"),
        Status::Active,
        iso_from_ms(5_000),
    )
}

/// The names in `path`'s folder that are `path`'s name moved aside.
fn moved_aside(path: &Path) -> Vec<PathBuf> {
    let prefix = format!("{}.corrupt-", path.file_name().unwrap().to_string_lossy());
    let mut found: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Ways a copy can be damaged, each with a check that what was there is kept.
enum Damage {
    Bytes(&'static [u8]),
    Oversized,
    Folder,
}

impl Damage {
    fn plant(&self, path: &Path) {
        fs::remove_file(path).unwrap();
        match self {
            Damage::Bytes(bytes) => fs::write(path, bytes).unwrap(),
            Damage::Oversized => {
                // Sparse: a size past the limit without writing it.
                let file = fs::File::create(path).unwrap();
                file.set_len(MAX_STATE_FILE_BYTES + 1).unwrap();
            }
            Damage::Folder => {
                fs::create_dir(path).unwrap();
                fs::write(path.join("inside.txt"), b"someone's notes").unwrap();
            }
        }
    }

    fn assert_kept(&self, aside: &Path) {
        match self {
            Damage::Bytes(bytes) => assert_eq!(fs::read(aside).unwrap(), *bytes),
            Damage::Oversized => {
                assert_eq!(fs::metadata(aside).unwrap().len(), MAX_STATE_FILE_BYTES + 1)
            }
            Damage::Folder => assert_eq!(
                fs::read(aside.join("inside.txt")).unwrap(),
                b"someone's notes"
            ),
        }
    }
}

#[test]
fn every_kind_of_damaged_copy_is_kept_aside_and_the_goal_still_holds() {
    let kinds = [
        ("unparsable", Damage::Bytes(b"{\"version\": 3, \"id\": ")),
        ("an array", Damage::Bytes(b"[1, 2, 3]")),
        ("a string", Damage::Bytes(b"\"goal\"")),
        (
            "wrong field types",
            Damage::Bytes(b"{\"version\": \"three\", \"id\": 7}"),
        ),
        ("oversized", Damage::Oversized),
        ("a folder", Damage::Folder),
    ];
    for (what, damage) in kinds {
        let dir = temp_dir("kinds");
        let store = store_in(&dir);
        store.save(&goal("goal-k")).unwrap();
        let places = [
            store.by_session_path("s1"),
            store.by_cwd_path(CWD, "s1"),
            store.session_local_path("s1"),
        ];
        for place in &places {
            damage.plant(place);

            // Reads still find the goal in the other copies.
            let loaded = store.load("s1", Some(CWD)).unwrap();
            assert_eq!(
                loaded.goal.map(|g| g.id),
                Some("goal-k".to_string()),
                "{what} at {}",
                place.display()
            );
            assert!(
                loaded.warnings.iter().any(|w| w.contains("moved aside")),
                "{what}: {:?}",
                loaded.warnings
            );
            let aside = moved_aside(place);
            assert_eq!(aside.len(), 1, "{what} at {}", place.display());
            damage.assert_kept(&aside[0]);

            // Updates go on, and the copy is written again.
            store
                .modify("s1", Some(CWD), |current, _| {
                    let mut g = current.unwrap();
                    g.done_so_far.push(format!("after {what}"));
                    Ok((Change::Save(g), ()))
                })
                .unwrap();
            let again: Goal = serde_json::from_slice(&fs::read(place).unwrap()).unwrap();
            assert!(again.done_so_far.contains(&format!("after {what}")));
            assert!(store.load("s1", Some(CWD)).unwrap().warnings.is_empty());
            fs::remove_dir_all(&aside[0])
                .or_else(|_| fs::remove_file(&aside[0]))
                .unwrap();
        }
    }
}

#[test]
fn a_folder_in_place_of_a_copy_during_a_write_does_not_make_the_goal_read_only() {
    let dir = temp_dir("folder-write");
    let store = store_in(&dir);
    store.save(&goal("goal-f")).unwrap();
    // Planted inside the closure: after the read, before the write.
    let by_session = store.by_session_path("s1");
    let (_, warnings) = store
        .modify("s1", Some(CWD), |current, _| {
            fs::remove_file(&by_session).unwrap();
            fs::create_dir(&by_session).unwrap();
            fs::write(by_session.join("keep.txt"), b"kept").unwrap();
            let mut g = current.unwrap();
            g.done_so_far.push("written around the folder".into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("by-session copy not written")),
        "{warnings:?}"
    );
    assert_eq!(fs::read(by_session.join("keep.txt")).unwrap(), b"kept");
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert_eq!(
        loaded.goal.unwrap().done_so_far,
        vec!["written around the folder".to_string()]
    );
    // That load moved the folder aside; the next write restores the copy.
    assert_eq!(moved_aside(&by_session).len(), 1);
    store
        .modify("s1", Some(CWD), |current, _| {
            Ok((Change::Save(current.unwrap()), ()))
        })
        .unwrap();
    assert!(by_session.is_file());
}

fn age(path: &Path, by: Duration) {
    let file = fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - by).unwrap();
}

#[test]
fn temp_files_of_killed_writers_are_swept_in_session_folders_too() {
    let dir = temp_dir("sweep");
    let store = store_in(&dir);
    store.save(&goal("goal-s")).unwrap();
    let session_dir = store
        .session_local_path("s1")
        .parent()
        .unwrap()
        .to_path_buf();
    let ours_old = session_dir.join(".goal-state.json.tmp-99999-1");
    let ours_young = session_dir.join(".goal-state.json.tmp-99999-2");
    let hosts = session_dir.join(".events.jsonl.tmp-1");
    for path in [&ours_old, &ours_young, &hosts] {
        fs::write(path, b"{\"version\": 3").unwrap();
    }
    age(&ours_old, Duration::from_secs(3600));
    age(&hosts, Duration::from_secs(3600));

    // A write to the session sweeps its folder: only our old leftover goes.
    store
        .modify("s1", Some(CWD), |current, _| {
            Ok((Change::Save(current.unwrap()), ()))
        })
        .unwrap();
    assert!(!ours_old.exists(), "our old temp file is swept");
    assert!(ours_young.exists(), "a young one may still be written to");
    assert!(hosts.exists(), "the host's files are never touched");

    // The full sweep (list_all's) reaches session folders as well.
    assert_eq!(store.sweep_temp_files(Duration::ZERO), 1);
    assert!(!ours_young.exists());
    assert!(hosts.exists());
}

#[test]
fn after_a_power_loss_the_copies_written_without_fsync_may_be_old_or_torn_and_the_durable_one_wins()
{
    let dir = temp_dir("power-loss");
    let store = store_in(&dir);
    let root = store.config.root.clone();
    let by_session = root.join("by-session").join("s1.json");
    let by_cwd = root
        .join("by-cwd-session")
        .join(format!("{}--s1.json", goal_core::store::cwd_hash(CWD)));
    let local = store
        .config
        .session_state
        .join("s1")
        .join("goal-state.json");
    store.save(&goal("goal-p")).unwrap();
    let old = fs::read(&by_cwd).unwrap();
    store
        .modify("s1", Some(CWD), |current, _| {
            let mut g = current.unwrap();
            g.done_so_far.push("the durable step".into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    // What a power loss may leave of the two unsynced copies: the old
    // version under the by-cwd name, the new name over data half written.
    fs::write(&by_cwd, &old).unwrap();
    let mut torn = fs::read(&by_session).unwrap();
    let half = torn.len() / 2;
    torn[half..].fill(0);
    fs::write(&local, &torn).unwrap();

    let has_step = |g: &Goal| g.done_so_far.iter().any(|d| d == "the durable step");
    let in_cwd = store.goals_in_cwd(CWD).unwrap();
    assert_eq!(in_cwd.len(), 1);
    assert!(has_step(&in_cwd[0]), "continuation sees the durable copy");
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert!(has_step(loaded.goal.as_ref().unwrap()));
    assert_eq!(moved_aside(&local).len(), 1, "{:?}", loaded.warnings);

    // The next write puts every copy back complete.
    store
        .modify("s1", Some(CWD), |current, _| {
            let mut g = current.unwrap();
            g.done_so_far.push("one more".into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    for path in [&by_session, &by_cwd, &local] {
        let copy: serde_json::Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
        assert_eq!(copy["doneSoFar"].as_array().unwrap().len(), 2, "{path:?}");
    }
}
