//! The copies of a goal: reading one (moving a corrupt one aside), finding a
//! session's copies, and ordering copies newest first.

use super::files::{quarantine, read_state_file, set_aside, Found};
use super::paths::{shown, validate_session_id};
use super::slots;
use super::Store;
use crate::error::{GoalError, Result};
use crate::integrity::{self, Key, Seal, TAMPERED_MARK, UNVERIFIED_MARK, UNVERIFIED_REASON};
use crate::record::Goal;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One valid copy of a goal, with where it came from.
#[derive(Debug, Clone)]
pub(super) struct Copy {
    /// Shared: a session's copies usually hold the same goal, and a run's
    /// hold hands its copies out again (a goal's history is most of a hook's
    /// allocations when cloned).
    pub(super) goal: Arc<Goal>,
    pub(super) path: PathBuf,
    pub(super) mtime_ns: i128,
    /// Whether the copy carried a valid seal (else: a legacy record).
    pub(super) sealed: bool,
}

impl Copy {
    /// Newest first: updatedAt (parsed), then revision, then file time.
    pub(super) fn key(&self) -> (i64, u64, i128) {
        (
            crate::clock::parse_rfc3339_ms(&self.goal.updated_at).unwrap_or(i64::MIN),
            self.goal.revision,
            self.mtime_ns,
        )
    }
}

/// Keep the newest copy per goal id.
pub(super) fn newest_by_id(copies: impl IntoIterator<Item = Copy>) -> HashMap<String, Copy> {
    let mut by_id: HashMap<String, Copy> = HashMap::new();
    for copy in copies {
        match by_id.get(&copy.goal.id) {
            Some(kept) if kept.key() >= copy.key() => {}
            _ => {
                by_id.insert(copy.goal.id.clone(), copy);
            }
        }
    }
    by_id
}

/// Goals newest first (ties broken by id, so the order is stable).
pub(super) fn sorted_newest_first(map: HashMap<String, Copy>) -> Vec<Goal> {
    let mut copies: Vec<Copy> = map.into_values().collect();
    copies.sort_by(|a, b| {
        b.key()
            .cmp(&a.key())
            .then_with(|| a.goal.id.cmp(&b.goal.id))
    });
    copies
        .into_iter()
        .map(|c| Arc::unwrap_or_clone(c.goal))
        .collect()
}

/// The newest of a session's copies. `max_by_key` keeps the last maximum, so
/// iterate reversed: on a full tie the by-session copy (first) wins.
pub(super) fn newest(copies: &[Copy]) -> Option<Goal> {
    newest_shared(copies).map(Arc::unwrap_or_clone)
}

/// [`newest`], shared with the copies (no clone of the goal).
pub(super) fn newest_shared(copies: &[Copy]) -> Option<Arc<Goal>> {
    copies
        .iter()
        .rev()
        .max_by_key(|c| c.key())
        .map(|c| c.goal.clone())
}

/// The bytes of a copy of `goal`, sealed with `key`: the goal is sealed in
/// place (the caller takes the seal off again where it keeps the goal).
pub(super) fn to_bytes(key: &Key, goal: &mut Goal) -> Result<Vec<u8>> {
    integrity::seal(key, goal)?;
    let mut bytes = serde_json::to_vec_pretty(goal)
        .map_err(|e| GoalError::invalid(format!("goal {} cannot be serialized: {e}", goal.id)))?;
    bytes.push(b'\n');
    Ok(bytes)
}

impl Store {
    /// Read one goal copy. Corrupt copies (unparsable, the wrong type, too
    /// large, a folder) are moved aside when `quarantine_corrupt` (only done
    /// under the lock); copies of another session are ignored. A copy whose
    /// seal is broken, or that has none although the journal shows the goal
    /// system wrote its goal, was edited outside the goal system: it is never
    /// read, set aside as `<name>.tampered-<ms>` under the lock, and flags
    /// `tampered` (its goal, unsealed, is pushed there for the last resort of
    /// [`Store::session_copies`]). The returned goal carries no seal (seals
    /// live on disk only).
    pub(super) fn read_copy(
        &self,
        path: &Path,
        session_id: Option<&str>,
        quarantine_corrupt: bool,
        key: Option<&Key>,
        warnings: &mut Vec<String>,
        tampered: &mut Vec<Goal>,
    ) -> Option<Copy> {
        let mut seen = None;
        self.read_copy_seen(
            path,
            session_id,
            quarantine_corrupt,
            key,
            warnings,
            tampered,
            &mut seen,
            None,
        )
    }

