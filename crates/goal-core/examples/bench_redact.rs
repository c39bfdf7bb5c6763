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
//!
//! `--once <MB>` redacts the bench text (once to compile the rules, then
//! once in `measured`) and prints its output's
//! SHA-256 (`--gen <MB>` only generates it, to subtract under an
//! instruction counter); `--stdin` redacts standard input to standard
//! output, to compare two builds' outputs on any text.

#[path = "support/mixed_text.rs"]
mod support;

use std::hint::black_box;
use std::io::{Read, Write};

use std::time::{Duration, Instant};

use support::mixed_text;

const MB: usize = 1 << 20;

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

/// The steady-state redaction `--once` counts.
#[inline(never)]
fn measured(text: &str) -> std::borrow::Cow<'_, str> {
    goal_core::redact::redact(black_box(text))
}

/// One redaction, no timing, for instruction counters (`--once <MB>`:
/// the bench text, `--gen <MB>`: only its generation, to subtract) and for
/// comparing outputs (`--stdin`: redacts standard input to standard output).
fn one_shot(mode: &str, arg: Option<String>) -> bool {
    let size = || {
        arg.as_deref()
            .and_then(|a| a.parse::<usize>().ok())
            .unwrap_or(10)
            * MB
    };
    match mode {
        "--once" => {
            let text = mixed_text(size());
            // Rules compiled first, as in the timed runs (callgrind:
            // `--toggle-collect='bench_redact::measured'`).
            drop(goal_core::redact::redact(&text));
            let out = measured(&text);
            println!(
                "{} bytes -> {} bytes, {}",
                text.len(),
                out.len(),
                goal_core::redact::fingerprint(&out)
            );
        }
        "--gen" => {
            let text = mixed_text(size());
            println!(
                "{} bytes, {}",
                text.len(),
                goal_core::redact::fingerprint(&text)
            );
        }
        "--stdin" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .expect("UTF-8 on stdin");
            let out = goal_core::redact::redact(&text);
            std::io::stdout().write_all(out.as_bytes()).expect("stdout");
        }
        _ => return false,
    }
    true
}

fn main() {
    fresh_memory();
    goal_core::buffer::short_lived();
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if let Some(mode) = first.as_deref().filter(|a| a.starts_with("--")) {
        assert!(
            one_shot(mode, args.next()),
            "modes: --once <MB>, --gen <MB>, --stdin"
        );
        return;
    }
    let sizes: Vec<usize> = match first {
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
