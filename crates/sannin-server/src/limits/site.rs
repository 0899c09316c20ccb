//! Rate budgets kept in the database that every node of a cluster shares
//! (`client_budgets`), so that a client behind a round-robin balancer has one budget,
//! not one per node: the rooms and analyses an address may start, the log-in
//! attempts of an address or a name.
//!
//! One row per budget and key holds the theoretical arrival time of the next request,
//! updated by one statement that also decides: the GCRA of the single node's
//! in-memory limiter (`burst` at once, then one per replenish interval). Rows whose
//! budget is full again are deleted by the cluster's sweep.

use std::time::Duration;

use sqlx::AnyPool;
use tracing::info;

use crate::error::ApiError;
use crate::store::{Store, PG_NOW_MS as NOW_MS};

/// Takes one request from the site-wide rate budget `key` (one per `interval`, `burst`
/// at once).
///
/// # Errors
/// `RateLimited { what, .. }` with the time until the budget allows one again;
/// database errors.
pub async fn take_budget(
    store: &Store,
    what: &'static str,
    key: &str,
    interval: Duration,
    burst: u32,
) -> Result<(), ApiError> {
    let refused = take(store.pool(), key, interval, burst)
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    match refused {
        None => Ok(()),
        Some(retry_after) => {
            info!(key, what, "rate limited (site-wide)");
            Err(ApiError::RateLimited { what, retry_after })
        }
    }
}

/// Takes one request from budget `key` (one per `interval`, `burst` at once). None if
/// allowed, else how long until the budget allows one again.
async fn take(
    pool: &AnyPool,
    key: &str,
    interval: Duration,
    burst: u32,
) -> sqlx::Result<Option<Duration>> {
    let t = i64::try_from(interval.as_millis())
        .unwrap_or(i64::MAX)
        .max(1);
    let tolerance = t.saturating_mul(i64::from(burst.max(1)));
    let allowed: Option<i64> = sqlx::query_scalar(&format!(
        "INSERT INTO client_budgets (budget, tat) VALUES ($1, {NOW_MS} + $2) \
         ON CONFLICT (budget) DO UPDATE \
             SET tat = GREATEST(client_budgets.tat, {NOW_MS}) + $2 \
         WHERE GREATEST(client_budgets.tat, {NOW_MS}) + $2 - {NOW_MS} <= $3 \
         RETURNING tat"
    ))
    .bind(key)
    .bind(t)
    .bind(tolerance)
    .fetch_optional(pool)
    .await?;
    if allowed.is_some() {
        return Ok(None);
    }
    let wait: i64 = sqlx::query_scalar(&format!(
        "SELECT COALESCE(MAX(tat), 0) + $2 - $3 - {NOW_MS} FROM client_budgets WHERE budget = $1"
    ))
    .bind(key)
    .bind(t)
    .bind(tolerance)
    .fetch_one(pool)
    .await?;
    Ok(Some(Duration::from_millis(
        u64::try_from(wait).unwrap_or(0).max(1),
    )))
}
