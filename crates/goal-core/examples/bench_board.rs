//! What the context board adds to a hook: `board::context_note` on a full
//! board (25 items) inside a git repository, for a session that has already
//! seen it (every hook after the first: git files read, board read and
//! rendered) and for a session's first sight (that also counts it: one locked,
//! durable write). Compared with the whole SessionStart decision without a board.
//!
//! `cargo run --release -p goal-core --example bench_board [iterations]`

use goal_core::board::{self, Actor, Scope, CAPACITY};
use goal_core::hooks::{self, Event, Host};
use goal_core::store::{Store, StoreConfig};
use serde_json::json;
use std::fs;
use std::time::{Duration, Instant};

fn stats(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<44} n={:<5} median {:>9.3} ms   p95 {:>9.3} ms   max {:>9.3} ms",
        samples.len(),
        pick(0.5).as_secs_f64() * 1e3,
        pick(0.95).as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
    );
}

fn time<F: FnMut(usize)>(iterations: usize, mut f: F) -> Vec<Duration> {
    (0..iterations)
        .map(|i| {
            let start = Instant::now();
            f(i);
            start.elapsed()
        })
        .collect()
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(500);
    let base = std::env::temp_dir().join(format!("goal-bench-board-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    // A repository as git writes it, with the hook's cwd two folders down.
    let repo = base.join("repo");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(repo.join("src/deep")).unwrap();
    fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(
        repo.join(".git/config"),
        "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = git@github.com:acme/widgets.git\n",
    )
    .unwrap();
    let cwd = repo.join("src/deep").to_string_lossy().into_owned();
    let session_state = base.join("session-state");
    let config = StoreConfig::new(&session_state, session_state.join("goal-system"));
    let store = Store::new(config.clone());

    let bare = |i: usize| {
        let payload = json!({"sessionId": format!("plain-{i}"), "cwd": base.to_string_lossy(), "source": "new"});
        hooks::decide(
            &store,
            Host::CopilotCli,
            Event::SessionStart,
            &payload,
            &goal_core::provenance::Origin::host(Host::CopilotCli),
        )
        .unwrap();
    };
    stats("SessionStart decision, no board", time(iterations, bare));

    let scope = Scope::detect(&cwd, None).unwrap();
    for n in 0..CAPACITY {
        let add = json!({"command": "add", "name": format!("lesson-{n}"), "description": format!("a reusable lesson number {n} about this repository"), "context": "x".repeat(600)});
        board::run(&store, &scope, Actor::Agent, "", &add).unwrap();
    }
    board::context_note(&store, &cwd, "seen").unwrap();
    stats(
        "context_note, 25 items, session seen",
        time(iterations, |_| {
            board::context_note(&store, &cwd, "seen").unwrap();
        }),
    );
    stats(
        "context_note, 25 items, first sight",
        time(iterations.min(200), |i| {
            board::context_note(&store, &cwd, &format!("new-{i}")).unwrap();
        }),
    );
    stats(
        "context_note outside git, no board",
        time(iterations, |_| {
            assert!(board::context_note(&store, &base.to_string_lossy(), "seen").is_none());
        }),
    );
    let _ = fs::remove_dir_all(&base);
}
