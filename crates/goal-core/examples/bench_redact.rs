//! Redaction throughput on mixed agent output at 1, 10 and 100 MB.
//!
//! ```text
//! cargo run --release -p goal-core --example bench_redact
//! ```
//!
//! The text mixes what agents produce (code, compiler and test output, JSON
//! tool results, git logs, paths, UUIDs, prose, secret-looking names in
//! code) with a secret every few kilobytes. Each size prints MB/s of
//! `redact` and how many times a plain copy's time it takes (memcpy of the
//! same bytes into a buffer allocated beforehand, timed in the same run,
//! alternating with it), then the time of 100 MB over the time of 10 MB
//! (linear growth is 10x). Each figure is the fastest of several samples;
//! on Linux the clock is the thread's CPU time, so that time the shared
//! machine gives to other processes is not counted (wall clock is shown
//! too). Buffers are fresh memory at every size, as in a hook process (see
//! `fresh_memory`), and the process declares itself short-lived as the hook
//! does, so a big output takes huge pages as it does there. Each size also
//! states the process's peak resident memory and what redaction adds to
//! it over the text and the copy's buffer (Linux).

use std::hint::black_box;
use std::time::{Duration, Instant};

const MB: usize = 1 << 20;

/// Deterministic xorshift, so every run times the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).expect("small")
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next(items.len())]
    }

    /// Random characters of `alphabet`.
    fn chars(&mut self, alphabet: &str, n: usize) -> String {
        let bytes = alphabet.as_bytes();
        (0..n)
            .map(|_| char::from(bytes[self.next(bytes.len())]))
            .collect()
    }
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";

/// One line of ordinary agent output: mostly code, build and test output;
/// one line in four names a secret in code or prose without holding one.
fn ordinary(rng: &mut Rng) -> String {
    if rng.next(4) > 0 {
        return plain(rng);
    }
    match rng.next(12) {
        0 => format!(
            "    let token = self.{}.get_token(&request)?;",
            rng.pick(&["auth", "client", "session"])
        ),
        1 => "pub struct Login { password: String, token: Option<String>, api_key: Secret }"
            .to_string(),
        2 => format!(
            "   Compiling goal-core v0.1.0 (/work/main/crates/goal-core)  [{}ms]",
            rng.next(900)
        ),
        3 => format!(
            "{{\"tool\":\"bash\",\"args\":{{\"command\":\"cargo test -p goal-core {}\"}},\"result\":\"test result: ok. {} passed; 0 failed\"}}",
            rng.pick(&["redact", "store", "hooks"]),
            rng.next(200)
        ),
        4 => format!(
            "commit {}\nAuthor: Dev <dev@example.com>\n\n    Fix the tokenizer's max_tokens: 4096 limit",
            rng.chars(HEX, 40)
        ),
        5 => format!(
            "src/redact/{}.rs:{}:{}: warning: unused variable `secret_key`",
            rng.pick(&["engine", "rules", "heuristics"]),
            rng.next(900),
            rng.next(80)
        ),
        6 => format!(
            "request {}-{}-{}-{}-{} finished in {} ms",
            rng.chars(HEX, 8),
            rng.chars(HEX, 4),
            rng.chars(HEX, 4),
            rng.chars(HEX, 4),
            rng.chars(HEX, 12),
            rng.next(500)
        ),
        7 => "The agent reads the key file, checks the password policy and refreshes the access token when it expires.".to_string(),
        8 => "      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}".to_string(),
        9 => format!(
            "drwxr-xr-x  2 user user 4096 Nov 24 06:{:02} /home/user/project/node_modules/.bin",
            rng.next(60)
        ),
        10 => "const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };".to_string(),
        _ => format!(
            "  {} | {}",
            rng.next(1000),
            rng.pick(&[
                "fn main() { println!(\"hello\"); }",
                "if (!token) return res.status(401).end();",
                "export PATH=$HOME/.cargo/bin:$PATH",
                "diff --git a/src/lib.rs b/src/lib.rs",
            ])
        ),
    }
}

