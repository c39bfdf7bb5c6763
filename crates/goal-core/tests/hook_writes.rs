//! How many locked writes a hook event makes: each event writes the goal at
//! most once (one `Store::modify` that saves: three renames), and not at all
//! when nothing changed. Its own test binary: the I/O counters are
//! process-wide, and no other test may write meanwhile.

use goal_core::goals::{self, Caller};
use goal_core::hooks::{run_as, Host};
use goal_core::provenance::Origin;
use goal_core::store::{io_counts, IoCounts, Store, StoreConfig};
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

const SESSION: &str = "s-writes";
const CWD: &str = "/work/writes";
/// Renames of one goal write: its three copies.
const ONE_WRITE: u64 = 3;

fn config(base: &Path) -> StoreConfig {
    let session_state = base.join("session-state");
    StoreConfig::new(&session_state, session_state.join("goal-system"))
}

/// Copilot CLI's running token total for the session, as the host keeps it.
fn host_tokens(base: &Path, total: u64) {
    let dir = base.join("session-state").join(SESSION);
    fs::create_dir_all(&dir).unwrap();
    let objective =
        json!({"current": {"objective": "x", "status": "running", "tokenCount": total}});
    fs::write(dir.join("autopilot-objective.json"), objective.to_string()).unwrap();
}

/// Run one Copilot CLI hook and return its answer and what it cost on disk.
fn hook(base: &Path, event: &str, payload: Value) -> (Value, IoCounts) {
    let before = io_counts();
    // Run as the host runs it: usage is read only from a hook the host ran.
    let out = run_as(
        Host::CopilotCli,
        event,
        &payload.to_string(),
        Ok(config(base)),
        &Origin::host(Host::CopilotCli),
    );
    let cost = io_counts() - before;
    assert_eq!(out.exit_code, 0);
    (serde_json::from_str(&out.stdout).unwrap(), cost)
}

fn post_tool(tool: &str, command: &str) -> Value {
    json!({
        "sessionId": SESSION, "cwd": CWD, "timestamp": 0, "toolName": tool,
        "toolArgs": {"command": command},
        "toolResult": {"resultType": "success", "textResultForLlm": "ok\n<shellId: 0 completed with exit code 0>"},
    })
}

#[test]
fn every_hook_event_writes_the_goal_at_most_once_and_not_at_all_when_nothing_changed() {
    let base = std::env::temp_dir().join(format!("goal-hook-writes-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let store = Store::new(config(&base));
    let user = Caller::new(SESSION, CWD).with_role(goal_core::authority::Role::User);
    goals::open(
        &store,
        &user,
        &json!({"objective": "count the writes", "remaining": ["measure"]}),
    )
    .unwrap();
    host_tokens(&base, 1000);
    // The first accounting meets the source (no prompt set a baseline: all
    // 1000 tokens count).
    hook(&base, "postToolUse", post_tool("goal_system_status", ""));

    // New tokens and a counted call: accounted and recorded in one write
    // (three renames and one flush of the durable slot).
    host_tokens(&base, 1500);
    let (_, cost) = hook(&base, "postToolUse", post_tool("bash", "cargo test"));
    assert_eq!((cost.renames, cost.fsyncs), (ONE_WRITE, 1), "{cost:?}");
    let goal = store.peek_session(SESSION).unwrap();
    assert_eq!(goal.budget.tokens_used, 1500);
    assert_eq!(goal.tool_history.verifications, 1);

    // A goal tool and no new tokens: nothing changed, nothing written or
    // synced; the session read once for the whole run (its key, three
    // copies and two slots: store/hold.rs).
    let (_, cost) = hook(&base, "postToolUse", post_tool("goal_system_status", ""));
    let read_once = IoCounts {
        reads: 6,
        ..IoCounts::default()
    };
    assert_eq!(cost, read_once, "{cost:?}");

    // A stop: the turn counted and the stop held in one write.
    host_tokens(&base, 1700);
    let stop = json!({"sessionId": SESSION, "cwd": CWD, "timestamp": 0, "stopReason": "end_turn"});
    let (answer, cost) = hook(&base, "agentStop", stop);
    assert_eq!(answer["decision"], "block", "{answer}");
    assert_eq!(cost.renames, ONE_WRITE, "{cost:?}");
    let goal = store.peek_session(SESSION).unwrap();
    assert_eq!((goal.budget.turns, goal.budget.tokens_used), (1, 1700));
    assert_eq!(goal.stop_guard.blocked_stops, 1);

    // An interrupted turn: counted and the goal paused in one write.
    let abort =
        json!({"sessionId": SESSION, "cwd": CWD, "timestamp": 0, "stopReason": "user_abort"});
    let (_, cost) = hook(&base, "agentStop", abort);
    assert_eq!(cost.renames, ONE_WRITE, "{cost:?}");
    let goal = store.peek_session(SESSION).unwrap();
    assert_eq!(goal.completion_status, goal_core::Status::Paused);
    assert_eq!(goal.budget.turns, 2);

    // A pre-tool check only reads, once.
    let pre = json!({"sessionId": SESSION, "cwd": CWD, "timestamp": 0, "toolName": "bash", "toolArgs": {"command": "ls"}});
    let (_, cost) = hook(&base, "preToolUse", pre);
    assert_eq!(cost, read_once, "{cost:?}");

    let _ = fs::remove_dir_all(&base);
}
