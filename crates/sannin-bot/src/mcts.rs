//! Monte Carlo tree search with max^n backup and Progressive History
//! (J. Nijssen and M. Winands, "Enhancements for multi-player Monte-Carlo
//! tree search", Computers and Games 2010).
//!
//! Each iteration walks down the tree from the root, at each node taking the
//! child best for the player to move there (its mean reward plus the UCT
//! exploration term and the Progressive History bias), expands one action not
//! yet tried (captures first), evaluates the new position for every player at
//! once, and adds each player's reward to every node of the path (max^n: a
//! node keeps one reward per player, and each chooser reads its own). The
//! evaluation stands in for the random playout, which in a shogi game says
//! little: each player's [`eval::team_value`] through a logistic curve, 1 for
//! a winner and 0 for an eliminated player or a loser.
//!
//! The budget counts actions played, as the alpha-beta searches' does; the
//! action chosen is the root's most visited child.

use std::collections::HashMap;
use std::time::Instant;

use sannin_rules::{Action, Player, Position};

use crate::eval::{self, Weights};
use crate::rng::Rng;

/// UCT's exploration constant (rewards lie in 0..1).
const EXPLORE: f64 = 0.35;
/// Progressive History's weight.
const HISTORY: f64 = 2.0;
/// Centipawns that move a reward from 0.5 to about 0.73 (a logistic curve).
const SCALE: f64 = 400.0;

struct Node {
    pos: Position,
    /// Actions not expanded yet, the next one last; `None` until the node is
    /// first expanded (most leaves never are).
    untried: Option<Vec<Action>>,
    children: Vec<usize>,
    /// The action from the parent and who played it.
    from: Option<(Player, Action)>,
    visits: u32,
    /// Each player's summed reward (by `Player::index`).
    sum: [f64; 3],
    /// A finished game's rewards: the node is a leaf.
    end: Option<[f64; 3]>,
}

/// The search's answer.
pub(crate) struct Found {
    pub action: Action,
    /// The root player's mean reward at the chosen child, as centipawns
    /// through the inverse of the logistic curve.
    pub score: i32,
    /// The deepest node reached below the root.
    pub depth: i32,
    pub nodes: u64,
}

pub(crate) struct Mcts<'a> {
    weights: &'a Weights,
    /// The game's repetition keys, then those of the current path.
    keys: Vec<u64>,
    budget: u64,
    deadline: Option<Instant>,
    rng: Rng,
    nodes: u64,
    tree: Vec<Node>,
    /// Progressive History: each player's summed reward and count per action.
    history: HashMap<(Player, Action), (f64, u32)>,
    /// Each player's evaluation at the root: rewards measure the change from
    /// it, so that a position far from even does not flatten every reward
    /// against 0 or 1.
    base: [i32; 3],
}

