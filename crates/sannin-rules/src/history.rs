//! Repetition (RULES §12.7): the positions a game has been in, and the key
//! of the position a quiet action leads to, worked out without making it
//! where that can be done.

use crate::action::Action;
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::cell::Cell;
use crate::movegen::{apply, apply_board};
use crate::player::Player;
use crate::position::{Core, Position};

/// Positions a game has been in, for repetition (RULES §12.7).
pub(crate) trait History {
    /// Whether a position with this key and core occurred before.
    fn seen(&self, key: u64, core: &Core) -> bool;
    /// Whether any earlier position had this board hash (a cheap pre-filter).
    fn seen_board(&self, board_hash: u64) -> bool;
    /// Whether a position with this key may have occurred before: true
    /// whenever [`History::seen`] would be for some core with this key.
    fn seen_key(&self, key: u64) -> bool;
    /// Whether there are no earlier positions at all (nothing can repeat).
    fn is_empty(&self) -> bool {
        false
    }
}

impl History for Vec<(u64, Core)> {
    fn seen(&self, key: u64, core: &Core) -> bool {
        self.iter().any(|(k, c)| *k == key && c == core)
    }
    fn seen_board(&self, board_hash: u64) -> bool {
        self.iter().any(|(_, c)| c.board.hash() == board_hash)
    }
    fn seen_key(&self, key: u64) -> bool {
        self.iter().any(|(k, _)| *k == key)
    }
}

/// A game's positions, for repetition: each one's key, board hash and core, the
/// keys and hashes in lists of their own. Every action considered is checked against
/// every earlier position's board hash, so that check reads one compact list rather
/// than stepping through the cores (and grows with a long game by a word a position).
#[derive(Clone, Debug, Default)]
pub(crate) struct Positions {
    keys: Vec<u64>,
    boards: Vec<u64>,
    cores: Vec<Core>,
}

impl Positions {
    /// Adds `core`, whose key is `key`.
    pub(crate) fn push(&mut self, key: u64, core: Core) {
        self.keys.push(key);
        self.boards.push(core.board.hash());
        self.cores.push(core);
    }

    /// The keys, oldest first.
    pub(crate) fn keys(&self) -> &[u64] {
        &self.keys
    }
}

impl History for Positions {
    fn seen(&self, key: u64, core: &Core) -> bool {
        self.keys
            .iter()
            .zip(&self.cores)
            .any(|(k, c)| *k == key && c == core)
    }
    fn seen_board(&self, board_hash: u64) -> bool {
        self.boards.contains(&board_hash)
    }
    fn seen_key(&self, key: u64) -> bool {
        self.keys.contains(&key)
    }
}

/// No earlier positions: a position string's, for [`Position::legal_actions`].
pub(crate) struct NoHistory;

impl History for NoHistory {
    fn is_empty(&self) -> bool {
        true
    }
    fn seen(&self, _: u64, _: &Core) -> bool {
        false
    }
    fn seen_board(&self, _: u64) -> bool {
        false
    }
    fn seen_key(&self, _: u64) -> bool {
        false
    }
}

/// A history plus one more position.
pub(crate) struct With<'a> {
    pub base: &'a dyn History,
    pub key: u64,
    pub core: &'a Core,
}

impl History for With<'_> {
    fn seen(&self, key: u64, core: &Core) -> bool {
        (key == self.key && core == self.core) || self.base.seen(key, core)
    }
    fn seen_board(&self, board_hash: u64) -> bool {
        self.core.board.hash() == board_hash || self.base.seen_board(board_hash)
    }
    fn seen_key(&self, key: u64) -> bool {
        key == self.key || self.base.seen_key(key)
    }
}

/// Positions seen on the way to this one, for searches that track repetition
/// themselves: a slice of [`Position::repetition_key`] values.
pub(crate) struct Keys<'a>(pub &'a [u64]);

impl History for Keys<'_> {
    fn seen(&self, key: u64, _: &Core) -> bool {
        self.0.contains(&key)
    }
    fn seen_board(&self, _: u64) -> bool {
        !self.0.is_empty()
    }
    fn seen_key(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
}

