//! A node's window and its best child so far.

use sannin_rules::Action;

use super::INF;

/// A node's window and the best child so far, for the side to move.
pub(super) struct Window {
    pub(super) maximizing: bool,
    pub(super) alpha: i32,
    pub(super) beta: i32,
    /// The window the node was searched in.
    pub(super) alpha0: i32,
    pub(super) beta0: i32,
    pub(super) best: i32,
    pub(super) best_move: Option<Action>,
}

impl Window {
    pub(super) fn new(maximizing: bool, alpha: i32, beta: i32) -> Window {
        Window {
            maximizing,
            alpha,
            beta,
            alpha0: alpha,
            beta0: beta,
            best: if maximizing { -INF } else { INF },
            best_move: None,
        }
    }

    pub(super) fn bounds(&self) -> (i32, i32) {
        (self.alpha, self.beta)
    }

    /// Takes a child's value; true when it cuts the node off.
    pub(super) fn update(&mut self, v: i32, a: Action) -> bool {
        if self.maximizing {
            if v > self.best {
                self.best = v;
                self.best_move = Some(a);
            }
            self.alpha = self.alpha.max(v);
        } else {
            if v < self.best {
                self.best = v;
                self.best_move = Some(a);
            }
            self.beta = self.beta.min(v);
        }
        self.alpha >= self.beta
    }
}
