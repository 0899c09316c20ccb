//! Durable storage of rooms, seats and actions, on SQLite or PostgreSQL.
//!
//! The schema (`migrations/` at the workspace root) is plain portable SQL, so one set of
//! migrations and one set of queries serve both databases through sqlx's `Any` driver.
//! A room is rebuilt by replaying its stored actions into a fresh `Game`.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use sannin_bot::Level;
use sannin_protocol::RoomStatus;
use sannin_rules::Player;
use sqlx::any::{AnyArguments, AnyConnectOptions, AnyPoolOptions};
use sqlx::query::Query;
use sqlx::{Any, AnyPool, ConnectOptions, Connection, Executor, Transaction};
use tokio_util::sync::CancellationToken;

/// Migrations embedded at compile time.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// An `actions` row: ply, kind, player, text, clocks.
type ActionRow = (i64, String, Option<String>, String, Option<String>);

pub mod column;
mod fenced;
mod rows;
mod writer;

use column::{level_column, level_from_column, read_opt, Named as _, Unreadable};
pub use rows::{ActionKind, StoredAction, StoredChat, StoredRoom, StoredSeat, BOT_TOKEN_HASH};

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

/// A `chat_messages` row.
type ChatRow = (i64, String, Option<String>, String, String, i64);

/// The database's own clock in unix ms, as a PostgreSQL expression: what leases,
/// heartbeats and site-wide budgets are timed by, so that nodes whose clocks differ
/// agree.
pub const PG_NOW_MS: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/// Unix time in milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Whether `url` names a SQLite database.
pub fn is_sqlite(url: &str) -> bool {
    url.starts_with("sqlite:")
}

/// The path and the query (after `?`) of a SQLite URL.
fn sqlite_parts(url: &str) -> (&str, Option<&str>) {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or("");
    match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    }
}

/// The file a SQLite URL names, if it names one that may be written.
fn sqlite_file(url: &str) -> Option<&str> {
    let (path, query) = sqlite_parts(url);
    let special = query.is_some_and(|q| {
        q.split('&')
            .any(|kv| matches!(kv, "mode=memory" | "mode=ro" | "immutable=1"))
    });
    (!path.is_empty() && path != ":memory:" && !special).then_some(path)
}

/// Prepares a SQLite URL: creates the file's directory and asks for the file to be
/// created (`mode=rwc`) unless the URL says otherwise.
fn prepare_sqlite_url(url: &str) -> anyhow::Result<String> {
    let (path, query) = sqlite_parts(url);
    if path.is_empty() || path == ":memory:" {
        return Ok(url.to_string());
    }
    if let Some(dir) = std::path::Path::new(path).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating database directory {}", dir.display()))?;
        }
    }
    Ok(match query {
        Some(q) if q.contains("mode=") => url.to_string(),
        Some(_) => format!("{url}&mode=rwc"),
        None => format!("{url}?mode=rwc"),
    })
}

