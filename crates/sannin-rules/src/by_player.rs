//! `ByPlayer<T>`: one value per player, named by seat (after shakmaty's `ByColor`).

use std::ops::{Index, IndexMut};

use crate::player::Player;

/// One `T` for each player: `first`, `middle` and `last`, indexed by
/// [`Player`], iterated in play order (RULES §2).
///
/// ```
/// use sannin_rules::{ByPlayer, Player};
/// let mut captured = ByPlayer::new_with(|_| 0u32);
/// captured[Player::Middle] += 2;
/// assert_eq!(captured.middle, 2);
/// assert_eq!(captured.map(|n| n * 10).iter().sum::<u32>(), 20);
/// assert_eq!(captured.find(|&n| n > 0), Some(Player::Middle));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ByPlayer<T> {
    pub first: T,
    pub middle: T,
    pub last: T,
}

impl<T> ByPlayer<T> {
    /// A container holding `f(player)` for each player.
    pub fn new_with(mut f: impl FnMut(Player) -> T) -> ByPlayer<T> {
        ByPlayer {
            first: f(Player::First),
            middle: f(Player::Middle),
            last: f(Player::Last),
        }
    }

    /// The value of `p`.
    #[inline]
    pub const fn get(&self, p: Player) -> &T {
        match p {
            Player::First => &self.first,
            Player::Middle => &self.middle,
            Player::Last => &self.last,
        }
    }

    /// The value of `p`, mutably.
    #[inline]
    pub fn get_mut(&mut self, p: Player) -> &mut T {
        match p {
            Player::First => &mut self.first,
            Player::Middle => &mut self.middle,
            Player::Last => &mut self.last,
        }
    }

    /// Applies `f` to each value, in play order.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByPlayer<U> {
        ByPlayer {
            first: f(self.first),
            middle: f(self.middle),
            last: f(self.last),
        }
    }

    /// Each value paired with its player.
    pub fn zip_player(self) -> ByPlayer<(Player, T)> {
        ByPlayer {
            first: (Player::First, self.first),
            middle: (Player::Middle, self.middle),
            last: (Player::Last, self.last),
        }
    }

    /// References to the values.
    pub const fn as_ref(&self) -> ByPlayer<&T> {
        ByPlayer {
            first: &self.first,
            middle: &self.middle,
            last: &self.last,
        }
    }

    /// The values in play order: First, Middle, Last.
    pub fn iter(&self) -> std::array::IntoIter<&T, 3> {
        [&self.first, &self.middle, &self.last].into_iter()
    }

    /// The values in play order, mutably.
    pub fn iter_mut(&mut self) -> std::array::IntoIter<&mut T, 3> {
        [&mut self.first, &mut self.middle, &mut self.last].into_iter()
    }

    /// The first player in play order whose value satisfies `pred`.
    pub fn find(&self, mut pred: impl FnMut(&T) -> bool) -> Option<Player> {
        Player::ALL.into_iter().find(|&p| pred(self.get(p)))
    }
}

impl<T> Index<Player> for ByPlayer<T> {
    type Output = T;
    #[inline]
    fn index(&self, p: Player) -> &T {
        self.get(p)
    }
}

impl<T> IndexMut<Player> for ByPlayer<T> {
    #[inline]
    fn index_mut(&mut self, p: Player) -> &mut T {
        self.get_mut(p)
    }
}

impl<T> IntoIterator for ByPlayer<T> {
    type Item = T;
    type IntoIter = std::array::IntoIter<T, 3>;
    fn into_iter(self) -> Self::IntoIter {
        [self.first, self.middle, self.last].into_iter()
    }
}

impl<'a, T> IntoIterator for &'a ByPlayer<T> {
    type Item = &'a T;
    type IntoIter = std::array::IntoIter<&'a T, 3>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexing_follows_the_fields() {
        let mut b = ByPlayer::new_with(|p| p.letter());
        assert_eq!((b.first, b.middle, b.last), ('F', 'M', 'L'));
        for p in Player::ALL {
            assert_eq!(b[p], p.letter());
        }
        b[Player::Last] = 'x';
        assert_eq!(b.last, 'x');
        assert_eq!(b.iter().copied().collect::<String>(), "FMx");
        let z: Vec<_> = b.zip_player().into_iter().collect();
        assert_eq!(z[1], (Player::Middle, 'M'));
    }
}
