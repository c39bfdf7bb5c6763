//! The chunk scan of `scan.rs` with AVX2 (x86-64, detected at run time; the
//! scalar scan serves every other CPU and is what this must agree with).
//!
//! The scalar scan spends three instructions a position looking up its
//! pair's flags and stores them, then tests eight positions at a time.
//! Here the lookups are gathered eight at a time (`vpgatherdd` reads four
//! bytes at each pair's index; the table is padded so the last pair's read
//! stays inside), packed to a byte per position, and the test of
//! `scan_chunks` (a position's pair, the pair before it for the word start,
//! the pair after it for the third byte's bucket) runs on 32 positions at
//! once. A block is tested once the next block's flags are known (its last
//! position needs the first of them), so the loop runs one block behind.
//! The blocks' hit masks are kept for a batch of 64 blocks and the closer
//! looks done after it: a call inside the vector loop made it save and
//! reload its vectors around every hit, and kept one block's gathers from
//! overlapping the next's. The masks are then turned into a list of
//! positions without a branch per hit (a loop over each block's hits
//! mispredicted its exit at nearly every block): more instructions, fewer
//! stalls (the bench's text, 10 MB: 113.1 M -> 125.2 M instructions,
//! a fifth fewer mispredicted branches, about a sixth less time).
//!
//! A per-byte prefilter of the kind multi-literal searchers use (bucket
//! sets by nibble, `vpshufb`) was tried first: with all the triggers'
//! pairs its three-byte test let 23% of positions through (the pair
//! table's lets 2%), and the scan cost more than the scalar one. Scalar
//! lookups stored for the vector test were slower than the gathers (the
//! 32-byte load waits for 32 byte stores).

use std::arch::x86_64::{
    __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8,
    _mm256_cvtepu8_epi32, _mm256_i32gather_epi32, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_packus_epi16, _mm256_packus_epi32, _mm256_permute2x128_si256,
    _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_set1_epi8, _mm256_setr_epi32,
    _mm256_setzero_si256, _mm256_slli_epi32, _mm256_srli_epi16, _mm_loadl_epi64,
};

use super::{pair_index, Triggers, PAIR_NEXT_SHIFT, PAIR_THIRDS};

/// Positions per block: one 256-bit vector of flags.
const BLOCK: usize = 32;

/// Blocks scanned before their positions are looked at (2 KB of text).
const BATCH: usize = 64;