/// A line without any secret-like word.
fn plain(rng: &mut Rng) -> String {
    match rng.next(6) {
        0 => format!(
            "test store::tests::writer_{} ... ok",
            rng.pick(&["keeps_copies", "survives_kill", "merges_lists"])
        ),
        1 => format!(
            "    at Object.<anonymous> (/home/user/project/src/index.js:{}:{})",
            rng.next(400),
            rng.next(80)
        ),
        2 => format!(
            "    for (i, item) in items.iter().enumerate().take({}) {{ out.push(item.clone()); }}",
            rng.next(64)
        ),
        3 => format!(
            "+        let value = map.get(&id).copied().unwrap_or({});",
            rng.next(9)
        ),
        4 => format!(
            "{} files changed, {} insertions(+), {} deletions(-)",
            rng.next(30),
            rng.next(900),
            rng.next(400)
        ),
        _ => {
            "warning: `goal-core` (lib) generated 1 warning (run `cargo fix` to apply 1 suggestion)"
                .to_string()
        }
    }
}

/// One line carrying a fake secret, built from random pieces.
fn secret(rng: &mut Rng) -> String {
    match rng.next(6) {
        0 => format!(
            "export GITHUB_TOKEN={}{}",
            ["gh", "p_"].concat(),
            rng.chars(ALNUM, 36)
        ),
        1 => format!("DB_PASSWORD={}", rng.chars(ALNUM, 12)),
        2 => format!(
            "curl -H \"Authorization: Bearer {}\" https://api.example.com",
            rng.chars(ALNUM, 40)
        ),
        3 => format!(
            "psql postgres://admin:{}@db.internal:5432/app",
            rng.chars(ALNUM, 16)
        ),
        4 => format!(
            "{{\"api_key\": \"{}{}\"}}",
            ["sk", "-proj-"].concat(),
            rng.chars(ALNUM, 48)
        ),
        _ => format!("aws_secret_access_key = {}", rng.chars(ALNUM, 40)),
    }
}

