//! The three players, their order (RULES §2) and per-player containers.

use std::fmt;

/// A player: First, Middle or Last (RULES §2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Player {
    First = 0,
    Middle = 1,
    Last = 2,
}

impl Player {
    /// In play order.
    pub const ALL: [Player; 3] = [Player::First, Player::Middle, Player::Last];

    pub const fn index(self) -> usize {
        self as usize
    }
    pub const fn from_index(i: usize) -> Player {
        match i % 3 {
            0 => Player::First,
            1 => Player::Middle,
            _ => Player::Last,
        }
    }
    /// `F`, `M` or `L` (RULES §13.3).
    pub const fn letter(self) -> char {
        match self {
            Player::First => 'F',
            Player::Middle => 'M',
            Player::Last => 'L',
        }
    }
    /// Owner prefix on the board: `f`, `m` or `l` (RULES §13.3).
    pub const fn owner_char(self) -> char {
        match self {
            Player::First => 'f',
            Player::Middle => 'm',
            Player::Last => 'l',
        }
    }
    pub fn from_letter(c: char) -> Option<Player> {
        match c {
            'F' => Some(Player::First),
            'M' => Some(Player::Middle),
            'L' => Some(Player::Last),
            _ => None,
        }
    }
    pub fn from_owner_char(c: char) -> Option<Player> {
        Player::from_letter(c.to_ascii_uppercase())
    }
    /// `"first"`, `"middle"` or `"last"`: the name in lower case.
    pub const fn lower(self) -> &'static str {
        match self {
            Player::First => "first",
            Player::Middle => "middle",
            Player::Last => "last",
        }
    }
    pub fn from_lower(s: &str) -> Option<Player> {
        Player::ALL.into_iter().find(|p| p.lower() == s)
    }
    /// The next player in play order, First → Middle → Last → First (RULES §2).
    pub const fn next(self) -> Player {
        Player::from_index(self as usize + 1)
    }
    pub(crate) const fn bit(self) -> u8 {
        1 << self as u8
    }
    /// The player that is neither `a` nor `b` (which must differ).
    pub(crate) fn third(a: Player, b: Player) -> Player {
        Player::from_index(3 - a.index() - b.index())
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::First => "First",
            Player::Middle => "Middle",
            Player::Last => "Last",
        })
    }
}

/// A set of players as a bit mask (bit `i` for `Player::from_index(i)`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Players(pub(crate) u8);

impl Players {
    pub const NONE: Players = Players(0);
    pub const ALL: Players = Players(7);

    pub fn contains(self, p: Player) -> bool {
        self.0 & p.bit() != 0
    }
    pub fn insert(&mut self, p: Player) {
        self.0 |= p.bit();
    }
    pub fn remove(&mut self, p: Player) {
        self.0 &= !p.bit();
    }
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = Player> + Clone {
        Player::ALL.into_iter().filter(move |p| self.contains(*p))
    }
    pub fn only(p: Player) -> Players {
        Players(p.bit())
    }
}
