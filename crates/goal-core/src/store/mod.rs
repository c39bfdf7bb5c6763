//! The durable store: three copies of each session's goal, an archive of
//! replaced goals, compact snapshots, and the audit and fault logs.
//!
//! Layout (`root` is the `goal-system` folder, `session_state` its parent by default):
//!
//! ```text
//! <root>/by-session/<session>.json                 same-session lookup
//! <session_state>/<session>/goal-state.json        session-local copy
//! <root>/by-cwd-session/<cwd-hash>--<session>.json same-directory continuation
//! <root>/compact/<session>.txt (+ .txt.json)       compact snapshot and its metadata
//! <root>/archive/<goal-id>.json                    replaced or superseded goals
//! <root>/audit.log (+ audit.log.1)                 one JSON line per event
//! <root>/faults.log (+ faults.log.1)               internal errors hit by hooks
//! <root>/slots/<session>.0.slot, .1.slot           the durable copy (two slots in turn)
//! <root>/locks/<session>.lock                      the session's cross-process lock
//! ```
//!
//! By concern: [`config`] (folders, limits), [`paths`] (names and places),
//! [`files`] (atomic writes, modes, no symlinks, quarantine, sweeping),
//! [`lock`] (per-session lock), `copies` (reading and ordering copies),
//! `slots` (the durable copy, rewritten in place),
//! [`logs`] (audit and fault logs), [`compact`] (compact snapshots).
//!
//! Durability: every state file is written to a temporary file in its
//! folder (`.<name>.tmp-<pid>-<n>`, a name that never ends in `.json`, so it
//! is never taken for a state file) and renamed over the target, so a reader,
//! and a process killed at any point, sees a complete old or a complete new
//! version, never a torn one. What the flushes add is survival of a power
//! loss (or an OS crash), and one flush per update gives it:
//!
//! - The session's two slots ([`slots`], `<root>/slots/<session>.{0,1}.slot`)
//!   are the durable copy: each update rewrites the slot that does not hold
//!   the newest valid copy in place and `fdatasync`s it (1 flush, no rename,
//!   no folder flush). A slot is framed with its length and checksum, so a
//!   torn one is no copy and the other slot holds the update before. Once
//!   the hook has answered, the update survives a power loss.
//! - The three copies (by-session, session-local, by-cwd-session) are renamed
//!   into place without fsync (on Linux by exchange with the old version,
//!   which is then removed: a plain rename over a file makes ext4 start
//!   writing the new data out at once, the larger part of a hook's rename
//!   cost, and these copies need no more than either gives them; the
//!   trade: after a power loss a copy written in the last half minute is
//!   more often torn than before, and is set aside as below). After a
//!   power loss each is the old version,
//!   the new one, or torn (its name renamed onto data that never reached the
//!   disk). The old one loses to the newer slot, since reads take the newest
//!   copy (every read of a session's goal reads its slots too). A torn one
//!   does not parse (its end is missing or zeros): it is moved aside under
//!   the lock with a warning, and the next write puts a complete copy back
//!   (were one to parse, its seal would not verify: set aside as tampered,
//!   the newest valid copy standing in). Nothing is lost that the slots do
//!   not hold.
//! - A name new in its folder (a session's first write, a new directory, a
//!   missing slot) is the exception: a name that vanished could not be found
//!   again from the other copies, so that file and its folder are fsynced
//!   (once per session and directory). When no slot can be written, the
//!   by-session (else the by-cwd) copy carries the update alone and is made
//!   durable by fsyncing it and its folder.
//!
//! That is 1 flush and 3 renames per update (2 flushes with a journaled
//! transition), down from 2 fsyncs (temp file and folder) and 6 before that.
//! Folders are 0700 and files 0600.
//!
//! Symbolic links are never followed: a link in place of a state file is
//! refused with a warning, and since writes rename onto the path, they replace
//! the link itself and never touch its target. Anything else that cannot be a
//! goal in a copy's place (unparsable, the wrong type, larger than any goal, a
//! folder) is moved aside under the lock as `<name>.corrupt-<ms>`, kept, and
//! the copy is written again.
//!
//! Locking: every read-modify-write runs under its session's lock
//! ([`lock`]), so sessions never wait for each other. Store calls are not
//! re-entrant for one session: inside a [`Store::modify`] closure, do not
//! call [`Store::load`], [`Store::modify`], [`Store::save`],
//! [`Store::write_compact`] or [`Store::lock`] for that session (they fail
//! fast with `LOCK_TIMEOUT`); the read-only [`Store::goals_in_cwd`],
//! [`Store::list_all`] and [`Store::find`] take no lock and may be called there.

