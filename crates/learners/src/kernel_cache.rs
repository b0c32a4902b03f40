//! LIBSVM's kernel-row cache (`Cache` in `svm.cpp`): a least-recently-used store of kernel rows
//! under a fixed budget, so that SMO on `n` rows needs `O(n)` memory plus the budget instead of
//! the `8 n^2` bytes of the whole matrix.
//!
//! Rows are addressed by their current *position* in the solver's permuted order (shrinking moves
//! the active variables to a prefix), and a cached row may be partial: entries `[0, len)` are
//! stored, because after shrinking the solver only asks for the active prefix. Asking for a longer
//! prefix extends the row; [`KernelCache::swap_index`] keeps every cached row consistent with a
//! swap of two positions (dropping the rows that hold one of the two entries but not the other, as
//! LIBSVM does).
//!
//! Accounting is in stored entries (8 bytes each, `f64`: LIBSVM stores single-precision floats,
//! so the same budget holds half as many rows here; we keep double precision so that the solver
//! matches the full-matrix SMO to rounding). The per-row bookkeeping (`O(n)`, about 40 bytes a row)
//! is not counted, as LIBSVM's `-m` does not count it either once the cache is built.
//! The recency list is an index-linked circular list: `O(1)` per access.

/// Bytes per cached kernel value.
pub(crate) const ENTRY_BYTES: u64 = std::mem::size_of::<f64>() as u64;

/// A bounded least-recently-used cache of (partial) kernel rows.
#[derive(Debug)]
pub(crate) struct KernelCache {
    /// `rows[p]` holds entries `[0, rows[p].len())` of the row at position `p`; empty when not
    /// cached.
    rows: Vec<Vec<f64>>,
    /// Circular doubly linked recency list over cached positions; index `n` is the sentinel,
    /// `next[n]` the least recently used row, `prev[n]` the most recent.
    prev: Vec<usize>,
    next: Vec<usize>,
    capacity_entries: u64,
    used_entries: u64,
    peak_entries: u64,
}

impl KernelCache {
    /// A cache for `n` positions holding at most `capacity_bytes / 8` kernel values. The caller
    /// guarantees room for two full rows (`2 n` entries): the solver holds two rows at once.
    pub(crate) fn new(n: usize, capacity_bytes: u64) -> Self {
        let capacity_entries = capacity_bytes / ENTRY_BYTES;
        debug_assert!(capacity_entries >= 2 * n as u64);
        Self {
            rows: vec![Vec::new(); n],
            prev: vec![n; n + 1],
            next: vec![n; n + 1],
            capacity_entries,
            used_entries: 0,
            peak_entries: 0,
        }
    }

    fn sentinel(&self) -> usize {
        self.rows.len()
    }

    fn unlink(&mut self, p: usize) {
        let (a, b) = (self.prev[p], self.next[p]);
        self.next[a] = b;
        self.prev[b] = a;
    }

    /// Links `p` as the most recently used row.
    fn link_newest(&mut self, p: usize) {
        let s = self.sentinel();
        let last = self.prev[s];
        self.next[last] = p;
        self.prev[p] = last;
        self.next[p] = s;
        self.prev[s] = p;
    }

    fn drop_row(&mut self, p: usize) {
        self.unlink(p);
        self.used_entries -= self.rows[p].len() as u64;
        self.rows[p] = Vec::new();
    }

    /// Makes entries `[0, len)` of row `p` available and marks it most recently used. Missing
    /// entries `[start, len)` are computed by `fill(start, &mut row[start..len])`; the least
    /// recently used rows are evicted first to make room.
    pub(crate) fn fetch(&mut self, p: usize, len: usize, fill: impl FnOnce(usize, &mut [f64])) {
        let have = self.rows[p].len();
        if have > 0 {
            self.unlink(p);
        }
        if len > have {
            let more = (len - have) as u64;
            while self.capacity_entries - self.used_entries < more {
                let oldest = self.next[self.sentinel()];
                debug_assert_ne!(oldest, self.sentinel(), "room for two rows is guaranteed");
                self.drop_row(oldest);
            }
            let row = &mut self.rows[p];
            // Exact growth: the budget is counted in stored entries, not amortised capacity.
            row.reserve_exact(len - have);
            row.resize(len, 0.0);
            fill(have, &mut row[have..len]);
            self.used_entries += more;
            self.peak_entries = self.peak_entries.max(self.used_entries);
        }
        self.link_newest(p);
    }

    /// The cached prefix of row `p` (empty if not cached).
    pub(crate) fn row(&self, p: usize) -> &[f64] {
        &self.rows[p]
    }

