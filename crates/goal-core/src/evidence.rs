//! What one tool call did, for the completion gate: did it change the work,
//! and did it verify it? Observation decides wherever the machine allows:
//! the working tree before and after the call (`observe`), the host's report
//! of the run (its result, exit status and output, `outcome`), and the files
//! the command names (which must exist inside the goal's folder). The
//! command's words (`commands`) only find the candidates and stand in where
//! the tree cannot be observed.
//!
//! A call verifies when it succeeded, changed nothing it did not create, ran
//! inside the goal's folder, and exercised the project: its tests, build, type
//! check or linter, or the project's own program (`bash greet.sh`, `python
//! main.py`, `cargo run`, `npm start`, a request to a server it started).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::commands::{self, Step};
use crate::observe::Diff;
use crate::outcome::{self, Report};
use crate::record::ToolKind;
use crate::redact;
use crate::shell::{self, Part, Sep};
use crate::tools;
use crate::tools::ToolCall;

/// What the tree says about one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Observed {
    /// The tree was compared around the call: what changed (outputs of
    /// earlier runs and same-bytes rewrites already left out).
    Tree(Diff),
    /// The tree could not be compared: the words decide.
    Words,
}

/// Where a call runs.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// The goal's folder (absolute).
    pub root: &'a Path,
    /// Where the call's command line starts (the folder the host runs it in).
    pub start: PathBuf,
    /// Project programs started in the background earlier in the goal.
    pub background_runs: u64,
}

/// A verification that counts, passed or failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub passed: bool,
    /// Why it failed, when it did.
    pub why: String,
    /// `check` (tests, build, lint, type check) or `run` (the project's program).
    pub kind: &'static str,
}

/// The verdict on one call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Judged {
    pub kind: Option<ToolKind>,
    /// It changed the work (files other than its own outputs).
    pub changes: bool,
    /// The files it changed (relative to the goal's folder), when known.
    pub files: Vec<String>,
    /// A verification that counts.
    pub run: Option<Run>,
    /// Why a run that looked like a verification does not count.
    pub attempt: Option<String>,
    /// Files the run created: its outputs.
    pub outputs: Vec<String>,
    /// It started the project's program in the background.
    pub started_server: bool,
    /// Files it read (relative to the goal's folder).
    pub reads: Vec<String>,
    /// The shell command, for shells.
    pub command: Option<String>,
}

/// Judge one call of the main session.
pub fn judge(call: &ToolCall, report: &Report, observed: &Observed, ctx: &Context) -> Judged {
    let class = tools::classify_call(&call.name, &call.args);
    match class.command.clone() {
        Some(command) => shell_call(&command, &call.args, report, observed, ctx),
        None => tool_call(call, class.kind, report, observed, ctx),
    }
}

/// A non-shell tool: reads read, editors change what they name, VS Code's
/// runTests verifies, and anything else changes what the tree shows.
fn tool_call(
    call: &ToolCall,
    kind: ToolKind,
    report: &Report,
    observed: &Observed,
    ctx: &Context,
) -> Judged {
    let named = declared_paths(&call.args, ctx.root).unwrap_or_default();
    let mut judged = Judged {
        kind: Some(kind),
        ..Judged::default()
    };
    match kind {
        ToolKind::Inspection => judged.reads = named,
        ToolKind::Verification => {
            let verdict = outcome::judge(report);
            judged.run = Some(match verdict {
                Ok(()) => match outcome::zero_tests(&report.text) {
                    Some(said) => {
                        judged.kind = Some(ToolKind::Other);
                        judged.attempt = Some(no_tests(&said));
                        return judged;
                    }
                    None => passed("check"),
                },
                Err(why) => failed("check", why),
            });
        }
        ToolKind::Action => {
            let failed = outcome::judge(report).is_err();
            match observed {
                Observed::Tree(diff) => judged.files = diff.paths().cloned().collect(),
                Observed::Words if !failed => {
                    judged.files = named;
                    // An editor that named no file we could read still wrote one.
                    judged.changes = true;
                }
                Observed::Words => {}
            }
            judged.changes |= !judged.files.is_empty();
        }
        _ => {
            if let Observed::Tree(diff) = observed {
                judged.files = diff.paths().cloned().collect();
                judged.changes = !judged.files.is_empty();
            }
        }
    }
    judged
}

