//! Native hook executable: `goal-hook [--host copilot-cli|vscode|claude] <event>`.
//! Reads the host's JSON payload on stdin and prints the decision on stdout.
//! It exists so Copilot CLI's shell hook does not pay Node's start-up on every
//! tool call; the decision itself is goal_core::hooks::run, shared with Node.

use std::io::{Read, Write};

use goal_core::hooks::{self, Host};
use goal_core::hosts::{self, Role};

/// Payloads larger than this are not read further (a hook must stay fast).
const MAX_STDIN: u64 = 16 * 1024 * 1024;

fn main() {
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
                println!("usage: goal-hook [--host copilot-cli|copilot-sdk|vscode|claude] <event>\nReads the hook payload (JSON) on stdin; prints the decision (JSON) on stdout; always exits 0.");
                return;
            }
            other => event = other.to_string(),
        }
    }
    let mut input = String::new();
    let read = std::io::stdin().take(MAX_STDIN).read_to_string(&mut input);
    let out = match read {
        // A VS Code or Claude Code entry that Copilot CLI also runs may leave
        // the event to the entry that decides it there (one decision per event).
        Ok(_) => match hosts::resolve(host, &input) {
            Role::Decide(h) => hooks::run(h, &event, &input),
            Role::StandDown => hooks::HookOutput {
                stdout: "{}".to_string(),
                stderr: String::new(),
                exit_code: 0,
            },
        },
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
