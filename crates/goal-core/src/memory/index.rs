//! The ranking cache: what the prompt hook needs of each memory (id, subject,
//! a short preview of the fact, votes, time, and its words as hashes), kept in
//! the state folder in a small binary form and rebuilt whenever the memory
//! file changes (its size, modification time or inode differ). Parsing a
//! thousand JSON lines at every prompt would cost more than the whole ranking
//! may; reading this costs a few hundred microseconds at most.
//!
//! The cache is derived data: a missing, stale or damaged one is rebuilt from
//! the file, and a failed write only means the next prompt rebuilds it again.

use super::file::{self, Repo, STATE_FOLDER};
use super::rank::{Corpus, Doc};
use super::record::Memory;
use crate::clock::parse_rfc3339_ms;
use crate::error::Result;
use crate::redact;
use crate::store::{outside_version, read_outside, FileVersion, Store};

const MAGIC: &[u8; 4] = b"GSMI";
const VERSION: u32 = 3;
/// Characters of a fact kept for the injected lines.
pub const PREVIEW_CHARS: usize = 160;
/// Bytes of one word of the inverted index: its hash, where its postings
/// start, how many there are.
const TERM_BYTES: usize = 12;
/// Bytes of one posting: the document, the word's counts in its title and
/// body (each at most 255).
const POSTING_BYTES: usize = 6;

/// Where a piece of an entry lies in the cache's bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u32,
}

/// One memory as the ranking reads it: numbers here, texts and words in the
/// index's bytes (read in place, never copied: see [`Index::get`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Entry {
    id: Span,
    subject: Span,
    preview: Span,
    /// The weighted length (title words count [`super::rank::TITLE_WEIGHT`] times).
    len: u32,
    pub up: u32,
    pub down: u32,
    /// When it was stored or last found useful (ms since the epoch; 0 unknown).
    pub fresh_ms: u64,
}

/// Every memory of a repository, in file order, and how many lines were
/// malformed: the cache's bytes, where each entry lies in them, and the
/// inverted index of their words (the words sorted by hash, each with its
/// postings), so ranking a prompt touches only the memories holding its words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Index {
    bytes: Vec<u8>,
    entries: Vec<Entry>,
    terms: Span,
    postings: Span,
    pub malformed: u32,
}

/// One entry with its texts.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    pub id: &'a str,
    pub subject: &'a str,
    pub preview: &'a str,
    pub up: u32,
    pub down: u32,
    pub fresh_ms: u64,
}

impl Index {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    fn slice(&self, span: Span) -> &[u8] {
        &self.bytes[span.start as usize..(span.start + span.len) as usize]
    }

    fn text(&self, span: Span) -> &str {
        // Checked when the cache was read (`decode`).
        std::str::from_utf8(self.slice(span)).unwrap_or("")
    }

    /// Entry `i` with its texts.
    pub fn get(&self, i: usize) -> View<'_> {
        let e = &self.entries[i];
        View {
            id: self.text(e.id),
            subject: self.text(e.subject),
            preview: self.text(e.preview),
            up: e.up,
            down: e.down,
            fresh_ms: e.fresh_ms,
        }
    }
}

impl Corpus for Index {
    fn docs(&self) -> usize {
        self.entries.len()
    }
    fn weighted_len(&self, d: usize) -> u32 {
        self.entries[d].len
    }
    fn postings(&self, h: u32, f: &mut dyn FnMut(usize, u16, u16)) {
        let table = self.slice(self.terms);
        let word = |i: usize| {
            let t = &table[i * TERM_BYTES..(i + 1) * TERM_BYTES];
            let u = |k: usize| u32::from_le_bytes([t[k], t[k + 1], t[k + 2], t[k + 3]]);
            (u(0), u(4) as usize, u(8) as usize)
        };
        let (mut lo, mut hi) = (0, table.len() / TERM_BYTES);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (key, start, count) = word(mid);
            match key.cmp(&h) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let postings = self.slice(self.postings);
                    let end = (start + count) * POSTING_BYTES;
                    for p in postings[start * POSTING_BYTES..end.min(postings.len())]
                        .chunks_exact(POSTING_BYTES)
                    {
                        let d = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
                        if d < self.entries.len() {
                            f(d, u16::from(p[4]), u16::from(p[5]));
                        }
                    }
                    return;
                }
            }
        }
    }
}

fn cache_name(repo: &Repo) -> String {
    format!("{}.idx", repo.key())
}

