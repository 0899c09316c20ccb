//! Best-reply search (Schadd & Winands 2011) for the opponents' turns of a
//! free-for-all: one minimising layer holding either opponent's actions, the
//! other opponent passing, so that the root player moves every second ply.

use sannin_rules::{Action, Played, Position, Role};

use super::{Searcher, INF};
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
        mut beta: i32,
        tt_move: Option<Action>,
    ) -> i32 {
        let key = pos.repetition_key();
        let (alpha0, beta0) = (alpha, beta);
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
        let mut children: Vec<(i32, usize, Action, Option<Played>)> =
            Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for (i, (src, actions)) in sources.iter().zip(&lists).enumerate() {
            for &a in actions {
                if depth >= 2 {
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
        let mut best = INF;
        let mut best_move = None;
        for k in BestFirst::new(&children, |c| c.0) {
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
            let v = self.child_value(&succ, depth - 1, ply + 1, alpha, beta);
            if self.stopped {
                return 0;
            }
            if v < best {
                best = v;
                best_move = Some(a);
            }
            beta = beta.min(v);
            if alpha >= beta {
                self.add_killer(uply, a, &sources[i]);
                break;
            }
        }
        if best_move.is_none() {
            return self.eval(pos);
        }
        self.store_result(key, best, depth, (alpha0, beta0), best_move)
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
