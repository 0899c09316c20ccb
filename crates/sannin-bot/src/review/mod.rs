//! Computer review of a finished game: every position of the game searched under
//! the same node budget ([`review_position`]), each player's share of the game read
//! from the evaluations ([`shares`]), and each move judged by how much of its
//! player's share it gave away ([`judge`]).
//!
//! Three players do not share a zero-sum score, so a move is not measured against
//! "the" evaluation but against its own player's: the share the mover's search gives
//! it after its best action, less the share the same search gives it after the
//! action played. A hanging rook or a missed mate loses a large part of that share;
//! an ordinary move, very little.

use sannin_rules::{notation, Action, Game, Player};

use crate::analyse::{analyse, analyse_among, AnalyseLimits, Analysis};
use crate::eval::{WIN, WIN_BOUND};

/// Centipawns per factor of e in a player's weight when evaluations become shares of
/// the game: a player evaluated 900 (a rook's worth) with two others at 0 holds 69 %,
/// three equal players a third each.
pub const SHARE_SCALE: f64 = 600.0;

/// Share lost from which a move is an inaccuracy, a mistake, a blunder. A rook left
/// to a pawn in an even position loses about 40 % of its player's share, a missed win
/// most of it (the tests). Reviewed at 60,000 nodes, 15 % of the greedy level 1's
/// moves are marked, 5 % of level 3's and 3.5 % of Master's (docs/review.md,
/// "Figures").
pub const THRESHOLDS: [(f64, Judgement); 3] = [
    (0.20, Judgement::Blunder),
    (0.10, Judgement::Mistake),
    (0.05, Judgement::Inaccuracy),
];

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    /// In the order of [`Judgement::name`]'s table.
    pub const ALL: [Judgement; 3] = [
        Judgement::Inaccuracy,
        Judgement::Mistake,
        Judgement::Blunder,
    ];

    /// Its name on the wire: `inaccuracy`, `mistake`, `blunder`.
    pub const fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }

    /// The judgement of a move that lost `loss` of its player's share, if any.
    pub fn of_loss(loss: f64) -> Option<Judgement> {
        THRESHOLDS
            .iter()
            .find(|(from, _)| loss >= *from)
            .map(|(_, j)| *j)
    }
}

/// One position of a reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionReview {
    /// The player to move; None once the game is over.
    pub player: Option<Player>,
    /// The search's preferred action (canonical notation).
    pub best: Option<String>,
    /// The line it expects, `best` first.
    pub line: Vec<String>,
    /// The search's score for the mover's side, in centipawns.
    pub score: Option<i32>,
    /// Plies to a forced end the search sees: positive, the mover wins.
    pub mate: Option<i32>,
    /// Each player's evaluation (First, Middle, Last), `±WIN` for won and lost.
    pub evaluations: [i32; 3],
    /// Each player's share of the game, summing to 1 ([`shares`]).
    pub shares: [f64; 3],
}

/// Each player's share of the game (0..1, summing to 1) from its evaluation: a won
/// game is the winners' alone, a lost one is none of the loser's; otherwise each
/// player weighs `exp(evaluation / SHARE_SCALE)`. The browser's evaluation bar
/// divides the game the same way.
pub fn shares(evaluations: [i32; 3]) -> [f64; 3] {
    shares_at(evaluations, SHARE_SCALE)
}

/// [`shares`] with `scale` centipawns per factor of e (the trainer fits it).
pub fn shares_at(evaluations: [i32; 3], scale: f64) -> [f64; 3] {
    let won = evaluations.map(|v| v >= WIN);
    let weights = if won.iter().any(|w| *w) {
        won.map(|w| if w { 1.0 } else { 0.0 })
    } else {
        // Weighed from the best evaluation down, so that no weight overflows.
        let top = evaluations.iter().copied().filter(|v| *v > -WIN).max();
        evaluations.map(|v| match top {
            Some(top) if v > -WIN => (f64::from(v - top) / scale).exp(),
            _ => 0.0,
        })
    };
    let sum: f64 = weights.iter().sum();
    if sum > 0.0 {
        weights.map(|w| w / sum)
    } else {
        [1.0 / 3.0; 3]
    }
}

