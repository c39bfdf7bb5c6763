//! The repository's memory file, `.github/copilot-memories.jsonl` at the root
//! of the working tree: one JSON object a line, so that a repository's
//! memories travel with it and are reviewed in pull requests.
//!
//! Reads never write and never fail a hook. Writes take the store's lock for
//! the repository, read the file again, set malformed lines aside (into the
//! state folder, reported, never dropped silently), merge duplicates (the
//! same fact twice, e.g. after merging two branches), apply the change and
//! replace the file atomically, only when something changed.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::record::{same_fact_key, Memory, VOTE_LOG_KEEP};
use crate::board::Scope;
use crate::clock::now_iso;
use crate::error::{ErrorCode, GoalError, Result};
use crate::redact;
use crate::store::{normalize_cwd, read_outside, validate_cwd, write_outside, FileVersion, Store};

/// Where the memories live, relative to the repository's root.
pub const RELATIVE_PATH: &str = ".github/copilot-memories.jsonl";
const DIR: &str = ".github";
const NAME: &str = "copilot-memories.jsonl";
/// The state folder's subfolder for set-aside lines and the ranking cache.
pub(super) const STATE_FOLDER: &str = "memories";
/// Set-aside entries kept per repository (the oldest go first).
const SET_ASIDE_KEEP: usize = 200;
/// Characters of a malformed line kept.
const SET_ASIDE_CHARS: usize = 4000;

/// A repository: the top of its working tree (where `.git` is) and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    pub root: PathBuf,
    /// The origin remote without credentials, else the root's path.
    pub name: String,
}

impl Repo {
    /// The repository holding `cwd`, read from the file system (no `git`
    /// process). Outside a repository there is nowhere to keep memories.
    pub fn find(cwd: &str) -> Result<Repo> {
        validate_cwd(cwd)?;
        let start = Path::new(normalize_cwd(cwd));
        let root = start
            .ancestors()
            .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
            .ok_or_else(|| {
                GoalError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no git repository at or above {}: memories belong to a repository ({RELATIVE_PATH} at its root)",
                        redact::truncate(cwd, 200)
                    ),
                )
            })?
            .to_path_buf();
        let name = Scope::detect(&root.to_string_lossy(), None)
            .map(|s| s.repository)
            .unwrap_or_else(|_| root.to_string_lossy().into_owned());
        Ok(Repo { root, name })
    }

    /// The memory file.
    pub fn path(&self) -> PathBuf {
        self.root.join(RELATIVE_PATH)
    }

    /// A short stable key for the state folder's files and the lock.
    pub fn key(&self) -> String {
        super::hash16(&self.root.to_string_lossy())
    }
}

/// The file as read: its memories (duplicates merged), the malformed lines
/// (1-based number and text), and how many duplicates were merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub memories: Vec<Memory>,
    pub malformed: Vec<(usize, String)>,
    pub merged: usize,
    /// Records without an id (given one on the next write).
    pub unnamed: usize,
}

/// Parse the file's bytes. A line is malformed when it is not one JSON object
/// with a non-empty subject and fact; blank lines are nothing.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let Ok(text) = std::str::from_utf8(line) else {
            out.malformed
                .push((n + 1, String::from_utf8_lossy(line).into_owned()));
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let memory = serde_json::from_str::<Memory>(text)
            .ok()
            .filter(|m| !m.subject.trim().is_empty() && !m.fact.trim().is_empty());
        let Some(mut memory) = memory else {
            out.malformed.push((n + 1, text.to_string()));
            continue;
        };
        if memory.id.trim().is_empty() {
            memory.id = super::record::id_for(&memory.fact);
            out.unnamed += 1;
        }
        let key = same_fact_key(&memory.fact);
        match seen.get(&key) {
            Some(&i) => {
                merge(&mut out.memories[i], memory);
                out.merged += 1;
            }
            None => {
                seen.insert(key, out.memories.len());
                out.memories.push(memory);
            }
        }
    }
    out
}

/// Merge `other` (the later line) into `into`: votes add up, citations join,
/// the vote log keeps the newest; the first line's id and source stay.
pub fn merge(into: &mut Memory, other: Memory) {
    into.votes.up = into.votes.up.saturating_add(other.votes.up);
    into.votes.down = into.votes.down.saturating_add(other.votes.down);
    for part in other
        .citations
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        if !into.citations.contains(part) {
            if !into.citations.is_empty() {
                into.citations.push_str("; ");
            }
            into.citations.push_str(part);
        }
    }
    if into.reason.trim().is_empty() {
        into.reason = other.reason;
    }
    into.vote_log.extend(other.vote_log);
    into.vote_log.sort_by(|a, b| a.time.cmp(&b.time));
    let extra = into.vote_log.len().saturating_sub(VOTE_LOG_KEEP);
    into.vote_log.drain(..extra);
}

/// The file's text: one compact JSON object a line, in the order kept.
pub fn render(memories: &[Memory]) -> Vec<u8> {
    let mut out = Vec::with_capacity(memories.len() * 300);
    for m in memories {
        if let Ok(line) = serde_json::to_vec(m) {
            out.extend_from_slice(&line);
            out.push(b'\n');
        }
    }
    out
}

/// Read the repository's memories without the lock (writes are atomic
/// renames). `Ok(None)` when there is no file; an error when it is refused (a
/// symlink) or unreadable.
pub fn read(repo: &Repo) -> Result<Option<(Parsed, FileVersion)>> {
    Ok(read_outside(&repo.path())?.map(|found| (parse(&found.bytes), found.version)))
}

