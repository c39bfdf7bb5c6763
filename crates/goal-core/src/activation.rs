//! Manual activation. Only an explicit `/goal ...`, an explicit activation
//! phrase, or the host's own explicit-objective prompt (Copilot CLI turns
//! `/goal X` into its autopilot prompt) opens a goal; an ordinary request never
//! does. Continuation happens only on an explicit continue prompt.

/// What a user prompt asks of the goal system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// An ordinary prompt: no goal action.
    None,
    /// Open (or continue, when the objective is the same) a goal.
    Open {
        objective: String,
        kind: &'static str,
    },
    /// Load one unambiguous same-directory goal, optionally naming a goal id or session.
    Continue { target: Option<String> },
    /// Show the goal.
    Show,
    /// Cancel the goal, with the user's reason.
    Cancel { reason: Option<String> },
    /// Pause: blocked, resumable.
    Pause { reason: Option<String> },
    /// Set budgets (`/goal budget 200k time 30m`) or remove both (`/goal budget off`).
    Budget {
        tokens: Option<u64>,
        seconds: Option<u64>,
        clear: bool,
    },
    /// Start the consolidation agent on this session (`/goal consolidate`; memory/).
    Consolidate,
}

/// The first line of Copilot CLI's autopilot prompt (seen in 1.0.102).
const AUTOPILOT_MARKER: &str = "explicit autopilot objective";
/// Where the host's boilerplate after the objective begins.
const AUTOPILOT_TAIL: [&str; 2] = ["\n\nWork autonomously", "\nWork autonomously"];

/// Phrases that count as an explicit continue request (compared lowercased).
const CONTINUE_PHRASES: [&str; 8] = [
    "continue the goal",
    "continue goal",
    "continue the persisted goal",
    "continue the existing goal",
    "resume the goal",
    "resume goal",
    "continue my goal",
    "resume my goal",
];

/// Phrases that explicitly open a goal: `start goal: X`.
const OPEN_PHRASES: [&str; 3] = ["start goal:", "activate goal:", "set goal:"];

fn rest_arg(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// What separates a command word from its reason: `/goal cancel: wrong
/// approach`, `/goal pause -- back after lunch`. Without one, words after
/// `cancel`/`clear`/`pause` are an objective (`/goal pause the video when the
/// tab is hidden` opens a goal).
pub const REASON_SEPARATORS: [&str; 3] = [":", "--", " - "];

/// The reason after a command word, when the rest starts with a separator.
/// `Some(None)`: the word alone; `None`: not the short form.
fn reason_form(rest: &str) -> Option<Option<String>> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Some(None);
    }
    let padded = format!(" {rest}");
    REASON_SEPARATORS.iter().find_map(|sep| {
        let body = if sep.starts_with(' ') {
            padded.strip_prefix(sep)
        } else {
            rest.strip_prefix(sep)
        }?;
        Some(rest_arg(body))
    })
}

/// A goal id (`goal-<hex>`) or a session id: one token of letters, digits,
/// `-`, `_` or `.` with at least one digit. `/goal continue refactoring` is an
/// objective, `/goal continue goal-4f2a...` a command.
pub fn looks_like_id(text: &str) -> bool {
    let t = text.trim();
    (6..=128).contains(&t.len())
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The words after `/goal` (or Copilot CLI's autopilot objective, which is
/// what `/goal` becomes there): a command in its short form, else an objective.
fn parse_goal_args(args: &str, kind: &'static str) -> Intent {
    let args = args.trim();
    let (word, rest) = match args.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (args, ""),
    };
    let lower = word.to_ascii_lowercase();
    // "cancel: reason" puts the separator on the word itself.
    let rest_owned = if lower.ends_with(':') {
        format!(": {rest}")
    } else {
        rest.to_string()
    };
    let rest = rest_owned.trim();
    let word = lower.trim_end_matches([':', '.', '!']);
    let command = match word {
        "" | "status" | "show" if rest.is_empty() || rest == ":" => Some(Intent::Show),
        "continue" | "resume" if rest.is_empty() => Some(Intent::Continue { target: None }),
        "continue" | "resume" if looks_like_id(rest) => Some(Intent::Continue {
            target: Some(rest.to_string()),
        }),
        "cancel" | "clear" | "stop" | "off" | "reset" => {
            reason_form(rest).map(|reason| Intent::Cancel { reason })
        }
        "pause" => reason_form(rest).map(|reason| Intent::Pause { reason }),
        "consolidate" if rest.is_empty() => Some(Intent::Consolidate),
        "budget" if rest.is_empty() => Some(Intent::Show),
        "budget" => budget_form(rest),
        _ => None,
    };
    command.unwrap_or_else(|| {
        if args.is_empty() {
            Intent::Show
        } else {
            Intent::Open {
                objective: args.to_string(),
                kind,
            }
        }
    })
}

/// A token count: `200000`, `200k`, `1.5m`.
pub fn parse_tokens(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase().replace(['_', ','], "");
    let (number, scale) = match t.strip_suffix('k') {
        Some(n) => (n.to_string(), 1_000.0),
        None => match t.strip_suffix('m') {
            Some(n) => (n.to_string(), 1_000_000.0),
            None => (t.clone(), 1.0),
        },
    };
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    let tokens = (value * scale).round();
    (tokens.is_finite() && tokens <= u64::MAX as f64).then_some(tokens as u64)
}

/// A duration in seconds: `30m` (and a bare number) are minutes, `2h` hours, `90s` seconds.
pub fn parse_duration(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let (number, scale) = if let Some(n) = t.strip_suffix('h') {
        (n, 3600)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1)
    } else {
        (t.strip_suffix('m').unwrap_or(&t), 60)
    };
    let n: u64 = number.trim().parse().ok()?;
    n.checked_mul(scale)
}

