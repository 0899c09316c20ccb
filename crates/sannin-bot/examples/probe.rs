//! Prints what each level chooses in a position: `cargo run --release -p
//! sannin-bot --example probe -- POSITION [nodes]`.

use sannin_bot::{choose_detailed, Level, Limits};
use sannin_rules::{notation, Game, Position};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pos: Position = args[1].parse().expect("a position");
    let nodes: Option<u64> = args.get(2).and_then(|s| s.parse().ok());
    let game = Game::from_position(pos.clone());
    for n in 1..=Level::MAX.number() {
        let level = Level::from_number(n).expect("a level");
        let c = choose_detailed(&game, level, 7, Limits { nodes, time: None }).expect("a choice");
        println!(
            "level {n}: {} score {} depth {} nodes {}",
            notation::format(&pos, c.action).unwrap_or_default(),
            c.score,
            c.depth,
            c.nodes
        );
    }
}
