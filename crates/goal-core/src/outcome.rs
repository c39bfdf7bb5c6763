//! Did a verification pass? Read from what the host reports after the call:
//! its result type, the exit code (a field, or the line the host appends to
//! the output), an interruption, and the runner's own summary in the output.
//! Only the verdict is kept; the output never reaches the record.

mod automata;
#[cfg(test)]
mod patterns;

use automata::Pattern;

/// What a host reported about one finished call, in neutral terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// `success`, `failure`, ... as the host says it; empty when it says nothing.
    pub result_type: String,
    /// The output the model saw (stdout and stderr, or the tool's text).
    pub text: String,
    /// An exit code the host gave as a field.
    pub exit_code: Option<i64>,
    /// The user or the host interrupted the call.
    pub interrupted: bool,
}

impl Report {
    /// A report that says only the result type.
    pub fn of(result_type: &str) -> Report {
        Report {
            result_type: result_type.to_string(),
            ..Report::default()
        }
    }
}

/// `Ok(())` when the verification passed, else why it failed, in a few words.
pub fn judge(report: &Report) -> Result<(), String> {
    if report.interrupted {
        return Err("interrupted".into());
    }
    let kind = report.result_type.trim().to_ascii_lowercase();
    if FAILED_RESULTS.contains(&kind.as_str()) {
        return Err(format!("the host reported {kind}"));
    }
    let code = report.exit_code.or_else(|| exit_code_in(&report.text));
    if let Some(code) = code.filter(|c| *c != 0) {
        return Err(format!("exit code {code}"));
    }
    if let Some(summary) = failure_summary(&report.text) {
        return Err(summary);
    }
    Ok(())
}

/// A check (tests, build, lint, type check): [`judge`], and when the line's
/// exit status is not the check's (`|| true`, `| tail`), an error the output
/// shows.
pub fn judge_check(report: &Report, masked: bool) -> Result<(), String> {
    judge(report)?;
    match masked {
        true => error_marker(&report.text).map_or(Ok(()), Err),
        false => Ok(()),
    }
}

/// A run of the project's own program: the host's result and exit status
/// decide, and a crash it printed (a traceback, a panic, a missing command).
/// A runner's summary words are not read: a program may well print "1
/// failed" as its honest output. When the exit status is masked, any error
/// line counts.
pub fn judge_run(report: &Report, masked: bool) -> Result<(), String> {
    if report.interrupted {
        return Err("interrupted".into());
    }
    let kind = report.result_type.trim().to_ascii_lowercase();
    if FAILED_RESULTS.contains(&kind.as_str()) {
        return Err(format!("the host reported {kind}"));
    }
    let code = report.exit_code.or_else(|| exit_code_in(&report.text));
    if let Some(code) = code.filter(|c| *c != 0) {
        return Err(format!("exit code {code}"));
    }
    if let Some(crash) = crash_marker(&report.text) {
        return Err(crash);
    }
    match masked {
        true => error_marker(&report.text).map_or(Ok(()), Err),
        false => Ok(()),
    }
}

/// What an interpreter or the shell prints when a program dies.
pub fn crash_marker(text: &str) -> Option<String> {
    automata::get(Pattern::Crash)
        .find(text)
        .map(|m| says(&text[m]))
}

/// "the output says ..." with the words found, briefly.
fn says(found: &str) -> String {
    format!(
        "the output says {:?}",
        crate::redact::truncate(found.trim(), 40)
    )
}

/// An error line, read only when the exit status cannot be trusted.
fn error_marker(text: &str) -> Option<String> {
    crash_marker(text)
        .or_else(|| failure_summary(text))
        .or_else(|| {
            automata::get(Pattern::ErrorLine)
                .find(text)
                .map(|m| says(&text[m]))
        })
}

