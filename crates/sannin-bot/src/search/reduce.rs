//! Principal variation search and late move reductions: a node's first child
//! (the best by the ordering) is searched with the node's whole window, every
//! later one first with a null window on the side of the player choosing,
//! which only asks "is it better?"; a quiet child far down the ordering is
//! asked that one or two plies shallower. A child that answers "better" is
//! searched again at full depth with the whole window. (Reinefeld 1983 for
//! the null windows; late move reductions as chess programs use them since
//! the late 1990s.)

use sannin_rules::Played;

use super::Searcher;

/// Children searched at full depth before any reduction.
const FULL_DEPTH_CHILDREN: usize = 3;
/// Nodes nearer the horizon reduce nothing.
const REDUCED_FROM_DEPTH: i32 = 3;
/// From this child on, and this far from the horizon, reduced by two plies.
const DEEPER_FROM: usize = 12;
const DEEPER_DEPTH: i32 = 5;

impl Searcher {
    /// The value of child number `index` (0 = first in the ordering) of a node
    /// searched at `depth` in `(alpha, beta)`; `quiet`: the action captured,
    /// promoted, checked and ended nothing, and is not the table's move.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ordered_child_value(
        &mut self,
        succ: &Played,
        (depth, ply): (i32, i32),
        (alpha, beta): (i32, i32),
        maximizing: bool,
        index: usize,
        quiet: bool,
    ) -> i32 {
        if !self.reductions || index == 0 {
            return self.child_value(succ, depth - 1, ply + 1, alpha, beta);
        }
        let reduction = match () {
            _ if !quiet || depth < REDUCED_FROM_DEPTH || index < FULL_DEPTH_CHILDREN => 0,
            _ if index >= DEEPER_FROM && depth >= DEEPER_DEPTH => 2,
            _ => 1,
        };
        let (null_alpha, null_beta) = if maximizing {
            (alpha, alpha + 1)
        } else {
            (beta - 1, beta)
        };
        let better = |v: i32| if maximizing { v > alpha } else { v < beta };
        let mut v = self.child_value(succ, depth - 1 - reduction, ply + 1, null_alpha, null_beta);
        if reduction > 0 && better(v) && !self.stopped {
            v = self.child_value(succ, depth - 1, ply + 1, null_alpha, null_beta);
        }
        if better(v) && beta - alpha > 1 && !self.stopped {
            v = self.child_value(succ, depth - 1, ply + 1, alpha, beta);
        }
        v
    }
}
