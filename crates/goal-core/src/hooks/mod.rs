//! Hook decisions: a host's payload in, the host's answer out. Copilot CLI's
//! shell hook (through the native `goal-hook` executable or Node), its SDK
//! extension, VS Code's and Claude Code's hook runner all come here, so every
//! host gets the same decision from the same rule.
//!
//! A hook never crashes the host and never denies by accident: any internal
//! fault yields a clear message on stderr, an allow-shaped answer and a line in
//! the fault log.

mod autopilot;
mod codex_goal;
mod compact;
mod memory;
mod prompt;
pub mod protocol;
mod stop;
mod tool;

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::{Map, Value};

use crate::authority::Role;
use crate::board;
use crate::error::{ErrorCode, Result};
use crate::goals::Caller;
use crate::messages;
use crate::provenance::{self, Origin};
use crate::record::Goal;
use crate::store::{Store, StoreConfig};

pub use protocol::{
    is_interrupt, is_stop_payload, looks_like_subagent, read_payload, render, Decision, Event,
    HookOutput, Host, Payload, ToolCall, SUBAGENT_MARKERS,
};

/// Run one hook: parse stdin, decide, render. Never panics, never fails.
pub fn run(host: Host, event_name: &str, stdin: &str) -> HookOutput {
    let config = StoreConfig::from_env();
    run_with(host, event_name, stdin, config)
}

/// `run` with an explicit store configuration (tests, the addon).
pub fn run_with(
    host: Host,
    event_name: &str,
    stdin: &str,
    config: Result<StoreConfig>,
) -> HookOutput {
    run_as(host, event_name, stdin, config, &Origin::of_this_process())
}

/// `run_with` for a hook run by `origin` (a test that plays the host).
pub fn run_as(
    host: Host,
    event_name: &str,
    stdin: &str,
    config: Result<StoreConfig>,
    origin: &Origin,
) -> HookOutput {
    run_parsed(host, event_name, parse_stdin(stdin), config, origin)
}

/// A hook's stdin parsed as `decide` reads it: empty is `{}`, and the
/// strings of a tool result keep only their tail (see `parse_payload`).
/// Never panics: a fault while reading is a parse error.
pub fn parse_stdin(stdin: &str) -> serde_json::Result<Value> {
    let trimmed = stdin.trim();
    if trimmed.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    catch_unwind(|| protocol::parse_payload(trimmed)).unwrap_or_else(|_| {
        Err(serde::de::Error::custom(
            "internal panic while reading the payload",
        ))
    })
}

/// [`parse_stdin`] on a payload's bytes, decoded as lossy UTF-8: read
/// straight from the bytes when the byte reader can (`protocol/fast.rs`,
/// the same value at a fraction of the cost on a big payload), through the
/// decoded text otherwise, which also words any error.
pub fn parse_stdin_bytes(bytes: &[u8]) -> serde_json::Result<Value> {
    if let Ok(Some(value)) = catch_unwind(|| protocol::parse_bytes(bytes)) {
        return Ok(value);
    }
    // The strict check first: it is many times faster than the lossy decoder
    // on valid text, which is nearly every payload.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    parse_stdin(&text)
}

/// `run_with` on a payload already parsed by [`parse_stdin`]: for a front
/// end that read it first (`payload::run_bytes`).
pub fn run_parsed(
    host: Host,
    event_name: &str,
    parsed: serde_json::Result<Value>,
    config: Result<StoreConfig>,
    origin: &Origin,
) -> HookOutput {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        decide_safely(host, event_name, parsed, config, origin)
    }));
    match outcome {
        Ok(out) => out,
        Err(_) => fault_output(
            host,
            Event::parse(event_name),
            "internal panic in the goal-system hook",
            None,
        ),
    }
}

