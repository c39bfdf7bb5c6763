//! The context board (seed 002): a small board of reusable facts for one
//! repository and branch, outliving any goal. Its metadata (src, name,
//! description, read_count, count) is injected into the model's context at
//! session start and when a goal opens; the content is fetched on demand with
//! the `context_board` tool. Capped so it stays high-signal.
//!
//! Layout: `<root>/board/<repo-hash>--<branch-hash>.json`, written with the
//! store's guarantees (atomic, under the store lock, private modes). Every
//! input is redacted before it is validated or stored.
//!
//! Fail-soft: reading never breaks a hook, a tool or a session. An unreadable
//! board is left out of the context (the fault is logged); the next write sets
//! it aside and starts a new one.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::clock::now_iso;
use crate::error::{ErrorCode, GoalError, Result};
use crate::record::{Goal, Status};
use crate::redact;
use crate::request;
use crate::store::{normalize_cwd, validate_cwd, Store};

mod scope;
mod view;

use scope::hash16;
pub use scope::{normalize_remote, Scope};
pub use view::{add_note, closing_note, context_note, peek, render, tool_description};

/// The tool's name, for every host.
pub const TOOL_NAME: &str = "context_board";
/// Most items a board holds; adding a new one beyond this fails ("prune first").
pub const CAPACITY: usize = 25;
/// From this many items the board text asks for pruning.
pub const WARN_AT: usize = 23;
/// How far pruning should bring the board down, to leave headroom.
pub const PRUNE_TO: usize = 18;
/// Longest item name (short kebab-case id).
pub const MAX_NAME_CHARS: usize = 64;
/// Longest one-line description.
pub const MAX_DESCRIPTION_CHARS: usize = 200;
/// Longest item content.
pub const MAX_CONTENT_CHARS: usize = 8000;
/// Sessions remembered as having seen the board (hashed); older ones drop out.
const MAX_SEEN: usize = 256;
/// The branch of a board outside git, or on a detached HEAD.
pub const DEFAULT_BRANCH: &str = "default";
const FOLDER: &str = "board";
const VERSION: u32 = 1;
/// Marks the injected block, so that it is never injected twice in one answer.
const TAG: &str = "context_board";

// ---------------------------------------------------------------------------
// The board on disk
// ---------------------------------------------------------------------------

/// Who wrote an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Src {
    Agent,
    User,
}

impl Src {
    pub fn as_str(self) -> &'static str {
        match self {
            Src::Agent => "agent",
            Src::User => "user",
        }
    }
}

/// One board item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub src: Src,
    pub name: String,
    pub description: String,
    pub content: String,
    /// Times the content was fetched with `get`.
    #[serde(default)]
    pub read_count: u64,
    /// Sessions that were shown the board while this item was on it.
    #[serde(default)]
    pub count: u64,
    pub created_at: String,
    pub updated_at: String,
}

/// One board file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Board {
    pub version: u32,
    pub repository: String,
    pub branch: String,
    #[serde(default)]
    pub items: Vec<Item>,
    /// Hashes of the sessions that have seen the board, newest last.
    #[serde(default)]
    pub seen: Vec<String>,
    #[serde(default)]
    pub updated_at: String,
}

impl Board {
    fn empty(scope: &Scope) -> Board {
        Board {
            version: VERSION,
            repository: scope.repository.clone(),
            branch: scope.branch.clone(),
            items: Vec::new(),
            seen: Vec::new(),
            updated_at: String::new(),
        }
    }

    fn find(&self, src: Src, name: &str) -> Option<usize> {
        self.items
            .iter()
            .position(|i| i.src == src && i.name == name)
    }

    /// Count a session's first sight of the board; true when something changed.
    fn mark_seen(&mut self, session_id: &str) -> bool {
        if session_id.is_empty() || self.items.is_empty() {
            return false;
        }
        let key = hash16(session_id);
        if self.seen.contains(&key) {
            return false;
        }
        self.seen.push(key);
        if self.seen.len() > MAX_SEEN {
            let extra = self.seen.len() - MAX_SEEN;
            self.seen.drain(..extra);
        }
        for item in &mut self.items {
            item.count += 1;
        }
        true
    }
}

