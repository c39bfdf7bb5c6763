//! Who ran this hook: the chain of processes from the hook up to the host,
//! read from `/proc` (Linux). The hosts start their hooks in a shape the
//! agent's shell tool cannot take (see `../../../../e2e/NOTES.md` and the
//! README, "What the agent cannot do"):
//!
//! - Copilot CLI runs a hook command as a direct child in its own session;
//!   its shell tool always runs in a new session, and no process can join an
//!   existing session. So the hook's topmost process shares the host's
//!   session without leading it, and its parent is the host itself.
//! - Claude Code runs a hook as `/bin/sh -c <command>` leading a new session,
//!   right under the host (the command may `exec` on in the same process).
//!   Its Bash tool can take that shape with `exec`, so for Claude Code this
//!   check only filters; the transcript decides (`records`).
//!
//! Everywhere: a host that runs under another host's shell (the agent running
//! the host binary itself) does not speak for the user.

/// One process of the chain.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    pub sid: u32,
    /// The file name of its executable (`/proc/<pid>/exe`), lowercased.
    pub exe: String,
    /// Its executable's full path (`/proc/<pid>/exe`), as the system gives it.
    pub path: String,
    /// Its command line, read only where a judgement looks at it
    /// (`Proc::reads_argv`); empty elsewhere.
    pub argv: Vec<String>,
    /// The host named this process as itself (Claude Code's `CLAUDE_PID` in
    /// the hook's environment): it identifies a host however it was
    /// installed, though anyone can set it, so it never authenticates.
    pub named: Option<HostProc>,
    /// When it started (`/proc/<pid>/stat` field 22, clock ticks since boot):
    /// a pid reused by a later process starts later.
    pub start: u64,
}

/// Markers of the goal system's own hook plumbing in a process's command line.
const PLUMBING: [&str; 5] = [
    "goal-context.sh",
    "goal-hook",
    "hook-runner.mjs",
    "GOAL_SYSTEM_HOOK",
    "GOAL_SYSTEM_HOME",
];

/// Shells: a shell between two hosts is the outer host's shell tool.
const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "fish", "busybox"];

impl Proc {
    fn line(&self) -> String {
        self.argv.join(" ")
    }

    /// Part of our own hook command: the shell running the hooks-file command,
    /// `goal-context.sh`, the Node runner, the native hook.
    pub fn is_plumbing(&self) -> bool {
        let line = self.line();
        PLUMBING.iter().any(|m| line.contains(m))
    }

    /// Whether its command line matters past the hook's own plumbing: a Node
    /// process is known by the script it runs (`host`, Gemini's `is_gemini`),
    /// Copilot's extension process by its bootstrap script. Every other
    /// process is judged by its executable alone, so `chain` leaves its
    /// command line unread (reading one maps pages of that process's memory).
    fn reads_argv(exe: &str) -> bool {
        exe.starts_with("node") || matches!(exe, "copilot" | "copilot.exe")
    }

    fn is_shell(&self) -> bool {
        SHELLS.contains(&self.exe.as_str())
    }

    /// Which agent host this process is, by its executable (or, for hosts
    /// that run as a Node script, the script it runs).
    pub fn host(&self) -> Option<HostProc> {
        let script = self.argv.get(1).map(String::as_str).unwrap_or("");
        let node = self.exe.starts_with("node");
        if let Some(named) = self.named {
            return Some(named);
        }
        if let Some(host) = versioned_install(&self.path) {
            return Some(host);
        }
        match self.exe.as_str() {
            "copilot" | "copilot.exe" if self.line().contains("extension_bootstrap") => {
                Some(HostProc::CopilotExtension)
            }
            "copilot" | "copilot.exe" => Some(HostProc::Copilot),
            "claude" | "claude.exe" => Some(HostProc::Claude),
            "codex" | "codex.exe" => Some(HostProc::Codex),
            _ if node && script.contains("@github/copilot") && script.ends_with(".js") => {
                Some(HostProc::Copilot)
            }
            _ if node && script.contains("@anthropic-ai/claude-code") => Some(HostProc::Claude),
            _ if node && script.contains("@google/gemini-cli") => Some(HostProc::Gemini),
            _ => None,
        }
    }
}

