//! The state root's integrity key and the per-session journal of goal
//! transitions (see [`crate::integrity`]).
//!
//! `<root>/journal/<session>.jsonl` holds one line per transition the goal
//! system made (a goal opened, sealed for the first time, its status or
//! `closedAt` changed): `{at, op, goalId, revision, status, closedAt, record,
//! chain}`, where `record` is the sealed goal and `chain` is
//! `hmac(key, previous chain || the line without its chain)`. Editing,
//! inserting or removing a line breaks every later chain. Lines are only
//! appended; past [`JOURNAL_MAX_BYTES`] the file is rewritten atomically with
//! its last [`JOURNAL_KEEP_LINES`] verified lines, chained afresh.

use super::files::{
    create_once, fsync_dir, io_err, private_file_options, read_state_file, sync, write_atomic,
    Found,
};
use super::Store;
use crate::clock::now_iso;
use crate::error::{GoalError, Result};
use crate::integrity::{self, Key, Seal, KEY_FILE};
use crate::record::Goal;
use serde_json::{json, Map, Value};
use std::io::Write;
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// A journal larger than this is cut down to its last lines on the next append.
pub const JOURNAL_MAX_BYTES: u64 = 256 << 10;
/// How many lines a cut journal keeps.
pub const JOURNAL_KEEP_LINES: usize = 64;

/// A journal as read: the lines whose chain verifies (in order), and whether
/// a line after them did not.
pub(super) struct Journal {
    pub(super) lines: Vec<Map<String, Value>>,
    pub(super) broken_at: Option<usize>,
    /// Goal ids named by any line, verified or not.
    pub(super) goal_ids: Vec<String>,
}

fn chain_of(key: &Key, prev: &str, body: &Map<String, Value>) -> String {
    // serde_json's map is sorted (no `preserve_order`), so a line serializes
    // the same for the writer and every reader.
    let text = Value::Object(body.clone()).to_string();
    let mut message = Vec::with_capacity(prev.len() + text.len());
    message.extend_from_slice(prev.as_bytes());
    message.extend_from_slice(text.as_bytes());
    key.mac_hex(&message)
}

/// Chain `bodies` from scratch: the lines of a journal file.
fn chained(key: &Key, bodies: Vec<Map<String, Value>>) -> Vec<u8> {
    let mut prev = String::new();
    let mut out = Vec::new();
    for mut body in bodies {
        body.remove("chain");
        let chain = chain_of(key, &prev, &body);
        body.insert("chain".into(), Value::String(chain.clone()));
        out.extend_from_slice(Value::Object(body).to_string().as_bytes());
        out.push(b'\n');
        prev = chain;
    }
    out
}

impl Store {
    pub(super) fn key_path(&self) -> PathBuf {
        self.config.root.join(KEY_FILE)
    }

    pub(super) fn journal_dir(&self) -> PathBuf {
        self.config.root.join("journal")
    }

    /// `<root>/journal/<session>.jsonl` (session id assumed valid).
    pub fn journal_path(&self, session_id: &str) -> PathBuf {
        self.journal_dir().join(format!("{session_id}.jsonl"))
    }

    /// The state root's key, if it has one (never followed through a symlink).
    pub(super) fn read_key(&self) -> Option<Key> {
        self.held_key().or_else(|| self.read_key_file())
    }

    /// [`Store::read_key`] from the disk.
    pub(super) fn read_key_file(&self) -> Option<Key> {
        match read_state_file(&self.key_path()) {
            Found::Data { bytes, .. } => Key::from_hex(std::str::from_utf8(&bytes).ok()?),
            _ => None,
        }
    }

    /// The state root's key, created (0600, atomically, once) on first use.
    pub(super) fn key(&self) -> Result<Key> {
        if let Some(key) = self.read_key() {
            return Ok(key);
        }
        self.ensure_root()?;
        let fresh = Key::generate()?;
        let line = format!("{}\n", fresh.to_hex());
        create_once(&self.config.root, KEY_FILE, line.as_bytes())?;
        // Another process may have created it first: its key is the key.
        self.read_key().ok_or_else(|| {
            GoalError::invalid(format!(
                "{} is not a valid integrity key (64 hex characters)",
                self.key_path().display()
            ))
        })
    }

