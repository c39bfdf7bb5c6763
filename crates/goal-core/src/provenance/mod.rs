//! Only the user speaks as the user. A prompt hook's payload could have been
//! written by anyone who can run the hook command, the agent's own shell
//! included; a user command (open, replace, cancel, pause, resume, budget)
//! takes effect only when the host really delivered it. Per host:
//!
//! - Copilot CLI: the hook's process chain (`process`) filters: the host runs
//!   its hooks in its own session, its shell tool never. The session's
//!   `events.jsonl` decides, as Claude Code's transcript does: the command
//!   stays pending until the record holds the host's own `hook.start` for it
//!   (same timestamp and text), and is rolled back when the host goes on
//!   without one.
//! - Copilot CLI's SDK extension: the calling process must be the host's
//!   extension process, right under the host, in its session.
//! - Claude Code: the chain filters (the Bash tool can take a hook's shape
//!   with `exec`), and the transcript decides: the command takes effect at
//!   once but stays pending until, at the session's next hook event, the
//!   transcript holds the user's record of that prompt (or of our hook
//!   blocking it). A command the transcript does not confirm is rolled back,
//!   and the user is told.
//! - VS Code Copilot Chat: no signal could be checked in the real host; the
//!   payload is taken as it comes (the README says so).
//! - Codex CLI: as Claude Code, its rollout decides (`codex`).
//! - Gemini CLI: as Copilot CLI, the process chain decides at once (`gemini`).
//!
//! Everywhere: a host that runs inside another host's shell (the agent
//! running the host itself) does not speak for the user.

pub mod codex;
pub mod gemini;
pub mod process;
pub mod records;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::clock;
use crate::hooks::protocol::{Host, Payload};
use crate::record::{Goal, PendingCommand, RefusedCommand};
use crate::redact;
use crate::store::{Change, Store};
use process::{HostProc, Proc, Ran};
use records::Said;

/// How a hook was installed: decides how the user types the commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Route {
    /// `goal-system install` (user-level hooks, command file, skill).
    #[default]
    User,
    /// The host's plugin.
    Plugin,
}

/// Who ran this hook: its process chain (the hook first, read only when a
/// user command needs it) and install route. The front ends read it from the
/// running process; a test names one.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    chain: std::sync::OnceLock<Vec<Proc>>,
    pub route: Route,
    /// The pid the hook's environment names as the host (`CLAUDE_PID`).
    named: Option<u32>,
}

impl Origin {
    /// This process and its ancestors; the route from the hook's environment
    /// (Claude Code sets `CLAUDE_PLUGIN_ROOT` for a plugin's hooks; the
    /// product's plugins set `GOAL_SYSTEM_ROUTE=plugin`).
    pub fn of_this_process() -> Origin {
        let plugin = std::env::var_os("CLAUDE_PLUGIN_ROOT").is_some_and(|v| !v.is_empty())
            || std::env::var("GOAL_SYSTEM_ROUTE").is_ok_and(|v| v == "plugin");
        Origin {
            chain: std::sync::OnceLock::new(),
            route: if plugin { Route::Plugin } else { Route::User },
            named: std::env::var("CLAUDE_PID")
                .ok()
                .and_then(|v| v.trim().parse().ok()),
        }
    }

    /// The process chain, the hook first.
    pub fn chain(&self) -> &[Proc] {
        self.chain.get_or_init(|| {
            let mut chain = process::chain(std::process::id());
            // Claude Code names its own pid to its hooks: its process is the
            // host whatever its executable is called (a native install runs
            // a file named by its version).
            if let Some(p) = chain
                .iter_mut()
                .find(|p| Some(p.pid) == self.named && p.host().is_none() && p.pid > 1)
            {
                p.named = Some(HostProc::Claude);
            }
            chain
        })
    }

    /// The same origin on another install route.
    pub fn on_route(mut self, route: Route) -> Origin {
        self.route = route;
        self
    }

