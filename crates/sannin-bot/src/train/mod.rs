//! Fitting the evaluation to results: Texel's method for three players.
//!
//! Positions come from self-play ([`generate`]): games of three copies of one engine
//! (level 5's weights come from best-reply searchers of 10,000 nodes; a random pick
//! among near-equal actions, [`Engine::variety`], gives every game its own course),
//! every other position from the sixth ply on, the mover not in check, labelled with
//! the game's result for each player (a win 1, shared by allies who win together; a
//! draw or a game cut off at the ply limit a third each). The fit takes only the
//! quiet ones ([`is_quiet`]): a position in the middle of an exchange says little
//! about its static evaluation.
//!
//! The model reads the static evaluation of each player ([`evaluate_with`]) as its
//! share of the game ([`shares_at`]: in proportion to `exp(evaluation / scale)`),
//! and the fit ([`fit`]) lowers the cross-entropy between those shares and the
//! results, plus a prior that holds the weights near where they start: first the
//! scale, then each weight of [`Weights`] (the piece values among them) in turn by
//! coordinate descent, halving the steps as they stop paying, the scale again after
//! each round. Everything is deterministic: the same seed gives the same positions,
//! and the same positions the same weights. The trainer is `examples/tune.rs`
//! (`texel-data`, `texel`); `scripts/train-weights.sh` runs it to level 5's weights.

use std::fmt::Write as _;

use sannin_rules::{Action, Game, Player, Position};

use crate::eval::{evaluate_with, piece_value, same_side, Weights};
use crate::review::shares_at;
use crate::{choose_with, mix_seed, Engine, Limits};

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub position: Position,
    /// Each player's result of the game (First, Middle, Last), summing to 1.
    pub result: [f64; 3],
}

/// Plies after which a self-play game counts as a draw.
const MAX_PLIES: usize = 300;
/// The first ply sampled.
const FIRST_PLY: usize = 6;

/// Plays `games` games of three copies of `engine` (game `g` seeded from `seed` and
/// `g`), `jobs` at a time, and labels their positions. The samples come in game
/// order, whatever `jobs` is.
pub fn generate(games: usize, seed: u64, jobs: usize, engine: &Engine) -> Vec<Sample> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(vec![Vec::new(); games]);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, games.max(1)) {
            s.spawn(|| loop {
                let g = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if g >= games {
                    break;
                }
                let samples = one_game(engine, mix_seed(seed, g as u64));
                done.lock().unwrap_or_else(|e| e.into_inner())[g] = samples;
            });
        }
    });
    done.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// The samples of one self-play game.
fn one_game(engine: &Engine, seed: u64) -> Vec<Sample> {
    let mut game = Game::new();
    let mut positions = Vec::new();
    while !game.is_over() && game.log().len() < MAX_PLIES {
        let ply = game.log().len();
        let me = game.to_move().expect("a player to move");
        if ply >= FIRST_PLY && ply % 2 == 0 && !game.position().in_check(me) {
            positions.push(game.position().clone());
        }
        let Some(choice) = choose_with(&game, engine, seed, Limits::default()) else {
            break;
        };
        game.play(choice.action)
            .expect("the bot plays legal actions");
    }
    let result = match game.outcome() {
        Some(o) if !o.winners.is_empty() => {
            let share = 1.0 / o.winners.len() as f64;
            Player::ALL.map(|p| if o.winners.contains(&p) { share } else { 0.0 })
        }
        _ => [1.0 / 3.0; 3],
    };
    positions
        .into_iter()
        .map(|position| Sample { position, result })
        .collect()
}

/// Whether `pos` is quiet: the player to move has no capture worth making (of an
/// undefended piece, or of one worth more than the capturer) and no illumination.
/// A position in the middle of an exchange is judged by its static evaluation as if
/// the pieces taken stayed taken; the fit keeps only quiet positions, as Texel's
/// method does with positions the capture search would not change.
pub fn is_quiet(pos: &Position) -> bool {
    let Some(me) = pos.to_move() else {
        return true;
    };
    let mut captures = Vec::new();
    pos.legal_captures_into(&mut captures);
    !captures.into_iter().any(|a| match a {
        Action::Move { from, to, .. } => pos.piece_at(to).is_some_and(|x| {
            let mover = pos.piece_at(from).expect("a moving piece");
            !same_side(pos, me, x.owner)
                && (!pos.is_attacked_by(to, x.owner)
                    || piece_value(x.role, x.promoted) > piece_value(mover.role, mover.promoted))
        }),
        _ => true,
    })
}

/// Samples as text: a line each, the position string, a tab, the three results.
pub fn write(samples: &[Sample]) -> String {
    let mut out = String::new();
    for s in samples {
        let [f, m, l] = s.result;
        let _ = writeln!(out, "{}\t{f:.4} {m:.4} {l:.4}", s.position);
    }
    out
}

