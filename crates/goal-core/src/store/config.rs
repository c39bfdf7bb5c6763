//! Where the store lives and its limits, from explicit folders or the environment.

use crate::error::{ErrorCode, GoalError, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default time to wait for a session's lock.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);
/// Size above which `audit.log` and `faults.log` rotate to `<name>.1`.
pub const DEFAULT_AUDIT_MAX_BYTES: u64 = 1 << 20;

/// The user's home folder from a variable lookup: `HOME`, else `USERPROFILE`
/// (Windows sets no `HOME` outside shells that emulate one). Empty values
/// count as unset. The one rule the store, the guard and the host lookups share.
pub fn home_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    ["HOME", "USERPROFILE"]
        .iter()
        .find_map(|name| var(name).filter(|v| !v.is_empty()))
        .map(PathBuf::from)
}

/// The user's home folder from the process environment (see [`home_from`]).
pub fn home_dir() -> Option<PathBuf> {
    home_from(|name| std::env::var_os(name))
}

/// Claude Code's folders from a variable lookup: `<home>/.claude` and
/// `CLAUDE_CONFIG_DIR`.
pub fn claude_dirs_from(var: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    home_from(&var)
        .map(|h| h.join(".claude"))
        .into_iter()
        .chain(
            var("CLAUDE_CONFIG_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        )
        .collect()
}

/// Where the store lives and how long it waits for its lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreConfig {
    /// The host's session-state folder (`~/.copilot/session-state`).
    pub session_state: PathBuf,
    /// The goal-system folder (`<session_state>/goal-system` by default).
    pub root: PathBuf,
    /// How long to wait for a session's cross-process lock.
    pub lock_timeout: Duration,
    /// Size above which the audit and fault logs rotate.
    pub audit_max_bytes: u64,
    /// Where Claude Code keeps its configuration and transcripts
    /// (`<home>/.claude`, `CLAUDE_CONFIG_DIR`): a transcript named in a hook
    /// payload is read only from there.
    pub claude_dirs: Vec<PathBuf>,
}

impl StoreConfig {
    /// Copilot CLI's record of a session: `<session_state>/<session>/events.jsonl`
    /// (None for a session id that is not a plain name).
    pub fn copilot_events(&self, session_id: &str) -> Option<PathBuf> {
        super::validate_session_id(session_id).ok()?;
        Some(self.session_state.join(session_id).join("events.jsonl"))
    }

    /// A configuration with explicit folders and default limits (for tests and embedders).
    pub fn new(session_state: impl Into<PathBuf>, root: impl Into<PathBuf>) -> StoreConfig {
        StoreConfig {
            session_state: session_state.into(),
            root: root.into(),
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            audit_max_bytes: DEFAULT_AUDIT_MAX_BYTES,
            claude_dirs: home_dir().map(|h| h.join(".claude")).into_iter().collect(),
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
    ///   `GOAL_SYSTEM_STATE_ROOT` when that is set, else `<home>/.copilot/session-state`
    ///   (home: `HOME`, else `USERPROFILE`);
    /// - `root` = `GOAL_SYSTEM_STATE_ROOT`, else `<session_state>/goal-system`;
    /// - `lock_timeout` = `GOAL_SYSTEM_LOCK_TIMEOUT_MS` (default 5000);
    /// - `audit_max_bytes` = `GOAL_SYSTEM_AUDIT_MAX_BYTES` (default 1 MiB).
    ///
    /// Relative paths are made absolute against the current directory. Fails
    /// when no home folder nor an override is set.
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
                let home = home_from(get).ok_or_else(|| {
                    GoalError::new(
                        ErrorCode::Io,
                        "neither HOME nor USERPROFILE is set: cannot locate ~/.copilot/session-state \
                         (set HOME or GOAL_SYSTEM_STATE_ROOT)",
                    )
                })?;
                absolute(home.into_os_string())?.join(".copilot").join("session-state")
            }
        };
        let root = match root_env {
            Some(root) => root,
            None => session_state.join("goal-system"),
        };
        let number = |name: &str| -> Option<u64> {
            get(name).and_then(|v| v.to_str().and_then(|s| s.trim().parse().ok()))
        };
        let claude_dirs = claude_dirs_from(get);
        Ok(StoreConfig {
            session_state,
            root,
            lock_timeout: number("GOAL_SYSTEM_LOCK_TIMEOUT_MS")
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_LOCK_TIMEOUT),
            audit_max_bytes: number("GOAL_SYSTEM_AUDIT_MAX_BYTES")
                .filter(|n| *n > 0)
                .unwrap_or(DEFAULT_AUDIT_MAX_BYTES),
            claude_dirs,
        })
    }
}