/// A run that executed no tests (none matched, all skipped or filtered
/// out): the runner's own words for it, quoted.
pub fn zero_tests(text: &str) -> Option<String> {
    if let Some(m) = automata::get(Pattern::ZeroTests).find(text) {
        return Some(format!("{:?}", crate::redact::truncate(text[m].trim(), 40)));
    }
    // cargo and deno print "running N tests" per binary and a result line each.
    // The count is what follows "running " up to its space.
    let counts: Vec<u64> = automata::get(Pattern::Running)
        .find_iter(text)
        .filter_map(|m| text[m]["running ".len()..].split(' ').next()?.parse().ok())
        .collect();
    if !counts.is_empty() && counts.iter().all(|n| *n == 0) {
        return Some("\"running 0 tests\"".into());
    }
    // "test result: ok. N passed": the count is the word before " passed".
    let passed: Vec<u64> = automata::get(Pattern::Result)
        .find_iter(text)
        .filter_map(|m| {
            let head = text[m].strip_suffix(" passed")?;
            head.rsplit(' ').next()?.parse().ok()
        })
        .collect();
    if !passed.is_empty() && passed.iter().all(|n| *n == 0) {
        return Some("\"0 passed\"".into());
    }
    // unittest: every test it ran was skipped ("Ran N tests ... OK (skipped=N)").
    if let Some(m) = automata::get(Pattern::Skipped).find(text) {
        let found = &text[m];
        let ran = found["Ran ".len()..].split(' ').next().unwrap_or_default();
        let skipped = found
            .strip_suffix(')')
            .and_then(|f| f.rsplit_once('='))
            .map_or("", |(_, n)| n);
        if ran == skipped {
            return Some(format!("\"Ran {ran} tests ... OK (skipped={skipped})\""));
        }
    }
    let packages: Vec<&str> = automata::get(Pattern::GoPackage)
        .find_iter(text)
        .map(|m| &text[m])
        .collect();
    if !packages.is_empty() && packages.iter().all(|l| l.contains("[no test files]")) {
        return Some("\"[no test files]\"".into());
    }
    None
}

/// Result types that mean the call failed.
const FAILED_RESULTS: [&str; 9] = [
    "failure",
    "failed",
    "error",
    "rejected",
    "denied",
    "timeout",
    "cancelled",
    "canceled",
    "interrupted",
];

/// The exit code the closing lines of the output state: Copilot CLI appends
/// `<shellId: 0 completed with exit code 1>`, Claude Code's failure reads
/// `Exit code 1`, VS Code's terminal `exited with code 1`, Go `exit status 1`.
/// Only the last two lines are read, so a test named "exits with exit code 1"
/// in the middle of a passing run is not taken for the host's verdict.
pub fn exit_code_in(text: &str) -> Option<i64> {
    let mut last: Vec<&str> = text
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(2)
        .collect();
    last.reverse();
    let tail = last.join("\n");
    // The code ends the last match: what follows its last space, colon or
    // letter ("code", "status"; digits are none of these).
    let m = automata::get(Pattern::ExitCode).find_iter(&tail).last()?;
    let found = &tail[m];
    let start = found
        .char_indices()
        .rfind(|(_, c)| c.is_whitespace() || *c == ':' || c.is_alphabetic())
        .map_or(0, |(i, c)| i + c.len_utf8());
    found[start..].parse().ok()
}