    /// The chain `host` gives its own hooks (for tests and embedders that
    /// are the host).
    pub fn host(host: Host) -> Origin {
        let p = |pid, ppid, sid, exe: &str, argv: &[&str]| Proc {
            pid,
            ppid,
            sid,
            exe: exe.into(),
            path: format!("/usr/bin/{exe}"),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            named: None,
            start: 0,
        };
        let hook = p(30, 20, 10, "goal-hook", &["goal-hook"]);
        let chain = match host {
            Host::CopilotCli => vec![
                hook,
                p(20, 10, 10, "copilot", &["copilot"]),
                p(10, 5, 5, "zsh", &["zsh"]),
            ],
            Host::CopilotSdk => vec![
                p(
                    20,
                    10,
                    10,
                    "copilot",
                    &["copilot", "extension_bootstrap.mjs"],
                ),
                p(10, 5, 5, "copilot", &["copilot"]),
                p(5, 1, 5, "zsh", &["zsh"]),
            ],
            Host::Claude => vec![
                Proc { sid: 20, ..hook },
                p(20, 10, 20, "dash", &["/bin/sh", "-c", "goal-hook"]),
                p(10, 5, 5, "claude", &["claude"]),
                p(5, 1, 5, "zsh", &["zsh"]),
            ],
            Host::VsCode => vec![hook],
            // Codex CLI starts a hook leading its own session, right under itself.
            Host::Codex => vec![
                Proc { sid: 30, ..hook },
                p(20, 10, 10, "codex", &["codex"]),
                p(10, 5, 5, "zsh", &["zsh"]),
            ],
            // Gemini CLI (Node) as its own child, in its own session.
            Host::Gemini => vec![
                hook,
                p(
                    20,
                    10,
                    10,
                    "node",
                    &["node", "/o/@google/gemini-cli/bundle/gemini.js"],
                ),
                p(10, 5, 5, "zsh", &["zsh"]),
            ],
        };
        Origin {
            chain: std::sync::OnceLock::from(chain),
            route: Route::User,
            named: None,
        }
    }
}

/// Whether a user command in a prompt payload may take effect.
#[derive(Debug, Clone, PartialEq)]
pub enum Voice {
    /// The host delivered it: take effect.
    User,
    /// Take effect now, confirm in the host's record at the next hook event.
    Provisional {
        record: PathBuf,
        offset: u64,
        prompt_id: String,
    },
    /// Not the user: do nothing, tell the user.
    Refused(String),
    /// No signal can be checked for this host (VS Code): take effect.
    Unchecked,
}

/// What a host's record of the conversation is called, for a refusal.
pub(crate) struct RecordNames {
    pub host: &'static str,
    pub record: &'static str,
    pub id: &'static str,
}

const CLAUDE_RECORD: RecordNames = RecordNames {
    host: "Claude Code",
    record: "transcript",
    id: "prompt id",
};

/// A prompt whose command waits for the host's record: refused when the
/// payload names no record of this session where the host keeps them,
/// another record than the one the goal was confirmed in (`pinned`), or no
/// id to find the prompt by.
pub(crate) fn awaits_record(
    record: Option<PathBuf>,
    payload: &Payload,
    pinned: &str,
    names: &RecordNames,
) -> Voice {
    let Some(record) = record else {
        return Voice::Refused(format!(
            "the payload names no {} of this session where {} keeps them",
            names.record, names.host
        ));
    };
    if !pinned.is_empty() && records::key(&record) != pinned {
        return Voice::Refused(format!(
            "it names another {} than this session's",
            names.record
        ));
    }
    if payload.prompt_id.is_empty() {
        return Voice::Refused(format!("the payload carries no {}", names.id));
    }
    // The record a goal was confirmed in cannot be missing: moved aside for
    // this read, it would leave the command nothing to be checked against.
    let offset = match std::fs::metadata(&record) {
        Ok(meta) => meta.len(),
        Err(_) if !pinned.is_empty() => {
            return Voice::Refused(format!("this session's {} is missing", names.record))
        }
        Err(_) => 0,
    };
    Voice::Provisional {
        offset,
        record,
        prompt_id: payload.prompt_id.clone(),
    }
}

