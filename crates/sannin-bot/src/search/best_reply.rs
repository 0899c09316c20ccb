//! Best-reply search (Schadd & Winands 2011) for the opponents' turns of a
//! free-for-all: one minimising layer holding either opponent's actions, the
//! other opponent passing, so that the root player moves every second ply.

use sannin_rules::{Action, Played, Position, Role};

use super::{Searcher, Window, INF, ORDER_DEPTH};
use crate::best_first::BestFirst;
use crate::eval::{piece_value, same_side};

impl Searcher {
    /// A best-reply layer: `pos` has an opponent of the root player to move;
    /// the actions of that opponent (the other then passes) and of the other
    /// opponent (after this one passes) are searched as one minimising node
    /// whose children all have the root player to move.
    pub(super) fn best_reply_node(
        &mut self,
        pos: &Position,
        depth: i32,
        ply: i32,
        alpha: i32,
        beta: i32,
        tt_move: Option<Action>,
    ) -> i32 {
        let key = pos.repetition_key();
        let mut sources: Vec<Position> = vec![pos.clone()];
        let second = match self.brs_plus.then(|| self.first_capture(pos)).flatten() {
            Some(s) => Some(s.position),
            None => pos.with_turn_passed(),
        };
        if let Some(second) = second {
            if second.to_move() != Some(self.me) {
                sources.push(second);
            }
        }
        let uply = ply as usize;
        // (ordering score, source index, action, successor if already played)
        // Both sources' actions first, so that the children (large once
        // played) are never moved to a larger buffer.
        let lists: Vec<Vec<Action>> = sources
            .iter()
            .map(|src| {
                let mut actions = self.buffers.pop().unwrap_or_default();
                src.legal_actions_into(&mut actions);
                actions
            })
            .collect();
        let mut w = Window::new(false, alpha, beta);
        // The table's move first, on its own: when it cuts, the other
        // children are never played.
        let mut searched = 0;
        let tt_first = (self.reductions && depth >= ORDER_DEPTH)
            .then_some(tt_move)
            .flatten()
            .filter(|m| lists[0].contains(m));
        if let Some(a) = tt_first {
            if !self.tick() {
                self.buffers.extend(lists);
                return 0;
            }
            if let Some(succ) = self.play_to_me(&sources[0], a) {
                let v = self.ordered_child_value(&succ, (depth, ply), w.bounds(), false, 0, false);
                if self.stopped {
                    self.buffers.extend(lists);
                    return 0;
                }
                searched = 1;
                if w.update(v, a) {
                    self.buffers.extend(lists);
                    return self.cut(&sources[0], a, (depth, uply), key, &w);
                }
            }
        }
        let mut children: Vec<(i32, usize, Action, Option<Played>)> =
            Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for (i, (src, actions)) in sources.iter().zip(&lists).enumerate() {
            for &a in actions {
                if i == 0 && Some(a) == tt_first {
                    continue;
                }
                if depth >= ORDER_DEPTH {
                    if !self.tick() {
                        self.buffers.extend(lists);
                        return 0;
                    }
                    let Some(s) = self.play_to_me(src, a) else {
                        continue;
                    };
                    let mut g = match self.terminal(&s, ply + 1) {
                        Some(v) => -v,
                        None => -self.eval(&s.position),
                    };
                    if Some(a) == tt_move && i == 0 {
                        g = INF + 1;
                    }
                    children.push((g, i, a, Some(s)));
                } else {
                    let g = self.order_score(src, a, tt_move, uply);
                    children.push((g, i, a, None));
                }
            }
        }
        self.buffers.extend(lists);
        for (index, k) in BestFirst::new(&children, |c| c.0).enumerate() {
            let (_, i, a, ref mut succ) = children[k];
            let succ = match succ.take() {
                Some(s) => s,
                None => {
                    if !self.tick() {
                        return 0;
                    }
                    match self.play_to_me(&sources[i], a) {
                        Some(s) => s,
                        None => continue,
                    }
                }
            };
            let quiet = succ.events.is_empty() && !(i == 0 && Some(a) == tt_move);
            let v = self.ordered_child_value(
                &succ,
                (depth, ply),
                w.bounds(),
                false,
                index + searched,
                quiet,
            );
            if self.stopped {
                return 0;
            }
            if w.update(v, a) {
                return self.cut(&sources[i], a, (depth, uply), key, &w);
            }
        }
        if w.best_move.is_none() {
            return self.eval(pos);
        }
        self.store_result((key, ply), w.best, depth, (w.alpha0, w.beta0), w.best_move)
    }

    /// Plays an opponent's action from `src`, then passes the other
    /// opponent's turn, if it comes next, so that the root player moves
    /// (under BRS+ that opponent takes its best capture instead, if it has one).
    fn play_to_me(&self, src: &Position, a: Action) -> Option<Played> {
        let mover = src.to_move()?;
        let mut s = src.play_unchecked(a, &self.keys)?;
        if s.outcome.is_none() {
            if let Some(t) = s.position.to_move() {
                if t != self.me && t != mover && s.position.active_count() == 3 {
                    s.position = match self.brs_plus.then(|| self.first_capture(&s.position)) {
                        Some(Some(c)) => c.position,
                        _ => s.position.with_turn_passed()?,
                    };
                }
            }
        }
        Some(s)
    }

    /// BRS+'s ordered-first action of the player to move in a free-for-all:
    /// its most valuable capture of an undefended piece or of a piece worth
    /// more than the capturer, played; `None` when there is none, or when it
    /// would end the game or eliminate someone (those the search meets as
    /// actions of their own).
    fn first_capture(&self, pos: &Position) -> Option<Played> {
        let mover = pos.to_move()?;
        let mut buf = Vec::new();
        pos.legal_captures_into(&mut buf);
        let mut best: Option<(i32, Action)> = None;
        for &a in &buf {
            let Action::Move { from, to, .. } = a else {
                continue;
            };
            let (Some(x), Some(victim)) = (pos.piece_at(from), pos.piece_at(to)) else {
                continue;
            };
            if victim.role == Role::King || same_side(pos, mover, victim.owner) {
                continue;
            }
            let v = piece_value(victim.role, victim.promoted);
            let cost = piece_value(x.role, x.promoted);
            if v <= cost && pos.is_attacked_by(to, victim.owner) {
                continue;
            }
            let score = 10 * v - cost / 10;
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, a));
            }
        }
        let (_, a) = best?;
        let s = pos.play_unchecked(a, &self.keys)?;
        (s.outcome.is_none() && s.position.active_count() == pos.active_count()).then_some(s)
    }
}
