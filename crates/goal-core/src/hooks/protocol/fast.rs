//! A hook's stdin read straight from its bytes, in one pass over each
//! string: what [`parse_payload`](super::parse_payload) gives for the text,
//! without its costs on a 10 MB payload (a UTF-8 check of every byte before
//! parsing, serde's scan of a string eight bytes at a time, a scratch copy
//! of a long string with escapes before its own copy). Only what is kept is
//! checked for UTF-8: the strings decoded whole, and the window of a tool
//! result's string that its tail is decoded from (see `tail.rs`). The body
//! of a result is checked as JSON (no control character, every escape
//! well formed), as serde checks it, and never decoded.
//!
//! This reader is the fast path, not the judge: whatever it is not sure of
//! (not JSON, invalid UTF-8 in text it keeps, a lone surrogate outside a
//! result, deep nesting, an odd number) it leaves to the general path, which
//! decides and words the error as before. So it only has to agree with
//! that path on the payloads it reads.

use super::tail::{tail_string, RESULT_KEYS};
use serde_json::{Map, Value};

/// Deeper payloads take the general path (serde allows 128 levels).
const MAX_DEPTH: usize = 100;

/// The payload `bytes` hold, as `parse_payload` reads their lossy UTF-8
/// decoding; `None` when this reader cannot tell (see the module's note).
pub fn parse_bytes(bytes: &[u8]) -> Option<Value> {
    let mut reader = Reader { b: bytes, i: 0 };
    reader.space();
    let value = reader.value(Mode::Top, 0)?;
    reader.space();
    (reader.i == bytes.len()).then_some(value)
}

