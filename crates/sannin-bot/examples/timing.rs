//! Times the levels on a few positions of one game: `cargo run --release -p
//! sannin-bot --example timing -- LEVEL PLIES [POSITION]`, from the start or
//! from a position string.
//! No wall-clock cap: the searches stop on their node budgets alone, so the
//! work done (e.g. counted by `valgrind --tool=callgrind`) does not depend on
//! the machine's load.

use std::time::Instant;

use sannin_bot::{choose_detailed, Level, Limits};
use sannin_rules::{notation, Game};

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<u64> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let level = Level::from_number(args.first().copied().unwrap_or(2) as u8).expect("level 0..=3");
    let plies = args.get(1).copied().unwrap_or(60);
    let mut game = match raw.get(2) {
        Some(text) => Game::from_position(text.parse().expect("a position string")),
        None => Game::new(),
    };
    let mut total = 0.0;
    let mut n = 0;
    for ply in 0..plies {
        if game.is_over() {
            break;
        }
        let t = Instant::now();
        let limits = Limits {
            nodes: None,
            time: None,
        };
        let c = choose_detailed(&game, level, ply, limits).expect("a choice");
        let dt = t.elapsed().as_secs_f64();
        total += dt;
        n += 1;
        let text = notation::format(game.position(), c.action).expect("legal");
        println!(
            "{ply:3} {:?} {text:12} score {:7} depth {} nodes {:6} {:.3}s {:.1}us/node",
            game.to_move().expect("to move"),
            c.score,
            c.depth,
            c.nodes,
            dt,
            dt * 1e6 / c.nodes.max(1) as f64
        );
        game.play(c.action).expect("legal");
    }
    println!(
        "{n} moves, {:.3} s/move, outcome {:?}",
        total / n.max(1) as f64,
        game.outcome()
    );
}
