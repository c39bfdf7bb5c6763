//! The audit log (one JSON line per goal event) and the fault log (internal
//! errors hit by hooks), both redacted, bounded and rotated by size.

use super::files::{identity, io_err, private_file_options, tighten, Private};
use super::Store;
use crate::clock::now_iso;
use crate::error::{ErrorCode, GoalError, Result};
use crate::record::Goal;
use crate::redact;
use serde_json::{json, Value};
use std::fs::{self, TryLockError};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Longest detail text kept in an audit or fault line.
pub const MAX_LOG_DETAIL_CHARS: usize = 2000;

/// Redact and bound free text before it reaches a log file.
fn scrub(text: &str) -> String {
    redact::truncate(&redact::redact(text), MAX_LOG_DETAIL_CHARS)
}

impl Store {
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
    /// the log file itself (so it never waits for a session lock, and may be
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
            let mut file = private_file_options()
                .append(true)
                .create(true)
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
                .is_some_and(|m| identity(m) == identity(&opened));
            if !same {
                continue;
            }
            tighten(path, &opened, Private::File);
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
