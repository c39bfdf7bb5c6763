//! The completion gate against what really happened, through the hooks of
//! each host with the payloads they send: honest flows close the first time
//! (a script project without tests, test-first, an analysis, a docs-only
//! edit, a refactor with a build), and each dishonest variant is refused
//! with a message naming the observed fact. Each step changes a real
//! project folder the way the tool would, then sends the host's hook payloads.

mod common;

use common::{temp_dir, TempDir};
use goal_core::goals::{self, Caller};
use goal_core::hooks::{run_as, Host};
use goal_core::provenance::Origin;
use goal_core::store::{Store, StoreConfig};
use goal_core::Status;
use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};

const SESSION: &str = "s-evidence";

#[derive(Clone, Copy, Debug)]
enum H {
    Copilot,
    Claude,
    VsCode,
}

const HOSTS: [H; 3] = [H::Copilot, H::Claude, H::VsCode];

/// One step of a flow.
enum Step {
    /// The editor tool writes `body` to `path` (created if new).
    Edit(&'static str, &'static str),
    /// The read tool reads `path`.
    Read(&'static str),
    /// The shell runs `command`: `effect` is what it does to the tree, then
    /// the host reports `output` and `code`.
    Shell {
        command: &'static str,
        effect: fn(&Path),
        output: &'static str,
        code: i32,
    },
    /// Someone outside the agent's calls (the user's editor) writes `path`.
    Outside(&'static str, &'static str),
}

fn nothing(_: &Path) {}

fn sh(command: &'static str, output: &'static str) -> Step {
    Step::Shell {
        command,
        effect: nothing,
        output,
        code: 0,
    }
}

struct Project {
    base: TempDir,
    root: PathBuf,
    config: StoreConfig,
    host: H,
    /// The tree's watcher, when the flow runs with one (in a thread).
    watcher: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Project {
    fn drop(&mut self) {
        // Its tree and folder gone, the watcher leaves.
        let _ = fs::remove_dir_all(&self.base.0);
        if let Some(watcher) = self.watcher.take() {
            watcher.join().unwrap();
        }
    }
}

impl Project {
    fn new(host: H, files: &[(&str, &str)], watched: bool) -> Project {
        let base = temp_dir(&format!("evidence-{host:?}"));
        let root = base.0.join("project");
        for (path, body) in files {
            let p = root.join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, body).unwrap();
        }
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(base.0.join("elsewhere")).unwrap();
        let state = base.0.join("session-state");
        let mut config = StoreConfig::new(&state, state.join("goal-system"));
        config.claude_dirs = vec![base.0.join("home/.claude")];
        let mut project = Project {
            root,
            config,
            host,
            base,
            watcher: None,
        };
        if watched {
            project.watch();
        }
        project
    }

    /// Start the tree's watcher and wait until it answers.
    #[cfg(target_os = "linux")]
    fn watch(&mut self) {
        use goal_core::observe::{self, watch, watcher};
        let store = self.store();
        let options = watcher::Options {
            excluded: observe::excluded(&store, &self.root),
            name: watch::name(&self.root),
            dir: store.private_folder(watch::FOLDER).unwrap(),
            root: self.root.clone(),
            idle: std::time::Duration::from_secs(60),
        };
        self.watcher = Some(std::thread::spawn(move || {
            watcher::run(options).unwrap();
        }));
        let start = std::time::Instant::now();
        while !matches!(
            watch::look(&store, &self.root, None),
            watch::Look::Walk { .. }
        ) {
            assert!(start.elapsed().as_secs() < 10, "the watcher never answered");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn watch(&mut self) {}

    fn cwd(&self) -> String {
        self.root.to_string_lossy().into_owned()
    }

    fn hook(&self, event: &str, payload: Value) -> Value {
        let host = match self.host {
            H::Copilot => Host::CopilotCli,
            H::Claude => Host::Claude,
            H::VsCode => Host::VsCode,
        };
        // Played as the host runs its hooks.
        let out = run_as(
            host,
            event,
            &payload.to_string(),
            Ok(self.config.clone()),
            &Origin::host(host),
        );
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
        assert!(
            !out.stderr.contains("goal-system hook"),
            "no fault: {}",
            out.stderr
        );
        serde_json::from_str(&out.stdout).unwrap()
    }

    /// Claude Code's transcript of the session, where the host writes it.
    fn transcript(&self) -> PathBuf {
        let dir = self.config.claude_dirs[0].join("projects/-project");
        fs::create_dir_all(&dir).unwrap();
        dir.join(format!("{SESSION}.jsonl"))
    }

    fn base_payload(&self) -> Value {
        match self.host {
            // Copilot CLI's timestamp is the moment it runs the hook (ms).
            H::Copilot => json!({"sessionId": SESSION, "timestamp": now_ms(), "cwd": self.cwd()}),
            _ => {
                json!({"session_id": SESSION, "cwd": self.cwd(), "transcript_path": self.transcript()})
            }
        }
    }

    fn with(&self, extra: Value) -> Value {
        let mut p = self.base_payload();
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    }

    fn prompt(&self, text: &str) {
        let (event, payload) = match self.host {
            H::Copilot => (
                "userPromptSubmitted",
                self.with(json!({"prompt": format!("The user set this explicit autopilot objective with /autopilot:\n\n{text}\n\nWork autonomously toward this objective in clear checkpoints.")})),
            ),
            H::Claude | H::VsCode => (
                "UserPromptSubmit",
                self.with(json!({"hook_event_name": "UserPromptSubmit", "prompt": format!("/goal {text}"), "prompt_id": "p-1"})),
            ),
        };
        self.hook(event, payload.clone());
        if let H::Copilot = self.host {
            // Copilot CLI writes its run of the hook down (`hook.start`).
            use std::io::Write;
            let dir = self.config.session_state.join(SESSION);
            fs::create_dir_all(&dir).unwrap();
            let line = json!({"type": "hook.start", "data": {"hookType": event,
                "input": {"sessionId": SESSION, "prompt": payload["prompt"], "timestamp": payload["timestamp"].to_string()}}});
            let mut f = fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join("events.jsonl"))
                .unwrap();
            writeln!(f, "{line}").unwrap();
        }
        if let H::Claude = self.host {
            // Claude Code writes the user's prompt down after its hook.
            use std::io::Write;
            let line = json!({"type": "user", "promptId": "p-1", "origin": {"kind": "human"}, "message": {"content": format!("/goal {text}")}});
            let mut f = fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.transcript())
                .unwrap();
            writeln!(f, "{line}").unwrap();
        }
    }

