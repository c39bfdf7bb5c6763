//! Observed change: what happened to the goal's working tree, read from the
//! tree itself rather than from a command's words. After each call that could
//! change files, the hooks walk the tree and compare it with the manifest kept
//! from the call before; the difference is what that call (or anyone since)
//! changed. Files a run created are its outputs, and a file rewritten with the
//! bytes it had is no change. The kept state lives beside the goal copies
//! (`trees/<session>.tree`, not fsynced: it is a cache), and its digest lives
//! in the sealed goal record, so an edited or torn file is never trusted.
//!
//! Where the tree cannot be observed (past [`walk::MAX_ENTRIES`] entries or
//! [`walk::MAX_WALK`], no folder, no kept state yet), the caller falls back
//! to the words of the command (`commands`).

pub mod manifest;
pub mod walk;
pub mod watch;
#[cfg(target_os = "linux")]
pub mod watcher;

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::Result;
use crate::record::TreeMark;
use crate::store::Store;
pub use manifest::{is_under, Diff, Entry, Manifest};
pub use walk::{Limits, Scope, Walked};

/// Side-file folder of the kept trees.
const FOLDER: &str = "trees";
/// Files larger than this are never hashed for the same-bytes check.
const MEMO_MAX_BYTES: u64 = 1 << 20;
/// Bounds of the remembered outputs and content hashes (oldest dropped first).
const MAX_OUTPUTS: usize = 512;
const MAX_MEMO: usize = 256;

/// What is kept between hooks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeState {
    /// The tree after the last observed call.
    pub manifest: Manifest,
    /// Files (or folders) a run created: what runs later do to them is theirs,
    /// not a change of the work.
    pub outputs: Vec<String>,
    /// SHA-256 of files seen changing (at most 1 MB each): a later rewrite with
    /// the same bytes is no change.
    pub memo: Vec<(String, [u8; 32])>,
}

