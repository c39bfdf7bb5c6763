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
        let (mut kind, changes_files) = command_class(&command);
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
fn in_background(args: &Value) -> bool {
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

/// Shell commands: tests and builds verify, reads inspect, no-ops do nothing,
/// the rest act.
pub fn classify_command(command: &str) -> ToolKind {
    command_class(command).0
}

/// What one simple command of a pipeline or list does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Noop,
    Inspect,
    Verify,
    /// Acts without changing files (commit, push).
    Record,
    Change,
}

/// The kind of a whole command line, and whether it changes files. A
/// verification counts when nothing changes files after it on the same line
/// (`npm install && npm test` verifies; `npm test && sed -i ...` changes).
fn command_class(command: &str) -> (ToolKind, bool) {
    command_class_at(command, 0)
}

/// Split a command line into simple commands on `&&`, `||`, `;`, `|`, `&` and
/// new lines, outside quotes; here-document bodies are dropped (their
/// command, `cat > f <<EOF`, already says what happens).
fn split_commands(command: &str) -> Vec<String> {
    let chars: Vec<char> = command.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut heredocs: Vec<String> = Vec::new();
    let mut i = 0;
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.trim().is_empty() {
            out.push(cur.trim().to_string());
        }
        cur.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if let Some(q) = quote {
            cur.push(c);
            if c == '\\' && q == '"' {
                if let Some(n) = next {
                    cur.push(n);
                    i += 1;
                }
            } else if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                cur.push(c);
            }
            '\\' => {
                cur.push(c);
                if let Some(n) = next {
                    cur.push(n);
                    i += 1;
                }
            }
            '<' if next == Some('<') && chars.get(i + 2) != Some(&'<') => {
                let rest: String = chars[i + 2..].iter().collect();
                let word: String = rest
                    .trim_start_matches('-')
                    .trim_start()
                    .chars()
                    .take_while(|ch| !ch.is_whitespace() && !";&|<>".contains(*ch))
                    .filter(|ch| *ch != '\'' && *ch != '"')
                    .collect();
                if !word.is_empty() {
                    heredocs.push(word);
                }
                cur.push_str("<<");
                i += 1;
            }
            '\n' => {
                flush(&mut cur, &mut out);
                if !heredocs.is_empty() {
                    // Skip the bodies up to each delimiter line.
                    let rest: String = chars[i + 1..].iter().collect();
                    let mut consumed = 0;
                    let mut pending = std::mem::take(&mut heredocs).into_iter();
                    let mut want = pending.next();
                    for line in rest.split_inclusive('\n') {
                        if want.is_none() {
                            break;
                        }
                        consumed += line.chars().count();
                        if Some(line.trim()) == want.as_deref() {
                            want = pending.next();
                        }
                    }
                    i += consumed;
                }
            }
            ';' => flush(&mut cur, &mut out),
            '|' => {
                flush(&mut cur, &mut out);
                if matches!(next, Some('|' | '&')) {
                    i += 1;
                }
            }
            '&' => {
                let redirect = cur.ends_with('>') || cur.ends_with('<') || next == Some('>');
                if redirect {
                    cur.push(c);
                } else {
                    flush(&mut cur, &mut out);
                    if next == Some('&') {
                        i += 1;
                    }
                }
            }
            _ => cur.push(c),
        }
        i += 1;
    }
    flush(&mut cur, &mut out);
    out
}

/// Words of a simple command, quotes removed.
fn words_of(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if !cur.is_empty() || any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() || any {
        out.push(cur);
    }
    out
}

