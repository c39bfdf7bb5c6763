//! The tree's watcher as the hooks start and use it: the real executable,
//! run with a host's payloads. The first hook that walks starts the watcher
//! in the background (and does not wait for it); the next hooks see changes
//! through it; a killed watcher and an overflowed event queue fall back to
//! the walk and miss nothing; the watcher leaves with its state folder; and
//! `GOAL_SYSTEM_WATCH=off` starts none.
#![cfg(target_os = "linux")]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use goal_core::authority::Role;
use goal_core::goals::{self, Caller};
use goal_core::observe::watch::{self, Look};
use goal_core::store::{Store, StoreConfig};
use serde_json::{json, Value};

const SESSION: &str = "s-watch";

struct Project {
    base: PathBuf,
    tree: PathBuf,
    env: Vec<(&'static str, String)>,
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

fn project(name: &str, extra: &[(&'static str, &str)]) -> Project {
    let base = std::env::temp_dir().join(format!("goal-hook-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let tree = base.join("tree");
    fs::create_dir_all(tree.join("src")).unwrap();
    fs::write(tree.join("greet.sh"), "echo hello\n").unwrap();
    fs::write(tree.join(".gitignore"), "*.log\n").unwrap();
    // HOME as the test's own: the watcher's name follows the global ignore
    // file, which the test computes too.
    let mut env = vec![
        (
            "GOAL_SYSTEM_STATE_ROOT",
            base.join("state/goal-system").display().to_string(),
        ),
        ("GOAL_SYSTEM_WATCH_IDLE_MS", "60000".to_string()),
    ];
    for (k, v) in extra {
        env.push((k, v.to_string()));
    }
    Project { base, tree, env }
}

impl Project {
    fn cwd(&self) -> String {
        self.tree.display().to_string()
    }

    fn store(&self) -> Store {
        let state = self.base.join("state");
        Store::new(StoreConfig::new(&state, state.join("goal-system")))
    }

    /// Run the hook as Claude Code does; it must answer and exit promptly,
    /// whatever it started in the background.
    fn hook(&self, event: &str, mut payload: Value) -> Value {
        payload["session_id"] = json!(SESSION);
        payload["cwd"] = json!(self.cwd());
        payload["hook_event_name"] = json!(event);
        let mut child = Command::new(env!("CARGO_BIN_EXE_goal-hook"))
            .args(["--host", "claude", event])
            .envs(self.env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the hook did not return"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        // Its output closes although a watcher may run on: nothing holds it.
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The agent's shell ran `command` (after doing what it did to the tree).
    fn shell(&self, command: &str) {
        self.hook(
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": command},
                "tool_response": {"stdout": "done", "stderr": "", "interrupted": false}}),
        );
    }

    /// The user's goal, then a prompt (its hook observes the tree first).
    fn start_goal(&self) {
        let user = Caller::new(SESSION, self.cwd()).with_role(Role::User);
        goals::open(
            &self.store(),
            &user,
            &json!({"objective": "make greet.sh print hello twice"}),
        )
        .unwrap();
        self.hook("UserPromptSubmit", json!({"prompt": "go ahead"}));
        goals::update(
            &self.store(),
            &Caller::new(SESSION, self.cwd()),
            &json!({"status": "active", "requirements": ["R1"], "remaining": ["do it"]}),
        )
        .unwrap();
    }

    fn history(&self) -> goal_core::record::ToolHistory {
        let loaded = self.store().load(SESSION, Some(&self.cwd())).unwrap();
        loaded.goal.unwrap().tool_history
    }

    /// The running watcher's process id (from its lock file), once it answers.
    fn watcher(&self, not: Option<u32>) -> u32 {
        let start = Instant::now();
        loop {
            let answers = !matches!(
                watch::look(&self.store(), &self.tree, None),
                Look::Unavailable { .. }
            );
            if let Some(pid) = self.watcher_pid().filter(|p| Some(*p) != not) {
                if answers && alive(pid) && is_watcher(pid) {
                    return pid;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "no watcher started"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn watcher_pid(&self) -> Option<u32> {
        let lock = self
            .store()
            .config
            .root
            .join(watch::FOLDER)
            .join(format!("{}.lock", watch::name(&self.tree)));
        fs::read_to_string(lock).ok()?.trim().parse().ok()
    }
}

/// Whether the process runs (not gone, not a zombie: a zombie holds no
/// socket any more).
fn alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let state = s.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
        !matches!(state, Some(Some('Z' | 'X')) | None)
    })
}

fn is_watcher(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| c.contains("goal-hook") && c.contains("watch"))
}

fn signal(pid: u32, signal: &str) {
    let ok = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

fn gone_within(pid: u32, limit: Duration) {
    let start = Instant::now();
    while alive(pid) {
        assert!(start.elapsed() < limit, "watcher {pid} is still running");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The last change the history holds: the call that made it and its files.
fn changed(p: &Project) -> (String, Vec<String>) {
    let h = p.history();
    (h.last_change.unwrap_or_default(), h.last_change_files)
}

fn by(command: &str, files: &[&str]) -> (String, Vec<String>) {
    (
        format!("Bash: {command}"),
        files.iter().map(|f| f.to_string()).collect(),
    )
}

fn write(path: &Path, body: &str) {
    fs::write(path, body).unwrap();
}

#[test]
fn hooks_start_a_watcher_use_it_and_fall_back_when_it_is_killed_or_overflows() {
    let p = project("watch", &[]);
    p.start_goal();
    // The prompt's hook walked and started a watcher.
    let first = p.watcher(None);
    // A call that may change files asks it first for a mark (and walks);
    // then the watcher reports.
    p.shell("npm test");
    write(&p.tree.join("greet.sh"), "echo hello\necho hello\n");
    p.shell("sed -i p greet.sh");
    assert_eq!(changed(&p), by("sed -i p greet.sh", &["greet.sh"]));
    let mark = p.history().tree.unwrap().watch.expect("the watcher's mark");
    assert!(matches!(
        watch::look(&p.store(), &p.tree, Some(&mark)),
        Look::Changed { .. }
    ));
    fs::create_dir_all(p.tree.join("src/new")).unwrap();
    write(&p.tree.join("src/new/a.rs"), "fn a() {}");
    p.shell("mkdir -p src/new && touch src/new/a.rs");
    assert_eq!(
        changed(&p),
        by(
            "mkdir -p src/new && touch src/new/a.rs",
            &["src/new", "src/new/a.rs"]
        )
    );

    // Killed: the next hook walks (nothing missed) and starts another.
    signal(first, "-KILL");
    gone_within(first, Duration::from_secs(5));
    write(&p.tree.join("greet.sh"), "echo bye\n");
    p.shell("echo bye > greet.sh");
    assert_eq!(changed(&p), by("echo bye > greet.sh", &["greet.sh"]));
    let second = p.watcher(Some(first));
    p.shell("npm test");
    assert!(p.history().tree.unwrap().watch.is_some());

    // Its queue overflows while it is stopped: the change made meanwhile is
    // among the events lost, and still seen (the watcher makes its watches
    // again and the hook walks).
    let queue: usize = fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(16_384);
    signal(second, "-STOP");
    for i in 0..queue / 2 + 2_000 {
        fs::File::create(p.tree.join(format!("noise-{i}.log"))).unwrap();
    }
    write(&p.tree.join("greet.sh"), "echo after the flood\n");
    signal(second, "-CONT");
    p.shell("bash greet.sh > run.log");
    assert_eq!(changed(&p), by("bash greet.sh > run.log", &["greet.sh"]));
    assert!(alive(second), "the same watcher goes on after an overflow");

    // It leaves with its state folder: no process outlives the test.
    drop(p);
    gone_within(second, Duration::from_secs(10));
}

#[test]
fn no_watcher_when_turned_off() {
    let p = project("watch-off", &[("GOAL_SYSTEM_WATCH", "off")]);
    p.start_goal();
    write(&p.tree.join("greet.sh"), "echo hello twice\n");
    p.shell("sed -i p greet.sh");
    assert_eq!(changed(&p), by("sed -i p greet.sh", &["greet.sh"]));
    std::thread::sleep(Duration::from_millis(300));
    assert!(!p.store().config.root.join(watch::FOLDER).exists());
    assert_eq!(p.history().tree.unwrap().watch, None);
}
