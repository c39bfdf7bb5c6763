//! Files the goal system keeps outside its state folder, in a repository
//! (`.github/copilot-memories.jsonl`): read without following a symlink, and
//! replaced atomically (temp file, fsync, rename, folder fsync), with the
//! permissions of an ordinary repository file, since it is meant to be
//! committed and reviewed. Callers serialize writes with [`Store::lock`].

use std::fs;
use std::path::Path;

use super::files::{identity, read_state_file, stage, sync_dirs, Found};
use crate::error::{ErrorCode, GoalError, Result};

/// What identifies a version of a file: (size, modification time in ns,
/// inode, device). It changes whenever the file is rewritten or replaced, so
/// a derived cache can tell it is stale.
pub type FileVersion = (u64, i128, u64, u64);

/// A file read outside the state folder, with what identifies its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside {
    pub bytes: Vec<u8>,
    pub version: FileVersion,
}

/// Read `path` without following a symlink: `None` when missing, `CORRUPT`
/// when refused (a symlink, not a regular file, too large). A repository
/// could plant a link to a private file: it is never read through.
pub fn read_outside(path: &Path) -> Result<Option<Outside>> {
    match read_state_file(path) {
        Found::Missing => Ok(None),
        Found::Refused(why) | Found::Misplaced { why, .. } => {
            Err(GoalError::new(ErrorCode::Corrupt, why))
        }
        Found::Data {
            bytes,
            ino,
            dev,
            mtime_ns,
        } => Ok(Some(Outside {
            version: (bytes.len() as u64, mtime_ns, ino, dev),
            bytes,
        })),
    }
}

/// The version of `path` (see [`Outside::version`]) without reading it, or
/// `None` when it is missing or not a regular file.
pub fn outside_version(path: &Path) -> Option<FileVersion> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let (ino, dev) = identity(&meta);
    Some((meta.len(), mtime_ns(&meta), ino, dev))
}

/// Replace `dir/name` with `bytes` atomically. `dir` is created (with its
/// parents, ordinary permissions) when missing; a symlink in its place, or in
/// place of the file, is refused or replaced, never followed.
pub fn write_outside(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() || !meta.is_dir() => {
            return Err(GoalError::new(
                ErrorCode::Corrupt,
                format!(
                    "{} is not a folder (a symbolic link or a file); refused",
                    dir.display()
                ),
            ))
        }
        Ok(_) => {}
        Err(_) => fs::create_dir_all(dir)
            .map_err(|e| GoalError::io(format!("cannot create {}", dir.display()), e))?,
    }
    let staged = stage(dir, name, bytes)?;
    #[cfg(unix)]
    let target = staged.target().to_path_buf();
    staged.commit()?;
    #[cfg(unix)]
    {
        // A repository file: readable like its neighbours (staged files are 0600).
        use std::os::unix::fs::PermissionsExt;
        if fs::symlink_metadata(&target).is_ok_and(|m| m.is_file()) {
            let _ = fs::set_permissions(&target, fs::Permissions::from_mode(0o644));
        }
    }
    sync_dirs([dir])
}

/// Modification time in nanoseconds since the epoch (0 when unknown).
fn mtime_ns(meta: &fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_a_symlink_is_never_read_through() {
        let dir = std::env::temp_dir().join(format!("gs-outside-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let sub = dir.join(".github");
        write_outside(&sub, "m.jsonl", b"one\n").unwrap();
        let first = read_outside(&sub.join("m.jsonl")).unwrap().unwrap();
        assert_eq!(first.bytes, b"one\n");
        write_outside(&sub, "m.jsonl", b"two lines\n").unwrap();
        let second = read_outside(&sub.join("m.jsonl")).unwrap().unwrap();
        assert_eq!(second.bytes, b"two lines\n");
        assert_ne!(first.version, second.version);
        assert_eq!(outside_version(&sub.join("m.jsonl")), Some(second.version));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(sub.join("m.jsonl"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o644);
            fs::write(dir.join("private"), "secret-ish").unwrap();
            std::os::unix::fs::symlink(dir.join("private"), sub.join("link.jsonl")).unwrap();
            let err = read_outside(&sub.join("link.jsonl")).unwrap_err();
            assert_eq!(err.code, ErrorCode::Corrupt);
            let linked = dir.join("linked");
            std::os::unix::fs::symlink(&sub, &linked).unwrap();
            assert!(write_outside(&linked, "m.jsonl", b"x").is_err());
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