pub mod compact;
pub mod config;
mod copies;
pub mod files;
mod hold;
mod journal;
mod legacy;
pub mod lock;
pub mod logs;
mod outside;
pub mod paths;
mod side;
mod slots;

pub use compact::Compact;
pub use config::{
    claude_dirs_from, home_dir, home_from, StoreConfig, DEFAULT_AUDIT_MAX_BYTES,
    DEFAULT_LOCK_TIMEOUT,
};
pub use files::{io_counts, IoCounts, MAX_STATE_FILE_BYTES, TEMP_FILE_MAX_AGE};
pub use hold::Hold;
pub use journal::{JOURNAL_KEEP_LINES, JOURNAL_MAX_BYTES};
pub use lock::StoreLock;
pub use logs::MAX_LOG_DETAIL_CHARS;
pub use outside::{outside_version, read_outside, write_outside, FileVersion, Outside};
pub(crate) use paths::shown;
pub use paths::{
    cwd_hash, normalize_cwd, validate_cwd, validate_session_id, MAX_CWD_LEN, MAX_SESSION_ID_LEN,
};

use crate::clock::now_iso;
use crate::error::{ErrorCode, GoalError, Result};
use crate::record::Goal;
use copies::{newest, newest_by_id, sorted_newest_first, to_bytes, Copy};
use files::{
    ensure_dir, io_err, is_temp_name, stage_lazy, sweep_dir, sync_dirs, sync_path, write_atomic,
    Staged,
};
use paths::{archive_name, SESSION_LOCAL_NAME};
use std::collections::BTreeSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What [`Store::load`] found: the newest valid copy, and what went wrong on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub goal: Option<Goal>,
    pub warnings: Vec<String>,
}

/// What a [`Store::modify`] closure asks to persist.
// Unboxed on purpose: callers build and match these by value, once per call.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Write nothing.
    None,
    /// Write this goal to the session's three places (revision bumped).
    Save(Goal),
    /// Archive `old` (to `archive/<old.id>.json`) and write `new` to the three places.
    Replace { old: Goal, new: Goal },
}

/// The result of [`Store::modify_stored`].
#[derive(Debug, Clone, PartialEq)]
pub struct Modified<T> {
    /// What the closure returned.
    pub value: T,
    /// The session's goal as it is stored now (with its bumped revision).
    pub goal: Option<Goal>,
    pub warnings: Vec<String>,
}

/// The durable goal store. Cheap to construct; holds no open files.
#[derive(Debug, Clone)]
pub struct Store {
    pub config: StoreConfig,
    /// Copies found edited outside the goal system since the last
    /// [`Store::take_tamper_reports`]: kept here as well as in each call's
    /// warnings, because some callers drop warnings and the user must hear
    /// of tampering whichever read met it.
    tamper_reports: std::sync::Arc<parking_lot::Mutex<Vec<String>>>,
    /// A hook run's hold on its session ([`Store::hold`]).
    held: std::sync::Arc<parking_lot::Mutex<Option<hold::Held>>>,
}

impl Store {
    pub fn new(config: StoreConfig) -> Store {
        Store {
            config,
            tamper_reports: Default::default(),
            held: Default::default(),
        }
    }