/// Read-modify-write under the store's lock for the repository. `f` returns
/// whether it changed anything. Malformed lines are set aside and reported in
/// the warnings; merged duplicates and new ids are written back, and then
/// `written` sees what was written, still under the lock (the ranking cache).
pub fn modify<T>(
    store: &Store,
    repo: &Repo,
    f: impl FnOnce(&mut Vec<Memory>) -> Result<(bool, T)>,
    written: impl FnOnce(&[Memory]),
) -> Result<(T, Vec<String>)> {
    let _lock = store.lock(&format!("memories-{}", repo.key()))?;
    let mut warnings = Vec::new();
    let parsed = read(repo)?.map(|(p, _)| p).unwrap_or_default();
    let mut memories = parsed.memories;
    let mut changed = parsed.merged > 0 || parsed.unnamed > 0;
    if parsed.merged > 0 {
        warnings.push(format!(
            "{} duplicate line(s) of {} merged (same fact)",
            parsed.merged, RELATIVE_PATH
        ));
    }
    if !parsed.malformed.is_empty() {
        let kept = set_aside(store, repo, &parsed.malformed)?;
        let lines: Vec<String> = parsed
            .malformed
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        let warning = format!(
            "{} malformed line(s) of {} (line {}) moved aside to {}",
            parsed.malformed.len(),
            RELATIVE_PATH,
            lines.join(", "),
            kept.display()
        );
        store.record_fault("memory", &warning);
        warnings.push(warning);
        changed = true;
    }
    let (changed_now, value) = f(&mut memories)?;
    if changed || changed_now {
        write_outside(&repo.root.join(DIR), NAME, &render(&memories))?;
        written(&memories);
    }
    Ok((value, warnings))
}

/// Where a repository's set-aside lines go.
pub fn set_aside_path(store: &Store, repo: &Repo) -> PathBuf {
    store
        .config
        .root
        .join(STATE_FOLDER)
        .join(format!("{}.set-aside.jsonl", repo.key()))
}

/// Keep malformed lines in the state folder (redacted: a line a person typed
/// by hand may hold anything), newest last. Returns the file's path.
fn set_aside(store: &Store, repo: &Repo, lines: &[(usize, String)]) -> Result<PathBuf> {
    let name = format!("{}.set-aside.jsonl", repo.key());
    let mut kept: Vec<String> = match store.read_side_file(STATE_FOLDER, &name) {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let at = now_iso();
    for (n, text) in lines {
        kept.push(
            json!({
                "at": at,
                "file": repo.path().to_string_lossy(),
                "line": n,
                "text": redact::truncate(&redact::redact(text), SET_ASIDE_CHARS),
            })
            .to_string(),
        );
    }
    let extra = kept.len().saturating_sub(SET_ASIDE_KEEP);
    kept.drain(..extra);
    let mut bytes = kept.join("\n").into_bytes();
    bytes.push(b'\n');
    store.write_side_file(STATE_FOLDER, &name, &bytes)?;
    Ok(set_aside_path(store, repo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::record::{Direction, Vote, Votes};

    fn line(id: &str, fact: &str, up: u32, down: u32) -> String {
        format!(
            r#"{{"id":"{id}","subject":"s","fact":"{fact}","citations":"c-{id}","reason":"r","source":{{"host":"h","session":"x","time":"2026-01-0{up}T00:00:00Z"}},"votes":{{"up":{up},"down":{down}}}}}"#
        )
    }

    #[test]
    fn malformed_lines_are_reported_with_their_numbers_and_blank_lines_are_not() {
        let text = format!(
            "{}\n\n{{not json\n{}\n{{\"subject\":\"no fact\"}}\n<<<<<<< HEAD\n",
            line("a", "one", 1, 0),
            line("b", "two", 0, 0)
        );
        let parsed = parse(text.as_bytes());
        assert_eq!(parsed.memories.len(), 2);
        let numbers: Vec<usize> = parsed.malformed.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, vec![3, 5, 6]);
    }

    #[test]
    fn the_same_fact_on_two_lines_merges_votes_and_citations() {
        let text = format!(
            "{}\n{}\n",
            line("a", "Run npm test.", 2, 0),
            line("b", "run  npm test", 1, 1)
        );
        let parsed = parse(text.as_bytes());
        assert_eq!(parsed.merged, 1);
        let m = &parsed.memories[0];
        assert_eq!(m.id, "a");
        assert_eq!(m.votes, Votes { up: 3, down: 1 });
        assert_eq!(m.citations, "c-a; c-b");
    }

    #[test]
    fn the_vote_log_keeps_the_newest() {
        let vote = |t: &str| Vote {
            direction: Direction::Up,
            reason: "r".into(),
            by: "agent".into(),
            time: t.into(),
        };
        let mut a: Memory = serde_json::from_str(&line("a", "f", 1, 0)).unwrap();
        let mut b = a.clone();
        a.vote_log = (0..4).map(|i| vote(&format!("2026-01-0{i}"))).collect();
        b.vote_log = (4..8).map(|i| vote(&format!("2026-01-0{i}"))).collect();
        merge(&mut a, b);
        assert_eq!(a.vote_log.len(), VOTE_LOG_KEEP);
        assert_eq!(a.vote_log.last().unwrap().time, "2026-01-07");
    }

    #[test]
    fn rendering_then_parsing_gives_back_the_same_memories() {
        let text = format!("{}\n{}\n", line("a", "one", 1, 0), line("b", "two", 0, 2));
        let parsed = parse(text.as_bytes());
        let again = parse(&render(&parsed.memories));
        assert_eq!(again.memories, parsed.memories);
        assert!(again.malformed.is_empty());
    }
}