fn mixed_text(size: usize) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut text = String::with_capacity(size + 4096);
    while text.len() < size {
        // About one secret per 3 KB.
        let line = if rng.next(40) == 0 {
            secret(&mut rng)
        } else {
            ordinary(&mut rng)
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// Time this thread has run on a CPU (Linux: `/proc/thread-self/schedstat`,
/// nanoseconds, brought up to date at least every scheduler tick); `None`
/// elsewhere.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Wall and CPU time per call of `repeat` calls of `f`.
fn time(repeat: u32, f: &mut dyn FnMut()) -> (Duration, Option<Duration>) {
    let (wall, cpu) = (Instant::now(), cpu_time());
    for _ in 0..repeat {
        f();
    }
    let cpu = cpu.zip(cpu_time()).map(|(from, to)| (to - from) / repeat);
    (wall.elapsed() / repeat, cpu)
}

/// Fastest of `runs` samples of `redact` and of `copy`, taken alternately
/// so that both see the same load; a sample repeats its call (`repeat`:
/// redact, copy) so that it outlasts the CPU clock's resolution by far.
fn fastest<'f>(
    runs: usize,
    repeat: [u32; 2],
    redact: &'f mut dyn FnMut(),
    copy: &'f mut dyn FnMut(),
) -> [(Duration, Option<Duration>); 2] {
    let mut best = [(Duration::MAX, None::<Duration>); 2];
    for _ in 0..runs {
        for (slot, which) in best.iter_mut().zip([false, true]) {
            let f: &mut dyn FnMut() = if which { &mut *copy } else { &mut *redact };
            let (wall, cpu) = time(repeat[usize::from(which)], f);
            slot.0 = slot.0.min(wall);
            slot.1 = match (slot.1, cpu) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }
    best
}

fn mb_f64(bytes: usize) -> f64 {
    bytes as f64 / MB as f64
}

fn mb_per_s(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / MB as f64 / time.as_secs_f64()
}

/// What issue 29 asks of redaction.
const TARGET_MB_PER_S: f64 = 500.0;
const TARGET_GROWTH: f64 = 10.5;

/// A `kB` field of `/proc/self/status` (`VmRSS`, `VmHWM`), in MB.
fn status_mb(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Resets the peak resident size (`VmHWM`) to the current one (Linux 4.0+).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Every big buffer fresh from the kernel, at every size, as in a hook
/// process (which redacts once and exits). Otherwise glibc hands the freed 1
/// and 10 MB outputs back to the next call, warm, while it maps 100 MB fresh
/// each time (its threshold for mapping rises after a free, up to 32 MB):
/// the sizes would not be timed alike.
#[cfg(target_os = "linux")]
fn fresh_memory() {
    // SAFETY: called first in main, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

#[cfg(not(target_os = "linux"))]
fn fresh_memory() {}

fn main() {
    fresh_memory();
    goal_core::buffer::short_lived();
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(one) => vec![one.parse().expect("size in MB")],
        None => vec![1, 10, 100],
    };
    let runs = |size_mb: usize| if size_mb >= 100 { 5 } else { 9 };
    // A sample covers at least 50 MB of text (2 GB for a copy, which is
    // about fifty times as fast).
    let repeat = |size_mb: usize| {
        let calls = |mb: usize| u32::try_from(mb.div_ceil(size_mb)).expect("few calls");
        [calls(50), calls(2000)]
    };
    let clock = if cpu_time().is_some() {
        "this thread's CPU time [wall clock in brackets]"
    } else {
        "wall clock"
    };
    println!("redaction of mixed agent output; copy = memcpy of the same bytes");
    println!(
        "clock: {clock}; fastest of several samples, each repeating the call over at least 50 MB (copy: 2 GB)"
    );
    println!(
        "target: at least {TARGET_MB_PER_S} MB/s at every size, 100 MB within {TARGET_GROWTH}x the time of 10 MB"
    );
    println!(
        "memory: fresh at every call, huge pages for big outputs, as in the hook process; peak RSS per size, and what redaction adds over the text and the copy's buffer"
    );
    let mut times = Vec::new();
    let mut met = true;
    for &size_mb in &sizes {
        let text = mixed_text(size_mb * MB);
        let redacted = goal_core::redact::redact(&text);
        let changed = text
            .lines()
            .zip(redacted.lines())
            .filter(|(a, b)| a != b)
            .count();
        drop(redacted);
        let mut buffer = vec![0u8; text.len()];
        buffer.copy_from_slice(text.as_bytes());
        let resident = status_mb("VmRSS:");
        let peak_reset = reset_peak();
        let [(redact_wall, redact_cpu), (copy_wall, copy_cpu)] = fastest(
            runs(size_mb),
            repeat(size_mb),
            &mut || {
                black_box(goal_core::redact::redact(black_box(&text)));
            },
            &mut || {
                buffer.copy_from_slice(black_box(text.as_bytes()));
                black_box(&buffer);
            },
        );
        let redact = redact_cpu.unwrap_or(redact_wall);
        let copy = copy_cpu.unwrap_or(copy_wall);
        let speed = mb_per_s(text.len(), redact);
        met &= speed >= TARGET_MB_PER_S;
        println!(
            "{size_mb:>4} MB: redact {speed:>6.1} MB/s [{:>6.1}]  copy {:>7.1} MB/s [{:>7.1}]  redact/copy time {:>5.1}x  ({changed} lines redacted; {} samples of {} calls)",
            mb_per_s(text.len(), redact_wall),
            mb_per_s(text.len(), copy),
            mb_per_s(text.len(), copy_wall),
            redact.as_secs_f64() / copy.as_secs_f64(),
            runs(size_mb),
            repeat(size_mb)[0],
        );
        match (resident, status_mb("VmHWM:"), peak_reset) {
            (Some(before), Some(peak), true) => println!(
                "        peak RSS {peak:.0} MB; redaction adds {:.1} MB to the {:.0} MB of text and copy buffer ({:.2}x the text)",
                peak - before,
                before,
                (peak - before) / mb_f64(text.len()),
            ),
            _ => println!("        peak RSS: not available here"),
        }
        times.push(redact);
    }
    if times.len() == 3 {
        let growth = times[2].as_secs_f64() / times[1].as_secs_f64();
        met &= growth <= TARGET_GROWTH;
        println!("growth: 100 MB takes {growth:.1}x the time of 10 MB (linear: 10x)");
    }
    println!("target {}", if met { "met" } else { "NOT met" });
}
