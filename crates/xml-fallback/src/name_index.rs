//! [`NameIndex`]: where a name stands in a list of distinct names that its owner keeps.
//!
//! A call has a handful of argument names, and comparing a few short names costs less than
//! hashing one; but a call (or an object) may also hold thousands of names, and a lookup must
//! then stay O(1), or reading it goes quadratic. The index compares up to [`NameIndex::FEW`]
//! names one by one and hashes them (keyed SipHash, so that no input can choose collisions)
//! once there are more.
//!
//! It holds positions only, never the names: the owner keeps them however suits it (owned
//! strings beside their offsets, slices borrowed from a tree, shared `Arc<str>`s) and lends
//! them through a closure, `name_at(i)`, the name at position `i`. One index thus serves every
//! such list in the workspace: the first start of each argument of a call being read, the
//! groups of an element's children by name, the argument names a stream of deltas has seen.
//! Each call of `name_at` is one comparison, so an owner counts the work of its lookups by
//! counting them.
//!
//! ```
//! use xml_fallback::name_index::NameIndex;
//!
//! let mut names: Vec<String> = Vec::new();
//! let mut index = NameIndex::default();
//! for name in ["path", "line", "path"] {
//!     match index.get_or_insert(name, |i| names[i].as_str()) {
//!         Ok(_seen) => {}
//!         Err(new) => {
//!             assert_eq!(new, names.len());
//!             names.push(name.to_owned());
//!         }
//!     }
//! }
//! assert_eq!(names, ["path", "line"]);
//! assert_eq!(index.get("line", |i| names[i].as_str()), Some(1));
//! assert_eq!(index.get("mode", |i| names[i].as_str()), None);
//! ```

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// The positions of the distinct names of a list its owner keeps (see the [module](self)
/// documentation): found by comparison among the first [`FEW`](Self::FEW), by a keyed hash
/// past them.
#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    /// Names recorded: positions `0..len`.
    len: usize,
    /// Past [`FEW`](Self::FEW) names: the hash index.
    hashed: Option<Box<Hashed>>,
}

/// The hash index of a [`NameIndex`] past its first few names.
#[derive(Debug, Clone)]
struct Hashed {
    keys: RandomState,
    /// The last position recorded with each hash.
    last: HashMap<u64, usize, BuildHasherDefault<Prehashed>>,
    /// For each position, the position recorded before it with the same hash ([`NONE`] at the
    /// end): a chain, for collisions a keyed 64-bit hash all but never makes.
    before: Vec<usize>,
}

/// No position.
const NONE: usize = usize::MAX;

impl NameIndex {
    /// Names compared one by one; one more turns the index into a hash index.
    pub const FEW: usize = 8;

    /// Names recorded.
    ///
    /// ```
    /// let mut index = xml_fallback::name_index::NameIndex::default();
    /// assert!(index.is_empty());
    /// assert_eq!(index.get_or_insert("a", |_| unreachable!()), Err(0));
    /// assert_eq!(index.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no name is recorded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The position of `name`, reading the recorded names through `name_at`.
    ///
    /// ```
    /// use xml_fallback::name_index::NameIndex;
    /// let names = ["a", "b"];
    /// let mut index = NameIndex::default();
    /// for n in names {
    ///     index.get_or_insert(n, |i| names[i]).unwrap_err();
    /// }
    /// assert_eq!(index.get("b", |i| names[i]), Some(1));
    /// ```
    pub fn get<'n>(&self, name: &str, name_at: impl Fn(usize) -> &'n str) -> Option<usize> {
        match &self.hashed {
            None => (0..self.len).find(|&i| name_at(i) == name),
            Some(h) => h.find(h.keys.hash_one(name), name, &name_at),
        }
    }

    /// The position of `name` (`Ok`), or, when it is new, the position it is recorded at
    /// (`Err`, always the number of names recorded before it): the owner must then keep it
    /// there, so that `name_at` finds it.
    ///
    /// ```
    /// use xml_fallback::name_index::NameIndex;
    /// let mut names: Vec<String> = Vec::new();
    /// let mut index = NameIndex::default();
    /// for k in 0..20 {
    ///     let name = format!("n{}", k % 10);
    ///     if let Err(at) = index.get_or_insert(&name, |i| names[i].as_str()) {
    ///         assert_eq!(at, names.len());
    ///         names.push(name);
    ///     }
    /// }
    /// assert_eq!(index.len(), 10);
    /// assert_eq!(index.get("n9", |i| names[i].as_str()), Some(9));
    /// ```
    pub fn get_or_insert<'n>(
        &mut self,
        name: &str,
        name_at: impl Fn(usize) -> &'n str,
    ) -> Result<usize, usize> {
        let at = self.len;
        match &mut self.hashed {
            None => {
                if let Some(i) = (0..at).find(|&i| name_at(i) == name) {
                    return Ok(i);
                }
                if at == Self::FEW {
                    let keys = RandomState::new();
                    let mut h = Hashed {
                        last: HashMap::with_capacity_and_hasher(2 * Self::FEW, Default::default()),
                        before: Vec::with_capacity(2 * Self::FEW),
                        keys,
                    };
                    for i in 0..at {
                        h.record(h.keys.hash_one(name_at(i)), i);
                    }
                    h.record(h.keys.hash_one(name), at);
                    self.hashed = Some(Box::new(h));
                }
            }
            Some(h) => {
                let hash = h.keys.hash_one(name);
                if let Some(i) = h.find(hash, name, &name_at) {
                    return Ok(i);
                }
                h.record(hash, at);
            }
        }
        self.len += 1;
        Err(at)
    }
}

