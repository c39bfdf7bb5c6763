//! JSON strings read straight from their bytes, checked and decoded in one
//! pass, 64 bytes a step: for the byte reader (`fast.rs`) and for the tail of
//! a big tool result (`tail.rs`), which both take from here.

/// The string at `b[at]` (its opening quote), decoded as serde decodes
/// it, in the same pass that checks it, and the index past it: `None` for
/// invalid UTF-8 (the general path then reads it lossily) or a lone
/// surrogate (which serde refuses).
pub(super) fn decoded(b: &[u8], at: usize) -> Option<(String, usize)> {
    let mut out = Vec::new();
    let (end, ascii) = scan(b, at, Some(&mut out))?;
    if ascii {
        // SAFETY: every byte copied from the string was below 0x80 (see
        // `scan`), and what an escape adds is a whole character's
        // UTF-8: the bytes are valid UTF-8.
        return Some((unsafe { String::from_utf8_unchecked(out) }, end));
    }
    Some((String::from_utf8(out).ok()?, end))
}

/// Past the string at `b[at]` (its opening quote), checked as JSON: no
/// control character, every escape one of JSON's. With `out`, its text
/// is decoded into it on the way (`None` for a lone surrogate). Returns
/// the index past its closing quote, and whether every byte the string
/// holds was ASCII (false may also mean a high byte just past it).
///
/// One pass, 64 bytes a step: a step's special bytes are found at once
/// (see [`block`]) and handled in order, an escape's own bytes skipped,
/// so that text with a `\n` on every line is not scanned again from
/// each escape.
pub(super) fn scan(b: &[u8], at: usize, out: Option<&mut Vec<u8>>) -> Option<(usize, bool)> {
    #[cfg(target_arch = "x86_64")]
    if b.len() - at >= VECTOR_FROM && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { scan_avx2(b, at, out) };
    }
    match out {
        // Two copies of the loop: the one that only checks has no
        // decoding in it.
        Some(out) => scan_with(b, at, Some(out), masks),
        None => scan_with(b, at, None, masks),
    }
}

/// The bytes left to read from which [`scan`] asks the CPU for AVX2. The
/// first ask runs several CPUID instructions, and in a virtual machine each
/// one traps to the hypervisor (3.8 µs apiece seen on the bench's machine):
/// a payload of a few hundred bytes, most hooks' own, is read in less time
/// than that by the 16-byte loop.
#[cfg(target_arch = "x86_64")]
const VECTOR_FROM: usize = 4096;

/// [`scan`] 32 bytes a vector instead of 16.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2(b: &[u8], at: usize, out: Option<&mut Vec<u8>>) -> Option<(usize, bool)> {
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
        Some(out) => scan_with(b, at, Some(out), masks),
        None => scan_with(b, at, None, masks),
    }
}

/// [`scan`] with `masks` telling a block's special and
/// high bytes (see [`masks`]).
#[inline(always)]
fn scan_with(
    b: &[u8],
    at: usize,
    mut out: Option<&mut Vec<u8>>,
    masks: impl Fn(&[u8]) -> (u64, u64),
) -> Option<(usize, bool)> {
    let mut i = at + 1;
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
                    return Some((p + 1, high == 0));
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

/// The text of the JSON string `raw` (with its quotes, checked by
/// [`scan`]) decoded from byte `start` (after the opening quote, not inside
/// an escape or a character), as [`decoded`] decodes a string: the tail of
/// a big result.
pub(super) fn decode_from(raw: &[u8], start: usize) -> Option<String> {
    // `scan` starts one byte past `at`, at `start`.
    let (text, end) = decoded(raw, start.checked_sub(1)?)?;
    (end == raw.len()).then_some(text)
}

/// Bytes a step of [`scan`].
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
pub(super) const BIG: usize = 64 << 10;

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

/// The escape at the start of `text` (checked by [`scan`])
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
    use super::*;
    use serde_json::Value;

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
                    // Padded past `VECTOR_FROM`, so that `scan` takes the
                    // AVX2 loop where the CPU has it.
                    let pad = "p".repeat(4096);
                    #[cfg(target_arch = "x86_64")]
                    assert!(pad.len() >= VECTOR_FROM);
                    let payload = format!(r#"{{"prompt":"{text}","{text}":1,"pad":"{pad}"}}"#);
                    let read: Value = serde_json::from_str(&payload).unwrap();
                    let at = payload.find(":").unwrap() + 1;
                    // The byte reader's scan (AVX2 where the CPU has it) and
                    // the 16-byte scan (CPUs without AVX2) read it alike.
                    let (text, end) = decoded(payload.as_bytes(), at).unwrap();
                    assert_eq!(text, read["prompt"].as_str().unwrap());
                    let mut out = Vec::new();
                    let (end16, ascii) =
                        scan_with(payload.as_bytes(), at, Some(&mut out), masks).unwrap();
                    assert_eq!(ascii, lead.is_empty());
                    assert_eq!(out, text.as_bytes());
                    assert_eq!((end16, payload.as_bytes()[end]), (end, b','));
                }
            }
        }
    }
}
