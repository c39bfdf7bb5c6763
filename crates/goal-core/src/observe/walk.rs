//! What belongs to the goal's working tree, and walking it into a
//! [`Manifest`]: every file, folder and link a change could touch, with the
//! metadata a write moves (size, the modification and status-change times,
//! the inode). It honours `.gitignore` at every level (and the repository's
//! `info/exclude` and the user's global ignore file), skips `.git`,
//! well-known tool caches and the goal system's own files, and gives up past
//! a cap, where the caller falls back to the command's words.
//!
//! The rules live in [`Scope`] once: the full walk, the re-reading of single
//! paths ([`Scope::entries_at`]) and the watcher (`watcher.rs`) all list a
//! folder through [`Scope::list`], so they agree on every entry.

use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use super::manifest::{Entry, Kind, Manifest};

/// Most entries a walk takes before it gives up (the tree is then too big to
/// observe on every tool call: the hooks fall back to the words).
pub const MAX_ENTRIES: usize = 50_000;
/// Longest a walk may take (a cold or network file system).
pub const MAX_WALK: Duration = Duration::from_millis(1_500);
/// Deepest folder nesting listed.
pub(crate) const MAX_DEPTH: usize = 128;

/// How far a walk may go.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_entries: usize,
    pub max_time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_entries: MAX_ENTRIES,
            max_time: MAX_WALK,
        }
    }
}

/// What a walk found.
#[derive(Debug)]
pub enum Walked {
    Tree(Manifest),
    /// More than the entry cap: not observable on every call.
    TooBig,
    /// Over the time cap.
    TooSlow,
    /// The root is not a readable folder.
    Failed(String),
}

/// Folders no project tracks: version control, dependencies and the caches
/// test runners and builds write while they run.
const CACHE_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    ".venv",
    ".eggs",
    ".gradle",
    ".next",
    ".nuxt",
    ".turbo",
    ".parcel-cache",
    ".cache",
    ".nyc_output",
    ".sass-cache",
    ".terraform",
    ".idea",
    ".goal-system-e2e",
];
/// Files editors and interpreters leave beside the work.
const CACHE_SUFFIXES: &[&str] = &[".pyc", ".pyo", ".swp", ".swo", ".swx", "~"];
const CACHE_FILES: &[&str] = &[".DS_Store", "Thumbs.db"];

/// Is this entry of folder `dir` a cache no one tracks? `has_sibling` tells
/// whether the folder holds a name (a `target` folder is Cargo's only beside
/// a `Cargo.toml`).
fn is_cache(name: &str, is_dir: bool, dir: &Path, has_sibling: &dyn Fn(&str) -> bool) -> bool {
    if is_dir {
        CACHE_DIRS.contains(&name)
            || name.ends_with(".egg-info")
            || (name == "target" && has_sibling("Cargo.toml"))
            || (matches!(name, "venv" | "env") && dir.join(name).join("pyvenv.cfg").is_file())
    } else {
        CACHE_FILES.contains(&name) || CACHE_SUFFIXES.iter().any(|s| name.ends_with(s))
    }
}

/// Does a change to `name` in the folder `folder` (relative, "" for the
/// root) change what the rules above leave in or out? Its `.gitignore`, the
/// files the cache rules look at, a repository made at the root.
pub fn affects_rules(folder: &str, name: &str) -> bool {
    matches!(name, ".gitignore" | "Cargo.toml" | "pyvenv.cfg")
        || (folder.is_empty() && name == ".git")
}

/// The ignore rules in force in one folder, innermost last (shared, so a
/// copy per folder is cheap).
#[derive(Clone, Default)]
pub struct Rules {
    stack: Vec<Arc<Gitignore>>,
}

impl Rules {
    /// Whether the innermost rule that speaks of `path` ignores it (`!pattern` re-includes).
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        for rules in self.stack.iter().rev() {
            match rules.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }

    /// The rules inside folder `dir`: these, and its own `.gitignore` on top.
    fn inside(&self, dir: &Path) -> Rules {
        let mut rules = self.clone();
        if let Some(g) = gitignore_of(dir, &[dir.join(".gitignore")]) {
            rules.stack.push(Arc::new(g));
        }
        rules
    }
}

fn gitignore_of(dir: &Path, files: &[PathBuf]) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(dir);
    let mut any = false;
    for file in files {
        if file.is_file() {
            // A malformed line is skipped by the builder; the rest still holds.
            let _ = builder.add(file);
            any = true;
        }
    }
    any.then(|| builder.build().ok()).flatten()
}

