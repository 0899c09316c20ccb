//! Perft: the number of legal action sequences of a given length (RULES §4
//! gives 48, 2,302 and 110,365 for depths 1–3 from the start).

use std::ops::ControlFlow;

use crate::action::Action;
use crate::bitboard::Bitboard;
use crate::cell::{around, far_edge, Cell};
use crate::history::{History, NoHistory};
use crate::legal::is_fully_legal;
use crate::movegen::{promotion_zone, pseudo_actions, visit_drops, visit_moves, SafetyTest};
use crate::notation::canonical;
use crate::piece::{Piece, Role};
use crate::play::resolve;
use crate::player::Player;
use crate::position::{Core, Position};

/// Counts legal action sequences of length `depth` from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut history = vec![(pos.core.key(), pos.core.clone())];
    count(pos, depth, &mut history, &mut Vec::new())
}

/// Perft split by first action: `(canonical action, count)`.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let Some(p) = pos.core.to_move else {
        return Vec::new();
    };
    let mut history = vec![(pos.core.key(), pos.core.clone())];
    let mut out = Vec::new();
    for a in root_actions(pos) {
        let n = if depth <= 1 {
            u64::from(is_fully_legal(
                pos,
                a,
                &history as &dyn crate::history::History,
            ))
        } else {
            child(pos, a, depth, &mut history, &mut Vec::new())
        };
        if depth == 0 {
            continue;
        }
        if n > 0 || is_fully_legal(pos, a, &history as &dyn crate::history::History) {
            out.push((canonical(&pos.core, p, a), n));
        }
    }
    out
}

fn root_actions(pos: &Position) -> Vec<Action> {
    let Some(p) = pos.core.to_move else {
        return Vec::new();
    };
    let mut v = Vec::with_capacity(128);
    pseudo_actions(&pos.core, p, &mut v);
    let test = SafetyTest::new(&pos.core, p);
    v.retain(|&a| test.is_legal(&pos.core, p, a));
    v
}

/// Action buffers reused from one position to the next (one per ply in use).
type Buffers = Vec<Vec<Action>>;

fn child(
    pos: &Position,
    a: Action,
    depth: u32,
    history: &mut Vec<(u64, Core)>,
    buffers: &mut Buffers,
) -> u64 {
    match resolve(pos, a, &*history as &dyn crate::history::History, true) {
        Ok(r) => {
            history.push((r.position.core.key(), r.position.core.clone()));
            let n = count(&r.position, depth - 1, history, buffers);
            history.pop();
            n
        }
        Err(_) => 0,
    }
}

fn count(pos: &Position, depth: u32, history: &mut Vec<(u64, Core)>, buffers: &mut Buffers) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some(p) = pos.core.to_move else {
        return 0;
    };
    let test = SafetyTest::new(&pos.core, p);
    let repeats = depth == 1 && may_repeat(history, &pos.core, p);
    if depth == 1 && !repeats {
        return count_leaves(pos, p, &test, &*history as &dyn History);
    }
    let mut actions = buffers.pop().unwrap_or_else(|| Vec::with_capacity(256));
    actions.clear();
    pseudo_actions(&pos.core, p, &mut actions);
    let mut n = 0;
    for &a in &actions {
        if !test.is_legal(&pos.core, p, a) {
            continue;
        }
        n += if depth == 1 {
            u64::from(match a {
                Action::Illuminate { .. } => {
                    is_fully_legal(pos, a, &*history as &dyn crate::history::History)
                }
                _ if repeats => is_fully_legal(pos, a, &*history as &dyn crate::history::History),
                // Only a pawn drop can still be illegal (RULES §6.5).
                Action::Drop { .. } => is_fully_legal(pos, a, &NoHistory),
                _ => true,
            })
        } else {
            child(pos, a, depth, history, buffers)
        };
    }
    buffers.push(actions);
    n
}

