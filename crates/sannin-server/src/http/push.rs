//! Web Push subscriptions (docs/correspondence.md, "Notifications"): the server's
//! public key, and the subscriptions browsers make and take back.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use super::extract::json_object;
use super::games::MAX_TOKENS;
use super::ClientAddr;
use crate::app::Shared;
use crate::http::ApiError;
use crate::push::send::browser_keys;
use crate::push::services::Refused;
use crate::push::store::{self, Lang, Subscription};
use crate::room::NoticeKind;
use sannin_protocol::ApiCode;

/// The largest subscription body accepted.
pub const MAX_BODY: usize = 16 * 1024;
/// Longest token accepted.
const MAX_TOKEN_CHARS: usize = 128;

#[derive(Deserialize)]
struct Keys {
    p256dh: String,
    auth: String,
}

#[derive(Deserialize)]
struct Subscribe {
    endpoint: String,
    keys: Keys,
    #[serde(default)]
    tokens: Vec<String>,
    kinds: Option<Vec<String>>,
    lang: Option<String>,
    /// What `PushSubscription.toJSON()` adds; not used.
    #[serde(default, rename = "expirationTime")]
    _expiration_time: Option<serde_json::Value>,
}

/// `GET /api/push/key`.
pub(super) async fn key(State(shared): State<Arc<Shared>>) -> Result<impl IntoResponse, ApiError> {
    let key = shared
        .push
        .public_key()
        .ok_or(crate::limits::Refused::ShuttingDown)?;
    Ok(Json(json!({ "public_key": key })))
}

/// Browsers that may follow one seat (or pairing ticket).
const MAX_BROWSERS_PER_SEAT: i64 = 5;

/// Browsers one account may have subscribed.
const MAX_BROWSERS_PER_ACCOUNT: i64 = 10;

fn too_many_subscriptions(message: String) -> ApiError {
    ApiError::coded(
        StatusCode::TOO_MANY_REQUESTS,
        ApiCode::TooManySubscriptions,
        message,
    )
}

/// `POST /api/push/subscriptions`.
pub(super) async fn subscribe(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let req: Subscribe = json_object(
        &body,
        r#"{"endpoint": "…", "keys": {"p256dh": "…", "auth": "…"}, "tokens": ["…"]}"#,
    )?;
    let kinds = match &req.kinds {
        None => <NoticeKind as strum::IntoEnumIterator>::iter().collect(),
        Some(names) => names
            .iter()
            .map(|n| {
                NoticeKind::parse(n)
                    .ok_or_else(|| ApiError::BadRequest(format!("unknown notification kind {n:?}")))
            })
            .collect::<Result<BTreeSet<_>, _>>()?,
    };
    let lang = match req.lang.as_deref() {
        None => Lang::En,
        Some(code) => Lang::parse(code)
            .ok_or_else(|| ApiError::BadRequest(format!("unknown language {code:?}")))?,
    };
    if req.tokens.len() > MAX_TOKENS {
        return Err(ApiError::BadRequest(format!(
            "at most {MAX_TOKENS} tokens, not {}",
            req.tokens.len()
        )));
    }
    let endpoint = shared
        .push
        .settings()
        .services
        .check(&req.endpoint)
        .map_err(|r| match r {
            Refused::Malformed(m) => {
                ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::BadSubscription, m)
            }
            Refused::NotAllowed(m) => {
                ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::PushServiceNotAllowed, m)
            }
        })?;
    browser_keys(&req.keys.p256dh, &req.keys.auth)
        .map_err(|m| ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::BadSubscription, m))?;
    shared
        .budgets
        .take(crate::limits::Rate::PushSubscriptions, client)
        .await?;
    let mut token_hashes = BTreeSet::new();
    for t in &req.tokens {
        let found = match t.chars().count() <= MAX_TOKEN_CHARS {
            true => store::covered_hash(&shared.store, t).await?,
            false => None,
        };
        let Some(h) = found else {
            return Err(ApiError::coded(
                StatusCode::BAD_REQUEST,
                ApiCode::BadToken,
                "a token names no seat and no pairing ticket",
            ));
        };
        token_hashes.insert(h);
    }
    let account_id = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
        .map(|(a, _)| a.id);
    // One seat's notice goes to a few browsers, not to a hundred and fifty.
    let endpoint_url = endpoint.url.to_string();
    for h in &token_hashes {
        if store::covering(&shared.store, h, &endpoint_url).await? >= MAX_BROWSERS_PER_SEAT {
            return Err(too_many_subscriptions(format!(
                "a seat is followed by {MAX_BROWSERS_PER_SEAT} browsers at most: unsubscribe another first"
            )));
        }
    }
    if let Some(a) = &account_id {
        if store::of_account(&shared.store, a, &endpoint_url).await? >= MAX_BROWSERS_PER_ACCOUNT {
            return Err(too_many_subscriptions(format!(
                "an account has {MAX_BROWSERS_PER_ACCOUNT} browsers subscribed at most: unsubscribe another first"
            )));
        }
    }
    let id = store::upsert(
        &shared.store,
        &Subscription {
            endpoint: endpoint.url.to_string(),
            p256dh: req.keys.p256dh,
            auth: req.keys.auth,
            token_hashes,
            account_id,
            kinds,
            lang,
        },
    )
    .await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": id }))))
}

/// `DELETE /api/push/subscriptions/{id}`.
pub(super) async fn unsubscribe(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if id.len() <= MAX_TOKEN_CHARS && store::delete(&shared.store, &id).await? {
        return Ok(StatusCode::NO_CONTENT);
    }
    Err(ApiError::coded(
        StatusCode::NOT_FOUND,
        ApiCode::SubscriptionNotFound,
        "no such push subscription",
    ))
}