    /// The tool name and arguments each host uses for a kind of call.
    fn call(&self, step: &Step) -> (String, Value) {
        let abs = |p: &str| self.root.join(p).to_string_lossy().into_owned();
        match (self.host, step) {
            (H::Copilot, Step::Edit(p, body)) => (
                "edit".into(),
                json!({"path": abs(p), "old_str": "", "new_str": body}),
            ),
            (H::Claude, Step::Edit(p, body)) => (
                "Write".into(),
                json!({"file_path": abs(p), "content": body}),
            ),
            (H::VsCode, Step::Edit(p, body)) => (
                "create_file".into(),
                json!({"filePath": abs(p), "content": body}),
            ),
            (H::Copilot, Step::Read(p)) => ("view".into(), json!({"path": abs(p)})),
            (H::Claude, Step::Read(p)) => ("Read".into(), json!({"file_path": abs(p)})),
            (H::VsCode, Step::Read(p)) => (
                "read_file".into(),
                json!({"filePath": abs(p), "startLine": 1, "endLine": 50}),
            ),
            (H::Copilot, Step::Shell { command, .. }) => (
                "bash".into(),
                json!({"command": command, "description": "run"}),
            ),
            (H::Claude, Step::Shell { command, .. }) => {
                ("Bash".into(), json!({"command": command}))
            }
            (H::VsCode, Step::Shell { command, .. }) => (
                "run_in_terminal".into(),
                json!({"command": command, "explanation": "run", "isBackground": false}),
            ),
            (_, Step::Outside(..)) => unreachable!(),
        }
    }

    /// The host's post-tool payload for a finished call.
    fn post(&self, tool: &str, args: &Value, output: &str, code: i32) -> (&'static str, Value) {
        match self.host {
            H::Copilot => (
                "postToolUse",
                self.with(json!({"toolName": tool, "toolArgs": args, "toolResult": {
                    "resultType": "success",
                    "textResultForLlm": format!("{output}\n<shellId: 0 completed with exit code {code}>"),
                }})),
            ),
            H::Claude if code != 0 => (
                "PostToolUseFailure",
                self.with(json!({"hook_event_name": "PostToolUseFailure", "tool_name": tool, "tool_input": args,
                    "error": format!("Exit code {code}\n{output}"), "is_interrupt": false})),
            ),
            H::Claude => (
                "PostToolUse",
                self.with(json!({"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": args,
                    "tool_response": {"stdout": output, "stderr": "", "interrupted": false, "isImage": false}})),
            ),
            H::VsCode => {
                let text = if code == 0 {
                    output.to_string()
                } else {
                    format!("{output}\nCommand exited with code {code}")
                };
                (
                    "PostToolUse",
                    self.with(json!({"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": args, "tool_response": text})),
                )
            }
        }
    }