/// The repository's memories for ranking: from the cache when it matches the
/// file, else rebuilt (and the cache rewritten). `Ok(None)` without a file.
pub fn load(store: &Store, repo: &Repo) -> Result<Option<Index>> {
    let Some(version) = outside_version(&repo.path()) else {
        return Ok(None);
    };
    if let Ok(Some(bytes)) = store.read_side_file(STATE_FOLDER, &cache_name(repo)) {
        if let Some(index) = decode(bytes, version) {
            return Ok(Some(index));
        }
    }
    let Some(found) = read_outside(&repo.path())? else {
        return Ok(None);
    };
    let parsed = file::parse(&found.bytes);
    if !parsed.malformed.is_empty() {
        // Once per version of the file: the cache remembers it was seen.
        store.record_fault(
            "memory",
            &format!(
                "{} malformed line(s) in {} left out; they are moved aside at the next memory write",
                parsed.malformed.len(),
                repo.path().display()
            ),
        );
    }
    let bytes = encode(&parsed.memories, parsed.malformed.len(), found.version);
    let _ = store.write_cache_file(STATE_FOLDER, &cache_name(repo), &bytes);
    Ok(decode(bytes, found.version))
}

/// The index of parsed memories (redacted again: the file may have been
/// edited by hand), as the cache would hold it.
pub fn build(parsed: &file::Parsed) -> Index {
    let v = (0, 0, 0, 0);
    decode(encode(&parsed.memories, parsed.malformed.len(), v), v).unwrap_or_default()
}

/// Rewrite the cache for memories just written (under the memory lock), so
/// that the next hook reads it instead of parsing the file: the rebuild is
/// paid by the tool call that changed the file. Best effort.
pub fn refresh(store: &Store, repo: &Repo, memories: &[Memory]) {
    if let Some(version) = outside_version(&repo.path()) {
        let bytes = encode(memories, 0, version);
        let _ = store.write_cache_file(STATE_FOLDER, &cache_name(repo), &bytes);
    }
}

// ---------------------------------------------------------------------------
// The binary form: little-endian, length-prefixed strings.
// ---------------------------------------------------------------------------

fn put_str(out: &mut Vec<u8>, s: &str) {
    let mut end = s.len().min(u16::MAX as usize);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.extend_from_slice(&(end as u16).to_le_bytes());
    out.extend_from_slice(&s.as_bytes()[..end]);
}

fn encode(memories: &[Memory], malformed: usize, version: FileVersion) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + memories.len() * 300);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&version.0.to_le_bytes());
    out.extend_from_slice(&version.1.to_le_bytes());
    out.extend_from_slice(&version.2.to_le_bytes());
    out.extend_from_slice(&version.3.to_le_bytes());
    out.extend_from_slice(&(malformed as u32).to_le_bytes());
    out.extend_from_slice(&(memories.len() as u32).to_le_bytes());
    // (hash, document, title count, body count), sorted into the inverted index below.
    let mut words: Vec<(u32, u32, u8, u8)> = Vec::new();
    for (d, m) in memories.iter().enumerate() {
        let subject = redact::truncate(&redact::redact(&m.subject), 80);
        let fact = redact::redact(&m.fact);
        let doc = Doc::new(&subject, &[&fact, &m.citations]);
        put_str(&mut out, &redact::truncate(&m.id, 40));
        put_str(&mut out, &subject);
        put_str(&mut out, &redact::truncate(&fact, PREVIEW_CHARS));
        out.extend_from_slice(&m.votes.up.to_le_bytes());
        out.extend_from_slice(&m.votes.down.to_le_bytes());
        let fresh = parse_rfc3339_ms(m.fresh_time()).map_or(0, |ms| ms.max(0) as u64);
        out.extend_from_slice(&fresh.to_le_bytes());
        out.extend_from_slice(&doc.len.to_le_bytes());
        for &(h, title, body) in &doc.terms {
            words.push((h, d as u32, title.min(255) as u8, body.min(255) as u8));
        }
    }
    words.sort_unstable();
    let mut table: Vec<(u32, u32, u32)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        match table.last_mut() {
            Some(last) if last.0 == w.0 => last.2 += 1,
            _ => table.push((w.0, i as u32, 1)),
        }
    }
    out.extend_from_slice(&(table.len() as u32).to_le_bytes());
    for (h, start, count) in table {
        out.extend_from_slice(&h.to_le_bytes());
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
    }
    out.extend_from_slice(&(words.len() as u32).to_le_bytes());
    for (_, d, title, body) in words {
        out.extend_from_slice(&d.to_le_bytes());
        out.push(title);
        out.push(body);
    }
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<Span> {
        let end = self.at.checked_add(n)?;
        if end > self.bytes.len() || end > u32::MAX as usize {
            return None;
        }
        let span = Span {
            start: self.at as u32,
            len: n as u32,
        };
        self.at = end;
        Some(span)
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let span = self.take(N)?;
        self.bytes[span.start as usize..span.start as usize + N]
            .try_into()
            .ok()
    }
    fn u16(&mut self) -> Option<u16> {
        self.array().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }
    /// A length-prefixed text, checked to be UTF-8 once here.
    fn text(&mut self) -> Option<Span> {
        let n = self.u16()? as usize;
        let span = self.take(n)?;
        std::str::from_utf8(&self.bytes[span.start as usize..span.start as usize + n]).ok()?;
        Some(span)
    }
}