/// The rules that reach `root` from above: the enclosing repository's
/// `info/exclude`, the `.gitignore` files of the folders between the
/// repository's top and `root`, and the user's global ignore file. Also
/// returns every path consulted (the watcher notices when one changes).
fn outer_rules(root: &Path) -> (Rules, Vec<PathBuf>) {
    let mut rules = Rules::default();
    let mut consulted = Vec::new();
    if let Some(global) = global_ignore_file() {
        consulted.push(global.clone());
        if let Some(g) = gitignore_of(Path::new("/"), &[global]) {
            rules.stack.push(Arc::new(g));
        }
    }
    let mut chain = Vec::new();
    let mut dir = root.parent();
    consulted.push(root.join(".git"));
    let mut top = root.join(".git").exists().then(|| root.to_path_buf());
    while top.is_none() {
        let Some(d) = dir else { break };
        chain.push(d.to_path_buf());
        consulted.push(d.join(".git"));
        if d.join(".git").exists() {
            top = Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    let Some(top) = top else {
        // Not in a repository: only the tree's own .gitignore files count.
        return (rules, consulted);
    };
    consulted.push(top.join(".git/info/exclude"));
    if let Some(g) = gitignore_of(&top, &[top.join(".git/info/exclude")]) {
        rules.stack.push(Arc::new(g));
    }
    for d in chain.iter().rev() {
        consulted.push(d.join(".gitignore"));
        if let Some(g) = gitignore_of(d, &[d.join(".gitignore")]) {
            rules.stack.push(Arc::new(g));
        }
    }
    (rules, consulted)
}

/// Git's default global ignore file (`core.excludesFile` unset).
pub(crate) fn global_ignore_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::store::home_dir().map(|h| h.join(".config")))?;
    Some(base.join("git").join("ignore"))
}

/// One entry of a listed folder that belongs to the tree.
pub struct Child {
    pub name: String,
    pub is_dir: bool,
    pub entry: fs::DirEntry,
}

/// A listed folder: the rules in force inside it and its entries that
/// belong to the tree, in name order.
pub struct Listing {
    pub rules: Rules,
    pub children: Vec<Child>,
}

/// The goal's tree: its root, the paths left out (absolute: the state folder
/// when it sits inside the tree, the goal system's own files) and the rules
/// from above, read once.
pub struct Scope {
    root: PathBuf,
    excluded: Vec<PathBuf>,
    outer: Rules,
    consulted: Vec<PathBuf>,
}

