//! A set of cells as one `u128` (127 cells fit; RULES §1).

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

use crate::cell::Cell;

/// A set of cells.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub(crate) u128);

const ALL: u128 = (1u128 << 127) - 1;

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn any(self) -> bool {
        self.0 != 0
    }
    pub fn contains(self, c: Cell) -> bool {
        self.0 & (1u128 << c.index()) != 0
    }
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }
    pub fn set(&mut self, c: Cell) {
        self.0 |= 1u128 << c.index();
    }
    pub fn clear(&mut self, c: Cell) {
        self.0 &= !(1u128 << c.index());
    }
    pub fn first(self) -> Option<Cell> {
        if self.0 == 0 {
            None
        } else {
            Some(Cell::new_unchecked(self.0.trailing_zeros() as u8))
        }
    }
    pub fn iter(self) -> BitIter {
        BitIter(self.0)
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Cells of a [`Bitboard`] in index order.
pub struct BitIter(u128);

impl Iterator for BitIter {
    type Item = Cell;
    #[inline]
    fn next(&mut self) -> Option<Cell> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Cell::new_unchecked(i as u8))
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 | o.0)
    }
}
impl BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & o.0)
    }
}
impl BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, o: Bitboard) {
        self.0 |= o.0;
    }
}
impl BitAndAssign for Bitboard {
    fn bitand_assign(&mut self, o: Bitboard) {
        self.0 &= o.0;
    }
}
impl Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & ALL)
    }
}
