//! The tool history of a goal: each main-session call recorded with what it
//! was seen to do (`evidence`), the working tree observed around the calls
//! (`observe`), and changes made between calls (by the user, another process
//! or an unrecorded path), noticed at the user's next prompt and at close.

use std::path::PathBuf;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::budget::{account_in, audit_budget_limited, save_if, settle_budget};
use super::{Accounted, Caller, UsageReport};
use crate::clock;
use crate::error::Result;
use crate::evidence::{self, Context, Judged, Observed};
use crate::observe::watch::{self, Look};
use crate::observe::{self, is_under, Diff, Limits, Scope, TreeState, Walked};
use crate::outcome::Report;
use crate::record::{Attempt, Goal, LastVerification, ToolEvent, ToolKind, MAX_WRITTEN};
use crate::redact;
use crate::store::Change;
use crate::store::Store;
use crate::tools;
use crate::tools::ToolCall;

/// How many recent calls the history keeps in full.
pub const HISTORY_WINDOW: usize = 50;
/// Files kept per change (the rest are counted in the message).
const MAX_FILES: usize = 5;
/// Documentation files remembered for the read-back rule.
const MAX_DOCS: usize = 16;
/// Characters of a run's output kept as evidence.
const OUTPUT_TAIL: usize = 400;

/// The goal's working tree during one event: observed at most once (the
/// tree's watcher asked what changed and those paths read again, or a walk),
/// the kept state loaded only when something changed, and saved back with
/// its mark in the goal.
pub struct Tree<'a> {
    store: &'a Store,
    session: String,
    root: PathBuf,
    state: Option<TreeState>,
    loaded: bool,
    walked: bool,
    /// The kept state changed: its side file is written again.
    dirty: bool,
    /// The watcher's mark to keep, when one was asked (`Some(None)`: none
    /// vouches for the tree now).
    mark: Option<Option<String>>,
    /// Walk, whatever the watcher would say (see [`Tree::exact`]).
    exact: bool,
    /// The goal names a kept tree that could not be read back (deleted or
    /// altered): what changed since cannot be seen.
    lost: bool,
}

impl<'a> Tree<'a> {
    pub fn new(store: &'a Store, goal: &Goal) -> Tree<'a> {
        Tree {
            store,
            session: goal.session_id.clone(),
            root: PathBuf::from(&goal.cwd),
            state: None,
            loaded: false,
            walked: false,
            dirty: false,
            mark: None,
            exact: false,
            lost: false,
        }
    }

    /// Observe by walking only: for the completion gate, which decides on
    /// what the tree holds now, not on what a watcher could see change (a
    /// file written through a hard link from outside the tree, or through a
    /// shared memory map, gives no event).
    pub fn exact(mut self) -> Tree<'a> {
        self.exact = true;
        self
    }

    fn kept(&mut self, goal: &Goal) -> Option<&mut TreeState> {
        if !self.loaded {
            self.loaded = true;
            self.state = observe::load(self.store, &self.session, goal.tool_history.tree.as_ref());
        }
        self.state.as_mut()
    }

    /// Observe the tree now and compare it with the kept one. The watcher is
    /// asked first; when it cannot vouch, the tree is walked (and a watcher
    /// started for next time). Without a kept tree (the goal's first
    /// observation, a damaged cache) the walk becomes the new baseline and
    /// the words decide this time.
    pub fn walk(&mut self, goal: &Goal) -> Observed {
        if self.walked {
            // Calls of one event run together: the first saw what they did.
            return self.quiet(goal);
        }
        self.walked = true;
        let kept = goal
            .tool_history
            .tree
            .as_ref()
            .and_then(|t| t.watch.as_deref());
        let store = self.store;
        let scope = || observe::goal_scope(store, &goal.cwd);
        if self.exact {
            return self.walk_all(goal, &scope()).0;
        }
        match watch::look(self.store, &self.root, kept) {
            Look::Changed { mark, paths, .. } => {
                self.mark = Some(Some(mark));
                if paths.is_empty() {
                    // Nothing changed since the kept tree (`kept` implies one).
                    return Observed::Tree(Diff::default());
                }
                let root = self.root.clone();
                if let Some(state) = self.kept(goal) {
                    if let Ok(diff) = state.refresh_seen(&root, scope, &paths) {
                        self.dirty = true;
                        return Observed::Tree(diff);
                    }
                }
                self.walk_all(goal, &scope()).0
            }
            Look::Walk { mark } => {
                self.mark = Some(Some(mark));
                self.walk_all(goal, &scope()).0
            }
            Look::TooBig => {
                self.mark = Some(None);
                self.give_up()
            }
            Look::Unavailable { start } => {
                self.mark = Some(None);
                let (observed, walked) = self.walk_all(goal, &scope());
                if start && walked {
                    watch::start(self.store, &self.root);
                }
                observed
            }
        }
    }

