//! The transposition table: one entry a slot, indexed by the low bits of
//! [`Position::repetition_key`](sannin_rules::Position::repetition_key).
//!
//! A forced win or loss is stored as its distance from the node, not from
//! the root (`to_table`, `from_table`), so that an entry read at another ply
//! (a transposition) still says how far the mate is from where it is read.

use sannin_rules::Action;

use crate::eval::WIN_BOUND;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub key: u64,
    pub score: i32,
    pub depth: i8,
    pub bound: Bound,
    pub best: Option<Action>,
}

/// Entries of a new table for a search of `budget` nodes: twice the budget,
/// 4 Ki to 1 Mi entries (24 bytes each), a power of two.
pub(super) fn size_for(budget: u64) -> usize {
    budget
        .saturating_mul(2)
        .clamp(1 << 12, 1 << 20)
        .next_power_of_two() as usize
}

fn slot(table: &[Option<Entry>], key: u64) -> usize {
    (key as usize) & (table.len() - 1)
}

/// The entry of the position with this key, read `ply` plies from the root.
pub(super) fn probe(table: &[Option<Entry>], key: u64, ply: i32) -> Option<Entry> {
    table[slot(table, key)]
        .filter(|e| e.key == key)
        .map(|e| Entry {
            score: from_table(e.score, ply),
            ..e
        })
}

/// Stores `entry` (its score already [`to_table`]'s): depth-preferred for
/// the same position, always over another position's.
pub(super) fn store(table: &mut [Option<Entry>], entry: Entry) {
    let i = slot(table, entry.key);
    if let Some(old) = table[i] {
        if old.key == entry.key && old.depth > entry.depth {
            return;
        }
    }
    table[i] = Some(entry);
}

/// A score found `ply` plies from the root as the table keeps it: a win or
/// loss counted from the node.
pub(super) fn to_table(score: i32, ply: i32) -> i32 {
    if score >= WIN_BOUND {
        score + ply
    } else if score <= -WIN_BOUND {
        score - ply
    } else {
        score
    }
}

/// A kept score read `ply` plies from the root: [`to_table`]'s shift undone.
fn from_table(score: i32, ply: i32) -> i32 {
    to_table(score, -ply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::WIN;

    #[test]
    fn a_mate_read_at_another_ply_keeps_its_distance_from_the_node() {
        // Mate found 5 plies from the root, by a node 2 plies from the root:
        // 3 plies from that node.
        let kept = to_table(WIN - 5, 2);
        assert_eq!(kept, WIN - 3);
        // Read by the same position 4 plies from a root: mate in 7 from there.
        assert_eq!(from_table(kept, 4), WIN - 7);
        assert_eq!(from_table(to_table(-WIN + 5, 2), 4), -WIN + 7);
        assert_eq!(from_table(to_table(120, 2), 4), 120);
    }

    #[test]
    fn an_entry_is_24_bytes_and_a_table_a_power_of_two() {
        assert_eq!(std::mem::size_of::<Option<Entry>>(), 24);
        assert_eq!(size_for(1), 1 << 12);
        assert_eq!(size_for(150_000), 1 << 19);
        assert_eq!(size_for(u64::MAX), 1 << 20);
    }

    #[test]
    fn the_deeper_entry_of_a_position_stays_and_another_position_replaces_it() {
        let mut t = vec![None; 8];
        let entry = |key, depth| Entry {
            key,
            score: 0,
            depth,
            bound: Bound::Exact,
            best: None,
        };
        store(&mut t, entry(3, 4));
        store(&mut t, entry(3, 2));
        assert_eq!(probe(&t, 3, 0).map(|e| e.depth), Some(4));
        store(&mut t, entry(11, 1));
        assert!(probe(&t, 3, 0).is_none());
        assert_eq!(probe(&t, 11, 0).map(|e| e.depth), Some(1));
    }
}
