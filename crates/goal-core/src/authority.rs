//! Who may do what with a goal. The goal belongs to the user; the main agent
//! works it; subagents only help. Every path (hooks, SDK extension, MCP server,
//! the command) names its caller's role and asks this one rule.

use crate::error::{ErrorCode, GoalError, Result};

/// The role of a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    /// The user: a prompt through the hooks, or the command in the user's own terminal.
    User,
    /// The main agent: goal tools, or the command run through its shell tool.
    #[default]
    Agent,
    /// A subagent: helps, owns nothing.
    Subagent,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Agent => "agent",
            Role::Subagent => "subagent",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        match text.trim().to_ascii_lowercase().as_str() {
            "user" => Some(Role::User),
            "agent" | "model" | "main" => Some(Role::Agent),
            "subagent" => Some(Role::Subagent),
            _ => None,
        }
    }
}

/// Everything a caller can ask of a goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Read the goal and its gate.
    Read,
    /// Open a new goal where the session has none open.
    Open,
    /// Replace the open goal with a different objective.
    Replace,
    /// Fill the user's draft, activate it, record requirements and evidence.
    Record,
    /// Close as complete, through the gate.
    CloseComplete,
    /// Close as blocked, with an exact reason.
    CloseBlocked,
    /// Cancel the goal.
    Cancel,
    /// Pause or resume the goal.
    Pause,
    /// Set or raise a budget.
    SetBudget,
}

impl Operation {
    fn words(self) -> &'static str {
        match self {
            Operation::Read => "read the goal",
            Operation::Open => "open a goal",
            Operation::Replace => "replace the goal",
            Operation::Record => "record progress on the goal",
            Operation::CloseComplete => "close the goal as complete",
            Operation::CloseBlocked => "close the goal as blocked",
            Operation::Cancel => "cancel the goal",
            Operation::Pause => "pause or resume the goal",
            Operation::SetBudget => "set or raise a budget",
        }
    }

    /// How the user does it, for a refusal that tells the agent what to ask.
    fn user_route(self) -> &'static str {
        match self {
            Operation::Open | Operation::Replace => "the user types /goal <objective>",
            Operation::Cancel => "the user types /goal cancel",
            Operation::Pause => "the user types /goal pause or /goal resume",
            Operation::SetBudget => {
                "the user types /goal budget <tokens> or runs goal-system budget in their own terminal"
            }
            _ => "the user does it",
        }
    }
}

/// May `role` perform `op`? The whole authority table, in one place.
pub fn allows(role: Role, op: Operation) -> bool {
    match role {
        Role::User => true,
        Role::Agent => matches!(
            op,
            Operation::Read
                | Operation::Record
                | Operation::CloseComplete
                | Operation::CloseBlocked
        ),
        Role::Subagent => false,
    }
}

/// `allows`, as an error that says who can do it and how.
pub fn authorize(role: Role, op: Operation) -> Result<()> {
    if allows(role, op) {
        return Ok(());
    }
    Err(match role {
        Role::Subagent => GoalError::new(
            ErrorCode::Subagent,
            format!(
                "subagents do not own goals: a subagent cannot {}. Report your findings to the main session, which verifies them before recording anything.",
                op.words()
            ),
        ),
        _ => GoalError::new(
            ErrorCode::Forbidden,
            format!(
                "only the user can {}: {}. Ask the user if that is what they want; until then keep working on the current goal, or close it as blocked with the exact reason.",
                op.words(),
                op.user_route()
            ),
        ),
    })
}

/// Environment variables that the agent hosts set in the shell their agent runs
/// commands in. A `goal-system` command that sees one runs with the agent's rights.
pub const AGENT_SHELL_MARKERS: [&str; 8] = [
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "COPILOT_CLI",
    "COPILOT_AGENT_SESSION_ID",
    "GITHUB_COPILOT_CLI",
    "VSCODE_COPILOT_AGENT",
    // Codex CLI's shell tool (0.169.0; its hooks get neither).
    "CODEX_TOOL_CALL_ID",
    "CODEX_THREAD_ID",
];

/// The role of the `goal-system` command: the user only in an interactive
/// terminal that no agent host spawned. Anything else (a pipe, an agent's
/// shell tool) is the agent, so an agent cannot borrow the user's rights.
pub fn command_role(stdin_is_tty: bool, env_names: &[&str]) -> Role {
    let agent_env = env_names.iter().any(|n| AGENT_SHELL_MARKERS.contains(n));
    if stdin_is_tty && !agent_env {
        Role::User
    } else {
        Role::Agent
    }
}

/// Is this process the user at their own terminal? Its standard input is a
/// terminal, its environment carries no agent host's shell markers, and no
/// agent host is among its ancestors (Linux; elsewhere the first two). What
/// a caller claims about itself is never enough: the addon checks this
/// before it lets a call act with the user's rights.
pub fn user_here() -> bool {
    use std::io::IsTerminal;
    let names: Vec<String> = std::env::vars_os()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let chain = crate::provenance::process::chain(std::process::id());
    command_role(std::io::stdin().is_terminal(), &names) == Role::User
        && !chain.iter().skip(1).any(|p| p.host().is_some())
}

/// The role an addon caller gets for what it claims (`role`, `subagent`):
/// a subagent stays one, and the user's rights only where this process is the
/// user at their terminal (`user_here`): any process can load the addon and
/// claim them. Every addon entry point asks this one function.
pub fn claimed_role(role: Option<&str>, subagent: bool) -> Role {
    match role.and_then(Role::parse) {
        _ if subagent => Role::Subagent,
        Some(Role::User) if user_here() => Role::User,
        Some(Role::Subagent) => Role::Subagent,
        _ => Role::Agent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_may_do_everything() {
        for op in [
            Operation::Open,
            Operation::Replace,
            Operation::Cancel,
            Operation::Pause,
            Operation::SetBudget,
            Operation::CloseComplete,
        ] {
            assert!(authorize(Role::User, op).is_ok(), "{op:?}");
        }
    }

    #[test]
    fn the_agent_works_the_goal_but_never_owns_it() {
        for op in [
            Operation::Read,
            Operation::Record,
            Operation::CloseComplete,
            Operation::CloseBlocked,
        ] {
            assert!(authorize(Role::Agent, op).is_ok(), "{op:?}");
        }
        for op in [
            Operation::Open,
            Operation::Replace,
            Operation::Cancel,
            Operation::Pause,
            Operation::SetBudget,
        ] {
            let err = authorize(Role::Agent, op).unwrap_err();
            assert_eq!(err.code, ErrorCode::Forbidden, "{op:?}");
            assert!(err.message.contains("only the user"), "{}", err.message);
        }
    }

    #[test]
    fn a_subagent_may_do_nothing_at_all() {
        let err = authorize(Role::Subagent, Operation::Read).unwrap_err();
        assert_eq!(err.code, ErrorCode::Subagent);
        assert!(authorize(Role::Subagent, Operation::CloseComplete).is_err());
    }

    #[test]
    fn the_command_is_the_user_only_in_a_terminal_no_agent_spawned() {
        assert_eq!(command_role(true, &["HOME", "PATH"]), Role::User);
        assert_eq!(command_role(false, &["HOME"]), Role::Agent);
        assert_eq!(command_role(true, &["HOME", "CLAUDECODE"]), Role::Agent);
    }
}
