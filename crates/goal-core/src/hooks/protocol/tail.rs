//! Reading a hook's stdin without decoding what it need not: the strings
//! of a tool result keep only their tail (a verdict reads the end of an
//! output), the rest of the payload is read as it is.

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Output kept for judging a verification: the end of it, where runners
/// print their summaries and hosts their exit line.
pub(super) const REPORT_TAIL: usize = 256 * 1024;

/// Keys of a payload holding a tool's result: only the end of their text
/// is read (see `read_report`).
pub(super) const RESULT_KEYS: [&str; 4] =
    ["toolResult", "tool_result", "tool_response", "toolResponse"];

/// Parses a hook's stdin. Strings inside a tool result keep only their last
/// [`REPORT_TAIL`] bytes (rounded to a character), so a 10 MB output is
/// scanned for its end and only its tail is decoded: the body is never
/// unescaped, copied or kept (see [`tail_value`]). The end of the joined
/// report text is what it would be from the full strings. Everything else
/// is read as it is.
pub fn parse_payload(stdin: &str) -> serde_json::Result<Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(stdin);
    let value = Reader {
        tail: false,
        top: true,
        text: stdin,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A JSON value, strings cut to their tail when `tail`; `top` for the
/// payload object itself, whose result keys turn `tail` on. `text` is the
/// JSON being read, to look at what follows a key (see [`value_after`]).
#[derive(Clone, Copy)]
struct Reader<'t> {
    tail: bool,
    top: bool,
    text: &'t str,
}

impl<'t> Reader<'t> {
    fn child(self, key: Option<&str>) -> Reader<'t> {
        Reader {
            tail: self.tail || (self.top && key.is_some_and(|k| RESULT_KEYS.contains(&k))),
            top: false,
            text: self.text,
        }
    }

    fn string(self, s: &str) -> Value {
        if !self.tail || s.len() <= REPORT_TAIL {
            return Value::String(s.to_string());
        }
        let mut cut = s.len() - REPORT_TAIL;
        while !s.is_char_boundary(cut) {
            cut += 1;
        }
        Value::String(s[cut..].to_string())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Reader<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Reader<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(self.string(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let child = self.child(None);
        if self.tail {
            while let Some(raw) = seq.next_element::<&'de RawValue>()? {
                items.push(tail_value(raw.get()).map_err(serde::de::Error::custom)?);
            }
        } else {
            while let Some(item) = seq.next_element_seed(child)? {
                items.push(item);
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let child = self.child(Some(&key));
            // Inside a result, and a result that is itself one string: the
            // value's text as it stands in stdin, borrowed and never
            // unescaped whole. A result object or array is read in one
            // pass instead, its members taken as text by the tail reader
            // (borrowing it whole first would scan its text twice).
            let container = || match &key {
                Cow::Borrowed(k) => matches!(value_after(self.text, k), Some(b'{' | b'[')),
                Cow::Owned(_) => false,
            };
            let value = if self.tail || (child.tail && !container()) {
                let raw: &'de RawValue = map.next_value()?;
                tail_value(raw.get()).map_err(serde::de::Error::custom)?
            } else {
                map.next_value_seed(child)?
            };
            out.insert(key.into_owned(), value);
        }
        Ok(Value::Object(out))
    }
}

/// An object key, borrowed from the JSON text when it has no escapes
/// (serde's own `Cow` always copies), so [`value_after`] can find its place.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(Visit)
    }
}

