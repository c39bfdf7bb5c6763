//! What the memory layers add to a hook, at 25 board items and 1,000
//! memories in a git repository:
//! - the recall at a user prompt (`memory::recall_note`: the board and the
//!   ranking cache read, every item and memory ranked, the lines rendered),
//!   for a prompt naming a stored subject and for one naming none, and the
//!   ranking alone on what is already read (`inject::render_recall`);
//! - the session-start block (`memory::session_note`);
//! - the rebuild of the ranking cache after the memory file changed (1,000
//!   JSON lines parsed), and a vote (the file and the cache rewritten);
//! - the whole UserPrompt and SessionStart decisions with the memories, beside
//!   the same decisions in a repository with the same board and no memories
//!   (the session has seen the board already: its first sight is a durable
//!   write that `bench_board` measures).
//!
//! `cargo run --release -p goal-core --example bench_memory [iterations]`

use goal_core::board::{self, Actor, Scope, CAPACITY};
use goal_core::hooks::{self, Event, Host};
use goal_core::memory::{self, file::Repo, index, inject};
use goal_core::store::{Store, StoreConfig};
use serde_json::json;
use std::fs;
use std::time::{Duration, Instant};

const MEMORIES: usize = 1000;
const WORDS: [&str; 40] = [
    "build",
    "cargo",
    "test",
    "auth",
    "token",
    "refresh",
    "database",
    "migration",
    "schema",
    "deploy",
    "release",
    "docs",
    "parser",
    "lexer",
    "cache",
    "index",
    "router",
    "handler",
    "session",
    "login",
    "config",
    "logging",
    "metrics",
    "queue",
    "worker",
    "retry",
    "timeout",
    "payment",
    "invoice",
    "email",
    "template",
    "upload",
    "storage",
    "bucket",
    "search",
    "ranking",
    "export",
    "import",
    "locale",
    "theme",
];

fn stats(name: &str, mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<52} n={:<5} median {:>8.3} ms   p95 {:>8.3} ms   max {:>8.3} ms",
        samples.len(),
        pick(0.5).as_secs_f64() * 1e3,
        pick(0.95).as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
    );
    pick(0.5).as_secs_f64() * 1e3
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

/// A memory line of a realistic size (~450 bytes), each a different fact: a
/// subject of two words, a fact of about 25 words (picked by a fixed
/// pseudo-random sequence) with a path, citations, reason, source, votes.
fn memory_line(i: usize) -> String {
    let mut state = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut w = || {
        state ^= state >> 33;
        state = state.wrapping_mul(0xff51_afd7_ed55_8ccd);
        WORDS[(state >> 40) as usize % WORDS.len()]
    };
    let subject = format!("{} {}", w(), w());
    let fact: Vec<&str> = (0..22).map(|_| w()).collect();
    let (dir, file) = (w(), w());
    json!({
        "id": format!("mem-{i:010x}"),
        "subject": subject,
        "fact": format!("{} (see src/{dir}/{file}.rs, case {i}).", fact.join(" ")),
        "citations": format!("src/{dir}/{file}.rs:{}", 10 + i % 90),
        "reason": "Future tasks touching this area need it without rediscovering it.",
        "source": {"host": "claude-code", "session": "5cb384d5-1111-2222-3333-444455556666", "time": format!("2026-{:02}-{:02}T10:00:00Z", 1 + i % 11, 1 + i % 28)},
        "votes": {"up": (i % 5) as u32, "down": u32::from(i.is_multiple_of(7))},
    })
    .to_string()
}

/// A repository as git writes it, with the hook's cwd two folders down.
fn make_repo(dir: &std::path::Path, origin: &str) -> String {
    fs::create_dir_all(dir.join(".git")).unwrap();
    fs::create_dir_all(dir.join("src/deep")).unwrap();
    fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(
        dir.join(".git/config"),
        format!("[remote \"origin\"]\n\turl = {origin}\n"),
    )
    .unwrap();
    dir.join("src/deep").to_string_lossy().into_owned()
}

