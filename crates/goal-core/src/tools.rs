//! Which tools inspect, which change files, which verify, and which are
//! neither: one classification for every host, so drift and the completion
//! gate read the same facts.

use serde_json::Value;

use crate::commands;
use crate::record::ToolKind;
use crate::redact;

/// One tool call as a hook payload names it: the tool and its arguments.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub name: String,
    pub args: Value,
}

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
    GOAL_TOOLS
        .iter()
        .copied()
        .find(|tool| names_tool(name, tool))
}

/// Whether `name` is the bare tool `tool`, possibly behind a host's prefix
/// (`mcp__goalSystem__context_board`, `goalSystem/context_board`).
pub fn names_tool(name: &str, tool: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    lower == tool
        || lower
            .strip_suffix(tool)
            .is_some_and(|prefix| prefix.ends_with(['_', '/', '.', ':', '-']))
}

/// Copilot CLI's built-in completion claim in autopilot.
pub fn is_completion_claim(name: &str) -> bool {
    matches!(
        name.trim().to_ascii_lowercase().as_str(),
        "task_complete" | "taskcomplete"
    )
}

/// Codex CLI's own goal tool marking its goal complete (`update_goal` with
/// `status: "complete"`): the model's claim, which Codex checks by nothing.
pub fn is_host_goal_completion(name: &str, args: &Value) -> bool {
    name.trim().eq_ignore_ascii_case("update_goal")
        && args.get("status").and_then(Value::as_str) == Some("complete")
}

/// Bare tool name: the part after an MCP-style prefix, lowercased, with
/// separators dropped so `replace_string_in_file`, `replaceStringInFile` and
/// `mcp__x__Replace-String-In-File` compare equal.
fn key(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let cut = lower
        .rfind("__")
        .map(|i| i + 2)
        .or_else(|| lower.rfind('/').map(|i| i + 1))
        .unwrap_or(0);
    lower[cut..]
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// Host bookkeeping: plans, todo lists, tool loading, questions, shells'
/// housekeeping, the completion claim. Neither work nor drift.
const META: &[&str] = &[
    // Copilot CLI
    "taskcomplete",
    "reportintent",
    "think",
    "updatetodo",
    "askuser",
    "skill",
    "sql",
    "sessionstoresql",
    "fetchcopilotclidocumentation",
    "readagent",
    "listagents",
    "readbash",
    "listbash",
    "stopbash",
    // Claude Code
    "toolsearch",
    "todowrite",
    "todoread",
    "exitplanmode",
    "enterplanmode",
    "askuserquestion",
    "taskcreate",
    "taskget",
    "tasklist",
    "taskupdate",
    "taskstop",
    "taskoutput",
    "bashoutput",
    "killshell",
    "croncreate",
    "crondelete",
    "cronlist",
    "schedulewakeup",
    "reportfindings",
    // VS Code
    "managetodolist",
    "updateplan",
    // Gemini CLI
    "writetodos",
    // Codex CLI's own goal (its `update_goal` complete is a claim: see `is_host_goal_completion`)
    "getgoal",
    "creategoal",
    "updategoal",
];
/// Tools that read, search or list.
const INSPECTION: &[&str] = &[
    "view",
    "read",
    "readfile",
    "notebookread",
    "grep",
    "glob",
    "ls",
    "listdir",
    "listdirectory",
    "search",
    "codebasesearch",
    "filesearch",
    "grepsearch",
    "textsearch",
    "semanticsearch",
    "find",
    "fetch",
    "webfetch",
    "fetchwebpage",
    "websearch",
    "geterrors",
    "getchangedfiles",
    "listcodeusages",
    "readnotebookcelloutput",
    "testfailure",
    "getterminaloutput",
    "githubrepo",
    // Gemini CLI
    "readmanyfiles",
    "searchfilecontent",
    "googlewebsearch",
];
/// Tools that change files.
const CHANGE: &[&str] = &[
    "edit",
    "create",
    "write",
    "multiedit",
    "editfile",
    "writefile",
    "strreplace",
    "applypatch",
    "inserteditintofile",
    "createfile",
    "replacestringinfile",
    "multireplacestringinfile",
    "notebookedit",
    "editnotebookfile",
    "createnewjupyternotebook",
    "createdirectory",
    "delete",
    "deletefile",
    "rename",
    "renamefile",
    "move",
    "movefile",
    // Gemini CLI's edit tool
    "replace",
];
/// Editors whose `command` argument says whether they view or change.
const EDITORS: &[&str] = &["strreplaceeditor", "strreplacebasededittool"];
/// Tools that run the project's tests themselves (VS Code's runTests).
const VERIFY: &[&str] = &["runtests", "runtest"];
const DELEGATION: &[&str] = &[
    "agent",
    "task",
    "runsubagent",
    "dispatchagent",
    "writeagent",
    "sendmessage",
];
const SHELLS: &[&str] = &[
    "bash",
    "shell",
    "powershell",
    "pwsh",
    "runinterminal",
    "runcommand",
    "execute",
    "terminal",
    "exec",
    "writebash",
    // Gemini CLI
    "runshellcommand",
];

/// Is this a shell tool (its command says what it does)?
pub fn is_shell_tool(tool: &str) -> bool {
    SHELLS.contains(&key(tool).as_str())
}

/// What one call is, for drift, the gate and freshness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    pub kind: ToolKind,
    /// Did it (possibly) change files? Every change needs a passing
    /// verification after it before the goal may close.
    pub changes_files: bool,
    /// The shell command, for shells.
    pub command: Option<String>,
}

