//! Search speed: actions played per second by the level-3 search (and, as
//! `NAME/master`, level 4's best-reply search) on a few fixed positions (the node count of a search is deterministic, so it is
//! the throughput).
//!
//! `cargo bench -p sannin-bot --bench search`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sannin_bot::{choose_detailed, Level, Limits};
use sannin_rules::{Game, Position};

/// Nodes per search: a tenth of level 3's budget keeps a sample short.
const NODES: u64 = 3_000;

/// The start, a free-for-all middle game from a random playout, and an
/// alliance middle game with a promoted unallied king and pieces in hand
/// (the positions of the rules crate's perft data and movegen bench).
const POSITIONS: [(&str, &str); 3] = [
    ("start", sannin_rules::START),
    (
        "midgame",
        "lLlKlP1fP1fL/1lSlP2fP1fS/lG1lP2fPfRfG1/9fK/lG2lN2fP1fN2/m+B1lP6fPfGfS/lLlR8fPlP1/1lP8lBfL/lP9fP/3mP5mP/mPmP1mPmNmPmPmP1/mP3f+B1mR1/mLmSmGmKmGmSmL M -/SP/- FML - F",
    ),
    (
        "alliance",
        "lL1lP1fP1fL/lS1lP4fS/1lRlP1fP1fPfRfG/lKlG3lB1fP1f+K/lGlS1lPfBfP4fG/2lN6fP1fS/lL1lPlP5fNfP1fL/2lP3mR5/lP7fP2/7mP2/mPmPmP2mP1mPmP/2mG1mGmN2/mLmSmBmK1mSmL L -/P/- FML ML -",
    ),
];

fn bench(c: &mut Criterion) {
    let limits = Limits {
        nodes: Some(NODES),
        time: None,
    };
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    for (name, text) in POSITIONS {
        let pos: Position = text.parse().expect("a valid position");
        let game = Game::from_position(pos);
        for (suffix, level) in [
            ("", Level::STRONG),
            ("/master", Level::MASTER),
            ("/grandmaster", Level::GRANDMASTER),
        ] {
            let nodes = choose_detailed(&game, level, 1, limits)
                .expect("a choice")
                .nodes;
            g.throughput(Throughput::Elements(nodes));
            g.bench_function(format!("{name}{suffix}"), |b| {
                b.iter(|| choose_detailed(black_box(&game), level, 1, limits))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
