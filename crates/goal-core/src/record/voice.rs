//! The user's voice as the hooks received it: a user command taking effect
//! until the host's own record confirms it came from the user, the commands
//! refused because it did not, and how far the host's record has been read
//! (for the user's interrupts).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Goal;

/// What the goal keeps about the user's voice.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct UserVoice {
    /// A user command applied and not yet confirmed by the host's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Box<PendingCommand>>,
    /// Commands refused because they did not come from the user (newest last, a few).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<RefusedCommand>,
    /// How far the host's record of the session was read for interrupts:
    /// a hash of its path and the byte offset.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub record_key: String,
    #[serde(default)]
    pub record_offset: u64,
}

/// A user command applied at its prompt hook, waiting for the host's record.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PendingCommand {
    /// The command as typed, redacted and short.
    pub command: String,
    /// The host's record to confirm it in (Claude Code's transcript).
    pub record: String,
    /// Where that record ended when the command arrived.
    pub offset: u64,
    /// The host's id of the prompt (Claude Code's `prompt_id`).
    pub prompt_id: String,
    /// `sha256:` of the prompt's text (whitespace collapsed): never the text.
    pub fingerprint: String,
    /// Put in a consumed command's answer, so the host's record of our own
    /// block is known (Claude Code writes the block reason down).
    pub nonce: String,
    pub at: String,
    #[serde(default)]
    pub at_ms: u64,
    /// The goal as it was before the command (none when there was none):
    /// what a refused command is rolled back to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Box<Goal>>,
}

/// A command refused because it did not come from the user.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RefusedCommand {
    pub at: String,
    /// The command, redacted and short.
    pub command: String,
    /// Why, in a few words.
    pub why: String,
}
