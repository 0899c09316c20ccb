//! `POST /api/analyse` (`docs/protocol.md`, "Analysis"): the bots' search run on a
//! position for a player studying it, and the JSON shape shared with
//! `sannin analyse --json`.
//!
//! Bounded so that analysis never takes the server from the games: the search time is
//! capped (`--analyse-max-ms`), at most `--analyse-concurrency` searches run at once
//! (others wait in line, first come first served, up to four times that cap, then
//! `503 analysis_busy`), an address has at most `--analyses-per-address` requests
//! running or waiting (one more: `503 analysis_busy` at once), and each address has
//! a budget (`--analyse-per-minute`). The place and the budget are taken before the
//! moves are played; the replay and the search run on the blocking pool outside the
//! game bots' queue ([`crate::bots`]), so a waiting bot never waits for an analysis.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use sannin_bot::AnalyseLimits;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::Shared;
use crate::http::ApiError;
use crate::limits::ClientAddr;
use crate::limits::Rate;
use sannin_protocol::ApiCode;

/// Search time when the request names none: a second, or the cap if lower.
const DEFAULT_TIME: Duration = Duration::from_secs(1);

/// Body of `POST /api/analyse`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseRequest {
    /// Position string (RULES §13.3); the start position when absent.
    #[serde(default)]
    position: Option<String>,
    /// Canonical actions played from `position` first (they carry the repetition
    /// history a position string lacks).
    #[serde(default)]
    moves: Vec<String>,
    /// Search time in milliseconds, capped by `--analyse-max-ms`.
    #[serde(default)]
    movetime_ms: Option<u64>,
}

/// `POST /api/analyse`.
pub async fn analyse(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let req: AnalyseRequest = super::extract::json_object(
        &body,
        r#"{"position": "...", "moves": [...], "movetime_ms": 1000}"#,
    )?;
    // The position is read at once (a string, cheaply); the moves are played only
    // once a place and the budget are taken, on the blocking pool.
    let start =
        crate::history::start_position(req.position.as_deref()).map_err(ApiError::Replay)?;
    let settings = shared.config.analysis;
    let time = req
        .movetime_ms
        .map_or(DEFAULT_TIME, Duration::from_millis)
        .min(settings.max_time);
    // Busy before budget: a refused request costs the client nothing. One request
    // per address runs or waits at a time.
    let turn = shared.budgets.analysis_turn(client)?;
    let permit = shared.budgets.analysis_slot().await?;
    shared.budgets.take(Rate::Analyses, client).await?;
    let moves = req.moves;
    let game = tokio::task::spawn_blocking(move || game_of_moves(start, &moves))
        .await
        .map_err(|e| ApiError::Internal(e.into()))??;
    if game.to_move().is_none() {
        return Err(ApiError::NothingToAnalyse);
    }
    // The engine is locked for the position of a game in play (docs/moderation.md).
    if is_live(&shared, crate::fairplay::live::key_of(game.position())).await? {
        return Err(ApiError::coded(
            StatusCode::FORBIDDEN,
            ApiCode::LiveGame,
            "this position is on the board of a game in play: the engine opens for it once that game ends",
        ));
    }
    let (position, found) = tokio::task::spawn_blocking(move || {
        let out = {
            let position = game.position().clone();
            let found = sannin_bot::analyse(
                &game,
                AnalyseLimits {
                    movetime: Some(time),
                    nodes: None,
                },
            )
            .ok_or(ApiError::NothingToAnalyse);
            found.map(|found| (position, found))
        };
        // The slot is held until the search ends, even if the client left.
        drop((permit, turn));
        out
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))??;
    tracing::debug!(client = %client, depth = found.depth, nodes = found.nodes, "analysis");
    Ok(Json(analysis_json(&position, &found)))
}

/// Whether a game in play with a person seated stands at the position of `key`: a room
/// of this node, a room another node of the cluster owns, or a sleeping room.
///
/// # Errors
/// The database could not be asked about the sleeping rooms.
async fn is_live(shared: &Shared, key: u64) -> sqlx::Result<bool> {
    if shared.rooms.live.contains(key) {
        return Ok(true);
    }
    if shared
        .cluster
        .as_ref()
        .is_some_and(|c| c.live_elsewhere(key))
    {
        return Ok(true);
    }
    shared.store.sleeps_at(key).await
}

/// The game of `start` after `moves`.
fn game_of_moves(
    start: sannin_rules::Position,
    moves: &[String],
) -> Result<sannin_rules::Game, ApiError> {
    let mut game = sannin_rules::Game::from_position(start);
    for (i, token) in moves.iter().enumerate() {
        crate::history::play_token(&mut game, i + 1, token).map_err(ApiError::Replay)?;
    }
    Ok(game)
}

/// The JSON object of an analysis, as both `POST /api/analyse` and
/// `sannin analyse --json` give it.
pub fn analysis_json(position: &sannin_rules::Position, a: &sannin_bot::Analysis) -> Value {
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
