//! Durable storage of rooms, seats and actions, on SQLite or PostgreSQL.
//!
//! The schema (`migrations/` at the workspace root) is plain portable SQL, so one set of
//! migrations and one set of queries serve both databases through sqlx's `Any` driver.
//! A room is rebuilt by replaying its stored actions into a fresh `Game`.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use sannin_rules::Player;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, ConnectOptions, Connection, Executor};

/// Migrations embedded at compile time.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// An `actions` row: ply, kind, player, text, clocks.
type ActionRow = (i64, String, Option<String>, String, Option<String>);

mod writer;

/// Handle to the database (cheap to clone).
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    /// The group-commit task that writes the rooms' actions.
    writer: writer::Writer,
}

/// What an action row records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// A move, drop or illumination in notation.
    Act,
    /// `Game::resign`.
    Resign,
    /// `Game::forfeit` (abandonment).
    Forfeit,
    /// `Game::agree_draw`.
    Draw,
}

impl ActionKind {
    fn as_str(self) -> &'static str {
        match self {
            ActionKind::Act => "act",
            ActionKind::Resign => "resign",
            ActionKind::Forfeit => "forfeit",
            ActionKind::Draw => "draw",
        }
    }

    fn parse(s: &str) -> Option<ActionKind> {
        Some(match s {
            "act" => ActionKind::Act,
            "resign" => ActionKind::Resign,
            "forfeit" => ActionKind::Forfeit,
            "draw" => ActionKind::Draw,
            _ => return None,
        })
    }
}

/// One stored action.
#[derive(Clone, Debug)]
pub struct StoredAction {
    /// 1-based index in the room.
    pub ply: i64,
    /// Kind.
    pub kind: ActionKind,
    /// Acting player (None for a draw).
    pub player: Option<Player>,
    /// Notation, or the reason of a forfeit.
    pub text: String,
    /// The clocks after it (`GameClock::saved`), None without a clock.
    pub clocks: Option<String>,
}

/// One stored seat.
#[derive(Clone, Debug)]
pub struct StoredSeat {
    /// The seat.
    pub seat: Player,
    /// sha256 of the token, hex.
    pub token_hash: String,
    /// Display name.
    pub name: String,
    /// The level of the bot playing the seat (a bot seat, or a bot that took over
    /// from a player who abandoned); None for a human.
    pub bot: Option<u8>,
}

/// The `token_hash` of a seat added as a bot: not a SHA-256 hex digest, so no token
/// resumes it.
pub const BOT_TOKEN_HASH: &str = "bot";

/// A room as stored.
#[derive(Clone, Debug)]
pub struct StoredRoom {
    /// Room id (uuid).
    pub id: String,
    /// `waiting`, `playing` or `finished`.
    pub status: String,
    /// Start position string, None for the standard start.
    pub start_position: Option<String>,
    /// Settings JSON (clock, private, rematch links); None for rooms made before them.
    pub settings: Option<String>,
    /// Seats taken.
    pub seats: Vec<StoredSeat>,
    /// Actions in order.
    pub actions: Vec<StoredAction>,
    /// Seats whose player asked for a rematch.
    pub rematch: Vec<Player>,
    /// Chat messages of both channels, oldest first.
    pub chat: Vec<StoredChat>,
    /// Unix ms of the creation.
    pub created_at_ms: i64,
    /// Unix ms of the last change.
    pub updated_at_ms: i64,
}

/// One stored chat message.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredChat {
    /// Rising per room, both channels.
    pub id: i64,
    /// `players` or `spectators`.
    pub channel: String,
    /// The writer's seat; None for a spectator.
    pub seat: Option<Player>,
    /// The writer's name.
    pub name: String,
    /// The text.
    pub text: String,
    /// Unix ms when the server received it.
    pub at_ms: i64,
}

/// A `chat_messages` row.
type ChatRow = (i64, String, Option<String>, String, String, i64);

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

