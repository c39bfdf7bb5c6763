//! Which tools inspect, which change files, which verify, and which are
//! neither: one classification for every host, so drift and the completion
//! gate read the same facts.

use serde_json::Value;

use crate::record::ToolKind;
use crate::redact;

/// The four goal tools, by their bare names.
pub const GOAL_TOOLS: [&str; 4] = [
    "goal_system_open",
    "goal_system_status",
    "goal_system_update",
    "goal_system_close",
];

/// The bare goal tool name behind a possibly prefixed one
/// (`mcp__goalSystem__goal_system_update`, `goalSystem/goal_system_update`,
/// `goal-system.goal_system_status`, ...).
pub fn goal_tool(name: &str) -> Option<&'static str> {
    let lower = name.trim().to_ascii_lowercase();
    GOAL_TOOLS.iter().copied().find(|tool| {
        lower == *tool
            || lower
                .strip_suffix(tool)
                .is_some_and(|prefix| prefix.ends_with(['_', '/', '.', ':', '-']))
    })
}

/// Copilot CLI's built-in completion claim in autopilot.
pub fn is_completion_claim(name: &str) -> bool {
    matches!(
        name.trim().to_ascii_lowercase().as_str(),
        "task_complete" | "taskcomplete"
    )
}

/// Bare tool name: the part after an MCP-style prefix.
fn bare(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let cut = lower
        .rfind("__")
        .map(|i| i + 2)
        .or_else(|| lower.rfind('/').map(|i| i + 1))
        .unwrap_or(0);
    lower[cut..].to_string()
}

const META: [&str; 8] = [
    "task_complete",
    "report_intent",
    "think",
    "todowrite",
    "todoread",
    "update_todo",
    "manage_todo_list",
    "exitplanmode",
];
const INSPECTION: [&str; 22] = [
    "view",
    "read",
    "read_file",
    "grep",
    "glob",
    "ls",
    "list_dir",
    "list_directory",
    "search",
    "codebase_search",
    "file_search",
    "grep_search",
    "semantic_search",
    "find",
    "fetch",
    "web_fetch",
    "webfetch",
    "websearch",
    "web_search",
    "get_errors",
    "list_code_usages",
    "read_notebook_cell_output",
];
const ACTION: [&str; 15] = [
    "edit",
    "create",
    "write",
    "multiedit",
    "str_replace",
    "str_replace_editor",
    "apply_patch",
    "insert_edit_into_file",
    "create_file",
    "replace_string_in_file",
    "notebookedit",
    "edit_notebook_file",
    "create_directory",
    "delete",
    "rename",
];
const DELEGATION: [&str; 7] = [
    "agent",
    "task",
    "runsubagent",
    "run_subagent",
    "dispatch_agent",
    "write_agent",
    "sendmessage",
];
const SHELLS: [&str; 9] = [
    "bash",
    "shell",
    "powershell",
    "run_in_terminal",
    "run_command",
    "execute",
    "terminal",
    "exec",
    "write_bash",
];

/// Is this a shell tool (its command says what it does)?
pub fn is_shell_tool(tool: &str) -> bool {
    SHELLS.contains(&bare(tool).as_str())
}

/// Classify a call by tool name and, for shells, by the command it runs.
pub fn classify(tool: &str, args: &Value) -> ToolKind {
    if goal_tool(tool).is_some() {
        return ToolKind::Goal;
    }
    let name = bare(tool);
    if META.contains(&name.as_str()) {
        return ToolKind::Meta;
    }
    if INSPECTION.contains(&name.as_str()) {
        return ToolKind::Inspection;
    }
    if ACTION.contains(&name.as_str()) {
        return ToolKind::Action;
    }
    if DELEGATION.contains(&name.as_str()) {
        return ToolKind::Delegation;
    }
    if SHELLS.contains(&name.as_str()) {
        return classify_command(main_argument(args).unwrap_or_default().as_str());
    }
    ToolKind::Other
}

