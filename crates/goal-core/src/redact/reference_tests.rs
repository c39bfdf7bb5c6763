//! Redaction's output held to a reference, so that work on its speed
//! cannot change what it finds: the SHA-256 of the output on the bench's
//! mixed agent output and on the generated corpus (recorded from the
//! release before the speed work of issue 29's last round, 2026-11-26),
//! and the trigger scan held to a plain search of every literal at every
//! position on real text (this crate's own sources) and on both corpora.

use super::corpus::{benign, planted, Rng};
use super::rules::Then;
use super::scan::is_word_byte;
use super::{engine, fingerprint, redact};

#[path = "../../examples/support/mixed_text.rs"]
mod bench_text;

/// The bench's text at 2 MB: 8,201 bytes shorter once redacted.
const BENCH_2MB: &str = "sha256:fb0f7ab1673c71394e4d8e46e5200bdcb92ef1ebbd81a246ca61f7f1186aac63";
/// The corpus's planted and benign lines, one per line.
const CORPUS: &str = "sha256:73229c6b3e37c82549678cc70098f95df34bfa7a62a240e91893bbe1c88adf8d";

fn corpus_text() -> String {
    let mut rng = Rng(0x5eed_c0de_1234_5678);
    let mut lines: Vec<String> = planted(&mut rng)
        .into_iter()
        .map(|(line, _)| line)
        .collect();
    lines.extend(benign(&mut rng));
    lines.join("\n")
}

#[test]
fn bench_output_is_the_reference() {
    let text = bench_text::mixed_text(2 << 20);
    let out = redact(&text);
    assert_eq!(out.len(), text.len() - 8_201, "redacted length changed");
    assert_eq!(fingerprint(&out), BENCH_2MB, "redacted bench text changed");
}

#[test]
fn corpus_output_is_the_reference() {
    let text = corpus_text();
    let out = redact(&text);
    assert_eq!(fingerprint(&out), CORPUS, "redacted corpus changed");
}

/// Every `(position, rule)` whose trigger occurs there, found by comparing
/// every literal at every position (sorted).
fn plain_search(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut by_first: Vec<Vec<(usize, &super::rules::Trigger)>> = vec![Vec::new(); 256];
    for (index, rule) in engine().rules.iter().enumerate() {
        for trigger in &rule.triggers {
            by_first[usize::from(trigger.lit.as_bytes()[0])].push((index, trigger));
        }
    }
    let mut out = Vec::new();
    for at in 0..bytes.len() {
        for &(rule, trigger) in &by_first[usize::from(bytes[at].to_ascii_lowercase())] {
            let lit = trigger.lit.as_bytes();
            let Some(window) = bytes.get(at..at + lit.len()) else {
                continue;
            };
            if !window.eq_ignore_ascii_case(lit)
                || (trigger.word_start && at > 0 && is_word_byte(bytes[at - 1]))
            {
                continue;
            }
            let rest = &bytes[at + lit.len()..];
            let fits = match trigger.then {
                Then::Anything => true,
                Then::Blank => matches!(rest.first(), Some(b' ' | b'\t')),
                Then::Operator => {
                    let rest = rest
                        .strip_prefix(b"\\")
                        .filter(|r| matches!(r.first(), Some(b'"' | b'\'')))
                        .unwrap_or(rest);
                    let rest = rest
                        .strip_prefix(b"\"")
                        .or_else(|| rest.strip_prefix(b"'"))
                        .unwrap_or(rest);
                    let blanks = rest
                        .iter()
                        .take(64)
                        .take_while(|b| **b == b' ' || **b == b'\t');
                    matches!(rest.get(blanks.count()), Some(b':' | b'='))
                }
            };
            if fits {
                out.push((at, rule));
            }
        }
    }
    out.sort_unstable();
    out
}

fn assert_scan_is_plain(name: &str, text: &str) {
    let mut found = Vec::new();
    engine().scan(text, |at, rule| found.push((at, rule)));
    assert!(
        found.windows(2).all(|w| w[0].0 <= w[1].0),
        "{name}: the scan reports out of text order"
    );
    found.sort_unstable();
    let plain = plain_search(text);
    assert!(!plain.is_empty(), "{name}: no trigger at all");
    if found != plain {
        let first = found.iter().zip(&plain).position(|(a, b)| a != b);
        panic!(
            "{name}: the scan found {} triggers, a plain search {}; first difference at {first:?}",
            found.len(),
            plain.len()
        );
    }
}

#[test]
fn scan_finds_what_a_plain_search_finds() {
    let mut sources = String::new();
    let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .expect("crate sources")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                sources.push_str(&std::fs::read_to_string(&path).expect("a source"));
            }
        }
    }
    assert!(sources.len() > 500_000, "the crate's sources");
    assert_scan_is_plain("sources", &sources);
    assert_scan_is_plain("bench text", &bench_text::mixed_text(1 << 20));
    assert_scan_is_plain("corpus", &corpus_text());
}

/// `heuristics::is_identifier_path` as it was written before it became one
/// pass over the bytes.
fn identifier_path_by_segments(v: &str) -> bool {
    let v = v.strip_suffix('.').unwrap_or(v);
    let mut segments = 0;
    let mut digit_free_segment = false;
    for seg in v.split('.') {
        let b = seg.as_bytes();
        let starts_ok = b
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(*c, b'_' | b'$'));
        if !starts_ok
            || !b
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(*c, b'_' | b'$'))
        {
            return false;
        }
        segments += 1;
        digit_free_segment |= !b.iter().any(u8::is_ascii_digit);
    }
    let has_digit = v.bytes().any(|c| c.is_ascii_digit());
    !has_digit || (segments > 1 && digit_free_segment)
}

#[test]
fn identifier_path_is_unchanged() {
    let alphabet = ["a", "Z", "1", ".", "_", "$", "-", "é"];
    let mut words = vec![String::new()];
    let mut checked = 0;
    for _ in 0..5 {
        let mut longer = Vec::new();
        for word in &words {
            for piece in alphabet {
                let next = format!("{word}{piece}");
                assert_eq!(
                    super::heuristics::is_identifier_path(&next),
                    identifier_path_by_segments(&next),
                    "{next:?}"
                );
                checked += 1;
                longer.push(next);
            }
        }
        words = longer;
    }
    assert!(checked > 30_000);
}
