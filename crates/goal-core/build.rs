//! Compiles the verdict patterns (`src/outcome/patterns.rs`) into DFAs that
//! `src/outcome/automata.rs` loads as they are: a hook is a fresh process,
//! and compiling these regular expressions took 1-2 ms of each verification.
//! Two per pattern, each a forward and a reverse DFA: a dense one compiled
//! for ASCII text (the usual runner output; fast to search) and a sparse one
//! with the full Unicode meaning (any text; small).

use std::path::Path;

use regex_automata::dfa::{dense, regex::Regex};
use regex_automata::util::syntax;

include!("src/outcome/patterns.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/outcome/patterns.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let little = std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() != Ok("big");
    for (i, pattern) in PATTERNS.iter().enumerate() {
        let pattern = ascii_words(pattern);
        // ASCII text only: the patterns' \s, \d and case folding mean on
        // ASCII text exactly what their Unicode forms mean there.
        let ascii = Regex::builder()
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .dense(dense::Config::new().minimize(true))
            .build(&pattern)
            .unwrap_or_else(|e| panic!("pattern {i} (ASCII): {e}"));
        let dense_bytes = |dfa: &dense::DFA<Vec<u32>>| match little {
            true => dfa.to_bytes_little_endian().0,
            false => dfa.to_bytes_big_endian().0,
        };
        write(&out, i, "ascii.fwd", &dense_bytes(ascii.forward()));
        write(&out, i, "ascii.rev", &dense_bytes(ascii.reverse()));

        let unicode = Regex::builder()
            .dense(dense::Config::new().minimize(false))
            .build(&pattern)
            .unwrap_or_else(|e| panic!("pattern {i}: {e}"));
        for (name, dfa) in [
            ("unicode.fwd", unicode.forward()),
            ("unicode.rev", unicode.reverse()),
        ] {
            let sparse = dfa.to_sparse().expect("sparse DFA");
            let bytes = match little {
                true => sparse.to_bytes_little_endian(),
                false => sparse.to_bytes_big_endian(),
            };
            write(&out, i, name, &bytes);
        }
    }
}

fn write(out: &str, i: usize, name: &str, bytes: &[u8]) {
    let path = Path::new(out).join(format!("verdict-{i}-{name}"));
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