    /// The tampering reports met since the last call (see `integrity`).
    pub fn take_tamper_reports(&self) -> Vec<String> {
        std::mem::take(&mut *self.tamper_reports.lock())
    }

    pub(super) fn report_tampering(&self, report: &str) {
        self.tamper_reports.lock().push(report.to_string());
    }

    /// A store configured from the environment ([`StoreConfig::from_env`]).
    pub fn from_env() -> Result<Store> {
        Ok(Store::new(StoreConfig::from_env()?))
    }

    /// Take the session's lock (see [`lock`]), waiting at most `lock_timeout`.
    /// Not re-entrant: a second call from the thread that holds it fails at
    /// once with `LOCK_TIMEOUT`.
    pub fn lock(&self, session_id: &str) -> Result<StoreLock> {
        validate_session_id(session_id)?;
        if let Some(held) = self.lock_held(session_id) {
            return held;
        }
        self.ensure_subdir(&self.locks_dir())?;
        lock::acquire(self.lock_path(session_id), self.config.lock_timeout)
    }

    // -- reading ----------------------------------------------------------

    /// The session's goal without taking the lock or setting anything aside:
    /// for read-only views that run often (the status line). `None` for an
    /// invalid session id or no goal.
    pub fn peek_session(&self, session_id: &str) -> Option<Goal> {
        self.peek_session_shared(session_id)
            .map(std::sync::Arc::unwrap_or_clone)
    }

    /// [`Store::peek_session`] without a goal of its own: shared with what
    /// a run's hold keeps, for a look that takes nothing away.
    pub fn peek_session_shared(&self, session_id: &str) -> Option<std::sync::Arc<Goal>> {
        validate_session_id(session_id).ok()?;
        if let Some(copies) = self.held_copies(session_id, None) {
            return copies::newest_shared(&copies);
        }
        let (mut ignored, mut seqs) = (Vec::new(), None);
        let copies = self.session_copies(session_id, None, false, &mut ignored, &mut seqs);
        // Under a run's hold, a clean read is what a locked read finds (`hold`).
        let clean = ignored.is_empty() && !copies.is_empty();
        if clean {
            self.keep_copies(session_id, None, &copies);
        }
        self.keep_slot_seqs(session_id, seqs.filter(|_| clean));
        copies::newest_shared(&copies)
    }

    /// The session's goal: the newest valid of its three copies. Corrupt
    /// copies are moved aside (`<name>.corrupt-<ms>`) and reported in
    /// `warnings`; symlinks are refused and reported. Takes the session's lock.
    pub fn load(&self, session_id: &str, cwd: Option<&str>) -> Result<Loaded> {
        validate_session_id(session_id)?;
        if let Some(cwd) = cwd {
            validate_cwd(cwd)?;
        }
        let _lock = self.lock(session_id)?;
        let mut warnings = Vec::new();
        let copies = self.locked_copies(session_id, cwd, &mut warnings);
        Ok(Loaded {
            goal: newest(&copies),
            warnings,
        })
    }

    // -- writing ----------------------------------------------------------

    /// Read-modify-write under the session's lock: load the session's goal,
    /// call `f` with it (and the warnings so far, which it may extend), then
    /// persist what `f` asked for. This is what prevents lost updates between
    /// hook processes. `f` must not call locking store methods for this
    /// session (see module docs). Returns `f`'s value and the warnings.
    pub fn modify<T, F>(
        &self,
        session_id: &str,
        cwd: Option<&str>,
        f: F,
    ) -> Result<(T, Vec<String>)>
    where
        F: FnOnce(Option<Goal>, &mut Vec<String>) -> Result<(Change, T)>,
    {
        let m = self.modify_stored(session_id, cwd, f)?;
        Ok((m.value, m.warnings))
    }

