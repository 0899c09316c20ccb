//! Analysis of a position for players studying it (`POST /api/analyse`, `sannin
//! analyse`): how it is bounded and the game it starts from (the JSON it answers is
//! the web layer's, `http/analyse.rs`).

use std::time::Duration;

use sannin_rules::Game;

use crate::history::{self, ReplayError};

/// How analysis is bounded (`--analyse-max-ms`, `--analyse-concurrency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// Longest search; a request asking more gets this.
    pub max_time: Duration,
    /// Most searches at once (0: analysis is off, every request is busy).
    pub concurrency: usize,
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
