//! Multi-process behaviour of the store: no lost updates between processes,
//! complete files after SIGKILL, and the lock of a killed process is released.
//!
//! Child processes re-execute this test binary running only `child_entry`,
//! with `STORE_CHILD_ROLE` and friends saying what to do.

use goal_core::clock::now_iso;
use goal_core::store::{Change, Store, StoreConfig};
use goal_core::{ErrorCode, Goal, Status};
use std::collections::HashSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const CWD: &str = "/work/concurrent";

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("goal-store-proc-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

fn store_at(base: &Path) -> Store {
    let session_state = base.join("session-state");
    Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ))
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"))
}

/// Start this test binary as a child running only `child_entry` in `role`.
fn spawn_child(role: &str, base: &Path, vars: &[(&str, String)], stdout: Stdio) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env("STORE_CHILD_ROLE", role)
        .env("STORE_CHILD_BASE", base)
        .stdout(stdout)
        .stderr(Stdio::inherit());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn child")
}

fn wait_for_go(base: &Path) {
    let go = base.join("go");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !go.exists() {
        assert!(Instant::now() < deadline, "never told to go");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Cheap pseudo-random numbers (no rand crate).
fn rng() -> impl FnMut(u64) -> u64 {
    let mut state = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    move |bound| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    }
}

/// The large-ish content a crash writer writes for `marker`.
fn payload(marker: &str) -> Vec<String> {
    (0..150)
        .map(|j| format!("{marker}/{j}/{}", "x".repeat(150)))
        .collect()
}

fn crash_goal(id: &str, session: &str, marker: &str) -> Goal {
    let mut goal = Goal::new(
        id.into(),
        session.into(),
        CWD.into(),
        marker.into(),
        Status::Active,
        now_iso(),
    );
    goal.done_so_far = payload(marker);
    goal
}

// ---------------------------------------------------------------------------
// the child side

#[test]
fn child_entry() {
    let Ok(role) = std::env::var("STORE_CHILD_ROLE") else {
        return; // run as a normal test: nothing to do
    };
    let base = PathBuf::from(env("STORE_CHILD_BASE"));
    let store = store_at(&base);
    match role.as_str() {
        "append" => {
            let prefix = env("STORE_CHILD_PREFIX");
            let count: usize = env("STORE_CHILD_COUNT").parse().unwrap();
            wait_for_go(&base);
            for i in 0..count {
                store
                    .modify("shared", Some(CWD), |current, _| {
                        let mut goal = current.expect("the goal exists");
                        goal.done_so_far.push(format!("{prefix}-{i}"));
                        goal.updated_at = now_iso();
                        Ok((Change::Save(goal), ()))
                    })
                    .unwrap();
            }
        }
        "hold" => {
            let _ = store.modify("held", Some(CWD), |_, _| {
                // The harness may have printed "test child_entry ... " on this line.
                println!("STORE-CHILD-LOCKED");
                std::io::stdout().flush().unwrap();
                std::thread::sleep(Duration::from_secs(60));
                Ok((Change::None, ()))
            });
        }
        "crash-writer" => {
            let writer = env("STORE_CHILD_WRITER");
            let mut log = fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(base.join(format!("markers-{writer}.log")))
                .unwrap();
            wait_for_go(&base);
            for n in 0u64.. {
                let marker = format!("{writer}-{}-{n}", std::process::id());
                // Logged before any file can carry it.
                log.write_all(format!("{marker}\n").as_bytes()).unwrap();
                store
                    .modify("shared", Some(CWD), |current, _| {
                        let id = current
                            .as_ref()
                            .map(|g| g.id.clone())
                            .unwrap_or_else(|| format!("goal-{marker}"));
                        let new = crash_goal(&id, "shared", &marker);
                        Ok((
                            match current {
                                Some(old) if n % 4 == 3 => Change::Replace {
                                    old,
                                    new: crash_goal(&format!("goal-{marker}"), "shared", &marker),
                                },
                                _ => Change::Save(new),
                            },
                            (),
                        ))
                    })
                    .unwrap();
                store
                    .save(&crash_goal(
                        &format!("goal-own-{writer}"),
                        &format!("own-{writer}"),
                        &marker,
                    ))
                    .unwrap();
            }
        }
        other => panic!("unknown role {other}"),
    }
}

// ---------------------------------------------------------------------------
// the parent side

fn state_files(store: &Store) -> Vec<PathBuf> {
    let root = &store.config.root;
    let mut files = Vec::new();
    for dir in ["by-session", "by-cwd-session", "archive"] {
        if let Ok(entries) = fs::read_dir(root.join(dir)) {
            files.extend(entries.flatten().map(|e| e.path()));
        }
    }
    if let Ok(entries) = fs::read_dir(&store.config.session_state) {
        for entry in entries.flatten() {
            let local = entry.path().join("goal-state.json");
            if local.exists() {
                files.push(local);
            }
        }
    }
    files
}

fn is_state_name(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    !name.starts_with('.') && name.ends_with(".json")
}

#[test]
fn concurrent_processes_do_not_lose_updates() {
    let dir = temp_dir("append");
    let store = store_at(&dir.0);
    let mut seed = Goal::new(
        "goal-shared".into(),
        "shared".into(),
        CWD.into(),
        "collect items".into(),
        Status::Active,
        now_iso(),
    );
    seed.revision = 1;
    store.save(&seed).unwrap();
    let paths = [
        store.by_session_path("shared"),
        store.session_local_path("shared"),
        store.by_cwd_path(CWD, "shared"),
    ];

    const PROCS: usize = 8;
    const EACH: usize = 25;
    let mut children: Vec<Child> = (0..PROCS)
        .map(|p| {
            spawn_child(
                "append",
                &dir.0,
                &[
                    ("STORE_CHILD_PREFIX", format!("p{p}")),
                    ("STORE_CHILD_COUNT", EACH.to_string()),
                ],
                Stdio::null(),
            )
        })
        .collect();

    // While the writers run, every state file must always parse.
    let stop = AtomicBool::new(false);
    let checks = AtomicU64::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                for path in &paths {
                    let bytes = fs::read(path).expect("state file present");
                    let goal: Goal = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                        panic!("{} did not parse mid-run: {e}", path.display())
                    });
                    assert_eq!(goal.id, "goal-shared");
                    checks.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        fs::write(dir.0.join("go"), b"").unwrap();
        let statuses: Vec<_> = children.iter_mut().map(|c| c.wait().unwrap()).collect();
        // Stop the checker before asserting: a failed writer must fail the
        // test, not leave the checker looping for ever.
        stop.store(true, Ordering::Relaxed);
        for status in statuses {
            assert!(status.success(), "a writer failed: {status}");
        }
    });
    assert!(checks.load(Ordering::Relaxed) > 0);

    let loaded = store.load("shared", Some(CWD)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let goal = loaded.goal.unwrap();
    let items: HashSet<&str> = goal.done_so_far.iter().map(String::as_str).collect();
    assert_eq!(
        goal.done_so_far.len(),
        PROCS * EACH,
        "no duplicates, none lost"
    );
    for p in 0..PROCS {
        for i in 0..EACH {
            assert!(
                items.contains(format!("p{p}-{i}").as_str()),
                "p{p}-{i} lost"
            );
        }
    }
    assert_eq!(goal.revision, 1 + (PROCS * EACH) as u64);
    for path in &paths {
        let mut on_disk: Goal = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
        assert!(
            on_disk.seal.take().is_some(),
            "{} is sealed",
            path.display()
        );
        assert_eq!(on_disk, goal, "{}", path.display());
    }
    for path in state_files(&store) {
        assert!(is_state_name(&path), "leftover {}", path.display());
    }
}

