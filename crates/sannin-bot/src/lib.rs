//! Computer players for sannin shogi.
//!
//! [`choose`] picks an action for the player to move in a [`Game`]:
//!
//! | level | name | play |
//! |---|---|---|
//! | 0 | Random | a random legal action |
//! | 1 | Beginner | greedy: the action whose resulting position evaluates best (mates and captures first), with a penalty for leaving the moved piece hanging; any action within 40 centipawns of the best, picked by the seed |
//! | 2 | Casual | paranoid alpha-beta search, small node budget ([`Level::nodes`]); any root action within 25 centipawns of the best, picked by the seed |
//! | 3 | Strong | the same search with a larger budget (about 60 ms a move on average on an idle core) |
//! | 4 | Master | best-reply search in the free-for-all, paranoid search once the game has two sides; wins and mates in one taken at once; about 0.2 s a move on an idle core, four to five times level 3's |
//! | 5 | Grandmaster | level 4's search and budget, made to see further with the same nodes: principal variation search, late move reductions, the table's move searched before the other actions are played, a check at the horizon searched one ply more, the quiet actions of a hopeless node next to the horizon skipped, an evaluation fitted to self-play results ([`Weights::fitted`]); about half as much time again a move as level 4 (docs/bots.md, "Strength", also at equal time) |
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
//!   docs/bots.md ("Strength").
//! - *BRS+* (M. Esser, M. Gras, M. Winands, M. Schadd and M. Lanctot,
//!   "Improving Best-Reply Search", Computers and Games 2013): the opponent
//!   not searched plays the action its move ordering ranks first instead of
//!   passing, so that only reachable positions are searched; in four-player
//!   chess it won 8–11 % more games than BRS and paranoid.
//!   `Searcher::best_reply_plus` implements it with that action being the
//!   opponent's best capture (none: it passes); in matches against level 3
//!   it scored below plain best-reply search and spent more time a move
//!   (docs/bots.md, "Strength"), so no level uses it.
//! - *Principal variation search* (A. Reinefeld, "An improvement to the
//!   Scout tree search algorithm", ICCA Journal 6(4), 1983) and *late move
//!   reductions* (as in chess programs; T. Romstad, "An introduction to late
//!   move reductions", 2007), level 5: after a node's first child, the
//!   others are only asked whether they are better (a null window), the
//!   quiet ones late in the ordering first at a reduced depth, and searched
//!   in full only when they are. With the table's move searched before the
//!   other actions are played for ordering, a node cut off by it costs one
//!   action instead of all of them. The same node budget then reaches
//!   further. And a player left in check at the horizon has its replies
//!   searched one more ply rather than being judged by the capture search,
//!   which assumes a player can stand still (a *check extension*, as in chess
//!   programs).
//! - *Futility pruning* (as in chess programs; E. Heinz, "Extended futility
//!   pruning", ICCA Journal 21(2), 1998), level 5: one ply from the horizon,
//!   a node where the root player's side stands two and a half pawns or more
//!   below what it needs plays only its captures, promotions, illuminations,
//!   killers and the table's move. A quiet action there is judged by the
//!   capture search that follows, and seldom gains that much, while playing
//!   each one costs a full resolution of the rules.
//! - Monte Carlo tree search with max^n backup and Progressive History
//!   (J. Nijssen and M. Winands, "Enhancements for multi-player Monte-Carlo
//!   tree search", Computers and Games 2010): the `mcts` module, with an
//!   evaluation of every player at each new node in place of a random
//!   playout. Each of its nodes costs a position and, once expanded, every
//!   legal action, and its tree stays a few plies deep at these budgets: it
//!   won no game against level 3 (docs/bots.md, "Strength"), so no level
//!   uses it.
//!
//! Levels 1 and 2 vary their play: among the actions scoring within a
//! margin ([`Engine::variety`]) of the best, the seed picks one, so that no
//! two games are alike; the margin is below half a pawn, so a free piece or
//! a mate is never passed over for variety's sake. Levels 3 to 5 play their
//! best action (the seed only breaks exact ties).
//!
//! Time: the node budget is the normal stop. In a game with a clock,
//! [`Limits::on_clock`] caps a search at the bot's share of the time it has
//! left ([`move_time`]), so a bot short of time answers fast.
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
mod best_first;
mod eval;
mod mcts;
pub mod review;
mod rng;
mod search;
pub mod train;

pub use analyse::{analyse, analyse_among, AnalyseLimits, Analysis, PlayerEval, MAX_LINE};
pub use eval::{evaluate, evaluate_with, piece_value, Weights, WIN};
pub use rng::{mix_seed, Rng};
pub use search::Found;

/// How strong (and slow) a bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level(u8);

