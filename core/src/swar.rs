//! Byte-class searches eight bytes at a time ("SIMD within a register"), in safe, portable code.
//!
//! The line framer, the JSON scanner and the walker spend most of their time in runs of bytes that need no attention
//! (string content, the inside of a skipped container). These functions return the length of such
//! a run, examining a whole `u64` word per step (the last one overlapping the words before it;
//! runs shorter than a word a byte at a time), with exactly the
//! result of the byte-at-a-time loop each replaces (the tests compare them). On 32-bit targets the
//! byte loops themselves run.

const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

// Each mask has the high bit of a byte set where that byte is in the class. Bits above the first
// such byte may be set wrongly (a borrow carries upwards), never bits below it: with the bytes in
// little-endian order the lowest set bit is exact, which is all `run_len` reads.

/// Bytes equal to zero.
const fn zero_mask(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// Bytes equal to `byte`.
const fn byte_mask(word: u64, byte: u8) -> u64 {
    zero_mask(word ^ (ONES * byte as u64))
}

/// Bytes below `limit` (for `limit <= 0x80`).
const fn below_mask(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(ONES * limit as u64) & !word & HIGHS
}

/// Length of the leading run of `bytes` outside the class that `mask` marks.
#[inline(always)]
fn run_len(bytes: &[u8], mask: impl Fn(u64) -> u64) -> usize {
    let len = bytes.len();
    if len < 8 {
        // Shifted into one word (cheaper than a copy of variable length); whatever the padding
        // bytes are marked as, a mark past `len` means none in `bytes`.
        let word = bytes.iter().rev().fold(0, |word, &byte| (word << 8) | u64::from(byte));
        return ((mask(word).trailing_zeros() / 8) as usize).min(len);
    }
    let mut index = 0;
    let mut words = bytes.chunks_exact(8);
    for chunk in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let marked = mask(u64::from_le_bytes(word));
        if marked != 0 {
            return index + (marked.trailing_zeros() / 8) as usize;
        }
        index += 8;
    }
    let tail = words.remainder().len();
    if tail == 0 {
        return len;
    }
    // The last eight bytes, overlapping the words already examined: shifting those bytes' marks
    // out leaves the tail's, exact from the lowest set bit down (its bytes below are clean).
    let mut word = [0u8; 8];
    word.copy_from_slice(bytes.get(len - 8..).unwrap_or(&[0; 8]));
    let marked = mask(u64::from_le_bytes(word)) >> ((8 - tail) * 8);
    if marked != 0 { index + (marked.trailing_zeros() / 8) as usize } else { len }
}

/// The run's length: a word at a time on 64-bit targets (`mask` marks a word's bytes that end the
/// run), a byte at a time elsewhere (`ends` tells such a byte): on a 32-bit core the word masks are
/// pairs of 32-bit operations, which cost flash for little.
#[inline(always)]
fn run(bytes: &[u8], mask: impl Fn(u64) -> u64, ends: fn(u8) -> bool) -> usize {
    if cfg!(target_pointer_width = "64") { run_len(bytes, mask) } else { byte_run_len(bytes, ends) }
}

/// [`run`] a byte at a time.
fn byte_run_len(bytes: &[u8], ends: fn(u8) -> bool) -> usize {
    bytes.iter().position(|&b| ends(b)).unwrap_or(bytes.len())
}

/// Length of the leading run of printable ASCII other than `"` and `\` (string content that needs
/// no further checking).
pub(crate) fn plain_string_len(bytes: &[u8]) -> usize {
    run(bytes, |w| below_mask(w, 0x20) | (w & HIGHS) | byte_mask(w, b'"') | byte_mask(w, b'\\'), ends_plain_string)
}

const fn ends_plain_string(b: u8) -> bool {
    !(b >= 0x20 && b < 0x80) || b == b'"' || b == b'\\'
}

/// Length of the leading run of bytes a JSON string holds as they are: no control character, `"`
/// or `\` (text the writer escapes).
pub(crate) fn unescaped_len(bytes: &[u8]) -> usize {
    run(bytes, |w| below_mask(w, 0x20) | byte_mask(w, b'"') | byte_mask(w, b'\\'), ends_unescaped)
}

