//! The reliability suite's end state: writers in several processes and
//! threads on two sessions, while damaged copies keep being planted, end with
//! no lost update and no destroyed copy.
//!
//! Damage is planted under the session's lock (damage at rest, between two
//! operations, as a crash, a full disk or a stray editor leaves it): each
//! planted payload is unique, and every one must be found again, intact,
//! moved aside.

use goal_core::clock::now_iso;
use goal_core::store::{Change, Store, StoreConfig};
use goal_core::{Goal, Status};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CWD: &str = "/work/reliability";
const SESSIONS: [&str; 2] = ["alpha", "beta"];
const THREADS: usize = 3;
const PROCESSES: usize = 2;
const UPDATES: usize = 25;

fn store_at(base: &Path) -> Store {
    let session_state = base.join("session-state");
    Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ))
}

fn append(store: &Store, session: &str, marker: String) {
    store
        .modify(session, Some(CWD), |current, _| {
            let mut goal = current.expect("the goal exists");
            goal.done_so_far.push(marker);
            goal.updated_at = now_iso();
            Ok((Change::Save(goal), ()))
        })
        .unwrap();
}

fn writer_markers(who: &str) -> Vec<(String, String)> {
    (0..UPDATES)
        .map(|i| {
            let session = SESSIONS[i % SESSIONS.len()];
            (session.to_string(), format!("{who}-{i}"))
        })
        .collect()
}

#[test]
fn child_writer() {
    let (Ok(base), Ok(who)) = (
        std::env::var("RELIABILITY_BASE"),
        std::env::var("RELIABILITY_WHO"),
    ) else {
        return; // run as a normal test: nothing to do
    };
    let store = store_at(Path::new(&base));
    for (session, marker) in writer_markers(&who) {
        append(&store, &session, marker);
    }
}

/// Everything in a copy's folder that was moved aside, with its payload.
fn quarantined(store: &Store) -> Vec<PathBuf> {
    let mut dirs = vec![
        store.by_session_path("x").parent().unwrap().to_path_buf(),
        store.by_cwd_path(CWD, "x").parent().unwrap().to_path_buf(),
    ];
    for session in SESSIONS {
        dirs.push(
            store
                .session_local_path(session)
                .parent()
                .unwrap()
                .to_path_buf(),
        );
    }
    dirs.iter()
        .flat_map(|d| fs::read_dir(d).unwrap().flatten().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .contains(".corrupt-")
        })
        .collect()
}

/// The planted payload found at a quarantined path (a file, or a folder's note).
fn payload_of(path: &Path) -> String {
    let file = if path.is_dir() {
        path.join("note.txt")
    } else {
        path.to_path_buf()
    };
    String::from_utf8(fs::read(file).unwrap()).unwrap()
}

#[test]
fn concurrent_writers_and_planted_damage_end_with_no_lost_update_and_no_destroyed_copy() {
    let base = std::env::temp_dir().join(format!("goal-reliability-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    fs::create_dir_all(&base).unwrap();
    let store = store_at(&base);
    for session in SESSIONS {
        let goal = Goal::new(
            format!("goal-{session}"),
            session.into(),
            CWD.into(),
            "hold under load".into(),
            Status::Active,
            now_iso(),
        );
        store.save(&goal).unwrap();
    }

    let children: Vec<_> = (0..PROCESSES)
        .map(|p| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "child_writer", "--test-threads=1"])
                .env("RELIABILITY_BASE", &base)
                .env("RELIABILITY_WHO", format!("process{p}"))
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();

    let mut planted = Vec::new();
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let store = &store;
            scope.spawn(move || {
                for (session, marker) in writer_markers(&format!("thread{t}")) {
                    append(store, &session, marker);
                }
            });
        }
        // The saboteur: damage at rest in every copy place, between operations.
        for round in 0..30 {
            let session = SESSIONS[round % SESSIONS.len()];
            let places = [
                store.by_session_path(session),
                store.by_cwd_path(CWD, session),
                store.session_local_path(session),
            ];
            let place = &places[round % places.len()];
            let payload = format!("damage {round}");
            let _lock = store.lock(session).unwrap();
            // Only over a sound copy, and never the last sound one: damage
            // not read yet stays as it is, and the goal always has a copy.
            let sound = |path: &Path| {
                fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file())
                    && Goal::from_stored(&fs::read(path).unwrap()).is_ok()
            };
            let others_sound = places.iter().filter(|p| *p != place && sound(p)).count();
            if !sound(place) || others_sound == 0 {
                continue;
            }
            let _ = fs::remove_file(place);
            if round % 3 == 0 {
                fs::create_dir(place).unwrap();
                fs::write(place.join("note.txt"), &payload).unwrap();
            } else {
                fs::write(place, &payload).unwrap();
            }
            planted.push(payload);
            drop(_lock);
            std::thread::sleep(std::time::Duration::from_millis(3));
        }
    });
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a writer process failed");
    }

    // Reading each session once more moves aside the damage planted last.
    let mut writers: Vec<String> = (0..THREADS).map(|t| format!("thread{t}")).collect();
    writers.extend((0..PROCESSES).map(|p| format!("process{p}")));
    for session in SESSIONS {
        let goal = store.load(session, Some(CWD)).unwrap().goal.unwrap();
        let have: HashSet<&String> = goal.done_so_far.iter().collect();
        for who in &writers {
            for (s, marker) in writer_markers(who) {
                if s == session {
                    assert!(have.contains(&marker), "lost update {marker} in {session}");
                }
            }
        }
        assert_eq!(
            goal.done_so_far.len(),
            have.len(),
            "no update applied twice"
        );
    }
    assert!(
        planted.len() >= 6,
        "every copy place was damaged at least once"
    );
    let kept: HashSet<String> = quarantined(&store).iter().map(|p| payload_of(p)).collect();
    for payload in &planted {
        assert!(kept.contains(payload), "{payload:?} was destroyed");
    }
    assert_eq!(kept.len(), planted.len());
    let _ = fs::remove_dir_all(&base);
}
