//! The trigger scan: where in a text does a rule's literal trigger occur?
//!
//! One pass with one table lookup per byte: a pair table says, for every
//! two bytes (in any ASCII case), whether they may start a trigger, may be a
//! trigger's second and third bytes, whether the triggers they start must
//! start a word, and which of two buckets of bytes those triggers' third
//! bytes fall in (beside the bucket of the pair's own second byte). Common
//! words start like a trigger and go on with a common letter (`tool`,
//! `return`), where the trigger goes on with a rarer one (`token`,
//! `refresh`): the buckets turn those away. The flags are laid out so that
//! one AND of a position's pair with the next one (and of the pair before,
//! for a word start) says whether a trigger may start there: eight
//! positions at a time cost a few bit operations and one test, and the
//! few positions worth a closer look are then taken in order. There, the
//! pair's third- and fourth-byte sets (both cases in each) turn most of
//! them away with a test each, and only the rest are compared with the
//! literals that start with the pair, each literal once however many rules
//! it triggers. On x86-64 with AVX2 (detected at run time) `scan/x86.rs`
//! does the lookups and the test 32 positions at a time; the closer look
//! is the same.
//!
//! A general multi-literal searcher (the `aho-corasick` crate, already in
//! the tree through `regex`) was measured against this on the bench's agent
//! output: with the 262 case-insensitive literals its overlapping search
//! alone (SIMD prefilters do not apply to that many literals) took 2.9 to
//! 4.5 times this scan's time with its checks (10 MB, DFA and contiguous
//! NFA, measured again 2026-11-26; 2.4 times, 135 M instructions more,
//! on 2026-11-27). Its packed SIMD searcher (Teddy) holds at most 128
//! patterns, and the literals start with 197 distinct three-byte and 143
//! two-byte prefixes (lower case). Given 127 of the two-byte prefixes (too
//! few to find every trigger), searching the text folded to lower case a
//! chunk at a time, each position it found handed to `check` and searched
//! on from the next (triggers overlap), it took 27.6 times this scan's
//! time: two bytes let through far more positions than the pair table.

use super::rules::{Rule, Then, Trigger};

#[cfg(target_arch = "x86_64")]
mod x86;

/// Bits 0 and 1 of a pair's flags: the buckets (see [`Buckets`]) of the
/// third bytes of the triggers the pair starts (both when one of them is
/// the pair alone; none when it starts no trigger)...
const PAIR_THIRDS: u8 = 0b11;
/// ... bits 2 and 3: when the pair can be a trigger's second and third
/// bytes (any pair whose first byte ends a trigger of two bytes), the
/// bucket of its second byte, one bit of two (so the pair after a position
/// says which bucket that position's third byte is in; ANDed with the
/// position's own bits 0 and 1 it says whether a trigger may start
/// there)...
const PAIR_NEXT_SHIFT: u8 = 2;
/// ... bits 4 and 5 (both): every trigger it starts must start a word...
const PAIR_WORD_ONLY: u8 = 0b11 << 4;
/// ... bits 6 and 7 (both): its first byte is a word byte (so the pair at
/// the position before tells whether a position can start a word). Each
/// of these two is set twice so that one shift lines it up with bits 0
/// and 1.
const PAIR_FIRST_IS_WORD: u8 = 0b11 << 6;

/// Each byte in one of two buckets, a letter in the same bucket as its
/// other case: bucket 1 for the third bytes of triggers that are not among
/// the commonest bytes of text, bucket 0 for every other byte. A pair whose
/// triggers all go on with a byte of bucket 1 (`to` of `token`, `re` of
/// `refresh`) turns away the words that go on with a common letter.
struct Buckets([u8; 256]);

impl Buckets {
    /// The commonest bytes of text (English letters by frequency, blanks).
    const COMMON: &'static [u8] = b"etaoinsrhl \t\n";

    fn new(thirds: &[u64; 4]) -> Buckets {
        let mut bucket = [0u8; 256];
        for (b, slot) in bucket.iter_mut().enumerate() {
            let lower = u8::try_from(b).expect("a byte").to_ascii_lowercase();
            let third = thirds[usize::from(lower >> 6)] & (1 << (lower & 63)) != 0;
            *slot = u8::from(third && !Buckets::COMMON.contains(&lower));
        }
        Buckets(bucket)
    }

    /// The bucket of `b` as one bit of two.
    fn bit(&self, b: u8) -> u8 {
        1 << self.0[usize::from(b)]
    }
}

/// The pair table's length: every pair and three bytes of padding.
const PAIRS_LEN: usize = (1 << 16) + 3;

