//! One decision per event when one host loads another host's hook files.
//!
//! Copilot CLI also runs the hooks of a repository's `.github/hooks/*.json`
//! (VS Code's workspace hooks) and `.claude/settings.json` (Claude Code's). With
//! the goal hooks installed for all three hosts, one Copilot CLI event would
//! reach the goal system up to three times: a drift count three times too fast,
//! a stop blocked three times. So an entry written for VS Code or Claude Code
//! first asks where it runs. In its own host it decides as always. Under Copilot
//! CLI it stands down when Copilot CLI's own goal hooks are installed (user level
//! or as a plugin); otherwise exactly one of the foreign entries decides, in
//! Copilot CLI's answer shape: VS Code's when the workspace has it, else Claude
//! Code's.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::hooks::Host;

/// What the environment of a hook process says about the host that started it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HookEnv {
    /// `COPILOT_CLI` is set: Copilot CLI sets it for every hook it runs.
    pub copilot_cli: bool,
    /// `CLAUDECODE` is set: Claude Code sets it for its hooks.
    pub claude_code: bool,
}

impl HookEnv {
    pub fn from_env() -> HookEnv {
        let set = |name: &str| {
            std::env::var(name)
                .map(|v| !matches!(v.trim(), "" | "0" | "false"))
                .unwrap_or(false)
        };
        HookEnv {
            copilot_cli: set("COPILOT_CLI"),
            claude_code: set("CLAUDECODE"),
        }
    }
}

/// The few top-level fields that tell the hosts' payloads apart, read from
/// the payload the hook parses anyway (one pass over a big payload).
#[derive(Debug, Default)]
pub struct PayloadShape {
    camel_session: bool,
    snake_session: bool,
    event_name: bool,
    cwd: Option<String>,
}

impl PayloadShape {
    /// The shape of a parsed payload; an unreadable payload (`None`) has no
    /// shape (the hook itself reports it).
    pub fn of(payload: Option<&Value>) -> PayloadShape {
        let Some(obj) = payload.and_then(Value::as_object) else {
            return PayloadShape::default();
        };
        PayloadShape {
            camel_session: obj.contains_key("sessionId"),
            snake_session: obj.contains_key("session_id"),
            event_name: obj.contains_key("hook_event_name") || obj.contains_key("hookEventName"),
            cwd: obj.get("cwd").and_then(Value::as_str).map(str::to_string),
        }
    }

    /// The shape of a payload's text.
    pub fn read(stdin: &str) -> PayloadShape {
        PayloadShape::of(serde_json::from_str(stdin.trim()).ok().as_ref())
    }

    /// Copilot CLI's own payload: camelCase `sessionId` and no event name.
    /// VS Code and Claude Code always send `session_id` and `hook_event_name`.
    fn is_copilot_cli(&self) -> bool {
        self.camel_session && !self.snake_session && !self.event_name
    }
}

/// Does this hook run inside Copilot CLI? Its own payload shape says so; a
/// payload in VS Code's or Claude Code's shape runs under Copilot CLI only when
/// Copilot CLI's variable is set and Claude Code's is not (Claude Code started
/// from a Copilot CLI shell inherits `COPILOT_CLI`, but sets `CLAUDECODE`).
pub fn runs_under_copilot_cli(shape: &PayloadShape, env: HookEnv) -> bool {
    shape.is_copilot_cli() || (env.copilot_cli && !env.claude_code)
}

/// What an entry does with one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Decide, answering in this host's shape.
    Decide(Host),
    /// Print an allow-shaped `{}` and leave the event to another entry.
    StandDown,
}

/// Which goal hooks a Copilot CLI session has besides this entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Installed {
    /// Copilot CLI's own goal hooks (user hooks file or the plugin).
    pub copilot_cli_hooks: bool,
    /// VS Code's workspace hooks file in the session's folder.
    pub vscode_workspace_hooks: bool,
}

/// The rule: an entry written for `configured` decides in its own host; under
/// Copilot CLI the Copilot CLI hooks win, then VS Code's workspace entry, then
/// Claude Code's.
pub fn role(configured: Host, under_copilot_cli: bool, installed: Installed) -> Role {
    match configured {
        Host::CopilotCli | Host::CopilotSdk => Role::Decide(configured),
        _ if !under_copilot_cli => Role::Decide(configured),
        _ if installed.copilot_cli_hooks => Role::StandDown,
        Host::Claude if installed.vscode_workspace_hooks => Role::StandDown,
        _ => Role::Decide(Host::CopilotCli),
    }
}

