//! `GET /api/rooms` (docs/protocol.md, "HTTP"): the lobby's list, filtered by `status` and paginated
//! by `limit` and `cursor`, the next page named in a `Link: <…>; rel="next"` header.
//!
//! Waiting and running rooms are all loaded, so they are listed from the summaries the
//! rooms publish, walked in id order from the cursor in the registry (nothing is
//! collected, sorted or rebuilt per request: a page costs the rooms it passes over);
//! finished rooms are unloaded once idle, so `status=finished` reads them from the
//! database, the most recent first.

use std::sync::{Arc, PoisonError};

use axum::extract::{Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use sannin_protocol::{RoomInfo, RoomStatus, RoomSummary, SeatInfo, Seats};
use serde::Deserialize;

use crate::app::Shared;
use crate::http::ApiError;
use crate::room::{start_kind, RoomSettings};
use crate::store::column::{Json as _, Unreadable};
use crate::store::FinishedRoom;
use sannin_bot::Level;
use sannin_rules::Outcome;

/// Rooms per page when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest `limit` accepted.
pub const MAX_LIMIT: usize = 200;

/// The query string of `GET /api/rooms`; every field optional.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    /// `waiting`, `playing` or `finished`; absent: every loaded room.
    pub status: Option<String>,
    /// Rooms per page, 1 to [`MAX_LIMIT`].
    pub limit: Option<String>,
    /// The `cursor` of the `Link` header of the page before.
    pub cursor: Option<String>,
}

impl ListQuery {
    fn status(&self) -> Result<Option<RoomStatus>, ApiError> {
        match self.status.as_deref() {
            None | Some("") => Ok(None),
            Some("waiting") => Ok(Some(RoomStatus::Waiting)),
            Some("playing") => Ok(Some(RoomStatus::Playing)),
            Some("finished") => Ok(Some(RoomStatus::Finished)),
            Some(s) => Err(ApiError::BadRequest(format!(
                "unknown status {s:?}: want waiting, playing or finished"
            ))),
        }
    }

    fn limit(&self) -> Result<usize, ApiError> {
        match self.limit.as_deref() {
            None | Some("") => Ok(DEFAULT_LIMIT),
            Some(s) => s
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_LIMIT).contains(n))
                .ok_or_else(|| {
                    ApiError::BadRequest(format!("limit must be a number from 1 to {MAX_LIMIT}"))
                }),
        }
    }

    /// The link to the page after the one ending at `cursor`.
    fn next_link(&self, limit: usize, cursor: &str) -> String {
        let mut q = format!("limit={limit}&cursor={cursor}");
        if let Some(s) = self.status.as_deref().filter(|s| !s.is_empty()) {
            q = format!("status={s}&{q}");
        }
        format!("</api/rooms?{q}>; rel=\"next\"")
    }
}

/// One page of the lobby.
///
/// # Errors
/// A bad `status`, `limit` or `cursor`; a database failure.
pub async fn list(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let status = q.status()?;
    let limit = q.limit()?;
    if status == Some(RoomStatus::Finished) {
        return list_finished(&shared, &q, limit).await;
    }
    let after = match q.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => None,
        Some(c) => Some(
            c.parse::<uuid::Uuid>()
                .map_err(|_| ApiError::BadRequest(format!("bad cursor {c:?}")))?,
        ),
    };
    let mut rooms = shared.summaries_after(after, limit + 1, |s| {
        !s.room.private && status.is_none_or(|st| s.room.status == st)
    });
    let next = (rooms.len() > limit).then(|| {
        rooms.truncate(limit);
        q.next_link(limit, &rooms[limit - 1].room.id)
    });
    Ok(with_next(Json(rooms).into_response(), next))
}

async fn list_finished(shared: &Shared, q: &ListQuery, limit: usize) -> Result<Response, ApiError> {
    let cursor = match q.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => None,
        Some(c) => Some(
            c.split_once('_')
                .and_then(|(at, id)| Some((at.parse::<i64>().ok()?, id)))
                .ok_or_else(|| ApiError::BadRequest(format!("bad cursor {c:?}")))?,
        ),
    };
    let mut rows = shared
        .store
        .finished_rooms(limit + 1, cursor)
        .await
        .map_err(ApiError::Internal)?;
    let next = (rows.len() > limit).then(|| {
        rows.truncate(limit);
        let last = &rows[limit - 1];
        q.next_link(limit, &format!("{}_{}", last.updated_at, last.id))
    });
    let mut rooms = Vec::with_capacity(rows.len());
    for r in rows {
        let id = r.id.clone();
        match finished_summary(r) {
            Ok(s) => rooms.push(s),
            // Listed nowhere from now on; its page says why.
            Err(e) => {
                if let Ok(uuid) = id.parse() {
                    shared.rooms.is_broken(uuid, &e.to_string()).await;
                }
            }
        }
    }
    Ok(with_next(Json(rooms).into_response(), next))
}

