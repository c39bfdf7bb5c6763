//! A manifest of the working tree (one entry per file, folder and link, in
//! path order), the difference between two of them, and the compact binary
//! form the hooks keep between calls.

use std::cmp::Ordering;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File = 0,
    Folder = 1,
    Link = 2,
}

/// One entry: its path relative to the tree's root (`/`-separated) and the
/// metadata a write moves. A folder is only its presence: its times move
/// whenever anything inside is added or removed, ignored files included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub kind: Kind,
    pub size: u64,
    /// Modification and status-change times (ns since the epoch). A tool can
    /// set the first back; only the kernel sets the second.
    pub mtime: i64,
    pub ctime: i64,
    pub ino: u64,
}

impl Entry {
    pub fn folder(path: String) -> Entry {
        Entry {
            path,
            kind: Kind::Folder,
            size: 0,
            mtime: 0,
            ctime: 0,
            ino: 0,
        }
    }

    fn same_content_stamp(&self, other: &Entry) -> bool {
        self.kind == other.kind
            && self.size == other.size
            && self.mtime == other.mtime
            && self.ctime == other.ctime
            && self.ino == other.ino
    }
}

/// The tree's entries in path order (see [`cmp_path`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub entries: Vec<Entry>,
}

/// Path order: component by component, so a folder comes right before what
/// it holds (the order the walk lists them in). That is byte order with `/`
/// below every other byte: where two paths first differ, a `/` ends the
/// shorter component.
pub fn cmp_path(a: &str, b: &str) -> Ordering {
    let key = |c: u8| if c == b'/' { 0 } else { c };
    for (x, y) in a.bytes().zip(b.bytes()) {
        if x != y {
            return key(x).cmp(&key(y));
        }
    }
    a.len().cmp(&b.len())
}

/// What changed between two manifests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    pub added: Vec<String>,
    pub modified: Vec<String>,
    pub removed: Vec<String>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    /// Every path, added, modified and removed.
    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.added.iter().chain(&self.modified).chain(&self.removed)
    }

    /// Drop the paths `keep` refuses.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.added.retain(|p| keep(p));
        self.modified.retain(|p| keep(p));
        self.removed.retain(|p| keep(p));
    }
}

/// The entries added, modified and removed from `before` to `after`.
pub fn diff(before: &Manifest, after: &Manifest) -> Diff {
    let mut out = Diff::default();
    let (mut a, mut b) = (
        before.entries.iter().peekable(),
        after.entries.iter().peekable(),
    );
    loop {
        match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(x), None) => {
                out.removed.push(x.path.clone());
                a.next();
            }
            (None, Some(y)) => {
                out.added.push(y.path.clone());
                b.next();
            }
            (Some(x), Some(y)) => match cmp_path(&x.path, &y.path) {
                Ordering::Less => {
                    out.removed.push(x.path.clone());
                    a.next();
                }
                Ordering::Greater => {
                    out.added.push(y.path.clone());
                    b.next();
                }
                Ordering::Equal => {
                    if !x.same_content_stamp(y) {
                        out.modified.push(y.path.clone());
                    }
                    a.next();
                    b.next();
                }
            },
        }
    }
    out
}

/// Is `path` inside the folder `folder`?
pub fn is_under(path: &str, folder: &str) -> bool {
    path.strip_prefix(folder)
        .is_some_and(|rest| rest.starts_with('/'))
}

impl Diff {
    /// Add `other`'s paths (a later, disjoint part of the tree).
    pub fn extend(&mut self, other: Diff) {
        self.added.extend(other.added);
        self.modified.extend(other.modified);
        self.removed.extend(other.removed);
    }
}

