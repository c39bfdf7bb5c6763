//! Cheap tests a rule runs before its regex. Their triggers are also
//! common words (`token`, `secret_key`, `Authorization: `Bearer ${t}``),
//! and most of their occurrences can be turned away by looking at a few
//! bytes; each test only ever rejects what the rule's pattern cannot match
//! (the tests check the token formats' bound against their patterns).

use super::kinds::name_byte;

#[cfg(target_arch = "x86_64")]
mod x86;

/// The fewest bytes a token format matches (the tests check every format
/// built by `rules::tok` against it).
pub(super) const TOKEN_MIN_BYTES: usize = 12;

/// At `at`, at least [`TOKEN_MIN_BYTES`] visible ASCII bytes (no blank):
/// what every token format needs. Their prefixes are also common words
/// (`secret_key`, `NPM_TOKEN`, `pat`), which this turns away without
/// running the format's regex.
pub(super) fn token_follows(text: &[u8], at: usize) -> bool {
    text.get(at..at + TOKEN_MIN_BYTES)
        .is_some_and(|run| run.iter().all(|b| b.is_ascii_graphic()))
}

/// The shortest bearer token.
pub(super) const BEARER_MIN_BYTES: usize = 16;

/// After `Bearer` and blanks, the first [`BEARER_MIN_BYTES`] bytes of a
/// token (`Bearer ${token}` in code has none).
pub(super) fn bearer_value_follows(text: &[u8], at: usize) -> bool {
    let from = at + "bearer".len();
    let from = from
        + text[from..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
    text.get(from..from + BEARER_MIN_BYTES).is_some_and(|run| {
        run.iter().all(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'+' | b'/' | b'-')
        })
    })
}

/// After `Authorization`, its quote, operator and blanks: a byte a header
/// value may start with (``Authorization: `Bearer ${t}` `` in code is none).
pub(super) fn header_value_follows(text: &[u8], at: usize) -> bool {
    let quote = |i: usize| match text.get(i..) {
        Some([b'\\', b'"' | b'\'', ..]) => i + 2,
        Some([b'"' | b'\'', ..]) => i + 1,
        _ => i,
    };
    let blanks = |i: usize| {
        i + text[i.min(text.len())..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    };
    let op = blanks(quote(at + "authorization".len()));
    if !matches!(text.get(op), Some(b':' | b'=')) {
        return false;
    }
    let value = quote(blanks(op + 1));
    text.get(value).is_some_and(|&b| {
        !(b.is_ascii_whitespace()
            || matches!(
                b,
                b'"' | b'\''
                    | b'`'
                    | b','
                    | b';'
                    | b'\\'
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'<'
                    | b'>'
            ))
    })
}

/// How far before its name's ending a `--flag` may start.
pub(super) const FLAG_NAME_BYTES: usize = 64;

/// A `--` in the run of name bytes before `at`: where the flag rule's
/// matches start. Key endings followed by a blank are mostly prose (`the
/// token is`), which this turns away without running the rule's regex.
pub(super) fn dashes_before(text: &[u8], at: usize) -> bool {
    let limit = at.saturating_sub(FLAG_NAME_BYTES);
    let mut first = at;
    while first > limit && name_byte(text[first - 1]) {
        first -= 1;
    }
    text[first..at].windows(2).any(|pair| pair == b"--")
}

/// `[A-Za-z0-9/+_=~.-]` as a table: [`opaque_run_follows`] runs on every
/// common word that may name a secret.
static OPAQUE_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(c, b'/' | b'+' | b'_' | b'=' | b'~' | b'.' | b'-');
        b += 1;
    }
    table
};

/// Where the context rule's secret may start, at the latest, after its
/// trigger: its longest name (21 bytes), three filler words with their
/// blanks (27) and what may come before a value (10), as bounded in its
/// pattern.
pub(super) const CONTEXT_REACH: usize = 58;

/// How far into its value the context rule looks for a digit (see
/// `heuristics::context_secret`), so that a trigger costs a bounded look
/// however long the run of value bytes after it.
pub(super) const CONTEXT_DIGIT_BYTES: usize = 64;

/// Besides value bytes, what the context rule's pattern lets stand between
/// its name and its secret: blanks, `:` and `>` (of `->`), quotes.
pub(super) fn context_filler_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b':' | b'>' | b'"' | b'\'' | b'`')
}

