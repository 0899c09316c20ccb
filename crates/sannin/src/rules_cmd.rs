//! `sannin perft`, `sannin moves` and `sannin replay` (docs/cli.md, "Rules").

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use sannin_rules::{perft_divide, Entry, Game, Position, Record, ReplayError, ReplayFailure};

fn position(arg: Option<&str>) -> Result<Position> {
    match arg {
        None => Ok(Position::start()),
        Some(s) => s
            .parse()
            .map_err(|e| anyhow::anyhow!("bad --position: {e}")),
    }
}

#[derive(Args)]
pub struct PerftArgs {
    /// Number of plies.
    depth: u32,
    /// Position string (RULES §13.3); the start position by default.
    #[arg(long)]
    position: Option<String>,
    /// Print the count under each first action.
    #[arg(long)]
    divide: bool,
}

pub fn perft(args: PerftArgs) -> Result<ExitCode> {
    let pos = position(args.position.as_deref())?;
    let mut out = std::io::stdout().lock();
    let total = if args.divide {
        let rows = perft_divide(&pos, args.depth);
        let mut total = 0;
        for (action, n) in rows {
            writeln!(out, "{action} {n}")?;
            total += n;
        }
        if args.depth == 0 {
            1
        } else {
            total
        }
    } else {
        sannin_rules::perft(&pos, args.depth)
    };
    writeln!(out, "{total}")?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct MovesArgs {
    /// Position string (RULES §13.3); the start position by default.
    #[arg(long)]
    position: Option<String>,
}

pub fn moves(args: MovesArgs) -> Result<ExitCode> {
    let game = Game::from_position(position(args.position.as_deref())?);
    let mut out = std::io::stdout().lock();
    for a in game.legal_notation() {
        writeln!(out, "{a}")?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ReplayArgs {
    /// Start position (RULES §13.3); otherwise the record's `Position` header or the start.
    #[arg(long)]
    position: Option<String>,
    /// One JSON object per action.
    #[arg(long)]
    json: bool,
    /// The game record file, or - for standard input.
    file: String,
}

pub fn replay(args: ReplayArgs) -> Result<ExitCode> {
    let text = if args.file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        s
    } else {
        std::fs::read_to_string(&args.file).with_context(|| format!("reading {}", args.file))?
    };
    let record = Record::parse(&text).map_err(|e| anyhow::anyhow!("{e}"))?;
    let start = match (&args.position, record.header("Position")) {
        (Some(p), _) => position(Some(p))?,
        (None, Some(p)) => p
            .parse()
            .map_err(|e| anyhow::anyhow!("bad Position header: {e}"))?,
        (None, None) => Position::start(),
    };
    let mut game = Game::from_position(start);
    let mut out = std::io::stdout().lock();
    for (i, token) in record.actions.iter().enumerate() {
        let ply = i + 1;
        let fail = |reason| ReplayError {
            ply,
            token: token.clone(),
            reason,
        };
        let Some(player) = game.to_move() else {
            out.flush()?;
            eprintln!("{}", fail(ReplayFailure::GameOver));
            return Ok(ExitCode::FAILURE);
        };
        match game.play_notation(player, token) {
            Ok(played) => {
                let action = game
                    .log()
                    .last()
                    .and_then(Entry::notation)
                    .unwrap_or_default();
                if args.json {
                    let line = serde_json::json!({
                        "ply": ply,
                        "player": player,
                        "action": action,
                        "events": played.events,
                        "position": game.position().to_string(),
                    });
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "{ply}. {player} {action}")?;
                }
            }
            Err(e) => {
                out.flush()?;
                eprintln!("{}", fail(ReplayFailure::Play(e)));
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    if !args.json {
        writeln!(out, "{}", game.position())?;
    }
    if record.actions.is_empty() && text.trim().is_empty() {
        bail!("the record is empty");
    }
    Ok(ExitCode::SUCCESS)
}
