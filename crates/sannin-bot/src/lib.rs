//! Computer players for sannin shogi.
//!
//! [`choose`] picks an action for the player to move in a [`Game`]:
//!
//! | level | name | play |
//! |---|---|---|
//! | 0 | Random | a random legal action |
//! | 1 | Beginner | greedy: the action whose resulting position evaluates best (mates and captures first), with a penalty for leaving the moved piece hanging |
//! | 2 | Casual | paranoid alpha-beta search, small node budget ([`Level::nodes`]) |
//! | 3 | Strong | the same search with a larger budget (about 0.25 s a move on average, rarely over 1 s, on one core) |
//! | 4 | Master | best-reply search in the free-for-all, paranoid search once the game has two sides; wins and mates in one taken at once; about level 3's time a move |
//!
//! The searches:
//!
//! - *Paranoid search* (N. Sturtevant and R. Korf, "On pruning techniques for
//!   multi-player games", AAAI 2000): the root player's side maximises, every
//!   other player minimises, which makes a three-player game a two-sided one
//!   and lets alpha-beta prune. It is exact while an alliance stands (two
//!   teams, RULES §12.5) or when two players are left, and pessimistic in a
//!   free-for-all, where it must look three plies ahead to see the root
//!   player's next move.
//! - *Best-reply search* (M. Schadd and M. Winands, "Best Reply Search for
//!   multiplayer games", IEEE Trans. Computational Intelligence and AI in
//!   Games 3(1), 2011): at the opponents' turn only the single strongest
//!   action of either opponent is considered, the other passing its turn, so
//!   the root player moves every second ply and a search of the same size
//!   sees one more of its own moves. Level 4 uses it for the free-for-all
//!   (`Searcher::best_reply`); its measured strength against level 3 is in
//!   the README ("Bot strength"). BRS+ (Esser et al., "Improving Best-Reply
//!   Search", CG 2013) and Monte Carlo tree search with max^n backup and
//!   Progressive History (Nijssen and Winands 2011) are not implemented.
//!
//! [`arena`] plays matches between levels and rates them (`sannin selfplay`).
//!
//! The choice is a pure function of the game, the level, the seed and the
//! node budget: the search stops on a node count, never on the clock, and
//! random tie-breaks come from a PRNG seeded with `seed`. [`Limits::time`] is
//! a separate wall-clock safety net: if it is ever reached the search stops
//! early and that one choice may differ from run to run.
//!
//! [`analyse`] runs the same search on a time or node budget for players
//! studying a position: the best action, the line the search expects and an
//! evaluation for each player.
//!
//! Everything is owned by the call (no global state), so `choose` can run on
//! any thread, e.g. under `tokio::task::spawn_blocking`.
//!
//! ```
//! use sannin_bot::{choose, Level, Limits};
//! use sannin_rules::Game;
//! let game = Game::new();
//! let a = choose(&game, Level::from_number(1).unwrap(), 42, Limits::default()).unwrap();
//! assert!(game.legal_actions().contains(&a));
//! ```

use std::time::{Duration, Instant};

use sannin_rules::{Action, Game, Player, Position};

mod analyse;
pub mod arena;
mod eval;
mod rng;
mod search;

pub use analyse::{analyse, AnalyseLimits, Analysis, PlayerEval, MAX_LINE};
pub use eval::{evaluate, piece_value, WIN};
pub use rng::{mix_seed, Rng};
pub use search::Found;

/// How strong (and slow) a bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level(u8);

impl Level {
    pub const RANDOM: Level = Level(0);
    pub const GREEDY: Level = Level(1);
    pub const SEARCH_SMALL: Level = Level(2);
    pub const SEARCH_LARGE: Level = Level(3);
    pub const BEST_REPLY: Level = Level(4);
    /// The highest level.
    pub const MAX: Level = Level(4);

    /// Level `n` (0..=4).
    pub fn from_number(n: u8) -> Option<Level> {
        (n <= Level::MAX.0).then_some(Level(n))
    }

    /// The level of a name of [`Level::name`] (any case), or of a number.
    pub fn from_name(s: &str) -> Option<Level> {
        let s = s.trim();
        if let Ok(n) = s.parse::<u8>() {
            return Level::from_number(n);
        }
        (0..=Level::MAX.0)
            .map(Level)
            .find(|l| l.name().eq_ignore_ascii_case(s))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// The name players see: Random, Beginner, Casual, Strong, Master.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "Random",
            1 => "Beginner",
            2 => "Casual",
            3 => "Strong",
            _ => "Master",
        }
    }

    /// The search's node budget (actions played) at this level; `None` for the
    /// levels that do not search.
    pub fn nodes(self) -> Option<u64> {
        match self.0 {
            2 => Some(3_000),
            3 => Some(30_000),
            4 => Some(MASTER_NODES),
            _ => None,
        }
    }
}

