//! Legality (RULES §10.3, §6.5, §12.7): the test of §11 step 1, whether an
//! action is legal in full, and the legal actions of a position.

use std::ops::ControlFlow;

use crate::action::Action;
use crate::bitboard::Bitboard;
use crate::cell::Cell;
use crate::error::IllegalAction;
use crate::history::{quiet_key, quiet_key_seen, History, NoHistory};
use crate::movegen::{
    any_action, is_safe_after, landing, opens_line_to, pseudo_actions, visit_moves, SafetyTest,
};
use crate::piece::{Piece, Role};
use crate::play::resolve;
use crate::player::Player;
use crate::position::{Core, Position};

/// Step 1 and the §10.3 test, with the reason when it fails.
pub(crate) fn check_safety(core: &Core, p: Player) -> Result<(), IllegalAction> {
    if is_safe_after(&core.board, core.alliance, p) {
        return Ok(());
    }
    if let Some(k) = core.board.king(p) {
        let attackers = core.board.attackers_of(k, core.others(p));
        if attackers.any() {
            return Err(IllegalAction::LeavesKingInCheck {
                by: attackers.iter().collect(),
            });
        }
    }
    let ally = core
        .ally(p)
        .expect("the other failure is checking the ally");
    Err(IllegalAction::ChecksAlly(ally))
}

/// Whether `a`'s action passes §10.3 without looking at the board after it:
/// `a` is not in check, and the action is a drop or a move of another piece
/// than the king that opens no line to the king (a move from a cell on one of
/// its lines is looked at along that line alone); and while `a` is allied,
/// no piece of `a` attacks its ally's king now, the action does not take that
/// king, the moved or dropped piece does not attack it from where it lands,
/// and a move leaves no cell on its lines (§12.5). Attacks come along lines
/// (RULES §10.1), and such an action opens none to either king.
pub(crate) fn stays_safe(pos: &Position, a: Player, action: Action) -> bool {
    let board = &pos.core.board;
    let Some(k) = board.king(a) else {
        return false;
    };
    let (from, to) = match action {
        Action::Move { from, to, .. } => (Some(from), to),
        Action::Drop { to, .. } => (None, to),
        Action::Illuminate { .. } => return false,
    };
    let off_lines = |king: Cell| from.is_none_or(|f| f != king && !king.lines().contains(f));
    if from == Some(k) || pos.in_check(a) {
        return false;
    }
    if let Some(f) = from.filter(|_| !off_lines(k)) {
        if opens_line_to(board, a, k, f, to) {
            return false;
        }
    }
    let Some(kq) = pos.core.ally(a).and_then(|q| board.king(q)) else {
        return true;
    };
    let l = landing(board, a, action).expect("a move or drop");
    l.to != kq
        && off_lines(kq)
        && !board.attacks_of(l.code, l.to, l.occ).contains(kq)
        && !pos.is_attacked_by(kq, a)
}

/// Whether a pseudo-legal action that passes §10.3 is legal in full: not a
/// pawn-drop mate (§6.5) and no repetition (§12.7).
pub(crate) fn is_fully_legal(pos: &Position, action: Action, history: &dyn History) -> bool {
    let a = pos.core.to_move.expect("a player to move");
    let pawn_check = match action {
        Action::Drop {
            role: Role::Pawn,
            to,
        } => {
            let pawn = Piece::new(a, Role::Pawn, false);
            let att = pos
                .core
                .board
                .attacks_of(pawn.code(), to, pos.core.board.occupied());
            pos.core
                .active
                .iter()
                .any(|p| p != a && pos.core.board.king(p).is_some_and(|k| att.contains(k)))
        }
        _ => false,
    };
    if !pawn_check {
        if history.is_empty() {
            return true;
        }
        // No earlier board equals the new one: nothing can repeat.
        if let Some(h) = pos.core.board.hash_after(a, action) {
            if !history.seen_board(h) {
                return true;
            }
            if !quiet_key_seen(pos, a, action, h, history) {
                return true;
            }
        }
        let (key, core) = quiet_key(pos, a, action);
        if !history.seen(key, &core) {
            return true;
        }
    }
    resolve(pos, action, history, false).is_ok()
}

/// Every legal action of the player to move (RULES §10.3, §6.5, §12.7).
pub(crate) fn legal_actions(pos: &Position, history: &dyn History) -> Vec<Action> {
    let mut v = Vec::with_capacity(128);
    legal_actions_into(pos, history, &mut v);
    v
}

/// [`legal_actions`] into `out`, cleared first.
pub(crate) fn legal_actions_into(pos: &Position, history: &dyn History, out: &mut Vec<Action>) {
    out.clear();
    let Some(p) = pos.core.to_move else {
        return;
    };
    pseudo_actions(&pos.core, p, out);
    let test = SafetyTest::new(&pos.core, p);
    out.retain(|&a| test.is_legal(&pos.core, p, a) && is_fully_legal(pos, a, history));
}

/// Whether the player to move has any legal action, repetition included.
pub(crate) fn has_fully_legal_action(pos: &Position, history: &dyn History) -> bool {
    pos.core
        .to_move
        .is_some_and(|p| legal_action_exists(pos, history, p, None))
}

/// [`has_fully_legal_action`] for `p`, the player to move; `in_check` tells
/// whether `p` is in check when the caller knows it already.
pub(crate) fn legal_action_exists(
    pos: &Position,
    history: &dyn History,
    p: Player,
    in_check: Option<bool>,
) -> bool {
    let core = &pos.core;
    // The usual case first: not allied and not in check, a move of a piece
    // off the king's twelve lines opens no line to it and passes §10.3
    // without a board copy (see `SafetyTest`), and finding the pins is
    // not needed to try those pieces.
    if let Some(k) = core.board.king(p) {
        if !core.alliance.contains(p) && !in_check.unwrap_or_else(|| pos.in_check(p)) {
            let free = core.board.of(p) & !k.lines() & !k.bb();
            let found = visit_moves(core, p, free, !Bitboard::EMPTY, &mut |a| {
                if is_fully_legal(pos, a, history) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            if found.is_break() {
                return true;
            }
        }
    }
    let test = SafetyTest::new(&pos.core, p);
    any_action(&pos.core, p, &test, |a| {
        test.is_legal(&pos.core, p, a) && is_fully_legal(pos, a, history)
    })
}

impl Position {
    /// The legal actions of the player to move, judging repetition against
    /// nothing (a position string has no history; use [`crate::Game`] for a game).
    pub fn legal_actions(&self) -> Vec<Action> {
        legal_actions(self, &NoHistory)
    }
}
