//! Quick pairing over HTTP (docs/pairing.md): a ticket in a pool, its status (long
//! polled), leaving, and the pools with the people waiting in each.
//!
//! A guest's browser is recognised by a cookie of its own (`sannin_browser`, made at
//! its first ticket), so that one browser holds one ticket per pool and never sits
//! twice at a table; an account is recognised by its session.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::extract::{json_object, ClientAddr};
use super::session::cookie_of;
use crate::app::Shared;
use crate::clock::ClockRequest;
use crate::http::ApiError;
use crate::pairing::PairingError;
use crate::pairing::{self, Join, Person, PoolId, TicketStatus, PRESETS};
use crate::room::checked_name;
use crate::token::new_token;
use sannin_protocol::ApiCode;

/// The cookie that names a guest's browser.
const BROWSER_COOKIE: &str = "sannin_browser";

/// Body of `POST /api/pairing`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewTicket {
    /// The pool's time control, as `POST /api/rooms` takes it (or `pool`).
    #[serde(default)]
    clock: Option<ClockRequest>,
    /// The pool's name (`10+5`, `3d`…), instead of its clock.
    #[serde(default)]
    pool: Option<String>,
    /// A rated pool (logged-in players only).
    #[serde(default)]
    rated: bool,
    /// A guest's name at the table.
    #[serde(default)]
    name: Option<String>,
    /// After this many seconds without a full table, computer players fill it.
    #[serde(default)]
    bots_after_seconds: Option<f64>,
}

/// The pool a ticket asks for: by its name, or by its clock.
fn pool_of(req: &NewTicket) -> Result<PoolId, ApiError> {
    let unknown = |what: &str| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        PairingError::UnknownPool(format!(
            "no pool has that {what}; the pools are {} (GET /api/pairing lists their clocks)",
            names.join(", ")
        ))
    };
    match (&req.clock, &req.pool) {
        (Some(_), Some(_)) => Err(ApiError::BadRequest(
            "name the pool by its clock or by its name, not both".into(),
        )),
        (None, Some(name)) => PoolId::named(name, req.rated).ok_or_else(|| unknown("name").into()),
        (clock, None) => {
            let clock = clock
                .as_ref()
                .ok_or_else(|| {
                    ApiError::BadClock("name the pool: give its clock, or its name as pool".into())
                })?
                .validate()
                .map_err(ApiError::BadClock)?
                .ok_or_else(|| ApiError::BadClock("a pool has a clock: give one".into()))?;
            PoolId::of(&clock, req.rated).ok_or_else(|| unknown("clock").into())
        }
    }
}

/// The longest wait for bots a ticket may ask for: an hour.
const MAX_BOTS_AFTER_S: f64 = 3600.0;

/// `POST /api/pairing`.
pub(super) async fn join(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let req: NewTicket = json_object(
        &body,
        r#"{"clock": {"kind": "fischer", "main_seconds": 600, "increment_seconds": 5}}"#,
    )?;
    let pool = pool_of(&req)?;
    let bots_after_ms = bots_after(req.bots_after_seconds, req.rated)?;
    let account = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
        .map(|(a, _)| a);
    super::moderation::refuse_banned(&shared, account.as_ref().map(|a| a.id.as_str()), client)?;
    if req.rated && account.is_none() {
        return Err(ApiError::Coded {
            status: StatusCode::UNAUTHORIZED,
            code: ApiCode::LoginRequired,
            message: "rated pools are for logged-in players: log in first".into(),
        });
    }
    let max_chars = shared.config.max_name_chars;
    let name = match &account {
        Some(a) => a.name.clone(),
        None => {
            // A name that borrows an account's or a bot's, or draws nothing, is
            // `bad_name`; one too long or with control characters, a bad request.
            let raw = req.name.as_deref().unwrap_or("").trim();
            if !raw.is_empty() {
                shared
                    .accounts
                    .check_guest_name(raw)
                    .await
                    .map_err(|r| ApiError::coded(StatusCode::BAD_REQUEST, r.code, r.message))?;
            }
            checked_name(raw, max_chars)
                .map_err(ApiError::BadRequest)?
                .unwrap_or_else(|| "Guest".into())
        }
    };
    let mut budget_keys = vec![format!("addr:{client}")];
    if let Some(a) = &account {
        budget_keys.push(format!("account:{}", a.id));
    }
    shared.budgets.take_ticket(&budget_keys).await?;
    // A ticket that may bring computer players is a room with bots the address asks
    // for: it spends the address's budgets of rooms and of rooms with bots, as
    // `POST /api/rooms` with bot seats does.
    if bots_after_ms.is_some() {
        shared.budgets.take_room(client, true).await?;
        // Counted when its table is made (`TableOpener::open`).
        let _counted_at_the_table = shared
            .budgets
            .reserve_bot_only(client, false, |id| shared.bot_room_state(id))
            .await?;
    }
    let (browser, new_browser) = match browser_of(&headers) {
        Some(b) => (b, false),
        None => (new_token()[..32].to_string(), true),
    };
    let person = match &account {
        Some(a) => Person::Account(a.id.clone()),
        None => Person::Browser(browser.clone()),
    };
    let ticket = new_token();
    shared
        .pairing
        .join(Join {
            key: pairing::ticket_key(&ticket),
            pool,
            person,
            name,
            rating: account.as_ref().map(|a| a.rating().rating),
            bots_after_ms,
            addr: Some(client.to_string()),
        })
        .await?;
    let mut res = (StatusCode::CREATED, Json(json!({ "ticket": ticket }))).into_response();
    if new_browser {
        let cookie =
            format!("{BROWSER_COOKIE}={browser}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000");
        if let Ok(v) = cookie.parse() {
            res.headers_mut().insert(header::SET_COOKIE, v);
        }
    }
    Ok(res)
}

