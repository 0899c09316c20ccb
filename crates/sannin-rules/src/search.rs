//! The API for searches and perft: legal actions into a caller's buffer,
//! captures only, a lazy "any legal action", and the active players without
//! allocating. Same answers as [`Position::legal_actions`] and
//! [`Position::active`], judged the same way (no earlier positions, so no
//! repetition; a search passes its line to [`Position::play_unchecked`]).

use std::ops::ControlFlow;

use crate::action::Action;
use crate::bitboard::Bitboard;
use crate::history::NoHistory;
use crate::legal::{has_fully_legal_action, legal_actions_into};
use crate::movegen::{visit_moves, SafetyTest};
use crate::player::Player;
use crate::position::Position;

impl Position {
    /// [`Position::legal_actions`] into `out` (cleared first), in the same order.
    pub fn legal_actions_into(&self, out: &mut Vec<Action>) {
        legal_actions_into(self, &NoHistory, out);
    }

    /// The legal actions that capture: moves (castling included) onto a piece
    /// of another player, an ally's included (RULES §12.5), and
    /// illuminations (§9). Into `out` (cleared first), in the order of
    /// [`Position::legal_actions`]; only those actions are generated.
    pub fn legal_captures_into(&self, out: &mut Vec<Action>) {
        out.clear();
        let Some(p) = self.core.to_move else {
            return;
        };
        let core = &self.core;
        let test = SafetyTest::new(core, p);
        let others = core.board.occupied() & !core.board.of(p);
        // A capture is never a pawn drop and, with no earlier positions,
        // never a repetition: §10.3 is the whole test (see `is_fully_legal`).
        let _ = visit_moves(core, p, core.board.of(p), others, &mut |a| {
            if test.is_legal(core, p, a) {
                out.push(a);
            }
            ControlFlow::Continue(())
        });
    }

    /// Whether the player to move has a legal action, as
    /// `!legal_actions().is_empty()` but stopping at the first one found.
    pub fn has_legal_action(&self) -> bool {
        has_fully_legal_action(self, &NoHistory)
    }

    /// The cells attacked by the pieces of `by` (RULES §10.1):
    /// [`Position::attacks`] as a set, without the allocation.
    #[inline]
    pub fn attacked_cells(&self, by: Player) -> Bitboard {
        self.attack_map(by).all()
    }

    /// The cells holding a piece of `p`.
    #[inline]
    pub fn occupied_by(&self, p: Player) -> Bitboard {
        self.core.board.of(p)
    }

    /// How many pieces of `p` stand on the board, by kind: at index
    /// `role as usize + 8 * promoted as usize` (an evaluation's material
    /// without a pass over the board).
    #[inline]
    pub fn piece_counts(&self, p: Player) -> [u8; 16] {
        self.core.board.counts(p)
    }

    /// The cells holding a piece of anyone.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.core.board.occupied()
    }

    /// Whether `p` is still in the game (not eliminated).
    #[inline]
    pub fn is_active(&self, p: Player) -> bool {
        self.core.active.contains(p)
    }

    /// How many players are still in the game.
    #[inline]
    pub fn active_count(&self) -> usize {
        self.core.active.len() as usize
    }

    /// The players still in the game, in play order ([`Position::active`]
    /// without the allocation).
    #[inline]
    pub fn active_players(&self) -> impl Iterator<Item = Player> + Clone + '_ {
        self.core.active.iter()
    }

    /// The same board with the turn passed to the next active player: not
    /// an action of the game (the rules have no pass), but the "null move"
    /// of searches that let one opponent move while the other waits, such as
    /// best-reply search. The result has no last action (so no double attack
    /// can build on it, RULES §12.3) and shares this position's attack maps.
    /// `None` when the game is over.
    pub fn with_turn_passed(&self) -> Option<Position> {
        let p = self.core.to_move?;
        let mut core = self.core.clone();
        core.to_move = core.next_active(p);
        Some(Position {
            core,
            last: None,
            attacks: self.attacks.clone(),
        })
    }
}
