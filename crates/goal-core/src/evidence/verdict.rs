//! What a line lets a run show: whether its exit status reaches the host
//! (a pipe, `|| true`, `if`, `!`), a server stopped by `timeout`, and a
//! filtered run that cannot clear a full run's failure.

use crate::commands::{self, Step};
use crate::outcome::{self, Report};
use crate::redact;
use crate::shell::{self, Part, Sep};

/// Is the line's exit status no longer the candidate's (`|| true`, `; echo`,
/// `| tail` without pipefail)? Then the output decides what happened.
pub(super) fn is_masked(parts: &[Part], i: usize) -> bool {
    let pipefail = parts[..=i].iter().any(|p| p.text.contains("pipefail"));
    parts[i..].iter().any(|p| match p.sep {
        Sep::Or | Sep::Seq | Sep::Background => true,
        Sep::Pipe => !pipefail,
        Sep::And | Sep::End => false,
    })
}

/// `cmd; true`, `cmd || true`, `cmd; exit 0`: the commands after the
/// candidate only erase its exit status (output stays the program's own).
pub(super) fn erased(parts: &[Part], i: usize) -> Option<String> {
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
pub(super) fn masker(parts: &[Part], i: usize) -> &'static str {
    match parts[i..].iter().map(|p| p.sep).find(|s| *s != Sep::And) {
        Some(Sep::Pipe) => "a pipe without pipefail",
        Some(Sep::Or) => "`||`",
        Some(Sep::Seq) => "a command after `;`",
        _ => "inside `sh -c`",
    }
}

/// `if`, `while`, `until` or `!` before a command take its exit status: the
/// line's no longer says whether it passed.
pub(super) fn status_taken(text: &str) -> Option<&'static str> {
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

/// A program stopped by `timeout` (exit code 124) that printed no crash: it
/// started and kept running (a server), which is what such a run shows.
pub(super) fn timed_out(text: &str, report: &Report) -> bool {
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

/// Options that run only some of a suite's tests.
pub(super) const FILTERS: &[&str] = &[
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
pub(super) fn filter_of(command: &str) -> Option<(String, String)> {
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