    /// Follows a swap of positions `i` and `j` in the solver: the two rows change places, and the
    /// two entries change places in every cached row. A row whose prefix covers the smaller
    /// position but not the larger cannot be patched and is dropped.
    pub(crate) fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        let (ci, cj) = (!self.rows[i].is_empty(), !self.rows[j].is_empty());
        if ci {
            self.unlink(i);
        }
        if cj {
            self.unlink(j);
        }
        self.rows.swap(i, j);
        // Each keeps its recency order relative to the other; both become recent, as in LIBSVM.
        if cj {
            self.link_newest(i);
        }
        if ci {
            self.link_newest(j);
        }
        let (lo, hi) = (i.min(j), i.max(j));
        let s = self.sentinel();
        let mut p = self.next[s];
        while p != s {
            let after = self.next[p];
            let len = self.rows[p].len();
            if len > hi {
                self.rows[p].swap(lo, hi);
            } else if len > lo {
                self.drop_row(p);
            }
            p = after;
        }
    }

    /// Bytes the budget allows.
    #[cfg(test)]
    pub(crate) fn capacity_bytes(&self) -> u64 {
        self.capacity_entries * ENTRY_BYTES
    }

    /// Bytes of kernel values held now.
    #[cfg(test)]
    pub(crate) fn used_bytes(&self) -> u64 {
        self.used_entries * ENTRY_BYTES
    }

    /// The most bytes of kernel values ever held at once.
    pub(crate) fn peak_bytes(&self) -> u64 {
        self.peak_entries * ENTRY_BYTES
    }

    /// Positions from least to most recently used.
    #[cfg(test)]
    fn recency(&self) -> Vec<usize> {
        let s = self.sentinel();
        let mut out = Vec::new();
        let mut p = self.next[s];
        while p != s {
            out.push(p);
            p = self.next[p];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row `p` of a fake matrix: entry `q` is `100 p + q`, positions being the identity.
    fn fill(p: usize) -> impl FnOnce(usize, &mut [f64]) {
        move |start, out| {
            for (k, v) in out.iter_mut().enumerate() {
                *v = (100 * p + start + k) as f64;
            }
        }
    }

    #[test]
    fn evicts_the_least_recently_used_row() {
        // Room for three full rows of four entries.
        let mut cache = KernelCache::new(4, 3 * 4 * ENTRY_BYTES);
        for p in [0, 1, 2] {
            cache.fetch(p, 4, fill(p));
        }
        assert_eq!(cache.recency(), [0, 1, 2]);
        // A hit refreshes row 0 without recomputing it.
        cache.fetch(0, 4, |_, _| panic!("row 0 is cached"));
        assert_eq!(cache.recency(), [1, 2, 0]);
        cache.fetch(3, 4, fill(3));
        assert_eq!(cache.recency(), [2, 0, 3]);
        assert!(cache.row(1).is_empty());
        assert_eq!(cache.row(3), [300.0, 301.0, 302.0, 303.0]);
        assert_eq!(cache.used_bytes(), 12 * ENTRY_BYTES);
    }

    #[test]
    fn partial_rows_are_extended_and_counted() {
        let mut cache = KernelCache::new(4, 8 * ENTRY_BYTES);
        cache.fetch(1, 2, fill(1));
        assert_eq!(cache.row(1), [100.0, 101.0]);
        let mut asked = None;
        cache.fetch(1, 4, |start, out| {
            asked = Some((start, out.len()));
            fill(1)(start, out)
        });
        assert_eq!(asked, Some((2, 2)));
        assert_eq!(cache.row(1), [100.0, 101.0, 102.0, 103.0]);
        cache.fetch(2, 3, fill(2));
        // 4 + 3 entries; a full row 0 needs 4 more, so the oldest (row 1) goes.
        cache.fetch(0, 4, fill(0));
        assert!(cache.row(1).is_empty());
        assert_eq!(cache.used_bytes(), 7 * ENTRY_BYTES);
        assert!(cache.peak_bytes() <= cache.capacity_bytes());
    }

    #[test]
    fn swap_index_permutes_rows_and_entries_and_drops_unpatchable_rows() {
        let mut cache = KernelCache::new(5, 100 * ENTRY_BYTES);
        cache.fetch(0, 5, fill(0));
        cache.fetch(1, 2, fill(1)); // covers position 1 but not 3: dropped
        cache.fetch(3, 1, fill(3)); // covers neither 1 nor 3: kept as is
        cache.fetch(4, 5, fill(4));
        cache.swap_index(3, 1);
        assert_eq!(cache.row(0), [0.0, 3.0, 2.0, 1.0, 4.0]);
        assert_eq!(cache.row(4), [400.0, 403.0, 402.0, 401.0, 404.0]);
        assert!(cache.row(3).is_empty());
        // Old row 3 (one entry) now sits at position 1.
        assert_eq!(cache.row(1), [300.0]);
        assert_eq!(cache.used_bytes(), 11 * ENTRY_BYTES);
        let mut listed = cache.recency();
        listed.sort_unstable();
        assert_eq!(listed, [0, 1, 4]);
    }
}
