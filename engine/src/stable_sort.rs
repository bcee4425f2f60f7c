//! Stable sorting through one shared instance of the standard library's sort.
//!
//! Why not `slice::sort_by`: every call with its own closure (and every `sort()` on its own
//! element type) compiles its own copy of the standard stable sort, about 3.5 kB of wasm each.
//! The page's module carried 118 kB of them, a tenth of what the first load may weigh
//! (docs/first-load.md). Here the standard sort runs once, on positions, behind a `dyn`
//! comparison; each caller keeps only the few hundred bytes that apply the order. The result is
//! the standard stable sort's: for a consistent order, a stable sort's output is unique.
//! Hand-written because no crate sorts through a single erased instance.
//!
//! For the same reason [`Sorted`] builds ordered sets and maps by insertion: collecting into a
//! `BTreeSet` or `BTreeMap` (or `BTreeMap::from` an array) sorts the items first, with a sort
//! instance of its own per element type.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sorts `items` stably by `compare`, as `slice::sort_by` does.
pub fn by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    let order = positions_in_order(items.len(), &|a, b| compare(&items[a], &items[b]));
    apply(items, order);
}

/// Sorts `items` stably by a key, as `slice::sort_by_key` does.
pub fn by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in their natural order, as `slice::sort` does.
pub fn sort<T: Ord>(items: &mut [T]) {
    by(items, T::cmp);
}

/// Ordered sets and maps from an iterator, by insertion (see the module's note).
pub trait Sorted: Iterator + Sized {
    /// As `collect::<BTreeSet<_>>()`.
    fn sorted_set(self) -> BTreeSet<Self::Item>
    where
        Self::Item: Ord,
    {
        let mut set = BTreeSet::new();
        set.extend(self);
        set
    }

    /// As `collect::<BTreeMap<_, _>>()`: the last value of a repeated key wins.
    fn sorted_map<K: Ord, V>(self) -> BTreeMap<K, V>
    where
        Self: Iterator<Item = (K, V)>,
    {
        let mut map = BTreeMap::new();
        map.extend(self);
        map
    }
}

impl<I: Iterator> Sorted for I {}

/// The positions `0..len` in the order `compare` puts them, ties kept in place: the one
/// instance of the standard sort.
fn positions_in_order(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves the item at `order[i]` to place `i`, cycle by cycle, with swaps only (no `Clone`).
fn apply<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut current = start;
        while order[current] != current {
            let next = order[current];
            order[current] = current;
            if next == start {
                break;
            }
            items.swap(current, next);
            current = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Sorted;
    use std::collections::{BTreeMap, BTreeSet};

    proptest! {
        /// The same output as the standard stable sort, ties included: the pairs sort by their
        /// first half only, so equal keys must keep their input order.
        #[test]
        fn sorts_as_the_standard_stable_sort(mut pairs in prop::collection::vec((0u8..6, any::<u32>()), 0..200)) {
            let mut expected = pairs.clone();
            expected.sort_by_key(|pair| pair.0);
            super::by(&mut pairs, |a, b| a.0.cmp(&b.0));
            prop_assert_eq!(pairs, expected);
        }

        #[test]
        fn sorts_by_key_and_naturally_as_the_standard_sort(mut words in prop::collection::vec("[a-c]{0,3}", 0..100)) {
            let mut expected = words.clone();
            expected.sort_by_key(|w| w.len());
            let mut by_len = words.clone();
            super::by_key(&mut by_len, |w| w.len());
            prop_assert_eq!(&by_len, &expected);
            expected.sort();
            super::sort(&mut words);
            prop_assert_eq!(words, expected);
        }

        #[test]
        fn builds_the_sets_and_maps_collect_builds(pairs in prop::collection::vec((0u8..6, any::<u32>()), 0..100)) {
            prop_assert_eq!(pairs.iter().copied().sorted_map(), pairs.iter().copied().collect::<BTreeMap<_, _>>());
            prop_assert_eq!(pairs.iter().sorted_set(), pairs.iter().collect::<BTreeSet<_>>());
        }
    }
}