/// A runner's summary that says something failed, quoted briefly.
pub fn failure_summary(text: &str) -> Option<String> {
    let pattern = automata::get(Pattern::Failure);
    // A passing test's own line ("✓ reports 2 errors") is not a summary.
    let passed_line = |line: &str| {
        let t = line.trim_start();
        ["✓", "✔", "√", "ok ", "PASS", "[PASS]"]
            .iter()
            .any(|p| t.starts_with(p))
            || t.trim_end().ends_with("... ok")
    };
    text.lines()
        .filter(|line| !passed_line(line))
        .find_map(|line| pattern.find(line).map(|m| says(&line[m])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Report {
        Report {
            result_type: "success".into(),
            text: t.into(),
            ..Report::default()
        }
    }

    #[test]
    fn the_host_result_type_and_interruption_decide_first() {
        assert!(judge(&Report::of("success")).is_ok());
        assert!(judge(&Report::of("")).is_ok(), "no word is no failure");
        assert!(judge(&Report::of("failure")).is_err());
        assert!(judge(&Report::of("rejected")).is_err());
        let stopped = Report {
            interrupted: true,
            ..Report::of("success")
        };
        assert_eq!(judge(&stopped), Err("interrupted".into()));
    }

    #[test]
    fn exit_codes_come_from_fields_or_the_hosts_closing_line() {
        let field = Report {
            exit_code: Some(2),
            ..Report::of("success")
        };
        assert_eq!(judge(&field), Err("exit code 2".into()));
        for (out, code) in [
            ("ok\n<shellId: 0 completed with exit code 0>", Some(0)),
            ("boom\n<shellId: 3 completed with exit code 1>", Some(1)),
            ("Exit code 101\nerror: test failed", Some(101)),
            ("Command exited with code 2", Some(2)),
            ("FAIL\nexit status 1", Some(1)),
            ("all good", None),
        ] {
            assert_eq!(exit_code_in(out), code, "{out}");
        }
        // The host's closing line decides, not a mention earlier in the output.
        assert_eq!(
            exit_code_in("test prints exit code 3\n<exited with exit code 0>"),
            Some(0)
        );
        assert_eq!(
            exit_code_in("ok 1 - exits with exit code 1 on bad input\nok 2 - greets\n# fail 0"),
            None
        );
    }

    #[test]
    fn runner_summaries_that_report_failures_fail() {
        for out in [
            "===== 3 failed, 10 passed in 1.2s =====",
            "Tests:       1 failed, 4 passed, 5 total",
            "test result: FAILED. 4 passed; 1 failed; 0 ignored",
            "  2 passing (5ms)\n  1 failing",
            "# tests 4\n# pass 3\n# fail 1",
            "ℹ tests 4\nℹ pass 3\nℹ fail 1",
            "not ok 2 - greets twice",
            "npm ERR! Test failed.  See above for more details.",
            "--- FAIL: TestGreet (0.00s)\nFAIL\texample.com/greet\t0.01s",
            "Found 3 errors in 2 files.",
            "error[E0308]: mismatched types",
            "make: *** [Makefile:3: test] Error 1",
            "FAILED (failures=1)",
            "Failed!  - Failed:     1, Passed:     9",
            "bash: pytest: command not found",
            // bun test
            " 4 pass\n 1 fail\nRan 5 tests across 1 files. [12.00ms]",
            // Unicode spacing and digits count as they did before the word
            // boundaries became ASCII.
            "Tests  1\u{a0}failed | 2 passed",
            "Failed:\u{a0}1",
            "\u{3000}FAIL src/a.test.js",
            "1\u{663} failed",
            "1\u{ff11} failed",
            "ERR_PNPM_\u{e9}",
        ] {
            assert!(judge(&text(out)).is_err(), "{out}");
        }
    }

    #[test]
    fn runs_of_zero_tests_are_named() {
        for out in [
            // node 20 with a --test-name-pattern that matches nothing
            "1..1\n# tests 1\n# suites 0\n# pass 0\n# fail 0\n# cancelled 0\n# skipped 1",
            "ℹ tests 0\nℹ pass 0",
            "\n  0 passing (2ms)\n  3 pending",
            "Tests:       2 skipped, 2 total",
            "No tests found, exiting with code 0",
            "collected 0 items\n\n===== no tests ran in 0.01s =====",
            "===== 3 deselected in 0.01s =====\nno tests ran",
            "\nRan 0 tests in 0.000s\n\nOK",
            "ss\nRan 2 tests in 0.001s\n\nOK (skipped=2)",
            "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored",
            "running 3 tests\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out",
            "?   \texample.com/greet\t[no test files]",
            "ok  \texample.com/greet\t0.01s [no tests to run]",
        ] {
            assert!(zero_tests(out).is_some(), "{out}");
        }
        for out in [
            "# tests 3\n# pass 3\n# fail 0",
            "ℹ tests 3\nℹ pass 3",
            "  2 passing (5ms)",
            "Tests:       1 skipped, 4 passed, 5 total",
            "===== 10 passed in 1.2s =====",
            "Ran 3 tests in 0.01s\n\nOK (skipped=1)",
            "running 0 tests\nrunning 4 tests\ntest result: ok. 4 passed; 0 failed",
            "ok  \texample.com/greet\t0.01s",
            "hello\nhello",
        ] {
            assert_eq!(zero_tests(out), None, "{out}");
        }
    }

    #[test]
    fn passing_summaries_pass() {
        for out in [
            "===== 10 passed in 1.2s =====",
            "test result: ok. 5 passed; 0 failed; 0 ignored",
            "Tests:       5 passed, 5 total",
            "# tests 4\n# pass 4\n# fail 0",
            "ℹ fail 0",
            "ok  \texample.com/greet\t0.01s",
            "Found 0 errors.",
            "hello\nhello\n<shellId: 0 completed with exit code 0>",
            "the latest build of tests/failed_login.rs is fine",
            "  ✓ reports 2 errors for bad input (3 ms)\nTests: 4 passed, 4 total",
            "ok 3 - prints FAILED when the input is empty\n# fail 0",
            "test parser::counts_2_errors ... ok\ntest result: ok. 1 passed; 0 failed",
            // bun's count is a line of its own: a count of something else
            // that starts with "fail" is not one.
            " 5 pass\n 0 fail\n 9 expect() calls",
            "  3 fail-safe checks passed\n 3 pass\n 0 fail",
            "  2 fail-over tests: all green",
        ] {
            assert!(judge(&text(out)).is_ok(), "{out}");
        }
    }
}
