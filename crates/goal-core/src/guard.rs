//! What an agent's tool call may not touch: the goal system's own state (a
//! shell command, edit or write under the state folder), and the user-only
//! verbs of the `goal-system` command. Checked before the call runs, for the
//! main agent and subagents alike, whether or not a goal is open.

use std::path::Path;

use serde_json::Value;

use crate::hooks::ToolCall;
use crate::record::ToolKind;
use crate::tools;

/// Where the goal state lives, as text to look for in a call.
#[derive(Debug, Clone)]
pub struct StatePaths {
    /// The goal-system folder, absolute.
    pub root: String,
    /// The user's home, for `~/` and `$HOME/` in commands.
    pub home: Option<String>,
}

impl StatePaths {
    pub fn new(root: &Path, home: Option<String>) -> StatePaths {
        StatePaths {
            root: root.to_string_lossy().trim_end_matches('/').to_string(),
            home: home.map(|h| h.trim_end_matches('/').to_string()),
        }
    }

    /// Does `text` name the goal state? The root itself, the session-local
    /// `goal-state.json` copies, or the root written from the home folder as
    /// `~/`, `$HOME/` or `${HOME}/`. Searched in place: the text may be a
    /// 10 MB file an edit or write tool carries.
    fn named_in(&self, text: &str) -> bool {
        self.needles()
            .iter()
            .any(|needle| text.contains(needle.as_str()))
    }

    /// What [`named_in`](Self::named_in) looks for, without a needle that
    /// holds an earlier one (found whenever it is): with the default root,
    /// two searches instead of six.
    fn needles(&self) -> Vec<String> {
        let mut all = vec![
            STATE_FILE.to_string(),
            "session-state/goal-system".to_string(),
            self.root.clone(),
        ];
        // The root's path below the home folder, when it is there.
        let below_home = self.home.as_deref().and_then(|home| {
            let rest = self.root.strip_prefix(home)?;
            match rest {
                "" => Some("/"),
                _ if rest.starts_with('/') => Some(rest),
                _ => None,
            }
        });
        if let Some(rest) = below_home {
            all.extend(["${HOME}", "$HOME", "~"].map(|form| format!("{form}{rest}")));
        }
        let mut needles: Vec<String> = Vec::new();
        for needle in all {
            if !needles.iter().any(|n| needle.contains(n.as_str())) {
                needles.push(needle);
            }
        }
        needles
    }
}

/// The session-local copy's file name.
pub const STATE_FILE: &str = "goal-state.json";

/// Verbs of the `goal-system` command that only the user may run.
const USER_VERBS: [&str; 5] = ["open", "cancel", "pause", "resume", "budget"];

/// Why the call is refused, or `None` to let it run.
pub fn forbidden(call: &ToolCall, paths: &StatePaths) -> Option<String> {
    let kind = tools::classify(&call.name, &call.args);
    if kind == ToolKind::Goal {
        return None;
    }
    let texts = argument_texts(&call.args);
    let command = tools::main_argument(&call.args).unwrap_or_default();
    if is_shell(&call.name) {
        if runs_user_verb(&command) {
            return Some(format!(
                "[goal-system] Refused: `goal-system {}` run by the agent. Only the user opens, replaces, cancels, pauses, resumes or budgets a goal (with /goal in the chat, or the command in their own terminal). Use the goal tools for your part: goal_system_status, goal_system_update, goal_system_close.",
                user_verb(&command).unwrap_or("...")
            ));
        }
        if paths.named_in(&command) && kind != ToolKind::Inspection {
            return Some(tamper_refusal());
        }
        return None;
    }
    if matches!(kind, ToolKind::Action | ToolKind::Other) && texts.iter().any(|t| paths.named_in(t))
    {
        return Some(tamper_refusal());
    }
    None
}

fn tamper_refusal() -> String {
    "[goal-system] Refused: this call would write, move or delete the goal system's state. The goal record changes only through the goal tools (goal_system_update to record progress and evidence, goal_system_close to close through the completion gate). Edits made outside them are detected and undone.".to_string()
}

fn is_shell(name: &str) -> bool {
    tools::is_shell_tool(name)
}

/// Every string argument of a call (paths of edit and write tools, patches).
fn argument_texts(args: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a str>, depth: usize) {
        if depth > 4 {
            return;
        }
        match v {
            Value::String(s) => out.push(s),
            Value::Array(items) => items.iter().for_each(|i| walk(i, out, depth + 1)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out, depth + 1)),
            _ => {}
        }
    }
    walk(args, &mut out, 0);
    out
}

/// Words that make an otherwise shared verb the user's: `close --status
/// cancelled`, `update --status paused`, budgets, a replacement. Matched in the
/// words after the command, so a pseudo-terminal or a cleaned environment (which
/// would give the command the user's role) does not open a way around.
const USER_ONLY_WORDS: [&str; 9] = [
    "cancelled",
    "canceled",
    "paused",
    "--tokens",
    "--minutes",
    "--off",
    "--replace",
    "tokenbudget",
    "timebudgetseconds",
];

