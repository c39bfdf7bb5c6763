//! The user's voice on the goal: a command waiting for the host's record
//! (see `provenance`), and the user's interrupts read from that record.

use std::path::Path;

use super::{pause, save_if, Caller};
use crate::error::Result;
use crate::provenance::records;
use crate::record::{Goal, PendingCommand};
use crate::store::{Change, Store};

/// Attach `pending` to the session's goal as the command left it.
pub fn attach_pending(store: &Store, caller: &Caller, pending: PendingCommand) -> Result<()> {
    store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
        let Some(mut goal) = current else {
            return Ok((Change::None, ()));
        };
        goal.voice.pending = Some(Box::new(pending));
        Ok((Change::Save(goal), ()))
    })?;
    Ok(())
}

/// Whether `record` holds an interrupt that [`note_interrupt`] would pause
/// the working `goal` for: its own record, past where the goal read it last.
/// A prompt hook looks first, so that it asks who delivered the prompt only
/// when that decides something; the host may write to its record between
/// this look and `note_interrupt`'s (which then leaves it for the next prompt).
pub fn unread_interrupt(goal: &Goal, record: &Path) -> bool {
    goal.is_working()
        && goal.voice.record_key == records::key(record)
        && records::interrupt(record, goal.voice.record_offset).0
}

/// Pin `record` as the session's record for a goal not yet reading one, from
/// `offset` on (where the host recorded what opened the goal).
pub fn pin_record(store: &Store, caller: &Caller, record: &Path, offset: u64) -> Result<()> {
    let Some(key) = records::key_on_disk(record) else {
        return Ok(());
    };
    store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
        let Some(mut goal) = current.filter(|g| g.voice.record_key.is_empty()) else {
            return Ok((Change::None, ()));
        };
        goal.voice.record_key = key.clone();
        goal.voice.record_offset = offset.min(records::end_of(record));
        Ok((Change::Save(goal), ()))
    })?;
    Ok(())
}

/// Read the host's record of the session (`record`) past where it was read
/// last: an interrupt by the user pauses a working goal (seed 004: an
/// interrupt pauses; only the user resumes). The goal keeps the first record
/// it meets (its key also pins which transcript speaks for the session, see
/// `provenance::voice`), and reads it from its end then. An interrupt read
/// where `may_pause` is false (a prompt the host did not deliver) pauses
/// nothing and stays unread for the next delivered prompt. Returns the goal
/// when it was paused now.
pub fn note_interrupt(
    store: &Store,
    caller: &Caller,
    record: &Path,
    may_pause: bool,
) -> Result<Option<Goal>> {
    let key = records::key(record);
    let (paused, _) = store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
        let Some(mut goal) = current.filter(Goal::is_open) else {
            return Ok((Change::None, None));
        };
        if goal.voice.record_key.is_empty() {
            let Some(pin) = records::key_on_disk(record) else {
                return Ok((Change::None, None));
            };
            goal.voice.record_key = pin;
            goal.voice.record_offset = records::end_of(record);
            return Ok((Change::Save(goal), None));
        }
        if goal.voice.record_key != key {
            // Not this session's record: read nothing from it.
            return Ok((Change::None, None));
        }
        let (found, end) = records::interrupt(record, goal.voice.record_offset);
        if found && !may_pause && goal.is_working() {
            // Left unread: a prompt the host did not deliver (or one whose
            // pause must wait) must not use up the user's interrupt; the next
            // delivered prompt reads it (review-8 H1).
            return Ok((Change::None, None));
        }
        let moved = end != goal.voice.record_offset;
        goal.voice.record_offset = end;
        if found && may_pause && goal.is_working() {
            pause(&mut goal);
            return Ok((Change::Save(goal.clone()), Some(goal)));
        }
        Ok((save_if(moved, &goal), None))
    })?;
    Ok(paused)
}