/// How often the checkpointer copies the SQLite write-ahead log into the database.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Copies the write-ahead log into the database file every [`CHECKPOINT_EVERY`], on a
/// connection of its own, until `pool` closes. Left to SQLite, the commit that fills
/// the log past its mark (1,000 pages) runs the checkpoint itself, and every room whose
/// row is in that commit waits for it; a passive checkpoint here never blocks the
/// writer, and a second's worth of changes to a page is copied once.
async fn checkpoints(mut c: sqlx::AnyConnection, pool: AnyPool) {
    let mut every = tokio::time::interval(CHECKPOINT_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    every.tick().await;
    loop {
        every.tick().await;
        if pool.is_closed() {
            break;
        }
        if let Err(e) = c.execute("PRAGMA wal_checkpoint(PASSIVE)").await {
            tracing::warn!(error = %e, "SQLite checkpoint failed");
        }
    }
    let _ = c.close().await;
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
                        // backstop should it fall behind.
                        conn.execute("PRAGMA wal_autocheckpoint=16384").await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options.clone())
            .await
            .context("connecting to the database")?;
        MIGRATOR
            .run(&pool)
            .await
            .context("running database migrations")?;
        let writer = writer::Writer::spawn(
            pool.clone(),
            sqlite,
            sqlite.then(|| sqlite_file(&url)).flatten(),
        );
        if sqlite {
            let c = sqlx::AnyConnection::connect_with(&options)
                .await
                .context("opening the SQLite database for checkpoints")?;
            tokio::spawn(checkpoints(c, pool.clone()));
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

    /// Inserts a new waiting room with its settings JSON and any seats already taken
    /// (a rematch), atomically.
    pub async fn create_room(
        &self,
        id: &str,
        start_position: Option<&str>,
        settings: &str,
        seats: &[StoredSeat],
    ) -> sqlx::Result<()> {
        let now = now_ms();
        let mut tx = self.begin().await?;
        sqlx::query(
            "INSERT INTO rooms (id, status, start_position, result, created_at, updated_at, settings) \
             VALUES ($1, 'waiting', $2, NULL, $3, $3, $4)",
        )
        .bind(id)
        .bind(start_position)
        .bind(now)
        .bind(settings)
        .execute(&mut *tx)
        .await?;
        for s in seats {
            insert_seat(&mut tx, id, s).await?;
        }
        tx.commit().await
    }

    /// Replaces a room's settings JSON.
    pub async fn set_settings(&self, id: &str, settings: &str) -> sqlx::Result<()> {
        self.write(
            sqlx::query("UPDATE rooms SET settings = $1, updated_at = $2 WHERE id = $3")
                .bind(settings)
                .bind(now_ms())
                .bind(id),
        )
        .await
    }

    /// Sets the status (and the result JSON when finished).
    pub async fn set_status(
        &self,
        id: &str,
        status: RoomStatus,
        result: Option<&str>,
    ) -> sqlx::Result<()> {
        self.write(
            sqlx::query("UPDATE rooms SET status = $1, result = $2, updated_at = $3 WHERE id = $4")
                .bind(status.to_column())
                .bind(result)
                .bind(now_ms())
                .bind(id),
        )
        .await
    }

    /// Stores a taken seat (replacing any earlier holder of it).
    pub async fn put_seat(&self, id: &str, seat: &StoredSeat) -> sqlx::Result<()> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM seats WHERE room_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat.seat.lower())
            .execute(&mut *tx)
            .await?;
        insert_seat(&mut tx, id, seat).await?;
        tx.commit().await
    }

    /// Sets (a bot took over) or clears (its player took it back) the bot of a seat.
    pub async fn set_seat_bot(
        &self,
        id: &str,
        seat: Player,
        bot: Option<Level>,
    ) -> sqlx::Result<()> {
        self.write(
            sqlx::query("UPDATE seats SET bot = $1 WHERE room_id = $2 AND seat = $3")
                .bind(bot.map(level_column))
                .bind(id)
                .bind(seat.lower()),
        )
        .await
    }

    /// Frees a seat.
    pub async fn delete_seat(&self, id: &str, seat: Player) -> sqlx::Result<()> {
        self.write(
            sqlx::query("DELETE FROM seats WHERE room_id = $1 AND seat = $2")
                .bind(id)
                .bind(seat.lower()),
        )
        .await
    }

    /// Frees a seat before the start and, when `reset_start`, sets the start position
    /// back to the standard one (an agreed alliance lost an ally), atomically.
    pub async fn free_seat(&self, id: &str, seat: Player, reset_start: bool) -> sqlx::Result<()> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM seats WHERE room_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat.lower())
            .execute(&mut *tx)
            .await?;
        if reset_start {
            sqlx::query("UPDATE rooms SET start_position = NULL, updated_at = $1 WHERE id = $2")
                .bind(now_ms())
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await
    }

    /// Stores a chat message.
    pub async fn append_chat(&self, id: &str, m: &StoredChat) -> sqlx::Result<()> {
        self.write(
            sqlx::query(
                "INSERT INTO chat_messages (room_id, id, channel, seat, name, text, at_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(id)
            .bind(m.id)
            .bind(m.channel.to_column())
            .bind(m.seat.map(Player::to_column))
            .bind(&m.name)
            .bind(&m.text)
            .bind(m.at_ms),
        )
        .await
    }

    /// Sets whether `seat` (every seat when None) asked for a rematch.
    pub async fn set_rematch(
        &self,
        id: &str,
        seat: Option<Player>,
        asked: bool,
    ) -> sqlx::Result<()> {
        let q = match seat {
            Some(p) => {
                sqlx::query("UPDATE seats SET rematch = $1 WHERE room_id = $2 AND seat = $3")
                    .bind(i64::from(asked))
                    .bind(id)
                    .bind(p.lower())
            }
            None => sqlx::query("UPDATE seats SET rematch = $1 WHERE room_id = $2")
                .bind(i64::from(asked))
                .bind(id),
        };
        self.write(q).await
    }

    /// Deletes a room with its seats, actions and chat.
    pub async fn delete_room(&self, id: &str) -> sqlx::Result<()> {
        let mut tx = self.begin().await?;
        for table in ["chat_messages", "actions", "seats"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE room_id = $1"))
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("DELETE FROM rooms WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Voluntary alliance: all seats rewritten and the start position set, atomically.
    pub async fn reseat(
        &self,
        id: &str,
        seats: &[StoredSeat],
        start_position: &str,
    ) -> sqlx::Result<()> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM seats WHERE room_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        for s in seats {
            insert_seat(&mut tx, id, s).await?;
        }
        sqlx::query("UPDATE rooms SET start_position = $1, updated_at = $2 WHERE id = $3")
            .bind(start_position)
            .bind(now_ms())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Sets (or clears) the start position of a room that has not started.
    pub async fn set_start_position(
        &self,
        id: &str,
        start_position: Option<&str>,
    ) -> sqlx::Result<()> {
        self.write(
            sqlx::query("UPDATE rooms SET start_position = $1, updated_at = $2 WHERE id = $3")
                .bind(start_position)
                .bind(now_ms())
                .bind(id),
        )
        .await
    }

    /// Appends an accepted action; when it ended the game, also marks the room finished
    /// with `result`, in the same transaction. Without a `fence` it goes through the
    /// group-commit writer (`writer`) and returns once the row is committed. With a
    /// `fence` (cluster mode), through the fenced group-commit writer (`fenced`): the
    /// row goes in only while the room's lease still holds that node and epoch,
    /// checked in the same statement; otherwise the error is [`is_fenced`] and nothing
    /// is written. A fenced store
    /// ([`Store::fenced`]) fences its actions without being given a `fence`.
    pub async fn append_action(
        &self,
        id: &str,
        action: &StoredAction,
        finished_result: Option<&str>,
        fence: Option<&Fence>,
    ) -> sqlx::Result<()> {
        let fence = fence.or_else(|| self.lease.as_ref().map(|l| &l.fence));
        let Some(f) = fence else {
            return self.writer.append(id, action, finished_result).await;
        };
        // With a fence (cluster mode), the rows of every leased room go through their
        // own group-commit task, each row checked against its lease (`fenced.rs`).
        let writer = self
            .fenced_writer
            .as_ref()
            .ok_or_else(|| sqlx::Error::Configuration("fenced writes need PostgreSQL".into()))?;
        match writer.append(id, action, finished_result, f).await? {
            true => Ok(()),
            false => Err(self.refused()),
        }
    }

    /// Ids of every room not finished, oldest first.
    pub async fn unfinished_room_ids(&self) -> sqlx::Result<Vec<String>> {
        sqlx::query_scalar(
            "SELECT id FROM rooms WHERE status <> 'finished' ORDER BY created_at, id",
        )
        .fetch_all(&self.pool)
        .await
    }

    /// Number of rooms not finished.
    pub async fn count_unfinished(&self) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM rooms WHERE status <> 'finished'")
            .fetch_one(&self.pool)
            .await
    }

    /// Loads one room with its seats, actions and chat. Every column is read back by
    /// the conversion that wrote it (`column`).
    ///
    /// # Errors
    /// [`LoadError::Db`] when the database fails; [`LoadError::Unreadable`] when a
    /// stored value of the room does not read back.
    pub async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, LoadError> {
        type RoomRow = (
            String,
            String,
            Option<String>,
            Option<String>,
            i64,
            i64,
            Option<String>,
        );
        let row: Option<RoomRow> = sqlx::query_as(
            "SELECT id, status, start_position, settings, created_at, updated_at, broken \
             FROM rooms WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((id, status, start_position, settings, created_at_ms, updated_at_ms, broken)) =
            row
        else {
            return Ok(None);
        };
        let seat_rows: Vec<SeatRow> = sqlx::query_as(
            "SELECT seat, token_hash, name, bot, rematch FROM seats WHERE room_id = $1 ORDER BY seat",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let action_rows: Vec<ActionRow> = sqlx::query_as(
            "SELECT ply, kind, player, text, clocks FROM actions WHERE room_id = $1 ORDER BY ply",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let chat_rows: Vec<ChatRow> = sqlx::query_as(
            "SELECT id, channel, seat, name, text, at_ms FROM chat_messages \
             WHERE room_id = $1 ORDER BY id",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let unreadable = |e: Unreadable| LoadError::Unreadable {
            room: id.clone(),
            error: e,
        };
        let status = RoomStatus::from_column(&status).map_err(unreadable)?;
        let mut seats = Vec::with_capacity(seat_rows.len());
        let mut rematch = Vec::new();
        for row in seat_rows {
            let (seat, asked) = read_seat(row).map_err(unreadable)?;
            if asked {
                rematch.push(seat.seat);
            }
            seats.push(seat);
        }
        let actions = action_rows
            .into_iter()
            .map(read_action)
            .collect::<Result<Vec<_>, _>>()
            .map_err(unreadable)?;
        let chat = chat_rows
            .into_iter()
            .map(read_chat)
            .collect::<Result<Vec<_>, _>>()
            .map_err(unreadable)?;
        Ok(Some(StoredRoom {
            id,
            status,
            start_position,
            settings,
            seats,
            actions,
            rematch,
            chat,
            created_at_ms,
            updated_at_ms,
            marked_broken: broken.is_some(),
        }))
    }

    /// Marks a room that cannot be restored (`reason`), so that the lobby's lists
    /// and the cluster's sweep pass it over; `None` clears the mark (it was read
    /// again). A room is marked whatever its lease: the mark changes no play.
    pub async fn mark_broken(&self, id: &str, reason: Option<&str>) -> sqlx::Result<()> {
        sqlx::query("UPDATE rooms SET broken = $1 WHERE id = $2")
            .bind(reason)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Why a stored room could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The database failed (unreachable, a query error): nothing is known of the room.
    #[error(transparent)]
    Db(#[from] sqlx::Error),
    /// A value stored for the room does not read back.
    #[error("room {room}: {error}")]
    Unreadable {
        /// The room's id.
        room: String,
        /// What does not read.
        error: Unreadable,
    },
}

/// A `seats` row: seat, token hash, name, bot level, rematch asked.
type SeatRow = (String, String, String, Option<i64>, i64);

/// A seat as stored, and whether its player asked for a rematch.
fn read_seat(
    (seat, token_hash, name, bot, asked): SeatRow,
) -> Result<(StoredSeat, bool), Unreadable> {
    Ok((
        StoredSeat {
            seat: Player::from_column(&seat)?,
            token_hash,
            name,
            bot: bot.map(level_from_column).transpose()?,
        },
        asked != 0,
    ))
}

fn read_action((ply, kind, player, text, clocks): ActionRow) -> Result<StoredAction, Unreadable> {
    Ok(StoredAction {
        ply,
        kind: ActionKind::from_column(&kind)?,
        player: read_opt(player.as_deref())?,
        text,
        clocks,
    })
}

fn read_chat((id, channel, seat, name, text, at_ms): ChatRow) -> Result<StoredChat, Unreadable> {
    Ok(StoredChat {
        id,
        channel: sannin_protocol::Channel::from_column(&channel)?,
        seat: read_opt(seat.as_deref())?,
        name,
        text,
        at_ms,
    })
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

/// A finished room as the lobby lists it (`GET /api/rooms?status=finished`).
#[derive(Clone, Debug)]
pub struct FinishedRoom {
    /// Room id (uuid).
    pub id: String,
    /// The outcome JSON.
    pub result: Option<String>,
    /// Unix ms.
    pub created_at: i64,
    /// Unix ms of the last change (the end of the game).
    pub updated_at: i64,
    /// Moves played (resignations and other endings not counted).
    pub plies: i64,
    /// Seats: seat, name, bot level; an error when a seat row does not read back.
    pub seats: Result<Vec<(Player, String, Option<Level>)>, Unreadable>,
    /// The start position; `None` for the standard start.
    pub start_position: Option<String>,
    /// The room's settings (JSON), as stored.
    pub settings: Option<String>,
}

impl Store {
    /// Public finished rooms, the most recently ended first, `limit` of them after the
    /// cursor `(updated_at, id)` of the last room of the page before. Rooms marked
    /// broken ([`Store::mark_broken`]) are left out.
    pub async fn finished_rooms(
        &self,
        limit: usize,
        after: Option<(i64, &str)>,
    ) -> anyhow::Result<Vec<FinishedRoom>> {
        let (at, after_id) = after.unwrap_or((i64::MAX, ""));
        type Row = (
            String,
            Option<String>,
            i64,
            i64,
            i64,
            Option<String>,
            Option<String>,
        );
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT r.id, r.result, r.created_at, r.updated_at, \
                    (SELECT COUNT(*) FROM actions a WHERE a.room_id = r.id AND a.kind = 'act'), \
                    r.start_position, r.settings \
             FROM rooms r \
             WHERE r.status = 'finished' AND r.broken IS NULL \
               AND (r.settings IS NULL OR r.settings NOT LIKE '%\"private\":true%') \
               AND (r.updated_at < $1 OR (r.updated_at = $1 AND r.id < $2)) \
             ORDER BY r.updated_at DESC, r.id DESC LIMIT $3",
        )
        .bind(at)
        .bind(after_id)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, result, created_at, updated_at, plies, start_position, settings) in rows {
            let seat_rows: Vec<(String, String, Option<i64>)> =
                sqlx::query_as("SELECT seat, name, bot FROM seats WHERE room_id = $1")
                    .bind(&id)
                    .fetch_all(&self.pool)
                    .await?;
            let seats = seat_rows
                .into_iter()
                .map(|(seat, name, bot)| {
                    Ok((
                        Player::from_column(&seat)?,
                        name,
                        bot.map(level_from_column).transpose()?,
                    ))
                })
                .collect();
            out.push(FinishedRoom {
                id,
                result,
                created_at,
                updated_at,
                plies,
                seats,
                start_position,
                settings,
            });
        }
        Ok(out)
    }
}

async fn insert_seat(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    seat: &StoredSeat,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO seats (room_id, seat, token_hash, name, created_at, bot) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(id)
    .bind(seat.seat.lower())
    .bind(&seat.token_hash)
    .bind(&seat.name)
    .bind(now_ms())
    .bind(seat.bot.map(level_column))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests;
