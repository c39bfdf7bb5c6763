//! The verdict patterns as DFAs compiled by `build.rs`, loaded in place:
//! nothing is compiled while a hook runs. ASCII text is searched with a
//! dense DFA built for ASCII (on ASCII text the patterns' Unicode `\s`, `\d`
//! and case folding match exactly what their ASCII forms match), any other
//! text with a sparse DFA of the full Unicode pattern. Both find what the
//! `regex` crate finds (leftmost first); the tests compare them.

use std::ops::Range;
use std::sync::OnceLock;

use regex_automata::dfa::{dense, regex::Regex, sparse};
use regex_automata::util::wire::AlignAs;
use regex_automata::Input;

/// The patterns of `patterns.rs`, in the order of `patterns::PATTERNS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Crash = 0,
    ErrorLine,
    ZeroTests,
    Running,
    Result,
    Skipped,
    GoPackage,
    ExitCode,
    Failure,
}

#[cfg(test)]
impl Pattern {
    pub const ALL: [Pattern; 9] = [
        Pattern::Crash,
        Pattern::ErrorLine,
        Pattern::ZeroTests,
        Pattern::Running,
        Pattern::Result,
        Pattern::Skipped,
        Pattern::GoPackage,
        Pattern::ExitCode,
        Pattern::Failure,
    ];
}

type Dense = &'static AlignAs<[u8], u32>;

struct Built {
    ascii: [Dense; 2],
    unicode: [&'static [u8]; 2],
}

macro_rules! built {
    ($($i:literal),*) => {
        [$(Built {
            ascii: [
                &AlignAs { _align: [], bytes: *include_bytes!(concat!(env!("OUT_DIR"), "/verdict-", $i, "-ascii.fwd")) },
                &AlignAs { _align: [], bytes: *include_bytes!(concat!(env!("OUT_DIR"), "/verdict-", $i, "-ascii.rev")) },
            ],
            unicode: [
                include_bytes!(concat!(env!("OUT_DIR"), "/verdict-", $i, "-unicode.fwd")),
                include_bytes!(concat!(env!("OUT_DIR"), "/verdict-", $i, "-unicode.rev")),
            ],
        }),*]
    };
}

static BUILT: [Built; 9] = built!("0", "1", "2", "3", "4", "5", "6", "7", "8");

/// One pattern, ready to search.
pub struct Automaton {
    ascii: Regex<dense::DFA<&'static [u32]>>,
    unicode: Regex<sparse::DFA<&'static [u8]>>,
    /// Text every match holds: without all of it, a search is skipped (a
    /// big output need not be run through every automaton).
    needs: &'static [&'static str],
}

/// What every match of `pattern` holds, literally (see `patterns.rs`).
fn needs(pattern: Pattern) -> &'static [&'static str] {
    match pattern {
        Pattern::Running => &["running "],
        Pattern::Result => &["test result: "],
        Pattern::Skipped => &["Ran ", "OK (skipped="],
        _ => &[],
    }
}

fn load(built: &'static Built, pattern: Pattern) -> Automaton {
    let dense = |bytes: Dense| -> dense::DFA<&'static [u32]> {
        // Tests check every automaton; a hook trusts what this crate's own
        // build script wrote for this very target.
        #[cfg(debug_assertions)]
        let dfa = dense::DFA::from_bytes(&bytes.bytes);
        // SAFETY: the bytes are `build.rs`'s serialization of a DFA, by the
        // same regex-automata version, in this target's endianness; debug
        // builds (and so the tests) validate them above instead.
        #[cfg(not(debug_assertions))]
        let dfa = unsafe { dense::DFA::from_bytes_unchecked(&bytes.bytes) };
        dfa.expect("the build script's DFA").0
    };
    let sparse = |bytes: &'static [u8]| -> sparse::DFA<&'static [u8]> {
        #[cfg(debug_assertions)]
        let dfa = sparse::DFA::from_bytes(bytes);
        // SAFETY: as for the dense DFAs above.
        #[cfg(not(debug_assertions))]
        let dfa = unsafe { sparse::DFA::from_bytes_unchecked(bytes) };
        dfa.expect("the build script's DFA").0
    };
    Automaton {
        ascii: Regex::builder().build_from_dfas(dense(built.ascii[0]), dense(built.ascii[1])),
        unicode: Regex::builder()
            .build_from_dfas(sparse(built.unicode[0]), sparse(built.unicode[1])),
        needs: needs(pattern),
    }
}

