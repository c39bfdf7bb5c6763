//! The durable copy of a session's goal: two slot files written in place in
//! turn, `<root>/slots/<session>.0.slot` and `.1.slot`.
//!
//! A durable update by rename costs two flushes (the temp file, then its
//! folder, without which a power loss can bring the old name back: a lost
//! acknowledged update). A slot is rewritten in place and flushed once with
//! `fdatasync`: its blocks are already allocated, so usually no metadata
//! has to reach the disk with it. What makes that safe:
//!
//! - Each slot is framed: a header with the goal's length, a write number
//!   and a SHA-256 of the number and the bytes, then the bytes (the sealed goal, as in every
//!   copy), then padding to a whole number of 4 KB pages, so the file's size
//!   seldom changes. A slot cut short by a SIGKILL or a power loss, or read
//!   by a reader without the lock while it is being written, fails its
//!   digest: it is no copy, silently (never set aside as corrupt, never
//!   taken for tampered).
//! - A write goes to the slot that does not hold the later whole write, and
//!   is numbered one past it, so the other slot still holds the last
//!   acknowledged update while it is written. The two slots are one copy:
//!   the later whole write is it, the earlier one stands in only while the
//!   later one is torn. Newest valid wins between it and the other copies.
//! - A writer killed after writing a slot but before its flush leaves data
//!   that every reader sees but that a power loss could still take back;
//!   overwriting the other slot then could lose the last acknowledged update.
//!   So the writer marks `locks/<session>.mark` (one byte, no flush) before
//!   it writes and clears the mark after the flush: the next writer that
//!   finds the mark flushes both slots and their folder first. (Not the lock
//!   file itself: on Windows its lock also bars writes through another handle.)
//! - A slot that is missing (a session's first update, or set aside as
//!   tampered) or is not a regular file is created by rename, its data and
//!   its folder flushed, like any new name in the store.

use super::files::{
    ensure_dir, fsync_dir, identity, io_err, private_file_options, read_state_file, stage,
    sync_data, Found,
};
use super::Store;
use crate::error::Result;
use sha2::{Digest, Sha256};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"GOALSLOT1 ";
/// `GOALSLOT1 <10-digit length> <20-digit sequence> <64 hex digits>\n`: the
/// digest is SHA-256 of the sequence (8 bytes, little-endian) and the bytes.
const HEADER_LEN: usize = MAGIC.len() + 11 + 21 + 65;
const PAGE: usize = 4096;
const SUFFIXES: [&str; 2] = [".0.slot", ".1.slot"];
/// The mark file's byte while a slot is being written.
const WRITING: u8 = b'w';
const IDLE: u8 = b'-';

fn digest(seq: u64, bytes: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(seq.to_le_bytes());
    hasher.update(bytes);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `bytes` framed for a slot as write number `seq`: header, bytes, zero
/// padding to whole pages.
pub(super) fn frame(seq: u64, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity((HEADER_LEN + bytes.len()).next_multiple_of(PAGE));
    out.extend_from_slice(MAGIC);
    let header = format!("{:010} {seq:020} {}\n", bytes.len(), digest(seq, bytes));
    out.extend_from_slice(header.as_bytes());
    debug_assert_eq!(out.len(), HEADER_LEN);
    out.extend_from_slice(bytes);
    out.resize(out.len().next_multiple_of(PAGE), 0);
    out
}

/// The write number and the bytes a slot frames, if its header is whole
/// and its digest holds.
pub(super) fn unframe(slot: &[u8]) -> Option<(u64, &[u8])> {
    let rest = slot.get(..HEADER_LEN)?.strip_prefix(MAGIC)?;
    let text = std::str::from_utf8(rest).ok()?;
    let (len, seq, hex) = (text.get(..10)?, text.get(11..31)?, text.get(32..96)?);
    if &rest[10..11] != b" " || &rest[31..32] != b" " || &rest[96..] != b"\n" {
        return None;
    }
    let (len, seq): (usize, u64) = (len.parse().ok()?, seq.parse().ok()?);
    let body = slot.get(HEADER_LEN..HEADER_LEN.checked_add(len)?)?;
    (digest(seq, body) == hex).then_some((seq, body))
}

/// The write number of the slot at `path`, if it holds a whole frame.
fn seq_at(path: &Path) -> Option<u64> {
    seq_of(&read_state_file(path))
}

/// The write number of a slot read as `found`, if it holds a whole frame.
pub(super) fn seq_of(found: &Found) -> Option<u64> {
    match found {
        Found::Data { bytes, .. } => unframe(bytes).map(|(seq, _)| seq),
        _ => None,
    }
}

/// The goal bytes of the slot at `path` read as `bytes`: `None` when it is
/// torn (cut short by a kill or a power loss, or being written now for a
/// reader without the lock), and when the other slot holds a later whole
/// write. The two slots are one copy: the later one is it, and the earlier
/// one only stands in while the later one is torn (a goal written back to
/// an earlier version, as a refused command's rollback does, must not lose
/// to the version it undid). `sibling`: the other slot's write number when
/// it was read already (else it is read now).
pub(super) fn current<'a>(
    path: &Path,
    bytes: &'a [u8],
    sibling_seq: Option<Option<u64>>,
) -> Option<&'a [u8]> {
    let (seq, body) = unframe(bytes)?;
    let other = match sibling_seq {
        Some(known) => known,
        None => seq_at(&sibling(path)?),
    };
    match other {
        Some(later) if later > seq => None,
        _ => Some(body),
    }
}