fn user_verb(command: &str) -> Option<&'static str> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().find_map(|(i, word)| {
        let program = word.trim_matches(['\'', '"']);
        let program = program.rsplit('/').next().unwrap_or(program);
        if !matches!(program, "goal-system" | "goal-system.mjs") {
            return None;
        }
        let verb = words.get(i + 1)?.trim_matches(['\'', '"']);
        if let Some(v) = USER_VERBS.iter().copied().find(|v| *v == verb) {
            return Some(v);
        }
        let rest = words[i + 1..].join(" ").to_ascii_lowercase();
        USER_ONLY_WORDS
            .iter()
            .any(|w| rest.contains(w))
            .then_some("with a user-only status or budget")
    })
}

fn runs_user_verb(command: &str) -> bool {
    user_verb(command).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths() -> StatePaths {
        StatePaths::new(
            Path::new("/home/u/.copilot/session-state/goal-system"),
            Some("/home/u".into()),
        )
    }

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
        }
    }

    #[test]
    fn a_shell_edit_of_a_state_copy_is_refused() {
        for cmd in [
            "sed -i s/draft/complete/ /home/u/.copilot/session-state/goal-system/by-session/s1.json",
            "sed -i s/draft/complete/ ~/.copilot/session-state/goal-system/by-session/s1.json",
            "python3 -c 'x' > $HOME/.copilot/session-state/s1/goal-state.json",
            "rm -rf ~/.copilot/session-state/goal-system",
            "mv /tmp/x ~/.copilot/session-state/s1/goal-state.json",
        ] {
            assert!(
                forbidden(&call("bash", json!({ "command": cmd })), &paths()).is_some(),
                "{cmd}"
            );
        }
    }

    #[test]
    fn reading_the_state_and_ordinary_work_are_allowed() {
        for cmd in [
            "cat ~/.copilot/session-state/goal-system/by-session/s1.json",
            "npm test",
            "sed -i s/a/b/ src/main.rs",
        ] {
            assert!(
                forbidden(&call("bash", json!({ "command": cmd })), &paths()).is_none(),
                "{cmd}"
            );
        }
        assert!(forbidden(
            &call("edit", json!({"path": "/w/src/lib.rs", "new_str": "x"})),
            &paths()
        )
        .is_none());
    }

    #[test]
    fn edit_and_write_tools_aimed_at_the_state_are_refused() {
        let p = "/home/u/.copilot/session-state/goal-system/by-session/s1.json";
        assert!(forbidden(&call("Edit", json!({"file_path": p})), &paths()).is_some());
        assert!(forbidden(
            &call(
                "create",
                json!({"path": "/home/u/.copilot/session-state/s1/goal-state.json"})
            ),
            &paths()
        )
        .is_some());
    }

    #[test]
    fn a_state_root_of_any_name_is_found_however_the_home_folder_is_written() {
        let custom = StatePaths::new(Path::new("/home/u/state/gs"), Some("/home/u/".into()));
        for cmd in [
            "rm -rf /home/u/state/gs",
            "rm -rf ~/state/gs/by-session",
            "rm -rf $HOME/state/gs",
            "rm -rf ${HOME}/state/gs",
        ] {
            let write = call("bash", json!({ "command": cmd }));
            assert!(forbidden(&write, &custom).is_some(), "{cmd}");
        }
        for cmd in [
            "rm -rf ~/state",
            "rm -rf /tmp/state/gs",
            "rm -rf ~/other/state/gs",
        ] {
            let other = call("bash", json!({ "command": cmd }));
            assert!(forbidden(&other, &custom).is_none(), "{cmd}");
        }
        // Home itself as the root.
        let home = StatePaths::new(Path::new("/home/u"), Some("/home/u".into()));
        let write = call("bash", json!({"command": "rm -rf ~/x"}));
        assert!(forbidden(&write, &home).is_some());
    }

    #[test]
    fn the_default_root_is_found_with_two_searches() {
        assert_eq!(
            paths().needles(),
            [STATE_FILE, "session-state/goal-system"],
            "the root and its home forms all hold the second"
        );
    }

    #[test]
    fn the_agent_cannot_run_the_user_verbs_of_the_command() {
        for cmd in [
            "goal-system cancel --session s1",
            "npx goal-system open 'print hello'",
            "node /opt/gs/bin/goal-system.mjs pause",
            // A pseudo-terminal and a cleaned environment would give the command the
            // user's role: the words themselves are refused.
            "env -u CLAUDECODE script -qec 'goal-system close --status cancelled --reason x' /dev/null",
            "goal-system update --status paused",
            "goal-system update --input-json '{\"tokenBudget\": 999999}'",
        ] {
            let why = forbidden(&call("bash", json!({ "command": cmd })), &paths()).unwrap();
            assert!(why.contains("Only the user"), "{why}");
        }
        assert!(forbidden(
            &call("bash", json!({"command": "goal-system status"})),
            &paths()
        )
        .is_none());
    }
}