/// The index of a byte pair in the pair table: the pair as a little-endian
/// `u16`.
fn pair_index(first: u8, second: u8) -> usize {
    usize::from(u16::from_le_bytes([first, second]))
}

/// The index of a pair of ASCII bytes in the slot table.
fn slot_index(first: u8, second: u8) -> usize {
    usize::from(first & 0x7f) | usize::from(second & 0x7f) << 7
}

/// [`slot_index`] of a pair of bytes in any ASCII case, by two lookups.
#[inline]
fn folded_slot_index(first: u8, second: u8) -> usize {
    usize::from(SLOT_FOLD[usize::from(first)]) | usize::from(SLOT_FOLD[usize::from(second)]) << 7
}

/// A byte in lower case, its high bit dropped: its part of a slot index.
static SLOT_FOLD: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).to_ascii_lowercase() & 0x7f;
        b += 1;
    }
    table
};

/// Positions the scan tests per mask: a bit per position.
const CHUNK: usize = 64;

/// `[A-Za-z0-9_]`, the bytes of `(?-u:\w)`.
#[inline]
pub(super) fn is_word_byte(b: u8) -> bool {
    WORD_BYTE[usize::from(b)]
}

/// The pair table's word bits for one second byte, by first byte.
static FIRST_IS_WORD_ROW: [u8; 256] = {
    let mut row = [0; 256];
    let mut b = 0;
    while b < 256 {
        if WORD_BYTE[b] {
            row[b] = PAIR_FIRST_IS_WORD;
        }
        b += 1;
    }
    row
};

static WORD_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

/// One rule's use of a literal: what it requires around it.
struct Use {
    rule: usize,
    /// The byte before the literal must not be a word byte.
    word_start: bool,
    then: Then,
}

impl Use {
    /// Given that the literal (`len` bytes) occurs at `at`: do its
    /// surroundings fit this rule?
    #[inline]
    fn fits(&self, text: &[u8], at: usize, len: usize) -> bool {
        if self.word_start && at > 0 && is_word_byte(text[at - 1]) {
            return false;
        }
        let rest = &text[at + len..];
        match self.then {
            Then::Anything => true,
            Then::Blank => matches!(rest.first(), Some(b' ' | b'\t')),
            Then::Operator => {
                // `(?:\\?["'])?[ \t]*` then the first byte of `:`, `=`, `:=`
                // or `=>`. The blank run is bounded so a trigger check stays
                // constant time. Most often the next byte decides.
                match rest.first() {
                    Some(b':' | b'=') => return true,
                    Some(b' ' | b'\t' | b'"' | b'\'' | b'\\') => {}
                    _ => return false,
                }
                let quote = match rest {
                    [b'\\', b'"' | b'\'', ..] => 2,
                    [b'"' | b'\'', ..] => 1,
                    _ => 0,
                };
                let blanks = rest[quote..]
                    .iter()
                    .take(64)
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                matches!(rest.get(quote + blanks), Some(b':' | b'='))
            }
        }
    }
}

/// A literal and the rules it triggers.
struct Literal {
    lit: &'static [u8],
    /// The literal's first (up to) eight bytes as a little-endian word, ...
    head: u64,
    /// ... the bits of those bytes to compare (all of each byte of the
    /// literal, none past its end), ...
    head_mask: u64,
    /// ... and bit 5 of each letter, set in the text before comparing, so
    /// that an upper-case letter compares equal (the literal is lower
    /// case).
    head_fold: u64,
    /// Its rules: `uses[first_use..end_use]` of the table.
    first_use: u16,
    end_use: u16,
}

impl Literal {
    fn new(lit: &'static str) -> Literal {
        let (mut head, mut head_mask, mut head_fold) = (0, 0, 0);
        for (i, &b) in lit.as_bytes().iter().take(8).enumerate() {
            head |= u64::from(b) << (8 * i);
            head_mask |= 0xff << (8 * i);
            if b.is_ascii_lowercase() {
                head_fold |= 0x20 << (8 * i);
            }
        }
        Literal {
            lit: lit.as_bytes(),
            head,
            head_mask,
            head_fold,
            first_use: 0,
            end_use: 0,
        }
    }