    fn pre(&self, tool: &str, args: &Value) {
        let (event, payload) = match self.host {
            H::Copilot => (
                "preToolUse",
                self.with(json!({"toolName": tool, "toolArgs": args})),
            ),
            _ => (
                "PreToolUse",
                self.with(
                    json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args}),
                ),
            ),
        };
        let answer = self.hook(event, payload);
        assert!(
            !answer.to_string().contains("\"deny\""),
            "an honest call is never denied: {answer}"
        );
    }

    fn run(&self, steps: &[Step]) {
        for (i, step) in steps.iter().enumerate() {
            if i % 3 == 2 {
                // Record progress now and then, as the model does (drift).
                goals::update(
                    &self.store(),
                    &self.agent(),
                    &json!({"doneSoFar": [format!("step {i}")]}),
                )
                .unwrap();
            }
            if let Step::Outside(path, body) = step {
                fs::write(self.root.join(path), body).unwrap();
                continue;
            }
            let (tool, args) = self.call(step);
            self.pre(&tool, &args);
            let (output, code) = match step {
                Step::Edit(path, body) => {
                    let p = self.root.join(path);
                    fs::create_dir_all(p.parent().unwrap()).unwrap();
                    fs::write(p, body).unwrap();
                    ("", 0)
                }
                Step::Read(_) => ("file text", 0),
                Step::Shell {
                    effect,
                    output,
                    code,
                    ..
                } => {
                    effect(&self.root);
                    (*output, *code)
                }
                Step::Outside(..) => unreachable!(),
            };
            let (event, payload) = self.post(&tool, &args, output, code);
            self.hook(event, payload);
        }
    }

    fn store(&self) -> Store {
        Store::new(self.config.clone())
    }

    fn agent(&self) -> Caller {
        Caller::new(SESSION, self.cwd())
    }

    /// Activate the user's draft with requirements, as the model does first.
    fn activate(&self) {
        goals::update(
            &self.store(),
            &self.agent(),
            &json!({"status": "active", "requirements": ["R1: the change works"], "remaining": ["do it"],
                "inspectionEvidence": ["read the project files"]}),
        )
        .unwrap();
    }

    /// Close complete with full written evidence: only the observed facts can refuse it.
    fn close(&self) -> goals::Closed {
        goals::close(
            &self.store(),
            &self.agent(),
            &json!({"status": "complete", "remaining": [],
                "doneSoFar": ["changed the program as asked"],
                "validationProof": ["the output shows the expected greeting"],
                "verificationResults": ["the run printed the expected lines"],
                "requirementCoverage": ["R1: shown by the run's output lines"],
                "completionAudit": ["R1 checked against the run output"]}),
        )
        .unwrap()
    }
}

/// Run a flow twice, walking the tree and with the tree's watcher: the
/// decisions and the recorded history must be the same.
fn flow(host: H, files: &[(&str, &str)], steps: &[Step]) -> goals::Closed {
    let (walked, walked_root) = flow_once(host, files, steps, false);
    if cfg!(target_os = "linux") {
        let before = goal_core::observe::watch::vouched_here();
        let (watched, watched_root) = flow_once(host, files, steps, true);
        // An edit always asks it (reads never do, and close always walks).
        let asks = steps
            .iter()
            .any(|s| matches!(s, Step::Edit(..) | Step::Outside(..)));
        assert!(
            !asks || goal_core::observe::watch::vouched_here() > before,
            "the watcher answered no hook"
        );
        assert_eq!(
            comparable(&walked, &walked_root),
            comparable(&watched, &watched_root),
            "{host:?}: the same flow with the watcher decided or recorded otherwise"
        );
    }
    walked
}

fn flow_once(
    host: H,
    files: &[(&str, &str)],
    steps: &[Step],
    watched: bool,
) -> (goals::Closed, String) {
    let p = Project::new(host, files, watched);
    p.prompt("make greet.sh print hello twice");
    p.activate();
    p.run(steps);
    (p.close(), p.cwd())
}

/// What a flow decided and recorded, without times, the kept tree's mark
/// and the project's own folder (each run has its own).
fn comparable(closed: &goals::Closed, root: &str) -> Value {
    let mut history = serde_json::to_value(&closed.goal.tool_history).unwrap();
    history.as_object_mut().unwrap().remove("tree");
    for event in history["recent"].as_array_mut().into_iter().flatten() {
        let event = event.as_object_mut().unwrap();
        event.remove("at");
        event.remove("atMs");
        // A hash of the call's arguments, which hold the project's folder.
        event.remove("key");
    }
    if let Some(v) = history["lastVerification"].as_object_mut() {
        v.remove("at");
    }
    let unmet: Vec<String> = closed.unmet.iter().map(|u| u.message.clone()).collect();
    let text = json!({"closed": closed.closed, "unmet": unmet, "history": history}).to_string();
    let base = Path::new(root).parent().unwrap().to_string_lossy();
    serde_json::from_str(&text.replace(&*base, "<base>")).unwrap()
}

fn assert_closes(name: &str, host: H, closed: &goals::Closed) {
    assert!(
        closed.closed,
        "{name} in {host:?} must close the first time: {}",
        closed.summary
    );
    assert_eq!(closed.goal.completion_status, Status::Complete);
}

fn assert_refused(name: &str, host: H, closed: &goals::Closed, says: &[&str]) {
    assert!(!closed.closed, "{name} in {host:?} must be refused");
    let unmet = closed
        .unmet
        .iter()
        .find(|u| u.field == "toolHistory")
        .unwrap_or_else(|| panic!("{name} in {host:?}: {:?}", closed.unmet));
    for s in says {
        assert!(
            unmet.message.contains(s),
            "{name} in {host:?}: the refusal names {s:?}: {}",
            unmet.message
        );
    }
}

const GREET: &str = "#!/bin/sh\necho hello\n";