    /// Walk the whole tree; also says whether the walk reached the tree
    /// (a watcher can help next time).
    fn walk_all(&mut self, goal: &Goal, scope: &Scope) -> (Observed, bool) {
        self.dirty = true;
        match scope.walk(Limits::default()) {
            Walked::Tree(now) => {
                let root = self.root.clone();
                let observed = match self.kept(goal) {
                    Some(state) => Observed::Tree(state.advance(&root, now)),
                    None => {
                        self.lost |= goal.tool_history.tree.is_some();
                        self.state = Some(TreeState::new(now));
                        Observed::Words
                    }
                };
                (observed, true)
            }
            Walked::TooBig | Walked::TooSlow => (self.give_up(), true),
            Walked::Failed(_) => (self.give_up(), false),
        }
    }

    /// The tree cannot be observed: no kept state, the words decide.
    fn give_up(&mut self) -> Observed {
        self.dirty = true;
        self.state = None;
        self.loaded = true;
        Observed::Words
    }

    /// A tool wrote `paths`: they are read again, no walk. With the tree's
    /// watcher, only those it saw change (or a new folder holding them) are,
    /// as it vouches for them; its mark stays, since what else changed is
    /// the next walk's to see.
    fn patch(&mut self, goal: &Goal, paths: &[String]) -> Observed {
        let kept = goal
            .tool_history
            .tree
            .as_ref()
            .and_then(|t| t.watch.as_deref());
        if let (Some(kept), false) = (kept, self.exact) {
            if let Look::Changed {
                paths: seen, mark, ..
            } = watch::look(self.store, &self.root, Some(kept))
            {
                let related = |p: &String, s: &String| s == p || is_under(p, s) || is_under(s, p);
                let wanted: Vec<String> = paths
                    .iter()
                    .filter(|p| seen.iter().any(|s| related(p, s)))
                    .cloned()
                    .collect();
                // Nothing else changed: once these are read, the tree is as
                // of the new mark.
                if seen.iter().all(|s| paths.iter().any(|p| related(p, s))) {
                    self.mark = Some(Some(mark));
                }
                if wanted.is_empty() {
                    return self.quiet(goal);
                }
                let (root, store) = (self.root.clone(), self.store);
                let scope = || observe::goal_scope(store, &goal.cwd);
                if let Some(state) = self.kept(goal) {
                    if let Ok(diff) = state.refresh_seen(&root, scope, &wanted) {
                        self.dirty = true;
                        return Observed::Tree(diff);
                    }
                }
            }
        }
        let scope = observe::goal_scope(self.store, &goal.cwd);
        match self.kept(goal) {
            Some(state) => match state.refresh(&scope, paths) {
                Ok(diff) => {
                    self.dirty = true;
                    Observed::Tree(diff)
                }
                Err(_) => {
                    self.walked = true;
                    self.walk_all(goal, &scope).0
                }
            },
            None => Observed::Words,
        }
    }

    /// A call that cannot change files: nothing changed, if the tree is
    /// known (kept, or vouched for by its mark without being read).
    fn quiet(&mut self, goal: &Goal) -> Observed {
        let known = match self.loaded {
            true => self.state.is_some(),
            false => goal.tool_history.tree.is_some(),
        };
        match known {
            true => Observed::Tree(Diff::default()),
            false => Observed::Words,
        }
    }