/// How strings below a point are read: the payload object (whose result
/// keys turn `Tail` on), whole, or as a tool result's tail.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Top,
    Whole,
    Tail,
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn space(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn value(&mut self, mode: Mode, depth: usize) -> Option<Value> {
        match *self.b.get(self.i)? {
            b'{' => self.object(mode, depth + 1),
            b'[' => self.array(mode, depth + 1),
            b'"' => Some(Value::String(match mode {
                Mode::Tail => {
                    let start = self.i;
                    self.string(None)?;
                    tail_string(&self.b[start..self.i]).ok()?
                }
                _ => self.decoded()?,
            })),
            b't' => self.literal(b"true", Value::Bool(true)),
            b'f' => self.literal(b"false", Value::Bool(false)),
            b'n' => self.literal(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn object(&mut self, mode: Mode, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let mut out = Map::new();
        self.space();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Some(Value::Object(out));
        }
        loop {
            if self.b.get(self.i) != Some(&b'"') {
                return None;
            }
            let key = self.decoded()?;
            self.space();
            if self.b.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            self.space();
            let child = match mode {
                Mode::Top if RESULT_KEYS.contains(&key.as_str()) => Mode::Tail,
                Mode::Top => Mode::Whole,
                other => other,
            };
            let value = self.value(child, depth)?;
            out.insert(key, value);
            self.space();
            match self.b.get(self.i)? {
                b',' => {
                    self.i += 1;
                    self.space();
                }
                b'}' => {
                    self.i += 1;
                    return Some(Value::Object(out));
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, mode: Mode, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let child = if mode == Mode::Top { Mode::Whole } else { mode };
        let mut items = Vec::new();
        self.space();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(child, depth)?);
            self.space();
            match self.b.get(self.i)? {
                b',' => {
                    self.i += 1;
                    self.space();
                }
                b']' => {
                    self.i += 1;
                    return Some(Value::Array(items));
                }
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &[u8], value: Value) -> Option<Value> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| {
            self.i = end;
            value
        })
    }

    /// A number, read by serde from its text: the same value, or `None`
    /// where serde would refuse it.
    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        while matches!(
            self.b.get(self.i),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).ok()?;
        match serde_json::from_str::<Value>(text).ok()? {
            number @ Value::Number(_) => Some(number),
            _ => None,
        }
    }

    /// The string at `self.i` (its opening quote), decoded as serde decodes
    /// it, in the same pass that checks it: `None` for invalid UTF-8 (the
    /// general path then reads it lossily) or a lone surrogate (which serde
    /// refuses).
    fn decoded(&mut self) -> Option<String> {
        let mut out = Vec::new();
        let ascii = self.string(Some(&mut out))?;
        if ascii {
            // SAFETY: every byte copied from the string was below 0x80 (see
            // `string`), and what an escape adds is a whole character's
            // UTF-8: the bytes are valid UTF-8.
            return Some(unsafe { String::from_utf8_unchecked(out) });
        }
        String::from_utf8(out).ok()
    }

    /// Past a string at `self.i` (its opening quote), checked as JSON: no
    /// control character, every escape one of JSON's. With `out`, its text
    /// is decoded into it on the way (`None` for a lone surrogate). Returns
    /// whether every byte the string holds was ASCII (false may also mean
    /// a high byte just past it).
    ///
    /// One pass, 64 bytes a step: a step's special bytes are found at once
    /// (see [`block`]) and handled in order, an escape's own bytes skipped,
    /// so that text with a `\n` on every line is not scanned again from
    /// each escape.
    fn string(&mut self, out: Option<&mut Vec<u8>>) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.string_avx2(out) };
        }
        match out {
            // Two copies of the loop: the one that only checks has no
            // decoding in it.
            Some(out) => self.string_with(Some(out), masks),
            None => self.string_with(None, masks),
        }
    }

    /// [`string`](Self::string) 32 bytes a vector instead of 16.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn string_avx2(&mut self, out: Option<&mut Vec<u8>>) -> Option<bool> {
        use std::arch::x86_64::*;
        let masks = |chunk: &[u8]| {
            let half = |k: usize| {
                // SAFETY: `chunk` holds BLOCK (64) bytes: the unaligned load
                // reads 32 of them from 0 or 32.
                let v = unsafe { _mm256_loadu_si256(chunk[32 * k..32 * k + 32].as_ptr().cast()) };
                let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
                let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
                let low = _mm256_set1_epi8(0x1f);
                let control = _mm256_cmpeq_epi8(_mm256_max_epu8(v, low), low);
                let special = _mm256_or_si256(_mm256_or_si256(quote, backslash), control);
                (
                    u64::from(_mm256_movemask_epi8(special) as u32),
                    u64::from(_mm256_movemask_epi8(v) as u32),
                )
            };
            let ((s0, h0), (s1, h1)) = (half(0), half(1));
            (s0 | (s1 << 32), h0 | (h1 << 32))
        };
        match out {
            Some(out) => self.string_with(Some(out), masks),
            None => self.string_with(None, masks),
        }
    }

    /// [`string`](Self::string) with `masks` telling a block's special and
    /// high bytes (see [`masks`]).
    #[inline(always)]
    fn string_with(
        &mut self,
        mut out: Option<&mut Vec<u8>>,
        masks: impl Fn(&[u8]) -> (u64, u64),
    ) -> Option<bool> {
        let b = self.b;
        let mut i = self.i + 1;
        let mut copied = i;
        let mut high = 0;
        loop {
            if i >= b.len() {
                return None; // unterminated
            }
            let base = i;
            let (mut mask, h) = block(b, base, &masks);
            high |= h;
            i = base + BLOCK;
            while mask != 0 {
                let p = base + mask.trailing_zeros() as usize;
                match b[p] {
                    b'"' => {
                        if let Some(out) = out.as_deref_mut() {
                            copy(out, &b[copied..p], b.len() - copied);
                        }
                        self.i = p + 1;
                        return Some(high == 0);
                    }
                    b'\\' => {
                        let len = match *b.get(p + 1)? {
                            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                            b'u' => {
                                hex4(b.get(p + 2..p + 6)?)?;
                                6
                            }
                            _ => return None,
                        };
                        let len = match out.as_deref_mut() {
                            Some(out) => {
                                copy(out, &b[copied..p], b.len() - copied);
                                escape(out, &b[p..])?
                            }
                            None => len,
                        };
                        copied = p + len;
                        let past = copied - base;
                        if past >= BLOCK {
                            i = copied;
                            break;
                        }
                        mask &= u64::MAX << past;
                    }
                    _ => return None, // a control character
                }
            }
        }
    }
}

