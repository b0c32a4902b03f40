//! Seed derivations, in one place for the whole workspace: the maps' hashing, the learners'
//! sub-problems and the runner's cells all mix with SplitMix64's finaliser. Each function is
//! pinned by a test: changing one silently changes every committed result.

/// SplitMix64's golden gamma, `2^64 / phi`.
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser: a bijection on `u64` with full avalanche.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One step of SplitMix64: the state advanced by the golden gamma, then mixed.
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    mix64(x.wrapping_add(GOLDEN_GAMMA))
}

/// The seed of sub-problem `k` of a fit seeded with `seed` (a one-vs-rest class, a fold, a
/// row's fold): distinct and well mixed for every `k`.
#[inline]
pub fn sub_seed(seed: u64, k: u64) -> u64 {
    mix64(seed ^ k.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA))
}

/// The seed of a text `key` under a master seed (the runner's rule for a cell: the key names the
/// cell's coordinates, so the seed does not depend on the order cells run in): FNV-1a over the
/// key's bytes, mixed with the master seed by SplitMix64.
pub fn derive_seed(master: u64, key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    splitmix64(h ^ splitmix64(master))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_values() {
        // Changing any of these changes every committed result.
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
        assert_eq!(mix64(GOLDEN_GAMMA), splitmix64(0));
        assert_eq!(sub_seed(0, 0), splitmix64(0));
        assert_ne!(sub_seed(7, 1), sub_seed(7, 2));
        assert_eq!(derive_seed(1, "a"), derive_seed(1, "a"));
        assert_ne!(derive_seed(1, "a"), derive_seed(2, "a"));
        assert_ne!(derive_seed(1, "a"), derive_seed(1, "b"));
    }
}