/// `/goal budget <tokens>[k|m] [time <minutes>m]`, `/goal budget time 45m`,
/// `/goal budget off`. Anything else is not the short form (an objective).
fn budget_form(rest: &str) -> Option<Intent> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    if matches!(words.as_slice(), ["off" | "none" | "clear"]) {
        return Some(Intent::Budget {
            tokens: None,
            seconds: None,
            clear: true,
        });
    }
    let (tokens, tail) = match words.split_first() {
        Some((first, tail)) if *first != "time" => (Some(parse_tokens(first)?), tail),
        _ => (None, words.as_slice()),
    };
    let seconds = match tail {
        [] => None,
        ["time", d] => Some(parse_duration(d)?),
        _ => return None,
    };
    Some(Intent::Budget {
        tokens,
        seconds,
        clear: false,
    })
}

/// The goal system's skills as Copilot CLI names them when the user types
/// them: the plugin's namespaced skill and the user-level skill.
const SKILLS: [&str; 2] = ["/goal-system:goal", "/goal-system"];

/// Command names typed as a plain prompt, which a host hands over raw: Codex
/// CLI's TUI refuses an unknown slash command, so there the goal system's
/// commands start with `$goal-system` (Codex's own mention sign).
const RAW_COMMANDS: [&str; 1] = ["$goal-system"];

/// How a command reached the prompt hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// As the user typed it (`/goal …`, `/goal-system:goal …`, a phrase).
    Typed,
    /// Inside Copilot CLI's autopilot prompt (`/goal` there is `/autopilot`):
    /// the host has already started its autopilot on the text.
    Autopilot,
    /// Inside Copilot CLI's skill prompt (`/goal-system pause`).
    Skill,
}

/// Classify a user prompt, and say how the command arrived.
pub fn parse_prompt_form(prompt: &str) -> (Intent, Form) {
    if let Some(args) = skill_arguments(prompt) {
        return (parse_goal_args(&args, "skill"), Form::Skill);
    }
    let form = if autopilot_objective(prompt).is_some() {
        Form::Autopilot
    } else {
        Form::Typed
    };
    (parse_prompt(prompt), form)
}

/// The arguments inside Copilot CLI's prompt for one of our skills (`The
/// user explicitly invoked the "/goal-system" skill. … ARGUMENTS: pause
/// </skill-context>`, seen in 1.0.102); `None` for any other prompt.
pub fn skill_arguments(prompt: &str) -> Option<String> {
    let head = prompt.lines().next()?;
    let name = head
        .strip_prefix("The user explicitly invoked the \"")?
        .split('"')
        .next()?;
    if !SKILLS.contains(&name) {
        return None;
    }
    let body = prompt
        .rfind("</skill-context>")
        .map_or(prompt, |end| &prompt[..end]);
    let args = body
        .rfind("\nARGUMENTS:")
        .map(|at| body[at + "\nARGUMENTS:".len()..].trim().to_string())
        .unwrap_or_default();
    Some(args)
}

