//! Seeds derived from the master seed and a cell's coordinates (benchopt's rule).
//!
//! A cell's seed depends only on the master seed and the cell's own parameters, never on the order
//! in which cells run or on how many there are, so adding a value to a list leaves every other
//! cell's numbers unchanged, and a row of the CSV can be re-run alone from its `seed` column.

/// FNV-1a over the key's bytes, then SplitMix64's finaliser mixed with the master seed.
pub fn derive_seed(master: u64, key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    splitmix64(h ^ splitmix64(master))
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_and_distinct() {
        // Pinned: changing the derivation silently changes every committed result.
        assert_eq!(derive_seed(1, "a"), derive_seed(1, "a"));
        assert_ne!(derive_seed(1, "a"), derive_seed(2, "a"));
        assert_ne!(derive_seed(1, "a"), derive_seed(1, "b"));
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }
}
