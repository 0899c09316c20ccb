//! The API for searches and perft: legal actions into a caller's buffer,
//! captures only, a lazy "any legal action", and the active players without
//! allocating. Same answers as [`Position::legal_actions`] and
//! [`Position::active`], judged the same way (no earlier positions, so no
//! repetition; a search passes its line to [`Position::play_unchecked`]).

use crate::action::Action;
use crate::player::Player;
use crate::position::Position;

impl Position {
    /// [`Position::legal_actions`] into `out` (cleared first), in the same order.
    pub fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        out.extend(self.legal_actions());
    }

    /// The legal actions that capture: moves (castling included) onto a piece
    /// of another player, an ally's included (RULES §12.5), and
    /// illuminations (§9). Into `out` (cleared first), in the order of
    /// [`Position::legal_actions`].
    pub fn legal_captures_into(&self, out: &mut Vec<Action>) {
        out.clear();
        let me = self.core.to_move;
        out.extend(self.legal_actions().into_iter().filter(|&a| match a {
            Action::Move { to, .. } => self.core.board.get(to).is_some_and(|x| Some(x.owner) != me),
            Action::Illuminate { .. } => true,
            Action::Drop { .. } => false,
        }));
    }

    /// Whether the player to move has a legal action: `!legal_actions().is_empty()`.
    pub fn has_legal_action(&self) -> bool {
        !self.legal_actions().is_empty()
    }

    /// Whether `p` is still in the game (not eliminated).
    pub fn is_active(&self, p: Player) -> bool {
        self.core.active.contains(p)
    }

    /// How many players are still in the game.
    pub fn active_count(&self) -> usize {
        self.core.active.len() as usize
    }

    /// The players still in the game, in play order ([`Position::active`]
    /// without the allocation).
    pub fn active_players(&self) -> impl Iterator<Item = Player> + '_ {
        self.core.active.iter()
    }
}
