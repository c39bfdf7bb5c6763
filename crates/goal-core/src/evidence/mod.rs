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
use crate::shell::{self, Sep};
use crate::tools;
use crate::tools::ToolCall;

mod program;
mod scope;
mod verdict;

use program::{project_program, Line};
use scope::{elsewhere_in_repo, is_data, names, outside_root, ran_elsewhere, read_operands};
pub use verdict::narrower;
use verdict::{erased, is_masked, masker, status_taken, timed_out};

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
    /// Files the goal created (relative to the root).
    pub created: &'a [String],
    /// Files other than documentation the goal changed (relative to the root).
    pub changed: &'a [String],
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
    /// Of `files`, those the call created.
    pub created: Vec<String>,
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
                    judged.created = diff.added.clone();
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
                judged.created = diff.added.clone();
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
    // The file each run of the project's program runs, when it is one.
    let mut programs: Vec<Option<PathBuf>> = Vec::with_capacity(parts.len());
    for ((part, step), dir) in parts.iter().zip(&steps).zip(&dirs) {
        let mut program = None;
        let candidate = if program::never_runs(&part.text) {
            None
        } else if *step == Step::Verify {
            Some(Candidate::Check)
        } else if let Some(file) = project_program(&part.text, dir.as_deref(), ctx, &line, 0) {
            program = file;
            Some(Candidate::Run)
        } else {
            None
        };
        programs.push(program);
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
                    judged.created = diff
                        .added
                        .iter()
                        .filter(|p| before.contains(p))
                        .cloned()
                        .collect();
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
                    judged.created = diff.added.clone();
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
    if candidate == Candidate::Check {
        if let Some(body) = program::idle_test_script(&parts[i].text, dirs[i].as_deref(), ctx) {
            judged.kind = Some(ToolKind::Other);
            judged.attempt = Some(format!(
                "its script `{}` only prints or exits, so it runs no tests: make the test script run the project's tests",
                redact::preview(&body, 80)
            ));
            return judged;
        }
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
            None => match programs[i].as_deref().and_then(|file| {
                program::unrelated_new_program(file, ctx, &judged.created, &judged.files)
            }) {
                Some(why) => {
                    judged.kind = Some(ToolKind::Other);
                    judged.attempt = Some(why);
                    return judged;
                }
                None => passed("run"),
            },
        },
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

/// Claude's `run_in_background`, VS Code's `isBackground`, Copilot's `mode: async`.
fn in_background(args: &Value) -> bool {
    tools::in_background(args)
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
