//! One pass over the text: find the rules' literal triggers, run each
//! triggered rule only in a window around its trigger, collect the secret
//! spans of all rules, then write the output once.
//!
//! Why this shape:
//! - Linear time. The trigger scan (`scan.rs`) is one pass with one table
//!   lookup per byte; a rule's regex
//!   (the `regex` crate: no backtracking) runs on a bounded window per
//!   trigger, never on the whole text, and never twice
//!   over the same bytes for one rule. A window grows (doubling) only while a
//!   match reaches its end, so a long match costs its length.
//! - Cheap first call. The native hook is one short-lived process per tool
//!   call: a regex is compiled only when its trigger occurs, so clean text
//!   compiles nothing.
//! - One write. Spans of all rules are merged (an overlap takes the family
//!   of the earlier rule in the table) and the output is built once; with no
//!   span the input is handed back borrowed.

use std::borrow::Cow;

use super::assignment::HandAssignment;
use super::heuristics::{is_marker, secret_span};
use super::kinds::{Kind, MARKER_PREFIX};
use super::rules::{Rule, Start};
use super::scan::{is_word_byte, Triggers};

pub(super) struct Engine {
    pub(super) rules: Vec<Rule>,
    triggers: Triggers,
    /// Per rule, its [`Start::Back`] class as a table (a key is walked back
    /// over a byte at a time, on every assignment trigger).
    back_classes: Vec<[bool; 256]>,
}

/// How far a window may reach back to include a long key.
const MAX_KEY_BYTES: usize = 4096;

fn is_key_byte(b: u8) -> bool {
    is_word_byte(b) || b == b'.' || b == b'-'
}

/// Where the window of a trigger at `at` starts for a rule whose match
/// starts up to `back` bytes before its trigger: never inside a key (a long
/// `SERVICE_..._TOKEN`), so the window backs up to the key's first byte.
pub(super) fn window_start(text: &str, at: usize, back: usize) -> usize {
    let bytes = text.as_bytes();
    let limit = at.saturating_sub(MAX_KEY_BYTES);
    let mut from = at.saturating_sub(back);
    while from > limit && is_key_byte(bytes[from - 1]) {
        from -= 1;
    }
    floor_boundary(text, from)
}

/// Where a rule with [`Start::Back`] may match for a trigger at `at`: the
/// start of the run of `class` bytes before it (one `lead` byte earlier if
/// there is one), then each later word start or end inside the run, in
/// order.
/// Positions inside a word are skipped: the patterns start at a word
/// boundary or with a non-word byte.
pub(super) fn candidates<'t>(
    text: &'t str,
    at: usize,
    class: impl Fn(u8) -> bool,
    max: usize,
    lead: &[u8],
) -> impl Iterator<Item = usize> + 't {
    let bytes = text.as_bytes();
    let limit = at.saturating_sub(max);
    let mut first = at;
    while first > limit && class(bytes[first - 1]) {
        first -= 1;
    }
    if first > 0 && lead.iter().any(|&b| b == bytes[first - 1]) {
        first -= 1;
    }
    (first..=at).filter(move |&s| {
        (s == first
            || !bytes[s - 1].is_ascii_alphanumeric()
            || bytes.get(s).is_some_and(|b| !b.is_ascii_alphanumeric()))
            && text.is_char_boundary(s)
            && !(s > 0
                && is_word_byte(bytes[s - 1])
                && bytes.get(s).is_some_and(|&b| is_word_byte(b)))
    })
}

/// A secret found: bytes `start..end` of the text, by rule `rule`.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    rule: usize,
}

/// Adds `span` to `spans`, kept in order of start (then rule) as far as a
/// few steps back allow. Spans come in trigger order, and one that belongs
/// before the last ones is rare and close (a token format's span, found at
/// its prefix, after the span of the assignment holding it: the same
/// start, an earlier rule), so the sort after the scan finds them in order
/// and costs one pass instead of sorting thousands of spans; a span that
/// would move further is left at the end for that sort.
fn push_span(spans: &mut Vec<Span>, span: Span) {
    const STEPS: usize = 8;
    let key = |s: &Span| (s.start, s.rule);
    let mut at = spans.len();
    while at > 0 && spans.len() - at < STEPS && key(&spans[at - 1]) > key(&span) {
        at -= 1;
    }
    if at > 0 && key(&spans[at - 1]) > key(&span) {
        at = spans.len();
    }
    spans.insert(at, span);
}

