//! Gemini CLI (0.61.0): who spoke in a BeforeAgent payload, decided at once by
//! the hook's process chain, as for Copilot CLI. Gemini CLI (a Node process)
//! runs a hook command as its own direct child in its own session, without
//! leading one; its shell tool (`run_shell_command`) runs `bash -c` leading a
//! new session (seen in the real host, e2e/NOTES.md). No process can join
//! another's session, and only the host makes children of the host: a hook
//! command run from the agent's shell always shows the tool's session, or a
//! shell of its own, between it and the host.

use std::path::{Component, Path, PathBuf};

use super::process::{Proc, Ran};
use super::{Origin, Voice};
use crate::hooks::protocol::Payload;

/// Gemini CLI's folders: `$GEMINI_CLI_HOME/.gemini` (its home override) and `~/.gemini`.
pub fn gemini_dirs() -> Vec<PathBuf> {
    gemini_dirs_from(|name| std::env::var_os(name))
}

/// Gemini CLI's folders from a variable lookup (the host's own environment,
/// see `process::host_environ`).
pub fn gemini_dirs_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Vec<PathBuf> {
    var("GEMINI_CLI_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain(crate::store::home_from(&var))
        .map(|home| home.join(".gemini"))
        .collect()
}

/// A payload's `transcript_path`, taken only in the shape and place Gemini CLI
/// writes a main session's chat recording:
/// `<dir>/tmp/<project>/chats/session-<time>-<first 8 of the session id>.jsonl`.
pub fn chat(path: &str, session: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let path = Path::new(path);
    if session.is_empty() || path.components().any(|c| matches!(c, Component::ParentDir)) {
        return None;
    }
    let short: String = session.chars().take(8).collect();
    let name = path.file_name()?.to_str()?;
    if !(name.starts_with("session-") && name.ends_with(&format!("-{short}.jsonl"))) {
        return None;
    }
    let chats = path.parent()?;
    let tmp = chats.parent()?.parent()?;
    if chats.file_name()?.to_str()? != "chats" || tmp.file_name()?.to_str()? != "tmp" {
        return None;
    }
    let home = tmp.parent()?;
    dirs.iter().any(|d| d == home).then(|| path.to_path_buf())
}

/// Whether a BeforeAgent payload is the user's (see the module doc).
pub fn voice(_payload: &Payload, origin: &Origin) -> Voice {
    match judge(origin.chain()) {
        Ran::ByHost(_) => Voice::User,
        Ran::NotByHost(why) => Voice::Refused(why),
        Ran::Unknown => Voice::Unchecked,
    }
}

/// Judge `chain` (the hook first) for a Gemini CLI hook.
pub fn judge(chain: &[Proc]) -> Ran {
    if chain.is_empty() {
        return Ran::Unknown;
    }
    let Some(k) = chain
        .iter()
        .position(|p| !p.is_plumbing())
        .filter(|k| *k > 0)
    else {
        return Ran::NotByHost("the hook is not running as a hook command".into());
    };
    let (top, runner) = (&chain[k - 1], &chain[k]);
    if !is_gemini(runner) {
        return Ran::NotByHost(format!(
            "it was started by {} rather than the host",
            if runner.exe.is_empty() {
                "another process"
            } else {
                &runner.exe
            }
        ));
    }
    // A Gemini CLI under another host's shell: the agent ran the host itself.
    let above = &chain[k + 1..];
    if let Some(outer) = above
        .iter()
        .position(|p| p.host().is_some() || is_gemini(p))
    {
        if above[..outer]
            .iter()
            .any(|p| SHELLS.contains(&p.exe.as_str()))
        {
            return Ran::NotByHost("its host runs inside another agent host's shell".into());
        }
    }
    if top.sid != runner.sid || top.sid == top.pid {
        return Ran::NotByHost("it does not run in the host's own session".into());
    }
    Ran::ByHost(super::process::HostProc::Gemini)
}

const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "fish", "busybox"];

