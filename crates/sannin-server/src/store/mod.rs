//! Durable storage of rooms, seats and actions, on SQLite or PostgreSQL.
//!
//! The schema (`migrations/` at the workspace root) is plain portable SQL, so one set of
//! migrations and one set of queries serve both databases through sqlx's `Any` driver.
//! A room is rebuilt by replaying its stored actions into a fresh `Game`.

use std::time::{SystemTime, UNIX_EPOCH};

pub use sqlite::is_sqlite;
use sqlite::{checkpoints, prepare_sqlite_url, sqlite_file, LogCopied};

use anyhow::Context as _;
use sqlx::any::{AnyArguments, AnyConnectOptions, AnyPoolOptions};
use sqlx::query::Query;
use sqlx::{Any, AnyPool, ConnectOptions, Connection, Executor, Transaction};
use tokio_util::sync::CancellationToken;

pub mod column;
mod fenced;
pub mod migrations;
mod reads;
mod rows;
mod sqlite;
mod writer;
mod writes;

pub use reads::{FinishedRoom, LoadError};
pub use rows::{
    ActionKind, ChatAuthor, StoredAction, StoredChat, StoredRoom, StoredSeat, Waiting,
    BOT_TOKEN_HASH,
};

/// Handle to the database (cheap to clone).
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    /// The group-commit task that writes the rooms' actions.
    writer: writer::Writer,
    /// The group-commit task of the actions of leased rooms (PostgreSQL only).
    fenced_writer: Option<fenced::FencedWriter>,
    /// Cluster mode: the lease every write of this handle is fenced by
    /// ([`Store::fenced`]); None for a single node.
    lease: Option<std::sync::Arc<HeldLease>>,
}

/// The lease a fenced [`Store`] writes under.
#[derive(Debug)]
struct HeldLease {
    /// The leased room.
    room: String,
    /// The node and epoch that must still hold it.
    fence: Fence,
    /// Cancelled when a write finds the lease gone: the room stops.
    lost: CancellationToken,
}

/// The database's own clock in unix ms, as a PostgreSQL expression: what leases,
/// heartbeats and site-wide budgets are timed by, so that nodes whose clocks differ
/// agree.
pub const PG_NOW_MS: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/// Applies the migrations the database lacks, and logs which: each one applied now,
/// by version and name, then the version the schema is at (a self-hoster sees what an
/// upgrade changed, and which backup matches which binary).
async fn migrate(pool: &AnyPool) -> anyhow::Result<()> {
    // Before the first start there is no table of applied migrations: none applied.
    let before: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
        .fetch_all(pool)
        .await
        .unwrap_or_default();
    let migrator = migrations::migrator().await;
    migrator
        .run(pool)
        .await
        .context("running database migrations")?;
    let (mut latest, mut migrations, mut newly_applied) = (0, 0, 0);
    for m in migrator
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
    {
        if !before.contains(&m.version) {
            tracing::info!(version = m.version, name = %m.description, "database migration applied");
            newly_applied += 1;
        }
        latest = m.version;
        migrations += 1;
    }
    tracing::info!(
        version = latest,
        migrations,
        newly_applied,
        "database schema up to date"
    );
    Ok(())
}