/// A host's native installer keeps its binary as a file named by its
/// version in a folder named after the host: Claude Code's
/// `~/.local/share/claude/versions/2.1.332` (the `claude` on `PATH` is a
/// symlink to it, and `/proc/<pid>/exe` names the file itself).
fn versioned_install(path: &str) -> Option<HostProc> {
    let mut parts = std::path::Path::new(path).iter().rev();
    let version = parts.next()?.to_str()?;
    let versioned = version.starts_with(|c: char| c.is_ascii_digit())
        && version
            .trim_end_matches(".exe")
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'));
    if !versioned || !parts.next()?.eq_ignore_ascii_case("versions") {
        return None;
    }
    match parts.next()?.to_str()?.to_ascii_lowercase().as_str() {
        "claude" | ".claude" | "claude-code" => Some(HostProc::Claude),
        "copilot" | ".copilot" => Some(HostProc::Copilot),
        _ => None,
    }
}

/// An agent host's process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostProc {
    Copilot,
    CopilotExtension,
    Claude,
    Codex,
    Gemini,
}

/// The chain from `pid` up to PID 1 (at most 64 processes). Empty where
/// `/proc` cannot be read (another system, a sandbox without it).
pub fn chain(pid: u32) -> Vec<Proc> {
    let mut out = Vec::new();
    let mut next = pid;
    // The command lines of the hook's plumbing are read to find where it ends
    // (`judge`); above it, only those `Proc::reads_argv` names.
    let mut plumbing = true;
    while next > 0 && out.len() < 64 {
        let Some(p) = read(next, |exe| plumbing || Proc::reads_argv(exe)) else {
            break;
        };
        plumbing = plumbing && p.is_plumbing();
        next = p.ppid;
        let last = p.pid == 1;
        out.push(p);
        if last {
            break;
        }
    }
    out
}

