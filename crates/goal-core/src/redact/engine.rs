//! One pass over the text: find the rules' literal triggers, run each
//! triggered rule only in a window around its trigger, collect the secret
//! spans of all rules, then write the output once.
//!
//! Why this shape:
//! - Linear time. The trigger scan is one pass with one table lookup per
//!   byte and branch-free bit tests eight bytes at a time; a rule's regex
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
use super::rules::{Kind, Rule, Start, Then, Trigger};
use super::MARKER_PREFIX;

/// A trigger of one rule.
struct Entry {
    trigger: Trigger,
    rule: usize,
    /// The literal's first (up to) eight bytes as a little-endian word, ...
    head: u64,
    /// ... the bits of those bytes to compare (all of each byte of the
    /// literal, none past its end), ...
    head_mask: u64,
    /// ... and bit 5 of each letter, set in the text before comparing, so
    /// that an upper-case letter compares equal (the literal is lower
    /// case).
    head_fold: u64,
}

impl Entry {
    fn new(trigger: Trigger, rule: usize) -> Entry {
        let (mut head, mut head_mask, mut head_fold) = (0, 0, 0);
        for (i, &b) in trigger.lit.as_bytes().iter().take(8).enumerate() {
            head |= u64::from(b) << (8 * i);
            head_mask |= 0xff << (8 * i);
            if b.is_ascii_lowercase() {
                head_fold |= 0x20 << (8 * i);
            }
        }
        Entry {
            trigger,
            rule,
            head,
            head_mask,
            head_fold,
        }
    }

    /// Does the trigger occur at `at`, given the eight bytes of the text
    /// there (`None` near the end)? One word comparison rejects nearly all
    /// candidates.
    #[inline]
    fn occurs_at(&self, text: &[u8], at: usize, word: Option<u64>) -> bool {
        match word {
            Some(word) => {
                (word | self.head_fold) & self.head_mask == self.head
                    && self.trigger.follows(text, at)
            }
            None => self.trigger.occurs_at(text, at),
        }
    }
}

pub(super) struct Engine {
    pub(super) rules: Vec<Rule>,
    /// What a byte pair (in any ASCII case) can be, as `PAIR_*` bits: one
    /// table lookup per byte of text tells the scan whether a trigger may
    /// start there.
    pairs: Box<[u8; 1 << 16]>,
    /// Entries by their first two bytes (lower case): `slots[pair]` is 0 or
    /// one more than an index into `entries`.
    slots: Box<[u16]>,
    entries: Vec<Vec<Entry>>,
}

/// The pair can be a trigger's first two bytes...
const PAIR_STARTS: u8 = 1;
/// ... its second and third bytes (any pair whose first byte ends a
/// trigger of two bytes)...
const PAIR_CONTINUES: u8 = 2;
/// ... every trigger it starts must start a word...
const PAIR_WORD_ONLY: u8 = 4;
/// ... and its first byte is a word byte (so the pair at the position
/// before tells whether a position can start a word).
const PAIR_FIRST_IS_WORD: u8 = 8;

/// The index of a byte pair in the pair table: the pair as a little-endian
/// `u16`, so the scan reads it from the text in one load.
fn pair_index(first: u8, second: u8) -> usize {
    usize::from(u16::from_le_bytes([first, second]))
}

/// Positions the scan tests per mask: a bit per position.
const CHUNK: usize = 64;

/// `[A-Za-z0-9_]`, the bytes of `(?-u:\w)`.
#[inline]
pub(super) fn is_word_byte(b: u8) -> bool {
    WORD_BYTE[usize::from(b)]
}

static WORD_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

impl Trigger {
    /// Does the trigger occur at byte offset `at` of `text`?
    fn occurs_at(&self, text: &[u8], at: usize) -> bool {
        let lit = self.lit.as_bytes();
        matches!(text.get(at..at + lit.len()), Some(window) if window.eq_ignore_ascii_case(lit))
            && self.follows(text, at)
    }

