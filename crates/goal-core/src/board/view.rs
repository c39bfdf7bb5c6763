//! What the model and the user read of the board: the metadata table, the
//! notes a hook adds at session start, when a goal opens and at close, and
//! the tool's description.

use super::*;

/// A table cell: one line, no column breaks, no tags that could close the block.
pub(super) fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The board as the model sees it: metadata only, never contents.
pub fn render(board: &Board, with_empty: bool) -> String {
    if board.items.is_empty() {
        return if with_empty {
            format!(
                "The context board of {} ({}) is empty. Add a reusable lesson with context_board add (name, description, context).",
                cell(&board.repository),
                cell(&board.branch)
            )
        } else {
            String::new()
        };
    }
    let mut out = format!(
        "<{TAG} repository=\"{}\" branch=\"{}\">\nReusable notes on this repository and branch ({} of {CAPACITY} items). Only metadata is shown: to read an item's content call the {TOOL_NAME} tool with {{\"command\": \"get\", \"src\": \"<src>\", \"name\": \"<name>\"}} (or run `goal-system board show <name>` in the shell).\n",
        cell(&board.repository).replace('"', "'"),
        cell(&board.branch).replace('"', "'"),
        board.items.len()
    );
    if let Some(note) = prune_note(board.items.len()) {
        out.push_str(&note);
        out.push('\n');
    }
    out.push_str("| src | name | description | read_count | count |\n|---|---|---|---|---|\n");
    for item in &board.items {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            item.src.as_str(),
            cell(&item.name),
            cell(&item.description),
            item.read_count,
            item.count
        ));
    }
    out.push_str(&format!("</{TAG}>"));
    out
}

/// The board's metadata block for `cwd`, or None (no board, an empty one, or
/// any fault: logged, never raised). A session's first sight is counted.
pub fn context_note(store: &Store, cwd: &str, session_id: &str) -> Option<String> {
    let attempt = catch_unwind(AssertUnwindSafe(|| -> Result<Option<String>> {
        if cwd.is_empty() {
            return Ok(None);
        }
        let scope = Scope::detect(cwd, None)?;
        let Some(mut board) = read(store, &scope)? else {
            return Ok(None);
        };
        if board.items.is_empty() {
            return Ok(None);
        }
        if board.clone().mark_seen(session_id) {
            board = modify(store, &scope, |b| Ok((b.mark_seen(session_id), b.clone())))?.0;
        }
        Ok(Some(render(&board, false)).filter(|t| !t.is_empty()))
    }));
    match attempt {
        Ok(Ok(note)) => note,
        Ok(Err(e)) => {
            store.record_fault("board", &format!("context board left out: {e}"));
            None
        }
        Err(_) => {
            store.record_fault("board", "context board left out: internal panic");
            None
        }
    }
}

/// The board of `cwd` as it is: no lock, no session's sight counted, no
/// fault logged (the recall reads it at every prompt; the session start
/// reports an unreadable board). None when there is none or it is unreadable.
pub fn peek(store: &Store, cwd: &str) -> Option<Board> {
    if cwd.is_empty() {
        return None;
    }
    let scope = Scope::detect(cwd, None).ok()?;
    read(store, &scope).ok().flatten()
}

/// Append the board's block to a hook's context (once; never fails).
pub fn add_note(context: &mut Option<String>, store: &Store, cwd: &str, session_id: &str) {
    if context
        .as_deref()
        .is_some_and(|c| c.contains(&format!("<{TAG} ")))
    {
        return;
    }
    if let Some(note) = context_note(store, cwd, session_id) {
        *context = Some(match context.take() {
            Some(text) if !text.is_empty() => format!("{text}\n\n{note}"),
            _ => note,
        });
    }
}

/// What a goal's close result asks (complete or blocked): a few reusable
/// lessons, stale items pruned. Empty for other statuses. Never fails.
pub fn closing_note(store: &Store, cwd: &str, goal: &Goal) -> String {
    if !matches!(goal.completion_status, Status::Complete | Status::Blocked) {
        return String::new();
    }
    let len = Scope::detect(cwd, None)
        .ok()
        .and_then(|scope| read(store, &scope).ok().flatten())
        .map_or(0, |b| b.items.len());
    let mut text = format!(
        "\n[goal-system] Before moving on: if this goal taught something reusable about this repository and branch (how to build or test it, which module owns what, a trap you fell into), record at most 3 lessons with the {TOOL_NAME} tool (command \"add\": a kebab-case name, a one-line description, the context), and prune agent items that proved stale or wrong (command \"prune\"). Record facts, not this goal's progress, and never a secret. The board holds {len} of {CAPACITY} items."
    );
    if let Some(note) = prune_note(len) {
        text.push(' ');
        text.push_str(&note);
    }
    text
}

/// The tool's description, for every host (thresholds stated once, here).
pub fn tool_description() -> String {
    format!(
        "The context board: reusable notes about this repository and branch that outlive any goal (how to run the tests, which module owns what, a trap to avoid). \
         Commands: \"get_board\" lists every item's metadata (src, name, description, read_count, count); \"get\" (src and name) returns one item's content; \
         \"add\" (name: a short kebab-case id, description: one line, context: the full reusable fact) creates or overwrites an agent item; \
         \"prune\" (name) deletes an agent item (user items are the user's to prune). At most {CAPACITY} items: an add beyond that fails, so prune first; \
         from {WARN_AT} items prune stale or redundant items down to {PRUNE_TO} or fewer. Secrets are filtered out before anything is stored. \
         Subagents may read the board, never write it."
    )
}