/// Prepares a SQLite URL: creates the file's directory and asks for the file to be
/// created (`mode=rwc`) unless the URL says otherwise.
fn prepare_sqlite_url(url: &str) -> anyhow::Result<String> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or("");
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
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
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .context("connecting to the database")?;
        MIGRATOR
            .run(&pool)
            .await
            .context("running database migrations")?;
        let writer = writer::Writer::spawn(pool.clone(), sqlite);
        Ok(Store { pool, writer })
    }

    /// The pool, for the queries of other modules (accounts, the cluster's leases).
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
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
        let mut tx = self.pool.begin().await?;
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
        sqlx::query("UPDATE rooms SET settings = $1, updated_at = $2 WHERE id = $3")
            .bind(settings)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Sets the status (and the result JSON when finished).
    pub async fn set_status(
        &self,
        id: &str,
        status: &str,
        result: Option<&str>,
    ) -> sqlx::Result<()> {
        sqlx::query("UPDATE rooms SET status = $1, result = $2, updated_at = $3 WHERE id = $4")
            .bind(status)
            .bind(result)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stores a taken seat (replacing any earlier holder of it).
    pub async fn put_seat(&self, id: &str, seat: &StoredSeat) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM seats WHERE room_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat.seat.lower())
            .execute(&mut *tx)
            .await?;
        insert_seat(&mut tx, id, seat).await?;
        tx.commit().await
    }

    /// Sets (a bot took over) or clears (its player took it back) the bot of a seat.
    pub async fn set_seat_bot(&self, id: &str, seat: Player, bot: Option<u8>) -> sqlx::Result<()> {
        sqlx::query("UPDATE seats SET bot = $1 WHERE room_id = $2 AND seat = $3")
            .bind(bot.map(i64::from))
            .bind(id)
            .bind(seat.lower())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Frees a seat.
    pub async fn delete_seat(&self, id: &str, seat: Player) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM seats WHERE room_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat.lower())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Frees a seat before the start and, when `reset_start`, sets the start position
    /// back to the standard one (an agreed alliance lost an ally), atomically.
    pub async fn free_seat(&self, id: &str, seat: Player, reset_start: bool) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
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
        sqlx::query(
            "INSERT INTO chat_messages (room_id, id, channel, seat, name, text, at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(id)
        .bind(m.id)
        .bind(&m.channel)
        .bind(m.seat.map(|p| p.lower()))
        .bind(&m.name)
        .bind(&m.text)
        .bind(m.at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
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
        q.execute(&self.pool).await?;
        Ok(())
    }

    /// Deletes a room with its seats, actions and chat.
    pub async fn delete_room(&self, id: &str) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
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
        let mut tx = self.pool.begin().await?;
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
        sqlx::query("UPDATE rooms SET start_position = $1, updated_at = $2 WHERE id = $3")
            .bind(start_position)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Appends an accepted action; when it ended the game, also marks the room finished
    /// with `result`, in the same transaction. Without a `fence` it goes through the
    /// group-commit writer (`writer`) and returns once the row is committed. With a
    /// `fence` (cluster mode), the row is written on its own, only while the room's
    /// lease still holds that node and epoch, checked in the same statement; otherwise
    /// the error is [`is_fenced`] and nothing is written.
    pub async fn append_action(
        &self,
        id: &str,
        action: &StoredAction,
        finished_result: Option<&str>,
        fence: Option<&Fence>,
    ) -> sqlx::Result<()> {
        let Some(f) = fence else {
            return self.writer.append(id, action, finished_result).await;
        };
        let now = now_ms();
        let insert = sqlx::query(FENCED_INSERT_ACTION)
            .bind(id)
            .bind(action.ply)
            .bind(action.kind.as_str())
            .bind(action.player.map(|p| p.lower()))
            .bind(&action.text)
            .bind(now)
            .bind(action.clocks.as_deref())
            .bind(&f.node)
            .bind(f.epoch);
        let Some(result) = finished_result else {
            // One statement is atomic on its own: no transaction round trips needed.
            let done = insert.execute(&self.pool).await?;
            return fenced_if_none(done.rows_affected());
        };
        let mut tx = self.pool.begin().await?;
        let done = insert.execute(&mut *tx).await?;
        fenced_if_none(done.rows_affected())?;
        sqlx::query(
            "UPDATE rooms SET status = 'finished', result = $1, updated_at = $2 WHERE id = $3",
        )
        .bind(result)
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
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

    /// Loads one room with its seats and actions.
    pub async fn load_room(&self, id: &str) -> anyhow::Result<Option<StoredRoom>> {
        type RoomRow = (String, String, Option<String>, Option<String>, i64, i64);
        let row: Option<RoomRow> = sqlx::query_as(
            "SELECT id, status, start_position, settings, created_at, updated_at \
             FROM rooms WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((id, status, start_position, settings, created_at_ms, updated_at_ms)) = row else {
            return Ok(None);
        };
        let seat_rows: Vec<(String, String, String, Option<i64>, i64)> = sqlx::query_as(
            "SELECT seat, token_hash, name, bot, rematch FROM seats WHERE room_id = $1",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let mut seats = Vec::with_capacity(seat_rows.len());
        let mut rematch = Vec::new();
        for (seat, token_hash, name, bot, asked) in seat_rows {
            let seat = Player::from_lower(&seat)
                .with_context(|| format!("room {id}: bad seat {seat:?} in database"))?;
            if asked != 0 {
                rematch.push(seat);
            }
            let bot = match bot {
                None => None,
                Some(b) => Some(
                    u8::try_from(b)
                        .ok()
                        .filter(|b| *b <= 3)
                        .with_context(|| format!("room {id}: bad bot level {b} in database"))?,
                ),
            };
            seats.push(StoredSeat {
                seat,
                token_hash,
                name,
                bot,
            });
        }
        let action_rows: Vec<ActionRow> = sqlx::query_as(
            "SELECT ply, kind, player, text, clocks FROM actions WHERE room_id = $1 ORDER BY ply",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let mut actions = Vec::with_capacity(action_rows.len());
        for (ply, kind, player, text, clocks) in action_rows {
            let kind = ActionKind::parse(&kind)
                .with_context(|| format!("room {id}: bad action kind {kind:?}"))?;
            let player = match player {
                None => None,
                Some(p) => Some(
                    Player::from_lower(&p)
                        .with_context(|| format!("room {id}: bad player {p:?}"))?,
                ),
            };
            actions.push(StoredAction {
                ply,
                kind,
                player,
                text,
                clocks,
            });
        }
        let chat_rows: Vec<ChatRow> = sqlx::query_as(
            "SELECT id, channel, seat, name, text, at_ms FROM chat_messages \
             WHERE room_id = $1 ORDER BY id",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let mut chat = Vec::with_capacity(chat_rows.len());
        for (mid, channel, seat, name, text, at_ms) in chat_rows {
            let seat = match seat {
                None => None,
                Some(p) => Some(
                    Player::from_lower(&p)
                        .with_context(|| format!("room {id}: bad chat seat {p:?}"))?,
                ),
            };
            chat.push(StoredChat {
                id: mid,
                channel,
                seat,
                name,
                text,
                at_ms,
            });
        }
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
        }))
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

/// The fenced action insert: the row goes in only while `room_leases` holds this
/// node and epoch. `FOR SHARE` locks the lease row until the commit, so a takeover
/// (which updates that row) waits for the write, and a write after a takeover finds
/// the new epoch and inserts nothing.
const FENCED_INSERT_ACTION: &str =
    "INSERT INTO actions (room_id, ply, kind, player, text, created_at, clocks) \
     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM room_leases \
     WHERE room_id = $1 AND node = $8 AND epoch = $9 FOR SHARE)";

const FENCED: &str = "the room's lease is held by another node: write refused";

fn fenced_if_none(rows: u64) -> sqlx::Result<()> {
    match rows {
        0 => Err(sqlx::Error::Protocol(FENCED.into())),
        _ => Ok(()),
    }
}

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
    /// Seats: seat, name, bot level.
    pub seats: Vec<(Player, String, Option<u8>)>,
    /// The start position; `None` for the standard start.
    pub start_position: Option<String>,
    /// The room's settings (JSON), as stored.
    pub settings: Option<String>,
}

impl Store {
    /// Public finished rooms, the most recently ended first, `limit` of them after the
    /// cursor `(updated_at, id)` of the last room of the page before.
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
             WHERE r.status = 'finished' \
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
                .filter_map(|(seat, name, bot)| {
                    let seat = Player::from_lower(&seat)?;
                    Some((seat, name, bot.and_then(|b| u8::try_from(b).ok())))
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
    .bind(seat.bot.map(i64::from))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_get_their_directory_and_create_mode() {
        let dir = std::env::temp_dir().join(format!("sannin-url-{}", uuid::Uuid::new_v4()));
        let url = format!("sqlite://{}/a/b.db", dir.display());
        assert_eq!(prepare_sqlite_url(&url).unwrap(), format!("{url}?mode=rwc"));
        assert!(dir.join("a").is_dir());
        let ro = format!("sqlite://{}/a/b.db?mode=ro", dir.display());
        assert_eq!(prepare_sqlite_url(&ro).unwrap(), ro);
        assert_eq!(
            prepare_sqlite_url("sqlite::memory:").unwrap(),
            "sqlite::memory:"
        );
        std::fs::remove_dir_all(dir).unwrap();
        assert!(is_sqlite("sqlite://x.db") && !is_sqlite("postgres://h/db"));
    }
}