impl Scope {
    pub fn new(root: &Path, excluded: &[PathBuf]) -> Scope {
        let (outer, consulted) = outer_rules(root);
        Scope {
            root: root.to_path_buf(),
            excluded: excluded.to_vec(),
            outer,
            consulted,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The rule files above the root this scope read (or looked for).
    pub fn consulted(&self) -> &[PathBuf] {
        &self.consulted
    }

    /// The rules in force at the root, before its own `.gitignore`.
    pub fn outer(&self) -> &Rules {
        &self.outer
    }

    /// The one test of every entry: `name` at `path` in folder `dir`, with
    /// `rules` in force inside `dir`.
    fn includes(
        &self,
        dir: &Path,
        rules: &Rules,
        (name, path): (&str, &Path),
        is_dir: bool,
        has_sibling: &dyn Fn(&str) -> bool,
    ) -> bool {
        !(is_cache(name, is_dir, dir, has_sibling)
            || self.excluded.iter().any(|x| x == path)
            || rules.ignored(path, is_dir))
    }

    /// Is the entry `name` of `dir` (a listed folder of the tree, `rules`
    /// in force inside it) part of the tree? For a name seen in an event.
    pub fn admits(&self, dir: &Path, rules: &Rules, name: &str, is_dir: bool) -> bool {
        let path = dir.join(name);
        self.includes(dir, rules, (name, &path), is_dir, &|s| {
            fs::symlink_metadata(dir.join(s)).is_ok()
        })
    }

    /// List folder `dir` (`rules`: in force in its parent, or the outer
    /// rules for the root): `None` when it cannot be listed (a walk sees it
    /// empty).
    pub fn list(&self, dir: &Path, rules: &Rules) -> Option<Listing> {
        let listing = read_sorted(dir)?;
        let inside = match listing.iter().any(|(n, _)| n == ".gitignore") {
            true => rules.inside(dir),
            false => rules.clone(),
        };
        let children = self.keep(dir, &inside, listing);
        Some(Listing {
            rules: inside,
            children,
        })
    }

    /// The entries of folder `dir` that belong to the tree, `inside` being
    /// the rules [`Scope::list`] found in force there.
    pub fn children(&self, dir: &Path, inside: &Rules) -> Option<Vec<Child>> {
        Some(self.keep(dir, inside, read_sorted(dir)?))
    }

    fn keep(&self, dir: &Path, inside: &Rules, listing: Vec<(String, fs::DirEntry)>) -> Vec<Child> {
        let keep: Vec<Option<bool>> = {
            let names: Vec<&str> = listing.iter().map(|(n, _)| n.as_str()).collect();
            let has_sibling = |s: &str| names.contains(&s);
            listing
                .iter()
                .map(|(name, entry)| {
                    let is_dir = entry.file_type().ok()?.is_dir();
                    let path = entry.path();
                    self.includes(dir, inside, (name, &path), is_dir, &has_sibling)
                        .then_some(is_dir)
                })
                .collect()
        };
        listing
            .into_iter()
            .zip(keep)
            .filter_map(|((name, entry), is_dir)| {
                Some(Child {
                    name,
                    is_dir: is_dir?,
                    entry,
                })
            })
            .collect()
    }

    /// Walk the whole tree.
    pub fn walk(&self, limits: Limits) -> Walked {
        match fs::metadata(&self.root) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Walked::Failed(format!("{} is not a folder", self.root.display())),
            Err(e) => return Walked::Failed(format!("cannot read {}: {e}", self.root.display())),
        }
        let mut walker = Walker::new(self, limits);
        walker.folder(&self.root, "", 0, &self.outer);
        walker.finish()
    }

    /// What a walk would list at and under `rel` (a `/`-separated path in
    /// the tree): its entry and, for a folder, everything it holds, in path
    /// order; empty when `rel` is not part of the tree (gone, left out,
    /// ignored, inside a folder that is, too deep). `Err` when the root is
    /// not a folder or the subtree passes the limits (the caller walks).
    pub fn entries_at(&self, rel: &str, limits: Limits) -> Result<Vec<Entry>, Walked> {
        match fs::metadata(&self.root) {
            Ok(m) if m.is_dir() => {}
            _ => return Err(Walked::Failed("the root is gone".into())),
        }
        let Some((parent, rules, depth, name)) = self.descend(rel) else {
            return Ok(Vec::new());
        };
        let path = parent.join(name);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            return Ok(Vec::new());
        };
        let is_dir = meta.file_type().is_dir();
        let has_sibling = |s: &str| fs::symlink_metadata(parent.join(s)).is_ok();
        if !self.includes(&parent, &rules, (name, &path), is_dir, &has_sibling) {
            return Ok(Vec::new());
        }
        if !is_dir {
            return Ok(vec![entry_of(rel.to_string(), &meta)]);
        }
        let mut walker = Walker::new(self, limits);
        walker.entries.push(Entry::folder(rel.to_string()));
        walker.folder(&path, rel, depth + 1, &rules);
        match walker.finish() {
            Walked::Tree(m) => Ok(m.entries),
            other => Err(other),
        }
    }

    /// Follow `rel` down from the root as a walk lists it: the folder that
    /// holds its last name, the rules in force there, that folder's depth,
    /// and the name. `None` when a folder on the way is not listed by a walk.
    fn descend<'r>(&self, rel: &'r str) -> Option<(PathBuf, Rules, usize, &'r str)> {
        let mut names = rel.split('/').peekable();
        let mut dir = self.root.clone();
        let mut rules = self.outer.clone();
        let mut depth = 0;
        loop {
            let name = names
                .next()
                .filter(|n| !n.is_empty() && *n != "." && *n != "..")?;
            // The walk lists this folder only this deep and when it can be read.
            if depth > MAX_DEPTH || fs::read_dir(&dir).is_err() {
                return None;
            }
            let inside = rules.inside(&dir);
            if names.peek().is_none() {
                return Some((dir, inside, depth, name));
            }
            let path = dir.join(name);
            let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_dir());
            let has_sibling = |s: &str| fs::symlink_metadata(dir.join(s)).is_ok();
            if !is_dir || !self.includes(&dir, &inside, (name, &path), true, &has_sibling) {
                return None;
            }
            dir = path;
            rules = inside;
            depth += 1;
        }
    }
}