/// The index, when `bytes` is a whole cache of this `version` of the file.
fn decode(bytes: Vec<u8>, version: FileVersion) -> Option<Index> {
    let mut r = Reader {
        bytes: &bytes,
        at: 0,
    };
    if r.array::<4>()? != *MAGIC || r.u32()? != VERSION {
        return None;
    }
    let stored = (
        r.u64()?,
        i128::from_le_bytes(r.array()?),
        r.u64()?,
        r.u64()?,
    );
    if stored != version {
        return None;
    }
    let malformed = r.u32()?;
    let count = r.u32()? as usize;
    let mut entries = Vec::with_capacity(count.min(100_000));
    for _ in 0..count {
        let id = r.text()?;
        let subject = r.text()?;
        let preview = r.text()?;
        let up = r.u32()?;
        let down = r.u32()?;
        let fresh_ms = r.u64()?;
        let len = r.u32()?;
        entries.push(Entry {
            id,
            subject,
            preview,
            len,
            up,
            down,
            fresh_ms,
        });
    }
    let words = r.u32()? as usize;
    let terms = r.take(words.checked_mul(TERM_BYTES)?)?;
    let count = r.u32()? as usize;
    let postings = r.take(count.checked_mul(POSTING_BYTES)?)?;
    if r.at != bytes.len() {
        return None;
    }
    Some(Index {
        bytes,
        entries,
        terms,
        postings,
        malformed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> file::Parsed {
        let text = concat!(
            r#"{"id":"mem-1","subject":"auth tokens","fact":"Tokens refresh in src/auth/refresh.rs.","citations":"src/auth/refresh.rs:10","reason":"r","source":{"time":"2026-11-01T00:00:00Z"},"votes":{"up":2,"down":1}}"#,
            "\n{broken\n"
        );
        file::parse(text.as_bytes())
    }

    #[test]
    fn the_cache_reads_back_what_it_was_written_from() {
        let parsed = sample();
        let version = (10, 20, 30, 40);
        let index = decode(
            encode(&parsed.memories, parsed.malformed.len(), version),
            version,
        )
        .unwrap();
        assert_eq!(index.malformed, 1);
        let e = index.get(0);
        assert_eq!(
            (e.id, e.subject, e.up, e.down),
            ("mem-1", "auth tokens", 2, 1)
        );
        assert_eq!(e.preview, "Tokens refresh in src/auth/refresh.rs.");
        assert!(e.fresh_ms > 0);
        let mut auth = 0;
        super::super::rank::words("auth", |h| auth = h);
        let mut found = Vec::new();
        index.postings(auth, &mut |d, title, body| found.push((d, title, body)));
        assert_eq!(
            found,
            vec![(0, 1, 2)],
            "title once, body twice (fact and citations)"
        );
        let mut none = 0;
        index.postings(12345, &mut |_, _, _| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn a_stale_or_damaged_cache_is_not_used() {
        let parsed = sample();
        let bytes = encode(&parsed.memories, 1, (10, 20, 30, 40));
        assert_eq!(
            decode(bytes.clone(), (11, 20, 30, 40)),
            None,
            "another version of the file"
        );
        assert_eq!(
            decode(bytes[..bytes.len() - 3].to_vec(), (10, 20, 30, 40)),
            None,
            "torn"
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(longer, (10, 20, 30, 40)), None, "trailing bytes");
        assert_eq!(decode(b"GSMI".to_vec(), (10, 20, 30, 40)), None);
    }
}