/// A run of 20 value bytes or more that starts at most [`CONTEXT_REACH`]
/// bytes after `at`, with a digit early enough: what the context rule's
/// secret lies in. Looks at the byte that would end a run first, so
/// ordinary prose costs a few lookups per word.
///
/// A byte that can stand neither in the secret nor before it (a bracket, a
/// `;`, a line's end: see [`context_filler_byte`]) ends the look, as long
/// as no run of 20 came before it: the secret would have to start before
/// it, so lie in such a run. Code after a secret's name (`let token =
/// self.get_token(&request)?;`) is turned away at its first bracket
/// instead of reading on into the next line. With AVX2, 64 bytes are
/// classed at once (`prechecks/x86.rs`) and a stop anywhere in them is
/// seen, not only one ending a window.
pub(super) fn opaque_run_follows(text: &[u8], at: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if at + x86::SPAN <= text.len() && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, and `SPAN` bytes follow `at`.
        let (value, stop) = unsafe { x86::classes(text, at) };
        if stop != 0 && !run_of_20(value & ((1 << stop.trailing_zeros()) - 1)) {
            return false;
        }
    }
    opaque_run_follows_scalar(text, at)
}

/// Does `bits` hold 20 set bits in a row?
#[cfg(target_arch = "x86_64")]
fn run_of_20(bits: u64) -> bool {
    let two = bits & bits >> 1;
    let four = two & two >> 2;
    let sixteen = {
        let eight = four & four >> 4;
        eight & eight >> 8
    };
    sixteen & four >> 16 != 0
}

/// [`opaque_run_follows`] a window at a time (the whole of it where the
/// vector look is not taken or does not decide).
pub(super) fn opaque_run_follows_scalar(text: &[u8], at: usize) -> bool {
    const RUN: usize = 20;
    let text = &text[at..];
    // No secret's first digit lies past this.
    let digits_end = text.len().min(CONTEXT_REACH + CONTEXT_DIGIT_BYTES);
    let opaque = |b: &u8| OPAQUE_BYTE[usize::from(*b)];
    // `start` is always where a run may begin: `at` or just after a byte
    // that is not a value byte.
    let mut start = 0;
    // No 20 value bytes in a row start before `start`.
    let mut no_run_before = true;
    while start <= CONTEXT_REACH && start + RUN <= text.len() {
        let last = start + RUN - 1;
        // From the end: the last byte that is not a value byte, if any.
        let run: &[u8; RUN] = text[start..=last].try_into().expect("a run's bytes");
        let mut stop = RUN;
        while stop > 0 && OPAQUE_BYTE[usize::from(run[stop - 1])] {
            stop -= 1;
        }
        if stop > 0 {
            if no_run_before && !context_filler_byte(run[stop - 1]) {
                return false;
            }
            start += stop;
            continue;
        }
        no_run_before = false;
        let end = last
            + 1
            + text[last + 1..digits_end.max(last + 1)]
                .iter()
                .take_while(|b| opaque(b))
                .count();
        if text[start..end].iter().any(u8::is_ascii_digit) {
            return true;
        }
        start = end + 1;
    }
    false
}

/// After `login`, its blanks and the next word (any bytes up to ASCII white
/// space), blanks, `password` and a blank: what the `.netrc` rule's pattern
/// needs before its value. `Login { password: ... }` in code has none.
pub(super) fn login_password_follows(text: &[u8], at: usize) -> bool {
    let blanks = |i: usize| {
        i + text[i.min(text.len())..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    };
    let word = blanks(at + "login".len());
    let end = word
        + text[word.min(text.len())..]
            .iter()
            .take_while(|b| !b.is_ascii_whitespace())
            .count();
    let password = blanks(end);
    end > word
        && password > end
        && text
            .get(password..password + "password".len() + 1)
            .is_some_and(|w| {
                w[.."password".len()].eq_ignore_ascii_case(b"password")
                    && matches!(w["password".len()], b' ' | b'\t')
            })
}

/// After `://`, a user (no `/`, `?`, `#`, `@`, `:`, bracket, quote, angle
/// bracket or ASCII white space), then `:` and a byte a password may hold:
/// what the URL credentials rule needs. Most URLs name no user
/// (`https://host/path`), which this turns away before the scheme is
/// looked for.
pub(super) fn url_password_follows(text: &[u8], at: usize) -> bool {
    let user = at + "://".len();
    let colon = user
        + text[user.min(text.len())..]
            .iter()
            .take_while(|&&b| {
                !(b.is_ascii_whitespace()
                    || matches!(
                        b,
                        b'/' | b'?'
                            | b'#'
                            | b'@'
                            | b':'
                            | b'['
                            | b']'
                            | b'"'
                            | b'\''
                            | b'<'
                            | b'>'
                            | b'\x0b'
                    ))
            })
            .count();
    text.get(colon) == Some(&b':')
        && text.get(colon + 1).is_some_and(|&b| {
            !(b.is_ascii_whitespace()
                || matches!(
                    b,
                    b'?' | b'#' | b'@' | b'[' | b']' | b'"' | b'\'' | b'<' | b'>' | b'\\' | b'\x0b'
                ))
        })
}