    /// Does the literal occur at `at`, given the eight bytes of the text
    /// there (`None` near the end)? One word comparison rejects nearly all
    /// candidates.
    #[inline]
    fn occurs_at(&self, text: &[u8], at: usize, word: Option<u64>) -> bool {
        let end = at + self.lit.len();
        match word {
            Some(word) => {
                (word | self.head_fold) & self.head_mask == self.head
                    && (self.lit.len() <= 8
                        || matches!(text.get(at + 8..end), Some(tail) if tail.eq_ignore_ascii_case(&self.lit[8..])))
            }
            None => {
                matches!(text.get(at..end), Some(window) if window.eq_ignore_ascii_case(self.lit))
            }
        }
    }
}

/// The literals that start with one pair of bytes: `literals[first..end]`
/// of the table.
struct Group {
    /// The third bytes of those literals in both ASCII cases, as a 256-bit
    /// set; every byte when a literal is the pair alone.
    third: [u64; 4],
    /// The same of their fourth bytes (every byte when a literal is shorter
    /// than four): words that go on like a trigger for three bytes
    /// (`clone` like `clojars_`, `secret` holding `cre` of `credential`,
    /// `npm publish`) are turned away before their literals are compared.
    fourth: [u64; 4],
    first: u16,
    end: u16,
}

/// Is `byte` in `set`? `None` (past the text's end) only when the set
/// holds every byte: a literal that needs the byte cannot fit.
#[inline]
fn allows(set: &[u64; 4], byte: Option<&u8>) -> bool {
    match byte {
        Some(&b) => set[usize::from(b >> 6)] & (1 << (b & 63)) != 0,
        None => *set == [u64::MAX; 4],
    }
}

/// Adds `b` (lower case) to `set` in both ASCII cases.
fn add_both_cases(set: &mut [u64; 4], b: u8) {
    for b in [b, b.to_ascii_uppercase()] {
        set[usize::from(b >> 6)] |= 1 << (b & 63);
    }
}

impl Group {
    #[inline]
    fn allows_third(&self, third: Option<&u8>) -> bool {
        allows(&self.third, third)
    }

    #[inline]
    fn allows_fourth(&self, fourth: Option<&u8>) -> bool {
        allows(&self.fourth, fourth)
    }
}

/// One pair's third-byte set and its literals with their uses, before they
/// are laid out flat.
type PairLiterals = ([u64; 4], Vec<(Literal, Vec<Use>)>);

/// Every rule's triggers, arranged for the scan.
pub(super) struct Triggers {
    /// What a byte pair (in any ASCII case) can be, as `PAIR_*` bits; by
    /// [`pair_index`], padded so that a four-byte read at any index stays
    /// inside (the vector scan gathers four bytes at a time).
    pairs: Box<[u8; PAIRS_LEN]>,
    /// Groups by their pair (lower-case ASCII, see [`slot_index`]):
    /// `slots[pair]` is 0 or one more than an index into `groups`. Small
    /// enough to stay in the first-level cache.
    slots: Box<[u8; 1 << 14]>,
    groups: Vec<Group>,
    /// Every literal, grouped by pair, and every use, grouped by literal:
    /// flat, so a check follows no pointer but the table's.
    literals: Vec<Literal>,
    uses: Vec<Use>,
}

