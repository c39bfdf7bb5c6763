//! Cost of the durable store's hot paths, in a temporary folder:
//! one `modify` (lock, read three copies, write three copies, the by-session
//! one durably: see the store's module docs) and
//! `goals_in_cwd` with 10,000 goals of other directories in the index.
//!
//! `cargo run --release -p goal-core --example bench_store [iterations]`
//! (set TMPDIR to bench another file system).

use goal_core::clock::now_iso;
use goal_core::store::{cwd_hash, io_counts, Change, Store, StoreConfig};
use goal_core::{Goal, Status};
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

fn time<F: FnMut()>(iterations: usize, mut f: F) -> Vec<Duration> {
    (0..iterations)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect()
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let base = std::env::temp_dir().join(format!("goal-bench-store-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let session_state = base.join("session-state");
    let store = Store::new(StoreConfig::new(
        &session_state,
        session_state.join("goal-system"),
    ));
    let cwd = "/work/bench";
    println!("store in {}", base.display());

    let mut goal = Goal::new(
        "goal-bench".into(),
        "bench-session".into(),
        cwd.into(),
        "measure the store".into(),
        Status::Active,
        now_iso(),
    );
    goal.requirements = (0..20).map(|i| format!("requirement {i}")).collect();
    store.save(&goal).unwrap();

    let mut n = 0u64;
    let mut update = || {
        n += 1;
        store
            .modify("bench-session", Some(cwd), |current, _| {
                let mut g = current.unwrap();
                g.done_so_far.push(format!("step {n}"));
                g.updated_at = now_iso();
                Ok((Change::Save(g), ()))
            })
            .unwrap();
    };
    for _ in 0..10 {
        update();
    }
    let before = io_counts();
    update();
    let one = io_counts() - before;
    println!(
        "{:<44} fsyncs {}   renames {}",
        "one durable update", one.fsyncs, one.renames
    );
    stats(
        "modify (durable update: 3 renames, 1 flush)",
        time(iterations, &mut update),
    );
    durability_costs(&base, iterations, &mut update);
    stats(
        "load (lock + read 3 copies)",
        time(iterations, || {
            store.load("bench-session", Some(cwd)).unwrap();
        }),
    );

    // 10,000 goals of other directories in the index (written directly, no fsync).
    let index = store.config.root.join("by-cwd-session");
    let template = serde_json::to_value(&goal).unwrap();
    for i in 0..10_000 {
        let other = format!("/work/other/{i}");
        let session = format!("other-{i}");
        let mut g = template.clone();
        g["id"] = format!("goal-other-{i}").into();
        g["sessionId"] = session.clone().into();
        g["cwd"] = other.clone().into();
        g["doneSoFar"] = serde_json::json!([]);
        fs::write(
            index.join(format!("{}--{session}.json", cwd_hash(&other))),
            serde_json::to_vec_pretty(&g).unwrap(),
        )
        .unwrap();
    }
    assert_eq!(store.goals_in_cwd(cwd).unwrap().len(), 1);
    stats(
        "goals_in_cwd (10,000 other goals in index)",
        time(iterations, || {
            assert_eq!(store.goals_in_cwd(cwd).unwrap().len(), 1);
        }),
    );
    stats(
        "modify with 10,000 goals in the index",
        time(iterations, &mut update),
    );
    stats(
        "load without cwd (scans the index)",
        time(iterations, || {
            store.load("bench-session", None).unwrap();
        }),
    );

    // Oversized list updates through the real entry point (goal_system_update):
    // refused before any work, whatever their length.
    let caller = goal_core::goals::Caller::new("bench-session", cwd);
    for count in [24_000usize, 100_000] {
        let items: Vec<String> = (0..count).map(|i| format!("item number {i}")).collect();
        let request = serde_json::json!({ "doneSoFar": items });
        let started = Instant::now();
        let result = goal_core::goals::update(&store, &caller, &request);
        println!(
            "{:<44} {:>9.3} ms   {}",
            format!("update with {count} list items"),
            started.elapsed().as_secs_f64() * 1e3,
            match result {
                Ok(_) => "accepted".to_string(),
                Err(e) => format!("refused ({})", e.code.as_str()),
            }
        );
    }

    let _ = fs::remove_dir_all(&base);
}

/// What each of the store's promises costs, measured interleaved with the
/// floor of `bench/hooks.mjs` (write a 4 KB temp file, fsync it, rename it
/// over the target): the same plus the folder's fsync (what makes the
/// rename survive a power cut), the earlier store's sequence with plain file
/// calls (two more copies, each a temp file renamed over), the store's
/// sequence now (three copies renamed without fsync, then one slot
/// rewritten in place and fdatasynced), and the real `modify` (lock, reads,
/// seal, writes).
fn durability_costs(base: &std::path::Path, iterations: usize, update: &mut dyn FnMut()) {
    use std::io::Write;
    let dir = base.join("plain");
    let dirs: Vec<_> = (0..3).map(|i| dir.join(format!("d{i}"))).collect();
    for d in &dirs {
        fs::create_dir_all(d).unwrap();
    }
    let page = vec![b'x'; 4096];
    let write = |d: &std::path::Path, sync: bool| {
        let tmp = d.join(".copy.tmp");
        let mut f = fs::File::create(&tmp).unwrap();
        f.write_all(&page).unwrap();
        if sync {
            f.sync_all().unwrap();
        }
        fs::rename(&tmp, d.join("copy.json")).unwrap();
    };
    let sync_dir = |d: &std::path::Path| fs::File::open(d).unwrap().sync_all().unwrap();
    let names = [
        "floor: temp, fsync, rename",
        "+ the folder's fsync",
        "+ two more copies (the earlier store)",
        "3 renames, 1 slot in place + fdatasync",
        "the store's modify",
    ];
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); names.len()];
    for _ in 0..iterations {
        let mut timed = |k: usize, f: &mut dyn FnMut()| {
            let start = Instant::now();
            f();
            samples[k].push(start.elapsed());
        };
        timed(0, &mut || write(&dirs[0], true));
        timed(1, &mut || {
            write(&dirs[0], true);
            sync_dir(&dirs[0]);
        });
        timed(2, &mut || {
            write(&dirs[1], false);
            write(&dirs[2], false);
            write(&dirs[0], true);
            sync_dir(&dirs[0]);
        });
        timed(3, &mut || {
            for d in &dirs {
                write(d, false);
            }
            let mut slot = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(dir.join("slot"))
                .unwrap();
            slot.write_all(&page).unwrap();
            slot.sync_data().unwrap();
        });
        timed(4, update);
    }
    let median = |s: &mut Vec<Duration>| {
        s.sort();
        s[s.len() / 2].as_secs_f64() * 1e3
    };
    let floor = median(&mut samples[0]);
    println!("what durability costs, {iterations} interleaved runs (medians):");
    for (name, s) in names.iter().zip(&mut samples) {
        let ms = median(s);
        println!(
            "  {name:<42} {ms:>8.3} ms  {:>5.2}x the floor's write",
            ms / floor
        );
    }
}
