//! The hasher of the endpoint's maps, cheaper than std's SipHash.
//!
//! Its keys are chosen by the server, never by a client: session ids are random (the OS CSPRNG),
//! stream ids are counted. A client can only look keys up, and a lookup's cost depends on the keys
//! inserted, which it cannot aim at one bucket; so the maps need no keyed hash against flooding.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by server-chosen ids (see the module).
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Folds the key a word at a time with a multiply (FxHash's step): the low bits of the hash follow
/// those of the key, the high bits mix all of it.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl IdHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::{BuildHasher, Hash};

    use super::*;
    use mcp_sansio::endpoint::StreamId;
    use mcp_sansio::http::SessionId;

    fn hash(key: impl Hash) -> u64 {
        BuildHasherDefault::<IdHasher>::default().hash_one(key)
    }

    #[test]
    fn counted_stream_ids_fill_distinct_buckets() {
        let buckets: HashSet<u64> = (0..1024).map(|i| hash(StreamId(i)) & 1023).collect();
        assert_eq!(buckets.len(), 1024);
    }

    #[test]
    fn random_session_ids_spread_over_buckets_and_tags() {
        let ids: Vec<SessionId> = (0..10_000)
            .map(|_| {
                let mut random = [0u8; 16];
                getrandom::fill(&mut random).unwrap();
                SessionId::from_random(random)
            })
            .collect();
        let hashes: Vec<u64> = ids.iter().map(hash).collect();
        assert_eq!(hashes.iter().collect::<HashSet<_>>().len(), ids.len());
        // hashbrown: the low bits pick the bucket, the top 7 the tag.
        let mut load = vec![0u32; 1 << 14];
        for h in &hashes {
            load[(h & ((1 << 14) - 1)) as usize] += 1;
        }
        assert!(load.iter().all(|&n| n <= 8), "a bucket holds {}", load.iter().max().unwrap());
        assert_eq!(hashes.iter().map(|h| h >> 57).collect::<HashSet<_>>().len(), 128);
    }
}