/// Read a board without the lock (writes are atomic renames, so a reader sees
/// a whole file). `Ok(None)` when there is none; an error when unreadable.
fn read(store: &Store, scope: &Scope) -> Result<Option<Board>> {
    let Some(bytes) = store.read_side_file(FOLDER, &scope.file_name())? else {
        return Ok(None);
    };
    let board: Board = serde_json::from_slice(&bytes).map_err(|e| {
        GoalError::new(
            ErrorCode::Corrupt,
            format!("context board {} is not valid: {e}", scope.file_name()),
        )
    })?;
    if board.repository != scope.repository || board.branch != scope.branch {
        // A hash collision, or a file copied by hand: not this scope's board.
        return Ok(None);
    }
    Ok(Some(board))
}

/// Read-modify-write under the store lock. An unreadable board is set aside
/// (kept, never overwritten) and replaced by an empty one, with a warning.
fn modify<T>(
    store: &Store,
    scope: &Scope,
    f: impl FnOnce(&mut Board) -> Result<(bool, T)>,
) -> Result<(T, Vec<String>)> {
    // One lock per board, named like a session so the store validates it.
    let _lock = store.lock(&format!(
        "board-{}",
        scope.file_name().trim_end_matches(".json")
    ))?;
    let mut warnings = Vec::new();
    let mut board = match read(store, scope) {
        Ok(found) => found.unwrap_or_else(|| Board::empty(scope)),
        Err(e) => {
            let moved = store.set_aside_side_file(FOLDER, &scope.file_name());
            warnings.push(match moved {
                Ok(Some(dest)) => format!(
                    "{}; moved aside to {} and a new board started",
                    e.message,
                    dest.display()
                ),
                _ => format!("{}; a new board started", e.message),
            });
            store.record_fault("board", &warnings[0]);
            Board::empty(scope)
        }
    };
    let (changed, value) = f(&mut board)?;
    if changed {
        board.updated_at = now_iso();
        let mut bytes = serde_json::to_vec_pretty(&board)
            .map_err(|e| GoalError::invalid(format!("context board cannot be serialized: {e}")))?;
        bytes.push(b'\n');
        store.write_side_file(FOLDER, &scope.file_name(), &bytes)?;
    }
    Ok((value, warnings))
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

/// Who is asking. The agent writes `agent` items and never prunes the user's;
/// a subagent only reads; the user (the `goal-system board` command in their
/// own terminal) writes `user` items and may prune any. The consolidation
/// agent (a subagent, `memory::consolidate`) writes as the agent does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    User,
    Agent,
    Subagent,
    Consolidator,
}

/// A `context_board` command, validated.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    GetBoard,
    Get {
        src: Option<Src>,
        name: String,
    },
    Add {
        name: String,
        description: String,
        content: String,
    },
    Prune {
        name: String,
    },
}

/// The commands, as the tool's schema lists them (`list` and `show` are
/// accepted too, as the command line spells them).
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum CommandName {
    GetBoard,
    Get,
    Add,
    Prune,
}

// Each field's doc comment is its description in the tool's schema.
/// `context_board`: one command on the board of this repository and branch.
#[derive(Deserialize, JsonSchema, Debug, Clone, Default, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BoardRequest {
    // Absent, it lists; the schema asks for it so that a model says what it means.
    /// get_board lists metadata; get reads one item; add creates or overwrites an agent item; prune deletes one.
    #[schemars(required, with = "CommandName")]
    pub command: Option<String>,
    /// get: whose item (as listed in the board).
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub src: Option<String>,
    /// get, add, prune: the item's short kebab-case name.
    #[serde(default)]
    pub name: Option<String>,
    /// add: a one-line summary shown in the board.
    #[serde(default)]
    pub description: Option<String>,
    /// add: the full reusable content (one fact, recipe or trap per item).
    #[serde(default, alias = "content")]
    pub context: Option<String>,
}

/// A field a command needs: present and not blank.
fn required(value: Option<String>, field: &str, command: &str) -> Result<String> {
    value
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| GoalError::invalid(format!("{field}: required by {command}")))
}

