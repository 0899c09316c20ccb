//! `POST /api/analyse` (`docs/protocol.md`, "Analysis"): the bots' search run on a
//! position for a player studying it, and the JSON shape shared with
//! `sannin analyse --json`.
//!
//! Bounded three ways so that analysis never takes the server from the games: the
//! search time is capped (`--analyse-max-ms`), at most `--analyse-concurrency`
//! searches run at once (one more is answered `503 analysis_busy` at once, not
//! queued), and each client address has a budget (`--analyse-per-minute`). The
//! search runs on the blocking pool outside the game bots' queue
//! ([`crate::bots`]), so a waiting bot never waits for an analysis.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::Json;
use sannin_bot::AnalyseLimits;
use serde::Deserialize;
use serde_json::Value;

use crate::app::Shared;
use crate::bots::{analysis_json, game_of};
use crate::error::ApiError;
use crate::limits::ClientAddr;

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
    let game = game_of(req.position.as_deref(), &req.moves).map_err(ApiError::Replay)?;
    if game.to_move().is_none() {
        return Err(ApiError::NothingToAnalyse);
    }
    let settings = shared.config.analysis;
    let time = req
        .movetime_ms
        .map_or(DEFAULT_TIME, Duration::from_millis)
        .min(settings.max_time);
    // Busy before budget: a refused request costs the client nothing.
    let permit = shared.budgets.analysis_slot()?;
    match &shared.cluster {
        // A cluster keeps this budget in the database, for every node at once.
        Some(c) => c.take_analysis(client).await?,
        None => shared.budgets.take_analysis(client)?,
    }
    let position = game.position().clone();
    let found = tokio::task::spawn_blocking(move || {
        let found = sannin_bot::analyse(
            &game,
            AnalyseLimits {
                movetime: Some(time),
                nodes: None,
            },
        );
        // The slot is held until the search ends, even if the client left.
        drop(permit);
        found
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?
    .ok_or(ApiError::NothingToAnalyse)?;
    tracing::debug!(client = %client, depth = found.depth, nodes = found.nodes, "analysis");
    Ok(Json(analysis_json(&position, &found)))
}
