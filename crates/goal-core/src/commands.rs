//! What a shell command line does, read from its words: tests, builds, lints
//! and type checks verify, reads inspect, no-ops do nothing, the rest act.
//! The words belong to the agent, so this is where observation cannot reach
//! (see `evidence`): the tree and the host's report decide wherever they can.

use crate::record::ToolKind;
use crate::shell;

/// Shell commands: tests and builds verify, reads inspect, no-ops do nothing,
/// the rest act.
pub fn classify_command(command: &str) -> ToolKind {
    command_class(command).0
}

/// What one simple command of a pipeline or list does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
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
pub fn command_class(command: &str) -> (ToolKind, bool) {
    command_class_at(command, 0)
}

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
pub fn step(command: &str, depth: u8) -> Step {
    let words = shell::words(command);
    // Assignments, wrappers and their options come before the program.
    let rest = shell::program_words(&words);
    if rest.is_empty() {
        return Step::Noop;
    }
    let prog = shell::program(&rest[0]);
    let args = &rest[1..];
    if let Some(v) = verifier(&prog, &rest[0], args, depth) {
        return v;
    }
    if shell::writes_by_redirect(command) || prog == "tee" {
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
                || sed_writes(a)
        }),
        "awk" | "gawk" => !has(args, &["-i"]) && !args.iter().any(|a| awk_writes(a)),
        "find" => !has(
            args,
            &[
                "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls",
                "-fprint0",
            ],
        ),
        "sort" => !args
            .iter()
            .any(|a| a.starts_with("-o") || a.starts_with("--output")),
        // `uniq in out` writes `out`; `xxd -r` writes bytes back.
        "uniq" => operands(args).len() + args.iter().filter(|a| *a == "-").count() < 2,
        "xxd" => !has(args, &["-r", "-revert"]),
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

/// A sed script that writes a file: the `w` command or the `w` flag of `s`
/// (`sed -n 'w out' in`, `s/a/b/w out`).
fn sed_writes(arg: &str) -> bool {
    !arg.starts_with('-')
        && (arg.starts_with("w ")
            || arg.starts_with('W')
            || ["/w ", ";w ", "}w ", "\nw ", "/W ", ";W "]
                .iter()
                .any(|w| arg.contains(w)))
}

/// An awk program that writes a file or runs a command (`print > "f"`,
/// `print | "cmd"`, `system(…)`).
fn awk_writes(arg: &str) -> bool {
    let squeezed: String = arg.chars().filter(|c| !c.is_whitespace()).collect();
    [">\"", ">>\"", "|\"", "system("]
        .iter()
        .any(|w| squeezed.contains(w))
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
        // A bare `git stash` is `git stash push`: it reverts the work tree.
        "stash" => match more.first() {
            Some(&("list" | "show")) => Step::Inspect,
            _ => Step::Change,
        },
        "branch" | "tag" | "remote" | "reflog" | "worktree" | "config"
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
        verifier(&shell::program(p), p, r, depth)
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
    let steps: Vec<Step> = shell::split(command)
        .iter()
        .map(|p| step(&p.text, depth))
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

#[cfg(test)]
mod tests {
    use super::*;
    use ToolKind::{Action, Inspection, Noop, Verification};

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
            ("git stash", Action),
            ("git stash list", Inspection),
            ("git commit -am wip", Action),
            ("python scripts/migrate.py", Action),
            ("curl -o x.tgz https://example.com/x.tgz", Action),
            ("tee out.txt", Action),
            // Readers that write (review-7 F8: what the words say where the
            // tree is too big to observe).
            ("awk 'BEGIN{print \"exit 3\" > \"greet.sh\"}'", Action),
            ("sed -n 'w greet.sh' /dev/null", Action),
            ("sed 's/a/b/w out.txt' in.txt", Action),
            ("printf 'exit 3' | uniq - greet.sh", Action),
            ("sort -ogreet.sh /dev/null", Action),
            ("xxd -r -p - greet.sh", Action),
            ("find . -name greet.sh -fls greet.sh", Action),
            ("awk '$3 > 100' data.csv", Inspection),
            ("sort -n data.csv", Inspection),
            ("uniq -c data.txt", Inspection),
            ("sed -n '/warn/p' log.txt", Inspection),
        ];
        for (command, want) in table {
            assert_eq!(classify_command(command), *want, "{command:?}");
        }
    }
}