impl TreeState {
    pub fn new(manifest: Manifest) -> TreeState {
        TreeState {
            manifest,
            ..TreeState::default()
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = manifest::Writer::new();
        w.manifest(&self.manifest);
        w.u64(self.outputs.len() as u64);
        for path in &self.outputs {
            w.text(path);
        }
        w.u64(self.memo.len() as u64);
        for (path, hash) in &self.memo {
            w.text(path);
            w.bytes(hash);
        }
        w.0
    }

    pub fn decode(bytes: &[u8]) -> Option<TreeState> {
        let mut r = manifest::Reader::new(bytes)?;
        let manifest = r.manifest()?;
        let outputs = (0..r.count(1)?)
            .map(|_| r.text())
            .collect::<Option<Vec<_>>>()?;
        let memo = (0..r.count(33)?)
            .map(|_| Some((r.text()?, r.bytes()?.try_into().ok()?)))
            .collect::<Option<Vec<_>>>()?;
        r.done().then_some(TreeState {
            manifest,
            outputs,
            memo,
        })
    }

    /// Is `path` an output, or inside one?
    pub fn is_output(&self, path: &str) -> bool {
        self.outputs.iter().any(|o| {
            path == o
                || path
                    .strip_prefix(o.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        })
    }

    /// Remember `paths` as outputs of a run (a created folder covers what it holds).
    pub fn add_outputs(&mut self, paths: &[String]) {
        for p in paths {
            if !self.is_output(p) {
                self.outputs.push(p.clone());
            }
        }
        let excess = self.outputs.len().saturating_sub(MAX_OUTPUTS);
        self.outputs.drain(..excess);
    }

    /// The tree is now `now`: what changed since the kept manifest, outputs
    /// and same-bytes rewrites left out. The content hashes of what changed
    /// are remembered for next time.
    pub fn advance(&mut self, root: &Path, now: Manifest) -> Diff {
        let diff = manifest::diff(&self.manifest, &now);
        self.manifest = now;
        self.settle(root, diff)
    }

    /// Read `paths` (relative to the root; what a tool wrote, or what the
    /// watcher saw change) again from the disk, under the walk's rules, and
    /// put what a walk would list there in the manifest: a folder with all
    /// it holds, a path that left the tree removed with everything under it.
    /// A path whose folder is new (or gone) is read from the highest such
    /// folder, so the manifest stays what a walk gives. Returns what really
    /// changed among them, as [`TreeState::advance`] does; `Err` when a read
    /// gives up or the tree grows past the walk's cap (the caller walks).
    pub fn refresh(
        &mut self,
        scope: &Scope,
        paths: &[String],
    ) -> std::result::Result<Diff, Walked> {
        let mut tops: Vec<String> = paths.iter().map(|p| self.top_of(scope.root(), p)).collect();
        tops.sort_by(|a, b| manifest::cmp_path(a, b));
        tops.dedup();
        // A path inside another one listed is read with it.
        tops.dedup_by(|inner, outer| manifest::is_under(inner, outer));
        let mut diff = Diff::default();
        for top in &tops {
            let now = scope.entries_at(top, Limits::default())?;
            diff.extend(self.replace(top, now));
        }
        if self.manifest.entries.len() > walk::MAX_ENTRIES {
            return Err(Walked::TooBig);
        }
        Ok(self.settle(scope.root(), diff))
    }

    /// [`TreeState::refresh`] for paths the tree's watcher reported: it
    /// admits only what the walk's rules let in, so a file (or link) there
    /// is read as it is, and only a folder (new, moved in, or no longer a
    /// file) is listed under the rules (`scope` is made on first need:
    /// making one compiles the ignore files).
    pub fn refresh_seen(
        &mut self,
        root: &Path,
        scope: impl FnOnce() -> Scope,
        paths: &[String],
    ) -> std::result::Result<Diff, Walked> {
        let mut scope = Some(scope);
        let mut made: Option<Scope> = None;
        let mut tops: Vec<String> = paths.iter().map(|p| self.top_of(root, p)).collect();
        tops.sort_by(|a, b| manifest::cmp_path(a, b));
        tops.dedup();
        tops.dedup_by(|inner, outer| manifest::is_under(inner, outer));
        let mut diff = Diff::default();
        for top in &tops {
            let now = match fs::symlink_metadata(root.join(top)) {
                Err(_) => Vec::new(),
                Ok(meta) if !meta.file_type().is_dir() => {
                    vec![walk::entry_of(top.clone(), &meta)]
                }
                Ok(_) => {
                    let scope = match made.as_ref() {
                        Some(scope) => scope,
                        None => made.insert((scope.take().expect("made once"))()),
                    };
                    scope.entries_at(top, Limits::default())?
                }
            };
            diff.extend(self.replace(top, now));
        }
        if self.manifest.entries.len() > walk::MAX_ENTRIES {
            return Err(Walked::TooBig);
        }
        Ok(self.settle(root, diff))
    }

    /// Put `now` where the entries at and under `top` were; what changed.
    fn replace(&mut self, top: &str, now: Vec<Entry>) -> Diff {
        let range = self.manifest.subtree(top);
        let before = Manifest {
            entries: self.manifest.entries[range.clone()].to_vec(),
        };
        let diff = manifest::diff(
            &before,
            &Manifest {
                entries: now.clone(),
            },
        );
        self.manifest.entries.splice(range, now);
        diff
    }

    /// The path to read again for `path`: itself, or its highest folder that
    /// the manifest lacks or that is no longer a folder on the disk.
    fn top_of(&self, root: &Path, path: &str) -> String {
        let mut top = path;
        let mut at = path;
        while let Some((parent, _)) = at.rsplit_once('/') {
            let known = self
                .manifest
                .get(parent)
                .is_some_and(|e| e.kind == manifest::Kind::Folder);
            let on_disk =
                fs::symlink_metadata(root.join(parent)).is_ok_and(|m| m.file_type().is_dir());
            if !known || !on_disk {
                top = parent;
            }
            at = parent;
        }
        top.to_string()
    }

    /// Leave out of `diff` the outputs of runs and the files rewritten with
    /// the bytes they had; remember the content of what changed.
    fn settle(&mut self, root: &Path, mut diff: Diff) -> Diff {
        diff.retain(|p| !self.is_output(p));
        let mut same = Vec::new();
        for path in diff.modified.iter().chain(&diff.added) {
            let Some(hash) = content_hash(root, path, self.manifest.get(path)) else {
                continue;
            };
            match self.memo.iter_mut().find(|(p, _)| p == path) {
                Some((_, known)) if *known == hash => same.push(path.clone()),
                Some((_, known)) => *known = hash,
                None => self.memo.push((path.clone(), hash)),
            }
        }
        diff.modified.retain(|p| !same.contains(p));
        let excess = self.memo.len().saturating_sub(MAX_MEMO);
        self.memo.drain(..excess);
        diff
    }
}

/// SHA-256 of a small regular file's bytes.
fn content_hash(root: &Path, path: &str, entry: Option<&Entry>) -> Option<[u8; 32]> {
    let entry = entry?;
    if entry.kind != manifest::Kind::File || entry.size > MEMO_MAX_BYTES {
        return None;
    }
    let bytes = fs::read(root.join(path)).ok()?;
    Some(Sha256::digest(&bytes).into())
}

/// Folders and files inside a goal's tree that belong to the goal system (its
/// state, its memories), never part of the work.
pub fn excluded(store: &Store, root: &Path) -> Vec<PathBuf> {
    let mut out = vec![
        store.config.root.clone(),
        store.config.session_state.clone(),
        root.join(".github").join("copilot-memories.jsonl"),
    ];
    out.retain(|p| p.starts_with(root));
    out
}

/// The goal's tree as the walk sees it.
pub fn goal_scope(store: &Store, cwd: &str) -> Scope {
    let root = Path::new(cwd);
    Scope::new(root, &excluded(store, root))
}

fn file_name(session: &str) -> String {
    format!("{session}.tree")
}

/// The kept state of a session, if it matches the goal's mark (a missing,
/// torn or edited file gives `None`). Call under the session's lock.
pub fn load(store: &Store, session: &str, mark: Option<&TreeMark>) -> Option<TreeState> {
    let mark = mark?;
    let bytes = store.read_side_file(FOLDER, &file_name(session)).ok()??;
    if digest(&bytes) != mark.digest {
        return None;
    }
    TreeState::decode(&bytes)
}

/// Keep `state` for the session; returns the mark the goal record carries.
/// Call under the session's lock.
pub fn save(store: &Store, session: &str, state: &TreeState) -> Result<TreeMark> {
    let bytes = state.encode();
    store.write_cache_file(FOLDER, &file_name(session), &bytes)?;
    Ok(TreeMark {
        digest: digest(&bytes),
        entries: state.manifest.entries.len() as u64,
        watch: None,
    })
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempDir;

    fn manifest_of(dir: &Path) -> Manifest {
        match walk::walk(dir, &[], Limits::default()) {
            Walked::Tree(m) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_kept_state_round_trips_and_refuses_damage() {
        let dir = TempDir::new("observe-codec");
        dir.write("a.txt", "a");
        let mut state = TreeState::new(manifest_of(dir.path()));
        state.add_outputs(&["out".into()]);
        state.memo.push(("a.txt".into(), [7; 32]));
        let bytes = state.encode();
        assert_eq!(TreeState::decode(&bytes), Some(state));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(TreeState::decode(&longer), None);
        assert_eq!(TreeState::decode(&bytes[..bytes.len() - 1]), None);
    }

    #[test]
    fn advancing_names_changes_but_not_outputs_or_same_bytes() {
        let dir = TempDir::new("observe-advance");
        dir.write("greet.sh", "echo hello");
        dir.write("gen.txt", "v1");
        let mut state = TreeState::new(manifest_of(dir.path()));

        dir.write("greet.sh", "echo hello twice");
        let d = state.advance(dir.path(), manifest_of(dir.path()));
        assert_eq!(d.modified, vec!["greet.sh"]);

        // A run creates out/report.csv: an output from now on.
        dir.write("out/report.csv", "1,2");
        let d = state.advance(dir.path(), manifest_of(dir.path()));
        assert_eq!(d.added, vec!["out", "out/report.csv"]);
        state.add_outputs(&d.added);
        dir.write("out/report.csv", "3,4");
        assert!(state
            .advance(dir.path(), manifest_of(dir.path()))
            .is_empty());

        // gen.txt rewritten with other bytes is a change; then the same bytes again is none.
        dir.write("gen.txt", "v2");
        assert_eq!(
            state.advance(dir.path(), manifest_of(dir.path())).modified,
            vec!["gen.txt"]
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
        dir.write("gen.txt", "v2");
        assert!(state
            .advance(dir.path(), manifest_of(dir.path()))
            .is_empty());

        // Removing a file is a change.
        fs::remove_file(dir.path().join("greet.sh")).unwrap();
        assert_eq!(
            state.advance(dir.path(), manifest_of(dir.path())).removed,
            vec!["greet.sh"]
        );
    }

    #[test]
    fn a_refresh_reads_only_the_named_paths_as_a_walk_would() {
        let dir = TempDir::new("observe-refresh");
        dir.write("a.rs", "fn a() {}");
        dir.write(".gitignore", "*.log\n");
        let scope = Scope::new(dir.path(), &[]);
        let mut state = TreeState::new(manifest_of(dir.path()));
        dir.write("b.rs", "fn b() {}");
        let d = state
            .refresh(&scope, &["b.rs".into(), "missing.rs".into()])
            .unwrap();
        assert_eq!(d.added, vec!["b.rs"]);
        assert_eq!(state.manifest, manifest_of(dir.path()));
        assert!(state.refresh(&scope, &["a.rs".into()]).unwrap().is_empty());

        // An ignored file or a cache is not part of the tree, however named.
        dir.write("run.log", "noise");
        dir.write("node_modules/x/index.js", "1");
        let d = state
            .refresh(
                &scope,
                &["run.log".into(), "node_modules/x/index.js".into()],
            )
            .unwrap();
        assert!(d.is_empty(), "{d:?}");

        // A file in new folders brings its folders; a removed folder takes what it held.
        dir.write("new/deep/c.rs", "c");
        dir.write("new/deep/d.rs", "d");
        let d = state.refresh(&scope, &["new/deep/c.rs".into()]).unwrap();
        assert_eq!(
            d.added,
            vec!["new", "new/deep", "new/deep/c.rs", "new/deep/d.rs"]
        );
        assert_eq!(state.manifest, manifest_of(dir.path()));
        fs::remove_dir_all(dir.path().join("new")).unwrap();
        dir.write("new", "now a file");
        let d = state.refresh(&scope, &["new".into()]).unwrap();
        assert_eq!(
            d.removed,
            vec!["new/deep", "new/deep/c.rs", "new/deep/d.rs"]
        );
        assert_eq!(d.modified, vec!["new"]);
        assert_eq!(state.manifest, manifest_of(dir.path()));
    }
}