/// The key of the position an action leads to when it forms no alliance and
/// mates no one (RULES §11 steps 1, 4, 7): the only case in which it can
/// repeat an earlier position, since alliances and eliminations never undo.
pub(crate) fn quiet_key(pos: &Position, a: Player, action: Action) -> (u64, Core) {
    let mut core = pos.core.clone();
    let applied = apply(&mut core, a, action);
    for p in Player::ALL {
        if core.castling.contains(p) && core.in_check(p) {
            core.castling.remove(p);
        }
    }
    if applied.moved_king {
        core.castling.remove(a);
    }
    core.to_move = core.next_active(a);
    (core.key(), core)
}

/// [`quiet_key`]'s key alone, for a move or drop: the board's hash without
/// making the action, and a board copy only to settle castling rights.
fn quiet_key_alone(pos: &Position, a: Player, action: Action, board_hash: u64) -> u64 {
    let core = &pos.core;
    let mut castling = core.castling;
    if !castling.is_empty() {
        if let Action::Move { from, .. } = action {
            if core.board.king(a) == Some(from) {
                castling.remove(a);
            }
        }
        // Attacks come along lines (RULES §10.1): a king with none of the
        // action's cells on its lines is in check after it exactly when it
        // was before; the board is made only for the others.
        let touched = match action {
            Action::Move { from, to, .. } => from.bb() | to.bb(),
            _ => action_target(action).bb(),
        };
        let mut after: Option<Board> = None;
        for p in castling.iter() {
            let Some(k) = core.board.king(p) else {
                continue;
            };
            let checked = if (k.lines() & touched).is_empty() {
                pos.in_check(p)
            } else {
                let board = after.get_or_insert_with(|| {
                    let mut board = core.board.clone();
                    apply_board(&mut board, a, action, Bitboard::EMPTY);
                    board
                });
                board.is_attacked(k, core.others(p))
            };
            if checked {
                castling.remove(p);
            }
        }
    }
    core.key_with(board_hash, core.next_active(a), castling)
}

/// Whether [`quiet_key_alone`]'s key was seen. Castling rights are lost for
/// good (RULES §8.2): every earlier position had at least the rights held now,
/// so one that the action repeats has them all, and the rights after the
/// action need to be worked out only when the key with all of them was seen.
pub(crate) fn quiet_key_seen(
    pos: &Position,
    a: Player,
    action: Action,
    board_hash: u64,
    history: &dyn History,
) -> bool {
    let core = &pos.core;
    if !core.castling.is_empty()
        && !history.seen_key(core.key_with(board_hash, core.next_active(a), core.castling))
    {
        return false;
    }
    history.seen_key(quiet_key_alone(pos, a, action, board_hash))
}

/// The cell a move or drop ends on.
fn action_target(action: Action) -> Cell {
    match action {
        Action::Move { to, .. } | Action::Drop { to, .. } => to,
        Action::Illuminate { from } => from,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    /// The compact lists answer every question exactly as the plain list of
    /// `(key, core)` pairs does, for positions seen and not seen.
    #[test]
    fn positions_answer_as_the_plain_list() {
        let mut game = Game::new();
        let mut plain: Vec<(u64, Core)> = Vec::new();
        let mut compact = Positions::default();
        let mut probes = Vec::new();
        for ply in 0..40 {
            let core = game.position().core.clone();
            plain.push((core.key(), core.clone()));
            compact.push(core.key(), core);
            let actions = game.legal_actions();
            if actions.is_empty() {
                break;
            }
            // Every position one action away, seen or not, is asked about.
            for a in &actions {
                if let Ok(next) = game.position().play(*a) {
                    probes.push(next.position.core);
                }
            }
            game.play(actions[(ply * 7) % actions.len()])
                .expect("a legal action plays");
        }
        assert_eq!(
            compact.keys(),
            &plain.iter().map(|(k, _)| *k).collect::<Vec<_>>()[..]
        );
        for core in probes.iter().chain(plain.iter().map(|(_, c)| c)) {
            let (key, board) = (core.key(), core.board.hash());
            assert_eq!(compact.seen(key, core), plain.seen(key, core));
            assert_eq!(compact.seen_board(board), plain.seen_board(board));
            assert_eq!(compact.seen_key(key), plain.seen_key(key));
            assert_eq!(compact.seen_key(key ^ 1), plain.seen_key(key ^ 1));
        }
        assert!(plain.iter().all(|(k, c)| compact.seen(*k, c)));
    }
}
