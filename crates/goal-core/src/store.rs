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
//! <root>/.lock                                     cross-process lock
//! ```
//!
//! Durability: every state file is written to a temporary file in the same
//! folder (`.<name>.tmp-<pid>-<n>`, a name that never ends in `.json`, so it is
//! never taken for a state file), `fsync`ed, renamed over the target and the
//! folder is `fsync`ed. A reader therefore sees a complete old or a complete
//! new version, never a torn one. Folders are 0700 and files 0600.
//!
//! Symbolic links are never followed: a link in place of a state file is
//! refused with a warning, and since writes rename onto the path, they replace
//! the link itself and never touch its target.
//!
//! Locking: every read-modify-write runs under `<root>/.lock`, taken with
//! `flock` (`File::try_lock`) in a polling loop bounded by `lock_timeout`, plus
//! an in-process lock so that threads of one process serialize without
//! polling. A kernel `flock` dies with the process that holds it (the kernel
//! releases it when the last descriptor closes, and a killed process has its
//! descriptors closed), so a crashed or SIGKILLed hook can never leave a stale
//! lock behind: this is the stale-lock recovery, and nothing has to guess
//! whether a lock file is old.
//!
//! Store calls are not re-entrant: inside a [`Store::modify`] closure, do not
//! call [`Store::load`], [`Store::modify`], [`Store::save`],
//! [`Store::write_compact`] or [`Store::lock`] (they fail fast with
//! `LOCK_TIMEOUT`); the read-only [`Store::goals_in_cwd`], [`Store::list_all`]
//! and [`Store::find`] take no lock and may be called there.

use crate::clock::{now_iso, now_ms};
use crate::error::{ErrorCode, GoalError, Result};
use crate::record::Goal;
use crate::redact;
use parking_lot::{Condvar, Mutex};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::ThreadId;
use std::time::{Duration, Instant, SystemTime};

/// Default time to wait for the store lock.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);
/// Size above which `audit.log` and `faults.log` rotate to `<name>.1`.
pub const DEFAULT_AUDIT_MAX_BYTES: u64 = 1 << 20;
/// Longest accepted session id.
pub const MAX_SESSION_ID_LEN: usize = 128;
/// Longest accepted cwd.
pub const MAX_CWD_LEN: usize = 4096;
/// Longest detail text kept in an audit or fault line.
pub const MAX_LOG_DETAIL_CHARS: usize = 2000;
/// State files larger than this are refused rather than read.
const MAX_STATE_FILE_BYTES: u64 = 64 << 20;
/// Leftover temporary files older than this are removed by [`Store::list_all`].
const TEMP_FILE_MAX_AGE: Duration = Duration::from_secs(600);

const DIR_MODE: u32 = 0o700;
const FILE_MODE: u32 = 0o600;

// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------

/// Where the store lives and how long it waits for its lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreConfig {
    /// The host's session-state folder (`~/.copilot/session-state`).
    pub session_state: PathBuf,
    /// The goal-system folder (`<session_state>/goal-system` by default).
    pub root: PathBuf,
    /// How long to wait for the cross-process lock.
    pub lock_timeout: Duration,
    /// Size above which the audit and fault logs rotate.
    pub audit_max_bytes: u64,
}

impl StoreConfig {
    /// A configuration with explicit folders and default limits (for tests and embedders).
    pub fn new(session_state: impl Into<PathBuf>, root: impl Into<PathBuf>) -> StoreConfig {
        StoreConfig {
            session_state: session_state.into(),
            root: root.into(),
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            audit_max_bytes: DEFAULT_AUDIT_MAX_BYTES,
        }
    }

    /// From the process environment: `HOME`, `GOAL_SYSTEM_STATE_ROOT`,
    /// `GOAL_SYSTEM_SESSION_STATE`, `GOAL_SYSTEM_LOCK_TIMEOUT_MS`,
    /// `GOAL_SYSTEM_AUDIT_MAX_BYTES`. See [`StoreConfig::from_vars`].
    pub fn from_env() -> Result<StoreConfig> {
        StoreConfig::from_vars(|name| std::env::var_os(name))
    }

