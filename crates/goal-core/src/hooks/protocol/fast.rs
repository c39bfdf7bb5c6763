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

/// Strings decoded whole from this size on are written into a buffer that
/// may take huge pages in the hook process (`crate::buffer`): a 10 MB file
/// in a write tool's arguments costs a handful of page faults, not 2,500.
const BIG: usize = 1 << 20;

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
            b'"' => {
                let (start, escaped) = self.string()?;
                let raw = &self.b[start..self.i];
                let text = match mode {
                    Mode::Tail => tail_string(raw).ok()?,
                    _ => decode(raw, escaped)?,
                };
                Some(Value::String(text))
            }
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
            let (start, escaped) = self.string()?;
            let key = decode(&self.b[start..self.i], escaped)?;
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

    /// Past a string at `self.i` (its opening quote), checked as JSON: no
    /// control character, every escape one of JSON's. Returns where it
    /// started and whether it holds an escape.
    fn string(&mut self) -> Option<(usize, bool)> {
        let start = self.i;
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            i = next_special(self.b, i);
            match *self.b.get(i)? {
                b'"' => {
                    self.i = i + 1;
                    return Some((start, escaped));
                }
                b'\\' => {
                    escaped = true;
                    i += match *self.b.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                        b'u' => {
                            hex4(self.b.get(i + 2..i + 6)?)?;
                            6
                        }
                        _ => return None,
                    };
                }
                _ => return None, // a control character
            }
        }
    }
}

/// The first index at or after `i` of a quote, a backslash or a control
/// character in `b`, or `b.len()`: 32 bytes a step where serde's scan takes
/// 8 (see [`specials`]).
fn next_special(b: &[u8], mut i: usize) -> usize {
    const STEP: usize = 32;
    while let Some(chunk) = b.get(i..i + STEP) {
        let mask = specials(&chunk[..16]) | (specials(&chunk[16..]) << 16);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += STEP;
    }
    while i < b.len() && !special(b[i]) {
        i += 1;
    }
    i
}

fn special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// Bit k set when `chunk[k]` (16 bytes) is [`special`]: SSE2's compares
/// and move-mask on x86-64, where the compiler did not vectorize the loop.
#[cfg(target_arch = "x86_64")]
fn specials(chunk: &[u8]) -> u32 {
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
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn specials(chunk: &[u8]) -> u32 {
    chunk[..16]
        .iter()
        .enumerate()
        .fold(0, |mask, (k, &c)| mask | (u32::from(special(c)) << k))
}

/// Four hex digits' value.
fn hex4(digits: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(digits).ok()?;
    if !text.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(text, 16).ok()
}

/// A string checked by [`Reader::string`] (`raw`, with its quotes), decoded
/// whole as serde decodes it: `None` for invalid UTF-8 (the general path
/// then reads it lossily) or a lone surrogate (which serde refuses).
fn decode(raw: &[u8], escaped: bool) -> Option<String> {
    let body = &raw[1..raw.len() - 1];
    let mut out = if body.len() >= BIG {
        crate::buffer::string(body.len()).into_bytes()
    } else {
        Vec::with_capacity(body.len())
    };
    if !escaped {
        out.extend_from_slice(body);
        return String::from_utf8(out).ok();
    }
    let mut i = 0;
    while i < body.len() {
        // Only escapes are left to meet: the string was checked.
        let next = next_special(body, i);
        out.extend_from_slice(&body[i..next]);
        if next == body.len() {
            break;
        }
        let byte = match body[next + 1] {
            b'u' => {
                let (c, len) = unicode(&body[next..])?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                i = next + len;
                continue;
            }
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            other => other, // " \ /
        };
        out.push(byte);
        i = next + 2;
    }
    String::from_utf8(out).ok()
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
    fn the_scan_finds_every_special_byte_wherever_it_falls() {
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 64, 100] {
            for at in 0..len {
                for c in [b'"', b'\\', 0u8, 0x1f] {
                    let mut b = vec![b'a'; len];
                    b[at] = c;
                    assert_eq!(next_special(&b, 0), at);
                    assert_eq!(next_special(&b, at + 1), len);
                }
            }
            // High bytes and 0x20 are not special.
            let b: Vec<u8> = (0..len).map(|k| [0x20, 0x7f, 0x80, 0xff][k % 4]).collect();
            assert_eq!(next_special(&b, 0), len);
        }
    }
}