/// Reads [`write`]'s text.
///
/// # Errors
/// The line number and what is wrong.
pub fn read(text: &str) -> Result<Vec<Sample>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let bad = |what: &str| format!("line {}: {what}", i + 1);
            let (pos, result) = line.split_once('\t').ok_or_else(|| bad("no tab"))?;
            let position = pos.parse().map_err(|e| bad(&format!("{e}")))?;
            let r: Vec<f64> = result
                .split_whitespace()
                .map(|v| v.parse().map_err(|_| bad("a result is not a number")))
                .collect::<Result<_, _>>()?;
            let [f, m, l] = r[..] else {
                return Err(bad("want three results"));
            };
            Ok(Sample {
                position,
                result: [f, m, l],
            })
        })
        .collect()
}

/// The mean cross-entropy between the results and the shares the weights give,
/// computed on two threads.
pub fn loss(samples: &[Sample], w: &Weights, scale: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let half = samples.len().div_ceil(2);
    let part = |chunk: &[Sample]| -> f64 {
        chunk
            .iter()
            .map(|s| {
                let ev = Player::ALL.map(|p| {
                    if s.position.is_active(p) {
                        evaluate_with(w, &s.position, p)
                    } else {
                        -crate::WIN
                    }
                });
                let shares = shares_at(ev, scale);
                (0..3)
                    .filter(|&i| s.result[i] > 0.0)
                    .map(|i| -s.result[i] * shares[i].max(1e-6).ln())
                    .sum::<f64>()
            })
            .sum()
    };
    let (a, b) = samples.split_at(half);
    let total = std::thread::scope(|sc| {
        let other = sc.spawn(|| part(b));
        part(a) + other.join().expect("a loss thread")
    });
    total / samples.len() as f64
}

/// What [`fit`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub weights: Weights,
    /// Centipawns per factor of e in a player's share.
    pub scale: f64,
    /// [`loss`] before and after.
    pub before: f64,
    pub after: f64,
}

/// The scale that fits `w` best, by golden-section search between 100 and 20,000.
fn fit_scale(samples: &[Sample], w: &Weights) -> f64 {
    let (mut lo, mut hi) = (100.0f64, 20_000.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..24 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if loss(samples, w, a) < loss(samples, w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// How far `w` strays from `start`: the sum of each weight's squared change in
/// proportion to its starting value (at least 50, so that a weight starting at 0
/// may still move).
fn strayed(w: &[i32; Weights::COUNT], start: &[i32; Weights::COUNT]) -> f64 {
    w.iter()
        .zip(start)
        .map(|(&x, &s)| ((x - s) as f64 / s.abs().max(50) as f64).powi(2))
        .sum()
}

/// Fits the weights to `samples` from `start`, `rounds` rounds of coordinate descent
/// at most, lowering the loss plus `prior` times how far the weights stray from
/// `start` ([`strayed`]; 0 for a plain fit); `progress` hears each round's weights,
/// scale and loss.
pub fn fit(
    samples: &[Sample],
    start: Weights,
    rounds: usize,
    prior: f64,
    mut progress: impl FnMut(usize, &Weights, f64, f64),
) -> Fit {
    let origin = start.to_vec();
    let mut w = origin;
    let mut scale = fit_scale(samples, &start);
    let before = loss(samples, &start, scale);
    let objective = |w: &[i32; Weights::COUNT], scale| {
        loss(samples, &Weights::from_vec(*w), scale) + prior * strayed(w, &origin)
    };
    // The loss of `w` at `scale` (the prior aside), and the objective it is part of.
    let (mut last, mut best) = (before, before);
    let mut steps = w.map(|v| (v.abs() / 4).max(4));
    for round in 0..rounds {
        let mut moved = false;
        for i in 0..w.len() {
            for dir in [1, -1] {
                let mut cand = w;
                cand[i] = (cand[i] + dir * steps[i]).max(0);
                if cand == w {
                    continue;
                }
                let l = objective(&cand, scale);
                if l < best {
                    (w, best, moved) = (cand, l, true);
                    break;
                }
            }
        }
        let weights = Weights::from_vec(w);
        scale = fit_scale(samples, &weights);
        last = loss(samples, &weights, scale);
        best = last + prior * strayed(&w, &origin);
        progress(round + 1, &weights, scale, last);
        if !moved {
            if steps.iter().all(|s| *s <= 1) {
                break;
            }
            steps = steps.map(|s| (s / 2).max(1));
        }
    }
    Fit {
        weights: Weights::from_vec(w),
        scale,
        before,
        after: last,
    }
}

#[cfg(test)]
mod tests;