/// The share of player `who` if its evaluation were `value`, the others' as in
/// `evaluations`.
fn share_with(evaluations: [i32; 3], who: usize, value: i32) -> f64 {
    if value <= -WIN {
        return 0.0;
    }
    let mut e = evaluations;
    e[who] = value;
    shares(e)[who]
}

/// A search score as an evaluation: a forced win or loss is won or lost.
fn value_of(score: i32) -> i32 {
    if score >= WIN_BOUND {
        WIN
    } else if score <= -WIN_BOUND {
        -WIN
    } else {
        score
    }
}

/// Searches `game`'s position for its player to move, `nodes` actions at most (so a
/// review comes out the same on every machine); a finished game is scored by its
/// outcome (winners won, the others lost; a draw even).
pub fn review_position(game: &Game, nodes: u64) -> PositionReview {
    match game.to_move().and_then(|_| analyse(game, limits(nodes))) {
        Some(a) => of_analysis(a),
        None => {
            let evaluations = final_evaluations(game);
            PositionReview {
                player: None,
                best: None,
                line: Vec::new(),
                score: None,
                mate: None,
                evaluations,
                shares: shares(evaluations),
            }
        }
    }
}

/// How much of its share of the game the player to move in `game` gives away by
/// playing `action` rather than the best action `best` found ([`review_position`] of
/// the same position), and the judgement of that loss.
///
/// Both sides of the comparison come from the mover's own search: the best action's
/// line, and the line of a search limited to `action`. (The next player's search is
/// no measure: each player's search is hopeful for its own side and hard on the
/// others, so every player's share would seem to drop by its own move.)
pub fn judge(
    game: &Game,
    best: &PositionReview,
    action: Action,
    nodes: u64,
) -> (f64, Option<Judgement>) {
    let Some(mover) = best.player else {
        return (0.0, None);
    };
    let written = notation::format(game.position(), action).ok();
    if written.is_some() && written == best.best {
        return (0.0, None);
    }
    let Some(played) = analyse_among(game, limits(nodes), vec![action]) else {
        return (0.0, None);
    };
    let i = mover.index();
    let after = share_with(best.evaluations, i, value_of(played.score));
    // A search limited to one action goes deeper and may think better of it: no gain.
    let loss = (best.shares[i] - after).max(0.0);
    (loss, Judgement::of_loss(loss))
}

/// A search of `nodes` actions, no clock.
fn limits(nodes: u64) -> AnalyseLimits {
    AnalyseLimits {
        movetime: None,
        nodes: Some(nodes),
    }
}

/// A position's review from its search: the mover's evaluation is the search's
/// score (the evaluation at the end of the whole line searched, where the line
/// reported may stop short), the others' at the end of the line reported.
fn of_analysis(a: Analysis) -> PositionReview {
    let mut evaluations = a.evaluations.map(|e| e.score);
    evaluations[a.player.index()] = value_of(a.score);
    PositionReview {
        player: Some(a.player),
        best: Some(a.best),
        line: a.line,
        score: Some(a.score),
        mate: a.mate,
        evaluations,
        shares: shares(evaluations),
    }
}

/// The evaluations of a game with no one to move: by its outcome, else (a mover with
/// no action) the players still in the game even and the others lost.
fn final_evaluations(game: &Game) -> [i32; 3] {
    let pos = game.position();
    Player::ALL.map(|p| match game.outcome() {
        Some(o) if o.winners.is_empty() => 0,
        Some(o) if o.winners.contains(&p) => WIN,
        Some(_) => -WIN,
        None if pos.is_active(p) => 0,
        None => -WIN,
    })
}

#[cfg(test)]
mod tests;