fn decide_safely(
    host: Host,
    event_name: &str,
    parsed: serde_json::Result<Value>,
    config: Result<StoreConfig>,
    origin: &Origin,
) -> HookOutput {
    let value = match parsed {
        Ok(v) => v,
        Err(e) => {
            let store = config.ok().map(Store::new);
            return fault_output(
                host,
                Event::parse(event_name),
                &format!("stdin is not valid JSON ({e}); allowing"),
                store.as_ref(),
            );
        }
    };
    let mut event = Event::parse(event_name);
    if event == Event::Other && event_name.trim().is_empty() {
        if let Some(name) = value
            .get("hook_event_name")
            .or_else(|| value.get("hookEventName"))
            .and_then(Value::as_str)
        {
            event = Event::parse(name);
        }
    }
    if event == Event::Other && is_stop_payload(&value) {
        event = Event::Stop;
    }
    let store = match config {
        Ok(c) => Store::new(c),
        Err(e) => return fault_output(host, event, &format!("state root unavailable: {e}"), None),
    };
    let payload = protocol::into_payload(value);
    match decide_on(&store, host, event, payload, origin) {
        Ok((decision, note)) => render(host, event, decision, note),
        // A stop is never let through because the goal could not be read in
        // time: the model is asked to go on, and the next stop tries again.
        Err(e) if e.code == ErrorCode::LockTimeout && event == Event::Stop => {
            store.record_fault(event.pascal(), &e.to_string());
            render(
                host,
                event,
                Decision {
                    block: Some(messages::lock_timeout_block()),
                    ..Decision::default()
                },
                Some(e.to_string()),
            )
        }
        Err(e) => fault_output(host, event, &e.to_string(), Some(&store)),
    }
}

fn fault_output(host: Host, event: Event, message: &str, store: Option<&Store>) -> HookOutput {
    if let Some(store) = store {
        store.record_fault(event.pascal(), message);
    }
    let mut out = render(host, event, Decision::default(), None);
    out.stderr = format!("goal-system hook ({}): {message}\n", event.pascal());
    out
}

/// The decision for one event. Returns the decision and an optional stderr note.
pub fn decide(
    store: &Store,
    host: Host,
    event: Event,
    value: &Value,
    origin: &Origin,
) -> Result<(Decision, Option<String>)> {
    decide_on(store, host, event, read_payload(value), origin)
}