    /// From a variable lookup (empty values count as unset):
    /// - `session_state` = `GOAL_SYSTEM_SESSION_STATE`, else the parent of
    ///   `GOAL_SYSTEM_STATE_ROOT` when that is set, else `$HOME/.copilot/session-state`;
    /// - `root` = `GOAL_SYSTEM_STATE_ROOT`, else `<session_state>/goal-system`;
    /// - `lock_timeout` = `GOAL_SYSTEM_LOCK_TIMEOUT_MS` (default 5000);
    /// - `audit_max_bytes` = `GOAL_SYSTEM_AUDIT_MAX_BYTES` (default 1 MiB).
    ///
    /// Relative paths are made absolute against the current directory. Fails
    /// when neither `HOME` nor an override is set.
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Result<StoreConfig> {
        let get = |name: &str| var(name).filter(|v| !v.is_empty());
        let absolute = |value: OsString| -> Result<PathBuf> {
            std::path::absolute(PathBuf::from(&value)).map_err(|e| {
                GoalError::io(
                    format!("cannot resolve state path {:?}", value.to_string_lossy()),
                    e,
                )
            })
        };
        let root_env = get("GOAL_SYSTEM_STATE_ROOT").map(absolute).transpose()?;
        let session_state = match (get("GOAL_SYSTEM_SESSION_STATE"), &root_env) {
            (Some(dir), _) => absolute(dir)?,
            (None, Some(root)) => root
                .parent()
                .map(Path::to_path_buf)
                .ok_or_else(|| {
                    GoalError::new(
                        ErrorCode::Io,
                        format!(
                            "GOAL_SYSTEM_STATE_ROOT {:?} has no parent folder; set GOAL_SYSTEM_SESSION_STATE too",
                            root.display().to_string()
                        ),
                    )
                })?,
            (None, None) => {
                let home = get("HOME").ok_or_else(|| {
                    GoalError::new(
                        ErrorCode::Io,
                        "HOME is not set: cannot locate ~/.copilot/session-state \
                         (set HOME or GOAL_SYSTEM_STATE_ROOT)",
                    )
                })?;
                absolute(home)?.join(".copilot").join("session-state")
            }
        };
        let root = match root_env {
            Some(root) => root,
            None => session_state.join("goal-system"),
        };
        let number = |name: &str| -> Option<u64> {
            get(name).and_then(|v| v.to_str().and_then(|s| s.trim().parse().ok()))
        };
        Ok(StoreConfig {
            session_state,
            root,
            lock_timeout: number("GOAL_SYSTEM_LOCK_TIMEOUT_MS")
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_LOCK_TIMEOUT),
            audit_max_bytes: number("GOAL_SYSTEM_AUDIT_MAX_BYTES")
                .filter(|n| *n > 0)
                .unwrap_or(DEFAULT_AUDIT_MAX_BYTES),
        })
    }
}

// ---------------------------------------------------------------------------
// Validation and names
// ---------------------------------------------------------------------------

/// Quote a user-supplied value for an error message: redacted, truncated and
/// escaped, so a hostile value can neither leak, flood the message nor hide in it.
pub(crate) fn shown(value: &str) -> String {
    format!("{:?}", redact::truncate(&redact::redact(value), 80))
}

/// Redact and bound free text before it reaches a log file.
fn scrub(text: &str) -> String {
    redact::truncate(&redact::redact(text), MAX_LOG_DETAIL_CHARS)
}

fn is_safe_name(name: &str, max: usize) -> bool {
    !name.is_empty()
        && name.len() <= max
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// A session id is 1 to 128 characters of `[A-Za-z0-9._:-]` not starting
/// with `.`: it is used as a file and folder name and can never escape the root.
pub fn validate_session_id(session_id: &str) -> Result<()> {
    if is_safe_name(session_id, MAX_SESSION_ID_LEN) {
        Ok(())
    } else {
        Err(GoalError::new(
            ErrorCode::InvalidSessionId,
            format!(
                "invalid session id {}: expected 1 to {MAX_SESSION_ID_LEN} characters of \
                 A-Z a-z 0-9 . _ : - not starting with '.'",
                shown(session_id)
            ),
        ))
    }
}

/// A cwd must be an absolute path without NUL and without `..` components.
pub fn validate_cwd(cwd: &str) -> Result<()> {
    let problem = if cwd.is_empty() {
        Some("it is empty")
    } else if cwd.len() > MAX_CWD_LEN {
        Some("it is too long")
    } else if cwd.contains('\0') {
        Some("it contains a NUL character")
    } else if !cwd.starts_with('/') {
        Some("it is not absolute")
    } else if Path::new(cwd)
        .components()
        .any(|c| c == Component::ParentDir)
    {
        Some("it contains a '..' component")
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(why) => Err(GoalError::new(
            ErrorCode::InvalidCwd,
            format!("invalid cwd {}: {why}", shown(cwd)),
        )),
    }
}

/// The cwd as hashed and compared: trailing slashes stripped (`/` stays `/`).
pub fn normalize_cwd(cwd: &str) -> &str {
    let trimmed = cwd.trim_end_matches('/');
    if trimmed.is_empty() && cwd.starts_with('/') {
        "/"
    } else {
        trimmed
    }
}

/// First 16 hex characters of the SHA-256 of the normalized cwd.
pub fn cwd_hash(cwd: &str) -> String {
    let digest = Sha256::digest(normalize_cwd(cwd).as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The archive file name of a goal id: the id itself when it is a safe file
/// name, else a hash of it.
fn archive_name(goal_id: &str) -> String {
    if is_safe_name(goal_id, 200) {
        format!("{goal_id}.json")
    } else {
        let digest = Sha256::digest(goal_id.as_bytes());
        let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        format!("id-{hex}.json")
    }
}

/// Parse an RFC 3339 time stamp (`2026-11-22T05:16:00.123Z`, offsets and
/// missing fractions accepted) to milliseconds since the epoch.
pub fn parse_rfc3339_ms(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    if b.len() < 19 {
        return None;
    }
    let digits = |from: usize, to: usize| -> Option<i64> {
        let mut n = 0i64;
        for &c in &b[from..to] {
            if !c.is_ascii_digit() {
                return None;
            }
            n = n * 10 + i64::from(c - b'0');
        }
        Some(n)
    };
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 7)?, digits(8, 10)?);
    let (hour, minute, second) = (digits(11, 13)?, digits(14, 16)?, digits(17, 19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        let count = i - start;
        if count == 0 {
            return None;
        }
        for _ in count..3 {
            millis *= 10;
        }
    }
    let offset_secs = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let rest = &b[i + 1..];
            let (h, m) = match rest.len() {
                5 if rest[2] == b':' => (digits(i + 1, i + 3)?, digits(i + 4, i + 6)?),
                4 => (digits(i + 1, i + 3)?, digits(i + 3, i + 5)?),
                _ => return None,
            };
            let secs = h * 3600 + m * 60;
            if sign == b'+' {
                secs
            } else {
                -secs
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    Some((days * 86_400 + hour * 3600 + minute * 60 + second - offset_secs) * 1000 + millis)
}

// Howard Hinnant's days-from-civil algorithm.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

// ---------------------------------------------------------------------------
// Low-level file helpers
// ---------------------------------------------------------------------------

fn io_err(context: impl std::fmt::Display, err: std::io::Error) -> GoalError {
    GoalError::io(context, err)
}

/// Tighten a mode we own if it is looser than wanted; failures (not our file) are ignored.
fn tighten(path: &Path, meta: &fs::Metadata, want: u32) {
    if meta.mode() & 0o777 & !want != 0 {
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(want));
    }
}

/// Make sure `dir` is a real folder (not a symlink), creating it 0700 if
/// missing, and tighten its mode when `tighten_existing` is set.
fn ensure_dir(dir: &Path, tighten_existing: bool) -> Result<()> {
    for _ in 0..3 {
        match fs::symlink_metadata(dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(GoalError::new(
                    ErrorCode::Io,
                    format!("refusing to use {}: it is a symbolic link", dir.display()),
                ))
            }
            Ok(meta) if meta.is_dir() => {
                if tighten_existing {
                    tighten(dir, &meta, DIR_MODE);
                }
                return Ok(());
            }
            Ok(_) => {
                return Err(GoalError::new(
                    ErrorCode::Io,
                    format!("{} exists and is not a folder", dir.display()),
                ))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                match fs::DirBuilder::new()
                    .recursive(true)
                    .mode(DIR_MODE)
                    .create(dir)
                {
                    Ok(()) => {
                        // The umask may have removed bits we need; set exactly 0700.
                        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(DIR_MODE));
                        return Ok(());
                    }
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io_err(format!("cannot create {}", dir.display()), e)),
                }
            }
            Err(e) => return Err(io_err(format!("cannot inspect {}", dir.display()), e)),
        }
    }
    Err(GoalError::new(
        ErrorCode::Io,
        format!("{} keeps changing while being created", dir.display()),
    ))
}