    fn add_outputs(&mut self, goal: &Goal, paths: &[String]) {
        if let Some(state) = self.kept(goal) {
            state.add_outputs(paths);
            self.dirty = true;
        }
    }

    /// Keep the state for the next event and put its mark in the goal. A
    /// mark stays good across any later re-read or walk: what changed after
    /// it is still reported, and reading it again changes nothing.
    pub fn save(self, goal: &mut Goal) -> Result<()> {
        let previous = goal
            .tool_history
            .tree
            .as_ref()
            .and_then(|t| t.watch.clone());
        let watch = self.mark.unwrap_or(previous);
        if !self.dirty {
            if let Some(tree) = goal.tool_history.tree.as_mut() {
                tree.watch = watch;
            }
            return Ok(());
        }
        goal.tool_history.tree = match &self.state {
            Some(state) => {
                let mut mark = observe::save(self.store, &self.session, state)?;
                mark.watch = watch;
                Some(mark)
            }
            None => None,
        };
        Ok(())
    }
}

/// What observing one call takes: a walk for anything that may have changed
/// files in ways its arguments do not name, a re-read of the files an editor
/// names, nothing for a read.
fn observe_call(tree: &mut Tree, goal: &Goal, call: &ToolCall, kind: ToolKind) -> Observed {
    let root = PathBuf::from(&goal.cwd);
    match kind {
        ToolKind::Inspection | ToolKind::Noop => tree.quiet(goal),
        ToolKind::Action if !tools::is_shell_tool(&call.name) => {
            match evidence::declared_paths(&call.args, &root) {
                Some(paths) if !paths.is_empty() => tree.patch(goal, &paths),
                _ => tree.walk(goal),
            }
        }
        _ => tree.walk(goal),
    }
}

/// Record one tool call in the goal's history (bounded, redacted): what it
/// was seen to do, the last change with its files, the last verification
/// with its verdict and the end of its output, and why a run did not count.
/// Returns whether anything was recorded.
pub fn record_tool(
    goal: &mut Goal,
    call: &ToolCall,
    report: &Report,
    source: &str,
    now_ms: u64,
    tree: &mut Tree,
) -> bool {
    let class = tools::classify_call(&call.name, &call.args);
    if matches!(class.kind, ToolKind::Goal | ToolKind::Meta) {
        return false;
    }
    let key = call_key(call);
    // The CLI hook and the SDK extension may both see one call: count it once.
    if let Some(last) = goal.tool_history.recent.last() {
        let recent = now_ms.saturating_sub(last.at_ms) < 10_000;
        if last.key == key && last.source != source && recent {
            return false;
        }
    }
    let observed = observe_call(tree, goal, call, class.kind);
    let root = PathBuf::from(&goal.cwd);
    // Each call starts in the goal's folder: Copilot CLI starts a new shell
    // per call, and Claude Code puts a shell that left the project back.
    let start = root.clone();
    let judged = evidence::judge(
        call,
        report,
        &observed,
        &Context {
            root: &root,
            start,
            background_runs: goal.tool_history.background_runs,
            created: &goal.tool_history.created_files,
            changed: &goal.tool_history.changed_files,
        },
    );
    let mut judged = judged;
    if std::mem::take(&mut tree.lost) && class.kind != ToolKind::Inspection {
        // Without the kept tree nothing shows what this call did: it is a
        // change, and a run in it does not count.
        judged = Judged {
            kind: Some(ToolKind::Action),
            changes: true,
            attempt: Some(LOST.to_string()),
            command: judged.command,
            ..Judged::default()
        };
    }
    if !judged.outputs.is_empty() {
        tree.add_outputs(goal, &judged.outputs);
    }
    let how = match observed {
        Observed::Tree(_) => "tree",
        Observed::Words => "words",
    };
    apply(goal, call, &judged, report, source, now_ms, key, how);
    true
}

