//! A hook run's hold on its session (store/hold.rs): one lock for the run,
//! the session read once until the run writes, and nothing else changed:
//! nested calls still fail, other writers wait, a damaged copy is still
//! set aside and reported. Its own test binary: the read counter is
//! process-wide.

use goal_core::clock::now_iso;
use goal_core::error::ErrorCode;
use goal_core::store::{io_counts, Change, Store, StoreConfig};
use goal_core::{Goal, Status};
use std::fs;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// The store's I/O counters are the process's: the tests that read them run
/// one at a time, or another test's reads would be counted.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const CWD: &str = "/work/hold";

fn store(name: &str) -> (Store, PathBuf) {
    let base = std::env::temp_dir().join(format!("goal-store-hold-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let session_state = base.join("session-state");
    let mut config = StoreConfig::new(&session_state, session_state.join("goal-system"));
    config.lock_timeout = Duration::from_millis(300);
    let store = Store::new(config);
    let goal = Goal::new(
        "goal-h".into(),
        "s1".into(),
        CWD.into(),
        "hold the session".into(),
        Status::Active,
        now_iso(),
    );
    store.save(&goal).unwrap();
    (store, base)
}

fn add(store: &Store, what: &str) {
    store
        .modify("s1", Some(CWD), |current, _| {
            let mut g = current.unwrap();
            g.done_so_far.push(what.into());
            Ok((Change::Save(g), ()))
        })
        .unwrap();
}

#[test]
fn a_held_session_is_read_once_until_it_is_written_and_reads_as_the_disk_does() {
    let _serial = serial();
    let (store, base) = store("once");
    add(&store, "before the run");
    let hold = store.hold("s1").expect("the lock is free");

    let before = io_counts();
    let first = store.load("s1", Some(CWD)).unwrap();
    let read = (io_counts() - before).reads;
    // The key, three copies and two slots.
    assert_eq!(read, 6, "{read}");
    for _ in 0..3 {
        let before = io_counts();
        let again = store.load("s1", Some(CWD)).unwrap();
        assert_eq!((io_counts() - before).reads, 0);
        assert_eq!(again, first);
    }

    // A write: what the next read returns is what the disk now holds.
    add(&store, "during the run");
    let before = io_counts();
    let after = store.load("s1", Some(CWD)).unwrap();
    assert_eq!((io_counts() - before).reads, 0);
    drop(hold);
    let fresh = Store::new(store.config.clone())
        .load("s1", Some(CWD))
        .unwrap();
    assert_eq!(after, fresh);
    assert_eq!(
        fresh.goal.unwrap().done_so_far,
        ["before the run", "during the run"]
    );

    // Without the hold every read goes to the disk.
    let before = io_counts();
    store.load("s1", Some(CWD)).unwrap();
    store.load("s1", Some(CWD)).unwrap();
    assert_eq!((io_counts() - before).reads, 2 * read);
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn a_hold_keeps_nested_calls_failing_and_other_writers_out() {
    let _serial = serial();
    let (store, base) = store("locks");
    let other = Store::new(store.config.clone());
    {
        let _hold = store.hold("s1").expect("the lock is free");
        // A store call inside a modify closure fails fast, as without the hold.
        let nested = store.modify("s1", Some(CWD), |current, _| {
            let inner = store.load("s1", Some(CWD));
            assert_eq!(inner.unwrap_err().code, ErrorCode::LockTimeout);
            Ok((Change::None, current.is_some()))
        });
        assert!(nested.unwrap().0);
        // Another thread (another hook, the MCP server) waits for the run.
        let waited = std::thread::scope(|s| {
            s.spawn(|| other.modify("s1", Some(CWD), |_, _| Ok((Change::None, ()))))
                .join()
                .unwrap()
        });
        assert_eq!(waited.unwrap_err().code, ErrorCode::LockTimeout);
        assert!(other.hold("s1").is_none(), "one hold at a time");
    }
    // Released with the hold.
    other
        .modify("s1", Some(CWD), |_, _| Ok((Change::None, ())))
        .unwrap();
    // Taken only when free at once: the run then locks call by call.
    let busy = other.lock("s1").unwrap();
    let started = std::time::Instant::now();
    assert!(store.hold("s1").is_none());
    assert!(started.elapsed() < Duration::from_millis(200));
    drop(busy);
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn a_damaged_copy_is_still_set_aside_and_reported_under_the_hold() {
    let _serial = serial();
    let (store, base) = store("damaged");
    fs::write(store.by_session_path("s1"), b"{ not a goal").unwrap();
    let _hold = store.hold("s1").expect("the lock is free");
    let first = store.load("s1", Some(CWD)).unwrap();
    assert!(
        first.warnings.iter().any(|w| w.contains("moved aside")),
        "{:?}",
        first.warnings
    );
    assert_eq!(first.goal.as_ref().unwrap().id, "goal-h");
    // Moved aside: the next read finds the other copies, and nothing to report.
    let second = store.load("s1", Some(CWD)).unwrap();
    assert!(second.warnings.is_empty(), "{:?}", second.warnings);
    assert_eq!(second.goal, first.goal);
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn a_write_under_the_hold_reads_no_slot_again_and_the_slots_still_take_turns() {
    // The session first read locked (`load`) or as a hook reads it first
    // (`peek_session`, for any folder).
    for peek in [false, true] {
        writes_under_the_hold(peek);
    }
}

fn writes_under_the_hold(peek: bool) {
    let _serial = serial();
    let (store, base) = store(if peek { "slots-peek" } else { "slots" });
    add(&store, "before the run");
    let hold = store.hold("s1").expect("the lock is free");
    if peek {
        store.peek_session("s1").unwrap();
    } else {
        store.load("s1", Some(CWD)).unwrap();
    }
    // The slots' write numbers were read with the session (and then noted
    // by each write): a write reads nothing again, the mark aside.
    for what in ["first", "second", "third"] {
        let before = io_counts();
        add(&store, what);
        assert_eq!((io_counts() - before).reads, 0, "{what}");
    }
    drop(hold);
    // Each write went to the slot that did not hold the write before, one
    // past it: the later slot holds the last update, the other the one before.
    let seqs = store.slot_paths("s1").map(|p| {
        let bytes = fs::read(p).unwrap();
        let text = String::from_utf8_lossy(&bytes[..64]).into_owned();
        text.split(' ').nth(2).unwrap().parse::<u64>().unwrap()
    });
    assert_eq!(
        seqs.iter().max().unwrap() - seqs.iter().min().unwrap(),
        1,
        "{seqs:?}"
    );
    let fresh = Store::new(store.config.clone());
    let goal = fresh.load("s1", Some(CWD)).unwrap().goal.unwrap();
    assert_eq!(
        goal.done_so_far,
        ["before the run", "first", "second", "third"]
    );
    // The earlier slot alone (the later one torn) still reads the update before.
    let later = store.slot_paths("s1")[usize::from(seqs[1] > seqs[0])].clone();
    let mut torn = fs::read(&later).unwrap();
    torn[200] ^= 0xff;
    fs::write(&later, torn).unwrap();
    for p in [store.by_session_path("s1"), store.session_local_path("s1")] {
        fs::remove_file(p).unwrap();
    }
    for entry in fs::read_dir(base.join("session-state/goal-system/by-cwd-session")).unwrap() {
        fs::remove_file(entry.unwrap().path()).unwrap();
    }
    let earlier = Store::new(store.config.clone())
        .load("s1", Some(CWD))
        .unwrap()
        .goal
        .unwrap();
    assert_eq!(earlier.done_so_far, ["before the run", "first", "second"]);
    let _ = fs::remove_dir_all(&base);
}
