//! The watcher in a thread of the test, against real folders: what it
//! reports, that reading those paths again gives what a walk gives, what it
//! leaves out, when it cannot vouch, and that it leaves.

use std::fs;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{run, Options};
use crate::observe::walk::{Limits, Scope, Walked};
use crate::observe::watch::{self, Look};
use crate::observe::{Manifest, TreeState};
use crate::store::{Store, StoreConfig};
use crate::testing::TempDir;

struct Watched {
    base: TempDir,
    store: Store,
    thread: Option<JoinHandle<()>>,
}

impl Watched {
    fn tree(&self) -> PathBuf {
        self.base.path().join("tree")
    }

    fn write(&self, rel: &str, body: &str) {
        let p = self.tree().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    }

    /// The answer, asked again while the watcher is too busy to give one
    /// in time (a loaded test machine, tens of thousands of events).
    fn look(&self, mark: Option<&str>) -> Look {
        let start = Instant::now();
        loop {
            let look = watch::look(&self.store, &self.tree(), mark);
            if look != (Look::Unavailable { start: false })
                || start.elapsed() > Duration::from_secs(20)
            {
                return look;
            }
        }
    }

    fn options(&self, idle: Duration) -> Options {
        let root = self.tree();
        Options {
            excluded: crate::observe::excluded(&self.store, &root),
            name: watch::name(&root),
            dir: self.store.private_folder(watch::FOLDER).unwrap(),
            root,
            idle,
        }
    }