/// Classify a user prompt.
pub fn parse_prompt(prompt: &str) -> Intent {
    if let Some(args) = skill_arguments(prompt) {
        return parse_goal_args(&args, "skill");
    }
    if let Some(objective) = autopilot_objective(prompt) {
        // Copilot CLI turns every `/goal ...` into this prompt, commands included.
        return if objective.is_empty() {
            Intent::None
        } else {
            parse_goal_args(&objective, "autopilot")
        };
    }
    let text = prompt.trim_start();
    let lower = text.to_ascii_lowercase();
    // The plugins' namespaced command (`/goal-system:goal`) and Copilot CLI's
    // user skill (`/goal-system`) as typed, when a host hands them over raw.
    let command = SKILLS
        .iter()
        .chain(RAW_COMMANDS.iter())
        .copied()
        .find(|c| {
            lower
                .strip_prefix(c)
                .is_some_and(|after| after.is_empty() || after.starts_with(char::is_whitespace))
        })
        .unwrap_or("/goal");
    if let Some(after) = lower.strip_prefix(command) {
        if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
            return Intent::None; // "/goals", "/goalie": some other command
        }
        return parse_goal_args(&text[command.len()..], "goal-command");
    }
    for phrase in OPEN_PHRASES {
        if lower.starts_with(phrase) {
            let objective = text[phrase.len()..].trim();
            if !objective.is_empty() {
                return Intent::Open {
                    objective: objective.to_string(),
                    kind: "phrase",
                };
            }
        }
    }
    let words = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    for phrase in CONTINUE_PHRASES {
        if let Some(rest) = words.strip_prefix(phrase) {
            let rest = rest.trim_start_matches([':', ',', '.', '!']).trim();
            // "continue the goal" alone, or followed by an id or session to pick.
            if rest.is_empty() || (rest.split_whitespace().count() == 1 && rest.len() >= 6) {
                let target = rest_arg(&text[text.len() - rest.len()..]);
                return Intent::Continue { target };
            }
        }
    }
    Intent::None
}