impl Manifest {
    /// The entries at and under `path`: they sit together, right where
    /// `path` is or would be.
    pub fn subtree(&self, path: &str) -> std::ops::Range<usize> {
        let start = self
            .entries
            .partition_point(|e| cmp_path(&e.path, path) == Ordering::Less);
        let len = self.entries[start..]
            .iter()
            .take_while(|e| e.path == path || is_under(&e.path, path))
            .count();
        start..start + len
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| cmp_path(&e.path, path))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// Put `entry` in its place (replacing one at the same path), or remove
    /// the entry at `path` when `entry` is `None`.
    pub fn set(&mut self, path: &str, entry: Option<Entry>) {
        match (
            self.entries.binary_search_by(|e| cmp_path(&e.path, path)),
            entry,
        ) {
            (Ok(i), Some(e)) => self.entries[i] = e,
            (Ok(i), None) => {
                self.entries.remove(i);
            }
            (Err(i), Some(e)) => self.entries.insert(i, e),
            (Err(_), None) => {}
        }
    }
}

/// The binary form: a magic line, then sections. A path is written as the
/// bytes it shares with the one before and the rest; numbers as
/// variable-length integers, times as the difference from the entry before
/// (files written together have close times): a third of the fixed-width
/// form, which is read and rewritten whenever the tree changed.
const MAGIC: &[u8] = b"goal-system tree 2\n";

pub(super) struct Writer(pub Vec<u8>);

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

impl Writer {
    pub fn new() -> Writer {
        Writer(MAGIC.to_vec())
    }
    pub fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    pub fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    pub fn manifest(&mut self, m: &Manifest) {
        self.u64(m.entries.len() as u64);
        let (mut path, mut mtime, mut ctime): (&[u8], i64, i64) = (b"", 0, 0);
        for e in &m.entries {
            let here = e.path.as_bytes();
            let shared = path.iter().zip(here).take_while(|(a, b)| a == b).count();
            self.u64(shared as u64);
            self.bytes(&here[shared..]);
            self.0.push(e.kind as u8);
            self.u64(e.size);
            self.u64(zigzag(e.mtime.wrapping_sub(mtime)));
            self.u64(zigzag(e.ctime.wrapping_sub(ctime)));
            self.u64(e.ino);
            (path, mtime, ctime) = (here, e.mtime, e.ctime);
        }
    }
}