/// Does a simple command write a file through a redirection (`> f`, `>> f`)?
/// Redirections to descriptors and `/dev/null` do not count.
fn writes_by_redirect(command: &str) -> bool {
    let mut quote: Option<char> = None;
    let chars: Vec<char> = command.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '>' => {
                let mut j = i + 1;
                while j < chars.len() && matches!(chars[j], '>' | '|') {
                    j += 1;
                }
                let target: String = chars[j..]
                    .iter()
                    .collect::<String>()
                    .trim_start()
                    .chars()
                    .take_while(|ch| !ch.is_whitespace())
                    .collect();
                let harmless = target.starts_with('&')
                    || target.is_empty()
                    || matches!(target.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr");
                if !harmless {
                    return true;
                }
                i = j;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    false
}

/// Wrappers that run the command after them (`sudo`, `time`, `env X=1`).
const WRAPPERS: &[&str] = &[
    "time", "sudo", "env", "nohup", "nice", "timeout", "command", "builtin", "exec", "xargs",
    "stdbuf", "unbuffer", "xvfb-run", "then", "do", "else", "if", "while", "until", "!", "{", "(",
];
/// Shell words that do nothing for the work.
const NOOPS: &[&str] = &[
    "echo", "printf", "true", "false", ":", "sleep", "pwd", "exit", "return", "clear", "date",
    "whoami", "id", "hostname", "cd", "pushd", "popd", "export", "set", "unset", "alias",
    "unalias", "shopt", "source", ".", "wait", "history", "tty", "uptime", "fi", "done", "esac",
    "}", ")", "read", "trap", "ulimit", "hash", "jobs", "tput", "yes", "reset",
];
/// Commands that only read.
const READS: &[&str] = &[
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "fd",
    "ls",
    "ll",
    "la",
    "tree",
    "wc",
    "stat",
    "file",
    "which",
    "whereis",
    "type",
    "diff",
    "cmp",
    "jq",
    "yq",
    "uniq",
    "cut",
    "tr",
    "nl",
    "xxd",
    "od",
    "hexdump",
    "strings",
    "du",
    "df",
    "ps",
    "printenv",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "column",
    "bat",
    "man",
    "tldr",
    "lsof",
    "comm",
    "fold",
    "rev",
    "tac",
    "look",
];
/// Words of a script, target or task name that mean it checks the work.
const VERIFY_WORDS: &[&str] = &[
    "test",
    "tests",
    "spec",
    "specs",
    "check",
    "checks",
    "lint",
    "build",
    "typecheck",
    "tsc",
    "verify",
    "validate",
    "ci",
    "e2e",
    "unit",
    "integration",
    "coverage",
];

fn verify_word(name: &str) -> bool {
    name.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| VERIFY_WORDS.contains(&w))
}

/// A script path that names a test or check (`test.sh`, `tests/run.py`,
/// `scripts/check-types.mjs`), by its words, never by substring.
fn test_path(path: &str) -> bool {
    path.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| {
            matches!(
                w,
                "test" | "tests" | "spec" | "specs" | "check" | "verify" | "lint"
            )
        })
}

/// The program's name without its directory (`./node_modules/.bin/jest`).
fn program(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase()
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Non-option words after the program, skipping the values of common
/// valued options.
fn operands(args: &[String]) -> Vec<&str> {
    const VALUED: &[&str] = &[
        "-C",
        "-f",
        "-j",
        "-p",
        "-F",
        "--filter",
        "--dir",
        "--prefix",
        "--workspace",
        "--cwd",
        "--manifest-path",
        "--package",
        "--project",
        "-t",
        "--target",
    ];
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if VALUED.contains(&a.as_str()) {
            skip = true;
            continue;
        }
        if a.starts_with('-') || a.starts_with('+') {
            continue;
        }
        out.push(a.as_str());
    }
    out
}

fn has(args: &[String], flags: &[&str]) -> bool {
    args.iter().any(|a| {
        flags
            .iter()
            .any(|f| a == f || a.starts_with(&format!("{f}=")))
    })
}