fn fill_board(store: &Store, cwd: &str) {
    let scope = Scope::detect(cwd, None).unwrap();
    for n in 0..CAPACITY {
        let w = |k: usize| WORDS[(n * 3 + k) % WORDS.len()];
        let add = json!({"command": "add", "name": format!("{}-{}-{n}", w(0), w(5)), "description": format!("How the {} {} works in this repository", w(0), w(5)), "context": "x".repeat(600)});
        board::run(store, &scope, Actor::Agent, "", &add).unwrap();
    }
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(400);
    let base = std::env::temp_dir().join(format!("goal-bench-memory-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let repo = base.join("repo");
    let cwd = make_repo(&repo, "git@github.com:acme/widgets.git");
    let bare_cwd = make_repo(&base.join("bare"), "git@github.com:acme/bare.git");
    let session_state = base.join("session-state");
    let store = Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ));
    fill_board(&store, &cwd);
    fill_board(&store, &bare_cwd);
    let lines: String = (0..MEMORIES).map(|i| memory_line(i) + "\n").collect();
    fs::create_dir_all(repo.join(".github")).unwrap();
    fs::write(repo.join(memory::RELATIVE_PATH), &lines).unwrap();
    println!(
        "repository: {CAPACITY} board items, {MEMORIES} memories ({} KB of JSON lines)",
        lines.len() / 1024
    );

    let hit = "the auth token refresh fails after the database migration";
    let miss = "say hello and wave";
    // First read: builds the ranking cache.
    assert!(
        memory::recall_note(&store, &cwd, "s", hit).is_some(),
        "a recall for the hit"
    );
    assert!(
        memory::recall_note(&store, &cwd, "s", miss).is_none(),
        "none for the miss"
    );

    let recall_hit = stats(
        "recall at a prompt naming stored subjects",
        time(iterations, |_| {
            memory::recall_note(&store, &cwd, "s", hit).unwrap();
        }),
    );
    stats(
        "recall at a prompt naming none (nothing injected)",
        time(iterations, |_| {
            assert!(memory::recall_note(&store, &cwd, "s", miss).is_none());
        }),
    );
    let repo_found = Repo::find(&cwd).unwrap();
    let idx = index::load(&store, &repo_found).unwrap().unwrap();
    assert_eq!(idx.len(), MEMORIES, "every memory is a different fact");
    let items: Vec<board::ItemMeta> = board::peek(&store, &cwd)
        .unwrap()
        .items
        .iter()
        .map(board::metadata)
        .collect();
    stats(
        "ranking alone (board and memories already read)",
        time(iterations, |_| {
            inject::render_recall(&items, &idx, hit, "").unwrap();
        }),
    );
    let session = stats(
        "session-start block (most useful within 2,000 chars)",
        time(iterations, |_| {
            memory::session_note(&store, &cwd, "s", "").unwrap();
        }),
    );
    stats(
        "session-start block, first prompt naming stored subjects",
        time(iterations, |_| {
            memory::session_note(&store, &cwd, "s", hit).unwrap();
        }),
    );
    stats(
        "ranking cache rebuilt after the file changed",
        time(iterations.min(100), |i| {
            // Another size each time: the cache sees a new version of the file.
            fs::write(
                repo.join(memory::RELATIVE_PATH),
                format!("{lines}{}\n", " ".repeat(i + 1)),
            )
            .unwrap();
            memory::recall_note(&store, &cwd, "s", hit).unwrap();
        }),
    );
    fs::write(repo.join(memory::RELATIVE_PATH), &lines).unwrap();
    memory::recall_note(&store, &cwd, "s", hit).unwrap();

    // One session, which has seen both boards: what differs is the memories.
    // A write at the limit: the file rewritten atomically and the cache with it.
    let caller = memory::Caller::from_parts(false, None, None, Some("bench"), Some("bench"));
    stats(
        "a vote at 1,000 memories (file and cache rewritten)",
        time(iterations.min(100), |_| {
            let vote = memory::Command::Vote {
                target: memory::Target::Id(format!("mem-{:010x}", 0)),
                direction: memory::record::Direction::Up,
                reason: "bench".into(),
            };
            memory::run(&store, &cwd, &caller, vote).unwrap();
        }),
    );
    let decide = |dir: &str, event: Event| {
        let payload =
            json!({"sessionId": "bench-session", "cwd": dir, "prompt": hit, "source": "new"});
        let host = goal_core::provenance::Origin::host(Host::CopilotCli);
        hooks::decide(&store, Host::CopilotCli, event, &payload, &host).unwrap();
    };
    decide(&cwd, Event::SessionStart);
    decide(&bare_cwd, Event::SessionStart);
    let prompt_without = stats(
        "UserPrompt decision, 25 items, no memories",
        time(iterations, |_| decide(&bare_cwd, Event::UserPrompt)),
    );
    let prompt_with = stats(
        "UserPrompt decision, 25 items + 1,000 memories",
        time(iterations, |_| decide(&cwd, Event::UserPrompt)),
    );
    let start_without = stats(
        "SessionStart decision, 25 items, no memories",
        time(iterations, |_| decide(&bare_cwd, Event::SessionStart)),
    );
    let start_with = stats(
        "SessionStart decision, 25 items + 1,000 memories",
        time(iterations, |_| decide(&cwd, Event::SessionStart)),
    );
    println!(
        "recall median {recall_hit:.3} ms, session block median {session:.3} ms; UserPrompt decision {:.2}x, SessionStart decision {:.2}x the same decision without memories (same run)",
        prompt_with / prompt_without,
        start_with / start_without
    );
    if std::env::var_os("KEEP").is_none() {
        let _ = fs::remove_dir_all(&base);
    } else {
        println!("kept {}", base.display());
    }
}
