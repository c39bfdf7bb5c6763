//! Answers stay small however many goals a directory holds.

use goal_core::clock::iso_from_ms;
use goal_core::hooks::{run_with, Host};
use goal_core::store::{Store, StoreConfig};
use goal_core::{Goal, Status};
use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;

const CWD: &str = "/work/project";

fn config_in(name: &str) -> (PathBuf, StoreConfig) {
    let dir = std::env::temp_dir().join(format!("goal-answer-sizes-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let state = dir.join("session-state");
    let config = StoreConfig::new(&state, state.join("goal-system"));
    (dir, config)
}

#[test]
fn a_continuation_refusal_lists_twenty_goals_and_counts_the_rest() {
    let (dir, config) = config_in("continue");
    let store = Store::new(config.clone());
    for i in 0..25u64 {
        let goal = Goal::new(
            format!("goal-{i:02}"),
            format!("s-{i:02}"),
            CWD.into(),
            format!("objective number {i}"),
            Status::Active,
            iso_from_ms(1_000 + i),
        );
        store.save(&goal).unwrap();
    }
    let payload = json!({
        "session_id": "s-new",
        "cwd": CWD,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "/goal continue",
    });
    // VS Code hands the prompt over as it comes (no signal to check there).
    let out = run_with(
        Host::VsCode,
        "UserPromptSubmit",
        &payload.to_string(),
        Ok(config),
    );
    let _ = fs::remove_dir_all(&dir);
    let answer: Value = serde_json::from_str(&out.stdout).expect("JSON answer");
    let text = answer.to_string();
    assert!(text.contains("25 open goals"), "{text}");
    assert_eq!(text.matches("- goal goal-").count(), 20, "{text}");
    assert!(text.contains("- and 5 more"), "{text}");
}