/// The objective inside Copilot CLI's autopilot prompt, without the host's
/// boilerplate. `None` when the prompt is not that prompt.
pub fn autopilot_objective(prompt: &str) -> Option<String> {
    let head_end = prompt.find('\n').unwrap_or(prompt.len());
    if !prompt[..head_end]
        .to_ascii_lowercase()
        .contains(AUTOPILOT_MARKER)
    {
        return None;
    }
    let body = prompt[head_end..].trim_start_matches(['\r', '\n']);
    let end = AUTOPILOT_TAIL
        .iter()
        .filter_map(|t| body.find(t))
        .min()
        .unwrap_or(body.len());
    Some(body[..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copilots_skill_prompts_carry_the_command() {
        let wrap = |name: &str, args: &str| {
            format!("The user explicitly invoked the \"{name}\" skill. Follow its instructions now.\n\n<skill-context name=\"goal\">\nBase directory for this skill: /p/skills/goal\n\nThe body mentions ARGUMENTS: here.\n\n\nARGUMENTS: {args}\n</skill-context>")
        };
        assert_eq!(
            parse_prompt_form(&wrap("/goal-system:goal", "pause")),
            (Intent::Pause { reason: None }, Form::Skill)
        );
        assert_eq!(
            parse_prompt_form(&wrap("/goal-system", "cancel: done for today")).0,
            Intent::Cancel {
                reason: Some("done for today".into())
            }
        );
        assert_eq!(parse_prompt(&wrap("/goal-system", "")), Intent::Show);
        assert_eq!(
            parse_prompt(&wrap("/goal-system", "make it faster")),
            Intent::Open {
                objective: "make it faster".into(),
                kind: "skill"
            }
        );
        assert_eq!(parse_prompt(&wrap("/other-skill", "pause")), Intent::None);
        let autopilot = "The user set this explicit autopilot objective with /autopilot:\n\ncancel: r\n\nWork autonomously toward this objective.";
        assert_eq!(parse_prompt_form(autopilot).1, Form::Autopilot);
        assert_eq!(parse_prompt_form("/goal pause").1, Form::Typed);
    }

    #[test]
    fn goal_command_opens() {
        assert_eq!(
            parse_prompt("/goal make the greeting print twice"),
            Intent::Open {
                objective: "make the greeting print twice".into(),
                kind: "goal-command"
            }
        );
        assert_eq!(parse_prompt("  /goal"), Intent::Show);
        assert_eq!(parse_prompt("/goal status"), Intent::Show);
        assert_eq!(
            parse_prompt("/goal continue goal-abc123"),
            Intent::Continue {
                target: Some("goal-abc123".into())
            }
        );
        assert_eq!(
            parse_prompt("/goal cancel: the user changed plans"),
            Intent::Cancel {
                reason: Some("the user changed plans".into())
            }
        );
        assert_eq!(parse_prompt("/goals list"), Intent::None);
        // Claude Code's namespaced plugin skill is the same command.
        assert_eq!(
            parse_prompt("/goal-system:goal make the greeting print twice"),
            parse_prompt("/goal make the greeting print twice")
        );
        assert_eq!(parse_prompt("/goal-system:goal status"), Intent::Show);
        assert_eq!(
            parse_prompt("/goal-system pause"),
            Intent::Pause { reason: None }
        );
        assert_eq!(parse_prompt("/goal-systemd start"), Intent::None);
        assert_eq!(parse_prompt("/goal-system:goals"), Intent::None);
    }

    #[test]
    fn ordinary_prompts_do_nothing() {
        for p in [
            "fix the bug in main.rs",
            "what is the goal of this function?",
            "please continue",
            "continue the goal of refactoring and also add tests for it",
            "my goal: ship it",
            "",
        ] {
            assert_eq!(parse_prompt(p), Intent::None, "{p}");
        }
    }

    #[test]
    fn explicit_continue_phrases() {
        assert_eq!(
            parse_prompt("Continue the goal"),
            Intent::Continue { target: None }
        );
        assert_eq!(
            parse_prompt("resume goal."),
            Intent::Continue { target: None }
        );
        assert_eq!(
            parse_prompt("continue the goal goal-0123456789"),
            Intent::Continue {
                target: Some("goal-0123456789".into())
            }
        );
    }

    #[test]
    fn autopilot_prompt_yields_the_objective_alone() {
        let prompt = "The user set this explicit autopilot objective with /autopilot:\n\nmake the greeting script print hello twice\n\nWork autonomously toward this objective. Call task_complete when done.";
        assert_eq!(
            parse_prompt(prompt),
            Intent::Open {
                objective: "make the greeting script print hello twice".into(),
                kind: "autopilot"
            }
        );
        let multi = "The user set this explicit autopilot objective with /autopilot:\n\nline one\nline two\n\nWork autonomously toward it";
        assert_eq!(autopilot_objective(multi).unwrap(), "line one\nline two");
        assert_eq!(autopilot_objective("objective: x"), None);
    }

    #[test]
    fn activation_phrase() {
        assert_eq!(
            parse_prompt("Start goal: migrate the db"),
            Intent::Open {
                objective: "migrate the db".into(),
                kind: "phrase"
            }
        );
    }

    #[test]
    fn command_words_count_only_in_their_short_forms() {
        assert_eq!(
            parse_prompt("/goal cancel"),
            Intent::Cancel { reason: None }
        );
        assert_eq!(parse_prompt("/goal clear"), Intent::Cancel { reason: None });
        assert_eq!(
            parse_prompt("/goal pause -- back after lunch"),
            Intent::Pause {
                reason: Some("back after lunch".into())
            }
        );
        assert_eq!(parse_prompt("/goal pause"), Intent::Pause { reason: None });
        assert_eq!(
            parse_prompt("/goal resume"),
            Intent::Continue { target: None }
        );
        for objective in [
            "pause the video when the tab is hidden",
            "clear the cache on logout",
            "cancel pending orders after 30 minutes",
            "continue refactoring the parser",
            "status page for the api",
        ] {
            assert_eq!(
                parse_prompt(&format!("/goal {objective}")),
                Intent::Open {
                    objective: objective.into(),
                    kind: "goal-command"
                },
                "{objective}"
            );
        }
    }

    #[test]
    fn copilot_autopilot_prompt_carrying_a_command_is_that_command() {
        let wrap = |x: &str| {
            format!("The user set this explicit autopilot objective with /autopilot:\n\n{x}\n\nWork autonomously toward this objective.")
        };
        assert_eq!(
            parse_prompt(&wrap("continue")),
            Intent::Continue { target: None }
        );
        assert_eq!(parse_prompt(&wrap("status")), Intent::Show);
        assert_eq!(
            parse_prompt(&wrap("cancel")),
            Intent::Cancel { reason: None }
        );
        assert_eq!(
            parse_prompt(&wrap("continue goal-0a1b2c3d4e")),
            Intent::Continue {
                target: Some("goal-0a1b2c3d4e".into())
            }
        );
        assert_eq!(
            parse_prompt(&wrap("pause the video when the tab is hidden")),
            Intent::Open {
                objective: "pause the video when the tab is hidden".into(),
                kind: "autopilot"
            }
        );
    }

    #[test]
    fn the_budget_form_sets_tokens_and_time_and_anything_else_is_an_objective() {
        let budget = |tokens, seconds| Intent::Budget {
            tokens,
            seconds,
            clear: false,
        };
        assert_eq!(
            parse_prompt("/goal budget 200k time 30m"),
            budget(Some(200_000), Some(1800))
        );
        assert_eq!(
            parse_prompt("/goal budget 1.5m"),
            budget(Some(1_500_000), None)
        );
        assert_eq!(parse_prompt("/goal budget 0"), budget(Some(0), None));
        assert_eq!(
            parse_prompt("/goal budget time 2h"),
            budget(None, Some(7200))
        );
        assert_eq!(
            parse_prompt("/goal budget off"),
            Intent::Budget {
                tokens: None,
                seconds: None,
                clear: true
            }
        );
        assert_eq!(
            parse_prompt("/goal budget the quarterly report"),
            Intent::Open {
                objective: "budget the quarterly report".into(),
                kind: "goal-command"
            }
        );
    }
}
