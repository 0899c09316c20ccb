//! Group commit of the rooms' actions.
//!
//! Every room stores each accepted action before it tells anyone about it, so under
//! load thousands of rooms each wait on a one-row write. Sent one by one, every row
//! costs a trip through the pool (and, on SQLite, a hand-off to the driver's worker
//! thread and back) and a commit of its own. Here one task owns the action writes: a
//! room sends its row and awaits the acknowledgement; the task takes everything that
//! is pending (up to [`MAX_BATCH`] rows, never waiting for more to come), writes it in
//! one statement — in one transaction with the `rooms` updates when a row ends a
//! game — and acknowledges each room once that commit has returned. Durability is
//! unchanged: a room broadcasts nothing before its own row is committed.
//!
//! When a batch fails as a whole (the database is down, or one row is refused), each
//! of its rows is tried again on its own, so every room gets the answer its own row
//! deserves and one bad row never fails the others.

use std::fmt::Write as _;

use sqlx::AnyPool;
use tokio::sync::{mpsc, oneshot};

use super::{now_ms, StoredAction};

/// The most rows written in one statement (7 parameters a row: well inside the
/// parameter limits of SQLite and PostgreSQL).
pub const MAX_BATCH: usize = 128;

/// How many writes may wait for the writer before senders wait to send.
const QUEUE: usize = 8192;

/// One room's row, waiting to be written.
struct Job {
    room: String,
    action: StoredAction,
    /// The room's result JSON when this action ended the game.
    finished: Option<String>,
    done: oneshot::Sender<sqlx::Result<()>>,
}

/// The rooms' side of the writer task (cheap to clone).
#[derive(Clone, Debug)]
pub struct Writer {
    tx: mpsc::Sender<Job>,
}

/// The writer task's own part.
struct Task {
    pool: AnyPool,
    /// `?` placeholders (SQLite) rather than `$n` (PostgreSQL).
    anonymous: bool,
}

impl Writer {
    /// Starts the writer task on `pool` (of SQLite when `sqlite`). It runs until every
    /// `Writer` is dropped.
    pub fn spawn(pool: AnyPool, sqlite: bool) -> Writer {
        let (tx, rx) = mpsc::channel(QUEUE);
        let task = Task {
            pool,
            anonymous: sqlite,
        };
        tokio::spawn(task.run(rx));
        Writer { tx }
    }

    /// Stores `action` of room `id` (and marks the room finished with `finished`, in
    /// the same transaction); returns once it is committed.
    pub async fn append(
        &self,
        id: &str,
        action: &StoredAction,
        finished: Option<&str>,
    ) -> sqlx::Result<()> {
        let (done, answer) = oneshot::channel();
        let job = Job {
            room: id.to_string(),
            action: action.clone(),
            finished: finished.map(str::to_string),
            done,
        };
        self.tx
            .send(job)
            .await
            .map_err(|_| sqlx::Error::PoolClosed)?;
        answer.await.unwrap_or(Err(sqlx::Error::PoolClosed))
    }
}

impl Task {
    async fn run(self, mut rx: mpsc::Receiver<Job>) {
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
            match self.write(&batch).await {
                Ok(()) => {
                    for job in batch.drain(..) {
                        let _ = job.done.send(Ok(()));
                    }
                }
                Err(e) if batch.len() == 1 => {
                    if let Some(job) = batch.pop() {
                        let _ = job.done.send(Err(e));
                    }
                }
                Err(_) => {
                    // Each row on its own: the answer each room's own row deserves.
                    for job in batch.drain(..) {
                        let r = self.write(std::slice::from_ref(&job)).await;
                        let _ = job.done.send(r);
                    }
                }
            }
        }
    }

    /// Writes `jobs` in one statement; with the `rooms` updates of games they end, in one
    /// transaction.
    async fn write(&self, jobs: &[Job]) -> sqlx::Result<()> {
        let pool = &self.pool;
        let now = now_ms();
        let sql = insert_sql(jobs.len(), self.anonymous);
        let mut insert = sqlx::query(&sql);
        for j in jobs {
            let a = &j.action;
            insert = insert
                .bind(j.room.as_str())
                .bind(a.ply)
                .bind(a.kind.as_str())
                .bind(a.player.map(|p| p.lower()))
                .bind(a.text.as_str())
                .bind(now)
                .bind(a.clocks.as_deref());
        }
        if jobs.iter().all(|j| j.finished.is_none()) {
            // One statement is atomic on its own: no transaction round trips needed.
            insert.execute(pool).await?;
            return Ok(());
        }
        let mut tx = pool.begin().await?;
        insert.execute(&mut *tx).await?;
        for j in jobs {
            if let Some(result) = &j.finished {
                sqlx::query(
                    "UPDATE rooms SET status = 'finished', result = $1, updated_at = $2 \
                 WHERE id = $3",
                )
                .bind(result.as_str())
                .bind(now)
                .bind(j.room.as_str())
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await
    }
}

/// `INSERT … VALUES ($1, …, $7), ($8, …)` for `rows` rows; with `anonymous`, `?` for
/// each parameter instead (SQLite looks a numbered parameter's name up by walking
/// the list of names, so binding hundreds of them costs quadratic time; `?` skips
/// that, and PostgreSQL wants `$n`).
fn insert_sql(rows: usize, anonymous: bool) -> String {
    let mut sql = String::from(
        "INSERT INTO actions (room_id, ply, kind, player, text, created_at, clocks) VALUES ",
    );
    for r in 0..rows {
        if r > 0 {
            sql.push_str(", ");
        }
        if anonymous {
            sql.push_str("(?, ?, ?, ?, ?, ?, ?)");
            continue;
        }
        let b = r * 7;
        let _ = write!(
            sql,
            "(${}, ${}, ${}, ${}, ${}, ${}, ${})",
            b + 1,
            b + 2,
            b + 3,
            b + 4,
            b + 5,
            b + 6,
            b + 7
        );
    }
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_number_every_row() {
        assert_eq!(
            insert_sql(2, false),
            "INSERT INTO actions (room_id, ply, kind, player, text, created_at, clocks) \
             VALUES ($1, $2, $3, $4, $5, $6, $7), ($8, $9, $10, $11, $12, $13, $14)"
        );
        assert!(
            insert_sql(2, true).ends_with("VALUES (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?)")
        );
    }
}
