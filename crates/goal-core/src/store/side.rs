//! Side files beside the goals (the context board): the same guarantees as a
//! goal copy, under a lock of their own.

use std::fs;
use std::io::ErrorKind;
use std::path::PathBuf;

use super::files::{
    identity, io_err, quarantine, read_state_file, stage_lazy, write_atomic, Found,
};
use super::Store;
use crate::error::{ErrorCode, GoalError, Result};

impl Store {
    /// Write `<root>/<folder>/<name>` with the guarantees of a goal copy:
    /// atomic, 0700 folder, 0600 file, a symlink replaced and never followed.
    /// Callers serialize with [`Store::lock`].
    pub fn write_side_file(&self, folder: &str, name: &str, bytes: &[u8]) -> Result<()> {
        let dir = self.config.root.join(folder);
        self.ensure_subdir(&dir)?;
        write_atomic(&dir, name, bytes)
    }

    /// Write a cache beside the goals (the observed tree): atomic and private
    /// like a side file, never fsynced, since a lost or torn cache is only
    /// rebuilt (its digest in the sealed goal tells). Callers serialize with
    /// [`Store::lock`].
    pub fn write_cache_file(&self, folder: &str, name: &str, bytes: &[u8]) -> Result<()> {
        let dir = self.config.root.join(folder);
        self.ensure_subdir(&dir)?;
        stage_lazy(&dir, name, bytes)?.commit().map(|_| ())
    }

    /// `<root>/<folder>`, made a private folder (0700, never a symlink) if
    /// it is not one yet: for files of the goal system's own that are not
    /// goal state (the watcher's socket and lock).
    pub fn private_folder(&self, folder: &str) -> Result<PathBuf> {
        let dir = self.config.root.join(folder);
        self.ensure_subdir(&dir)?;
        Ok(dir)
    }

    /// Read `<root>/<folder>/<name>` without following a symlink: `None` when
    /// missing, `CORRUPT` when refused (a symlink, not a file, too large).
    pub fn read_side_file(&self, folder: &str, name: &str) -> Result<Option<Vec<u8>>> {
        match read_state_file(&self.config.root.join(folder).join(name)) {
            Found::Missing => Ok(None),
            Found::Refused(why) | Found::Misplaced { why, .. } => {
                Err(GoalError::new(ErrorCode::Corrupt, why))
            }
            Found::Data { bytes, .. } => Ok(Some(bytes)),
        }
    }

    /// Move a side file that could not be read aside, as a corrupt goal copy
    /// is (`<name>.corrupt-<ms>`); returns where it went. Call under the lock.
    pub fn set_aside_side_file(&self, folder: &str, name: &str) -> Result<Option<PathBuf>> {
        let path = self.config.root.join(folder).join(name);
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(format!("cannot inspect {}", path.display()), e)),
        };
        let (ino, dev) = identity(&meta);
        quarantine(&path, ino, dev)
            .map_err(|e| io_err(format!("cannot set {} aside", path.display()), e))
    }
}