/// Who spoke in a prompt payload. `dirs`: Claude Code's folders; `pinned`:
/// the fingerprint of the record the session's goal was confirmed in, when
/// it has one (a command naming another record is not this session's user).
pub fn voice(
    host: Host,
    payload: &Payload,
    origin: &Origin,
    dirs: &[PathBuf],
    pinned: &str,
    record: Option<&Path>,
) -> Voice {
    match host {
        Host::CopilotCli => match process::judge(origin.chain(), HostProc::Copilot) {
            // The chain filters (a program named like the host, started
            // where the host starts processes, can take its shape); the
            // session's events.jsonl confirms the host ran this hook.
            Ran::ByHost(_) => match record {
                Some(_) if !fresh(&payload.timestamp) => Voice::Refused(
                    "the payload's timestamp is not the time it arrived (a prompt replayed?)"
                        .into(),
                ),
                Some(record) => Voice::Provisional {
                    offset: records::end_of(record),
                    record: record.to_path_buf(),
                    prompt_id: format!("{}{}", records::COPILOT_ID, payload.timestamp),
                },
                None => Voice::User,
            },
            Ran::NotByHost(why) => Voice::Refused(why),
            Ran::Unknown => Voice::Unchecked,
        },
        Host::CopilotSdk => extension_voice(origin.chain()),
        Host::Claude => {
            if let Ran::NotByHost(why) = process::judge(origin.chain(), HostProc::Claude) {
                return Voice::Refused(why);
            }
            // The host's own word on the prompt's origin, where it gives one:
            // typed (`user`) or a `-p` run the user started (`sdk`; a nested
            // host the agent started is refused by its process chain above).
            if !matches!(payload.source.as_str(), "" | "user" | "sdk") {
                return Voice::Refused(format!(
                    "Claude Code says the prompt came from {:?}, not the user",
                    redact::truncate(&payload.source, 24)
                ));
            }
            // Claude Code's folders as the running host has them.
            let host_dirs = process::host_environ(origin.chain(), HostProc::Claude)
                .map(crate::store::claude_dirs_from);
            let dirs = host_dirs.as_deref().unwrap_or(dirs);
            let record =
                records::claude_transcript(&payload.transcript_path, &payload.session_id, dirs);
            awaits_record(record, payload, pinned, &CLAUDE_RECORD)
        }
        Host::VsCode => Voice::Unchecked,
        Host::Codex => {
            let dirs = process::host_environ(origin.chain(), HostProc::Codex)
                .map(codex::codex_dirs_from)
                .unwrap_or_else(codex::codex_dirs);
            codex::voice(payload, origin, &dirs, pinned)
        }
        Host::Gemini => gemini::voice(payload, origin),
    }
}

/// How far a Copilot CLI payload's `timestamp` (milliseconds) may be from
/// the time its hook runs: a host's own run is a moment old; an old prompt
/// the host did run, replayed later, is not.
const FRESH_MS: u64 = 5 * 60 * 1000;

fn fresh(timestamp: &str) -> bool {
    timestamp
        .parse::<u64>()
        .is_ok_and(|ts| clock::now_ms().abs_diff(ts) <= FRESH_MS)
}

/// Why the process chain says the host named by `host` did not run this hook
/// (a payload piped in from the agent's shell, a hook naming another host
/// than the one above it, one detached from any host); None where it says
/// the host did, or where it cannot be read. Codex's shell tool runs commands
/// in the same shape as its hooks: there the record decides the rest.
pub fn hook_refusal(host: Host, origin: &Origin) -> Option<String> {
    let chain = origin.chain();
    let ran = match host {
        Host::CopilotCli => process::judge(chain, HostProc::Copilot),
        Host::Claude => process::judge(chain, HostProc::Claude),
        Host::Gemini => gemini::judge(chain),
        Host::Codex => return codex::not_a_hook(origin),
        Host::CopilotSdk => {
            return match extension_voice(chain) {
                Voice::Refused(why) => Some(why),
                _ => None,
            }
        }
        Host::VsCode => return Some("VS Code's records are not read".into()),
    };
    match ran {
        Ran::NotByHost(why) => Some(why),
        Ran::ByHost(_) | Ran::Unknown => None,
    }
}

/// The SDK extension's hooks run in the extension process the host started.
fn extension_voice(chain: &[Proc]) -> Voice {
    match chain {
        [] => Voice::Unchecked,
        [me, host, ..]
            if me.host() == Some(HostProc::CopilotExtension)
                && host.host() == Some(HostProc::Copilot)
                && me.sid == host.sid
                && me.sid != me.pid =>
        {
            Voice::User
        }
        _ => Voice::Refused("it was not called by the host's extension process".into()),
    }
}

/// Refusals kept per goal.
const MAX_REFUSED: usize = 5;