#[allow(clippy::too_many_arguments)]
fn apply(
    goal: &mut Goal,
    call: &ToolCall,
    judged: &Judged,
    report: &Report,
    source: &str,
    now_ms: u64,
    key: String,
    how: &str,
) {
    let kind = judged.kind.unwrap_or(ToolKind::Other);
    goal.budget.tool_calls += 1;
    let h = &mut goal.tool_history;
    h.seq += 1;
    match kind {
        ToolKind::Inspection => h.inspections += 1,
        ToolKind::Verification => h.verifications += 1,
        ToolKind::Delegation => h.delegations += 1,
        ToolKind::Action => h.actions += 1,
        // Unknown tools and no-ops count toward drift only.
        ToolKind::Other | ToolKind::Noop | ToolKind::Goal | ToolKind::Meta => {}
    }
    let at = clock::iso_from_ms(now_ms);
    let summary = tools::summarize(&call.name, &call.args);
    let files: Vec<String> = judged
        .files
        .iter()
        .take(MAX_FILES)
        .map(|f| redact::preview(f, 120))
        .collect();
    if judged.changes {
        note_change(h, summary.clone(), &judged.files, &files);
    }
    // What the goal wrote, for the rule that a program it created must use it.
    let code = |f: &&String| !evidence::is_doc(f);
    remember(&mut h.changed_files, judged.files.iter().filter(code));
    remember(&mut h.created_files, judged.created.iter().filter(code));
    let command = || {
        judged
            .command
            .as_deref()
            .map(|c| redact::preview(c, 160))
            .unwrap_or_else(|| summary.clone())
    };
    // A narrower run of the same tests does not clear a full run's failure.
    let narrower = match (&judged.run, &h.last_verification) {
        (Some(run), Some(last)) if run.passed && !last.passed && run.kind == last.kind => {
            evidence::narrower(&last.command, &command())
        }
        _ => None,
    };
    if let Some(why) = &narrower {
        h.last_attempt = Some(Attempt {
            seq: h.seq,
            command: command(),
            why: why.clone(),
            output: evidence::output_tail(&report.text, OUTPUT_TAIL),
        });
    }
    // Files verified by a passing run no longer need a new program to use
    // them (review-8: a second task's new script was refused over them).
    if judged.run.as_ref().is_some_and(|r| r.passed) && narrower.is_none() {
        h.changed_files.clear();
    }
    if let Some(run) = judged.run.as_ref().filter(|_| narrower.is_none()) {
        h.last_verification = Some(LastVerification {
            seq: h.seq,
            command: command(),
            passed: run.passed,
            at: at.clone(),
            kind: run.kind.to_string(),
            why: run.why.clone(),
            output: evidence::output_tail(&report.text, OUTPUT_TAIL),
            observed: how.to_string(),
        });
    }
    if let Some(why) = &judged.attempt {
        h.last_attempt = Some(Attempt {
            seq: h.seq,
            command: command(),
            why: why.clone(),
            output: evidence::output_tail(&report.text, OUTPUT_TAIL),
        });
    }
    if judged.started_server {
        h.background_runs += 1;
    }
    if judged.reads.iter().any(|r| h.docs_changed.contains(r)) {
        h.last_readback_seq = h.seq;
    }
    h.recent.push(ToolEvent {
        seq: h.seq,
        at,
        at_ms: now_ms,
        tool: redact::truncate(&call.name, 80),
        kind,
        summary,
        result: redact::truncate(&report.result_type, 20),
        passed: judged.run.as_ref().map(|r| r.passed),
        source: source.to_string(),
        key,
        files,
    });
    if h.recent.len() > HISTORY_WINDOW {
        let cut = h.recent.len() - HISTORY_WINDOW;
        h.recent.drain(..cut);
    }
}

/// Add paths to a bounded list of files, newest kept.
fn remember<'a>(list: &mut Vec<String>, paths: impl Iterator<Item = &'a String>) {
    for p in paths {
        list.retain(|q| q != p);
        list.push(redact::preview(p, 240));
    }
    if list.len() > MAX_WRITTEN {
        let cut = list.len() - MAX_WRITTEN;
        list.drain(..cut);
    }
}

