//! Hash maps keyed by the engine's own small integer ids (batch ids). The standard map hashes
//! every key with SipHash, built to resist keys an attacker picks; these keys are picked by the
//! driver's counter, and a single dispatch looks its batch up a hundred times or more (measured:
//! SipHash was the engine's largest single cost per call). One multiplication spreads a counter's
//! keys over the high bits the table probes with.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by an id the engine or its driver numbers (never by text from outside).
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Hashes one integer key by Fibonacci multiplication (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

/// 2^64 divided by the golden ratio, odd: multiplying by it moves every key bit into the high bits.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    /// Any other key type folds its bytes in; ids take the integer paths below.
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u32(&mut self, id: u32) {
        self.write_u64(u64::from(id));
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = (self.0.rotate_left(5) ^ id).wrapping_mul(GOLDEN);
    }

    fn write_usize(&mut self, id: usize) {
        self.write_u64(id as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn consecutive_ids_differ_in_the_high_bits_the_table_probes_with() {
        let build = BuildHasherDefault::<IdHasher>::default();
        let tops: std::collections::HashSet<u64> =
            (1u32..=128).map(|id| build.hash_one(id) >> 57).collect();
        // 128 consecutive ids over the 7-bit tags: a hash that left the high bits alone would
        // give one tag to all of them
        assert!(tops.len() > 64, "only {} distinct tags", tops.len());
    }

    #[test]
    fn a_map_keyed_by_ids_finds_each_of_many_batches() {
        let mut map: IdMap<u32, u32> = IdMap::default();
        for id in 0..10_000u32 {
            map.insert(id.wrapping_mul(7919), id);
        }
        assert_eq!(map.len(), 10_000);
        assert!((0..10_000u32).all(|id| map[&id.wrapping_mul(7919)] == id));
        assert_eq!(map.get(&1), None);
    }
}