/// Classify a call by tool name and, for shells, by the command it runs.
pub fn classify(tool: &str, args: &Value) -> ToolKind {
    classify_call(tool, args).kind
}

/// `classify` with the facts freshness needs.
pub fn classify_call(tool: &str, args: &Value) -> Classified {
    let plain = |kind: ToolKind| Classified {
        kind,
        changes_files: kind == ToolKind::Action,
        command: None,
    };
    if goal_tool(tool).is_some() {
        return plain(ToolKind::Goal);
    }
    let name = key(tool);
    let name = name.as_str();
    if META.contains(&name) {
        return plain(ToolKind::Meta);
    }
    if EDITORS.contains(&name) {
        let viewing = args.get("command").and_then(Value::as_str) == Some("view");
        return plain(if viewing {
            ToolKind::Inspection
        } else {
            ToolKind::Action
        });
    }
    if INSPECTION.contains(&name) {
        return plain(ToolKind::Inspection);
    }
    if CHANGE.contains(&name) {
        return plain(ToolKind::Action);
    }
    if VERIFY.contains(&name) {
        return plain(ToolKind::Verification);
    }
    if DELEGATION.contains(&name) {
        return plain(ToolKind::Delegation);
    }
    if SHELLS.contains(&name) {
        let Some(command) = shell_command(args) else {
            return plain(ToolKind::Other);
        };
        let (mut kind, changes_files) = commands::command_class(&command);
        // A run in the background reports no outcome: it verifies nothing.
        if kind == ToolKind::Verification && in_background(args) {
            kind = ToolKind::Other;
        }
        return Classified {
            kind,
            changes_files,
            command: Some(command),
        };
    }
    plain(ToolKind::Other)
}