/// A change: the freshness mark moves, and the documentation rule learns
/// whether only prose was touched.
fn note_change(
    h: &mut crate::record::ToolHistory,
    summary: String,
    all: &[String],
    kept: &[String],
) {
    h.last_change_seq = h.seq;
    h.last_change = Some(summary);
    h.last_change_files = kept.to_vec();
    if !all.is_empty() && all.iter().all(|f| evidence::is_doc(f)) {
        for f in all {
            if !h.docs_changed.contains(f) && h.docs_changed.len() < MAX_DOCS {
                h.docs_changed.push(f.clone());
            }
        }
    } else {
        h.code_changes += 1;
    }
}

/// Changes made between the agent's calls (the user's editor, another
/// process, a subagent) become a change of their own in the history, so a
/// verification made before them no longer counts. Also makes the first
/// baseline. Returns whether the goal changed.
pub fn observe_between(tree: &mut Tree, goal: &mut Goal, who: &str, now_ms: u64) -> bool {
    let had_tree = goal.tool_history.tree.is_some();
    let observed = tree.walk(goal);
    if std::mem::take(&mut tree.lost) {
        let h = &mut goal.tool_history;
        h.seq += 1;
        let summary = format!("{LOST} ({who})");
        note_change(h, summary.clone(), &[], &[]);
        push_outside(h, summary, Vec::new(), now_ms);
        return true;
    }
    let Observed::Tree(diff) = observed else {
        return had_tree;
    };
    if diff.is_empty() {
        return true;
    }
    let all: Vec<String> = diff.paths().cloned().collect();
    let files: Vec<String> = all
        .iter()
        .take(MAX_FILES)
        .map(|f| redact::preview(f, 120))
        .collect();
    let h = &mut goal.tool_history;
    h.seq += 1;
    let summary = format!("changed outside the agent's tool calls ({who})");
    note_change(h, summary.clone(), &all, &files);
    push_outside(h, summary, files, now_ms);
    true
}

/// What the hooks say when the kept tree is gone or altered.
const LOST: &str = "the goal's kept record of the working tree was deleted or altered, so what changed cannot be seen: run the verification again";

fn push_outside(
    h: &mut crate::record::ToolHistory,
    summary: String,
    files: Vec<String>,
    now_ms: u64,
) {
    h.recent.push(ToolEvent {
        seq: h.seq,
        at: clock::iso_from_ms(now_ms),
        at_ms: now_ms,
        tool: "(outside)".into(),
        kind: ToolKind::Action,
        summary,
        result: String::new(),
        passed: None,
        source: String::new(),
        key: String::new(),
        files,
    });
    if h.recent.len() > HISTORY_WINDOW {
        let cut = h.recent.len() - HISTORY_WINDOW;
        h.recent.drain(..cut);
    }
}

