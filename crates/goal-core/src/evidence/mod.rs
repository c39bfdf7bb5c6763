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
use crate::hooks::ToolCall;
use crate::observe::Diff;
use crate::outcome::{self, Report};
use crate::record::ToolKind;
use crate::redact;
use crate::shell::{self, Part, Sep};
use crate::tools;

mod program;
use program::{project_run, Line};

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
                Observed::Tree(diff) => {
                    judged.files = diff.paths().cloned().collect();
                    // An editor that wrote a file changed it, even one an
                    // earlier run left behind (outputs are not compared).
                    if !failed {
                        for p in &named {
                            if !judged.files.contains(p) && ctx.root.join(p).is_file() {
                                judged.files.push(p.clone());
                            }
                        }
                    }
                }
                Observed::Words if !failed => {
                    judged.files = named;
                    // An editor that named no file we could read still wrote one.
                    judged.changes = true;
                }
                Observed::Words => {}
            }
            if !failed {
                judged.files.extend(elsewhere_in_repo(&call.args, ctx.root));
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
    let bodies = shell::heredoc_bodies(command);
    let mut line = Line {
        bodies: &bodies,
        background: false,
    };
    let mut candidates: Vec<Option<Candidate>> = Vec::with_capacity(parts.len());
    for ((part, step), dir) in parts.iter().zip(&steps).zip(&dirs) {
        let candidate = if program::never_runs(&part.text) {
            None
        } else if *step == Step::Verify {
            Some(Candidate::Check)
        } else if project_run(&part.text, dir.as_deref(), ctx, &line, 0) {
            Some(Candidate::Run)
        } else {
            None
        };
        // `node server.js & sleep 1; curl localhost:3000` requests the server
        // started just before it.
        line.background |= candidate == Some(Candidate::Run) && part.sep == Sep::Background;
        candidates.push(candidate);
    }
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
            // Files the line's other commands name as they change the tree,
            // before the last candidate and after it.
            let named = |range: std::ops::Range<usize>| -> Vec<String> {
                diff.paths()
                    .filter(|p| {
                        range.clone().any(|j| {
                            candidates[j].is_none()
                                && steps[j] == Step::Change
                                && names(&parts[j].text, dirs[j].as_deref(), ctx.root, p)
                        })
                    })
                    .cloned()
                    .collect()
            };
            let (before, after) = match last {
                Some(i) => (named(0..i), named(i + 1..parts.len())),
                None => (Vec::new(), Vec::new()),
            };
            // The run stands when all that changed is what the line set up
            // before it, or what the run itself left: files it created, data
            // it rewrote (its own data file, a lock file, a generated page).
            let left_by_run = |p: &String| {
                !after.contains(p)
                    && (before.contains(p)
                        || diff.added.contains(p)
                        || (diff.modified.contains(p) && is_data(p)))
            };
            match last {
                Some(i) if !background(i) && diff.paths().all(left_by_run) => {
                    judged.outputs = diff
                        .added
                        .iter()
                        .chain(&diff.modified)
                        .filter(|p| !before.contains(p))
                        .cloned()
                        .collect();
                    judged.files = before;
                }
                _ => {
                    judged.kind = Some(ToolKind::Action);
                    judged.changes = true;
                    judged.files = diff.paths().cloned().collect();
                    if last.is_some() {
                        let unexplained: Vec<String> = judged
                            .files
                            .iter()
                            .filter(|p| !left_by_run(p))
                            .cloned()
                            .collect();
                        judged.attempt = Some(match after.is_empty() {
                            true => format!(
                                "it changed {} as it ran, so it does not show the work as it now is (a run that rewrites the project's source does not verify it): run a command that only reads them, such as the tests or the program again",
                                list(&unexplained)
                            ),
                            false => format!(
                                "the line changed {} after it ran, so it does not show the work as it now is: run it again now that nothing changes",
                                list(&after)
                            ),
                        });
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
        if let Some(place) = ran_elsewhere(&parts, &dirs, ctx, &line) {
            judged.attempt = Some(format!(
                "it ran {place}, outside the goal's folder {}: a run there does not verify the work here",
                ctx.root.display()
            ));
        } else if parts.iter().any(|p| program::never_runs(&p.text)) {
            judged.attempt = Some(
                "it printed a version or help, or only checked syntax or listed what would run: it does not run the program or its tests".into(),
            );
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
        Some(dir) => outside_root(&parts[i].text, dir, ctx.root, candidate),
    };
    if let Some(place) = outside {
        judged.kind = Some(ToolKind::Other);
        judged.attempt = Some(format!(
            "it ran {place}, outside the goal's folder {}: run it there",
            ctx.root.display()
        ));
        return judged;
    }
    if let Some(taker) = status_taken(&parts[i].text)
        .or_else(|| program::status_taken_inside(&parts[i].text, dirs[i].as_deref(), ctx, &line))
    {
        judged.kind = Some(ToolKind::Other);
        judged.attempt = Some(format!(
            "its exit status was taken by `{taker}`, so nothing shows whether it passed: run it on its own"
        ));
        return judged;
    }
    let masked = is_masked(&parts, i)
        || program::masked_inside(&parts[i].text, dirs[i].as_deref(), ctx, &line);
    let verdict = match candidate {
        Candidate::Check => outcome::judge_check(report, masked),
        Candidate::Run if timed_out(&parts[i].text, report) => Ok(()),
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
            None if masked && !outcome::passing_summary(&report.text) => {
                judged.kind = Some(ToolKind::Other);
                judged.attempt = Some(format!(
                    "its exit status was hidden ({}) and its output shows no passing summary: run it so its own exit status shows (without the pipe, or with `set -o pipefail`)",
                    masker(&parts, i)
                ));
                return judged;
            }
            None => passed("check"),
        },
        Ok(()) => match erased(&parts, i)
            .or_else(|| program::erased_inside(&parts[i].text, dirs[i].as_deref(), ctx, &line))
        {
            // A failure the output shows stands; otherwise nothing shows
            // whether it passed.
            Some(eraser) => {
                judged.kind = Some(ToolKind::Other);
                judged.attempt = Some(format!(
                    "its exit status was thrown away (`{eraser}`), so nothing shows whether it passed: run it on its own"
                ));
                return judged;
            }
            None => passed("run"),
        },
    });
    judged
}

/// A program stopped by `timeout` (exit code 124) that printed no crash: it
/// started and kept running (a server), which is what such a run shows.
fn timed_out(text: &str, report: &Report) -> bool {
    let words = shell::words(text);
    let stopped = words.first().is_some_and(|w| w == "timeout");
    let code = report
        .exit_code
        .or_else(|| outcome::exit_code_in(&report.text));
    stopped
        && code == Some(124)
        && !report.interrupted
        && outcome::crash_marker(&report.text).is_none()
}

/// `if`, `while`, `until` or `!` before a command take its exit status: the
/// line's no longer says whether it passed.
fn status_taken(text: &str) -> Option<&'static str> {
    let words = shell::words(text);
    let prog = shell::program_words(&words).first()?;
    for w in &words {
        if std::ptr::eq(w, prog) {
            break;
        }
        for taker in ["!", "if", "elif", "while", "until"] {
            if w == taker {
                return Some(taker);
            }
        }
    }
    None
}

