//! How many fsyncs and renames a durable update costs. Its own test binary:
//! the counters are process-wide, and no other test may write meanwhile.

use goal_core::clock::now_iso;
use goal_core::store::{io_counts, Change, Store, StoreConfig};
use goal_core::{Goal, Status};
use std::fs;

const CWD: &str = "/work/fsyncs";

#[test]
fn a_durable_update_costs_one_flush_and_three_renames() {
    let base = std::env::temp_dir().join(format!("goal-store-fsyncs-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let session_state = base.join("session-state");
    let store = Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ));
    let goal = Goal::new(
        "goal-f".into(),
        "s1".into(),
        CWD.into(),
        "count the fsyncs".into(),
        Status::Active,
        now_iso(),
    );

    // The first write creates three names and the first slot: every copy
    // and its folder is made durable.
    // Once per state root, the integrity key is created (its file and
    // folder); the goal's first write is a transition, journaled (the new
    // journal file and its folder).
    let before = io_counts();
    store.save(&goal).unwrap();
    let first = io_counts() - before;
    assert_eq!(
        (first.fsyncs, first.renames),
        (6 + 2 + 2 + 2, 4),
        "{first:?}"
    );

    let step = |what: &str| {
        let before = io_counts();
        store
            .modify("s1", Some(CWD), |current, _| {
                let mut g = current.unwrap();
                g.done_so_far.push(what.into());
                Ok((Change::Save(g), ()))
            })
            .unwrap();
        io_counts() - before
    };
    // The first update creates the second slot (its data and folder flushed).
    let second = step("the second slot");
    assert_eq!((second.fsyncs, second.renames), (2, 4), "{second:?}");

    // An update replaces three names without fsync (they are rebuilt from
    // the slots after a power loss) and rewrites the older slot in place:
    // one fdatasync.
    for n in 0..3 {
        let update = step(&format!("step {n}"));
        assert_eq!((update.fsyncs, update.renames), (1, 3), "{update:?}");
    }

    // A writer killed between its slot write and its flush left the
    // session's mark set: the next update flushes both slots and their
    // folder first, then clears the mark.
    let lock = store.mark_path("s1");
    assert_eq!(fs::read(&lock).unwrap(), b"-");
    fs::write(&lock, b"w").unwrap();
    let after_kill = step("after a kill");
    assert_eq!(
        (after_kill.fsyncs, after_kill.renames),
        (1 + 3, 3),
        "{after_kill:?}"
    );
    assert_eq!(fs::read(&lock).unwrap(), b"-");
    let update = step("marked clean again");
    assert_eq!((update.fsyncs, update.renames), (1, 3), "{update:?}");

    // A folder planted in the mark's place is set aside (review-8 M2): the
    // slots stay on, and the next update costs one flush again.
    fs::remove_file(&lock).unwrap();
    fs::create_dir(&lock).unwrap();
    step("a folder in the mark's place");
    assert_eq!(fs::read(&lock).unwrap(), b"-");
    let update = step("slots still on");
    assert_eq!((update.fsyncs, update.renames), (1, 3), "{update:?}");

    // A transition (a status change) adds one journal append: one fsync of
    // the journal, none of its folder.
    let before = io_counts();
    store
        .modify("s1", Some(CWD), |current, _| {
            let mut g = current.unwrap();
            g.completion_status = Status::Blocked;
            Ok((Change::Save(g), ()))
        })
        .unwrap();
    let transition = io_counts() - before;
    assert_eq!(
        (transition.fsyncs, transition.renames),
        (2, 3),
        "{transition:?}"
    );

    // Nothing to write, nothing synced (only read).
    let before = io_counts();
    store
        .modify("s1", Some(CWD), |_, _| Ok((Change::None, ())))
        .unwrap();
    let nothing = io_counts() - before;
    assert_eq!((nothing.fsyncs, nothing.renames), (0, 0), "{nothing:?}");

    // A compact snapshot: two files, one folder.
    let before = io_counts();
    store
        .write_compact("s1", "snapshot", &serde_json::json!({"goalId": "goal-f"}))
        .unwrap();
    let compact = io_counts() - before;
    assert_eq!((compact.fsyncs, compact.renames), (3, 2), "{compact:?}");

    let _ = fs::remove_dir_all(&base);
}