#[test]
fn sigkilled_writers_leave_only_complete_files() {
    let dir = temp_dir("crash");
    let store = store_at(&dir.0);
    let mut random = rng();
    const ROUNDS: usize = 8;
    const WRITERS: usize = 3;
    for round in 0..ROUNDS {
        let _ = fs::remove_file(dir.0.join("go"));
        let mut children: Vec<Child> = (0..WRITERS)
            .map(|w| {
                spawn_child(
                    "crash-writer",
                    &dir.0,
                    &[("STORE_CHILD_WRITER", format!("r{round}w{w}"))],
                    Stdio::null(),
                )
            })
            .collect();
        fs::write(dir.0.join("go"), b"").unwrap();
        std::thread::sleep(Duration::from_millis(60 + random(150)));
        for child in &mut children {
            std::thread::sleep(Duration::from_millis(random(15)));
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
        }
    }

    // Every marker any writer may have written.
    let mut markers = HashSet::new();
    for entry in fs::read_dir(&dir.0).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("markers-") {
            for line in fs::read_to_string(entry.path()).unwrap().lines() {
                markers.insert(line.to_string());
            }
        }
    }
    assert!(!markers.is_empty(), "the writers never ran");

    let mut checked = 0;
    let mut temps = 0;
    for path in state_files(&store) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !name.contains(".corrupt-"),
            "torn file found: {}",
            path.display()
        );
        if !is_state_name(&path) {
            assert!(name.starts_with('.') && name.contains(".tmp-"), "{name}");
            temps += 1;
            continue;
        }
        let bytes = fs::read(&path).unwrap();
        let goal: Goal = serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{} is not a complete version: {e}", path.display()));
        let mut canonical = serde_json::to_vec_pretty(&goal).unwrap();
        canonical.push(b'\n');
        assert_eq!(
            bytes,
            canonical,
            "{} is exactly one serialized version",
            path.display()
        );
        assert!(
            markers.contains(&goal.objective),
            "{} holds a version nobody wrote: {}",
            path.display(),
            goal.objective
        );
        assert_eq!(
            goal.done_so_far,
            payload(&goal.objective),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} state files");
    eprintln!(
        "crash test: {} markers logged, {checked} state files verified, {temps} temp files left",
        markers.len()
    );

    // The store is fully usable afterwards: the lock is free, nothing is quarantined,
    // and no temp file shows up as a goal.
    let loaded = store.load("shared", None).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(loaded.goal.is_some());
    let all = store.list_all().unwrap();
    assert!(all.iter().all(|g| markers.contains(&g.objective)));
    assert!(store
        .goals_in_cwd(CWD)
        .unwrap()
        .iter()
        .all(|g| markers.contains(&g.objective)));
    store
        .modify("shared", Some(CWD), |cur, _| {
            Ok((Change::Save(cur.unwrap()), ()))
        })
        .unwrap();
}