/// Note a refused command in the goal of `session` (when it has one) and the
/// audit log, so the user sees it in the status line, `goal-system show` and
/// the report.
pub fn note_refused(store: &Store, session: &str, cwd: &str, command: &str, why: &str) {
    let refused = RefusedCommand {
        at: clock::now_iso(),
        command: redact::preview(command, 60),
        why: redact::preview(why, 160),
    };
    let _ = store.modify(session, Some(cwd), |current, _| match current {
        Some(mut goal) => {
            push_refused(&mut goal, refused.clone());
            Ok((Change::Save(goal), ()))
        }
        None => Ok((Change::None, ())),
    });
    store.audit(
        "command-refused",
        store.peek_session(session).as_ref(),
        &format!("{} ({})", refused.command, refused.why),
    );
}

fn push_refused(goal: &mut Goal, refused: RefusedCommand) {
    let list = &mut goal.voice.refused;
    list.push(refused);
    let excess = list.len().saturating_sub(MAX_REFUSED);
    list.drain(..excess);
}

/// A pending command for a command applied provisionally.
pub fn pending(
    command: &str,
    prompt: &str,
    voice: &Voice,
    before: Option<Goal>,
) -> Option<PendingCommand> {
    let Voice::Provisional {
        record,
        offset,
        prompt_id,
    } = voice
    else {
        return None;
    };
    let before = before.map(|mut g| {
        g.voice.pending = None;
        Box::new(g)
    });
    Some(PendingCommand {
        command: redact::preview(command, 60),
        record: record.to_string_lossy().into_owned(),
        offset: *offset,
        prompt_id: prompt_id.clone(),
        fingerprint: redact::fingerprint(&records::normalize(prompt)),
        nonce: clock::new_goal_id()
            .trim_start_matches("goal-")
            .chars()
            .take(10)
            .collect(),
        at: clock::now_iso(),
        at_ms: clock::now_ms(),
        before,
    })
}

/// How long a hook waits for the host to write a prompt down: Claude Code
/// writes it right after the prompt hook returns, and was seen to take up
/// to ~0.7 s under load.
pub const CONFIRM_WAIT: Duration = Duration::from_millis(1_500);
/// A pending command the record never came to decide (the host wrote no
/// record at all) is taken as the user's after this long.
const NO_RECORD_GRACE_MS: u64 = 60_000;

/// Whether the session's goal waits for the host's record to confirm a
/// command ([`settle`] then may wait for it).
pub fn waiting(store: &Store, session: &str) -> bool {
    store
        .peek_session_shared(session)
        .is_some_and(|goal| goal.voice.pending.is_some())
}