/// The automaton of `pattern`, loaded on first use.
pub fn get(pattern: Pattern) -> &'static Automaton {
    static LOADED: [OnceLock<Automaton>; 9] = [const { OnceLock::new() }; 9];
    let i = pattern as usize;
    LOADED[i].get_or_init(|| load(&BUILT[i], pattern))
}

impl Automaton {
    fn may_match(&self, text: &str) -> bool {
        self.needs.iter().all(|n| text.contains(n))
    }

    /// The leftmost-first match in `text`.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        if !self.may_match(text) {
            return None;
        }
        let input = Input::new(text);
        let found = match text.is_ascii() {
            true => self.ascii.find(input),
            false => self.unicode.find(input),
        };
        found.map(|m| m.range())
    }

    /// Every match, left to right, none overlapping (as `regex` iterates).
    pub fn find_iter<'t>(&'t self, text: &'t str) -> impl Iterator<Item = Range<usize>> + 't {
        let input = Input::new(text);
        let mut matches: Box<dyn Iterator<Item = Range<usize>> + 't> =
            match (self.may_match(text), text.is_ascii()) {
                (false, _) => Box::new(std::iter::empty()),
                (true, true) => Box::new(self.ascii.find_iter(input).map(|m| m.range())),
                (true, false) => Box::new(self.unicode.find_iter(input).map(|m| m.range())),
            };
        std::iter::from_fn(move || matches.next())
    }
}

#[cfg(test)]
mod tests {
    use super::super::patterns::{ascii_words, PATTERNS};
    use super::*;
    use proptest::prelude::*;

    fn reference(pattern: Pattern) -> regex::Regex {
        regex::Regex::new(&ascii_words(PATTERNS[pattern as usize])).unwrap()
    }

    fn same(text: &str) {
        for pattern in Pattern::ALL {
            let re = reference(pattern);
            let want: Vec<Range<usize>> = re.find_iter(text).map(|m| m.range()).collect();
            let got: Vec<Range<usize>> = get(pattern).find_iter(text).collect();
            assert_eq!(got, want, "{pattern:?} in {text:?}");
            assert_eq!(
                get(pattern).find(text),
                want.first().cloned(),
                "{pattern:?}"
            );
        }
    }

    #[test]
    fn what_a_match_needs_is_written_in_its_pattern() {
        for pattern in Pattern::ALL {
            for need in needs(pattern) {
                let literal = need.replace('(', r"\(");
                assert!(
                    PATTERNS[pattern as usize].contains(&literal),
                    "{pattern:?}: {need:?}"
                );
            }
        }
    }

