//! File primitives: folders 0700 and files 0600, atomic replacement, reads
//! that never follow a symlink, corrupt files moved aside, temp-file sweeping.
//!
//! An atomic replacement is split in two so that several files can share
//! their folder fsyncs: [`stage`] writes and fsyncs a temp file in the target's
//! folder, [`Staged::commit`] renames it over the target. The caller then
//! fsyncs each folder that must be durable once ([`sync_dirs`]), however many
//! files it committed there.
//!
//! Unix-only parts (modes, inode identity, folder fsync) sit behind
//! `#[cfg(unix)]`; on Windows the ACLs of the user's profile folder keep the
//! store private, NTFS journals folder entries, and a file's identity is a
//! best effort (see [`identity`]).

use crate::clock::now_ms;
use crate::error::{ErrorCode, GoalError, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

#[cfg(unix)]
const DIR_MODE: u32 = 0o700;
#[cfg(unix)]
const FILE_MODE: u32 = 0o600;
/// State files larger than this are not read: no goal comes near it, so such
/// a file is damage (or planted) and is moved aside under the lock.
pub const MAX_STATE_FILE_BYTES: u64 = 64 << 20;
/// Leftover temporary files older than this are removed by the sweeps.
pub const TEMP_FILE_MAX_AGE: Duration = Duration::from_secs(600);

static FSYNCS: AtomicU64 = AtomicU64::new(0);
static RENAMES: AtomicU64 = AtomicU64::new(0);
static READS: AtomicU64 = AtomicU64::new(0);
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// How many fsyncs (files and folders) and renames this process has made
/// through the store, and how many state files it read: what `bench_store`
/// and the durability tests count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IoCounts {
    pub fsyncs: u64,
    pub renames: u64,
    pub reads: u64,
}

impl std::ops::Sub for IoCounts {
    type Output = IoCounts;
    fn sub(self, earlier: IoCounts) -> IoCounts {
        IoCounts {
            fsyncs: self.fsyncs - earlier.fsyncs,
            renames: self.renames - earlier.renames,
            reads: self.reads - earlier.reads,
        }
    }
}

/// The process-wide counters (two relaxed atomic loads).
pub fn io_counts() -> IoCounts {
    IoCounts {
        fsyncs: FSYNCS.load(Ordering::Relaxed),
        renames: RENAMES.load(Ordering::Relaxed),
        reads: READS.load(Ordering::Relaxed),
    }
}

pub(super) fn sync(file: &File) -> std::io::Result<()> {
    FSYNCS.fetch_add(1, Ordering::Relaxed);
    file.sync_all()
}

/// fdatasync: the file's data and what reading it back needs (its size),
/// not its times. Counted with the fsyncs.
pub(super) fn sync_data(file: &File) -> std::io::Result<()> {
    FSYNCS.fetch_add(1, Ordering::Relaxed);
    file.sync_data()
}

fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    RENAMES.fetch_add(1, Ordering::Relaxed);
    fs::rename(from, to)
}

/// Swap `temp` and an existing `target` in one step (`renameat2` with
/// `RENAME_EXCHANGE`); false where the file system or platform cannot, and
/// the caller renames. For a copy written without a flush: a rename that
/// replaces a file makes ext4 start writing the new file's data out at
/// once (`auto_da_alloc`), the most a hook's rename cost; an exchange does
/// not, and the copy needs no more than a rename gives it (see the store's
/// module docs: after a power loss the slots are the durable copy).
#[cfg(target_os = "linux")]
fn exchange(temp: &Path, target: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (Ok(from), Ok(to)) = (
        std::ffi::CString::new(temp.as_os_str().as_bytes()),
        std::ffi::CString::new(target.as_os_str().as_bytes()),
    ) else {
        return false;
    };
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let done = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    } == 0;
    if done {
        RENAMES.fetch_add(1, Ordering::Relaxed);
    }
    done
}

#[cfg(not(target_os = "linux"))]
fn exchange(_temp: &Path, _target: &Path) -> bool {
    false
}

pub(super) fn io_err(context: impl std::fmt::Display, err: std::io::Error) -> GoalError {
    GoalError::io(context, err)
}

/// Whether a file or folder is tightened to the owner-only mode.
#[derive(Clone, Copy)]
pub(super) enum Private {
    File,
    Dir,
}

/// Tighten a mode we own if it is looser than owner-only; failures (not our
/// file) are ignored. Windows has no mode bits: a no-op there.
#[cfg(unix)]
pub(super) fn tighten(path: &Path, meta: &fs::Metadata, kind: Private) {
    let want = match kind {
        Private::File => FILE_MODE,
        Private::Dir => DIR_MODE,
    };
    if meta.mode() & 0o777 & !want != 0 {
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(want));
    }
}

#[cfg(not(unix))]
pub(super) fn tighten(_path: &Path, _meta: &fs::Metadata, _kind: Private) {}

/// Options for a file only its owner may read (0600 on Unix).
pub(super) fn private_file_options() -> OpenOptions {
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    options.mode(FILE_MODE);
    options
}