pub(super) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Option<Reader<'a>> {
        bytes.strip_prefix(MAGIC).map(|bytes| Reader { bytes })
    }
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        (self.bytes.len() >= n).then(|| {
            let (head, rest) = self.bytes.split_at(n);
            self.bytes = rest;
            head
        })
    }
    pub fn u64(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.first()?;
            self.bytes = &self.bytes[1..];
            v |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    pub fn text(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_string)
    }
    /// A count, checked against what is left (each item takes at least `min` bytes).
    pub fn count(&mut self, min: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n.checked_mul(min)? <= self.bytes.len()).then_some(n)
    }
    pub fn manifest(&mut self) -> Option<Manifest> {
        let n = self.count(7)?;
        let mut entries: Vec<Entry> = Vec::with_capacity(n);
        let (mut mtime, mut ctime) = (0i64, 0i64);
        for _ in 0..n {
            let shared = usize::try_from(self.u64()?).ok()?;
            let rest = self.bytes()?;
            let before = entries.last().map_or(&b""[..], |e| e.path.as_bytes());
            let mut path = Vec::with_capacity(shared + rest.len());
            path.extend_from_slice(before.get(..shared)?);
            path.extend_from_slice(rest);
            let path = String::from_utf8(path).ok()?;
            // A manifest out of order would diff wrongly: refuse it.
            if entries
                .last()
                .is_some_and(|e| cmp_path(&e.path, &path) != Ordering::Less)
            {
                return None;
            }
            let kind = match self.take(1)?[0] {
                0 => Kind::File,
                1 => Kind::Folder,
                2 => Kind::Link,
                _ => return None,
            };
            let size = self.u64()?;
            mtime = mtime.wrapping_add(unzigzag(self.u64()?));
            ctime = ctime.wrapping_add(unzigzag(self.u64()?));
            entries.push(Entry {
                path,
                kind,
                size,
                mtime,
                ctime,
                ino: self.u64()?,
            });
        }
        Some(Manifest { entries })
    }
    pub fn done(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, size: u64, mtime: i64) -> Entry {
        Entry {
            path: path.into(),
            kind: Kind::File,
            size,
            mtime,
            ctime: mtime,
            ino: 7,
        }
    }

    #[test]
    fn path_order_puts_a_folder_before_what_it_holds() {
        let mut paths = vec!["a.b", "a/x", "a", "a/x/y", "b", "a-c"];
        paths.sort_by(|a, b| cmp_path(a, b));
        assert_eq!(paths, vec!["a", "a/x", "a/x/y", "a-c", "a.b", "b"]);
        // The same order as comparing the components one by one.
        let names = ["a", "a-c", "ab", "a b", "é", "z", "a.b", " ", "~"];
        for x in names
            .iter()
            .flat_map(|a| names.iter().map(move |b| format!("{a}/{b}")))
        {
            for y in names.iter().map(|s| s.to_string()).chain([x.clone()]) {
                assert_eq!(cmp_path(&x, &y), x.split('/').cmp(y.split('/')), "{x} {y}");
                assert_eq!(cmp_path(&y, &x), y.split('/').cmp(x.split('/')), "{y} {x}");
            }
        }
    }

    #[test]
    fn a_diff_names_what_was_added_modified_and_removed() {
        let before = Manifest {
            entries: vec![
                file("a", 1, 1),
                Entry::folder("d".into()),
                file("d/x", 2, 2),
                file("z", 3, 3),
            ],
        };
        let mut after = before.clone();
        after.set("d/x", None);
        after.set("b", Some(file("b", 1, 5)));
        after.set("z", Some(file("z", 3, 9)));
        assert_eq!(
            diff(&before, &after),
            Diff {
                added: vec!["b".into()],
                modified: vec!["z".into()],
                removed: vec!["d/x".into()],
            }
        );
        assert!(diff(&after, &after).is_empty());
        // A status-change time alone is a change (a time set back by a tool).
        let mut touched = after.clone();
        let mut z = touched.get("z").unwrap().clone();
        z.ctime += 1;
        touched.set("z", Some(z));
        assert_eq!(diff(&after, &touched).modified, vec!["z"]);
    }

    #[test]
    fn a_subtree_is_the_folder_and_what_it_holds() {
        let m = Manifest {
            entries: ["a", "a/x", "a/x/y", "a-c", "a.b", "b"]
                .iter()
                .map(|p| file(p, 1, 1))
                .collect(),
        };
        let paths = |r: std::ops::Range<usize>| {
            m.entries[r]
                .iter()
                .map(|e| e.path.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(paths(m.subtree("a")), vec!["a", "a/x", "a/x/y"]);
        assert_eq!(paths(m.subtree("a/x/y")), vec!["a/x/y"]);
        assert_eq!(m.subtree("a/w"), 1..1);
        assert_eq!(m.subtree("c"), 6..6);
        assert!(is_under("a/x", "a") && !is_under("a-c", "a") && !is_under("a", "a"));
    }

    #[test]
    fn the_binary_form_round_trips_and_refuses_damage() {
        let m = Manifest {
            entries: vec![file("a", 1, -1), Entry::folder("é".into())],
        };
        let mut w = Writer::new();
        w.manifest(&m);
        let bytes = w.0;
        let mut r = Reader::new(&bytes).unwrap();
        assert_eq!(r.manifest(), Some(m));
        assert!(r.done());
        for cut in 0..bytes.len() {
            let ok = Reader::new(&bytes[..cut]).and_then(|mut r| r.manifest());
            assert!(ok.is_none(), "a cut at {cut} must not read");
        }
        let mut huge = Writer::new();
        huge.u64(u64::MAX);
        assert!(Reader::new(&huge.0).unwrap().manifest().is_none());
        // Out of order: refused.
        let mut w = Writer::new();
        w.manifest(&Manifest {
            entries: vec![file("b", 1, 1), file("a", 1, 1)],
        });
        assert!(Reader::new(&w.0).unwrap().manifest().is_none());
    }
}
