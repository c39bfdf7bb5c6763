//! Compact snapshots: `compact/<session>.txt` (what the model is shown after
//! a compaction) and its metadata `<session>.txt.json`.

use super::files::{read_state_file, stage, sync_dirs, Found};
use super::paths::validate_session_id;
use super::Store;
use crate::error::{ErrorCode, GoalError, Result};
use serde_json::Value;

/// A compact snapshot and its metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct Compact {
    pub text: String,
    /// The `.txt.json` metadata; `Null` when missing or unreadable (see `warnings`).
    pub meta: Value,
    pub warnings: Vec<String>,
}

impl Store {
    /// Write `compact/<session>.txt` and `<session>.txt.json` atomically,
    /// under the session's lock: both temp files are fsynced, renamed, then
    /// the folder is fsynced once.
    pub fn write_compact(&self, session_id: &str, text: &str, meta: &Value) -> Result<()> {
        validate_session_id(session_id)?;
        let _lock = self.lock(session_id)?;
        let dir = self.compact_dir();
        self.ensure_subdir(&dir)?;
        let mut meta_bytes = serde_json::to_vec_pretty(meta)
            .map_err(|e| GoalError::invalid(format!("compact metadata: {e}")))?;
        meta_bytes.push(b'\n');
        let text_file = stage(&dir, &format!("{session_id}.txt"), text.as_bytes())?;
        let meta_file = stage(&dir, &format!("{session_id}.txt.json"), &meta_bytes)?;
        text_file.commit()?;
        meta_file.commit()?;
        sync_dirs([dir.as_path()])
    }

    /// The session's compact snapshot, if any (symlinks refused, like state files).
    pub fn read_compact(&self, session_id: &str) -> Result<Option<Compact>> {
        validate_session_id(session_id)?;
        let mut warnings = Vec::new();
        let text = match read_state_file(&self.compact_text_path(session_id)) {
            Found::Missing => return Ok(None),
            Found::Refused(why) | Found::Misplaced { why, .. } => {
                return Err(GoalError::new(ErrorCode::Corrupt, why));
            }
            Found::Data { bytes, .. } => String::from_utf8_lossy(&bytes).into_owned(),
        };
        let meta_path = self.compact_meta_path(session_id);
        let meta = match read_state_file(&meta_path) {
            Found::Missing => Value::Null,
            Found::Refused(why) | Found::Misplaced { why, .. } => {
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
}
