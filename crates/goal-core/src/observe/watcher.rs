//! The tree's watcher (Linux): a background process, `goal-hook watch`,
//! that keeps an inotify watch on every folder of one goal's tree (the
//! folders a walk lists: the rules of [`Scope`], not a copy of them) and
//! answers on a private Unix socket which paths changed since a mark.
//!
//! Before it answers it drains its inotify queue: a write that returned
//! before the question is already queued there, so the answer is complete.
//! A folder that appears is watched (and its subtree) while its event is
//! handled, before any answer; the hook then reads the whole folder again,
//! which catches what was written in it before the watch. Whenever it cannot
//! vouch for a mark (another instance's, from before an overflow of the
//! queue, a change of the ignore rules, a name that is not UTF-8, too many
//! changes kept), it says so with a fresh mark and the hook walks.
//!
//! One per tree, by a lock beside the socket (in the state root's 0700
//! `watch/` folder). It leaves when unused for its idle time, when its tree
//! or its folder disappears, or when its socket is removed. It never writes
//! to the tree and never prints.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::walk::{self, Rules, Scope, MAX_DEPTH, MAX_ENTRIES};

/// Most entries a watcher counts; past it (or the system's watch limit) it
/// stays, answering that it cannot watch, so that no hook starts another.
const MAX_WATCHED: usize = 1_000_000;
/// Most changed paths remembered; past it, earlier marks are not vouched for.
const MAX_CHANGES: usize = 20_000;
/// Most paths in one answer (past it, a walk costs about the same).
const MAX_ANSWER: usize = 2_000;

const WATCH_MASK: u32 = libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR;

/// What a watcher watches and where it listens.
#[derive(Debug, Clone)]
pub struct Options {
    /// The goal's working tree.
    pub root: PathBuf,
    /// Absolute paths left out of the tree (see `observe::excluded`).
    pub excluded: Vec<PathBuf>,
    /// The private folder of the socket and the lock.
    pub dir: PathBuf,
    /// Their file name, without extension (`watch::name`).
    pub name: String,
    /// How long it stays without a question.
    pub idle: Duration,
}

/// Where to bind or connect for `dir/name`: the path itself, or the same
/// place through `/proc/self/fd` when the path is too long for a socket
/// address (the returned descriptor must stay open meanwhile).
pub fn address(dir: &Path, name: &str) -> io::Result<(Option<OwnedFd>, PathBuf)> {
    let path = dir.join(name);
    if path.as_os_str().len() < 100 {
        return Ok((None, path));
    }
    let folder = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
        .open(dir)?;
    let fd = OwnedFd::from(folder);
    let short = PathBuf::from(format!("/proc/self/fd/{}/{name}", fd.as_raw_fd()));
    Ok((Some(fd), short))
}

/// Watch `options.root` until idle or gone. Returns at once when another
/// watcher holds the tree's lock.
pub fn run(options: Options) -> io::Result<()> {
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(options.dir.join(format!("{}.lock", options.name)))?;
    if lock.try_lock().is_err() {
        return Ok(());
    }
    // Who holds the lock, for whoever looks (`goal-system doctor`, tests).
    let _ = lock.set_len(0);
    let _ = (&lock).write_all(format!("{}\n", std::process::id()).as_bytes());
    let socket_name = format!("{}.sock", options.name);
    let socket = options.dir.join(&socket_name);
    let _ = fs::remove_file(&socket);
    let (_dir_fd, at) = address(&options.dir, &socket_name)?;
    let listener = UnixListener::bind(&at)?;
    let _ = fs::set_permissions(&socket, fs::Permissions::from_mode(0o600));
    let bound = fs::symlink_metadata(&socket).map(|m| (m.dev(), m.ino()))?;
    listener.set_nonblocking(true)?;
    let mut watcher = Watcher::new(options, socket_name)?;
    watcher.build(Some(&listener));
    watcher.serve(&listener);
    // Only the socket this watcher bound (it holds the lock, so it still is).
    if fs::symlink_metadata(&socket).is_ok_and(|m| (m.dev(), m.ino()) == bound) {
        let _ = fs::remove_file(&socket);
    }
    drop(lock);
    Ok(())
}