const fn ends_unescaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Length of the leading run without `"` or `\` (string content of validated JSON).
pub(crate) fn unquoted_len(bytes: &[u8]) -> usize {
    run(bytes, |w| byte_mask(w, b'"') | byte_mask(w, b'\\'), ends_unquoted)
}

const fn ends_unquoted(b: u8) -> bool {
    b == b'"' || b == b'\\'
}

/// Length of the leading run without `\n` (the rest of an NDJSON line).
pub(crate) fn newline_free_len(bytes: &[u8]) -> usize {
    run(bytes, |w| byte_mask(w, b'\n'), ends_line)
}

const fn ends_line(b: u8) -> bool {
    b == b'\n'
}

/// Length of the leading run without `"`, `{`, `}`, `[` or `]` (inside a validated container).
pub(crate) fn structureless_len(bytes: &[u8]) -> usize {
    // `| 0x20` maps `[` to `{` and `]` to `}`, and no other byte to either.
    let folded = ONES * 0x20;
    run(bytes, |w| byte_mask(w, b'"') | byte_mask(w | folded, b'{') | byte_mask(w | folded, b'}'), ends_structureless)
}

const fn ends_structureless(b: u8) -> bool {
    matches!(b, b'"' | b'{' | b'}' | b'[' | b']')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    fn reference(bytes: &[u8], plain: impl Fn(u8) -> bool) -> usize {
        bytes.iter().position(|&b| !plain(b)).unwrap_or(bytes.len())
    }

    /// The byte loops of 32-bit targets give what the word searches give.
    fn assert_byte_runs_agree(bytes: &[u8]) {
        assert_eq!(byte_run_len(bytes, ends_plain_string), plain_string_len(bytes), "{bytes:?}");
        assert_eq!(byte_run_len(bytes, ends_unescaped), unescaped_len(bytes), "{bytes:?}");
        assert_eq!(byte_run_len(bytes, ends_unquoted), unquoted_len(bytes), "{bytes:?}");
        assert_eq!(byte_run_len(bytes, ends_line), newline_free_len(bytes), "{bytes:?}");
        assert_eq!(byte_run_len(bytes, ends_structureless), structureless_len(bytes), "{bytes:?}");
    }

    #[test]
    fn runs_match_the_byte_loops_on_every_byte_at_every_offset() {
        for special in 0..=255u8 {
            for len in 0..20 {
                for at in 0..=len {
                    let mut bytes = [b'a'; 20];
                    if at < len {
                        bytes[at] = special;
                    }
                    let bytes = &bytes[..len];
                    let plain_string = |b: u8| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\';
                    assert_eq!(plain_string_len(bytes), reference(bytes, plain_string), "{special:#x} {len} {at}");
                    assert_eq!(unquoted_len(bytes), reference(bytes, |b| b != b'"' && b != b'\\'));
                    let unescaped = |b: u8| b >= 0x20 && b != b'"' && b != b'\\';
                    assert_eq!(unescaped_len(bytes), reference(bytes, unescaped), "{special:#x} {len} {at}");
                    assert_eq!(newline_free_len(bytes), reference(bytes, |b| b != b'\n'));
                    let structural = |b: u8| !matches!(b, b'"' | b'{' | b'}' | b'[' | b']');
                    assert_eq!(structureless_len(bytes), reference(bytes, structural), "{special:#x} {len} {at}");
                    assert_byte_runs_agree(bytes);
                }
            }
        }
    }

    #[test]
    fn runs_match_the_byte_loops_on_random_bytes() {
        let mut rng = XorShift::new(0x5eed);
        for _ in 0..20_000 {
            let len = rng.below(40);
            let mut bytes = [0u8; 40];
            for byte in &mut bytes[..len] {
                // Mostly plain ASCII, some of everything.
                *byte = if rng.below(8) == 0 { rng.below(256) as u8 } else { b'a' + rng.below(26) as u8 };
            }
            let bytes = &bytes[..len];
            assert_eq!(
                plain_string_len(bytes),
                reference(bytes, |b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\')
            );
            assert_eq!(unquoted_len(bytes), reference(bytes, |b| b != b'"' && b != b'\\'));
            assert_eq!(unescaped_len(bytes), reference(bytes, |b| b >= 0x20 && b != b'"' && b != b'\\'));
            assert_eq!(structureless_len(bytes), reference(bytes, |b| !matches!(b, b'"' | b'{' | b'}' | b'[' | b']')));
            assert_byte_runs_agree(bytes);
        }
    }
}
