//! What the nodes of a cluster count together, in the PostgreSQL database they all
//! share (a single node keeps the same counts in memory, `budgets.rs`). Behind a
//! round-robin balancer each node would see a share of a client's requests; the
//! database is already shared and written transactionally, where NATS would need a
//! second store with its own expiry for the same guarantees.
//!
//! - **Rates** ([`super::Budget::site`]): one row per budget and key
//!   (`client_budgets`) holding the theoretical arrival time of the next request,
//!   updated by one statement that also decides: the same GCRA as a single node's
//!   limiter (`burst` at once, then one per replenish interval).
//! - **Open WebSockets** (`--max-ws-per-address`): one row per address and node
//!   (`client_sockets`) with that node's count; an address's total is the sum over
//!   the nodes whose heartbeat (`cluster_nodes`) is live, so a killed node's sockets
//!   stop counting within a lease time.
//! - **Rooms of bots alone** (`--max-bot-only-rooms-per-address`): one row per room an
//!   address created (`bot_only_rooms`), counted while the room is unfinished and
//!   played by bots alone.
//!
//! A decision that counts rows (sockets, rooms of bots alone) holds a transaction-scoped
//! advisory lock on its address, so that two nodes deciding at once for one address
//! take turns. Rows that no longer count are deleted by the cluster's sweep
//! ([`prune`]). What stays per node: the searches running at once
//! (`--analyse-concurrency`) and the rooms of bots alone running at once
//! (`--max-bot-only-rooms`), which guard each node's own CPU.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::{Any, AnyPool, Transaction};
use tracing::warn;

use super::ClientAddr;
use crate::store::PG_NOW_MS as NOW_MS;

/// How long a reservation of a room of bots alone counts before its room exists.
const RESERVATION_MS: i64 = 60_000;

/// A transaction holding the advisory lock of `key` until it ends.
async fn locked(pool: &AnyPool, key: &str) -> sqlx::Result<Transaction<'static, Any>> {
    let mut tx = pool.begin().await?;
    // `pg_advisory_xact_lock` returns void, which the `Any` driver cannot decode:
    // the lock is taken in a subquery and a count returned instead.
    let _: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT pg_advisory_xact_lock(hashtextextended($1, 0))) l",
    )
    .bind(key)
    .fetch_one(&mut *tx)
    .await?;
    Ok(tx)
}

/// Renews `node`'s heartbeat: its socket counts count for `ttl` more.
pub async fn heartbeat(pool: &AnyPool, node: &str, ttl: Duration) -> sqlx::Result<()> {
    sqlx::query(&format!(
        "INSERT INTO cluster_nodes (node, expires_at) VALUES ($1, {NOW_MS} + $2) \
         ON CONFLICT (node) DO UPDATE SET expires_at = EXCLUDED.expires_at"
    ))
    .bind(node)
    .bind(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX))
    .execute(pool)
    .await?;
    Ok(())
}

/// `node` leaves the cluster: its heartbeat and its socket counts are deleted.
pub async fn leave(pool: &AnyPool, node: &str) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM client_sockets WHERE node = $1")
        .bind(node)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM cluster_nodes WHERE node = $1")
        .bind(node)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// The WebSockets open on this node per address, mirrored in `client_sockets`.
#[derive(Debug)]
pub struct Sockets {
    pool: AnyPool,
    node: String,
    max: usize,
    open: Mutex<HashMap<ClientAddr, i64>>,
}

/// One open WebSocket of an address, counted site-wide; dropping it gives the slot
/// back (the node's row is rewritten in the background).
#[derive(Debug)]
pub struct SocketGuard {
    sockets: Arc<Sockets>,
    addr: ClientAddr,
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        if self.sockets.max == 0 {
            return;
        }
        {
            let mut open = self.sockets.open();
            if let Some(n) = open.get_mut(&self.addr) {
                *n -= 1;
                if *n <= 0 {
                    open.remove(&self.addr);
                }
            }
        }
        let (sockets, addr) = (self.sockets.clone(), self.addr);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = sockets.store(addr).await {
                    warn!(client = %addr, error = %e, "cannot store the sockets of an address");
                }
            });
        }
    }
}