fn shell_command(args: &Value) -> Option<String> {
    let obj = args.as_object()?;
    ["command", "cmd", "input", "script"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// Claude's `run_in_background`, VS Code's `isBackground`, Copilot's `mode: async`.
pub fn in_background(args: &Value) -> bool {
    [
        "run_in_background",
        "isBackground",
        "is_background",
        "background",
    ]
    .iter()
    .any(|k| args.get(*k).and_then(Value::as_bool) == Some(true))
        || args.get("mode").and_then(Value::as_str) == Some("async")
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
    // Editors whose `command` is a verb (`view`, `str_replace`): the path says more.
    if EDITORS.contains(&key(tool).as_str()) {
        if let (Some(verb), Some(path)) = (
            args.get("command").and_then(Value::as_str),
            args.get("path").and_then(Value::as_str),
        ) {
            return format!(
                "{name}: {} {}",
                redact::truncate(verb, 20),
                redact::preview(path, 160)
            );
        }
    }
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

    use ToolKind::{Action, Delegation, Goal, Inspection, Meta, Other, Verification};

    #[test]
    fn every_hosts_real_tools_are_classified() {
        let table: &[(&str, Value, ToolKind)] = &[
            // Copilot CLI 1.0.102
            (
                "bash",
                json!({"command": "npm test", "description": "run tests"}),
                Verification,
            ),
            ("view", json!({"path": "src/a.js"}), Inspection),
            (
                "edit",
                json!({"path": "src/a.js", "old_str": "a", "new_str": "b"}),
                Action,
            ),
            (
                "create",
                json!({"path": "src/b.js", "file_text": "x"}),
                Action,
            ),
            (
                "str_replace_editor",
                json!({"command": "view", "path": "a"}),
                Inspection,
            ),
            (
                "str_replace_editor",
                json!({"command": "str_replace", "path": "a"}),
                Action,
            ),
            ("grep", json!({"pattern": "fn main"}), Inspection),
            ("glob", json!({"pattern": "**/*.rs"}), Inspection),
            ("task_complete", json!({"summary": "Made X."}), Meta),
            ("report_intent", json!({"intent": "Testing"}), Meta),
            ("read_bash", json!({"shellId": "0"}), Meta),
            ("task", json!({"prompt": "look"}), Delegation),
            ("goalSystem-goal_system_update", json!({}), Goal),
            // Claude Code 2.1.330
            (
                "Bash",
                json!({"command": "cargo test --workspace"}),
                Verification,
            ),
            (
                "Bash",
                json!({"command": "cargo test", "run_in_background": true}),
                Other,
            ),
            ("Read", json!({"file_path": "/w/a.rs"}), Inspection),
            ("Edit", json!({"file_path": "/w/a.rs"}), Action),
            ("Write", json!({"file_path": "/w/b.rs"}), Action),
            ("MultiEdit", json!({"file_path": "/w/a.rs"}), Action),
            (
                "NotebookEdit",
                json!({"notebook_path": "/w/a.ipynb"}),
                Action,
            ),
            ("Grep", json!({"pattern": "x"}), Inspection),
            ("Glob", json!({"pattern": "*.rs"}), Inspection),
            (
                "WebFetch",
                json!({"url": "https://example.com"}),
                Inspection,
            ),
            (
                "ToolSearch",
                json!({"query": "select:mcp__goalSystem__goal_system_update"}),
                Meta,
            ),
            ("TodoWrite", json!({"todos": []}), Meta),
            ("TaskCreate", json!({"subject": "x"}), Meta),
            ("ExitPlanMode", json!({"plan": "x"}), Meta),
            ("Skill", json!({"skill": "goal"}), Meta),
            ("Agent", json!({"prompt": "look"}), Delegation),
            ("Task", json!({"prompt": "look"}), Delegation),
            ("mcp__goalSystem__goal_system_update", json!({}), Goal),
            ("mcp__other__do_something", json!({}), Other),
            // VS Code Copilot Chat
            (
                "run_in_terminal",
                json!({"command": "npx vitest run", "explanation": "x", "isBackground": false}),
                Verification,
            ),
            (
                "run_in_terminal",
                json!({"command": "npm run dev", "isBackground": true}),
                Action,
            ),
            ("read_file", json!({"filePath": "/w/a.ts"}), Inspection),
            (
                "replace_string_in_file",
                json!({"filePath": "/w/a.ts"}),
                Action,
            ),
            ("create_file", json!({"filePath": "/w/b.ts"}), Action),
            ("manage_todo_list", json!({"todoList": []}), Meta),
            ("runTests", json!({"files": ["/w/a.test.ts"]}), Verification),
            ("get_errors", json!({"filePaths": []}), Inspection),
            ("runSubagent", json!({"prompt": "x"}), Delegation),
            ("goalSystem/goal_system_close", json!({}), Goal),
            // Anything unknown is never evidence.
            ("frobnicate", json!({"command": "cargo test"}), Other),
        ];
        for (tool, args, want) in table {
            assert_eq!(classify(tool, args), *want, "{tool} {args}");
        }
    }

    #[test]
    fn only_commands_that_change_files_move_the_freshness_mark() {
        let changes =
            |command: &str| classify_call("bash", &json!({ "command": command })).changes_files;
        assert!(changes("sed -i 's/a/b/' f"));
        assert!(changes("echo x >> f"));
        assert!(!changes("git add -A && git commit -m done && git push"));
        assert!(
            !changes("npm install && npm test"),
            "verified on the same line"
        );
        assert!(!changes("cargo test > /tmp/log 2>&1"));
        assert!(!changes("ls > /dev/null"));
        assert!(classify_call("Edit", &json!({"file_path": "a"})).changes_files);
        assert!(!classify_call("Read", &json!({"file_path": "a"})).changes_files);
        assert!(!classify_call("some_mcp_tool", &json!({})).changes_files);
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
        assert_eq!(
            summarize(
                "str_replace_editor",
                &json!({"command": "str_replace", "path": "src/a.rs"})
            ),
            "str_replace_editor: str_replace src/a.rs"
        );
    }
}
