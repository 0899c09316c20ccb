//! Analysis for players: the search of the top level (best-reply search in a
//! free-for-all, paranoid with an alliance) run on a position under a time or
//! node budget, reported with its principal variation and an evaluation for
//! each player.

use std::time::{Duration, Instant};

use sannin_rules::{notation, Action, Game, Player, Position};

use crate::eval::{evaluate, WIN, WIN_BOUND};
use crate::search::Searcher;

/// Longest principal variation reported, in plies.
pub const MAX_LINE: usize = 8;

/// How long [`analyse`] searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnalyseLimits {
    /// Wall-clock budget. With neither budget given, one second.
    pub movetime: Option<Duration>,
    /// Node budget (actions played); with no `movetime` the search is
    /// deterministic.
    pub nodes: Option<u64>,
}

/// One player's evaluation at the end of the principal variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerEval {
    pub player: Player,
    /// [`crate::evaluate`] for this player (its side against the rest), in
    /// centipawns: a pawn on the board is 100. `±WIN` (1 000 000) when the
    /// line ends the game won or lost for this player (or eliminates it), 0
    /// for a draw.
    pub score: i32,
}

/// What [`analyse`] found.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The player to move.
    pub player: Player,
    /// The best action, in canonical notation (RULES §13.1).
    pub best: String,
    /// The principal variation, `best` first, then the replies the search
    /// expects (from its transposition table; at most [`MAX_LINE`] plies,
    /// possibly just `best` when the search did not go deeper).
    pub line: Vec<String>,
    /// The search's score for the mover's side (both others play against it:
    /// best reply of either, or paranoid), in the same units as
    /// [`PlayerEval::score`].
    pub score: i32,
    /// Plies to a forced end when the search sees one: positive, the mover
    /// wins in that many plies; negative, it loses.
    pub mate: Option<i32>,
    /// Each player's static evaluation at the end of `line`, First, Middle, Last.
    pub evaluations: [PlayerEval; 3],
    /// Deepest search iteration completed.
    pub depth: i32,
    /// Actions played during the search.
    pub nodes: u64,
    /// Wall-clock time spent.
    pub elapsed: Duration,
}

/// Searches the game's current position; `None` when no one is to move (the
/// game is over) or the mover has no legal action.
///
/// Runs on the calling thread for up to `limits.movetime` (a little over: the
/// first iteration, every action with its capture replies, always completes).
pub fn analyse(game: &Game, limits: AnalyseLimits) -> Option<Analysis> {
    analyse_among(game, limits, game.legal_actions())
}

/// [`analyse`] with the mover's choice limited to `legal` (legal actions of the
/// position): what the search makes of one action played there, for a review that
/// weighs a played action against the best one by the same search.
pub fn analyse_among(game: &Game, limits: AnalyseLimits, legal: Vec<Action>) -> Option<Analysis> {
    let started = Instant::now();
    let me = game.to_move()?;
    if legal.is_empty() {
        return None;
    }
    let movetime = match limits {
        AnalyseLimits {
            movetime: None,
            nodes: None,
        } => Some(Duration::from_secs(1)),
        l => l.movetime,
    };
    let budget = limits.nodes.unwrap_or(u64::MAX);
    let deadline = movetime.map(|t| started + t);
    let keys = game.repetition_keys();
    let mut searcher = Searcher::new(me, keys.clone(), budget, deadline).best_reply();
    let found = searcher.run(game.position(), legal)?;

    // The line: the best action, then the table's move at each position
    // reached, while it is legal there and the game goes on.
    let mut keys = keys;
    let mut pos: Position = game.position().clone();
    let mut line = Vec::new();
    let mut next = Some(found.action);
    let mut ended = None;
    while let Some(a) = next {
        if line.len() >= MAX_LINE || !pos.legal_actions().contains(&a) {
            break;
        }
        let Ok(text) = notation::format(&pos, a) else {
            break;
        };
        let Some(played) = pos.play_unchecked(a, &keys) else {
            break;
        };
        line.push(text);
        pos = played.position;
        keys.push(pos.repetition_key());
        if played.outcome.is_some() {
            ended = played.outcome;
            break;
        }
        next = searcher.table_move(pos.repetition_key());
    }

    let eval_for = |p: Player| -> i32 {
        if let Some(o) = &ended {
            if o.winners.is_empty() {
                0
            } else if o.winners.contains(&p) {
                WIN
            } else {
                -WIN
            }
        } else if !pos.is_active(p) {
            -WIN
        } else {
            evaluate(&pos, p)
        }
    };
    let evaluations = Player::ALL.map(|p| PlayerEval {
        player: p,
        score: eval_for(p),
    });
    let mate = (found.score.abs() >= WIN_BOUND).then(|| {
        let plies = WIN - found.score.abs();
        if found.score > 0 {
            plies
        } else {
            -plies
        }
    });
    Some(Analysis {
        player: me,
        best: line
            .first()
            .cloned()
            .or_else(|| notation::format(game.position(), found.action).ok())?,
        line,
        score: found.score,
        mate,
        evaluations,
        depth: found.depth,
        nodes: found.nodes,
        elapsed: started.elapsed(),
    })
}
