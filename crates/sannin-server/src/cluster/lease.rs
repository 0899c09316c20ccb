//! Room leases in PostgreSQL (`room_leases`): which node owns which room, until when.
//!
//! Times are the database's clock (unix ms), so nodes with skewed clocks agree on
//! when a lease ran out. A lease is taken only when it has no row or its row expired
//! (a released lease expires at 0), and taking it raises its epoch: the fence that
//! the owner's action writes carry (`store::Fence`).

use std::time::Duration;

use sqlx::AnyPool;
use uuid::Uuid;

use crate::store::PG_NOW_MS as NOW_MS;

/// A room's lease as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The owning node.
    pub node: String,
    /// Raised by every takeover.
    pub epoch: i64,
    /// Not expired yet.
    pub live: bool,
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The lease of room `id`, if it has one.
pub async fn holder(pool: &AnyPool, id: Uuid) -> sqlx::Result<Option<Lease>> {
    let row: Option<(String, i64, bool)> = sqlx::query_as(&format!(
        "SELECT node, epoch, expires_at > {NOW_MS} FROM room_leases WHERE room_id = $1"
    ))
    .bind(id.to_string())
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(node, epoch, live)| Lease { node, epoch, live }))
}

/// Whether room `id` is stored.
pub async fn room_exists(pool: &AnyPool, id: Uuid) -> sqlx::Result<bool> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rooms WHERE id = $1")
        .bind(id.to_string())
        .fetch_one(pool)
        .await?;
    Ok(n > 0)
}

/// Takes the lease of room `id` for `node` if nobody holds a live one: the new epoch,
/// or None when another node (or this one, for another copy) holds it.
pub async fn acquire(
    pool: &AnyPool,
    id: Uuid,
    node: &str,
    ttl: Duration,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(&format!(
        "INSERT INTO room_leases (room_id, node, epoch, expires_at) \
         VALUES ($1, $2, 1, {NOW_MS} + $3) \
         ON CONFLICT (room_id) DO UPDATE SET node = EXCLUDED.node, \
             epoch = room_leases.epoch + 1, expires_at = EXCLUDED.expires_at \
         WHERE room_leases.expires_at <= {NOW_MS} \
         RETURNING epoch"
    ))
    .bind(id.to_string())
    .bind(node)
    .bind(ms(ttl))
    .fetch_optional(pool)
    .await
}

/// Renews every live lease `node` holds; returns them (room, epoch). A lease another
/// node took meanwhile, or one that ran out (this node was too slow to renew it), is
/// not in the list: its room must stop here. Released leases stay released. The rows
/// are locked in room order, as the fenced batch of actions locks them
/// (`store/fenced.rs`), so that neither waits for the other in a cycle.
pub async fn renew_all(
    pool: &AnyPool,
    node: &str,
    ttl: Duration,
) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(&format!(
        "UPDATE room_leases SET expires_at = {NOW_MS} + $2 \
         WHERE room_id IN (SELECT room_id FROM room_leases \
             WHERE node = $1 AND expires_at > {NOW_MS} ORDER BY room_id FOR UPDATE) \
         AND node = $1 AND expires_at > {NOW_MS} RETURNING room_id, epoch"
    ))
    .bind(node)
    .bind(ms(ttl))
    .fetch_all(pool)
    .await
}

/// Gives up one lease (if still held with `epoch`): it expires at once.
pub async fn release(pool: &AnyPool, id: Uuid, node: &str, epoch: i64) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE room_leases SET expires_at = 0 WHERE room_id = $1 AND node = $2 AND epoch = $3",
    )
    .bind(id.to_string())
    .bind(node)
    .bind(epoch)
    .execute(pool)
    .await?;
    Ok(())
}

/// Gives up every lease of `node` (graceful drain).
pub async fn release_all(pool: &AnyPool, node: &str) -> sqlx::Result<u64> {
    // Locked in room order, as `renew_all` does.
    let done = sqlx::query(
        "UPDATE room_leases SET expires_at = 0 WHERE room_id IN \
         (SELECT room_id FROM room_leases WHERE node = $1 ORDER BY room_id FOR UPDATE) \
         AND node = $1",
    )
    .bind(node)
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// Unfinished rooms that no node holds (never leased, expired or released), oldest
/// first: what a node's sweep takes over. A sleeping room is one only once its
/// `wake_at` is less than `margin_ms` away.
pub async fn orphans(pool: &AnyPool, limit: i64, margin_ms: i64) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar(&format!(
        "SELECT r.id FROM rooms r LEFT JOIN room_leases l ON l.room_id = r.id \
         WHERE r.status <> 'finished' AND r.broken IS NULL \
           AND (r.wake_at IS NULL OR r.wake_at <= {NOW_MS} + $2) \
           AND (l.room_id IS NULL OR l.expires_at <= {NOW_MS}) \
         ORDER BY r.created_at, r.id LIMIT $1"
    ))
    .bind(limit)
    .bind(margin_ms)
    .fetch_all(pool)
    .await
}