    /// [`Store::read_copy`], where `seen` is the last valid copy read and
    /// its bytes: a copy with the very same bytes (a session's three copies
    /// usually are) is that goal again, not parsed and checked again. `pair`:
    /// a slot already read, with its sibling's write number (both slots read
    /// once, not each again for the other's number).
    #[allow(clippy::too_many_arguments)]
    fn read_copy_seen(
        &self,
        path: &Path,
        session_id: Option<&str>,
        quarantine_corrupt: bool,
        key: Option<&Key>,
        warnings: &mut Vec<String>,
        tampered: &mut Vec<Goal>,
        seen: &mut Option<(Vec<u8>, Copy)>,
        pair: Option<(Found, Option<u64>)>,
    ) -> Option<Copy> {
        let (found, sibling) = match pair {
            Some((found, sibling)) => (found, Some(sibling)),
            None => (read_state_file(path), None),
        };
        let found = match found {
            Found::Data {
                bytes,
                ino,
                dev,
                mtime_ns,
            } if slots::is_slot(path) => match slots::current(path, &bytes, sibling) {
                Some(body) => Found::Data {
                    bytes: body.to_vec(),
                    ino,
                    dev,
                    mtime_ns,
                },
                // Cut short by a kill or a power loss, or being written now
                // (a reader without the lock): no copy, and no damage to
                // report; the other slot holds the update before.
                None => return None,
            },
            found => found,
        };
        let (problem, ino, dev) = match found {
            Found::Missing => return None,
            Found::Refused(why) => {
                warnings.push(why);
                return None;
            }
            Found::Misplaced { why, ino, dev } => (why, ino, dev),
            Found::Data {
                bytes, mtime_ns, ..
            } if seen.as_ref().is_some_and(|(b, _)| *b == bytes) => {
                let (_, copy) = seen.as_ref()?;
                return Some(Copy {
                    goal: copy.goal.clone(),
                    path: path.to_path_buf(),
                    mtime_ns,
                    sealed: copy.sealed,
                });
            }
            Found::Data {
                bytes,
                ino,
                dev,
                mtime_ns,
            } => match crate::record::Goal::from_stored(&bytes) {
                Ok(goal) => {
                    if let Some(session) = session_id {
                        if goal.session_id != session {
                            warnings.push(format!(
                                "{} holds a goal of session {}, not {}; ignored",
                                path.display(),
                                shown(&goal.session_id),
                                shown(session)
                            ));
                            return None;
                        }
                    }
                    let sealed = match integrity::check(key, &goal) {
                        Seal::Valid => true,
                        Seal::Missing if !self.journal_names(key, &goal) => false,
                        Seal::Missing | Seal::Broken => {
                            self.set_tampered_aside(path, ino, dev, quarantine_corrupt, warnings);
                            let mut goal = goal;
                            goal.seal = None;
                            tampered.push(goal);
                            return None;
                        }
                    };
                    let mut goal = goal;
                    goal.seal = None;
                    let copy = Copy {
                        goal: Arc::new(goal),
                        path: path.to_path_buf(),
                        mtime_ns,
                        sealed,
                    };
                    *seen = Some((bytes, copy.clone()));
                    return Some(copy);
                }
                Err(err) => (
                    format!("{} is not a valid goal record ({err})", path.display()),
                    ino,
                    dev,
                ),
            },
        };
        if !quarantine_corrupt {
            warnings.push(format!("{problem}; ignored"));
            return None;
        }
        match quarantine(path, ino, dev) {
            Ok(Some(dest)) => {
                warnings.push(format!("{problem}; moved aside to {}", dest.display()))
            }
            Ok(None) => warnings.push(format!(
                "{problem} and changed while being moved aside; ignored"
            )),
            Err(e) => warnings.push(format!(
                "{problem} and could not be moved aside: {e}; ignored"
            )),
        }
        None
    }

    /// Whether the goal's session journal names this goal: the goal system
    /// wrote it, so it must carry a seal.
    fn journal_names(&self, key: Option<&Key>, goal: &Goal) -> bool {
        validate_session_id(&goal.session_id).is_ok()
            && self
                .read_journal(key, &goal.session_id)
                .goal_ids
                .contains(&goal.id)
    }

