//! Tamper evidence for stored goals: a keyed digest (the seal) on every copy
//! the store writes, and an append-only journal of goal transitions whose
//! lines are chained by the same key.
//!
//! The key is a per-state-root secret (`<root>/integrity.key`, 32 random
//! bytes in hex, 0600) that only the goal system reads; the hooks deny every
//! tool write to the state folder, so a model can edit a copy (with `sed`, a
//! script, an editor) but cannot recompute its seal. A copy whose seal does
//! not match was changed outside the goal system: the store sets it aside and
//! reads the untampered state instead (see `store::copies`).
//!
//! HMAC-SHA256 is written here (RFC 2104) over the `sha2` crate rather than
//! pulling in another crate for twenty lines.

use crate::error::{GoalError, Result};
use crate::record::Goal;
use sha2::{Digest, Sha256};
use std::cell::Cell;

/// The key file's name inside the state root.
pub const KEY_FILE: &str = "integrity.key";

/// What every store warning about a tampered copy contains: hooks look for it
/// to tell the user (see `messages::state_restored`).
pub const TAMPERED_MARK: &str = "was changed outside the goal system";

/// What the store's report contains when nothing verified and the newest
/// edited copy was kept open (see `store::copies`); hooks tell the user with
/// `messages::state_unverified`.
pub const UNVERIFIED_MARK: &str = "could not be verified";

/// The status reason of a goal kept open from an unverifiable copy.
pub const UNVERIFIED_REASON: &str = "the goal state was changed outside the goal system and could not be verified: kept open, its tool history, loop guard and budget cleared";

/// A state root's secret key.
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the secret.
        f.write_str("Key(..)")
    }
}

impl Key {
    pub fn from_bytes(bytes: [u8; 32]) -> Key {
        Key(bytes)
    }

    /// The key as stored: 64 hex characters (surrounding whitespace ignored).
    pub fn from_hex(text: &str) -> Option<Key> {
        let bytes = from_hex(text.trim())?;
        Some(Key(bytes.try_into().ok()?))
    }

    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    /// 32 fresh bytes from the kernel's random source.
    pub fn generate() -> Result<Key> {
        use std::io::Read;
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut bytes))
            .map_err(|e| GoalError::io("cannot read /dev/urandom for the integrity key", e))?;
        Ok(Key(bytes))
    }

    pub fn mac(&self, message: &[u8]) -> [u8; 32] {
        hmac_sha256(&self.0, message)
    }

    pub fn mac_hex(&self, message: &[u8]) -> String {
        hex(&self.mac(message))
    }
}

/// HMAC-SHA256 (RFC 2104): H((K ^ opad) || H((K ^ ipad) || m)).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// What a copy's seal says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seal {
    /// Written by the goal system as it is.
    Valid,
    /// No seal: a legacy record, or one whose seal was stripped.
    Missing,
    /// Changed since the goal system wrote it.
    Broken,
}

/// The bytes a seal covers: the goal serialized without its seal (struct
/// field order; unknown fields are a sorted map), so it is the same for the
/// writer and every reader.
fn sealed_bytes(goal: &Goal) -> Result<Vec<u8>> {
    // The seal is hidden while serializing rather than taken off a clone:
    // a goal's clone (its whole history) cost more than the hashing. Only
    // this goal's own seal: a goal kept inside it (a pending command's
    // `before`) is serialized as it is.
    struct Shown;
    impl Drop for Shown {
        fn drop(&mut self) {
            HIDDEN_SEAL.with(|hidden| hidden.set(0));
        }
    }
    HIDDEN_SEAL.with(|hidden| hidden.set(std::ptr::from_ref(&goal.seal) as usize));
    let _shown = Shown;
    serde_json::to_vec(goal)
        .map_err(|e| GoalError::invalid(format!("goal {} cannot be serialized: {e}", goal.id)))
}

thread_local! {
    /// The address of the seal [`sealed_bytes`] is hiding, while it
    /// serializes (0 otherwise; see [`seal_skipped`]).
    static HIDDEN_SEAL: Cell<usize> = const { Cell::new(0) };
}

