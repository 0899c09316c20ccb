//! The accounts' HTTP API (docs/accounts.md): `POST /api/accounts`, `GET|POST|DELETE
//! /api/session`, `POST /api/account/password`, `GET /api/players/{name}`,
//! `GET /api/players?names=…`, `GET /api/leaderboard`.
//!
//! A failed log-in says only that the name or the password is wrong, and takes as
//! long for an unknown name as for a wrong password. Attempts are rate limited per
//! client address and per name; a device that logged in to the account before (its
//! known-device cookie) or holds a session of it is let past the name's budget, so
//! strangers spending it cannot lock the owner out. No handler logs a password or a
//! token.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Extension, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tracing::info;

use super::extract::json_object;
use crate::accounts::store::{name_key, Account, GameEntry, Rating};
use crate::accounts::{check_password, names, rating, SESSION_DAYS};
use crate::app::Shared;
use crate::http::ApiError;
use crate::limits::ClientAddr;
use crate::limits::Rate;
use crate::moderation::Role;
use crate::store::unix_ms;
use crate::token::{hash_token, new_token};
use sannin_protocol::ApiCode;

/// The routes of the accounts' API.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/accounts", post(register))
        .route("/api/session", get(whoami).post(login).delete(logout))
        .route("/api/account/password", post(change_password))
        .route("/api/players", get(ratings))
        .route("/api/players/{name}", get(player))
        .route("/api/players/{name}/games", get(super::games::player_games))
        .route("/api/leaderboard", get(leaderboard))
}

fn bad_credentials() -> ApiError {
    ApiError::coded(
        StatusCode::UNAUTHORIZED,
        ApiCode::BadCredentials,
        "wrong name or password",
    )
}

pub(super) fn not_logged_in() -> ApiError {
    ApiError::coded(
        StatusCode::UNAUTHORIZED,
        ApiCode::NotLoggedIn,
        "you are not logged in",
    )
}

/// Body of `POST /api/accounts` and `POST /api/session`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credentials {
    name: String,
    password: String,
}

// No Debug: a password must never be printed by accident.
impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The answer of a log-in or a registration: the account and its rating.
#[derive(Serialize)]
struct SessionInfo {
    #[serde(flatten)]
    rating: Rating,
}

fn with_cookies(status: StatusCode, cookies: [String; 2], body: impl Serialize) -> Response {
    let [a, b] = cookies;
    (
        status,
        // Appended: an array of headers would keep only the last of one name.
        axum::response::AppendHeaders([(header::SET_COOKIE, a), (header::SET_COOKIE, b)]),
        Json(body),
    )
        .into_response()
}

/// Opens a session for `account_id` and remembers the device; returns the cookies
/// to set (the session's, the known device's).
async fn open_session(
    shared: &Shared,
    account_id: &str,
    client: ClientAddr,
    headers: &HeaderMap,
    peer: Option<&ConnectInfo<SocketAddr>>,
) -> Result<[String; 2], ApiError> {
    let a = &shared.accounts;
    let token = new_token();
    let expires = unix_ms() + SESSION_DAYS * 86_400_000;
    a.db.create_session(&hash_token(&token), account_id, expires)
        .await?;
    let secure = secure_here(shared, headers, peer);
    let device = a
        .remember_device(super::session::device(headers).as_deref(), account_id)
        .await?;
    // For moderators (docs/moderation.md): the addresses an account came from.
    shared
        .moderation
        .remember_address(account_id, &client.to_string())
        .await?;
    Ok([
        super::session::session_cookie(Some(&token), secure),
        super::session::device_cookie(&device, secure),
    ])
}

async fn register(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let req: Credentials = json_object(&body, r#"{"name": "...", "password": "..."}"#)?;
    shared.accounts.attempt(format!("addr:{client}")).await?;
    let name = names::normalize(&req.name)
        .map_err(|r| ApiError::coded(StatusCode::BAD_REQUEST, r.code, r.message))?;
    check_password(&req.password)
        .map_err(|m| ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::BadPassword, m))?;
    let hash = shared.accounts.hashing.hash(req.password).await?;
    shared
        .accounts
        .db
        .create(&name, &hash, rating::initial())
        .await?
        .made(&name)?;
    let account = shared
        .accounts
        .db
        .by_name(&name)
        .await?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("account vanished")))?;
    info!(name = %account.name, "account registered");
    session_opened(
        &shared,
        &account,
        client,
        &headers,
        peer,
        StatusCode::CREATED,
    )
    .await
}