/// Shell commands: tests and builds verify, reads inspect, the rest act.
pub fn classify_command(command: &str) -> ToolKind {
    let cmd = command.trim().to_ascii_lowercase();
    const VERIFY: [&str; 16] = [
        "test",
        "pytest",
        "jest",
        "vitest",
        "mocha",
        "cargo check",
        "cargo clippy",
        "cargo build",
        "npm run build",
        "tsc",
        "lint",
        "make",
        "go vet",
        "go build",
        "node --check",
        "bats",
    ];
    if VERIFY.iter().any(|v| cmd.contains(v)) {
        return ToolKind::Verification;
    }
    let first = cmd.split_whitespace().next().unwrap_or("");
    const READS: [&str; 16] = [
        "cat", "ls", "head", "tail", "grep", "rg", "find", "wc", "pwd", "tree", "stat", "file",
        "which", "less", "sed", "diff",
    ];
    let git_read = first == "git"
        && matches!(
            cmd.split_whitespace().nth(1),
            Some("status" | "log" | "diff" | "show" | "blame" | "grep" | "ls-files")
        );
    if (READS.contains(&first) && !cmd.contains(" -i") && !cmd.contains('>')) || git_read {
        return ToolKind::Inspection;
    }
    ToolKind::Action
}

/// The argument that says what a call did: the command, the path, the query.
pub fn main_argument(args: &Value) -> Option<String> {
    const KEYS: [&str; 12] = [
        "command",
        "cmd",
        "path",
        "file_path",
        "filePath",
        "filepath",
        "pattern",
        "query",
        "url",
        "summary",
        "objective",
        "input",
    ];
    let obj = args.as_object()?;
    KEYS.iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// `tool: main argument`, redacted and truncated, for the tool history.
pub fn summarize(tool: &str, args: &Value) -> String {
    let name = redact::truncate(tool, 80);
    match main_argument(args) {
        Some(arg) => format!("{name}: {}", redact::preview(&arg, 160)),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn goal_tools_are_recognised_however_prefixed() {
        for name in [
            "goal_system_update",
            "mcp__goalSystem__goal_system_update",
            "goalSystem/goal_system_status",
            "goal-system.goal_system_open",
            "GOAL_SYSTEM_CLOSE",
        ] {
            assert!(goal_tool(name).is_some(), "{name}");
            assert_eq!(classify(name, &json!({})), ToolKind::Goal);
        }
        for name in [
            "bash",
            "goal_system_updater",
            "my_goal_system",
            "goal_system",
        ] {
            assert!(goal_tool(name).is_none(), "{name}");
        }
    }

    #[test]
    fn classifies_tools_and_commands() {
        assert_eq!(
            classify("view", &json!({"path": "a"})),
            ToolKind::Inspection
        );
        assert_eq!(
            classify("Edit", &json!({"file_path": "a"})),
            ToolKind::Action
        );
        assert_eq!(
            classify("bash", &json!({"command": "cargo test"})),
            ToolKind::Verification
        );
        assert_eq!(
            classify("Bash", &json!({"command": "cat README.md"})),
            ToolKind::Inspection
        );
        assert_eq!(
            classify("bash", &json!({"command": "git status"})),
            ToolKind::Inspection
        );
        assert_eq!(
            classify("bash", &json!({"command": "echo hi > f"})),
            ToolKind::Action
        );
        assert_eq!(
            classify("bash", &json!({"command": "sed -i s/a/b/ f"})),
            ToolKind::Action
        );
        assert_eq!(
            classify("task_complete", &json!({"summary": "x"})),
            ToolKind::Meta
        );
        assert_eq!(classify("some_mcp_tool", &json!({})), ToolKind::Other);
        assert_eq!(
            classify("Agent", &json!({"prompt": "look"})),
            ToolKind::Delegation
        );
        assert_eq!(classify("task", &json!({})), ToolKind::Delegation);
    }

    #[test]
    fn summaries_are_redacted_and_bounded() {
        let token = ["sk", "ant", "api03", &"q".repeat(40)].join("-");
        let s = summarize(
            "bash",
            &json!({"command": format!("curl -H 'x-api-key: {token}' {}", "a".repeat(400))}),
        );
        assert!(!s.contains(&token), "{s}");
        assert!(s.chars().count() <= 170, "{}", s.chars().count());
        assert!(s.starts_with("bash: curl"));
    }
}
