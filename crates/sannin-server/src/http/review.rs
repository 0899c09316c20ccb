//! `POST` and `GET /api/rooms/{id}/review` (docs/protocol.md, "Computer review"): ask
//! for the computer review of a finished game, and follow it until it is done. The
//! queue, the budgets and the search are in [`crate::review`].

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde_json::Value;

use super::rooms::{parse_id, stored, take_replay, usable_id};
use super::ClientAddr;
use crate::app::Shared;
use crate::http::ApiError;
use crate::review::Requester;
use sannin_protocol::ApiCode;

/// `POST /api/rooms/{id}/review`: queues the review of a finished game (anyone may
/// ask: its players, spectators, visitors), or answers the one there is. Reading the
/// stored game, and answering a review of tens of kilobytes, take one of the address's
/// replays (`--replays-per-minute`) first, as playing out a stored game does.
pub(super) async fn request(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = usable_id(&shared, &id)?;
    take_replay(&shared, client).await?;
    let stored = stored(&shared, id).await?;
    let account = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
        .map(|(a, _)| a.id);
    let who = Requester {
        addr: client,
        account,
    };
    Ok(Json(shared.reviews.request(&stored, &who).await?))
}

/// `GET /api/rooms/{id}/review`: the review as it stands; `404 review_not_found` when
/// nobody asked for one.
pub(super) async fn get(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let uuid = parse_id(&id)?;
    match shared.reviews.get(&uuid.to_string()).await? {
        Some(review) => Ok(Json(review)),
        None => Err(ApiError::coded(
            StatusCode::NOT_FOUND,
            ApiCode::ReviewNotFound,
            "nobody has asked for a computer review of this game yet",
        )),
    }
}
