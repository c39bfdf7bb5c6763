//! The context rule's pre-check turned away in one look at 64 bytes with
//! AVX2 (x86-64, detected at run time), before the scalar look of
//! `opaque_run_follows` that reads them a window at a time.
//!
//! Each byte is classed by two table lookups on its nibbles: a value byte
//! (`[A-Za-z0-9/+_=~.-]`), a byte that may stand between a secret's name
//! and the secret (`context_filler_byte`, and `*`, which costs the tables
//! no bit of their own: taking it for one only turns away less), or
//! neither: a stop. With no run of 20 value bytes before the first stop
//! the rule's pattern cannot match (see `opaque_run_follows`): turned
//! away. Anything else is left to the scalar look.

use std::arch::x86_64::{
    _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
};

/// The bytes looked at from the trigger.
pub(super) const SPAN: usize = 64;

/// Bits 0 to 5 of a class: value bytes, as products of a set of high
/// nibbles and a set of low nibbles (`+-./`; digits and `=`; `A-O` and
/// `a-o`; `P-Z` and `p-z`; `_`; `~`)...
const VALUE_BITS: i8 = 0x3f;
/// ... bits 6 and 7: blanks, quotes, `:` and `>` (and `*`).
const FILLER_BITS: i8 = -0x40; // 0xc0

/// Per high nibble, the class bits it may take part in (twice: `vpshufb`
/// looks up within each 128-bit half).
static HIGH: [u8; 32] = twice([
    0x80,        // 0x0_: tab (bit 7)
    0,           //
    0x01 | 0x40, // 0x2_: `+-./` (bit 0); space, `"`, `'`, `*` (bit 6)
    0x02 | 0x40, // 0x3_: digits, `=` (bit 1); `:`, `>` (bit 6)
    0x04,        // 0x4_: `A-O` (bit 2)
    0x08 | 0x10, // 0x5_: `P-Z` (bit 3), `_` (bit 4)
    0x04 | 0x40, // 0x6_: `a-o` (bit 2); `` ` `` (bit 6)
    0x08 | 0x20, // 0x7_: `p-z` (bit 3), `~` (bit 5)
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
]);

/// Per low nibble, the class bits it may take part in.
static LOW: [u8; 32] = twice({
    let mut half = [0u8; 16];
    let mut low = 0;
    while low < 16 {
        let mut bits = 0u8;
        if matches!(low, 0xb | 0xd | 0xe | 0xf) {
            bits |= 0x01;
        }
        if low <= 9 || low == 0xd {
            bits |= 0x02;
        }
        if low >= 1 {
            bits |= 0x04;
        }
        if low <= 0xa {
            bits |= 0x08;
        }
        if low == 0xf {
            bits |= 0x10;
        }
        if low == 0xe {
            bits |= 0x20;
        }
        // Space, `"`, `'`, `*` (0x2_); `:`, `>` (0x3_); `` ` `` (0x6_):
        // their products hold digits and letters too, value bytes anyway.
        if matches!(low, 0x0 | 0x2 | 0x7 | 0xa | 0xe) {
            bits |= 0x40;
        }
        if low == 0x9 {
            bits |= 0x80;
        }
        half[low] = bits;
        low += 1;
    }
    half
});

const fn twice(half: [u8; 16]) -> [u8; 32] {
    let mut both = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        both[i] = half[i % 16];
        i += 1;
    }
    both
}

/// Masks of the 64 bytes at `text[at..]` (a bit per byte): value bytes and
/// stops.
///
/// # Safety
/// The CPU has AVX2 and `at + SPAN <= text.len()`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn classes(text: &[u8], at: usize) -> (u64, u64) {
    debug_assert!(at + SPAN <= text.len());
    // SAFETY: 32 bytes each, unaligned loads.
    let (high, low) = unsafe {
        (
            _mm256_loadu_si256(HIGH.as_ptr().cast()),
            _mm256_loadu_si256(LOW.as_ptr().cast()),
        )
    };
    let nibble = _mm256_set1_epi8(0x0f);
    let zero = _mm256_setzero_si256();
    let value_bits = _mm256_set1_epi8(VALUE_BITS);
    let filler_bits = _mm256_set1_epi8(FILLER_BITS);
    let half = |offset: usize| -> (u64, u64) {
        // SAFETY: 32 bytes at `at + offset`, `offset + 32 <= SPAN`.
        let v = unsafe { _mm256_loadu_si256(text.as_ptr().add(at + offset).cast()) };
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble);
        let lo = _mm256_and_si256(v, nibble);
        // Bytes from 0x80 take a zero row of the high table: stops.
        let class = _mm256_and_si256(_mm256_shuffle_epi8(high, hi), _mm256_shuffle_epi8(low, lo));
        let not_value = _mm256_cmpeq_epi8(_mm256_and_si256(class, value_bits), zero);
        let not_filler = _mm256_cmpeq_epi8(_mm256_and_si256(class, filler_bits), zero);
        let stop = _mm256_and_si256(not_value, not_filler);
        (
            u64::from(!(_mm256_movemask_epi8(not_value) as u32)),
            u64::from(_mm256_movemask_epi8(stop) as u32),
        )
    };
    let (value_low, stop_low) = half(0);
    let (value_high, stop_high) = half(32);
    (value_low | value_high << 32, stop_low | stop_high << 32)
}

#[cfg(test)]
mod tests {
    use super::super::context_filler_byte;
    use super::{classes, SPAN};

    /// Every byte value, at every place of the 64, is classed as the
    /// scalar tables class it: a value byte exactly when `OPAQUE_BYTE`
    /// says so, a stop exactly when it is neither that nor a filler (`*`
    /// aside, taken for a filler).
    #[test]
    fn classes_every_byte_as_the_scalar_tables() {
        assert!(
            std::is_x86_feature_detected!("avx2"),
            "this test checks the AVX2 look"
        );
        for b in 0..=u8::MAX {
            let value = super::super::OPAQUE_BYTE[usize::from(b)];
            let stop = !value && !context_filler_byte(b) && b != b'*';
            for place in 1..=SPAN {
                let mut text = [b'a'; SPAN + 1];
                text[place] = b;
                // SAFETY: checked above; SPAN bytes from 1, so the byte at
                // `place` is bit `place - 1`.
                let (values, stops) = unsafe { classes(&text, 1) };
                let bit = 1u64 << (place - 1);
                assert_eq!(values & bit != 0, value, "{b:#x} at {place}");
                assert_eq!(stops & bit != 0, stop, "{b:#x} at {place}");
                assert_eq!(values | bit, u64::MAX, "{b:#x} at {place}");
                assert_eq!(stops & !bit, 0, "{b:#x} at {place}");
            }
        }
    }
}