/// Process `pid`; its command line only where `argv_wanted(exe)`.
#[cfg(target_os = "linux")]
fn read(pid: u32, argv_wanted: impl Fn(&str) -> bool) -> Option<Proc> {
    let stat = String::from_utf8(read_proc(&format!("/proc/{pid}/stat"))?).ok()?;
    // `pid (comm) state ppid pgrp session ...`
    let fields = stat_fields(&stat)?;
    let ppid = fields.get(1)?.parse().ok()?;
    let sid = fields.get(3)?.parse().ok()?;
    let start = fields.get(19).and_then(|f| f.parse().ok()).unwrap_or(0);
    let path = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
    let exe = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let path = path.to_string_lossy().into_owned();
    let argv = argv_wanted(&exe)
        .then(|| read_proc(&format!("/proc/{pid}/cmdline")))
        .flatten()
        .map(|b| {
            b.split(|c| *c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default();
    Some(Proc {
        pid,
        ppid,
        sid,
        exe,
        path,
        argv,
        named: None,
        start,
    })
}

#[cfg(not(target_os = "linux"))]
fn read(_pid: u32, _argv_wanted: impl Fn(&str) -> bool) -> Option<Proc> {
    None
}

/// The environment of the outermost `host` process above the hook in `chain`,
/// as a variable lookup: where the host keeps its records is the host's to
/// say. The hook's own environment is the agent's to set when its shell runs
/// the hook (`HOME=/tmp/x`, `CLAUDE_CONFIG_DIR=…`); the running host's is not.
/// The host is known by its executable only (a `CLAUDE_PID` anyone can set
/// does not count), and the process must still be the one the chain read.
/// None where it cannot be read (then the hook's own environment is used).
pub fn host_environ(
    chain: &[Proc],
    host: HostProc,
) -> Option<impl Fn(&str) -> Option<std::ffi::OsString>> {
    let bytes = read_environ(outermost_host(chain, host)?)?;
    let vars: Vec<(String, std::ffi::OsString)> = bytes
        .split(|b| *b == 0)
        .filter_map(|kv| {
            let at = kv.iter().position(|b| *b == b'=')?;
            let name = std::str::from_utf8(&kv[..at]).ok()?.to_string();
            Some((name, os_string(&kv[at + 1..])))
        })
        .collect();
    Some(move |name: &str| vars.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()))
}

/// The outermost `host` process above the hook, known by its executable. The
/// real host is an ancestor of everything its agent starts: a program named
/// like the host that the agent's shell runs (with an environment of its
/// choosing) always sits below it.
fn outermost_host(chain: &[Proc], host: HostProc) -> Option<&Proc> {
    chain.iter().skip(1).rev().find(|p| {
        let by_exe = Proc {
            named: None,
            ..(*p).clone()
        };
        by_exe.host() == Some(host)
    })
}

/// The environment of `p`, if the process with its pid is still the one
/// the chain read: the same executable and start time, checked after the
/// read (a pid taken by a later process in between starts later).
#[cfg(target_os = "linux")]
fn read_environ(p: &Proc) -> Option<Vec<u8>> {
    if p.path.is_empty() {
        return None;
    }
    let environ = read_proc(&format!("/proc/{}/environ", p.pid))?;
    let stat = String::from_utf8(read_proc(&format!("/proc/{}/stat", p.pid))?).ok()?;
    let start = stat_fields(&stat)?.get(19)?.parse::<u64>().ok()?;
    let path = std::fs::read_link(format!("/proc/{}/exe", p.pid)).ok()?;
    (start == p.start && path.to_string_lossy() == p.path).then_some(environ)
}

/// A file of `/proc`, whole. Its size reads as 0, so `fs::read` would ask
/// for it 32 bytes at first and double from there, and `read_to_end` first
/// asks the file's size and position (each a system call, for every process
/// of the chain). A read that leaves room in a page's buffer had it all
/// (`stat` is made whole at the first read; a command line or an
/// environment is copied from the process's memory as far as asked); a
/// longer one is read on to its end.
#[cfg(target_os = "linux")]
fn read_proc(path: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    const PAGE: usize = 4096;
    let mut file = std::fs::File::open(path).ok()?;
    let mut bytes = vec![0; PAGE];
    let n = loop {
        match file.read(&mut bytes) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            got => break got.ok()?,
        }
    };
    bytes.truncate(n);
    if n == PAGE {
        file.read_to_end(&mut bytes).ok()?;
    }
    Some(bytes)
}

/// The fields of a `/proc/<pid>/stat` line after `pid (comm)`: comm may hold
/// spaces and parens.
#[cfg(target_os = "linux")]
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    Some(stat[stat.rfind(')')? + 1..].split_whitespace().collect())
}

#[cfg(not(target_os = "linux"))]
fn read_environ(_p: &Proc) -> Option<Vec<u8>> {
    None
}

#[cfg(unix)]
fn os_string(bytes: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(bytes).to_os_string()
}

#[cfg(not(unix))]
fn os_string(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

/// What the chain says about who ran the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    /// The host ran it, in the shape only the host gives its hooks.
    ByHost(HostProc),
    /// Not the host's hook: why, in a few words.
    NotByHost(String),
    /// The chain cannot be read here (not Linux).
    Unknown,
}

