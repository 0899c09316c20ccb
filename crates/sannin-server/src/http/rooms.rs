//! A room over HTTP: creating one (`POST /api/rooms`), its details, record and
//! history, and a pasted record played out (`POST /api/replay`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use sannin_protocol::{Created, RoomDetails};
use sannin_rules::Player;
use serde::Deserialize;
use serde_json::Value;
use uuid::Uuid;

use super::extract::{json_object, ClientAddr};
use crate::app::Shared;
use crate::bots;
use crate::bots::alliance::BotsAlly;
use crate::clock::ClockRequest;
use crate::history::{self, History};
use crate::http::ApiError;
use crate::limits::Rate;
use crate::room::RoomError;
use crate::room::{Gone, RoomHandle, RoomSettings};
use crate::store::{StoredRoom, StoredSeat, BOT_TOKEN_HASH};
use std::time::Duration;

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
    /// Whether the two bots of a room of one person ally against it: `never` (the
    /// default), `sometimes` (at the stronger bot's level's rate), `always`.
    #[serde(default)]
    bots_ally: Option<Value>,
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
            account_id: None,
        });
    }
    Ok(seats)
}

pub(super) async fn create(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let account = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
        .map(|(a, _)| a.id);
    super::moderation::refuse_banned(&shared, account.as_deref(), client)?;
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
    let bots_ally = match req.bots_ally.filter(|v| !v.is_null()) {
        None => BotsAlly::Never,
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
            ApiError::BadBots(format!(
                "`bots_ally` is \"never\", \"sometimes\" or \"always\", not {v}"
            ))
        })?,
    };
    let settings = RoomSettings {
        clock,
        private: req.private,
        bot_takeover: req.bot_takeover,
        bot_takeover_level: req.bot_takeover.then_some(takeover_level),
        rated: req.rated,
        bots_ally,
        created_by: Some(client),
        ..RoomSettings::default()
    };
    shared.budgets.take_room(client, !seats.is_empty()).await?;
    // Rooms made and not started: per address and per account.
    let mut waiting_keys = vec![format!("addr:{client}")];
    if let Some(a) = &account {
        waiting_keys.push(format!("account:{a}"));
    }
    shared
        .budgets
        .check_waiting_rooms(&waiting_keys, |id| shared.is_waiting_here(id))?;
    let bot_only_place = shared.reserve_bot_only_room(&seats)?;
    // Any room with bots may become one of bots alone (the person resigns and the two
    // play on): the address's such rooms count as its rooms of bots alone.
    let reservation = match seats.is_empty() {
        true => crate::limits::BotOnlyReservation::None,
        false => {
            let all_bots = bot_only_place.is_some();
            shared
                .budgets
                .reserve_bot_only(client, all_bots, |id| shared.bot_room_state(id))
                .await?
        }
    };
    let created = shared.create_room(req.position, settings, seats).await;
    let made = created.as_ref().ok().copied();
    shared.budgets.bot_only_made(reservation, made).await;
    let id = created?;
    shared.budgets.add_waiting_room(&waiting_keys, id);
    Ok((StatusCode::CREATED, Json(Created { id: id.to_string() })).into_response())
}

pub(super) fn parse_id(id: &str) -> Result<Uuid, ApiError> {
    id.parse()
        .map_err(|_| RoomError::NotFound(id.to_string()).into())
}

/// The room id of a path, refused when malformed (`room_not_found`) or when the room
/// is known to be broken (`room_broken`).
pub(super) fn usable_id(shared: &Shared, id: &str) -> Result<Uuid, ApiError> {
    let uuid = parse_id(id)?;
    if shared.rooms.broken.reason(uuid).is_some() {
        return Err(RoomError::Broken(id.to_string()).into());
    }
    Ok(uuid)
}

/// Room `uuid` as stored, read from the database; `room_not_found` when it is not.
/// Takes one of `client`'s replays (`--replays-per-minute`: site-wide in a cluster).
///
/// # Errors
/// `429 rate_limited`.
pub(super) async fn take_replay(shared: &Shared, client: ClientAddr) -> Result<(), ApiError> {
    Ok(shared.budgets.take(Rate::Replays, client).await?)
}