fn passed(kind: &'static str) -> Run {
    Run {
        passed: true,
        why: String::new(),
        kind,
    }
}

fn failed(kind: &'static str, why: String) -> Run {
    Run {
        passed: false,
        why,
        kind,
    }
}

fn no_tests(said: &str) -> String {
    format!("it ran no tests (the output says {said}), so it verifies nothing: run the tests without a filter that leaves none")
}

/// What a verification-like part of a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Candidate {
    /// Tests, build, lint, type check.
    Check,
    /// The project's own program.
    Run,
}

impl Candidate {
    fn name(self) -> &'static str {
        match self {
            Candidate::Check => "check",
            Candidate::Run => "run",
        }
    }
}

fn shell_call(
    command: &str,
    args: &Value,
    report: &Report,
    observed: &Observed,
    ctx: &Context,
) -> Judged {
    let parts = shell::split(command);
    let (dirs, _) = shell::folders(&parts, &ctx.start);
    let steps: Vec<Step> = parts.iter().map(|p| commands::step(&p.text, 0)).collect();
    let candidates: Vec<Option<Candidate>> = parts
        .iter()
        .zip(&steps)
        .zip(&dirs)
        .map(|((part, step), dir)| match step {
            Step::Verify => Some(Candidate::Check),
            _ if project_run(&part.text, dir.as_deref(), ctx, 0) => Some(Candidate::Run),
            _ => None,
        })
        .collect();
    let last = candidates.iter().rposition(Option::is_some);
    let (text_kind, _) = commands::command_class(command);
    let mut judged = Judged {
        kind: Some(text_kind),
        command: Some(command.to_string()),
        reads: read_operands(&parts, &steps, &dirs, ctx.root),
        ..Judged::default()
    };
    let background = |i: usize| parts[i].sep == Sep::Background || in_background(args);
    // What changed, and whether the candidate still stands.
    match observed {
        Observed::Tree(diff) if !diff.is_empty() => {
            let created_only = diff.modified.is_empty() && diff.removed.is_empty();
            match last {
                Some(i) if created_only && !background(i) => judged.outputs = diff.added.clone(),
                _ => {
                    judged.kind = Some(ToolKind::Action);
                    judged.changes = true;
                    judged.files = diff.paths().cloned().collect();
                    if last.is_some() {
                        judged.attempt = Some(format!(
                            "it changed {} as it ran, so it does not show the work as it now is: run it again now that nothing changes",
                            list(&judged.files)
                        ));
                    }
                    return judged;
                }
            }
        }
        Observed::Tree(_) => {}
        Observed::Words => {
            // A change step after the last candidate (or with none) changes the work.
            let change_at = steps
                .iter()
                .enumerate()
                .rposition(|(i, s)| *s == Step::Change && candidates[i].is_none());
            if change_at.is_some_and(|c| last.is_none_or(|v| c > v)) {
                judged.kind = Some(ToolKind::Action);
                judged.changes = true;
                return judged;
            }
        }
    }
    let Some(i) = last else {
        // Nothing that verifies, and nothing changed.
        if judged.kind == Some(ToolKind::Action) {
            judged.kind = Some(ToolKind::Other);
        }
        return judged;
    };
    let candidate = candidates[i].expect("a candidate");
    if background(i) {
        judged.kind = Some(ToolKind::Other);
        judged.started_server = candidate == Candidate::Run;
        return judged;
    }
    judged.kind = Some(ToolKind::Verification);
    let outside = match &dirs[i] {
        None => {
            Some("in a folder that could not be followed (a `cd` to a variable or `-`)".to_string())
        }
        Some(dir) => outside_root(&parts[i].text, dir, ctx.root),
    };
    if let Some(place) = outside {
        judged.kind = Some(ToolKind::Other);
        judged.attempt = Some(format!(
            "it ran {place}, outside the goal's folder {}: run it there",
            ctx.root.display()
        ));
        return judged;
    }
    let masked = is_masked(&parts, i);
    let verdict = match candidate {
        Candidate::Check => outcome::judge_check(report, masked),
        Candidate::Run => outcome::judge_run(report, masked),
    };
    judged.run = Some(match verdict {
        Err(why) => failed(candidate.name(), why),
        Ok(()) if candidate == Candidate::Check => match outcome::zero_tests(&report.text) {
            Some(said) => {
                judged.kind = Some(ToolKind::Other);
                judged.attempt = Some(no_tests(&said));
                return judged;
            }
            None => passed("check"),
        },
        Ok(()) => passed("run"),
    });
    judged
}

