//! Native hook executable: `goal-hook [--host copilot-cli|vscode|claude] <event>`.
//! Reads the host's JSON payload on stdin and prints the decision on stdout.
//! It exists so Copilot CLI's shell hook does not pay Node's start-up on every
//! tool call; the decision itself is goal_core::hooks::run, shared with Node.
//!
//! `goal-hook statusline` prints the session's goal line for Claude Code's
//! status bar (goal_core::progress::statusline), for the same reason: it runs
//! on every refresh.

use std::io::{Read, Write};

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

fn main() {
    // One payload, then exit: big buffers may take huge pages.
    goal_core::buffer::short_lived();
    if std::env::args().nth(1).as_deref() == Some("statusline") {
        statusline();
        return;
    }
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
                println!("goal-hook {}", env!("CARGO_PKG_VERSION"));
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
    let out = match payload::read_capped(std::io::stdin().lock()) {
        Ok(bytes) => payload::run_bytes(host, &event, &bytes),
        Err(e) => {
            let mut out = hooks::run(host, &event, "{}");
            out.stderr = format!("goal-system hook: could not read stdin ({e}); allowing\n");
            out
        }
    };
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.stdout.as_bytes());
    let _ = stdout.write_all(b"\n");
    let _ = stdout.flush();
    std::process::exit(out.exit_code);
}