impl Triggers {
    pub(super) fn new(rules: &[Rule]) -> Triggers {
        let mut slots = Box::new([0u8; 1 << 14]);
        // Built nested (pair, literal, uses), then laid out flat.
        let mut nested: Vec<PairLiterals> = Vec::new();
        // Per group: its pair, and whether a trigger it starts may sit
        // inside a word.
        let mut starts: Vec<([u8; 2], bool)> = Vec::new();
        // Every trigger's second byte with its third (`None`: the trigger
        // is two bytes, any byte may follow).
        let mut continues: Vec<(u8, Option<u8>)> = Vec::new();
        for (index, rule) in rules.iter().enumerate() {
            assert!(!rule.triggers.is_empty(), "{}: no trigger", rule.family);
            for &Trigger {
                lit,
                word_start,
                then,
            } in &rule.triggers
            {
                let bytes = lit.as_bytes();
                assert!(
                    bytes.len() >= 2
                        && bytes
                            .iter()
                            .all(|b| b.is_ascii() && !b.is_ascii_uppercase()),
                    "{}: a trigger is lower-case ASCII of two bytes or more",
                    rule.family
                );
                assert!(
                    !word_start || is_word_byte(bytes[0]),
                    "{}: a word trigger starts with a word byte",
                    rule.family
                );
                continues.push((bytes[1], bytes.get(2).copied()));
                let slot = slot_index(bytes[0], bytes[1]);
                if slots[slot] == 0 {
                    nested.push(([0; 4], Vec::new()));
                    starts.push(([bytes[0], bytes[1]], false));
                    slots[slot] = u8::try_from(nested.len()).expect("fewer than 256 trigger pairs");
                }
                let group = usize::from(slots[slot]) - 1;
                starts[group].1 |= !word_start;
                let (third, literals) = &mut nested[group];
                match bytes.get(2) {
                    Some(&b) => add_both_cases(third, b),
                    None => *third = [u64::MAX; 4],
                }
                let at = match literals.iter().position(|(l, _)| l.lit == bytes) {
                    Some(at) => at,
                    None => {
                        literals.push((Literal::new(lit), Vec::new()));
                        literals.len() - 1
                    }
                };
                literals[at].1.push(Use {
                    rule: index,
                    word_start,
                    then,
                });
            }
        }
        // The buckets: every third byte of a pair that allows not any.
        let mut thirds = [0u64; 4];
        for (third, _) in nested.iter().filter(|(t, _)| *t != [u64::MAX; 4]) {
            for (all, some) in thirds.iter_mut().zip(third) {
                *all |= some;
            }
        }
        let buckets = Buckets::new(&thirds);
        // Only the pairs of the triggers are visited (the process start
        // of every hook pays for this table): the word bits first, the
        // same for every second byte, so a row per second byte.
        let mut pairs = Box::new([0u8; PAIRS_LEN]);
        for row in pairs[..1 << 16].chunks_exact_mut(256) {
            row.copy_from_slice(&FIRST_IS_WORD_ROW);
        }
        let cases = |b: u8| [b, b.to_ascii_uppercase()];
        for (([first, second], anywhere), (third, _)) in starts.iter().zip(&nested) {
            let set = if *third == [u64::MAX; 4] {
                0b11
            } else {
                let mut set = 0;
                for (word, bits) in (0u8..).zip(third) {
                    let mut bits = *bits;
                    while bits != 0 {
                        let b = word * 64 + u8::try_from(bits.trailing_zeros()).expect("a bit");
                        set |= buckets.bit(b);
                        bits &= bits - 1;
                    }
                }
                set
            };
            let flags = (set & PAIR_THIRDS) | if *anywhere { 0 } else { PAIR_WORD_ONLY };
            for a in cases(*first) {
                for b in cases(*second) {
                    pairs[pair_index(a, b)] |= flags;
                }
            }
        }
        for &(second, third) in &continues {
            for a in cases(second) {
                match third {
                    Some(third) => {
                        for b in cases(third) {
                            pairs[pair_index(a, b)] |= buckets.bit(b) << PAIR_NEXT_SHIFT;
                        }
                    }
                    None => {
                        for b in 0..=u8::MAX {
                            pairs[pair_index(a, b)] |= buckets.bit(b) << PAIR_NEXT_SHIFT;
                        }
                    }
                }
            }
        }
        let (mut groups, mut flat, mut uses) = (Vec::new(), Vec::new(), Vec::new());
        let short = |n: usize| u16::try_from(n).expect("few triggers");
        for (third, literals) in nested {
            let first = short(flat.len());
            let mut fourth = [0u64; 4];
            for (literal, _) in &literals {
                match literal.lit.get(3) {
                    Some(&b) => add_both_cases(&mut fourth, b),
                    None => fourth = [u64::MAX; 4],
                }
            }
            for (mut literal, rules) in literals {
                literal.first_use = short(uses.len());
                uses.extend(rules);
                literal.end_use = short(uses.len());
                flat.push(literal);
            }
            groups.push(Group {
                third,
                fourth,
                first,
                end: short(flat.len()),
            });
        }
        Triggers {
            pairs,
            slots,
            groups,
            literals: flat,
            uses,
        }
    }

    /// Calls `found(at, rule)` for every trigger occurrence, in text order
    /// (the rules of one position in the order of their literals).
    pub(super) fn scan(&self, text: &str, found: impl FnMut(usize, usize)) {
        self.scan_with(text, true, found);
    }

