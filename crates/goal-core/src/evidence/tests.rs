//! Unit tests of `evidence::judge`: one call, its report and what the tree
//! showed. The flows through every host's hooks are in tests/evidence_flows.rs.

use super::*;
use crate::testing::TempDir;
use serde_json::json;

fn bash(command: &str) -> ToolCall {
    ToolCall {
        name: "bash".into(),
        args: json!({ "command": command }),
    }
}

fn ok(text: &str) -> Report {
    Report {
        result_type: "success".into(),
        text: format!("{text}\n<shellId: 0 completed with exit code 0>"),
        ..Report::default()
    }
}

fn quiet() -> Observed {
    Observed::Tree(Diff::default())
}

fn judge_in(dir: &TempDir, call: &ToolCall, report: &Report, observed: &Observed) -> Judged {
    let ctx = Context {
        root: dir.path(),
        start: dir.path().to_path_buf(),
        background_runs: 0,
        created: &[],
        changed: &[],
    };
    judge(call, report, observed, &ctx)
}

fn project() -> TempDir {
    let dir = TempDir::new("evidence");
    dir.write("greet.sh", "echo hello\n");
    dir.write("main.py", "print(1)\n");
    dir.write("pkg/__main__.py", "print(1)\n");
    dir.write(
        "package.json",
        r#"{"scripts": {"start": "node server.js", "dev": "vite"}}"#,
    );
    dir.write("Makefile", "all:\n\techo x\n");
    dir
}

#[test]
fn running_the_projects_own_program_verifies_when_nothing_changed() {
    let dir = project();
    for command in [
        "bash greet.sh",
        "sh ./greet.sh",
        "./greet.sh",
        "python3 main.py",
        "python -m pkg",
        "npm start",
        "npm run dev",
        "yarn dev",
        "cd . && bash greet.sh",
        "bash -c 'bash greet.sh'",
        "RUST_LOG=1 time bash greet.sh",
    ] {
        let j = judge_in(&dir, &bash(command), &ok("hello"), &quiet());
        assert_eq!(j.kind, Some(ToolKind::Verification), "{command}: {j:?}");
        assert_eq!(
            j.run.as_ref().map(|r| (r.passed, r.kind)),
            Some((true, "run")),
            "{command}"
        );
    }
}

#[test]
fn what_is_not_the_projects_program_is_not_a_run() {
    let dir = project();
    for command in [
        "bash missing.sh",
        "bash /etc/profile",
        "python3 -c 'print(1)'",
        "npm run nope",
        "cp greet.sh x.sh",
        "echo hello",
        "cat greet.sh",
        "curl http://localhost:3000/",
    ] {
        let j = judge_in(&dir, &bash(command), &ok("hello"), &quiet());
        assert!(j.run.is_none(), "{command}: {j:?}");
    }
}

#[test]
fn a_request_to_a_server_the_goal_started_exercises_it() {
    let dir = project();
    let started = judge_in(&dir, &bash("npm start &"), &ok(""), &quiet());
    assert!(
        started.started_server && started.run.is_none(),
        "{started:?}"
    );
    let claude_bg = ToolCall {
        name: "Bash".into(),
        args: json!({"command": "node server.js", "run_in_background": true}),
    };
    dir.write("server.js", "1");
    assert!(judge_in(&dir, &claude_bg, &ok(""), &quiet()).started_server);
    let ctx = Context {
        root: dir.path(),
        start: dir.path().to_path_buf(),
        background_runs: 1,
        created: &[],
        changed: &[],
    };
    let j = judge(
        &bash("curl -s http://localhost:3000/health"),
        &ok("ok"),
        &quiet(),
        &ctx,
    );
    assert_eq!(j.run.map(|r| r.kind), Some("run"));
}

#[test]
fn the_tree_decides_what_changed_not_the_words() {
    let dir = project();
    let changed = Observed::Tree(Diff {
        modified: vec!["greet.sh".into()],
        ..Diff::default()
    });
    // A "test" that changed a file it did not create is a change.
    let j = judge_in(
        &dir,
        &bash("npm test"),
        &ok("ℹ tests 1\nℹ pass 1"),
        &changed,
    );
    assert_eq!((j.kind, j.changes), (Some(ToolKind::Action), true));
    assert_eq!(j.files, vec!["greet.sh"]);
    assert!(j.attempt.unwrap().contains("changed greet.sh as it ran"));
    // A command whose words say "change" but that changed nothing (sed that
    // matched nothing, git commit) is no change.
    for command in [
        "sed -i s/zzz/y/ greet.sh",
        "git commit -am wip",
        "touch -c missing",
    ] {
        let j = judge_in(&dir, &bash(command), &ok(""), &quiet());
        assert!(!j.changes, "{command}: {j:?}");
    }
    // Files a run only created are its outputs.
    let created = Observed::Tree(Diff {
        added: vec!["out".into(), "out/report.csv".into()],
        ..Diff::default()
    });
    let j = judge_in(&dir, &bash("python3 main.py"), &ok("done"), &created);
    assert_eq!(j.outputs, vec!["out", "out/report.csv"]);
    assert!(j.run.unwrap().passed && !j.changes);
    // ...but what a plain command creates is a change (`cat > new.sh`).
    let j = judge_in(
        &dir,
        &bash("cat > new.sh <<'EOF'\necho\nEOF"),
        &ok(""),
        &created,
    );
    assert!(j.changes && j.outputs.is_empty());
}