#[test]
fn honest_flows_close_the_first_time_in_every_host() {
    for host in HOSTS {
        // A script project without a test runner: edit, run the script, close.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Read("greet.sh"),
                Step::Edit("greet.sh", "#!/bin/sh\necho hello\necho hello\n"),
                sh("bash greet.sh", "hello\nhello"),
            ],
        );
        assert_closes("script project", host, &c);
        let v = c.goal.tool_history.last_verification.as_ref().unwrap();
        assert_eq!((v.kind.as_str(), v.observed.as_str()), ("run", "tree"));
        assert!(v.output.contains("hello"), "the output is kept: {v:?}");

        for run in ["./greet.sh", "sh greet.sh", "sh -c './greet.sh'"] {
            let c = flow(
                host,
                &[("greet.sh", GREET)],
                &[
                    Step::Edit("greet.sh", "#!/bin/sh\necho hello\necho hello\n"),
                    sh(run, "hello\nhello"),
                ],
            );
            assert_closes(run, host, &c);
        }

        // Other projects' own programs.
        for (files, edit, run) in [
            (
                &[("main.py", "print('hi')\n")][..],
                "main.py",
                "python3 main.py",
            ),
            (
                &[("index.js", "console.log(1)\n")][..],
                "index.js",
                "node index.js",
            ),
            (
                &[("go.mod", "module x\n"), ("main.go", "package main\n")][..],
                "main.go",
                "go run .",
            ),
            (
                &[
                    ("Cargo.toml", "[package]\nname='x'\n"),
                    ("src/main.rs", "fn main(){}\n"),
                ][..],
                "src/main.rs",
                "cargo run",
            ),
            (
                &[
                    ("package.json", r#"{"scripts":{"start":"node server.js"}}"#),
                    ("server.js", "1"),
                ][..],
                "server.js",
                "npm start",
            ),
        ] {
            let c = flow(
                host,
                files,
                &[Step::Edit(edit, "changed\n"), sh(run, "ran fine")],
            );
            assert_closes(run, host, &c);
        }

        // Test-first: a failing test, the fix, the tests pass.
        let c = flow(
            host,
            &[("greet.py", "def greet():\n    return 'hi'\n")],
            &[
                Step::Edit(
                    "test_greet.py",
                    "from greet import greet\ndef test(): assert greet() == 'hello'\n",
                ),
                Step::Shell {
                    command: "python3 -m pytest -q",
                    effect: |root| {
                        fs::create_dir_all(root.join("__pycache__")).unwrap();
                        fs::write(root.join("__pycache__/greet.pyc"), "x").unwrap();
                    },
                    output: "F\n1 failed in 0.01s",
                    code: 1,
                },
                Step::Edit("greet.py", "def greet():\n    return 'hello'\n"),
                Step::Shell {
                    command: "python3 -m pytest -q",
                    effect: |root| fs::write(root.join("__pycache__/greet.pyc"), "y").unwrap(),
                    output: ".\n1 passed in 0.01s",
                    code: 0,
                },
            ],
        );
        assert_closes("test-first", host, &c);

        // An analysis: read, run the program to confirm, close.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Read("greet.sh"),
                sh("grep -n echo greet.sh", "2:echo hello"),
                sh("bash greet.sh", "hello"),
            ],
        );
        assert_closes("analysis", host, &c);

        // Documentation only: the change, read back.
        let c = flow(
            host,
            &[("README.md", "# x\n"), ("greet.sh", GREET)],
            &[
                Step::Edit("README.md", "# x\n\nRun `bash greet.sh`.\n"),
                Step::Read("README.md"),
            ],
        );
        assert_closes("docs-only", host, &c);
        let c = flow(
            host,
            &[("README.md", "# x\n")],
            &[
                Step::Edit("README.md", "# x\nmore\n"),
                sh("cat README.md", "# x\nmore"),
            ],
        );
        assert_closes("docs-only read back with cat", host, &c);

        // A refactor with a build and the tests; the build writes its outputs.
        let c = flow(
            host,
            &[
                (
                    "package.json",
                    r#"{"scripts":{"build":"tsc","test":"node --test"}}"#,
                ),
                ("src/a.ts", "export const a = 1\n"),
            ],
            &[
                Step::Edit("src/a.ts", "export const a = 2\n"),
                Step::Shell {
                    command: "npm run build && npm test",
                    effect: |root| {
                        fs::create_dir_all(root.join("dist")).unwrap();
                        fs::write(root.join("dist/a.js"), "exports.a = 2").unwrap();
                    },
                    output: "ℹ tests 3\nℹ pass 3\nℹ fail 0",
                    code: 0,
                },
                Step::Shell {
                    command: "npm test",
                    effect: |root| {
                        fs::write(root.join("dist/a.js"), "exports.a = 2 // again").unwrap()
                    },
                    output: "ℹ tests 3\nℹ pass 3\nℹ fail 0",
                    code: 0,
                },
            ],
        );
        assert_closes("refactor with a build", host, &c);
    }
}