/// Judge `chain` (the hook process first) for a hook of `expected`.
pub fn judge(chain: &[Proc], expected: HostProc) -> Ran {
    if chain.is_empty() {
        return Ran::Unknown;
    }
    // The first process that is not our own hook plumbing is who ran it.
    let Some(k) = chain.iter().position(|p| !p.is_plumbing()) else {
        return Ran::NotByHost("no process above the hook".into());
    };
    if k == 0 {
        return Ran::NotByHost("the hook is not running as a hook command".into());
    }
    let top = &chain[k - 1];
    let runner = &chain[k];
    let Some(host) = runner.host() else {
        return Ran::NotByHost(format!(
            "it was started by {} rather than the host",
            if runner.exe.is_empty() {
                "another process"
            } else {
                &runner.exe
            }
        ));
    };
    if host != expected {
        return Ran::NotByHost("it was started by another host's process".into());
    }
    // A host that descends from another host: the agent ran a host binary
    // (or `exec`ed a program named like one) from its shell tool. The one
    // host-under-host the hosts make themselves is a launcher: Copilot's npm
    // loader runs the native binary as its child, in its own session; a
    // shell tool always leads a session of its own, and so does what it
    // `exec`s.
    let above = &chain[k + 1..];
    if let Some(outer) = above.iter().position(|p| p.host().is_some()) {
        let parent = &above[outer];
        let launcher = outer == 0
            && parent.host() == Some(host)
            && runner.sid == parent.sid
            && runner.sid != runner.pid;
        if !launcher {
            return Ran::NotByHost(if above[..outer].iter().any(Proc::is_shell) {
                "its host runs inside another agent host's shell".into()
            } else {
                "its host was started by another agent host's process".into()
            });
        }
    }
    match expected {
        HostProc::Copilot if top.sid != runner.sid || top.sid == top.pid => {
            Ran::NotByHost("it does not run in the host's own session".into())
        }
        // Claude Code's `/bin/sh -c <command>` leads a session of its own (the
        // command's `exec`s may have replaced it since; its pid stays).
        HostProc::Claude if top.sid != top.pid => {
            Ran::NotByHost("it was not started the way the host starts its hooks".into())
        }
        _ => Ran::ByHost(host),
    }
}

