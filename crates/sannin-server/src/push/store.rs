//! The browsers' push subscriptions in the database. A subscription covers seats by
//! the hashes of their tokens (the secrets themselves are never stored) and, for a
//! logged-in browser, every seat of its account. Portable SQL.

use std::collections::BTreeSet;

use crate::pairing::ticket_key;
use crate::room::NoticeKind;
use crate::store::{unix_ms, Store};
use crate::token::{hash_token, new_token};

/// The language of a subscription's notifications: the five languages of the site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, strum::EnumIter)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Japanese.
    Ja,
    /// Russian.
    Ru,
    /// Chinese (simplified).
    Zh,
    /// Korean.
    Ko,
}

impl Lang {
    /// Its code.
    pub const fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
            Lang::Ru => "ru",
            Lang::Zh => "zh",
            Lang::Ko => "ko",
        }
    }

    /// The language of a code.
    pub fn parse(code: &str) -> Option<Lang> {
        <Lang as strum::IntoEnumIterator>::iter().find(|l| l.as_str() == code)
    }
}

/// A subscription as the browser posts it, checked.
#[derive(Debug, Clone)]
pub struct Subscription {
    /// The push service's URL for this browser.
    pub endpoint: String,
    /// The browser's P-256 key, base64url.
    pub p256dh: String,
    /// Its auth secret, base64url.
    pub auth: String,
    /// The hashes of the seats it covers.
    pub token_hashes: BTreeSet<String>,
    /// The logged-in account, whose seats it covers too.
    pub account_id: Option<String>,
    /// The notifications wanted.
    pub kinds: BTreeSet<NoticeKind>,
    /// Their language.
    pub lang: Lang,
}

/// Where one notice goes.
#[derive(Debug, Clone)]
pub struct Target {
    /// The subscription's id.
    pub id: String,
    /// The push service's URL.
    pub endpoint: String,
    /// The browser's key, base64url.
    pub p256dh: String,
    /// Its auth secret, base64url.
    pub auth: String,
    /// Its language.
    pub lang: Lang,
}

/// The hash under which a token covers a seat: its own hash when it is a seat's
/// token, its ticket key when it is a pairing ticket (the seat it is given is stored
/// under that key); None when it names neither.
///
/// # Errors
/// Database errors.
pub async fn covered_hash(store: &Store, token: &str) -> sqlx::Result<Option<String>> {
    let own = hash_token(token);
    let key = ticket_key(token);
    let found: Option<String> = sqlx::query_scalar(
        "SELECT token_hash FROM seats WHERE token_hash = $1 OR token_hash = $2 \
         UNION SELECT ticket_key FROM pairing_tickets WHERE ticket_key = $2 LIMIT 1",
    )
    .bind(&own)
    .bind(&key)
    .fetch_optional(store.pool())
    .await?;
    Ok(found)
}

/// Stores `s`, replacing the subscription of the same endpoint if any; its id.
///
/// # Errors
/// Database errors.
pub async fn upsert(store: &Store, s: &Subscription) -> sqlx::Result<String> {
    let kinds: Vec<&str> = s.kinds.iter().map(|k| k.as_str()).collect();
    let now = unix_ms();
    let mut tx = store.pool().begin().await?;
    let id: String = sqlx::query_scalar(
        "INSERT INTO push_subscriptions \
         (id, endpoint, p256dh, auth, account_id, kinds, lang, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
         ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, \
         account_id = excluded.account_id, kinds = excluded.kinds, lang = excluded.lang, \
         updated_at = excluded.updated_at \
         RETURNING id",
    )
    .bind(new_token())
    .bind(&s.endpoint)
    .bind(&s.p256dh)
    .bind(&s.auth)
    .bind(&s.account_id)
    .bind(kinds.join(","))
    .bind(s.lang.as_str())
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM push_tokens WHERE subscription_id = $1")
        .bind(&id)
        .execute(&mut *tx)
        .await?;
    for h in &s.token_hashes {
        sqlx::query("INSERT INTO push_tokens (subscription_id, token_hash) VALUES ($1, $2)")
            .bind(&id)
            .bind(h)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(id)
}

/// Browsers (subscriptions other than the one of `endpoint`) that already cover the
/// seat of `token_hash`.
///
/// # Errors
/// Database errors.
pub async fn covering(store: &Store, token_hash: &str, endpoint: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM push_tokens t JOIN push_subscriptions s ON s.id = t.subscription_id \
         WHERE t.token_hash = $1 AND s.endpoint <> $2",
    )
    .bind(token_hash)
    .bind(endpoint)
    .fetch_one(store.pool())
    .await
}

/// Subscriptions of `account` other than the one of `endpoint`.
///
/// # Errors
/// Database errors.
pub async fn of_account(store: &Store, account: &str, endpoint: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM push_subscriptions WHERE account_id = $1 AND endpoint <> $2",
    )
    .bind(account)
    .bind(endpoint)
    .fetch_one(store.pool())
    .await
}

/// Deletes the subscription `id`; false when there is none.
///
/// # Errors
/// Database errors.
pub async fn delete(store: &Store, id: &str) -> sqlx::Result<bool> {
    let mut tx = store.pool().begin().await?;
    sqlx::query("DELETE FROM push_tokens WHERE subscription_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let done = sqlx::query("DELETE FROM push_subscriptions WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}

/// The subscriptions that want `kind` for the seat of `token_hash` (or of
/// `account`).
///
/// # Errors
/// Database errors.
pub async fn targets(
    store: &Store,
    token_hash: &str,
    account: Option<&str>,
    kind: NoticeKind,
) -> sqlx::Result<Vec<Target>> {
    type Row = (String, String, String, String, String, String);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT s.id, s.endpoint, s.p256dh, s.auth, s.kinds, s.lang FROM push_subscriptions s \
         WHERE s.id IN (SELECT subscription_id FROM push_tokens WHERE token_hash = $1) \
            OR (s.account_id IS NOT NULL AND s.account_id = $2)",
    )
    .bind(token_hash)
    .bind(account)
    .fetch_all(store.pool())
    .await?;
    Ok(rows
        .into_iter()
        .filter(|r| r.4.split(',').any(|k| k == kind.as_str()))
        .map(|(id, endpoint, p256dh, auth, _, lang)| Target {
            id,
            endpoint,
            p256dh,
            auth,
            lang: Lang::parse(&lang).unwrap_or_default(),
        })
        .collect())
}
