//! How a computer review judges a level's play, and what it costs: `cargo run
//! --release -p sannin-bot --example review_stats -- NODES LEVEL GAMES [PLIES]`
//! plays GAMES games of three LEVEL bots (seeds 1, 2, …; at most PLIES plies each,
//! 120 by default), reviews every move at NODES actions a position as the server
//! does, and prints the share of moves judged inaccuracies, mistakes and blunders,
//! the spread of the shares lost, and the review's time per ply (docs/review.md,
//! "Figures").

use std::time::{Duration, Instant};

use sannin_bot::review::{judge, review_position, Judgement};
use sannin_bot::{choose, Level, Limits};
use sannin_rules::Game;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: NODES LEVEL GAMES [PLIES]"))
        .collect();
    let (nodes, level, games) = (args[0], args[1], args[2]);
    let plies = args.get(3).copied().unwrap_or(120);
    let level = Level::from_number(level as u8).expect("a level, 0 to 5");
    let mut counts = [0usize; 4];
    let mut losses = Vec::new();
    let mut reviewing = Duration::ZERO;
    for seed in 1..=games {
        let mut game = Game::new();
        for _ in 0..plies {
            if game.is_over() {
                break;
            }
            let action = choose(&game, level, seed, Limits::default()).expect("an action");
            let t = Instant::now();
            let best = review_position(&game, nodes);
            let (loss, judgement) = judge(&game, &best, action, nodes);
            reviewing += t.elapsed();
            losses.push(loss);
            counts[judgement.map_or(0, |j| 1 + j as usize)] += 1;
            game.play(action).expect("a legal action");
        }
    }
    losses.sort_by(f64::total_cmp);
    let n = losses.len();
    let at = |q: f64| losses[((n - 1) as f64 * q) as usize];
    let pct = |c: usize| 100.0 * c as f64 / n as f64;
    println!(
        "{n} plies of level {} reviewed at {nodes} nodes: {:.1} % inaccuracies, {:.1} % mistakes, \
         {:.1} % blunders; share lost p50 {:.3}, p90 {:.3}, p99 {:.3}; {:.0} ms a ply",
        level.number(),
        pct(counts[1 + Judgement::Inaccuracy as usize]),
        pct(counts[1 + Judgement::Mistake as usize]),
        pct(counts[1 + Judgement::Blunder as usize]),
        at(0.5),
        at(0.9),
        at(0.99),
        reviewing.as_secs_f64() * 1000.0 / n as f64,
    );
}
