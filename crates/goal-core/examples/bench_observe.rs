//! Where observing the goal's tree spends its time, in one process, at
//! 1,000, 10,000 and 100,000 files (a git repository laid out as
//! `bench/tree.mjs` lays it out): the full walk; the watcher's answer (a
//! question on its socket, nothing changed); reading one changed path again;
//! and loading and keeping the kept tree (read, check its digest, decode;
//! encode, digest, write). `bench/observe.mjs` times the hooks end to end.
//!
//! `cargo run --release -p goal-core --example bench_observe [iterations]`

use goal_core::observe::{self, watch, Limits, Scope, TreeState, Walked};
use goal_core::store::{Store, StoreConfig};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1e3
}

fn time<F: FnMut(usize)>(iterations: usize, mut f: F) -> f64 {
    median(
        (0..iterations)
            .map(|i| {
                let start = Instant::now();
                f(i);
                start.elapsed()
            })
            .collect(),
    )
}

/// The layout of `bench/tree.mjs`: folders of 25 files under src/, tests/,
/// docs/ and lib/, a .gitignore, and ignored noise.
fn make_tree(dir: &Path, files: usize) {
    fs::create_dir_all(dir.join(".git")).unwrap();
    fs::write(dir.join(".gitignore"), "*.log\nbuild/\n").unwrap();
    fs::write(dir.join("README.md"), "# bench project\n").unwrap();
    fs::write(dir.join("package.json"), "{}\n").unwrap();
    let tops = ["src", "tests", "docs", "lib"];
    let mut made = 3;
    let mut f = 0;
    while made < files {
        let folder = dir
            .join(tops[f % 4])
            .join(format!("m{:02}", (f / 40) % 40))
            .join(format!("f{f:04}"));
        fs::create_dir_all(&folder).unwrap();
        for i in 0..25 {
            if made >= files {
                break;
            }
            fs::write(
                folder.join(format!("file{i}.js")),
                format!("export const v{i} = {}\n", f * 25 + i),
            )
            .unwrap();
            made += 1;
        }
        f += 1;
    }
    fs::create_dir_all(dir.join("node_modules/dep")).unwrap();
    fs::write(dir.join("node_modules/dep/index.js"), "1\n").unwrap();
    fs::write(dir.join("debug.log"), "noise\n").unwrap();
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let base = std::env::temp_dir().join(format!("goal-bench-observe-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    println!(
        "{:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}   (ms, medians of {iterations})",
        "files", "walk", "watcher", "re-read", "load", "keep", "entries"
    );
    for files in [1_000, 10_000, 100_000] {
        let root = base.join(format!("tree-{files}"));
        make_tree(&root, files);
        let state = base.join(format!("state-{files}"));
        let store = Store::new(StoreConfig::new(&state, state.join("goal-system")));
        let scope = Scope::new(&root, &[]);
        let walk = time(iterations.min(10), |_| {
            let _ = scope.walk(Limits::default());
        });
        let manifest = match scope.walk(Limits::default()) {
            Walked::Tree(m) => Some(m),
            _ => None,
        };

        #[cfg(target_os = "linux")]
        let (watcher, thread) = {
            let options = observe::watcher::Options {
                excluded: vec![],
                name: watch::name(&root),
                dir: store.private_folder(watch::FOLDER).unwrap(),
                root: root.clone(),
                idle: Duration::from_secs(60),
            };
            let thread = std::thread::spawn(move || observe::watcher::run(options));
            // Past the walk's cap it answers "too big" (the words decide).
            let mark = loop {
                match watch::look(&store, &root, None) {
                    watch::Look::Walk { mark } => break Some(mark),
                    watch::Look::TooBig => break None,
                    _ => std::thread::sleep(Duration::from_millis(5)),
                }
            };
            let ms = time(iterations, |_| {
                let _ = watch::look(&store, &root, mark.as_deref());
            });
            (ms, Some(thread))
        };
        #[cfg(not(target_os = "linux"))]
        let (watcher, thread) = (f64::NAN, None::<std::thread::JoinHandle<()>>);

        let cell = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        let (reread, load, keep, entries) = match &manifest {
            Some(m) => {
                let mut kept = TreeState::new(m.clone());
                let path = "src/m00/f0000/file0.js".to_string();
                let reread = time(iterations, |i| {
                    fs::write(root.join(&path), format!("changed {i}\n")).unwrap();
                    kept.refresh(&scope, std::slice::from_ref(&path)).unwrap();
                });
                let mark = observe::save(&store, "bench", &kept).unwrap();
                let keep = time(iterations, |_| {
                    observe::save(&store, "bench", &kept).unwrap();
                });
                let load = time(iterations, |_| {
                    observe::load(&store, "bench", Some(&mark)).unwrap();
                });
                (
                    Some(reread),
                    Some(load),
                    Some(keep),
                    m.entries.len().to_string(),
                )
            }
            None => (None, None, None, "past cap".to_string()),
        };
        println!(
            "{files:>8} {walk:>9.3} {watcher:>9.3} {:>9} {:>9} {:>9} {entries:>9}",
            cell(reread),
            cell(load),
            cell(keep)
        );
        let _ = fs::remove_dir_all(&root);
        let _ = fs::remove_dir_all(&state);
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
    let _ = fs::remove_dir_all(&base);
}
