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

/// Handle to the database (cheap to clone).
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
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
}

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
                        // With WAL, NORMAL survives a killed process (the kill -9);
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
        Ok(Store { pool })
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
    /// with `result`, in the same transaction.
    pub async fn append_action(
        &self,
        id: &str,
        action: &StoredAction,
        finished_result: Option<&str>,
    ) -> sqlx::Result<()> {
        let now = now_ms();
        let insert = sqlx::query(
            "INSERT INTO actions (room_id, ply, kind, player, text, created_at, clocks) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(id)
        .bind(action.ply)
        .bind(action.kind.as_str())
        .bind(action.player.map(|p| p.lower()))
        .bind(&action.text)
        .bind(now)
        .bind(action.clocks.as_deref());
        let Some(result) = finished_result else {
            // One statement is atomic on its own: no transaction round trips needed.
            insert.execute(&self.pool).await?;
            return Ok(());
        };
        let mut tx = self.pool.begin().await?;
        insert.execute(&mut *tx).await?;
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
        let row: Option<(String, String, Option<String>, Option<String>)> =
            sqlx::query_as("SELECT id, status, start_position, settings FROM rooms WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        let Some((id, status, start_position, settings)) = row else {
            return Ok(None);
        };
        let seat_rows: Vec<(String, String, String, Option<i64>)> =
            sqlx::query_as("SELECT seat, token_hash, name, bot FROM seats WHERE room_id = $1")
                .bind(&id)
                .fetch_all(&self.pool)
                .await?;
        let mut seats = Vec::with_capacity(seat_rows.len());
        for (seat, token_hash, name, bot) in seat_rows {
            let seat = Player::from_lower(&seat)
                .with_context(|| format!("room {id}: bad seat {seat:?} in database"))?;
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
        Ok(Some(StoredRoom {
            id,
            status,
            start_position,
            settings,
            seats,
            actions,
        }))
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
