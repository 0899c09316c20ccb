//! The capture-only search at the horizon.

use sannin_rules::{Action, Position, Role};

use super::Searcher;
use crate::eval::{piece_value, same_side};

impl Searcher {
    /// Captures (and illuminations) only, with standing pat, `qdepth` plies deep.
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        ply: i32,
        mut alpha: i32,
        mut beta: i32,
        qdepth: i32,
    ) -> i32 {
        let stand = self.eval(pos);
        let Some(to_move) = pos.to_move() else {
            return stand;
        };
        if qdepth <= 0 {
            return stand;
        }
        let maximizing = self.friend(pos, to_move);
        if maximizing {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        } else {
            if stand <= alpha {
                return stand;
            }
            beta = beta.min(stand);
        }
        // Only captures worth a look: of an undefended piece or of anything
        // but a pawn, and (delta pruning) able to reach the window at all;
        // illuminations always. Only captures are generated.
        let window = if maximizing { alpha } else { beta };
        let mut buf = self.buffers.pop().unwrap_or_default();
        pos.legal_captures_into(&mut buf);
        let mut captures: Vec<(i32, Action)> = Vec::with_capacity(buf.len());
        for &a in &buf {
            if let Action::Move { to, .. } = a {
                let Some(x) = pos.piece_at(to) else { continue };
                if x.role == Role::King
                    || same_side(pos, to_move, x.owner)
                    || !pos.is_attacked_by(to, to_move)
                {
                    continue;
                }
                let v = piece_value(x.role, x.promoted);
                let hopeful = if maximizing {
                    stand + 2 * v + 200 > window
                } else {
                    stand - 2 * v - 200 < window
                };
                if !hopeful || (v <= 100 && pos.is_attacked_by(to, x.owner)) {
                    continue;
                }
            }
            if let Some(s) = Self::is_capture(pos, a) {
                captures.push((s, a));
            }
        }
        self.buffers.push(buf);
        captures.sort_by_key(|c| -c.0);
        let mut best = stand;
        for (_, a) in captures {
            if !self.tick() {
                return 0;
            }
            let Some(succ) = pos.play_unchecked(a, &self.keys) else {
                continue;
            };
            let v = match self.terminal(&succ, ply + 1) {
                Some(v) => v,
                None => {
                    self.keys.push(succ.position.repetition_key());
                    let v = self.quiesce(&succ.position, ply + 1, alpha, beta, qdepth - 1);
                    self.keys.pop();
                    v
                }
            };
            if self.stopped {
                return 0;
            }
            if maximizing {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}