impl Level {
    /// 0: a random legal action.
    pub const RANDOM: Level = Level(0);
    /// 1: greedy, one ply.
    pub const BEGINNER: Level = Level(1);
    /// 2: paranoid search, small budget.
    pub const CASUAL: Level = Level(2);
    /// 3: paranoid search, larger budget.
    pub const STRONG: Level = Level(3);
    /// 4: best-reply search.
    pub const MASTER: Level = Level(4);
    /// 5: best-reply search with null windows, reductions and the table's move first.
    pub const GRANDMASTER: Level = Level(5);
    /// The highest level.
    pub const MAX: Level = Level::GRANDMASTER;

    /// Level `n` (0..=5).
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

    /// Every level, weakest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (0..=Level::MAX.0).map(Level)
    }

    /// The name players see: Random moves, Beginner, Casual, Strong, Master,
    /// Grandmaster.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "Random moves",
            1 => "Beginner",
            2 => "Casual",
            3 => "Strong",
            4 => "Master",
            _ => "Grandmaster",
        }
    }

    /// The search's node budget (actions played) at this level; `None` for the
    /// levels that do not search.
    pub fn nodes(self) -> Option<u64> {
        match self.0 {
            2 => Some(3_000),
            3 => Some(30_000),
            4 | 5 => Some(MASTER_NODES),
            _ => None,
        }
    }
}

/// A level is written as its number (JSON `4`), and only a number of a level reads
/// back: a stored or sent level that no longer exists is an error, never a default.
impl serde::Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
        let n = u8::deserialize(d)?;
        Level::from_number(n).ok_or_else(|| {
            serde::de::Error::custom(format_args!(
                "no bot level {n} (levels are 0 to {})",
                Level::MAX.0
            ))
        })
    }
}

/// Level 4's node budget: about 0.2 s a move, four to five times level 3's
/// time, where it scores 58 % of 180 games against two of level 3
/// (docs/bots.md, "Strength").
const MASTER_NODES: u64 = 150_000;

impl Level {
    /// What this level plays.
    pub fn engine(self) -> Engine {
        let (algorithm, weights) = match self.0 {
            0 => (Algorithm::Random, Weights::DEFAULT),
            1 => (Algorithm::Greedy, Weights::DEFAULT),
            2 | 3 => (Algorithm::Paranoid, Weights::DEFAULT),
            4 => (Algorithm::BestReply, Weights::DEFAULT),
            _ => (Algorithm::BestReplyReduced, Weights::fitted()),
        };
        Engine {
            algorithm,
            nodes: self.nodes().unwrap_or(0),
            weights,
            variety: match self.0 {
                1 => BEGINNER_VARIETY,
                2 => CASUAL_VARIETY,
                _ => 0,
            },
        }
    }
}

/// Level 1's [`Engine::variety`]: under half a pawn, so it never gives away
/// material for variety's sake.
const BEGINNER_VARIETY: i32 = 40;
/// Level 2's [`Engine::variety`].
const CASUAL_VARIETY: i32 = 25;

/// How an [`Engine`] chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// A random legal action.
    Random,
    /// The best evaluated action after one ply (level 1).
    Greedy,
    /// Paranoid alpha-beta (levels 2 and 3).
    Paranoid,
    /// Best-reply search in a free-for-all, paranoid with two sides.
    BestReply,
    /// BRS+ in a free-for-all, paranoid with two sides.
    BestReplyPlus,
    /// Best-reply search with null windows, late move reductions and the
    /// table's move first (level 5).
    BestReplyReduced,
    /// Monte Carlo tree search with max^n backup and Progressive History.
    Mcts,
}

impl std::str::FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Algorithm, String> {
        Ok(match s {
            "random" => Algorithm::Random,
            "greedy" => Algorithm::Greedy,
            "paranoid" => Algorithm::Paranoid,
            "brs" => Algorithm::BestReply,
            "brs+" => Algorithm::BestReplyPlus,
            "brs-r" => Algorithm::BestReplyReduced,
            "mcts" => Algorithm::Mcts,
            _ => {
                return Err(format!(
                    "{s}: not random, greedy, paranoid, brs, brs+, brs-r or mcts"
                ))
            }
        })
    }
}

/// A bot's whole configuration: a level's ([`Level::engine`]) or a variant
/// for matches and tuning (`examples/tune.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Engine {
    pub algorithm: Algorithm,
    /// Node budget of the searching algorithms.
    pub nodes: u64,
    pub weights: Weights,
    /// Variety: among the actions scoring within this many centipawns of
    /// the best (forced wins and losses excluded), one is picked at random
    /// (from the seed), so that games differ. 0: always the best.
    pub variety: i32,
}

impl std::str::FromStr for Engine {
    type Err = String;
    /// A level (`3`, `Master`), or `ALGORITHM:NODES[:WEIGHTS]` with the
    /// weights as [`Weights::parse`] reads them, e.g. `brs+:34000:others_pct=60`.
    fn from_str(s: &str) -> Result<Engine, String> {
        if let Some(l) = Level::from_name(s) {
            return Ok(l.engine());
        }
        let mut parts = s.splitn(3, ':');
        let algorithm = parts.next().unwrap_or_default().parse()?;
        let nodes = match parts.next() {
            Some(n) => n.parse().map_err(|e| format!("{s}: {e}"))?,
            None => 0,
        };
        let weights = Weights::parse(parts.next().unwrap_or_default())?;
        Ok(Engine {
            algorithm,
            nodes,
            weights,
            variety: 0,
        })
    }
}

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

