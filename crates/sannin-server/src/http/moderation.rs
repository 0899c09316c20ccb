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
use crate::error::ApiError;
use crate::limits::work::Rate;
use crate::limits::ClientAddr;
use crate::moderation::actions::{self, forbidden, ActionRequest};
use crate::moderation::db::{LogEntry, PlayerAddress, PlayerChat, PlayerGame, SanctionView};
use crate::moderation::reports::{self, NewReport, ReportView};
use crate::moderation::{Role, SanctionKind};

/// The routes of moderation.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/reports", post(report))
        .route("/api/mod/reports", get(list_reports))
        .route("/api/mod/reports/{id}/close", post(close_report))
        .route("/api/mod/players/{name}", get(player))
        .route("/api/mod/actions", post(act))
        .route("/api/mod/log", get(log))
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
            "banned",
            s.message(SanctionKind::Ban),
        )),
        None => Ok(()),
    }
}

/// The moderator a request comes from: its name and role.
async fn moderator(shared: &Shared, headers: &HeaderMap) -> Result<(String, Role), ApiError> {
    let (account, _) = shared
        .accounts
        .account_of(headers)
        .await
        .ok_or_else(super::accounts::not_logged_in)?;
    let role = shared.moderation.role(&account.id).await?;
    if !role.moderates() {
        return Err(forbidden("this is for moderators"));
    }
    Ok((account.name, role))
}

async fn report(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let r: NewReport = json_object(&body, "of a report")
        .map_err(|e| ApiError::coded(StatusCode::BAD_REQUEST, "bad_report", e.to_string()))?;
    let site = shared.cluster.as_ref().map(|_| &shared.store);
    shared
        .budgets
        .take_rate(site, Rate::Reports, client)
        .await?;
    let reporter = shared
        .accounts
        .account_of(&headers)
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
    headers: HeaderMap,
    Query(q): Query<Open>,
) -> Result<Json<Vec<ReportView>>, ApiError> {
    moderator(&shared, &headers).await?;
    Ok(Json(reports::list(&shared.moderation, q.open, 200).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Close {
    resolution: String,
}

async fn close_report(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let (by, _) = moderator(&shared, &headers).await?;
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
}

async fn player(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Result<Json<PlayerRecord>, ApiError> {
    moderator(&shared, &headers).await?;
    let account = shared.accounts.db.by_name(&name).await?.ok_or_else(|| {
        ApiError::coded(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no account is named {name:?}"),
        )
    })?;
    let m = &shared.moderation;
    Ok(Json(PlayerRecord {
        role: m.role(&account.id).await?,
        created_at: m.created_at(&account.id).await?,
        sanctions: m.sanctions_of(Some(&account.id), None).await?,
        games: m.games_of(&account.id, 30).await?,
        chat: m.chat_of(&account.id, 50).await?,
        addresses: m.addresses_of(&account.id).await?,
        name: account.name,
    }))
}

async fn act(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (by, role) = moderator(&shared, &headers).await?;
    let req: ActionRequest = json_object(&body, "of an action")
        .map_err(|e| ApiError::coded(StatusCode::BAD_REQUEST, "bad_action", e.to_string()))?;
    let entry = actions::apply(&shared.moderation, &shared.accounts.db, &by, role, req).await?;
    // This node acts on it at once; the others within their next reading.
    if let Err(e) = shared.rooms.sanctions.refresh(&shared.moderation).await {
        tracing::warn!(error = %e, "reading the sanctions in force");
    }
    Ok(Json(serde_json::json!({ "log": entry })))
}

async fn log(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Json<Vec<LogEntry>>, ApiError> {
    moderator(&shared, &headers).await?;
    Ok(Json(shared.moderation.log_entries(200).await?))
}
