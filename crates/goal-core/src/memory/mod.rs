//! Repository memories and the layers around them (seed 002, beside the
//! context board of `board.rs`):
//!
//! - `store_memory` / `vote_memory` (the model, through each host's permission
//!   flow) and `goal-system memory` (the user) keep lasting lessons in the
//!   repository's `.github/copilot-memories.jsonl` ([`file`], [`record`]);
//! - the most useful of them reach the model at session start, and the board
//!   items and memories a prompt is about are named at each prompt ([`inject`],
//!   ranked by [`rank`] from the cache of [`index`]);
//! - the consolidation agent turns a session's turns into board items
//!   ([`consolidate`], reading the host's record with [`turns`]).
//!
//! The same guarantees as the board: one rule here for every path (the
//! extension, the MCP server, the command, the hooks), every input redacted
//! before it is validated, subagents refused (the consolidation agent may add,
//! prune and store), writes atomic under the store's lock, a malformed line
//! kept aside and reported. The user can turn the model's writes off
//! ([`settings`]).

pub mod consolidate;
pub mod file;
pub mod index;
pub mod inject;
pub mod messages;
pub mod rank;
pub mod record;
pub mod settings;
pub mod turns;

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::authority::Role;
use crate::clock::now_iso;
use crate::error::{ErrorCode, GoalError, Result};
use crate::redact;
use crate::store::Store;
use file::Repo;
use record::{Direction, Memory, Vote};

pub use consolidate::is_consolidator;
pub use file::RELATIVE_PATH;
pub use inject::{recall_note, session_note};

/// The tools' names, for every host.
/// The consolidation agent's name in every host (Claude Code's plugin names
/// it `goal-system:goal-consolidator`).
pub const AGENT_NAME: &str = "goal-consolidator";
pub const STORE_TOOL: &str = "store_memory";
pub const VOTE_TOOL: &str = "vote_memory";
/// Most memories a repository keeps; storing a new one beyond fails.
pub const MAX_MEMORIES: usize = 1000;

pub(crate) fn hash16(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Who asks: the role (a subagent flag wins), the host's name for the agent
/// (which tells the consolidation agent), the session and the host, for the
/// memory's source.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Caller {
    pub role: Role,
    pub agent_type: String,
    pub session_id: String,
    pub host: String,
}

impl Caller {
    /// A caller from what an adapter knows: a subagent flag wins over the
    /// role; `role` is "user" only for the command in the user's own terminal
    /// (as `commandRole` decides); without a host name, the process's
    /// environment tells it (the MCP server runs under its host).
    pub fn from_parts(
        subagent: bool,
        role: Option<&str>,
        agent_type: Option<&str>,
        session_id: Option<&str>,
        host: Option<&str>,
    ) -> Caller {
        let role = if subagent {
            Role::Subagent
        } else {
            role.and_then(Role::parse).unwrap_or(Role::Agent)
        };
        Caller {
            role,
            agent_type: agent_type.unwrap_or("").to_string(),
            session_id: session_id.unwrap_or("").to_string(),
            host: host
                .filter(|h| !h.trim().is_empty())
                .map_or_else(|| host_of_process().to_string(), str::to_string),
        }
    }

    /// The consolidation agent: a subagent the host names `goal-consolidator`.
    pub fn consolidator(&self) -> bool {
        self.role == Role::Subagent && is_consolidator(&self.agent_type)
    }
}

/// The host a process runs under, from the variables each host sets for what
/// it starts (seen in the real hosts: e2e/NOTES.md): `claude-code`,
/// `copilot-cli`, `vscode`, else `unknown`.
pub fn host_of_process() -> &'static str {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("CLAUDECODE") || set("CLAUDE_CODE_ENTRYPOINT") {
        "claude-code"
    } else if set("COPILOT_CLI")
        || set("COPILOT_EXTENSION_PARENT_PID")
        || set("COPILOT_CLI_BINARY_VERSION")
    {
        "copilot-cli"
    } else if set("VSCODE_PID") || set("VSCODE_IPC_HOOK") || set("VSCODE_CWD") {
        "vscode"
    } else {
        "unknown"
    }
}

