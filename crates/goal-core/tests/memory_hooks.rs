//! The memory layers through the hook entry, with the hosts' own payloads:
//! memories at session start, the recall line at a prompt, `/goal
//! consolidate`, the consolidation agent's brief at its start, its writes let
//! through where any other subagent's are refused, and the offer when a
//! session of three prompts stops.

use goal_core::hooks::{run_with, Host};
use goal_core::memory::{self, Caller};
use goal_core::store::{Store, StoreConfig};
use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;

struct Env {
    base: PathBuf,
    cwd: String,
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

fn env(tag: &str) -> Env {
    let base = std::env::temp_dir().join(format!("goal-memory-hooks-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let repo = base.join("repo");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    Env {
        cwd: repo.to_string_lossy().into_owned(),
        base,
    }
}

impl Env {
    fn config(&self) -> StoreConfig {
        let ss = self.base.join("session-state");
        let mut config = StoreConfig::new(&ss, ss.join("goal-system"));
        config.claude_dirs = vec![self.base.join("claude")];
        config
    }
    /// Where Claude Code keeps session s1's transcript (a hook reads it only there).
    fn transcript(&self) -> PathBuf {
        let folder = self.base.join("claude/projects/-repo");
        fs::create_dir_all(&folder).unwrap();
        folder.join("s1.jsonl")
    }
    fn store(&self) -> Store {
        Store::new(self.config())
    }
    fn hook(&self, host: Host, event: &str, payload: Value) -> Value {
        let out = run_with(host, event, &payload.to_string(), Ok(self.config()));
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
        serde_json::from_str(&out.stdout).unwrap()
    }
    fn remember(&self, subject: &str, fact: &str) {
        let caller = Caller {
            session_id: "earlier".into(),
            host: "claude-code".into(),
            ..Caller::default()
        };
        memory::run_tool(
            &self.store(),
            &self.cwd,
            &caller,
            memory::STORE_TOOL,
            &json!({"subject": subject, "fact": fact, "citations": "c", "reason": "r"}),
        )
        .unwrap();
    }
}

/// The added context, whichever host shape carries it.
fn context(answer: &Value) -> String {
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .or_else(|| answer["additionalContext"].as_str())
        .unwrap_or("")
        .to_string()
}

fn deny(answer: &Value) -> String {
    answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .or_else(|| answer["permissionDecisionReason"].as_str())
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_new_session_sees_the_memories_and_a_prompt_on_a_stored_subject_gets_the_recall_line() {
    let e = env("recall");
    e.remember(
        "auth tokens",
        "Tokens refresh in src/auth/refresh.rs; never log them.",
    );
    for host in [Host::Claude, Host::CopilotCli, Host::VsCode] {
        let start = e.hook(
            host,
            "SessionStart",
            json!({"session_id": "s1", "sessionId": "s1", "cwd": e.cwd, "source": "startup"}),
        );
        let text = context(&start);
        assert!(
            text.contains("<repository_memories") && text.contains("auth tokens"),
            "{host:?}: {start}"
        );
        let prompt = e.hook(host, "UserPromptSubmit", json!({"session_id": "s1", "sessionId": "s1", "cwd": e.cwd, "prompt": "why does the auth token expire?"}));
        assert!(
            context(&prompt).contains("<memory_recall>"),
            "{host:?}: {prompt}"
        );
        let other = e.hook(
            host,
            "UserPromptSubmit",
            json!({"session_id": "s1", "sessionId": "s1", "cwd": e.cwd, "prompt": "say hello"}),
        );
        assert!(
            !context(&other).contains("memory_recall"),
            "{host:?}: {other}"
        );
    }
}

#[test]
fn goal_consolidate_tells_the_main_agent_to_start_the_agent_once() {
    let e = env("command");
    let answer = e.hook(
        Host::Claude,
        "UserPromptSubmit",
        json!({"session_id": "s1", "cwd": e.cwd, "prompt": "/goal consolidate"}),
    );
    let text = context(&answer);
    assert!(
        text.contains("subagent_type \"goal-consolidator\"")
            && text.contains("Consolidate session s1."),
        "{answer}"
    );
    // Copilot CLI's /goal is its autopilot: the command arrives wrapped.
    let wrapped = "The user set this explicit autopilot objective with /autopilot:\n\nconsolidate\n\nWork autonomously toward this objective in clear checkpoints.";
    let answer = e.hook(
        Host::CopilotCli,
        "userPromptSubmitted",
        json!({"sessionId": "s2", "cwd": e.cwd, "prompt": wrapped}),
    );
    assert!(
        context(&answer).contains("agent_type \"goal-consolidator\""),
        "{answer}"
    );
    assert!(
        e.store().peek_session("s2").is_none(),
        "no goal opened for it"
    );
}

#[test]
fn the_consolidation_agent_gets_its_brief_and_may_write_the_board_where_other_subagents_may_not() {
    let e = env("agent");
    let record = e.transcript();
    let lines: String = ["fix the login bug", "now run the tests", "write it down"]
        .iter()
        .map(|p| {
            json!({"type": "user", "message": {"role": "user", "content": p}}).to_string() + "\n"
        })
        .collect();
    fs::write(&record, lines).unwrap();
    let start = |agent: &str| {
        e.hook(Host::Claude, "SubagentStart", json!({"session_id": "s1", "cwd": e.cwd, "transcript_path": record, "agent_id": "a1", "agent_type": agent}))
    };
    let brief = context(&start("goal-system:goal-consolidator"));
    assert!(brief.starts_with("<consolidation_brief>"), "{brief}");
    assert!(
        brief.contains("[user] now run the tests") && brief.contains("user_prompts=\"3\""),
        "{brief}"
    );
    assert!(context(&start("general-purpose")).contains("You are a subagent"));
    // Copilot CLI names the agent in subagentStart's agentName.
    let copilot = e.hook(Host::CopilotCli, "subagentStart", json!({"sessionId": "s1", "cwd": e.cwd, "transcriptPath": record, "agentName": "goal-consolidator"}));
    assert!(
        context(&copilot).contains("<consolidation_brief>"),
        "{copilot}"
    );

    let add = json!({"command": "add", "name": "login-fix", "description": "d", "context": "c"});
    let pre = |agent: &str, tool: &str, args: &Value| {
        e.hook(Host::Claude, "PreToolUse", json!({"session_id": "s1", "cwd": e.cwd, "agent_id": "a1", "agent_type": agent, "tool_name": tool, "tool_input": args}))
    };
    let store = json!({"subject": "s", "fact": "f", "citations": "c", "reason": "r"});
    assert_eq!(
        deny(&pre(
            "goal-consolidator",
            "mcp__goalSystem__context_board",
            &add
        )),
        ""
    );
    assert_eq!(
        deny(&pre(
            "goal-consolidator",
            "mcp__goalSystem__store_memory",
            &store
        )),
        ""
    );
    assert!(deny(&pre(
        "goal-consolidator",
        "mcp__goalSystem__vote_memory",
        &json!({})
    ))
    .contains("subagent"));
    assert!(
        deny(&pre("Explore", "mcp__goalSystem__context_board", &add))
            .contains("subagents may read the context board")
    );
    assert!(
        deny(&pre("Explore", "mcp__goalSystem__store_memory", &store))
            .contains("may not store or vote")
    );
    // Copilot CLI's subagent tool call carries agentType.
    let copilot = e.hook(Host::CopilotCli, "preToolUse", json!({"sessionId": "sub", "cwd": e.cwd, "agentId": "sub", "agentType": "probe", "toolName": "store_memory", "toolArgs": store}));
    assert!(
        deny(&copilot).contains("may not store or vote"),
        "{copilot}"
    );
}

#[test]
fn a_session_of_three_prompts_is_offered_consolidation_once_when_it_stops() {
    let e = env("offer");
    let record = e.transcript();
    let write = |n: usize| {
        let lines: String = (0..n)
            .map(|i| json!({"type": "user", "message": {"role": "user", "content": format!("prompt {i}")}}).to_string() + "\n")
            .collect();
        fs::write(&record, lines).unwrap();
    };
    let stop = || {
        e.hook(Host::Claude, "Stop", json!({"session_id": "s1", "cwd": e.cwd, "transcript_path": record, "stop_hook_active": false}))
    };
    write(2);
    assert!(stop().get("systemMessage").is_none());
    write(3);
    let offered = stop();
    assert!(
        offered["systemMessage"]
            .as_str()
            .unwrap_or("")
            .contains("/goal consolidate"),
        "{offered}"
    );
    assert!(stop().get("systemMessage").is_none(), "once per session");
}