impl Sockets {
    /// This node's counts, at most `max` per address site-wide (0: no cap).
    pub fn new(pool: AnyPool, node: String, max: usize) -> Arc<Sockets> {
        Arc::new(Sockets {
            pool,
            node,
            max,
            open: Mutex::new(HashMap::new()),
        })
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<ClientAddr, i64>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn key(addr: ClientAddr) -> String {
        format!("ws {addr}")
    }

    /// One more socket of `addr`, if the address has fewer than the cap open on the
    /// live nodes. None when refused.
    pub async fn take(self: &Arc<Self>, addr: ClientAddr) -> sqlx::Result<Option<SocketGuard>> {
        if self.max == 0 {
            return Ok(Some(SocketGuard {
                sockets: self.clone(),
                addr,
            }));
        }
        let mut tx = locked(&self.pool, &Self::key(addr)).await?;
        let elsewhere: i64 = sqlx::query_scalar(&format!(
            "SELECT CAST(COALESCE(SUM(s.open), 0) AS BIGINT) FROM client_sockets s \
             JOIN cluster_nodes n ON n.node = s.node \
             WHERE s.client = $1 AND s.node <> $2 AND n.expires_at > {NOW_MS}"
        ))
        .bind(addr.to_string())
        .bind(&self.node)
        .fetch_one(&mut *tx)
        .await?;
        // Under the address's lock, this node's count only goes down meanwhile.
        let here = self.open().get(&addr).copied().unwrap_or(0);
        let max = i64::try_from(self.max).unwrap_or(i64::MAX);
        if elsewhere + here >= max {
            return Ok(None);
        }
        let guard = {
            *self.open().entry(addr).or_insert(0) += 1;
            SocketGuard {
                sockets: self.clone(),
                addr,
            }
        };
        // Dropping the guard on an error gives the slot back.
        self.write(&mut tx, addr).await?;
        tx.commit().await?;
        Ok(Some(guard))
    }

    /// Writes this node's count of `addr` as it is now (under the address's lock, so
    /// the last write carries the last count).
    async fn write(
        &self,
        tx: &mut Transaction<'static, Any>,
        addr: ClientAddr,
    ) -> sqlx::Result<()> {
        let n = self.open().get(&addr).copied().unwrap_or(0);
        if n <= 0 {
            sqlx::query("DELETE FROM client_sockets WHERE client = $1 AND node = $2")
                .bind(addr.to_string())
                .bind(&self.node)
                .execute(&mut **tx)
                .await?;
        } else {
            sqlx::query(
                "INSERT INTO client_sockets (client, node, open) VALUES ($1, $2, $3) \
                 ON CONFLICT (client, node) DO UPDATE SET open = EXCLUDED.open",
            )
            .bind(addr.to_string())
            .bind(&self.node)
            .bind(n)
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    /// Stores this node's count of `addr` (after a socket closed).
    async fn store(&self, addr: ClientAddr) -> sqlx::Result<()> {
        if self.max == 0 {
            return Ok(());
        }
        let mut tx = locked(&self.pool, &Self::key(addr)).await?;
        self.write(&mut tx, addr).await?;
        tx.commit().await
    }
}

/// Reserves a place for one more room of bots alone of `client`, if it has fewer than
/// `max` unfinished (or being created): the reservation's id, to name the room by
/// once created ([`bot_only_created`]) or to give back ([`bot_only_failed`]); None
/// when refused.
pub async fn reserve_bot_only(
    pool: &AnyPool,
    client: ClientAddr,
    max: usize,
) -> sqlx::Result<Option<String>> {
    let client = client.to_string();
    let mut tx = locked(pool, &format!("bot-only {client}")).await?;
    let running: i64 = sqlx::query_scalar(&format!(
        "SELECT COUNT(*) FROM bot_only_rooms b LEFT JOIN rooms r ON r.id = b.room_id \
         WHERE b.client = $1 AND ( \
             (r.id IS NULL AND b.created_at > {NOW_MS} - $2) \
             OR (r.status <> 'finished' AND (SELECT COUNT(*) FROM seats s \
                 WHERE s.room_id = r.id AND s.bot IS NOT NULL) = 3))"
    ))
    .bind(&client)
    .bind(RESERVATION_MS)
    .fetch_one(&mut *tx)
    .await?;
    if running >= i64::try_from(max).unwrap_or(i64::MAX) {
        return Ok(None);
    }
    let reservation = format!("reserved-{}", uuid::Uuid::new_v4().simple());
    sqlx::query(&format!(
        "INSERT INTO bot_only_rooms (room_id, client, created_at) VALUES ($1, $2, {NOW_MS})"
    ))
    .bind(&reservation)
    .bind(&client)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(reservation))
}

/// The reserved room of bots alone exists now, as `room`.
pub async fn bot_only_created(pool: &AnyPool, reservation: &str, room: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE bot_only_rooms SET room_id = $1 WHERE room_id = $2")
        .bind(room)
        .bind(reservation)
        .execute(pool)
        .await?;
    Ok(())
}

/// The reserved room of bots alone was not created.
pub async fn bot_only_failed(pool: &AnyPool, reservation: &str) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM bot_only_rooms WHERE room_id = $1")
        .bind(reservation)
        .execute(pool)
        .await?;
    Ok(())
}

/// Forgets what no longer counts: rate budgets full again, nodes gone for a minute
/// with their socket counts, rooms of bots alone finished or deleted, reservations
/// run out.
pub async fn prune(pool: &AnyPool) -> sqlx::Result<u64> {
    let mut n = 0;
    let statements = [
        format!("DELETE FROM client_budgets WHERE tat <= {NOW_MS}"),
        format!(
            "DELETE FROM client_sockets WHERE node IN \
             (SELECT node FROM cluster_nodes WHERE expires_at <= {NOW_MS} - 60000) \
             OR node NOT IN (SELECT node FROM cluster_nodes)"
        ),
        format!("DELETE FROM cluster_nodes WHERE expires_at <= {NOW_MS} - 60000"),
        format!(
            "DELETE FROM bot_only_rooms b WHERE NOT EXISTS \
             (SELECT 1 FROM rooms r WHERE r.id = b.room_id AND r.status <> 'finished') \
             AND b.created_at <= {NOW_MS} - {RESERVATION_MS}"
        ),
    ];
    for sql in statements {
        n += sqlx::query(&sql).execute(pool).await?.rows_affected();
    }
    Ok(n)
}

/// Takes one request from budget `key` (one per `interval`, `burst` at once). None if
/// allowed, else how long until the budget allows one again.
pub(super) async fn take(
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