#[test]
fn dishonest_flows_are_refused_naming_the_fact_in_every_host() {
    for host in HOSTS {
        // Reads alone never close.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[Step::Read("greet.sh"), sh("cat greet.sh", GREET)],
        );
        assert_refused("reads alone", host, &c, &["nothing was run"]);

        // Claims after an edit, nothing run.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[Step::Edit("greet.sh", "echo hi\n")],
        );
        assert_refused(
            "claims only",
            host,
            &c,
            &["no verification ran after", "greet.sh", "bash greet.sh"],
        );

        // Runs of zero tests.
        for (run, said) in [
            (
                "node --test --test-name-pattern=zzz",
                "ℹ tests 0\nℹ pass 0\nℹ fail 0",
            ),
            (
                "python3 -m unittest -k nothing_matches",
                "\nRan 0 tests in 0.000s\n\nOK",
            ),
            (
                "python3 -m pytest -q -k nothing",
                "1 deselected\nno tests ran in 0.01s",
            ),
            (
                "cargo test zzz",
                "running 0 tests\n\ntest result: ok. 0 passed; 0 failed",
            ),
        ] {
            let c = flow(
                host,
                &[("a.py", "x")],
                &[Step::Edit("a.py", "y"), sh(run, said)],
            );
            assert_refused(run, host, &c, &["ran no tests", run]);
        }

        // Tests run in another folder.
        let c = flow(
            host,
            &[("a.js", "1")],
            &[
                Step::Edit("a.js", "2"),
                sh(
                    "cd ../elsewhere && node --test",
                    "ℹ tests 4\nℹ pass 4\nℹ fail 0",
                ),
            ],
        );
        assert_refused("another folder", host, &c, &["outside the goal's folder"]);

        // A change after the passing run (git stash reverts the edit).
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "echo hello\necho hello\n"),
                sh("bash greet.sh", "hello\nhello"),
                Step::Shell {
                    command: "git stash",
                    effect: |root| fs::write(root.join("greet.sh"), GREET).unwrap(),
                    output: "Saved working directory",
                    code: 0,
                },
            ],
        );
        assert_refused(
            "git stash after the run",
            host,
            &c,
            &["git stash", "greet.sh", "came after"],
        );

        // A change made outside the agent's calls after the passing run.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "echo hello\necho hello\n"),
                sh("bash greet.sh", "hello\nhello"),
                Step::Outside("greet.sh", "echo bye\n"),
            ],
        );
        assert_refused(
            "outside change",
            host,
            &c,
            &["outside the agent's tool calls", "greet.sh"],
        );

        // A masked exit status with failures in the output.
        let c = flow(
            host,
            &[("a.js", "1")],
            &[
                Step::Edit("a.js", "2"),
                sh("npm test || true", "  3 passing\n  1 failing"),
            ],
        );
        assert_refused("masked failure", host, &c, &["failed", "npm test || true"]);

        // A script outside the project is not the project's program; echo is no run.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "echo hello\necho hello\n"),
                sh("bash /tmp/other.sh", "ok"),
                sh("echo 'all tests pass'", "all tests pass"),
            ],
        );
        assert_refused(
            "echo and a foreign script",
            host,
            &c,
            &["no verification ran after"],
        );

        // A "test" that rewrites the program as it runs does not verify it.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "echo hi\n"),
                Step::Shell {
                    command: "bash greet.sh && sed -i s/hi/hello/ greet.sh",
                    effect: |root| fs::write(root.join("greet.sh"), "echo hello\n").unwrap(),
                    output: "hi",
                    code: 0,
                },
            ],
        );
        assert_refused("a run that changes the program", host, &c, &["greet.sh"]);
    }
}