pub(crate) fn call_key(call: &ToolCall) -> String {
    let mut hasher = Sha256::new();
    hasher.update(call.name.as_bytes());
    hasher.update([0]);
    hash_value(&mut hasher, &call.args);
    hasher
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Strings from this size on are hashed by a sample (see [`hash_value`]):
/// the first and last 64 KB, and 64 bytes of every 16 KB between.
const SAMPLED_FROM: usize = 1 << 20;
const SAMPLE_ENDS: usize = 64 << 10;
const SAMPLE_STRIDE: usize = 16 << 10;
const SAMPLE_BYTES: usize = 64;

/// Feeds `value` to `hasher` unambiguously (a tag, lengths before text),
/// strings as they are: a write tool's arguments may carry a 10 MB file,
/// which is neither copied nor escaped to be hashed, nor hashed whole (a
/// quarter of that hook's time): the key only tells one call seen by two
/// front ends within seconds from the next call.
fn hash_value(hasher: &mut Sha256, value: &Value) {
    let text = |hasher: &mut Sha256, s: &str| {
        let bytes = s.as_bytes();
        hasher.update((bytes.len() as u64).to_le_bytes());
        if bytes.len() < SAMPLED_FROM {
            return hasher.update(bytes);
        }
        let (head, tail) = (SAMPLE_ENDS, bytes.len() - SAMPLE_ENDS);
        hasher.update(&bytes[..head]);
        for at in (head..tail).step_by(SAMPLE_STRIDE) {
            hasher.update(&bytes[at..(at + SAMPLE_BYTES).min(tail)]);
        }
        hasher.update(&bytes[tail..]);
    };
    match value {
        Value::Null => hasher.update([0]),
        Value::Bool(b) => hasher.update([1, u8::from(*b)]),
        Value::Number(n) => {
            hasher.update([2]);
            text(hasher, &n.to_string());
        }
        Value::String(s) => {
            hasher.update([3]);
            text(hasher, s);
        }
        Value::Array(items) => {
            hasher.update([4]);
            hasher.update((items.len() as u64).to_le_bytes());
            items.iter().for_each(|item| hash_value(hasher, item));
        }
        Value::Object(map) => {
            // A serde_json map iterates in key order: equal objects hash alike.
            hasher.update([5]);
            hasher.update((map.len() as u64).to_le_bytes());
            for (key, item) in map {
                text(hasher, key);
                hash_value(hasher, item);
            }
        }
    }
}

/// Record the main session's tool calls of one post-tool event in the open
/// goal's history, in one locked read-modify-write, with what the host
/// reported about them. Goal tools and host meta-tools are not recorded.
/// Returns the store's warnings.
pub fn record_tool_calls(
    store: &Store,
    caller: &Caller,
    calls: &[ToolCall],
    report: &Report,
    source: &str,
) -> Result<Vec<String>> {
    let (_, warnings) = after_tool(
        store,
        caller,
        calls,
        report,
        source,
        &UsageReport::default(),
    )?;
    Ok(warnings)
}

/// A post-tool event in one locked read-modify-write: the host's usage
/// accounted (as [`account_usage`]) and the calls recorded (as
/// [`record_tool_calls`]). Nothing is written when neither changed the goal
/// (a goal tool, no new tokens). Returns what accounting did and the store's
/// warnings.
pub fn after_tool(
    store: &Store,
    caller: &Caller,
    calls: &[ToolCall],
    report: &Report,
    source: &str,
    usage: &UsageReport,
) -> Result<(Accounted, Vec<String>)> {
    let now = clock::now_ms();
    let (accounted, warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let Some(mut goal) = current.filter(Goal::is_open) else {
                return Ok((Change::None, Accounted::default()));
            };
            let usage = account_in(&mut goal, caller, usage, now);
            let mut recorded = false;
            let mut tree = Tree::new(store, &goal);
            for call in calls {
                recorded |= record_tool(&mut goal, call, report, source, now, &mut tree);
            }
            tree.save(&mut goal)?;
            if recorded {
                settle_budget(&mut goal, now);
            }
            let changed = recorded || usage.as_ref().is_some_and(|u| u.changed);
            Ok((
                save_if(changed, &goal),
                Accounted {
                    goal: Some(goal),
                    wrap_up: usage.and_then(|u| u.wrap_up),
                },
            ))
        })?;
    audit_budget_limited(store, &accounted);
    Ok((accounted, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_big_argument_is_keyed_by_its_length_ends_and_samples() {
        let key = |content: &str| {
            call_key(&ToolCall {
                name: "Write".into(),
                args: json!({"file_path": "/p/big.txt", "content": content}),
            })
        };
        let big = "0123456789abcdef".repeat(SAMPLED_FROM / 16 * 3);
        let edit = |at: usize| {
            let mut b = big.clone().into_bytes();
            b[at] = b'#';
            String::from_utf8(b).unwrap()
        };
        assert_eq!(key(&big), key(&big.clone()));
        // Any change in the ends or a sampled block, or of length, tells calls apart.
        for at in [
            0,
            SAMPLE_ENDS - 1,
            SAMPLE_ENDS,
            SAMPLE_ENDS + SAMPLE_STRIDE + 63,
            big.len() - 1,
        ] {
            assert_ne!(key(&big), key(&edit(at)), "{at}");
        }
        assert_ne!(key(&big), key(&big[1..]));
        // Below the sampling size every byte counts.
        let small = &big[..SAMPLED_FROM - 1];
        let mut changed = small.to_string().into_bytes();
        changed[SAMPLED_FROM / 2] = b'#';
        assert_ne!(key(small), key(std::str::from_utf8(&changed).unwrap()));
    }
}