/// [`decide`] on a payload already read (the hook's own gives its value up:
/// `protocol::into_payload`).
fn decide_on(
    store: &Store,
    host: Host,
    event: Event,
    payload: Payload,
    origin: &Origin,
) -> Result<(Decision, Option<String>)> {
    if event == Event::SubagentStart {
        return Ok((
            Decision {
                // The consolidation agent gets its brief instead (memory/).
                context: Some(
                    memory::subagent_start(store, host, &payload)
                        .unwrap_or_else(|| messages::subagent_boundary().to_string()),
                ),
                ..Decision::default()
            },
            None,
        ));
    }
    if matches!(
        event,
        Event::SubagentStop | Event::SessionEnd | Event::Other
    ) {
        let note = (event == Event::Other).then(|| "unknown hook event; allowing".to_string());
        return Ok((Decision::default(), note));
    }
    if event == Event::PreToolUse {
        // Before anything else, and whoever calls: the goal state is written only
        // by the goal system, and a subagent never touches a goal.
        if let Some(refusal) = tool::refusal(store, &payload) {
            return Ok((
                Decision {
                    deny: Some(refusal),
                    ..Decision::default()
                },
                None,
            ));
        }
    }
    if payload.session_id.is_empty() {
        return Ok((
            Decision::default(),
            Some("payload has no sessionId; nothing to do".into()),
        ));
    }
    if payload.subagent
        && matches!(
            event,
            Event::PreToolUse
                | Event::PostToolUse
                | Event::Stop
                | Event::UserPrompt
                | Event::SessionStart
                | Event::Interrupt
        )
    {
        // Subagent tool use never counts and is never the main session's
        // evidence; a subagent's prompt never opens or shows a goal.
        return Ok((Decision::default(), None));
    }
    let caller = Caller::new(payload.session_id.clone(), payload.cwd.clone());
    STORE_NOTES.with(|notes| notes.borrow_mut().clear());
    USER_NOTICES.with(|notices| notices.borrow_mut().clear());
    // A user command still pending is settled against the host's record
    // before anything relies on it; a stop waits longer for the record.
    let wait = if event == Event::Stop {
        provenance::CONFIRM_WAIT * 2
    } else {
        provenance::CONFIRM_WAIT
    };
    // The run takes the session's lock once and reads its goal once until
    // it writes (store/hold.rs). Settling a pending command may wait for the
    // host's record: it waits without the hold, holding no one up.
    let mut hold = store.hold(&caller.session_id);
    if hold.is_some() && provenance::waiting(store, &caller.session_id) {
        hold = None;
    }
    let (refused, settle_warnings) = provenance::settle(store, &caller.session_id, wait);
    note_warnings(settle_warnings);
    let _hold = hold.or_else(|| store.hold(&caller.session_id));
    let delivery = Delivery { host, origin };
    // Codex CLI's own `/goal`, typed in its TUI, is the user's objective too.
    let adopted = match host {
        Host::Codex => codex_goal::adopt(store, &delivery, &caller, &payload).unwrap_or_else(|e| {
            note_warnings(vec![format!("Codex's goal not adopted: {e}")]);
            None
        }),
        _ => None,
    };
    let result = match event {
        // A prompt may carry the user's voice: the only hook path with the
        // user's rights, once the host is known to have delivered it.
        Event::SessionStart | Event::UserPrompt => prompt::on_prompt(
            store,
            &caller.clone().with_role(Role::User),
            &payload,
            &delivery,
            event,
        ),
        Event::PreToolUse => tool::on_pre_tool(store, &caller, &payload),
        Event::PostToolUse => tool::on_post_tool(store, &delivery, &caller, &payload),
        Event::Stop => stop::on_stop(store, &delivery, &caller, &payload),
        Event::Interrupt if host == Host::Codex => {
            stop::on_interrupt(store, &delivery, &caller, &payload)
        }
        Event::PreCompact => compact::on_pre_compact(store, &caller, &payload),
        _ => Ok((Decision::default(), None)),
    };
    if matches!(event, Event::SessionStart | Event::UserPrompt) {
        // A goal opened (or first met) here starts counting from now.
        account_baseline(store, &delivery, &caller, &payload);
    }
    let mut warnings = STORE_NOTES.with(|notes| std::mem::take(&mut *notes.borrow_mut()));
    for report in store.take_tamper_reports() {
        // Also met by reads whose warnings are not passed on (usage accounting).
        if !warnings.contains(&report) {
            warnings.push(report);
        }
    }
    for warning in &warnings {
        store.record_fault("store", warning);
    }
    let (mut decision, note) = result?;
    if let Some(text) = adopted {
        decision.context = Some(match decision.context.take() {
            Some(ctx) => format!("{text}\n{ctx}"),
            None => text,
        });
    }
    if let Some(refused) = refused {
        tell_before(&mut decision, &refused);
    }
    for notice in USER_NOTICES.with(|notices| std::mem::take(&mut *notices.borrow_mut())) {
        tell_before(&mut decision, &notice);
    }
    if warnings
        .iter()
        .any(|w| w.contains(crate::integrity::TAMPERED_MARK))
    {
        // The user hears of it: decisions above already read the restored state.
        let told = if warnings
            .iter()
            .any(|w| w.contains(crate::integrity::UNVERIFIED_MARK))
        {
            messages::state_unverified()
        } else {
            messages::state_restored()
        };
        tell_before(&mut decision, told);
    }
    if event == Event::SessionStart {
        board::add_note(
            &mut decision.context,
            store,
            &caller.cwd,
            &caller.session_id,
        );
    }
    // Memories at session start, recall at each prompt, the offer to consolidate (memory/).
    memory::annotate(store, host, event, &caller, &payload, &mut decision);
    let note = match (note, warnings.is_empty()) {
        (note, true) => note,
        (None, false) => Some(warnings.join("; ")),
        (Some(n), false) => Some(format!("{n}; {}", warnings.join("; "))),
    };
    Ok((decision, note))
}

/// Which host delivered an event, and how: its process chain and install route.
pub(super) struct Delivery<'a> {
    pub host: Host,
    pub origin: &'a Origin,
}