async fn login(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let req: Credentials = json_object(&body, r#"{"name": "...", "password": "..."}"#)?;
    let a = &shared.accounts;
    a.attempt(format!("addr:{client}")).await?;
    let found = a.db.by_name_with_hash(&req.name).await?;
    // Anyone can spend a name's budget; the owner's devices are let past it.
    let owners = match &found {
        Some((acc, _)) => {
            let (session, device) = (
                super::session::session(&headers),
                super::session::device(&headers),
            );
            a.owners_device(session.as_deref(), device.as_deref(), &acc.id)
                .await
        }
        None => false,
    };
    if !owners {
        a.attempt_name(&name_key(&req.name)).await?;
    }
    let (account, stored) = match found {
        Some((acc, h)) => (Some(acc), Some(h)),
        None => (None, None),
    };
    // An unknown name is checked against a dummy hash: same time, same answer.
    if !a.hashing.verify(req.password, stored).await? {
        info!(%client, "failed log-in");
        return Err(bad_credentials());
    }
    let account = account.ok_or_else(bad_credentials)?;
    info!(name = %account.name, "logged in");
    session_opened(&shared, &account, client, &headers, peer, StatusCode::OK).await
}

/// Opens a session of `account` and answers `status` with its cookies and rating.
async fn session_opened(
    shared: &Shared,
    account: &Account,
    client: ClientAddr,
    headers: &HeaderMap,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    status: StatusCode,
) -> Result<Response, ApiError> {
    let peer = peer.as_ref().map(|e| &e.0);
    let cookies = open_session(shared, &account.id, client, headers, peer).await?;
    Ok(with_cookies(
        status,
        cookies,
        SessionInfo {
            rating: account.rating(),
        },
    ))
}

/// `GET /api/session`: the logged-in account's rating and role.
#[derive(Serialize)]
struct WhoAmI {
    #[serde(flatten)]
    rating: Rating,
    role: Role,
}

/// Who is logged in: the account's rating and role, or `null` for a guest (a guest is
/// no error: every page asks).
async fn whoami(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Json<Option<WhoAmI>>, ApiError> {
    let Some((account, _)) = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
    else {
        return Ok(Json(None));
    };
    Ok(Json(Some(WhoAmI {
        role: shared.moderation.role(&account.id).await?,
        rating: account.rating(),
    })))
}

async fn logout(
    State(shared): State<Arc<Shared>>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let a = &shared.accounts;
    if let Some(token) = super::session::session(&headers) {
        let hash = hash_token(&token);
        a.db.delete_session(&hash).await?;
        // Its sockets act for the account no more.
        a.sockets.end(&hash);
    }
    let secure = secure_here(&shared, &headers, peer.as_ref().map(|e| &e.0));
    let cookie = super::session::session_cookie(None, secure);
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response())
}

/// Body of `POST /api/account/password`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewPassword {
    current: String,
    new: String,
}

impl std::fmt::Debug for NewPassword {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NewPassword { .. }")
    }
}

async fn change_password(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let req: NewPassword = json_object(&body, r#"{"current": "...", "new": "..."}"#)?;
    let a = &shared.accounts;
    let (account, session) = a
        .account_of(super::session::session(&headers).as_deref())
        .await
        .ok_or_else(not_logged_in)?;
    // Only the address's budget: a session of the account is its owner's device,
    // let past the name's budget (which strangers can spend).
    a.attempt(format!("addr:{client}")).await?;
    check_password(&req.new)
        .map_err(|m| ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::BadPassword, m))?;
    let stored = a.db.password_hash(&account.id).await?;
    if !a.hashing.verify(req.current, stored).await? {
        return Err(ApiError::coded(
            StatusCode::UNAUTHORIZED,
            ApiCode::BadCredentials,
            "the current password is wrong",
        ));
    }
    let hash = a.hashing.hash(req.new).await?;
    a.db.set_password(&account.id, &hash, &session).await?;
    a.sockets.end_all_but(&account.id, &session);
    info!(name = %account.name, "password changed; other sessions ended");
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/players/{name}`: the rating, the rated games and the rating history.
#[derive(Serialize)]
struct Profile {
    #[serde(flatten)]
    rating: Rating,
    /// Rated games, newest first, each with the rating before and after it.
    history: Vec<GameEntry>,
}

async fn player(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    Path(name): Path<String>,
) -> Result<Json<Profile>, ApiError> {
    shared.budgets.take(Rate::Lookups, client).await?;
    let db = &shared.accounts.db;
    let account = db.by_name(&name).await?.ok_or_else(|| {
        ApiError::coded(
            StatusCode::NOT_FOUND,
            ApiCode::PlayerNotFound,
            format!("no player named {name:?}"),
        )
    })?;
    let history = db.history(&account.id, 200).await?;
    Ok(Json(Profile {
        rating: account.rating(),
        history,
    }))
}

#[derive(Deserialize)]
struct NamesQuery {
    #[serde(default)]
    names: String,
}

/// `GET /api/players?names=a,b,c`: the ratings of these accounts (unknown names are
/// left out), for showing ratings next to names. At most 50 names; each request
/// spends one of the address's look-ups (`--player-lookups-per-minute`).
async fn ratings(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    Query(q): Query<NamesQuery>,
) -> Result<Json<Vec<Rating>>, ApiError> {
    shared.budgets.take(Rate::Lookups, client).await?;
    let names: Vec<&str> = q
        .names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names.len() > 50 {
        return Err(ApiError::BadRequest("at most 50 names at once".into()));
    }
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        if names::normalize(n).is_err() {
            continue;
        }
        if let Some(a) = shared.accounts.db.by_name(n).await? {
            out.push(a.rating());
        }
    }
    Ok(Json(out))
}

#[derive(Deserialize)]
struct LeaderboardQuery {
    limit: Option<i64>,
}

/// One row of the leaderboard.
#[derive(Serialize)]
struct Ranked {
    rank: usize,
    #[serde(flatten)]
    rating: Rating,
}

async fn leaderboard(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<LeaderboardQuery>,
) -> Result<Json<Vec<Ranked>>, ApiError> {
    let limit = q.limit.unwrap_or(100).clamp(1, 500);
    let rows = shared.accounts.db.leaderboard(limit).await?;
    Ok(Json(
        rows.into_iter()
            .enumerate()
            .map(|(i, a)| Ranked {
                rank: i + 1,
                rating: a.rating(),
            })
            .collect(),
    ))
}

/// Whether the cookies of this request's answer are `Secure`.
fn secure_here(
    shared: &Shared,
    headers: &HeaderMap,
    peer: Option<&ConnectInfo<SocketAddr>>,
) -> bool {
    super::session::secure(
        shared.accounts.settings().cookie_secure,
        &shared.config.clients.trusted_proxies,
        headers,
        peer,
    )
}