/// One simple command. `depth` bounds `bash -c '...'` recursion.
fn step(command: &str, depth: u8) -> Step {
    let words = words_of(command);
    let mut rest: &[String] = &words;
    // Assignments, wrappers and their options come before the program.
    loop {
        let Some(first) = rest.first() else {
            return Step::Noop;
        };
        let lower = first.to_ascii_lowercase();
        if is_assignment(first) {
            rest = &rest[1..];
        } else if WRAPPERS.contains(&lower.as_str()) {
            rest = &rest[1..];
            while let Some(w) = rest.first() {
                let numeric = w.chars().next().is_some_and(|c| c.is_ascii_digit());
                if matches!(w.as_str(), "-u" | "-g" | "-n" | "-s" | "-k" | "-I") {
                    rest = rest.get(2..).unwrap_or(&[]);
                } else if w.starts_with('-') || numeric || is_assignment(w) {
                    rest = &rest[1..];
                } else {
                    break;
                }
            }
        } else {
            break;
        }
    }
    let prog = program(&rest[0]);
    let args = &rest[1..];
    if let Some(v) = verifier(&prog, &rest[0], args, depth) {
        return v;
    }
    if writes_by_redirect(command) || prog == "tee" {
        return Step::Change;
    }
    if NOOPS.contains(&prog.as_str()) {
        return Step::Noop;
    }
    if prog == "git" {
        return git_step(args);
    }
    let version_only = args.len() == 1
        && matches!(
            args[0].as_str(),
            "--version" | "-v" | "-V" | "version" | "--help" | "-h"
        );
    if version_only {
        return Step::Inspect;
    }
    let inspect = match prog.as_str() {
        "sed" => !args.iter().any(|a| {
            a.starts_with("--in-place")
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && a.contains('i'))
        }),
        "awk" | "gawk" => !has(args, &["-i"]),
        "find" => !has(
            args,
            &[
                "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf",
            ],
        ),
        "sort" => !has(args, &["-o", "--output"]),
        "curl" => !has(
            args,
            &[
                "-o",
                "-O",
                "--output",
                "-X",
                "--request",
                "-d",
                "--data",
                "-T",
                "--upload-file",
                "-F",
                "--form",
            ],
        ),
        "cargo" => matches!(
            operands(args).first(),
            Some(&("tree" | "metadata" | "search"))
        ),
        "npm" | "pnpm" | "yarn" => matches!(
            operands(args).first(),
            Some(&("ls" | "list" | "view" | "info" | "outdated" | "why" | "explain" | "config"))
        ),
        other => READS.contains(&other),
    };
    if inspect {
        Step::Inspect
    } else {
        Step::Change
    }
}

fn git_step(args: &[String]) -> Step {
    let mut rest = args;
    while let Some(w) = rest.first() {
        match w.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" => rest = rest.get(2..).unwrap_or(&[]),
            w if w.starts_with('-') => rest = &rest[1..],
            _ => break,
        }
    }
    let Some(sub) = rest.first() else {
        return Step::Inspect;
    };
    let more = operands(&rest[1..]);
    match sub.as_str() {
        "status" | "log" | "diff" | "show" | "blame" | "grep" | "ls-files" | "ls-tree"
        | "rev-parse" | "describe" | "shortlog" | "cat-file" | "whatchanged" | "help"
        | "version" | "rev-list" | "ls-remote" | "merge-base" | "name-rev" => Step::Inspect,
        "branch" | "tag" | "remote" | "stash" | "reflog" | "worktree" | "config"
            if more.is_empty()
                || matches!(more[0], "list" | "show" | "get-url" | "-v")
                || has(&rest[1..], &["--list", "-l", "--get", "--show-current"]) =>
        {
            Step::Inspect
        }
        "add" | "commit" | "push" | "fetch" | "tag" | "notes" => Step::Record,
        _ => Step::Change,
    }
}

