//! Perft: the number of legal action sequences of a given length (RULES §4
//! gives 48, 2,302 and 110,365 for depths 1–3 from the start).

use crate::action::Action;
use crate::movegen::{pseudo_actions, SafetyTest};
use crate::notation::canonical;
use crate::play::{is_fully_legal, resolve, NoHistory};
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
                &history as &dyn crate::play::History,
            ))
        } else {
            child(pos, a, depth, &mut history, &mut Vec::new())
        };
        if depth == 0 {
            continue;
        }
        if n > 0 || is_fully_legal(pos, a, &history as &dyn crate::play::History) {
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
    match resolve(pos, a, &*history as &dyn crate::play::History, true) {
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
    let mut actions = buffers.pop().unwrap_or_else(|| Vec::with_capacity(256));
    actions.clear();
    pseudo_actions(&pos.core, p, &mut actions);
    let test = SafetyTest::new(&pos.core, p);
    let repeats = depth == 1 && may_repeat(history, &pos.core, p);
    let mut n = 0;
    for &a in &actions {
        if !test.is_legal(&pos.core, p, a) {
            continue;
        }
        n += if depth == 1 {
            u64::from(match a {
                Action::Illuminate { .. } => {
                    is_fully_legal(pos, a, &*history as &dyn crate::play::History)
                }
                _ if repeats => is_fully_legal(pos, a, &*history as &dyn crate::play::History),
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