/// Which file a path or an open handle is: (inode, device) on Unix. On
/// Windows std's file index is unstable, so it is a best effort there:
/// (modification time, creation time mixed with the size). A rename keeps
/// both times; a rewrite changes the modification time.
#[cfg(unix)]
pub(super) fn identity(meta: &fs::Metadata) -> (u64, u64) {
    (meta.ino(), meta.dev())
}

#[cfg(not(unix))]
pub(super) fn identity(meta: &fs::Metadata) -> (u64, u64) {
    let ns = |t: std::io::Result<SystemTime>| -> u64 {
        t.ok()
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64)
    };
    (ns(meta.modified()), ns(meta.created()) ^ meta.len())
}

/// Modification time in nanoseconds since the epoch (negative before it).
fn mtime_ns(meta: &fs::Metadata) -> i128 {
    #[cfg(unix)]
    {
        i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
    }
    #[cfg(not(unix))]
    {
        match meta.modified() {
            Ok(t) => match t.duration_since(SystemTime::UNIX_EPOCH) {
                Ok(d) => d.as_nanos() as i128,
                Err(e) => -(e.duration().as_nanos() as i128),
            },
            Err(_) => 0,
        }
    }
}

/// Make sure `dir` is a real folder (not a symlink), creating it 0700 if
/// missing, and tighten its mode when `tighten_existing` is set.
pub(super) fn ensure_dir(dir: &Path, tighten_existing: bool) -> Result<()> {
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
                    tighten(dir, &meta, Private::Dir);
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
                let mut builder = fs::DirBuilder::new();
                builder.recursive(true);
                #[cfg(unix)]
                builder.mode(DIR_MODE);
                match builder.create(dir) {
                    Ok(()) => {
                        // The umask may have removed bits we need; set exactly 0700.
                        #[cfg(unix)]
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

/// Make a folder's entries durable. Windows cannot open a folder as a file
/// (and NTFS journals its entries), so there it is a no-op.
#[cfg(unix)]
pub(super) fn fsync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| sync(&d))
        .map_err(|e| io_err(format!("cannot fsync folder {}", dir.display()), e))
}

#[cfg(not(unix))]
pub(super) fn fsync_dir(_dir: &Path) -> Result<()> {
    Ok(())
}

/// fsync each distinct folder once.
pub(super) fn sync_dirs<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> Result<()> {
    let mut done: Vec<&Path> = Vec::new();
    for dir in dirs {
        if !done.contains(&dir) {
            fsync_dir(dir)?;
            done.push(dir);
        }
    }
    Ok(())
}

/// Whether a file name is one of our temporary files (`.<name>.tmp-<pid>-<n>`).
pub(super) fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp-")
}

/// A temp file written and fsynced, waiting to be renamed over its target.
/// Dropped without [`Staged::commit`], it removes its temp file.
pub(super) struct Staged {
    temp: Option<PathBuf>,
    target: PathBuf,
    /// Not flushed ([`stage_lazy`]): may take the target's place by exchange.
    lazy: bool,
}

/// Write `bytes` to a new temp file (0600, created exclusively, never
/// following a link) next to `dir/name`, and fsync it.
pub(super) fn stage(dir: &Path, name: &str, bytes: &[u8]) -> Result<Staged> {
    stage_with(dir, name, bytes, true)
}

/// [`stage`] without the fsync: for a copy the store can rebuild from a
/// durable one (the rename still makes it complete-or-old for every reader
/// and for a killed process; only a power loss can leave it torn).
pub(super) fn stage_lazy(dir: &Path, name: &str, bytes: &[u8]) -> Result<Staged> {
    stage_with(dir, name, bytes, false)
}

/// fsync a file already in place (its data and size), by path.
pub(super) fn sync_path(path: &Path) -> Result<()> {
    File::open(path)
        .and_then(|f| sync(&f))
        .map_err(|e| io_err(format!("cannot fsync {}", path.display()), e))
}

fn stage_with(dir: &Path, name: &str, bytes: &[u8], durable: bool) -> Result<Staged> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
    let target = dir.join(name);
    let staged = Staged {
        temp: Some(temp.clone()),
        target,
        lazy: !durable,
    };
    let written = (|| -> std::io::Result<()> {
        let mut file = private_file_options()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        if durable {
            sync(&file)?;
        }
        Ok(())
    })();
    written.map_err(|e| io_err(format!("cannot write {}", staged.target.display()), e))?;
    Ok(staged)
}

impl Staged {
    pub(super) fn target(&self) -> &Path {
        &self.target
    }

    /// Rename the temp file over the target (a symlink there is replaced,
    /// never followed). Returns whether the target's name is new in its
    /// folder: only then must the folder be fsynced for the file to be found
    /// after a crash (a replaced name always holds a complete old or new file).
    pub(super) fn commit(mut self) -> Result<bool> {
        let temp = self.temp.take().expect("staged once");
        let existed = fs::symlink_metadata(&self.target).is_ok_and(|m| m.is_file());
        if existed && self.lazy && exchange(&temp, &self.target) {
            // The old version now has the temp name: gone with it (were it
            // left by a kill here, it is swept as any temp file).
            let _ = fs::remove_file(&temp);
            return Ok(false);
        }
        if let Err(e) = rename(&temp, &self.target) {
            let _ = fs::remove_file(&temp);
            return Err(io_err(format!("cannot write {}", self.target.display()), e));
        }
        Ok(!existed)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = fs::remove_file(temp);
        }
    }
}

