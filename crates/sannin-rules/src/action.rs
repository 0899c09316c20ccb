//! Actions: a move (castling included), a drop, or an illumination (RULES §5–§9).

use crate::cell::Cell;
use crate::piece::Role;

/// One player's action in a turn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Action {
    /// A move of the piece on `from` to `to`; a king's first-move jump within
    /// its territory is castling (RULES §8).
    Move { from: Cell, to: Cell, promote: bool },
    /// A piece from hand put on an empty cell (RULES §6.3).
    Drop { role: Role, to: Cell },
    /// A promoted king's kill by light (RULES §9).
    Illuminate { from: Cell },
}

impl Action {
    /// The cell a piece leaves, for a move.
    pub fn from(self) -> Option<Cell> {
        match self {
            Action::Move { from, .. } => Some(from),
            _ => None,
        }
    }
}
