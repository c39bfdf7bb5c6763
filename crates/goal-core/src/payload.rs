//! How a hook payload is read, once for both hook front ends (the native
//! `goal-hook` and the Node `hook-runner.mjs`, through the addon): at most
//! [`MAX_HOOK_PAYLOAD_BYTES`], decoded as lossy UTF-8 so that one invalid
//! byte (a tool result cut mid-character) never costs the whole payload and
//! its decision.

use crate::hooks::{self, HookOutput, Host};
use crate::hosts;
use crate::store::StoreConfig;
use crate::Result;
use std::io::Read;

/// The largest payload a hook reads: 16 MiB. Larger ones (a huge tool
/// result) are not parsed; the hook allows and says so on stderr. Both front
/// ends stop reading one byte past it, so memory stays bounded.
pub const MAX_HOOK_PAYLOAD_BYTES: usize = 16 << 20;

/// Read a payload from `reader`: at most `MAX_HOOK_PAYLOAD_BYTES + 1` bytes
/// (the extra byte tells an oversized payload from one that fits exactly).
pub fn read_capped(reader: impl Read) -> std::io::Result<Vec<u8>> {
    // Reserved up front: untouched pages cost nothing, and a big payload is
    // never moved by the buffer's growth.
    let mut bytes = crate::buffer::bytes(MAX_HOOK_PAYLOAD_BYTES + 1);
    reader
        .take(MAX_HOOK_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Decide on raw payload bytes, with the store configured from the environment.
pub fn run_bytes(host: Host, event_name: &str, bytes: &[u8]) -> HookOutput {
    run_bytes_with(host, event_name, bytes, StoreConfig::from_env())
}

/// [`run_bytes`] for a host named by the caller (`copilot-cli`, `vscode`,
/// ...): an unknown name allows and says so.
pub fn run_named(host: &str, event_name: &str, bytes: &[u8]) -> HookOutput {
    match Host::parse(host) {
        Some(h) => run_bytes(h, event_name, bytes),
        None => {
            let mut out = hooks::run(Host::CopilotCli, "unknown", "{}");
            let note = format!("goal-system hook: unknown host \"{host}\"; allowing\n");
            out.stderr = crate::redact::echoing(&note, &[host], true);
            out
        }
    }
}

/// [`run_bytes`] with an explicit store configuration.
pub fn run_bytes_with(
    host: Host,
    event_name: &str,
    bytes: &[u8],
    config: Result<StoreConfig>,
) -> HookOutput {
    for_host(decide_bytes(host, event_name, bytes, config))
}

/// What a hook prints, as both front ends print it: its stderr redacted
/// like every error text, so a note that quotes what it read (a state copy
/// of the wrong shape quoting its value, an argument) shows no secret.
fn for_host(mut out: HookOutput) -> HookOutput {
    if !out.stderr.is_empty() {
        out.stderr = crate::redact::for_message(&out.stderr);
    }
    out
}

fn decide_bytes(
    host: Host,
    event_name: &str,
    bytes: &[u8],
    config: Result<StoreConfig>,
) -> HookOutput {
    if bytes.len() > MAX_HOOK_PAYLOAD_BYTES {
        let mut out = hooks::run_with(host, event_name, "{}", config);
        out.stderr = format!(
            "goal-system hook: payload larger than {MAX_HOOK_PAYLOAD_BYTES} bytes; not read; allowing\n"
        );
        return out;
    }
    // Parsed once, for the host resolution and the decision both: a big tool
    // result is scanned, not copied (see `hooks::parse_stdin_bytes`).
    let parsed = hooks::parse_stdin_bytes(bytes);
    // A VS Code or Claude Code entry that Copilot CLI also runs may leave the
    // event to the entry that decides it there (one decision per event).
    match hosts::resolve(host, parsed.as_ref().ok()) {
        hosts::Role::Decide(h) => hooks::run_parsed(
            h,
            event_name,
            parsed,
            config,
            &crate::provenance::Origin::of_this_process(),
        ),
        hosts::Role::StandDown => HookOutput {
            stdout: "{}".to_string(),
            stderr: String::new(),
            exit_code: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_stops_one_byte_past_the_cap() {
        let big = std::io::repeat(b'x').take(MAX_HOOK_PAYLOAD_BYTES as u64 * 2);
        assert_eq!(read_capped(big).unwrap().len(), MAX_HOOK_PAYLOAD_BYTES + 1);
        assert_eq!(read_capped(&b"{}"[..]).unwrap(), b"{}");
    }

    #[test]
    fn an_oversized_payload_is_allowed_and_said_so() {
        let bytes = vec![b' '; MAX_HOOK_PAYLOAD_BYTES + 1];
        let out = run_bytes_with(
            Host::CopilotCli,
            "agentStop",
            &bytes,
            Err(crate::GoalError::invalid("no store")),
        );
        assert_eq!(out.exit_code, 0);
        assert!(serde_json::from_str::<serde_json::Value>(&out.stdout).is_ok());
        assert!(out.stderr.contains("larger than"), "{}", out.stderr);
    }
}
