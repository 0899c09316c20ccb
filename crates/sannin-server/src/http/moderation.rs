//! Moderation's HTTP API (docs/moderation.md): `POST /api/reports` for anyone, and
//! `/api/mod/…` for moderators — the reports, a player's record, actions, the log.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

use super::extract::json_object;
use crate::app::Shared;
use crate::fairplay::engine::{self, EngineRecord};
use crate::fairplay::pairs::{z_score, PairFigures, SiteFigures, HONEST_SHARE};
use crate::fairplay::store::FairPlayDb;
use crate::http::ApiError;
use crate::limits::ClientAddr;
use crate::limits::Rate;
use crate::moderation::actions::{self, forbidden, ActionRequest};
use crate::moderation::reports::{self, NewReport, ReportView};
use crate::moderation::store::{LogEntry, PlayerAddress, PlayerChat, PlayerGame, SanctionView};
use crate::moderation::{Role, SanctionKind};
use sannin_protocol::ApiCode;

/// The routes of moderation.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/reports", post(report))
        .route("/api/mod/reports", get(list_reports))
        .route("/api/mod/reports/{id}/close", post(close_report))
        .route("/api/mod/players/{name}", get(player))
        .route("/api/mod/actions", post(act))
        .route("/api/mod/log", get(log))
        .route("/api/mod/pairs", get(pairs))
        .route("/api/mod/pairs/apart", post(keep_apart))
}

/// `403 banned` when a ban applies to `account` (an id) or to `client`.
///
/// # Errors
/// `banned`, saying for how long and why.
pub(super) fn refuse_banned(
    shared: &Shared,
    account: Option<&str>,
    client: ClientAddr,
) -> Result<(), ApiError> {
    match shared
        .rooms
        .sanctions
        .check(SanctionKind::Ban, account, Some(client.ip()))
    {
        Some(s) => Err(ApiError::coded(
            StatusCode::FORBIDDEN,
            ApiCode::Banned,
            s.message(SanctionKind::Ban),
        )),
        None => Ok(()),
    }
}

/// The moderator a request comes from: its name and role. A ban of its account or
/// of its address holds here too: a banned moderator moderates no more.
async fn moderator(
    shared: &Shared,
    headers: &HeaderMap,
    client: ClientAddr,
) -> Result<(String, Role), ApiError> {
    let (account, _) = shared
        .accounts
        .account_of(super::session::session(headers).as_deref())
        .await
        .ok_or_else(super::accounts::not_logged_in)?;
    let role = shared.moderation.role(&account.id).await?;
    if !role.moderates() {
        return Err(forbidden("this is for moderators").into());
    }
    refuse_banned(shared, Some(&account.id), client)?;
    Ok((account.name, role))
}

async fn report(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let r: NewReport = json_object(&body, "of a report")
        .map_err(|e| ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::BadReport, e.to_string()))?;
    shared.budgets.take(Rate::Reports, client).await?;
    let reporter = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
        .map(|(a, _)| a.id);
    let id = reports::file(
        &shared.moderation,
        &shared.accounts.db,
        r,
        reporter.as_deref(),
        &client.to_string(),
    )
    .await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "id": id }))).into_response())
}

#[derive(Deserialize)]
struct Open {
    #[serde(default = "yes")]
    open: bool,
}

fn yes() -> bool {
    true
}