/// `a, b and 3 more` for messages.
pub fn list(files: &[String]) -> String {
    match files.len() {
        0 => "files".into(),
        1..=3 => files
            .iter()
            .map(|f| redact::preview(f, 80))
            .collect::<Vec<_>>()
            .join(", "),
        n => format!(
            "{} and {} more",
            files[..3]
                .iter()
                .map(|f| redact::preview(f, 80))
                .collect::<Vec<_>>()
                .join(", "),
            n - 3
        ),
    }
}

/// Is the line's exit status no longer the candidate's (`|| true`, `; echo`,
/// `| tail` without pipefail)? Then the output decides what happened.
fn is_masked(parts: &[Part], i: usize) -> bool {
    let pipefail = parts[..=i].iter().any(|p| p.text.contains("pipefail"));
    parts[i..].iter().any(|p| match p.sep {
        Sep::Or | Sep::Seq | Sep::Background => true,
        Sep::Pipe => !pipefail,
        Sep::And | Sep::End => false,
    })
}

/// Claude's `run_in_background`, VS Code's `isBackground`, Copilot's `mode: async`.
fn in_background(args: &Value) -> bool {
    tools::in_background(args)
}

/// Interpreters whose first operand is the program they run.
const INTERPRETERS: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "python",
    "python3",
    "py",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "rscript",
    "julia",
    "lua",
    "luajit",
    "tclsh",
    "ts-node",
    "tsx",
    "swift",
    "elixir",
    "groovy",
    "java",
    "pwsh",
    "powershell",
    "osascript",
];
/// Options of interpreters that take a value.
const INTERPRETER_VALUED: &[&str] = &["-W", "-X", "-r", "--require", "--import", "--loader", "-I"];