/// The text of the JSON string `raw` (with its quotes, checked by
/// [`Reader::string`]) decoded from byte `start` (after the opening quote,
/// not inside an escape or a character), as [`Reader::decoded`] decodes a
/// string: the tail of a big result.
pub(super) fn decode_from(raw: &[u8], start: usize) -> Option<String> {
    // `string` starts one byte past `i`, at `start`.
    let mut reader = Reader {
        b: raw,
        i: start.checked_sub(1)?,
    };
    let text = reader.decoded()?;
    (reader.i == raw.len()).then_some(text)
}

/// Bytes a step of [`Reader::string`].
const BLOCK: usize = 64;

/// For the [`BLOCK`] bytes of `b` from `at` (padded with spaces past its
/// end): bit k of the first mask set when byte k is [`special`], of the
/// second when it is 0x80 or above.
#[inline(always)]
fn block(b: &[u8], at: usize, masks: impl Fn(&[u8]) -> (u64, u64)) -> (u64, u64) {
    match b.get(at..at + BLOCK) {
        Some(chunk) => masks(chunk),
        None => {
            let mut padded = [b' '; BLOCK];
            let rest = &b[at..];
            padded[..rest.len()].copy_from_slice(rest);
            masks(&padded)
        }
    }
}

fn masks(chunk: &[u8]) -> (u64, u64) {
    let (mut special, mut high) = (0, 0);
    for k in 0..BLOCK / 16 {
        let (s, h) = specials(&chunk[16 * k..16 * k + 16]);
        special |= u64::from(s) << (16 * k);
        high |= u64::from(h) << (16 * k);
    }
    (special, high)
}

/// The decoded string grows in place up to here; past it, it takes room for
/// the rest of the payload at once (an upper bound of what is left to
/// decode), in a buffer that may take huge pages in the hook process
/// (`crate::buffer`): a 10 MB file in a write tool's arguments costs a
/// handful of page faults, not 2,500, and is never moved as it grows.
const BIG: usize = 64 << 10;

/// `text` appended to `out`, growing it as [`BIG`] says; `left`: the bytes
/// of the payload from `text` on, more than the string can still decode to.
#[inline(always)]
fn copy(out: &mut Vec<u8>, text: &[u8], left: usize) {
    let needed = out.len() + text.len();
    if needed > out.capacity() && needed >= BIG {
        let mut room = crate::buffer::string(out.len() + left).into_bytes();
        room.extend_from_slice(out);
        *out = room;
    }
    out.extend_from_slice(text);
}

/// The escape at the start of `text` (checked by [`Reader::string`])
/// decoded into `out`; its length, or `None` for a lone surrogate.
#[inline(always)]
fn escape(out: &mut Vec<u8>, text: &[u8]) -> Option<usize> {
    let byte = match text[1] {
        b'u' => {
            let (c, len) = unicode(text)?;
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            return Some(len);
        }
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        other => other, // " \ /
    };
    out.push(byte);
    Some(2)
}

