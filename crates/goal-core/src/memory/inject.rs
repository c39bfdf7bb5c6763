//! What of the memories reaches the model, and how much:
//!
//! - at session start, the most useful memories (votes, recency, relevance to
//!   the goal and the first prompt) within [`SESSION_BUDGET_CHARS`], with a
//!   line saying how many were left out and how to list them;
//! - at each prompt, at most [`RECALL_LINES`] short lines naming the board
//!   items and memories the prompt is about, and how to read them in full;
//!   nothing when nothing is relevant.
//!
//! Both are read-only and fail-soft: a fault leaves the block out and is
//! recorded in the fault log; nothing here ever fails a hook.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::file::Repo;
use super::index::{self, Entry};
use super::messages::{self, RECALL_TAG, SESSION_TAG};
use super::rank::{self, Corpus, Doc, Docs, Query};
use super::settings;
use crate::board;
use crate::clock::now_ms;
use crate::redact;
use crate::store::Store;

/// Characters of memory lines at session start (the block's frame aside).
pub const SESSION_BUDGET_CHARS: usize = 2000;
/// Characters of one memory line at session start.
const SESSION_LINE_CHARS: usize = 320;
/// Lines at most at a prompt.
pub const RECALL_LINES: usize = 3;
/// Characters of one recall line's summary.
const RECALL_SUMMARY_CHARS: usize = 160;

fn fail_soft(
    store: &Store,
    what: &str,
    f: impl FnOnce() -> crate::error::Result<Option<String>>,
) -> Option<String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(note)) => note,
        Ok(Err(e)) => {
            store.record_fault("memory", &format!("{what} left out: {e}"));
            None
        }
        Err(_) => {
            store.record_fault("memory", &format!("{what} left out: internal panic"));
            None
        }
    }
}

/// The words a prompt is about: the objective alone in Copilot CLI's
/// autopilot wrapper, and without a leading `/goal` command word.
fn prompt_text(prompt: &str) -> String {
    let text = crate::activation::autopilot_objective(prompt).unwrap_or_else(|| prompt.to_string());
    let trimmed = text.trim_start();
    for prefix in ["/goal-system:goal", "/goal"] {
        if let Some(rest) = trimmed.strip_prefix(prefix) {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                return rest.to_string();
            }
        }
    }
    text
}

/// The session's goal, as words to rank against (objective and requirements).
fn goal_text(store: &Store, session_id: &str) -> String {
    store
        .peek_session(session_id)
        .filter(|g| g.is_open())
        .map(|g| format!("{} {}", g.objective, g.requirements.join(" ")))
        .unwrap_or_default()
}

fn age_days(entry: &Entry, now: u64) -> f32 {
    if entry.fresh_ms == 0 {
        return 365.0;
    }
    now.saturating_sub(entry.fresh_ms) as f32 / 86_400_000.0
}

/// The session-start block for `cwd`, or None (no repository, no memories,
/// recall turned off, or a fault).
pub fn session_note(store: &Store, cwd: &str, session_id: &str, prompt: &str) -> Option<String> {
    fail_soft(store, "repository memories", || {
        if cwd.is_empty() || !settings::load(store).recall {
            return Ok(None);
        }
        let Ok(repo) = Repo::find(cwd) else {
            return Ok(None);
        };
        let Some(index) = index::load(store, &repo)? else {
            return Ok(None);
        };
        Ok(render_session(
            &repo,
            &index,
            &prompt_text(prompt),
            &goal_text(store, session_id),
            now_ms(),
        ))
    })
}