    /// Like [`Store::modify`], also returning the goal as stored afterwards
    /// (with its bumped revision).
    pub fn modify_stored<T, F>(
        &self,
        session_id: &str,
        cwd: Option<&str>,
        f: F,
    ) -> Result<Modified<T>>
    where
        F: FnOnce(Option<Goal>, &mut Vec<String>) -> Result<(Change, T)>,
    {
        validate_session_id(session_id)?;
        if let Some(cwd) = cwd {
            validate_cwd(cwd)?;
        }
        let _lock = self.lock(session_id)?;
        let mut warnings = Vec::new();
        let copies = self.locked_copies(session_id, cwd, &mut warnings);
        // Shared with the copies: the closure gets the one clone it may change.
        let current = copies::newest_shared(&copies);
        let (change, value) = f(current.as_deref().cloned(), &mut warnings)?;
        let goal = match change {
            Change::None => current.map(std::sync::Arc::unwrap_or_clone),
            Change::Save(goal) => {
                Some(self.persist(session_id, goal, &copies, cwd, true, &mut warnings)?)
            }
            Change::Replace { old, new } => {
                self.archive(old, &copies)?;
                Some(self.persist(session_id, new, &copies, cwd, true, &mut warnings)?)
            }
        };
        self.keep_written(session_id, cwd);
        Ok(Modified {
            value,
            goal,
            warnings,
        })
    }

    /// Write `goal` exactly as given (no revision bump) to its session's
    /// three places, under the session's lock. Returns warnings (e.g. a
    /// session-local copy that could not be written).
    pub fn save(&self, goal: &Goal) -> Result<Vec<String>> {
        validate_session_id(&goal.session_id)?;
        validate_cwd(&goal.cwd)?;
        let _lock = self.lock(&goal.session_id)?;
        let mut warnings = Vec::new();
        let copies = self.locked_copies(&goal.session_id, Some(&goal.cwd), &mut warnings);
        self.persist(
            &goal.session_id.clone(),
            goal.clone(),
            &copies,
            None,
            false,
            &mut warnings,
        )?;
        self.keep_written(&goal.session_id, Some(&goal.cwd));
        Ok(warnings)
    }

    /// The bytes the store writes for a copy of `goal` (sealed with this
    /// state root's key): for tools and tests that place a copy themselves.
    pub fn copy_bytes(&self, goal: &Goal) -> Result<Vec<u8>> {
        to_bytes(&self.key()?, &mut goal.clone())
    }

    fn bump(goal: &mut Goal, copies: &[Copy]) {
        let prior = copies
            .iter()
            .filter(|c| c.goal.id == goal.id)
            .map(|c| c.goal.revision)
            .max()
            .unwrap_or(0);
        goal.revision = goal.revision.max(prior) + 1;
        if goal.updated_at.is_empty() {
            goal.updated_at = now_iso();
        }
    }

    /// The archived copy is durable (its own fsyncs) before the copies that
    /// replace it are written, so a crash between the two loses neither goal.
    fn archive(&self, mut old: Goal, copies: &[Copy]) -> Result<()> {
        Store::bump(&mut old, copies);
        let dir = self.archive_dir();
        self.ensure_subdir(&dir)?;
        let bytes = to_bytes(&self.key()?, &mut old)?;
        write_atomic(&dir, &archive_name(&old.id), &bytes)
    }

