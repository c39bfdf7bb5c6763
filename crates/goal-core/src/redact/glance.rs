//! A short text's first look, before the engine is built: the rules fire
//! only where one of their trigger literals occurs (`scan`), so a text with
//! none of them has nothing to redact. A hook redacts a few short texts (a
//! tool call's summary, a folder's scope) and exits; building the whole
//! engine for them (the trigger tables, a byte class per rule: about
//! 0.7 million instructions and 40 fresh pages) was a third of a writing
//! hook's work. The look takes the literals from the rule table itself, so
//! it can never miss one the engine would find; a text where any occurs goes
//! to the engine, which decides as before. This holds while every span the
//! engine redacts starts from a trigger its scan found (`Engine::spans`):
//! a pass that redacts without a trigger must come here too.

use super::rule::Rule;
use super::rules;
use super::scan::is_word_byte;
use parking_lot::Mutex;
use std::sync::OnceLock;

/// Texts up to this long are looked at first (the look reads each literal
/// that starts with a text byte, at every byte).
pub(super) const SHORT: usize = 512;

/// Every trigger literal, grouped by first byte.
struct Literals {
    /// `(literal, word_start)`, sorted by literal.
    all: Vec<(&'static [u8], bool)>,
    /// `all[starts[b]..starts[b + 1]]` begin with the byte `b` (lower case).
    starts: [u16; 257],
}

/// The rule table the look built, kept for the engine ([`rules_table`]):
/// a hook that needs both builds it once.
static TABLE: Mutex<Option<Vec<Rule>>> = Mutex::new(None);

/// The rule table for the engine: the one the look built, else a new one.
pub(super) fn rules_table() -> Vec<Rule> {
    TABLE.lock().take().unwrap_or_else(rules::table)
}

fn literals() -> &'static Literals {
    static LITERALS: OnceLock<Literals> = OnceLock::new();
    LITERALS.get_or_init(|| {
        let table = rules::table();
        let mut all: Vec<(&'static [u8], bool)> = table
            .iter()
            .flat_map(|rule| rule.triggers.iter())
            .map(|t| (t.lit.as_bytes(), t.word_start))
            .collect();
        all.sort_unstable();
        all.dedup();
        *TABLE.lock() = Some(table);
        let mut starts = [0u16; 257];
        for (b, start) in starts.iter_mut().enumerate() {
            let count = all.partition_point(|(lit, _)| usize::from(lit[0]) < b);
            *start = u16::try_from(count).expect("few trigger literals");
        }
        Literals { all, starts }
    })
}

/// Whether any rule's trigger literal occurs in `text` (any ASCII case,
/// after a non-word byte where the trigger asks for a word start): when
/// not, no rule can fire.
pub(super) fn may_fire(text: &[u8]) -> bool {
    let literals = literals();
    (0..text.len()).any(|at| {
        let first = usize::from(text[at].to_ascii_lowercase());
        let group = usize::from(literals.starts[first])..usize::from(literals.starts[first + 1]);
        literals.all[group].iter().any(|&(lit, word_start)| {
            text.get(at..at + lit.len())
                .is_some_and(|window| window.eq_ignore_ascii_case(lit))
                && !(word_start && at > 0 && is_word_byte(text[at - 1]))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::corpus::{benign, planted, tokens, Rng};
    use super::super::engine;
    use super::*;

    /// The look may send a text to the engine for nothing, never keep one
    /// from it: wherever it sees no literal, the engine redacts nothing.
    fn holds(text: &str) {
        if !may_fire(text.as_bytes()) {
            assert!(
                matches!(engine().redact(text), std::borrow::Cow::Borrowed(_)),
                "the look passed a text the engine redacts: {text:?}"
            );
        }
    }

    #[test]
    fn a_text_the_look_passes_has_nothing_the_engine_redacts() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut texts: Vec<String> = Vec::new();
        for (_, token) in tokens(&mut r) {
            texts.push(token);
        }
        for (line, _) in planted(&mut r) {
            texts.push(line);
        }
        texts.extend(benign(&mut r));
        // Every literal in each case, alone, inside a word and after one.
        for (lit, _) in &literals().all {
            let lit = std::str::from_utf8(lit).unwrap();
            for form in [lit.to_string(), lit.to_ascii_uppercase()] {
                texts.push(format!("{form} = aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z"));
                texts.push(format!("x{form}: aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z"));
            }
        }
        let mut windows = 0;
        for text in &texts {
            holds(text);
            // And every short window of it (cut anywhere, also mid-literal).
            let bytes = text.as_bytes();
            for start in (0..bytes.len()).step_by(7) {
                for len in [12, 40, SHORT] {
                    let end = (start + len).min(bytes.len());
                    if let Ok(window) = std::str::from_utf8(&bytes[start..end]) {
                        holds(window);
                        windows += 1;
                    }
                }
            }
        }
        assert!(windows > 1_000, "{windows}");
        // The look does turn texts away (else it saves nothing).
        for clean in [
            "npm test",
            "cargo test -p goal-core",
            "git status",
            "ls -la src",
        ] {
            assert!(!may_fire(clean.as_bytes()), "{clean}");
        }
    }
}
