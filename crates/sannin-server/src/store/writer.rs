//! Group commit of the rooms' actions.
//!
//! Every room stores each accepted action before it tells anyone about it, so under
//! load thousands of rooms each wait on a one-row write. Sent one by one, every row
//! costs a trip through the pool (and, on SQLite, a hand-off to the driver's worker
//! thread and back) and a commit of its own. Here one task owns the action writes: a
//! room sends its row and awaits the acknowledgement; the task takes everything that
//! is pending (up to [`MAX_BATCH`] rows, never waiting for more to come), writes it in
//! one commit — a statement for each of its [`runs`], with the `rooms` updates when a
//! row ends a game — and acknowledges each room once that commit has returned.
//! Durability is unchanged: a room broadcasts nothing before its own row is committed.
//!
//! When a batch fails as a whole (the database is down, or one row is refused), each
//! of its rows is tried again on its own, so every room gets the answer its own row
//! deserves and one bad row never fails the others.
//!
//! On a SQLite file the task writes through a connection of its own, opened with
//! `rusqlite`, right where it runs — a thread of its own (`sannin-store`): a commit in
//! WAL mode with `synchronous=NORMAL` is a `write` to the log, tens of microseconds,
//! while sqlx would send each statement to its driver's thread and wait to be woken
//! with the answer, two more thread switches a batch. The thread is its own so that a
//! write the kernel holds back (a page of the log still being written to the disk, a
//! checkpoint, see `sqlite.rs`) holds back the actions waiting for it and nothing else. That connection never waits for a
//! lock: when another connection of the pool is writing (a seat, a chat line), the
//! batch goes through sqlx instead, which waits on its own thread.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sqlx::AnyPool;
use tokio::sync::{mpsc, oneshot};

use super::rows::bind_action;
use super::sqlite::{LogCopied, WAL_BACKSTOP_PAGES};
use super::{unix_ms, StoredAction};

/// The most rows written in one statement (7 parameters a row: well inside the
/// parameter limits of SQLite and PostgreSQL).
pub const MAX_BATCH: usize = 128;

/// How many writes may wait for the writer before senders wait to send.
pub(super) const QUEUE: usize = 8192;

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
    counts: Arc<Counts>,
}

/// What the writer has written so far (`/metrics`).
#[derive(Debug, Default)]
struct Counts {
    /// Batches committed.
    commits: AtomicU64,
    /// Action rows in them.
    rows: AtomicU64,
}

/// The writer task's own part.
struct Task {
    pool: AnyPool,
    counts: Arc<Counts>,
    /// `?` placeholders (SQLite) rather than `$n` (PostgreSQL).
    anonymous: bool,
    /// The SQLite file's own connection, written to in place.
    direct: Option<Direct>,
}

impl Writer {
    /// Starts the writer task on `pool` (of SQLite when `sqlite`); with `file`, the
    /// path of that SQLite database and the checkpointer's word that its log was
    /// copied, it writes there through a connection of its own. It runs until every
    /// `Writer` is dropped.
    pub fn spawn(pool: AnyPool, sqlite: bool, file: Option<(&str, LogCopied)>) -> Writer {
        let (tx, rx) = mpsc::channel(QUEUE);
        let direct = file.and_then(|(path, copied)| match Direct::open(path, copied) {
            Ok(d) => Some(d),
            Err(e) => {
                tracing::warn!(error = %e, path, "SQLite actions written through the pool");
                None
            }
        });
        let counts = Arc::new(Counts::default());
        let task = Task {
            pool,
            counts: counts.clone(),
            anonymous: sqlite,
            direct,
        };
        if task.direct.is_some() {
            // A thread of its own: a SQLite write is a system call that the kernel may
            // hold (a page of the log still being written back to the disk, the log
            // copied into the database when it is full), and on a worker thread it
            // would hold every connection and room waiting behind it too.
            let handle = tokio::runtime::Handle::current();
            let started = std::thread::Builder::new()
                .name("sannin-store".into())
                .spawn(move || handle.block_on(task.run(rx)));
            if let Err(e) = started {
                tracing::error!(error = %e, "cannot start the store's thread");
            }
        } else {
            tokio::spawn(task.run(rx));
        }
        Writer { tx, counts }
    }

