//! Paranoid alpha-beta search (Sturtevant & Korf 2000): the player to move at
//! the root (with its ally, while an alliance stands) maximises, everyone else
//! is assumed to play against it and minimises. That turns three players into
//! two sides, so alpha-beta pruning applies. Iterative deepening under a node
//! budget, a transposition table on [`Position::repetition_key`] (`table`), captures,
//! promotions and killers first (and, two plies or more from the horizon,
//! every child played and sorted by its evaluation, checks first), and a
//! capture-only quiescence search at the horizon (`quiesce`). With
//! [`Searcher::with_reductions`] (level 5), null windows and late move
//! reductions (`reduce`), the table's move searched before the other
//! children are played, a check at the horizon searched one ply more, and
//! futility pruning one ply from the horizon ([`Searcher::futile`]).

use std::time::Instant;

use sannin_rules::{Action, Event, Played, Player, Position};

use crate::best_first::BestFirst;
use crate::eval::{evaluate_with, piece_value, same_side, Weights, WIN, WIN_BOUND};

mod best_reply;
mod quiesce;
mod reduce;
mod table;
mod window;

use table::{Bound, Entry};
use window::Window;

const INF: i32 = WIN + 1;
/// Deepest iteration tried (the node budget stops far earlier in practice).
const MAX_DEPTH: i32 = 32;
/// Plies from the root within which a check at the horizon is searched one
/// ply more ([`Searcher::extends_check`]); the limit keeps a run of checks
/// from searching on and on.
const MAX_EXTENDED_PLY: i32 = 10;
/// Plies of captures searched past the horizon.
const QDEPTH: i32 = 3;
/// From this far from the horizon on, every child is played and evaluated to
/// order them (nearer, a cheap score of the action orders them).
const ORDER_DEPTH: i32 = 2;

/// How far below the window a maximising node one ply from the horizon must
/// stand for its quiet actions to be skipped ([`Searcher::futile`]).
const FUTILITY_MARGIN: i32 = 250;
/// Cheap ordering scores of the two killers (`order_score`); any score below
/// the second's is a quiet action: not a capture, promotion, illumination,
/// killer or the table's move.
const KILLER_SCORES: [i32; 2] = [40_000, 39_000];
const QUIET_BELOW: i32 = KILLER_SCORES[1];

/// What a search found.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub action: Action,
    /// For the root player's side, in centipawn-like units; `±(WIN - ply)` for
    /// a forced win or loss.
    pub score: i32,
    /// Deepest iteration completed (1 = every action and its capture replies).
    pub depth: i32,
    /// Actions played during the search.
    pub nodes: u64,
}

/// One search: owns its table and counters (no global state, so any number
/// can run at once on any threads).
pub struct Searcher {
    me: Player,
    tt: Vec<Option<Entry>>,
    keys: Vec<u64>,
    killers: Vec<[Option<Action>; 2]>,
    /// Action lists reused from node to node (one per ply in use).
    buffers: Vec<Vec<Action>>,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    may_stop: bool,
    stopped: bool,
    /// Best-reply search at the opponents' nodes of a free-for-all.
    brs: bool,
    /// BRS+: the opponent not searched plays its best capture instead of passing.
    brs_plus: bool,
    /// Principal variation search and late move reductions (`reduce`).
    reductions: bool,
    weights: Weights,
    /// Root variety: margin in centipawns, and the seed of the pick.
    variety: (i32, u64),
}

/// One root action with its successor and latest score.
struct RootChild {
    action: Action,
    succ: Played,
    score: i32,
}

impl Searcher {
    /// `earlier`: repetition keys of the game so far, the current position last.
    pub fn new(me: Player, earlier: Vec<u64>, budget: u64, deadline: Option<Instant>) -> Searcher {
        Searcher {
            me,
            tt: vec![None; table::size_for(budget)],
            keys: earlier,
            killers: vec![[None; 2]; 64],
            buffers: Vec::new(),
            nodes: 0,
            budget,
            deadline,
            may_stop: false,
            stopped: false,
            brs: false,
            brs_plus: false,
            reductions: false,
            weights: Weights::DEFAULT,
            variety: (0, 0),
        }
    }

    /// Plays any root action scoring within `margin` of the best (chosen
    /// by `seed`) instead of always the best, except a forced win or loss:
    /// the root's window is widened by `margin` so that those scores are
    /// exact.
    pub fn with_variety(mut self, margin: i32, seed: u64) -> Searcher {
        self.variety = (margin.max(0), seed);
        self
    }