/// Does this simple command run the project's own program: a script or
/// executable inside the goal's folder (it must exist there), a runner of a
/// manifest the project has (`cargo run`, `go run .`, `npm start`, `make`),
/// or a request to a server the goal started?
fn project_run(text: &str, dir: Option<&Path>, ctx: &Context, depth: u8) -> bool {
    let Some(dir) = dir else { return false };
    let words = shell::words(text);
    let prog_words = shell::program_words(&words);
    let Some(first) = prog_words.first() else {
        return false;
    };
    let prog = shell::program(first);
    let args = &prog_words[1..];
    let in_tree = |p: &str| {
        let path = shell::resolve(dir, p);
        shell::inside(&path, ctx.root) && path.is_file()
    };
    let has_file = |names: &[&str]| {
        dir.ancestors()
            .take_while(|d| shell::inside(d, ctx.root))
            .any(|d| names.iter().any(|n| d.join(n).is_file()))
    };
    let operands: Vec<&str> = {
        let mut out = Vec::new();
        let mut skip = false;
        for a in args {
            if skip {
                skip = false;
            } else if INTERPRETER_VALUED.contains(&a.as_str()) {
                skip = true;
            } else if !a.starts_with('-') {
                out.push(a.as_str());
            }
        }
        out
    };
    match prog.as_str() {
        "bash" | "sh" | "zsh" | "dash" | "ksh" if args.iter().any(|a| a == "-c") => {
            let pos = args.iter().position(|a| a == "-c").expect("present");
            depth < 3
                && args.get(pos + 1).is_some_and(|inner| {
                    let parts = shell::split(inner);
                    let (dirs, _) = shell::folders(&parts, dir);
                    parts
                        .iter()
                        .zip(&dirs)
                        .any(|(p, d)| project_run(&p.text, d.as_deref(), ctx, depth + 1))
                })
        }
        "python" | "python3" | "py" | "pypy" | "pypy3" if args.iter().any(|a| a == "-m") => {
            let pos = args.iter().position(|a| a == "-m").expect("present");
            args.get(pos + 1).is_some_and(|module| {
                let rel = module.replace('.', "/");
                in_tree(&format!("{rel}.py")) || in_tree(&format!("{rel}/__main__.py"))
            })
        }
        "go" => {
            args.first().is_some_and(|a| a == "run")
                && (has_file(&["go.mod"]) || operands.iter().skip(1).any(|o| in_tree(o)))
        }
        "cargo" => {
            operands.first().is_some_and(|a| matches!(*a, "run" | "r")) && has_file(&["Cargo.toml"])
        }
        "dotnet" => operands.first() == Some(&"run"),
        "npm" | "pnpm" | "yarn" | "bun" => {
            let script = match operands.first().copied() {
                Some("run" | "run-script") => operands.get(1).copied(),
                Some("start") => Some("start"),
                Some(s) if prog != "npm" => Some(s),
                _ => None,
            };
            match (prog.as_str(), script) {
                ("bun", Some(s)) if in_tree(s) => true,
                (_, Some(s)) => package_script(dir, ctx.root, s),
                _ => false,
            }
        }
        "make" | "gmake" => has_file(&["Makefile", "makefile", "GNUmakefile"]),
        "just" => has_file(&["justfile", "Justfile", ".justfile"]),
        "curl" | "wget" | "http" | "https" | "xh" => {
            ctx.background_runs > 0
                && args.iter().any(|a| {
                    ["localhost", "127.0.0.1", "0.0.0.0", "[::1]"]
                        .iter()
                        .any(|h| a.contains(h))
                })
        }
        p if INTERPRETERS.contains(&p) => {
            let target = match (p, operands.first().copied()) {
                ("deno" | "bun", Some("run")) => operands.get(1).copied(),
                ("java", _) if args.iter().any(|a| a == "-jar") => {
                    let pos = args.iter().position(|a| a == "-jar").expect("present");
                    args.get(pos + 1).map(String::as_str)
                }
                (_, target) => target,
            };
            target.is_some_and(in_tree)
        }
        _ => first.contains('/') && in_tree(first),
    }
}

/// Does the nearest package.json (inside the goal's folder) define `script`?
/// `npm start` also runs `server.js` when no start script is set.
fn package_script(dir: &Path, root: &Path, script: &str) -> bool {
    for d in dir.ancestors().take_while(|d| shell::inside(d, root)) {
        let Ok(text) = std::fs::read_to_string(d.join("package.json")) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<Value>(&text) else {
            return false;
        };
        let defined = json
            .get("scripts")
            .and_then(|s| s.get(script))
            .and_then(Value::as_str)
            .is_some_and(|s| !s.trim().is_empty());
        return defined || (script == "start" && d.join("server.js").is_file());
    }
    false
}

/// Options naming another folder or manifest to run in.
const ELSEWHERE_OPTIONS: &[&str] = &[
    "-C",
    "--prefix",
    "--cwd",
    "--dir",
    "--manifest-path",
    "--project",
    "--rootdir",
    "--root-dir",
    "--workspace-root",
    "-p",
    "--chdir",
];