/// Level 4's node budget: the same time a move as level 3 (its nodes cost a little less).
const MASTER_NODES: u64 = 34_000;

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Overrides of a level's budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Node budget instead of the level's ([`Level::nodes`]).
    pub nodes: Option<u64>,
    /// Hard wall-clock cap on a search (a safety net, not the normal stop; the
    /// first iteration, every action with its capture replies, always completes).
    pub time: Option<Duration>,
}

impl Default for Limits {
    /// The level's node budget, and a 10 s safety cap.
    fn default() -> Limits {
        Limits {
            nodes: None,
            time: Some(Duration::from_secs(10)),
        }
    }
}

/// What [`choose_detailed`] reports besides the action.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub action: Action,
    /// Evaluation for the mover's side (0 at level 0).
    pub score: i32,
    /// Search depth completed (0 for levels 0 and 1).
    pub depth: i32,
    /// Actions played while choosing.
    pub nodes: u64,
}

/// An action for the player to move, `None` when the game is over.
pub fn choose(game: &Game, level: Level, seed: u64, limits: Limits) -> Option<Action> {
    choose_detailed(game, level, seed, limits).map(|c| c.action)
}

/// [`choose`], with the score, depth and node count.
pub fn choose_detailed(game: &Game, level: Level, seed: u64, limits: Limits) -> Option<Choice> {
    let me = game.to_move()?;
    let mut legal = game.legal_actions();
    if legal.is_empty() {
        return None;
    }
    let mut rng = Rng::new(seed ^ (game.log().len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // A seeded shuffle is the tie-break of every level: among equal scores the
    // first in this order wins.
    rng.shuffle(&mut legal);
    match level.0 {
        0 => Some(Choice {
            action: legal[0],
            score: 0,
            depth: 0,
            nodes: 0,
        }),
        1 => greedy(game.position(), me, &legal, &game.repetition_keys()),
        _ => {
            let budget = limits.nodes.or(level.nodes()).unwrap_or(1);
            let deadline = limits.time.map(|t| Instant::now() + t);
            let mut s = search::Searcher::new(me, game.repetition_keys(), budget, deadline);
            if level >= Level::BEST_REPLY {
                s = s.best_reply();
            }
            s.run(game.position(), legal).map(|f| Choice {
                action: f.action,
                score: f.score,
                depth: f.depth,
                nodes: f.nodes,
            })
        }
    }
}

/// Level 1: every action played once; the best resulting evaluation wins, less
/// the value of the moved piece when it now stands attacked by an enemy and
/// undefended (a third of it when defended).
fn greedy(pos: &Position, me: Player, legal: &[Action], keys: &[u64]) -> Option<Choice> {
    let mut best: Option<Choice> = None;
    let mut nodes = 0;
    for &a in legal {
        nodes += 1;
        let Some(succ) = pos.play_unchecked(a, keys) else {
            continue;
        };
        let score = if let Some(o) = &succ.outcome {
            if o.winners.contains(&me) {
                WIN
            } else if o.winners.is_empty() {
                0
            } else {
                -WIN
            }
        } else if !succ.position.is_active(me) {
            -WIN
        } else {
            let after = &succ.position;
            let mut v = evaluate(after, me);
            let to = match a {
                Action::Move { to, .. } | Action::Drop { to, .. } => Some(to),
                Action::Illuminate { .. } => None,
            };
            if let Some(piece) = to.and_then(|c| after.piece_at(c).map(|p| (c, p))) {
                let (cell, piece) = piece;
                let foes = eval::enemies(after, me);
                if eval::attacked_by_any(after, &foes, cell) {
                    let value = piece_value(piece.role, piece.promoted);
                    v -= if after.is_attacked_by(cell, me) {
                        value / 3
                    } else {
                        value
                    };
                }
            }
            v
        };
        if best.is_none_or(|b| score > b.score) {
            best = Some(Choice {
                action: a,
                score,
                depth: 0,
                nodes,
            });
        }
    }
    best.map(|b| Choice { nodes, ..b })
}
