//! HTTP routes (CONTRACT §2) and the WebSocket upgrade (§3).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use sannin_rules::Player;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::oneshot;
use tower_http::services::{ServeDir, ServeFile};
use uuid::Uuid;

use crate::app::Shared;
use crate::bots;
use crate::clock::ClockRequest;
use crate::error::ApiError;
use crate::history::{self, History};
use crate::lobby;
use crate::room::{Cmd, RoomHandle, RoomSettings};
use crate::store::{StoredSeat, BOT_TOKEN_HASH};
use crate::ws;
use sannin_protocol::{Created, RoomDetails};

/// The whole application.
pub fn router(shared: Arc<Shared>) -> Router {
    let static_dir = shared.config.static_dir.clone();
    let index = ServeFile::new(static_dir.join("index.html"));
    Router::new()
        .route("/api/rooms", get(list_rooms).post(create_room))
        .route("/api/rooms/{id}", get(room_details))
        .route("/api/rooms/{id}/record", get(room_record))
        .route("/api/rooms/{id}/history", get(room_history))
        .route("/api/replay", post(replay_record))
        .route("/api/rooms/{id}/ws", get(room_ws))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics))
        .route_service("/rooms/{id}", index.clone())
        .route_service("/rules", index.clone())
        .route_service("/analysis", index)
        .fallback_service(ServeDir::new(static_dir))
        .layer(DefaultBodyLimit::max(64 * 1024))
        .with_state(shared)
}

/// Body of `POST /api/rooms`; every field optional.
#[derive(Debug, Default, Deserialize)]
struct CreateRoom {
    /// Start from this position string (RULES §13.3) instead of the standard start.
    #[serde(default)]
    position: Option<String>,
    /// Time control; absent or `{"kind":"none"}`: no clock.
    #[serde(default)]
    clock: Option<ClockRequest>,
    /// Not listed in `GET /api/rooms`; joinable by link only.
    #[serde(default)]
    private: bool,
    /// Bot seats: `{"middle": 2, "last": 3}` (seat → level 0..3, null: no bot).
    #[serde(default)]
    bots: Option<Value>,
    /// A player who abandons is replaced by a bot instead of losing.
    #[serde(default)]
    bot_takeover: bool,
    /// Level of that bot (default `--bot-takeover-level`).
    #[serde(default)]
    bot_takeover_level: Option<Value>,
}

/// The bot seats of `POST /api/rooms`'s `bots`.
fn bot_seats(v: Option<&Value>) -> Result<Vec<StoredSeat>, ApiError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let Value::Object(m) = v else {
        return Err(ApiError::BadBots(format!(
            "`bots` must be an object of seat → level, e.g. {{\"middle\": 2}}, not {v}"
        )));
    };
    let mut seats = Vec::new();
    for (k, level) in m {
        let seat = Player::from_lower(k).ok_or_else(|| {
            ApiError::BadBots(format!(
                "unknown seat {k:?} in `bots`: want first, middle or last"
            ))
        })?;
        if level.is_null() {
            continue;
        }
        let level = bots::parse_level(level).map_err(|e| ApiError::BadBots(format!("{k}: {e}")))?;
        seats.push(StoredSeat {
            seat,
            token_hash: BOT_TOKEN_HASH.into(),
            name: bots::bot_name(level),
            bot: Some(level.number()),
        });
    }
    Ok(seats)
}

async fn create_room(State(shared): State<Arc<Shared>>, body: Bytes) -> Result<Response, ApiError> {
    let req: CreateRoom = if body.iter().all(u8::is_ascii_whitespace) {
        CreateRoom::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::BadRequest(format!("bad JSON body: {e}")))?
    };
    let clock = match &req.clock {
        None => None,
        Some(c) => c.validate().map_err(ApiError::BadClock)?,
    };
    let seats = bot_seats(req.bots.as_ref())?;
    let takeover_level = match req.bot_takeover_level.as_ref().filter(|v| !v.is_null()) {
        None => shared.config.bot_takeover_level,
        Some(v) => bots::parse_level(v)
            .map_err(|e| ApiError::BadBots(format!("bot_takeover_level: {e}")))?
            .number(),
    };
    let settings = RoomSettings {
        clock,
        private: req.private,
        bot_takeover: req.bot_takeover,
        bot_takeover_level: req.bot_takeover.then_some(takeover_level),
        ..RoomSettings::default()
    };
    let id = shared.create_room(req.position, settings, seats).await?;
    Ok((StatusCode::CREATED, Json(Created { id: id.to_string() })).into_response())
}