impl Delivery<'_> {
    /// How the user types the commands in this host and route.
    pub fn spelling(&self) -> messages::Spelling {
        use messages::Spelling;
        use provenance::Route;
        match (self.host, self.origin.route) {
            (Host::Claude, Route::Plugin) => Spelling::CLAUDE_PLUGIN,
            (Host::CopilotCli | Host::CopilotSdk, Route::User) => Spelling::COPILOT,
            (Host::CopilotCli | Host::CopilotSdk, Route::Plugin) => Spelling::COPILOT_PLUGIN,
            (Host::Codex, _) => Spelling::CODEX,
            (Host::Gemini, _) => Spelling::GEMINI,
            _ => Spelling::GOAL,
        }
    }

    /// The host's own record of the session, where the user's interrupts are
    /// written: Claude Code's transcript, Copilot CLI's `events.jsonl`, Codex's
    /// rollout (Gemini CLI writes none; VS Code's is not read).
    pub fn record(&self, store: &Store, payload: &Payload) -> Option<std::path::PathBuf> {
        match self.host {
            Host::VsCode | Host::Gemini => None,
            host => host_record(store, host, payload),
        }
    }

    /// The session's record (`record`) when the open goal may rely on it: a
    /// goal that reads no record yet takes the first it meets as its own
    /// (`goals::note_interrupt`), so that one must be the running host's
    /// (`vouches`).
    pub fn record_to_pin(
        &self,
        store: &Store,
        caller: &Caller,
        payload: &Payload,
    ) -> Option<std::path::PathBuf> {
        let record = self.record(store, payload)?;
        let unpinned = load_goal(store, caller)
            .ok()
            .flatten()
            .filter(Goal::is_open)
            .is_some_and(|goal| goal.voice.record_key.is_empty());
        (!unpinned || self.vouches(payload, &record)).then_some(record)
    }

    /// Whether `record`, found through the hook's own environment, may be
    /// relied on: the host the hook names must be the one that ran it (its
    /// process chain, `provenance::hook_refusal`: a hook piped into from the
    /// agent's shell, naming another host or detached from any is refused),
    /// and the record must be where that running host keeps the session's
    /// record by its own environment (`process::host_environ`): a hook run
    /// with `HOME` or `CODEX_HOME` at a folder of the agent's making finds a
    /// planted record there; the host above it does not. Asked only when a
    /// goal first relies on a record (pins it, or counts from it), not on
    /// every hook: from then on the goal keeps the record's fingerprint. True
    /// where the process chain cannot be read (another system than Linux).
    pub fn vouches(&self, payload: &Payload, record: &std::path::Path) -> bool {
        use provenance::process::{host_environ, HostProc};
        let chain = self.origin.chain();
        if chain.is_empty() {
            return true;
        }
        if provenance::hook_refusal(self.host, self.origin).is_some() {
            return false;
        }
        let (path, session) = (&payload.transcript_path, &payload.session_id);
        let found = match self.host {
            Host::VsCode => return false,
            Host::Claude => host_environ(chain, HostProc::Claude).map(|var| {
                provenance::records::claude_transcript(
                    path,
                    session,
                    &crate::store::claude_dirs_from(var),
                )
            }),
            Host::CopilotCli | Host::CopilotSdk => {
                host_environ(chain, HostProc::Copilot).map(|var| {
                    StoreConfig::from_vars(var)
                        .ok()
                        .and_then(|config| config.copilot_events(session))
                })
            }
            Host::Codex => host_environ(chain, HostProc::Codex).map(|var| {
                provenance::codex::rollout(path, session, &provenance::codex::codex_dirs_from(var))
            }),
            Host::Gemini => host_environ(chain, HostProc::Gemini).map(|var| {
                provenance::gemini::chat(path, session, &provenance::gemini::gemini_dirs_from(var))
            }),
        };
        // The host ran the hook but its environment cannot be read (a host
        // named only by `CLAUDE_PID`): its record is the hook's to find.
        found.is_none_or(|host_has| host_has.as_deref() == Some(record))
    }
}

/// The host's own record of the payload's session, found only where and as
/// the host writes it: a `transcript_path` outside the host's folders or not
/// named for the session is never read (a payload forged from the agent's
/// shell could otherwise point the usage count or the memory brief at a file
/// of its making). VS Code's is not read.
pub(super) fn host_record(
    store: &Store,
    host: Host,
    payload: &Payload,
) -> Option<std::path::PathBuf> {
    let path = &payload.transcript_path;
    match host {
        Host::Claude => provenance::records::claude_transcript(
            path,
            &payload.session_id,
            &store.config.claude_dirs,
        ),
        Host::CopilotCli | Host::CopilotSdk => store.config.copilot_events(&payload.session_id),
        Host::Codex => {
            provenance::codex::rollout(path, &payload.session_id, &provenance::codex::codex_dirs())
        }
        Host::Gemini => provenance::gemini::chat(
            path,
            &payload.session_id,
            &provenance::gemini::gemini_dirs(),
        ),
        // Nothing known of where VS Code keeps it: not read at all.
        Host::VsCode => None,
    }
}