    /// [`Triggers::scan`], with the vector scan where the CPU has it when
    /// `vector` (tests compare the two).
    pub(super) fn scan_with(&self, text: &str, vector: bool, mut found: impl FnMut(usize, usize)) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        if n < 2 {
            return;
        }
        // The first position has no byte before it, and the last positions
        // too few bytes after them for a whole chunk: those are compared
        // directly.
        self.check(bytes, 0, &mut found);
        #[cfg(target_arch = "x86_64")]
        let at = if vector && std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            unsafe { self.scan_avx2(bytes, &mut found) }
        } else {
            1
        };
        #[cfg(not(target_arch = "x86_64"))]
        let at = {
            let _ = vector;
            1
        };
        let at = self.scan_chunks(bytes, at, &mut found);
        for at in at..n - 1 {
            self.check(bytes, at, &mut found);
        }
    }

    /// Scans chunks of positions from `at` (`0 < at`) with the pair table
    /// while a chunk and the two bytes after it are in the text; returns
    /// the first position not scanned.
    fn scan_chunks(
        &self,
        bytes: &[u8],
        mut at: usize,
        found: &mut impl FnMut(usize, usize),
    ) -> usize {
        let n = bytes.len();
        let pairs: &[u8; PAIRS_LEN] = &self.pairs;
        // `flags[k]`: the flags of the pair at `at - 1 + k`.
        let mut flags = [0u8; CHUNK + 2];
        while at + CHUNK + 1 < n {
            // As an array, so that no index into it needs a bounds check.
            let chunk: &[u8; CHUNK + 3] =
                bytes[at - 1..at + CHUNK + 2].try_into().expect("in bounds");
            let flag = |k: usize| {
                let pair: [u8; 2] = chunk[k..k + 2].try_into().expect("2 bytes");
                pairs[usize::from(u16::from_le_bytes(pair))]
            };
            // Eight at a time, so that the loop's own count is paid once
            // per eight lookups.
            for (group, eight) in flags[..CHUNK].chunks_exact_mut(8).enumerate() {
                for (k, f) in eight.iter_mut().enumerate() {
                    *f = flag(group * 8 + k);
                }
            }
            flags[CHUNK] = flag(CHUNK);
            flags[CHUNK + 1] = flag(CHUNK + 1);
            for group in 0..CHUNK / 8 {
                let word = |offset: usize| {
                    let from = group * 8 + offset;
                    u64::from_le_bytes(flags[from..from + 8].try_into().expect("8 bytes"))
                };
                let (before, here, next) = (word(0), word(1), word(2));
                // Per byte (a right shift keeps bits 0 and 1 of each byte
                // from that byte): a trigger may start here with a third
                // byte of its buckets, and not (word-only and inside a
                // word).
                let inside_word = (here >> 4) & (before >> 6);
                let hits = here & (next >> PAIR_NEXT_SHIFT) & !inside_word & 0x0303_0303_0303_0303;
                if hits == 0 {
                    continue;
                }
                // One bit per position worth a closer look, in order.
                let mut hits = (hits | hits >> 1) & 0x0101_0101_0101_0101;
                while hits != 0 {
                    let byte = hits.trailing_zeros() as usize / 8;
                    self.check(bytes, at + group * 8 + byte, found);
                    hits &= hits - 1;
                }
            }
            at += CHUNK;
        }
        at
    }

    /// Calls `found` for the rules whose trigger occurs at `at`. Small, so
    /// that the most positions it is given, turned away by their pair's
    /// third-byte set, cost a call that saves no register (inlined in the
    /// scan's loop it cost more).
    #[inline(never)]
    fn check(&self, bytes: &[u8], at: usize, found: &mut impl FnMut(usize, usize)) {
        self.check_inline(bytes, at, found);
    }

    /// [`Triggers::check`] in line, for a loop that does nothing else.
    #[inline(always)]
    fn check_inline(&self, bytes: &[u8], at: usize, found: &mut impl FnMut(usize, usize)) {
        // Bytes outside ASCII fold onto an ASCII pair's slot; the literal
        // comparison below is exact.
        let slot = self.slots[folded_slot_index(bytes[at], bytes[at + 1])];
        if slot == 0 {
            return;
        }
        let group = &self.groups[usize::from(slot) - 1];
        // Both tests, one branch: which of them turns a position away is
        // unpredictable.
        if group.allows_third(bytes.get(at + 2)) & group.allows_fourth(bytes.get(at + 3)) {
            self.compare(bytes, at, group, found);
        }
    }

    /// The literals of `group` compared at `at`, and their rules' uses.
    #[inline(never)]
    fn compare(
        &self,
        bytes: &[u8],
        at: usize,
        group: &Group,
        found: &mut impl FnMut(usize, usize),
    ) {
        let word = bytes
            .get(at..at + 8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
        for literal in &self.literals[usize::from(group.first)..usize::from(group.end)] {
            if literal.occurs_at(bytes, at, word) {
                let uses = usize::from(literal.first_use)..usize::from(literal.end_use);
                for u in &self.uses[uses] {
                    if u.fits(bytes, at, literal.lit.len()) {
                        found(at, u.rule);
                    }
                }
            }
        }
    }
}
