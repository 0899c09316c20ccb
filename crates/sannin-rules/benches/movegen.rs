//! Legal-action generation, playing an action, and perft.
//!
//! `cargo bench -p sannin-rules --bench movegen`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sannin_rules::{perft, Game, Position};

/// A middle-game position from the perft data file (hands, promoted pieces).
const MIDGAME: &str = "lL1lP1fP1fL/lS1lP4fS/1lRlP1fP1fPfRfG/lKlG3lB1fP1f+K/lGlS1lPfBfP4fG/2lN6fP1fS/lL1lPlP5fNfP1fL/2lP3mR5/lP7fP2/7mP2/mPmPmP2mP1mPmP/2mG1mGmN2/mLmSmBmK1mSmL L -/P/- FML ML -";

fn bench(c: &mut Criterion) {
    let start = Game::new();
    let mid = Game::from_position(MIDGAME.parse().unwrap());
    let mut g = c.benchmark_group("legal_actions");
    g.bench_function("start", |b| b.iter(|| black_box(&start).legal_actions()));
    g.bench_function("midgame", |b| b.iter(|| black_box(&mid).legal_actions()));
    g.finish();

    let mut g = c.benchmark_group("play");
    let first = start.legal_actions()[0];
    g.bench_function("start_first_action", |b| {
        b.iter(|| {
            let mut game = start.clone();
            game.play(black_box(first)).unwrap()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    let pos = Position::start();
    g.throughput(Throughput::Elements(110_365));
    g.bench_function("start_depth_3", |b| b.iter(|| perft(black_box(&pos), 3)));
    g.throughput(Throughput::Elements(5_658_002));
    g.bench_function("start_depth_4", |b| b.iter(|| perft(black_box(&pos), 4)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
