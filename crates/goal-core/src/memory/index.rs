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
use super::rank::Doc;
use crate::error::Result;
use crate::redact;
use crate::store::{outside_version, parse_rfc3339_ms, read_outside, FileVersion, Store};

const MAGIC: &[u8; 4] = b"GSMI";
const VERSION: u32 = 1;
/// Characters of a fact kept for the injected lines.
pub const PREVIEW_CHARS: usize = 240;

/// One memory as the ranking reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    pub subject: String,
    pub preview: String,
    pub up: u32,
    pub down: u32,
    /// When it was stored or last found useful (ms since the epoch; 0 unknown).
    pub fresh_ms: u64,
    pub doc: Doc,
}

/// Every memory of a repository, in file order, and how many lines were malformed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Index {
    pub entries: Vec<Entry>,
    pub malformed: u32,
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
        if let Some(index) = decode(&bytes, version) {
            return Ok(Some(index));
        }
    }
    let Some(found) = read_outside(&repo.path())? else {
        return Ok(None);
    };
    let parsed = file::parse(&found.bytes);
    let index = build(&parsed);
    if index.malformed > 0 {
        // Once per version of the file: the cache remembers it was seen.
        store.record_fault(
            "memory",
            &format!(
                "{} malformed line(s) in {} left out; they are moved aside at the next memory write",
                index.malformed,
                repo.path().display()
            ),
        );
    }
    let _ = store.write_cache_file(
        STATE_FOLDER,
        &cache_name(repo),
        &encode(&index, found.version),
    );
    Ok(Some(index))
}

/// The entries of parsed memories (redacted again: the file may have been
/// edited by hand).
pub fn build(parsed: &file::Parsed) -> Index {
    let entries = parsed
        .memories
        .iter()
        .map(|m| {
            let subject = redact::truncate(&redact::redact(&m.subject), 80);
            let fact = redact::redact(&m.fact);
            Entry {
                id: redact::truncate(&m.id, 40),
                doc: Doc::new(&subject, &[&fact, &m.citations]),
                preview: redact::truncate(&fact, PREVIEW_CHARS),
                subject,
                up: m.votes.up,
                down: m.votes.down,
                fresh_ms: parse_rfc3339_ms(m.fresh_time()).map_or(0, |ms| ms.max(0) as u64),
            }
        })
        .collect();
    Index {
        entries,
        malformed: parsed.malformed.len() as u32,
    }
}

// ---------------------------------------------------------------------------
// The binary form: little-endian, length-prefixed strings.
// ---------------------------------------------------------------------------

fn put_str(out: &mut Vec<u8>, s: &str) {
    let bytes = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn encode(index: &Index, version: FileVersion) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + index.entries.len() * 400);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&version.0.to_le_bytes());
    out.extend_from_slice(&version.1.to_le_bytes());
    out.extend_from_slice(&version.2.to_le_bytes());
    out.extend_from_slice(&version.3.to_le_bytes());
    out.extend_from_slice(&index.malformed.to_le_bytes());
    out.extend_from_slice(&(index.entries.len() as u32).to_le_bytes());
    for e in &index.entries {
        put_str(&mut out, &e.id);
        put_str(&mut out, &e.subject);
        put_str(&mut out, &e.preview);
        out.extend_from_slice(&e.up.to_le_bytes());
        out.extend_from_slice(&e.down.to_le_bytes());
        out.extend_from_slice(&e.fresh_ms.to_le_bytes());
        out.extend_from_slice(&e.doc.len.to_le_bytes());
        out.extend_from_slice(&(e.doc.terms.len() as u32).to_le_bytes());
        for &(h, title, body) in &e.doc.terms {
            out.extend_from_slice(&h.to_le_bytes());
            out.extend_from_slice(&title.to_le_bytes());
            out.extend_from_slice(&body.to_le_bytes());
        }
    }
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
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
    fn string(&mut self) -> Option<String> {
        let n = self.u16()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

/// The index, when `bytes` is a whole cache of this `version` of the file.
fn decode(bytes: &[u8], version: FileVersion) -> Option<Index> {
    let mut r = Reader { bytes };
    if r.take(4)? != MAGIC || r.u32()? != VERSION {
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
        let id = r.string()?;
        let subject = r.string()?;
        let preview = r.string()?;
        let up = r.u32()?;
        let down = r.u32()?;
        let fresh_ms = r.u64()?;
        let len = r.u32()?;
        let n = r.u32()? as usize;
        let raw = r.take(n.checked_mul(8)?)?;
        let terms = raw
            .chunks_exact(8)
            .map(|c| {
                (
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    u16::from_le_bytes([c[4], c[5]]),
                    u16::from_le_bytes([c[6], c[7]]),
                )
            })
            .collect();
        entries.push(Entry {
            id,
            subject,
            preview,
            up,
            down,
            fresh_ms,
            doc: Doc { terms, len },
        });
    }
    r.bytes.is_empty().then_some(Index { entries, malformed })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Index {
        let text = concat!(
            r#"{"id":"mem-1","subject":"auth tokens","fact":"Tokens refresh in src/auth/refresh.rs.","citations":"src/auth/refresh.rs:10","reason":"r","source":{"time":"2026-11-01T00:00:00Z"},"votes":{"up":2,"down":1}}"#,
            "\n{broken\n"
        );
        build(&file::parse(text.as_bytes()))
    }

    #[test]
    fn the_cache_reads_back_what_it_was_written_from() {
        let index = sample();
        assert_eq!(index.malformed, 1);
        assert_eq!(index.entries[0].up, 2);
        assert!(index.entries[0].fresh_ms > 0);
        let version = (10, 20, 30, 40);
        let bytes = encode(&index, version);
        assert_eq!(decode(&bytes, version), Some(index));
    }

    #[test]
    fn a_stale_or_damaged_cache_is_not_used() {
        let index = sample();
        let bytes = encode(&index, (10, 20, 30, 40));
        assert_eq!(
            decode(&bytes, (11, 20, 30, 40)),
            None,
            "another version of the file"
        );
        assert_eq!(
            decode(&bytes[..bytes.len() - 3], (10, 20, 30, 40)),
            None,
            "torn"
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, (10, 20, 30, 40)), None, "trailing bytes");
        assert_eq!(decode(b"GSMI", (10, 20, 30, 40)), None);
    }
}
