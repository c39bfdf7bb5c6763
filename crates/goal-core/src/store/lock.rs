//! The per-session lock: an in-process part (threads of one process queue on
//! a condition variable) and a cross-process `flock` on
//! `<root>/locks/<session>.lock`, taken in a polling loop bounded by the
//! configured timeout.
//!
//! A kernel `flock` dies with the process that holds it (the kernel releases
//! it when the last descriptor closes, and a killed process has its
//! descriptors closed), so a crashed or SIGKILLed hook never leaves a stale
//! lock behind: nothing has to guess whether a lock file is old. Lock files
//! are never deleted, since unlinking a file another process is waiting on
//! would let two holders in.
//!
//! A timeout is `LOCK_TIMEOUT`, never a silent success: callers must treat it
//! as "state unknown", not as "no goal".

use super::files::{io_err, private_file_options, tighten, Private};
use crate::error::{ErrorCode, GoalError, Result};
use parking_lot::{Condvar, Mutex};
use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// Lock files held by this process, and by which thread.
static HELD: Mutex<Vec<(PathBuf, ThreadId)>> = Mutex::new(Vec::new());
static RELEASED: Condvar = Condvar::new();

/// A session's lock: released (both the in-process part and the `flock`) on drop.
#[must_use = "the store lock is released when this guard is dropped"]
pub struct StoreLock {
    file: Option<File>,
    key: PathBuf,
    /// Inside a run's hold (`hold`): the lock is the hold's, this only marks it in use.
    nested: Option<Arc<AtomicBool>>,
}

impl StoreLock {
    /// A store call's lock inside a run's hold (`hold`), which keeps the real one.
    pub(super) fn nested(busy: Arc<AtomicBool>) -> StoreLock {
        StoreLock {
            file: None,
            key: PathBuf::new(),
            nested: Some(busy),
        }
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        if let Some(busy) = self.nested.take() {
            busy.store(false, Ordering::Release);
            return;
        }
        if let Some(file) = self.file.take() {
            let _ = file.unlock();
        }
        HELD.lock().retain(|(path, _)| path != &self.key);
        RELEASED.notify_all();
    }
}

fn timeout_error(path: &Path, timeout: Duration, who: &str) -> GoalError {
    GoalError::new(
        ErrorCode::LockTimeout,
        format!(
            "could not take the session lock {} within {} ms: {who} is holding it",
            path.display(),
            timeout.as_millis()
        ),
    )
}

fn open_lock_file(path: &Path) -> Result<File> {
    if let Ok(meta) = fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() {
            return Err(GoalError::new(
                ErrorCode::Io,
                format!(
                    "refusing lock file {}: it is a symbolic link",
                    path.display()
                ),
            ));
        }
    }
    let file = private_file_options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| io_err(format!("cannot open lock file {}", path.display()), e))?;
    if let Ok(meta) = file.metadata() {
        tighten(path, &meta, Private::File);
    }
    Ok(file)
}

/// The error of a second lock of one session by the thread that holds it.
pub(super) fn reentrant(path: &Path) -> GoalError {
    GoalError::new(
        ErrorCode::LockTimeout,
        format!(
            "the session lock {} is already held by this thread (re-entrant store call)",
            path.display()
        ),
    )
}

/// Take the lock at `path` (its folder must exist), waiting at most
/// `timeout`. Not re-entrant: a second call from the thread that holds it
/// fails at once with `LOCK_TIMEOUT`.
pub(super) fn acquire(path: PathBuf, timeout: Duration) -> Result<StoreLock> {
    let deadline = Instant::now() + timeout;
    let me = std::thread::current().id();
    {
        let mut held = HELD.lock();
        loop {
            let holder = held.iter().find(|(p, _)| p == &path).map(|(_, t)| *t);
            match holder {
                None => break,
                Some(thread) if thread == me => return Err(reentrant(&path)),
                Some(_) => {
                    if RELEASED.wait_until(&mut held, deadline).timed_out()
                        && held.iter().any(|(p, _)| p == &path)
                    {
                        return Err(timeout_error(&path, timeout, "another thread"));
                    }
                }
            }
        }
        held.push((path.clone(), me));
    }
    // From here on, dropping `guard` releases the in-process part.
    let mut guard = StoreLock {
        file: None,
        key: path,
        nested: None,
    };
    let file = open_lock_file(&guard.key)?;
    let mut pause = Duration::from_millis(1);
    let jitter = u64::from(std::process::id() % 3);
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(timeout_error(&guard.key, timeout, "another process"));
                }
                std::thread::sleep((pause + Duration::from_millis(jitter)).min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(8));
            }
            Err(TryLockError::Error(e)) => {
                return Err(io_err(format!("cannot lock {}", guard.key.display()), e))
            }
        }
    }
    guard.file = Some(file);
    Ok(guard)
}