#[test]
fn a_program_the_goal_created_verifies_only_what_it_uses() {
    for host in HOSTS {
        // review-7 F5: a new `ok.sh` that exits 0 is no proof of greet.sh.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "#!/bin/sh\nexit 3\n"),
                Step::Edit("ok.sh", "exit 0\n"),
                sh("bash ok.sh", ""),
            ],
        );
        assert_refused(
            "a new program that uses nothing changed",
            host,
            &c,
            &["ok.sh, which this goal created", "greet.sh"],
        );
        // Written and run on one line: the same.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "#!/bin/sh\nexit 3\n"),
                Step::Shell {
                    command: "printf 'exit 0' > ok.sh && bash ok.sh",
                    effect: |root| fs::write(root.join("ok.sh"), "exit 0").unwrap(),
                    output: "",
                    code: 0,
                },
            ],
        );
        assert_refused("written and run at once", host, &c, &["ok.sh", "greet.sh"]);
        // A test script with nothing but an echo runs no tests.
        let c = flow(
            host,
            &[("a.js", "1")],
            &[
                Step::Edit("a.js", "2"),
                Step::Edit("package.json", r#"{"scripts":{"test":"echo ok"}}"#),
                sh("npm test", "> test\n> echo ok\n\nok"),
            ],
        );
        assert_refused(
            "echo as the test script",
            host,
            &c,
            &["echo ok", "runs no tests"],
        );

        // Honest: a new test that runs the changed program closes.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "#!/bin/sh\necho hello\n"),
                Step::Edit("test_greet.sh", "test \"$(bash greet.sh)\" = hello\n"),
                sh("bash test_greet.sh", ""),
            ],
        );
        assert_closes("a new test of the changed program", host, &c);
        // A new program that imports the changed module.
        let c = flow(
            host,
            &[("lib/calc.py", "def add(a, b):\n    return a - b\n")],
            &[
                Step::Edit("lib/calc.py", "def add(a, b):\n    return a + b\n"),
                Step::Edit("demo.py", "from lib.calc import add\nprint(add(1, 2))\n"),
                sh("python3 demo.py", "3"),
            ],
        );
        assert_closes("a new program importing the change", host, &c);
        // A project written from nothing: its one program.
        let c = flow(
            host,
            &[],
            &[
                Step::Edit("hello.sh", "echo hello\n"),
                Step::Edit("README.md", "Run hello.sh\n"),
                sh("bash hello.sh", "hello"),
            ],
        );
        assert_closes("a new project's program", host, &c);
        // A file moved: the old name is gone, the new program runs.
        let c = flow(
            host,
            &[("util.py", "print(1)\n")],
            &[
                Step::Shell {
                    command: "git mv util.py helpers.py",
                    effect: |root| {
                        fs::rename(root.join("util.py"), root.join("helpers.py")).unwrap()
                    },
                    output: "",
                    code: 0,
                },
                sh("python3 helpers.py", "1"),
            ],
        );
        assert_closes("a moved program", host, &c);
        // A test script that runs the tests.
        let c = flow(
            host,
            &[("a.js", "1")],
            &[
                Step::Edit("a.js", "2"),
                Step::Edit("package.json", r#"{"scripts":{"test":"node --test"}}"#),
                sh("npm test", "ℹ tests 1\nℹ pass 1\nℹ fail 0"),
            ],
        );
        assert_closes("a real test script", host, &c);
        // A second task after the first was verified: its new script
        // answers only for what changed since.
        let c = flow(
            host,
            &[("greet.sh", GREET)],
            &[
                Step::Edit("greet.sh", "#!/bin/sh\necho hello\necho hello\n"),
                sh("bash greet.sh", "hello\nhello"),
                Step::Edit("report.sh", "echo report\n"),
                sh("bash report.sh", "report"),
            ],
        );
        assert_closes("a new script after a verified change", host, &c);
    }
}

#[test]
fn a_failing_run_of_the_program_refuses_until_it_passes() {
    for host in HOSTS {
        let c = flow(
            host,
            &[("main.py", "print(1)\n")],
            &[
                Step::Edit("main.py", "print(x)\n"),
                Step::Shell {
                    command: "python3 main.py",
                    effect: nothing,
                    output: "Traceback (most recent call last):\n  File \"main.py\", line 1\nNameError: name 'x' is not defined",
                    code: 1,
                },
            ],
        );
        assert_refused("failing run", host, &c, &["python3 main.py", "failed"]);
        let v = c.goal.tool_history.last_verification.as_ref().unwrap();
        assert!(v.output.contains("NameError"), "{v:?}");
    }
}

/// A step of `command` whose output is supplied, with an effect on the tree.
fn run(command: &'static str, effect: fn(&Path), output: &'static str, code: i32) -> Step {
    Step::Shell {
        command,
        effect,
        output,
        code,
    }
}

const GREET_PY: &str = "def greet():\n    return 'hello'\n";