/// The session-start block of an index (the ranking without the reading).
pub fn render_session(
    repo: &Repo,
    index: &index::Index,
    prompt: &str,
    goal: &str,
    now: u64,
) -> Option<String> {
    let total = index.len();
    if total == 0 {
        return None;
    }
    let matches = rank::score(&Query::new(prompt, goal), &[index as &dyn Corpus]);
    let entries = index.entries();
    let mut order: Vec<(f32, usize)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.down <= e.up)
        .map(|(i, e)| {
            (
                rank::usefulness(e.up, e.down, age_days(e, now), matches[i].score),
                i,
            )
        })
        .collect();
    // Most useful first; on a tie the newer, then file order.
    order.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(entries[b.1].fresh_ms.cmp(&entries[a.1].fresh_ms))
            .then(a.1.cmp(&b.1))
    });
    let mut lines = Vec::new();
    let mut used = 0;
    for &(_, i) in &order {
        let e = index.get(i);
        let votes = if e.up + e.down > 0 {
            format!(", votes +{}/-{}", e.up, e.down)
        } else {
            String::new()
        };
        let line = redact::truncate(
            &format!("- {} ({}{votes}): {}", e.subject, e.id, e.preview),
            SESSION_LINE_CHARS,
        );
        used += line.chars().count() + 1;
        if used > SESSION_BUDGET_CHARS {
            break;
        }
        lines.push(line);
    }
    if lines.is_empty() {
        return None;
    }
    let mut out = format!(
        "<{SESSION_TAG} repository=\"{}\">\n{}\n",
        repo.name.replace(['"', '<', '>'], "'"),
        messages::session_head(lines.len(), total)
    );
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    if lines.len() < total {
        out.push_str(&messages::session_more(total - lines.len()));
        out.push('\n');
    }
    out.push_str(&format!("</{SESSION_TAG}>"));
    Some(out)
}

/// The recall lines for a prompt in `cwd`, or None (nothing relevant, recall
/// turned off, or a fault).
pub fn recall_note(store: &Store, cwd: &str, session_id: &str, prompt: &str) -> Option<String> {
    fail_soft(store, "memory recall", || {
        if cwd.is_empty() || prompt.trim().is_empty() || !settings::load(store).recall {
            return Ok(None);
        }
        let items = board::peek(store, cwd).map(|b| b.items).unwrap_or_default();
        let items: Vec<board::ItemMeta> = items.iter().map(board::metadata).collect();
        let index = match Repo::find(cwd) {
            Ok(repo) => index::load(store, &repo)?.unwrap_or_default(),
            Err(_) => index::Index::default(),
        };
        Ok(render_recall(
            &items,
            &index,
            &prompt_text(prompt),
            &goal_text(store, session_id),
        ))
    })
}

/// The recall lines of board items and an index (the ranking without the reading).
pub fn render_recall(
    items: &[board::ItemMeta],
    index: &index::Index,
    prompt: &str,
    goal: &str,
) -> Option<String> {
    let query = Query::new(prompt, goal);
    if query.is_empty() || (items.is_empty() && index.is_empty()) {
        return None;
    }
    // Board items first, then the memories: one corpus, one ranking.
    let board_docs: Vec<Doc> = items
        .iter()
        .map(|i| Doc::new(&i.name, &[&i.description]))
        .collect();
    let matches = rank::score(&query, &[&Docs(&board_docs), index as &dyn Corpus]);
    let entries = index.entries();
    let disputed =
        |i: usize| i >= items.len() && entries[i - items.len()].down > entries[i - items.len()].up;
    let mut hits: Vec<(f32, usize)> = matches
        .iter()
        .enumerate()
        .filter(|(i, m)| m.relevant() && !disputed(*i))
        .map(|(i, m)| (m.score, i))
        .collect();
    if hits.is_empty() {
        return None;
    }
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = format!("<{RECALL_TAG}>\n{}\n", messages::recall_head());
    for &(_, i) in hits.iter().take(RECALL_LINES) {
        let line = match items.get(i) {
            Some(item) => messages::recall_board_line(
                item.src.as_str(),
                &item.name,
                &redact::truncate(&item.description, RECALL_SUMMARY_CHARS),
            ),
            None => {
                let e = index.get(i - items.len());
                messages::recall_memory_line(
                    e.id,
                    e.subject,
                    &redact::truncate(e.preview, RECALL_SUMMARY_CHARS),
                )
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!("</{RECALL_TAG}>"));
    Some(out)
}

/// Append `note` to a hook's context once (a block already there is not repeated).
pub fn append(context: &mut Option<String>, note: Option<String>, tag: &str) {
    let Some(note) = note else { return };
    if context
        .as_deref()
        .is_some_and(|c| c.contains(&format!("<{tag}")))
    {
        return;
    }
    *context = Some(match context.take() {
        Some(text) if !text.is_empty() => format!("{text}\n\n{note}"),
        _ => note,
    });
}