    /// Write the three copies, then remove by-cwd-session files of this
    /// session left in other directories. One copy that cannot be written is
    /// a warning (the others carry the goal; reads take the newest valid
    /// copy); the update fails only when neither root copy was written.
    fn persist(
        &self,
        session_id: &str,
        mut goal: Goal,
        copies: &[Copy],
        cwd: Option<&str>,
        bump: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Goal> {
        if goal.session_id != session_id {
            return Err(GoalError::invalid(format!(
                "goal {} belongs to session {}, not {}: not saved",
                shown(&goal.id),
                shown(&goal.session_id),
                shown(session_id)
            )));
        }
        validate_cwd(&goal.cwd)?;
        if goal.id.is_empty() {
            return Err(GoalError::invalid("goal id is empty: not saved"));
        }
        if bump {
            Store::bump(&mut goal, copies);
        }
        // What a run's hold kept is read again after any write (`hold`).
        let known_slots = self.forget_copies(session_id);
        let key = self.key()?;
        // Sealed for the bytes and the journal, handed back as it came.
        let seal_given = goal.seal.take();
        let bytes = to_bytes(&key, &mut goal)?;
        let transition = transition(&goal, copies);

        self.ensure_root()?;
        let cwd_dir = self.by_cwd_dir();
        let cwd_name = format!("{}--{session_id}.json", cwd_hash(&goal.cwd));
        let session_dir = self.by_session_dir();

        // The three copies first, without fsync (see the module docs); then
        // the slot, durably. A name new in its folder is made durable with
        // its data: a lost name cannot be rebuilt from a copy the reader
        // does not know of.
        let commit = |staged: Result<Staged>| -> Result<(PathBuf, bool)> {
            let staged = staged?;
            let path = staged.target().to_path_buf();
            let created = staged.commit()?;
            Ok((path, created))
        };
        let by_cwd = commit(
            ensure_dir(&cwd_dir, true).and_then(|()| stage_lazy(&cwd_dir, &cwd_name, &bytes)),
        );
        let local = commit(self.stage_session_local(session_id, &bytes));
        let by_session = commit(
            ensure_dir(&session_dir, true)
                .and_then(|()| stage_lazy(&session_dir, &format!("{session_id}.json"), &bytes)),
        );
        let slot = self.write_slot(session_id, &bytes, known_slots);
        let written = warnings.len();

        let mut must_sync: Vec<PathBuf> = Vec::new();
        let mut failures = Vec::new();
        let folder = |path: &Path| path.parent().map(Path::to_path_buf).unwrap_or_default();
        for (what, result) in [
            ("by-session copy", &by_session),
            ("by-cwd-session copy", &by_cwd),
            ("session-local copy", &local),
        ] {
            match result {
                Ok((path, true)) => match sync_path(path) {
                    Ok(()) => must_sync.push(folder(path)),
                    Err(e) => failures.push(format!("{what} not made durable: {}", e.message)),
                },
                Ok(_) => {}
                Err(e) => failures.push(format!("{what} not written: {}", e.message)),
            }
        }
        if let Err(e) = &slot {
            // A root copy carries the update alone: make it durable by rename.
            let Some((path, created)) = [&by_session, &by_cwd]
                .into_iter()
                .find_map(|r| r.as_ref().ok())
            else {
                return Err(e.clone());
            };
            if !created {
                sync_path(path)?;
            }
            must_sync.push(folder(path));
            failures.push(format!("durable slot not written: {}", e.message));
        }
        warnings.extend(failures);

        // Stale by-cwd-session copies of this session (its cwd changed).
        let keep = cwd_dir.join(&cwd_name);
        let mut stale: BTreeSet<PathBuf> = BTreeSet::new();
        for copy in copies {
            if copy.path.parent() == Some(cwd_dir.as_path()) {
                stale.insert(copy.path.clone());
            }
            if validate_cwd(&copy.goal.cwd).is_ok() {
                stale.insert(self.by_cwd_path(&copy.goal.cwd, session_id));
            }
        }
        if let Some(cwd) = cwd {
            stale.insert(self.by_cwd_path(cwd, session_id));
        }
        stale.remove(&keep);
        for path in stale {
            if fs::symlink_metadata(&path).is_ok() {
                match fs::remove_file(&path) {
                    Ok(()) => must_sync.push(cwd_dir.clone()),
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => {
                        warnings.push(format!("stale copy {} not removed: {e}", path.display()))
                    }
                }
            }
        }
        sync_dirs(must_sync.iter().map(PathBuf::as_path))?;
        if let (Ok(slot), true) = (&slot, warnings.len() == written) {
            // Every copy written and nothing stale left: what a read finds now.
            self.note_written(session_id, bytes, keep, slot);
        }
        if let Some(op) = transition {
            if let Err(e) = self.journal_append(&key, op, &goal) {
                warnings.push(format!("journal not written: {}", e.message));
            }
        }
        goal.seal = seal_given;
        Ok(goal)
    }

    /// Stage the session-local copy (lazily: see the module docs). The
    /// session folder may be the host's:
    /// create it 0700 if missing, but do not change the mode of a folder the
    /// host made. Our temp files there are swept while we are at it (a
    /// killed writer's leftovers would otherwise stay in the host's folder).
    fn stage_session_local(&self, session_id: &str, bytes: &[u8]) -> Result<Staged> {
        let parent = &self.config.session_state;
        if fs::symlink_metadata(parent).is_err() {
            ensure_dir(parent, false)?;
        }
        let dir = self.session_local_dir(session_id);
        ensure_dir(&dir, false)?;
        sweep_dir(&dir, TEMP_FILE_MAX_AGE, is_session_local_temp);
        stage_lazy(&dir, SESSION_LOCAL_NAME, bytes)
    }

    // -- queries without the lock ------------------------------------------

    /// Goals stored for this directory (any session), one per goal id (the
    /// newest copy, the archive included), newest first. Only files whose
    /// name carries this cwd's hash are read.
    pub fn goals_in_cwd(&self, cwd: &str) -> Result<Vec<Goal>> {
        validate_cwd(cwd)?;
        let prefix = format!("{}--", cwd_hash(cwd));
        let wanted = normalize_cwd(cwd);
        let entries = match fs::read_dir(self.by_cwd_dir()) {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(io_err(
                    format!("cannot list {}", self.by_cwd_dir().display()),
                    e,
                ))
            }
        };
        let mut ignored = Vec::new();
        // Tampered copies are skipped here; the locked reads set them aside.
        let (key, mut seen) = (self.read_key(), Vec::new());
        let mut copies = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(session) = name
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".json"))
            else {
                continue;
            };
            if validate_session_id(session).is_err() {
                continue;
            }
            // The by-cwd copy is written without fsync: after a power loss
            // it may be older than the session's durable slots, so they are
            // read too (the newest of a goal wins below).
            let [slot0, slot1] = self.slot_paths(session);
            for path in [entry.path(), self.by_session_path(session), slot0, slot1] {
                if let Some(copy) = self.read_copy(
                    &path,
                    Some(session),
                    false,
                    key.as_ref(),
                    &mut ignored,
                    &mut seen,
                ) {
                    if normalize_cwd(&copy.goal.cwd) == wanted {
                        copies.push(copy);
                    }
                }
            }
        }
        let mut by_id = newest_by_id(copies);
        // A newer archived copy (a replaced or superseded goal) wins.
        let archived: Vec<Copy> = by_id
            .keys()
            .filter_map(|id| {
                self.read_copy(
                    &self.archive_path(id),
                    None,
                    false,
                    key.as_ref(),
                    &mut ignored,
                    &mut seen,
                )
            })
            .collect();
        for copy in archived {
            if let Some(kept) = by_id.get(&copy.goal.id) {
                if copy.key() > kept.key() {
                    by_id.insert(copy.goal.id.clone(), copy);
                }
            }
        }
        Ok(sorted_newest_first(by_id))
    }

    /// Every goal in `by-session` and `archive`, one per goal id (the newest
    /// copy), newest first. Also removes temporary files left by crashed
    /// writers more than ten minutes ago.
    pub fn list_all(&self) -> Result<Vec<Goal>> {
        let _ = self.sweep_temp_files(TEMP_FILE_MAX_AGE);
        let mut ignored = Vec::new();
        // Tampered copies are skipped here; the locked reads set them aside.
        let (key, mut seen) = (self.read_key(), Vec::new());
        let mut copies = Vec::new();
        for dir in [self.by_session_dir(), self.slots_dir(), self.archive_dir()] {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(format!("cannot list {}", dir.display()), e)),
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                // The slots: after a power loss the by-session copy may be older.
                if name.starts_with('.') || !(name.ends_with(".json") || name.ends_with(".slot")) {
                    continue;
                }
                if let Some(copy) = self.read_copy(
                    &entry.path(),
                    None,
                    false,
                    key.as_ref(),
                    &mut ignored,
                    &mut seen,
                ) {
                    copies.push(copy);
                }
            }
        }
        Ok(sorted_newest_first(newest_by_id(copies)))
    }

    /// A goal by session id (that session's goal), exact goal id, or unique
    /// goal-id prefix (at least 4 characters; several matches: `AMBIGUOUS`).
    pub fn find(&self, id_or_session: &str) -> Result<Option<Goal>> {
        let key = id_or_session.trim();
        if key.is_empty() {
            return Ok(None);
        }
        if validate_session_id(key).is_ok() {
            let mut ignored = Vec::new();
            let copies = self.session_copies(key, None, false, &mut ignored, &mut None);
            if let Some(goal) = newest(&copies) {
                return Ok(Some(goal));
            }
        }
        let all = self.list_all()?;
        if let Some(goal) = all.iter().find(|g| g.id == key) {
            return Ok(Some(goal.clone()));
        }
        if key.chars().count() < 4 {
            return Ok(None);
        }
        let mut matches: Vec<Goal> = all.into_iter().filter(|g| g.id.starts_with(key)).collect();
        match matches.len() {
            0 => Ok(None),
            1 => Ok(matches.pop()),
            _ => Err(GoalError::new(
                ErrorCode::Ambiguous,
                format!(
                    "{} matches {} goals ({}); give the full goal id",
                    shown(key),
                    matches.len(),
                    matches
                        .iter()
                        .map(|g| g.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    /// Remove our temporary files (`.<name>.tmp-*`) older than `older_than`
    /// from every folder the store writes: its own folders, and the
    /// session-local folder of every session that has a by-session copy.
    /// Returns how many were removed.
    pub fn sweep_temp_files(&self, older_than: Duration) -> usize {
        let mut removed = 0;
        for dir in [
            self.by_session_dir(),
            self.by_cwd_dir(),
            self.slots_dir(),
            self.archive_dir(),
            self.compact_dir(),
        ] {
            removed += sweep_dir(&dir, older_than, is_temp_name);
        }
        let Ok(entries) = fs::read_dir(self.by_session_dir()) else {
            return removed;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(session) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            if validate_session_id(session).is_ok() {
                removed += sweep_dir(
                    &self.session_local_dir(session),
                    older_than,
                    is_session_local_temp,
                );
            }
        }
        removed
    }
}

/// The journal's name for what this write does to the goal, if it is a
/// transition (not a routine update such as a recorded tool call): the goal's
/// first write, its first sealed write (a legacy record), its restoration
/// from the journal, or a change of its status or `closedAt`.
fn transition(goal: &Goal, copies: &[Copy]) -> Option<&'static str> {
    let prior = copies
        .iter()
        .filter(|c| c.goal.id == goal.id)
        .max_by_key(|c| c.key());
    match prior {
        None => Some("open"),
        Some(p) if p.path.extension().is_some_and(|e| e == "jsonl") => Some("restore"),
        Some(p) if !p.sealed => Some("seal"),
        Some(p) if p.goal.closed_at.is_none() && goal.closed_at.is_some() => Some("close"),
        Some(p) if p.goal.closed_at.is_some() && goal.closed_at.is_none() => Some("reopen"),
        Some(p) if p.goal.completion_status != goal.completion_status => Some("status"),
        Some(_) => None,
    }
}

/// Our temp files in a session folder (which is the host's: touch nothing else).
fn is_session_local_temp(name: &str) -> bool {
    name.starts_with(&format!(".{SESSION_LOCAL_NAME}.tmp-"))
}