/// A Node process running Gemini CLI: its script is the package's bundle, or
/// a `gemini` command that leads there (npm's bin link, a relaunched child).
fn is_gemini(p: &Proc) -> bool {
    if !p.exe.starts_with("node") {
        return false;
    }
    p.argv.iter().skip(1).take(4).any(|a| {
        let named = |s: &str| {
            s.contains("@google/gemini-cli")
                || Path::new(s)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n == "gemini" || n == "gemini.js")
        };
        named(a)
            || std::fs::canonicalize(a)
                .ok()
                .is_some_and(|real| named(&real.to_string_lossy()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::process::p;

    #[test]
    fn a_chat_recording_is_read_only_where_and_as_gemini_writes_it() {
        let session = "0f3c2a9e-1111-4222-8333-444455556666";
        let dirs = [PathBuf::from("/h/.gemini")];
        let chat = |p: &str| super::chat(p, session, &dirs);
        let good = "/h/.gemini/tmp/proj/chats/session-2026-11-26T10-00-0f3c2a9e.jsonl";
        assert_eq!(chat(good), Some(PathBuf::from(good)));
        for bad in [
            // another folder, another session, a subagent's file, a climb out
            "/tmp/x/tmp/proj/chats/session-2026-11-26T10-00-0f3c2a9e.jsonl",
            "/h/.gemini/tmp/proj/chats/session-2026-11-26T10-00-99999999.jsonl",
            "/h/.gemini/tmp/proj/chats/0f3c2a9e-1111-4222-8333-444455556666.jsonl",
            "/h/.gemini/tmp/proj/notes/session-2026-11-26T10-00-0f3c2a9e.jsonl",
            "/h/.gemini/tmp/proj/chats/../chats/session-2026-11-26T10-00-0f3c2a9e.jsonl",
            "",
        ] {
            assert_eq!(chat(bad), None, "{bad}");
        }
        assert_eq!(super::chat(good, "", &dirs), None);
    }

    fn gemini() -> Proc {
        p(
            13,
            5,
            5,
            "node",
            &[
                "/usr/bin/node",
                "/o/node_modules/@google/gemini-cli/bundle/gemini.js",
                "--yolo",
            ],
        )
    }

    fn hook(pid: u32, ppid: u32, sid: u32) -> Proc {
        p(
            pid,
            ppid,
            sid,
            "goal-hook",
            &["/x/goal-hook", "--host", "gemini", "BeforeAgent"],
        )
    }

    #[test]
    fn geminis_own_hook_run_is_the_hosts() {
        let sh = p(
            26,
            13,
            5,
            "dash",
            &[
                "/bin/sh",
                "-c",
                "o=$(\"/x/goal-hook\" --host gemini BeforeAgent)",
            ],
        );
        let real = vec![hook(27, 26, 5), sh, gemini(), p(5, 1, 5, "zsh", &["-zsh"])];
        assert_eq!(
            judge(&real),
            Ran::ByHost(super::super::process::HostProc::Gemini)
        );
        let linked = vec![
            hook(27, 13, 5),
            p(
                13,
                5,
                5,
                "node",
                &["node", "/usr/local/bin/gemini", "-p", "x"],
            ),
        ];
        assert!(matches!(judge(&linked), Ran::ByHost(_)), "npm's bin link");
        assert_eq!(judge(&[]), Ran::Unknown);
    }

    #[test]
    fn forgeries_from_the_shell_tool_are_not() {
        let tool = p(
            98,
            13,
            98,
            "bash",
            &["/usr/bin/bash", "-c", "shopt -u promptvars; sh forge.sh"],
        );
        // exec goal-hook from the tool's shell: it leads nothing, but sits in the tool's session.
        let exec = vec![hook(98, 13, 98), gemini()];
        let script = vec![
            hook(100, 99, 98),
            p(99, 98, 98, "dash", &["sh", "forge.sh"]),
            tool.clone(),
            gemini(),
        ];
        let piped = vec![hook(101, 98, 98), tool.clone(), gemini()];
        let orphan = vec![hook(102, 1, 102), p(1, 0, 1, "init", &["/sbin/init"])];
        let nested = vec![
            hook(120, 110, 5),
            p(
                110,
                99,
                98,
                "node",
                &[
                    "node",
                    "/o/@google/gemini-cli/bundle/gemini.js",
                    "-p",
                    "/goal cancel",
                ],
            ),
            p(99, 98, 98, "bash", &["bash", "-c", "x"]),
            tool,
            gemini(),
        ];
        for (name, chain) in [
            ("exec", exec),
            ("script", script),
            ("pipe", piped),
            ("orphan", orphan),
            ("nested", nested),
        ] {
            assert!(
                matches!(judge(&chain), Ran::NotByHost(_)),
                "{name}: {:?}",
                judge(&chain)
            );
        }
    }
}
