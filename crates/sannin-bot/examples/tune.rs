//! Matches between engine variants, and the self-play tuning of the
//! evaluation's weights (docs/bots.md, "Strength" and "Measuring the
//! levels"). Node budgets, not the clock, stop every search, so results do
//! not depend on the machine's load — unless a match is given a time a move.
//!
//! ```sh
//! # one engine in slot 0 against two of another, seats rotated:
//! cargo run --release -p sannin-bot --example tune -- match brs+:34000 3 60 1 2
//! # the same at equal time, 100 ms a move for every engine (nodes then unlimited):
//! cargo run --release -p sannin-bot --example tune -- match brs-r:1 brs:1 60 1 1 100
//! # coordinate search: each weight in turn takes each listed value, as one
//! # engine against two of the best so far; a value is kept when it scores
//! # more than MARGIN above a third.
//! cargo run --release -p sannin-bot --example tune -- \
//!   coord brs:8000 GAMES SEED JOBS MARGIN others_pct=35/65 hanging_pct=30 ...
//! # the trainer (docs/bots.md, "Fitting the evaluation to results"): self-play
//! # positions labelled with the games' results, then the weights fitted to them
//! cargo run --release -p sannin-bot --example tune -- texel-data 2000 1 2 samples.txt brs:10000 25
//! cargo run --release -p sannin-bot --example tune -- texel samples.txt 60 0.03 fitted.txt
//! ```
//!
//! Engines are levels (`3`, `Master`) or `ALGORITHM:NODES[:WEIGHTS]`
//! (`sannin_bot::Engine`'s syntax).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sannin_bot::arena::{play_engines, GameRecord};
use sannin_bot::{Engine, Level, Limits, Weights};

/// Plays `games` games of `engines` (seats rotated) on `jobs` threads.
fn run(engines: [Engine; 3], games: usize, seed: u64, jobs: usize) -> Vec<GameRecord> {
    run_limited(engines, games, seed, jobs, Limits::default())
}

/// [`run`] under these limits.
fn run_limited(
    engines: [Engine; 3],
    games: usize,
    seed: u64,
    jobs: usize,
    limits: Limits,
) -> Vec<GameRecord> {
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let g = next.fetch_add(1, Ordering::Relaxed);
                if g >= games {
                    break;
                }
                let r = play_engines(engines, g, seed, 300, limits).expect("a game");
                eprintln!("game {g}: {} plies, score {:?}", r.plies, r.score);
                out.lock().expect("lock").push((g, r));
            });
        }
    });
    let mut v = out.into_inner().expect("lock");
    v.sort_by_key(|(g, _)| *g);
    v.into_iter().map(|(_, r)| r).collect()
}

/// Slot 0's mean score and its 95 % half-interval, and each slot's ms a move.
fn summary(records: &[GameRecord]) -> (f64, f64, [f64; 3]) {
    let xs: Vec<f64> = records.iter().map(|r| r.score[0]).collect();
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let mut ms = [0.0; 3];
    for (j, m) in ms.iter_mut().enumerate() {
        let secs: f64 = records.iter().map(|r| r.seconds[j]).sum();
        let moves: u64 = records.iter().map(|r| r.moves[j]).sum();
        *m = 1000.0 * secs / moves.max(1) as f64;
    }
    (mean, 1.96 * (var / n).sqrt(), ms)
}