    /// Read the session's journal: the verified lines, where the chain broke,
    /// and every goal id it names.
    pub(super) fn read_journal(&self, key: Option<&Key>, session_id: &str) -> Journal {
        let mut journal = Journal {
            lines: Vec::new(),
            broken_at: None,
            goal_ids: Vec::new(),
        };
        let Found::Data { bytes, .. } = read_state_file(&self.journal_path(session_id)) else {
            return journal;
        };
        let mut prev = String::new();
        for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let parsed: Option<Map<String, Value>> = serde_json::from_slice(raw).ok();
            if let Some(id) = parsed
                .as_ref()
                .and_then(|m| m.get("goalId"))
                .and_then(Value::as_str)
            {
                if !journal.goal_ids.iter().any(|g| g == id) {
                    journal.goal_ids.push(id.to_string());
                }
            }
            if journal.broken_at.is_some() {
                continue;
            }
            let verified = parsed.and_then(|mut body| {
                let chain = body.remove("chain")?.as_str()?.to_string();
                let key = key?;
                (chain_of(key, &prev, &body) == chain).then(|| {
                    prev = chain.clone();
                    body.insert("chain".into(), Value::String(chain));
                    body
                })
            });
            match verified {
                Some(body) => journal.lines.push(body),
                None => journal.broken_at = Some(n + 1),
            }
        }
        journal
    }

    /// The newest goal of the session's journal whose chain and seal verify.
    pub(super) fn journal_goal(&self, key: Option<&Key>, journal: &Journal) -> Option<Goal> {
        journal.lines.iter().rev().find_map(|line| {
            let goal: Goal = serde_json::from_value(line.get("record")?.clone()).ok()?;
            (integrity::check(key, &goal) == Seal::Valid).then(|| {
                let mut goal = goal;
                goal.seal = None;
                goal
            })
        })
    }

    /// Append one transition of a sealed goal. The file is fsynced; its
    /// folder only when the journal was created.
    pub(super) fn journal_append(&self, key: &Key, op: &str, sealed: &Goal) -> Result<()> {
        let dir = self.journal_dir();
        self.ensure_subdir(&dir)?;
        let path = self.journal_path(&sealed.session_id);
        let journal = self.read_journal(Some(key), &sealed.session_id);
        let record = serde_json::to_value(sealed).map_err(|e| {
            GoalError::invalid(format!("goal {} cannot be journaled: {e}", sealed.id))
        })?;
        let Value::Object(mut body) = json!({
            "at": now_iso(),
            "op": op,
            "goalId": sealed.id,
            "revision": sealed.revision,
            "status": sealed.completion_status.as_str(),
            "closedAt": sealed.closed_at,
        }) else {
            unreachable!("a JSON object literal")
        };
        body.insert("record".into(), record);
        let size = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
        if journal.broken_at.is_some() || size > JOURNAL_MAX_BYTES {
            // Keep what verifies (the last lines), chained afresh; a journal
            // edited outside the goal system is not extended.
            let mut kept = journal.lines;
            let from = kept.len().saturating_sub(JOURNAL_KEEP_LINES - 1);
            kept.drain(..from);
            kept.push(body);
            return write_atomic(
                &dir,
                &format!("{}.jsonl", sealed.session_id),
                &chained(key, kept),
            );
        }
        let prev = journal
            .lines
            .last()
            .and_then(|l| l.get("chain"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let chain = chain_of(key, prev, &body);
        body.insert("chain".into(), Value::String(chain));
        let mut line = Value::Object(body).to_string().into_bytes();
        line.push(b'\n');
        let created = size == 0 && std::fs::symlink_metadata(&path).is_err();
        let written = (|| -> std::io::Result<()> {
            let mut options = private_file_options();
            options.append(true).create(true);
            #[cfg(unix)]
            options.custom_flags(libc_o_nofollow());
            let mut file = options.open(&path)?;
            file.write_all(&line)?;
            sync(&file)
        })();
        written.map_err(|e| io_err(format!("cannot append to {}", path.display()), e))?;
        if created {
            fsync_dir(&dir)?;
        }
        Ok(())
    }
}

/// `O_NOFOLLOW` (Linux and macOS values): a symlink in the journal's place is
/// refused, never followed.
#[cfg(unix)]
fn libc_o_nofollow() -> i32 {
    if cfg!(target_os = "macos") {
        0x0100
    } else {
        0o400000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_verifies_only_the_lines_it_was_made_for() {
        let key = Key::from_bytes([3; 32]);
        let bodies: Vec<Map<String, Value>> = (0..3)
            .map(|n| {
                json!({"op": "open", "revision": n})
                    .as_object()
                    .cloned()
                    .unwrap()
            })
            .collect();
        let text = String::from_utf8(chained(&key, bodies)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut prev = String::new();
        for line in &lines {
            let mut body: Map<String, Value> = serde_json::from_str(line).unwrap();
            let chain = body.remove("chain").unwrap();
            assert_eq!(chain_of(&key, &prev, &body), chain.as_str().unwrap());
            prev = chain.as_str().unwrap().to_string();
        }
        let edited = lines[1].replace("\"revision\":1", "\"revision\":9");
        let mut body: Map<String, Value> = serde_json::from_str(&edited).unwrap();
        let chain = body.remove("chain").unwrap();
        let first: Map<String, Value> = serde_json::from_str(lines[0]).unwrap();
        assert_ne!(
            chain_of(&key, first["chain"].as_str().unwrap(), &body),
            chain.as_str().unwrap()
        );
    }
}