/// A short kebab-case id: lowercase letters and digits in dash-separated words.
pub fn validate_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if ok {
        Ok(())
    } else {
        Err(GoalError::invalid(format!(
            "name {:?}: expected a short kebab-case id (1 to {MAX_NAME_CHARS} characters of a-z 0-9 in dash-separated words, e.g. \"run-the-tests\")",
            redact::truncate(name, 80)
        )))
    }
}

const SUBAGENT_WRITE: &str =
    "subagents may read the context board, never write it: report the lesson to the main session";

impl Command {
    /// Add and prune change the board; subagents may only read it.
    fn writes(&self) -> bool {
        matches!(self, Command::Add { .. } | Command::Prune { .. })
    }
}

/// The refusal of a board write called from a subagent, for the hooks'
/// PreToolUse (the MCP server cannot tell a subagent's call). A request the
/// board would reject anyway is left to it.
pub fn subagent_refusal(tool_name: &str, args: &Value) -> Option<String> {
    let writes = crate::tools::names_tool(tool_name, TOOL_NAME)
        && parse(args).is_ok_and(|command| command.writes());
    writes.then(|| format!("[goal-system] Refused: {TOOL_NAME} {SUBAGENT_WRITE}."))
}

/// Read a request: every string is redacted first, then the typed parse
/// names an unknown or mistyped field, then each command's fields are checked.
pub fn parse(request: &Value) -> Result<Command> {
    let mut request = request.clone();
    redact::redact_value(&mut request);
    let req: BoardRequest = request::parse(TOOL_NAME, &request)?;
    let command = req.command.unwrap_or_else(|| "get_board".into());
    match command.trim() {
        "get_board" | "list" => Ok(Command::GetBoard),
        "get" | "show" => {
            let name = required(req.name, "name", "get")?.trim().to_string();
            validate_name(&name)?;
            let src = match req.src.as_deref().map(str::trim) {
                None | Some("") => None,
                Some("agent") => Some(Src::Agent),
                Some("user") => Some(Src::User),
                Some(other) => {
                    return Err(GoalError::invalid(format!(
                        "src {:?}: expected \"agent\" or \"user\"",
                        redact::truncate(other, 40)
                    )))
                }
            };
            Ok(Command::Get { src, name })
        }
        "add" => {
            let name = required(req.name, "name", "add")?.trim().to_string();
            validate_name(&name)?;
            let description = required(req.description, "description", "add")?
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if description.chars().count() > MAX_DESCRIPTION_CHARS {
                return Err(GoalError::new(
                    ErrorCode::LimitExceeded,
                    format!("description: one line of at most {MAX_DESCRIPTION_CHARS} characters"),
                ));
            }
            let content = required(req.context, "context", "add")?.trim().to_string();
            if content.chars().count() > MAX_CONTENT_CHARS {
                return Err(GoalError::new(
                    ErrorCode::LimitExceeded,
                    format!("context: at most {MAX_CONTENT_CHARS} characters; keep one reusable fact per item"),
                ));
            }
            Ok(Command::Add {
                name,
                description,
                content,
            })
        }
        "prune" => {
            let name = required(req.name, "name", "prune")?.trim().to_string();
            validate_name(&name)?;
            Ok(Command::Prune { name })
        }
        other => Err(GoalError::invalid(format!(
            "command {:?}: expected get_board, get, add or prune",
            redact::truncate(other, 40)
        ))),
    }
}

/// What a command did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Text for the model or the user.
    pub text: String,
    pub repository: String,
    pub branch: String,
    /// Every item's metadata after the command (content left out).
    pub items: Vec<ItemMeta>,
    /// The items `get` returned, with content.
    pub found: Vec<Item>,
    /// The request to prune, once the board is nearly full.
    pub notice: Option<String>,
    pub warnings: Vec<String>,
}

/// A board item without its content, as the board lists it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemMeta {
    pub src: Src,
    pub name: String,
    pub description: String,
    /// Times the content was fetched with `get`.
    pub read_count: u64,
    /// Sessions that were shown the board while this item was on it.
    pub count: u64,
    pub created_at: String,
    pub updated_at: String,
}

