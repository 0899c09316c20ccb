//! Matches between bots and the rating ladder they measure.
//!
//! [`play_game`] plays one game of three levels with the seats rotated by
//! the game's number; [`Ladder::from_games`] turns the scores of many games
//! into a score share per level with a 95 % confidence interval, and an Elo
//! rating per level fitted to the games' pairwise results (Bradley–Terry,
//! by the minorisation–maximisation algorithm of Hunter 2004) with a
//! bootstrap interval over the games.
//!
//! A three-player game is read as three two-player results: a winner beats
//! each loser, and two players who both lost (or shared a win, or a draw)
//! draw with each other. Slots of the same level never rate each other.

use std::time::Instant;

use sannin_rules::{Game, Player};

use crate::{choose_with, mix_seed, Engine, Level, Limits, Rng};

/// How one game went.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Actions played.
    pub plies: usize,
    /// Each slot's score: 1 for a win (split when shared), a third each for
    /// a game stopped at the ply limit, else 0.
    pub score: [f64; 3],
    /// The seat of each slot.
    pub seats: [Player; 3],
    /// Why the game ended (`None`: stopped at the ply limit).
    pub reason: Option<String>,
    /// Per slot: moves made and seconds spent choosing them, and the longest.
    pub moves: [u64; 3],
    pub seconds: [f64; 3],
    pub max_seconds: [f64; 3],
}

/// The seat of slot `j` in game `g`: slot j sits at seat (j + g) mod 3.
pub fn seat_of(slot: usize, g: usize) -> Player {
    Player::ALL[(slot + g) % 3]
}

/// Plays game number `g` (0-based) of a match: `levels[j]` plays seat
/// [`seat_of`]`(j, g)`; the bots' seeds come from `seed`, `g` and the slot.
/// A game still running after `max_plies` actions stops as a draw.
///
/// # Errors
/// A bot finding no action in a running game, or an illegal one (bugs).
pub fn play_game(
    levels: [Level; 3],
    g: usize,
    seed: u64,
    max_plies: usize,
    limits: Limits,
) -> Result<GameRecord, String> {
    play_engines(levels.map(Level::engine), g, seed, max_plies, limits)
}

/// [`play_game`] between any [`Engine`]s.
///
/// # Errors
/// As [`play_game`].
pub fn play_engines(
    engines: [Engine; 3],
    g: usize,
    seed: u64,
    max_plies: usize,
    limits: Limits,
) -> Result<GameRecord, String> {
    let seats = [0, 1, 2].map(|j| seat_of(j, g));
    let slot_of = |p: Player| (0..3).find(|&j| seats[j] == p).expect("a slot per seat");
    let mut game = Game::new();
    let mut rec = GameRecord {
        plies: 0,
        score: [0.0; 3],
        seats,
        reason: None,
        moves: [0; 3],
        seconds: [0.0; 3],
        max_seconds: [0.0; 3],
    };
    while !game.is_over() && rec.plies < max_plies {
        let p = game
            .to_move()
            .ok_or("no player to move in a running game")?;
        let slot = slot_of(p);
        let bot_seed = mix_seed(mix_seed(seed, g as u64), slot as u64);
        let t = Instant::now();
        let action = choose_with(&game, &engines[slot], bot_seed, limits)
            .ok_or("the bot found no action in a running game")?
            .action;
        let dt = t.elapsed().as_secs_f64();
        rec.moves[slot] += 1;
        rec.seconds[slot] += dt;
        rec.max_seconds[slot] = rec.max_seconds[slot].max(dt);
        game.play(action)
            .map_err(|e| format!("the bot chose an illegal action: {e}"))?;
        rec.plies += 1;
    }
    match game.outcome() {
        Some(o) if !o.winners.is_empty() => {
            let share = 1.0 / o.winners.len() as f64;
            for w in &o.winners {
                rec.score[slot_of(*w)] += share;
            }
            rec.reason = Some(format!("{:?}", o.reason));
        }
        Some(o) => {
            rec.score = [1.0 / 3.0; 3];
            rec.reason = Some(format!("{:?}", o.reason));
        }
        None => rec.score = [1.0 / 3.0; 3],
    }
    Ok(rec)
}

/// One level's line of the ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct Rung {
    pub level: Level,
    /// Slots this level held in each game.
    pub slots: usize,
    /// Mean score per slot and game (a third is even), with a 95 % interval.
    pub share: f64,
    pub share_low: f64,
    pub share_high: f64,
    /// Elo rating, the lowest level of the match at 0, with a 95 %
    /// bootstrap interval; `None` when the match had a single level.
    pub elo: Option<(f64, f64, f64)>,
}

/// The rating ladder of one match.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    pub games: usize,
    pub rungs: Vec<Rung>,
}

/// Bootstrap resamples of the games for the Elo intervals.
const BOOTSTRAP: usize = 400;