    /// Evaluates with these weights instead of [`Weights::DEFAULT`].
    pub fn with_weights(mut self, weights: Weights) -> Searcher {
        self.weights = weights;
        self
    }

    /// BRS+ (Esser, Gras, Winands, Schadd and Lanctot, "Improving Best-Reply
    /// Search", Computers and Games 2013): in a best-reply layer the opponent
    /// whose actions are not searched plays the action its move ordering
    /// ranks first instead of passing its turn, so that the searched
    /// positions are ones the game can reach. Here that action is its most
    /// valuable capture (an illumination, or a capture of an undefended
    /// piece or of a piece worth more than the capturer); with none, it
    /// passes as in plain best-reply search. Implies [`Searcher::best_reply`].
    pub fn best_reply_plus(mut self) -> Searcher {
        self.brs = true;
        self.brs_plus = true;
        self
    }

    /// Null windows after a node's first child, late quiet children searched
    /// shallower first (`reduce`), and the table's move searched before the
    /// other children are played to order them.
    pub fn with_reductions(mut self) -> Searcher {
        self.reductions = true;
        self
    }

    fn eval(&self, pos: &Position) -> i32 {
        evaluate_with(&self.weights, pos, self.me)
    }

    /// Searches the opponents' turns of a free-for-all as best-reply search
    /// (Schadd & Winands 2011): one layer holding the actions of both
    /// opponents, the one not acting passing its turn, so that the root
    /// player's own moves come every second ply instead of every third.
    /// While an alliance stands, or with two players left, the game has two
    /// sides and the search stays paranoid, where paranoid is exact.
    pub fn best_reply(mut self) -> Searcher {
        self.brs = true;
        self
    }

