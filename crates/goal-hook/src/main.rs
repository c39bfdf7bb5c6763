//! Native hook executable: `goal-hook [--host copilot-cli|vscode|claude] <event>`.
//! Reads the host's JSON payload on stdin and prints the decision on stdout.
//! It exists so Copilot CLI's shell hook does not pay Node's start-up on every
//! tool call; the decision itself is goal_core::hooks::run, shared with Node.
//!
//! `goal-hook statusline` prints the session's goal line for Claude Code's
//! status bar (goal_core::progress::statusline), for the same reason: it runs
//! on every refresh.
//!
//! `goal-hook watch ... -- <tree>` is the tree's watcher (Linux): started by
//! a hook in the background when it had to walk the goal's tree, it answers
//! later hooks which paths changed (goal_core::observe::watcher). Never run
//! by hand; `GOAL_SYSTEM_WATCH=off` stops hooks from starting it.

use std::io::{Read, Write};

#[cfg(target_os = "linux")]
mod arena;
#[cfg(unix)]
mod guard;

use goal_core::hooks::{self, Host};
use goal_core::payload;

/// Status line payloads are small; a large one is cut (and then not JSON: no line).
const MAX_STATUSLINE_STDIN: u64 = 1024 * 1024;

/// Prints the line, or nothing: a status bar must never show an error.
fn statusline() {
    let mut input = String::new();
    let _ = std::io::stdin()
        .take(MAX_STATUSLINE_STDIN)
        .read_to_string(&mut input);
    let line = goal_core::store::StoreConfig::from_env()
        .map(goal_core::store::Store::new)
        .map(|store| {
            goal_core::progress::statusline::for_payload(&store, &input, goal_core::clock::now_ms())
        })
        .unwrap_or_default();
    if !line.is_empty() {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    }
}

/// The watcher of one tree, until idle: `watch --state-root <dir>
/// --session-state <dir> --idle-ms <n> -- <tree>`. Quiet whatever happens.
fn watch(args: impl Iterator<Item = String>) {
    use goal_core::observe::watch;
    let (mut state_root, mut session_state, mut idle, mut root) = (None, None, watch::idle(), None);
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--state-root" => state_root = args.next(),
            "--session-state" => session_state = args.next(),
            "--idle-ms" => {
                if let Some(ms) = args.next().and_then(|v| v.parse().ok()) {
                    idle = std::time::Duration::from_millis(ms);
                }
            }
            "--" => root = args.next(),
            _ => {}
        }
    }
    let (Some(state_root), Some(session_state), Some(root)) = (state_root, session_state, root)
    else {
        return;
    };
    let store = goal_core::store::Store::new(goal_core::store::StoreConfig::new(
        session_state,
        state_root,
    ));
    let root = std::path::PathBuf::from(root);
    let Ok(dir) = store.private_folder(watch::FOLDER) else {
        return;
    };
    #[cfg(target_os = "linux")]
    let _ = goal_core::observe::watcher::run(goal_core::observe::watcher::Options {
        excluded: goal_core::observe::excluded(&store, &root),
        name: watch::name(&root),
        root,
        dir,
        idle,
    });
    #[cfg(not(target_os = "linux"))]
    let _ = (dir, idle, root);
}

fn main() {
    let mode = std::env::args().nth(1);
    if mode.as_deref() == Some("watch") {
        return watch(std::env::args().skip(2));
    }
    // A hook answers whatever happens from here (guard.rs); a status line
    // that dies only shows nothing.
    #[cfg(unix)]
    if mode.as_deref() != Some("statusline") {
        guard::arm();
    }
    // One job, then exit: small blocks from the hook's own region.
    #[cfg(target_os = "linux")]
    arena::start();
    if mode.as_deref() == Some("statusline") {
        return statusline();
    }
    // One payload, then exit: big buffers may take huge pages (not the watcher, which stays).
    goal_core::buffer::short_lived();
    goal_core::buffer::widen_stdin_pipe();
    // This executable starts the tree's watcher when a hook had to walk.
    goal_core::observe::watch::set_launcher(None);
    let mut host = Host::CopilotCli;
    let mut event = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--host" => {
                if let Some(h) = args.next().as_deref().and_then(Host::parse) {
                    host = h;
                }
            }
            "--version" | "-V" => {
                // The build too (`linux x86_64 musl`): which libc a Linux
                // hook carries decides how fast it starts (build-hook.mjs).
                let libc = if cfg!(target_env = "musl") {
                    " musl"
                } else if cfg!(target_env = "gnu") {
                    " gnu"
                } else {
                    ""
                };
                println!(
                    "goal-hook {} ({} {}{libc})",
                    env!("CARGO_PKG_VERSION"),
                    std::env::consts::OS,
                    std::env::consts::ARCH
                );
                return;
            }
            "--help" | "-h" => {
                println!("usage: goal-hook [--host copilot-cli|copilot-sdk|vscode|claude] <event>\n       goal-hook statusline\nReads the hook payload (JSON) on stdin; prints the decision (JSON) on stdout; always exits 0.\nstatusline: reads Claude Code's statusLine JSON; prints the session's goal line, or nothing.");
                return;
            }
            other => event = other.to_string(),
        }
    }
    // Bytes, not a string: one invalid UTF-8 byte must not cost the payload
    // (payload::run_bytes decodes it lossily, as the Node runner does).
    // Kept to the end: the process exits without unmapping its room.
    let read = payload::read_capped(std::io::stdin().lock());
    // A decision that panics is caught where it is made (hooks::run_parsed);
    // this catches the rest, so that the exit below is still 0.
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &read {
        Ok(bytes) => payload::run_bytes(host, &event, bytes),
        Err(e) => {
            let mut out = hooks::run(host, &event, "{}");
            out.stderr = format!("goal-system hook: could not read stdin ({e}); allowing\n");
            out
        }
    }))
    .unwrap_or_else(|_| hooks::HookOutput {
        stdout: "{}".into(),
        stderr: "goal-system hook: failed (a bug); allowing\n".into(),
        exit_code: 0,
    });
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    // The answer in one write, the last thing this process does before it
    // exits: the hooks files run the next step of their chain only when
    // this one exits non-zero, which it then has done without printing
    // (scripts/hooks-files.mjs).
    let mut answer = out.stdout.into_bytes();
    answer.push(b'\n');
    #[cfg(unix)]
    guard::answering();
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(&answer);
    let _ = stdout.flush();
    // 0 whatever the answer says: a non-zero exit after the answer would run
    // the chain's next step, and the host would read two answers.
    std::process::exit(0);
}