fn sibling(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let (stem, other) = match name {
        n if n.ends_with(SUFFIXES[0]) => (n.strip_suffix(SUFFIXES[0])?, SUFFIXES[1]),
        n => (n.strip_suffix(SUFFIXES[1])?, SUFFIXES[0]),
    };
    Some(path.with_file_name(format!("{stem}{other}")))
}

/// Whether `path` names a slot file (in the slots folder of some root).
pub(super) fn is_slot(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "slots")
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| SUFFIXES.iter().any(|s| n.ends_with(s)))
}

impl Store {
    pub(super) fn slots_dir(&self) -> PathBuf {
        self.config.root.join("slots")
    }

    /// `<root>/locks/<session>.mark`: set while a slot is written (session id assumed valid).
    pub fn mark_path(&self, session_id: &str) -> PathBuf {
        self.locks_dir().join(format!("{session_id}.mark"))
    }

    /// `<root>/slots/<session>.0.slot` and `.1.slot` (session id assumed valid).
    pub fn slot_paths(&self, session_id: &str) -> [PathBuf; 2] {
        SUFFIXES.map(|s| self.slots_dir().join(format!("{session_id}{s}")))
    }

    /// Write `bytes` durably to the session's slot that does not hold its
    /// latest whole write (a torn or missing one first), numbered one past
    /// it. Returns once it is flushed, with the slot written. Under the session's lock.
    /// `known`: both slots' write numbers as this lock's holder last read or
    /// wrote them (`hold`), else both slots are read for them.
    pub(super) fn write_slot(
        &self,
        session_id: &str,
        bytes: &[u8],
        known: Option<[Option<u64>; 2]>,
    ) -> Result<PathBuf> {
        let dir = self.slots_dir();
        ensure_dir(&dir, true)?;
        let paths = self.slot_paths(session_id);
        let mark_path = self.mark_path(session_id);
        // One open for the look and both marks.
        let mut mark = open_mark(&mark_path)
            .map_err(|e| io_err(format!("cannot mark {}", mark_path.display()), e))?;
        if read_mark(&mut mark) == Some(WRITING) {
            // A writer died between its write and its flush: make what it
            // left durable before the other slot is overwritten.
            for path in &paths {
                if let Ok(file) = File::open(path) {
                    sync_data(&file)
                        .map_err(|e| io_err(format!("cannot flush {}", path.display()), e))?;
                }
            }
            fsync_dir(&dir)?;
        }
        let seqs = known.unwrap_or_else(|| paths.clone().map(|p| seq_at(&p)));
        let (index, seq) = match seqs {
            [None, None] => (0, 1),
            [None, Some(s)] => (0, s.saturating_add(1)),
            [Some(s), None] => (1, s.saturating_add(1)),
            [Some(a), Some(b)] if a < b => (0, b.saturating_add(1)),
            [Some(a), Some(_)] => (1, a.saturating_add(1)),
        };
        let path = &paths[index];
        let framed = frame(seq, bytes);
        set_mark(&mark, WRITING)
            .map_err(|e| io_err(format!("cannot mark {}", mark_path.display()), e))?;
        match open_in_place(path) {
            Some(mut file) => (|| {
                file.seek(SeekFrom::Start(0))?;
                file.write_all(&framed)?;
                sync_data(&file)
            })()
            .map_err(|e| io_err(format!("cannot write {}", path.display()), e))?,
            None => {
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                stage(&dir, name, &framed)?.commit()?;
                fsync_dir(&dir)?;
            }
        }
        // Flushed: a later writer need not flush it again.
        let _ = set_mark(&mark, IDLE);
        let mut now = seqs;
        now[index] = Some(seq);
        self.note_slot_written(session_id, now);
        Ok(path.clone())
    }
}

