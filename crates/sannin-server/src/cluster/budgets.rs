//! Per-address room budgets shared by every node (cluster mode).
//!
//! A single node keeps `--rooms-per-minute` and `--bot-rooms-per-minute` in memory
//! (`limits.rs`, a GCRA rate limiter). Behind a round-robin balancer each node would
//! see a share of a client's requests, so in a cluster these two budgets live in
//! PostgreSQL instead: one row per address and budget (`client_budgets`) holding the
//! theoretical arrival time of the next request, updated by one statement that also
//! decides (the same GCRA: `burst` at once, then one per replenish interval). Rows of
//! addresses whose budget is full again are deleted by the lease sweep.
//!
//! The WebSocket cap per address (`--max-ws-per-address`) and the analysis budget
//! stay per node: they guard each node's own sockets and CPU.

use std::time::Duration;

use sqlx::AnyPool;

use super::lease::NOW_MS;

/// Takes one request from budget `key` (one per `interval`, `burst` at once). None if
/// allowed, else how long until the budget allows one again.
pub async fn take(
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

/// Forgets the addresses whose budgets are full again.
pub async fn prune(pool: &AnyPool) -> sqlx::Result<u64> {
    let done = sqlx::query(&format!("DELETE FROM client_budgets WHERE tat <= {NOW_MS}"))
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}