/// Atomically replace `dir/name` with `bytes` on its own: temp file, fsync,
/// rename, folder fsync.
pub(super) fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    stage(dir, name, bytes)?.commit()?;
    fsync_dir(dir)
}

/// Create `dir/name` with `bytes` only if it does not exist yet, atomically
/// (a complete file or none): stage, then hard-link the temp file to the
/// name, which fails rather than overwrite. Returns whether this call created it.
pub(super) fn create_once(dir: &Path, name: &str, bytes: &[u8]) -> Result<bool> {
    let staged = stage(dir, name, bytes)?;
    let temp = staged.temp.as_deref().expect("staged once");
    match fs::hard_link(temp, &staged.target) {
        Ok(()) => {
            drop(staged);
            fsync_dir(dir)?;
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_err(
            format!("cannot create {}", staged.target.display()),
            e,
        )),
    }
}

/// What reading a state file found.
pub(super) enum Found {
    Missing,
    /// Present but left where it is (a symlink, unreadable).
    Refused(String),
    /// Present but no goal can be in it (not a regular file, or larger than
    /// any goal): moved aside when read under the lock, so that it is kept
    /// and the copy can be written again.
    Misplaced {
        why: String,
        ino: u64,
        dev: u64,
    },
    Data {
        bytes: Vec<u8>,
        ino: u64,
        dev: u64,
        mtime_ns: i128,
    },
}

/// Read a state file without following symlinks: `lstat`, open, then check
/// that the opened file is the regular file `lstat` saw.
pub(super) fn read_state_file(path: &Path) -> Found {
    READS.fetch_add(1, Ordering::Relaxed);
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
            return Found::Misplaced {
                why: format!("{} is not a regular file", path.display()),
                ino: identity(&before).0,
                dev: identity(&before).1,
            };
        }
        if before.len() > MAX_STATE_FILE_BYTES {
            return Found::Misplaced {
                why: format!(
                    "{} is {} bytes, larger than any goal",
                    path.display(),
                    before.len()
                ),
                ino: identity(&before).0,
                dev: identity(&before).1,
            };
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
        if identity(&opened) != identity(&before) {
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
        if bytes.len() as u64 > MAX_STATE_FILE_BYTES {
            // Grew after the lstat: same verdict as a file that was already too large.
            return Found::Misplaced {
                why: format!("{} is larger than any goal", path.display()),
                ino: identity(&opened).0,
                dev: identity(&opened).1,
            };
        }
        return Found::Data {
            bytes,
            ino: identity(&opened).0,
            dev: identity(&opened).1,
            mtime_ns: mtime_ns(&opened),
        };
    }
    Found::Refused(format!(
        "{} kept changing while being read; ignored",
        path.display()
    ))
}

/// Move a corrupt file (or a folder, or anything else in a copy's place)
/// aside as `<name>.corrupt-<ms>[-n]`, never overwriting an earlier one and
/// never deleting anything. Only moves it if it is still what was read (same
/// inode).
pub(super) fn quarantine(path: &Path, ino: u64, dev: u64) -> std::io::Result<Option<PathBuf>> {
    set_aside(path, ino, dev, "corrupt")
}

/// [`quarantine`] under another label (`<name>.<label>-<ms>[-n]`): a copy
/// edited outside the goal system is kept as `tampered`.
pub(super) fn set_aside(
    path: &Path,
    ino: u64,
    dev: u64,
    label: &str,
) -> std::io::Result<Option<PathBuf>> {
    let is_file = match fs::symlink_metadata(path) {
        Ok(meta) if identity(&meta) == (ino, dev) => meta.is_file(),
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    let ms = now_ms();
    for n in 0..1000u32 {
        let name = if n == 0 {
            format!("{base}.{label}-{ms}")
        } else {
            format!("{base}.{label}-{ms}-{n}")
        };
        let dest = dir.join(name);
        // A hard link cannot overwrite: the safest move for a file. Folders
        // (and file systems without links) are renamed after checking that
        // nothing is in the way.
        if is_file {
            match fs::hard_link(path, &dest) {
                Ok(()) => {
                    fs::remove_file(path)?;
                    let _ = fsync_dir(dir);
                    return Ok(Some(dest));
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(_) => {}
            }
        }
        if fs::symlink_metadata(&dest).is_ok() {
            continue;
        }
        rename(path, &dest)?;
        let _ = fsync_dir(dir);
        return Ok(Some(dest));
    }
    Err(std::io::Error::other("no free quarantine name"))
}

/// Remove temp files older than `older_than` from `dir` whose names pass
/// `is_ours`; returns how many were removed. Only regular files are removed.
pub(super) fn sweep_dir(dir: &Path, older_than: Duration, is_ours: impl Fn(&str) -> bool) -> usize {
    let cutoff = SystemTime::now().checked_sub(older_than);
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(&is_ours) {
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
    removed
}