/// The slot opened for writing in place, if it is a regular file (never
/// through a symlink: the opened file must be the one `lstat` saw).
fn open_in_place(path: &Path) -> Option<File> {
    let before = fs::symlink_metadata(path).ok()?;
    if !before.is_file() {
        return None;
    }
    let file = OpenOptions::new().write(true).open(path).ok()?;
    let opened = file.metadata().ok()?;
    (identity(&opened) == identity(&before)).then_some(file)
}

fn read_mark(file: &mut File) -> Option<u8> {
    let mut byte = [0u8; 1];
    (file.read(&mut byte).ok()? == 1).then_some(byte[0])
}

/// The mark file, opened to read and to write (created when missing).
fn open_mark(path: &Path) -> std::io::Result<File> {
    // Never through a link planted in its place: whatever is there instead
    // of a regular file is set aside (kept) under the lock, so one planted
    // folder or link cannot turn the slots off for good (review-8 M2).
    if let Ok(meta) = fs::symlink_metadata(path) {
        if !meta.is_file() {
            let (ino, dev) = super::files::identity(&meta);
            super::files::set_aside(path, ino, dev, "corrupt")?
                .ok_or_else(|| std::io::Error::other("not a regular file"))?;
        }
    }
    let mut options = private_file_options();
    options.read(true).write(true).create(true).truncate(false);
    // Nor through a link planted between that look and the open.
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    options.open(path)
}

/// The mark is never flushed: it only has to outlive a killed process (the
/// page cache does); after a power loss, an unflushed slot is gone with it.
fn set_mark(file: &File, mark: u8) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(file, &[mark], 0)
    }
    #[cfg(not(unix))]
    {
        let mut file = file;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&[mark])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_and_any_cut_or_flip_does_not() {
        let body = br#"{"id":"goal-1","text":"some goal"}"#;
        let framed = frame(7, body);
        assert_eq!(framed.len() % PAGE, 0);
        assert_eq!(unframe(&framed), Some((7, &body[..])));
        for cut in [
            0,
            1,
            HEADER_LEN - 1,
            HEADER_LEN,
            HEADER_LEN + body.len() - 1,
        ] {
            assert_eq!(unframe(&framed[..cut]), None, "cut at {cut}");
        }
        // The length, the sequence, the digest, the body.
        for at in [0, 12, 40, HEADER_LEN - 2, HEADER_LEN, HEADER_LEN + 5] {
            let mut flipped = framed.clone();
            flipped[at] ^= 1;
            assert_eq!(unframe(&flipped), None, "flip at {at}");
        }
        // Old bytes after a shorter new frame are not read.
        let mut longer = frame(9, &[b'x'; 5000]);
        longer[..framed.len()].copy_from_slice(&framed);
        assert_eq!(unframe(&longer), Some((7, &body[..])));
    }

    #[test]
    fn slot_names() {
        assert!(is_slot(Path::new("/r/slots/s.1.slot")));
        assert!(!is_slot(Path::new("/r/by-session/s.1.slot")));
    }
}

#[cfg(test)]
mod crash_tests {
    use super::*;
    use crate::record::{Goal, Status};
    use crate::store::{Change, StoreConfig};

    const CWD: &str = "/work/slots";

    fn count(goal: &Goal) -> u64 {
        goal.objective
            .strip_prefix("count ")
            .unwrap()
            .parse()
            .unwrap()
    }

    fn bump(store: &Store) {
        store
            .modify("s1", Some(CWD), |g, _| {
                let mut g = g.unwrap();
                g.objective = format!("count {}", count(&g) + 1);
                Ok((Change::Save(g), ()))
            })
            .unwrap();
    }

    fn slot_count(path: &Path) -> Option<u64> {
        let bytes = fs::read(path).ok()?;
        Goal::from_stored(unframe(&bytes)?.1)
            .ok()
            .map(|g| count(&g))
    }

