//! First-call cost of `goal_core::redact::redact` in a fresh process.
//!
//! The native hook is one short-lived process per tool call, so what matters
//! is the cost of the *first* redaction (rule compilation included), not the
//! steady state. Every measurement therefore runs in its own child process:
//!
//! ```text
//! cargo run --release -p goal-core --example redact_init
//! cargo run --release -p goal-core --example redact_init -- clean   # one case
//! ```
//!
//! Cases: `clean` (a short tool summary without a secret), `token` (a short
//! summary with one GitHub token), `assignment` (a `password=` assignment)
//! and `url` (a URL with credentials).

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs of each case; the report shows the median and the minimum.
const RUNS: usize = 15;

/// Fake secrets are assembled at run time (no secret-shaped literal in the
/// source).
fn input(case: &str) -> Option<String> {
    let filler: String = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zLc"
        .chars()
        .cycle()
        .take(36)
        .collect();
    Some(match case {
        "clean" => "bash: cargo test --release".to_string(),
        "token" => format!(
            "bash: git push https://{}{}{filler}@github.com/o/r",
            "gh", "p_"
        ),
        "assignment" => "bash: mysql password=hunter2 -h db".to_string(),
        "url" => "bash: psql postgres://admin:hunter2@db.internal/app".to_string(),
        _ => return None,
    })
}

/// Child mode: time the first and the second call, print both in ns.
fn measure(case: &str) {
    let text = input(case).unwrap_or_else(|| panic!("unknown case {case:?}"));
    let t = Instant::now();
    let first = goal_core::redact::redact(&text).into_owned();
    let first_ns = t.elapsed().as_nanos();
    let again = format!("{text} again");
    let t = Instant::now();
    let _ = goal_core::redact::redact(&again);
    let second_ns = t.elapsed().as_nanos();
    println!("{first_ns} {second_ns} {first}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [case] = args.as_slice() {
        measure(case);
        return;
    }
    let exe = std::env::current_exe().expect("current exe");
    println!("first/second redact() call in a fresh process, {RUNS} runs each (median, min)");
    for case in ["clean", "token", "assignment", "url"] {
        let mut firsts = Vec::new();
        let mut seconds = Vec::new();
        let mut output = String::new();
        for _ in 0..RUNS {
            let out = Command::new(&exe).arg(case).output().expect("run child");
            assert!(out.status.success(), "child failed for {case}");
            let line = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
            let mut parts = line.splitn(3, ' ');
            let mut next_ns = || -> u64 {
                parts
                    .next()
                    .and_then(|p| p.parse().ok())
                    .expect("child prints timings")
            };
            firsts.push(Duration::from_nanos(next_ns()));
            seconds.push(Duration::from_nanos(next_ns()));
            output = parts.next().unwrap_or_default().to_string();
        }
        firsts.sort();
        seconds.sort();
        println!(
            "{case:>10}: first {:>10.3?} (min {:>10.3?})  second {:>9.3?}  -> {output}",
            firsts[RUNS / 2],
            firsts[0],
            seconds[RUNS / 2],
        );
    }
}