/// `Some(Verify)` when the command runs the project's tests, build, lint or
/// type check; `Some(Change)` for the fixing variants of checkers
/// (`eslint --fix`, `cargo fmt`); `None` when it is no checker at all.
fn verifier(prog: &str, raw: &str, args: &[String], depth: u8) -> Option<Step> {
    let ops = operands(args);
    let first = ops.first().copied().unwrap_or("");
    let yes = Some(Step::Verify);
    let fixing = has(args, &["--fix", "--write", "-w", "--apply", "--fix-only"]);
    let checking = has(args, &["--check", "-c", "--list-different", "-l", "--diff"]);
    let nested = |words: &[String]| -> Option<Step> {
        let (p, r) = words.split_first()?;
        verifier(&program(p), p, r, depth)
    };
    // Runners that take another command: `npx jest`, `uv run pytest`.
    let after = |n: usize| -> Vec<String> {
        let mut skip = 0;
        let mut out = Vec::new();
        for a in args {
            if skip < n && !a.starts_with('-') {
                skip += 1;
                continue;
            }
            if skip < n || (out.is_empty() && a.starts_with('-')) {
                continue;
            }
            out.push(a.clone());
        }
        out
    };
    match prog {
        "cargo" => match first {
            "test" | "t" | "build" | "b" | "check" | "c" | "clippy" | "nextest" | "bench"
            | "miri" | "doc" | "hack" => yes,
            "fmt" if checking => yes,
            _ => None,
        },
        "npm" => match first {
            "test" | "t" | "tst" | "cit" | "install-test" => yes,
            "run" | "run-script" | "rum" | "urn" => {
                ops.get(1).filter(|s| verify_word(s)).map(|_| Step::Verify)
            }
            "exec" | "x" => nested(&after(1)),
            _ => None,
        },
        "pnpm" | "yarn" | "bun" => match first {
            "test" | "t" => yes,
            "run" => ops.get(1).filter(|s| verify_word(s)).map(|_| Step::Verify),
            "exec" | "dlx" | "x" => nested(&after(1)),
            "install" | "add" | "remove" | "i" | "up" | "upgrade" => None,
            s if verify_word(s) => yes,
            // `pnpm vitest run`, `yarn jest`: a local binary by name.
            _ => nested(&after(0)),
        },
        "npx" | "pnpx" | "bunx" | "c8" | "nyc" | "uvx" | "pipx" => nested(&after(0)),
        "node" | "deno" if has(args, &["--test", "--check", "-c"]) => yes,
        "node" => (!first.is_empty() && test_path(first)).then_some(Step::Verify),
        "deno" => match first {
            "test" | "check" | "lint" | "bench" => yes,
            "fmt" if checking => yes,
            _ => None,
        },
        "jest" | "vitest" | "mocha" | "ava" | "tap" | "jasmine" | "karma" | "vue-tsc"
        | "svelte-check" | "playwright" | "cypress" | "tsd" | "tstyche" => {
            (prog != "vitest" || first != "dev").then_some(Step::Verify)
        }
        "tsc" => (!has(args, &["--watch", "-w"])).then_some(Step::Verify),
        "eslint" | "stylelint" | "xo" | "standard" | "oxlint" | "markdownlint"
        | "markdownlint-cli2" => Some(if fixing { Step::Change } else { Step::Verify }),
        "prettier" | "black" | "isort" | "gofmt" | "rustfmt" | "shfmt" | "dprint" => {
            (checking && !fixing).then_some(Step::Verify)
        }
        "biome" => match first {
            "check" | "lint" | "ci" | "format" if !fixing && (first != "format" || checking) => yes,
            _ => None,
        },
        "turbo" | "nx" | "lerna" | "just" | "task" | "rake" | "mage" => {
            ops.iter().any(|s| verify_word(s)).then_some(Step::Verify)
        }
        "python" | "python3" | "py" | "pypy" | "pypy3" => {
            if let Some(pos) = args.iter().position(|a| a == "-m") {
                let module = args.get(pos + 1).map(String::as_str).unwrap_or("");
                return match module {
                    "pytest" | "unittest" | "mypy" | "flake8" | "pylint" | "tox" | "nox"
                    | "compileall" | "doctest" | "py_compile" | "pyright" | "nose2" | "ruff"
                    | "pyflakes" | "pycodestyle" => {
                        Some(if fixing { Step::Change } else { Step::Verify })
                    }
                    "black" | "isort" => (checking && !fixing).then_some(Step::Verify),
                    _ => None,
                };
            }
            if has(args, &["-c"]) {
                return None;
            }
            (!first.is_empty()
                && (test_path(first)
                    || (first.ends_with("setup.py") && ops.get(1) == Some(&"test"))))
            .then_some(Step::Verify)
        }
        "pytest" | "py.test" | "tox" | "nox" | "mypy" | "flake8" | "pylint" | "pyright"
        | "pyflakes" | "pycodestyle" | "nose2" | "bandit" => yes,
        "ruff" => match first {
            "format" => (checking && !fixing).then_some(Step::Verify),
            _ => Some(if fixing { Step::Change } else { Step::Verify }),
        },
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "conda" | "bundle" => match first {
            "run" | "exec" => nested(&after(1)),
            "test" => yes,
            _ => None,
        },
        "go" => matches!(first, "test" | "vet" | "build").then_some(Step::Verify),
        "golangci-lint" | "staticcheck" | "revive" => yes,
        "make" | "gmake" | "ninja" => {
            (ops.is_empty() || ops.iter().any(|t| verify_word(t))).then_some(Step::Verify)
        }
        "cmake" => has(args, &["--build"]).then_some(Step::Verify),
        "ctest" | "bats" | "shellcheck" | "rspec" | "phpunit" | "pest" | "hadolint"
        | "actionlint" | "yamllint" | "codespell" | "cspell" | "tflint" | "ktlint" | "detekt"
        | "swiftlint" | "credo" => yes,
        "meson" => matches!(first, "test" | "compile").then_some(Step::Verify),
        "gradle" | "gradlew" | "mvn" | "mvnw" | "sbt" | "lein" | "ant" => ops
            .iter()
            .any(|t| {
                verify_word(t)
                    || matches!(
                        *t,
                        "compile" | "package" | "assemble" | "verify" | "install"
                    )
            })
            .then_some(Step::Verify),
        "dotnet" | "swift" | "stack" | "cabal" | "mix" | "zig" | "bazel" | "bazelisk" | "buck2"
        | "pants" | "composer" | "rails" | "flutter" | "dart" | "elm" | "terraform" | "helm" => {
            match (prog, first) {
                (_, "test" | "build" | "check" | "lint" | "compile" | "analyze") => yes,
                ("terraform", "validate") | ("mix", "credo" | "dialyzer") => yes,
                ("mix", "format") | ("dart", "format") if checking => yes,
                _ => None,
            }
        }
        "bash" | "sh" | "zsh" | "dash" | "ksh" => {
            if let Some(pos) = args.iter().position(|a| a == "-c") {
                let inner = args.get(pos + 1)?;
                if depth >= 3 {
                    return None;
                }
                let (kind, _) = command_class_at(inner, depth + 1);
                return match kind {
                    ToolKind::Verification => yes,
                    _ => None,
                };
            }
            (!first.is_empty() && test_path(first)).then_some(Step::Verify)
        }
        _ if raw.contains('/') && test_path(raw) => yes,
        _ => None,
    }
}