#[cfg(not(target_arch = "x86_64"))]
fn special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// Bit k of the first mask set when `chunk[k]` (16 bytes) is [`special`], of
/// the second when it is 0x80 or above: SSE2's compares and move-masks on
/// x86-64, where the compiler did not vectorize the loop.
#[cfg(target_arch = "x86_64")]
fn specials(chunk: &[u8]) -> (u32, u32) {
    use std::arch::x86_64::*;
    assert!(chunk.len() >= 16);
    // SAFETY: SSE2 is part of x86-64, and the unaligned load reads the 16
    // bytes of `chunk` checked above.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // Unsigned c <= 0x1f: max(c, 0x1f) == 0x1f.
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        let special = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        (
            _mm_movemask_epi8(special) as u32,
            _mm_movemask_epi8(v) as u32,
        )
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn specials(chunk: &[u8]) -> (u32, u32) {
    chunk[..16]
        .iter()
        .enumerate()
        .fold((0, 0), |(s, h), (k, &c)| {
            (
                s | (u32::from(special(c)) << k),
                h | (u32::from(c >= 0x80) << k),
            )
        })
}

/// Four hex digits' value.
fn hex4(digits: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(digits).ok()?;
    if !text.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(text, 16).ok()
}

/// The character a `\u` escape at the start of `text` stands for (with the
/// low half that must follow a high surrogate), and the escape's length.
fn unicode(text: &[u8]) -> Option<(char, usize)> {
    let unit = u32::from(hex4(text.get(2..6)?)?);
    match unit {
        0xD800..=0xDBFF => {
            if text.get(6..8)? != b"\\u" {
                return None;
            }
            let low = u32::from(hex4(text.get(8..12)?)?);
            if !(0xDC00..0xE000).contains(&low) {
                return None;
            }
            let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            Some((char::from_u32(c)?, 12))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(unit)?, 6)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tail::REPORT_TAIL;
    use super::*;
    use crate::hooks::protocol::parse_payload;
    use serde_json::json;

    /// What the general path reads from `bytes` (lossy UTF-8, then text).
    fn general(bytes: &[u8]) -> serde_json::Result<Value> {
        parse_payload(String::from_utf8_lossy(bytes).trim())
    }

    /// The byte reader reads `bytes`, and reads them as the general path does.
    fn same(bytes: &[u8]) -> Value {
        let fast = parse_bytes(bytes).unwrap_or_else(|| {
            panic!(
                "not read: {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
            )
        });
        assert_eq!(fast, general(bytes).unwrap());
        fast
    }

    /// Left to the general path, which decides as before.
    fn declined(bytes: &[u8]) {
        assert_eq!(
            parse_bytes(bytes),
            None,
            "{}",
            String::from_utf8_lossy(bytes)
        );
    }

    #[test]
    fn payloads_of_every_shape_read_as_the_general_path_reads_them() {
        let cases = [
            json!({"session_id": "s", "cwd": "/p", "hook_event_name": "PostToolUse",
                "tool_name": "Bash", "tool_input": {"command": "cargo test"},
                "tool_response": {"stdout": "ok\n", "stderr": "", "interrupted": false, "code": -1}}),
            json!({"sessionId": "s", "timestamp": 1_700_000_000_123u64, "toolName": "bash",
                "toolArgs": "{\"command\":\"ls\"}", "toolResult": {"resultType": "success",
                "textResultForLlm": "a\u{0}b\u{1f}\"\\/\u{e9}\u{1f600}日本"}}),
            json!({"toolCalls": [{"id": "1", "name": "edit", "args": {"path": "/a", "n": [1, 2.5, -3e-7, null, true, false, {}, []]}}]}),
            json!({"tool_response": [{"type": "text", "text": "x".repeat(100)}, 7, null, ["y"]]}),
            json!({"tool_response": "a plain string result", "prompt": "\t tab and \u{2028}"}),
            json!([1, "two", {"tool_response": "not the payload object: read whole"}]),
            json!("just a string"),
            json!(12.75),
            json!({}),
        ];
        for case in &cases {
            let text = case.to_string();
            assert_eq!(&same(text.as_bytes()), case, "{text}");
            // Pretty-printed: whitespace everywhere JSON allows it.
            same(serde_json::to_string_pretty(case).unwrap().as_bytes());
            same(format!(" \r\n\t{text}\n").as_bytes());
        }
        // Escapes serde_json does not write, a duplicate key (the last wins),
        // an escaped key that names a result.
        same(br#"{"a":"\u00e9\ud83d\ude00\/\b\f\r","a":"second","tool_\u0072esponse":{"stdout":"\ud800 cut"}}"#);
    }

    #[test]
    fn a_big_result_keeps_the_same_tail_and_a_big_write_is_read_whole() {
        let line = "running test é ... ok \"quoted\" \\ tab\t\u{1f600}\n";
        let big = format!("{}test result: ok. 1 passed; 0 failed", line.repeat(60_000));
        for payload in [
            json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "cargo test"},
                "tool_response": {"stdout": big, "stderr": "", "interrupted": false}}),
            json!({"sessionId": "s", "toolName": "bash", "toolResult": {"resultType": "success", "textResultForLlm": big}}),
            json!({"session_id": "s", "tool_name": "run_in_terminal", "tool_response": big}),
            json!({"session_id": "s", "tool_name": "Write", "tool_input": {"file_path": "/p/big.txt", "content": big}}),
        ] {
            let text = payload.to_string();
            let read = same(text.as_bytes());
            let kept = ["tool_response", "toolResult"]
                .iter()
                .find_map(|k| read.get(*k))
                .map(|r| {
                    r.get("stdout")
                        .or_else(|| r.get("textResultForLlm"))
                        .unwrap_or(r)
                });
            match kept {
                Some(tail) => {
                    let tail = tail.as_str().unwrap();
                    assert!(tail.len() <= REPORT_TAIL && tail.len() > REPORT_TAIL - 4);
                    assert!(big.ends_with(tail));
                }
                None => assert_eq!(read["tool_input"]["content"], big.as_str()),
            }
        }
    }

    #[test]
    fn invalid_utf8_costs_nothing_in_a_dropped_body_and_is_left_to_the_general_path_elsewhere() {
        // In the body of a big result, outside the tail: never decoded, so
        // the reader need not check it (the general path replaced it).
        let mut body = vec![b'x'; 3 * REPORT_TAIL];
        body[10] = 0xff;
        body[11] = 0xc3;
        let mut payload = br#"{"session_id":"s","tool_response":{"stdout":""#.to_vec();
        payload.extend_from_slice(&body);
        payload.extend_from_slice(br#"end"}}"#);
        let read = same(&payload);
        assert!(read["tool_response"]["stdout"]
            .as_str()
            .unwrap()
            .ends_with("xend"));
        // In a string kept whole, in a result's tail, a key: the general
        // path reads it lossily.
        for bad in [
            &b"{\"prompt\":\"a\xffb\"}"[..],
            b"{\"tool_response\":\"a\xffb\"}",
            b"{\"a\xff\":1}",
        ] {
            declined(bad);
            assert!(general(bad).is_ok());
        }
    }

    #[test]
    fn what_serde_refuses_is_declined() {
        for bad in [
            &b""[..],
            b"   ",
            b"{\"a\": 1} trailing",
            b"{\"a\": }",
            b"{\"a\": 1,}",
            b"[1,]",
            b"{\"a\" 1}",
            b"{'a': 1}",
            b"{\"a\": tru}",
            b"{\"a\": 01}",
            b"{\"a\": 1.}",
            b"{\"a\": -}",
            b"{\"a\": \"ctrl \x01 char\"}",
            b"{\"a\": \"bad \\x escape\"}",
            b"{\"a\": \"short \\u12\"}",
            b"{\"a\": \"lone \\ud800 surrogate\"}",
            b"{\"a\": \"lone \\udc00 low\"}",
            b"{\"a\": \"unterminated",
            b"{\"tool_response\": \"unterminated \\",
            b"{\"tool_response\": \"ctrl \x1f in a result\"}",
            b"\xef\xbb\xbf{}",
        ] {
            declined(bad);
        }
        // Nesting past what this reader takes.
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        declined(deep.as_bytes());
        let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        same(fine.as_bytes());
    }

    #[test]
    fn the_scan_finds_every_special_and_high_byte_wherever_it_falls() {
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 130] {
            for at in 0..len {
                for c in [b'"', b'\\', 0u8, 0x1f, 0x80, 0xff] {
                    let mut b = vec![b'a'; len];
                    b[at] = c;
                    let bit = |from: usize| match at - from < BLOCK {
                        true => 1u64 << (at - from),
                        false => 0,
                    };
                    for from in [0, at.saturating_sub(63), at] {
                        let (special, high) = block(&b, from, masks);

                        let want = bit(from);
                        match c >= 0x80 {
                            true => assert_eq!((special, high), (0, want), "{len} {at} {c}"),
                            false => assert_eq!((special, high), (want, 0), "{len} {at} {c}"),
                        }
                    }
                }
            }
            // 0x20 and 0x7f are neither.
            let b: Vec<u8> = (0..len).map(|k| [0x20, 0x7f][k % 2]).collect();
            assert_eq!(block(&b, 0, masks), (0, 0));
        }
    }

    #[test]
    fn an_escape_decodes_alike_wherever_it_falls_in_the_steps() {
        // Each escape at every offset around the first two step boundaries,
        // in a string kept whole and in a key, after ASCII and after
        // non-ASCII text (the decoded text is then checked as UTF-8).
        for escape in [
            r#"\""#,
            r"\\",
            r"\/",
            r"\b",
            r"\f",
            r"\n",
            r"\r",
            r"\t",
            r"\u00e9",
            r"\ud83d\ude00",
            r"\u0041",
        ] {
            for lead in ["", "\u{e9}"] {
                for k in 0..140 {
                    let text = format!("{lead}{}{escape}tail{}", "a".repeat(k), "b".repeat(k % 7));
                    let payload = format!(r#"{{"prompt":"{text}","{text}":1}}"#);
                    let read = same(payload.as_bytes());
                    // The 16-byte scan (CPUs without AVX2) reads it alike.
                    let at = payload.find(":").unwrap() + 1;
                    let mut reader = Reader {
                        b: payload.as_bytes(),
                        i: at,
                    };
                    let mut out = Vec::new();
                    let ascii = reader.string_with(Some(&mut out), masks).unwrap();
                    assert_eq!(ascii, lead.is_empty());
                    assert_eq!(out, read["prompt"].as_str().unwrap().as_bytes());
                    assert_eq!(payload.as_bytes()[reader.i], b',');
                }
            }
        }
    }

    #[test]
    fn a_big_string_kept_whole_decodes_as_serde_decodes_it() {
        // Past BIG the decoded text moves once into room for the rest of the
        // payload; escapes, non-ASCII text and a \u pair on either side.
        let line = "line \"q\" \\ tab\t \u{e9} \u{1f600} end\n";
        for n in [
            BIG / line.len() - 2,
            BIG / line.len() + 2,
            3 * BIG / line.len(),
        ] {
            for tail in ["", "\u{e9}"] {
                let content = format!("{}{tail}", line.repeat(n));
                let payload = json!({"tool_name": "Write", "tool_input": {"file_path": "/p/x", "content": content}, "after": "x"});
                let read = same(payload.to_string().as_bytes());
                assert_eq!(read["tool_input"]["content"], content.as_str());
            }
        }
        // ASCII bytes whose escapes decode to more than ASCII.
        let escaped = r"\u00e9\ud83d\ude00".repeat(BIG / 8);
        let read = same(format!(r#"{{"content":"{escaped}"}}"#).as_bytes());
        assert_eq!(
            read["content"].as_str().unwrap().chars().count(),
            BIG / 8 * 2
        );
        // Invalid UTF-8 late in a big ASCII string: left to the general path.
        let mut bad = format!(r#"{{"content":"{}"#, "a".repeat(2 * BIG)).into_bytes();
        bad.extend_from_slice(b"\xff\"}");
        declined(&bad);
    }
}