/// A process of a test's chain: `exe` installed in /usr/bin, named by nobody.
#[cfg(test)]
pub(crate) fn p(pid: u32, ppid: u32, sid: u32, exe: &str, argv: &[&str]) -> Proc {
    Proc {
        pid,
        ppid,
        sid,
        exe: exe.into(),
        path: format!("/usr/bin/{exe}"),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        named: None,
        start: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_whose_environment_counts_is_the_outermost() {
        // hook <- fake `claude` the agent started <- agent's shell <- the real claude
        let chain = vec![
            p(
                50,
                49,
                49,
                "goal-hook",
                &["/x/goal-hook", "--host", "claude"],
            ),
            p(49, 48, 48, "claude", &["/tmp/x/claude", "-c", "goal-hook"]),
            p(48, 30, 48, "bash", &["bash", "-c", "…"]),
            p(30, 20, 20, "claude", &["claude"]),
            p(20, 1, 20, "bash", &["bash"]),
        ];
        assert_eq!(
            outermost_host(&chain, HostProc::Claude).map(|p| p.pid),
            Some(30)
        );
        // The hook itself is never taken for the host, whatever its name.
        let me = vec![p(7, 1, 7, "claude", &["claude"])];
        assert_eq!(outermost_host(&me, HostProc::Claude), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_environment_is_read_only_from_the_process_the_chain_read() {
        let me = read(std::process::id(), |_| true).expect("this process in /proc");
        assert!(me.start > 0, "{me:?}");
        assert!(read_environ(&me).is_some());
        // The same pid taken by a later process (or another executable).
        let later = Proc {
            start: me.start + 1,
            ..me.clone()
        };
        assert_eq!(read_environ(&later), None);
        let other = Proc {
            path: "/usr/bin/other".into(),
            ..me
        };
        assert_eq!(read_environ(&other), None);
    }

    const CMD: &str = "GOAL_SYSTEM_HOOK=\"/x/goal-hook\" sh \"/x/hooks/goal-context.sh\" userPromptSubmitted || echo '{}'";

    fn copilot_real() -> Vec<Proc> {
        vec![
            p(
                40,
                39,
                14,
                "goal-hook",
                &[
                    "/x/goal-hook",
                    "--host",
                    "copilot-cli",
                    "userPromptSubmitted",
                ],
            ),
            p(
                39,
                38,
                14,
                "dash",
                &["sh", "/x/hooks/goal-context.sh", "userPromptSubmitted"],
            ),
            p(38, 14, 14, "bash", &["/bin/bash", "-c", CMD]),
            p(14, 13, 14, "copilot", &["/o/copilot", "--allow-all"]),
            p(13, 1, 13, "zsh", &["-zsh"]),
            p(1, 0, 1, "systemd", &["/sbin/init"]),
        ]
    }

    #[test]
    fn copilots_own_hook_run_is_the_hosts() {
        assert_eq!(
            judge(&copilot_real(), HostProc::Copilot),
            Ran::ByHost(HostProc::Copilot)
        );
        assert_eq!(judge(&[], HostProc::Copilot), Ran::Unknown);
    }

    #[test]
    fn forgeries_from_copilots_shell_tool_are_not() {
        let tool = p(30, 14, 30, "bash", &["/bin/bash", "--norc", "--noprofile"]);
        let host = p(14, 13, 14, "copilot", &["/o/copilot"]);
        let init = p(1, 0, 1, "systemd", &["/sbin/init"]);
        let hook = |ppid| {
            p(
                41,
                ppid,
                30,
                "goal-hook",
                &[
                    "/x/goal-hook",
                    "--host",
                    "copilot-cli",
                    "userPromptSubmitted",
                ],
            )
        };
        let script = |pid, ppid, sid| {
            p(
                pid,
                ppid,
                sid,
                "dash",
                &["sh", "/x/hooks/goal-context.sh", "userPromptSubmitted"],
            )
        };
        // echo payload | sh goal-context.sh ...
        let piped = vec![
            hook(31),
            script(31, 30, 30),
            tool.clone(),
            host.clone(),
            init.clone(),
        ];
        // exec sh goal-context.sh: right under the host, but leading the tool's session
        let exec = vec![hook(30), script(30, 14, 30), host.clone(), init.clone()];
        // exec goal-hook itself
        let exec_hook = vec![
            p(
                30,
                14,
                30,
                "goal-hook",
                &["/x/goal-hook", "--host", "copilot-cli", "x"],
            ),
            host.clone(),
            init.clone(),
        ];
        // setsid/nohup/double fork: reparented to PID 1
        let orphan = vec![hook(31), script(31, 1, 31), init.clone()];
        // the exact hooks-file command under the tool shell
        let bash_c = vec![
            hook(32),
            script(32, 31, 30),
            p(31, 30, 30, "bash", &["/bin/bash", "-c", CMD]),
            tool.clone(),
            host.clone(),
            init.clone(),
        ];
        // the host binary run by the agent on the same session (nested)
        let nested = vec![
            hook(52),
            script(52, 51, 50),
            p(51, 50, 50, "bash", &["/bin/bash", "-c", CMD]),
            p(
                50,
                30,
                50,
                "copilot",
                &["/o/copilot", "-p", "/goal cancel", "--resume", "s"],
            ),
            tool.clone(),
            host.clone(),
            init.clone(),
        ];
        // a copy of a shell named like the host, detached
        // a copy of a shell renamed after the host, run from the tool shell
        let fake = vec![
            hook(61),
            script(61, 60, 60),
            p(60, 30, 60, "copilot", &["/tmp/copilot", "-c", "x"]),
            tool.clone(),
            host.clone(),
            init.clone(),
        ];
        // the extension process
        let ext = vec![
            hook(71),
            script(71, 70, 14),
            p(
                70,
                14,
                14,
                "copilot",
                &["/o/copilot", "/o/preloads/extension_bootstrap.mjs"],
            ),
            host.clone(),
            init,
        ];
        for (name, chain) in [
            ("pipe", piped),
            ("exec", exec),
            ("exec hook", exec_hook),
            ("orphan", orphan),
            ("bash -c", bash_c),
            ("nested", nested),
            ("fake", fake),
            ("extension", ext),
        ] {
            assert!(
                matches!(judge(&chain, HostProc::Copilot), Ran::NotByHost(_)),
                "{name}: {:?}",
                judge(&chain, HostProc::Copilot)
            );
        }
    }

    #[test]
    fn claudes_hook_shape_is_checked() {
        let real = vec![
            p(
                62,
                61,
                61,
                "goal-hook",
                &["/x/goal-hook", "--host", "claude", "UserPromptSubmit"],
            ),
            p(
                61,
                14,
                61,
                "dash",
                &[
                    "/bin/sh",
                    "-c",
                    "o=$(\"/x/goal-hook\" --host claude UserPromptSubmit) && printf '%s\\n' \"$o\"",
                ],
            ),
            p(14, 13, 13, "claude", &["/o/claude"]),
            p(13, 1, 13, "bash", &["-bash"]),
        ];
        assert_eq!(
            judge(&real, HostProc::Claude),
            Ran::ByHost(HostProc::Claude)
        );
        // Under the Bash tool's shell: not the host's.
        let mut piped = real.clone();
        piped[1].ppid = 90;
        piped.insert(
            2,
            p(
                90,
                14,
                90,
                "bash",
                &["/bin/bash", "-c", "source snap && eval 'x'"],
            ),
        );
        assert!(matches!(judge(&piped, HostProc::Claude), Ran::NotByHost(_)));
        // A Copilot-shaped chain is not Claude's.
        assert!(matches!(
            judge(&copilot_real(), HostProc::Claude),
            Ran::NotByHost(_)
        ));
    }

    fn claude_hook(sh_parent: u32) -> Vec<Proc> {
        vec![
            p(
                62,
                61,
                61,
                "goal-hook",
                &["/x/goal-hook", "--host", "claude", "UserPromptSubmit"],
            ),
            p(
                61,
                sh_parent,
                61,
                "dash",
                &[
                    "/bin/sh",
                    "-c",
                    "\"/x/goal-hook\" --host claude UserPromptSubmit",
                ],
            ),
        ]
    }

    #[test]
    fn claude_from_its_native_installer_is_the_host() {
        // `~/.local/bin/claude` -> `~/.local/share/claude/versions/2.1.332`:
        // `/proc/<pid>/exe` names the versioned file.
        let mut host = p(14, 13, 13, "2.1.332", &["claude"]);
        host.path = "/home/u/.local/share/claude/versions/2.1.332".into();
        let mut chain = claude_hook(14);
        chain.extend([host.clone(), p(13, 1, 13, "bash", &["-bash"])]);
        assert_eq!(
            judge(&chain, HostProc::Claude),
            Ran::ByHost(HostProc::Claude)
        );
        // Any other versioned file is not Claude Code.
        chain[2].path = "/home/u/.local/share/nvim/versions/2.1.332".into();
        assert!(matches!(judge(&chain, HostProc::Claude), Ran::NotByHost(_)));
        // Wherever it lives, the pid the hook's environment names is the host.
        chain[2].path = "/opt/somewhere/claude-2.1.332".into();
        chain[2].named = Some(HostProc::Claude);
        assert_eq!(
            judge(&chain, HostProc::Claude),
            Ran::ByHost(HostProc::Claude)
        );
    }

    #[test]
    fn copilots_npm_loader_may_start_the_host_but_no_host_started_by_the_tool_speaks() {
        let hook = p(
            40,
            30,
            14,
            "goal-hook",
            &[
                "/x/goal-hook",
                "--host",
                "copilot-cli",
                "userPromptSubmitted",
            ],
        );
        let loader = p(
            20,
            13,
            13,
            "node",
            &["node", "/g/node_modules/@github/copilot/npm-loader.js"],
        );
        let init = p(1, 0, 1, "systemd", &["/sbin/init"]);
        // npm -g: node npm-loader.js spawns the native binary in its session.
        let npm = vec![
            hook.clone(),
            p(30, 20, 13, "copilot", &["/g/copilot-linux-x64/copilot"]),
            loader.clone(),
            p(13, 1, 13, "zsh", &["-zsh"]),
            init.clone(),
        ];
        let mut npm_hook = npm.clone();
        npm_hook[0].sid = 13;
        assert_eq!(
            judge(&npm_hook, HostProc::Copilot),
            Ran::ByHost(HostProc::Copilot)
        );
        // review-7 V1: `cp /bin/bash copilot && exec ./copilot run.sh` in the
        // shell tool: the renamed copy is the tool's session leader, right
        // under the real host.
        let host = p(14, 13, 13, "copilot", &["/o/copilot"]);
        let exec_fake = vec![
            p(
                41,
                30,
                30,
                "dash",
                &["sh", "/x/hooks/goal-context.sh", "userPromptSubmitted"],
            ),
            p(30, 14, 30, "copilot", &["/tmp/q/copilot", "/tmp/q/run.sh"]),
            host.clone(),
            init.clone(),
        ];
        let mut exec_fake = exec_fake;
        exec_fake.insert(
            0,
            Proc {
                ppid: 41,
                sid: 30,
                ..hook.clone()
            },
        );
        assert!(
            matches!(judge(&exec_fake, HostProc::Copilot), Ran::NotByHost(_)),
            "{:?}",
            judge(&exec_fake, HostProc::Copilot)
        );
        // review-7 V6: `exec claude --resume=<id> -p '/goal cancel'` from
        // Claude's Bash tool: the nested host replaced the tool's shell.
        let mut nested = claude_hook(50);
        nested.extend([
            p(
                50,
                10,
                50,
                "claude",
                &["claude", "--resume=s", "-p", "/goal cancel"],
            ),
            p(10, 5, 5, "claude", &["claude"]),
            p(5, 1, 5, "zsh", &["zsh"]),
        ]);
        assert!(
            matches!(judge(&nested, HostProc::Claude), Ran::NotByHost(_)),
            "{:?}",
            judge(&nested, HostProc::Claude)
        );
    }

    #[test]
    fn this_process_chain_is_readable_on_linux() {
        let me = chain(std::process::id());
        if cfg!(target_os = "linux") {
            assert_eq!(me[0].pid, std::process::id());
            assert!(!me[0].exe.is_empty() && me.len() >= 2);
            assert!(matches!(judge(&me, HostProc::Claude), Ran::NotByHost(_)));
            // The test binary is no hook plumbing: above it, a command line
            // is read only where a judgement looks at it.
            assert!(!me[0].argv.is_empty());
            for p in &me[1..] {
                assert_eq!(p.argv.is_empty(), !Proc::reads_argv(&p.exe), "{p:?}");
            }
        } else {
            assert!(me.is_empty());
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_command_line_longer_than_a_page_is_read_whole() {
        let long = "x".repeat(3 * 4096 + 17);
        let mut child = std::process::Command::new("sh")
            .args(["-c", "read _", "name", &long])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("sh");
        // The spawn returns once the child's exec let go of the old memory,
        // a moment before the new command line is in place: ask until it is.
        let path = format!("/proc/{}/cmdline", child.id());
        let mut cmdline = read_proc(&path);
        for _ in 0..200 {
            if cmdline.as_ref().is_some_and(|b| !b.is_empty()) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
            cmdline = read_proc(&path);
        }
        drop(child.stdin.take());
        child.wait().expect("sh ends");
        let expected = ["sh", "-c", "read _", "name", &long]
            .iter()
            .map(|a| a.len() + 1)
            .sum::<usize>();
        assert_eq!(cmdline.map(|b| b.len()), Some(expected));
    }
}