fn fsync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_err(format!("cannot fsync folder {}", dir.display()), e))
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Whether a file name is one of our temporary files.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp-")
}

/// Atomically replace `dir/name` with `bytes`: temp file (0600, created
/// exclusively), fsync, rename, folder fsync. A symlink at the target is
/// replaced, never followed.
fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
    let target = dir.join(name);
    let written = (|| -> std::io::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, &target)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(io_err(format!("cannot write {}", target.display()), e));
    }
    fsync_dir(dir)
}

/// What reading a state file found.
enum Found {
    Missing,
    /// Present but not read (symlink, not a regular file, too large, unreadable).
    Refused(String),
    Data {
        bytes: Vec<u8>,
        ino: u64,
        dev: u64,
        mtime_ns: i128,
    },
}

/// Read a state file without following symlinks: `lstat`, open, then check
/// that the opened file is the regular file `lstat` saw.
fn read_state_file(path: &Path) -> Found {
    for _ in 0..5 {
        let before = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == ErrorKind::NotFound => return Found::Missing,
            Err(e) => return Found::Refused(format!("cannot inspect {}: {e}", path.display())),
        };
        if before.file_type().is_symlink() {
            return Found::Refused(format!(
                "{} is a symbolic link; refused, not followed",
                path.display()
            ));
        }
        if !before.is_file() {
            return Found::Refused(format!("{} is not a regular file; ignored", path.display()));
        }
        if before.len() > MAX_STATE_FILE_BYTES {
            return Found::Refused(format!(
                "{} is {} bytes, larger than any goal; ignored",
                path.display(),
                before.len()
            ));
        }
        let mut file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Found::Refused(format!("cannot open {}: {e}", path.display())),
        };
        let opened = match file.metadata() {
            Ok(meta) => meta,
            Err(e) => return Found::Refused(format!("cannot inspect {}: {e}", path.display())),
        };
        if opened.ino() != before.ino() || opened.dev() != before.dev() {
            // Replaced between lstat and open (a concurrent rename): look again.
            continue;
        }
        let mut bytes = Vec::with_capacity(opened.len() as usize);
        if let Err(e) = (&mut file)
            .take(MAX_STATE_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
        {
            return Found::Refused(format!("cannot read {}: {e}", path.display()));
        }
        return Found::Data {
            bytes,
            ino: opened.ino(),
            dev: opened.dev(),
            mtime_ns: i128::from(opened.mtime()) * 1_000_000_000 + i128::from(opened.mtime_nsec()),
        };
    }
    Found::Refused(format!(
        "{} kept changing while being read; ignored",
        path.display()
    ))
}

