//! `Setup`: any arrangement of pieces, hands and flags, unchecked. A
//! [`Position`](crate::Position) is made from one by the fallible
//! [`Position::from_setup`](crate::Position::from_setup) (after shakmaty's
//! `Setup` → `Position`).

use std::collections::BTreeMap;

use crate::by_player::ByPlayer;
use crate::cell::Cell;
use crate::piece::{Piece, Role};
use crate::player::Player;

/// The pieces one player holds in hand (RULES §6), by kind. A king is never in hand.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Hand {
    pub rook: u8,
    pub bishop: u8,
    pub gold: u8,
    pub silver: u8,
    pub knight: u8,
    pub lance: u8,
    pub pawn: u8,
}

impl Hand {
    /// How many pieces of kind `role` the hand holds (0 for the king).
    pub const fn get(&self, role: Role) -> u8 {
        match role {
            Role::King => 0,
            Role::Rook => self.rook,
            Role::Bishop => self.bishop,
            Role::Gold => self.gold,
            Role::Silver => self.silver,
            Role::Knight => self.knight,
            Role::Lance => self.lance,
            Role::Pawn => self.pawn,
        }
    }

    /// The count of kind `role`, to change; `None` for the king.
    pub fn get_mut(&mut self, role: Role) -> Option<&mut u8> {
        Some(match role {
            Role::King => return None,
            Role::Rook => &mut self.rook,
            Role::Bishop => &mut self.bishop,
            Role::Gold => &mut self.gold,
            Role::Silver => &mut self.silver,
            Role::Knight => &mut self.knight,
            Role::Lance => &mut self.lance,
            Role::Pawn => &mut self.pawn,
        })
    }

    /// Whether the hand holds nothing.
    pub fn is_empty(&self) -> bool {
        Role::HAND.iter().all(|&r| self.get(r) == 0)
    }
}

/// A position as plain data: whatever the fields say, checked only when
/// [`Position::from_setup`](crate::Position::from_setup) turns it into a
/// playable position. The fields are those of the position string (RULES §13.3).
///
/// `Setup::default()` is an empty board with nobody active and nobody to move.
///
/// ```
/// use sannin_rules::{ByPlayer, Piece, Player, Position, Role, Setup};
/// let mut setup = Setup::default();
/// setup.active = ByPlayer::new_with(|p| p != Player::Last);
/// setup.to_move = Some(Player::First);
/// setup.board.insert("1d".parse()?, Piece::new(Player::First, Role::King, false));
/// setup.board.insert("10m".parse()?, Piece::new(Player::Middle, Role::King, false));
/// setup.hands.first.pawn = 2;
/// let pos = Position::from_setup(setup)?;
/// assert_eq!(pos.hand(Player::First, Role::Pawn), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Default, Debug)]
pub struct Setup {
    /// The pieces on the board.
    pub board: BTreeMap<Cell, Piece>,
    /// The pieces in hand.
    pub hands: ByPlayer<Hand>,
    /// The player to move; `None` for a finished game.
    pub to_move: Option<Player>,
    /// Whether each player is still in the game (not eliminated).
    pub active: ByPlayer<bool>,
    /// The two allies, if an alliance stands (RULES §12).
    pub alliance: Option<(Player, Player)>,
    /// Whether each player still holds the castling right (RULES §8).
    pub castling: ByPlayer<bool>,
}
