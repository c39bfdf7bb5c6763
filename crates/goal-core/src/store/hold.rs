//! One hook run's hold on its session: the session's lock taken once for
//! the whole run instead of once per store call, and what was read under it
//! kept for the rest of the run.
//!
//! A hook loads its session's goal many times (the voice check, the
//! interrupt, the prompt, the usage, the board...), each a lock, a key read
//! and five copies read and checked. While the hold is taken no other
//! process or thread can write the session (every writer takes its lock), so
//! a clean locked read stays true until this run writes: the copies are
//! kept and handed to the next locked call, and any write throws them away
//! (the next call reads the disk again, as before). A read that met
//! anything to report (a copy set aside, tampering, a refused link) is never
//! kept, so every such path runs as it did.
//!
//! Store calls inside the hold lock as before: a nested call for the
//! session (inside a [`Store::modify`] closure) still fails fast with
//! `LOCK_TIMEOUT`. The hold is only taken when the lock is free at once;
//! otherwise the run goes on without it, each call waiting for the lock as
//! it always did.

use super::copies::Copy;
use super::lock::{self, StoreLock};
use super::paths::validate_session_id;
use super::Store;
use crate::integrity::Key;
use crate::record::Goal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::ThreadId;
use std::time::Duration;

/// The session's lock held for a run, and what was read under it.
pub(super) struct Held {
    session: String,
    thread: ThreadId,
    _lock: StoreLock,
    /// A store call holds the session's lock now (nested calls fail).
    busy: Arc<AtomicBool>,
    key: Option<Key>,
    /// The copies a clean locked read found, for the `cwd` it was asked with.
    copies: Option<(Option<String>, Vec<Copy>)>,
    /// What the last write left, every copy written: its by-cwd path, the
    /// copies' paths and their bytes.
    written: Option<(PathBuf, Vec<PathBuf>, Vec<u8>)>,
    /// Kept from the last write for the next read from a `cwd`, as
    /// `copies`, but not parsed until a read asks (a hook seldom reads
    /// after its write).
    unread: Option<(Option<String>, Vec<PathBuf>, Vec<u8>)>,
    /// The write numbers of the session's two slots (`None`: torn or
    /// missing) as a clean locked read found them or this run's last slot
    /// write left them, so the next slot write need not read both again.
    slot_seqs: Option<[Option<u64>; 2]>,
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("session", &self.session)
            .field("copies", &self.copies.as_ref().map(|(_, c)| c.len()))
            .finish_non_exhaustive()
    }
}

/// The hold on a session; released (with the lock) on drop.
#[must_use = "the hold is released when this guard is dropped"]
pub struct Hold {
    store: Store,
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.store.held.lock().take();
    }
}

impl Store {
    /// Hold the session's lock until the returned guard is dropped, if it
    /// can be taken at once (`None` otherwise: store calls then lock one by
    /// one). For one hook run: nothing long may run while it is held.
    pub fn hold(&self, session_id: &str) -> Option<Hold> {
        validate_session_id(session_id).ok()?;
        if self.held.lock().is_some() {
            return None;
        }
        self.ensure_subdir(&self.locks_dir()).ok()?;
        let lock = lock::acquire(self.lock_path(session_id), Duration::ZERO).ok()?;
        *self.held.lock() = Some(Held {
            session: session_id.to_string(),
            thread: std::thread::current().id(),
            _lock: lock,
            busy: Arc::default(),
            key: None,
            copies: None,
            written: None,
            unread: None,
            slot_seqs: None,
        });
        Some(Hold {
            store: self.clone(),
        })
    }

    /// Run `f` on the hold, if this thread holds `session_id`.
    fn with_hold<T>(&self, session_id: &str, f: impl FnOnce(&mut Held) -> T) -> Option<T> {
        let mut held = self.held.lock();
        let held = held.as_mut()?;
        (held.session == session_id && held.thread == std::thread::current().id()).then(|| f(held))
    }

    /// The session's lock under the hold: `Some` when this thread holds the
    /// session (an error for a nested call, as without the hold).
    pub(super) fn lock_held(&self, session_id: &str) -> Option<crate::error::Result<StoreLock>> {
        self.with_hold(session_id, |held| {
            if held.busy.swap(true, Ordering::AcqRel) {
                return Err(lock::reentrant(&self.lock_path(session_id)));
            }
            Ok(StoreLock::nested(held.busy.clone()))
        })
    }

    /// The copies kept by the hold for this `cwd`, if any. A read for any
    /// directory ([`Store::peek_session`]) found every by-cwd copy of the
    /// session: one for `cwd` is that read without the others.
    pub(super) fn held_copies(&self, session_id: &str, cwd: Option<&str>) -> Option<Vec<Copy>> {
        let (by_cwd_dir, this_cwd) = match cwd {
            Some(cwd) => (self.by_cwd_dir(), Some(self.by_cwd_path(cwd, session_id))),
            None => (PathBuf::new(), None),
        };
        self.with_hold(session_id, |held| {
            if let Some((kept, paths, bytes)) = held.unread.take() {
                held.copies = written_copies(&bytes, paths).map(|copies| (kept, copies));
            }
            held_for(held, cwd, &by_cwd_dir, this_cwd.as_ref())
        })
        .flatten()
    }