    /// Given that the literal occurs at `at`: do its surroundings fit (a
    /// word start, what the pattern requires after it)? Every byte of the
    /// literal is compared, so this also checks any part of a long literal
    /// beyond the first eight bytes.
    #[inline]
    fn follows(&self, text: &[u8], at: usize) -> bool {
        if self.word_start && at > 0 && is_word_byte(text[at - 1]) {
            return false;
        }
        let lit = self.lit.as_bytes();
        let end = at + lit.len();
        if lit.len() > 8 {
            match text.get(at + 8..end) {
                Some(tail) if tail.eq_ignore_ascii_case(&lit[8..]) => {}
                _ => return false,
            }
        }
        let rest = &text[end..];
        match self.then {
            Then::Anything => true,
            Then::Blank => matches!(rest.first(), Some(b' ' | b'\t')),
            Then::Operator => {
                // `(?:\\?["'])?[ \t]*` then the first byte of `:`, `=`, `:=`
                // or `=>`. The blank run is bounded so a trigger check stays
                // constant time.
                let quote = match rest {
                    [b'\\', b'"' | b'\'', ..] => 2,
                    [b'"' | b'\'', ..] => 1,
                    _ => 0,
                };
                let blanks = rest[quote..]
                    .iter()
                    .take(64)
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                matches!(rest.get(quote + blanks), Some(b':' | b'='))
            }
        }
    }
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
    class: fn(u8) -> bool,
    max: usize,
    lead: &[u8],
) -> impl Iterator<Item = usize> + 't {
    let bytes = text.as_bytes();
    let limit = at.saturating_sub(max);
    let mut first = at;
    while first > limit && class(bytes[first - 1]) {
        first -= 1;
    }
    if first > 0 && lead.contains(&bytes[first - 1]) {
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
        assert!(
            rules.len() < usize::from(u16::MAX),
            "rule indexes fit the slot table"
        );
        let mut pairs = Box::new([0u8; 1 << 16]);
        let mut slots = vec![0u16; 1 << 16].into_boxed_slice();
        let mut entries: Vec<Vec<Entry>> = Vec::new();
        // Pairs that start a trigger which may sit inside a word.
        let mut anywhere = vec![false; 1 << 16];
        let mark = |pairs: &mut [u8; 1 << 16], first: u8, second: u8, bit: u8| {
            for a in [first, first.to_ascii_uppercase()] {
                for b in [second, second.to_ascii_uppercase()] {
                    pairs[pair_index(a, b)] |= bit;
                }
            }
        };
        for (index, rule) in rules.iter().enumerate() {
            assert!(!rule.triggers.is_empty(), "{}: no trigger", rule.family);
            for &trigger in &rule.triggers {
                let lit = trigger.lit.as_bytes();
                assert!(
                    lit.len() >= 2 && lit.iter().all(|b| b.is_ascii() && !b.is_ascii_uppercase()),
                    "{}: a trigger is lower-case ASCII of two bytes or more",
                    rule.family
                );
                assert!(
                    !trigger.word_start || is_word_byte(lit[0]),
                    "{}: a word trigger starts with a word byte",
                    rule.family
                );
                mark(&mut pairs, lit[0], lit[1], PAIR_STARTS);
                match lit.get(2) {
                    Some(&third) => mark(&mut pairs, lit[1], third, PAIR_CONTINUES),
                    None => {
                        (0..=u8::MAX).for_each(|any| mark(&mut pairs, lit[1], any, PAIR_CONTINUES))
                    }
                }
                let pair = pair_index(lit[0], lit[1]);
                anywhere[pair] |= !trigger.word_start;
                if slots[pair] == 0 {
                    entries.push(Vec::new());
                    slots[pair] = u16::try_from(entries.len()).expect("few trigger pairs");
                }
                entries[usize::from(slots[pair]) - 1].push(Entry::new(trigger, index));
            }
        }
        for (index, flags) in pairs.iter_mut().enumerate() {
            let [first, second] = u16::try_from(index).expect("a pair").to_le_bytes();
            let lower = pair_index(first.to_ascii_lowercase(), second.to_ascii_lowercase());
            if *flags & PAIR_STARTS != 0 && !anywhere[lower] {
                *flags |= PAIR_WORD_ONLY;
            }
            if is_word_byte(first) {
                *flags |= PAIR_FIRST_IS_WORD;
            }
        }
        Engine {
            rules,
            pairs,
            slots,
            entries,
        }
    }

    /// Calls `found(at, rule)` for every trigger occurrence, in text order.
    ///
    /// Each position costs one lookup in the pair table; eight positions
    /// at a time are then tested with a few word-wide bit operations and no
    /// branch, giving a mask of the few positions that may start a trigger
    /// (one in fifty or so in agent output). Only those are compared with
    /// their entries.
    pub(super) fn scan(&self, text: &str, mut found: impl FnMut(usize, usize)) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        if n < 2 {
            return;
        }
        // The first position has no byte before it, and the last positions
        // too few bytes after them for a whole chunk: those are compared
        // directly.
        self.check(bytes, 0, &mut found);
        let pairs: &[u8; 1 << 16] = &self.pairs;
        let mut at = 1;
        // `flags[k]`: the flags of the pair at `at - 1 + k`.
        let mut flags = [0u8; CHUNK + 2];
        while at + CHUNK + 1 < n {
            // As an array, so that no index into it needs a bounds check;
            // each pair is read as one little-endian `u16`.
            let chunk: &[u8; CHUNK + 3] =
                bytes[at - 1..at + CHUNK + 2].try_into().expect("in bounds");
            for (k, f) in flags.iter_mut().enumerate() {
                let pair = u16::from_le_bytes([chunk[k], chunk[k + 1]]);
                *f = pairs[usize::from(pair)];
            }
            let mut mask = 0u64;
            for group in 0..CHUNK / 8 {
                let word = |offset: usize| {
                    let from = group * 8 + offset;
                    u64::from_le_bytes(flags[from..from + 8].try_into().expect("8 bytes"))
                };
                let (before, here, next) = (word(0), word(1), word(2));
                // Per byte (a right shift keeps each flag in its byte):
                // starts, the next pair continues, and not (word-only and
                // inside a word).
                let inside_word = (here >> 2) & (before >> 3);
                let hits = here & (next >> 1) & !inside_word & 0x0101_0101_0101_0101;
                // Gathers bit 0 of each byte into one byte, in order.
                mask |= (hits.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (group * 8);
            }
            while mask != 0 {
                let bit = mask.trailing_zeros() as usize;
                self.check(bytes, at + bit, &mut found);
                mask &= mask - 1;
            }
            at += CHUNK;
        }
        for at in at..n - 1 {
            self.check(bytes, at, &mut found);
        }
    }

    /// Calls `found` for the entries whose trigger occurs at `at`.
    #[inline]
    fn check(&self, bytes: &[u8], at: usize, found: &mut impl FnMut(usize, usize)) {
        let pair = pair_index(
            bytes[at].to_ascii_lowercase(),
            bytes[at + 1].to_ascii_lowercase(),
        );
        let slot = self.slots[pair];
        if slot != 0 {
            let word = bytes
                .get(at..at + 8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
            for entry in &self.entries[usize::from(slot) - 1] {
                if entry.occurs_at(bytes, at, word) {
                    found(at, entry.rule);
                }
            }
        }
    }

    /// Secret spans of every rule, sorted and merged.
    fn spans(&self, text: &str) -> Vec<Span> {
        // Per rule: where its next search may start (the end of its last
        // match), so no rule reads the same bytes twice.
        let mut next_from = vec![0usize; self.rules.len()];
        let mut spans: Vec<Span> = Vec::new();
        self.scan(text, |at, rule| {
            if at >= next_from[rule] {
                self.run_rule(text, at, rule, &mut next_from[rule], &mut spans);
            }
        });
        if spans.len() > 1 {
            spans.sort_unstable_by_key(|s| (s.start, s.rule));
            spans = resolve_overlaps(text, spans);
        }
        spans
    }

    /// Runs `rule` around its trigger at `at`; pushes the secret span of
    /// the match found and moves `next_from` past it.
    fn run_rule(
        &self,
        text: &str,
        at: usize,
        index: usize,
        next_from: &mut usize,
        spans: &mut Vec<Span>,
    ) {
        let rule = &self.rules[index];
        if rule
            .precheck
            .is_some_and(|check| !check(text.as_bytes(), at))
        {
            return;
        }
        match rule.start {
            Start::AtTrigger => {
                self.anchored(text, at, at, index, next_from, spans);
            }
            Start::Back { class, max, lead } if rule.by_hand => {
                for start in candidates(text, at, class, max, lead) {
                    if start >= *next_from {
                        if let Some(found) = HandAssignment::read(&text[start..]) {
                            *next_from = start + found.end().max(1);
                            if let Some(secret) = secret_span(rule.kind, &found) {
                                if !secret.is_empty() {
                                    spans.push(Span {
                                        start: start + secret.start(),
                                        end: start + secret.end(),
                                        rule: index,
                                    });
                                }
                            }
                            return;
                        }
                    }
                }
            }
            Start::Back { class, max, lead } => {
                for start in candidates(text, at, class, max, lead) {
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
            re.captures(&text[start..end])
                .and_then(|caps| secret_span(rule.kind, &caps).map(|m| (m.start(), m.end())))
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
                spans.push(Span {
                    start: start + s,
                    end: start + e,
                    rule: index,
                });
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
                spans.push(Span {
                    start: secret.start(),
                    end: secret.end(),
                    rule: index,
                });
            }
        }
        Some((whole.start(), whole.end()))
    }

    /// The text with every span replaced by its family's marker, or the
    /// input borrowed when there is none.
    pub(super) fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let spans = self.spans(text);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() + spans.len() * 16);
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

    /// Rules whose trigger occurs in `text` (tests: triggers must be
    /// necessary for a match).
    #[cfg(test)]
    pub(super) fn triggered(&self, text: &str) -> Vec<bool> {
        let mut seen = vec![false; self.rules.len()];
        self.scan(text, |_, rule| seen[rule] = true);
        seen
    }
}
