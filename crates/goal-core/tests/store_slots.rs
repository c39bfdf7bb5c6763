//! Readers without the lock while a writer rewrites the durable slots in
//! place: they may meet a slot half written, and must neither report it nor
//! set it aside, and must always read a goal at least as new as the last
//! update acknowledged before they started.

use goal_core::clock::now_iso;
use goal_core::store::{Change, Store, StoreConfig};
use goal_core::{Goal, Status};
use std::fs;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

mod common;
use common::temp_dir;

const CWD: &str = "/work/slot-readers";

fn count(goal: &Goal) -> u64 {
    goal.objective
        .strip_prefix("count ")
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn readers_without_the_lock_never_see_a_half_written_slot_as_damage() {
    let dir = temp_dir("slot-readers");
    let session_state = dir.0.join("session-state");
    let store = Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ));
    let goal = Goal::new(
        "goal-r".into(),
        "s1".into(),
        CWD.into(),
        "count 0".into(),
        Status::Active,
        now_iso(),
    );
    store.save(&goal).unwrap();
    let acked = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, acked, done) = (store.clone(), acked.clone(), done.clone());
        std::thread::spawn(move || {
            for _ in 0..300 {
                let (n, warnings) = store
                    .modify("s1", Some(CWD), |g, _| {
                        let mut g = g.unwrap();
                        let n = count(&g) + 1;
                        g.objective = format!("count {n}");
                        // Several pages, so a read often meets a write.
                        g.done_so_far = vec![format!("{n:>08} {}", "y".repeat(200)); 40];
                        Ok((Change::Save(g), n))
                    })
                    .unwrap();
                assert!(warnings.is_empty(), "{warnings:?}");
                acked.store(n, Ordering::SeqCst);
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let mut reads = 0;
    while !done.load(Ordering::SeqCst) {
        let floor = acked.load(Ordering::SeqCst);
        let peeked = store.peek_session("s1").expect("a goal");
        assert!(count(&peeked) >= floor, "{} < {floor}", count(&peeked));
        let here = store.goals_in_cwd(CWD).unwrap();
        assert!(
            here.iter().any(|g| count(g) >= floor),
            "goals_in_cwd lost it"
        );
        let all = store.list_all().unwrap();
        assert!(all.iter().any(|g| count(g) >= floor), "list_all lost it");
        let found = store.find("s1").unwrap().expect("found");
        assert!(count(&found) >= floor);
        reads += 1;
    }
    writer.join().unwrap();
    assert!(reads > 20, "the reader barely ran ({reads})");
    assert!(store.take_tamper_reports().is_empty());
    let loaded = store.load("s1", Some(CWD)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(count(&loaded.goal.unwrap()), 300);
    for dir in ["slots", "by-session", "by-cwd-session"] {
        for entry in fs::read_dir(store.config.root.join(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                !name.contains(".corrupt-") && !name.contains(".tampered-"),
                "{name}"
            );
        }
    }
}