thread_local! {
    /// Store warnings met while deciding (a corrupt copy set aside, a copy not
    /// written): collected here rather than threaded through every handler, then
    /// reported on stderr and in the fault log by `decide`.
    static STORE_NOTES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// What this hook run tells the user once (a system message), besides its decision.
    static USER_NOTICES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A message for the user from deep in this run (see [`USER_NOTICES`]).
fn tell_user(text: String) {
    USER_NOTICES.with(|notices| notices.borrow_mut().push(text));
}

/// `text` for the user, before what the decision already tells them.
fn tell_before(decision: &mut Decision, text: &str) {
    decision.system_message = Some(match decision.system_message.take() {
        Some(msg) => format!("{text}\n{msg}"),
        None => text.to_string(),
    });
}

pub(super) fn note_warnings(warnings: Vec<String>) {
    if !warnings.is_empty() {
        STORE_NOTES.with(|notes| notes.borrow_mut().extend(warnings));
    }
}

pub(super) fn load_goal(store: &Store, caller: &Caller) -> Result<Option<Goal>> {
    let cwd = (!caller.cwd.is_empty()).then_some(caller.cwd.as_str());
    let loaded = store.load(&caller.session_id, cwd)?;
    note_warnings(loaded.warnings);
    Ok(loaded.goal)
}

pub(super) fn context(text: String) -> Decision {
    Decision {
        context: Some(text),
        ..Decision::default()
    }
}

/// Where this host records token usage for the payload's session. A record
/// the open goal has not counted from yet must be the one the running host
/// keeps (`Delivery::vouches`); one it counted from is pinned by its
/// fingerprint (`goals::first_sight`). One the host declined is not asked
/// about again by tool and stop hooks (`goals::refused_before`): only a
/// prompt (`recheck`) asks again, so a host restarted with its folders set
/// right is heard, and no tool call pays for the process chain's read.
fn usage_source(
    store: &Store,
    delivery: &Delivery,
    caller: &Caller,
    payload: &Payload,
    recheck: bool,
) -> Option<crate::usage::Source> {
    let source = match delivery.host {
        Host::Claude => {
            host_record(store, delivery.host, payload).map(crate::usage::Source::Transcript)
        }
        Host::CopilotCli | Host::CopilotSdk => {
            crate::usage::copilot_total(store, &payload.session_id)
        }
        Host::Gemini => {
            host_record(store, delivery.host, payload).map(crate::usage::Source::GeminiChat)
        }
        Host::Codex => host_record(store, delivery.host, payload)
            .and_then(|rollout| crate::usage::codex_total(&rollout, &payload.session_id)),
        Host::VsCode => None,
    }?;
    let Some(record) = source.record() else {
        return Some(source);
    };
    let Some(goal) = load_goal(store, caller)
        .ok()
        .flatten()
        .filter(|goal| goal.is_open() && crate::goals::first_sight(goal, &source))
    else {
        return Some(source);
    };
    if !recheck && crate::goals::refused_before(&goal, &source) {
        return None;
    }
    if delivery.vouches(payload, record) {
        return Some(source);
    }
    note_warnings(vec![
        "usage not counted: the record named is not where the running host keeps it".into(),
    ]);
    // Kept (and told) only when the host itself ran this hook: a hook the
    // agent's shell ran must not silence the real record for the hooks after.
    if provenance::hook_refusal(delivery.host, delivery.origin).is_some() {
        return None;
    }
    match crate::goals::refuse_record(store, caller, &source) {
        Ok(true) => tell_user(
            "[goal-system] A hook named a record of this session that the running host does \
             not keep where its own environment says: token use from it is not counted. A \
             folder variable such as GEMINI_CLI_HOME, CODEX_HOME or CLAUDE_CONFIG_DIR set after \
             the host started (from a .env file or its settings) does this; then a token budget \
             is not enforced until the host is started with that variable set."
                .into(),
        ),
        Ok(false) => {}
        Err(e) => note_warnings(vec![format!("record refusal not kept: {e}")]),
    }
    None
}

/// What the hook saw of the host's usage: its source, `turns` model turns
/// ended, and whether a new source starts at its present end (a prompt).
pub(super) fn usage_report(
    store: &Store,
    delivery: &Delivery,
    caller: &Caller,
    payload: &Payload,
    turns: u64,
    baseline: bool,
) -> crate::goals::UsageReport {
    crate::goals::UsageReport {
        source: usage_source(store, delivery, caller, payload, baseline),
        turns,
        baseline,
    }
}

/// Account the host's usage at a prompt (a new source starts counting from
/// now); never fails the hook (a fault is only noted).
fn account_baseline(store: &Store, delivery: &Delivery, caller: &Caller, payload: &Payload) {
    let report = usage_report(store, delivery, caller, payload, 0, true);
    if let Err(e) = crate::goals::account_usage(store, caller, &report) {
        note_warnings(vec![format!("usage not accounted: {e}")]);
    }
}
