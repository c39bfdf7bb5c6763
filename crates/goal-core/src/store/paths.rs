//! Names and places: which session ids and cwds are accepted, how they become
//! file names, and where each file of the store lives.

use super::files::ensure_dir;
use super::Store;
use crate::error::{ErrorCode, GoalError, Result};
use crate::redact;
use sha2::{Digest, Sha256};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// Longest accepted session id.
pub const MAX_SESSION_ID_LEN: usize = 128;
/// Longest accepted cwd.
pub const MAX_CWD_LEN: usize = 4096;

/// The session-local copy's file name inside `<session_state>/<session>/`.
pub(super) const SESSION_LOCAL_NAME: &str = "goal-state.json";

/// Quote a user-supplied value for an error message: redacted, truncated and
/// escaped, so a hostile value can neither leak, flood the message nor hide in it.
pub(crate) fn shown(value: &str) -> String {
    format!("{:?}", redact::truncate(&redact::redact(value), 80))
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
pub(super) fn archive_name(goal_id: &str) -> String {
    if is_safe_name(goal_id, 200) {
        format!("{goal_id}.json")
    } else {
        let digest = Sha256::digest(goal_id.as_bytes());
        let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        format!("id-{hex}.json")
    }
}

impl Store {
    pub(super) fn by_session_dir(&self) -> PathBuf {
        self.config.root.join("by-session")
    }
    pub(super) fn by_cwd_dir(&self) -> PathBuf {
        self.config.root.join("by-cwd-session")
    }
    pub(super) fn compact_dir(&self) -> PathBuf {
        self.config.root.join("compact")
    }
    pub(super) fn archive_dir(&self) -> PathBuf {
        self.config.root.join("archive")
    }
    pub(super) fn locks_dir(&self) -> PathBuf {
        self.config.root.join("locks")
    }
    /// `<session_state>/<session>/` (session id assumed valid).
    pub(super) fn session_local_dir(&self, session_id: &str) -> PathBuf {
        self.config.session_state.join(session_id)
    }

    /// `<root>/by-session/<session>.json` (session id assumed valid).
    pub fn by_session_path(&self, session_id: &str) -> PathBuf {
        self.by_session_dir().join(format!("{session_id}.json"))
    }
    /// `<session_state>/<session>/goal-state.json` (session id assumed valid).
    pub fn session_local_path(&self, session_id: &str) -> PathBuf {
        self.session_local_dir(session_id).join(SESSION_LOCAL_NAME)
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
    /// `<root>/locks/<session>.lock`: one lock per session, so one session's
    /// hooks never wait for another's (session id assumed valid).
    pub fn lock_path(&self, session_id: &str) -> PathBuf {
        self.locks_dir().join(format!("{session_id}.lock"))
    }

    /// Create the root (0700) or tighten it. A root that is itself a symlink
    /// (the user's choice, e.g. a dotfiles folder) is used as is.
    pub(super) fn ensure_root(&self) -> Result<()> {
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

    pub(super) fn ensure_subdir(&self, dir: &Path) -> Result<()> {
        self.ensure_root()?;
        ensure_dir(dir, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