/// Whether a goal's `seal` is left out when it is serialized: when there is
/// none, and while the bytes that seal covers are made ([`sealed_bytes`]).
pub(crate) fn seal_skipped(seal: &Option<String>) -> bool {
    seal.is_none() || HIDDEN_SEAL.with(Cell::get) == std::ptr::from_ref(seal) as usize
}

/// Set the goal's seal for `key`.
pub fn seal(key: &Key, goal: &mut Goal) -> Result<()> {
    let bytes = sealed_bytes(goal)?;
    goal.seal = Some(key.mac_hex(&bytes));
    Ok(())
}

/// Check a goal's seal. `key` is `None` when the state root has no key: no
/// seal can then be valid.
pub fn check(key: Option<&Key>, goal: &Goal) -> Seal {
    let Some(seal) = goal.seal.as_deref() else {
        return Seal::Missing;
    };
    let (Some(key), Ok(bytes)) = (key, sealed_bytes(goal)) else {
        return Seal::Broken;
    };
    let Some(given) = from_hex(seal) else {
        return Seal::Broken;
    };
    if constant_time_eq(&given, &key.mac(&bytes)) {
        Seal::Valid
    } else {
        Seal::Broken
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;

    #[test]
    fn hmac_matches_rfc_4231_test_cases_1_2_and_6() {
        assert_eq!(
            hex(&hmac_sha256(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // A key longer than the block is hashed first.
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    fn goal() -> Goal {
        Goal::new(
            "g-1".into(),
            "s".into(),
            "/w".into(),
            "ship it".into(),
            Status::Active,
            "2026-11-24T00:00:00.000Z".into(),
        )
    }

    #[test]
    fn a_sealed_goal_is_valid_until_any_field_changes() {
        let key = Key::from_bytes([7; 32]);
        let mut g = goal();
        assert_eq!(check(Some(&key), &g), Seal::Missing);
        seal(&key, &mut g).unwrap();
        assert_eq!(check(Some(&key), &g), Seal::Valid);
        let mut edited = g.clone();
        edited.completion_status = Status::Complete;
        assert_eq!(check(Some(&key), &edited), Seal::Broken);
        assert_eq!(check(Some(&Key::from_bytes([8; 32])), &g), Seal::Broken);
        assert_eq!(check(None, &g), Seal::Broken);
    }

    #[test]
    fn the_sealed_bytes_leave_out_this_goals_seal_only() {
        // What the seal covers is the goal as serialized with no seal of its
        // own; a goal kept inside it (a pending command's `before`) keeps its
        // seal, or every goal written with one would fail its check.
        let key = Key::from_bytes([7; 32]);
        let mut before = goal();
        seal(&key, &mut before).unwrap();
        let mut g = goal();
        g.voice.pending = Some(Box::new(crate::record::PendingCommand {
            command: "/goal cancel".into(),
            record: "/r.jsonl".into(),
            offset: 0,
            prompt_id: "p".into(),
            fingerprint: "sha256:0".into(),
            nonce: "n".into(),
            at: "2026-11-24T00:00:00.000Z".into(),
            at_ms: 0,
            before: Some(Box::new(before.clone())),
        }));
        g.seal = Some("0".repeat(64));
        let mut bare = g.clone();
        bare.seal = None;
        let bytes = sealed_bytes(&g).unwrap();
        assert_eq!(bytes, serde_json::to_vec(&bare).unwrap());
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(before.seal.as_deref().unwrap()), "{text}");
        // And serializing is back to normal afterwards: the seal is written.
        assert!(serde_json::to_string(&g).unwrap().contains(&"0".repeat(64)));
    }

    #[test]
    fn a_key_survives_its_hex_form_and_never_prints() {
        let key = Key::from_bytes([0xab; 32]);
        assert_eq!(
            Key::from_hex(&format!("{}\n", key.to_hex())),
            Some(key.clone())
        );
        assert_eq!(Key::from_hex("abc"), None);
        assert_eq!(format!("{key:?}"), "Key(..)");
    }
}