/// A finished room read from the database, as a loaded room would list it: nobody
/// connected, nobody ready.
fn finished_summary(r: FinishedRoom) -> Result<RoomSummary, Unreadable> {
    let mut seats = Seats::default();
    for s in r.seats? {
        *seats.get_mut(s.seat.into()) = Some(SeatInfo {
            name: s.name,
            connected: false,
            ready: false,
            abandon_at_ms: None,
            bot: s.bot.map(Level::number),
            taken_over: false,
            account: s.account,
        });
    }
    let (custom_position, voluntary_alliance) = start_kind(r.start_position.as_deref());
    let settings = RoomSettings::from_stored(r.settings.as_deref())?;
    let result = r.result.as_deref().map(Outcome::from_json).transpose()?;
    Ok(RoomSummary {
        room: RoomInfo {
            id: r.id,
            status: RoomStatus::Finished,
            seats,
            spectators: 0,
            custom_position,
            voluntary_alliance,
            private: settings.private,
            clock: settings.clock,
            bot_takeover: settings.bot_takeover,
            rated: settings.rated,
            paired: settings.paired,
            bots_only: false,
            result,
            created_at_ms: r.created_at,
            updated_at_ms: r.updated_at,
        },
        moves: u64::try_from(r.plies).unwrap_or(0),
    })
}

fn with_next(mut res: Response, next: Option<String>) -> Response {
    if let Some(link) = next.and_then(|l| HeaderValue::from_str(&l).ok()) {
        res.headers_mut().insert(header::LINK, link);
    }
    res
}

/// The answer of `GET /api/tv`.
#[derive(serde::Serialize)]
pub struct Tv {
    /// The room to watch; None when no game is being played.
    pub room: Option<String>,
}

/// How many running rooms `/api/tv` looks at.
const TV_SCAN: usize = 2_000;

/// How long `/api/tv` answers the game it chose without choosing again: any number of
/// requests cost one walk over the rooms (and their ratings) a few times a minute.
pub const TV_FRESH: std::time::Duration = std::time::Duration::from_secs(3);

/// `GET /api/tv`: the game to watch now — rated games first, by their players'
/// average rating; then games with a person seated; then games of bots alone; among
/// equals, the most watched, then the longest. Private rooms never.
///
/// # Errors
/// A database failure (reading the ratings).
pub async fn tv(State(shared): State<Arc<Shared>>) -> Result<Json<Tv>, ApiError> {
    let cached = |shared: &Shared| {
        let last = shared.tv.lock().unwrap_or_else(PoisonError::into_inner);
        last.clone().filter(|(at, _)| at.elapsed() < TV_FRESH)
    };
    if let Some((_, room)) = cached(&shared) {
        return Ok(Json(Tv { room }));
    }
    let room = choose_tv(&shared).await?;
    *shared.tv.lock().unwrap_or_else(PoisonError::into_inner) =
        Some((std::time::Instant::now(), room.clone()));
    Ok(Json(Tv { room }))
}

/// The game `/api/tv` shows, chosen afresh.
async fn choose_tv(shared: &Shared) -> Result<Option<String>, ApiError> {
    let rooms = shared.summaries_after(None, TV_SCAN, |s| {
        !s.room.private && s.room.status == RoomStatus::Playing
    });
    let mut best: Option<((u8, i64, u64, u64), String)> = None;
    for s in rooms {
        let seats: Vec<SeatInfo> = [
            &s.room.seats.first,
            &s.room.seats.middle,
            &s.room.seats.last,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
        let (tier, rating) = if s.room.rated {
            let mut sum = 0;
            for seat in &seats {
                if let Some(a) = shared.accounts.db.by_name(&seat.name).await? {
                    sum += a.rating().rating;
                }
            }
            (2, sum / 3)
        } else if seats.iter().any(|s| s.bot.is_none()) {
            (1, 0)
        } else {
            (0, 0)
        };
        let key = (tier, rating, s.room.spectators, s.moves);
        if best.as_ref().is_none_or(|(k, _)| key > *k) {
            best = Some((key, s.room.id));
        }
    }
    Ok(best.map(|(_, id)| id))
}
