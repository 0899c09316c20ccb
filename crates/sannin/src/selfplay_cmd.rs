//! `sannin selfplay`: bots against bots in this process, seats rotated each
//! game, reported as a table per slot, a rating ladder per level (score
//! share and Elo with 95 % intervals, `sannin_bot::arena`) and, last, the
//! JSON line of docs/cli.md ("Bots").

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::bail;
use sannin_bot::arena::{play_game, GameRecord, Ladder};
use sannin_bot::{Level, Limits};

use crate::bot_cmd::parse_level;

/// Flags of `sannin selfplay`.
#[derive(Debug, clap::Args)]
pub struct SelfplayArgs {
    /// Games to play (a multiple of 3 gives every level every seat equally often).
    #[arg(long, default_value_t = 3)]
    pub games: usize,

    /// Three levels (0 to 5, or Beginner, Casual, Strong, Master, Grandmaster), seated
    /// First, Middle, Last in the first game; the seats rotate by one each game.
    #[arg(long, value_delimiter = ',', value_parser = parse_level, default_value = "1,0,0")]
    pub levels: Vec<Level>,

    /// Seed of every random choice: the same seed plays the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Actions after which an unfinished game stops and counts as a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,

    /// Print one line per game (plies, result, the seat of each level), and on
    /// standard error a line as each game finishes.
    #[arg(long)]
    pub verbose: bool,

    /// Games played at once, on as many threads (the games and their results
    /// do not depend on it; time per move does, on a busy machine).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,

    /// Equal time: every bot searches this many milliseconds a move, whatever its
    /// level's node budget, so that a match measures the search and not its budget
    /// (the games then depend on the machine and its load: run at most one game per
    /// free core). 0: each level's node budget.
    #[arg(long, default_value_t = 0)]
    pub movetime: u64,
}

impl SelfplayArgs {
    /// The bots' limits: each level's node budget, or `--movetime` for all.
    fn limits(&self) -> Limits {
        match self.movetime {
            0 => Limits::default(),
            ms => Limits {
                nodes: Some(u64::MAX),
                time: Some(std::time::Duration::from_millis(ms)),
            },
        }
    }
}

