//! Errors carry a stable machine code (surfaced to JS as `error.code`) and a
//! message that names what was wrong.

use std::fmt;

/// Stable error codes. Adapters and tests match on these, never on messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// A field had the wrong type or an unknown value.
    InvalidInput,
    /// A list exceeded its item count or an item its length.
    LimitExceeded,
    /// A session id that is empty, too long, or could escape the state root.
    InvalidSessionId,
    /// A cwd that is not an absolute, normal path.
    InvalidCwd,
    /// No goal for this session (or id).
    NoGoal,
    /// An open goal already exists and replacement was not explicit.
    GoalExists,
    /// The goal is closed; it never reopens by a stray update.
    GoalClosed,
    /// The caller's expected goal id no longer matches (a newer goal replaced it).
    StaleGoal,
    /// More than one candidate goal; the caller must name one.
    Ambiguous,
    /// A subagent tried to own the goal.
    Subagent,
    /// The caller's role may not do this (only the user opens, replaces,
    /// cancels, pauses, resumes and sets budgets).
    Forbidden,
    /// An issue resolution or reference was not acceptable (wildcard, unknown issue).
    InvalidResolution,
    /// The cross-process lock could not be taken in time.
    LockTimeout,
    /// A stored file could not be parsed; it was set aside.
    Corrupt,
    /// A file system error.
    Io,
    /// A named thing (a context board item) does not exist.
    NotFound,
}

impl ErrorCode {
    /// Every code, for the generated typings.
    pub const ALL: [ErrorCode; 16] = [
        ErrorCode::InvalidInput,
        ErrorCode::LimitExceeded,
        ErrorCode::InvalidSessionId,
        ErrorCode::InvalidCwd,
        ErrorCode::NoGoal,
        ErrorCode::GoalExists,
        ErrorCode::GoalClosed,
        ErrorCode::StaleGoal,
        ErrorCode::Ambiguous,
        ErrorCode::Subagent,
        ErrorCode::Forbidden,
        ErrorCode::InvalidResolution,
        ErrorCode::LockTimeout,
        ErrorCode::Corrupt,
        ErrorCode::Io,
        ErrorCode::NotFound,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::LimitExceeded => "LIMIT_EXCEEDED",
            ErrorCode::InvalidSessionId => "INVALID_SESSION_ID",
            ErrorCode::InvalidCwd => "INVALID_CWD",
            ErrorCode::NoGoal => "NO_GOAL",
            ErrorCode::GoalExists => "GOAL_EXISTS",
            ErrorCode::GoalClosed => "GOAL_CLOSED",
            ErrorCode::StaleGoal => "STALE_GOAL",
            ErrorCode::Ambiguous => "AMBIGUOUS",
            ErrorCode::Subagent => "SUBAGENT",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::InvalidResolution => "INVALID_RESOLUTION",
            ErrorCode::LockTimeout => "LOCK_TIMEOUT",
            ErrorCode::Corrupt => "CORRUPT",
            ErrorCode::Io => "IO",
            ErrorCode::NotFound => "NOT_FOUND",
        }
    }
}

/// An error with a code and a message naming the field or file at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalError {
    pub code: ErrorCode,
    pub message: String,
}

impl GoalError {
    /// Every constructor ends here: the message is redacted at the source,
    /// so no caller (command, MCP server, hook stderr, fault log) can echo a
    /// secret that arrived in a wrong-typed value or an unknown field name.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> GoalError {
        GoalError {
            code,
            message: crate::redact::for_message(&message.into()),
        }
    }

    pub fn invalid(message: impl Into<String>) -> GoalError {
        GoalError::new(ErrorCode::InvalidInput, message)
    }

    pub fn io(context: impl fmt::Display, err: std::io::Error) -> GoalError {
        GoalError::new(ErrorCode::Io, format!("{context}: {err}"))
    }
}

impl fmt::Display for GoalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for GoalError {}

pub type Result<T> = std::result::Result<T, GoalError>;