/// The first byte of the value after `key`, a slice of `text`: past the
/// key's closing quote, the colon and any whitespace. `None` when `key` is
/// not in `text` or the text does not read that way; the caller then reads
/// the value the general way.
fn value_after(text: &str, key: &str) -> Option<u8> {
    let start = (key.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let rest = text.as_bytes().get(start + key.len()..)?;
    let mut bytes = rest.iter().copied();
    if bytes.next() != Some(b'"') {
        return None;
    }
    let mut bytes = bytes.skip_while(u8::is_ascii_whitespace);
    if bytes.next() != Some(b':') {
        return None;
    }
    bytes.find(|b| !b.is_ascii_whitespace())
}

/// A value inside a tool result, from its JSON text: strings keep their tail
/// (decoded from the end of their text, see [`tail_string`]), objects and
/// arrays are read member by member the same way, anything else as it is.
fn tail_value(raw: &str) -> serde_json::Result<Value> {
    use serde::de::DeserializeSeed;
    match raw.as_bytes().first() {
        Some(b'"') => tail_string(raw.as_bytes()).map(Value::String),
        Some(b'{' | b'[') => {
            let mut de = serde_json::Deserializer::from_str(raw);
            let value = Reader {
                tail: true,
                top: false,
                text: raw,
            }
            .deserialize(&mut de)?;
            de.end()?;
            Ok(value)
        }
        _ => serde_json::from_str(raw),
    }
}

/// Raw bytes of a result's string decoded first for its tail: a little more
/// than the tail, for escapes (which make the text longer than what it
/// decodes to); wider only when that decodes too short.
const FIRST_WINDOW: usize = REPORT_TAIL + REPORT_TAIL / 8;

/// The last [`REPORT_TAIL`] bytes of a JSON string (`raw` with its quotes),
/// decoding only the end of its text: a window of the text is decoded from a
/// point where no escape is cut ([`token_start`]), and widened until it holds
/// more than the tail. The result is the tail of the fully decoded string.
/// Bytes, so that the byte reader (`fast.rs`) need not check the UTF-8 of a
/// body it drops: only the window decoded must be UTF-8 (an error otherwise).
pub(super) fn tail_string(bytes: &[u8]) -> serde_json::Result<String> {
    let utf8 = |b| {
        std::str::from_utf8(b).map_err(|_| serde::de::Error::custom("invalid UTF-8 in a string"))
    };
    // Escapes make the text longer than what it decodes to, so start wider.
    let mut window = FIRST_WINDOW;
    while window + 2 < bytes.len() {
        let start = token_start(bytes, bytes.len() - 1 - window);
        // The byte reader's decoder first (one pass, no copy of the window
        // to parse); what it does not take (a lone surrogate, invalid
        // UTF-8) is decoded below as before, or refused.
        match super::jstring::decode_from(bytes, start) {
            Some(text) if text.len() >= REPORT_TAIL + 8 => return Ok(keep_tail(text)),
            Some(_) => {
                window *= 2;
                continue;
            }
            None => {}
        }
        let text = utf8(&bytes[start..])?;
        let mut piece = String::with_capacity(text.len() + 1);
        piece.push('"');
        piece.push_str(text);
        // A few characters at the start may be the hex digits of a cut
        // `\u` escape: enough is decoded that they fall outside the tail.
        // A low surrogate whose high half was cut off reads as U+FFFD at
        // the start, outside the tail.
        match decode(&piece) {
            Ok(text) if text.len() >= REPORT_TAIL + 8 => return Ok(keep_tail(text)),
            // Too short (many escapes): widen.
            _ => window *= 2,
        }
    }
    decode(utf8(bytes)?).map(keep_tail)
}

/// A JSON string's text decoded; a lone surrogate escape in it, which serde
/// refuses, is mended first ([`mend_surrogates`]) rather than widening the
/// window to the whole string to fail there.
fn decode(raw: &str) -> serde_json::Result<String> {
    serde_json::from_str::<String>(raw).or_else(|e| match mend_surrogates(raw) {
        Some(mended) => serde_json::from_str(&mended),
        None => Err(e),
    })
}

/// `raw` (a JSON string's text) with each lone surrogate escape written as
/// `\ufffd`; `None` when it has none. A Node host that cuts output by UTF-16
/// index can leave half an emoji (JSON.parse accepts it, serde does not): it
/// must cost that character, not the payload and its verdict.
fn mend_surrogates(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let unit = |at: usize| {
        raw.get(at..at + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let escape_at = |at: usize| bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u');
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit(i + 2).filter(|_| escape_at(i)) else {
            i += 2; // any other escape, an escaped backslash included
            continue;
        };
        let low_follows =
            escape_at(i + 6) && unit(i + 8).is_some_and(|l| (0xDC00..0xE000).contains(&l));
        match u {
            0xD800..=0xDBFF if low_follows => i += 12,
            0xD800..=0xDFFF => {
                out.push_str(&raw[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            _ => i += 6,
        }
    }
    (copied > 0).then(|| {
        out.push_str(&raw[copied..]);
        out
    })
}

/// A byte index at or after `at` where a JSON string's text can be decoded
/// from: on a character boundary and not on the character an escape's
/// backslash applies to. `bytes[0]` is the opening quote.
fn token_start(bytes: &[u8], at: usize) -> usize {
    let mut i = at.max(1);
    while i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
        i += 1; // inside a UTF-8 character
    }
    // A run of backslashes pairs up from its start (nothing before a run
    // can consume one), so an odd run before `i` escapes `bytes[i]`.
    let run = bytes[1..i]
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count();
    if run % 2 == 1 {
        i += if bytes.get(i) == Some(&b'u') { 5 } else { 1 };
    }
    i.min(bytes.len() - 1)
}

/// The last [`REPORT_TAIL`] bytes of `text`, rounded to a character.
fn keep_tail(text: String) -> String {
    if text.len() <= REPORT_TAIL {
        return text;
    }
    let mut cut = text.len() - REPORT_TAIL;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text[cut..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::protocol::read_payload;
    use serde_json::json;

    #[test]
    fn a_big_tool_result_keeps_only_its_tail_and_the_same_report() {
        let line = "running test é ... ok\n";
        let stdout = format!("{}test result: ok. 1 passed; 0 failed", line.repeat(40_000));
        let stdin = json!({
            "session_id": "s",
            "cwd": "/p",
            "hook_event_name": "PostToolUse",
            "prompt": line.repeat(20_000),
            "tool_name": "Bash",
            "tool_input": {"command": "cargo test"},
            "tool_response": {"stdout": stdout, "stderr": "warning: x", "interrupted": false},
        })
        .to_string();
        let full: Value = serde_json::from_str(&stdin).unwrap();
        let cut = parse_payload(&stdin).unwrap();
        let kept = cut["tool_response"]["stdout"].as_str().unwrap();
        assert!(kept.len() <= REPORT_TAIL && stdout.ends_with(kept));
        // Fields outside the result are whole.
        assert_eq!(cut["prompt"], full["prompt"]);
        let (a, b) = (read_payload(&full).report, read_payload(&cut).report);
        assert_eq!(a.text, b.text);
        assert_eq!(a.result_type, b.result_type);
        assert!(b.text.ends_with("warning: x"));
    }

    /// JSON string text cycling through every kind of escape and character
    /// (`units` of them, offset by `shift`), and what it decodes to.
    fn escaped(units: usize, shift: usize) -> (String, String) {
        const UNITS: [(&str, &str); 9] = [
            ("ab", "ab"),
            ("\\n", "\n"),
            ("\\\\", "\\"),
            ("\\\"", "\""),
            ("\\u00e9", "\u{e9}"),
            ("\\ud83d\\ude00", "\u{1f600}"),
            ("é", "é"),
            ("\\\\\\u0041", "\\A"),
            ("日本", "日本"),
        ];
        let (mut raw, mut text) = (String::from("\""), String::new());
        for i in 0..units {
            let (r, t) = UNITS[(i * 7 + shift) % UNITS.len()];
            raw.push_str(r);
            text.push_str(t);
        }
        raw.push('"');
        (raw, text)
    }

    #[test]
    fn the_tail_decoded_from_the_end_of_a_string_is_the_tail_of_the_whole_string() {
        // Long enough that only a window is decoded; the window's edge lands
        // on every kind of unit and inside each.
        let units = 2 * REPORT_TAIL / 3;
        for shift in 0..40 {
            let (raw, text) = escaped(units + shift, shift);
            assert_eq!(serde_json::from_str::<String>(&raw).unwrap(), text);
            assert_eq!(
                tail_string(raw.as_bytes()).unwrap(),
                keep_tail(text),
                "shift {shift}"
            );
        }
    }

    #[test]
    fn the_body_of_a_big_result_is_never_decoded() {
        // A lone surrogate early in a 2 MB output: decoding the whole string
        // would fail, the tail alone reads. The result as an object (Claude
        // Code, Copilot CLI), as one string (VS Code), spaced, and under a
        // key written with an escape.
        let body = format!(
            "\\ud800{}\\ntest result: ok. 1 passed; 0 failed",
            "x".repeat(2 << 20)
        );
        let shapes = [
            (
                format!(r#""tool_response":{{"stdout":"{body}","exit_code":0}}"#),
                true,
            ),
            (format!(r#""tool_response":"{body}""#), false),
            (format!(r#""tool_response" :  "{body}""#), false),
            (format!(r#""tool_\u0072esponse":"{body}""#), false),
            (
                format!(r#""tool_\u0072esponse": {{"stdout":"{body}","exit_code":0}}"#),
                true,
            ),
        ];
        for (result, object) in shapes {
            let stdin = format!(
                r#"{{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash",{result},"cwd":"/p"}}"#
            );
            assert!(serde_json::from_str::<Value>(&stdin).is_err());
            let cut = parse_payload(&stdin).unwrap();
            let response = &cut["tool_response"];
            let kept = if object {
                &response["stdout"]
            } else {
                response
            };
            let kept = kept.as_str().unwrap();
            assert_eq!(kept.len(), REPORT_TAIL, "{}", &result[..30]);
            assert!(kept.ends_with("1 passed; 0 failed"));
            if object {
                assert_eq!(response["exit_code"], 0);
            }
            assert_eq!(cut["cwd"], "/p", "the payload is read past the result");
        }
    }

    #[test]
    fn a_lone_surrogate_near_the_end_of_a_result_costs_one_character_not_the_payload() {
        // A Node host that cuts long output by UTF-16 index can leave half
        // an emoji, which JSON.stringify writes as `\ud83d` and JSON.parse
        // accepts. The verdict must survive it.
        let end = r#"1 failed \ud83d \\ud800 \ud83d\ude00 \udc00""#;
        let want = "1 failed \u{fffd} \\ud800 \u{1f600} \u{fffd}";
        let big = format!("\"{}{end}", "x".repeat(2 * REPORT_TAIL));
        for (result, object) in [
            (format!(r#"{{"stdout":"{end},"exit_code":1}}"#), true),
            (format!("\"{end}"), false),
            (big, false),
        ] {
            let stdin = format!(
                r#"{{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{result}}}"#
            );
            let cut = parse_payload(&stdin).expect("the payload is read");
            let response = &cut["tool_response"];
            let text = if object {
                &response["stdout"]
            } else {
                response
            };
            assert!(text.as_str().unwrap().ends_with(want), "{}", &result[..20]);
            if object {
                assert_eq!(response["exit_code"], 1);
            }
        }
    }

    #[test]
    fn a_payload_that_is_not_json_is_refused_as_before() {
        assert!(parse_payload("{\"a\": 1} trailing").is_err());
        assert!(parse_payload("{\"a\": ").is_err());
        assert_eq!(
            parse_payload("[1, 2.5, null]").unwrap(),
            json!([1, 2.5, null])
        );
    }
}