/// The name `Host::parse` reads back.
pub fn host_name(host: Host) -> &'static str {
    match host {
        Host::CopilotCli => "copilot-cli",
        Host::CopilotSdk => "copilot-sdk",
        Host::VsCode => "vscode",
        Host::Claude => "claude",
        Host::Codex => "codex",
        Host::Gemini => "gemini",
    }
}

/// Copilot CLI's folder (`COPILOT_HOME`, else `~/.copilot`).
pub fn copilot_home() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("COPILOT_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    crate::store::home_dir().map(|h| h.join(".copilot"))
}

/// The name of the Copilot CLI plugin this repository ships.
pub const PLUGIN_NAME: &str = "goal-system";

/// Are Copilot CLI's goal hooks installed: `goal-system install` wrote the user
/// hooks file, or the plugin is installed (from a marketplace, as
/// `installed-plugins/<marketplace>/goal-system`, or directly, as
/// `installed-plugins/_direct/<source>/` with our manifest)?
pub fn copilot_goal_hooks_installed(copilot_home: &Path) -> bool {
    if copilot_home
        .join("hooks")
        .join("goal-system.json")
        .is_file()
    {
        return true;
    }
    let plugins = copilot_home.join("installed-plugins");
    let Ok(entries) = std::fs::read_dir(&plugins) else {
        return false;
    };
    entries.flatten().any(|market| {
        let dir = market.path();
        if market.file_name() != "_direct" {
            return dir.join(PLUGIN_NAME).is_dir();
        }
        std::fs::read_dir(&dir)
            .map(|direct| direct.flatten().any(|p| is_our_plugin(&p.path())))
            .unwrap_or(false)
    })
}

/// A plugin folder whose manifest names it `goal-system`.
fn is_our_plugin(dir: &Path) -> bool {
    #[derive(Deserialize)]
    struct Manifest {
        name: Option<String>,
    }
    const MANIFESTS: [&str; 4] = [
        ".plugin/plugin.json",
        "plugin.json",
        ".github/plugin/plugin.json",
        ".claude-plugin/plugin.json",
    ];
    MANIFESTS.iter().any(|m| {
        std::fs::read_to_string(dir.join(m))
            .ok()
            .and_then(|t| serde_json::from_str::<Manifest>(&t).ok())
            .and_then(|m| m.name)
            .is_some_and(|n| n == PLUGIN_NAME)
    })
}

/// VS Code's workspace goal hooks (`goal-system install --vscode --project`).
pub fn vscode_workspace_hooks(cwd: &Path) -> bool {
    cwd.join(".github")
        .join("hooks")
        .join("goal-system.json")
        .is_file()
}

