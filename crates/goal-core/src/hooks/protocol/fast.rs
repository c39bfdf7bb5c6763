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

use super::jstring;
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
                    self.skip_string()?;
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

    /// The string at `self.i` (its opening quote), decoded (see
    /// [`jstring::decoded`]).
    fn decoded(&mut self) -> Option<String> {
        let (text, end) = jstring::decoded(self.b, self.i)?;
        self.i = end;
        Some(text)
    }

    /// Past the string at `self.i` (its opening quote), checked as JSON.
    fn skip_string(&mut self) -> Option<()> {
        self.i = jstring::scan(self.b, self.i, None)?.0;
        Some(())
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
    fn a_big_string_kept_whole_decodes_as_serde_decodes_it() {
        // Past BIG the decoded text moves once into room for the rest of the
        // payload; escapes, non-ASCII text and a \u pair on either side.
        let line = "line \"q\" \\ tab\t \u{e9} \u{1f600} end\n";
        for n in [
            jstring::BIG / line.len() - 2,
            jstring::BIG / line.len() + 2,
            3 * jstring::BIG / line.len(),
        ] {
            for tail in ["", "\u{e9}"] {
                let content = format!("{}{tail}", line.repeat(n));
                let payload = json!({"tool_name": "Write", "tool_input": {"file_path": "/p/x", "content": content}, "after": "x"});
                let read = same(payload.to_string().as_bytes());
                assert_eq!(read["tool_input"]["content"], content.as_str());
            }
        }
        // ASCII bytes whose escapes decode to more than ASCII.
        let escaped = r"\u00e9\ud83d\ude00".repeat(jstring::BIG / 8);
        let read = same(format!(r#"{{"content":"{escaped}"}}"#).as_bytes());
        assert_eq!(
            read["content"].as_str().unwrap().chars().count(),
            jstring::BIG / 8 * 2
        );
        // Invalid UTF-8 late in a big ASCII string: left to the general path.
        let mut bad = format!(r#"{{"content":"{}"#, "a".repeat(2 * jstring::BIG)).into_bytes();
        bad.extend_from_slice(b"\xff\"}");
        declined(&bad);
    }
}