#[test]
fn without_the_tree_the_words_decide_as_before_but_runs_of_the_program_verify() {
    let dir = project();
    let words = Observed::Words;
    let j = judge_in(&dir, &bash("bash greet.sh"), &ok("hello"), &words);
    assert_eq!(j.run.map(|r| r.kind), Some("run"));
    let j = judge_in(&dir, &bash("sed -i s/a/b/ greet.sh"), &ok(""), &words);
    assert!(j.changes);
    let j = judge_in(
        &dir,
        &bash("npm install && npm test"),
        &ok("ℹ tests 2"),
        &words,
    );
    assert!(!j.changes && j.run.is_some());
    let j = judge_in(&dir, &bash("npm test && sed -i s/a/b/ x"), &ok(""), &words);
    assert!(j.changes && j.run.is_none());
}

#[test]
fn zero_tests_other_folders_and_masked_statuses_do_not_verify() {
    let dir = project();
    let parent = dir.path().parent().unwrap().to_path_buf();
    let j = judge_in(
        &dir,
        &bash("node --test --test-name-pattern=zzz"),
        &ok("ℹ tests 0\nℹ pass 0"),
        &quiet(),
    );
    assert!(
        j.run.is_none() && j.attempt.as_deref().unwrap().contains("ran no tests"),
        "{j:?}"
    );
    for command in [
        "cd .. && npm test".to_string(),
        format!("npm --prefix {} test", parent.display()),
        format!("make -C {}", parent.display()),
        "cd $X && npm test".to_string(),
    ] {
        let j = judge_in(&dir, &bash(&command), &ok("ℹ tests 3"), &quiet());
        assert!(j.run.is_none(), "{command}: {j:?}");
        assert!(
            j.attempt
                .as_deref()
                .unwrap()
                .contains("outside the goal's folder"),
            "{command}"
        );
    }
    for (command, output) in [
        ("npm test || true", "  1 failing"),
        ("npm test | tail -3", "# fail 2"),
        (
            "bash greet.sh; true",
            "greet.sh: line 1: foo: command not found",
        ),
        (
            "python3 main.py | head",
            "Traceback (most recent call last):\nValueError: x",
        ),
        ("npm test; echo done", "Error: Cannot find module 'x'"),
    ] {
        let j = judge_in(&dir, &bash(command), &ok(output), &quiet());
        assert_eq!(
            j.run.as_ref().map(|r| r.passed),
            Some(false),
            "{command}: {j:?}"
        );
    }
    // With pipefail, a pipe is the run's own status, and the words of a
    // passing run are not read as a failure.
    let j = judge_in(
        &dir,
        &bash("set -o pipefail; npm test | tee log"),
        &ok("1 failing"),
        &quiet(),
    );
    assert_eq!(j.run.map(|r| r.passed), Some(false));
    let j = judge_in(
        &dir,
        &bash("python3 main.py"),
        &ok("3 errors found in the data"),
        &quiet(),
    );
    assert_eq!(
        j.run.map(|r| r.passed),
        Some(true),
        "a program's own words are not a runner's summary"
    );
}

#[test]
fn editors_change_what_they_name_and_reads_read_it() {
    let dir = project();
    let edit = ToolCall {
        name: "Edit".into(),
        args: json!({"file_path": dir.path().join("README.md").to_string_lossy(), "old_string": "a", "new_string": "b"}),
    };
    let j = judge_in(&dir, &edit, &Report::of("success"), &Observed::Words);
    assert_eq!(
        (j.changes, j.files.clone()),
        (true, vec!["README.md".to_string()])
    );
    let failed = judge_in(&dir, &edit, &Report::of("failure"), &Observed::Words);
    assert!(!failed.changes, "a failed edit changed nothing");
    let nothing = judge_in(&dir, &edit, &Report::of("success"), &quiet());
    assert!(!nothing.changes, "the tree shows no change");
    dir.write("README.md", "# x");
    let read = judge_in(&dir, &bash("cat README.md"), &ok("# x"), &quiet());
    assert_eq!(read.reads, vec!["README.md"]);
    assert!(is_doc("docs/guide.md") && is_doc("README") && !is_doc("src/main.rs"));
}

#[test]
fn the_output_tail_is_redacted_and_bounded() {
    let token = ["ghp", &"A1b2".repeat(9)].join("_");
    let text = format!("{}\nline\nkey {token}\nend", "x".repeat(20_000));
    let tail = output_tail(&text, 100);
    assert!(!tail.contains(&token), "{tail}");
    assert!(
        tail.ends_with("end") && tail.chars().count() <= 100,
        "{tail}"
    );
}
