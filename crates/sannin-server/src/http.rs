//! HTTP routes (CONTRACT §2) and the WebSocket upgrade (§3).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{DefaultBodyLimit, Extension, Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use sannin_rules::Player;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::oneshot;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;
use uuid::Uuid;

use crate::app::Shared;
use crate::bots;
use crate::clock::ClockRequest;
use crate::error::ApiError;
use crate::history::{self, History};
use crate::limits::{origin_allowed, ClientAddr};
use crate::lobby;
use crate::net::ConnSlot;
use crate::room::{Cmd, RoomHandle, RoomSettings};
use crate::store::{StoredSeat, BOT_TOKEN_HASH};
use crate::ws;
use sannin_protocol::{Created, RoomDetails};

/// The Content Security Policy of every response: everything from the site itself, no
/// inline script or style, no framing. `connect-src 'self'` covers the site's own
/// `ws:`/`wss:` (CSP Level 3); `data:` images are the empty favicon of `index.html`.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
img-src 'self' data:; font-src 'self'; media-src 'self'; connect-src 'self'; \
object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The whole application.
pub fn router(shared: Arc<Shared>) -> Router {
    let static_dir = shared.config.static_dir.clone();
    let index = ServeFile::new(static_dir.join("index.html"));
    let header = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
    };
    Router::new()
        .route("/api/rooms", get(list_rooms).post(create_room))
        .route("/api/rooms/{id}", get(room_details))
        .route("/api/rooms/{id}/record", get(room_record))
        .route("/api/rooms/{id}/history", get(room_history))
        .route("/api/replay", post(replay_record))
        .route("/api/analyse", post(crate::analyse::analyse))
        .route("/api/rooms/{id}/ws", get(room_ws))
        .merge(crate::accounts::routes())
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics))
        .route_service("/rooms/{id}", index.clone())
        .route_service("/rules", index.clone())
        .route_service("/players/{name}", index.clone())
        .route_service("/leaderboard", index.clone())
        .route_service("/account", index.clone())
        .route_service("/analysis", index)
        .route("/api/{*rest}", any(api_not_found))
        .fallback_service(ServeDir::new(static_dir))
        .layer(DefaultBodyLimit::max(64 * 1024))
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .layer(header(header::CONTENT_SECURITY_POLICY, CSP))
        .layer(header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header(header::X_FRAME_OPTIONS, "DENY"))
        .layer(header(header::REFERRER_POLICY, "same-origin"))
        .with_state(shared)
}

/// Checks every request before its handler, and every `/api/` answer after it:
///
/// - a WebSocket upgrade or a state-changing request (POST…) that carries an
///   `Origin` must come from the site itself (its `Host`) or an `--allowed-origins`
///   entry, so that no other site's page can act with a visitor's browser;
///   programs send no `Origin` and pass;
/// - a POST to `/api/` with a body must declare it `application/json`;
/// - an `/api/` error that the HTTP layer answered by itself (unknown path, wrong
///   method, body too large, not a WebSocket upgrade…) gets the JSON error body.
async fn guard(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes || req.headers().contains_key(header::UPGRADE) {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let host = req
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok());
            let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
            if !origin_allowed(&origin, host, &shared.config.clients.allowed_origins) {
                tracing::info!(%origin, path = %req.uri().path(), "cross-site request refused");
                return ApiError::ForbiddenOrigin(origin).into_response();
            }
        }
    }
    if api && req.method() == Method::POST && !json_or_empty(req.headers()) {
        return ApiError::UnsupportedMediaType.into_response();
    }
    let res = next.run(req).await;
    if api {
        json_error_body(res).await
    } else {
        res
    }
}

/// A body declared `application/json`, or no body and no `Content-Type` at all.
fn json_or_empty(h: &HeaderMap) -> bool {
    match h.get(header::CONTENT_TYPE) {
        Some(ct) => ct
            .to_str()
            .ok()
            .and_then(|ct| ct.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json")),
        None => {
            let length = h
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            length.unwrap_or(0) == 0 && !h.contains_key(header::TRANSFER_ENCODING)
        }
    }
}

/// An error answer that is not JSON, rewritten as `{"error":{"code","message"}}` with
/// its status and other headers (`Allow`…) kept.
async fn json_error_body(res: Response) -> Response {
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text).trim().to_string();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_lowercase()
    } else {
        text
    };
    let json = ApiError::Http { status, message }.into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::CONTENT_TYPE);
    let (jparts, jbody) = json.into_parts();
    parts.headers.extend(jparts.headers);
    Response::from_parts(parts, jbody)
}