/// A folder's entries in name order, or `None` when it cannot be listed.
fn read_sorted(dir: &Path) -> Option<Vec<(String, fs::DirEntry)>> {
    let mut listing: Vec<(String, fs::DirEntry)> = fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e))
        .collect();
    listing.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Some(listing)
}

struct Walker<'a> {
    scope: &'a Scope,
    entries: Vec<Entry>,
    limits: Limits,
    started: Instant,
    stop: Option<Walked>,
}

impl<'a> Walker<'a> {
    fn new(scope: &'a Scope, limits: Limits) -> Walker<'a> {
        Walker {
            scope,
            entries: Vec::new(),
            limits,
            started: Instant::now(),
            stop: None,
        }
    }

    /// Add the entries of `dir` (relative path `rel`, "" for the root;
    /// `rules` in force in its parent), folders recursively, in name order:
    /// the manifest comes out in path order.
    fn folder(&mut self, dir: &Path, rel: &str, depth: usize, rules: &Rules) {
        if self.stop.is_some() || depth > MAX_DEPTH {
            return;
        }
        let Some(listing) = self.scope.list(dir, rules) else {
            // A folder that cannot be listed is seen as empty.
            return;
        };
        for child in listing.children {
            let rel_path = if rel.is_empty() {
                child.name
            } else {
                format!("{rel}/{}", child.name)
            };
            if self.entries.len() >= self.limits.max_entries {
                self.stop = Some(Walked::TooBig);
                return;
            }
            if self.entries.len() % 256 == 255 && self.started.elapsed() > self.limits.max_time {
                self.stop = Some(Walked::TooSlow);
                return;
            }
            if child.is_dir {
                self.entries.push(Entry::folder(rel_path.clone()));
                self.folder(&child.entry.path(), &rel_path, depth + 1, &listing.rules);
                if self.stop.is_some() {
                    return;
                }
            } else {
                // The entry's own metadata, never a link's target.
                let Ok(meta) = child.entry.metadata() else {
                    continue;
                };
                self.entries.push(entry_of(rel_path, &meta));
            }
        }
    }

    fn finish(self) -> Walked {
        match self.stop {
            Some(stop) => stop,
            None => Walked::Tree(Manifest {
                entries: self.entries,
            }),
        }
    }
}

/// Walk `root`, leaving out `excluded` (absolute paths: the state folder when it
/// sits inside the tree, the goal system's own files).
pub fn walk(root: &Path, excluded: &[PathBuf], limits: Limits) -> Walked {
    Scope::new(root, excluded).walk(limits)
}

/// The facts of one file or link that a write changes.
pub(crate) fn entry_of(path: String, meta: &Metadata) -> Entry {
    let kind = if meta.file_type().is_symlink() {
        Kind::Link
    } else if meta.is_dir() {
        Kind::Folder
    } else {
        Kind::File
    };
    if kind == Kind::Folder {
        return Entry::folder(path);
    }
    let (mtime, ctime, ino) = stamps(meta);
    Entry {
        path,
        kind,
        size: meta.len(),
        mtime,
        ctime,
        ino,
    }
}

#[cfg(unix)]
fn stamps(meta: &Metadata) -> (i64, i64, u64) {
    use std::os::unix::fs::MetadataExt;
    (
        meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
        meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        meta.ino(),
    )
}

#[cfg(not(unix))]
fn stamps(meta: &Metadata) -> (i64, i64, u64) {
    let ns = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64)
    };
    (ns(meta.modified()), ns(meta.created()), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::TempDir;

    fn tree(files: &[(&str, &str)]) -> TempDir {
        let dir = TempDir::new("walk");
        for (path, body) in files {
            dir.write(path, body);
        }
        dir
    }

    fn paths(root: &Path) -> Vec<String> {
        match walk(root, &[], Limits::default()) {
            Walked::Tree(m) => m.entries.into_iter().map(|e| e.path).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_walk_lists_the_work_in_path_order_and_skips_caches_and_ignored_files() {
        let dir = tree(&[
            ("greet.sh", "echo hello"),
            ("src/a.py", "x"),
            ("src/__pycache__/a.cpython-311.pyc", "b"),
            ("src/b.pyc", "b"),
            ("node_modules/x/index.js", "x"),
            (".gitignore", "*.log\n/dist/\n!keep.log\n"),
            ("run.log", "noise"),
            ("keep.log", "kept"),
            ("dist/out.js", "built"),
            ("docs/.gitignore", "draft.md\n"),
            ("docs/draft.md", "x"),
            ("docs/guide.md", "x"),
            ("Cargo.toml", "[package]"),
            ("target/debug/app", "bin"),
            (".github/workflows/ci.yml", "on: push"),
        ]);
        fs::create_dir_all(dir.path().join(".git/objects")).unwrap();
        assert_eq!(
            paths(dir.path()),
            vec![
                ".github",
                ".github/workflows",
                ".github/workflows/ci.yml",
                ".gitignore",
                "Cargo.toml",
                "docs",
                "docs/.gitignore",
                "docs/guide.md",
                "greet.sh",
                "keep.log",
                "src",
                "src/a.py",
            ]
        );
    }

    #[test]
    fn a_gitignore_above_the_goals_folder_still_counts() {
        let dir = tree(&[
            (".gitignore", "*.tmp\n"),
            ("app/a.tmp", "x"),
            ("app/a.rs", "x"),
        ]);
        fs::create_dir_all(dir.path().join(".git")).unwrap();
        assert_eq!(paths(&dir.path().join("app")), vec!["a.rs"]);
    }

    #[test]
    fn excluded_paths_and_caps_are_honoured() {
        let dir = tree(&[("a", "1"), ("state/goal.json", "{}"), ("b", "2")]);
        let excluded = [dir.path().join("state")];
        match walk(dir.path(), &excluded, Limits::default()) {
            Walked::Tree(m) => assert_eq!(
                m.entries
                    .iter()
                    .map(|e| e.path.as_str())
                    .collect::<Vec<_>>(),
                vec!["a", "b"]
            ),
            other => panic!("{other:?}"),
        }
        let small = Limits {
            max_entries: 2,
            ..Limits::default()
        };
        assert!(matches!(walk(dir.path(), &[], small), Walked::TooBig));
        assert!(matches!(
            walk(&dir.path().join("a"), &[], Limits::default()),
            Walked::Failed(_)
        ));
    }

    #[test]
    fn a_path_read_alone_gives_what_the_walk_lists_there() {
        let dir = tree(&[
            (".gitignore", "*.log\n/dist/\n!keep.log\nbuild/\n"),
            ("keep.log", "kept"),
            ("run.log", "noise"),
            ("dist/out.js", "built"),
            (
                "src/dist/ok.js",
                "tracked: the rule is anchored at the root",
            ),
            ("src/build/x.o", "ignored anywhere"),
            ("src/a.py", "x"),
            ("src/a.pyc", "x"),
            ("docs/.gitignore", "draft.md\n"),
            ("docs/draft.md", "x"),
            ("docs/guide/intro.md", "x"),
            ("rust/Cargo.toml", "[package]"),
            ("rust/target/debug/app", "bin"),
            ("notrust/target/keep.txt", "a folder named target elsewhere"),
            ("venv/pyvenv.cfg", "home = /usr"),
            ("venv/lib/site.py", "x"),
            ("env/not-a-venv.txt", "x"),
            ("node_modules/x/index.js", "x"),
        ]);
        #[cfg(unix)]
        std::os::unix::fs::symlink("src", dir.path().join("link")).unwrap();
        let scope = Scope::new(dir.path(), &[]);
        let Walked::Tree(all) = scope.walk(Limits::default()) else {
            panic!("walk");
        };
        for (i, entry) in all.entries.iter().enumerate() {
            let under: Vec<Entry> = all.entries[i..]
                .iter()
                .take_while(|e| {
                    e.path == entry.path || super::super::manifest::is_under(&e.path, &entry.path)
                })
                .cloned()
                .collect();
            assert_eq!(
                scope.entries_at(&entry.path, Limits::default()).unwrap(),
                under,
                "{}",
                entry.path
            );
        }
        for absent in [
            "run.log",
            "dist",
            "dist/out.js",
            "src/build",
            "src/build/x.o",
            "src/a.pyc",
            "docs/draft.md",
            "rust/target",
            "rust/target/debug/app",
            "venv",
            "venv/lib/site.py",
            "node_modules/x/index.js",
            "link/a.py",
            "missing",
            "src/missing/deeper",
            "../outside",
            "",
        ] {
            assert_eq!(
                scope.entries_at(absent, Limits::default()).unwrap(),
                vec![],
                "{absent}"
            );
        }
        assert!(all.get("notrust/target/keep.txt").is_some());
        assert!(all.get("env/not-a-venv.txt").is_some());
        assert!(all.get("src/dist/ok.js").is_some());
    }
}