/// Move a corrupt file aside as `<name>.corrupt-<ms>[-n]`, never overwriting
/// an earlier one and never deleting anything. Only moves it if it is still
/// the file that was read (same inode).
fn quarantine(path: &Path, ino: u64, dev: u64) -> std::io::Result<Option<PathBuf>> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.ino() == ino && meta.dev() == dev && meta.is_file() => {}
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    }
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    let ms = now_ms();
    for n in 0..1000u32 {
        let name = if n == 0 {
            format!("{base}.corrupt-{ms}")
        } else {
            format!("{base}.corrupt-{ms}-{n}")
        };
        let dest = dir.join(name);
        match fs::hard_link(path, &dest) {
            Ok(()) => {
                fs::remove_file(path)?;
                let _ = File::open(dir).and_then(|d| d.sync_all());
                return Ok(Some(dest));
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(_) => {
                // No hard links here (some file systems): rename, after checking
                // that nothing is in the way.
                if fs::symlink_metadata(&dest).is_ok() {
                    continue;
                }
                fs::rename(path, &dest)?;
                let _ = File::open(dir).and_then(|d| d.sync_all());
                return Ok(Some(dest));
            }
        }
    }
    Err(std::io::Error::other("no free quarantine name"))
}

// ---------------------------------------------------------------------------
// Lock
// ---------------------------------------------------------------------------

/// Lock files held by this process, and by which thread.
static HELD: Mutex<Vec<(PathBuf, ThreadId)>> = Mutex::new(Vec::new());
static RELEASED: Condvar = Condvar::new();

/// The store lock: released (both the in-process part and the `flock`) on drop.
#[must_use = "the store lock is released when this guard is dropped"]
pub struct StoreLock {
    file: Option<File>,
    key: PathBuf,
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            let _ = file.unlock();
        }
        HELD.lock().retain(|(path, _)| path != &self.key);
        RELEASED.notify_all();
    }
}

