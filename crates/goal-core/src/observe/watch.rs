//! Asking the tree's watcher (`watcher.rs`) what changed, and starting one.
//!
//! A walk stats every entry of the tree: 5-25 ms at 10,000 files, on every
//! call that may change files. On Linux a watcher process keeps inotify
//! watches on the tree's folders and answers "which paths changed since
//! mark N"; the hook then reads only those paths again (the kept manifest
//! stays the truth: the watcher only narrows where to look). Whenever the
//! watcher cannot vouch for the kept mark (none running, just started,
//! restarted, its queue overflowed, the ignore rules changed, too many
//! changes, a timeout), the hook walks as before.
//!
//! Only the native hook executable starts watchers ([`set_launcher`]); the
//! Node addon asks one that runs but never starts one. `GOAL_SYSTEM_WATCH=off`
//! turns both off; `GOAL_SYSTEM_WATCH_IDLE_MS` sets how long an unused
//! watcher stays (default [`DEFAULT_IDLE`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::store::Store;

/// The protocol's version, part of the socket's name: a newer hook never
/// talks to an older watcher (each idles out on its own).
pub const VERSION: u32 = 1;
/// How long an unused watcher stays.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(15 * 60);
/// Longest a hook waits for an answer before it walks instead.
pub const ANSWER_TIMEOUT: Duration = Duration::from_millis(250);
/// The folder of the state root that holds the watchers' sockets and locks.
pub const FOLDER: &str = "watch";

/// What the watcher said about the tree since the kept mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Look {
    /// These paths (relative to the root) may have changed since the kept
    /// mark; nothing else did. `mark` stands for the tree now; `entries` is
    /// how many entries a walk lists.
    Changed {
        mark: String,
        paths: Vec<String>,
        entries: usize,
    },
    /// The watcher cannot vouch for the kept mark (none, another watcher's,
    /// before an overflow or a change of the rules), but from `mark` on it
    /// can: walk now, after this answer.
    Walk { mark: String },
    /// The tree holds more entries than a walk takes.
    TooBig,
    /// No answer; `start` when no watcher runs and one may be started.
    Unavailable { start: bool },
}

static LAUNCHER: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

/// Let this process start watchers, running `exe watch ...` (`None`: this
/// very executable). The native hook executable calls it; nothing else does.
pub fn set_launcher(exe: Option<PathBuf>) {
    let _ = LAUNCHER.set(exe);
}

/// Whether watchers are used at all (`GOAL_SYSTEM_WATCH=off` turns them off).
pub fn enabled() -> bool {
    cfg!(target_os = "linux")
        && !std::env::var("GOAL_SYSTEM_WATCH").is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "off" | "0" | "false" | "no"
            )
        })
}

