//! A quick match without the server: `cargo run --release -p sannin-bot
//! --example arena -- 4,3,3 12 [seed] [max_plies]`.

use sannin_bot::arena::{play_game, Ladder};
use sannin_bot::{Level, Limits};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let levels: Vec<Level> = args
        .get(1)
        .map_or("4,3,3", String::as_str)
        .split(',')
        .map(|s| Level::from_name(s).expect("a level"))
        .collect();
    let levels = [levels[0], levels[1], levels[2]];
    let games: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(6);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let max_plies: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(300);
    let mut scores = Vec::new();
    let mut ms = [0.0f64; 3];
    let mut moves = [0u64; 3];
    for g in 0..games {
        let r = play_game(levels, g, seed, max_plies, Limits::default()).expect("a game");
        for j in 0..3 {
            ms[j] += r.seconds[j] * 1000.0;
            moves[j] += r.moves[j];
        }
        println!(
            "game {g}: {:?} plies {} score {:?} {:?}",
            r.seats, r.plies, r.score, r.reason
        );
        scores.push(r.score);
    }
    for r in Ladder::from_games(levels, &scores).rungs {
        println!("{r:?}");
    }
    for j in 0..3 {
        println!("slot {j}: {:.0} ms/move", ms[j] / moves[j].max(1) as f64);
    }
}