/// `cmd; true`, `cmd || true`, `cmd; exit 0`: the commands after the
/// candidate only erase its exit status (output stays the program's own).
fn erased(parts: &[Part], i: usize) -> Option<String> {
    if !matches!(parts[i].sep, Sep::Seq | Sep::Or) {
        return None;
    }
    let rest = &parts[i + 1..];
    let erasers = |p: &Part| matches!(p.text.as_str(), "true" | ":" | "exit 0" | "exit");
    (!rest.is_empty() && rest.iter().all(erasers)).then(|| {
        let op = if parts[i].sep == Sep::Or { "||" } else { ";" };
        format!("{op} {}", rest[0].text)
    })
}

/// The operator that hid a candidate's exit status, for messages.
fn masker(parts: &[Part], i: usize) -> &'static str {
    match parts[i..].iter().map(|p| p.sep).find(|s| *s != Sep::And) {
        Some(Sep::Pipe) => "a pipe without pipefail",
        Some(Sep::Or) => "`||`",
        Some(Sep::Seq) => "a command after `;`",
        _ => "inside `sh -c`",
    }
}

/// Does a changing command name `path` (relative to the root) as one of its words?
fn names(text: &str, dir: Option<&Path>, root: &Path, path: &str) -> bool {
    let Some(dir) = dir else { return false };
    let want = root.join(path);
    shell::words(text).iter().any(|w| {
        let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || "<>&|".contains(c));
        !w.is_empty() && shell::resolve(dir, w) == want
    })
}