async fn list_rooms(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<lobby::ListQuery>,
) -> Result<Response, ApiError> {
    lobby::list(&shared, q).await
}

fn parse_id(id: &str) -> Result<Uuid, ApiError> {
    id.parse()
        .map_err(|_| ApiError::RoomNotFound(id.to_string()))
}

async fn find(shared: &Arc<Shared>, id: &str) -> Result<RoomHandle, ApiError> {
    let uuid = parse_id(id)?;
    shared
        .room(uuid)
        .await?
        .ok_or_else(|| ApiError::RoomNotFound(id.to_string()))
}

/// Asks the room actor something, with a timeout so a wedged room cannot hang HTTP.
/// A room that unloaded itself meanwhile (idle and finished) is loaded again once.
async fn ask<T>(
    shared: &Arc<Shared>,
    id: &str,
    make: impl Fn(oneshot::Sender<T>) -> Cmd,
) -> Result<T, ApiError> {
    for _ in 0..2 {
        let room = find(shared, id).await?;
        let (tx, rx) = oneshot::channel();
        if room.tx.send(make(tx)).await.is_err() {
            shared.unload_room(room.id);
            continue;
        }
        match tokio::time::timeout(Duration::from_secs(10), rx).await {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(_)) => shared.unload_room(room.id),
            Err(_) => {
                return Err(ApiError::Internal(anyhow::anyhow!(
                    "room {} did not answer",
                    room.id
                )))
            }
        }
    }
    Err(ApiError::ShuttingDown)
}

async fn room_details(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Json<RoomDetails>, ApiError> {
    Ok(Json(
        ask(&shared, &id, |reply| Cmd::Details { reply }).await?,
    ))
}

async fn room_record(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // The link as the reader reached it (behind a proxy: its forwarded scheme).
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = headers
        .get("x-forwarded-proto")
        .and_then(|h| h.to_str().ok())
        .filter(|s| *s == "https")
        .unwrap_or("http");
    let site = format!("{scheme}://{host}/rooms/{id}");
    let record = ask(&shared, &id, |reply| Cmd::Record {
        site: site.clone(),
        reply,
    })
    .await?;
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        record,
    )
        .into_response())
}

/// `GET /api/rooms/{id}/history`: every stored action with the position after it, read
/// from the database (what is stored is what happened: nothing is broadcast before it
/// is stored).
async fn room_history(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Json<History>, ApiError> {
    let uuid = parse_id(&id)?;
    let stored = shared
        .store
        .load_room(&uuid.to_string())
        .await
        .map_err(ApiError::Internal)?
        .ok_or_else(|| ApiError::RoomNotFound(id.clone()))?;
    let history = history::of_stored(stored.start_position.as_deref(), &stored.actions)
        .map_err(ApiError::Internal)?;
    Ok(Json(history))
}

/// Body of `POST /api/replay`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayRequest {
    /// A game record (RULES §13.2); may hold only headers, or nothing.
    #[serde(default)]
    record: String,
    /// Start from this position string instead of the record's `Position` header.
    #[serde(default)]
    position: Option<String>,
}

/// `POST /api/replay`: a pasted record (or a position alone) played out ply by ply, for
/// the analysis board and the position editor.
async fn replay_record(body: Bytes) -> Result<Json<History>, ApiError> {
    let req: ReplayRequest = serde_json::from_slice(&body).map_err(|e| {
        ApiError::BadRequest(format!(
            "want a JSON object {{\"record\": \"...\", \"position\": \"...\"}}: {e}"
        ))
    })?;
    history::of_record(&req.record, req.position.as_deref())
        .map(Json)
        .map_err(ApiError::Replay)
}

async fn room_ws(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    if shared.shutdown.is_cancelled() {
        return Err(ApiError::ShuttingDown);
    }
    let mut room = find(&shared, &id).await?;
    if room.tx.is_closed() {
        // Unloaded (idle and finished) just now: load it again.
        shared.unload_room(room.id);
        room = find(&shared, &id).await?;
    }
    let cap = shared.config.hard_message_cap();
    // Small buffers: protocol messages are small, and at thousands of connections the
    // 128 KiB defaults dominate memory.
    Ok(ws
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_message_size(cap)
        .max_frame_size(cap)
        .on_upgrade(move |socket| ws::connection(socket, room, shared)))
}

async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let mut body = shared.metrics.render(shared.room_counts());
    shared.bots.render_metrics(&mut body);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body).into_response()
}