impl Triggers {
    /// Scans positions from 1 while a whole block and the block after it
    /// are in the text (with one byte more); returns the first position not
    /// scanned.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scan_avx2(
        &self,
        bytes: &[u8],
        found: &mut impl FnMut(usize, usize),
    ) -> usize {
        let n = bytes.len();
        let mut at = 1;
        // `flags(q)` reads bytes `q..q + 33`.
        if at + 2 * BLOCK >= n {
            return at;
        }
        let table = self.pairs.as_ptr().cast::<i32>();
        let low_byte = _mm256_set1_epi32(0xff);
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        // The flags of the pairs at `q..q + 32`.
        let flags = |q: usize| -> __m256i {
            debug_assert!(q + BLOCK < n);
            let eight = |g: usize| {
                // SAFETY: `q + 8 * g + 9 <= q + 33 <= n`: eight bytes from
                // each offset; the gather reads four bytes at an index below
                // 2^16 in a table padded to 2^16 + 3.
                unsafe {
                    let text = bytes.as_ptr().add(q + 8 * g);
                    let first = _mm256_cvtepu8_epi32(_mm_loadl_epi64(text.cast()));
                    let second = _mm256_cvtepu8_epi32(_mm_loadl_epi64(text.add(1).cast()));
                    let index = _mm256_or_si256(first, _mm256_slli_epi32(second, 8));
                    _mm256_and_si256(_mm256_i32gather_epi32::<1>(table, index), low_byte)
                }
            };
            // Packing works within 128-bit halves: the eight groups of four
            // come out as 0, 2, 4, 6, 1, 3, 5, 7.
            let words = [
                _mm256_packus_epi32(eight(0), eight(1)),
                _mm256_packus_epi32(eight(2), eight(3)),
            ];
            _mm256_permutevar8x32_epi32(_mm256_packus_epi16(words[0], words[1]), order)
        };
        let thirds = _mm256_set1_epi8(PAIR_THIRDS as i8);
        let zero = _mm256_setzero_si256();
        // The flags of the block before the one tested (only its last byte,
        // the pair before the tested block's first position, is read), of
        // the tested block, and of the next.
        let mut older = {
            let mut last = [0u8; BLOCK];
            last[BLOCK - 1] = self.pairs[pair_index(bytes[0], bytes[1])];
            // SAFETY: 32 bytes, unaligned load.
            unsafe { _mm256_loadu_si256(last.as_ptr().cast()) }
        };
        let mut here = flags(at);
        // Each block's positions worth a closer look, a batch of blocks at
        // a time, looked at after the batch: the vector loop calls nothing,
        // so keeps its vectors in registers, and the gathers of one block
        // overlap the next block's.
        let mut masks = [0u32; BATCH];
        let mut offsets = [0u16; BATCH * BLOCK + 8];
        while at + 2 * BLOCK < n {
            let first = at;
            let mut blocks = 0;
            while blocks < BATCH && at + 2 * BLOCK < n {
                let next_block = flags(at + BLOCK);
                // The flags a position before and after, across the halves.
                let before =
                    _mm256_alignr_epi8::<15>(here, _mm256_permute2x128_si256::<0x21>(older, here));
                let next = _mm256_alignr_epi8::<1>(
                    _mm256_permute2x128_si256::<0x21>(here, next_block),
                    here,
                );
                // As in `scan_chunks` (a 16-bit shift keeps bits 0 and 1 of
                // each byte from that byte).
                let inside_word =
                    _mm256_and_si256(_mm256_srli_epi16::<4>(here), _mm256_srli_epi16::<6>(before));
                let may =
                    _mm256_and_si256(here, _mm256_srli_epi16::<{ PAIR_NEXT_SHIFT as i32 }>(next));
                let hits = _mm256_and_si256(_mm256_andnot_si256(inside_word, may), thirds);
                masks[blocks] = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hits, zero)) as u32);
                blocks += 1;
                older = here;
                here = next_block;
                at += BLOCK;
            }
            // The hits as offsets from `first`, two blocks at a time, eight
            // written whatever their count (the extra ones are overwritten
            // or past `len`): a pair of blocks with few hits costs no
            // mispredicted loop exit. Then one loop over them all.
            if blocks % 2 == 1 {
                masks[blocks] = 0;
            }
            let mut len = 0;
            for (pair, two) in masks[..blocks.div_ceil(2) * 2].chunks_exact(2).enumerate() {
                let base = u16::try_from(pair * 2 * BLOCK).expect("a batch is 2 KB");
                let mask = u64::from(two[0]) | u64::from(two[1]) << BLOCK;
                let mut hits = mask;
                for slot in &mut offsets[len..len + 8] {
                    *slot = base + hits.trailing_zeros() as u16;
                    hits &= hits.wrapping_sub(1);
                }
                let count = mask.count_ones() as usize;
                if count > 8 {
                    let mut at = len + 8;
                    while hits != 0 {
                        offsets[at] = base + hits.trailing_zeros() as u16;
                        hits &= hits - 1;
                        at += 1;
                    }
                }
                len += count;
            }
            for &offset in &offsets[..len] {
                self.check_inline(bytes, first + usize::from(offset), found);
            }
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::super::Triggers;
    use crate::redact::engine;

    /// Every `(position, rule)` the scan reports, with and without AVX2.
    fn both(triggers: &Triggers, text: &str) -> [Vec<(usize, usize)>; 2] {
        assert!(
            std::is_x86_feature_detected!("avx2"),
            "these tests compare the AVX2 scan with the scalar one"
        );
        [true, false].map(|vector| {
            let mut found = Vec::new();
            triggers.scan_with(text, vector, |at, rule| found.push((at, rule)));
            found
        })
    }

    fn triggers() -> Triggers {
        Triggers::new(&engine().rules)
    }

    fn literals() -> Vec<&'static str> {
        let mut lits: Vec<_> = engine()
            .rules
            .iter()
            .flat_map(|r| r.triggers.iter().map(|t| t.lit))
            .collect();
        lits.sort_unstable();
        lits.dedup();
        lits
    }

    /// Every trigger, in both cases, at every offset in a block (so some
    /// straddle a block's end), after a word byte or not, followed by an
    /// operator or not; and at the text's end for every length around the
    /// vector loop's last block.
    #[test]
    fn agrees_with_the_scalar_scan_on_triggers_at_every_offset() {
        let triggers = triggers();
        let mut reported = 0;
        for lit in literals() {
            for case in [lit.to_string(), lit.to_ascii_uppercase()] {
                for (before, after) in [(" ", " = x"), ("_", ":"), ("a", ""), ("\n", "\"=")] {
                    let mut text = String::new();
                    for gap in 0..70 {
                        text.push_str(&"x".repeat(gap));
                        text.push_str(before);
                        text.push_str(&case);
                        text.push_str(after);
                    }
                    let [vector, scalar] = both(&triggers, &text);
                    assert_eq!(vector, scalar, "{text:?}");
                    reported += vector.len();
                }
                for len in 60..110 {
                    let text = format!("{}{case}", " ".repeat(len));
                    let [vector, scalar] = both(&triggers, &text);
                    assert_eq!(vector, scalar, "{text:?}");
                }
            }
        }
        assert!(reported > 10_000, "the texts hold triggers: {reported}");
    }

    /// Random texts of trigger pieces, word bytes, blanks, operators and
    /// bytes outside ASCII, of every length up to a few blocks.
    #[test]
    fn agrees_with_the_scalar_scan_on_random_text() {
        let triggers = triggers();
        let lits = literals();
        let pieces = [
            " ",
            "_",
            "=",
            ": ",
            "\n",
            "\"",
            "x",
            "Q9",
            "é",
            "\u{1F600}",
            "--",
            "://",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % below as u64).expect("small")
        };
        let mut reported = 0;
        for round in 0..3000 {
            let mut text = String::new();
            let len = round % 300;
            while text.len() < len {
                if next(3) == 0 {
                    let lit = lits[next(lits.len())];
                    // A piece of a trigger, or all of it, in either case.
                    let cut = 1 + next(lit.len());
                    let piece = &lit[..cut];
                    if next(2) == 0 {
                        text.push_str(&piece.to_ascii_uppercase());
                    } else {
                        text.push_str(piece);
                    }
                } else {
                    text.push_str(pieces[next(pieces.len())]);
                }
            }
            let [vector, scalar] = both(&triggers, &text);
            assert_eq!(vector, scalar, "{text:?}");
            reported += vector.len();
        }
        assert!(reported > 1000, "the texts hold triggers: {reported}");
    }

    /// Every pair of ASCII bytes, and the bytes of characters outside
    /// ASCII, before a trigger (the gather reads the pair table's entries
    /// for all of them).
    #[test]
    fn agrees_with_the_scalar_scan_on_every_byte_pair() {
        let triggers = triggers();
        let mut text = String::new();
        for a in 0..128u8 {
            for b in 0..128u8 {
                text.extend([char::from(a), char::from(b)]);
                text.push_str("key=");
            }
        }
        for c in (0x80..0x11_0000).step_by(97).filter_map(char::from_u32) {
            text.push(c);
            text.push_str("Token");
        }
        let [vector, scalar] = both(&triggers, &text);
        assert!(vector.len() > 1000);
        assert_eq!(vector, scalar);
    }
}
