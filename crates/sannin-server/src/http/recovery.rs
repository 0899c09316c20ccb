//! Account recovery over HTTP (docs/accounts.md, "E-mail and a forgotten password"):
//! `GET|POST /api/account/email`, `POST /api/account/email/verify`,
//! `POST /api/password/forgot`, `POST /api/password/reset`.
//!
//! A request for a reset link is answered the same whether or not an account has
//! that name or address, so it tells a stranger nothing; it spends the log-in budgets
//! of the address and of the account. Tokens travel only in the mailed links and are
//! never logged.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use tracing::{info, warn};

use super::accounts::not_logged_in;
use super::extract::json_object;
use crate::accounts::mail::{looks_like_email, Mailer};
use crate::accounts::recovery::{Email, Purpose};
use crate::accounts::{check_password, store::name_key};
use crate::app::Shared;
use crate::http::ApiError;
use crate::limits::ClientAddr;
use sannin_protocol::ApiCode;

/// The routes of account recovery.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/account/email", get(email).post(set_email))
        .route("/api/account/email/verify", post(verify_email))
        .route("/api/password/forgot", post(forgot))
        .route("/api/password/reset", post(reset))
}

fn mailer(shared: &Shared) -> Result<&Mailer, ApiError> {
    shared.accounts.mailer.as_ref().ok_or_else(|| {
        ApiError::coded(
            StatusCode::SERVICE_UNAVAILABLE,
            ApiCode::NoMail,
            "this server sends no mail: ask its admin to reset a password",
        )
    })
}

fn bad_link() -> ApiError {
    ApiError::coded(
        StatusCode::BAD_REQUEST,
        ApiCode::BadLink,
        "this link is unknown, used or out of date: ask for a new one",
    )
}

