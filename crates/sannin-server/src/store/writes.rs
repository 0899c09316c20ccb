//! Writing a room: its row, seats, settings, status, chat and actions. Each write of
//! a fenced store (cluster mode) first checks the room's lease (`Store::fenced`).

use sannin_bot::Level;
use sannin_protocol::RoomStatus;
use sannin_rules::Player;

use super::column::{level_column, Named as _};
use super::{unix_ms, ChatAuthor, Fence, Store, StoredAction, StoredChat, StoredSeat, Waiting};

impl Store {
    /// Inserts a new waiting room with its settings JSON and any seats already taken
    /// (a rematch), atomically.
    pub async fn create_room(
        &self,
        id: &str,
        start_position: Option<&str>,
        settings: &str,
        seats: &[StoredSeat],
    ) -> sqlx::Result<()> {
        let now = unix_ms();
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
                .bind(unix_ms())
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
                .bind(unix_ms())
                .bind(id),
        )
        .await
    }

    /// Stores the start of the game: the room is playing since `started_at_ms`.
    pub async fn start_game(&self, id: &str, started_at_ms: i64) -> sqlx::Result<()> {
        self.write(
            sqlx::query(
                "UPDATE rooms SET status = 'playing', started_at = $1, updated_at = $2 \
                 WHERE id = $3",
            )
            .bind(started_at_ms)
            .bind(unix_ms())
            .bind(id),
        )
        .await
    }

    /// Puts a room to sleep: it leaves memory, to be loaded again on demand or at
    /// `wake_at_ms` (unix ms) by the sweep of sleeping rooms. `live_key` is its live
    /// position's key (`fairplay::live`), kept while it sleeps. A waiting room also
    /// keeps its lobby summary and since when it has been alone ([`Waiting`]).
    pub async fn sleep_room(
        &self,
        id: &str,
        wake_at_ms: i64,
        live_key: Option<u64>,
        waiting: Option<Waiting>,
    ) -> sqlx::Result<()> {
        let (summary, alone_since) =
            waiting.map_or((None, None), |w| (Some(w.summary), Some(w.alone_since_ms)));
        self.write(
            sqlx::query(
                "UPDATE rooms SET wake_at = $1, sleep_key = $3, sleep_summary = $4, \
                 sleep_alone_since = $5 WHERE id = $2 AND status <> 'finished'",
            )
            .bind(wake_at_ms)
            .bind(id)
            // The key's bits as a signed column.
            .bind(live_key.map(|k| k as i64))
            .bind(summary)
            .bind(alone_since),
        )
        .await
    }

    /// Whether a sleeping room's game stands at the live position of `key`.
    pub async fn sleeps_at(&self, key: u64) -> sqlx::Result<bool> {
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM rooms WHERE sleep_key = $1 AND wake_at IS NOT NULL \
             AND status <> 'finished' LIMIT 1",
        )
        .bind(key as i64)
        .fetch_optional(self.pool())
        .await?;
        Ok(found.is_some())
    }

    /// A sleeping room was loaded: it is awake (restored at the next start).
    pub async fn wake_room(&self, id: &str) -> sqlx::Result<()> {
        self.write(
            sqlx::query(
                "UPDATE rooms SET wake_at = NULL, sleep_key = NULL, sleep_summary = NULL, \
                 sleep_alone_since = NULL WHERE id = $1 AND wake_at IS NOT NULL",
            )
            .bind(id),
        )
        .await
    }

    /// Stores a taken seat (replacing any earlier holder of it).
    pub async fn put_seat(&self, id: &str, seat: &StoredSeat) -> sqlx::Result<()> {
        self.put_seat_from(id, seat, None).await
    }

    /// [`Store::put_seat`], the seat taken from the client address `addr` (kept for
    /// the reports of the seat).
    pub async fn put_seat_from(
        &self,
        id: &str,
        seat: &StoredSeat,
        addr: Option<&str>,
    ) -> sqlx::Result<()> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM seats WHERE room_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat.seat.lower())
            .execute(&mut *tx)
            .await?;
        insert_seat(&mut tx, id, seat).await?;
        if let Some(addr) = addr {
            sqlx::query("UPDATE seats SET addr = $1 WHERE room_id = $2 AND seat = $3")
                .bind(addr)
                .bind(id)
                .bind(seat.seat.lower())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await
    }

    /// Gives a seat a new token (its hash): the old one no longer resumes it.
    pub async fn set_seat_token(
        &self,
        id: &str,
        seat: Player,
        token_hash: &str,
    ) -> sqlx::Result<()> {
        self.write(
            sqlx::query("UPDATE seats SET token_hash = $1 WHERE room_id = $2 AND seat = $3")
                .bind(token_hash)
                .bind(id)
                .bind(seat.lower()),
        )
        .await
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
                .bind(unix_ms())
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await
    }

    /// Stores a chat message.
    pub async fn append_chat(
        &self,
        id: &str,
        m: &StoredChat,
        author: &ChatAuthor,
    ) -> sqlx::Result<()> {
        self.write(
            sqlx::query(
                "INSERT INTO chat_messages \
                 (room_id, id, channel, seat, name, text, at_ms, account_id, addr) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(id)
            .bind(m.id)
            .bind(m.channel.to_column())
            .bind(m.seat.map(Player::to_column))
            .bind(&m.name)
            .bind(&m.text)
            .bind(m.at_ms)
            .bind(author.account_id.as_deref())
            .bind(author.addr.as_deref()),
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

    /// Takes back the last action of room `id`, ply `ply` (a move every other
    /// player agreed to take back, docs/protocol.md §17).
    pub async fn take_back(&self, id: &str, ply: i64) -> sqlx::Result<()> {
        self.write(
            sqlx::query("DELETE FROM actions WHERE room_id = $1 AND ply = $2")
                .bind(id)
                .bind(ply),
        )
        .await
    }

    /// A game aborted at a table of friends: its actions deleted, a seat a bot took
    /// over given back to its player, and the room waiting again, not started and
    /// without a result; its seats and chat stay.
    pub async fn reopen_room(&self, id: &str) -> sqlx::Result<()> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM actions WHERE room_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE seats SET bot = NULL WHERE room_id = $1 AND token_hash <> $2")
            .bind(id)
            .bind(super::BOT_TOKEN_HASH)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE rooms SET status = 'waiting', result = NULL, started_at = NULL, \
             updated_at = $1 WHERE id = $2",
        )
        .bind(unix_ms())
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
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
            .bind(unix_ms())
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
                .bind(unix_ms())
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
}

async fn insert_seat(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    seat: &StoredSeat,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO seats (room_id, seat, token_hash, name, created_at, bot, account_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(id)
    .bind(seat.seat.lower())
    .bind(&seat.token_hash)
    .bind(&seat.name)
    .bind(unix_ms())
    .bind(seat.bot.map(level_column))
    .bind(&seat.account_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