/// Honest work the review of the evidence gate saw refused (review-7 H1-H7):
/// each closes the first time now.
#[test]
fn honest_spellings_of_a_run_close_the_first_time() {
    let edit_greet = || Step::Edit("greet.sh", "#!/bin/sh\necho hello\necho hello\n");
    for host in HOSTS {
        // H1: redirections to /dev/null or elsewhere are not where it ran;
        // an input file elsewhere is the program's input. H7: `$PWD`.
        for command in [
            "bash greet.sh < /dev/null",
            "bash greet.sh 2> /dev/null",
            "bash greet.sh > ../elsewhere/out.txt && cat ../elsewhere/out.txt",
            "bash \"$PWD/greet.sh\"",
            "bash greet.sh ../elsewhere/input.csv",
        ] {
            let c = flow(
                host,
                &[("greet.sh", GREET), ("../elsewhere/input.csv", "a,b\n")],
                &[
                    edit_greet(),
                    run(
                        command,
                        |root| fs::write(root.join("../elsewhere/out.txt"), "hello").unwrap(),
                        "hello\nhello",
                        0,
                    ),
                ],
            );
            assert_closes(command, host, &c);
        }
        // H2: the project's code exercised from the command line.
        for (files, edit, command) in [
            (
                &[("greet.py", GREET_PY)][..],
                "greet.py",
                "python3 -c \"from greet import greet; print(greet())\"",
            ),
            (
                &[("greet.py", GREET_PY)][..],
                "greet.py",
                "python3 - <<'EOF'\nimport greet\nprint(greet.greet())\nEOF",
            ),
            (
                &[("lib.js", "exports.add = (a, b) => a + b\n")][..],
                "lib.js",
                "node -e \"console.log(require('./lib').add(1, 2))\"",
            ),
            (
                &[("lib.js", "exports.add = (a, b) => a + b\n")][..],
                "lib.js",
                "node -p \"require('./lib.js').add(1, 2)\"",
            ),
            // H3: groups.
            (
                &[("sub/main.py", "print(1)\n")][..],
                "sub/main.py",
                "(cd sub && python3 main.py)",
            ),
            (
                &[("sub/main.py", "print(1)\n")][..],
                "sub/main.py",
                "{ cd sub; python3 main.py; }",
            ),
            // H4: a server started and requested on one line, or stopped by timeout.
            (
                &[("server.js", "1")][..],
                "server.js",
                "node server.js & sleep 1; curl -s localhost:38711; kill %1",
            ),
        ] {
            let c = flow(
                host,
                files,
                &[Step::Edit(edit, "changed\n"), sh(command, "hello")],
            );
            assert_closes(command, host, &c);
        }
        let c = flow(
            host,
            &[("server.js", "1")],
            &[
                Step::Edit("server.js", "2"),
                run(
                    "timeout 2 node server.js",
                    nothing,
                    "listening on 38711",
                    124,
                ),
            ],
        );
        assert_closes("timeout 2 node server.js", host, &c);

        // H5: a program that updates its own data file, a build that rewrites
        // a generated page, a first run that writes the lock file.
        for (files, edit, command, effect) in [
            (
                &[("todo.py", "x"), ("todos.json", "[]")][..],
                "todo.py",
                "python3 todo.py add milk",
                (|root: &Path| fs::write(root.join("todos.json"), "[\"milk\"]").unwrap())
                    as fn(&Path),
            ),
            (
                &[("build.sh", "x"), ("docs/index.html", "<p>1</p>")][..],
                "build.sh",
                "bash build.sh",
                |root: &Path| fs::write(root.join("docs/index.html"), "<p>2</p>").unwrap(),
            ),
            (
                &[
                    ("Cargo.toml", "[package]\nname='x'\n"),
                    ("Cargo.lock", "# v1\n"),
                    ("src/main.rs", "fn main(){}\n"),
                ][..],
                "Cargo.toml",
                "cargo run -q --offline",
                |root: &Path| fs::write(root.join("Cargo.lock"), "# v1\n[[package]]\n").unwrap(),
            ),
            // A change set up on the line before the run is what it ran.
            (
                &[("greet.sh", GREET)][..],
                "greet.sh",
                "sed -i s/hi/hello/ greet.sh && bash greet.sh",
                |root: &Path| fs::write(root.join("greet.sh"), "echo hello\n").unwrap(),
            ),
        ] {
            let c = flow(
                host,
                files,
                &[Step::Edit(edit, "echo hi\n"), run(command, effect, "ok", 0)],
            );
            assert_closes(command, host, &c);
        }
    }
}