async fn email(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Json<Email>, ApiError> {
    let (account, _) = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
        .ok_or_else(not_logged_in)?;
    Ok(Json(shared.accounts.db.email(&account.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EmailBody {
    email: String,
    /// The account's password: a session alone (a borrowed device) does not move the
    /// account's recovery to another mailbox.
    #[serde(default)]
    password: Option<String>,
}

/// Sets the logged-in account's address and mails it a link to verify it.
async fn set_email(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<Email>), ApiError> {
    let req: EmailBody = json_object(&body, r#"{"email": "...", "password": "..."}"#)?;
    let a = &shared.accounts;
    let (account, _) = a
        .account_of(super::session::session(&headers).as_deref())
        .await
        .ok_or_else(not_logged_in)?;
    let mailer = mailer(&shared)?;
    a.attempt(format!("addr:{client}")).await?;
    let stored = a.db.password_hash(&account.id).await?;
    let password = req.password.unwrap_or_default();
    if password.is_empty() || !a.hashing.verify(password, stored).await? {
        return Err(ApiError::coded(
            StatusCode::UNAUTHORIZED,
            ApiCode::BadCredentials,
            "give the account's password to change its e-mail address",
        ));
    }
    let address = req.email.trim();
    if !looks_like_email(address) {
        return Err(ApiError::coded(
            StatusCode::BAD_REQUEST,
            ApiCode::BadEmail,
            "that is not an e-mail address",
        ));
    }
    // A mailbox gets a few verification mails an hour, whichever accounts ask.
    let since = crate::store::unix_ms() - HOUR_MS;
    if a.db.links_to(address, since).await? >= MAILS_PER_HOUR {
        return Err(crate::limits::Refused::Rate {
            what: "mails to that address",
            retry_after: std::time::Duration::from_secs(3_600),
        }
        .into());
    }
    a.db.set_email(&account.id, address).await?;
    let token =
        a.db.create_link(&account.id, Purpose::VerifyEmail, Some(address))
            .await?;
    let link = mailer.link(&format!("/account/verify?token={token}"));
    let body = format!(
        "Hello {name},\n\nTo confirm that {address} is the address of your Sannin account, \
         open this link (it works once, for a day):\n\n{link}\n\nIf you did not ask for \
         this, ignore this message.\n",
        name = account.name
    );
    send(mailer, address, "Confirm your e-mail address", body).await?;
    info!(name = %account.name, "an e-mail address set; its link is mailed");
    let email = a.db.email(&account.id).await?;
    Ok((StatusCode::ACCEPTED, Json(email)))
}

async fn send(mailer: &Mailer, to: &str, subject: &str, body: String) -> Result<(), ApiError> {
    mailer.send(to, subject, body).await.map_err(|e| {
        warn!(error = %format!("{e:#}"), "mail not sent");
        ApiError::coded(
            StatusCode::BAD_GATEWAY,
            ApiCode::MailFailed,
            "the mail could not be sent: try again later",
        )
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenBody {
    token: String,
}

/// Follows a link that verifies an address (no session needed: the mail may be read
/// on another device).
async fn verify_email(
    State(shared): State<Arc<Shared>>,
    body: Bytes,
) -> Result<Json<Email>, ApiError> {
    let req: TokenBody = json_object(&body, r#"{"token": "..."}"#)?;
    let db = &shared.accounts.db;
    let (account_id, email) = db
        .use_link(&req.token, Purpose::VerifyEmail)
        .await?
        .ok_or_else(bad_link)?;
    let email = email.ok_or_else(bad_link)?;
    if !db.verify_email(&account_id, &email).await? {
        // The account's address changed since the link was sent.
        return Err(bad_link());
    }
    Ok(Json(db.email(&account_id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForgotBody {
    /// An account's name, or its verified address.
    name: String,
}

/// Mails a link to set a new password to the account's verified address, if there is
/// Mails of one kind an account (reset links) or a mailbox (verification links) gets
/// in an hour at most.
const MAILS_PER_HOUR: i64 = 3;

/// An hour in ms.
const HOUR_MS: i64 = 3_600_000;

/// Held while a reset mail's budget is counted and its link made.
static RESET_MAILS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// such an account; answers the same either way.
async fn forgot(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let req: ForgotBody = json_object(&body, r#"{"name": "a name or an e-mail address"}"#)?;
    let a = &shared.accounts;
    let mailer = mailer(&shared)?;
    a.attempt(format!("addr:{client}")).await?;
    a.attempt_name(&name_key(&req.name)).await?;
    if let Some((id, name, address)) = a.db.recoverable(&req.name).await? {
        // Made and sent in the background: the answer takes as long whether or not
        // there is such an account, verified or not.
        let (db, mailer) = (a.db.clone(), mailer.clone());
        tokio::spawn(async move {
            // However many addresses ask, an account gets a few mails an hour; the
            // count and the new link are taken together (one at a time on a node).
            let _one_at_a_time = RESET_MAILS.lock().await;
            let since = crate::store::unix_ms() - HOUR_MS;
            match db.links_since(&id, Purpose::ResetPassword, since).await {
                Ok(n) if n < MAILS_PER_HOUR => {}
                Ok(_) => return info!(%name, "reset mails of the hour spent: none sent"),
                Err(e) => return tracing::warn!(error = %e, "counting an account's mails"),
            }
            let token = match db.create_link(&id, Purpose::ResetPassword, None).await {
                Ok(t) => t,
                Err(e) => return tracing::warn!(error = %e, "making a link to set a password"),
            };
            let link = mailer.link(&format!("/account/reset?token={token}"));
            let body = format!(
                "Hello {name},\n\nSomeone asked to set a new password for your Sannin account. \
                 To choose one, open this link (it works once, for an hour):\n\n{link}\n\n\
                 If it was not you, ignore this message: your password stays as it is.\n"
            );
            if send(&mailer, &address, "Set a new password", body)
                .await
                .is_ok()
            {
                info!(%name, "a link to set a new password is mailed");
            }
        });
    }
    Ok(StatusCode::ACCEPTED)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResetBody {
    token: String,
    new: String,
}

/// Follows a link to set a new password: the password is set, every session of the
/// account ends (its sockets lose the account).
async fn reset(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let req: ResetBody = json_object(&body, r#"{"token": "...", "new": "..."}"#)?;
    let a = &shared.accounts;
    a.attempt(format!("addr:{client}")).await?;
    check_password(&req.new)
        .map_err(|m| ApiError::coded(StatusCode::BAD_REQUEST, ApiCode::BadPassword, m))?;
    let (account_id, _) =
        a.db.use_link(&req.token, Purpose::ResetPassword)
            .await?
            .ok_or_else(bad_link)?;
    let hash = a.hashing.hash(req.new).await?;
    a.db.reset_password(&account_id, &hash).await?;
    a.sockets.end_all_but(&account_id, "");
    info!(account = %account_id, "password set by a mailed link; every session ended");
    Ok(StatusCode::NO_CONTENT)
}