pub(super) async fn stored(shared: &Shared, uuid: Uuid) -> Result<StoredRoom, ApiError> {
    shared
        .rooms
        .read(uuid)
        .await?
        .ok_or_else(|| RoomError::NotFound(uuid.to_string()).into())
}

/// Room `id` for a request of `client`: one that is not in memory is read from the
/// database within `client`'s budget (`--room-loads-per-minute`; a single node: a
/// cluster's rooms run on their owners).
pub(super) async fn find(
    shared: &Arc<Shared>,
    id: &str,
    client: ClientAddr,
) -> Result<RoomHandle, ApiError> {
    let uuid = parse_id(id)?;
    if let Some(h) = shared.rooms.local(uuid) {
        return Ok(h);
    }
    if shared.cluster.is_none() {
        shared.budgets.take_now(Rate::RoomLoads, client)?;
    }
    shared
        .room(uuid)
        .await?
        .ok_or_else(|| RoomError::NotFound(id.to_string()).into())
}

/// Asks the room something (`ask`: a method of its handle), with a timeout so that a
/// wedged room cannot hang HTTP. A room that unloaded itself meanwhile (idle and
/// finished) is loaded again once.
async fn ask<T, F>(
    shared: &Arc<Shared>,
    id: &str,
    client: ClientAddr,
    ask: impl Fn(RoomHandle) -> F,
) -> Result<T, ApiError>
where
    F: std::future::Future<Output = Result<T, Gone>>,
{
    for _ in 0..2 {
        let room = find(shared, id, client).await?;
        match tokio::time::timeout(Duration::from_secs(10), ask(room.clone())).await {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(Gone)) => shared.rooms.unload_if(&room),
            Err(_) => {
                return Err(ApiError::Internal(anyhow::anyhow!(
                    "room {} did not answer",
                    room.id
                )))
            }
        }
    }
    Err(RoomError::ShuttingDown.into())
}

/// `f` of room `id` if it is a finished room not in memory, read without starting it
/// (`registry::FinishedRooms`; a single node). `None`: ask the running room.
async fn read_finished<T>(
    shared: &Arc<Shared>,
    id: &str,
    client: ClientAddr,
    f: impl Fn(&crate::room::Room) -> T,
) -> Result<Option<T>, ApiError> {
    if shared.cluster.is_some() {
        return Ok(None);
    }
    let take = || {
        shared
            .budgets
            .take_now(Rate::RoomLoads, client)
            .map_err(ApiError::from)
    };
    shared.rooms.read_finished(parse_id(id)?, take, f).await
}

pub(super) async fn details(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    Path(id): Path<String>,
) -> Result<Json<RoomDetails>, ApiError> {
    if let Some(d) = read_finished(&shared, &id, client, |r| r.details()).await? {
        return Ok(Json(d));
    }
    Ok(Json(
        ask(
            &shared,
            &id,
            client,
            |room| async move { room.details().await },
        )
        .await?,
    ))
}

pub(super) async fn record(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
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
    let read = read_finished(&shared, &id, client, |r| r.record(site.clone())).await?;
    let record = match read {
        Some(r) => r,
        None => {
            ask(&shared, &id, client, |room| {
                let site = site.clone();
                async move { room.record(site).await }
            })
            .await?
        }
    };
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        record,
    )
        .into_response())
}

/// `GET /api/rooms/{id}/history`: every stored action with the position after it, read
/// from the database (what is stored is what happened: nothing is broadcast before it
/// is stored).
pub(super) async fn history(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    Path(id): Path<String>,
) -> Result<Json<History>, ApiError> {
    let uuid = usable_id(&shared, &id)?;
    take_replay(&shared, client).await?;
    let stored = stored(&shared, uuid).await?;
    let played = shared
        .budgets
        .replay(move || history::of_stored(stored.start_position.as_deref(), &stored.actions))
        .await?;
    match played {
        Ok(history) => Ok(Json(history)),
        Err(e) => Err(shared.rooms.is_broken(uuid, &format!("{e:#}")).await.into()),
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
pub(super) async fn replay(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<Json<History>, ApiError> {
    let req: ReplayRequest = json_object(&body, r#"{"record": "...", "position": "..."}"#)?;
    take_replay(&shared, client).await?;
    shared
        .budgets
        .replay(move || history::of_record(&req.record, req.position.as_deref()))
        .await?
        .map(Json)
        .map_err(ApiError::Replay)
}