    fn set_tampered_aside(
        &self,
        path: &Path,
        ino: u64,
        dev: u64,
        under_lock: bool,
        warnings: &mut Vec<String>,
    ) {
        let what = format!("{} {TAMPERED_MARK}", path.display());
        if !under_lock {
            warnings.push(format!("{what}; ignored"));
            return;
        }
        let report = match set_aside(path, ino, dev, "tampered") {
            Ok(Some(dest)) => format!("{what}; set aside as {}", dest.display()),
            Ok(None) => format!("{what}; ignored"),
            Err(e) => format!("{what}; ignored (could not be set aside: {e})"),
        };
        self.report_tampering(&report);
        warnings.push(report);
    }

    /// The by-cwd-session files of one session, in any directory.
    pub(super) fn cwd_files_of_session(&self, session_id: &str) -> Vec<PathBuf> {
        let suffix = format!("--{session_id}.json");
        let mut found = Vec::new();
        let Ok(entries) = fs::read_dir(self.by_cwd_dir()) else {
            return found;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.len() == 16 + suffix.len()
                && name.ends_with(&suffix)
                && name.as_bytes()[..16].iter().all(u8::is_ascii_hexdigit)
            {
                found.push(entry.path());
            }
        }
        found.sort();
        found
    }

    /// All valid copies of a session's goal. When a copy was edited outside
    /// the goal system and no untampered copy is left, the newest goal of the
    /// session's journal whose chain and seal verify stands in for them.
    /// `slot_seqs`: the write numbers the two slots held when read (true
    /// after the read only if it reported nothing: `hold` keeps them then).
    pub(super) fn session_copies(
        &self,
        session_id: &str,
        cwd: Option<&str>,
        quarantine_corrupt: bool,
        warnings: &mut Vec<String>,
        slot_seqs: &mut Option<[Option<u64>; 2]>,
    ) -> Vec<Copy> {
        let mut paths = vec![
            self.by_session_path(session_id),
            self.session_local_path(session_id),
        ];
        match cwd {
            Some(cwd) => paths.push(self.by_cwd_path(cwd, session_id)),
            None => paths.extend(self.cwd_files_of_session(session_id)),
        }
        let slots = self.slot_paths(session_id);
        let [found0, found1] = slots.clone().map(|p| read_state_file(&p));
        let (seq0, seq1) = (slots::seq_of(&found0), slots::seq_of(&found1));
        *slot_seqs = Some([seq0, seq1]);
        let mut pairs = [Some((found0, seq1)), Some((found1, seq0))];
        let key = self.read_key();
        let mut tampered = Vec::new();
        let mut seen = None;
        let copies: Vec<Copy> = paths
            .iter()
            .map(|p| (p, None))
            .chain(slots.iter().zip(pairs.iter_mut().map(Option::take)))
            .filter_map(|(p, pair)| {
                self.read_copy_seen(
                    p,
                    Some(session_id),
                    quarantine_corrupt,
                    key.as_ref(),
                    warnings,
                    &mut tampered,
                    &mut seen,
                    pair,
                )
            })
            .collect();
        if tampered.is_empty() {
            // Every copy gone or unreadable while the journal's last goal is
            // still open: the store never removes a session's copies, so this
            // is restored like an edit (else deleting or garbling the copies
            // would release the stop).
            if !copies.is_empty() || !quarantine_corrupt {
                return copies;
            }
            let journal = self.read_journal(key.as_ref(), session_id);
            let Some(goal) = self.journal_goal(key.as_ref(), &journal) else {
                return copies;
            };
            if !goal.is_open() {
                return copies;
            }
            let report = format!(
                "every goal copy of session {} is missing or unreadable: it {TAMPERED_MARK} or was damaged",
                shown(session_id)
            );
            self.report_tampering(&report);
            warnings.push(report);
            return self.restore_from_journal(session_id, goal, warnings);
        }
        if let Some(kept) = copies.iter().rev().max_by_key(|c| c.key()) {
            let report = format!(
                "goal state of session {} restored from {}",
                shown(session_id),
                kept.path.display()
            );
            self.report_tampering(&report);
            warnings.push(report);
            return copies;
        }
        let journal = self.read_journal(key.as_ref(), session_id);
        match self.journal_goal(key.as_ref(), &journal) {
            Some(goal) if quarantine_corrupt => {
                self.restore_from_journal(session_id, goal, warnings)
            }
            Some(goal) => vec![Copy {
                goal: Arc::new(goal),
                path: self.journal_path(session_id),
                mtime_ns: 0,
                sealed: true,
            }],
            None => self.keep_unverified(session_id, tampered, quarantine_corrupt, warnings),
        }
    }