    /// Counts one played action; false once the search must stop. The node
    /// budget is the normal stop (deterministic); the deadline is a safety net
    /// checked every 256 nodes. Neither applies before the first iteration ends.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if !self.may_stop || self.stopped {
            return !self.stopped;
        }
        if self.nodes >= self.budget {
            self.stopped = true;
        } else if self.nodes % 256 == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                }
            }
        }
        !self.stopped
    }

    fn friend(&self, pos: &Position, p: Player) -> bool {
        same_side(pos, self.me, p)
    }

    /// A game-ending (for us) successor: won, lost, or `me` eliminated.
    fn terminal(&self, succ: &Played, ply: i32) -> Option<i32> {
        if let Some(o) = &succ.outcome {
            return Some(if o.winners.is_empty() {
                0
            } else if o.winners.contains(&self.me) {
                WIN - ply
            } else {
                -WIN + ply
            });
        }
        if !succ.position.is_active(self.me) {
            return Some(-WIN + ply);
        }
        None
    }

    /// The best action the table holds for the position with this key, if
    /// any (not checked for legality: a key collision is possible).
    pub fn table_move(&self, key: u64) -> Option<Action> {
        table::probe(&self.tt, key, 0).and_then(|e| e.best)
    }

    /// Stores the `best` score of the node with this key `ply` plies from
    /// the root, searched in the window `(alpha0, beta0)`, as the bound it
    /// is; returns it.
    fn store_result(
        &mut self,
        (key, ply): (u64, i32),
        best: i32,
        depth: i32,
        (alpha0, beta0): (i32, i32),
        best_move: Option<Action>,
    ) -> i32 {
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let entry = Entry {
            key,
            score: table::to_table(best, ply),
            depth: depth.clamp(0, i8::MAX as i32) as i8,
            bound,
            best: best_move,
        };
        table::store(&mut self.tt, entry);
        best
    }

    /// Cheap ordering score of an action before playing it: the table's move,
    /// illuminations and captures (most valuable victim, least valuable
    /// attacker), promotions, killers.
    fn order_score(&self, pos: &Position, a: Action, tt_move: Option<Action>, ply: usize) -> i32 {
        if Some(a) == tt_move {
            return 1 << 30;
        }
        let killers = self.killers.get(ply).copied().unwrap_or_default();
        let killer = if killers[0] == Some(a) {
            KILLER_SCORES[0]
        } else if killers[1] == Some(a) {
            KILLER_SCORES[1]
        } else {
            0
        };
        match a {
            Action::Illuminate { .. } => 200_000,
            Action::Move { from, to, promote } => {
                let Some(mover) = pos.piece_at(from) else {
                    return 0;
                };
                let mut s = killer;
                if let Some(victim) = pos.piece_at(to) {
                    if !same_side(pos, mover.owner, victim.owner) {
                        s += 100_000 + 10 * piece_value(victim.role, victim.promoted)
                            - piece_value(mover.role, mover.promoted) / 10;
                    }
                }
                if promote {
                    s += 50_000 + piece_value(mover.role, true) - piece_value(mover.role, false);
                }
                s
            }
            Action::Drop { .. } => killer,
        }
    }

    fn is_capture(pos: &Position, a: Action) -> Option<i32> {
        match a {
            Action::Illuminate { .. } => Some(600),
            Action::Move { from, to, .. } => {
                let mover = pos.piece_at(from)?;
                let victim = pos.piece_at(to)?;
                (!same_side(pos, mover.owner, victim.owner)).then(|| {
                    10 * piece_value(victim.role, victim.promoted)
                        - piece_value(mover.role, mover.promoted) / 10
                })
            }
            Action::Drop { .. } => None,
        }
    }

    fn add_killer(&mut self, ply: usize, a: Action, pos: &Position) {
        if Self::is_capture(pos, a).is_some() {
            return;
        }
        if let Some(k) = self.killers.get_mut(ply) {
            if k[0] != Some(a) {
                k[1] = k[0];
                k[0] = Some(a);
            }
        }
    }

    /// The value of a child: terminal, or searched with the child's key on the path.
    fn child_value(&mut self, succ: &Played, depth: i32, ply: i32, alpha: i32, beta: i32) -> i32 {
        if let Some(v) = self.terminal(succ, ply) {
            return v;
        }
        self.keys.push(succ.position.repetition_key());
        let depth = if self.extends_check(succ, depth, ply) {
            1
        } else {
            depth
        };
        let v = if depth <= 0 {
            self.quiesce(&succ.position, ply, alpha, beta, QDEPTH)
        } else {
            self.search(&succ.position, depth, ply, alpha, beta)
        };
        self.keys.pop();
        v
    }

    /// Whether the child `succ`, reached at the horizon (`depth` 0 or less),
    /// is searched one ply more: at level 5, past the first iteration and
    /// before [`MAX_EXTENDED_PLY`], when its player to move stands in check.
    /// The capture search would judge that player by standing still, which a
    /// player in check cannot do: its replies decide what the check wins.
    fn extends_check(&self, succ: &Played, depth: i32, ply: i32) -> bool {
        let to_move = succ.position.to_move();
        self.reductions
            && self.may_stop
            && depth <= 0
            && ply < MAX_EXTENDED_PLY
            && succ
                .events
                .iter()
                .any(|e| matches!(e, Event::Check { player, .. } if Some(*player) == to_move))
    }

    /// Futility pruning (level 5): whether a maximising node one ply from
    /// the horizon, not in check, stands [`FUTILITY_MARGIN`] or more below
    /// `alpha`, so that its quiet actions (no capture, promotion,
    /// illumination, killer or table move) are not played: each would be
    /// judged by the capture search after it, and seldom gains that much.
    fn futile(&self, pos: &Position, depth: i32, alpha: i32, maximizing: bool) -> bool {
        self.reductions
            && maximizing
            && depth == 1
            && alpha.abs() < WIN_BOUND
            && pos.to_move().is_some_and(|p| !pos.in_check(p))
            && self.eval(pos) + FUTILITY_MARGIN <= alpha
    }

    /// Alpha-beta on `pos` (whose key is the last of `self.keys`).
    fn search(&mut self, pos: &Position, depth: i32, ply: i32, alpha: i32, beta: i32) -> i32 {
        let Some(to_move) = pos.to_move() else {
            return self.eval(pos);
        };
        let key = pos.repetition_key();
        let mut tt_move = None;
        if let Some(e) = table::probe(&self.tt, key, ply) {
            tt_move = e.best;
            if e.depth as i32 >= depth {
                match e.bound {
                    Bound::Exact => return e.score,
                    Bound::Lower if e.score >= beta => return e.score,
                    Bound::Upper if e.score <= alpha => return e.score,
                    _ => {}
                }
            }
        }
        let maximizing = self.friend(pos, to_move);
        if self.brs && !maximizing && pos.active_count() == 3 && pos.alliance().is_none() {
            return self.best_reply_node(pos, depth, ply, alpha, beta, tt_move);
        }
        let mut w = Window::new(maximizing, alpha, beta);
        let mut actions = self.buffers.pop().unwrap_or_default();
        pos.legal_actions_into(&mut actions);
        let uply = ply as usize;

        // The table's move first, on its own: when it cuts, the other
        // children are never played.
        let mut searched = 0;
        let tt_first = (self.reductions && depth >= ORDER_DEPTH)
            .then_some(tt_move)
            .flatten()
            .filter(|m| actions.contains(m));
        if let Some(a) = tt_first {
            if !self.tick() {
                self.buffers.push(actions);
                return 0;
            }
            if let Some(succ) = pos.play_unchecked(a, &self.keys) {
                let v =
                    self.ordered_child_value(&succ, (depth, ply), w.bounds(), maximizing, 0, false);
                if self.stopped {
                    self.buffers.push(actions);
                    return 0;
                }
                searched = 1;
                if w.update(v, a) {
                    self.buffers.push(actions);
                    return self.cut(pos, a, (depth, uply), key, &w);
                }
            }
        }

        // Far from the horizon, play every child first and sort by its
        // evaluation for the mover (checks and wins first): good ordering is
        // worth more there than the plays it costs.
        let mut children: Vec<(i32, Action, Option<Played>)> = Vec::with_capacity(actions.len());
        if depth >= ORDER_DEPTH {
            for &a in actions.iter().filter(|&&a| Some(a) != tt_first) {
                if !self.tick() {
                    self.buffers.push(actions);
                    return 0;
                }
                let Some(s) = pos.play_unchecked(a, &self.keys) else {
                    continue;
                };
                let mut g = match self.terminal(&s, ply + 1) {
                    Some(v) => v,
                    None => self.eval(&s.position),
                };
                if !maximizing {
                    g = -g;
                }
                let checks = s.events.iter().any(|e| {
                    matches!(e, Event::Check { player, .. } if !same_side(pos, to_move, *player))
                });
                if checks {
                    g += 300;
                }
                if Some(a) == tt_move {
                    g = INF + 1;
                }
                children.push((g, a, Some(s)));
            }
        } else {
            for &a in &actions {
                children.push((self.order_score(pos, a, tt_move, uply), a, None));
            }
        }
        self.buffers.push(actions);
        let futile = self.futile(pos, depth, alpha, maximizing);

        for (index, i) in BestFirst::new(&children, |c| c.0).enumerate() {
            let (order, a, ref mut succ) = children[i];
            // Children come best first: past the last loud one, all are quiet.
            if futile && order < QUIET_BELOW {
                break;
            }
            let succ = match succ.take() {
                Some(s) => s,
                None => {
                    if !self.tick() {
                        return 0;
                    }
                    match pos.play_unchecked(a, &self.keys) {
                        Some(s) => s,
                        None => continue,
                    }
                }
            };
            let quiet = succ.events.is_empty() && Some(a) != tt_move;
            let v = self.ordered_child_value(
                &succ,
                (depth, ply),
                w.bounds(),
                maximizing,
                index + searched,
                quiet,
            );
            if self.stopped {
                return 0;
            }
            if w.update(v, a) {
                return self.cut(pos, a, (depth, uply), key, &w);
            }
        }
        let Window {
            best,
            best_move,
            alpha0,
            beta0,
            ..
        } = w;
        if best_move.is_none() {
            // Every action repeats a position of the line: judge it statically.
            return self.eval(pos);
        }
        self.store_result((key, ply), best, depth, (alpha0, beta0), best_move)
    }

    /// A node cut off by action `a` of the player to move in `pos`: the action
    /// remembered as a killer, the bound stored.
    fn cut(
        &mut self,
        pos: &Position,
        a: Action,
        (depth, uply): (i32, usize),
        key: u64,
        w: &Window,
    ) -> i32 {
        self.add_killer(uply, a, pos);
        self.store_result(
            (key, uply as i32),
            w.best,
            depth,
            (w.alpha0, w.beta0),
            w.best_move,
        )
    }

    /// A win in one, else a mate in one of an opponent that does not lose
    /// the game (the best evaluated if several): taken at once. Without this
    /// rule an elimination scores as evaluation, not as a win, and a search
    /// may put off a mate it sees to a later ply that never comes.
    fn kill_now(&self, pos: &Position, children: &[RootChild]) -> Option<Found> {
        let found = |c: &RootChild, score| Found {
            action: c.action,
            score,
            depth: 1,
            nodes: self.nodes,
        };
        if let Some(c) = children
            .iter()
            .find(|c| self.terminal(&c.succ, 1).is_some_and(|v| v >= WIN_BOUND))
        {
            return Some(found(c, WIN - 1));
        }
        children
            .iter()
            .filter(|c| {
                c.succ.outcome.is_none()
                    && c.succ.position.is_active(self.me)
                    && c.succ.position.active_count() < pos.active_count()
            })
            .map(|c| (self.eval(&c.succ.position), c))
            .max_by_key(|(v, _)| *v)
            .map(|(v, c)| found(c, v))
    }

    /// Iterative deepening from `pos` (the game's current position, whose
    /// legal actions, repetition included, are `actions`, already shuffled
    /// for tie-breaking). `None` only when `actions` is empty.
    pub fn run(&mut self, pos: &Position, actions: Vec<Action>) -> Option<Found> {
        let mut children: Vec<RootChild> = Vec::with_capacity(actions.len());
        for a in actions {
            self.tick();
            if let Some(succ) = pos.play_unchecked(a, &self.keys) {
                children.push(RootChild {
                    action: a,
                    succ,
                    score: 0,
                });
            }
        }
        if children.is_empty() {
            return None;
        }
        if self.brs {
            if let Some(f) = self.kill_now(pos, &children) {
                return Some(f);
            }
        }
        let mut found: Option<Found> = None;
        let margin = self.variety.0;
        // The root actions and scores of the last finished iteration.
        let mut finished_scores: Vec<(i32, Action)> = Vec::new();
        for depth in 1..=MAX_DEPTH {
            let mut alpha = -INF;
            let mut best_this: Option<usize> = None;
            let mut finished = true;
            for (i, child) in children.iter_mut().enumerate() {
                let low = if alpha > -INF { alpha - margin } else { alpha };
                let v = if self.reductions && margin == 0 && i > 0 {
                    let v = self.child_value(&child.succ, depth - 1, 1, low, low + 1);
                    if v > low && !self.stopped {
                        self.child_value(&child.succ, depth - 1, 1, low, INF)
                    } else {
                        v
                    }
                } else {
                    self.child_value(&child.succ, depth - 1, 1, low, INF)
                };
                if self.stopped {
                    finished = false;
                    break;
                }
                child.score = v;
                if v > alpha {
                    alpha = v;
                    best_this = Some(i);
                }
            }
            // The first iteration always finishes: it sees every mate in one.
            self.may_stop = true;
            if let Some(i) = best_this {
                // Paranoia sees a forced loss whenever both opponents together
                // can mate; they rarely cooperate that well, so a deeper "all
                // lose" does not overrule a shallower choice that did not lose.
                let despair =
                    children[i].score <= -WIN_BOUND && found.is_some_and(|f| f.score > -WIN_BOUND);
                if despair {
                    break;
                }
                // In an unfinished iteration this is still sound: the previous
                // best is searched first, and only a better score replaces it.
                found = Some(Found {
                    action: children[i].action,
                    score: children[i].score,
                    depth: if finished { depth } else { depth - 1 },
                    nodes: self.nodes,
                });
            }
            if !finished {
                break;
            }
            // Best first for the next iteration; a stable sort keeps the
            // shuffled order among equals.
            children.sort_by_key(|c| -c.score);
            if margin > 0 {
                finished_scores.clear();
                finished_scores.extend(children.iter().map(|c| (c.score, c.action)));
            }
            let top = children[0].score;
            if top.abs() >= WIN_BOUND || children.len() == 1 || self.nodes >= self.budget {
                break;
            }
        }
        if let Some(f) = &mut found {
            f.nodes = self.nodes;
            // Variety only when the last finished iteration's best stands.
            if let Some(&(top, _)) = finished_scores.first().filter(|&&(_, a)| a == f.action) {
                let mut rng = crate::Rng::new(self.variety.1);
                if let Some((score, action)) =
                    crate::pick_within(&finished_scores, top, margin, &mut rng)
                {
                    f.action = action;
                    f.score = score;
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests;