/// At a hook event of the session: settle its pending command against the
/// host's record, waiting up to `wait` for the record to be written. A
/// confirmed command stays; a refuted one is rolled back and noted. Returns
/// what the user should hear (a refusal), if anything, and the store's
/// warnings met on the way (a corrupt copy set aside: the caller reports them).
pub fn settle(store: &Store, session: &str, wait: Duration) -> (Option<String>, Vec<String>) {
    let Some(goal) = store.peek_session_shared(session) else {
        return (None, Vec::new());
    };
    let Some(pending) = goal.voice.pending.as_deref().cloned() else {
        return (None, Vec::new());
    };
    let cwd = goal.cwd.as_str();
    let path = PathBuf::from(&pending.record);
    let pinned = goal.voice.record_key == records::key(&path);
    let started = Instant::now();
    let said = loop {
        let said = look(&path, &pending, pinned);
        if matches!(said, Said::User | Said::NotUser) || started.elapsed() >= wait {
            break said;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // An answer with no prompt on record before or after it the whole wait
    // long is not the user's; with no wait (the status line) it decides
    // nothing: the prompt may still be on its way.
    let said = match said {
        Said::Answered if !wait.is_zero() => Said::NotUser,
        said => said,
    };
    match said {
        Said::User => (None, finish(store, session, cwd, &pending.nonce, None)),
        Said::NotUser => {
            let why = "the host's own record of the conversation does not hold it as your prompt";
            let warnings = finish(store, session, cwd, &pending.nonce, Some(why));
            (
                Some(crate::messages::command_refused(&pending.command, why)),
                warnings,
            )
        }
        Said::NotYet | Said::Answered => (None, Vec::new()),
    }
}

/// What the record says now. A record that vanished, or shrank below where
/// the command found it, or the goal's `pinned` record gone, was tampered
/// with: not the user's. One that never existed (the host keeps none) is
/// taken as the user's after a grace time.
fn look(path: &Path, pending: &PendingCommand, pinned: bool) -> Said {
    let exists = path.exists();
    if !exists || records::end_of(path) < pending.offset {
        if pending.offset > 0 || pinned {
            return Said::NotUser;
        }
        return if clock::now_ms().saturating_sub(pending.at_ms) > NO_RECORD_GRACE_MS {
            Said::User
        } else {
            Said::NotYet
        };
    }
    if let Some(timestamp) = pending.prompt_id.strip_prefix(records::COPILOT_ID) {
        return records::copilot_prompt(path, pending.offset, timestamp, &pending.fingerprint);
    }
    if codex::is_rollout(path) {
        return codex::prompt(
            path,
            pending.offset,
            &pending.prompt_id,
            &pending.fingerprint,
        );
    }
    records::claude_prompt(
        path,
        pending.offset,
        &pending.prompt_id,
        &pending.fingerprint,
        &pending.nonce,
    )
}

/// Clear the pending command `nonce` (still the goal's), rolling its effect
/// back when `refused` says why. Returns the store's warnings.
fn finish(
    store: &Store,
    session: &str,
    cwd: &str,
    nonce: &str,
    refused: Option<&str>,
) -> Vec<String> {
    let modified = store.modify(session, Some(cwd), |current, _| {
        let Some(mut goal) = current else {
            return Ok((Change::None, ()));
        };
        let Some(pending) = goal.voice.pending.take().filter(|p| p.nonce == nonce) else {
            return Ok((Change::None, ()));
        };
        let Some(why) = refused else {
            // Confirmed: the session's record is the one it was found in
            // (none when the host keeps none).
            if let Some(key) = records::key_on_disk(Path::new(&pending.record)) {
                goal.voice.record_key = key;
            }
            return Ok((Change::Save(goal), ()));
        };
        let note = RefusedCommand {
            at: clock::now_iso(),
            command: pending.command.clone(),
            why: why.to_string(),
        };
        Ok((rollback(goal, *pending, note), ()))
    });
    if let Some(why) = refused {
        store.audit("command-refused", store.peek_session(session).as_ref(), why);
    }
    modified.map(|(_, warnings)| warnings).unwrap_or_default()
}

/// Undo a refused command: the goal it replaced comes back (what the agent
/// did meanwhile kept in its history and counted as a change to verify), or
/// a goal it opened is closed as refused.
fn rollback(current: Goal, pending: PendingCommand, note: RefusedCommand) -> Change {
    let now = clock::now_iso();
    match pending.before {
        Some(before) if before.id == current.id => {
            let mut back = *before;
            back.tool_history = current.tool_history.clone();
            back.budget = current.budget.clone();
            back.voice = current.voice.clone();
            // Written back now: newer than the undone version in every copy,
            // so a copy of it that a power loss brings back never outranks
            // this one (review-8 M1).
            back.updated_at = now.clone();
            mark_unverified(&mut back, &now);
            push_refused(&mut back, note);
            Change::Save(back)
        }
        Some(before) => {
            let mut back = *before;
            back.voice.refused = current.voice.refused.clone();
            back.updated_at = now.clone();
            mark_unverified(&mut back, &now);
            push_refused(&mut back, note);
            let mut refused_goal = current;
            refused_goal.completion_status = crate::Status::Cancelled;
            refused_goal.status_reason =
                Some("refused: the command did not come from the user".into());
            refused_goal.closed_at = Some(now);
            Change::Replace {
                old: refused_goal,
                new: back,
            }
        }
        None => {
            let mut refused_goal = current;
            push_refused(&mut refused_goal, note);
            refused_goal.completion_status = crate::Status::Cancelled;
            refused_goal.status_reason =
                Some("refused: the /goal that opened it did not come from the user".into());
            refused_goal.closed_at = Some(now);
            Change::Save(refused_goal)
        }
    }
}

/// What happened while a refused command stood is not known to be verified.
fn mark_unverified(goal: &mut Goal, now: &str) {
    let h = &mut goal.tool_history;
    h.seq += 1;
    h.last_change_seq = h.seq;
    h.last_change = Some(format!("work done while a refused command stood ({now})"));
    h.code_changes += 1;
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