/// How long a watcher started now stays unused.
pub fn idle() -> Duration {
    std::env::var("GOAL_SYSTEM_WATCH_IDLE_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map_or(DEFAULT_IDLE, Duration::from_millis)
}

/// The file name (without extension) of the watcher of `root`: one per tree
/// and per global ignore file (the rules it reads), per protocol version.
pub fn name(root: &Path) -> String {
    let mut hasher = Sha256::new();
    hasher.update(root.as_os_str().as_encoded_bytes());
    hasher.update([0]);
    if let Some(global) = super::walk::global_ignore_file() {
        hasher.update(global.as_os_str().as_encoded_bytes());
    }
    let hex: String = hasher.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{hex}-v{VERSION}")
}

thread_local! {
    static VOUCHED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many answers that vouched for a mark this thread received (tests
/// check that the watcher, not a walk, observed the tree).
pub fn vouched_here() -> u64 {
    VOUCHED.with(|v| v.get())
}

/// Ask the watcher of `root` what changed since `kept` (the mark kept with
/// the manifest). Never fails: any trouble is [`Look::Unavailable`].
pub fn look(store: &Store, root: &Path, kept: Option<&str>) -> Look {
    if !enabled() {
        return Look::Unavailable { start: false };
    }
    let look = imp::look(&store.config.root.join(FOLDER), &name(root), kept);
    if matches!(look, Look::Changed { .. }) {
        VOUCHED.with(|v| v.set(v.get() + 1));
    }
    look
}

/// Start the watcher of `root` in the background, if this process may (see
/// [`set_launcher`]). Returns at once; never fails the caller.
pub fn start(store: &Store, root: &Path) {
    let Some(exe) = LAUNCHER.get() else {
        return;
    };
    let Some(exe) = exe.clone().or_else(|| std::env::current_exe().ok()) else {
        return;
    };
    if enabled() {
        imp::start(&exe, store, root);
    }
}

/// Parse an answer's head line and body (see `watcher::answer`). Only the
/// Linux client asks a watcher; the tests read answers everywhere.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse(answer: &[u8]) -> Option<Look> {
    let end = answer.iter().position(|&b| b == b'\n')?;
    let head = std::str::from_utf8(&answer[..end]).ok()?;
    let body = &answer[end + 1..];
    let mut words = head.split(' ');
    match words.next()? {
        "ok" => {
            let mark = words.next()?.to_string();
            let entries = words.next()?.parse().ok()?;
            let paths = match body.is_empty() {
                true => Vec::new(),
                false => std::str::from_utf8(body)
                    .ok()?
                    .split('\0')
                    .map(str::to_string)
                    .collect(),
            };
            Some(Look::Changed {
                mark,
                paths,
                entries,
            })
        }
        "walk" => Some(Look::Walk {
            mark: words.next()?.to_string(),
        }),
        "big" => Some(Look::TooBig),
        "busy" | "off" => Some(Look::Unavailable { start: false }),
        _ => None,
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::net::UnixStream;
    use std::os::unix::process::CommandExt;
    use std::path::Path;
    use std::process::{Command, Stdio};

    use super::{parse, Look, ANSWER_TIMEOUT};
    use crate::store::Store;

    pub(super) fn look(dir: &Path, name: &str, kept: Option<&str>) -> Look {
        let Ok((_dir_fd, address)) = super::super::watcher::address(dir, &format!("{name}.sock"))
        else {
            return Look::Unavailable { start: false };
        };
        let mut stream = match connect(&address) {
            Ok(stream) => stream,
            // No socket, or none listening: no watcher runs.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ENOENT) | Some(libc::ECONNREFUSED)
                ) =>
            {
                return Look::Unavailable { start: true }
            }
            Err(_) => return Look::Unavailable { start: false },
        };
        let request = format!("look {}\n", kept.unwrap_or("-"));
        let mut answer = Vec::new();
        let asked = stream
            .set_read_timeout(Some(ANSWER_TIMEOUT))
            .and_then(|()| stream.set_write_timeout(Some(ANSWER_TIMEOUT)))
            .and_then(|()| stream.write_all(request.as_bytes()))
            .and_then(|()| stream.read_to_end(&mut answer));
        match asked {
            Ok(_) => parse(&answer).unwrap_or(Look::Unavailable { start: false }),
            Err(_) => Look::Unavailable { start: false },
        }
    }

    /// Connect without ever blocking on a full backlog (a stopped watcher).
    fn connect(address: &Path) -> std::io::Result<UnixStream> {
        use std::os::unix::ffi::OsStrExt;
        let bytes = address.as_os_str().as_bytes();
        // SAFETY: a plain socket(2); the descriptor is owned right away.
        let fd = unsafe {
            libc::socket(
                libc::AF_UNIX,
                libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just returned by socket(2) and nothing else owns it.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: a zeroed sockaddr_un is valid; the path is copied within
        // its bounds (checked) and stays NUL-terminated.
        let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
        if bytes.len() >= addr.sun_path.len() {
            return Err(std::io::Error::from_raw_os_error(libc::ENAMETOOLONG));
        }
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        for (dst, src) in addr.sun_path.iter_mut().zip(bytes) {
            *dst = *src as libc::c_char;
        }
        let len = std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1;
        // SAFETY: `addr` is a valid sockaddr_un of at least `len` bytes.
        let rc = unsafe {
            libc::connect(
                fd,
                &addr as *const libc::sockaddr_un as *const libc::sockaddr,
                len as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let stream = UnixStream::from(owned);
        stream.set_nonblocking(false)?;
        Ok(stream)
    }

    pub(super) fn start(exe: &Path, store: &Store, root: &Path) {
        let mut command = Command::new(exe);
        command
            .arg("watch")
            .arg("--state-root")
            .arg(&store.config.root)
            .arg("--session-state")
            .arg(&store.config.session_state)
            .arg("--idle-ms")
            .arg(super::idle().as_millis().to_string())
            .arg("--")
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls between fork and exec. The
        // watcher gets a session of its own (no signal to the hook's group
        // reaches it) and no parent that could wait for it: the middle
        // process exits at once, so the host never waits on the watcher.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                match libc::fork() {
                    -1 => Err(std::io::Error::last_os_error()),
                    0 => Ok(()),
                    _ => libc::_exit(0),
                }
            });
        }
        if let Ok(mut middle) = command.spawn() {
            let _ = middle.wait();
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::Look;
    use crate::store::Store;
    use std::path::Path;

    pub(super) fn look(_dir: &Path, _name: &str, _kept: Option<&str>) -> Look {
        Look::Unavailable { start: false }
    }

    pub(super) fn start(_exe: &Path, _store: &Store, _root: &Path) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_or_count_as_none() {
        assert_eq!(
            parse(b"ok ab:7 12\nsrc/a.rs\0docs"),
            Some(Look::Changed {
                mark: "ab:7".into(),
                paths: vec!["src/a.rs".into(), "docs".into()],
                entries: 12
            })
        );
        assert_eq!(
            parse(b"ok ab:7 12\n"),
            Some(Look::Changed {
                mark: "ab:7".into(),
                paths: vec![],
                entries: 12
            })
        );
        assert_eq!(
            parse(b"walk ab:9 3 overflow\n"),
            Some(Look::Walk {
                mark: "ab:9".into()
            })
        );
        assert_eq!(parse(b"big 60000\n"), Some(Look::TooBig));
        assert_eq!(
            parse(b"busy scanning\n"),
            Some(Look::Unavailable { start: false })
        );
        for garbled in [&b""[..], b"ok", b"ok ab:7\n", b"ok ab:7 x\n", b"hello\n"] {
            assert_eq!(parse(garbled), None, "{garbled:?}");
        }
    }

    #[test]
    fn names_differ_per_tree_and_carry_the_version() {
        let a = name(Path::new("/work/a"));
        assert_ne!(a, name(Path::new("/work/b")));
        assert!(a.ends_with(&format!("-v{VERSION}")) && a.len() == 16 + 3);
    }
}