fn lock_timeout_error(path: &Path, timeout: Duration, who: &str) -> GoalError {
    GoalError::new(
        ErrorCode::LockTimeout,
        format!(
            "could not take the store lock {} within {} ms: {who} is holding it",
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
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .open(path)
        .map_err(|e| io_err(format!("cannot open lock file {}", path.display()), e))?;
    if let Ok(meta) = file.metadata() {
        tighten(path, &meta, FILE_MODE);
    }
    Ok(file)
}

// ---------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------

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

/// A compact snapshot and its metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct Compact {
    pub text: String,
    /// The `.txt.json` metadata; `Null` when missing or unreadable (see `warnings`).
    pub meta: Value,
    pub warnings: Vec<String>,
}

/// One valid copy of a goal, with where it came from.
#[derive(Debug, Clone)]
struct Copy {
    goal: Goal,
    path: PathBuf,
    mtime_ns: i128,
}

impl Copy {
    /// Newest first: updatedAt (parsed), then revision, then file time.
    fn key(&self) -> (i64, u64, i128) {
        (
            parse_rfc3339_ms(&self.goal.updated_at).unwrap_or(i64::MIN),
            self.goal.revision,
            self.mtime_ns,
        )
    }
}

/// Keep the newest copy per goal id.
fn newest_by_id(copies: impl IntoIterator<Item = Copy>) -> HashMap<String, Copy> {
    let mut by_id: HashMap<String, Copy> = HashMap::new();
    for copy in copies {
        match by_id.get(&copy.goal.id) {
            Some(kept) if kept.key() >= copy.key() => {}
            _ => {
                by_id.insert(copy.goal.id.clone(), copy);
            }
        }
    }
    by_id
}

/// Goals newest first (ties broken by id, so the order is stable).
fn sorted_newest_first(map: HashMap<String, Copy>) -> Vec<Goal> {
    let mut copies: Vec<Copy> = map.into_values().collect();
    copies.sort_by(|a, b| {
        b.key()
            .cmp(&a.key())
            .then_with(|| a.goal.id.cmp(&b.goal.id))
    });
    copies.into_iter().map(|c| c.goal).collect()
}

/// The durable goal store. Cheap to construct; holds no open files.
#[derive(Debug, Clone)]
pub struct Store {
    pub config: StoreConfig,
}

impl Store {
    pub fn new(config: StoreConfig) -> Store {
        Store { config }
    }

    /// A store configured from the environment ([`StoreConfig::from_env`]).
    pub fn from_env() -> Result<Store> {
        Ok(Store::new(StoreConfig::from_env()?))
    }

    // -- paths ------------------------------------------------------------

    fn by_session_dir(&self) -> PathBuf {
        self.config.root.join("by-session")
    }
    fn by_cwd_dir(&self) -> PathBuf {
        self.config.root.join("by-cwd-session")
    }
    fn compact_dir(&self) -> PathBuf {
        self.config.root.join("compact")
    }
    fn archive_dir(&self) -> PathBuf {
        self.config.root.join("archive")
    }

    /// `<root>/by-session/<session>.json` (session id assumed valid).
    pub fn by_session_path(&self, session_id: &str) -> PathBuf {
        self.by_session_dir().join(format!("{session_id}.json"))
    }
    /// `<session_state>/<session>/goal-state.json` (session id assumed valid).
    pub fn session_local_path(&self, session_id: &str) -> PathBuf {
        self.config
            .session_state
            .join(session_id)
            .join("goal-state.json")
    }
    /// `<root>/by-cwd-session/<cwd-hash>--<session>.json` (session id assumed valid).
    pub fn by_cwd_path(&self, cwd: &str, session_id: &str) -> PathBuf {
        self.by_cwd_dir()
            .join(format!("{}--{session_id}.json", cwd_hash(cwd)))
    }
    /// `<root>/archive/<goal-id>.json` (a hash of the id if it is not a safe file name).
    pub fn archive_path(&self, goal_id: &str) -> PathBuf {
        self.archive_dir().join(archive_name(goal_id))
    }
    /// `<root>/compact/<session>.txt` (session id assumed valid).
    pub fn compact_text_path(&self, session_id: &str) -> PathBuf {
        self.compact_dir().join(format!("{session_id}.txt"))
    }
    /// `<root>/compact/<session>.txt.json` (session id assumed valid).
    pub fn compact_meta_path(&self, session_id: &str) -> PathBuf {
        self.compact_dir().join(format!("{session_id}.txt.json"))
    }
    pub fn audit_path(&self) -> PathBuf {
        self.config.root.join("audit.log")
    }
    pub fn faults_path(&self) -> PathBuf {
        self.config.root.join("faults.log")
    }
    pub fn lock_path(&self) -> PathBuf {
        self.config.root.join(".lock")
    }

    /// Create the root (0700) or tighten it. A root that is itself a symlink
    /// (the user's choice, e.g. a dotfiles folder) is used as is.
    fn ensure_root(&self) -> Result<()> {
        let root = &self.config.root;
        if let Ok(meta) = fs::symlink_metadata(root) {
            if meta.file_type().is_symlink() {
                return match fs::metadata(root) {
                    Ok(target) if target.is_dir() => Ok(()),
                    _ => Err(GoalError::new(
                        ErrorCode::Io,
                        format!("{} is a symbolic link to no folder", root.display()),
                    )),
                };
            }
        }
        ensure_dir(root, true)
    }

    fn ensure_subdir(&self, dir: &Path) -> Result<()> {
        self.ensure_root()?;
        ensure_dir(dir, true)
    }

    // -- lock -------------------------------------------------------------

    /// Take the store lock (in-process, then `flock` on `<root>/.lock`),
    /// waiting at most `lock_timeout`. Not re-entrant: a second call from the
    /// thread that holds it fails at once with `LOCK_TIMEOUT`.
    pub fn lock(&self) -> Result<StoreLock> {
        let timeout = self.config.lock_timeout;
        let deadline = Instant::now() + timeout;
        let key = self.lock_path();
        let me = std::thread::current().id();
        {
            let mut held = HELD.lock();
            loop {
                let holder = held.iter().find(|(p, _)| p == &key).map(|(_, t)| *t);
                match holder {
                    None => break,
                    Some(thread) if thread == me => {
                        return Err(GoalError::new(
                            ErrorCode::LockTimeout,
                            format!(
                                "the store lock {} is already held by this thread (re-entrant store call)",
                                key.display()
                            ),
                        ))
                    }
                    Some(_) => {
                        if RELEASED.wait_until(&mut held, deadline).timed_out()
                            && held.iter().any(|(p, _)| p == &key)
                        {
                            return Err(lock_timeout_error(&key, timeout, "another thread"));
                        }
                    }
                }
            }
            held.push((key.clone(), me));
        }
        // From here on, dropping `guard` releases the in-process part.
        let mut guard = StoreLock { file: None, key };
        self.ensure_root()?;
        let file = open_lock_file(&guard.key)?;
        let mut pause = Duration::from_millis(1);
        let jitter = u64::from(std::process::id() % 3);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(lock_timeout_error(&guard.key, timeout, "another process"));
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

    // -- reading ----------------------------------------------------------

    /// Read one goal copy. Corrupt files are quarantined when `quarantine_corrupt`
    /// (only done under the lock); copies of another session are ignored.
    fn read_copy(
        &self,
        path: &Path,
        session_id: Option<&str>,
        quarantine_corrupt: bool,
        warnings: &mut Vec<String>,
    ) -> Option<Copy> {
        let (bytes, ino, dev, mtime_ns) = match read_state_file(path) {
            Found::Missing => return None,
            Found::Refused(why) => {
                warnings.push(why);
                return None;
            }
            Found::Data {
                bytes,
                ino,
                dev,
                mtime_ns,
            } => (bytes, ino, dev, mtime_ns),
        };
        match serde_json::from_slice::<Goal>(&bytes) {
            Ok(goal) => {
                if let Some(session) = session_id {
                    if goal.session_id != session {
                        warnings.push(format!(
                            "{} holds a goal of session {}, not {}; ignored",
                            path.display(),
                            shown(&goal.session_id),
                            shown(session)
                        ));
                        return None;
                    }
                }
                Some(Copy {
                    goal,
                    path: path.to_path_buf(),
                    mtime_ns,
                })
            }
            Err(err) => {
                if !quarantine_corrupt {
                    warnings.push(format!(
                        "{} is not a valid goal record ({err}); ignored",
                        path.display()
                    ));
                    return None;
                }
                match quarantine(path, ino, dev) {
                    Ok(Some(dest)) => warnings.push(format!(
                        "{} was corrupt ({err}); moved aside to {}",
                        path.display(),
                        dest.display()
                    )),
                    Ok(None) => warnings.push(format!(
                        "{} was corrupt ({err}) and changed while being moved aside; ignored",
                        path.display()
                    )),
                    Err(e) => warnings.push(format!(
                        "{} is corrupt ({err}) and could not be moved aside: {e}; ignored",
                        path.display()
                    )),
                }
                None
            }
        }
    }

    /// The by-cwd-session files of one session, in any directory.
    fn cwd_files_of_session(&self, session_id: &str) -> Vec<PathBuf> {
        let suffix = format!("--{session_id}.json");
        let mut found = Vec::new();
        let Ok(entries) = fs::read_dir(self.by_cwd_dir()) else {
            return found;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.len() == 16 + suffix.len()
                && name.ends_with(&suffix)
                && name.as_bytes()[..16].iter().all(u8::is_ascii_hexdigit)
            {
                found.push(entry.path());
            }
        }
        found.sort();
        found
    }

    /// All valid copies of a session's goal.
    fn session_copies(
        &self,
        session_id: &str,
        cwd: Option<&str>,
        quarantine_corrupt: bool,
        warnings: &mut Vec<String>,
    ) -> Vec<Copy> {
        let mut paths = vec![
            self.by_session_path(session_id),
            self.session_local_path(session_id),
        ];
        match cwd {
            Some(cwd) => paths.push(self.by_cwd_path(cwd, session_id)),
            None => paths.extend(self.cwd_files_of_session(session_id)),
        }
        paths
            .iter()
            .filter_map(|p| self.read_copy(p, Some(session_id), quarantine_corrupt, warnings))
            .collect()
    }

    fn newest(copies: &[Copy]) -> Option<Goal> {
        // `max_by_key` keeps the last maximum; iterate reversed so that on a
        // full tie the by-session copy (first) wins.
        copies
            .iter()
            .rev()
            .max_by_key(|c| c.key())
            .map(|c| c.goal.clone())
    }

    /// The session's goal: the newest valid of its three copies. Corrupt
    /// copies are moved aside (`<name>.corrupt-<ms>`) and reported in
    /// `warnings`; symlinks are refused and reported. Takes the lock.
    pub fn load(&self, session_id: &str, cwd: Option<&str>) -> Result<Loaded> {
        validate_session_id(session_id)?;
        if let Some(cwd) = cwd {
            validate_cwd(cwd)?;
        }
        let _lock = self.lock()?;
        let mut warnings = Vec::new();
        let copies = self.session_copies(session_id, cwd, true, &mut warnings);
        Ok(Loaded {
            goal: Store::newest(&copies),
            warnings,
        })
    }

    /// The session's goal without taking the lock or setting anything aside:
    /// for read-only views that run often (the status line). `None` for an
    /// invalid session id or no goal.
    pub fn peek_session(&self, session_id: &str) -> Option<Goal> {
        validate_session_id(session_id).ok()?;
        let mut ignored = Vec::new();
        Store::newest(&self.session_copies(session_id, None, false, &mut ignored))
    }

    // -- writing ----------------------------------------------------------

    /// Read-modify-write under one lock: load the session's goal, call `f`
    /// with it (and the warnings so far, which it may extend), then persist
    /// what `f` asked for. This is what prevents lost updates between hook
    /// processes. `f` must not call locking store methods (see module docs).
    /// Returns `f`'s value and the warnings.
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
        let _lock = self.lock()?;
        let mut warnings = Vec::new();
        let copies = self.session_copies(session_id, cwd, true, &mut warnings);
        let current = Store::newest(&copies);
        let (change, value) = f(current.clone(), &mut warnings)?;
        let goal = match change {
            Change::None => current,
            Change::Save(goal) => {
                Some(self.persist(session_id, goal, &copies, cwd, true, &mut warnings)?)
            }
            Change::Replace { old, new } => {
                self.archive(old, &copies)?;
                Some(self.persist(session_id, new, &copies, cwd, true, &mut warnings)?)
            }
        };
        Ok(Modified {
            value,
            goal,
            warnings,
        })
    }

    /// Write `goal` exactly as given (no revision bump) to its session's
    /// three places, under the lock. Returns warnings (e.g. a session-local
    /// copy that could not be written).
    pub fn save(&self, goal: &Goal) -> Result<Vec<String>> {
        validate_session_id(&goal.session_id)?;
        validate_cwd(&goal.cwd)?;
        let _lock = self.lock()?;
        let mut warnings = Vec::new();
        let copies = self.session_copies(&goal.session_id, Some(&goal.cwd), true, &mut warnings);
        self.persist(
            &goal.session_id.clone(),
            goal.clone(),
            &copies,
            None,
            false,
            &mut warnings,
        )?;
        Ok(warnings)
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

    fn archive(&self, mut old: Goal, copies: &[Copy]) -> Result<()> {
        Store::bump(&mut old, copies);
        let dir = self.archive_dir();
        self.ensure_subdir(&dir)?;
        write_atomic(&dir, &archive_name(&old.id), &to_bytes(&old)?)
    }

    /// Write the three copies (session-local last-chance: its failure is a
    /// warning), then remove by-cwd-session files of this session left in
    /// other directories.
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
        let bytes = to_bytes(&goal)?;

        let cwd_dir = self.by_cwd_dir();
        self.ensure_subdir(&cwd_dir)?;
        let cwd_name = format!("{}--{session_id}.json", cwd_hash(&goal.cwd));
        let session_dir = self.by_session_dir();
        self.ensure_subdir(&session_dir)?;

        // The three copies go to three folders: writing them side by side
        // overlaps their fsyncs, which are most of a hook's cost. Each write is
        // atomic on its own, and reads take the newest valid copy.
        let (by_cwd, local, by_session) = std::thread::scope(|scope| {
            let by_cwd = scope.spawn(|| write_atomic(&cwd_dir, &cwd_name, &bytes));
            let local = scope.spawn(|| self.write_session_local(session_id, &bytes));
            let by_session = write_atomic(&session_dir, &format!("{session_id}.json"), &bytes);
            let joined = |r: std::thread::Result<Result<()>>| {
                r.unwrap_or_else(|_| Err(GoalError::new(ErrorCode::Io, "a state writer panicked")))
            };
            (joined(by_cwd.join()), joined(local.join()), by_session)
        });
        by_cwd?;
        by_session?;
        if let Err(e) = local {
            warnings.push(format!(
                "session-local copy {} not written: {}",
                self.session_local_path(session_id).display(),
                e.message
            ));
        }

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
        let mut removed = false;
        for path in stale {
            if fs::symlink_metadata(&path).is_ok() {
                match fs::remove_file(&path) {
                    Ok(()) => removed = true,
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => {
                        warnings.push(format!("stale copy {} not removed: {e}", path.display()))
                    }
                }
            }
        }
        if removed {
            let _ = fsync_dir(&cwd_dir);
        }
        Ok(goal)
    }

    fn write_session_local(&self, session_id: &str, bytes: &[u8]) -> Result<()> {
        let parent = &self.config.session_state;
        if fs::symlink_metadata(parent).is_err() {
            ensure_dir(parent, false)?;
        }
        // The session folder may be the host's: create it 0700 if missing,
        // but do not change the mode of a folder the host made.
        let dir = parent.join(session_id);
        ensure_dir(&dir, false)?;
        write_atomic(&dir, "goal-state.json", bytes)
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
            if let Some(copy) = self.read_copy(&entry.path(), Some(session), false, &mut ignored) {
                if normalize_cwd(&copy.goal.cwd) == wanted {
                    copies.push(copy);
                }
            }
        }
        let mut by_id = newest_by_id(copies);
        // A newer archived copy (a replaced or superseded goal) wins.
        let archived: Vec<Copy> = by_id
            .keys()
            .filter_map(|id| self.read_copy(&self.archive_path(id), None, false, &mut ignored))
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
        let mut copies = Vec::new();
        for dir in [self.by_session_dir(), self.archive_dir()] {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(format!("cannot list {}", dir.display()), e)),
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if name.starts_with('.') || !name.ends_with(".json") {
                    continue;
                }
                if let Some(copy) = self.read_copy(&entry.path(), None, false, &mut ignored) {
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
            let copies = self.session_copies(key, None, false, &mut ignored);
            if let Some(goal) = Store::newest(&copies) {
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
    /// from the store's folders; returns how many were removed.
    pub fn sweep_temp_files(&self, older_than: Duration) -> usize {
        let cutoff = SystemTime::now().checked_sub(older_than);
        let mut removed = 0;
        for dir in [
            self.by_session_dir(),
            self.by_cwd_dir(),
            self.archive_dir(),
            self.compact_dir(),
        ] {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                if !name.to_str().is_some_and(is_temp_name) {
                    continue;
                }
                let path = entry.path();
                let Ok(meta) = fs::symlink_metadata(&path) else {
                    continue;
                };
                let old = match (cutoff, meta.modified()) {
                    (Some(cutoff), Ok(modified)) => modified <= cutoff,
                    _ => false,
                };
                if meta.is_file() && old && fs::remove_file(&path).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }

    // -- compact snapshots ----------------------------------------------------

    /// Write `compact/<session>.txt` and `<session>.txt.json` atomically, under the lock.
    pub fn write_compact(&self, session_id: &str, text: &str, meta: &Value) -> Result<()> {
        validate_session_id(session_id)?;
        let _lock = self.lock()?;
        let dir = self.compact_dir();
        self.ensure_subdir(&dir)?;
        write_atomic(&dir, &format!("{session_id}.txt"), text.as_bytes())?;
        let mut meta_bytes = serde_json::to_vec_pretty(meta)
            .map_err(|e| GoalError::invalid(format!("compact metadata: {e}")))?;
        meta_bytes.push(b'\n');
        write_atomic(&dir, &format!("{session_id}.txt.json"), &meta_bytes)
    }

    /// The session's compact snapshot, if any (symlinks refused, like state files).
    pub fn read_compact(&self, session_id: &str) -> Result<Option<Compact>> {
        validate_session_id(session_id)?;
        let mut warnings = Vec::new();
        let text = match read_state_file(&self.compact_text_path(session_id)) {
            Found::Missing => return Ok(None),
            Found::Refused(why) => {
                return Err(GoalError::new(ErrorCode::Corrupt, why));
            }
            Found::Data { bytes, .. } => String::from_utf8_lossy(&bytes).into_owned(),
        };
        let meta_path = self.compact_meta_path(session_id);
        let meta = match read_state_file(&meta_path) {
            Found::Missing => Value::Null,
            Found::Refused(why) => {
                warnings.push(why);
                Value::Null
            }
            Found::Data { bytes, .. } => match serde_json::from_slice(&bytes) {
                Ok(value) => value,
                Err(e) => {
                    warnings.push(format!("{} is not valid JSON: {e}", meta_path.display()));
                    Value::Null
                }
            },
        };
        Ok(Some(Compact {
            text,
            meta,
            warnings,
        }))
    }

    // -- logs -------------------------------------------------------------------

    /// Append one JSON line `{at, event, sessionId, goalId, status, detail}`
    /// to `audit.log` (detail redacted and truncated), rotating to
    /// `audit.log.1` past `audit_max_bytes`. Best effort: never fails; returns
    /// a warning when the line could not be written.
    pub fn audit(&self, event: &str, goal: Option<&Goal>, detail: &str) -> Option<String> {
        let line = json!({
            "at": now_iso(),
            "event": redact::truncate(event, 100),
            "sessionId": goal.map(|g| g.session_id.as_str()),
            "goalId": goal.map(|g| g.id.as_str()),
            "status": goal.map(|g| g.completion_status.as_str()),
            "detail": scrub(detail),
        });
        self.append_log(&self.audit_path(), &line)
            .err()
            .map(|e| format!("audit log not written: {}", e.message))
    }

    /// Append one JSON line `{at, pid, context, message}` to `faults.log`
    /// (redacted, truncated, rotated like the audit log). Best effort.
    pub fn record_fault(&self, context: &str, message: &str) -> Option<String> {
        let line = json!({
            "at": now_iso(),
            "pid": std::process::id(),
            "context": scrub(context),
            "message": scrub(message),
        });
        self.append_log(&self.faults_path(), &line)
            .err()
            .map(|e| format!("fault log not written: {}", e.message))
    }

    /// Append a line to a log, serialized across processes by an `flock` on
    /// the log file itself (so it never waits for the store lock, and may be
    /// called inside a `modify` closure).
    fn append_log(&self, path: &Path, line: &Value) -> Result<()> {
        self.ensure_root()?;
        let mut text = line.to_string();
        text.push('\n');
        let rotated = {
            let mut name = path.file_name().unwrap_or_default().to_os_string();
            name.push(".1");
            path.with_file_name(name)
        };
        let deadline = Instant::now() + Duration::from_secs(1);
        for _ in 0..8 {
            if let Ok(meta) = fs::symlink_metadata(path) {
                if !meta.is_file() {
                    return Err(GoalError::new(
                        ErrorCode::Io,
                        format!("refusing log {}: not a regular file", path.display()),
                    ));
                }
            }
            let mut file = OpenOptions::new()
                .append(true)
                .create(true)
                .mode(FILE_MODE)
                .open(path)
                .map_err(|e| io_err(format!("cannot open {}", path.display()), e))?;
            let locked = loop {
                match file.try_lock() {
                    Ok(()) => break true,
                    Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(2))
                    }
                    Err(_) => break false,
                }
            };
            let opened = file
                .metadata()
                .map_err(|e| io_err(format!("cannot inspect {}", path.display()), e))?;
            // The path may have been rotated or swapped since we opened it.
            let current = fs::symlink_metadata(path).ok();
            let same = current
                .as_ref()
                .is_some_and(|m| m.ino() == opened.ino() && m.dev() == opened.dev());
            if !same {
                continue;
            }
            tighten(path, &opened, FILE_MODE);
            if locked
                && opened.len() > 0
                && opened.len() + text.len() as u64 > self.config.audit_max_bytes
            {
                fs::rename(path, &rotated)
                    .map_err(|e| io_err(format!("cannot rotate {}", path.display()), e))?;
                continue;
            }
            file.write_all(text.as_bytes())
                .map_err(|e| io_err(format!("cannot append to {}", path.display()), e))?;
            return Ok(());
        }
        Err(GoalError::new(
            ErrorCode::Io,
            format!("{} kept changing while being appended to", path.display()),
        ))
    }
}

fn to_bytes(goal: &Goal) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(goal)
        .map_err(|e| GoalError::invalid(format!("goal {} cannot be serialized: {e}", goal.id)))?;
    bytes.push(b'\n');
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::iso_from_ms;

    #[test]
    fn parses_what_the_clock_writes() {
        for ms in [0u64, 951_782_400_123, 1_795_000_000_000, 1_795_000_000_999] {
            assert_eq!(parse_rfc3339_ms(&iso_from_ms(ms)), Some(ms as i64));
        }
        assert_eq!(parse_rfc3339_ms("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00.5Z"), Some(500));
        assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00"), Some(0));
        assert_eq!(parse_rfc3339_ms(""), None);
        assert_eq!(parse_rfc3339_ms("yesterday at noon"), None);
        assert_eq!(parse_rfc3339_ms("1970-13-01T00:00:00Z"), None);
    }

    #[test]
    fn cwd_hash_ignores_trailing_slashes() {
        assert_eq!(cwd_hash("/work/x"), cwd_hash("/work/x///"));
        assert_ne!(cwd_hash("/work/x"), cwd_hash("/work/y"));
        assert_eq!(cwd_hash("/a").len(), 16);
        assert_eq!(normalize_cwd("/"), "/");
        assert_eq!(normalize_cwd("///"), "/");
    }

    #[test]
    fn names_are_checked() {
        assert!(validate_session_id("0a1b-C2:d3_e4.f5").is_ok());
        for bad in ["", ".", "..", "../x", "a/b", ".hidden", "a\0b", "a b", "é"] {
            let err = validate_session_id(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidSessionId, "{bad:?}");
        }
        assert!(validate_session_id(&"a".repeat(128)).is_ok());
        assert!(validate_session_id(&"a".repeat(129)).is_err());
        assert_eq!(archive_name("goal-12ab"), "goal-12ab.json");
        assert!(archive_name("../evil").starts_with("id-"));
    }
}