impl Ladder {
    /// The ladder of a match of `levels` whose games scored `scores` (each
    /// slot's score per game, as in [`GameRecord::score`]).
    pub fn from_games(levels: [Level; 3], scores: &[[f64; 3]]) -> Ladder {
        let mut distinct: Vec<Level> = levels.to_vec();
        distinct.sort();
        distinct.dedup();
        let n = scores.len();
        let index = |l: Level| distinct.iter().position(|&d| d == l).expect("listed");
        let elo = (distinct.len() > 1).then(|| {
            let point = fit_elo(&distinct, levels, scores.iter());
            let mut rng = Rng::new(0x5EED);
            let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(BOOTSTRAP); distinct.len()];
            for _ in 0..BOOTSTRAP {
                let pick: Vec<&[f64; 3]> = (0..n).map(|_| &scores[rng.below(n)]).collect();
                let e = fit_elo(&distinct, levels, pick.into_iter());
                for (k, v) in e.into_iter().enumerate() {
                    samples[k].push(v);
                }
            }
            (point, samples)
        });
        let rungs = distinct
            .iter()
            .map(|&l| {
                let js: Vec<usize> = (0..3).filter(|&j| levels[j] == l).collect();
                let per_game: Vec<f64> = scores
                    .iter()
                    .map(|s| js.iter().map(|&j| s[j]).sum::<f64>() / js.len() as f64)
                    .collect();
                let (share, half) = mean_interval(&per_game);
                let elo = elo.as_ref().map(|(point, samples)| {
                    let k = index(l);
                    let mut s = samples[k].clone();
                    s.sort_by(f64::total_cmp);
                    let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
                    (point[k], at(0.025), at(0.975))
                });
                Rung {
                    level: l,
                    slots: js.len(),
                    share,
                    share_low: (share - half).max(0.0),
                    share_high: (share + half).min(1.0),
                    elo,
                }
            })
            .collect();
        Ladder { games: n, rungs }
    }
}

/// Mean and half-width of its 95 % normal interval.
fn mean_interval(xs: &[f64]) -> (f64, f64) {
    let n = xs.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, 1.96 * (var / n as f64).sqrt())
}

/// Bradley–Terry fit of the pairwise results, as Elo with `distinct[0]` at 0.
/// A level that never lost (or never won) is held at ±800 from the rest,
/// where the fit would run off to infinity.
fn fit_elo<'a>(
    distinct: &[Level],
    levels: [Level; 3],
    games: impl Iterator<Item = &'a [f64; 3]>,
) -> Vec<f64> {
    let k = distinct.len();
    let idx = |l: Level| distinct.iter().position(|&d| d == l).expect("listed");
    // wins[a][b]: points a scored against b; meetings[a][b]: games between them.
    let mut wins = vec![vec![0.0f64; k]; k];
    let mut meetings = vec![vec![0.0f64; k]; k];
    for s in games {
        for i in 0..3 {
            for j in 0..3 {
                let (a, b) = (idx(levels[i]), idx(levels[j]));
                if a == b {
                    continue;
                }
                // A prior of half a draw per meeting keeps the fit finite.
                wins[a][b] += (0.5 + (s[i] - s[j]) / 2.0).clamp(0.0, 1.0);
                meetings[a][b] += 1.0;
            }
        }
    }
    for a in 0..k {
        for b in 0..k {
            if a != b {
                wins[a][b] += 0.25;
                meetings[a][b] += 0.5;
            }
        }
    }
    let mut gamma = vec![1.0f64; k];
    for _ in 0..500 {
        let mut next = gamma.clone();
        for a in 0..k {
            let w: f64 = wins[a].iter().sum();
            let d: f64 = (0..k)
                .filter(|&b| b != a)
                .map(|b| meetings[a][b] / (gamma[a] + gamma[b]))
                .sum();
            if d > 0.0 {
                next[a] = w / d;
            }
        }
        let norm = next[0];
        for g in &mut next {
            *g /= norm;
        }
        gamma = next;
    }
    gamma
        .iter()
        .map(|g| (400.0 * g.log10()).clamp(-800.0, 800.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_that_always_wins_rates_higher_and_equal_levels_are_even() {
        let levels = [Level(4), Level(3), Level(3)];
        let games: Vec<[f64; 3]> = (0..30)
            .map(|i| {
                if i % 3 == 0 {
                    [0.0, 1.0, 0.0]
                } else {
                    [1.0, 0.0, 0.0]
                }
            })
            .collect();
        let l = Ladder::from_games(levels, &games);
        assert_eq!(l.rungs.len(), 2);
        let (low, high) = (&l.rungs[0], &l.rungs[1]);
        assert_eq!(low.level, Level(3));
        assert_eq!(low.elo.map(|e| e.0), Some(0.0));
        assert!(high.elo.expect("rated").0 > 100.0);
        assert!((high.share - 2.0 / 3.0).abs() < 1e-9);
        assert!(high.share_low < high.share && high.share < high.share_high);

        let even: Vec<[f64; 3]> = (0..30)
            .map(|i| {
                let mut s = [0.0; 3];
                s[i % 3] = 1.0;
                s
            })
            .collect();
        let l = Ladder::from_games([Level(2), Level(3), Level(4)], &even);
        for r in &l.rungs {
            assert!((r.share - 1.0 / 3.0).abs() < 1e-9);
            assert!(r.elo.expect("rated").0.abs() < 1.0, "{r:?}");
        }
    }
}
