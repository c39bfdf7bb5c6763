// The verdict patterns of `outcome.rs`, in one place. The build script
// (`build.rs`, which includes this file) compiles each into DFAs ahead of
// time and `automata.rs` loads them: no hook compiles a regular expression
// (compiling these took 1-2 ms of every verification's post-tool hook, a
// fresh process each time). Add a pattern here, and its name in
// `automata::Pattern`, in the same place.
//
// `\b` and `\w` are ASCII (see `ascii_words`): every `\b` here sits beside
// an ASCII word character of the pattern, where an ASCII boundary is found
// wherever a Unicode one is (and beside a non-ASCII letter too), and `\w`
// is only ever optional, so a summary is found at least as often. `\s`,
// `\d` and case folding stay Unicode: "1\u{a0}failed" is a failure.

/// What an interpreter or the shell prints when a program dies.
pub const CRASH: &str = concat!(
    r"Traceback \(most recent call last\)|\bpanicked at\b|Segmentation fault|\(core dumped\)",
    r"|(?i:command not found)|No such file or directory|Unhandled exception",
    r"|Exception in thread|(?m:^\s*(?:Uncaught )?(?:[A-Z]\w*Error|[A-Z]\w*Exception):)",
    r"|(?m:^\s*node:internal)|(?m:^\s*fatal error:)",
);

/// An error line, read only when the exit status cannot be trusted.
pub const ERROR_LINE: &str =
    r"(?m:^\s*(?:error|Error|ERROR|fatal|FATAL)(?:\[\w+\])?:|^\s*FAIL(?:ED)?\b|\bERR!)";

/// A runner saying it ran no tests.
pub const ZERO_TESTS: &str = concat!(
    // node:test (TAP or spec) with nothing run or nothing passed, TAP's empty plan
    r"(?m:^\s*(?:#|ℹ)\s*tests\s+0\s*$)|(?m:^\s*(?:#|ℹ)\s*pass\s+0\s*$)|(?m:^\s*1\.\.0\b)",
    // mocha, jest, vitest, pytest, unittest and bun, rspec, phpunit, dotnet, ctest
    r"|(?m:^\s*0 passing\b)|No tests found|(?m:^\s*Tests:\s+0 total)|No test files found",
    r"|(?m:^\s*Tests:\s+(?:\d+ skipped, )?\d+ (?:skipped|todo), \d+ total)",
    r"|\bcollected 0 items\b|\bno tests ran\b|\bRan 0 tests?\b|\b0 examples, 0 failures",
    r"|No tests executed|No test is available|Total tests: 0\b|No tests were found",
    r"|\bno tests to run\b|(?m:^\s*0 pass\s*$)",
);

/// cargo and deno: one line per test binary.
pub const RUNNING: &str = r"(?m)^running (\d+) tests?\s*$";

/// cargo's result line per binary.
pub const RESULT: &str = r"(?m)^test result: \w+\. (\d+) passed";

/// unittest: how many ran, and how many of them were skipped.
pub const SKIPPED: &str = r"(?s)\bRan (\d+) tests?\b.*\bOK \(skipped=(\d+)\)";

/// go test: one line per package.
pub const GO_PACKAGE: &str = r"(?m)^(?:ok|\?)\s+\S+.*$";

/// The host's closing line with the exit code.
pub const EXIT_CODE: &str =
    r"(?i)\bexit(?:ed)?\s+(?:with\s+)?(?:exit\s+)?(?:code|status)\s*:?\s*(-?\d+)";

/// A runner's summary that says something failed.
pub const FAILURE: &str = concat!(
    // "3 failed", "1 failing", "2 failures", "Tests: 1 failed", "Found 3 errors"
    r"(?i:\b[1-9]\d*\s+(?:tests?\s+)?(?:failed|failing|failures?|errors?)\b)",
    // dotnet "Failed: 1"
    r"|(?i:\bfailed:\s*[1-9]\d*)",
    // cargo "test result: FAILED", pytest "FAILED tests/x.py", unittest "FAILED (failures=1)"
    r"|\bFAILED\b|\bBUILD FAILURE\b",
    // go "--- FAIL:" and "FAIL pkg", jest "FAIL src/a.test.js"
    r"|(?m:^\s*(?:---\s+)?FAIL\b)",
    // node:test "# fail 2" (TAP) or "ℹ fail 2"; bun " 1 fail", a line
    // of its own (not "  3 fail-safe checks")
    r"|(?m:^\s*(?:#|ℹ)\s*fail\s+[1-9]\d*)|(?m:^\s*[1-9]\d*\s+fail\s*$)",
    // TAP "not ok 3 - ..."
    r"|(?m:^\s*not ok\b)",
    r"|npm ERR!|ERR_PNPM_\w*|error Command failed|\bELIFECYCLE\b",
    // rustc and make
    r"|error\[E\d+\]|error: could not compile|(?m:^make(?:\[\d+\])?: \*\*\*)",
    r"|(?i:command not found)",
);

/// Every pattern, in the order of `automata::Pattern`.
pub const PATTERNS: [&str; 9] = [
    CRASH, ERROR_LINE, ZERO_TESTS, RUNNING, RESULT, SKIPPED, GO_PACKAGE, EXIT_CODE, FAILURE,
];

/// The pattern as compiled: `\b` and `\w` ASCII.
pub fn ascii_words(pattern: &str) -> String {
    pattern
        .replace(r"\b", r"(?-u:\b)")
        .replace(r"\w", r"(?-u:\w)")
}
