//! Group commit of the actions of rooms owned under a lease (cluster mode).
//!
//! The same idea as `writer.rs`, for rows that carry a fence: the task takes every
//! pending row (up to [`MAX_BATCH`]) and writes them in one transaction, by statements
//! that insert each row only while `room_leases` still holds that row's node and epoch
//! (the lease rows share-locked until the commit, as for a single fenced row), and
//! return the rows they inserted. A row not returned was refused by its fence; every
//! other room of the batch is unaffected. A batch that fails as a whole is retried row
//! by row. As in `writer.rs`, a batch is cut into runs of a power of two rows, so that
//! each connection prepares statements of eight sizes, not one for each batch size.

use std::collections::HashSet;
use std::fmt::Write as _;

use sqlx::AnyPool;
use tokio::sync::{mpsc, oneshot};

use super::rows::bind_action;
use super::{unix_ms, Fence, StoredAction};

// The group commit's bounds: at 9 parameters a row, a batch stays well inside
// PostgreSQL's parameter limit too.
use super::writer::{ask, runs, MAX_BATCH, QUEUE};

/// One room's fenced row, waiting to be written.
struct Job {
    room: String,
    action: StoredAction,
    finished: Option<String>,
    fence: Fence,
    /// Ok(true) once committed, Ok(false) when the fence refused it.
    done: oneshot::Sender<sqlx::Result<bool>>,
}

/// The rooms' side of the fenced writer task (cheap to clone).
#[derive(Clone, Debug)]
pub struct FencedWriter {
    tx: mpsc::Sender<Job>,
}

impl FencedWriter {
    /// Starts the task on `pool` (PostgreSQL). It runs until every handle is dropped.
    pub fn spawn(pool: AnyPool) -> FencedWriter {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, rx));
        FencedWriter { tx }
    }

    /// Stores `action` of room `id` if `fence` still holds its lease (and marks the
    /// room finished with `finished`, in the same transaction): true once committed,
    /// false when the fence refused it (nothing written).
    pub async fn append(
        &self,
        id: &str,
        action: &StoredAction,
        finished: Option<&str>,
        fence: &Fence,
    ) -> sqlx::Result<bool> {
        ask(&self.tx, |done| Job {
            room: id.to_string(),
            action: action.clone(),
            finished: finished.map(str::to_string),
            fence: fence.clone(),
            done,
        })
        .await
    }
}

async fn run(pool: AnyPool, mut rx: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        // Lease rows are locked in room order, as the lease renewal locks them, so two
        // statements that lock several never wait for each other in a cycle.
        batch.sort_by(|a, b| a.room.cmp(&b.room));
        match write(&pool, &batch).await {
            Ok(landed) => {
                for (job, ok) in batch.drain(..).zip(landed) {
                    let _ = job.done.send(Ok(ok));
                }
            }
            Err(e) if batch.len() == 1 => {
                if let Some(job) = batch.pop() {
                    let _ = job.done.send(Err(e));
                }
            }
            Err(_) => {
                for job in batch.drain(..) {
                    let r = write(&pool, std::slice::from_ref(&job)).await;
                    let _ = job.done.send(r.map(|l| l[0]));
                }
            }
        }
    }
}

/// Writes `jobs` — in one statement when their number is a power of two and they end
/// no game, else in one transaction of a statement for each of their [`runs`], with
/// the `rooms` updates of the games they end; whether each row was inserted.
async fn write(pool: &AnyPool, jobs: &[Job]) -> sqlx::Result<Vec<bool>> {
    let now = unix_ms();
    let mut inserted: HashSet<(String, i64)> = HashSet::new();
    let landed = |inserted: &HashSet<(String, i64)>| {
        jobs.iter()
            .map(|j| inserted.contains(&(j.room.clone(), j.action.ply)))
            .collect::<Vec<bool>>()
    };
    if jobs.len().is_power_of_two() && jobs.iter().all(|j| j.finished.is_none()) {
        // One statement is atomic on its own: no transaction round trips needed.
        let sql = insert_sql(jobs.len());
        inserted.extend(bind_rows(&sql, jobs, now).fetch_all(pool).await?);
        return Ok(landed(&inserted));
    }
    let mut tx = pool.begin().await?;
    for run in runs(jobs) {
        let sql = insert_sql(run.len());
        inserted.extend(bind_rows(&sql, run, now).fetch_all(&mut *tx).await?);
    }
    let landed = landed(&inserted);
    for (j, ok) in jobs.iter().zip(&landed) {
        if let (Some(result), true) = (&j.finished, ok) {
            sqlx::query(
                "UPDATE rooms SET status = 'finished', result = $1, updated_at = $2 WHERE id = $3",
            )
            .bind(result.as_str())
            .bind(now)
            .bind(j.room.as_str())
            .execute(&mut *tx)
            .await?;
        }
    }
    tx.commit().await?;
    Ok(landed)
}

/// The fenced `INSERT` `sql` (of `run`'s size) with `run`'s rows and fences bound.
fn bind_rows<'q>(
    sql: &'q str,
    run: &'q [Job],
    now: i64,
) -> sqlx::query::QueryAs<'q, sqlx::Any, (String, i64), sqlx::any::AnyArguments<'q>> {
    let mut insert = sqlx::query_as::<_, (String, i64)>(sql);
    for j in run {
        insert = bind_action!(insert, j.room.as_str(), &j.action, now)
            .bind(j.fence.node.as_str())
            .bind(j.fence.epoch);
    }
    insert
}

/// The fenced insert of `rows` rows: each row of the `VALUES` list goes in only while
/// its room's lease holds its node and epoch; the rows inserted are returned.
fn insert_sql(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT INTO actions (room_id, ply, kind, player, text, created_at, clocks) \
         SELECT v.room_id, v.ply, v.kind, v.player, v.text, v.created_at, v.clocks FROM (VALUES ",
    );
    for r in 0..rows {
        if r > 0 {
            sql.push_str(", ");
        }
        let b = r * 9;
        sql.push('(');
        for k in 1..=9 {
            let _ = write!(sql, "{}${}", if k > 1 { ", " } else { "" }, b + k);
        }
        sql.push(')');
    }
    sql.push_str(
        ") AS v (room_id, ply, kind, player, text, created_at, clocks, node, epoch) \
         WHERE EXISTS (SELECT 1 FROM room_leases l WHERE l.room_id = v.room_id \
         AND l.node = v.node AND l.epoch = v.epoch FOR SHARE) \
         RETURNING room_id, ply",
    );
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_number_every_row() {
        let sql = insert_sql(2);
        assert!(
            sql.contains("(VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9), ($10, $11, $12, $13, $14, $15, $16, $17, $18)) AS v"),
            "{sql}"
        );
    }
}