impl Limits {
    /// These limits with the time cap lowered to [`move_time`]`(clock)`.
    pub fn on_clock(self, clock: ClockTime) -> Limits {
        let t = move_time(clock);
        Limits {
            time: Some(self.time.map_or(t, |cap| cap.min(t))),
            ..self
        }
    }
}

/// A game clock as the player to move sees it at the start of its turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockTime {
    /// Main time left.
    pub remaining: Duration,
    /// Added after each move (Fischer); zero otherwise.
    pub increment: Duration,
    /// One byoyomi period, when the player has periods left; zero otherwise.
    pub byoyomi: Duration,
}

/// The share of its clock a bot spends on a move: a thirtieth of the main
/// time left, plus four fifths of the increment it gets back and half a
/// byoyomi period (a move within its period costs no period), so that a bot
/// with little time left answers fast and one with a long game ahead does
/// not run out. The search's node budget still applies: a bot never
/// searches longer because it has time.
pub fn move_time(c: ClockTime) -> Duration {
    c.remaining / 30 + c.increment.mul_f64(0.8) + c.byoyomi / 2
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
    choose_with(game, &level.engine(), seed, limits)
}

/// [`choose_detailed`] for any [`Engine`].
pub fn choose_with(game: &Game, engine: &Engine, seed: u64, limits: Limits) -> Option<Choice> {
    let me = game.to_move()?;
    let mut legal = game.legal_actions();
    if legal.is_empty() {
        return None;
    }
    let mut rng = Rng::new(seed ^ (game.log().len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // A seeded shuffle is the tie-break of every level: among equal scores the
    // first in this order wins.
    rng.shuffle(&mut legal);
    match engine.algorithm {
        Algorithm::Random => Some(Choice {
            action: legal[0],
            score: 0,
            depth: 0,
            nodes: 0,
        }),
        Algorithm::Greedy => greedy(
            &engine.weights,
            game.position(),
            me,
            &legal,
            &game.repetition_keys(),
            (engine.variety, &mut rng),
        ),
        Algorithm::Mcts => {
            let budget = limits.nodes.unwrap_or(engine.nodes).max(1);
            let deadline = limits.time.map(|t| Instant::now() + t);
            mcts::Mcts::new(
                &engine.weights,
                game.repetition_keys(),
                budget,
                deadline,
                rng,
            )
            .run(game.position())
            .map(|f| Choice {
                action: f.action,
                score: f.score,
                depth: f.depth,
                nodes: f.nodes,
            })
        }
        algorithm => {
            let budget = limits.nodes.unwrap_or(engine.nodes).max(1);
            let deadline = limits.time.map(|t| Instant::now() + t);
            let mut s = search::Searcher::new(me, game.repetition_keys(), budget, deadline)
                .with_weights(engine.weights)
                .with_variety(engine.variety, rng.next_u64());
            match algorithm {
                Algorithm::BestReply => s = s.best_reply(),
                Algorithm::BestReplyPlus => s = s.best_reply_plus(),
                Algorithm::BestReplyReduced => s = s.best_reply().with_reductions(),
                _ => {}
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
fn greedy(
    weights: &Weights,
    pos: &Position,
    me: Player,
    legal: &[Action],
    keys: &[u64],
    (variety, rng): (i32, &mut Rng),
) -> Option<Choice> {
    let mut best: Option<Choice> = None;
    let mut scored: Vec<(i32, Action)> = Vec::with_capacity(legal.len());
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
            let mut v = eval::evaluate_with(weights, after, me);
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
        scored.push((score, a));
        if best.is_none_or(|b| score > b.score) {
            best = Some(Choice {
                action: a,
                score,
                depth: 0,
                nodes,
            });
        }
    }
    let best = best?;
    let (score, action) =
        pick_within(&scored, best.score, variety, rng).unwrap_or((best.score, best.action));
    Some(Choice {
        action,
        score,
        depth: 0,
        nodes,
    })
}

/// One of the `(score, action)`s within `variety` of `best` (chosen by
/// `rng`), unless `best` is a forced win or loss or `variety` is 0.
pub(crate) fn pick_within(
    scored: &[(i32, Action)],
    best: i32,
    variety: i32,
    rng: &mut Rng,
) -> Option<(i32, Action)> {
    if variety <= 0 || best.abs() >= eval::WIN_BOUND {
        return None;
    }
    let near: Vec<(i32, Action)> = scored
        .iter()
        .copied()
        .filter(|&(v, _)| v >= best - variety)
        .collect();
    (!near.is_empty()).then(|| near[rng.below(near.len())])
}
