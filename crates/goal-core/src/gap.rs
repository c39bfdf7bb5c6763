//! What the completion gate's tool-backed condition lacks (the evidence
//! gap), read from the observed tool history, and how the model is told: the
//! observed facts and one next step. Below both the gate and the messages.

use crate::record::ToolHistory;
use crate::text::quote;

/// What the tool-backed evidence lacks (see [`freshness`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// The last verification failed.
    Failed,
    /// Files changed and no passing verification (or documentation read
    /// back) came after the last change.
    Unverified,
    /// Nothing changed and nothing was run: reads alone are no evidence.
    NothingRun,
}

/// Tool-backed evidence, observed by the hooks: a passing verification (the
/// project's tests, build, type check, linter, or its own program run) after
/// the last change; a goal that changed only documentation may instead rest
/// on reading the result back. A failed last verification always refuses,
/// and reads alone never close a goal: an analysis runs what it analysed.
/// `None` when the condition holds.
pub fn gap(h: &ToolHistory) -> Option<Gap> {
    match &h.last_verification {
        Some(v) if !v.passed => Some(Gap::Failed),
        Some(v) if v.seq > h.last_change_seq => None,
        _ if h.last_change_seq > 0
            && h.code_changes == 0
            && h.last_readback_seq > h.last_change_seq =>
        {
            None
        }
        _ if h.last_change_seq > 0 => Some(Gap::Unverified),
        _ => Some(Gap::NothingRun),
    }
}

/// [`gap`] in the model's words: the observed facts and one next step.
pub fn freshness(h: &ToolHistory) -> Option<String> {
    gap(h).map(|g| evidence_gap(h, g))
}

/// `call #3 "edit: greet.sh" (changed greet.sh)`.
pub fn change_fact(h: &ToolHistory, summary: &str) -> String {
    let files = if h.last_change_files.is_empty() {
        String::new()
    } else {
        format!(
            ", changed {}",
            h.last_change_files
                .iter()
                .map(|f| quote(f))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!("call #{}: {}{files}", h.last_change_seq, quote(summary))
}

/// The evidence the gate lacks, in the model's words: the observed facts
/// (the last change and its files, the last run and what it printed, a run
/// that did not count and why) and one concrete next step.
pub fn evidence_gap(h: &ToolHistory, gap: Gap) -> String {
    let last_run = h.last_verification.as_ref();
    let mut text = match gap {
        Gap::Failed => {
            let v = last_run.expect("a failed run");
            let why = if v.why.is_empty() { String::new() } else { format!(" ({})", v.why) };
            format!(
                "the last verification {} (call #{}) failed{why}{}: fix the cause and run it again until it passes",
                quote(&v.command),
                v.seq,
                printed(&v.output)
            )
        }
        Gap::Unverified => {
            let change = change_fact(h, h.last_change.as_deref().unwrap_or("a file change"));
            match last_run {
                Some(v) => format!(
                    "the last change ({change}) came after the last passing verification {} (call #{})",
                    quote(&v.command),
                    v.seq
                ),
                None => format!("no verification ran after the last change ({change})"),
            }
        }
        Gap::NothingRun => "nothing was run to verify the work: reads and claims alone are not evidence (no tool-backed evidence of a run). An analysis goal runs what it analysed".to_string(),
    };
    let floor = h.last_change_seq.max(last_run.map_or(0, |v| v.seq));
    if let Some(a) = h
        .last_attempt
        .as_ref()
        // Also the run of the very call that was the last change: why it
        // did not count is what the agent must know.
        .filter(|a| {
            a.seq > floor
                || gap == Gap::NothingRun
                || (gap == Gap::Unverified && a.seq == h.last_change_seq)
        })
    {
        text.push_str(&format!(
            ". The run {} (call #{}) did not count: {}{}",
            quote(&a.command),
            a.seq,
            a.why,
            printed(&a.output)
        ));
    }
    if gap != Gap::Failed {
        text.push_str(&format!(". Next: {}", next_step(h, gap)));
    }
    text
}

/// `; it printed "..."` when a run's output was kept.
fn printed(output: &str) -> String {
    if output.trim().is_empty() {
        return String::new();
    }
    let last = output.lines().rev().take(3).collect::<Vec<_>>();
    let last: Vec<&str> = last.into_iter().rev().collect();
    format!("; its output ended with {}", quote(&last.join(" | ")))
}

/// One concrete next step for an evidence gap.
fn next_step(h: &ToolHistory, gap: Gap) -> String {
    let docs_only = h.last_change_seq > 0 && h.code_changes == 0 && !h.docs_changed.is_empty();
    if docs_only && gap == Gap::Unverified {
        return format!(
            "the change touched only documentation ({}): read it back with a tool (view or cat {}) to check it, or run the project's checks",
            h.docs_changed.iter().take(3).map(|d| quote(d)).collect::<Vec<_>>().join(", "),
            quote(&h.docs_changed[0])
        );
    }
    if let Some(v) = &h.last_verification {
        return format!(
            "run {} (or the project's tests, build or program) again now, with a tool, and record what it printed",
            quote(&v.command)
        );
    }
    let script = h.last_change_files.iter().find_map(|f| {
        let runner = match f.rsplit_once('.').map(|(_, e)| e) {
            Some("sh") => "bash",
            Some("py") => "python3",
            Some("js" | "mjs" | "cjs") => "node",
            Some("rb") => "ruby",
            Some("pl") => "perl",
            _ => return None,
        };
        Some(format!("{runner} {f}"))
    });
    match script {
        Some(run) => format!(
            "run the program with a tool (e.g. {}) or the project's tests, check what it prints, and record it",
            quote(&run)
        ),
        None if gap == Gap::NothingRun => "run the project's tests, build or type check, or the program itself, with a tool; check what it prints and record it. When the project has nothing to run (prose, configuration, a question answered from reading), write the answer into a document of the project (e.g. ANALYSIS.md) and read it back: a documentation-only change rests on its read-back".into(),
        None => "run the project's tests, build or type check, or the program itself, with a tool; check what it prints and record it".into(),
    }
}
