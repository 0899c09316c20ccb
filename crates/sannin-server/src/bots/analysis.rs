//! Analysis of a position for players studying it (`POST /api/analyse`, `sannin
//! analyse`): how it is bounded, the game it starts from, and the JSON it answers.

use std::time::Duration;

use sannin_bot::Analysis;
use sannin_rules::{Game, Position};
use serde_json::{json, Value};

use crate::history::{self, ReplayError};

/// How analysis is bounded (`--analyse-max-ms`, `--analyse-concurrency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// Longest search; a request asking more gets this.
    pub max_time: Duration,
    /// Most searches at once (0: analysis is off, every request is busy).
    pub concurrency: usize,
}

/// The JSON object of an analysis, as both `POST /api/analyse` and
/// `sannin analyse --json` give it.
pub fn analysis_json(position: &Position, a: &Analysis) -> Value {
    let evaluations: serde_json::Map<String, Value> = a
        .evaluations
        .iter()
        .map(|e| (format!("{:?}", e.player), e.score.into()))
        .collect();
    json!({
        "position": position.to_string(),
        "player": a.player,
        "best": a.best,
        "line": a.line,
        "score": a.score,
        "mate": a.mate,
        "evaluations": evaluations,
        "depth": a.depth,
        "nodes": a.nodes,
        "ms": u64::try_from(a.elapsed.as_millis()).unwrap_or(u64::MAX),
    })
}

/// The game to analyse: `position` (else the start), then `moves` played in order.
///
/// # Errors
/// `bad_position` (ply 0) or `illegal_action` naming the 1-based ply and the token.
pub fn game_of(position: Option<&str>, moves: &[String]) -> Result<Game, ReplayError> {
    let mut game = Game::from_position(history::start_position(position)?);
    for (i, token) in moves.iter().enumerate() {
        history::play_token(&mut game, i + 1, token)?;
    }
    Ok(game)
}