async fn list_reports(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    Query(q): Query<Open>,
) -> Result<Json<Vec<ReportView>>, ApiError> {
    moderator(&shared, &headers, client).await?;
    Ok(Json(reports::list(&shared.moderation, q.open, 200).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Close {
    resolution: String,
}

async fn close_report(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let (by, _) = moderator(&shared, &headers, client).await?;
    let c: Close = json_object(&body, r#"{"resolution": "…"}"#)?;
    let resolution = actions::check_reason(&c.resolution)?;
    reports::close(&shared.moderation, &id, &by, &resolution).await?;
    shared
        .moderation
        .log(&LogEntry {
            id: uuid::Uuid::new_v4().to_string(),
            at: crate::store::unix_ms(),
            by,
            action: "close_report".into(),
            target: id,
            reason: resolution,
            details: serde_json::json!({}),
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The account named `name`.
///
/// # Errors
/// `404 not_found`.
async fn account_named(shared: &Shared, name: &str) -> Result<crate::accounts::Account, ApiError> {
    shared.accounts.db.by_name(name).await?.ok_or_else(|| {
        ApiError::coded(
            StatusCode::NOT_FOUND,
            ApiCode::NotFound,
            format!("no account is named {name:?}"),
        )
    })
}

/// What a moderator sees of a player.
#[derive(Serialize)]
struct PlayerRecord {
    name: String,
    role: Role,
    created_at: i64,
    sanctions: Vec<SanctionView>,
    games: Vec<PlayerGame>,
    chat: Vec<PlayerChat>,
    addresses: Vec<PlayerAddress>,
    /// Its agreement with the computer reviews, beside the site's.
    engine: EngineRecord,
}

async fn player(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Result<Json<PlayerRecord>, ApiError> {
    moderator(&shared, &headers, client).await?;
    let account = account_named(&shared, &name).await?;
    let m = &shared.moderation;
    Ok(Json(PlayerRecord {
        role: m.role(&account.id).await?,
        created_at: m.created_at(&account.id).await?,
        sanctions: m.sanctions_of(Some(&account.id), None).await?,
        games: m.games_of(&account.id, 30).await?,
        chat: m.chat_of(&account.id, 50).await?,
        addresses: m.addresses_of(&account.id).await?,
        engine: engine::record_of(&FairPlayDb::new(&shared.store), &account.id).await?,
        name: account.name,
    }))
}

async fn act(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (by, role) = moderator(&shared, &headers, client).await?;
    let req: ActionRequest = json_object(&body, "of an action")
        .map_err(|e| ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::BadAction, e.to_string()))?;
    let entry = actions::apply(&shared.moderation, &shared.accounts.db, &by, role, req).await?;
    // This node acts on it at once; the others within their next reading.
    if let Err(e) = shared.rooms.sanctions.refresh(&shared.moderation).await {
        tracing::warn!(error = %e, "reading the sanctions in force");
    }
    Ok(Json(serde_json::json!({ "log": entry })))
}

async fn log(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
) -> Result<Json<Vec<LogEntry>>, ApiError> {
    moderator(&shared, &headers, client).await?;
    Ok(Json(shared.moderation.log_entries(200).await?))
}

/// The pairs of accounts shown at most, the most unusual first.
const PAIRS_SHOWN: usize = 50;

/// How far back the pairs' figures reach.
const PAIRS_SINCE_MS: i64 = 365 * 86_400_000;

/// `GET /api/mod/pairs`: every pair of accounts with rated games together, set
/// against the site's pairs (docs/moderation.md, "Pairs").
async fn pairs(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    moderator(&shared, &headers, client).await?;
    let db = FairPlayDb::new(&shared.store);
    let stored = db.pairs(crate::store::unix_ms() - PAIRS_SINCE_MS).await?;
    let apart = db.kept_apart().await?;
    let site = SiteFigures::of(&stored.iter().map(|p| &p.sums).collect::<Vec<_>>());
    let expected = site.first_second_share.unwrap_or(HONEST_SHARE);
    let mut figures: Vec<(PairFigures, String, String)> = stored
        .into_iter()
        .map(|p| {
            let kept_apart = apart.contains(&(p.a_id.clone(), p.b_id.clone()));
            let f = PairFigures {
                first_second_share: p.sums.first_second_share(),
                expected_share: Some(expected),
                z: z_score(p.sums.first_second, p.sums.games, expected),
                between_share: p.sums.between_share(),
                kept_apart,
                rooms: Vec::new(),
                a: p.a,
                b: p.b,
                sums: p.sums,
            };
            (f, p.a_id, p.b_id)
        })
        .collect();
    figures.sort_by(|x, y| {
        let z = |f: &PairFigures| f.z.unwrap_or(f64::NEG_INFINITY);
        z(&y.0)
            .total_cmp(&z(&x.0))
            .then(y.0.sums.games.cmp(&x.0.sums.games))
            .then_with(|| (&x.0.a, &x.0.b).cmp(&(&y.0.a, &y.0.b)))
    });
    figures.truncate(PAIRS_SHOWN);
    for (f, a, b) in &mut figures {
        f.rooms = db.rooms_of(a, b, 20).await?;
    }
    let pairs: Vec<PairFigures> = figures.into_iter().map(|(f, _, _)| f).collect();
    Ok(Json(serde_json::json!({ "site": site, "pairs": pairs })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Apart {
    a: String,
    b: String,
    apart: bool,
    reason: String,
}

/// `POST /api/mod/pairs/apart`: a moderator keeps two accounts apart (quick pairing
/// never seats them together), or lets them meet again; logged like every action.
async fn keep_apart(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let (by, _) = moderator(&shared, &headers, client).await?;
    let req: Apart = json_object(
        &body,
        r#"{"a": "<name>", "b": "<name>", "apart": true, "reason": "…"}"#,
    )?;
    let reason = actions::check_reason(&req.reason)?;
    let (a, b) = (
        account_named(&shared, &req.a).await?,
        account_named(&shared, &req.b).await?,
    );
    if a.id == b.id {
        return Err(ApiError::coded(
            StatusCode::BAD_REQUEST,
            ApiCode::BadAction,
            "a pair is two different accounts",
        ));
    }
    FairPlayDb::new(&shared.store)
        .set_apart(&a.id, &b.id, req.apart, &by, &reason)
        .await?;
    shared.pairing.apart_changed();
    shared
        .moderation
        .log(&LogEntry {
            id: uuid::Uuid::new_v4().to_string(),
            at: crate::store::unix_ms(),
            by,
            action: if req.apart {
                "keep_apart"
            } else {
                "allow_together"
            }
            .into(),
            target: format!("{} & {}", a.name, b.name),
            reason,
            details: serde_json::json!({ "a": a.name, "b": b.name }),
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