/// Wall-clock unix time in milliseconds: what is stored (`created_at`, `updated_at`,
/// `at_ms`) and shown. Timers read the server's monotonic time source instead
/// (`crate::time`).
pub fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Store {
    /// Connects (creating a SQLite file if needed) and runs the migrations.
    ///
    /// # Errors
    /// Unreachable database, bad URL, failed migration.
    pub async fn connect(url: &str, pool_size: u32) -> anyhow::Result<Store> {
        sqlx::any::install_default_drivers();
        let sqlite = is_sqlite(url);
        let url = if sqlite {
            prepare_sqlite_url(url)?
        } else {
            url.to_string()
        };
        let options: AnyConnectOptions = url
            .parse()
            .with_context(|| "unrecognised database URL (want sqlite:… or postgres://…)")?;
        let options = options.disable_statement_logging();
        if sqlite {
            // WAL is a property of the file: set it once, on a lone connection, so that
            // pool connections never race for the exclusive lock it needs.
            let mut c = sqlx::AnyConnection::connect_with(&options)
                .await
                .context("opening the SQLite database")?;
            c.execute("PRAGMA journal_mode=WAL").await?;
            c.close().await?;
        }
        let pool = AnyPoolOptions::new()
            // SQLite has a single writer: one connection queues writes fairly instead
            // of letting them spin on the file lock.
            .max_connections(if sqlite { 1 } else { pool_size })
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if sqlite {
                        // With WAL, NORMAL survives a killed process (even kill -9);
                        // only an OS crash may lose the last commits.
                        conn.execute("PRAGMA synchronous=NORMAL").await?;
                        conn.execute("PRAGMA foreign_keys=ON").await?;
                        // Checkpoints are the checkpointer's (below); this is only the
                        // backstop should it fall behind, and the log file is cut back
                        // by the checkpointer alone (store/sqlite.rs).
                        conn.execute(&*format!(
                            "PRAGMA wal_autocheckpoint={}",
                            sqlite::WAL_BACKSTOP_PAGES
                        ))
                        .await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options.clone())
            .await
            .context("connecting to the database")?;
        migrate(&pool).await?;
        let copied = LogCopied::default();
        let file = sqlite.then(|| sqlite_file(&url)).flatten();
        let writer = writer::Writer::spawn(pool.clone(), sqlite, file.map(|f| (f, copied.clone())));
        if sqlite {
            let c = sqlx::AnyConnection::connect_with(&options)
                .await
                .context("opening the SQLite database for checkpoints")?;
            let wal = file.map(|f| std::path::PathBuf::from(format!("{f}-wal")));
            tokio::spawn(checkpoints(c, pool.clone(), wal, copied));
        }
        let fenced_writer = (!sqlite).then(|| fenced::FencedWriter::spawn(pool.clone()));
        Ok(Store {
            pool,
            writer,
            fenced_writer,
            lease: None,
        })
    }

    /// This store for a room owned under a lease (cluster mode): every write it makes
    /// (seats, chat, status, settings, rematch votes, a rematch's new room, deletion)
    /// first checks, in the same transaction, that `room`'s lease still holds
    /// `fence`, and share-locks the lease row until the commit, so that a takeover
    /// waits for the write and a write after a takeover finds the new epoch. A refused
    /// write is [`is_fenced`], changes nothing, and cancels `lost`. Actions carry their
    /// fence in their own statement ([`Store::append_action`]).
    pub fn fenced(&self, room: &str, fence: Fence, lost: CancellationToken) -> Store {
        Store {
            pool: self.pool.clone(),
            writer: self.writer.clone(),
            fenced_writer: self.fenced_writer.clone(),
            lease: Some(std::sync::Arc::new(HeldLease {
                room: room.to_string(),
                fence,
                lost,
            })),
        }
    }

    /// A transaction for a write; on a fenced store it starts with the lease check.
    async fn begin(&self) -> sqlx::Result<Transaction<'static, Any>> {
        let mut tx = self.pool.begin().await?;
        if let Some(l) = &self.lease {
            let held: Option<i64> = sqlx::query_scalar(
                "SELECT epoch FROM room_leases \
                 WHERE room_id = $1 AND node = $2 AND epoch = $3 FOR SHARE",
            )
            .bind(&l.room)
            .bind(&l.fence.node)
            .bind(l.fence.epoch)
            .fetch_optional(&mut *tx)
            .await?;
            if held.is_none() {
                return Err(self.refused());
            }
        }
        Ok(tx)
    }

    /// The error of a write the lease no longer allows; the room is told to stop.
    fn refused(&self) -> sqlx::Error {
        if let Some(l) = &self.lease {
            l.lost.cancel();
        }
        sqlx::Error::Protocol(FENCED.into())
    }

    /// Runs one write statement: straight on the pool, or on a fenced store in a
    /// transaction after the lease check.
    async fn write<'q>(&self, q: Query<'q, Any, AnyArguments<'q>>) -> sqlx::Result<()> {
        if self.lease.is_none() {
            q.execute(&self.pool).await?;
            return Ok(());
        }
        let mut tx = self.begin().await?;
        q.execute(&mut *tx).await?;
        tx.commit().await
    }

    /// The pool, for the queries of other modules (accounts, the cluster's leases).
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Batches of action rows committed by the group commit, and the rows in them.
    pub fn action_commits(&self) -> (u64, u64) {
        self.writer.counts()
    }

    /// Closes the pool, waiting for queries in flight.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The write condition of a room owned through a lease (cluster mode): the node and
/// the lease epoch it holds. A node that lost the lease (paused past its expiry, cut
/// off) holds an old epoch, and its writes are refused by the database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    /// The owning node's id.
    pub node: String,
    /// The lease epoch it acquired.
    pub epoch: i64,
}

const FENCED: &str = "the room's lease is held by another node: write refused";

/// Whether a write failed because the room's lease moved to another node.
pub fn is_fenced(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Protocol(m) if m == FENCED)
}

#[cfg(test)]
mod tests;