    /// The mark the watcher hands out once its watches are made.
    fn ready(&self) -> String {
        let start = Instant::now();
        loop {
            match self.look(None) {
                Look::Walk { mark } => return mark,
                other => assert!(
                    start.elapsed() < Duration::from_secs(10),
                    "the watcher never answered: {other:?}"
                ),
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Wait for the watcher's thread to end (it must, by itself).
    fn ended(&mut self, within: Duration) {
        let thread = self.thread.take().unwrap();
        let start = Instant::now();
        while !thread.is_finished() {
            assert!(start.elapsed() < within, "the watcher is still running");
            std::thread::sleep(Duration::from_millis(5));
        }
        thread.join().unwrap();
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // Removing its folders makes a watcher leave: the thread never outlives the test.
        let _ = fs::remove_dir_all(self.base.path());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn watched(name: &str, files: &[(&str, &str)], idle: Duration) -> Watched {
    let base = TempDir::new(name);
    for (rel, body) in files {
        base.write(&format!("tree/{rel}"), body);
    }
    fs::create_dir_all(base.path().join("tree")).unwrap();
    let state = base.path().join("state");
    let store = Store::new(StoreConfig::new(&state, state.join("goal-system")));
    let mut w = Watched {
        base,
        store,
        thread: None,
    };
    let options = w.options(idle);
    w.thread = Some(std::thread::spawn(move || run(options).unwrap()));
    w
}

fn walk(root: &Path) -> Manifest {
    match Scope::new(root, &[]).walk(Limits::default()) {
        Walked::Tree(m) => m,
        other => panic!("{other:?}"),
    }
}

/// Ask what changed since `mark`, read those paths again into `state`, and
/// check that the result is exactly what a walk gives now; the next mark.
fn step(w: &Watched, state: &mut TreeState, mark: &str, expect: &[&str]) -> String {
    let Look::Changed {
        mark,
        paths,
        entries,
    } = w.look(Some(mark))
    else {
        panic!("the watcher did not vouch");
    };
    for path in expect {
        assert!(paths.iter().any(|p| p == path), "{path} not in {paths:?}");
    }
    let scope = Scope::new(&w.tree(), &[]);
    state.refresh(&scope, &paths).unwrap();
    let now = walk(&w.tree());
    assert_eq!(state.manifest, now, "re-reading {paths:?} is a walk");
    assert_eq!(
        entries,
        now.entries.len(),
        "the watcher counts what a walk lists"
    );
    mark
}

#[test]
fn it_reports_creations_writes_removals_renames_and_new_folders() {
    let w = watched(
        "watch-changes",
        &[
            ("src/a.rs", "a"),
            ("src/b.rs", "b"),
            ("docs/guide.md", "g"),
            (".gitignore", "*.log\n"),
        ],
        Duration::from_secs(30),
    );
    let mut mark = w.ready();
    let mut state = TreeState::new(walk(&w.tree()));

    w.write("src/c.rs", "new");
    mark = step(&w, &mut state, &mark, &["src/c.rs"]);
    w.write("src/a.rs", "changed");
    mark = step(&w, &mut state, &mark, &["src/a.rs"]);
    fs::remove_file(w.tree().join("src/b.rs")).unwrap();
    mark = step(&w, &mut state, &mark, &["src/b.rs"]);
    fs::rename(w.tree().join("src/c.rs"), w.tree().join("docs/c.rs")).unwrap();
    mark = step(&w, &mut state, &mark, &["src/c.rs", "docs/c.rs"]);
    // A new folder and what was written in it at once.
    fs::create_dir_all(w.tree().join("pkg/inner/deep")).unwrap();
    w.write("pkg/inner/deep/x.rs", "x");
    w.write("pkg/y.rs", "y");
    mark = step(&w, &mut state, &mark, &["pkg"]);
    // Written in the new folder later: its watch is there.
    w.write("pkg/inner/deep/z.rs", "z");
    mark = step(&w, &mut state, &mark, &["pkg/inner/deep/z.rs"]);
    // A folder renamed, then one moved in from outside the tree.
    fs::rename(w.tree().join("pkg"), w.tree().join("lib")).unwrap();
    mark = step(&w, &mut state, &mark, &["pkg", "lib"]);
    w.write(
        "lib/inner/deep/after.rs",
        "the renamed folder is still watched",
    );
    mark = step(&w, &mut state, &mark, &["lib/inner/deep/after.rs"]);
    fs::create_dir_all(w.base.path().join("outside/sub")).unwrap();
    fs::write(w.base.path().join("outside/sub/o.rs"), "o").unwrap();
    fs::rename(w.base.path().join("outside"), w.tree().join("moved")).unwrap();
    mark = step(&w, &mut state, &mark, &["moved"]);
    // A folder removed with what it holds; a file replaced by a folder.
    fs::remove_dir_all(w.tree().join("lib")).unwrap();
    mark = step(&w, &mut state, &mark, &["lib"]);
    fs::remove_file(w.tree().join("src/a.rs")).unwrap();
    w.write("src/a.rs/inside.rs", "now a folder");
    mark = step(&w, &mut state, &mark, &["src/a.rs"]);
    // Nothing since: nothing reported.
    let Look::Changed { paths, .. } = w.look(Some(&mark)) else {
        panic!("no answer");
    };
    assert!(paths.is_empty(), "{paths:?}");
}

#[test]
fn ignored_files_are_not_reported_and_a_rule_change_asks_for_a_walk() {
    let w = watched(
        "watch-rules",
        &[(".gitignore", "*.log\nbuild/\n"), ("src/a.rs", "a")],
        Duration::from_secs(30),
    );
    let mark = w.ready();
    w.write("run.log", "noise");
    w.write("build/out.o", "built");
    w.write("node_modules/dep/index.js", "dep");
    w.write("src/__pycache__/a.pyc", "cache");
    w.write("src/a.rs.swp", "editor");
    let Look::Changed { paths, mark, .. } = w.look(Some(&mark)) else {
        panic!("no answer");
    };
    assert!(paths.is_empty(), "{paths:?}");
    w.write(".gitignore", "*.log\n");
    let look = w.look(Some(&mark));
    assert!(matches!(look, Look::Walk { .. }), "{look:?}");
    // A mark of another watcher (or none) is never vouched for.
    assert!(matches!(w.look(Some("0000:1")), Look::Walk { .. }));
    assert!(matches!(w.look(Some("garbage")), Look::Walk { .. }));
}

#[test]
fn it_leaves_when_its_tree_goes_or_when_unused_and_only_one_runs() {
    let mut w = watched("watch-tree-gone", &[("a", "1")], Duration::from_secs(30));
    w.ready();
    // A second watcher of the same tree returns at once.
    let second = w.options(Duration::from_secs(30));
    let start = Instant::now();
    run(second).unwrap();
    assert!(start.elapsed() < Duration::from_secs(2));
    fs::remove_dir_all(w.tree()).unwrap();
    w.ended(Duration::from_secs(5));
    assert_eq!(w.look(None), Look::Unavailable { start: true });

    let mut w = watched("watch-idle", &[("a", "1")], Duration::from_millis(300));
    w.ready();
    w.ended(Duration::from_secs(5));

    let mut w = watched("watch-state-gone", &[("a", "1")], Duration::from_secs(30));
    w.ready();
    fs::remove_dir_all(w.store.config.root.join(watch::FOLDER)).unwrap();
    w.ended(Duration::from_secs(5));
}

#[test]
fn a_tree_past_the_walks_cap_is_said_to_be_too_big() {
    let w = watched("watch-big", &[("a", "1")], Duration::from_secs(30));
    let mark = w.ready();
    let many = w.tree().join("many");
    fs::create_dir_all(&many).unwrap();
    for i in 0..=crate::observe::walk::MAX_ENTRIES {
        fs::write(many.join(i.to_string()), "").unwrap();
    }
    assert_eq!(w.look(Some(&mark)), Look::TooBig);
    fs::remove_dir_all(&many).unwrap();
    // Small again; 50,001 changes are more than it keeps: walk once.
    assert!(matches!(w.look(Some(&mark)), Look::Walk { .. }));
}

#[test]
fn a_long_state_path_still_gets_a_socket() {
    let deep = "d".repeat(60);
    let base = TempDir::new("watch-long");
    let tree = base.path().join("tree");
    fs::create_dir_all(tree.join("src")).unwrap();
    let state = base.path().join(&deep).join(&deep);
    let store = Store::new(StoreConfig::new(&state, state.join("goal-system")));
    let options = Options {
        excluded: vec![],
        name: watch::name(&tree),
        dir: store.private_folder(watch::FOLDER).unwrap(),
        root: tree.clone(),
        idle: Duration::from_secs(30),
    };
    assert!(options.dir.join("x.sock").as_os_str().len() > 108);
    let thread = std::thread::spawn(move || run(options).unwrap());
    let start = Instant::now();
    while !matches!(watch::look(&store, &tree, None), Look::Walk { .. }) {
        assert!(start.elapsed() < Duration::from_secs(10), "no answer");
        std::thread::sleep(Duration::from_millis(2));
    }
    fs::remove_dir_all(base.path()).unwrap();
    thread.join().unwrap();
}