/// Any other `/api/` path.
async fn api_not_found(req: Request) -> ApiError {
    ApiError::Http {
        status: StatusCode::NOT_FOUND,
        message: format!("no API endpoint {}", req.uri().path()),
    }
}

/// A JSON object body as `T`. Only an object: serde would otherwise read a struct
/// from an array of its fields in order.
pub(crate) fn json_object<T: DeserializeOwned>(body: &[u8], want: &str) -> Result<T, ApiError> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("bad JSON body: {e}")))?;
    if !v.is_object() {
        return Err(ApiError::BadRequest(format!(
            "the body must be a JSON object {want}"
        )));
    }
    serde_json::from_value(v).map_err(|e| ApiError::BadRequest(format!("bad body {want}: {e}")))
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
    /// Seats only for logged-in players; the result moves their ratings.
    #[serde(default)]
    rated: bool,
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
            bot: Some(level),
        });
    }
    Ok(seats)
}

async fn create_room(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<Response, ApiError> {
    let req: CreateRoom = if body.iter().all(u8::is_ascii_whitespace) {
        CreateRoom::default()
    } else {
        json_object(&body, "of room settings, e.g. {\"private\": true}")?
    };
    let clock = match &req.clock {
        None => None,
        Some(c) => c.validate().map_err(ApiError::BadClock)?,
    };
    let seats = bot_seats(req.bots.as_ref())?;
    if req.rated && (!seats.is_empty() || req.bot_takeover) {
        return Err(ApiError::BadBots(
            "a rated room seats no bots (no `bots`, no `bot_takeover`)".into(),
        ));
    }
    let takeover_level = match req.bot_takeover_level.as_ref().filter(|v| !v.is_null()) {
        None => shared.config.bot_takeover_level,
        Some(v) => bots::parse_level(v)
            .map_err(|e| ApiError::BadBots(format!("bot_takeover_level: {e}")))?,
    };
    let settings = RoomSettings {
        clock,
        private: req.private,
        bot_takeover: req.bot_takeover,
        bot_takeover_level: req.bot_takeover.then_some(takeover_level),
        rated: req.rated,
        ..RoomSettings::default()
    };
    match &shared.cluster {
        // A cluster keeps these budgets in the database, for every node at once.
        Some(c) => c.take_room(&shared, client, !seats.is_empty()).await?,
        None => shared.budgets.take_room(client, !seats.is_empty())?,
    }
    let bot_only_place = shared.reserve_bot_only_room(&seats)?;
    let mut site_place = None;
    if bot_only_place.is_some() {
        match &shared.cluster {
            Some(c) => site_place = c.reserve_bot_only(&shared, client).await?,
            None => shared
                .budgets
                .check_bot_only_room(client, |id| shared.is_bot_only_room_running(id))?,
        }
    }
    let created = shared.create_room(req.position, settings, seats).await;
    if let (Some(c), Some(place)) = (&shared.cluster, &site_place) {
        match &created {
            Ok(id) => c.bot_only_created(&shared, place, *id).await,
            Err(_) => c.bot_only_failed(&shared, place).await,
        }
    }
    let id = created?;
    if bot_only_place.is_some() && shared.cluster.is_none() {
        shared.budgets.add_bot_only_room(client, id);
    }
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
    if shared.broken.reason(uuid).is_some() {
        return Err(ApiError::RoomBroken(id));
    }
    let stored = shared
        .read_room(uuid)
        .await?
        .ok_or_else(|| ApiError::RoomNotFound(id.clone()))?;
    match history::of_stored(stored.start_position.as_deref(), &stored.actions) {
        Ok(history) => Ok(Json(history)),
        Err(e) => Err(shared.room_is_broken(uuid, &format!("{e:#}")).await),
    }
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
    let req: ReplayRequest = json_object(&body, r#"{"record": "...", "position": "..."}"#)?;
    history::of_record(&req.record, req.position.as_deref())
        .map(Json)
        .map_err(ApiError::Replay)
}

/// `GET /api/rooms/{id}/ws`. The socket holds its client's slot of
/// `--max-ws-per-address` and its slot of the connection cap as long as it is open.
async fn room_ws(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    client: ClientAddr,
    slot: Option<Extension<ConnSlot>>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let ws = ws.map_err(|e| ApiError::Http {
        status: e.status(),
        message: e.body_text(),
    })?;
    if shared.shutdown.is_cancelled() {
        return Err(ApiError::ShuttingDown);
    }
    let limit = shared.config.listener.ws_handshake_timeout;
    let room = tokio::time::timeout(limit, async {
        let mut room = find(&shared, &id).await?;
        if room.tx.is_closed() {
            // Unloaded (idle and finished) just now: load it again.
            shared.unload_room(room.id);
            room = find(&shared, &id).await?;
        }
        Ok::<_, ApiError>(room)
    })
    .await
    .map_err(|_| ApiError::HandshakeTimeout)??;
    // The account of the session cookie, for the seats of rated rooms.
    let account = match crate::accounts::Accounts::token(&headers) {
        None => None,
        Some(_) => shared
            .accounts
            .account_of(&headers)
            .await
            .map(|(a, _)| Arc::<str>::from(a.name)),
    };
    let held = match &shared.cluster {
        // A cluster counts the sockets of every node.
        Some(c) => (None, Some(c.open_ws(client).await?), slot),
        None => (Some(shared.budgets.open_ws(client)?), None, slot),
    };
    let ws = ws.on_failed_upgrade(|e| tracing::debug!(error = %e, "WebSocket upgrade failed"));
    let cap = shared.config.hard_message_cap();
    // A small read buffer: protocol messages are small (an `act` is about 40 bytes), and
    // at thousands of connections the 128 KiB default dominates memory. tungstenite
    // also zero-fills the free part of the buffer before every read, so each KiB of it
    // is written once per message received; a larger message takes a few reads.
    // Frames written are gathered up to `WRITE_GATHER` bytes: the writer flushes after
    // each burst (an event and the state after it), so a burst goes out in one `send`
    // instead of one a frame; the buffer only ever holds what a burst needs.
    Ok(ws
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_GATHER)
        .max_message_size(cap)
        .max_frame_size(cap)
        .on_upgrade(move |socket| async move {
            ws::connection(socket, room, shared, account).await;
            drop(held);
        }))
}

/// Bytes read from a socket at a time (see `room_ws`).
const READ_BUFFER: usize = 1024;

/// The most bytes of frames gathered before they are written (see `room_ws`).
const WRITE_GATHER: usize = 16 * 1024;

async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let mut body = shared.metrics.render(shared.room_counts());
    shared.bots.render_metrics(&mut body);
    let (commits, rows) = shared.store.action_commits();
    body.push_str(&format!(
        "# HELP sannin_action_commits Commits of action rows by the group commit.\n\
         # TYPE sannin_action_commits counter\nsannin_action_commits {commits}\n\
         # HELP sannin_action_rows Action rows stored by the group commit.\n\
         # TYPE sannin_action_rows counter\nsannin_action_rows {rows}\n"
    ));
    body.push_str(&format!(
        "# HELP sannin_client_budgets Client addresses with a partly spent rate budget.\n\
         # TYPE sannin_client_budgets gauge\nsannin_client_budgets {}\n",
        shared.budgets.tracked()
    ));
    body.push_str(&format!(
        "# HELP sannin_analyses_running Searches of POST /api/analyse running.\n\
         # TYPE sannin_analyses_running gauge\nsannin_analyses_running {}\n",
        shared.budgets.analyses_running()
    ));
    body.push_str(&format!(
        "# HELP sannin_rooms_broken Stored rooms this node could not restore (logged with \
         their id and reason; listed nowhere).\n\
         # TYPE sannin_rooms_broken gauge\nsannin_rooms_broken {}\n",
        shared.broken.len()
    ));
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body).into_response()
}