/// Overlapping spans of different rules: an earlier rule (more precise)
/// wins; a later rule's span adds only what the earlier ones leave out, and
/// is dropped when that is trivial (`"private_key": "<PEM>\n"` keeps its
/// `\n` after the PEM marker, as if the PEM had been replaced first).
/// Otherwise overlapping spans are united under the earlier rule's family,
/// so no part of either secret survives. `spans` is sorted by start.
fn resolve_overlaps(text: &str, spans: Vec<Span>) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    let mut group: Vec<Span> = Vec::new();
    let mut group_end = 0;
    let flush = |group: &mut Vec<Span>, out: &mut Vec<Span>| {
        if group.len() == 1 {
            out.push(group[0]);
        } else if !group.is_empty() {
            resolve_group(text, group, out);
        }
        group.clear();
    };
    for span in spans {
        if !group.is_empty() && span.start >= group_end {
            flush(&mut group, &mut out);
        }
        group_end = if group.is_empty() {
            span.end
        } else {
            group_end.max(span.end)
        };
        group.push(span);
    }
    flush(&mut group, &mut out);
    out
}

/// One connected group of overlapping spans (few in practice).
fn resolve_group(text: &str, group: &mut [Span], out: &mut Vec<Span>) {
    group.sort_by_key(|s| (s.rule, s.start));
    let mut kept: Vec<Span> = Vec::new();
    for &span in group.iter() {
        // Parts of `span` no kept span covers.
        let mut uncovered = String::new();
        let mut at = span.start;
        let mut covering: Vec<&Span> = kept
            .iter()
            .filter(|k| k.start < span.end && span.start < k.end)
            .collect();
        covering.sort_by_key(|k| k.start);
        for k in &covering {
            if k.start > at {
                uncovered.push_str(&text[at..k.start]);
            }
            at = at.max(k.end);
        }
        if at < span.end {
            uncovered.push_str(&text[at..span.end]);
        }
        if !covering.is_empty() && is_trivial(&uncovered) {
            continue;
        }
        kept.push(span);
    }
    // Unite what overlaps among the kept spans.
    kept.sort_by_key(|s| s.start);
    let first = out.len();
    for span in kept {
        let joins = out.len() > first;
        match out.last_mut() {
            Some(last) if joins && span.start < last.end => {
                last.end = last.end.max(span.end);
                last.rule = last.rule.min(span.rule);
            }
            _ => out.push(span),
        }
    }
}

/// Blanks, escaped line ends, quotes and punctuation: nothing secret.
fn is_trivial(rest: &str) -> bool {
    let trivial = |b: u8| b.is_ascii_whitespace() || b"\"'`.,;:".contains(&b);
    // Without a backslash, no escape to take out first (no allocation).
    if !rest.contains('\\') {
        return rest.bytes().all(trivial);
    }
    rest.replace("\\n", "")
        .replace("\\r", "")
        .bytes()
        .all(|b| b.is_ascii_whitespace() || b"\"'`.,;:".contains(&b))
}