/// Plays every game, `jobs` at a time; the records in game order.
fn play_all(
    levels: [Level; 3],
    args: &SelfplayArgs,
    limits: Limits,
) -> anyhow::Result<Vec<GameRecord>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<GameRecord, String>>>> =
        Mutex::new(vec![None; args.games]);
    std::thread::scope(|scope| {
        for _ in 0..args.jobs.clamp(1, args.games) {
            scope.spawn(|| loop {
                let g = next.fetch_add(1, Ordering::Relaxed);
                if g >= args.games {
                    break;
                }
                let r = play_game(levels, g, args.seed, args.max_plies, limits);
                let mut all = results.lock().unwrap_or_else(|e| e.into_inner());
                if args.verbose {
                    let done = all.iter().filter(|r| r.is_some()).count() + 1;
                    let plies = r.as_ref().map_or(0, |rec| rec.plies);
                    eprintln!(
                        "game {} finished ({done} of {}), {plies} plies",
                        g + 1,
                        args.games
                    );
                }
                all[g] = Some(r);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results
        .into_iter()
        .enumerate()
        .map(|(g, r)| match r {
            Some(Ok(rec)) => Ok(rec),
            Some(Err(e)) => Err(anyhow::anyhow!("game {}: {e}", g + 1)),
            None => Err(anyhow::anyhow!("game {} was not played", g + 1)),
        })
        .collect()
}

/// Plays the games and prints the report.
///
/// # Errors
/// Not exactly three levels, no games, or a bot returning no action (a bug).
pub fn selfplay(args: SelfplayArgs) -> anyhow::Result<ExitCode> {
    let [a, b, c] = args.levels[..] else {
        bail!("--levels needs three levels, e.g. 2,1,1");
    };
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let levels = [a, b, c];
    let limits = args.limits();
    let started = Instant::now();
    let mut scores = Vec::with_capacity(args.games);
    let mut seat_wins = [[0.0f64; 3]; 3];
    let mut moves = [0u64; 3];
    let mut seconds = [0.0f64; 3];
    let mut max_seconds = [0.0f64; 3];
    let mut unfinished = 0usize;
    let mut total_plies = 0usize;
    for (g, r) in play_all(levels, &args, limits)?.into_iter().enumerate() {
        for j in 0..3 {
            seat_wins[j][r.seats[j].index()] += r.score[j];
            moves[j] += r.moves[j];
            seconds[j] += r.seconds[j];
            max_seconds[j] = max_seconds[j].max(r.max_seconds[j]);
        }
        unfinished += r.reason.is_none() as usize;
        total_plies += r.plies;
        if args.verbose {
            let seats: Vec<String> = (0..3)
                .map(|j| format!("{}=L{}", r.seats[j].letter(), levels[j]))
                .collect();
            let winners: Vec<String> = (0..3)
                .filter(|&j| r.score[j] > 0.5)
                .map(|j| format!("L{}@{}", levels[j], r.seats[j]))
                .collect();
            let result = match &r.reason {
                Some(why) if !winners.is_empty() => format!("{} wins ({why})", winners.join("+")),
                Some(why) => format!("draw ({why})"),
                None => "draw (ply limit)".to_string(),
            };
            println!(
                "game {:3}: {} {:3} plies, {result}",
                g + 1,
                seats.join(" "),
                r.plies
            );
        }
        scores.push(r.score);
    }
    let n = args.games as f64;
    let listed = levels.map(|l| l.to_string()).join(",");
    println!(
        "{} games, levels {listed} (seats rotated), seed {}, ply limit {}, {:.1} s",
        args.games,
        args.seed,
        args.max_plies,
        started.elapsed().as_secs_f64()
    );
    println!("slot  level  score   share  wins@F  wins@M  wins@L   moves  ms/move  max ms");
    let ms = |j: usize| 1000.0 * seconds[j] / moves[j].max(1) as f64;
    for j in 0..3 {
        let score: f64 = scores.iter().map(|s| s[j]).sum();
        println!(
            "{:4}  {:5}  {:5.1}  {:5.1}%  {:6.1}  {:6.1}  {:6.1}  {:6}  {:7.1}  {:6.0}",
            j + 1,
            levels[j].to_string(),
            score,
            100.0 * score / n,
            seat_wins[j][0],
            seat_wins[j][1],
            seat_wins[j][2],
            moves[j],
            ms(j),
            1000.0 * max_seconds[j]
        );
    }
    let by_seat: Vec<f64> = (0..3)
        .map(|s| (0..3).map(|j| seat_wins[j][s]).sum())
        .collect();
    println!(
        "wins by seat: First {:.1}, Middle {:.1}, Last {:.1}; unfinished (ply limit) {unfinished}; average length {:.1} plies",
        by_seat[0],
        by_seat[1],
        by_seat[2],
        total_plies as f64 / n
    );
    let ladder = Ladder::from_games(levels, &scores);
    println!("rating ladder (95% intervals; an equal level scores 33.3% a slot):");
    println!("level  name      slots  share per slot            Elo");
    for r in ladder.rungs.iter().rev() {
        let elo = match r.elo {
            Some((e, lo, hi)) => format!("{e:+5.0} [{lo:+.0}, {hi:+.0}]"),
            None => "-".to_string(),
        };
        println!(
            "{:5}  {:8}  {:5}  {:5.1}% [{:4.1}%, {:4.1}%]   {elo}",
            r.level.to_string(),
            r.level.name(),
            r.slots,
            100.0 * r.share,
            100.0 * r.share_low,
            100.0 * r.share_high
        );
    }
    let json = serde_json::json!({
        "games": args.games,
        "levels": levels.map(|l| l.number()),
        "share": (0..3).map(|j| scores.iter().map(|s| s[j]).sum::<f64>() / n).collect::<Vec<_>>(),
        "ms_per_move": (0..3).map(|j| (ms(j) * 10.0).round() / 10.0).collect::<Vec<_>>(),
        "movetime_ms": (args.movetime > 0).then_some(args.movetime),
    });
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}