    /// The last resort when nothing verifies (every copy edited and no
    /// journal entry to restore, e.g. the key file was deleted): tampering
    /// must never release the stop, so the newest edited copy is kept, but
    /// nothing in it that an edit could have forged to close the goal is
    /// believed. A status that frees the stop becomes `active` again, the
    /// tool history (the evidence the gate reads) starts over, so only new,
    /// real tool activity can close it, and so do the loop guard and the
    /// budget (the user's limits too, which an edit could have lowered). The user is told (the report carries
    /// the tamper mark) and decides: `/goal cancel` ends it.
    fn keep_unverified(
        &self,
        session_id: &str,
        tampered: Vec<Goal>,
        under_lock: bool,
        warnings: &mut Vec<String>,
    ) -> Vec<Copy> {
        let newest = tampered.into_iter().max_by(|a, b| {
            (crate::clock::parse_rfc3339_ms(&a.updated_at), a.revision)
                .cmp(&(crate::clock::parse_rfc3339_ms(&b.updated_at), b.revision))
        });
        let Some(mut goal) = newest else {
            return Vec::new();
        };
        if !goal.is_working() {
            goal.completion_status = crate::record::Status::Active;
            goal.closed_at = None;
        }
        goal.status_reason = Some(UNVERIFIED_REASON.to_string());
        goal.tool_history = crate::record::ToolHistory::default();
        // The loop guard's counts and a spent budget release the stop too: an
        // edit could set either to its limit. Only the host's usage marks are
        // kept, so its earlier tokens are not counted again.
        goal.stop_guard = crate::record::StopGuard::default();
        goal.budget = crate::record::Budget {
            usage_sources: std::mem::take(&mut goal.budget.usage_sources),
            ..Default::default()
        };
        let report = format!(
            "goal state of session {} {UNVERIFIED_MARK} (every copy {TAMPERED_MARK} and no journal entry restores it): the goal was kept open with its tool history, loop guard and budget cleared",
            shown(session_id)
        );
        self.report_tampering(&report);
        warnings.push(report);
        let kept = Copy {
            goal: Arc::new(goal),
            path: self.journal_path(session_id),
            mtime_ns: 0,
            sealed: true,
        };
        if !under_lock {
            return vec![kept];
        }
        // Written back sealed under the current key, so the next read finds it.
        let goal = Goal::clone(&kept.goal);
        match self.persist(
            session_id,
            goal,
            std::slice::from_ref(&kept),
            None,
            false,
            warnings,
        ) {
            Ok(stored) => vec![Copy {
                goal: Arc::new(stored),
                ..kept
            }],
            Err(e) => {
                warnings.push(format!(
                    "goal state of session {} kept open but not written back: {}",
                    shown(session_id),
                    e.message
                ));
                vec![kept]
            }
        }
    }

    /// Under the lock: write the journal's goal back to the session's three
    /// places at once (a read that set every copy aside must not leave the
    /// session without a goal for the next read).
    fn restore_from_journal(
        &self,
        session_id: &str,
        goal: Goal,
        warnings: &mut Vec<String>,
    ) -> Vec<Copy> {
        let journal = Copy {
            goal: Arc::new(goal.clone()),
            path: self.journal_path(session_id),
            mtime_ns: 0,
            sealed: true,
        };
        let cwd = goal.cwd.clone();
        let report = match self.persist(
            session_id,
            goal,
            std::slice::from_ref(&journal),
            None,
            false,
            warnings,
        ) {
            Ok(_) => format!(
                "goal state of session {} restored from its journal {}",
                shown(session_id),
                journal.path.display()
            ),
            Err(e) => format!(
                "goal state of session {} read from its journal {} but not written back: {}",
                shown(session_id),
                journal.path.display(),
                e.message
            ),
        };
        self.report_tampering(&report);
        warnings.push(report);
        // Read back what was written, so later writes see the real copies.
        let mut ignored = Vec::new();
        let mut again = Vec::new();
        let key = self.read_key();
        let [slot0, slot1] = self.slot_paths(session_id);
        let mut copies: Vec<Copy> = [
            self.by_session_path(session_id),
            self.session_local_path(session_id),
            self.by_cwd_path(&cwd, session_id),
            slot0,
            slot1,
        ]
        .iter()
        .filter_map(|p| {
            self.read_copy(
                p,
                Some(session_id),
                false,
                key.as_ref(),
                &mut ignored,
                &mut again,
            )
        })
        .collect();
        if copies.is_empty() {
            copies.push(journal);
        }
        copies
    }
}
