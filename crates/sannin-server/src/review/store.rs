//! The reviews' table (`migrations/…_game_reviews.sql`): the queue, the leases of the
//! reviews running, the results, and the counts the daily budgets are read from.
//! Portable SQL.

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;
use sqlx::{Any, FromRow};

use crate::store::{unix_ms, Store};

/// A review's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The reviewed room.
    pub room_id: String,
    /// `queued`, `running`, `done` or `failed`.
    pub state: String,
    /// Unix ms of the request.
    pub requested_at: i64,
    /// Positions analysed.
    pub plies_done: i64,
    /// Positions to analyse: the plies and the start.
    pub plies_total: i64,
    /// The search budget of each position.
    pub nodes: i64,
    /// Done: the review as JSON; failed: why.
    pub result: Option<String>,
}

impl FromRow<'_, AnyRow> for Row {
    fn from_row(row: &AnyRow) -> Result<Self, sqlx::Error> {
        use sqlx::Row as _;
        Ok(Row {
            room_id: row.try_get("room_id")?,
            state: row.try_get("state")?,
            requested_at: row.try_get("requested_at")?,
            plies_done: row.try_get("plies_done")?,
            plies_total: row.try_get("plies_total")?,
            nodes: row.try_get("nodes")?,
            result: row.try_get("result")?,
        })
    }
}

/// A new request's row.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub room_id: &'a str,
    /// The fair queue's key.
    pub requester: &'a str,
    pub addr: &'a str,
    pub account_id: Option<&'a str>,
    pub plies_total: i64,
    pub nodes: i64,
}

/// The review of `room`.
///
/// # Errors
/// Database errors.
pub async fn find(store: &Store, room: &str) -> sqlx::Result<Option<Row>> {
    sqlx::query_as(
        "SELECT room_id, state, requested_at, plies_done, plies_total, nodes, result \
         FROM game_reviews WHERE room_id = $1",
    )
    .bind(room)
    .fetch_optional(store.pool())
    .await
}

/// Queues a review; false when `room` has one already (asked meanwhile).
///
/// # Errors
/// Database errors.
pub async fn insert(store: &Store, r: &Request<'_>) -> sqlx::Result<bool> {
    one_row(
        store,
        requested(
            "INSERT INTO game_reviews \
             (room_id, state, requester, addr, account_id, requested_at, plies_total, nodes) \
             VALUES ($1, 'queued', $2, $3, $4, $5, $6, $7) ON CONFLICT (room_id) DO NOTHING",
            r,
        ),
    )
    .await
}

/// Queues again the failed review of `r.room_id` for its new requester; false when it
/// is not failed (any more).
///
/// # Errors
/// Database errors.
pub async fn requeue(store: &Store, r: &Request<'_>) -> sqlx::Result<bool> {
    one_row(
        store,
        requested(
            "UPDATE game_reviews SET state = 'queued', requester = $2, addr = $3, account_id = $4, \
             requested_at = $5, plies_total = $6, nodes = $7, plies_done = 0, result = NULL, \
             finished_at = NULL WHERE room_id = $1 AND state = 'failed'",
            r,
        ),
    )
    .await
}

/// Reviews waiting on the whole site.
///
/// # Errors
/// Database errors.
pub async fn waiting(store: &Store) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT COUNT(*) FROM game_reviews WHERE state = 'queued'")
        .fetch_one(store.pool())
        .await
}

/// Reviews waiting that were asked before `requested_at`: about how many run first.
///
/// # Errors
/// Database errors.
pub async fn ahead(store: &Store, requested_at: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM game_reviews WHERE state = 'queued' AND requested_at < $1",
    )
    .bind(requested_at)
    .fetch_one(store.pool())
    .await
}