/// Fake proof the review of the evidence gate saw accepted (review-7 F1-F11):
/// each is refused now, naming what was observed.
#[test]
fn fake_proof_is_refused_naming_the_fact() {
    for host in HOSTS {
        let files: &[(&str, &str)] = &[
            ("greet.sh", GREET),
            ("main.py", "print(1)\n"),
            ("a.test.js", "t"),
            ("index.js", "1"),
            ("Makefile", "all:\n\techo hi\n"),
        ];
        let broken = || Step::Edit("main.py", "raise SystemExit(1)\n");
        // F1: a failing suite's exit status hidden by a pipe, its summary cut.
        for (command, output) in [
            ("node --test a.test.js | tail -1", "# duration_ms 61.3"),
            (
                "node --test --test-name-pattern=zzz a.test.js | grep -v -e '# pass' -e '# tests'",
                "# fail 0\n# duration_ms 3",
            ),
        ] {
            let c = flow(host, files, &[broken(), sh(command, output)]);
            assert_refused(command, host, &c, &["hidden", "no passing summary"]);
        }
        // F3: the exit status taken or thrown away.
        for (command, says) in [
            ("! python3 main.py", "taken by `!`"),
            ("if python3 main.py; then echo ok; fi", "taken by `if`"),
            ("bash -c 'python3 main.py; true'", "thrown away"),
            ("(python3 main.py; true)", "thrown away"),
            ("python3 main.py || true", "thrown away"),
        ] {
            let c = flow(host, files, &[broken(), sh(command, "wrong answer")]);
            assert_refused(command, host, &c, &[says]);
        }
        // F2: version, help, dry runs, syntax checks, listings.
        for command in [
            "make -n",
            "make --version",
            "bash -n greet.sh",
            "node --check index.js",
            "python3 --version main.py",
            "python3 -m pytest --collect-only -q",
            "cargo test --help",
            "npx jest --listTests",
            "bash -s greet.sh < /dev/null",
        ] {
            let c = flow(host, files, &[broken(), sh(command, "1 test collected")]);
            assert_refused(command, host, &c, &["no verification ran after"]);
        }
        // F4: runs of zero tests in runners' own words.
        for (command, output) in [
            (
                "deno test --filter zzz",
                "ok | 0 passed | 0 failed | 2 filtered out (3ms)",
            ),
            (
                "npx vitest run -t zzz",
                " Test Files  1 skipped (1)\n      Tests  2 skipped (2)",
            ),
            (
                "mvn test -Dtest=zzz",
                "[INFO] Tests run: 0, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS",
            ),
        ] {
            let c = flow(host, files, &[broken(), sh(command, output)]);
            assert_refused(command, host, &c, &["ran no tests"]);
        }
        // F6: a "request" that names localhost in a header, after a background run.
        let c = flow(
            host,
            files,
            &[
                sh("bash greet.sh &", ""),
                broken(),
                sh("curl -s file:///dev/null -H localhost", ""),
            ],
        );
        assert_refused("curl file://", host, &c, &["no verification ran after"]);
        // F7: a build file ending in .txt is not documentation.
        let c = flow(
            host,
            &[("CMakeLists.txt", "project(x)\n")],
            &[
                Step::Edit("CMakeLists.txt", "add_executable(x BROKEN.c)\n"),
                Step::Read("CMakeLists.txt"),
            ],
        );
        assert_refused("CMakeLists.txt read back", host, &c, &["CMakeLists.txt"]);
        // F10: source written on the run's line after it ran.
        let c = flow(
            host,
            &[("main.py", "import feature\n")],
            &[
                Step::Edit("main.py", "import feature\nprint(feature.f())\n"),
                run(
                    "printf 'def f(): return 1\\n' > feature.py && python3 main.py && printf 'def f(): raise SystemExit(3)\\n' > feature.py",
                    |root| fs::write(root.join("feature.py"), "def f(): raise SystemExit(3)\n").unwrap(),
                    "1",
                    0,
                ),
            ],
        );
        assert_refused(
            "source written after the run",
            host,
            &c,
            &["feature.py", "after it ran"],
        );
        // F11: the full suite fails; a run filtered to the passing test does not clear it.
        let c = flow(
            host,
            files,
            &[
                broken(),
                run("node --test", nothing, "# tests 2\n# pass 1\n# fail 1", 1),
                sh(
                    "node --test --test-name-pattern=good",
                    "# tests 1\n# pass 1\n# fail 0",
                ),
            ],
        );
        assert_refused(
            "a filtered run after the full run failed",
            host,
            &c,
            &["node --test", "failed", "only some of the tests"],
        );
        // F9: an edit outside the goal's folder, in the same repository.
        let c = flow(
            host,
            &[
                ("../.git/HEAD", "ref: main\n"),
                ("main.py", "print(1)\n"),
                ("../lib/util.py", "x = 1\n"),
            ],
            &[
                sh("python3 main.py", "1"),
                Step::Edit("../lib/util.py", "raise SystemExit(3)\n"),
            ],
        );
        assert_refused("edit outside the folder", host, &c, &["../lib/util.py"]);
        // H6: runs outside the goal's folder are named, not "nothing was run".
        let c = flow(
            host,
            &[("greet.sh", GREET), ("../elsewhere/greet.sh", GREET)],
            &[sh("cd ../elsewhere && bash greet.sh", "hello")],
        );
        assert_refused(
            "runs in another folder",
            host,
            &c,
            &["nothing was run", "outside the goal's folder", "elsewhere"],
        );
    }
}

/// An analysis with nothing to run (review-7 H8): reads alone stay refused,
/// the refusal tells the way that holds (the answer written into a document
/// and read back), and that way closes the first time.
#[test]
fn an_analysis_with_nothing_to_run_closes_on_its_written_answer() {
    for host in HOSTS {
        let notes = [("NOTES.md", "# notes\nthe notes say hello\n")];
        let c = flow(
            host,
            &notes,
            &[Step::Read("NOTES.md"), sh("grep -rn notes .", "NOTES.md:1")],
        );
        assert_refused(
            "reads alone",
            host,
            &c,
            &["nothing was run", "write the answer into a document"],
        );
        let c = flow(
            host,
            &notes,
            &[
                Step::Read("NOTES.md"),
                sh("grep -rn notes .", "NOTES.md:1"),
                Step::Edit("ANALYSIS.md", "# analysis\nthe notes say hello\n"),
                Step::Read("ANALYSIS.md"),
            ],
        );
        assert_closes("analysis written down", host, &c);
    }
}

/// The kept tree deleted between calls (review-7 F12): the next call cannot
/// be seen, so it is a change and the last verification no longer stands.
#[test]
fn a_deleted_kept_tree_is_a_change_not_a_blind_spot() {
    for host in HOSTS {
        let p = Project::new(host, &[("greet.sh", GREET)], false);
        p.prompt("make greet.sh print hello twice");
        p.activate();
        p.run(&[
            Step::Edit("greet.sh", "echo hello\necho hello\n"),
            sh("bash greet.sh", "hello\nhello"),
        ]);
        let trees = p.config.root.join("trees");
        let mut deleted = 0;
        for entry in fs::read_dir(&trees).unwrap() {
            fs::remove_file(entry.unwrap().path()).unwrap();
            deleted += 1;
        }
        assert!(deleted > 0, "a kept tree was there to delete");
        // Read by its words, this would be a passing run of the project's code.
        p.run(&[run(
            "python3 -c \"open('greet.sh', 'w').write('exit 3')\"",
            |root| fs::write(root.join("greet.sh"), "exit 3\n").unwrap(),
            "",
            0,
        )]);
        let c = p.close();
        assert_refused(
            "a deleted kept tree",
            host,
            &c,
            &[
                "kept record of the working tree",
                "came after the last passing verification",
            ],
        );
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