    #[test]
    fn every_automaton_loads_and_finds_what_the_regex_finds() {
        for text in [
            "",
            "test result: ok. 3 passed; 0 failed; 0 ignored",
            "test result: FAILED. 1 passed; 2 failed",
            "running 0 tests\n\ntest result: ok. 0 passed; 0 failed",
            "ℹ tests 0\nℹ pass 0\nℹ fail 0",
            "ℹ tests 4\nℹ pass 3\nℹ fail 1",
            "# tests 2\n# pass 2\n# fail 0\n1..2",
            "Ran 3 tests in 0.01s\n\nOK (skipped=3)",
            "ok  \texample.com/a\t0.01s\n?   \texample.com/b\t[no test files]",
            "<shellId: 0 completed with exit code 1>",
            "Exit code 2\nerror: boom",
            "Command exited with code \u{663}",
            "1\u{a0}failed",
            "3 FAİLED and 2 ſkipped",
            "Traceback (most recent call last):\n  File \"a.py\"\nNameError: x",
            "  error[E0425]: cannot find value\nerror: could not compile `x`",
            "make: *** [all] Error 2\nnpm ERR! code 1",
            "     Tests:  2 skipped, 3 todo, 5 total",
            "KELVIN \u{212a} 1 failure",
        ] {
            same(text);
        }
    }

    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            " ",
            "\n",
            "\t",
            "\u{a0}",
            "\u{2003}",
            "0",
            "1",
            "7",
            "\u{663}",
            "failed",
            "FAILED",
            "fail",
            "FAIL",
            "error",
            "Error:",
            "errors",
            "tests",
            "test",
            "passed",
            "ok",
            "ok.",
            "not ok",
            "ℹ",
            "#",
            "running",
            "Ran",
            "OK (skipped=",
            ")",
            "exit",
            "code",
            "status",
            ":",
            "-",
            "k",
            "K",
            "\u{212a}",
            "s",
            "ſ",
            "x",
            "é",
            "Tests:",
            "total",
            "skipped,",
            "todo,",
            "?",
            "---",
            "result:",
            "collected 0 items",
            "command not found",
            "panicked at",
            "Exception",
            "ValueError:",
            "1..0",
            "passing",
        ])
    }

    /// `outcome`'s verdicts as they were written with `regex` and its
    /// capture groups, to check the span readings that replace the groups.
    mod with_regex {
        use super::super::super::patterns::*;
        use super::super::Pattern;
        use super::reference;

        pub fn exit_code_in(tail: &str) -> Option<i64> {
            reference(Pattern::ExitCode)
                .captures_iter(tail)
                .last()
                .and_then(|c| c[1].parse().ok())
        }

        pub fn zero_tests(text: &str) -> Option<String> {
            let re = |p: &str| regex::Regex::new(&ascii_words(p)).unwrap();
            if let Some(m) = re(ZERO_TESTS).find(text) {
                return Some(format!(
                    "{:?}",
                    crate::redact::truncate(m.as_str().trim(), 40)
                ));
            }
            let counts: Vec<u64> = re(RUNNING)
                .captures_iter(text)
                .filter_map(|c| c[1].parse().ok())
                .collect();
            if !counts.is_empty() && counts.iter().all(|n| *n == 0) {
                return Some("\"running 0 tests\"".into());
            }
            let passed: Vec<u64> = re(RESULT)
                .captures_iter(text)
                .filter_map(|c| c[1].parse().ok())
                .collect();
            if !passed.is_empty() && passed.iter().all(|n| *n == 0) {
                return Some("\"0 passed\"".into());
            }
            if let Some(c) = re(SKIPPED).captures(text) {
                if c[1] == c[2] {
                    return Some(format!(
                        "\"Ran {} tests ... OK (skipped={})\"",
                        &c[1], &c[2]
                    ));
                }
            }
            let packages: Vec<&str> = re(GO_PACKAGE).find_iter(text).map(|m| m.as_str()).collect();
            if !packages.is_empty() && packages.iter().all(|l| l.contains("[no test files]")) {
                return Some("\"[no test files]\"".into());
            }
            None
        }
    }

    fn runner_text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "running 0 tests\n",
                "running 3 tests\n",
                "running \u{663} tests\n",
                "test result: ok. 0 passed; 0 failed\n",
                "test result: ok. 2 passed\n",
                "Ran 2 tests in 0.1s\n",
                "Ran 1 test\n",
                "OK (skipped=2)\n",
                "OK (skipped=1)\n",
                "ok  \tpkg/a\t0.1s\n",
                "?   \tpkg/b\t[no test files]\n",
                "exit code 3",
                "Exit status: -2",
                "exited with code \u{663}7",
                "exit  code:12",
                "statuſ",
                " ",
                "\n",
                "ℹ tests 0\n",
                "noise ",
                "0",
                "7",
            ]),
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn random_runner_output_is_matched_alike(tokens in prop::collection::vec(token(), 0..40)) {
            same(&tokens.concat());
        }

        #[test]
        fn counts_and_codes_read_from_the_spans_are_the_capture_groups(text in runner_text()) {
            prop_assert_eq!(crate::outcome::zero_tests(&text), with_regex::zero_tests(&text));
            let tail: String = text.lines().rev().filter(|l| !l.trim().is_empty()).take(2)
                .collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
            prop_assert_eq!(crate::outcome::exit_code_in(&text), with_regex::exit_code_in(&tail));
        }
    }
}
