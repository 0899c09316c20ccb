//! `sannin analyse` (docs/cli.md, "Bots"): the bots' search on one position, for players.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use sannin_bot::{AnalyseLimits, Analysis, WIN};
use sannin_rules::{Game, Position, Record};

#[derive(Args)]
pub struct AnalyseArgs {
    /// Position string (RULES §13.3); the start position by default. With
    /// `--record`, the position the record starts from.
    #[arg(long)]
    position: Option<String>,
    /// A game record file (as `sannin replay` reads it), or - for standard input:
    /// the position at its end is analysed.
    #[arg(long)]
    record: Option<String>,
    /// Search time in milliseconds; 1000 unless `--nodes` is given (the first
    /// iteration, every action with its capture replies, always completes).
    #[arg(long)]
    movetime: Option<u64>,
    /// Stop after this many actions played (deterministic unless `--movetime`
    /// is given too).
    #[arg(long)]
    nodes: Option<u64>,
    /// Print one JSON object (the shape of `POST /api/analyse`).
    #[arg(long)]
    json: bool,
}

fn game(args: &AnalyseArgs) -> Result<Game> {
    let start = match &args.position {
        None => None,
        Some(s) => Some(
            s.parse::<Position>()
                .map_err(|e| anyhow!("bad --position: {e}"))?,
        ),
    };
    let Some(file) = &args.record else {
        return Ok(Game::from_position(start.unwrap_or_else(Position::start)));
    };
    let text = if file == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading standard input")?
    } else {
        std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?
    };
    let record = Record::parse(&text).map_err(|e| anyhow!("{file}: {e}"))?;
    sannin_rules::replay(&record, start).map_err(|e| anyhow!("{file}: {e}"))
}

/// A score as people read it: signed centipawns, or a win or loss.
fn show(score: i32) -> String {
    if score >= WIN {
        "won".into()
    } else if score <= -WIN {
        "lost".into()
    } else {
        format!("{score:+}")
    }
}

fn print_plain(out: &mut impl Write, pos: &Position, a: &Analysis) -> std::io::Result<()> {
    writeln!(out, "position: {pos}")?;
    writeln!(out, "to move: {}", a.player)?;
    writeln!(
        out,
        "search: depth {}, {} nodes, {} ms",
        a.depth,
        a.nodes,
        a.elapsed.as_millis()
    )?;
    let mate = match a.mate {
        Some(n) if n > 0 => format!(" (wins in {n} {})", plies(n)),
        Some(n) => format!(" (loses in {} {})", -n, plies(-n)),
        None => String::new(),
    };
    writeln!(out, "score: {:+}{mate}", a.score)?;
    writeln!(out, "line: {}", a.line.join(" "))?;
    let evals: Vec<String> = a
        .evaluations
        .iter()
        .map(|e| format!("{} {}", e.player, show(e.score)))
        .collect();
    writeln!(out, "evaluation after the line: {}", evals.join(", "))?;
    writeln!(out, "{}", a.best)
}

pub fn analyse(args: AnalyseArgs) -> Result<ExitCode> {
    let game = game(&args)?;
    if game.to_move().is_none() {
        bail!("the game is over: nothing to analyse");
    }
    let limits = AnalyseLimits {
        movetime: args.movetime.map(Duration::from_millis),
        nodes: args.nodes,
    };
    let Some(found) = sannin_bot::analyse(&game, limits) else {
        bail!("no legal action: nothing to analyse");
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = sannin_server::analysis_json(game.position(), &found);
        writeln!(out, "{v}")?;
    } else {
        print_plain(&mut out, game.position(), &found)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn plies(n: i32) -> &'static str {
    if n == 1 {
        "ply"
    } else {
        "plies"
    }
}