/// Data a program writes as it runs, not its source: its own data file, a
/// lock file, a generated page or report. A run that rewrites these still
/// shows the program working.
fn is_data(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    const LOCKS: &[&str] = &[
        "cargo.lock",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "uv.lock",
        "go.sum",
        "gemfile.lock",
        "composer.lock",
        "pipfile.lock",
        "flake.lock",
        "bun.lockb",
    ];
    const MANIFESTS: &[&str] = &[
        "package.json",
        "tsconfig.json",
        "jsconfig.json",
        "deno.json",
        "composer.json",
        "cmakelists.txt",
    ];
    if LOCKS.contains(&name.as_str()) {
        return true;
    }
    if MANIFESTS.contains(&name.as_str())
        || name.starts_with("requirements")
        || name.starts_with("constraints")
    {
        return false;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    matches!(
        ext,
        Some(
            "json"
                | "jsonl"
                | "ndjson"
                | "csv"
                | "tsv"
                | "txt"
                | "log"
                | "db"
                | "sqlite"
                | "sqlite3"
                | "html"
                | "htm"
                | "xml"
                | "dat"
                | "out"
                | "pyc"
        )
    )
}

/// A program of the line that would be a project run in its own folder,
/// run outside the goal's: where it ran, for the refusal.
fn ran_elsewhere(
    parts: &[Part],
    dirs: &[Option<PathBuf>],
    ctx: &Context,
    line: &Line,
) -> Option<String> {
    parts.iter().zip(dirs).rev().find_map(|(part, dir)| {
        let dir = dir.as_deref()?;
        let anywhere = Context {
            root: Path::new("/"),
            ..ctx.clone()
        };
        if program::never_runs(&part.text) {
            return None;
        }
        let inside = shell::inside(dir, ctx.root);
        let runs = (!inside && commands::step(&part.text, 0) == Step::Verify)
            || project_run(&part.text, Some(dir), &anywhere, line, 0);
        if !runs {
            return None;
        }
        match inside {
            false => Some(format!("{:?} in {}", part.text, dir.display())),
            true => Some(format!("{:?}, a program outside it", part.text)),
        }
    })
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
fn outside_root(text: &str, dir: &Path, root: &Path, candidate: Candidate) -> Option<String> {
    if !shell::inside(dir, root) {
        return Some(format!("in {}", dir.display()));
    }
    let words = shell::without_redirects(&shell::words(text));
    let prog_words = shell::program_words(&words);
    let mut it = prog_words.iter().skip(1).peekable();
    while let Some(w) = it.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (w.as_str(), None),
        };
        let value = if ELSEWHERE_OPTIONS.contains(&flag) {
            inline.or_else(|| it.peek().map(|v| v.to_string()))
        } else if candidate == Candidate::Check
            && !w.starts_with('-')
            && (w.contains('/') || w.starts_with(".."))
        {
            // A test or source path elsewhere; a program's operands are its
            // input (`python3 main.py /tmp/data.csv` still runs the program here).
            Some(w.clone())
        } else {
            None
        };
        if let Some(v) = value {
            let path = shell::resolve(dir, &v);
            if !shell::inside(&path, root) && path.exists() && !path.starts_with("/dev") {
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

/// Files an editor names outside the goal's folder but inside the same
/// repository (a session started in `app/` editing `lib/util.py`), as
/// paths from the goal's folder: the agent changed the project there too.
fn elsewhere_in_repo(args: &Value, root: &Path) -> Vec<String> {
    let Some(top) = root.ancestors().skip(1).find(|d| d.join(".git").exists()) else {
        return Vec::new();
    };
    let Some(all) = declared_paths(args, Path::new("/")) else {
        return Vec::new();
    };
    all.iter()
        .map(|p| Path::new("/").join(p))
        .filter(|p| shell::inside(p, top) && !shell::inside(p, root))
        .map(|p| {
            let up = root.strip_prefix(top).map_or(0, |r| r.components().count());
            let rel = p
                .strip_prefix(top)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            format!("{}{rel}", "../".repeat(up))
        })
        .collect()
}

/// Options that run only some of a suite's tests.
const FILTERS: &[&str] = &[
    "-k",
    "-t",
    "-g",
    "-run",
    "--grep",
    "--filter",
    "--test-name-pattern",
    "--testNamePattern",
    "--testPathPattern",
    "--only",
    "--exact",
    "--lf",
    "--last-failed",
];

/// The test filter of a check's line (`--test-name-pattern=good`, `-k x`,
/// `tests/a.py::one`, a name after `cargo test`), when it has one.
fn filter_of(command: &str) -> Option<(String, String)> {
    let part = shell::split(command)
        .into_iter()
        .find(|p| commands::step(&p.text, 0) == Step::Verify)?;
    let words = shell::without_redirects(&shell::words(&part.text));
    let prog = shell::program_words(&words);
    let runner = shell::program(prog.first()?);
    let args = &prog[1..];
    let flag = args.iter().find(|a| {
        FILTERS
            .iter()
            .any(|f| a == f || a.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
            || a.contains("::")
    });
    let cargo_name = (runner == "cargo")
        .then(|| {
            let mut ops = args
                .iter()
                .take_while(|a| *a != "--")
                .filter(|a| !a.starts_with('-'));
            (ops.next().is_some_and(|t| t == "test" || t == "t"))
                .then(|| ops.next())
                .flatten()
        })
        .flatten();
    flag.or(cargo_name).map(|f| (runner, f.clone()))
}

/// A passing check that ran only part of the suite whose full run failed
/// before it (same runner, no filter then): why it does not clear that
/// failure. A narrower run proves the tests it kept, not the rest.
pub fn narrower(failed_command: &str, command: &str) -> Option<String> {
    let (runner, filter) = filter_of(command)?;
    if filter_of(failed_command).is_some() {
        return None;
    }
    let failed_runner = shell::split(failed_command).into_iter().find_map(|p| {
        (commands::step(&p.text, 0) == Step::Verify).then(|| {
            let words = shell::without_redirects(&shell::words(&p.text));
            shell::program_words(&words)
                .first()
                .map(|w| shell::program(w))
        })?
    })?;
    (failed_runner == runner).then(|| {
        format!(
            "it ran only some of the tests ({}) after the full run failed, which it does not clear: run the whole suite until it passes",
            redact::preview(&filter, 60)
        )
    })
}

/// Documentation: prose a reader checks by reading it back.
pub fn is_doc(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    // Build and dependency files that end in `.txt` are not prose.
    let built_from = name == "cmakelists.txt"
        || name.starts_with("requirements")
        || name.starts_with("constraints")
        || name == "robots.txt";
    (!built_from
        && matches!(
            ext,
            Some(
                "md" | "markdown" | "mdx" | "txt" | "rst" | "adoc" | "asciidoc" | "org" | "textile"
            )
        ))
        || (ext.is_none()
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
mod tests;