#[test]
fn the_lock_of_a_killed_process_is_released_and_other_sessions_never_wait() {
    let dir = temp_dir("lock");
    let mut store = store_at(&dir.0);
    let mut child = spawn_child("hold", &dir.0, &[], Stdio::piped());
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.trim_end().ends_with("STORE-CHILD-LOCKED") => break,
            Some(Ok(_)) => continue,
            other => panic!("the child never took the lock: {other:?}"),
        }
    }

    // Another session is not held up by the one whose lock is taken.
    store.config.lock_timeout = Duration::from_millis(300);
    store
        .modify("s1", Some(CWD), |_, _| Ok((Change::None, ())))
        .expect("another session's lock is free");
    assert!(store.load("s1", Some(CWD)).unwrap().goal.is_none());

    // The held session: we wait lock_timeout, then LOCK_TIMEOUT.
    let started = Instant::now();
    let err = store.load("held", Some(CWD)).unwrap_err();
    assert_eq!(err.code, ErrorCode::LockTimeout, "{err}");
    assert!(started.elapsed() >= Duration::from_millis(290));
    assert!(err.message.contains("held.lock"), "{}", err.message);
    let err = store
        .modify("held", Some(CWD), |_, _| Ok((Change::None, ())))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::LockTimeout);

    // SIGKILL the holder: the kernel drops its flock, no stale lock remains.
    child.kill().unwrap();
    child.wait().unwrap();
    store.config.lock_timeout = Duration::from_secs(2);
    let started = Instant::now();
    assert!(store.load("held", Some(CWD)).unwrap().goal.is_none());
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(
        store.lock_path("held").exists(),
        "the lock file itself stays, unlocked"
    );
}