    /// Batches committed and the action rows in them, so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.counts.commits.load(Ordering::Relaxed),
            self.counts.rows.load(Ordering::Relaxed),
        )
    }

    /// Stores `action` of room `id` (and marks the room finished with `finished`, in
    /// the same transaction); returns once it is committed.
    pub async fn append(
        &self,
        id: &str,
        action: &StoredAction,
        finished: Option<&str>,
    ) -> sqlx::Result<()> {
        ask(&self.tx, |done| Job {
            room: id.to_string(),
            action: action.clone(),
            finished: finished.map(str::to_string),
            done,
        })
        .await
    }
}

/// Queues for a writer task the job `make` builds around the sender of its answer,
/// and waits for the answer.
pub(super) async fn ask<J, T>(
    tx: &mpsc::Sender<J>,
    make: impl FnOnce(oneshot::Sender<sqlx::Result<T>>) -> J,
) -> sqlx::Result<T> {
    let (done, answer) = oneshot::channel();
    tx.send(make(done))
        .await
        .map_err(|_| sqlx::Error::PoolClosed)?;
    answer.await.unwrap_or(Err(sqlx::Error::PoolClosed))
}

impl Task {
    async fn run(mut self, mut rx: mpsc::Receiver<Job>) {
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
            // Rooms that are running already may have rows on the way: let them go first
            // (no wait for time to pass, just a turn at the back of the queue), so that
            // one commit takes them all. Only one turn: more turns gathered a few more
            // rows a commit, but kept the first rows waiting longer on a busy machine.
            // (On the store's own thread the turn is only a second look at the queue.)
            if batch.len() < MAX_BATCH {
                tokio::task::yield_now().await;
                while batch.len() < MAX_BATCH {
                    match rx.try_recv() {
                        Ok(job) => batch.push(job),
                        Err(_) => break,
                    }
                }
            }
            match self.write(&batch).await {
                Ok(()) => {
                    self.counts.commits.fetch_add(1, Ordering::Relaxed);
                    self.counts
                        .rows
                        .fetch_add(batch.len() as u64, Ordering::Relaxed);
                    for job in batch.drain(..) {
                        let _ = job.done.send(Ok(()));
                    }
                    if let Some(direct) = &self.direct {
                        direct.finish_log();
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

    /// Writes `jobs`: in one statement when their number is a power of two, else in one
    /// transaction of a statement for each of their [`runs`] — with the `rooms` updates
    /// of games they end.
    async fn write(&mut self, jobs: &[Job]) -> sqlx::Result<()> {
        let now = unix_ms();
        if let Some(direct) = &mut self.direct {
            match direct.write(jobs, now) {
                Ok(()) => return Ok(()),
                // Another connection holds the write lock: sqlx waits for it.
                Err(e) if is_busy(&e) => {}
                Err(e) => return Err(sqlx::Error::AnyDriverError(Box::new(e))),
            }
        }
        let pool = &self.pool;
        if is_one_statement(jobs) {
            // One statement is atomic on its own: no transaction round trips needed.
            let sql = insert_sql(jobs.len(), self.anonymous);
            bind_rows(&sql, jobs, now).execute(pool).await?;
            return Ok(());
        }
        let mut tx = pool.begin().await?;
        for run in runs(jobs) {
            let sql = insert_sql(run.len(), self.anonymous);
            bind_rows(&sql, run, now).execute(&mut *tx).await?;
        }
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

/// A SQLite file's connection of the writer's own (see the module's docs).
struct Direct {
    conn: rusqlite::Connection,
    /// The checkpointer's word that the log was all copied a moment ago.
    copied: LogCopied,
}

impl Direct {
    fn open(path: &str, copied: LogCopied) -> rusqlite::Result<Direct> {
        use rusqlite::OpenFlags;
        let conn = rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // Never wait for a lock here: a busy database is left to sqlx (above).
        conn.busy_timeout(std::time::Duration::ZERO)?;
        // As the pool's connections (store/mod.rs): the file is in WAL mode already.
        conn.execute_batch(&format!(
            "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; \
             PRAGMA wal_autocheckpoint={WAL_BACKSTOP_PAGES};"
        ))?;
        // The insert of each run's size, and the update of a finished room.
        conn.set_prepared_statement_cache_capacity(RUN_SIZES + 2);
        Ok(Direct { conn, copied })
    }

    /// When the checkpointer copied a long log a moment ago, copies what was committed
    /// since, so that the next commit starts the log over (`sqlite.rs`,
    /// `checkpoints`). Run after the rooms of the last commit have their answer.
    fn finish_log(&self) {
        if !self.copied.take() {
            return;
        }
        let started = std::time::Instant::now();
        let done = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            });
        match done {
            Ok((busy, log, copied)) => tracing::debug!(
                busy,
                log,
                copied,
                took_us = started.elapsed().as_micros() as u64,
                "the writer copied the end of the log"
            ),
            Err(e) => tracing::debug!(error = %e, "the writer's checkpoint failed"),
        }
    }

    /// As [`Task::write`], in place; an error leaves the database as it was.
    fn write(&mut self, jobs: &[Job], now: i64) -> rusqlite::Result<()> {
        if is_one_statement(jobs) {
            // One statement is atomic on its own: no BEGIN and COMMIT to run.
            return insert(&self.conn, jobs, now);
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            for run in runs(jobs) {
                insert(&tx, run, now)?;
            }
            for j in jobs {
                if let Some(result) = &j.finished {
                    tx.prepare_cached(
                        "UPDATE rooms SET status = 'finished', result = ?1, updated_at = ?2 \
                         WHERE id = ?3",
                    )?
                    .execute((result.as_str(), now, j.room.as_str()))?;
                }
            }
        }
        tx.commit()
    }
}

/// The rows of `jobs` in one `INSERT` on `conn`.
fn insert(conn: &rusqlite::Connection, jobs: &[Job], now: i64) -> rusqlite::Result<()> {
    let mut insert = conn.prepare_cached(&insert_sql(jobs.len(), true))?;
    let mut i = 1;
    for j in jobs {
        let a = &j.action;
        insert.raw_bind_parameter(i, j.room.as_str())?;
        insert.raw_bind_parameter(i + 1, a.ply)?;
        insert.raw_bind_parameter(i + 2, a.kind.as_str())?;
        insert.raw_bind_parameter(i + 3, a.player.map(|p| p.lower()))?;
        insert.raw_bind_parameter(i + 4, a.text.as_str())?;
        insert.raw_bind_parameter(i + 5, now)?;
        insert.raw_bind_parameter(i + 6, a.clocks.as_deref())?;
        i += 7;
    }
    insert.raw_execute()?;
    Ok(())
}

/// How many sizes [`runs`] cuts batches into: the powers of two up to [`MAX_BATCH`].
const RUN_SIZES: usize = MAX_BATCH.ilog2() as usize + 1;

/// `jobs` cut into runs of a power of two rows each, the largest first (100 rows: 64,
/// 32 and 4), each written by one `INSERT` of a transaction.
///
/// A statement is prepared once for each size and kept, so a batch of any size is
/// written by statements prepared already, of [`RUN_SIZES`] sizes in all. With one
/// statement a batch size, a busy server's writer prepared and kept 128 statements of
/// up to 896 parameters, one for each new size it met, while the rooms waited for
/// their rows (preparing all 128 takes SQLite about 115 ms on a slow day of a small
/// machine).
pub(super) fn runs<T>(jobs: &[T]) -> impl Iterator<Item = &[T]> {
    let mut rest = jobs;
    std::iter::from_fn(move || {
        let len = rest.len();
        if len == 0 {
            return None;
        }
        let (run, later) = rest.split_at(1 << len.ilog2());
        rest = later;
        Some(run)
    })
}

/// Whether `jobs` are written by one statement alone: one run, no game ended.
fn is_one_statement(jobs: &[Job]) -> bool {
    jobs.len().is_power_of_two() && jobs.iter().all(|j| j.finished.is_none())
}

/// The `INSERT` `sql` (of `run`'s size) with `run`'s rows bound, for sqlx.
fn bind_rows<'q>(
    sql: &'q str,
    run: &'q [Job],
    now: i64,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    let mut insert = sqlx::query(sql);
    for j in run {
        insert = bind_action!(insert, j.room.as_str(), &j.action, now);
    }
    insert
}

/// Whether SQLite refused for a lock another connection holds.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
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
    use crate::store::sqlite::log_restarts;

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

    /// A commit finds the log partly copied (a checkpoint ran while a commit landed):
    /// it cannot start the log over. The writer's own checkpoint, asked for by the
    /// checkpointer's word, copies the rest, and its next commit starts it over.
    #[tokio::test]
    async fn the_writers_checkpoint_lets_its_next_commit_start_the_log_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let wal = dir.path().join("w.db-wal");
        let store = crate::store::Store::connect(&format!("sqlite://{}", path.display()), 1)
            .await
            .unwrap();
        store.create_room("r", None, "{}", &[]).await.unwrap();
        store.close().await;
        let copied = LogCopied::default();
        let mut direct = Direct::open(path.to_str().unwrap(), copied.clone()).unwrap();
        let mut ply = 0;
        let mut commit = |direct: &mut Direct| {
            ply += 1;
            let job = Job {
                room: "r".into(),
                action: StoredAction::first_moves(ply, "P3c-4c"),
                finished: None,
                done: oneshot::channel().0,
            };
            direct.write(&[job], unix_ms()).unwrap();
        };
        let other = rusqlite::Connection::open(&path).unwrap();
        other
            .execute_batch(
                "PRAGMA wal_autocheckpoint=0; CREATE TABLE scratch (b BLOB); \
                 INSERT INTO scratch VALUES (zeroblob(1048576));",
            )
            .unwrap();
        // A reader's snapshot keeps the checkpoint from copying the commit after it.
        let reader = rusqlite::Connection::open(&path).unwrap();
        reader
            .execute_batch("BEGIN; SELECT count(*) FROM scratch;")
            .unwrap();
        commit(&mut direct);
        other
            .execute_batch("PRAGMA wal_checkpoint(PASSIVE);")
            .unwrap();
        reader.execute_batch("COMMIT;").unwrap();
        let before = log_restarts(&wal);
        commit(&mut direct);
        direct.finish_log();
        commit(&mut direct);
        assert_eq!(
            log_restarts(&wal),
            before,
            "without the word, no checkpoint"
        );
        copied.raise();
        direct.finish_log();
        assert!(!copied.take(), "the word was taken");
        commit(&mut direct);
        assert_eq!(log_restarts(&wal), before + 1, "the log started over");
        let rows: i64 = other
            .query_row("SELECT count(*) FROM actions", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 4);
    }

    #[test]
    fn batches_are_cut_into_runs_of_eight_sizes_largest_first() {
        let jobs: Vec<Job> = (0..MAX_BATCH)
            .map(|i| Job {
                room: format!("r{i}"),
                action: StoredAction::first_moves(1, "P3c-4c"),
                finished: None,
                done: oneshot::channel().0,
            })
            .collect();
        let mut sizes = std::collections::BTreeSet::new();
        for n in 1..=MAX_BATCH {
            let runs: Vec<&[Job]> = runs(&jobs[..n]).collect();
            let lens: Vec<usize> = runs.iter().map(|r| r.len()).collect();
            assert_eq!(lens.iter().sum::<usize>(), n, "every row once: {lens:?}");
            assert!(lens.iter().all(|l| l.is_power_of_two()), "{lens:?}");
            assert!(
                lens.windows(2).all(|w| w[0] > w[1]),
                "largest first: {lens:?}"
            );
            // In order: the runs put together are the batch.
            let rooms: Vec<&str> = runs
                .iter()
                .flat_map(|r| r.iter().map(|j| j.room.as_str()))
                .collect();
            let batch: Vec<&str> = jobs[..n].iter().map(|j| j.room.as_str()).collect();
            assert_eq!(rooms, batch);
            sizes.extend(lens);
        }
        assert_eq!(
            runs(&jobs[..100]).map(<[Job]>::len).collect::<Vec<_>>(),
            [64, 32, 4]
        );
        assert_eq!(sizes.len(), RUN_SIZES);
    }
}