/// Largest char boundary at or before `i`.
fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Smallest char boundary at or after `i` (at most the text's length).
fn ceil_boundary(text: &str, mut i: usize) -> usize {
    if i >= text.len() {
        return text.len();
    }
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl Engine {
    pub(super) fn new(rules: Vec<Rule>) -> Engine {
        let triggers = Triggers::new(&rules);
        let back_classes = rules
            .iter()
            .map(|rule| match rule.start {
                Start::Back { class, .. } => {
                    std::array::from_fn(|b| class(u8::try_from(b).expect("a byte")))
                }
                _ => [false; 256],
            })
            .collect();
        Engine {
            rules,
            triggers,
            back_classes,
        }
    }

    /// Calls `found(at, rule)` for every trigger occurrence, in text order.
    pub(super) fn scan(&self, text: &str, found: impl FnMut(usize, usize)) {
        self.triggers.scan(text, found);
    }

    /// Secret spans of every rule, sorted and merged. Every span starts from
    /// a trigger the scan found: `glance` passes a short text with none
    /// without building the engine, and relies on it.
    fn spans(&self, text: &str, prechecks: bool) -> Vec<Span> {
        // Per rule: where its next search may start (the end of its last
        // match), so no rule reads the same bytes twice.
        let mut next_from = vec![0usize; self.rules.len()];
        let mut spans: Vec<Span> = Vec::new();
        self.scan(text, |at, rule| {
            // A pre-check runs once its rule may run there: a trigger inside
            // the rule's last match costs nothing, however long that match.
            if at >= next_from[rule]
                && (!prechecks
                    || self.rules[rule]
                        .precheck
                        .is_none_or(|check| check(text.as_bytes(), at)))
            {
                self.run_rule(text, at, rule, &mut next_from[rule], &mut spans);
            }
        });
        if spans.len() > 1 {
            // In order already but for a far-moved span (`push_span`): one
            // pass finds them sorted.
            spans.sort_unstable_by_key(|s| (s.start, s.rule));
            spans = resolve_overlaps(text, spans);
        }
        spans
    }

    /// Runs `rule` around its trigger at `at`; pushes the secret span of
    /// the match found and moves `next_from` past it. Out of line: the
    /// scan's closer look, which calls it for a few of its positions, stays
    /// small.
    #[inline(never)]
    fn run_rule(
        &self,
        text: &str,
        at: usize,
        index: usize,
        next_from: &mut usize,
        spans: &mut Vec<Span>,
    ) {
        let rule = &self.rules[index];
        match rule.start {
            Start::AtTrigger => {
                self.anchored(text, at, at, index, next_from, spans);
            }
            Start::Back { max, lead, .. } if rule.by_hand => {
                let class = &self.back_classes[index];
                for start in candidates(text, at, |b| class[usize::from(b)], max, lead) {
                    if start >= *next_from {
                        if let Some(found) = HandAssignment::read(&text[start..]) {
                            *next_from = start + found.end().max(1);
                            if let Some(secret) = secret_span(rule.kind, &found) {
                                if !secret.is_empty() {
                                    push_span(
                                        spans,
                                        Span {
                                            start: start + secret.start(),
                                            end: start + secret.end(),
                                            rule: index,
                                        },
                                    );
                                }
                            }
                            return;
                        }
                    }
                }
            }
            Start::Back { max, lead, .. } => {
                let class = &self.back_classes[index];
                for start in candidates(text, at, |b| class[usize::from(b)], max, lead) {
                    if start >= *next_from
                        && self.anchored(text, start, at, index, next_from, spans)
                    {
                        return;
                    }
                }
            }
            Start::Before(back) => loop {
                let start = window_start(text, at, back).max(*next_from);
                let Some((m_start, m_end)) = self.search(text, start, at, index, spans) else {
                    return;
                };
                *next_from = if m_end > m_start { m_end } else { m_start + 1 };
                // A match that ended before the trigger leaves it to look at.
                if m_end > at {
                    return;
                }
            },
        }
    }

    /// Matches rule `index` anchored at `start` (the trigger is at `at`);
    /// true when it matched.
    fn anchored(
        &self,
        text: &str,
        start: usize,
        at: usize,
        index: usize,
        next_from: &mut usize,
        spans: &mut Vec<Span>,
    ) -> bool {
        let rule = &self.rules[index];
        let re = rule.regex();
        let mut reach = rule.reach;
        // `find` first: the lazy DFA decides a miss cheaply; captures (a
        // slower engine) run on the match only.
        let whole = loop {
            let end = ceil_boundary(text, at.saturating_add(reach));
            let found = re.find(&text[start..end]);
            // A match reaching the window's end may go on past it.
            match found {
                Some(m) if start + m.end() == end && end < text.len() => reach *= 4,
                _ => break found,
            }
        };
        let Some(whole) = whole else { return false };
        let m_end = start + whole.end();
        *next_from = start + whole.end().max(1);
        let secret = if re.captures_len() == 1 {
            // The whole match is the secret.
            Some((whole.start(), whole.end()))
        } else {
            // The match plus what its end assertions (`$`, `\b`) look at.
            let bytes = text.as_bytes();
            let mut end = m_end;
            while end < bytes.len() && matches!(bytes[end], b' ' | b'\t' | b'\r') {
                end += 1;
            }
            let end = ceil_boundary(text, end + 1);
            match rule.locate {
                Some(locate) => locate(&text[start..m_end])
                    .and_then(|groups| secret_span(rule.kind, &groups))
                    .map(|m| (m.start(), m.end())),
                None => re
                    .captures(&text[start..end])
                    .and_then(|caps| secret_span(rule.kind, &caps).map(|m| (m.start(), m.end()))),
            }
        };
        if let Some((s, e)) = secret {
            let candidate = &text[start + s..start + e];
            let keep = match rule.kind {
                Kind::Token if re.captures_len() == 1 => !is_marker(candidate),
                Kind::Checked(check) if re.captures_len() == 1 => {
                    !is_marker(candidate) && check(candidate)
                }
                _ => true,
            };
            if keep && e > s {
                push_span(
                    spans,
                    Span {
                        start: start + s,
                        end: start + e,
                        rule: index,
                    },
                );
            }
        }
        true
    }

    /// Unanchored search for rule `index` from `start`, in a window around
    /// the trigger at `at`; the bounds of the match found.
    fn search(
        &self,
        text: &str,
        start: usize,
        at: usize,
        index: usize,
        spans: &mut Vec<Span>,
    ) -> Option<(usize, usize)> {
        let rule = &self.rules[index];
        let re = rule.regex();
        let mut reach = rule.reach;
        let caps = loop {
            let end = ceil_boundary(text, at.saturating_add(reach));
            let caps = re.captures_at(&text[..end], start);
            match caps.as_ref().map(|c| c.get(0).expect("group 0")) {
                Some(m) if m.end() == end && end < text.len() => reach *= 4,
                _ => break caps,
            }
        }?;
        let whole = caps.get(0).expect("group 0");
        if let Some(secret) = secret_span(rule.kind, &caps) {
            if !secret.is_empty() {
                push_span(
                    spans,
                    Span {
                        start: secret.start(),
                        end: secret.end(),
                        rule: index,
                    },
                );
            }
        }
        Some((whole.start(), whole.end()))
    }

    /// The text with every span replaced by its family's marker, or the
    /// input borrowed when there is none.
    pub(super) fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.redact_with(text, true)
    }

    /// [`Engine::redact`], with or without the rules' pre-checks (tests: a
    /// pre-check never changes the output).
    pub(super) fn redact_with<'t>(&self, text: &'t str, prechecks: bool) -> Cow<'t, str> {
        let spans = self.spans(text, prechecks);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        // Fresh memory in the hook: a big output takes huge pages there.
        let mut out = crate::buffer::string(text.len() + spans.len() * 16);
        let mut copied = 0;
        for span in &spans {
            out.push_str(&text[copied..span.start]);
            out.push_str(MARKER_PREFIX);
            out.push(':');
            out.push_str(self.rules[span.rule].family);
            out.push(']');
            copied = span.end;
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }

    /// The texts redaction replaces in `text`, with their families.
    pub(super) fn secrets<'t>(&self, text: &'t str) -> Vec<(&'t str, &'static str)> {
        self.spans(text, true)
            .iter()
            .map(|s| (&text[s.start..s.end], self.rules[s.rule].family))
            .collect()
    }

    /// Rules whose trigger occurs in `text` (tests: triggers must be
    /// necessary for a match).
    #[cfg(test)]
    pub(super) fn triggered(&self, text: &str) -> Vec<bool> {
        let mut seen = vec![false; self.rules.len()];
        self.scan(text, |_, rule| seen[rule] = true);
        seen
    }
}