/// The review to run next: waiting, or running under a lease that ran out (its node
/// stopped). Fair: a requester's reviews take turns with everyone else's — its
/// second (counting one running) after everyone's first, then the oldest first.
///
/// # Errors
/// Database errors.
pub async fn next(store: &Store, now: i64) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar(
        "SELECT room_id FROM ( \
           SELECT room_id, requested_at, state, lease_until, \
                  ROW_NUMBER() OVER (PARTITION BY requester ORDER BY requested_at) AS turn \
           FROM game_reviews WHERE state IN ('queued', 'running') \
         ) q WHERE state = 'queued' OR lease_until < $1 \
         ORDER BY turn, requested_at LIMIT 1",
    )
    .bind(now)
    .fetch_optional(store.pool())
    .await
}

/// Takes `room`'s review for `node` until `lease_until`, if it is still free to take
/// (another node may have taken it since [`next`]).
///
/// # Errors
/// Database errors.
pub async fn claim(
    store: &Store,
    room: &str,
    node: &str,
    now: i64,
    lease_until: i64,
) -> sqlx::Result<bool> {
    one_row(
        store,
        sqlx::query(
            "UPDATE game_reviews SET state = 'running', node = $2, lease_until = $3, plies_done = 0 \
             WHERE room_id = $1 AND (state = 'queued' OR (state = 'running' AND lease_until < $4))",
        )
        .bind(room)
        .bind(node)
        .bind(lease_until)
        .bind(now),
    )
    .await
}

/// Records progress and extends the lease; false when `node` no longer holds it.
///
/// # Errors
/// Database errors.
pub async fn progress(
    store: &Store,
    room: &str,
    node: &str,
    plies_done: i64,
    lease_until: i64,
) -> sqlx::Result<bool> {
    one_row(
        store,
        sqlx::query(
            "UPDATE game_reviews SET plies_done = $3, lease_until = $4 \
             WHERE room_id = $1 AND node = $2 AND state = 'running'",
        )
        .bind(room)
        .bind(node)
        .bind(plies_done)
        .bind(lease_until),
    )
    .await
}

/// Ends `room`'s review run by `node`: `done` with the review's JSON, or `failed` with
/// the reason. False when the node no longer held it.
///
/// # Errors
/// Database errors.
pub async fn finish(
    store: &Store,
    room: &str,
    node: &str,
    done: bool,
    result: &str,
    plies_done: i64,
) -> sqlx::Result<bool> {
    let state = if done { "done" } else { "failed" };
    one_row(
        store,
        sqlx::query(
            "UPDATE game_reviews SET state = $3, result = $4, plies_done = $5, finished_at = $6, \
             node = NULL, lease_until = NULL \
             WHERE room_id = $1 AND node = $2 AND state = 'running'",
        )
        .bind(room)
        .bind(node)
        .bind(state)
        .bind(result)
        .bind(plies_done)
        .bind(unix_ms()),
    )
    .await
}

/// Puts the reviews `node` runs back in the queue (it stops, or starts again after a
/// stop that left them running); every running review when `node` is None (a single
/// node owns them all).
///
/// # Errors
/// Database errors.
pub async fn release(store: &Store, node: Option<&str>) -> sqlx::Result<u64> {
    const SET: &str = "UPDATE game_reviews SET state = 'queued', node = NULL, lease_until = NULL, \
                       plies_done = 0 WHERE state = 'running'";
    let done = match node {
        Some(node) => {
            sqlx::query(&format!("{SET} AND node = $1"))
                .bind(node)
                .execute(store.pool())
                .await?
        }
        None => sqlx::query(SET).execute(store.pool()).await?,
    };
    Ok(done.rows_affected())
}

/// Runs `q`; whether it changed exactly one row (the row it names was in the state
/// it asks for).
/// `sql` with a request bound as $1 to $7: room, requester, address, account, now,
/// plies, nodes.
fn requested<'q>(sql: &'q str, r: &Request<'q>) -> Query<'q, Any, AnyArguments<'q>> {
    sqlx::query(sql)
        .bind(r.room_id)
        .bind(r.requester)
        .bind(r.addr)
        .bind(r.account_id)
        .bind(unix_ms())
        .bind(r.plies_total)
        .bind(r.nodes)
}

async fn one_row<'q>(store: &Store, q: Query<'q, Any, AnyArguments<'q>>) -> sqlx::Result<bool> {
    Ok(q.execute(store.pool()).await?.rows_affected() == 1)
}