fn command_class_at(command: &str, depth: u8) -> (ToolKind, bool) {
    let steps: Vec<Step> = split_commands(command)
        .iter()
        .map(|s| step(s, depth))
        .collect();
    let last = |want: Step| steps.iter().rposition(|s| *s == want);
    if let Some(v) = last(Step::Verify) {
        if last(Step::Change).is_none_or(|c| c < v) {
            return (ToolKind::Verification, false);
        }
    }
    if steps.contains(&Step::Change) {
        return (ToolKind::Action, true);
    }
    if steps.contains(&Step::Record) {
        return (ToolKind::Action, false);
    }
    if steps.contains(&Step::Inspect) {
        return (ToolKind::Inspection, false);
    }
    (ToolKind::Noop, false)
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

    use ToolKind::{Action, Delegation, Goal, Inspection, Meta, Noop, Other, Verification};

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
    fn shell_commands_are_classified_by_what_they_run() {
        let table: &[(&str, ToolKind)] = &[
            // Test, build, lint and type-check runners verify.
            ("cargo test", Verification),
            (
                "cargo +nightly clippy --all-targets -- -D warnings",
                Verification,
            ),
            ("cargo nextest run", Verification),
            ("cargo build --release", Verification),
            ("cargo fmt --all --check", Verification),
            ("npm test", Verification),
            ("npm run test:unit", Verification),
            ("npm run build", Verification),
            ("npm run lint -- --max-warnings 0", Verification),
            ("pnpm test", Verification),
            ("pnpm --filter web run typecheck", Verification),
            ("yarn build", Verification),
            ("pnpm vitest run", Verification),
            ("yarn jest --ci", Verification),
            ("yarn install", Action),
            ("npx jest src", Verification),
            ("npx --yes vitest run", Verification),
            ("npx tsc --noEmit", Verification),
            ("npx eslint .", Verification),
            ("node --test __test__/", Verification),
            ("python -m pytest -q", Verification),
            ("python3 -m unittest discover", Verification),
            ("pytest tests/test_greet.py", Verification),
            ("uv run pytest", Verification),
            ("tox -e py312", Verification),
            ("go test ./...", Verification),
            ("go vet ./...", Verification),
            ("make test", Verification),
            ("make", Verification),
            ("make -C build check", Verification),
            ("./gradlew test", Verification),
            ("mvn -q verify", Verification),
            ("dotnet test", Verification),
            ("ruff check .", Verification),
            ("mypy src", Verification),
            ("flake8", Verification),
            ("bats test/", Verification),
            ("ctest --output-on-failure", Verification),
            ("bash test.sh", Verification),
            // The e2e suites' honest step: run the script, then its test.
            ("sh greet.sh && sh test.sh", Verification),
            ("sh greet.sh", Action),
            ("./scripts/run_tests.sh", Verification),
            ("sh -c 'cd app && npm test'", Verification),
            // Wrappers, assignments, lists and pipes are parsed, not searched.
            ("cd crates/core && cargo test 2>&1 | tail -20", Verification),
            ("RUST_BACKTRACE=1 time cargo test", Verification),
            ("sudo -u ci make check", Verification),
            ("npm install && npm test", Verification),
            ("cargo test && git commit -am 'fix'", Verification),
            ("npm test; sed -i 's/a/b/' src/a.js", Action),
            ("if cargo test; then echo ok; fi", Verification),
            // Substrings never match: these run nothing that checks.
            ("npm install latest", Action),
            ("echo test", Noop),
            ("cat contest.txt", Inspection),
            ("npm run start", Action),
            ("make install", Action),
            ("eslint --fix .", Action),
            ("ruff format .", Action),
            ("cargo run", Action),
            // No-ops do nothing.
            ("echo done", Noop),
            ("true", Noop),
            (":", Noop),
            ("printf 'ok\\n'", Noop),
            ("sleep 2", Noop),
            ("pwd", Noop),
            ("cd src", Noop),
            ("exit 0", Noop),
            ("clear && date && whoami", Noop),
            ("", Noop),
            // Reads inspect.
            ("cat README.md", Inspection),
            ("ls -la src | head", Inspection),
            ("rg -n 'fn main' crates", Inspection),
            ("git status", Inspection),
            ("git -C repo log --oneline -5", Inspection),
            ("git diff HEAD~1", Inspection),
            ("sed -n '1,40p' src/a.rs", Inspection),
            ("find . -name '*.rs'", Inspection),
            ("node --version", Inspection),
            // Everything else acts.
            ("echo hi > notes.txt", Action),
            ("printf '#!/bin/sh\\necho hello\\n' > greet.sh", Action),
            ("cat > greet.sh <<'EOF'\necho hello\nnpm test\nEOF", Action),
            ("sed -i 's/a/b/' f", Action),
            ("sed -Ei 's/a/b/' f", Action),
            ("find . -name '*.tmp' -delete", Action),
            ("rm -rf dist", Action),
            ("mv a b", Action),
            ("git checkout -- src", Action),
            ("git commit -am wip", Action),
            ("python scripts/migrate.py", Action),
            ("curl -o x.tgz https://example.com/x.tgz", Action),
            ("tee out.txt", Action),
        ];
        for (command, want) in table {
            assert_eq!(classify_command(command), *want, "{command:?}");
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