/// Turn the model's memory writes or the memory context on or off: the user's
/// alone (the command in their own terminal).
pub fn configure(
    store: &Store,
    role: Role,
    writes: Option<bool>,
    recall: Option<bool>,
) -> Result<settings::Settings> {
    if writes.is_none() && recall.is_none() {
        return Ok(settings::load(store));
    }
    if role != Role::User {
        return Err(GoalError::new(
            ErrorCode::Forbidden,
            "only the user changes the memory settings, with `goal-system memory writes|recall on|off` in their own terminal",
        ));
    }
    settings::set(store, writes, recall)
}

/// What a caller asks of the memories.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Store(record::StoreInput),
    /// A vote on the memory with this fact (the tool) or id (the command).
    Vote {
        target: Target,
        direction: Direction,
        reason: String,
    },
    List,
    Show(String),
    Forget(String),
}

/// Which memory a vote is for.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Fact(String),
    Id(String),
}

/// The one rule of who may do what with the memories.
fn authorize(caller: &Caller, command: &Command, writes_on: bool) -> Result<()> {
    let writes = matches!(command, Command::Store(_) | Command::Vote { .. });
    match command {
        Command::List | Command::Show(_) => Ok(()),
        Command::Forget(_) if caller.role != Role::User => Err(GoalError::new(
            ErrorCode::Forbidden,
            messages::forget_is_the_users(),
        )),
        Command::Store(_) if caller.consolidator() => ok_if(writes_on),
        _ if caller.role == Role::Subagent && writes => Err(GoalError::new(
            ErrorCode::Subagent,
            messages::SUBAGENT_WRITE,
        )),
        // The user's own command is never turned off; the model's writes may be.
        _ if caller.role != Role::User && writes => ok_if(writes_on),
        _ => Ok(()),
    }
}

fn ok_if(writes_on: bool) -> Result<()> {
    if writes_on {
        Ok(())
    } else {
        Err(GoalError::new(ErrorCode::Forbidden, messages::writes_off()))
    }
}

/// What a command did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Text for the model or the user.
    pub text: String,
    pub repository: String,
    /// The memory file's path.
    pub file: String,
    /// The memories listed, shown, stored, voted or forgotten.
    pub memories: Vec<Memory>,
    /// How many the repository holds after the command.
    pub total: usize,
    pub warnings: Vec<String>,
}