impl Hashed {
    fn find<'n>(
        &self,
        hash: u64,
        name: &str,
        name_at: &impl Fn(usize) -> &'n str,
    ) -> Option<usize> {
        let mut i = self.last.get(&hash).copied().unwrap_or(NONE);
        while i != NONE {
            if name_at(i) == name {
                return Some(i);
            }
            i = self.before[i];
        }
        None
    }

    /// Records position `at` (the next one) under `hash`.
    fn record(&mut self, hash: u64, at: usize) {
        debug_assert_eq!(at, self.before.len());
        let before = self.last.insert(hash, at).unwrap_or(NONE);
        self.before.push(before);
    }
}

/// The hasher of keys that are hashes already (keyed SipHash outputs): passes them through.
#[derive(Debug, Default, Clone, Copy)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64`s are hashed here; any other key is folded in all the same.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::Cell;

    /// Records every name of `seq` and checks each answer against a search of the whole list;
    /// returns the most comparisons (`name_at` calls) one lookup made, and all of them.
    fn check(seq: &[String]) -> (usize, usize) {
        let mut names: Vec<String> = Vec::new();
        let mut index = NameIndex::default();
        let compared = Cell::new(0usize);
        let mut most = 0;
        let mut total = 0;
        for name in seq {
            let expected = names.iter().position(|n| n == name);
            compared.set(0);
            let got = index.get_or_insert(name, |i| {
                compared.set(compared.get() + 1);
                names[i].as_str()
            });
            most = most.max(compared.get());
            total += compared.get();
            match (got, expected) {
                (Ok(i), Some(e)) => assert_eq!(i, e, "{name}"),
                (Err(at), None) => {
                    assert_eq!(at, names.len());
                    names.push(name.clone());
                }
                other => panic!("{name}: {other:?}"),
            }
            assert_eq!(index.len(), names.len());
        }
        for (k, name) in names.iter().enumerate() {
            compared.set(0);
            let got = index.get(name, |i| {
                compared.set(compared.get() + 1);
                names[i].as_str()
            });
            assert_eq!(got, Some(k));
            most = most.max(compared.get());
            total += compared.get();
        }
        assert_eq!(index.get("\u{0}absent", |i| names[i].as_str()), None);
        (most, total)
    }

    proptest! {
        /// The index answers as a search of the list does, below, at and past the size where it
        /// turns into a hash index; no lookup compares more than `FEW` names, but the one that
        /// builds the hash index, which reads the `FEW` names once more.
        #[test]
        fn positions_are_a_searchs(seq in prop::collection::vec("[a-d]{1,2}", 0..60)) {
            let (most, _) = check(&seq);
            prop_assert!(most <= 2 * NameIndex::FEW);
        }
    }

    /// Many names: a lookup past the first few compares the one name its hash finds (none for a
    /// new name), so the work is linear in the number of names, where a search of the list
    /// would make n²/2 comparisons: 3n lookups of n names, at n and 4n.
    #[test]
    fn lookups_stay_constant_with_many_names() {
        for n in [1_000, 4_000] {
            let seq: Vec<String> = (0..2 * n).map(|k| format!("p{}", k % n)).collect();
            let (most, total) = check(&seq);
            assert!(most <= 2 * NameIndex::FEW, "{n} names: {most}");
            assert!(
                total <= 3 * n + 4 * NameIndex::FEW * NameIndex::FEW,
                "{n} names: {total}"
            );
        }
    }

    /// Colliding hashes are told apart by the names: a chain through `before`.
    #[test]
    fn colliding_hashes_keep_every_name() {
        let names = ["a", "b", "c"];
        let mut h = Hashed {
            keys: RandomState::new(),
            last: HashMap::default(),
            before: Vec::new(),
        };
        for i in 0..names.len() {
            h.record(7, i);
        }
        for (k, n) in names.iter().enumerate() {
            assert_eq!(h.find(7, n, &|i| names[i]), Some(k));
        }
        assert_eq!(h.find(7, "d", &|i| names[i]), None);
        assert_eq!(h.find(8, "a", &|i| names[i]), None);
    }
}
