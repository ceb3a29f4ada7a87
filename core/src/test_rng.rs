//! xorshift64: a tiny deterministic generator for the seeded tests (fragmentation, random and
//! mutated documents; tests only, also compiled into `tests/features.rs`).

use std::vec::Vec;

pub(crate) struct XorShift(u64);

impl XorShift {
    pub(crate) fn new(seed: u64) -> Self {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..bound` (`bound > 0`).
    pub(crate) fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    /// One of `items` (not empty).
    pub(crate) fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// Changes `doc` in one random way: a byte replaced, inserted or removed (the bytes JSON gives
    /// meaning to, bad UTF-8 and controls more often than others), the end cut off, or a few bytes
    /// copied elsewhere.
    pub(crate) fn mutate(&mut self, doc: &mut Vec<u8>) {
        const INTERESTING: &[u8] = b"{}[],:\"\\ \t\n0123456789-+.eEtrufalsn/bu\
            D8dcF\x00\x01\x1f\x7f\x80\xbf\xc0\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff";
        let byte = if self.below(5) == 0 { self.next() as u8 } else { *self.pick(INTERESTING) };
        let position = self.below(doc.len() + 1);
        match self.below(10) {
            0..=3 if position < doc.len() => doc[position] = byte,
            4..=5 => doc.insert(position, byte),
            6..=7 if position < doc.len() => {
                doc.remove(position);
            }
            8 => doc.truncate(position),
            _ => {
                let end = (position + self.below(8)).min(doc.len());
                let copy = doc[position..end].to_vec();
                let at = self.below(doc.len() + 1);
                doc.splice(at..at, copy);
            }
        }
    }

    /// `len` bytes picked from `alphabet`.
    pub(crate) fn bytes_from(&mut self, alphabet: &[u8], len: usize) -> Vec<u8> {
        (0..len).map(|_| alphabet[self.below(alphabet.len())]).collect()
    }
}