/// A watched folder.
struct Folder {
    wd: i32,
    /// The rules in force inside it.
    rules: Rules,
    /// How many of its entries belong to the tree.
    count: usize,
    listable: bool,
}

struct Watcher {
    options: Options,
    socket_name: String,
    scope: Scope,
    inotify: OwnedFd,
    root_wd: i32,
    control_wd: i32,
    by_wd: HashMap<i32, String>,
    folders: BTreeMap<String, Folder>,
    /// Changed paths and the sequence number of their last change.
    changes: HashMap<String, u64>,
    seq: u64,
    /// Marks below this are not vouched for.
    valid_from: u64,
    instance: String,
    /// Why the watches must be made again before the next answer.
    spoiled: Option<String>,
    /// Why this watcher cannot watch at all.
    failed: Option<String>,
    dirty: Vec<String>,
    total: usize,
    rule_stamps: Vec<Option<(u64, i64, i64, u64)>>,
    quit: bool,
}

fn inotify() -> io::Result<OwnedFd> {
    // SAFETY: inotify_init1 returns a new descriptor or -1.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is new and owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// What tells that a rule file changed: its inode, times and size.
fn stamp(path: &Path) -> Option<(u64, i64, i64, u64)> {
    fs::symlink_metadata(path).ok().map(|m| {
        let ns = |s: i64, n: i64| s * 1_000_000_000 + n;
        (
            m.ino(),
            ns(m.mtime(), m.mtime_nsec()),
            ns(m.ctime(), m.ctime_nsec()),
            m.size(),
        )
    })
}

fn join(folder: &str, name: &str) -> String {
    match folder.is_empty() {
        true => name.to_string(),
        false => format!("{folder}/{name}"),
    }
}

impl Watcher {
    fn new(options: Options, socket_name: String) -> io::Result<Watcher> {
        let mut seed = Sha256::new();
        seed.update(std::process::id().to_le_bytes());
        seed.update(format!("{:?}", std::time::SystemTime::now()).as_bytes());
        seed.update(options.root.as_os_str().as_bytes());
        let instance = seed.finalize()[..6]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Watcher {
            scope: Scope::new(&options.root, &options.excluded),
            options,
            socket_name,
            inotify: inotify()?,
            root_wd: -1,
            control_wd: -1,
            by_wd: HashMap::new(),
            folders: BTreeMap::new(),
            changes: HashMap::new(),
            seq: 0,
            valid_from: 0,
            instance,
            spoiled: None,
            failed: None,
            dirty: Vec::new(),
            total: 0,
            rule_stamps: Vec::new(),
            quit: false,
        })
    }

    fn add_watch(&mut self, path: &Path, mask: u32) -> io::Result<i32> {
        let c = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        // SAFETY: a valid descriptor and a NUL-terminated path.
        let wd = unsafe { libc::inotify_add_watch(self.inotify.as_raw_fd(), c.as_ptr(), mask) };
        match wd < 0 {
            true => Err(io::Error::last_os_error()),
            false => Ok(wd),
        }
    }

    /// (Re)make every watch from scratch: a new inotify instance (the old
    /// watches go with the old one), the rules read again, the tree listed.
    /// Marks issued before are no longer vouched for. `busy`: a listener
    /// whose callers are told to walk meanwhile.
    fn build(&mut self, busy: Option<&UnixListener>) {
        match inotify() {
            Ok(fd) => self.inotify = fd,
            Err(e) => return self.fail(format!("inotify is not available ({e})")),
        }
        self.by_wd.clear();
        self.folders.clear();
        self.dirty.clear();
        self.total = 0;
        self.scope = Scope::new(&self.options.root, &self.options.excluded);
        self.rule_stamps = self.scope.consulted().iter().map(|p| stamp(p)).collect();
        let control = self.options.dir.clone();
        self.control_wd = match self.add_watch(
            &control,
            libc::IN_DELETE | libc::IN_MOVED_FROM | libc::IN_DELETE_SELF | libc::IN_MOVE_SELF,
        ) {
            Ok(wd) => wd,
            Err(_) => {
                self.quit = true;
                return;
            }
        };
        let root = self.options.root.clone();
        self.root_wd = match self.add_watch(&root, WATCH_MASK) {
            Ok(wd) => wd,
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => return self.fail_limit(),
            Err(_) => {
                // No tree (any more): nothing to watch.
                self.quit = true;
                return;
            }
        };
        let outer = self.scope.outer().clone();
        let mut scanned = 0;
        self.scan("", &root, 0, &outer, &mut |_| {
            scanned += 1;
            if scanned % 64 == 0 {
                if let Some(listener) = busy {
                    tell_busy(listener);
                }
            }
        });
        self.changes.clear();
        self.valid_from = self.seq;
        self.spoiled = None;
    }

    /// Watch folder `rel` and everything under it, then list it (in that
    /// order: an entry made in between is an event, not a miss). `parent`:
    /// the rules in force in its parent.
    fn scan(
        &mut self,
        rel: &str,
        abs: &Path,
        depth: usize,
        parent: &Rules,
        tick: &mut dyn FnMut(usize),
    ) {
        // A walk lists folders only this deep.
        if depth > MAX_DEPTH || self.failed.is_some() || self.quit {
            return;
        }
        tick(depth);
        let wd = match rel.is_empty() {
            true => self.root_wd,
            false => match self.add_watch(abs, WATCH_MASK | libc::IN_DONT_FOLLOW) {
                Ok(wd) => wd,
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => return self.fail_limit(),
                // Gone or replaced meanwhile: its parent's event tells.
                Err(_) => return,
            },
        };
        let listing = self.scope.list(abs, parent);
        let (rules, children, listable) = match listing {
            Some(l) => (l.rules, l.children, true),
            None => (parent.clone(), Vec::new(), false),
        };
        self.total += children.len();
        self.by_wd.insert(wd, rel.to_string());
        self.folders.insert(
            rel.to_string(),
            Folder {
                wd,
                rules: rules.clone(),
                count: children.len(),
                listable,
            },
        );
        if self.total > MAX_WATCHED {
            return self.fail(format!("the tree has more than {MAX_WATCHED} entries"));
        }
        for child in children.into_iter().filter(|c| c.is_dir) {
            let path = join(rel, &child.name);
            self.scan(&path, &child.entry.path(), depth + 1, &rules, tick);
        }
    }

    /// Stop watching folder `rel` and everything under it.
    fn forget(&mut self, rel: &str) {
        let under = format!("{rel}/");
        let gone: Vec<String> = self
            .folders
            .range(rel.to_string()..)
            .take_while(|(k, _)| *k == rel || k.starts_with(&under))
            .map(|(k, _)| k.clone())
            .collect();
        for key in gone {
            if let Some(folder) = self.folders.remove(&key) {
                self.total -= folder.count;
                self.by_wd.remove(&folder.wd);
                // SAFETY: removing a watch of our own descriptor.
                unsafe { libc::inotify_rm_watch(self.inotify.as_raw_fd(), folder.wd) };
            }
        }
    }

    fn fail(&mut self, why: String) {
        self.failed = Some(why);
        self.by_wd.clear();
        self.folders.clear();
        // The watches go with the instance; the control watch is made again.
        if let Ok(fd) = inotify() {
            self.inotify = fd;
            let control = self.options.dir.clone();
            self.control_wd = self
                .add_watch(
                    &control,
                    libc::IN_DELETE | libc::IN_DELETE_SELF | libc::IN_MOVE_SELF,
                )
                .unwrap_or(-1);
        }
    }

    fn fail_limit(&mut self) {
        self.fail(
            "the system's inotify watch limit is reached (fs.inotify.max_user_watches)".into(),
        )
    }

    /// The watches can no longer vouch for earlier marks: made again before
    /// the next answer.
    fn spoil(&mut self, why: &str) {
        self.spoiled.get_or_insert_with(|| why.to_string());
    }

    fn note(&mut self, path: String) {
        self.seq += 1;
        self.changes.insert(path, self.seq);
        if self.changes.len() > MAX_CHANGES {
            self.changes.clear();
            self.valid_from = self.seq;
        }
    }

    /// Read every queued event.
    fn drain(&mut self) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reading into a buffer we own, within its length.
            let n = unsafe {
                libc::read(
                    self.inotify.as_raw_fd(),
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                )
            };
            if n < 0 {
                match io::Error::last_os_error().raw_os_error() {
                    Some(libc::EINTR) => continue,
                    Some(libc::EAGAIN) => return,
                    _ => return self.spoil("its events could not be read"),
                }
            }
            if n == 0 {
                return;
            }
            let mut at = 0;
            let n = n as usize;
            while at + 16 <= n {
                let word =
                    |i: usize| u32::from_ne_bytes(buf[at + i..at + i + 4].try_into().unwrap());
                let (wd, mask, len) = (word(0) as i32, word(4), word(12) as usize);
                let raw = &buf[at + 16..(at + 16 + len).min(n)];
                let name = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
                let name = name.to_vec();
                self.event(wd, mask, &name);
                at += 16 + len;
            }
        }
    }

    fn event(&mut self, wd: i32, mask: u32, name: &[u8]) {
        if mask & libc::IN_Q_OVERFLOW != 0 {
            return self.spoil("its event queue overflowed");
        }
        if wd == self.control_wd {
            let own = name == self.socket_name.as_bytes();
            if mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_IGNORED) != 0
                || (own && mask & (libc::IN_DELETE | libc::IN_MOVED_FROM) != 0)
            {
                self.quit = true;
            }
            return;
        }
        if wd == self.root_wd
            && mask
                & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_UNMOUNT | libc::IN_IGNORED)
                != 0
        {
            self.quit = true;
            return;
        }
        if mask & libc::IN_IGNORED != 0 {
            if let Some(rel) = self.by_wd.get(&wd).cloned() {
                self.forget(&rel);
            }
            return;
        }
        if mask & libc::IN_UNMOUNT != 0 {
            return self.spoil("a file system under the tree was unmounted");
        }
        let Some(folder) = self.by_wd.get(&wd).cloned() else {
            return;
        };
        if name.is_empty() {
            // A folder's own event: its parent's names it too.
            return;
        }
        let Ok(name) = std::str::from_utf8(name) else {
            return self.spoil("a name that is not UTF-8 changed");
        };
        if walk::affects_rules(&folder, name) {
            return self.spoil("the ignore rules changed");
        }
        let abs = self.options.root.join(&folder);
        let is_dir = mask & libc::IN_ISDIR != 0;
        let Some(rules) = self.folders.get(&folder).map(|f| f.rules.clone()) else {
            return;
        };
        if !self.scope.admits(&abs, &rules, name, is_dir) {
            return;
        }
        let path = join(&folder, name);
        if is_dir && mask & libc::IN_ATTRIB != 0 && mask & !libc::IN_ATTRIB & !libc::IN_ISDIR == 0 {
            // A folder's metadata: only whether it can be listed matters.
            let now = fs::read_dir(abs.join(name)).is_ok();
            if self.folders.get(&path).is_some_and(|f| f.listable == now) {
                return;
            }
        }
        self.note(path.clone());
        let moved = libc::IN_CREATE | libc::IN_DELETE | libc::IN_MOVED_FROM | libc::IN_MOVED_TO;
        if mask & moved != 0 && !self.dirty.contains(&folder) {
            // Its count of entries changed.
            self.dirty.push(folder);
        }
        if is_dir {
            self.forget(&path);
            if mask & (libc::IN_CREATE | libc::IN_MOVED_TO | libc::IN_ATTRIB) != 0 {
                let depth = path.split('/').count();
                self.scan(&path, &abs.join(name), depth, &rules, &mut |_| {});
            }
        }
    }

    /// Count again the entries of the folders that changed.
    fn recount(&mut self) {
        for rel in std::mem::take(&mut self.dirty) {
            let Some(folder) = self.folders.get(&rel) else {
                continue;
            };
            let abs = self.options.root.join(&rel);
            let now = self
                .scope
                .children(&abs, &folder.rules)
                .map_or(0, |c| c.len());
            let before = folder.count;
            if let Some(folder) = self.folders.get_mut(&rel) {
                folder.count = now;
            }
            self.total = self.total + now - before;
        }
    }

    /// The answer to one question (`look <mark>`; see `watch::parse`).
    fn answer(&mut self, question: &str) -> String {
        self.drain();
        if self.quit {
            return String::new();
        }
        if let Some(why) = &self.failed {
            return format!("off {why}\n");
        }
        let stamps: Vec<_> = self.scope.consulted().iter().map(|p| stamp(p)).collect();
        if stamps != self.rule_stamps {
            self.spoil("the ignore rules above the tree changed");
        }
        let rebuilt = self.spoiled.clone();
        if rebuilt.is_some() {
            self.build(None);
            if self.quit {
                return String::new();
            }
            if let Some(why) = &self.failed {
                return format!("off {why}\n");
            }
        }
        self.recount();
        if self.total > MAX_ENTRIES {
            return format!("big {}\n", self.total);
        }
        let mark = format!("{}:{}", self.instance, self.seq);
        let kept = question.strip_prefix("look ").map(str::trim).unwrap_or("-");
        let since = kept
            .split_once(':')
            .filter(|(instance, _)| *instance == self.instance)
            .and_then(|(_, seq)| seq.parse::<u64>().ok())
            .filter(|seq| *seq >= self.valid_from && *seq <= self.seq);
        let why = match (&rebuilt, since) {
            (Some(why), _) => why.as_str(),
            (None, None) if kept == "-" => "no mark kept",
            (None, None) => "the mark is not this watcher's or too old",
            (None, Some(since)) => {
                let mut paths: Vec<&str> = self
                    .changes
                    .iter()
                    .filter(|(_, seq)| **seq > since)
                    .map(|(p, _)| p.as_str())
                    .collect();
                if paths.len() <= MAX_ANSWER {
                    paths.sort_unstable();
                    return format!("ok {mark} {}\n{}", self.total, paths.join("\0"));
                }
                "too many changes"
            }
        };
        format!("walk {mark} {} {why}\n", self.total)
    }

    fn client(&mut self, mut stream: UnixStream) {
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
        let _ = stream.set_write_timeout(Some(Duration::from_millis(250)));
        let mut question = Vec::new();
        let mut byte = [0u8; 64];
        while question.len() < 256 && !question.contains(&b'\n') {
            match stream.read(&mut byte) {
                Ok(0) | Err(_) => break,
                Ok(n) => question.extend_from_slice(&byte[..n]),
            }
        }
        let question = String::from_utf8_lossy(&question);
        let answer = self.answer(question.lines().next().unwrap_or(""));
        let _ = stream.write_all(answer.as_bytes());
    }

    fn serve(&mut self, listener: &UnixListener) {
        let mut last = Instant::now();
        while !self.quit {
            let left = self.options.idle.saturating_sub(last.elapsed());
            if left.is_zero() {
                return;
            }
            let mut fds = [
                libc::pollfd {
                    fd: self.inotify.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
            // SAFETY: two valid pollfd entries.
            let rc = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
            if rc < 0 {
                if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return;
            }
            if fds[0].revents != 0 {
                self.drain();
            }
            if fds[1].revents != 0 {
                while let Ok((stream, _)) = listener.accept() {
                    self.client(stream);
                    last = Instant::now();
                    if self.quit {
                        return;
                    }
                }
            }
        }
    }
}

/// Tell whoever waits that the watches are being made: walk this time.
fn tell_busy(listener: &UnixListener) {
    while let Ok((mut stream, _)) = listener.accept() {
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_write_timeout(Some(Duration::from_millis(50)));
        let _ = stream.write_all(b"busy making its watches\n");
    }
}

#[cfg(test)]
#[path = "watcher_tests.rs"]
mod tests;
