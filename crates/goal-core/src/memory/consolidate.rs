//! The consolidation agent (seed 002's rem-agent): a subagent, shipped in each
//! host as `goal-consolidator`, whose only tools are `context_board` and
//! `store_memory`. The user starts it (`/goal consolidate`: the prompt hook
//! tells the main agent to launch it once); it is offered, never forced, when
//! a session with at least [`OFFER_AT`] prompts stops.
//!
//! Its system prompt is the core's: its agent file carries the standing
//! instructions, and when it starts, the SubagentStart hook hands it the
//! brief, built here from the board (with contents), the session's turns
//! (from the host's own record) and the goal's record. It is the one subagent
//! that may add and prune board items and store a memory; it may not vote.

use std::path::{Path, PathBuf};

use super::messages::{self, BRIEF_TAG};
use super::turns::{self, Speaker};
use crate::board;
use crate::record::Goal;
use crate::redact;
use crate::store::Store;

pub use super::AGENT_NAME;
/// Prompts a session needs before its end offers consolidation.
pub const OFFER_AT: usize = 3;
/// Characters of the whole brief.
pub const BRIEF_CHARS: usize = 24_000;
/// Characters of one board item's content in the brief.
const ITEM_CHARS: usize = 600;
/// Entries of each goal list in the brief.
const LIST_ITEMS: usize = 8;
const OFFERED_FOLDER: &str = "consolidate";

/// Whether a host's agent name or type names the consolidation agent.
pub fn is_consolidator(agent: &str) -> bool {
    let agent = agent.trim();
    agent == AGENT_NAME
        || agent
            .strip_suffix(AGENT_NAME)
            .is_some_and(|prefix| prefix.ends_with(':'))
}

/// The host's record of a session's turns: `record` when the hook found the
/// host's own (`hooks::host_record`), else Copilot CLI's `events.jsonl` in its
/// session-state folder.
pub fn record_path(store: &Store, session_id: &str, record: Option<&Path>) -> Option<PathBuf> {
    // Named even before it exists: the host may not have written it yet.
    record
        .map(Path::to_path_buf)
        .or_else(|| store.config.copilot_events(session_id))
}

fn goal_section(goal: &Goal) -> String {
    let mut out = format!(
        "objective: {}\nstatus: {}\n",
        redact::truncate(&goal.objective, 400),
        goal.status_label()
    );
    let lists: [(&str, &Vec<String>); 9] = [
        ("requirements", &goal.requirements),
        ("constraints", &goal.constraints),
        ("doneSoFar", &goal.done_so_far),
        ("verificationResults", &goal.verification_results),
        ("discoveredIssues", &goal.discovered_issues),
        ("resolvedIssues", &goal.resolved_issues),
        ("remaining", &goal.remaining),
        ("blockers", &goal.blockers),
        ("completionAudit", &goal.completion_audit),
    ];
    for (name, items) in lists {
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("{name}:\n"));
        let skip = items.len().saturating_sub(LIST_ITEMS);
        for item in &items[skip..] {
            out.push_str(&format!("- {}\n", redact::truncate(item, 300)));
        }
    }
    out
}

/// The brief: rules, then the board, the goal and the turns (newest kept
/// when the budget runs out). Everything in it is redacted.
pub fn brief(store: &Store, session_id: &str, cwd: &str, record: Option<&Path>) -> String {
    let board = board::peek(store, cwd);
    let items = board.as_ref().map_or(0, |b| b.items.len());
    let mut out = format!(
        "<{BRIEF_TAG}>\n{}\n",
        messages::brief_head(session_id, cwd, items)
    );
    match &board {
        Some(b) if !b.items.is_empty() => {
            out.push_str(&format!(
                "<board repository=\"{}\" branch=\"{}\">\n",
                b.repository.replace('"', "'"),
                b.branch.replace('"', "'")
            ));
            for item in &b.items {
                out.push_str(&format!(
                    "- {} ({}; read {} times, seen by {} sessions): {}\n  {}\n",
                    item.name,
                    item.src.as_str(),
                    item.read_count,
                    item.count,
                    item.description,
                    redact::truncate(
                        &item
                            .content
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" "),
                        ITEM_CHARS
                    )
                ));
            }
            out.push_str("</board>\n");
        }
        _ => out.push_str("<board>empty</board>\n"),
    }
    match store.peek_session(session_id) {
        Some(goal) => out.push_str(&format!(
            "<goal_record id=\"{}\">\n{}</goal_record>\n",
            goal.id,
            goal_section(&goal)
        )),
        None => out.push_str("<goal_record>none in this session</goal_record>\n"),
    }
    let turns = record.map(read_settled).unwrap_or_default();
    let budget = BRIEF_CHARS.saturating_sub(out.chars().count() + 200);
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0;
    for turn in turns.iter().rev() {
        let line = format!("[{}] {}\n", turn.speaker.label(), turn.text);
        used += line.chars().count();
        if used > budget {
            break;
        }
        kept.push(line);
    }
    kept.reverse();
    let users = turns.iter().filter(|t| t.speaker == Speaker::User).count();
    out.push_str(&format!(
        "<conversation_turns shown=\"{}\" of=\"{}\" user_prompts=\"{users}\">\n",
        kept.len(),
        turns.len()
    ));
    if turns.is_empty() {
        out.push_str("(the host's record of this session was not found)\n");
    }
    for line in kept {
        out.push_str(&line);
    }
    out.push_str(&format!("</conversation_turns>\n</{BRIEF_TAG}>"));
    out
}