/// Where a candidate ran when that is not the goal's folder: its folder, a
/// folder option (`-C x`, `--prefix x`), or a path operand that exists outside.
fn outside_root(text: &str, dir: &Path, root: &Path) -> Option<String> {
    if !shell::inside(dir, root) {
        return Some(format!("in {}", dir.display()));
    }
    let words = shell::words(text);
    let prog_words = shell::program_words(&words);
    let mut it = prog_words.iter().skip(1).peekable();
    while let Some(w) = it.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (w.as_str(), None),
        };
        let value = if ELSEWHERE_OPTIONS.contains(&flag) {
            inline.or_else(|| it.peek().map(|v| v.to_string()))
        } else if !w.starts_with('-') && (w.contains('/') || w.starts_with("..")) {
            Some(w.clone())
        } else {
            None
        };
        if let Some(v) = value {
            let path = shell::resolve(dir, &v);
            if !shell::inside(&path, root) && path.exists() {
                return Some(format!("on {}", path.display()));
            }
        }
    }
    None
}

/// Files the reading parts of a line name (for documentation read back).
fn read_operands(
    parts: &[Part],
    steps: &[Step],
    dirs: &[Option<PathBuf>],
    root: &Path,
) -> Vec<String> {
    let mut out = Vec::new();
    for ((part, step), dir) in parts.iter().zip(steps).zip(dirs) {
        let (Step::Inspect, Some(dir)) = (step, dir) else {
            continue;
        };
        for word in shell::words(&part.text).iter().skip(1) {
            if word.starts_with('-') {
                continue;
            }
            if let Some(rel) = relative(&shell::resolve(dir, word), root) {
                if !out.contains(&rel) {
                    out.push(rel);
                }
            }
        }
    }
    out
}

/// `path` relative to `root`, when inside it and an existing file.
fn relative(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    (path.is_file() && !rel.as_os_str().is_empty())
        .then(|| rel.to_string_lossy().replace('\\', "/"))
}

/// The files a tool's arguments name (`path`, `file_path`, `filePath`, in a
/// list of edits too), relative to the goal's folder. `None` when it names none.
pub fn declared_paths(args: &Value, root: &Path) -> Option<Vec<String>> {
    const KEYS: [&str; 5] = ["path", "file_path", "filePath", "filepath", "notebook_path"];
    fn look<'v>(obj: &'v serde_json::Map<String, Value>, found: &mut Vec<&'v str>) {
        for k in KEYS {
            if let Some(p) = obj.get(k).and_then(Value::as_str) {
                found.push(p);
            }
        }
    }
    let mut found: Vec<&str> = Vec::new();
    let obj = args.as_object()?;
    look(obj, &mut found);
    for v in obj.values() {
        if let Value::Array(items) = v {
            for item in items.iter().filter_map(Value::as_object) {
                look(item, &mut found);
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for p in found {
        let path = shell::resolve(root, p);
        if let Ok(rel) = path.strip_prefix(root) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !rel.is_empty() && !out.contains(&rel) {
                out.push(rel);
            }
        }
    }
    Some(out)
}

/// Documentation: prose a reader checks by reading it back.
pub fn is_doc(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    matches!(
        ext,
        Some("md" | "markdown" | "mdx" | "txt" | "rst" | "adoc" | "asciidoc" | "org" | "textile")
    ) || (ext.is_none()
        && [
            "readme",
            "changelog",
            "license",
            "licence",
            "authors",
            "notice",
            "contributing",
        ]
        .contains(&name.as_str()))
}

/// The end of what a run printed, redacted: the last lines, at most `max` characters.
pub fn output_tail(text: &str, max: usize) -> String {
    // Redact a wider window than is kept, so a secret cut by the window's
    // start lies far outside what is kept.
    let mut start = text.len().saturating_sub(8 * 1024);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let redacted = redact::redact(&text[start..]);
    let lines: Vec<&str> = redacted
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut size = 0;
    for line in lines.iter().rev() {
        let n = line.chars().count() + 1;
        if size + n > max && !kept.is_empty() {
            break;
        }
        kept.push(line);
        size += n;
    }
    kept.reverse();
    let joined = kept.join("\n");
    let count = joined.chars().count();
    if count > max {
        let skip = count - max + 1;
        format!("…{}", joined.chars().skip(skip).collect::<String>())
    } else {
        joined
    }
}

#[cfg(test)]
#[path = "evidence_tests.rs"]
mod tests;
