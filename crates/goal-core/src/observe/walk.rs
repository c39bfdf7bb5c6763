//! Walking the goal's working tree into a [`Manifest`]: every file, folder and
//! link a change could touch, with the metadata a write moves (size, the
//! modification and status-change times, the inode). It honours `.gitignore`
//! at every level (and the repository's `info/exclude` and the user's global
//! ignore file), skips `.git`, well-known tool caches and the goal system's
//! own files, and gives up past a cap, where the caller falls back to the
//! command's words.

use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use super::manifest::{Entry, Kind, Manifest};

/// Most entries a walk takes before it gives up (the tree is then too big to
/// observe on every tool call: the hooks fall back to the words).
pub const MAX_ENTRIES: usize = 50_000;
/// Longest a walk may take (a cold or network file system).
pub const MAX_WALK: Duration = Duration::from_millis(1_500);
/// Deepest folder nesting followed.
const MAX_DEPTH: usize = 128;

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

/// Is this entry of a folder a cache no one tracks? `siblings` are the
/// folder's names (a `target` folder is Cargo's only beside a `Cargo.toml`).
fn is_cache(name: &str, is_dir: bool, dir: &Path, siblings: &[String]) -> bool {
    if is_dir {
        CACHE_DIRS.contains(&name)
            || name.ends_with(".egg-info")
            || (name == "target" && siblings.iter().any(|s| s == "Cargo.toml"))
            || (matches!(name, "venv" | "env") && dir.join(name).join("pyvenv.cfg").is_file())
    } else {
        CACHE_FILES.contains(&name) || CACHE_SUFFIXES.iter().any(|s| name.ends_with(s))
    }
}

/// The ignore rules in force in one folder, innermost last.
struct Rules {
    stack: Vec<Gitignore>,
}

impl Rules {
    /// `Some(true)` ignored, `Some(false)` re-included (`!pattern`), `None` no rule.
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
/// repository's top and `root`, and the user's global ignore file.
fn outer_rules(root: &Path) -> Vec<Gitignore> {
    let mut rules = Vec::new();
    if let Some(global) = global_ignore_file() {
        if let Some(g) = gitignore_of(Path::new("/"), &[global]) {
            rules.push(g);
        }
    }
    let mut chain = Vec::new();
    let mut dir = root.parent();
    let mut top = root.join(".git").exists().then(|| root.to_path_buf());
    while top.is_none() {
        let Some(d) = dir else { break };
        chain.push(d.to_path_buf());
        if d.join(".git").exists() {
            top = Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    let Some(top) = top else {
        // Not in a repository: only the tree's own .gitignore files count.
        return rules;
    };
    if let Some(g) = gitignore_of(&top, &[top.join(".git/info/exclude")]) {
        rules.push(g);
    }
    for d in chain.iter().rev() {
        if let Some(g) = gitignore_of(d, &[d.join(".gitignore")]) {
            rules.push(g);
        }
    }
    rules
}

/// Git's default global ignore file (`core.excludesFile` unset).
fn global_ignore_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::store::home_dir().map(|h| h.join(".config")))?;
    Some(base.join("git").join("ignore"))
}

/// Walk `root`, leaving out `excluded` (absolute paths: the state folder when it
/// sits inside the tree, the goal system's own files).
pub fn walk(root: &Path, excluded: &[PathBuf], limits: Limits) -> Walked {
    match fs::metadata(root) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Walked::Failed(format!("{} is not a folder", root.display())),
        Err(e) => return Walked::Failed(format!("cannot read {}: {e}", root.display())),
    }
    let mut walker = Walker {
        entries: Vec::new(),
        excluded,
        limits,
        started: Instant::now(),
        rules: Rules {
            stack: outer_rules(root),
        },
        stop: None,
    };
    walker.folder(root, "", 0);
    match walker.stop {
        Some(stop) => stop,
        None => Walked::Tree(Manifest {
            entries: walker.entries,
        }),
    }
}

struct Walker<'a> {
    entries: Vec<Entry>,
    excluded: &'a [PathBuf],
    limits: Limits,
    started: Instant,
    rules: Rules,
    stop: Option<Walked>,
}

impl Walker<'_> {
    /// Add the entries of `dir` (relative path `rel`, "" for the root), folders
    /// recursively, in name order: the manifest comes out in path order.
    fn folder(&mut self, dir: &Path, rel: &str, depth: usize) {
        if self.stop.is_some() || depth > MAX_DEPTH {
            return;
        }
        let Ok(read) = fs::read_dir(dir) else {
            // A folder that cannot be listed is seen as empty.
            return;
        };
        let mut listing: Vec<(String, fs::DirEntry)> = read
            .filter_map(|e| e.ok())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e))
            .collect();
        listing.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<String> = listing.iter().map(|(n, _)| n.clone()).collect();
        let pushed = names.iter().any(|n| n == ".gitignore")
            && match gitignore_of(dir, &[dir.join(".gitignore")]) {
                Some(g) => {
                    self.rules.stack.push(g);
                    true
                }
                None => false,
            };
        for (name, entry) in listing {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let is_dir = file_type.is_dir();
            let path = entry.path();
            if is_cache(&name, is_dir, dir, &names)
                || self.excluded.iter().any(|x| x == &path)
                || self.rules.ignored(&path, is_dir)
            {
                continue;
            }
            let rel_path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if self.entries.len() >= self.limits.max_entries {
                self.stop = Some(Walked::TooBig);
                return;
            }
            if self.entries.len() % 256 == 255 && self.started.elapsed() > self.limits.max_time {
                self.stop = Some(Walked::TooSlow);
                return;
            }
            if is_dir {
                self.entries.push(Entry::folder(rel_path.clone()));
                self.folder(&path, &rel_path, depth + 1);
                if self.stop.is_some() {
                    return;
                }
            } else {
                // The entry's own metadata, never a link's target.
                let Ok(meta) = entry.metadata() else {
                    continue;
                };
                self.entries.push(entry_of(rel_path, &meta));
            }
        }
        if pushed {
            self.rules.stack.pop();
        }
    }
}

/// The facts of one file or link that a write changes.
pub(super) fn entry_of(path: String, meta: &Metadata) -> Entry {
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
}