/// The wait for bots of a ticket, in ms; none in rated pools.
fn bots_after(seconds: Option<f64>, rated: bool) -> Result<Option<u64>, ApiError> {
    let Some(s) = seconds else {
        return Ok(None);
    };
    if rated {
        return Err(ApiError::BadRequest(
            "rated pools seat no computer players: leave out bots_after_seconds".into(),
        ));
    }
    if !s.is_finite() || !(0.0..=MAX_BOTS_AFTER_S).contains(&s) {
        return Err(ApiError::BadRequest(format!(
            "bots_after_seconds must be from 0 to {MAX_BOTS_AFTER_S}, not {s}"
        )));
    }
    Ok(Some((s * 1000.0).round() as u64))
}

/// The browser cookie of a request, if it carries a well-formed one.
fn browser_of(headers: &HeaderMap) -> Option<String> {
    cookie_of(headers, BROWSER_COOKIE)
        .filter(|v| v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The query of `GET /api/pairing/{ticket}`.
#[derive(Debug, Deserialize)]
pub(super) struct StatusQuery {
    /// Hold the answer until the status changes, at most this many seconds.
    #[serde(default)]
    wait: Option<f64>,
}

/// The answer of `GET /api/pairing/{ticket}`.
#[derive(Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum StatusAnswer {
    Waiting {
        waiting: usize,
    },
    Matched {
        room: String,
        seat: String,
        token: String,
    },
}

/// `GET /api/pairing/{ticket}`.
pub(super) async fn status(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    Path(ticket): Path<String>,
    Query(q): Query<StatusQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let wait = match q.wait {
        None => Duration::ZERO,
        Some(s) if s.is_finite() && s >= 0.0 => Duration::from_secs_f64(s).min(pairing::MAX_WAIT),
        Some(s) => {
            return Err(ApiError::BadRequest(format!(
                "wait must be a number of seconds from 0 to {}, not {s}",
                pairing::MAX_WAIT.as_secs()
            )))
        }
    };
    // A long poll holds a connection as a live stream does: it counts among the
    // address's streams (`--max-ws-per-address`) while it waits.
    let _held = match wait.is_zero() {
        true => None,
        false => Some(shared.budgets.open_stream(client).await?),
    };
    let answer = match shared
        .pairing
        .status(pairing::ticket_key(&ticket), wait)
        .await?
    {
        TicketStatus::Waiting { waiting } => StatusAnswer::Waiting { waiting },
        TicketStatus::Matched { room, seat } => StatusAnswer::Matched {
            room: room.to_string(),
            seat: seat.lower().to_string(),
            token: pairing::seat_token(&ticket),
        },
    };
    Ok(Json(serde_json::to_value(answer).unwrap_or_default()))
}

/// `DELETE /api/pairing/{ticket}`.
pub(super) async fn leave(
    State(shared): State<Arc<Shared>>,
    Path(ticket): Path<String>,
) -> Result<StatusCode, ApiError> {
    shared.pairing.leave(pairing::ticket_key(&ticket)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/pairing`.
pub(super) async fn pools(
    State(shared): State<Arc<Shared>>,
) -> Result<Json<Vec<pairing::PoolInfo>>, ApiError> {
    Ok(Json(shared.pairing.pools().await?))
}