/// An item's metadata (its content left out).
pub fn metadata(item: &Item) -> ItemMeta {
    ItemMeta {
        src: item.src,
        name: item.name.clone(),
        description: item.description.clone(),
        read_count: item.read_count,
        count: item.count,
        created_at: item.created_at.clone(),
        updated_at: item.updated_at.clone(),
    }
}

/// Run one command for `actor` in `scope`. `session_id`, when known, counts
/// the session's first sight of the board.
pub fn run(
    store: &Store,
    scope: &Scope,
    actor: Actor,
    session_id: &str,
    request: &Value,
) -> Result<Outcome> {
    let command = parse(request)?;
    if actor == Actor::Subagent && command.writes() {
        return Err(GoalError::new(ErrorCode::Subagent, SUBAGENT_WRITE));
    }
    let mut warnings = Vec::new();
    let (board, text, found) = match command {
        Command::GetBoard => {
            let board = match read(store, scope) {
                Ok(board) => board.unwrap_or_else(|| Board::empty(scope)),
                Err(e) => {
                    store.record_fault("board", &e.message);
                    warnings.push(format!("{}; left out", e.message));
                    Board::empty(scope)
                }
            };
            let board = if actor != Actor::User && !session_id.is_empty() {
                let mut seen = board.clone();
                if seen.mark_seen(session_id) {
                    let (b, w) =
                        modify(store, scope, |b| Ok((b.mark_seen(session_id), b.clone())))?;
                    warnings.extend(w);
                    b
                } else {
                    board
                }
            } else {
                board
            };
            let text = render(&board, true);
            (board, text, Vec::new())
        }
        Command::Get { src, name } => {
            let user = actor == Actor::User;
            let (found, w) = modify(store, scope, |b| {
                let hits: Vec<usize> = (0..b.items.len())
                    .filter(|&i| b.items[i].name == name && src.is_none_or(|s| b.items[i].src == s))
                    .collect();
                if hits.is_empty() {
                    return Err(not_found(&name, src));
                }
                // The agent's reads are the relevance signal; the user's are not.
                if !user {
                    for &i in &hits {
                        b.items[i].read_count += 1;
                    }
                }
                Ok((
                    !user,
                    (
                        hits.iter().map(|&i| b.items[i].clone()).collect::<Vec<_>>(),
                        b.clone(),
                    ),
                ))
            })?;
            warnings.extend(w);
            let (items, board) = found;
            let text = items
                .iter()
                .map(|i| {
                    format!(
                        "{} ({}): {}\n\n{}",
                        i.name,
                        i.src.as_str(),
                        i.description,
                        i.content
                    )
                })
                .collect::<Vec<_>>()
                .join("\n\n---\n\n");
            (board, text, items)
        }
        Command::Add {
            name,
            description,
            content,
        } => {
            let src = if actor == Actor::User {
                Src::User
            } else {
                Src::Agent
            };
            let ((board, replaced), w) = modify(store, scope, |b| {
                let now = now_iso();
                let replaced = match b.find(src, &name) {
                    Some(i) => {
                        let item = &mut b.items[i];
                        item.description = description.clone();
                        item.content = content.clone();
                        item.updated_at = now;
                        true
                    }
                    None => {
                        if b.items.len() >= CAPACITY {
                            return Err(GoalError::new(
                                ErrorCode::LimitExceeded,
                                format!(
                                    "the context board is full ({} of {CAPACITY} items): prune first (context_board prune), down to {PRUNE_TO} or fewer, then add {name:?}",
                                    b.items.len()
                                ),
                            ));
                        }
                        b.items.push(Item {
                            src,
                            name: name.clone(),
                            description: description.clone(),
                            content: content.clone(),
                            read_count: 0,
                            count: 0,
                            created_at: now.clone(),
                            updated_at: now,
                        });
                        false
                    }
                };
                Ok((true, (b.clone(), replaced)))
            })?;
            warnings.extend(w);
            let mut text = format!(
                "{} {} item {name} on the context board of {} ({}): {} of {CAPACITY} items.",
                if replaced { "Updated" } else { "Added" },
                src.as_str(),
                board.repository,
                board.branch,
                board.items.len()
            );
            if let Some(note) = prune_note(board.items.len()) {
                text.push(' ');
                text.push_str(&note);
            }
            (board, text, Vec::new())
        }
        Command::Prune { name } => {
            let (board, w) = modify(store, scope, |b| {
                let before = b.items.len();
                if actor == Actor::User {
                    b.items.retain(|i| i.name != name);
                } else {
                    if b.find(Src::Agent, &name).is_none() && b.find(Src::User, &name).is_some() {
                        return Err(GoalError::new(
                            ErrorCode::Forbidden,
                            format!(
                                "{name} is the user's item: the agent cannot prune it (the user can, with `goal-system board prune {name}`)"
                            ),
                        ));
                    }
                    b.items.retain(|i| !(i.src == Src::Agent && i.name == name));
                }
                if b.items.len() == before {
                    return Err(not_found(&name, None));
                }
                Ok((true, b.clone()))
            })?;
            warnings.extend(w);
            let text = format!(
                "Pruned {name} from the context board of {} ({}): {} of {CAPACITY} items left.",
                board.repository,
                board.branch,
                board.items.len()
            );
            (board, text, Vec::new())
        }
    };
    Ok(Outcome {
        text,
        repository: board.repository.clone(),
        branch: board.branch.clone(),
        items: board.items.iter().map(metadata).collect(),
        found,
        notice: prune_note(board.items.len()),
        warnings,
    })
}