impl<'a> Mcts<'a> {
    pub fn new(
        weights: &'a Weights,
        keys: Vec<u64>,
        budget: u64,
        deadline: Option<Instant>,
        rng: Rng,
    ) -> Mcts<'a> {
        Mcts {
            weights,
            keys,
            budget,
            deadline,
            rng,
            nodes: 0,
            tree: Vec::new(),
            history: HashMap::new(),
            base: [0; 3],
        }
    }

    /// Searches `root` (its player to move is the root player); `None` when it
    /// has no legal action.
    pub fn run(mut self, root: &Position) -> Option<Found> {
        let me = root.to_move()?;
        self.base = self.values(root);
        let untried = ordered(root, &mut self.rng);
        if untried.is_empty() {
            return None;
        }
        self.tree.push(Node {
            pos: root.clone(),
            untried: Some(untried),
            children: Vec::new(),
            from: None,
            visits: 0,
            sum: [0.0; 3],
            end: None,
        });
        let game_keys = self.keys.len();
        let mut depth = 0;
        let mut path = Vec::new();
        let mut iterations = 0u64;
        while self.nodes < self.budget {
            iterations += 1;
            if iterations % 64 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            path.clear();
            self.keys.truncate(game_keys);
            let mut at = 0;
            path.push(at);
            // Selection: down through nodes with every action expanded.
            while self.tree[at].end.is_none()
                && self.tree[at].untried.as_ref().is_some_and(Vec::is_empty)
            {
                let Some(next) = self.select(at) else { break };
                at = next;
                self.keys.push(self.tree[at].pos.repetition_key());
                path.push(at);
            }
            depth = depth.max(path.len() as i32 - 1);
            let reward = match self.tree[at].end {
                Some(r) => r,
                None => match self.expand(at) {
                    Some((child, r)) => {
                        path.push(child);
                        depth = depth.max(path.len() as i32 - 1);
                        r
                    }
                    // Every remaining action was refused (repetition): the
                    // node is judged as it stands.
                    None => self.reward(&self.tree[at].pos),
                },
            };
            for &i in &path {
                let n = &mut self.tree[i];
                n.visits += 1;
                for (s, r) in n.sum.iter_mut().zip(reward) {
                    *s += r;
                }
                if let Some((p, a)) = n.from {
                    let h = self.history.entry((p, a)).or_insert((0.0, 0));
                    h.0 += reward[p.index()];
                    h.1 += 1;
                }
            }
            if self.tree[0].children.is_empty()
                && self.tree[0].untried.as_ref().is_some_and(Vec::is_empty)
            {
                break;
            }
        }
        let best = self.tree[0]
            .children
            .iter()
            .copied()
            .max_by_key(|&c| self.tree[c].visits)?;
        let node = &self.tree[best];
        let mean = node.sum[me.index()] / f64::from(node.visits.max(1));
        let (_, action) = node.from?;
        Some(Found {
            action,
            score: to_centipawns(mean, self.base[me.index()]),
            depth,
            nodes: self.nodes,
        })
    }

    /// The child of `at` best for its player to move.
    fn select(&self, at: usize) -> Option<usize> {
        let node = &self.tree[at];
        let p = node.pos.to_move()?;
        let ln_n = f64::from(node.visits.max(1)).ln();
        let mut best = None;
        let mut best_value = f64::NEG_INFINITY;
        for &c in &node.children {
            let child = &self.tree[c];
            let n = f64::from(child.visits.max(1));
            let mean = child.sum[p.index()] / n;
            let history = child
                .from
                .and_then(|k| self.history.get(&k))
                .map_or(0.5, |&(s, k)| s / f64::from(k.max(1)));
            let value =
                mean + EXPLORE * (ln_n / n).sqrt() + HISTORY * history / (n * (1.0 - mean) + 1.0);
            if value > best_value {
                best_value = value;
                best = Some(c);
            }
        }
        best
    }

    /// Plays the next untried action of `at` that the rules accept; the new
    /// child and its rewards.
    fn expand(&mut self, at: usize) -> Option<(usize, [f64; 3])> {
        if self.tree[at].untried.is_none() {
            let actions = ordered(&self.tree[at].pos, &mut self.rng);
            self.tree[at].untried = Some(actions);
        }
        while let Some(a) = self.tree[at].untried.as_mut().and_then(Vec::pop) {
            self.nodes += 1;
            let parent = &self.tree[at].pos;
            let Some(p) = parent.to_move() else { break };
            let Some(succ) = parent.play_unchecked(a, &self.keys) else {
                continue;
            };
            let (reward, end) = match &succ.outcome {
                Some(o) => {
                    let mut r = [0.0; 3];
                    if o.winners.is_empty() {
                        r = [1.0 / 3.0; 3];
                    }
                    for w in &o.winners {
                        r[w.index()] = 1.0;
                    }
                    (r, Some(r))
                }
                None => (self.reward(&succ.position), None),
            };
            let untried = end.map(|_| Vec::new());
            let child = self.tree.len();
            self.tree.push(Node {
                pos: succ.position,
                untried,
                children: Vec::new(),
                from: Some((p, a)),
                visits: 0,
                sum: [0.0; 3],
                end,
            });
            self.tree[at].children.push(child);
            return Some((child, reward));
        }
        None
    }

    /// Each active player's evaluation of `pos` (0 for the others).
    fn values(&self, pos: &Position) -> [i32; 3] {
        let scores = eval::player_scores(self.weights, pos);
        let mut v = [0; 3];
        for p in pos.active_players() {
            v[p.index()] = eval::team_value(self.weights, pos, p, &scores);
        }
        v
    }

    /// Each player's reward for a position where the game goes on: its
    /// evaluation's change from the root through a logistic curve; 0 for an
    /// eliminated player.
    fn reward(&self, pos: &Position) -> [f64; 3] {
        let v = self.values(pos);
        let mut r = [0.0; 3];
        for p in pos.active_players() {
            let gain = f64::from(v[p.index()] - self.base[p.index()]);
            r[p.index()] = 1.0 / (1.0 + (-gain / SCALE).exp());
        }
        r
    }
}

/// The legal actions of `pos` in the order they are expanded (the next one
/// last): captures first, then the rest; each group in a random order.
fn ordered(pos: &Position, rng: &mut Rng) -> Vec<Action> {
    let mut all = Vec::new();
    pos.legal_actions_into(&mut all);
    let mut captures = Vec::new();
    pos.legal_captures_into(&mut captures);
    all.retain(|a| !captures.contains(a));
    rng.shuffle(&mut all);
    rng.shuffle(&mut captures);
    all.extend(captures);
    all
}

/// A mean reward back as centipawns from the root's evaluation.
fn to_centipawns(mean: f64, base: i32) -> i32 {
    let m = mean.clamp(1e-6, 1.0 - 1e-6);
    base + (SCALE * (m / (1.0 - m)).ln()).round() as i32
}

#[cfg(test)]
mod tests {
    use sannin_rules::{notation, Game, Position};

    use crate::{choose_with, Engine, Limits};

    fn mcts(nodes: u64) -> Engine {
        format!("mcts:{nodes}").parse().expect("an engine")
    }

    #[test]
    fn finds_the_mate_in_one() {
        // The position of `tests/master.rs`: of 246 legal actions only the gold
        // drop on 3d mates First's king (and wins).
        let s = "m+L2fP1fS1/1f+P2fP3/m+P2fPfR2fK1/mP4fP4/2f+L3fP1m+R2/9fS1m+L/5fP3mGm+S2/3mP3fP1fSfG1/mNm+PmP3f+LmP1fP1/1mPmP2mP4/7mN1/mL3mK3/3fG3 M -/BG/- FM - -";
        let pos: Position = s.parse().expect("valid position");
        let game = Game::from_position(pos.clone());
        let c = choose_with(&game, &mcts(3_000), 1, Limits::default()).expect("an action");
        assert_eq!(
            notation::format(&pos, c.action).ok().as_deref(),
            Some("G*3d")
        );
        assert!(
            c.nodes <= 3_000 && c.depth >= 1,
            "{} nodes, depth {}",
            c.nodes,
            c.depth
        );
    }

    #[test]
    fn plays_legal_actions_from_the_start() {
        let mut game = Game::new();
        for seed in 0..4 {
            let c = choose_with(&game, &mcts(300), seed, Limits::default()).expect("an action");
            assert!(game.legal_actions().contains(&c.action));
            game.play(c.action).expect("legal");
        }
    }
}