/// Whether a move or drop of `p` from `core` could lead to a position of
/// `history` (RULES §12.7). Such an action puts a piece of `p` on one cell
/// where `p` had none, takes one off at most (the cell left), takes at most
/// one other player's piece off (the one captured) and puts none of theirs
/// on; an earlier board that `core`'s does not turn into that way is not
/// reached (promotion changes no owner).
fn may_repeat(history: &[(u64, Core)], core: &Core, p: Player) -> bool {
    history.iter().any(|(_, c)| {
        Player::ALL.into_iter().all(|q| {
            let (old, now) = (c.board.of(q).0, core.board.of(q).0);
            let put = (old & !now).count_ones();
            let taken = (now & !old).count_ones();
            taken <= 1 && if q == p { put == 1 } else { put == 0 }
        })
    })
}

/// The legal actions of `p` on `pos` when none can repeat a position (see
/// [`may_repeat`]), counted without making them where the count is known.
/// Not in check and not allied, every move of a piece other than the king
/// and not pinned passes §10.3 (see [`SafetyTest`]) and is legal: its
/// targets are counted at once, twice where it may promote (RULES §7) and
/// not where an unpromoted pawn or lance would have no move (§7.3); every
/// drop is legal except a pawn drop that mates (§6.5), possible only next
/// to another player's king, where it is tested. The rest is tested action
/// by action.
fn count_leaves(pos: &Position, p: Player, test: &SafetyTest, history: &dyn History) -> u64 {
    let core = &pos.core;
    let b = &core.board;
    let own = b.of(p);
    let all = !Bitboard::EMPTY;
    let mut n: u64 = 0;
    let mut slow = own;
    if test.quiet {
        let occ = b.occupied();
        let blocked = own | b.kings();
        let king = test.king.map_or(Bitboard::EMPTY, Cell::bb);
        let fast = own & !king & !test.pinned;
        for from in fast.iter() {
            let code = b.code(from);
            let piece = Piece::from_code(code);
            let targets = b.attacks_of(code, from, occ) & !blocked;
            let dead = if !piece.promoted && matches!(piece.role, Role::Pawn | Role::Lance) {
                far_edge(p)
            } else {
                Bitboard::EMPTY
            };
            let promoting =
                if piece.role.can_promote() && !piece.promoted && !core.alliance.contains(p) {
                    let zone = promotion_zone(p, piece.role);
                    if zone.contains(from) {
                        targets
                    } else {
                        targets & zone
                    }
                } else {
                    Bitboard::EMPTY
                };
            n += u64::from((targets & !dead).count() + promoting.count());
        }
        slow = own & !fast;
    }
    let _ = visit_moves(core, p, slow, all, &mut |a| {
        let legal = test.is_legal(core, p, a)
            && match a {
                // Illuminations only empty cells: `may_repeat` does not cover them.
                Action::Illuminate { .. } => is_fully_legal(pos, a, history),
                _ => true,
            };
        n += u64::from(legal);
        ControlFlow::Continue(())
    });
    if test.quiet {
        let empty = !b.occupied();
        let mut near_kings = Bitboard::EMPTY;
        for k in (b.kings() & !own).iter() {
            near_kings |= around(k);
        }
        for role in Role::HAND {
            if b.hand(p, role) == 0 {
                continue;
            }
            let cells = if matches!(role, Role::Pawn | Role::Lance) {
                empty & !far_edge(p)
            } else {
                empty
            };
            if role == Role::Pawn {
                n += u64::from((cells & !near_kings).count());
                for to in (cells & near_kings).iter() {
                    n += u64::from(is_fully_legal(pos, Action::Drop { role, to }, &NoHistory));
                }
            } else {
                n += u64::from(cells.count());
            }
        }
    } else {
        let _ = visit_drops(core, p, all, &mut |a| {
            n += u64::from(test.is_legal(core, p, a) && is_fully_legal(pos, a, &NoHistory));
            ControlFlow::Continue(())
        });
    }
    n
}