/// The role of an entry for `configured`, from the parsed payload (`None`
/// when it is not JSON), the environment and what is installed. Cheap in its
/// own host: no file is looked at unless the entry runs under Copilot CLI.
pub fn resolve(configured: Host, payload: Option<&Value>) -> Role {
    if matches!(configured, Host::CopilotCli | Host::CopilotSdk) {
        return Role::Decide(configured);
    }
    let shape = PayloadShape::of(payload);
    if !runs_under_copilot_cli(&shape, HookEnv::from_env()) {
        return Role::Decide(configured);
    }
    let installed = Installed {
        copilot_cli_hooks: copilot_home().is_some_and(|h| copilot_goal_hooks_installed(&h)),
        vscode_workspace_hooks: shape
            .cwd
            .as_deref()
            .is_some_and(|c| vscode_workspace_hooks(Path::new(c))),
    };
    role(configured, true, installed)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Payloads as the hosts really send them (e2e/NOTES.md).
    const COPILOT_PRE_TOOL: &str = r#"{"sessionId":"56e19816-aa","timestamp":1795324944078,"cwd":"/tmp/proj","toolName":"bash","toolArgs":{"command":"echo hello","description":"say hello"}}"#;
    const COPILOT_STOP: &str = r#"{"sessionId":"56e19816-aa","timestamp":1795324944217,"cwd":"/tmp/proj","transcriptPath":"/tmp/h/.copilot/session-state/56e19816-aa/events.jsonl","stopReason":"end_turn","stop_hook_active":false}"#;
    const CLAUDE_PRE_TOOL: &str = r#"{"session_id":"5cb384d5-bb","transcript_path":"/tmp/h/.claude/projects/p/5cb384d5-bb.jsonl","cwd":"/tmp/proj","prompt_id":"c1","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo hello"},"tool_use_id":"toolu_1"}"#;
    const VSCODE_STOP: &str = r#"{"session_id":"s-1","hook_event_name":"Stop","stop_hook_active":false,"cwd":"/tmp/proj"}"#;

    const NO_ENV: HookEnv = HookEnv {
        copilot_cli: false,
        claude_code: false,
    };
    const COPILOT_ENV: HookEnv = HookEnv {
        copilot_cli: true,
        claude_code: false,
    };

    #[test]
    fn copilot_cli_payloads_are_recognized_by_their_shape_alone() {
        assert!(runs_under_copilot_cli(
            &PayloadShape::read(COPILOT_PRE_TOOL),
            NO_ENV
        ));
        assert!(runs_under_copilot_cli(
            &PayloadShape::read(COPILOT_STOP),
            NO_ENV
        ));
    }

    #[test]
    fn claude_and_vscode_payloads_in_their_own_host_are_not_copilot_cli() {
        assert!(!runs_under_copilot_cli(
            &PayloadShape::read(CLAUDE_PRE_TOOL),
            NO_ENV
        ));
        assert!(!runs_under_copilot_cli(
            &PayloadShape::read(VSCODE_STOP),
            NO_ENV
        ));
    }

    #[test]
    fn a_claude_shaped_payload_under_copilot_cli_is_told_by_the_environment() {
        let shape = PayloadShape::read(CLAUDE_PRE_TOOL);
        assert!(runs_under_copilot_cli(&shape, COPILOT_ENV));
        // Claude Code started from a Copilot CLI shell inherits COPILOT_CLI.
        let nested = HookEnv {
            copilot_cli: true,
            claude_code: true,
        };
        assert!(!runs_under_copilot_cli(&shape, nested));
    }

    #[test]
    fn an_unreadable_payload_has_no_shape() {
        assert!(!runs_under_copilot_cli(
            &PayloadShape::read("not json"),
            NO_ENV
        ));
        assert!(!runs_under_copilot_cli(&PayloadShape::read(""), NO_ENV));
    }

    #[test]
    fn every_entry_decides_in_its_own_host() {
        let all = Installed {
            copilot_cli_hooks: true,
            vscode_workspace_hooks: true,
        };
        for host in [
            Host::VsCode,
            Host::Claude,
            Host::CopilotCli,
            Host::CopilotSdk,
        ] {
            assert_eq!(role(host, false, all), Role::Decide(host));
        }
    }

    #[test]
    fn under_copilot_cli_with_all_three_installed_only_the_copilot_entry_decides() {
        let all = Installed {
            copilot_cli_hooks: true,
            vscode_workspace_hooks: true,
        };
        let deciding: Vec<Host> = [Host::CopilotCli, Host::VsCode, Host::Claude]
            .into_iter()
            .filter(|h| role(*h, true, all) != Role::StandDown)
            .collect();
        assert_eq!(deciding, vec![Host::CopilotCli]);
    }

    #[test]
    fn without_copilot_hooks_one_foreign_entry_decides_in_copilot_shape() {
        let both = Installed {
            copilot_cli_hooks: false,
            vscode_workspace_hooks: true,
        };
        assert_eq!(
            role(Host::VsCode, true, both),
            Role::Decide(Host::CopilotCli)
        );
        assert_eq!(role(Host::Claude, true, both), Role::StandDown);
        let claude_only = Installed::default();
        assert_eq!(
            role(Host::Claude, true, claude_only),
            Role::Decide(Host::CopilotCli)
        );
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "goal-hosts-{name}-{}-{}",
            std::process::id(),
            crate::clock::now_ms()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn copilot_goal_hooks_are_found_as_a_user_hooks_file_or_an_installed_plugin() {
        let home = scratch("copilot");
        assert!(!copilot_goal_hooks_installed(&home));

        let direct = home.join("installed-plugins/_direct/local-abc/.claude-plugin");
        std::fs::create_dir_all(&direct).unwrap();
        std::fs::write(direct.join("plugin.json"), r#"{"name":"other"}"#).unwrap();
        assert!(
            !copilot_goal_hooks_installed(&home),
            "another plugin is not ours"
        );
        std::fs::write(direct.join("plugin.json"), r#"{"name":"goal-system"}"#).unwrap();
        assert!(copilot_goal_hooks_installed(&home));

        let home2 = scratch("copilot2");
        std::fs::create_dir_all(home2.join("installed-plugins/goal-system/goal-system")).unwrap();
        assert!(copilot_goal_hooks_installed(&home2));

        let home3 = scratch("copilot3");
        std::fs::create_dir_all(home3.join("hooks")).unwrap();
        std::fs::write(home3.join("hooks/goal-system.json"), "{}").unwrap();
        assert!(copilot_goal_hooks_installed(&home3));
        for d in [home, home2, home3] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}