/// How long the brief waits for the host's record to hold the session's
/// prompt: Copilot CLI writes `events.jsonl` behind its hooks (the file may
/// not exist yet when the agent starts, a second into a session), Claude
/// Code's transcript can lag its hooks too (e2e/NOTES.md).
const RECORD_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// The record's turns once it holds a user's prompt, or what it holds after
/// [`RECORD_WAIT`].
fn read_settled(path: &Path) -> Vec<turns::Turn> {
    let started = std::time::Instant::now();
    loop {
        let turns = turns::read(path);
        if turns.iter().any(|t| t.speaker == Speaker::User) || started.elapsed() >= RECORD_WAIT {
            return turns;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The context a SubagentStart hook gives the consolidation agent (None for
/// any other agent): its brief, built now.
pub fn subagent_start(
    store: &Store,
    agent: &str,
    session_id: &str,
    cwd: &str,
    record: Option<&Path>,
) -> Option<String> {
    if !is_consolidator(agent) {
        return None;
    }
    let record = record_path(store, session_id, record);
    let text = brief(store, session_id, cwd, record.as_deref());
    // Consolidated: the session's end need not offer it again.
    let _ = mark_offered(store, session_id);
    Some(text)
}

/// The agent's tools by each host's names: the installer's MCP server
/// (`goalSystem`), the plugins' (Claude Code prefixes `plugin_goal-system_`),
/// and Copilot CLI's extension tools. A host leaves out the names it has not.
fn tool_names(host: &str) -> Vec<String> {
    let bare = [board::TOOL_NAME, super::STORE_TOOL];
    match host {
        "claude" => bare
            .iter()
            .flat_map(|t| {
                [
                    format!("mcp__goalSystem__{t}"),
                    format!("mcp__plugin_goal-system_goalSystem__{t}"),
                ]
            })
            .collect(),
        "copilot" => bare
            .iter()
            .map(|t| t.to_string())
            .chain(bare.iter().map(|t| format!("goalSystem/{t}")))
            .collect(),
        _ => bare.iter().map(|t| format!("goalSystem/{t}")).collect(),
    }
}

/// The agent's file in each host, by its path in the package (written by
/// `npm run gen`; the plugins copy them): Claude Code's agent, Copilot CLI's
/// and VS Code's custom agents. Frontmatter values are JSON strings (valid YAML).
pub fn agent_files() -> Vec<(&'static str, String)> {
    let description = serde_json::to_string(&messages::agent_description()).unwrap_or_default();
    let list = |host: &str| {
        tool_names(host)
            .iter()
            .map(|t| serde_json::to_string(t).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let body = messages::agent_instructions();
    let head = "<!-- generated by npm run gen from crates/goal-core/src/memory/ (messages.rs, consolidate.rs); do not edit -->";
    vec![
        (
            "adapters/claude/agents/goal-consolidator.md",
            format!(
                "---\nname: {AGENT_NAME}\ndescription: {description}\ntools: {}\n---\n{head}\n\n{body}\n",
                tool_names("claude").join(", ")
            ),
        ),
        (
            "agents/goal-consolidator.agent.md",
            format!(
                "---\nname: {AGENT_NAME}\ndescription: {description}\ntools: [{}]\n---\n{head}\n\n{body}\n",
                list("copilot")
            ),
        ),
        (
            "adapters/vscode-chat/agents/goal-consolidator.agent.md",
            format!(
                "---\nname: {AGENT_NAME}\ndescription: {description}\ntools: [{}]\n---\n{head}\n\n{body}\n",
                list("vscode")
            ),
        ),
    ]
}

fn offered_name(session_id: &str) -> String {
    format!("{}.offered", super::hash16(session_id))
}

fn mark_offered(store: &Store, session_id: &str) -> crate::error::Result<()> {
    store.write_side_file(OFFERED_FOLDER, &offered_name(session_id), b"1\n")
}

/// The offer to consolidate, once per session, when it stops with at least
/// [`OFFER_AT`] prompts in the host's record. None otherwise (and on any fault).
pub fn offer(store: &Store, session_id: &str, record: Option<&Path>) -> Option<String> {
    if session_id.is_empty() {
        return None;
    }
    if matches!(
        store.read_side_file(OFFERED_FOLDER, &offered_name(session_id)),
        Ok(Some(_))
    ) {
        return None;
    }
    let record = record_path(store, session_id, record)?;
    let prompts = turns::user_prompts(&record, OFFER_AT);
    if prompts < OFFER_AT {
        return None;
    }
    mark_offered(store, session_id).ok()?;
    Some(messages::consolidate_offer(prompts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;
    use serde_json::json;

    fn store(tag: &str) -> (Store, PathBuf) {
        let dir = std::env::temp_dir().join(format!("gs-consolidate-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        (
            Store::new(StoreConfig::new(dir.join("ss"), dir.join("ss/goal-system"))),
            dir,
        )
    }

    #[test]
    fn only_the_consolidator_is_recognised_by_its_host_names() {
        assert!(is_consolidator("goal-consolidator"));
        assert!(is_consolidator("goal-system:goal-consolidator"));
        assert!(!is_consolidator("general-purpose"));
        assert!(!is_consolidator("my-goal-consolidator"));
        assert!(!is_consolidator(""));
    }

    #[test]
    fn the_brief_holds_the_board_the_goal_and_the_newest_turns_redacted() {
        let (store, dir) = store("brief");
        let cwd = dir.to_str().unwrap();
        let scope = board::Scope::detect(cwd, None).unwrap();
        board::run(&store, &scope, board::Actor::Agent, "", &json!({"command": "add", "name": "run-tests", "description": "How to run the tests", "context": "sh test.sh from the root"})).unwrap();
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
        let mut record = String::new();
        for i in 0..400 {
            record.push_str(&json!({"type": "user.message", "data": {"content": format!("prompt {i} {}", "x".repeat(200))}}).to_string());
            record.push('\n');
        }
        record.push_str(&json!({"type": "user.message", "data": {"content": format!("the last one with {token}")}}).to_string());
        let path = dir.join("events.jsonl");
        std::fs::write(&path, record).unwrap();
        let text = brief(&store, "s-1", cwd, Some(&path));
        assert!(
            text.starts_with(&format!("<{BRIEF_TAG}>"))
                && text.ends_with(&format!("</{BRIEF_TAG}>"))
        );
        assert!(
            text.contains("run-tests (agent") && text.contains("sh test.sh from the root"),
            "{text}"
        );
        assert!(text.contains("<goal_record>none in this session</goal_record>"));
        assert!(
            text.contains("the last one with"),
            "the newest turn is kept"
        );
        assert!(!text.contains("prompt 0 "), "the oldest turns give way");
        assert!(!text.contains(&token));
        assert!(
            text.chars().count() <= BRIEF_CHARS,
            "{}",
            text.chars().count()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_brief_waits_for_a_record_the_host_writes_late() {
        let (store, dir) = store("late");
        let path = dir.join("late-events.jsonl");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(300));
                let line =
                    json!({"type": "user.message", "data": {"content": "/goal consolidate"}});
                std::fs::write(&path, format!("{line}\n")).unwrap();
            })
        };
        let text = brief(&store, "s-late", dir.to_str().unwrap(), Some(&path));
        writer.join().unwrap();
        assert!(text.contains("[user] /goal consolidate"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_offer_comes_once_and_only_after_three_prompts() {
        let (store, dir) = store("offer");
        let path = dir.join("t.jsonl");
        let prompt = |n: usize| {
            json!({"type": "user", "message": {"content": format!("prompt {n}")}}).to_string()
                + "\n"
        };
        std::fs::write(&path, prompt(1) + &prompt(2)).unwrap();
        let p = Some(path.as_path());
        assert_eq!(offer(&store, "s", p), None);
        std::fs::write(&path, prompt(1) + &prompt(2) + &prompt(3)).unwrap();
        assert!(offer(&store, "s", p).unwrap().contains("/goal consolidate"));
        assert_eq!(offer(&store, "s", p), None, "once");
        assert!(offer(&store, "other", p).is_some());
        // A session that already consolidated is not offered it.
        subagent_start(&store, AGENT_NAME, "third", "/tmp", p).unwrap();
        assert_eq!(offer(&store, "third", p), None);
        assert_eq!(
            subagent_start(&store, "general-purpose", "x", "/tmp", p),
            None
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