/// Run one command for `caller` in the repository holding `cwd`.
pub fn run(store: &Store, cwd: &str, caller: &Caller, command: Command) -> Result<Outcome> {
    authorize(caller, &command, settings::load(store).writes)?;
    let repo = Repo::find(cwd)?;
    let mut out = Outcome {
        text: String::new(),
        repository: repo.name.clone(),
        file: repo.path().to_string_lossy().into_owned(),
        memories: Vec::new(),
        total: 0,
        warnings: Vec::new(),
    };
    match command {
        Command::List | Command::Show(_) => {
            let parsed = file::read(&repo)?.map(|(p, _)| p).unwrap_or_default();
            if !parsed.malformed.is_empty() {
                out.warnings.push(format!(
                    "{} malformed line(s) in {} left out (moved aside at the next write)",
                    parsed.malformed.len(),
                    RELATIVE_PATH
                ));
            }
            out.total = parsed.memories.len();
            if let Command::Show(id) = command {
                let id = id.trim();
                out.memories = parsed.memories.into_iter().filter(|m| m.id == id).collect();
                if out.memories.is_empty() {
                    return Err(not_found(id));
                }
                out.text = out
                    .memories
                    .iter()
                    .map(show)
                    .collect::<Vec<_>>()
                    .join("\n\n");
            } else {
                out.text = format!("{} memories in {}.", out.total, out.file);
                out.memories = parsed.memories;
            }
        }
        Command::Store(input) => {
            let source = serde_json::json!({
                "host": caller.host,
                "session": caller.session_id,
                "time": now_iso(),
            });
            let ((memory, merged, total), warnings) = modify(store, &repo, |all| {
                let key = record::same_fact_key(&input.fact);
                if let Some(i) = all
                    .iter()
                    .position(|m| record::same_fact_key(&m.fact) == key)
                {
                    let before = all[i].clone();
                    let mut other = before.clone();
                    other.citations = input.citations.clone();
                    other.votes = Default::default();
                    other.vote_log.clear();
                    file::merge(&mut all[i], other);
                    return Ok((all[i] != before, (all[i].clone(), true, all.len())));
                }
                if all.len() >= MAX_MEMORIES {
                    return Err(GoalError::new(
                        ErrorCode::LimitExceeded,
                        format!("this repository holds {} memories, the most it keeps: vote down the outdated ones and ask the user to forget them (`goal-system memory forget <id>`)", all.len()),
                    ));
                }
                let memory = Memory {
                    id: record::id_for(&input.fact),
                    subject: input.subject.clone(),
                    fact: input.fact.clone(),
                    citations: input.citations.clone(),
                    reason: input.reason.clone(),
                    source: source.clone(),
                    votes: Default::default(),
                    vote_log: Vec::new(),
                    extra: Default::default(),
                };
                all.push(memory.clone());
                Ok((true, (memory, false, all.len())))
            })?;
            out.warnings = warnings;
            out.total = total;
            out.text = if merged {
                format!("Already remembered as {} ({}); its citations now include yours. {} memories in {}.", memory.id, memory.subject, total, RELATIVE_PATH)
            } else {
                format!(
                    "Stored memory {} ({}) in {} of {}: {} memories.",
                    memory.id, memory.subject, RELATIVE_PATH, repo.name, total
                )
            };
            out.memories = vec![memory];
        }
        Command::Vote {
            target,
            direction,
            reason,
        } => {
            let by = if caller.role == Role::User {
                "user"
            } else {
                caller.host.as_str()
            };
            let vote = Vote {
                direction,
                reason: reason.clone(),
                by: by.to_string(),
                time: now_iso(),
            };
            let ((memory, total), warnings) = modify(store, &repo, |all| {
                let i = find(all, &target)?;
                let m = &mut all[i];
                match direction {
                    Direction::Up => m.votes.up = m.votes.up.saturating_add(1),
                    Direction::Down => m.votes.down = m.votes.down.saturating_add(1),
                }
                m.vote_log.push(vote.clone());
                let extra = m.vote_log.len().saturating_sub(record::VOTE_LOG_KEEP);
                m.vote_log.drain(..extra);
                Ok((true, (m.clone(), all.len())))
            })?;
            out.warnings = warnings;
            out.total = total;
            out.text = format!(
                "Voted {} on memory {} ({}): now +{}/-{}.{}",
                direction.as_str(),
                memory.id,
                memory.subject,
                memory.votes.up,
                memory.votes.down,
                if memory.disputed() {
                    " It is voted down more than up, so it is no longer shown to the model."
                } else {
                    ""
                }
            );
            out.memories = vec![memory];
        }
        Command::Forget(id) => {
            let id = id.trim().to_string();
            let ((gone, total), warnings) = modify(store, &repo, |all| {
                let before = all.len();
                let gone: Vec<Memory> = all.iter().filter(|m| m.id == id).cloned().collect();
                all.retain(|m| m.id != id);
                if all.len() == before {
                    return Err(not_found(&id));
                }
                Ok((true, (gone, all.len())))
            })?;
            out.warnings = warnings;
            out.total = total;
            out.text = format!(
                "Forgot memory {id} ({}); {total} memories left in {}.",
                gone[0].subject, RELATIVE_PATH
            );
            out.memories = gone;
        }
    }
    Ok(out)
}

