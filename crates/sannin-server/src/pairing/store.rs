//! Tickets and cooldowns in the database, so that a restart (or, in a cluster, the
//! death of the matcher's node) loses no ticket and forgets no cooldown. Portable SQL.

use sannin_rules::Player;
use uuid::Uuid;

use super::{Join, PoolId};
use crate::store::column::Named as _;
use crate::store::Store;

/// A ticket as stored.
#[derive(Debug, Clone)]
pub struct StoredTicket {
    /// What the ticket was made with.
    pub join: Join,
    /// Unix ms it joined the queue; the front of a pool is the smallest.
    pub queued_at: i64,
    /// Once matched: the room and the seat.
    pub matched: Option<(Uuid, Player)>,
}

type TicketRow = (
    String,
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
    i64,
    Option<String>,
    Option<String>,
);

fn read_ticket(row: TicketRow) -> Option<StoredTicket> {
    let (key, pool, person, name, rating, bots_after_ms, queued_at, room, seat) = row;
    // A table whose room was being made when the matcher stopped: back in its pool.
    let matched = match (room.filter(|r| r != SEATING), seat) {
        (Some(r), Some(s)) => Some((r.parse().ok()?, Player::from_column(&s).ok()?)),
        _ => None,
    };
    Some(StoredTicket {
        join: Join {
            key,
            pool: PoolId::from_key(&pool)?,
            person: person.parse().ok()?,
            name,
            rating,
            bots_after_ms: bots_after_ms.and_then(|ms| u64::try_from(ms).ok()),
            addr: None,
        },
        queued_at,
        matched,
    })
}

/// Stores a new ticket.
pub async fn insert(store: &Store, t: &Join, queued_at: i64) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO pairing_tickets (ticket_key, pool, person, name, rating, bots_after_ms, \
         queued_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
    )
    .bind(&t.key)
    .bind(t.pool.key())
    .bind(t.person.to_string())
    .bind(&t.name)
    .bind(t.rating)
    .bind(t.bots_after_ms.and_then(|ms| i64::try_from(ms).ok()))
    .bind(queued_at)
    .execute(store.pool())
    .await?;
    Ok(())
}

/// What `room_id` holds while a table's room is being made.
const SEATING: &str = "seating";

/// Takes the tickets of a table out of their pool, all or none: false when one of
/// them is gone or taken already (by a matcher that lost its lease, say).
pub async fn claim(store: &Store, keys: &[String]) -> sqlx::Result<bool> {
    let mut tx = store.pool().begin().await?;
    for key in keys {
        let done = sqlx::query(
            "UPDATE pairing_tickets SET room_id = $1 WHERE ticket_key = $2 AND room_id IS NULL",
        )
        .bind(SEATING)
        .bind(key)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
    }
    tx.commit().await?;
    Ok(true)
}

/// Records the tickets of a table: each seated at `room` in its seat.
pub async fn matched(store: &Store, room: Uuid, seats: &[(String, Player)]) -> sqlx::Result<()> {
    let mut tx = store.pool().begin().await?;
    for (key, seat) in seats {
        sqlx::query("UPDATE pairing_tickets SET room_id = $1, seat = $2 WHERE ticket_key = $3")
            .bind(room.to_string())
            .bind(seat.to_column())
            .bind(key)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await
}

/// Puts tickets back in their pool at `queued_at` (the front).
pub async fn requeue(store: &Store, keys: &[String], queued_at: i64) -> sqlx::Result<()> {
    let mut tx = store.pool().begin().await?;
    for key in keys {
        sqlx::query(
            "UPDATE pairing_tickets SET room_id = NULL, seat = NULL, queued_at = $1 \
             WHERE ticket_key = $2",
        )
        .bind(queued_at)
        .bind(key)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await
}

/// Deletes tickets.
pub async fn delete(store: &Store, keys: &[String]) -> sqlx::Result<()> {
    let mut tx = store.pool().begin().await?;
    for key in keys {
        sqlx::query("DELETE FROM pairing_tickets WHERE ticket_key = $1")
            .bind(key)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await
}

/// Deletes matched tickets made before `before` (unix ms), but those of the pools
/// `except` (forgotten one by one, by the time of their match).
pub async fn forget_matched(store: &Store, before: i64, except: &[String]) -> sqlx::Result<u64> {
    let others: Vec<String> = (0..except.len()).map(|i| format!("${}", i + 2)).collect();
    let mut sql =
        "DELETE FROM pairing_tickets WHERE room_id IS NOT NULL AND created_at < $1".to_string();
    if !others.is_empty() {
        sql += &format!(" AND pool NOT IN ({})", others.join(", "));
    }
    let mut q = sqlx::query(&sql).bind(before);
    for pool in except {
        q = q.bind(pool);
    }
    let done = q.execute(store.pool()).await?;
    Ok(done.rows_affected())
}

/// Every stored ticket, the front of each pool first.
pub async fn load(store: &Store) -> sqlx::Result<Vec<StoredTicket>> {
    let rows: Vec<TicketRow> = sqlx::query_as(
        "SELECT ticket_key, pool, person, name, rating, bots_after_ms, queued_at, room_id, seat \
         FROM pairing_tickets ORDER BY queued_at, ticket_key",
    )
    .fetch_all(store.pool())
    .await?;
    Ok(rows.into_iter().filter_map(read_ticket).collect())
}

/// A person's record of tables given up: how many, the last one, and the end of the
/// cooldown (unix ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cooldown {
    /// Tables given up in a row (forgotten after a quiet day).
    pub aborts: i64,
    /// When the last was given up.
    pub last_abort: i64,
    /// No ticket before then.
    pub until: i64,
}

/// The cooldown kept under `key` (a person, `account:…`, `browser:…`, or an address,
/// `addr:…`), if any.
pub async fn cooldown(store: &Store, key: &str) -> sqlx::Result<Option<Cooldown>> {
    let row: Option<(i64, i64, i64)> = sqlx::query_as(
        "SELECT aborts, last_abort, until_ms FROM pairing_cooldowns WHERE person = $1",
    )
    .bind(key)
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|(aborts, last_abort, until)| Cooldown {
        aborts,
        last_abort,
        until,
    }))
}

/// Stores the cooldown kept under `key`.
pub async fn set_cooldown(store: &Store, key: &str, c: Cooldown) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO pairing_cooldowns (person, aborts, last_abort, until_ms) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (person) DO UPDATE \
         SET aborts = EXCLUDED.aborts, last_abort = EXCLUDED.last_abort, \
             until_ms = EXCLUDED.until_ms",
    )
    .bind(key)
    .bind(c.aborts)
    .bind(c.last_abort)
    .bind(c.until)
    .execute(store.pool())
    .await?;
    Ok(())
}