    /// Keep the copies of a clean locked read (one that reported nothing).
    pub(super) fn keep_copies(&self, session_id: &str, cwd: Option<&str>, copies: &[Copy]) {
        self.with_hold(session_id, |held| {
            held.unread = None;
            held.copies = Some((cwd.map(str::to_string), copies.to_vec()));
        });
    }

    /// The session's copies under its lock (moving aside what must be),
    /// or those the hold kept from such a read or a write.
    pub(super) fn locked_copies(
        &self,
        session_id: &str,
        cwd: Option<&str>,
        warnings: &mut Vec<String>,
    ) -> Vec<Copy> {
        if let Some(copies) = self.held_copies(session_id, cwd) {
            return copies;
        }
        let before = warnings.len();
        let mut seqs = None;
        let copies = self.session_copies(session_id, cwd, true, warnings, &mut seqs);
        let clean = warnings.len() == before;
        if clean {
            self.keep_copies(session_id, cwd, &copies);
        }
        // A read that reported something may have moved a slot aside.
        self.keep_slot_seqs(session_id, seqs.filter(|_| clean));
        copies
    }

    /// This run writes the session: nothing kept holds any more. Returns
    /// the slots' write numbers the hold knew, for the slot write about to
    /// be made (which notes what it leaves: [`Store::note_slot_written`]).
    pub(super) fn forget_copies(&self, session_id: &str) -> Option<[Option<u64>; 2]> {
        self.with_hold(session_id, |held| {
            held.copies = None;
            held.written = None;
            held.unread = None;
            held.slot_seqs.take()
        })
        .flatten()
    }

    /// The slots' write numbers a read under the hold found (`None` after
    /// a read that reported something).
    pub(super) fn keep_slot_seqs(&self, session_id: &str, seqs: Option<[Option<u64>; 2]>) {
        self.with_hold(session_id, |held| held.slot_seqs = seqs);
    }

    /// A slot write made `seqs` the slots' write numbers (whole and flushed).
    pub(super) fn note_slot_written(&self, session_id: &str, seqs: [Option<u64>; 2]) {
        self.with_hold(session_id, |held| held.slot_seqs = Some(seqs));
    }

    /// A write put `bytes` in every copy (by-session, session-local,
    /// `by_cwd`, and the `slot` that is now the later one) and left no
    /// stale copy: they are what a read would find, as it would find them
    /// (parsed from the bytes, the seal taken off).
    pub(super) fn note_written(
        &self,
        session_id: &str,
        bytes: Vec<u8>,
        by_cwd: PathBuf,
        slot: &Path,
    ) {
        let paths = vec![
            self.by_session_path(session_id),
            self.session_local_path(session_id),
            by_cwd.clone(),
            slot.to_path_buf(),
        ];
        self.with_hold(session_id, |held| {
            held.written = Some((by_cwd, paths, bytes))
        });
    }

    /// After a write, keep what it left for the next read of the session
    /// from `cwd` (with the by-cwd copy only if that read would find it).
    pub(super) fn keep_written(&self, session_id: &str, cwd: Option<&str>) {
        let Some(cwd) = cwd else { return };
        let this_cwd = self.by_cwd_path(cwd, session_id);
        self.with_hold(session_id, |held| {
            if let Some((by_cwd, mut paths, bytes)) = held.written.take() {
                if by_cwd != this_cwd {
                    paths.retain(|p| *p != by_cwd);
                }
                held.copies = None;
                held.unread = Some((Some(cwd.to_string()), paths, bytes));
            }
        });
    }

    /// The state root's key, read once per hold (it is written once, at
    /// the first write, and never changed).
    pub(super) fn held_key(&self) -> Option<Key> {
        let mut held = self.held.lock();
        let held = held.as_mut()?;
        if held.thread != std::thread::current().id() {
            return None;
        }
        if held.key.is_none() {
            held.key = self.read_key_file();
        }
        held.key.clone()
    }
}

/// The copies a hold keeps for a read from `cwd` (see [`Store::held_copies`]).
fn held_for(
    held: &Held,
    cwd: Option<&str>,
    by_cwd_dir: &Path,
    this_cwd: Option<&PathBuf>,
) -> Option<Vec<Copy>> {
    match &held.copies {
        Some((kept, copies)) if kept.as_deref() == cwd => Some(copies.clone()),
        Some((None, copies)) => this_cwd.map(|this| {
            copies
                .iter()
                .filter(|c| c.path.parent() != Some(by_cwd_dir) || &c.path == this)
                .cloned()
                .collect()
        }),
        _ => None,
    }
}

/// A write's copies as a read would find them: parsed from the bytes, the
/// seal taken off, one goal shared by every path.
fn written_copies(bytes: &[u8], paths: Vec<PathBuf>) -> Option<Vec<Copy>> {
    let mut goal = Goal::from_stored(bytes).ok()?;
    goal.seal = None;
    let goal = Arc::new(goal);
    Some(
        paths
            .into_iter()
            .map(|path| Copy {
                goal: goal.clone(),
                path,
                mtime_ns: 0,
                sealed: true,
            })
            .collect(),
    )
}