fn find(all: &[Memory], target: &Target) -> Result<usize> {
    match target {
        Target::Id(id) => all
            .iter()
            .position(|m| m.id == id.trim())
            .ok_or_else(|| not_found(id)),
        Target::Fact(fact) => {
            let key = record::same_fact_key(fact);
            all.iter().position(|m| record::same_fact_key(&m.fact) == key).ok_or_else(|| {
                GoalError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no memory with the fact {:?} in {RELATIVE_PATH}: give the fact exactly as it was shown (`goal-system memory list` lists them)",
                        redact::truncate(fact, 120)
                    ),
                )
            })
        }
    }
}

fn not_found(id: &str) -> GoalError {
    GoalError::new(
        ErrorCode::NotFound,
        format!(
            "no memory {:?} in {RELATIVE_PATH} (`goal-system memory list` lists them)",
            redact::truncate(id, 60)
        ),
    )
}

/// One memory in full, as `goal-system memory show` prints it.
pub fn show(m: &Memory) -> String {
    let source = match &m.source {
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k} {}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_string)
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let mut out = format!(
        "{} ({})\nfact: {}\ncitations: {}\nreason: {}\nsource: {}\nvotes: +{}/-{}",
        m.id, m.subject, m.fact, m.citations, m.reason, source, m.votes.up, m.votes.down
    );
    for v in &m.vote_log {
        out.push_str(&format!(
            "\n  {} {} by {}: {}",
            v.time,
            v.direction.as_str(),
            v.by,
            v.reason
        ));
    }
    out
}

/// Run a tool's request (`store_memory` or `vote_memory`, by name): parsed
/// (redacted first), then [`run`].
pub fn run_tool(
    store: &Store,
    cwd: &str,
    caller: &Caller,
    tool: &str,
    request: &Value,
) -> Result<Outcome> {
    let command = if crate::tools::names_tool(tool, VOTE_TOOL) {
        let v = record::parse_vote(request)?;
        Command::Vote {
            target: Target::Fact(v.fact),
            direction: v.direction,
            reason: v.reason,
        }
    } else {
        Command::Store(record::parse_store(request)?)
    };
    run(store, cwd, caller, command)
}

/// The board's actor for a caller (a subagent flag wins; the consolidation
/// The memory file's read-modify-write, the ranking cache rebuilt from what it wrote.
fn modify<T>(
    store: &Store,
    repo: &Repo,
    f: impl FnOnce(&mut Vec<Memory>) -> Result<(bool, T)>,
) -> Result<(T, Vec<String>)> {
    file::modify(store, repo, f, |written| {
        index::refresh(store, repo, written)
    })
}

/// agent writes the board as the agent does).
pub fn board_actor(user: bool, subagent: bool, agent_type: &str) -> crate::board::Actor {
    use crate::board::Actor;
    match (subagent, user) {
        (true, _) if is_consolidator(agent_type) => Actor::Consolidator,
        (true, _) => Actor::Subagent,
        (false, true) => Actor::User,
        (false, false) => Actor::Agent,
    }
}

/// The refusal a hook gives a subagent's call, for the hooks' PreToolUse (an
/// MCP server cannot tell a subagent's call): a memory write, or a board
/// write from any subagent but the consolidation agent. None otherwise.
pub fn subagent_refusal(agent_type: &str, tool: &str, args: &Value) -> Option<String> {
    let consolidator = is_consolidator(agent_type);
    if crate::tools::names_tool(tool, VOTE_TOOL)
        || (crate::tools::names_tool(tool, STORE_TOOL) && !consolidator)
    {
        return Some(messages::subagent_refusal(tool));
    }
    if consolidator {
        return None;
    }
    crate::board::subagent_refusal(tool, args)
}

#[cfg(test)]
mod tests;