fn engine(s: &str) -> Engine {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize, what: &str) -> T {
    args.get(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("argument {i}: {what}"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("match") => {
            let a = engine(&args[1]);
            let b = engine(&args[2]);
            let games = arg(&args, 3, "games");
            let seed = arg(&args, 4, "seed");
            let jobs = arg(&args, 5, "jobs");
            // An optional sixth argument: milliseconds a move for every engine.
            let limits = match args.get(6).map(|s| s.parse::<u64>()) {
                Some(Ok(ms)) => Limits {
                    nodes: Some(u64::MAX),
                    time: Some(Duration::from_millis(ms)),
                },
                Some(Err(e)) => panic!("movetime: {e}"),
                None => Limits::default(),
            };
            let t = Instant::now();
            let r = run_limited([a, b, b], games, seed, jobs, limits);
            let (mean, half, ms) = summary(&r);
            let plies: usize = r.iter().map(|g| g.plies).sum();
            println!(
                "{} vs 2x {}: {games} games, share {:.1} % [{:.1}, {:.1}], ms a move {:.0} / {:.0} / {:.0}, {:.0} plies a game, {:.0} s",
                args[1],
                args[2],
                100.0 * mean,
                100.0 * (mean - half),
                100.0 * (mean + half),
                ms[0],
                ms[1],
                ms[2],
                plies as f64 / games as f64,
                t.elapsed().as_secs_f64()
            );
        }
        Some("coord") => {
            let mut best = engine(&args[1]);
            let games = arg(&args, 2, "games");
            let seed = arg(&args, 3, "seed");
            let jobs = arg(&args, 4, "jobs");
            let margin: f64 = arg(&args, 5, "margin");
            for spec in &args[6..] {
                let (name, values) = spec.split_once('=').expect("name=v1/v2");
                let i = Weights::NAMES
                    .iter()
                    .position(|n| *n == name)
                    .expect("a weight");
                let mut top: Option<(f64, i32)> = None;
                for v in values.split('/') {
                    let v: i32 = v.parse().expect("a value");
                    let mut w = best.weights.to_vec();
                    w[i] = v;
                    let cand = Engine {
                        weights: Weights::from_vec(w),
                        ..best
                    };
                    let r = run([cand, best, best], games, seed, jobs);
                    let (mean, half, _) = summary(&r);
                    println!(
                        "{name}={v}: share {:.1} % ± {:.1} against {}",
                        100.0 * mean,
                        100.0 * half,
                        best.weights.to_vec()[i]
                    );
                    if mean > 1.0 / 3.0 + margin && top.is_none_or(|(m, _)| mean > m) {
                        top = Some((mean, v));
                    }
                }
                if let Some((_, v)) = top {
                    let mut w = best.weights.to_vec();
                    w[i] = v;
                    best.weights = Weights::from_vec(w);
                }
                println!("best so far: {}", best.weights);
            }
        }
        Some("texel-data") => {
            let games = arg(&args, 1, "games");
            let seed = arg(&args, 2, "seed");
            let jobs = arg(&args, 3, "jobs");
            let out: String = arg(&args, 4, "output file");
            let engine = match args.get(5) {
                Some(e) => Engine {
                    variety: args.get(6).map_or(25, |v| v.parse().expect("variety")),
                    ..e.parse().unwrap_or_else(|e| panic!("{e}"))
                },
                None => Level::CASUAL.engine(),
            };
            let t = Instant::now();
            let samples = sannin_bot::train::generate(games, seed, jobs, &engine);
            std::fs::write(&out, sannin_bot::train::write(&samples)).expect("write the samples");
            println!(
                "{} positions of {games} games in {:.0} s -> {out}",
                samples.len(),
                t.elapsed().as_secs_f64()
            );
        }
        Some("texel") => {
            let file: String = arg(&args, 1, "samples file");
            let rounds = arg(&args, 2, "rounds");
            let prior: f64 = args.get(3).map_or(0.0, |p| p.parse().expect("prior"));
            let out = args.get(4);
            let text = std::fs::read_to_string(&file).expect("read the samples");
            let all = sannin_bot::train::read(&text).unwrap_or_else(|e| panic!("{e}"));
            let samples: Vec<_> = all
                .iter()
                .filter(|s| sannin_bot::train::is_quiet(&s.position))
                .cloned()
                .collect();
            println!("{} of {} positions quiet", samples.len(), all.len());
            let flat = sannin_bot::train::loss(&samples, &Weights::DEFAULT, 1e12);
            let t = Instant::now();
            let f = sannin_bot::train::fit(&samples, Weights::DEFAULT, rounds, prior, |r, w, scale, l| {
                println!("round {r}: loss {l:.5}, scale {scale:.0}, {w}");
            });
            println!(
                "{} positions: loss {:.5} (even shares) / {:.5} (default weights) / {:.5} (fitted), scale {:.0}, {:.0} s\nfitted: {}",
                samples.len(),
                flat,
                f.before,
                f.after,
                f.scale,
                t.elapsed().as_secs_f64(),
                f.weights
            );
            if let Some(out) = out {
                let header = format!(
                    "Evaluation weights fitted to self-play results by `tune texel` (Texel's method,\n\
                     sannin_bot::train): the {} quiet positions of {}, {rounds} rounds at most, prior\n\
                     {prior}; cross-entropy {:.5} with the default weights, {:.5} with these; scale {:.0}.",
                    samples.len(),
                    all.len(),
                    f.before,
                    f.after,
                    f.scale
                );
                std::fs::write(out, f.weights.file(&header)).expect("write the weights");
                println!("-> {out}");
            }
        }
        _ => eprintln!("usage: tune match A B GAMES SEED JOBS [MOVETIME_MS] | tune coord ENGINE GAMES SEED JOBS MARGIN NAME=V1/V2... | tune texel-data GAMES SEED JOBS FILE [ENGINE [VARIETY]] | tune texel FILE ROUNDS [PRIOR [WEIGHTS_OUT]]"),
    }
}