fn not_found(name: &str, src: Option<Src>) -> GoalError {
    GoalError::new(
        ErrorCode::NotFound,
        match src {
            Some(src) => format!("no {} item named {name} on this context board (context_board get_board lists them)", src.as_str()),
            None => format!("no item named {name} on this context board (context_board get_board lists them)"),
        },
    )
}

// ---------------------------------------------------------------------------
// Text the model sees
// ---------------------------------------------------------------------------

/// The pruning request, from [`WARN_AT`] items on.
fn prune_note(len: usize) -> Option<String> {
    (len >= WARN_AT).then(|| {
        format!(
            "The board holds {len} of {CAPACITY} items: prune stale or redundant agent items (context_board prune) down to {PRUNE_TO} or fewer before adding more."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;
    use serde_json::json;
    use std::fs;
    use std::sync::atomic::{AtomicU64, Ordering};

    struct Temp(PathBuf);
    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
    fn temp(name: &str) -> Temp {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "goal-board-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Temp(dir)
    }
    fn store_in(dir: &Temp) -> Store {
        Store::new(StoreConfig::new(
            dir.0.join("ss"),
            dir.0.join("ss/goal-system"),
        ))
    }
    /// A repository made of the files git itself would write.
    fn repo(dir: &Path, branch: &str, origin: Option<&str>) -> PathBuf {
        let top = dir.join("repo");
        fs::create_dir_all(top.join(".git")).unwrap();
        fs::create_dir_all(top.join("src/deep")).unwrap();
        fs::write(top.join(".git/HEAD"), format!("ref: refs/heads/{branch}\n")).unwrap();
        let mut config = "[core]\n\tbare = false\n".to_string();
        if let Some(url) = origin {
            config.push_str(&format!("[remote \"upstream\"]\n\turl = /elsewhere\n[remote \"origin\"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"));
        }
        fs::write(top.join(".git/config"), config).unwrap();
        top
    }
    fn add(name: &str) -> Value {
        json!({"command": "add", "name": name, "description": format!("about {name}"), "context": format!("the content of {name}")})
    }

    #[test]
    fn remotes_of_one_repository_share_one_name() {
        for url in [
            "https://github.com/Owner/Repo.git",
            "https://someone:pw@GitHub.com/Owner/Repo/",
            "git@github.com:Owner/Repo.git",
            "ssh://git@github.com/Owner/Repo",
        ] {
            assert_eq!(normalize_remote(url), "github.com/Owner/Repo", "{url}");
        }
        assert_eq!(normalize_remote("/srv/git/x.git/"), "/srv/git/x.git");
    }

    #[test]
    fn scope_comes_from_origin_and_head_even_in_a_subfolder() {
        let t = temp("scope");
        let top = repo(&t.0, "feature/x", Some("git@github.com:o/r.git"));
        let scope = Scope::detect(top.join("src/deep").to_str().unwrap(), None).unwrap();
        assert_eq!(scope.repository, "github.com/o/r");
        assert_eq!(scope.branch, "feature/x");
        let forced = Scope::detect(top.to_str().unwrap(), Some("main")).unwrap();
        assert_eq!(forced.branch, "main");
        fs::write(
            top.join(".git/HEAD"),
            "0123456789abcdef0123456789abcdef01234567\n",
        )
        .unwrap();
        assert_eq!(
            Scope::detect(top.to_str().unwrap(), None).unwrap().branch,
            DEFAULT_BRANCH
        );
    }

    #[test]
    fn without_origin_the_top_level_names_the_repository_and_outside_git_the_cwd() {
        let t = temp("toplevel");
        let top = repo(&t.0, "main", None);
        let scope = Scope::detect(top.join("src").to_str().unwrap(), None).unwrap();
        assert_eq!(
            scope.repository,
            fs::canonicalize(&top).unwrap().to_string_lossy()
        );
        let outside = t.0.join("plain");
        fs::create_dir_all(&outside).unwrap();
        let scope = Scope::detect(outside.to_str().unwrap(), None).unwrap();
        assert_eq!(scope.repository, outside.to_string_lossy());
        assert_eq!(scope.branch, DEFAULT_BRANCH);
    }

    #[test]
    fn a_linked_worktree_is_the_same_repository_on_its_own_branch() {
        let t = temp("worktree");
        let top = repo(&t.0, "main", None);
        let private = top.join(".git/worktrees/wt");
        fs::create_dir_all(&private).unwrap();
        fs::write(private.join("HEAD"), "ref: refs/heads/topic\n").unwrap();
        fs::write(private.join("commondir"), "../..\n").unwrap();
        let wt = t.0.join("wt");
        fs::create_dir_all(&wt).unwrap();
        fs::write(wt.join(".git"), format!("gitdir: {}\n", private.display())).unwrap();
        let main = Scope::detect(top.to_str().unwrap(), None).unwrap();
        let linked = Scope::detect(wt.to_str().unwrap(), None).unwrap();
        assert_eq!(linked.repository, main.repository);
        assert_eq!(linked.branch, "topic");
    }

    #[test]
    fn two_branches_of_one_repository_see_different_boards() {
        let t = temp("branches");
        let store = store_in(&t);
        let top = repo(&t.0, "main", Some("https://github.com/o/r"));
        let cwd = top.to_str().unwrap();
        let main = Scope::detect(cwd, None).unwrap();
        run(&store, &main, Actor::Agent, "s1", &add("run-tests")).unwrap();
        fs::write(top.join(".git/HEAD"), "ref: refs/heads/topic\n").unwrap();
        let topic = Scope::detect(cwd, None).unwrap();
        let seen = run(
            &store,
            &topic,
            Actor::Agent,
            "s1",
            &json!({"command": "get_board"}),
        )
        .unwrap();
        assert!(seen.items.is_empty());
        assert!(seen.text.contains("is empty"));
        let back = run(&store, &main, Actor::Agent, "s1", &json!({})).unwrap();
        assert_eq!(back.items.len(), 1);
    }

    #[test]
    fn the_twenty_sixth_add_fails_and_the_prune_request_shows_from_twenty_three() {
        let t = temp("capacity");
        let store = store_in(&t);
        let scope = Scope::detect(t.0.to_str().unwrap(), None).unwrap();
        for n in 1..=CAPACITY {
            let out = run(&store, &scope, Actor::Agent, "", &add(&format!("item-{n}"))).unwrap();
            assert_eq!(
                out.text.contains(&format!("down to {PRUNE_TO} or fewer")),
                n >= WARN_AT,
                "after {n} adds: {}",
                out.text
            );
        }
        let err = run(&store, &scope, Actor::Agent, "", &add("one-more")).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
        assert!(err.message.contains("prune first"), "{}", err.message);
        // Overwriting an existing item is not a new one.
        run(&store, &scope, Actor::Agent, "", &add("item-3")).unwrap();
        let board = run(&store, &scope, Actor::Agent, "", &json!({})).unwrap();
        assert!(board.text.contains(&format!("down to {PRUNE_TO} or fewer")));
        assert_eq!(board.items.len(), CAPACITY);
    }

    #[test]
    fn get_returns_the_content_and_counts_the_read() {
        let t = temp("get");
        let store = store_in(&t);
        let scope = Scope::detect(t.0.to_str().unwrap(), None).unwrap();
        run(&store, &scope, Actor::Agent, "", &add("run-tests")).unwrap();
        let get = json!({"command": "get", "src": "agent", "name": "run-tests"});
        let first = run(&store, &scope, Actor::Agent, "", &get).unwrap();
        assert!(first.text.contains("the content of run-tests"));
        assert_eq!(first.found[0].read_count, 1);
        let second = run(&store, &scope, Actor::Subagent, "", &get).unwrap();
        assert_eq!(second.found[0].read_count, 2);
        assert_eq!(second.items[0].read_count, 2);
        let missing = run(
            &store,
            &scope,
            Actor::Agent,
            "",
            &json!({"command": "get", "src": "user", "name": "run-tests"}),
        );
        assert_eq!(missing.unwrap_err().code, ErrorCode::NotFound);
    }

    #[test]
    fn the_agent_cannot_prune_a_user_item_and_a_subagent_cannot_write() {
        let t = temp("authority");
        let store = store_in(&t);
        let scope = Scope::detect(t.0.to_str().unwrap(), None).unwrap();
        run(&store, &scope, Actor::User, "", &add("house-rules")).unwrap();
        let prune = json!({"command": "prune", "name": "house-rules"});
        let err = run(&store, &scope, Actor::Agent, "", &prune).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        for request in [add("mine"), prune.clone()] {
            let err = run(&store, &scope, Actor::Subagent, "", &request).unwrap_err();
            assert_eq!(err.code, ErrorCode::Subagent);
        }
        let kept = run(&store, &scope, Actor::Agent, "", &json!({})).unwrap();
        assert_eq!(kept.items.len(), 1);
        assert_eq!(kept.items[0].src, Src::User);
        run(&store, &scope, Actor::User, "", &prune).unwrap();
        assert!(run(&store, &scope, Actor::Agent, "", &json!({}))
            .unwrap()
            .items
            .is_empty());
    }

    #[test]
    fn bad_input_is_named_and_nothing_is_stored() {
        for (request, field) in [
            (
                json!({"command": "add", "name": "Not Kebab", "description": "d", "context": "c"}),
                "name",
            ),
            (
                json!({"command": "add", "name": "ok", "context": "c"}),
                "description",
            ),
            (
                json!({"command": "add", "name": "ok", "description": "d"}),
                "context",
            ),
            (
                json!({"command": "get", "name": "ok", "src": "robot"}),
                "src",
            ),
            (json!({"command": "explode"}), "command"),
            (
                json!({"command": "add", "name": "ok", "description": "d".repeat(300), "context": "c"}),
                "description",
            ),
        ] {
            let err = parse(&request).unwrap_err();
            assert!(err.message.starts_with(field), "{field}: {}", err.message);
        }
        let ok = parse(
            &json!({"command": "add", "name": "a-1", "description": "two\nlines", "content": "c"}),
        )
        .unwrap();
        assert_eq!(
            ok,
            Command::Add {
                name: "a-1".into(),
                description: "two lines".into(),
                content: "c".into()
            }
        );
    }

    #[test]
    fn an_unknown_or_mistyped_field_is_refused_naming_it() {
        let err = parse(&json!({"command": "add", "names": "x"})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(
            err.message.contains("unknown field \"names\"")
                && err.message.contains("did you mean \"name\""),
            "{}",
            err.message
        );
        let err = parse(&json!({"command": "get", "name": 7})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.starts_with("name:"), "{}", err.message);
        let caller_keys_pass = parse(&json!({"sessionId": "s", "cwd": "/w", "command": "list"}));
        assert_eq!(caller_keys_pass.unwrap(), Command::GetBoard);
    }

    #[test]
    fn a_secret_in_a_rejected_field_is_redacted_in_the_error() {
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
        let err = parse(&json!({"command": "get", "name": format!("x {token}")})).unwrap_err();
        assert!(!err.message.contains(&token), "{}", err.message);
    }

    #[test]
    fn a_secret_in_an_add_never_reaches_disk() {
        let t = temp("secret");
        let store = store_in(&t);
        let scope = Scope::detect(t.0.to_str().unwrap(), None).unwrap();
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
        let request = json!({"command": "add", "name": "deploy", "description": format!("uses {token}"), "context": format!("export GITHUB_TOKEN={token}")});
        let out = run(&store, &scope, Actor::Agent, "", &request).unwrap();
        assert!(!out.text.contains(&token));
        let bytes = fs::read(store.config.root.join(FOLDER).join(scope.file_name())).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains("REDACTED"), "{text}");
        assert!(!text.contains(&token));
    }

    #[test]
    fn a_corrupt_board_is_left_out_then_set_aside_on_the_next_write() {
        let t = temp("corrupt");
        let store = store_in(&t);
        let cwd = t.0.to_str().unwrap();
        let scope = Scope::detect(cwd, None).unwrap();
        let dir = store.config.root.join(FOLDER);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(scope.file_name()), "{not json").unwrap();
        assert_eq!(context_note(&store, cwd, "s1"), None);
        let faults = fs::read_to_string(store.faults_path()).unwrap();
        assert!(faults.contains("context board"), "{faults}");
        let listed = run(&store, &scope, Actor::Agent, "", &json!({})).unwrap();
        assert!(listed.items.is_empty() && !listed.warnings.is_empty());
        let added = run(&store, &scope, Actor::Agent, "", &add("fresh")).unwrap();
        assert!(
            added.warnings[0].contains("moved aside"),
            "{:?}",
            added.warnings
        );
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().any(|n| n.contains(".corrupt-")), "{names:?}");
    }

    #[test]
    fn the_injected_note_carries_the_metadata_table_and_no_content() {
        let t = temp("note");
        let store = store_in(&t);
        let cwd = t.0.to_str().unwrap();
        let scope = Scope::detect(cwd, None).unwrap();
        assert_eq!(context_note(&store, cwd, "s1"), None, "no board, no note");
        run(&store, &scope, Actor::Agent, "", &add("run-tests")).unwrap();
        let note = context_note(&store, cwd, "s1").unwrap();
        assert!(note.contains("| src | name | description | read_count | count |"));
        assert!(
            note.contains("| agent | run-tests | about run-tests | 0 | 1 |"),
            "{note}"
        );
        assert!(note.contains("\"command\": \"get\""));
        assert!(!note.contains("the content of run-tests"));
        let mut context = Some("goal text".to_string());
        add_note(&mut context, &store, cwd, "s1");
        add_note(&mut context, &store, cwd, "s1");
        let context = context.unwrap();
        assert_eq!(context.matches("<context_board ").count(), 1);
        assert!(context.starts_with("goal text\n\n<context_board "));
    }

    #[test]
    fn count_grows_once_per_new_session() {
        let t = temp("count");
        let store = store_in(&t);
        let cwd = t.0.to_str().unwrap();
        let scope = Scope::detect(cwd, None).unwrap();
        run(&store, &scope, Actor::Agent, "", &add("run-tests")).unwrap();
        for session in ["a", "a", "b", "a"] {
            context_note(&store, cwd, session).unwrap();
        }
        let board = run(&store, &scope, Actor::User, "", &json!({})).unwrap();
        assert_eq!(board.items[0].count, 2);
    }

    #[test]
    fn the_closing_note_asks_for_lessons_only_after_complete_or_blocked() {
        let t = temp("closing");
        let store = store_in(&t);
        let cwd = t.0.to_str().unwrap();
        let mut goal = Goal::new(
            "g".into(),
            "s".into(),
            cwd.into(),
            "x".into(),
            Status::Complete,
            now_iso(),
        );
        assert!(closing_note(&store, cwd, &goal).contains("at most 3 lessons"));
        goal.completion_status = Status::Blocked;
        assert!(closing_note(&store, cwd, &goal).contains("prune"));
        goal.completion_status = Status::Cancelled;
        assert_eq!(closing_note(&store, cwd, &goal), "");
    }
}