    /// A crash at each point of a slot write, with a power loss that took
    /// back the three renamed copies: the last acknowledged update is still
    /// read, nothing is reported or set aside, and the next write goes to
    /// the torn slot, never over the one that holds that update.
    #[test]
    fn a_slot_torn_at_any_byte_loses_no_acknowledged_update() {
        let base = std::env::temp_dir().join(format!("goal-slots-torn-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let store = Store::new(StoreConfig::new(base.join("s"), base.join("s/goal-system")));
        let goal = Goal::new(
            "goal-t".into(),
            "s1".into(),
            CWD.into(),
            "count 0".into(),
            Status::Active,
            crate::clock::now_iso(),
        );
        store.save(&goal).unwrap();
        bump(&store);
        bump(&store);
        let [slot0, slot1] = store.slot_paths("s1");
        assert_eq!((slot_count(&slot0), slot_count(&slot1)), (Some(2), Some(1)));
        let lazy = [
            store.by_session_path("s1"),
            store.session_local_path("s1"),
            store.by_cwd_path(CWD, "s1"),
        ];
        let acked: Vec<Vec<u8>> = lazy.iter().map(|p| fs::read(p).unwrap()).collect();
        let (old0, old1) = (fs::read(&slot0).unwrap(), fs::read(&slot1).unwrap());
        bump(&store); // count 3, into slot 1 (the older)
        let new1 = fs::read(&slot1).unwrap();
        assert_eq!(slot_count(&slot1), Some(3));
        let body_end = HEADER_LEN + unframe(&new1).unwrap().1.len();
        let mut cuts = vec![
            0,
            1,
            MAGIC.len(),
            HEADER_LEN - 1,
            HEADER_LEN,
            HEADER_LEN + 1,
        ];
        cuts.extend((HEADER_LEN..body_end).step_by(997));
        cuts.extend([body_end - 1, body_end, new1.len()]);
        for cut in cuts {
            // What the crash left: the new frame up to `cut` over the old one.
            let mut torn = new1[..cut].to_vec();
            torn.extend_from_slice(old1.get(cut..).unwrap_or_default());
            fs::write(&slot1, &torn).unwrap();
            fs::write(&slot0, &old0).unwrap();
            for (path, bytes) in lazy.iter().zip(&acked) {
                fs::write(path, bytes).unwrap();
            }
            // Whole when the old tail happens to match what was still to write.
            let whole = torn.get(..body_end) == Some(&new1[..body_end]);
            let loaded = store.load("s1", Some(CWD)).unwrap();
            assert_eq!(
                count(&loaded.goal.unwrap()),
                if whole { 3 } else { 2 },
                "cut {cut}"
            );
            assert!(
                loaded.warnings.is_empty(),
                "cut {cut}: {:?}",
                loaded.warnings
            );
            assert!(store.take_tamper_reports().is_empty(), "cut {cut}");
            let peeked = store.peek_session("s1").map(|g| count(&g));
            assert_eq!(peeked, Some(if whole { 3 } else { 2 }), "cut {cut}");
            bump(&store);
            let names: Vec<String> = fs::read_dir(store.slots_dir())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names.len(), 2, "cut {cut}: nothing set aside: {names:?}");
            if whole {
                // Slot 1 held the newest: slot 0 took the next.
                assert_eq!((slot_count(&slot0), slot_count(&slot1)), (Some(4), Some(3)));
            } else {
                assert_eq!(
                    (slot_count(&slot0), slot_count(&slot1)),
                    (Some(2), Some(3)),
                    "cut {cut}"
                );
            }
        }
        let _ = fs::remove_dir_all(&base);
    }
    /// A goal written back to an earlier version (a refused command's
    /// rollback keeps the older `updatedAt`) is what the store reads next,
    /// not the later version still in the other slot.
    #[test]
    fn the_later_slot_is_the_copy_even_when_its_goal_looks_older() {
        let base = std::env::temp_dir().join(format!("goal-slots-back-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let store = Store::new(StoreConfig::new(base.join("s"), base.join("s/goal-system")));
        let at = |n: u64, day: &str| {
            let mut g = Goal::new(
                "goal-b".into(),
                "s1".into(),
                CWD.into(),
                format!("count {n}"),
                Status::Active,
                format!("2026-01-{day}T00:00:00.000Z"),
            );
            g.updated_at = format!("2026-01-{day}T00:00:00.000Z");
            g
        };
        store.save(&at(1, "02")).unwrap();
        store.save(&at(2, "03")).unwrap();
        store.save(&at(3, "01")).unwrap();
        let [slot0, slot1] = store.slot_paths("s1");
        assert_eq!((slot_count(&slot0), slot_count(&slot1)), (Some(3), Some(2)));
        let loaded = store.load("s1", Some(CWD)).unwrap();
        assert_eq!(count(&loaded.goal.unwrap()), 3, "{:?}", loaded.warnings);
        assert_eq!(store.peek_session("s1").map(|g| count(&g)), Some(3));
        assert_eq!(
            store
                .list_all()
                .unwrap()
                .iter()
                .map(count)
                .collect::<Vec<_>>(),
            [3]
        );
        let _ = fs::remove_dir_all(&base);
    }
}
